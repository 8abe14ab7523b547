/* SPDX-License-Identifier: MIT */
/* Fuzz target: the kinds file's decoder (codecs/kindcache).
 *
 * Every input goes through kindcache_decode: what decodes must hold only
 * kinds in range and encode back to exactly the input; what does not
 * must fail with a diagnostic and nothing allocated.  Random bytes
 * seldom pass the magic and the checksum, so each input also builds a
 * valid file (its key and kinds from the input's bytes), which must
 * decode, then changes one of its bytes or cuts it where the input says,
 * which must be refused.  Any violation abort()s.  Built with clang
 * -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "kindcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decodes buf; `valid`: it must decode (1), must not (0), either (-1). */
static void decode_checked(const uint8_t *buf, size_t len, int valid)
{
	struct kindcache_key key;
	uint8_t *kinds, *again;
	uint32_t count;
	size_t again_len;
	struct mh_diag d = {0};
	enum mh_err err = kindcache_decode(buf, len, &key, &kinds, &count, &d);
	if (err != MH_OK) {
		if (valid == 1 || d.code != err || !d.msg[0] || kinds || count || d.offset > len)
			abort();
		return;
	}
	if (valid == 0)
		abort();
	for (uint32_t i = 0; i < count; i++)
		if (kinds[i] >= KIND_COUNT && kinds[i] != KINDCACHE_UNKNOWN)
			abort();
	if (kindcache_encode(&key, kinds, count, &again, &again_len, NULL) != MH_OK ||
	    again_len != len || memcmp(again, buf, len))
		abort();
	free(again);
	free(kinds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_checked(data, size, -1);

	/* A valid file made of the input: the key from its first bytes, a
	 * kind per remaining byte. */
	uint64_t f[11] = {0};
	size_t used = size < sizeof f ? size : sizeof f;
	memcpy(f, data, used);
	struct kindcache_key key = {f[0], f[1], f[2], (int64_t)f[3], (int64_t)f[4], (int64_t)f[5],
				    (int64_t)f[6], f[7], f[8], f[9], f[10]};
	uint32_t n = (uint32_t)(size - used);
	uint8_t *kinds = malloc(n ? n : 1), *file;
	size_t len;
	if (!kinds)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		kinds[i] = data[used + i] % (KIND_COUNT + 1);
	for (uint32_t i = 0; i < n; i++)
		if (kinds[i] == KIND_COUNT)
			kinds[i] = KINDCACHE_UNKNOWN;
	if (kindcache_encode(&key, kinds, n, &file, &len, NULL) != MH_OK)
		abort();
	free(kinds);
	decode_checked(file, len, 1);
	size_t at = (size_t)(size ? data[size - 1] * 131u + size : 0) % len;
	file[at] ^= (uint8_t)(size ? data[0] | 1 : 1);
	decode_checked(file, len, 0);
	file[at] ^= (uint8_t)(size ? data[0] | 1 : 1);
	decode_checked(file, at, 0);
	free(file);
	return 0;
}
