/* SPDX-License-Identifier: MIT */
/* Archives built from a model for tests/unit/test_store.c: a DATA.BIN's TOC
 * and entries (or a single PAC), its image as the codecs make it
 * (databin_encode, cipher_encrypt), not the store -- the oracle -- and
 * the edits the scenarios apply.  Included once, by that test, after
 * tests/unit/simdir.h. */
#ifndef TESTS_STORE_MODEL_H
#define TESTS_STORE_MODEL_H

#include "cipher.h"
#include "databin.h"
#include "rng.h"
#include "simdir.h"

#define BLK DATABIN_BLOCK

/* ---- archives built from a model --------------------------------------- */

#define COUNT 24 /* entries; MHP3rd stores 17..20 plain in an encrypted archive */

/* An archive's shape: short; long (below); or wide, tens of MiB. */
enum model_shape { MODEL_SHORT, MODEL_LONG, MODEL_WIDE };

/* An entry's blocks: one or two; in a long archive, entry 1 holds most
 * of the archive and entries from 14 on are tens of blocks, so that the
 * tail from 15 is more than a piece of the journal (JOURNAL_FILL_BYTES,
 * its pieces' bounds falling inside entries) and less than half the
 * archive (it is shifted, not rewritten).  In a wide one entries from 3
 * on are 1.4 MB, and 21 (encrypted, after the plain 17..20) 9.6 MB: a
 * rewrite moves them in many runs, one larger than its chunk. */
static uint32_t initial_blocks(uint32_t id, enum model_shape shape)
{
	if (shape == MODEL_LONG && id == 1)
		return 1200;
	if (shape == MODEL_LONG && id >= 14)
		return 53 + 7 * (id % 5);
	if (shape == MODEL_WIDE && id >= 3)
		return id == 21 ? 4700 : 700;
	return id % 5 == 2 ? 2 : 1;
}

static bool has_size_record(uint32_t id)
{
	return id % 3 == 0;
}

struct model {
	bool pac;                  /* a single PAC: entry[0] is the file */
	struct databin db;         /* a DATA.BIN's TOC */
	struct bytes entry[COUNT]; /* each entry as read: its size record's
				      length, else whole blocks */
};

static void random_bytes(struct bytes *b, size_t len, struct rng *r)
{
	uint8_t *p = malloc(len ? len : 1);
	assert_non_null(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)rng_next(r);
	free(b->p);
	b->p = p;
	b->len = len;
}

static void db_copy(struct databin *to, const struct databin *from)
{
	*to = *from;
	to->start = malloc(((size_t)from->count + 1) * sizeof *to->start);
	to->sizes = malloc((from->nsizes ? from->nsizes : 1) * sizeof *to->sizes);
	to->fill = malloc(from->fill_len ? from->fill_len : 1);
	assert_true(to->start && to->sizes && to->fill);
	memcpy(to->start, from->start, ((size_t)from->count + 1) * sizeof *to->start);
	memcpy(to->sizes, from->sizes, from->nsizes * sizeof *to->sizes);
	memcpy(to->fill, from->fill, from->fill_len);
}

static void db_assert_equal(const struct databin *a, const struct databin *b)
{
	assert_int_equal(a->count, b->count);
	assert_memory_equal(a->start, b->start, ((size_t)a->count + 1) * sizeof *a->start);
	assert_int_equal(a->nsizes, b->nsizes);
	for (uint32_t i = 0; i < a->nsizes; i++) {
		assert_int_equal(a->sizes[i].id, b->sizes[i].id);
		assert_int_equal(a->sizes[i].size, b->sizes[i].size);
	}
}

static void model_init_shaped(struct model *m, bool pac, bool encrypted, enum model_shape shape)
{
	struct rng r;
	memset(m, 0, sizeof *m);
	m->pac = pac;
	rng_init(&r, 11, 0);
	if (pac) {
		random_bytes(&m->entry[0], 5000, &r);
		return;
	}
	struct databin *db = &m->db;
	db->count = COUNT;
	db->encrypted = encrypted;
	db->game = GAME_MHP3RD;
	db->start = malloc((COUNT + 1) * sizeof *db->start);
	db->sizes = malloc(COUNT * sizeof *db->sizes);
	assert_true(db->start && db->sizes);
	db->start[0] = 1;
	for (uint32_t i = 0; i < COUNT; i++) {
		db->start[i + 1] = db->start[i] + initial_blocks(i, shape);
		if (has_size_record(i))
			db->sizes[db->nsizes++] = (struct databin_size){
				i, initial_blocks(i, shape) * BLK - rng_range(&r, 1, BLK - 1)};
	}
	db->fill_len = BLK - (COUNT + 1) * 4 - db->nsizes * 8;
	db->fill = calloc(1, db->fill_len);
	assert_non_null(db->fill);
	for (uint32_t i = 0; i < COUNT; i++)
		random_bytes(&m->entry[i], (size_t)databin_entry_size(db, i), &r);
}

static void model_init(struct model *m, bool pac, bool encrypted, bool long_archive)
{
	model_init_shaped(m, pac, encrypted, long_archive ? MODEL_LONG : MODEL_SHORT);
}

static void model_free(struct model *m)
{
	for (int i = 0; i < COUNT; i++)
		bytes_free(&m->entry[i]);
	databin_free(&m->db);
}

static void model_copy(struct model *to, const struct model *from)
{
	memset(to, 0, sizeof *to);
	to->pac = from->pac;
	for (int i = 0; i < COUNT; i++)
		if (from->entry[i].p)
			bytes_set(&to->entry[i], from->entry[i].p, from->entry[i].len);
	if (!from->pac)
		db_copy(&to->db, &from->db);
}

/* The archive file the model describes: its TOC as the codec encodes it,
 * each entry zero-padded to its blocks and, unless stored plain,
 * encrypted under its start block. */
static void model_image(const struct model *m, struct bytes *out)
{
	if (m->pac) {
		bytes_set(out, m->entry[0].p, m->entry[0].len);
		return;
	}
	const struct databin *db = &m->db;
	uint8_t *toc;
	size_t toc_len;
	struct mh_diag d;
	if (databin_encode(db, &toc, &toc_len, &d))
		fail_msg("the model's TOC does not encode: %s", d.msg);
	size_t len = (size_t)db->start[db->count] * BLK;
	uint8_t *p = calloc(1, len);
	assert_non_null(p);
	memcpy(p, toc, toc_len);
	free(toc);
	for (uint32_t i = 0; i < db->count; i++) {
		uint8_t *at = p + databin_entry_offset(db, i);
		memcpy(at, m->entry[i].p, m->entry[i].len);
		if (!databin_entry_plain(db, i))
			cipher_encrypt(db->start[i], 0, at, (size_t)databin_entry_blocks(db, i) * BLK);
	}
	free(out->p);
	out->p = p;
	out->len = len;
}

/* An edit: entry `id` becomes `len` bytes long, `changes` of the bytes it
 * keeps changed (a keyframe edit changes a few), new bytes past its old
 * end. */
struct edit {
	uint32_t id;
	size_t len;
	unsigned changes;
};

static void edited(const struct model *m, const struct edit *e, struct bytes *out)
{
	const struct bytes *old = &m->entry[e->id];
	struct rng r;
	rng_init(&r, 5, e->id);
	random_bytes(out, e->len, &r);
	memcpy(out->p, old->p, old->len < e->len ? old->len : e->len);
	for (unsigned k = 1; k <= e->changes; k++)
		out->p[e->len * k / (e->changes + 1)] ^= 0x5a;
}

/* The model after entry id became `bytes`: later entries move when its
 * block count changes; without a size record it is read as whole blocks. */
static void model_apply(struct model *m, uint32_t id, const struct bytes *bytes)
{
	if (m->pac) {
		bytes_set(&m->entry[0], bytes->p, bytes->len);
		return;
	}
	struct databin *db = &m->db;
	uint32_t blocks = bytes->len ? (uint32_t)((bytes->len + BLK - 1) / BLK) : 1;
	int64_t delta = (int64_t)blocks - databin_entry_blocks(db, id);
	for (uint32_t j = id + 1; j <= db->count; j++)
		db->start[j] = (uint32_t)(db->start[j] + delta);
	long rec = databin_size_index(db, id);
	if (rec >= 0) {
		db->sizes[rec].size = (uint32_t)bytes->len;
		bytes_set(&m->entry[id], bytes->p, bytes->len);
		return;
	}
	uint8_t *p = calloc(1, (size_t)blocks * BLK);
	assert_non_null(p);
	memcpy(p, bytes->p, bytes->len);
	free(m->entry[id].p);
	m->entry[id] = (struct bytes){p, (size_t)blocks * BLK};
}

#endif
