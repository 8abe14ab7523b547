/* SPDX-License-Identifier: MIT */
#include "cipher.h"

#include <stdbool.h>

#include "bytes.h"

/* An AVX-512 VBMI kernel where the compiler can build one; it runs only on
 * processors that have it.  MH_CIPHER_PORTABLE leaves it out (the tests
 * build the portable kernel that way too). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(MH_CIPHER_PORTABLE)
#define CIPHER_AVX512 1
#include <immintrin.h>
#else
#define CIPHER_AVX512 0
#endif

#define MOD0 0xffd9u
#define MOD1 0xfff1u
#define BASE0 0x2345u
#define BASE1 0x7f8du

/* Decrypt substitution; ENC is its inverse. */
static const uint8_t DEC[256] = {
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

static const uint8_t ENC[256] = {
	0xc0, 0xa8, 0xca, 0x07, 0x4b, 0x6e, 0x48, 0x6f, 0xd6, 0x92, 0x31, 0x2c, 0x9d, 0xfb, 0xe1, 0x50,
	0x61, 0xc6, 0xe4, 0x52, 0x3e, 0x12, 0xad, 0x33, 0xae, 0xeb, 0xf3, 0x2f, 0x6b, 0x69, 0x7b, 0x53,
	0x96, 0xc4, 0xb1, 0x9c, 0x1c, 0xc5, 0x20, 0x86, 0x19, 0x13, 0xe9, 0x6a, 0x26, 0x75, 0x78, 0x8c,
	0x43, 0xed, 0x7a, 0x66, 0x5d, 0x18, 0x1d, 0xe8, 0x70, 0xa5, 0x5e, 0xf2, 0x5f, 0x58, 0x05, 0x46,
	0x0d, 0x97, 0x9e, 0x7c, 0xea, 0x65, 0xdd, 0x24, 0x8f, 0x49, 0x42, 0xaf, 0xf4, 0x25, 0xb8, 0x2b,
	0x08, 0x72, 0x17, 0xd9, 0xa4, 0xd3, 0x93, 0x71, 0x5b, 0x40, 0xb2, 0x2e, 0x0b, 0x7e, 0x4c, 0x04,
	0xf7, 0x11, 0xc1, 0x37, 0x79, 0xa7, 0x29, 0xbc, 0x1b, 0x56, 0x8b, 0xfa, 0x8d, 0x36, 0x3b, 0x6d,
	0xd4, 0x57, 0x83, 0xbd, 0x1f, 0xd7, 0x62, 0x84, 0xf5, 0xda, 0xd5, 0xab, 0xcc, 0xa2, 0x47, 0x88,
	0x9a, 0x2d, 0xc7, 0xdf, 0xcb, 0x02, 0x28, 0x41, 0xa9, 0x3d, 0xd8, 0xa1, 0x23, 0x3c, 0x81, 0x6c,
	0x5c, 0xd0, 0x68, 0xc9, 0xbf, 0x99, 0x01, 0xbe, 0xf9, 0xfc, 0xec, 0xb7, 0x0a, 0x82, 0x89, 0xdc,
	0x91, 0xef, 0x14, 0xcf, 0x34, 0x4a, 0x03, 0xd1, 0xba, 0x35, 0x8a, 0x06, 0xff, 0x38, 0xa0, 0xf0,
	0xce, 0x7d, 0x0c, 0x76, 0xc2, 0xb3, 0xac, 0x09, 0x94, 0x55, 0x54, 0x80, 0xa3, 0x95, 0xbb, 0xa6,
	0x30, 0x2a, 0xf6, 0x67, 0x1e, 0xfe, 0x77, 0x63, 0x64, 0x87, 0x60, 0x00, 0xb0, 0x98, 0x44, 0xee,
	0x4d, 0xe5, 0xc3, 0xcd, 0x51, 0x22, 0x73, 0x9b, 0xe0, 0x1a, 0x74, 0xc8, 0x5a, 0x3f, 0x4e, 0xe6,
	0xaa, 0x7f, 0x21, 0xf1, 0x59, 0x9f, 0xb9, 0x90, 0x4f, 0xe2, 0xfd, 0xb4, 0x16, 0xe3, 0xf8, 0x0e,
	0xe7, 0x15, 0x85, 0x39, 0x3a, 0xde, 0x0f, 0xd2, 0xb6, 0x8e, 0x27, 0xdb, 0xb5, 0x32, 0x45, 0x10,
};

/* base^exp mod m, for m < 2^16 so every product fits 32 bits. */
static uint32_t pow_mod(uint32_t base, uint64_t exp, uint32_t m)
{
	uint32_t result = 1 % m;
	base %= m;
	while (exp) {
		if (exp & 1)
			result = result * base % m;
		base = base * base % m;
		exp >>= 1;
	}
	return result;
}

struct cipher_key cipher_seek(uint32_t seed, uint64_t word)
{
	uint32_t k0 = seed >> 16, k1 = seed & 0xffff;
	if (k0 == 0)
		k0 = BASE0;
	if (k1 == 0)
		k1 = BASE1;
	/* Reduce first: a seed half may exceed its modulus. */
	return (struct cipher_key){
		.k0 = (k0 % MOD0) * pow_mod(BASE0, word, MOD0) % MOD0,
		.k1 = (k1 % MOD1) * pow_mod(BASE1, word, MOD1) % MOD1,
	};
}

uint32_t cipher_next(struct cipher_key *k)
{
	k->k0 = k->k0 * BASE0 % MOD0;
	k->k1 = k->k1 * BASE1 % MOD1;
	return k->k0 << 16 | k->k1;
}

/* The bytes of one word: [first, last) of its 4, with the word's key. */
static void decrypt_bytes(uint8_t *p, unsigned first, unsigned last, uint32_t key)
{
	for (unsigned i = first; i < last; i++)
		p[i - first] = DEC[p[i - first]] ^ (uint8_t)(key >> (8 * i));
}

static void encrypt_bytes(uint8_t *p, unsigned first, unsigned last, uint32_t key)
{
	for (unsigned i = first; i < last; i++)
		p[i - first] = ENC[p[i - first] ^ (uint8_t)(key >> (8 * i))];
}

/* Keys are made KEY_RUN at a time: word j of a run of words starting
 * with state k has key halves k.k0 * BASE0^(j+1) and k.k1 * BASE1^(j+1),
 * independent products the compiler can vectorise, instead of a chain of
 * dependent multiplications a word. */
#define KEY_RUN 64

struct key_powers {
	uint32_t p0[KEY_RUN], p1[KEY_RUN]; /* BASE^(j+1) mod MOD, each half */
};

static void key_powers_init(struct key_powers *kp)
{
	kp->p0[0] = BASE0;
	kp->p1[0] = BASE1;
	for (unsigned j = 1; j < KEY_RUN; j++) {
		kp->p0[j] = kp->p0[j - 1] * BASE0 % MOD0;
		kp->p1[j] = kp->p1[j - 1] * BASE1 % MOD1;
	}
}

/* The keys of the next KEY_RUN words; advances k past them. */
static void key_run(const struct key_powers *kp, struct cipher_key *k,
		    uint32_t keys[KEY_RUN])
{
	uint32_t k0 = k->k0, k1 = k->k1;
	for (unsigned j = 0; j < KEY_RUN; j++)
		keys[j] = (k0 * kp->p0[j] % MOD0) << 16 | (k1 * kp->p1[j] % MOD1);
	k->k0 = k0 * kp->p0[KEY_RUN - 1] % MOD0;
	k->k1 = k1 * kp->p1[KEY_RUN - 1] % MOD1;
}

static void decrypt_words(uint8_t *p, const uint32_t *keys, size_t words)
{
	for (size_t j = 0; j < words; j++, p += 4) {
		uint32_t w = (uint32_t)DEC[p[0]] | (uint32_t)DEC[p[1]] << 8 |
			     (uint32_t)DEC[p[2]] << 16 | (uint32_t)DEC[p[3]] << 24;
		put_le32(p, w ^ keys[j]);
	}
}

static void encrypt_words(uint8_t *p, const uint32_t *keys, size_t words)
{
	for (size_t j = 0; j < words; j++, p += 4) {
		uint32_t w = le32(p) ^ keys[j];
		p[0] = ENC[w & 0xff];
		p[1] = ENC[w >> 8 & 0xff];
		p[2] = ENC[w >> 16 & 0xff];
		p[3] = ENC[w >> 24];
	}
}

/* Whole runs of KEY_RUN words, n of them, one byte table lookup at a time. */
static void runs_portable(uint8_t *p, size_t n, struct cipher_key *k, bool decrypt)
{
	struct key_powers kp;
	uint32_t keys[KEY_RUN];
	key_powers_init(&kp);
	for (; n; n--, p += 4 * KEY_RUN) {
		key_run(&kp, k, keys);
		(decrypt ? decrypt_words : encrypt_words)(p, keys, KEY_RUN);
	}
}

/* Whole runs of words of the run seeded under a, n of them, become those
 * of the run under b: decrypted and encrypted again word by word. */
static void reencrypt_portable(uint8_t *p, size_t n, struct cipher_key *a, struct cipher_key *b)
{
	struct key_powers kp;
	uint32_t ka[KEY_RUN], kb[KEY_RUN];
	key_powers_init(&kp);
	for (; n; n--, p += 4 * KEY_RUN) {
		key_run(&kp, a, ka);
		key_run(&kp, b, kb);
		decrypt_words(p, ka, KEY_RUN);
		encrypt_words(p, kb, KEY_RUN);
	}
}

#if CIPHER_AVX512
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))
/* The helpers of the loops below, inlined (called, they pass registers
 * through memory: a fifth of a rewrite's time). */
#define AVX512_INLINE AVX512 inline __attribute__((always_inline))

/* x mod (2^16 - d) in each lane, for any 32-bit x: fold the high half down
 * twice (2^16 = d), then subtract the modulus if still above it. */
AVX512_INLINE static __m512i mod_fold(__m512i x, uint32_t d)
{
	const __m512i low = _mm512_set1_epi32(0xffff), dd = _mm512_set1_epi32((int)d);
	x = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_srli_epi32(x, 16), dd), _mm512_and_si512(x, low));
	x = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_srli_epi32(x, 16), dd), _mm512_and_si512(x, low));
	return _mm512_min_epu32(x, _mm512_sub_epi32(x, _mm512_set1_epi32((int)(0x10000 - d))));
}

/* A 256-byte table held in four registers. */
struct table512 {
	__m512i t[4];
};

AVX512_INLINE static struct table512 table512_load(const uint8_t *table)
{
	struct table512 t;
	for (int i = 0; i < 4; i++)
		t.t[i] = _mm512_loadu_si512(table + 64 * i);
	return t;
}

/* The table's byte for each of x's 64: two 128-entry permutes, the top
 * bit choosing. */
AVX512_INLINE static __m512i table512_map(const struct table512 *t, __m512i x)
{
	__m512i lo = _mm512_permutex2var_epi8(t->t[0], x, t->t[1]);
	__m512i hi = _mm512_permutex2var_epi8(t->t[2], x, t->t[3]);
	return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
}

/* The keys of words j..j+15 of the current run of state k (its halves
 * broadcast in k0, k1). */
AVX512_INLINE static __m512i keys16(__m512i k0, __m512i k1, const struct key_powers *kp, unsigned j)
{
	__m512i h0 = _mm512_mullo_epi32(k0, _mm512_loadu_si512(kp->p0 + j));
	__m512i h1 = _mm512_mullo_epi32(k1, _mm512_loadu_si512(kp->p1 + j));
	return _mm512_or_si512(_mm512_slli_epi32(mod_fold(h0, 0x10000 - MOD0), 16),
			       mod_fold(h1, 0x10000 - MOD1));
}

static void key_skip_run(const struct key_powers *kp, struct cipher_key *k)
{
	k->k0 = k->k0 * kp->p0[KEY_RUN - 1] % MOD0;
	k->k1 = k->k1 * kp->p1[KEY_RUN - 1] % MOD1;
}

/* The same as runs_portable with AVX-512 VBMI: 64 bytes a step, the
 * table in registers, 16 keys at once. */
AVX512 static void runs_avx512(uint8_t *p, size_t n, struct cipher_key *k, bool decrypt)
{
	const struct table512 t = table512_load(decrypt ? DEC : ENC);
	struct key_powers kp;
	key_powers_init(&kp);
	for (; n; n--) {
		const __m512i k0 = _mm512_set1_epi32((int)k->k0), k1 = _mm512_set1_epi32((int)k->k1);
		for (unsigned j = 0; j < KEY_RUN; j += 16, p += 64) {
			__m512i key = keys16(k0, k1, &kp, j), x = _mm512_loadu_si512(p);
			if (!decrypt)
				x = _mm512_xor_si512(x, key);
			__m512i y = table512_map(&t, x);
			if (decrypt)
				y = _mm512_xor_si512(y, key);
			_mm512_storeu_si512(p, y);
		}
		key_skip_run(&kp, k);
	}
}

/* reencrypt_portable with AVX-512 VBMI: both tables in registers, each
 * 64 bytes decrypted and encrypted again in one step. */
AVX512 static void reencrypt_avx512(uint8_t *p, size_t n, struct cipher_key *a,
				    struct cipher_key *b)
{
	const struct table512 dec = table512_load(DEC), enc = table512_load(ENC);
	struct key_powers kp;
	key_powers_init(&kp);
	for (; n; n--) {
		const __m512i a0 = _mm512_set1_epi32((int)a->k0), a1 = _mm512_set1_epi32((int)a->k1);
		const __m512i b0 = _mm512_set1_epi32((int)b->k0), b1 = _mm512_set1_epi32((int)b->k1);
		for (unsigned j = 0; j < KEY_RUN; j += 16, p += 64) {
			__m512i key = _mm512_xor_si512(keys16(a0, a1, &kp, j), keys16(b0, b1, &kp, j));
			__m512i y = _mm512_xor_si512(table512_map(&dec, _mm512_loadu_si512(p)), key);
			_mm512_storeu_si512(p, table512_map(&enc, y));
		}
		key_skip_run(&kp, a);
		key_skip_run(&kp, b);
	}
}

static bool have_avx512(void)
{
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vbmi");
}
#endif

/* One routine walks the range for both directions: a partial first word,
 * runs of whole words, single words, a partial last word. */
static void run(uint32_t seed, uint64_t offset, uint8_t *p, size_t len,
		void (*bytes)(uint8_t *, unsigned, unsigned, uint32_t),
		void (*words)(uint8_t *, const uint32_t *, size_t), bool decrypt)
{
	struct cipher_key k = cipher_seek(seed, offset / 4);
	unsigned lead = offset % 4;

	if (len == 0)
		return;
	if (lead) {
		unsigned last = len < 4 - lead ? lead + (unsigned)len : 4;
		bytes(p, lead, last, cipher_next(&k));
		p += last - lead;
		len -= last - lead;
	}
	size_t runs = len / (4 * KEY_RUN);
	if (runs) {
#if CIPHER_AVX512
		if (have_avx512())
			runs_avx512(p, runs, &k, decrypt);
		else
#endif
			runs_portable(p, runs, &k, decrypt);
		p += runs * 4 * KEY_RUN;
		len -= runs * 4 * KEY_RUN;
	}
	for (; len >= 4; p += 4, len -= 4) {
		uint32_t key = cipher_next(&k);
		words(p, &key, 1);
	}
	if (len)
		bytes(p, 0, (unsigned)len, cipher_next(&k));
}

void cipher_decrypt(uint32_t seed, uint64_t offset, void *buf, size_t len)
{
	run(seed, offset, buf, len, decrypt_bytes, decrypt_words, true);
}

void cipher_encrypt(uint32_t seed, uint64_t offset, void *buf, size_t len)
{
	run(seed, offset, buf, len, encrypt_bytes, encrypt_words, false);
}

void cipher_reencrypt(uint32_t from, uint32_t to, uint64_t offset, void *buf, size_t len)
{
	uint8_t *p = buf;
	/* Up to the next whole word one way, then whole runs in one pass. */
	size_t lead = (4 - offset % 4) % 4;
	lead = lead < len ? lead : len;
	cipher_decrypt(from, offset, p, lead);
	cipher_encrypt(to, offset, p, lead);
	p += lead;
	offset += lead;
	len -= lead;
	size_t runs = len / (4 * KEY_RUN), whole = runs * 4 * KEY_RUN;
	if (runs) {
		struct cipher_key a = cipher_seek(from, offset / 4), b = cipher_seek(to, offset / 4);
#if CIPHER_AVX512
		if (have_avx512())
			reencrypt_avx512(p, runs, &a, &b);
		else
#endif
			reencrypt_portable(p, runs, &a, &b);
	}
	cipher_decrypt(from, offset + whole, p + whole, len - whole);
	cipher_encrypt(to, offset + whole, p + whole, len - whole);
}
