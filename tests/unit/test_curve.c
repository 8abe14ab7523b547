/* SPDX-License-Identifier: MIT */
/* Sampling clips as the engine plays them (codecs/curve.h), against
 * values worked out by hand from the Hermite form in mhfu-clip(5):
 *   x = x0 (1 - 3s^2 + 2s^3) + x1 (3s^2 - 2s^3)
 *       + ease_out0 d (1 - s)^2 + ease_in1 d (s^2 - s),  d = t - t0.
 * The frames are chosen so every value is exact in binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "curve.h"
#include "rng.h"


/* A channel of bit `bit` over keys (value, frame, ease_in, ease_out),
 * in the order given. */
static struct clip_channel channel_of(uint32_t bit, const struct clip_key *keys, uint32_t n)
{
	struct clip_channel ch = {.bit = bit};
	for (uint32_t i = 0; i < n; i++)
		assert_non_null(clip_add_key(&ch, keys[i]));
	return ch;
}

static void free_channel(struct clip_channel *ch)
{
	free(ch->keys);
}

/* Exact comparisons: the cases are built to be exact. */
#define assert_value(ch, frame, want) assert_true(curve_sample(&(ch), (frame)) == (want))

static void held_before_the_first_key_and_after_the_last(void **state)
{
	(void)state;
	const struct clip_key k[] = {{100, 10, 7, 0}, {200, 20, 0, -9}};
	struct clip_channel ch = channel_of(CLIP_ROT_X, k, 2);
	assert_value(ch, 0, 100);
	assert_value(ch, -300, 100);
	assert_value(ch, 9.5, 100);
	assert_value(ch, 20.25, 200);
	assert_value(ch, 1000, 200);
	free_channel(&ch);
}

static void at_a_key_the_keys_value(void **state)
{
	(void)state;
	const struct clip_key k[] = {{-40, 0, 0, 13}, {100, 10, -20, 11}, {-7, 30, 5, 0}};
	struct clip_channel ch = channel_of(CLIP_LOC_Y, k, 3);
	assert_value(ch, 0, -40);
	assert_value(ch, 10, 100);
	assert_value(ch, 30, -7);
	free_channel(&ch);
}

/* Zero slopes: the smoothstep between the values.  s = 1/2 gives the
 * mean; s = 1/4: 100 * 27/32 + 200 * 5/32 = 84.375 + 31.25. */
static void between_keys_with_zero_slopes(void **state)
{
	(void)state;
	const struct clip_key k[] = {{100, 10, 0, 0}, {200, 20, 0, 0}};
	struct clip_channel ch = channel_of(CLIP_ROT_Y, k, 2);
	assert_value(ch, 15, 150);
	assert_value(ch, 12.5, 115.625);
	assert_value(ch, 17.5, 184.375);
	free_channel(&ch);
}

/* Slopes: the left key's ease_out (4) and the right key's ease_in (-2);
 * the others (99) play no part.  At t = 5 (s = 1/2, d = 5):
 *   150 + 4 * 5 * 1/4 + (-2) * 5 * (-1/4) = 150 + 5 + 2.5
 * at t = 2.5 (s = 1/4, d = 2.5):
 *   115.625 + 4 * 2.5 * 9/16 + (-2) * 2.5 * (-3/16) = 115.625 + 5.625 + 0.9375 */
static void between_keys_with_ease_slopes(void **state)
{
	(void)state;
	const struct clip_key k[] = {{100, 0, 99, 4}, {200, 10, -2, 99}};
	struct clip_channel ch = channel_of(CLIP_ROT_Z, k, 2);
	assert_value(ch, 5, 157.5);
	assert_value(ch, 2.5, 122.1875);
	/* The curve leaves at slope 4, arrives at slope -2. */
	double h = 1.0 / 1024;
	assert_true(curve_sample(&ch, h) - 100 > 4 * h * 0.99);
	assert_true(curve_sample(&ch, h) - 100 < 4 * h * 1.01);
	assert_true(curve_sample(&ch, 10 - h) - 200 > 2 * h * 0.99);
	assert_true(curve_sample(&ch, 10 - h) - 200 < 2 * h * 1.01);
	free_channel(&ch);
}

static void a_single_key_holds_everywhere(void **state)
{
	(void)state;
	const struct clip_key k[] = {{-50, 7, 3, 3}};
	struct clip_channel ch = channel_of(CLIP_LOC_X, k, 1);
	assert_value(ch, -5, -50);
	assert_value(ch, 0, -50);
	assert_value(ch, 7, -50);
	assert_value(ch, 7.5, -50);
	assert_value(ch, 100, -50);
	assert_true(curve_sample_after(&ch, 7) == -50);
	free_channel(&ch);
}

/* Keys sharing a frame: the curve arrives at the first and leaves from
 * the last, a step. */
static void keys_at_the_same_frame(void **state)
{
	(void)state;
	const struct clip_key mid[] = {{0, 0, 0, 0}, {100, 10, 0, 0}, {300, 10, 0, 0},
				       {300, 20, 0, 0}};
	struct clip_channel ch = channel_of(CLIP_ROT_X, mid, 4);
	assert_value(ch, 5, 50);
	assert_value(ch, 10, 100);
	assert_true(curve_sample_after(&ch, 10) == 300);
	assert_value(ch, 15, 300);
	assert_true(curve_sample_after(&ch, 5) == 50); /* away from a key: the same */
	free_channel(&ch);

	/* At the first frame: held at the first of them, then from the last:
	 * 2 + (12 - 2) * 1/2 at frame 10. */
	const struct clip_key first[] = {{1, 5, 0, 0}, {2, 5, 0, 0}, {12, 15, 0, 0}};
	ch = channel_of(CLIP_ROT_X, first, 3);
	assert_value(ch, 0, 1);
	assert_value(ch, 5, 1);
	assert_true(curve_sample_after(&ch, 5) == 2);
	assert_value(ch, 10, 7);
	free_channel(&ch);

	/* At the last frame: arrives at the first, holds the last after. */
	const struct clip_key last[] = {{0, 0, 0, 0}, {5, 10, 0, 0}, {9, 10, 0, 0}};
	ch = channel_of(CLIP_ROT_X, last, 3);
	assert_value(ch, 10, 5);
	assert_true(curve_sample_after(&ch, 10) == 9);
	assert_value(ch, 11, 9);
	free_channel(&ch);
}

/* Keys stored out of frame order play in frame order. */
static void keys_in_frame_order_whatever_their_order(void **state)
{
	(void)state;
	const struct clip_key k[] = {{200, 20, 0, 0}, {100, 10, 0, 0}};
	struct clip_channel ch = channel_of(CLIP_ROT_X, k, 2);
	assert_value(ch, 0, 100);
	assert_value(ch, 15, 150);
	assert_value(ch, 30, 200);
	free_channel(&ch);
}

/* Sampling a run of frames gives curve_sample's values exactly: keys in
 * frame order (with ties, negative frames, frames past the run) and out
 * of it, random values and slopes. */
static void a_run_of_frames_as_frame_by_frame(void **state)
{
	(void)state;
	struct rng r = {5};
	double run[300];
	for (int round = 0; round < 400; round++) {
		struct clip_channel ch = {.bit = CLIP_ROT_X};
		uint32_t n = rng_range(&r, 0, 12);
		int16_t frame = (int16_t)rng_range(&r, 0, 20) - 10;
		for (uint32_t i = 0; i < n; i++) {
			struct clip_key k = {(int16_t)rng_next(&r), frame, (int16_t)rng_next(&r),
					     (int16_t)rng_next(&r)};
			assert_non_null(clip_add_key(&ch, k));
			frame = (int16_t)(frame + rng_range(&r, 0, 40));
			if (round % 4 == 3)
				frame = (int16_t)rng_range(&r, 0, 200) - 20; /* out of order */
		}
		uint32_t count = rng_range(&r, 0, 300);
		curve_sample_frames(&ch, count, run);
		for (uint32_t f = 0; f < count; f++)
			assert_memory_equal(&run[f], &(double){curve_sample(&ch, f)}, sizeof(double));
		free_channel(&ch);
	}
}

/* A span between two keys, sampled alone, gives the channel's values
 * there exactly; a span whose second key is not later holds the first's
 * value. */
static void a_span_as_its_channel(void **state)
{
	(void)state;
	struct rng r = {6};
	double whole[200], span[200];
	for (int round = 0; round < 200; round++) {
		struct clip_key k[2] = {{(int16_t)rng_next(&r), (int16_t)rng_range(&r, 0, 90),
					 (int16_t)rng_next(&r), (int16_t)rng_next(&r)},
					{(int16_t)rng_next(&r), 0, (int16_t)rng_next(&r),
					 (int16_t)rng_next(&r)}};
		k[1].frame = (int16_t)(k[0].frame + (int16_t)rng_range(&r, 1, 100));
		struct clip_channel ch = channel_of(CLIP_LOC_Y, k, 2);
		curve_sample_frames(&ch, 200, whole);
		curve_sample_span(&k[0], &k[1], (uint32_t)k[0].frame, (uint32_t)k[1].frame, span);
		for (int f = k[0].frame; f <= k[1].frame; f++)
			assert_memory_equal(&span[f], &whole[f], sizeof(double));
		free_channel(&ch);
	}
	const struct clip_key held[2] = {{7, 10, 3, 3}, {9, 10, 0, 0}};
	curve_sample_span(&held[0], &held[1], 4, 6, span);
	assert_true(span[4] == 7 && span[5] == 7 && span[6] == 7);
}

static void no_keys_and_nan(void **state)
{
	(void)state;
	struct clip_channel none = {.bit = CLIP_ROT_X};
	assert_true(curve_sample(&none, 3) == 0);
	assert_true(curve_sample_after(&none, 3) == 0);
	const struct clip_key k[] = {{7, 10, 0, 0}, {9, 20, 0, 0}};
	struct clip_channel ch = channel_of(CLIP_ROT_X, k, 2);
	assert_value(ch, NAN, 7);
	free_channel(&ch);
}

static void units(void **state)
{
	(void)state;
	int axis;
	assert_int_equal(curve_kind_of(CLIP_ROT_Y, &axis), CURVE_ROT);
	assert_int_equal(axis, 1);
	assert_int_equal(curve_kind_of(CLIP_LOC_Z, &axis), CURVE_LOC);
	assert_int_equal(axis, 2);
	assert_int_equal(curve_kind_of(CLIP_SCL_X, &axis), CURVE_SCL);
	assert_int_equal(axis, 0);
	assert_int_equal(curve_kind_of(CLIP_U2, &axis), CURVE_OTHER);
	assert_int_equal(axis, -1);
	assert_int_equal(curve_kind_of(0x1000, NULL), CURVE_OTHER);
	assert_int_equal(curve_kind_of(CLIP_ROT_X | CLIP_ROT_Y, NULL), CURVE_OTHER);
	assert_true(curve_display(CLIP_ROT_X, 4096) == 90);
	assert_true(curve_display(CLIP_ROT_Z, -2048) == -45);
	assert_true(curve_display(CLIP_LOC_X, 24) == 1.5);
	assert_true(curve_display(CLIP_SCL_Y, 384) == 1.5);
	assert_true(curve_display(CLIP_U2, 16) == 16);
	assert_string_equal(curve_display_unit(CLIP_ROT_X), "deg");
	assert_string_equal(curve_display_unit(CLIP_LOC_Y), "units");
	assert_string_equal(curve_display_unit(CLIP_SCL_Z), "scale");
	assert_string_equal(curve_display_unit(CLIP_U4), "raw");
	double r = curve_radians(8192); /* pi */
	assert_true(r > 3.14159265 && r < 3.14159266);
}

/* Two tracks: one with rotation, location, scale, u2, an unnamed bit, a
 * channel without keys and a channel listed twice; one without channels. */
static void pose_of_every_track(void **state)
{
	(void)state;
	struct clip c = {0};
	struct clip_track *t = clip_add_track(&c, 0);
	assert_non_null(t);
	const struct {
		uint32_t bit;
		struct clip_key a, b;
	} chans[] = {
		{CLIP_ROT_X, {0, 0, 0, 0}, {4096, 10, 0, 0}},   /* frame 5: 2048, pi/4 */
		{CLIP_LOC_Y, {32, 0, 0, 0}, {32, 10, 0, 0}},    /* 2.0 */
		{CLIP_SCL_Z, {512, 0, 0, 0}, {0, 10, 0, 0}},    /* 256: 1.0 */
		{CLIP_U2, {16, 0, 0, 0}, {16, 10, 0, 0}},
		{0x1000, {5, 0, 0, 0}, {5, 10, 0, 0}},          /* not one of the twelve */
		{CLIP_LOC_X, {160, 0, 0, 0}, {160, 10, 0, 0}},  /* replaced below: */
		{CLIP_LOC_X, {-16, 0, 0, 0}, {-48, 10, 0, 0}},  /* -32: -2.0 */
	};
	for (size_t i = 0; i < sizeof chans / sizeof chans[0]; i++) {
		struct clip_channel *ch = clip_add_channel(t, chans[i].bit);
		assert_non_null(ch);
		assert_non_null(clip_add_key(ch, chans[i].a));
		assert_non_null(clip_add_key(ch, chans[i].b));
	}
	assert_non_null(clip_add_channel(t, CLIP_ROT_Y)); /* no keys: not driven */
	assert_non_null(clip_add_track(&c, 0));

	struct curve_pose p[2];
	memset(p, 0xff, sizeof p);
	curve_pose_at(&c, 5, p);
	assert_int_equal(p[0].driven, CLIP_ROT_X | CLIP_LOC_Y | CLIP_SCL_Z | CLIP_U2 | CLIP_LOC_X);
	assert_true(p[0].raw[3] == 2048 && p[0].raw[7] == 32 && p[0].raw[11] == 256);
	assert_true(p[0].raw[1] == 16 && p[0].raw[6] == -32 && p[0].raw[4] == 0);
	assert_true(p[0].rot[0] > 0.78539816 && p[0].rot[0] < 0.78539817);
	assert_true(p[0].rot[1] == 0 && p[0].rot[2] == 0);
	assert_true(p[0].loc[0] == -2 && p[0].loc[1] == 2 && p[0].loc[2] == 0);
	assert_true(p[0].scl[0] == 1 && p[0].scl[1] == 1 && p[0].scl[2] == 1);
	assert_int_equal(p[1].driven, 0);
	for (int i = 0; i < 3; i++)
		assert_true(p[1].rot[i] == 0 && p[1].loc[i] == 0 && p[1].scl[i] == 1);
	for (int i = 0; i < CURVE_CHANNELS; i++)
		assert_true(p[1].raw[i] == 0);

	curve_pose_at(&c, 100, p); /* held at the last keys */
	assert_true(p[0].raw[3] == 4096 && p[0].scl[2] == 0 && p[0].loc[0] == -3);
	clip_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(held_before_the_first_key_and_after_the_last),
		cmocka_unit_test(at_a_key_the_keys_value),
		cmocka_unit_test(between_keys_with_zero_slopes),
		cmocka_unit_test(between_keys_with_ease_slopes),
		cmocka_unit_test(a_single_key_holds_everywhere),
		cmocka_unit_test(keys_at_the_same_frame),
		cmocka_unit_test(keys_in_frame_order_whatever_their_order),
		cmocka_unit_test(a_run_of_frames_as_frame_by_frame),
		cmocka_unit_test(a_span_as_its_channel),
		cmocka_unit_test(no_keys_and_nan),
		cmocka_unit_test(units),
		cmocka_unit_test(pose_of_every_track),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
