/* SPDX-License-Identifier: MIT */
/* Joint matching (port.h step 2): which donor bone drives each host
 * joint, from the two rigs' bind poses. */
#include "port_int.h"

#include <math.h>
#include <stdlib.h>

#include "rig.h"

int32_t port_depth(const struct skeleton *s, uint32_t b)
{
	int32_t depth = 0;
	for (int32_t at = s->bones[b].parent;
	     at >= 0 && (uint32_t)at < s->nbones && (uint32_t)depth < s->nbones;
	     at = s->bones[at].parent)
		depth++;
	return depth;
}

enum mh_err port_bind_of(const struct skeleton *s, const char *whose, double **out,
			 struct mh_diag *d)
{
	*out = malloc((s->nbones ? s->nbones : 1) * 3 * sizeof **out);
	if (!*out)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t b = 0; b < s->nbones; b++) {
		struct mh_diag why = {0};
		if (rig_bind_world(s, b, &(*out)[3 * b], &why)) {
			free(*out);
			*out = NULL;
			return mh_fail(d, MH_ECORRUPT, 0, "the %s's skeleton: %s", whose, why.msg);
		}
	}
	return MH_OK;
}

static double distance(const double *a, const double *b)
{
	return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
		    (a[2] - b[2]) * (a[2] - b[2]));
}

uint32_t port_leading_origin(const double *world, uint32_t n)
{
	static const double ORIGIN[3] = {0, 0, 0};
	uint32_t count = 0;
	while (count < n && distance(&world[3 * count], ORIGIN) <= PORT_ORIGIN)
		count++;
	return count;
}

/* A quarter of the donor's bounding-box diagonal. */
static double reach_of(const double *world, uint32_t n)
{
	double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
	for (uint32_t b = 0; b < n; b++)
		for (int i = 0; i < 3; i++) {
			double v = world[3 * b + i];
			lo[i] = !b || v < lo[i] ? v : lo[i];
			hi[i] = !b || v > hi[i] ? v : hi[i];
		}
	return 0.25 * distance(lo, hi);
}

struct pair {
	double cost;
	uint32_t joint, bone;
};

/* Cost order; ties by host joint, then donor bone, so the pass is
 * deterministic. */
static int pair_order(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	if (a->joint != b->joint)
		return a->joint < b->joint ? -1 : 1;
	return a->bone < b->bone ? -1 : a->bone > b->bone;
}

/* The rigs, their bind poses, depths, and who is taken. */
struct matching {
	const struct skeleton *host, *donor;
	double *host_world, *donor_world;
	int32_t *host_depth, *donor_depth;
	bool *set_joint;  /* a map line decides the joint */
	bool *set_bone;   /* a map line gives the bone */
	int32_t *owner;   /* per donor bone: the host joint it drives, -1 */
	struct port_joint *joints;
};

static void give(struct matching *m, uint32_t joint, int32_t bone, enum port_why why)
{
	int32_t old = m->joints[joint].bone;
	if (old >= 0)
		m->owner[old] = PORT_NONE;
	if (bone >= 0) {
		if (m->owner[bone] >= 0) {
			m->joints[m->owner[bone]].bone = PORT_NONE;
			m->joints[m->owner[bone]].why = PORT_WHY_TOO_FAR;
		}
		m->owner[bone] = (int32_t)joint;
	}
	m->joints[joint].bone = bone;
	m->joints[joint].why = why;
}

static enum mh_err greedy(struct matching *m, struct mh_diag *d)
{
	uint32_t nh = m->host->nbones, nd = m->donor->nbones;
	double reach = reach_of(m->donor_world, nd);
	size_t most = (size_t)nh * nd;
	struct pair *pairs = malloc((most ? most : 1) * sizeof *pairs);
	if (!pairs)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	size_t n = 0;
	for (uint32_t j = 0; j < nh; j++)
		for (uint32_t b = 0; b < nd && !m->set_joint[j]; b++) {
			double dist = distance(&m->host_world[3 * j], &m->donor_world[3 * b]);
			if (m->set_bone[b] || !(dist < reach))
				continue;
			int32_t gap = m->donor_depth[b] - m->host_depth[j];
			pairs[n++] = (struct pair){dist + PORT_DEPTH_COST * abs(gap), j, b};
		}
	qsort(pairs, n, sizeof *pairs, pair_order);
	for (size_t i = 0; i < n; i++)
		if (m->joints[pairs[i].joint].bone < 0 && m->owner[pairs[i].bone] < 0)
			give(m, pairs[i].joint, (int32_t)pairs[i].bone, PORT_WHY_NEAREST);
	free(pairs);
	return MH_OK;
}

/* Every origin joint sits at one point, so distance pairs the chains
 * from their fronts and a longer host chain starves its hip, which
 * carries the height: the chains are paired from their hip ends
 * instead.  Joints and bones a map line decides stay out of it. */
static void align_origin(struct matching *m, uint32_t host_lead, uint32_t donor_lead)
{
	if (!host_lead || !donor_lead)
		return;
	for (uint32_t j = 0; j < host_lead; j++)
		if (!m->set_joint[j])
			give(m, j, PORT_NONE, PORT_WHY_SURPLUS);
	int32_t j = (int32_t)host_lead - 1, b = (int32_t)donor_lead - 1;
	for (;;) {
		while (j >= 0 && m->set_joint[j])
			j--;
		while (b >= 0 && m->set_bone[b])
			b--;
		if (j < 0 || b < 0)
			break;
		give(m, (uint32_t)j--, b--, PORT_WHY_ORIGIN);
	}
}

/* The record driving each matched bone, and the reasons a joint rests. */
static void settle(struct matching *m, const struct records *map)
{
	uint32_t animated = rig_animated(m->host);
	for (uint32_t j = 0; j < m->host->nbones; j++) {
		struct port_joint *pj = &m->joints[j];
		pj->record = PORT_NONE;
		if (pj->bone >= 0) {
			pj->distance = distance(&m->host_world[3 * j], &m->donor_world[3 * pj->bone]);
			pj->depth_gap = m->donor_depth[pj->bone] - m->host_depth[j];
			for (uint32_t r = 0; r < map->nrecords && pj->record < 0; r++)
				if (map->bone[r] == pj->bone)
					pj->record = (int32_t)r;
			if (pj->record < 0)
				pj->why = PORT_WHY_NO_RECORD;
		}
		if (j >= animated)
			pj->why = PORT_WHY_NOT_ANIMATED;
	}
}

enum mh_err port_match(const struct skeleton *host, const struct skeleton *donor,
		       const struct records *map, const struct port_settings *s,
		       struct port_joint *joints, int32_t *hip, struct mh_diag *d)
{
	uint32_t nh = host->nbones, nd = donor->nbones;
	struct matching m = {.host = host, .donor = donor, .joints = joints};
	*hip = PORT_NONE;
	for (uint32_t j = 0; j < nh; j++)
		joints[j] = (struct port_joint){.bone = PORT_NONE, .record = PORT_NONE,
						.why = PORT_WHY_TOO_FAR};
	enum mh_err err = port_bind_of(host, "host", &m.host_world, d);
	if (!err)
		err = port_bind_of(donor, "donor", &m.donor_world, d);
	if (err)
		goto out;
	m.host_depth = malloc((nh ? nh : 1) * sizeof *m.host_depth);
	m.donor_depth = malloc((nd ? nd : 1) * sizeof *m.donor_depth);
	m.set_joint = calloc(nh ? nh : 1, sizeof *m.set_joint);
	m.set_bone = calloc(nd ? nd : 1, sizeof *m.set_bone);
	m.owner = malloc((nd ? nd : 1) * sizeof *m.owner);
	if (!m.host_depth || !m.donor_depth || !m.set_joint || !m.set_bone || !m.owner) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto out;
	}
	for (uint32_t j = 0; j < nh; j++)
		m.host_depth[j] = port_depth(host, j);
	for (uint32_t b = 0; b < nd; b++) {
		m.donor_depth[b] = port_depth(donor, b);
		m.owner[b] = PORT_NONE;
	}
	/* The map lines first: what they give no other joint takes.  Lines
	 * past either rig are port_settings_check's to refuse. */
	for (uint32_t i = 0; i < s->nmaps; i++) {
		const struct port_map_line *ml = &s->maps[i];
		bool bone_ok = ml->bone < 0 || (uint32_t)ml->bone < nd;
		if (ml->joint >= nh || !bone_ok || m.set_joint[ml->joint] ||
		    (ml->bone >= 0 && m.set_bone[ml->bone]))
			continue;
		give(&m, ml->joint, ml->bone, ml->bone < 0 ? PORT_WHY_UNSET : PORT_WHY_SET);
		m.set_joint[ml->joint] = true;
		if (ml->bone >= 0)
			m.set_bone[ml->bone] = true;
	}
	if ((err = greedy(&m, d)))
		goto out;
	uint32_t host_lead = port_leading_origin(m.host_world, nh);
	align_origin(&m, host_lead, port_leading_origin(m.donor_world, nd));
	*hip = host_lead ? (int32_t)host_lead - 1 : PORT_NONE;
	settle(&m, map);
out:
	free(m.host_world);
	free(m.donor_world);
	free(m.host_depth);
	free(m.donor_depth);
	free(m.set_joint);
	free(m.set_bone);
	free(m.owner);
	return err;
}
