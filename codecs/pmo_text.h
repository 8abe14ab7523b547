/* SPDX-License-Identifier: MIT */
/* A PMO model's three text views (grammars: man/mhfu-clip.5, sections
 * MESH.TXT, VERTICES.TSV and MATERIALS.TSV): printed from a decoded
 * model, and parsed back onto it.
 *
 *   mesh.txt       the structure: header, meshes, groups and their draws;
 *                  scale, cull radius, UV scale and offset, lighting,
 *                  blend, materials and palette bones editable
 *   vertices.tsv   one row per vertex: position, normal, UV, colour,
 *                  bone:weight tokens
 *   materials.tsv  one row per material: colour, ambient, texture
 *
 * Applying parses the whole text first and changes the model only when
 * all of it is accepted; a refusal names line:col of the offending word
 * and, where there is one, the allowed range.  Fields left as printed
 * keep their bytes, so applying a text unchanged gives back the model's
 * bytes exactly (pmo_encode); nothing is grown or re-laid out. */
#ifndef MH_PMO_TEXT_H
#define MH_PMO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "pmo.h"

/* The texts, malloc'ed and NUL-terminated (*len without the NUL); NULL
 * when out of memory. */
char *pmo_mesh_print(const struct pmo *p, size_t *len);
char *pmo_vertices_print(const struct pmo *p, size_t *len);

/* The rows of groups first .. end - 1 of vertices.tsv, after its header
 * line when `header`: pmo_vertices_print is (0, group_count, true), and
 * any split of it into runs of groups, the first with the header,
 * concatenates to it (a caller may print the runs at once). */
char *pmo_vertices_print_groups(const struct pmo *p, uint32_t first, uint32_t end, bool header,
				size_t *len);

/* pmo_vertices_print(now), given `was` and its text as that printed it:
 * the rows of vertices whose values did not change are copied from
 * was_text rather than printed again (a commit of one vertex reprints
 * one row).  Any other difference of shape prints the whole text. */
char *pmo_vertices_reprint(const struct pmo *now, const struct pmo *was, const char *was_text,
			   size_t was_len, size_t *len);
char *pmo_materials_print(const struct pmo *p, size_t *len);

/* Applies an edited mesh.txt.  bones: the skeleton's bone count, which a
 * changed palette bone must stay below (0: unknown, bones up to 255).
 * The model is decoded again from its new bytes when a field changed
 * (positions follow a new scale, weights' bones a new palette). */
enum mh_err pmo_mesh_apply(struct pmo *p, const char *text, size_t len, unsigned bones,
			   struct mh_diag *d);

/* Applies an edited vertices.tsv, each changed vertex through
 * pmo_vertex_set. */
enum mh_err pmo_vertices_apply(struct pmo *p, const char *text, size_t len, struct mh_diag *d);

/* The same, given the text as pmo_vertices_print printed it for p: a row
 * written back as printed is taken as its vertex, unparsed (an awk edit
 * of one row parses one).  The outcome is pmo_vertices_apply's. */
enum mh_err pmo_vertices_apply_printed(struct pmo *p, const char *text, size_t len,
				       const char *printed, size_t printed_len, struct mh_diag *d);

/* Applies an edited materials.tsv.  images: the texture bank's image
 * count, which a changed texture index must stay below. */
enum mh_err pmo_materials_apply(struct pmo *p, const char *text, size_t len, unsigned images,
				struct mh_diag *d);

#endif
