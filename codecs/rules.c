/* Engine rules (rules.h): the table, one check function per rule, and
 * the report's level handling.
 *
 * Decisions the spec leaves open (mount.mhfu(8) "Rules" lists the rules and levels):
 *  - KEY_FRAME: "in frame order" is read as never going backwards: two
 *    keys at the same frame pass (whether the engine's Hermite step over
 *    a zero-length interval is harmless is not known).  A negative frame
 *    is its own violation, reported instead of going backwards.
 *  - The animated joints are the first params[1] bones; without a second
 *    value, or when it exceeds the bones (ANIMATED_COUNT), all bones.
 *  - PART_RUNS reports each joint whose part is neither its predecessor's
 *    nor the next one, so 0,0,2,2,3 flags only the first 2.  A later part
 *    whose first joint is a root counts as hanging off nothing outside it.
 *  - TRACK_MASK is an error, as every rule is by default, though the
 *    engine finds channels by their own bits, not by the mask: every
 *    shipped track's mask agrees with its channels, so one that does not
 *    is taken for an edit gone wrong.
 *  - A track past the part's joints (PART_TRACKS) is not also reported
 *    as TRACK_EMPTY: it drives no joint. */
#include "rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "lex.h"
#include "pac.h"
#include "pacpath.h"

#define SCALE_BITS (CLIP_SCL_X | CLIP_SCL_Y | CLIP_SCL_Z)

const struct rule_info rules_table[RULE_COUNT] = {
	[RULE_PARENT_ORDER] = {
		RULE_PARENT_ORDER, "PARENT_ORDER", RULE_ERROR, true,
		"every bone's parent comes before it in bone order",
		"reorder the rows so each parent precedes its children and "
		"renumber the parent, child, sibling and link columns"},
	[RULE_ANIMATED_COUNT] = {
		RULE_ANIMATED_COUNT, "ANIMATED_COUNT", RULE_ERROR, true,
		"the animated joint count (params' second value) is at most "
		"the bone count",
		"set the second params value to the number of animated joints"},
	[RULE_PART_RUNS] = {
		RULE_PART_RUNS, "PART_RUNS", RULE_ERROR, true,
		"the animated joints' parts run 0,0,..,1,1,..,2.. and each "
		"later part is one subtree hanging off an earlier part",
		"renumber the part column in runs; a later part's joints must "
		"all descend from its first joint"},
	[RULE_PART_TRACKS] = {
		RULE_PART_TRACKS, "PART_TRACKS", RULE_ERROR, true,
		"each stream's clips carry one track per joint of its part "
		"(stream s plays part s/2)",
		"add or remove tracks so the clip has one per joint of the part "
		"(the clip file's header names them)"},
	[RULE_CLIP_NO_TRACKS] = {
		RULE_CLIP_NO_TRACKS, "CLIP_NO_TRACKS", RULE_ERROR, false,
		"every clip has at least one track",
		"give the clip its tracks, or empty the slot in pack.txt"},
	[RULE_TRACK_EMPTY] = {
		RULE_TRACK_EMPTY, "TRACK_EMPTY", RULE_ERROR, true,
		"every track has a channel (an empty one collapses its joint "
		"to the origin)",
		"hold the joint still: rot_x, rot_y, rot_z with 0-value keys "
		"at frame 0 and the clip's last frame"},
	[RULE_SCALE_CHANNEL] = {
		RULE_SCALE_CHANNEL, "SCALE_CHANNEL", RULE_ERROR, true,
		"no scale channel (scl_x, scl_y, scl_z): the engine crashes "
		"on them",
		"delete the scl_* channels; the engine does not play scale"},
	[RULE_CHANNEL_TWICE] = {
		RULE_CHANNEL_TWICE, "CHANNEL_TWICE", RULE_ERROR, false,
		"no channel appears twice in one track",
		"merge the two channels' keys into one and delete the other"},
	[RULE_TRACK_MASK] = {
		RULE_TRACK_MASK, "TRACK_MASK", RULE_ERROR, true,
		"a track's mask is the OR of its channels' bits",
		"drop \"mask M\" from the track line: the mask is then its "
		"channels' bits"},
	[RULE_KEY_FRAME] = {
		RULE_KEY_FRAME, "KEY_FRAME", RULE_ERROR, false,
		"keyframes sit at frame 0 or later and never go back in time "
		"within a channel (equal frames pass)",
		"make the frames 0 or more and sort the channel's keys by "
		"frame"},
	[RULE_VALUE_RANGE] = {
		RULE_VALUE_RANGE, "VALUE_RANGE", RULE_ERROR, false,
		"frames, values and eases fit -32768..32767 (checked by the "
		"text parsers)",
		"keep the number within -32768..32767 raw units (rotation: "
		"+-720 degrees)"},
	[RULE_TEMPLATE] = {
		RULE_TEMPLATE, "TEMPLATE", RULE_ERROR, true,
		"an edited skeleton keeps its bone count and every bone's "
		"parent (the species' AI and overlay assume them)",
		"restore the bone rows and parents; move bones by their bind "
		"position instead"},
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
				       .joint = -1};
}

static bool on_skeleton(enum rule_code code)
{
	return code == RULE_PARENT_ORDER || code == RULE_ANIMATED_COUNT ||
	       code == RULE_PART_RUNS || code == RULE_TEMPLATE;
}

/* The element of v in words: "bone 12", "the skeleton", "stream 2 slot
 * 24 track 3 (joint 34) channel rot_x key 2", "the clip". */
static void element_words(const struct rule_violation *v, char *buf,
			  size_t size)
{
	size_t n = 0;
#define PUT(...) do { if (n < size) \
		n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
	if (on_skeleton(v->code)) {
		if (v->bone >= 0)
			PUT("bone %d", v->bone);
		else
			PUT("the skeleton");
		return;
	}
	if (v->stream >= 0)
		PUT("stream %d slot %d", v->stream, v->slot);
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

/* ---- skeleton rules --------------------------------------------------- */

/* The animated joints: the first params[1] bones, else all. */
static uint32_t animated_joints(const struct skeleton *s)
{
	if (s->nparams >= 2 && s->params[1] <= s->nbones)
		return s->params[1];
	return s->nbones;
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
	if (s->nparams >= 2 && s->params[1] > s->nbones)
		report(r, RULE_ANIMATED_COUNT, nowhere(), "params give %u "
		       "animated joints, it has %u bones", s->params[1],
		       s->nbones);
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

/* A later part's run [f, e) must be one subtree rooted at f. */
static void check_subtree(const struct skeleton *s, uint32_t f, uint32_t e,
			  struct rule_report *r)
{
	uint32_t part = s->bones[f].part;
	int32_t p = s->bones[f].parent;
	if (p >= (int64_t)f && p < (int64_t)e)
		report(r, RULE_PART_RUNS, at_bone(f), "the first joint of part "
		       "%u has its parent, bone %d, inside the part", part, p);
	for (uint32_t j = f + 1; j < e; j++)
		if (!descends(s, j, f))
			report(r, RULE_PART_RUNS, at_bone(j), "in part %u, it "
			       "does not descend from bone %u, the part's "
			       "first joint", part, f);
}

static void check_part_runs(const struct skeleton *s, struct rule_report *r)
{
	uint32_t n = animated_joints(s);
	if (n && s->bones[0].part != 0)
		report(r, RULE_PART_RUNS, at_bone(0), "in part %u, the first "
		       "joint must be in part 0", s->bones[0].part);
	for (uint32_t j = 1; j < n; j++) {
		uint32_t prev = s->bones[j - 1].part, part = s->bones[j].part;
		if (part != prev && part != prev + 1)
			report(r, RULE_PART_RUNS, at_bone(j), "part %u after "
			       "part %u (parts run 0, 1, 2... in bone order)",
			       part, prev);
	}
	/* Each run [f, e) of a later part that follows its predecessor. */
	for (uint32_t f = 1, e; f < n; f = e) {
		for (e = f + 1; e < n && s->bones[e].part == s->bones[f].part;)
			e++;
		if (s->bones[f].part == s->bones[f - 1].part + 1)
			check_subtree(s, f, e, r);
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
	check_part_runs(s, r);
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
		report(r, RULE_CLIP_NO_TRACKS, at_clip(w, c, -1, -1, -1),
		       "no tracks");
}

/* Only the tracks that drive a joint: past the part's joints a track is
 * PART_TRACKS' business. */
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
	for (uint32_t t = 0; t < c->ntracks; t++) {
		memset(seen, 0, sizeof seen);
		for (uint32_t j = 0; j < c->tracks[t].nchannels; j++)
			if (repeated(&c->tracks[t], j, seen))
				report(r, RULE_CHANNEL_TWICE,
				       at_clip(w, c, t, j, -1), "a second "
				       "channel of the same bit in the track");
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

static void check_key_frame(const struct clip *c, const struct where *w,
			    struct rule_report *r)
{
	for (uint32_t t = 0; t < c->ntracks; t++)
		for (uint32_t j = 0; j < c->tracks[t].nchannels; j++) {
			const struct clip_channel *ch = &c->tracks[t].channels[j];
			for (uint32_t k = 0; k < ch->nkeys; k++) {
				int frame = ch->keys[k].frame;
				if (frame < 0)
					report(r, RULE_KEY_FRAME,
					       at_clip(w, c, t, j, k), "frame "
					       "%d is before frame 0", frame);
				else if (k && frame < ch->keys[k - 1].frame)
					report(r, RULE_KEY_FRAME,
					       at_clip(w, c, t, j, k), "frame "
					       "%d after frame %d", frame,
					       ch->keys[k - 1].frame);
			}
		}
}

/* Only where the part is known (w->joints >= 0). */
static void check_part_tracks(const struct clip *c, const struct where *w,
			      struct rule_report *r)
{
	struct rule_violation v = at_clip(w, c, -1, -1, -1);
	if (w->joints < 0 || c->ntracks == w->joints)
		return;
	if (w->part < 0)
		report(r, RULE_PART_TRACKS, v, "%u tracks, its part has %lld "
		       "joints", c->ntracks, (long long)w->joints);
	else if (!w->joints)
		report(r, RULE_PART_TRACKS, v, "%u tracks, part %lld has no "
		       "animated joints", c->ntracks, (long long)w->part);
	else
		report(r, RULE_PART_TRACKS, v, "%u tracks, part %lld has %lld "
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
	{RULE_CLIP_NO_TRACKS, check_no_tracks},
	{RULE_CHANNEL_TWICE, check_channel_twice},
	{RULE_KEY_FRAME, check_key_frame},
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
		check_part_tracks(c, &w, r);
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
 * first use in each stream gets PART_TRACKS against the stream's part;
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
				check_part_tracks(&a->clips[k], &w, r);
			else
				check_clip(&a->clips[k], a->format, &w, r);
		}
	}
}

enum mh_err rules_check_pack(const struct anim *a, const struct skeleton *rig,
			     struct rule_report *r)
{
	if (rig && (rig->game != SKELETON_MHFU || a->format != CLIP_MHFU))
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
	if (rig)
		check_first_uses(a, true, stamp, rig, r);
	free(stamp);
	return outcome(r);
}

/* ---- items ------------------------------------------------------------ */

/* Whether a decode succeeded; one that ran out of memory fails the
 * report. */
static bool decoded(enum mh_err err, struct rule_report *r)
{
	if (err == MH_ENOMEM)
		r->failed = true;
	return err == MH_OK;
}

static void check_skeleton_item(const uint8_t *item, size_t len,
				const uint8_t *before, size_t before_len,
				struct rule_report *r)
{
	struct skeleton s, old;
	bool have_old = before && decoded(skeleton_decode(before, before_len, &old, NULL), r);
	if (decoded(skeleton_decode(item, len, &s, NULL), r)) {
		rules_check_skeleton(&s, have_old ? &old : NULL, r);
		skeleton_free(&s);
	}
	if (have_old)
		skeleton_free(&old);
}

static void check_pack_item(const uint8_t *item, size_t len,
			    const struct skeleton *rig, struct rule_report *r)
{
	struct anim a;
	if (decoded(anim_decode(item, len, CLIP_NONE, &a, NULL), r)) {
		rules_check_pack(&a, rig, r);
		anim_free(&a);
	}
}

static void check_pac_item(const uint8_t *item, size_t len, const uint8_t *before,
			   size_t before_len, const struct skeleton *rig,
			   struct rule_report *r)
{
	struct pac pac, old;
	struct skeleton own;
	bool have_own = false;
	decoded(pacpath_first_skeleton(item, len, &own, &have_own, NULL), r);
	bool have_old = before && decoded(pac_decode(before, before_len, &old, NULL), r);
	if (decoded(pac_decode(item, len, &pac, NULL), r)) {
		for (uint32_t i = 0; i < pac.count && !r->failed; i++) {
			const struct pac_entry *m = &pac.entries[i];
			bool same = have_old && i < old.count && old.entries[i].size;
			if (m->size)
				rules_check_item(item + m->offset, m->size,
						 same ? before + old.entries[i].offset : NULL,
						 same ? old.entries[i].size : 0,
						 have_own ? &own : rig, r);
		}
		pac_free(&pac);
	}
	if (have_old)
		pac_free(&old);
	if (have_own)
		skeleton_free(&own);
}

enum mh_err rules_check_item(const uint8_t *item, size_t len,
			     const uint8_t *before, size_t before_len,
			     const struct skeleton *rig, struct rule_report *r)
{
	switch (kind_of(item, len)) {
	case KIND_SKELETON:
		check_skeleton_item(item, len, before, before_len, r);
		break;
	case KIND_ANIM:
		check_pack_item(item, len, rig, r);
		break;
	case KIND_PAC:
		check_pac_item(item, len, before, before_len, rig, r);
		break;
	default:
		break;
	}
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
	return 0;
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
