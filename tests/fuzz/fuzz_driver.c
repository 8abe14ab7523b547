/* SPDX-License-Identifier: MIT */
/* A stand-in for libFuzzer's main(), for builds without clang's
 * -fsanitize=fuzzer (the Makefile links it with every tests/fuzz_*.c):
 *
 *   fuzz_X [--runs N] [--seed S] [FILE|DIR ...]
 *
 * replays each FILE (every regular file of each DIR, in name order, so a
 * libFuzzer corpus replays as a regression test), then runs N inputs
 * derived deterministically from S through LLVMFuzzerTestOneInput: pure
 * random bytes, and mutations of small valid structures built here — PAC
 * containers (possibly nested) and DATA.BIN archives with a plain or
 * encrypted TOC — so the decoders get past their first checks.  Prints
 * `fuzz_X: N runs, 0 crashes` at the end.  A crash (abort, fault, or a
 * sanitizer report) saves the input as ./crash-fuzz_X-S-I before dying,
 * and run I of seed S is reproduced by `--seed S --runs I+1`. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cipher.h"
#include "rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Present when built with a sanitizer: called before it exits. */
extern void __sanitizer_set_death_callback(void (*callback)(void))
	__attribute__((weak));

#define BLOCK 2048u
#define INPUT_MAX (64u * BLOCK)

/* ---- the input under test, for the crash handlers ---------------------- */

static struct {
	const char *name;       /* fuzz_X */
	const uint8_t *data;    /* current input */
	size_t size;
	char path[4096];        /* where a crashing input goes, or its file */
	bool from_file;         /* replaying path: nothing to save */
	volatile sig_atomic_t saved;
} cur;

/* Writes a message to stderr with write(2): callable from a signal. */
static void say(const char *a, const char *b)
{
	if (write(2, a, strlen(a)) < 0 || write(2, b, strlen(b)) < 0 ||
	    write(2, "\n", 1) < 0)
		return;
}

/* Saves the current input (unless it came from a file) and says where:
 * runs from a signal handler or a sanitizer's death callback. */
static void save_input(void)
{
	if (cur.saved || !cur.data)
		return;
	cur.saved = 1;
	if (cur.from_file) {
		say("fuzz driver: crashing input: ", cur.path);
		return;
	}
	int fd = open(cur.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		size_t off = 0;
		while (off < cur.size) {
			ssize_t n = write(fd, cur.data + off, cur.size - off);
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		close(fd);
	}
	say("fuzz driver: crashing input saved as ", cur.path);
}

static void on_signal(int sig)
{
	save_input();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void run_one(const uint8_t *data, size_t size)
{
	cur.data = data;
	cur.size = size;
	LLVMFuzzerTestOneInput(data, size);
	cur.data = NULL;
}

/* ---- inputs ------------------------------------------------------------ */

struct buf {
	uint8_t *p;
	size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static size_t align_to(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static void random_bytes(struct rng *r, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng_next(r);
}

static const char *const MAGICS[] = {"pmo", ".TMH0.14", "HITS", "MWo3", "dbsT", "Head "};

/* A valid PAC in out[0 .. room) (starting at out); returns its length
 * (0 if it did not fit).  Members are random bytes, magics, or (while
 * depth lasts) PACs. */
static size_t make_pac(struct rng *r, uint8_t *out, size_t room, unsigned depth)
{
	static const uint32_t ALIGNS[] = {16, 8, 4};
	uint32_t count = rng_below(r, 8) ? 1 + rng_below(r, 8) : 1 + rng_below(r, 256);
	uint32_t align = ALIGNS[rng_below(r, 3)];
	size_t end = 4 + 8 * (size_t)count;
	bool any = false;

	if (end > room)
		return 0;
	memset(out, 0, end);
	put32(out, count);
	for (uint32_t i = 0; i < count; i++) {
		bool empty = (rng_below(r, 4) == 0 && (any || i + 1 < count));
		if (empty)
			continue;
		size_t off = align_to(end, align);
		size_t want = rng_below(r, 4) ? 1 + rng_below(r, 48) : 1 + rng_below(r, 600);
		if (off + want > room) {
			if (any)
				break;
			return 0;
		}
		memset(out + end, 0, off - end);
		size_t got = 0;
		if (depth && rng_below(r, 6) == 0)
			got = make_pac(r, out + off, room - off < 4096 ? room - off : 4096,
				       depth - 1);
		if (!got) {
			got = want;
			random_bytes(r, out + off, got);
			if (rng_below(r, 4) == 0) {
				const char *m = MAGICS[rng_below(r, 6)];
				size_t ml = strlen(m) + (m[0] == 'p');
				memcpy(out + off, m, ml < got ? ml : got);
			}
		}
		put32(out + 4 + 8 * i, (uint32_t)off);
		put32(out + 8 + 8 * i, (uint32_t)got);
		end = off + got;
		any = true;
	}
	size_t tail = rng_below(r, 3) ? 0 : rng_below(r, 40);
	if (end + tail > room)
		tail = room - end;
	if (rng_below(r, 2))
		random_bytes(r, out + end, tail);
	else
		memset(out + end, 0, tail);
	return end + tail;
}

/* Edits n bytes or words of p[0..len): bit flips, random bytes,
 * boundary values, small nudges, copies of another word. */
static void mutate(struct rng *r, uint8_t *p, size_t len, unsigned n)
{
	static const uint32_t INTERESTING[] = {
		0, 1, 2, 3, 4, 7, 8, 12, 16, 17, 0x7f, 0x80, 0xff, 0x100, 0x101,
		0x7ff, 0x800, 0x801, 0xfff, 0x1000, 0x1001, 0x7fffffff, 0x80000000,
		0xfffffffe, 0xffffffff,
	};
	for (unsigned i = 0; i < n && len; i++) {
		size_t at = rng_below(r, (uint32_t)len);
		switch (rng_below(r, 5)) {
		case 0:
			p[at] ^= (uint8_t)(1u << rng_below(r, 8));
			break;
		case 1:
			p[at] = (uint8_t)rng_next(r);
			break;
		case 2:
			at &= ~(size_t)3;
			if (at + 4 <= len)
				put32(p + at, INTERESTING[rng_below(r,
					sizeof INTERESTING / sizeof *INTERESTING)]);
			break;
		case 3:
			at &= ~(size_t)3;
			if (at + 4 <= len) { /* nudge a word up or down a little */
				uint32_t w = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 |
					     (uint32_t)p[at + 2] << 16 |
					     (uint32_t)p[at + 3] << 24;
				put32(p + at, w + rng_below(r, 9) - 4);
			}
			break;
		default: { /* copy a word over another */
			size_t from = rng_below(r, (uint32_t)len) & ~(size_t)3;
			at &= ~(size_t)3;
			if (at + 4 <= len && from + 4 <= len)
				memmove(p + at, p + from, 4);
			break;
		}
		}
	}
}

/* A small DATA.BIN: a TOC of start list, size pairs and fill, then the
 * entries' blocks; when encrypted, the TOC is one run seeded 0 and each
 * entry one run seeded with its start block (a few stay plain, as the
 * games' exception lists do).  The `mutations` edits of the TOC happen
 * before encryption, where they mean something. */
static size_t make_archive(struct rng *r, uint8_t *out, size_t room, unsigned mutations)
{
	uint32_t count = 1 + (rng_below(r, 4) ? rng_below(r, 24) : rng_below(r, 700));
	uint32_t blocks[700], npairs = 0;
	uint32_t ids[700], sizes[700];
	size_t total = 0;

	for (uint32_t i = 0; i < count; i++) {
		if (count > 24) /* many entries: mostly empty, to stay small */
			blocks[i] = rng_below(r, 16) == 0;
		else
			blocks[i] = rng_below(r, 3) ? rng_below(r, 2) : rng_below(r, 4);
		total += blocks[i];
	}
	if (total + 4 > room / BLOCK) { /* too big: only the last has a block */
		memset(blocks, 0, count * sizeof *blocks);
		total = 0;
	}
	if (blocks[count - 1] == 0) {
		blocks[count - 1] = 1;
		total++;
	}
	for (uint32_t i = 0; i < count; i++)
		if (rng_below(r, 3) == 0) {
			ids[npairs] = i;
			sizes[npairs++] = blocks[i] ? (blocks[i] - 1) * BLOCK + 1 +
						      rng_below(r, BLOCK) : 0;
		}
	size_t used = 4 * ((size_t)count + 1) + 8 * (size_t)npairs;
	uint32_t toc_blocks = (uint32_t)align_to(used, BLOCK) / BLOCK + rng_below(r, 2);
	total += toc_blocks;
	if (total * BLOCK > room)
		return 0;

	size_t toc_len = (size_t)toc_blocks * BLOCK;
	memset(out, 0, total * BLOCK);
	uint32_t s = toc_blocks;
	for (uint32_t i = 0; i <= count; i++) {
		put32(out + 4 * (size_t)i, s);
		if (i < count)
			s += blocks[i];
	}
	for (uint32_t i = 0; i < npairs; i++) {
		put32(out + 4 * ((size_t)count + 1) + 8 * (size_t)i, ids[i]);
		put32(out + 4 * ((size_t)count + 1) + 8 * (size_t)i + 4, sizes[i]);
	}
	/* The fill: zeros (a {0, 0} pair never follows a pair), 0xff or
	 * random bytes. */
	switch (rng_below(r, 3)) {
	case 0: break;
	case 1: memset(out + used, 0xff, toc_len - used); break;
	default: random_bytes(r, out + used, toc_len - used); break;
	}
	/* Entries: structured (mostly zeros) or random, sometimes a PAC. */
	s = toc_blocks;
	for (uint32_t i = 0; i < count; s += blocks[i], i++) {
		uint8_t *e = out + (size_t)s * BLOCK;
		size_t n = (size_t)blocks[i] * BLOCK;
		if (!n)
			continue;
		switch (rng_below(r, 3)) {
		case 0: for (size_t w = 0; w < n; w += 16) put32(e + w, (uint32_t)w / 16); break;
		case 1: random_bytes(r, e, n); break;
		default: make_pac(r, e, n, 1); break;
		}
	}
	mutate(r, out, toc_len, mutations);
	if (rng_below(r, 2)) {
		cipher_encrypt(0, 0, out, toc_len);
		s = toc_blocks;
		for (uint32_t i = 0; i < count; s += blocks[i], i++)
			if (rng_below(r, 8)) /* some stay plain, as in the games */
				cipher_encrypt(s, 0, out + (size_t)s * BLOCK,
					       (size_t)blocks[i] * BLOCK);
	}
	return total * BLOCK;
}

/* Input number `run` of seed `seed`, into b (INPUT_MAX bytes). */
static void make_input(uint64_t seed, uint64_t run, struct buf *b)
{
	struct rng r = {seed * 0xd1b54a32d192ed03ull ^ run};
	rng_next(&r);
	unsigned kind = rng_below(&r, 10);
	size_t len = 0;

	if (kind < 2) { /* pure random bytes */
		static const uint32_t MAX[] = {8, 64, 512, 4096, 3 * BLOCK};
		len = rng_below(&r, MAX[rng_below(&r, 5)] + 1);
		random_bytes(&r, b->p, len);
	} else if (kind < 6) { /* a PAC, then mutated */
		len = make_pac(&r, b->p, rng_below(&r, 2) ? 4096 : INPUT_MAX, 3);
		if (rng_below(&r, 3))
			mutate(&r, b->p, len, 1 + rng_below(&r, 6));
	} else { /* a DATA.BIN, its TOC mutated before encryption */
		unsigned m = rng_below(&r, 3) ? 1 + rng_below(&r, 6) : 0;
		len = make_archive(&r, b->p, INPUT_MAX, m);
		if (len && rng_below(&r, 6) == 0)
			mutate(&r, b->p, len < 64 ? len : 64, 1 + rng_below(&r, 3));
	}
	/* Now and then cut short or lengthened. */
	switch (rng_below(&r, 8)) {
	case 0:
		if (len)
			len -= rng_below(&r, (uint32_t)(len < BLOCK ? len : BLOCK)) + 1;
		break;
	case 1: {
		size_t more = rng_below(&r, 64);
		if (len + more <= INPUT_MAX) {
			random_bytes(&r, b->p + len, more);
			len += more;
		}
		break;
	}
	default:
		break;
	}
	b->len = len;
}

/* ---- files ------------------------------------------------------------- */

static bool read_file(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t cap = 4096;
	b->p = malloc(cap);
	b->len = 0;
	while (b->p) {
		b->len += fread(b->p + b->len, 1, cap - b->len, f);
		if (b->len < cap)
			break;
		uint8_t *q = realloc(b->p, cap *= 2);
		if (!q)
			free(b->p);
		b->p = q;
	}
	bool ok = b->p && !ferror(f);
	fclose(f);
	return ok;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned long replay_file(const char *path)
{
	struct buf b;
	if (!read_file(path, &b)) {
		fprintf(stderr, "%s: cannot read %s: %s\n", cur.name, path, strerror(errno));
		exit(2);
	}
	snprintf(cur.path, sizeof cur.path, "%s", path);
	cur.from_file = true;
	run_one(b.p, b.len);
	cur.from_file = false;
	free(b.p);
	return 1;
}

/* Replays a file, or every regular file of a directory in name order. */
static unsigned long replay(const char *path)
{
	DIR *dir = opendir(path);
	if (!dir)
		return replay_file(path);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **q = realloc(names, cap * sizeof *names);
			if (!q)
				abort();
			names = q;
		}
		if (!(names[n++] = strdup(e->d_name)))
			abort();
	}
	closedir(dir);
	qsort(names, n, sizeof *names, cmp_names);
	unsigned long runs = 0;
	for (size_t i = 0; i < n; i++) {
		char full[4096];
		snprintf(full, sizeof full, "%s/%s", path, names[i]);
		DIR *sub = opendir(full);
		if (sub)
			closedir(sub);
		else
			runs += replay_file(full);
		free(names[i]);
	}
	free(names);
	return runs;
}

/* ---- main -------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [--runs N] [--seed S] [FILE|DIR ...]\n"
		   "Replays each FILE (each file of each DIR), then runs N "
		   "generated inputs (default 10000) from seed S (default 1).\n",
		cur.name);
}

static unsigned long long number(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = s ? strtoull(s, &end, 0) : 0;
	if (!s || errno || end == s || *end || strchr(s, '-')) {
		fprintf(stderr, "%s: %s wants a non-negative integer\n", cur.name, opt);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long runs = 10000, seed = 1;
	const char *slash = strrchr(argv[0], '/');
	cur.name = slash ? slash + 1 : argv[0];

	int nfiles = 0;
	char **files = calloc((size_t)argc + 1, sizeof *files);
	if (!files)
		return 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs"))
			runs = number("--runs", i + 1 < argc ? argv[++i] : NULL);
		else if (!strcmp(argv[i], "--seed"))
			seed = number("--seed", i + 1 < argc ? argv[++i] : NULL);
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "%s: unknown option %s\n", cur.name, argv[i]);
			usage(stderr);
			return 2;
		} else
			files[nfiles++] = argv[i];
	}

	/* A sanitizer reports faults itself (and calls us back before it
	 * exits): leave its handlers alone.  abort() is ours to catch. */
	signal(SIGABRT, on_signal);
	if (__sanitizer_set_death_callback) {
		__sanitizer_set_death_callback(save_input);
	} else {
		signal(SIGSEGV, on_signal);
		signal(SIGBUS, on_signal);
		signal(SIGFPE, on_signal);
		signal(SIGILL, on_signal);
	}

	unsigned long long total = 0;
	for (int i = 0; i < nfiles; i++)
		total += replay(files[i]);
	free(files);

	struct buf b = {malloc(INPUT_MAX), 0};
	if (!b.p)
		return 2;
	for (unsigned long long i = 0; i < runs; i++) {
		make_input(seed, i, &b);
		snprintf(cur.path, sizeof cur.path, "crash-%s-%llu-%llu", cur.name, seed, i);
		/* An exact-size copy, so a sanitizer catches reads past the end. */
		uint8_t *in = malloc(b.len ? b.len : 1);
		if (!in)
			return 2;
		memcpy(in, b.p, b.len);
		run_one(in, b.len);
		free(in);
		total++;
	}
	free(b.p);
	printf("%s: %llu runs, 0 crashes\n", cur.name, total);
	return 0;
}
