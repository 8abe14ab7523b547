/* SPDX-License-Identifier: MIT */
/* Fuzz target: glTF read back (codecs/gltf_read, gltf_sample, gltf_motion).
 *
 * The input is a GLB or glTF JSON.  What reads must hold what the
 * reader promises: every node's parent and children in range, every
 * primitive's indices below its vertex count, every sampler's times
 * increasing; every channel is sampled before, at and after its keys and
 * must give finite values (rotations of length 1).  When the asset has
 * one animation, its motion on a fixed three-bone rig ("joint 00" the
 * root, "joint 01" and "joint 02" its children) is taken: what it gives
 * is finite at every frame, a refusal has a message.  Read onto a small
 * PMO as a reshaped body (pmo_apply_gltf), it moves vertices or is
 * refused with a message, and the PMO still encodes at its size; so
 * onto a PAC of two such PMOs (pmo_pac_apply_gltf), which keeps its size
 * and its other member.  What
 * does not read must fail with a message.  Any violation abort()s.  Built with clang
 * -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c.
 * fuzz.sh flags: -max_len=16384
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_motion.h"
#include "gltf_read.h"
#include "pac.h"
#include "pmo.h"
#include "pmo_build.h"
#include "skeleton.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether every decoded number is small enough that sums and products
 * of a few stay finite: only then must sampling give finite values. */
static bool tame(const struct gltf_asset *a)
{
	for (uint32_t i = 0; i < a->nanimations; i++)
		for (uint32_t s = 0; s < a->animations[i].nsamplers; s++) {
			const struct gltf_sampler *sp = &a->animations[i].samplers[s];
			for (uint32_t k = 0; k < sp->output.count * sp->output.comps; k++)
				if (fabsf(sp->output.v[k]) > 1e15f)
					return false;
			for (uint32_t k = 0; k < sp->input.count; k++)
				if (fabsf(sp->input.v[k]) > 1e15f)
					return false;
		}
	for (uint32_t i = 0; i < a->nnodes; i++)
		for (int k = 0; k < 3; k++)
			if (fabs(a->nodes[i].translation[k]) > 1e15)
				return false;
	return true;
}

static void check_asset(const struct gltf_asset *a)
{
	bool finite = tame(a);
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const struct gltf_node *n = &a->nodes[i];
		if (n->parent >= (int32_t)a->nnodes || !n->name)
			abort();
		for (uint32_t k = 0; k < n->nchildren; k++)
			if (n->children[k] >= a->nnodes || a->nodes[n->children[k]].parent != (int32_t)i)
				abort();
	}
	for (uint32_t m = 0; m < a->nmeshes; m++)
		for (uint32_t p = 0; p < a->meshes[m].nprimitives; p++) {
			const struct gltf_primitive *pr = &a->meshes[m].primitives[p];
			for (uint32_t i = 0; i < pr->nindices; i++)
				if (pr->indices[i] >= pr->nvertices)
					abort();
		}
	for (uint32_t i = 0; i < a->nanimations; i++) {
		const struct gltf_animation *an = &a->animations[i];
		for (uint32_t s = 0; s < an->nsamplers; s++)
			for (uint32_t k = 1; k < an->samplers[s].input.count; k++)
				if (!(an->samplers[s].input.v[k] > an->samplers[s].input.v[k - 1]))
					abort();
		for (uint32_t c = 0; c < an->nchannels; c++) {
			const struct gltf_sampler *s = &an->samplers[an->channels[c].sampler];
			if (s->comps > 4096)
				continue;
			double out[4096];
			const float *t = s->input.v;
			double at[] = {t[0] - 1, t[0], (t[0] + t[s->input.count - 1]) / 2,
				       t[s->input.count - 1] + 1};
			for (int k = 0; k < 4; k++) {
				gltf_channel_sample(an, &an->channels[c], at[k], out);
				double len = 0;
				for (uint32_t j = 0; j < s->comps; j++) {
					if (!isfinite(out[j]) && finite)
						abort();
					len += out[j] * out[j];
				}
				if (an->channels[c].path == GLTF_PATH_ROTATION && isfinite(len) &&
				    fabs(len - 1) > 1e-6)
					abort();
			}
		}
	}
}

static void check_motion(const struct gltf_asset *a)
{
	bool finite = tame(a);
	struct skeleton s;
	if (skeleton_init(&s, SKELETON_MHFU, 3, NULL) != MH_OK)
		abort();
	s.bones[1].parent = s.bones[2].parent = 0;
	s.bones[1].position[0] = 5;
	s.bones[2].position[1] = -5;
	skeleton_link(&s, false);
	struct gltf_motion m;
	struct mh_diag d = {0};
	enum mh_err err = gltf_motion_read(a, &s, NULL, &m, &d);
	if (err) {
		if (!d.msg[0])
			abort();
	} else {
		for (uint32_t b = 0; b < m.njoints; b++)
			for (int ax = 0; m.joints[b].animated && ax < 3; ax++)
				for (uint32_t f = 0; f < m.frames; f++)
					if (finite && (!isfinite(m.joints[b].rot[ax][f]) ||
						       !isfinite(m.joints[b].loc[ax][f])))
						abort();
		gltf_motion_free(&m);
	}
	skeleton_free(&s);
}

/* A PMO of one triangle (material 00, s16 positions), built once. */
static const uint8_t *small_pmo(size_t *len)
{
	static uint8_t *bytes;
	static size_t n;
	if (!bytes) {
		static const int16_t at[9] = {0, 0, 0, 16384, 0, 0, 0, 16384, 0};
		static const uint16_t idx[3] = {0, 1, 2};
		static const uint8_t remap[1] = {0};
		static const struct pmo_material mat = {.color = 0xffffffffu, .texture = 0xff};
		struct pmo_build_group g = {.vtype = 2u << 7, .vertices = (const uint8_t *)at,
					    .vertex_count = 3, .prim = PMO_TRIANGLES,
					    .indices = idx, .count = 3};
		struct pmo_build_mesh m = {.scale = {1, 1, 1, 1}, .uv_scale = {1, 1},
					   .remap = remap, .remap_count = 1, .groups = &g,
					   .group_count = 1};
		struct pmo_build b = {.version = PMO_MHFU, .scale = {100, 100, 100}, .meshes = &m,
				      .mesh_count = 1, .materials = &mat, .material_count = 1};
		if (pmo_build(&b, &bytes, &n, NULL))
			abort();
	}
	*len = n;
	return bytes;
}

static void check_body(const uint8_t *data, size_t size)
{
	size_t len;
	const uint8_t *bytes = small_pmo(&len);
	struct pmo p;
	struct mh_diag d = {0};
	uint32_t moved;
	if (pmo_decode(bytes, len, NULL, 0, &p, NULL))
		abort();
	enum mh_err err = pmo_apply_gltf(&p, data, size, &moved, &d);
	if (err && !d.msg[0])
		abort();
	uint8_t *out, *companion;
	size_t out_len, companion_len;
	if (!err) {
		if (pmo_encode(&p, &out, &out_len, &companion, &companion_len, NULL) ||
		    out_len != len)
			abort();
		free(out);
		free(companion);
	}
	pmo_free(&p);
}

/* The same as a model PAC's model.glb written back
 * (pmo_pac_apply_gltf), onto a PAC of the small PMO twice ("body" and
 * "body 1") and a data member: a refusal has a message and gives no
 * bytes; what is taken is the PAC's size and keeps the data member. */
static void check_pac(const uint8_t *data, size_t size)
{
	size_t len;
	const uint8_t *pmo = small_pmo(&len);
	static const uint8_t other[16] = "not a model ...";
	const struct pac_blob members[3] = {{pmo, (uint32_t)len}, {other, sizeof other},
					    {pmo, (uint32_t)len}};
	uint8_t *pac, *out;
	size_t pac_len, out_len;
	struct mh_diag d = {0};
	uint32_t moved;
	if (pac_encode(members, 3, 16, NULL, 0, &pac, &pac_len, NULL))
		abort();
	enum mh_err err = pmo_pac_apply_gltf(pac, pac_len, data, size, &out, &out_len, &moved, &d);
	if (err ? !d.msg[0] || out : out_len != pac_len || !memmem(out, out_len, other, sizeof other))
		abort();
	free(out);
	free(pac);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_body(data, size);
	check_pac(data, size);
	struct gltf_asset a;
	struct mh_diag d = {0};
	if (gltf_read(data, size, &a, &d) != MH_OK) {
		if (!d.msg[0] || a.nodes || a.animations)
			abort();
		return 0;
	}
	check_asset(&a);
	check_motion(&a);
	gltf_asset_free(&a);
	return 0;
}
