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

void mkpmo_free(struct mkpmo *m);

/* A big monster's shape: 7 meshes, about 210 groups, over 4,000 vertices,
 * skinned per vertex. */
void mkpmo_monster(bool p3rd, bool companion, struct mkpmo_shape *s);

#endif
