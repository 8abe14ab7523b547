/* SPDX-License-Identifier: MIT */
/* The tests' PMO synthesizer (mkpmo.h). */
#include "mkpmo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* A growing byte buffer; aborts when out of memory (a test tool). */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static void grow(struct bytes *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		abort();
	memset(p + b->cap, 0, cap - b->cap);
	b->p = p;
	b->cap = cap;
}

/* n zero bytes; returns where they start. */
static size_t reserve(struct bytes *b, size_t n)
{
	if (!n)
		return b->len;
	grow(b, n);
	size_t at = b->len;
	memset(b->p + at, 0, n);
	b->len += n;
	return at;
}

/* n zero bytes; returns them (b->p may move: never b->p + reserve()). */
static uint8_t *take(struct bytes *b, size_t n)
{
	size_t at = reserve(b, n);
	return b->p + at;
}

static void pad_to(struct bytes *b, size_t a)
{
	reserve(b, (a - b->len % a) % a);
}

static void w16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void w32(uint8_t *p, uint32_t v)
{
	w16(p, v);
	w16(p + 2, v >> 16);
}

static void wf32(uint8_t *p, float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	w32(p, bits);
}

static void put_word(struct bytes *b, uint32_t v)
{
	w32(take(b, 4), v);
}

/* A float in [lo, hi] in steps of 1/64. */
static float rfloat(struct rng *r, float lo, float hi)
{
	uint32_t steps = (uint32_t)((hi - lo) * 64);
	return lo + (float)rng_range(r, 0, steps) / 64.0f;
}

/* ---- vertex types ------------------------------------------------------- */

struct vlayout {
	uint32_t word;
	unsigned uv, color, normal, pos, weight, weights, index;
	unsigned weight_at, uv_at, color_at, normal_at, pos_at, size;
};

static unsigned comp(unsigned fmt)
{
	return fmt == 3 ? 4 : fmt == 2 ? 2 : 1;
}

static unsigned put_attr(unsigned *at, unsigned *big, unsigned size, unsigned n)
{
	*at = (*at + size - 1) / size * size;
	if (size > *big)
		*big = size;
	unsigned here = *at;
	*at += size * n;
	return here;
}

/* The layout, computed here from the spec (not from codecs/pmo). */
static void lay_out(struct vlayout *l)
{
	unsigned at = 0, big = 1;
	if (l->weight)
		l->weight_at = put_attr(&at, &big, comp(l->weight), l->weights);
	if (l->uv)
		l->uv_at = put_attr(&at, &big, comp(l->uv), 2);
	if (l->color >= 4)
		l->color_at = put_attr(&at, &big, l->color == 7 ? 4 : 2, 1);
	if (l->normal)
		l->normal_at = put_attr(&at, &big, comp(l->normal), 3);
	l->pos_at = put_attr(&at, &big, comp(l->pos), 3);
	l->size = (at + big - 1) / big * big;
	l->word = l->uv | l->color << 2 | l->normal << 5 | l->pos << 7 | l->weight << 9 |
		  l->index << 11 | (l->weights ? l->weights - 1 : 0) << 14;
}

static void pick_vtype(struct rng *r, const struct mkpmo_shape *s, unsigned nv, bool indexed,
		       struct vlayout *l)
{
	static const unsigned colors[] = {0, 0, 4, 5, 6, 7, 7, 2};
	memset(l, 0, sizeof *l);
	l->pos = rng_range(r, 1, 3);
	l->uv = rng_range(r, 0, 3);
	l->normal = rng_range(r, 0, 3);
	l->color = colors[rng_below(r, 8)];
	if (s->skinned) {
		l->weight = rng_range(r, 1, 3);
		l->weights = rng_range(r, 1, 8);
	}
	l->index = indexed ? (nv <= 256 ? 1 : 2) : 0;
	lay_out(l);
}

/* One component of fixed-point format fmt (1 or 2), signed or not. */
static void put_fixed(uint8_t *q, unsigned fmt, unsigned k, uint32_t v)
{
	if (fmt == 1)
		q[k] = (uint8_t)v;
	else
		w16(q + 2 * k, v);
}

static void put_comps(struct rng *r, uint8_t *q, unsigned fmt, unsigned n, bool is_signed,
		      float lo, float hi)
{
	for (unsigned k = 0; k < n; k++) {
		if (fmt == 3)
			wf32(q + 4 * k, rfloat(r, lo, hi));
		else if (is_signed)
			put_fixed(q, fmt, k, (uint32_t)rng_next(r));
		else
			put_fixed(q, fmt, k, rng_range(r, 0, fmt == 1 ? 255 : 65535));
	}
}

/* Weights summing to about one unit. */
static void put_weights(struct rng *r, uint8_t *q, const struct vlayout *l)
{
	uint32_t unit = l->weight == 1 ? 128 : 32768, left = unit;
	for (unsigned k = 0; k < l->weights; k++) {
		uint32_t w = k + 1 == l->weights ? left : rng_range(r, 0, left);
		left -= w;
		if (l->weight == 3)
			wf32(q + 4 * k, (float)w / (float)unit);
		else
			put_fixed(q, l->weight, k, w);
	}
}

static void put_vertex(struct rng *r, uint8_t *q, const struct vlayout *l, bool dirty_pad)
{
	/* Alignment bytes: left random where dirty_pad, zero elsewhere. */
	if (dirty_pad)
		rng_bytes(r, q, l->size);
	else
		memset(q, 0, l->size);
	if (l->weight)
		put_weights(r, q + l->weight_at, l);
	if (l->uv)
		put_comps(r, q + l->uv_at, l->uv, 2, false, 0, 4);
	if (l->color >= 4) {
		if (l->color == 7)
			w32(q + l->color_at, (uint32_t)rng_next(r));
		else
			w16(q + l->color_at, (uint32_t)rng_next(r));
	}
	if (l->normal)
		put_comps(r, q + l->normal_at, l->normal, 3, true, -1, 1);
	put_comps(r, q + l->pos_at, l->pos, 3, true, -2, 2);
}

/* ---- a group's block -------------------------------------------------------- */

struct prim {
	unsigned type, count;
	bool fface, own_vaddr, unknown;
};

struct block_plan {
	struct prim prims[6];
	unsigned nprims;
	unsigned nv;          /* vertices */
	bool indexed;
	uint32_t *indices;    /* the indexed draws', in order */
	unsigned nindices;
	struct vlayout l;
};

static unsigned prim_count(struct rng *r, unsigned type)
{
	if (type == 3)
		return 3 * rng_range(r, 1, 5);
	return rng_range(r, 3, 12);
}

static void plan_block(struct rng *r, const struct mkpmo_shape *s, struct block_plan *bp)
{
	static const unsigned types[] = {4, 4, 3, 5};
	memset(bp, 0, sizeof *bp);
	bp->indexed = rng_below(r, 10) < 7;
	bp->nprims = rng_range(r, 1, 6);
	unsigned total = 0;
	for (unsigned i = 0; i < bp->nprims; i++) {
		struct prim *pr = &bp->prims[i];
		pr->type = types[rng_below(r, 4)];
		pr->count = prim_count(r, pr->type);
		pr->fface = rng_below(r, 4) == 0;
		pr->own_vaddr = s->p3rd && !bp->indexed && rng_below(r, 2);
		pr->unknown = rng_below(r, 8) == 0;
		total += pr->count;
	}
	unsigned want = s->vertices < 3 ? 3 : s->vertices;
	bp->nv = bp->indexed ? rng_range(r, 3, 2 * want - 3) : total;
	pick_vtype(r, s, bp->nv, bp->indexed, &bp->l);
	if (!bp->indexed)
		return;
	bp->indices = malloc(total * sizeof *bp->indices);
	if (!bp->indices)
		abort();
	for (unsigned i = 0; i < total; i++)
		bp->indices[i] = (uint32_t)rng_below(r, bp->nv);
	bp->indices[0] = bp->nv - 1; /* the draws reach every vertex */
	bp->nindices = total;
}

/* The display list; vaddr_arg and iaddr_arg are the buffers' distances
 * from the ORIGIN (the list's first word). */
static void put_list(struct rng *r, struct bytes *g, const struct block_plan *bp,
		     uint32_t vaddr_arg, uint32_t iaddr_arg, uint32_t *unknown)
{
	static const uint32_t unknown_ops[] = {0x1D, 0x21, 0xDB, 0x50, 0xC6};
	put_word(g, 0x14u << 24);               /* ORIGIN */
	put_word(g, 0x10u << 24);               /* BASE 0 */
	if (bp->indexed)
		put_word(g, 0x02u << 24 | iaddr_arg);
	put_word(g, 0x01u << 24 | vaddr_arg);
	put_word(g, 0x12u << 24 | bp->l.word);
	uint32_t v = vaddr_arg;
	for (unsigned i = 0; i < bp->nprims; i++) {
		const struct prim *pr = &bp->prims[i];
		if (pr->unknown) {
			put_word(g, unknown_ops[rng_below(r, 5)] << 24 |
					    (uint32_t)rng_below(r, 1u << 24));
			(*unknown)++;
		}
		put_word(g, 0x9Bu << 24 | pr->fface);
		if (pr->own_vaddr)
			put_word(g, 0x01u << 24 | v);
		put_word(g, 0x04u << 24 | pr->type << 16 | pr->count);
		if (!bp->indexed)
			v += pr->count * bp->l.size;
	}
	put_word(g, 0x13u << 24);               /* OFFSETADDR 0 */
	put_word(g, 0x0Bu << 24);               /* RET */
}

/* Lays a block out in the region g (aligned as the version wants): the
 * list, room for the vertices, the indices; fills its record's offsets
 * and returns where the vertices go (the caller writes them). */
static size_t lay_block(struct rng *r, bool p3rd, struct bytes *g, const struct block_plan *bp,
			uint8_t rec[16], uint32_t *unknown)
{
	size_t a = p3rd ? 4 : 16;
	pad_to(g, a);
	size_t list_at = g->len;
	/* The list's length does not depend on the addresses: lay it out
	 * once to measure, then again with them (the same rng draws). */
	struct rng keep = *r;
	uint32_t scratch = 0;
	put_list(r, g, bp, 0, 0, &scratch);
	size_t list_len = g->len - list_at;
	size_t vert_at = (list_at + list_len + a - 1) / a * a;
	size_t vert_len = (size_t)bp->nv * bp->l.size;
	size_t idx_at = bp->indexed ? (vert_at + vert_len + a - 1) / a * a : 0;
	g->len = list_at;
	*r = keep;
	put_list(r, g, bp, (uint32_t)(vert_at - list_at), (uint32_t)(idx_at - list_at), unknown);
	pad_to(g, a);
	reserve(g, vert_len);
	if (bp->indexed) {
		pad_to(g, a);
		unsigned isize = bp->l.index == 1 ? 1 : 2;
		size_t at = reserve(g, (size_t)bp->nindices * isize);
		for (unsigned i = 0; i < bp->nindices; i++) {
			if (isize == 1)
				g->p[at + i] = (uint8_t)bp->indices[i];
			else
				w16(g->p + at + 2 * i, bp->indices[i]);
		}
	}
	w32(rec + 4, (uint32_t)list_at);
	w32(rec + 8, (uint32_t)vert_at);
	w32(rec + 12, (uint32_t)idx_at);
	return vert_at;
}

/* A block of random vertices. */
static void put_block(struct rng *r, const struct mkpmo_shape *s, struct bytes *g,
		      const struct block_plan *bp, uint8_t rec[16], uint32_t *unknown)
{
	size_t vert_at = lay_block(r, s->p3rd, g, bp, rec, unknown);
	bool dirty = rng_below(r, 2);
	for (unsigned i = 0; i < bp->nv; i++)
		put_vertex(r, g->p + vert_at + (size_t)i * bp->l.size, &bp->l, dirty);
}

/* ---- the tables ---------------------------------------------------------------- */

struct tables {
	unsigned meshes, groups, materials, remaps, bones;
	unsigned (*mesh_counts)[2];    /* per mesh: remap count, group count */
	uint8_t *remap;
	uint8_t (*bones_of)[2 * 8];    /* per group: up to 8 pairs */
	uint8_t *nbones;
	uint8_t (*group_rec)[16];
};

static void plan_tables(struct rng *r, const struct mkpmo_shape *s, struct tables *t)
{
	memset(t, 0, sizeof *t);
	t->meshes = s->meshes ? s->meshes : 1;
	unsigned gpm = s->groups_per_mesh ? s->groups_per_mesh : 1;
	t->groups = t->meshes * gpm;
	t->mesh_counts = calloc(t->meshes, sizeof *t->mesh_counts);
	t->remap = calloc(t->meshes * 3, 1);
	t->bones_of = calloc(t->groups, sizeof *t->bones_of);
	t->nbones = calloc(t->groups, 1);
	t->group_rec = calloc(t->groups, sizeof *t->group_rec);
	if (!t->mesh_counts || !t->remap || !t->bones_of || !t->nbones || !t->group_rec)
		abort();
	t->materials = rng_range(r, 1, 8);
	for (unsigned m = 0; m < t->meshes; m++) {
		unsigned n = rng_range(r, 1, 3);
		t->mesh_counts[m][0] = n;
		t->mesh_counts[m][1] = gpm;
		for (unsigned i = 0; i < n; i++)
			t->remap[t->remaps++] = (uint8_t)rng_below(r, t->materials);
	}
	if (!s->remap && s->p3rd && t->materials < t->remaps)
		t->materials = t->remaps; /* in order: one material an entry */
	for (unsigned g = 0; g < t->groups; g++) {
		unsigned n = s->skinned ? (g ? rng_range(r, 0, 4) : 8) : (g ? 0 : 1);
		for (unsigned i = 0; i < n; i++) {
			t->bones_of[g][2 * i] = (uint8_t)(g ? rng_below(r, 8) : i);
			t->bones_of[g][2 * i + 1] = (uint8_t)rng_below(r, 48);
		}
		t->nbones[g] = (uint8_t)n;
		t->group_rec[g][0] = (uint8_t)rng_below(r, t->mesh_counts[g / gpm][0]);
		t->group_rec[g][1] = (uint8_t)n;
		w16(t->group_rec[g] + 2, t->bones);
		t->bones += n;
	}
}

static void free_tables(struct tables *t)
{
	free(t->mesh_counts);
	free(t->remap);
	free(t->bones_of);
	free(t->nbones);
	free(t->group_rec);
}

/* A mesh record's fields (mhfu-archive(5) "PMO"). */
struct mesh_rec {
	float scale[4], uv_scale[2], uv_offset[2]; /* scale, uv_offset: MHP3rd */
	uint32_t lighting, blend;
	unsigned remaps, remap_first, groups, group_first;
};

static void put_mesh_rec(bool p3rd, struct bytes *b, const struct mesh_rec *m)
{
	uint8_t *q = take(b, p3rd ? 0x30 : 0x18);
	if (p3rd) {
		for (int c = 0; c < 4; c++)
			wf32(q + 4 * c, m->scale[c]);
		q += 16;
	}
	wf32(q, m->uv_scale[0]);
	wf32(q + 4, m->uv_scale[1]);
	if (p3rd) {
		wf32(q + 8, m->uv_offset[0]);
		wf32(q + 12, m->uv_offset[1]);
		q += 8;
	}
	w32(q + 8, m->lighting);
	w32(q + 12, m->blend);
	q[16] = (uint8_t)m->remaps;
	w16(q + 18, m->remap_first);
	w16(q + 20, m->groups);
	w16(q + 22, m->group_first);
}

static void put_mesh(struct rng *r, const struct mkpmo_shape *s, struct bytes *b,
		     const struct tables *t, unsigned m, unsigned *remap_at)
{
	struct mesh_rec mr;
	memset(&mr, 0, sizeof mr);
	if (s->p3rd) {
		for (int c = 0; c < 3; c++)
			mr.scale[c] = rfloat(r, 1, 300);
		mr.scale[3] = rng_below(r, 2) ? 1.0f : rfloat(r, 0, 2);
	}
	mr.uv_scale[0] = rfloat(r, 0.5f, 2);
	mr.uv_scale[1] = rfloat(r, 0.5f, 2);
	if (s->p3rd) {
		mr.uv_offset[0] = rfloat(r, -1, 1);
		mr.uv_offset[1] = rfloat(r, -1, 1);
	}
	mr.lighting = 0x80000003u | (uint32_t)rng_below(r, 2) << 2;
	mr.blend = rng_below(r, 2) ? 0xDF000000u | (uint32_t)rng_below(r, 1u << 24) : 0;
	mr.remaps = t->mesh_counts[m][0];
	mr.remap_first = *remap_at;
	mr.groups = t->mesh_counts[m][1];
	mr.group_first = m * t->mesh_counts[0][1];
	put_mesh_rec(s->p3rd, b, &mr);
	*remap_at += t->mesh_counts[m][0];
}

/* The group, remap (when with_remap) and bone-palette tables, at
 * offs[1..3]. */
static void put_group_tables(struct bytes *b, const struct tables *t, bool with_remap,
			     uint32_t offs[6])
{
	pad_to(b, 16);
	offs[1] = (uint32_t)b->len;
	for (unsigned g = 0; g < t->groups; g++)
		memcpy(take(b, 16), t->group_rec[g], 16);
	offs[2] = 0;
	if (with_remap) {
		offs[2] = (uint32_t)b->len;
		memcpy(take(b, t->remaps), t->remap, t->remaps);
		pad_to(b, 16);
	}
	offs[3] = (uint32_t)b->len;
	for (unsigned g = 0; g < t->groups; g++)
		memcpy(take(b, 2u * t->nbones[g]), t->bones_of[g], 2u * t->nbones[g]);
	pad_to(b, 16);
	offs[4] = (uint32_t)b->len;
}

static void put_material(struct bytes *b, uint32_t color, uint32_t ambient, uint8_t texture,
			 uint32_t kept)
{
	uint8_t *q = take(b, 16);
	w32(q, color);
	w32(q + 4, ambient);
	q[8] = texture;
	w32(q + 12, kept);
}

static void put_tables(struct rng *r, const struct mkpmo_shape *s, struct bytes *b,
		       const struct tables *t, uint32_t offs[6])
{
	reserve(b, 0x40);
	offs[0] = (uint32_t)b->len;
	unsigned remap_at = 0;
	for (unsigned m = 0; m < t->meshes; m++)
		put_mesh(r, s, b, t, m, &remap_at);
	put_group_tables(b, t, s->remap || !s->p3rd, offs);
	for (unsigned i = 0; i < t->materials; i++) {
		uint32_t color = (uint32_t)rng_next(r) | 0xFF000000u;
		uint8_t texture = rng_below(r, 4) ? (uint8_t)rng_below(r, 6) : 0xFF;
		uint32_t kept = rng_below(r, 4) ? 0 : (uint32_t)rng_next(r); /* leftover memory */
		put_material(b, color, 0x7F7F7F, texture, kept);
	}
	offs[5] = (uint32_t)b->len;
}

/* The header's fields; the cull radius is the largest scale component. */
static void put_header_fields(bool p3rd, uint8_t *q, const float scale[3], unsigned meshes,
			      unsigned materials, const uint32_t offs[6], uint32_t size)
{
	memcpy(q, "pmo\0", 4);
	memcpy(q + 4, p3rd ? "102\0" : "1.0\0", 4);
	w32(q + 8, size);
	float most = 0;
	for (int c = 0; c < 3; c++) {
		most = scale[c] > most ? scale[c] : most;
		wf32(q + 0x10 + 4 * c, scale[c]);
	}
	wf32(q + 0x0C, most);
	w16(q + 0x1C, meshes);
	w16(q + 0x1E, materials);
	for (int i = 0; i < 6; i++)
		w32(q + 0x20 + 4 * i, offs[i]);
}

static void put_header(struct rng *r, const struct mkpmo_shape *s, uint8_t *q,
		       const struct tables *t, const uint32_t offs[6], uint32_t size)
{
	float scale[3];
	for (int c = 0; c < 3; c++)
		scale[c] = rfloat(r, 1, 300);
	put_header_fields(s->p3rd, q, scale, t->meshes, t->materials, offs, size);
}

/* Joins the header and tables (head) with the region: in the PMO, or
 * (companion) as the companion entry; `tail` random bytes after the
 * PMO's size or the companion's region.  Takes head's and region's
 * bytes. */
static void join(struct rng *r, bool companion, unsigned tail, struct bytes *head,
		 struct bytes *region, struct mkpmo *out)
{
	if (!companion)
		memcpy(take(head, region->len), region->p, region->len);
	struct bytes *tail_to = companion ? region : head;
	rng_bytes(r, take(tail_to, tail), tail);
	out->pmo = head->p;
	out->len = head->len;
	if (companion) {
		out->companion = region->p;
		out->companion_len = region->len;
	} else {
		free(region->p);
	}
}

uint64_t mkpmo_shape_of(const uint8_t *data, size_t size, struct mkpmo_shape *s)
{
	uint8_t head[12] = {0};
	memcpy(head, data, size < 12 ? size : 12);
	uint64_t seed = 0;
	for (int i = 0; i < 8; i++)
		seed |= (uint64_t)head[i] << 8 * i;
	*s = (struct mkpmo_shape){.p3rd = head[8] & 1, .skinned = head[8] >> 1 & 1,
				  .remap = head[8] >> 2 & 1, .companion = head[8] >> 3 & 1,
				  .meshes = 1 + head[9] % 3, .groups_per_mesh = 1 + head[10] % 4,
				  .vertices = 3 + head[11] % 40, .tail = head[8] >> 4};
	return seed;
}

void mkpmo_build(uint64_t seed, const struct mkpmo_shape *s, struct mkpmo *out)
{
	struct rng r;
	rng_init(&r, seed, 0x504d4f);
	memset(out, 0, sizeof *out);
	struct tables t;
	plan_tables(&r, s, &t);
	struct bytes region = {0}, head = {0};
	out->groups = t.groups;
	out->group_vertices = calloc(t.groups, sizeof *out->group_vertices);
	if (!out->group_vertices)
		abort();
	for (unsigned g = 0; g < t.groups; g++) {
		struct block_plan bp;
		plan_block(&r, s, &bp);
		put_block(&r, s, &region, &bp, t.group_rec[g], &out->unknown_cmds);
		out->group_vertices[g] = bp.nv;
		out->vertices += bp.nv;
		free(bp.indices);
	}
	pad_to(&region, 16);
	uint32_t offs[6];
	put_tables(&r, s, &head, &t, offs);
	put_header(&r, s, head.p, &t, offs, (uint32_t)(head.len + region.len));
	join(&r, s->p3rd && s->companion, s->tail, &head, &region, out);
	free_tables(&t);
}

/* ---- bodies ---------------------------------------------------------------- */

/* A vertex before quantising. */
struct fvert {
	float pos[3], normal[3], uv[2];
	float w;                  /* the bone's weight; the parent's is 1 - w */
};

/* One group of a body: a band between two rings or a cap. */
struct body_group {
	unsigned bone, mesh;
	uint8_t material;         /* 0: the mesh's textured entry, 1: its plain one */
	bool fface, wide;         /* wide: u16 indices */
	unsigned nv, nidx;
	struct fvert *v;
	uint32_t *idx;
};

struct body_plan {
	struct body_group *groups;
	unsigned ngroups;
	float scale[3];           /* the whole body's */
	float (*mesh_scale)[3];   /* each mesh's */
};

static void sub3(const float a[3], const float b[3], float out[3])
{
	for (int c = 0; c < 3; c++)
		out[c] = a[c] - b[c];
}

static float len3(const float v[3])
{
	return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static void cross3(const float a[3], const float b[3], float out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

static void unit3(float v[3])
{
	float n = len3(v);
	for (int c = 0; c < 3; c++)
		v[c] /= n;
}

/* A tube's frame: from, its axis (unit), its length, and two unit
 * vectors across it. */
struct tube {
	float from[3], axis[3], across[2][3], length, radius;
};

static void tube_of(struct rng *r, const struct mkpmo_body *b, unsigned bone, struct tube *t)
{
	const float *to = b->bones[bone].at;
	int32_t parent = b->bones[bone].parent;
	static const float below[3] = {0, 16, 0}, up[3] = {0, 1, 0}, side[3] = {1, 0, 0};
	if (parent >= 0 && (unsigned)parent < b->nbones)
		memcpy(t->from, b->bones[parent].at, sizeof t->from);
	else
		sub3(to, below, t->from);
	sub3(to, t->from, t->axis);
	t->length = len3(t->axis);
	if (t->length < 0.5f) { /* a joint on its parent's: a short tube upward */
		memcpy(t->axis, up, sizeof t->axis);
		t->length = 0.5f;
	} else {
		unit3(t->axis);
	}
	cross3(t->axis, fabsf(t->axis[1]) > 0.9f ? side : up, t->across[0]);
	unit3(t->across[0]);
	cross3(t->axis, t->across[0], t->across[1]);
	float radius = 0.2f * t->length;
	radius = radius < 3 ? 3 : radius > 40 ? 40 : radius;
	t->radius = radius * (0.8f + (float)rng_below(r, 41) / 100.0f);
}

/* Vertex `s` of ring `k` of `rings`: on the surface, or (cap) with the
 * cap's normal and a disc's UVs. */
static void ring_vertex(const struct tube *t, unsigned k, unsigned rings, unsigned s,
			unsigned sides, int cap, struct fvert *v)
{
	float along = (float)k / (float)(rings - 1), angle = 6.2831853f * (float)s / (float)sides;
	float c = cosf(angle), sn = sinf(angle);
	for (int i = 0; i < 3; i++) {
		float out = c * t->across[0][i] + sn * t->across[1][i];
		v->pos[i] = t->from[i] + t->axis[i] * t->length * along + out * t->radius;
		v->normal[i] = cap ? (float)cap * t->axis[i] : out;
	}
	if (cap) {
		v->uv[0] = 0.5f + 0.45f * c;
		v->uv[1] = 0.5f + 0.45f * sn;
	} else {
		v->uv[0] = (float)s / (float)sides;
		v->uv[1] = along * 0.99f;
	}
	v->w = along < 0.5f ? 0.5f + along : 1.0f; /* blended near the parent */
}

static void alloc_group(struct body_group *g, unsigned nv, unsigned nidx)
{
	g->nv = nv;
	g->nidx = nidx;
	g->v = calloc(nv, sizeof *g->v);
	g->idx = calloc(nidx, sizeof *g->idx);
	if (!g->v || !g->idx)
		abort();
}

/* A band: rings k and k + 1, one strip round the tube. */
static void plan_band(const struct tube *t, const struct mkpmo_body *b, unsigned k,
		      struct body_group *g)
{
	unsigned n = b->sides;
	alloc_group(g, 2 * n, 2 * (n + 1));
	for (unsigned s = 0; s < n; s++) {
		ring_vertex(t, k, b->rings, s, n, 0, &g->v[s]);
		ring_vertex(t, k + 1, b->rings, s, n, 0, &g->v[n + s]);
	}
	for (unsigned s = 0; s <= n; s++) {
		g->idx[2 * s] = s % n;
		g->idx[2 * s + 1] = n + s % n;
	}
}

/* A cap closing ring k: one strip zigzagging across it. */
static void plan_cap(const struct tube *t, const struct mkpmo_body *b, unsigned k,
		     struct body_group *g)
{
	unsigned n = b->sides, lo = 1, hi = n - 1, at = 1;
	alloc_group(g, n, n);
	for (unsigned s = 0; s < n; s++)
		ring_vertex(t, k, b->rings, s, n, k ? 1 : -1, &g->v[s]);
	g->idx[0] = 0;
	while (lo <= hi) {
		g->idx[at++] = lo++;
		if (lo <= hi)
			g->idx[at++] = hi--;
	}
	g->material = 1;
	g->fface = k == 0;
}

static void grow_scale(float scale[3], const float pos[3])
{
	for (int c = 0; c < 3; c++)
		if (fabsf(pos[c]) > scale[c])
			scale[c] = fabsf(pos[c]);
}

/* Each bone's groups in bone order (so each mesh's run is contiguous),
 * and the scales that cover them. */
static void plan_body(struct rng *r, const struct mkpmo_body *b, unsigned meshes,
		      struct body_plan *bp)
{
	unsigned per_bone = b->rings + 1;
	memset(bp, 0, sizeof *bp);
	bp->ngroups = b->nbones * per_bone;
	bp->groups = calloc(bp->ngroups, sizeof *bp->groups);
	bp->mesh_scale = calloc(meshes, sizeof *bp->mesh_scale);
	if (!bp->groups || !bp->mesh_scale)
		abort();
	for (unsigned bone = 0; bone < b->nbones; bone++) {
		struct tube t;
		tube_of(r, b, bone, &t);
		/* The bands first, then the two caps: a bone's first group is
		 * its widest (the README's edit reaches vertex 40 of group 12). */
		struct body_group *g = &bp->groups[bone * per_bone];
		for (unsigned k = 0; k + 1 < b->rings; k++)
			plan_band(&t, b, k, &g[k]);
		plan_cap(&t, b, 0, &g[b->rings - 1]);
		plan_cap(&t, b, b->rings - 1, &g[b->rings]);
		for (unsigned i = 0; i < per_bone; i++) {
			g[i].bone = bone;
			g[i].mesh = bone * meshes / b->nbones;
			g[i].wide = rng_below(r, 3) == 0;
			for (unsigned v = 0; v < g[i].nv; v++) {
				grow_scale(bp->scale, g[i].v[v].pos);
				grow_scale(bp->mesh_scale[g[i].mesh], g[i].v[v].pos);
			}
		}
	}
	/* A margin, so the farthest vertex stays inside s16's range. */
	for (int c = 0; c < 3; c++) {
		bp->scale[c] = bp->scale[c] * 1.01f + 1;
		for (unsigned m = 0; m < meshes; m++)
			bp->mesh_scale[m][c] = bp->mesh_scale[m][c] * 1.01f + 1;
	}
}

static void free_body(struct body_plan *bp)
{
	for (unsigned g = 0; g < bp->ngroups; g++) {
		free(bp->groups[g].v);
		free(bp->groups[g].idx);
	}
	free(bp->groups);
	free(bp->mesh_scale);
}

/* The tables: two remap entries a mesh (its textured material, its plain
 * one), and per group the palette entries that change slots 0 and 1 to
 * its bone and its parent. */
static void body_tables(const struct mkpmo_body *b, const struct body_plan *bp,
			unsigned meshes, struct tables *t)
{
	memset(t, 0, sizeof *t);
	t->meshes = meshes;
	t->groups = bp->ngroups;
	t->remaps = 2 * meshes;
	unsigned tex = b->textures;
	t->materials = b->p3rd ? 2 * meshes : (tex ? tex : 1) + 1;
	t->mesh_counts = calloc(meshes, sizeof *t->mesh_counts);
	t->remap = calloc(t->remaps, 1);
	t->bones_of = calloc(t->groups, sizeof *t->bones_of);
	t->nbones = calloc(t->groups, 1);
	t->group_rec = calloc(t->groups, sizeof *t->group_rec);
	if (!t->mesh_counts || !t->remap || !t->bones_of || !t->nbones || !t->group_rec)
		abort();
	for (unsigned m = 0; m < meshes; m++) {
		t->mesh_counts[m][0] = 2;
		t->remap[2 * m] = (uint8_t)(tex ? m % tex : 0);
		t->remap[2 * m + 1] = (uint8_t)(t->materials - 1);
	}
	int slot[2] = {-1, -1};
	for (unsigned g = 0; g < t->groups; g++) {
		const struct body_group *bg = &bp->groups[g];
		int32_t parent = b->bones[bg->bone].parent;
		int want[2] = {(int)bg->bone, parent >= 0 ? (int)parent : (int)bg->bone};
		unsigned n = 0;
		for (int k = 0; b->skinned && k < 2; k++)
			if (slot[k] != want[k]) {
				t->bones_of[g][2 * n] = (uint8_t)k;
				t->bones_of[g][2 * n + 1] = (uint8_t)want[k];
				slot[k] = want[k];
				n++;
			}
		t->mesh_counts[bg->mesh][1]++;
		t->nbones[g] = (uint8_t)n;
		t->group_rec[g][0] = bg->material;
		t->group_rec[g][1] = (uint8_t)n;
		w16(t->group_rec[g] + 2, t->bones);
		t->bones += n;
	}
}

/* s16 of v / scale, v within the scale. */
static uint32_t s16_of(float v, float scale)
{
	long q = lrintf(v / scale * 32768.0f);
	return (uint32_t)(q < -32768 ? -32768 : q > 32767 ? 32767 : q);
}

static void put_body_vertex(uint8_t *q, const struct vlayout *l, const struct fvert *v,
			    const float scale[3])
{
	if (l->weight) {
		long w = lrintf(v->w * 128.0f);
		q[l->weight_at] = (uint8_t)w;
		q[l->weight_at + 1] = (uint8_t)(128 - w);
	}
	for (int c = 0; c < 2; c++)
		w16(q + l->uv_at + 2 * c, (uint32_t)(v->uv[c] * 32768.0f));
	for (int c = 0; c < 3; c++) {
		q[l->normal_at + c] = (uint8_t)(int8_t)lrintf(v->normal[c] * 127.0f);
		w16(q + l->pos_at + 2 * c, s16_of(v->pos[c], scale[c]));
	}
}

/* Group g's block: its list, vertices and indices. */
static void put_body_block(struct rng *r, const struct mkpmo_body *b, const struct body_plan *bp,
			   unsigned g, struct bytes *region, struct tables *t, uint32_t *unknown)
{
	const struct body_group *bg = &bp->groups[g];
	struct block_plan plan;
	memset(&plan, 0, sizeof plan);
	plan.nprims = 1;
	plan.prims[0] = (struct prim){.type = 4, .count = bg->nidx, .fface = bg->fface,
				      .unknown = b->tool};
	plan.nv = bg->nv;
	plan.indexed = true;
	plan.indices = bg->idx;
	plan.nindices = bg->nidx;
	plan.l = (struct vlayout){.uv = 2, .normal = 1, .pos = 2, .index = bg->wide ? 2 : 1};
	if (b->skinned) {
		plan.l.weight = 1;
		plan.l.weights = 2;
	}
	lay_out(&plan.l);
	size_t at = lay_block(r, b->p3rd, region, &plan, t->group_rec[g], unknown);
	const float *scale = b->p3rd ? bp->mesh_scale[bg->mesh] : bp->scale;
	for (unsigned v = 0; v < bg->nv; v++)
		put_body_vertex(region->p + at + (size_t)v * plan.l.size, &plan.l, &bg->v[v], scale);
}

static void put_body_tables(struct rng *r, const struct mkpmo_body *b,
			    const struct body_plan *bp, const struct tables *t,
			    struct bytes *head, uint32_t offs[6])
{
	reserve(head, 0x40);
	offs[0] = (uint32_t)head->len;
	for (unsigned m = 0, first = 0; m < t->meshes; m++) {
		struct mesh_rec mr = {.uv_scale = {1, 1}, .lighting = 0x80000003u,
				      .remaps = 2, .remap_first = 2 * m,
				      .groups = t->mesh_counts[m][1], .group_first = first};
		memcpy(mr.scale, bp->mesh_scale[m], sizeof bp->mesh_scale[m]);
		mr.scale[3] = 1;
		put_mesh_rec(b->p3rd, head, &mr);
		first += mr.groups;
	}
	put_group_tables(head, t, !b->p3rd, offs);
	for (unsigned i = 0; i < t->materials; i++) {
		bool plain = b->p3rd ? i % 2 : i + 1 == t->materials;
		unsigned tex = b->p3rd ? t->remap[i - i % 2] : i;
		uint32_t tint = 0xFF000000u | ((uint32_t)rng_next(r) & 0x3F3F3F);
		put_material(head, tint | (plain ? 0x404040 : 0xC0C0C0), 0x7F7F7F,
			     plain || !b->textures ? 0xFF : (uint8_t)tex, 0);
	}
	offs[5] = (uint32_t)head->len;
}

void mkpmo_body(uint64_t seed, const struct mkpmo_body *b, struct mkpmo *out)
{
	struct rng r;
	rng_init(&r, seed, 0x626f6479);
	memset(out, 0, sizeof *out);
	unsigned meshes = b->meshes < 1 ? 1 : b->meshes > b->nbones ? b->nbones : b->meshes;
	struct body_plan bp;
	struct tables t;
	plan_body(&r, b, meshes, &bp);
	body_tables(b, &bp, meshes, &t);
	struct bytes region = {0}, head = {0};
	out->groups = t.groups;
	out->group_vertices = calloc(t.groups, sizeof *out->group_vertices);
	if (!out->group_vertices)
		abort();
	for (unsigned g = 0; g < t.groups; g++) {
		put_body_block(&r, b, &bp, g, &region, &t, &out->unknown_cmds);
		out->group_vertices[g] = bp.groups[g].nv;
		out->vertices += bp.groups[g].nv;
	}
	pad_to(&region, 16);
	uint32_t offs[6];
	put_body_tables(&r, b, &bp, &t, &head, offs);
	put_header_fields(b->p3rd, head.p, bp.scale, t.meshes, t.materials, offs,
			  (uint32_t)(head.len + region.len));
	join(&r, b->p3rd && b->companion, b->tail, &head, &region, out);
	free_tables(&t);
	free_body(&bp);
}

void mkpmo_free(struct mkpmo *m)
{
	free(m->pmo);
	free(m->companion);
	free(m->group_vertices);
	memset(m, 0, sizeof *m);
}

void mkpmo_monster(bool p3rd, bool companion, struct mkpmo_shape *s)
{
	*s = (struct mkpmo_shape){.p3rd = p3rd, .meshes = 7, .groups_per_mesh = 30,
				  .vertices = 20, .skinned = true, .remap = !p3rd,
				  .companion = companion, .tail = p3rd ? 0x40 : 0x240};
}
