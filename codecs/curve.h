/* SPDX-License-Identifier: MIT */
/* Clips played as the engine plays them (mhfu-clip(5) "Channels and
 * units"): a channel's value at any frame, whole or fractional, and the
 * pose a clip gives every track at a frame.
 *
 *  1. Between two keys (t0, x0) and (t1, x1) a channel follows the cubic
 *     Hermite curve whose slopes are the left key's ease_out and the
 *     right key's ease_in (raw units per frame).  With s = (t - t0) /
 *     (t1 - t0) and d = t - t0:
 *       x = x0 (1 - 3s^2 + 2s^3) + x1 (3s^2 - 2s^3)
 *           + ease_out0 d (1 - s)^2 + ease_in1 d (s^2 - s)
 *     so at a key's frame the value is the key's, exactly.
 *  2. Before its first key and after its last a channel holds that key's
 *     value.  A clip runs to its last keyframe (entries_clip_frames); the
 *     sampler does not wrap a looping clip: the player does.
 *  3. Keys are taken in frame order whatever their stored order (ties
 *     keep their stored order).  Where several keys share a frame the
 *     curve arrives at the first of them and leaves from the last: at
 *     that frame it is the first's value, just after it the last's.
 *  4. Values are in the channel's raw unit: rotations 4096 = 90 degrees
 *     (pi / 8192 radians), locations 16 = 1.0, scales 256 = 1.0; u1, u2,
 *     u4 and bits without a name have no known unit.
 *
 * Pure: no I/O, no globals, no allocation. */
#ifndef MH_CURVE_H
#define MH_CURVE_H

#include <math.h>
#include <stdint.h>

#include "clip.h"

/* The value of channel ch at `frame`, in its raw unit; 0 for a channel
 * without keys.  A NaN frame is taken as before the first key. */
double curve_sample(const struct clip_channel *ch, double frame);

/* curve_sample at frames 0, 1, ... count - 1 into out, the same values
 * in one walk over the keys (when they are stored in frame order, as
 * the games store them; else frame by frame). */
void curve_sample_frames(const struct clip_channel *ch, uint32_t count, double *out);

/* The curve between keys `from` and `to` (curve.h 1.: from's ease_out,
 * to's ease_in) at frames first .. last into out[first .. last], the
 * same values curve_sample_frames gives there; from's value throughout
 * when to's frame is not after from's.  For the key fitter (fit.h),
 * which tries spans before it has a channel. */
void curve_sample_span(const struct clip_key *from, const struct clip_key *to, uint32_t first,
		       uint32_t last, double *out);

/* The value just after `frame` (the limit from the right): the value the
 * curve leaves `frame` with.  It differs from curve_sample only at a
 * frame holding several keys with different values (3.). */
double curve_sample_after(const struct clip_channel *ch, double frame);

/* ---- units -------------------------------------------------------------- */

enum curve_kind {
	CURVE_ROT,   /* rot_x rot_y rot_z */
	CURVE_LOC,   /* loc_x loc_y loc_z */
	CURVE_SCL,   /* scl_x scl_y scl_z */
	CURVE_OTHER, /* u1 u2 u4, and any bit without a name */
};

/* What a channel bit animates; *axis (may be NULL) is 0, 1, 2 for X, Y, Z
 * and -1 for CURVE_OTHER. */
enum curve_kind curve_kind_of(uint32_t bit, int *axis);

/* A raw value in the unit people read: degrees for rotations, model
 * units for locations (raw / 16), factors for scales (raw / 256), raw
 * for the others; and that unit's name: "deg", "units", "scale", "raw". */
double curve_display(uint32_t bit, double raw);
const char *curve_display_unit(uint32_t bit);

/* A rotation's raw value in radians (raw * pi / 8192); inline, for the
 * loops over every frame of a clip. */
static inline double curve_radians(double raw)
{
	return raw * M_PI / 8192;
}

/* ---- a clip's pose ------------------------------------------------------- */

/* The channel bits 0x001..0x800, one slot each in curve_pose.raw. */
#define CURVE_CHANNELS 12

/* What one track of a clip gives its joint at a frame.  A channel a track
 * does not have (or has without keys) is not driven: its bit is clear in
 * `driven` and the joint keeps its bind value there, which the pose does
 * not know: rot and loc read 0, scl 1.  A track listing a channel twice
 * plays the later one. */
struct curve_pose {
	uint32_t driven;                /* the CLIP_* bits of the channels played */
	double raw[CURVE_CHANNELS];     /* raw value of bit 1 << i; 0 if not driven */
	double rot[3];                  /* radians about X, Y, Z; the engine composes
					   them Rz * Ry * Rx */
	double loc[3];                  /* translation from the parent, model units
					   (raw / 16) */
	double scl[3];                  /* factors (raw / 256); MHFU plays no scale */
};

/* The pose of every track of c at `frame` (whole or fractional; see
 * curve_sample) into out[0 .. c->ntracks).  Track i drives the part's
 * i-th joint (MHFU; views_stream_joints says which joint that is).
 * Channels whose bit is not one of the twelve are left out. */
void curve_pose_at(const struct clip *c, double frame, struct curve_pose *out);

#endif
