/* Tests of codecs/databin (mhfu-archive(5) "DATA.BIN").
 *
 * Archives are built in memory from a model (struct databin filled by the
 * helpers below), encoded with databin_encode, then read back with
 * databin_decode and with databin_open through a memory reader.  Every
 * malformed-input case expects the exact error code and diagnostic
 * offset.  Random tests seed their own generator. */
#include "cipher.h"
#include "databin.h"
#include "faults.h"
#include "rng.h"
#include "testlib.h"

#define BLK DATABIN_BLOCK

/* ---- models ----------------------------------------------------------- */

/* A model whose TOC is `toc_blocks` long and whose entry i spans
 * blocks[i] blocks, no size pairs yet, no fill yet. */
static void model_init(struct databin *db, uint32_t toc_blocks, uint32_t count,
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

static void model_sizes(struct databin *db, uint32_t n,
			const struct databin_size *sizes)
{
	free(db->sizes);
	db->nsizes = n;
	db->sizes = malloc((n ? n : 1) * sizeof *db->sizes);
	assert_non_null(db->sizes);
	if (n)
		memcpy(db->sizes, sizes, n * sizeof *sizes);
}

static size_t model_used(const struct databin *db)
{
	return ((size_t)db->count + 1) * 4 + (size_t)db->nsizes * 8;
}

/* Sets the fill to the rest of the TOC, every byte `byte`. */
static void model_fill(struct databin *db, uint8_t byte)
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

static void example_model(struct databin *db, bool encrypted)
{
	model_init(db, 1, 5, EX_BLOCKS, encrypted);
	model_sizes(db, 3, EX_SIZES);
	model_fill(db, 0);
	for (size_t i = 0; i < db->fill_len; i++)
		db->fill[i] = (uint8_t)(i % 7 == 3 ? i : 0);
	db->fill[0] = 0; /* {0, ...} after id 4 never reads as a pair */
}

static void assert_models_equal(const struct databin *a, const struct databin *b)
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
static bool spec_pair_valid(const struct databin *db, int64_t prev, uint32_t id,
			    uint32_t size)
{
	if ((int64_t)id <= prev || id >= db->count)
		return false;
	int64_t blocks = (int64_t)db->start[id + 1] - db->start[id];
	return (blocks - 1) * (int64_t)BLK < (int64_t)size &&
	       (int64_t)size <= blocks * (int64_t)BLK;
}

static uint64_t model_file_size(const struct databin *db)
{
	return (uint64_t)db->start[db->count] * BLK;
}

static void encode_ok(const struct databin *db, uint8_t **toc, size_t *len)
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
static void structured_content(uint32_t id, uint8_t *p, size_t n)
{
	memset(p, 0, n);
	for (size_t w = 0; w + 4 <= n; w += 4)
		if ((w / 4) % 5 == 0)
			store_le32(p + w, id * 16 + (uint32_t)(w / 4) % 200);
}

/* The whole archive: encoded TOC, then every entry's block span filled
 * with structured data, encrypted with its start block unless the model
 * says the entry is plain (db->game decides which ids are). */
static uint8_t *build_archive(const struct databin *db, uint64_t *size)
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

/* ---- decode and encode round trips ------------------------------------ */

static void check_decode_roundtrip(bool encrypted)
{
	struct databin m, got;
	struct mh_diag d = {0};
	uint8_t *toc, *again;
	size_t len, len2;

	example_model(&m, encrypted);
	encode_ok(&m, &toc, &len);
	assert_int_equal(len, BLK);
	assert_int_equal(databin_decode(toc, len, model_file_size(&m),
					encrypted, &got, &d), MH_OK);
	assert_models_equal(&m, &got);
	assert_int_equal(got.game, GAME_UNKNOWN);
	encode_ok(&got, &again, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(toc, again, len);
	free(toc);
	free(again);
	databin_free(&m);
	databin_free(&got);
}

static void test_plain_toc_decodes_to_model_and_reencodes_exactly(void **state)
{
	(void)state;
	check_decode_roundtrip(false);
}

static void test_encrypted_toc_decodes_to_model_and_reencodes_exactly(void **state)
{
	(void)state;
	check_decode_roundtrip(true);
}

static void test_plain_toc_bytes_are_the_start_list_then_pairs(void **state)
{
	(void)state;
	struct databin m;
	uint8_t *toc;
	size_t len;
	example_model(&m, false);
	encode_ok(&m, &toc, &len);
	static const uint32_t words[] = {1, 3, 4, 4, 7, 9, 0, 3000, 3, 5000, 4, 4096};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		assert_int_equal(load_le32(toc + 4 * i), words[i]);
	assert_memory_equal(toc + 48, m.fill, m.fill_len);
	free(toc);
	databin_free(&m);
}

static void test_encrypted_toc_is_plain_toc_run_seeded_0(void **state)
{
	(void)state;
	struct databin p, e;
	uint8_t *pt, *et;
	size_t pl, el;
	example_model(&p, false);
	example_model(&e, true);
	encode_ok(&p, &pt, &pl);
	encode_ok(&e, &et, &el);
	cipher_encrypt(0, 0, pt, pl);
	assert_memory_equal(pt, et, pl);
	free(pt);
	free(et);
	databin_free(&p);
	databin_free(&e);
}

static void test_multi_block_toc_roundtrips(void **state)
{
	(void)state;
	/* 1000 entries need 4004 bytes of start list: a 3-block TOC with
	 * size pairs for every tenth entry. */
	enum { N = 1000 };
	uint32_t blocks[N];
	struct databin_size sizes[N / 10];
	for (uint32_t i = 0; i < N; i++)
		blocks[i] = 1 + i % 3;
	for (uint32_t i = 0; i < N / 10; i++)
		sizes[i] = (struct databin_size){10 * i, (blocks[10 * i] - 1) * BLK + 1 + i};
	for (int enc = 0; enc < 2; enc++) {
		struct databin m, got;
		struct mh_diag d = {0};
		uint8_t *toc, *again;
		size_t len, len2;
		model_init(&m, 3, N, blocks, enc);
		model_sizes(&m, N / 10, sizes);
		model_fill(&m, 0xff);
		encode_ok(&m, &toc, &len);
		assert_int_equal(databin_decode(toc, len, model_file_size(&m),
						enc, &got, &d), MH_OK);
		assert_models_equal(&m, &got);
		encode_ok(&got, &again, &len2);
		assert_memory_equal(toc, again, len);
		free(toc);
		free(again);
		databin_free(&m);
		databin_free(&got);
	}
}

static void test_toc_filled_exactly_has_no_fill(void **state)
{
	(void)state;
	/* 509 entries (510 start words) and one pair (2 words): 512 words,
	 * exactly one block. */
	struct databin m, got;
	struct mh_diag d = {0};
	uint8_t *toc, *again;
	size_t len, len2;
	static const struct databin_size one = {7, 2048};
	model_init(&m, 1, 509, NULL, false);
	model_sizes(&m, 1, &one);
	model_fill(&m, 0);
	assert_int_equal(m.fill_len, 0);
	encode_ok(&m, &toc, &len);
	assert_int_equal(databin_decode(toc, len, model_file_size(&m), false,
					&got, &d), MH_OK);
	assert_models_equal(&m, &got);
	encode_ok(&got, &again, &len2);
	assert_memory_equal(toc, again, len);
	free(toc);
	free(again);
	databin_free(&m);
	databin_free(&got);
}

static void test_fill_shorter_than_a_pair_is_kept_verbatim(void **state)
{
	(void)state;
	/* 510 entries (511 start words) and no pairs leave 4 bytes: too short
	 * for a pair, even one that would be valid ({1, ...}). */
	struct databin m, got;
	struct mh_diag d = {0};
	uint8_t *toc, *again;
	size_t len, len2;
	model_init(&m, 1, 510, NULL, true);
	model_sizes(&m, 0, NULL);
	model_fill(&m, 0);
	assert_int_equal(m.fill_len, 4);
	store_le32(m.fill, 1);
	encode_ok(&m, &toc, &len);
	assert_int_equal(databin_decode(toc, len, model_file_size(&m), true,
					&got, &d), MH_OK);
	assert_models_equal(&m, &got);
	encode_ok(&got, &again, &len2);
	assert_memory_equal(toc, again, len);
	free(toc);
	free(again);
	databin_free(&m);
	databin_free(&got);
}

static void test_zero_block_entry_takes_size_pair_of_zero(void **state)
{
	(void)state;
	/* (blocks-1)*2048 < size <= blocks*2048 with 0 blocks admits size 0. */
	struct databin m, got;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	static const struct databin_size sizes[] = {{2, 0}, {3, 6000}};
	example_model(&m, false);
	model_sizes(&m, 2, sizes);
	model_fill(&m, 0);
	encode_ok(&m, &toc, &len);
	assert_int_equal(databin_decode(toc, len, model_file_size(&m), false,
					&got, &d), MH_OK);
	assert_models_equal(&m, &got);
	assert_int_equal(databin_entry_size(&got, 2), 0);
	free(toc);
	databin_free(&m);
	databin_free(&got);
}

static void test_decode_uses_only_start0_blocks_of_longer_input(void **state)
{
	(void)state;
	/* Handing the decoder the whole archive instead of just the TOC
	 * changes nothing: the TOC is start[0] blocks. */
	struct databin m, got;
	struct mh_diag d = {0};
	uint64_t size;
	example_model(&m, true);
	m.game = GAME_UNKNOWN;
	uint8_t *a = build_archive(&m, &size);
	assert_int_equal(databin_decode(a, (size_t)size, size, true, &got, &d), MH_OK);
	assert_models_equal(&m, &got);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_random_models_roundtrip_through_encode_decode_open(void **state)
{
	(void)state;
	struct rng r = {0xDA7AB1};
	for (int iter = 0; iter < 300; iter++) {
		uint32_t count = 1 + (uint32_t)rng_below(&r, iter % 10 ? 300 : 1500);
		uint32_t *blocks = malloc(count * sizeof *blocks);
		struct databin_size *sizes = malloc(count * sizeof *sizes);
		assert_non_null(blocks);
		assert_non_null(sizes);
		for (uint32_t i = 0; i < count; i++)
			blocks[i] = (uint32_t)rng_below(&r, 5);
		blocks[count - 1] |= 1; /* the last entry reaches the end */
		if (count > 1 && rng_below(&r, 2))
			blocks[0] = 1 + (uint32_t)rng_below(&r, 3);
		uint32_t n = 0;
		int64_t last = -1;
		for (uint32_t i = 0; i < count; i++) {
			if (rng_below(&r, 3))
				continue;
			uint32_t size = blocks[i] == 0 ? 0
				: (blocks[i] - 1) * BLK + 1 + (uint32_t)rng_below(&r, BLK);
			sizes[n++] = (struct databin_size){i, size};
			last = i;
		}
		size_t used = ((size_t)count + 1) * 4 + (size_t)n * 8;
		uint32_t toc_blocks = (uint32_t)((used + BLK - 1) / BLK) +
				      (uint32_t)rng_below(&r, 3);
		bool enc = rng_below(&r, 2);
		struct databin m, got;
		struct mh_diag d = {0};
		uint8_t *toc, *again;
		size_t len, len2;
		model_init(&m, toc_blocks, count, blocks, enc);
		model_sizes(&m, n, sizes);
		model_fill(&m, 0);
		for (size_t i = 0; i < m.fill_len; i++)
			m.fill[i] = rng_below(&r, 3) ? 0 : (uint8_t)rng_next(&r);
		if (m.fill_len >= 8 &&
		    spec_pair_valid(&m, last, load_le32(m.fill), load_le32(m.fill + 4)))
			store_le32(m.fill, 0xffffffff);
		if (m.fill_len >= 8 && rng_below(&r, 4) == 0) {
			/* A fill that would read as a pair: encode refuses. */
			uint32_t id = (uint32_t)(last + 1);
			while (id < count && blocks[id] == 0)
				id++;
			if (id < count) {
				store_le32(m.fill, id);
				store_le32(m.fill + 4, blocks[id] * BLK);
				assert_int_equal(databin_encode(&m, &toc, &len, &d),
						 MH_ERANGE);
				assert_int_equal(d.offset, used);
				assert_null(toc);
				store_le32(m.fill, 0xffffffff);
			}
		}
		encode_ok(&m, &toc, &len);
		assert_int_equal(databin_decode(toc, len, model_file_size(&m),
						enc, &got, &d), MH_OK);
		assert_models_equal(&m, &got);
		encode_ok(&got, &again, &len2);
		assert_memory_equal(toc, again, len);
		databin_free(&got);

		struct mem_archive mem = {toc, len, model_file_size(&m), 0, false};
		if (databin_open(mem_archive_read, &mem, mem.size, &got, &d))
			fail_msg("iteration %d: databin_open: %s", iter, d.msg);
		assert_models_equal(&m, &got);
		databin_free(&got);

		free(toc);
		free(again);
		databin_free(&m);
		free(blocks);
		free(sizes);
	}
}

/* ---- databin_open ----------------------------------------------------- */

static void check_open_detects(bool encrypted)
{
	struct databin m, got;
	struct mh_diag d = {0};
	uint64_t size;
	example_model(&m, encrypted);
	uint8_t *a = build_archive(&m, &size);
	struct mem_archive mem = {a, (size_t)size, size, 0, false};
	assert_int_equal(databin_open(mem_archive_read, &mem, size, &got, &d), MH_OK);
	assert_int_equal(got.encrypted, encrypted);
	assert_models_equal(&m, &got);
	assert_true(mem.reads > 0);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_open_detects_plain_archive(void **state)
{
	(void)state;
	check_open_detects(false);
}

static void test_open_detects_encrypted_archive(void **state)
{
	(void)state;
	check_open_detects(true);
}

static void test_open_reports_reader_failure_as_eio(void **state)
{
	(void)state;
	struct databin m, got;
	struct mh_diag d = {0};
	uint64_t size;
	example_model(&m, true);
	uint8_t *a = build_archive(&m, &size);
	struct mem_archive mem = {a, (size_t)size, size, 0, true};
	enum mh_err err = databin_open(mem_archive_read, &mem, size, &got, &d);
	assert_diag(&d, err, MH_EIO, 0);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_open_rejects_file_smaller_than_a_block(void **state)
{
	(void)state;
	uint8_t buf[BLK] = {1};
	struct databin got;
	struct mh_diag d = {0};
	struct mem_archive mem = {buf, sizeof buf, 0, 0, false};
	/* An empty file: truncated, before its first block. */
	enum mh_err err = databin_open(mem_archive_read, &mem, 0, &got, &d);
	assert_diag(&d, err, MH_ETRUNC, 0);
	assert_null(got.start);
	assert_int_equal(mem.reads, 0);
	/* 1..2047 bytes are first of all not whole blocks. */
	mem.size = 2047;
	err = databin_open(mem_archive_read, &mem, 2047, &got, &d);
	assert_diag(&d, err, MH_ECORRUPT, 2047);
	assert_null(got.start);
	mem.size = 1;
	err = databin_open(mem_archive_read, &mem, 1, &got, &d);
	assert_diag(&d, err, MH_ECORRUPT, 1);
	assert_int_equal(mem.reads, 0);
}

static void test_open_rejects_random_bytes_in_both_readings(void **state)
{
	(void)state;
	struct rng r = {0x0BE2};
	uint8_t *buf = malloc(4 * BLK);
	assert_non_null(buf);
	for (int i = 0; i < 50; i++) {
		for (size_t j = 0; j < 4 * BLK; j++)
			buf[j] = (uint8_t)rng_next(&r);
		struct databin got;
		struct mh_diag d = {0};
		struct mem_archive mem = {buf, 4 * BLK, 4 * BLK, 0, false};
		enum mh_err err = databin_open(mem_archive_read, &mem, 4 * BLK, &got, &d);
		assert_diag(&d, err, MH_ECORRUPT, 0);
		assert_null(got.start);
	}
	free(buf);
}

static void test_open_rejects_size_not_block_multiple(void **state)
{
	(void)state;
	struct databin m, got;
	struct mh_diag d = {0};
	uint64_t size;
	example_model(&m, false);
	uint8_t *a = build_archive(&m, &size);
	struct mem_archive mem = {a, (size_t)size, size + 100, 0, false};
	enum mh_err err = databin_open(mem_archive_read, &mem, size + 100, &got, &d);
	/* The plain reading gets furthest: it fails at the archive's size. */
	assert_diag(&d, err, MH_ECORRUPT, size + 100);
	free(a);
	databin_free(&m);
}

/* ---- entry geometry --------------------------------------------------- */

static void test_entry_offset_blocks_and_size(void **state)
{
	(void)state;
	struct databin m;
	example_model(&m, false);
	static const uint64_t off[] = {1 * BLK, 3 * BLK, 4 * BLK, 4 * BLK, 7 * BLK};
	static const uint64_t size[] = {3000, BLK, 0, 5000, 4096};
	for (uint32_t i = 0; i < 5; i++) {
		assert_int_equal(databin_entry_offset(&m, i), off[i]);
		assert_int_equal(databin_entry_blocks(&m, i), EX_BLOCKS[i]);
		assert_int_equal(databin_entry_size(&m, i), size[i]);
	}
	databin_free(&m);
}

static void test_entry_offset_beyond_4gib(void **state)
{
	(void)state;
	static const uint32_t blocks[] = {0x300000, 5};
	struct databin m;
	model_init(&m, 1, 2, blocks, false);
	assert_int_equal(databin_entry_offset(&m, 1), (uint64_t)0x300001 * BLK);
	assert_int_equal(databin_entry_size(&m, 0), (uint64_t)0x300000 * BLK);
	databin_free(&m);
}

static void test_size_index_finds_pairs_by_id(void **state)
{
	(void)state;
	struct databin m;
	example_model(&m, false);
	assert_int_equal(databin_size_index(&m, 0), 0);
	assert_int_equal(databin_size_index(&m, 3), 1);
	assert_int_equal(databin_size_index(&m, 4), 2);
	assert_int_equal(databin_size_index(&m, 1), -1);
	assert_int_equal(databin_size_index(&m, 2), -1);
	assert_int_equal(databin_size_index(&m, 5), -1);
	assert_int_equal(databin_size_index(&m, UINT32_MAX), -1);
	model_sizes(&m, 0, NULL);
	assert_int_equal(databin_size_index(&m, 0), -1);
	databin_free(&m);
}

static void test_size_index_on_large_table(void **state)
{
	(void)state;
	struct databin m;
	enum { N = 3001 };
	struct databin_size *s = malloc(N * sizeof *s);
	assert_non_null(s);
	for (uint32_t i = 0; i < N; i++)
		s[i] = (struct databin_size){3 * i + 1, 1};
	model_init(&m, 1, 3 * N + 2, NULL, false);
	model_sizes(&m, N, s);
	for (uint32_t id = 0; id < 3 * N + 2; id++)
		assert_int_equal(databin_size_index(&m, id),
				 id % 3 == 1 && id < 3 * N ? (long)(id / 3) : -1);
	free(s);
	databin_free(&m);
}

static void test_entry_plain_follows_archive_and_game(void **state)
{
	(void)state;
	struct databin m;
	model_init(&m, 1, 100, NULL, false);
	for (uint32_t id = 0; id < 100; id++)
		assert_true(databin_entry_plain(&m, id));
	m.encrypted = true;
	m.game = GAME_UNKNOWN;
	for (uint32_t id = 0; id < 100; id++)
		assert_false(databin_entry_plain(&m, id));
	m.game = GAME_MHFU;
	for (uint32_t id = 0; id < 100; id++)
		assert_int_equal(databin_entry_plain(&m, id),
				 id == 42 || id == 43 || (id >= 46 && id <= 62));
	m.game = GAME_MHP2G;
	for (uint32_t id = 0; id < 100; id++)
		assert_int_equal(databin_entry_plain(&m, id),
				 id == 22 || id == 23 || (id >= 26 && id <= 42));
	m.game = GAME_MHP3RD;
	for (uint32_t id = 0; id < 100; id++)
		assert_int_equal(databin_entry_plain(&m, id),
				 (id >= 17 && id <= 20) || (id >= 81 && id <= 92));
	databin_free(&m);
}

static void test_game_plain_id_lists(void **state)
{
	(void)state;
	assert_false(databin_game_plain_id(GAME_UNKNOWN, 42));
	assert_false(databin_game_plain_id(GAME_COUNT, 42));
	assert_false(databin_game_plain_id((enum databin_game)99, 42));
	assert_true(databin_game_plain_id(GAME_MHFU, 62));
	assert_false(databin_game_plain_id(GAME_MHFU, 63));
	assert_false(databin_game_plain_id(GAME_MHFU, 44));
	assert_false(databin_game_plain_id(GAME_MHP2G, 24));
	assert_true(databin_game_plain_id(GAME_MHP3RD, 92));
	assert_false(databin_game_plain_id(GAME_MHP3RD, 21));
}

/* ---- game names -------------------------------------------------------- */

static void test_game_name_print_parse_roundtrip(void **state)
{
	(void)state;
	for (int g = GAME_UNKNOWN + 1; g < GAME_COUNT; g++) {
		const char *name = databin_game_name((enum databin_game)g);
		assert_non_null(name);
		assert_true(strlen(name) > 0);
		assert_int_equal(databin_game_parse(name), g);
	}
	assert_string_equal(databin_game_name(GAME_UNKNOWN), "unknown");
	assert_string_equal(databin_game_name(GAME_COUNT), "unknown");
	assert_string_equal(databin_game_name((enum databin_game)1000), "unknown");
}

static void test_game_parse_aliases_any_case(void **state)
{
	(void)state;
	assert_int_equal(databin_game_parse("mhfu"), GAME_MHFU);
	assert_int_equal(databin_game_parse("MHFU"), GAME_MHFU);
	assert_int_equal(databin_game_parse("mhp2g"), GAME_MHP2G);
	assert_int_equal(databin_game_parse("MhP2G"), GAME_MHP2G);
	assert_int_equal(databin_game_parse("mhp3rd"), GAME_MHP3RD);
	assert_int_equal(databin_game_parse("MHP3RD"), GAME_MHP3RD);
	assert_int_equal(databin_game_parse(""), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("unknown"), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("mhf"), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("mhfu "), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("mhp3"), GAME_UNKNOWN);
}

/* ---- archives cut short ----------------------------------------------- */

/* Opens the first `blocks` blocks of archive `a` as a file of that size. */
static enum mh_err open_cut(const uint8_t *a, uint32_t blocks, struct databin *got,
			    struct mh_diag *d)
{
	struct mem_archive mem = {a, (size_t)blocks * BLK, (uint64_t)blocks * BLK, 0, false};
	return databin_open(mem_archive_read, &mem, mem.size, got, d);
}

/* Cut where entry `id` starts: refused as cut short, naming that entry,
 * its start block, and what the TOC lists. */
static void expect_cut_at_entry(const uint8_t *a, const struct databin *m, uint32_t id)
{
	struct databin got;
	struct mh_diag d = {0};
	char want[160];
	enum mh_err err = open_cut(a, m->start[id], &got, &d);
	if (err == MH_OK) {
		uint32_t count = got.count;
		databin_free(&got);
		fail_msg("cut at entry %u's block %u: opened with %u entries", id,
			 m->start[id], count);
	}
	assert_diag(&d, err, MH_ETRUNC, 4 * (uint64_t)id);
	snprintf(want, sizeof want, "entry %u (file_%05u) starts at block %u, where the file ends",
		 id, id - 1, m->start[id]);
	assert_diag_says(&d, want);
	snprintf(want, sizeof want, "the TOC lists %u entries to block %u", m->count,
		 m->start[m->count]);
	assert_diag_says(&d, want);
	assert_diag_says(&d, "runs past the end of the file");
	assert_null(got.start);
}

static void test_open_refuses_archive_cut_where_an_entry_starts(void **state)
{
	(void)state;
	/* Size pairs after the start list, as in the games' archives; cut at
	 * every entry's start, plain and encrypted. */
	static const uint32_t blocks[] = {2, 1, 3, 1, 1, 2, 4, 1};
	static const struct databin_size sizes[] = {{1, 100}, {2, 5000}, {6, 7000}};
	for (int enc = 0; enc < 2; enc++) {
		struct databin m;
		uint64_t size;
		model_init(&m, 1, 8, blocks, enc);
		model_sizes(&m, 3, sizes);
		model_fill(&m, 0);
		uint8_t *a = build_archive(&m, &size);
		for (uint32_t id = 1; id < m.count; id++)
			expect_cut_at_entry(a, &m, id);
		free(a);
		databin_free(&m);
	}
}

static void test_open_refuses_cut_archive_without_size_pairs(void **state)
{
	(void)state;
	/* No size pairs, a fill of zeros: the start list's words then zeros. */
	struct databin m;
	uint64_t size;
	model_init(&m, 1, 40, NULL, true);
	model_sizes(&m, 0, NULL);
	model_fill(&m, 0);
	uint8_t *a = build_archive(&m, &size);
	expect_cut_at_entry(a, &m, 1);
	expect_cut_at_entry(a, &m, 39);
	free(a);
	databin_free(&m);
}

static void test_open_refuses_cut_after_an_empty_entry(void **state)
{
	(void)state;
	/* The running example: entry 2 has no blocks, so start = 1 3 4 4 7 9;
	 * cut at block 4 the list ends at start[2] and goes on 4 7 9. */
	struct databin m;
	uint64_t size;
	example_model(&m, false);
	uint8_t *a = build_archive(&m, &size);
	expect_cut_at_entry(a, &m, 2);
	free(a);
	databin_free(&m);
}

static void test_open_keeps_whole_archives_whose_fill_ascends(void **state)
{
	(void)state;
	/* No size pairs and a fill of 0xff bytes: the words after the start
	 * list ascend to the TOC's end, which no start list does. */
	struct databin m, got;
	struct mh_diag d = {0};
	uint64_t size;
	model_init(&m, 1, 10, NULL, false);
	model_sizes(&m, 0, NULL);
	model_fill(&m, 0xff);
	uint8_t *a = build_archive(&m, &size);
	struct mem_archive mem = {a, (size_t)size, size, 0, false};
	assert_int_equal(databin_open(mem_archive_read, &mem, size, &got, &d), MH_OK);
	assert_models_equal(&m, &got);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_encode_rejects_fill_that_reads_as_more_starts(void **state)
{
	(void)state;
	/* A fill beginning with words past the end and then zeros would read
	 * back as a start list cut short: the model would not decode. */
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc = (uint8_t *)&d;
	size_t len = 99;
	model_init(&m, 1, 3, NULL, false);
	model_sizes(&m, 0, NULL);
	model_fill(&m, 0);
	store_le32(m.fill, 9);
	store_le32(m.fill + 4, 12);
	enum mh_err err = databin_encode(&m, &toc, &len, &d);
	assert_diag(&d, err, MH_ERANGE, 16);
	assert_null(toc);
	assert_int_equal(len, 0);
	databin_free(&m);
}

/* ---- game guessing ----------------------------------------------------- */

/* An encrypted archive of 100 one-block entries whose entries on
 * `plain_game`'s list are stored plain; the model handed back has its
 * game cleared, as databin_open would leave it. */
static uint8_t *guess_archive(enum databin_game plain_game, uint32_t count,
			      uint64_t *size, struct databin *m)
{
	model_init(m, 1, count, NULL, true);
	model_sizes(m, 0, NULL);
	model_fill(m, 0);
	m->game = plain_game;
	uint8_t *a = build_archive(m, size);
	m->game = GAME_UNKNOWN;
	return a;
}

static enum databin_game open_and_guess(const uint8_t *a, uint64_t size,
					struct databin *got)
{
	struct mh_diag d = {0};
	struct mem_archive mem = {a, (size_t)size, size, 0, false};
	assert_int_equal(databin_open(mem_archive_read, &mem, size, got, &d), MH_OK);
	assert_true(got->encrypted);
	assert_int_equal(got->game, GAME_UNKNOWN);
	enum databin_game g = databin_guess_game(got, mem_archive_read, &mem);
	assert_int_equal(got->game, g);
	return g;
}

static void test_guess_game_mhfu_from_plain_entries_42_43_46_to_62(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_MHFU, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_MHFU);
	assert_true(databin_entry_plain(&got, 50));
	assert_false(databin_entry_plain(&got, 30));
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_guess_game_mhp2g_from_plain_entries_22_23_26_to_42(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_MHP2G, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_MHP2G);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_guess_game_mhp3rd_from_plain_entries(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_MHP3RD, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_MHP3RD);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_guess_game_unknown_when_every_entry_is_encrypted(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_UNKNOWN, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_UNKNOWN);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

/* What each of 100 one-block entries holds, as stored. */
enum held { HELD_ENCRYPTED, HELD_TABLE, HELD_NOISE, HELD_MODULE, HELD_MOVIE };

/* An encrypted archive of 100 one-block entries: HELD_ENCRYPTED entries a
 * structured table stored encrypted; the others stored plain, a table
 * (mostly zeros), noise (no more zeros than its decryption), or noise
 * behind a PSP module's or a PSMF movie's magic. */
static uint8_t *held_archive(const enum held *held, uint64_t *size, struct databin *m)
{
	struct rng r = {0x5EED};
	model_init(m, 1, 100, NULL, true);
	model_sizes(m, 0, NULL);
	model_fill(m, 0);
	*size = model_file_size(m);
	uint8_t *toc, *a = calloc(1, *size);
	size_t len;
	assert_non_null(a);
	encode_ok(m, &toc, &len);
	memcpy(a, toc, len);
	free(toc);
	for (uint32_t id = 0; id < m->count; id++) {
		uint8_t *p = a + databin_entry_offset(m, id);
		if (held[id] == HELD_ENCRYPTED || held[id] == HELD_TABLE)
			structured_content(id, p, BLK);
		else
			for (size_t i = 0; i < BLK; i++)
				p[i] = (uint8_t)(1 + rng_below(&r, 255));
		if (held[id] == HELD_MODULE)
			memcpy(p, id % 2 ? "~PSP" : "\x7f" "ELF", 4);
		if (held[id] == HELD_MOVIE)
			memcpy(p, "PSMF", 4);
		if (held[id] == HELD_ENCRYPTED)
			cipher_encrypt(m->start[id], 0, p, BLK);
	}
	return a;
}

/* Marks `game`'s plain ids in held[] as `what`. */
static void hold_game(enum held *held, enum databin_game game, enum held what)
{
	for (uint32_t id = 0; id < 100; id++)
		if (databin_game_plain_id(game, id))
			held[id] = what;
}

static struct databin_game_clue tell(const enum held *held)
{
	struct databin m, got;
	struct mh_diag d = {0};
	struct databin_game_clue clue;
	uint64_t size;
	uint8_t *a = held_archive(held, &size, &m);
	struct mem_archive mem = {a, (size_t)size, size, 0, false};
	assert_int_equal(databin_open(mem_archive_read, &mem, size, &got, &d), MH_OK);
	assert_true(got.encrypted);
	databin_tell_game(&got, mem_archive_read, &mem, &clue);
	assert_int_equal(got.game, GAME_UNKNOWN); /* left alone */
	assert_int_equal(databin_guess_game(&got, mem_archive_read, &mem), clue.game);
	assert_int_equal(got.game, clue.game);
	free(a);
	databin_free(&m);
	databin_free(&got);
	return clue;
}

static void test_guess_game_by_magic_when_plain_entries_read_as_noise(void **state)
{
	(void)state;
	/* Modules and movies are compressed or encrypted by Sony: as many
	 * zeros stored as decrypted, so no statistics; the magics tell. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHFU, HELD_MOVIE);
	held[42] = held[43] = HELD_MODULE;
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_MHFU);
	assert_int_equal(clue.how, CLUE_MAGIC);
	/* 42 is on MHP2G's list too: 43 is the witness. */
	assert_int_equal(clue.id, 43);
	assert_string_equal(clue.what, "a PSP module (~PSP)");

	memset(held, 0, sizeof held);
	hold_game(held, GAME_MHP3RD, HELD_MODULE);
	clue = tell(held);
	assert_int_equal(clue.game, GAME_MHP3RD);
	assert_int_equal(clue.how, CLUE_MAGIC);
	assert_int_equal(clue.id, 17);
	assert_string_equal(clue.what, "a PSP module (~PSP)");
}

static void test_guess_game_magics_come_before_statistics(void **state)
{
	(void)state;
	/* MHP2G's entries read as plain tables, MHFU's hold movies: the
	 * movies are the stronger evidence. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHP2G, HELD_TABLE);
	hold_game(held, GAME_MHFU, HELD_MOVIE);
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_MHFU);
	assert_int_equal(clue.how, CLUE_MAGIC);
	assert_string_equal(clue.what, "a PSMF movie");
}

static void test_guess_game_magic_tie_falls_back_to_statistics(void **state)
{
	(void)state;
	/* One movie at 42, on both MHFU's and MHP2G's lists: a tie.  The
	 * statistics then decide: MHP2G's other entries read as tables. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHP2G, HELD_TABLE);
	held[42] = HELD_MOVIE;
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_MHP2G);
	assert_int_equal(clue.how, CLUE_STATISTICS);

	/* Nothing else plain: nothing tells. */
	memset(held, 0, sizeof held);
	held[42] = HELD_MOVIE;
	clue = tell(held);
	assert_int_equal(clue.game, GAME_UNKNOWN);
	assert_int_equal(clue.how, CLUE_NONE);
}

static void test_guess_game_unknown_when_plain_entries_read_as_noise(void **state)
{
	(void)state;
	/* Stored plain but neither a known magic nor structured data. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHFU, HELD_NOISE);
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_UNKNOWN);
	assert_int_equal(clue.how, CLUE_NONE);
}

static void test_plain_magic_names_what_an_entry_begins_with(void **state)
{
	(void)state;
	assert_string_equal(databin_plain_magic((const uint8_t *)"~PSP\0\0", 6),
			    "a PSP module (~PSP)");
	assert_string_equal(databin_plain_magic((const uint8_t *)"\x7f" "ELF", 4),
			    "a PSP module (ELF)");
	assert_string_equal(databin_plain_magic((const uint8_t *)"PSMF0015", 8),
			    "a PSMF movie");
	assert_string_equal(databin_plain_magic((const uint8_t *)"RIFF", 4), "a RIFF sound");
	assert_null(databin_plain_magic((const uint8_t *)"~PS", 3));
	assert_null(databin_plain_magic((const uint8_t *)"pmo\0", 4));
	assert_null(databin_plain_magic((const uint8_t *)"psmf", 4));
}

static void test_guess_game_plain_archive_by_entry_count(void **state)
{
	(void)state;
	static const struct {
		uint32_t count;
		enum databin_game game;
	} cases[] = {{6656, GAME_MHFU}, {6602, GAME_MHP2G}, {5955, GAME_MHP3RD},
		     {6000, GAME_UNKNOWN}};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct databin m, got;
		struct mh_diag d = {0};
		uint8_t *toc;
		size_t len;
		/* Only the last entry has a block: the archive stays small. */
		uint32_t *blocks = calloc(cases[c].count, sizeof *blocks);
		assert_non_null(blocks);
		blocks[cases[c].count - 1] = 1;
		model_init(&m, 14, cases[c].count, blocks, false);
		model_sizes(&m, 0, NULL);
		model_fill(&m, 0xff);
		encode_ok(&m, &toc, &len);
		struct mem_archive mem = {toc, len, model_file_size(&m), 0, false};
		assert_int_equal(databin_open(mem_archive_read, &mem, mem.size, &got, &d), MH_OK);
		assert_false(got.encrypted);
		assert_int_equal(databin_guess_game(&got, mem_archive_read, &mem), cases[c].game);
		assert_int_equal(got.game, cases[c].game);
		free(toc);
		free(blocks);
		databin_free(&m);
		databin_free(&got);
	}
}

/* ---- malformed input: exact codes and offsets -------------------------- */

/* A one-block plain TOC whose words are `w` then zeros. */
static void raw_toc(uint8_t *toc, size_t len, const uint32_t *w, size_t n)
{
	memset(toc, 0, len);
	for (size_t i = 0; i < n; i++)
		store_le32(toc + 4 * i, w[i]);
}

static void expect_decode_error(const uint8_t *toc, size_t len, uint64_t file_size,
				bool encrypted, enum mh_err code, uint64_t offset)
{
	struct databin got;
	struct mh_diag d = {0};
	memset(&got, 0xa5, sizeof got);
	enum mh_err err = databin_decode(toc, len, file_size, encrypted, &got, &d);
	assert_diag(&d, err, code, offset);
	/* A failed decode leaves an empty model: nothing to free. */
	assert_null(got.start);
	assert_null(got.sizes);
	assert_null(got.fill);
	assert_int_equal(got.count, 0);
	/* The same failure without a diagnostic record. */
	assert_int_equal(databin_decode(toc, len, file_size, encrypted, &got, NULL),
			 code);
}

static void test_decode_rejects_file_size_not_block_multiple(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	static const uint32_t w[] = {1, 2, 3};
	raw_toc(toc, sizeof toc, w, 3);
	expect_decode_error(toc, sizeof toc, 3 * BLK + 1, false, MH_ECORRUPT, 3 * BLK + 1);
	expect_decode_error(toc, sizeof toc, 3 * BLK - 1, false, MH_ECORRUPT, 3 * BLK - 1);
}

static void test_decode_rejects_empty_file(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	static const uint32_t w[] = {1, 2, 3};
	raw_toc(toc, sizeof toc, w, 3);
	expect_decode_error(toc, sizeof toc, 0, false, MH_ECORRUPT, 0);
}

static void test_decode_rejects_toc_shorter_than_a_word(void **state)
{
	(void)state;
	uint8_t toc[3] = {1, 0, 0};
	expect_decode_error(toc, 3, 3 * BLK, false, MH_ETRUNC, 0);
	expect_decode_error(toc, 0, 3 * BLK, false, MH_ETRUNC, 0);
}

static void test_decode_rejects_start0_zero(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	static const uint32_t w[] = {0, 2, 3};
	raw_toc(toc, sizeof toc, w, 3);
	expect_decode_error(toc, sizeof toc, 3 * BLK, false, MH_ECORRUPT, 0);
	/* Encrypted: word 0 decrypts to 0. */
	cipher_encrypt(0, 0, toc, sizeof toc);
	expect_decode_error(toc, sizeof toc, 3 * BLK, true, MH_ECORRUPT, 0);
}

static void test_decode_rejects_start0_beyond_file(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	static const uint32_t w[] = {5, 6, 7};
	raw_toc(toc, sizeof toc, w, 3);
	expect_decode_error(toc, sizeof toc, 4 * BLK, false, MH_ECORRUPT, 0);
}

static void test_decode_rejects_toc_longer_than_max(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	uint32_t w[] = {DATABIN_MAX_TOC_BLOCKS + 1, DATABIN_MAX_TOC_BLOCKS + 2};
	raw_toc(toc, sizeof toc, w, 2);
	expect_decode_error(toc, sizeof toc,
			    (uint64_t)(DATABIN_MAX_TOC_BLOCKS + 2) * BLK, false,
			    MH_ECORRUPT, 0);
}

static void test_decode_rejects_archive_without_entries(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	static const uint32_t w[] = {1};
	raw_toc(toc, sizeof toc, w, 1);
	expect_decode_error(toc, sizeof toc, BLK, false, MH_ECORRUPT, 0);
}

static void test_decode_rejects_descending_start_list(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	static const uint32_t w[] = {1, 3, 5, 4, 8};
	raw_toc(toc, sizeof toc, w, 5);
	expect_decode_error(toc, sizeof toc, 8 * BLK, false, MH_ECORRUPT, 12);
	cipher_encrypt(0, 0, toc, sizeof toc);
	expect_decode_error(toc, sizeof toc, 8 * BLK, true, MH_ECORRUPT, 12);
}

static void test_decode_rejects_start_past_total(void **state)
{
	(void)state;
	uint8_t toc[BLK];
	static const uint32_t w[] = {1, 2, 3, 9, 10};
	raw_toc(toc, sizeof toc, w, 5);
	expect_decode_error(toc, sizeof toc, 8 * BLK, false, MH_ECORRUPT, 12);
}

static void test_decode_rejects_start_list_not_terminated_in_toc(void **state)
{
	(void)state;
	/* Every word ascends (or stays) but none reaches the 9 blocks. */
	uint8_t toc[2 * BLK];
	for (size_t i = 0; i < sizeof toc / 4; i++)
		store_le32(toc + 4 * i, i == 0 ? 2 : 2 + (uint32_t)(i * 6 / (sizeof toc / 4)));
	expect_decode_error(toc, sizeof toc, 9 * BLK, false, MH_ECORRUPT, 2 * BLK);
	cipher_encrypt(0, 0, toc, sizeof toc);
	expect_decode_error(toc, sizeof toc, 9 * BLK, true, MH_ECORRUPT, 2 * BLK);
}

static void test_decode_rejects_truncated_toc(void **state)
{
	(void)state;
	/* start[0] = 3 blocks, but only 2 blocks + 100 bytes given. */
	uint8_t toc[3 * BLK];
	static const uint32_t w[] = {3, 4, 6};
	raw_toc(toc, sizeof toc, w, 3);
	expect_decode_error(toc, 2 * BLK + 100, 6 * BLK, false, MH_ETRUNC, 2 * BLK + 100);
	expect_decode_error(toc, 4, 6 * BLK, false, MH_ETRUNC, 4);
}

static void test_encode_rejects_size_pair_outside_last_block(void **state)
{
	(void)state;
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc = (uint8_t *)&d; /* must be reset to NULL */
	size_t len = 99;
	/* Entry 3 has 3 blocks: 4096 is in its second block. */
	static const struct databin_size bad[] = {{0, 3000}, {3, 4096}};
	example_model(&m, false);
	model_sizes(&m, 2, bad);
	model_fill(&m, 0);
	enum mh_err err = databin_encode(&m, &toc, &len, &d);
	assert_diag(&d, err, MH_ERANGE, 6 * 4 + 8 * 1);
	assert_null(toc);
	assert_int_equal(len, 0);
	/* Past the last block. */
	static const struct databin_size big[] = {{1, 2049}};
	model_sizes(&m, 1, big);
	model_fill(&m, 0);
	err = databin_encode(&m, &toc, &len, &d);
	assert_diag(&d, err, MH_ERANGE, 6 * 4);
	/* A size 0 for a one-block entry. */
	static const struct databin_size zero[] = {{0, 3000}, {1, 0}};
	model_sizes(&m, 2, zero);
	model_fill(&m, 0);
	err = databin_encode(&m, &toc, &len, &d);
	assert_diag(&d, err, MH_ERANGE, 6 * 4 + 8);
	databin_free(&m);
}

static void test_encode_rejects_size_pairs_out_of_order(void **state)
{
	(void)state;
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	static const struct databin_size bad[] = {{3, 5000}, {0, 3000}};
	example_model(&m, true);
	model_sizes(&m, 2, bad);
	model_fill(&m, 0);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 6 * 4 + 8);
	static const struct databin_size dup[] = {{3, 5000}, {3, 5000}};
	model_sizes(&m, 2, dup);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 6 * 4 + 8);
	static const struct databin_size past[] = {{5, 1}};
	model_sizes(&m, 1, past);
	model_fill(&m, 0);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 6 * 4);
	databin_free(&m);
}

static void test_encode_rejects_fill_that_reads_as_a_pair(void **state)
{
	(void)state;
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	static const struct databin_size two[] = {{0, 3000}, {1, 100}};
	example_model(&m, false);
	model_sizes(&m, 2, two);
	model_fill(&m, 0);
	/* {4, 4000} would be accepted after id 1: entry 4 has 2 blocks. */
	store_le32(m.fill, 4);
	store_le32(m.fill + 4, 4000);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 6 * 4 + 16);
	assert_null(toc);
	/* With no pairs at all, a fill starting {0, 3000} is a pair too. */
	model_sizes(&m, 0, NULL);
	model_fill(&m, 0);
	store_le32(m.fill, 0);
	store_le32(m.fill + 4, 3000);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 6 * 4);
	/* But {4, 2048} is not (entry 4's last block is (2048, 4096]). */
	store_le32(m.fill, 4);
	store_le32(m.fill + 4, 2048);
	assert_int_equal(databin_encode(&m, &toc, &len, &d), MH_OK);
	free(toc);
	databin_free(&m);
}

static void test_encode_rejects_fill_not_completing_toc(void **state)
{
	(void)state;
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	example_model(&m, false);
	m.fill_len--;
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 0);
	m.fill_len += 2;
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 0);
	m.fill_len--;
	/* A start list and pairs that outgrow the TOC's blocks. */
	struct databin big;
	model_init(&big, 1, 600, NULL, false);
	big.fill = malloc(1);
	big.fill_len = 0;
	assert_diag(&d, databin_encode(&big, &toc, &len, &d), MH_ERANGE, 0);
	databin_free(&big);
	databin_free(&m);
}

static void test_encode_rejects_descending_or_early_ending_starts(void **state)
{
	(void)state;
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	example_model(&m, false);
	m.start[2] = 2; /* below start[1] = 3 */
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 8);
	m.start[2] = 9; /* equal to start[5], the end, before the end */
	m.start[3] = 9;
	m.start[4] = 9;
	m.nsizes = 0;
	free(m.fill);
	m.fill = NULL;
	model_fill(&m, 0xff);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 8);
	databin_free(&m);
}

static void test_encode_rejects_no_entries_and_bad_toc_length(void **state)
{
	(void)state;
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	memset(&m, 0, sizeof m);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 0);
	static const uint32_t blocks[] = {1};
	model_init(&m, 0, 1, blocks, false);
	model_sizes(&m, 0, NULL);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 0);
	databin_free(&m);
	model_init(&m, DATABIN_MAX_TOC_BLOCKS + 1, 1, blocks, false);
	model_sizes(&m, 0, NULL);
	model_fill(&m, 0xff);
	assert_diag(&d, databin_encode(&m, &toc, &len, &d), MH_ERANGE, 0);
	databin_free(&m);
}

static void test_encode_rejects_lone_entry_starting_at_archive_end(void **state)
{
	(void)state;
	/* One entry of 0 blocks right after a 1-block TOC: start = {1, 1}.
	 * Decoding such a TOC stops at start[0] == the archive's 1 block and
	 * finds no entries, so the model does not decode back to itself and
	 * databin_encode's contract says it must fail with MH_ERANGE.  (With
	 * two or more entries the early-end check catches the same shape.) */
	static const uint32_t blocks[] = {0};
	struct databin m, got;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	model_init(&m, 1, 1, blocks, false);
	model_sizes(&m, 0, NULL);
	model_fill(&m, 0xff);
	enum mh_err err = databin_encode(&m, &toc, &len, &d);
	if (err == MH_OK) {
		enum mh_err back = databin_decode(toc, len, model_file_size(&m),
						  false, &got, &d);
		free(toc);
		databin_free(&m);
		databin_free(&got);
		fail_msg("databin_encode accepted start = {1, 1}, which decodes "
			 "as %s: %s", mh_strerror(back), d.msg);
	}
	assert_diag(&d, err, MH_ERANGE, d.offset);
	databin_free(&m);
}

/* ---- allocation failures ---------------------------------------------- */

/* For k = 0, 1, 2...: databin_decode with allocation k failing must end
 * in MH_ENOMEM with an empty model and nothing leaked, until k passes
 * the last allocation and the decode succeeds. */
static void test_decode_survives_every_allocation_failure(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	for (int enc = 0; enc < 2; enc++) {
		struct databin m;
		uint8_t *toc;
		size_t len;
		example_model(&m, enc);
		encode_ok(&m, &toc, &len);
		long k = 0;
		for (;; k++) {
			struct databin got;
			struct mh_diag d = {0};
			long live = faults_live;
			faults_arm(k);
			enum mh_err err = databin_decode(toc, len, model_file_size(&m),
							 enc, &got, &d);
			bool fired = faults_disarm();
			if (!fired) {
				assert_int_equal(err, MH_OK);
				assert_models_equal(&m, &got);
				databin_free(&got);
				assert_int_equal(faults_live, live);
				break;
			}
			assert_diag(&d, err, MH_ENOMEM, d.offset);
			assert_null(got.start);
			assert_null(got.sizes);
			assert_null(got.fill);
			assert_int_equal(faults_live, live);
		}
		assert_true(k >= 3); /* start list, size table, fill (and the TOC copy) */
		free(toc);
		databin_free(&m);
	}
}

static void test_encode_survives_allocation_failure(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct databin m;
	struct mh_diag d = {0};
	uint8_t *toc = NULL;
	size_t len = 1;
	example_model(&m, true);
	long live = faults_live;
	faults_arm(0);
	enum mh_err err = databin_encode(&m, &toc, &len, &d);
	assert_true(faults_disarm());
	assert_diag(&d, err, MH_ENOMEM, d.offset);
	assert_null(toc);
	assert_int_equal(len, 0);
	assert_int_equal(faults_live, live);
	databin_free(&m);
}

/* databin_open through every allocation failure, with or without a
 * diagnostic record (mh_fail's contract: the record may be NULL). */
static void check_open_faults(bool with_diag)
{
	struct databin m;
	uint64_t size;
	example_model(&m, true);
	uint8_t *a = build_archive(&m, &size);
	struct mem_archive mem = {a, (size_t)size, size, 0, false};
	long k = 0;
	for (;; k++) {
		struct databin got;
		struct mh_diag d = {0};
		long live = faults_live;
		faults_arm(k);
		enum mh_err err = databin_open(mem_archive_read, &mem, size, &got,
					       with_diag ? &d : NULL);
		bool fired = faults_disarm();
		if (!fired) {
			assert_int_equal(err, MH_OK);
			assert_models_equal(&m, &got);
			databin_free(&got);
			assert_int_equal(faults_live, live);
			break;
		}
		assert_int_equal(err, MH_ENOMEM);
		if (with_diag)
			assert_diag(&d, err, MH_ENOMEM, d.offset);
		assert_null(got.start);
		assert_int_equal(faults_live, live);
	}
	assert_true(k >= 2);
	free(a);
	databin_free(&m);
}

static void test_open_survives_every_allocation_failure(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	check_open_faults(true);
}

static void test_open_without_diag_survives_every_allocation_failure(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	check_open_faults(false);
}

/* ---- padding of entries without a size record ----------------------------- */

/* len bytes: `content` non-zero bytes, then zeros. */
static uint8_t *padded_entry(size_t content, size_t len)
{
	uint8_t *p = calloc(1, len ? len : 1);
	assert_non_null(p);
	memset(p, 0x5a, content);
	return p;
}

static void test_padded_len_drops_padding_carried_in_new_bytes(void **state)
{
	(void)state;
	/* 3000 bytes in 2 blocks; an edit hands back those 4096 bytes with
	 * 100 more at the front: 3100 bytes still need 2 blocks. */
	uint8_t *old = padded_entry(3000, 4096), *edited = padded_entry(3100, 4196);
	assert_int_equal(databin_padded_len(old, 4096, edited, 4196), 4096);
	/* Growing past the block takes one more, no more. */
	uint8_t *grown = padded_entry(4097, 6144);
	assert_int_equal(databin_padded_len(old, 4096, grown, 6144), 6144);
	free(old);
	free(edited);
	free(grown);
}

static void test_padded_len_keeps_spare_blocks(void **state)
{
	(void)state;
	/* 100 bytes in 4 blocks: 3 spare blocks, kept whatever the edit. */
	uint8_t *old = padded_entry(100, 4 * 2048), *edited = padded_entry(2500, 4 * 2048 + 400);
	assert_int_equal(databin_padded_len(old, 4 * 2048, edited, 4 * 2048 + 400), 5 * 2048);
	assert_int_equal(databin_padded_len(old, 4 * 2048, old, 4 * 2048), 4 * 2048);
	free(old);
	free(edited);
}

static void test_padded_len_of_an_edit_and_its_inverse_is_the_old_len(void **state)
{
	(void)state;
	struct rng r = {0x5eed};
	for (int round = 0; round < 2000; round++) {
		size_t blocks = 1 + rng_below(&r, 8);
		size_t old_len = blocks * 2048, content = rng_below(&r, old_len + 1);
		uint8_t *old = padded_entry(content, old_len);
		/* The edit: any content, padded with anything up to 3 blocks. */
		size_t mid_content = rng_below(&r, 5 * 2048);
		size_t mid_len = mid_content + rng_below(&r, 3 * 2048);
		uint8_t *mid = padded_entry(mid_content, mid_len);
		size_t stored = databin_padded_len(old, old_len, mid, mid_len);
		assert_int_equal(stored % 2048, 0);
		assert_true(stored >= mid_content && stored >= 2048);
		/* The inverse: the old content with the edited entry's padding. */
		uint8_t *stored_mid = padded_entry(mid_content, stored);
		uint8_t *back = padded_entry(content, content + (stored - mid_content));
		assert_int_equal(databin_padded_len(stored_mid, stored, back,
						    content + (stored - mid_content)),
				 old_len);
		free(old);
		free(mid);
		free(stored_mid);
		free(back);
	}
}

static void test_padded_len_of_all_zeros_is_one_block(void **state)
{
	(void)state;
	uint8_t *zeros = padded_entry(0, 2048);
	assert_int_equal(databin_padded_len(zeros, 2048, zeros, 0), 2048);
	assert_int_equal(databin_padded_len(zeros, 2048, zeros, 2048), 2048);
	free(zeros);
}

/* ---- ownership -------------------------------------------------------- */

static void test_free_accepts_null_and_zeroed_model(void **state)
{
	(void)state;
	struct databin z;
	memset(&z, 0, sizeof z);
	databin_free(NULL);
	databin_free(&z);
	databin_free(&z); /* twice: free leaves the struct zeroed */
	struct databin m;
	example_model(&m, false);
	databin_free(&m);
	assert_null(m.start);
	assert_null(m.sizes);
	assert_null(m.fill);
	assert_int_equal(m.count, 0);
	databin_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_toc_decodes_to_model_and_reencodes_exactly),
		cmocka_unit_test(test_encrypted_toc_decodes_to_model_and_reencodes_exactly),
		cmocka_unit_test(test_padded_len_drops_padding_carried_in_new_bytes),
		cmocka_unit_test(test_padded_len_keeps_spare_blocks),
		cmocka_unit_test(test_padded_len_of_an_edit_and_its_inverse_is_the_old_len),
		cmocka_unit_test(test_padded_len_of_all_zeros_is_one_block),
		cmocka_unit_test(test_plain_toc_bytes_are_the_start_list_then_pairs),
		cmocka_unit_test(test_encrypted_toc_is_plain_toc_run_seeded_0),
		cmocka_unit_test(test_multi_block_toc_roundtrips),
		cmocka_unit_test(test_toc_filled_exactly_has_no_fill),
		cmocka_unit_test(test_fill_shorter_than_a_pair_is_kept_verbatim),
		cmocka_unit_test(test_zero_block_entry_takes_size_pair_of_zero),
		cmocka_unit_test(test_decode_uses_only_start0_blocks_of_longer_input),
		cmocka_unit_test(test_random_models_roundtrip_through_encode_decode_open),
		cmocka_unit_test(test_open_detects_plain_archive),
		cmocka_unit_test(test_open_detects_encrypted_archive),
		cmocka_unit_test(test_open_reports_reader_failure_as_eio),
		cmocka_unit_test(test_open_rejects_file_smaller_than_a_block),
		cmocka_unit_test(test_open_rejects_random_bytes_in_both_readings),
		cmocka_unit_test(test_open_rejects_size_not_block_multiple),
		cmocka_unit_test(test_entry_offset_blocks_and_size),
		cmocka_unit_test(test_entry_offset_beyond_4gib),
		cmocka_unit_test(test_size_index_finds_pairs_by_id),
		cmocka_unit_test(test_size_index_on_large_table),
		cmocka_unit_test(test_entry_plain_follows_archive_and_game),
		cmocka_unit_test(test_game_plain_id_lists),
		cmocka_unit_test(test_game_name_print_parse_roundtrip),
		cmocka_unit_test(test_game_parse_aliases_any_case),
		cmocka_unit_test(test_guess_game_mhfu_from_plain_entries_42_43_46_to_62),
		cmocka_unit_test(test_guess_game_mhp2g_from_plain_entries_22_23_26_to_42),
		cmocka_unit_test(test_guess_game_mhp3rd_from_plain_entries),
		cmocka_unit_test(test_guess_game_unknown_when_every_entry_is_encrypted),
		cmocka_unit_test(test_guess_game_plain_archive_by_entry_count),
		cmocka_unit_test(test_guess_game_by_magic_when_plain_entries_read_as_noise),
		cmocka_unit_test(test_guess_game_magics_come_before_statistics),
		cmocka_unit_test(test_guess_game_magic_tie_falls_back_to_statistics),
		cmocka_unit_test(test_guess_game_unknown_when_plain_entries_read_as_noise),
		cmocka_unit_test(test_plain_magic_names_what_an_entry_begins_with),
		cmocka_unit_test(test_open_refuses_archive_cut_where_an_entry_starts),
		cmocka_unit_test(test_open_refuses_cut_archive_without_size_pairs),
		cmocka_unit_test(test_open_refuses_cut_after_an_empty_entry),
		cmocka_unit_test(test_open_keeps_whole_archives_whose_fill_ascends),
		cmocka_unit_test(test_encode_rejects_fill_that_reads_as_more_starts),
		cmocka_unit_test(test_decode_rejects_file_size_not_block_multiple),
		cmocka_unit_test(test_decode_rejects_empty_file),
		cmocka_unit_test(test_decode_rejects_toc_shorter_than_a_word),
		cmocka_unit_test(test_decode_rejects_start0_zero),
		cmocka_unit_test(test_decode_rejects_start0_beyond_file),
		cmocka_unit_test(test_decode_rejects_toc_longer_than_max),
		cmocka_unit_test(test_decode_rejects_archive_without_entries),
		cmocka_unit_test(test_decode_rejects_descending_start_list),
		cmocka_unit_test(test_decode_rejects_start_past_total),
		cmocka_unit_test(test_decode_rejects_start_list_not_terminated_in_toc),
		cmocka_unit_test(test_decode_rejects_truncated_toc),
		cmocka_unit_test(test_encode_rejects_size_pair_outside_last_block),
		cmocka_unit_test(test_encode_rejects_size_pairs_out_of_order),
		cmocka_unit_test(test_encode_rejects_fill_that_reads_as_a_pair),
		cmocka_unit_test(test_encode_rejects_fill_not_completing_toc),
		cmocka_unit_test(test_encode_rejects_descending_or_early_ending_starts),
		cmocka_unit_test(test_encode_rejects_no_entries_and_bad_toc_length),
		cmocka_unit_test(test_encode_rejects_lone_entry_starting_at_archive_end),
		cmocka_unit_test(test_decode_survives_every_allocation_failure),
		cmocka_unit_test(test_encode_survives_allocation_failure),
		cmocka_unit_test(test_open_survives_every_allocation_failure),
		cmocka_unit_test(test_open_without_diag_survives_every_allocation_failure),
		cmocka_unit_test(test_free_accepts_null_and_zeroed_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
