/* SPDX-License-Identifier: MIT */
/* Tests of databin_open (codecs/databin): archives built in memory
 * (tests/unit/databin_model.h) opened through a memory reader, plain or
 * encrypted as found; files too small, of a size that is no number of
 * blocks, of random bytes, or cut short where an entry starts, refused
 * with the exact code and offset; allocation failures ending cleanly. */
#include "databin.h"
#include "faults.h"
#include "rng.h"
#include "testlib.h"
#include "databin_model.h"

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

/* ---- allocation failures ---------------------------------------------- */

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_detects_plain_archive),
		cmocka_unit_test(test_open_detects_encrypted_archive),
		cmocka_unit_test(test_open_reports_reader_failure_as_eio),
		cmocka_unit_test(test_open_rejects_file_smaller_than_a_block),
		cmocka_unit_test(test_open_rejects_random_bytes_in_both_readings),
		cmocka_unit_test(test_open_rejects_size_not_block_multiple),
		cmocka_unit_test(test_open_refuses_archive_cut_where_an_entry_starts),
		cmocka_unit_test(test_open_refuses_cut_archive_without_size_pairs),
		cmocka_unit_test(test_open_refuses_cut_after_an_empty_entry),
		cmocka_unit_test(test_open_keeps_whole_archives_whose_fill_ascends),
		cmocka_unit_test(test_encode_rejects_fill_that_reads_as_more_starts),
		cmocka_unit_test(test_open_survives_every_allocation_failure),
		cmocka_unit_test(test_open_without_diag_survives_every_allocation_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
