/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define LOG_FILE "log"

void mlog_init(struct mlog *log, bool to_stderr)
{
	memset(log, 0, sizeof *log);
	pthread_mutex_init(&log->lock, NULL);
	log->to_stderr = to_stderr;
	log->dir = log->fd = -1;
}

void mlog_destroy(struct mlog *log)
{
	if (log->fd >= 0)
		close(log->fd);
	if (log->dir >= 0)
		close(log->dir);
	pthread_mutex_destroy(&log->lock);
}

static void open_file(struct mlog *log)
{
	log->fd = openat(log->dir, LOG_FILE, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

/* Another mount of the archive may have cut the file (replaced it):
 * append to the one that has the name. */
static void follow_file(struct mlog *log)
{
	struct stat named, ours;
	if (log->fd >= 0 && !fstatat(log->dir, LOG_FILE, &named, 0) && !fstat(log->fd, &ours) &&
	    named.st_ino == ours.st_ino && named.st_dev == ours.st_dev)
		return;
	if (log->fd >= 0)
		close(log->fd);
	open_file(log);
}

static bool read_at(int fd, char *buf, size_t len, off_t off, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n = pread(fd, buf + *got, len - *got, off + (off_t)*got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return true;
}

/* Past MLOG_FILE_MAX, the file keeps its newer half, from a line's
 * start: written beside it and renamed over, so it is never cut short. */
static void bound_file(struct mlog *log)
{
	struct stat st;
	size_t keep = MLOG_FILE_MAX / 2, got = 0;
	if (fstat(log->fd, &st) || st.st_size <= (off_t)MLOG_FILE_MAX)
		return;
	char *buf = malloc(keep);
	int in = openat(log->dir, LOG_FILE, O_RDONLY | O_CLOEXEC), out = -1;
	bool done = buf && in >= 0 && read_at(in, buf, keep, st.st_size - (off_t)keep, &got);
	if (done) {
		char *nl = memchr(buf, '\n', got);
		size_t from = nl ? (size_t)(nl - buf) + 1 : 0;
		out = openat(log->dir, LOG_FILE ".new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		done = out >= 0 && write(out, buf + from, got - from) == (ssize_t)(got - from);
	}
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	free(buf);
	if (done && !renameat(log->dir, LOG_FILE ".new", log->dir, LOG_FILE)) {
		close(log->fd);
		open_file(log);
	} else {
		unlinkat(log->dir, LOG_FILE ".new", 0);
	}
}

/* Appends a line to the file; with the folder locked, as another mount of
 * the same archive may append or bound it too.  Call with log->lock held. */
static void append_line(struct mlog *log, const char *line)
{
	flock(log->dir, LOCK_EX);
	follow_file(log);
	if (log->fd >= 0) {
		size_t len = strlen(line);
		/* O_APPEND: one write per line, never interleaved. */
		if (write(log->fd, line, len) == (ssize_t)len)
			bound_file(log);
	}
	flock(log->dir, LOCK_UN);
}

int mlog_keep_in(struct mlog *log, int dir)
{
	int err = 0;
	pthread_mutex_lock(&log->lock);
	if ((log->dir = fcntl(dir, F_DUPFD_CLOEXEC, 0)) < 0) {
		err = errno;
	} else {
		flock(log->dir, LOCK_EX);
		open_file(log);
		err = log->fd < 0 ? errno : 0;
		flock(log->dir, LOCK_UN);
		size_t first = log->next > MLOG_LINES ? log->next - MLOG_LINES : 0;
		for (size_t i = first; !err && i < log->next; i++)
			append_line(log, log->lines[i % MLOG_LINES]);
	}
	if (err && log->dir >= 0) {
		close(log->dir);
		log->dir = -1;
	}
	pthread_mutex_unlock(&log->lock);
	return err;
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
	if (log->dir >= 0)
		append_line(log, log->lines[log->next % MLOG_LINES]);
	log->next++;
	pthread_mutex_unlock(&log->lock);

	syslog(LOG_WARNING, "%s", msg);
	if (log->to_stderr)
		fprintf(stderr, "mount.mhfu: %s\n", msg);
}

/* The log file's text, NULL if it cannot be read. */
static char *file_text(struct mlog *log, size_t *len)
{
	struct stat st;
	char *text = NULL;
	int fd = openat(log->dir, LOG_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st)) {
		/* Bounded even if another writer let it grow. */
		size_t want = st.st_size > 2 * (off_t)MLOG_FILE_MAX ? 2 * MLOG_FILE_MAX
								  : (size_t)st.st_size;
		if ((text = malloc(want + 1)) &&
		    read_at(fd, text, want, st.st_size - (off_t)want, len)) {
			text[*len] = '\0';
		} else {
			free(text);
			text = NULL;
		}
	}
	close(fd);
	return text;
}

char *mlog_text(struct mlog *log, size_t *len)
{
	if (log->dir >= 0) {
		char *text = file_text(log, len);
		if (text)
			return text;
	}
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
