/* SPDX-License-Identifier: MIT */
#include "png.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bytes.h"

static const uint8_t SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

#define CHUNK_MAX 0x7fffffffu /* a chunk's length, by the specification */
#define IHDR_LEN 13u

enum color_type { GRAY = 0, TRUECOLOR = 2, INDEXED = 3, GRAY_ALPHA = 4, TRUECOLOR_ALPHA = 6 };

/* ---- filters (shared by both directions) ------------------------------ */

static uint8_t paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	if (pa <= pb && pa <= pc)
		return (uint8_t)a;
	return (uint8_t)(pb <= pc ? b : c);
}

/* What filter `type` predicts for byte i of a row from its left
 * neighbour a, the byte above b and the one above-left c. */
static uint8_t predict(unsigned type, uint8_t a, uint8_t b, uint8_t c)
{
	switch (type) {
	case 1: return a;
	case 2: return b;
	case 3: return (uint8_t)((a + b) / 2);
	case 4: return paeth(a, b, c);
	default: return 0;
	}
}

/* Filters row[0..n) into out; prev is the row above (NULL for the first),
 * bpp the bytes of a whole pixel (at least 1). */
static void filter_row(unsigned type, const uint8_t *row, const uint8_t *prev, size_t n,
		       size_t bpp, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0;
		uint8_t c = prev && i >= bpp ? prev[i - bpp] : 0;
		out[i] = (uint8_t)(row[i] - predict(type, a, b, c));
	}
}

/* Undoes filter_row in place. */
static void unfilter_row(unsigned type, uint8_t *row, const uint8_t *prev, size_t n,
			 size_t bpp)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0;
		uint8_t c = prev && i >= bpp ? prev[i - bpp] : 0;
		row[i] = (uint8_t)(row[i] + predict(type, a, b, c));
	}
}

/* ---- images -------------------------------------------------------------- */

static enum mh_err size_refused(struct mh_diag *d, uint64_t offset, uint32_t width,
				uint32_t height)
{
	return mh_fail(d, MH_ERANGE, offset,
		       "the image is %ux%u: sides of 1 to %u pixels and %u pixels in all "
		       "are taken", width, height, PNG_MAX_SIDE, PNG_MAX_PIXELS);
}

enum mh_err png_image_init(struct png_image *img, uint32_t width, uint32_t height,
			   uint32_t ncolors, struct mh_diag *d)
{
	memset(img, 0, sizeof *img);
	if (!png_size_ok(width, height))
		return size_refused(d, 0, width, height);
	if (ncolors > PNG_MAX_COLORS)
		return mh_fail(d, MH_ERANGE, 0, "%u colours: a palette holds at most %u",
			       ncolors, PNG_MAX_COLORS);
	img->width = width;
	img->height = height;
	img->ncolors = ncolors;
	size_t pixel = ncolors ? 1 : 4;
	if (!(img->pixels = calloc((size_t)width * height, pixel)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for a %ux%u image", width, height);
	return MH_OK;
}

void png_free(struct png_image *img)
{
	if (!img)
		return;
	free(img->pixels);
	img->pixels = NULL;
}

/* ---- encoding -------------------------------------------------------- */

/* Writes a chunk's length, type and data at p (the data may already be
 * in place: data NULL) and its CRC; returns the end. */
static uint8_t *put_chunk(uint8_t *p, const char type[4], const uint8_t *data, uint32_t n)
{
	put_be32(p, n);
	memcpy(p + 4, type, 4);
	if (data && n)
		memcpy(p + 8, data, n);
	put_be32(p + 8 + n, (uint32_t)crc32(crc32(0L, Z_NULL, 0), p + 4, n + 4));
	return p + 12 + n;
}

/* The sum of a filtered row's bytes taken as signed: the usual measure
 * of which filter will compress best. */
static uint64_t row_cost(const uint8_t *row, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (uint64_t)abs((int8_t)row[i]);
	return sum;
}

/* The filtered rows (filter byte first) of img as written: a palette's
 * indices packed at `depth` bits, unfiltered; RGBA with the cheapest
 * filter of each row. */
static uint8_t *filtered_rows(const struct png_image *img, unsigned depth, size_t stride)
{
	size_t rowbytes = stride - 1;
	uint8_t *raw = malloc(stride * img->height), *trial = malloc(rowbytes);
	if (!raw || !trial) {
		free(raw);
		free(trial);
		return NULL;
	}
	for (uint32_t y = 0; y < img->height; y++) {
		uint8_t *out = raw + y * stride;
		if (img->ncolors) {
			const uint8_t *in = img->pixels + (size_t)y * img->width;
			out[0] = 0;
			memset(out + 1, 0, rowbytes);
			for (uint32_t x = 0; x < img->width; x++) {
				unsigned shift = 8 - depth - (x * depth) % 8;
				out[1 + x * depth / 8] |= (uint8_t)(in[x] << shift);
			}
			continue;
		}
		const uint8_t *row = img->pixels + (size_t)y * rowbytes;
		const uint8_t *prev = y ? row - rowbytes : NULL;
		uint64_t best = UINT64_MAX;
		for (unsigned type = 0; type <= 4; type++) {
			filter_row(type, row, prev, rowbytes, 4, trial);
			uint64_t cost = row_cost(trial, rowbytes);
			if (cost < best) {
				best = cost;
				out[0] = (uint8_t)type;
				memcpy(out + 1, trial, rowbytes);
			}
		}
	}
	free(trial);
	return raw;
}

/* deflate with zlib's default level and a window no larger than the
 * data (a match cannot reach further back than its start): a texture's
 * few kilobytes then need a few kilobytes of state, not the 256 KB a
 * 32 KB window and the default hash take, which zlib also clears. */
static int deflate_init_for(z_stream *z, size_t len)
{
	int window = 9; /* zlib's smallest for deflate */
	while (window < 15 && ((size_t)1 << window) < len)
		window++;
	int mem_level = window - 7 < 1 ? 1 : window - 7 > 8 ? 8 : window - 7;
	return deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window, mem_level,
			    Z_DEFAULT_STRATEGY);
}

enum mh_err png_encode(const struct png_image *img, uint8_t **out, size_t *len,
		       struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (!png_size_ok(img->width, img->height))
		return size_refused(d, 0, img->width, img->height);
	if (img->ncolors > PNG_MAX_COLORS)
		return mh_fail(d, MH_ERANGE, 0, "%u colours: a palette holds at most %u",
			       img->ncolors, PNG_MAX_COLORS);
	size_t npixels = (size_t)img->width * img->height;
	for (size_t i = 0; img->ncolors && i < npixels; i++)
		if (img->pixels[i] >= img->ncolors)
			return mh_fail(d, MH_ERANGE, 0, "pixel (%zu, %zu) is colour %u of a "
				       "%u-colour palette", i % img->width, i / img->width,
				       img->pixels[i], img->ncolors);

	unsigned depth = !img->ncolors || img->ncolors > 16 ? 8 : 4;
	size_t stride = 1 + (img->ncolors ? ((size_t)img->width * depth + 7) / 8
					  : (size_t)img->width * 4);
	uint32_t ntrns = 0;
	for (uint32_t i = 0; i < img->ncolors; i++)
		if (img->palette[i][3] != 255)
			ntrns = i + 1;

	uint8_t *raw = filtered_rows(img, depth, stride);
	size_t raw_len = stride * img->height;
	z_stream z = {0};
	if (!raw || deflate_init_for(&z, raw_len) != Z_OK) {
		free(raw);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory encoding a %ux%u PNG",
			       img->width, img->height);
	}
	size_t bound = deflateBound(&z, (uLong)raw_len);
	size_t cap = sizeof SIGNATURE + 12 + IHDR_LEN + 12 + 3 * (size_t)img->ncolors + 12 +
		     ntrns + 12 + bound + 12;
	uint8_t *buf = malloc(cap), *p = buf;
	if (!buf) {
		deflateEnd(&z);
		free(raw);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory encoding a %ux%u PNG",
			       img->width, img->height);
	}
	memcpy(p, SIGNATURE, sizeof SIGNATURE);
	p += sizeof SIGNATURE;
	uint8_t ihdr[IHDR_LEN] = {0};
	put_be32(ihdr, img->width);
	put_be32(ihdr + 4, img->height);
	ihdr[8] = (uint8_t)depth;
	ihdr[9] = img->ncolors ? INDEXED : TRUECOLOR_ALPHA;
	p = put_chunk(p, "IHDR", ihdr, IHDR_LEN);
	if (img->ncolors) {
		for (uint32_t i = 0; i < img->ncolors; i++)
			memcpy(p + 8 + 3 * i, img->palette[i], 3);
		p = put_chunk(p, "PLTE", NULL, 3 * img->ncolors);
	}
	if (ntrns) {
		for (uint32_t i = 0; i < ntrns; i++)
			p[8 + i] = img->palette[i][3];
		p = put_chunk(p, "tRNS", NULL, ntrns);
	}
	z.next_in = raw;
	z.avail_in = (uInt)raw_len;
	z.next_out = p + 8;
	z.avail_out = (uInt)bound;
	int zerr = deflate(&z, Z_FINISH);
	size_t zlen = bound - z.avail_out;
	deflateEnd(&z);
	free(raw);
	if (zerr != Z_STREAM_END) {
		free(buf);
		return mh_fail(d, zerr == Z_MEM_ERROR ? MH_ENOMEM : MH_ERANGE, 0,
			       "zlib could not compress the image (%d)", zerr);
	}
	p = put_chunk(p, "IDAT", NULL, (uint32_t)zlen);
	p = put_chunk(p, "IEND", NULL, 0);
	*out = buf;
	*len = (size_t)(p - buf);
	return MH_OK;
}

/* ---- decoding -------------------------------------------------------- */

enum idat_state { IDAT_BEFORE, IDAT_IN, IDAT_AFTER };

struct reader {
	const uint8_t *buf;
	size_t len;
	struct mh_diag *d;
	/* IHDR */
	uint32_t width, height;
	unsigned depth, type, channels;
	size_t bpp;          /* bytes of a whole pixel, at least 1 (filters) */
	size_t stride;       /* a row's bytes, its filter byte first */
	/* PLTE, tRNS */
	bool have_plte, have_trns;
	uint32_t nplte;
	uint8_t plte[PNG_MAX_COLORS][4];
	uint16_t trns_key[3]; /* gray or RGB: the transparent colour */
	/* IDAT */
	enum idat_state idat;
	uint64_t first_idat;  /* offset of the first IDAT chunk */
	uint64_t idat_end;    /* end of the last one */
	uint8_t *raw;         /* the rows, unfiltered as they complete */
	z_stream z;
	bool z_open, z_ended;
	uint8_t spill;        /* inflate's output past the rows: an error */
	size_t rows_done;
};

/* A chunk type as text for messages: its four bytes, '?' for any that
 * is not a letter. */
static void type_name(const uint8_t *type, char name[5])
{
	for (int i = 0; i < 4; i++) {
		uint8_t c = type[i];
		name[i] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ? (char)c : '?';
	}
	name[4] = '\0';
}

static bool is_type(const uint8_t *type, const char *want)
{
	return !memcmp(type, want, 4);
}

static bool valid_depth(unsigned type, unsigned depth)
{
	switch (type) {
	case GRAY: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
	case INDEXED: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
	case TRUECOLOR:
	case GRAY_ALPHA:
	case TRUECOLOR_ALPHA: return depth == 8 || depth == 16;
	default: return false;
	}
}

static unsigned channels_of(unsigned type)
{
	static const unsigned n[] = {[GRAY] = 1, [TRUECOLOR] = 3, [INDEXED] = 1,
				     [GRAY_ALPHA] = 2, [TRUECOLOR_ALPHA] = 4};
	return n[type];
}

/* IHDR: the chunk at `off`, its 13 bytes at p. */
static enum mh_err read_ihdr(struct reader *r, uint64_t off, const uint8_t *p, uint32_t n)
{
	uint64_t at = off + 8;
	if (n != IHDR_LEN)
		return mh_fail(r->d, MH_ECORRUPT, off, "IHDR holds %u bytes, not %u", n, IHDR_LEN);
	r->width = be32(p);
	r->height = be32(p + 4);
	r->depth = p[8];
	r->type = p[9];
	if (!r->width || r->width > CHUNK_MAX)
		return mh_fail(r->d, MH_ECORRUPT, at, "width %u is not 1 to 2^31-1", r->width);
	if (!r->height || r->height > CHUNK_MAX)
		return mh_fail(r->d, MH_ECORRUPT, at + 4, "height %u is not 1 to 2^31-1",
			       r->height);
	if (r->type > TRUECOLOR_ALPHA || r->type == 1 || r->type == 5)
		return mh_fail(r->d, MH_ECORRUPT, at + 9, "colour type %u is not 0, 2, 3, 4 or 6",
			       r->type);
	if (!valid_depth(r->type, r->depth))
		return mh_fail(r->d, MH_ECORRUPT, at + 8,
			       "bit depth %u is not one colour type %u has", r->depth, r->type);
	if (p[10] != 0)
		return mh_fail(r->d, MH_ECORRUPT, at + 10, "compression method %u is not 0 "
			       "(deflate)", p[10]);
	if (p[11] != 0)
		return mh_fail(r->d, MH_ECORRUPT, at + 11, "filter method %u is not 0", p[11]);
	if (p[12] == 1)
		return mh_fail(r->d, MH_ERANGE, at + 12, "the PNG is interlaced (Adam7), which is "
			       "not read here: save it without interlacing");
	if (p[12] != 0)
		return mh_fail(r->d, MH_ECORRUPT, at + 12, "interlace method %u is not 0 or 1",
			       p[12]);
	if (!png_size_ok(r->width, r->height))
		return size_refused(r->d, at, r->width, r->height);
	r->channels = channels_of(r->type);
	size_t bits = (size_t)r->channels * r->depth;
	r->bpp = bits < 8 ? 1 : bits / 8;
	r->stride = 1 + ((size_t)r->width * bits + 7) / 8;
	return MH_OK;
}

static enum mh_err read_plte(struct reader *r, uint64_t off, const uint8_t *p, uint32_t n)
{
	if (r->type == GRAY || r->type == GRAY_ALPHA)
		return mh_fail(r->d, MH_ECORRUPT, off, "a PLTE chunk in a grayscale image");
	if (r->have_plte)
		return mh_fail(r->d, MH_ECORRUPT, off, "a second PLTE chunk");
	if (r->idat != IDAT_BEFORE || r->have_trns)
		return mh_fail(r->d, MH_ECORRUPT, off, "PLTE after %s: it comes before them",
			       r->have_trns ? "tRNS" : "the image data");
	if (n == 0 || n % 3 || n > 3 * PNG_MAX_COLORS)
		return mh_fail(r->d, MH_ECORRUPT, off, "PLTE holds %u bytes: 3 per colour, "
			       "1 to %u colours", n, PNG_MAX_COLORS);
	r->nplte = n / 3;
	if (r->type == INDEXED && r->nplte > 1u << r->depth)
		return mh_fail(r->d, MH_ECORRUPT, off, "PLTE has %u colours, more than a %u-bit "
			       "index reaches", r->nplte, r->depth);
	for (uint32_t i = 0; i < r->nplte; i++) {
		memcpy(r->plte[i], p + 3 * i, 3);
		r->plte[i][3] = 255;
	}
	r->have_plte = true;
	return MH_OK;
}

static enum mh_err read_trns(struct reader *r, uint64_t off, const uint8_t *p, uint32_t n)
{
	if (r->have_trns)
		return mh_fail(r->d, MH_ECORRUPT, off, "a second tRNS chunk");
	if (r->idat != IDAT_BEFORE)
		return mh_fail(r->d, MH_ECORRUPT, off, "tRNS after the image data");
	if (r->type == GRAY_ALPHA || r->type == TRUECOLOR_ALPHA)
		return mh_fail(r->d, MH_ECORRUPT, off, "tRNS in an image with an alpha channel");
	if (r->type == INDEXED) {
		if (!r->have_plte)
			return mh_fail(r->d, MH_ECORRUPT, off, "tRNS before PLTE");
		if (n > r->nplte)
			return mh_fail(r->d, MH_ECORRUPT, off, "tRNS gives %u alphas for %u colours",
				       n, r->nplte);
		for (uint32_t i = 0; i < n; i++)
			r->plte[i][3] = p[i];
	} else {
		uint32_t want = r->type == GRAY ? 2 : 6;
		if (n != want)
			return mh_fail(r->d, MH_ECORRUPT, off, "tRNS holds %u bytes, not %u", n,
				       want);
		for (uint32_t c = 0; c < want / 2; c++)
			r->trns_key[c] = (uint16_t)(p[2 * c] << 8 | p[2 * c + 1]);
	}
	r->have_trns = true;
	return MH_OK;
}

/* Unfilters the rows inflate has completed; a bad filter type is blamed
 * on the IDAT chunk at `off` that held it. */
static enum mh_err unfilter_done(struct reader *r, uint64_t off)
{
	size_t done = (size_t)(r->z.total_out / r->stride);
	for (; r->rows_done < done && r->rows_done < r->height; r->rows_done++) {
		uint8_t *row = r->raw + r->rows_done * r->stride;
		if (row[0] > 4)
			return mh_fail(r->d, MH_ECORRUPT, off, "row %zu has filter type %u (0 to 4 "
				       "are defined)", r->rows_done, row[0]);
		unfilter_row(row[0], row + 1, r->rows_done ? row + 1 - r->stride : NULL,
			     r->stride - 1, r->bpp);
	}
	return MH_OK;
}

/* IDAT: inflates its bytes into the rows. */
static enum mh_err read_idat(struct reader *r, uint64_t off, const uint8_t *p, uint32_t n)
{
	if (r->idat == IDAT_AFTER)
		return mh_fail(r->d, MH_ECORRUPT, off, "IDAT chunks are not consecutive");
	if (r->type == INDEXED && !r->have_plte)
		return mh_fail(r->d, MH_ECORRUPT, off, "IDAT before PLTE: a palette image "
			       "needs its palette first");
	if (r->idat == IDAT_BEFORE) {
		r->idat = IDAT_IN;
		r->first_idat = off;
		if (!(r->raw = malloc(r->stride * r->height)) || inflateInit(&r->z) != Z_OK)
			return mh_fail(r->d, MH_ENOMEM, off, "out of memory for a %ux%u image",
				       r->width, r->height);
		r->z_open = true;
		r->z.next_out = r->raw;
		r->z.avail_out = (uInt)(r->stride * r->height);
	}
	r->idat_end = off + 12 + n;
	r->z.next_in = (Bytef *)(uintptr_t)p;
	r->z.avail_in = n;
	while (r->z.avail_in && !r->z_ended) {
		if (!r->z.avail_out) { /* the rows are full: anything more spills */
			r->z.next_out = &r->spill;
			r->z.avail_out = 1;
		}
		Bytef *spill_at = r->z.next_out;
		int zerr = inflate(&r->z, Z_NO_FLUSH);
		uint64_t at = off + 8 + (n - r->z.avail_in);
		if (spill_at == &r->spill && r->z.next_out != spill_at)
			return mh_fail(r->d, MH_ECORRUPT, at, "the image data inflates to more than "
				       "the %u rows of %zu bytes the header gives", r->height,
				       r->stride);
		enum mh_err err = unfilter_done(r, off);
		if (err)
			return err;
		if (zerr == Z_STREAM_END)
			r->z_ended = true;
		else if (zerr == Z_MEM_ERROR)
			return mh_fail(r->d, MH_ENOMEM, at, "out of memory inflating the image data");
		else if (zerr == Z_NEED_DICT)
			return mh_fail(r->d, MH_ECORRUPT, at, "the image data's zlib stream asks for "
				       "a preset dictionary");
		else if (zerr != Z_OK)
			return mh_fail(r->d, MH_ECORRUPT, at, "the image data is not a valid zlib "
				       "stream (%s)", r->z.msg ? r->z.msg : "no progress");
	}
	if (r->z.avail_in)
		return mh_fail(r->d, MH_ECORRUPT, off + 8 + (n - r->z.avail_in),
			       "%u bytes after the end of the image data's zlib stream",
			       r->z.avail_in);
	return MH_OK;
}

/* Sample x of a row at the image's depth (16-bit: the whole value). */
static uint16_t sample(const struct reader *r, const uint8_t *row, size_t x)
{
	switch (r->depth) {
	case 16: return (uint16_t)(row[2 * x] << 8 | row[2 * x + 1]);
	case 8: return row[x];
	default: {
		size_t bit = x * r->depth;
		unsigned shift = 8 - r->depth - (unsigned)(bit % 8);
		return (uint16_t)(row[bit / 8] >> shift & ((1u << r->depth) - 1));
	}
	}
}

/* A sample as 8 bits: 16-bit ones keep their high byte, low depths scale. */
static uint8_t to8(const struct reader *r, uint16_t v)
{
	if (r->depth == 16)
		return (uint8_t)(v >> 8);
	return (uint8_t)(v * 255u / ((1u << r->depth) - 1));
}

/* The unfiltered rows as the caller's image: indices, or RGBA. */
static enum mh_err convert(struct reader *r, struct png_image *img)
{
	enum mh_err err = png_image_init(img, r->width, r->height,
					 r->type == INDEXED ? r->nplte : 0, r->d);
	if (err)
		return err;
	if (r->type == INDEXED)
		memcpy(img->palette, r->plte, sizeof r->plte);
	for (uint32_t y = 0; y < r->height; y++) {
		const uint8_t *row = r->raw + (size_t)y * r->stride + 1;
		for (uint32_t x = 0; x < r->width; x++) {
			size_t i = (size_t)y * r->width + x;
			if (r->type == INDEXED) {
				uint16_t v = sample(r, row, x);
				if (v >= r->nplte)
					return mh_fail(r->d, MH_ECORRUPT, r->first_idat,
						       "pixel (%u, %u) is colour %u; the PLTE "
						       "holds %u", x, y, v, r->nplte);
				img->pixels[i] = (uint8_t)v;
				continue;
			}
			uint16_t s[4];
			for (unsigned c = 0; c < r->channels; c++)
				s[c] = sample(r, row, (size_t)x * r->channels + c);
			uint8_t *px = img->pixels + 4 * i;
			bool gray = r->type == GRAY || r->type == GRAY_ALPHA;
			for (unsigned c = 0; c < 3; c++)
				px[c] = to8(r, s[gray ? 0 : c]);
			if (r->type == GRAY_ALPHA || r->type == TRUECOLOR_ALPHA)
				px[3] = to8(r, s[r->channels - 1]);
			else if (r->have_trns && s[0] == r->trns_key[0] &&
				 (gray || (s[1] == r->trns_key[1] && s[2] == r->trns_key[2])))
				px[3] = 0;
			else
				px[3] = 255;
		}
	}
	return MH_OK;
}

/* After IEND (at iend): the image data must be whole. */
static enum mh_err check_image_data(struct reader *r, uint64_t iend)
{
	if (r->idat == IDAT_BEFORE)
		return mh_fail(r->d, MH_ECORRUPT, iend, "no IDAT chunk: the PNG holds no image");
	if (r->rows_done < r->height)
		return mh_fail(r->d, r->z_ended ? MH_ECORRUPT : MH_ETRUNC, r->idat_end,
			       "the image data ends after %zu of %u rows", r->rows_done,
			       r->height);
	if (!r->z_ended)
		return mh_fail(r->d, MH_ETRUNC, r->idat_end, "the image data's zlib stream does "
			       "not end (its last block or checksum is missing)");
	return MH_OK;
}

/* One chunk at off, its header and CRC checked: what it means. */
static enum mh_err read_chunk(struct reader *r, uint64_t off, const uint8_t *type,
			      const uint8_t *data, uint32_t n, bool *iend)
{
	char name[5];
	type_name(type, name);
	if (is_type(type, "IHDR"))
		return mh_fail(r->d, MH_ECORRUPT, off, "a second IHDR chunk");
	if (r->idat == IDAT_IN && !is_type(type, "IDAT"))
		r->idat = IDAT_AFTER;
	if (is_type(type, "PLTE"))
		return read_plte(r, off, data, n);
	if (is_type(type, "tRNS"))
		return read_trns(r, off, data, n);
	if (is_type(type, "IDAT"))
		return read_idat(r, off, data, n);
	if (is_type(type, "IEND")) {
		if (n)
			return mh_fail(r->d, MH_ECORRUPT, off, "IEND holds %u bytes, not 0", n);
		*iend = true;
		return check_image_data(r, off);
	}
	if (!(type[0] & 0x20))
		return mh_fail(r->d, MH_ECORRUPT, off + 4, "unknown critical chunk %s: the image "
			       "cannot be read without it", name);
	return MH_OK; /* ancillary: not needed */
}

/* Walks the chunks after the signature, checking each one's frame. */
static enum mh_err read_chunks(struct reader *r)
{
	size_t off = sizeof SIGNATURE;
	for (bool first = true, iend = false; !iend; first = false) {
		size_t left = r->len - off;
		if (left < 8)
			return mh_fail(r->d, MH_ETRUNC, off, left ? "the file ends inside a chunk's "
				       "header" : "the file ends without an IEND chunk");
		uint32_t n = be32(r->buf + off);
		const uint8_t *type = r->buf + off + 4;
		char name[5];
		type_name(type, name);
		if (n > CHUNK_MAX)
			return mh_fail(r->d, MH_ECORRUPT, off, "chunk length %u is above 2^31-1", n);
		if (strchr(name, '?'))
			return mh_fail(r->d, MH_ECORRUPT, off + 4, "chunk type %02x %02x %02x %02x "
				       "is not four letters", type[0], type[1], type[2], type[3]);
		if (left - 8 < (uint64_t)n + 4)
			return mh_fail(r->d, MH_ETRUNC, off, "the %s chunk holds %u bytes and a CRC; "
				       "the file ends %zu bytes into them", name, n, left - 8);
		const uint8_t *data = type + 4;
		uint32_t want = (uint32_t)crc32(crc32(0L, Z_NULL, 0), type, n + 4);
		if (be32(data + n) != want)
			return mh_fail(r->d, MH_ECORRUPT, off + 8 + n, "the %s chunk's CRC is %08x; "
				       "its bytes give %08x", name, be32(data + n), want);
		enum mh_err err;
		if (first && !is_type(type, "IHDR"))
			return mh_fail(r->d, MH_ECORRUPT, off + 4, "the first chunk is %s, not IHDR",
				       name);
		err = first ? read_ihdr(r, off, data, n) : read_chunk(r, off, type, data, n, &iend);
		if (err)
			return err;
		off += 12 + (size_t)n;
	}
	if (off != r->len)
		return mh_fail(r->d, MH_ECORRUPT, off, "%zu bytes after the IEND chunk",
			       r->len - off);
	return MH_OK;
}

enum mh_err png_decode(const uint8_t *buf, size_t len, struct png_image *img,
		       struct mh_diag *d)
{
	memset(img, 0, sizeof *img);
	if (len < sizeof SIGNATURE || memcmp(buf, SIGNATURE, sizeof SIGNATURE))
		return mh_fail(d, len < sizeof SIGNATURE && (!len || !memcmp(buf, SIGNATURE, len))
				      ? MH_ETRUNC : MH_EUNKNOWN, 0,
			       "not a PNG: it does not begin with the PNG signature "
			       "89 50 4E 47 0D 0A 1A 0A");
	struct reader *r = calloc(1, sizeof *r);
	if (!r)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory reading a PNG");
	r->buf = buf;
	r->len = len;
	r->d = d;
	enum mh_err err = read_chunks(r);
	if (!err)
		err = convert(r, img);
	if (r->z_open)
		inflateEnd(&r->z);
	free(r->raw);
	free(r);
	if (err)
		png_free(img);
	return err;
}
