/* SPDX-License-Identifier: MIT */
/* Tests of codecs/cipher (mhfu-archive(5) "Cipher").
 *
 * The oracle is an independent, deliberately naive model of the spec
 * written here: the key halves advanced one word at a time exactly as the
 * spec words it (seed halves NOT reduced first), and the DEC table as
 * printed in mhfu-archive(5), with ENC derived as its inverse.  Every random
 * test seeds its own generator, so each test is isolated and
 * deterministic. */
#include "cipher.h"
#include "rng.h"
#include "testlib.h"

/* ---- the spec, naively ------------------------------------------------ */

/* DEC exactly as printed in mhfu-archive(5), row r = DEC[16r .. 16r+15]. */
static const uint8_t SPEC_DEC[256] = {
	0xcb, 0x96, 0x85, 0xa6, 0x5f, 0x3e, 0xab, 0x03, 0x50, 0xb7, 0x9c, 0x5c, 0xb2, 0x40, 0xef, 0xf6,
	0xff, 0x61, 0x15, 0x29, 0xa2, 0xf1, 0xec, 0x52, 0x35, 0x28, 0xd9, 0x68, 0x24, 0x36, 0xc4, 0x74,
	0x26, 0xe2, 0xd5, 0x8c, 0x47, 0x4d, 0x2c, 0xfa, 0x86, 0x66, 0xc1, 0x4f, 0x0b, 0x81, 0x5b, 0x1b,
	0xc0, 0x0a, 0xfd, 0x17, 0xa4, 0xa9, 0x6d, 0x63, 0xad, 0xf3, 0xf4, 0x6e, 0x8d, 0x89, 0x14, 0xdd,
	0x59, 0x87, 0x4a, 0x30, 0xce, 0xfe, 0x3f, 0x7e, 0x06, 0x49, 0xa5, 0x04, 0x5e, 0xd0, 0xde, 0xe8,
	0x0f, 0xd4, 0x13, 0x1f, 0xba, 0xb9, 0x69, 0x71, 0x3d, 0xe4, 0xdc, 0x58, 0x90, 0x34, 0x3a, 0x3c,
	0xca, 0x10, 0x76, 0xc7, 0xc8, 0x45, 0x33, 0xc3, 0x92, 0x1d, 0x2b, 0x1c, 0x8f, 0x6f, 0x05, 0x07,
	0x38, 0x57, 0x51, 0xd6, 0xda, 0x2d, 0xb3, 0xc6, 0x2e, 0x64, 0x32, 0x1e, 0x43, 0xb1, 0x5d, 0xe1,
	0xbb, 0x8e, 0x9d, 0x72, 0x77, 0xf2, 0x27, 0xc9, 0x7f, 0x9e, 0xaa, 0x6a, 0x2f, 0x6c, 0xf9, 0x48,
	0xe7, 0xa0, 0x09, 0x56, 0xb8, 0xbd, 0x20, 0x41, 0xcd, 0x95, 0x80, 0xd7, 0x23, 0x0c, 0x42, 0xe5,
	0xae, 0x8b, 0x7d, 0xbc, 0x54, 0x39, 0xbf, 0x65, 0x01, 0x88, 0xe0, 0x7b, 0xb6, 0x16, 0x18, 0x4b,
	0xcc, 0x22, 0x5a, 0xb5, 0xeb, 0xfc, 0xf8, 0x9b, 0x4e, 0xe6, 0xa8, 0xbe, 0x67, 0x73, 0x97, 0x94,
	0x00, 0x62, 0xb4, 0xd2, 0x21, 0x25, 0x11, 0x82, 0xdb, 0x93, 0x02, 0x84, 0x7c, 0xd3, 0xb0, 0xa3,
	0x91, 0xa7, 0xf7, 0x55, 0x70, 0x7a, 0x08, 0x75, 0x8a, 0x53, 0x79, 0xfb, 0x9f, 0x46, 0xf5, 0x83,
	0xd8, 0x0e, 0xe9, 0xed, 0x12, 0xd1, 0xdf, 0xf0, 0x37, 0x2a, 0x44, 0x19, 0x9a, 0x31, 0xcf, 0xa1,
	0xaf, 0xe3, 0x3b, 0x1a, 0x4c, 0x78, 0xc2, 0x60, 0xee, 0x98, 0x6b, 0x0d, 0x99, 0xea, 0xc5, 0xac,
};

static void spec_enc_table(uint8_t enc[256])
{
	for (unsigned c = 0; c < 256; c++)
		enc[SPEC_DEC[c]] = (uint8_t)c;
}

/* The spec's key state: halves as seeded, never reduced beforehand. */
struct spec_key {
	uint64_t k0, k1;
};

static struct spec_key spec_seed(uint32_t seed)
{
	struct spec_key k = {seed >> 16, seed & 0xffff};
	if (k.k0 == 0)
		k.k0 = 0x2345;
	if (k.k1 == 0)
		k.k1 = 0x7f8d;
	return k;
}

static uint32_t spec_next(struct spec_key *k)
{
	k->k0 = k->k0 * 0x2345 % 0xffd9;
	k->k1 = k->k1 * 0x7f8d % 0xfff1;
	return (uint32_t)((k->k0 << 16) + k->k1);
}

/* Decrypts (or encrypts) whole words of a run, starting at word 0, the
 * slow way: one spec step per word. */
static void spec_run(uint32_t seed, uint8_t *p, size_t nwords, int decrypt)
{
	uint8_t enc[256];
	struct spec_key k = spec_seed(seed);

	spec_enc_table(enc);
	for (size_t w = 0; w < nwords; w++, p += 4) {
		uint32_t key = spec_next(&k);
		for (unsigned b = 0; b < 4; b++) {
			uint8_t kb = (uint8_t)(key >> (8 * b));
			p[b] = decrypt ? (uint8_t)(SPEC_DEC[p[b]] ^ kb)
				       : enc[(uint8_t)(p[b] ^ kb)];
		}
	}
}

/* Same, for whole words starting at word `first` of the run, keyed through
 * cipher_seek (itself checked against spec_next by the seek tests). */
static void seek_run(uint32_t seed, uint64_t first, uint8_t *p, size_t nwords,
		     int decrypt)
{
	uint8_t enc[256];
	struct cipher_key k = cipher_seek(seed, first);

	spec_enc_table(enc);
	for (size_t w = 0; w < nwords; w++, p += 4) {
		uint32_t key = cipher_next(&k);
		for (unsigned b = 0; b < 4; b++) {
			uint8_t kb = (uint8_t)(key >> (8 * b));
			p[b] = decrypt ? (uint8_t)(SPEC_DEC[p[b]] ^ kb)
				       : enc[(uint8_t)(p[b] ^ kb)];
		}
	}
}

/* Seeds that exercise every branch of seeding: zero halves (replaced by
 * the bases), halves at and above the moduli 0xffd9 / 0xfff1, extremes. */
static const uint32_t EDGE_SEEDS[] = {
	0x00000000, 0x00000001, 0x00000011, 0x00012345, 0x00010000, 0xffff0000,
	0x0000ffff, 0xffd90000, 0xffd80000, 0xffda0000, 0xffe00000, 0x0000fff1,
	0x0000fff0, 0x0000fff2, 0x0000fffa, 0xffd9fff1, 0xffdafff2, 0xffffffff,
	0x23450000, 0x00007f8d, 0x23457f8d, 0x80000000, 0x00008000, 0x000823c5,
};
#define NSEEDS (sizeof EDGE_SEEDS / sizeof *EDGE_SEEDS)

/* ---- mhfu-archive(5) test vectors --------------------------------------- */

static void check_keys(uint32_t seed, const uint32_t *want, size_t n)
{
	struct cipher_key k = cipher_seek(seed, 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t got = cipher_next(&k);
		if (got != want[i])
			fail_msg("seed %#x key %zu: got %08x, want %08x", seed,
				 i, got, want[i]);
	}
}

static void test_keys_seed_0_match_formats_vectors(void **state)
{
	(void)state;
	static const uint32_t want[] = {0xae1ded19, 0x8cd1ea1d, 0x7c542b0d, 0x9af96af5};
	check_keys(0, want, 4);
}

static void test_keys_seed_17_match_formats_vectors(void **state)
{
	(void)state;
	static const uint32_t want[] = {0xae1d78d5, 0x8cd1bf8a};
	check_keys(17, want, 2);
}

static void test_keys_seed_0x12345_match_formats_vectors(void **state)
{
	(void)state;
	static const uint32_t want[] = {0x2345af9e, 0xae1d3cd1};
	check_keys(0x12345, want, 2);
}

static void test_spec_model_agrees_with_formats_vectors(void **state)
{
	(void)state;
	/* The oracle itself must reproduce the published keys. */
	struct spec_key k = spec_seed(0);
	assert_int_equal(spec_next(&k), 0xae1ded19);
	assert_int_equal(spec_next(&k), 0x8cd1ea1d);
	k = spec_seed(0x12345);
	assert_int_equal(spec_next(&k), 0x2345af9e);
}

static void test_encrypt_word_17_at_seed_0_gives_d6e369a0(void **state)
{
	(void)state;
	uint8_t w[4] = {0x11, 0x00, 0x00, 0x00};
	static const uint8_t want[4] = {0xd6, 0xe3, 0x69, 0xa0};
	cipher_encrypt(0, 0, w, 4);
	assert_memory_equal(w, want, 4);
}

static void test_decrypt_mhp3rd_head_gives_start_list(void **state)
{
	(void)state;
	uint8_t b[16] = {0xd6, 0xe3, 0x69, 0xa0, 0x53, 0x0e, 0xe5, 0x23,
			 0x45, 0xb1, 0xa4, 0xcc, 0xc6, 0x79, 0x8e, 0xec};
	cipher_decrypt(0, 0, b, sizeof b);
	assert_int_equal(load_le32(b + 0), 17);
	assert_int_equal(load_le32(b + 4), 1282);
	assert_int_equal(load_le32(b + 8), 2547);
	assert_int_equal(load_le32(b + 12), 3812);
}

static void test_substitutions_match_formats_tables(void **state)
{
	(void)state;
	uint8_t enc[256];
	spec_enc_table(enc);
	/* DEC is a permutation, so its inverse is well defined. */
	int seen[256] = {0};
	for (unsigned c = 0; c < 256; c++)
		seen[SPEC_DEC[c]]++;
	for (unsigned c = 0; c < 256; c++)
		assert_int_equal(seen[c], 1);
	/* Byte 0 of word 0 at seed 0 is keyed with 0x19 (key ae1ded19). */
	for (unsigned c = 0; c < 256; c++) {
		uint8_t b = (uint8_t)c;
		cipher_decrypt(0, 0, &b, 1);
		assert_int_equal(b, SPEC_DEC[c] ^ 0x19);
		b = (uint8_t)c;
		cipher_encrypt(0, 0, &b, 1);
		assert_int_equal(b, enc[c ^ 0x19]);
	}
}

/* ---- seeking ---------------------------------------------------------- */

/* Walks `steps` words from cipher_seek(seed, 0), checking at every word
 * that cipher_seek lands on the same state and that the key agrees with
 * the naive spec. */
static void check_seek_walk(uint32_t seed, uint64_t steps)
{
	struct cipher_key walk = cipher_seek(seed, 0);
	struct spec_key spec = spec_seed(seed);

	for (uint64_t n = 0; n < steps; n++) {
		struct cipher_key s = cipher_seek(seed, n);
		if (s.k0 != walk.k0 || s.k1 != walk.k1)
			fail_msg("seed %#x word %llu: seek gives {%#x, %#x}, "
				 "stepping gives {%#x, %#x}", seed,
				 (unsigned long long)n, s.k0, s.k1, walk.k0,
				 walk.k1);
		uint32_t a = cipher_next(&s), b = cipher_next(&walk);
		uint32_t c = spec_next(&spec);
		if (a != b || b != c)
			fail_msg("seed %#x word %llu: seek key %08x, stepped "
				 "key %08x, spec key %08x", seed,
				 (unsigned long long)n, a, b, c);
	}
}

static void test_seek_equals_stepping_for_edge_seeds(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSEEDS; i++)
		check_seek_walk(EDGE_SEEDS[i], 3000);
}

static void test_seek_equals_stepping_for_random_seeds(void **state)
{
	(void)state;
	struct rng r = {0xC1F3E5u};
	for (int i = 0; i < 64; i++)
		check_seek_walk((uint32_t)rng_next(&r), 700);
}

static void test_seek_equals_stepping_over_a_full_period(void **state)
{
	(void)state;
	/* 0xffd9 and 0xfff1 bound the orders of both halves, so 70000 words
	 * pass every exponent residue at least once. */
	check_seek_walk(0, 70000);
	check_seek_walk(0xffdafff2, 70000);
}

static void test_seek_far_then_step_equals_seek_further(void **state)
{
	(void)state;
	struct rng r = {0x5EEC};
	for (int i = 0; i < 2000; i++) {
		uint32_t seed = i < (int)NSEEDS ? EDGE_SEEDS[i] : (uint32_t)rng_next(&r);
		uint64_t n = rng_next(&r) >> (rng_below(&r, 64));
		unsigned k = (unsigned)rng_below(&r, 40);
		if (n > UINT64_MAX - k - 1)
			n = UINT64_MAX - k - 1;
		struct cipher_key a = cipher_seek(seed, n);
		for (unsigned j = 0; j < k; j++)
			cipher_next(&a);
		struct cipher_key b = cipher_seek(seed, n + k);
		if (a.k0 != b.k0 || a.k1 != b.k1)
			fail_msg("seed %#x: seek(%llu)+%u steps != seek(%llu)",
				 seed, (unsigned long long)n, k,
				 (unsigned long long)(n + k));
	}
}

static void test_seek_state_halves_stay_below_moduli(void **state)
{
	(void)state;
	struct rng r = {0xB0D};
	for (size_t i = 0; i < NSEEDS; i++)
		for (int j = 0; j < 50; j++) {
			struct cipher_key k = cipher_seek(EDGE_SEEDS[i], rng_next(&r));
			assert_true(k.k0 < 0xffd9);
			assert_true(k.k1 < 0xfff1);
		}
}

/* ---- ranges ----------------------------------------------------------- */

static void check_ranges(struct rng *r, uint32_t seed, uint64_t base,
			 const uint8_t *raw, const uint8_t *whole, size_t w,
			 int ranges, int decrypt)
{
	uint8_t *buf = malloc(w ? w : 1);
	assert_non_null(buf);
	for (int i = 0; i < ranges; i++) {
		size_t off = (size_t)rng_below(r, w + 1);
		size_t max = w - off < 5000 ? w - off : 5000;
		size_t len = (size_t)rng_below(r, max + 1);
		/* Bias towards tiny ranges and word edges now and then. */
		if (rng_below(r, 4) == 0 && max)
			len = (size_t)rng_below(r, max < 9 ? max + 1 : 9);
		memcpy(buf, raw + off, len);
		if (decrypt)
			cipher_decrypt(seed, base + off, buf, len);
		else
			cipher_encrypt(seed, base + off, buf, len);
		if (memcmp(buf, whole + off, len))
			fail_msg("seed %#x %s of [%llu, +%zu) differs from the "
				 "whole run", seed, decrypt ? "decrypt" : "encrypt",
				 (unsigned long long)(base + off), len);
	}
	free(buf);
}

static void test_ranges_decrypt_like_whole_run_from_start(void **state)
{
	(void)state;
	struct rng r = {0xDEC0DE};
	enum { W = 12288 };
	uint8_t *raw = malloc(W), *whole = malloc(W);
	assert_non_null(raw);
	assert_non_null(whole);
	for (int s = 0; s < 8; s++) {
		uint32_t seed = s < 4 ? EDGE_SEEDS[s * 5] : (uint32_t)rng_next(&r);
		rng_bytes(&r, raw, W);
		memcpy(whole, raw, W);
		spec_run(seed, whole, W / 4, 1);
		check_ranges(&r, seed, 0, raw, whole, W, 400, 1);
		/* The library's own whole-run decryption agrees too. */
		uint8_t *lib = malloc(W);
		assert_non_null(lib);
		memcpy(lib, raw, W);
		cipher_decrypt(seed, 0, lib, W);
		assert_memory_equal(lib, whole, W);
		free(lib);
	}
	free(raw);
	free(whole);
}

static void test_ranges_encrypt_like_whole_run_from_start(void **state)
{
	(void)state;
	struct rng r = {0xE2C0DE};
	enum { W = 12288 };
	uint8_t *raw = malloc(W), *whole = malloc(W);
	assert_non_null(raw);
	assert_non_null(whole);
	for (int s = 0; s < 8; s++) {
		uint32_t seed = s < 4 ? EDGE_SEEDS[s * 5 + 1] : (uint32_t)rng_next(&r);
		rng_bytes(&r, raw, W);
		memcpy(whole, raw, W);
		spec_run(seed, whole, W / 4, 0);
		check_ranges(&r, seed, 0, raw, whole, W, 400, 0);
	}
	free(raw);
	free(whole);
}

/* Windows of a run far from its start (up to ~2^33 bytes and around the
 * 2^32-byte and 2^30-word marks), where a whole-run oracle from word 0
 * would be too slow: the window is processed word by word from a
 * word-aligned base, then random unaligned sub-ranges are compared. */
static void check_far_windows(uint64_t rng_seed, int decrypt)
{
	struct rng r = {rng_seed};
	enum { W = 10240 };
	static const uint64_t MARKS[] = {
		(1ull << 32) - 4096, (1ull << 33) - 8192, (1ull << 30) * 4 - 6000,
		(1ull << 31) - 2, (1ull << 33), 0xffd9ull * 4 * 7 - 3,
		0xfff1ull * 4 * 11 + 1, 0x823c5ull * 2048 - 5120,
	};
	uint8_t *raw = malloc(W), *whole = malloc(W);
	assert_non_null(raw);
	assert_non_null(whole);
	for (int i = 0; i < 40; i++) {
		uint32_t seed = i % 3 ? (uint32_t)rng_next(&r)
				      : EDGE_SEEDS[rng_below(&r, NSEEDS)];
		uint64_t base = i < 8 ? MARKS[i] : rng_below(&r, (1ull << 33) + 1);
		base &= ~3ull;
		rng_bytes(&r, raw, W);
		memcpy(whole, raw, W);
		seek_run(seed, base / 4, whole, W / 4, decrypt);
		check_ranges(&r, seed, base, raw, whole, W, 150, decrypt);
	}
	free(raw);
	free(whole);
}

static void test_ranges_decrypt_like_whole_run_at_large_offsets(void **state)
{
	(void)state;
	check_far_windows(0xFA2DEC, 1);
}

static void test_ranges_encrypt_like_whole_run_at_large_offsets(void **state)
{
	(void)state;
	check_far_windows(0xFA2E2C, 0);
}

static void test_chunked_decrypt_equals_one_call(void **state)
{
	(void)state;
	struct rng r = {0xC4C4};
	enum { W = 9000 };
	uint8_t *raw = malloc(W), *one = malloc(W), *chunked = malloc(W);
	assert_non_null(raw);
	assert_non_null(one);
	assert_non_null(chunked);
	for (int i = 0; i < 30; i++) {
		uint32_t seed = (uint32_t)rng_next(&r);
		uint64_t base = rng_below(&r, 1ull << 33);
		rng_bytes(&r, raw, W);
		memcpy(one, raw, W);
		memcpy(chunked, raw, W);
		cipher_decrypt(seed, base, one, W);
		for (size_t off = 0; off < W;) {
			size_t n = (size_t)rng_below(&r, 13);
			if (n > W - off)
				n = W - off;
			cipher_decrypt(seed, base + off, chunked + off, n);
			off += n;
		}
		assert_memory_equal(one, chunked, W);
	}
	free(raw);
	free(one);
	free(chunked);
}

static void test_encrypt_decrypt_roundtrip_is_identity(void **state)
{
	(void)state;
	struct rng r = {0x1D1D};
	enum { W = 6000 };
	uint8_t *raw = malloc(W), *buf = malloc(W);
	assert_non_null(raw);
	assert_non_null(buf);
	for (int i = 0; i < 1500; i++) {
		uint32_t seed = i < (int)NSEEDS ? EDGE_SEEDS[i] : (uint32_t)rng_next(&r);
		uint64_t off = rng_below(&r, 4) ? rng_below(&r, 1ull << 34)
						: rng_below(&r, 64);
		size_t len = (size_t)rng_below(&r, W + 1);
		rng_bytes(&r, raw, len);
		memcpy(buf, raw, len);
		cipher_encrypt(seed, off, buf, len);
		cipher_decrypt(seed, off, buf, len);
		if (memcmp(buf, raw, len))
			fail_msg("decrypt(encrypt(x)) != x: seed %#x offset "
				 "%llu len %zu", seed, (unsigned long long)off, len);
		cipher_decrypt(seed, off, buf, len);
		cipher_encrypt(seed, off, buf, len);
		if (memcmp(buf, raw, len))
			fail_msg("encrypt(decrypt(x)) != x: seed %#x offset "
				 "%llu len %zu", seed, (unsigned long long)off, len);
	}
	free(raw);
	free(buf);
}

static void test_reencrypt_is_decrypt_then_encrypt(void **state)
{
	(void)state;
	struct rng r = {0x2E2E};
	enum { W = 9000 };
	uint8_t *raw = malloc(W), *want = malloc(W), *got = malloc(W);
	assert_true(raw && want && got);
	for (int i = 0; i < 800; i++) {
		uint32_t from = i < (int)NSEEDS ? EDGE_SEEDS[i] : (uint32_t)rng_next(&r);
		uint32_t to = i % 7 == 0 ? from : (uint32_t)rng_next(&r);
		size_t len = i % 3 ? (size_t)rng_below(&r, W + 1) : 2048 * (size_t)rng_below(&r, 5);
		/* From the run's start, a block boundary, or any byte. */
		uint64_t off = i % 4 == 0 ? 0 : i % 4 == 1 ? 2048 * rng_below(&r, 1u << 20)
							    : rng_next(&r) % (1ull << 34);
		rng_bytes(&r, raw, len);
		memcpy(want, raw, len);
		memcpy(got, raw, len);
		cipher_decrypt(from, off, want, len);
		cipher_encrypt(to, off, want, len);
		cipher_reencrypt(from, to, off, got, len);
		if (memcmp(got, want, len))
			fail_msg("reencrypt(%#x, %#x) of %zu bytes at %llu is not decrypt then "
				 "encrypt", from, to, len, (unsigned long long)off);
	}
	free(raw);
	free(want);
	free(got);
}

static void test_zero_length_leaves_buffer_untouched(void **state)
{
	(void)state;
	uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8}, c[8];
	memcpy(c, b, 8);
	for (uint64_t off = 0; off < 9; off++) {
		cipher_decrypt(0x1234, off, b + 4, 0);
		cipher_encrypt(0x1234, off, b + 4, 0);
	}
	assert_memory_equal(b, c, 8);
}

static void test_range_touches_only_its_bytes(void **state)
{
	(void)state;
	struct rng r = {0x70C4};
	uint8_t buf[64], keep[64];
	for (int i = 0; i < 500; i++) {
		rng_bytes(&r, buf, sizeof buf);
		memcpy(keep, buf, sizeof buf);
		size_t off = 8 + (size_t)rng_below(&r, 40);
		size_t len = (size_t)rng_below(&r, 9);
		cipher_decrypt((uint32_t)rng_next(&r), rng_next(&r) >> 30,
			       buf + off, len);
		assert_memory_equal(buf, keep, off);
		assert_memory_equal(buf + off + len, keep + off + len,
				    sizeof buf - off - len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_seed_0_match_formats_vectors),
		cmocka_unit_test(test_keys_seed_17_match_formats_vectors),
		cmocka_unit_test(test_keys_seed_0x12345_match_formats_vectors),
		cmocka_unit_test(test_spec_model_agrees_with_formats_vectors),
		cmocka_unit_test(test_encrypt_word_17_at_seed_0_gives_d6e369a0),
		cmocka_unit_test(test_decrypt_mhp3rd_head_gives_start_list),
		cmocka_unit_test(test_substitutions_match_formats_tables),
		cmocka_unit_test(test_seek_equals_stepping_for_edge_seeds),
		cmocka_unit_test(test_seek_equals_stepping_for_random_seeds),
		cmocka_unit_test(test_seek_equals_stepping_over_a_full_period),
		cmocka_unit_test(test_seek_far_then_step_equals_seek_further),
		cmocka_unit_test(test_seek_state_halves_stay_below_moduli),
		cmocka_unit_test(test_ranges_decrypt_like_whole_run_from_start),
		cmocka_unit_test(test_ranges_encrypt_like_whole_run_from_start),
		cmocka_unit_test(test_ranges_decrypt_like_whole_run_at_large_offsets),
		cmocka_unit_test(test_ranges_encrypt_like_whole_run_at_large_offsets),
		cmocka_unit_test(test_chunked_decrypt_equals_one_call),
		cmocka_unit_test(test_encrypt_decrypt_roundtrip_is_identity),
		cmocka_unit_test(test_reencrypt_is_decrypt_then_encrypt),
		cmocka_unit_test(test_zero_length_leaves_buffer_untouched),
		cmocka_unit_test(test_range_touches_only_its_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
