/* SPDX-License-Identifier: MIT */
/* Tests of codecs/png: round trips through the encoder; the decoder fed
 * PNGs built here, chunk by chunk, with the test's own scanline packing
 * and filters, in every colour type and bit depth; every malformed input
 * expects its exact error and byte offset; allocation failures end
 * cleanly.  Random tests seed their own generator. */
#include <zlib.h>

#include "faults.h"
#include "png.h"
#include "rng.h"
#include "testlib.h"

/* ---- building PNGs -------------------------------------------------------- */

struct pngw {
	uint8_t p[1 << 16];
	size_t len;
};

static void put_be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void w_signature(struct pngw *w)
{
	static const uint8_t SIG[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
	memcpy(w->p, SIG, 8);
	w->len = 8;
}

/* Appends a chunk with a right CRC; returns its offset. */
static size_t w_chunk(struct pngw *w, const char *type, const void *data, uint32_t n)
{
	size_t at = w->len;
	assert_true(at + 12 + n <= sizeof w->p);
	put_be(w->p + at, n);
	memcpy(w->p + at + 4, type, 4);
	if (n)
		memcpy(w->p + at + 8, data, n);
	put_be(w->p + at + 8 + n, (uint32_t)crc32(0, w->p + at + 4, n + 4));
	w->len += 12 + n;
	return at;
}

static size_t w_ihdr(struct pngw *w, uint32_t width, uint32_t height, uint8_t depth,
		     uint8_t type, uint8_t interlace)
{
	uint8_t h[13] = {0};
	put_be(h, width);
	put_be(h + 4, height);
	h[8] = depth;
	h[9] = type;
	h[12] = interlace;
	return w_chunk(w, "IHDR", h, 13);
}

/* zlib's stream of raw[0..n), into out; returns its length. */
static size_t deflated(const uint8_t *raw, size_t n, uint8_t *out, size_t cap)
{
	uLongf len = cap;
	assert_int_equal(compress2(out, &len, raw, n, 9), Z_OK);
	return len;
}

/* A valid 2x2 RGBA PNG in w; returns the IDAT chunk's offset. */
static size_t w_small(struct pngw *w)
{
	uint8_t raw[2 * 9] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 9, 9, 9, 9, 9, 9, 9, 9};
	uint8_t z[64];
	w_signature(w);
	w_ihdr(w, 2, 2, 8, 6, 0);
	size_t at = w_chunk(w, "IDAT", z, (uint32_t)deflated(raw, sizeof raw, z, sizeof z));
	w_chunk(w, "IEND", NULL, 0);
	return at;
}

/* The test's own filter: byte i of a row less its predictor. */
static uint8_t my_paeth(uint8_t a, uint8_t b, uint8_t c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static void my_filter(unsigned type, const uint8_t *row, const uint8_t *up, size_t n,
		      size_t bpp, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t a = i >= bpp ? row[i - bpp] : 0, b = up ? up[i] : 0,
			c = up && i >= bpp ? up[i - bpp] : 0, pred = 0;
		switch (type) {
		case 1: pred = a; break;
		case 2: pred = b; break;
		case 3: pred = (uint8_t)((a + b) >> 1); break;
		case 4: pred = my_paeth(a, b, c); break;
		}
		out[i] = (uint8_t)(row[i] - pred);
	}
}

/* ---- helpers -------------------------------------------------------------- */

static void decode_ok(const uint8_t *buf, size_t len, struct png_image *img)
{
	struct mh_diag d = {0};
	enum mh_err err = png_decode(buf, len, img, &d);
	if (err)
		fail_msg("png_decode: %s at byte %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

static void decode_fails(const uint8_t *buf, size_t len, enum mh_err code, uint64_t at,
			 const char *words)
{
	struct png_image img;
	struct mh_diag d = {0};
	enum mh_err err = png_decode(buf, len, &img, &d);
	assert_diag(&d, err, code, at);
	assert_diag_says(&d, words);
	assert_null(img.pixels);
}

static void encode_ok(const struct png_image *img, uint8_t **out, size_t *len)
{
	struct mh_diag d = {0};
	enum mh_err err = png_encode(img, out, len, &d);
	if (err)
		fail_msg("png_encode: %s: %s", mh_strerror(err), d.msg);
}

static void random_image(struct rng *r, struct png_image *img, uint32_t w, uint32_t h,
			 uint32_t ncolors)
{
	struct mh_diag d = {0};
	assert_int_equal(png_image_init(img, w, h, ncolors, &d), MH_OK);
	for (uint32_t i = 0; i < ncolors; i++) {
		rng_bytes(r, img->palette[i], 4);
		if (rng_below(r, 2))
			img->palette[i][3] = 255;
	}
	size_t n = (size_t)w * h;
	if (ncolors)
		for (size_t i = 0; i < n; i++)
			img->pixels[i] = (uint8_t)rng_below(r, ncolors);
	else
		for (size_t i = 0; i < n; i++) /* runs of one colour, and noise */
			if (i && rng_below(r, 3))
				memcpy(img->pixels + 4 * i, img->pixels + 4 * (i - 1), 4);
			else
				rng_bytes(r, img->pixels + 4 * i, 4);
}

/* ---- round trips ---------------------------------------------------------- */

static void test_roundtrip(void **state)
{
	(void)state;
	struct rng r = {11};
	static const uint32_t COLORS[] = {0, 1, 2, 15, 16, 17, 200, 256};
	for (int round = 0; round < 200; round++) {
		struct png_image img, back;
		uint32_t nc = COLORS[round % 8];
		random_image(&r, &img, rng_range(&r, 1, 70), rng_range(&r, 1, 40), nc);
		uint8_t *buf, *again;
		size_t len, again_len;
		encode_ok(&img, &buf, &len);
		decode_ok(buf, len, &back);
		assert_int_equal(back.width, img.width);
		assert_int_equal(back.height, img.height);
		assert_int_equal(back.ncolors, img.ncolors);
		assert_memory_equal(back.pixels, img.pixels,
				    (size_t)img.width * img.height * png_pixel_size(&img));
		if (nc)
			assert_memory_equal(back.palette, img.palette, 4 * (size_t)nc);
		encode_ok(&back, &again, &again_len); /* the same image, the same bytes */
		assert_int_equal(again_len, len);
		assert_memory_equal(again, buf, len);
		/* what is written: IHDR's depth and type */
		assert_int_equal(buf[24], nc == 0 || nc > 16 ? 8 : 4);
		assert_int_equal(buf[25], nc ? 3 : 6);
		free(buf);
		free(again);
		png_free(&img);
		png_free(&back);
	}
}

/* Only palette entries with alpha get a tRNS entry, up to the last one. */
static void test_encode_trns(void **state)
{
	(void)state;
	struct png_image img;
	struct mh_diag d = {0};
	assert_int_equal(png_image_init(&img, 3, 1, 4, &d), MH_OK);
	for (int i = 0; i < 4; i++)
		memcpy(img.palette[i], (uint8_t[]){10, 20, 30, 255}, 4);
	uint8_t *buf;
	size_t len;
	encode_ok(&img, &buf, &len);
	assert_null(memmem(buf, len, "tRNS", 4));
	free(buf);
	img.palette[1][3] = 7;
	encode_ok(&img, &buf, &len);
	const uint8_t *t = memmem(buf, len, "tRNS", 4);
	assert_non_null(t);
	assert_memory_equal(t - 4, "\0\0\0\x02", 4); /* two alphas */
	assert_int_equal(t[4], 255);
	assert_int_equal(t[5], 7);
	free(buf);
	png_free(&img);
}

static void test_encode_refusals(void **state)
{
	(void)state;
	struct png_image img = {0};
	struct mh_diag d = {0};
	uint8_t *buf = (uint8_t *)1;
	size_t len = 1;
	assert_diag(&d, png_image_init(&img, 0, 5, 0, &d), MH_ERANGE, 0);
	assert_diag(&d, png_image_init(&img, PNG_MAX_SIDE + 1, 1, 0, &d), MH_ERANGE, 0);
	assert_diag(&d, png_image_init(&img, 4096, 2048, 0, &d), MH_ERANGE, 0);
	assert_diag(&d, png_image_init(&img, 1, 1, 257, &d), MH_ERANGE, 0);
	assert_int_equal(png_image_init(&img, 2, 2, 3, &d), MH_OK);
	img.pixels[3] = 3;
	assert_diag(&d, png_encode(&img, &buf, &len, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "pixel (1, 1) is colour 3");
	assert_null(buf);
	img.pixels[3] = 2;
	img.ncolors = 300;
	assert_diag(&d, png_encode(&img, &buf, &len, &d), MH_ERANGE, 0);
	img.ncolors = 3;
	img.width = 0;
	assert_diag(&d, png_encode(&img, &buf, &len, &d), MH_ERANGE, 0);
	png_free(&img);
	png_free(NULL);
}

/* ---- the decoder over every type, depth and filter --------------------- */

struct format {
	uint8_t type, depth;
};

static const struct format FORMATS[] = {
	{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {2, 8}, {2, 16}, {3, 1}, {3, 2},
	{3, 4}, {3, 8}, {4, 8}, {4, 16}, {6, 8}, {6, 16},
};

static unsigned channels(uint8_t type)
{
	return type == 2 ? 3 : type == 4 ? 2 : type == 6 ? 4 : 1;
}

/* The samples of an image as the PNG stores them, packed into its rows. */
static void pack_sample(uint8_t *row, size_t k, unsigned depth, uint16_t v)
{
	if (depth == 16) {
		row[2 * k] = (uint8_t)(v >> 8);
		row[2 * k + 1] = (uint8_t)v;
	} else if (depth == 8) {
		row[k] = (uint8_t)v;
	} else {
		size_t bit = k * depth;
		row[bit / 8] |= (uint8_t)(v << (8 - depth - bit % 8));
	}
}

static uint8_t eight(unsigned depth, uint16_t v)
{
	return depth == 16 ? (uint8_t)(v >> 8) : (uint8_t)(v * 255 / ((1 << depth) - 1));
}

/* One image of format f, w x h, random samples (gray/RGB with a tRNS
 * key sometimes), filters cycling by row, its data split over IDATs at
 * random and ancillary chunks around them: decoded as expected. */
static void check_format(struct rng *r, struct format f, uint32_t w, uint32_t h)
{
	unsigned ch = channels(f.type), bits = ch * f.depth;
	size_t rowbytes = ((size_t)w * bits + 7) / 8, bpp = bits < 8 ? 1 : bits / 8;
	uint32_t nplte = f.type == 3 ? rng_range(r, 1, 1u << f.depth) : 0;
	uint16_t max = (uint16_t)((1u << f.depth) - 1);
	uint16_t *samples = calloc((size_t)w * h * ch, sizeof *samples);
	uint8_t *rows = calloc(h, rowbytes), *raw = calloc(h, rowbytes + 1);
	uint8_t plte[768], trns[256], z[1 << 15];
	assert_true(samples && rows && raw);
	for (size_t i = 0; i < (size_t)w * h * ch; i++)
		samples[i] = (uint16_t)(f.type == 3 ? rng_below(r, nplte) : rng_below(r, max + 1u));
	/* a transparent key, used by some pixels */
	bool key = (f.type == 0 || f.type == 2) && rng_below(r, 2);
	uint16_t keyv[3] = {samples[0], ch > 1 ? samples[1] : 0, ch > 2 ? samples[2] : 0};
	for (uint32_t y = 0; y < h; y++)
		for (size_t k = 0; k < (size_t)w * ch; k++)
			pack_sample(rows + y * rowbytes, k, f.depth, samples[y * (size_t)w * ch + k]);
	for (uint32_t y = 0; y < h; y++) {
		unsigned type = (y + w) % 5;
		raw[y * (rowbytes + 1)] = (uint8_t)type;
		my_filter(type, rows + y * rowbytes, y ? rows + (y - 1) * rowbytes : NULL, rowbytes,
			  bpp, raw + y * (rowbytes + 1) + 1);
	}
	size_t zlen = deflated(raw, h * (rowbytes + 1), z, sizeof z);

	struct pngw *wr = calloc(1, sizeof *wr);
	assert_non_null(wr);
	w_signature(wr);
	w_ihdr(wr, w, h, f.depth, f.type, 0);
	w_chunk(wr, "gAMA", "\0\0\xb1\x8f", 4);
	rng_bytes(r, plte, sizeof plte);
	rng_bytes(r, trns, sizeof trns);
	uint32_t ntrns = nplte ? (uint32_t)rng_below(r, nplte + 1) : 0;
	if (nplte)
		w_chunk(wr, "PLTE", plte, 3 * nplte);
	if (ntrns)
		w_chunk(wr, "tRNS", trns, ntrns);
	if (key) {
		uint8_t k[6];
		for (unsigned c = 0; c < 3; c++) {
			k[2 * c] = (uint8_t)(keyv[c] >> 8);
			k[2 * c + 1] = (uint8_t)keyv[c];
		}
		w_chunk(wr, "tRNS", k, f.type == 0 ? 2 : 6);
	}
	w_chunk(wr, "tEXt", "Comment\0made here", 17);
	for (size_t at = 0; at < zlen;) { /* IDATs of 0 to 40 bytes */
		size_t n = rng_below(r, 41);
		n = n > zlen - at ? zlen - at : n;
		w_chunk(wr, "IDAT", z + at, (uint32_t)n);
		at += n;
	}
	w_chunk(wr, "zzZz", "after", 5); /* an unknown ancillary chunk */
	w_chunk(wr, "IEND", NULL, 0);

	struct png_image img;
	decode_ok(wr->p, wr->len, &img);
	assert_int_equal(img.width, w);
	assert_int_equal(img.height, h);
	assert_int_equal(img.ncolors, nplte);
	for (uint32_t i = 0; i < nplte; i++) {
		uint8_t want[4] = {plte[3 * i], plte[3 * i + 1], plte[3 * i + 2],
				   i < ntrns ? trns[i] : 255};
		assert_memory_equal(img.palette[i], want, 4);
	}
	for (size_t i = 0; i < (size_t)w * h; i++) {
		const uint16_t *s = samples + i * ch;
		if (nplte) {
			assert_int_equal(img.pixels[i], s[0]);
			continue;
		}
		bool gray = f.type == 0 || f.type == 4;
		uint8_t want[4] = {eight(f.depth, s[0]), eight(f.depth, s[gray ? 0 : 1]),
				   eight(f.depth, s[gray ? 0 : 2]), 255};
		if (f.type == 4 || f.type == 6)
			want[3] = eight(f.depth, s[ch - 1]);
		else if (key && s[0] == keyv[0] && (gray || (s[1] == keyv[1] && s[2] == keyv[2])))
			want[3] = 0;
		if (memcmp(img.pixels + 4 * i, want, 4))
			fail_msg("type %u depth %u %ux%u: pixel %zu is %02x%02x%02x%02x, want "
				 "%02x%02x%02x%02x", f.type, f.depth, w, h, i, img.pixels[4 * i],
				 img.pixels[4 * i + 1], img.pixels[4 * i + 2], img.pixels[4 * i + 3],
				 want[0], want[1], want[2], want[3]);
	}
	png_free(&img);
	free(wr);
	free(samples);
	free(rows);
	free(raw);
}

static void test_every_format(void **state)
{
	(void)state;
	struct rng r = {12};
	for (size_t f = 0; f < sizeof FORMATS / sizeof *FORMATS; f++)
		for (int round = 0; round < 12; round++)
			check_format(&r, FORMATS[f], rng_range(&r, 1, 37), rng_range(&r, 1, 11));
}

/* ---- malformed PNGs ----------------------------------------------------- */

static void test_signature_and_frame(void **state)
{
	(void)state;
	struct pngw w;
	size_t idat = w_small(&w);
	decode_fails(w.p, 0, MH_ETRUNC, 0, "signature");
	decode_fails(w.p, 5, MH_ETRUNC, 0, "signature");
	decode_fails((const uint8_t *)"GIF89a..........", 16, MH_EUNKNOWN, 0, "not a PNG");
	decode_fails(w.p, 8, MH_ETRUNC, 8, "without an IEND");
	decode_fails(w.p, 12, MH_ETRUNC, 8, "inside a chunk's header");
	decode_fails(w.p, 20, MH_ETRUNC, 8, "the IHDR chunk holds 13 bytes");
	decode_fails(w.p, idat + 10, MH_ETRUNC, idat, "IDAT");
	decode_fails(w.p, w.len - 12, MH_ETRUNC, w.len - 12, "without an IEND");
	decode_fails(w.p, w.len - 1, MH_ETRUNC, w.len - 12, "IEND");
	/* every shorter prefix fails, never reads past its end */
	for (size_t n = 0; n < w.len; n++) {
		struct png_image img;
		assert_int_not_equal(png_decode(w.p, n, &img, NULL), MH_OK);
	}

	struct pngw c = w; /* a CRC off by one bit */
	c.p[idat + 9] ^= 1;
	uint32_t n = load_le32((const uint8_t[]){w.p[idat + 3], w.p[idat + 2], w.p[idat + 1],
						 w.p[idat]});
	decode_fails(c.p, c.len, MH_ECORRUPT, idat + 8 + n, "the IDAT chunk's CRC");
	c = w;
	c.p[33 + 4] = '1'; /* a type byte that is no letter */
	decode_fails(c.p, c.len, MH_ECORRUPT, 37, "not four letters");
	c = w;
	put_be(c.p + 33, 0x80000000u);
	decode_fails(c.p, c.len, MH_ECORRUPT, 33, "above 2^31-1");
	c = w; /* bytes after IEND */
	c.p[c.len++] = 0;
	decode_fails(c.p, c.len, MH_ECORRUPT, c.len - 1, "1 bytes after the IEND");
}

/* A chunk sequence: IHDR as given, then the chunks named. */
static void test_ihdr(void **state)
{
	(void)state;
	struct {
		uint32_t w, h;
		uint8_t depth, type, interlace;
		enum mh_err code;
		uint64_t at;
		const char *words;
	} CASES[] = {
		{0, 1, 8, 6, 0, MH_ECORRUPT, 16, "width 0"},
		{1, 0, 8, 6, 0, MH_ECORRUPT, 20, "height 0"},
		{0x80000000u, 1, 8, 6, 0, MH_ECORRUPT, 16, "width"},
		{1, 1, 8, 5, 0, MH_ECORRUPT, 25, "colour type 5"},
		{1, 1, 8, 7, 0, MH_ECORRUPT, 25, "colour type 7"},
		{1, 1, 4, 6, 0, MH_ECORRUPT, 24, "bit depth 4"},
		{1, 1, 16, 3, 0, MH_ECORRUPT, 24, "bit depth 16"},
		{1, 1, 3, 0, 0, MH_ECORRUPT, 24, "bit depth 3"},
		{1, 1, 8, 6, 1, MH_ERANGE, 28, "interlaced"},
		{1, 1, 8, 6, 2, MH_ECORRUPT, 28, "interlace method 2"},
		{PNG_MAX_SIDE + 1, 1, 8, 6, 0, MH_ERANGE, 16, "16385x1"},
		{4096, 2048, 8, 6, 0, MH_ERANGE, 16, "4096x2048"},
	};
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		struct pngw w;
		w_signature(&w);
		w_ihdr(&w, CASES[i].w, CASES[i].h, CASES[i].depth, CASES[i].type,
		       CASES[i].interlace);
		w_chunk(&w, "IEND", NULL, 0);
		decode_fails(w.p, w.len, CASES[i].code, CASES[i].at, CASES[i].words);
	}
	struct pngw w;
	uint8_t h[13] = {0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 1, 0, 0};
	w_signature(&w);
	w_chunk(&w, "IHDR", h, 13);
	decode_fails(w.p, w.len, MH_ECORRUPT, 26, "compression method 1");
	h[10] = 0;
	h[11] = 1;
	w_signature(&w);
	w_chunk(&w, "IHDR", h, 13);
	decode_fails(w.p, w.len, MH_ECORRUPT, 27, "filter method 1");
	w_signature(&w);
	w_chunk(&w, "IHDR", h, 12);
	decode_fails(w.p, w.len, MH_ECORRUPT, 8, "IHDR holds 12 bytes");
	w_signature(&w);
	w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, 12, "the first chunk is IEND");
	w_signature(&w);
	w_ihdr(&w, 1, 1, 8, 6, 0);
	size_t at = w_ihdr(&w, 1, 1, 8, 6, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "a second IHDR");
}

/* Chunk-order and ancillary-chunk errors, in a 1x1 image of type `type`
 * (palette: depth 8, PLTE of 2 colours). */
static void test_chunk_order(void **state)
{
	(void)state;
	uint8_t z[64], raw[5] = {0, 1, 1, 1, 1};
	size_t zlen = deflated(raw, 2, z, sizeof z);
	uint8_t zrgb[64];
	size_t zrgb_len = deflated(raw, 4, zrgb, sizeof zrgb);
	struct pngw w;
	size_t at;
#define START(type)                                   \
	do {                                          \
		w_signature(&w);                      \
		w_ihdr(&w, 1, 1, 8, type, 0);         \
	} while (0)
	START(0);
	at = w_chunk(&w, "PLTE", "abc", 3);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "PLTE chunk in a grayscale");
	START(3);
	w_chunk(&w, "PLTE", "abcdef", 6);
	at = w_chunk(&w, "PLTE", "abc", 3);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "a second PLTE");
	START(3);
	at = w_chunk(&w, "PLTE", "abcd", 4);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "PLTE holds 4 bytes");
	START(3);
	at = w_chunk(&w, "PLTE", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "PLTE holds 0 bytes");
	w_signature(&w);
	w_ihdr(&w, 1, 1, 1, 3, 0);
	at = w_chunk(&w, "PLTE", "abcdefghi", 9);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "more than a 1-bit index");
	START(2); /* a suggested palette, after tRNS */
	w_chunk(&w, "tRNS", "abcdef", 6);
	at = w_chunk(&w, "PLTE", "abc", 3);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "PLTE after tRNS");
	START(2);
	w_chunk(&w, "IDAT", zrgb, (uint32_t)zrgb_len);
	at = w_chunk(&w, "PLTE", "abc", 3);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "PLTE after the image data");
	START(3);
	at = w_chunk(&w, "tRNS", "a", 1);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "tRNS before PLTE");
	START(3);
	w_chunk(&w, "PLTE", "abcdef", 6);
	at = w_chunk(&w, "tRNS", "abc", 3);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "3 alphas for 2 colours");
	START(3);
	w_chunk(&w, "PLTE", "abcdef", 6);
	w_chunk(&w, "tRNS", "a", 1);
	at = w_chunk(&w, "tRNS", "a", 1);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "a second tRNS");
	START(0);
	w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	at = w_chunk(&w, "tRNS", "ab", 2);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "tRNS after the image data");
	START(6);
	at = w_chunk(&w, "tRNS", "ab", 2);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "alpha channel");
	START(0);
	at = w_chunk(&w, "tRNS", "abc", 3);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "tRNS holds 3 bytes, not 2");
	START(2);
	at = w_chunk(&w, "tRNS", "ab", 2);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "not 6");
	START(3);
	at = w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "IDAT before PLTE");
	START(0);
	w_chunk(&w, "IDAT", z, 2);
	w_chunk(&w, "tEXt", "a\0b", 3);
	at = w_chunk(&w, "IDAT", z + 2, (uint32_t)zlen - 2);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "not consecutive");
	START(0);
	at = w_chunk(&w, "ABCD", "x", 1);
	decode_fails(w.p, w.len, MH_ECORRUPT, at + 4, "unknown critical chunk ABCD");
	START(0);
	at = w_chunk(&w, "IEND", "x", 1);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "IEND holds 1 bytes");
	START(0);
	at = w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "no IDAT");
	/* the same, complete, decodes: the cases above fail for their reason */
	START(3);
	w_chunk(&w, "PLTE", "abcdef", 6);
	w_chunk(&w, "tRNS", "a", 1);
	w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	w_chunk(&w, "IEND", NULL, 0);
	struct png_image img;
	decode_ok(w.p, w.len, &img);
	assert_int_equal(img.pixels[0], 1);
	assert_memory_equal(img.palette[1], "def\xff", 4);
	assert_memory_equal(img.palette[0], "abca", 4);
	png_free(&img);
#undef START
}

/* The image data: zlib stream and scanlines. */
static void test_image_data(void **state)
{
	(void)state;
	/* 3x2 gray 8-bit: rows of 4 bytes */
	uint8_t raw[8] = {0, 1, 2, 3, 1, 4, 5, 6}, z[128];
	struct pngw w;
	size_t at;
#define GRAY()                                        \
	do {                                          \
		w_signature(&w);                      \
		w_ihdr(&w, 3, 2, 8, 0, 0);            \
	} while (0)
	size_t zlen = deflated(raw, sizeof raw, z, sizeof z);
	GRAY();
	at = w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	w_chunk(&w, "IEND", NULL, 0);
	struct png_image img;
	decode_ok(w.p, w.len, &img);
	assert_memory_equal(img.pixels + 12, "\x04\x04\x04\xff", 4); /* (0,1): 1 + 3 */
	png_free(&img);

	/* a filter type past 4: blamed on the IDAT holding the row */
	raw[4] = 5;
	zlen = deflated(raw, sizeof raw, z, sizeof z);
	GRAY();
	at = w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "row 1 has filter type 5");
	raw[4] = 1;

	/* a stream of one row: complete, but short */
	zlen = deflated(raw, 4, z, sizeof z);
	GRAY();
	at = w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at + 12 + zlen, "after 1 of 2 rows");

	/* a stream of three rows: too much */
	uint8_t more[12] = {0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9};
	zlen = deflated(more, sizeof more, z, sizeof z);
	GRAY();
	at = w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	w_chunk(&w, "IEND", NULL, 0);
	struct mh_diag d = {0};
	assert_int_equal(png_decode(w.p, w.len, &img, &d), MH_ECORRUPT);
	assert_diag_says(&d, "inflates to more than the 2 rows of 4 bytes");
	assert_true(d.offset > at + 8 && d.offset <= at + 8 + zlen);

	/* bytes after the stream's end, in its IDAT */
	zlen = deflated(raw, sizeof raw, z, sizeof z);
	z[zlen] = 0x55;
	GRAY();
	at = w_chunk(&w, "IDAT", z, (uint32_t)zlen + 1);
	w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at + 8 + zlen, "1 bytes after the end");
	/* ... and in an IDAT of its own after it */
	GRAY();
	w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	at = w_chunk(&w, "IDAT", z + zlen, 1);
	w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at + 8, "1 bytes after the end");

	/* a stream cut short: every row, no end */
	GRAY();
	w_chunk(&w, "IDAT", z, (uint32_t)zlen - 4); /* no Adler-32 */
	at = w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ETRUNC, at, "does not end");
	/* cut shorter: rows missing too */
	GRAY();
	w_chunk(&w, "IDAT", z, 2);
	at = w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ETRUNC, at, "after 0 of 2 rows");

	/* not a zlib stream at all */
	GRAY();
	at = w_chunk(&w, "IDAT", "\x78\x9c\xff\xff\xff\xff", 6);
	w_chunk(&w, "IEND", NULL, 0);
	assert_int_equal(png_decode(w.p, w.len, &img, &d), MH_ECORRUPT);
	assert_diag_says(&d, "not a valid zlib stream");
	assert_true(d.offset >= at + 8 && d.offset <= at + 8 + 6);
	GRAY();
	at = w_chunk(&w, "IDAT", "\x12\x34", 2);
	w_chunk(&w, "IEND", NULL, 0);
	assert_int_equal(png_decode(w.p, w.len, &img, &d), MH_ECORRUPT);
	assert_diag_says(&d, "header check");
	assert_true(d.offset >= at + 8 && d.offset <= at + 10);

	/* a palette index past the PLTE */
	uint8_t idx[2] = {0, 2};
	zlen = deflated(idx, 2, z, sizeof z);
	w_signature(&w);
	w_ihdr(&w, 1, 1, 8, 3, 0);
	w_chunk(&w, "PLTE", "abcdef", 6);
	at = w_chunk(&w, "IDAT", z, (uint32_t)zlen);
	w_chunk(&w, "IEND", NULL, 0);
	decode_fails(w.p, w.len, MH_ECORRUPT, at, "pixel (0, 0) is colour 2; the PLTE holds 2");
#undef GRAY
}

/* Any byte changed: the decoder fails or decodes, never misbehaves. */
static void test_every_byte_flipped(void **state)
{
	(void)state;
	struct rng r = {13};
	struct png_image img;
	random_image(&r, &img, 9, 5, 5);
	uint8_t *buf;
	size_t len;
	encode_ok(&img, &buf, &len);
	png_free(&img);
	/* Every byte is the signature's or in a chunk its CRC covers (the
	 * length and the CRC themselves included): a flip anywhere is
	 * refused, naming where. */
	size_t refused = 0;
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit += 3) {
			buf[i] ^= (uint8_t)(1 << bit);
			struct png_image out;
			struct mh_diag d = {0};
			enum mh_err err = png_decode(buf, len, &out, &d);
			if (err == MH_OK)
				fail_msg("bit %d of byte %zu flipped: decoded", bit, i);
			assert_int_equal(d.code, err);
			assert_true(d.msg[0] != '\0');
			refused++;
			buf[i] ^= (uint8_t)(1 << bit);
		}
	assert_int_equal(refused, 3 * len);
	free(buf);
}

/* ---- allocation failures ---------------------------------------------------- */

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct rng r = {14};
	struct png_image img;
	random_image(&r, &img, 40, 30, 0);
	uint8_t *buf;
	size_t len;
	encode_ok(&img, &buf, &len);
	long live = faults_live;
	for (int what = 0; what < 3; what++)
		for (long k = 0;; k++) {
			struct png_image out = {0}, made = {0};
			struct mh_diag d = {0};
			uint8_t *enc = NULL;
			size_t n;
			enum mh_err err;
			faults_arm(k);
			switch (what) {
			case 0: err = png_decode(buf, len, &out, &d); break;
			case 1: err = png_encode(&img, &enc, &n, &d); break;
			default: err = png_image_init(&made, 3, 3, 0, &d); break;
			}
			bool fired = faults_disarm();
			png_free(&out);
			png_free(&made);
			free(enc);
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				break;
			}
			assert_diag(&d, err, MH_ENOMEM, d.offset);
		}
	free(buf);
	png_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_encode_trns),
		cmocka_unit_test(test_encode_refusals),
		cmocka_unit_test(test_every_format),
		cmocka_unit_test(test_signature_and_frame),
		cmocka_unit_test(test_ihdr),
		cmocka_unit_test(test_chunk_order),
		cmocka_unit_test(test_image_data),
		cmocka_unit_test(test_every_byte_flipped),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
