/* SPDX-License-Identifier: MIT */
/* model.glb (gltf.h): the BIN chunk and its accessors, the rig, the
 * motions, the JSON and the file; the bodies and the stand-in mesh are
 * gltf_mesh.c's.
 *
 * The file is made in one pass: every array of numbers is appended to the
 * BIN chunk (each at a 4-byte boundary) with its bufferView and accessor
 * written to their JSON lists as it goes; the nodes, meshes, skin and
 * animations refer to accessors by their index.  The JSON is assembled
 * last, then the GLB: header, JSON chunk padded with spaces, BIN chunk
 * padded with zeros. */
#include "gltf.h"
#include "gltf_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "clip.h"
#include "curve.h"
#include "entries.h"
#include "pose.h"
#include "quat.h"
#include "records.h"
#include "rig.h"
#include "simd.h"
#include "strbuf.h"

#define LOC_UNIT (1.0 / 16.0)  /* one raw location unit */

#define GLB_HEADER 12u
#define GLB_CHUNK_HEADER 8u
/* JSON per animation channel, at most (sampler, channel, two accessors,
 * two views), for the size check. */
#define JSON_PER_CHANNEL 512u

/* The rig as the file shows it. */
struct rig {
	const struct skeleton *s;
	uint32_t n;              /* bones */
	int32_t *parent;         /* per bone: its node's parent, -1 a root */
	double (*world)[12];     /* per bone: bind transform, rotation
				    column-major then translation */
	uint32_t *parts;         /* MHFU: each animated joint's part */
	uint32_t animated;
	const struct records *map; /* MHP3rd: where the tracks go, or NULL */
};

/* One animation: which track drives each bone. */
struct motion {
	char name[40];
	uint32_t frames;                    /* samples: frame 0 to the last key */
	const struct clip_track **track_of; /* per bone; NULL: not driven */
};

/* v (in [-1, 1]) as a signed short normalized to it: v * 32767, rounded
 * half away from zero. */
static inline int16_t normalized_short(double v)
{
	double s = v * 32767;
	s = s > 32767 ? 32767 : s < -32767 ? -32767 : s;
	return (int16_t)(s + copysign(0.5, s));
}

/* Quaternion f of the components x, y, z, w as four little-endian
 * normalized shorts at out + 8 f, for f < n (a loop to vectorize). */
VECTOR_CLONES static void pack_quats(const double *x, const double *y, const double *z,
				     const double *w, uint32_t n, uint8_t *out)
{
	for (uint32_t f = 0; f < n; f++) {
#if MH_HOST_LE
		uint64_t q = (uint64_t)(uint16_t)normalized_short(x[f]) |
			     (uint64_t)(uint16_t)normalized_short(y[f]) << 16 |
			     (uint64_t)(uint16_t)normalized_short(z[f]) << 32 |
			     (uint64_t)(uint16_t)normalized_short(w[f]) << 48;
		memcpy(out + 8 * (size_t)f, &q, sizeof q);
#else
		put_le16(out + 8 * (size_t)f, (uint16_t)normalized_short(x[f]));
		put_le16(out + 8 * (size_t)f + 2, (uint16_t)normalized_short(y[f]));
		put_le16(out + 8 * (size_t)f + 4, (uint16_t)normalized_short(z[f]));
		put_le16(out + 8 * (size_t)f + 6, (uint16_t)normalized_short(w[f]));
#endif
	}
}

/* The unit quaternions run->q[0..3][0..count), as one accessor of signed
 * shorts normalized to [-1, 1], which glTF takes for rotations: a short's
 * step, 1/32767 of a component (about 0.002 degrees), is a tenth of the
 * game's own (a turn in 16384); half the bytes of floats. */
static uint32_t put_quats(struct glb *g, const struct quat_run *run, uint32_t count)
{
	if (!glb_reserve(g, (size_t)count * 4 * 2))
		return 0;
	size_t start = g->len;
	pack_quats(run->q[0], run->q[1], run->q[2], run->q[3], count, g->bin + g->len);
	g->len += (size_t)count * 8;
	uint32_t view = glb_view(g, start, 0);
	glb_accessor_head(g, view, GL_SHORT, true, count);
	strbuf_str(&g->accessors, ",\"type\":\"VEC4\"}", 0);
	return g->naccessors++;
}

/* ---- the rig -------------------------------------------------------------- */

static void rig_free(struct rig *r)
{
	free(r->parent);
	free(r->world);
	free(r->parts);
}

static bool rig_init(struct rig *r, const struct skeleton *s)
{
	*r = (struct rig){.s = s, .n = s->nbones, .animated = rig_animated(s)};
	uint32_t *seen = malloc(r->n * sizeof *seen);
	bool *done = calloc(r->n, sizeof *done);
	r->parent = malloc(r->n * sizeof *r->parent);
	r->world = malloc(r->n * sizeof *r->world);
	r->parts = malloc((r->animated ? r->animated : 1) * sizeof *r->parts);
	bool ok = seen && done && r->parent && r->world && r->parts;
	if (ok) {
		pose_parents(s, r->parent, seen);
		for (uint32_t b = 0; b < r->n; b++)
			pose_bind_world(s, r->parent, b, r->world, done);
		for (uint32_t j = 0; j < r->animated; j++)
			r->parts[j] = s->bones[j].part;
	}
	free(seen);
	free(done);
	if (!ok)
		rig_free(r);
	return ok;
}

/* The inverse bind matrices (column-major 4x4): each bind transform is a
 * rotation and a translation, so its inverse is the transposed rotation
 * and the translation rotated back and negated. */
static uint32_t put_inverse_binds(struct glb *g, const struct rig *r)
{
	float *m = malloc((size_t)r->n * 16 * sizeof *m);
	if (!m) {
		g->failed = true;
		return 0;
	}
	for (uint32_t b = 0; b < r->n; b++) {
		const double *w = r->world[b];
		float *o = m + (size_t)b * 16;
		for (int c = 0; c < 3; c++) {
			for (int i = 0; i < 3; i++)
				o[c * 4 + i] = glb_f32(w[i * 3 + c]);
			o[c * 4 + 3] = 0;
		}
		for (int i = 0; i < 3; i++)
			o[12 + i] = glb_f32(-(w[i * 3] * w[9] + w[i * 3 + 1] * w[10] +
					  w[i * 3 + 2] * w[11]));
		o[15] = 1;
	}
	uint32_t acc = glb_floats(g, m, r->n, 16, false, 0);
	free(m);
	return acc;
}

/* ---- the motions ------------------------------------------------------------ */

static const uint32_t ROT_BITS[3] = {CLIP_ROT_X, CLIP_ROT_Y, CLIP_ROT_Z};
static const uint32_t LOC_BITS[3] = {CLIP_LOC_X, CLIP_LOC_Y, CLIP_LOC_Z};

/* Puts clip c's tracks on the bones from `first` (at most `count`). */
static void drive(struct motion *m, const struct clip *c, uint32_t first, uint32_t count,
		  uint32_t nbones)
{
	int32_t last = entries_clip_frames(c);
	if (last >= 0 && (uint32_t)last + 1 > m->frames)
		m->frames = (uint32_t)last + 1;
	for (uint32_t i = 0; i < c->ntracks && i < count && first + i < nbones; i++)
		m->track_of[first + i] = &c->tracks[i];
}

/* Puts clip c's tracks on the bones the record map says. */
static void drive_mapped(struct motion *m, const struct clip *c, const struct records *map,
			 uint32_t nbones)
{
	drive(m, c, 0, 0, nbones); /* its length */
	for (uint32_t i = 0; i < c->ntracks; i++) {
		int32_t b = records_bone(map, i);
		if (b >= 0 && (uint32_t)b < nbones)
			m->track_of[b] = &c->tracks[i];
	}
}

/* The motions' sources: MHFU entries 0..ENTRIES_MAX-1, or every slot of
 * every stream in order. */
static uint32_t motion_sources(const struct anim *pack)
{
	if (!pack || !pack->nclips)
		return 0;
	if (pack->format == CLIP_MHFU)
		return ENTRIES_MAX;
	uint32_t n = 0;
	for (uint32_t s = 0; s < pack->nstreams; s++)
		n += pack->streams[s].nslots;
	return n;
}

/* Source i as motion *m (its track_of zeroed by the caller); false when
 * the entry is not listed or the slot is empty. */
static bool motion_at(const struct rig *r, const struct anim *pack, uint32_t i,
		      struct motion *m)
{
	m->frames = 1;
	if (pack->format == CLIP_MHFU) {
		if (!entries_listed(pack, i))
			return false;
		snprintf(m->name, sizeof m->name, "entry %03u", i);
		for (uint32_t k = 0, n = entries_parts(pack); k < n; k++) {
			uint32_t stream, slot, first, count;
			int32_t clip = entries_part_clip(pack, i, k, &stream, &slot);
			if (clip != ANIM_EMPTY &&
			    anim_part_joints(r->parts, r->animated, k, &first, &count))
				drive(m, &pack->clips[clip], first, count, r->n);
		}
		return true;
	}
	uint32_t s = 0;
	while (i >= pack->streams[s].nslots)
		i -= pack->streams[s++].nslots;
	int32_t clip = pack->streams[s].slots[i];
	if (clip == ANIM_EMPTY)
		return false;
	snprintf(m->name, sizeof m->name, "stream %u slot %03u", s, i);
	if (r->map && pack->format == CLIP_P3RD)
		drive_mapped(m, &pack->clips[clip], r->map, r->n);
	else
		drive(m, &pack->clips[clip], 0, r->n, r->n);
	return true;
}

/* The bones a motion drives, and of them those with location channels. */
static uint32_t driven(const struct motion *m, uint32_t n, uint32_t *with_loc)
{
	uint32_t count = 0;
	*with_loc = 0;
	for (uint32_t b = 0; b < n; b++) {
		if (!m->track_of[b])
			continue;
		count++;
		for (int a = 0; a < 3; a++)
			if (pose_channel(m->track_of[b], LOC_BITS[a])) {
				(*with_loc)++;
				break;
			}
	}
	return count;
}

/* The bytes every motion takes, at most, for the size check. */
static uint64_t motions_size(const struct rig *r, const struct anim *pack, struct motion *m)
{
	uint64_t total = 0;
	for (uint32_t i = 0, n = motion_sources(pack); i < n; i++) {
		memset(m->track_of, 0, r->n * sizeof *m->track_of);
		if (!motion_at(r, pack, i, m))
			continue;
		uint32_t loc, rot = driven(m, r->n, &loc);
		total += (uint64_t)m->frames * (4 + 8 * rot + 12 * loc) + 4 +
			 (uint64_t)(rot + loc) * JSON_PER_CHANNEL;
	}
	return total;
}

/* Room for sampling the longest motion: its times or a track's
 * locations as floats, and its rotations (quat.h). */
struct sampling {
	float *samples;       /* frames * 3 */
	struct quat_run run;
};

static bool sampling_init(struct sampling *sp, uint32_t frames)
{
	sp->samples = malloc((size_t)frames * 3 * sizeof *sp->samples);
	bool run = quat_run_init(&sp->run, frames);
	return sp->samples && run;
}

static void sampling_free(struct sampling *sp)
{
	free(sp->samples);
	quat_run_free(&sp->run);
}

/* Sampler n of an animation: accessor `input`'s times, `output`'s values. */
static void put_sampler(struct strbuf *json, uint32_t n, uint32_t input, uint32_t output)
{
	glb_text_int(json, n ? ",{\"input\":" : "{\"input\":", input);
	glb_text_int(json, ",\"output\":", output);
	strbuf_str(json, ",\"interpolation\":\"LINEAR\"}", 0);
}

/* Channel n: sampler n drives `path` of node `node`. */
static void put_channel(struct strbuf *json, uint32_t n, uint32_t node, const char *path)
{
	glb_text_int(json, n ? ",{\"sampler\":" : "{\"sampler\":", n);
	glb_text_int(json, ",\"target\":{\"node\":", node);
	strbuf_str(json, ",\"path\":\"", 0);
	strbuf_str(json, path, 0);
	strbuf_str(json, "\"}}", 0);
}

/* One motion as an animation: its time accessor, then per driven bone
 * a rotation sampler and channel, and a translation one when its track
 * has location channels. */
static void put_motion(struct glb *g, const struct rig *r, const struct motion *m,
		       struct sampling *sp, struct strbuf *json)
{
	float *samples = sp->samples;
	for (uint32_t f = 0; f < m->frames; f++)
		samples[f] = gltf_frame_time(f);
	uint32_t time = glb_floats(g, samples, m->frames, 1, true, 0), nsamplers = 0;
	struct strbuf channels = {0};
	strbuf_printf(json, "{\"name\":");
	glb_json_string(json, m->name);
	strbuf_printf(json, ",\"samplers\":[");
	for (uint32_t b = 0; b < r->n; b++) {
		const struct clip_track *t = m->track_of[b];
		if (!t)
			continue;
		const struct clip_channel *rot[3], *loc[3];
		bool moves = false;
		for (int a = 0; a < 3; a++) {
			rot[a] = pose_channel(t, ROT_BITS[a]);
			moves |= (loc[a] = pose_channel(t, LOC_BITS[a])) != NULL;
		}
		quat_run_sample(&sp->run, rot, m->frames);
		uint32_t out = put_quats(g, &sp->run, m->frames);
		put_sampler(json, nsamplers, time, out);
		put_channel(&channels, nsamplers, b, "rotation");
		nsamplers++;
		if (!moves)
			continue;
		for (int a = 0; a < 3; a++)
			if (loc[a])
				curve_sample_frames(loc[a], m->frames, sp->run.raw[a]);
		for (uint32_t f = 0; f < m->frames; f++)
			for (int a = 0; a < 3; a++)
				samples[(size_t)f * 3 + a] =
					glb_f32(loc[a] ? sp->run.raw[a][f] * LOC_UNIT
						   : r->s->bones[b].position[a]);
		out = glb_floats(g, samples, m->frames, 3, false, 0);
		put_sampler(json, nsamplers, time, out);
		put_channel(&channels, nsamplers, b, "translation");
		nsamplers++;
	}
	strbuf_str(json, "],\"channels\":[", 0);
	strbuf_append(json, channels.buf, channels.len);
	strbuf_str(json, "]}", 0);
	g->failed |= channels.failed;
	strbuf_free(&channels);
}

/* Every motion of the pack, as the animations' JSON array's items. */
static bool put_motions(struct glb *g, const struct rig *r, const struct anim *pack,
			struct motion *m, struct strbuf *json)
{
	uint32_t most = 1, count = 0;
	for (uint32_t i = 0, n = motion_sources(pack); i < n; i++) {
		memset(m->track_of, 0, r->n * sizeof *m->track_of);
		if (motion_at(r, pack, i, m) && m->frames > most)
			most = m->frames;
	}
	struct sampling sp;
	if (!sampling_init(&sp, most)) {
		sampling_free(&sp);
		return false;
	}
	for (uint32_t i = 0, n = motion_sources(pack); i < n && !g->failed; i++) {
		uint32_t loc;
		memset(m->track_of, 0, r->n * sizeof *m->track_of);
		if (!motion_at(r, pack, i, m) || !driven(m, r->n, &loc))
			continue;
		if (count++)
			strbuf_char(json, ',');
		put_motion(g, r, m, &sp, json);
	}
	sampling_free(&sp);
	return !g->failed;
}

/* ---- the JSON and the file ------------------------------------------------ */

/* A bone's node: its name, bind offset and rotation, children. */
static void put_bone_node(struct strbuf *json, const struct rig *r, uint32_t b)
{
	const struct skeleton_bone *bone = &r->s->bones[b];
	char name[48];
	int at = snprintf(name, sizeof name, "joint %02u", b);
	/* MHP3rd bones carry a name: a C string in their rest area. */
	if (r->s->game == SKELETON_MHP3RD && bone->rest[0]) {
		name[at++] = ' ';
		for (unsigned i = 0; i < SKELETON_NAME_LEN && bone->rest[i]; i++)
			name[at++] = (char)bone->rest[i];
		name[at] = '\0';
	}
	strbuf_printf(json, "{\"name\":");
	glb_json_string(json, name);
	strbuf_printf(json, ",\"translation\":[");
	for (int i = 0; i < 3; i++) {
		if (i)
			strbuf_char(json, ',');
		strbuf_f32(json, glb_f32(bone->position[i]));
	}
	strbuf_char(json, ']');
	double e[3] = {bone->rotation[0], bone->rotation[1], bone->rotation[2]}, q[4];
	if (glb_f32(e[0]) || glb_f32(e[1]) || glb_f32(e[2])) {
		quat_euler(e, q);
		strbuf_printf(json, ",\"rotation\":[");
		for (int i = 0; i < 4; i++) {
			if (i)
				strbuf_char(json, ',');
			strbuf_f32(json, glb_f32(q[i]));
		}
		strbuf_char(json, ']');
	}
	bool children = false;
	for (uint32_t c = 0; c < r->n; c++)
		if (r->parent[c] == (int32_t)b) {
			strbuf_printf(json, "%s%u", children ? "," : ",\"children\":[", c);
			children = true;
		}
	strbuf_printf(json, "%s}", children ? "]" : "");
}

void gltf_body_name(size_t i, char name[GLTF_BODY_NAME_MAX])
{
	if (i)
		snprintf(name, GLTF_BODY_NAME_MAX, "body %zu", i);
	else
		snprintf(name, GLTF_BODY_NAME_MAX, "body");
}

/* The mesh nodes: one per body that draws (named
 * as its mesh, skinned when its weights fit the rig), else "stand-in". */
static void put_mesh_nodes(struct strbuf *json, const struct glb_bodies *bodies, size_t n)
{
	if (!bodies->nmeshes) {
		strbuf_str(json, "{\"name\":\"stand-in\",\"mesh\":0,\"skin\":0}", 0);
		return;
	}
	for (size_t i = 0, k = 0; i < n; i++) {
		if (bodies->mesh_of[i] < 0)
			continue;
		char name[GLTF_BODY_NAME_MAX];
		gltf_body_name(i, name);
		strbuf_str(json, k++ ? ",{\"name\":" : "{\"name\":", 0);
		glb_json_string(json, name);
		glb_text_int(json, ",\"mesh\":", bodies->mesh_of[i]);
		strbuf_str(json, bodies->skinned[i] ? ",\"skin\":0}" : "}", 0);
	}
}

/* The nodes: the bones and "rig" (the common root the skin's joints
 * need: a rig may have several roots, the severed tail's among them)
 * when there is a rig, then the mesh nodes. */
static void put_nodes(struct strbuf *json, const struct rig *r,
		      const struct glb_bodies *bodies, size_t n)
{
	strbuf_printf(json, "\"nodes\":[");
	for (uint32_t b = 0; r && b < r->n; b++) {
		put_bone_node(json, r, b);
		strbuf_char(json, ',');
	}
	if (r) {
		strbuf_printf(json, "{\"name\":\"rig\",\"children\":[");
		for (uint32_t b = 0, roots = 0; b < r->n; b++)
			if (r->parent[b] < 0)
				strbuf_printf(json, "%s%u", roots++ ? "," : "", b);
		strbuf_str(json, "]},", 0);
	}
	put_mesh_nodes(json, bodies, n);
	strbuf_char(json, ']');
}

/* The scene: "rig" and the mesh nodes after it. */
static void put_scene(struct strbuf *json, const struct rig *r, const struct glb_bodies *bodies)
{
	uint32_t first = r ? r->n + 1 : 0, meshes = bodies->nmeshes ? bodies->nmeshes : 1;
	strbuf_str(json, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"mhfufs\"},"
		   "\"scene\":0,\"scenes\":[{\"name\":\"model\",\"nodes\":[", 0);
	if (r)
		strbuf_printf(json, "%u,", r->n);
	for (uint32_t k = 0; k < meshes; k++)
		strbuf_printf(json, "%s%u", k ? "," : "", first + k);
	strbuf_str(json, "]}],", 0);
}

/* `"key":[items],` when there are items. */
static void put_list(struct strbuf *json, const char *key, const struct strbuf *items)
{
	if (!items->len)
		return;
	strbuf_printf(json, "\"%s\":[", key);
	strbuf_append(json, items->buf, items->len);
	strbuf_str(json, "],", 0);
}

/* The GLB around the JSON text and g's BIN data, made in g's buffer
 * (which it takes): grown in place and the data moved up, rather than
 * copied into megabytes of fresh pages. */
static enum mh_err glb_file(struct glb *g, const struct strbuf *json, uint8_t **out,
			    size_t *len, struct mh_diag *d)
{
	size_t json_len = align_up(json->len, 4), bin_len = align_up(g->len, 4);
	size_t head = GLB_HEADER + GLB_CHUNK_HEADER + json_len + GLB_CHUNK_HEADER;
	size_t total = head + bin_len;
	if (total > GLTF_MAX_BYTES)
		return mh_fail(d, MH_ERANGE, 0, "model.glb would take %zu bytes, over %u", total,
			       GLTF_MAX_BYTES);
	uint8_t *p = realloc(g->bin, total);
	if (!p)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for model.glb");
	g->bin = NULL;
	if (g->len)
		memmove(p + head, p, g->len);
	memset(p + head + g->len, 0, bin_len - g->len);
	put_le32(p, GLTF_MAGIC);
	put_le32(p + 4, 2);
	put_le32(p + 8, (uint32_t)total);
	uint8_t *c = p + GLB_HEADER;
	put_le32(c, (uint32_t)json_len);
	put_le32(c + 4, GLTF_CHUNK_JSON);
	memcpy(c + 8, json->buf, json->len);
	memset(c + 8 + json->len, ' ', json_len - json->len);
	c += GLB_CHUNK_HEADER + json_len;
	put_le32(c, (uint32_t)bin_len);
	put_le32(c + 4, GLTF_CHUNK_BIN);
	*out = p;
	*len = total;
	return MH_OK;
}

enum mh_err gltf_model(const struct skeleton *s, const struct anim *pack, uint8_t **out,
		       size_t *len, struct mh_diag *d)
{
	return gltf_model_mapped(s, pack, NULL, out, len, d);
}

enum mh_err gltf_model_mapped(const struct skeleton *s, const struct anim *pack,
			      const struct records *map, uint8_t **out, size_t *len,
			      struct mh_diag *d)
{
	return gltf_model_with(s, pack, map, NULL, 0, out, len, d);
}

/* What the file is made of, as it is made. */
struct making {
	struct rig r;
	struct rig *rig;          /* &r, or NULL: static bodies */
	struct glb g;
	struct strbuf json, mesh, animations;
	struct glb_bodies bodies;
	struct motion m;
	uint32_t ibm;
};

static void making_free(struct making *k)
{
	free(k->m.track_of);
	free(k->g.bin);
	strbuf_free(&k->g.views);
	strbuf_free(&k->g.accessors);
	strbuf_free(&k->json);
	strbuf_free(&k->mesh);
	strbuf_free(&k->animations);
	glb_bodies_free(&k->bodies);
	if (k->rig)
		rig_free(k->rig);
}

/* The bytes the file takes, at most; MH_ERANGE past GLTF_MAX_BYTES. */
static enum mh_err check_size(struct making *k, const struct anim *pack,
			      const struct gltf_body *bodies, size_t nbodies, struct mh_diag *d)
{
	uint64_t size = glb_bodies_size(bodies, nbodies);
	if (k->rig)
		size += (uint64_t)k->r.n * (64 + 12 * 36 + 16 * 12 + 256) +
			motions_size(k->rig, pack, &k->m);
	if (size > GLTF_MAX_BYTES)
		return mh_fail(d, MH_ERANGE, 0, "model.glb would take about %llu bytes, over %u",
			       (unsigned long long)size, GLTF_MAX_BYTES);
	/* Room for all of it at once (size bounds the BIN data too): no
	 * copy as it grows. */
	glb_reserve(&k->g, (size_t)size);
	return MH_OK;
}

/* The rig (when s), the bodies, the stand-in where no body draws, the
 * motions: the BIN data and the JSON lists. */
static enum mh_err make_parts(struct making *k, const struct anim *pack,
			      const struct gltf_body *bodies, size_t nbodies, struct mh_diag *d)
{
	if (k->rig)
		k->ibm = put_inverse_binds(&k->g, k->rig);
	enum mh_err err = glb_put_bodies(&k->g, bodies, nbodies, k->rig ? k->r.n : 0,
					 &k->bodies, d);
	if (err)
		return err;
	if (!k->bodies.nmeshes && !k->rig)
		return mh_fail(d, MH_ERANGE, 0, "no skeleton and no triangle: nothing to show");
	bool stand_in = !k->bodies.nmeshes;
	if ((stand_in && !glb_put_stand_in(&k->g, k->r.n, k->r.world, k->r.parent, &k->mesh)) ||
	    (k->rig && pack && !put_motions(&k->g, k->rig, pack, &k->m, &k->animations)) ||
	    k->g.failed || k->mesh.failed || k->animations.failed)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for model.glb");
	return MH_OK;
}

/* The JSON: scene, nodes, meshes, materials, skin, animations, then the
 * accessors, views and buffer (the big arrays appended, not printed
 * through "%s"). */
static void put_json(struct making *k, size_t nbodies)
{
	struct strbuf *json = &k->json;
	put_scene(json, k->rig, &k->bodies);
	put_nodes(json, k->rig, &k->bodies, nbodies);
	strbuf_char(json, ',');
	put_list(json, "meshes", k->bodies.nmeshes ? &k->bodies.meshes : &k->mesh);
	put_list(json, "materials", &k->bodies.materials);
	if (k->bodies.textures.len)
		strbuf_printf(json, "\"samplers\":[{\"wrapS\":%d,\"wrapT\":%d}],", 10497, 10497);
	put_list(json, "textures", &k->bodies.textures);
	put_list(json, "images", &k->bodies.images);
	if (k->rig) {
		strbuf_printf(json, "\"skins\":[{\"inverseBindMatrices\":%u,\"skeleton\":%u,"
			      "\"joints\":[", k->ibm, k->r.n);
		for (uint32_t b = 0; b < k->r.n; b++)
			strbuf_printf(json, "%s%u", b ? "," : "", b);
		strbuf_printf(json, "]}],");
	}
	put_list(json, "animations", &k->animations);
	put_list(json, "accessors", &k->g.accessors);
	put_list(json, "bufferViews", &k->g.views);
	glb_text_int(json, "\"buffers\":[{\"byteLength\":", (long long)align_up(k->g.len, 4));
	strbuf_str(json, "}]}", 0);
}

enum mh_err gltf_model_with(const struct skeleton *s, const struct anim *pack,
			    const struct records *map, const struct gltf_body *bodies,
			    size_t nbodies, uint8_t **out, size_t *len, struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (s && !s->nbones)
		return mh_fail(d, MH_ERANGE, 0, "the skeleton has no bone: nothing to show");
	struct making k = {0};
	if (s) {
		if (!rig_init(&k.r, s))
			return mh_fail(d, MH_ENOMEM, 0, "out of memory for the rig");
		k.rig = &k.r;
		k.r.map = map;
		if (!(k.m.track_of = calloc(k.r.n, sizeof *k.m.track_of))) {
			making_free(&k);
			return mh_fail(d, MH_ENOMEM, 0, "out of memory for the motions");
		}
	}
	enum mh_err err = check_size(&k, pack, bodies, nbodies, d);
	if (!err)
		err = make_parts(&k, pack, bodies, nbodies, d);
	if (!err) {
		put_json(&k, nbodies);
		if (k.json.failed || k.g.accessors.failed || k.g.views.failed)
			err = mh_fail(d, MH_ENOMEM, 0, "out of memory for model.glb's JSON");
		else
			err = glb_file(&k.g, &k.json, out, len, d);
	}
	making_free(&k);
	return err;
}
