/* SPDX-License-Identifier: MIT */
/* TMH texture banks (mhfu-archive(5) "TMH"): a list of images, each its
 * pixels in one of the PSP GE's texture formats and, for an indexed
 * format, its own colour table (CLUT).
 *
 * Decoding keeps every byte (headers' spare words, the stored pixel and
 * CLUT bytes as they are, bytes after the last image), so encoding gives
 * the input back byte for byte.  An image's size follows from its format
 * and dimensions alone: replacing its pixels (tmh_edit.c) keeps the
 * bank's size.
 *
 * Formats read: all eleven.  Written: 0-3 (direct colours) and 4-5
 * (4- and 8-bit indices), the game's own; 6-7 (16- and 32-bit indices)
 * and 8-10 (DXT1, DXT3, DXT5) are read-only.  Images are shown as
 * pictures (struct png_image): 4- and 8-bit indexed ones with their CLUT
 * as palette, the others as RGBA. */
#ifndef MH_TMH_H
#define MH_TMH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "png.h"

#define TMH_MAGIC ".TMH0.14"
#define TMH_MAGIC_LEN 8u
#define TMH_BANK_HEADER 16u
#define TMH_IMAGE_HEADERS 32u /* the image header and the pixel header */
#define TMH_CLUT_HEADER 16u

/* The GE's texture formats; a CLUT's entries are in one of 0-3.  Direct
 * colours are little-endian words, red in the low bits. */
enum tmh_format {
	TMH_RGB565 = 0,
	TMH_RGBA5551,
	TMH_RGBA4444,
	TMH_RGBA8888,
	TMH_INDEX4,
	TMH_INDEX8,
	TMH_INDEX16,
	TMH_INDEX32,
	TMH_DXT1,
	TMH_DXT3,
	TMH_DXT5,
	TMH_FORMATS
};

struct tmh_image {
	uint32_t spare;            /* image header +0x04 (0 in the game), kept */
	enum tmh_format format;
	uint16_t width, height;
	uint8_t *pixels;           /* as stored: swizzled or not, maybe padded */
	uint32_t pixels_len;
	bool has_clut;             /* the indexed formats, 4-7 */
	enum tmh_format clut_format; /* 0-3 */
	uint32_t clut_entries;
	uint8_t *clut;             /* clut_entries colours */
	uint32_t clut_len;
};

struct tmh {
	uint32_t count;
	uint32_t spare;            /* bank header +0x0C (0 in the game), kept */
	struct tmh_image *images;  /* count of them */
	uint8_t *tail;             /* bytes after the last image (a bank cut */
	size_t tail_len;           /*   from DATA.BIN runs to its block's end) */
};

/* Decodes the bank filling buf[0..len): the walk over its images must
 * end inside it, and every pixel of an indexed image must index its
 * CLUT.  The caller frees *t with tmh_free, also after a failure. */
enum mh_err tmh_decode(const uint8_t *buf, size_t len, struct tmh *t, struct mh_diag *d);

/* The bank's bytes; *out is malloc'ed and the caller's. */
enum mh_err tmh_encode(const struct tmh *t, uint8_t **out, size_t *len, struct mh_diag *d);

void tmh_free(struct tmh *t);

/* "RGBA5551", "indexed 4-bit", "DXT1", ... */
const char *tmh_format_name(enum tmh_format f);

/* Whether images of format f can be written back (0-5). */
bool tmh_format_writable(enum tmh_format f);

/* Bits per pixel of format f (DXT: of its 4x4 blocks, per pixel). */
unsigned tmh_format_bits(enum tmh_format f);

/* Pixel bytes an image of f, width x height needs. */
uint64_t tmh_pixels_needed(enum tmh_format f, uint32_t width, uint32_t height);

/* Whether the image's pixels are stored swizzled: in blocks of 16 bytes
 * by 8 rows, blocks left to right then top to bottom.  So are all but
 * DXT images whose rows are whole 16-byte blocks. */
bool tmh_swizzled(const struct tmh_image *im);

/* Where pixel (x, y) of a non-DXT image is stored: its first bit in the
 * pixel bytes (a 4-bit pixel's low nibble comes first). */
uint64_t tmh_pixel_bit(const struct tmh_image *im, uint32_t x, uint32_t y);

/* Pixel (x, y) of a non-DXT image: an index or a direct colour word; 0
 * for a pixel stored past the pixel bytes (a swizzled image whose last
 * band of 8 rows is cut short: the GE reads on into other data). */
uint32_t tmh_pixel_get(const struct tmh_image *im, uint32_t x, uint32_t y);

/* Stores pixel (x, y); false, storing nothing, if it lies past the
 * pixel bytes. */
bool tmh_pixel_set(struct tmh_image *im, uint32_t x, uint32_t y, uint32_t v);

/* A direct colour word of format f (0-3) as RGBA, its fields widened by
 * repeating their high bits; and RGBA rounded to the nearest word. */
void tmh_color_unpack(enum tmh_format f, uint32_t v, uint8_t rgba[4]);
uint32_t tmh_color_pack(enum tmh_format f, const uint8_t rgba[4]);

/* Colours of the palette a 4- or 8-bit image shows with: its CLUT's
 * first 16 or 256 entries (fewer if it holds fewer; later ones, more
 * palettes, are kept but not shown).  0 for any other format. */
uint32_t tmh_palette_size(const struct tmh_image *im);

/* That palette's colours as RGBA; returns how many. */
uint32_t tmh_palette(const struct tmh_image *im, uint8_t pal[PNG_MAX_COLORS][4]);

/* The image as a picture: a 4- or 8-bit indexed image with its palette,
 * any other as RGBA.  The caller frees *pic with png_free. */
enum mh_err tmh_image_picture(const struct tmh_image *im, struct png_image *pic,
			      struct mh_diag *d);

/* ---- edits (tmh_edit.c) ------------------------------------------------ */

/* Replaces an image's pixels from a picture of the same dimensions, the
 * image keeping its format and size:
 *   - a 4- or 8-bit image given a palette picture whose indices fit its
 *     palette takes the indices as they are; where the picture's palette
 *     differs from the image's, the CLUT's entries become its colours;
 *   - given any other picture (or more colours than its palette has),
 *     each pixel takes the palette's colour nearest its own (in RGBA,
 *     the first of equals), and a pixel showing the colour it had keeps
 *     its index;
 *   - a direct image takes each pixel's colour, rounded to its format;
 *     a pixel showing the colour it had keeps its word.
 * So the picture tmh_image_picture gives replaces nothing; a read-only
 * format's image takes that picture only.  MH_ERANGE for other
 * dimensions, a change to a read-only image, or a change to a pixel
 * stored past the pixel bytes; on failure the image is unchanged. */
enum mh_err tmh_image_replace(struct tmh_image *im, const struct png_image *pic,
			      struct mh_diag *d);

/* The image as PNG bytes (tmh_image_picture, png_encode). */
enum mh_err tmh_image_png(const struct tmh_image *im, uint8_t **png, size_t *len,
			  struct mh_diag *d);

/* Replaces the image from PNG bytes (png_decode, tmh_image_replace); a
 * PNG that does not decode fails with its error and byte offset, which
 * the message also says. */
enum mh_err tmh_image_replace_png(struct tmh_image *im, const uint8_t *png, size_t len,
				  struct mh_diag *d);

/* The name the mount gives image i: "image00.png". */
void tmh_image_file_name(uint32_t i, char *buf, size_t len);

#endif
