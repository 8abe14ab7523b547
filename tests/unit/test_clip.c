/* SPDX-License-Identifier: MIT */
/* Tests of codecs/clip (both binary encodings) and codecs/clip_text.
 *
 * Hand-built clips are checked field by field and byte for byte; every
 * malformed-input case expects its exact error code and byte offset or
 * line:col; randomized clips (tests/clipgen.h, fixed seeds) go through
 * encode -> decode -> encode and print -> parse -> encode. */
#include "clipgen.h"
#include "faults.h"
#include "testlib.h"

/* ---- fixtures ---------------------------------------------------------- */

/* MHFU: loop 0, loop_start 0; track 0 (mask 0x018) rot_x with two keys,
 * rot_y with one; track 1 empty.  The example of mhfu-clip(5), in bytes. */
static const uint8_t FU[] = {
	0x02, 0x00, 0x00, 0x80, 0x02, 0x00, 0x00, 0x00, 0x5c, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 0x14 track 0 */
	0x18, 0x00, 0x00, 0x80, 0x02, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00,
	/* 0x20 rot_x */
	0x08, 0x00, 0x12, 0x80, 0x02, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00,
	0x2e, 0xfb, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x00,
	0x2c, 0xfc, 0x27, 0x00, 0xfd, 0xff, 0x00, 0x00,
	/* 0x3c rot_y */
	0x10, 0x00, 0x12, 0x80, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 0x50 track 1: empty */
	0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00,
};

static const char FU_TEXT[] =
	"# file_06185 anim stream 2 slot 24 - part 1, joints 31..39\n"
	"# units: rot 4096 = 90 deg, loc 16 = 1.0, scl 256 = 1.0; ease in "
	"channel units per frame\n"
	"loop 0\n"
	"loop_start 0\n"
	"\n"
	"track 0                 # joint 31\n"
	"channel rot_x           # bit 0x008\n"
	"#  frame   value  ease_in  ease_out\n"
	"       0   -1234        0        12\n"
	"      39    -980       -3         0\n"
	"channel rot_y\n"
	"       0       0        0         0\n"
	"\n"
	"track 1                 # joint 32, no channels\n";

/* MHP3rd: loop 0, loop_start 1.5; track 0 loc_y (one key) then rot_z
 * (two); track 1 empty. */
static const uint8_t P3[] = {
	0x02, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xc0, 0x3f,
	/* 0x10 track 0 */
	0x02, 0x00, 0x2c, 0x00,
	/* 0x14 loc_y */
	0x80, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 0x24 rot_z */
	0x20, 0x00, 0x02, 0x00, 0x18, 0x00, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff,
	0x00, 0xf0, 0x1e, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 0x3c track 1: empty */
	0x00, 0x00, 0x04, 0x00,
};

/* ---- helpers ----------------------------------------------------------- */

static void encode_ok(enum clip_format f, const struct clip *c, uint8_t **out,
		      size_t *len)
{
	struct mh_diag d = {0};
	enum mh_err err = clip_encode(f, c, out, len, &d);
	if (err)
		fail_msg("encode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
	assert_int_equal(*len, clip_size(f, c));
}

static void parse_ok(const char *text, struct clip *c)
{
	struct mh_diag d = {0};
	enum mh_err err = clip_parse(text, strlen(text), c, &d);
	if (err)
		fail_msg("parse: %s at %u:%u: %s\n%s", mh_strerror(err), d.line,
			 d.col, d.msg, text);
}

/* Print -> parse gives an equal clip (and, when f is set, the same bytes). */
static void text_roundtrip(enum clip_format f, const struct clip *c,
			   const uint8_t *bytes, size_t len, int first_joint)
{
	size_t tlen;
	char *text = clip_print(c, "a header\n\nsecond line", first_joint, &tlen);
	assert_non_null(text);
	assert_int_equal(strlen(text), tlen);
	struct clip back;
	parse_ok(text, &back);
	if (!clip_equal(c, &back))
		fail_msg("print -> parse differs:\n%s", text);
	if (bytes) {
		uint8_t *out;
		size_t n;
		encode_ok(f, &back, &out, &n);
		assert_int_equal(n, len);
		assert_memory_equal(out, bytes, len);
		free(out);
	}
	clip_free(&back);
	free(text);
}

/* Decodes exactly `len` bytes, re-encodes them, round-trips the text. */
static void bytes_roundtrip(enum clip_format f, const uint8_t *bytes, size_t len)
{
	struct clip c;
	struct mh_diag d = {0};
	size_t used;
	enum mh_err err = clip_decode(f, bytes, len, &c, &used, &d);
	if (err)
		fail_msg("decode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
	assert_int_equal(used, len);
	uint8_t *out;
	size_t n;
	encode_ok(f, &c, &out, &n);
	assert_int_equal(n, len);
	assert_memory_equal(out, bytes, len);
	free(out);
	text_roundtrip(f, &c, bytes, len, -1);
	clip_free(&c);
}

static enum mh_err decode_copy(enum clip_format f, const uint8_t *src, size_t len,
			       size_t avail, void (*edit)(uint8_t *),
			       struct mh_diag *d)
{
	uint8_t *b = malloc(len);
	assert_non_null(b);
	memcpy(b, src, len);
	if (edit)
		edit(b);
	struct clip c;
	size_t used = 1;
	enum mh_err err = clip_decode(f, b, avail, &c, &used, d);
	if (err) {
		assert_int_equal(used, 0);
		assert_int_equal(c.ntracks, 0);
		assert_null(c.tracks);
	}
	clip_free(&c);
	free(b);
	return err;
}

/* ---- binary: hand-built clips ------------------------------------------ */

static void test_fu_decode_fields(void **state)
{
	(void)state;
	struct clip c;
	size_t used;
	struct mh_diag d = {0};
	assert_int_equal(clip_decode(CLIP_MHFU, FU, sizeof FU, &c, &used, &d), MH_OK);
	assert_int_equal(used, sizeof FU);
	assert_int_equal(c.loop, 0);
	assert_int_equal(c.ntracks, 2);
	assert_int_equal(c.tracks[0].mask, 0x18);
	assert_int_equal(c.tracks[0].nchannels, 2);
	assert_int_equal(c.tracks[0].channels[0].bit, CLIP_ROT_X);
	assert_int_equal(c.tracks[0].channels[0].nkeys, 2);
	const struct clip_key *k = &c.tracks[0].channels[0].keys[1];
	assert_int_equal(k->value, -980);
	assert_int_equal(k->frame, 39);
	assert_int_equal(k->ease_in, -3);
	assert_int_equal(k->ease_out, 0);
	assert_int_equal(c.tracks[0].channels[0].keys[0].ease_out, 12);
	assert_int_equal(c.tracks[0].channels[1].bit, CLIP_ROT_Y);
	assert_int_equal(c.tracks[1].mask, 0);
	assert_int_equal(c.tracks[1].nchannels, 0);
	clip_free(&c);
	bytes_roundtrip(CLIP_MHFU, FU, sizeof FU);
}

static void test_fu_decode_uses_only_its_size(void **state)
{
	(void)state;
	uint8_t buf[sizeof FU + 10];
	memcpy(buf, FU, sizeof FU);
	memset(buf + sizeof FU, 0xee, 10);
	struct clip c;
	size_t used;
	assert_int_equal(clip_decode(CLIP_MHFU, buf, sizeof buf, &c, &used, NULL),
			 MH_OK);
	assert_int_equal(used, sizeof FU);
	clip_free(&c);
}

static void test_p3_decode_fields(void **state)
{
	(void)state;
	struct clip c;
	size_t used;
	struct mh_diag d = {0};
	assert_int_equal(clip_decode(CLIP_P3RD, P3, sizeof P3, &c, &used, &d), MH_OK);
	assert_int_equal(used, sizeof P3);
	assert_true(c.loop_start == 1.5f);
	assert_int_equal(c.ntracks, 2);
	/* No mask on disk: the OR of the channels', in stored order. */
	assert_int_equal(c.tracks[0].mask, CLIP_LOC_Y | CLIP_ROT_Z);
	assert_int_equal(c.tracks[0].channels[0].bit, CLIP_LOC_Y);
	assert_int_equal(c.tracks[0].channels[1].bit, CLIP_ROT_Z);
	assert_int_equal(c.tracks[0].channels[1].keys[1].value, -4096);
	assert_int_equal(c.tracks[0].channels[1].keys[1].frame, 30);
	assert_int_equal(c.tracks[0].channels[1].keys[0].ease_out, -1);
	assert_int_equal(c.tracks[1].nchannels, 0);
	clip_free(&c);
	bytes_roundtrip(CLIP_P3RD, P3, sizeof P3);
}

static void test_empty_fu_track_and_clip(void **state)
{
	(void)state;
	struct clip c = {0};
	uint8_t *out;
	size_t n;
	encode_ok(CLIP_MHFU, &c, &out, &n);
	assert_int_equal(n, 0x14);
	free(out);
	assert_non_null(clip_add_track(&c, 0));
	encode_ok(CLIP_MHFU, &c, &out, &n);
	static const uint8_t EMPTY[] = {0x00, 0x00, 0x00, 0x80, 0, 0, 0, 0,
					0x0c, 0, 0, 0};
	assert_int_equal(n, 0x14 + 12);
	assert_memory_equal(out + 0x14, EMPTY, sizeof EMPTY);
	bytes_roundtrip(CLIP_MHFU, out, n);
	free(out);
	encode_ok(CLIP_P3RD, &c, &out, &n);
	assert_int_equal(n, 0x14);
	bytes_roundtrip(CLIP_P3RD, out, n);
	free(out);
	clip_free(&c);
}

static void test_fu_mask_disagreeing_is_kept_and_printed(void **state)
{
	(void)state;
	uint8_t b[sizeof FU];
	memcpy(b, FU, sizeof FU);
	b[0x14] = 0x38; /* mask rot_x|rot_y|rot_z over rot_x, rot_y */
	b[0x50] = 0x01; /* the empty track claims u1 */
	struct clip c;
	size_t used;
	assert_int_equal(clip_decode(CLIP_MHFU, b, sizeof b, &c, &used, NULL), MH_OK);
	assert_int_equal(c.tracks[0].mask, 0x38);
	assert_int_equal(c.tracks[1].mask, 0x01);
	char *text = clip_print(&c, NULL, -1, NULL);
	assert_non_null(strstr(text, "\ntrack 0 mask 0x038\n"));
	assert_non_null(strstr(text, "\ntrack 1 mask 0x001"));
	assert_null(strstr(FU_TEXT, "mask"));
	free(text);
	clip_free(&c);
	bytes_roundtrip(CLIP_MHFU, b, sizeof b);
}

static void test_channel_order_and_unknown_bits_kept(void **state)
{
	(void)state;
	struct clip c = {0};
	struct clip_track *t = clip_add_track(&c, 0);
	static const uint32_t BITS[] = {CLIP_LOC_Z, 0x1000, CLIP_U2, CLIP_ROT_X,
					CLIP_ROT_X, 0xffff, 0};
	for (size_t i = 0; i < sizeof BITS / sizeof *BITS; i++)
		clip_add_key(clip_add_channel(t, BITS[i]),
			     (struct clip_key){.frame = (int16_t)i, .value = 7});
	assert_int_equal(t->mask, 0xffff);
	char *text = clip_print(&c, NULL, -1, NULL);
	assert_non_null(strstr(text, "channel 0x1000\n"));
	assert_non_null(strstr(text, "channel 0xffff\n"));
	assert_non_null(strstr(text, "channel 0x000\n"));
	assert_non_null(strstr(text, "channel u2\n"));
	free(text);
	for (int f = CLIP_MHFU; f <= CLIP_P3RD; f++) {
		uint8_t *out;
		size_t n;
		encode_ok((enum clip_format)f, &c, &out, &n);
		bytes_roundtrip((enum clip_format)f, out, n);
		free(out);
	}
	text_roundtrip(CLIP_MHFU, &c, NULL, 0, 5);
	clip_free(&c);
}

/* ---- binary: malformed input ------------------------------------------- */

#define EDIT(name, body) static void name(uint8_t *b) { body; }
EDIT(fu_bad_tag, b[0] = 3)
EDIT(fu_small_size, b[8] = 0x10)
EDIT(fu_many_tracks, b[4] = 100)
EDIT(fu_three_tracks, b[4] = 3)
EDIT(fu_one_track, b[4] = 1)
EDIT(fu_track_tag, b[0x17] = 0)
EDIT(fu_track_size_odd, b[0x1c] = 0x3d)
EDIT(fu_track_size_big, b[0x1c] = 0xff)
EDIT(fu_track_channels, b[0x18] = 3)
EDIT(fu_channel_tag, b[0x22] = 0x13)
EDIT(fu_channel_size, b[0x28] = 0x1d)
EDIT(fu_channel_count, b[0x24] = 3)
EDIT(fu_channel_past_track, b[0x24] = 3; b[0x28] = 0x24; b[0x1c] = 0x2c)
EDIT(fu_empty_track_size, b[0x58] = 8)
EDIT(p3_small_size, b[4] = 8)
EDIT(p3_many_tracks, b[0] = 20)
EDIT(p3_track_size, b[0x12] = 0x2d)
EDIT(p3_track_channels, b[0x10] = 7)
EDIT(p3_channel_size, b[0x18] = 0x11)
EDIT(p3_channel_past_track, b[0x12] = 0x1c)
EDIT(p3_last_track_size, b[0x3e] = 8)

static void test_fu_decode_errors(void **state)
{
	(void)state;
	static const struct {
		void (*edit)(uint8_t *);
		size_t avail;
		enum mh_err code;
		uint64_t offset;
	} CASES[] = {
		{NULL, 19, MH_ETRUNC, 0},
		{NULL, 0, MH_ETRUNC, 0},
		{fu_bad_tag, sizeof FU, MH_EUNKNOWN, 0},
		{fu_small_size, sizeof FU, MH_ECORRUPT, 8},
		{NULL, sizeof FU - 1, MH_ETRUNC, 8},
		{fu_many_tracks, sizeof FU, MH_ECORRUPT, 4},
		{fu_three_tracks, sizeof FU, MH_ECORRUPT, 0x5c},
		{fu_one_track, sizeof FU, MH_ECORRUPT, 8},
		{fu_track_tag, sizeof FU, MH_ECORRUPT, 0x14},
		{fu_track_size_odd, sizeof FU, MH_ECORRUPT, 0x1c},
		{fu_track_size_big, sizeof FU, MH_ECORRUPT, 0x1c},
		{fu_track_channels, sizeof FU, MH_ECORRUPT, 0x50},
		{fu_channel_tag, sizeof FU, MH_ECORRUPT, 0x20},
		{fu_channel_size, sizeof FU, MH_ECORRUPT, 0x28},
		{fu_channel_count, sizeof FU, MH_ECORRUPT, 0x28},
		{fu_channel_past_track, sizeof FU, MH_ECORRUPT, 0x28},
		{fu_empty_track_size, sizeof FU, MH_ECORRUPT, 0x58},
	};
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		struct mh_diag d = {0};
		enum mh_err err = decode_copy(CLIP_MHFU, FU, sizeof FU,
					      CASES[i].avail, CASES[i].edit, &d);
		print_message("case %zu: %s\n", i, d.msg);
		assert_diag(&d, err, CASES[i].code, CASES[i].offset);
	}
}

static void test_p3_decode_errors(void **state)
{
	(void)state;
	static const struct {
		void (*edit)(uint8_t *);
		size_t avail;
		enum mh_err code;
		uint64_t offset;
	} CASES[] = {
		{NULL, 15, MH_ETRUNC, 0},
		{p3_small_size, sizeof P3, MH_ECORRUPT, 4},
		{NULL, sizeof P3 - 4, MH_ETRUNC, 4},
		{p3_many_tracks, sizeof P3, MH_ECORRUPT, 0},
		{p3_track_size, sizeof P3, MH_ECORRUPT, 0x12},
		{p3_track_channels, sizeof P3, MH_ECORRUPT, 0x10},
		{p3_channel_size, sizeof P3, MH_ECORRUPT, 0x18},
		{p3_channel_past_track, sizeof P3, MH_ECORRUPT, 0x28},
		{p3_last_track_size, sizeof P3, MH_ECORRUPT, 0x3e},
	};
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		struct mh_diag d = {0};
		enum mh_err err = decode_copy(CLIP_P3RD, P3, sizeof P3,
					      CASES[i].avail, CASES[i].edit, &d);
		print_message("case %zu: %s\n", i, d.msg);
		assert_diag(&d, err, CASES[i].code, CASES[i].offset);
	}
}

static void test_no_format_fails(void **state)
{
	(void)state;
	struct clip c;
	size_t used;
	struct mh_diag d = {0};
	assert_diag(&d, clip_decode(CLIP_NONE, FU, sizeof FU, &c, &used, &d),
		    MH_EUNKNOWN, 0);
	uint8_t *out;
	size_t n;
	assert_diag(&d, clip_encode(CLIP_NONE, &c, &out, &n, &d), MH_ERANGE, 0);
	assert_null(out);
}

/* Every prefix fails (truncated), and every one-byte change either fails
 * or re-encodes to exactly the bytes it decoded. */
static void check_mutations(enum clip_format f, const uint8_t *src, size_t len)
{
	for (size_t n = 0; n < len; n++) {
		struct mh_diag d = {0};
		assert_int_equal(decode_copy(f, src, len, n, NULL, &d), MH_ETRUNC);
	}
	static const uint8_t VALUES[] = {0, 1, 2, 4, 8, 0x0c, 0x10, 0x12, 0x7f,
					 0x80, 0xff};
	uint8_t *b = malloc(len);
	assert_non_null(b);
	for (size_t at = 0; at < len; at++)
		for (size_t v = 0; v < sizeof VALUES; v++) {
			memcpy(b, src, len);
			b[at] = VALUES[v];
			struct clip c;
			size_t used;
			if (clip_decode(f, b, len, &c, &used, NULL))
				continue;
			uint8_t *out;
			size_t n;
			encode_ok(f, &c, &out, &n);
			assert_int_equal(n, used);
			assert_memory_equal(out, b, n);
			free(out);
			clip_free(&c);
		}
	free(b);
}

static void test_truncations_and_mutations(void **state)
{
	(void)state;
	check_mutations(CLIP_MHFU, FU, sizeof FU);
	check_mutations(CLIP_P3RD, P3, sizeof P3);
}

/* ---- encode range checks ----------------------------------------------- */

static void test_encode_range_errors(void **state)
{
	(void)state;
	struct clip c = {0};
	struct mh_diag d = {0};
	uint8_t *out;
	size_t n;
	struct clip_track *t = clip_add_track(&c, 0x80000000u);
	assert_diag(&d, clip_encode(CLIP_MHFU, &c, &out, &n, &d), MH_ERANGE, 0x14);
	assert_null(out);
	assert_int_equal(n, 0);
	/* MHP3rd keeps no mask, so the same track is fine there. */
	encode_ok(CLIP_P3RD, &c, &out, &n);
	free(out);
	t->mask = 0;
	clip_add_channel(t, 0x10000);
	assert_diag(&d, clip_encode(CLIP_MHFU, &c, &out, &n, &d), MH_ERANGE, 0x20);
	assert_diag(&d, clip_encode(CLIP_P3RD, &c, &out, &n, &d), MH_ERANGE, 0x14);
	t->channels[0].bit = 8;
	t->mask = 8;
	for (int i = 0; i < 8200; i++) /* 8 + 8 * 8200 bytes: over u16 */
		clip_add_key(&t->channels[0], (struct clip_key){.frame = 1});
	encode_ok(CLIP_MHFU, &c, &out, &n);
	free(out);
	assert_diag(&d, clip_encode(CLIP_P3RD, &c, &out, &n, &d), MH_ERANGE, 0x10);
	uint8_t small[16];
	assert_diag(&d, clip_encode_to(CLIP_MHFU, &c, small, sizeof small, &n, &d),
		    MH_ERANGE, 0);
	assert_int_equal(n, 0);
	clip_free(&c);
}

/* ---- model ------------------------------------------------------------- */

static void test_builders_copy_equal_free(void **state)
{
	(void)state;
	struct rng r = {42};
	struct clip a, b;
	gen_clip(&r, GEN_WILD, 12, 6, &a);
	assert_int_equal(clip_copy(&b, &a, NULL), MH_OK);
	assert_true(clip_equal(&a, &b));
	if (b.ntracks && b.tracks[0].nchannels && b.tracks[0].channels[0].nkeys) {
		b.tracks[0].channels[0].keys[0].ease_out ^= 1;
		assert_false(clip_equal(&a, &b));
		b.tracks[0].channels[0].keys[0].ease_out ^= 1;
	}
	/* loop_start compares by bits: -0 is not 0, a NaN equals itself. */
	a.loop_start = 0.0f;
	b.loop_start = -0.0f;
	assert_false(clip_equal(&a, &b));
	uint32_t nan = 0x7fc00001;
	memcpy(&a.loop_start, &nan, 4);
	memcpy(&b.loop_start, &nan, 4);
	assert_true(clip_equal(&a, &b));
	clip_free(&a);
	clip_free(&b);
	clip_free(&b);
	clip_free(NULL);
	assert_string_equal(clip_format_name(CLIP_MHFU), "mhfu");
	assert_string_equal(clip_format_name(CLIP_P3RD), "p3rd");
	assert_string_equal(clip_format_name(CLIP_NONE), "none");
	assert_string_equal(clip_channel_name(CLIP_SCL_Z), "scl_z");
	assert_null(clip_channel_name(0x1000));
}

/* ---- text -------------------------------------------------------------- */

static void test_print_matches_design_example(void **state)
{
	(void)state;
	struct clip c;
	size_t used, len;
	assert_int_equal(clip_decode(CLIP_MHFU, FU, sizeof FU, &c, &used, NULL), MH_OK);
	char *text = clip_print(&c, "file_06185 anim stream 2 slot 24 - part 1, "
				"joints 31..39", 31, &len);
	assert_string_equal(text, FU_TEXT);
	assert_int_equal(len, strlen(FU_TEXT));
	free(text);
	text = clip_print(&c, NULL, -1, NULL);
	assert_non_null(strstr(text, "\ntrack 0\n"));
	assert_non_null(strstr(text, "\ntrack 1                 # no channels\n"));
	free(text);
	clip_free(&c);
}

static void test_parse_design_example(void **state)
{
	(void)state;
	struct clip c;
	parse_ok(FU_TEXT, &c);
	uint8_t *out;
	size_t n;
	encode_ok(CLIP_MHFU, &c, &out, &n);
	assert_int_equal(n, sizeof FU);
	assert_memory_equal(out, FU, sizeof FU);
	free(out);
	clip_free(&c);
}

static void test_parse_is_liberal_in_layout(void **state)
{
	(void)state;
	static const char TEXT[] =
		"\r\n  # any comment\n\ttrack   0 # loop and loop_start default to 0\n"
		"channel\trot_z\r\n0 90deg 0 0\n   10 -45.5deg 0x10 -0x10 # hex\n"
		"20 1deg 0 0\n30 0.5deg 0 0\n40 -0deg 0 0\n"
		"channel 0x40\n+5 -16 0 0\n"
		"track 1 mask 0x38\ntrack 2 mask 0\n";
	struct clip c;
	parse_ok(TEXT, &c);
	assert_int_equal(c.loop, 0);
	assert_int_equal(c.ntracks, 3);
	const struct clip_channel *ch = &c.tracks[0].channels[0];
	assert_int_equal(ch->bit, CLIP_ROT_Z);
	assert_int_equal(ch->nkeys, 5);
	assert_int_equal(ch->keys[0].value, 4096);
	assert_int_equal(ch->keys[1].value, -2071);
	assert_int_equal(ch->keys[1].ease_in, 16);
	assert_int_equal(ch->keys[1].ease_out, -16);
	assert_int_equal(ch->keys[2].value, 46);
	assert_int_equal(ch->keys[3].value, 23);
	assert_int_equal(ch->keys[4].value, 0);
	assert_int_equal(c.tracks[0].channels[1].bit, CLIP_LOC_X);
	assert_int_equal(c.tracks[0].channels[1].keys[0].frame, 5);
	assert_int_equal(c.tracks[0].mask, CLIP_ROT_Z | CLIP_LOC_X);
	assert_int_equal(c.tracks[1].mask, 0x38);
	assert_int_equal(c.tracks[2].mask, 0);
	text_roundtrip(CLIP_MHFU, &c, NULL, 0, 0);
	clip_free(&c);

	/* An empty text is an empty clip. */
	assert_int_equal(clip_parse("", 0, &c, NULL), MH_OK);
	assert_int_equal(c.ntracks, 0);
	assert_int_equal(clip_parse("# only a comment", 16, &c, NULL), MH_OK);
}

static void test_loop_start_bits_roundtrip(void **state)
{
	(void)state;
	static const uint32_t BITS[] = {0x00000000, 0x80000000, 0x3f800000,
					0x7f800000, 0xff800000, 0x7fc00000,
					0x7f800001, 0x00000001, 0x3dcccccd};
	for (size_t i = 0; i < sizeof BITS / sizeof *BITS; i++) {
		struct clip c = {.loop = 0xffffffffu};
		memcpy(&c.loop_start, &BITS[i], 4);
		text_roundtrip(CLIP_MHFU, &c, NULL, 0, -1);
		uint8_t *out;
		size_t n;
		encode_ok(CLIP_P3RD, &c, &out, &n);
		bytes_roundtrip(CLIP_P3RD, out, n);
		free(out);
	}
}

static void test_parse_errors(void **state)
{
	(void)state;
	char longword[128] = "track ";
	memset(longword + 6, 'x', 70);
	const struct {
		const char *text;
		size_t len; /* 0: strlen */
		enum mh_err code;
		unsigned line, col;
	} CASES[] = {
		{"loop 0\nloop_start 0\nchannel rot_x\n", 0, MH_ESYNTAX, 3, 1},
		{"track 0\n  0 0 0 0\n", 0, MH_ESYNTAX, 2, 3},
		{"track 1\n", 0, MH_ESYNTAX, 1, 7},
		{"track 0\ntrack 2\n", 0, MH_ESYNTAX, 2, 7},
		{"track 0\ntrack 0\n", 0, MH_ESYNTAX, 2, 7},
		{"track 0\nchannel rot_x\n0 32768 0 0\n", 0, MH_ERANGE, 3, 3},
		{"track 0\nchannel rot_x\n0 0 -32769 0\n", 0, MH_ERANGE, 3, 5},
		{"track 0\nchannel rot_x\n70000 0 0 0\n", 0, MH_ERANGE, 3, 1},
		{"track 0\nchannel rot_x\n0 1 2\n", 0, MH_ESYNTAX, 3, 6},
		{"track 0\nchannel rot_x\n0 1 2 3 4\n", 0, MH_ESYNTAX, 3, 9},
		{"track 0\nchannel rot_x\n0 1.5 0 0\n", 0, MH_ESYNTAX, 3, 3},
		{"track 0\nchannel loc_x\n0 90deg 0 0\n", 0, MH_ESYNTAX, 3, 3},
		{"track 0\nchannel u1\n0 90deg 0 0\n", 0, MH_ESYNTAX, 3, 3},
		{"track 0\nchannel rot_x\n0 720deg 0 0\n", 0, MH_ERANGE, 3, 3},
		{"track 0\nchannel rot_x\n0 -721deg 0 0\n", 0, MH_ERANGE, 3, 3},
		{"track 0\nchannel rot_x\n0 0x10deg 0 0\n", 0, MH_ESYNTAX, 3, 3},
		{"track 0\nchannel rot_x\n0 nandeg 0 0\n", 0, MH_ESYNTAX, 3, 3},
		{"track 0\nchannel rot_x\n0 1deg 1deg 0\n", 0, MH_ESYNTAX, 3, 8},
		{"track 0\nchannel bogus\n", 0, MH_ESYNTAX, 2, 9},
		{"track 0\nchannel 0x10000\n", 0, MH_ERANGE, 2, 9},
		{"track 0\nchannel\n", 0, MH_ESYNTAX, 2, 8},
		{"track 0\nloop 1\n", 0, MH_ESYNTAX, 2, 1},
		{"loop 1\nloop 2\n", 0, MH_ESYNTAX, 2, 1},
		{"loop_start 1\nloop_start 1\n", 0, MH_ESYNTAX, 2, 1},
		{"loop -1\n", 0, MH_ERANGE, 1, 6},
		{"loop 0 extra\n", 0, MH_ESYNTAX, 1, 8},
		{"loop_start abc\n", 0, MH_ESYNTAX, 1, 12},
		{"loop_start\n", 0, MH_ESYNTAX, 1, 11},
		{"track 0 mask 0x80000000\n", 0, MH_ERANGE, 1, 14},
		{"track 0 maks 3\n", 0, MH_ESYNTAX, 1, 9},
		{"track 0 mask\n", 0, MH_ESYNTAX, 1, 13},
		{"track\n", 0, MH_ESYNTAX, 1, 6},
		{"track -1\n", 0, MH_ERANGE, 1, 7},
		{"frobnicate\n", 0, MH_ESYNTAX, 1, 1},
		{"# fine\n\0\n", 9, MH_ESYNTAX, 2, 1},
		{"# a comment with a \0 in it\n", 27, MH_ESYNTAX, 1, 20},
		{"track 0\nchannel rot_x\n0 0 0 0\0", 31, MH_ESYNTAX, 3, 8},
		{longword, 0, MH_ESYNTAX, 1, 7},
	};
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		struct clip c;
		struct mh_diag d = {0};
		size_t len = CASES[i].len ? CASES[i].len : strlen(CASES[i].text);
		enum mh_err err = clip_parse(CASES[i].text, len, &c, &d);
		print_message("case %zu: %u:%u %s\n", i, d.line, d.col, d.msg);
		assert_text_diag(&d, err, CASES[i].code, CASES[i].line,
				 CASES[i].col);
		assert_int_equal(c.ntracks, 0);
		assert_null(c.tracks);
	}
}

/* ---- properties -------------------------------------------------------- */

/* What decoding f's bytes of c gives back: MHP3rd derives the masks. */
static void expected_after(enum clip_format f, struct clip *c)
{
	if (f != CLIP_P3RD)
		return;
	for (uint32_t i = 0; i < c->ntracks; i++) {
		c->tracks[i].mask = 0;
		for (uint32_t j = 0; j < c->tracks[i].nchannels; j++)
			c->tracks[i].mask |= c->tracks[i].channels[j].bit;
	}
}

static void test_random_clips_roundtrip(void **state)
{
	(void)state;
	struct rng r = {0xC11F};
	for (int iter = 0; iter < 4000; iter++) {
		enum clip_format f = iter % 2 ? CLIP_P3RD : CLIP_MHFU;
		enum gen_style style = iter % 3 == 0 ? GEN_WILD :
				       f == CLIP_MHFU ? GEN_NATIVE_FU : GEN_NATIVE_P3;
		struct clip c, back;
		gen_clip(&r, style, gen_below(&r, iter % 10 ? 8 : 50), 6, &c);
		uint8_t *out;
		size_t n, used;
		encode_ok(f, &c, &out, &n);
		struct mh_diag d = {0};
		enum mh_err err = clip_decode(f, out, n, &back, &used, &d);
		if (err)
			fail_msg("iter %d: %s at %llu: %s", iter, mh_strerror(err),
				 (unsigned long long)d.offset, d.msg);
		assert_int_equal(used, n);
		expected_after(f, &c);
		assert_true(clip_equal(&c, &back));
		text_roundtrip(f, &back, out, n, iter % 4 ? 3 : -1);
		free(out);
		clip_free(&c);
		clip_free(&back);
	}
}

/* ---- allocation failures ----------------------------------------------- */

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct rng r = {7};
	struct clip c;
	gen_clip(&r, GEN_NATIVE_FU, 6, 4, &c);
	uint8_t *bytes;
	size_t n;
	encode_ok(CLIP_MHFU, &c, &bytes, &n);
	char *text = clip_print(&c, "hdr", 0, NULL);
	long live = faults_live;
	for (int what = 0; what < 5; what++) {
		for (long k = 0;; k++) {
			struct clip out;
			struct mh_diag d = {0};
			enum mh_err err = MH_OK;
			char *t = NULL;
			uint8_t *enc = NULL;
			size_t len;
			faults_arm(k);
			switch (what) {
			case 0: err = clip_decode(CLIP_MHFU, bytes, n, &out, &len, &d); break;
			case 1: err = clip_parse(text, strlen(text), &out, &d); break;
			case 2: err = clip_copy(&out, &c, &d); break;
			case 3: t = clip_print(&c, "hdr", 0, NULL); err = t ? MH_OK : MH_ENOMEM; break;
			default: err = clip_encode(CLIP_P3RD, &c, &enc, &len, &d); break;
			}
			bool fired = faults_disarm();
			if (!fired) {
				assert_int_equal(err, MH_OK);
				if (what <= 2) {
					assert_true(clip_equal(&out, &c));
					clip_free(&out);
				}
				free(t);
				free(enc);
				assert_int_equal(faults_live, live);
				break;
			}
			assert_int_equal(err, MH_ENOMEM);
			if (what != 3)
				assert_int_equal(d.code, MH_ENOMEM);
			assert_int_equal(faults_live, live);
		}
	}
	free(text);
	free(bytes);
	clip_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fu_decode_fields),
		cmocka_unit_test(test_fu_decode_uses_only_its_size),
		cmocka_unit_test(test_p3_decode_fields),
		cmocka_unit_test(test_empty_fu_track_and_clip),
		cmocka_unit_test(test_fu_mask_disagreeing_is_kept_and_printed),
		cmocka_unit_test(test_channel_order_and_unknown_bits_kept),
		cmocka_unit_test(test_fu_decode_errors),
		cmocka_unit_test(test_p3_decode_errors),
		cmocka_unit_test(test_no_format_fails),
		cmocka_unit_test(test_truncations_and_mutations),
		cmocka_unit_test(test_encode_range_errors),
		cmocka_unit_test(test_builders_copy_equal_free),
		cmocka_unit_test(test_print_matches_design_example),
		cmocka_unit_test(test_parse_design_example),
		cmocka_unit_test(test_parse_is_liberal_in_layout),
		cmocka_unit_test(test_loop_start_bits_roundtrip),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_random_clips_roundtrip),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
