/* SPDX-License-Identifier: MIT */
/* Tests of codecs/quat: Euler angles as quaternions (Rz Ry Rx), and
 * runs of frames sampled from rotation channels against curve_sample
 * and quat_euler frame by frame (libm's sin and cos): the same rotation
 * within 1e-15, of q and -q the one nearer the last frame's, at small
 * angles and at angles far past the kernel's reduction range. */
#include <math.h>

#include "curve.h"
#include "faults.h"
#include "quat.h"
#include "rng.h"
#include "testlib.h"

static void quarter_turns(void **state)
{
	(void)state;
	double q[4], h = sqrt(0.5);
	quat_euler((const double[]){M_PI / 2, 0, 0}, q);
	assert_float_equal(q[0], h, 1e-15);
	assert_float_equal(q[1], 0, 1e-15);
	assert_float_equal(q[3], h, 1e-15);
	/* Rz Ry Rx: X first, then Y: x y z w = (1/2, 1/2, -1/2, 1/2). */
	quat_euler((const double[]){M_PI / 2, M_PI / 2, 0}, q);
	const double want[4] = {0.5, 0.5, -0.5, 0.5};
	for (int i = 0; i < 4; i++)
		assert_float_equal(q[i], want[i], 1e-15);
}

/* A rotation channel of n random keys, slopes up to `slope`. */
static void random_channel(struct rng *r, struct clip_channel *ch, uint32_t bit, uint32_t n,
			   int slope)
{
	*ch = (struct clip_channel){.bit = bit};
	int16_t frame = (int16_t)rng_range(r, 0, 10);
	for (uint32_t i = 0; i < n; i++) {
		struct clip_key k = {(int16_t)rng_next(r), frame,
				     (int16_t)((int)rng_range(r, 0, 2 * (uint32_t)slope) - slope),
				     (int16_t)((int)rng_range(r, 0, 2 * (uint32_t)slope) - slope)};
		assert_non_null(clip_add_key(ch, k));
		frame = (int16_t)(frame + rng_range(r, 1, 30));
	}
}

static void runs_as_frame_by_frame(int slope, double tolerance)
{
	struct rng r = {(uint64_t)slope + 1};
	struct quat_run run;
	assert_true(quat_run_init(&run, 400));
	for (int round = 0; round < 60; round++) {
		struct clip_channel ch[3];
		const struct clip_channel *rot[3];
		for (int a = 0; a < 3; a++) {
			random_channel(&r, &ch[a], CLIP_ROT_X << a, rng_range(&r, 0, 8), slope);
			rot[a] = round % 4 == a ? NULL : &ch[a]; /* an axis without a channel */
		}
		uint32_t frames = rng_range(&r, 1, 400);
		quat_run_sample(&run, rot, frames);
		double last[4] = {0, 0, 0, 1};
		for (uint32_t f = 0; f < frames; f++) {
			double e[3], q[4], dot = 0, same = 0;
			for (int a = 0; a < 3; a++)
				e[a] = rot[a] ? curve_radians(curve_sample(rot[a], f)) : 0;
			quat_euler(e, q);
			for (int i = 0; i < 4; i++) {
				dot += run.q[i][f] * last[i];
				same += run.q[i][f] * q[i];
			}
			assert_true(dot >= 0);
			assert_float_equal(fabs(same), 1, tolerance);
			for (int i = 0; i < 4; i++) {
				assert_float_equal(run.q[i][f], same < 0 ? -q[i] : q[i], tolerance);
				last[i] = run.q[i][f];
			}
		}
		for (int a = 0; a < 3; a++)
			free(ch[a].keys);
	}
	quat_run_free(&run);
}

static void small_angles(void **state)
{
	(void)state;
	runs_as_frame_by_frame(200, 1e-15);
}

/* Steep slopes: angles of thousands of radians; and the steepest over
 * the longest span (frames -32768 to 32767, slopes +-32767): about 1e5
 * radians at frame 0, each side of the kernel's range (libm's past it). */
static void huge_angles(void **state)
{
	(void)state;
	runs_as_frame_by_frame(32767, 1e-9);
	struct clip_channel ch = {.bit = CLIP_ROT_X};
	assert_non_null(clip_add_key(&ch, (struct clip_key){0, -32768, 0, 32767}));
	assert_non_null(clip_add_key(&ch, (struct clip_key){0, 32767, -32767, 0}));
	const struct clip_channel *rot[3] = {&ch, &ch, &ch};
	struct quat_run run;
	assert_true(quat_run_init(&run, 9000));
	quat_run_sample(&run, rot, 9000);
	bool past = false, within = false;
	for (uint32_t f = 0; f < 9000; f++) {
		double a = curve_radians(curve_sample(&ch, f)), q[4], same = 0;
		past |= fabs(a / 2) > 1e5;
		within |= fabs(a / 2) < 1e5 && fabs(a / 2) > 9e4;
		quat_euler((const double[]){a, a, a}, q);
		for (int i = 0; i < 4; i++)
			same += run.q[i][f] * q[i];
		assert_float_equal(fabs(same), 1, 1e-9);
	}
	assert_true(past && within);
	quat_run_free(&run);
	free(ch.keys);
}

static void allocation_failure(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct quat_run run;
	long live = faults_live;
	faults_arm(0);
	bool ok = quat_run_init(&run, 10);
	assert_true(faults_disarm());
	assert_false(ok);
	quat_run_free(&run);
	assert_int_equal(faults_live, live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quarter_turns),
		cmocka_unit_test(small_angles),
		cmocka_unit_test(huge_angles),
		cmocka_unit_test(allocation_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
