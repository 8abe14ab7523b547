/* SPDX-License-Identifier: MIT */
/* An animation channel's value at a time (gltf_read.h), as the glTF 2.0
 * specification's "Interpolation" section defines it. */
#include "gltf_read.h"

#include <math.h>
#include <string.h>

/* The last key at or before t (0 before the first key). */
static uint32_t key_before(const float *times, uint32_t n, double t)
{
	uint32_t lo = 0, hi = n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (times[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void normalize(double *q)
{
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (n > 0) {
		for (int i = 0; i < 4; i++)
			q[i] /= n;
	} else {
		q[0] = q[1] = q[2] = 0;
		q[3] = 1;
	}
}

/* Spherical interpolation from a to b by s, the shorter way. */
static void slerp(const double *a, const double *b_in, double s, double *out)
{
	double b[4], dot = 0;
	for (int i = 0; i < 4; i++)
		dot += a[i] * b_in[i];
	double sign = dot < 0 ? -1 : 1;
	for (int i = 0; i < 4; i++)
		b[i] = sign * b_in[i];
	dot *= sign;
	double wa = 1 - s, wb = s;
	if (dot < 0.9995) {
		double angle = acos(dot), sa = sin(angle);
		wa = sin((1 - s) * angle) / sa;
		wb = sin(s * angle) / sa;
	}
	for (int i = 0; i < 4; i++)
		out[i] = wa * a[i] + wb * b[i];
}

void gltf_sampler_value(const struct gltf_sampler *s, bool rotation, double t, double *out)
{
	uint32_t n = s->input.count, comps = s->comps;
	if (!n || !comps || !s->output.v) {
		for (uint32_t c = 0; c < comps; c++)
			out[c] = rotation && c == 3;
		return;
	}
	const float *times = s->input.v, *v = s->output.v;
	bool cubic = s->interp == GLTF_CUBICSPLINE;
	/* Key k's value starts at v + k * stride (+ comps past the in-tangent). */
	size_t stride = (size_t)comps * (cubic ? 3 : 1), value = cubic ? comps : 0;
	uint32_t k = key_before(times, n, t);
	double a[4], b[4];
	if (!(t > times[0]) || t >= times[n - 1] || s->interp == GLTF_STEP) {
		if (t >= times[n - 1])
			k = n - 1;
		for (uint32_t c = 0; c < comps; c++)
			out[c] = v[k * stride + value + c];
	} else {
		double t0 = times[k], t1 = times[k + 1], dt = t1 - t0, u = (t - t0) / dt;
		const float *p0 = v + k * stride + value, *p1 = v + (k + 1) * stride + value;
		if (cubic) {
			/* p0's out-tangent follows it, p1's in-tangent precedes it. */
			const float *m0 = p0 + comps, *m1 = p1 - comps;
			double u2 = u * u, u3 = u2 * u;
			for (uint32_t c = 0; c < comps; c++)
				out[c] = (2 * u3 - 3 * u2 + 1) * p0[c] + (u3 - 2 * u2 + u) * dt * m0[c] +
					 (-2 * u3 + 3 * u2) * p1[c] + (u3 - u2) * dt * m1[c];
		} else if (rotation && comps == 4) {
			for (int c = 0; c < 4; c++) {
				a[c] = p0[c];
				b[c] = p1[c];
			}
			normalize(a);
			normalize(b);
			slerp(a, b, u, out);
		} else {
			for (uint32_t c = 0; c < comps; c++)
				out[c] = p0[c] + u * (p1[c] - p0[c]);
		}
	}
	if (rotation && comps == 4)
		normalize(out);
}

void gltf_channel_sample(const struct gltf_animation *an, const struct gltf_channel *c,
			 double t, double *out)
{
	gltf_sampler_value(&an->samplers[c->sampler], c->path == GLTF_PATH_ROTATION, t, out);
}
