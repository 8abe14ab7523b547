/* SPDX-License-Identifier: MIT */
/* A reshaped body read back (pmo.h pmo_apply_gltf): what Blender's glTF
 * exporter writes of model.glb's body, its vertices moved into the PMO in
 * place (pmo_vertex_set), as vertices.tsv moves them.
 *
 * model.glb draws the body as one primitive per PMO group, each group's
 * triangles in draw order, its material "material NN" the group's PMO
 * material (gltf.h).  Blender's export merges the primitives of one
 * material into one, drops their extras and splits vertices at seams,
 * but keeps the triangles of each material in order, each corner in
 * order: so the k-th triangle of material NN's primitive is the k-th
 * triangle the groups of material NN draw, in group order, and each of
 * its corners is a vertex of that group.  Pure: no I/O, no globals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf.h"
#include "gltf_read.h"
#include "kind.h"
#include "pac.h"
#include "pmo.h"

/* A position moves when it differs by more than this (model units): float
 * noise of an export is far smaller, a quantisation step far larger. */
#define PMO_GLTF_MOVED 1e-3

/* The mesh of the node named `name`, -1 when none has one. */
static int32_t node_mesh(const struct gltf_asset *a, const char *name)
{
	for (uint32_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i].mesh >= 0 && !strcmp(a->nodes[i].name, name))
			return a->nodes[i].mesh;
	return -1;
}

/* The mesh drawing the body: node "body"'s, else the asset's only one. */
static int32_t body_mesh(const struct gltf_asset *a)
{
	int32_t mi = node_mesh(a, "body");
	return mi >= 0 ? mi : a->nmeshes == 1 ? 0 : -1;
}

/* The PMO material a primitive's material names ("material 07"), -1. */
static int32_t material_of(const struct gltf_asset *a, const struct gltf_primitive *pr)
{
	unsigned m;
	char end;
	if (pr->material < 0 || (uint32_t)pr->material >= a->nmaterials ||
	    sscanf(a->material_names[pr->material], "material %u%c", &m, &end) != 1)
		return -1;
	return (int32_t)m;
}

/* Material m's triangles in the export, in order: their corners'
 * positions, 9 floats a triangle, into *out (malloc'ed). */
static enum mh_err exported_triangles(const struct gltf_asset *a, const struct gltf_mesh *mesh,
				      int32_t m, float **out, size_t *n, struct mh_diag *d)
{
	*n = 0;
	*out = NULL;
	for (uint32_t k = 0; k < mesh->nprimitives; k++) {
		const struct gltf_primitive *pr = &mesh->primitives[k];
		if (material_of(a, pr) != m)
			continue;
		if (pr->mode != 4)
			return mh_fail(d, MH_ERANGE, 0, "primitive %u: mode %u, not triangles", k,
				       pr->mode);
		size_t tris = (pr->indices ? pr->nindices : pr->nvertices) / 3;
		float *grown = realloc(*out, (*n + tris) * 9 * sizeof **out);
		if (!grown)
			return mh_fail(d, MH_ENOMEM, 0, "out of memory");
		*out = grown;
		for (size_t t = 0; t < tris; t++)
			for (int c = 0; c < 3; c++) {
				uint32_t v = pr->indices ? pr->indices[t * 3 + c] : (uint32_t)(t * 3 + c);
				memcpy(*out + (*n + t) * 9 + c * 3, pr->position.v + (size_t)v * 3,
				       3 * sizeof **out);
			}
		*n += tris;
	}
	return MH_OK;
}

/* Moves the vertices of material m's groups to the export's corners. */
static enum mh_err apply_material(struct pmo *p, const float *corners, size_t ncorners_tris,
				  int32_t m, uint32_t *moved, struct mh_diag *d)
{
	size_t at = 0;
	enum mh_err err = MH_OK;
	for (uint32_t g = 0; g < p->group_count && !err; g++) {
		if (pmo_group_material(p, g) != m)
			continue;
		uint32_t (*tris)[3];
		size_t count;
		if ((err = pmo_group_triangles(p, g, &tris, &count, d)))
			break;
		if (at + count > ncorners_tris) {
			free(tris);
			return MH_ERANGE; /* counted by the caller */
		}
		for (size_t t = 0; t < count && !err; t++, at++)
			for (int c = 0; c < 3 && !err; c++) {
				const float *pos = corners + at * 9 + c * 3;
				struct pmo_vertex nv = p->groups[g].vertices[tris[t][c]];
				bool moves = false;
				for (int i = 0; i < 3; i++)
					moves |= fabs((double)pos[i] - nv.pos[i]) > PMO_GLTF_MOVED;
				if (!moves)
					continue;
				memcpy(nv.pos, pos, sizeof nv.pos);
				if (!(err = pmo_vertex_set(p, g, tris[t][c], &nv, d)))
					(*moved)++;
			}
		free(tris);
	}
	return err;
}

/* pmo_apply_gltf with mesh mi of asset a. */
static enum mh_err apply_mesh(struct pmo *p, const struct gltf_asset *a, int32_t mi,
			      uint32_t *moved, struct mh_diag *d)
{
	enum mh_err err = MH_OK;
	const struct gltf_mesh *mesh = &a->meshes[mi];
	for (uint32_t k = 0; k < mesh->nprimitives && !err; k++)
		if (material_of(a, &mesh->primitives[k]) < 0 ||
		    material_of(a, &mesh->primitives[k]) >= p->h.material_count)
			err = mh_fail(d, MH_ERANGE, 0, "primitive %u's material is none of the "
				      "PMO's (\"material NN\", 00 to %02u): a material added or "
				      "renamed", k, p->h.material_count ? p->h.material_count - 1u : 0u);
	for (int32_t m = 0; m < p->h.material_count && !err; m++) {
		float *corners;
		size_t n, drawn = 0;
		if ((err = exported_triangles(a, mesh, m, &corners, &n, d)))
			break;
		for (uint32_t g = 0; g < p->group_count && !err; g++) {
			uint32_t (*tris)[3];
			size_t count;
			if (pmo_group_material(p, g) != m)
				continue;
			if (!(err = pmo_group_triangles(p, g, &tris, &count, d)))
				drawn += count;
			free(tris);
		}
		if (!err && drawn != n)
			err = mh_fail(d, MH_ERANGE, 0, "material %02d: %zu triangles, the body draws "
				      "%zu: a changed vertex or face count is not supported yet "
				      "(move vertices only)", m, n, drawn);
		if (!err)
			err = apply_material(p, corners, n, m, moved, d);
		free(corners);
	}
	return err;
}

enum mh_err pmo_apply_gltf(struct pmo *p, const uint8_t *bytes, size_t len, uint32_t *moved,
			   struct mh_diag *d)
{
	struct gltf_asset a;
	*moved = 0;
	enum mh_err err = gltf_read(bytes, len, &a, d);
	if (err)
		return err;
	int32_t mi = body_mesh(&a);
	err = mi < 0 ? mh_fail(d, MH_ECORRUPT, 0, "no mesh named \"body\": export the body "
			       "of model.glb")
		     : apply_mesh(p, &a, mi, moved, d);
	gltf_asset_free(&a);
	return err;
}

/* Member i of pac (bytes pac[0..len)) moved as mesh mi of a has it,
 * into out (a copy of pac, member i's bytes rewritten in place). */
static enum mh_err apply_member(const struct pac *pc, uint32_t i, const uint8_t *pac,
				const struct gltf_asset *a, int32_t mi, uint8_t *out,
				uint32_t *moved, struct mh_diag *d)
{
	const uint8_t *m = pac + pc->entries[i].offset;
	size_t n = pc->entries[i].size;
	if (pmo_needs_companion(m, n))
		return mh_fail(d, MH_ERANGE, pc->entries[i].offset, "member %u's geometry is in "
			       "the entry after the PAC: write its body to %u/mesh.glb", i, i);
	struct pmo p;
	uint8_t *bytes = NULL, *comp = NULL;
	size_t blen = 0, clen = 0;
	enum mh_err err = pmo_decode(m, n, NULL, 0, &p, d);
	if (!err)
		err = apply_mesh(&p, a, mi, moved, d);
	if (!err)
		err = pmo_encode(&p, &bytes, &blen, &comp, &clen, d);
	if (!err && blen != n)
		err = mh_fail(d, MH_ERANGE, pc->entries[i].offset, "member %u would change size",
			      i);
	if (!err)
		memcpy(out + pc->entries[i].offset, bytes, n);
	free(bytes);
	free(comp);
	pmo_free(&p);
	return err;
}

enum mh_err pmo_pac_apply_gltf(const uint8_t *pac, size_t pac_len, const uint8_t *bytes,
			       size_t len, uint8_t **out, size_t *out_len, uint32_t *moved,
			       struct mh_diag *d)
{
	struct gltf_asset a;
	struct pac pc;
	*out = NULL;
	*out_len = 0;
	*moved = 0;
	enum mh_err err = gltf_read(bytes, len, &a, d);
	if (err)
		return err;
	if ((err = pac_decode(pac, pac_len, &pc, d))) {
		gltf_asset_free(&a);
		return err;
	}
	uint8_t *copy = malloc(pac_len ? pac_len : 1);
	size_t body = 0, applied = 0;
	if (!copy)
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
	else
		memcpy(copy, pac, pac_len);
	for (uint32_t i = 0; !err && i < pc.count; i++) {
		const uint8_t *m = pac + pc.entries[i].offset;
		size_t n = pc.entries[i].size;
		if (!n || kind_of(m, n) != KIND_PMO)
			continue;
		/* model.glb's bodies: the PMOs that decode, those whose geometry
		 * is in the next entry among them */
		struct pmo probe;
		memset(&probe, 0, sizeof probe);
		bool counts = pmo_needs_companion(m, n) ||
			      !pmo_decode_structure(m, n, NULL, 0, &probe, NULL);
		pmo_free(&probe);
		if (!counts)
			continue;
		char name[GLTF_BODY_NAME_MAX];
		gltf_body_name(body++, name);
		int32_t mi = node_mesh(&a, name);
		if (mi < 0 && body == 1 && a.nmeshes == 1)
			mi = 0; /* the only mesh, as pmo_apply_gltf takes it */
		if (mi < 0)
			continue;
		applied++;
		err = apply_member(&pc, i, pac, &a, mi, copy, moved, d);
	}
	if (!err && !applied)
		err = mh_fail(d, MH_ECORRUPT, 0, "no mesh named \"body\" (or \"body N\") of "
			      "this PAC's PMOs: export the body of model.glb");
	if (!err) {
		*out = copy;
		*out_len = pac_len;
	} else {
		free(copy);
	}
	pac_free(&pc);
	gltf_asset_free(&a);
	return err;
}
