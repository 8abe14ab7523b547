/* The mount's log: the last lines kept in memory for .mhfu/log, each
 * also sent to syslog and, when running in the foreground, to stderr. */
#ifndef FS_LOG_H
#define FS_LOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define MLOG_LINES 256
#define MLOG_LINE_MAX 320

struct mlog {
	pthread_mutex_t lock;               /* protects everything below */
	char lines[MLOG_LINES][MLOG_LINE_MAX];
	size_t next;                        /* lines ever logged */
	bool to_stderr;                     /* set while in the foreground */
};

void mlog_init(struct mlog *log, bool to_stderr);
void mlog_destroy(struct mlog *log);

/* Logs one line (no trailing newline needed), stamped with UTC time. */
void mlog_printf(struct mlog *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The kept lines, oldest first, as one malloc'ed text; NULL on ENOMEM. */
char *mlog_text(struct mlog *log, size_t *len);

#endif
