/* mount.mhfu: mounts a Monster Hunter PSP DATA.BIN, or a single PAC, as
 * a directory tree.  See man/mount.mhfu.8. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "handle.h"
#include "mhfs.h"
#include "version.h"

/* Exit codes, documented in mount.mhfu(8). */
enum {
	EXIT_USAGE = 1,   /* bad command line */
	EXIT_IO = 2,      /* the archive cannot be opened or read */
	EXIT_FORMAT = 3,  /* the archive is not a valid DATA.BIN or PAC */
	EXIT_MOUNT = 4,   /* FUSE could not mount or serve */
	EXIT_BUSY = 5,    /* another mount holds the archive */
};

#define DEFAULT_TIMEOUT 3600.0
#define ENTRY_TIMEOUT 1.0
#define DEFAULT_CACHE_MB 64

struct options {
	const char *archive; /* first non-option argument */
	char *game;          /* -o game= */
	char *rules;         /* -o rules= */
	int read_only;       /* -o ro, also passed on to the kernel */
	int backup;          /* -o backup */
	char *cache_mb;      /* -o cache_mb= */
	char *scratch_mb;    /* -o scratch_mb= */
	char *state;         /* -o state= */
	int no_permissions;  /* -o no_default_permissions */
};

enum { KEY_RO };

static const struct fuse_opt option_spec[] = {
	{"game=%s", offsetof(struct options, game), 0},
	{"rules=%s", offsetof(struct options, rules), 0},
	{"backup", offsetof(struct options, backup), 1},
	{"cache_mb=%s", offsetof(struct options, cache_mb), 0},
	{"scratch_mb=%s", offsetof(struct options, scratch_mb), 0},
	{"state=%s", offsetof(struct options, state), 0},
	{"no_default_permissions", offsetof(struct options, no_permissions), 1},
	FUSE_OPT_KEY("ro", KEY_RO),
	FUSE_OPT_END,
};

/* Keeps everything for libfuse except the first non-option argument,
 * which is the archive (the second is the mount point). */
static int take_archive(void *data, const char *arg, int key,
			struct fuse_args *outargs)
{
	(void)outargs;
	struct options *o = data;
	if (key == FUSE_OPT_KEY_NONOPT && !o->archive) {
		o->archive = arg;
		return 0;
	}
	if (key == KEY_RO)
		o->read_only = 1;
	return 1;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [options] ARCHIVE MOUNTPOINT\n"
		"\n"
		"Mounts a Monster Hunter PSP archive as a directory tree:\n"
		"ARCHIVE is a DATA.BIN (MHFU, MHP2G or MHP3rd; encrypted as on\n"
		"the UMD, or decrypted) or a single PAC file.\n"
		"\n"
		"mount.mhfu options:\n"
		"    -o game=NAME           mhfu, mhp2g or mhp3rd: which game's list of\n"
		"                           unencrypted entries applies (default: guessed)\n"
		"    -o rules=MODE          strict (default): a write breaking an engine\n"
		"                           rule is refused; warn: it is committed and\n"
		"                           logged; off: rules are not checked\n"
		"    -o ro                  mount read-only (writes fail with EROFS); other\n"
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
		"    -o scratch_mb=N        memory for scratch files (editor temporaries),\n"
		"                           all together; beyond it, writes to them fail\n"
		"                           with ENOSPC (default 256)\n"
		"    -o state=DIR           keep the log and refused texts in DIR (default:\n"
		"                           $XDG_STATE_HOME/mhfufs/NAME-HASH, else under\n"
		"                           ~/.local/state), where they outlive the mount\n"
		"    -h, --help             print this help\n"
		"    -V, --version          print the version\n"
		"\n"
		"Exit status: 0 mounted (and, with -f, unmounted cleanly); 1 usage\n"
		"(a bad option, an unusable -o state folder);\n"
		"2 the archive cannot be read; 3 the archive is not valid; 4 mount failed;\n"
		"5 another mount holds the archive (one read-write mount, or read-only\n"
		"ones, at a time).\n"
		"\n",
		prog);
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

/* The largest -o ..._mb= value: 1 TiB, and its bytes fit a size_t.
 * Parsed here: fuse_opt's %d wraps silently. */
#define MB_OPTION_MAX ((unsigned long long)(SIZE_MAX >> 20) < (1ull << 20) \
			       ? (unsigned long long)(SIZE_MAX >> 20) : (1ull << 20))

/* -o NAME=VALUE, a budget in MiB, into *bytes (left as is when not
 * given); false with a message when it is not a number in range. */
static bool parse_mb(const char *name, const char *value, size_t *bytes)
{
	if (!value)
		return true;
	char *end;
	errno = 0;
	unsigned long long mb = strtoull(value, &end, 10);
	if (!isdigit((unsigned char)value[0]) || *end || errno || mb > MB_OPTION_MAX) {
		fprintf(stderr, "mount.mhfu: -o %s=%s: expected 0 or more MiB, at most %llu\n",
			name, value, MB_OPTION_MAX);
		return false;
	}
	*bytes = (size_t)mb << 20;
	return true;
}

/* The record folder (record.h).  A folder given with -o state= must be
 * usable; when the default one is not (a read-only home), the mount goes
 * on with the record in memory, and says so. */
static bool open_record(struct mhfs *fs, const struct options *o)
{
	char msg[512] = "out of memory";
	char *dir = o->state ? strdup(o->state) : record_default_dir(o->archive);
	int err = dir ? record_open(&fs->record, dir, msg, sizeof msg) : ENOMEM;
	if (!err && (err = mlog_keep_in(&fs->log, fs->record.dir))) {
		snprintf(msg, sizeof msg, "%s/log: %s", fs->record.path, strerror(err));
		record_close(&fs->record);
	}
	free(dir);
	if (err && o->state) {
		fprintf(stderr, "mount.mhfu: -o state=%s: %s\n", o->state, msg);
		return false;
	}
	if (err)
		mlog_printf(&fs->log, "the record cannot be kept on disk (%s): the log and "
			    "refused texts last only until unmount (see -o state=)", msg);
	return true;
}

static int serve(struct mhfs *fs, struct fuse_args *args,
		 struct fuse_cmdline_opts *cmd, uint64_t began)
{
	int status = EXIT_MOUNT;
	struct fuse_session *se = fuse_session_new(args, &mhfs_ops, sizeof mhfs_ops, fs);
	if (!se)
		return EXIT_MOUNT;
	if (fuse_set_signal_handlers(se))
		goto out_session;
	if (fuse_session_mount(se, cmd->mountpoint))
		goto out_signals;
	fs->se = se;
	fs->ar.startup_us = archive_now_us() - began;
	/* The parent returns only now, so a mount that returned is ready. */
	fuse_daemonize(cmd->foreground);
	fs->log.to_stderr = cmd->foreground;
	/* Each mount's lines follow this one in the record. */
	mlog_printf(&fs->log, "mounted %s on %s, %s", fs->ar.path, cmd->mountpoint,
		    fs->ar.writable ? "read-write" : "read-only");

	int ret;
	/* Workers' read buffers are freed as they exit; a single-threaded
	 * loop's below. */
	pthread_key_create(&fs->read_buffers, free);
	if (cmd->singlethread) {
		ret = fuse_session_loop(se);
	} else {
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(cfg, cmd->clone_fd);
		/* libfuse leaves these at UINT_MAX unless given: keep its
		 * defaults then. */
		if (cmd->max_idle_threads != UINT_MAX)
			fuse_loop_cfg_set_idle_threads(cfg, cmd->max_idle_threads);
		if (cmd->max_threads != UINT_MAX)
			fuse_loop_cfg_set_max_threads(cfg, cmd->max_threads);
		ret = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	free(pthread_getspecific(fs->read_buffers));
	pthread_key_delete(fs->read_buffers);
	status = ret == 0 ? EXIT_SUCCESS : EXIT_MOUNT;
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
	return status;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cmd = {0};
	struct options opts = {0};
	size_t cache_bytes = (size_t)DEFAULT_CACHE_MB << 20;
	size_t scratch_bytes = SCRATCH_DEFAULT_BUDGET;
	static struct mhfs fs; /* large (the log): not on the stack */
	uint64_t began = archive_now_us();
	char msg[512];
	int status = EXIT_USAGE;

	if (fuse_opt_parse(&args, &opts, option_spec, take_archive) ||
	    fuse_parse_cmdline(&args, &cmd))
		goto out;
	if (cmd.show_help) {
		usage(stdout, argv[0]);
		printf("FUSE options:\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		status = EXIT_SUCCESS;
		goto out;
	}
	if (cmd.show_version) {
		printf("mount.mhfu %s\nFUSE library %s\n", MHFU_VERSION,
		       fuse_pkgversion());
		status = EXIT_SUCCESS;
		goto out;
	}
	if (!opts.archive || !cmd.mountpoint) {
		usage(stderr, argv[0]);
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
	if (!parse_mb("cache_mb", opts.cache_mb, &cache_bytes) ||
	    !parse_mb("scratch_mb", opts.scratch_mb, &scratch_bytes))
		goto out;
	enum databin_game game = GAME_UNKNOWN;
	if (opts.game && (game = databin_game_parse(opts.game)) == GAME_UNKNOWN) {
		fprintf(stderr, "mount.mhfu: -o game=%s: expected mhfu, mhp2g or mhp3rd\n",
			opts.game);
		goto out;
	}

	/* Entries, PACs and clip buffers of up to a few MiB come and go with
	 * every commit and text view: serve them from the heap, not from
	 * fresh mappings whose every page faults in on first touch; keep
	 * what is freed up to a bound. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
	openlog("mount.mhfu", LOG_PID, LOG_USER);
	mlog_init(&fs.log, true);
	fs.record.dir = -1;
	scratch_init(&fs.scratch);
	fs.scratch.budget = scratch_bytes;
	known_init(&fs.known);
	pthread_mutex_init(&fs.errors_lock, NULL);
	pthread_mutex_init(&fs.handles_lock, NULL);
	times_init(&fs.times);
	prefetch_init(&fs.prefetch);
	fs.uid = getuid();
	fs.gid = getgid();
	fs.timeout = DEFAULT_TIMEOUT;
	fs.entry_timeout = ENTRY_TIMEOUT;
	fs.rules = rules;
	switch (archive_open(&fs.ar, opts.archive, &fs.log, game, opts.read_only,
			     msg, sizeof msg)) {
	case AR_OK:
		fs.ar.backup = opts.backup;
		fs.ar.cache_budget = cache_bytes;
		if (!open_record(&fs, &opts)) {
			archive_close(&fs.ar);
			status = EXIT_USAGE;
			break;
		}
		/* Nothing renames anything in a read-only mount: names may be
		 * cached as long as attributes. */
		if (!fs.ar.writable)
			fs.entry_timeout = fs.timeout;
		add_mount_option(&args, "fsname", opts.archive);
		fuse_opt_add_arg(&args, "-osubtype=mhfu");
		/* Views are the mounting user's, mode 644 (folders 755): the
		 * kernel enforces that, so under allow_other nobody else may
		 * edit the archive. */
		if (!opts.no_permissions)
			fuse_opt_add_arg(&args, "-odefault_permissions");
		/* A backing file we cannot write makes a read-only mount. */
		if (!fs.ar.writable && !opts.read_only)
			fuse_opt_add_arg(&args, "-oro");
		status = serve(&fs, &args, &cmd, began);
		archive_close(&fs.ar);
		break;
	case AR_EIO:
		fprintf(stderr, "mount.mhfu: %s\n", msg);
		status = EXIT_IO;
		break;
	case AR_EFORMAT:
		fprintf(stderr, "mount.mhfu: %s\n", msg);
		status = EXIT_FORMAT;
		break;
	case AR_EBUSY:
		fprintf(stderr, "mount.mhfu: %s\n", msg);
		status = EXIT_BUSY;
		break;
	}
	for (struct view_error *v = fs.errors, *next; v; v = next) {
		next = v->next;
		free(v->msg);
		free(v);
	}
	pthread_mutex_destroy(&fs.errors_lock);
	handles_free_all(&fs);
	pthread_mutex_destroy(&fs.handles_lock);
	times_destroy(&fs.times);
	prefetch_destroy(&fs.prefetch);
	known_destroy(&fs.known);
	scratch_destroy(&fs.scratch);
	mlog_destroy(&fs.log);
	record_close(&fs.record);
	closelog();
out:
	free(cmd.mountpoint);
	free(opts.game);
	free(opts.rules);
	free(opts.cache_mb);
	free(opts.scratch_mb);
	free(opts.state);
	fuse_opt_free_args(&args);
	return status;
}
