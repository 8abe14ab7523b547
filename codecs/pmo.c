/* SPDX-License-Identifier: MIT */
/* PMO header and tables, decode and encode (mhfu-archive(5) "PMO"); the
 * display lists are walked in pmo_ge.c, the vertices read and written in
 * pmo_vertex.c. */
#include "pmo.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

/* Header field offsets. */
enum {
	H_VERSION = 0x04, H_SIZE = 0x08, H_CULL = 0x0C, H_SCALE = 0x10,
	H_MESHES = 0x1C, H_MATERIALS = 0x1E, H_MESH_OFF = 0x20, H_GROUP_OFF = 0x24,
	H_REMAP_OFF = 0x28, H_PALETTE_OFF = 0x2C, H_MATERIAL_OFF = 0x30,
	H_GEOMETRY_OFF = 0x34, H_RESERVED = 0x38,
};

/* Items a decode may allocate per input byte: a well-formed PMO needs at
 * most one (each command, index and vertex takes a byte or more); inputs
 * whose groups share blocks may take several, never without bound. */
#define BUDGET_PER_BYTE 8u

static float lef32(const uint8_t *p)
{
	uint32_t bits = le32(p);
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static void put_lef32(uint8_t *p, float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	put_le32(p, bits);
}

static size_t mesh_size(enum pmo_version v)
{
	return v == PMO_P3RD ? PMO_MESH_P3RD : PMO_MESH_MHFU;
}

/* Whether [off, off + n) lies inside len bytes. */
static bool fits(uint64_t off, uint64_t n, uint64_t len)
{
	return off <= len && n <= len - off;
}

bool pmo_needs_companion(const uint8_t *buf, size_t len)
{
	return len >= PMO_HEADER && !memcmp(buf, PMO_MAGIC, 4) && !memcmp(buf + 4, "102\0", 4) &&
	       le32(buf + H_SIZE) > len && le32(buf + H_GEOMETRY_OFF) == len;
}

int pmo_group_material(const struct pmo *p, uint32_t g)
{
	if (g >= p->group_count)
		return -1;
	const struct pmo_group *grp = &p->groups[g];
	const struct pmo_mesh *m = &p->meshes[grp->mesh];
	if (grp->material >= m->remap_count)
		return -1;
	uint32_t at = (uint32_t)m->remap_first + grp->material;
	uint32_t mat = p->remap ? p->remap[at] : at;
	return mat < p->h.material_count ? (int)mat : -1;
}

/* ---- decoding ------------------------------------------------------------ */

static enum mh_err decode_header(const uint8_t *buf, size_t len, struct pmo_header *h,
				 struct mh_diag *d)
{
	if (len < PMO_HEADER)
		return mh_fail(d, MH_ETRUNC, len, "a PMO header is 0x40 bytes, only %zu here", len);
	if (memcmp(buf, PMO_MAGIC, 4))
		return mh_fail(d, MH_EUNKNOWN, 0, "no \"pmo\" magic");
	if (!memcmp(buf + H_VERSION, "1.0\0", 4))
		h->version = PMO_MHFU;
	else if (!memcmp(buf + H_VERSION, "102\0", 4))
		h->version = PMO_P3RD;
	else
		return mh_fail(d, MH_EUNKNOWN, H_VERSION, "PMO version is neither 1.0 nor 102");
	h->size = le32(buf + H_SIZE);
	h->cull_radius = lef32(buf + H_CULL);
	for (int i = 0; i < 3; i++)
		h->scale[i] = lef32(buf + H_SCALE + 4 * i);
	h->mesh_count = le16(buf + H_MESHES);
	h->material_count = le16(buf + H_MATERIALS);
	h->mesh_off = le32(buf + H_MESH_OFF);
	h->group_off = le32(buf + H_GROUP_OFF);
	h->remap_off = le32(buf + H_REMAP_OFF);
	h->palette_off = le32(buf + H_PALETTE_OFF);
	h->material_off = le32(buf + H_MATERIAL_OFF);
	h->geometry_off = le32(buf + H_GEOMETRY_OFF);
	memcpy(h->reserved, buf + H_RESERVED, 8);
	return MH_OK;
}

/* Where the region lies: inline up to the size, or the companion's head. */
static enum mh_err locate_region(const struct pmo *p, const uint8_t *companion,
				 size_t companion_len, struct pmo_region *r, struct mh_diag *d)
{
	const struct pmo_header *h = &p->h;
	if (h->geometry_off > h->size)
		return mh_fail(d, MH_ECORRUPT, H_GEOMETRY_OFF,
			       "geometry offset 0x%x is past the size 0x%x", h->geometry_off, h->size);
	if (h->size <= p->raw_len) {
		*r = (struct pmo_region){p->raw, h->geometry_off, h->size};
		return MH_OK;
	}
	if (!pmo_needs_companion(p->raw, p->raw_len))
		return mh_fail(d, MH_ETRUNC, H_SIZE, "size 0x%x runs past the PMO's %zu bytes",
			       h->size, p->raw_len);
	uint64_t region = (uint64_t)h->size - h->geometry_off;
	if (!companion || region > companion_len)
		return mh_fail(d, MH_ETRUNC, H_SIZE,
			       "the geometry region (0x%llx bytes) is in the companion entry, "
			       "which holds %zu", (unsigned long long)region,
			       companion ? companion_len : 0);
	*r = (struct pmo_region){p->companion, 0, region};
	return MH_OK;
}

static void *alloc_array(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static enum mh_err decode_meshes(struct pmo *p, struct mh_diag *d)
{
	const struct pmo_header *h = &p->h;
	size_t rec = mesh_size(h->version);
	if (!fits(h->mesh_off, (uint64_t)h->mesh_count * rec, p->raw_len))
		return mh_fail(d, MH_ETRUNC, H_MESH_OFF, "%u meshes at 0x%x run past the PMO",
			       h->mesh_count, h->mesh_off);
	if (!(p->meshes = alloc_array(h->mesh_count, sizeof *p->meshes)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	uint32_t groups = 0, remaps = 0;
	for (uint32_t i = 0; i < h->mesh_count; i++) {
		const uint8_t *q = p->raw + h->mesh_off + i * rec;
		struct pmo_mesh *m = &p->meshes[i];
		if (h->version == PMO_P3RD) {
			for (int c = 0; c < 4; c++)
				m->scale[c] = lef32(q + 4 * c);
			for (int c = 0; c < 2; c++) {
				m->uv_scale[c] = lef32(q + 16 + 4 * c);
				m->uv_offset[c] = lef32(q + 24 + 4 * c);
			}
			q += 32;
		} else {
			memcpy(m->scale, h->scale, sizeof h->scale);
			m->uv_scale[0] = lef32(q);
			m->uv_scale[1] = lef32(q + 4);
			q += 8;
		}
		m->lighting = le32(q);
		m->blend = le32(q + 4);
		m->remap_count = q[8];
		m->pad = q[9];
		m->remap_first = le16(q + 10);
		m->group_count = le16(q + 12);
		m->group_first = le16(q + 14);
		/* A mesh's runs start where the one before ended: the groups'
		 * owners and the remap runs follow from that alone. */
		if (m->group_first != groups || m->remap_first != remaps)
			return mh_fail(d, MH_ECORRUPT, (uint64_t)(q - p->raw) + 10,
				       "mesh %u starts its groups at %u and remap at %u, not %u and %u "
				       "where mesh %u ended", i, m->group_first, m->remap_first,
				       groups, remaps, i ? i - 1 : 0);
		groups += m->group_count;
		remaps += m->remap_count;
	}
	p->group_count = groups;
	p->remap_count = remaps;
	return MH_OK;
}

static enum mh_err decode_groups(struct pmo *p, struct mh_diag *d)
{
	if (!fits(p->h.group_off, (uint64_t)p->group_count * PMO_GROUP, p->raw_len))
		return mh_fail(d, MH_ETRUNC, H_GROUP_OFF, "%u groups at 0x%x run past the PMO",
			       p->group_count, p->h.group_off);
	if (!(p->groups = alloc_array(p->group_count, sizeof *p->groups)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	uint32_t mesh = 0, bones = 0;
	for (uint32_t g = 0; g < p->group_count; g++) {
		const uint8_t *q = p->raw + p->h.group_off + (size_t)g * PMO_GROUP;
		struct pmo_group *grp = &p->groups[g];
		while (g >= (uint32_t)p->meshes[mesh].group_first + p->meshes[mesh].group_count)
			mesh++;
		grp->mesh = mesh;
		grp->material = q[0];
		grp->palette_count = q[1];
		grp->palette_first = le16(q + 2);
		grp->list_off = le32(q + 4);
		grp->vertex_off = le32(q + 8);
		grp->index_off = le32(q + 12);
		if (grp->palette_first != bones)
			return mh_fail(d, MH_ECORRUPT, (uint64_t)(q - p->raw) + 2,
				       "group %u's palette run starts at %u, not %u", g,
				       grp->palette_first, bones);
		bones += grp->palette_count;
	}
	p->palette_count = bones;
	return MH_OK;
}

static enum mh_err decode_remap_palette(struct pmo *p, struct mh_diag *d)
{
	const struct pmo_header *h = &p->h;
	if (h->remap_off) {
		if (!fits(h->remap_off, p->remap_count, p->raw_len))
			return mh_fail(d, MH_ETRUNC, H_REMAP_OFF,
				       "the remap table (%u entries at 0x%x) runs past the PMO",
				       p->remap_count, h->remap_off);
		if (!(p->remap = alloc_array(p->remap_count, 1)))
			return mh_fail(d, MH_ENOMEM, 0, "out of memory");
		memcpy(p->remap, p->raw + h->remap_off, p->remap_count);
	}
	if (p->palette_count && !fits(h->palette_off, 2ull * p->palette_count, p->raw_len))
		return mh_fail(d, MH_ETRUNC, H_PALETTE_OFF,
			       "the bone palette (%u pairs at 0x%x) runs past the PMO",
			       p->palette_count, h->palette_off);
	if (!(p->palette = alloc_array(p->palette_count, sizeof *p->palette)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t i = 0; i < p->palette_count; i++) {
		p->palette[i].slot = p->raw[h->palette_off + 2 * i];
		p->palette[i].bone = p->raw[h->palette_off + 2 * i + 1];
	}
	return MH_OK;
}

static enum mh_err decode_materials(struct pmo *p, struct mh_diag *d)
{
	const struct pmo_header *h = &p->h;
	if (!fits(h->material_off, (uint64_t)h->material_count * PMO_MATERIAL, p->raw_len))
		return mh_fail(d, MH_ETRUNC, H_MATERIAL_OFF, "%u materials at 0x%x run past the PMO",
			       h->material_count, h->material_off);
	if (!(p->materials = alloc_array(h->material_count, sizeof *p->materials)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t i = 0; i < h->material_count; i++) {
		const uint8_t *q = p->raw + h->material_off + (size_t)i * PMO_MATERIAL;
		struct pmo_material *m = &p->materials[i];
		m->color = le32(q);
		m->ambient = le32(q + 4);
		m->texture = q[8];
		memcpy(m->pad, q + 9, 3);
		m->kept = le32(q + 12);
	}
	return MH_OK;
}

/* Each group's bones per slot, the palette applied in group order. */
static void apply_palette(struct pmo *p)
{
	int16_t slots[256];
	for (int i = 0; i < 256; i++)
		slots[i] = -1;
	for (uint32_t g = 0; g < p->group_count; g++) {
		struct pmo_group *grp = &p->groups[g];
		for (uint32_t i = 0; i < grp->palette_count; i++) {
			const struct pmo_bone *b = &p->palette[grp->palette_first + i];
			slots[b->slot] = b->bone;
		}
		memcpy(grp->slot_bone, slots, sizeof grp->slot_bone);
	}
}

static enum mh_err decode_geometry(struct pmo *p, const struct pmo_region *r, bool values,
				   struct mh_diag *d)
{
	uint64_t budget = BUDGET_PER_BYTE * ((uint64_t)p->raw_len + p->companion_len) + 64;
	for (uint32_t g = 0; g < p->group_count; g++) {
		enum mh_err err = pmo_walk_group(r, &p->groups[g], g, &budget, d);
		if (!err)
			err = pmo_decode_vertices(r, p, &p->groups[g], g, &budget, values, d);
		if (err)
			return err;
	}
	return MH_OK;
}

static uint8_t *copy_bytes(const uint8_t *buf, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);
	if (q && len)
		memcpy(q, buf, len);
	return q;
}

static enum mh_err decode(const uint8_t *buf, size_t len, const uint8_t *companion,
			  size_t companion_len, bool values, struct pmo *p, struct mh_diag *d)
{
	memset(p, 0, sizeof *p);
	enum mh_err err = decode_header(buf, len, &p->h, d);
	if (err)
		return err;
	if (!(p->raw = copy_bytes(buf, len)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	p->raw_len = len;
	if (pmo_needs_companion(buf, len) && companion) {
		if (!(p->companion = copy_bytes(companion, companion_len)))
			return mh_fail(d, MH_ENOMEM, 0, "out of memory");
		p->companion_len = companion_len;
		p->external = true;
	}
	struct pmo_region r;
	if ((err = locate_region(p, p->companion, p->companion_len, &r, d)) ||
	    (err = decode_meshes(p, d)) || (err = decode_groups(p, d)) ||
	    (err = decode_remap_palette(p, d)) || (err = decode_materials(p, d)))
		return err;
	apply_palette(p);
	return decode_geometry(p, &r, values, d);
}

enum mh_err pmo_decode(const uint8_t *buf, size_t len, const uint8_t *companion,
		       size_t companion_len, struct pmo *p, struct mh_diag *d)
{
	return decode(buf, len, companion, companion_len, true, p, d);
}

enum mh_err pmo_decode_structure(const uint8_t *buf, size_t len, const uint8_t *companion,
				 size_t companion_len, struct pmo *p, struct mh_diag *d)
{
	return decode(buf, len, companion, companion_len, false, p, d);
}

/* A copy of n items of `size` bytes at src (NULL: none, *ok kept). */
static void *copy_array(const void *src, size_t n, size_t size, bool *ok)
{
	void *q = src ? copy_bytes(src, n * size) : NULL;
	*ok = *ok && (q || !src);
	return q;
}

enum mh_err pmo_clone(const struct pmo *src, struct pmo *p, struct mh_diag *d)
{
	bool ok = true;
	*p = *src;
	/* Each pointer replaced before the next copy: a failure leaves *p
	 * owning what it holds, NULL for the rest. */
	p->groups = NULL;
	p->meshes = copy_array(src->meshes, src->h.mesh_count, sizeof *p->meshes, &ok);
	p->remap = copy_array(src->remap, src->remap_count, 1, &ok);
	p->palette = copy_array(src->palette, src->palette_count, sizeof *p->palette, &ok);
	p->materials = copy_array(src->materials, src->h.material_count, sizeof *p->materials, &ok);
	p->raw = copy_array(src->raw, src->raw_len, 1, &ok);
	p->companion = copy_array(src->companion, src->companion_len, 1, &ok);
	if (ok && src->groups && !(p->groups = calloc(src->group_count ? src->group_count : 1,
						      sizeof *p->groups)))
		ok = false;
	for (uint32_t g = 0; ok && p->groups && g < src->group_count; g++) {
		const struct pmo_group *from = &src->groups[g];
		struct pmo_group *to = &p->groups[g];
		*to = *from;
		to->cmds = copy_array(from->cmds, from->cmd_count, sizeof *to->cmds, &ok);
		to->draws = copy_array(from->draws, from->draw_count, sizeof *to->draws, &ok);
		to->indices = copy_array(from->indices, from->index_count, sizeof *to->indices, &ok);
		to->vertices = copy_array(from->vertices, from->vertex_count, sizeof *to->vertices,
					  &ok);
	}
	if (!ok && !p->groups)
		p->group_count = 0; /* pmo_free walks the groups there are */
	return ok ? MH_OK : mh_fail(d, MH_ENOMEM, 0, "out of memory");
}

void pmo_free(struct pmo *p)
{
	if (!p)
		return;
	for (uint32_t g = 0; p->groups && g < p->group_count; g++) {
		free(p->groups[g].cmds);
		free(p->groups[g].draws);
		free(p->groups[g].indices);
		free(p->groups[g].vertices);
	}
	free(p->meshes);
	free(p->groups);
	free(p->remap);
	free(p->palette);
	free(p->materials);
	free(p->raw);
	free(p->companion);
	memset(p, 0, sizeof *p);
}

/* ---- encoding ------------------------------------------------------------ */

static void encode_header(const struct pmo_header *h, uint8_t *q)
{
	memcpy(q, PMO_MAGIC, 4);
	memcpy(q + H_VERSION, h->version == PMO_P3RD ? "102\0" : "1.0\0", 4);
	put_le32(q + H_SIZE, h->size);
	put_lef32(q + H_CULL, h->cull_radius);
	for (int i = 0; i < 3; i++)
		put_lef32(q + H_SCALE + 4 * i, h->scale[i]);
	put_le16(q + H_MESHES, h->mesh_count);
	put_le16(q + H_MATERIALS, h->material_count);
	put_le32(q + H_MESH_OFF, h->mesh_off);
	put_le32(q + H_GROUP_OFF, h->group_off);
	put_le32(q + H_REMAP_OFF, h->remap_off);
	put_le32(q + H_PALETTE_OFF, h->palette_off);
	put_le32(q + H_MATERIAL_OFF, h->material_off);
	put_le32(q + H_GEOMETRY_OFF, h->geometry_off);
	memcpy(q + H_RESERVED, h->reserved, 8);
}

static void encode_mesh(const struct pmo_mesh *m, enum pmo_version v, uint8_t *q)
{
	if (v == PMO_P3RD) {
		for (int c = 0; c < 4; c++)
			put_lef32(q + 4 * c, m->scale[c]);
		for (int c = 0; c < 2; c++) {
			put_lef32(q + 16 + 4 * c, m->uv_scale[c]);
			put_lef32(q + 24 + 4 * c, m->uv_offset[c]);
		}
		q += 32;
	} else {
		put_lef32(q, m->uv_scale[0]);
		put_lef32(q + 4, m->uv_scale[1]);
		q += 8;
	}
	put_le32(q, m->lighting);
	put_le32(q + 4, m->blend);
	q[8] = m->remap_count;
	q[9] = m->pad;
	put_le16(q + 10, m->remap_first);
	put_le16(q + 12, m->group_count);
	put_le16(q + 14, m->group_first);
}

static void encode_group(const struct pmo_group *grp, uint8_t *q)
{
	q[0] = grp->material;
	q[1] = grp->palette_count;
	put_le16(q + 2, grp->palette_first);
	put_le32(q + 4, grp->list_off);
	put_le32(q + 8, grp->vertex_off);
	put_le32(q + 12, grp->index_off);
}

static void encode_material(const struct pmo_material *m, uint8_t *q)
{
	put_le32(q, m->color);
	put_le32(q + 4, m->ambient);
	q[8] = m->texture;
	memcpy(q + 9, m->pad, 3);
	put_le32(q + 12, m->kept);
}

/* Whether the tables the header points at still hold the model's arrays
 * inside the PMO's bytes (a caller may have changed a count). */
static enum mh_err check_tables(const struct pmo *p, struct mh_diag *d)
{
	const struct pmo_header *h = &p->h;
	uint32_t groups = 0, remaps = 0, bones = 0;
	for (uint32_t i = 0; i < h->mesh_count; i++) {
		groups += p->meshes[i].group_count;
		remaps += p->meshes[i].remap_count;
	}
	for (uint32_t g = 0; g < p->group_count; g++)
		bones += p->groups[g].palette_count;
	if (groups != p->group_count || remaps != p->remap_count || bones != p->palette_count)
		return mh_fail(d, MH_ERANGE, 0, "the meshes' and groups' counts no longer match "
			       "the tables (%u groups, %u remap entries, %u palette pairs)",
			       p->group_count, p->remap_count, p->palette_count);
	if (p->raw_len < PMO_HEADER ||
	    !fits(h->mesh_off, (uint64_t)h->mesh_count * mesh_size(h->version), p->raw_len) ||
	    !fits(h->group_off, (uint64_t)p->group_count * PMO_GROUP, p->raw_len) ||
	    (p->remap && !fits(h->remap_off, p->remap_count, p->raw_len)) ||
	    (p->palette_count && !fits(h->palette_off, 2ull * p->palette_count, p->raw_len)) ||
	    !fits(h->material_off, (uint64_t)h->material_count * PMO_MATERIAL, p->raw_len))
		return mh_fail(d, MH_ERANGE, 0, "a table lies past the PMO's %zu bytes", p->raw_len);
	return MH_OK;
}

static void encode_tables(const struct pmo *p, uint8_t *q)
{
	const struct pmo_header *h = &p->h;
	encode_header(h, q);
	for (uint32_t i = 0; i < h->mesh_count; i++)
		encode_mesh(&p->meshes[i], h->version, q + h->mesh_off + i * mesh_size(h->version));
	for (uint32_t g = 0; g < p->group_count; g++)
		encode_group(&p->groups[g], q + h->group_off + (size_t)g * PMO_GROUP);
	if (p->remap)
		memcpy(q + h->remap_off, p->remap, p->remap_count);
	for (uint32_t i = 0; i < p->palette_count; i++) {
		q[h->palette_off + 2 * i] = p->palette[i].slot;
		q[h->palette_off + 2 * i + 1] = p->palette[i].bone;
	}
	for (uint32_t i = 0; i < h->material_count; i++)
		encode_material(&p->materials[i], q + h->material_off + (size_t)i * PMO_MATERIAL);
}

/* Each group's command words back where they were read. */
static enum mh_err encode_lists(const struct pmo *p, uint8_t *mem, size_t len,
				struct mh_diag *d)
{
	for (uint32_t g = 0; g < p->group_count; g++) {
		const struct pmo_group *grp = &p->groups[g];
		if (!fits(grp->list_at, 4ull * grp->cmd_count, len))
			return mh_fail(d, MH_ERANGE, grp->list_at,
				       "group %u's list lies past the region's bytes", g);
		for (uint32_t i = 0; i < grp->cmd_count; i++)
			put_le32(mem + grp->list_at + 4 * i, grp->cmds[i]);
	}
	return MH_OK;
}

enum mh_err pmo_encode(const struct pmo *p, uint8_t **out, size_t *len, uint8_t **companion,
		       size_t *companion_len, struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (companion) {
		*companion = NULL;
		*companion_len = 0;
	}
	if (p->external && !companion)
		return mh_fail(d, MH_ERANGE, 0, "the geometry is in a companion, which was not asked");
	enum mh_err err = check_tables(p, d);
	if (err)
		return err;
	uint8_t *q = copy_bytes(p->raw, p->raw_len), *c = NULL;
	if (!q || (p->external && !(c = copy_bytes(p->companion, p->companion_len)))) {
		free(q);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	encode_tables(p, q);
	err = p->external ? encode_lists(p, c, p->companion_len, d)
			  : encode_lists(p, q, p->raw_len, d);
	if (err) {
		free(q);
		free(c);
		return err;
	}
	*out = q;
	*len = p->raw_len;
	if (p->external) {
		*companion = c;
		*companion_len = p->companion_len;
	}
	return MH_OK;
}
