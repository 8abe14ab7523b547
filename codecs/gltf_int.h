/* SPDX-License-Identifier: MIT */
/* model.glb's internals, shared by gltf.c (the BIN chunk, its accessors,
 * the rig, the motions and the file) and gltf_mesh.c (the PMO bodies:
 * meshes, materials, textures, images). */
#ifndef MH_GLTF_INT_H
#define MH_GLTF_INT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "gltf.h"
#include "float_text.h"
#include "strbuf.h"

/* glTF's enums (the OpenGL values). */
#define GL_SHORT 5122
#define GL_FLOAT 5126
#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963

/* The file being made. */
struct glb {
	uint8_t *bin;            /* the BIN chunk's data */
	size_t len, cap;
	struct strbuf views;     /* the bufferViews, comma-separated */
	struct strbuf accessors; /* the accessors, comma-separated */
	uint32_t nviews, naccessors;
	bool failed;             /* an allocation failed */
};

/* A float that JSON and the validator accept: non-finite becomes 0. */
static inline float glb_f32(double v)
{
	float f = (float)v;
	return isfinite(f) ? f : 0.0f;
}

/* The GLB writer (glb.c); its numbers are strbuf_f32's (float_text.h). */
/* A JSON string of printable ASCII: anything else is escaped. */
void glb_json_string(struct strbuf *sb, const char *s);
/* `text`, then v in decimal. */
void glb_text_int(struct strbuf *sb, const char *text, long long v);

/* Room for `more` bytes at a 4-byte boundary; false when out of memory. */
bool glb_reserve(struct glb *g, size_t more);
/* The bufferView of the bytes from `start` to the end; target 0: none. */
uint32_t glb_view(struct glb *g, size_t start, int target);
/* An accessor's opening up to its type: `{"bufferView":V,"componentType":T,`
 * then "normalized":true when asked, and "count":N. */
void glb_accessor_head(struct glb *g, uint32_t view, int type, bool normalized,
		       uint32_t count);
/* `count` floats of `comps` components each (1, 2, 3, 4 or 16), as one
 * accessor over a view of their own; with min and max when `bounds`. */
uint32_t glb_floats(struct glb *g, const float *v, uint32_t count, unsigned comps, bool bounds,
		    int target);
/* `count` unsigned integers of `comps` components, 16 or 32 bits wide. */
uint32_t glb_uints(struct glb *g, const uint32_t *v, uint32_t count, unsigned comps, int type,
		   int target);

/* ---- the bodies (gltf_mesh.c) --------------------------------------------- */

/* What the bodies add to the file: JSON array items, comma-separated. */
struct glb_bodies {
	struct strbuf meshes, materials, textures, images;
	uint32_t nmeshes;
	int32_t *mesh_of;        /* per body: its mesh, -1 when it draws nothing */
	bool *skinned;           /* per body: its mesh has JOINTS_0 and WEIGHTS_0 */
};

/* The bytes the bodies take in the file, at most, for the size check. */
uint64_t glb_bodies_size(const struct gltf_body *bodies, size_t n);

/* Appends the bodies' meshes, materials, textures and images; a body is
 * skinned when nbones is not 0 and every bone its weights name is below
 * it.  MH_ENOMEM, or an error of pmo_group_triangles. */
enum mh_err glb_put_bodies(struct glb *g, const struct gltf_body *bodies, size_t n,
			   uint32_t nbones, struct glb_bodies *out, struct mh_diag *d);

void glb_bodies_free(struct glb_bodies *b);

/* The stand-in mesh of n bones (bind transforms `world`, rotation
 * column-major then translation; `parent` -1 for a root), as JSON into
 * mesh; false when out of memory. */
bool glb_put_stand_in(struct glb *g, uint32_t n, const double (*world)[12],
		      const int32_t *parent, struct strbuf *mesh);

#endif
