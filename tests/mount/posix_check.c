/* SPDX-License-Identifier: MIT */
/* posix_check [--local] DIR: a table of POSIX conformance cases run inside
 * DIR, a read-write mount of the sample archive (or, with --local, a plain
 * directory where stand-ins of the views are created first: every case
 * must pass there, which checks the cases against a local disk).
 *
 * Each case makes real system calls and compares their results and errnos
 * with what POSIX (and Linux's man pages, where POSIX leaves a choice)
 * say; a local disk gives the same.  Scratch files are named "pc-*".
 * Prints "ok - NAME" or "not ok - NAME" with "    # why" lines per case and
 * a final "N passed, N failed"; exits 1 on any failure.  No case is
 * expected to fail. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "exercise.h"
#include "rng.h"

/* Times set by the cases: far in the past, with nanoseconds. */
#define PAST_SEC 1000000000
#define PAST_NSEC 250000000

/* --- what each case made, undone after it ------------------------------ */

static const char *made[16];
static unsigned nmade;
static int open_fds[16];
static unsigned nopen;

/* Names every system call that returned ENOSYS to this program. */
static char nosys[2048];
/* Why the running case failed: printed after its verdict. */
static char why[4096];

static const char *made_name(const char *name)
{
	if (nmade < sizeof made / sizeof *made)
		made[nmade++] = name;
	return name;
}

static int kept(int fd)
{
	if (fd >= 0 && nopen < sizeof open_fds / sizeof *open_fds)
		open_fds[nopen++] = fd;
	return fd;
}

/* Closes a kept fd: close's result, so a commit's refusal shows. */
static int close_kept(int fd)
{
	for (unsigned i = 0; i < nopen; i++)
		if (open_fds[i] == fd)
			open_fds[i] = open_fds[--nopen];
	return close(fd);
}

static void tidy(void)
{
	while (nopen)
		close(open_fds[--nopen]);
	while (nmade) {
		const char *name = made[--nmade];
		if (unlink(name) && (errno == EISDIR || errno == EPERM))
			rmdir(name);
	}
}

/* --- verdicts ----------------------------------------------------------- */

static bool fail(const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;
	va_start(ap, fmt);
	snprintf(why + n, sizeof why - n, "    # ");
	n = strlen(why);
	vsnprintf(why + n, sizeof why - n, fmt, ap);
	n = strlen(why);
	snprintf(why + n, sizeof why - n, "\n");
	va_end(ap);
	return false;
}

/* Records an ENOSYS from the call named `what`; passes rc through. */
static long seen(long rc, const char *what)
{
	if (rc < 0 && errno == ENOSYS) {
		size_t n = strlen(nosys);
		snprintf(nosys + n, sizeof nosys - n, "%s%s", n ? ", " : "", what);
		errno = ENOSYS;
	}
	return rc;
}

/* The call succeeded. */
static bool ok_call(long rc, const char *what)
{
	if (seen(rc, what) >= 0)
		return true;
	return fail("%s: %s", what, strerror(errno));
}

/* The call failed with errno `want`. */
static bool err_call(long rc, int want, const char *what)
{
	int got = errno;
	seen(rc, what);
	if (rc >= 0)
		return fail("%s succeeded, want %s", what, strerror(want));
	if (got != want)
		return fail("%s: %s, want %s", what, strerror(got), strerror(want));
	return true;
}

static bool same_bytes(const char *what, const char *got, size_t got_len,
		       const char *want, size_t want_len)
{
	if (!got)
		return fail("%s: cannot read: %s", what, strerror(errno));
	if (got_len != want_len)
		return fail("%s: %zu bytes, want %zu", what, got_len, want_len);
	for (size_t i = 0; i < want_len; i++)
		if (got[i] != want[i])
			return fail("%s: byte %zu is 0x%02x, want 0x%02x", what, i,
				    (unsigned char)got[i], (unsigned char)want[i]);
	return true;
}

/* The file at path holds exactly want. */
static bool holds(const char *path, const char *want, size_t want_len)
{
	size_t len = 0;
	char *got = read_path(path, &len);
	seen(got ? 0 : -1, "open or read");
	bool ok = same_bytes(path, got, len, want, want_len);
	free(got);
	return ok;
}

/* The open file fd holds exactly want (read through the fd). */
static bool fd_holds(int fd, const char *what, const char *want, size_t want_len)
{
	size_t len = 0;
	char *got = read_fd(fd, &len);
	seen(got ? 0 : -1, "pread");
	bool ok = same_bytes(what, got, len, want, want_len);
	free(got);
	return ok;
}

static bool size_is(const char *what, const struct stat *st, off_t want)
{
	if (st->st_size != want)
		return fail("%s: size %lld, want %lld", what, (long long)st->st_size,
			    (long long)want);
	return true;
}

/* fstat and stat both show `want` bytes. */
static bool sizes_are(int fd, const char *path, off_t want)
{
	struct stat st;
	return ok_call(fstat(fd, &st), "fstat") && size_is("fstat", &st, want) &&
	       ok_call(stat(path, &st), "stat") && size_is("stat", &st, want);
}

static bool gone(const char *path)
{
	struct stat st;
	return err_call(stat(path, &st), ENOENT, path);
}

/* How many times `name` is listed in dir (with its inode in *ino). */
static int listed(const char *dir, const char *name, ino_t *ino)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		if (!strcmp(e->d_name, name)) {
			n++;
			if (ino)
				*ino = e->d_ino;
		}
	closedir(d);
	return n;
}

static bool listed_once(const char *dir, const char *name)
{
	int n = listed(dir, name, NULL);
	if (n != 1)
		return fail("%s listed %d times in %s", name, n, dir);
	return true;
}

/* --- data -------------------------------------------------------------- */

/* Zeroed memory, or the end of the run. */
static char *zeroed(size_t len)
{
	char *p = calloc(1, len + 1);
	if (!p) {
		perror("posix_check");
		exit(2);
	}
	return p;
}

/* len pseudo-random bytes (and a NUL), the same for the same seed. */
static char *pattern(size_t len, uint64_t seed)
{
	struct rng r;
	char *p = zeroed(len);
	rng_init(&r, seed, 1);
	rng_bytes(&r, (uint8_t *)p, len);
	return p;
}

/* A new scratch file holding data. */
static bool new_file(const char *name, const char *data, size_t len)
{
	return ok_call(write_path(made_name(name), data, len), name);
}

/* --- cases ------------------------------------------------------------- */

static bool create_write_read(void)
{
	const char *name = made_name("pc-create.tmp");
	char *data = pattern(10000, 1);
	struct stat st;
	int fd = kept(open(name, O_CREAT | O_EXCL | O_RDWR, 0644));
	bool ok = ok_call(fd, "open(O_CREAT|O_EXCL)") &&
		  ok_call(write_all(fd, data, 10000), "write") &&
		  fd_holds(fd, "through the fd", data, 10000) &&
		  ok_call(close_kept(fd), "close") && holds(name, data, 10000) &&
		  ok_call(stat(name, &st), "stat") && size_is(name, &st, 10000) &&
		  err_call(kept(open(name, O_CREAT | O_EXCL | O_RDWR, 0644)), EEXIST,
			   "open(O_CREAT|O_EXCL) of an existing file") &&
		  ok_call(unlink(name), "unlink") && gone(name);
	free(data);
	return ok;
}

static bool rename_over_view(void)
{
	const char *tmp = made_name(VIEW_DIR "/pc-slot024.tmp");
	size_t len, at;
	char *text = read_path(VIEW_TEXT, &len);
	bool ok = ok_call(text ? 0 : -1, "read " VIEW_TEXT);
	if (ok && !rot_values(text, len, &at, 1))
		ok = fail("no rotation key in %s", VIEW_TEXT);
	if (ok) {
		/* A value a few units away, same width: the text stays as
		 * the mount prints it. */
		int v = atoi(text + at);
		set_value(text, at, v > 0 ? v - 7 : v + 7);
		ok = ok_call(write_path(tmp, text, len), "write the temporary") &&
		     ok_call(rename(tmp, VIEW_TEXT), "rename over the view") &&
		     holds(VIEW_TEXT, text, len) && gone(tmp);
	}
	free(text);
	return ok;
}

static bool rename_over_scratch(void)
{
	const char *a = "pc-rename-a.tmp", *b = "pc-rename-b.tmp";
	char *da = pattern(3000, 2), *db = pattern(500, 3);
	bool ok = new_file(a, da, 3000) && new_file(b, db, 500) &&
		  ok_call(rename(a, b), "rename") && holds(b, da, 3000) && gone(a) &&
		  listed_once(".", b) && (listed(".", a, NULL) == 0 || fail("%s still listed", a));
	free(da);
	free(db);
	return ok;
}

static bool unlink_open_scratch(void)
{
	const char *name = "pc-unlinked.tmp";
	char *data = pattern(5000, 4);
	struct stat st = {0};
	int first = -1, second = -1;
	bool ok = new_file(name, data, 5000) &&
		  ok_call(first = kept(open(name, O_RDWR)), "open") &&
		  ok_call(second = kept(open(name, O_RDONLY)), "open again") &&
		  ok_call(unlink(name), "unlink") && gone(name) &&
		  (listed(".", name, NULL) == 0 || fail("still listed")) &&
		  fd_holds(first, "through the first fd", data, 5000) &&
		  ok_call(fstat(first, &st), "fstat") && size_is("fstat", &st, 5000) &&
		  (st.st_nlink == 0 || fail("nlink %lu, want 0", (unsigned long)st.st_nlink)) &&
		  ok_call(pwrite_all(first, "tail", 4, 5000), "pwrite after unlink") &&
		  ok_call(close_kept(first), "close the first fd");
	char *want = zeroed(5004);
	memcpy(want, data, 5000);
	memcpy(want + 5000, "tail", 4);
	ok = ok && fd_holds(second, "through the second fd after the first's close", want, 5004) &&
	     ok_call(close_kept(second), "close the last fd");
	free(data);
	free(want);
	return ok;
}

static bool rename_over_open_scratch(void)
{
	const char *a = "pc-new.tmp", *b = "pc-old.tmp";
	char *da = pattern(2000, 5), *db = pattern(3000, 6);
	int fd = -1;
	bool ok = new_file(a, da, 2000) && new_file(b, db, 3000) &&
		  ok_call(fd = kept(open(b, O_RDONLY)), "open") &&
		  ok_call(rename(a, b), "rename over it") &&
		  fd_holds(fd, "the old file through its fd", db, 3000) &&
		  holds(b, da, 2000) && ok_call(close_kept(fd), "close");
	free(da);
	free(db);
	return ok;
}

/* O_APPEND writes land at the end, also after an fstat between them. */
static bool append_after_fstat(const char *path, const char *one, const char *two,
			       bool reread)
{
	size_t len, n1 = strlen(one), n2 = strlen(two);
	char *orig = read_path(path, &len);
	struct stat st;
	if (!ok_call(orig ? 0 : -1, path))
		return false;
	char *want = zeroed(len + n1 + n2);
	memcpy(want, orig, len);
	memcpy(want + len, one, n1);
	memcpy(want + len + n1, two, n2);
	int fd = kept(open(path, O_RDWR | O_APPEND));
	bool ok = ok_call(fd, "open(O_APPEND)") && ok_call(write_all(fd, one, n1), "write") &&
		  ok_call(fstat(fd, &st), "fstat") &&
		  ok_call(write_all(fd, two, n2), "write after the fstat") &&
		  fd_holds(fd, "through the fd", want, len + n1 + n2) &&
		  ok_call(close_kept(fd), "close") &&
		  (!reread || holds(path, want, len + n1 + n2));
	free(orig);
	free(want);
	return ok;
}

static bool append_scratch(void)
{
	return new_file("pc-append.tmp", "start\n", 6) &&
	       append_after_fstat("pc-append.tmp", "one\n", "two\n", true);
}

static bool append_raw(void)
{
	return append_after_fstat(VIEW_RAW, "one", "two", true);
}

/* A comment: the clip stays valid (and unchanged). */
static bool append_text(void)
{
	return append_after_fstat(VIEW_TEXT, "# one\n", "# two\n", false);
}

/* Writes past the end through an fd: fstat and stat show the new size at
 * once, the fd reads the hole as zeros, and the bytes are there after
 * close. */
static bool size_while_writing(const char *path, const char *add, bool reread)
{
	size_t len, n = strlen(add);
	char *orig = read_path(path, &len);
	if (!ok_call(orig ? 0 : -1, path))
		return false;
	size_t end = len + 50 + n;
	char *want = zeroed(end);
	memcpy(want, orig, len);
	memcpy(want + len + 50, add, n);
	int fd = kept(open(path, O_RDWR));
	bool ok = ok_call(fd, "open") && sizes_are(fd, path, (off_t)len);
	if (ok && reread) {
		ok = ok_call(pwrite_all(fd, add, n, (off_t)(len + 50)), "pwrite past the end") &&
		     sizes_are(fd, path, (off_t)end) && fd_holds(fd, "through the fd", want, end) &&
		     ok_call(close_kept(fd), "close") && holds(path, want, end);
	} else if (ok) {
		/* A text view: a comment at the end keeps it valid. */
		ok = ok_call(pwrite_all(fd, add, n, (off_t)len), "pwrite at the end") &&
		     sizes_are(fd, path, (off_t)(len + n)) &&
		     ok_call(close_kept(fd), "close");
	}
	free(orig);
	free(want);
	return ok;
}

static bool size_scratch(void)
{
	char *data = pattern(3000, 7);
	bool ok = new_file("pc-size.tmp", data, 3000) &&
		  size_while_writing("pc-size.tmp", "added", true);
	free(data);
	return ok;
}

static bool size_raw(void)
{
	return size_while_writing(VIEW_RAW, "added", true);
}

static bool size_text(void)
{
	return size_while_writing(VIEW_TEXT, "# a note\n", false);
}

/* Shrinks to 100 bytes and grows to 3000 with ftruncate, then with
 * truncate by path; both show at once, and the grown part reads zeros. */
static bool truncates(const char *path)
{
	size_t len;
	char *orig = read_path(path, &len);
	if (!ok_call(orig ? 0 : -1, path))
		return false;
	if (len < 100) {
		free(orig);
		return fail("%s: only %zu bytes", path, len);
	}
	char *want = zeroed(3000);
	memcpy(want, orig, 100);
	int fd = kept(open(path, O_RDWR));
	bool ok = ok_call(fd, "open") && ok_call(ftruncate(fd, 100), "ftruncate to 100") &&
		  sizes_are(fd, path, 100) && fd_holds(fd, "after shrinking", want, 100) &&
		  ok_call(ftruncate(fd, 3000), "ftruncate to 3000") &&
		  sizes_are(fd, path, 3000) && fd_holds(fd, "after growing", want, 3000) &&
		  ok_call(close_kept(fd), "close") && holds(path, want, 3000) &&
		  ok_call(truncate(path, 60), "truncate to 60") && holds(path, want, 60);
	memset(want + 60, 0, 40);
	ok = ok && ok_call(truncate(path, 2000), "truncate to 2000") && holds(path, want, 2000);
	free(orig);
	free(want);
	return ok;
}

static bool truncate_scratch(void)
{
	char *data = pattern(5000, 8);
	bool ok = new_file("pc-truncate.tmp", data, 5000) && truncates("pc-truncate.tmp");
	free(data);
	return ok;
}

static bool truncate_raw(void)
{
	return truncates(VIEW_RAW);
}

/* --- names -------------------------------------------------------------- */

/* A name of len bytes: "pc-", then `fill`. */
static char *long_name(size_t len, char fill)
{
	char *name = zeroed(len);
	memset(name, fill, len);
	memcpy(name, "pc-", 3);
	return name;
}

static bool name_255(void)
{
	char *a = long_name(255, 'a'), *b = long_name(255, 'b');
	struct stat st;
	bool ok = new_file(a, "x", 1) && ok_call(stat(a, &st), "stat") &&
		  listed_once(".", a) && ok_call(rename(a, made_name(b)), "rename") &&
		  holds(b, "x", 1) && ok_call(unlink(b), "unlink") && gone(b);
	tidy();
	free(a);
	free(b);
	return ok;
}

static bool name_256_create(void)
{
	char *name = long_name(256, 'c');
	bool ok = err_call(kept(open(made_name(name), O_CREAT | O_WRONLY, 0644)), ENAMETOOLONG,
			   "open(O_CREAT) of a 256-byte name");
	tidy();
	free(name);
	return ok;
}

static bool name_256_stat(void)
{
	char *name = long_name(256, 'd');
	struct stat st;
	bool ok = err_call(stat(name, &st), ENAMETOOLONG, "stat of a 256-byte name");
	free(name);
	return ok;
}

static bool name_256_rename(void)
{
	char *name = long_name(256, 'e');
	bool ok = new_file("pc-short.tmp", "x", 1) &&
		  err_call(rename("pc-short.tmp", made_name(name)), ENAMETOOLONG,
			   "rename to a 256-byte name") &&
		  holds("pc-short.tmp", "x", 1);
	tidy();
	free(name);
	return ok;
}

/* --- what a mount may not support: done, or EPERM as POSIX names ------- */

static bool done_or_eperm(long rc, const char *what, bool *done)
{
	*done = rc >= 0;
	if (rc < 0 && errno != EPERM) {
		seen(rc, what);
		return fail("%s: %s, want success or EPERM", what, strerror(errno));
	}
	return true;
}

/* --- scratch folders, hard links and fifos: as on a disk ---------------- */

static bool mkdir_case(void)
{
	struct stat st;
	return ok_call(mkdir(made_name("pc-dir"), 0755), "mkdir") &&
	       ok_call(stat("pc-dir", &st), "stat") &&
	       (S_ISDIR(st.st_mode) || fail("not a directory")) &&
	       new_file("pc-dir/pc-in.tmp", "in", 2) &&
	       (rmdir("pc-dir") < 0 && errno == ENOTEMPTY ? true
		: fail("rmdir of a folder with a file in it: want ENOTEMPTY")) &&
	       ok_call(unlink("pc-dir/pc-in.tmp"), "unlink") &&
	       ok_call(rmdir("pc-dir"), "rmdir") && gone("pc-dir");
}

static bool link_case(void)
{
	struct stat a, b;
	return new_file("pc-link-a.tmp", "linked", 6) &&
	       ok_call(link("pc-link-a.tmp", made_name("pc-link-b.tmp")), "link") &&
	       ok_call(stat("pc-link-a.tmp", &a), "stat") &&
	       ok_call(stat("pc-link-b.tmp", &b), "stat the link") &&
	       (a.st_ino == b.st_ino || fail("two inodes")) &&
	       (b.st_nlink == 2 || fail("nlink %lu, want 2", (unsigned long)b.st_nlink)) &&
	       holds("pc-link-b.tmp", "linked", 6);
}

static bool fifo_case(void)
{
	struct stat st;
	return ok_call(mknod(made_name("pc-fifo"), S_IFIFO | 0644, 0), "mknod(S_IFIFO)") &&
	       ok_call(stat("pc-fifo", &st), "stat") &&
	       (S_ISFIFO(st.st_mode) || fail("not a FIFO"));
}

/* --- attributes of views ---------------------------------------------- */

static bool chmod_view(const char *path)
{
	struct stat st;
	bool done;
	if (!ok_call(stat(path, &st), "stat"))
		return false;
	mode_t old = st.st_mode & 07777, mode = old == 0640 ? 0600 : 0640;
	bool ok = done_or_eperm(chmod(path, mode), "chmod", &done);
	if (ok && done) {
		ok = ok_call(stat(path, &st), "stat") &&
		     ((st.st_mode & 07777) == mode ||
		      fail("%s: chmod %o succeeded, mode is %o", path, mode, st.st_mode & 07777));
		ok = ok_call(chmod(path, old), "chmod back") && ok;
	}
	return ok;
}

static bool chmod_views(void)
{
	return chmod_view(VIEW_TEXT) && chmod_view(VIEW_RAW);
}

static bool chown_view(const char *path)
{
	struct stat st;
	bool done;
	if (!ok_call(stat(path, &st), "stat"))
		return false;
	uid_t uid = st.st_uid;
	gid_t gid = st.st_gid;
	bool ok = done_or_eperm(chown(path, uid + 1, (gid_t)-1), "chown (owner)", &done);
	if (ok && done) {
		ok = ok_call(stat(path, &st), "stat") &&
		     (st.st_uid == uid + 1 ||
		      fail("%s: chown to uid %u succeeded, owner is %u", path, uid + 1, st.st_uid));
		ok = ok_call(chown(path, uid, (gid_t)-1), "chown back") && ok;
	}
	ok = ok && done_or_eperm(chown(path, (uid_t)-1, gid + 1), "chown (group)", &done);
	if (ok && done) {
		ok = ok_call(stat(path, &st), "stat") &&
		     (st.st_gid == gid + 1 ||
		      fail("%s: chown to gid %u succeeded, group is %u", path, gid + 1, st.st_gid));
		ok = ok_call(chown(path, (uid_t)-1, gid), "chown back") && ok;
	}
	return ok;
}

static bool chown_views(void)
{
	return chown_view(VIEW_TEXT) && chown_view(VIEW_RAW);
}

static bool mtime_is(const char *path, const struct stat *st, time_t sec, long nsec)
{
	if (st->st_mtim.tv_sec != sec || st->st_mtim.tv_nsec != nsec)
		return fail("%s: mtime %lld.%09ld, want %lld.%09ld", path,
			    (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			    (long long)sec, nsec);
	return true;
}

static bool utimens_view(const char *path)
{
	struct timespec t[2] = {{PAST_SEC, PAST_NSEC}, {PAST_SEC + 1, PAST_NSEC}};
	struct stat st;
	bool done;
	bool ok = done_or_eperm(utimensat(AT_FDCWD, path, t, 0), "utimensat", &done);
	if (ok && done)
		ok = ok_call(stat(path, &st), "stat") && mtime_is(path, &st, PAST_SEC + 1, PAST_NSEC);
	return ok;
}

static bool utimens_views(void)
{
	return utimens_view(VIEW_TEXT) && utimens_view(VIEW_RAW);
}

static bool mtime_after(const char *what, const struct stat *st)
{
	if (st->st_mtim.tv_sec <= PAST_SEC + 1)
		return fail("%s: mtime %lld.%09ld did not advance", what,
			    (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	return true;
}

static bool scratch_times(void)
{
	const char *name = "pc-times.tmp";
	struct timespec t[2] = {{PAST_SEC, PAST_NSEC}, {PAST_SEC + 1, PAST_NSEC}};
	struct stat st;
	int fd = -1;
	bool ok = new_file(name, "x", 1) && ok_call(utimensat(AT_FDCWD, name, t, 0), "utimensat") &&
		  ok_call(stat(name, &st), "stat") && mtime_is(name, &st, PAST_SEC + 1, PAST_NSEC) &&
		  ok_call(fd = kept(open(name, O_WRONLY)), "open") &&
		  ok_call(write_all(fd, "y", 1), "write") && ok_call(fstat(fd, &st), "fstat") &&
		  mtime_after("after a write (fstat)", &st) &&
		  ok_call(close_kept(fd), "close") && ok_call(stat(name, &st), "stat") &&
		  mtime_after("after a write (stat)", &st) &&
		  ok_call(utimensat(AT_FDCWD, name, t, 0), "utimensat") &&
		  ok_call(truncate(name, 0), "truncate") && ok_call(stat(name, &st), "stat") &&
		  mtime_after("after a truncate", &st);
	return ok;
}

/* Whatever utimens did to the view, a commit makes its mtime now's. */
static bool view_commit_time(void)
{
	struct timespec t[2] = {{PAST_SEC, PAST_NSEC}, {PAST_SEC + 1, PAST_NSEC}};
	struct stat st;
	seen(utimensat(AT_FDCWD, VIEW_RAW, t, 0), "utimensat");
	int fd = kept(open(VIEW_RAW, O_RDWR));
	return ok_call(fd, "open") && ok_call(pwrite_all(fd, "mtime", 5, 10), "pwrite") &&
	       ok_call(close_kept(fd), "close") && ok_call(stat(VIEW_RAW, &st), "stat") &&
	       mtime_after("after a commit", &st);
}

/* --- folders ------------------------------------------------------------ */

static bool rmdir_view(void)
{
	struct stat st;
	long rc = seen(rmdir(VIEW_DIR), "rmdir");
	int got = errno;
	bool ok = rc < 0 || fail("rmdir of a view folder succeeded");
	if (ok && got != ENOTEMPTY && got != EEXIST && got != EPERM)
		ok = fail("rmdir: %s, want ENOTEMPTY, EEXIST or EPERM", strerror(got));
	return ok && ok_call(stat(VIEW_TEXT, &st), "stat its file") &&
	       err_call(rmdir(VIEW_TEXT), ENOTDIR, "rmdir of a view file");
}

static bool stat_view_dir(void)
{
	struct stat dir, dot;
	const char *base = strrchr(VIEW_TEXT, '/') + 1;
	return ok_call(stat(VIEW_DIR, &dir), "stat") &&
	       (S_ISDIR(dir.st_mode) || fail("not a directory")) &&
	       (dir.st_nlink >= 2 || fail("nlink %lu", (unsigned long)dir.st_nlink)) &&
	       ok_call(access(VIEW_DIR, R_OK | X_OK), "access") &&
	       ok_call(stat(VIEW_DIR "/.", &dot), "stat of its .") &&
	       (dot.st_ino == dir.st_ino || fail(". is another inode")) &&
	       listed_once(VIEW_DIR, ".") && listed_once(VIEW_DIR, "..") &&
	       listed_once(VIEW_DIR, base) &&
	       err_call(open(VIEW_DIR, O_WRONLY), EISDIR, "open(O_WRONLY) of a folder");
}

static bool listed_scratch(const char *dir)
{
	char path[256];
	struct stat st;
	ino_t ino = 0;
	snprintf(path, sizeof path, "%s/pc-listed.tmp", dir);
	bool ok = new_file(path, "x", 1) && listed_once(dir, "pc-listed.tmp") &&
		  ok_call(stat(path, &st), "stat");
	if (ok && listed(dir, "pc-listed.tmp", &ino) == 1 && ino != st.st_ino)
		ok = fail("%s: listed with inode %llu, stat gives %llu", path,
			  (unsigned long long)ino, (unsigned long long)st.st_ino);
	ok = ok && ok_call(unlink(path), "unlink") &&
	     (listed(dir, "pc-listed.tmp", NULL) == 0 || fail("%s listed after unlink", path));
	tidy(); /* before path goes */
	return ok;
}

static bool readdir_scratch(void)
{
	return listed_scratch(".") && listed_scratch(VIEW_DIR);
}

/* Every kind of call a user can make, on a scratch file, a view and a
 * view folder: their results do not matter here, only that none is
 * ENOSYS (the kernel's "no such system call", which tools take for a
 * broken system).  Then whether any case met one. */
static bool no_enosys(void)
{
	const char *s = "pc-probe.tmp", *s2 = "pc-probe2.tmp";
	struct stat st;
	struct statvfs sv;
	char buf[256];
	int flags;
	new_file(s, "probe", 5);
	new_file(s2, "other", 5);
	int fd = kept(open(s, O_RDWR));
	int vfd = kept(open(VIEW_RAW, O_RDONLY));
	int dfd = kept(open(VIEW_DIR, O_RDONLY | O_DIRECTORY));
	const char *paths[] = {s, VIEW_RAW, VIEW_TEXT, VIEW_DIR, "."};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		const char *p = paths[i];
		seen(setxattr(p, "user.pc", "v", 1, 0), "setxattr");
		seen(getxattr(p, "user.pc", buf, sizeof buf), "getxattr");
		seen(listxattr(p, buf, sizeof buf), "listxattr");
		seen(removexattr(p, "user.pc"), "removexattr");
		seen(access(p, R_OK | W_OK), "access");
		seen(readlink(p, buf, sizeof buf), "readlink");
		seen(statvfs(p, &sv), "statvfs");
		seen(utimensat(AT_FDCWD, p, NULL, 0), "utimensat(now)");
		if (!stat(p, &st)) {
			seen(chmod(p, st.st_mode & 07777), "chmod");
			seen(chown(p, st.st_uid, st.st_gid), "chown");
		}
	}
	int fds[] = {fd, vfd, dfd};
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++) {
		int f = fds[i];
		seen(fsync(f), "fsync");
		seen(fdatasync(f), "fdatasync");
		seen(fstat(f, &st), "fstat");
		seen(fstatvfs(f, &sv), "fstatvfs");
		seen(flock(f, LOCK_EX | LOCK_NB), "flock");
		seen(flock(f, LOCK_UN), "flock(LOCK_UN)");
		seen(ioctl(f, FS_IOC_GETFLAGS, &flags), "ioctl(FS_IOC_GETFLAGS)");
		seen(lseek(f, 0, SEEK_DATA), "lseek(SEEK_DATA)");
		seen(lseek(f, 0, SEEK_HOLE), "lseek(SEEK_HOLE)");
	}
	struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	seen(fcntl(fd, F_SETLK, &lk), "fcntl(F_SETLK)");
	seen(fallocate(fd, 0, 0, 4096), "fallocate");
	seen(fallocate(fd, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, 0, 10), "fallocate(punch)");
	seen(ftruncate(fd, 5), "ftruncate");
	loff_t in = 0, out = 0;
	seen(copy_file_range(vfd, &in, fd, &out, 100, 0), "copy_file_range");
	seen(renameat2(AT_FDCWD, s, AT_FDCWD, s2, RENAME_NOREPLACE), "renameat2(NOREPLACE)");
	seen(renameat2(AT_FDCWD, s, AT_FDCWD, s2, RENAME_EXCHANGE), "renameat2(EXCHANGE)");
	int tmp = kept(open(".", O_TMPFILE | O_RDWR, 0644));
	seen(tmp, "open(O_TMPFILE)");
	seen(mkdir(made_name(VIEW_DIR "/pc-probe-dir"), 0755), "mkdir in a view folder");
	seen(rmdir(VIEW_DIR "/pc-probe-dir"), "rmdir");
	seen(rmdir("file_06185"), "rmdir of a view folder");
	seen(link(VIEW_RAW, made_name("pc-probe-link")), "link to a view");
	seen(link(VIEW_TEXT, made_name(VIEW_DIR "/pc-probe-link")), "link to a text view");
	seen(mknod(made_name("pc-probe-sock"), S_IFSOCK | 0644, 0), "mknod(S_IFSOCK)");
	seen(mknod(made_name("pc-probe-chr"), S_IFCHR | 0644, makedev(1, 3)), "mknod(S_IFCHR)");
	seen(mknod(made_name("pc-probe-reg"), S_IFREG | 0644, 0), "mknod(S_IFREG)");
	seen(symlink(VIEW_RAW, made_name("pc-probe-sym")), "symlink");
	seen(truncate(VIEW_DIR, 0), "truncate of a folder");
	seen(kept(open(made_name(VIEW_DIR "/pc-probe-excl"),
		       O_CREAT | O_EXCL | O_WRONLY | O_DIRECTORY, 0644)),
	     "open(O_CREAT|O_DIRECTORY)");
	tidy();
	unlink(s);
	unlink(s2);
	if (nosys[0])
		return fail("ENOSYS from: %s", nosys);
	return true;
}

static const struct test_case {
	const char *name;
	bool (*run)(void);
} CASES[] = {
	{"create, write and read back a scratch file", create_write_read},
	{"rename of a scratch file over a clip text commits it", rename_over_view},
	{"rename over an existing scratch file replaces it", rename_over_scratch},
	{"unlink of an open scratch file: readable until its last close", unlink_open_scratch},
	{"rename over an open scratch file: the old one stays readable through its fd",
	 rename_over_open_scratch},
	{"O_APPEND after an fstat appends: scratch file", append_scratch},
	{"O_APPEND after an fstat appends: raw entry", append_raw},
	{"O_APPEND after an fstat appends: clip text", append_text},
	{"stat and fstat of a file open for writing show its size: scratch file", size_scratch},
	{"stat and fstat of a file open for writing show its size: raw entry", size_raw},
	{"stat and fstat of a file open for writing show its size: clip text", size_text},
	{"ftruncate and truncate shrink and grow: scratch file", truncate_scratch},
	{"ftruncate and truncate shrink and grow: raw entry", truncate_raw},
	{"a 255-byte name is created, listed whole, renamed and removed", name_255},
	{"a 256-byte name: create gives ENAMETOOLONG", name_256_create},
	{"a 256-byte name: stat gives ENAMETOOLONG", name_256_stat},
	{"a 256-byte name: rename to it gives ENAMETOOLONG", name_256_rename},
	{"mkdir makes a folder, rmdir of it with a file in it gives ENOTEMPTY", mkdir_case},
	{"link (hard) makes a second name of one file", link_case},
	{"mknod of a FIFO works", fifo_case},
	{"chmod of views takes effect or gives EPERM", chmod_views},
	{"chown of views takes effect or gives EPERM", chown_views},
	{"utimens of views is kept", utimens_views},
	{"a scratch file's mtime advances on write and truncate", scratch_times},
	{"a raw entry's mtime advances when a write commits", view_commit_time},
	{"rmdir of a view folder is refused (ENOTEMPTY, EEXIST or EPERM)", rmdir_view},
	{"stat of a view folder: a directory, listed with . and ..", stat_view_dir},
	{"readdir lists a created scratch file (root and view folder)", readdir_scratch},
	{"no call returns ENOSYS", no_enosys},
};

int main(int argc, char **argv)
{
	bool local = argc == 3 && !strcmp(argv[1], "--local");
	if (argc != 2 + local) {
		fprintf(stderr, "usage: posix_check [--local] DIR\n");
		return 2;
	}
	if (chdir(argv[argc - 1]) || (local && make_standins())) {
		perror(argv[argc - 1]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	unsigned passed = 0, failed = 0;
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		why[0] = '\0';
		bool ok = CASES[i].run();
		tidy();
		printf("%s - %s\n%s", ok ? "ok" : "not ok", CASES[i].name, why);
		ok ? passed++ : failed++;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed != 0;
}
