/* SPDX-License-Identifier: MIT */
/* One glTF animation as the engine's joint values (gltf_motion.h): the
 * rig found by name and checked, the file's bone frames related to the
 * skeleton's, then every joint sampled at every frame and turned into
 * unwrapped Euler angles and raw locations. */
#include "gltf_motion.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf.h"
#include "pose.h"

#define RAW_PER_RADIAN (8192 / M_PI) /* rotation: 4096 = 90 degrees */
#define RAW_PER_UNIT 16.0            /* location: 16 = 1.0 */
#define TURN (2 * M_PI)
/* Below this cos(Y), X and Z turn about one axis: X is kept. */
#define GIMBAL_COS 1e-7
/* Below this cos(Y), Z is taken from X and their well-conditioned
 * difference (sum), not from elements as small as cos(Y). */
#define NEAR_GIMBAL_COS 0.1
#define SCALE_EPS 1e-3

/* What the motion is made from. */
struct making {
	const struct gltf_motion_guide *guide; /* NULL: none */
	const struct gltf_asset *a;
	const struct gltf_animation *an;
	const struct skeleton *s;
	int32_t *bone_of;    /* per node: its bone, -1 when not a joint */
	int32_t *parent;     /* per bone: pose_parents */
	double (*frame)[9];  /* per bone: C_b, the file's frame in the skeleton's */
	int32_t (*channel)[3]; /* per bone: its translation, rotation, scale channels */
	struct mh_diag *d;
};

static void quat_matrix(const double q[4], double m[9])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
		       2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
		       2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
	memcpy(m, r, sizeof r);
}

/* out = a * b, or a^T * b, or a * b^T (column-major 3x3). */
static void mul(const double *a, bool at, const double *b, bool bt, double *out)
{
	double r[9];
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < 3; i++) {
			double sum = 0;
			for (int k = 0; k < 3; k++)
				sum += (at ? a[i * 3 + k] : a[k * 3 + i]) *
				       (bt ? b[k * 3 + c] : b[c * 3 + k]);
			r[c * 3 + i] = sum;
		}
	memcpy(out, r, sizeof r);
}

/* v shifted by whole turns to lie within half a turn of ref. */
static double near_turn(double v, double ref)
{
	return v - TURN * round((v - ref) / TURN);
}

void gltf_motion_euler(const double m[9], const double prev[3], const double ahead[3],
		       double out[3])
{
	double cy = hypot(m[0], m[1]), e[2][3];
	double y = atan2(-m[2], cy);
	int ntriples = 2;
	if (cy < GIMBAL_COS) {
		/* Y = +-90 degrees: only X - Z (sin Y = 1) or X + Z (-1) shows;
		 * X is taken where the motion was heading. */
		double x = ahead[0];
		e[0][0] = x;
		e[0][1] = y;
		e[0][2] = m[2] < 0 ? x - atan2(m[3], m[4]) : atan2(-m[3], m[4]) - x;
		ntriples = 1;
	} else {
		e[0][0] = atan2(m[5], m[8]);
		e[0][1] = y;
		e[0][2] = atan2(m[1], m[0]);
		/* Near Y = +-90 degrees X and Z each come from elements of the
		 * size of cos Y, noise and all, but their difference (sum) from
		 * ones of size 1: (1 + sin Y) sin(X - Z) = R01 - R12 and
		 * (1 + sin Y) cos(X - Z) = R02 + R11 (with -Y: (1 - sin Y)
		 * sin(X + Z) = -(R01 + R12), cos: R11 - R02).  Z is taken
		 * from it, so the rotation stays whole where X is loose. */
		if (cy < NEAR_GIMBAL_COS)
			e[0][2] = m[2] < 0 ? e[0][0] - atan2(m[3] - m[7], m[6] + m[4])
					   : atan2(-(m[3] + m[7]), m[4] - m[6]) - e[0][0];
		e[1][0] = e[0][0] + M_PI;
		e[1][1] = M_PI - y;
		e[1][2] = e[0][2] + M_PI;
	}
	double best = INFINITY;
	for (int k = 0; k < ntriples; k++) {
		double cand[3], dist = 0;
		for (int a = 0; a < 3; a++) {
			cand[a] = near_turn(e[k][a], prev[a]);
			dist += fabs(cand[a] - ahead[a]);
		}
		if (dist < best) {
			best = dist;
			memcpy(out, cand, sizeof cand);
		}
	}
}

void gltf_motion_lean(const double m[9], double hint, double out[3])
{
	double cy = hypot(m[0], m[1]);
	double band = cy > 0 ? GLTF_MOTION_ROT_NOISE / cy : INFINITY;
	double x = out[0], want = near_turn(hint, x);
	double nx = want < x - band ? x - band : want > x + band ? x + band : want;
	if (nx == x)
		return;
	/* X - Z (X + Z) from elements of size 1 + |sin Y| (gltf_motion_euler) */
	double z = m[2] < 0 ? nx - atan2(m[3] - m[7], m[6] + m[4])
			    : atan2(-(m[3] + m[7]), m[4] - m[6]) - nx;
	out[0] = nx;
	out[2] = near_turn(z, out[2]);
}

/* The guide's angle of bone b about axis ax at frame f, in radians. */
static bool guide_angle(const struct making *k, uint32_t b, unsigned ax, uint32_t f, double *rad)
{
	double raw;
	if (!k->guide || !k->guide->angle(k->guide->ctx, b, ax, f, &raw))
		return false;
	*rad = raw / RAW_PER_RADIAN;
	return true;
}

static const char *node_name(const struct gltf_asset *a, int32_t n)
{
	return n >= 0 && a->nodes[n].name ? a->nodes[n].name : "";
}

/* The bone a node's name gives: -1 for a name not "joint ...", -2 for
 * one that names no bone of s. */
static int32_t bone_named(const char *name, uint32_t nbones)
{
	if (strncmp(name, "joint", 5))
		return -1;
	const char *p = name + 5;
	if (*p != ' ')
		return *p ? -1 : -2;
	p++;
	uint32_t b = 0;
	int digits = 0;
	for (; *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
		b = b * 10 + (uint32_t)(*p - '0');
	if (digits < 2 || (*p && *p != ' ') || b >= nbones)
		return -2;
	return (int32_t)b;
}

/* The joint nodes, each bone's, their parents checked. */
static enum mh_err find_rig(struct making *k, int32_t *node_of)
{
	const struct gltf_asset *a = k->a;
	uint32_t n = k->s->nbones;
	for (uint32_t b = 0; b < n; b++)
		node_of[b] = -1;
	for (uint32_t i = 0; i < a->nnodes; i++) {
		int32_t b = bone_named(node_name(a, (int32_t)i), n);
		k->bone_of[i] = b < 0 ? -1 : b;
		if (b == -2)
			return mh_fail(k->d, MH_ECORRUPT, 0,
				       "nodes[%u] \"%.40s\": no such joint: the skeleton's are "
				       "\"joint 00\" to \"joint %02u\"",
				       i, node_name(a, (int32_t)i), n - 1);
		if (b >= 0 && node_of[b] >= 0)
			return mh_fail(k->d, MH_ECORRUPT, 0,
				       "nodes[%d] and nodes[%u] are both bone %d (\"%.40s\")",
				       node_of[b], i, b, node_name(a, (int32_t)i));
		if (b >= 0)
			node_of[b] = (int32_t)i;
	}
	for (uint32_t b = 0; b < n; b++) {
		if (node_of[b] < 0)
			return mh_fail(k->d, MH_ECORRUPT, 0,
				       "no node \"joint %02u\": the file lacks bone %u of the rig", b,
				       b);
	}
	for (uint32_t b = 0; b < n; b++) {
		int32_t up = a->nodes[node_of[b]].parent, want = k->parent[b];
		int32_t up_bone = up >= 0 ? k->bone_of[up] : -1;
		if (up_bone != want)
			return mh_fail(k->d, MH_ECORRUPT, 0,
				       "node \"%.40s\" hangs under %s%.40s%s, but bone %u's parent is "
				       "%s%d",
				       node_name(a, node_of[b]), up >= 0 ? "\"" : "",
				       up >= 0 ? node_name(a, up) : "no node", up >= 0 ? "\"" : "", b,
				       want >= 0 ? "bone " : "none", want >= 0 ? want : 0);
	}
	return MH_OK;
}

/* C_b for every bone, parents first (the parents have no loop). */
static void find_frames(struct making *k, const int32_t *node_of, bool *done)
{
	uint32_t n = k->s->nbones;
	for (uint32_t left = n; left;) {
		for (uint32_t b = 0; b < n; b++) {
			int32_t p = k->parent[b];
			if (done[b] || (p >= 0 && !done[p]))
				continue;
			double bind[9], rest[9], e[3];
			for (int i = 0; i < 3; i++)
				e[i] = k->s->bones[b].rotation[i];
			pose_euler_matrix(e, bind);
			quat_matrix(k->a->nodes[node_of[b]].rotation, rest);
			static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
			double cr[9];
			mul(p >= 0 ? k->frame[p] : identity, false, rest, false, cr);
			mul(bind, true, cr, false, k->frame[b]);
			done[b] = true;
			left--;
		}
	}
}

/* Which channel drives each joint's translation, rotation, scale; the
 * frames the animation lasts. */
static enum mh_err find_channels(struct making *k, uint32_t *frames, uint32_t *skipped)
{
	const struct gltf_animation *an = k->an;
	double last = 0;
	bool any = false;
	*skipped = 0;
	for (uint32_t b = 0; b < k->s->nbones; b++)
		k->channel[b][0] = k->channel[b][1] = k->channel[b][2] = -1;
	for (uint32_t i = 0; i < an->nchannels; i++) {
		const struct gltf_channel *c = &an->channels[i];
		int32_t b = c->node >= 0 ? k->bone_of[c->node] : -1;
		if (b < 0 || c->path == GLTF_PATH_WEIGHTS) {
			(*skipped)++;
			continue;
		}
		int slot = c->path == GLTF_PATH_TRANSLATION ? 0 : c->path == GLTF_PATH_ROTATION ? 1 : 2;
		if (k->channel[b][slot] >= 0)
			return mh_fail(k->d, MH_ECORRUPT, 0,
				       "\"%.40s\" channels %d and %u both drive node \"%.40s\"'s %s",
				       an->name, k->channel[b][slot], i, node_name(k->a, c->node),
				       slot == 0 ? "translation" : slot == 1 ? "rotation" : "scale");
		k->channel[b][slot] = (int32_t)i;
		const struct gltf_sampler *s = &an->samplers[c->sampler];
		if (s->input.count && s->input.v[s->input.count - 1] > last)
			last = s->input.v[s->input.count - 1];
		any = true;
	}
	if (!any)
		return mh_fail(k->d, MH_ECORRUPT, 0, "animation \"%.40s\" drives no joint", an->name);
	double l = round(last * GLTF_FPS);
	if (l >= GLTF_MOTION_MAX_FRAMES)
		return mh_fail(k->d, MH_ECORRUPT, 0,
			       "animation \"%.40s\" lasts %g s: %.0f frames, past the engine's %u",
			       an->name, last, l + 1, GLTF_MOTION_MAX_FRAMES);
	*frames = (uint32_t)l + 1;
	return MH_OK;
}

/* Joint b's values at every frame. */
static enum mh_err sample_joint(struct making *k, uint32_t b, const struct gltf_node *node,
				struct gltf_joint_motion *j, uint32_t frames)
{
	const struct gltf_animation *an = k->an;
	const int32_t *ch = k->channel[b];
	int32_t p = k->parent[b];
	static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	const double *cp = p >= 0 ? k->frame[p] : identity, *cb = k->frame[b];
	double prev[3], before[3];
	for (unsigned a = 0; a < 3; a++)
		if (!guide_angle(k, b, a, 0, &prev[a]))
			prev[a] = 0;
	memcpy(before, prev, sizeof prev);
	for (uint32_t f = 0; f < frames; f++) {
		double t = gltf_frame_time(f), tr[3], q[4], sc[3], m[9], e[3];
		memcpy(tr, node->translation, sizeof tr);
		memcpy(q, node->rotation, sizeof q);
		if (ch[0] >= 0)
			gltf_channel_sample(an, &an->channels[ch[0]], t, tr);
		if (ch[1] >= 0)
			gltf_channel_sample(an, &an->channels[ch[1]], t, q);
		if (ch[2] >= 0) {
			gltf_channel_sample(an, &an->channels[ch[2]], t, sc);
			for (int a = 0; a < 3; a++)
				if (fabs(sc[a] - 1) > SCALE_EPS)
					return mh_fail(k->d, MH_ECORRUPT, 0,
						       "node \"%.40s\": scale %g at frame %u: the "
						       "engine plays no scale",
						       node_name(k->a, j->node), sc[a], f);
		}
		double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		for (int i = 0; i < 4; i++)
			q[i] = n > 0 ? q[i] / n : i == 3;
		quat_matrix(q, m);
		mul(cp, false, m, false, m);
		mul(m, false, cb, true, m);
		/* Where the angles were heading: the last frame's, moved on as
		 * the two before moved. */
		double ahead[3];
		for (int a = 0; a < 3; a++)
			ahead[a] = f > 1 ? 2 * prev[a] - before[a] : prev[a];
		gltf_motion_euler(m, prev, ahead, e);
		double hint;
		if (guide_angle(k, b, 0, f, &hint))
			gltf_motion_lean(m, hint, e);
		memcpy(before, prev, sizeof prev);
		memcpy(prev, e, sizeof e);
		for (int a = 0; a < 3; a++) {
			double moved = cp[a] * tr[0] + cp[3 + a] * tr[1] + cp[6 + a] * tr[2];
			j->rot[a][f] = (float)(e[a] * RAW_PER_RADIAN);
			j->loc[a][f] = (float)(moved * RAW_PER_UNIT);
			double bind = (double)k->s->bones[b].position[a] * RAW_PER_UNIT;
			if (fabs(moved * RAW_PER_UNIT - bind) > GLTF_MOTION_BIND_EPS)
				j->moves[a] = true;
		}
	}
	return MH_OK;
}

static enum mh_err one_animation(const struct gltf_asset *a, struct mh_diag *d)
{
	if (a->nanimations == 1)
		return MH_OK;
	if (!a->nanimations)
		return mh_fail(d, MH_ECORRUPT, 0, "the file has no animation: export one");
	char names[120] = "";
	size_t at = 0;
	for (uint32_t i = 0; i < a->nanimations && at < sizeof names; i++)
		at += (size_t)snprintf(names + at, sizeof names - at, "%s\"%s\"", i ? ", " : "",
				       a->animations[i].name);
	return mh_fail(d, MH_ECORRUPT, 0, "the file has %u animations (%s%s): export one",
		       a->nanimations, names, at >= sizeof names ? "..." : "");
}

static enum mh_err make(struct making *k, struct gltf_motion *m, int32_t *node_of, bool *done)
{
	enum mh_err err = find_rig(k, node_of);
	if (err)
		return err;
	find_frames(k, node_of, done);
	if ((err = find_channels(k, &m->frames, &m->skipped)))
		return err;
	size_t n = k->an->name ? strlen(k->an->name) + 1 : 1;
	if (!(m->name = malloc(n)))
		return mh_fail(k->d, MH_ENOMEM, 0, "out of memory for the motion");
	memcpy(m->name, k->an->name ? k->an->name : "", n);
	for (uint32_t b = 0; b < m->njoints; b++) {
		struct gltf_joint_motion *j = &m->joints[b];
		j->node = node_of[b];
		j->animated = k->channel[b][0] >= 0 || k->channel[b][1] >= 0 || k->channel[b][2] >= 0;
		if (!j->animated)
			continue;
		/* One allocation per joint: rot[0..2] then loc[0..2]. */
		float *all = malloc((size_t)m->frames * 6 * sizeof *all);
		if (!all)
			return mh_fail(k->d, MH_ENOMEM, 0, "out of memory for the motion");
		for (int a = 0; a < 3; a++) {
			j->rot[a] = all + (size_t)m->frames * a;
			j->loc[a] = all + (size_t)m->frames * (3 + a);
		}
		if ((err = sample_joint(k, b, &k->a->nodes[node_of[b]], j, m->frames)))
			return err;
	}
	return MH_OK;
}

enum mh_err gltf_motion_read(const struct gltf_asset *a, const struct skeleton *s,
			     const struct gltf_motion_guide *guide, struct gltf_motion *m,
			     struct mh_diag *d)
{
	memset(m, 0, sizeof *m);
	enum mh_err err = one_animation(a, d);
	if (err)
		return err;
	if (!s->nbones)
		return mh_fail(d, MH_ECORRUPT, 0, "the skeleton has no bone");
	uint32_t n = s->nbones;
	struct making k = {.guide = guide, .a = a, .an = &a->animations[0], .s = s, .d = d};
	int32_t *node_of = malloc(n * sizeof *node_of);
	uint32_t *seen = malloc(n * sizeof *seen);
	bool *done = calloc(n, sizeof *done);
	k.bone_of = malloc((a->nnodes ? a->nnodes : 1) * sizeof *k.bone_of);
	k.parent = malloc(n * sizeof *k.parent);
	k.frame = malloc(n * sizeof *k.frame);
	k.channel = malloc(n * sizeof *k.channel);
	m->njoints = n;
	m->joints = calloc(n, sizeof *m->joints);
	if (!node_of || !seen || !done || !k.bone_of || !k.parent || !k.frame || !k.channel ||
	    !m->joints) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory for the motion");
	} else {
		pose_parents(s, k.parent, seen);
		err = make(&k, m, node_of, done);
	}
	free(node_of);
	free(seen);
	free(done);
	free(k.bone_of);
	free(k.parent);
	free(k.frame);
	free(k.channel);
	if (err)
		gltf_motion_free(m);
	return err;
}

void gltf_motion_free(struct gltf_motion *m)
{
	for (uint32_t b = 0; m->joints && b < m->njoints; b++)
		free(m->joints[b].rot[0]);
	free(m->joints);
	free(m->name);
	memset(m, 0, sizeof *m);
}
