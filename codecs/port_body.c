/* SPDX-License-Identifier: MIT */
/* A port's body (port_body.h): per donor group its triangles and each
 * vertex's port joints (the donor's weights or the host's), capped to a
 * palette, quantised, sorted into the body and tip meshes, and laid out
 * with pmo_build. */
#include "port_body.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmo_build.h"
#include "rig.h"

/* Joints one vertex may gather before the cap: a transfer blends three
 * host vertices of up to 8 weights each. */
#define ROW_MAX (3 * PMO_MAX_WEIGHTS)
#define S16_TOP 32767.0
#define U16_SPAN (65535.0 / 32768.0) /* the largest u16 UV at UV scale 1 */
#define NO_AREA 1e-12                /* |cross|^2 below it: a triangle of no area */
/* The written vertex: u16 UV, s8 normal, s16 position, u8 weights
 * (their count set per group, bits 14-16). */
#define BODY_VTYPE (2u | 1u << 5 | 2u << 7 | 1u << 9)

/* A vertex's port joints and their weights, before the cap. */
struct row {
	uint8_t n;
	uint8_t joint[ROW_MAX];
	double w[ROW_MAX];
};

/* One donor group being written. */
struct part {
	uint32_t group;              /* the donor's */
	uint32_t (*tris)[3];
	size_t ntris;
	uint32_t nv;                 /* vertices written: 0 up to the highest a triangle names */
	struct row *rows;
	uint8_t palette[PMO_MAX_WEIGHTS];
	uint8_t npal;
	uint8_t (*q)[PMO_MAX_WEIGHTS]; /* per vertex, per slot: u8 weights */
	uint8_t material;            /* the donor's material */
	bool tip;
};

/* The host's surface: triangles with their corners' joints. */
struct surface {
	size_t ntris;
	double (*at)[3][3];
	const struct row *(*corner)[3];
	struct row *rows;            /* per host vertex, group after group */
};

/* ---- joints --------------------------------------------------------------- */

static void row_add(struct row *r, uint8_t joint, double w)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->joint[i] == joint) {
			r->w[i] += w;
			return;
		}
	if (r->n < ROW_MAX) {
		r->joint[r->n] = joint;
		r->w[r->n++] = w;
	}
}

/* The weights summing to one; nothing left: port joint 0 whole. */
static void row_normalise(struct row *r)
{
	double total = 0;
	unsigned kept = 0;
	for (unsigned i = 0; i < r->n; i++)
		if (r->w[i] > 0) {
			r->joint[kept] = r->joint[i];
			r->w[kept++] = r->w[i];
			total += r->w[i];
		}
	r->n = (uint8_t)kept;
	if (!kept || !(total > 0) || !isfinite(total)) {
		*r = (struct row){.n = 1, .joint = {0}, .w = {1}};
		return;
	}
	for (unsigned i = 0; i < kept; i++)
		r->w[i] /= total;
}

/* The port joint of bone b through map, or of its nearest ancestor with
 * one (a dead bone's weight goes up its chain); PORT_NONE when none. */
static int32_t live_joint(const struct skeleton *rig, const int32_t *map, int32_t b)
{
	for (uint32_t steps = 0; b >= 0 && (uint32_t)b < rig->nbones && steps <= rig->nbones;
	     steps++) {
		if (map[b] != PORT_NONE)
			return map[b];
		b = rig->bones[b].parent;
	}
	return PORT_NONE;
}

/* Vertex v of grp as port joints: weight k on its slot's bone, through
 * map (over rig's bones), up the chain when dead. */
static void vertex_row(const struct pmo_group *grp, uint32_t v, const struct skeleton *rig,
		       const int32_t *map, struct row *r)
{
	memset(r, 0, sizeof *r);
	unsigned n = grp->vtype.weight ? grp->vtype.weights : 1;
	for (unsigned k = 0; k < n; k++) {
		double w = grp->vtype.weight ? grp->vertices[v].weights[k] : 1.0;
		if (!(w > 0) || !isfinite(w))
			continue;
		int32_t j = live_joint(rig, map, grp->slot_bone[k]);
		if (j != PORT_NONE)
			row_add(r, (uint8_t)j, w);
	}
}

/* ---- the host's surface (transfer) ---------------------------------------- */

static void surface_free(struct surface *s)
{
	free(s->at);
	free(s->corner);
	free(s->rows);
	memset(s, 0, sizeof *s);
}

static double dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const double a[3], const double b[3], double out[3])
{
	for (int c = 0; c < 3; c++)
		out[c] = a[c] - b[c];
}

static bool has_area(const double t[3][3])
{
	double e1[3], e2[3];
	sub3(t[1], t[0], e1);
	sub3(t[2], t[0], e2);
	double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
	       z = e1[0] * e2[1] - e1[1] * e2[0];
	return x * x + y * y + z * z >= NO_AREA;
}

/* Every host triangle with an area, its corners' positions and joints. */
static enum mh_err surface_of(const struct port_body_in *in, struct surface *s,
			      struct mh_diag *d)
{
	const struct pmo *h = in->host;
	memset(s, 0, sizeof *s);
	size_t nv = 0, cap = 0;
	for (uint32_t g = 0; g < h->group_count; g++)
		nv += h->groups[g].vertex_count;
	if (!(s->rows = calloc(nv ? nv : 1, sizeof *s->rows)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	enum mh_err err = MH_OK;
	size_t first = 0;
	for (uint32_t g = 0; g < h->group_count && !err; g++) {
		const struct pmo_group *grp = &h->groups[g];
		for (uint32_t v = 0; v < grp->vertex_count; v++) {
			vertex_row(grp, v, in->host_rig, in->joint_of_host, &s->rows[first + v]);
			row_normalise(&s->rows[first + v]);
		}
		uint32_t(*tris)[3] = NULL;
		size_t n = 0;
		if ((err = pmo_group_triangles(h, g, &tris, &n, d)))
			break;
		for (size_t t = 0; t < n; t++) {
			double at[3][3];
			for (int k = 0; k < 3; k++)
				for (int c = 0; c < 3; c++)
					at[k][c] = grp->vertices[tris[t][k]].pos[c];
			if (!has_area(at) || !isfinite(dot3(at[0], at[0]) + dot3(at[1], at[1]) +
							 dot3(at[2], at[2])))
				continue;
			if (s->ntris == cap) {
				cap = cap ? 2 * cap : 256;
				void *a = realloc(s->at, cap * sizeof *s->at);
				if (a)
					s->at = a;
				void *c = realloc(s->corner, cap * sizeof *s->corner);
				if (c)
					s->corner = c;
				if (!a || !c) {
					err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
					break;
				}
			}
			memcpy(s->at[s->ntris], at, sizeof at);
			for (int k = 0; k < 3; k++)
				s->corner[s->ntris][k] = &s->rows[first + tris[t][k]];
			s->ntris++;
		}
		free(tris);
		first += grp->vertex_count;
	}
	if (!err && !s->ntris)
		err = mh_fail(d, MH_ECORRUPT, 0, "the host model has no triangle with an area");
	if (err)
		surface_free(s);
	return err;
}

/* The barycentric shares of the point of triangle t closest to p
 * (Ericson, Real-Time Collision Detection 5.1.5: the Voronoi regions of
 * the corners, then the edges, then the face). */
static void closest_shares(const double t[3][3], const double p[3], double bary[3])
{
	double ab[3], ac[3], ap[3], bp[3], cp[3];
	sub3(t[1], t[0], ab);
	sub3(t[2], t[0], ac);
	sub3(p, t[0], ap);
	double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
	if (d1 <= 0 && d2 <= 0) {
		bary[0] = 1, bary[1] = 0, bary[2] = 0;
		return;
	}
	sub3(p, t[1], bp);
	double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
	if (d3 >= 0 && d4 <= d3) {
		bary[0] = 0, bary[1] = 1, bary[2] = 0;
		return;
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		double v = d1 / (d1 - d3);
		bary[0] = 1 - v, bary[1] = v, bary[2] = 0;
		return;
	}
	sub3(p, t[2], cp);
	double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
	if (d6 >= 0 && d5 <= d6) {
		bary[0] = 0, bary[1] = 0, bary[2] = 1;
		return;
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		double w = d2 / (d2 - d6);
		bary[0] = 1 - w, bary[1] = 0, bary[2] = w;
		return;
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
		double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		bary[0] = 0, bary[1] = 1 - w, bary[2] = w;
		return;
	}
	double denom = va + vb + vc;
	double v = vb / denom, w = vc / denom;
	bary[0] = 1 - v - w, bary[1] = v, bary[2] = w;
}

/* The host's joints at the surface point closest to p. */
static void transfer_row(const struct surface *s, const float pos[3], struct row *r)
{
	double p[3] = {pos[0], pos[1], pos[2]}, best = INFINITY, best_bary[3] = {1, 0, 0};
	size_t best_t = 0;
	for (size_t t = 0; t < s->ntris; t++) {
		double bary[3], at[3] = {0, 0, 0};
		closest_shares(s->at[t], p, bary);
		for (int k = 0; k < 3; k++)
			for (int c = 0; c < 3; c++)
				at[c] += bary[k] * s->at[t][k][c];
		double off[3];
		sub3(p, at, off);
		double d2 = dot3(off, off);
		if (d2 < best) {
			best = d2;
			best_t = t;
			memcpy(best_bary, bary, sizeof bary);
		}
	}
	memset(r, 0, sizeof *r);
	for (int k = 0; k < 3; k++) {
		const struct row *c = s->corner[best_t][k];
		if (!(best_bary[k] > 0))
			continue;
		for (unsigned i = 0; i < c->n; i++)
			row_add(r, c->joint[i], best_bary[k] * c->w[i]);
	}
}

/* ---- the parts ---------------------------------------------------------- */

static void parts_free(struct part *parts, uint32_t n)
{
	for (uint32_t i = 0; parts && i < n; i++) {
		free(parts[i].tris);
		free(parts[i].rows);
		free(parts[i].q);
	}
	free(parts);
}

/* Donor group g's triangles and rows into *p; p->nv 0 when it draws none. */
static enum mh_err part_of(const struct port_body_in *in, const struct surface *s, uint32_t g,
			   struct part *p, struct mh_diag *d)
{
	const struct pmo_group *grp = &in->donor->groups[g];
	p->group = g;
	enum mh_err err = pmo_group_triangles(in->donor, g, &p->tris, &p->ntris, d);
	if (err || !p->ntris)
		return err;
	int mat = pmo_group_material(in->donor, g);
	if (mat < 0)
		return mh_fail(d, MH_ECORRUPT, 0, "donor group %u's material is past its tables", g);
	if (mat > 255)
		return mh_fail(d, MH_ERANGE, 0, "donor group %u's material %d is past 255, what a "
			       "remap entry holds", g, mat);
	p->material = (uint8_t)mat;
	for (size_t t = 0; t < p->ntris; t++)
		for (int k = 0; k < 3; k++)
			if (p->tris[t][k] + 1 > p->nv)
				p->nv = p->tris[t][k] + 1;
	if (p->nv > 65536)
		return mh_fail(d, MH_ERANGE, 0, "donor group %u draws %u vertices, past the 65536 "
			       "u16 indices reach", g, p->nv);
	if (!(p->rows = calloc(p->nv, sizeof *p->rows)) ||
	    !(p->q = calloc(p->nv, sizeof *p->q)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t v = 0; v < p->nv; v++) {
		if (in->skin == PORT_SKIN_TRANSFER)
			transfer_row(s, grp->vertices[v].pos, &p->rows[v]);
		else
			vertex_row(grp, v, in->donor_rig, in->joint_of_bone, &p->rows[v]);
		row_normalise(&p->rows[v]);
	}
	return MH_OK;
}

/* The palette: the group's joints, at most the 8 with the most weight
 * (ties: the lower joint), ascending; rows renormalised over them. */
static void cap_palette(struct part *p, uint32_t *capped)
{
	double total[PORT_BODY_JOINTS] = {0};
	bool used[PORT_BODY_JOINTS] = {false};
	for (uint32_t v = 0; v < p->nv; v++)
		for (unsigned i = 0; i < p->rows[v].n; i++) {
			total[p->rows[v].joint[i]] += p->rows[v].w[i];
			used[p->rows[v].joint[i]] = true;
		}
	bool kept[PORT_BODY_JOINTS] = {false};
	int heaviest = -1;
	for (unsigned k = 0; k < PMO_MAX_WEIGHTS; k++) {
		int best = -1;
		for (int j = 0; j < (int)PORT_BODY_JOINTS; j++)
			if (used[j] && !kept[j] && (best < 0 || total[j] > total[best]))
				best = j;
		if (best < 0)
			break;
		kept[best] = true;
		if (heaviest < 0)
			heaviest = best;
	}
	p->npal = 0;
	for (unsigned j = 0; j < PORT_BODY_JOINTS; j++)
		if (kept[j])
			p->palette[p->npal++] = (uint8_t)j;
	for (uint32_t v = 0; v < p->nv; v++) {
		struct row *r = &p->rows[v];
		unsigned n = 0;
		for (unsigned i = 0; i < r->n; i++)
			if (kept[r->joint[i]]) {
				r->joint[n] = r->joint[i];
				r->w[n++] = r->w[i];
			}
		if (n < r->n)
			(*capped)++;
		r->n = (uint8_t)n;
		if (!n)
			*r = (struct row){.n = 1, .joint = {(uint8_t)heaviest}, .w = {1}};
		row_normalise(r);
	}
}

/* Vertex v's weights as u8 per palette slot, summing to 128: the floors,
 * then a unit each to the largest remainders (ties: the lower slot). */
static void quantise_weights(struct part *p, uint32_t v)
{
	double share[PMO_MAX_WEIGHTS] = {0}, rem[PMO_MAX_WEIGHTS];
	const struct row *r = &p->rows[v];
	for (unsigned i = 0; i < r->n; i++)
		for (unsigned s = 0; s < p->npal; s++)
			if (p->palette[s] == r->joint[i])
				share[s] += r->w[i];
	int left = 128;
	for (unsigned s = 0; s < p->npal; s++) {
		double x = share[s] * 128;
		p->q[v][s] = (uint8_t)floor(x);
		rem[s] = share[s] > 0 ? x - floor(x) : -1;
		left -= p->q[v][s];
	}
	for (; left > 0; left--) {
		unsigned best = 0;
		for (unsigned s = 1; s < p->npal; s++)
			if (rem[s] > rem[best])
				best = s;
		p->q[v][best]++;
		rem[best] = -2;
	}
}

static bool is_tip_joint(const struct port_body_in *in, unsigned j)
{
	for (uint32_t i = 0; i < in->ntip_joints; i++)
		if (in->tip_joints[i] == (int32_t)j)
			return true;
	return false;
}

/* Weights quantised; whether the part is the tip's; the vertices on
 * joints that are not animated counted. */
static void settle_part(const struct port_body_in *in, struct part *p,
			struct port_body_report *rep)
{
	uint32_t sum[PORT_BODY_JOINTS] = {0};
	for (uint32_t v = 0; v < p->nv; v++) {
		quantise_weights(p, v);
		unsigned heaviest = 0;
		for (unsigned s = 0; s < p->npal; s++) {
			sum[p->palette[s]] += p->q[v][s];
			if (p->q[v][s] > p->q[v][heaviest])
				heaviest = s;
		}
		if (p->palette[heaviest] >= rep->animated)
			rep->on_static++;
	}
	unsigned dominant = 0;
	for (unsigned j = 1; j < PORT_BODY_JOINTS; j++)
		if (sum[j] > sum[dominant])
			dominant = j;
	p->tip = in->ntip_joints && is_tip_joint(in, dominant);
}

/* The part's vertices as written, appended to the report. */
static void report_part(const struct part *p, struct port_body_report *rep)
{
	rep->donor_group[rep->ngroups] = p->group;
	rep->palette_size[rep->ngroups++] = p->npal;
	rep->tip_groups += p->tip;
	for (uint32_t v = 0; v < p->nv; v++) {
		struct port_body_vertex *out = &rep->vertices[rep->nvertices++];
		memset(out, 0, sizeof *out);
		out->group = p->group;
		out->vertex = v;
		for (unsigned s = 0; s < p->npal; s++)
			if (p->q[v][s]) {
				out->joint[out->count] = p->palette[s];
				out->weight[out->count++] = p->q[v][s] / 128.0f;
			}
	}
}

/* ---- the PMO -------------------------------------------------------------- */

static uint16_t s16_of(double v, double scale)
{
	double q = nearbyint(v / scale * 32768);
	q = q < -32768 ? -32768 : q > S16_TOP ? S16_TOP : q;
	return (uint16_t)(int16_t)q;
}

static void put16(uint8_t *q, uint16_t v)
{
	q[0] = (uint8_t)v;
	q[1] = (uint8_t)(v >> 8);
}

/* Part p's vertices in the written type vt, into out. */
static void pack_vertices(const struct pmo_group *grp, const struct part *p,
			  const struct pmo_vtype *vt, const float scale[3], const float uv_scale[2],
			  uint8_t *out, uint32_t *uv_clamped)
{
	for (uint32_t v = 0; v < p->nv; v++) {
		const struct pmo_vertex *x = &grp->vertices[v];
		uint8_t *q = out + (size_t)v * vt->stride;
		memcpy(q + vt->weight_at, p->q[v], p->npal);
		for (int c = 0; c < 2; c++) {
			double u = isfinite(x->uv[c]) ? nearbyint(x->uv[c] / uv_scale[c] * 32768) : 0;
			if (u < 0)
				(*uv_clamped)++;
			put16(q + vt->uv_at + 2 * c, (uint16_t)(u < 0 ? 0 : u > 65535 ? 65535 : u));
		}
		for (int c = 0; c < 3; c++) {
			double n = isfinite(x->normal[c]) ? nearbyint(x->normal[c] * 128) : 0;
			q[vt->normal_at + c] = (uint8_t)(int8_t)(n < -128 ? -128 : n > 127 ? 127 : n);
			put16(q + vt->pos_at + 2 * c, s16_of(x->pos[c], scale[c]));
		}
	}
}

/* The header's scale and the UV scale over every written vertex. */
static enum mh_err scales_of(const struct pmo *donor, const struct part *parts, uint32_t n,
			     float scale[3], float uv_scale[2], struct mh_diag *d)
{
	double most[3] = {0}, uv_most[2] = {0};
	for (uint32_t i = 0; i < n; i++) {
		const struct pmo_group *grp = &donor->groups[parts[i].group];
		for (uint32_t v = 0; v < parts[i].nv; v++) {
			const struct pmo_vertex *x = &grp->vertices[v];
			for (int c = 0; c < 3; c++) {
				if (!isfinite(x->pos[c]))
					return mh_fail(d, MH_ERANGE, 0, "donor group %u vertex %u's "
						       "position is not finite", parts[i].group, v);
				most[c] = fmax(most[c], fabs(x->pos[c]));
			}
			for (int c = 0; c < 2; c++)
				if (isfinite(x->uv[c]))
					uv_most[c] = fmax(uv_most[c], x->uv[c]);
		}
	}
	for (int c = 0; c < 3; c++) {
		double s = most[c] > 0 ? most[c] * 32768 / S16_TOP : 1;
		if (s > FLT_MAX)
			return mh_fail(d, MH_ERANGE, 0, "the donor's positions reach %g, past a float "
				       "scale", most[c]);
		scale[c] = (float)s;
		/* rounding to float must not shrink it below the farthest vertex */
		if ((double)scale[c] * S16_TOP / 32768 < most[c])
			scale[c] = nextafterf(scale[c], INFINITY);
	}
	for (int c = 0; c < 2; c++) {
		double s = uv_most[c] > U16_SPAN ? uv_most[c] / U16_SPAN : 1;
		uv_scale[c] = s > FLT_MAX ? FLT_MAX : (float)s;
	}
	return MH_OK;
}

/* What pmo_build needs beside the parts' bytes. */
struct layout {
	struct pmo_build_group *groups;
	uint8_t **vertices;
	uint16_t **indices;
	struct pmo_bone (*palettes)[PMO_MAX_WEIGHTS];
	struct pmo_material *materials;
	uint16_t run[2][255];         /* per mesh: the donor materials it uses */
	unsigned nrun[2];
	uint8_t remap[2][255];
};

static void layout_free(struct layout *l, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (l->vertices)
			free(l->vertices[i]);
		if (l->indices)
			free(l->indices[i]);
	}
	free(l->groups);
	free(l->vertices);
	free(l->indices);
	free(l->palettes);
	free(l->materials);
}

/* The position of donor material `mat` in a mesh's run of donor
 * materials, added at the end when new; -1 when the run is full. */
static int run_slot(uint16_t *run, unsigned *n, uint8_t mat)
{
	for (unsigned i = 0; i < *n; i++)
		if (run[i] == mat)
			return (int)i;
	if (*n >= 255)
		return -1;
	run[*n] = mat;
	return (int)(*n)++;
}

/* Group i of the written PMO: its part's vertices and indices packed. */
static enum mh_err lay_group(const struct pmo *donor, const struct part *p, const float scale[3],
			     const float uv_scale[2], struct layout *l, uint32_t i,
			     uint32_t *uv_clamped, struct mh_diag *d)
{
	uint32_t vtype = BODY_VTYPE | (uint32_t)(p->npal - 1) << 14;
	struct pmo_vtype vt;
	pmo_vtype_of(vtype, &vt);
	if (!(l->vertices[i] = calloc(p->nv, vt.stride)) ||
	    !(l->indices[i] = malloc(p->ntris * 3 * sizeof **l->indices)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	pack_vertices(&donor->groups[p->group], p, &vt, scale, uv_scale, l->vertices[i],
		      uv_clamped);
	for (size_t t = 0; t < p->ntris; t++)
		for (int k = 0; k < 3; k++)
			l->indices[i][3 * t + k] = (uint16_t)p->tris[t][k];
	for (unsigned s = 0; s < p->npal; s++)
		l->palettes[i][s] = (struct pmo_bone){.slot = (uint8_t)s, .bone = p->palette[s]};
	l->groups[i] = (struct pmo_build_group){
		.vtype = vtype, .vertices = l->vertices[i], .vertex_count = p->nv,
		.prim = PMO_TRIANGLES, .indices = l->indices[i], .count = (uint32_t)(p->ntris * 3),
		.palette = l->palettes[i], .palette_count = p->npal};
	return MH_OK;
}

/* ---- the port's body ----------------------------------------------------- */

static enum mh_err check_map(const int32_t *map, uint32_t n, uint32_t joints, const char *what,
			     struct mh_diag *d)
{
	for (uint32_t i = 0; i < n; i++)
		if (map[i] != PORT_NONE && (map[i] < 0 || (uint32_t)map[i] >= joints))
			return mh_fail(d, MH_ERANGE, 0, "%s %u maps to port joint %d, past the "
				       "port's %u joints", what, i, map[i], joints);
	return MH_OK;
}

static enum mh_err check_inputs(const struct port_body_in *in, struct mh_diag *d)
{
	if (!in->donor || !in->donor_rig || !in->port_rig ||
	    (in->skin == PORT_SKIN_SOURCE && !in->joint_of_bone))
		return mh_fail(d, MH_ERANGE, 0, "a port's body needs the donor's model and skeleton, "
			       "the port's rig and (source weights) the donor's bone map");
	if (in->skin != PORT_SKIN_SOURCE &&
	    (in->skin != PORT_SKIN_TRANSFER || !in->host || !in->host_rig || !in->joint_of_host))
		return mh_fail(d, MH_ERANGE, 0, "transferred weights need the host's model, its "
			       "skeleton and its joint map");
	uint32_t joints = in->port_rig->nbones;
	if (!joints || joints > PORT_BODY_JOINTS)
		return mh_fail(d, MH_ERANGE, 0, "the port's rig has %u joints: 1 to %u, what a "
			       "palette entry's byte names", joints, PORT_BODY_JOINTS);
	enum mh_err err = MH_OK;
	if (in->joint_of_bone)
		err = check_map(in->joint_of_bone, in->donor_rig->nbones, joints, "donor bone", d);
	if (!err && in->skin == PORT_SKIN_TRANSFER)
		err = check_map(in->joint_of_host, in->host_rig->nbones, joints, "host joint", d);
	if (!err && in->ntip_joints)
		err = check_map(in->tip_joints, in->ntip_joints, joints, "tip joint", d);
	return err;
}

static enum mh_err lay_out(const struct port_body_in *in, const struct part *parts,
			   uint32_t nparts, struct port_body_report *rep, uint8_t **pmo,
			   size_t *len, struct mh_diag *d)
{
	const struct pmo *donor = in->donor;
	float scale[3], uv_scale[2];
	enum mh_err err = scales_of(donor, parts, nparts, scale, uv_scale, d);
	if (err)
		return err;
	struct layout l;
	memset(&l, 0, sizeof l);
	uint32_t n = 0;
	if (!(l.groups = calloc(nparts ? nparts : 1, sizeof *l.groups)) ||
	    !(l.vertices = calloc(nparts ? nparts : 1, sizeof *l.vertices)) ||
	    !(l.indices = calloc(nparts ? nparts : 1, sizeof *l.indices)) ||
	    !(l.palettes = calloc(nparts ? nparts : 1, sizeof *l.palettes))) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto done;
	}
	/* the body's groups, then the tip's, each in donor order */
	for (unsigned m = 0; m < 2 && !err; m++)
		for (uint32_t i = 0; i < nparts && !err; i++) {
			if (parts[i].tip != (m == 1))
				continue;
			int slot = run_slot(l.run[m], &l.nrun[m], parts[i].material);
			if (slot < 0) {
				err = mh_fail(d, MH_ERANGE, 0, "mesh %u uses more than 255 materials", m);
				break;
			}
			if ((err = lay_group(donor, &parts[i], scale, uv_scale, &l, n,
					     &rep->uv_clamped, d)))
				break;
			l.groups[n++].material = (uint8_t)slot;
			report_part(&parts[i], rep);
		}
	if (err)
		goto done;
	uint32_t mats = (uint32_t)donor->h.material_count + l.nrun[1];
	if (l.nrun[1] && mats > 256) {
		err = mh_fail(d, MH_ERANGE, 0, "the tip's %u material copies after the donor's %u "
			      "pass 255, what a remap entry holds", l.nrun[1],
			      donor->h.material_count);
		goto done;
	}
	if (!(l.materials = calloc(mats ? mats : 1, sizeof *l.materials))) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto done;
	}
	memcpy(l.materials, donor->materials, donor->h.material_count * sizeof *l.materials);
	for (unsigned i = 0; i < l.nrun[0]; i++)
		l.remap[0][i] = (uint8_t)l.run[0][i];
	for (unsigned i = 0; i < l.nrun[1]; i++) {
		l.materials[donor->h.material_count + i] = donor->materials[l.run[1][i]];
		l.remap[1][i] = (uint8_t)(donor->h.material_count + i);
	}
	uint32_t body = n - rep->tip_groups;
	struct pmo_build_mesh meshes[2];
	for (unsigned m = 0; m < 2; m++)
		meshes[m] = (struct pmo_build_mesh){
			.scale = {scale[0], scale[1], scale[2], 1}, .uv_scale = {uv_scale[0], uv_scale[1]},
			.remap = l.remap[m], .remap_count = (uint8_t)l.nrun[m],
			.groups = l.groups + (m ? body : 0),
			.group_count = (uint16_t)(m ? rep->tip_groups : body)};
	struct pmo_build b = {.version = PMO_MHFU, .scale = {scale[0], scale[1], scale[2]},
			      .meshes = meshes, .mesh_count = in->ntip_joints ? 2 : 1,
			      .materials = l.materials, .material_count = (uint16_t)mats};
	if (n > 0xFFFF)
		err = mh_fail(d, MH_ERANGE, 0, "%u groups, past 65535", n);
	else
		err = pmo_build(&b, pmo, len, d);
done:
	layout_free(&l, nparts);
	return err;
}

enum mh_err port_body(const struct port_body_in *in, uint8_t **pmo, size_t *len,
		      struct port_body_report *rep, struct mh_diag *d)
{
	*pmo = NULL;
	*len = 0;
	memset(rep, 0, sizeof *rep);
	enum mh_err err = check_inputs(in, d);
	if (err)
		return err;
	rep->animated = rig_animated(in->port_rig);
	struct surface s = {0};
	if (in->skin == PORT_SKIN_TRANSFER && (err = surface_of(in, &s, d)))
		return err;
	const struct pmo *donor = in->donor;
	uint32_t nparts = 0;
	struct part *parts = calloc(donor->group_count ? donor->group_count : 1, sizeof *parts);
	if (!parts) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto done;
	}
	uint64_t vertices = 0;
	for (uint32_t g = 0; g < donor->group_count; g++) {
		struct part *p = &parts[nparts];
		if ((err = part_of(in, &s, g, p, d))) {
			nparts++;
			goto done;
		}
		if (!p->nv) {
			free(p->tris);
			memset(p, 0, sizeof *p);
			continue;
		}
		cap_palette(p, &rep->capped);
		settle_part(in, p, rep);
		vertices += p->nv;
		nparts++;
	}
	if (!(rep->vertices = calloc(vertices ? vertices : 1, sizeof *rep->vertices)) ||
	    !(rep->donor_group = calloc(nparts ? nparts : 1, sizeof *rep->donor_group)) ||
	    !(rep->palette_size = calloc(nparts ? nparts : 1, 1))) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto done;
	}
	err = lay_out(in, parts, nparts, rep, pmo, len, d);
done:
	parts_free(parts, nparts);
	surface_free(&s);
	return err;
}

void port_body_report_free(struct port_body_report *rep)
{
	if (!rep)
		return;
	free(rep->vertices);
	free(rep->donor_group);
	free(rep->palette_size);
	memset(rep, 0, sizeof *rep);
}
