/* SPDX-License-Identifier: MIT */
#include "curve.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "simd.h"

/* The keys the curve runs between at `frame` (curve.h 1.-3.): the last
 * key before it and the first key from it on, in frame order.  Arriving
 * (leaving false), a key at `frame` ends the span; leaving, it starts
 * the next one.  Both are the same key where the channel holds. */
static void span_at(const struct clip_channel *ch, double frame, bool leaving,
		    const struct clip_key **from, const struct clip_key **to)
{
	const struct clip_key *before = NULL, *after = NULL;
	for (uint32_t i = 0; i < ch->nkeys; i++) {
		const struct clip_key *k = &ch->keys[i];
		if (k->frame < frame || (leaving && k->frame == frame)) {
			if (!before || k->frame >= before->frame)
				before = k; /* ties: the last stored */
		} else if (!after || k->frame < after->frame) {
			after = k; /* ties: the first stored */
		}
	}
	/* A NaN frame compares false throughout: every key is "after" it. */
	*from = before ? before : after;
	*to = after ? after : before;
}

static double hermite(const struct clip_key *k0, const struct clip_key *k1, double t)
{
	double span = (double)k1->frame - k0->frame;
	if (span <= 0)
		return k0->value;
	double s = (t - k0->frame) / span, d = t - k0->frame;
	return k0->value * (1 - 3 * s * s + 2 * s * s * s) + k1->value * (3 * s * s - 2 * s * s * s) +
	       k0->ease_out * d * (1 - s) * (1 - s) + k1->ease_in * d * (s * s - s);
}

static double sample(const struct clip_channel *ch, double frame, bool leaving)
{
	const struct clip_key *from, *to;
	if (!ch->nkeys)
		return 0;
	span_at(ch, frame, leaving, &from, &to);
	return hermite(from, to, frame);
}

double curve_sample(const struct clip_channel *ch, double frame)
{
	return sample(ch, frame, false);
}

double curve_sample_after(const struct clip_channel *ch, double frame)
{
	return sample(ch, frame, true);
}

static bool in_frame_order(const struct clip_channel *ch)
{
	for (uint32_t i = 1; i < ch->nkeys; i++)
		if (ch->keys[i].frame < ch->keys[i - 1].frame)
			return false;
	return true;
}

/* hermite(k0, k1, t) at t = first .. last, vectorized: the same
 * operations in the same order, so the same values. */
VECTOR_CLONES
static void hermite_run(const struct clip_key *k0, const struct clip_key *k1, uint32_t first,
			uint32_t last, double *restrict out)
{
	double t0 = k0->frame, span = (double)k1->frame - k0->frame;
	double v0 = k0->value, v1 = k1->value, e0 = k0->ease_out, e1 = k1->ease_in;
	if (span <= 0) {
		for (uint32_t f = first; f <= last; f++)
			out[f] = v0;
		return;
	}
	for (uint32_t f = first; f <= last; f++) {
		double t = f, s = (t - t0) / span, d = t - t0;
		out[f] = v0 * (1 - 3 * s * s + 2 * s * s * s) + v1 * (3 * s * s - 2 * s * s * s) +
			 e0 * d * (1 - s) * (1 - s) + e1 * d * (s * s - s);
	}
}

void curve_sample_span(const struct clip_key *from, const struct clip_key *to, uint32_t first,
		       uint32_t last, double *out)
{
	hermite_run(from, to, first, last, out);
}

void curve_sample_frames(const struct clip_channel *ch, uint32_t count, double *out)
{
	if (!ch->nkeys || !in_frame_order(ch)) {
		for (uint32_t f = 0; f < count; f++)
			out[f] = sample(ch, f, false);
		return;
	}
	/* Keys in frame order, ties in stored order: the span of frame f
	 * (span_at) runs from the last key before f to the first from f on,
	 * the same for every frame up to that key's. */
	const struct clip_key *k = ch->keys;
	uint32_t n = ch->nkeys, next = 0;
	for (uint32_t f = 0; f < count;) {
		while (next < n && k[next].frame < (double)f)
			next++;
		const struct clip_key *from = next ? &k[next - 1] : &k[0];
		const struct clip_key *to = next < n ? &k[next] : &k[n - 1];
		uint32_t last = next < n && (uint32_t)k[next].frame < count - 1 ? (uint32_t)k[next].frame
									      : count - 1;
		hermite_run(from, to, f, last, out);
		f = last + 1;
	}
}

/* ---- units -------------------------------------------------------------- */

enum curve_kind curve_kind_of(uint32_t bit, int *axis)
{
	static const struct {
		uint32_t x;
		enum curve_kind kind;
	} kinds[] = {{CLIP_ROT_X, CURVE_ROT}, {CLIP_LOC_X, CURVE_LOC}, {CLIP_SCL_X, CURVE_SCL}};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		for (int a = 0; a < 3; a++)
			if (bit == kinds[i].x << a) {
				if (axis)
					*axis = a;
				return kinds[i].kind;
			}
	if (axis)
		*axis = -1;
	return CURVE_OTHER;
}


double curve_display(uint32_t bit, double raw)
{
	switch (curve_kind_of(bit, NULL)) {
	case CURVE_ROT:
		return raw * 90 / 4096;
	case CURVE_LOC:
		return raw / 16;
	case CURVE_SCL:
		return raw / 256;
	case CURVE_OTHER:
		break;
	}
	return raw;
}

const char *curve_display_unit(uint32_t bit)
{
	static const char *const names[] = {
		[CURVE_ROT] = "deg", [CURVE_LOC] = "units", [CURVE_SCL] = "scale", [CURVE_OTHER] = "raw"};
	return names[curve_kind_of(bit, NULL)];
}

/* ---- a clip's pose ------------------------------------------------------- */

/* The slot of a channel bit in curve_pose.raw, -1 for a bit that is not
 * one of the twelve. */
static int channel_slot(uint32_t bit)
{
	for (int i = 0; i < CURVE_CHANNELS; i++)
		if (bit == 1u << i)
			return i;
	return -1;
}

static void track_pose(const struct clip_track *t, double frame, struct curve_pose *p)
{
	*p = (struct curve_pose){.scl = {1, 1, 1}};
	for (uint32_t c = 0; c < t->nchannels; c++) {
		const struct clip_channel *ch = &t->channels[c];
		int slot = channel_slot(ch->bit), axis;
		if (slot < 0 || !ch->nkeys)
			continue;
		double v = curve_sample(ch, frame);
		p->driven |= ch->bit;
		p->raw[slot] = v;
		switch (curve_kind_of(ch->bit, &axis)) {
		case CURVE_ROT:
			p->rot[axis] = curve_radians(v);
			break;
		case CURVE_LOC:
			p->loc[axis] = v / 16;
			break;
		case CURVE_SCL:
			p->scl[axis] = v / 256;
			break;
		case CURVE_OTHER:
			break;
		}
	}
}

void curve_pose_at(const struct clip *c, double frame, struct curve_pose *out)
{
	for (uint32_t t = 0; t < c->ntracks; t++)
		track_pose(&c->tracks[t], frame, &out[t]);
}
