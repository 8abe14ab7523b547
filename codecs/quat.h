/* SPDX-License-Identifier: MIT */
/* Rotations as unit quaternions (x y z w): the engine's Euler angles,
 * composed Rz Ry Rx (mhfu-clip(5) "Channels and units"), one at a time
 * or a clip's rotation channels at every frame, the way model.glb
 * (gltf.h) samples them.  Pure: no I/O, no globals. */
#ifndef MH_QUAT_H
#define MH_QUAT_H

#include <stdbool.h>
#include <stdint.h>

#include "clip.h"

/* Euler angles in radians as a quaternion. */
void quat_euler(const double e[3], double q[4]);

/* Room for sampling runs of up to `frames` frames. */
struct quat_run {
	double *q[4];      /* the quaternions, a component an array */
	double *raw[3];    /* scratch: a channel's values, free between samplings */
	double *cos[3], *sin[3], *dot;
	double *all;       /* what the arrays point into */
};

/* false when out of memory (quat_run_free all the same). */
bool quat_run_init(struct quat_run *r, uint32_t frames);
void quat_run_free(struct quat_run *r);

/* The rotation the channels rot (X, Y, Z; NULL: angle 0) play at frames
 * 0 .. frames - 1 into r->q, as curve_sample tells them.  Of q and -q,
 * the same rotation, each frame has the one nearer the last frame's
 * (frame 0: nearer the identity), so that viewers blending components
 * do not spin. */
void quat_run_sample(struct quat_run *r, const struct clip_channel *const rot[3],
		     uint32_t frames);

#endif
