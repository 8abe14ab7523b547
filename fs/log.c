#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

void mlog_init(struct mlog *log, bool to_stderr)
{
	memset(log, 0, sizeof *log);
	pthread_mutex_init(&log->lock, NULL);
	log->to_stderr = to_stderr;
}

void mlog_destroy(struct mlog *log)
{
	pthread_mutex_destroy(&log->lock);
}

void mlog_printf(struct mlog *log, const char *fmt, ...)
{
	char msg[MLOG_LINE_MAX - 40]; /* room for the stamp */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);

	time_t now = time(NULL);
	struct tm tm;
	char stamp[24];
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);

	pthread_mutex_lock(&log->lock);
	snprintf(log->lines[log->next % MLOG_LINES], MLOG_LINE_MAX, "%s %s\n",
		 stamp, msg);
	log->next++;
	pthread_mutex_unlock(&log->lock);

	syslog(LOG_WARNING, "%s", msg);
	if (log->to_stderr)
		fprintf(stderr, "mount.mhfu: %s\n", msg);
}

char *mlog_text(struct mlog *log, size_t *len)
{
	pthread_mutex_lock(&log->lock);
	size_t first = log->next > MLOG_LINES ? log->next - MLOG_LINES : 0;
	size_t cap = (log->next - first) * MLOG_LINE_MAX + 1, used = 0;
	char *text = malloc(cap);
	if (text) {
		for (size_t i = first; i < log->next; i++) {
			size_t n = strlen(log->lines[i % MLOG_LINES]);
			memcpy(text + used, log->lines[i % MLOG_LINES], n);
			used += n;
		}
		text[used] = '\0';
		*len = used;
	}
	pthread_mutex_unlock(&log->lock);
	return text;
}
