/* SPDX-License-Identifier: MIT */
/* PNG images (the W3C/ISO PNG specification), the project's own codec
 * over zlib: how textures leave and enter the mount (mount.mhfu(8)).
 *
 * Written: 8-bit RGBA, or a palette (4-bit for up to 16 colours, else
 * 8-bit) with its alphas in tRNS; chunks IHDR, PLTE, tRNS, one IDAT,
 * IEND; rows of a palette image unfiltered, RGBA rows with the filter
 * that makes them smallest.  The same image gives the same bytes.
 *
 * Read: every colour type and bit depth of the specification (16-bit
 * samples keep their high byte), filters 0-4, tRNS, ancillary chunks
 * skipped (their CRCs checked); not interlaced (Adam7 is refused: save
 * without interlacing).  Lengths, CRCs, chunk order, the zlib stream and
 * the image's size are checked; each error names what and its byte
 * offset in the file. */
#ifndef MH_PNG_H
#define MH_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* What the reader takes: no side longer, no more pixels in all. */
#define PNG_MAX_SIDE 16384u
#define PNG_MAX_PIXELS (1u << 22)
#define PNG_MAX_COLORS 256u

/* An image, rows top first.  With a palette (ncolors 1..256) a pixel is
 * one byte, its palette index; without (ncolors 0), four, R G B A. */
struct png_image {
	uint32_t width, height;
	uint32_t ncolors;
	uint8_t palette[PNG_MAX_COLORS][4]; /* RGBA; alpha 255 where tRNS gives none */
	uint8_t *pixels;
};

/* Whether a width x height image is within the limits above. */
static inline bool png_size_ok(uint32_t width, uint32_t height)
{
	return width && height && width <= PNG_MAX_SIDE && height <= PNG_MAX_SIDE &&
	       (uint64_t)width * height <= PNG_MAX_PIXELS;
}

/* Bytes per pixel of img's pixels: 1 with a palette, else 4. */
static inline size_t png_pixel_size(const struct png_image *img)
{
	return img->ncolors ? 1 : 4;
}

/* Allocates img->pixels for width x height (zeroed); the palette is the
 * caller's to fill.  MH_ERANGE beyond the reader's limits. */
enum mh_err png_image_init(struct png_image *img, uint32_t width, uint32_t height,
			   uint32_t ncolors, struct mh_diag *d);

/* Encodes img; *out is malloc'ed and the caller's.  A palette image's
 * pixels must index its palette. */
enum mh_err png_encode(const struct png_image *img, uint8_t **out, size_t *len,
		       struct mh_diag *d);

/* Decodes the PNG filling all of buf[0..len).  A palette image (colour
 * type 3) keeps its indices and palette; every other type becomes RGBA.
 * The caller frees *img with png_free, also after a failure. */
enum mh_err png_decode(const uint8_t *buf, size_t len, struct png_image *img,
		       struct mh_diag *d);

void png_free(struct png_image *img);

#endif
