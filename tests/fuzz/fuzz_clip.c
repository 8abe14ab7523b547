/* SPDX-License-Identifier: MIT */
/* Fuzz target: clips, binary (codecs/clip) and text (codecs/clip_text).
 *
 * Each input is tried four ways, and any broken promise abort()s:
 *  1. decoded as an MHFU and as an MHP3rd clip: what decodes re-encodes
 *     to exactly the bytes consumed, and prints and parses back equal;
 *     what fails leaves an empty clip and a diagnostic;
 *  2. parsed as clip text: what parses prints and parses back equal, and
 *     survives a binary round trip in each format it fits;
 *  3. as a recipe: its first 8 bytes seed a generated clip (tests/
 *     clipgen.h) whose encoding the rest edits before decoding, so the
 *     decoder sees near-valid clips even from a random-bytes driver;
 *  4. the same recipe applied to the clip's printed text, then parsed.
 * Built with clang -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with
 * tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clipgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

/* Print -> parse gives c back. */
static void text_back(const struct clip *c)
{
	size_t len;
	char *text = clip_print(c, "fuzz", 0, &len);
	check(text != NULL);
	struct clip back;
	struct mh_diag d = {0};
	check(clip_parse(text, len, &back, &d) == MH_OK);
	check(clip_equal(c, &back));
	clip_free(&back);
	free(text);
}

/* Decodes bytes as format f and checks whatever happens. */
static void try_decode(enum clip_format f, const uint8_t *data, size_t size)
{
	struct clip c;
	size_t used = 1;
	struct mh_diag d = {0};
	enum mh_err err = clip_decode(f, data, size, &c, &used, &d);
	if (err) {
		check(d.code == err && d.msg[0] && used == 0);
		check(c.ntracks == 0 && c.tracks == NULL);
		return;
	}
	check(used <= size && used == clip_size(f, &c));
	uint8_t *out;
	size_t len;
	check(clip_encode(f, &c, &out, &len, &d) == MH_OK);
	check(len == used && memcmp(out, data, len) == 0);
	free(out);
	text_back(&c);
	clip_free(&c);
}

/* A parsed clip in each binary format it fits. */
static void try_binary(const struct clip *c)
{
	for (int f = CLIP_MHFU; f <= CLIP_P3RD; f++) {
		uint8_t *out;
		size_t len, used;
		struct clip back;
		if (clip_encode((enum clip_format)f, c, &out, &len, NULL))
			continue;
		check(clip_decode((enum clip_format)f, out, len, &back, &used,
				  NULL) == MH_OK && used == len);
		if (f == CLIP_MHFU)
			check(clip_equal(c, &back));
		uint8_t *again;
		size_t n;
		check(clip_encode((enum clip_format)f, &back, &again, &n, NULL) ==
		      MH_OK);
		check(n == len && memcmp(again, out, n) == 0);
		free(again);
		free(out);
		clip_free(&back);
	}
}

static void try_parse(const char *text, size_t size)
{
	struct clip c;
	struct mh_diag d = {0};
	enum mh_err err = clip_parse(text, size, &c, &d);
	if (err) {
		check(d.code == err && d.msg[0] && d.line >= 1 && d.col >= 1);
		check(c.ntracks == 0 && c.tracks == NULL);
		return;
	}
	text_back(&c);
	try_binary(&c);
	clip_free(&c);
}

static void try_recipe(const uint8_t *data, size_t size)
{
	uint64_t seed = 0;
	memcpy(&seed, data, 8);
	struct gen_rng r = {seed};
	enum clip_format f = data[0] & 1 ? CLIP_P3RD : CLIP_MHFU;
	enum gen_style style = data[1] % 3 == 0 ? GEN_WILD :
			       f == CLIP_MHFU ? GEN_NATIVE_FU : GEN_NATIVE_P3;
	struct clip c;
	gen_clip(&r, style, gen_below(&r, 6), 4, &c);
	uint8_t *bytes;
	size_t len;
	check(clip_encode(f, &c, &bytes, &len, NULL) == MH_OK);
	gen_apply_edits(bytes, len, data + 8, size - 8);
	try_decode(f, bytes, len);
	try_decode(f, bytes, len / 2);
	free(bytes);

	char *text = clip_print(&c, NULL, -1, &len);
	check(text != NULL);
	gen_apply_edits((uint8_t *)text, len, data + 8, size - 8);
	try_parse(text, len);
	free(text);
	clip_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	try_decode(CLIP_MHFU, data, size);
	try_decode(CLIP_P3RD, data, size);
	try_parse((const char *)data, size);
	if (size >= 8)
		try_recipe(data, size);
	return 0;
}
