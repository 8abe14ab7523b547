/* SPDX-License-Identifier: MIT */
/* model.glb: a rig and its motions as one glTF 2.0 binary file (GLB), for
 * Blender and any glTF viewer.
 *
 * What the file holds, in the engine's units and axes (Y up; location 1.0
 * is one unit of mhfu-archive(5) "SKELETON" positions, so a monster is
 * hundreds of units tall):
 *
 *   nodes 0..n-1  the bones, "joint NN" (MHP3rd: "joint NN NAME"), each a
 *                 child of its parent, at its bind pose: translation the
 *                 bind offset, rotation the bind Euler rotation composed
 *                 Rz Ry Rx as a quaternion (omitted when zero).  A parent
 *                 outside the skeleton, or one closing a loop, makes a root.
 *   node n        "stand-in", the mesh: per bone an octahedron at its joint
 *                 and a spike from its parent's joint to it (the base on the
 *                 parent, the tip on the bone), so a viewer shows the pose
 *                 without the PMO.  Skinned by skin 0 (every bone a joint,
 *                 inverse bind matrices from the nodes' bind transforms).
 *   animations    MHFU: one per executor entry entries/ lists (entries.h),
 *                 "entry NNN", every part's clip on its joints; a part
 *                 whose slot is empty leaves its joints at the bind pose.
 *                 MHP3rd: one per filled slot, "stream S slot NNN", each
 *                 track on the bone the pack's record map gives it
 *                 (records.h; gltf_model_mapped), a track the map puts
 *                 on no bone left out; without a map (gltf_model),
 *                 track i on bone i.
 *                 Sampled at every frame from 0 to the clip's last key
 *                 (mhfu-clip(5) "ENTRIES"), GLTF_FPS frames a second,
 *                 LINEAR: per driven joint a rotation channel (its
 *                 rotation channels as the engine plays them: cubic
 *                 Hermite with the keys' ease slopes, held outside the
 *                 keys, Euler Rz Ry Rx, an axis without a channel 0;
 *                 stored as normalized signed shorts) and,
 *                 when its track has location channels, a translation
 *                 channel (an axis without one keeps the bind offset).
 *                 Scale and the unnamed bits are not played.  An
 *                 animation that reaches no joint is left out.
 *
 * Deterministic: the same skeleton and pack give the same bytes.  Pure:
 * no I/O, no globals. */
#ifndef MH_GLTF_H
#define MH_GLTF_H

#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "diag.h"
#include "skeleton.h"

/* Frames a second.  The format notes give no frame rate: 30 is the
 * PSP games' display rate, an assumption. */
#define GLTF_FPS 30

/* The largest file gltf_model makes; a bigger one fails with MH_ERANGE
 * before it is allocated (a hostile pack asking for gigabytes). */
#define GLTF_MAX_BYTES (256u << 20)

/* GLB's header and chunk types (little-endian words). */
#define GLTF_MAGIC 0x46546C67u      /* "glTF" */
#define GLTF_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLTF_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

/* The GLB of skeleton s and, when pack is not NULL, its motions.  It
 * names no file or entry, so a PAC gives the same bytes in a DATA.BIN and
 * mounted alone.  *out is malloc'ed, owned by the caller.  Fails with
 * MH_ENOMEM, or MH_ERANGE when the file would exceed GLTF_MAX_BYTES or
 * the skeleton has no bone. */
enum mh_err gltf_model(const struct skeleton *s, const struct anim *pack, uint8_t **out,
		       size_t *len, struct mh_diag *d);

/* The same, an MHP3rd pack's tracks placed by record map `map` (made on
 * s; NULL: track i on bone i). */
struct records;
enum mh_err gltf_model_mapped(const struct skeleton *s, const struct anim *pack,
			      const struct records *map, uint8_t **out, size_t *len,
			      struct mh_diag *d);

#endif
