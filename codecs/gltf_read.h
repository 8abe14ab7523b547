/* SPDX-License-Identifier: MIT */
/* glTF 2.0 read back: the asset a user writes from model.glb (gltf.h),
 * Blender's export of it most of all, as a model of nodes, skins,
 * animations and meshes, each array of numbers decoded to floats.
 *
 * What is read:
 *   container  GLB (header, JSON chunk, optional BIN chunk; chunks of
 *              other types skipped) or JSON text (.gltf) whose buffers
 *              are "data:...;base64," URIs.  A buffer naming a file
 *              is refused: the reader sees one file.
 *   nodes      name, children (a node has at most one parent, no loop),
 *              translation / rotation / scale, or matrix (then also
 *              taken apart into those three), mesh, skin.
 *   skins      joints, inverseBindMatrices (MAT4 float) when given.
 *   animations name; samplers: input (SCALAR float, strictly
 *              increasing, finite), output (translation, scale: VEC3
 *              float; rotation: VEC4 float or normalized byte / short,
 *              signed or not; weights: SCALAR, the same types),
 *              interpolation LINEAR (default), STEP, CUBICSPLINE (per
 *              key in-tangent, value, out-tangent); channels: sampler,
 *              target node and path.
 *   meshes     name, extras; primitives: mode, indices (unsigned byte,
 *              short or int, each below the vertex count), POSITION,
 *              NORMAL (VEC3 float), TEXCOORD_0 (VEC2), COLOR_0 (VEC3 or
 *              VEC4), JOINTS_0 (VEC4 unsigned byte or short), WEIGHTS_0
 *              (VEC4), each float or, where the spec allows,
 *              normalized integers; all of one count; extras.
 *   extras     of a mesh and a primitive: the members whose value is an
 *              integer ("pmo_group", "pmo"); others are skipped.
 *   scene      "scene", else scene 0: its root nodes.
 * Accessors: componentType, normalized, count, type, byteOffset,
 * bufferView (none: zeros), a view's byteStride; every read is bounded
 * by its view, every view by its buffer, every buffer by the bytes
 * there are.  Sparse accessors are refused (Blender writes them only
 * for shape keys, which the games do not have).  Materials, textures,
 * images and cameras are not read.
 *
 * A refusal names the JSON path and says line:col in the JSON text
 * ("animations[0].samplers[3].output: accessor 17 reads past bufferView
 * 4"); in a GLB, d->offset is also the byte offset in the file.  A
 * container fault gives the byte offset alone.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_GLTF_READ_H
#define MH_GLTF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Decoded numbers past this many bytes, in all, are refused (MH_ERANGE):
 * a small file naming one big accessor a million times. */
#define GLTF_READ_MAX_BYTES (256u << 20)

/* An accessor's elements as floats: element i's component c at
 * v[i * comps + c]; normalized integers mapped to [-1, 1] or [0, 1] as
 * the spec says, other integers as they are. */
struct gltf_floats {
	const float *v; /* owned by the asset; NULL when count is 0 */
	uint32_t count, comps;
};

struct gltf_node {
	char *name;               /* "" when it has none */
	int32_t parent;           /* -1: a root */
	uint32_t *children, nchildren;
	double translation[3], rotation[4], scale[3]; /* rotation x y z w */
	bool has_matrix;          /* matrix given (then TRS is taken from it) */
	double matrix[16];        /* column-major; identity when not given */
	int32_t mesh, skin;       /* -1: none */
};

struct gltf_skin {
	char *name;
	uint32_t *joints, njoints; /* node indices */
	struct gltf_floats inverse_binds; /* count njoints, comps 16; count 0: none */
	int32_t skeleton;         /* node, -1 when not given */
};

enum gltf_path { GLTF_PATH_TRANSLATION, GLTF_PATH_ROTATION, GLTF_PATH_SCALE, GLTF_PATH_WEIGHTS };
enum gltf_interp { GLTF_LINEAR, GLTF_STEP, GLTF_CUBICSPLINE };

struct gltf_sampler {
	struct gltf_floats input;  /* key times, seconds (comps 1) */
	/* Per key `comps` values (3 translation / scale, 4 rotation x y z w,
	 * the morph target count for weights); CUBICSPLINE: 3 * comps per
	 * key, in-tangent, value, out-tangent.  output.comps is per element
	 * of the accessor (1 for weights). */
	struct gltf_floats output;
	uint32_t comps;
	enum gltf_interp interp;
};

struct gltf_channel {
	uint32_t sampler;
	int32_t node;              /* -1: no target node (the spec allows it) */
	enum gltf_path path;
};

struct gltf_animation {
	char *name;
	struct gltf_sampler *samplers;
	uint32_t nsamplers;
	struct gltf_channel *channels;
	uint32_t nchannels;
};

/* Integer members of an "extras" object. */
struct gltf_extra {
	char *key;
	int64_t value;
};

struct gltf_primitive {
	uint32_t mode;             /* 4 TRIANGLES when not given */
	int32_t material;          /* index into the asset's materials, -1: none */
	uint32_t *indices;         /* nindices of them, NULL: none (drawn in order) */
	uint32_t nindices;
	uint32_t nvertices;        /* POSITION's count */
	/* Attributes, count nvertices each; count 0: absent. */
	struct gltf_floats position, normal, texcoord0, color0, joints0, weights0;
	struct gltf_extra *extras;
	uint32_t nextras;
};

struct gltf_mesh {
	char *name;
	struct gltf_primitive *primitives;
	uint32_t nprimitives;
	struct gltf_extra *extras;
	uint32_t nextras;
};

struct gltf_asset {
	struct gltf_node *nodes;
	uint32_t nnodes;
	struct gltf_skin *skins;
	uint32_t nskins;
	struct gltf_animation *animations;
	uint32_t nanimations;
	struct gltf_mesh *meshes;
	uint32_t nmeshes;
	char **material_names;     /* per material its name ("" when none) */
	uint32_t nmaterials;
	int32_t scene;             /* -1: no scene */
	uint32_t *scene_nodes, nscene_nodes; /* that scene's roots */
	/* The decoded accessors (what the views above point into). */
	float **decoded;
	uint32_t naccessors;
	size_t decoded_bytes;
};

/* Reads the GLB or glTF JSON in buf[0..len).  On success the caller owns
 * *a (gltf_asset_free); on failure *a is empty and d says what and where.
 * MH_ETRUNC: a GLB cut short; MH_EUNKNOWN: neither GLB nor a JSON
 * object; MH_ESYNTAX: the JSON does not parse; MH_ECORRUPT: glTF the
 * reader refuses; MH_ERANGE: past GLTF_READ_MAX_BYTES; MH_ENOMEM. */
enum mh_err gltf_read(const uint8_t *buf, size_t len, struct gltf_asset *a, struct mh_diag *d);

void gltf_asset_free(struct gltf_asset *a);

/* The node named `name`, -1 when none is. */
int32_t gltf_node_named(const struct gltf_asset *a, const char *name);

/* The integer extra `key` of a list, *value set; false when absent. */
bool gltf_extra_int(const struct gltf_extra *extras, uint32_t n, const char *key,
		    int64_t *value);

/* ---- sampling (gltf_sample.c) ------------------------------------------- */

/* The value channel c of animation an plays at time t (seconds) into
 * out[0 .. the sampler's comps): before the first key the first key's
 * value, after the last the last's; between keys STEP holds the earlier
 * key, LINEAR interpolates (rotations: spherical, the shorter way),
 * CUBICSPLINE follows the Hermite curve whose tangents are the keys'
 * out- and in-tangents times the keys' time difference.  A rotation is
 * returned normalized (the identity when its value is 0). */
void gltf_channel_sample(const struct gltf_animation *an, const struct gltf_channel *c,
			 double t, double *out);

/* The same for a sampler; `rotation`: its values are quaternions. */
void gltf_sampler_value(const struct gltf_sampler *s, bool rotation, double t, double *out);

#endif
