/* SPDX-License-Identifier: MIT */
/* Tests of codecs/anim (animation packs) and codecs/anim_text (pack.txt).
 *
 * A hand-built pack is checked field by field and byte for byte, and each
 * malformed variant expects its exact error code and byte offset.  Game-
 * shaped packs (a Tigrex-like MHFU pack, a Brute-like MHP3rd one) and
 * thousands of random packs (tests/clipgen.h, fixed seeds) go through
 * encode -> decode -> encode and through the text path the filesystem
 * uses: pack.txt plus one clip text per clip, parsed back and encoded. */
#include "clipgen.h"
#include "faults.h"
#include "testlib.h"

/* Two streams: stream 0 has 3 slots (0 and 2 share clip A, 1 empty),
 * stream 1 one slot (clip B); then a 4-byte tail. */
static const uint8_t PACK[] = {
	0x03, 0, 0, 0, 0x18, 0, 0, 0, 0x01, 0, 0, 0, 0x24, 0, 0, 0,
	0x00, 0, 0, 0, 0x28, 0, 0, 0,
	/* 0x18 stream 0's table, 0x24 stream 1's */
	0x28, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x28, 0, 0, 0,
	0x5c, 0, 0, 0,
	/* 0x28 clip A: loop 1, loop_start 1.0, one track, rot_x, one key */
	0x02, 0, 0, 0x80, 0x01, 0, 0, 0, 0x34, 0, 0, 0, 0x01, 0, 0, 0,
	0x00, 0x00, 0x80, 0x3f,
	0x08, 0, 0, 0x80, 0x01, 0, 0, 0, 0x20, 0, 0, 0,
	0x08, 0, 0x12, 0x80, 0x01, 0, 0, 0, 0x14, 0, 0, 0,
	0x00, 0x10, 0, 0, 0, 0, 0, 0,
	/* 0x5c clip B: empty */
	0x02, 0, 0, 0x80, 0, 0, 0, 0, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x70 tail */
	0x01, 0x02, 0x03, 0x04,
};

static const char PACK_TEXT[] =
	"# animation pack: 2 streams, 2 clips, 4 tail bytes\n"
	"# filled: slots holding a clip (streamS/slotNNN.txt)\n"
	"# slot A shares [stream S] slot B: A plays the clip of the earlier "
	"slot B\n"
	"format mhfu\n"
	"\n"
	"stream 0 slots 3\n"
	"filled 0 2\n"
	"slot 2 shares slot 0\n"
	"\n"
	"stream 1 slots 1\n"
	"filled 0\n"
	"\n"
	"# 4 bytes after the last clip\n"
	"tail 01020304\n";

/* The same as printed: each filled slot's timing in a comment. */
static const char PACK_TEXT_PRINTED[] =
	"# animation pack: 2 streams, 2 clips, 4 tail bytes\n"
	"# filled: slots holding a clip (streamS/slotNNN.txt)\n"
	"# slot A shares [stream S] slot B: A plays the clip of the earlier "
	"slot B\n"
	"# slot A runs to frame F: A's clip ends at its last keyframe, then "
	"loops or stops\n"
	"format mhfu\n"
	"\n"
	"stream 0 slots 3\n"
	"filled 0 2\n"
	"# slot 0 runs to frame 0, loops from frame 1\n"
	"slot 2 shares slot 0    # runs to frame 0, loops from frame 1\n"
	"\n"
	"stream 1 slots 1\n"
	"filled 0\n"
	"# slot 0 runs to frame 0, plays once\n"
	"\n"
	"# 4 bytes after the last clip\n"
	"tail 01020304\n";

/* ---- helpers ----------------------------------------------------------- */

static void encode_ok(const struct anim *a, uint8_t **out, size_t *len)
{
	struct mh_diag d = {0};
	enum mh_err err = anim_encode(a, out, len, &d);
	if (err)
		fail_msg("encode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

static void decode_ok(const uint8_t *b, size_t len, enum clip_format hint,
		      struct anim *a)
{
	struct mh_diag d = {0};
	enum mh_err err = anim_decode(b, len, hint, a, &d);
	if (err)
		fail_msg("decode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

/* The text path: pack.txt and each clip's text (as the slot that first
 * uses it shows it) parsed back into a pack equal to a. */
static void text_path(const struct anim *a)
{
	size_t len;
	char *shape = anim_print_shape(a, &len);
	assert_non_null(shape);
	assert_int_equal(strlen(shape), len);
	struct anim b;
	struct mh_diag d = {0};
	enum mh_err err = anim_parse_shape(shape, len, &b, &d);
	if (err)
		fail_msg("parse: %s at %u:%u: %s\n%s", mh_strerror(err), d.line,
			 d.col, d.msg, shape);
	assert_int_equal(b.nclips, a->nclips);
	for (uint32_t i = 0; i < a->nclips; i++) {
		uint32_t s, slot;
		assert_true(anim_first_use(&b, i, &s, &slot));
		char hdr[64];
		snprintf(hdr, sizeof hdr, "stream %u slot %u", s, slot);
		char *text = clip_print(&a->clips[i], hdr, 0, NULL);
		assert_non_null(text);
		err = clip_parse(text, strlen(text), &b.clips[i], &d);
		if (err)
			fail_msg("clip %u: %u:%u: %s", i, d.line, d.col, d.msg);
		free(text);
	}
	if (!anim_equal(a, &b))
		fail_msg("text path differs:\n%s", shape);
	free(shape);
	anim_free(&b);
}

/* Encodes a, decodes it back equal, re-encodes the same bytes, sniffs. */
static void pack_roundtrip(const struct anim *a, uint8_t **bytes, size_t *len)
{
	encode_ok(a, bytes, len);
	struct anim b;
	decode_ok(*bytes, *len, a->format, &b);
	assert_true(anim_equal(a, &b));
	uint8_t *again;
	size_t n;
	encode_ok(&b, &again, &n);
	assert_int_equal(n, *len);
	assert_memory_equal(again, *bytes, n);
	free(again);
	anim_free(&b);
	int score = anim_sniff(*bytes, *len < ANIM_HEAD_MAX ? *len : ANIM_HEAD_MAX,
			       *len);
	assert_int_equal(score, a->nclips ? 100 : 50);
}

/* ---- the hand-built pack ----------------------------------------------- */

static void test_decode_fields(void **state)
{
	(void)state;
	struct anim a;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	assert_int_equal(a.format, CLIP_MHFU);
	assert_int_equal(a.nstreams, 2);
	assert_int_equal(a.streams[0].nslots, 3);
	assert_int_equal(a.streams[0].slots[0], 0);
	assert_int_equal(a.streams[0].slots[1], ANIM_EMPTY);
	assert_int_equal(a.streams[0].slots[2], 0);
	assert_int_equal(a.streams[1].nslots, 1);
	assert_int_equal(a.streams[1].slots[0], 1);
	assert_int_equal(a.nclips, 2);
	assert_int_equal(a.clips[0].loop, 1);
	assert_true(a.clips[0].loop_start == 1.0f);
	assert_int_equal(a.clips[0].tracks[0].channels[0].keys[0].value, 4096);
	assert_int_equal(a.clips[1].ntracks, 0);
	assert_int_equal(a.tail_len, 4);
	assert_memory_equal(a.tail, "\1\2\3\4", 4);
	uint32_t s, slot;
	assert_true(anim_first_use(&a, 0, &s, &slot));
	assert_int_equal(s, 0);
	assert_int_equal(slot, 0);
	assert_true(anim_first_use(&a, 1, &s, &slot));
	assert_int_equal(s, 1);
	assert_int_equal(slot, 0);
	assert_false(anim_first_use(&a, 2, &s, &slot));

	uint8_t *out;
	size_t n;
	pack_roundtrip(&a, &out, &n);
	assert_int_equal(n, sizeof PACK);
	assert_memory_equal(out, PACK, n);
	free(out);
	text_path(&a);
	anim_free(&a);
	anim_free(&a);
	anim_free(NULL);
}

static void test_print_shape_golden(void **state)
{
	(void)state;
	struct anim a, b;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	size_t len;
	char *text = anim_print_shape(&a, &len);
	assert_string_equal(text, PACK_TEXT_PRINTED);
	assert_int_equal(anim_parse_shape(PACK_TEXT, strlen(PACK_TEXT), &b, NULL),
			 MH_OK);
	assert_int_equal(b.nclips, 2);
	assert_int_equal(b.streams[0].slots[2], 0);
	/* The timing comments are information only: the printed text parses
	 * to the same shape as the bare one. */
	struct anim printed;
	assert_int_equal(anim_parse_shape(text, len, &printed, NULL), MH_OK);
	char *bare_again = anim_print_shape(&b, NULL), *printed_again =
		anim_print_shape(&printed, NULL);
	assert_string_equal(bare_again, printed_again);
	free(bare_again);
	free(printed_again);
	anim_free(&printed);
	free(text);
	anim_free(&a);
	anim_free(&b);
}

#define EDIT(name, body) static void name(uint8_t *b) { body; }
EDIT(table0_odd, b[4] = 0x19)
EDIT(one_stream, b[4] = 0x10)
EDIT(table0_far, b[5] = 0x10)
EDIT(table1_wrong, b[0x0c] = 0x28)
EDIT(slots1_many, b[8] = 0xe8; b[9] = 0x03)
EDIT(zero_word, b[0x10] = 5)
EDIT(data_start, b[0x14] = 0x2c)
EDIT(slot0_ahead, b[0x18] = 0x2c)
EDIT(slot2_inside, b[0x20] = 0x2c)
EDIT(slot1_zero, b[0x1c] = 0; b[0x1d] = 0; b[0x1e] = 0; b[0x1f] = 0)
EDIT(first_word, b[0x2b] = 0x12)
EDIT(clip_a_channel_tag, b[0x4a] = 0x13)
EDIT(clip_b_size, b[0x64] = 0x18)
EDIT(slot2_clip_b, b[0x20] = 0x5c)

static enum mh_err decode_edit(void (*edit)(uint8_t *), size_t len,
			       struct mh_diag *d)
{
	uint8_t *b = malloc(sizeof PACK);
	assert_non_null(b);
	memcpy(b, PACK, sizeof PACK);
	if (edit)
		edit(b);
	struct anim a;
	enum mh_err err = anim_decode(b, len, CLIP_NONE, &a, d);
	if (err) {
		assert_int_equal(a.nstreams, 0);
		assert_null(a.streams);
		assert_null(a.clips);
		assert_null(a.tail);
	}
	anim_free(&a);
	free(b);
	return err;
}

static void test_decode_errors(void **state)
{
	(void)state;
	static const struct {
		void (*edit)(uint8_t *);
		size_t len;
		enum mh_err code;
		uint64_t offset;
	} CASES[] = {
		{NULL, 15, MH_ETRUNC, 0},
		{table0_odd, sizeof PACK, MH_ECORRUPT, 4},
		{one_stream, sizeof PACK, MH_ECORRUPT, 8},
		{table0_far, sizeof PACK, MH_ETRUNC, 4},
		{table1_wrong, sizeof PACK, MH_ECORRUPT, 0x0c},
		{slots1_many, sizeof PACK, MH_ETRUNC, 8},
		{zero_word, sizeof PACK, MH_ECORRUPT, 0x10},
		{data_start, sizeof PACK, MH_ECORRUPT, 0x14},
		{slot0_ahead, sizeof PACK, MH_ECORRUPT, 0x18},
		{slot2_inside, sizeof PACK, MH_ECORRUPT, 0x20},
		{slot1_zero, sizeof PACK, MH_ECORRUPT, 0x1c},
		{first_word, sizeof PACK, MH_ECORRUPT, 0x28},
		{clip_a_channel_tag, sizeof PACK, MH_ECORRUPT, 0x48},
		{clip_b_size, sizeof PACK, MH_ECORRUPT, 0x64},
		{NULL, 0x6f, MH_ETRUNC, 0x5c},
		{clip_b_size, 0x70, MH_ETRUNC, 0x64},
		{NULL, 0x29, MH_ETRUNC, 0x28},
		{NULL, 0x28, MH_ETRUNC, 0x28},
	};
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		struct mh_diag d = {0};
		enum mh_err err = decode_edit(CASES[i].edit, CASES[i].len, &d);
		print_message("case %zu: %s\n", i, d.msg);
		assert_diag(&d, err, CASES[i].code, CASES[i].offset);
	}
	/* A slot may also be the first to use the next clip: still exact. */
	struct mh_diag d = {0};
	assert_int_equal(decode_edit(slot2_clip_b, sizeof PACK, &d), MH_OK);
}

static void test_every_prefix_and_byte_change(void **state)
{
	(void)state;
	uint8_t b[sizeof PACK];
	for (size_t n = 0; n < sizeof PACK; n++) {
		struct anim a;
		/* Cutting the tail short is fine; cutting into a clip is not. */
		enum mh_err err = anim_decode(PACK, n, CLIP_NONE, &a, NULL);
		assert_int_equal(err == MH_OK, n >= 0x70);
		anim_free(&a);
	}
	static const uint8_t VALUES[] = {0, 1, 0x0c, 0x10, 0x14, 0x18, 0x24,
					 0x28, 0x5c, 0x80, 0xff};
	for (size_t at = 0; at < sizeof PACK; at++)
		for (size_t v = 0; v < sizeof VALUES; v++) {
			memcpy(b, PACK, sizeof PACK);
			b[at] = VALUES[v];
			struct anim a;
			if (anim_decode(b, sizeof b, CLIP_NONE, &a, NULL))
				continue;
			uint8_t *out;
			size_t n;
			encode_ok(&a, &out, &n);
			assert_int_equal(n, sizeof b);
			assert_memory_equal(out, b, n);
			free(out);
			anim_free(&a);
		}
}

/* ---- game-shaped packs ------------------------------------------------- */

static void test_tigrex_shaped_pack(void **state)
{
	(void)state;
	struct rng r = {0x06185};
	struct anim a;
	gen_tigrex(&r, &a);
	static const uint32_t SLOTS[] = {100, 105, 100, 105, 100, 105};
	static const uint32_t FILLED[] = {62, 0, 64, 0, 62, 0};
	static const uint32_t TRACKS[] = {31, 0, 9, 0, 5, 0};
	assert_int_equal(a.nstreams, 6);
	for (uint32_t s = 0; s < 6; s++) {
		uint32_t filled = 0;
		assert_int_equal(a.streams[s].nslots, SLOTS[s]);
		for (uint32_t i = 0; i < SLOTS[s]; i++) {
			int32_t c = a.streams[s].slots[i];
			if (c == ANIM_EMPTY)
				continue;
			filled++;
			/* Only the cross-stream share breaks the part's count. */
			if (!(s == 4 && i == 50))
				assert_int_equal(a.clips[c].ntracks, TRACKS[s]);
		}
		assert_int_equal(filled, FILLED[s]);
	}
	assert_int_equal(a.streams[0].slots[24], ANIM_EMPTY);
	assert_int_equal(a.streams[4].slots[25], ANIM_EMPTY);
	assert_true(a.streams[2].slots[24] >= 0);
	assert_int_equal(a.streams[0].slots[2], a.streams[0].slots[0]);
	assert_int_equal(a.streams[4].slots[50], a.streams[2].slots[50]);
	uint32_t s, slot;
	assert_true(anim_first_use(&a, (uint32_t)a.streams[4].slots[50], &s, &slot));
	assert_int_equal(s, 2);
	assert_int_equal(slot, 50);

	uint8_t *bytes;
	size_t len;
	pack_roundtrip(&a, &bytes, &len);
	assert_int_equal(load_le32(bytes), 100);
	assert_int_equal(load_le32(bytes + 4), 0x38);
	assert_int_equal(load_le32(bytes + 8 * 6 + 4), 0x38 + 4 * 615);
	assert_int_equal(load_le32(bytes + 0x38 + 4 * 615), CLIP_MHFU_TAG);
	assert_memory_equal(bytes + len - 40, "\xde\xad\xbe\xef\1\2\3\4", 8);
	text_path(&a);

	char *shape = anim_print_shape(&a, NULL);
	assert_non_null(strstr(shape, "\nstream 0 slots 100\nfilled 0-23 26-63\n"
			       "# slot 0 runs to frame "));
	assert_non_null(strstr(shape, "\nslot 2 shares slot 0    # runs to frame "));
	assert_non_null(strstr(shape, "\nslot 40 shares slot 3   # runs to frame "));
	assert_non_null(strstr(shape, "\nstream 1 slots 105\n\nstream 2"));
	assert_non_null(strstr(shape, "\nslot 50 shares stream 2 slot 50 # runs to frame "));
	assert_non_null(strstr(shape, "\ntail deadbeef01020304\ntail zeros 32\n"));
	free(shape);

	/* Part joints from the Tigrex's parts [0]*31 + [1]*9 + [2]*5. */
	uint32_t parts[45], first, count;
	for (uint32_t j = 0; j < 45; j++)
		parts[j] = j < 31 ? 0 : j < 40 ? 1 : 2;
	for (uint32_t k = 0; k < 3; k++) {
		assert_true(anim_part_joints(parts, 45, anim_mhfu_part(2 * k),
					     &first, &count));
		assert_int_equal(count, TRACKS[2 * k]);
		assert_int_equal(first, k == 0 ? 0 : k == 1 ? 31 : 40);
	}
	assert_int_equal(anim_mhfu_part(3), 1);
	assert_false(anim_part_joints(parts, 45, 3, &first, &count));
	parts[44] = 0;
	assert_false(anim_part_joints(parts, 45, 0, &first, &count));
	anim_mhfu_entry_slot(1, 123, &s, &slot);
	assert_int_equal(s, 3);
	assert_int_equal(slot, 23);
	anim_mhfu_entry_slot(2, 24, &s, &slot);
	assert_int_equal(s, 4);
	assert_int_equal(slot, 24);

	free(bytes);
	anim_free(&a);
}

static void test_p3rd_shaped_pack(void **state)
{
	(void)state;
	struct rng r = {0x5250};
	struct anim a;
	gen_p3rd(&r, &a);
	assert_int_equal(a.nstreams, 3);
	assert_int_equal(a.streams[2].nslots, 0);
	assert_int_equal(a.clips[0].ntracks, 43);
	uint8_t *bytes;
	size_t len;
	pack_roundtrip(&a, &bytes, &len);
	assert_int_equal(load_le32(bytes + 4), 0x20);
	assert_int_equal(load_le32(bytes + 0x20 + 4 * 90), 43);
	/* Decoding needs no hint: the first clip's word says MHP3rd. */
	struct anim b;
	decode_ok(bytes, len, CLIP_MHFU, &b);
	assert_int_equal(b.format, CLIP_P3RD);
	assert_true(anim_equal(&a, &b));
	const struct clip_track *t = &b.clips[0].tracks[0];
	for (uint32_t i = 0; i < b.clips[0].ntracks; i++, t++)
		if (t->nchannels == 6)
			assert_int_equal(t->channels[0].bit, CLIP_LOC_X);
	text_path(&a);
	anim_free(&b);
	free(bytes);
	anim_free(&a);
}

static void test_packs_without_clips(void **state)
{
	(void)state;
	static const uint32_t SLOTS[] = {0, 3, 0};
	for (int f = CLIP_NONE; f <= CLIP_P3RD; f++) {
		struct anim a, b;
		assert_int_equal(anim_init(&a, (enum clip_format)f, 3, SLOTS, NULL),
				 MH_OK);
		uint8_t *bytes;
		size_t len;
		pack_roundtrip(&a, &bytes, &len);
		assert_int_equal(len, 0x20 + 12);
		decode_ok(bytes, len, (enum clip_format)f, &b);
		assert_int_equal(b.format, f);
		anim_free(&b);
		text_path(&a);
		free(bytes);
		anim_free(&a);
	}
}

/* ---- building and encode errors ---------------------------------------- */

static void test_builders_and_encode_errors(void **state)
{
	(void)state;
	struct anim a = {0};
	struct mh_diag d = {0};
	uint8_t *out;
	size_t len;
	assert_diag(&d, anim_encode(&a, &out, &len, &d), MH_ERANGE, 0);
	assert_null(out);

	static const uint32_t SLOTS[] = {4, 2};
	assert_int_equal(anim_init(&a, CLIP_MHFU, 2, SLOTS, NULL), MH_OK);
	struct clip c0 = {0}, c1 = {0}, c2 = {0};
	clip_add_track(&c1, 0);
	clip_add_track(&c2, 0);
	clip_add_track(&c2, 0);
	assert_int_equal(anim_add_clip(&a, &c0), 0);
	assert_int_equal(anim_add_clip(&a, &c1), 1);
	assert_int_equal(anim_add_clip(&a, &c2), 2);
	assert_null(c1.tracks);
	assert_diag(&d, anim_set_slot(&a, 2, 0, 0, &d), MH_ERANGE, 0);
	assert_diag(&d, anim_set_slot(&a, 0, 4, 0, &d), MH_ERANGE, 0);
	assert_diag(&d, anim_set_slot(&a, 0, 0, 3, &d), MH_ERANGE, 0);
	assert_diag(&d, anim_set_slot(&a, 0, 0, -2, &d), MH_ERANGE, 0);
	/* Slot 0 uses clip 1 first: not first-use order. */
	assert_int_equal(anim_set_slot(&a, 0, 0, 1, NULL), MH_OK);
	assert_int_equal(anim_set_slot(&a, 0, 3, 0, NULL), MH_OK);
	assert_int_equal(anim_set_slot(&a, 1, 1, 1, NULL), MH_OK);
	assert_diag(&d, anim_encode(&a, &out, &len, &d), MH_ERANGE, 0);
	/* Clip 2 is used by no slot. */
	a.streams[0].slots[0] = 0;
	a.streams[0].slots[3] = 1;
	assert_diag(&d, anim_encode(&a, &out, &len, &d), MH_ERANGE, 0);
	/* A slot naming no clip. */
	a.streams[1].slots[0] = 7;
	assert_diag(&d, anim_encode(&a, &out, &len, &d), MH_ERANGE, 0);
	assert_diag(&d, anim_compact(&a, &d), MH_ERANGE, 0);
	a.streams[1].slots[0] = ANIM_EMPTY;
	/* compact renumbers (slot 0: clip 1 -> 0) and frees clip 2. */
	a.streams[0].slots[0] = 1;
	a.streams[0].slots[3] = 0;
	assert_int_equal(anim_compact(&a, NULL), MH_OK);
	assert_int_equal(a.nclips, 2);
	assert_int_equal(a.streams[0].slots[0], 0);
	assert_int_equal(a.streams[0].slots[3], 1);
	assert_int_equal(a.streams[1].slots[1], 0);
	assert_int_equal(a.clips[0].ntracks, 1);
	encode_ok(&a, &out, &len);
	free(out);
	/* A clip that does not fit the format: offset of clip 1's channel
	 * (header, 6 slots, clip 0 of one empty track, clip 1's headers). */
	struct clip_track *t = clip_add_track(&a.clips[1], 0);
	clip_add_channel(t, 0x12345);
	assert_diag(&d, anim_encode(&a, &out, &len, &d), MH_ERANGE,
		    0x18 + 4 * 6 + 0x20 + 0x14 + 12);
	a.clips[1].tracks[0].channels[0].bit = 8;
	a.format = CLIP_NONE;
	assert_diag(&d, anim_encode(&a, &out, &len, &d), MH_ERANGE, 0);
	anim_free(&a);
	anim_free(&a);
}

/* ---- pack.txt parse errors --------------------------------------------- */

static void test_parse_shape_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		size_t len; /* 0: strlen */
		enum mh_err code;
		unsigned line, col;
	} CASES[] = {
		{"", 0, MH_ESYNTAX, 1, 1},
		{"format mhfu\n", 0, MH_ESYNTAX, 2, 1},
		{"stream 0 slots 3\n", 0, MH_ESYNTAX, 1, 1},
		{"format mhfx\n", 0, MH_ESYNTAX, 1, 8},
		{"format mhfu\nformat p3rd\n", 0, MH_ESYNTAX, 2, 1},
		{"format mhfu\nbogus\n", 0, MH_ESYNTAX, 2, 1},
		{"format mhfu\nstream 1 slots 3\n", 0, MH_ESYNTAX, 2, 8},
		{"format mhfu\nstream 0 slot 3\n", 0, MH_ESYNTAX, 2, 10},
		{"format mhfu\nstream 0 slots 2000000\n", 0, MH_ERANGE, 2, 16},
		{"format mhfu\nfilled 0\n", 0, MH_ESYNTAX, 2, 1},
		{"format mhfu\nstream 0 slots 3\nfilled\n", 0, MH_ESYNTAX, 3, 7},
		{"format mhfu\nstream 0 slots 3\nfilled 0-3\n", 0, MH_ERANGE, 3, 10},
		{"format mhfu\nstream 0 slots 3\nfilled 2 1\n", 0, MH_ESYNTAX, 3, 10},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1 1\n", 0, MH_ESYNTAX, 3, 12},
		{"format mhfu\nstream 0 slots 3\nfilled 2-1\n", 0, MH_ESYNTAX, 3, 10},
		{"format mhfu\nstream 0 slots 3\nfilled x\n", 0, MH_ESYNTAX, 3, 8},
		{"format mhfu\nstream 0 slots 0\nfilled 0\n", 0, MH_ERANGE, 3, 8},
		{"format mhfu\nstream 0 slots 3\nfilled 0\nslot 1 shares slot 0\n",
		 0, MH_ESYNTAX, 4, 6},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1\nslot 0 shares slot 1\n",
		 0, MH_ESYNTAX, 4, 20},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1\nslot 1 shares slot 1\n",
		 0, MH_ESYNTAX, 4, 20},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1\nslot 1 shares stream 1 "
		 "slot 0\n", 0, MH_ERANGE, 4, 22},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1\nslot 1 shares slot 0\n"
		 "slot 1 shares slot 0\n", 0, MH_ESYNTAX, 5, 6},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1\nslot 1 shares slit 0\n",
		 0, MH_ESYNTAX, 4, 15},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1\nslot 1 uses slot 0\n",
		 0, MH_ESYNTAX, 4, 8},
		{"format mhfu\nstream 0 slots 3\nfilled 0-1\nslot 1 shares slot 0 x\n",
		 0, MH_ESYNTAX, 4, 22},
		{"format mhfu\nstream 0 slots 3\nfilled 1\nstream 1 slots 2\nfilled 0\n"
		 "slot 0 shares stream 0 slot 0\n", 0, MH_ESYNTAX, 6, 29},
		{"format mhfu\nstream 0 slots 1\ntail 0g\n", 0, MH_ESYNTAX, 3, 7},
		{"format mhfu\nstream 0 slots 1\ntail 012\n", 0, MH_ESYNTAX, 3, 6},
		{"format mhfu\nstream 0 slots 1\ntail\n", 0, MH_ESYNTAX, 3, 5},
		{"format mhfu\nstream 0 slots 1\ntail zeros 16777217\n", 0, MH_ERANGE,
		 3, 12},
		{"format mhfu\nstream 0 slots 1\ntail zeros 1 2\n", 0, MH_ESYNTAX, 3,
		 14},
		{"format mhfu\n#\0\n", 15, MH_ESYNTAX, 2, 2},
	};
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		struct anim a;
		struct mh_diag d = {0};
		size_t len = CASES[i].len ? CASES[i].len : strlen(CASES[i].text);
		enum mh_err err = anim_parse_shape(CASES[i].text, len, &a, &d);
		print_message("case %zu: %u:%u %s\n", i, d.line, d.col, d.msg);
		if (err != CASES[i].code || d.line != CASES[i].line ||
		    d.col != CASES[i].col)
			fail_msg("case %zu: got %s at %u:%u, want %s at %u:%u", i,
				 mh_strerror(err), d.line, d.col,
				 mh_strerror(CASES[i].code), CASES[i].line,
				 CASES[i].col);
		assert_null(a.streams);
		assert_null(a.clips);
	}
}

static void test_parse_shape_liberal(void **state)
{
	(void)state;
	static const char TEXT[] =
		"format p3rd # a comment\n"
		"stream 0 slots 6\nfilled 0\nfilled 2-3 5\n"
		"slot 5 shares slot 3\nslot 3 shares slot 0\n"
		"stream 1 slots 2\nfilled 0-1\n"
		"slot 1 shares stream 0 slot 5  # a share of a share\n"
		"tail zeros 3\ntail AB cd\ntail zeros 0\n";
	struct anim a;
	struct mh_diag d = {0};
	assert_int_equal(anim_parse_shape(TEXT, strlen(TEXT), &a, &d), MH_OK);
	assert_int_equal(a.format, CLIP_P3RD);
	assert_int_equal(a.nclips, 3);
	static const int32_t S0[] = {0, -1, 1, 0, -1, 0}, S1[] = {2, 0};
	assert_memory_equal(a.streams[0].slots, S0, sizeof S0);
	assert_memory_equal(a.streams[1].slots, S1, sizeof S1);
	assert_int_equal(a.tail_len, 5);
	assert_memory_equal(a.tail, "\0\0\0\xab\xcd", 5);
	anim_free(&a);
	/* An empty run before any tail byte: nothing to add to yet. */
	static const char EMPTY_RUN[] = "format p3rd\nstream 0 slots 1\ntail zeros 0\n";
	assert_int_equal(anim_parse_shape(EMPTY_RUN, strlen(EMPTY_RUN), &a, &d), MH_OK);
	assert_int_equal(a.tail_len, 0);
	anim_free(&a);
}

/* ---- properties -------------------------------------------------------- */

/* MHP3rd stores no masks: a decoded track's is the OR of its bits. */
static void derive_masks(struct anim *a)
{
	if (a->format != CLIP_P3RD)
		return;
	for (uint32_t i = 0; i < a->nclips; i++)
		for (uint32_t t = 0; t < a->clips[i].ntracks; t++) {
			struct clip_track *tr = &a->clips[i].tracks[t];
			tr->mask = 0;
			for (uint32_t j = 0; j < tr->nchannels; j++)
				tr->mask |= tr->channels[j].bit;
		}
}

static void test_random_packs_roundtrip(void **state)
{
	(void)state;
	struct rng r = {0xA11A};
	for (int iter = 0; iter < 2000; iter++) {
		struct anim a;
		gen_pack(&r, &a);
		derive_masks(&a);
		uint8_t *bytes;
		size_t len;
		pack_roundtrip(&a, &bytes, &len);
		text_path(&a);
		free(bytes);
		anim_free(&a);
	}
}

/* ---- sniffing ---------------------------------------------------------- */

static void test_sniff(void **state)
{
	(void)state;
	assert_int_equal(anim_sniff(PACK, sizeof PACK, sizeof PACK), 100);
	assert_int_equal(anim_sniff(PACK, 0x28, sizeof PACK), 70);
	assert_int_equal(anim_sniff(PACK, 0x20, sizeof PACK), 70);
	assert_int_equal(anim_sniff(PACK, 0x10, sizeof PACK), 0);
	assert_int_equal(anim_sniff(PACK, sizeof PACK, 0x40), 0);
	uint8_t b[sizeof PACK];
	memcpy(b, PACK, sizeof b);
	b[0x28] = 0x11; /* first clip word: neither format */
	assert_int_equal(anim_sniff(b, sizeof b, sizeof b), 0);

	struct rng r = {0x5EED};
	uint8_t *buf = malloc(4096);
	assert_non_null(buf);
	unsigned hits = 0;
	for (int iter = 0; iter < 100000; iter++) {
		size_t n = gen_below(&r, iter % 2 ? 64 : 4096);
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rng_next(&r);
		hits += anim_sniff(buf, n, n) != 0;
		hits += anim_sniff(buf, n, n + gen_below(&r, 1 << 20)) != 0;
	}
	assert_int_equal(hits, 0);
	free(buf);
}

/* ---- clip offsets and slot and shape edits ------------------------------ */

static void test_clip_offsets_are_encodes(void **state)
{
	(void)state;
	struct anim a;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	uint64_t off[2], size[2];
	anim_clip_offsets(&a, off, size);
	assert_int_equal(off[0], 0x28);
	assert_int_equal(size[0], 0x34);
	assert_int_equal(off[1], 0x5c);
	assert_int_equal(size[1], 0x14);
	anim_free(&a);

	/* Random packs: each slot's table word is its clip's offset, and
	 * the clips run back to back up to the tail. */
	struct gen_rng r = {77};
	for (int iter = 0; iter < 200; iter++) {
		gen_pack(&r, &a);
		uint8_t *b;
		size_t n;
		encode_ok(&a, &b, &n);
		uint64_t *o = malloc((a.nclips + 1) * sizeof *o);
		uint64_t *z = malloc((a.nclips + 1) * sizeof *z);
		assert_non_null(o);
		assert_non_null(z);
		anim_clip_offsets(&a, o, z);
		size_t table = 8 * ((size_t)a.nstreams + 1);
		for (uint32_t st = 0; st < a.nstreams; st++)
			for (uint32_t i = 0; i < a.streams[st].nslots; i++, table += 4)
				if (a.streams[st].slots[i] != ANIM_EMPTY)
					assert_int_equal(load_le32(b + table),
							 o[a.streams[st].slots[i]]);
		uint64_t end = load_le32(b + 8 * (size_t)a.nstreams + 4);
		for (uint32_t c = 0; c < a.nclips; c++) {
			assert_int_equal(o[c], end);
			end += z[c];
		}
		assert_int_equal(end + a.tail_len, n);
		free(o);
		free(z);
		free(b);
		anim_free(&a);
	}
}

/* An MHFU clip without tracks whose loop word is `loop`: 0x14 bytes. */
static struct clip bare_clip(uint32_t loop)
{
	return (struct clip){.loop = loop};
}

static void compact_encode(struct anim *a, uint8_t **out, size_t *len)
{
	struct mh_diag d = {0};
	if (anim_compact(a, &d))
		fail_msg("compact: %s", d.msg);
	encode_ok(a, out, len);
}

static void test_slot_put_copies_on_write(void **state)
{
	(void)state;
	struct anim a;
	struct mh_diag d = {0};
	uint8_t *b;
	size_t n;

	/* Slot 2 shares slot 0's clip A: it gets a clip of its own, and
	 * slot 0 keeps A byte for byte.  First-use order: A at 0x28, the
	 * new clip at 0x5c, B at 0x70, then the tail. */
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	struct clip c = bare_clip(7);
	assert_int_equal(anim_slot_put(&a, 0, 2, &c, &d), MH_OK);
	assert_int_equal(c.loop, 0); /* taken */
	compact_encode(&a, &b, &n);
	assert_int_equal(n, sizeof PACK + 0x14);
	assert_int_equal(load_le32(b + 0x18), 0x28);
	assert_int_equal(load_le32(b + 0x1c), ANIM_NO_CLIP);
	assert_int_equal(load_le32(b + 0x20), 0x5c);
	assert_int_equal(load_le32(b + 0x24), 0x70);
	assert_memory_equal(b + 0x28, PACK + 0x28, 0x34);
	assert_int_equal(load_le32(b + 0x5c), CLIP_MHFU_TAG);
	assert_int_equal(load_le32(b + 0x5c + 12), 7);
	assert_memory_equal(b + 0x70, PACK + 0x5c, 0x14 + 4);
	free(b);
	anim_free(&a);

	/* Slot 0 is A's first user: A is replaced, slot 2 follows it. */
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	c = bare_clip(9);
	assert_int_equal(anim_slot_put(&a, 0, 0, &c, &d), MH_OK);
	compact_encode(&a, &b, &n);
	assert_int_equal(n, sizeof PACK - 0x34 + 0x14);
	assert_int_equal(load_le32(b + 0x18), 0x28);
	assert_int_equal(load_le32(b + 0x20), 0x28);
	assert_int_equal(load_le32(b + 0x24), 0x3c);
	assert_int_equal(load_le32(b + 0x28 + 12), 9);
	assert_memory_equal(b + 0x3c, PACK + 0x5c, 0x14 + 4);
	free(b);
	anim_free(&a);

	/* An empty slot gets a clip of its own. */
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	c = bare_clip(5);
	assert_int_equal(anim_slot_put(&a, 0, 1, &c, &d), MH_OK);
	compact_encode(&a, &b, &n);
	assert_int_equal(load_le32(b + 0x1c), 0x5c);
	assert_int_equal(load_le32(b + 0x5c + 12), 5);
	assert_int_equal(load_le32(b + 0x24), 0x70);
	free(b);

	/* Out of range: refused, the clip freed, the pack unchanged. */
	struct anim before;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &before);
	anim_free(&a);
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	c = bare_clip(1);
	assert_non_null(clip_add_track(&c, 0));
	assert_diag(&d, anim_slot_put(&a, 0, 3, &c, &d), MH_ERANGE, 0);
	assert_string_equal(d.msg, "stream 0 has no slot 3");
	assert_int_equal(c.ntracks, 0);
	assert_diag(&d, anim_slot_put(&a, 2, 0, &(struct clip){0}, &d), MH_ERANGE, 0);
	assert_string_equal(d.msg, "stream 2 has no slot 0");
	assert_true(anim_equal(&a, &before));
	anim_free(&before);
	anim_free(&a);
}

static void test_slot_empty_and_share(void **state)
{
	(void)state;
	struct anim a, before;
	struct mh_diag d = {0};
	uint8_t *b;
	size_t n;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &before);

	/* Emptying A's first user: slot 2 keeps A, now its first user. */
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	assert_int_equal(anim_slot_empty(&a, 0, 0, &d), MH_OK);
	compact_encode(&a, &b, &n);
	assert_int_equal(n, sizeof PACK);
	assert_int_equal(load_le32(b + 0x18), ANIM_NO_CLIP);
	assert_memory_equal(b + 0x1c, PACK + 0x1c, sizeof PACK - 0x1c);
	free(b);
	anim_free(&a);

	/* Slot 1 made to play stream 1's slot 0 (clip B). */
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	assert_int_equal(anim_slot_share(&a, 0, 1, 1, 0, &d), MH_OK);
	compact_encode(&a, &b, &n);
	assert_int_equal(n, sizeof PACK);
	assert_int_equal(load_le32(b + 0x1c), 0x5c);
	assert_memory_equal(b, PACK, 0x1c);
	assert_memory_equal(b + 0x20, PACK + 0x20, sizeof PACK - 0x20);
	free(b);
	anim_free(&a);

	/* Refusals leave the pack as it was. */
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	assert_diag(&d, anim_slot_share(&a, 1, 0, 0, 1, &d), MH_ERANGE, 0);
	assert_string_equal(d.msg, "the link's target holds no clip");
	assert_diag(&d, anim_slot_share(&a, 1, 0, 0, 3, &d), MH_ERANGE, 0);
	assert_string_equal(d.msg, "the link's target holds no clip");
	assert_diag(&d, anim_slot_share(&a, 1, 0, 5, 0, &d), MH_ERANGE, 0);
	assert_diag(&d, anim_slot_share(&a, 1, 1, 0, 0, &d), MH_ERANGE, 0);
	assert_string_equal(d.msg, "stream 1 has no slot 1");
	assert_diag(&d, anim_slot_empty(&a, 0, 3, &d), MH_ERANGE, 0);
	assert_string_equal(d.msg, "stream 0 has no slot 3");
	assert_true(anim_equal(&a, &before));
	anim_free(&a);
	anim_free(&before);
}

static void test_slot_write_from_files(void **state)
{
	(void)state;
	struct anim a, before;
	struct mh_diag d = {0};
	uint8_t *b;
	size_t n;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &before);

	/* slotNNN.bin: clip B's bytes, exactly; with 4 more they are refused
	 * at the clip's end. */
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	assert_int_equal(anim_slot_write(&a, 0, 2, ANIM_SLOT_BYTES, PACK + 0x5c, 0x14, &d),
			 MH_OK);
	compact_encode(&a, &b, &n);
	assert_int_equal(load_le32(b + 0x20), 0x5c);
	assert_memory_equal(b + 0x5c, PACK + 0x5c, 0x14);
	free(b);
	anim_free(&a);
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
	assert_diag(&d, anim_slot_write(&a, 0, 2, ANIM_SLOT_BYTES, PACK + 0x5c, 0x18, &d),
		    MH_ECORRUPT, 0x14);
	assert_string_equal(d.msg, "4 bytes after the clip's end");
	/* The slot is checked before the file is read. */
	assert_diag(&d, anim_slot_write(&a, 0, 9, ANIM_SLOT_BYTES, PACK + 0x5c, 0x18, &d),
		    MH_ERANGE, 0);
	assert_string_equal(d.msg, "stream 0 has no slot 9");
	assert_true(anim_equal(&a, &before));

	/* slotNNN.txt: the clip's text, as the parser reads it. */
	static const char TEXT[] = "loop 3\nloop_start 0\n";
	assert_int_equal(anim_slot_write(&a, 1, 0, ANIM_SLOT_TEXT, (const uint8_t *)TEXT,
					 strlen(TEXT), &d), MH_OK);
	assert_int_equal(a.clips[a.streams[1].slots[0]].loop, 3);
	static const char BAD[] = "loop 3\nloop_start zero\n";
	assert_int_equal(anim_slot_write(&a, 1, 0, ANIM_SLOT_TEXT, (const uint8_t *)BAD,
					 strlen(BAD), &d), MH_ESYNTAX);
	assert_int_equal(d.line, 2);
	anim_free(&a);

	/* The first clip of a pack whose game is unknown is MHFU's. */
	static const uint32_t SLOTS[1] = {2};
	assert_int_equal(anim_init(&a, CLIP_NONE, 1, SLOTS, &d), MH_OK);
	assert_int_equal(anim_slot_write(&a, 0, 1, ANIM_SLOT_TEXT, (const uint8_t *)TEXT,
					 strlen(TEXT), &d), MH_OK);
	assert_int_equal(a.format, CLIP_MHFU);
	compact_encode(&a, &b, &n);
	assert_int_equal(n, 0x10 + 8 + 0x14);
	assert_int_equal(load_le32(b + 0x10), ANIM_NO_CLIP);
	assert_int_equal(load_le32(b + 0x14), 0x18);
	assert_int_equal(load_le32(b + 0x18), CLIP_MHFU_TAG);
	free(b);
	anim_free(&a);
	anim_free(&before);
}

static void test_reshape(void **state)
{
	(void)state;
	struct anim old, a;
	struct mh_diag d = {0};
	uint8_t *b;
	size_t n;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &old);

	/* The same shape: the same pack. */
	assert_int_equal(anim_reshape(&old, PACK_TEXT, strlen(PACK_TEXT), &a, &d), MH_OK);
	assert_true(anim_equal(&a, &old));
	anim_free(&a);

	/* Slot 2 no longer shares: it gets a copy of the clip it played. */
	char text[sizeof PACK_TEXT];
	snprintf(text, sizeof text, "%s", PACK_TEXT);
	char *share = strstr(text, "slot 2 shares slot 0\n");
	assert_non_null(share);
	memmove(share, share + 21, strlen(share + 21) + 1);
	assert_int_equal(anim_reshape(&old, text, strlen(text), &a, &d), MH_OK);
	compact_encode(&a, &b, &n);
	assert_int_equal(n, sizeof PACK + 0x34);
	assert_int_equal(load_le32(b + 0x18), 0x28);
	assert_int_equal(load_le32(b + 0x20), 0x5c);
	assert_int_equal(load_le32(b + 0x24), 0x90);
	assert_memory_equal(b + 0x28, PACK + 0x28, 0x34);
	assert_memory_equal(b + 0x5c, PACK + 0x28, 0x34);
	assert_memory_equal(b + 0x90, PACK + 0x5c, 0x14 + 4);
	free(b);
	anim_free(&a);

	/* Slot 1 filled, but the pack holds no clip there: refused at the
	 * line of its stream (line 6), and *a is left empty. */
	snprintf(text, sizeof text, "%s", PACK_TEXT);
	char *filled = strstr(text, "filled 0 2\n");
	assert_non_null(filled);
	memcpy(filled, "filled 0-2", 10);
	a.nstreams = 99;
	assert_int_equal(anim_reshape(&old, text, strlen(text), &a, &d), MH_ERANGE);
	assert_int_equal(d.code, MH_ERANGE);
	assert_int_equal(d.line, 6);
	assert_int_equal(d.col, 1);
	assert_string_equal(d.msg, "stream 0 slot 1 is filled but has no clip: "
			    "write stream0/slot001.txt to fill it");
	assert_int_equal(a.nstreams, 0);
	assert_null(a.clips);

	/* A text the parser refuses: its error, as it gives it. */
	assert_int_equal(anim_reshape(&old, "format mhfu\nstream x\n", 21, &a, &d), MH_ESYNTAX);
	assert_int_equal(d.line, 2);
	anim_free(&old);
}

/* ---- allocation failures ----------------------------------------------- */

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct rng r = {3};
	struct anim a;
	gen_pack(&r, &a);
	while (a.nclips < 3) {
		anim_free(&a);
		gen_pack(&r, &a);
	}
	derive_masks(&a);
	uint8_t *bytes;
	size_t n;
	encode_ok(&a, &bytes, &n);
	char *text = anim_print_shape(&a, NULL);
	long live = faults_live;
	for (int what = 0; what < 4; what++)
		for (long k = 0;; k++) {
			struct anim b;
			struct mh_diag d = {0};
			enum mh_err err;
			char *t = NULL;
			uint8_t *enc = NULL;
			size_t len;
			faults_arm(k);
			switch (what) {
			case 0: err = anim_decode(bytes, n, CLIP_NONE, &b, &d); break;
			case 1: err = anim_parse_shape(text, strlen(text), &b, &d); break;
			case 2: t = anim_print_shape(&a, NULL); err = t ? MH_OK : MH_ENOMEM; break;
			default: err = anim_encode(&a, &enc, &len, &d); break;
			}
			bool fired = faults_disarm();
			if (what <= 1 && !err)
				anim_free(&b);
			free(t);
			free(enc);
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				break;
			}
			assert_int_equal(err, MH_ENOMEM);
		}
	free(text);
	free(bytes);
	anim_free(&a);
}

/* Each edit under a failing allocation, every one in turn: MH_ENOMEM,
 * the pack as it was (anim_reshape's result empty), nothing leaked. */
static void test_edit_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	static const char TEXT[] = "loop 3\nloop_start 0.5\n"
				   "track 0\nchannel rot_x\n 0 1 0 0\n 9 2 0 0\n";
	struct anim before;
	decode_ok(PACK, sizeof PACK, CLIP_NONE, &before);
	long live = faults_live;
	for (int what = 0; what < 4; what++)
		for (long k = 0;; k++) {
			struct anim a, shaped = {0};
			struct mh_diag d = {0};
			struct clip c = bare_clip(4);
			decode_ok(PACK, sizeof PACK, CLIP_NONE, &a);
			/* Clips allocated exactly, so a new one reallocates. */
			assert_int_equal(anim_compact(&a, &d), MH_OK);
			assert_int_equal(a.cap, a.nclips);
			enum mh_err err;
			faults_arm(k);
			switch (what) {
			case 0:
				err = anim_slot_put(&a, 0, 2, &c, &d);
				break;
			case 1:
				err = anim_slot_write(&a, 0, 1, ANIM_SLOT_TEXT,
						      (const uint8_t *)TEXT, strlen(TEXT), &d);
				break;
			case 2:
				err = anim_slot_write(&a, 0, 2, ANIM_SLOT_BYTES, PACK + 0x28,
						      0x34, &d);
				break;
			default:
				err = anim_reshape(&a, PACK_TEXT, strlen(PACK_TEXT), &shaped, &d);
				break;
			}
			bool fired = faults_disarm();
			if (what == 3 && !err)
				assert_true(anim_equal(&shaped, &before));
			else if (err)
				assert_true(anim_equal(&a, &before));
			if (err && what == 3)
				assert_int_equal(shaped.nstreams, 0);
			anim_free(&shaped);
			anim_free(&a);
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				assert_true(k > 0);
				break;
			}
			if (err != MH_ENOMEM)
				fail_msg("edit %d, allocation %ld failed: %s (%s)", what, k,
					 mh_strerror(err), d.msg);
		}
	anim_free(&before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_fields),
		cmocka_unit_test(test_print_shape_golden),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_every_prefix_and_byte_change),
		cmocka_unit_test(test_tigrex_shaped_pack),
		cmocka_unit_test(test_p3rd_shaped_pack),
		cmocka_unit_test(test_packs_without_clips),
		cmocka_unit_test(test_builders_and_encode_errors),
		cmocka_unit_test(test_parse_shape_errors),
		cmocka_unit_test(test_parse_shape_liberal),
		cmocka_unit_test(test_random_packs_roundtrip),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_clip_offsets_are_encodes),
		cmocka_unit_test(test_slot_put_copies_on_write),
		cmocka_unit_test(test_slot_empty_and_share),
		cmocka_unit_test(test_slot_write_from_files),
		cmocka_unit_test(test_reshape),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_edit_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
