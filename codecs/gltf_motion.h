/* SPDX-License-Identifier: MIT */
/* One glTF animation (gltf_read.h) as the engine's joint values at every
 * frame, for a key fitter to turn into a clip: the inverse of model.glb's
 * motions (gltf.h).
 *
 * The rig: skeleton s's bone b is the node named "joint NN" (NN = b, two
 * digits or more; MHP3rd: a space and the bone's name may follow), as
 * model.glb names them.  Refused, each with the node's or bone's name: a
 * node named "joint ..." that is no bone of s, two nodes of one bone, a
 * bone without a node, a joint node whose parent is not its bone's
 * parent's node (a root bone's node may hang under any node that is not
 * a joint: "rig" or Blender's armature).
 *
 * The file's joint frames may differ from the skeleton's by a fixed
 * rotation per bone (Blender's importer has an option turning bones
 * to point at their children): the rest rotations tell it (C_b = R_b^T C_parent
 * R'_b, R the skeleton's bind rotation, R' the node's rest rotation) and
 * it is undone (R_b(t) = C_parent R'_b(t) C_b^T, T_b(t) = C_parent
 * T'_b(t)); for model.glb itself every C is the identity.
 *
 * Frames: 0 .. L, L = round(the last key time of the channels on joints
 * * GLTF_FPS), at most GLTF_MOTION_MAX_FRAMES - 1; frame f is sampled at
 * gltf_frame_time(f), as model.glb stores its times.
 *
 * Per joint a channel targets ("animated"):
 *   rot[a]  the local rotation as Euler angles about X, Y, Z (a = 0, 1,
 *           2), composed Rz Ry Rx, in raw units (4096 = 90 degrees),
 *           unwrapped: of the two angle triples that give a frame's
 *           rotation (X, Y, Z and X + 8192, 8192 - Y, Z + 8192), each
 *           angle shifted by whole turns (16384) to lie within half a
 *           turn of the frame before's (frame 0: of the guide's, the
 *           clip being replaced; 0 without), the triple nearest where
 *           the angles were heading (the frame before's plus its change
 *           from the one before it) is taken.  So no angle jumps by more
 *           than half a turn, and a rotation passing Y = +-90 degrees
 *           keeps on its way.  Where the guide has the joint's X at the
 *           frame, X leans toward it as far as the file's precision
 *           leaves X loose (gltf_motion_lean): a clip written back as it
 *           was keeps its X near Y = +-90 degrees, where X alone is noise.
 *           Without a rotation channel: the node's rest rotation at
 *           every frame.
 *   loc[a]  the local translation in raw location units (16 = 1.0, the
 *           skeleton's positions' unit); without a translation channel
 *           the node's rest translation.
 *   moves[a] loc[a] leaves the bone's bind offset (position[a] * 16) by
 *           more than GLTF_MOTION_BIND_EPS at some frame: the axis needs
 *           a location channel (model.glb's translation keeps the bind
 *           offset on an axis the track has no channel for).
 * A scale channel on a joint is refused unless it stays within 0.001 of
 * 1 (the engine plays no scale); weights channels, and channels on nodes
 * that are not joints, are skipped and counted.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_GLTF_MOTION_H
#define MH_GLTF_MOTION_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "gltf_read.h"
#include "skeleton.h"

/* A key's frame is a signed short: frames 0 .. 32767. */
#define GLTF_MOTION_MAX_FRAMES 32768u
/* Raw location units a translation may differ from the bind offset and
 * still count as the bind offset (float noise of an export). */
#define GLTF_MOTION_BIND_EPS 0.05

struct gltf_joint_motion {
	int32_t node;        /* the joint's node in the asset */
	bool animated;       /* a channel of the animation targets the node */
	bool moves[3];       /* per axis X Y Z: needs a location channel */
	float *rot[3];       /* per axis: frames values, raw rotation units; NULL
				when not animated */
	float *loc[3];       /* per axis: frames values, raw location units; NULL
				when not animated */
};

struct gltf_motion {
	char *name;          /* the animation's name */
	uint32_t frames;     /* L + 1 */
	uint32_t njoints;    /* the skeleton's bones */
	struct gltf_joint_motion *joints; /* per bone */
	uint32_t skipped;    /* channels not on a joint, or weights */
};

/* The clip a motion replaces, which the file's angles are read near:
 * angle() gives bone b's angle about axis ax (0 X, 1 Y, 2 Z) at frame f
 * of it in raw units, false where it has none. */
struct gltf_motion_guide {
	bool (*angle)(const void *ctx, uint32_t b, unsigned ax, uint32_t f, double *raw);
	const void *ctx;
};

/* The one animation of asset a on skeleton s, read near `guide` (NULL:
 * none, angles start near 0).  Refused (MH_ECORRUPT):
 * no animation, or several (their count and names said), an animation
 * reaching no joint, the rig faults above, two channels of one path on
 * one joint, a scale, more frames than GLTF_MOTION_MAX_FRAMES.  On
 * success the caller owns *m (gltf_motion_free). */
enum mh_err gltf_motion_read(const struct gltf_asset *a, const struct skeleton *s,
			     const struct gltf_motion_guide *guide, struct gltf_motion *m,
			     struct mh_diag *d);

void gltf_motion_free(struct gltf_motion *m);

/* Rotation matrix m (column-major 3x3) as Euler angles in radians,
 * composed Rz Ry Rx: each angle within half a turn of prev's, the
 * triple nearest `ahead` (see rot above). */
void gltf_motion_euler(const double m[9], const double prev[3], const double ahead[3],
		       double out[3]);

/* Angles out (gltf_motion_euler's of m, radians) with X moved toward
 * `hint` by at most GLTF_MOTION_ROT_NOISE / cos Y and Z with it, X - Z
 * (X + Z where sin Y < 0) kept as m has it.  m's elements carry the
 * file's rounding (a 16-bit quaternion's, some 1e-4), which X alone,
 * read from elements of the size of cos Y, carries divided by cos Y;
 * moved so, the rotation leaves m's by at most sqrt 2
 * GLTF_MOTION_ROT_NOISE more than out did (X and Z turn about axes cos Y
 * apart). */
#define GLTF_MOTION_ROT_NOISE 1e-4
void gltf_motion_lean(const double m[9], double hint, double out[3]);

#endif
