/* SPDX-License-Identifier: MIT */
/* A fresh PMO laid out from a description (pmo_build.h): checked, then
 * measured (every offset), then written into one zeroed allocation. */
#include "pmo_build.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#define ADDR_LIMIT (1u << 24) /* VADDR and IADDR carry 24 bits */

/* Where one group's blocks go, from the region's start. */
struct block_at {
	uint64_t list, vertices, indices, end;
	uint32_t prims;
};

static uint32_t prims_of(const struct pmo_build_group *g)
{
	if (!g->count)
		return 0;
	return (g->count + PMO_BUILD_PRIM_MAX - 1) / PMO_BUILD_PRIM_MAX;
}

static enum mh_err check_group(const struct pmo_build *b, uint32_t m, uint32_t g,
			       const struct pmo_build_group *grp, struct mh_diag *d)
{
	const struct pmo_build_mesh *mesh = &b->meshes[m];
	if (grp->material >= mesh->remap_count)
		return mh_fail(d, MH_ERANGE, 0, "group %u's material %u is past mesh %u's %u remap "
			       "entries", g, grp->material, m, mesh->remap_count);
	for (uint32_t i = 0; i < grp->palette_count; i++)
		if (grp->palette[i].slot >= PMO_MAX_WEIGHTS)
			return mh_fail(d, MH_ERANGE, 0, "group %u's palette sets slot %u, past %u",
				       g, grp->palette[i].slot, PMO_MAX_WEIGHTS - 1);
	if (grp->prim > PMO_RECTANGLES)
		return mh_fail(d, MH_ERANGE, 0, "group %u draws primitive %u, past %u", g,
			       grp->prim, PMO_RECTANGLES);
	if (grp->count > PMO_BUILD_PRIM_MAX && grp->prim != PMO_TRIANGLES)
		return mh_fail(d, MH_ERANGE, 0, "group %u draws %u in one primitive of type %u, "
			       "at most %u", g, grp->count, grp->prim, PMO_BUILD_PRIM_MAX);
	if (!grp->indices) {
		if (grp->count > grp->vertex_count)
			return mh_fail(d, MH_ERANGE, 0, "group %u draws %u vertices without indices, "
				       "it has %u", g, grp->count, grp->vertex_count);
		return MH_OK;
	}
	for (uint32_t i = 0; i < grp->count; i++)
		if (grp->indices[i] >= grp->vertex_count)
			return mh_fail(d, MH_ERANGE, 0, "group %u's index %u is %u, past its %u "
				       "vertices", g, i, grp->indices[i], grp->vertex_count);
	return MH_OK;
}

static enum mh_err check_build(const struct pmo_build *b, struct mh_diag *d)
{
	uint64_t groups = 0, remaps = 0, pairs = 0;
	for (uint32_t m = 0; m < b->mesh_count; m++) {
		const struct pmo_build_mesh *mesh = &b->meshes[m];
		for (uint32_t i = 0; i < mesh->remap_count; i++)
			if (mesh->remap[i] >= b->material_count)
				return mh_fail(d, MH_ERANGE, 0, "mesh %u's remap entry %u names material "
					       "%u, past the %u materials", m, i, mesh->remap[i],
					       b->material_count);
		for (uint32_t g = 0; g < mesh->group_count; g++) {
			enum mh_err err = check_group(b, m, (uint32_t)(groups + g), &mesh->groups[g], d);
			if (err)
				return err;
			pairs += mesh->groups[g].palette_count;
		}
		groups += mesh->group_count;
		remaps += mesh->remap_count;
	}
	if (groups > 0xFFFF || remaps > 0xFFFF || pairs > 0xFFFF)
		return mh_fail(d, MH_ERANGE, 0, "%llu groups, %llu remap entries and %llu palette "
			       "pairs: each at most 65535", (unsigned long long)groups,
			       (unsigned long long)remaps, (unsigned long long)pairs);
	return MH_OK;
}

/* The region's layout; *region_len its length, padded to 16. */
static enum mh_err measure_region(const struct pmo_build *b, struct block_at *at,
				  uint64_t *region_len, struct mh_diag *d)
{
	uint64_t a = b->version == PMO_P3RD ? 4 : 16, end = 0;
	uint32_t g = 0;
	for (uint32_t m = 0; m < b->mesh_count; m++)
		for (uint32_t i = 0; i < b->meshes[m].group_count; i++, g++) {
			const struct pmo_build_group *grp = &b->meshes[m].groups[i];
			struct pmo_vtype vt;
			pmo_vtype_of(grp->vtype, &vt);
			struct block_at *k = &at[g];
			k->prims = prims_of(grp);
			/* ORIGIN, BASE, VADDR, VTYPE, RET, [IADDR], the PRIMs */
			uint64_t words = 5u + (grp->indices ? 1u : 0u) + k->prims;
			k->list = align_up(end, a);
			k->vertices = align_up(k->list + 4 * words, a);
			end = k->vertices + (uint64_t)grp->vertex_count * vt.stride;
			k->indices = grp->indices ? align_up(end, a) : 0;
			if (grp->indices)
				end = k->indices + 2ull * grp->count;
			k->end = end;
			if (k->vertices - k->list >= ADDR_LIMIT ||
			    (grp->indices && k->indices - k->list >= ADDR_LIMIT))
				return mh_fail(d, MH_ERANGE, 0, "group %u's buffers lie 16 MiB or more "
					       "from its list", g);
		}
	*region_len = align_up(end, 16);
	return MH_OK;
}

/* The table offsets in header order (mesh, group, remap, palette,
 * material, geometry). */
static void measure_tables(const struct pmo_build *b, uint32_t groups, uint32_t remaps,
			   uint32_t pairs, uint64_t offs[6])
{
	uint64_t rec = b->version == PMO_P3RD ? PMO_MESH_P3RD : PMO_MESH_MHFU;
	offs[0] = PMO_HEADER;
	offs[1] = align_up(offs[0] + rec * b->mesh_count, 16);
	offs[2] = align_up(offs[1] + (uint64_t)PMO_GROUP * groups, 16);
	offs[3] = align_up(offs[2] + remaps, 16);
	offs[4] = align_up(offs[3] + 2ull * pairs, 16);
	offs[5] = align_up(offs[4] + (uint64_t)PMO_MATERIAL * b->material_count, 16);
}

static void put_f32(uint8_t *p, float f)
{
	put_le_f32s(p, &f, 1);
}

static void put_header(const struct pmo_build *b, uint8_t *q, const uint64_t offs[6],
		       uint64_t size)
{
	memcpy(q, PMO_MAGIC, 4);
	memcpy(q + 4, b->version == PMO_P3RD ? "102\0" : "1.0\0", 4);
	put_le32(q + 8, (uint32_t)size);
	float most = b->scale[0];
	for (int c = 0; c < 3; c++) {
		put_f32(q + 0x10 + 4 * c, b->scale[c]);
		if (b->scale[c] > most)
			most = b->scale[c];
	}
	put_f32(q + 0x0C, most);
	put_le16(q + 0x1C, b->mesh_count);
	put_le16(q + 0x1E, b->material_count);
	for (int i = 0; i < 6; i++)
		put_le32(q + 0x20 + 4 * i, (uint32_t)offs[i]);
}

static void put_mesh(const struct pmo_build *b, const struct pmo_build_mesh *m, uint8_t *q,
		     uint32_t group_first, uint32_t remap_first)
{
	if (b->version == PMO_P3RD) {
		put_le_f32s(q, m->scale, 4);
		put_le_f32s(q + 16, m->uv_scale, 2);
		put_le_f32s(q + 24, m->uv_offset, 2);
		q += 32;
	} else {
		put_le_f32s(q, m->uv_scale, 2);
		q += 8;
	}
	put_le32(q, m->lighting);
	put_le32(q + 4, m->blend);
	q[8] = m->remap_count;
	put_le16(q + 10, (uint16_t)remap_first);
	put_le16(q + 12, m->group_count);
	put_le16(q + 14, (uint16_t)group_first);
}

/* Group grp's list at region + at->list, its buffers after it. */
static void put_block(const struct pmo_build_group *grp, const struct block_at *at,
		      uint8_t *region)
{
	uint32_t vtype = (grp->vtype & ~(3u << 11)) | (grp->indices ? 2u << 11 : 0);
	uint8_t *w = region + at->list;
	put_le32(w, (uint32_t)PMO_ORIGIN << 24);
	put_le32(w += 4, (uint32_t)PMO_BASE << 24);
	if (grp->indices)
		put_le32(w += 4, (uint32_t)PMO_IADDR << 24 | (uint32_t)(at->indices - at->list));
	put_le32(w += 4, (uint32_t)PMO_VADDR << 24 | (uint32_t)(at->vertices - at->list));
	put_le32(w += 4, (uint32_t)PMO_VTYPE << 24 | (vtype & 0xFFFFFF));
	for (uint32_t k = 0, left = grp->count; k < at->prims; k++) {
		uint32_t n = left < PMO_BUILD_PRIM_MAX ? left : PMO_BUILD_PRIM_MAX;
		put_le32(w += 4, (uint32_t)PMO_PRIM << 24 | (uint32_t)grp->prim << 16 | n);
		left -= n;
	}
	put_le32(w + 4, (uint32_t)PMO_RET << 24);
	struct pmo_vtype vt;
	pmo_vtype_of(vtype, &vt);
	if (grp->vertex_count)
		memcpy(region + at->vertices, grp->vertices, (size_t)grp->vertex_count * vt.stride);
	for (uint32_t i = 0; grp->indices && i < grp->count; i++)
		put_le16(region + at->indices + 2 * i, grp->indices[i]);
}

static void put_material(const struct pmo_material *m, uint8_t *q)
{
	put_le32(q, m->color);
	put_le32(q + 4, m->ambient);
	q[8] = m->texture;
	memcpy(q + 9, m->pad, 3);
	put_le32(q + 12, m->kept);
}

/* The tables and the region into out (zeroed), at offs. */
static void put_all(const struct pmo_build *b, const uint64_t offs[6],
		    const struct block_at *at, uint8_t *out)
{
	uint64_t rec = b->version == PMO_P3RD ? PMO_MESH_P3RD : PMO_MESH_MHFU;
	uint32_t g = 0, remap = 0, pair = 0;
	for (uint32_t m = 0; m < b->mesh_count; m++) {
		const struct pmo_build_mesh *mesh = &b->meshes[m];
		put_mesh(b, mesh, out + offs[0] + rec * m, g, remap);
		memcpy(out + offs[2] + remap, mesh->remap, mesh->remap_count);
		remap += mesh->remap_count;
		for (uint32_t i = 0; i < mesh->group_count; i++, g++) {
			const struct pmo_build_group *grp = &mesh->groups[i];
			uint8_t *q = out + offs[1] + (uint64_t)PMO_GROUP * g;
			q[0] = grp->material;
			q[1] = grp->palette_count;
			put_le16(q + 2, (uint16_t)pair);
			put_le32(q + 4, (uint32_t)at[g].list);
			put_le32(q + 8, (uint32_t)at[g].vertices);
			put_le32(q + 12, (uint32_t)at[g].indices);
			for (uint32_t k = 0; k < grp->palette_count; k++, pair++) {
				out[offs[3] + 2 * pair] = grp->palette[k].slot;
				out[offs[3] + 2 * pair + 1] = grp->palette[k].bone;
			}
			put_block(grp, &at[g], out + offs[5]);
		}
	}
	for (uint32_t i = 0; i < b->material_count; i++)
		put_material(&b->materials[i], out + offs[4] + (uint64_t)PMO_MATERIAL * i);
}

enum mh_err pmo_build(const struct pmo_build *b, uint8_t **out, size_t *len, struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	enum mh_err err = check_build(b, d);
	if (err)
		return err;
	uint32_t groups = 0, remaps = 0, pairs = 0;
	for (uint32_t m = 0; m < b->mesh_count; m++) {
		groups += b->meshes[m].group_count;
		remaps += b->meshes[m].remap_count;
		for (uint32_t g = 0; g < b->meshes[m].group_count; g++)
			pairs += b->meshes[m].groups[g].palette_count;
	}
	struct block_at *at = calloc(groups ? groups : 1, sizeof *at);
	if (!at)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	uint64_t offs[6], region_len = 0;
	measure_tables(b, groups, remaps, pairs, offs);
	if ((err = measure_region(b, at, &region_len, d)))
		goto done;
	uint64_t size = offs[5] + region_len;
	if (size > UINT32_MAX || size > SIZE_MAX) {
		err = mh_fail(d, MH_ERANGE, 0, "the PMO would be %llu bytes, past a u32 size",
			      (unsigned long long)size);
		goto done;
	}
	if (!(*out = calloc((size_t)size, 1))) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto done;
	}
	put_header(b, *out, offs, size);
	put_all(b, offs, at, *out);
	*len = (size_t)size;
done:
	free(at);
	return err;
}
