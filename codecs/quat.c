/* SPDX-License-Identifier: MIT */
#include "quat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "simd.h"

/* Rz Ry Rx as a unit quaternion x y z w, from the cosines and sines of
 * the half angles about X, Y, Z. */
static void half_angle_quat(const double c[3], const double s[3], double q[4])
{
	q[0] = s[0] * c[1] * c[2] - c[0] * s[1] * s[2];
	q[1] = c[0] * s[1] * c[2] + s[0] * c[1] * s[2];
	q[2] = c[0] * c[1] * s[2] - s[0] * s[1] * c[2];
	q[3] = c[0] * c[1] * c[2] + s[0] * s[1] * s[2];
}

/* Rz Ry Rx of Euler angles (radians) as a unit quaternion x y z w. */
void quat_euler(const double e[3], double q[4])
{
	double c[3], s[3];
	for (int a = 0; a < 3; a++) {
		c[a] = cos(e[a] / 2);
		s[a] = sin(e[a] / 2);
	}
	half_angle_quat(c, s, q);
}

bool quat_run_init(struct quat_run *r, uint32_t frames)
{
	double **arrays[] = {&r->q[0], &r->q[1], &r->q[2], &r->q[3], &r->raw[0], &r->raw[1],
			     &r->raw[2], &r->cos[0], &r->cos[1], &r->cos[2], &r->sin[0],
			     &r->sin[1], &r->sin[2], &r->dot};
	size_t n = sizeof arrays / sizeof arrays[0];
	r->all = malloc((size_t)(frames ? frames : 1) * n * sizeof *r->all);
	for (size_t i = 0; r->all && i < n; i++)
		*arrays[i] = r->all + (size_t)frames * i;
	return r->all != NULL;
}

void quat_run_free(struct quat_run *r)
{
	free(r->all);
	r->all = NULL;
}

static uint64_t bits_of(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

static double of_bits(uint64_t b)
{
	double v;
	memcpy(&v, &b, sizeof v);
	return v;
}

/* Beyond this, sin and cos are libm's: the reduction below is exact
 * only while k * P1 and k * P2 are (k, the quadrant, under 2^20). */
#define SINCOS_RUN_MAX 1e5

/* The sines and cosines of x[0..n), within an ulp or two of libm's (the
 * same floats in every sample tried): most of the cost of a large
 * model.glb is here, and libm's sincos, one call a value, takes three
 * times as long as this loop, which the compiler vectorizes: x reduced
 * to r in [-pi/4, pi/4] by the nearest multiple k of pi/2 (pi/2 in
 * three parts, the first two of 33 bits), Taylor polynomials of r to
 * the 17th and 18th power (the next terms are below 1e-19), then
 * swapped and signed by k's quadrant, without a branch.  Operations on
 * doubles only, in the written order: the same bits on every machine
 * and in every clone (simd.h). */
VECTOR_CLONES
static void sincos_run(const double *restrict x, uint32_t n, double *restrict sn,
		       double *restrict cs)
{
	const double P1 = 0x1.921fb544p+0, P2 = 0x1.0b4611a6p-34, P3 = 0x1.3198a2e037073p-69;
	const double TWO_OVER_PI = 0x1.45f306dc9c883p-1, ROUND = 0x1.8p52;
	for (uint32_t i = 0; i < n; i++) {
		double v = x[i], t = v * TWO_OVER_PI + ROUND, k = t - ROUND;
		uint64_t q = bits_of(t); /* k's low bits */
		double r = ((v - k * P1) - k * P2) - k * P3, z = r * r;
		double s = r + r * z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 +
			   z * (1.0 / 362880 + z * (-1.0 / 39916800 + z * (1.0 / 6227020800 +
			   z * (-1.0 / 1307674368000 + z * (1.0 / 355687428096000))))))));
		double c = 1 + z * (-0.5 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320 +
			   z * (-1.0 / 3628800 + z * (1.0 / 479001600 + z * (-1.0 / 87178291200 +
			   z * (1.0 / 20922789888000 + z * (-1.0 / 6402373705728000)))))))));
		uint64_t swap = (uint64_t)0 - (q & 1), sb = bits_of(s), cb = bits_of(c);
		sn[i] = of_bits(((sb & ~swap) | (cb & swap)) ^ (q & 2) << 62);
		cs[i] = of_bits(((cb & ~swap) | (sb & swap)) ^ ((q + 1) & 2) << 62);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!(fabs(x[i]) <= SINCOS_RUN_MAX))
			sincos(x[i], &sn[i], &cs[i]);
}

/* The half-angle cosines and sines of a rotation channel (NULL: none,
 * angle 0) at every frame. */
static void half_angles(const struct clip_channel *ch, uint32_t frames, double *raw,
			double *c, double *s)
{
	if (!ch) {
		for (uint32_t f = 0; f < frames; f++) {
			c[f] = 1;
			s[f] = 0;
		}
		return;
	}
	curve_sample_frames(ch, frames, raw);
	for (uint32_t f = 0; f < frames; f++)
		raw[f] = curve_radians(raw[f]) / 2;
	sincos_run(raw, frames, s, c);
}

/* Every frame's quaternion (half_angle_quat) and its dot product with
 * the last frame's (frame 0: with the identity), vectorized. */
VECTOR_CLONES
static void quats_run(struct quat_run *restrict sp, uint32_t frames)
{
	const double *c0 = sp->cos[0], *c1 = sp->cos[1], *c2 = sp->cos[2];
	const double *s0 = sp->sin[0], *s1 = sp->sin[1], *s2 = sp->sin[2];
	double *restrict x = sp->q[0], *restrict y = sp->q[1], *restrict z = sp->q[2];
	double *restrict w = sp->q[3], *restrict dot = sp->dot;
	for (uint32_t f = 0; f < frames; f++) {
		x[f] = s0[f] * c1[f] * c2[f] - c0[f] * s1[f] * s2[f];
		y[f] = c0[f] * s1[f] * c2[f] + s0[f] * c1[f] * s2[f];
		z[f] = c0[f] * c1[f] * s2[f] - s0[f] * s1[f] * c2[f];
		w[f] = c0[f] * c1[f] * c2[f] + s0[f] * s1[f] * s2[f];
	}
	if (frames)
		dot[0] = x[0] * 0 + y[0] * 0 + z[0] * 0 + w[0] * 1;
	for (uint32_t f = 1; f < frames; f++)
		dot[f] = x[f] * x[f - 1] + y[f] * y[f - 1] + z[f] * z[f - 1] + w[f] * w[f - 1];
}

void quat_run_sample(struct quat_run *r, const struct clip_channel *const rot[3],
		     uint32_t frames)
{
	for (int a = 0; a < 3; a++)
		half_angles(rot[a], frames, r->raw[a], r->cos[a], r->sin[a]);
	quats_run(r, frames);
	/* The dot product of a frame's quaternion with the last one kept is
	 * that one's sign times dot[f], exactly (negation is exact). */
	bool negated = false;
	for (uint32_t f = 0; f < frames; f++) {
		double d = negated ? -r->dot[f] : r->dot[f];
		negated = d < 0;
		for (int i = 0; negated && i < 4; i++)
			r->q[i][f] = -r->q[i][f];
	}
}
