/* SPDX-License-Identifier: MIT */
/* Archives built in memory from a model, for the databin tests: a
 * struct databin filled by hand (model_*), encoded with databin_encode,
 * and its entries filled with table-like data, encrypted unless the
 * model's game stores them plain (build_archive). */
#ifndef MH_TEST_DATABIN_MODEL_H
#define MH_TEST_DATABIN_MODEL_H

#include "cipher.h"
#include "databin.h"
#include "testlib.h"

#define BLK DATABIN_BLOCK

/* A model whose TOC is `toc_blocks` long and whose entry i spans
 * blocks[i] blocks, no size pairs yet, no fill yet. */
static inline void model_init(struct databin *db, uint32_t toc_blocks, uint32_t count,
		       const uint32_t *blocks, bool encrypted)
{
	memset(db, 0, sizeof *db);
	db->count = count;
	db->start = malloc(((size_t)count + 1) * sizeof *db->start);
	assert_non_null(db->start);
	db->start[0] = toc_blocks;
	for (uint32_t i = 0; i < count; i++)
		db->start[i + 1] = db->start[i] + (blocks ? blocks[i] : 1);
	db->encrypted = encrypted;
}

static inline void model_sizes(struct databin *db, uint32_t n,
			const struct databin_size *sizes)
{
	free(db->sizes);
	db->nsizes = n;
	db->sizes = malloc((n ? n : 1) * sizeof *db->sizes);
	assert_non_null(db->sizes);
	if (n)
		memcpy(db->sizes, sizes, n * sizeof *sizes);
}

static inline size_t model_used(const struct databin *db)
{
	return ((size_t)db->count + 1) * 4 + (size_t)db->nsizes * 8;
}

/* Sets the fill to the rest of the TOC, every byte `byte`. */
static inline void model_fill(struct databin *db, uint8_t byte)
{
	size_t toc = (size_t)db->start[0] * BLK;
	assert_true(model_used(db) <= toc);
	free(db->fill);
	db->fill_len = toc - model_used(db);
	db->fill = malloc(db->fill_len ? db->fill_len : 1);
	assert_non_null(db->fill);
	memset(db->fill, byte, db->fill_len);
}

/* The running example: 5 entries of 2, 1, 0, 3, 2 blocks after a 1-block
 * TOC; size pairs for entries 0, 3 and 4; a fill of `fill` bytes. */
static const uint32_t EX_BLOCKS[] = {2, 1, 0, 3, 2};

static const struct databin_size EX_SIZES[] = {{0, 3000}, {3, 5000}, {4, 4096}};

static inline void example_model(struct databin *db, bool encrypted)
{
	model_init(db, 1, 5, EX_BLOCKS, encrypted);
	model_sizes(db, 3, EX_SIZES);
	model_fill(db, 0);
	for (size_t i = 0; i < db->fill_len; i++)
		db->fill[i] = (uint8_t)(i % 7 == 3 ? i : 0);
	db->fill[0] = 0; /* {0, ...} after id 4 never reads as a pair */
}

static inline void assert_models_equal(const struct databin *a, const struct databin *b)
{
	assert_int_equal(a->count, b->count);
	assert_memory_equal(a->start, b->start, ((size_t)a->count + 1) * 4);
	assert_int_equal(a->nsizes, b->nsizes);
	for (uint32_t i = 0; i < a->nsizes; i++) {
		assert_int_equal(a->sizes[i].id, b->sizes[i].id);
		assert_int_equal(a->sizes[i].size, b->sizes[i].size);
	}
	assert_int_equal(a->fill_len, b->fill_len);
	if (a->fill_len)
		assert_memory_equal(a->fill, b->fill, a->fill_len);
	assert_int_equal(a->encrypted, b->encrypted);
}

/* The spec's size-pair rule, written independently of databin.c: ids
 * ascend, the id names an entry, the size falls in its last block. */
static inline bool spec_pair_valid(const struct databin *db, int64_t prev, uint32_t id,
			    uint32_t size)
{
	if ((int64_t)id <= prev || id >= db->count)
		return false;
	int64_t blocks = (int64_t)db->start[id + 1] - db->start[id];
	return (blocks - 1) * (int64_t)BLK < (int64_t)size &&
	       (int64_t)size <= blocks * (int64_t)BLK;
}

static inline uint64_t model_file_size(const struct databin *db)
{
	return (uint64_t)db->start[db->count] * BLK;
}

static inline void encode_ok(const struct databin *db, uint8_t **toc, size_t *len)
{
	struct mh_diag d = {0};
	enum mh_err err = databin_encode(db, toc, len, &d);
	if (err)
		fail_msg("databin_encode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
	assert_int_equal(*len, (size_t)db->start[0] * BLK);
}

/* Fills entry `id`'s plain bytes: structured data, mostly zeros with a
 * few small integers, like the game's tables. */
static inline void structured_content(uint32_t id, uint8_t *p, size_t n)
{
	memset(p, 0, n);
	for (size_t w = 0; w + 4 <= n; w += 4)
		if ((w / 4) % 5 == 0)
			store_le32(p + w, id * 16 + (uint32_t)(w / 4) % 200);
}

/* The whole archive: encoded TOC, then every entry's block span filled
 * with structured data, encrypted with its start block unless the model
 * says the entry is plain (db->game decides which ids are). */
static inline uint8_t *build_archive(const struct databin *db, uint64_t *size)
{
	uint8_t *toc;
	size_t toc_len;
	encode_ok(db, &toc, &toc_len);
	*size = model_file_size(db);
	uint8_t *a = calloc(1, *size);
	assert_non_null(a);
	memcpy(a, toc, toc_len);
	free(toc);
	for (uint32_t id = 0; id < db->count; id++) {
		uint8_t *p = a + databin_entry_offset(db, id);
		size_t span = (size_t)databin_entry_blocks(db, id) * BLK;
		structured_content(id, p, (size_t)databin_entry_size(db, id));
		if (!databin_entry_plain(db, id))
			cipher_encrypt(db->start[id], 0, p, span);
	}
	return a;
}

#endif
