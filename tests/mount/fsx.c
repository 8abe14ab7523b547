/* SPDX-License-Identifier: MIT */
/* fsx [--local] [--seed N] [--ops N] [--models DIR] [--verbose] DIR:
 * random operations on three files of DIR, a read-write mount of the
 * sample archive, each checked against a model in memory after every
 * operation (in the manner of the classic fsx):
 *
 *   a raw entry (VIEW_RAW_FSX, with a size record, so its bytes read back
 *     exactly): pread, pwrite, append (O_APPEND), truncate, ftruncate,
 *     fstat and close+reopen (which commits) on one open fd;
 *   a scratch file: the same, and reads and writes through shared maps;
 *   a clip text (VIEW_TEXT): only valid edits, as a commit refuses
 *     anything else: whole-file rewrites and in-place pwrites that change
 *     one rotation key's value, each committed at close, then read back.
 *
 * Each byte file starts as the classic fsx starts (trunc_start).  After
 * every operation the file is read whole (through its fd, or
 * afresh for the clip text) and compared with its model; a mismatch is
 * reported, counted and the model resynchronised to what the file holds,
 * so one fault does not hide the next.  At the end the fds are closed
 * and, with --models, the raw entry's and clip text's models are written
 * to DIR/raw.bin and DIR/text.txt, for the caller to compare with the
 * archive on disk after unmounting.  --local makes stand-ins of the views
 * in a plain directory, where every operation must match.
 *
 * Prints "ok - FILE: N operations, M mismatches" per file (the kinds of
 * operation that mismatched in parentheses), "fsx: seed S, N operations,
 * M mismatches" and "N passed, N failed"; exits 1 on any mismatch. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exercise.h"
#include "rng.h"

#define SCRATCH_NAME "fsx-scratch.tmp"
/* The raw entry keeps its first bytes (the mount names an entry by what
 * its first bytes sniff as) and stays within two blocks (a commit that
 * changes its block count rewrites the archive: slow, and covered by the
 * write tests). */
#define RAW_HEAD 16
#define RAW_MAX 4096
#define SCRATCH_MAX 65536
#define WRITE_MAX 4096
/* Mismatches reported in detail per file; the rest are counted. */
#define DETAIL_MAX 5

enum op {
	OP_READ, OP_WRITE, OP_APPEND, OP_TRUNCATE, OP_FTRUNCATE, OP_FSTAT, OP_REOPEN,
	OP_MAPREAD, OP_MAPWRITE, OP_REWRITE, OP_PWRITE_KEY, OP_COUNT
};

static const char *const OP_NAME[OP_COUNT] = {
	"read", "write", "append", "truncate", "ftruncate", "fstat", "close+reopen",
	"mapread", "mapwrite", "rewrite", "pwrite key",
};

/* Weights of the operations on a raw entry. */
static const unsigned BYTE_OPS[OP_COUNT] = {
	[OP_READ] = 20, [OP_WRITE] = 25, [OP_APPEND] = 12, [OP_TRUNCATE] = 6,
	[OP_FTRUNCATE] = 10, [OP_FSTAT] = 15, [OP_REOPEN] = 10,
};
/* ... on a scratch file: those and shared maps, read and written (as the
 * classic fsx's mapped reads and writes, and editors that map files). */
static const unsigned SCRATCH_OPS[OP_COUNT] = {
	[OP_READ] = 15, [OP_WRITE] = 20, [OP_APPEND] = 10, [OP_TRUNCATE] = 6,
	[OP_FTRUNCATE] = 10, [OP_FSTAT] = 12, [OP_REOPEN] = 10, [OP_MAPREAD] = 8,
	[OP_MAPWRITE] = 8,
};
/* ... on a clip text. */
static const unsigned TEXT_OPS[OP_COUNT] = {
	[OP_READ] = 2, [OP_REWRITE] = 4, [OP_PWRITE_KEY] = 4,
};

enum file_kind { RAW, SCRATCH, TEXT };

struct file {
	const char *label;     /* what it is, for the report */
	const char *path;
	enum file_kind kind;
	int fd;                /* raw entry and scratch file: open O_RDWR */
	char *model;           /* what the file must hold */
	size_t len;
	size_t min, max;       /* sizes the operations keep it within */
	unsigned ops, mismatches;
	unsigned by_op[OP_COUNT];
};

static struct rng rng;
static bool verbose;
static unsigned long op_number;

static uint32_t below(uint32_t n)
{
	return (uint32_t)rng_below(&rng, n);
}

static enum op pick(const unsigned weight[OP_COUNT])
{
	unsigned total = 0, i;
	for (i = 0; i < OP_COUNT; i++)
		total += weight[i];
	unsigned r = below(total);
	for (i = 0; r >= weight[i]; i++)
		r -= weight[i];
	return (enum op)i;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("fsx");
		exit(2);
	}
	return p;
}

/* Sets the model's size: new bytes are zeros, as in a file's hole. */
static void model_resize(struct file *f, size_t len)
{
	f->model = xrealloc(f->model, len + 1);
	if (len > f->len)
		memset(f->model + f->len, 0, len - f->len);
	f->len = len;
}

/* A mismatch (or a failed call) in operation `what` on f. */
static void mismatch(struct file *f, enum op op, const char *what, const char *fmt, ...)
{
	f->by_op[op]++;
	if (f->mismatches++ >= DETAIL_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	printf("    # op %lu, %s: %s: ", op_number, f->label, what);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* Compares what was read with the model: a description of the first
 * difference, or NULL. */
static const char *differs(const struct file *f, const char *got, size_t len, char *msg,
			   size_t size)
{
	if (!got) {
		snprintf(msg, size, "cannot read: %s", strerror(errno));
		return msg;
	}
	for (size_t i = 0; i < len && i < f->len; i++)
		if (got[i] != f->model[i]) {
			snprintf(msg, size, "byte %zu is 0x%02x, the model's 0x%02x (%zu bytes, model %zu)",
				 i, (unsigned char)got[i], (unsigned char)f->model[i], len, f->len);
			return msg;
		}
	if (len != f->len) {
		snprintf(msg, size, "%zu bytes, the model %zu", len, f->len);
		return msg;
	}
	return NULL;
}

/* Reads the file whole and compares it with the model; on a mismatch the
 * model becomes what was read.  `counted`: the operation already counted
 * its mismatch, so this one only resynchronises. */
static void verify(struct file *f, enum op op, const char *what, bool counted)
{
	char msg[160];
	size_t len = 0;
	struct stat st;
	char *got = f->kind == TEXT ? read_path(f->path, &len) : read_fd(f->fd, &len);
	const char *bad = differs(f, got, len, msg, sizeof msg);
	if (!bad && f->kind == TEXT && !stat(f->path, &st) && (size_t)st.st_size != len) {
		snprintf(msg, sizeof msg, "stat says %lld bytes, read %zu", (long long)st.st_size, len);
		bad = msg;
	}
	if (bad) {
		if (!counted)
			mismatch(f, op, what, "%s", bad);
		if (got) {
			free(f->model);
			f->model = got;
			f->len = len;
			return;
		}
	}
	free(got);
}

static void reopen(struct file *f)
{
	f->fd = open(f->path, O_RDWR);
	if (f->fd < 0) {
		fprintf(stderr, "fsx: %s: %s\n", f->path, strerror(errno));
		exit(2);
	}
}

/* A failed call: counted, the file reread. */
static void failed_call(struct file *f, enum op op, const char *what, const char *call)
{
	mismatch(f, op, what, "%s: %s", call, strerror(errno));
}

/* The classic fsx's start (its check_trunc_hack): open with O_TRUNC,
 * ftruncate to 0, out past the end and back, checking fstat; then the
 * model's bytes are written back, so the file goes on as it was. */
static void trunc_start(struct file *f)
{
	const char *what = "open(O_TRUNC), ftruncate 0, +100000, fstat, 0";
	struct stat st;
	f->fd = open(f->path, O_RDWR | O_TRUNC);
	if (f->fd < 0) {
		fprintf(stderr, "fsx: %s: %s\n", f->path, strerror(errno));
		exit(2);
	}
	if (ftruncate(f->fd, 0) || ftruncate(f->fd, 100000))
		failed_call(f, OP_FTRUNCATE, what, "ftruncate");
	else if (fstat(f->fd, &st) || st.st_size != 100000)
		mismatch(f, OP_FTRUNCATE, what, "fstat says %lld bytes, not 100000",
			 (long long)st.st_size);
	else if (ftruncate(f->fd, 0))
		failed_call(f, OP_FTRUNCATE, what, "ftruncate");
	else if (pwrite_all(f->fd, f->model, f->len, 0))
		failed_call(f, OP_FTRUNCATE, what, "pwrite");
	f->ops++;
	verify(f, OP_FTRUNCATE, what, f->mismatches != 0);
}

/* One operation on a raw entry or scratch file; `what` gets its
 * description. */
static enum op byte_op(struct file *f, char *what, size_t size)
{
	enum op op = pick(f->kind == SCRATCH ? SCRATCH_OPS : BYTE_OPS);
	uint8_t *map;
	char buf[WRITE_MAX];
	struct stat st;
	size_t off, n, to;
	switch (op) {
	case OP_READ:
		off = below((uint32_t)f->len + 100);
		n = 1 + below(WRITE_MAX);
		snprintf(what, size, "pread %zu at %zu", n, off);
		ssize_t got = pread(f->fd, buf, n, (off_t)off);
		size_t want = off < f->len ? (f->len - off < n ? f->len - off : n) : 0;
		if (got < 0)
			failed_call(f, op, what, "pread");
		else if ((size_t)got != want || memcmp(buf, f->model + (off < f->len ? off : 0), want))
			mismatch(f, op, what, "read %zd bytes, want %zu%s", got, want,
				 (size_t)got == want ? " (other bytes)" : "");
		break;
	case OP_WRITE:
		off = f->min + below((uint32_t)(f->len - f->min + 1024));
		if (off >= f->max)
			off = f->max - 1;
		n = 1 + below(WRITE_MAX);
		if (n > f->max - off)
			n = f->max - off;
		snprintf(what, size, "pwrite %zu at %zu", n, off);
		rng_bytes(&rng, (uint8_t *)buf, n);
		if (pwrite_all(f->fd, buf, n, (off_t)off)) {
			failed_call(f, op, what, "pwrite");
			break;
		}
		if (off + n > f->len)
			model_resize(f, off + n);
		memcpy(f->model + off, buf, n);
		break;
	case OP_APPEND:
		n = 1 + below(WRITE_MAX / 4);
		if (f->len >= f->max) {
			snprintf(what, size, "append nothing (full)");
			break;
		}
		if (n > f->max - f->len)
			n = f->max - f->len;
		snprintf(what, size, "append %zu (O_APPEND) at %zu", n, f->len);
		rng_bytes(&rng, (uint8_t *)buf, n);
		if (fcntl(f->fd, F_SETFL, O_APPEND) || write_all(f->fd, buf, n) ||
		    fcntl(f->fd, F_SETFL, 0)) {
			failed_call(f, op, what, "O_APPEND write");
			fcntl(f->fd, F_SETFL, 0);
			break;
		}
		model_resize(f, f->len + n);
		memcpy(f->model + f->len - n, buf, n);
		break;
	case OP_TRUNCATE:
	case OP_FTRUNCATE:
		to = f->min + below((uint32_t)(f->max - f->min + 1));
		snprintf(what, size, "%s to %zu (from %zu)", op == OP_TRUNCATE ? "truncate" : "ftruncate",
			 to, f->len);
		if (op == OP_TRUNCATE ? truncate(f->path, (off_t)to) : ftruncate(f->fd, (off_t)to)) {
			failed_call(f, op, what, OP_NAME[op]);
			break;
		}
		model_resize(f, to);
		break;
	case OP_FSTAT:
		snprintf(what, size, "fstat and stat (model %zu bytes)", f->len);
		if (fstat(f->fd, &st))
			failed_call(f, op, what, "fstat");
		else if ((size_t)st.st_size != f->len)
			mismatch(f, op, what, "fstat says %lld bytes", (long long)st.st_size);
		else if (stat(f->path, &st))
			failed_call(f, op, what, "stat");
		else if ((size_t)st.st_size != f->len)
			mismatch(f, op, what, "stat says %lld bytes", (long long)st.st_size);
		break;
	case OP_MAPREAD:
		if (!f->len) {
			snprintf(what, size, "mapread nothing (empty)");
			break;
		}
		off = below((uint32_t)f->len);
		n = 1 + below((uint32_t)(f->len - off < WRITE_MAX ? f->len - off : WRITE_MAX));
		snprintf(what, size, "mapread %zu at %zu (MAP_SHARED)", n, off);
		map = mmap(NULL, off + n, PROT_READ, MAP_SHARED, f->fd, 0);
		if (map == MAP_FAILED) {
			failed_call(f, op, what, "mmap");
			break;
		}
		if (memcmp(map + off, f->model + off, n))
			mismatch(f, op, what, "the map holds other bytes");
		munmap(map, off + n);
		break;
	case OP_MAPWRITE:
		off = below((uint32_t)(f->len + 1024 < f->max ? f->len + 1024 : f->max - 1));
		n = 1 + below(WRITE_MAX);
		if (n > f->max - off)
			n = f->max - off;
		snprintf(what, size, "mapwrite %zu at %zu (MAP_SHARED, msync)", n, off);
		/* A map cannot grow the file: extended first, as fsx does. */
		if (off + n > f->len) {
			if (ftruncate(f->fd, (off_t)(off + n))) {
				failed_call(f, op, what, "ftruncate");
				break;
			}
			model_resize(f, off + n);
		}
		map = mmap(NULL, off + n, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
		if (map == MAP_FAILED) {
			failed_call(f, op, what, "mmap");
			break;
		}
		rng_bytes(&rng, (uint8_t *)buf, n);
		memcpy(map + off, buf, n);
		memcpy(f->model + off, buf, n);
		if (msync(map, off + n, MS_SYNC))
			failed_call(f, op, what, "msync");
		munmap(map, off + n);
		break;
	case OP_REOPEN:
		snprintf(what, size, "close and reopen (%zu bytes)", f->len);
		if (close(f->fd))
			failed_call(f, op, what, "close");
		reopen(f);
		break;
	default:
		break;
	}
	return op;
}

/* One valid edit of the clip text, committed at close. */
static enum op text_op(struct file *f, char *what, size_t size)
{
	enum op op = pick(TEXT_OPS);
	size_t at[64], keys = rot_values(f->model, f->len, at, 64);
	if (op == OP_READ || !keys) {
		snprintf(what, size, "read");
		return OP_READ;
	}
	size_t k = at[below(keys < 64 ? (uint32_t)keys : 64)];
	int value = (int)below(19999) - 9999;
	char *variant = xrealloc(NULL, f->len + 1);
	memcpy(variant, f->model, f->len);
	set_value(variant, k, value);
	struct stat st;
	int fd = -1;
	if (op == OP_REWRITE) {
		size_t split = 1 + below((uint32_t)f->len - 1);
		snprintf(what, size, "rewrite (%zu + %zu bytes) with value %d at %zu", split,
			 f->len - split, value, k);
		if ((fd = open(f->path, O_WRONLY | O_TRUNC)) < 0 || write_all(fd, variant, split))
			failed_call(f, op, what, "open(O_TRUNC) and write");
		else if (fstat(fd, &st))
			failed_call(f, op, what, "fstat");
		else if ((size_t)st.st_size != split)
			mismatch(f, op, what, "fstat after %zu bytes written says %lld", split,
				 (long long)st.st_size);
		if (fd >= 0 && write_all(fd, variant + split, f->len - split))
			failed_call(f, op, what, "write");
	} else {
		snprintf(what, size, "pwrite value %d at %zu", value, k);
		size_t len = 0;
		char *got = NULL;
		if ((fd = open(f->path, O_RDWR)) < 0 ||
		    pwrite_all(fd, variant + k, KEY_VALUE_WIDTH, (off_t)k))
			failed_call(f, op, what, "open and pwrite");
		else if (!(got = read_fd(fd, &len)))
			failed_call(f, op, what, "pread");
		else if (len != f->len || memcmp(got, variant, len))
			mismatch(f, op, what, "the fd reads %zu bytes, not the edit", len);
		free(got);
	}
	if (fd >= 0 && close(fd))
		failed_call(f, op, what, "close (the commit)");
	free(f->model);
	f->model = variant;
	return op;
}

static void report(const struct file *f)
{
	printf("%s - %s %s: %u operations, %u mismatches", f->mismatches ? "not ok" : "ok",
	       f->label, f->path, f->ops, f->mismatches);
	if (f->mismatches) {
		const char *sep = " (";
		for (int i = 0; i < OP_COUNT; i++)
			if (f->by_op[i]) {
				printf("%s%s %u", sep, OP_NAME[i], f->by_op[i]);
				sep = ", ";
			}
		printf(")");
	}
	printf("\n");
}

static void save_model(const char *dir, const char *name, const struct file *f)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (write_path(path, f->model, f->len)) {
		perror(path);
		exit(2);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: fsx [--local] [--seed N] [--ops N] [--models DIR] [--verbose] DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	unsigned long ops = 600;
	const char *models = NULL, *dir = NULL;
	bool local = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--local"))
			local = true;
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--models") && i + 1 < argc)
			models = argv[++i];
		else if (argv[i][0] == '-' || dir)
			usage();
		else
			dir = argv[i];
	}
	if (!dir)
		usage();
	if (models && models[0] != '/')
		usage(); /* taken after the chdir */
	if (chdir(dir) || (local && make_standins())) {
		perror(dir);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_init(&rng, seed, 0);

	struct file files[] = {
		{.label = "raw entry", .path = VIEW_RAW_FSX, .kind = RAW,
		 .min = RAW_HEAD, .max = RAW_MAX},
		{.label = "scratch file", .path = SCRATCH_NAME, .kind = SCRATCH,
		 .min = 0, .max = SCRATCH_MAX},
		{.label = "clip text", .path = VIEW_TEXT, .kind = TEXT},
	};
	const size_t nfiles = sizeof files / sizeof *files;
	if (write_path(SCRATCH_NAME, "", 0)) {
		perror(SCRATCH_NAME);
		return 2;
	}
	for (size_t i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		if (!(f->model = read_path(f->path, &f->len))) {
			perror(f->path);
			return 2;
		}
		if (f->kind == RAW && (f->len < f->min || f->len > f->max)) {
			fprintf(stderr, "fsx: %s: %zu bytes, not within %zu..%zu\n", f->path, f->len,
				f->min, f->max);
			return 2;
		}
		if (f->kind != TEXT)
			trunc_start(f);
	}

	char what[160];
	for (op_number = 1; op_number <= ops; op_number++) {
		struct file *f = &files[below((uint32_t)nfiles)];
		unsigned before = f->mismatches;
		enum op op = f->kind == TEXT ? text_op(f, what, sizeof what)
					     : byte_op(f, what, sizeof what);
		f->ops++;
		if (verbose)
			printf("    # op %lu, %s: %s\n", op_number, f->label, what);
		verify(f, op, what, f->mismatches != before);
	}
	for (size_t i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		if (f->kind == TEXT)
			continue;
		/* The last close commits: what is there afterwards counts. */
		unsigned before = f->mismatches;
		if (close(f->fd))
			failed_call(f, OP_REOPEN, "the last close", "close");
		reopen(f);
		verify(f, OP_REOPEN, "the last close", f->mismatches != before);
		close(f->fd);
	}
	unlink(SCRATCH_NAME);
	if (models) {
		save_model(models, "raw.bin", &files[0]);
		save_model(models, "text.txt", &files[2]);
	}

	unsigned passed = 0, failed = 0, mismatches = 0;
	for (size_t i = 0; i < nfiles; i++) {
		report(&files[i]);
		files[i].mismatches ? failed++ : passed++;
		mismatches += files[i].mismatches;
		free(files[i].model);
	}
	printf("fsx: seed %llu, %lu operations, %u mismatches\n", seed, ops, mismatches);
	printf("%u passed, %u failed\n", passed, failed);
	return failed != 0;
}
