/* SPDX-License-Identifier: MIT */
#include "crc32.h"

#include <stdbool.h>
#include <zlib.h>

/* A carry-less multiply kernel where the compiler can build one; it runs
 * only on processors that have the instruction. */
#if defined(__x86_64__) && defined(__GNUC__)
#define CRC32_CLMUL 1
#include <immintrin.h>
#else
#define CRC32_CLMUL 0
#endif

#if CRC32_CLMUL
#define CLMUL __attribute__((target("pclmul,sse4.1")))

/* Folding, as in Intel's paper on CRC computation with PCLMULQDQ: a
 * 128-bit block A followed by n more bits of message is worth, modulo
 * the polynomial, A's halves each multiplied by x to a power that moves
 * them n bits on, so that the product added to the block n bits on
 * keeps the message's remainder.  The constants are those powers
 * modulo the polynomial, bit-reflected: for moving 512 bits (four
 * blocks in flight) and 128 (one). */
#define FOLD_512_LO 0x154442bd4ull
#define FOLD_512_HI 0x1c6e41596ull
#define FOLD_128_LO 0x1751997d0ull
#define FOLD_128_HI 0x0ccaa009eull

CLMUL static inline __m128i fold(__m128i a, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00),
					   _mm_clmulepi64_si128(a, k, 0x11)),
			     next);
}

CLMUL static inline __m128i load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* len >= 64.  The state enters the first four bytes (a CRC started from
 * state s over bytes D is the CRC from state 0 over D with s added to
 * its first four bytes); what is left after folding, one block, is then
 * a message of 16 bytes from state 0, which zlib finishes with the tail
 * shorter than a block. */
CLMUL static uint32_t crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	__m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)~crc));
	__m128i x1 = load(p + 16), x2 = load(p + 32), x3 = load(p + 48);
	p += 64;
	len -= 64;
	const __m128i k512 = _mm_set_epi64x((long long)FOLD_512_HI, (long long)FOLD_512_LO);
	for (; len >= 64; p += 64, len -= 64) {
		x0 = fold(x0, k512, load(p));
		x1 = fold(x1, k512, load(p + 16));
		x2 = fold(x2, k512, load(p + 32));
		x3 = fold(x3, k512, load(p + 48));
	}
	const __m128i k128 = _mm_set_epi64x((long long)FOLD_128_HI, (long long)FOLD_128_LO);
	__m128i x = fold(fold(fold(x0, k128, x1), k128, x2), k128, x3);
	for (; len >= 16; p += 16, len -= 16)
		x = fold(x, k128, load(p));
	uint8_t block[16];
	_mm_storeu_si128((__m128i *)(void *)block, x);
	/* zlib inverts around its state: ~0 enters as state 0. */
	uint32_t folded = (uint32_t)crc32_z(0xffffffffu, block, sizeof block);
	return (uint32_t)crc32_z(folded, p, len);
}

static bool have_clmul(void)
{
	return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#endif

uint32_t mh_crc32(uint32_t crc, const void *p, size_t len)
{
#if CRC32_CLMUL
	/* Below a few blocks the table is as fast. */
	if (len >= 256 && have_clmul())
		return crc32_clmul(crc, p, len);
#endif
	return (uint32_t)crc32_z(crc, p, len);
}
