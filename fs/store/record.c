/* SPDX-License-Identifier: MIT */
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buffer.h"
#include "bytes.h"

#define REJECTED "rejected"
#define OVERRIDES "overrides"
#define LEFT "left"

/* A stable name for a path, not a secret. */
static uint64_t path_hash(const char *s)
{
	return fnv1a64(FNV1A64_INIT, s, strlen(s));
}

char *record_default_dir(const char *archive)
{
	char *full = realpath(archive, NULL);
	const char *path = full ? full : archive;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	struct passwd *pw;
	char *base = NULL, *dir = NULL;
	int n = -1;
	/* Relative values are ignored, as the XDG specification asks. */
	if (state && state[0] == '/')
		n = asprintf(&base, "%s/mhfufs", state);
	else if (home && home[0] == '/')
		n = asprintf(&base, "%s/.local/state/mhfufs", home);
	else if ((pw = getpwuid(getuid())) && pw->pw_dir && pw->pw_dir[0] == '/' &&
		 strcmp(pw->pw_dir, "/"))
		n = asprintf(&base, "%s/.local/state/mhfufs", pw->pw_dir);
	else
		n = asprintf(&base, "/var/tmp/mhfufs-%ld", (long)getuid());
	if (n >= 0 && asprintf(&dir, "%s/%.200s-%016llx", base, name,
			       (unsigned long long)path_hash(path)) < 0)
		dir = NULL;
	free(base);
	free(full);
	return dir;
}

/* mkdir -p, new folders private. */
static int make_dirs(const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		return ENOMEM;
	int err = 0;
	for (char *s = p + 1; !err; s++) {
		bool end = !*s;
		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			err = errno;
		if (end)
			break;
		*s = '/';
	}
	free(p);
	return err;
}

int record_open(struct record *r, const char *dir, struct fs_diag *msg)
{
	struct stat st;
	r->dir = -1;
	r->path = NULL;
	int err = make_dirs(dir);
	if (!err && (r->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		err = errno;
	if (!err && fstat(r->dir, &st))
		err = errno;
	/* Never keep texts where another user could read or swap them. */
	if (!err && st.st_uid != geteuid())
		err = EACCES;
	if (!err && mkdirat(r->dir, REJECTED, 0700) && errno != EEXIST)
		err = errno;
	if (!err && (faccessat(r->dir, ".", W_OK | X_OK, AT_EACCESS) ||
		     faccessat(r->dir, REJECTED, W_OK | X_OK, AT_EACCESS)))
		err = errno;
	if (!err && !(r->path = realpath(dir, NULL)))
		err = errno;
	if (err) {
		fs_diag_printf(msg, "%s: %s", dir,
			 err == EACCES && r->dir >= 0 ? "not the mounting user's folder, or not writable"
						      : strerror(err));
		record_close(r);
	}
	return err;
}

void record_close(struct record *r)
{
	if (r->dir >= 0)
		close(r->dir);
	r->dir = -1;
	free(r->path);
	r->path = NULL;
}

static int open_rejected(struct record *r)
{
	if (r->dir < 0)
		return -1;
	return openat(r->dir, REJECTED, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* A name a kept text could have: no folder, nothing hidden (temporaries). */
static bool text_name(const char *name)
{
	return name[0] && name[0] != '.' && !strchr(name, '/');
}

/* The mount's attributes of a kept text: read-only, an inode of its own. */
static void mount_stat(struct stat *st)
{
	st->st_ino = RECORD_INO | (st->st_ino & ~RECORD_INO);
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct record_text *)a)->name, ((const struct record_text *)b)->name);
}

/* The kept texts of the open rejected/ folder, oldest first, with their
 * attributes as on disk.  0 or errno. */
static int list_texts(int dir, struct record_text **out, size_t *count)
{
	int fd = dup(dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct record_text *t = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	if (!d) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	rewinddir(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (!text_name(e->d_name) || strlen(e->d_name) >= sizeof t->name)
			continue;
		struct record_text *more = array_reserve(t, &cap, n + 1, sizeof *t, 32);
		if (!more) {
			err = ENOMEM;
			break;
		}
		t = more;
		if (fstatat(dir, e->d_name, &t[n].st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(t[n].st.st_mode))
			continue; /* removed meanwhile, or not a text */
		snprintf(t[n].name, sizeof t[n].name, "%s", e->d_name);
		n++;
	}
	closedir(d);
	if (err) {
		free(t);
		return err;
	}
	if (n)
		qsort(t, n, sizeof *t, by_name);
	*out = t;
	*count = n;
	return 0;
}

/* The bounds, never removing `newest`: the oldest texts past
 * RECORD_MAX_TEXTS, then, while over RECORD_MAX_BYTES, the largest of
 * those over RECORD_SMALL_TEXT (of two alike, the older). */
static void trim_texts(int dir, const char *newest)
{
	struct record_text *t;
	size_t n, kept = 1; /* the newest */
	uint64_t bytes = 0;
	if (list_texts(dir, &t, &n))
		return;
	for (size_t i = n; i-- > 0;) {
		if (strcmp(t[i].name, newest) && kept >= RECORD_MAX_TEXTS) {
			unlinkat(dir, t[i].name, 0);
			t[i].name[0] = '\0';
			continue;
		}
		kept += strcmp(t[i].name, newest) != 0;
		bytes += (uint64_t)t[i].st.st_size;
	}
	while (bytes > RECORD_MAX_BYTES) {
		size_t largest = n;
		for (size_t i = 0; i < n; i++)
			if (t[i].name[0] && strcmp(t[i].name, newest) &&
			    (uint64_t)t[i].st.st_size > RECORD_SMALL_TEXT &&
			    (largest == n || t[i].st.st_size > t[largest].st.st_size))
				largest = i;
		if (largest == n)
			break; /* the rest is small texts and the newest */
		unlinkat(dir, t[largest].name, 0);
		bytes -= (uint64_t)t[largest].st.st_size;
		t[largest].name[0] = '\0';
	}
	free(t);
}

int record_write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A time as kept files are named after it: 20261130T123456.123456Z (UTC). */
static void time_stamp(const struct timespec *t, char *buf, size_t len)
{
	struct tm tm;
	char seconds[32];
	gmtime_r(&t->tv_sec, &tm);
	strftime(seconds, sizeof seconds, "%Y%m%dT%H%M%S", &tm);
	snprintf(buf, len, "%s.%06ldZ", seconds, t->tv_nsec / 1000 % 1000000);
}

int record_keep(struct record *r, const char *view_path, const void *data, size_t len,
		char *name, size_t name_len)
{
	struct timespec now;
	char stamp[48], view[232];
	int dir = open_rejected(r), fd = -1, err = 0;
	if (dir < 0 && r->dir >= 0 && errno == ENOENT && !mkdirat(r->dir, REJECTED, 0700))
		dir = open_rejected(r); /* removed by hand while mounted */
	if (dir < 0)
		return r->dir < 0 ? ENOENT : errno;
	size_t i = 0;
	for (; view_path[i] && i + 1 < sizeof view; i++)
		view[i] = view_path[i] == '/' ? '%' : view_path[i];
	view[i] = '\0';
	clock_gettime(CLOCK_REALTIME, &now);
	/* A name taken (the same microsecond): the next microsecond. */
	for (int tries = 0; fd < 0 && tries < 1000; tries++, now.tv_nsec += 1000) {
		if (now.tv_nsec >= 1000000000L) {
			now.tv_sec++;
			now.tv_nsec -= 1000000000L;
		}
		time_stamp(&now, stamp, sizeof stamp);
		snprintf(name, name_len, "%s-%s", stamp, view);
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		err = errno;
	} else {
		/* On disk before the refusal is returned: the user may quit
		 * the editor on seeing it. */
		err = record_write_all(fd, data, len);
		if (!err && fsync(fd))
			err = errno;
		close(fd);
		if (err)
			unlinkat(dir, name, 0);
		else
			fsync(dir);
	}
	if (!err)
		trim_texts(dir, name);
	close(dir);
	return err;
}

int record_lookup(struct record *r, const char *name, struct stat *st)
{
	if (!text_name(name))
		return ENOENT;
	int dir = open_rejected(r), err = 0;
	if (dir < 0)
		return ENOENT;
	if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW))
		err = errno;
	else if (!S_ISREG(st->st_mode))
		err = ENOENT;
	else
		mount_stat(st);
	close(dir);
	return err;
}

int record_list(struct record *r, struct record_text **texts, size_t *count)
{
	int dir = open_rejected(r);
	if (dir < 0)
		return ENOENT;
	int err = list_texts(dir, texts, count);
	close(dir);
	for (size_t i = 0; !err && i < *count; i++)
		mount_stat(&(*texts)[i].st);
	return err;
}

int record_read_file(int dir, const char *name, uint8_t **data, size_t *len)
{
	struct stat st;
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), err = 0;
	if (fd < 0)
		return errno;
	uint8_t *p = NULL;
	size_t used = 0;
	if (fstat(fd, &st))
		err = errno;
	else if (!(p = malloc(st.st_size ? (size_t)st.st_size : 1)))
		err = ENOMEM;
	while (!err && used < (size_t)st.st_size) {
		ssize_t n = pread(fd, p + used, (size_t)st.st_size - used, (off_t)used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* cut meanwhile: what is there */
		used += (size_t)n;
	}
	close(fd);
	if (err) {
		free(p);
		return err;
	}
	*data = p;
	*len = used;
	return 0;
}

int record_get(struct record *r, uint64_t ino, struct stat *st, uint8_t **data, size_t *len)
{
	struct record_text *t;
	size_t n;
	int dir = open_rejected(r), err = ENOENT;
	if (dir < 0)
		return ENOENT;
	if (!list_texts(dir, &t, &n)) {
		for (size_t i = 0; i < n && err == ENOENT; i++) {
			mount_stat(&t[i].st);
			if (t[i].st.st_ino != ino)
				continue;
			*st = t[i].st;
			err = data ? record_read_file(dir, t[i].name, data, len) : 0;
		}
		free(t);
	}
	close(dir);
	return err;
}

int record_remove(struct record *r, const char *name)
{
	struct stat st;
	if (!text_name(name))
		return ENOENT;
	int dir = open_rejected(r), err = 0;
	if (dir < 0)
		return ENOENT;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		err = ENOENT;
	else if (unlinkat(dir, name, 0))
		err = errno;
	close(dir);
	return err;
}

/* ---- overrides ---------------------------------------------------------- */

/* KEY's file name in overrides/: '/' as '%', then its extension. */
static void override_name(const char *key, const char *ext, char *buf, size_t len)
{
	size_t i = 0;
	for (; key[i] && i + strlen(ext) + 1 < len; i++)
		buf[i] = key[i] == '/' ? '%' : key[i];
	snprintf(buf + i, len - i, "%s", ext);
}

void record_override_path(const struct record *r, const char *key, const char *ext,
			  char *buf, size_t len)
{
	char name[256];
	override_name(key, ext, name, sizeof name);
	snprintf(buf, len, "%s/%s/%s", r->path ? r->path : "?", OVERRIDES, name);
}

int record_override_get(struct record *r, const char *key, const char *ext, uint8_t **data,
			size_t *len)
{
	char name[256];
	if (r->dir < 0)
		return ENOENT;
	int dir = openat(r->dir, OVERRIDES, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return errno;
	override_name(key, ext, name, sizeof name);
	int err = record_read_file(dir, name, data, len);
	close(dir);
	return err;
}

int record_override_size(const struct record *r, const char *key, const char *ext,
			 uint64_t *size)
{
	char name[256], path[sizeof OVERRIDES + sizeof name];
	struct stat st;
	if (r->dir < 0)
		return ENOENT;
	override_name(key, ext, name, sizeof name);
	snprintf(path, sizeof path, "%s/%s", OVERRIDES, name);
	if (fstatat(r->dir, path, &st, AT_SYMLINK_NOFOLLOW))
		return errno;
	*size = (uint64_t)st.st_size;
	return 0;
}

int record_override_put(struct record *r, const char *key, const char *ext, const void *data,
			size_t len)
{
	char name[256], temp[272];
	if (r->dir < 0)
		return ENOENT;
	if (mkdirat(r->dir, OVERRIDES, 0700) && errno != EEXIST)
		return errno;
	int dir = openat(r->dir, OVERRIDES, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	if (dir < 0)
		return errno;
	override_name(key, ext, name, sizeof name);
	if (!len) {
		if (unlinkat(dir, name, 0) && errno != ENOENT)
			err = errno;
	} else {
		/* Written beside and renamed over: a crash leaves the old
		 * override or the new one, never half of one. */
		snprintf(temp, sizeof temp, ".%s.new", name);
		int fd = openat(dir, temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			err = errno;
		if (!err)
			err = record_write_all(fd, data, len);
		if (!err && fsync(fd))
			err = errno;
		if (fd >= 0)
			close(fd);
		if (!err && renameat(dir, temp, dir, name))
			err = errno;
		if (err)
			unlinkat(dir, temp, 0);
	}
	if (!err && fsync(dir))
		err = errno;
	close(dir);
	return err;
}

/* ---- scratch folders left at unmount ------------------------------------ */

/* Removes folder `name` in dir and all it holds: 0 or an errno. */
static int remove_tree(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP ? (unlinkat(dir, name, 0) ? errno : 0)
							  : errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int err = errno;
		close(fd);
		return err;
	}
	int err = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		int r = e->d_type == DT_DIR || e->d_type == DT_UNKNOWN ? remove_tree(dirfd(d), e->d_name)
				: unlinkat(dirfd(d), e->d_name, 0) ? errno : 0;
		err = err ? err : r;
	}
	closedir(d);
	return err ? err : unlinkat(dir, name, AT_REMOVEDIR) ? errno : 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Removes the oldest trees of left/ (names sort by time) past `keep`. */
static void trim_left(int dir, size_t keep)
{
	int fd = dup(dir);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	char (*names)[256] = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char (*room)[256] = array_reserve(names, &cap, n + 1, sizeof *names, 16);
		if (!room)
			break;
		names = room;
		snprintf(names[n++], sizeof *names, "%s", e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_string);
	for (size_t i = 0; i + keep < n; i++)
		remove_tree(dir, names[i]);
	free(names);
}

int record_left_open(struct record *r, struct record_left *left)
{
	left->dir = -1;
	if (r->dir < 0)
		return ENOENT;
	if (mkdirat(r->dir, LEFT, 0700) && errno != EEXIST)
		return errno;
	int dir = openat(r->dir, LEFT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return errno;
	/* The newest RECORD_MAX_LEFT with this one. */
	trim_left(dir, RECORD_MAX_LEFT - 1);
	struct timespec now;
	char name[48];
	clock_gettime(CLOCK_REALTIME, &now);
	time_stamp(&now, name, sizeof name);
	int err = mkdirat(dir, name, 0700) ? errno : 0;
	if (!err && (left->dir = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		err = errno;
	close(dir);
	snprintf(left->path, sizeof left->path, "%s/%s/%s", r->path ? r->path : ".", LEFT, name);
	return err;
}

/* The folder holding `path`'s last name, made as needed (*dir, to be
 * closed), and that name; 0 or an errno. */
static int left_folder(const struct record_left *left, const char *path, int *dir,
		       const char **name)
{
	char part[256];
	int at = dup(left->dir);
	if (at < 0)
		return errno;
	for (const char *slash; (slash = strchr(path, '/'));) {
		size_t n = (size_t)(slash - path);
		if (n && n < sizeof part) {
			memcpy(part, path, n);
			part[n] = '\0';
			if (mkdirat(at, part, 0700) && errno != EEXIST) {
				int err = errno;
				close(at);
				return err;
			}
			int next = openat(at, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(at);
			if (next < 0)
				return errno;
			at = next;
		}
		path = slash + 1;
	}
	*dir = at;
	*name = path;
	return 0;
}

int record_left_put(struct record_left *left, const char *path, mode_t mode,
		    const void *data, size_t len)
{
	int dir, err;
	const char *name;
	if (left->dir < 0)
		return EBADF;
	if ((err = left_folder(left, path, &dir, &name)))
		return err;
	if (!*name) {
		err = EINVAL;
	} else if (S_ISDIR(mode)) {
		err = mkdirat(dir, name, (mode & 07777) | 0700) && errno != EEXIST ? errno : 0;
	} else if (S_ISLNK(mode)) {
		char *target = strndup(data ? (const char *)data : "", len);
		err = !target ? ENOMEM : symlinkat(target, dir, name) ? errno : 0;
		free(target);
	} else if (S_ISREG(mode)) {
		int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				(mode & 0777) | 0600);
		if (fd < 0) {
			err = errno;
		} else {
			err = record_write_all(fd, data, len);
			close(fd);
		}
	} else {
		err = EINVAL; /* fifos, sockets, devices: nothing to keep */
	}
	close(dir);
	return err;
}

void record_left_close(struct record_left *left)
{
	/* One sync for the whole tree, not one per file (a .git holds
	 * hundreds). */
	if (left->dir >= 0) {
		syncfs(left->dir);
		close(left->dir);
	}
	left->dir = -1;
}
