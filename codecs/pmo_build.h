/* SPDX-License-Identifier: MIT */
/* A fresh PMO laid out from a description (mhfu-archive(5) "PMO"), where
 * pmo_encode can only write back a PMO it decoded.
 *
 * The layout is the games': the 0x40 header, then the mesh, group, remap,
 * bone-palette and material tables in that order, each 16-aligned, then
 * the geometry region inline (never in a companion): per group its
 * display list, vertex buffer and index buffer, each aligned to 16
 * (MHFU) or 4 (MHP3rd), zeros between, the region padded to 16.  A remap
 * table is always written.  Each group's list is
 *
 *     ORIGIN, BASE 0, [IADDR], VADDR, VTYPE, PRIM..., RET
 *
 * one PRIM for up to 0xFFFF indices (or vertices); a triangle list
 * longer than that is drawn in PRIMs of 0xFFFF (21845 triangles each).
 * The header's cull radius is its largest scale component.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_PMO_BUILD_H
#define MH_PMO_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "pmo.h"

#define PMO_BUILD_PRIM_MAX 0xFFFFu /* a PRIM's count field */

struct pmo_build_group {
	uint8_t material;           /* an index into its mesh's remap run */
	uint32_t vtype;             /* the VTYPE argument; its index bits are set
				       here: u16 with indices, none without */
	const uint8_t *vertices;    /* vertex_count vertices, the type's stride each */
	uint32_t vertex_count;
	uint8_t prim;               /* enum pmo_prim, below PMO_RECTANGLES + 1 */
	const uint16_t *indices;    /* NULL: the vertices drawn in order */
	uint32_t count;             /* indices (or vertices) drawn */
	const struct pmo_bone *palette; /* applied before the group draws */
	uint8_t palette_count;
};

struct pmo_build_mesh {
	float scale[4];             /* MHP3rd's record only */
	float uv_scale[2];
	float uv_offset[2];         /* MHP3rd's record only */
	uint32_t lighting, blend;
	const uint8_t *remap;       /* remap_count material indices */
	uint8_t remap_count;
	const struct pmo_build_group *groups;
	uint16_t group_count;
};

struct pmo_build {
	enum pmo_version version;
	float scale[3];             /* the header's */
	const struct pmo_build_mesh *meshes;
	uint16_t mesh_count;
	const struct pmo_material *materials;
	uint16_t material_count;
};

/* The PMO b describes, malloc'ed into *out (the caller's).  MH_ERANGE,
 * naming the mesh or group, for what the format cannot hold: more than
 * 0xFFFF groups, remap entries or palette pairs in all; a group's
 * material past its remap run, a remap entry past the materials, a
 * palette slot past 7, an index past the vertices or an unindexed count
 * past them, a primitive type past PMO_RECTANGLES, a count past
 * PMO_BUILD_PRIM_MAX for any primitive but a triangle list, a buffer 16
 * MiB or more from its list's ORIGIN (VADDR and IADDR reach 24 bits), a
 * PMO of 4 GiB or more.  MH_ENOMEM. */
enum mh_err pmo_build(const struct pmo_build *b, uint8_t **out, size_t *len, struct mh_diag *d);

#endif
