/* Tests of databin_padded_len (codecs/databin): the length an edited
 * entry without a size record is stored at, its padding dropped or kept
 * so that an edit and its inverse give back the old length. */
#include "databin.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_padded_len_drops_padding_carried_in_new_bytes),
		cmocka_unit_test(test_padded_len_keeps_spare_blocks),
		cmocka_unit_test(test_padded_len_of_an_edit_and_its_inverse_is_the_old_len),
		cmocka_unit_test(test_padded_len_of_all_zeros_is_one_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
