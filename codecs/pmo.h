/* SPDX-License-Identifier: MIT */
/* PMO model geometry (mhfu-archive(5) "PMO"), both versions: MHFU's
 * "1.0" and MHP3rd's "102".
 *
 * A 0x40 header, then the mesh, group, remap, bone-palette and material
 * tables, then the geometry region: per group a GE display list and the
 * vertex and index buffers it draws.
 *
 * Decoding keeps the PMO's bytes (and its companion's) and decodes from
 * them: the header and tables into fields, each group's display list into
 * its command words (every word, unknown opcodes as they are), the draws
 * the list makes, and the vertices they reach as floats.  Encoding starts
 * from the kept bytes and writes back the fields the model holds (header,
 * tables, command words), so what was decoded encodes back byte for byte,
 * alignment bytes, tails and unknown commands included; where inputs lay
 * structures over each other, the later one in that order wins.
 *
 * The companion: big MHP3rd models keep their geometry region in the next
 * DATA.BIN entry.  Such a PMO's geometry offset equals its own length
 * while its size still counts the region; the region is then the
 * companion's first (size - geometry offset) bytes, every offset into it
 * counting from the companion's byte 0, and the companion's bytes after
 * it are its tail, kept.  pmo_needs_companion tells such a PMO from its
 * first 0x40 bytes and length.
 *
 * Vertices are edited in place (pmo_vertex_set): the new values are
 * quantised into the kept bytes at the offsets the decoder read them
 * from; nothing else changes. */
#ifndef MH_PMO_H
#define MH_PMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define PMO_MAGIC "pmo\0"
#define PMO_HEADER 0x40u
#define PMO_MESH_MHFU 0x18u
#define PMO_MESH_P3RD 0x30u
#define PMO_GROUP 0x10u
#define PMO_MATERIAL 0x10u
#define PMO_MAX_WEIGHTS 8u

enum pmo_version {
	PMO_MHFU = 0, /* "1.0\0" (MHFU, MHP2G) */
	PMO_P3RD,     /* "102\0" (MHP3rd) */
};

/* GE opcodes (a command word's top byte) the lists use or the walker
 * must know; any other is kept and skipped. */
enum pmo_op {
	PMO_NOP = 0x00,
	PMO_VADDR = 0x01,
	PMO_IADDR = 0x02,
	PMO_PRIM = 0x04,
	PMO_BEZIER = 0x05,
	PMO_SPLINE = 0x06,
	PMO_JUMP = 0x08,
	PMO_BJUMP = 0x09,
	PMO_CALL = 0x0A,
	PMO_RET = 0x0B,
	PMO_END = 0x0C,
	PMO_BASE = 0x10,
	PMO_VTYPE = 0x12,
	PMO_OFFSETADDR = 0x13,
	PMO_ORIGIN = 0x14,
	PMO_FFACE = 0x9B,
};

/* PRIM types (bits 16-18 of its argument). */
enum pmo_prim {
	PMO_POINTS = 0,
	PMO_LINES,
	PMO_LINE_STRIP,
	PMO_TRIANGLES,
	PMO_STRIP,
	PMO_FAN,
	PMO_RECTANGLES,
};

/* A VTYPE argument, its fields and the vertex layout it gives.  Format
 * fields are the raw bit values: 0 none, 1 8-bit, 2 16-bit, 3 f32 (colour:
 * 4 565, 5 5551, 6 4444, 7 8888; 1-3 take no bytes). */
struct pmo_vtype {
	uint32_t word;       /* the 24-bit argument as stored */
	uint8_t uv, color, normal, pos, weight, index;
	uint8_t weights;     /* 1-8 */
	uint8_t morphs;      /* 1-8 */
	bool through;
	/* Byte offsets in a vertex (valid when the attribute is present). */
	uint8_t weight_at, uv_at, color_at, normal_at, pos_at;
	uint8_t size;        /* one morph target, padded */
	uint32_t stride;     /* size x morphs: what an unindexed PRIM advances */
};

void pmo_vtype_of(uint32_t word, struct pmo_vtype *vt);

/* Bytes of one index of index format i (0 none, 1, 2, 4). */
unsigned pmo_index_size(unsigned i);

struct pmo_header {
	enum pmo_version version;
	uint32_t size;          /* header + tables + region (its pad included) */
	float cull_radius;
	float scale[3];         /* MHFU's position scale */
	uint16_t mesh_count, material_count;
	uint32_t mesh_off, group_off, remap_off, palette_off, material_off, geometry_off;
	uint8_t reserved[8];    /* 0x38, zero in the games, kept */
};

struct pmo_mesh {
	float scale[4];         /* MHP3rd: x, y, z and a fourth, kept; MHFU:
				 * the header's, not stored in the record */
	float uv_scale[2];
	float uv_offset[2];     /* MHP3rd only; 0 for MHFU */
	uint32_t lighting;      /* bit 0 lighting, 1 fog, 2 alpha blend, 31 enable */
	uint32_t blend;         /* a GE blend-mode command word, or 0 */
	uint8_t remap_count, pad; /* pad: the 0 byte after the count, kept */
	uint16_t remap_first, group_count, group_first;
};

struct pmo_material {
	uint32_t color;         /* RGBA, red in the low byte */
	uint32_t ambient;
	uint8_t texture;        /* TMH image index, 0xFF untextured */
	uint8_t pad[3];         /* zero in the games, kept */
	uint32_t kept;          /* leftover memory on some MHFU models */
};

struct pmo_bone {
	uint8_t slot, bone;     /* palette slot `slot` now holds skeleton bone `bone` */
};

/* What one PRIM draws. */
struct pmo_draw {
	uint32_t cmd;           /* the PRIM's index in its group's list */
	uint8_t prim;           /* enum pmo_prim (7: kept, draws nothing) */
	uint16_t count;
	bool indexed;
	bool fface;             /* FFACE bit 0 in force: winding reversed */
	uint32_t vtype;         /* the VTYPE argument in force */
	uint32_t first_vertex;  /* its VADDR, in vertices past the group's buffer */
	uint32_t first_index;   /* indexed: its first in the group's indices */
};

/* A vertex as floats (mhfu-archive(5) "PMO", values): position in model
 * units (scale applied), normal, UV (UV scale and offset applied),
 * colour as RGBA8 (255s without one), weights (weight k blends the bone
 * in palette slot k, the group's slot_bone[k]; 0s past the type's). */
struct pmo_vertex {
	float pos[3];
	float normal[3];
	float uv[2];
	uint8_t rgba[4];
	float weights[PMO_MAX_WEIGHTS];
};

struct pmo_group {
	/* the record */
	uint8_t material;       /* index into the owning mesh's remap run */
	uint8_t palette_count;
	uint16_t palette_first;
	uint32_t list_off, vertex_off, index_off; /* from the region's start */
	/* decoded */
	uint32_t mesh;          /* the mesh owning it */
	uint32_t *cmds;         /* the list's words, through its RET or END */
	uint32_t cmd_count;
	struct pmo_draw *draws;
	uint32_t draw_count;
	uint32_t *indices;      /* every index the indexed draws read, in order */
	uint32_t index_count;
	struct pmo_vtype vtype; /* the one vertex type the list sets */
	int16_t slot_bone[PMO_MAX_WEIGHTS]; /* bone in each slot once applied; -1 unset */
	uint32_t vertex_count;  /* highest vertex a draw reaches, plus one */
	struct pmo_vertex *vertices; /* the first morph target of each */
	uint64_t list_at;       /* where the list and the vertices are, in the */
	uint64_t vertex_at;     /*   bytes holding the region (raw or companion) */
};

struct pmo {
	struct pmo_header h;
	struct pmo_mesh *meshes;        /* h.mesh_count */
	struct pmo_group *groups;
	uint32_t group_count;           /* the meshes' group counts summed */
	uint8_t *remap;                 /* NULL when there is no remap table */
	uint32_t remap_count;           /* the meshes' remap counts summed */
	struct pmo_bone *palette;
	uint32_t palette_count;         /* the groups' palette counts summed */
	struct pmo_material *materials; /* h.material_count */
	bool external;                  /* the region is in the companion */
	uint8_t *raw;                   /* the PMO's bytes, tail included; */
	size_t raw_len;                 /*   vertex edits land here ... */
	uint8_t *companion;             /* ... or here: the companion's bytes */
	size_t companion_len;           /*   (NULL, 0 unless external) */
};

/* Whether the PMO in buf[0..len) keeps its region in a companion. */
bool pmo_needs_companion(const uint8_t *buf, size_t len);

/* Decodes the PMO in buf[0..len); companion[0..companion_len) is the
 * next entry, used only when pmo_needs_companion (NULL otherwise).  The
 * caller frees *p with pmo_free, also after a failure. */
enum mh_err pmo_decode(const uint8_t *buf, size_t len, const uint8_t *companion,
		       size_t companion_len, struct pmo *p, struct mh_diag *d);

/* pmo_decode without the vertices' values: every group's vertex_count
 * and draws, its vertices NULL.  It fails where pmo_decode fails, with
 * the same diagnosis: what a check of the structure (the rules) needs,
 * at a fraction of the cost. */
enum mh_err pmo_decode_structure(const uint8_t *buf, size_t len, const uint8_t *companion,
				 size_t companion_len, struct pmo *p, struct mh_diag *d);

/* A copy of src in *p, which owns all of its arrays: what pmo_decode of
 * src's bytes gives, without decoding them again.  The caller frees *p
 * with pmo_free, also after a failure (MH_ENOMEM). */
enum mh_err pmo_clone(const struct pmo *src, struct pmo *p, struct mh_diag *d);

/* The PMO's bytes and, when external, the companion's (else NULL, 0);
 * both malloc'ed and the caller's.  companion may be NULL for a PMO that
 * is not external.  MH_ERANGE when the model's counts no longer match
 * its arrays or a field lies past the bytes. */
enum mh_err pmo_encode(const struct pmo *p, uint8_t **out, size_t *len, uint8_t **companion,
		       size_t *companion_len, struct mh_diag *d);

void pmo_free(struct pmo *p);

/* Group g's material index (into p->materials): through its mesh's remap
 * run, or in order without a remap table; -1 when it points past either. */
int pmo_group_material(const struct pmo *p, uint32_t g);

/* ---- triangles (pmo_ge.c) ------------------------------------------------ */

/* The triangles one primitive draws from its n vertex numbers: a strip's
 * k-th is (v[k], v[k+1], v[k+2]) with the first two swapped on odd k,
 * XOR fface; a list's swap by fface alone; a fan's keep v[0] (swapped:
 * v[k+1], v[0], v[k+2]).  Degenerate triangles (a vertex twice) are
 * dropped; points, lines and rectangles draw none.  out has room for n;
 * returns the triangles written. */
size_t pmo_unroll(unsigned prim, const uint32_t *v, size_t n, bool fface, uint32_t (*out)[3]);

/* Every triangle group g draws, as vertex numbers in its buffer, in draw
 * order; *tris is malloc'ed (NULL when none) and the caller's. */
enum mh_err pmo_group_triangles(const struct pmo *p, uint32_t g, uint32_t (**tris)[3],
				size_t *count, struct mh_diag *d);

/* ---- vertices (pmo_vertex.c) -------------------------------------------- */

/* Sets vertex v of group g: each component that differs from the decoded
 * one is quantised to the nearest stored value and written into the kept
 * bytes where the decoder read it (a component equal to its decoded value
 * keeps its stored bytes), then the vertex is decoded again.  Refused,
 * with nothing written: a component the vertex type lacks or cannot
 * hold (a fixed-point position beyond [-128, 127]/128 or
 * [-32768, 32767]/32768 of the scale, a weight outside [0, 1], a normal
 * or UV beyond its format, a value not finite), and any change to a
 * vertex with morph targets, in through mode or without a position:
 * MH_ERANGE naming the group, vertex, field and the allowed range.
 * MH_ERANGE too for a group or vertex that does not exist. */
enum mh_err pmo_vertex_set(struct pmo *p, uint32_t g, uint32_t v, const struct pmo_vertex *nv,
			   struct mh_diag *d);

/* ---- a reshaped body read back (pmo_gltf.c) --------------------------------- */

/* Moves p's vertices to where bytes[0..len), a glTF 2.0 asset (.glb, or
 * .gltf with its buffers embedded) of model.glb's body as Blender
 * exports it, has them: the mesh of node "body" (or the only one), its
 * primitives' materials "material NN" the PMO's materials, the k-th
 * triangle of each material the k-th the PMO's groups of that material
 * draw (group by group, each in draw order), each corner in order.  A
 * corner off its vertex by more than a thousandth of a model unit moves
 * it (pmo_vertex_set: quantised, its other fields kept); *moved counts
 * the vertices set.  Refused with the reason: not glTF (gltf_read.h), no
 * body, a material the PMO has not, a material's triangle count changed
 * (MH_ERANGE: growing geometry is not supported), a position the format
 * cannot hold (pmo_vertex_set's range).  p may be partly moved on
 * failure: the caller drops it. */
enum mh_err pmo_apply_gltf(struct pmo *p, const uint8_t *bytes, size_t len, uint32_t *moved,
			   struct mh_diag *d);

/* The same for every body of a model PAC (pac[0..pac_len)) at once, as
 * its model.glb names them: its k-th PMO member that decodes (or keeps
 * its geometry in the next entry) is node "body" (k = 0) or "body k".
 * *out: the PAC with those members moved in place (malloc'ed, the
 * caller's; the same size), the other bytes as they were; a body the
 * asset lacks stays.  Animations are not read.  Refused: no body node
 * (or one mesh alone) for any PMO, a body whose PMO keeps its geometry
 * in the next entry (its N/mesh.glb takes it), and pmo_apply_gltf's
 * refusals. */
enum mh_err pmo_pac_apply_gltf(const uint8_t *pac, size_t pac_len, const uint8_t *bytes,
			       size_t len, uint8_t **out, size_t *out_len, uint32_t *moved,
			       struct mh_diag *d);

/* ---- internal: shared by pmo.c, pmo_ge.c and pmo_vertex.c ---------------- */

/* The bytes holding the region, and where it lies in them. */
struct pmo_region {
	const uint8_t *mem;
	uint64_t start, end;
};

/* Walks group g's list from the region (commands, draws, indices,
 * vertex count); *budget counts down the items it may still allocate. */
enum mh_err pmo_walk_group(const struct pmo_region *r, struct pmo_group *grp, uint32_t g,
			   uint64_t *budget, struct mh_diag *d);

/* Decodes group g's vertices (after pmo_walk_group) with its mesh; with
 * `values` false, only checks that they lie inside the region. */
enum mh_err pmo_decode_vertices(const struct pmo_region *r, const struct pmo *p,
				struct pmo_group *grp, uint32_t g, uint64_t *budget, bool values,
				struct mh_diag *d);

#endif
