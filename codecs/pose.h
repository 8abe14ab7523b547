/* SPDX-License-Identifier: MIT */
/* Joint transforms as the engine composes them (mhfu-clip(5) "Channels
 * and units"): a joint's local transform is its rotation, Euler angles
 * composed Rz Ry Rx, and its translation from the parent; its world
 * transform is its parent's times its local one.  A track drives a
 * joint's rotation whole (an axis without a channel is 0) and each
 * location axis it has a channel for (the others keep the bind offset);
 * a joint without a track keeps its bind rotation and offset.  Shared by
 * model.glb (gltf.c) and the port checks (port_tear.c).
 *
 * A transform is 12 doubles: a column-major 3x3 rotation (element row
 * i, column c at [3c + i]), then the translation.
 *
 * Pure: no I/O, no globals, no allocation. */
#ifndef MH_POSE_H
#define MH_POSE_H

#include <stdbool.h>
#include <stdint.h>

#include "clip.h"
#include "skeleton.h"

#define POSE_XF 12 /* doubles in a transform */

/* Euler angles in radians, composed Rz Ry Rx, as a column-major 3x3. */
void pose_euler_matrix(const double e[3], double m[9]);

/* world = parent * (rotation m, then translation t); parent NULL: a
 * root's, world = (m, t). */
void pose_compose(const double *parent, const double m[9], const double t[3],
		  double world[POSE_XF]);

/* p through transform xf (out = R p + t), and back (out = R^T (p - t),
 * R being a rotation).  out may not alias p. */
void pose_apply(const double xf[POSE_XF], const double p[3], double out[3]);
void pose_unapply(const double xf[POSE_XF], const double p[3], double out[3]);

/* The parents the transforms walk: a bone's own, unless it is outside
 * the skeleton, the bone itself, or closes a loop (then the bone is a
 * root).  seen: scratch of s->nbones. */
void pose_parents(const struct skeleton *s, int32_t *parent, uint32_t *seen);

/* Bone b's bind transform in model space, its parent's (parent[], from
 * pose_parents) first: world[b] = world[parent] * local (bind rotation
 * and offset).  done[] marks the bones computed (false to start); a
 * parent after its child is fine, the recursion bounded by the
 * loop-free parents. */
void pose_bind_world(const struct skeleton *s, const int32_t *parent, uint32_t b,
		     double (*world)[POSE_XF], bool *done);

/* The channel of bit `bit` a track plays: the last listed (curve.h),
 * NULL if none or it has no keys. */
const struct clip_channel *pose_channel(const struct clip_track *t, uint32_t bit);

/* Bone b's local transform at `frame` (whole or fractional, curve.h):
 * played by track t, or its bind pose when t is NULL; rotation into m,
 * translation (model units) into tr. */
void pose_local(const struct skeleton_bone *b, const struct clip_track *t, double frame,
		double m[9], double tr[3]);

#endif
