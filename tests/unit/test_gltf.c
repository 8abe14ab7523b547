/* SPDX-License-Identifier: MIT */
/* Tests of codecs/gltf (model.glb): the GLB container (header, chunk
 * lengths and padding), its JSON read back (tests/unit/jsonread.h) for the
 * nodes, skin and animations, accessor bounds checked against the BIN
 * chunk's numbers, and the sampled motions against values worked out by
 * hand from the engine's rules (mhfu-clip(5) "ENTRIES": cubic Hermite with
 * ease slopes, held outside the keys; Euler Rz Ry Rx; rot 4096 = 90
 * degrees, loc 16 = 1.0).  The sample's Tigrex ($MHFU_SAMPLE) gives one
 * animation per listed entry over its 48 joints.  Bodies: PMOs from the
 * synthesizer (tests/gen/mkpmo.h) on the Tigrex-shaped rig (tigrex.h),
 * read back against what codecs/pmo decodes; one file goes through the
 * Khronos validator when npm's gltf-validator is installed. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "entries.h"
#include "faults.h"
#include "gltf.h"
#include "jsonread.h"
#include "mkpmo.h"
#include "pmo.h"
#include "png.h"
#include "records.h"
#include "testlib.h"
#include "tigrex.h"

#define PI_QUARTER 0.78539816339744830962 /* 45 degrees */

/* ---- reading a GLB back ------------------------------------------------- */

struct glb_read {
	struct json json;
	const uint8_t *bin;
	size_t bin_len;
};

/* Checks the container and parses its JSON; fails the test otherwise. */
static void glb_open(const uint8_t *b, size_t len, struct glb_read *g)
{
	assert_true(len >= 28);
	assert_int_equal(le32(b), GLTF_MAGIC);
	assert_int_equal(le32(b + 4), 2);
	assert_int_equal(le32(b + 8), len);
	assert_int_equal(len % 4, 0);
	uint32_t jlen = le32(b + 12);
	assert_int_equal(le32(b + 16), GLTF_CHUNK_JSON);
	assert_int_equal(jlen % 4, 0);
	assert_true(20 + (size_t)jlen + 8 <= len);
	const uint8_t *bin = b + 20 + jlen;
	assert_int_equal(le32(bin + 4), GLTF_CHUNK_BIN);
	g->bin_len = le32(bin);
	assert_int_equal(g->bin_len % 4, 0);
	assert_int_equal(20 + (size_t)jlen + 8 + g->bin_len, len);
	g->bin = bin + 8;
	/* The JSON chunk is padded with spaces, which JSON allows. */
	if (!json_parse((const char *)b + 20, jlen, &g->json))
		fail_msg("the JSON chunk does not parse: %.*s", (int)(jlen < 400 ? jlen : 400),
			 (const char *)b + 20);
	const struct json *buf = json_at(json_get(&g->json, "buffers"), 0);
	assert_non_null(buf);
	double byte_length = json_get(buf, "byteLength")->number;
	assert_true(byte_length <= g->bin_len && byte_length + 3 >= g->bin_len);
}

static size_t count_of(const struct glb_read *g, const char *key)
{
	const struct json *a = json_get(&g->json, key);
	return a ? a->n : 0;
}

static const struct json *accessor(const struct glb_read *g, size_t i)
{
	const struct json *a = json_at(json_get(&g->json, "accessors"), i);
	assert_non_null(a);
	return a;
}

static unsigned components(const struct json *acc)
{
	const char *type = json_get(acc, "type")->string;
	return !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC2") ? 2 : !strcmp(type, "VEC3") ? 3
	       : !strcmp(type, "VEC4") ? 4 : !strcmp(type, "MAT4") ? 16 : 0;
}

/* Whether accessor acc holds signed shorts normalized to [-1, 1]. */
static bool normalized_shorts(const struct json *acc)
{
	const struct json *norm = json_get(acc, "normalized");
	return (int)json_get(acc, "componentType")->number == 5122 && norm &&
	       norm->kind == JSON_BOOL && norm->number == 1;
}

/* Component c of element i of an accessor of floats, or of normalized
 * signed shorts (the rotations) read as the glTF spec says: max(v /
 * 32767, -1). */
static float float_at(const struct glb_read *g, size_t acc_index, size_t i, unsigned c)
{
	const struct json *acc = accessor(g, acc_index);
	bool shorts = normalized_shorts(acc);
	size_t width = shorts ? 2 : 4;
	if (!shorts)
		assert_int_equal((int)json_get(acc, "componentType")->number, 5126);
	unsigned comps = components(acc);
	assert_true(i < json_get(acc, "count")->number && c < comps);
	const struct json *view = json_at(json_get(&g->json, "bufferViews"),
					  (size_t)json_get(acc, "bufferView")->number);
	size_t off = (size_t)json_get(view, "byteOffset")->number + (i * comps + c) * width;
	assert_true(off + width <= (size_t)json_get(view, "byteOffset")->number +
					  (size_t)json_get(view, "byteLength")->number);
	assert_true(off + width <= g->bin_len);
	if (shorts) {
		float v = (float)(int16_t)le16(g->bin + off) / 32767;
		return v < -1 ? -1 : v;
	}
	uint32_t bits = le32(g->bin + off);
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

/* A normalized short's rounding: half its step. */
#define SHORT_ERROR (0.5 / 32767 + 1e-7)

/* The output accessor of animation `anim`'s channel on node `node`'s
 * `path`, -1 when it has none. */
static long channel_output(const struct glb_read *g, size_t anim, unsigned node,
			   const char *path)
{
	const struct json *a = json_at(json_get(&g->json, "animations"), anim);
	const struct json *channels = json_get(a, "channels");
	for (size_t i = 0; channels && i < channels->n; i++) {
		const struct json *t = json_get(&channels->items[i], "target");
		if ((unsigned)json_get(t, "node")->number != node ||
		    strcmp(json_get(t, "path")->string, path))
			continue;
		const struct json *s = json_at(json_get(a, "samplers"),
					       (size_t)json_get(&channels->items[i], "sampler")->number);
		return (long)json_get(s, "output")->number;
	}
	return -1;
}

/* Every accessor with min and max: they are its data's bounds, exactly. */
static void assert_bounds(const struct glb_read *g)
{
	for (size_t i = 0; i < count_of(g, "accessors"); i++) {
		const struct json *acc = accessor(g, i), *min = json_get(acc, "min"),
				  *max = json_get(acc, "max");
		if (!min)
			continue;
		unsigned comps = components(acc);
		size_t n = (size_t)json_get(acc, "count")->number;
		assert_int_equal(min->n, comps);
		assert_int_equal(max->n, comps);
		for (unsigned c = 0; c < comps; c++) {
			float lo = float_at(g, i, 0, c), hi = lo;
			for (size_t k = 1; k < n; k++) {
				float x = float_at(g, i, k, c);
				lo = x < lo ? x : lo;
				hi = x > hi ? x : hi;
			}
			assert_true((float)min->items[c].number == lo);
			assert_true((float)max->items[c].number == hi);
		}
	}
}

static void make_ok(const struct skeleton *s, const struct anim *a, uint8_t **out, size_t *len,
		    struct glb_read *g)
{
	struct mh_diag d = {0};
	if (gltf_model(s, a, out, len, &d) != MH_OK)
		fail_msg("gltf_model failed: %s", d.msg);
	glb_open(*out, *len, g);
}

static void glb_close(uint8_t *bytes, struct glb_read *g)
{
	json_free(&g->json);
	free(bytes);
}

/* ---- fixtures ------------------------------------------------------------- */

/*   0 (1,2,3) root        part 0
 *   `- 1 (+0,10,0)        part 0
 *      `- 2 (+0,0,10)     part 1
 *   3 (5,0,0) a second root, past the animated joints (3) */
static void small_rig(struct skeleton *s)
{
	static const float POS[4][3] = {{1, 2, 3}, {0, 10, 0}, {0, 0, 10}, {5, 0, 0}};
	static const int32_t PARENT[4] = {-1, 0, 1, -1};
	assert_int_equal(skeleton_init(s, SKELETON_MHFU, 4, NULL), MH_OK);
	for (uint32_t b = 0; b < 4; b++) {
		s->bones[b].parent = PARENT[b];
		memcpy(s->bones[b].position, POS[b], sizeof POS[b]);
		s->bones[b].part = b == 2 ? 1 : b == 3 ? 2 : 0;
	}
	skeleton_link(s, false);
	skeleton_set_params(s, 2, (const uint32_t[]){0, 3});
}

static void key(struct clip_channel *ch, int16_t frame, int16_t value, int16_t in, int16_t out)
{
	assert_non_null(clip_add_key(ch, (struct clip_key){.value = value, .frame = frame,
							   .ease_in = in, .ease_out = out}));
}

/* A clip of `tracks` tracks, each holding rot_x at 0 over frames 0..last. */
static void still_clip(struct clip *c, uint32_t tracks, int16_t last)
{
	*c = (struct clip){0};
	for (uint32_t t = 0; t < tracks; t++) {
		struct clip_channel *ch = clip_add_channel(clip_add_track(c, 0), CLIP_ROT_X);
		key(ch, 0, 0, 0, 0);
		key(ch, last, 0, 0, 0);
	}
}

static int32_t add(struct anim *a, struct clip *c)
{
	int32_t k = anim_add_clip(a, c);
	assert_true(k >= 0);
	return k;
}

/* An MHFU pack of two parts (4 streams): entry 0 plays part 0 (clip A:
 * joint 0 turns about Z from 0 to 90 degrees over frames 0..10, joint 1
 * moves in x with eased keys) and part 1 (a still clip to frame 20);
 * entry 5 plays part 1 only; entry 101 part 0's odd stream. */
static void small_pack(struct anim *a)
{
	static const uint32_t SLOTS[4] = {100, 105, 100, 105};
	assert_int_equal(anim_init(a, CLIP_MHFU, 4, SLOTS, NULL), MH_OK);
	struct clip c = {0};
	struct clip_channel *ch = clip_add_channel(clip_add_track(&c, 0), CLIP_ROT_Z);
	key(ch, 0, 0, 0, 0);
	key(ch, 10, 4096, 0, 0);
	/* Joint 1: loc_x 0 -> 0 over 0..10, ease_out 16 and ease_in 8: at
	 * frame 5 (s = 1/2, d = 5) 16*5/4 + 8*5*(1/4 - 1/2) = 10 units. */
	ch = clip_add_channel(clip_add_track(&c, 0), CLIP_LOC_X);
	key(ch, 0, 0, 0, 16);
	key(ch, 10, 0, 8, 0);
	assert_int_equal(anim_set_slot(a, 0, 0, add(a, &c), NULL), MH_OK);
	still_clip(&c, 1, 20);
	assert_int_equal(anim_set_slot(a, 2, 0, add(a, &c), NULL), MH_OK);
	still_clip(&c, 1, 3);
	assert_int_equal(anim_set_slot(a, 2, 5, add(a, &c), NULL), MH_OK);
	still_clip(&c, 2, 4);
	assert_int_equal(anim_set_slot(a, 1, 1, add(a, &c), NULL), MH_OK);
	assert_int_equal(anim_compact(a, NULL), MH_OK);
}

/* ---- tests -------------------------------------------------------------- */

static void container_and_rig(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	small_rig(&s);
	small_pack(&a);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, &a, &b, &len, &g);
	/* The bones, "rig" and "stand-in". */
	assert_int_equal(count_of(&g, "nodes"), 6);
	const struct json *nodes = json_get(&g.json, "nodes");
	assert_string_equal(json_get(&nodes->items[0], "name")->string, "joint 00");
	const struct json *t = json_get(&nodes->items[1], "translation");
	assert_true(t->items[0].number == 0 && t->items[1].number == 10 &&
		    t->items[2].number == 0);
	assert_null(json_get(&nodes->items[1], "rotation")); /* zero bind rotation */
	assert_int_equal(json_get(&nodes->items[1], "children")->n, 1);
	assert_int_equal(json_get(&nodes->items[1], "children")->items[0].number, 2);
	const struct json *roots = json_get(&nodes->items[4], "children");
	assert_string_equal(json_get(&nodes->items[4], "name")->string, "rig");
	assert_true(roots->n == 2 && roots->items[0].number == 0 && roots->items[1].number == 3);
	assert_int_equal(json_get(&nodes->items[5], "skin")->number, 0);
	const struct json *scene = json_at(json_get(&g.json, "scenes"), 0);
	assert_int_equal(json_get(scene, "nodes")->n, 2);
	/* Every bone a joint; bone 2's inverse bind moves (1,12,13) home. */
	const struct json *skin = json_at(json_get(&g.json, "skins"), 0);
	assert_int_equal(json_get(skin, "joints")->n, 4);
	size_t ibm = (size_t)json_get(skin, "inverseBindMatrices")->number;
	assert_true(float_at(&g, ibm, 2, 12) == -1 && float_at(&g, ibm, 2, 13) == -12 &&
		    float_at(&g, ibm, 2, 14) == -13 && float_at(&g, ibm, 2, 15) == 1 &&
		    float_at(&g, ibm, 2, 0) == 1 && float_at(&g, ibm, 2, 3) == 0);
	assert_int_equal(count_of(&g, "meshes"), 1);
	assert_bounds(&g);
	glb_close(b, &g);
	skeleton_free(&s);
	anim_free(&a);
}

static void one_animation_per_entry(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	small_rig(&s);
	small_pack(&a);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, &a, &b, &len, &g);
	const struct json *anims = json_get(&g.json, "animations");
	assert_int_equal(anims->n, 3);
	assert_string_equal(json_get(&anims->items[0], "name")->string, "entry 000");
	assert_string_equal(json_get(&anims->items[1], "name")->string, "entry 005");
	assert_string_equal(json_get(&anims->items[2], "name")->string, "entry 101");
	/* Entry 0: joints 0 and 1 (part 0) and 2 (part 1) turn; joint 1 also
	 * moves; joint 3 (not animated) has no channel.  21 samples: part
	 * 1's clip runs to frame 20, at GLTF_FPS. */
	assert_true(channel_output(&g, 0, 0, "rotation") >= 0);
	assert_true(channel_output(&g, 0, 2, "rotation") >= 0);
	assert_int_equal(channel_output(&g, 0, 0, "translation"), -1);
	assert_true(channel_output(&g, 0, 1, "translation") >= 0);
	assert_int_equal(channel_output(&g, 0, 3, "rotation"), -1);
	const struct json *sampler = json_at(json_get(&anims->items[0], "samplers"), 0);
	size_t time = (size_t)json_get(sampler, "input")->number;
	assert_int_equal(json_get(accessor(&g, time), "count")->number, 21);
	assert_true(float_at(&g, time, 20, 0) == gltf_frame_time(20));
	/* every time is the least float not before its frame's: a reader
	 * multiplying by 30 and truncating gets the frame back */
	for (uint32_t f = 0; f <= 20; f++) {
		float t = float_at(&g, time, f, 0);
		assert_true((double)t * GLTF_FPS >= f);
		assert_true((double)nextafterf(t, 0) * GLTF_FPS < f || f == 0);
	}
	assert_string_equal(json_get(sampler, "interpolation")->string, "LINEAR");
	/* Entry 5: part 1 alone, part 0 keeps its clip (no channel). */
	assert_int_equal(json_get(&anims->items[1], "channels")->n, 1);
	assert_true(channel_output(&g, 1, 2, "rotation") >= 0);
	/* Entry 101: part 0's odd stream, two tracks on joints 0 and 1. */
	assert_int_equal(json_get(&anims->items[2], "channels")->n, 2);
	assert_bounds(&g);
	glb_close(b, &g);
	skeleton_free(&s);
	anim_free(&a);
}

static void sampled_as_the_engine_plays(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	small_rig(&s);
	small_pack(&a);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, &a, &b, &len, &g);
	long rot = channel_output(&g, 0, 0, "rotation");
	/* Rotations as normalized shorts, each within half a step of the
	 * exact quaternion.  Frame 5 of 0 -> 4096 without eases: 2048, 45
	 * degrees about Z. */
	assert_true(normalized_shorts(accessor(&g, (size_t)rot)));
	double h = sin(PI_QUARTER / 2);
	assert_float_equal(float_at(&g, (size_t)rot, 5, 2), h, SHORT_ERROR);
	assert_float_equal(float_at(&g, (size_t)rot, 5, 3), cos(PI_QUARTER / 2), SHORT_ERROR);
	assert_true(float_at(&g, (size_t)rot, 5, 0) == 0);
	/* Held after the last key (frame 10) while part 1 runs to 20: 90. */
	assert_float_equal(float_at(&g, (size_t)rot, 15, 2), sin(PI_QUARTER), SHORT_ERROR);
	assert_float_equal(float_at(&g, (size_t)rot, 20, 3), cos(PI_QUARTER), SHORT_ERROR);
	/* The eases: 10 raw units = 0.625 at frame 5; y and z keep the bind
	 * offset (0, 10, 0). */
	long loc = channel_output(&g, 0, 1, "translation");
	assert_float_equal(float_at(&g, (size_t)loc, 5, 0), 0.625, 1e-6);
	assert_float_equal(float_at(&g, (size_t)loc, 0, 0), 0, 1e-9);
	assert_float_equal(float_at(&g, (size_t)loc, 5, 1), 10, 1e-9);
	assert_float_equal(float_at(&g, (size_t)loc, 5, 2), 0, 1e-9);
	glb_close(b, &g);
	skeleton_free(&s);
	anim_free(&a);
}

/* v rotated by the unit quaternion q (x y z w). */
static void rotate(const float q[4], const double v[3], double out[3])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	/* t = 2 (q.xyz x v); out = v + w t + q.xyz x t */
	double t[3] = {2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]),
		       2 * (x * v[1] - y * v[0])};
	out[0] = v[0] + w * t[0] + (y * t[2] - z * t[1]);
	out[1] = v[1] + w * t[1] + (z * t[0] - x * t[2]);
	out[2] = v[2] + w * t[2] + (x * t[1] - y * t[0]);
}

static void euler_order_is_rz_ry_rx(void **state)
{
	(void)state;
	/* 90 degrees about X and about Y: Ry Rx takes +Y to +Z, then to +X
	 * (the other order, Rx Ry, would give +Z). */
	struct skeleton s;
	struct anim a;
	small_rig(&s);
	assert_int_equal(anim_init(&a, CLIP_MHFU, 2, (const uint32_t[]){100, 100}, NULL), MH_OK);
	struct clip c = {0};
	struct clip_track *t = clip_add_track(&c, 0);
	key(clip_add_channel(t, CLIP_ROT_X), 0, 4096, 0, 0);
	key(clip_add_channel(t, CLIP_ROT_Y), 0, 4096, 0, 0);
	assert_int_equal(anim_set_slot(&a, 0, 0, add(&a, &c), NULL), MH_OK);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, &a, &b, &len, &g);
	long rot = channel_output(&g, 0, 0, "rotation");
	float q[4];
	for (unsigned i = 0; i < 4; i++)
		q[i] = float_at(&g, (size_t)rot, 0, i);
	assert_float_equal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1,
			   8 * SHORT_ERROR);
	double out[3];
	rotate(q, (const double[]){0, 1, 0}, out);
	assert_float_equal(out[0], 1, 8 * SHORT_ERROR);
	assert_float_equal(out[1], 0, 8 * SHORT_ERROR);
	assert_float_equal(out[2], 0, 8 * SHORT_ERROR);
	/* A bind rotation shows on its node, as the same quaternion. */
	glb_close(b, &g);
	s.bones[1].rotation[0] = s.bones[1].rotation[1] = (float)(2 * PI_QUARTER);
	make_ok(&s, NULL, &b, &len, &g);
	const struct json *r = json_get(json_at(json_get(&g.json, "nodes"), 1), "rotation");
	assert_non_null(r);
	for (unsigned i = 0; i < 4; i++)
		q[i] = (float)r->items[i].number;
	rotate(q, (const double[]){0, 1, 0}, out);
	assert_float_equal(out[0], 1, 1e-6);
	assert_int_equal(count_of(&g, "animations"), 0);
	glb_close(b, &g);
	skeleton_free(&s);
	anim_free(&a);
}

static void mhp3rd_slots_on_the_first_bones(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	small_rig(&s);
	s.game = SKELETON_MHP3RD;
	memcpy(s.bones[1].rest, "AL-00", 6);
	assert_int_equal(anim_init(&a, CLIP_P3RD, 2, (const uint32_t[]){3, 2}, NULL), MH_OK);
	struct clip c;
	still_clip(&c, 4, 6);
	int32_t k = add(&a, &c);
	assert_int_equal(anim_set_slot(&a, 0, 2, k, NULL), MH_OK);
	assert_int_equal(anim_set_slot(&a, 1, 1, k, NULL), MH_OK);
	assert_int_equal(anim_compact(&a, NULL), MH_OK);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, &a, &b, &len, &g);
	const struct json *anims = json_get(&g.json, "animations");
	assert_int_equal(anims->n, 2);
	assert_string_equal(json_get(&anims->items[0], "name")->string, "stream 0 slot 002");
	assert_string_equal(json_get(&anims->items[1], "name")->string, "stream 1 slot 001");
	/* Track i on bone i, every bone (no part split). */
	assert_int_equal(json_get(&anims->items[0], "channels")->n, 4);
	assert_true(channel_output(&g, 0, 3, "rotation") >= 0);
	assert_string_equal(json_get(json_at(json_get(&g.json, "nodes"), 1), "name")->string,
			    "joint 01 AL-00");
	glb_close(b, &g);
	skeleton_free(&s);
	anim_free(&a);
}

/* With a record map, MHP3rd track i plays on the bone the map gives it
 * (mhfu-clip(5) "RECORD MAPS"): skipping bone 1 puts tracks 0, 1, 2 on
 * bones 0, 2, 3, and bone 1 stays at rest. */
static void mhp3rd_tracks_follow_the_record_map(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct records map;
	small_rig(&s);
	s.game = SKELETON_MHP3RD;
	assert_int_equal(anim_init(&a, CLIP_P3RD, 1, (const uint32_t[]){1}, NULL), MH_OK);
	struct clip c;
	still_clip(&c, 3, 6);
	assert_int_equal(anim_set_slot(&a, 0, 0, add(&a, &c), NULL), MH_OK);
	assert_int_equal(records_init(&map, &s, &a, RECORDS_NO_MONSTER, NULL), MH_OK);
	uint32_t skip[] = {1};
	struct records_setting set = {.skip_set = true, .nskip = 1, .skip = skip};
	assert_int_equal(records_override(&map, &set, NULL), MH_OK);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	struct mh_diag d = {0};
	assert_int_equal(gltf_model_mapped(&s, &a, &map, &b, &len, &d), MH_OK);
	glb_open(b, len, &g);
	assert_int_equal(json_get(json_at(json_get(&g.json, "animations"), 0), "channels")->n, 3);
	assert_true(channel_output(&g, 0, 0, "rotation") >= 0);
	assert_int_equal(channel_output(&g, 0, 1, "rotation"), -1);
	assert_true(channel_output(&g, 0, 2, "rotation") >= 0);
	assert_true(channel_output(&g, 0, 3, "rotation") >= 0);
	glb_close(b, &g);
	/* A map of no rig places nothing: the animation is left out. */
	records_free(&map);
	assert_int_equal(records_init(&map, NULL, &a, RECORDS_NO_MONSTER, NULL), MH_OK);
	assert_int_equal(gltf_model_mapped(&s, &a, &map, &b, &len, &d), MH_OK);
	glb_open(b, len, &g);
	assert_int_equal(count_of(&g, "animations"), 0);
	glb_close(b, &g);
	records_free(&map);
	skeleton_free(&s);
	anim_free(&a);
}

static void broken_rigs_still_make_a_valid_file(void **state)
{
	(void)state;
	struct skeleton s;
	small_rig(&s);
	/* 0 -> 1 -> 0 loops; 3's parent is outside the skeleton. */
	s.bones[0].parent = 1;
	s.bones[3].parent = 77;
	s.bones[2].position[0] = NAN;
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, NULL, &b, &len, &g);
	const struct json *nodes = json_get(&g.json, "nodes");
	/* Every bone is reached from "rig" exactly once. */
	int parents[4] = {0, 0, 0, 0};
	for (size_t i = 0; i < 5; i++) {
		const struct json *ch = json_get(&nodes->items[i], "children");
		for (size_t k = 0; ch && k < ch->n; k++)
			parents[(int)ch->items[k].number]++;
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(parents[i], 1);
	assert_true(json_get(&nodes->items[2], "translation")->items[0].number == 0);
	assert_bounds(&g);
	glb_close(b, &g);
	s.nbones = 0;
	struct mh_diag d = {0};
	assert_int_equal(gltf_model(&s, NULL, &b, &len, &d), MH_ERANGE);
	assert_non_null(strstr(d.msg, "no bone"));
	s.nbones = 4;
	skeleton_free(&s);
}

static void too_big_is_refused_before_it_is_made(void **state)
{
	(void)state;
	/* 500 joints turning and moving over 32768 frames, 20 bytes a joint
	 * a frame: over GLTF_MAX_BYTES. */
	struct skeleton s;
	struct anim a;
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, 500, NULL), MH_OK);
	assert_int_equal(anim_init(&a, CLIP_MHFU, 2, (const uint32_t[]){100, 100}, NULL), MH_OK);
	struct clip c = {0};
	for (int t = 0; t < 500; t++) {
		struct clip_track *tr = clip_add_track(&c, 0);
		key(clip_add_channel(tr, CLIP_ROT_X), 32767, 1, 0, 0);
		key(clip_add_channel(tr, CLIP_LOC_X), 0, 1, 0, 0);
	}
	assert_int_equal(anim_set_slot(&a, 0, 7, add(&a, &c), NULL), MH_OK);
	uint8_t *b = (uint8_t *)"unset";
	size_t len = 1;
	struct mh_diag d = {0};
	assert_int_equal(gltf_model(&s, &a, &b, &len, &d), MH_ERANGE);
	assert_null(b);
	assert_int_equal(len, 0);
	assert_non_null(strstr(d.msg, "model.glb would take"));
	skeleton_free(&s);
	anim_free(&a);
}

static void deterministic_and_clean_under_allocation_failures(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	small_rig(&s);
	small_pack(&a);
	uint8_t *b1, *b2;
	size_t l1, l2;
	struct mh_diag d = {0};
	assert_int_equal(gltf_model(&s, &a, &b1, &l1, &d), MH_OK);
	assert_int_equal(gltf_model(&s, &a, &b2, &l2, &d), MH_OK);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b1);
	free(b2);
	if (!FAULTS_AVAILABLE) {
		skeleton_free(&s);
		anim_free(&a);
		skip();
	}
	long live = faults_live;
	for (long k = 0;; k++) {
		uint8_t *out = NULL;
		size_t len = 0;
		faults_arm(k);
		enum mh_err err = gltf_model(&s, &a, &out, &len, &d);
		bool fired = faults_disarm();
		free(out);
		assert_int_equal(faults_live, live);
		if (!fired) {
			assert_int_equal(err, MH_OK);
			break;
		}
		assert_int_equal(err, MH_ENOMEM);
		assert_null(out);
	}
	skeleton_free(&s);
	anim_free(&a);
}

/* ---- the sample's Tigrex ---------------------------------------------- */

static void sample_tigrex(void **state)
{
	(void)state;
	const char *dir = getenv("MHFU_SAMPLE");
	if (!dir || !*dir)
		fail_msg("MHFU_SAMPLE is not set: point it at a directory made by "
			 "`build/mkarchive --seed 1 --out DIR/DATA.BIN --extract DIR/src` "
			 "(`make units` does)");
	char path[4200], why[4400];
	struct file_bytes sb, ab;
	snprintf(path, sizeof path, "%s/src/file_06185/0.skeleton", dir);
	if (!read_whole_file(path, &sb, why, sizeof why))
		fail_msg("%s", why);
	snprintf(path, sizeof path, "%s/src/file_06185/3.anim", dir);
	if (!read_whole_file(path, &ab, why, sizeof why))
		fail_msg("%s", why);
	struct skeleton s;
	struct anim a;
	struct mh_diag d = {0};
	assert_int_equal(skeleton_decode(sb.p, sb.len, &s, &d), MH_OK);
	assert_int_equal(anim_decode(ab.p, ab.len, CLIP_NONE, &a, &d), MH_OK);
	uint32_t listed = 0;
	for (uint32_t e = 0; e < ENTRIES_MAX; e++)
		listed += entries_listed(&a, e);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, &a, &b, &len, &g);
	const struct json *skin = json_at(json_get(&g.json, "skins"), 0);
	assert_int_equal(json_get(skin, "joints")->n, 48);
	assert_int_equal(count_of(&g, "animations"), listed);
	assert_true(listed > 0);
	glb_close(b, &g);
	skeleton_free(&s);
	anim_free(&a);
	free(sb.p);
	free(ab.p);
}

/* ---- bodies: the PMO as the mesh ------------------------------------------ */

/* The PMO the synthesizer makes from seed and shape, decoded. */
static void body_pmo(uint64_t seed, const struct mkpmo_shape *sh, struct pmo *p)
{
	struct mkpmo m;
	struct mh_diag d = {0};
	mkpmo_build(seed, sh, &m);
	if (pmo_decode(m.pmo, m.len, m.companion, m.companion_len, p, &d) != MH_OK)
		fail_msg("pmo_decode: %s", d.msg);
	mkpmo_free(&m);
}

#define BANK 6    /* the synthesizer's texture indices: 0-5, or 0xFF */
#define NO_PNG 3  /* the bank's image left without a PNG */

/* A bank of 2x2 PNGs, each its own colour, image NO_PNG missing. */
struct bank {
	uint8_t *png[BANK];
	size_t len[BANK];
};

static void bank_init(struct bank *b)
{
	struct mh_diag d = {0};
	for (unsigned k = 0; k < BANK; k++) {
		b->png[k] = NULL;
		b->len[k] = 0;
		if (k == NO_PNG)
			continue;
		struct png_image img;
		assert_int_equal(png_image_init(&img, 2, 2, 0, &d), MH_OK);
		for (unsigned i = 0; i < 16; i++)
			img.pixels[i] = (uint8_t)(40 * k + i);
		assert_int_equal(png_encode(&img, &b->png[k], &b->len[k], &d), MH_OK);
		png_free(&img);
	}
}

static void bank_free(struct bank *b)
{
	for (unsigned k = 0; k < BANK; k++)
		free(b->png[k]);
}

static struct gltf_body body_of(const struct pmo *p, const struct bank *b)
{
	return (struct gltf_body){.pmo = p, .png = b ? (const uint8_t *const *)b->png : NULL,
				  .png_len = b ? b->len : NULL, .images = b ? BANK : 0};
}

static void make_with(const struct skeleton *s, const struct anim *a,
		      const struct gltf_body *bodies, size_t n, uint8_t **out, size_t *len,
		      struct glb_read *g)
{
	struct mh_diag d = {0};
	if (gltf_model_with(s, a, NULL, bodies, n, out, len, &d) != MH_OK)
		fail_msg("gltf_model_with failed: %s", d.msg);
	glb_open(*out, *len, g);
}

/* Component c of element i of an accessor of unsigned integers. */
static uint32_t uint_at(const struct glb_read *g, size_t acc_index, size_t i, unsigned c)
{
	const struct json *acc = accessor(g, acc_index);
	int type = (int)json_get(acc, "componentType")->number;
	size_t width = type == 5121 ? 1 : type == 5123 ? 2 : 4;
	assert_true(type == 5121 || type == 5123 || type == 5125);
	unsigned comps = components(acc);
	assert_true(i < json_get(acc, "count")->number && c < comps);
	const struct json *view = json_at(json_get(&g->json, "bufferViews"),
					  (size_t)json_get(acc, "bufferView")->number);
	size_t off = (size_t)json_get(view, "byteOffset")->number + (i * comps + c) * width;
	assert_true(off + width <= g->bin_len);
	return width == 1 ? g->bin[off] : width == 2 ? le16(g->bin + off) : le32(g->bin + off);
}

/* The accessor of attribute `name` of a primitive, -1 without one. */
static long attribute(const struct json *prim, const char *name)
{
	const struct json *a = json_get(json_get(prim, "attributes"), name);
	return a ? (long)a->number : -1;
}

static size_t accessor_count(const struct glb_read *g, long acc)
{
	return (size_t)json_get(accessor(g, (size_t)acc), "count")->number;
}

/* The node named `name`, or NULL. */
static const struct json *node_named(const struct glb_read *g, const char *name)
{
	const struct json *nodes = json_get(&g->json, "nodes");
	for (size_t i = 0; i < nodes->n; i++) {
		const struct json *n = json_get(&nodes->items[i], "name");
		if (n && !strcmp(n->string, name))
			return &nodes->items[i];
	}
	return NULL;
}

/* Primitive prim is group gi of p: its vertices in PMO order (positions
 * exactly as decoded, unit normals, the attributes the vertex type has),
 * its triangles pmo_group_triangles's. */
static void assert_group(const struct glb_read *g, const struct json *prim, const struct pmo *p,
			 uint32_t gi, bool images, const uint32_t (*tris)[3], size_t ntris)
{
	const struct pmo_group *grp = &p->groups[gi];
	assert_int_equal((int)json_get(json_get(prim, "extras"), "pmo_group")->number, gi);
	assert_int_equal((int)json_get(prim, "mode")->number, 4);
	long pos = attribute(prim, "POSITION"), nrm = attribute(prim, "NORMAL");
	assert_int_equal(accessor_count(g, pos), grp->vertex_count);
	for (uint32_t v = 0; v < grp->vertex_count; v++)
		for (unsigned c = 0; c < 3; c++)
			assert_true(float_at(g, (size_t)pos, v, c) == grp->vertices[v].pos[c]);
	assert_int_equal(nrm >= 0, grp->vtype.normal != 0);
	for (uint32_t v = 0; nrm >= 0 && v < grp->vertex_count; v++) {
		double l = 0;
		for (unsigned c = 0; c < 3; c++) {
			double x = float_at(g, (size_t)nrm, v, c);
			l += x * x;
		}
		assert_true(fabs(l - 1) < 1e-5);
	}
	/* UVs where the type has them, or the material binds a texture. */
	int m = pmo_group_material(p, gi);
	unsigned t = m >= 0 ? p->materials[m].texture : 0xFF;
	bool textured = images && t < BANK && t != NO_PNG;
	assert_int_equal(attribute(prim, "TEXCOORD_0") >= 0, grp->vtype.uv || textured);
	assert_int_equal(attribute(prim, "COLOR_0") >= 0, grp->vtype.color != 0);
	size_t idx = (size_t)json_get(prim, "indices")->number;
	assert_int_equal(accessor_count(g, (long)idx), ntris * 3);
	for (size_t t = 0; t < ntris; t++)
		for (unsigned k = 0; k < 3; k++)
			assert_int_equal(uint_at(g, idx, t * 3 + k, 0), tris[t][k]);
	const struct json *mat = json_get(prim, "material");
	assert_int_equal(mat ? (int)mat->number : -1, m);
}

/* Mesh `mesh` holds one primitive per group of p that draws a triangle,
 * in group order; `images`: made with the test's bank. */
static void assert_body(const struct glb_read *g, size_t mesh, const struct pmo *p, bool images)
{
	const struct json *prims =
		json_get(json_at(json_get(&g->json, "meshes"), mesh), "primitives");
	size_t k = 0;
	for (uint32_t gi = 0; gi < p->group_count; gi++) {
		uint32_t(*tris)[3];
		size_t ntris;
		struct mh_diag d = {0};
		assert_int_equal(pmo_group_triangles(p, gi, &tris, &ntris, &d), MH_OK);
		if (ntris) {
			assert_true(k < prims->n);
			assert_group(g, &prims->items[k++], p, gi, images,
				     (const uint32_t(*)[3])tris, ntris);
		}
		free(tris);
	}
	assert_int_equal(k, prims->n);
}

static void body_primitives_follow_the_pmo(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct bank bank;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	bank_init(&bank);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_ok(&s, &a, &b, &len, &g);
	size_t animations = count_of(&g, "animations");
	assert_true(animations > 0);
	glb_close(b, &g);
	for (int v = 0; v < 4; v++) {
		struct mkpmo_shape sh;
		mkpmo_monster(v & 1, v == 3, &sh);
		if (v == 2)
			sh = (struct mkpmo_shape){.meshes = 2, .groups_per_mesh = 5, .vertices = 9,
						  .skinned = true, .remap = true};
		struct pmo p;
		body_pmo(40 + (uint64_t)v, &sh, &p);
		struct gltf_body body = body_of(&p, &bank);
		make_with(&s, &a, &body, 1, &b, &len, &g);
		assert_int_equal(count_of(&g, "meshes"), 1);
		assert_body(&g, 0, &p, true);
		assert_null(node_named(&g, "stand-in"));
		const struct json *node = node_named(&g, "body");
		assert_non_null(node);
		assert_int_equal((int)json_get(node, "mesh")->number, 0);
		assert_int_equal((int)json_get(node, "skin")->number, 0);
		assert_int_equal(json_get(json_at(json_get(&g.json, "skins"), 0), "joints")->n,
				 TIGREX_BONES);
		assert_int_equal(count_of(&g, "animations"), animations);
		assert_bounds(&g);
		glb_close(b, &g);
		pmo_free(&p);
	}
	bank_free(&bank);
	skeleton_free(&s);
	anim_free(&a);
}

/* Vertex v's JOINTS_0 and WEIGHTS_0: at most 4 weights, summing to 1,
 * each on a bone of the rig the group's palette holds. */
static void assert_weights(const struct glb_read *g, const struct json *prim,
			   const struct pmo_group *grp, uint32_t v)
{
	long j = attribute(prim, "JOINTS_0"), w = attribute(prim, "WEIGHTS_0");
	assert_true(j >= 0 && w >= 0);
	double sum = 0;
	for (unsigned c = 0; c < 4; c++) {
		float x = float_at(g, (size_t)w, v, c);
		uint32_t bone = uint_at(g, (size_t)j, v, c);
		assert_true(x >= 0);
		sum += x;
		if (!(x > 0))
			continue;
		assert_true(bone < TIGREX_BONES);
		bool in_palette = false;
		for (unsigned k = 0; k < PMO_MAX_WEIGHTS; k++)
			in_palette |= grp->slot_bone[k] == (int16_t)bone;
		assert_true(in_palette);
	}
	assert_true(fabs(sum - 1) < 1e-6);
}

/* Material m as p has it: colour, both sides, blended as `blend`, the
 * bank's image named after its index when it has one. */
static void assert_material(const struct glb_read *g, const struct pmo *p, uint32_t m, bool blend,
			    const struct bank *bank)
{
	const struct json *mat = json_at(json_get(&g->json, "materials"), m);
	const struct json *pbr = json_get(mat, "pbrMetallicRoughness");
	const struct json *color = json_get(pbr, "baseColorFactor");
	for (unsigned i = 0; i < 4; i++)
		assert_true(fabs(color->items[i].number -
				 (p->materials[m].color >> (8 * i) & 0xFF) / 255.0) < 1e-6);
	assert_int_equal(json_get(mat, "doubleSided")->kind, JSON_BOOL);
	assert_true(json_get(mat, "doubleSided")->number == 1);
	const struct json *alpha = json_get(mat, "alphaMode");
	assert_int_equal(alpha != NULL, blend);
	if (alpha)
		assert_string_equal(alpha->string, "BLEND");
	const struct json *tex = json_get(pbr, "baseColorTexture");
	unsigned t = p->materials[m].texture;
	assert_int_equal(tex != NULL, t < BANK && t != NO_PNG);
	if (!tex)
		return;
	const struct json *texture =
		json_at(json_get(&g->json, "textures"), (size_t)json_get(tex, "index")->number);
	const struct json *image = json_at(json_get(&g->json, "images"),
					   (size_t)json_get(texture, "source")->number);
	char name[16];
	snprintf(name, sizeof name, "image%02u", t);
	assert_string_equal(json_get(image, "name")->string, name);
	assert_string_equal(json_get(image, "mimeType")->string, "image/png");
	const struct json *view = json_at(json_get(&g->json, "bufferViews"),
					  (size_t)json_get(image, "bufferView")->number);
	assert_int_equal((size_t)json_get(view, "byteLength")->number, bank->len[t]);
	assert_memory_equal(g->bin + (size_t)json_get(view, "byteOffset")->number, bank->png[t],
			    bank->len[t]);
}

static void body_weights_and_materials(void **state)
{
	(void)state;
	struct skeleton s;
	struct bank bank;
	struct mkpmo_shape sh;
	struct pmo p;
	tigrex_skeleton(&s, TIGREX_BONES);
	bank_init(&bank);
	mkpmo_monster(false, false, &sh);
	body_pmo(11, &sh, &p);
	/* Mesh 0 blends, the others do not. */
	for (uint32_t m = 0; m < p.h.mesh_count; m++)
		p.meshes[m].lighting = m ? p.meshes[m].lighting & ~4u : p.meshes[m].lighting | 4u;
	struct gltf_body body = body_of(&p, &bank);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_with(&s, NULL, &body, 1, &b, &len, &g);
	const struct json *prims = json_get(json_at(json_get(&g.json, "meshes"), 0), "primitives");
	bool blend[256] = {false};
	for (size_t k = 0; k < prims->n; k++) {
		uint32_t gi = (uint32_t)json_get(json_get(&prims->items[k], "extras"), "pmo_group")
				      ->number;
		const struct pmo_group *grp = &p.groups[gi];
		for (uint32_t v = 0; v < grp->vertex_count; v++)
			assert_weights(&g, &prims->items[k], grp, v);
		int m = pmo_group_material(&p, gi);
		if (m >= 0 && grp->mesh == 0)
			blend[m] = true;
	}
	assert_int_equal(count_of(&g, "materials"), p.h.material_count);
	for (uint32_t m = 0; m < p.h.material_count; m++)
		assert_material(&g, &p, m, blend[m], &bank);
	assert_int_equal(count_of(&g, "images"), BANK - 1);
	assert_int_equal(count_of(&g, "samplers"), 1);
	glb_close(b, &g);
	pmo_free(&p);
	bank_free(&bank);
	skeleton_free(&s);
}

static void unweighted_groups_ride_slot_0(void **state)
{
	(void)state;
	struct skeleton s;
	struct pmo p;
	tigrex_skeleton(&s, TIGREX_BONES);
	body_pmo(12, &(struct mkpmo_shape){.meshes = 2, .groups_per_mesh = 3, .vertices = 12,
					   .remap = true}, &p);
	for (uint32_t gi = 0; gi < p.group_count; gi++)
		p.groups[gi].slot_bone[0] = (int16_t)(7 + gi);
	struct gltf_body body = body_of(&p, NULL);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_with(&s, NULL, &body, 1, &b, &len, &g);
	const struct json *prims = json_get(json_at(json_get(&g.json, "meshes"), 0), "primitives");
	assert_true(prims->n > 0);
	for (size_t k = 0; k < prims->n; k++) {
		const struct json *prim = &prims->items[k];
		uint32_t gi = (uint32_t)json_get(json_get(prim, "extras"), "pmo_group")->number;
		long j = attribute(prim, "JOINTS_0"), w = attribute(prim, "WEIGHTS_0");
		for (uint32_t v = 0; v < p.groups[gi].vertex_count; v++) {
			assert_int_equal(uint_at(&g, (size_t)j, v, 0), 7 + gi);
			assert_true(float_at(&g, (size_t)w, v, 0) == 1);
			for (unsigned c = 1; c < 4; c++)
				assert_true(float_at(&g, (size_t)w, v, c) == 0);
		}
	}
	assert_int_equal(count_of(&g, "materials"), p.h.material_count);
	assert_int_equal(count_of(&g, "images"), 0);
	glb_close(b, &g);
	/* A slot on no bone of the rig: the body stays, unskinned. */
	p.groups[0].slot_bone[0] = TIGREX_BONES;
	make_with(&s, NULL, &body, 1, &b, &len, &g);
	assert_null(json_get(node_named(&g, "body"), "skin"));
	prims = json_get(json_at(json_get(&g.json, "meshes"), 0), "primitives");
	assert_int_equal(attribute(&prims->items[0], "JOINTS_0"), -1);
	assert_body(&g, 0, &p, false);
	glb_close(b, &g);
	pmo_free(&p);
	skeleton_free(&s);
}

static void static_body_without_skeleton(void **state)
{
	(void)state;
	struct pmo p;
	struct bank bank;
	bank_init(&bank);
	body_pmo(13, &(struct mkpmo_shape){.meshes = 3, .groups_per_mesh = 4, .vertices = 10,
					   .remap = true}, &p);
	struct gltf_body body = body_of(&p, &bank);
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_with(NULL, NULL, &body, 1, &b, &len, &g);
	assert_int_equal(count_of(&g, "skins"), 0);
	assert_int_equal(count_of(&g, "animations"), 0);
	assert_int_equal(count_of(&g, "nodes"), 1);
	const struct json *node = node_named(&g, "body");
	assert_null(json_get(node, "skin"));
	assert_int_equal(json_at(json_get(json_at(json_get(&g.json, "scenes"), 0), "nodes"), 0)
				 ->number, 0);
	assert_body(&g, 0, &p, true);
	const struct json *prims = json_get(json_at(json_get(&g.json, "meshes"), 0), "primitives");
	for (size_t k = 0; k < prims->n; k++)
		assert_int_equal(attribute(&prims->items[k], "WEIGHTS_0"), -1);
	assert_bounds(&g);
	glb_close(b, &g);
	/* Nothing to show: no skeleton and no body. */
	struct mh_diag d = {0};
	b = (uint8_t *)"unset";
	assert_int_equal(gltf_model_with(NULL, NULL, NULL, NULL, 0, &b, &len, &d), MH_ERANGE);
	assert_null(b);
	pmo_free(&p);
	bank_free(&bank);
}

static void dual_model_set(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct bank bank;
	struct pmo p[2];
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	bank_init(&bank);
	body_pmo(14, &(struct mkpmo_shape){.meshes = 2, .groups_per_mesh = 4, .vertices = 10,
					   .skinned = true, .remap = true}, &p[0]);
	body_pmo(15, &(struct mkpmo_shape){.p3rd = true, .meshes = 1, .groups_per_mesh = 6,
					   .vertices = 8, .skinned = true}, &p[1]);
	struct gltf_body bodies[2] = {body_of(&p[0], &bank), body_of(&p[1], NULL)};
	uint8_t *b;
	size_t len;
	struct glb_read g;
	make_with(&s, &a, bodies, 2, &b, &len, &g);
	assert_int_equal(count_of(&g, "meshes"), 2);
	for (size_t i = 0; i < 2; i++) {
		const struct json *mesh = json_at(json_get(&g.json, "meshes"), i);
		assert_int_equal((int)json_get(json_get(mesh, "extras"), "pmo")->number, (int)i);
	}
	assert_body(&g, 0, &p[0], true);
	/* The second body's materials follow the first's. */
	const struct json *prims = json_get(json_at(json_get(&g.json, "meshes"), 1), "primitives");
	for (size_t k = 0; k < prims->n; k++) {
		uint32_t gi = (uint32_t)json_get(json_get(&prims->items[k], "extras"), "pmo_group")
				      ->number;
		int m = pmo_group_material(&p[1], gi);
		if (m >= 0)
			assert_int_equal((int)json_get(&prims->items[k], "material")->number,
					 (int)p[0].h.material_count + m);
	}
	assert_int_equal(count_of(&g, "materials"), p[0].h.material_count + p[1].h.material_count);
	const struct json *second = node_named(&g, "body 1");
	assert_non_null(second);
	assert_int_equal((int)json_get(second, "mesh")->number, 1);
	assert_int_equal((int)json_get(second, "skin")->number, 0);
	const struct json *scene = json_get(json_at(json_get(&g.json, "scenes"), 0), "nodes");
	assert_int_equal(scene->n, 3);
	assert_int_equal((int)scene->items[2].number, TIGREX_BONES + 2);
	assert_bounds(&g);
	glb_close(b, &g);
	pmo_free(&p[0]);
	pmo_free(&p[1]);
	bank_free(&bank);
	skeleton_free(&s);
	anim_free(&a);
}

static void bodies_refused_before_too_big(void **state)
{
	(void)state;
	struct skeleton s;
	struct pmo p;
	tigrex_skeleton(&s, TIGREX_BONES);
	body_pmo(16, &(struct mkpmo_shape){.meshes = 1, .groups_per_mesh = 1, .vertices = 4,
					   .remap = true}, &p);
	/* An image claiming more than the file may hold: refused from its
	 * length, before a byte of it is read. */
	static const uint8_t one = 0;
	const uint8_t *png[1] = {&one};
	size_t png_len[1] = {(size_t)GLTF_MAX_BYTES + 1};
	struct gltf_body body = {.pmo = &p, .png = png, .png_len = png_len, .images = 1};
	uint8_t *b = (uint8_t *)"unset";
	size_t len = 1;
	struct mh_diag d = {0};
	assert_int_equal(gltf_model_with(&s, NULL, NULL, &body, 1, &b, &len, &d), MH_ERANGE);
	assert_null(b);
	assert_int_equal(len, 0);
	assert_non_null(strstr(d.msg, "model.glb would take"));
	pmo_free(&p);
	skeleton_free(&s);
}

static void bodies_clean_under_allocation_failures(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct bank bank;
	struct pmo p;
	small_rig(&s);
	small_pack(&a);
	bank_init(&bank);
	body_pmo(17, &(struct mkpmo_shape){.meshes = 2, .groups_per_mesh = 2, .vertices = 6,
					   .skinned = true, .remap = true}, &p);
	struct gltf_body body = body_of(&p, &bank);
	uint8_t *b1, *b2;
	size_t l1, l2;
	struct mh_diag d = {0};
	assert_int_equal(gltf_model_with(&s, &a, NULL, &body, 1, &b1, &l1, &d), MH_OK);
	assert_int_equal(gltf_model_with(&s, &a, NULL, &body, 1, &b2, &l2, &d), MH_OK);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b1);
	free(b2);
	long live = faults_live;
	for (long k = 0; FAULTS_AVAILABLE; k++) {
		uint8_t *out = NULL;
		size_t len = 0;
		faults_arm(k);
		enum mh_err err = gltf_model_with(&s, &a, NULL, &body, 1, &out, &len, &d);
		bool fired = faults_disarm();
		free(out);
		assert_int_equal(faults_live, live);
		if (!fired) {
			assert_int_equal(err, MH_OK);
			break;
		}
		assert_int_equal(err, MH_ENOMEM);
		assert_null(out);
	}
	pmo_free(&p);
	bank_free(&bank);
	skeleton_free(&s);
	anim_free(&a);
}

/* ---- the Khronos validator ---------------------------------------------- */

#define VALIDATE_JS "tests/mount/gltf_validate.js"
#define VALIDATOR_ENV "NODE_PATH=\"$(npm root -g 2>/dev/null)\" "

/* Whether node, npm's gltf-validator and the script are here. */
static bool validator_installed(void)
{
	FILE *f = fopen(VALIDATE_JS, "r");
	if (!f)
		return false;
	fclose(f);
	return system(VALIDATOR_ENV "node -e \"require('gltf-validator')\" >/dev/null 2>&1") == 0;
}

static void body_passes_the_khronos_validator(void **state)
{
	(void)state;
	if (!validator_installed()) {
		print_message("skipped: the Khronos glTF validator is not installed (node and "
			      "npm's gltf-validator: bash tests/deps.sh pictures), or "
			      VALIDATE_JS " is not under the current directory\n");
		skip();
	}
	struct skeleton s;
	struct anim a;
	struct bank bank;
	struct mkpmo_shape sh;
	struct pmo p;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	bank_init(&bank);
	mkpmo_monster(false, false, &sh);
	body_pmo(18, &sh, &p);
	p.meshes[0].lighting |= 4;
	struct gltf_body body = body_of(&p, &bank);
	uint8_t *b;
	size_t len;
	struct mh_diag d = {0};
	assert_int_equal(gltf_model_with(&s, &a, NULL, &body, 1, &b, &len, &d), MH_OK);
	char path[] = "/tmp/mhfu-gltf-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(b);
	char cmd[512], report[4096] = "";
	snprintf(cmd, sizeof cmd, VALIDATOR_ENV "node " VALIDATE_JS " %s 2>&1", path);
	FILE *out = popen(cmd, "r");
	assert_non_null(out);
	size_t got = fread(report, 1, sizeof report - 1, out);
	report[got] = '\0';
	int status = pclose(out);
	remove(path);
	print_message("gltf-validator: %.*s\n", (int)strcspn(report, "\n"), report);
	if (status != 0 || strncmp(report, "errors 0 ", 9))
		fail_msg("the validator finds errors:\n%s", report);
	pmo_free(&p);
	bank_free(&bank);
	skeleton_free(&s);
	anim_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(container_and_rig),
		cmocka_unit_test(one_animation_per_entry),
		cmocka_unit_test(sampled_as_the_engine_plays),
		cmocka_unit_test(euler_order_is_rz_ry_rx),
		cmocka_unit_test(mhp3rd_slots_on_the_first_bones),
		cmocka_unit_test(mhp3rd_tracks_follow_the_record_map),
		cmocka_unit_test(broken_rigs_still_make_a_valid_file),
		cmocka_unit_test(too_big_is_refused_before_it_is_made),
		cmocka_unit_test(deterministic_and_clean_under_allocation_failures),
		cmocka_unit_test(sample_tigrex),
		cmocka_unit_test(body_primitives_follow_the_pmo),
		cmocka_unit_test(body_weights_and_materials),
		cmocka_unit_test(unweighted_groups_ride_slot_0),
		cmocka_unit_test(static_body_without_skeleton),
		cmocka_unit_test(dual_model_set),
		cmocka_unit_test(bodies_refused_before_too_big),
		cmocka_unit_test(bodies_clean_under_allocation_failures),
		cmocka_unit_test(body_passes_the_khronos_validator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
