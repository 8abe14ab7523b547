/* SPDX-License-Identifier: MIT */
/* Tests of codecs/gltf_read (glTF 2.0 read back), gltf_sample.c (a
 * channel's value at a time) and gltf_motion (one animation as the
 * engine's joint values).  The sample's Tigrex ($MHFU_SAMPLE): its
 * model.glb (gltf_model_with over its skeleton, pack and PMO) reads back
 * to its rig, skin, animations and the PMO groups' primitives, and entry
 * 001's motion equals the engine's own sampling of its clips (curve.h)
 * within a raw unit at every frame; the same file as .gltf with a base64
 * buffer reads the same.  Small assets written here try each
 * interpolation, the Euler unwrapping, and each refusal's message. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "anim.h"
#include "bytes.h"
#include "curve.h"
#include "entries.h"
#include "fit.h"
#include "gltf.h"
#include "gltf_motion.h"
#include "gltf_read.h"
#include "pmo.h"
#include "pose.h"
#include "quat.h"
#include "rng.h"
#include "skeleton.h"
#include "testlib.h"

#define RAW_TURN 16384.0 /* raw rotation units in a turn */

/* ---- writing small assets ------------------------------------------------ */

/* A GLB of json and bin[0..bin_len) (malloc'ed). */
static uint8_t *glb_of(const char *json, const void *bin, size_t bin_len, size_t *len)
{
	size_t jl = (strlen(json) + 3) & ~(size_t)3, bl = (bin_len + 3) & ~(size_t)3;
	*len = 12 + 8 + jl + (bin ? 8 + bl : 0);
	uint8_t *b = calloc(1, *len);
	assert_non_null(b);
	put_le32(b, GLTF_MAGIC);
	put_le32(b + 4, 2);
	put_le32(b + 8, (uint32_t)*len);
	put_le32(b + 12, (uint32_t)jl);
	put_le32(b + 16, GLTF_CHUNK_JSON);
	memset(b + 20, ' ', jl);
	memcpy(b + 20, json, strlen(json));
	if (bin) {
		put_le32(b + 20 + jl, (uint32_t)bl);
		put_le32(b + 24 + jl, GLTF_CHUNK_BIN);
		memcpy(b + 28 + jl, bin, bin_len);
	}
	return b;
}

/* Arrays of floats, each an accessor (and a view) of the asset. */
struct blobs {
	char json[2048]; /* "accessors":[...],"bufferViews":[...],"buffers":[...] */
	uint8_t bin[4096];
	size_t len;
};

static void blobs_make(struct blobs *b, const float *const *v, const uint32_t *count,
		       const char *const *type, const unsigned *comps, int n)
{
	char acc[1024] = "", views[1024] = "";
	size_t al = 0, vl = 0;
	b->len = 0;
	for (int i = 0; i < n; i++) {
		size_t bytes = (size_t)count[i] * comps[i] * 4;
		put_le_f32s(b->bin + b->len, v[i], (size_t)count[i] * comps[i]);
		al += (size_t)snprintf(acc + al, sizeof acc - al,
				       "%s{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,"
				       "\"type\":\"%s\"}",
				       i ? "," : "", i, count[i], type[i]);
		vl += (size_t)snprintf(views + vl, sizeof views - vl,
				       "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}",
				       i ? "," : "", b->len, bytes);
		b->len += bytes;
	}
	snprintf(b->json, sizeof b->json,
		 "\"accessors\":[%s],\"bufferViews\":[%s],\"buffers\":[{\"byteLength\":%zu}]", acc,
		 views, b->len);
}

/* An asset of `body` (its nodes, animations...) and the arrays. */
static uint8_t *asset_of(const char *body, const struct blobs *b, size_t *len)
{
	char json[8192];
	snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},%s,%s}", body, b->json);
	return glb_of(json, b->bin, b->len, len);
}

static void read_ok(const uint8_t *b, size_t len, struct gltf_asset *a)
{
	struct mh_diag d = {0};
	if (gltf_read(b, len, a, &d) != MH_OK)
		fail_msg("gltf_read: %s (line %u col %u, offset %llu)", d.msg, d.line, d.col,
			 (unsigned long long)d.offset);
}

/* gltf_read's refusal of b: its code, the message holding `words`. */
static struct mh_diag read_refused(const uint8_t *b, size_t len, enum mh_err code,
				   const char *words)
{
	struct gltf_asset a;
	struct mh_diag d = {0};
	enum mh_err err = gltf_read(b, len, &a, &d);
	if (err != code || !strstr(d.msg, words))
		fail_msg("expected %s with \"%s\", got %s: %s", mh_strerror(code), words,
			 mh_strerror(err), d.msg);
	assert_null(a.nodes);
	return d;
}

/* ---- interpolation ----------------------------------------------------- */

/* Keys at 0, 1, 2 s: translations x 0, 10, 20; rotations identity, 90
 * degrees about Z, then 180. */
static void sample_modes(void **state)
{
	(void)state;
	const float times[] = {0, 1, 2};
	const float tr[] = {0, 0, 0, 10, 0, 0, 20, 0, 0};
	double h = sqrt(0.5);
	const float rot[] = {0, 0, 0, 1, 0, 0, (float)h, (float)h, 0, 0, 1, 0};
	/* Key 1's rotation written as its negative: the same rotation, which
	 * LINEAR must take the short way. */
	const float rot_neg[] = {0, 0, 0, 1, 0, 0, (float)-h, (float)-h, 0, 0, 1, 0};
	const float *v[] = {times, tr, rot, rot_neg};
	const uint32_t count[] = {3, 3, 3, 3};
	const char *type[] = {"SCALAR", "VEC3", "VEC4", "VEC4"};
	const unsigned comps[] = {1, 3, 4, 4};
	struct blobs b;
	blobs_make(&b, v, count, type, comps, 4);
	const char *modes[] = {"STEP", "LINEAR"};
	for (int m = 0; m < 2; m++) {
		char body[1024];
		snprintf(body, sizeof body,
			 "\"nodes\":[{\"name\":\"n\"}],\"animations\":[{\"name\":\"a\",\"samplers\":"
			 "[{\"input\":0,\"output\":1,\"interpolation\":\"%s\"},"
			 "{\"input\":0,\"output\":2,\"interpolation\":\"%s\"},"
			 "{\"input\":0,\"output\":3,\"interpolation\":\"%s\"}],\"channels\":["
			 "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
			 "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}},"
			 "{\"sampler\":2,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]",
			 modes[m], modes[m], modes[m]);
		size_t len;
		uint8_t *glb = asset_of(body, &b, &len);
		struct gltf_asset a;
		read_ok(glb, len, &a);
		const struct gltf_animation *an = &a.animations[0];
		assert_int_equal(an->samplers[0].interp, m ? GLTF_LINEAR : GLTF_STEP);
		double out[4];
		/* Held before the first key and after the last. */
		gltf_channel_sample(an, &an->channels[0], -1, out);
		assert_true(out[0] == 0);
		gltf_channel_sample(an, &an->channels[0], 7, out);
		assert_true(out[0] == 20);
		gltf_channel_sample(an, &an->channels[0], 1, out);
		assert_true(out[0] == 10);
		gltf_channel_sample(an, &an->channels[0], 1.25, out);
		assert_true(fabs(out[0] - (m ? 12.5 : 10)) < 1e-9);
		for (int c = 1; c <= 2; c++) {
			gltf_channel_sample(an, &an->channels[c], 0.5, out);
			/* STEP: the identity; LINEAR: 45 degrees about Z. */
			double z = m ? sin(M_PI / 8) : 0, w = m ? cos(M_PI / 8) : 1;
			assert_true(fabs(out[2] - z) < 1e-6 && fabs(out[3] - w) < 1e-6);
			assert_true(fabs(out[0]) < 1e-9 && fabs(out[1]) < 1e-9);
		}
		gltf_asset_free(&a);
		free(glb);
	}
}

/* CUBICSPLINE: keys (0 s, 0) with out-tangent 1, (2 s, 1) with in-tangent
 * 0; the tangents scale by the 2 s between the keys. */
static void sample_cubic(void **state)
{
	(void)state;
	const float times[] = {0, 2};
	/* Per key: in-tangent, value, out-tangent, each VEC3. */
	const float out[] = {9, 9, 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 9, 9, 9};
	const float *v[] = {times, out};
	const uint32_t count[] = {2, 6};
	const char *type[] = {"SCALAR", "VEC3"};
	const unsigned comps[] = {1, 3};
	struct blobs b;
	blobs_make(&b, v, count, type, comps, 2);
	size_t len;
	uint8_t *glb = asset_of("\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,"
				"\"output\":1,\"interpolation\":\"CUBICSPLINE\"}],\"channels\":[{"
				"\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]",
				&b, &len);
	struct gltf_asset a;
	read_ok(glb, len, &a);
	const struct gltf_animation *an = &a.animations[0];
	double p[3];
	/* u = 1/2: value h01 = 1/2, the out-tangent's h10 dt = 1/8 * 2. */
	gltf_channel_sample(an, &an->channels[0], 1, p);
	assert_true(fabs(p[0] - 0.75) < 1e-9);
	assert_true(fabs(p[1] - 0.5) < 1e-9);
	gltf_channel_sample(an, &an->channels[0], 2, p);
	assert_true(p[0] == 1 && p[2] == 1);
	gltf_channel_sample(an, &an->channels[0], -3, p);
	assert_true(p[0] == 0);
	gltf_asset_free(&a);
	free(glb);
}

/* Rotations as normalized shorts and bytes, strided in one view. */
static void normalized_outputs(void **state)
{
	(void)state;
	uint8_t bin[64] = {0};
	put_le_f32s(bin, (const float[]){0, 1}, 2);
	/* Two VEC4 shorts at a 12-byte stride: (0,0,0,32767), (0,0,32767,0). */
	put_le16(bin + 8 + 6, 32767);
	put_le16(bin + 20 + 4, 32767);
	/* Two VEC4 signed bytes: (0,0,0,127), (-128,0,0,0): -128 is -1. */
	bin[32 + 3] = 127;
	bin[36] = 0x80;
	const char *json =
		"{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"animations\":[{\"samplers\":["
		"{\"input\":0,\"output\":1},{\"input\":0,\"output\":2}],\"channels\":["
		"{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}},"
		"{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":"
		"\"SCALAR\"},{\"bufferView\":1,\"componentType\":5122,\"normalized\":true,\"count\":2,"
		"\"type\":\"VEC4\"},{\"bufferView\":2,\"componentType\":5120,\"normalized\":true,"
		"\"count\":2,\"type\":\"VEC4\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
		"{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24,\"byteStride\":12},"
		"{\"buffer\":0,\"byteOffset\":32,\"byteLength\":8}],\"buffers\":[{\"byteLength\":40}]}";
	size_t len;
	uint8_t *glb = glb_of(json, bin, 40, &len);
	struct gltf_asset a;
	read_ok(glb, len, &a);
	const struct gltf_animation *an = &a.animations[0];
	assert_true(an->samplers[0].output.v[3] == 1 && an->samplers[0].output.v[6] == 1);
	assert_true(an->samplers[1].output.v[3] == 1 && an->samplers[1].output.v[4] == -1);
	double q[4];
	gltf_channel_sample(an, &an->channels[0], 0.5, q);
	assert_true(fabs(q[2] - sqrt(0.5)) < 1e-6 && fabs(q[3] - sqrt(0.5)) < 1e-6);
	gltf_asset_free(&a);
	free(glb);
}

/* ---- the motion on a small rig -------------------------------------------- */

/* Bone 0 a root at (0, 10, 0), bone 1 its child at (5, 0, 0). */
static void small_rig(struct skeleton *s, uint32_t nbones)
{
	struct mh_diag d = {0};
	assert_int_equal(skeleton_init(s, SKELETON_MHFU, nbones, &d), MH_OK);
	s->bones[0].position[1] = 10;
	for (uint32_t b = 1; b < nbones; b++) {
		s->bones[b].parent = (int32_t)b - 1;
		s->bones[b].position[0] = 5;
	}
	skeleton_link(s, false);
}

#define FRAMES 21

/* Joint 01 turning: X by 20 degrees a frame to 400, Y by 10 a frame
 * (past 90 at frame 10), keyed at every frame (LINEAR), and joint 00
 * moving up Y by 1 unit a frame. */
static void motion_unwraps(void **state)
{
	(void)state;
	float times[FRAMES], rot[FRAMES * 4], tr[FRAMES * 3];
	for (int f = 0; f < FRAMES; f++) {
		times[f] = (float)(f / 30.0);
		double e[3] = {f * 20 * M_PI / 180, f * 10 * M_PI / 180, 0.3}, q[4];
		quat_euler(e, q);
		for (int i = 0; i < 4; i++)
			rot[f * 4 + i] = (float)q[i];
		tr[f * 3] = 0;
		tr[f * 3 + 1] = (float)(10 + f);
		tr[f * 3 + 2] = 0;
	}
	const float *v[] = {times, rot, tr};
	const uint32_t count[] = {FRAMES, FRAMES, FRAMES};
	const char *type[] = {"SCALAR", "VEC4", "VEC3"};
	const unsigned comps[] = {1, 4, 3};
	struct blobs b;
	blobs_make(&b, v, count, type, comps, 3);
	size_t len;
	uint8_t *glb = asset_of(
		"\"nodes\":[{\"name\":\"joint 00\",\"translation\":[0,10,0],\"children\":[1]},"
		"{\"name\":\"joint 01\",\"translation\":[5,0,0]},{\"name\":\"rig\",\"children\":[0]},"
		"{\"name\":\"joint 02\",\"translation\":[5,0,0]}],"
		"\"animations\":[{\"name\":\"turn\",\"samplers\":[{\"input\":0,\"output\":1},"
		"{\"input\":0,\"output\":2}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,"
		"\"path\":\"rotation\"}},{\"sampler\":1,\"target\":{\"node\":0,\"path\":"
		"\"translation\"}},{\"sampler\":1,\"target\":{\"node\":2,\"path\":\"translation\"}}]}]",
		&b, &len);
	struct gltf_asset a;
	read_ok(glb, len, &a);
	struct skeleton s;
	small_rig(&s, 2);
	struct mh_diag d = {0};
	struct gltf_motion m;
	/* joint 02 is no bone of a two-bone rig. */
	assert_int_equal(gltf_motion_read(&a, &s, NULL, &m, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "\"joint 02\": no such joint"));
	skeleton_free(&s);
	small_rig(&s, 3);
	/* joint 02 hangs under nothing, but bone 2's parent is bone 1. */
	assert_int_equal(gltf_motion_read(&a, &s, NULL, &m, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "node \"joint 02\" hangs under no node, but bone 2's parent "
				      "is bone 1"));
	skeleton_free(&s);
	small_rig(&s, 4);
	s.bones[2].parent = -1;
	s.bones[3].parent = -1;
	assert_int_equal(gltf_motion_read(&a, &s, NULL, &m, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "no node \"joint 03\""));
	skeleton_free(&s);
	small_rig(&s, 3);
	s.bones[2].parent = -1;
	if (gltf_motion_read(&a, &s, NULL, &m, &d) != MH_OK)
		fail_msg("gltf_motion_read: %s", d.msg);
	assert_string_equal(m.name, "turn");
	assert_int_equal(m.frames, FRAMES);
	assert_int_equal(m.skipped, 1); /* the channel on "rig" */
	assert_true(m.joints[0].animated && m.joints[1].animated && !m.joints[2].animated);
	assert_null(m.joints[2].rot[0]);
	const double raw = 8192 / 180.0; /* raw units a degree */
	for (int f = 0; f < FRAMES; f++) {
		/* Y past 90 degrees: X + 180, 180 - Y, Z + 180 would give the
		 * same rotation; the unwrapping keeps the path the keys took. */
		assert_true(fabs(m.joints[1].rot[0][f] - f * 20 * raw) < 1);
		assert_true(fabs(m.joints[1].rot[1][f] - f * 10 * raw) < 1);
		assert_true(fabs(m.joints[1].rot[2][f] - 0.3 * 8192 / M_PI) < 1);
		assert_true(fabs(m.joints[1].loc[0][f] - 80) < 1e-3);
		assert_true(fabs(m.joints[0].loc[1][f] - (10 + f) * 16.0) < 1e-3);
		assert_true(m.joints[0].rot[0][f] == 0);
	}
	/* Joint 00 leaves its bind Y; joint 01 stays at its bind offset. */
	assert_true(!m.joints[0].moves[0] && m.joints[0].moves[1] && !m.joints[0].moves[2]);
	assert_true(!m.joints[1].moves[0] && !m.joints[1].moves[1] && !m.joints[1].moves[2]);
	gltf_motion_free(&m);
	skeleton_free(&s);
	gltf_asset_free(&a);
	free(glb);
}

/* A file whose bone frames are turned (as Blender's importer may turn
 * bones): the rest rotations tell it, and the motion is the engine's. */
static void motion_turned_frames(void **state)
{
	(void)state;
	struct skeleton s;
	small_rig(&s, 2);
	s.bones[0].rotation[2] = 0.5f;
	/* The engine's: joint 01 at 30 degrees about X.  The file's frames:
	 * each bone turned by C_b, so rest R'_b = C_p^T R_b C_b and the
	 * pose's L'_b = C_p^T L_b C_b, T'_b = C_p^T T_b. */
	double e0[3] = {0, 0, 0.5}, e1[3] = {M_PI / 6, 0, 0}, e_c0[3] = {0.2, -0.4, 1.1},
	       e_c1[3] = {-0.7, 0.3, 0.2};
	double cm[2][9], r0[9], r1[9], t[9], rest0[9], rest1[9], pose1[9];
	pose_euler_matrix(e_c0, cm[0]);
	pose_euler_matrix(e_c1, cm[1]);
	pose_euler_matrix(e0, r0);
	pose_euler_matrix(e1, r1);
	/* rest0 = R_0 C_0 (a root's parent frame is the identity). */
	for (int col = 0; col < 3; col++)
		for (int i = 0; i < 3; i++) {
			double s0 = 0, s1 = 0;
			for (int k = 0; k < 3; k++) {
				s0 += r0[k * 3 + i] * cm[0][col * 3 + k];
				s1 += cm[0][i * 3 + k] * cm[1][col * 3 + k]; /* C_0^T C_1 */
			}
			rest0[col * 3 + i] = s0;
			t[col * 3 + i] = s1;
		}
	/* rest1 = C_0^T I C_1 (bind rotation 0); pose1 = C_0^T R1 C_1. */
	memcpy(rest1, t, sizeof t);
	double r1c1[9];
	for (int col = 0; col < 3; col++)
		for (int i = 0; i < 3; i++) {
			double sum = 0;
			for (int k = 0; k < 3; k++)
				sum += r1[k * 3 + i] * cm[1][col * 3 + k];
			r1c1[col * 3 + i] = sum;
		}
	for (int col = 0; col < 3; col++)
		for (int i = 0; i < 3; i++) {
			double sum = 0;
			for (int k = 0; k < 3; k++)
				sum += cm[0][i * 3 + k] * r1c1[col * 3 + k];
			pose1[col * 3 + i] = sum;
		}
	/* Matrices to quaternions through the reader's own decomposition:
	 * nodes given as matrices. */
	char body[2048];
	double tr1[3] = {0};
	for (int i = 0; i < 3; i++) /* C_0^T (5, 0, 0) */
		tr1[i] = cm[0][i * 3] * 5;
	int at = snprintf(body, sizeof body, "\"nodes\":[{\"name\":\"joint 00\",\"children\":[1],"
				     "\"matrix\":[");
	for (int col = 0; col < 4; col++)
		for (int i = 0; i < 4; i++)
			at += snprintf(body + at, sizeof body - (size_t)at, "%s%.17g",
				       col || i ? "," : "",
				       col < 3 ? (i < 3 ? rest0[col * 3 + i] : 0)
					       : i == 1 ? 10 : i == 3 ? 1 : 0);
	at += snprintf(body + at, sizeof body - (size_t)at,
		       "]},{\"name\":\"joint 01\",\"matrix\":[");
	for (int col = 0; col < 4; col++)
		for (int i = 0; i < 4; i++)
			at += snprintf(body + at, sizeof body - (size_t)at, "%s%.17g",
				       col || i ? "," : "",
				       col < 3 ? (i < 3 ? rest1[col * 3 + i] : 0)
					       : i < 3 ? tr1[i] : 1);
	at += snprintf(body + at, sizeof body - (size_t)at,
		       "]}],\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
		       "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
		       "\"rotation\"}}]}]");
	/* pose1 as a quaternion: the reader's matrix decomposition, through a
	 * throwaway node. */
	char probe[1024];
	int pl = snprintf(probe, sizeof probe,
			  "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"matrix\":[");
	for (int col = 0; col < 4; col++)
		for (int i = 0; i < 4; i++)
			pl += snprintf(probe + pl, sizeof probe - (size_t)pl, "%s%.17g",
				       col || i ? "," : "",
				       col < 3 ? (i < 3 ? pose1[col * 3 + i] : 0) : i == 3);
	snprintf(probe + pl, sizeof probe - (size_t)pl, "]}]}");
	struct gltf_asset pa;
	read_ok((const uint8_t *)probe, strlen(probe), &pa);
	float times[] = {0, 1}, rot[8];
	for (int f = 0; f < 2; f++)
		for (int i = 0; i < 4; i++)
			rot[f * 4 + i] = (float)pa.nodes[0].rotation[i];
	gltf_asset_free(&pa);
	const float *v[] = {times, rot};
	const uint32_t count[] = {2, 2};
	const char *type[] = {"SCALAR", "VEC4"};
	const unsigned comps[] = {1, 4};
	struct blobs b;
	blobs_make(&b, v, count, type, comps, 2);
	size_t len;
	uint8_t *glb = asset_of(body, &b, &len);
	struct gltf_asset a;
	read_ok(glb, len, &a);
	assert_true(a.nodes[0].has_matrix);
	struct gltf_motion m;
	struct mh_diag d = {0};
	if (gltf_motion_read(&a, &s, NULL, &m, &d) != MH_OK)
		fail_msg("gltf_motion_read: %s", d.msg);
	assert_int_equal(m.frames, 31);
	for (uint32_t f = 0; f < m.frames; f++) {
		assert_true(fabs(m.joints[1].rot[0][f] - 4096 / 3.0) < 0.5);
		assert_true(fabs(m.joints[1].rot[1][f]) < 0.5 && fabs(m.joints[1].rot[2][f]) < 0.5);
		assert_true(fabs(m.joints[1].loc[0][f] - 80) < 1e-3);
	}
	assert_true(!m.joints[1].moves[0] && !m.joints[1].moves[1]);
	gltf_motion_free(&m);
	gltf_asset_free(&a);
	skeleton_free(&s);
	free(glb);
}

/* ---- refusals -------------------------------------------------------------- */

static void refusals(void **state)
{
	(void)state;
	const float times[] = {0, 1};
	const float tr[] = {0, 0, 0, 1, 1, 1};
	const float *v[] = {times, tr};
	const uint32_t count[] = {2, 2};
	const char *type[] = {"SCALAR", "VEC3"};
	const unsigned comps[] = {1, 3};
	struct blobs b;
	blobs_make(&b, v, count, type, comps, 2);
	size_t len;
	const char *anim = "{\"name\":\"%s\",\"samplers\":[{\"input\":0,\"output\":1}],"
			   "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
			   "\"translation\"}}]}";
	char one[512], body[1200];
	snprintf(one, sizeof one, anim, "a");
	snprintf(body, sizeof body, "\"nodes\":[{\"name\":\"joint 00\"}],\"animations\":[%s,", one);
	snprintf(one, sizeof one, anim, "b");
	strcat(body, one);
	strcat(body, "]");
	uint8_t *glb = asset_of(body, &b, &len);
	struct gltf_asset a;
	read_ok(glb, len, &a);
	struct skeleton s;
	small_rig(&s, 1);
	struct gltf_motion m;
	struct mh_diag d = {0};
	assert_int_equal(gltf_motion_read(&a, &s, NULL, &m, &d), MH_ECORRUPT);
	assert_string_equal(d.msg, "the file has 2 animations (\"a\", \"b\"): export one");
	a.nanimations = 0;
	assert_int_equal(gltf_motion_read(&a, &s, NULL, &m, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "no animation"));
	a.nanimations = 2;
	gltf_asset_free(&a);
	skeleton_free(&s);

	/* A GLB cut short; its first chunk not JSON. */
	read_refused(glb, len - 4, MH_ETRUNC, "the header says");
	uint8_t *bad = malloc(len);
	memcpy(bad, glb, len);
	put_le32(bad + 16, GLTF_CHUNK_BIN);
	d = read_refused(bad, len, MH_ECORRUPT, "the first chunk is of type 0x004e4942, not JSON");
	assert_int_equal(d.offset, 16);
	memcpy(bad, glb, len);
	put_le32(bad + 12, 0x10000);
	d = read_refused(bad, len, MH_ETRUNC, "chunk 0 says 65536 bytes");
	assert_int_equal(d.offset, 12);
	free(bad);
	free(glb);

	/* The output accessor reading past its view. */
	char json[2048];
	snprintf(json, sizeof json,
		 "{\"asset\":{\"version\":\"2.0\"},\n\"nodes\":[{}],\"animations\":[{\"samplers\":"
		 "[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
		 "\"path\":\"translation\"}}]}],\"accessors\":[{\"bufferView\":0,\"componentType\":"
		 "5126,\"count\":2,\"type\":\"SCALAR\"},{\"bufferView\":1,\"componentType\":5126,"
		 "\"count\":3,\"type\":\"VEC3\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
		 "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],\"buffers\":[{\"byteLength\":"
		 "32}]}");
	glb = glb_of(json, b.bin, 32, &len);
	d = read_refused(glb, len, MH_ECORRUPT,
			 "animations[0].samplers[0].output: accessor 1 reads past bufferView 1 "
			 "(36 bytes needed, 24 there)");
	assert_int_equal(d.line, 2);
	assert_true(d.col > 1);
	assert_true(d.offset > 20);
	free(glb);

	/* A buffer in a file beside the asset. */
	const char *ext = "{\"asset\":{\"version\":\"2.0\"},\n\"buffers\":[{\"byteLength\":4,\n"
			  "  \"uri\":\"model.bin\"}]}";
	d = read_refused((const uint8_t *)ext, strlen(ext), MH_ECORRUPT,
			 "buffers[0].uri: \"model.bin\" is a file beside the asset");
	assert_int_equal(d.line, 3);
	assert_int_equal(d.col, 9);

	/* Text that is no JSON, JSON that is no glTF 2.0, a sparse accessor. */
	read_refused((const uint8_t *)"{\"asset\":", 9, MH_ESYNTAX, "JSON: expected a value");
	read_refused((const uint8_t *)"PK\3\4", 4, MH_EUNKNOWN, "neither a GLB");
	const char *v1 = "{\"asset\":{\"version\":\"1.0\"}}";
	read_refused((const uint8_t *)v1, strlen(v1), MH_ECORRUPT, "only glTF 2.0 is read");
	const char *sparse = "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{"
			     "\"attributes\":{\"POSITION\":0}}]}],\"accessors\":[{\"componentType\":"
			     "5126,\"count\":1,\"type\":\"VEC3\",\"sparse\":{}}]}";
	read_refused((const uint8_t *)sparse, strlen(sparse), MH_ECORRUPT,
		     "meshes[0].primitives[0].attributes.POSITION: accessor 0 is sparse");
	const char *loop = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},"
			   "{\"children\":[0]}]}";
	read_refused((const uint8_t *)loop, strlen(loop), MH_ECORRUPT, "nodes[0]: its parents loop "
		     "back to it");
}

/* ---- the sample's Tigrex ------------------------------------------------ */

struct tigrex {
	struct skeleton s;
	struct anim a;
	struct pmo p;
	uint8_t *glb;
	size_t len;
};

static void tigrex_open(struct tigrex *t)
{
	const char *dir = getenv("MHFU_SAMPLE");
	if (!dir || !*dir)
		fail_msg("MHFU_SAMPLE is not set: point it at a directory made by "
			 "`build/mkarchive --seed 1 --out DIR/DATA.BIN --extract DIR/src` "
			 "(`make units` does)");
	static const char *members[] = {"0.skeleton", "3.anim", "1.pmo"};
	struct file_bytes f[3];
	for (int i = 0; i < 3; i++) {
		char path[4200], why[4400];
		snprintf(path, sizeof path, "%s/src/file_06185/%s", dir, members[i]);
		if (!read_whole_file(path, &f[i], why, sizeof why))
			fail_msg("%s", why);
	}
	struct mh_diag d = {0};
	assert_int_equal(skeleton_decode(f[0].p, f[0].len, &t->s, &d), MH_OK);
	assert_int_equal(anim_decode(f[1].p, f[1].len, CLIP_NONE, &t->a, &d), MH_OK);
	assert_int_equal(pmo_decode(f[2].p, f[2].len, NULL, 0, &t->p, &d), MH_OK);
	struct gltf_body body = {.pmo = &t->p};
	if (gltf_model_with(&t->s, &t->a, NULL, &body, 1, &t->glb, &t->len, &d) != MH_OK)
		fail_msg("gltf_model_with: %s", d.msg);
	for (int i = 0; i < 3; i++)
		free(f[i].p);
}

static void tigrex_close(struct tigrex *t)
{
	skeleton_free(&t->s);
	anim_free(&t->a);
	pmo_free(&t->p);
	free(t->glb);
}

/* The pack with entry e's part clips alone (copies), as a glTF of one
 * animation: what Blender exports of one action. */
static uint8_t *entry_glb(const struct tigrex *t, uint32_t e, size_t *len)
{
	struct anim one;
	uint32_t slots[ANIM_SNIFF_MAX_STREAMS];
	struct mh_diag d = {0};
	for (uint32_t s = 0; s < t->a.nstreams; s++)
		slots[s] = t->a.streams[s].nslots;
	assert_int_equal(anim_init(&one, t->a.format, t->a.nstreams, slots, &d), MH_OK);
	for (uint32_t k = 0; k < entries_parts(&t->a); k++) {
		uint32_t stream, slot;
		int32_t ci = entries_part_clip(&t->a, e, k, &stream, &slot);
		struct clip c;
		if (ci == ANIM_EMPTY)
			continue;
		assert_int_equal(clip_copy(&c, &t->a.clips[ci], &d), MH_OK);
		int32_t at = anim_add_clip(&one, &c);
		assert_true(at >= 0);
		assert_int_equal(anim_set_slot(&one, stream, slot, at, &d), MH_OK);
	}
	assert_int_equal(anim_compact(&one, &d), MH_OK);
	uint8_t *glb;
	assert_int_equal(gltf_model_with(&t->s, &one, NULL, NULL, 0, &glb, len, &d), MH_OK);
	anim_free(&one);
	return glb;
}

/* The largest angle between two poses' rotations, degrees. */
static double turned_between(const struct curve_pose *a, const struct curve_pose *b)
{
	double ma[9], mb[9], tr = 0;
	pose_euler_matrix(a->rot, ma);
	pose_euler_matrix(b->rot, mb);
	for (int i = 0; i < 9; i++)
		tr += ma[i] * mb[i];
	double c = (tr - 1) / 2;
	return acos(c > 1 ? 1 : c < -1 ? -1 : c) * 180 / M_PI;
}

/* An entry's glTF read back and fitted (entries_from_gltf) gives its
 * clips again: every frame within the fitter's tolerances (the rotations
 * compared as rotations: near Y = 90 degrees Euler X and Z are loose),
 * each part its length and loop; a file of every entry is refused. */
static void entry_from_its_gltf(void **state)
{
	(void)state;
	struct tigrex t;
	struct entries_edit e;
	struct mh_diag d = {0};
	tigrex_open(&t);
	assert_int_equal(entries_from_gltf(&t.a, 1, -1, &t.s, t.glb, t.len, NULL, &e, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "animations"));
	size_t len;
	uint8_t *glb = entry_glb(&t, 1, &len);
	assert_int_equal(entries_from_gltf(&t.a, 1, -1, &t.s, glb, len, NULL, &e, &d), MH_OK);
	uint32_t parts = entries_parts(&t.a);
	assert_int_equal(e.nparts, parts);
	double worst_turn = 0, worst_loc = 0;
	for (uint32_t k = 0; k < parts; k++) {
		uint32_t stream, slot;
		int32_t ci = entries_part_clip(&t.a, 1, k, &stream, &slot);
		if (ci == ANIM_EMPTY) {
			assert_true(e.parts[k].keeps);
			continue;
		}
		const struct clip *was = &t.a.clips[ci], *now = &e.parts[k].clip;
		assert_false(e.parts[k].keeps);
		assert_int_equal(now->ntracks, was->ntracks);
		assert_int_equal(now->loop, was->loop);
		assert_int_equal(entries_clip_frames(now), entries_clip_frames(was));
		struct curve_pose pw[64], pn[64];
		assert_true(was->ntracks <= 64);
		for (int32_t f = 0; f <= entries_clip_frames(was); f++) {
			curve_pose_at(was, f, pw);
			curve_pose_at(now, f, pn);
			for (uint32_t tr = 0; tr < was->ntracks; tr++) {
				double turn = turned_between(&pw[tr], &pn[tr]);
				worst_turn = turn > worst_turn ? turn : worst_turn;
				for (int a = 0; a < 3; a++) {
					uint32_t bit = CLIP_LOC_X << a;
					if (!(pw[tr].driven & bit) || !(pn[tr].driven & bit))
						continue;
					double off = fabs(pw[tr].loc[a] - pn[tr].loc[a]) * 16;
					worst_loc = off > worst_loc ? off : worst_loc;
				}
			}
		}
	}
	print_message("entry 001 back: worst turn %.3f degrees, worst location %.3f raw\n",
		      worst_turn, worst_loc);
	assert_true(worst_turn < 0.25);
	assert_true(worst_loc <= FIT_TOL_LOCATION + 0.1);
	entries_edit_free(&e);
	free(glb);
	tigrex_close(&t);
}

/* The Tigrex's body with group 12's vertex 40 moved 5 along X (*other,
 * the caller's), as model.glb would show it (*glb: with `pack`'s
 * animations, or none). */
static void moved_body(const struct tigrex *t, const struct anim *pack, struct pmo *other,
		       uint8_t **glb, size_t *len)
{
	struct mh_diag d = {0};
	assert_int_equal(pmo_decode(t->p.raw, t->p.raw_len, NULL, 0, other, &d), MH_OK);
	struct pmo_vertex nv = other->groups[12].vertices[40];
	nv.pos[0] += 5;
	assert_int_equal(pmo_vertex_set(other, 12, 40, &nv, &d), MH_OK);
	struct gltf_body body = {.pmo = other};
	assert_int_equal(gltf_model_with(&t->s, pack, NULL, &body, 1, glb, len, &d), MH_OK);
}

/* A body read back (pmo_apply_gltf): the Tigrex's own model.glb moves
 * nothing; one made from its PMO with a vertex moved moves that vertex
 * alone, to where it is there. */
static void body_from_its_gltf(void **state)
{
	(void)state;
	struct tigrex t;
	struct mh_diag d = {0};
	uint32_t moved;
	tigrex_open(&t);
	assert_int_equal(pmo_apply_gltf(&t.p, t.glb, t.len, &moved, &d), MH_OK);
	assert_int_equal(moved, 0);
	struct pmo other;
	uint8_t *glb;
	size_t len;
	moved_body(&t, NULL, &other, &glb, &len);
	assert_int_equal(pmo_apply_gltf(&t.p, glb, len, &moved, &d), MH_OK);
	assert_int_equal(moved, 1);
	assert_true(t.p.groups[12].vertices[40].pos[0] == other.groups[12].vertices[40].pos[0]);
	assert_memory_equal(t.p.raw, other.raw, other.raw_len);
	free(glb);
	pmo_free(&other);
	/* Not a body: refused, saying so. */
	static const char junk[] = "{\"asset\":{\"version\":\"2.0\"}}";
	assert_int_equal(pmo_apply_gltf(&t.p, (const uint8_t *)junk, sizeof junk - 1, &moved, &d),
			 MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "body"));
	tigrex_close(&t);
}

/* A model PAC's bodies from its model.glb (pmo_pac_apply_gltf): the
 * Tigrex's PAC given its own model.glb with one vertex moved changes in
 * that vertex's bytes alone, the same as its PMO alone would; given
 * model.glb unchanged, not at all; a PAC without the body's PMO, or an
 * asset without a body, is refused. */
static void pac_bodies_from_gltf(void **state)
{
	(void)state;
	struct tigrex t;
	struct mh_diag d = {0};
	uint32_t moved;
	tigrex_open(&t);
	char path[4200], why[4400];
	snprintf(path, sizeof path, "%s/src/file_06185.pac", getenv("MHFU_SAMPLE"));
	struct file_bytes pac = {0};
	if (!read_whole_file(path, &pac, why, sizeof why))
		fail_msg("%s", why);
	uint8_t *out;
	size_t out_len;
	assert_int_equal(pmo_pac_apply_gltf(pac.p, pac.len, t.glb, t.len, &out, &out_len, &moved,
					    &d), MH_OK);
	assert_int_equal(moved, 0);
	assert_int_equal(out_len, pac.len);
	assert_memory_equal(out, pac.p, pac.len);
	free(out);
	struct pmo other;
	uint8_t *glb;
	size_t len;
	moved_body(&t, &t.a, &other, &glb, &len);
	assert_int_equal(pmo_pac_apply_gltf(pac.p, pac.len, glb, len, &out, &out_len, &moved, &d),
			 MH_OK);
	assert_int_equal(moved, 1);
	/* the PMO member's bytes are the moved PMO's, nothing else changed */
	const uint8_t *at = memmem(pac.p, pac.len, t.p.raw, t.p.raw_len);
	assert_non_null(at);
	size_t off = (size_t)(at - pac.p);
	assert_memory_equal(out + off, other.raw, other.raw_len);
	assert_memory_equal(out, pac.p, off);
	assert_memory_equal(out + off + other.raw_len, pac.p + off + other.raw_len,
			    pac.len - off - other.raw_len);
	free(out);
	/* no body: refused, saying so */
	static const char junk[] = "{\"asset\":{\"version\":\"2.0\"}}";
	assert_int_equal(pmo_pac_apply_gltf(pac.p, pac.len, (const uint8_t *)junk, sizeof junk - 1,
					    &out, &out_len, &moved, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "body"));
	assert_null(out);
	/* not a PAC: refused */
	assert_int_not_equal(pmo_pac_apply_gltf(t.p.raw, t.p.raw_len, glb, len, &out, &out_len,
						&moved, &d), MH_OK);
	free(glb);
	pmo_free(&other);
	free(pac.p);
	tigrex_close(&t);
}

/* q's matrix (x y z w, not normalized: as a file's floats give it),
 * column-major. */
static void matrix_of(const double q[4], double m[9])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
			     2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
			     2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
	memcpy(m, r, sizeof r);
}

/* A double in [0, 1). */
static double unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* The angle between rotations a and b, in radians. */
static double rotation_between(const double a[9], const double b[9])
{
	double tr = 0;
	for (int i = 0; i < 9; i++)
		tr += a[i] * b[i];
	return acos(fmin(1, fmax(-1, (tr - 1) / 2)));
}

/* Leaning X toward a hint: a rotation whose elements carry a 16-bit
 * quaternion's rounding, read back, takes the hint's X where that is
 * within GLTF_MOTION_ROT_NOISE / cos Y of what the elements say, and
 * moves by that much at most otherwise; either way the rotation is off
 * the file's by at most sqrt 2 GLTF_MOTION_ROT_NOISE more than before,
 * at any Y. */
static void lean_toward_hint(void **state)
{
	(void)state;
	struct rng rng;
	rng_init(&rng, 7, 0);
	for (int k = 0; k < 2000; k++) {
		double e[3] = {unit(&rng) * 6 - 3, (unit(&rng) * 2 - 1) * (M_PI / 2),
			       unit(&rng) * 6 - 3}, q[4], m[9], got[3], before[9], after[9];
		if (k % 2)
			e[1] = (k % 4 == 1 ? 1 : -1) * (M_PI / 2 - unit(&rng) * 0.05);
		/* rounded as model.glb stores it: a quaternion of shorts */
		quat_euler(e, q);
		double n = 0;
		for (int i = 0; i < 4; i++) {
			q[i] = round(q[i] * 32767) / 32767;
			n += q[i] * q[i];
		}
		for (int i = 0; i < 4; i++)
			q[i] /= sqrt(n);
		matrix_of(q, m);
		gltf_motion_euler(m, e, e, got);
		pose_euler_matrix(got, before);
		double x = got[0], cy = hypot(m[0], m[1]), band = GLTF_MOTION_ROT_NOISE / cy;
		double hint = k % 3 ? e[0] : e[0] + 0.5; /* the truth, or far from it */
		gltf_motion_lean(m, hint, got);
		pose_euler_matrix(got, after);
		/* against the rotation the file holds: what Z's own reading
		 * (of size-1 elements) and X's lean add */
		assert_true(rotation_between(m, after) <=
			    rotation_between(m, before) + sqrt(2) * GLTF_MOTION_ROT_NOISE + 1e-6);
		double moved = fabs(got[0] - x);
		assert_true(moved <= band * 1.000001);
		double off = remainder(hint - x, 2 * M_PI);
		if (fabs(off) <= band)
			assert_true(fabs(remainder(got[0] - hint, 2 * M_PI)) < 1e-9);
		else
			assert_true(fabs(moved - band) < 1e-9 * (1 + band));
	}
}

/* Near Y = 90 degrees X and Z each rest on matrix elements as small as
 * cos Y: turned through a bone frame whose quaternion a file stores in
 * floats (Blender's 0.5000000596...), the rotation must come back as
 * itself, Z being taken from their well-conditioned difference. */
static void euler_near_gimbal(void **state)
{
	(void)state;
	const double c[4] = {0.5, 0.5, 0.5000000596046448, 0.5};
	double cm[9], worst = 0;
	matrix_of(c, cm);
	for (int k = 1; k <= 200; k++) {
		double e[3] = {-1.2 + 0.01 * k, M_PI / 2 - 1e-7 * k, 0.15 - 0.003 * k}, r[9], t[9],
		       m[9] = {0}, back[9], got[3], tr = 0;
		pose_euler_matrix(e, r);
		/* m = C^T (C R C^T) C: what a turned frame gives back */
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				t[j * 3 + i] = 0;
				for (int l = 0; l < 3; l++)
					t[j * 3 + i] += cm[l * 3 + i] * r[j * 3 + l];
			}
		double u[9];
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				u[j * 3 + i] = 0;
				for (int l = 0; l < 3; l++)
					u[j * 3 + i] += t[l * 3 + i] * cm[l * 3 + j];
			}
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				for (int l = 0; l < 3; l++)
					for (int n = 0; n < 3; n++)
						m[j * 3 + i] += cm[i * 3 + l] * u[n * 3 + l] * cm[j * 3 + n];
		gltf_motion_euler(m, e, e, got);
		pose_euler_matrix(got, back);
		for (int i = 0; i < 9; i++)
			tr += r[i] * back[i];
		double turn = acos(fmin(1, fmax(-1, (tr - 1) / 2))) * 180 / M_PI;
		worst = turn > worst ? turn : worst;
	}
	print_message("near the gimbal: at worst %.4f degrees off\n", worst);
	assert_true(worst < 0.01);
}

static void tigrex_asset(void **state)
{
	(void)state;
	struct tigrex t;
	tigrex_open(&t);
	struct gltf_asset a;
	read_ok(t.glb, t.len, &a);
	uint32_t n = t.s.nbones;
	assert_int_equal(n, 48);
	assert_int_equal(a.nnodes, n + 2);
	for (uint32_t b = 0; b < n; b++) {
		char name[24];
		snprintf(name, sizeof name, "joint %02u", b);
		assert_string_equal(a.nodes[b].name, name);
		for (int i = 0; i < 3; i++)
			assert_true(a.nodes[b].translation[i] == t.s.bones[b].position[i]);
		int32_t p = t.s.bones[b].parent;
		assert_int_equal(a.nodes[b].parent, p >= 0 && (uint32_t)p < n ? p : (int32_t)n);
	}
	assert_int_equal(gltf_node_named(&a, "rig"), n);
	assert_int_equal(a.scene, 0);
	assert_int_equal(a.nscene_nodes, 2);
	assert_int_equal(a.scene_nodes[0], n);
	assert_int_equal(a.nskins, 1);
	assert_int_equal(a.skins[0].njoints, n);
	assert_int_equal(a.skins[0].inverse_binds.count, n);
	uint32_t listed = 0;
	for (uint32_t e = 0; e < ENTRIES_MAX; e++)
		listed += entries_listed(&t.a, e);
	assert_int_equal(a.nanimations, listed);
	assert_string_equal(a.animations[0].name, "entry 000");
	/* The body: a primitive per group that draws, in group order, its
	 * vertices the group's. */
	int32_t body = gltf_node_named(&a, "body");
	assert_true(body > (int32_t)n);
	const struct gltf_mesh *mesh = &a.meshes[a.nodes[body].mesh];
	assert_true(mesh->nprimitives > 0 && mesh->nprimitives <= t.p.group_count);
	int64_t last = -1;
	for (uint32_t k = 0; k < mesh->nprimitives; k++) {
		const struct gltf_primitive *pr = &mesh->primitives[k];
		int64_t g;
		assert_true(gltf_extra_int(pr->extras, pr->nextras, "pmo_group", &g));
		assert_true(g > last && g < t.p.group_count);
		last = g;
		assert_int_equal(pr->mode, 4);
		assert_int_equal(pr->nvertices, t.p.groups[g].vertex_count);
		assert_int_equal(pr->nindices % 3, 0);
		assert_int_equal(pr->normal.count, pr->nvertices);
	}
	gltf_asset_free(&a);
	tigrex_close(&t);
}

/* The engine's value of joint b's rotation (raw) and location (raw) at
 * frame f of entry `entry`: track or bind, as gltf.c plays it. */
static const struct clip_track *entry_track(const struct anim *an, const struct skeleton *s,
					    uint32_t entry, uint32_t b)
{
	uint32_t animated = s->params[1] && s->params[1] <= s->nbones ? s->params[1] : s->nbones;
	uint32_t *parts = malloc(animated * sizeof *parts);
	for (uint32_t j = 0; j < animated; j++)
		parts[j] = s->bones[j].part;
	const struct clip_track *found = NULL;
	for (uint32_t k = 0, np = entries_parts(an); k < np; k++) {
		uint32_t stream, slot, first, count;
		int32_t clip = entries_part_clip(an, entry, k, &stream, &slot);
		if (clip == ANIM_EMPTY || !anim_part_joints(parts, animated, k, &first, &count))
			continue;
		const struct clip *c = &an->clips[clip];
		if (b >= first && b - first < count && b - first < c->ntracks)
			found = &c->tracks[b - first];
	}
	free(parts);
	return found;
}

/* The angles of entry 001 as the Tigrex's pack has them: the guide a
 * caller replacing it gives (gltf_motion_guide). */
static bool entry001_angle(const void *ctx, uint32_t b, unsigned ax, uint32_t f, double *raw)
{
	static const uint32_t bits[3] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
	const struct tigrex *t = ctx;
	const struct clip_track *tr = entry_track(&t->a, &t->s, 1, b);
	if (!tr)
		return false;
	const struct clip_channel *rot = pose_channel(tr, bits[ax]);
	*raw = rot ? curve_sample(rot, f) : 0;
	return true;
}

/* Entry 001 read back: every driven joint's values at every frame are
 * the engine's within a raw unit (the shorts' precision); the others
 * are not animated. */
static void tigrex_motion(void **state)
{
	(void)state;
	struct tigrex t;
	tigrex_open(&t);
	struct gltf_asset a;
	read_ok(t.glb, t.len, &a);
	int32_t k = -1;
	for (uint32_t i = 0; i < a.nanimations; i++)
		if (!strcmp(a.animations[i].name, "entry 001"))
			k = (int32_t)i;
	assert_true(k >= 0);
	struct gltf_asset one = a;
	one.animations = &a.animations[k];
	one.nanimations = 1;
	static const uint32_t rot_bits[3] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
	static const uint32_t loc_bits[3] = {CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z};
	/* Read near the clips themselves, as a caller replacing them does:
	 * then the angles are the clips' own, near Y = +-90 degrees too. */
	struct gltf_motion_guide guide = {entry001_angle, &t};
	struct gltf_motion m;
	struct mh_diag d = {0};
	if (gltf_motion_read(&one, &t.s, &guide, &m, &d) != MH_OK)
		fail_msg("gltf_motion_read: %s", d.msg);
	uint32_t driven = 0, frames = 1, near_gimbal = 0;
	double worst_rot = 0, worst_loc = 0;
	for (uint32_t b = 0; b < t.s.nbones; b++) {
		const struct clip_track *tr = entry_track(&t.a, &t.s, 1, b);
		assert_int_equal(m.joints[b].animated, tr != NULL);
		if (!tr)
			continue;
		driven++;
		for (int ax = 0; ax < 3; ax++) {
			const struct clip_channel *rot = pose_channel(tr, rot_bits[ax]);
			const struct clip_channel *loc = pose_channel(tr, loc_bits[ax]);
			if (m.joints[b].moves[ax])
				assert_non_null(loc);
			for (uint32_t f = 0; f < m.frames; f++) {
				double want = rot ? curve_sample(rot, f) : 0;
				double diff = m.joints[b].rot[ax][f] - want;
				/* The file holds rotations: angles only modulo a turn. */
				diff -= RAW_TURN * round(diff / RAW_TURN);
				/* Near Y = +-90 degrees X and Z turn about nearly one
				 * axis: a short's step of the quaternion moves them
				 * apart by about 2 / 32767 / cos Y radians, over a raw
				 * unit when cos Y < 0.2; read near the clip, X leans
				 * back onto the clip's own (gltf_motion_lean), and Z
				 * with it. */
				const struct clip_channel *rot_y = pose_channel(tr, CLIP_ROT_Y);
				double cos_y = cos(curve_radians(rot_y ? curve_sample(rot_y, f) : 0));
				worst_rot = fmax(worst_rot, fabs(diff));
				near_gimbal += ax == 0 && fabs(cos_y) < 0.2;
				double lw = loc ? curve_sample(loc, f)
						: t.s.bones[b].position[ax] * 16.0;
				worst_loc = fmax(worst_loc, fabs(m.joints[b].loc[ax][f] - lw));
				if (f)
					assert_true(fabs(m.joints[b].rot[ax][f] -
							 m.joints[b].rot[ax][f - 1]) <= RAW_TURN / 2);
			}
		}
	}
	for (uint32_t p = 0, np = entries_parts(&t.a); p < np; p++) {
		uint32_t stream, slot;
		int32_t clip = entries_part_clip(&t.a, 1, p, &stream, &slot);
		if (clip != ANIM_EMPTY && entries_clip_frames(&t.a.clips[clip]) + 1 > (int32_t)frames)
			frames = (uint32_t)entries_clip_frames(&t.a.clips[clip]) + 1;
	}
	assert_int_equal(m.frames, frames);
	assert_true(driven > 0);
	/* the sample's entry 001 passes near the gimbal: the case is tried */
	assert_true(near_gimbal > 0);
	if (worst_rot > 1 || worst_loc > 1)
		fail_msg("entry 001: worst rotation %g raw, location %g raw", worst_rot, worst_loc);
	gltf_motion_free(&m);

	/* Started near 0 instead: the same rotations, a joint past 90
	 * degrees about Y at frame 0 (the Tigrex's root) on the other angle
	 * triple. */
	assert_int_equal(gltf_motion_read(&one, &t.s, NULL, &m, &d), MH_OK);
	double worst = 0;
	for (uint32_t b = 0; b < t.s.nbones; b++) {
		const struct clip_track *tr = entry_track(&t.a, &t.s, 1, b);
		for (uint32_t f = 0; tr && f < m.frames; f++) {
			double got[3], want[3], mg[9], mw[9];
			for (int ax = 0; ax < 3; ax++) {
				const struct clip_channel *rot = pose_channel(tr, rot_bits[ax]);
				want[ax] = curve_radians(rot ? curve_sample(rot, f) : 0);
				got[ax] = curve_radians(m.joints[b].rot[ax][f]);
			}
			pose_euler_matrix(got, mg);
			pose_euler_matrix(want, mw);
			for (int i = 0; i < 9; i++)
				worst = fmax(worst, fabs(mg[i] - mw[i]));
		}
	}
	assert_true(worst < 1e-3);
	gltf_motion_free(&m);

	/* The same file as .gltf, its buffer a base64 data: URI, reads the
	 * same. */
	uint32_t jlen = le32(t.glb + 12), blen = le32(t.glb + 20 + jlen);
	const uint8_t *bin = t.glb + 28 + jlen;
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *uri = "\"uri\":\"data:application/octet-stream;base64,";
	size_t b64 = (blen + 2) / 3 * 4, cap = jlen + strlen(uri) + b64 + 8;
	char *text = malloc(cap), *o = text;
	const char *json = (const char *)t.glb + 20;
	const char *buffers = strstr(json, "\"buffers\":[{");
	assert_non_null(buffers);
	size_t head = (size_t)(buffers - json) + strlen("\"buffers\":[{");
	memcpy(o, json, head);
	o += head;
	o += sprintf(o, "%s", uri);
	for (uint32_t i = 0; i < blen; i += 3) {
		uint32_t v = (uint32_t)bin[i] << 16 | (i + 1 < blen ? bin[i + 1] << 8 : 0) |
			     (i + 2 < blen ? bin[i + 2] : 0);
		*o++ = digits[v >> 18];
		*o++ = digits[v >> 12 & 63];
		*o++ = i + 1 < blen ? digits[v >> 6 & 63] : '=';
		*o++ = i + 2 < blen ? digits[v & 63] : '=';
	}
	*o++ = '"';
	*o++ = ',';
	memcpy(o, json + head, jlen - head);
	o += jlen - head;
	struct gltf_asset g2;
	read_ok((const uint8_t *)text, (size_t)(o - text), &g2);
	assert_int_equal(g2.nnodes, a.nnodes);
	assert_int_equal(g2.nanimations, a.nanimations);
	struct gltf_asset one2 = g2;
	one2.animations = &g2.animations[k];
	one2.nanimations = 1;
	struct gltf_motion m1, m2;
	assert_int_equal(gltf_motion_read(&one, &t.s, NULL, &m1, &d), MH_OK);
	assert_int_equal(gltf_motion_read(&one2, &t.s, NULL, &m2, &d), MH_OK);
	assert_int_equal(m1.frames, m2.frames);
	for (uint32_t b = 0; b < t.s.nbones; b++)
		if (m1.joints[b].animated)
			assert_memory_equal(m1.joints[b].rot[0], m2.joints[b].rot[0],
					    (size_t)m1.frames * 6 * sizeof(float));
	gltf_motion_free(&m1);
	gltf_motion_free(&m2);
	gltf_asset_free(&g2);
	free(text);
	gltf_asset_free(&a);
	tigrex_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_modes),
		cmocka_unit_test(sample_cubic),
		cmocka_unit_test(normalized_outputs),
		cmocka_unit_test(motion_unwraps),
		cmocka_unit_test(motion_turned_frames),
		cmocka_unit_test(refusals),
		cmocka_unit_test(tigrex_asset),
		cmocka_unit_test(entry_from_its_gltf),
		cmocka_unit_test(body_from_its_gltf),
		cmocka_unit_test(pac_bodies_from_gltf),
		cmocka_unit_test(euler_near_gimbal),
		cmocka_unit_test(lean_toward_hint),
		cmocka_unit_test(tigrex_motion),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
