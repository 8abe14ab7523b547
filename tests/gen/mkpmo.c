/* SPDX-License-Identifier: MIT */
/* The tests' PMO synthesizer (mkpmo.h). */
#include "mkpmo.h"

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

/* Lays group's block out in the region g; fills its record's offsets. */
static void put_block(struct rng *r, const struct mkpmo_shape *s, struct bytes *g,
		      const struct block_plan *bp, uint8_t rec[16], uint32_t *unknown)
{
	size_t a = s->p3rd ? 4 : 16;
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
	bool dirty = rng_below(r, 2);
	for (unsigned i = 0; i < bp->nv; i++)
		put_vertex(r, g->p + vert_at + (size_t)i * bp->l.size, &bp->l, dirty);
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

static void put_mesh(struct rng *r, const struct mkpmo_shape *s, struct bytes *b,
		     const struct tables *t, unsigned m, unsigned *remap_at)
{
	uint8_t *q = take(b, s->p3rd ? 0x30 : 0x18);
	if (s->p3rd) {
		for (int c = 0; c < 3; c++)
			wf32(q + 4 * c, rfloat(r, 1, 300));
		wf32(q + 12, rng_below(r, 2) ? 1.0f : rfloat(r, 0, 2));
		q += 16;
	}
	wf32(q, rfloat(r, 0.5f, 2));
	wf32(q + 4, rfloat(r, 0.5f, 2));
	if (s->p3rd) {
		wf32(q + 8, rfloat(r, -1, 1));
		wf32(q + 12, rfloat(r, -1, 1));
		q += 8;
	}
	w32(q + 8, 0x80000003u | (uint32_t)rng_below(r, 2) << 2);
	w32(q + 12, rng_below(r, 2) ? 0xDF000000u | (uint32_t)rng_below(r, 1u << 24) : 0);
	q[16] = (uint8_t)t->mesh_counts[m][0];
	w16(q + 18, *remap_at);
	w16(q + 20, t->mesh_counts[m][1]);
	w16(q + 22, m * t->mesh_counts[0][1]);
	*remap_at += t->mesh_counts[m][0];
}

static void put_tables(struct rng *r, const struct mkpmo_shape *s, struct bytes *b,
		       const struct tables *t, uint32_t offs[6])
{
	reserve(b, 0x40);
	offs[0] = (uint32_t)b->len;
	unsigned remap_at = 0;
	for (unsigned m = 0; m < t->meshes; m++)
		put_mesh(r, s, b, t, m, &remap_at);
	pad_to(b, 16);
	offs[1] = (uint32_t)b->len;
	for (unsigned g = 0; g < t->groups; g++)
		memcpy(take(b, 16), t->group_rec[g], 16);
	offs[2] = 0;
	if (s->remap || !s->p3rd) {
		offs[2] = (uint32_t)b->len;
		memcpy(take(b, t->remaps), t->remap, t->remaps);
		pad_to(b, 16);
	}
	offs[3] = (uint32_t)b->len;
	for (unsigned g = 0; g < t->groups; g++)
		memcpy(take(b, 2u * t->nbones[g]), t->bones_of[g], 2u * t->nbones[g]);
	pad_to(b, 16);
	offs[4] = (uint32_t)b->len;
	for (unsigned i = 0; i < t->materials; i++) {
		uint8_t *q = take(b, 16);
		w32(q, (uint32_t)rng_next(r) | 0xFF000000u);
		w32(q + 4, 0x7F7F7F);
		q[8] = rng_below(r, 4) ? (uint8_t)rng_below(r, 6) : 0xFF;
		w32(q + 12, rng_below(r, 4) ? 0 : (uint32_t)rng_next(r)); /* leftover memory */
	}
	offs[5] = (uint32_t)b->len;
}

static void put_header(struct rng *r, const struct mkpmo_shape *s, uint8_t *q,
		       const struct tables *t, const uint32_t offs[6], uint32_t size)
{
	memcpy(q, "pmo\0", 4);
	memcpy(q + 4, s->p3rd ? "102\0" : "1.0\0", 4);
	w32(q + 8, size);
	float scale[3], most = 0;
	for (int c = 0; c < 3; c++) {
		scale[c] = rfloat(r, 1, 300);
		most = scale[c] > most ? scale[c] : most;
		wf32(q + 0x10 + 4 * c, scale[c]);
	}
	wf32(q + 0x0C, most);
	w16(q + 0x1C, t->meshes);
	w16(q + 0x1E, t->materials);
	for (int i = 0; i < 6; i++)
		w32(q + 0x20 + 4 * i, offs[i]);
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
	bool companion = s->p3rd && s->companion;
	if (!companion)
		memcpy(take(&head, region.len), region.p, region.len);
	struct bytes *tail_to = companion ? &region : &head;
	rng_bytes(&r, take(tail_to, s->tail), s->tail);
	out->pmo = head.p;
	out->len = head.len;
	if (companion) {
		out->companion = region.p;
		out->companion_len = region.len;
	} else {
		free(region.p);
	}
	free_tables(&t);
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
