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
 *   node n        "rig", the common root of the bones' roots.
 *   then          the meshes' nodes: per body (gltf_model_with) that
 *                 draws a triangle "body" (body i > 0: "body i"), mesh
 *                 k for the k-th such body, skinned by skin 0 when every
 *                 bone its weights name is in the skeleton, else static;
 *                 without one, "stand-in": per bone an octahedron at its
 *                 joint and a spike from its parent's joint to it (the
 *                 base on the parent, the tip on the bone), so a viewer
 *                 shows the pose without the PMO.
 *   skin 0        every bone a joint (node index = bone index), inverse
 *                 bind matrices from the nodes' bind transforms.
 *   a body's mesh one primitive per PMO group that draws a triangle, in
 *                 group order, "extras": {"pmo_group": g} (and on the
 *                 mesh {"pmo": i} when there are two bodies or more):
 *                 mode TRIANGLES from pmo_group_triangles, the group's
 *                 vertices in PMO order (neither welded nor reordered, so
 *                 an export matches back by primitive and index).
 *                 POSITION as decoded (model units, bind pose; min/max),
 *                 NORMAL normalised (a zero one +Y), TEXCOORD_0 where the
 *                 vertex type has UVs or the material binds a texture,
 *                 COLOR_0 where it has a colour, and when skinned
 *                 JOINTS_0/WEIGHTS_0: weight k on the group's
 *                 slot_bone[k], one bone's weights merged, zeros
 *                 dropped, the 4 largest kept and normalised to 1; an
 *                 unweighted type rides slot 0 with weight 1.
 *   materials     one per PMO material, the bodies' in order: base
 *                 colour its RGBA / 255, alphaMode BLEND when a mesh
 *                 drawing with it sets lighting bit 2, double-sided (the
 *                 games do not cull), not metallic; its TMH image as
 *                 baseColorTexture when the caller gave that image's PNG.
 *   images        each PNG given, "imageNN" after the bank's image
 *                 view, image/png from a bufferView; one texture each,
 *                 all on one repeating sampler.
 *   no skeleton   (s NULL): only the bodies' nodes, static, no skin, no
 *                 animation.
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
 * Deterministic: the same skeleton, pack and bodies give the same bytes.  Pure:
 * no I/O, no globals. */
#ifndef MH_GLTF_H
#define MH_GLTF_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "diag.h"
#include "skeleton.h"

/* Frames a second.  The format notes give no frame rate: 30 is the
 * PSP games' display rate, an assumption. */
#define GLTF_FPS 30

/* Frame f's time in seconds as stored: the least float not before
 * f / GLTF_FPS.  The nearest one may lie a hair before it (500 / 30 is
 * 16.666666, 499.99998 frames), and a reader that turns times into
 * frames and then truncates (Blender's importer and exporter) would lose
 * the clip's last frame. */
static inline float gltf_frame_time(uint32_t f)
{
	float t = (float)((double)f / GLTF_FPS);
	/* t * GLTF_FPS is exact in a double (24 + 5 bits) */
	return (double)t * GLTF_FPS < (double)f ? nextafterf(t, INFINITY) : t;
}

/* The largest file gltf_model and gltf_model_with make; a bigger one fails with MH_ERANGE
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

/* A body: a PMO and its texture bank's images, already encoded as PNG
 * (png[k] the bytes of image k, png_len[k] their length; a NULL entry,
 * or png NULL, leaves the image out). */
struct pmo;
struct gltf_body {
	const struct pmo *pmo;
	const uint8_t *const *png;
	const size_t *png_len;
	uint32_t images;
};

/* Body i's name (bodies[i] of gltf_model_with), its mesh's and its
 * node's: "body", then "body 1", "body 2" ...; pmo_pac_apply_gltf finds a
 * PAC's bodies by it. */
#define GLTF_BODY_NAME_MAX 32
void gltf_body_name(size_t i, char name[GLTF_BODY_NAME_MAX]);

/* The same with bodies[0..nbodies) as the meshes instead of the
 * stand-in (which stays when no body draws a triangle).  s NULL: the
 * bodies as static meshes, no rig, no skin, no animation (pack and map
 * unused); MH_ERANGE when nothing draws then.  A PMO error of
 * pmo_group_triangles is passed on. */
enum mh_err gltf_model_with(const struct skeleton *s, const struct anim *pack,
			    const struct records *map, const struct gltf_body *bodies,
			    size_t nbodies, uint8_t **out, size_t *len, struct mh_diag *d);

/* model.glb of the model PAC in pac[0..len) alone (gltf_pac.c): its
 * first skeleton that decodes as the rig, its first pack that does as
 * the motions, and each PMO member that decodes (at most two) with the
 * texture bank after it, as gltf_model_with makes them.  A port's
 * out.pac, which no archive holds yet, is shown so.  The PAC's errors,
 * gltf_model_with's. */
enum mh_err gltf_model_of_pac(const uint8_t *pac, size_t len, uint8_t **out, size_t *out_len,
			      struct mh_diag *d);

#endif
