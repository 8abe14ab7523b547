/* SPDX-License-Identifier: MIT */
/* mount.mhfu: mounts a Monster Hunter PSP DATA.BIN, or a single PAC, as
 * a directory tree.  See man/mount.mhfu.8. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "driver.h"
#include "loop.h"
#include "fusefs.h"
#include "fit.h"
#include "report.h"
#include "version.h"

/* Exit codes, documented in mount.mhfu(8). */
enum {
	EXIT_USAGE = 1,   /* bad command line, unusable mount point */
	EXIT_IO = 2,      /* the archive cannot be opened or read */
	EXIT_FORMAT = 3,  /* the archive is not a valid DATA.BIN or PAC */
	EXIT_MOUNT = 4,   /* FUSE could not mount or serve */
	EXIT_BUSY = 5,    /* another mount holds the archive */
};

#define DEFAULT_CACHE_MB 64
/* Seconds a lock held by another mount is waited for: a driver just
 * unmounted or killed lets go as it exits. */
#define DEFAULT_LOCK_WAIT 3
#define LOCK_WAIT_MAX 3600
/* The most commits -o history= may keep undoable. */
#define HISTORY_OPTION_MAX 1000000

/* Worker threads by default: two a processor (a commit's sync leaves
 * its core idle), at least 4, at most libfuse's own default of 10.  Each
 * request served beside others holds a request buffer of max_write
 * bytes (loop.h): more threads than that only make the daemon bigger. */
#define WORKERS_PER_CORE 2
#define WORKERS_MIN 4
#define WORKERS_MAX 10

static unsigned default_workers(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = (online > 0 ? (unsigned)online : 1) * WORKERS_PER_CORE;
	return n < WORKERS_MIN ? WORKERS_MIN : n > WORKERS_MAX ? WORKERS_MAX : n;
}

#define USAGE_LINE "usage: mount.mhfu ARCHIVE MOUNTPOINT [-fnrsvw] [-N NS] [-o OPTIONS]" \
	" (mount.mhfu --help lists the options)\n"

struct options {
	char *archive;       /* first non-option argument */
	char *mountpoint;    /* second */
	char *extra;         /* a third: refused */
	char *game;          /* -o game= */
	char *rules;         /* -o rules= */
	char *fit;           /* -o fit= */
	int read_only;       /* -o ro, -r; also passed on to the kernel */
	int backup;          /* -o backup */
	char *cache_mb;      /* -o cache_mb= */
	char *scratch_mb;    /* -o scratch_mb= */
	char *state;         /* -o state= */
	char *lock_wait;     /* -o lock_wait= */
	char *history;       /* -o history= */
	int no_permissions;  /* -o no_default_permissions */
	int foreground;      /* -o foreground */
	int single_thread;   /* -o single_thread */
	int max_threads;     /* -o max_threads= given (libfuse's; passed on) */
	/* mount(8)'s helper protocol (mount(8), EXTERNAL HELPERS) */
	int fake;            /* -f: check everything, mount nothing */
	int verbose;         /* -v: say what was mounted */
	char *namespace;     /* -N: the mount namespace to mount in */
	char *type;          /* -t: mhfu or fuse.mhfu */
};

enum { KEY_RO, KEY_MAX_THREADS };

/* The options mount(8) and fstab pass that concern mount(8) alone (when
 * and by whom to mount) are accepted and dropped, as mount.fuse3 drops
 * them; so are x-* (in take_argument). */
static const struct fuse_opt option_spec[] = {
	{"game=%s", offsetof(struct options, game), 0},
	{"rules=%s", offsetof(struct options, rules), 0},
	{"fit=%s", offsetof(struct options, fit), 0},
	{"backup", offsetof(struct options, backup), 1},
	{"cache_mb=%s", offsetof(struct options, cache_mb), 0},
	{"scratch_mb=%s", offsetof(struct options, scratch_mb), 0},
	{"state=%s", offsetof(struct options, state), 0},
	{"lock_wait=%s", offsetof(struct options, lock_wait), 0},
	{"history=%s", offsetof(struct options, history), 0},
	{"no_default_permissions", offsetof(struct options, no_permissions), 1},
	{"foreground", offsetof(struct options, foreground), 1},
	{"single_thread", offsetof(struct options, single_thread), 1},
	{"-f", offsetof(struct options, fake), 1},
	{"-v", offsetof(struct options, verbose), 1},
	{"-N %s", offsetof(struct options, namespace), 0},
	{"-t %s", offsetof(struct options, type), 0},
	FUSE_OPT_KEY("max_threads=", KEY_MAX_THREADS),
	FUSE_OPT_KEY("ro", KEY_RO),
	FUSE_OPT_KEY("-r", KEY_RO),
	FUSE_OPT_KEY("-w", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("-n", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("-s", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("defaults", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("auto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("noauto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nofail", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("_netdev", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("user", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("user=", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nouser", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("users", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("owner", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("group", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("comment=", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_END,
};

/* Keeps the two non-option arguments, the archive and the mount point,
 * for main (a third is refused); drops x-* options; passes the rest on
 * to libfuse.  Copies: fuse_opt frees its arguments after parsing. */
static int take_argument(void *data, const char *arg, int key,
			 struct fuse_args *outargs)
{
	struct options *o = data;
	if (key == FUSE_OPT_KEY_NONOPT) {
		char **slot = !o->archive ? &o->archive
			      : !o->mountpoint ? &o->mountpoint : &o->extra;
		if (!*slot && !(*slot = strdup(arg)))
			return -1;
		return 0;
	}
	if (key == KEY_RO) {
		o->read_only = 1;
		return fuse_opt_add_arg(outargs, "-oro") ? -1 : 0;
	}
	if (key == KEY_MAX_THREADS) {
		o->max_threads = 1;
		return 1;
	}
	if (key == FUSE_OPT_KEY_OPT && !strncmp(arg, "x-", 2))
		return 0;
	return 1;
}

/* The command line as fuse_opt reads it, with mount(8)'s switches given
 * together (-fv) split into one argument each. */
static int add_arguments(struct fuse_args *args, int argc, char *argv[])
{
	bool options_end = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		options_end = options_end || !strcmp(a, "--");
		if (i > 0 && !options_end && a[0] == '-' && a[1] && a[2] &&
		    strspn(a + 1, "fnrsvw") == strlen(a + 1)) {
			for (const char *c = a + 1; *c; c++)
				if (fuse_opt_add_arg(args, (char[]){'-', *c, '\0'}))
					return -1;
		} else if (fuse_opt_add_arg(args, a)) {
			return -1;
		}
	}
	return 0;
}

/* libfuse's messages, while the command line is checked and the mount
 * made, read like ours.  libfuse writes a line in pieces: they are
 * gathered until its end. */
static void log_as_ours(enum fuse_log_level level, const char *fmt, va_list ap)
{
	static char line[1024];
	static size_t len;
	(void)level;
	int n = vsnprintf(line + len, sizeof line - len, fmt, ap);
	if (n > 0)
		len = len + (size_t)n < sizeof line - 1 ? len + (size_t)n : sizeof line - 1;
	if (len && line[len - 1] == '\n') {
		const char *text = strncmp(line, "fuse: ", 6) ? line : line + 6;
		fprintf(stderr, "mount.mhfu: %s", text);
		len = 0;
	}
}

static void print_help(void)
{
	printf(		"usage: mount.mhfu ARCHIVE MOUNTPOINT [-fnrsvw] [-N NS] [-o OPTION[,OPTION...]]\n"
		"\n"
		"Mounts a Monster Hunter PSP archive as a directory tree:\n"
		"ARCHIVE is a DATA.BIN (MHFU, MHP2G or MHP3rd; encrypted as on\n"
		"the UMD, or decrypted) or a single PAC file.  mount(8) runs it\n"
		"for `mount -t mhfu ARCHIVE DIR` and fstab lines of type mhfu.\n"
		"Unmount with `umount DIR` or `fusermount3 -u DIR`.  What the\n"
		"driver commits and refuses, and why, is in MOUNTPOINT/.mhfu/log;\n"
		"the manual is mount.mhfu(8).\n"
		"\n"
		"mount.mhfu options:\n"
		"    -o game=NAME           mhfu, mhp2g or mhp3rd: which game's list of\n"
		"                           unencrypted entries applies (default: guessed)\n"
		"    -o rules=MODE          strict (default): a write breaking an engine\n"
		"                           rule is refused; warn: it is committed and\n"
		"                           logged; off: rules are not checked\n"
		"    -o fit=ROT:LOC         how far keys fitted to a glTF written to\n"
		"                           entries/entryNNN.glb may stray, in raw units:\n"
		"                           rotation (4096 = 90 degrees; default 1) and\n"
		"                           location (16 = 1.0; default 1.6)\n"
		"    -o ro, -r              mount read-only (writes fail with EROFS); other\n"
		"                           read-only mounts of the archive may stand\n"
		"                           beside it, a read-write one may not\n"
		"    -o no_default_permissions\n"
		"                           let the kernel skip checking permission bits\n"
		"                           (default: checked, so with -o allow_other only\n"
		"                           the owner may write)\n"
		"    -o backup              before the first commit, copy the archive\n"
		"                           to ARCHIVE.orig (once: an existing one is kept)\n"
		"    -o cache_mb=N          memory for decoded PACs, skeletons, packs and\n"
		"                           their texts; beyond it, the least recently\n"
		"                           used are dropped (default 64)\n"
		"    -o scratch_mb=N        memory for scratch files and folders (editor\n"
		"                           temporaries, a tool's work folder), all\n"
		"                           together; beyond it, writes to them fail\n"
		"                           with ENOSPC (default 256)\n"
		"    -o lock_wait=SECONDS   how long to wait for another mount of the archive\n"
		"                           to let go of it before refusing (default 3)\n"
		"    -o state=DIR           keep the log, refused texts, the history of\n"
		"                           commits, records.txt overrides and the entries'\n"
		"                           kinds in DIR (default:\n"
		"                           $XDG_STATE_HOME/mhfufs/NAME-HASH, else under\n"
		"                           ~/.local/state), where they outlive the mount\n"
		"    -o history=N           keep the newest N commits undoable (default 200,\n"
		"                           within 256 MiB); MOUNTPOINT/.mhfu/history lists\n"
		"                           them, `echo ID > MOUNTPOINT/.mhfu/undo` undoes one\n"
		"    -o foreground          stay in the foreground until unmounted;\n"
		"                           messages also go to standard error\n"
		"    -o single_thread       serve requests on one thread\n"
		"    -d, -o debug           print every FUSE request (implies foreground)\n"
		"    -v                     say what was mounted\n"
		"    -f                     fake (mount -f): check the command line, the\n"
		"                           mount point and the archive; mount nothing\n"
		"    -N NS                  mount in the mount namespace NS: a namespace\n"
		"                           file or a pid (mount -N)\n"
		"    -n, -s, -w             accepted from mount(8), no effect (-w: rw)\n"
		"    -o defaults,auto,noauto,nofail,_netdev,user,users,nouser,owner,\n"
		"       group,comment=...,x-...\n"
		"                           mount(8)'s and fstab's: accepted, no effect\n"
		"    -h, --help             print this help\n"
		"    -V, --version          print the version\n"
		"\n"
		"Exit status: 0 mounted (with -o foreground: served and unmounted\n"
		"cleanly; with -f: checked); 1 usage (an unknown option or value, a\n"
		"mount point that is missing or not a directory, an unusable -o state\n"
		"folder); 2 the archive cannot be read; 3 the archive is not valid;\n"
		"4 mount failed (also: a dead mount still on the mount point);\n"
		"5 another mount holds the archive (one read-write mount, or read-only\n"
		"ones, at a time).\n"
		"\n"
		"FUSE options:\n"
		"    -o max_threads=N       threads serving requests at once (default\n"
		"                           2 per processor, 4 to 10; one reads at a time\n"
		"                           and serves quick requests itself; libfuse's\n"
		"                           max_idle_threads and clone_fd change nothing)\n");
	fuse_lowlevel_help();
}

/* Whether libfuse takes every option left for it, asked before the
 * archive is opened: an unknown one is then a usage error with nothing
 * locked or replayed.  libfuse names it. */
static bool fuse_accepts(const struct fuse_args *args)
{
	struct fuse_args copy = FUSE_ARGS_INIT(0, NULL);
	bool copied = true;
	for (int i = 0; copied && i < args->argc; i++)
		copied = !fuse_opt_add_arg(&copy, args->argv[i]);
	struct fuse_session *se =
		copied ? fuse_session_new(&copy, &mhfs_ops, sizeof mhfs_ops, NULL) : NULL;
	if (se)
		fuse_session_destroy(se);
	fuse_opt_free_args(&copy);
	return se != NULL;
}

/* `path` made absolute from the working directory, as it is now. */
static char *absolute(const char *path)
{
	if (path[0] == '/')
		return strdup(path);
	char *cwd = getcwd(NULL, 0), *abs = NULL;
	if (cwd && asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

/* -N NS: goes into the mount namespace NS (a namespace file, as mount(8)
 * passes, or a process's pid) to do everything there.  Entering moves
 * the working directory to the namespace's root: the archive and the
 * mount point are made absolute first. */
static int enter_namespace(struct options *o)
{
	char *archive = absolute(o->archive), *dir = absolute(o->mountpoint);
	if (!archive || !dir) {
		free(archive);
		free(dir);
		fprintf(stderr, "mount.mhfu: -N %s: %s\n", o->namespace, strerror(errno));
		return EXIT_USAGE;
	}
	free(o->archive);
	free(o->mountpoint);
	o->archive = archive;
	o->mountpoint = dir;

	char pid_ns[64];
	const char *file = o->namespace;
	if (file[0] && strspn(file, "0123456789") == strlen(file)) {
		snprintf(pid_ns, sizeof pid_ns, "/proc/%s/ns/mnt", file);
		file = pid_ns;
	}
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mount.mhfu: -N %s: %s: %s\n", o->namespace, file, strerror(errno));
		return EXIT_USAGE;
	}
	int entered = setns(fd, CLONE_NEWNS);
	int err = errno;
	close(fd);
	if (entered) {
		fprintf(stderr, "mount.mhfu: -N %s: cannot enter the mount namespace: %s\n",
			o->namespace, strerror(err));
		return EXIT_MOUNT;
	}
	return 0;
}

/* The mount point, absolute, into *resolved; else an exit status, with a
 * message saying what to do.  A dead mount (its driver killed) answers
 * ENOTCONN, once asked past the attributes the kernel caches; mounting
 * over it would hide it, not mend it.  A regular file would mount as a
 * root nothing can list. */
static int check_mountpoint(const char *dir, char **resolved)
{
	struct statx st;
	if (statx(AT_FDCWD, dir, AT_STATX_FORCE_SYNC, STATX_TYPE, &st)) {
		if (errno == ENOTCONN) {
			fprintf(stderr, "mount.mhfu: %s: %s: a dead mount is still there (its "
				"driver was killed); unmount it with `fusermount3 -u %s`, then "
				"mount again\n", dir, strerror(errno), dir);
			return EXIT_MOUNT;
		}
		fprintf(stderr, "mount.mhfu: mount point %s: %s\n", dir, strerror(errno));
		return EXIT_USAGE;
	}
	if (!S_ISDIR(st.stx_mode)) {
		fprintf(stderr, "mount.mhfu: mount point %s: not a directory\n", dir);
		return EXIT_USAGE;
	}
	if (!(*resolved = realpath(dir, NULL))) {
		fprintf(stderr, "mount.mhfu: mount point %s: %s\n", dir, strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

/* -f (mount -f): everything but the mount.  The command line and the
 * mount point were checked; the archive must be a readable file.  Nothing
 * is locked, replayed or written. */
static int fake_mount(const struct options *o, const char *mountpoint)
{
	struct stat st;
	int fd = open(o->archive, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "mount.mhfu: %s: %s\n", o->archive, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_IO;
	}
	close(fd);
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "mount.mhfu: %s: not a regular file\n", o->archive);
		return EXIT_IO;
	}
	if (o->verbose)
		printf("mount.mhfu: -f: %s not mounted on %s (fake)\n", o->archive, mountpoint);
	return EXIT_SUCCESS;
}

/* -v: what was mounted, before the command returns. */
static void say_mounted(const struct archive *ar, const char *mountpoint)
{
	const char *mode = ar->writable ? "read-write" : "read-only";
	if (ar->format == FORMAT_DATABIN)
		printf("mount.mhfu: mounted %s on %s: DATA.BIN of %s, %s, %u entries, %s\n",
		       ar->path, mountpoint, databin_game_name(ar->db.game),
		       ar->db.encrypted ? "encrypted" : "decrypted", ar->count, mode);
	else
		printf("mount.mhfu: mounted %s on %s: a PAC, %s\n", ar->path, mountpoint, mode);
	fflush(stdout);
}

/* A backing file the driver cannot write makes a read-only mount: said,
 * with the reason, since nobody asked for it. */
static void say_read_only(const char *path)
{
	const char *why = access(path, W_OK) ? strerror(errno) : "cannot be opened for writing";
	fprintf(stderr, "mount.mhfu: %s: %s: mounting read-only\n", path, why);
}

/* Adds "-o name=value" for libfuse, skipping values a comma would split. */
static void add_mount_option(struct fuse_args *args, const char *name,
			     const char *value)
{
	char *opt;
	if (strchr(value, ',') || asprintf(&opt, "-o%s=%s", name, value) < 0)
		return;
	fuse_opt_add_arg(args, opt);
	free(opt);
}

/* The largest -o ..._mb= value: 1 TiB, and its bytes fit a size_t. */
#define MB_OPTION_MAX ((unsigned long long)(SIZE_MAX >> 20) < (1ull << 20) \
			       ? (unsigned long long)(SIZE_MAX >> 20) : (1ull << 20))

/* -o NAME=VALUE, a whole number of `unit` from min to max, into *v (left
 * as is when not given); false with a message when it is not one.
 * Parsed here: fuse_opt's %d wraps silently. */
static bool parse_number(const char *name, const char *value, unsigned long long min,
			 unsigned long long max, const char *unit, unsigned long long *v)
{
	if (!value)
		return true;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(value, &end, 10);
	if (!isdigit((unsigned char)value[0]) || *end || errno || n < min || n > max) {
		fprintf(stderr, "mount.mhfu: -o %s=%s: expected a whole number of %s from %llu to %llu\n",
			name, value, unit, min, max);
		return false;
	}
	*v = n;
	return true;
}

/* -o NAME=VALUE, a budget in MiB, into *bytes. */
static bool parse_mb(const char *name, const char *value, size_t *bytes)
{
	unsigned long long mb = *bytes >> 20;
	if (!parse_number(name, value, 0, MB_OPTION_MAX, "MiB", &mb))
		return false;
	*bytes = (size_t)mb << 20;
	return true;
}

/* The record folder (record.h).  A folder given with -o state= must be
 * usable; when the default one is not (a read-only home), the mount goes
 * on with the record in memory, and says so. */
static int serve(struct mhfs *fs, struct fuse_args *args,
		 struct fuse_cmdline_opts *cmd, bool verbose, uint64_t began)
{
	int status = EXIT_MOUNT;
	struct fuse_session *se = fuse_session_new(args, &mhfs_ops, sizeof mhfs_ops, fs);
	if (!se)
		return EXIT_MOUNT;
	if (fuse_set_signal_handlers(se))
		goto out_session;
	if (fuse_session_mount(se, cmd->mountpoint))
		goto out_signals;
	fs->kernel = (struct kernel){.session = se, .forget = fusefs_forget};
	fs->ar.startup_us = archive_now_us() - began;
	if (verbose)
		say_mounted(&fs->ar, cmd->mountpoint);
	/* The parent returns only now, so a mount that returned is ready. */
	fuse_daemonize(cmd->foreground);
	/* Workers may log at once: libfuse's own writer takes it from here. */
	fuse_set_log_func(NULL);
	fs->log.to_stderr = cmd->foreground;
	/* Each mount's lines follow this one in the record. */
	mlog_printf(&fs->log, "mounted %s on %s, %s", fs->ar.path, cmd->mountpoint,
		    fs->ar.writable ? "read-write" : "read-only");

	int ret;
	/* Workers' read buffers are freed as they exit; a single-threaded
	 * loop's below. */
	pthread_key_create(&fs->read_buffers, free);
	ret = cmd->singlethread ? fuse_session_loop(se) : loop_serve(se, fs->workers);
	free(pthread_getspecific(fs->read_buffers));
	pthread_key_delete(fs->read_buffers);
	status = ret == 0 ? EXIT_SUCCESS : EXIT_MOUNT;
	/* No worker runs now: what scratch files hold is kept, and the
	 * record's story of this mount ends. */
	report_scratch_left(fs);
	mlog_printf(&fs->log, "unmounted from %s", cmd->mountpoint);
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
	return status;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_cmdline_opts cmd = {0};
	struct options opts = {0};
	size_t cache_bytes = (size_t)DEFAULT_CACHE_MB << 20;
	size_t scratch_bytes = SCRATCH_DEFAULT_BUDGET;
	static struct mhfs fs; /* large (the log): not on the stack */
	uint64_t began = archive_now_us();
	struct fs_diag msg = {""};
	int status = EXIT_USAGE;

	fuse_set_log_func(log_as_ours);
	if (add_arguments(&args, argc, argv)) {
		fprintf(stderr, "mount.mhfu: out of memory\n");
		goto out;
	}
	if (fuse_opt_parse(&args, &opts, option_spec, take_argument) ||
	    fuse_parse_cmdline(&args, &cmd)) {
		fputs(USAGE_LINE, stderr);
		goto out;
	}
	if (cmd.show_help) {
		print_help();
		status = EXIT_SUCCESS;
		goto out;
	}
	if (cmd.show_version) {
		printf("mount.mhfu %s\nFUSE library %s\n", MHFU_VERSION,
		       fuse_pkgversion());
		status = EXIT_SUCCESS;
		goto out;
	}
	if (opts.extra) {
		fprintf(stderr, "mount.mhfu: unexpected argument '%s' after the mount point\n",
			opts.extra);
		fputs(USAGE_LINE, stderr);
		goto out;
	}
	if (!opts.archive || !opts.mountpoint) {
		if (opts.archive)
			fprintf(stderr, "mount.mhfu: no mount point given\n");
		fputs(USAGE_LINE, stderr);
		goto out;
	}
	if (opts.type && strcmp(opts.type, "mhfu") && strcmp(opts.type, "fuse.mhfu")) {
		fprintf(stderr, "mount.mhfu: -t %s: this helper mounts type mhfu (or "
			"fuse.mhfu)\n", opts.type);
		goto out;
	}
	enum rules_mode rules = RULES_STRICT;
	if (opts.rules && !strcmp(opts.rules, "warn"))
		rules = RULES_WARN;
	else if (opts.rules && !strcmp(opts.rules, "off"))
		rules = RULES_OFF;
	else if (opts.rules && strcmp(opts.rules, "strict")) {
		fprintf(stderr, "mount.mhfu: -o rules=%s: expected strict, warn or off\n",
			opts.rules);
		goto out;
	}
	double fit[2] = {0, 0};
	if (opts.fit) {
		char *end;
		fit[0] = strtod(opts.fit, &end);
		if (*end == ':') /* not ',': -o splits its options at commas */
			fit[1] = strtod(end + 1, &end);
		if (*end || !(fit[0] >= FIT_TOL_MIN) || !(fit[1] >= FIT_TOL_MIN)) {
			fprintf(stderr, "mount.mhfu: -o fit=%s: expected ROT:LOC, raw units, each "
				"at least %g (default 1:1.6)\n", opts.fit, FIT_TOL_MIN);
			goto out;
		}
	}
	unsigned long long lock_wait = DEFAULT_LOCK_WAIT, history_max = 0;
	if (!parse_mb("cache_mb", opts.cache_mb, &cache_bytes) ||
	    !parse_mb("scratch_mb", opts.scratch_mb, &scratch_bytes) ||
	    !parse_number("lock_wait", opts.lock_wait, 0, LOCK_WAIT_MAX, "seconds", &lock_wait) ||
	    !parse_number("history", opts.history, 1, HISTORY_OPTION_MAX, "commits", &history_max))
		goto out;
	enum databin_game game = GAME_UNKNOWN;
	if (opts.game && (game = databin_game_parse(opts.game)) == GAME_UNKNOWN) {
		fprintf(stderr, "mount.mhfu: -o game=%s: expected mhfu, mhp2g or mhp3rd\n",
			opts.game);
		goto out;
	}
	if (!fuse_accepts(&args)) {
		fputs(USAGE_LINE, stderr);
		goto out;
	}
	cmd.foreground |= opts.foreground;
	cmd.singlethread |= opts.single_thread;
	if (opts.namespace && (status = enter_namespace(&opts)))
		goto out;
	if ((status = check_mountpoint(opts.mountpoint, &cmd.mountpoint)))
		goto out;
	if (opts.fake) {
		status = fake_mount(&opts, cmd.mountpoint);
		goto out;
	}

	/* Entries, PACs and clip buffers of up to a few MiB come and go with
	 * every commit and text view: serve them from the heap, not from
	 * fresh mappings whose every page faults in on first touch; keep
	 * what is freed up to a bound. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
	/* One heap for every worker thread: with an arena per thread, each
	 * keeping what it freed, the daemon's size crept up over thousands
	 * of commits (13 to 15 MB over 3,000 here; with one, flat at 9). */
	mallopt(M_ARENA_MAX, 1);
	openlog("mount.mhfu", LOG_PID, LOG_USER);
	struct driver_options d = {
		.archive = opts.archive, .state = opts.state, .game = game,
		.read_only = opts.read_only, .backup = opts.backup, .log_to_stderr = true,
		.lock_wait_ms = (unsigned)lock_wait * 1000, .cache_bytes = cache_bytes,
		.scratch_bytes = scratch_bytes, .history_max = (size_t)history_max, .rules = rules,
		.fit = {fit[0], fit[1]},
	};
	/* The exit status of each reason the archive was not opened. */
	static const int exit_of[] = {
		[DRIVER_EIO] = EXIT_IO, [DRIVER_ENOMEM] = EXIT_IO, [DRIVER_EFORMAT] = EXIT_FORMAT,
		[DRIVER_EBUSY] = EXIT_BUSY, [DRIVER_ESTATE] = EXIT_USAGE,
	};
	enum driver_status opened = driver_open(&fs, &d, &msg);
	if (opened == DRIVER_OK) {
		add_mount_option(&args, "fsname", fs.ar.path);
		fuse_opt_add_arg(&args, "-osubtype=mhfu");
		/* Views are the mounting user's, mode 644 (folders 755): the
		 * kernel enforces that, so under allow_other nobody else may
		 * edit the archive. */
		if (!opts.no_permissions)
			fuse_opt_add_arg(&args, "-odefault_permissions");
		if (!fs.ar.writable && !opts.read_only) {
			say_read_only(fs.ar.path);
			fuse_opt_add_arg(&args, "-oro");
		}
		fs.workers = cmd.singlethread ? 1
			     : opts.max_threads ? cmd.max_threads : default_workers();
		status = serve(&fs, &args, &cmd, opts.verbose, began);
	} else {
		fprintf(stderr, "mount.mhfu: %s\n", msg.msg);
		status = exit_of[opened];
	}
	driver_close(&fs);
	closelog();
out:
	free(cmd.mountpoint);
	free(opts.archive);
	free(opts.mountpoint);
	free(opts.extra);
	free(opts.namespace);
	free(opts.type);
	free(opts.game);
	free(opts.rules);
	free(opts.fit);
	free(opts.cache_mb);
	free(opts.scratch_mb);
	free(opts.state);
	free(opts.lock_wait);
	free(opts.history);
	fuse_opt_free_args(&args);
	return status;
}
