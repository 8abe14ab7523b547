/* SPDX-License-Identifier: MIT */
/* The mod loaders' loose-file layouts (codecs/loose.h): names both ways,
 * FUComplete's size header and FILE.BIN's bits. */
#include "testlib.h"

#include "bytes.h"
#include "loose.h"

static void test_names_both_ways(void **state)
{
	(void)state;
	char name[16];
	uint32_t id;
	loose_name(LOOSE_FUCOMPLETE, 6186, name, sizeof name);
	assert_string_equal(name, "6186");
	loose_name(LOOSE_FUCOMPLETE, 11, name, sizeof name);
	assert_string_equal(name, "0011");
	loose_name(LOOSE_P3RDML, 5251, name, sizeof name);
	assert_string_equal(name, "1483");
	loose_name(LOOSE_P3RDML, 0xabc, name, sizeof name);
	assert_string_equal(name, "0ABC");
	for (uint32_t v = 0; v < 70000; v += 7) {
		for (int l = LOOSE_FUCOMPLETE; l <= LOOSE_P3RDML; l++) {
			loose_name((enum loose_layout)l, v, name, sizeof name);
			assert_true(loose_parse_name((enum loose_layout)l, name, &id));
			assert_int_equal(id, v);
		}
	}
}

static void test_other_spellings_are_no_names(void **state)
{
	(void)state;
	uint32_t id;
	static const char *const FU[] = {"", "186", "06186", "61a6", "6186.bin", " 6186", "-186"};
	static const char *const P3[] = {"", "abc", "0abc", "00ABC", "1483 ", "G000", "0x10"};
	for (size_t i = 0; i < sizeof FU / sizeof *FU; i++)
		assert_false(loose_parse_name(LOOSE_FUCOMPLETE, FU[i], &id));
	for (size_t i = 0; i < sizeof P3 / sizeof *P3; i++)
		assert_false(loose_parse_name(LOOSE_P3RDML, P3[i], &id));
}

static void test_headers(void **state)
{
	(void)state;
	uint8_t h[4] = {0};
	assert_int_equal(loose_header_len(LOOSE_FUCOMPLETE), 4);
	assert_int_equal(loose_header_len(LOOSE_P3RDML), 0);
	assert_true(loose_header(LOOSE_FUCOMPLETE, 1216512, h));
	assert_int_equal(le32(h), 1216512);
	assert_false(loose_header(LOOSE_FUCOMPLETE, 1ull << 32, h));
	assert_true(loose_header(LOOSE_P3RDML, 1ull << 40, h));
}

static void test_bitmap_bits(void **state)
{
	(void)state;
	assert_int_equal(loose_bitmap_len(6656), 832);
	assert_int_equal(loose_bitmap_len(6657), 833);
	assert_int_equal(loose_bitmap_len(0), 0);
	uint8_t map[832] = {0};
	loose_bitmap_mark(map, 0);
	loose_bitmap_mark(map, 11);
	loose_bitmap_mark(map, 6186);
	loose_bitmap_mark(map, 6655);
	for (uint32_t id = 0; id < 6656; id++) {
		bool set = map[id / 8] >> (id % 8) & 1;
		assert_int_equal(set, id == 0 || id == 11 || id == 6186 || id == 6655);
	}
	assert_int_equal(map[1], 0x08);
	assert_int_equal(map[773], 0x04);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_both_ways),
		cmocka_unit_test(test_other_spellings_are_no_names),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_bitmap_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
