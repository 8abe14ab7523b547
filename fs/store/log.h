/* SPDX-License-Identifier: MIT */
/* The mount's log: each line goes to the archive's log file in its
 * record folder (record.h), which .mhfu/log shows and which outlives the
 * mount (bounded: past MLOG_FILE_MAX bytes its older half is dropped),
 * to syslog and, when running in the foreground, to stderr.  The last
 * lines are also kept in memory: for the lines logged before the file
 * is opened, and for mounts that have no record folder. */
#ifndef FS_LOG_H
#define FS_LOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define MLOG_LINES 256
#define MLOG_LINE_MAX 320
#define MLOG_FILE_MAX (1u << 20)

struct mlog {
	pthread_mutex_t lock;               /* protects everything below */
	char lines[MLOG_LINES][MLOG_LINE_MAX];
	size_t next;                        /* lines ever logged */
	bool to_stderr;                     /* set while in the foreground */
	int dir;                            /* the record folder, or -1 */
	int fd;                             /* its log, opened to append, or -1 */
};

void mlog_init(struct mlog *log, bool to_stderr);
void mlog_destroy(struct mlog *log);

/* Keeps the log in the file `log` of folder `dir` (a descriptor, which
 * is duplicated) from now on, appending the lines logged so far.  0 or an
 * errno. */
int mlog_keep_in(struct mlog *log, int dir);

/* Logs one line (no trailing newline needed), stamped with UTC time. */
void mlog_printf(struct mlog *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The log, oldest line first, as one malloc'ed text (the file's, or
 * else the lines kept in memory); NULL on ENOMEM. */
char *mlog_text(struct mlog *log, size_t *len);

#endif
