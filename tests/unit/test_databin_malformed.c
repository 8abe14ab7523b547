/* SPDX-License-Identifier: MIT */
/* Tests of codecs/databin on malformed tables of contents: every case
 * expects its exact error code and diagnostic offset, from databin_decode
 * on bytes and from databin_encode on models; and every allocation
 * failure of both ends cleanly. */
#include "databin.h"
#include "faults.h"
#include "testlib.h"
#include "databin_model.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
