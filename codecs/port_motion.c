/* SPDX-License-Identifier: MIT */
/* Tracks (port.h step 3): a donor clip as the host's whole rig, and its
 * parts (step 5). */
#include "port_int.h"

#include <stdlib.h>

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
