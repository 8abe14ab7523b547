/* SPDX-License-Identifier: MIT */
/* The directory in memory of tests/unit/test_store.c: a table of system calls
 * (struct store_io, fs/store/store.h) acting on files that keep their bytes as
 * written and as of their last sync, and names as of the directory's
 * last sync plus the changes since, in order; a call can be made to fail,
 * or the power to go after any call (sim_power_loss gives each state the
 * disk may be left in).  Included by that test and by test_driver.c, which
 * plans a whole commit on it. */
#ifndef TESTS_SIMDIR_H
#define TESTS_SIMDIR_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "store.h"

/* ---- bytes ------------------------------------------------------------ */

struct bytes {
	uint8_t *p;
	size_t len;
};

static void bytes_set(struct bytes *b, const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);
	assert_non_null(q);
	if (len)
		memcpy(q, p, len);
	free(b->p);
	b->p = q;
	b->len = len;
}

static bool bytes_equal(const struct bytes *a, const struct bytes *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

static void bytes_free(struct bytes *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

/* ---- a directory in memory -------------------------------------------- */

#define DIR_PATH "/sim"
#define ARCHIVE DIR_PATH "/DATA.BIN"
#define ORIG ARCHIVE ".orig"
#define JOURNAL ARCHIVE ".mhfu-journal"
#define MAX_FILES 32 /* files made over a run: never reused */
#define MAX_NAMES 8
#define MAX_FDS 8
#define MAX_DIR_OPS 16
#define FD_BASE 1000 /* descriptors here are FD_BASE + a slot */
#define FD_FREE (-2)
#define FD_DIR (-1)

struct file {
	bool used;
	struct bytes data;   /* as written */
	struct bytes synced; /* as of its last fsync or fdatasync */
	mode_t mode;
};

struct name {
	char path[64]; /* "" when free */
	int file;
};

/* A change to the directory: `from` loses its name, `to` names `file`
 * (either path may be ""). */
struct dir_op {
	char from[64], to[64];
	int file;
};

struct sim {
	struct file files[MAX_FILES];
	struct name names[MAX_NAMES];   /* the directory now */
	struct name durable[MAX_NAMES]; /* as of its last fsync */
	struct dir_op ops[MAX_DIR_OPS]; /* changes since, in order */
	int nops;
	int fds[MAX_FDS];               /* each slot's file, FD_DIR or FD_FREE */
	long calls;                     /* made so far */
	long fail_at;                   /* the call (from 1) to fail; 0: none */
	int fail_errno;
	const char *failed;             /* the failed call's name, once it was */
	long crash_after;               /* calls after which the power goes; -1: never */
	bool crashed;                   /* it went: every later call fails */
	bool copy_in_kernel;            /* copy_file_range works (else EXDEV) */
	uint64_t free_bytes;            /* what fstatvfs says is free; 0: plenty */
	int notes_given;                /* commits whose note went to the store */
	unsigned notes_durable;         /* bit k: commit k's note made durable, by
					   the hook or a recovery, as the history's
					   records would be */
	int hook_calls;
};

static struct sim S;     /* what the table's calls act on */
static struct sim CRASH; /* S as it was when the power went */

static void sim_free(struct sim *s)
{
	for (int f = 0; f < MAX_FILES; f++) {
		bytes_free(&s->files[f].data);
		bytes_free(&s->files[f].synced);
	}
	memset(s, 0, sizeof *s);
	for (int i = 0; i < MAX_FDS; i++)
		s->fds[i] = FD_FREE;
	s->crash_after = -1;
	s->copy_in_kernel = true;
}

static void sim_copy(struct sim *to, const struct sim *from)
{
	sim_free(to);
	*to = *from;
	for (int f = 0; f < MAX_FILES; f++) {
		to->files[f].data = (struct bytes){0};
		to->files[f].synced = (struct bytes){0};
		if (!from->files[f].used)
			continue;
		bytes_set(&to->files[f].data, from->files[f].data.p, from->files[f].data.len);
		bytes_set(&to->files[f].synced, from->files[f].synced.p, from->files[f].synced.len);
	}
}

static int name_find(const struct name *names, const char *path)
{
	for (int i = 0; i < MAX_NAMES; i++)
		if (names[i].path[0] && !strcmp(names[i].path, path))
			return i;
	return -1;
}

static void name_remove(struct name *names, const char *path)
{
	int i = name_find(names, path);
	if (i >= 0)
		names[i].path[0] = '\0';
}

static void name_set(struct name *names, const char *path, int file)
{
	int i = name_find(names, path);
	for (int j = 0; i < 0 && j < MAX_NAMES; j++)
		if (!names[j].path[0])
			i = j;
	assert_true(i >= 0);
	snprintf(names[i].path, sizeof names[i].path, "%s", path);
	names[i].file = file;
}

static void dir_op_apply(struct name *names, const struct dir_op *op)
{
	if (op->from[0])
		name_remove(names, op->from);
	if (op->to[0])
		name_set(names, op->to, op->file);
}

static void dir_change(const char *from, const char *to, int file)
{
	assert_true(S.nops < MAX_DIR_OPS);
	struct dir_op *op = &S.ops[S.nops++];
	snprintf(op->from, sizeof op->from, "%s", from);
	snprintf(op->to, sizeof op->to, "%s", to);
	op->file = file;
	dir_op_apply(S.names, op);
}

/* The file `path` names, -1 if none. */
static int named(const char *path)
{
	int i = name_find(S.names, path);
	return i < 0 ? -1 : S.names[i].file;
}

/* Counts a call; false (errno set) when it fails: the chosen one, or any
 * after the power went, which is when S is kept in CRASH. */
static bool enter(const char *call)
{
	if (S.crash_after >= 0 && !S.crashed && S.calls == S.crash_after) {
		sim_copy(&CRASH, &S);
		S.crashed = true;
	}
	if (S.crashed) {
		errno = EIO;
		return false;
	}
	if (++S.calls == S.fail_at) {
		S.failed = call;
		errno = S.fail_errno;
		return false;
	}
	return true;
}

/* The slot of descriptor fd, -1 (EBADF) if it is not open. */
static int slot_of(int fd)
{
	int slot = fd - FD_BASE;
	if (slot < 0 || slot >= MAX_FDS || S.fds[slot] == FD_FREE) {
		errno = EBADF;
		return -1;
	}
	return slot;
}

/* The file open as fd, NULL (errno set) if none. */
static struct file *file_of(int fd)
{
	int slot = slot_of(fd);
	if (slot < 0)
		return NULL;
	if (S.fds[slot] == FD_DIR) {
		errno = EISDIR;
		return NULL;
	}
	return &S.files[S.fds[slot]];
}

static int new_file(mode_t mode)
{
	for (int f = 0; f < MAX_FILES; f++)
		if (!S.files[f].used) {
			S.files[f].used = true;
			S.files[f].mode = mode;
			return f;
		}
	fail_msg("more than %d files in one run", MAX_FILES);
	return -1;
}

static void file_write(struct file *f, const uint8_t *p, size_t len, uint64_t off)
{
	if (off + len > f->data.len) {
		uint8_t *q = realloc(f->data.p, off + len);
		assert_non_null(q);
		memset(q + f->data.len, 0, off + len - f->data.len);
		f->data.p = q;
		f->data.len = off + len;
	}
	memcpy(f->data.p + off, p, len);
}

static int sim_open(const char *path, int flags, mode_t mode)
{
	if (!enter("open"))
		return -1;
	int slot = 0;
	while (slot < MAX_FDS && S.fds[slot] != FD_FREE)
		slot++;
	assert_true(slot < MAX_FDS);
	if (flags & O_DIRECTORY) {
		if (strcmp(path, DIR_PATH)) {
			errno = ENOENT;
			return -1;
		}
		S.fds[slot] = FD_DIR;
		return FD_BASE + slot;
	}
	int f = named(path);
	if (f >= 0 && (flags & O_CREAT) && (flags & O_EXCL)) {
		errno = EEXIST;
		return -1;
	}
	if (f < 0 && !(flags & O_CREAT)) {
		errno = ENOENT;
		return -1;
	}
	if (f < 0) {
		f = new_file(mode);
		dir_change("", path, f);
	} else if (flags & O_TRUNC) {
		S.files[f].data.len = 0;
	}
	S.fds[slot] = f;
	return FD_BASE + slot;
}

/* As on Linux, the descriptor is released even when close fails. */
static int sim_close(int fd)
{
	bool ok = enter("close");
	int slot = slot_of(fd);
	if (slot < 0)
		return -1;
	S.fds[slot] = FD_FREE;
	return ok ? 0 : -1;
}

static ssize_t sim_pread(int fd, void *buf, size_t len, off_t off)
{
	if (!enter("pread"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	if ((uint64_t)off >= f->data.len)
		return 0;
	size_t n = f->data.len - (size_t)off < len ? f->data.len - (size_t)off : len;
	memcpy(buf, f->data.p + off, n);
	return (ssize_t)n;
}

static ssize_t sim_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (!enter("pwrite"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	file_write(f, buf, len, (uint64_t)off);
	return (ssize_t)len;
}

static ssize_t sim_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len)
{
	if (!enter("copy_file_range"))
		return -1;
	struct file *from = file_of(in), *to = file_of(out);
	if (!from || !to)
		return -1;
	if (!S.copy_in_kernel) {
		errno = EXDEV;
		return -1;
	}
	if ((uint64_t)*in_off >= from->data.len)
		return 0;
	size_t n = from->data.len - (size_t)*in_off;
	n = n < len ? n : len;
	file_write(to, from->data.p + *in_off, n, (uint64_t)*out_off);
	*in_off += (off_t)n;
	*out_off += (off_t)n;
	return (ssize_t)n;
}

static int sync_fd(int fd)
{
	int slot = slot_of(fd);
	if (slot < 0)
		return -1;
	if (S.fds[slot] == FD_DIR) {
		memcpy(S.durable, S.names, sizeof S.durable);
		S.nops = 0;
	} else {
		struct file *f = &S.files[S.fds[slot]];
		bytes_set(&f->synced, f->data.p, f->data.len);
	}
	return 0;
}

static int sim_fsync(int fd)
{
	return enter("fsync") ? sync_fd(fd) : -1;
}

static int sim_fdatasync(int fd)
{
	return enter("fdatasync") ? sync_fd(fd) : -1;
}

static int sim_fstat(int fd, struct stat *st)
{
	if (!enter("fstat"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFREG | f->mode;
	st->st_size = (off_t)f->data.len;
	st->st_ino = (ino_t)(f - S.files) + 1;
	return 0;
}

static int sim_stat(const char *path, struct stat *st)
{
	if (!enter("stat"))
		return -1;
	int f = named(path);
	if (f < 0) {
		errno = ENOENT;
		return -1;
	}
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFREG | S.files[f].mode;
	st->st_size = (off_t)S.files[f].data.len;
	st->st_ino = (ino_t)f + 1;
	return 0;
}

static int sim_fchmod(int fd, mode_t mode)
{
	if (!enter("fchmod"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	f->mode = mode;
	return 0;
}

static int sim_fchown(int fd, uid_t uid, gid_t gid)
{
	(void)uid;
	(void)gid;
	return enter("fchown") && file_of(fd) ? 0 : -1;
}

static int sim_flock(int fd, int op)
{
	(void)op;
	return enter("flock") && file_of(fd) ? 0 : -1;
}

static int sim_rename(const char *from, const char *to)
{
	if (!enter("rename"))
		return -1;
	int f = named(from);
	if (f < 0) {
		errno = ENOENT;
		return -1;
	}
	dir_change(from, to, f);
	return 0;
}

static int sim_unlink(const char *path)
{
	if (!enter("unlink"))
		return -1;
	if (named(path) < 0) {
		errno = ENOENT;
		return -1;
	}
	dir_change(path, "", -1);
	return 0;
}

static int sim_access(const char *path, int mode)
{
	(void)mode;
	if (!enter("access"))
		return -1;
	if (named(path) < 0) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

static int sim_ftruncate(int fd, off_t len)
{
	if (!enter("ftruncate"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	if ((size_t)len > f->data.len)
		file_write(f, (const uint8_t *)"", 0, (uint64_t)len); /* zeros */
	f->data.len = (size_t)len;
	return 0;
}

/* Writeback started early changes nothing the power may take. */
static int sim_sync_file_range(int fd, off_t off, off_t len, unsigned flags)
{
	(void)off;
	(void)len;
	(void)flags;
	return enter("sync_file_range") && file_of(fd) ? 0 : -1;
}

/* Advice changes nothing the power may take. */
static int sim_fadvise(int fd, off_t off, off_t len, int advice)
{
	(void)off;
	(void)len;
	(void)advice;
	return enter("fadvise") && file_of(fd) ? 0 : -1;
}

/* The store's hook (store.h note 6), as the history's: a call that syncs
 * the notes given so far. */
static inline int sim_hook(void *ctx, struct fs_diag *why)
{
	(void)ctx;
	if (!enter("hook")) {
		fs_diag_printf(why, "syncing the notes of %s: %s", ARCHIVE, strerror(errno));
		return EIO;
	}
	S.notes_durable |= S.notes_given >= 31 ? ~1u : (2u << S.notes_given) - 2;
	S.hook_calls++;
	return 0;
}

/* The room the filesystem has: not a call that fails (the store goes on
 * when it cannot tell). */
static int sim_fstatvfs(int fd, struct statvfs *st)
{
	(void)fd;
	memset(st, 0, sizeof *st);
	st->f_frsize = st->f_bsize = 4096;
	st->f_bavail = st->f_bfree = S.free_bytes ? S.free_bytes / 4096 : 1u << 30;
	return 0;
}

static const struct store_io SIM_IO = {
	.open = sim_open,
	.close = sim_close,
	.pread = sim_pread,
	.pwrite = sim_pwrite,
	.copy_file_range = sim_copy_file_range,
	.fsync = sim_fsync,
	.fdatasync = sim_fdatasync,
	.fstat = sim_fstat,
	.stat = sim_stat,
	.fchmod = sim_fchmod,
	.fchown = sim_fchown,
	.flock = sim_flock,
	.rename = sim_rename,
	.unlink = sim_unlink,
	.access = sim_access,
	.fstatvfs = sim_fstatvfs,
	.ftruncate = sim_ftruncate,
	.sync_file_range = sim_sync_file_range,
	.fadvise = sim_fadvise,
};

/* S becomes a directory holding only `path`, with `image` in it, synced. */
static void sim_start(const struct bytes *image)
{
	sim_free(&S);
	int f = new_file(0644);
	bytes_set(&S.files[f].data, image->p, image->len);
	bytes_set(&S.files[f].synced, image->p, image->len);
	name_set(S.names, ARCHIVE, f);
	memcpy(S.durable, S.names, sizeof S.durable);
}

/* Files of `at` written since their last sync. */
static inline int dirty_files(const struct sim *at)
{
	int n = 0;
	for (int f = 0; f < MAX_FILES; f++)
		n += at->files[f].used && !bytes_equal(&at->files[f].data, &at->files[f].synced);
	return n;
}

/* S becomes what a power loss at `at` leaves: the names as of the
 * directory's last sync and its first `ops_kept` changes since; of the
 * files written since their last sync, the i-th as written when bit i of
 * `data_kept` is set, else as of that sync.  Nothing is open. */
static void sim_power_loss(const struct sim *at, int ops_kept, unsigned data_kept)
{
	sim_free(&S);
	S.notes_given = at->notes_given;
	S.notes_durable = at->notes_durable;
	memcpy(S.names, at->durable, sizeof S.names);
	for (int i = 0; i < ops_kept; i++)
		dir_op_apply(S.names, &at->ops[i]);
	memcpy(S.durable, S.names, sizeof S.durable);
	int dirty = 0;
	for (int f = 0; f < MAX_FILES; f++) {
		const struct file *was = &at->files[f];
		if (!was->used)
			continue;
		bool is_dirty = !bytes_equal(&was->data, &was->synced);
		const struct bytes *kept =
			is_dirty && (data_kept >> dirty++ & 1) ? &was->data : &was->synced;
		S.files[f].used = true;
		S.files[f].mode = was->mode;
		bytes_set(&S.files[f].data, kept->p, kept->len);
		bytes_set(&S.files[f].synced, kept->p, kept->len);
	}
}

#endif
