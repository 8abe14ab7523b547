/* SPDX-License-Identifier: MIT */
/* faultio.so: an LD_PRELOAD shim that fails one I/O call of the driver,
 * the MHFU_FAIL_AT-th among pwrite, copy_file_range, fsync, fdatasync and
 * rename (counted from 1), with EIO; it creates the file MHFU_FAULT_MARK when it fires.
 * With MHFU_COUNT_TO it writes the number of calls made to that file when
 * the process exits, so a test can aim at every part of a commit.
 * Reads (pread) fail with EIO while the file MHFU_FAIL_READS_WHILE
 * exists: a transient fault a test switches on and off.  Writes (pwrite)
 * of MHFU_STALL_MIN bytes or more wait while the file MHFU_STALL_WHILE
 * exists (all but the first MHFU_STALL_SKIP of them): a commit held in
 * the middle, for a test to look at or to kill. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static _Atomic long calls;

static int fault_now(void)
{
	const char *at = getenv("MHFU_FAIL_AT");
	if (!at || atomic_fetch_add(&calls, 1) + 1 != atol(at))
		return 0;
	const char *mark = getenv("MHFU_FAULT_MARK");
	if (mark) {
		int (*real_open)(const char *, int, ...) = dlsym(RTLD_NEXT, "open");
		int fd = real_open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	errno = EIO;
	return 1;
}

__attribute__((destructor)) static void report_count(void)
{
	const char *to = getenv("MHFU_COUNT_TO");
	if (!to)
		return;
	int (*real_open)(const char *, int, ...) = dlsym(RTLD_NEXT, "open");
	int fd = real_open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char buf[32];
	int n = 0;
	long v = atomic_load(&calls);
	char digits[24];
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (int i = 0; i < n; i++)
		buf[i] = digits[n - 1 - i];
	buf[n] = '\n';
	ssize_t (*real_write)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
	if (real_write(fd, buf, (size_t)n + 1) < 0)
		n = 0;
	close(fd);
}

/* Waits while MHFU_STALL_WHILE exists, for a write of n bytes. */
static void stall(size_t n)
{
	static _Atomic long seen;
	const char *path = getenv("MHFU_STALL_WHILE"), *min = getenv("MHFU_STALL_MIN");
	const char *skip = getenv("MHFU_STALL_SKIP");
	if (!path || n < (size_t)(min ? atol(min) : 0) ||
	    atomic_fetch_add(&seen, 1) < (skip ? atol(skip) : 0))
		return;
	const struct timespec tick = {0, 10 * 1000 * 1000};
	while (access(path, F_OK) == 0)
		nanosleep(&tick, NULL);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
	stall(n);
	return fault_now() ? -1 : real(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return fault_now() ? -1 : real(fd);
}

int fdatasync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	return fault_now() ? -1 : real(fd);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	return fault_now() ? -1 : real(from, to);
}

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n,
			unsigned flags)
{
	static ssize_t (*real)(int, off_t *, int, off_t *, size_t, unsigned);
	if (!real)
		real = (ssize_t (*)(int, off_t *, int, off_t *, size_t, unsigned))dlsym(
			RTLD_NEXT, "copy_file_range");
	return fault_now() ? -1 : real(in, in_off, out, out_off, n, flags);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	const char *switch_file = getenv("MHFU_FAIL_READS_WHILE");
	if (switch_file && access(switch_file, F_OK) == 0) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return pread64(fd, buf, n, off);
}
