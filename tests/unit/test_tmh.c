/* SPDX-License-Identifier: MIT */
/* Tests of codecs/tmh and codecs/tmh_edit (mhfu-archive(5) "TMH").
 *
 * Banks built here byte by byte from the format's description decode to
 * what it says and encode back byte for byte; colours, swizzling and DXT
 * blocks against vectors worked out by hand; every malformed bank
 * expects its exact error and offset; edits keep the bank's size and
 * follow the rules of tmh.h; allocation failures end cleanly.  With
 * $MHFU_SAMPLE, every TMH of the sample round-trips, and so does each of
 * its images through its PNG. */
#define _XOPEN_SOURCE 700
#include <ftw.h>

#include "faults.h"
#include "png.h"
#include "rng.h"
#include "testlib.h"
#include "tmh.h"

/* ---- building banks ------------------------------------------------------- */

struct bank {
	uint8_t p[1 << 16];
	size_t len;
	uint32_t count;
};

static void bank_start(struct bank *b)
{
	memset(b, 0, sizeof *b);
	memcpy(b->p, ".TMH0.14", 8);
	b->len = 16;
}

/* Appends an image: its pixel bytes and, if clut_bytes, a CLUT of
 * `entries` colours of clut_format.  Returns its offset. */
static size_t bank_image(struct bank *b, uint32_t format, uint16_t w, uint16_t h,
			 const uint8_t *pixels, uint32_t npixels, uint32_t clut_format,
			 uint32_t entries, const uint8_t *clut, uint32_t clut_bytes)
{
	size_t at = b->len;
	uint32_t clut_part = clut ? 16 + clut_bytes : 0;
	store_le32(b->p + at, 32 + npixels + clut_part);
	store_le32(b->p + at + 4, 0);
	store_le32(b->p + at + 8, 1);
	store_le32(b->p + at + 12, clut ? 1 : 0);
	store_le32(b->p + at + 16, 16 + npixels);
	store_le32(b->p + at + 20, 1);
	store_le32(b->p + at + 24, format);
	store_le16(b->p + at + 28, w);
	store_le16(b->p + at + 30, h);
	memcpy(b->p + at + 32, pixels, npixels);
	if (clut) {
		uint8_t *c = b->p + at + 32 + npixels;
		store_le32(c, 16 + clut_bytes);
		store_le32(c + 4, 2);
		store_le32(c + 8, clut_format);
		store_le32(c + 12, entries);
		memcpy(c + 16, clut, clut_bytes);
	}
	b->len += 32 + npixels + clut_part;
	store_le32(b->p + 8, ++b->count);
	return at;
}

static void decode_ok(const uint8_t *buf, size_t len, struct tmh *t)
{
	struct mh_diag d = {0};
	enum mh_err err = tmh_decode(buf, len, t, &d);
	if (err)
		fail_msg("tmh_decode: %s at byte %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

/* Decodes, encodes, and wants the same bytes. */
static void roundtrip(const uint8_t *buf, size_t len)
{
	struct tmh t;
	uint8_t *out;
	size_t n;
	struct mh_diag d = {0};
	decode_ok(buf, len, &t);
	assert_int_equal(tmh_encode(&t, &out, &n, &d), MH_OK);
	assert_int_equal(n, len);
	assert_memory_equal(out, buf, len);
	free(out);
	tmh_free(&t);
}

static void decode_fails(const uint8_t *buf, size_t len, enum mh_err code, uint64_t at,
			 const char *words)
{
	struct tmh t;
	struct mh_diag d = {0};
	enum mh_err err = tmh_decode(buf, len, &t, &d);
	assert_diag(&d, err, code, at);
	assert_diag_says(&d, words);
	tmh_free(&t);
}

static void picture_ok(const struct tmh_image *im, struct png_image *pic)
{
	struct mh_diag d = {0};
	enum mh_err err = tmh_image_picture(im, pic, &d);
	if (err)
		fail_msg("tmh_image_picture: %s: %s", mh_strerror(err), d.msg);
}

/* ---- colours ----------------------------------------------------------- */

static void test_colors(void **state)
{
	(void)state;
	struct {
		enum tmh_format f;
		uint32_t v;
		uint8_t rgba[4];
	} V[] = {
		{TMH_RGB565, 0x001f, {255, 0, 0, 255}},   /* red in the low bits */
		{TMH_RGB565, 0x07e0, {0, 255, 0, 255}},
		{TMH_RGB565, 0xf800, {0, 0, 255, 255}},
		{TMH_RGB565, 0x0021, {8, 4, 0, 255}},     /* 1 -> 8, 1 -> 4 (bit copies) */
		{TMH_RGBA5551, 0x801f, {255, 0, 0, 255}},
		{TMH_RGBA5551, 0x7c00, {0, 0, 255, 0}},
		{TMH_RGBA5551, 0x0210, {132, 132, 0, 0}}, /* 16 -> 128 + 4 */
		{TMH_RGBA4444, 0xf00f, {255, 0, 0, 255}},
		{TMH_RGBA4444, 0x1234, {68, 51, 34, 17}},
		{TMH_RGBA8888, 0x80402010, {0x10, 0x20, 0x40, 0x80}},
	};
	for (size_t i = 0; i < sizeof V / sizeof *V; i++) {
		uint8_t c[4];
		tmh_color_unpack(V[i].f, V[i].v, c);
		assert_memory_equal(c, V[i].rgba, 4);
		assert_int_equal(tmh_color_pack(V[i].f, c), V[i].v);
	}
	/* every 16-bit word of the direct formats survives unpack and pack
	 * (RGB565 has no alpha bit: its words are all 16 bits of colour) */
	for (enum tmh_format f = TMH_RGB565; f <= TMH_RGBA4444; f++)
		for (uint32_t v = 0; v < 65536; v++) {
			uint8_t c[4];
			tmh_color_unpack(f, v, c);
			assert_int_equal(tmh_color_pack(f, c), v);
		}
	/* rounding to the nearest: 132 -> 16 of 31, 3 -> 0, 4 -> 1 of 63 */
	uint8_t c[4] = {132, 4, 3, 127};
	assert_int_equal(tmh_color_pack(TMH_RGBA5551, c), 16 | 0 << 5 | 0 << 10);
	assert_int_equal(tmh_color_pack(TMH_RGB565, c), 16 | 1 << 5);
	assert_int_equal(tmh_color_pack(TMH_RGBA4444, c), 8 | 0 << 4 | 0 << 8 | 7u << 12);
}

/* ---- swizzling ---------------------------------------------------------- */

/* The format's rule, in pixels: blocks of bw x 8, linear (x, y) at
 * bw*8*(x/bw) + width*8*(y/8) + bw*(y%8) + x%bw in block order. */
static uint64_t rule_position(uint32_t bw, uint32_t width, uint32_t x, uint32_t y)
{
	return (uint64_t)bw * 8 * (x / bw) + (uint64_t)width * 8 * (y / 8) + bw * (y % 8) +
	       x % bw;
}

static void test_swizzle(void **state)
{
	(void)state;
	static const struct {
		enum tmh_format f;
		uint32_t bw, bits;
	} F[] = {{TMH_INDEX4, 32, 4}, {TMH_INDEX8, 16, 8}, {TMH_RGBA5551, 8, 16},
		 {TMH_RGBA8888, 4, 32}, {TMH_INDEX32, 4, 32}};
	for (size_t k = 0; k < sizeof F / sizeof *F; k++)
		for (uint32_t wide = 1; wide <= 3; wide++) {
			struct tmh_image im = {.format = F[k].f, .width = (uint16_t)(F[k].bw * wide),
					       .height = 24};
			assert_true(tmh_swizzled(&im));
			for (uint32_t y = 0; y < im.height; y++)
				for (uint32_t x = 0; x < im.width; x++)
					assert_int_equal(tmh_pixel_bit(&im, x, y),
							 rule_position(F[k].bw, im.width, x, y) *
								 F[k].bits);
		}
	/* rows that are not whole blocks are stored linearly */
	struct tmh_image narrow = {.format = TMH_INDEX4, .width = 8, .height = 8};
	assert_false(tmh_swizzled(&narrow));
	assert_int_equal(tmh_pixel_bit(&narrow, 3, 2), (2 * 8 + 3) * 4);
	struct tmh_image dxt = {.format = TMH_DXT1, .width = 32, .height = 32};
	assert_false(tmh_swizzled(&dxt));

	/* a 4-bit pixel's low nibble comes first; get and set agree */
	uint8_t px[64] = {0};
	struct tmh_image im = {.format = TMH_INDEX4, .width = 32, .height = 4,
			       .pixels = px, .pixels_len = sizeof px};
	assert_true(tmh_pixel_set(&im, 0, 0, 0xa));
	assert_true(tmh_pixel_set(&im, 1, 0, 0x5));
	assert_int_equal(px[0], 0x5a);
	assert_true(tmh_pixel_set(&im, 2, 1, 0xf));
	assert_int_equal(px[17], 0x0f); /* row 1 starts 16 bytes on */
	assert_int_equal(tmh_pixel_get(&im, 1, 0), 5);
	/* height 4: the band's rows 4..7 would be past the bytes */
	im.pixels_len = 16 * 3;
	assert_false(tmh_pixel_set(&im, 0, 3, 1));
	assert_int_equal(tmh_pixel_get(&im, 0, 3), 0);
}

/* ---- the bank, byte by byte -------------------------------------------- */

static void test_bank_layout(void **state)
{
	(void)state;
	/* 128x128 at 4 bits with 16 RGBA8888 colours: 8304 bytes an image */
	static uint8_t pixels[8192], clut[64];
	struct bank *b = malloc(sizeof *b);
	bank_start(b);
	store_le32(b->p + 12, 0xabcd); /* a spare word, kept */
	for (size_t i = 0; i < sizeof clut; i++)
		clut[i] = (uint8_t)i;
	pixels[0] = 0x21;
	size_t at = bank_image(b, 4, 128, 128, pixels, sizeof pixels, 3, 16, clut, 64);
	assert_int_equal(load_le32(b->p + at), 0x2070);
	memcpy(b->p + b->len, "tail", 4); /* bytes after the last image */
	b->len += 4;
	roundtrip(b->p, b->len);
	struct tmh t;
	decode_ok(b->p, b->len, &t);
	assert_int_equal(t.count, 1);
	assert_int_equal(t.spare, 0xabcd);
	assert_int_equal(t.tail_len, 4);
	const struct tmh_image *im = &t.images[0];
	assert_int_equal(im->format, TMH_INDEX4);
	assert_int_equal(im->clut_format, TMH_RGBA8888);
	assert_int_equal(im->clut_entries, 16);
	assert_int_equal(tmh_palette_size(im), 16);
	struct png_image pic;
	picture_ok(im, &pic);
	assert_int_equal(pic.ncolors, 16);
	assert_int_equal(pic.pixels[0], 1);
	assert_int_equal(pic.pixels[1], 2);
	assert_memory_equal(pic.palette[2], "\x08\x09\x0a\x0b", 4);
	png_free(&pic);
	tmh_free(&t);
	free(b);
}

/* Every format shows as its picture: indexed 4/8 with their palette,
 * 16/32-bit indices and direct colours as RGBA. */
static void test_pictures(void **state)
{
	(void)state;
	struct bank *b = malloc(sizeof *b);
	uint8_t px[256] = {0}, clut[1024];
	for (size_t i = 0; i < sizeof clut; i++)
		clut[i] = (uint8_t)(i * 7);
	bank_start(b);
	/* 8-bit indices over 300 CLUT entries? no: a 16-colour CLUT, 4x2, linear */
	px[0] = 1;
	px[5] = 15;
	bank_image(b, 5, 4, 2, px, 8, 1, 16, clut, 32);
	/* 16-bit indices (read-only), 2x1, colours 3 and 1 of 4 RGBA8888 */
	uint8_t i16[4] = {3, 0, 1, 0};
	bank_image(b, 6, 2, 1, i16, 4, 3, 4, clut, 16);
	/* RGBA4444, 2x1 */
	uint8_t c16[4] = {0x34, 0x12, 0x0f, 0xf0};
	bank_image(b, 2, 2, 1, c16, 4, 0, 0, NULL, 0);
	struct tmh t;
	decode_ok(b->p, b->len, &t);
	struct png_image pic;

	picture_ok(&t.images[0], &pic);
	assert_int_equal(pic.ncolors, 16);
	assert_int_equal(pic.pixels[0], 1);
	assert_int_equal(pic.pixels[5], 15);
	uint8_t want[4];
	tmh_color_unpack(TMH_RGBA5551, load_le16(clut + 30), want);
	assert_memory_equal(pic.palette[15], want, 4);
	png_free(&pic);

	picture_ok(&t.images[1], &pic);
	assert_int_equal(pic.ncolors, 0);
	assert_memory_equal(pic.pixels, clut + 12, 4);
	assert_memory_equal(pic.pixels + 4, clut + 4, 4);
	png_free(&pic);

	picture_ok(&t.images[2], &pic);
	assert_memory_equal(pic.pixels, "\x44\x33\x22\x11\xff\x00\x00\xff", 8);
	png_free(&pic);
	tmh_free(&t);
	free(b);
}

/* DXT blocks: the ends' red in the high bits, indices first. */
static void test_dxt(void **state)
{
	(void)state;
	struct bank *b = malloc(sizeof *b);
	bank_start(b);
	/* DXT1 4x4, ends red 0xf800 > blue 0x001f: rows of indices 0,1,2,3 */
	uint8_t dxt1[8] = {0xe4, 0xe4, 0xe4, 0xe4, 0x00, 0xf8, 0x1f, 0x00};
	bank_image(b, 8, 4, 4, dxt1, 8, 0, 0, NULL, 0);
	/* the same ends swapped (first <= second): index 3 is transparent */
	uint8_t dxt1b[8] = {0xe4, 0, 0, 0, 0x1f, 0x00, 0x00, 0xf8};
	bank_image(b, 8, 4, 4, dxt1b, 8, 0, 0, NULL, 0);
	/* DXT3: alpha rows of 4-bit values, pixel 1 of row 0 alpha 0x5 */
	uint8_t dxt3[16] = {0, 0, 0, 0, 0x00, 0xf8, 0x1f, 0x00, 0x50, 0, 0, 0, 0, 0, 0, 0xf0};
	bank_image(b, 9, 4, 4, dxt3, 16, 0, 0, NULL, 0);
	/* DXT5: ends 200 > 100, pixel 0 index 2 ((6*200 + 100)/7), pixel 1
	 * index 1, the rest 0 */
	uint8_t dxt5[16] = {0, 0, 0, 0, 0x00, 0xf8, 0x1f, 0x00, 0x0a, 0, 0, 0, 0, 0, 200, 100};
	bank_image(b, 10, 4, 4, dxt5, 16, 0, 0, NULL, 0);
	/* DXT5 with ends 10 <= 20: indices 6 and 7 are 0 and 255 */
	uint8_t dxt5b[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0x3e, 0, 0, 0, 0, 0, 10, 20};
	bank_image(b, 10, 4, 4, dxt5b, 16, 0, 0, NULL, 0);
	struct tmh t;
	decode_ok(b->p, b->len, &t);
	struct png_image pic;
	picture_ok(&t.images[0], &pic);
	assert_memory_equal(pic.pixels, "\xf8\x00\x00\xff", 4);
	assert_memory_equal(pic.pixels + 4, "\x00\x00\xf8\xff", 4);
	assert_memory_equal(pic.pixels + 8, "\xa5\x00\x52\xff", 4); /* (2*248)/3, 248/3 */
	assert_memory_equal(pic.pixels + 12, "\x52\x00\xa5\xff", 4);
	png_free(&pic);
	picture_ok(&t.images[1], &pic);
	assert_memory_equal(pic.pixels + 8, "\x7c\x00\x7c\xff", 4); /* (248 + 248)/2... */
	assert_memory_equal(pic.pixels + 12, "\x00\x00\x00\x00", 4);
	png_free(&pic);
	picture_ok(&t.images[2], &pic);
	assert_int_equal(pic.pixels[3], 0);
	assert_int_equal(pic.pixels[7], 0x55);
	assert_int_equal(pic.pixels[4 * 15 + 3], 0xff);
	png_free(&pic);
	picture_ok(&t.images[3], &pic);
	assert_int_equal(pic.pixels[3], (6 * 200 + 100) / 7);
	assert_int_equal(pic.pixels[7], 100);
	assert_int_equal(pic.pixels[11], 200);
	png_free(&pic);
	picture_ok(&t.images[4], &pic);
	assert_int_equal(pic.pixels[3], 0);   /* index 6 */
	assert_int_equal(pic.pixels[7], 255); /* index 7 */
	png_free(&pic);
	for (uint32_t i = 0; i < t.count; i++)
		assert_false(tmh_format_writable(t.images[i].format));
	tmh_free(&t);
	free(b);
}

/* ---- malformed banks --------------------------------------------------- */

static void test_malformed(void **state)
{
	(void)state;
	struct bank *g = malloc(sizeof *g), *b = malloc(sizeof *b);
	uint8_t px[64] = {0}, clut[32] = {0};
	bank_start(g);
	size_t at = bank_image(g, 4, 8, 8, px, 32, 1, 16, clut, 32);
	roundtrip(g->p, g->len);
	size_t c = at + 32 + 32; /* the CLUT header */

	decode_fails(g->p, 12, MH_ETRUNC, 0, "shorter than");
	decode_fails((const uint8_t *)"not a texture bank", 18, MH_EUNKNOWN, 0, "magic");
	decode_fails(g->p, 10, MH_ETRUNC, 0, "16-byte header");
	decode_fails(g->p, 40, MH_ECORRUPT, 8, "1 images cannot fit in 40 bytes");
	decode_fails(g->p, 60, MH_ETRUNC, at, "run past the bank's end");
#define CORRUPT(off, value, code, where, words)            \
	do {                                                \
		*b = *g;                                    \
		store_le32(b->p + (off), (value));          \
		decode_fails(b->p, b->len, code, where, words); \
	} while (0)
	CORRUPT(8, 2, MH_ETRUNC, g->len, "its headers need 32 bytes");
	CORRUPT(at + 8, 3, MH_ECORRUPT, at + 8, "tag 3 is not 1");
	CORRUPT(at + 12, 2, MH_ECORRUPT, at + 12, "CLUT flag 2");
	CORRUPT(at + 12, 0, MH_ECORRUPT, at + 12, "no CLUT follows");
	CORRUPT(at + 20, 0, MH_ECORRUPT, at + 20, "pixel tag 0");
	CORRUPT(at + 24, 11, MH_ECORRUPT, at + 24, "pixel format 11");
	CORRUPT(at + 24, 3, MH_ECORRUPT, at + 12, "RGBA8888 pixels index none");
	CORRUPT(at + 28, 8, MH_ECORRUPT, at + 28, "is 8x0");
	CORRUPT(at, 0x1000, MH_ETRUNC, at, "run past the bank's end");
	CORRUPT(at, 20, MH_ECORRUPT, at + 16, "pixel block of 48 bytes in an image of 20");
	CORRUPT(at + 16, 8, MH_ECORRUPT, at + 16, "pixel block of 8 bytes");
	CORRUPT(at + 28, 16 | 8 << 16, MH_ECORRUPT, at + 16, "a 16x8 indexed 4-bit image "
		"needs 64");
	CORRUPT(c + 4, 1, MH_ECORRUPT, c + 4, "CLUT tag 1");
	CORRUPT(c + 8, 4, MH_ECORRUPT, c + 8, "CLUT format 4");
	CORRUPT(c + 12, 8, MH_ECORRUPT, c, "8 RGBA5551 colours takes 32 bytes, its header "
		"says 48");
	CORRUPT(c + 12, 0, MH_ECORRUPT, c, "0 RGBA5551 colours");
	CORRUPT(at + 16, 90, MH_ECORRUPT, at + 16 + 90, "no room for its CLUT header");
	/* an image longer than its parts */
	*b = *g;
	b->len += 4;
	store_le32(b->p + at, 116);
	decode_fails(b->p, b->len, MH_ECORRUPT, at, "its parts add up to 112");
	/* its parts: a CLUT running past the image */
	*b = *g;
	store_le32(b->p + at, 32 + 32 + 16 + 16);
	store_le32(b->p + c, 16 + 32);
	store_le32(b->p + c + 12, 16);
	decode_fails(b->p, b->len, MH_ECORRUPT, c, "runs past the image's end");
	/* a pixel past the CLUT: 8-bit indices over 16 colours */
	*b = *g;
	bank_start(b);
	px[9] = 16;
	at = bank_image(b, 5, 8, 8, px, 64, 1, 16, clut, 32);
	decode_fails(b->p, b->len, MH_ECORRUPT, at + 32 + 9, "pixel (1, 1) is colour 16 of a "
		     "16-colour palette");
	/* 16-bit indices over the whole CLUT */
	bank_start(b);
	uint8_t i16[4] = {0, 0, 4, 0};
	at = bank_image(b, 6, 2, 1, i16, 4, 1, 4, clut, 8);
	decode_fails(b->p, b->len, MH_ECORRUPT, at + 32 + 2, "colour 4 of a 4-colour");
	/* every shorter prefix fails cleanly, never reads past its end */
	for (size_t n = 0; n < g->len; n++) {
		struct tmh t;
		assert_int_not_equal(tmh_decode(g->p, n, &t, NULL), MH_OK);
		tmh_free(&t);
	}
#undef CORRUPT
	free(g);
	free(b);
}

/* ---- edits ---------------------------------------------------------------- */

/* A bank of: 0 an 8-bit 32x8 image over 16 RGBA5551 colours, colour 5
 * the same as colour 2; 1 an RGBA8888 4x8 image; 2 a DXT1 image; 3 an
 * 8-bit 32x4 image whose band is cut short. */
static void edit_bank(struct bank *b, struct tmh *t)
{
	uint8_t px[256], clut[32];
	for (int i = 0; i < 16; i++)
		store_le16(clut + 2 * i, (uint16_t)(0x8000 | i * 0x0421));
	store_le16(clut + 10, load_le16(clut + 4));
	for (int i = 0; i < 256; i++)
		px[i] = (uint8_t)(i % 7 == 0 ? 5 : i % 16);
	bank_start(b);
	bank_image(b, 5, 32, 8, px, 256, 1, 16, clut, 32);
	bank_image(b, 3, 4, 8, px, 128, 0, 0, NULL, 0);
	bank_image(b, 8, 4, 4, px, 8, 0, 0, NULL, 0);
	for (int i = 0; i < 128; i++)
		px[i] = (uint8_t)(i % 3);
	bank_image(b, 5, 32, 4, px, 128, 1, 16, clut, 32);
	decode_ok(b->p, b->len, t);
}

static void replace_ok(struct tmh_image *im, const struct png_image *pic)
{
	struct mh_diag d = {0};
	enum mh_err err = tmh_image_replace(im, pic, &d);
	if (err)
		fail_msg("tmh_image_replace: %s: %s", mh_strerror(err), d.msg);
}

/* The bank's bytes now, compared with the original but for [from, to). */
static void only_changed(const struct tmh *t, const struct bank *b, size_t from, size_t to)
{
	uint8_t *out;
	size_t n;
	assert_int_equal(tmh_encode(t, &out, &n, NULL), MH_OK);
	assert_int_equal(n, b->len);
	assert_memory_equal(out, b->p, from);
	assert_memory_equal(out + to, b->p + to, n - to);
	assert_memory_not_equal(out + from, b->p + from, to - from);
	free(out);
}

static void test_replace_unchanged(void **state)
{
	(void)state;
	struct bank *b = malloc(sizeof *b);
	struct tmh t;
	edit_bank(b, &t);
	for (uint32_t i = 0; i < t.count; i++) {
		struct png_image pic;
		picture_ok(&t.images[i], &pic);
		replace_ok(&t.images[i], &pic); /* read-only ones too: nothing changes */
		/* as RGBA: the pixels that show their colour keep their index */
		if (pic.ncolors) {
			struct png_image rgba;
			assert_int_equal(png_image_init(&rgba, pic.width, pic.height, 0, NULL), MH_OK);
			for (size_t k = 0; k < (size_t)pic.width * pic.height; k++)
				memcpy(rgba.pixels + 4 * k, pic.palette[pic.pixels[k]], 4);
			replace_ok(&t.images[i], &rgba);
			png_free(&rgba);
		}
		png_free(&pic);
	}
	uint8_t *out;
	size_t n;
	assert_int_equal(tmh_encode(&t, &out, &n, NULL), MH_OK);
	assert_int_equal(n, b->len);
	assert_memory_equal(out, b->p, n); /* colour 5, the same as 2, stayed 5 */
	free(out);
	tmh_free(&t);
	free(b);
}

static void test_replace_indexed(void **state)
{
	(void)state;
	struct bank *b = malloc(sizeof *b);
	struct tmh t;
	edit_bank(b, &t);
	size_t pixels = 16 + 32, clut = pixels + 256 + 16; /* image 0's parts */
	struct png_image pic;

	/* indices for indices: only the pixel bytes change */
	picture_ok(&t.images[0], &pic);
	pic.pixels[3 * 32 + 1] = 9;
	replace_ok(&t.images[0], &pic);
	assert_int_equal(tmh_pixel_get(&t.images[0], 1, 3), 9);
	uint64_t at = pixels + tmh_pixel_bit(&t.images[0], 1, 3) / 8;
	only_changed(&t, b, at, at + 1);

	/* the palette edited: the CLUT's entry too, in RGBA5551 */
	memcpy(pic.palette[4], "\xff\x00\x00\xff", 4);
	replace_ok(&t.images[0], &pic);
	assert_int_equal(load_le16(t.images[0].clut + 8), 0x801f);
	only_changed(&t, b, at, clut + 10);
	png_free(&pic);
	tmh_free(&t);

	/* RGBA: the nearest colour, the first of equals */
	edit_bank(b, &t);
	struct png_image rgba;
	picture_ok(&t.images[0], &pic);
	assert_int_equal(png_image_init(&rgba, 32, 8, 0, NULL), MH_OK);
	for (size_t k = 0; k < 256; k++)
		memcpy(rgba.pixels + 4 * k, pic.palette[pic.pixels[k]], 4);
	uint8_t near2[4] = {pic.palette[2][0], pic.palette[2][1], (uint8_t)(pic.palette[2][2] + 2),
			    255};
	memcpy(rgba.pixels, near2, 4); /* pixel 0 was colour 5 */
	memcpy(rgba.pixels + 4, pic.palette[5], 4); /* pixel 1 was 1: now 2's colour, first */
	replace_ok(&t.images[0], &rgba);
	assert_int_equal(tmh_pixel_get(&t.images[0], 0, 0), 2);
	assert_int_equal(tmh_pixel_get(&t.images[0], 1, 0), 2);
	assert_int_equal(tmh_pixel_get(&t.images[0], 7, 0), 5); /* unchanged, kept */
	png_free(&rgba);

	/* a palette picture with more colours than the CLUT: mapped by colour */
	struct png_image big;
	assert_int_equal(png_image_init(&big, 32, 8, 200, NULL), MH_OK);
	memcpy(big.palette[150], pic.palette[3], 4);
	for (size_t k = 0; k < 256; k++)
		big.pixels[k] = 150;
	replace_ok(&t.images[0], &big);
	assert_int_equal(tmh_pixel_get(&t.images[0], 5, 5), 3);
	png_free(&big);
	png_free(&pic);
	tmh_free(&t);
	free(b);
}

static void test_replace_direct_and_refusals(void **state)
{
	(void)state;
	struct bank *b = malloc(sizeof *b);
	struct tmh t;
	struct png_image pic;
	struct mh_diag d = {0};
	edit_bank(b, &t);

	/* a direct image takes the colour; the others keep their words */
	picture_ok(&t.images[1], &pic);
	memcpy(pic.pixels + 4 * 6, "\x01\x02\x03\x04", 4);
	replace_ok(&t.images[1], &pic);
	assert_int_equal(tmh_pixel_get(&t.images[1], 2, 1), 0x04030201);
	size_t image1 = 16 + 32 + 256 + 16 + 32;
	uint64_t at = image1 + 32 + tmh_pixel_bit(&t.images[1], 2, 1) / 8;
	only_changed(&t, b, at, at + 4);
	png_free(&pic);

	/* other dimensions */
	assert_int_equal(png_image_init(&pic, 4, 9, 0, NULL), MH_OK);
	assert_diag(&d, tmh_image_replace(&t.images[1], &pic, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "the PNG is 4x9, the image 4x8");
	png_free(&pic);

	/* a read-only image changed */
	picture_ok(&t.images[2], &pic);
	pic.pixels[5] ^= 1;
	assert_diag(&d, tmh_image_replace(&t.images[2], &pic, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "DXT1, which is read-only here");
	assert_diag_says(&d, "pixel (1, 0) differs");
	png_free(&pic);

	/* a pixel past a cut band's bytes keeps its colour; nothing changes */
	picture_ok(&t.images[3], &pic);
	assert_int_equal(tmh_pixel_get(&t.images[3], 16, 3), 0); /* past: shows 0 */
	pic.pixels[0] = 1;
	pic.pixels[3 * 32 + 16] = 1;
	assert_diag(&d, tmh_image_replace(&t.images[3], &pic, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "pixel (16, 3) lies past");
	assert_int_equal(tmh_pixel_get(&t.images[3], 0, 0), 0);
	png_free(&pic);
	only_changed(&t, b, at, at + 4);

	/* a PNG that does not decode: its error and offset */
	uint8_t junk[16] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13,
			    'I', 'H', 'D', 'R'};
	assert_diag(&d, tmh_image_replace_png(&t.images[1], junk, sizeof junk, &d), MH_ETRUNC,
		    8);
	assert_diag_says(&d, "the PNG cannot be read");
	assert_diag_says(&d, "(at byte 8)");
	tmh_free(&t);
	free(b);
}

/* ---- the sample's banks ---------------------------------------------------- */

static unsigned sample_banks, sample_images;

static void check_sample_bank(const char *path)
{
	struct file_bytes f = {0};
	char why[8192];
	if (!read_whole_file(path, &f, why, sizeof why))
		fail_msg("%s", why);
	roundtrip(f.p, f.len);
	struct tmh t;
	decode_ok(f.p, f.len, &t);
	for (uint32_t i = 0; i < t.count; i++) {
		struct tmh_image *im = &t.images[i];
		struct png_image pic, back;
		uint8_t *png;
		size_t len;
		assert_int_equal(tmh_image_png(im, &png, &len, NULL), MH_OK);
		picture_ok(im, &pic);
		struct mh_diag d = {0};
		assert_int_equal(png_decode(png, len, &back, &d), MH_OK);
		assert_int_equal(back.ncolors, pic.ncolors);
		assert_memory_equal(back.pixels, pic.pixels,
				    (size_t)pic.width * pic.height * png_pixel_size(&pic));
		/* the extraction holds the same PNG */
		char png_path[4200], name[32];
		snprintf(png_path, sizeof png_path, "%.*s/", (int)(strlen(path) - 4), path);
		tmh_image_file_name(i, name, sizeof name);
		strcat(png_path, name);
		struct file_bytes x = {0};
		if (!read_whole_file(png_path, &x, why, sizeof why))
			fail_msg("%s", why);
		assert_int_equal(x.len, len);
		assert_memory_equal(x.p, png, len);
		free(x.p);
		assert_int_equal(tmh_image_replace_png(im, png, len, &d), MH_OK);
		free(png);
		png_free(&pic);
		png_free(&back);
		sample_images++;
	}
	uint8_t *out;
	size_t n;
	assert_int_equal(tmh_encode(&t, &out, &n, NULL), MH_OK);
	assert_int_equal(n, f.len); /* every image written back unchanged */
	assert_memory_equal(out, f.p, n);
	free(out);
	tmh_free(&t);
	free(f.p);
	sample_banks++;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type == FTW_F && n > 4 && !strcmp(path + n - 4, ".tmh"))
		check_sample_bank(path);
	return 0;
}

static void test_sample_banks(void **state)
{
	(void)state;
	const char *dir = getenv("MHFU_SAMPLE");
	if (!dir || !*dir)
		fail_msg("MHFU_SAMPLE is not set (`make units` sets it)");
	char src[4096];
	snprintf(src, sizeof src, "%s/src", dir);
	assert_int_equal(nftw(src, visit, 16, FTW_PHYS), 0);
	if (sample_banks < 10 || sample_images < 20)
		fail_msg("only %u banks, %u images in %s", sample_banks, sample_images, src);
}

/* ---- allocation failures ---------------------------------------------------- */

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct bank *b = malloc(sizeof *b);
	struct tmh t;
	edit_bank(b, &t);
	uint8_t *png;
	size_t png_len;
	struct png_image pic;
	picture_ok(&t.images[0], &pic);
	pic.pixels[0] = 3;
	memcpy(pic.palette[1], "\x01\x02\x03\xff", 4);
	assert_int_equal(png_encode(&pic, &png, &png_len, NULL), MH_OK);
	long live = faults_live;
	for (int what = 0; what < 4; what++)
		for (long k = 0;; k++) {
			struct tmh got = {0};
			struct png_image shown = {0};
			struct mh_diag d = {0};
			uint8_t *enc = NULL;
			size_t n;
			enum mh_err err;
			uint8_t before[1024];
			memcpy(before, t.images[0].pixels, 256);
			memcpy(before + 256, t.images[0].clut, 32);
			faults_arm(k);
			switch (what) {
			case 0: err = tmh_decode(b->p, b->len, &got, &d); break;
			case 1: err = tmh_encode(&t, &enc, &n, &d); break;
			case 2: err = tmh_image_picture(&t.images[0], &shown, &d); break;
			default: err = tmh_image_replace_png(&t.images[0], png, png_len, &d); break;
			}
			bool fired = faults_disarm();
			if (what == 3 && err) { /* refused: untouched */
				assert_memory_equal(before, t.images[0].pixels, 256);
				assert_memory_equal(before + 256, t.images[0].clut, 32);
			}
			tmh_free(&got);
			png_free(&shown);
			free(enc);
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				break;
			}
			assert_int_equal(err, MH_ENOMEM);
		}
	free(png);
	png_free(&pic);
	tmh_free(&t);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colors),
		cmocka_unit_test(test_swizzle),
		cmocka_unit_test(test_bank_layout),
		cmocka_unit_test(test_pictures),
		cmocka_unit_test(test_dxt),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_replace_unchanged),
		cmocka_unit_test(test_replace_indexed),
		cmocka_unit_test(test_replace_direct_and_refusals),
		cmocka_unit_test(test_sample_banks),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
