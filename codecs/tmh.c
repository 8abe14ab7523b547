/* SPDX-License-Identifier: MIT */
#include "tmh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

/* Fixed words of the headers: the same in every bank of the game. */
#define IMAGE_TAG 1u  /* image header +0x08 */
#define PIXEL_TAG 1u  /* pixel header +0x04 */
#define CLUT_TAG 2u   /* CLUT header +0x04 */

#define BLOCK_BYTES 16u /* a swizzle block: 16 bytes by 8 rows */
#define BLOCK_ROWS 8u

static const struct {
	const char *name;
	unsigned bits;
} FORMATS[TMH_FORMATS] = {
	[TMH_RGB565] = {"RGB565", 16},          [TMH_RGBA5551] = {"RGBA5551", 16},
	[TMH_RGBA4444] = {"RGBA4444", 16},      [TMH_RGBA8888] = {"RGBA8888", 32},
	[TMH_INDEX4] = {"indexed 4-bit", 4},    [TMH_INDEX8] = {"indexed 8-bit", 8},
	[TMH_INDEX16] = {"indexed 16-bit", 16}, [TMH_INDEX32] = {"indexed 32-bit", 32},
	[TMH_DXT1] = {"DXT1", 4},               [TMH_DXT3] = {"DXT3", 8},
	[TMH_DXT5] = {"DXT5", 8},
};

const char *tmh_format_name(enum tmh_format f)
{
	return (unsigned)f < TMH_FORMATS ? FORMATS[f].name : "unknown";
}

bool tmh_format_writable(enum tmh_format f)
{
	return f <= TMH_INDEX8;
}

unsigned tmh_format_bits(enum tmh_format f)
{
	return FORMATS[f].bits;
}

static bool is_dxt(enum tmh_format f)
{
	return f >= TMH_DXT1;
}

static bool is_indexed(enum tmh_format f)
{
	return f >= TMH_INDEX4 && f <= TMH_INDEX32;
}

uint64_t tmh_pixels_needed(enum tmh_format f, uint32_t width, uint32_t height)
{
	if (is_dxt(f)) /* 4x4 blocks of 16 pixels */
		return (uint64_t)((width + 3) / 4) * ((height + 3) / 4) * 16 * FORMATS[f].bits / 8;
	return ((uint64_t)width * height * FORMATS[f].bits + 7) / 8;
}

/* ---- colours ----------------------------------------------------------- */

/* A field of `bits` bits widened to 8 by repeating its high bits. */
static uint8_t widen(uint32_t v, unsigned bits)
{
	return (uint8_t)(v << (8 - bits) | v >> (2 * bits - 8));
}

/* An 8-bit value rounded to `bits` bits. */
static uint32_t narrow(uint8_t v, unsigned bits)
{
	uint32_t max = (1u << bits) - 1;
	return (v * max + 127) / 255;
}

void tmh_color_unpack(enum tmh_format f, uint32_t v, uint8_t rgba[4])
{
	switch (f) {
	case TMH_RGB565:
		rgba[0] = widen(v & 31, 5);
		rgba[1] = widen(v >> 5 & 63, 6);
		rgba[2] = widen(v >> 11 & 31, 5);
		rgba[3] = 255;
		break;
	case TMH_RGBA5551:
		rgba[0] = widen(v & 31, 5);
		rgba[1] = widen(v >> 5 & 31, 5);
		rgba[2] = widen(v >> 10 & 31, 5);
		rgba[3] = v >> 15 & 1 ? 255 : 0;
		break;
	case TMH_RGBA4444:
		for (int c = 0; c < 4; c++)
			rgba[c] = (uint8_t)((v >> 4 * c & 15) * 17);
		break;
	default:
		for (int c = 0; c < 4; c++)
			rgba[c] = (uint8_t)(v >> 8 * c);
		break;
	}
}

uint32_t tmh_color_pack(enum tmh_format f, const uint8_t rgba[4])
{
	switch (f) {
	case TMH_RGB565:
		return narrow(rgba[0], 5) | narrow(rgba[1], 6) << 5 | narrow(rgba[2], 5) << 11;
	case TMH_RGBA5551:
		return narrow(rgba[0], 5) | narrow(rgba[1], 5) << 5 | narrow(rgba[2], 5) << 10 |
		       (uint32_t)(rgba[3] >= 128) << 15;
	case TMH_RGBA4444:
		return narrow(rgba[0], 4) | narrow(rgba[1], 4) << 4 | narrow(rgba[2], 4) << 8 |
		       narrow(rgba[3], 4) << 12;
	default:
		return (uint32_t)rgba[0] | (uint32_t)rgba[1] << 8 | (uint32_t)rgba[2] << 16 |
		       (uint32_t)rgba[3] << 24;
	}
}

/* A little-endian word of `bytes` bytes (2 or 4). */
static uint32_t load_word(const uint8_t *p, unsigned bytes)
{
	return bytes == 2 ? le16(p) : le32(p);
}

/* ---- pixels ----------------------------------------------------------- */

bool tmh_swizzled(const struct tmh_image *im)
{
	return !is_dxt(im->format) &&
	       (uint64_t)im->width * FORMATS[im->format].bits % (BLOCK_BYTES * 8) == 0;
}

uint64_t tmh_pixel_bit(const struct tmh_image *im, uint32_t x, uint32_t y)
{
	unsigned bits = FORMATS[im->format].bits;
	if (!tmh_swizzled(im))
		return ((uint64_t)y * im->width + x) * bits;
	uint64_t pitch = (uint64_t)im->width * bits / 8, byte = (uint64_t)x * bits / 8;
	uint64_t at = y / BLOCK_ROWS * pitch * BLOCK_ROWS + byte / BLOCK_BYTES * BLOCK_BYTES *
		      BLOCK_ROWS + y % BLOCK_ROWS * BLOCK_BYTES + byte % BLOCK_BYTES;
	return at * 8 + (uint64_t)x * bits % 8;
}

uint32_t tmh_pixel_get(const struct tmh_image *im, uint32_t x, uint32_t y)
{
	unsigned bits = FORMATS[im->format].bits;
	uint64_t bit = tmh_pixel_bit(im, x, y), at = bit / 8;
	if (at + (bits + 7) / 8 > im->pixels_len)
		return 0;
	const uint8_t *p = im->pixels + at;
	switch (bits) {
	case 4: return *p >> bit % 8 & 15;
	case 8: return *p;
	default: return load_word(p, bits / 8);
	}
}

bool tmh_pixel_set(struct tmh_image *im, uint32_t x, uint32_t y, uint32_t v)
{
	unsigned bits = FORMATS[im->format].bits;
	uint64_t bit = tmh_pixel_bit(im, x, y), at = bit / 8;
	if (at + (bits + 7) / 8 > im->pixels_len)
		return false;
	uint8_t *p = im->pixels + at;
	switch (bits) {
	case 4: {
		unsigned shift = (unsigned)(bit % 8);
		*p = (uint8_t)((*p & ~(15u << shift)) | (v & 15) << shift);
		break;
	}
	case 8: *p = (uint8_t)v; break;
	case 16: put_le16(p, (uint16_t)v); break;
	default: put_le32(p, v); break;
	}
	return true;
}

uint32_t tmh_palette_size(const struct tmh_image *im)
{
	if (im->format != TMH_INDEX4 && im->format != TMH_INDEX8)
		return 0;
	uint32_t full = 1u << FORMATS[im->format].bits;
	return im->clut_entries < full ? im->clut_entries : full;
}

/* CLUT entry i as RGBA. */
static void clut_color(const struct tmh_image *im, uint32_t i, uint8_t rgba[4])
{
	unsigned bytes = FORMATS[im->clut_format].bits / 8;
	tmh_color_unpack(im->clut_format, load_word(im->clut + (size_t)i * bytes, bytes), rgba);
}

uint32_t tmh_palette(const struct tmh_image *im, uint8_t pal[PNG_MAX_COLORS][4])
{
	uint32_t n = tmh_palette_size(im);
	for (uint32_t i = 0; i < n; i++)
		clut_color(im, i, pal[i]);
	return n;
}

/* ---- DXT ---------------------------------------------------------------
 * A block of 4x4 pixels: DXT1 is 8 bytes, the four rows of 2-bit colour
 * indices (a row a byte, the leftmost pixel in the low bits), then the
 * two end colours, 16-bit words with red in the HIGH bits, widened by a
 * shift.  DXT3 and DXT5 follow that with 8 bytes of alpha: DXT3 four
 * 16-bit rows of 4-bit alphas; DXT5 48 bits of 3-bit indices (a u32,
 * then a u16 above it) and the two end alphas. */

static void dxt_colors(const uint8_t *b, bool alpha_bit, uint8_t c[4][4])
{
	uint32_t e0 = le16(b + 4), e1 = le16(b + 6);
	const uint32_t ends[2] = {e0, e1};
	for (int k = 0; k < 2; k++) {
		c[k][0] = (uint8_t)(ends[k] >> 8 & 0xf8);
		c[k][1] = (uint8_t)(ends[k] >> 3 & 0xfc);
		c[k][2] = (uint8_t)(ends[k] << 3 & 0xf8);
		c[k][3] = 255;
	}
	for (int ch = 0; ch < 3; ch++) {
		if (e0 > e1) {
			c[2][ch] = (uint8_t)((2 * c[0][ch] + c[1][ch]) / 3);
			c[3][ch] = (uint8_t)((c[0][ch] + 2 * c[1][ch]) / 3);
		} else {
			c[2][ch] = (uint8_t)((c[0][ch] + c[1][ch]) / 2);
			c[3][ch] = 0;
		}
	}
	c[2][3] = 255;
	c[3][3] = e0 > e1 || !alpha_bit ? 255 : 0;
}

/* Alpha of pixel k (0..15, row-major) of a DXT3 or DXT5 block. */
static uint8_t dxt_alpha(enum tmh_format f, const uint8_t *b, unsigned k)
{
	if (f == TMH_DXT3)
		return (uint8_t)((le16(b + 8 + 2 * (k / 4)) >> 4 * (k % 4) & 15) * 17);
	uint64_t bits = (uint64_t)le16(b + 12) << 32 | le32(b + 8);
	unsigned a0 = b[14], a1 = b[15], i = (unsigned)(bits >> 3 * k & 7);
	if (i < 2)
		return (uint8_t)(i ? a1 : a0);
	if (a0 > a1)
		return (uint8_t)(((8 - i) * a0 + (i - 1) * a1) / 7);
	if (i >= 6)
		return i == 6 ? 0 : 255;
	return (uint8_t)(((6 - i) * a0 + (i - 1) * a1) / 5);
}

static void dxt_picture(const struct tmh_image *im, struct png_image *pic)
{
	uint32_t across = (im->width + 3) / 4, block = FORMATS[im->format].bits * 2;
	for (uint32_t by = 0; by < (im->height + 3u) / 4; by++)
		for (uint32_t bx = 0; bx < across; bx++) {
			const uint8_t *b = im->pixels + ((size_t)by * across + bx) * block;
			uint8_t c[4][4];
			dxt_colors(b, im->format == TMH_DXT1, c);
			for (unsigned k = 0; k < 16; k++) {
				uint32_t x = bx * 4 + k % 4, y = by * 4 + k / 4;
				if (x >= im->width || y >= im->height)
					continue;
				uint8_t *px = pic->pixels + 4 * ((size_t)y * im->width + x);
				memcpy(px, c[b[k / 4] >> 2 * (k % 4) & 3], 4);
				if (im->format != TMH_DXT1)
					px[3] = dxt_alpha(im->format, b, k);
			}
		}
}

/* ---- pictures ---------------------------------------------------------- */

enum mh_err tmh_image_picture(const struct tmh_image *im, struct png_image *pic,
			      struct mh_diag *d)
{
	uint32_t ncolors = tmh_palette_size(im);
	enum mh_err err = png_image_init(pic, im->width, im->height, ncolors, d);
	if (err)
		return err;
	tmh_palette(im, pic->palette);
	if (is_dxt(im->format)) {
		dxt_picture(im, pic);
		return MH_OK;
	}
	for (uint32_t y = 0; y < im->height; y++)
		for (uint32_t x = 0; x < im->width; x++) {
			size_t i = (size_t)y * im->width + x;
			uint32_t v = tmh_pixel_get(im, x, y);
			if (is_indexed(im->format) && v >= (ncolors ? ncolors : im->clut_entries)) {
				png_free(pic);
				return mh_fail(d, MH_ECORRUPT, tmh_pixel_bit(im, x, y) / 8,
					       "pixel (%u, %u) is colour %u of a %u-colour palette",
					       x, y, v, ncolors ? ncolors : im->clut_entries);
			}
			if (ncolors)
				pic->pixels[i] = (uint8_t)v;
			else if (is_indexed(im->format))
				clut_color(im, v, pic->pixels + 4 * i);
			else
				tmh_color_unpack(im->format, v, pic->pixels + 4 * i);
		}
	return MH_OK;
}

void tmh_image_file_name(uint32_t i, char *buf, size_t len)
{
	snprintf(buf, len, "image%02u.png", i);
}

/* ---- the bank ---------------------------------------------------------- */

void tmh_free(struct tmh *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; t->images && i < t->count; i++) {
		free(t->images[i].pixels);
		free(t->images[i].clut);
	}
	free(t->images);
	free(t->tail);
	memset(t, 0, sizeof *t);
}

static uint8_t *copy_of(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	if (c && n)
		memcpy(c, p, n);
	return c;
}

/* Every pixel of an indexed image indexes its CLUT (the image at `off`). */
static enum mh_err check_indices(const struct tmh_image *im, uint32_t i, uint64_t off,
				 struct mh_diag *d)
{
	uint32_t colors = tmh_palette_size(im);
	if (!colors)
		colors = im->clut_entries;
	for (uint32_t y = 0; y < im->height; y++)
		for (uint32_t x = 0; x < im->width; x++) {
			uint32_t v = tmh_pixel_get(im, x, y);
			if (v >= colors)
				return mh_fail(d, MH_ECORRUPT, off + TMH_IMAGE_HEADERS +
					       tmh_pixel_bit(im, x, y) / 8,
					       "image %u: pixel (%u, %u) is colour %u of a %u-colour "
					       "palette", i, x, y, v, colors);
		}
	return MH_OK;
}

/* The CLUT of image i at c (its header), up to `end`. */
static enum mh_err decode_clut(const uint8_t *buf, uint64_t c, uint64_t end,
			       struct tmh_image *im, uint32_t i, struct mh_diag *d)
{
	if (end - c < TMH_CLUT_HEADER)
		return mh_fail(d, MH_ECORRUPT, c, "image %u: no room for its CLUT header", i);
	uint32_t size = le32(buf + c), tag = le32(buf + c + 4), format = le32(buf + c + 8);
	im->clut_entries = le32(buf + c + 12);
	if (tag != CLUT_TAG)
		return mh_fail(d, MH_ECORRUPT, c + 4, "image %u: CLUT tag %u is not %u", i, tag,
			       CLUT_TAG);
	if (format > TMH_RGBA8888)
		return mh_fail(d, MH_ECORRUPT, c + 8, "image %u: CLUT format %u is not a colour "
			       "format (0 to 3)", i, format);
	im->clut_format = (enum tmh_format)format;
	uint64_t want = TMH_CLUT_HEADER + (uint64_t)im->clut_entries * FORMATS[format].bits / 8;
	if (!im->clut_entries || size != want)
		return mh_fail(d, MH_ECORRUPT, c, "image %u: a CLUT of %u %s colours takes %llu "
			       "bytes, its header says %u", i, im->clut_entries, FORMATS[format].name,
			       (unsigned long long)want, size);
	if (size > end - c)
		return mh_fail(d, MH_ECORRUPT, c, "image %u: its CLUT runs past the image's end",
			       i);
	im->clut_len = size - TMH_CLUT_HEADER;
	im->clut = copy_of(buf + c + TMH_CLUT_HEADER, im->clut_len);
	return im->clut ? MH_OK : mh_fail(d, MH_ENOMEM, c, "out of memory");
}

/* Image i at off, within buf[0..len); *size its bytes. */
static enum mh_err decode_image(const uint8_t *buf, size_t len, uint64_t off, uint32_t i,
				struct tmh_image *im, uint32_t *size, struct mh_diag *d)
{
	const uint8_t *h = buf + off;
	if (len - off < TMH_IMAGE_HEADERS)
		return mh_fail(d, MH_ETRUNC, off, "image %u: its headers need %u bytes, %llu are "
			       "left", i, TMH_IMAGE_HEADERS, (unsigned long long)(len - off));
	*size = le32(h);
	im->spare = le32(h + 4);
	uint32_t tag = le32(h + 8), clut = le32(h + 12), pixel_size = le32(h + 16);
	uint32_t pixel_tag = le32(h + 20), format = le32(h + 24);
	im->width = le16(h + 28);
	im->height = le16(h + 30);
	if (tag != IMAGE_TAG)
		return mh_fail(d, MH_ECORRUPT, off + 8, "image %u: tag %u is not %u", i, tag,
			       IMAGE_TAG);
	if (clut > 1)
		return mh_fail(d, MH_ECORRUPT, off + 12, "image %u: CLUT flag %u is not 0 or 1", i,
			       clut);
	if (pixel_tag != PIXEL_TAG)
		return mh_fail(d, MH_ECORRUPT, off + 20, "image %u: pixel tag %u is not %u", i,
			       pixel_tag, PIXEL_TAG);
	if (format >= TMH_FORMATS)
		return mh_fail(d, MH_ECORRUPT, off + 24, "image %u: pixel format %u is not 0 to "
			       "10", i, format);
	im->format = (enum tmh_format)format;
	im->has_clut = clut;
	if (im->has_clut != is_indexed(im->format))
		return mh_fail(d, MH_ECORRUPT, off + 12, clut ? "image %u: its flag says a CLUT "
			       "follows, but %s pixels index none" : "image %u: its flag says no "
			       "CLUT follows, but %s pixels index one", i, FORMATS[format].name);
	if (!im->width || !im->height)
		return mh_fail(d, MH_ECORRUPT, off + 28, "image %u is %ux%u", i, im->width,
			       im->height);
	if (*size > len - off)
		return mh_fail(d, MH_ETRUNC, off, "image %u: its %u bytes run past the bank's end "
			       "(%llu left)", i, *size, (unsigned long long)(len - off));
	if (*size < TMH_IMAGE_HEADERS || pixel_size < 16 || pixel_size > *size - 16)
		return mh_fail(d, MH_ECORRUPT, off + 16, "image %u: pixel block of %u bytes in an "
			       "image of %u", i, pixel_size, *size);
	im->pixels_len = pixel_size - 16;
	uint64_t need = tmh_pixels_needed(im->format, im->width, im->height);
	if (im->pixels_len < need)
		return mh_fail(d, MH_ECORRUPT, off + 16, "image %u: %u pixel bytes; a %ux%u %s "
			       "image needs %llu", i, im->pixels_len, im->width, im->height,
			       FORMATS[format].name, (unsigned long long)need);
	if (!(im->pixels = copy_of(h + TMH_IMAGE_HEADERS, im->pixels_len)))
		return mh_fail(d, MH_ENOMEM, off, "out of memory");
	uint64_t end = off + *size, c = off + 16 + pixel_size;
	enum mh_err err = im->has_clut ? decode_clut(buf, c, end, im, i, d) : MH_OK;
	if (err)
		return err;
	uint64_t parts = 16 + (uint64_t)pixel_size + (im->has_clut ? TMH_CLUT_HEADER +
							   im->clut_len : 0);
	if (parts != *size)
		return mh_fail(d, MH_ECORRUPT, off, "image %u: its header says %u bytes, its "
			       "parts add up to %llu", i, *size, (unsigned long long)parts);
	return im->has_clut ? check_indices(im, i, off, d) : MH_OK;
}

enum mh_err tmh_decode(const uint8_t *buf, size_t len, struct tmh *t, struct mh_diag *d)
{
	memset(t, 0, sizeof *t);
	if (len < TMH_BANK_HEADER)
		return mh_fail(d, len >= TMH_MAGIC_LEN && !memcmp(buf, TMH_MAGIC, TMH_MAGIC_LEN)
				      ? MH_ETRUNC : MH_EUNKNOWN, 0,
			       "%zu bytes: shorter than a TMH's %u-byte header", len,
			       TMH_BANK_HEADER);
	if (memcmp(buf, TMH_MAGIC, TMH_MAGIC_LEN))
		return mh_fail(d, MH_EUNKNOWN, 0, "no %s magic", TMH_MAGIC);
	uint32_t count = le32(buf + 8);
	t->spare = le32(buf + 12);
	if (count > (len - TMH_BANK_HEADER) / TMH_IMAGE_HEADERS)
		return mh_fail(d, MH_ECORRUPT, 8, "%u images cannot fit in %zu bytes", count, len);
	if (!(t->images = calloc(count ? count : 1, sizeof *t->images)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	t->count = count;
	uint64_t off = TMH_BANK_HEADER;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t size = 0;
		enum mh_err err = decode_image(buf, len, off, i, &t->images[i], &size, d);
		if (err)
			return err;
		off += size;
	}
	t->tail_len = len - off;
	if (!(t->tail = copy_of(buf + off, t->tail_len)))
		return mh_fail(d, MH_ENOMEM, off, "out of memory");
	return MH_OK;
}

enum mh_err tmh_encode(const struct tmh *t, uint8_t **out, size_t *len, struct mh_diag *d)
{
	uint64_t total = TMH_BANK_HEADER + t->tail_len;
	for (uint32_t i = 0; i < t->count; i++) {
		const struct tmh_image *im = &t->images[i];
		total += TMH_IMAGE_HEADERS + (uint64_t)im->pixels_len +
			 (im->has_clut ? TMH_CLUT_HEADER + im->clut_len : 0);
	}
	uint8_t *p = malloc(total);
	if (!p)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for a %llu-byte TMH",
			       (unsigned long long)total);
	memcpy(p, TMH_MAGIC, TMH_MAGIC_LEN);
	put_le32(p + 8, t->count);
	put_le32(p + 12, t->spare);
	uint8_t *w = p + TMH_BANK_HEADER;
	for (uint32_t i = 0; i < t->count; i++) {
		const struct tmh_image *im = &t->images[i];
		uint32_t clut = im->has_clut ? TMH_CLUT_HEADER + im->clut_len : 0;
		put_le32(w, TMH_IMAGE_HEADERS + im->pixels_len + clut);
		put_le32(w + 4, im->spare);
		put_le32(w + 8, IMAGE_TAG);
		put_le32(w + 12, im->has_clut);
		put_le32(w + 16, 16 + im->pixels_len);
		put_le32(w + 20, PIXEL_TAG);
		put_le32(w + 24, (uint32_t)im->format);
		put_le16(w + 28, im->width);
		put_le16(w + 30, im->height);
		memcpy(w + TMH_IMAGE_HEADERS, im->pixels, im->pixels_len);
		w += TMH_IMAGE_HEADERS + im->pixels_len;
		if (im->has_clut) {
			put_le32(w, clut);
			put_le32(w + 4, CLUT_TAG);
			put_le32(w + 8, (uint32_t)im->clut_format);
			put_le32(w + 12, im->clut_entries);
			memcpy(w + TMH_CLUT_HEADER, im->clut, im->clut_len);
			w += clut;
		}
	}
	if (t->tail_len)
		memcpy(w, t->tail, t->tail_len);
	*out = p;
	*len = (size_t)total;
	return MH_OK;
}
