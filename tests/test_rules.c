/* Tests of codecs/rules (the engine rules) and the text locators
 * clip_text_line, skeleton_text_line and anim_text_line.
 *
 * A clean Tigrex-shaped skeleton and pack (built with the public
 * builders) report nothing; each rule is then broken on a copy and must be
 * reported with its code, level and the element's coordinates, and
 * nothing else.  The locators are checked on printed texts (every
 * element) and on hand-messed ones (exact lines). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clipgen.h"
#include "faults.h"
#include "rules.h"

/* ---- fixtures --------------------------------------------------------- */

#define TIGREX_BONES 48
#define TIGREX_ANIMATED 45

/* The Tigrex's shape: a body of 31 joints (a spine 0..8, limbs hanging
 * off bone 4), the head 31..39 off spine joint 8 (a jaw branch at 36),
 * the tail 40..44 off joint 2, and the severed tail 45..47, a second
 * root chain past the animated joints.  Parts 0*31, 1*9, 2*5, 3*3.
 * nbones > 48 adds part-3 bones to the severed tail. */
static void tigrex_skeleton(struct skeleton *s, uint32_t nbones)
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
static void add_rest_track(struct clip *c)
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
static void rest_clip(struct clip *c, uint32_t n)
{
	*c = (struct clip){0};
	for (uint32_t t = 0; t < n; t++)
		add_rest_track(c);
}

/* Takes every channel out of a track, and its mask with them. */
static void empty_track(struct clip_track *t)
{
	for (uint32_t j = 0; j < t->nchannels; j++)
		free(t->channels[j].keys);
	free(t->channels);
	*t = (struct clip_track){0};
}

static void drop_last_track(struct clip *c)
{
	empty_track(&c->tracks[c->ntracks - 1]);
	c->ntracks--;
}

static const uint32_t PART_TRACKS_OF[3] = {31, 9, 5};

/* 6 streams of 100 and 105 slots; the even streams' slots 0..5 filled
 * with clips of their part (slot 2 sharing slot 0), and stream 1's slot
 * 100 (entry 100 of part 0). */
static void tigrex_pack(struct anim *a)
{
	static const uint32_t SLOTS[6] = {100, 105, 100, 105, 100, 105};
	assert_int_equal(anim_init(a, CLIP_MHFU, 6, SLOTS, NULL), MH_OK);
	for (uint32_t s = 0; s < 6; s += 2)
		for (uint32_t i = 0; i < 6; i++) {
			struct clip c;
			rest_clip(&c, PART_TRACKS_OF[s / 2]);
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

static struct clip *slot_clip(struct anim *a, uint32_t s, uint32_t i)
{
	int32_t k = a->streams[s].slots[i];
	assert_true(k >= 0 && (uint32_t)k < a->nclips);
	return &a->clips[k];
}

/* ---- helpers ---------------------------------------------------------- */

/* The report holds exactly one violation, of `code`; returns it. */
static const struct rule_violation *only(const struct rule_report *r,
					 enum rule_code code)
{
	for (size_t i = 0; i < r->n; i++)
		print_message("  %s %s: %s\n", rules_table[r->v[i].code].name,
			      rule_level_name(r->v[i].level), r->v[i].msg);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->v[0].code, code);
	assert_int_equal(r->v[0].level, rules_table[code].level);
	assert_ptr_equal(r->v[0].fix, rules_table[code].fix);
	assert_false(r->v[0].existing);
	return &r->v[0];
}

static size_t count(const struct rule_report *r, enum rule_code code)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->v[i].code == code;
	return n;
}

static void assert_clip_at(const struct rule_violation *v, int stream,
			   int slot, int track, int channel, int key)
{
	assert_int_equal(v->bone, -1);
	assert_int_equal(v->stream, stream);
	assert_int_equal(v->slot, slot);
	assert_int_equal(v->track, track);
	assert_int_equal(v->channel, channel);
	assert_int_equal(v->key, key);
}

static void assert_bone_at(const struct rule_violation *v, int bone)
{
	assert_int_equal(v->bone, bone);
	assert_int_equal(v->stream, -1);
	assert_int_equal(v->slot, -1);
	assert_int_equal(v->track, -1);
	assert_int_equal(v->channel, -1);
	assert_int_equal(v->key, -1);
}

static void check_skeleton(const struct skeleton *s,
			   const struct skeleton *before, struct rule_report *r)
{
	*r = (struct rule_report){0};
	assert_int_equal(rules_check_skeleton(s, before, r), MH_OK);
}

static void check_clip(const struct clip *c, enum clip_format f, int joints,
		       int first, struct rule_report *r)
{
	*r = (struct rule_report){0};
	assert_int_equal(rules_check_clip(c, f, joints, first, r), MH_OK);
}

static void check_pack(const struct anim *a, const struct skeleton *rig,
		       struct rule_report *r)
{
	*r = (struct rule_report){0};
	assert_int_equal(rules_check_pack(a, rig, r), MH_OK);
}

/* ---- the table -------------------------------------------------------- */

static void test_table(void **state)
{
	(void)state;
	for (int i = 0; i < RULE_COUNT; i++) {
		const struct rule_info *ri = &rules_table[i];
		assert_int_equal(ri->code, i);
		assert_ptr_equal(rule_info((enum rule_code)i), ri);
		assert_ptr_equal(rule_by_name(ri->name), ri);
		assert_true(strlen(ri->summary) > 10 && strlen(ri->fix) > 10);
		for (const char *c = ri->name; *c; c++)
			assert_true((*c >= 'A' && *c <= 'Z') || *c == '_');
		bool anywhere = i == RULE_CLIP_NO_TRACKS ||
				i == RULE_CHANNEL_TWICE || i == RULE_KEY_FRAME ||
				i == RULE_VALUE_RANGE;
		assert_int_equal(ri->mhfu_only, !anywhere);
		assert_int_equal(ri->level, RULE_ERROR);
	}
	assert_null(rule_by_name("parent_order"));
	assert_null(rule_info(RULE_COUNT));
	assert_string_equal(rule_level_name(RULE_ERROR), "error");
	assert_string_equal(rule_level_name(RULE_WARNING), "warning");
}

/* ---- a clean Tigrex --------------------------------------------------- */

static void test_clean_tigrex(void **state)
{
	(void)state;
	struct skeleton s, before;
	struct anim a;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_skeleton(&before, TIGREX_BONES);
	tigrex_pack(&a);
	check_skeleton(&s, &before, &r);
	assert_int_equal(r.n, 0);
	assert_false(rules_has_errors(&r));
	check_pack(&a, &s, &r);
	assert_int_equal(r.n, 0);
	check_pack(&a, NULL, &r);
	assert_int_equal(r.n, 0);
	check_clip(slot_clip(&a, 2, 1), CLIP_MHFU, 9, 31, &r);
	assert_int_equal(r.n, 0);
	rules_report_free(&r);
	rules_report_free(NULL);
	anim_free(&a);
	skeleton_free(&s);
	skeleton_free(&before);
}

/* ---- skeleton rules --------------------------------------------------- */

static void test_parent_order(void **state)
{
	(void)state;
	struct skeleton s;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[10].parent = 12;
	check_skeleton(&s, NULL, &r);
	const struct rule_violation *v = only(&r, RULE_PARENT_ORDER);
	assert_bone_at(v, 10);
	assert_string_equal(v->msg, "bone 10: its parent, bone 12, does not "
			    "come before it");
	rules_report_free(&r);

	s.bones[10].parent = 10; /* itself */
	check_skeleton(&s, NULL, &r);
	assert_bone_at(only(&r, RULE_PARENT_ORDER), 10);
	rules_report_free(&r);

	s.bones[10].parent = -7; /* no bone at all */
	check_skeleton(&s, NULL, &r);
	v = only(&r, RULE_PARENT_ORDER);
	assert_bone_at(v, 10);
	assert_non_null(strstr(v->msg, "parent -7 is not a bone"));
	rules_report_free(&r);
	skeleton_free(&s);
}

static void test_animated_count(void **state)
{
	(void)state;
	struct skeleton s;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	s.params[1] = 49;
	check_skeleton(&s, NULL, &r);
	const struct rule_violation *v = only(&r, RULE_ANIMATED_COUNT);
	assert_bone_at(v, -1);
	assert_string_equal(v->msg, "the skeleton: params give 49 animated "
			    "joints, it has 48 bones");
	rules_report_free(&r);

	s.params[1] = 48; /* every bone animated: the parts still run */
	check_skeleton(&s, NULL, &r);
	assert_int_equal(r.n, 0);
	s.nparams = 1;    /* no count at all */
	check_skeleton(&s, NULL, &r);
	assert_int_equal(r.n, 0);
	rules_report_free(&r);
	skeleton_free(&s);
}

static void test_part_runs(void **state)
{
	(void)state;
	struct skeleton s;
	struct rule_report r;
	const struct rule_violation *v;

	/* A part going back: the tail's last joint in part 0. */
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[44].part = 0;
	check_skeleton(&s, NULL, &r);
	v = only(&r, RULE_PART_RUNS);
	assert_bone_at(v, 44);
	assert_non_null(strstr(v->msg, "part 0 after part 2"));
	rules_report_free(&r);
	/* Past the animated joints parts are free. */
	s.bones[44].part = 2;
	s.bones[46].part = 0;
	check_skeleton(&s, NULL, &r);
	assert_int_equal(r.n, 0);
	skeleton_free(&s);

	/* The first joint outside part 0. */
	tigrex_skeleton(&s, TIGREX_BONES);
	for (uint32_t i = 0; i < 31; i++)
		s.bones[i].part = 1;
	for (uint32_t i = 31; i < 45; i++)
		s.bones[i].part++;
	check_skeleton(&s, NULL, &r);
	assert_bone_at(only(&r, RULE_PART_RUNS), 0);
	rules_report_free(&r);
	skeleton_free(&s);

	/* The tail's first joint joins the head's run: not one subtree. */
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[40].part = 1;
	check_skeleton(&s, NULL, &r);
	v = only(&r, RULE_PART_RUNS);
	assert_bone_at(v, 40);
	assert_string_equal(v->msg, "bone 40: in part 1, it does not descend "
			    "from bone 31, the part's first joint");
	rules_report_free(&r);
	skeleton_free(&s);

	/* The head's first joint with its parent inside the head. */
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[31].parent = 33;
	check_skeleton(&s, NULL, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_PARENT_ORDER);
	assert_bone_at(&r.v[0], 31);
	assert_int_equal(r.v[1].code, RULE_PART_RUNS);
	assert_bone_at(&r.v[1], 31);
	assert_non_null(strstr(r.v[1].msg, "inside the part"));
	rules_report_free(&r);
	skeleton_free(&s);
}

static void test_template(void **state)
{
	(void)state;
	struct skeleton s, before, big;
	struct rule_report r;
	tigrex_skeleton(&before, TIGREX_BONES);
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[20].parent = 4; /* still a valid tree, but not the species' */
	check_skeleton(&s, NULL, &r);
	assert_int_equal(r.n, 0);
	check_skeleton(&s, &before, &r);
	const struct rule_violation *v = only(&r, RULE_TEMPLATE);
	assert_bone_at(v, 20);
	assert_string_equal(v->msg, "bone 20: parent 4, it was 19");
	rules_report_free(&r);

	tigrex_skeleton(&big, TIGREX_BONES + 1);
	check_skeleton(&big, &before, &r);
	v = only(&r, RULE_TEMPLATE);
	assert_bone_at(v, -1);
	assert_string_equal(v->msg, "the skeleton: 49 bones, it had 48");
	rules_report_free(&r);
	skeleton_free(&big);
	skeleton_free(&s);
	skeleton_free(&before);
}

/* MHP3rd skeletons get no skeleton rule. */
static void test_p3rd_skeleton(void **state)
{
	(void)state;
	struct skeleton s, before;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_skeleton(&before, 10);
	s.game = SKELETON_MHP3RD;
	s.bones[3].parent = 30;
	s.bones[0].part = 5;
	s.params[1] = 99;
	check_skeleton(&s, &before, &r);
	assert_int_equal(r.n, 0);
	rules_report_free(&r);
	skeleton_free(&s);
	skeleton_free(&before);
}

/* ---- clip rules ------------------------------------------------------- */

static void test_clip_no_tracks(void **state)
{
	(void)state;
	struct clip c = {0};
	struct rule_report r;
	check_clip(&c, CLIP_P3RD, -1, -1, &r);
	const struct rule_violation *v = only(&r, RULE_CLIP_NO_TRACKS);
	assert_clip_at(v, -1, -1, -1, -1, -1);
	assert_string_equal(v->msg, "the clip: no tracks");
	rules_report_free(&r);
	check_clip(&c, CLIP_MHFU, -1, -1, &r);
	only(&r, RULE_CLIP_NO_TRACKS);
	rules_report_free(&r);
	check_clip(&c, CLIP_MHFU, 9, 31, &r); /* and the part's count */
	assert_int_equal(r.n, 2);
	assert_int_equal(count(&r, RULE_CLIP_NO_TRACKS), 1);
	assert_int_equal(count(&r, RULE_PART_TRACKS), 1);
	rules_report_free(&r);
}

static void test_track_empty(void **state)
{
	(void)state;
	struct clip c;
	struct rule_report r;
	rest_clip(&c, 9);
	empty_track(&c.tracks[3]);
	check_clip(&c, CLIP_MHFU, 9, 31, &r);
	const struct rule_violation *v = only(&r, RULE_TRACK_EMPTY);
	assert_clip_at(v, -1, -1, 3, -1, -1);
	assert_int_equal(v->joint, 34);
	assert_string_equal(v->msg, "track 3 (joint 34): no channels: its "
			    "joint collapses to the origin");
	rules_report_free(&r);
	check_clip(&c, CLIP_P3RD, -1, -1, &r);
	assert_int_equal(r.n, 0);
	/* A track past the part's joints is PART_TRACKS only. */
	empty_track(&c.tracks[8]);
	check_clip(&c, CLIP_MHFU, 8, 31, &r);
	assert_int_equal(count(&r, RULE_TRACK_EMPTY), 1); /* track 3 only */
	assert_int_equal(count(&r, RULE_PART_TRACKS), 1);
	assert_int_equal(r.n, 2);
	rules_report_free(&r);
	clip_free(&c);
}

static void test_scale_channel(void **state)
{
	(void)state;
	struct clip c;
	struct rule_report r;
	rest_clip(&c, 9);
	struct clip_channel *ch = clip_add_channel(&c.tracks[5], CLIP_SCL_Y);
	assert_non_null(clip_add_key(ch, (struct clip_key){.value = 256}));
	check_clip(&c, CLIP_MHFU, 9, 31, &r);
	const struct rule_violation *v = only(&r, RULE_SCALE_CHANNEL);
	assert_clip_at(v, -1, -1, 5, 3, -1);
	assert_int_equal(v->bit, CLIP_SCL_Y);
	assert_string_equal(v->msg, "track 5 (joint 36) channel scl_y: a scale "
			    "channel: the engine crashes on it");
	rules_report_free(&r);
	check_clip(&c, CLIP_P3RD, -1, -1, &r);
	assert_int_equal(r.n, 0);
	clip_free(&c);
}

static void test_channel_twice(void **state)
{
	(void)state;
	struct clip c;
	struct rule_report r;
	rest_clip(&c, 9);
	assert_non_null(clip_add_channel(&c.tracks[2], CLIP_ROT_X));
	check_clip(&c, CLIP_MHFU, 9, -1, &r);
	const struct rule_violation *v = only(&r, RULE_CHANNEL_TWICE);
	assert_clip_at(v, -1, -1, 2, 3, -1);
	assert_int_equal(v->joint, -1);
	assert_string_equal(v->msg, "track 2 channel rot_x: a second channel "
			    "of the same bit in the track");
	rules_report_free(&r);
	check_clip(&c, CLIP_P3RD, -1, -1, &r); /* any game */
	assert_int_equal(only(&r, RULE_CHANNEL_TWICE)->channel, 3);
	rules_report_free(&r);
	/* Bits past 16 (models only) are compared too. */
	assert_non_null(clip_add_channel(&c.tracks[4], 0x10000));
	assert_non_null(clip_add_channel(&c.tracks[4], 0x10000));
	check_clip(&c, CLIP_P3RD, -1, -1, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[1].track, 4);
	assert_int_equal(r.v[1].channel, 4);
	assert_non_null(strstr(r.v[1].msg, "channel 0x10000"));
	rules_report_free(&r);
	clip_free(&c);
}

static void test_track_mask(void **state)
{
	(void)state;
	struct clip c;
	struct rule_report r;
	rest_clip(&c, 9);
	c.tracks[4].mask |= CLIP_LOC_X;
	check_clip(&c, CLIP_MHFU, 9, 31, &r);
	const struct rule_violation *v = only(&r, RULE_TRACK_MASK);
	assert_int_equal(v->level, RULE_ERROR);
	assert_clip_at(v, -1, -1, 4, -1, -1);
	assert_string_equal(v->msg, "track 4 (joint 35): mask 0x078, its "
			    "channels' bits are 0x038");
	assert_true(rules_has_errors(&r));
	rules_report_free(&r);
	check_clip(&c, CLIP_P3RD, -1, -1, &r);
	assert_int_equal(r.n, 0);
	clip_free(&c);
}

static void test_key_frame(void **state)
{
	(void)state;
	struct clip c;
	struct rule_report r;
	rest_clip(&c, 9);
	struct clip_channel *ch = &c.tracks[3].channels[0];
	assert_non_null(clip_add_key(ch, (struct clip_key){.frame = 40}));
	assert_non_null(clip_add_key(ch, (struct clip_key){.frame = 40}));
	check_clip(&c, CLIP_MHFU, 9, 31, &r); /* equal frames pass */
	assert_int_equal(r.n, 0);
	ch->keys[2].frame = 10; /* 0 30 10 40 */
	check_clip(&c, CLIP_MHFU, 9, 31, &r);
	const struct rule_violation *v = only(&r, RULE_KEY_FRAME);
	assert_clip_at(v, -1, -1, 3, 0, 2);
	assert_int_equal(v->bit, CLIP_ROT_X);
	assert_int_equal(v->frame, 10);
	assert_string_equal(v->msg, "track 3 (joint 34) channel rot_x key 2: "
			    "frame 10 after frame 30");
	rules_report_free(&r);
	check_clip(&c, CLIP_P3RD, -1, -1, &r); /* any game */
	assert_int_equal(only(&r, RULE_KEY_FRAME)->key, 2);
	rules_report_free(&r);

	ch->keys[2].frame = 35;
	c.tracks[7].channels[2].keys[0].frame = -1;
	check_clip(&c, CLIP_MHFU, 9, -1, &r);
	v = only(&r, RULE_KEY_FRAME);
	assert_clip_at(v, -1, -1, 7, 2, 0);
	assert_string_equal(v->msg, "track 7 channel rot_z key 0: frame -1 is "
			    "before frame 0");
	rules_report_free(&r);
	clip_free(&c);
}

/* VALUE_RANGE is the parsers' MH_ERANGE: it has a code to label them. */
static void test_value_range(void **state)
{
	(void)state;
	static const char TEXT[] = "track 0\nchannel rot_x\n0 40000 0 0\n";
	struct clip c;
	struct mh_diag d = {0};
	assert_int_equal(clip_parse(TEXT, strlen(TEXT), &c, &d), MH_ERANGE);
	assert_int_equal(d.line, 3);
	const struct rule_info *ri = rule_by_name("VALUE_RANGE");
	assert_non_null(ri);
	assert_int_equal(ri->code, RULE_VALUE_RANGE);
	assert_int_equal(ri->level, RULE_ERROR);
}

/* ---- packs ------------------------------------------------------------ */

static void test_part_tracks(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	struct clip *c = slot_clip(&a, 2, 4);
	drop_last_track(c);
	check_pack(&a, &s, &r);
	const struct rule_violation *v = only(&r, RULE_PART_TRACKS);
	assert_clip_at(v, 2, 4, -1, -1, -1);
	assert_string_equal(v->msg, "stream 2 slot 4: 8 tracks, part 1 has 9 "
			    "joints (31..39)");
	rules_report_free(&r);
	check_pack(&a, NULL, &r); /* needs the skeleton */
	assert_int_equal(r.n, 0);
	check_clip(c, CLIP_MHFU, 9, 31, &r);
	v = only(&r, RULE_PART_TRACKS);
	assert_clip_at(v, -1, -1, -1, -1, -1);
	assert_string_equal(v->msg, "the clip: 8 tracks, its part has 9 "
			    "joints");
	rules_report_free(&r);
	add_rest_track(c);

	/* A clip shared across streams is checked against each part, and
	 * its own rules once, at its first use. */
	assert_int_equal(anim_set_slot(&a, 4, 5, a.streams[2].slots[1], NULL),
			 MH_OK);
	assert_int_equal(anim_compact(&a, NULL), MH_OK);
	struct clip_track saved = slot_clip(&a, 2, 1)->tracks[0];
	slot_clip(&a, 2, 1)->tracks[0] = (struct clip_track){0};
	check_pack(&a, &s, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_TRACK_EMPTY);
	assert_clip_at(&r.v[0], 2, 1, 0, -1, -1);
	assert_int_equal(r.v[0].joint, 31);
	assert_string_equal(r.v[0].msg, "stream 2 slot 1 track 0 (joint 31): "
			    "no channels: its joint collapses to the origin");
	assert_int_equal(r.v[1].code, RULE_PART_TRACKS);
	assert_clip_at(&r.v[1], 4, 5, -1, -1, -1);
	assert_string_equal(r.v[1].msg, "stream 4 slot 5: 9 tracks, part 2 "
			    "has 5 joints (40..44)");
	rules_report_free(&r);
	slot_clip(&a, 2, 1)->tracks[0] = saved;

	/* A stream of a part the skeleton does not animate. */
	s.params[1] = 40;
	check_pack(&a, &s, &r);
	assert_int_equal(count(&r, RULE_PART_TRACKS), 4 + 1); /* 5 clips */
	for (size_t i = 0; i < r.n; i++) {
		assert_int_equal(r.v[i].stream, 4);
		assert_non_null(strstr(r.v[i].msg, "part 2 has no animated "
				       "joints"));
	}
	rules_report_free(&r);
	anim_free(&a);
	skeleton_free(&s);
}

static void test_pack_coordinates(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	/* Slot 2 shares slot 0: reported once, at slot 0. */
	struct clip *c = slot_clip(&a, 0, 2);
	c->tracks[30].channels[1].keys[1].frame = -3;
	c = slot_clip(&a, 1, 100);
	assert_non_null(clip_add_channel(&c->tracks[12], CLIP_SCL_X));
	check_pack(&a, &s, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_KEY_FRAME);
	assert_clip_at(&r.v[0], 0, 0, 30, 1, 1);
	assert_string_equal(r.v[0].msg, "stream 0 slot 0 track 30 (joint 30) "
			    "channel rot_y key 1: frame -3 is before frame 0");
	assert_int_equal(r.v[1].code, RULE_SCALE_CHANNEL);
	assert_clip_at(&r.v[1], 1, 100, 12, 3, -1);
	assert_int_equal(r.v[1].joint, 12);
	rules_report_free(&r);
	anim_free(&a);
	skeleton_free(&s);
}

/* MHP3rd packs: only CLIP_NO_TRACKS, CHANNEL_TWICE and KEY_FRAME. */
static void test_p3rd_pack(void **state)
{
	(void)state;
	static const uint32_t SLOTS[2] = {3, 2};
	struct anim a;
	struct skeleton rig;
	struct rule_report r;
	tigrex_skeleton(&rig, TIGREX_BONES);
	assert_int_equal(anim_init(&a, CLIP_P3RD, 2, SLOTS, NULL), MH_OK);
	struct clip c;
	rest_clip(&c, 7);
	empty_track(&c.tracks[1]);                    /* TRACK_EMPTY: MHFU */
	assert_non_null(clip_add_channel(&c.tracks[2], CLIP_SCL_X)); /* MHFU */
	c.tracks[3].mask = 0;                         /* TRACK_MASK: MHFU */
	assert_non_null(clip_add_channel(&c.tracks[4], CLIP_ROT_Y));
	c.tracks[5].channels[0].keys[1].frame = -2;
	assert_int_equal(anim_set_slot(&a, 0, 1, anim_add_clip(&a, &c), NULL),
			 MH_OK);
	struct clip empty = {0};
	assert_int_equal(anim_set_slot(&a, 1, 1, anim_add_clip(&a, &empty),
				       NULL), MH_OK);
	assert_int_equal(anim_compact(&a, NULL), MH_OK);
	check_pack(&a, &rig, &r);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.v[0].code, RULE_CHANNEL_TWICE);
	assert_clip_at(&r.v[0], 0, 1, 4, 3, -1);
	assert_int_equal(r.v[1].code, RULE_KEY_FRAME);
	assert_clip_at(&r.v[1], 0, 1, 5, 0, 1);
	assert_int_equal(r.v[2].code, RULE_CLIP_NO_TRACKS);
	assert_clip_at(&r.v[2], 1, 1, -1, -1, -1);
	assert_string_equal(r.v[2].msg, "stream 1 slot 1: no tracks");
	rules_report_free(&r);
	anim_free(&a);
	skeleton_free(&rig);
}

/* A clip no slot uses is checked at no slot. */
static void test_unused_clip(void **state)
{
	(void)state;
	static const uint32_t SLOTS[1] = {2};
	struct anim a;
	struct rule_report r;
	assert_int_equal(anim_init(&a, CLIP_MHFU, 1, SLOTS, NULL), MH_OK);
	struct clip c;
	rest_clip(&c, 2);
	c.tracks[1].channels[2].keys[1].frame = -1;
	assert_true(anim_add_clip(&a, &c) == 0);
	check_pack(&a, NULL, &r);
	assert_clip_at(only(&r, RULE_KEY_FRAME), -1, -1, 1, 2, 1);
	rules_report_free(&r);
	anim_free(&a);
}

/* Game-shaped random packs (tests/clipgen.h): native clips break no rule
 * but the generator's two liberties: a 9-track clip shared into stream
 * 4 slot 50, and a track that drew no channel. */
static void test_generated_tigrex_packs(void **state)
{
	(void)state;
	struct skeleton s;
	tigrex_skeleton(&s, TIGREX_BONES);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct rng g = {seed};
		struct anim a;
		struct rule_report r;
		gen_tigrex(&g, &a);
		check_pack(&a, &s, &r);
		assert_int_equal(count(&r, RULE_PART_TRACKS), 1);
		for (size_t i = 0; i < r.n; i++) {
			const struct rule_violation *v = &r.v[i];
			if (v->code == RULE_PART_TRACKS) {
				assert_clip_at(v, 4, 50, -1, -1, -1);
				continue;
			}
			assert_int_equal(v->code, RULE_TRACK_EMPTY);
			assert_int_equal(slot_clip(&a, (uint32_t)v->stream,
						   (uint32_t)v->slot)
					 ->tracks[v->track].nchannels, 0);
		}
		rules_report_free(&r);
		anim_free(&a);
	}
	skeleton_free(&s);
}

/* ---- levels ----------------------------------------------------------- */

/* A report of two errors (TRACK_MASK, TRACK_EMPTY). */
static void mixed_report(struct rule_report *r, struct clip *c)
{
	rest_clip(c, 5);
	c->tracks[0].mask = 0;
	empty_track(&c->tracks[1]);
	check_clip(c, CLIP_MHFU, 5, 40, r);
	assert_int_equal(r->n, 2);
	assert_true(rules_has_errors(r));
}

static void test_apply_mode(void **state)
{
	(void)state;
	struct rule_report r;
	struct clip c;
	mixed_report(&r, &c);
	rules_apply_mode(&r, RULES_STRICT);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].level, RULE_ERROR);
	assert_int_equal(r.v[1].level, RULE_ERROR);
	rules_apply_mode(&r, RULES_WARN);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].level, RULE_WARNING);
	assert_false(rules_has_errors(&r));
	rules_apply_mode(&r, RULES_OFF);
	assert_int_equal(r.n, 0);
	assert_false(rules_has_errors(&r));
	/* A failed report counts as holding errors, until RULES_OFF. */
	r.failed = true;
	assert_true(rules_has_errors(&r));
	assert_int_equal(rules_check_clip(&c, CLIP_MHFU, 5, 40, &r), MH_ENOMEM);
	rules_apply_mode(&r, RULES_WARN);
	assert_true(rules_has_errors(&r));
	rules_apply_mode(&r, RULES_OFF);
	assert_false(rules_has_errors(&r));
	rules_report_free(&r);
	clip_free(&c);
}

static void test_demote_existing(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct rule_report before, after;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	/* Before: a key going backwards in stream 4 slot 3. */
	struct clip_channel *ch = &slot_clip(&a, 4, 3)->tracks[2].channels[1];
	ch->keys[1].frame = -5;
	check_pack(&a, &s, &before);
	assert_int_equal(before.n, 1);

	/* The edit: a key inserted before it (its index moves), its value
	 * changed, a channel added before it (its position moves), and a
	 * new flaw elsewhere. */
	struct clip_key k1 = ch->keys[1];
	k1.value = 77;
	ch->keys[1] = (struct clip_key){.frame = 0};
	assert_non_null(clip_add_key(ch, k1));
	struct clip_track *t = &slot_clip(&a, 4, 3)->tracks[2];
	assert_non_null(clip_add_channel(t, CLIP_LOC_Y));
	struct clip_channel moved = t->channels[1];
	t->channels[1] = t->channels[3];
	t->channels[3] = moved;
	struct clip_track saved = slot_clip(&a, 0, 4)->tracks[6];
	slot_clip(&a, 0, 4)->tracks[6] = (struct clip_track){0};
	check_pack(&a, &s, &after);
	assert_int_equal(after.n, 2);
	assert_int_equal(rules_demote_existing(&after, &before), MH_OK);
	assert_int_equal(after.v[0].code, RULE_TRACK_EMPTY);
	assert_int_equal(after.v[0].level, RULE_ERROR);
	assert_false(after.v[0].existing);
	assert_int_equal(after.v[1].code, RULE_KEY_FRAME);
	assert_clip_at(&after.v[1], 4, 3, 2, 3, 2);
	assert_int_equal(after.v[1].level, RULE_WARNING);
	assert_true(after.v[1].existing);
	assert_true(rules_has_errors(&after));
	rules_report_free(&after);

	/* Without the new flaw the edit passes. */
	slot_clip(&a, 0, 4)->tracks[6] = saved;
	check_pack(&a, &s, &after);
	assert_int_equal(rules_demote_existing(&after, &before), MH_OK);
	assert_int_equal(after.n, 1);
	assert_false(rules_has_errors(&after));
	rules_report_free(&after);

	/* The same flaw at another key frame is new. */
	t->channels[3].keys[2].frame = -6;
	check_pack(&a, &s, &after);
	assert_int_equal(rules_demote_existing(&after, &before), MH_OK);
	assert_true(rules_has_errors(&after));
	rules_report_free(&after);
	rules_report_free(&before);
	anim_free(&a);
	skeleton_free(&s);
}

/* Skeleton violations match by bone; an empty before demotes nothing. */
static void test_demote_skeleton(void **state)
{
	(void)state;
	struct skeleton s;
	struct rule_report before, after, none = {0};
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[10].parent = 12;
	check_skeleton(&s, NULL, &before);
	s.bones[14].parent = 20;
	check_skeleton(&s, NULL, &after);
	assert_int_equal(after.n, 2);
	assert_int_equal(rules_demote_existing(&after, &none), MH_OK);
	assert_int_equal(after.v[0].level, RULE_ERROR);
	assert_int_equal(rules_demote_existing(&after, &before), MH_OK);
	assert_int_equal(after.v[0].level, RULE_WARNING);
	assert_int_equal(after.v[1].level, RULE_ERROR);
	assert_int_equal(after.v[1].bone, 14);
	rules_report_free(&after);
	rules_report_free(&before);
	skeleton_free(&s);
}

/* Every allocation failure ends in MH_ENOMEM and leaks nothing. */
static void test_out_of_memory(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct skeleton s;
	struct anim a;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	for (uint32_t k = 0; k < a.nclips; k++)
		a.clips[k].tracks[0].mask = 0; /* a warning per clip */
	struct rule_report before = {0};
	assert_int_equal(rules_check_pack(&a, &s, &before), MH_OK);
	long live = faults_live;
	for (int what = 0; what < 2; what++)
		for (long k = 0;; k++) {
			struct rule_report r = {0};
			faults_arm(k);
			enum mh_err err = rules_check_pack(&a, &s, &r);
			if (what && !err)
				err = rules_demote_existing(&r, &before);
			bool fired = faults_disarm();
			if (!what)
				assert_int_equal(r.failed, fired);
			if (r.failed)
				assert_true(rules_has_errors(&r));
			rules_report_free(&r);
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				break;
			}
			assert_int_equal(err, MH_ENOMEM);
		}
	rules_report_free(&before);
	anim_free(&a);
	skeleton_free(&s);
}

/* ---- text locators ---------------------------------------------------- */

/* Line n (1-based) of text. */
static const char *line_at(const char *text, unsigned n)
{
	while (--n)
		text = strchr(text, '\n') + 1;
	return text;
}

/* The same text as any parser reads it: every line maybe preceded by a
 * comment or blank line, blanks widened into runs of spaces and tabs, a
 * trailing comment, a CR before the newline.  Malloc'ed. */
static char *mess(struct rng *g, const char *in)
{
	static const char *const NOISE[] = {
		"# track 0\n", "\n", " \t \n", "#channel rot_x\n",
		"   # 0 0 0 0\n", "# stream 0 slots 1\n", "#1 1 -1\n"};
	char *out = malloc(8 * strlen(in) + 64), *o = out;
	assert_non_null(out);
	for (const char *p = in; *p;) {
		if (gen_below(g, 4) == 0)
			o = stpcpy(o, NOISE[gen_below(g, 7)]);
		if (gen_below(g, 3) == 0)
			o = stpcpy(o, gen_below(g, 2) ? "\t" : "  ");
		for (; *p && *p != '\n'; p++) {
			if (*p != ' ') {
				*o++ = *p;
				continue;
			}
			for (uint32_t n = 1 + gen_below(g, 3); n--;)
				*o++ = gen_below(g, 3) ? ' ' : '\t';
		}
		if (gen_below(g, 4) == 0)
			o = stpcpy(o, " # track 7 channel 9");
		if (gen_below(g, 4) == 0)
			*o++ = '\r';
		if (*p == '\n')
			*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/* Line `line` of text is clip element track t (channel j, key k). */
static void assert_clip_line(const char *text, unsigned line,
			     const struct clip *c, uint32_t t, int64_t j,
			     int64_t k)
{
	const char *l = line_at(text, line);
	int n, frame, value;
	char word[32];
	if (j < 0) {
		assert_int_equal(sscanf(l, " track %d", &n), 1);
		assert_int_equal(n, t);
		return;
	}
	const struct clip_channel *ch = &c->tracks[t].channels[j];
	if (k < 0) {
		assert_int_equal(sscanf(l, " channel %31s", word), 1);
		const char *name = clip_channel_name(ch->bit);
		if (name && strcmp(word, name))
			fail_msg("line %u: channel %s, not %s", line, word, name);
		if (!name)
			assert_int_equal(strtoul(word, NULL, 0), ch->bit);
		return;
	}
	assert_int_equal(sscanf(l, "%d %d", &frame, &value), 2);
	assert_int_equal(frame, ch->keys[k].frame);
	assert_int_equal(value, ch->keys[k].value);
}

/* Every element of random clips is found, printed and messed. */
static void test_clip_text_line_random(void **state)
{
	(void)state;
	struct rng g = {99};
	for (int round = 0; round < 200; round++) {
		struct clip c, back;
		gen_clip(&g, round % 2 ? GEN_WILD : GEN_NATIVE_FU,
			 gen_below(&g, 8), 4, &c);
		char *printed = clip_print(&c, "hdr", round % 3 - 1, NULL);
		char *text = round % 4 ? mess(&g, printed) : printed;
		size_t len = strlen(text);
		struct mh_diag d = {0};
		assert_int_equal(clip_parse(text, len, &back, &d), MH_OK);
		assert_true(clip_equal(&c, &back));
		clip_free(&back);
		for (uint32_t t = 0; t < c.ntracks; t++) {
			const struct clip_track *tr = &c.tracks[t];
			assert_clip_line(text, clip_text_line(text, len, (int)t,
							      -1, -1), &c, t, -1, -1);
			for (uint32_t j = 0; j < tr->nchannels; j++) {
				assert_clip_line(text, clip_text_line(text, len,
					(int)t, (int)j, -1), &c, t, j, -1);
				for (uint32_t k = 0; k < tr->channels[j].nkeys; k++)
					assert_clip_line(text, clip_text_line(text,
						len, (int)t, (int)j, (int)k), &c,
						t, j, k);
			}
		}
		if (text != printed)
			free(text);
		free(printed);
		clip_free(&c);
	}
}

/* Messed skeleton.txt and pack.txt still locate every bone and stream. */
static void test_text_lines_messed(void **state)
{
	(void)state;
	struct rng g = {5};
	struct skeleton s, sback;
	struct anim a, aback;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	char *sprinted = skeleton_print(&s, "file_06134", NULL);
	char *aprinted = anim_print_shape(&a, NULL);
	for (int round = 0; round < 20; round++) {
		char *text = mess(&g, sprinted);
		size_t len = strlen(text);
		struct mh_diag d = {0};
		assert_int_equal(skeleton_parse(text, len, &sback, &d), MH_OK);
		skeleton_free(&sback);
		for (int i = -1; i < TIGREX_BONES; i++) {
			const char *l = line_at(text, skeleton_text_line(text, len, i));
			int n = -1;
			if (i < 0)
				assert_int_equal(sscanf(l, " params %d", &n), 1);
			else
				assert_int_equal(sscanf(l, "%d", &n), 1);
			assert_int_equal(n, i < 0 ? 0 : i);
		}
		free(text);

		text = mess(&g, aprinted);
		len = strlen(text);
		assert_int_equal(anim_parse_shape(text, len, &aback, &d), MH_OK);
		anim_free(&aback);
		for (int i = 0; i < 6; i++) {
			int n = -1;
			assert_int_equal(sscanf(line_at(text, anim_text_line(text,
				len, i)), " stream %d", &n), 1);
			assert_int_equal(n, i);
		}
		free(text);
	}
	free(sprinted);
	free(aprinted);
	anim_free(&a);
	skeleton_free(&s);
}

static void test_clip_text_line_printed(void **state)
{
	(void)state;
	struct clip c;
	rest_clip(&c, 4);
	empty_track(&c.tracks[2]);
	char *text = clip_print(&c, "file_06185 anim stream 4\nslot 3", 40, NULL);
	size_t len = strlen(text);
	for (uint32_t t = 0; t < c.ntracks; t++) {
		unsigned lt = clip_text_line(text, len, (int)t, -1, -1);
		int n;
		assert_int_equal(sscanf(line_at(text, lt), "track %d", &n), 1);
		assert_int_equal(n, t);
		for (uint32_t j = 0; j < c.tracks[t].nchannels; j++) {
			unsigned lc = clip_text_line(text, len, (int)t, (int)j, -1);
			char name[16];
			assert_true(lc > lt);
			assert_int_equal(sscanf(line_at(text, lc), "channel %15s",
						name), 1);
			assert_string_equal(name, clip_channel_name(
				c.tracks[t].channels[j].bit));
			for (uint32_t k = 0; k < 2; k++) {
				unsigned lk = clip_text_line(text, len, (int)t,
							     (int)j, (int)k);
				const struct clip_key *key =
					&c.tracks[t].channels[j].keys[k];
				int frame, value;
				assert_true(lk > lc);
				assert_int_equal(sscanf(line_at(text, lk), "%d %d",
							&frame, &value), 2);
				assert_int_equal(frame, key->frame);
				assert_int_equal(value, key->value);
			}
			/* No such key: the channel's line. */
			assert_int_equal(clip_text_line(text, len, (int)t,
							(int)j, 2), lc);
		}
		/* No such channel: the track's line. */
		assert_int_equal(clip_text_line(text, len, (int)t, 3, 0), lt);
	}
	assert_int_equal(clip_text_line(text, len, 4, -1, -1), 1);
	assert_int_equal(clip_text_line(text, len, -1, 0, 0), 1);
	free(text);
	clip_free(&c);
}

static void test_clip_text_line_messy(void **state)
{
	(void)state;
	static const char TEXT[] =
		"# track 0 in a comment\n"          /*  1 */
		"\n"                                /*  2 */
		"  loop 1\r\n"                      /*  3 */
		"\tloop_start 0.5   # track\n"      /*  4 */
		"track 0#joint 2\n"                 /*  5 */
		"   # channel rot_x\n"              /*  6 */
		"channel\t0x008\r\n"                /*  7 */
		"+0 -1 0 0\n"                       /*  8 */
		"\n"                                /*  9 */
		"  12   90deg   0   0   # key 1\n"  /* 10 */
		"channel loc_y\n"                   /* 11 */
		"track   1  mask 0x10\n"            /* 12 */
		"track 2\n"                         /* 13 */
		"channel rot_z\n"                   /* 14 */
		"# 5 5 5 5\n"                       /* 15 */
		"-3 4 0 0";                         /* 16, no newline */
	size_t len = strlen(TEXT);
	struct clip c;
	struct mh_diag d = {0};
	assert_int_equal(clip_parse(TEXT, len, &c, &d), MH_OK);
	assert_int_equal(c.ntracks, 3);
	clip_free(&c);
	assert_int_equal(clip_text_line(TEXT, len, 0, -1, -1), 5);
	assert_int_equal(clip_text_line(TEXT, len, 0, 0, -1), 7);
	assert_int_equal(clip_text_line(TEXT, len, 0, 0, 0), 8);
	assert_int_equal(clip_text_line(TEXT, len, 0, 0, 1), 10);
	assert_int_equal(clip_text_line(TEXT, len, 0, 1, -1), 11);
	assert_int_equal(clip_text_line(TEXT, len, 0, 1, 0), 11);
	assert_int_equal(clip_text_line(TEXT, len, 1, -1, -1), 12);
	assert_int_equal(clip_text_line(TEXT, len, 1, 0, 0), 12);
	assert_int_equal(clip_text_line(TEXT, len, 2, 0, 0), 16);
	assert_int_equal(clip_text_line(TEXT, len, 2, 0, 1), 14);
	assert_int_equal(clip_text_line(TEXT, len, 3, 0, 0), 1);
	assert_int_equal(clip_text_line("", 0, 0, 0, 0), 1);
}

static void test_skeleton_text_line(void **state)
{
	(void)state;
	struct skeleton s;
	tigrex_skeleton(&s, TIGREX_BONES);
	size_t len;
	char *text = skeleton_print(&s, "file_06134 entry 0", &len);
	assert_non_null(text);
	for (int i = 0; i < TIGREX_BONES; i++) {
		int n = -1;
		sscanf(line_at(text, skeleton_text_line(text, len, i)), "%d", &n);
		assert_int_equal(n, i);
	}
	assert_true(!strncmp(line_at(text, skeleton_text_line(text, len, -1)),
			     "params 0 45", 11));
	assert_int_equal(skeleton_text_line(text, len, TIGREX_BONES), 1);
	free(text);
	skeleton_free(&s);

	static const char TEXT[] =
		"# 2 bones\n"                                               /* 1 */
		"skeleton mhfu\n"                                           /* 2 */
		"\n"                                                        /* 3 */
		"# 0 1 -1 ...\n"                                            /* 4 */
		"  params 0   2 # animated\r\n"                             /* 5 */
		"000 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n"                  /* 6 */
		"w 0 1 1 1\n"                                               /* 7 */
		"\t0x1 1 0 -1 -1 1 1 1 0 0 0 0 1e1 0 -1 0 - # bone 1\n";    /* 8 */
	struct mh_diag d = {0};
	assert_int_equal(skeleton_parse(TEXT, strlen(TEXT), &s, &d), MH_OK);
	skeleton_free(&s);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), -1), 5);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), 0), 6);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), 1), 8);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), 2), 1);
}

static void test_anim_text_line(void **state)
{
	(void)state;
	struct anim a;
	tigrex_pack(&a);
	size_t len;
	char *text = anim_print_shape(&a, &len);
	for (int s = 0; s < 6; s++) {
		int n = -1;
		sscanf(line_at(text, anim_text_line(text, len, s)), "stream %d", &n);
		assert_int_equal(n, s);
	}
	assert_int_equal(anim_text_line(text, len, 6), 1);
	assert_int_equal(anim_text_line(text, len, -1), 1);
	free(text);
	anim_free(&a);

	static const char TEXT[] =
		"# stream 0 slots 1\n"          /* 1 */
		"format mhfu\n"                 /* 2 */
		"  stream 0 slots 2 # one\r\n"  /* 3 */
		"filled 0-1\n"                  /* 4 */
		"\n"                            /* 5 */
		"\tstream\t1   slots 0\n"       /* 6 */
		"tail zeros 4\n";               /* 7 */
	struct mh_diag d = {0};
	assert_int_equal(anim_parse_shape(TEXT, strlen(TEXT), &a, &d), MH_OK);
	anim_free(&a);
	assert_int_equal(anim_text_line(TEXT, strlen(TEXT), 0), 3);
	assert_int_equal(anim_text_line(TEXT, strlen(TEXT), 1), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_clean_tigrex),
		cmocka_unit_test(test_parent_order),
		cmocka_unit_test(test_animated_count),
		cmocka_unit_test(test_part_runs),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_p3rd_skeleton),
		cmocka_unit_test(test_clip_no_tracks),
		cmocka_unit_test(test_track_empty),
		cmocka_unit_test(test_scale_channel),
		cmocka_unit_test(test_channel_twice),
		cmocka_unit_test(test_track_mask),
		cmocka_unit_test(test_key_frame),
		cmocka_unit_test(test_value_range),
		cmocka_unit_test(test_part_tracks),
		cmocka_unit_test(test_pack_coordinates),
		cmocka_unit_test(test_p3rd_pack),
		cmocka_unit_test(test_unused_clip),
		cmocka_unit_test(test_generated_tigrex_packs),
		cmocka_unit_test(test_apply_mode),
		cmocka_unit_test(test_demote_existing),
		cmocka_unit_test(test_demote_skeleton),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_clip_text_line_printed),
		cmocka_unit_test(test_clip_text_line_messy),
		cmocka_unit_test(test_clip_text_line_random),
		cmocka_unit_test(test_text_lines_messed),
		cmocka_unit_test(test_skeleton_text_line),
		cmocka_unit_test(test_anim_text_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
