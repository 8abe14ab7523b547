/* SPDX-License-Identifier: MIT */
/* Keys fitted to a curve sampled at every frame (mhfu-clip(5) "FITTING
 * KEYS"): the inverse of curve_sample_frames, for motion made outside
 * the games (a glTF export sampled at the engine's 30 frames a second).
 *
 * A fitted channel is few keys, in frame order, one per frame, whose
 * curve as the engine plays it (curve.h, evaluated exactly as
 * curve_sample_frames does) is within the tolerance of every sample:
 *  1. Values are the samples at the keys' frames rounded to whole raw
 *     units (halves away from zero); eases are whole slopes, the least
 *     squares fit of each span's two end slopes to the samples inside
 *     it, rounded and clamped to -32768..32767.  A key's ease_in and
 *     ease_out differ where the samples bend sharply.
 *  2. The curve holds before the first key and after the last, so a
 *     channel holding still at its start or end has its first key where
 *     the motion starts and its last where it stops; a channel within
 *     the tolerance of one value throughout is one key at frame 0.  The
 *     first key's ease_in and the last key's ease_out play no part and
 *     are 0.
 *  3. Keys are placed greedily: from each key the next is, of the
 *     frames a span within the tolerance reaches, the one whose own span
 *     reaches furthest (ties: the one arriving with the smaller error).
 *     A span may end where the samples stop following one cubic (their
 *     fourth difference leaves 0): samples of engine keys do that at the
 *     keys' own frames, so they refit to their keys' frames and values
 *     where keys stand 4 frames or more apart.  In the tests (3000
 *     random engine channels, every channel of the sample Tigrex) the
 *     refit has fewer keys in all, at most one more in a channel (1 of
 *     the 3000), and reads 98% and 99.8% of the original keys' values
 *     exactly at their frames (the others within the tolerance).
 *
 * Pure: no I/O, no globals; the keys are allocated with clip_add_key. */
#ifndef MH_FIT_H
#define MH_FIT_H

#include <stdint.h>

#include "clip.h"
#include "curve.h"
#include "diag.h"

/* Default tolerances, in raw units: one raw unit of rotation
 * (90 / 4096 degrees) and a tenth of a model unit of location (16 raw
 * units = 1.0, so 1.6 raw units; a tenth of a raw unit would be finer
 * than the whole raw values keys hold). */
#define FIT_TOL_ROTATION 1.0
#define FIT_TOL_LOCATION 1.6

/* The smallest tolerance fit_channel takes: a key's value is whole, so a
 * sample at a key's frame may be half a raw unit from it. */
#define FIT_TOL_MIN 0.5

/* The longest channel: frames are s16, 0 .. 32767. */
#define FIT_FRAMES_MAX 32768u

/* The default tolerance of channel bit `bit`: FIT_TOL_LOCATION for
 * CLIP_LOC_X/Y/Z, FIT_TOL_ROTATION (one raw unit) for any other. */
double fit_tolerance(uint32_t bit);

/* Fits keys to values[0 .. n), the channel's raw values at frames
 * 0 .. n - 1, into *out (which must own nothing): out->bit = bit, keys
 * as described above, each frame within `tol` raw units.
 * Fails, *out left empty, with MH_ERANGE when n is 0 or over
 * FIT_FRAMES_MAX, tol is below FIT_TOL_MIN or not finite, or a value is
 * not finite or rounds outside -32768..32767 (d->offset is then that
 * frame, the first such, and the message names it); MH_ENOMEM. */
enum mh_err fit_channel(uint32_t bit, const double *values, uint32_t n, double tol,
			struct clip_channel *out, struct mh_diag *d);

/* One joint's samples: samples[i] holds the values of channel bit
 * 1 << i at frames 0 .. n - 1, or is NULL when the joint has no such
 * channel. */
struct fit_track_samples {
	const double *samples[CURVE_CHANNELS];
	double tolerance[2];   /* rotation and location, raw units; 0: the
				  defaults (FIT_TOL_ROTATION, FIT_TOL_LOCATION) */
};

/* Appends to c a track fitted from s (n frames each, within s's
 * tolerances, fit_tolerance's where 0): a channel per non-NULL component, in ascending bit
 * order as MHFU stores them, the track's mask their bits; no channel
 * when all are NULL.  On failure c is as it was; MH_ERANGE as
 * fit_channel, the message naming the channel. */
enum mh_err fit_track(const struct fit_track_samples *s, uint32_t n, struct clip *c,
		      struct mh_diag *d);

/* An MHFU clip from ntracks tracks' samples (track i drives the part's
 * i-th joint), n frames each, into *out (which must own nothing), with
 * the caller's loop and loop_start.  The clip runs to frame n - 1 (its
 * last keyframe, entries_clip_frames): when every fitted channel ends
 * earlier, its first channel gets one more key at n - 1 holding its
 * last value.  On failure *out is empty; MH_ERANGE as fit_channel, the
 * message naming the track and channel. */
enum mh_err fit_clip(const struct fit_track_samples *tracks, uint32_t ntracks, uint32_t n,
		     uint32_t loop, float loop_start, struct clip *out, struct mh_diag *d);

#endif
