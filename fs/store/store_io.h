/* SPDX-License-Identifier: MIT */
/* The seam (store.h): every system call on the archive, its journal, its
 * replacement, its backup and their directory goes through a table, as
 * SQLite's os_unix.c makes its calls; and the whole-buffer transfers, the
 * copies and the directory syncs built on it, which the store and its
 * journal share.  "-1 and errno" is the table's convention alone, as the
 * calls' own; the helpers answer 0 or an errno, as the rest of fs/. */
#ifndef FS_STORE_IO_H
#define FS_STORE_IO_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

/* The system calls the store makes, each with its libc meaning: -1 with
 * errno on failure. */
struct store_io {
	int (*open)(const char *path, int flags, mode_t mode);
	int (*close)(int fd);
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, off_t off);
	/* copy_file_range(2) with flags 0. */
	ssize_t (*copy_file_range)(int in, off_t *in_off, int out, off_t *out_off, size_t len);
	int (*fsync)(int fd);
	int (*fdatasync)(int fd);
	int (*fstat)(int fd, struct stat *st);
	int (*stat)(const char *path, struct stat *st);
	int (*fchmod)(int fd, mode_t mode);
	int (*fchown)(int fd, uid_t uid, gid_t gid);
	int (*flock)(int fd, int op);
	int (*rename)(const char *from, const char *to);
	int (*unlink)(const char *path);
	int (*access)(const char *path, int mode);
	int (*fstatvfs)(int fd, struct statvfs *st);
	int (*ftruncate)(int fd, off_t len);
	/* sync_file_range(2): starts writeback, promises nothing. */
	int (*sync_file_range)(int fd, off_t off, off_t len, unsigned flags);
	/* posix_fadvise(2), but -1 with errno: advice, promises nothing. */
	int (*fadvise)(int fd, off_t off, off_t len, int advice);
	/* pthread_create(3), default attributes: 0 or an error number.  NULL
	 * in a table whose calls must all come from one thread; the store
	 * then does on the caller's what it would hand another. */
	int (*start_thread)(pthread_t *t, void *(*run)(void *), void *arg);
};

/* The real calls. */
extern const struct store_io store_libc;

/* The seam's helpers answer as the rest of fs/ does: 0, or an errno
 * (left in errno as well).  The table's own calls above keep the
 * system's "-1 and errno", here only.
 *
 * Whole-buffer transfers that retry short ones and EINTR: 0, or an errno
 * (EIO when the file ends first). */
int store_pread_full(const struct store_io *io, int fd, void *buf, size_t len, uint64_t off);
int store_pwrite_full(const struct store_io *io, int fd, const void *buf, size_t len,
		      uint64_t off);

/* Copies len bytes at `in` of file `from` to `out` of `to`: in the kernel
 * when it can (no trip through our memory), else through buf (cap bytes).
 * 0, or an errno. */
int store_copy_span(const struct store_io *io, int from, int to, uint64_t in, uint64_t out,
		    uint64_t len, uint8_t *buf, size_t cap);

/* fsyncs the directory holding `path`, making a create, rename or unlink
 * in it durable: 0, or an errno. */
int store_sync_parent(const struct store_io *io, const char *path);

#endif
