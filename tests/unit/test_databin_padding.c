/* SPDX-License-Identifier: MIT */
/* Tests of databin_padded_len (codecs/databin): the length an edited
 * entry without a size record is stored at, its padding dropped or kept
 * so that an edit and its inverse give back the old length. */
#include "databin.h"
#include "faults.h"
#include "rng.h"
#include "testlib.h"

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

/* databin_repad: cut to, or zero-extended to, databin_padded_len. */
static void test_repad_cuts_or_zero_extends(void **state)
{
	(void)state;
	struct mh_diag d = {0};
	/* 100 bytes in 3 blocks (2 spare); the edit's 3000 bytes come back
	 * with no padding: zero-extended to 2 blocks plus the 2 spare. */
	uint8_t *old = padded_entry(100, 3 * 2048);
	uint8_t *bytes = padded_entry(3000, 3000);
	size_t len = 3000;
	assert_int_equal(databin_repad(old, 3 * 2048, &bytes, &len, &d), MH_OK);
	assert_int_equal(len, 4 * 2048);
	for (size_t i = 0; i < len; i++)
		if (bytes[i] != (i < 3000 ? 0x5a : 0))
			fail_msg("byte %zu is 0x%02x", i, bytes[i]);
	free(bytes);

	/* 1000 bytes carrying 9000 of padding: cut to 1 block plus 2. */
	bytes = padded_entry(1000, 10000);
	uint8_t *was = bytes;
	len = 10000;
	assert_int_equal(databin_repad(old, 3 * 2048, &bytes, &len, &d), MH_OK);
	assert_int_equal(len, 3 * 2048);
	assert_ptr_equal(bytes, was);
	free(bytes);

	if (FAULTS_AVAILABLE) {
		/* Out of memory growing: the bytes are left as they were. */
		bytes = padded_entry(3000, 3000);
		was = bytes;
		len = 3000;
		long live = faults_live;
		faults_arm(0);
		enum mh_err err = databin_repad(old, 3 * 2048, &bytes, &len, &d);
		assert_true(faults_disarm());
		assert_int_equal(err, MH_ENOMEM);
		assert_int_equal(d.code, MH_ENOMEM);
		assert_ptr_equal(bytes, was);
		assert_int_equal(len, 3000);
		assert_int_equal(faults_live, live);
		free(bytes);
	}
	free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_padded_len_drops_padding_carried_in_new_bytes),
		cmocka_unit_test(test_padded_len_keeps_spare_blocks),
		cmocka_unit_test(test_padded_len_of_an_edit_and_its_inverse_is_the_old_len),
		cmocka_unit_test(test_padded_len_of_all_zeros_is_one_block),
		cmocka_unit_test(test_repad_cuts_or_zero_extends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
