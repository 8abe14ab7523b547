/* SPDX-License-Identifier: MIT */
/* Replacing a TMH image's pixels from a picture (tmh.h "edits"): the
 * image keeps its format, dimensions and size; its words are worked out
 * in full first, so a refusal leaves it untouched. */
#include "tmh.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

static bool same_color(const uint8_t a[4], const uint8_t b[4])
{
	return !memcmp(a, b, 4);
}

static uint32_t distance(const uint8_t a[4], const uint8_t b[4])
{
	uint32_t sum = 0;
	for (int c = 0; c < 4; c++) {
		int v = a[c] - b[c];
		sum += (uint32_t)(v * v);
	}
	return sum;
}

/* The palette colour nearest c, the first of equals. */
static uint32_t nearest(const uint8_t (*pal)[4], uint32_t n, const uint8_t c[4])
{
	uint32_t best = 0, best_d = UINT32_MAX;
	for (uint32_t i = 0; i < n && best_d; i++) {
		uint32_t dist = distance(pal[i], c);
		if (dist < best_d) {
			best_d = dist;
			best = i;
		}
	}
	return best;
}

/* Pixel i of a picture as RGBA. */
static const uint8_t *picture_rgba(const struct png_image *pic, size_t i)
{
	return pic->ncolors ? pic->palette[pic->pixels[i]] : pic->pixels + 4 * i;
}

/* The index of every pixel of a 4- or 8-bit image, and its palette
 * (*clut the CLUT's new bytes when the picture's palette is taken, else
 * NULL). */
static enum mh_err indexed_words(const struct tmh_image *im, const struct png_image *pic,
				 uint32_t *words, uint8_t **clut, struct mh_diag *d)
{
	uint8_t pal[PNG_MAX_COLORS][4];
	uint32_t n = tmh_palette(im, pal);
	size_t npixels = (size_t)im->width * im->height;

	bool fits = pic->ncolors > 0;
	for (size_t i = 0; fits && i < npixels; i++)
		fits = pic->pixels[i] < n;
	if (fits) {
		uint32_t shared = pic->ncolors < n ? pic->ncolors : n;
		bool edited = false;
		for (uint32_t c = 0; c < shared; c++)
			edited |= !same_color(pal[c], pic->palette[c]);
		if (edited) {
			unsigned bytes = tmh_format_bits(im->clut_format) / 8;
			if (!(*clut = malloc(im->clut_len)))
				return mh_fail(d, MH_ENOMEM, 0, "out of memory");
			memcpy(*clut, im->clut, im->clut_len);
			for (uint32_t c = 0; c < shared; c++) {
				uint32_t v = tmh_color_pack(im->clut_format, pic->palette[c]);
				if (bytes == 2)
					put_le16(*clut + c * bytes, (uint16_t)v);
				else
					put_le32(*clut + c * bytes, v);
			}
		}
		for (size_t i = 0; i < npixels; i++)
			words[i] = pic->pixels[i];
		return MH_OK;
	}
	/* Colours: the nearest of the palette, the pixel's own if it shows it. */
	uint8_t last[4] = {0};
	uint32_t last_index = UINT32_MAX;
	for (uint32_t y = 0; y < im->height; y++)
		for (uint32_t x = 0; x < im->width; x++) {
			size_t i = (size_t)y * im->width + x;
			const uint8_t *c = picture_rgba(pic, i);
			uint32_t old = tmh_pixel_get(im, x, y);
			if (old < n && same_color(pal[old], c)) {
				words[i] = old;
			} else {
				if (last_index == UINT32_MAX || !same_color(last, c)) {
					memcpy(last, c, 4);
					last_index = nearest((const uint8_t(*)[4])pal, n, c);
				}
				words[i] = last_index;
			}
		}
	return MH_OK;
}

/* The word of every pixel of a direct image. */
static void direct_words(const struct tmh_image *im, const struct png_image *pic,
			 uint32_t *words)
{
	for (uint32_t y = 0; y < im->height; y++)
		for (uint32_t x = 0; x < im->width; x++) {
			size_t i = (size_t)y * im->width + x;
			const uint8_t *c = picture_rgba(pic, i);
			uint32_t old = tmh_pixel_get(im, x, y);
			uint8_t was[4];
			tmh_color_unpack(im->format, old, was);
			words[i] = same_color(was, c) ? old : tmh_color_pack(im->format, c);
		}
}

/* A pixel stored past the pixel bytes cannot change: it shows word 0. */
static enum mh_err check_unstored(const struct tmh_image *im, const uint32_t *words,
				  struct mh_diag *d)
{
	uint64_t bytes = (tmh_format_bits(im->format) + 7) / 8;
	for (uint32_t y = 0; y < im->height; y++)
		for (uint32_t x = 0; x < im->width; x++) {
			if (tmh_pixel_bit(im, x, y) / 8 + bytes <= im->pixels_len ||
			    !words[(size_t)y * im->width + x])
				continue;
			return mh_fail(d, MH_ERANGE, 0, "pixel (%u, %u) lies past the image's "
				       "stored bytes (its last band of 8 rows is cut short) and "
				       "keeps the colour it shows", x, y);
		}
	return MH_OK;
}

/* A picture of a read-only image: only the one it shows is taken (and
 * changes nothing). */
static enum mh_err read_only(const struct tmh_image *im, const struct png_image *pic,
			     struct mh_diag *d)
{
	struct png_image shown;
	enum mh_err err = tmh_image_picture(im, &shown, d);
	if (err)
		return err;
	size_t npixels = (size_t)im->width * im->height, i = 0;
	while (i < npixels && same_color(picture_rgba(&shown, i), picture_rgba(pic, i)))
		i++;
	png_free(&shown);
	if (i == npixels)
		return MH_OK;
	return mh_fail(d, MH_ERANGE, 0, "the image is %s, which is read-only here (formats "
		       "RGB565 to indexed 8-bit are written): pixel (%zu, %zu) differs",
		       tmh_format_name(im->format), i % im->width, i / im->width);
}

enum mh_err tmh_image_replace(struct tmh_image *im, const struct png_image *pic,
			      struct mh_diag *d)
{
	if (pic->width != im->width || pic->height != im->height)
		return mh_fail(d, MH_ERANGE, 0, "the PNG is %ux%u, the image %ux%u: a texture "
			       "keeps its dimensions (the TMH keeps its size); scale it to %ux%u",
			       pic->width, pic->height, im->width, im->height, im->width,
			       im->height);
	if (!tmh_format_writable(im->format))
		return read_only(im, pic, d);
	size_t npixels = (size_t)im->width * im->height;
	uint32_t *words = malloc(npixels * sizeof *words);
	uint8_t *clut = NULL;
	if (!words)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	enum mh_err err = MH_OK;
	if (im->has_clut)
		err = indexed_words(im, pic, words, &clut, d);
	else
		direct_words(im, pic, words);
	if (!err)
		err = check_unstored(im, words, d);
	if (!err) {
		for (uint32_t y = 0; y < im->height; y++)
			for (uint32_t x = 0; x < im->width; x++)
				tmh_pixel_set(im, x, y, words[(size_t)y * im->width + x]);
		if (clut) {
			free(im->clut);
			im->clut = clut;
			clut = NULL;
		}
	}
	free(clut);
	free(words);
	return err;
}

enum mh_err tmh_image_png(const struct tmh_image *im, uint8_t **png, size_t *len,
			  struct mh_diag *d)
{
	struct png_image pic;
	enum mh_err err = tmh_image_picture(im, &pic, d);
	if (!err)
		err = png_encode(&pic, png, len, d);
	png_free(&pic);
	return err;
}

enum mh_err tmh_image_replace_png(struct tmh_image *im, const uint8_t *png, size_t len,
				  struct mh_diag *d)
{
	struct png_image pic;
	struct mh_diag pd = {0};
	enum mh_err err = png_decode(png, len, &pic, &pd);
	if (err)
		err = mh_fail(d, pd.code, pd.offset, "the PNG cannot be read: %s (at byte %llu)",
			      pd.msg, (unsigned long long)pd.offset);
	else
		err = tmh_image_replace(im, &pic, d);
	png_free(&pic);
	return err;
}
