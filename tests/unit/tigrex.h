/* SPDX-License-Identifier: MIT */
/* A Tigrex-shaped skeleton and animation pack, and clips of rest tracks,
 * built with the public builders: clean models that tests/unit/test_rules.c
 * breaks rule by rule and tests/unit/test_text_lines.c prints to find their
 * elements in.  Allocation failures fail the test (cmocka). */
#ifndef MH_TEST_TIGREX_H
#define MH_TEST_TIGREX_H

#include "anim.h"
#include "clip.h"
#include "skeleton.h"
#include "testlib.h"

#define TIGREX_BONES 48
#define TIGREX_ANIMATED 45

/* The Tigrex's shape: a body of 31 joints (a spine 0..8, limbs hanging
 * off bone 4), the head 31..39 off spine joint 8 (a jaw branch at 36),
 * the tail 40..44 off joint 2, and the severed tail 45..47, a second
 * root chain past the animated joints.  Parts 0*31, 1*9, 2*5, 3*3.
 * nbones > 48 adds part-3 bones to the severed tail. */
static inline void tigrex_skeleton(struct skeleton *s, uint32_t nbones)
{
	assert_int_equal(skeleton_init(s, SKELETON_MHFU, nbones, NULL), MH_OK);
	for (uint32_t i = 0; i < nbones; i++) {
		struct skeleton_bone *b = &s->bones[i];
		int32_t p = (int32_t)i - 1;
		if (i >= 9 && i <= 30 && i % 4 == 1)
			p = 4;
		if (i == 31)
			p = 8;
		if (i == 36)
			p = 32;
		if (i == 40)
			p = 2;
		if (i == 0 || i == 45)
			p = -1;
		b->parent = p;
		b->part = i < 31 ? 0 : i < 40 ? 1 : i < 45 ? 2 : 3;
		b->position[1] = 10.0f;
	}
	skeleton_link(s, true);
	const uint32_t params[2] = {0, TIGREX_ANIMATED};
	skeleton_set_params(s, 2, params);
}

/* Adds a track of rot_x, rot_y, rot_z keyed at frames 0 and 30. */
static inline void add_rest_track(struct clip *c)
{
	int16_t value = (int16_t)(10 * c->ntracks);
	struct clip_track *tr = clip_add_track(c, 0);
	assert_non_null(tr);
	for (uint32_t bit = CLIP_ROT_X; bit <= CLIP_ROT_Z; bit <<= 1) {
		struct clip_channel *ch = clip_add_channel(tr, bit);
		assert_non_null(ch);
		assert_non_null(clip_add_key(ch, (struct clip_key){0}));
		assert_non_null(clip_add_key(ch, (struct clip_key){
			.frame = 30, .value = value}));
	}
}

/* A clip of n such tracks. */
static inline void rest_clip(struct clip *c, uint32_t n)
{
	*c = (struct clip){0};
	for (uint32_t t = 0; t < n; t++)
		add_rest_track(c);
}

/* Takes every channel out of a track, and its mask with them. */
static inline void empty_track(struct clip_track *t)
{
	for (uint32_t j = 0; j < t->nchannels; j++)
		free(t->channels[j].keys);
	free(t->channels);
	*t = (struct clip_track){0};
}

static inline void drop_last_track(struct clip *c)
{
	empty_track(&c->tracks[c->ntracks - 1]);
	c->ntracks--;
}

/* 6 streams of 100 and 105 slots; the even streams' slots 0..5 filled
 * with clips of their part (slot 2 sharing slot 0), and stream 1's slot
 * 100 (entry 100 of part 0). */
static inline void tigrex_pack(struct anim *a)
{
	static const uint32_t SLOTS[6] = {100, 105, 100, 105, 100, 105};
	static const uint32_t PART_TRACKS[3] = {31, 9, 5};
	assert_int_equal(anim_init(a, CLIP_MHFU, 6, SLOTS, NULL), MH_OK);
	for (uint32_t s = 0; s < 6; s += 2)
		for (uint32_t i = 0; i < 6; i++) {
			struct clip c;
			rest_clip(&c, PART_TRACKS[s / 2]);
			int32_t k = anim_add_clip(a, &c);
			assert_true(k >= 0);
			assert_int_equal(anim_set_slot(a, s, i, k, NULL), MH_OK);
		}
	for (uint32_t s = 0; s < 6; s += 2)
		assert_int_equal(anim_set_slot(a, s, 2, a->streams[s].slots[0],
					       NULL), MH_OK);
	struct clip c;
	rest_clip(&c, 31);
	int32_t k = anim_add_clip(a, &c);
	assert_int_equal(anim_set_slot(a, 1, 100, k, NULL), MH_OK);
	assert_int_equal(anim_compact(a, NULL), MH_OK);
}

static inline struct clip *slot_clip(struct anim *a, uint32_t s, uint32_t i)
{
	int32_t k = a->streams[s].slots[i];
	assert_true(k >= 0 && (uint32_t)k < a->nclips);
	return &a->clips[k];
}

#endif
