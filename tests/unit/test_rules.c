/* SPDX-License-Identifier: MIT */
/* Tests of codecs/rules (the engine rules).
 *
 * A clean Tigrex-shaped skeleton and pack (built with the public
 * builders) report nothing.  A table of edits (RULE_ROWS) then breaks or
 * spares each rule on a fresh copy: a broken rule must be reported with
 * its code, level, the element's coordinates and message, and nothing
 * else; a spared one not at all.  Edits breaking several rules at once
 * have tests of their own. */
#include "clipgen.h"
#include "faults.h"
#include "kind.h"
#include "mkpmo.h"
#include "pac.h"
#include "pmo.h"
#include "rules.h"
#include "tigrex.h"

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
		bool anywhere = i == RULE_NO_TRACKS || i == RULE_CHANNEL_BIT ||
				i == RULE_DUPLICATE_CHANNEL || i == RULE_NEGATIVE_FRAME ||
				i == RULE_FRAME_ORDER || i == RULE_EMPTY_CHANNEL ||
				i == RULE_VALUE_RANGE || i == RULE_UNDECODABLE ||
				i == RULE_PALETTE_JOINT || i == RULE_EMPTY_GROUP;
		bool ours = i == RULE_BONE_LINKS || i == RULE_TRACK_EMPTY ||
			    i == RULE_CHANNEL_BIT || i == RULE_TRACK_MASK ||
			    i == RULE_VALUE_RANGE || i == RULE_UNDECODABLE;
		assert_int_equal(ri->mhfu_only, !anywhere);
		assert_int_equal(ri->toolkit, !ours);
		/* The toolkit's level, but FRAME_ORDER's (mount.mhfu(8)). */
		assert_int_equal(ri->level, i == RULE_EMPTY_CHANNEL || i == RULE_EMPTY_GROUP
						    ? RULE_WARNING : RULE_ERROR);
	}
	/* The toolkit's codes. */
	static const char *const TOOLKIT[] = {
		"PARENT_ORDER", "ANIMATED_COUNT", "STREAM_RUNS", "STREAM_SUBTREE",
		"PARTITION", "NO_TRACKS", "SCALE_CHANNEL", "DUPLICATE_CHANNEL",
		"NEGATIVE_FRAME", "FRAME_ORDER", "EMPTY_CHANNEL", "TEMPLATE", "PALETTE_JOINT",
		"EMPTY_GROUP"};
	for (size_t i = 0; i < sizeof TOOLKIT / sizeof *TOOLKIT; i++) {
		assert_non_null(rule_by_name(TOOLKIT[i]));
		assert_true(rule_by_name(TOOLKIT[i])->toolkit);
	}
	assert_null(rule_by_name("KEY_FRAME"));
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

/* ---- the rules, one row per edit ---------------------------------------
 *
 * Each row edits a fresh fixture, runs one check and states the outcome:
 * for a row that breaks its rule, the report holds exactly that one
 * violation, at the row's level, with every coordinate and the message
 * as given; for a row that spares it, the report is empty.  Every rule
 * has rows of both kinds (test_every_rule_has_rows). */

/* What a row edits: the clean Tigrex skeleton, the same skeleton as it
 * was before the edit (TEMPLATE), the clean Tigrex pack, a clean clip of
 * the head's 9 tracks, and a clip text (VALUE_RANGE). */
struct fixture {
	struct skeleton s, before;
	struct anim a;
	struct clip c;
	const char *text;
	bool garbled;     /* ON_ITEM: the skeleton's bytes no longer decode */
};

/* Which check a row runs on the edited fixture. */
enum check {
	ON_SKELETON,          /* rules_check_skeleton(s, NULL) */
	ON_SKELETON_TEMPLATE, /* rules_check_skeleton(s, before) */
	ON_CLIP,              /* rules_check_clip(c, format, joints, first) */
	ON_PACK,              /* rules_check_pack(a, s) */
	ON_PACK_WITHOUT_RIG,  /* rules_check_pack(a, NULL) */
	ON_CLIP_TEXT,         /* clip_parse(text): VALUE_RANGE is its MH_ERANGE */
	ON_ITEM,              /* rules_check_item(s's bytes, before's bytes) */
};

/* A violation's coordinates (struct rule_violation). */
struct where {
	int32_t bone, stream, slot, track, channel, key, joint;
};

#define AT_BONE(b) {b, -1, -1, -1, -1, -1, -1}
#define AT_CLIP(stream, slot, track, channel, key, joint) \
	{-1, stream, slot, track, channel, key, joint}

struct rule_row {
	const char *edit_name;       /* the edit, in words */
	void (*edit)(struct fixture *f);
	enum check on;
	enum clip_format format;     /* ON_CLIP: the clip's game */
	int joints, first_joint;     /* ON_CLIP: the part's joints, track 0's */
	enum rule_code code;         /* the rule the row is about */
	bool breaks;                 /* the edit breaks it (else: no violation) */
	enum rule_level level;       /* breaks: the violation's level */
	struct where at;             /* breaks: its coordinates */
	uint32_t bit;                /*   its channel's bit, 0 */
	int32_t frame;               /*   its key's frame, 0 */
	unsigned line;               /* ON_CLIP_TEXT: the line at fault */
	const char *msg;             /* breaks: the message exactly */
};

#define EDIT(name, body) static void name(struct fixture *f) { body; }

static void fixture_init(struct fixture *f)
{
	tigrex_skeleton(&f->s, TIGREX_BONES);
	tigrex_skeleton(&f->before, TIGREX_BONES);
	tigrex_pack(&f->a);
	rest_clip(&f->c, 9);
	f->text = NULL;
	f->garbled = false;
}

static void fixture_free(struct fixture *f)
{
	skeleton_free(&f->s);
	skeleton_free(&f->before);
	anim_free(&f->a);
	clip_free(&f->c);
}

/* Keys at frames 0 30 40 40 in track 3's first channel (rot_x). */
static struct clip_channel *keys_to_40(struct fixture *f)
{
	struct clip_channel *ch = &f->c.tracks[3].channels[0];
	assert_non_null(clip_add_key(ch, (struct clip_key){.frame = 40}));
	assert_non_null(clip_add_key(ch, (struct clip_key){.frame = 40}));
	return ch;
}

/* Bone 20's index word: the head still sniffs as a skeleton, the bytes
 * no longer decode. */
#define GARBLED_AT (0x1C + 4 + 20 * SKELETON_SECTION_MHFU + 0x0C)
EDIT(skeleton_garbled, f->garbled = true)
EDIT(skeleton_unchanged, (void)f)
EDIT(parent_after_child, f->s.bones[10].parent = 12; skeleton_link(&f->s, true))
EDIT(parent_itself, f->s.bones[10].parent = 10; skeleton_link(&f->s, true))
EDIT(parent_no_bone, f->s.bones[10].parent = -7; skeleton_link(&f->s, true))
EDIT(p3rd_parent_after_child,
     f->s.game = SKELETON_MHP3RD; f->s.bones[3].parent = 30)
EDIT(animated_past_bones, f->s.params[1] = 49)
EDIT(animated_none, f->s.params[1] = 0)
EDIT(first_child_skipped, f->s.bones[4].child = 9) /* 5 is its first */
EDIT(sibling_skipped, f->s.bones[5].sibling = 13) /* 9 is next */
EDIT(child_of_a_leaf, f->s.bones[12].child = 40)
EDIT(root_sibling_not_a_root, f->s.bones[0].sibling = 3)
EDIT(roots_unchained, skeleton_link(&f->s, false))
EDIT(link_on_kind_1, f->s.bones[7].link = 3)
EDIT(kind_2_linking_later, f->s.bones[7].kind = 2; f->s.bones[7].link = 20)
EDIT(kind_2_linking_earlier, f->s.bones[7].kind = 2; f->s.bones[7].link = 3)
EDIT(p3rd_child_skipped,
     f->s.game = SKELETON_MHP3RD; f->s.bones[4].child = 9)
EDIT(animated_all_bones, f->s.params[1] = 48)
EDIT(animated_unsaid, f->s.nparams = 1)
EDIT(p3rd_animated_past_bones,
     f->s.game = SKELETON_MHP3RD; f->s.params[1] = 99)
EDIT(part_going_back, f->s.bones[44].part = 0)
EDIT(part_going_back_past_animated, f->s.bones[46].part = 0)
EDIT(first_joint_in_part_1,
     for (uint32_t i = 0; i < 31; i++) f->s.bones[i].part = 1;
     for (uint32_t i = 31; i < 45; i++) f->s.bones[i].part++)
EDIT(head_joint_off_the_body, f->s.bones[39].parent = 8; skeleton_link(&f->s, true))
EDIT(tail_off_the_head, f->s.bones[40].parent = 35; skeleton_link(&f->s, true))
EDIT(tail_off_another_body_joint, f->s.bones[40].parent = 5; skeleton_link(&f->s, true))
EDIT(p3rd_part_going_back,
     f->s.game = SKELETON_MHP3RD; f->s.bones[0].part = 5)
EDIT(parent_changed, /* still a valid tree */
     f->s.bones[20].parent = 4; skeleton_link(&f->s, true))
EDIT(bone_added,
     skeleton_free(&f->s); tigrex_skeleton(&f->s, TIGREX_BONES + 1))
EDIT(p3rd_bones_dropped,
     f->s.game = SKELETON_MHP3RD;
     skeleton_free(&f->before); tigrex_skeleton(&f->before, 10))
EDIT(no_tracks, clip_free(&f->c); f->c = (struct clip){0})
EDIT(one_track, clip_free(&f->c); rest_clip(&f->c, 1))
EDIT(track_3_empty, empty_track(&f->c.tracks[3]))
EDIT(scale_channel,
     assert_non_null(clip_add_key(clip_add_channel(&f->c.tracks[5], CLIP_SCL_Y),
				  (struct clip_key){.value = 256})))
EDIT(rot_x_twice,
     assert_non_null(clip_add_key(clip_add_channel(&f->c.tracks[2], CLIP_ROT_X),
				  (struct clip_key){0})))
EDIT(bit_0x1000,
     assert_non_null(clip_add_key(clip_add_channel(&f->c.tracks[2], 0x1000),
				  (struct clip_key){0})))
EDIT(bit_0x4000,
     assert_non_null(clip_add_key(clip_add_channel(&f->c.tracks[6], 0x4000),
				  (struct clip_key){0})))
EDIT(unnamed_bit_0x004,
     assert_non_null(clip_add_key(clip_add_channel(&f->c.tracks[2], CLIP_U4),
				  (struct clip_key){.value = 16})))
EDIT(loc_x_without_keys, assert_non_null(clip_add_channel(&f->c.tracks[2], CLIP_LOC_X)))
EDIT(loc_x_added,
     assert_non_null(clip_add_key(clip_add_channel(&f->c.tracks[2], CLIP_LOC_X),
				  (struct clip_key){0})))
EDIT(stray_mask_bit, f->c.tracks[4].mask |= CLIP_LOC_X)
EDIT(key_going_back, keys_to_40(f)->keys[2].frame = 10) /* 0 30 10 40 */
EDIT(keys_at_equal_frames, keys_to_40(f))
EDIT(key_before_0, f->c.tracks[7].channels[2].keys[0].frame = -1)
EDIT(value_past_s16, f->text = "track 0\nchannel rot_x\n0 40000 0 0\n")
EDIT(value_s16_max, f->text = "track 0\nchannel rot_x\n0 32767 0 0\n")
EDIT(head_clip_short, drop_last_track(slot_clip(&f->a, 2, 4)))
EDIT(tail_stream_emptied,
     for (uint32_t i = 0; i < 6; i++)
	     assert_int_equal(anim_set_slot(&f->a, 4, i, ANIM_EMPTY, NULL), MH_OK))
EDIT(severed_tail_animated, f->s.params[1] = TIGREX_BONES)
EDIT(odd_stream_emptied,
     assert_int_equal(anim_set_slot(&f->a, 1, 100, ANIM_EMPTY, NULL), MH_OK))
EDIT(clip_short, drop_last_track(&f->c))

/* A row's rule, and whether its edit breaks it. */
#define BREAKS(rule, lvl) .code = rule, .breaks = true, .level = lvl
#define SPARES(rule) .code = rule, .breaks = false
/* The arguments of an ON_CLIP row's rules_check_clip. */
#define CLIP_OF(fmt, part_joints, track0_joint) \
	.format = fmt, .joints = part_joints, .first_joint = track0_joint

static const struct rule_row RULE_ROWS[] = {
	{"a bone's parent after it", parent_after_child, ON_SKELETON,
	 BREAKS(RULE_PARENT_ORDER, RULE_ERROR), .at = AT_BONE(10),
	 .msg = "bone 10: its parent, bone 12, does not come before it"},
	{"a bone its own parent", parent_itself, ON_SKELETON,
	 BREAKS(RULE_PARENT_ORDER, RULE_ERROR), .at = AT_BONE(10),
	 .msg = "bone 10: its parent, bone 10, does not come before it"},
	{"a parent that is no bone", parent_no_bone, ON_SKELETON,
	 BREAKS(RULE_PARENT_ORDER, RULE_ERROR), .at = AT_BONE(10),
	 .msg = "bone 10: parent -7 is not a bone (-1 makes a root)"},
	{"MHP3rd: a parent after its child", p3rd_parent_after_child,
	 ON_SKELETON, SPARES(RULE_PARENT_ORDER)},

	{"more animated joints than bones", animated_past_bones, ON_SKELETON,
	 BREAKS(RULE_ANIMATED_COUNT, RULE_ERROR), .at = AT_BONE(-1),
	 .msg = "the skeleton: params give 49 animated joints, it has 48 "
		"bones"},
	{"no animated joints", animated_none, ON_SKELETON,
	 BREAKS(RULE_ANIMATED_COUNT, RULE_ERROR), .at = AT_BONE(-1),
	 .msg = "the skeleton: params give 0 animated joints: no part could "
		"play"},
	{"every bone animated", animated_all_bones, ON_SKELETON,
	 SPARES(RULE_ANIMATED_COUNT)},
	{"no animated count", animated_unsaid, ON_SKELETON,
	 SPARES(RULE_ANIMATED_COUNT)},
	{"MHP3rd: more animated joints than bones", p3rd_animated_past_bones,
	 ON_SKELETON, SPARES(RULE_ANIMATED_COUNT)},

	{"a child that is not the first child", first_child_skipped, ON_SKELETON,
	 BREAKS(RULE_BONE_LINKS, RULE_ERROR), .at = AT_BONE(4),
	 .msg = "bone 4: child 9, its first child is bone 5"},
	{"a sibling skipping one", sibling_skipped, ON_SKELETON,
	 BREAKS(RULE_BONE_LINKS, RULE_ERROR), .at = AT_BONE(5),
	 .msg = "bone 5: sibling 13, the next bone with its parent is bone 9"},
	{"a child of a bone without children", child_of_a_leaf, ON_SKELETON,
	 BREAKS(RULE_BONE_LINKS, RULE_ERROR), .at = AT_BONE(12),
	 .msg = "bone 12: child 40, but no bone has it as parent"},
	{"a root's sibling not a root", root_sibling_not_a_root, ON_SKELETON,
	 BREAKS(RULE_BONE_LINKS, RULE_ERROR), .at = AT_BONE(0),
	 .msg = "bone 0: sibling 3, the next root is bone 45 (or none: -1)"},
	{"a link on a kind-1 bone", link_on_kind_1, ON_SKELETON,
	 BREAKS(RULE_BONE_LINKS, RULE_ERROR), .at = AT_BONE(7),
	 .msg = "bone 7: link 3 on a kind-1 bone: only kind 2 links"},
	{"a kind-2 bone linking a later bone", kind_2_linking_later, ON_SKELETON,
	 BREAKS(RULE_BONE_LINKS, RULE_ERROR), .at = AT_BONE(7),
	 .msg = "bone 7: link 20: a kind-2 bone links an earlier bone"},
	{"roots that are not each other's siblings", roots_unchained, ON_SKELETON,
	 SPARES(RULE_BONE_LINKS)},
	{"a kind-2 bone linking an earlier bone", kind_2_linking_earlier,
	 ON_SKELETON, SPARES(RULE_BONE_LINKS)},
	{"MHP3rd: a child that is not the first child", p3rd_child_skipped,
	 ON_SKELETON, SPARES(RULE_BONE_LINKS)},

	{"a part going back", part_going_back, ON_SKELETON,
	 BREAKS(RULE_STREAM_RUNS, RULE_ERROR), .at = AT_BONE(44),
	 .msg = "bone 44: part 0 after part 2 (parts run 0, 1, 2... in bone "
		"order)"},
	{"the first joint outside part 0", first_joint_in_part_1, ON_SKELETON,
	 BREAKS(RULE_STREAM_RUNS, RULE_ERROR), .at = AT_BONE(0),
	 .msg = "bone 0: in part 1, the first joint must be in part 0"},
	{"a part going back past the animated joints",
	 part_going_back_past_animated, ON_SKELETON, SPARES(RULE_STREAM_RUNS)},
	{"MHP3rd: the first joint outside part 0", p3rd_part_going_back,
	 ON_SKELETON, SPARES(RULE_STREAM_RUNS)},

	{"a head joint hanging off the body", head_joint_off_the_body,
	 ON_SKELETON, BREAKS(RULE_STREAM_SUBTREE, RULE_ERROR), .at = AT_BONE(39),
	 .msg = "bone 39: in part 1, it does not descend from bone 31, the "
		"part's first joint"},
	{"the tail hanging off the head", tail_off_the_head, ON_SKELETON,
	 BREAKS(RULE_STREAM_SUBTREE, RULE_ERROR), .at = AT_BONE(40),
	 .msg = "bone 40: the first joint of part 2 hangs off bone 35, in part "
		"1: a later part hangs off part 0, not inside another"},
	{"the tail hanging off another body joint", tail_off_another_body_joint,
	 ON_SKELETON, SPARES(RULE_STREAM_SUBTREE)},

	{"a parent changed", parent_changed, ON_SKELETON_TEMPLATE,
	 BREAKS(RULE_TEMPLATE, RULE_ERROR), .at = AT_BONE(20),
	 .msg = "bone 20: parent 4, it was 19"},
	{"a bone added", bone_added, ON_SKELETON_TEMPLATE,
	 BREAKS(RULE_TEMPLATE, RULE_ERROR), .at = AT_BONE(-1),
	 .msg = "the skeleton: 49 bones, it had 48"},
	{"a parent changed, no skeleton before", parent_changed, ON_SKELETON,
	 SPARES(RULE_TEMPLATE)},
	{"MHP3rd: bones dropped", p3rd_bones_dropped, ON_SKELETON_TEMPLATE,
	 SPARES(RULE_TEMPLATE)},

	{"no tracks (MHP3rd)", no_tracks, ON_CLIP, CLIP_OF(CLIP_P3RD, -1, -1),
	 BREAKS(RULE_NO_TRACKS, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, -1, -1, -1, -1), .msg = "the clip: no tracks"},
	{"no tracks (MHFU)", no_tracks, ON_CLIP, CLIP_OF(CLIP_MHFU, -1, -1),
	 BREAKS(RULE_NO_TRACKS, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, -1, -1, -1, -1), .msg = "the clip: no tracks"},
	{"one track", one_track, ON_CLIP, CLIP_OF(CLIP_P3RD, -1, -1),
	 SPARES(RULE_NO_TRACKS)},

	{"a track without channels", track_3_empty, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, 31), BREAKS(RULE_TRACK_EMPTY, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 3, -1, -1, 34),
	 .msg = "track 3 (joint 34): no channels: its joint collapses to the "
		"origin"},
	{"MHP3rd: a track without channels", track_3_empty, ON_CLIP,
	 CLIP_OF(CLIP_P3RD, -1, -1), SPARES(RULE_TRACK_EMPTY)},

	{"a scale channel", scale_channel, ON_CLIP, CLIP_OF(CLIP_MHFU, 9, 31),
	 BREAKS(RULE_SCALE_CHANNEL, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 5, 3, -1, 36), .bit = CLIP_SCL_Y,
	 .msg = "track 5 (joint 36) channel scl_y: a scale channel: the "
		"engine crashes on it"},
	{"MHP3rd: a scale channel", scale_channel, ON_CLIP,
	 CLIP_OF(CLIP_P3RD, -1, -1), SPARES(RULE_SCALE_CHANNEL)},

	{"a channel twice", rot_x_twice, ON_CLIP, CLIP_OF(CLIP_MHFU, 9, -1),
	 BREAKS(RULE_DUPLICATE_CHANNEL, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 2, 3, -1, -1), .bit = CLIP_ROT_X,
	 .msg = "track 2 channel rot_x: a second channel of the same bit in "
		"the track"},
	{"MHP3rd: a channel twice", rot_x_twice, ON_CLIP,
	 CLIP_OF(CLIP_P3RD, -1, -1), BREAKS(RULE_DUPLICATE_CHANNEL, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 2, 3, -1, -1), .bit = CLIP_ROT_X,
	 .msg = "track 2 channel rot_x: a second channel of the same bit in "
		"the track"},
	{"a channel of another bit", loc_x_added, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, 31), SPARES(RULE_DUPLICATE_CHANNEL)},

	{"a channel of bit 0x1000", bit_0x1000, ON_CLIP, CLIP_OF(CLIP_MHFU, 9, 31),
	 BREAKS(RULE_CHANNEL_BIT, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 2, 3, -1, 33), .bit = 0x1000,
	 .msg = "track 2 (joint 33) channel 0x1000: bit 0x1000 is no channel "
		"the engine plays"},
	{"MHP3rd: a channel of bit 0x4000", bit_0x4000, ON_CLIP,
	 CLIP_OF(CLIP_P3RD, -1, -1), BREAKS(RULE_CHANNEL_BIT, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 6, 3, -1, -1), .bit = 0x4000,
	 .msg = "track 6 channel 0x4000: bit 0x4000 is no channel the engine "
		"plays"},
	{"an unnamed channel (bit 0x004)", unnamed_bit_0x004, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, 31), SPARES(RULE_CHANNEL_BIT)},

	{"a channel without keys", loc_x_without_keys, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, 31), BREAKS(RULE_EMPTY_CHANNEL, RULE_WARNING),
	 .at = AT_CLIP(-1, -1, 2, 3, -1, 33), .bit = CLIP_LOC_X,
	 .msg = "track 2 (joint 33) channel loc_x: no keyframes"},
	{"a channel with a key", loc_x_added, ON_CLIP, CLIP_OF(CLIP_P3RD, -1, -1),
	 SPARES(RULE_EMPTY_CHANNEL)},

	{"a mask bit no channel has", stray_mask_bit, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, 31), BREAKS(RULE_TRACK_MASK, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 4, -1, -1, 35),
	 .msg = "track 4 (joint 35): mask 0x078, its channels' bits are "
		"0x038"},
	{"MHP3rd: a mask bit no channel has", stray_mask_bit, ON_CLIP,
	 CLIP_OF(CLIP_P3RD, -1, -1), SPARES(RULE_TRACK_MASK)},

	{"a key going back", key_going_back, ON_CLIP, CLIP_OF(CLIP_MHFU, 9, 31),
	 BREAKS(RULE_FRAME_ORDER, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 3, 0, 2, 34), .bit = CLIP_ROT_X, .frame = 10,
	 .msg = "track 3 (joint 34) channel rot_x key 2: frame 10 after frame "
		"30"},
	{"MHP3rd: a key going back", key_going_back, ON_CLIP,
	 CLIP_OF(CLIP_P3RD, -1, -1), BREAKS(RULE_FRAME_ORDER, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 3, 0, 2, -1), .bit = CLIP_ROT_X, .frame = 10,
	 .msg = "track 3 channel rot_x key 2: frame 10 after frame 30"},
	{"a key before frame 0", key_before_0, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, -1), BREAKS(RULE_NEGATIVE_FRAME, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, 7, 2, 0, -1), .bit = CLIP_ROT_Z, .frame = -1,
	 .msg = "track 7 channel rot_z key 0: frame -1 is before frame 0"},
	{"keys at equal frames", keys_at_equal_frames, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, 31), SPARES(RULE_FRAME_ORDER)},
	{"keys at frame 0 and later", keys_at_equal_frames, ON_CLIP,
	 CLIP_OF(CLIP_P3RD, -1, -1), SPARES(RULE_NEGATIVE_FRAME)},

	{"a value past 32767", value_past_s16, ON_CLIP_TEXT,
	 BREAKS(RULE_VALUE_RANGE, RULE_ERROR), .line = 3},
	{"a value of 32767", value_s16_max, ON_CLIP_TEXT,
	 SPARES(RULE_VALUE_RANGE)},

	{"a head clip a track short", head_clip_short, ON_PACK,
	 BREAKS(RULE_PARTITION, RULE_ERROR),
	 .at = AT_CLIP(2, 4, -1, -1, -1, -1),
	 .msg = "stream 2 slot 4: 8 tracks, part 1 has 9 joints (31..39)"},
	{"a clip a track short of its part", clip_short, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, 9, 31), BREAKS(RULE_PARTITION, RULE_ERROR),
	 .at = AT_CLIP(-1, -1, -1, -1, -1, -1),
	 .msg = "the clip: 8 tracks, its part has 9 joints"},
	{"a head clip a track short, no skeleton", head_clip_short,
	 ON_PACK_WITHOUT_RIG, SPARES(RULE_PARTITION)},
	{"the severed tail animated: part 3 has no stream", severed_tail_animated,
	 ON_PACK, BREAKS(RULE_PARTITION, RULE_ERROR),
	 .at = AT_CLIP(6, -1, -1, -1, -1, -1),
	 .msg = "stream 6: part 3 has 3 joints, the pack has no stream 6 for it"},
	{"the tail's stream emptied (to be filled again)", tail_stream_emptied,
	 ON_PACK, SPARES(RULE_PARTITION)},
	{"an odd stream emptied", odd_stream_emptied, ON_PACK,
	 SPARES(RULE_PARTITION)},
	{"a clip a track short, its part unknown", clip_short, ON_CLIP,
	 CLIP_OF(CLIP_MHFU, -1, 31), SPARES(RULE_PARTITION)},

	{"a skeleton's bytes that no longer decode", skeleton_garbled, ON_ITEM,
	 BREAKS(RULE_UNDECODABLE, RULE_ERROR), .at = AT_BONE(-1),
	 .msg = "the bytes: the game loads a skeleton here, and they do not decode as one "
		"(corrupt at byte 5404: bone 20: index field says 21)"},
	{"a skeleton written back as it was", skeleton_unchanged, ON_ITEM,
	 SPARES(RULE_UNDECODABLE)},
};

#define NROWS (sizeof RULE_ROWS / sizeof *RULE_ROWS)

/* Fails naming the row when got != want. */
static void row_field(const struct rule_row *row, const char *field,
		      long long got, long long want)
{
	if (got != want)
		fail_msg("\"%s\": %s %lld, want %lld", row->edit_name, field, got,
			 want);
}

static void run_check(const struct rule_row *row, const struct fixture *f,
		      struct rule_report *r)
{
	*r = (struct rule_report){0};
	enum mh_err err = MH_OK;
	switch (row->on) {
	case ON_SKELETON:
		err = rules_check_skeleton(&f->s, NULL, r);
		break;
	case ON_SKELETON_TEMPLATE:
		err = rules_check_skeleton(&f->s, &f->before, r);
		break;
	case ON_CLIP:
		err = rules_check_clip(&f->c, row->format, row->joints,
				       row->first_joint, r);
		break;
	case ON_PACK:
		err = rules_check_pack(&f->a, &f->s, r);
		break;
	case ON_PACK_WITHOUT_RIG:
		err = rules_check_pack(&f->a, NULL, r);
		break;
	case ON_CLIP_TEXT:
		break;
	case ON_ITEM: {
		uint8_t *now, *was;
		size_t now_len, was_len;
		assert_int_equal(skeleton_encode(&f->s, &now, &now_len, NULL), MH_OK);
		assert_int_equal(skeleton_encode(&f->before, &was, &was_len, NULL), MH_OK);
		if (f->garbled)
			now[GARBLED_AT] ^= 1;
		err = rules_check_item(now, now_len, was, was_len, NULL, false, r);
		free(now);
		free(was);
		break;
	}
	}
	row_field(row, "check result", err, MH_OK);
}

/* VALUE_RANGE is no check's: the text parsers refuse the number
 * (MH_ERANGE), and the rule names that refusal. */
static void expect_text_row(const struct rule_row *row, const char *text)
{
	struct clip c;
	struct mh_diag d = {0};
	enum mh_err err = clip_parse(text, strlen(text), &c, &d);
	if (!row->breaks) {
		row_field(row, "parse result", err, MH_OK);
		clip_free(&c);
		return;
	}
	row_field(row, "parse result", err, MH_ERANGE);
	row_field(row, "line", d.line, row->line);
	row_field(row, "level", rules_table[row->code].level, row->level);
}

static void expect_row(const struct rule_row *row, const struct rule_report *r)
{
	for (size_t i = 0; r->n != (size_t)row->breaks && i < r->n; i++)
		print_message("  %s: %s %s: %s\n", row->edit_name,
			      rules_table[r->v[i].code].name,
			      rule_level_name(r->v[i].level), r->v[i].msg);
	row_field(row, "violations", (long long)r->n, row->breaks);
	if (!row->breaks)
		return;
	const struct rule_violation *v = &r->v[0];
	row_field(row, "code", v->code, row->code);
	row_field(row, "level", v->level, row->level);
	row_field(row, "existing", v->existing, false);
	row_field(row, "bone", v->bone, row->at.bone);
	row_field(row, "stream", v->stream, row->at.stream);
	row_field(row, "slot", v->slot, row->at.slot);
	row_field(row, "track", v->track, row->at.track);
	row_field(row, "channel", v->channel, row->at.channel);
	row_field(row, "key", v->key, row->at.key);
	row_field(row, "joint", v->joint, row->at.joint);
	row_field(row, "bit", v->bit, row->bit);
	row_field(row, "frame", v->frame, row->frame);
	if (strcmp(v->msg, row->msg))
		fail_msg("\"%s\": message \"%s\", want \"%s\"", row->edit_name,
			 v->msg, row->msg);
	assert_ptr_equal(v->fix, rules_table[row->code].fix);
	assert_true(rules_has_errors(r) == (row->level == RULE_ERROR));
}

static void test_rule_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < NROWS; i++) {
		const struct rule_row *row = &RULE_ROWS[i];
		struct fixture f;
		struct rule_report r;
		fixture_init(&f);
		row->edit(&f);
		if (row->on == ON_CLIP_TEXT) {
			expect_text_row(row, f.text);
		} else {
			run_check(row, &f, &r);
			expect_row(row, &r);
			rules_report_free(&r);
		}
		fixture_free(&f);
	}
}

/* Every rule of skeletons and packs has a row that breaks it and one
 * that spares it; the PMO's are test_pmo_rules'. */
static void test_every_rule_has_rows(void **state)
{
	(void)state;
	for (int code = 0; code < RULE_PALETTE_JOINT; code++) {
		bool broken = false, spared = false;
		for (size_t i = 0; i < NROWS; i++) {
			if (RULE_ROWS[i].code != (enum rule_code)code)
				continue;
			broken |= RULE_ROWS[i].breaks;
			spared |= !RULE_ROWS[i].breaks;
		}
		if (!broken || !spared)
			fail_msg("%s: no row that %s it", rules_table[code].name,
				 broken ? "spares" : "breaks");
	}
}

/* ---- one edit, several violations ---------------------------------------- */

/* The head's first joint with its parent inside the head: the parent
 * comes later, and the part no longer hangs off an earlier one. */
static void test_parent_inside_its_part(void **state)
{
	(void)state;
	struct skeleton s;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[31].parent = 33;
	skeleton_link(&s, true);
	check_skeleton(&s, NULL, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_PARENT_ORDER);
	assert_bone_at(&r.v[0], 31);
	assert_int_equal(r.v[1].code, RULE_STREAM_SUBTREE);
	assert_bone_at(&r.v[1], 31);
	assert_non_null(strstr(r.v[1].msg, "inside the part"));
	rules_report_free(&r);
	skeleton_free(&s);
}

/* A body joint whose parent is in the tail: the parent comes later, and
 * the tail parents a joint of an earlier part. */
static void test_later_part_parenting_an_earlier_joint(void **state)
{
	(void)state;
	struct skeleton s;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	s.bones[20].parent = 42;
	skeleton_link(&s, true);
	check_skeleton(&s, NULL, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_PARENT_ORDER);
	assert_bone_at(&r.v[0], 20);
	assert_int_equal(r.v[1].code, RULE_STREAM_SUBTREE);
	assert_bone_at(&r.v[1], 20);
	assert_string_equal(r.v[1].msg, "bone 20: in part 0, its parent, bone 42, "
			    "is in the later part 2");
	rules_report_free(&r);
	skeleton_free(&s);
}

/* A broken animated count skips the rules that need it: the parts are
 * not known, so the packs are not held to them either. */
static void test_broken_count_skips_the_parts(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	s.params[1] = 0;
	s.bones[44].part = 0; /* STREAM_RUNS, were the count known */
	check_skeleton(&s, NULL, &r);
	assert_int_equal(only(&r, RULE_ANIMATED_COUNT)->bone, -1);
	rules_report_free(&r);
	drop_last_track(slot_clip(&a, 2, 4));
	check_pack(&a, &s, &r);
	assert_int_equal(r.n, 0);
	rules_report_free(&r);
	/* The same skeleton with 44 animated joints: the tail's part has
	 * 4, its clips 5 tracks. */
	s.params[1] = 44;
	s.bones[44].part = 2;
	check_pack(&a, &s, &r);
	assert_int_equal(count(&r, RULE_PARTITION), 6); /* 5 tail clips, slot 4 */
	assert_string_equal(r.v[r.n - 1].msg, "stream 4 slot 5: 5 tracks, part 2 has 4 "
			    "joints (40..43)");
	rules_report_free(&r);
	anim_free(&a);
	skeleton_free(&s);
}

/* A clip without tracks is NO_TRACKS alone (the toolkit's PARTITION
 * counts only clips with tracks); a track past the part's joints is
 * PARTITION only (it drives no joint). */
static void test_track_counts_and_empty_tracks(void **state)
{
	(void)state;
	struct clip c = {0};
	struct rule_report r;
	check_clip(&c, CLIP_MHFU, 9, 31, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(count(&r, RULE_NO_TRACKS), 1);
	rules_report_free(&r);

	rest_clip(&c, 9);
	empty_track(&c.tracks[3]);
	empty_track(&c.tracks[8]);
	check_clip(&c, CLIP_MHFU, 8, 31, &r);
	assert_int_equal(count(&r, RULE_TRACK_EMPTY), 1); /* track 3 only */
	assert_int_equal(count(&r, RULE_PARTITION), 1);
	assert_int_equal(r.n, 2);
	rules_report_free(&r);
	clip_free(&c);
}

/* Bits past 16 (models only) are compared too, and are no channel. */
static void test_channel_twice_past_bit_16(void **state)
{
	(void)state;
	struct clip c;
	struct rule_report r;
	rest_clip(&c, 9);
	for (int i = 0; i < 2; i++)
		assert_non_null(clip_add_key(clip_add_channel(&c.tracks[4], 0x10000),
					     (struct clip_key){0}));
	check_clip(&c, CLIP_P3RD, -1, -1, &r);
	assert_int_equal(r.n, 3);
	assert_int_equal(count(&r, RULE_CHANNEL_BIT), 2);
	const struct rule_violation *v = &r.v[2];
	assert_int_equal(v->code, RULE_DUPLICATE_CHANNEL);
	assert_int_equal(v->track, 4);
	assert_int_equal(v->channel, 4);
	assert_non_null(strstr(v->msg, "channel 0x10000"));
	rules_report_free(&r);
	clip_free(&c);
}

/* Two bits in one channel word are no channel either. */
static void test_channel_of_two_bits(void **state)
{
	(void)state;
	struct clip c;
	struct rule_report r;
	rest_clip(&c, 2);
	assert_non_null(clip_add_key(clip_add_channel(&c.tracks[1], CLIP_ROT_X | CLIP_ROT_Y),
				     (struct clip_key){0}));
	check_clip(&c, CLIP_MHFU, 2, 0, &r);
	assert_string_equal(only(&r, RULE_CHANNEL_BIT)->msg, "track 1 (joint 1) channel "
			    "0x018: bit 0x018 is no channel the engine plays");
	rules_report_free(&r);
	clip_free(&c);
}

/* A clip shared across streams is checked against each part, and its
 * own rules once, at its first use. */
static void test_shared_clip_checked_against_each_part(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	assert_int_equal(anim_set_slot(&a, 4, 5, a.streams[2].slots[1], NULL),
			 MH_OK);
	assert_int_equal(anim_compact(&a, NULL), MH_OK);
	empty_track(&slot_clip(&a, 2, 1)->tracks[0]);
	check_pack(&a, &s, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_TRACK_EMPTY);
	assert_clip_at(&r.v[0], 2, 1, 0, -1, -1);
	assert_int_equal(r.v[0].joint, 31);
	assert_string_equal(r.v[0].msg, "stream 2 slot 1 track 0 (joint 31): "
			    "no channels: its joint collapses to the origin");
	assert_int_equal(r.v[1].code, RULE_PARTITION);
	assert_clip_at(&r.v[1], 4, 5, -1, -1, -1);
	assert_string_equal(r.v[1].msg, "stream 4 slot 5: 9 tracks, part 2 "
			    "has 5 joints (40..44)");
	rules_report_free(&r);
	anim_free(&a);
	skeleton_free(&s);
}

/* A stream of a part the skeleton does not animate: every clip of it. */
static void test_stream_of_an_unanimated_part(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct rule_report r;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	s.params[1] = 40;
	check_pack(&a, &s, &r);
	assert_int_equal(count(&r, RULE_PARTITION), 5); /* 5 clips */
	for (size_t i = 0; i < r.n; i++) {
		assert_int_equal(r.v[i].stream, 4);
		assert_non_null(strstr(r.v[i].msg, "part 2 has no animated "
				       "joints"));
	}
	rules_report_free(&r);
	anim_free(&a);
	skeleton_free(&s);
}

/* ---- packs ------------------------------------------------------------ */

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
	assert_non_null(clip_add_key(clip_add_channel(&c->tracks[12], CLIP_SCL_X),
				     (struct clip_key){.value = 256}));
	check_pack(&a, &s, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_NEGATIVE_FRAME);
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

/* MHP3rd packs: only NO_TRACKS, CHANNEL_BIT, DUPLICATE_CHANNEL,
 * NEGATIVE_FRAME, FRAME_ORDER and EMPTY_CHANNEL. */
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
	assert_non_null(clip_add_key(clip_add_channel(&c.tracks[2], CLIP_SCL_X),
				     (struct clip_key){.value = 256})); /* MHFU */
	c.tracks[3].mask = 0;                         /* TRACK_MASK: MHFU */
	assert_non_null(clip_add_channel(&c.tracks[4], CLIP_ROT_Y)); /* no keys */
	c.tracks[5].channels[0].keys[1].frame = -2;
	assert_non_null(clip_add_key(clip_add_channel(&c.tracks[6], 0x1000),
				     (struct clip_key){0}));
	assert_int_equal(anim_set_slot(&a, 0, 1, anim_add_clip(&a, &c), NULL),
			 MH_OK);
	struct clip empty = {0};
	assert_int_equal(anim_set_slot(&a, 1, 1, anim_add_clip(&a, &empty),
				       NULL), MH_OK);
	assert_int_equal(anim_compact(&a, NULL), MH_OK);
	check_pack(&a, &rig, &r);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.v[0].code, RULE_CHANNEL_BIT);
	assert_clip_at(&r.v[0], 0, 1, 6, 3, -1);
	assert_int_equal(r.v[1].code, RULE_DUPLICATE_CHANNEL);
	assert_clip_at(&r.v[1], 0, 1, 4, 3, -1);
	assert_int_equal(r.v[2].code, RULE_NEGATIVE_FRAME);
	assert_clip_at(&r.v[2], 0, 1, 5, 0, 1);
	assert_int_equal(r.v[3].code, RULE_EMPTY_CHANNEL);
	assert_clip_at(&r.v[3], 0, 1, 4, 3, -1);
	assert_int_equal(r.v[3].level, RULE_WARNING);
	assert_int_equal(r.v[4].code, RULE_NO_TRACKS);
	assert_clip_at(&r.v[4], 1, 1, -1, -1, -1);
	assert_string_equal(r.v[4].msg, "stream 1 slot 1: no tracks");
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
	assert_clip_at(only(&r, RULE_NEGATIVE_FRAME), -1, -1, 1, 2, 1);
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
		assert_int_equal(count(&r, RULE_PARTITION), 1);
		for (size_t i = 0; i < r.n; i++) {
			const struct rule_violation *v = &r.v[i];
			if (v->code == RULE_PARTITION) {
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
	assert_non_null(clip_add_key(clip_add_channel(t, CLIP_LOC_Y), (struct clip_key){0}));
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
	assert_int_equal(after.v[1].code, RULE_NEGATIVE_FRAME);
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
	skeleton_link(&s, true);
	check_skeleton(&s, NULL, &before);
	s.bones[14].parent = 20;
	skeleton_link(&s, true);
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

/* ---- items: the walk over skeletons, packs and PACs --------------------- */

/* Bytes of the fixtures, and PACs of them. */
struct item_bytes {
	uint8_t *skel, *moved_skel, *pack, *short_pack;
	size_t skel_len, moved_skel_len, pack_len, short_pack_len;
};

static void item_bytes_build(struct item_bytes *b)
{
	struct skeleton s;
	struct anim a;
	tigrex_skeleton(&s, TIGREX_BONES);
	assert_int_equal(skeleton_encode(&s, &b->skel, &b->skel_len, NULL), MH_OK);
	s.bones[20].parent = 4; /* TEMPLATE against the one above */
	skeleton_link(&s, true);
	assert_int_equal(skeleton_encode(&s, &b->moved_skel, &b->moved_skel_len, NULL), MH_OK);
	skeleton_free(&s);
	tigrex_pack(&a);
	assert_int_equal(anim_encode(&a, &b->pack, &b->pack_len, NULL), MH_OK);
	drop_last_track(slot_clip(&a, 2, 4)); /* PARTITION, given a rig */
	assert_int_equal(anim_encode(&a, &b->short_pack, &b->short_pack_len, NULL), MH_OK);
	anim_free(&a);
}

static void item_bytes_free(struct item_bytes *b)
{
	free(b->skel);
	free(b->moved_skel);
	free(b->pack);
	free(b->short_pack);
}

/* A PAC (alignment 16, no tail) of n members given as pointer, length. */
static uint8_t *pac_of(size_t *len, uint32_t n, ...)
{
	struct pac_blob b[8];
	va_list ap;
	va_start(ap, n);
	for (uint32_t i = 0; i < n; i++) {
		b[i].data = va_arg(ap, const uint8_t *);
		b[i].size = (uint32_t)va_arg(ap, size_t);
	}
	va_end(ap);
	uint8_t *out;
	assert_int_equal(pac_encode(b, n, 16, NULL, 0, &out, len, NULL), MH_OK);
	return out;
}

/* A skeleton edited in place: TEMPLATE keeps its level. */
static void check_item(const uint8_t *item, size_t len, const uint8_t *before,
		       size_t before_len, const struct skeleton *rig,
		       struct rule_report *r)
{
	*r = (struct rule_report){0};
	assert_int_equal(rules_check_item(item, len, before, before_len, rig, false, r),
			 MH_OK);
}

/* A whole model written over the one before. */
static void check_whole_model(const uint8_t *item, size_t len, const uint8_t *before,
			      size_t before_len, struct rule_report *r)
{
	*r = (struct rule_report){0};
	assert_int_equal(rules_check_item(item, len, before, before_len, NULL, true, r),
			 MH_OK);
}

/* The short pack's one violation, in member `member` ("": the item). */
static void assert_short_pack_reported(const struct rule_report *r, const char *member)
{
	const struct rule_violation *v = only(r, RULE_PARTITION);
	assert_clip_at(v, 2, 4, -1, -1, -1);
	assert_string_equal(v->member, member);
	assert_string_equal(v->msg, "stream 2 slot 4: 8 tracks, part 1 has 9 "
			    "joints (31..39)");
}

static void test_item_packs_meet_their_pacs_skeleton(void **state)
{
	(void)state;
	struct item_bytes b;
	struct rule_report r;
	struct skeleton rig;
	item_bytes_build(&b);
	assert_int_equal(skeleton_decode(b.skel, b.skel_len, &rig, NULL), MH_OK);

	/* A pack alone: PARTITION only against a rig given. */
	check_item(b.short_pack, b.short_pack_len, NULL, 0, NULL, &r);
	assert_int_equal(r.n, 0);
	check_item(b.short_pack, b.short_pack_len, NULL, 0, &rig, &r);
	assert_short_pack_reported(&r, "");
	rules_report_free(&r);
	check_item(b.pack, b.pack_len, NULL, 0, &rig, &r);
	assert_int_equal(r.n, 0);

	/* In a model PAC, against the PAC's own skeleton. */
	size_t model_len, nested_len, bare_len, wrapped_len;
	uint8_t *model = pac_of(&model_len, 3, b.skel, b.skel_len, (const uint8_t *)"data",
				(size_t)4, b.short_pack, b.short_pack_len);
	check_item(model, model_len, NULL, 0, NULL, &r);
	assert_short_pack_reported(&r, "2.anim");
	rules_report_free(&r);

	/* A PAC without a skeleton nested in the model: its pack takes the
	 * model's. */
	uint8_t *bare = pac_of(&bare_len, 2, (const uint8_t *)"y", (size_t)1, b.short_pack,
			       b.short_pack_len);
	uint8_t *nested = pac_of(&nested_len, 2, b.skel, b.skel_len, bare, bare_len);
	check_item(nested, nested_len, NULL, 0, NULL, &r);
	assert_short_pack_reported(&r, "1/1.anim");
	rules_report_free(&r);

	/* Alone, that PAC's pack meets the rig the caller gives, if any. */
	check_item(bare, bare_len, NULL, 0, NULL, &r);
	assert_int_equal(r.n, 0);
	check_item(bare, bare_len, NULL, 0, &rig, &r);
	assert_short_pack_reported(&r, "1.anim");
	rules_report_free(&r);

	/* Two levels down, the clean pack beside it reports nothing. */
	uint8_t *wrapped = pac_of(&wrapped_len, 2, nested, nested_len, b.pack, b.pack_len);
	check_item(wrapped, wrapped_len, NULL, 0, NULL, &r);
	assert_short_pack_reported(&r, "0/1/1.anim");
	rules_report_free(&r);

	free(wrapped);
	free(nested);
	free(bare);
	free(model);
	skeleton_free(&rig);
	item_bytes_free(&b);
}

static void test_item_template_at_the_same_position(void **state)
{
	(void)state;
	struct item_bytes b;
	struct rule_report r;
	item_bytes_build(&b);

	check_item(b.moved_skel, b.moved_skel_len, NULL, 0, NULL, &r);
	assert_int_equal(r.n, 0);
	check_item(b.moved_skel, b.moved_skel_len, b.skel, b.skel_len, NULL, &r);
	const struct rule_violation *v = only(&r, RULE_TEMPLATE);
	assert_bone_at(v, 20);
	assert_string_equal(v->msg, "bone 20: parent 4, it was 19");
	rules_report_free(&r);

	/* In a PAC: against the member at the same index before. */
	size_t now_len, was_len, swapped_len;
	uint8_t *now = pac_of(&now_len, 2, b.moved_skel, b.moved_skel_len, b.pack, b.pack_len);
	uint8_t *was = pac_of(&was_len, 2, b.skel, b.skel_len, b.pack, b.pack_len);
	uint8_t *swapped = pac_of(&swapped_len, 2, b.pack, b.pack_len, b.skel, b.skel_len);
	check_item(now, now_len, was, was_len, NULL, &r);
	v = only(&r, RULE_TEMPLATE);
	assert_bone_at(v, 20);
	assert_string_equal(v->member, "0.skeleton");
	rules_report_free(&r);
	/* Before, index 0 held the pack: no skeleton to hold it to, but the
	 * game loads a pack there and a skeleton at 1 (UNDECODABLE twice). */
	check_item(now, now_len, swapped, swapped_len, NULL, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_UNDECODABLE);
	assert_string_equal(r.v[0].member, "0.skeleton");
	assert_int_equal(r.v[1].code, RULE_UNDECODABLE);
	assert_string_equal(r.v[1].member, "1.anim");
	rules_report_free(&r);
	/* Before bytes that are not a PAC: no member to compare, but the
	 * skeleton the game loaded there is gone. */
	check_item(now, now_len, b.skel, b.skel_len, NULL, &r);
	assert_string_equal(only(&r, RULE_UNDECODABLE)->member, "");
	rules_report_free(&r);
	free(now);
	free(was);
	free(swapped);
	item_bytes_free(&b);
}

/* A whole model PAC carrying its own skeleton and a pack that agree is a
 * port: its skeleton's TEMPLATE is a warning.  The same skeleton edited
 * in place, a PAC without a pack, or one whose pack disagrees, is not. */
static void test_item_whole_model_port(void **state)
{
	(void)state;
	struct item_bytes b;
	struct rule_report r;
	item_bytes_build(&b);
	size_t was_len, port_len, skeleton_only_len, disagreeing_len;
	uint8_t *was = pac_of(&was_len, 2, b.skel, b.skel_len, b.pack, b.pack_len);
	uint8_t *port = pac_of(&port_len, 2, b.moved_skel, b.moved_skel_len, b.pack,
			       b.pack_len);
	uint8_t *skeleton_only = pac_of(&skeleton_only_len, 2, b.moved_skel,
					b.moved_skel_len, (const uint8_t *)"data", (size_t)4);
	uint8_t *disagreeing = pac_of(&disagreeing_len, 2, b.moved_skel, b.moved_skel_len,
				      b.short_pack, b.short_pack_len);

	check_whole_model(port, port_len, was, was_len, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].code, RULE_TEMPLATE);
	assert_int_equal(r.v[0].level, RULE_WARNING);
	assert_false(rules_has_errors(&r));
	assert_string_equal(r.v[0].msg, "bone 20: parent 4, it was 19 (a port: the PAC "
			    "carries its own skeleton and pack, and they agree)");
	rules_report_free(&r);

	check_item(port, port_len, was, was_len, NULL, &r);
	assert_int_equal(only(&r, RULE_TEMPLATE)->level, RULE_ERROR);
	rules_report_free(&r);

	/* A port over a host with a second model (member 2 here): the
	 * member it lacks is only a warning; written as a member edit, or
	 * by a PAC that is no port, an error. */
	size_t host_len;
	uint8_t *host = pac_of(&host_len, 3, b.skel, b.skel_len, b.pack, b.pack_len, b.skel,
			       b.skel_len);
	check_whole_model(port, port_len, host, host_len, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[1].code, RULE_UNDECODABLE);
	assert_true(r.v[1].gone);
	assert_string_equal(r.v[1].member, "2.skeleton");
	assert_int_equal(r.v[1].level, RULE_WARNING);
	assert_false(rules_has_errors(&r));
	rules_report_free(&r);
	check_item(port, port_len, host, host_len, NULL, &r);
	assert_true(rules_has_errors(&r));
	assert_int_equal(r.v[1].level, RULE_ERROR);
	rules_report_free(&r);
	free(host);
	/* Its pack's place holds data now: the pack is gone (UNDECODABLE). */
	check_whole_model(skeleton_only, skeleton_only_len, was, was_len, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_TEMPLATE);
	assert_int_equal(r.v[0].level, RULE_ERROR);
	assert_int_equal(r.v[1].code, RULE_UNDECODABLE);
	assert_string_equal(r.v[1].member, "1.bin");
	rules_report_free(&r);
	check_whole_model(disagreeing, disagreeing_len, was, was_len, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_TEMPLATE);
	assert_int_equal(r.v[0].level, RULE_ERROR);
	assert_int_equal(r.v[1].code, RULE_PARTITION);
	rules_report_free(&r);
	free(was);
	free(port);
	free(skeleton_only);
	free(disagreeing);
	item_bytes_free(&b);
}

static void test_item_bytes_that_do_not_decode(void **state)
{
	(void)state;
	struct item_bytes b;
	struct rule_report r;
	item_bytes_build(&b);
	/* Bone 20's index word: the head still sniffs as a skeleton. */
	uint8_t *bad = malloc(b.moved_skel_len);
	assert_non_null(bad);
	memcpy(bad, b.moved_skel, b.moved_skel_len);
	bad[0x1C + 4 + 20 * SKELETON_SECTION_MHFU + 0x0C] ^= 1;
	struct skeleton rejected;
	assert_int_equal(kind_of(bad, b.moved_skel_len), KIND_SKELETON);
	assert_int_equal(skeleton_decode(bad, b.moved_skel_len, &rejected, NULL), MH_ECORRUPT);
	check_item(bad, b.moved_skel_len, NULL, 0, NULL, &r);
	assert_int_equal(r.n, 0);
	/* Over a skeleton that decoded: UNDECODABLE. */
	check_item(bad, b.moved_skel_len, b.skel, b.skel_len, NULL, &r);
	assert_int_equal(only(&r, RULE_UNDECODABLE)->level, RULE_ERROR);
	rules_report_free(&r);
	check_item((const uint8_t *)"plain data", 10, NULL, 0, NULL, &r);
	assert_int_equal(r.n, 0);
	check_item(NULL, 0, NULL, 0, NULL, &r);
	assert_int_equal(r.n, 0);
	free(bad);
	item_bytes_free(&b);
}

/* An edit judged over its container: the skeleton member edited in
 * place breaks TEMPLATE (its own violation unnamed) and the pack beside
 * it PARTITION (named); what the container broke before is a warning;
 * the mode applies last. */
static void test_edit_judged_over_its_container(void **state)
{
	(void)state;
	struct item_bytes b;
	struct rule_report r = {0};
	item_bytes_build(&b);
	size_t was_len, now_len, flawed_len, flawed_now_len;
	uint8_t *was = pac_of(&was_len, 2, b.skel, b.skel_len, b.pack, b.pack_len);
	uint8_t *now = pac_of(&now_len, 2, b.moved_skel, b.moved_skel_len, b.pack, b.pack_len);
	uint8_t *flawed = pac_of(&flawed_len, 2, b.skel, b.skel_len, b.short_pack,
				 b.short_pack_len);
	uint8_t *flawed_now = pac_of(&flawed_now_len, 2, b.moved_skel, b.moved_skel_len,
				     b.short_pack, b.short_pack_len);
	const uint16_t path[] = {0};

	assert_int_equal(rules_check_edit(was, was_len, now, now_len, path, 1, b.moved_skel,
					  b.moved_skel_len, RULES_STRICT, &r), MH_OK);
	assert_string_equal(only(&r, RULE_TEMPLATE)->member, "");
	assert_true(rules_has_errors(&r));
	rules_report_free(&r);

	/* The short pack was there before: its PARTITION only warns. */
	assert_int_equal(rules_check_edit(flawed, flawed_len, flawed_now, flawed_now_len, path, 1,
					  b.moved_skel, b.moved_skel_len, RULES_STRICT, &r),
			 MH_OK);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].code, RULE_TEMPLATE);
	assert_int_equal(r.v[1].code, RULE_PARTITION);
	assert_string_equal(r.v[1].member, "1.anim");
	assert_true(r.v[1].existing);
	assert_int_equal(r.v[1].level, RULE_WARNING);
	rules_report_free(&r);

	assert_int_equal(rules_check_edit(was, was_len, now, now_len, path, 1, b.moved_skel,
					  b.moved_skel_len, RULES_WARN, &r), MH_OK);
	assert_false(rules_has_errors(&r));
	rules_report_free(&r);

	/* A path past the PAC's members does not resolve. */
	const uint16_t past[] = {7, 0};
	assert_int_equal(rules_check_edit(was, was_len, now, now_len, past, 2, b.moved_skel,
					  b.moved_skel_len, RULES_STRICT, &r), MH_ERANGE);
	rules_report_free(&r);
	free(was);
	free(now);
	free(flawed);
	free(flawed_now);
	item_bytes_free(&b);
}

/* What the game loads from a model PAC, written over with junk, cut in
 * half or short of a member: each loaded member is UNDECODABLE, named. */
static void test_item_model_pac_undecodable(void **state)
{
	(void)state;
	struct item_bytes b;
	struct rule_report r;
	item_bytes_build(&b);
	struct mkpmo built;
	const struct mkpmo_shape shape = {.meshes = 1, .groups_per_mesh = 2, .vertices = 8};
	mkpmo_build(5, &shape, &built);
	const uint8_t *pmo = built.pmo;
	size_t was_len, junk_pmo_len, short_len;
	uint8_t *was = pac_of(&was_len, 4, b.skel, b.skel_len, pmo, built.len,
			      (const uint8_t *)"data", (size_t)4, b.pack, b.pack_len);
	uint8_t *junk_pmo = pac_of(&junk_pmo_len, 4, b.skel, b.skel_len,
				   (const uint8_t *)"junk", (size_t)4, (const uint8_t *)"data",
				   (size_t)4, b.pack, b.pack_len);
	uint8_t *one_short = pac_of(&short_len, 3, b.skel, b.skel_len, pmo, built.len,
				    (const uint8_t *)"data", (size_t)4);

	check_whole_model((const uint8_t *)"junk, not a PAC", 15, was, was_len, &r);
	assert_int_equal(r.n, 3);
	static const char *const gone[] = {"0.skeleton", "1.pmo", "3.anim"};
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(r.v[i].code, RULE_UNDECODABLE);
		assert_int_equal(r.v[i].level, RULE_ERROR);
		assert_string_equal(r.v[i].member, gone[i]);
		assert_non_null(strstr(r.v[i].msg, "it is gone: the PAC around it does not decode"));
	}
	rules_report_free(&r);

	check_whole_model(was, was_len / 2, was, was_len, &r);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.v[2].member, "3.anim");
	rules_report_free(&r);

	check_item(junk_pmo, junk_pmo_len, was, was_len, NULL, &r);
	assert_string_equal(only(&r, RULE_UNDECODABLE)->member, "1.bin");
	assert_string_equal(r.v[0].msg, "the bytes: the game loads a PMO here, and they do not "
			    "decode as one (unknown format at byte 0: no \"pmo\" magic)");
	rules_report_free(&r);

	check_whole_model(one_short, short_len, was, was_len, &r);
	assert_string_equal(only(&r, RULE_UNDECODABLE)->member, "3.anim");
	assert_string_equal(r.v[0].msg, "the bytes: the game loads an animation pack here, and "
			    "it is gone (the PAC no longer has the member)");
	rules_report_free(&r);

	/* The same PAC: nothing. */
	check_whole_model(was, was_len, was, was_len, &r);
	assert_int_equal(r.n, 0);
	free(was);
	free(junk_pmo);
	free(one_short);
	mkpmo_free(&built);
	item_bytes_free(&b);
}

/* PALETTE_JOINT against the skeleton beside the PMO, EMPTY_GROUP on a
 * group without vertices; a PMO that keeps both, nothing. */
static void test_pmo_rules(void **state)
{
	(void)state;
	struct mkpmo built;
	const struct mkpmo_shape shape = {.meshes = 2, .groups_per_mesh = 3, .vertices = 12,
					  .skinned = true, .remap = true};
	mkpmo_build(11, &shape, &built);
	struct pmo p;
	assert_int_equal(pmo_decode(built.pmo, built.len, NULL, 0, &p, NULL), MH_OK);
	uint32_t top = 0; /* the largest bone a palette names */
	for (uint32_t k = 0; k < p.palette_count; k++)
		top = p.palette[k].bone > top ? p.palette[k].bone : top;
	assert_true(p.palette_count > 0);

	struct skeleton big, small;
	assert_int_equal(skeleton_init(&big, SKELETON_MHFU, top + 1, NULL), MH_OK);
	assert_int_equal(skeleton_init(&small, SKELETON_MHFU, top, NULL), MH_OK);
	struct rule_report r = {0};
	assert_int_equal(rules_check_pmo(&p, &big, &r), MH_OK);
	assert_int_equal(r.n, 0);
	assert_int_equal(rules_check_pmo(&p, &small, &r), MH_OK);
	assert_true(r.n > 0);
	for (size_t i = 0; i < r.n; i++) {
		assert_int_equal(r.v[i].code, RULE_PALETTE_JOINT);
		assert_int_equal(r.v[i].level, RULE_ERROR);
		assert_true(r.v[i].group >= 0);
		assert_non_null(strstr(r.v[i].msg, "names bone"));
	}
	assert_true(rules_has_errors(&r));
	rules_report_free(&r);

	/* Group 1's draws taken away: no vertex. */
	uint32_t vertices = p.groups[1].vertex_count;
	p.groups[1].vertex_count = 0;
	r = (struct rule_report){0};
	assert_int_equal(rules_check_pmo(&p, NULL, &r), MH_OK);
	const struct rule_violation *v = only(&r, RULE_EMPTY_GROUP);
	assert_int_equal(v->level, RULE_WARNING);
	assert_int_equal(v->group, 1);
	assert_string_equal(v->msg, "group 1: it has no vertex (no draw reaches one)");
	assert_false(rules_has_errors(&r));
	rules_report_free(&r);
	p.groups[1].vertex_count = vertices;

	/* Through the item walk: a PAC of the small skeleton and the PMO. */
	size_t small_len, pac_len;
	uint8_t *small_bytes = NULL;
	assert_int_equal(skeleton_encode(&small, &small_bytes, &small_len, NULL), MH_OK);
	uint8_t *pac = pac_of(&pac_len, 2, small_bytes, small_len, built.pmo, built.len);
	r = (struct rule_report){0};
	assert_int_equal(rules_check_item(pac, pac_len, NULL, 0, NULL, false, &r), MH_OK);
	assert_true(r.n > 0);
	for (size_t i = 0; i < r.n; i++) {
		assert_int_equal(r.v[i].code, RULE_PALETTE_JOINT);
		assert_string_equal(r.v[i].member, "1.pmo");
	}
	rules_report_free(&r);
	free(pac);
	free(small_bytes);
	skeleton_free(&big);
	skeleton_free(&small);
	pmo_free(&p);
	mkpmo_free(&built);
}

/* A PMO's edit is judged alone, against the skeleton beside it: over a
 * PAC whose pack broke PARTITION already, a PMO edited in place reports
 * nothing (the pack is as it was, and no rule of it reads the PMO); a
 * PMO naming a bone past that skeleton breaks PALETTE_JOINT, unnamed as
 * the edited item's own violations are; a skeleton edited in the same
 * PAC is still judged over it all (the pack's PARTITION, existing). */
static void test_a_leaf_edit_is_judged_alone(void **state)
{
	(void)state;
	struct item_bytes b;
	item_bytes_build(&b);
	struct mkpmo built, moved;
	const struct mkpmo_shape shape = {.meshes = 1, .groups_per_mesh = 2, .vertices = 12,
					  .skinned = true};
	mkpmo_build(11, &shape, &built);
	mkpmo_build(11, &shape, &moved);
	struct pmo p;
	assert_int_equal(pmo_decode(moved.pmo, moved.len, NULL, 0, &p, NULL), MH_OK);
	struct pmo_vertex v = p.groups[0].vertices[0];
	v.pos[0] = v.pos[0] == 0 ? p.meshes[0].scale[0] / 4 : 0;
	assert_int_equal(pmo_vertex_set(&p, 0, 0, &v, NULL), MH_OK);
	uint8_t *now_pmo, *comp;
	size_t now_pmo_len, comp_len;
	assert_int_equal(pmo_encode(&p, &now_pmo, &now_pmo_len, &comp, &comp_len, NULL), MH_OK);
	assert_memory_not_equal(now_pmo, built.pmo, built.len);
	size_t was_len, now_len;
	uint8_t *was = pac_of(&was_len, 3, b.skel, b.skel_len, built.pmo, built.len,
			      b.short_pack, b.short_pack_len);
	uint8_t *now = pac_of(&now_len, 3, b.skel, b.skel_len, now_pmo, now_pmo_len,
			      b.short_pack, b.short_pack_len);
	const uint16_t pmo_path[] = {1}, skel_path[] = {0};
	struct rule_report r = {0};
	assert_int_equal(rules_check_edit(was, was_len, now, now_len, pmo_path, 1, now_pmo,
					  now_pmo_len, RULES_STRICT, &r), MH_OK);
	assert_int_equal(r.n, 0);
	rules_report_free(&r);
	/* the whole PAC checked has the pack's PARTITION: the edit did not
	 * look at it */
	assert_int_equal(rules_check_item(now, now_len, NULL, 0, NULL, false, &r), MH_OK);
	assert_non_null(only(&r, RULE_PARTITION));
	rules_report_free(&r);
	/* a palette past the skeleton beside it: PALETTE_JOINT, unnamed */
	for (uint32_t k = 0; k < p.palette_count; k++)
		p.palette[k].bone = 200;
	uint8_t *far, *far_comp;
	size_t far_len, far_comp_len;
	assert_int_equal(pmo_encode(&p, &far, &far_len, &far_comp, &far_comp_len, NULL), MH_OK);
	uint8_t *bad = pac_of(&now_len, 3, b.skel, b.skel_len, far, far_len, b.short_pack,
			      b.short_pack_len);
	assert_int_equal(rules_check_edit(was, was_len, bad, now_len, pmo_path, 1, far, far_len,
					  RULES_STRICT, &r), MH_OK);
	assert_true(r.n > 0);
	for (size_t i = 0; i < r.n; i++) {
		assert_int_equal(r.v[i].code, RULE_PALETTE_JOINT);
		assert_string_equal(r.v[i].member, "");
	}
	rules_report_free(&r);
	/* a skeleton's edit is judged over the PAC: the pack's PARTITION,
	 * there before, a warning */
	uint8_t *skel_now = pac_of(&now_len, 3, b.moved_skel, b.moved_skel_len, built.pmo,
				   built.len, b.short_pack, b.short_pack_len);
	assert_int_equal(rules_check_edit(was, was_len, skel_now, now_len, skel_path, 1,
					  b.moved_skel, b.moved_skel_len, RULES_STRICT, &r), MH_OK);
	const struct rule_violation *part = NULL;
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i].code == RULE_PARTITION)
			part = &r.v[i];
	assert_non_null(part);
	assert_true(part->existing);
	rules_report_free(&r);
	free(skel_now);
	free(bad);
	free(far);
	free(far_comp);
	free(was);
	free(now);
	free(now_pmo);
	free(comp);
	pmo_free(&p);
	mkpmo_free(&moved);
	mkpmo_free(&built);
	item_bytes_free(&b);
}

/* Every allocation of the walk failed in turn: MH_ENOMEM, the report
 * failed (so counted as holding errors), nothing leaked. */
static void test_item_out_of_memory(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct item_bytes b;
	item_bytes_build(&b);
	size_t inner_len, now_len, was_len;
	uint8_t *inner = pac_of(&inner_len, 2, (const uint8_t *)"y", (size_t)1, b.short_pack,
				b.short_pack_len);
	uint8_t *now = pac_of(&now_len, 2, b.moved_skel, b.moved_skel_len, inner, inner_len);
	uint8_t *was = pac_of(&was_len, 2, b.skel, b.skel_len, inner, inner_len);
	long live = faults_live;
	for (long k = 0;; k++) {
		struct rule_report r = {0};
		faults_arm(k);
		enum mh_err err = rules_check_item(now, now_len, was, was_len, NULL, true, &r);
		bool fired = faults_disarm();
		if (!fired) {
			assert_int_equal(err, MH_OK);
			assert_int_equal(r.n, 2);
			assert_int_equal(r.v[0].code, RULE_TEMPLATE);
			assert_int_equal(r.v[1].code, RULE_PARTITION);
			assert_true(k > 0);
			rules_report_free(&r);
			assert_int_equal(faults_live, live);
			break;
		}
		assert_int_equal(err, MH_ENOMEM);
		assert_true(r.failed);
		assert_true(rules_has_errors(&r));
		rules_report_free(&r);
		assert_int_equal(faults_live, live);
	}
	free(inner);
	free(now);
	free(was);
	item_bytes_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_clean_tigrex),
		cmocka_unit_test(test_rule_rows),
		cmocka_unit_test(test_every_rule_has_rows),
		cmocka_unit_test(test_parent_inside_its_part),
		cmocka_unit_test(test_later_part_parenting_an_earlier_joint),
		cmocka_unit_test(test_broken_count_skips_the_parts),
		cmocka_unit_test(test_track_counts_and_empty_tracks),
		cmocka_unit_test(test_channel_twice_past_bit_16),
		cmocka_unit_test(test_channel_of_two_bits),
		cmocka_unit_test(test_shared_clip_checked_against_each_part),
		cmocka_unit_test(test_stream_of_an_unanimated_part),
		cmocka_unit_test(test_pack_coordinates),
		cmocka_unit_test(test_p3rd_pack),
		cmocka_unit_test(test_unused_clip),
		cmocka_unit_test(test_generated_tigrex_packs),
		cmocka_unit_test(test_apply_mode),
		cmocka_unit_test(test_demote_existing),
		cmocka_unit_test(test_demote_skeleton),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_item_packs_meet_their_pacs_skeleton),
		cmocka_unit_test(test_item_template_at_the_same_position),
		cmocka_unit_test(test_item_whole_model_port),
		cmocka_unit_test(test_item_bytes_that_do_not_decode),
		cmocka_unit_test(test_item_model_pac_undecodable),
		cmocka_unit_test(test_pmo_rules),
		cmocka_unit_test(test_a_leaf_edit_is_judged_alone),
		cmocka_unit_test(test_edit_judged_over_its_container),
		cmocka_unit_test(test_item_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
