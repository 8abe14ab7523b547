/* SPDX-License-Identifier: MIT */
/* Tests of the host-rig port (codecs/port.h): each step on synthetic
 * rigs built here.  The host is Tigrex-shaped (tigrex.h's tree, three
 * limbs moved onto the chest: three origin joints, 45 animated joints in
 * parts 31/9/5, a severed chain 45..47) with bind positions set so every
 * pair of joints is told apart;
 * its pack fills entries 0..9 and 100..104 in every part, 10 in part 0
 * only, and 24 and 25 in the head part only.  The donors are MHP3rd:
 * the Brute-like one has the host's bones less joint 0 (two origin
 * bones, the fork at 1), the head's bones in the middle of the order, a
 * skipped bone and the severed chain as an orphan root chain; the mirror
 * one is the host's own rig, for the identity oracle. */
#include "testlib.h"

#include <math.h>

#include "anim.h"
#include "clip.h"
#include "curve.h"
#include "donor.h"
#include "entries.h"
#include "pac.h"
#include "pmo.h"
#include "mkpmo.h"
#include "port.h"
#include "port_int.h"
#include "records.h"
#include "rig.h"
#include "skeleton.h"
#include "tigrex.h"

/* ---- the host ------------------------------------------------------------ */

#define HOST_ODD_SLOTS 30u
#define BRUTE_BONES 47u
#define BRUTE_SKIPPED 43u /* the donor's bone of the host's tail tip, 44 */
#define BRUTE_RECORDS 46u

/* Offsets from the parent, so that no joint sits within 50 units of
 * another one level deeper: the depth penalty then keeps the pairs. */
static void host_positions(struct skeleton *s)
{
	for (uint32_t i = 0; i < s->nbones; i++) {
		float *p = s->bones[i].position;
		p[0] = p[1] = p[2] = 0;
		if (i == 3)
			p[1] = 100;
		else if (i >= 4 && i <= 8)
			p[2] = 80;
		else if (i >= 9 && i <= 30 && i % 4 == 1) { /* a limb's root, off 4 */
			uint32_t limb = (i - 9) / 4;
			p[0] = limb % 2 ? 80.0f : -80.0f;
			p[1] = -10;
			p[2] = 60.0f * (float)(limb / 2) - 60.0f;
		} else if (i >= 9 && i <= 30) {
			p[1] = -70;
			p[2] = 10;
		} else if (i == 31 || (i >= 32 && i <= 35))
			p[2] = i == 31 ? 80.0f : 70.0f;
		else if (i == 36) {
			p[1] = -60;
			p[2] = 30;
		} else if (i >= 37 && i <= 39) {
			p[1] = -10;
			p[2] = 60;
		} else if (i == 40) {
			p[1] = 100;
			p[2] = -90;
		} else if (i >= 41 && i <= 44)
			p[2] = -70;
		else if (i == 45) {
			p[1] = 60;
			p[2] = -500;
		} else if (i >= 46)
			p[2] = -70;
	}
}

static const uint32_t PART_FIRST[3] = {0, 31, 40}, PART_COUNT[3] = {31, 9, 5};

/* An entry's length and loop, the same in every part. */
static int16_t host_frames(uint32_t e)
{
	return (int16_t)(20 + e % 7);
}

static void add_keyed(struct clip_track *t, uint32_t bit, int16_t value, int16_t last)
{
	struct clip_channel *ch = clip_add_channel(t, bit);
	assert_non_null(ch);
	assert_non_null(clip_add_key(ch, (struct clip_key){.value = value}));
	assert_non_null(clip_add_key(ch, (struct clip_key){.value = (int16_t)(value + 1),
							    .frame = last}));
}

/* Part k's clip at entry e: rotation on every joint, location Y on the
 * hip too, values telling joint and entry apart. */
static void host_clip(struct clip *c, uint32_t e, uint32_t k)
{
	*c = (struct clip){.loop = e % 2, .loop_start = e % 2 ? 3.0f : 0.0f};
	for (uint32_t j = PART_FIRST[k]; j < PART_FIRST[k] + PART_COUNT[k]; j++) {
		struct clip_track *t = clip_add_track(c, 0);
		assert_non_null(t);
		for (uint32_t bit = CLIP_ROT_X; bit <= CLIP_ROT_Z; bit <<= 1)
			add_keyed(t, bit, (int16_t)(j * 300 + e * 2 + bit), host_frames(e));
		if (j == 2)
			add_keyed(t, CLIP_LOC_Y, (int16_t)(160 + e), host_frames(e));
	}
}

static bool host_fills(uint32_t e, uint32_t k)
{
	return e < 10 || (e >= 100 && e < 105) || (e == 10 && k == 0) ||
	       ((e == 24 || e == 25) && k == 1);
}

static void host_pack(struct anim *a)
{
	const uint32_t slots[6] = {100, HOST_ODD_SLOTS, 100, HOST_ODD_SLOTS, 100,
				   HOST_ODD_SLOTS};
	assert_int_equal(anim_init(a, CLIP_MHFU, 6, slots, NULL), MH_OK);
	for (uint32_t k = 0; k < 3; k++)
		for (uint32_t e = 0; e < 105; e++) {
			if (!host_fills(e, k))
				continue;
			struct clip c;
			host_clip(&c, e, k);
			int32_t at = anim_add_clip(a, &c);
			assert_true(at >= 0);
			uint32_t stream, slot;
			anim_mhfu_entry_slot(k, e, &stream, &slot);
			assert_int_equal(anim_set_slot(a, stream, slot, at, NULL), MH_OK);
		}
	assert_int_equal(anim_compact(a, NULL), MH_OK);
}

/* tigrex.h's tree with its first three limbs (joints 9..20) off the
 * chest, joint 8, beside the head: a native rig's neck joint carries the
 * front limbs, so the head is the chest's subtree less them (what the own
 * rig's partition reads off the tree, port.h). */
static void host_skeleton(struct skeleton *s)
{
	tigrex_skeleton(s, TIGREX_BONES);
	for (uint32_t limb = 9; limb <= 17; limb += 4)
		s->bones[limb].parent = 8;
	skeleton_link(s, true);
	host_positions(s);
}

/* Filler members the port must carry over byte for byte. */
static const uint8_t FILLER_1[24] = "no model, filler bytes 1";
static const uint8_t FILLER_2[13] = "filler bytes2";

/* A model PAC of skeleton s and pack a (members 1 and 2 filler, member
 * 4 too, and a tail). */
static uint8_t *host_pac_of(const struct skeleton *s, const struct anim *a, size_t *len)
{
	uint8_t *sk, *pk, *out;
	size_t sk_len, pk_len;
	assert_int_equal(skeleton_encode(s, &sk, &sk_len, NULL), MH_OK);
	assert_int_equal(anim_encode(a, &pk, &pk_len, NULL), MH_OK);
	const struct pac_blob blobs[5] = {
		{sk, (uint32_t)sk_len}, {FILLER_1, sizeof FILLER_1}, {FILLER_2, sizeof FILLER_2},
		{pk, (uint32_t)pk_len}, {FILLER_1, 5}};
	static const uint8_t tail[3] = {1, 2, 3};
	assert_int_equal(pac_encode(blobs, 5, 16, tail, sizeof tail, &out, len, NULL), MH_OK);
	free(sk);
	free(pk);
	return out;
}

struct host {
	struct skeleton skel;
	struct anim pack;
	uint8_t *pac;
	size_t len;
};

static void host_make(struct host *h)
{
	host_skeleton(&h->skel);
	host_pack(&h->pack);
	h->pac = host_pac_of(&h->skel, &h->pack, &h->len);
}

static void host_free(struct host *h)
{
	skeleton_free(&h->skel);
	anim_free(&h->pack);
	free(h->pac);
}

/* ---- the donors ---------------------------------------------------------- */

/* The Brute-like donor's bone i is the host's joint BRUTE[i]. */
static const uint32_t BRUTE[BRUTE_BONES] = {
	1,  2,	3,  4,	5,  6,	7,  8,					 /* origin, spine */
	31, 32, 33, 34, 35, 36, 37, 38, 39,				 /* the head */
	9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, /* the limbs */
	25, 26, 27, 28, 29, 30, 40, 41, 42, 43, 44,			 /* the tail */
	45, 46, 47};							 /* orphan chain */

static int32_t brute_bone_of(uint32_t joint)
{
	for (uint32_t b = 0; b < BRUTE_BONES; b++)
		if (BRUTE[b] == joint)
			return (int32_t)b;
	return -1;
}

/* The record driving the Brute's bone b (skipping BRUTE_SKIPPED). */
static int32_t brute_record_of(int32_t b)
{
	return b < 0 || b == (int32_t)BRUTE_SKIPPED ? -1 : b < (int32_t)BRUTE_SKIPPED ? b : b - 1;
}

/* An MHP3rd rig of the host's joints table[0..n), in that order. */
static void skeleton_of_joints(struct skeleton *s, const uint32_t *table, uint32_t n)
{
	struct skeleton host;
	host_skeleton(&host);
	assert_int_equal(skeleton_init(s, SKELETON_MHP3RD, n, NULL), MH_OK);
	for (uint32_t b = 0; b < n; b++) {
		const struct skeleton_bone *hb = &host.bones[table[b]];
		s->bones[b].parent = -1;
		for (uint32_t p = 0; p < n && hb->parent >= 0; p++)
			if (table[p] == (uint32_t)hb->parent)
				s->bones[b].parent = (int32_t)p;
		memcpy(s->bones[b].position, hb->position, sizeof hb->position);
		snprintf((char *)s->bones[b].rest, SKELETON_NAME_LEN, "b%02u", b);
	}
	skeleton_link(s, false);
	skeleton_free(&host);
}

static void brute_skeleton(struct skeleton *s)
{
	skeleton_of_joints(s, BRUTE, BRUTE_BONES);
}

/* Track r of a Brute clip: rotation keyed 0..last, values telling record
 * and clip apart.  Record 1 (the hip) moves first, as MHP3rd stores it;
 * record 5 has a scale and an unnamed channel; record 6 only scale. */
static void brute_track(struct clip *c, uint32_t r, uint32_t id, int16_t last)
{
	struct clip_track *t = clip_add_track(c, 0);
	assert_non_null(t);
	int16_t v = (int16_t)(r * 100 + id);
	if (r == 6) {
		add_keyed(t, CLIP_SCL_X, v, last);
		return;
	}
	if (r == 1)
		add_keyed(t, CLIP_LOC_Y, (int16_t)(v + 50), last);
	if (r == 5)
		add_keyed(t, CLIP_SCL_X, v, last);
	for (uint32_t bit = CLIP_ROT_Z; bit >= CLIP_ROT_X; bit >>= 1)
		add_keyed(t, bit, (int16_t)(v + bit), last);
	if (r == 5)
		add_keyed(t, CLIP_U1, v, last);
}

static int16_t brute_frames(uint32_t id)
{
	return (int16_t)(30 + id % 11);
}

/* A clip of `tracks` Brute tracks, looping when id is odd. */
static void brute_clip(struct clip *c, uint32_t id, uint32_t tracks)
{
	*c = (struct clip){.loop = id % 2, .loop_start = id % 2 ? (float)id : 0.0f};
	for (uint32_t r = 0; r < tracks; r++)
		brute_track(c, r, id, brute_frames(id));
}

/* A moveset of two streams of 100 slots with clips of these ids. */
static void moveset_of(struct anim *a, const uint32_t *ids, uint32_t n, uint32_t tracks)
{
	assert_int_equal(anim_init(a, CLIP_P3RD, 2, (const uint32_t[]){100, 100}, NULL), MH_OK);
	for (uint32_t i = 0; i < n; i++) {
		struct clip c;
		brute_clip(&c, ids[i], tracks);
		int32_t at = anim_add_clip(a, &c);
		assert_true(at >= 0);
		assert_int_equal(anim_set_slot(a, ids[i] / 100, ids[i] % 100, at, NULL), MH_OK);
	}
	assert_int_equal(anim_compact(a, NULL), MH_OK);
}

/* The donor's body as a bundle carries it: a skinned tube around each
 * bone of its rig, MHP3rd, its geometry in a companion (mkpmo.h). */
static void donor_body_of(struct donor *dn)
{
	uint32_t n = dn->skel.nbones;
	struct mkpmo_bone *bones = calloc(n, sizeof *bones);
	assert_non_null(bones);
	for (uint32_t b = 0; b < n; b++) {
		double at[3];
		assert_int_equal(rig_bind_world(&dn->skel, b, at, NULL), MH_OK);
		bones[b] = (struct mkpmo_bone){dn->skel.bones[b].parent,
					       {(float)at[0], (float)at[1], (float)at[2]}};
	}
	struct mkpmo_body body = {.p3rd = true, .companion = true, .skinned = true, .meshes = 1,
				  .sides = 4, .rings = 3, .textures = 1, .bones = bones,
				  .nbones = n};
	struct mkpmo m;
	mkpmo_body(n, &body, &m);
	dn->member[DONOR_PMO] = m.pmo;
	dn->member_len[DONOR_PMO] = m.len;
	dn->member[DONOR_GEOMETRY] = m.companion;
	dn->member_len[DONOR_GEOMETRY] = m.companion_len;
	m.pmo = m.companion = NULL;
	mkpmo_free(&m);
	free(bones);
}

/* Builds dn from skel and moveset (taken) with the override set (NULL:
 * none). */
static void donor_of(struct donor *dn, struct skeleton *skel, struct anim *moveset,
		     const struct records_setting *set)
{
	*dn = (struct donor){.monster = RECORDS_NO_MONSTER};
	dn->skel = *skel;
	dn->moveset = *moveset;
	assert_int_equal(records_init(&dn->map, &dn->skel, &dn->moveset, RECORDS_NO_MONSTER, NULL),
			 MH_OK);
	if (set)
		assert_int_equal(records_override(&dn->map, set, NULL), MH_OK);
	donor_body_of(dn);
}

static void donor_release(struct donor *dn)
{
	free((void *)dn->member[DONOR_PMO]);
	free((void *)dn->member[DONOR_GEOMETRY]);
	skeleton_free(&dn->skel);
	anim_free(&dn->moveset);
	records_free(&dn->map);
}

/* The Brute with clips `ids`, its skip list in force. */
static void brute_donor(struct donor *dn, const uint32_t *ids, uint32_t n, uint32_t tracks)
{
	struct skeleton s;
	struct anim a;
	brute_skeleton(&s);
	moveset_of(&a, ids, n, tracks);
	uint32_t skip[1] = {BRUTE_SKIPPED};
	struct records_setting set = {.skip_set = true, .nskip = 1, .skip = skip};
	donor_of(dn, &s, &a, &set);
}

static const uint32_t SOME_IDS[] = {0, 1, 2, 7, 101, 150};

/* ---- helpers --------------------------------------------------------------- */

static const struct port_settings NO_SETTINGS = {.mode = PORT_MODE_HOST};

static void run_ok(const struct host *h, int em, const struct donor *dn,
		   const struct port_settings *s, struct port_result *r)
{
	struct mh_diag d = {0};
	enum mh_err err = port_run(h->pac, h->len, em, dn, s, r, &d);
	if (err)
		fail_msg("port_run: %s: %s", mh_strerror(err), d.msg);
}

static const struct clip *part_clip(const struct anim *a, uint32_t e, uint32_t k)
{
	return port_part_clip(a, e, k);
}

/* The track of host joint j at entry e of the built pack. */
static const struct clip_track *joint_track(const struct port_result *r, uint32_t e, uint32_t j)
{
	uint32_t k = j < 31 ? 0 : j < 40 ? 1 : 2;
	const struct clip *c = part_clip(&r->pack, e, k);
	assert_non_null(c);
	assert_int_equal(c->ntracks, PART_COUNT[k]);
	return &c->tracks[j - PART_FIRST[k]];
}

static const struct port_place *place_of_clip(const struct port_result *r, int32_t clip)
{
	for (uint32_t i = 0; i < r->nplaces; i++)
		if (r->places[i].clip == clip &&
		    (r->places[i].how != PORT_HOW_HOST && r->places[i].how != PORT_HOW_PARTIAL))
			return &r->places[i];
	fail_msg("clip %d has no place", (int)clip);
	return NULL;
}

static void assert_rest_track(const struct clip_track *t, int16_t last)
{
	assert_int_equal(t->nchannels, 3);
	assert_int_equal(t->mask, CLIP_ROT_BITS);
	for (uint32_t i = 0; i < 3; i++) {
		const struct clip_channel *ch = &t->channels[i];
		assert_int_equal(ch->bit, CLIP_ROT_X << i);
		assert_int_equal(ch->nkeys, 2);
		assert_int_equal(ch->keys[0].frame, 0);
		assert_int_equal(ch->keys[0].value, 0);
		assert_int_equal(ch->keys[1].frame, last);
		assert_int_equal(ch->keys[1].value, 0);
	}
}

static bool all_passed(const struct port_result *r)
{
	for (int c = 0; c < PORT_CHECKS; c++)
		if (!r->checks[c].passed && r->checks[c].level == RULE_ERROR) {
			print_error("check %d failed: %s\n", c, r->checks[c].figure);
			return false;
		}
	return true;
}

/* ---- matching -------------------------------------------------------------- */

static void brute_matches_tigrex(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, BRUTE_RECORDS);
	assert_int_equal(dn.map.fork, 1);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	assert_int_equal(r.njoints, 48);
	assert_int_equal(r.hip, 2);
	/* The origin chains from their hip ends: 2 <- 1, 1 <- 0, 0 surplus. */
	assert_int_equal(r.joints[2].bone, 1);
	assert_int_equal(r.joints[2].why, PORT_WHY_ORIGIN);
	assert_int_equal(r.joints[2].record, 1);
	assert_int_equal(r.joints[1].bone, 0);
	assert_int_equal(r.joints[1].why, PORT_WHY_ORIGIN);
	assert_int_equal(r.joints[0].bone, PORT_NONE);
	assert_int_equal(r.joints[0].why, PORT_WHY_SURPLUS);
	uint32_t matched = 0;
	bool used[BRUTE_BONES] = {0};
	for (uint32_t j = 3; j < 48; j++) {
		const struct port_joint *pj = &r.joints[j];
		assert_int_equal(pj->bone, brute_bone_of(j));
		assert_int_equal(pj->record, brute_record_of(pj->bone));
		assert_true(pj->distance == 0);
		assert_int_equal(pj->depth_gap, -1 * (j < 45)); /* the orphan chain: 0 */
		enum port_why want = j >= 45 ? PORT_WHY_NOT_ANIMATED
				     : j == 44 ? PORT_WHY_NO_RECORD
					       : PORT_WHY_NEAREST;
		assert_int_equal(pj->why, want);
	}
	for (uint32_t j = 0; j < 48; j++)
		if (r.joints[j].bone >= 0) {
			assert_false(used[r.joints[j].bone]);
			used[r.joints[j].bone] = true;
			matched++;
		}
	assert_int_equal(matched, 47);
	assert_true(all_passed(&r));
	assert_non_null(r.pac);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* Rigs of roots at these positions (no depth to tell them apart). */
static void roots_at(struct skeleton *s, enum skeleton_game game, const float (*at)[3],
		     uint32_t n)
{
	assert_int_equal(skeleton_init(s, game, n, NULL), MH_OK);
	for (uint32_t b = 0; b < n; b++)
		memcpy(s->bones[b].position, at[b], sizeof at[b]);
	skeleton_link(s, false);
	if (game == SKELETON_MHFU)
		skeleton_set_params(s, 2, (const uint32_t[]){0, n});
}

/* A donor box of diagonal 100: pairs count closer than 25 only. */
static void cutoff_is_a_quarter_of_the_diagonal(void **state)
{
	(void)state;
	static const float donor_at[2][3] = {{10, 0, 0}, {110, 0, 0}};
	static const float host_at[3][3] = {{10, 0, 24.9f}, {110, 0, 25.1f}, {10, 0, 26}};
	struct skeleton host, donor;
	struct anim none;
	struct records map;
	roots_at(&host, SKELETON_MHFU, host_at, 3);
	roots_at(&donor, SKELETON_MHP3RD, donor_at, 2);
	assert_int_equal(anim_init(&none, CLIP_P3RD, 1, (const uint32_t[]){1}, NULL), MH_OK);
	assert_int_equal(records_init(&map, &donor, &none, RECORDS_NO_MONSTER, NULL), MH_OK);
	struct port_joint joints[3];
	int32_t hip;
	assert_int_equal(port_match(&host, &donor, &map, &NO_SETTINGS, joints, &hip, NULL), MH_OK);
	assert_int_equal(hip, PORT_NONE); /* no joint within 1 of the origin */
	assert_int_equal(joints[0].bone, 0);
	assert_true(fabs(joints[0].distance - 24.9) < 1e-3);
	assert_int_equal(joints[0].why, PORT_WHY_NO_RECORD); /* the pack has no tracks */
	assert_int_equal(joints[1].bone, PORT_NONE);
	assert_int_equal(joints[1].why, PORT_WHY_TOO_FAR);
	/* Bone 0 is used once: joint 2, 26 from it, gets nothing. */
	assert_int_equal(joints[2].bone, PORT_NONE);
	assert_int_equal(joints[2].why, PORT_WHY_TOO_FAR);
	records_free(&map);
	anim_free(&none);
	skeleton_free(&host);
	skeleton_free(&donor);
}

/* Depth outweighs distance: host joint 1 (depth 1) at (0,50,0) takes
 * bone 1 (depth 1, 10 away), not bone 3 (depth 3, on it): 10 < 0 + 2 x
 * PORT_DEPTH_COST. */
static void depth_penalty_outweighs_distance(void **state)
{
	(void)state;
	struct skeleton host, donor;
	struct anim none;
	struct records map;
	assert_int_equal(skeleton_init(&host, SKELETON_MHFU, 2, NULL), MH_OK);
	host.bones[1].parent = 0;
	host.bones[1].position[1] = 50;
	skeleton_link(&host, false);
	skeleton_set_params(&host, 2, (const uint32_t[]){0, 2});
	assert_int_equal(skeleton_init(&donor, SKELETON_MHP3RD, 4, NULL), MH_OK);
	for (uint32_t b = 1; b < 4; b++)
		donor.bones[b].parent = (int32_t)b - 1;
	donor.bones[1].position[1] = 60;
	donor.bones[2].position[1] = -40; /* bone 2 at (0,20,0), bone 3 at (0,50,0) */
	donor.bones[3].position[1] = 30;
	skeleton_link(&donor, false);
	assert_int_equal(anim_init(&none, CLIP_P3RD, 1, (const uint32_t[]){1}, NULL), MH_OK);
	assert_int_equal(records_init(&map, &donor, &none, RECORDS_NO_MONSTER, NULL), MH_OK);
	struct port_joint joints[2];
	int32_t hip;
	assert_int_equal(port_match(&host, &donor, &map, &NO_SETTINGS, joints, &hip, NULL), MH_OK);
	assert_int_equal(hip, 0);
	assert_int_equal(joints[0].bone, 0);
	assert_int_equal(joints[1].bone, 1);
	assert_true(joints[1].distance == 10);
	assert_int_equal(joints[1].depth_gap, 0);
	records_free(&map);
	anim_free(&none);
	skeleton_free(&host);
	skeleton_free(&donor);
}

static void map_lines_come_first(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, BRUTE_RECORDS);
	/* Joint 3 takes bone 5 (joint 6's), joint 4 none, joint 1 bone 1
	 * (the donor's hip: the origin pairing then has bone 0 alone). */
	struct port_map_line maps[3] = {{3, 5, 1, 5}, {4, PORT_NONE, 2, 5}, {1, 1, 3, 5}};
	struct port_settings s = {.mode = PORT_MODE_HOST, .nmaps = 3, .maps = maps};
	run_ok(&h, PORT_TIGREX_EM, &dn, &s, &r);
	assert_int_equal(r.joints[3].bone, 5);
	assert_int_equal(r.joints[3].why, PORT_WHY_SET);
	assert_int_equal(r.joints[4].bone, PORT_NONE);
	assert_int_equal(r.joints[4].why, PORT_WHY_UNSET);
	assert_int_equal(r.joints[1].bone, 1);
	assert_int_equal(r.joints[1].why, PORT_WHY_SET);
	assert_int_equal(r.joints[2].bone, 0);
	assert_int_equal(r.joints[2].why, PORT_WHY_ORIGIN);
	assert_int_equal(r.joints[0].why, PORT_WHY_SURPLUS);
	assert_true(r.joints[6].bone != 5);
	bool used[BRUTE_BONES] = {0};
	for (uint32_t j = 0; j < 48; j++)
		if (r.joints[j].bone >= 0) {
			assert_false(used[r.joints[j].bone]);
			used[r.joints[j].bone] = true;
		}
	/* The tracks follow: joint 3 plays record 5's channels. */
	const struct clip_track *t = joint_track(&r, 0, 3);
	assert_int_equal(t->channels[0].bit, CLIP_U1);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* ---- tracks ------------------------------------------------------------------ */

/* Joint 2 plays record 1: rotation then location, sorted; joint 6
 * record 5: u1 and rotation, scale dropped; joint 7 (record 6, scale
 * only) and joint 44 (its bone has no record) rest; so does joint 0. */
static void channels_sorted_scale_dropped_rests_filled(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, BRUTE_RECORDS);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	const struct clip *src = port_donor_clip(&dn.moveset, 7);
	assert_non_null(src);
	const struct port_place *p = place_of_clip(&r, 7);
	assert_int_equal(p->entry, 7);
	assert_int_equal(p->how, PORT_HOW_OWN);
	int16_t frames = brute_frames(7);
	assert_int_equal(p->frames, frames);

	const struct clip_track *hip = joint_track(&r, 7, 2);
	static const uint32_t HIP_BITS[4] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z, CLIP_LOC_Y};
	assert_int_equal(hip->nchannels, 4);
	assert_int_equal(hip->mask, CLIP_ROT_BITS | CLIP_LOC_Y);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(hip->channels[i].bit, HIP_BITS[i]);
		/* the donor's channel of that bit, keys raw */
		const struct clip_track *st = &src->tracks[1];
		const struct clip_channel *want = NULL;
		for (uint32_t c = 0; c < st->nchannels; c++)
			if (st->channels[c].bit == HIP_BITS[i])
				want = &st->channels[c];
		assert_non_null(want);
		assert_int_equal(hip->channels[i].nkeys, want->nkeys);
		assert_memory_equal(hip->channels[i].keys, want->keys,
				    want->nkeys * sizeof *want->keys);
	}
	const struct clip_track *six = joint_track(&r, 7, 6);
	assert_int_equal(r.joints[6].record, 5);
	assert_int_equal(six->nchannels, 4);
	assert_int_equal(six->channels[0].bit, CLIP_U1);
	assert_int_equal(six->channels[1].bit, CLIP_ROT_X);
	assert_int_equal(six->channels[3].bit, CLIP_ROT_Z);
	assert_int_equal(six->mask, CLIP_U1 | CLIP_ROT_BITS);
	assert_int_equal(r.joints[7].record, 6);
	assert_rest_track(joint_track(&r, 7, 7), frames);
	assert_rest_track(joint_track(&r, 7, 44), frames);
	assert_rest_track(joint_track(&r, 7, 0), frames);
	/* Every track of every placed clip has channels. */
	for (uint32_t i = 0; i < r.nplaces; i++)
		if (port_place_donor(&r.places[i]))
			for (uint32_t j = 0; j < 45; j++)
				assert_true(joint_track(&r, (uint32_t)r.places[i].entry, j)->nchannels > 0);
	assert_true(r.checks[PORT_CHECK_SCALE].passed);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* A clip keyed at frame 0 alone rests over 0..2; a clip of 3 tracks
 * leaves the joints past them at rest over its own length. */
static void rest_tracks_span_at_least_two(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, 3);
	/* Clip 0's keys all at frame 0. */
	struct clip *c0 = (struct clip *)port_donor_clip(&dn.moveset, 0);
	for (uint32_t t = 0; t < c0->ntracks; t++)
		for (uint32_t i = 0; i < c0->tracks[t].nchannels; i++)
			c0->tracks[t].channels[i].nkeys = 1;
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	assert_int_equal(place_of_clip(&r, 0)->frames, 0);
	assert_rest_track(joint_track(&r, 0, 30), PORT_REST_SPAN);
	assert_int_equal(joint_track(&r, 0, 2)->channels[0].nkeys, 1);
	assert_rest_track(joint_track(&r, 1, 30), brute_frames(1));
	assert_rest_track(joint_track(&r, 1, 40), brute_frames(1));
	assert_int_equal(joint_track(&r, 1, 3)->nchannels, 3); /* record 2 */
	assert_true(all_passed(&r));
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* Each part gets its joints' tracks in joint order, and the loop. */
static void split_into_parts_keeps_loop(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, BRUTE_RECORDS);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	const struct port_place *p = place_of_clip(&r, 101);
	assert_int_equal(p->entry, 101);
	assert_true(p->loop);
	assert_true(p->loop_start == 101.0f);
	for (uint32_t k = 0; k < 3; k++) {
		uint32_t stream, slot;
		assert_int_not_equal(entries_part_clip(&r.pack, 101, k, &stream, &slot), ANIM_EMPTY);
		assert_int_equal(stream, 2 * k + 1);
		assert_int_equal(slot, 1);
		const struct clip *c = part_clip(&r.pack, 101, k);
		assert_int_equal(c->ntracks, PART_COUNT[k]);
		assert_int_equal(c->loop, 1);
		assert_true(c->loop_start == 101.0f);
	}
	/* The head's first track is joint 31's: the Brute's bone 8, record 8. */
	const struct clip_track *head = joint_track(&r, 101, 31);
	assert_int_equal(head->channels[0].keys[0].value, 8 * 100 + 101 + CLIP_ROT_X);
	/* The tail's last, joint 44, rests (its bone is skipped). */
	assert_rest_track(joint_track(&r, 101, 44), brute_frames(101));
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* lift 2.5 is 40 location units on the pelvis (the hip) alone. */
static void lift_moves_the_pelvis(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, BRUTE_RECORDS);
	struct port_settings s = {.mode = PORT_MODE_HOST, .lift_set = true, .lift = 2.5};
	run_ok(&h, PORT_TIGREX_EM, &dn, &s, &r);
	assert_int_equal(r.pelvis, 2);
	const struct clip *src = port_donor_clip(&dn.moveset, 2);
	const struct clip_track *hip = joint_track(&r, 2, 2);
	assert_int_equal(hip->channels[3].bit, CLIP_LOC_Y);
	assert_int_equal(src->tracks[1].channels[0].bit, CLIP_LOC_Y);
	for (uint32_t k = 0; k < 2; k++)
		assert_int_equal(hip->channels[3].keys[k].value,
				 src->tracks[1].channels[0].keys[k].value + 40);
	/* rotation untouched */
	assert_int_equal(hip->channels[0].keys[0].value, src->tracks[1].channels[3].keys[0].value);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* ---- layout ------------------------------------------------------------------ */

static void capacity_by_host(void **state)
{
	(void)state;
	struct host h;
	struct port_host ph;
	host_make(&h);
	assert_int_equal(port_host_open(h.pac, h.len, PORT_TIGREX_EM, &ph, NULL), MH_OK);
	assert_int_equal(ph.capacity, PORT_TIGREX_ENTRIES);
	assert_true(ph.partial[24] && ph.partial[25] && !ph.partial[10] && !ph.partial[0]);
	port_host_free(&ph);
	/* Another species: one past its last filled entry, 104. */
	assert_int_equal(port_host_open(h.pac, h.len, -1, &ph, NULL), MH_OK);
	assert_int_equal(ph.capacity, 105);
	port_host_free(&ph);
	free(h.pac);
	/* Odd streams of 10 slots: entries 110 and up have no slot. */
	for (uint32_t s = 1; s < 6; s += 2) {
		h.pack.streams[s].nslots = 10;
	}
	h.pac = host_pac_of(&h.skel, &h.pack, &h.len);
	assert_int_equal(port_host_open(h.pac, h.len, PORT_TIGREX_EM, &ph, NULL), MH_OK);
	assert_int_equal(ph.capacity, 110);
	port_host_free(&ph);
	free(h.pac);
	/* A host filling entries below 100 alone: a bank of 100. */
	for (uint32_t s = 1; s < 6; s += 2)
		for (uint32_t i = 0; i < 10; i++)
			h.pack.streams[s].slots[i] = ANIM_EMPTY;
	assert_int_equal(anim_compact(&h.pack, NULL), MH_OK);
	h.pac = host_pac_of(&h.skel, &h.pack, &h.len);
	assert_int_equal(port_host_open(h.pac, h.len, 12, &ph, NULL), MH_OK);
	assert_int_equal(ph.capacity, 100);
	port_host_free(&ph);
	host_free(&h);
}

/* Clips 0..4 own; the rest by id into the free entries the host fills:
 * 24 (its own entry is partial) to 5, 150 and 151 (past the capacity)
 * to 6 and 7; the host's other clips kept. */
static void packer_own_then_free_host(void **state)
{
	(void)state;
	static const uint32_t IDS[] = {0, 1, 2, 3, 4, 24, 150, 151};
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, IDS, 8, 4);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	assert_int_equal(r.capacity, 123);
	assert_int_equal(r.nplaces, 123);
	for (int32_t e = 0; e < 5; e++) {
		assert_int_equal(r.places[e].clip, e);
		assert_int_equal(r.places[e].how, PORT_HOW_OWN);
	}
	assert_int_equal(r.places[5].clip, 24);
	assert_int_equal(r.places[5].how, PORT_HOW_FREE_HOST);
	assert_int_equal(r.places[6].clip, 150);
	assert_int_equal(r.places[7].clip, 151);
	assert_int_equal(r.places[7].how, PORT_HOW_FREE_HOST);
	assert_int_equal(r.places[8].how, PORT_HOW_HOST);
	assert_int_equal(r.places[8].clip, PORT_NONE);
	assert_int_equal(r.places[8].frames, host_frames(8));
	assert_int_equal(r.places[24].how, PORT_HOW_PARTIAL);
	assert_int_equal(r.places[24].frames, host_frames(24));
	assert_int_equal(r.places[11].how, PORT_HOW_EMPTY);
	/* Kept entries play the host's clips in every part; the partial
	 * entry's head still its own, its body nothing. */
	for (uint32_t k = 0; k < 3; k++)
		assert_true(clip_equal(part_clip(&r.pack, 8, k), part_clip(&h.pack, 8, k)));
	assert_true(clip_equal(part_clip(&r.pack, 24, 1), part_clip(&h.pack, 24, 1)));
	assert_null(part_clip(&r.pack, 24, 0));
	assert_true(all_passed(&r));
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* When the host's free entries run out, the others from 0 up. */
static void packer_free_after_free_host(void **state)
{
	(void)state;
	uint32_t ids[20];
	for (uint32_t i = 0; i < 20; i++)
		ids[i] = 150 + i;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, ids, 20, 2);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	/* The host fills 0..10 and 100..104 (16 entries, none partial). */
	static const int32_t HOST_FREE[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					      100, 101, 102, 103, 104};
	for (uint32_t i = 0; i < 16; i++) {
		assert_int_equal(r.places[HOST_FREE[i]].clip, (int32_t)(150 + i));
		assert_int_equal(r.places[HOST_FREE[i]].how, PORT_HOW_FREE_HOST);
	}
	assert_int_equal(r.places[11].clip, 166);
	assert_int_equal(r.places[11].how, PORT_HOW_FREE);
	assert_int_equal(r.places[12].clip, 167);
	assert_int_equal(r.places[13].clip, 168);
	assert_int_equal(r.places[14].clip, 169);
	assert_int_equal(r.places[15].how, PORT_HOW_EMPTY);
	assert_int_equal(r.nplaces, 123);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* Clip 7 pinned at 2: clip 2 moves to 7, the entry the pin freed; clip
 * 150 pinned at 1 frees nothing of its own, so clip 1 goes with the
 * rest, to the first free entry the host fills (5). */
static void pins_move_what_they_displace(void **state)
{
	(void)state;
	static const uint32_t IDS[] = {0, 1, 2, 3, 4, 7, 150};
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, IDS, 7, 2);
	struct port_pin pins[2] = {{7, 2, 1, 5}, {150, 1, 2, 5}};
	struct port_settings s = {.mode = PORT_MODE_HOST, .npins = 2, .pins = pins};
	run_ok(&h, PORT_TIGREX_EM, &dn, &s, &r);
	assert_int_equal(r.places[2].clip, 7);
	assert_int_equal(r.places[2].how, PORT_HOW_PINNED);
	assert_int_equal(r.places[7].clip, 2);
	assert_int_equal(r.places[7].how, PORT_HOW_MOVED);
	assert_int_equal(r.places[1].clip, 150);
	assert_int_equal(r.places[1].how, PORT_HOW_PINNED);
	assert_int_equal(r.places[0].how, PORT_HOW_OWN);
	assert_int_equal(r.places[5].clip, 1);
	assert_int_equal(r.places[5].how, PORT_HOW_FREE_HOST);
	assert_true(all_passed(&r));
	port_result_free(&r);
	donor_release(&dn);
	/* A chain: 7 at 2 and 2 at 9; clip 9 follows the chain back to 7. */
	static const uint32_t CHAIN[] = {2, 7, 9};
	brute_donor(&dn, CHAIN, 3, 2);
	struct port_pin chain[2] = {{7, 2, 1, 5}, {2, 9, 2, 5}};
	s.pins = chain;
	run_ok(&h, PORT_TIGREX_EM, &dn, &s, &r);
	assert_int_equal(r.places[2].clip, 7);
	assert_int_equal(r.places[9].clip, 2);
	assert_int_equal(r.places[7].clip, 9);
	assert_int_equal(r.places[7].how, PORT_HOW_MOVED);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* 125 clips, 121 open entries: ids 24, 25 (partial) and 123, 124 (past
 * the capacity) find no room and are listed unplaced, in id order. */
static void unplaced_are_listed(void **state)
{
	(void)state;
	uint32_t ids[125];
	for (uint32_t i = 0; i < 125; i++)
		ids[i] = i;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, ids, 125, 2);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	assert_int_equal(r.nplaces, 127);
	static const int32_t LEFT[4] = {24, 25, 123, 124};
	for (uint32_t i = 0; i < 4; i++) {
		const struct port_place *p = &r.places[123 + i];
		assert_int_equal(p->entry, PORT_NONE);
		assert_int_equal(p->clip, LEFT[i]);
		assert_int_equal(p->how, PORT_HOW_UNPLACED);
		assert_int_equal(p->frames, brute_frames((uint32_t)LEFT[i]));
	}
	assert_int_equal(r.places[24].how, PORT_HOW_PARTIAL);
	assert_int_equal(r.places[122].clip, 122);
	assert_true(all_passed(&r));
	assert_true(r.checks[PORT_CHECK_PLACED].passed);
	assert_non_null(strstr(r.checks[PORT_CHECK_PLACED].figure, "121 of 125"));
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* ---- the checks -------------------------------------------------------------- */

static void checks_pass_with_figures(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, BRUTE_RECORDS);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	assert_true(all_passed(&r));
	assert_string_equal(r.checks[PORT_CHECK_HIP].figure, "hip 2 <- donor bone 1 (record 1)");
	assert_non_null(strstr(r.checks[PORT_CHECK_SPAN].figure, "45 of 45 animated joints"));
	/* The donor's clips are larger than the host's: a warning. */
	assert_false(r.checks[PORT_CHECK_SIZE].passed);
	assert_int_equal(r.checks[PORT_CHECK_SIZE].level, RULE_WARNING);
	assert_true(r.pac_len > h.len);
	/* out.pac: the host's members but the pack, byte for byte. */
	struct pac in, out;
	assert_int_equal(pac_decode(h.pac, h.len, &in, NULL), MH_OK);
	assert_int_equal(pac_decode(r.pac, r.pac_len, &out, NULL), MH_OK);
	assert_int_equal(out.count, in.count);
	for (uint32_t i = 0; i < in.count; i++) {
		if (i == 3)
			continue;
		assert_int_equal(out.entries[i].size, in.entries[i].size);
		assert_memory_equal(r.pac + out.entries[i].offset, h.pac + in.entries[i].offset,
				    in.entries[i].size);
	}
	assert_int_equal(r.pac_len - out.tail, h.len - in.tail);
	assert_memory_equal(r.pac + out.tail, h.pac + in.tail, h.len - in.tail);
	struct anim back;
	assert_int_equal(anim_decode(r.pac + out.entries[3].offset, out.entries[3].size, CLIP_MHFU,
				     &back, NULL), MH_OK);
	assert_true(anim_equal(&back, &r.pack));
	anim_free(&back);
	pac_free(&in);
	pac_free(&out);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* Each check fails when its fault is put in the built pack or the
 * inputs; port_verify says so, and only that check (and RULES where the
 * engine's rules see the same fault) fails. */
static void checks_fail_on_their_faults(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, BRUTE_RECORDS);
	struct mh_diag d;

	/* SPAN: joint 5's channels cut to their first key. */
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	struct clip *body = (struct clip *)part_clip(&r.pack, 7, 0);
	for (uint32_t i = 0; i < body->tracks[5].nchannels; i++)
		body->tracks[5].channels[i].nkeys = 1;
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	assert_false(r.checks[PORT_CHECK_SPAN].passed);
	assert_non_null(strstr(r.checks[PORT_CHECK_SPAN].figure, "44 of 45"));
	assert_non_null(strstr(r.checks[PORT_CHECK_SPAN].figure, "joint 5 in entry 7"));
	assert_true(r.checks[PORT_CHECK_RULES].passed);
	assert_true(r.checks[PORT_CHECK_PLACED].passed);

	/* SCALE (and the engine's SCALE_CHANNEL): a scale channel.  (The
	 * check compacts the pack: its clips may have moved.) */
	body = (struct clip *)part_clip(&r.pack, 7, 0);
	struct clip_channel *ch = clip_add_channel(&body->tracks[6], CLIP_SCL_Y);
	assert_non_null(ch);
	assert_non_null(clip_add_key(ch, (struct clip_key){0}));
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	assert_false(r.checks[PORT_CHECK_SCALE].passed);
	assert_string_equal(r.checks[PORT_CHECK_SCALE].figure,
			    "entry 7 part 0 track 6 has channel bit 0x400");
	assert_false(r.checks[PORT_CHECK_RULES].passed);
	port_result_free(&r);

	/* RULES: a part clip one track short (PARTITION). */
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	drop_last_track((struct clip *)part_clip(&r.pack, 1, 2));
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	assert_false(r.checks[PORT_CHECK_RULES].passed);
	assert_non_null(strstr(r.checks[PORT_CHECK_RULES].figure, "PARTITION"));
	assert_true(r.rules.n > 0);

	/* A pack that no longer encodes (an MHFU mask with bit 31): RULES
	 * and SIZE fail, saying why. */
	((struct clip *)part_clip(&r.pack, 0, 0))->tracks[0].mask |= 0x80000000u;
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	assert_false(r.checks[PORT_CHECK_RULES].passed);
	assert_non_null(strstr(r.checks[PORT_CHECK_RULES].figure, "no PAC: "));
	assert_false(r.checks[PORT_CHECK_SIZE].passed);
	port_result_free(&r);

	/* PLACED: a part that stopped looping; then a clip not listed. */
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	((struct clip *)part_clip(&r.pack, 101, 1))->loop = 0;
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	assert_false(r.checks[PORT_CHECK_PLACED].passed);
	assert_non_null(strstr(r.checks[PORT_CHECK_PLACED].figure, "entry 101 part 1"));
	((struct clip *)part_clip(&r.pack, 101, 1))->loop = 1;
	/* ... an entry running past its clip's length ... */
	struct clip *head = (struct clip *)part_clip(&r.pack, 2, 1);
	struct clip_channel *last = &head->tracks[0].channels[0];
	last->keys[last->nkeys - 1].frame = (int16_t)(brute_frames(2) + 5);
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	assert_false(r.checks[PORT_CHECK_PLACED].passed);
	assert_string_equal(r.checks[PORT_CHECK_PLACED].figure, "entry 2 runs 37 frames, the clip 32");
	head = (struct clip *)part_clip(&r.pack, 2, 1);
	last = &head->tracks[0].channels[0];
	last->keys[last->nkeys - 1].frame = brute_frames(2);
	/* ... and a clip no place lists. */
	r.places[7].clip = PORT_NONE; /* entry 7's clip forgotten */
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	assert_false(r.checks[PORT_CHECK_PLACED].passed);
	assert_string_equal(r.checks[PORT_CHECK_PLACED].figure,
			    "clip 7 is neither placed nor listed unplaced");
	port_result_free(&r);

	/* HIP: `map 2 -` leaves the hip undriven; no out.pac. */
	struct port_map_line unhip = {2, PORT_NONE, 1, 5};
	struct port_settings s = {.mode = PORT_MODE_HOST, .nmaps = 1, .maps = &unhip};
	run_ok(&h, PORT_TIGREX_EM, &dn, &s, &r);
	assert_false(r.checks[PORT_CHECK_HIP].passed);
	assert_string_equal(r.checks[PORT_CHECK_HIP].figure, "hip 2 has no donor bone");
	assert_null(r.pac);
	port_result_free(&r);
	donor_release(&dn);

	/* FORK: offset 1 puts record 1 (it moves) on bone 2, below the fork. */
	struct skeleton sk;
	struct anim a;
	brute_skeleton(&sk);
	moveset_of(&a, SOME_IDS, 6, BRUTE_RECORDS - 1);
	struct records_setting set = {.offset_set = true, .offset = 1};
	donor_of(&dn, &sk, &a, &set);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	assert_false(r.checks[PORT_CHECK_FORK].passed);
	assert_string_equal(r.checks[PORT_CHECK_FORK].figure,
			    "record 1 has location channels and drives bone 2, below the fork 1");
	assert_null(r.pac);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* ---- the identity oracle ------------------------------------------------------ */

/* The host offered as its own donor: its rig as MHP3rd's, one whole-rig
 * clip per entry it fills in part 0 (its parts' tracks one after the
 * other; a part it does not fill, tracks without channels). */
static void mirror_donor(struct donor *dn, const struct host *h)
{
	struct skeleton s;
	struct anim a;
	assert_int_equal(skeleton_init(&s, SKELETON_MHP3RD, h->skel.nbones, NULL), MH_OK);
	for (uint32_t b = 0; b < s.nbones; b++) {
		s.bones[b].parent = h->skel.bones[b].parent;
		memcpy(s.bones[b].position, h->skel.bones[b].position, sizeof s.bones[b].position);
	}
	skeleton_link(&s, false);
	assert_int_equal(anim_init(&a, CLIP_P3RD, 2, (const uint32_t[]){100, 100}, NULL), MH_OK);
	for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
		const struct clip *body = part_clip(&h->pack, e, 0);
		if (!body)
			continue;
		struct clip whole = {.loop = body->loop, .loop_start = body->loop_start};
		for (uint32_t k = 0; k < 3; k++) {
			const struct clip *pc = part_clip(&h->pack, e, k);
			for (uint32_t t = 0; t < PART_COUNT[k]; t++) {
				struct clip_track *to = clip_add_track(&whole, 0);
				assert_non_null(to);
				for (uint32_t i = 0; pc && i < pc->tracks[t].nchannels; i++) {
					const struct clip_channel *from = &pc->tracks[t].channels[i];
					struct clip_channel *ch = clip_add_channel(to, from->bit);
					assert_non_null(ch);
					for (uint32_t n = 0; n < from->nkeys; n++)
						assert_non_null(clip_add_key(ch, from->keys[n]));
				}
			}
		}
		int32_t at = anim_add_clip(&a, &whole);
		assert_true(at >= 0);
		assert_int_equal(anim_set_slot(&a, e / 100, e % 100, at, NULL), MH_OK);
	}
	assert_int_equal(anim_compact(&a, NULL), MH_OK);
	donor_of(dn, &s, &a, NULL);
}

static void identity_oracle(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	mirror_donor(&dn, &h);
	run_ok(&h, PORT_TIGREX_EM, &dn, &NO_SETTINGS, &r);
	for (uint32_t j = 0; j < 48; j++) {
		assert_int_equal(r.joints[j].bone, (int32_t)j);
		assert_int_equal(r.joints[j].record, j < 45 ? (int32_t)j : PORT_NONE);
	}
	assert_int_equal(r.pelvis, 2);
	uint32_t own = 0;
	for (uint32_t e = 0; e < ENTRIES_MAX; e++)
		for (uint32_t k = 0; k < 3; k++) {
			const struct clip *got = part_clip(&r.pack, e, k);
			if (host_fills(e, k)) {
				if (!clip_equal(got, part_clip(&h.pack, e, k)))
					fail_msg("entry %u part %u differs from the host's", e, k);
				own += k == 0 && e != 24 && e != 25;
			} else if (e == 10) { /* part 0 only: the others rest */
				assert_non_null(got);
				for (uint32_t t = 0; t < got->ntracks; t++)
					assert_rest_track(&got->tracks[t], host_frames(10));
			} else {
				assert_null(got);
			}
		}
	assert_int_equal(own, 16);
	for (uint32_t e = 0; e < 105; e++)
		if (host_fills(e, 0))
			assert_int_equal(r.places[e].how, PORT_HOW_OWN);
	assert_true(all_passed(&r));
	/* Entry 10's head and tail are new: larger than the host, and said. */
	assert_int_equal(r.checks[PORT_CHECK_SIZE].passed, r.pac_len <= h.len);
	char sizes[64];
	snprintf(sizes, sizeof sizes, "out.pac %zu bytes, the host's %zu", r.pac_len, h.len);
	assert_string_equal(r.checks[PORT_CHECK_SIZE].figure, sizes);
	assert_non_null(r.pac);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* ---- the own rig (mode own) ------------------------------------------------ */

/* A small donor: root, hip, spine; a tail off the hip forking at its
 * base (a fin beside the tail's chain), the head and a leg off the spine;
 * an orphan root chain past the 11 animated bones.  40% of 11 is 4. */
static const int32_t SMALL_PARENT[13] = {-1, 0, 1, 1, 3, 3, 4, 5, 2, 8, 2, -1, 11};
static const float SMALL_AT[13][3] = {
	{0, 0, 0},   {0, 10, 0},  {0, 0, 10},  {0, 0, -10}, {0, 0, -10}, {5, -5, 0}, {0, 0, -10},
	{0, -5, 0},  {0, 0, 10},  {0, 0, 10},  {5, -10, 0}, {0, 0, -50}, {0, 0, -5}};

static void small_donor(struct skeleton *s)
{
	assert_int_equal(skeleton_init(s, SKELETON_MHP3RD, 13, NULL), MH_OK);
	for (uint32_t b = 0; b < 13; b++) {
		s->bones[b].parent = SMALL_PARENT[b];
		memcpy(s->bones[b].position, SMALL_AT[b], sizeof SMALL_AT[b]);
		snprintf((char *)s->bones[b].rest, SKELETON_NAME_LEN, "s%02u", b);
	}
	/* Kind-2 links: 4 -> 2 and 8 -> 5 stay earlier bones once reordered;
	 * 10 -> 4 does not (4 moves into the tail, behind it). */
	static const int32_t LINK[3][2] = {{4, 2}, {8, 5}, {10, 4}};
	for (uint32_t i = 0; i < 3; i++) {
		s->bones[LINK[i][0]].kind = 2;
		s->bones[LINK[i][0]].link = LINK[i][1];
	}
	s->bones[6].kind = 3;
	s->bones[6].rotation[1] = 0.5f;
	s->bones[6].scale[2] = 2;
	skeleton_link(s, false);
}

/* A host whose first three joints sit at the origin. */
static void three_origin_host(struct skeleton *s)
{
	assert_int_equal(skeleton_init(s, SKELETON_MHFU, 4, NULL), MH_OK);
	for (uint32_t j = 1; j < 4; j++)
		s->bones[j].parent = (int32_t)j - 1;
	s->bones[3].position[1] = 10;
	skeleton_link(s, false);
	skeleton_set_params(s, 2, (const uint32_t[]){0, 4});
}

/* The tail grows from the most -Z bone (6) up while the parent's whole
 * subtree fits 4: {4, 6}, not 3, whose subtree holds the fin too (5
 * bones; the chain 3-4-6 alone would fit, and leave the fin's parent in
 * a later part).  The head from the most +Z (9) up to the spine: {2, 8,
 * 9, 10}, exactly 4.  The body keeps the rest in bone order. */
static void own_rig_partition_takes_whole_subtrees(void **state)
{
	(void)state;
	struct skeleton donor;
	small_donor(&donor);
	double world[13 * 3];
	int32_t parents[13];
	for (uint32_t b = 0; b < 13; b++) {
		parents[b] = b == 11 ? 1 : SMALL_PARENT[b];
		assert_int_equal(rig_bind_world(&donor, b, &world[3 * b], NULL), MH_OK);
	}
	uint32_t order[13], counts[PORT_RIG_PARTS], nparts;
	int32_t head, tail;
	assert_int_equal(port_rig_partition(parents, world, 13, 11, order, counts, &nparts, &head,
					    &tail, NULL), MH_OK);
	static const uint32_t WANT[13] = {0, 1, 3, 5, 7, 2, 8, 9, 10, 4, 6, 11, 12};
	assert_int_equal(nparts, 3);
	assert_int_equal(counts[0], 5);
	assert_int_equal(counts[1], 4);
	assert_int_equal(counts[2], 2);
	assert_int_equal(head, 1);
	assert_int_equal(tail, 2);
	assert_memory_equal(order, WANT, sizeof WANT);
	/* All 13 animated: the adopted chain, furthest back, is the tail. */
	assert_int_equal(port_rig_partition(parents, world, 13, 13, order, counts, &nparts, &head,
					    &tail, NULL), MH_OK);
	static const uint32_t ALL[13] = {0, 1, 3, 4, 5, 6, 7, 2, 8, 9, 10, 11, 12};
	assert_int_equal(counts[0], 7);
	assert_int_equal(counts[1], 4);
	assert_int_equal(counts[2], 2);
	assert_memory_equal(order, ALL, sizeof ALL);
	/* Two animated bones: one part, the order as it was. */
	assert_int_equal(port_rig_partition(parents, world, 13, 2, order, counts, &nparts, &head,
					    &tail, NULL), MH_OK);
	assert_int_equal(nparts, 1);
	assert_int_equal(counts[0], 2);
	assert_int_equal(head, PORT_NONE);
	assert_int_equal(order[5], 5);
	skeleton_free(&donor);
}

/* The conversion: pad 2 (the host's three origin joints, the donor's
 * one), the orphan root 11 adopted onto bone 1, the parts and params,
 * parents, links and kinds renumbered, bind poses kept. */
static void own_rig_converts_the_donor(void **state)
{
	(void)state;
	struct skeleton donor, host;
	struct port_rig rig;
	small_donor(&donor);
	three_origin_host(&host);
	assert_int_equal(port_rig_from_donor(&donor, 11, &host, &rig, NULL), MH_OK);
	assert_int_equal(rig.pad, 2);
	assert_int_equal(rig.nadopted, 1);
	assert_int_equal(rig.adopted[0], 11);
	assert_int_equal(rig.donor_animated, 11);
	assert_int_equal(rig.animated, 13);
	assert_int_equal(rig.njoints, 15);
	assert_int_equal(rig.nparts, 3);
	assert_int_equal(rig.part_count[0], 7);
	static const int32_t JOINT_OF[13] = {2, 3, 7, 4, 11, 5, 12, 6, 8, 9, 10, 13, 14};
	assert_memory_equal(rig.joint_of, JOINT_OF, sizeof JOINT_OF);
	for (uint32_t b = 0; b < 13; b++)
		assert_int_equal(rig.bone_of[JOINT_OF[b]], (int32_t)b);
	assert_int_equal(rig.bone_of[0], PORT_NONE);
	assert_int_equal(rig.bone_of[1], PORT_NONE);
	const struct skeleton *s = &rig.skel;
	assert_int_equal(s->game, SKELETON_MHFU);
	assert_int_equal(s->nbones, 15);
	assert_int_equal(s->nparams, 2);
	assert_int_equal(s->params[0], 0);
	assert_int_equal(s->params[1], 13);
	static const int32_t PARENT[15] = {-1, 0, 1, 2, 3, 4, 5, 3, 7, 8, 7, 4, 11, 3, 13};
	static const uint32_t PART[15] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3};
	for (uint32_t j = 0; j < 15; j++) {
		assert_int_equal(s->bones[j].parent, PARENT[j]);
		assert_int_equal(s->bones[j].part, PART[j]);
		assert_int_equal(s->bones[j].count, 1);
		for (uint32_t i = 0; i < SKELETON_REST_MAX; i++)
			assert_int_equal(s->bones[j].rest[i], 0);
	}
	/* 4 -> 2 is now joint 11 -> 7, 8 -> 5 joint 8 -> 5; joint 10 (bone
	 * 10) would link joint 11, a later one: kind 1.  Bone 6's kind and
	 * shape ride along. */
	assert_int_equal(s->bones[11].kind, 2);
	assert_int_equal(s->bones[11].link, 7);
	assert_int_equal(s->bones[8].kind, 2);
	assert_int_equal(s->bones[8].link, 5);
	assert_int_equal(s->bones[10].kind, 1);
	assert_int_equal(s->bones[10].link, -1);
	assert_int_equal(s->bones[12].kind, 3);
	assert_true(s->bones[12].rotation[1] == 0.5f && s->bones[12].scale[2] == 2.0f);
	/* Every donor bone where it was (the orphan chain now off the hip:
	 * 10 up, 55 back); the pad at the origin. */
	for (uint32_t b = 0; b < 13; b++) {
		double was[3], now[3];
		assert_int_equal(rig_bind_world(&donor, b, was, NULL), MH_OK);
		assert_int_equal(rig_bind_world(s, (uint32_t)JOINT_OF[b], now, NULL), MH_OK);
		if (b == 11 || b == 12)
			was[1] += 10;
		assert_memory_equal(was, now, sizeof was);
	}
	double tip[3];
	assert_int_equal(rig_bind_world(s, 14, tip, NULL), MH_OK);
	assert_true(tip[0] == 0 && tip[1] == 10 && tip[2] == -55);
	/* The engine's skeleton rules find nothing; it encodes and decodes. */
	struct rule_report rep = {0};
	assert_int_equal(rules_check_skeleton(s, NULL, &rep), MH_OK);
	for (size_t i = 0; i < rep.n; i++)
		fail_msg("%s: %s", rule_info(rep.v[i].code)->name, rep.v[i].msg);
	rules_report_free(&rep);
	uint8_t *bytes;
	size_t len;
	struct skeleton back;
	assert_int_equal(skeleton_encode(s, &bytes, &len, NULL), MH_OK);
	assert_int_equal(skeleton_decode(bytes, len, &back, NULL), MH_OK);
	assert_int_equal(back.nbones, 15);
	free(bytes);
	skeleton_free(&back);
	port_rig_free(&rig);
	/* Animated 0 (or past the bones): all of them; a host without
	 * origin joints: no pad. */
	host.bones[1].position[0] = 5;
	assert_int_equal(port_rig_from_donor(&donor, 0, &host, &rig, NULL), MH_OK);
	assert_int_equal(rig.pad, 0);
	assert_int_equal(rig.animated, 13);
	assert_int_equal(rig.skel.params[1], 13);
	port_rig_free(&rig);
	/* A parent after its bone is refused. */
	donor.bones[3].parent = 7;
	struct mh_diag d;
	assert_diag(&d, port_rig_from_donor(&donor, 11, &host, &rig, &d), MH_ECORRUPT, 0);
	assert_diag_says(&d, "bone 3 has parent 7");
	assert_null(rig.joint_of);
	skeleton_free(&host);
	skeleton_free(&donor);
}

/* The host's rig offered as an MHP3rd donor converts back to itself:
 * parts 31, 9, 5, the bones in their order, no pad; only the severed
 * chain's root is adopted onto joint 1. */
static void own_rig_of_the_native_tigrex(void **state)
{
	(void)state;
	uint32_t every[TIGREX_BONES];
	for (uint32_t j = 0; j < TIGREX_BONES; j++)
		every[j] = j;
	struct skeleton donor, host;
	struct port_rig rig;
	skeleton_of_joints(&donor, every, TIGREX_BONES);
	host_skeleton(&host);
	assert_int_equal(port_rig_from_donor(&donor, TIGREX_ANIMATED, &host, &rig, NULL), MH_OK);
	assert_int_equal(rig.pad, 0);
	assert_int_equal(rig.nparts, 3);
	assert_int_equal(rig.part_count[0], 31);
	assert_int_equal(rig.part_count[1], 9);
	assert_int_equal(rig.part_count[2], 5);
	assert_int_equal(rig.njoints, TIGREX_BONES);
	assert_int_equal(rig.skel.params[1], TIGREX_ANIMATED);
	/* The host drops its tail: the severed chain stays the tip, so the
	 * native comes back whole. */
	assert_int_equal(rig.nadopted, 0);
	for (uint32_t j = 0; j < TIGREX_BONES; j++) {
		assert_int_equal(rig.joint_of[j], (int32_t)j);
		assert_int_equal(rig.skel.bones[j].part, host.bones[j].part);
		assert_int_equal(rig.skel.bones[j].parent, host.bones[j].parent);
		assert_memory_equal(rig.skel.bones[j].position, host.bones[j].position,
				    sizeof host.bones[j].position);
	}
	port_rig_free(&rig);
	/* A host without a severed tail: the orphan chain is adopted onto
	 * bone 1, and would otherwise float. */
	host.bones[45].parent = 2;
	assert_int_equal(port_rig_from_donor(&donor, TIGREX_ANIMATED, &host, &rig, NULL), MH_OK);
	assert_int_equal(rig.nadopted, 1);
	assert_int_equal(rig.adopted[0], 45);
	assert_int_equal(rig.skel.bones[45].parent, 1);
	port_rig_free(&rig);
	skeleton_free(&donor);
	skeleton_free(&host);
}

/* The Brute-like donor of 46 bones: the host's joints but joint 0 and the
 * tail's tip, the head in the middle of the order, an orphan chain; its
 * records drive bones 0..42. */
#define BRUTE46_BONES 46u
static const uint32_t BRUTE46[BRUTE46_BONES] = {
	1,  2,	3,  4,	5,  6,	7,  8,					 /* origin, spine */
	31, 32, 33, 34, 35, 36, 37, 38, 39,				 /* the head */
	9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, /* the limbs */
	25, 26, 27, 28, 29, 30, 40, 41, 42, 43,				 /* the tail */
	45, 46, 47};							 /* orphan chain */

static void brute46_donor(struct donor *dn, const uint32_t *ids, uint32_t n)
{
	struct skeleton s;
	struct anim a;
	skeleton_of_joints(&s, BRUTE46, BRUTE46_BONES);
	moveset_of(&a, ids, n, 43);
	donor_of(dn, &s, &a, NULL);
}

/* 47 joints in parts 31, 9, 4 with a pad of 1: joint j is the host's
 * joint j up to the tail's end (43), the orphan chain behind it. */
static void own_rig_of_the_brute(void **state)
{
	(void)state;
	struct donor dn;
	struct skeleton host;
	struct port_rig rig;
	brute46_donor(&dn, SOME_IDS, 6);
	host_skeleton(&host);
	assert_int_equal(dn.map.offset, 0);
	assert_int_equal(port_driven_bones(&dn.map), 43);
	assert_int_equal(port_record_of(&dn.map, 42), 42);
	assert_int_equal(port_record_of(&dn.map, 43), PORT_NONE);
	assert_int_equal(port_rig_from_donor(&dn.skel, port_driven_bones(&dn.map), &host, &rig,
					     NULL), MH_OK);
	assert_int_equal(rig.pad, 1);
	assert_int_equal(rig.njoints, 47);
	assert_int_equal(rig.nparts, 3);
	assert_int_equal(rig.part_count[0], 31);
	assert_int_equal(rig.part_count[1], 9);
	assert_int_equal(rig.part_count[2], 4);
	assert_int_equal(rig.animated, 44);
	assert_int_equal(rig.skel.params[1], 44);
	/* The Tigrex drops its tail: the Brute's orphan chain stays its tip. */
	assert_int_equal(rig.nadopted, 0);
	for (uint32_t b = 0; b < BRUTE46_BONES; b++) {
		uint32_t want = BRUTE46[b] <= 43 ? BRUTE46[b] : BRUTE46[b] - 1;
		assert_int_equal(rig.joint_of[b], (int32_t)want);
	}
	assert_int_equal(rig.skel.bones[44].parent, -1);
	assert_int_equal(rig.skel.bones[44].part, 3);
	assert_int_equal(rig.skel.bones[1].parent, 0);
	assert_int_equal(rig.skel.bones[31].parent, 8);
	assert_int_equal(rig.skel.bones[40].parent, 2);
	port_rig_free(&rig);
	skeleton_free(&host);
	donor_release(&dn);
}

/* ---- travel carried ------------------------------------------------------------ */

static void keyed(struct clip_track *t, uint32_t bit, const struct clip_key *keys, uint32_t n)
{
	struct clip_channel *ch = clip_add_channel(t, bit);
	assert_non_null(ch);
	for (uint32_t i = 0; i < n; i++)
		assert_non_null(clip_add_key(ch, keys[i]));
}

static const struct clip_channel *bit_of(const struct clip_track *t, uint32_t bit)
{
	for (uint32_t i = 0; i < t->nchannels; i++)
		if (t->channels[i].bit == bit)
			return &t->channels[i];
	return NULL;
}

/* Joint 0 runs 1000 units forward (Z) and sits at height 165 (Y, with a
 * slope); the root (track 1) sways in X and bobs in Y on other frames.
 * Carried: the run on the root, the sway and both heights on joint 0,
 * the height keyed on both key sets and, sampled, the two curves' sum. */
static void travel_moves_onto_the_root(void **state)
{
	(void)state;
	static const struct clip_key RUN[2] = {{0, 3, 0, 4}, {16000, 37, 4, 0}};
	static const struct clip_key HEIGHT[2] = {{2640, 0, 0, 0}, {2640, 40, 0, 0}};
	static const struct clip_key BOB[4] = {
		{3616, 0, -6, -6}, {3360, 9, -6, -6}, {4640, 20, -6, -6}, {3200, 33, -6, -6}};
	static const struct clip_key SWAY[2] = {{-480, 0, 0, 0}, {-320, 40, 0, 0}};
	static const struct clip_key TURN[2] = {{0, 0, 0, 0}, {900, 40, 0, 0}};
	static const struct clip_key STILL[2] = {{0, 0, 0, 0}, {0, 40, 0, 0}};
	struct clip c = {.loop = 1};
	struct clip_track *base = clip_add_track(&c, 0);
	keyed(base, CLIP_ROT_Y, STILL, 2); /* a rotation keyed 0 is no turn */
	keyed(base, CLIP_LOC_Z, RUN, 2);
	keyed(base, CLIP_LOC_Y, HEIGHT, 2);
	struct clip_track *top = clip_add_track(&c, 0);
	keyed(top, CLIP_LOC_Y, BOB, 4);
	keyed(top, CLIP_LOC_X, SWAY, 2);
	keyed(clip_add_track(&c, 0), CLIP_ROT_Y, TURN, 2);
	struct clip before;
	assert_int_equal(clip_copy(&before, &c, NULL), MH_OK);
	assert_int_equal(port_carry_travel(&c, 1, NULL), PORT_CARRIED);
	/* joint 0: rot_y, loc_x (the sway), loc_y (the sum) in bit order */
	assert_int_equal(c.tracks[0].nchannels, 3);
	assert_int_equal(c.tracks[0].channels[0].bit, CLIP_ROT_Y);
	assert_int_equal(c.tracks[0].channels[1].bit, CLIP_LOC_X);
	assert_int_equal(c.tracks[0].channels[2].bit, CLIP_LOC_Y);
	assert_int_equal(c.tracks[0].mask, CLIP_ROT_Y | CLIP_LOC_X | CLIP_LOC_Y);
	assert_memory_equal(c.tracks[0].channels[1].keys, SWAY, sizeof SWAY);
	const struct clip_channel *sum = &c.tracks[0].channels[2];
	static const int16_t FRAMES[5] = {0, 9, 20, 33, 40};
	assert_int_equal(sum->nkeys, 5);
	for (uint32_t k = 0; k < 5; k++)
		assert_int_equal(sum->keys[k].frame, FRAMES[k]);
	for (double f = 0; f <= 44; f += 0.25) {
		double want = curve_sample(bit_of(&before.tracks[0], CLIP_LOC_Y), f) +
			      curve_sample(bit_of(&before.tracks[1], CLIP_LOC_Y), f);
		if (fabs(curve_sample(sum, f) - want) > 1.0)
			fail_msg("height at frame %g: %g, the two curves' sum %g", f,
				 curve_sample(sum, f), want);
	}
	/* the root: the run alone */
	assert_int_equal(c.tracks[1].nchannels, 1);
	assert_int_equal(c.tracks[1].channels[0].bit, CLIP_LOC_Z);
	assert_memory_equal(c.tracks[1].channels[0].keys, RUN, sizeof RUN);
	assert_true(clip_equal(&(struct clip){.ntracks = 1, .tracks = &c.tracks[2]},
			       &(struct clip){.ntracks = 1, .tracks = &before.tracks[2]}));
	clip_free(&c);

	/* A root with nothing but location left, and a joint 0 with no
	 * location at all: the root rests over the clip rather than lose
	 * every channel. */
	c = (struct clip){0};
	keyed(clip_add_track(&c, 0), CLIP_ROT_X, STILL, 2);
	keyed(clip_add_track(&c, 0), CLIP_LOC_X, SWAY, 2);
	assert_int_equal(port_carry_travel(&c, 1, NULL), PORT_CARRIED);
	assert_int_equal(c.tracks[0].nchannels, 2);
	assert_int_equal(c.tracks[0].channels[1].bit, CLIP_LOC_X);
	assert_rest_track(&c.tracks[1], 40);
	clip_free(&c);

	/* Joint 0 turning: left as it was. */
	struct clip again;
	keyed(&before.tracks[0], CLIP_ROT_X, TURN, 2);
	assert_int_equal(clip_copy(&again, &before, NULL), MH_OK);
	assert_int_equal(port_carry_travel(&before, 1, NULL), PORT_CARRY_ROTATES);
	assert_true(clip_equal(&before, &again));
	assert_int_equal(port_carry_travel(&before, 3, NULL), PORT_CARRY_NO_ROOT);
	clip_free(&again);
	clip_free(&before);

	/* Heights summing past the keys' range. */
	static const struct clip_key HIGH[1] = {{30000, 0, 0, 0}};
	c = (struct clip){0};
	keyed(clip_add_track(&c, 0), CLIP_LOC_Y, HIGH, 1);
	keyed(clip_add_track(&c, 0), CLIP_LOC_Y, HIGH, 1);
	assert_int_equal(port_carry_travel(&c, 1, NULL), PORT_CARRY_RANGE);
	assert_int_equal(c.tracks[0].channels[0].keys[0].value, 30000);
	clip_free(&c);
}

/* The root the engine carries: joint 0's first child, both at the
 * origin. */
static void travel_root_of_a_rig(void **state)
{
	(void)state;
	struct skeleton s;
	host_skeleton(&s);
	assert_int_equal(port_travel_root(&s), 1);
	s.bones[1].position[2] = 1;
	assert_int_equal(port_travel_root(&s), PORT_NONE);
	skeleton_free(&s);
	three_origin_host(&s);
	s.bones[0].position[0] = 0.5f;
	assert_int_equal(port_travel_root(&s), PORT_NONE);
	skeleton_free(&s);
}

/* ---- mode own, end to end ------------------------------------------------------ */

static const struct port_settings OWN = {.mode = PORT_MODE_OWN};
static const uint8_t DONOR_TMH_BYTES[20] = "the donor's textures";

/* A member of a PAC's bytes. */
static void member_of(const uint8_t *pac, size_t len, uint32_t k, const uint8_t **at,
		      size_t *size)
{
	struct pac p;
	assert_int_equal(pac_decode(pac, len, &p, NULL), MH_OK);
	assert_true(k < p.count);
	*at = pac + p.entries[k].offset;
	*size = p.entries[k].size;
	pac_free(&p);
}

/* The Brute in mode own: its converted rig ships as member 0, the
 * donor's texture bank as member 2, the body (member 1, for now) and
 * the rest the host's; each placed clip plays on the own rig's parts,
 * joint j its donor bone's record; every other entry is empty. */
static void own_mode_ports_the_brute(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	brute46_donor(&dn, SOME_IDS, 6);
	dn.member[DONOR_TMH] = DONOR_TMH_BYTES;
	dn.member_len[DONOR_TMH] = sizeof DONOR_TMH_BYTES;
	/* Clip 7's donor root (record 0) travels 100 units forward. */
	struct clip *seven = (struct clip *)port_donor_clip(&dn.moveset, 7);
	add_keyed(&seven->tracks[0], CLIP_LOC_Z, 0, brute_frames(7));
	seven->tracks[0].channels[seven->tracks[0].nchannels - 1].keys[1].value = 1600;
	run_ok(&h, PORT_TIGREX_EM, &dn, &OWN, &r);
	assert_int_equal(r.mode, PORT_MODE_OWN);
	assert_int_equal(r.njoints, 47);
	assert_int_equal(r.pad, 1);
	assert_int_equal(r.hip, 2);
	assert_int_equal(r.pelvis, 2);
	assert_int_equal(r.joints[0].why, PORT_WHY_PAD);
	assert_int_equal(r.joints[0].bone, PORT_NONE);
	for (uint32_t j = 1; j < 47; j++) {
		int32_t bone = r.joints[j].bone;
		assert_true(bone >= 0);
		assert_int_equal(BRUTE46[bone], j <= 43 ? j : j + 1);
		/* where its bone is (the adopted chain too: the hip is at the
		 * origin, as the donor's root is) */
		assert_true(r.joints[j].distance == 0);
		assert_int_equal(r.joints[j].record, j < 44 ? bone : PORT_NONE);
		assert_int_equal(r.joints[j].why, j < 44 ? PORT_WHY_OWN : PORT_WHY_NOT_ANIMATED);
	}
	assert_true(all_passed(&r));
	assert_non_null(r.pac);
	assert_int_equal(r.rig.nbones, 47);
	assert_int_equal(r.rig.params[1], 44);

	/* out.pac: member 0 the own rig, 2 the donor's bank, the others and
	 * the tail the host's. */
	const uint8_t *at, *was;
	size_t size, was_size;
	uint8_t *rig_bytes;
	size_t rig_len;
	assert_int_equal(skeleton_encode(&r.rig, &rig_bytes, &rig_len, NULL), MH_OK);
	member_of(r.pac, r.pac_len, 0, &at, &size);
	assert_int_equal(size, rig_len);
	assert_memory_equal(at, rig_bytes, rig_len);
	free(rig_bytes);
	member_of(r.pac, r.pac_len, 2, &at, &size);
	assert_int_equal(size, sizeof DONOR_TMH_BYTES);
	assert_memory_equal(at, DONOR_TMH_BYTES, size);
	/* Member 1 is the donor's body re-laid as an MHFU PMO; 4 the host's. */
	member_of(r.pac, r.pac_len, 1, &at, &size);
	struct pmo relaid;
	assert_int_equal(pmo_decode(at, size, NULL, 0, &relaid, NULL), MH_OK);
	assert_int_equal(relaid.h.version, PMO_MHFU);
	pmo_free(&relaid);
	member_of(r.pac, r.pac_len, 4, &at, &size);
	member_of(h.pac, h.len, 4, &was, &was_size);
	assert_int_equal(size, was_size);
	assert_memory_equal(at, was, size);
	/* The rules: another skeleton is no error, a TEMPLATE warning. */
	bool template = false;
	for (size_t i = 0; i < r.rules.n; i++) {
		assert_int_equal(r.rules.v[i].level, RULE_WARNING);
		template |= r.rules.v[i].code == RULE_TEMPLATE;
	}
	assert_true(template);

	/* The pack: the placed clips on the own rig's parts, 31/9/4. */
	static const uint32_t OWN_COUNT[3] = {31, 9, 4};
	for (uint32_t k = 0; k < 3; k++) {
		const struct clip *c = part_clip(&r.pack, 7, k);
		assert_non_null(c);
		assert_int_equal(c->ntracks, OWN_COUNT[k]);
	}
	/* Joint 40 (the tail's first, part 2 track 0) plays record 39. */
	const struct clip *tail = part_clip(&r.pack, 101, 2);
	assert_int_equal(tail->tracks[0].channels[0].bit, CLIP_ROT_X);
	assert_int_equal(tail->tracks[0].channels[0].keys[0].value, 39 * 100 + 101 + CLIP_ROT_X);
	/* Travel: the donor root's run (joint 1, the root) moved onto joint
	 * 0 with the rest rotation it had; the root keeps its rotation. */
	const struct clip *body = part_clip(&r.pack, 7, 0);
	const struct clip_channel *run = bit_of(&body->tracks[0], CLIP_LOC_Z);
	assert_non_null(run);
	assert_int_equal(run->keys[1].value, 1600);
	assert_non_null(bit_of(&body->tracks[0], CLIP_ROT_X));
	assert_null(bit_of(&body->tracks[1], CLIP_LOC_Z));
	assert_int_equal(body->tracks[1].channels[0].keys[0].value, 0 * 100 + 7 + CLIP_ROT_X);
	assert_int_equal(r.carried, 6);
	assert_int_equal(r.uncarried, 0);

	/* Entries no donor clip fills are empty, the partial ones too. */
	for (uint32_t e = 0; e < r.capacity; e++) {
		const struct port_place *p = &r.places[e];
		if (port_place_donor(p))
			continue;
		assert_int_equal(p->how, e == 24 || e == 25 ? PORT_HOW_PARTIAL : PORT_HOW_EMPTY);
		assert_int_equal(p->frames, 0);
		for (uint32_t k = 0; k < 3; k++)
			assert_null(part_clip(&r.pack, e, k));
	}
	assert_int_equal(r.places[8].how, PORT_HOW_EMPTY);
	size_t len;
	char *text = port_check_text(&r, &len);
	assert_non_null(strstr(text, "travel: carried onto the root in 6 placed clips, 0 left"));
	free(text);
	text = port_map_tsv(&r, &len);
	assert_non_null(strstr(text, "\n0\t-\t-\t-\t-\tpad\n1\t0\t0\t0.0\t-1\town\n"));
	free(text);
	text = port_settings_print(&OWN, &r, "host", "donor", &len);
	assert_non_null(strstr(text, "\nmode own\n"));
	assert_non_null(strstr(text, "\n# map 0 -\n# map 1 0\n# map 2 1\n"));
	assert_non_null(strstr(text, "\n# map 46 45\n# pin 0 0\n"));
	free(text);

	/* port_verify on the own port sees a part clip broken. */
	drop_last_track((struct clip *)part_clip(&r.pack, 1, 2));
	struct mh_diag d;
	assert_int_equal(port_verify(h.pac, h.len, &dn, &r, &d), MH_OK);
	/* (a port breaking another rule is no whole model: TEMPLATE counts
	 * again, rules.h) */
	assert_false(r.checks[PORT_CHECK_RULES].passed);
	bool partition = false;
	for (size_t i = 0; i < r.rules.n; i++)
		partition |= r.rules.v[i].code == RULE_PARTITION && r.rules.v[i].level == RULE_ERROR;
	assert_true(partition);
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* The host's rig as its own donor in mode own: the same joints, and each
 * entry the host fills whole plays the host's clips again (joint 0
 * turns in them: travel stays as it was); the rest empty. */
static void own_mode_identity(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	host_make(&h);
	mirror_donor(&dn, &h);
	run_ok(&h, PORT_TIGREX_EM, &dn, &OWN, &r);
	assert_int_equal(r.njoints, 48);
	assert_int_equal(r.pad, 0);
	for (uint32_t j = 0; j < 48; j++) {
		assert_int_equal(r.joints[j].bone, (int32_t)j);
		assert_int_equal(r.joints[j].record, j < 45 ? (int32_t)j : PORT_NONE);
		assert_int_equal(r.rig.bones[j].parent, h.skel.bones[j].parent);
	}
	uint32_t placed = 0;
	for (uint32_t e = 0; e < ENTRIES_MAX; e++)
		for (uint32_t k = 0; k < 3; k++) {
			const struct clip *got = part_clip(&r.pack, e, k);
			if (host_fills(e, 0) && e != 10) {
				if (!clip_equal(got, part_clip(&h.pack, e, k)))
					fail_msg("entry %u part %u differs from the host's", e, k);
				placed += k == 0;
			} else if (e != 10) {
				assert_null(got);
			}
		}
	assert_int_equal(placed, 15);
	assert_int_equal(r.uncarried, 16);
	assert_int_equal(r.carried, 0);
	assert_true(all_passed(&r));
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* The settings in mode own: joints are the own rig's; skin is refused in
 * mode host only. */
static void own_mode_settings(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct mh_diag d;
	host_make(&h);
	brute46_donor(&dn, SOME_IDS, 6);
	struct port_map_line past = {47, 1, 3, 5};
	struct port_settings s = {.mode = PORT_MODE_OWN, .nmaps = 1, .maps = &past};
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 3, 5);
	assert_diag_says(&d, "joint 47: the own rig's joints are 0..46");
	/* No donor yet: no rig to measure by. */
	assert_int_equal(port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, NULL, &d), MH_OK);
	past.joint = 46;
	s.skin_set = true;
	s.skin = PORT_SKIN_TRANSFER;
	s.skin_line = 2;
	s.skin_col = 1;
	assert_int_equal(port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d), MH_OK);
	s.mode = PORT_MODE_HOST;
	s.nmaps = 0;
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 2, 1);
	assert_diag_says(&d, "mode own only");
	/* A map line in mode own: joint 3 plays bone 0's record; joint 0
	 * (the pad) bone 1's. */
	struct port_map_line maps[2] = {{3, 0, 1, 5}, {0, 1, 2, 5}};
	s = (struct port_settings){.mode = PORT_MODE_OWN, .nmaps = 2, .maps = maps};
	struct port_result r;
	run_ok(&h, PORT_TIGREX_EM, &dn, &s, &r);
	assert_int_equal(r.joints[3].bone, 0);
	assert_int_equal(r.joints[3].record, 0);
	assert_int_equal(r.joints[3].why, PORT_WHY_SET);
	assert_int_equal(r.joints[0].record, 1);
	assert_int_equal(r.joints[1].bone, 0); /* the bone's own joint keeps it */
	port_result_free(&r);
	donor_release(&dn);
	host_free(&h);
}

/* ---- settings and hosts ---------------------------------------------------------- */

static void settings_out_of_range(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct mh_diag d;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, 3);
	assert_int_equal(port_settings_check(&NO_SETTINGS, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_OK);
	struct port_map_line far_joint = {48, 1, 3, 5}, far_bone = {4, 47, 4, 5};
	struct port_settings s = {.mode = PORT_MODE_HOST, .nmaps = 1, .maps = &far_joint};
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 3, 5);
	assert_diag_says(&d, "0..47");
	s.maps = &far_bone;
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 4, 5);
	assert_diag_says(&d, "0..46");
	/* Without a donor yet, the bone is not checked. */
	assert_int_equal(port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, NULL, &d), MH_OK);
	struct port_pin no_clip = {3, 3, 5, 5}, far_entry = {7, 123, 6, 5}, partial = {7, 24, 7, 5};
	s = (struct port_settings){.mode = PORT_MODE_HOST, .npins = 1, .pins = &no_clip};
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 5, 5);
	s.pins = &far_entry;
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 6, 5);
	assert_diag_says(&d, "0..122");
	/* Another species' host has 105 entries. */
	far_entry.entry = 105;
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, 12, &dn, &d), MH_ERANGE, 6, 5);
	assert_diag_says(&d, "0..104");
	s.pins = &partial;
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 7, 5);
	s = (struct port_settings){.mode = PORT_MODE_HOST, .lift_set = true, .lift = 2048,
				   .lift_line = 8, .lift_col = 6};
	assert_text_diag(&d, port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d),
			 MH_ERANGE, 8, 6);
	assert_diag_says(&d, "-2048..2047.9375");
	s.lift = -2048;
	assert_int_equal(port_settings_check(&s, h.pac, h.len, PORT_TIGREX_EM, &dn, &d), MH_OK);
	/* port_run refuses them too, with *r empty. */
	s.lift = NAN;
	struct port_result r;
	assert_text_diag(&d, port_run(h.pac, h.len, PORT_TIGREX_EM, &dn, &s, &r, &d), MH_ERANGE, 8,
			 6);
	assert_null(r.joints);
	assert_null(r.pac);
	donor_release(&dn);
	host_free(&h);
}

static void hosts_that_are_no_model(void **state)
{
	(void)state;
	struct host h;
	struct donor dn;
	struct port_result r;
	struct mh_diag d;
	host_make(&h);
	brute_donor(&dn, SOME_IDS, 6, 3);
	/* Three members: no pack. */
	uint8_t *small;
	size_t small_len;
	const struct pac_blob three[3] = {{FILLER_1, 4}, {FILLER_1, 4}, {FILLER_1, 4}};
	assert_int_equal(pac_encode(three, 3, 16, NULL, 0, &small, &small_len, NULL), MH_OK);
	assert_diag(&d, port_run(small, small_len, -1, &dn, &NO_SETTINGS, &r, &d), MH_ECORRUPT, 0);
	assert_diag_says(&d, "3 members");
	free(small);
	/* The donor's rig as the host's: not MHFU. */
	free(h.pac);
	h.pac = host_pac_of(&dn.skel, &h.pack, &h.len);
	assert_diag(&d, port_run(h.pac, h.len, -1, &dn, &NO_SETTINGS, &r, &d), MH_ECORRUPT, 0);
	assert_null(r.joints);
	donor_release(&dn);
	host_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(brute_matches_tigrex),
		cmocka_unit_test(cutoff_is_a_quarter_of_the_diagonal),
		cmocka_unit_test(depth_penalty_outweighs_distance),
		cmocka_unit_test(map_lines_come_first),
		cmocka_unit_test(channels_sorted_scale_dropped_rests_filled),
		cmocka_unit_test(rest_tracks_span_at_least_two),
		cmocka_unit_test(split_into_parts_keeps_loop),
		cmocka_unit_test(lift_moves_the_pelvis),
		cmocka_unit_test(capacity_by_host),
		cmocka_unit_test(packer_own_then_free_host),
		cmocka_unit_test(packer_free_after_free_host),
		cmocka_unit_test(pins_move_what_they_displace),
		cmocka_unit_test(unplaced_are_listed),
		cmocka_unit_test(checks_pass_with_figures),
		cmocka_unit_test(checks_fail_on_their_faults),
		cmocka_unit_test(identity_oracle),
		cmocka_unit_test(own_rig_partition_takes_whole_subtrees),
		cmocka_unit_test(own_rig_converts_the_donor),
		cmocka_unit_test(own_rig_of_the_native_tigrex),
		cmocka_unit_test(own_rig_of_the_brute),
		cmocka_unit_test(travel_moves_onto_the_root),
		cmocka_unit_test(travel_root_of_a_rig),
		cmocka_unit_test(own_mode_ports_the_brute),
		cmocka_unit_test(own_mode_identity),
		cmocka_unit_test(own_mode_settings),
		cmocka_unit_test(settings_out_of_range),
		cmocka_unit_test(hosts_that_are_no_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
