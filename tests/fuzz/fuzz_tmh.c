/* SPDX-License-Identifier: MIT */
/* Fuzz target: TMH texture banks (codecs/tmh, codecs/tmh_edit).
 *
 * Every input goes through tmh_decode.  What decodes must encode back
 * byte for byte, and an image of it (the input's last byte says which)
 * must make a picture and a PNG that, written back into it, changes
 * nothing; what does not must fail with a
 * diagnostic.  Any violation abort()s.  Built with clang
 * -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c.
 * Its inputs are whole banks, larger than a text:
 * fuzz.sh flags: -max_len=8192
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tmh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_bytes(const struct tmh *t, const uint8_t *data, size_t size)
{
	uint8_t *out;
	size_t len;
	if (tmh_encode(t, &out, &len, NULL) != MH_OK || len != size || memcmp(out, data, size))
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmh t;
	struct mh_diag d = {0};
	enum mh_err err = tmh_decode(data, size, &t, &d);
	if (err != MH_OK) {
		if (d.code != err || !d.msg[0] || d.offset > size)
			abort();
		tmh_free(&t);
		return 0;
	}
	check_bytes(&t, data, size);
	/* One image an execution (the input's last byte picks it): its PNG
	 * costs more than all the rest. */
	for (uint32_t i = t.count ? data[size - 1] % t.count : 0; i < t.count; i = t.count) {
		struct tmh_image *im = &t.images[i];
		uint8_t *png;
		size_t len;
		/* pictures are capped: a bank's image may be larger than a PNG holds */
		if (!png_size_ok(im->width, im->height))
			continue;
		if (tmh_image_png(im, &png, &len, NULL) != MH_OK ||
		    tmh_image_replace_png(im, png, len, NULL) != MH_OK)
			abort();
		free(png);
	}
	check_bytes(&t, data, size);
	tmh_free(&t);
	return 0;
}
