/* SPDX-License-Identifier: MIT */
/* Engine rules (rules.h): the table, one check function per rule, and
 * the report's level handling.
 *
 * Decisions the spec leaves open (mount.mhfu(8) "Rules" lists the rules and levels):
 *  - FRAME_ORDER: "in frame order" is read as never going backwards: two
 *    keys at the same frame pass (whether the engine's Hermite step over
 *    a zero-length interval is harmless is not known).  A negative frame
 *    is NEGATIVE_FRAME, reported instead of going backwards.  The toolkit
 *    only warns; here it is an error, as the engine rules list frame order
 *    among what a clip must keep.
 *  - The animated joints are the first params[1] bones; without a second
 *    value, all bones.  A second value of 0 or past the bones breaks
 *    ANIMATED_COUNT, and the rules needing the count (STREAM_RUNS,
 *    STREAM_SUBTREE, PARTITION) are then skipped, as the toolkit does.
 *  - STREAM_RUNS reports each joint whose part is neither its
 *    predecessor's nor the next one, so 0,0,2,2,3 flags only the first 2.
 *    A later part whose first joint is a root counts as hanging off
 *    nothing outside it (so nested in no other part).
 *  - BONE_LINKS accepts either convention for roots: no sibling, or the
 *    next root (the spec says nothing of roots' siblings, and
 *    skeleton_link builds both).
 *  - TRACK_MASK is an error, as every rule is by default, though the
 *    engine finds channels by their own bits, not by the mask: every
 *    shipped track's mask agrees with its channels, so one that does not
 *    is taken for an edit gone wrong.
 *  - A track past the part's joints (PARTITION) is not also reported
 *    as TRACK_EMPTY: it drives no joint. */
#include "rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "pmo.h"
#include "rig.h"

#define SCALE_BITS (CLIP_SCL_X | CLIP_SCL_Y | CLIP_SCL_Z)
/* The bits the engine's channel table plays: the three unnamed ones,
 * rotation and location (mhfu-archive(5) "CLIPS"). */
#define PLAYED_BITS (CLIP_U1 | CLIP_U2 | CLIP_U4 | CLIP_ROT_BITS | CLIP_LOC_X | \
		     CLIP_LOC_Y | CLIP_LOC_Z)

/* {code, name, level, mhfu_only, toolkit, summary, fix} */
const struct rule_info rules_table[RULE_COUNT] = {
	[RULE_PARENT_ORDER] = {
		RULE_PARENT_ORDER, "PARENT_ORDER", RULE_ERROR, true, true,
		"every bone's parent comes before it in bone order",
		"reorder the rows so each parent precedes its children and "
		"renumber the parent, child, sibling and link columns"},
	[RULE_ANIMATED_COUNT] = {
		RULE_ANIMATED_COUNT, "ANIMATED_COUNT", RULE_ERROR, true, true,
		"the animated joint count (params' second value) is at least 1 "
		"and at most the bone count",
		"set the second params value to the number of animated joints "
		"(every part's joints, not the unanimated chain after them)"},
	[RULE_BONE_LINKS] = {
		RULE_BONE_LINKS, "BONE_LINKS", RULE_ERROR, true, false,
		"each bone's child is its first child and its sibling the next "
		"bone with the same parent (a root's: none, or the next root); "
		"a kind-2 bone links an earlier bone, other kinds link none",
		"set child to the first row naming the bone as parent, sibling "
		"to the next row with the same parent, -1 where there is none; "
		"link -1 unless kind 2"},
	[RULE_STREAM_RUNS] = {
		RULE_STREAM_RUNS, "STREAM_RUNS", RULE_ERROR, true, true,
		"the animated joints' parts run 0,0,..,1,1,..,2.. in bone "
		"order: each part one run, numbered from 0 up",
		"renumber the part column in runs from 0, one run per part"},
	[RULE_STREAM_SUBTREE] = {
		RULE_STREAM_SUBTREE, "STREAM_SUBTREE", RULE_ERROR, true, true,
		"each part after the first is one whole subtree: its joints "
		"descend from its first joint, which hangs off a part-0 joint "
		"(not off another later part), and none is an earlier part's "
		"parent",
		"a later part's joints must all descend from its first joint; "
		"hang that joint off a body (part 0) joint"},
	[RULE_PARTITION] = {
		RULE_PARTITION, "PARTITION", RULE_ERROR, true, true,
		"each stream's clips carry one track per joint of its part "
		"(stream s plays part s/2), and every part has its stream 2k",
		"add or remove tracks so the clip has one per joint of the part "
		"(the clip file's header names them); give each part its streams"},
	[RULE_NO_TRACKS] = {
		RULE_NO_TRACKS, "NO_TRACKS", RULE_ERROR, false, true,
		"every clip has at least one track",
		"give the clip its tracks, or empty the slot in pack.txt"},
	[RULE_TRACK_EMPTY] = {
		RULE_TRACK_EMPTY, "TRACK_EMPTY", RULE_ERROR, true, false,
		"every track has a channel (an empty one collapses its joint "
		"to the origin)",
		"hold the joint still: rot_x, rot_y, rot_z with 0-value keys "
		"at frame 0 and the clip's last frame"},
	[RULE_SCALE_CHANNEL] = {
		RULE_SCALE_CHANNEL, "SCALE_CHANNEL", RULE_ERROR, true, true,
		"no scale channel (scl_x, scl_y, scl_z): the engine crashes "
		"on them",
		"delete the scl_* channels; the engine does not play scale"},
	[RULE_CHANNEL_BIT] = {
		RULE_CHANNEL_BIT, "CHANNEL_BIT", RULE_ERROR, false, false,
		"every channel is one the engine plays: rotation, location or "
		"the unnamed 0x001, 0x002, 0x004 (scale: SCALE_CHANNEL)",
		"use rot_*, loc_*, u1, u2 or u4; no other bit plays, and the "
		"modding tools cannot read it back"},
	[RULE_DUPLICATE_CHANNEL] = {
		RULE_DUPLICATE_CHANNEL, "DUPLICATE_CHANNEL", RULE_ERROR, false, true,
		"no channel appears twice in one track",
		"merge the two channels' keys into one and delete the other"},
	[RULE_TRACK_MASK] = {
		RULE_TRACK_MASK, "TRACK_MASK", RULE_ERROR, true, false,
		"a track's mask is the OR of its channels' bits",
		"drop \"mask M\" from the track line: the mask is then its "
		"channels' bits"},
	[RULE_NEGATIVE_FRAME] = {
		RULE_NEGATIVE_FRAME, "NEGATIVE_FRAME", RULE_ERROR, false, true,
		"keyframes sit at frame 0 or later",
		"make the frames 0 or more (shift the channel's keys)"},
	[RULE_FRAME_ORDER] = {
		RULE_FRAME_ORDER, "FRAME_ORDER", RULE_ERROR, false, true,
		"a channel's keyframes never go back in time (equal frames "
		"pass)",
		"sort the channel's keys by frame"},
	[RULE_EMPTY_CHANNEL] = {
		RULE_EMPTY_CHANNEL, "EMPTY_CHANNEL", RULE_WARNING, false, true,
		"every channel has a keyframe",
		"key the channel (one key at frame 0 holds a value) or delete "
		"it"},
	[RULE_VALUE_RANGE] = {
		RULE_VALUE_RANGE, "VALUE_RANGE", RULE_ERROR, false, false,
		"frames, values and eases fit -32768..32767 (checked by the "
		"text parsers)",
		"keep the number within -32768..32767 raw units (rotation: "
		"+-720 degrees)"},
	[RULE_TEMPLATE] = {
		RULE_TEMPLATE, "TEMPLATE", RULE_ERROR, true, true,
		"an edited skeleton keeps its bone count and every bone's "
		"parent (the species' AI and overlay assume them); a whole "
		"model PAC carrying its own skeleton and pack that agree is a "
		"port: a warning",
		"restore the bone rows and parents; move bones by their bind "
		"position instead, or write the whole PAC with its pack"},
	[RULE_UNDECODABLE] = {
		RULE_UNDECODABLE, "UNDECODABLE", RULE_ERROR, false, false,
		"what the game loads as a skeleton, an animation pack, a PMO "
		"or a texture bank still decodes as one after the edit, and a "
		"model PAC keeps every such member",
		"write bytes of the member's own kind (a whole PAC), or mount "
		"with -o rules=warn"},
	[RULE_PALETTE_JOINT] = {
		RULE_PALETTE_JOINT, "PALETTE_JOINT", RULE_ERROR, false, true,
		"every bone a PMO's palette names is a bone of the skeleton "
		"beside it",
		"give the palette entry a bone below the skeleton's count in "
		"mesh.txt"},
	[RULE_EMPTY_GROUP] = {
		RULE_EMPTY_GROUP, "EMPTY_GROUP", RULE_WARNING, false, true,
		"every group of a PMO has vertices (a draw that reaches one)",
		"an empty group still binds its palette slots: give its list a "
		"draw, or leave it as the game has it"},
};

const struct rule_info *rule_info(enum rule_code code)
{
	return (unsigned)code < RULE_COUNT ? &rules_table[code] : NULL;
}

const struct rule_info *rule_by_name(const char *name)
{
	for (size_t i = 0; i < RULE_COUNT; i++)
		if (!strcmp(rules_table[i].name, name))
			return &rules_table[i];
	return NULL;
}

const char *rule_level_name(enum rule_level level)
{
	return level == RULE_ERROR ? "error" : "warning";
}

/* ---- the report ------------------------------------------------------- */

void rules_report_free(struct rule_report *r)
{
	if (!r)
		return;
	free(r->v);
	*r = (struct rule_report){0};
}

bool rules_has_errors(const struct rule_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].level == RULE_ERROR)
			return true;
	return r->failed;
}

/* An element with no coordinates. */
static struct rule_violation nowhere(void)
{
	return (struct rule_violation){.bone = -1, .stream = -1, .slot = -1,
				       .track = -1, .channel = -1, .key = -1,
				       .joint = -1, .group = -1};
}

static bool on_skeleton(enum rule_code code)
{
	return code == RULE_PARENT_ORDER || code == RULE_ANIMATED_COUNT ||
	       code == RULE_BONE_LINKS || code == RULE_STREAM_RUNS ||
	       code == RULE_STREAM_SUBTREE || code == RULE_TEMPLATE;
}

/* The element of v in words: "bone 12", "the skeleton", "stream 2 slot
 * 24 track 3 (joint 34) channel rot_x key 2", "stream 4" (a stream as a
 * whole), "the clip". */
static void element_words(const struct rule_violation *v, char *buf,
			  size_t size)
{
	size_t n = 0;
#define PUT(...) do { if (n < size) \
		n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
	if (v->code == RULE_UNDECODABLE) {
		PUT("the bytes");
		return;
	}
	if (v->group >= 0) {
		PUT("group %d", v->group);
		return;
	}
	if (on_skeleton(v->code)) {
		if (v->bone >= 0)
			PUT("bone %d", v->bone);
		else
			PUT("the skeleton");
		return;
	}
	if (v->stream >= 0 && v->slot >= 0)
		PUT("stream %d slot %d", v->stream, v->slot);
	else if (v->stream >= 0)
		PUT("stream %d", v->stream);
	if (v->track >= 0)
		PUT("%strack %d", n ? " " : "", v->track);
	if (v->track >= 0 && v->joint >= 0)
		PUT(" (joint %d)", v->joint);
	if (v->channel >= 0 && clip_channel_name(v->bit))
		PUT(" channel %s", clip_channel_name(v->bit));
	else if (v->channel >= 0)
		PUT(" channel 0x%03x", v->bit);
	if (v->key >= 0)
		PUT(" key %d", v->key);
	if (!n)
		PUT("the clip");
#undef PUT
}

/* Appends violation `at` of rule `code` at its default level, its
 * message the element's words, ": " and the formatted detail.  The one
 * place violations are made, so the breakpoint for "why was this
 * rejected"; an allocation failure makes the report failed. */
__attribute__((format(printf, 4, 5)))
static void report(struct rule_report *r, enum rule_code code,
		   struct rule_violation at, const char *fmt, ...)
{
	if (r->failed)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct rule_violation *v = realloc(r->v, cap * sizeof *v);
		if (!v) {
			r->failed = true;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	at.code = code;
	at.level = rules_table[code].level;
	at.existing = false;
	at.gone = false;
	at.fix = rules_table[code].fix;
	char words[128];
	element_words(&at, words, sizeof words);
	int n = snprintf(at.msg, sizeof at.msg, "%s: ", words);
	if (n > 0 && (size_t)n < sizeof at.msg) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(at.msg + n, sizeof at.msg - (size_t)n, fmt, ap);
		va_end(ap);
	}
	r->v[r->n++] = at;
}

static enum mh_err outcome(const struct rule_report *r)
{
	return r->failed ? MH_ENOMEM : MH_OK;
}

enum mh_err rules_report_undecodable(struct rule_report *r, const char *what, bool gone,
				     const struct mh_diag *why)
{
	if (gone && !why)
		report(r, RULE_UNDECODABLE, nowhere(), "the game loads %s here, and it is gone "
		       "(the PAC no longer has the member)", what);
	else
		report(r, RULE_UNDECODABLE, nowhere(), "the game loads %s here, and %s (%s at "
		       "byte %llu: %s)", what, gone ? "it is gone: the PAC around it does not "
		       "decode" : "they do not decode as one", mh_strerror(why->code),
		       (unsigned long long)why->offset, why->msg);
	if (!r->failed)
		r->v[r->n - 1].gone = gone;
	return outcome(r);
}

/* ---- PMO rules --------------------------------------------------------- */

static struct rule_violation at_group(uint32_t g)
{
	struct rule_violation v = nowhere();
	v.group = (int32_t)g;
	return v;
}

enum mh_err rules_check_pmo(const struct pmo *p, const struct skeleton *rig,
			    struct rule_report *r)
{
	for (uint32_t g = 0; g < p->group_count && !r->failed; g++) {
		const struct pmo_group *grp = &p->groups[g];
		for (uint32_t k = 0; rig && k < grp->palette_count; k++) {
			const struct pmo_bone *b = &p->palette[grp->palette_first + k];
			if (b->bone >= rig->nbones)
				report(r, RULE_PALETTE_JOINT, at_group(g), "palette slot %u names "
				       "bone %u, and the skeleton has %u bones", b->slot, b->bone,
				       rig->nbones);
		}
		if (!grp->vertex_count)
			report(r, RULE_EMPTY_GROUP, at_group(g), "it has no vertex (no draw "
			       "reaches one)");
	}
	return outcome(r);
}

/* ---- skeleton rules --------------------------------------------------- */

/* The animated joints (rig_animated); 0 when the count is broken
 * (ANIMATED_COUNT), so the rules that need it are skipped. */
static uint32_t animated_joints(const struct skeleton *s)
{
	return rig_animated_sound(s) ? rig_animated(s) : 0;
}

static struct rule_violation at_bone(uint32_t i)
{
	struct rule_violation v = nowhere();
	v.bone = (int32_t)i;
	return v;
}

static void check_parent_order(const struct skeleton *s, struct rule_report *r)
{
	for (uint32_t i = 0; i < s->nbones; i++) {
		int32_t p = s->bones[i].parent;
		if (p < -1 || p >= (int64_t)s->nbones)
			report(r, RULE_PARENT_ORDER, at_bone(i), "parent %d is "
			       "not a bone (-1 makes a root)", p);
		else if (p >= (int64_t)i)
			report(r, RULE_PARENT_ORDER, at_bone(i), "its parent, "
			       "bone %d, does not come before it", p);
	}
}

static void check_animated_count(const struct skeleton *s,
				 struct rule_report *r)
{
	if (rig_animated_sound(s))
		return;
	if (!s->params[1])
		report(r, RULE_ANIMATED_COUNT, nowhere(), "params give 0 "
		       "animated joints: no part could play");
	else
		report(r, RULE_ANIMATED_COUNT, nowhere(), "params give %u "
		       "animated joints, it has %u bones", s->params[1],
		       s->nbones);
}

/* Bone i's parent, -1 when it is a root (as skeleton_link takes it: a
 * parent that is no bone, or the bone itself). */
static int32_t parent_of(const struct skeleton *s, uint32_t i)
{
	int32_t p = s->bones[i].parent;
	return p < 0 || p >= (int64_t)s->nbones || p == (int64_t)i ? -1 : p;
}

/* The child and sibling each bone should have (skeleton_link's rules,
 * roots chained), into child[] and sibling[]. */
static void expected_links(const struct skeleton *s, int32_t *child, int32_t *sibling)
{
	int32_t next_root = -1;
	for (uint32_t i = 0; i < s->nbones; i++)
		child[i] = -1;
	for (uint32_t j = s->nbones; j-- > 0;) {
		int32_t p = parent_of(s, j);
		if (p < 0) {
			sibling[j] = next_root;
			next_root = (int32_t)j;
		} else {
			sibling[j] = child[p];
			child[p] = (int32_t)j;
		}
	}
}

static void check_link(const struct skeleton *s, uint32_t i, struct rule_report *r)
{
	const struct skeleton_bone *b = &s->bones[i];
	if (b->kind == 2 && (b->link < 0 || b->link >= (int64_t)i))
		report(r, RULE_BONE_LINKS, at_bone(i), "link %d: a kind-2 bone "
		       "links an earlier bone", b->link);
	else if (b->kind != 2 && b->link != -1)
		report(r, RULE_BONE_LINKS, at_bone(i), "link %d on a kind-%u "
		       "bone: only kind 2 links", b->link, b->kind);
}

static void check_bone_links(const struct skeleton *s, struct rule_report *r)
{
	int32_t *child = malloc(((size_t)s->nbones + 1) * 2 * sizeof *child);
	if (!child) {
		r->failed = true;
		return;
	}
	int32_t *sibling = child + s->nbones + 1;
	expected_links(s, child, sibling);
	for (uint32_t i = 0; i < s->nbones; i++) {
		const struct skeleton_bone *b = &s->bones[i];
		bool root = parent_of(s, i) < 0;
		if (b->child != child[i] && child[i] < 0)
			report(r, RULE_BONE_LINKS, at_bone(i), "child %d, but no "
			       "bone has it as parent", b->child);
		else if (b->child != child[i])
			report(r, RULE_BONE_LINKS, at_bone(i), "child %d, its "
			       "first child is bone %d", b->child, child[i]);
		if (b->sibling == sibling[i] || (root && b->sibling == -1))
			; /* agrees (a root may also have none) */
		else if (root && sibling[i] < 0)
			report(r, RULE_BONE_LINKS, at_bone(i), "sibling %d, but "
			       "it is the last root", b->sibling);
		else if (root)
			report(r, RULE_BONE_LINKS, at_bone(i), "sibling %d, the "
			       "next root is bone %d (or none: -1)", b->sibling,
			       sibling[i]);
		else if (sibling[i] < 0)
			report(r, RULE_BONE_LINKS, at_bone(i), "sibling %d, but "
			       "no later bone shares its parent", b->sibling);
		else
			report(r, RULE_BONE_LINKS, at_bone(i), "sibling %d, the "
			       "next bone with its parent is bone %d", b->sibling,
			       sibling[i]);
		check_link(s, i, r);
	}
	free(child);
}

/* Whether bone j descends from bone f (or is f), following parents. */
static bool descends(const struct skeleton *s, uint32_t j, uint32_t f)
{
	int64_t cur = j;
	for (uint32_t steps = 0; steps <= s->nbones; steps++) {
		if (cur == f)
			return true;
		if (cur < 0 || cur >= s->nbones)
			return false;
		cur = s->bones[cur].parent;
	}
	return false; /* a cycle */
}

/* A later part's run [f, e) must be one whole subtree rooted at f,
 * hanging off part 0 (`body`), and parent no joint before it. */
static void check_subtree(const struct skeleton *s, uint32_t f, uint32_t e,
			  uint32_t body, struct rule_report *r)
{
	uint32_t part = s->bones[f].part;
	int32_t p = s->bones[f].parent;
	if (p >= (int64_t)f && p < (int64_t)e)
		report(r, RULE_STREAM_SUBTREE, at_bone(f), "the first joint of "
		       "part %u has its parent, bone %d, inside the part", part, p);
	else if (p >= 0 && p < (int64_t)f && s->bones[p].part != body)
		report(r, RULE_STREAM_SUBTREE, at_bone(f), "the first joint of "
		       "part %u hangs off bone %d, in part %u: a later part "
		       "hangs off part %u, not inside another", part, p,
		       s->bones[p].part, body);
	for (uint32_t j = f + 1; j < e; j++)
		if (!descends(s, j, f))
			report(r, RULE_STREAM_SUBTREE, at_bone(j), "in part %u, "
			       "it does not descend from bone %u, the part's "
			       "first joint", part, f);
	for (uint32_t c = 0; c < f; c++) {
		int32_t cp = s->bones[c].parent;
		if (cp >= (int64_t)f && cp < (int64_t)e)
			report(r, RULE_STREAM_SUBTREE, at_bone(c), "in part %u, "
			       "its parent, bone %d, is in the later part %u",
			       s->bones[c].part, cp, part);
	}
}

static void check_stream_runs(const struct skeleton *s, uint32_t n,
			      struct rule_report *r)
{
	if (n && s->bones[0].part != 0)
		report(r, RULE_STREAM_RUNS, at_bone(0), "in part %u, the first "
		       "joint must be in part 0", s->bones[0].part);
	for (uint32_t j = 1; j < n; j++) {
		uint32_t prev = s->bones[j - 1].part, part = s->bones[j].part;
		if (part != prev && part != prev + 1)
			report(r, RULE_STREAM_RUNS, at_bone(j), "part %u after "
			       "part %u (parts run 0, 1, 2... in bone order)",
			       part, prev);
	}
}

/* Each run [f, e) of a later part that follows its predecessor. */
static void check_stream_subtrees(const struct skeleton *s, uint32_t n,
				  struct rule_report *r)
{
	for (uint32_t f = 1, e; f < n; f = e) {
		for (e = f + 1; e < n && s->bones[e].part == s->bones[f].part;)
			e++;
		if (s->bones[f].part == s->bones[f - 1].part + 1)
			check_subtree(s, f, e, s->bones[0].part, r);
	}
}

static void check_template(const struct skeleton *s,
			   const struct skeleton *before, struct rule_report *r)
{
	if (s->nbones != before->nbones)
		report(r, RULE_TEMPLATE, nowhere(), "%u bones, it had %u",
		       s->nbones, before->nbones);
	uint32_t n = s->nbones < before->nbones ? s->nbones : before->nbones;
	for (uint32_t i = 0; i < n; i++)
		if (s->bones[i].parent != before->bones[i].parent)
			report(r, RULE_TEMPLATE, at_bone(i), "parent %d, it "
			       "was %d", s->bones[i].parent,
			       before->bones[i].parent);
}

enum mh_err rules_check_skeleton(const struct skeleton *s,
				 const struct skeleton *before,
				 struct rule_report *r)
{
	if (s->game != SKELETON_MHFU)
		return outcome(r);
	check_parent_order(s, r);
	check_animated_count(s, r);
	check_bone_links(s, r);
	uint32_t n = animated_joints(s);
	check_stream_runs(s, n, r);
	check_stream_subtrees(s, n, r);
	if (before)
		check_template(s, before, r);
	return outcome(r);
}

/* ---- clip rules ------------------------------------------------------- */

/* Where a clip sits, for its violations' coordinates. */
struct where {
	int32_t stream, slot; /* -1 outside a pack */
	int32_t first_joint;  /* the joint of track 0, -1 unknown */
	int64_t joints;       /* the part's joints, -1 unknown */
	int64_t part;         /* the part, -1 unknown */
};

/* An element of clip c: track t (-1: the clip), channel ch, key k. */
static struct rule_violation at_clip(const struct where *w,
				     const struct clip *c, int64_t t,
				     int64_t ch, int64_t k)
{
	struct rule_violation v = nowhere();
	v.stream = w->stream;
	v.slot = w->slot;
	v.track = (int32_t)t;
	v.channel = (int32_t)ch;
	v.key = (int32_t)k;
	if (t >= 0 && w->first_joint >= 0)
		v.joint = (int32_t)(w->first_joint + t);
	if (ch >= 0)
		v.bit = c->tracks[t].channels[ch].bit;
	if (k >= 0)
		v.frame = c->tracks[t].channels[ch].keys[k].frame;
	return v;
}

static void check_no_tracks(const struct clip *c, const struct where *w,
			    struct rule_report *r)
{
	if (!c->ntracks)
		report(r, RULE_NO_TRACKS, at_clip(w, c, -1, -1, -1),
		       "no tracks");
}

/* Only the tracks that drive a joint: past the part's joints a track is
 * PARTITION's business. */
static void check_track_empty(const struct clip *c, const struct where *w,
			      struct rule_report *r)
{
	for (uint32_t t = 0; t < c->ntracks && (w->joints < 0 || t < w->joints);
	     t++)
		if (!c->tracks[t].nchannels)
			report(r, RULE_TRACK_EMPTY, at_clip(w, c, t, -1, -1),
			       "no channels: its joint collapses to the origin");
}

static void check_scale_channel(const struct clip *c, const struct where *w,
				struct rule_report *r)
{
	for (uint32_t t = 0; t < c->ntracks; t++)
		for (uint32_t j = 0; j < c->tracks[t].nchannels; j++)
			if (c->tracks[t].channels[j].bit & SCALE_BITS)
				report(r, RULE_SCALE_CHANNEL,
				       at_clip(w, c, t, j, -1), "a scale "
				       "channel: the engine crashes on it");
}

/* Whether channel j of t repeats the bit of an earlier channel; seen is
 * a bitmap of the bits below 0x10000 met so far (others: a scan). */
static bool repeated(const struct clip_track *t, uint32_t j, uint64_t *seen)
{
	uint32_t bit = t->channels[j].bit;
	if (bit < 0x10000) {
		uint64_t m = 1ull << (bit % 64);
		bool dup = seen[bit / 64] & m;
		seen[bit / 64] |= m;
		return dup;
	}
	for (uint32_t i = 0; i < j; i++)
		if (t->channels[i].bit == bit)
			return true;
	return false;
}

static void check_channel_twice(const struct clip *c, const struct where *w,
				struct rule_report *r)
{
	uint64_t seen[0x10000 / 64];
	memset(seen, 0, sizeof seen);
	for (uint32_t t = 0; t < c->ntracks; t++) {
		const struct clip_track *tr = &c->tracks[t];
		for (uint32_t j = 0; j < tr->nchannels; j++)
			if (repeated(tr, j, seen))
				report(r, RULE_DUPLICATE_CHANNEL,
				       at_clip(w, c, t, j, -1), "a second "
				       "channel of the same bit in the track");
		/* the next track starts clear: its own words cleared, not
		 * all 8 KB (a pack has thousands of tracks) */
		for (uint32_t j = 0; j < tr->nchannels; j++)
			if (tr->channels[j].bit < 0x10000)
				seen[tr->channels[j].bit / 64] = 0;
	}
}

static void check_track_mask(const struct clip *c, const struct where *w,
			     struct rule_report *r)
{
	for (uint32_t t = 0; t < c->ntracks; t++) {
		const struct clip_track *tr = &c->tracks[t];
		uint32_t bits = 0;
		for (uint32_t j = 0; j < tr->nchannels; j++)
			bits |= tr->channels[j].bit;
		if (tr->mask != bits)
			report(r, RULE_TRACK_MASK, at_clip(w, c, t, -1, -1),
			       "mask 0x%03x, its channels' bits are 0x%03x",
			       tr->mask, bits);
	}
}

/* NEGATIVE_FRAME and FRAME_ORDER in one pass: a negative frame is only
 * NEGATIVE_FRAME, though it also goes back. */
static void check_key_frames(const struct clip *c, const struct where *w,
			     struct rule_report *r)
{
	for (uint32_t t = 0; t < c->ntracks; t++)
		for (uint32_t j = 0; j < c->tracks[t].nchannels; j++) {
			const struct clip_channel *ch = &c->tracks[t].channels[j];
			for (uint32_t k = 0; k < ch->nkeys; k++) {
				int frame = ch->keys[k].frame;
				if (frame < 0)
					report(r, RULE_NEGATIVE_FRAME,
					       at_clip(w, c, t, j, k), "frame "
					       "%d is before frame 0", frame);
				else if (k && frame < ch->keys[k - 1].frame)
					report(r, RULE_FRAME_ORDER,
					       at_clip(w, c, t, j, k), "frame "
					       "%d after frame %d", frame,
					       ch->keys[k - 1].frame);
			}
		}
}

/* Scale bits are SCALE_CHANNEL's (MHFU); on MHP3rd they pass. */
static void check_channel_bit(const struct clip *c, const struct where *w,
			      struct rule_report *r)
{
	for (uint32_t t = 0; t < c->ntracks; t++)
		for (uint32_t j = 0; j < c->tracks[t].nchannels; j++) {
			uint32_t bit = c->tracks[t].channels[j].bit;
			bool one_bit = bit && !(bit & (bit - 1));
			if (!one_bit || !(bit & (PLAYED_BITS | SCALE_BITS)))
				report(r, RULE_CHANNEL_BIT, at_clip(w, c, t, j, -1),
				       "bit 0x%03x is no channel the engine "
				       "plays", bit);
		}
}

static void check_empty_channel(const struct clip *c, const struct where *w,
				struct rule_report *r)
{
	for (uint32_t t = 0; t < c->ntracks; t++)
		for (uint32_t j = 0; j < c->tracks[t].nchannels; j++)
			if (!c->tracks[t].channels[j].nkeys)
				report(r, RULE_EMPTY_CHANNEL, at_clip(w, c, t, j, -1),
				       "no keyframes");
}

/* Only where the part is known (w->joints >= 0).  A clip without tracks
 * is NO_TRACKS', as the toolkit's PARTITION counts only clips with
 * tracks. */
static void check_partition(const struct clip *c, const struct where *w,
			      struct rule_report *r)
{
	struct rule_violation v = at_clip(w, c, -1, -1, -1);
	if (w->joints < 0 || !c->ntracks || c->ntracks == w->joints)
		return;
	if (w->part < 0)
		report(r, RULE_PARTITION, v, "%u tracks, its part has %lld "
		       "joints", c->ntracks, (long long)w->joints);
	else if (!w->joints)
		report(r, RULE_PARTITION, v, "%u tracks, part %lld has no "
		       "animated joints", c->ntracks, (long long)w->part);
	else
		report(r, RULE_PARTITION, v, "%u tracks, part %lld has %lld "
		       "joints (%d..%lld)", c->ntracks, (long long)w->part,
		       (long long)w->joints, w->first_joint,
		       (long long)(w->first_joint + w->joints - 1));
}

/* The rules that look at one clip, in the order they report; MHFU-only
 * ones (rules_table) are skipped on other formats. */
static const struct {
	enum rule_code code;
	void (*check)(const struct clip *, const struct where *,
		      struct rule_report *);
} CLIP_RULES[] = {
	{RULE_NO_TRACKS, check_no_tracks},
	{RULE_CHANNEL_BIT, check_channel_bit},
	{RULE_DUPLICATE_CHANNEL, check_channel_twice},
	{RULE_NEGATIVE_FRAME, check_key_frames},
	{RULE_EMPTY_CHANNEL, check_empty_channel},
	{RULE_TRACK_EMPTY, check_track_empty},
	{RULE_SCALE_CHANNEL, check_scale_channel},
	{RULE_TRACK_MASK, check_track_mask},
};

static void check_clip(const struct clip *c, enum clip_format f,
		       const struct where *w, struct rule_report *r)
{
	for (size_t i = 0; i < sizeof CLIP_RULES / sizeof *CLIP_RULES; i++)
		if (f == CLIP_MHFU || !rules_table[CLIP_RULES[i].code].mhfu_only)
			CLIP_RULES[i].check(c, w, r);
}

enum mh_err rules_check_clip(const struct clip *c, enum clip_format f,
			     int part_joints, int first_joint,
			     struct rule_report *r)
{
	struct where w = {-1, -1, first_joint, part_joints < 0 ? -1 : part_joints,
			  -1};
	check_clip(c, f, &w, r);
	if (f == CLIP_MHFU)
		check_partition(c, &w, r);
	return outcome(r);
}

/* ---- packs ------------------------------------------------------------ */

/* Stream s of a pack, with the part it plays on `rig` (NULL: unknown):
 * the part's animated joints and the first of them. */
static struct where stream_where(const struct skeleton *rig, uint32_t s)
{
	struct where w = {(int32_t)s, -1, -1, -1, -1};
	if (!rig)
		return w;
	uint32_t n = animated_joints(rig);
	w.part = anim_mhfu_part(s);
	w.joints = 0;
	for (uint32_t j = 0; j < n; j++)
		if (rig->bones[j].part == w.part && !w.joints++)
			w.first_joint = (int32_t)j;
	return w;
}

/* Checks each clip where a slot first uses it: when per_stream, the
 * first use in each stream gets PARTITION against the stream's part;
 * else the first use in the pack gets the clip rules.  stamp[clip] is
 * then the stream of its last check (per_stream), 0 when checked, or
 * UINT32_MAX when no slot uses it. */
static void check_first_uses(const struct anim *a, bool per_stream,
			   uint32_t *stamp, const struct skeleton *rig,
			   struct rule_report *r)
{
	for (uint32_t k = 0; k < a->nclips; k++)
		stamp[k] = UINT32_MAX;
	for (uint32_t s = 0; s < a->nstreams; s++) {
		struct where w = stream_where(rig, s);
		for (uint32_t i = 0; i < a->streams[s].nslots; i++) {
			int32_t k = a->streams[s].slots[i];
			if (k < 0 || (uint32_t)k >= a->nclips ||
			    stamp[k] == (per_stream ? s : 0))
				continue;
			stamp[k] = per_stream ? s : 0;
			w.slot = (int32_t)i;
			if (per_stream)
				check_partition(&a->clips[k], &w, r);
			else
				check_clip(&a->clips[k], a->format, &w, r);
		}
	}
}

/* Whether animated joint j is the first of its part. */
static bool first_of_part(const struct skeleton *rig, uint32_t j)
{
	for (uint32_t i = 0; i < j; i++)
		if (rig->bones[i].part == rig->bones[j].part)
			return false;
	return true;
}

/* Every part of the rig's animated joints has its stream 2k in the pack,
 * reported once per part.  An empty stream passes: its slots may be
 * filled again (a stream's files removed and restored, as tar does), and
 * only a new violation blocks an edit.  A part number too large for a
 * stream is STREAM_RUNS' business. */
static void check_parts_have_streams(const struct anim *a, const struct skeleton *rig,
				     struct rule_report *r)
{
	uint32_t n = animated_joints(rig);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t part = rig->bones[j].part, joints = 0;
		uint64_t stream = 2 * (uint64_t)part;
		if (stream > INT32_MAX || stream < a->nstreams || !first_of_part(rig, j))
			continue;
		for (uint32_t i = j; i < n; i++)
			joints += rig->bones[i].part == part;
		struct rule_violation v = nowhere();
		v.stream = (int32_t)stream;
		report(r, RULE_PARTITION, v, "part %u has %u joints, the pack has no "
		       "stream %llu for it", part, joints, (unsigned long long)stream);
	}
}

enum mh_err rules_check_pack(const struct anim *a, const struct skeleton *rig,
			     struct rule_report *r)
{
	/* Without a sound animated count no part is known. */
	if (rig && (rig->game != SKELETON_MHFU || a->format != CLIP_MHFU ||
		    !rig_animated_sound(rig)))
		rig = NULL;
	uint32_t *stamp = malloc(((size_t)a->nclips + 1) * sizeof *stamp);
	if (!stamp) {
		r->failed = true;
		return outcome(r);
	}
	check_first_uses(a, false, stamp, rig, r);
	/* Clips no slot uses, outside any stream. */
	struct where nowhere_in_pack = {-1, -1, -1, -1, -1};
	for (uint32_t k = 0; k < a->nclips; k++)
		if (stamp[k] == UINT32_MAX)
			check_clip(&a->clips[k], a->format, &nowhere_in_pack, r);
	if (rig) {
		check_first_uses(a, true, stamp, rig, r);
		check_parts_have_streams(a, rig, r);
	}
	free(stamp);
	return outcome(r);
}

/* ---- levels ----------------------------------------------------------- */

void rules_apply_mode(struct rule_report *r, enum rules_mode mode)
{
	if (mode == RULES_OFF) {
		r->n = 0;
		r->failed = false;
	}
	for (size_t i = 0; mode == RULES_WARN && i < r->n; i++)
		r->v[i].level = RULE_WARNING;
}

/* Orders violations by what identifies their element across an edit. */
static int same_element(const void *pa, const void *pb)
{
	const struct rule_violation *a = *(const struct rule_violation *const *)pa;
	const struct rule_violation *b = *(const struct rule_violation *const *)pb;
	int64_t x[] = {a->code, a->bone, a->stream, a->slot, a->track,
		       a->channel >= 0, a->bit, a->key >= 0, a->frame};
	int64_t y[] = {b->code, b->bone, b->stream, b->slot, b->track,
		       b->channel >= 0, b->bit, b->key >= 0, b->frame};
	for (size_t i = 0; i < sizeof x / sizeof *x; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return strcmp(a->member, b->member);
}

enum mh_err rules_demote_existing(struct rule_report *after,
				  const struct rule_report *before)
{
	if (!before->n || !after->n)
		return MH_OK;
	const struct rule_violation **old = malloc(before->n * sizeof *old);
	if (!old)
		return MH_ENOMEM;
	for (size_t i = 0; i < before->n; i++)
		old[i] = &before->v[i];
	qsort(old, before->n, sizeof *old, same_element);
	for (size_t i = 0; i < after->n; i++) {
		const struct rule_violation *v = &after->v[i];
		if (bsearch(&v, old, before->n, sizeof *old, same_element)) {
			after->v[i].level = RULE_WARNING;
			after->v[i].existing = true;
		}
	}
	free(old);
	return MH_OK;
}

/* ---- pack.txt lines --------------------------------------------------- */

unsigned anim_text_line(const char *text, size_t len, int stream)
{
	struct lex lx;
	struct lex_word w, rest;
	enum mh_err err = MH_OK;
	int n = 0;
	lex_init(&lx, text, len);
	while (stream >= 0 && lex_next_line(&lx, &err, NULL) &&
	       lex_word(&lx, &w, &err, NULL)) {
		if (!strcmp(w.text, "stream") && n++ == stream)
			return w.line;
		while (lex_word(&lx, &rest, &err, NULL))
			;
		if (err)
			break;
	}
	return 1;
}
