/* SPDX-License-Identifier: MIT */
#include "pose.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "curve.h"

void pose_euler_matrix(const double e[3], double m[9])
{
	double cx = cos(e[0]), sx = sin(e[0]), cy = cos(e[1]), sy = sin(e[1]);
	double cz = cos(e[2]), sz = sin(e[2]);
	double r[9] = {cy * cz, cy * sz, -sy,
		       cz * sx * sy - cx * sz, cx * cz + sx * sy * sz, cy * sx,
		       cx * cz * sy + sx * sz, cx * sy * sz - cz * sx, cy * cx};
	memcpy(m, r, sizeof r);
}

void pose_compose(const double *parent, const double m[9], const double t[3],
		  double world[POSE_XF])
{
	if (!parent) {
		memcpy(world, m, 9 * sizeof *m);
		memcpy(world + 9, t, 3 * sizeof *t);
		return;
	}
	const double *pw = parent;
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < 3; i++)
			world[c * 3 + i] = pw[i] * m[c * 3] + pw[3 + i] * m[c * 3 + 1] +
					   pw[6 + i] * m[c * 3 + 2];
	for (int i = 0; i < 3; i++)
		world[9 + i] = pw[9 + i] + pw[i] * t[0] + pw[3 + i] * t[1] + pw[6 + i] * t[2];
}

void pose_apply(const double xf[POSE_XF], const double p[3], double out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = xf[9 + i] + xf[i] * p[0] + xf[3 + i] * p[1] + xf[6 + i] * p[2];
}

void pose_unapply(const double xf[POSE_XF], const double p[3], double out[3])
{
	double d[3] = {p[0] - xf[9], p[1] - xf[10], p[2] - xf[11]};
	for (int c = 0; c < 3; c++)
		out[c] = xf[c * 3] * d[0] + xf[c * 3 + 1] * d[1] + xf[c * 3 + 2] * d[2];
}

void pose_parents(const struct skeleton *s, int32_t *parent, uint32_t *seen)
{
	uint32_t n = s->nbones;
	for (uint32_t b = 0; b < n; b++) {
		int32_t p = s->bones[b].parent;
		parent[b] = p >= 0 && (uint32_t)p < n && (uint32_t)p != b ? p : -1;
		seen[b] = 0;
	}
	for (uint32_t b = 0; b < n; b++) {
		/* Walk up, marking with this walk's number: meeting a mark of
		 * the same walk is a loop, cut where it closes. */
		int32_t at = (int32_t)b;
		while (parent[at] >= 0 && seen[at] != b + 1) {
			seen[at] = b + 1;
			if (seen[parent[at]] == b + 1) {
				parent[at] = -1;
				break;
			}
			at = parent[at];
		}
	}
}

void pose_bind_world(const struct skeleton *s, const int32_t *parent, uint32_t b,
		     double (*world)[POSE_XF], bool *done)
{
	if (done[b])
		return;
	double m[9], t[3];
	pose_local(&s->bones[b], NULL, 0, m, t);
	int32_t p = parent[b];
	if (p >= 0)
		pose_bind_world(s, parent, (uint32_t)p, world, done);
	pose_compose(p >= 0 ? world[p] : NULL, m, t, world[b]);
	done[b] = true;
}

const struct clip_channel *pose_channel(const struct clip_track *t, uint32_t bit)
{
	const struct clip_channel *played = NULL;
	for (uint32_t c = 0; c < t->nchannels; c++)
		if (t->channels[c].bit == bit)
			played = &t->channels[c];
	return played && played->nkeys ? played : NULL;
}

void pose_local(const struct skeleton_bone *b, const struct clip_track *t, double frame,
		double m[9], double tr[3])
{
	static const uint32_t rot_bits[3] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
	static const uint32_t loc_bits[3] = {CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z};
	double e[3];
	for (int a = 0; a < 3; a++) {
		e[a] = b->rotation[a];
		tr[a] = b->position[a];
	}
	if (t)
		for (int a = 0; a < 3; a++) {
			const struct clip_channel *rot = pose_channel(t, rot_bits[a]);
			const struct clip_channel *loc = pose_channel(t, loc_bits[a]);
			e[a] = rot ? curve_radians(curve_sample(rot, frame)) : 0;
			if (loc)
				tr[a] = curve_display(loc_bits[a], curve_sample(loc, frame));
		}
	pose_euler_matrix(e, m);
}
