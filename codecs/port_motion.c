/* SPDX-License-Identifier: MIT */
/* Tracks (port.h step 3): a donor clip as the host's whole rig, and its
 * parts (step 5). */
#include "port_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"

bool port_kept_channel(const struct clip_channel *ch)
{
	/* The engine looks a channel up by its bit and crashes on scale. */
	bool one_bit = ch->bit && !(ch->bit & (ch->bit - 1));
	return one_bit && !(ch->bit & ~PORT_KEPT_BITS) && ch->nkeys;
}

/* The donor track joint j plays in clip c, NULL when none. */
static const struct clip_track *track_of(const struct clip *c, const struct port_joint *pj)
{
	return pj->record >= 0 && (uint32_t)pj->record < c->ntracks ? &c->tracks[pj->record]
								     : NULL;
}

static bool moves_up(const struct clip_track *t)
{
	for (uint32_t i = 0; t && i < t->nchannels; i++)
		if (t->channels[i].bit == CLIP_LOC_Y && port_kept_channel(&t->channels[i]))
			return true;
	return false;
}

int32_t port_pelvis(const struct skeleton *host, uint32_t animated,
		    const struct port_joint *joints, const struct port_clip *clips,
		    uint32_t nclips)
{
	/* Root-most, not the one moving most: a rig forking into front and
	 * rear halves carries height below the fork on one side too. */
	int32_t best = PORT_NONE, best_depth = 0;
	for (uint32_t j = 0; j < animated && j < host->nbones; j++) {
		int32_t depth = port_depth(host, j);
		if (best >= 0 && depth >= best_depth)
			continue;
		for (uint32_t c = 0; c < nclips; c++)
			if (moves_up(track_of(clips[c].clip, &joints[j]))) {
				best = (int32_t)j;
				best_depth = depth;
				break;
			}
	}
	return best;
}

static int16_t lifted(int16_t v, int32_t lift)
{
	int32_t sum = v + lift;
	return (int16_t)(sum > INT16_MAX ? INT16_MAX : sum < INT16_MIN ? INT16_MIN : sum);
}

static bool copy_channel(struct clip_track *to, const struct clip_channel *from, int32_t lift)
{
	struct clip_channel *ch = clip_add_channel(to, from->bit);
	if (!ch)
		return false;
	for (uint32_t k = 0; k < from->nkeys; k++) {
		struct clip_key key = from->keys[k];
		if (from->bit == CLIP_LOC_Y)
			key.value = lifted(key.value, lift);
		if (!clip_add_key(ch, key))
			return false;
	}
	return true;
}

/* A joint without channels keeps a zeroed matrix and collapses its
 * geometry to the origin; zero rotation holds it at its bind pose. */
static bool add_rest(struct clip_track *to, int32_t frames)
{
	int32_t last = frames > PORT_REST_SPAN ? frames : PORT_REST_SPAN;
	for (uint32_t bit = CLIP_ROT_X; bit <= CLIP_ROT_Z; bit <<= 1) {
		struct clip_channel *ch = clip_add_channel(to, bit);
		if (!ch || !clip_add_key(ch, (struct clip_key){0}) ||
		    !clip_add_key(ch, (struct clip_key){.frame = (int16_t)last}))
			return false;
	}
	return true;
}

/* The kept channels of `from` in bit order (stable), into `to`. */
static bool copy_track(struct clip_track *to, const struct clip_track *from, int32_t lift)
{
	for (uint32_t next = 1; next <= PORT_KEPT_BITS; next <<= 1)
		for (uint32_t i = 0; from && i < from->nchannels; i++)
			if (from->channels[i].bit == next && port_kept_channel(&from->channels[i]) &&
			    !copy_channel(to, &from->channels[i], lift))
				return false;
	return true;
}

enum mh_err port_whole_clip(const struct clip *donor, const struct port_joint *joints,
			    uint32_t animated, int32_t pelvis, int32_t lift, struct clip *out,
			    struct mh_diag *d)
{
	*out = (struct clip){.loop = donor->loop, .loop_start = donor->loop_start};
	int32_t frames = entries_clip_frames(donor);
	for (uint32_t j = 0; j < animated; j++) {
		struct clip_track *t = clip_add_track(out, 0);
		if (!t || !copy_track(t, track_of(donor, &joints[j]), (int32_t)j == pelvis ? lift : 0) ||
		    (!t->nchannels && !add_rest(t, frames))) {
			clip_free(out);
			return mh_fail(d, MH_ENOMEM, 0, "out of memory");
		}
	}
	return MH_OK;
}

enum mh_err port_part_of(const struct clip *whole, const struct port_host *h, uint32_t part,
			 struct clip *out, struct mh_diag *d)
{
	/* A view of the part's run of tracks, copied. */
	struct clip run = {.loop = whole->loop,
			   .loop_start = whole->loop_start,
			   .ntracks = h->part_count[part],
			   .tracks = whole->tracks + h->part_first[part]};
	return clip_copy(out, &run, d);
}

/* ---- travel carried (mode own) ------------------------------------------ */

int32_t port_travel_root(const struct skeleton *s)
{
	static const float ORIGIN[3] = {0, 0, 0};
	int32_t root = s->nbones ? s->bones[0].child : -1;
	if (root <= 0 || (uint32_t)root >= s->nbones || s->bones[root].parent != 0 ||
	    memcmp(s->bones[0].position, ORIGIN, sizeof ORIGIN) ||
	    memcmp(s->bones[root].position, ORIGIN, sizeof ORIGIN))
		return PORT_NONE;
	return root;
}

/* A channel's keys in frame order (ties as stored), into sorted. */
static void keys_in_order(const struct clip_channel *ch, struct clip_key *sorted)
{
	for (uint32_t i = 0; i < ch->nkeys; i++) {
		uint32_t at = i;
		while (at && sorted[at - 1].frame > ch->keys[i].frame) {
			sorted[at] = sorted[at - 1];
			at--;
		}
		sorted[at] = ch->keys[i];
	}
}

/* The curve's slope (raw units per frame) arriving at frame f (left) or
 * leaving it: a key's own ease there, the Hermite curve's derivative
 * between keys (curve.h), 0 where the channel holds. */
static double slope(const struct clip_key *k, uint32_t n, double f, bool left)
{
	for (uint32_t i = 0; i + 1 < n; i++) {
		const struct clip_key *k0 = &k[i], *k1 = &k[i + 1];
		bool inside = left ? k0->frame < f && f <= k1->frame
				   : k0->frame <= f && f < k1->frame;
		if (!inside || k1->frame <= k0->frame)
			continue;
		if (f == k0->frame)
			return k0->ease_out;
		if (f == k1->frame)
			return k1->ease_in;
		double span = k1->frame - k0->frame, s = (f - k0->frame) / span;
		return (k0->value * (6 * s * s - 6 * s) + k1->value * (6 * s - 6 * s * s)) / span +
		       k0->ease_out * (3 * s * s - 4 * s + 1) + k1->ease_in * (3 * s * s - 2 * s);
	}
	return 0;
}

static bool fits_s16(double v, int16_t *out)
{
	double r = round(v);
	if (!(r >= INT16_MIN && r <= INT16_MAX))
		return false;
	*out = (int16_t)r;
	return true;
}

/* The channel whose curve is a's plus b's, into `to` (bit a's): keyed on
 * both key sets, each key's value and slopes the sums, exact between
 * keys (a sum of cubics is the Hermite cubic of the summed ends).  False
 * when a sum leaves the keys' range (*range) or memory runs out. */
static bool add_sum(struct clip_track *to, const struct clip_channel *a,
		    const struct clip_channel *b, bool *range)
{
	uint32_t n = a->nkeys + b->nkeys;
	struct clip_key *ka = malloc(n * sizeof *ka), *kb = ka ? ka + a->nkeys : NULL;
	struct clip_channel *ch = ka ? clip_add_channel(to, a->bit) : NULL;
	bool ok = ch != NULL;
	if (ok) {
		keys_in_order(a, ka);
		keys_in_order(b, kb);
	}
	for (uint32_t i = 0, j = 0; ok && (i < a->nkeys || j < b->nkeys);) {
		int16_t f = j == b->nkeys || (i < a->nkeys && ka[i].frame <= kb[j].frame)
				    ? ka[i].frame
				    : kb[j].frame;
		while (i < a->nkeys && ka[i].frame == f)
			i++;
		while (j < b->nkeys && kb[j].frame == f)
			j++;
		struct clip_key key = {.frame = f};
		ok = fits_s16(curve_sample(a, f) + curve_sample(b, f), &key.value) &&
		     fits_s16(slope(ka, a->nkeys, f, true) + slope(kb, b->nkeys, f, true),
			      &key.ease_in) &&
		     fits_s16(slope(ka, a->nkeys, f, false) + slope(kb, b->nkeys, f, false),
			      &key.ease_out);
		*range |= !ok;
		ok = ok && clip_add_key(ch, key);
	}
	free(ka);
	return ok;
}

static const struct clip_channel *channel_of(const struct clip_track *t, uint32_t bit)
{
	for (uint32_t i = 0; i < t->nchannels; i++)
		if (t->channels[i].bit == bit && t->channels[i].nkeys)
			return &t->channels[i];
	return NULL;
}

static bool copy_raw(struct clip_track *to, const struct clip_channel *from)
{
	return copy_channel(to, from, 0);
}

/* `old` with its location channels X, Y, Z replaced by loc[0..2] (NULL:
 * none; Y summed with y_too when both), into `to`, sorted by bit; a
 * track left empty that had channels rests instead of collapsing its
 * joint. */
static bool relocated(struct clip_track *to, const struct clip_track *old,
		      const struct clip_channel *const loc[3], const struct clip_channel *y_too,
		      int32_t frames, bool *range)
{
	static const uint32_t LOC[3] = {CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z};
	for (uint32_t bit = 1; bit && bit <= 0x8000u; bit <<= 1) {
		int axis = bit == CLIP_LOC_X ? 0 : bit == CLIP_LOC_Y ? 1 : bit == CLIP_LOC_Z ? 2 : -1;
		if (axis < 0) {
			for (uint32_t i = 0; i < old->nchannels; i++)
				if (old->channels[i].bit == bit && !copy_raw(to, &old->channels[i]))
					return false;
			continue;
		}
		const struct clip_channel *c = loc[axis], *plus = LOC[axis] == CLIP_LOC_Y ? y_too : NULL;
		if (c && plus ? !add_sum(to, c, plus, range)
			      : (c || plus) && !copy_raw(to, c ? c : plus))
			return false;
	}
	return to->nchannels || !old->nchannels || add_rest(to, frames);
}

static void free_track(struct clip_track *t)
{
	for (uint32_t i = 0; i < t->nchannels; i++)
		free(t->channels[i].keys);
	free(t->channels);
	*t = (struct clip_track){0};
}

enum port_carry port_carry_travel(struct clip *c, uint32_t root, struct mh_diag *d)
{
	if (!root || root >= c->ntracks)
		return PORT_CARRY_NO_ROOT;
	const struct clip_track *base = &c->tracks[0], *top = &c->tracks[root];
	for (uint32_t i = 0; i < base->nchannels; i++)
		for (uint32_t k = 0; (base->channels[i].bit & CLIP_ROT_BITS) &&
				     k < base->channels[i].nkeys; k++)
			if (base->channels[i].keys[k].value)
				return PORT_CARRY_ROTATES;
	const struct clip_channel *bx = channel_of(base, CLIP_LOC_X),
				  *by = channel_of(base, CLIP_LOC_Y),
				  *bz = channel_of(base, CLIP_LOC_Z),
				  *tx = channel_of(top, CLIP_LOC_X),
				  *ty = channel_of(top, CLIP_LOC_Y),
				  *tz = channel_of(top, CLIP_LOC_Z);
	int32_t frames = entries_clip_frames(c);
	/* Joint 0 draws the root's sway and both heights; the root carries
	 * joint 0's travel, where the engine moves the monster by it. */
	const struct clip_channel *onto_base[3] = {tx, by, tz}, *onto_top[3] = {bx, NULL, bz};
	struct clip_track new_base = {0}, new_top = {0};
	bool range = false;
	bool ok = relocated(&new_base, base, onto_base, ty, frames, &range) &&
		  relocated(&new_top, top, onto_top, NULL, frames, &range);
	if (!ok) {
		free_track(&new_base);
		free_track(&new_top);
		if (range)
			return PORT_CARRY_RANGE;
		mh_fail(d, MH_ENOMEM, 0, "out of memory");
		return PORT_CARRY_FAILED;
	}
	free_track(&c->tracks[0]);
	free_track(&c->tracks[root]);
	c->tracks[0] = new_base;
	c->tracks[root] = new_top;
	return PORT_CARRIED;
}
