/* SPDX-License-Identifier: MIT */
/* Tests of codecs/pac (mhfu-archive(5) "PAC") and codecs/kind.
 *
 * Round trips are checked byte for byte: decode a PAC, rebuild it with
 * pac_encode from the decoded table, the entries' bytes and the tail, and
 * compare.  Malformed tables expect the exact error code and offset.
 * Random tests seed their own generator. */
#include "faults.h"
#include "kind.h"
#include "pac.h"
#include "rng.h"
#include "testlib.h"

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* ---- helpers ---------------------------------------------------------- */

static void encode_ok(const struct pac_blob *b, uint32_t count, uint32_t align,
		      const uint8_t *tail, size_t tail_len, uint8_t **out,
		      size_t *len)
{
	struct mh_diag d = {0};
	enum mh_err err = pac_encode(b, count, align, tail, tail_len, out, len, &d);
	if (err)
		fail_msg("pac_encode: %s: %s", mh_strerror(err), d.msg);
}

/* Decodes buf, checks the decoded table against the bytes, rebuilds the
 * PAC from the decoded model and requires the same bytes.  Returns the
 * alignment found.  Recurses into entries that are PACs themselves,
 * counting them in *nested. */
static uint32_t roundtrip(const uint8_t *buf, size_t len, unsigned *nested)
{
	struct pac pac;
	struct mh_diag d = {0};
	enum mh_err err = pac_decode(buf, len, &pac, &d);
	if (err)
		fail_msg("pac_decode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
	assert_int_equal(pac.count, load_le32(buf));
	assert_int_equal(pac.size, len);
	assert_true(pac.tail <= len);
	assert_true(pac.align == 16 || pac.align == 8 || pac.align == 4);
	struct pac_blob *b = calloc(pac.count, sizeof *b);
	assert_non_null(b);
	for (uint32_t i = 0; i < pac.count; i++) {
		assert_int_equal(pac.entries[i].offset, load_le32(buf + 4 + 8 * i));
		assert_int_equal(pac.entries[i].size, load_le32(buf + 8 + 8 * i));
		b[i].data = buf + pac.entries[i].offset;
		b[i].size = pac.entries[i].size;
	}
	uint8_t *out;
	size_t out_len;
	encode_ok(b, pac.count, pac.align, buf + pac.tail, len - (size_t)pac.tail,
		  &out, &out_len);
	assert_int_equal(out_len, len);
	assert_memory_equal(out, buf, len);
	free(out);
	/* Largest: no larger alignment reproduces the input. */
	for (uint32_t a = pac.align * 2; a <= 16; a *= 2) {
		encode_ok(b, pac.count, a, buf + pac.tail, len - (size_t)pac.tail,
			  &out, &out_len);
		assert_true(out_len != len || memcmp(out, buf, len) != 0);
		free(out);
	}
	for (uint32_t i = 0; i < pac.count; i++) {
		struct pac inner;
		if (b[i].size &&
		    pac_decode(b[i].data, b[i].size, &inner, NULL) == MH_OK) {
			pac_free(&inner);
			if (nested)
				++*nested;
			roundtrip(b[i].data, b[i].size, nested);
		}
	}
	uint32_t align = pac.align;
	free(b);
	pac_free(&pac);
	return align;
}

/* A PAC table written by hand: count, then {offset, size} pairs. */
static void put_table(uint8_t *buf, uint32_t count, const uint32_t *pairs)
{
	store_le32(buf, count);
	for (uint32_t i = 0; i < 2 * count; i++)
		store_le32(buf + 4 + 4 * i, pairs[i]);
}

static void expect_decode_error(const uint8_t *buf, size_t len, enum mh_err code,
				uint64_t offset)
{
	struct pac pac;
	struct mh_diag d = {0};
	memset(&pac, 0xa5, sizeof pac);
	enum mh_err err = pac_decode(buf, len, &pac, &d);
	assert_diag(&d, err, code, offset);
	assert_null(pac.entries);
	assert_int_equal(pac.count, 0);
	assert_int_equal(pac_decode(buf, len, &pac, NULL), code);
}

static const uint8_t BYTES[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* ---- alignments -------------------------------------------------------- */

static void test_roundtrip_at_alignment_16(void **state)
{
	(void)state;
	const struct pac_blob b[] = {{BYTES, 5}, {BYTES + 5, 20}, {BYTES + 25, 7}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 3, 16, NULL, 0, &out, &len);
	/* header 28 -> 32, 37 -> 48, 68 -> 80, end 87 */
	assert_int_equal(load_le32(out + 4), 32);
	assert_int_equal(load_le32(out + 12), 48);
	assert_int_equal(load_le32(out + 20), 80);
	assert_int_equal(len, 87);
	assert_int_equal(roundtrip(out, len, NULL), 16);
	free(out);
}

static void test_roundtrip_needs_8_when_16_misplaces_a_later_entry(void **state)
{
	(void)state;
	/* Header 28: entry 0 lands at 32 under 16 and 8 alike; entry 1 at 40
	 * under 8 but at 48 under 16. */
	const struct pac_blob b[] = {{BYTES, 4}, {BYTES + 4, 4}, {BYTES + 8, 9}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 3, 8, NULL, 0, &out, &len);
	assert_int_equal(load_le32(out + 4), 32);
	assert_int_equal(load_le32(out + 12), 40);
	assert_int_equal(load_le32(out + 20), 48);
	assert_int_equal(roundtrip(out, len, NULL), 8);
	free(out);
}

static void test_roundtrip_needs_8_when_16_misplaces_the_first_entry(void **state)
{
	(void)state;
	/* Header 20: entry 0 at 24 under 8, 32 under 16. */
	const struct pac_blob b[] = {{BYTES, 3}, {BYTES + 3, 5}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 2, 8, NULL, 0, &out, &len);
	assert_int_equal(load_le32(out + 4), 24);
	assert_int_equal(load_le32(out + 12), 32);
	assert_int_equal(roundtrip(out, len, NULL), 8);
	free(out);
}

static void test_roundtrip_needs_4(void **state)
{
	(void)state;
	/* Header 20: entry 0 at 20 under 4 only; 8 and 16 misplace it. */
	const struct pac_blob b[] = {{BYTES, 3}, {BYTES + 3, 5}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 2, 4, NULL, 0, &out, &len);
	assert_int_equal(load_le32(out + 4), 20);
	assert_int_equal(load_le32(out + 12), 24);
	assert_int_equal(roundtrip(out, len, NULL), 4);
	free(out);
}

static void test_layout_shared_by_8_and_16_reports_16(void **state)
{
	(void)state;
	/* One entry after a 12-byte header: 16 under both 8 and 16. */
	const struct pac_blob b[] = {{BYTES, 5}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 1, 8, NULL, 0, &out, &len);
	assert_int_equal(load_le32(out + 4), 16);
	assert_int_equal(roundtrip(out, len, NULL), 16);
	free(out);
	/* Every later entry 16-aligned, but 4 puts entry 0 at 28 (after a
	 * 28-byte table), where 8 and 16 would not: 4 it is. */
	const struct pac_blob c[] = {{BYTES, 4}, {BYTES, 16}, {BYTES, 32}};
	encode_ok(c, 3, 4, NULL, 0, &out, &len);
	assert_int_equal(load_le32(out + 4), 28);
	assert_int_equal(load_le32(out + 12), 32);
	assert_int_equal(load_le32(out + 20), 48);
	assert_int_equal(roundtrip(out, len, NULL), 4);
	free(out);
}

/* ---- empty entries and tails ------------------------------------------- */

static void check_empties(uint32_t align, const uint8_t *tail, size_t tail_len)
{
	static const struct pac_blob cases[][4] = {
		{{NULL, 0}, {BYTES, 7}, {BYTES, 30}, {BYTES, 1}},   /* first */
		{{BYTES, 7}, {NULL, 0}, {BYTES, 30}, {BYTES, 1}},   /* middle */
		{{BYTES, 7}, {BYTES, 30}, {BYTES, 1}, {NULL, 0}},   /* last */
		{{NULL, 0}, {BYTES, 9}, {NULL, 0}, {NULL, 0}},      /* all but one */
		{{NULL, 0}, {NULL, 0}, {NULL, 0}, {BYTES, 100}},    /* only the last */
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint8_t *out;
		size_t len;
		encode_ok(cases[c], 4, align, tail, tail_len, &out, &len);
		for (uint32_t i = 0; i < 4; i++)
			if (!cases[c][i].size) {
				assert_int_equal(load_le32(out + 4 + 8 * i), 0);
				assert_int_equal(load_le32(out + 8 + 8 * i), 0);
			}
		uint32_t got = roundtrip(out, len, NULL);
		assert_true(got >= align);
		if (tail_len)
			assert_memory_equal(out + len - tail_len, tail, tail_len);
		free(out);
	}
}

static void test_empty_entries_first_middle_last_roundtrip(void **state)
{
	(void)state;
	check_empties(16, NULL, 0);
	check_empties(8, NULL, 0);
	check_empties(4, NULL, 0);
}

static void test_tail_nonzero_is_kept_verbatim(void **state)
{
	(void)state;
	static const uint8_t tail[] = {0, 0, 1, 2, 3, 0, 0xff, 0};
	check_empties(16, tail, sizeof tail);
	check_empties(8, tail, sizeof tail);
	check_empties(4, tail, sizeof tail);
}

static void test_tail_of_zeros_to_block_end_is_kept(void **state)
{
	(void)state;
	/* A PAC cut from DATA.BIN: padded with zeros to 2048 bytes. */
	const struct pac_blob b[] = {{BYTES, 33}, {NULL, 0}, {BYTES, 50}};
	uint8_t *out, *block;
	size_t len;
	encode_ok(b, 3, 16, NULL, 0, &out, &len);
	block = calloc(1, 2048);
	assert_non_null(block);
	memcpy(block, out, len);
	struct pac pac;
	assert_int_equal(pac_decode(block, 2048, &pac, NULL), MH_OK);
	assert_int_equal(pac.tail, len);
	assert_int_equal(pac.size, 2048);
	pac_free(&pac);
	assert_int_equal(roundtrip(block, 2048, NULL), 16);
	free(out);
	free(block);
}

static void test_decode_reports_tail_and_entries(void **state)
{
	(void)state;
	static const uint8_t tail[] = {9, 9, 9};
	const struct pac_blob b[] = {{BYTES, 10}, {NULL, 0}, {BYTES, 3}};
	uint8_t *out;
	size_t len;
	struct pac pac;
	encode_ok(b, 3, 16, tail, 3, &out, &len);
	assert_int_equal(pac_decode(out, len, &pac, NULL), MH_OK);
	assert_int_equal(pac.count, 3);
	assert_int_equal(pac.align, 16);
	assert_int_equal(pac.entries[0].offset, 32);
	assert_int_equal(pac.entries[0].size, 10);
	assert_int_equal(pac.entries[1].offset, 0);
	assert_int_equal(pac.entries[1].size, 0);
	assert_int_equal(pac.entries[2].offset, 48);
	assert_int_equal(pac.entries[2].size, 3);
	assert_int_equal(pac.tail, 51);
	assert_int_equal(pac.size, 54);
	assert_int_equal(len, 54);
	pac_free(&pac);
	free(out);
}

static void test_nested_pacs_roundtrip(void **state)
{
	(void)state;
	uint8_t *inner1, *inner2, *mid, *outer;
	size_t l1, l2, lm, lo;
	static const uint8_t tail[] = {1, 2, 3};
	const struct pac_blob i1[] = {{BYTES, 11}, {NULL, 0}, {BYTES, 4}};
	const struct pac_blob i2[] = {{BYTES, 6}, {BYTES, 6}};
	encode_ok(i1, 3, 16, NULL, 0, &inner1, &l1);
	encode_ok(i2, 2, 4, tail, 3, &inner2, &l2);
	const struct pac_blob m[] = {{inner1, (uint32_t)l1}, {BYTES, 2},
				     {inner2, (uint32_t)l2}};
	encode_ok(m, 3, 8, NULL, 0, &mid, &lm);
	const struct pac_blob o[] = {{NULL, 0}, {mid, (uint32_t)lm}, {inner1, (uint32_t)l1}};
	encode_ok(o, 3, 16, tail, 3, &outer, &lo);
	unsigned nested = 0;
	assert_int_equal(roundtrip(outer, lo, &nested), 16);
	assert_true(nested >= 4); /* mid, its two inners, the second inner1 */
	free(inner1);
	free(inner2);
	free(mid);
	free(outer);
}

static void test_count_256_roundtrips(void **state)
{
	(void)state;
	struct pac_blob b[256];
	for (uint32_t i = 0; i < 256; i++)
		b[i] = (struct pac_blob){i % 3 ? BYTES : NULL, i % 3 ? 1 + i % 50 : 0};
	for (uint32_t a = 4; a <= 16; a *= 2) {
		uint8_t *out;
		size_t len;
		encode_ok(b, 256, a, NULL, 0, &out, &len);
		assert_true(roundtrip(out, len, NULL) >= a);
		assert_int_equal(pac_sniff(out, PAC_HEAD_MAX, len), 100);
		free(out);
	}
}

/* ---- malformed tables: exact codes and offsets ------------------------ */

static void test_decode_rejects_count_0(void **state)
{
	(void)state;
	uint8_t buf[64] = {0};
	expect_decode_error(buf, sizeof buf, MH_EUNKNOWN, 0);
}

static void test_decode_rejects_count_257(void **state)
{
	(void)state;
	uint8_t *buf = calloc(1, 8192);
	assert_non_null(buf);
	store_le32(buf, 257);
	store_le32(buf + 4, 2064);
	store_le32(buf + 8, 4);
	expect_decode_error(buf, 8192, MH_EUNKNOWN, 0);
	store_le32(buf, 0xffffffff);
	expect_decode_error(buf, 8192, MH_EUNKNOWN, 0);
	free(buf);
}

static void test_decode_rejects_offset_0_with_nonzero_size(void **state)
{
	(void)state;
	uint8_t buf[64] = {0};
	static const uint32_t t[] = {16, 4, 0, 8, 32, 4};
	put_table(buf, 3, t);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4 + 8 * 1);
}

static void test_decode_rejects_nonzero_offset_with_size_0(void **state)
{
	(void)state;
	uint8_t buf[64] = {0};
	static const uint32_t t[] = {32, 4, 48, 0};
	put_table(buf, 2, t);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4 + 8 * 1);
}

static void test_decode_rejects_entry_past_the_end(void **state)
{
	(void)state;
	uint8_t buf[64] = {0};
	static const uint32_t t[] = {32, 4, 48, 17};
	put_table(buf, 2, t);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4 + 8 * 1);
	/* An offset + size that wraps 32 bits is past the end too. */
	static const uint32_t w[] = {32, 4, 48, 0xfffffff0u};
	put_table(buf, 2, w);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4 + 8 * 1);
	static const uint32_t o[] = {0xffffffffu, 1, 48, 4};
	put_table(buf, 2, o);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4);
}

static void test_decode_rejects_misplaced_entry(void **state)
{
	(void)state;
	uint8_t buf[96] = {0};
	/* Entry 1 at 40: 16 wants 48, and 8 (which would put it at 40)
	 * wants entry 0 at 24, 4 wants it at 20. */
	static const uint32_t t[] = {32, 5, 40, 8};
	put_table(buf, 2, t);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4 + 8 * 1);
	/* Entry 0 overlapping the table. */
	static const uint32_t u[] = {8, 5, 32, 8};
	put_table(buf, 2, u);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4);
	/* Entries out of order. */
	static const uint32_t v[] = {48, 4, 32, 4};
	put_table(buf, 2, v);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4);
	/* Overlapping entries, 16 otherwise. */
	static const uint32_t x[] = {32, 20, 48, 4};
	put_table(buf, 2, x);
	expect_decode_error(buf, sizeof buf, MH_ECORRUPT, 4 + 8 * 1);
}

static void test_decode_rejects_nonzero_padding_byte(void **state)
{
	(void)state;
	const struct pac_blob b[] = {{BYTES, 5}, {BYTES, 7}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 2, 16, NULL, 0, &out, &len);
	/* Between the table (20) and entry 0 (32). */
	out[25] = 1;
	expect_decode_error(out, len, MH_ECORRUPT, 25);
	out[25] = 0;
	/* Between entry 0's end (37) and entry 1 (48). */
	out[47] = 0x80;
	expect_decode_error(out, len, MH_ECORRUPT, 47);
	out[47] = 0;
	assert_int_equal(roundtrip(out, len, NULL), 16);
	free(out);
}

static void test_decode_rejects_all_empty_table(void **state)
{
	(void)state;
	uint8_t buf[64] = {0};
	store_le32(buf, 3);
	expect_decode_error(buf, sizeof buf, MH_EUNKNOWN, 4);
}

static void test_decode_rejects_truncated_table(void **state)
{
	(void)state;
	uint8_t buf[64] = {0};
	static const uint32_t t[] = {32, 4, 48, 4, 64, 4};
	put_table(buf, 3, t);
	expect_decode_error(buf, 27, MH_ETRUNC, 27);
	expect_decode_error(buf, 4, MH_ETRUNC, 4);
	expect_decode_error(buf, 3, MH_ETRUNC, 0);
	expect_decode_error(buf, 0, MH_ETRUNC, 0);
}

static void test_encode_rejects_bad_count_and_alignment(void **state)
{
	(void)state;
	struct pac_blob b[257];
	for (int i = 0; i < 257; i++)
		b[i] = (struct pac_blob){BYTES, 1};
	struct mh_diag d = {0};
	uint8_t *out = (uint8_t *)&d;
	size_t len = 7;
	assert_diag(&d, pac_encode(b, 0, 16, NULL, 0, &out, &len, &d), MH_ERANGE, 0);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_diag(&d, pac_encode(b, 257, 16, NULL, 0, &out, &len, &d), MH_ERANGE, 0);
	static const uint32_t aligns[] = {0, 1, 2, 3, 12, 32, 64};
	for (size_t i = 0; i < sizeof aligns / sizeof *aligns; i++)
		assert_diag(&d, pac_encode(b, 2, aligns[i], NULL, 0, &out, &len, &d),
			    MH_ERANGE, 0);
}

static void test_encode_rejects_all_empty_entries(void **state)
{
	(void)state;
	/* Such a PAC would not decode (every entry empty): refused. */
	const struct pac_blob b[] = {{NULL, 0}, {BYTES, 0}, {NULL, 0}};
	static const uint8_t tail[] = {1, 2};
	struct mh_diag d = {0};
	uint8_t *out = (uint8_t *)&d;
	size_t len = 7;
	assert_diag(&d, pac_encode(b, 3, 16, NULL, 0, &out, &len, &d), MH_ERANGE, 0);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_diag(&d, pac_encode(b, 1, 4, tail, 2, &out, &len, &d), MH_ERANGE, 0);
	assert_null(out);
}

/* pac_free leaves a zeroed struct, so a second free (and one of a
 * zeroed struct, or of NULL) is harmless: ASan would see a double free. */
static void test_free_accepts_null_and_zeroed(void **state)
{
	(void)state;
	const struct pac_blob b[] = {{BYTES, 5}, {BYTES + 5, 20}};
	uint8_t *out;
	size_t len;
	struct pac p, zero;
	memset(&zero, 0, sizeof zero);
	encode_ok(b, 2, 16, NULL, 0, &out, &len);
	assert_int_equal(pac_decode(out, len, &p, NULL), MH_OK);
	assert_int_equal(p.count, 2);
	assert_non_null(p.entries);
	pac_free(&p);
	assert_memory_equal(&p, &zero, sizeof p);
	pac_free(&p);
	assert_memory_equal(&p, &zero, sizeof p);
	pac_free(NULL);
	free(out);
}

static void test_decode_and_encode_survive_allocation_failure(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	const struct pac_blob b[] = {{BYTES, 5}, {NULL, 0}, {BYTES, 7}};
	uint8_t *out, *again = (uint8_t *)BYTES;
	size_t len, len2 = 1;
	struct pac pac;
	struct mh_diag d = {0};
	encode_ok(b, 3, 16, NULL, 0, &out, &len);

	long live = faults_live;
	faults_arm(0);
	enum mh_err err = pac_decode(out, len, &pac, &d);
	assert_true(faults_disarm());
	assert_diag(&d, err, MH_ENOMEM, d.offset);
	assert_null(pac.entries);
	assert_int_equal(pac.count, 0);
	assert_int_equal(faults_live, live);

	faults_arm(0);
	err = pac_encode(b, 3, 16, NULL, 0, &again, &len2, &d);
	assert_true(faults_disarm());
	assert_diag(&d, err, MH_ENOMEM, d.offset);
	assert_null(again);
	assert_int_equal(len2, 0);
	assert_int_equal(faults_live, live);

	/* Past the last allocation both succeed, and free what they made. */
	faults_arm(1);
	assert_int_equal(pac_decode(out, len, &pac, &d), MH_OK);
	assert_false(faults_disarm());
	pac_free(&pac);
	assert_int_equal(faults_live, live);
	free(out);
}

/* ---- pac_sniff --------------------------------------------------------- */

static void test_sniff_accepts_valid_pacs_from_their_head(void **state)
{
	(void)state;
	struct rng r = {0x5A1FF};
	struct pac_blob b[256];
	uint8_t *data = malloc(5000);
	assert_non_null(data);
	rng_bytes(&r, data, 5000);
	for (int iter = 0; iter < 500; iter++) {
		uint32_t count = 1 + (uint32_t)rng_below(&r, iter % 5 ? 16 : 256);
		bool any = false;
		for (uint32_t i = 0; i < count; i++) {
			bool empty = rng_below(&r, 4) == 0;
			uint32_t n = 1 + (uint32_t)rng_below(&r, 200);
			b[i] = empty ? (struct pac_blob){NULL, 0}
				     : (struct pac_blob){data + rng_below(&r, 4000), n};
			any |= !empty;
		}
		if (!any)
			b[0] = (struct pac_blob){data, 1};
		uint32_t align = 4u << rng_below(&r, 3);
		size_t tail_len = (size_t)rng_below(&r, 50);
		uint8_t *out;
		size_t len;
		encode_ok(b, count, align, data, tail_len, &out, &len);
		size_t head = min_sz(len, PAC_HEAD_MAX);
		/* Only the head is passed: a copy makes ASan catch reads past it. */
		uint8_t *copy = malloc(head);
		assert_non_null(copy);
		memcpy(copy, out, head);
		assert_int_equal(pac_sniff(copy, head, len), 100);
		/* The table alone suffices. */
		assert_int_equal(pac_sniff(copy, 4 + 8 * (size_t)count, len), 100);
		/* One byte less of table does not. */
		assert_int_equal(pac_sniff(copy, 3 + 8 * (size_t)count, len), 0);
		assert_int_equal(kind_sniff(copy, head, len), KIND_PAC);
		free(copy);
		free(out);
	}
	free(data);
}

static void test_sniff_rejects_200000_random_buffers(void **state)
{
	(void)state;
	struct rng r = {0x0DDBA11};
	enum { MAX = 3000 };
	uint8_t *buf = malloc(MAX);
	assert_non_null(buf);
	unsigned hits = 0;
	for (int i = 0; i < 200000; i++) {
		size_t n = (size_t)rng_below(&r, i % 4 ? 64 : MAX);
		rng_bytes(&r, buf, n);
		/* A quarter get a plausible count, so the table checks run. */
		if (n >= 4 && i % 4 == 1)
			store_le32(buf, 1 + (uint32_t)rng_below(&r, 256));
		if (pac_sniff(buf, min_sz(n, PAC_HEAD_MAX), n) != 0) {
			hits++;
			print_error("false positive: buffer %d of %zu bytes\n", i, n);
		}
		if (kind_sniff(buf, n, n) == KIND_PAC)
			hits++;
	}
	assert_int_equal(hits, 0);
	free(buf);
}

static void test_sniff_rejects_all_zero_buffers(void **state)
{
	(void)state;
	uint8_t *buf = calloc(1, 5000);
	assert_non_null(buf);
	for (size_t n = 0; n <= 5000; n += n < 64 ? 1 : 97) {
		assert_int_equal(pac_sniff(buf, min_sz(n, PAC_HEAD_MAX), n), 0);
		assert_int_equal(kind_sniff(buf, min_sz(n, KIND_HEAD_MAX), n), KIND_DATA);
	}
	free(buf);
}

static void test_sniff_ignores_padding_but_decode_does_not(void **state)
{
	(void)state;
	const struct pac_blob b[] = {{BYTES, 5}, {BYTES, 7}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 2, 16, NULL, 0, &out, &len);
	out[40] = 1;
	assert_int_equal(pac_sniff(out, len, len), 100);
	struct pac pac;
	assert_int_equal(pac_decode(out, len, &pac, NULL), MH_ECORRUPT);
	free(out);
}

static void test_sniff_rejects_what_decode_rejects_in_the_table(void **state)
{
	(void)state;
	uint8_t buf[96] = {0};
	static const uint32_t misplaced[] = {32, 5, 40, 8};
	put_table(buf, 2, misplaced);
	assert_int_equal(pac_sniff(buf, sizeof buf, sizeof buf), 0);
	static const uint32_t past[] = {32, 4, 48, 49};
	put_table(buf, 2, past);
	assert_int_equal(pac_sniff(buf, sizeof buf, sizeof buf), 0);
	static const uint32_t half[] = {0, 4, 48, 4};
	put_table(buf, 2, half);
	assert_int_equal(pac_sniff(buf, sizeof buf, sizeof buf), 0);
	static const uint32_t ok[] = {32, 4, 48, 4};
	put_table(buf, 2, ok);
	assert_int_equal(pac_sniff(buf, sizeof buf, sizeof buf), 100);
	/* The declared size decides "past the end", not the head length. */
	assert_int_equal(pac_sniff(buf, sizeof buf, 51), 0);
	assert_int_equal(pac_sniff(buf, 20, 52), 100);
}

/* ---- property: random valid PACs round-trip ---------------------------- */

static void test_2000_random_pacs_roundtrip_byte_exactly(void **state)
{
	(void)state;
	struct rng r = {0x9AC9AC};
	enum { POOL = 8192 };
	uint8_t *pool = malloc(POOL), *zeros = calloc(1, POOL);
	struct pac_blob *b = malloc(256 * sizeof *b);
	assert_non_null(pool);
	assert_non_null(zeros);
	assert_non_null(b);
	rng_bytes(&r, pool, POOL);
	unsigned by_align[17] = {0};
	for (int iter = 0; iter < 2000; iter++) {
		uint32_t count;
		switch (rng_below(&r, 4)) {
		case 0: count = 1; break;
		case 1: count = 1 + (uint32_t)rng_below(&r, 256); break;
		default: count = 1 + (uint32_t)rng_below(&r, 12); break;
		}
		unsigned empty_odds = (unsigned)rng_below(&r, 4); /* 0: none */
		bool any = false;
		for (uint32_t i = 0; i < count; i++) {
			if (empty_odds && rng_below(&r, 4) < empty_odds) {
				b[i] = (struct pac_blob){NULL, 0};
				continue;
			}
			uint32_t n = rng_below(&r, 8) ? 1 + (uint32_t)rng_below(&r, 40)
						      : 1 + (uint32_t)rng_below(&r, 4000);
			const uint8_t *src = rng_below(&r, 5) ? pool : zeros;
			b[i] = (struct pac_blob){src + rng_below(&r, POOL - n), n};
			any = true;
		}
		if (!any)
			b[rng_below(&r, count)] = (struct pac_blob){pool, 1 + (uint32_t)rng_below(&r, 9)};
		uint32_t align = 4u << rng_below(&r, 3);
		size_t tail_len = rng_below(&r, 3) ? 0 : (size_t)rng_below(&r, 2048);
		const uint8_t *tail = rng_below(&r, 2) ? pool + rng_below(&r, POOL - 2048)
						       : zeros;
		uint8_t *out;
		size_t len;
		encode_ok(b, count, align, tail, tail_len, &out, &len);
		uint32_t got = roundtrip(out, len, NULL);
		if (got < align)
			fail_msg("iteration %d: encoded at %u, decoded at %u", iter,
				 align, got);
		by_align[got]++;
		assert_int_equal(pac_sniff(out, min_sz(len, PAC_HEAD_MAX), len), 100);
		free(out);
	}
	/* Every alignment was exercised as the decoded answer. */
	assert_true(by_align[16] > 0);
	assert_true(by_align[8] > 0);
	assert_true(by_align[4] > 0);
	free(pool);
	free(zeros);
	free(b);
}

/* ---- kind_sniff -------------------------------------------------------- */

static void test_kind_sniff_tells_each_magic(void **state)
{
	(void)state;
	static const struct {
		const char *magic;
		size_t len;
		enum kind kind;
		const char *name, *ext;
	} cases[] = {
		{"pmo\0", 4, KIND_PMO, "pmo", ".pmo"},
		{".TMH0.14", 8, KIND_TMH, "tmh", ".tmh"},
		{"HITS", 4, KIND_HITS, "hits", ".hit"},
		{"MWo3", 4, KIND_OVL, "ovl", ".ovl"},
		{"dbsT", 4, KIND_DBST, "dbst", ".dbst"},
		{"Head ", 5, KIND_HEAD, "head", ".head"},
	};
	uint8_t buf[64];
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		memset(buf, 0, sizeof buf);
		memcpy(buf, cases[c].magic, cases[c].len);
		assert_int_equal(kind_sniff(buf, sizeof buf, sizeof buf), cases[c].kind);
		assert_int_equal(kind_sniff(buf, cases[c].len, cases[c].len), cases[c].kind);
		/* A head shorter than the magic cannot tell. */
		assert_int_equal(kind_sniff(buf, cases[c].len - 1, sizeof buf), KIND_DATA);
		/* One byte off is data. */
		buf[cases[c].len - 1] ^= 0x20;
		assert_int_equal(kind_sniff(buf, sizeof buf, sizeof buf), KIND_DATA);
		assert_string_equal(kind_name(cases[c].kind), cases[c].name);
		assert_string_equal(kind_ext(cases[c].kind), cases[c].ext);
	}
}

static void test_kind_sniff_pac_versus_data(void **state)
{
	(void)state;
	const struct pac_blob b[] = {{BYTES, 5}, {BYTES, 7}};
	uint8_t *out;
	size_t len;
	encode_ok(b, 2, 16, NULL, 0, &out, &len);
	assert_int_equal(kind_sniff(out, len, len), KIND_PAC);
	assert_int_equal(kind_sniff(out, min_sz(len, KIND_HEAD_MAX), len), KIND_PAC);
	/* The same bytes claimed to be shorter: entry 1 runs past the end. */
	assert_int_equal(kind_sniff(out, len, len - 1), KIND_DATA);
	out[4] ^= 1; /* entry 0 misplaced */
	assert_int_equal(kind_sniff(out, len, len), KIND_DATA);
	free(out);
	uint8_t text[] = "just some text, not a container";
	assert_int_equal(kind_sniff(text, sizeof text, sizeof text), KIND_DATA);
	assert_int_equal(kind_sniff(text, 0, 0), KIND_DATA);
	assert_string_equal(kind_name(KIND_PAC), "pac");
	assert_string_equal(kind_ext(KIND_PAC), ".pac");
	assert_string_equal(kind_name(KIND_DATA), "data");
	assert_string_equal(kind_ext(KIND_DATA), ".bin");
	assert_string_equal(kind_ext(KIND_COUNT), ".bin");
	assert_string_equal(kind_name((enum kind)999), "data");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_at_alignment_16),
		cmocka_unit_test(test_roundtrip_needs_8_when_16_misplaces_a_later_entry),
		cmocka_unit_test(test_roundtrip_needs_8_when_16_misplaces_the_first_entry),
		cmocka_unit_test(test_roundtrip_needs_4),
		cmocka_unit_test(test_layout_shared_by_8_and_16_reports_16),
		cmocka_unit_test(test_empty_entries_first_middle_last_roundtrip),
		cmocka_unit_test(test_tail_nonzero_is_kept_verbatim),
		cmocka_unit_test(test_tail_of_zeros_to_block_end_is_kept),
		cmocka_unit_test(test_decode_reports_tail_and_entries),
		cmocka_unit_test(test_nested_pacs_roundtrip),
		cmocka_unit_test(test_count_256_roundtrips),
		cmocka_unit_test(test_decode_rejects_count_0),
		cmocka_unit_test(test_decode_rejects_count_257),
		cmocka_unit_test(test_decode_rejects_offset_0_with_nonzero_size),
		cmocka_unit_test(test_decode_rejects_nonzero_offset_with_size_0),
		cmocka_unit_test(test_decode_rejects_entry_past_the_end),
		cmocka_unit_test(test_decode_rejects_misplaced_entry),
		cmocka_unit_test(test_decode_rejects_nonzero_padding_byte),
		cmocka_unit_test(test_decode_rejects_all_empty_table),
		cmocka_unit_test(test_decode_rejects_truncated_table),
		cmocka_unit_test(test_encode_rejects_bad_count_and_alignment),
		cmocka_unit_test(test_encode_rejects_all_empty_entries),
		cmocka_unit_test(test_decode_and_encode_survive_allocation_failure),
		cmocka_unit_test(test_free_accepts_null_and_zeroed),
		cmocka_unit_test(test_sniff_accepts_valid_pacs_from_their_head),
		cmocka_unit_test(test_sniff_rejects_200000_random_buffers),
		cmocka_unit_test(test_sniff_rejects_all_zero_buffers),
		cmocka_unit_test(test_sniff_ignores_padding_but_decode_does_not),
		cmocka_unit_test(test_sniff_rejects_what_decode_rejects_in_the_table),
		cmocka_unit_test(test_2000_random_pacs_roundtrip_byte_exactly),
		cmocka_unit_test(test_kind_sniff_tells_each_magic),
		cmocka_unit_test(test_kind_sniff_pac_versus_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
