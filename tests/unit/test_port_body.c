/* SPDX-License-Identifier: MIT */
/* Tests of codecs/port_body (mhfu-archive(5) "A port's PMO").
 *
 * Donors are built by tests/gen/mkpmo.c (an MHP3rd body with its region in
 * a companion, an MHFU body), re-laid, and the result decoded with
 * codecs/pmo: an MHFU PMO of one mesh (two with a tip), the written
 * vertex type, palettes of at most 8, every group drawing the donor
 * group's triangles, UVs within u16 quantisation, positions within the
 * scale's, weights within 1/128 of the donor's through the joint map (an
 * MHFU body onto itself: equal); transferred weights from a hand-made host
 * (two planes, each on one joint) by side, a dead joint's going to its
 * parent; the tip's groups in mesh 1 with materials of their own; the
 * report agreeing with the PMO; inputs that do not fit refused. */
#include <math.h>
#include <stdlib.h>

#include "mkpmo.h"
#include "pmo.h"
#include "pmo_build.h"
#include "port_body.h"
#include "rig.h"
#include "skeleton.h"
#include "testlib.h"

#define JOINTS 8

/* A body: a spine up, an arm off it, a tail back. */
static const struct mkpmo_bone bones[] = {
	{-1, {0, 0, 0}},   {0, {0, 50, 0}},     {1, {0, 100, 0}},
	{1, {40, 80, 0}},  {0, {0, -10, -60}},  {4, {0, -20, -120}},
};
#define NBONES (sizeof bones / sizeof bones[0])
/* donor bone -> port joint: joints 0 and 5 take no bone */
static const int32_t joint_of_bone[NBONES] = {1, 2, 3, 4, 6, 7};

static void rig_of(struct skeleton *s, enum skeleton_game game, uint32_t n,
		   const int32_t *parents, uint32_t animated)
{
	assert_int_equal(skeleton_init(s, game, n, NULL), MH_OK);
	for (uint32_t b = 0; b < n; b++)
		s->bones[b].parent = parents[b];
	skeleton_link(s, false);
	uint32_t params[2] = {0, animated};
	skeleton_set_params(s, 2, params);
}

static void donor_rig(struct skeleton *s)
{
	int32_t parents[NBONES];
	for (unsigned b = 0; b < NBONES; b++)
		parents[b] = bones[b].parent;
	rig_of(s, SKELETON_MHP3RD, NBONES, parents, NBONES);
}

/* The port's rig: 8 joints, joint 7 (the tail's tip) not animated. */
static void port_rig(struct skeleton *s)
{
	static const int32_t parents[JOINTS] = {-1, 0, 1, 2, 2, 1, 1, 6};
	rig_of(s, SKELETON_MHFU, JOINTS, parents, JOINTS - 1);
}

static void body(bool p3rd, uint64_t seed, struct mkpmo *m, struct pmo *p)
{
	struct mkpmo_body b = {.p3rd = p3rd, .companion = p3rd, .skinned = true, .meshes = 2,
			       .sides = 6, .rings = 3, .textures = 2, .bones = bones,
			       .nbones = NBONES};
	mkpmo_body(seed, &b, m);
	struct mh_diag d = {0};
	if (pmo_decode(m->pmo, m->len, m->companion, m->companion_len, p, &d))
		fail_msg("the donor does not decode: %s", d.msg);
	assert_int_equal(p->external, p3rd);
}

static void port_ok(const struct port_body_in *in, struct pmo *out, uint8_t **bytes,
		    struct port_body_report *rep)
{
	size_t len;
	struct mh_diag d = {0};
	enum mh_err err = port_body(in, bytes, &len, rep, &d);
	if (err)
		fail_msg("port_body: %s: %s", mh_strerror(err), d.msg);
	if (pmo_decode(*bytes, len, NULL, 0, out, &d))
		fail_msg("the port's PMO does not decode: %s at %llu", d.msg,
			 (unsigned long long)d.offset);
}

/* Vertex v of grp as weight per joint, through map (NULL: the bones). */
static void joint_weights(const struct pmo_group *grp, uint32_t v, const int32_t *map,
			  double w[JOINTS])
{
	memset(w, 0, JOINTS * sizeof *w);
	for (unsigned k = 0; k < grp->vtype.weights; k++) {
		int b = grp->slot_bone[k];
		if (grp->vertices[v].weights[k] > 0) {
			assert_true(b >= 0);
			int j = map ? map[b] : b;
			assert_true(j >= 0 && j < JOINTS);
			w[j] += grp->vertices[v].weights[k];
		}
	}
}

/* The written type, palettes and the header mhfu-archive(5) "A port's
 * PMO" gives. */
static void written_shape(const struct pmo *out, unsigned meshes)
{
	assert_int_equal(out->h.version, PMO_MHFU);
	assert_int_equal(out->h.mesh_count, meshes);
	assert_int_equal(out->h.group_off - out->h.mesh_off,
			 (meshes * PMO_MESH_MHFU + 15) / 16 * 16);
	assert_true(out->h.cull_radius == fmaxf(out->h.scale[0],
						fmaxf(out->h.scale[1], out->h.scale[2])));
	for (uint32_t g = 0; g < out->group_count; g++) {
		const struct pmo_group *grp = &out->groups[g];
		assert_int_equal(grp->vtype.uv, 2);
		assert_int_equal(grp->vtype.color, 0);
		assert_int_equal(grp->vtype.normal, 1);
		assert_int_equal(grp->vtype.pos, 2);
		assert_int_equal(grp->vtype.weight, 1);
		assert_int_equal(grp->vtype.index, 2);
		assert_true(grp->palette_count >= 1 && grp->palette_count <= PMO_MAX_WEIGHTS);
		assert_int_equal(grp->vtype.weights, grp->palette_count);
		for (uint32_t v = 0; v < grp->vertex_count; v++) {
			unsigned sum = 0;
			for (unsigned k = 0; k < grp->vtype.weights; k++)
				sum += (unsigned)lrintf(grp->vertices[v].weights[k] * 128);
			assert_int_equal(sum, 128);
		}
	}
}

static void same_triangles(const struct pmo *a, uint32_t ga, const struct pmo *b, uint32_t gb)
{
	uint32_t(*ta)[3], (*tb)[3];
	size_t na, nb;
	assert_int_equal(pmo_group_triangles(a, ga, &ta, &na, NULL), MH_OK);
	assert_int_equal(pmo_group_triangles(b, gb, &tb, &nb, NULL), MH_OK);
	assert_int_equal(na, nb);
	assert_true(na > 0);
	assert_memory_equal(ta, tb, na * sizeof *ta);
	free(ta);
	free(tb);
}

/* Every written group draws its donor group's triangles over its
 * vertices, their UVs, normals and positions within quantisation and
 * their weights within `tolerance` of the donor's through map; the
 * report lists them in order. */
static void follows_donor(const struct pmo *donor, const struct pmo *out, const int32_t *map,
			  const struct port_body_report *rep, double tolerance)
{
	assert_int_equal(rep->ngroups, out->group_count);
	uint32_t at = 0, written = 0;
	for (uint32_t g = 0; g < out->group_count; g++) {
		const struct pmo_group *o = &out->groups[g];
		const struct pmo_group *s = &donor->groups[rep->donor_group[g]];
		assert_int_equal(rep->palette_size[g], o->palette_count);
		same_triangles(donor, rep->donor_group[g], out, g);
		assert_memory_equal(&out->materials[pmo_group_material(out, g)],
				    &donor->materials[pmo_group_material(donor, rep->donor_group[g])],
				    sizeof *out->materials);
		for (uint32_t v = 0; v < o->vertex_count; v++, at++) {
			const struct pmo_vertex *x = &s->vertices[v], *y = &o->vertices[v];
			for (int c = 0; c < 3; c++) {
				assert_true(fabsf(x->pos[c] - y->pos[c]) <= out->h.scale[c] / 32768);
				assert_true(fabsf(x->normal[c] - y->normal[c]) <= 1.0f / 128);
			}
			for (int c = 0; c < 2; c++)
				assert_true(fabsf(x->uv[c] - y->uv[c]) <=
					    out->meshes[o->mesh].uv_scale[c] / 32768);
			double want[JOINTS], got[JOINTS];
			joint_weights(s, v, map, want);
			joint_weights(o, v, NULL, got);
			const struct port_body_vertex *r = &rep->vertices[at];
			assert_int_equal(r->group, rep->donor_group[g]);
			assert_int_equal(r->vertex, v);
			double listed[JOINTS] = {0};
			for (unsigned k = 0; k < r->count; k++)
				listed[r->joint[k]] += r->weight[k];
			for (int j = 0; j < JOINTS; j++) {
				assert_true(fabs(want[j] - got[j]) <= tolerance + 1e-6);
				assert_true(fabs(listed[j] - got[j]) < 1e-6);
			}
		}
		written += o->vertex_count;
	}
	assert_int_equal(rep->nvertices, written);
}

/* Vertices whose heaviest joint (ties: the lower slot) is past the
 * animated ones, counted from the PMO. */
static uint32_t count_on_static(const struct pmo *out, uint32_t animated)
{
	uint32_t n = 0;
	for (uint32_t g = 0; g < out->group_count; g++) {
		const struct pmo_group *o = &out->groups[g];
		for (uint32_t v = 0; v < o->vertex_count; v++) {
			unsigned best = 0;
			for (unsigned k = 1; k < o->vtype.weights; k++)
				if (o->vertices[v].weights[k] > o->vertices[v].weights[best])
					best = k;
			n += (uint32_t)o->slot_bone[best] >= animated;
		}
	}
	return n;
}

/* The MHP3rd donor (companion geometry) through the map: its own weights. */
static void test_source(void **state)
{
	(void)state;
	struct mkpmo m;
	struct pmo donor, out;
	struct skeleton drig, prig;
	body(true, 3, &m, &donor);
	donor_rig(&drig);
	port_rig(&prig);
	struct port_body_in in = {.donor = &donor, .donor_rig = &drig,
				  .joint_of_bone = joint_of_bone, .port_rig = &prig};
	uint8_t *bytes;
	struct port_body_report rep;
	port_ok(&in, &out, &bytes, &rep);
	written_shape(&out, 1);
	assert_int_equal(out.group_count, donor.group_count);
	follows_donor(&donor, &out, joint_of_bone, &rep, 1.0 / 128);
	assert_int_equal(rep.animated, JOINTS - 1);
	assert_int_equal(rep.on_static, count_on_static(&out, JOINTS - 1));
	assert_true(rep.on_static > 0 && rep.on_static < rep.nvertices);
	assert_int_equal(rep.capped, 0);
	assert_int_equal(rep.tip_groups, 0);
	/* the materials copied in order */
	assert_int_equal(out.h.material_count, donor.h.material_count);
	assert_memory_equal(out.materials, donor.materials,
			    donor.h.material_count * sizeof *donor.materials);
	/* the scale covers the farthest vertex at s16 32767 */
	for (int c = 0; c < 3; c++) {
		float most = 0;
		for (uint32_t g = 0; g < donor.group_count; g++)
			for (uint32_t v = 0; v < donor.groups[g].vertex_count; v++)
				most = fmaxf(most, fabsf(donor.groups[g].vertices[v].pos[c]));
		assert_true(fabsf(out.h.scale[c] * 32767 / 32768 - most) <= most * 1e-6f);
	}
	port_body_report_free(&rep);
	free(bytes);
	pmo_free(&out);
	pmo_free(&donor);
	skeleton_free(&drig);
	skeleton_free(&prig);
	mkpmo_free(&m);
}

/* An MHFU body onto itself: the triangles and weights as they were. */
static void test_identity(void **state)
{
	(void)state;
	struct mkpmo m;
	struct pmo donor, out;
	struct skeleton drig, prig;
	body(false, 5, &m, &donor);
	donor_rig(&drig);
	rig_of(&prig, SKELETON_MHFU, NBONES, (const int32_t[]){-1, 0, 1, 1, 0, 4}, NBONES);
	static const int32_t same[NBONES] = {0, 1, 2, 3, 4, 5};
	struct port_body_in in = {.donor = &donor, .donor_rig = &drig, .joint_of_bone = same,
				  .port_rig = &prig};
	uint8_t *bytes;
	struct port_body_report rep;
	port_ok(&in, &out, &bytes, &rep);
	written_shape(&out, 1);
	assert_int_equal(out.group_count, donor.group_count);
	follows_donor(&donor, &out, same, &rep, 0);
	assert_int_equal(rep.on_static, 0);
	port_body_report_free(&rep);
	free(bytes);
	pmo_free(&out);
	pmo_free(&donor);
	skeleton_free(&drig);
	skeleton_free(&prig);
	mkpmo_free(&m);
}

/* A host of two planes at y = 0 (x from -1000 to 0 on host joint 1, from
 * 0 to 1000 on host joint 2), laid out with pmo_build. */
static void plane_host(struct pmo *host, uint8_t **bytes)
{
	/* weights, UV, normal, s16 position: 16 bytes */
	uint8_t v[8][16];
	memset(v, 0, sizeof v);
	static const int corner[4][2] = {{-1, -1}, {0, -1}, {-1, 1}, {0, 1}};
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < 4; k++) {
			uint8_t *q = v[4 * side + k];
			q[side] = 128;
			int x = (corner[k][0] + side) * 32767, z = corner[k][1] * 32767;
			q[10] = (uint8_t)x, q[11] = (uint8_t)(x >> 8);
			q[14] = (uint8_t)z, q[15] = (uint8_t)(z >> 8);
		}
	static const uint16_t idx[12] = {0, 1, 2, 2, 1, 3, 4, 5, 6, 6, 5, 7};
	static const struct pmo_bone pal[2] = {{0, 1}, {1, 2}};
	static const uint8_t remap[1] = {0};
	static const struct pmo_material mat = {.color = 0xFFFFFFFFu, .texture = 0xFF};
	struct pmo_build_group g = {.vtype = 2u | 1u << 5 | 2u << 7 | 1u << 9 | 1u << 14,
				    .vertices = &v[0][0], .vertex_count = 8,
				    .prim = PMO_TRIANGLES, .indices = idx, .count = 12,
				    .palette = pal, .palette_count = 2};
	struct pmo_build_mesh mesh = {.uv_scale = {1, 1}, .remap = remap, .remap_count = 1,
				      .groups = &g, .group_count = 1};
	struct pmo_build b = {.version = PMO_MHFU, .scale = {1000, 1000, 1000}, .meshes = &mesh,
			      .mesh_count = 1, .materials = &mat, .material_count = 1};
	size_t len;
	assert_int_equal(pmo_build(&b, bytes, &len, NULL), MH_OK);
	assert_int_equal(pmo_decode(*bytes, len, NULL, 0, host, NULL), MH_OK);
}

/* Transferred weights: each donor vertex takes the side of the plane
 * it lies over; with host joint 2 dead, its weight goes to its parent. */
static void test_transfer(void **state)
{
	(void)state;
	struct mkpmo m;
	struct pmo donor, host;
	struct skeleton drig, prig, hrig;
	uint8_t *host_bytes;
	body(true, 7, &m, &donor);
	donor_rig(&drig);
	port_rig(&prig);
	rig_of(&hrig, SKELETON_MHFU, 3, (const int32_t[]){-1, 0, 1}, 3);
	plane_host(&host, &host_bytes);
	static const int32_t live[3] = {PORT_NONE, 5, 3}, dead[3] = {PORT_NONE, 5, PORT_NONE};
	for (int k = 0; k < 2; k++) {
		struct port_body_in in = {.donor = &donor, .donor_rig = &drig,
					  .joint_of_bone = joint_of_bone, .port_rig = &prig,
					  .skin = PORT_SKIN_TRANSFER, .host = &host,
					  .host_rig = &hrig, .joint_of_host = k ? dead : live};
		struct pmo out;
		uint8_t *bytes;
		struct port_body_report rep;
		port_ok(&in, &out, &bytes, &rep);
		written_shape(&out, 1);
		uint32_t left = 0, right = 0;
		for (uint32_t g = 0; g < out.group_count; g++) {
			const struct pmo_group *o = &out.groups[g];
			const struct pmo_group *s = &donor.groups[rep.donor_group[g]];
			for (uint32_t v = 0; v < o->vertex_count; v++) {
				float x = s->vertices[v].pos[0];
				double w[JOINTS];
				joint_weights(o, v, NULL, w);
				if (x < -1) {
					assert_true(w[5] == 1);
					left++;
				} else if (x > 1) {
					assert_true(w[k ? 5 : 3] == 1);
					right++;
				}
			}
		}
		assert_true(left > 0 && right > 0);
		port_body_report_free(&rep);
		free(bytes);
		pmo_free(&out);
	}
	free(host_bytes);
	pmo_free(&host);
	pmo_free(&donor);
	skeleton_free(&drig);
	skeleton_free(&prig);
	skeleton_free(&hrig);
	mkpmo_free(&m);
}

/* The tail's joints as the tip: the groups they dominate in mesh 1,
 * after mesh 0's, with materials of their own. */
static void test_tip(void **state)
{
	(void)state;
	struct mkpmo m;
	struct pmo donor, out;
	struct skeleton drig, prig;
	body(true, 11, &m, &donor);
	donor_rig(&drig);
	port_rig(&prig);
	static const int32_t tip[2] = {6, 7};
	struct port_body_in in = {.donor = &donor, .donor_rig = &drig,
				  .joint_of_bone = joint_of_bone, .port_rig = &prig,
				  .tip_joints = tip, .ntip_joints = 2};
	uint8_t *bytes;
	struct port_body_report rep;
	port_ok(&in, &out, &bytes, &rep);
	written_shape(&out, 2);
	follows_donor(&donor, &out, joint_of_bone, &rep, 1.0 / 128);
	assert_int_equal(out.meshes[1].group_count, rep.tip_groups);
	assert_true(rep.tip_groups > 0 && out.meshes[0].group_count > 0);
	for (uint32_t g = 0; g < out.group_count; g++) {
		const struct pmo_group *o = &out.groups[g];
		double sum[JOINTS] = {0};
		for (uint32_t v = 0; v < o->vertex_count; v++) {
			double w[JOINTS];
			joint_weights(o, v, NULL, w);
			for (int j = 0; j < JOINTS; j++)
				sum[j] += w[j];
		}
		int dominant = 0;
		for (int j = 1; j < JOINTS; j++)
			if (sum[j] > sum[dominant] + 1e-9)
				dominant = j;
		assert_int_equal(o->mesh, dominant == 6 || dominant == 7);
	}
	/* mesh 1's remap names copies past the donor's materials */
	for (uint32_t i = 0; i < out.meshes[1].remap_count; i++) {
		uint8_t mat = out.remap[out.meshes[1].remap_first + i];
		assert_true(mat >= donor.h.material_count);
		for (uint32_t k = 0; k < out.meshes[0].remap_count; k++)
			assert_int_not_equal(out.remap[out.meshes[0].remap_first + k], mat);
	}
	port_body_report_free(&rep);
	free(bytes);
	pmo_free(&out);
	pmo_free(&donor);
	skeleton_free(&drig);
	skeleton_free(&prig);
	mkpmo_free(&m);
}

static void refused(const struct port_body_in *in, const char *says)
{
	uint8_t *bytes = (uint8_t *)1;
	size_t len = 1;
	struct port_body_report rep;
	struct mh_diag d = {0};
	assert_int_equal(port_body(in, &bytes, &len, &rep, &d), MH_ERANGE);
	assert_null(bytes);
	assert_int_equal(rep.nvertices, 0);
	if (!strstr(d.msg, says))
		fail_msg("\"%s\" does not say \"%s\"", d.msg, says);
	port_body_report_free(&rep);
}

static void test_refused(void **state)
{
	(void)state;
	struct mkpmo m;
	struct pmo donor;
	struct skeleton drig, prig;
	body(true, 3, &m, &donor);
	donor_rig(&drig);
	port_rig(&prig);
	int32_t map[NBONES];
	memcpy(map, joint_of_bone, sizeof map);
	struct port_body_in in = {.donor = &donor, .donor_rig = &drig, .joint_of_bone = map,
				  .port_rig = &prig};
	map[2] = JOINTS;
	refused(&in, "donor bone 2 maps to port joint 8");
	map[2] = joint_of_bone[2];
	static const int32_t tip[1] = {-3};
	in.tip_joints = tip;
	in.ntip_joints = 1;
	refused(&in, "tip joint 0 maps to port joint -3");
	in.ntip_joints = 0;
	in.skin = PORT_SKIN_TRANSFER;
	refused(&in, "need the host's model");
	pmo_free(&donor);
	skeleton_free(&drig);
	skeleton_free(&prig);
	mkpmo_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_source),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_transfer),
		cmocka_unit_test(test_tip),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
