/* SPDX-License-Identifier: MIT */
/* Fuzz target: the PNG decoder (codecs/png), what a texture's imageNN.png
 * is read with.
 *
 * Every input goes through png_decode twice: as it is, and as a recipe
 * for a PNG built here so that most get past the signature, lengths,
 * CRCs and zlib stream -- the recipe's first bytes choose the header
 * (sides, colour type, bit depth, interlace), a palette's size, tRNS,
 * ancillary chunks, how many IDAT chunks the stream is cut into and the
 * zlib level, and which of a chunk's length, CRC or stream bytes to leave
 * wrong; its other bytes are the rows (filter bytes included) and the
 * palette.  What decodes must have its dimensions within the limits and
 * palette indices within its palette, and encode to a PNG that decodes
 * to the same image; what does not must fail with a diagnostic naming an
 * offset inside the file, and no image.  Any violation abort()s.  Built
 * with clang -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with
 * tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "png.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static void check_image(const struct png_image *img)
{
	size_t n = (size_t)img->width * img->height;
	check(png_size_ok(img->width, img->height) && img->ncolors <= PNG_MAX_COLORS);
	for (size_t i = 0; img->ncolors && i < n; i++)
		check(img->pixels[i] < img->ncolors);
	uint8_t *out;
	size_t len;
	struct png_image back;
	check(png_encode(img, &out, &len, NULL) == MH_OK &&
	      png_decode(out, len, &back, NULL) == MH_OK);
	check(back.width == img->width && back.height == img->height &&
	      back.ncolors == img->ncolors &&
	      !memcmp(back.pixels, img->pixels, n * png_pixel_size(img)) &&
	      !memcmp(back.palette, img->palette, 4 * (size_t)img->ncolors));
	png_free(&back);
	free(out);
}

static void try_decode(const uint8_t *data, size_t size)
{
	struct png_image img;
	struct mh_diag d = {0};
	enum mh_err err = png_decode(data, size, &img, &d);
	if (err == MH_OK)
		check_image(&img);
	else
		check(d.code == err && d.msg[0] && !img.pixels && d.offset <= size);
	png_free(&img);
}

/* ---- the recipe ---------------------------------------------------------- */

/* The bytes being built. */
struct out {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (!n)
		return;
	if (o->len + n > o->cap) {
		o->cap = 2 * o->cap + n + 256;
		check((o->p = realloc(o->p, o->cap)) != NULL);
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

static void put_be32(struct out *o, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
	put(o, b, 4);
}

/* A chunk; `wrong` 1 gives it a length one too many, 2 a bad CRC. */
static void chunk(struct out *o, const char *type, const uint8_t *p, uint32_t n, int wrong)
{
	put_be32(o, n + (wrong == 1));
	size_t at = o->len;
	put(o, type, 4);
	put(o, p, n);
	uint32_t crc = (uint32_t)crc32(0, o->p + at, (uInt)(n + 4));
	put_be32(o, crc ^ (wrong == 2));
}

/* Bytes from the recipe's body, cycling (zeros when it has none). */
struct body {
	const uint8_t *p;
	size_t n, at;
};

static uint8_t next(struct body *b)
{
	return b->n ? b->p[b->at++ % b->n] : 0;
}

static uint8_t *recipe(const uint8_t *data, size_t size, size_t *len)
{
	static const uint8_t TYPES[] = {0, 2, 3, 4, 6, 3, 3, 6};
	static const uint8_t DEPTHS[] = {1, 2, 4, 8, 16, 8, 8, 4};
	if (size < 10)
		return NULL;
	uint32_t width = 1 + data[0] % 17, height = 1 + data[1] % 17;
	uint8_t type = TYPES[data[2] & 7], depth = DEPTHS[data[2] >> 3 & 7];
	uint8_t flags = data[3], wrong_at = data[4], ncut = 1 + data[5] % 3;
	struct body b = {data + 10, size - 10, 0};
	struct out o = {0};
	static const uint8_t SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	put(&o, SIGNATURE, 8);
	/* Now and then one thing wrong: the low 3 bits say which (IHDR, tEXt,
	 * PLTE, tRNS, the stream, the first IDAT, IEND, none), bit 3 how. */
	int wrong[8] = {0};
	if (wrong_at >> 7)
		wrong[wrong_at & 7] = 1 + (wrong_at >> 3 & 1);

	uint8_t ihdr[13] = {0};
	ihdr[0] = (uint8_t)(width >> 24);
	ihdr[3] = (uint8_t)width;
	ihdr[7] = (uint8_t)height;
	ihdr[8] = depth;
	ihdr[9] = type;
	ihdr[12] = (flags & 0xc0) == 0xc0; /* interlaced: refused */
	chunk(&o, "IHDR", ihdr, 13, wrong[0]);
	if (flags & 1) /* an ancillary chunk, skipped */
		chunk(&o, "tEXt", (const uint8_t *)"Comment\0fuzz", 12, wrong[1]);
	uint32_t ncolors = 1 + data[6] % (depth <= 8 ? 1u << depth : 256u);
	if (type == 3 || (flags & 2)) {
		uint8_t plte[3 * 256 + 1] = {0};
		for (uint32_t i = 0; i < 3 * ncolors; i++)
			plte[i] = next(&b);
		chunk(&o, "PLTE", plte, 3 * ncolors + (flags & 4 ? 1 : 0), wrong[2]);
	}
	if (flags & 8) {
		uint8_t trns[256];
		uint32_t n = type == 0 ? 2 : type == 2 ? 6 : data[7] % (ncolors + 1);
		for (uint32_t i = 0; i < n; i++)
			trns[i] = next(&b);
		chunk(&o, "tRNS", trns, n, wrong[3]);
	}

	/* The rows: a filter byte (mostly 0..4) and the row's bytes. */
	static const uint8_t CHANNELS[] = {1, 0, 3, 1, 2, 0, 4};
	size_t stride = 1 + ((size_t)width * CHANNELS[type] * depth + 7) / 8;
	size_t raw_len = stride * height - (flags & 16 ? 1 : 0);
	uint8_t *raw = malloc(raw_len ? raw_len : 1);
	check(raw != NULL);
	for (size_t i = 0; i < raw_len; i++) {
		uint8_t v = next(&b);
		raw[i] = i % stride ? v : v % (flags & 32 ? 6 : 5);
	}
	uLongf zlen = compressBound((uLong)raw_len);
	uint8_t *z = malloc(zlen);
	check(z != NULL);
	check(compress2(z, &zlen, raw, (uLong)raw_len, data[8] % 10) == Z_OK);
	if (wrong[4] && zlen > 2)
		z[data[9] % zlen] ^= 0x20; /* the stream itself damaged */
	for (uint32_t c = 0, at = 0; c < ncut; c++) {
		uint32_t n = c + 1 == ncut ? (uint32_t)zlen - at : (uint32_t)zlen / ncut;
		chunk(&o, "IDAT", z + at, n, c == 0 ? wrong[5] : 0);
		at += n;
	}
	if (flags & 64)
		chunk(&o, "IDAT", z, 0, 0);
	chunk(&o, "IEND", NULL, 0, wrong[6]);
	free(raw);
	free(z);
	*len = o.len;
	return o.p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	try_decode(data, size);
	size_t len;
	uint8_t *png = recipe(data, size, &len);
	if (png) {
		try_decode(png, len);
		free(png);
	}
	return 0;
}
