/* SPDX-License-Identifier: MIT */
/* Tests of codecs/pmo_build: PMOs of both versions laid out from a
 * description decode (codecs/pmo) to the description's fields, vertices,
 * palettes and triangles, encode back to the same bytes, sit where
 * mhfu-archive(5) "PMO" puts them (tables 16-aligned in order, blocks
 * aligned as the version wants); a triangle list past one PRIM's count is
 * drawn whole; what the format cannot hold is refused. */
#include <math.h>
#include <stdlib.h>

#include "pmo.h"
#include "pmo_build.h"
#include "testlib.h"

/* VTYPE: u16 UV, s8 normal, s16 position, two u8 weights: 16 bytes,
 * weights at 0, UV at 2, normal at 6, position at 10. */
#define VT_SKIN (2u | 1u << 5 | 2u << 7 | 1u << 9 | 1u << 14)
/* VTYPE: f32 position alone. */
#define VT_F32 (3u << 7)

static const struct pmo_material materials[2] = {
	{.color = 0xFF8040C0u, .ambient = 0x7F7F7Fu, .texture = 0},
	{.color = 0xFFFFFFFFu, .ambient = 0, .texture = 0xFF, .kept = 0x12345678u},
};

static void put16(uint8_t *q, int v)
{
	q[0] = (uint8_t)v;
	q[1] = (uint8_t)(v >> 8);
}

/* Four skinned vertices: weights (128 - 32i, 32i), position (1000i, -i, 7). */
static void skin_vertices(uint8_t out[4][16])
{
	memset(out, 0, 4 * 16);
	for (int i = 0; i < 4; i++) {
		out[i][0] = (uint8_t)(128 - 32 * i);
		out[i][1] = (uint8_t)(32 * i);
		put16(out[i] + 2, 16384 * i);
		put16(out[i] + 4, 1000);
		out[i][6] = 127;
		put16(out[i] + 10, 1000 * i);
		put16(out[i] + 12, -i);
		put16(out[i] + 14, 7);
	}
}

static void build_ok(const struct pmo_build *b, uint8_t **out, size_t *len)
{
	struct mh_diag d = {0};
	enum mh_err err = pmo_build(b, out, len, &d);
	if (err)
		fail_msg("pmo_build: %s: %s", mh_strerror(err), d.msg);
}

static void decode_ok(const uint8_t *buf, size_t len, struct pmo *p)
{
	struct mh_diag d = {0};
	enum mh_err err = pmo_decode(buf, len, NULL, 0, p, &d);
	if (err)
		fail_msg("pmo_decode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

static void triangles_are(const struct pmo *p, uint32_t g, const uint32_t (*want)[3], size_t n)
{
	uint32_t(*t)[3];
	size_t count;
	assert_int_equal(pmo_group_triangles(p, g, &t, &count, NULL), MH_OK);
	assert_int_equal(count, n);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			assert_int_equal(t[i][k], want[i][k]);
	free(t);
}

static void same_bytes_encoded(const struct pmo *p, const uint8_t *buf, size_t len)
{
	uint8_t *out, *comp;
	size_t n, cn;
	assert_int_equal(pmo_encode(p, &out, &n, &comp, &cn, NULL), MH_OK);
	assert_int_equal(n, len);
	assert_memory_equal(out, buf, len);
	assert_null(comp);
	free(out);
}

/* Two meshes: mesh 0 an indexed skinned group and an unindexed f32 one,
 * mesh 1 one skinned group; both versions. */
static void test_two_meshes(void **state)
{
	(void)state;
	uint8_t skin[4][16];
	skin_vertices(skin);
	float flat[3][3] = {{1.5f, 2, 3}, {-4, 5, 6.25f}, {7, -8, 9}};
	static const uint16_t quad[6] = {0, 1, 2, 2, 1, 3}, strip[4] = {0, 1, 2, 3};
	static const struct pmo_bone pal0[2] = {{0, 5}, {1, 6}}, pal2[1] = {{1, 9}};
	static const uint8_t remap0[2] = {1, 0}, remap1[1] = {1};
	struct pmo_build_group g0[2] = {
		{.material = 1, .vtype = VT_SKIN, .vertices = &skin[0][0], .vertex_count = 4,
		 .prim = PMO_TRIANGLES, .indices = quad, .count = 6, .palette = pal0,
		 .palette_count = 2},
		{.material = 0, .vtype = VT_F32, .vertices = (const uint8_t *)flat,
		 .vertex_count = 3, .prim = PMO_TRIANGLES, .count = 3},
	};
	struct pmo_build_group g1[1] = {
		{.material = 0, .vtype = VT_SKIN, .vertices = &skin[0][0], .vertex_count = 4,
		 .prim = PMO_STRIP, .indices = strip, .count = 4, .palette = pal2,
		 .palette_count = 1},
	};
	for (int v = 0; v < 2; v++) {
		bool p3rd = v == 1;
		struct pmo_build_mesh meshes[2] = {
			{.scale = {2, 3, 4, 1}, .uv_scale = {1, 0.5f}, .uv_offset = {0.25f, 0},
			 .lighting = 0x80000003u, .blend = 0, .remap = remap0, .remap_count = 2,
			 .groups = g0, .group_count = 2},
			{.scale = {2, 3, 4, 1}, .uv_scale = {1, 1}, .remap = remap1,
			 .remap_count = 1, .groups = g1, .group_count = 1},
		};
		struct pmo_build b = {.version = p3rd ? PMO_P3RD : PMO_MHFU, .scale = {2, 3, 4},
				      .meshes = meshes, .mesh_count = 2, .materials = materials,
				      .material_count = 2};
		uint8_t *buf;
		size_t len;
		build_ok(&b, &buf, &len);
		struct pmo p;
		decode_ok(buf, len, &p);
		assert_int_equal(p.h.version, b.version);
		assert_int_equal(p.h.size, len);
		assert_true(p.h.cull_radius == 4);
		assert_int_equal(p.h.mesh_count, 2);
		assert_int_equal(p.group_count, 3);
		assert_int_equal(p.h.mesh_off, 0x40);
		uint32_t offs[6] = {p.h.mesh_off, p.h.group_off, p.h.remap_off, p.h.palette_off,
				    p.h.material_off, p.h.geometry_off};
		for (int i = 0; i < 6; i++) {
			assert_int_equal(offs[i] % 16, 0);
			assert_true(i == 0 || offs[i] > offs[i - 1]);
		}
		assert_int_equal(p.remap_count, 3);
		assert_int_equal(p.remap[0], 1);
		assert_int_equal(p.remap[2], 1);
		assert_int_equal(pmo_group_material(&p, 0), 0);
		assert_int_equal(pmo_group_material(&p, 1), 1);
		assert_int_equal(pmo_group_material(&p, 2), 1);
		assert_int_equal(p.materials[1].kept, 0x12345678u);
		assert_int_equal(p.materials[0].color, 0xFF8040C0u);
		assert_true(p.meshes[0].uv_scale[1] == 0.5f);
		assert_int_equal(p.meshes[0].lighting, 0x80000003u);
		assert_true(p.meshes[0].uv_offset[0] == (p3rd ? 0.25f : 0));
		/* the palette, applied: group 2 changes slot 1 only */
		assert_int_equal(p.groups[0].slot_bone[0], 5);
		assert_int_equal(p.groups[0].slot_bone[1], 6);
		assert_int_equal(p.groups[2].slot_bone[0], 5);
		assert_int_equal(p.groups[2].slot_bone[1], 9);
		/* vertices */
		assert_int_equal(p.groups[0].vertex_count, 4);
		for (int i = 0; i < 4; i++) {
			const struct pmo_vertex *x = &p.groups[0].vertices[i];
			assert_true(x->weights[0] == (128 - 32 * i) / 128.0f);
			assert_true(x->weights[1] == 32 * i / 128.0f);
			assert_true(fabsf(x->pos[0] - 1000 * i / 32768.0f * 2) < 1e-6f);
			assert_true(fabsf(x->pos[1] + i / 32768.0f * 3) < 1e-6f);
			assert_true(fabsf(x->uv[0] - (16384 * i / 32768.0f + (p3rd ? 0.25f : 0))) <
				    1e-6f);
			assert_true(x->normal[0] == 127 / 128.0f);
		}
		for (int i = 0; i < 3; i++)
			for (int c = 0; c < 3; c++)
				assert_true(p.groups[1].vertices[i].pos[c] ==
					    flat[i][c] * (p3rd ? meshes[0].scale[c] : b.scale[c]));
		/* block alignment */
		uint32_t a = p3rd ? 4 : 16;
		for (uint32_t g = 0; g < 3; g++)
			assert_true(p.groups[g].list_off % a == 0 && p.groups[g].vertex_off % a == 0 &&
				    p.groups[g].index_off % a == 0);
		assert_int_equal(p.groups[1].index_off, 0);
		/* the strip's second triangle has its first two swapped */
		static const uint32_t t0[2][3] = {{0, 1, 2}, {2, 1, 3}}, t1[1][3] = {{0, 1, 2}};
		triangles_are(&p, 0, t0, 2);
		triangles_are(&p, 1, t1, 1);
		triangles_are(&p, 2, t0, 2);
		same_bytes_encoded(&p, buf, len);
		pmo_free(&p);
		free(buf);
	}
}

/* 21846 triangles: two PRIMs, every triangle there in order. */
static void test_long_list(void **state)
{
	(void)state;
	uint32_t ntri = PMO_BUILD_PRIM_MAX / 3 + 1;
	uint16_t *idx = malloc(3 * (size_t)ntri * sizeof *idx);
	assert_non_null(idx);
	for (uint32_t t = 0; t < ntri; t++)
		for (int k = 0; k < 3; k++)
			idx[3 * t + k] = (uint16_t)((t + (uint32_t)k) % 4);
	uint8_t skin[4][16];
	skin_vertices(skin);
	static const struct pmo_bone pal[1] = {{0, 0}};
	static const uint8_t remap[1] = {0};
	struct pmo_build_group g = {.vtype = VT_SKIN, .vertices = &skin[0][0], .vertex_count = 4,
				    .prim = PMO_TRIANGLES, .indices = idx, .count = 3 * ntri,
				    .palette = pal, .palette_count = 1};
	struct pmo_build_mesh m = {.uv_scale = {1, 1}, .remap = remap, .remap_count = 1,
				   .groups = &g, .group_count = 1};
	struct pmo_build b = {.version = PMO_MHFU, .scale = {1, 1, 1}, .meshes = &m,
			      .mesh_count = 1, .materials = materials, .material_count = 1};
	uint8_t *buf;
	size_t len;
	build_ok(&b, &buf, &len);
	struct pmo p;
	decode_ok(buf, len, &p);
	assert_int_equal(p.groups[0].draw_count, 2);
	uint32_t(*t)[3];
	size_t count;
	assert_int_equal(pmo_group_triangles(&p, 0, &t, &count, NULL), MH_OK);
	assert_int_equal(count, ntri);
	for (uint32_t i = 0; i < ntri; i++)
		for (int k = 0; k < 3; k++)
			assert_int_equal(t[i][k], idx[3 * i + k]);
	free(t);
	pmo_free(&p);
	free(buf);
	free(idx);
}

static void refused(const struct pmo_build *b, const char *says)
{
	uint8_t *buf = (uint8_t *)1;
	size_t len = 1;
	struct mh_diag d = {0};
	assert_int_equal(pmo_build(b, &buf, &len, &d), MH_ERANGE);
	assert_null(buf);
	assert_int_equal(len, 0);
	if (!strstr(d.msg, says))
		fail_msg("\"%s\" does not say \"%s\"", d.msg, says);
}

static void test_refused(void **state)
{
	(void)state;
	uint8_t skin[4][16];
	skin_vertices(skin);
	static const uint16_t idx[3] = {0, 1, 4};
	static const struct pmo_bone pal[1] = {{8, 0}};
	uint8_t remap[1] = {0};
	struct pmo_build_group g = {.vtype = VT_SKIN, .vertices = &skin[0][0], .vertex_count = 4,
				    .prim = PMO_TRIANGLES, .indices = idx, .count = 2};
	struct pmo_build_mesh m = {.remap = remap, .remap_count = 1, .groups = &g,
				   .group_count = 1};
	struct pmo_build b = {.version = PMO_MHFU, .meshes = &m, .mesh_count = 1,
			      .materials = materials, .material_count = 1};
	g.material = 1;
	refused(&b, "past mesh 0's 1 remap");
	g.material = 0;
	remap[0] = 1;
	refused(&b, "past the 1 materials");
	remap[0] = 0;
	g.count = 3;
	refused(&b, "index 2 is 4");
	g.count = 2;
	g.palette = pal;
	g.palette_count = 1;
	refused(&b, "slot 8");
	g.palette_count = 0;
	g.indices = NULL;
	g.count = 5;
	refused(&b, "5 vertices without indices");
	g.count = 0x10000;
	g.prim = PMO_STRIP;
	refused(&b, "at most 65535");
	g.prim = 7;
	refused(&b, "primitive 7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_meshes),
		cmocka_unit_test(test_long_list),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
