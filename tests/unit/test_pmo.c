/* SPDX-License-Identifier: MIT */
/* Tests of codecs/pmo, pmo_ge and pmo_vertex (mhfu-archive(5) "PMO").
 *
 * Models built by tests/gen/mkpmo.c (both versions, every vertex type it
 * draws, companions, tails) decode and encode back byte for byte; small
 * ones built here word by word decode to the values, draws and triangles
 * worked out by hand; the unroller against hand-made strips, lists and
 * fans; in-place vertex edits land where they must and nowhere else, or
 * are refused naming the range; malformed inputs fail with their error
 * and offset; every prefix and many corruptions of a model fail cleanly
 * or round-trip. */
#include <float.h>
#include <math.h>

#include "mkpmo.h"
#include "pmo.h"
#include "rng.h"
#include "testlib.h"

/* ---- helpers ------------------------------------------------------------- */

static void decode_ok(const uint8_t *buf, size_t len, const uint8_t *comp, size_t comp_len,
		      struct pmo *p)
{
	struct mh_diag d = {0};
	enum mh_err err = pmo_decode(buf, len, comp, comp_len, p, &d);
	if (err)
		fail_msg("pmo_decode: %s at byte %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

/* Encodes p and wants buf (and comp) back. */
static void encodes_to(const struct pmo *p, const uint8_t *buf, size_t len, const uint8_t *comp,
		       size_t comp_len)
{
	uint8_t *out, *cout;
	size_t n, cn;
	struct mh_diag d = {0};
	enum mh_err err = pmo_encode(p, &out, &n, &cout, &cn, &d);
	if (err)
		fail_msg("pmo_encode: %s: %s", mh_strerror(err), d.msg);
	assert_int_equal(n, len);
	assert_memory_equal(out, buf, len);
	assert_int_equal(cn, comp ? comp_len : 0);
	if (comp)
		assert_memory_equal(cout, comp, comp_len);
	else
		assert_null(cout);
	free(out);
	free(cout);
}

static void decode_fails(const uint8_t *buf, size_t len, enum mh_err code, uint64_t at,
			 const char *words)
{
	struct pmo p;
	struct mh_diag d = {0};
	enum mh_err err = pmo_decode(buf, len, NULL, 0, &p, &d);
	assert_diag(&d, err, code, at);
	assert_diag_says(&d, words);
	pmo_free(&p);
}

static void store_f32(uint8_t *q, float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	store_le32(q, bits);
}

/* ---- models built by hand --------------------------------------------------
 * One MHFU mesh of up to two groups: header, mesh at 0x40, groups at
 * 0x60, remap at 0x80, palette at 0x90, two materials at 0xA0, the
 * region at 0xC0; each group's list, vertices and indices 16-aligned. */

#define HAND_GEOMETRY 0xC0u

struct hand_group {
	uint32_t words[32];
	unsigned nwords;
	uint8_t vertices[256];
	unsigned vertices_len;
	uint8_t indices[64];
	unsigned indices_len;
	uint8_t bones[8];    /* slot, bone pairs */
	unsigned nbones;
	uint8_t material;
};

struct hand {
	uint8_t p[2048];
	size_t len;
	uint32_t list_at[2], vertex_at[2], index_at[2]; /* file offsets */
};

static size_t up16(size_t v)
{
	return (v + 15) / 16 * 16;
}

static void hand_build(struct hand *h, const struct hand_group *gs, unsigned ng, float scale)
{
	memset(h, 0, sizeof *h);
	uint8_t *p = h->p;
	memcpy(p, "pmo\0" "1.0\0", 8);
	store_f32(p + 0x0C, scale);
	for (int c = 0; c < 3; c++)
		store_f32(p + 0x10 + 4 * c, scale);
	store_le16(p + 0x1C, 1);
	store_le16(p + 0x1E, 2);
	uint32_t offs[6] = {0x40, 0x60, 0x80, 0x90, 0xA0, HAND_GEOMETRY};
	for (int i = 0; i < 6; i++)
		store_le32(p + 0x20 + 4 * i, offs[i]);
	/* the mesh: UV scale 2, 0.5; remap run of 2; the groups */
	store_f32(p + 0x40, 2.0f);
	store_f32(p + 0x44, 0.5f);
	store_le32(p + 0x48, 0x80000003);
	p[0x50] = 2;
	store_le16(p + 0x54, (uint16_t)ng);
	p[0x80] = 1; /* remap: the mesh's material 0 is material 1 */
	p[0x81] = 0;
	store_le32(p + 0xA0, 0xFF0000FF);
	store_le32(p + 0xB0, 0x80FFFFFF);
	p[0xB8] = 3;
	size_t at = HAND_GEOMETRY;
	unsigned bones = 0;
	for (unsigned g = 0; g < ng; g++) {
		const struct hand_group *hg = &gs[g];
		uint8_t *rec = p + 0x60 + 16 * g;
		rec[0] = hg->material;
		rec[1] = (uint8_t)(hg->nbones);
		store_le16(rec + 2, (uint16_t)bones);
		memcpy(p + 0x90 + 2 * bones, hg->bones, 2 * hg->nbones);
		bones += hg->nbones;
		at = up16(at);
		h->list_at[g] = (uint32_t)at;
		for (unsigned i = 0; i < hg->nwords; i++)
			store_le32(p + at + 4 * i, hg->words[i]);
		at = up16(at + 4 * hg->nwords);
		h->vertex_at[g] = (uint32_t)at;
		memcpy(p + at, hg->vertices, hg->vertices_len);
		at += hg->vertices_len;
		h->index_at[g] = 0;
		if (hg->indices_len) {
			at = up16(at);
			h->index_at[g] = (uint32_t)at;
			memcpy(p + at, hg->indices, hg->indices_len);
			at += hg->indices_len;
		}
		store_le32(rec + 4, h->list_at[g] - HAND_GEOMETRY);
		store_le32(rec + 8, h->vertex_at[g] - HAND_GEOMETRY);
		store_le32(rec + 12, h->index_at[g] ? h->index_at[g] - HAND_GEOMETRY : 0);
	}
	h->len = up16(at);
	store_le32(p + 8, (uint32_t)h->len);
}

static uint32_t cmd(uint32_t op, uint32_t arg)
{
	return op << 24 | arg;
}

/* VTYPE of the hand models: u8 UV, s8 normal, s16 position, u8 index:
 * a vertex is UV at 0, normal at 2, a pad byte at 5, position at 6,
 * 12 bytes. */
#define HAND_VTYPE (1u | 1u << 5 | 2u << 7 | 1u << 11)
#define HAND_STRIDE 12u

static void hand_vertex(uint8_t *q, uint8_t u, uint8_t v, int8_t n, int16_t x, int16_t y,
			int16_t z)
{
	q[0] = u;
	q[1] = v;
	q[2] = (uint8_t)n;
	q[3] = 0;
	q[4] = 0x7F;
	q[5] = 0xA5; /* an alignment byte that is not zero */
	store_le16(q + 6, (uint16_t)x);
	store_le16(q + 8, (uint16_t)y);
	store_le16(q + 10, (uint16_t)z);
}

/* Group 0: an indexed strip of 4 then a list of 3 under FFACE 1 reaching
 * vertex 4, with an unknown command; 5 vertices. */
static void hand_indexed(struct hand_group *hg)
{
	memset(hg, 0, sizeof *hg);
	/* list 0x00..0x2F (12 words), vertices at +0x30, indices at +0x70 */
	uint32_t w[] = {cmd(0x14, 0), cmd(0x10, 0), cmd(0x02, 0x70), cmd(0x01, 0x30),
			cmd(0x12, HAND_VTYPE), cmd(0xC6, 0x123456), cmd(0x04, 4u << 16 | 4),
			cmd(0x9B, 1), cmd(0x04, 3u << 16 | 3), cmd(0x13, 0), cmd(0x0B, 0),
			cmd(0x00, 0)};
	memcpy(hg->words, w, sizeof w);
	hg->nwords = 12;
	for (unsigned i = 0; i < 5; i++)
		hand_vertex(hg->vertices + HAND_STRIDE * i, (uint8_t)(64 * i), 128,
			    (int8_t)(-64 + 32 * (int)i), (int16_t)(1000 * i), (int16_t)-16384,
			    (int16_t)(i == 4 ? 32767 : -32768));
	hg->vertices_len = 5 * HAND_STRIDE;
	uint8_t idx[] = {0, 1, 2, 3, 4, 2, 1};
	memcpy(hg->indices, idx, sizeof idx);
	hg->indices_len = sizeof idx;
	hg->bones[0] = 0, hg->bones[1] = 7, hg->bones[2] = 1, hg->bones[3] = 9;
	hg->nbones = 2;
}

/* Group 1: unindexed, a fan of 4 then a strip of 3 (VADDR advanced by
 * the first): 7 vertices; its palette moves slot 1. */
static void hand_unindexed(struct hand_group *hg)
{
	memset(hg, 0, sizeof *hg);
	uint32_t vt = HAND_VTYPE & ~(3u << 11);
	uint32_t w[] = {cmd(0x14, 0), cmd(0x01, 0x20), cmd(0x12, vt), cmd(0x04, 5u << 16 | 4),
			cmd(0x04, 4u << 16 | 3), cmd(0x13, 0), cmd(0x0B, 0)};
	memcpy(hg->words, w, sizeof w);
	hg->nwords = 7;
	for (unsigned i = 0; i < 7; i++)
		hand_vertex(hg->vertices + HAND_STRIDE * i, 0, 0, 0, (int16_t)i, 0, 0);
	hg->vertices_len = 7 * HAND_STRIDE;
	hg->bones[0] = 1, hg->bones[1] = 4;
	hg->nbones = 1;
	hg->material = 1;
}

static void hand_two(struct hand *h)
{
	struct hand_group gs[2];
	hand_indexed(&gs[0]);
	hand_unindexed(&gs[1]);
	hand_build(h, gs, 2, 100.0f);
}

/* ---- the hand models --------------------------------------------------------- */

static void test_hand_tables(void **state)
{
	(void)state;
	struct hand h;
	hand_two(&h);
	struct pmo p;
	decode_ok(h.p, h.len, NULL, 0, &p);
	assert_int_equal(p.h.version, PMO_MHFU);
	assert_int_equal(p.h.size, h.len);
	assert_true(p.h.scale[1] == 100.0f && p.h.cull_radius == 100.0f);
	assert_int_equal(p.h.mesh_count, 1);
	assert_int_equal(p.group_count, 2);
	assert_true(p.meshes[0].uv_scale[0] == 2.0f && p.meshes[0].uv_scale[1] == 0.5f);
	assert_int_equal(p.meshes[0].lighting, 0x80000003);
	/* materials through the remap: group 0's 0 -> 1, group 1's 1 -> 0 */
	assert_int_equal(pmo_group_material(&p, 0), 1);
	assert_int_equal(pmo_group_material(&p, 1), 0);
	assert_int_equal(p.materials[1].texture, 3);
	assert_int_equal(p.materials[1].color, 0x80FFFFFF);
	/* the palette: group 1 sees group 0's slot 0 and its own slot 1 */
	assert_int_equal(p.palette_count, 3);
	assert_int_equal(p.groups[0].slot_bone[0], 7);
	assert_int_equal(p.groups[0].slot_bone[1], 9);
	assert_int_equal(p.groups[0].slot_bone[2], -1);
	assert_int_equal(p.groups[1].slot_bone[0], 7);
	assert_int_equal(p.groups[1].slot_bone[1], 4);
	encodes_to(&p, h.p, h.len, NULL, 0);
	pmo_free(&p);
}

static void test_hand_draws(void **state)
{
	(void)state;
	struct hand h;
	hand_two(&h);
	struct pmo p;
	decode_ok(h.p, h.len, NULL, 0, &p);
	const struct pmo_group *g0 = &p.groups[0], *g1 = &p.groups[1];
	/* every word through RET, the unknown one verbatim, not the NOP after */
	assert_int_equal(g0->cmd_count, 11);
	assert_int_equal(g0->cmds[5], 0xC6123456);
	assert_int_equal(g0->list_at, h.list_at[0]);
	assert_int_equal(g0->vertex_at, h.vertex_at[0]);
	assert_int_equal(g0->vtype.word, HAND_VTYPE);
	assert_int_equal(g0->vtype.stride, HAND_STRIDE);
	assert_int_equal(g0->vtype.pos_at, 6);
	assert_int_equal(g0->draw_count, 2);
	assert_int_equal(g0->draws[0].prim, PMO_STRIP);
	assert_int_equal(g0->draws[0].count, 4);
	assert_true(g0->draws[0].indexed && !g0->draws[0].fface);
	assert_int_equal(g0->draws[1].prim, PMO_TRIANGLES);
	assert_true(g0->draws[1].fface);
	assert_int_equal(g0->draws[1].first_index, 4);
	assert_int_equal(g0->draws[1].cmd, 8);
	assert_int_equal(g0->draws[1].vtype, HAND_VTYPE);
	/* the vertex count: the highest index reached (4) plus one */
	assert_int_equal(g0->vertex_count, 5);
	/* unindexed: the vertices the draws cover, the second after the first */
	assert_int_equal(g1->draw_count, 2);
	assert_false(g1->draws[0].indexed);
	assert_int_equal(g1->draws[1].first_vertex, 4);
	assert_int_equal(g1->vertex_count, 7);
	pmo_free(&p);
}

static void test_hand_values(void **state)
{
	(void)state;
	struct hand h;
	hand_two(&h);
	struct pmo p;
	decode_ok(h.p, h.len, NULL, 0, &p);
	const struct pmo_vertex *v = p.groups[0].vertices;
	/* position: s16 / 32768 x the header's scale (100) */
	assert_true(v[1].pos[0] == 1000.0f / 32768.0f * 100.0f);
	assert_true(v[0].pos[1] == -50.0f);
	assert_true(v[0].pos[2] == -100.0f);
	assert_true(v[4].pos[2] == 32767.0f / 32768.0f * 100.0f);
	/* UV: u8 / 128 x the mesh's UV scale (2, 0.5) */
	assert_true(v[1].uv[0] == 1.0f);
	assert_true(v[3].uv[0] == 3.0f);
	assert_true(v[0].uv[1] == 0.5f);
	/* normal: s8 / 128 */
	assert_true(v[0].normal[0] == -0.5f);
	assert_true(v[2].normal[0] == 0.0f);
	/* no colour, no weights */
	assert_int_equal(v[0].rgba[0], 255);
	assert_true(v[0].weights[0] == 0.0f);
	pmo_free(&p);
}

static void test_hand_triangles(void **state)
{
	(void)state;
	struct hand h;
	hand_two(&h);
	struct pmo p;
	decode_ok(h.p, h.len, NULL, 0, &p);
	uint32_t(*t)[3];
	size_t n;
	struct mh_diag d = {0};
	/* strip 0 1 2 3: (0 1 2) (2 1 3); list 4 2 1 under FFACE: (2 4 1) */
	assert_int_equal(pmo_group_triangles(&p, 0, &t, &n, &d), MH_OK);
	uint32_t want0[3][3] = {{0, 1, 2}, {2, 1, 3}, {2, 4, 1}};
	assert_int_equal(n, 3);
	assert_memory_equal(t, want0, sizeof want0);
	free(t);
	/* fan 0 1 2 3: (0 1 2) (0 2 3); strip 4 5 6: (4 5 6) */
	assert_int_equal(pmo_group_triangles(&p, 1, &t, &n, &d), MH_OK);
	uint32_t want1[3][3] = {{0, 1, 2}, {0, 2, 3}, {4, 5, 6}};
	assert_int_equal(n, 3);
	assert_memory_equal(t, want1, sizeof want1);
	free(t);
	assert_int_equal(pmo_group_triangles(&p, 2, &t, &n, &d), MH_ERANGE);
	pmo_free(&p);
}

/* ---- the unroller ------------------------------------------------------------- */

static void unrolls(unsigned prim, const uint32_t *v, size_t n, bool fface, const uint32_t *want,
		    size_t ntris)
{
	uint32_t out[16][3];
	size_t got = pmo_unroll(prim, v, n, fface, out);
	assert_int_equal(got, ntris);
	if (ntris)
		assert_memory_equal(out, want, ntris * 3 * sizeof *want);
}

static void test_unroll(void **state)
{
	(void)state;
	uint32_t strip[] = {10, 11, 12, 13, 14};
	/* odd triangles swap their first two */
	uint32_t s0[] = {10, 11, 12, 12, 11, 13, 12, 13, 14};
	unrolls(PMO_STRIP, strip, 5, false, s0, 3);
	/* FFACE flips the parity */
	uint32_t s1[] = {11, 10, 12, 11, 12, 13, 13, 12, 14};
	unrolls(PMO_STRIP, strip, 5, true, s1, 3);
	/* degenerate triangles dropped, the parity still counted */
	uint32_t degen[] = {1, 1, 2, 3, 3, 4};
	uint32_t s2[] = {2, 1, 3};
	unrolls(PMO_STRIP, degen, 6, false, s2, 1);
	uint32_t list[] = {0, 1, 2, 3, 4, 5, 6};
	uint32_t l0[] = {0, 1, 2, 3, 4, 5};
	uint32_t l1[] = {1, 0, 2, 4, 3, 5};
	unrolls(PMO_TRIANGLES, list, 7, false, l0, 2); /* the 7th index draws nothing */
	unrolls(PMO_TRIANGLES, list, 7, true, l1, 2);
	uint32_t fan[] = {9, 1, 2, 3};
	uint32_t f0[] = {9, 1, 2, 9, 2, 3};
	uint32_t f1[] = {1, 9, 2, 2, 9, 3};
	unrolls(PMO_FAN, fan, 4, false, f0, 2);
	unrolls(PMO_FAN, fan, 4, true, f1, 2);
	uint32_t fan_degen[] = {9, 9, 2, 3};
	uint32_t f2[] = {9, 2, 3};
	unrolls(PMO_FAN, fan_degen, 4, false, f2, 1);
	unrolls(PMO_POINTS, strip, 5, false, NULL, 0);
	unrolls(PMO_LINES, strip, 5, false, NULL, 0);
	unrolls(PMO_RECTANGLES, strip, 5, false, NULL, 0);
	unrolls(PMO_STRIP, strip, 2, false, NULL, 0);
}

/* ---- synthesized models ------------------------------------------------------------- */

static unsigned unknown_words(const struct pmo *p)
{
	unsigned n = 0;
	for (uint32_t g = 0; g < p->group_count; g++)
		for (uint32_t i = 0; i < p->groups[g].cmd_count; i++) {
			uint32_t op = p->groups[g].cmds[i] >> 24;
			n += op == 0x1D || op == 0x21 || op == 0xDB || op == 0x50 || op == 0xC6;
		}
	return n;
}

/* Decodes m, checks it against what mkpmo says it built, encodes back. */
static void synth_roundtrip(const struct mkpmo *m, struct pmo *p)
{
	decode_ok(m->pmo, m->len, m->companion, m->companion_len, p);
	assert_int_equal(p->group_count, m->groups);
	uint32_t total = 0;
	for (uint32_t g = 0; g < p->group_count; g++) {
		if (p->groups[g].vertex_count != m->group_vertices[g])
			fail_msg("group %u: %u vertices, mkpmo built %u", g,
				 p->groups[g].vertex_count, m->group_vertices[g]);
		total += p->groups[g].vertex_count;
	}
	assert_int_equal(total, m->vertices);
	assert_int_equal(unknown_words(p), m->unknown_cmds);
	assert_int_equal(p->external, m->companion != NULL);
	encodes_to(p, m->pmo, m->len, m->companion, m->companion_len);
}

static void test_synth_roundtrip(void **state)
{
	(void)state;
	struct rng r = {42};
	unsigned unknown = 0, companions = 0;
	for (unsigned i = 0; i < 120; i++) {
		struct mkpmo_shape s = {
			.p3rd = i % 2, .meshes = rng_range(&r, 1, 4),
			.groups_per_mesh = rng_range(&r, 1, 6), .vertices = rng_range(&r, 3, 300),
			.skinned = rng_below(&r, 2), .remap = rng_below(&r, 2),
			.companion = rng_below(&r, 2), .tail = rng_range(&r, 0, 40)};
		struct mkpmo m;
		struct pmo p;
		mkpmo_build(1000 + i, &s, &m);
		synth_roundtrip(&m, &p);
		unknown += m.unknown_cmds;
		companions += m.companion != NULL;
		pmo_free(&p);
		mkpmo_free(&m);
	}
	/* the shapes did cover what they are for */
	assert_true(unknown > 0);
	assert_true(companions > 0);
}

static void test_monster(void **state)
{
	(void)state;
	for (int v = 0; v < 3; v++) {
		struct mkpmo_shape s;
		mkpmo_monster(v > 0, v == 2, &s);
		struct mkpmo m;
		struct pmo p;
		mkpmo_build(75, &s, &m);
		synth_roundtrip(&m, &p);
		assert_int_equal(p.h.mesh_count, 7);
		assert_true(p.group_count >= 200);
		assert_true(m.vertices > 4000);
		/* per-vertex skinning: every group has weights */
		for (uint32_t g = 0; g < p.group_count; g++)
			assert_true(p.groups[g].vtype.weight != 0);
		pmo_free(&p);
		mkpmo_free(&m);
	}
}

/* mkpmo_body, the sample's models: static and skinned bodies round
 * trip; the child bone's tube runs from its parent's joint to its own. */
static void test_body(void **state)
{
	(void)state;
	static const struct mkpmo_bone bones[] = {
		{-1, {0, 0, 0}}, {0, {0, 100, 0}}, {1, {40, 100, 30}},
	};
	for (int k = 0; k < 4; k++) {
		struct mkpmo_body b = {.p3rd = k & 1, .companion = k == 3, .skinned = k & 2,
				       .tool = k == 0, .meshes = 2, .sides = 6, .rings = 3,
				       .textures = 2, .bones = bones, .nbones = 3};
		struct mkpmo m;
		struct pmo p;
		mkpmo_body(9, &b, &m);
		decode_ok(m.pmo, m.len, m.companion, m.companion_len, &p);
		encodes_to(&p, m.pmo, m.len, m.companion, m.companion_len);
		assert_int_equal(p.group_count, 3 * (b.rings + 1));
		assert_int_equal(p.palette_count == 0, !b.skinned);
		assert_int_equal(m.unknown_cmds > 0, b.tool);
		uint32_t vertices = 0;
		for (uint32_t g = 0; g < p.group_count; g++) {
			const struct pmo_group *grp = &p.groups[g];
			vertices += grp->vertex_count;
			assert_int_equal(grp->vtype.weights, b.skinned ? 2 : 1);
			assert_int_equal(grp->vtype.weight, b.skinned ? 1 : 0);
			if (g < b.rings + 1 || g >= 2 * (b.rings + 1))
				continue;
			/* bone 1's groups: around the y axis, from y 0 to 100 */
			if (b.skinned)
				assert_int_equal(grp->slot_bone[0], 1);
			for (uint32_t v = 0; v < grp->vertex_count; v++) {
				const float *at = grp->vertices[v].pos;
				assert_true(at[1] > -0.5f && at[1] < 100.5f);
				assert_true(fabsf(at[0]) < 30 && fabsf(at[2]) < 30);
			}
		}
		assert_int_equal(vertices, m.vertices);
		pmo_free(&p);
		mkpmo_free(&m);
	}
}

/* A clone is the decoded model, owning its arrays: an edit of the clone
 * leaves the original's bytes and vertices as they were.  The structure
 * alone has the vertex counts and no vertices. */
static void test_clone_structure(void **state)
{
	(void)state;
	for (int p3rd = 0; p3rd < 2; p3rd++) {
		struct mkpmo_shape s = {.p3rd = p3rd, .meshes = 2, .groups_per_mesh = 3,
					.vertices = 20, .skinned = true, .companion = p3rd,
					.remap = true};
		struct mkpmo m;
		mkpmo_build(11, &s, &m);
		const uint8_t *comp = p3rd ? m.companion : NULL;
		size_t comp_len = p3rd ? m.companion_len : 0;
		struct pmo p, c, st;
		struct mh_diag d = {0};
		decode_ok(m.pmo, m.len, comp, comp_len, &p);
		assert_int_equal(pmo_clone(&p, &c, &d), MH_OK);
		encodes_to(&c, m.pmo, m.len, comp, comp_len);
		assert_ptr_not_equal(c.groups, p.groups);
		assert_ptr_not_equal(c.groups[0].vertices, p.groups[0].vertices);
		struct pmo_vertex v = c.groups[0].vertices[1];
		v.pos[1] = v.pos[1] == 0.0f ? c.meshes[0].scale[1] / 4 : 0.0f;
		assert_int_equal(pmo_vertex_set(&c, 0, 1, &v, &d), MH_OK);
		assert_memory_not_equal(&c.groups[0].vertices[1], &p.groups[0].vertices[1],
					sizeof v.pos);
		encodes_to(&p, m.pmo, m.len, comp, comp_len);
		assert_int_equal(pmo_decode_structure(m.pmo, m.len, comp, comp_len, &st, &d), MH_OK);
		assert_int_equal(st.group_count, p.group_count);
		for (uint32_t g = 0; g < p.group_count; g++) {
			assert_int_equal(st.groups[g].vertex_count, p.groups[g].vertex_count);
			assert_null(st.groups[g].vertices);
		}
		pmo_free(&st);
		pmo_free(&c);
		pmo_free(&p);
		mkpmo_free(&m);
	}
}

static void test_companion(void **state)
{
	(void)state;
	struct mkpmo_shape s = {.p3rd = true, .meshes = 2, .groups_per_mesh = 3, .vertices = 20,
				.skinned = true, .companion = true, .tail = 16};
	struct mkpmo m;
	mkpmo_build(7, &s, &m);
	assert_true(pmo_needs_companion(m.pmo, m.len));
	/* the geometry offset is the PMO's length, the size counts the region */
	assert_int_equal(load_le32(m.pmo + 0x34), m.len);
	assert_int_equal(load_le32(m.pmo + 8), m.len + m.companion_len - 16);
	decode_fails(m.pmo, m.len, MH_ETRUNC, 8, "companion");
	struct pmo p;
	struct mh_diag d = {0};
	enum mh_err err = pmo_decode(m.pmo, m.len, m.companion, m.companion_len - 17, &p, &d);
	assert_diag(&d, err, MH_ETRUNC, 8);
	pmo_free(&p);
	decode_ok(m.pmo, m.len, m.companion, m.companion_len, &p);
	assert_true(p.external);
	/* offsets count from the companion's byte 0 */
	assert_int_equal(p.groups[0].list_at, load_le32(m.pmo + load_le32(m.pmo + 0x24) + 4));
	encodes_to(&p, m.pmo, m.len, m.companion, m.companion_len);
	/* an external PMO cannot be encoded without its companion */
	uint8_t *out;
	size_t n;
	assert_int_equal(pmo_encode(&p, &out, &n, NULL, NULL, &d), MH_ERANGE);
	/* a vertex edit lands in the companion's bytes */
	struct pmo_group *g = &p.groups[0];
	struct pmo_vertex v = g->vertices[0];
	float to = v.pos[0] == 0.0f ? p.meshes[0].scale[0] / 4 : 0.0f;
	v.pos[0] = to;
	assert_int_equal(pmo_vertex_set(&p, 0, 0, &v, &d), MH_OK);
	assert_true(fabsf(g->vertices[0].pos[0] - to) <= p.meshes[0].scale[0] / 256);
	assert_memory_equal(p.raw, m.pmo, m.len);
	assert_memory_not_equal(p.companion, m.companion, m.companion_len);
	pmo_free(&p);
	mkpmo_free(&m);
	/* a PMO whose size runs past it, with the geometry elsewhere: no companion */
	mkpmo_build(8, &(struct mkpmo_shape){.meshes = 1, .groups_per_mesh = 1, .vertices = 4}, &m);
	assert_false(pmo_needs_companion(m.pmo, m.len - 1));
	decode_fails(m.pmo, m.len - 1, MH_ETRUNC, 8, "runs past");
	mkpmo_free(&m);
}

/* ---- in-place edits ----------------------------------------------------------------- */

/* Sets every vertex of p to itself: nothing may change. */
static void edits_unchanged(struct pmo *p, const struct mkpmo *m)
{
	struct mh_diag d = {0};
	for (uint32_t g = 0; g < p->group_count; g++)
		for (uint32_t v = 0; v < p->groups[g].vertex_count; v++) {
			struct pmo_vertex same = p->groups[g].vertices[v];
			enum mh_err err = pmo_vertex_set(p, g, v, &same, &d);
			if (err)
				fail_msg("group %u vertex %u unchanged: %s", g, v, d.msg);
		}
	encodes_to(p, m->pmo, m->len, m->companion, m->companion_len);
}

static void test_edit_unchanged(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 20; i++) {
		struct mkpmo_shape s = {.p3rd = i % 2, .meshes = 2, .groups_per_mesh = 4,
					.vertices = 30, .skinned = i % 3 != 0, .remap = true,
					.companion = i % 4 == 1, .tail = 8};
		struct mkpmo m;
		struct pmo p;
		mkpmo_build(500 + i, &s, &m);
		decode_ok(m.pmo, m.len, m.companion, m.companion_len, &p);
		edits_unchanged(&p, &m);
		pmo_free(&p);
		mkpmo_free(&m);
	}
}

static void test_edit_position(void **state)
{
	(void)state;
	struct hand h;
	hand_two(&h);
	struct pmo p;
	struct mh_diag d = {0};
	decode_ok(h.p, h.len, NULL, 0, &p);
	struct pmo_vertex v = p.groups[0].vertices[2];
	v.pos[0] = 12.345f; /* scale 100: 12.345 / 100 * 32768 = 4045.2 -> 4045 */
	v.pos[2] = -99.99f; /* -32764.7 -> -32765 */
	assert_int_equal(pmo_vertex_set(&p, 0, 2, &v, &d), MH_OK);
	uint8_t *at = p.raw + h.vertex_at[0] + 2 * HAND_STRIDE + 6;
	assert_int_equal((int16_t)load_le16(at), 4045);
	assert_int_equal((int16_t)load_le16(at + 4), -32765);
	/* the model decodes what was stored, within half a step */
	float step = 100.0f / 32768.0f;
	assert_true(fabsf(p.groups[0].vertices[2].pos[0] - 12.345f) <= step / 2);
	assert_true(p.groups[0].vertices[2].pos[0] == 4045.0f / 32768.0f * 100.0f);
	/* every byte but the two fields' is the input's */
	uint8_t *out, *cout;
	size_t n, cn;
	assert_int_equal(pmo_encode(&p, &out, &n, &cout, &cn, &d), MH_OK);
	assert_int_equal(n, h.len);
	size_t x = h.vertex_at[0] + 2 * HAND_STRIDE + 6;
	for (size_t i = 0; i < n; i++)
		if ((i < x || i >= x + 2) && (i < x + 4 || i >= x + 6) && out[i] != h.p[i])
			fail_msg("byte 0x%zx changed", i);
	/* and decoding it again gives the edited vertex */
	struct pmo q;
	decode_ok(out, n, NULL, 0, &q);
	assert_memory_equal(&q.groups[0].vertices[2], &p.groups[0].vertices[2],
			    sizeof(struct pmo_vertex));
	pmo_free(&q);
	free(out);
	pmo_free(&p);
}

static void test_edit_refused(void **state)
{
	(void)state;
	struct hand h;
	hand_two(&h);
	struct pmo p;
	struct mh_diag d = {0};
	decode_ok(h.p, h.len, NULL, 0, &p);
	struct pmo_vertex v = p.groups[0].vertices[1];
	v.pos[1] = 100.0f; /* 32768 of 32767 */
	enum mh_err err = pmo_vertex_set(&p, 0, 1, &v, &d);
	assert_int_equal(err, MH_ERANGE);
	assert_diag_says(&d, "group 0 vertex 1 position[1]");
	assert_diag_says(&d, "[-100, 99.9969]");
	/* refused: nothing written */
	assert_memory_equal(p.raw, h.p, h.len);
	v = p.groups[0].vertices[1];
	v.normal[2] = -1.5f;
	assert_int_equal(pmo_vertex_set(&p, 0, 1, &v, &d), MH_ERANGE);
	assert_diag_says(&d, "normal[2]");
	assert_diag_says(&d, "[-1, 0.992188]");
	v = p.groups[0].vertices[1];
	v.uv[0] = 600.0f; /* u8 x 2: at most 255 / 128 x 2 */
	assert_int_equal(pmo_vertex_set(&p, 0, 1, &v, &d), MH_ERANGE);
	assert_diag_says(&d, "uv[0]");
	assert_diag_says(&d, "[0, 3.98438]");
	v = p.groups[0].vertices[1];
	v.weights[0] = 0.5f; /* the type has none */
	assert_int_equal(pmo_vertex_set(&p, 0, 1, &v, &d), MH_ERANGE);
	assert_diag_says(&d, "weight[0]");
	v = p.groups[0].vertices[1];
	v.rgba[1] = 3; /* nor a colour */
	assert_int_equal(pmo_vertex_set(&p, 0, 1, &v, &d), MH_ERANGE);
	assert_diag_says(&d, "colour");
	v = p.groups[0].vertices[1];
	v.pos[0] = NAN;
	assert_int_equal(pmo_vertex_set(&p, 0, 1, &v, &d), MH_ERANGE);
	assert_diag_says(&d, "finite");
	assert_int_equal(pmo_vertex_set(&p, 0, 5, &v, &d), MH_ERANGE);
	assert_diag_says(&d, "no vertex 5");
	assert_int_equal(pmo_vertex_set(&p, 9, 0, &v, &d), MH_ERANGE);
	assert_memory_equal(p.raw, h.p, h.len);
	pmo_free(&p);
}

/* A skinned model: weights outside [0, 1] are refused, inside written;
 * colours written in their format; f32 positions take any finite value. */
static void test_edit_weights_colours(void **state)
{
	(void)state;
	struct mkpmo_shape s = {.meshes = 2, .groups_per_mesh = 20, .vertices = 10,
				.skinned = true, .remap = true};
	struct mkpmo m;
	struct pmo p;
	struct mh_diag d = {0};
	mkpmo_build(99, &s, &m);
	store_f32(m.pmo + 0x10, 0.5f); /* x's scale: FLT_MAX is then past a float */
	decode_ok(m.pmo, m.len, NULL, 0, &p);
	unsigned weights = 0, colours = 0, floats = 0;
	for (uint32_t g = 0; g < p.group_count; g++) {
		struct pmo_group *grp = &p.groups[g];
		struct pmo_vertex v = grp->vertices[0];
		v.weights[0] = 1.25f;
		assert_int_equal(pmo_vertex_set(&p, g, 0, &v, &d), MH_ERANGE);
		assert_diag_says(&d, "[0, 1]");
		v.weights[0] = 0.5f;
		assert_int_equal(pmo_vertex_set(&p, g, 0, &v, &d), MH_OK);
		assert_true(grp->vertices[0].weights[0] == 0.5f);
		weights++;
		if (grp->vtype.color >= 4) {
			v = grp->vertices[0];
			v.rgba[0] = 255, v.rgba[1] = 0, v.rgba[2] = 0, v.rgba[3] = 255;
			assert_int_equal(pmo_vertex_set(&p, g, 0, &v, &d), MH_OK);
			assert_memory_equal(grp->vertices[0].rgba, v.rgba, 4);
			colours++;
		}
		if (grp->vtype.pos == 3) {
			v = grp->vertices[0];
			v.pos[0] = 1e6f;
			assert_int_equal(pmo_vertex_set(&p, g, 0, &v, &d), MH_OK);
			assert_true(fabsf(grp->vertices[0].pos[0] - 1e6f) <= 1.0f);
			/* but not past what a float holds, in the scale's units */
			v.pos[0] = FLT_MAX;
			assert_int_equal(pmo_vertex_set(&p, g, 0, &v, &d), MH_ERANGE);
			assert_diag_says(&d, "beyond a float");
			floats++;
		}
	}
	assert_true(weights && colours && floats);
	pmo_free(&p);
	mkpmo_free(&m);
}

/* ---- malformed inputs ------------------------------------------------------------------ */

static void test_malformed_header(void **state)
{
	(void)state;
	struct hand h;
	hand_two(&h);
	decode_fails(h.p, 0x20, MH_ETRUNC, 0x20, "0x40");
	uint8_t bad[2048];
	memcpy(bad, h.p, h.len);
	bad[0] = 'P';
	decode_fails(bad, h.len, MH_EUNKNOWN, 0, "magic");
	memcpy(bad, h.p, h.len);
	bad[5] = 'x';
	decode_fails(bad, h.len, MH_EUNKNOWN, 4, "version");
	memcpy(bad, h.p, h.len);
	store_le32(bad + 8, (uint32_t)h.len + 16);
	decode_fails(bad, h.len, MH_ETRUNC, 8, "runs past");
	memcpy(bad, h.p, h.len);
	store_le32(bad + 0x34, (uint32_t)h.len + 16); /* geometry past the size */
	decode_fails(bad, h.len, MH_ECORRUPT, 0x34, "geometry offset");
	memcpy(bad, h.p, h.len);
	store_le16(bad + 0x1E, 200); /* materials past the end */
	decode_fails(bad, h.len, MH_ETRUNC, 0x30, "materials");
	memcpy(bad, h.p, h.len);
	store_le16(bad + 0x56, 1); /* the mesh's first group is 1, not 0 */
	decode_fails(bad, h.len, MH_ECORRUPT, 0x52, "mesh 0");
	memcpy(bad, h.p, h.len);
	store_le16(bad + 0x72, 5); /* group 1's palette run starts at 5, not 2 */
	decode_fails(bad, h.len, MH_ECORRUPT, 0x72, "palette run");
}

static void test_malformed_lists(void **state)
{
	(void)state;
	struct hand_group gs[2];
	struct hand h;
	/* no RET before the region ends */
	hand_indexed(&gs[0]);
	gs[0].words[10] = cmd(0x00, 0);
	gs[0].nwords = 11;
	gs[0].vertices_len = 0;
	gs[0].indices_len = 0;
	hand_build(&h, gs, 1, 1.0f);
	decode_fails(h.p, h.len, MH_ECORRUPT, h.list_at[0], "no RET");
	/* a PRIM before VTYPE */
	hand_indexed(&gs[0]);
	gs[0].words[4] = cmd(0x00, 0);
	hand_build(&h, gs, 1, 1.0f);
	decode_fails(h.p, h.len, MH_ECORRUPT, h.list_at[0] + 24, "before VTYPE");
	/* a second vertex type */
	hand_indexed(&gs[0]);
	gs[0].words[7] = cmd(0x12, HAND_VTYPE | 3);
	hand_build(&h, gs, 1, 1.0f);
	decode_fails(h.p, h.len, MH_ECORRUPT, h.list_at[0] + 28, "second vertex type");
	/* indices past the region */
	hand_indexed(&gs[0]);
	gs[0].words[2] = cmd(0x02, 0x7000);
	hand_build(&h, gs, 1, 1.0f);
	decode_fails(h.p, h.len, MH_ECORRUPT, h.list_at[0] + 24, "outside the region");
	/* an index past the vertex buffer reaches past the region */
	hand_indexed(&gs[0]);
	gs[0].indices[1] = 200;
	hand_build(&h, gs, 1, 1.0f);
	decode_fails(h.p, h.len, MH_ECORRUPT, h.vertex_at[0], "run past the region");
	/* a vertex buffer far past the region: the record's field is named */
	hand_indexed(&gs[0]);
	gs[0].words[3] = cmd(0x01, 0x100000);
	hand_build(&h, gs, 1, 1.0f);
	store_le32(h.p + 0x68, 0x100000);
	decode_fails(h.p, h.len, MH_ECORRUPT, 0x68, "run past the region");
	/* a VADDR off the vertex grid */
	hand_indexed(&gs[0]);
	gs[0].words[3] = cmd(0x01, 0x31);
	hand_build(&h, gs, 1, 1.0f);
	decode_fails(h.p, h.len, MH_ECORRUPT, h.list_at[0] + 24, "not a vertex");
	/* a CALL */
	hand_indexed(&gs[0]);
	gs[0].words[9] = cmd(0x0A, 0);
	hand_build(&h, gs, 1, 1.0f);
	decode_fails(h.p, h.len, MH_ECORRUPT, h.list_at[0] + 36, "jumps, calls");
	/* a list offset past the region */
	hand_indexed(&gs[0]);
	hand_build(&h, gs, 1, 1.0f);
	store_le32(h.p + 0x64, 0x4000);
	decode_fails(h.p, h.len, MH_ECORRUPT, HAND_GEOMETRY, "past the region");
}

/* Every prefix of a model, and random corruptions, fail with a diagnostic
 * or decode to what encodes back. */
static void test_truncated_corrupted(void **state)
{
	(void)state;
	struct mkpmo_shape s = {.p3rd = false, .meshes = 2, .groups_per_mesh = 2, .vertices = 8,
				.skinned = true, .remap = true, .tail = 0};
	struct mkpmo m;
	mkpmo_build(3, &s, &m);
	struct mh_diag d;
	for (size_t n = 0; n < m.len; n++) {
		struct pmo p;
		d = (struct mh_diag){0};
		enum mh_err err = pmo_decode(m.pmo, n, NULL, 0, &p, &d);
		if (err == MH_OK || d.code != err || !d.msg[0])
			fail_msg("a prefix of %zu bytes: %s", n, mh_strerror(err));
		pmo_free(&p);
	}
	struct rng r = {5};
	uint8_t *bad = malloc(m.len);
	unsigned ok = 0, failed = 0;
	for (unsigned i = 0; i < 3000; i++) {
		memcpy(bad, m.pmo, m.len);
		unsigned flips = rng_range(&r, 1, 4);
		for (unsigned k = 0; k < flips; k++) {
			size_t at = rng_below(&r, i % 2 ? m.len : 0x100);
			bad[at] = (uint8_t)rng_next(&r);
		}
		struct pmo p;
		d = (struct mh_diag){0};
		enum mh_err err = pmo_decode(bad, m.len, NULL, 0, &p, &d);
		if (err) {
			assert_int_equal(d.code, err);
			assert_true(d.msg[0] != 0);
			failed++;
		} else {
			encodes_to(&p, bad, m.len, NULL, 0);
			ok++;
		}
		pmo_free(&p);
	}
	assert_true(ok > 0 && failed > 0);
	free(bad);
	mkpmo_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_tables),
		cmocka_unit_test(test_hand_draws),
		cmocka_unit_test(test_hand_values),
		cmocka_unit_test(test_hand_triangles),
		cmocka_unit_test(test_unroll),
		cmocka_unit_test(test_synth_roundtrip),
		cmocka_unit_test(test_monster),
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_companion),
		cmocka_unit_test(test_clone_structure),
		cmocka_unit_test(test_edit_unchanged),
		cmocka_unit_test(test_edit_position),
		cmocka_unit_test(test_edit_refused),
		cmocka_unit_test(test_edit_weights_colours),
		cmocka_unit_test(test_malformed_header),
		cmocka_unit_test(test_malformed_lists),
		cmocka_unit_test(test_truncated_corrupted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
