/* SPDX-License-Identifier: MIT */
/* mkarchive: writes a deterministic sample DATA.BIN in the MHFU NA/EU layout
 * (mhfu-archive(5) "DATA.BIN"), for the tests, the demo and the benchmarks,
 * or with --game mhp3rd an MHP3rd one (point 4).
 *
 *  1. Everything derives from --seed: the plan (what each entry holds,
 *     which entries have a size record) from one PRNG stream, each entry's
 *     bytes from a stream of its own keyed by its engine id, so an entry
 *     can be rebuilt at will and is the same every time.
 *  2. The TOC comes first but needs every entry's block count: pass 1
 *     builds each entry to learn its size, pass 2 rebuilds and writes it.
 *     Only one entry is ever in memory.  databin_encode validates the TOC.
 *  3. --out is encrypted as on the UMD (TOC one run seeded with block 0,
 *     each entry one run seeded with its start block, MHFU's plain ids
 *     stored plain); --plain-out is the same layout fully decrypted;
 *     --extract writes what the mount shows: each entry's logical bytes,
 *     each PAC's folder of members (and its model.glb), and index.tsv.
 *  4. --game mhp3rd: MHP3rd's 5955 entries (databin_game_entries), its
 *     plain ids 17-20 and 81-92 PSP modules and movies stored plain, so
 *     the mount tells the game by their magics; small random filler but
 *     for the port donors of MKMODEL_P3RD_PLACES (mkmodels.c), each two
 *     AI overlays then model PAC, geometry and moveset: the Brute Tigrex
 *     (em023, file_05246-05250), the Zinogre (em040, file_05337-05341)
 *     and the identity donor, the MHFU sample's Tigrex of the same seed
 *     as MHP3rd's (em099, file_05498-05502).  `make sample` writes it to
 *     build/sample/p3rd/. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "cipher.h"
#include "databin.h"
#include "kind.h"
#include "anim.h"
#include "pac.h"
#include "skeleton.h"
#include "mkmodels.h"
#include "movesets.h"
#include "rng.h"
#include "curve_svg.h"
#include "entries.h"
#include "gltf.h"
#include "records.h"
#include "rig.h"
#include "names.h"
#include "pmo.h"
#include "pmo_text.h"
#include "views.h"
#include "donor.h"
#include "monsters.h"
#include "port.h"
#include "tmh.h"

#define MAX_ENTRIES 6656u  /* MHFU NA/EU's count, the largest */
#define PAC_NEST 3u        /* nesting levels below a top-level PAC */
#define FILL_MARK_AT 64u   /* past the fill's first pair, where it is visible */
#define OUT_BUFFER (1u << 20) /* stdio buffer of each archive output */
#define TREE_DEPTH 3u      /* PAC member indices the mount shows as a path */
#define PATH_LEN 4096

static const char FILL_MARK[] = "mhfufs sample fill";

/* Prints "mkarchive: message" and exits: 2 for bad usage or I/O, 1 when
 * a codec refuses what we built (a bug here or there). */
static _Noreturn __attribute__((format(printf, 2, 3))) void
fail(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("mkarchive: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(status);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		fail(1, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/* A growable byte buffer: one entry or one PAC member. */
struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* Sets the length to n; bytes past the old length are zero. */
static void buf_resize(struct buf *b, size_t n)
{
	if (n > b->cap) {
		if (!(b->p = realloc(b->p, n)))
			fail(1, "out of memory (%zu bytes)", n);
		b->cap = n;
	}
	if (n > b->len)
		memset(b->p + b->len, 0, n - b->len);
	b->len = n;
}

/* Each power of two in [lo, hi] equally likely, then uniform within it:
 * sizes skew small. */
static uint32_t skewed(struct rng *r, uint32_t lo, uint32_t hi)
{
	unsigned o = rng_range(r, 31u - (unsigned)__builtin_clz(lo),
			       31u - (unsigned)__builtin_clz(hi));
	uint32_t a = (uint32_t)1 << o, b = (uint32_t)(((uint64_t)2 << o) - 1);
	return rng_range(r, a < lo ? lo : a, b > hi ? hi : b);
}

/* A top-level entry's content size.  Small scale (~20 MB): nearly all
 * one block.  Full scale (~500 MB, for benchmarks): 1 KiB .. 4 MiB,
 * mostly small. */
static uint32_t draw_size(struct rng *r, bool full)
{
	unsigned roll = rng_below(r, 100);
	if (!full)
		return roll < 97 ? rng_range(r, 1, 2048) : skewed(r, 2049, 65536);
	if (roll < 80)
		return skewed(r, 1024, 16383);
	return roll < 98 ? skewed(r, 16384, 524287) : skewed(r, 524288, 4194304);
}

/* ---- Entry contents ---- */

/* What the builder of one entry needs to know besides its PRNG. */
struct ctx {
	bool full; /* full scale */
	bool rec;  /* the entry has a size record: its logical size is exact */
};

static const struct {
	const char *bytes;
	size_t len;
} MAGICS[] = {{"pmo\0", 4}, {".TMH0.14", 8}, {"HITS", 4}, {"MWo3", 4}};
#define NMAGICS (sizeof MAGICS / sizeof *MAGICS)

enum content {
	C_BLOB,   /* random bytes that sniff as data */
	C_PLAIN,  /* a module or movie: an entry MHFU stores plain */
	C_PAC,    /* PAC container, maybe nested */
	C_MAGIC0, /* C_MAGIC0 + i: MAGICS[i] then random bytes (a TMH: images) */
};

/* The kind the mount sees in the `size` bytes at p. */
static enum kind sniff(const uint8_t *p, uint64_t size)
{
	return kind_sniff(p, size < KIND_HEAD_MAX ? (size_t)size : KIND_HEAD_MAX, size);
}

/* Random bytes no sniffer mistakes for a format: the first `len` of the
 * `logical` bytes at p (the rest are zero padding), re-rolled until they
 * sniff as data. */
static void random_data(struct rng *r, uint8_t *p, size_t len, uint64_t logical)
{
	do
		rng_bytes(r, p, len);
	while (sniff(p, logical) != KIND_DATA);
}

/* A top-level entry's content length.  Without a record the entry reads
 * as whole blocks: most end inside their last block (the padding shows in
 * the raw view), one in eight fills it exactly. */
static size_t entry_len(struct rng *r, const struct ctx *c)
{
	size_t len = draw_size(r, c->full);
	if (!c->rec && rng_below(r, 8) == 0)
		len = align_up(len, DATABIN_BLOCK);
	return len;
}

static void build_blob(struct rng *r, const struct ctx *c, struct buf *out)
{
	size_t len = entry_len(r, c);
	size_t logical = c->rec ? len : align_up(len, DATABIN_BLOCK);
	buf_resize(out, logical); /* the padding, zero, as the mount sees it */
	random_data(r, out->p, len, logical);
	out->len = len;
}

/* MAGICS[m] then random bytes, `len` in all (at least the magic + 1).  A
 * TMH is a bank of small images instead, of the size they make, drawn
 * from a stream of its own: r makes the draws of the random bytes all the
 * same, so what is built after it stays as it was. */
static void put_magic(struct rng *r, unsigned m, size_t len, struct buf *out)
{
	uint8_t *bank = NULL;
	size_t bank_len = 0;
	char why[256] = "";
	if (!memcmp(MAGICS[m].bytes, TMH_MAGIC, TMH_MAGIC_LEN) &&
	    !(bank = mkmodel_tmh(r, &bank_len, why, sizeof why)))
		fail(1, "internal error: TMH: %s", why);
	if (len <= MAGICS[m].len)
		len = MAGICS[m].len + 1;
	buf_resize(out, len);
	memcpy(out->p, MAGICS[m].bytes, MAGICS[m].len);
	rng_bytes(r, out->p + MAGICS[m].len, len - MAGICS[m].len);
	if (bank) {
		buf_resize(out, bank_len);
		memcpy(out->p, bank, bank_len);
		free(bank);
	}
}

/* What MHFU stores plain: PSP modules (ids 42 and 43) and PSMF movies, so
 * each begins with the magic databin_guess_game looks for first.  A
 * header (the module's name or the movie's version and sizes, zeros
 * between), then records of four small u32, the first being the record's
 * index from 0: the head is mostly zero bytes either way (the statistical
 * fallback of the guess), and the magic rules out a PAC. */
#define PLAIN_HEADER 0x50u

static void build_plain_entry(struct rng *r, const struct ctx *c, uint32_t id,
			      struct buf *out)
{
	uint32_t nrec = rng_range(r, 4, 400), step = rng_range(r, 1, 64);
	size_t len = PLAIN_HEADER + (size_t)nrec * 16;
	if (!c->rec && rng_below(r, 4) == 0)
		len = align_up(len, DATABIN_BLOCK);
	buf_resize(out, len);
	memset(out->p, 0, len);
	if (id < 46) {
		memcpy(out->p, "~PSP", 4);
		put_le16(out->p + 6, 1);     /* compression attributes */
		put_le16(out->p + 8, 0x0101); /* version 1.1 */
		snprintf((char *)out->p + 10, 28, "mhfu_overlay_%u", id);
	} else {
		/* Big-endian offset and size of the stream after the header. */
		uint32_t words[2] = {PLAIN_HEADER, (uint32_t)len - PLAIN_HEADER};
		memcpy(out->p, "PSMF0015", 8);
		for (int w = 0; w < 2; w++)
			for (int k = 0; k < 4; k++)
				out->p[8 + 4 * w + k] = (uint8_t)(words[w] >> (24 - 8 * k));
	}
	for (uint32_t i = 0; i < nrec; i++) {
		uint8_t *p = out->p + PLAIN_HEADER + 16 * (size_t)i;
		put_le32(p, i);
		put_le32(p + 4, i * step);
		put_le32(p + 8, rng_below(r, 16));
		put_le32(p + 12, rng_below(r, 1000));
	}
	if (!databin_plain_magic(out->p, out->len))
		fail(1, "internal error: plain entry %u has no plain magic", id);
}

/* ---- PAC containers ---- */

static void build_pac(struct rng *r, bool full, unsigned depth,
		      bool nest, struct buf *out);

/* Top-level PACs are mostly small, some mid-sized, a few near the
 * 256-entry limit (their table spills past the first block); nested
 * ones stay small. */
static uint32_t pac_count(struct rng *r, unsigned depth)
{
	unsigned roll = rng_below(r, 100);
	if (depth < PAC_NEST || roll < 70)
		return rng_range(r, 1, depth < PAC_NEST ? 6 : 8);
	return roll < 95 ? rng_range(r, 9, 40) : rng_range(r, 100, PAC_MAX_ENTRIES);
}

/* (0,0) entries: sometimes first, sometimes last, now and then between. */
static bool member_empty(struct rng *r, uint32_t i, uint32_t count)
{
	return count > 1 && rng_below(r, i == 0 || i == count - 1 ? 6 : 12) == 0;
}

/* One non-empty member: a nested PAC (forced when `nest`, sometimes
 * otherwise), a magic blob or a random blob of at most `max` bytes. */
static void build_member(struct rng *r, bool full, unsigned depth,
			 bool nest, uint32_t max, struct buf *out)
{
	unsigned roll = rng_below(r, 100);
	size_t len = skewed(r, 1, max);

	if (depth > 0 && (nest || (max > 64 && roll < 8)))
		build_pac(r, full, depth - 1, nest, out);
	else if (roll < 33)
		put_magic(r, rng_below(r, NMAGICS), len, out);
	else {
		buf_resize(out, len);
		random_data(r, out->p, len, len);
	}
}

/* A table of `count` members, at least one non-empty (pac_decode wants
 * one); with `nest`, one of them is a PAC that nests further. */
static void build_members(struct rng *r, bool full, unsigned depth,
			  bool nest, uint32_t count, struct buf *m)
{
	uint32_t max = count > 40 ? 64 : full ? 65536 : 2048, filled = 0;
	uint32_t nested_at = nest && depth > 0 ? rng_below(r, count) : UINT32_MAX;

	for (uint32_t i = 0; i < count; i++)
		if (i == nested_at || !member_empty(r, i, count)) {
			build_member(r, full, depth, i == nested_at, max, &m[i]);
			filled++;
		}
	if (!filled)
		build_member(r, full, depth, false, max, &m[rng_below(r, count)]);
}

/* A PAC with `depth` levels of nesting allowed below it; `nest` forces a
 * chain of PACs all the way down.  Half have a non-empty tail.  (An 8-
 * aligned draw may lay out exactly as a 16-aligned one: it then is one.)
 * pac_decode checks every PAC we make, as databin_encode checks the TOC. */
static void build_pac(struct rng *r, bool full, unsigned depth, bool nest,
		      struct buf *out)
{
	static const uint32_t ALIGNS[] = {16, 8, 4};
	uint32_t align = ALIGNS[rng_below(r, 3)], count = pac_count(r, depth);
	struct buf m[PAC_MAX_ENTRIES] = {{0}};
	struct pac_blob blobs[PAC_MAX_ENTRIES];
	uint8_t tail[64], *bytes;
	size_t len, tail_len = rng_below(r, 2) ? rng_range(r, 1, sizeof tail) : 0;
	struct pac pac;
	struct mh_diag d;

	build_members(r, full, depth, nest, count, m);
	for (uint32_t i = 0; i < count; i++)
		blobs[i] = (struct pac_blob){m[i].p, (uint32_t)m[i].len};
	rng_bytes(r, tail, tail_len);
	tail[0] |= 1; /* a non-empty tail is non-zero */
	if (pac_encode(blobs, count, align, tail, tail_len, &bytes, &len, &d) ||
	    pac_decode(bytes, len, &pac, &d))
		fail(1, "internal error: generated PAC: %s", d.msg);
	pac_free(&pac);
	for (uint32_t i = 0; i < count; i++)
		free(m[i].p);
	free(out->p);
	*out = (struct buf){bytes, len, len};
}

/* ---- The plan ---- */

struct opts {
	uint64_t seed;
	enum databin_game game; /* GAME_MHFU or GAME_MHP3RD */
	bool full; /* --scale full */
	const char *out, *plain_out, *extract; /* NULL: not wanted */
};

/* What each game's sample holds besides its models. */
struct layout {
	enum databin_game game;
	uint32_t entries;    /* the game's count (databin_game_entries) */
	uint32_t size_pairs; /* fixed in the game's executable */
	uint32_t top_pacs;   /* top-level PAC entries */
	uint32_t each_magic; /* entries per known magic */
	const struct mkmodel_place *models;
	size_t nmodels;
};

/* MHFU: 812 pairs, as MHP2G's executable has (later MHFU issues use
 * real ids: 6186 entries).  MHP3rd: filler around the donors, its pair
 * count (not known) the sample's own. */
static struct layout layout_of(enum databin_game game)
{
	if (game == GAME_MHP3RD)
		return (struct layout){game, databin_game_entries(game), 400, 0, 0,
				       MKMODEL_P3RD_PLACES, MKMODEL_P3RD_PLACES_COUNT};
	return (struct layout){GAME_MHFU, databin_game_entries(GAME_MHFU), 812, 300, 36,
			       MKMODEL_PLACES, MKMODEL_PLACES_COUNT};
}

struct plan {
	struct layout l;
	uint8_t content[MAX_ENTRIES]; /* enum content */
	bool rec[MAX_ENTRIES];        /* has a size record */
	uint32_t len[MAX_ENTRIES];    /* content bytes, measured by pass 1 */
};

static bool plain_id(const struct plan *p, uint32_t id)
{
	return databin_game_plain_id(p->l.game, id);
}

/* Exact counts of PACs and magic entries, shuffled over the ids not
 * stored plain; the rest are random blobs. */
static void plan_contents(struct rng *r, struct plan *p)
{
	uint32_t ids[MAX_ENTRIES], n = 0, k = 0;

	for (uint32_t id = 0; id < p->l.entries; id++)
		if (plain_id(p, id))
			p->content[id] = C_PLAIN;
		else
			ids[n++] = id; /* C_BLOB unless drawn below */
	for (uint32_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
		uint32_t j = rng_below(r, i + 1), t = ids[i];
		ids[i] = ids[j];
		ids[j] = t;
	}
	for (uint32_t i = 0; i < p->l.top_pacs; i++)
		p->content[ids[k++]] = C_PAC;
	for (uint32_t i = 0; i < NMAGICS * p->l.each_magic; i++)
		p->content[ids[k++]] = (uint8_t)(C_MAGIC0 + i % NMAGICS);
}

/* Exactly size_pairs records: every third plain id, then a uniform pick
 * among the others (selection sampling: ids come out ascending). */
static void plan_records(struct rng *r, struct plan *p)
{
	uint32_t need = p->l.size_pairs, left = 0;

	for (uint32_t id = 0; id < p->l.entries; id++)
		if (plain_id(p, id))
			need -= id % 3 == 0;
		else
			left++;
	for (uint32_t id = 0; id < p->l.entries; id++) {
		if (plain_id(p, id))
			p->rec[id] = id % 3 == 0;
		else if ((p->rec[id] = rng_below(r, left--) < need))
			need--;
	}
}

/* A model PAC (mkmodels.c) at its real id, in place of what the plan
 * put there. */
static void build_model(uint64_t seed, enum mkmodel model, struct buf *out)
{
	char why[256] = "";
	size_t len;
	uint8_t *p = mkmodel_build(model, seed, &len, why, sizeof why);
	if (!p)
		fail(1, "internal error: model %d: %s", (int)model, why);
	buf_resize(out, len);
	memcpy(out->p, p, len);
	free(p);
}

/* The content of entry `id`: the same bytes every time for a seed. */
static void build_entry(const struct opts *o, const struct plan *p, uint32_t id,
			struct buf *out)
{
	struct rng r;
	struct ctx c = {o->full, p->rec[id]};
	const struct mkmodel_place *model = NULL;

	for (size_t i = 0; i < p->l.nmodels; i++)
		if (p->l.models[i].id == id)
			model = &p->l.models[i];
	rng_init(&r, o->seed, id);
	out->len = 0;
	if (model)
		build_model(o->seed, model->model, out);
	else if (p->content[id] == C_BLOB)
		build_blob(&r, &c, out);
	else if (p->content[id] == C_PLAIN)
		build_plain_entry(&r, &c, id, out);
	else if (p->content[id] == C_PAC) /* one in ten nests PAC_NEST deep */
		build_pac(&r, o->full, PAC_NEST, rng_below(&r, 10) == 0, out);
	else
		put_magic(&r, p->content[id] - C_MAGIC0, entry_len(&r, &c), out);
	if (out->len == 0 || out->len > UINT32_MAX / 2)
		fail(1, "internal error: entry %u has %zu bytes", id, out->len);
}

/* ---- The TOC ---- */

/* The model: starts from the measured lengths, the records, and a fill of
 * zeros with a marker.  A zero first fill pair cannot read as a size pair
 * (its id 0 does not ascend past the last record). */
static void model_toc(const struct plan *p, struct databin *db)
{
	uint32_t entries = p->l.entries;
	size_t used = (entries + 1) * 4 + p->l.size_pairs * 8;
	size_t toc_len = align_up(used, DATABIN_BLOCK);

	*db = (struct databin){.count = entries, .game = p->l.game};
	db->start = xcalloc(entries + 1, sizeof *db->start);
	db->sizes = xcalloc(p->l.size_pairs, sizeof *db->sizes);
	db->start[0] = (uint32_t)(toc_len / DATABIN_BLOCK);
	for (uint32_t id = 0; id < entries; id++) {
		db->start[id + 1] = db->start[id] +
			(uint32_t)(align_up(p->len[id], DATABIN_BLOCK) / DATABIN_BLOCK);
		if (p->rec[id])
			db->sizes[db->nsizes++] = (struct databin_size){id, p->len[id]};
	}
	db->fill_len = toc_len - used;
	db->fill = xcalloc(db->fill_len, 1);
	if (db->fill_len >= FILL_MARK_AT + sizeof FILL_MARK - 1)
		memcpy(db->fill + FILL_MARK_AT, FILL_MARK, sizeof FILL_MARK - 1);
}

/* ---- Output ---- */

/* An output file, optionally through a large stdio buffer; f is NULL when
 * the output was not asked for, and writing to it does nothing. */
struct sink {
	FILE *f;
	char path[PATH_LEN];
	char *buffer;
};

static void sink_open(struct sink *s, const char *path, size_t buffer)
{
	*s = (struct sink){0};
	if (!path)
		return;
	snprintf(s->path, sizeof s->path, "%s", path);
	if (!(s->f = fopen(path, "wb")))
		fail(2, "cannot create %s: %s", path, strerror(errno));
	if (buffer)
		setvbuf(s->f, s->buffer = xcalloc(buffer, 1), _IOFBF, buffer);
}

static void sink_write(struct sink *s, const void *p, size_t n)
{
	if (s->f && fwrite(p, 1, n, s->f) != n)
		fail(2, "cannot write %s: %s", s->path, strerror(errno));
}

static void sink_close(struct sink *s)
{
	if (s->f && (ferror(s->f) | fclose(s->f))) /* fprintf's errors too */
		fail(2, "cannot write %s: %s", s->path, strerror(errno));
	free(s->buffer);
}

/* Formats a path into path[PATH_LEN]; a longer one is an error. */
static __attribute__((format(printf, 2, 3))) void
path_of(char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(path, PATH_LEN, fmt, ap);
	va_end(ap);
	if (n >= PATH_LEN)
		fail(2, "path too long: %s...", path);
}

/* Creates a directory; one that exists will do. */
static void make_dir(const char *dir)
{
	struct stat st;
	if (mkdir(dir, 0777) &&
	    !(errno == EEXIST && !stat(dir, &st) && S_ISDIR(st.st_mode)))
		fail(2, "cannot create directory %s: %s", dir, strerror(errno));
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	struct sink f;
	sink_open(&f, path, 0);
	sink_write(&f, p, n);
	sink_close(&f);
}

/* Writes text the codecs printed, then frees it. */
static void write_text(const char *path, char *text, const size_t *len)
{
	if (!text)
		fail(1, "out of memory printing %s", path);
	write_file(path, (const uint8_t *)text, *len);
	free(text);
}

static void make_link(const char *target, const char *path)
{
	if (symlink(target, path))
		fail(2, "cannot create link %s: %s", path, strerror(errno));
}

/* The map of pack a as the mount makes it (moveset_map); false for a
 * pack that is not MHP3rd's. */
static bool make_map(const struct anim *a, const struct moveset_source *from, struct records *map)
{
	int mapped = moveset_map(a, from, map);
	if (mapped < 0)
		fail(1, "out of memory for a record map");
	return mapped;
}

/* A pack's stream folders: a clip's text and bytes under the slot that
 * first uses it, links from the slots that share it; MHP3rd tracks
 * named by `map` (NULL: MHFU). */
static void extract_streams(const char *dir, const char *label,
			    const struct anim *a, const struct skeleton *rig,
			    const struct records *map)
{
	char path[PATH_LEN], name[32], link[64];
	for (uint32_t s = 0; s < a->nstreams; s++) {
		path_of(path, "%s/stream%u", dir, s);
		make_dir(path);
		for (uint32_t slot = 0; slot < a->streams[s].nslots; slot++) {
			int32_t clip = a->streams[s].slots[slot];
			if (clip < 0)
				continue;
			for (int file = NAMES_SLOT_TXT; file <= NAMES_SLOT_SVG; file++) {
				names_slot(slot, file, name, sizeof name);
				names_slot_link(a, s, slot, file, link, sizeof link);
				path_of(path, "%s/stream%u/%s", dir, s, name);
				size_t len = 0;
				if (link[0]) {
					make_link(link, path);
				} else if (file == NAMES_SLOT_SVG) {
					char *svg = curve_svg_clip_view_mapped(
						a, (uint32_t)clip, label, rig, map, &len);
					write_text(path, svg, &len);
				} else if (file == NAMES_SLOT_BIN) {
					uint8_t *bytes;
					size_t len;
					struct mh_diag d;
					if (clip_encode(a->format, &a->clips[clip], &bytes, &len, &d))
						fail(1, "internal error: %s: %s", path, d.msg);
					write_file(path, bytes, len);
					free(bytes);
				} else {
					char *text = views_clip_text_mapped(
						a, (uint32_t)clip, label, rig, map, &len);
					write_text(path, text, &len);
				}
			}
		}
	}
}

/* An MHFU pack's entries/: each entry a part plays, and index.tsv. */
static void extract_entries(const char *dir, const char *label,
			    const struct anim *a, const struct skeleton *rig)
{
	char path[PATH_LEN];
	size_t len = 0;
	if (!entries_parts(a))
		return;
	path_of(path, "%s/entries", dir);
	make_dir(path);
	path_of(path, "%s/entries/index.tsv", dir);
	write_text(path, entries_index(a, &len), &len);
	for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
		if (!entries_listed(a, e))
			continue;
		path_of(path, "%s/entries/entry%03u.txt", dir, e);
		write_text(path, entries_print(a, e, label, rig, &len), &len);
		path_of(path, "%s/entries/entry%03u.svg", dir, e);
		write_text(path, curve_svg_entry_view(a, e, label, rig, &len), &len);
	}
}

/* A texture bank's folder: imageNN.png per image. */
static void extract_textures(const char *dir, const char *label, const uint8_t *p,
			     size_t size)
{
	char path[PATH_LEN], name[32];
	struct mh_diag d;
	struct tmh t;
	if (tmh_decode(p, size, &t, &d))
		fail(1, "internal error: %s: %s", label, d.msg);
	for (uint32_t i = 0; i < t.count; i++) {
		uint8_t *png;
		size_t len;
		tmh_image_file_name(i, name, sizeof name);
		path_of(path, "%s/%s", dir, name);
		if (tmh_image_png(&t.images[i], &png, &len, &d))
			fail(1, "internal error: %s: %s", path, d.msg);
		write_file(path, png, len);
		free(png);
	}
	tmh_free(&t);
}

/* The bytes an MHP3rd PMO's geometry is in, as the mount pairs them: the
 * entry after the one holding the PMO (NULL, 0: none). */
struct companion {
	const uint8_t *p;
	size_t len;
};

/* PMO m[0..n) decoded into *out, its geometry from c when it keeps it
 * there: whether it decodes. */
static bool decode_pmo(const uint8_t *m, size_t n, const struct companion *c, struct pmo *out)
{
	bool needs = pmo_needs_companion(m, n);
	bool ok = (!needs || c->p) &&
		  pmo_decode(m, n, needs ? c->p : NULL, needs ? c->len : 0, out, NULL) == MH_OK;
	if (!ok) {
		pmo_free(out);
		memset(out, 0, sizeof *out);
	}
	return ok;
}

/* A PMO's folder: mesh.txt, vertices.tsv and materials.tsv, or nothing
 * when it does not decode (the mount's folder is empty then). */
static void extract_pmo(const char *dir, const uint8_t *p, size_t size, const struct companion *c)
{
	char path[PATH_LEN];
	struct pmo pmo;
	size_t len;
	make_dir(dir);
	if (!decode_pmo(p, size, c, &pmo))
		return;
	path_of(path, "%s/mesh.txt", dir);
	write_text(path, pmo_mesh_print(&pmo, &len), &len);
	path_of(path, "%s/vertices.tsv", dir);
	write_text(path, pmo_vertices_print(&pmo, &len), &len);
	path_of(path, "%s/materials.tsv", dir);
	write_text(path, pmo_materials_print(&pmo, &len), &len);
	pmo_free(&pmo);
}

/* The folder the mount shows for a skeleton (skeleton.txt, bind_world.tsv), a pack
 * (pack.txt, records.txt of an MHP3rd one, the streams, entries/) or a texture bank
 * (its images), with the texts and pictures the codecs make: the mount tests'
 * oracle.  `rig` is the skeleton beside a pack, or NULL; `from` what an MHP3rd
 * pack's record map is made from (NULL: no rig). */
static void extract_model(const char *dir, const char *label, enum kind k,
			  const uint8_t *p, size_t size, const struct skeleton *rig,
			  const struct moveset_source *from)
{
	char path[PATH_LEN];
	struct mh_diag d;
	size_t len = 0;
	make_dir(dir);
	if (k == KIND_TMH) {
		extract_textures(dir, label, p, size);
		return;
	}
	if (k == KIND_SKELETON) {
		struct skeleton s;
		if (skeleton_decode(p, size, &s, &d))
			fail(1, "internal error: %s: %s", label, d.msg);
		path_of(path, "%s/skeleton.txt", dir);
		char *text = views_skeleton_text(&s, label, &len);
		write_text(path, text, &len);
		path_of(path, "%s/bind_world.tsv", dir);
		text = rig_bind_world_text(&s, label, &len);
		write_text(path, text, &len);
		skeleton_free(&s);
		return;
	}
	struct anim a;
	if (anim_decode(p, size, CLIP_NONE, &a, &d))
		fail(1, "internal error: %s: %s", label, d.msg);
	path_of(path, "%s/pack.txt", dir);
	char *text = views_pack_text(&a, &len);
	write_text(path, text, &len);
	struct records map;
	bool mapped = make_map(&a, from, &map);
	if (mapped) {
		path_of(path, "%s/records.txt", dir);
		write_text(path, moveset_records_text(&map, label, from, &len), &len);
	}
	extract_streams(dir, label, &a, rig, mapped ? &map : NULL);
	extract_entries(dir, label, &a, rig);
	if (mapped)
		records_free(&map);
	anim_free(&a);
}

/* The bodies a PAC's model.glb shows, as the mount finds them: each PMO
 * member that decodes on its own (at most two), with the PNGs of the
 * first texture bank after it, before the next PMO. */
struct pac_bodies {
	struct pmo pmo[2];
	uint8_t **png[2];
	size_t *png_len[2];
	struct gltf_body body[2];
	size_t n;
};

/* The PNGs of the bank in m[0..n) for body k; none when it does not
 * decode. */
static void bank_pngs(const uint8_t *m, uint32_t n, struct pac_bodies *b, size_t k)
{
	struct tmh t;
	struct mh_diag d;
	if (tmh_decode(m, n, &t, &d) == MH_OK) {
		b->png[k] = calloc(t.count + 1, sizeof *b->png[k]);
		b->png_len[k] = calloc(t.count + 1, sizeof *b->png_len[k]);
		if (!b->png[k] || !b->png_len[k])
			fail(1, "out of memory");
		for (uint32_t im = 0; im < t.count; im++)
			if (tmh_image_png(&t.images[im], &b->png[k][im], &b->png_len[k][im], &d))
				fail(1, "internal error: a texture's PNG: %s", d.msg);
		b->body[k].png = (const uint8_t *const *)b->png[k];
		b->body[k].png_len = b->png_len[k];
		b->body[k].images = t.count;
	}
	tmh_free(&t);
}

static void find_bodies(const struct pac *pac, const uint8_t *p, const struct companion *c,
			struct pac_bodies *b)
{
	memset(b, 0, sizeof *b);
	for (uint32_t i = 0; i < pac->count && b->n < 2; i++) {
		const uint8_t *m = p + pac->entries[i].offset;
		uint32_t n = pac->entries[i].size;
		if (!n || sniff(m, n) != KIND_PMO || !decode_pmo(m, n, c, &b->pmo[b->n]))
			continue;
		size_t k = b->n++;
		b->body[k].pmo = &b->pmo[k];
		for (uint32_t j = i + 1; j < pac->count; j++) {
			const uint8_t *t = p + pac->entries[j].offset;
			uint32_t tn = pac->entries[j].size;
			enum kind kind = tn ? sniff(t, tn) : KIND_DATA;
			if (kind == KIND_PMO)
				break;
			if (kind == KIND_TMH) {
				bank_pngs(t, tn, b, k);
				break;
			}
		}
	}
}

static void free_bodies(struct pac_bodies *b)
{
	for (size_t k = 0; k < b->n; k++) {
		for (uint32_t im = 0; b->png[k] && im < b->body[k].images; im++)
			free(b->png[k][im]);
		free(b->png[k]);
		free(b->png_len[k]);
		pmo_free(&b->pmo[k]);
	}
}

/* A PAC's model.glb: its rig, its bodies and the first pack among its
 * members (when it decodes), else `moveset` (the standalone one of an
 * MHP3rd model PAC, or NULL) with `moveset_from`, as gltf_model_with
 * makes it. */
static void extract_glb(const char *dir, const struct moveset_source *own, const struct pac *pac,
			const uint8_t *p, const struct companion *c, const struct anim *moveset,
			const struct moveset_source *moveset_from)
{
	char path[PATH_LEN];
	struct mh_diag d;
	struct anim a;
	bool have_pack = false;
	for (uint32_t i = 0; own->rig && i < pac->count; i++) {
		const uint8_t *m = p + pac->entries[i].offset;
		uint32_t n = pac->entries[i].size;
		if (n && sniff(m, n) == KIND_ANIM) {
			have_pack = anim_decode(m, n, CLIP_NONE, &a, &d) == MH_OK;
			break;
		}
	}
	/* A static model (no rig) has no motions. */
	const struct anim *pack = have_pack ? &a : own->rig ? moveset : NULL;
	struct records map;
	bool mapped = pack && make_map(pack, have_pack ? own : moveset_from, &map);
	uint8_t *glb;
	size_t len;
	struct pac_bodies bodies;
	find_bodies(pac, p, c, &bodies);
	if (gltf_model_with(own->rig, pack, mapped ? &map : NULL, bodies.body, bodies.n, &glb,
			    &len, &d))
		fail(1, "internal error: %s/model.glb: %s", dir, d.msg);
	free_bodies(&bodies);
	path_of(path, "%s/model.glb", dir);
	write_file(path, glb, len);
	free(glb);
	if (mapped)
		records_free(&map);
	if (have_pack)
		anim_free(&a);
}

static bool has_folder(enum kind k)
{
	return k == KIND_PAC || k == KIND_SKELETON || k == KIND_ANIM || k == KIND_TMH ||
	       k == KIND_PMO;
}

/* A model folder's check.txt: the rules its item breaks, `rig` the
 * skeleton of the PAC holding it, or NULL. */
static void extract_check(const char *dir, const uint8_t *p, size_t size,
			  const struct skeleton *rig)
{
	char path[PATH_LEN];
	size_t len = 0;
	path_of(path, "%s/check.txt", dir);
	write_text(path, views_check_text(p, size, rig, &len), &len);
}

/* The folder the mount shows for a PAC: `i.ext` for each non-empty member
 * and a folder `i/` for a member that is a PAC (while members are
 * addressed by at most TREE_DEPTH indices: deeper PACs are files only), a
 * skeleton, a pack or a texture bank; check.txt when a member is a skeleton or a pack.
 * `label` names the PAC in the views' comments, `outer_rig` is the first
 * skeleton of the PAC holding it, or NULL. */
static void extract_pac(const char *dir, const char *label, const uint8_t *p,
			size_t size, unsigned depth, const struct skeleton *outer_rig,
			const struct companion *c, const struct anim *moveset,
			const struct moveset_source *moveset_from)
{
	bool holds_model = false, has_skeleton = false;
	int first_pmo = -1;
	struct pac pac;
	struct mh_diag d;
	struct skeleton rig;
	bool have_rig = false;
	char path[PATH_LEN], sublabel[PATH_LEN];
	struct moveset_source own = {.monster = RECORDS_NO_MONSTER};

	make_dir(dir);
	if (pac_decode(p, size, &pac, &d))
		fail(1, "internal error: %s: %s", dir, d.msg);
	/* The first skeleton among the members is the packs' rig. */
	for (uint32_t i = 0; i < pac.count && !have_rig; i++) {
		const uint8_t *m = p + pac.entries[i].offset;
		uint32_t n = pac.entries[i].size;
		have_rig = n && sniff(m, n) == KIND_SKELETON &&
			   skeleton_decode(m, n, &rig, &d) == MH_OK;
		if (have_rig)
			snprintf(own.rig_label, sizeof own.rig_label, "%.70s/%u.skeleton", label, i);
	}
	own.rig = have_rig ? &rig : NULL;
	for (uint32_t i = 0; i < pac.count; i++) {
		const uint8_t *m = p + pac.entries[i].offset;
		uint32_t n = pac.entries[i].size;
		if (!n)
			continue; /* an empty (0,0) member has no file */
		enum kind k = sniff(m, n);
		holds_model |= k == KIND_SKELETON || k == KIND_ANIM;
		has_skeleton |= k == KIND_SKELETON;
		if (k == KIND_PMO && first_pmo < 0)
			first_pmo = (int)i;
		path_of(path, "%s/%u%s", dir, i, kind_ext(k));
		write_file(path, m, n);
		if (!has_folder(k) || (k == KIND_PAC && depth <= 1))
			continue;
		path_of(path, "%s/%u", dir, i);
		path_of(sublabel, "%s/%u%s", label, i, k == KIND_PAC ? "" : kind_ext(k));
		if (k == KIND_PAC)
			extract_pac(path, sublabel, m, n, depth - 1, have_rig ? &rig : NULL, c,
				    NULL, NULL);
		else if (k == KIND_PMO)
			extract_pmo(path, m, n, c);
		else
			extract_model(path, sublabel, k, m, n, have_rig ? &rig : NULL, &own);
	}
	if (holds_model)
		extract_check(dir, p, size, outer_rig);
	if (have_rig) {
		extract_glb(dir, &own, &pac, p, c, moveset, moveset_from);
		skeleton_free(&rig);
	} else if (!has_skeleton && first_pmo >= 0) {
		/* A small monster's static model: its first PMO decodes. */
		struct pmo pmo;
		const struct pac_entry *e = &pac.entries[first_pmo];
		if (decode_pmo(p + e->offset, e->size, c, &pmo)) {
			pmo_free(&pmo);
			extract_glb(dir, &own, &pac, p, c, NULL, NULL);
		}
	}
	pac_free(&pac);
}

/* The entries of the archive being written, rebuilt on demand (they
 * are the same every time): what a moveset's map is made from. */
struct source {
	const struct opts *o;
	const struct plan *p;
	const struct databin *db;
};

/* moveset_entry_fn: entry id's bytes as the mount shows them. */
static uint8_t *entry_of(void *ctx, uint32_t id, size_t *len)
{
	const struct source *src = ctx;
	struct buf b = {0};
	if (id >= src->db->count)
		return NULL;
	build_entry(src->o, src->p, id, &b);
	buf_resize(&b, (size_t)databin_entry_size(src->db, id)); /* its padding */
	*len = b.len;
	return b.p;
}

/* The standalone moveset at entry id, decoded into *a, and what its map
 * is made from (the caller frees both); false when it is none. */
static bool moveset_at(const struct source *src, uint32_t id, struct anim *a,
		       struct moveset_source *from)
{
	size_t n;
	uint8_t *p = entry_of((void *)src, id, &n);
	bool ok = p && sniff(p, n) == KIND_ANIM && !anim_decode(p, n, CLIP_NONE, a, NULL);
	free(p);
	*from = (struct moveset_source){.monster = RECORDS_NO_MONSTER};
	if (ok && !moveset_source_of(id, entry_of, (void *)src, from)) {
		anim_free(a);
		return false;
	}
	return ok;
}

/* The first non-empty member of kind k at or after member `from`, -1. */
static int member_of(const struct pac *pac, const uint8_t *p, uint32_t from, enum kind k)
{
	for (uint32_t i = from; i < pac->count; i++)
		if (pac->entries[i].size &&
		    sniff(p + pac->entries[i].offset, pac->entries[i].size) == k)
			return (int)i;
	return -1;
}

/* What the mount adds to a top-level model PAC's folder for ports
 * (mount.mhfu(8) PORTS): an MHP3rd model with its moveset two entries on
 * has donor.pac (codecs/donor.h); an MHFU one holding a pack has port/,
 * whose port.txt and check.txt say that no donor was given yet; `label`
 * names the PAC as they do ("file_06185.pac"). */
static void extract_port_files(const char *dir, const char *label, const struct source *src,
			       uint32_t id, const uint8_t *p, size_t size,
			       const struct companion *c, const struct moveset_source *ms)
{
	char path[PATH_LEN];
	struct pac pac;
	struct skeleton rig;
	struct mh_diag d;
	if (pac_decode(p, size, &pac, &d))
		return;
	int skel = member_of(&pac, p, 0, KIND_SKELETON), pmo = member_of(&pac, p, 0, KIND_PMO);
	int tmh = pmo < 0 ? -1 : member_of(&pac, p, (uint32_t)pmo + 1, KIND_TMH);
	const struct pac_entry *e = pac.entries;
	if (skel < 0 || skeleton_decode(p + e[skel].offset, e[skel].size, &rig, &d)) {
		pac_free(&pac);
		return;
	}
	if (rig.game == SKELETON_MHFU && member_of(&pac, p, 0, KIND_ANIM) >= 0) {
		size_t len = 0;
		struct port_settings none = {.mode = PORT_MODE_HOST};
		path_of(path, "%s/port", dir);
		make_dir(path);
		path_of(path, "%s/port/port.txt", dir);
		write_text(path, port_settings_print(&none, NULL, label, NULL, &len), &len);
		path_of(path, "%s/port/check.txt", dir);
		write_text(path, port_check_unmade(label, NULL, NULL, &len), &len);
	} else if (rig.game == SKELETON_MHP3RD && ms && ms->rig && tmh >= 0) {
		size_t moveset_len, count, len;
		uint8_t *moveset = entry_of((void *)src, id + RECORDS_RIG_BEFORE, &moveset_len), *out;
		const struct monster *m = monsters_of(src->db->game, &count);
		const char *monster_name = NULL;
		for (size_t i = 0; i < count; i++)
			if (m[i].model == id)
				monster_name = m[i].name;
		bool companion = pmo_needs_companion(p + e[pmo].offset, e[pmo].size);
		struct donor_parts parts = {
			.member = {p + e[skel].offset, p + e[pmo].offset, p + e[tmh].offset, moveset,
				   companion ? c->p : NULL},
			.len = {e[skel].size, e[pmo].size, e[tmh].size, moveset_len,
				companion ? c->len : 0},
			.model = id, .monster = ms->monster, .name = monster_name,
		};
		if (!moveset || donor_encode(&parts, &out, &len, &d))
			fail(1, "internal error: %s/donor.pac: %s", dir, moveset ? d.msg : "no moveset");
		path_of(path, "%s/donor.pac", dir);
		write_file(path, out, len);
		free(out);
		free(moveset);
	}
	skeleton_free(&rig);
	pac_free(&pac);
}

/* Writes one entry's logical bytes (p, padded) to DIR/name, its folder if
 * it has one, and its line of the index.  The name is the community's
 * file_NNNNN, NNNNN = engine id - 1, so entry 0 is file_-0001. */
static void extract_entry(const char *dir, struct sink *index, const struct source *src,
			  uint32_t id, const uint8_t *p)
{
	const struct databin *db = src->db;
	uint64_t size = databin_entry_size(db, id);
	enum kind k = sniff(p, size);
	char name[32], path[PATH_LEN], label[64];
	struct moveset_source ms;
	struct anim moveset;
	/* A PAC's or PMO's geometry may be in the next entry (built only
	 * then: building it costs as much as this one). */
	size_t next_len = 0;
	uint8_t *next = k == KIND_PAC || k == KIND_PMO ? entry_of((void *)src, id + 1, &next_len)
						       : NULL;
	const struct companion c = {next, next_len};

	snprintf(name, sizeof name, "file_%05d", (int)id - 1);
	snprintf(label, sizeof label, "%s%s", name, kind_ext(k));
	path_of(path, "%s/%s", dir, name);
	if (k == KIND_PAC) {
		/* An MHP3rd model PAC's model.glb plays its standalone moveset. */
		bool linked = moveset_at(src, id + RECORDS_RIG_BEFORE, &moveset, &ms);
		extract_pac(path, name, p, size, TREE_DEPTH, NULL, &c, linked ? &moveset : NULL, &ms);
		extract_port_files(path, label, src, id, p, size, &c, linked ? &ms : NULL);
		if (linked)
			anim_free(&moveset);
		moveset_source_free(&ms);
	} else if (k == KIND_PMO) {
		extract_pmo(path, p, size, &c);
	} else if (has_folder(k)) {
		if (k == KIND_ANIM)
			moveset_source_of(id, entry_of, (void *)src, &ms);
		extract_model(path, label, k, p, size, NULL, k == KIND_ANIM ? &ms : NULL);
		if (k == KIND_SKELETON || k == KIND_ANIM)
			extract_check(path, p, size, NULL);
		if (k == KIND_ANIM)
			moveset_source_free(&ms);
	}
	path_of(path, "%s/%s", dir, label);
	write_file(path, p, size);
	fprintf(index->f, "%s\t%u\t%u\t%u\t%llu\t%s\t%s\n", label, id, db->start[id],
		databin_entry_blocks(db, id), (unsigned long long)size,
		kind_name(k), plain_id(src->p, id) ? "yes" : "no");
	free(next);
}

/* Pass 2: the TOC, then every entry padded to its blocks, to each output
 * (an output not asked for has a NULL sink that ignores writes). */
static void write_archive(const struct opts *o, const struct plan *p,
			  struct databin *db)
{
	struct sink out, plain, index = {0};
	struct buf b = {0};
	size_t len;
	uint8_t *toc;
	struct mh_diag d;

	sink_open(&out, o->out, OUT_BUFFER);
	sink_open(&plain, o->plain_out, OUT_BUFFER);
	if (o->extract) { /* DIR, then DIR/index.tsv and its header line */
		char path[PATH_LEN];
		make_dir(o->extract);
		path_of(path, "%s/index.tsv", o->extract);
		sink_open(&index, path, 0);
		fprintf(index.f, "# name\tid\tstart\tblocks\tsize\tkind\tplain\n");
	}
	for (int enc = 1; enc >= 0; enc--) { /* the TOC, encrypted and plain */
		db->encrypted = enc;
		if (databin_encode(db, &toc, &len, &d))
			fail(1, "internal error: databin_encode: %s", d.msg);
		sink_write(enc ? &out : &plain, toc, len);
		free(toc);
	}

	for (uint32_t id = 0; id < p->l.entries; id++) {
		build_entry(o, p, id, &b);
		if (b.len != p->len[id])
			fail(1, "internal error: entry %u is not reproducible", id);
		size_t span = (size_t)databin_entry_blocks(db, id) * DATABIN_BLOCK;
		buf_resize(&b, span); /* pad with zeros, in plain */
		sink_write(&plain, b.p, span);
		if (o->extract)
			extract_entry(o->extract, &index, &(struct source){o, p, db}, id, b.p);
		if (!plain_id(p, id)) /* last: it encrypts in place */
			cipher_encrypt(db->start[id], 0, b.p, span);
		sink_write(&out, b.p, span);
	}
	free(b.p);
	sink_close(&index);
	sink_close(&plain);
	sink_close(&out);
}

/* ---- Command line ---- */

static const char USAGE[] =
	"usage: mkarchive [--seed N] [--game G] [--scale small|full] --out DATA.BIN\n"
	"                 [--plain-out PLAIN.BIN] [--extract DIR]\n"
	"Writes a deterministic sample DATA.BIN: MHFU (NA/EU, 6656 entries) or\n"
	"MHP3rd (JP, 5955 entries: filler and three port donors).\n"
	"  --seed N          PRNG seed (default 1); same seed, same bytes\n"
	"  --game G          mhfu (default) or mhp3rd\n"
	"  --scale S         small (~20 MB, default) or full (~500 MB)\n"
	"  --out FILE        the archive encrypted as on the UMD\n"
	"  --plain-out FILE  the same archive fully decrypted\n"
	"  --extract DIR     the tree the mount shows: every entry's bytes,\n"
	"                    PAC folders, and DIR/index.tsv describing them\n"
	"  --help            this text\n";

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option LONG[] = {
		{"seed", required_argument, NULL, 's'},
		{"scale", required_argument, NULL, 'S'},
		{"game", required_argument, NULL, 'g'},
		{"out", required_argument, NULL, 'o'},
		{"plain-out", required_argument, NULL, 'p'},
		{"extract", required_argument, NULL, 'x'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c;
	char *end;

	*o = (struct opts){.seed = 1, .game = GAME_MHFU};
	opterr = 0; /* our own message, below */
	while ((c = getopt_long(argc, argv, "", LONG, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || strchr(optarg, '-'))
				fail(2, "--seed wants an unsigned integer, not '%s'", optarg);
			break;
		case 'S':
			if (strcmp(optarg, "small") && strcmp(optarg, "full"))
				fail(2, "--scale wants small or full, not '%s'", optarg);
			o->full = !strcmp(optarg, "full");
			break;
		case 'g':
			o->game = databin_game_parse(optarg);
			if (o->game != GAME_MHFU && o->game != GAME_MHP3RD)
				fail(2, "--game wants mhfu or mhp3rd, not '%s'", optarg);
			break;
		case 'o': o->out = optarg; break;
		case 'p': o->plain_out = optarg; break;
		case 'x': o->extract = optarg; break;
		case 'h': fputs(USAGE, stdout); exit(0);
		default:
			fail(2, "unknown option or missing value: '%s' (see --help)",
			     argv[optind - 1]);
		}
	}
	if (optind < argc)
		fail(2, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!o->out)
		fail(2, "--out is required (see --help)");
}

int main(int argc, char **argv)
{
	struct opts o;
	struct rng r;
	struct databin db;
	struct plan *p = xcalloc(1, sizeof *p);
	struct buf b = {0};

	parse_args(argc, argv, &o);
	p->l = layout_of(o.game);
	rng_init(&r, o.seed, UINT64_MAX); /* the plan's stream: no entry's id */
	plan_contents(&r, p);
	plan_records(&r, p);
	for (uint32_t id = 0; id < p->l.entries; id++) { /* pass 1: lengths */
		build_entry(&o, p, id, &b);
		p->len[id] = (uint32_t)b.len;
	}
	free(b.p);
	model_toc(p, &db);
	write_archive(&o, p, &db);
	databin_free(&db);
	free(p);
	return 0;
}
