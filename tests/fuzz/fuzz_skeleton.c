/* SPDX-License-Identifier: MIT */
/* Fuzz target: the skeleton codec (codecs/skeleton.c, skeleton_text.c).
 *
 * Each input is used four ways:
 *  1. as bytes: skeleton_sniff (given only the head it is promised to
 *     need) and skeleton_decode; what decodes must re-encode byte for
 *     byte, and print -> parse -> encode must give the same bytes again
 *     and the parsed skeleton the same text;
 *  2. as a recipe: its bytes are laid over a skeleton whose header and
 *     section words are mostly made right (some left wrong on purpose), so
 *     the decoder's later checks and the carried extras get exercised even
 *     by a driver that knows nothing of skeletons; checked as in 1;
 *  3. as text: skeleton_parse; what parses must encode, decode back to
 *     the same bytes, and then go round as in 1;
 *  4. spliced into the printed text of 2, so the parser sees near-valid
 *     lines; checked as in 3.
 * Any violation abort()s.  Built with clang -fsanitize=fuzzer
 * (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skeleton.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Encodes s, requiring success; the caller frees. */
static uint8_t *encode(const struct skeleton *s, size_t *len)
{
	uint8_t *out;
	struct mh_diag d = {0};
	check(skeleton_encode(s, &out, len, &d) == MH_OK);
	return out;
}

/* print -> parse -> encode gives bytes again, and the parsed skeleton
 * prints the same text; returns that text (the caller frees). */
static char *check_text(const struct skeleton *s, const uint8_t *bytes, size_t len,
			size_t *tlen)
{
	size_t tlen2, blen;
	char *text = skeleton_print(s, "fuzz\nheader", tlen);
	check(text != NULL);
	struct skeleton back;
	struct mh_diag d = {0};
	check(skeleton_parse(text, *tlen, &back, &d) == MH_OK);
	uint8_t *b = encode(&back, &blen);
	check(blen == len && memcmp(b, bytes, len) == 0);
	char *text2 = skeleton_print(&back, "fuzz\nheader", &tlen2);
	check(text2 && tlen2 == *tlen && memcmp(text, text2, *tlen) == 0);
	free(text2);
	free(b);
	skeleton_free(&back);
	return text;
}

/* Decodes buf; on success checks the round trips and returns the printed
 * text (the caller frees), else NULL. */
static char *bytes_path(const uint8_t *buf, size_t len, size_t *tlen)
{
	size_t n = len < SKELETON_HEAD_MAX ? len : SKELETON_HEAD_MAX;
	uint8_t *head = malloc(n ? n : 1);
	check(head != NULL);
	memcpy(head, buf, n);
	int sniff = skeleton_sniff(head, n, len);
	free(head);
	check(sniff == 0 || sniff == 60 || sniff == 100);
	check(skeleton_sniff(buf, len, len) == sniff);

	struct skeleton s;
	struct mh_diag d = {0};
	enum mh_err err = skeleton_decode(buf, len, &s, &d);
	if (err) {
		check(d.code == err && d.msg[0] && !s.bones && !s.tail && !s.nbones);
		return NULL;
	}
	check(sniff != 0);
	size_t blen;
	uint8_t *b = encode(&s, &blen);
	check(blen == len && memcmp(b, buf, len) == 0);
	free(b);
	char *text = check_text(&s, buf, len, tlen);
	skeleton_free(&s);
	return text;
}

/* Parses text; on success checks that it encodes, decodes back to the
 * same bytes, and prints stably. */
static void text_path(const char *text, size_t len)
{
	struct skeleton s;
	struct mh_diag d = {0};
	enum mh_err err = skeleton_parse(text, len, &s, &d);
	if (err) {
		check(d.code == err && d.msg[0] && d.line >= 1 && d.col >= 1);
		check(!s.bones && !s.tail && !s.nbones);
		return;
	}
	size_t blen;
	uint8_t *b = encode(&s, &blen);
	struct skeleton back;
	check(skeleton_decode(b, blen, &back, &d) == MH_OK);
	size_t blen2;
	uint8_t *b2 = encode(&back, &blen2);
	check(blen2 == blen && memcmp(b, b2, blen) == 0);
	size_t tlen;
	free(check_text(&s, b, blen, &tlen));
	free(b);
	free(b2);
	skeleton_free(&back);
	skeleton_free(&s);
}

/* A skeleton-shaped buffer from data: data[0..8) choose the shape and
 * which word to leave wrong, the rest fills the bytes. */
static uint8_t *recipe(const uint8_t *data, size_t size, size_t *len)
{
	if (size < 8)
		return NULL;
	int p3 = data[0] & 1;
	uint32_t nparams = 1 + data[1] % 3, nbones = data[2] % 4;
	uint32_t sec = p3 ? SKELETON_SECTION_MHP3RD : SKELETON_SECTION_MHFU;
	size_t end = SKELETON_HEADER + 4 * nparams + (size_t)nbones * sec;
	size_t tail = data[3] % 4 ? 0 : data[3] % 40;
	*len = end + tail;
	uint8_t *b = malloc(*len);
	check(b != NULL);
	/* Mostly zeros and small numbers, as real skeletons are. */
	for (size_t k = 0; k < *len; k++)
		b[k] = size > 8 ? data[8 + k % (size - 8)] : 0;
	if (data[4] & 1)
		for (size_t k = 0; k < *len; k++)
			b[k] = b[k] < 0xe0 ? 0 : b[k] & 0x0f;
	put32(b, p3 ? SKELETON_MAGIC_MHP3RD : SKELETON_MAGIC_MHFU);
	put32(b + 4, nbones + 1);
	put32(b + 8, data[5] & 1 ? (uint32_t)end : b[8]);
	put32(b + 0x0c, 0);
	put32(b + 0x14, 12 + 4 * nparams);
	for (uint32_t i = 0; i < nbones; i++) {
		uint8_t *p = b + SKELETON_HEADER + 4 * nparams + (size_t)i * sec;
		put32(p, SKELETON_BONE_TAG | (1 + p[0] % 3));
		put32(p + 8, sec);
		put32(p + 0x0c, i);
		if (data[6] & 1) /* w = 1.0, as in the games */
			for (int v = 0; v < 3; v++)
				put32(p + 0x28 + 16 * v, 0x3f800000u);
	}
	if (data[7] < 16 && *len) /* one word or byte left wrong */
		b[(data[7] * 37u + data[3]) % *len] ^= (uint8_t)(1u << (data[7] % 8));
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t tlen;
	char *text = bytes_path(data, size, &tlen);
	free(text);

	size_t len;
	uint8_t *b = recipe(data, size, &len);
	text = b ? bytes_path(b, len, &tlen) : NULL;
	free(b);

	text_path((const char *)data, size);

	if (text && size >= 2) {
		/* Overwrite a stretch of the text at a place data chooses. */
		size_t at = ((size_t)data[0] << 8 | data[1]) % (tlen + 1);
		size_t n = size - 2 < 24 ? size - 2 : 24;
		char *spliced = malloc(tlen + n);
		check(spliced != NULL);
		memcpy(spliced, text, at);
		memcpy(spliced + at, data + 2, n);
		size_t keep = data[1] & 1 ? at : (at + n < tlen ? at + n : tlen);
		memcpy(spliced + at + n, text + keep, tlen - keep);
		text_path(spliced, at + n + tlen - keep);
		free(spliced);
	}
	free(text);
	return 0;
}
