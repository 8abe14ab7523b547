/* SPDX-License-Identifier: MIT */
/* MHP3rd record maps: the map itself (records.h); records.txt is
 * records_text.c. */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"

/* The community add-on's list (skipped_bones.md), by monster id. */
static const struct {
	int monster;
	uint8_t n;
	uint8_t bones[12];
} KNOWN_SKIPS[] = {
	{1, 3, {8, 15, 25}},
	{2, 3, {8, 15, 25}},
	{7, 2, {21, 22}},
	{15, 3, {8, 15, 25}},
	{16, 3, {22, 23, 24}},
	{18, 3, {8, 15, 25}},
	{22, 1, {8}},
	{40, 10, {9, 10, 16, 17, 24, 31, 37, 38, 42, 47}},
	{41, 12, {8, 9, 15, 16, 25, 27, 30, 31, 32, 34, 43, 48}},
	{47, 1, {17}},
	{56, 3, {22, 23, 24}},
};

size_t records_known_skips(int monster, const uint8_t **bones)
{
	for (size_t i = 0; i < sizeof KNOWN_SKIPS / sizeof *KNOWN_SKIPS; i++)
		if (KNOWN_SKIPS[i].monster == monster) {
			*bones = KNOWN_SKIPS[i].bones;
			return KNOWN_SKIPS[i].n;
		}
	*bones = NULL;
	return 0;
}

/* ---- the walk and the fork rule ------------------------------------------ */

/* A walk of the bones from an offset over an ascending skip list: the
 * next record's bone at each step, -1 past the rig's last bone. */
struct bone_walk {
	uint64_t bone;           /* the next bone not yet given */
	uint32_t at;             /* the first skip entry not passed */
	const uint32_t *skip;
	uint32_t nskip, nbones;
};

static int32_t next_bone(struct bone_walk *w)
{
	while (w->at < w->nskip && w->skip[w->at] < w->bone)
		w->at++;
	while (w->at < w->nskip && w->skip[w->at] == w->bone) {
		w->bone++;
		w->at++;
	}
	return w->bone < w->nbones ? (int32_t)w->bone++ : -1;
}

/* Record i's bone for records 0..n-1, walking from `offset`. */
static void walk(uint32_t offset, const uint32_t *skip, uint32_t nskip, uint32_t nbones,
		 int32_t *bone, uint32_t n)
{
	struct bone_walk w = {.bone = offset, .skip = skip, .nskip = nskip, .nbones = nbones};
	for (uint32_t i = 0; i < n; i++)
		bone[i] = next_bone(&w);
}

bool records_at_or_above_fork(const struct records *r, int32_t b)
{
	return b >= 0 && (uint32_t)b < r->nbones && r->above_fork[b];
}

/* Marks the fork and its ancestors, a parent loop walked once. */
static void mark_above_fork(struct records *r)
{
	int32_t at = r->fork;
	for (uint32_t steps = 0; at >= 0 && (uint32_t)at < r->nbones && steps <= r->nbones;
	     steps++) {
		r->above_fork[at] = true;
		at = r->parent[at];
	}
}

/* The first record with location channels that bone[] does not put at
 * or above the fork, -1 if none (also when no joint forks). */
static int32_t first_below_fork(const struct records *r, const int32_t *bone)
{
	if (r->fork < 0)
		return -1;
	for (uint32_t i = 0; i < r->nrecords; i++)
		if (r->located[i] && !records_at_or_above_fork(r, bone[i]))
			return (int32_t)i;
	return -1;
}

/* Whether the walk from `offset` puts every record with location
 * channels at or above the fork: first_below_fork of it, stopping at the
 * first record that fails (the rule tries every offset). */
static bool offset_keeps_fork(const struct records *r, uint32_t offset, const uint32_t *skip,
			      uint32_t nskip)
{
	struct bone_walk w = {.bone = offset, .skip = skip, .nskip = nskip, .nbones = r->nbones};
	for (uint32_t i = 0; i < r->nrecords; i++) {
		int32_t b = next_bone(&w);
		if (r->located[i] && !records_at_or_above_fork(r, b))
			return false;
	}
	return true;
}

/* The fork rule's offset for skip list skip: the lowest that keeps it,
 * 0 when none does (*kept false).  A walk gives the records consecutive
 * unskipped bones, so a start is worth trying only where it puts the
 * first moving record on a bone at or above the fork (the fork and its
 * ancestors: a few); each start is tried from the lowest offset giving
 * it, one past the unskipped bone before it. */
static uint32_t fork_offset(const struct records *r, const uint32_t *skip, uint32_t nskip,
			    bool *kept)
{
	*kept = true;
	if (!r->rigged || r->fork < 0)
		return 0;
	uint32_t first = 0;
	while (first < r->nrecords && !r->located[first])
		first++;
	if (first == r->nrecords)
		return 0;
	struct bone_walk start = {.skip = skip, .nskip = nskip, .nbones = r->nbones};
	struct bone_walk lead = start; /* `first` bones ahead of start */
	uint32_t offset = 0;
	int32_t b = 0;
	for (uint32_t i = 0; i < first && b >= 0; i++)
		b = next_bone(&lead);
	while (b >= 0 && (b = next_bone(&lead)) >= 0) {
		if (r->above_fork[b] && offset_keeps_fork(r, offset, skip, nskip))
			return offset;
		offset = (uint32_t)next_bone(&start) + 1;
	}
	*kept = false;
	return 0;
}

bool records_fork_kept(const struct records *r, int32_t *first)
{
	*first = r->rigged ? first_below_fork(r, r->bone) : -1;
	return *first < 0;
}

int32_t records_bone(const struct records *r, uint32_t record)
{
	return record < r->nrecords ? r->bone[record] : -1;
}

void records_bone_label(const struct records *r, uint32_t record, char *buf, size_t len)
{
	int32_t b = records_bone(r, record);
	if (!r->rigged)
		snprintf(buf, len, "no rig");
	else if (b < 0)
		snprintf(buf, len, "past the rig");
	else if (r->name[b][0])
		snprintf(buf, len, "joint %d (%s)", (int)b, r->name[b]);
	else
		snprintf(buf, len, "joint %d", (int)b);
}

/* ---- making the map ------------------------------------------------------- */

/* Bone b's name for the comments: its C string when every byte is
 * printable and none is '#' or a blank, else "". */
static void bone_name(const struct skeleton_bone *b, enum skeleton_game game,
		      char out[RECORDS_NAME_MAX])
{
	out[0] = '\0';
	if (game != SKELETON_MHP3RD)
		return;
	size_t n = strnlen((const char *)b->rest, SKELETON_NAME_LEN);
	for (size_t i = 0; i < n; i++)
		if (b->rest[i] <= 0x20 || b->rest[i] >= 0x7f || b->rest[i] == '#')
			return;
	memcpy(out, b->rest, n);
	out[n] = '\0';
}

/* Which records carry location channels in some clip; the most tracks a
 * clip has. */
static uint32_t pack_records(const struct anim *pack)
{
	uint32_t n = 0;
	for (uint32_t c = 0; pack && c < pack->nclips; c++)
		if (pack->clips[c].ntracks > n)
			n = pack->clips[c].ntracks;
	return n;
}

static void mark_located(const struct anim *pack, bool *located)
{
	for (uint32_t c = 0; pack && c < pack->nclips; c++) {
		const struct clip *clip = &pack->clips[c];
		for (uint32_t t = 0; t < clip->ntracks; t++)
			for (uint32_t k = 0; k < clip->tracks[t].nchannels; k++) {
				uint32_t bit = clip->tracks[t].channels[k].bit;
				located[t] |= bit == CLIP_LOC_X || bit == CLIP_LOC_Y ||
					      bit == CLIP_LOC_Z;
			}
	}
}

/* The monster's skip list as it applies to r: the bones of its rig
 * (all of them without a rig); *n of them, at most records_known_skips'. */
static uint32_t known_in_rig(const struct records *r, uint32_t *out)
{
	const uint8_t *known;
	size_t nknown = records_known_skips(r->monster, &known);
	uint32_t n = 0;
	for (size_t i = 0; i < nknown; i++)
		if (!r->rigged || known[i] < r->nbones)
			out[n++] = known[i];
	return n;
}

/* The skip list in force for setting s: its own, or the monster's, into
 * a malloc'ed array (*n of them); NULL when out of memory. */
static uint32_t *skips_of(const struct records *r, const struct records_setting *s, uint32_t *n)
{
	const uint8_t *known;
	size_t most = s->skip_set ? s->nskip : records_known_skips(r->monster, &known);
	uint32_t *out = malloc((most ? most : 1) * sizeof *out);
	if (!out)
		return NULL;
	if (s->skip_set) {
		*n = s->nskip;
		if (*n)
			memcpy(out, s->skip, *n * sizeof *out);
	} else {
		*n = known_in_rig(r, out);
	}
	return out;
}

/* Puts setting s (which fits r: the caller checked) in force, taking its
 * skip list: r's old setting is freed. */
static enum mh_err apply(struct records *r, struct records_setting *s, struct mh_diag *d)
{
	uint32_t nskip;
	uint32_t *skip = skips_of(r, s, &nskip);
	int32_t *bone = malloc((r->nrecords ? r->nrecords : 1) * sizeof *bone);
	if (!skip || !bone) {
		free(skip);
		free(bone);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for the record map");
	}
	r->fork_offset = fork_offset(r, skip, nskip, &r->fork_kept);
	records_setting_free(&r->set);
	r->set = *s;
	*s = (struct records_setting){0};
	free(r->skip);
	free(r->bone);
	r->skip = skip;
	r->nskip = nskip;
	r->bone = bone;
	r->offset = r->set.offset_set ? r->set.offset : r->fork_offset;
	if (r->rigged)
		walk(r->offset, r->skip, r->nskip, r->nbones, r->bone, r->nrecords);
	else
		for (uint32_t i = 0; i < r->nrecords; i++)
			r->bone[i] = -1;
	return MH_OK;
}

enum mh_err records_init(struct records *r, const struct skeleton *rig, const struct anim *pack,
			 int monster, struct mh_diag *d)
{
	memset(r, 0, sizeof *r);
	r->monster = monster;
	r->fork = -1;
	r->rigged = rig != NULL;
	r->nbones = rig ? rig->nbones : 0;
	r->nrecords = pack_records(pack);
	r->parent = malloc((r->nbones ? r->nbones : 1) * sizeof *r->parent);
	r->name = malloc((r->nbones ? r->nbones : 1) * sizeof *r->name);
	r->located = calloc(r->nrecords ? r->nrecords : 1, sizeof *r->located);
	r->above_fork = calloc(r->nbones ? r->nbones : 1, sizeof *r->above_fork);
	struct records_setting none = {0};
	if (!r->parent || !r->name || !r->located || !r->above_fork) {
		records_free(r);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for the record map");
	}
	for (uint32_t b = 0; b < r->nbones; b++) {
		r->parent[b] = rig->bones[b].parent;
		bone_name(&rig->bones[b], rig->game, r->name[b]);
	}
	if (rig)
		r->fork = rig_body_fork(rig);
	mark_above_fork(r);
	mark_located(pack, r->located);
	enum mh_err err = apply(r, &none, d);
	if (err)
		records_free(r);
	return err;
}

/* ---- overrides ------------------------------------------------------------ */

/* Whether s's skip list is the monster's own (on r's rig). */
static bool known_skips(const struct records *r, const struct records_setting *s)
{
	uint32_t known[sizeof KNOWN_SKIPS[0].bones];
	uint32_t n = known_in_rig(r, known);
	return s->nskip == n && (!n || !memcmp(s->skip, known, n * sizeof *known));
}

enum mh_err records_override(struct records *r, const struct records_setting *s,
			     struct mh_diag *d)
{
	struct records_setting own = {.offset_set = s->offset_set, .offset = s->offset,
				      .skip_set = s->skip_set, .nskip = s->skip_set ? s->nskip : 0};
	if (s->skip_set && !(own.skip = malloc((s->nskip ? s->nskip : 1) * sizeof *own.skip)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for the record map");
	if (s->skip_set && s->nskip)
		memcpy(own.skip, s->skip, s->nskip * sizeof *own.skip);
	enum mh_err err = records_fit(r, &own, d);
	if (!err)
		err = apply(r, &own, d);
	records_setting_free(&own);
	return err;
}

/* What `set` would give: what differs from r's defaults stays set. */
enum mh_err records_fit(const struct records *r, struct records_setting *s, struct mh_diag *d)
{
	if (s->skip_set && known_skips(r, s)) {
		s->skip_set = false;
		free(s->skip);
		s->skip = NULL;
		s->nskip = 0;
	}
	for (uint32_t i = 0; s->skip_set && i < s->nskip; i++) {
		if (s->skip[i] >= r->nbones && r->rigged)
			return mh_fail(d, MH_ERANGE, 0, "bone %u is past the rig's last bone %d",
				       s->skip[i], (int)r->nbones - 1);
		if (i && s->skip[i] <= s->skip[i - 1])
			return mh_fail(d, MH_ERANGE, 0, "the skip list must ascend, bone %u "
				       "after %u", s->skip[i], s->skip[i - 1]);
	}
	uint32_t nskip;
	uint32_t *skip = skips_of(r, s, &nskip);
	int32_t *bone = malloc((r->nrecords ? r->nrecords : 1) * sizeof *bone);
	enum mh_err err = MH_OK;
	bool kept;
	if (!skip || !bone) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory for the record map");
		goto out;
	}
	uint32_t rule = fork_offset(r, skip, nskip, &kept);
	if (s->offset_set && s->offset == rule)
		s->offset_set = false;
	if ((s->offset_set || s->skip_set) && !r->rigged) {
		err = mh_fail(d, MH_ERANGE, 0, "the moveset has no rig: there is no bone to "
			      "map its records onto");
		goto out;
	}
	if (s->offset_set && s->offset >= r->nbones) {
		err = mh_fail(d, MH_ERANGE, 0, "offset %u is past the rig's last bone %d",
			      s->offset, (int)r->nbones - 1);
		goto out;
	}
	if (s->offset_set || s->skip_set) {
		walk(s->offset_set ? s->offset : rule, skip, nskip, r->nbones, bone, r->nrecords);
		for (uint32_t i = 0; i < r->nrecords && !err; i++)
			if (bone[i] < 0)
				err = mh_fail(d, MH_ERANGE, 0, "record %u would land past the rig's "
					      "last bone %d (%u records from bone %u, %u skipped)",
					      i, (int)r->nbones - 1, r->nrecords,
					      s->offset_set ? s->offset : rule, nskip);
	}
out:
	free(skip);
	free(bone);
	return err;
}

/* ---- settings --------------------------------------------------------------- */

bool records_setting_equal(const struct records_setting *a, const struct records_setting *b)
{
	if (a->offset_set != b->offset_set || (a->offset_set && a->offset != b->offset) ||
	    a->skip_set != b->skip_set)
		return false;
	return !a->skip_set || (a->nskip == b->nskip &&
				(!a->nskip || !memcmp(a->skip, b->skip, a->nskip * sizeof *a->skip)));
}

void records_setting_free(struct records_setting *s)
{
	if (!s)
		return;
	free(s->skip);
	*s = (struct records_setting){0};
}

void records_free(struct records *r)
{
	if (!r)
		return;
	free(r->parent);
	free(r->name);
	free(r->located);
	free(r->above_fork);
	free(r->skip);
	free(r->bone);
	records_setting_free(&r->set);
	memset(r, 0, sizeof *r);
}

/* ---- the layout ------------------------------------------------------------- */

/* "em" NNN "m" K ".ovl", NNN 1 to 3 digits and K 1 or more: NNN; else -1. */
static int em_of_name(const char *s)
{
	if (strncmp(s, "em", 2))
		return RECORDS_NO_MONSTER;
	s += 2;
	int em = 0, digits = 0;
	for (; *s >= '0' && *s <= '9'; s++, digits++)
		em = em * 10 + (*s - '0');
	if (digits < 1 || digits > 3 || *s++ != 'm' || *s < '0' || *s > '9')
		return RECORDS_NO_MONSTER;
	while (*s >= '0' && *s <= '9')
		s++;
	return strcmp(s, ".ovl") ? RECORDS_NO_MONSTER : em;
}

int records_overlay_monster(const uint8_t *head, size_t len, char *name, size_t name_len)
{
	if (name_len)
		name[0] = '\0';
	if (len < RECORDS_OVERLAY_HEAD || memcmp(head, "MWo3", 4))
		return RECORDS_NO_MONSTER;
	const char *s = (const char *)head + RECORDS_OVERLAY_NAME_AT;
	size_t n = strnlen(s, RECORDS_OVERLAY_HEAD - RECORDS_OVERLAY_NAME_AT);
	char own[RECORDS_OVERLAY_HEAD];
	memcpy(own, s, n);
	own[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)own[i] < 0x21 || (unsigned char)own[i] > 0x7e)
			return RECORDS_NO_MONSTER; /* not a name to show */
	snprintf(name, name_len, "%s", own);
	return em_of_name(own);
}

int records_find_monster(uint32_t model, records_head_fn *head, void *ctx, uint32_t *from,
			 char *name, size_t name_len)
{
	uint8_t buf[RECORDS_OVERLAY_HEAD];
	if (name_len)
		name[0] = '\0';
	for (uint32_t set = 0; set < RECORDS_WALK_SETS; set++) {
		uint64_t back = 1 + (uint64_t)set * RECORDS_SET_ENTRIES;
		if (back > model)
			break;
		uint32_t id = model - (uint32_t)back;
		long got = head(ctx, id, buf, sizeof buf);
		if (got < 4)
			break;
		if (memcmp(buf, "MWo3", 4))
			continue; /* the moveset of an earlier set of the family */
		int em = records_overlay_monster(buf, (size_t)got, name, name_len);
		if (em != RECORDS_NO_MONSTER)
			*from = id;
		return em;
	}
	return RECORDS_NO_MONSTER;
}
