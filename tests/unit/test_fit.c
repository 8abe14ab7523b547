/* SPDX-License-Identifier: MIT */
/* Tests of codecs/fit (keys fitted to per-frame samples, mhfu-clip(5)
 * "FITTING KEYS").  Every fit is played back through curve.h, as the
 * engine plays it, and compared with its samples at every frame.
 *
 * Synthetic curves (a constant, a line, a sine, a step, a corner) get
 * the keys a person would place; channels sampled from engine keys
 * (random ones, and every clip of the sample's Tigrex pack,
 * $MHFU_SAMPLE/src/file_06185/3.anim) refit to at most their own key
 * count, through their own keys' values.  A Tigrex-sized clip is timed
 * (printed, not asserted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <math.h>

#include "anim.h"
#include "entries.h"
#include "fit.h"
#include "rng.h"
#include "testlib.h"

/* The channel's curve at frames 0 .. n - 1 is within tol of values, and
 * its keys are in frame order, one per frame. */
static void assert_within(const struct clip_channel *ch, const double *values, uint32_t n,
			  double tol)
{
	double *curve = malloc(n * sizeof *curve);
	assert_non_null(curve);
	curve_sample_frames(ch, n, curve);
	for (uint32_t t = 0; t < n; t++)
		if (!(fabs(curve[t] - values[t]) <= tol))
			fail_msg("frame %u: curve %.4f, sample %.4f (tolerance %g, %u keys)", t,
				 curve[t], values[t], tol, ch->nkeys);
	for (uint32_t k = 1; k < ch->nkeys; k++)
		assert_true(ch->keys[k].frame > ch->keys[k - 1].frame);
	free(curve);
}

/* fit_channel with the bit's default tolerance, checked as above. */
static struct clip_channel fit_ok(uint32_t bit, const double *values, uint32_t n)
{
	struct clip_channel ch;
	struct mh_diag d = {0};
	if (fit_channel(bit, values, n, fit_tolerance(bit), &ch, &d) != MH_OK)
		fail_msg("fit_channel: %s", d.msg);
	assert_int_equal(ch.bit, bit);
	assert_within(&ch, values, n, fit_tolerance(bit));
	return ch;
}

/* ---- synthetic curves --------------------------------------------------- */

static void tolerances_follow_the_bit(void **state)
{
	(void)state;
	assert_true(fit_tolerance(CLIP_ROT_X) == FIT_TOL_ROTATION);
	assert_true(fit_tolerance(CLIP_ROT_Z) == FIT_TOL_ROTATION);
	assert_true(fit_tolerance(CLIP_LOC_X) == FIT_TOL_LOCATION);
	assert_true(fit_tolerance(CLIP_LOC_Z) == FIT_TOL_LOCATION);
	assert_true(FIT_TOL_ROTATION == 1.0);
	assert_true(FIT_TOL_LOCATION == 16 * 0.1); /* a tenth of a model unit */
}

static void a_constant_is_one_key_at_frame_0(void **state)
{
	(void)state;
	double v[300];
	for (int t = 0; t < 300; t++)
		v[t] = 700.3 + 0.6 * sin(t * 0.1); /* within 1 of 700 */
	struct clip_channel ch = fit_ok(CLIP_ROT_Y, v, 300);
	assert_int_equal(ch.nkeys, 1);
	assert_int_equal(ch.keys[0].frame, 0);
	assert_int_equal(ch.keys[0].value, 700);
	assert_int_equal(ch.keys[0].ease_in, 0);
	assert_int_equal(ch.keys[0].ease_out, 0);
	free(ch.keys);
	double one = -5;
	ch = fit_ok(CLIP_LOC_X, &one, 1);
	assert_int_equal(ch.nkeys, 1);
	assert_int_equal(ch.keys[0].value, -5);
	free(ch.keys);
}

static void a_line_is_two_keys_with_its_slope(void **state)
{
	(void)state;
	double v[400];
	for (int t = 0; t < 400; t++)
		v[t] = -1000 + 7 * t;
	struct clip_channel ch = fit_ok(CLIP_ROT_X, v, 400);
	assert_int_equal(ch.nkeys, 2);
	assert_int_equal(ch.keys[0].frame, 0);
	assert_int_equal(ch.keys[0].value, -1000);
	assert_int_equal(ch.keys[0].ease_out, 7);
	assert_int_equal(ch.keys[1].frame, 399);
	assert_int_equal(ch.keys[1].value, -1000 + 7 * 399);
	assert_int_equal(ch.keys[1].ease_in, 7);
	free(ch.keys);
}

/* A sine of amplitude 2000 raw units (44 degrees), period 100 frames,
 * over 400 frames: within one raw unit a cubic span covers about a
 * tenth of a period. */
static void a_sine_is_a_key_every_few_frames(void **state)
{
	(void)state;
	double v[400];
	for (int t = 0; t < 400; t++)
		v[t] = 2000 * sin(2 * M_PI * t / 100);
	struct clip_channel ch = fit_ok(CLIP_ROT_Z, v, 400);
	printf("sine: %u keys over 400 frames\n", ch.nkeys);
	assert_true(ch.nkeys >= 10 && ch.nkeys <= 60);
	free(ch.keys);
	/* The same in location units: 100 model units of amplitude. */
	for (int t = 0; t < 400; t++)
		v[t] = 1600 * sin(2 * M_PI * t / 100);
	ch = fit_ok(CLIP_LOC_Y, v, 400);
	assert_true(ch.nkeys >= 10 && ch.nkeys <= 60);
	free(ch.keys);
}

/* Still, a jump between frames 199 and 200, still: the curve holds
 * before the first key and after the last, so two keys. */
static void a_step_is_two_keys_and_its_holds(void **state)
{
	(void)state;
	double v[400];
	for (int t = 0; t < 400; t++)
		v[t] = t < 200 ? 100 : 3000;
	struct clip_channel ch = fit_ok(CLIP_ROT_X, v, 400);
	assert_int_equal(ch.nkeys, 2);
	assert_int_equal(ch.keys[0].frame, 199);
	assert_int_equal(ch.keys[0].value, 100);
	assert_int_equal(ch.keys[0].ease_in, 0);
	assert_int_equal(ch.keys[1].frame, 200);
	assert_int_equal(ch.keys[1].value, 3000);
	assert_int_equal(ch.keys[1].ease_out, 0);
	free(ch.keys);
}

/* A V: down at 5 units a frame to frame 150, up at 3 after: a key at the
 * corner arriving at -5 and leaving at +3. */
static void a_corner_is_a_key_with_two_eases(void **state)
{
	(void)state;
	double v[400];
	for (int t = 0; t < 400; t++)
		v[t] = t < 150 ? -5.0 * t : -750 + 3.0 * (t - 150);
	struct clip_channel ch = fit_ok(CLIP_LOC_Z, v, 400);
	assert_int_equal(ch.nkeys, 3);
	assert_int_equal(ch.keys[1].frame, 150);
	assert_int_equal(ch.keys[1].value, -750);
	assert_int_equal(ch.keys[1].ease_in, -5);
	assert_int_equal(ch.keys[1].ease_out, 3);
	free(ch.keys);
}

/* A smoothstep from frame 100 to 300 after a still start and before a
 * still end: keys only at 100 and 300. */
static void still_ends_are_held_not_keyed(void **state)
{
	(void)state;
	double v[400];
	for (int t = 0; t < 400; t++) {
		double s = t < 100 ? 0 : t > 300 ? 1 : (t - 100) / 200.0;
		v[t] = 500 + 4000 * s * s * (3 - 2 * s);
	}
	struct clip_channel ch = fit_ok(CLIP_ROT_Y, v, 400);
	assert_int_equal(ch.nkeys, 2); /* the smoothstep is one cubic, flat at both ends */
	assert_int_equal(ch.keys[0].frame, 100);
	assert_int_equal(ch.keys[0].ease_out, 0);
	assert_int_equal(ch.keys[1].frame, 300);
	assert_int_equal(ch.keys[1].value, 4500);
	assert_int_equal(ch.keys[1].ease_in, 0);
	free(ch.keys);
}

/* ---- refusals ----------------------------------------------------------- */

static void out_of_range_values_name_their_frame(void **state)
{
	(void)state;
	double v[200];
	for (int t = 0; t < 200; t++)
		v[t] = 300.0 * t; /* unwrapped: passes 32767 at frame 110 */
	struct clip_channel ch;
	struct mh_diag d = {0};
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, 200, FIT_TOL_ROTATION, &ch, &d), MH_ERANGE,
		    110);
	assert_diag_says(&d, "frame 110");
	assert_int_equal(ch.nkeys, 0);
	assert_null(ch.keys);
	v[110] = 32767.4; /* rounds to 32767: fits */
	v[111] = -32768.6;
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, 112, FIT_TOL_ROTATION, &ch, &d), MH_ERANGE,
		    111);
	v[111] = NAN;
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, 112, FIT_TOL_ROTATION, &ch, &d), MH_ERANGE,
		    111);
	/* A clip says which track and channel. */
	struct fit_track_samples tracks[2];
	memset(tracks, 0, sizeof tracks);
	double still[112] = {0};
	tracks[0].samples[3] = still;
	tracks[1].samples[4] = still;
	tracks[1].samples[6] = v;
	struct clip c;
	assert_diag(&d, fit_clip(tracks, 2, 112, 0, 0, &c, &d), MH_ERANGE, 111);
	assert_diag_says(&d, "track 1 loc_x: frame 111");
	assert_int_equal(c.ntracks, 0);
	assert_null(c.tracks);
}

static void bad_lengths_and_tolerances_are_refused(void **state)
{
	(void)state;
	double v[2] = {0, 1};
	struct clip_channel ch;
	struct mh_diag d = {0};
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, 0, 1, &ch, &d), MH_ERANGE, 0);
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, FIT_FRAMES_MAX + 1, 1, &ch, &d), MH_ERANGE, 0);
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, 2, 0.4, &ch, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "tolerance");
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, 2, NAN, &ch, &d), MH_ERANGE, 0);
	assert_diag(&d, fit_channel(CLIP_ROT_X, v, 2, INFINITY, &ch, &d), MH_ERANGE, 0);
}

/* ---- engine keys refitted ----------------------------------------------- */

/* What refitting engine channels gave, over all channels tried. */
struct refits {
	uint32_t channels, keys, refit_keys;
	uint32_t more;  /* channels refitted to more keys than they had */
	uint32_t moved; /* original keys whose frame reads another value */
};

/* Samples ch at frames 0 .. n - 1 as the engine plays it and refits
 * them: within the tolerance at every frame (fit_ok), at most one key
 * more than the original, and counted: the keys, the channels with more,
 * the original keys whose own frame the refit curve does not read
 * exactly (where the refit placed its keys elsewhere, or fewer). */
static void refit_engine_channel(const struct clip_channel *ch, uint32_t n, struct refits *r)
{
	double *v = malloc(n * sizeof *v), *again = malloc(n * sizeof *again);
	assert_non_null(v);
	assert_non_null(again);
	curve_sample_frames(ch, n, v);
	struct clip_channel fitted = fit_ok(ch->bit, v, n);
	curve_sample_frames(&fitted, n, again);
	for (uint32_t k = 0; k < ch->nkeys; k++)
		r->moved += again[ch->keys[k].frame] != ch->keys[k].value;
	if (fitted.nkeys > ch->nkeys + 1)
		fail_msg("%u keys refitted to %u", ch->nkeys, fitted.nkeys);
	r->channels++;
	r->keys += ch->nkeys;
	r->refit_keys += fitted.nkeys;
	r->more += fitted.nkeys > ch->nkeys;
	free(fitted.keys);
	free(again);
	free(v);
}

static void print_refits(const char *what, const struct refits *r)
{
	printf("%s: %u channels, %u keys refitted to %u; %u channels with more keys (one more); "
	       "%u original keys' values not read exactly\n",
	       what, r->channels, r->keys, r->refit_keys, r->more, r->moved);
}

/* A random engine channel: keys ascending from frame 0, 1 to 60 frames
 * apart (sometimes a run 1 frame apart), values within 90 degrees,
 * eases within 40 units a frame, a kink (ease_in != ease_out) at some. */
static void random_channel(struct rng *r, uint32_t bit, struct clip_channel *ch, uint32_t *n)
{
	*ch = (struct clip_channel){.bit = bit};
	uint32_t keys = 1 + (uint32_t)rng_below(r, 12), frame = 0;
	for (uint32_t k = 0; k < keys; k++) {
		int16_t ease = (int16_t)((int)rng_below(r, 81) - 40);
		struct clip_key key = {.frame = (int16_t)frame,
				       .value = (int16_t)((int)rng_below(r, 8193) - 4096),
				       .ease_in = ease,
				       .ease_out = rng_below(r, 4) ? ease : (int16_t)((int)rng_below(r, 81) - 40)};
		assert_non_null(clip_add_key(ch, key));
		frame += rng_below(r, 6) ? 1 + (uint32_t)rng_below(r, 60) : 1;
	}
	*n = (uint32_t)ch->keys[keys - 1].frame + 1 + (uint32_t)rng_below(r, 20);
}

static void random_engine_channels_refit(void **state)
{
	(void)state;
	struct rng r = {20240611};
	struct refits got = {0};
	for (int i = 0; i < 3000; i++) {
		struct clip_channel ch;
		uint32_t n, bit = rng_below(&r, 2) ? CLIP_ROT_X << rng_below(&r, 3)
						   : CLIP_LOC_X << rng_below(&r, 3);
		random_channel(&r, bit, &ch, &n);
		refit_engine_channel(&ch, n, &got);
		free(ch.keys);
	}
	print_refits("random engine channels", &got);
	/* Fewer keys in all; more in at most 1 channel in 1000, where a
	 * key 1 frame from the next is placed a frame later.  Keys 1 to 3
	 * frames apart leave the frames between free, so the refit may key
	 * other frames there: 98% of the original values are read exactly
	 * (within the tolerance all are). */
	assert_true(got.refit_keys <= got.keys);
	assert_true(got.more * 1000 <= got.channels);
	assert_true(got.moved * 50 <= got.keys);
}

/* Engine channels as a file gives them back: each sample off by up to
 * 0.15 raw units, the rounding of a 16-bit quaternion (model.glb's, and
 * Blender's export of it).  Keys 20 to 200 frames apart, bent at some
 * (ease_in != ease_out).  The fourth differences of such samples are
 * not 0, yet the refit finds the spans between bent keys: at most twice
 * the original's keys (1.8 times; 4.1 times when only exact cubics were
 * found), within the tolerance.  (The sample Tigrex's entries, through
 * Blender, come back with as many keys as they had.) */
static void engine_channels_with_rounding_refit(void **state)
{
	(void)state;
	struct rng r = {20261206};
	uint32_t keys = 0, refit_keys = 0;
	for (int i = 0; i < 400; i++) {
		struct clip_channel ch = {.bit = CLIP_ROT_X << rng_below(&r, 3)};
		uint32_t nkeys = 2 + (uint32_t)rng_below(&r, 5), frame = 0;
		for (uint32_t k = 0; k < nkeys; k++) {
			int16_t ease = (int16_t)((int)rng_below(&r, 41) - 20);
			struct clip_key key = {.frame = (int16_t)frame,
					       .value = (int16_t)((int)rng_below(&r, 8193) - 4096),
					       .ease_in = ease,
					       .ease_out = rng_below(&r, 3) ? ease
								: (int16_t)((int)rng_below(&r, 41) - 20)};
			assert_non_null(clip_add_key(&ch, key));
			frame += 20 + (uint32_t)rng_below(&r, 181);
		}
		uint32_t n = (uint32_t)ch.keys[nkeys - 1].frame + 1;
		double *v = malloc(n * sizeof *v);
		assert_non_null(v);
		curve_sample_frames(&ch, n, v);
		for (uint32_t t = 0; t < n; t++)
			v[t] += ((double)rng_below(&r, 30001) / 30000 - 0.5) * 0.3;
		struct clip_channel fitted = fit_ok(ch.bit, v, n);
		keys += ch.nkeys;
		refit_keys += fitted.nkeys;
		free(fitted.keys);
		free(ch.keys);
		free(v);
	}
	printf("engine channels with rounding: %u keys refitted to %u\n", keys, refit_keys);
	assert_true(refit_keys <= 2 * keys);
}

/* The sample's Tigrex pack, decoded; false (saying why) without it. */
static bool sample_tigrex(struct anim *a)
{
	const char *dir = getenv("MHFU_SAMPLE");
	char path[4200], why[4400];
	struct file_bytes f = {0};
	if (!dir || !*dir)
		fail_msg("MHFU_SAMPLE is not set: point it at a directory made by "
			 "`build/mkarchive --seed 1 --out DIR/DATA.BIN --extract DIR/src` "
			 "(`make units` does)");
	snprintf(path, sizeof path, "%s/src/file_06185/3.anim", dir);
	if (!read_whole_file(path, &f, why, sizeof why))
		fail_msg("%s", why);
	struct mh_diag d = {0};
	if (anim_decode(f.p, f.len, CLIP_NONE, a, &d) != MH_OK)
		fail_msg("%s: %s", path, d.msg);
	free(f.p);
	return true;
}

static void the_sample_tigrex_refits(void **state)
{
	(void)state;
	struct anim a;
	sample_tigrex(&a);
	struct refits got = {0};
	for (uint32_t i = 0; i < a.nclips; i++) {
		const struct clip *c = &a.clips[i];
		uint32_t n = (uint32_t)entries_clip_frames(c) + 1;
		for (uint32_t t = 0; t < c->ntracks; t++)
			for (uint32_t k = 0; k < c->tracks[t].nchannels; k++)
				refit_engine_channel(&c->tracks[t].channels[k], n, &got);
	}
	print_refits("the sample Tigrex", &got);
	assert_true(got.channels > 1000);
	assert_true(got.refit_keys <= got.keys);
	assert_int_equal(got.more, 0);
	assert_true(got.moved * 200 <= got.keys); /* 99.5% read exactly */
	anim_free(&a);
}

/* ---- clips -------------------------------------------------------------- */

/* Per-track samples of clip c at frames 0 .. n - 1 (all twelve slots,
 * NULL where the track has no such channel); free with free_samples. */
static struct fit_track_samples *samples_of(const struct clip *c, uint32_t n)
{
	struct fit_track_samples *s = calloc(c->ntracks ? c->ntracks : 1, sizeof *s);
	assert_non_null(s);
	for (uint32_t t = 0; t < c->ntracks; t++)
		for (uint32_t k = 0; k < c->tracks[t].nchannels; k++) {
			const struct clip_channel *ch = &c->tracks[t].channels[k];
			double *v = malloc(n * sizeof *v);
			assert_non_null(v);
			curve_sample_frames(ch, n, v);
			int slot = __builtin_ctz(ch->bit);
			free((void *)s[t].samples[slot]);
			s[t].samples[slot] = v;
		}
	return s;
}

static void free_samples(struct fit_track_samples *s, uint32_t ntracks)
{
	for (uint32_t t = 0; t < ntracks; t++)
		for (int i = 0; i < CURVE_CHANNELS; i++)
			free((void *)s[t].samples[i]);
	free(s);
}

/* Every clip of the sample's Tigrex pack, sampled and refitted whole:
 * the same tracks, channels in ascending bit order, masks their bits,
 * the same length, loop and loop_start, every frame within tolerance. */
static void the_sample_tigrex_clips_refit(void **state)
{
	(void)state;
	struct anim a;
	sample_tigrex(&a);
	for (uint32_t i = 0; i < a.nclips; i++) {
		const struct clip *c = &a.clips[i];
		uint32_t n = (uint32_t)entries_clip_frames(c) + 1;
		struct fit_track_samples *s = samples_of(c, n);
		struct clip fitted;
		struct mh_diag d = {0};
		if (fit_clip(s, c->ntracks, n, c->loop, c->loop_start, &fitted, &d) != MH_OK)
			fail_msg("clip %u: %s", i, d.msg);
		assert_int_equal(fitted.ntracks, c->ntracks);
		assert_int_equal(fitted.loop, c->loop);
		assert_memory_equal(&fitted.loop_start, &c->loop_start, sizeof c->loop_start);
		assert_int_equal(entries_clip_frames(&fitted), n - 1);
		for (uint32_t t = 0; t < c->ntracks; t++) {
			const struct clip_track *ft = &fitted.tracks[t];
			uint32_t bits = 0, last = 0;
			for (uint32_t k = 0; k < ft->nchannels; k++) {
				const struct clip_channel *ch = &ft->channels[k];
				assert_true(ch->bit > last);
				last = ch->bit;
				bits |= ch->bit;
				assert_within(ch, s[t].samples[__builtin_ctz(ch->bit)], n,
					      fit_tolerance(ch->bit));
			}
			assert_int_equal(ft->mask, bits);
			for (int slot = 0; slot < CURVE_CHANNELS; slot++)
				assert_int_equal(!!(bits & 1u << slot), !!s[t].samples[slot]);
		}
		clip_free(&fitted);
		free_samples(s, c->ntracks);
	}
	anim_free(&a);
}

/* A clip whose channels all stand still still runs to its last frame. */
static void a_still_clip_keeps_its_length(void **state)
{
	(void)state;
	double still[90], moving[90];
	for (int t = 0; t < 90; t++) {
		still[t] = 12;
		moving[t] = t < 30 ? 4 * t : 120;
	}
	struct fit_track_samples tracks[3];
	memset(tracks, 0, sizeof tracks);
	tracks[1].samples[__builtin_ctz(CLIP_ROT_Y)] = still;
	tracks[1].samples[__builtin_ctz(CLIP_LOC_X)] = moving;
	tracks[2].samples[__builtin_ctz(CLIP_ROT_X)] = still;
	struct clip c;
	struct mh_diag d = {0};
	assert_int_equal(fit_clip(tracks, 3, 90, 1, 5.5f, &c, &d), MH_OK);
	assert_int_equal(c.ntracks, 3);
	assert_int_equal(c.tracks[0].nchannels, 0);
	assert_int_equal(c.tracks[0].mask, 0);
	assert_int_equal(c.tracks[1].nchannels, 2);
	assert_int_equal(c.tracks[1].mask, CLIP_ROT_Y | CLIP_LOC_X);
	assert_int_equal(entries_clip_frames(&c), 89);
	/* The first channel, rot_y of track 1, holds 12 to frame 89. */
	const struct clip_channel *rot_y = &c.tracks[1].channels[0];
	assert_int_equal(rot_y->bit, CLIP_ROT_Y);
	assert_int_equal(rot_y->nkeys, 2);
	assert_int_equal(rot_y->keys[1].frame, 89);
	assert_within(rot_y, still, 90, FIT_TOL_ROTATION);
	assert_within(&c.tracks[1].channels[1], moving, 90, FIT_TOL_LOCATION);
	assert_int_equal(c.tracks[2].channels[0].nkeys, 1);
	assert_int_equal(c.loop, 1);
	assert_true(c.loop_start == 5.5f);
	clip_free(&c);
}

/* 45 joints, 6 channels each, 450 frames, sampled from random engine
 * keys, then smooth: how long fit_clip takes (printed; `make` builds
 * -O2). */
static void a_tigrex_sized_clip_is_timed(void **state)
{
	(void)state;
	enum { JOINTS = 45, FRAMES = 450 };
	static const uint32_t BITS[6] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z,
					 CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z};
	struct rng r = {45};
	struct clip src = {0};
	for (int j = 0; j < JOINTS; j++) {
		struct clip_track *t = clip_add_track(&src, 0);
		assert_non_null(t);
		for (int b = 0; b < 6; b++) {
			struct clip_channel *ch = clip_add_channel(t, BITS[b]);
			assert_non_null(ch);
			for (int frame = 0; frame < FRAMES; frame += 1 + (int)rng_below(&r, 30)) {
				struct clip_key k = {.frame = (int16_t)frame,
						     .value = (int16_t)((int)rng_below(&r, 4001) - 2000),
						     .ease_in = (int16_t)((int)rng_below(&r, 61) - 30)};
				k.ease_out = k.ease_in;
				assert_non_null(clip_add_key(ch, k));
			}
		}
	}
	struct fit_track_samples *s = samples_of(&src, FRAMES);
	struct clip fitted;
	struct mh_diag d = {0};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(fit_clip(s, JOINTS, FRAMES, 0, 0, &fitted, &d), MH_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	uint32_t keys = 0, fitted_keys = 0;
	for (int j = 0; j < JOINTS; j++)
		for (int b = 0; b < 6; b++) {
			keys += src.tracks[j].channels[b].nkeys;
			fitted_keys += fitted.tracks[j].channels[b].nkeys;
			assert_within(&fitted.tracks[j].channels[b], s[j].samples[__builtin_ctz(BITS[b])],
				      FRAMES, fit_tolerance(BITS[b]));
		}
	printf("%d joints x 6 channels x %d frames: %u keys refitted to %u in %.1f ms\n", JOINTS,
	       FRAMES, keys, fitted_keys,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	assert_true(fitted_keys <= keys);
	clip_free(&fitted);
	/* Smooth motion, as a sampled export gives: two sines a channel,
	 * periods of 40 to 300 frames, up to 60 degrees or 40 units. */
	for (int j = 0; j < JOINTS; j++)
		for (int b = 0; b < 6; b++) {
			double *v = (double *)s[j].samples[__builtin_ctz(BITS[b])];
			double amp = b < 3 ? 2730 : 640, p1 = 40 + (double)rng_below(&r, 260),
			       p2 = 40 + (double)rng_below(&r, 260);
			for (int f = 0; f < FRAMES; f++)
				v[f] = amp * (0.6 * sin(2 * M_PI * f / p1) + 0.4 * cos(2 * M_PI * f / p2 + j));
		}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(fit_clip(s, JOINTS, FRAMES, 0, 0, &fitted, &d), MH_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fitted_keys = 0;
	for (int j = 0; j < JOINTS; j++)
		for (int b = 0; b < 6; b++) {
			fitted_keys += fitted.tracks[j].channels[b].nkeys;
			assert_within(&fitted.tracks[j].channels[b], s[j].samples[__builtin_ctz(BITS[b])],
				      FRAMES, fit_tolerance(BITS[b]));
		}
	printf("the same of smooth motion: %u keys in %.1f ms\n", fitted_keys,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	clip_free(&fitted);
	clip_free(&src);
	free_samples(s, JOINTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tolerances_follow_the_bit),
		cmocka_unit_test(a_constant_is_one_key_at_frame_0),
		cmocka_unit_test(a_line_is_two_keys_with_its_slope),
		cmocka_unit_test(a_sine_is_a_key_every_few_frames),
		cmocka_unit_test(a_step_is_two_keys_and_its_holds),
		cmocka_unit_test(a_corner_is_a_key_with_two_eases),
		cmocka_unit_test(still_ends_are_held_not_keyed),
		cmocka_unit_test(out_of_range_values_name_their_frame),
		cmocka_unit_test(bad_lengths_and_tolerances_are_refused),
		cmocka_unit_test(random_engine_channels_refit),
		cmocka_unit_test(engine_channels_with_rounding_refit),
		cmocka_unit_test(the_sample_tigrex_refits),
		cmocka_unit_test(the_sample_tigrex_clips_refit),
		cmocka_unit_test(a_still_clip_keeps_its_length),
		cmocka_unit_test(a_tigrex_sized_clip_is_timed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
