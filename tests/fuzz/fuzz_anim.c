/* SPDX-License-Identifier: MIT */
/* Fuzz target: animation packs (codecs/anim) and pack.txt
 * (codecs/anim_text).
 *
 * Each input is tried four ways, and any broken promise abort()s:
 *  1. decoded as a pack (with each format hint): what decodes re-encodes
 *     byte for byte, sniffs as a pack, and goes through the text path
 *     (pack.txt + clip texts) back to the same pack; what fails leaves an
 *     empty model and a diagnostic; anim_sniff never reads past the head
 *     it is given and always answers 0, 50, 70 or 100;
 *  2. parsed as pack.txt: what parses prints and parses back equal;
 *  3. as a recipe: its first 8 bytes seed a generated pack (tests/
 *     clipgen.h) whose encoding the rest edits before decoding;
 *  4. the same recipe applied to the pack's printed pack.txt.
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

/* pack.txt and every clip's text parse back into a pack equal to a. */
static void text_path(const struct anim *a)
{
	size_t len;
	char *shape = anim_print_shape(a, &len);
	check(shape != NULL);
	struct anim b;
	check(anim_parse_shape(shape, len, &b, NULL) == MH_OK);
	check(b.nclips == a->nclips);
	for (uint32_t i = 0; i < a->nclips; i++) {
		char *text = clip_print(&a->clips[i], NULL, -1, &len);
		check(text != NULL);
		check(clip_parse(text, len, &b.clips[i], NULL) == MH_OK);
		free(text);
	}
	check(anim_equal(a, &b));
	anim_free(&b);
	free(shape);
}

static int sniff_head(const uint8_t *data, size_t size)
{
	size_t n = size < ANIM_HEAD_MAX ? size : ANIM_HEAD_MAX;
	uint8_t *head = malloc(n ? n : 1);
	check(head != NULL);
	memcpy(head, data, n);
	int score = anim_sniff(head, n, size);
	free(head);
	check(score == 0 || score == 50 || score == 70 || score == 100);
	return score;
}

static void try_decode(const uint8_t *data, size_t size, enum clip_format hint,
		       bool deep)
{
	struct anim a;
	struct mh_diag d = {0};
	enum mh_err err = anim_decode(data, size, hint, &a, &d);
	if (err) {
		check(d.code == err && d.msg[0]);
		check(!a.nstreams && !a.streams && !a.clips && !a.tail);
		return;
	}
	if (a.nstreams <= ANIM_SNIFF_MAX_STREAMS)
		check(sniff_head(data, size) != 0);
	uint8_t *out;
	size_t len;
	check(anim_encode(&a, &out, &len, &d) == MH_OK);
	check(len == size && memcmp(out, data, len) == 0);
	free(out);
	if (deep)
		text_path(&a);
	anim_free(&a);
}

static void try_parse(const char *text, size_t size)
{
	struct anim a, b;
	struct mh_diag d = {0};
	enum mh_err err = anim_parse_shape(text, size, &a, &d);
	if (err) {
		check(d.code == err && d.msg[0] && d.line >= 1 && d.col >= 1);
		check(!a.nstreams && !a.streams && !a.clips && !a.tail);
		return;
	}
	size_t len;
	char *again = anim_print_shape(&a, &len);
	check(again != NULL);
	check(anim_parse_shape(again, len, &b, NULL) == MH_OK);
	check(anim_equal(&a, &b));
	/* Empty clips of a known format encode; the bytes decode back. */
	uint8_t *out;
	if (a.format != CLIP_NONE || !a.nclips) {
		check(anim_encode(&a, &out, &len, NULL) == MH_OK);
		try_decode(out, len, a.format, false);
		free(out);
	}
	free(again);
	anim_free(&a);
	anim_free(&b);
}

static void try_recipe(const uint8_t *data, size_t size)
{
	uint64_t seed = 0;
	memcpy(&seed, data, 8);
	struct gen_rng r = {seed};
	struct anim a;
	gen_pack_within(&r, &a, 3, 6, 3);
	uint8_t *bytes;
	size_t len;
	check(anim_encode(&a, &bytes, &len, NULL) == MH_OK);
	gen_apply_edits(bytes, len, data + 8, size - 8);
	try_decode(bytes, len, a.format, true);
	try_decode(bytes, len - len / 3, CLIP_NONE, false);
	free(bytes);

	char *text = anim_print_shape(&a, &len);
	check(text != NULL);
	gen_apply_edits((uint8_t *)text, len, data + 8, size - 8);
	try_parse(text, len);
	free(text);
	anim_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sniff_head(data, size);
	try_decode(data, size, CLIP_NONE, true);
	try_decode(data, size, CLIP_P3RD, false);
	try_parse((const char *)data, size);
	if (size >= 8)
		try_recipe(data, size);
	return 0;
}
