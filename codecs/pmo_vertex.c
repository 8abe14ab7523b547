/* SPDX-License-Identifier: MIT */
/* PMO vertices (mhfu-archive(5) "PMO", vertex type and values): the
 * layout a VTYPE gives, vertices decoded to floats, and a vertex edited
 * in place, re-quantised into the bytes it was read from. */
#include "pmo.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "tmh.h"

enum { FMT_NONE = 0, FMT_8, FMT_16, FMT_F32 };

/* Bytes of one component of a weight, UV, normal or position format;
 * a position of format 0 still takes bytes (3 of 1, as the GE reads). */
static unsigned comp_size(unsigned fmt)
{
	static const unsigned size[4] = {1, 1, 2, 4};
	return size[fmt & 3];
}

/* Bytes of a colour of format c (1-3 take none). */
static unsigned color_size(unsigned c)
{
	return c < 4 ? 0 : c == 7 ? 4 : 2;
}

/* Places an attribute of n components of `size` bytes at *at, aligned
 * to its component size; returns its offset. */
static uint8_t place(unsigned *at, unsigned *biggest, unsigned size, unsigned n)
{
	*at = (*at + size - 1) / size * size;
	if (size > *biggest)
		*biggest = size;
	uint8_t here = (uint8_t)*at;
	*at += size * n;
	return here;
}

void pmo_vtype_of(uint32_t word, struct pmo_vtype *vt)
{
	memset(vt, 0, sizeof *vt);
	vt->word = word & 0xFFFFFF;
	vt->uv = word & 3;
	vt->color = word >> 2 & 7;
	vt->normal = word >> 5 & 3;
	vt->pos = word >> 7 & 3;
	vt->weight = word >> 9 & 3;
	vt->index = word >> 11 & 3;
	vt->weights = (uint8_t)((word >> 14 & 7) + 1);
	vt->morphs = (uint8_t)((word >> 18 & 7) + 1);
	vt->through = word >> 23 & 1;
	unsigned at = 0, biggest = 1;
	if (vt->weight)
		vt->weight_at = place(&at, &biggest, comp_size(vt->weight), vt->weights);
	if (vt->uv)
		vt->uv_at = place(&at, &biggest, comp_size(vt->uv), 2);
	if (color_size(vt->color))
		vt->color_at = place(&at, &biggest, color_size(vt->color), 1);
	if (vt->normal)
		vt->normal_at = place(&at, &biggest, comp_size(vt->normal), 3);
	vt->pos_at = place(&at, &biggest, comp_size(vt->pos), 3);
	vt->size = (uint8_t)((at + biggest - 1) / biggest * biggest);
	vt->stride = (uint32_t)vt->size * vt->morphs;
}

/* ---- values --------------------------------------------------------------- */

/* The unit a fixed-point format divides by: 128 or 32768 (f32: 1). */
static float unit_of(unsigned fmt)
{
	return fmt == FMT_8 ? 128.0f : fmt == FMT_16 ? 32768.0f : 1.0f;
}

/* Component k of an attribute as stored: signed or not, as a float. */
static float load_comp(const uint8_t *q, unsigned fmt, bool is_signed, unsigned k)
{
	switch (fmt) {
	case FMT_8: return is_signed ? (float)(int8_t)q[k] : (float)q[k];
	case FMT_16: {
		uint16_t v = le16(q + 2 * k);
		return is_signed ? (float)(int16_t)v : (float)v;
	}
	case FMT_F32: {
		uint32_t bits = le32(q + 4 * k);
		float f;
		memcpy(&f, &bits, sizeof f);
		return f;
	}
	default: return 0;
	}
}

static void decode_position(const struct pmo_vtype *vt, const float scale[3], const uint8_t *q,
			    struct pmo_vertex *v)
{
	if (vt->pos == FMT_NONE || (vt->through && vt->pos == FMT_8))
		return; /* no position; the GE reads 8-bit through-mode ones as 0 */
	for (unsigned c = 0; c < 3; c++) {
		/* through mode: raw units, depth unsigned */
		bool is_signed = !(vt->through && c == 2);
		float raw = load_comp(q + vt->pos_at, vt->pos, is_signed, c);
		v->pos[c] = (vt->through ? raw : raw / unit_of(vt->pos)) * scale[c];
	}
}

static void decode_one(const struct pmo_vtype *vt, const struct pmo_mesh *m, const uint8_t *q,
		       struct pmo_vertex *v)
{
	memset(v, 0, sizeof *v);
	memset(v->rgba, 255, sizeof v->rgba);
	if (vt->weight)
		for (unsigned k = 0; k < vt->weights; k++)
			v->weights[k] = load_comp(q + vt->weight_at, vt->weight, false, k) /
					unit_of(vt->weight);
	if (vt->uv)
		for (unsigned c = 0; c < 2; c++) {
			float raw = load_comp(q + vt->uv_at, vt->uv, false, c);
			if (vt->through && vt->uv == FMT_16)
				v->uv[c] = raw; /* texels */
			else
				v->uv[c] = raw / unit_of(vt->uv) * m->uv_scale[c] + m->uv_offset[c];
		}
	if (color_size(vt->color)) {
		const uint8_t *cq = q + vt->color_at;
		uint32_t word = vt->color == 7 ? le32(cq) : le16(cq);
		tmh_color_unpack((enum tmh_format)(vt->color - 4), word, v->rgba);
	}
	if (vt->normal)
		for (unsigned c = 0; c < 3; c++)
			v->normal[c] = load_comp(q + vt->normal_at, vt->normal, true, c) /
				       unit_of(vt->normal);
	decode_position(vt, m->scale, q, v);
}

enum mh_err pmo_decode_vertices(const struct pmo_region *r, const struct pmo *p,
				struct pmo_group *grp, uint32_t g, uint64_t *budget, bool values,
				struct mh_diag *d)
{
	uint64_t n = grp->vertex_count, stride = grp->vtype.stride;
	if (!n)
		return MH_OK;
	/* Past the region, the offset named is the group record's field. */
	bool inside = grp->vertex_at >= r->start && grp->vertex_at <= r->end;
	uint64_t at = inside ? grp->vertex_at : (uint64_t)p->h.group_off + (uint64_t)g * PMO_GROUP + 8;
	if (!inside || n * stride > r->end - grp->vertex_at)
		return mh_fail(d, MH_ECORRUPT, at,
			       "group %u's %llu vertices of %llu bytes at 0x%llx run past the region",
			       g, (unsigned long long)n, (unsigned long long)stride,
			       (unsigned long long)grp->vertex_at);
	if (n > *budget)
		return mh_fail(d, MH_ECORRUPT, grp->vertex_at, "group %u's vertices are more than "
			       "the PMO's bytes can hold (its blocks overlap others too often)", g);
	*budget -= n;
	if (!values)
		return MH_OK;
	if (!(grp->vertices = malloc(n * sizeof *grp->vertices)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	const struct pmo_mesh *m = &p->meshes[grp->mesh];
	for (uint64_t i = 0; i < n; i++)
		decode_one(&grp->vtype, m, r->mem + grp->vertex_at + i * stride, &grp->vertices[i]);
	return MH_OK;
}

/* ---- edits ------------------------------------------------------------------ */

/* One component being set: where it is stored and what it may hold. */
struct comp_edit {
	struct pmo *p;
	uint32_t g, v;
	const char *field;      /* "position", "weight", ... */
	unsigned k;             /* its component */
	struct mh_diag *d;
};

static bool same_bits(float a, float b)
{
	return !memcmp(&a, &b, sizeof a);
}

static enum mh_err refuse(const struct comp_edit *e, const char *why, double lo, double hi)
{
	if (lo <= hi)
		return mh_fail(e->d, MH_ERANGE, 0, "group %u vertex %u %s[%u]: %s [%g, %g]", e->g,
			       e->v, e->field, e->k, why, lo, hi);
	return mh_fail(e->d, MH_ERANGE, 0, "group %u vertex %u %s[%u]: %s", e->g, e->v, e->field,
		       e->k, why);
}

/* Quantises `want` to format fmt into *stored: (want - off) / scale as
 * the nearest fixed-point value, or as a float.  The message gives the
 * allowed range in the caller's units. */
static enum mh_err quantise(const struct comp_edit *e, unsigned fmt, bool is_signed,
			    double want, double scale, double off, uint32_t *stored)
{
	double lo = is_signed ? (fmt == FMT_8 ? -128 : -32768) : 0;
	double hi = fmt == FMT_8 ? (is_signed ? 127 : 255) : (is_signed ? 32767 : 65535);
	double unit = unit_of(fmt), value = (want - off) / scale;
	if (!isfinite(value))
		return refuse(e, "not a finite value in its scale", 1, 0);
	if (fmt == FMT_F32) {
		/* checked before the conversion, which past FLT_MAX is undefined */
		if (fabs(value) > FLT_MAX)
			return refuse(e, "beyond a float", 1, 0);
		float f = (float)value;
		memcpy(stored, &f, sizeof f);
		return MH_OK;
	}
	double q = nearbyint(value * unit);
	if (q < lo || q > hi) {
		double a = lo / unit * scale + off, b = hi / unit * scale + off;
		return refuse(e, "beyond what the format holds, allowed", a < b ? a : b, a < b ? b : a);
	}
	*stored = (uint32_t)(int32_t)q;
	return MH_OK;
}

static void store_comp(uint8_t *q, unsigned fmt, unsigned k, uint32_t v)
{
	switch (fmt) {
	case FMT_8: q[k] = (uint8_t)v; break;
	case FMT_16: put_le16(q + 2 * k, (uint16_t)v); break;
	default: put_le32(q + 4 * k, v); break;
	}
}

/* Where group g's vertex v is stored in the bytes holding the region. */
static uint8_t *vertex_bytes(struct pmo *p, const struct pmo_group *grp, uint32_t v)
{
	uint8_t *mem = p->external ? p->companion : p->raw;
	return mem + grp->vertex_at + (uint64_t)v * grp->vtype.stride;
}

/* Sets n components of one attribute, checking them all before the
 * first is written into `staged` (a copy of the vertex's bytes). */
static enum mh_err set_attr(struct comp_edit *e, const float *want, const float *have,
			    unsigned n, unsigned fmt, bool is_signed, const float *scale,
			    const float *offset, uint8_t *staged)
{
	for (unsigned k = 0; k < n; k++) {
		e->k = k;
		if (same_bits(want[k], have[k]))
			continue;
		if (fmt == FMT_NONE)
			return refuse(e, "the vertex type has none", 1, 0);
		uint32_t stored = 0;
		enum mh_err err = quantise(e, fmt, is_signed, want[k], scale ? scale[k] : 1.0,
					   offset ? offset[k] : 0.0, &stored);
		if (err)
			return err;
		store_comp(staged, fmt, k, stored);
	}
	return MH_OK;
}

static enum mh_err check_weights(struct comp_edit *e, const struct pmo_vtype *vt,
				 const struct pmo_vertex *nv, const struct pmo_vertex *cur)
{
	for (unsigned k = 0; k < PMO_MAX_WEIGHTS; k++) {
		e->k = k;
		if (same_bits(nv->weights[k], cur->weights[k]))
			continue;
		if (!vt->weight || k >= vt->weights)
			return refuse(e, "the vertex type has no such weight", 1, 0);
		if (!(nv->weights[k] >= 0 && nv->weights[k] <= 1))
			return refuse(e, "a weight is in", 0, 1);
	}
	return MH_OK;
}

static enum mh_err set_color(struct comp_edit *e, const struct pmo_vtype *vt,
			     const struct pmo_vertex *nv, const struct pmo_vertex *cur,
			     uint8_t *staged)
{
	if (!memcmp(nv->rgba, cur->rgba, 4))
		return MH_OK;
	e->field = "colour";
	e->k = 0;
	if (!color_size(vt->color))
		return refuse(e, "the vertex type has none", 1, 0);
	uint32_t w = tmh_color_pack((enum tmh_format)(vt->color - 4), nv->rgba);
	if (vt->color == 7)
		put_le32(staged + vt->color_at, w);
	else
		put_le16(staged + vt->color_at, (uint16_t)w);
	return MH_OK;
}

/* Whether the vertex's type is one an edit can write. */
static enum mh_err check_editable(struct comp_edit *e, const struct pmo_vtype *vt,
				  const struct pmo_vertex *nv, const struct pmo_vertex *cur)
{
	if (!memcmp(nv, cur, sizeof *nv))
		return MH_OK;
	e->field = "vertex";
	if (vt->morphs > 1)
		return refuse(e, "a vertex with morph targets is not edited", 1, 0);
	if (vt->through)
		return refuse(e, "a through-mode vertex is not edited", 1, 0);
	if (vt->pos == FMT_NONE)
		return refuse(e, "a vertex without a position is not edited", 1, 0);
	return MH_OK;
}

static enum mh_err stage_edit(struct comp_edit *e, const struct pmo_group *grp,
			      const struct pmo_mesh *m, const struct pmo_vertex *nv,
			      const struct pmo_vertex *cur, uint8_t *staged)
{
	const struct pmo_vtype *vt = &grp->vtype;
	enum mh_err err = check_editable(e, vt, nv, cur);
	if (err)
		return err;
	e->field = "weight";
	if ((err = check_weights(e, vt, nv, cur)) ||
	    (err = set_attr(e, nv->weights, cur->weights, vt->weight ? vt->weights : 0, vt->weight,
			    false, NULL, NULL, staged + vt->weight_at)))
		return err;
	e->field = "uv";
	if ((err = set_attr(e, nv->uv, cur->uv, 2, vt->uv, false, m->uv_scale, m->uv_offset,
			    staged + vt->uv_at)) ||
	    (err = set_color(e, vt, nv, cur, staged)))
		return err;
	e->field = "normal";
	if ((err = set_attr(e, nv->normal, cur->normal, 3, vt->normal, true, NULL, NULL,
			    staged + vt->normal_at)))
		return err;
	e->field = "position";
	return set_attr(e, nv->pos, cur->pos, 3, vt->pos, true, m->scale, NULL,
			staged + vt->pos_at);
}

enum mh_err pmo_vertex_set(struct pmo *p, uint32_t g, uint32_t v, const struct pmo_vertex *nv,
			   struct mh_diag *d)
{
	if (g >= p->group_count)
		return mh_fail(d, MH_ERANGE, 0, "no group %u (the PMO has %u)", g, p->group_count);
	struct pmo_group *grp = &p->groups[g];
	if (v >= grp->vertex_count)
		return mh_fail(d, MH_ERANGE, 0, "group %u has no vertex %u (it has %u)", g, v,
			       grp->vertex_count);
	const struct pmo_mesh *m = &p->meshes[grp->mesh];
	uint8_t staged[256], *q = vertex_bytes(p, grp, v);
	memcpy(staged, q, grp->vtype.size);
	struct comp_edit e = {.p = p, .g = g, .v = v, .d = d};
	enum mh_err err = stage_edit(&e, grp, m, nv, &grp->vertices[v], staged);
	if (err)
		return err;
	memcpy(q, staged, grp->vtype.size);
	decode_one(&grp->vtype, m, q, &grp->vertices[v]);
	return MH_OK;
}
