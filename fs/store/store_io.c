/* SPDX-License-Identifier: MIT */
/* The seam (store_io.h): the C library's table, and what the store and
 * the journal build on it. */
#include "store_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* open(2) is variadic, copy_file_range(2) takes flags and posix_fadvise(2)
 * returns its error: the table's shapes, calling them. */
static int libc_open(const char *path, int flags, mode_t mode)
{
	return open(path, flags, mode);
}

static ssize_t libc_copy_file_range(int in, off_t *in_off, int out, off_t *out_off,
				    size_t len)
{
	return copy_file_range(in, in_off, out, out_off, len, 0);
}

static int libc_fadvise(int fd, off_t off, off_t len, int advice)
{
	int err = posix_fadvise(fd, off, len, advice);
	if (err)
		errno = err;
	return err ? -1 : 0;
}

static int libc_start_thread(pthread_t *t, void *(*run)(void *), void *arg)
{
	return pthread_create(t, NULL, run, arg);
}

const struct store_io store_libc = {
	.open = libc_open,
	.close = close,
	.pread = pread,
	.pwrite = pwrite,
	.copy_file_range = libc_copy_file_range,
	.fsync = fsync,
	.fdatasync = fdatasync,
	.fstat = fstat,
	.stat = stat,
	.fchmod = fchmod,
	.fchown = fchown,
	.flock = flock,
	.rename = rename,
	.unlink = unlink,
	.access = access,
	.fstatvfs = fstatvfs,
	.ftruncate = ftruncate,
	.sync_file_range = sync_file_range,
	.fadvise = libc_fadvise,
	.start_thread = libc_start_thread,
};

/* Bytes per read or write call: a transfer of tens of MiB in one call
 * runs several times slower here than the same in calls of 1 MiB (a
 * 49 MiB write into new blocks of a file: 140 ms against 15). */
#define TRANSFER_MAX (1u << 20)

/* Reads or writes all of len bytes at off, through short transfers and
 * interruptions; 0, or an errno (EIO for a file that ends). */
static int transfer_full(const struct store_io *io, int fd, uint8_t *read_to,
			 const uint8_t *write_from, size_t len, uint64_t off)
{
	while (len) {
		size_t want = len < TRANSFER_MAX ? len : TRANSFER_MAX;
		ssize_t n = read_to ? io->pread(fd, read_to, want, (off_t)off)
				    : io->pwrite(fd, write_from, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || !errno)
				errno = EIO;
			return errno;
		}
		if (read_to)
			read_to += n;
		else
			write_from += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int store_pread_full(const struct store_io *io, int fd, void *buf, size_t len, uint64_t off)
{
	return transfer_full(io, fd, buf, NULL, len, off);
}

int store_pwrite_full(const struct store_io *io, int fd, const void *buf, size_t len,
		      uint64_t off)
{
	return transfer_full(io, fd, NULL, buf, len, off);
}

int store_sync_parent(const struct store_io *io, const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	int fd = io->open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	int err = fd < 0 || io->fsync(fd) ? (errno ? errno : EIO) : 0;
	if (fd >= 0)
		io->close(fd);
	errno = err;
	return err;
}

int store_copy_span(const struct store_io *io, int from, int to, uint64_t in, uint64_t out,
		     uint64_t len, uint8_t *buf, size_t cap)
{
	bool in_kernel = true;
	while (len) {
		if (in_kernel) {
			off_t i = (off_t)in, o = (off_t)out;
			ssize_t n = io->copy_file_range(from, &i, to, &o, len);
			if (n > 0) {
				in += (uint64_t)n;
				out += (uint64_t)n;
				len -= (uint64_t)n;
				continue;
			}
			if (n < 0 && errno != EXDEV && errno != ENOSYS &&
			    errno != EOPNOTSUPP && errno != EINVAL)
				return errno;
			in_kernel = false;
		}
		size_t n = len < cap ? (size_t)len : cap;
		int err = store_pread_full(io, from, buf, n, in);
		if (err || (err = store_pwrite_full(io, to, buf, n, out)))
			return err;
		in += n;
		out += n;
		len -= n;
	}
	return 0;
}

