/* SPDX-License-Identifier: MIT */
/* PMO models for the tests, built byte by byte from mhfu-archive(5)
 * "PMO" (not with codecs/pmo, which they test): the same bytes for the
 * same seed and shape.
 *
 * Each group draws with a vertex type of its own: positions s8, s16 or
 * f32; UVs none, u8, u16 or f32; normals none, s8, s16 or f32; a colour
 * in one of the four formats, one taking no bytes, or none; with
 * skinning 1-8 weights of u8, u16 or f32.  Its list draws strips, lists
 * and fans, indexed u8 or u16 or unindexed (on MHP3rd some with a VADDR
 * of their own), some under FFACE 1, some with a command the walker does
 * not know.  Some groups' vertices have non-zero alignment bytes; bytes
 * follow the size (or, with a companion, the companion's region). */
#ifndef TESTS_MKPMO_H
#define TESTS_MKPMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mkpmo_shape {
	bool p3rd;                /* version 102, else 1.0 */
	unsigned meshes;          /* 1 or more */
	unsigned groups_per_mesh; /* 1 or more */
	unsigned vertices;        /* per group, about (3 or more) */
	bool skinned;             /* weights and a bone palette */
	bool remap;               /* a remap table (always on MHFU) */
	bool companion;           /* MHP3rd: the region in a companion entry */
	unsigned tail;            /* bytes after the size or the region */
};

struct mkpmo {
	uint8_t *pmo;             /* malloc'ed */
	size_t len;
	uint8_t *companion;       /* NULL unless shape.companion */
	size_t companion_len;
	uint32_t groups;
	uint32_t *group_vertices; /* per group, the vertices its draws reach */
	uint32_t vertices;        /* their sum */
	uint32_t unknown_cmds;    /* commands written that the walker does not know */
};

/* Builds a PMO of shape s from seed into *out (mkpmo_free frees it). */
void mkpmo_build(uint64_t seed, const struct mkpmo_shape *s, struct mkpmo *out);

/* The seed and shape a fuzzer's input picks: its first 8 bytes are the
 * seed, the next 4 the shape's switches and counts (missing bytes read
 * as zero).  Returns the seed. */
uint64_t mkpmo_shape_of(const uint8_t *data, size_t size, struct mkpmo_shape *s);

void mkpmo_free(struct mkpmo *m);

/* ---- bodies ------------------------------------------------------------
 * A PMO shaped like a retail monster's, for the sample archive: a closed
 * tube around each bone, from its parent's joint to its own (a root's
 * from just below it), in the bind pose; every group draws one indexed
 * triangle strip (u8 or u16 indices) with u16 UVs in [0, 1), s8 normals
 * and s16 positions covering the body; skinned, u8 weights to the bone
 * and its parent (blended near the parent's joint), the group's palette
 * setting slots 0 and 1; else static (no weights, no palette). */

struct mkpmo_bone {
	int32_t parent;    /* -1: a root */
	float at[3];       /* the joint in the bind pose, model space */
};

struct mkpmo_body {
	bool p3rd;         /* version 102 with per-mesh scale, else 1.0 */
	bool companion;    /* MHP3rd: the region in a companion entry */
	bool skinned;
	bool tool;         /* a modding tool's: unknown commands in its lists */
	unsigned meshes;   /* 1 or more (at most one a bone) */
	unsigned sides;    /* of each tube's rings, 3 or more */
	unsigned rings;    /* along each tube, 2 or more: rings - 1 bands and two caps */
	unsigned textures; /* images in the bank beside it: texture indices below */
	unsigned tail;
	const struct mkpmo_bone *bones;
	unsigned nbones;   /* 1 to 256 */
};

/* Builds the body b describes from seed into *out (mkpmo_free frees it). */
void mkpmo_body(uint64_t seed, const struct mkpmo_body *b, struct mkpmo *out);

/* A big monster's shape: 7 meshes, about 210 groups, over 4,000 vertices,
 * skinned per vertex. */
void mkpmo_monster(bool p3rd, bool companion, struct mkpmo_shape *s);

#endif
