/* SPDX-License-Identifier: MIT */
/* Tests of codecs/databin's table of contents (mhfu-archive(5)
 * "DATA.BIN"): the start list, the size records and the fill, through
 * databin_encode and databin_decode and back, byte for byte; an entry's
 * offset, blocks and size; freeing. */
#include "databin.h"
#include "rng.h"
#include "testlib.h"
#include "databin_model.h"

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
		cmocka_unit_test(test_plain_toc_bytes_are_the_start_list_then_pairs),
		cmocka_unit_test(test_encrypted_toc_is_plain_toc_run_seeded_0),
		cmocka_unit_test(test_multi_block_toc_roundtrips),
		cmocka_unit_test(test_toc_filled_exactly_has_no_fill),
		cmocka_unit_test(test_fill_shorter_than_a_pair_is_kept_verbatim),
		cmocka_unit_test(test_zero_block_entry_takes_size_pair_of_zero),
		cmocka_unit_test(test_decode_uses_only_start0_blocks_of_longer_input),
		cmocka_unit_test(test_random_models_roundtrip_through_encode_decode_open),
		cmocka_unit_test(test_entry_offset_blocks_and_size),
		cmocka_unit_test(test_entry_offset_beyond_4gib),
		cmocka_unit_test(test_size_index_finds_pairs_by_id),
		cmocka_unit_test(test_size_index_on_large_table),
		cmocka_unit_test(test_free_accepts_null_and_zeroed_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
