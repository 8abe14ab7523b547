/* SPDX-License-Identifier: MIT */
/* Tests of codecs/kindcache: the kinds file round-trips byte for byte,
 * its layout is the documented one (read back with the test's own
 * little-endian helpers), and every file it would not have written is
 * refused: each byte changed, each length cut or grown, a kind out of
 * range, a count past the bound; the TOC hash follows every part of the
 * TOC; allocation failures end cleanly. */
#include "faults.h"
#include "kind.h"
#include "kindcache.h"
#include "rng.h"
#include "testlib.h"

static struct kindcache_key some_key(struct rng *r)
{
	return (struct kindcache_key){
		.dev = rng_next(r), .ino = rng_next(r), .size = rng_next(r),
		.mtime_sec = (int64_t)rng_next(r), .mtime_nsec = rng_range(r, 0, 999999999),
		.ctime_sec = (int64_t)rng_next(r), .ctime_nsec = rng_range(r, 0, 999999999),
		.toc = rng_next(r), .driver = rng_next(r), .game = rng_range(r, 0, 3),
		.encrypted = rng_range(r, 0, 1)};
}

static void some_kinds(struct rng *r, uint8_t *k, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = rng_range(r, 0, KIND_COUNT);
		k[i] = v == KIND_COUNT ? KINDCACHE_UNKNOWN : (uint8_t)v;
	}
}

static uint64_t field64(const uint8_t *p)
{
	return (uint64_t)load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}

/* FNV-1a 64, computed here: the file's checksum. */
static uint64_t checksum(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void test_roundtrip(void **state)
{
	(void)state;
	struct rng r = {1};
	for (uint32_t n = 0; n < 300; n += 1 + n / 4) {
		struct kindcache_key key = some_key(&r), back;
		uint8_t kinds[400], *out, *again, *got;
		size_t len, len2;
		uint32_t count;
		some_kinds(&r, kinds, n);
		assert_int_equal(kindcache_encode(&key, kinds, n, &out, &len, NULL), MH_OK);
		assert_int_equal(len, KINDCACHE_HEAD + n + KINDCACHE_TAIL);
		assert_int_equal(kindcache_decode(out, len, &back, &got, &count, NULL), MH_OK);
		assert_int_equal(count, n);
		assert_true(kindcache_key_equal(&key, &back));
		if (n)
			assert_memory_equal(got, kinds, n);
		assert_int_equal(kindcache_encode(&back, got, count, &again, &len2, NULL), MH_OK);
		assert_int_equal(len2, len);
		assert_memory_equal(again, out, len);
		free(out);
		free(again);
		free(got);
	}
}

static void test_layout(void **state)
{
	(void)state;
	struct kindcache_key key = {.dev = 0x801, .ino = 12345, .size = 21293056,
				    .mtime_sec = 1764600000, .mtime_nsec = 5, .ctime_sec = 1764600001,
				    .ctime_nsec = 6, .toc = 0x1122334455667788ull, .driver = 9,
				    .game = 1, .encrypted = 1};
	const uint8_t kinds[3] = {KIND_PAC, KINDCACHE_UNKNOWN, KIND_DATA};
	uint8_t *out;
	size_t len;
	assert_int_equal(kindcache_encode(&key, kinds, 3, &out, &len, NULL), MH_OK);
	assert_memory_equal(out, "MHFUKIND", 8);
	assert_int_equal(load_le32(out + 8), 1);
	assert_int_equal(load_le32(out + 12), 3);
	const uint64_t fields[11] = {0x801, 12345, 21293056, 1764600000, 5, 1764600001, 6,
				     0x1122334455667788ull, 9, 1, 1};
	for (unsigned i = 0; i < 11; i++)
		assert_int_equal(field64(out + 16 + 8 * i), fields[i]);
	assert_memory_equal(out + 104, kinds, 3);
	assert_int_equal(field64(out + len - 8), checksum(out, len - 8));
	free(out);
}

static void test_every_damage_refused(void **state)
{
	(void)state;
	struct rng r = {2};
	struct kindcache_key key = some_key(&r), back;
	uint8_t kinds[40], *out, *got;
	size_t len;
	uint32_t count;
	some_kinds(&r, kinds, sizeof kinds);
	assert_int_equal(kindcache_encode(&key, kinds, sizeof kinds, &out, &len, NULL), MH_OK);
	uint8_t *bad = malloc(len + 1);
	for (size_t at = 0; at < len; at++)
		for (unsigned bit = 0; bit < 8; bit++) {
			struct mh_diag d = {0};
			memcpy(bad, out, len);
			bad[at] ^= (uint8_t)(1u << bit);
			enum mh_err err = kindcache_decode(bad, len, &back, &got, &count, &d);
			assert_int_not_equal(err, MH_OK);
			assert_null(got);
			assert_true(d.msg[0] != '\0');
		}
	for (size_t cut = 0; cut < len; cut++) {
		struct mh_diag d = {0};
		assert_int_not_equal(kindcache_decode(out, cut, &back, &got, &count, &d), MH_OK);
		assert_null(got);
	}
	memcpy(bad, out, len);
	bad[len] = 0;
	assert_int_equal(kindcache_decode(bad, len + 1, &back, &got, &count, NULL), MH_ECORRUPT);
	free(bad);
	free(out);
}

static void test_refusals(void **state)
{
	(void)state;
	struct kindcache_key key = {0}, back;
	uint8_t kinds[2] = {KIND_COUNT, 0}, *out, *got;
	size_t len;
	uint32_t count;
	struct mh_diag d = {0};
	enum mh_err err = kindcache_encode(&key, kinds, 2, &out, &len, &d);
	assert_diag(&d, err, MH_ERANGE, 0);
	assert_diag_says(&d, "entry 0");
	err = kindcache_encode(&key, kinds, KINDCACHE_MAX_ENTRIES + 1, &out, &len, &d);
	assert_diag(&d, err, MH_ERANGE, 0);
	/* A kind out of range under a valid checksum: a file no build wrote. */
	kinds[0] = 0;
	assert_int_equal(kindcache_encode(&key, kinds, 2, &out, &len, NULL), MH_OK);
	out[KINDCACHE_HEAD + 1] = KIND_COUNT;
	uint64_t h = checksum(out, len - 8);
	store_le32(out + len - 8, (uint32_t)h);
	store_le32(out + len - 4, (uint32_t)(h >> 32));
	err = kindcache_decode(out, len, &back, &got, &count, &d);
	assert_diag(&d, err, MH_ECORRUPT, KINDCACHE_HEAD + 1);
	/* A count past the bound, whatever the length. */
	store_le32(out + 12, KINDCACHE_MAX_ENTRIES + 1);
	err = kindcache_decode(out, len, &back, &got, &count, &d);
	assert_diag(&d, err, MH_ECORRUPT, 12);
	memcpy(out, "MHFUKINE", 8);
	err = kindcache_decode(out, len, &back, &got, &count, &d);
	assert_diag(&d, err, MH_EUNKNOWN, 0);
	free(out);
}

static void test_key_and_toc_hash(void **state)
{
	(void)state;
	struct rng r = {3};
	struct kindcache_key a = some_key(&r), b = a;
	assert_true(kindcache_key_equal(&a, &b));
	int64_t *fields[] = {&b.mtime_sec, &b.mtime_nsec, &b.ctime_sec, &b.ctime_nsec};
	for (unsigned i = 0; i < 4; i++) {
		b = a;
		*fields[i] += 1;
		assert_false(kindcache_key_equal(&a, &b));
	}
	b = a;
	b.encrypted ^= 1;
	assert_false(kindcache_key_equal(&a, &b));

	uint32_t start[4] = {1, 2, 5, 9};
	struct databin_size sizes[2] = {{0, 100}, {2, 3000}};
	uint8_t fill[3] = {7, 8, 9};
	struct databin db = {.count = 3, .start = start, .nsizes = 2, .sizes = sizes,
			     .fill = fill, .fill_len = 3};
	uint64_t h = kindcache_toc_hash(&db);
	assert_int_equal(kindcache_toc_hash(&db), h);
	start[2] = 6;
	assert_int_not_equal(kindcache_toc_hash(&db), h);
	start[2] = 5;
	sizes[1].size = 3001;
	assert_int_not_equal(kindcache_toc_hash(&db), h);
	sizes[1].size = 3000;
	fill[2] = 0;
	assert_int_not_equal(kindcache_toc_hash(&db), h);
	fill[2] = 9;
	db.nsizes = 1;
	assert_int_not_equal(kindcache_toc_hash(&db), h);
}

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct rng r = {4};
	struct kindcache_key key = some_key(&r), back;
	uint8_t kinds[10], *buf;
	size_t len;
	some_kinds(&r, kinds, sizeof kinds);
	assert_int_equal(kindcache_encode(&key, kinds, sizeof kinds, &buf, &len, NULL), MH_OK);
	long live = faults_live;
	for (int what = 0; what < 2; what++)
		for (long k = 0;; k++) {
			struct mh_diag d = {0};
			uint8_t *out = NULL, *got = NULL;
			size_t n;
			uint32_t count;
			faults_arm(k);
			enum mh_err err = what ? kindcache_decode(buf, len, &back, &got, &count, &d)
					       : kindcache_encode(&key, kinds, sizeof kinds, &out, &n, &d);
			bool fired = faults_disarm();
			free(out);
			free(got);
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				break;
			}
			assert_diag(&d, err, MH_ENOMEM, 0);
		}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_every_damage_refused),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_key_and_toc_hash),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
