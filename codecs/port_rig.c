/* SPDX-License-Identifier: MIT */
/* The own rig (port.h "mode own"): the donor's MHP3rd skeleton converted
 * into the MHFU skeleton a mode-own port ships.  MHFU plays a monster's
 * animated joints part by part, each part a run of joints, so the
 * donor's bones are reordered into runs read off its tree: the body, the
 * head and the tail. */
#include "port_int.h"
#include "rig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The largest share of the animated joints a head or a tail may take. */
#define APPENDAGE_SHARE 0.4

uint32_t port_driven_bones(const struct records *map)
{
	uint32_t driven = 0;
	for (uint32_t r = 0; r < map->nrecords; r++)
		if (map->bone[r] >= 0 && (uint32_t)map->bone[r] + 1 > driven)
			driven = (uint32_t)map->bone[r] + 1;
	return driven;
}

int32_t port_record_of(const struct records *map, int32_t bone)
{
	for (uint32_t r = 0; bone >= 0 && r < map->nrecords; r++)
		if (map->bone[r] == bone)
			return (int32_t)r;
	return PORT_NONE;
}

/* ---- the partition ---------------------------------------------------- */

struct tree {
	const int32_t *parents;
	const double *world;
	uint32_t n, animated, limit;
	bool *in;       /* scratch: a subtree's members */
	bool *taken;    /* the tail, while the head is picked */
};

/* Marks root's subtree in t->in (parents come before their bones, so one
 * pass finds it); returns its size and its largest bone in *last. */
static uint32_t subtree(const struct tree *t, uint32_t root, bool *in, uint32_t *last)
{
	uint32_t size = 0;
	memset(in, 0, t->n * sizeof *in);
	in[root] = true;
	for (uint32_t i = root; i < t->n; i++) {
		if (i != root)
			in[i] = t->parents[i] >= 0 && in[t->parents[i]];
		if (in[i]) {
			size++;
			*last = i;
		}
	}
	return size;
}

static bool meets_taken(const struct tree *t, const bool *in)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (in[i] && t->taken[i])
			return true;
	return false;
}

/* The largest whole subtree above `leaf` that fits the limit, holds no
 * joint past the animated ones and misses the taken: from the leaf up
 * while the parent's subtree does (never up to joint 0: the body's root).
 * A part cut out of a subtree would leave its children ahead of it.  Its
 * size, the subtree in out (all false: none). */
static uint32_t appendage(const struct tree *t, uint32_t leaf, bool *out)
{
	uint32_t last = 0, size = subtree(t, leaf, out, &last);
	if (size > t->limit || last >= t->animated) {
		memset(out, 0, t->n * sizeof *out);
		return 0;
	}
	for (uint32_t at = leaf; t->parents[at] > 0;) {
		uint32_t up_last = 0, up = subtree(t, (uint32_t)t->parents[at], t->in, &up_last);
		if (up > t->limit || up_last >= t->animated || meets_taken(t, t->in))
			break;
		at = (uint32_t)t->parents[at];
		memcpy(out, t->in, t->n * sizeof *out);
		size = up;
	}
	return size;
}

/* The extreme z over the marked bones: the largest for the head, the
 * smallest for the tail. */
static bool beyond(double z, double than, bool head)
{
	return head ? z > than : z < than;
}

/* The part at one end of the body: the head at +Z, the tail at -Z.  From
 * the most extreme animated joint (the first on ties); when only that
 * joint fits, the whole subtree of 2..limit joints reaching furthest. */
static uint32_t pick(const struct tree *t, bool head, bool *out, bool *scratch)
{
	int32_t extreme = -1;
	for (uint32_t i = 0; i < t->animated; i++)
		if (!t->taken[i] && (extreme < 0 || beyond(t->world[3 * i + 2],
							  t->world[3 * extreme + 2], head)))
			extreme = (int32_t)i;
	memset(out, 0, t->n * sizeof *out);
	if (extreme < 0)
		return 0;
	uint32_t size = appendage(t, (uint32_t)extreme, out);
	if (size >= 2)
		return size;
	bool found = false;
	double reach = 0;
	for (uint32_t a = 1; a < t->animated; a++) {
		uint32_t last = 0, n = t->parents[a] >= 0 ? subtree(t, a, scratch, &last) : 0;
		if (n < 2 || n > t->limit || last >= t->animated || meets_taken(t, scratch))
			continue;
		bool any = false;
		double far = 0;
		for (uint32_t i = 0; i < t->n; i++)
			if (scratch[i] && (!any || beyond(t->world[3 * i + 2], far, head))) {
				far = t->world[3 * i + 2];
				any = true;
			}
		if (!found || beyond(far, reach, head)) {
			found = true;
			reach = far;
			size = n;
			memcpy(out, scratch, t->n * sizeof *out);
		}
	}
	return size;
}

enum mh_err port_rig_partition(const int32_t *parents, const double *world, uint32_t n,
			       uint32_t animated, uint32_t *order,
			       uint32_t counts[PORT_RIG_PARTS], uint32_t *nparts, int32_t *head,
			       int32_t *tail, struct mh_diag *d)
{
	animated = animated < n ? animated : n;
	*head = *tail = PORT_NONE;
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	*nparts = 1;
	counts[0] = animated ? animated : n;
	if (animated < 3)
		return MH_OK;
	uint32_t limit = (uint32_t)(animated * APPENDAGE_SHARE);
	struct tree t = {parents, world, n, animated, limit ? limit : 1, NULL, NULL};
	bool *buf = calloc(5 * (size_t)n, sizeof *buf);
	if (!buf)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	bool *tail_in = buf, *head_in = buf + n, *scratch = buf + 2 * n;
	t.in = buf + 3 * n;
	t.taken = buf + 4 * n; /* nothing yet */
	uint32_t tails = pick(&t, false, tail_in, scratch);
	memcpy(t.taken, tail_in, n * sizeof *t.taken);
	uint32_t heads = pick(&t, true, head_in, scratch);
	if (meets_taken(&t, head_in) || heads + tails >= animated) {
		memset(head_in, 0, n * sizeof *head_in);
		heads = 0;
	}
	uint32_t at = 0;
	for (uint32_t i = 0; i < animated; i++)
		if (!head_in[i] && !tail_in[i])
			order[at++] = i;
	if (at) {
		counts[0] = at;
		for (int which = 0; which < 2; which++) {
			const bool *in = which ? tail_in : head_in;
			uint32_t size = which ? tails : heads;
			if (!size)
				continue;
			*(which ? tail : head) = (int32_t)*nparts;
			counts[(*nparts)++] = size;
			for (uint32_t i = 0; i < animated; i++)
				if (in[i])
					order[at++] = i;
		}
	} else { /* no body: the rig as it is, one part */
		for (uint32_t i = 0; i < n; i++)
			order[i] = i;
	}
	free(buf);
	return MH_OK;
}

/* ---- the conversion ----------------------------------------------------- */

void port_rig_free(struct port_rig *rig)
{
	if (!rig)
		return;
	skeleton_free(&rig->skel);
	free(rig->joint_of);
	free(rig->bone_of);
	free(rig->adopted);
	*rig = (struct port_rig){.head_part = PORT_NONE, .tail_part = PORT_NONE};
}

/* The donor's parents, orphan roots adopted: every root past bone 0 onto
 * PORT_ADOPTER (bone 1 itself onto 0), so a chain moves with the body (a
 * donor's origin sits at its hip, and the chain would float); but when
 * the host drops its tail (keep_severed), a root past the animated bones
 * stays one: the severed chain is the tip the engine draws at the cut
 * (port_body's mesh record 1), as the host's own is. */
static enum mh_err adopt(const struct skeleton *donor, uint32_t animated, bool keep_severed,
			 int32_t *parents, struct port_rig *rig, struct mh_diag *d)
{
	uint32_t n = donor->nbones;
	for (uint32_t i = 0; i < n; i++) {
		parents[i] = donor->bones[i].parent;
		if (parents[i] >= (int32_t)i)
			return mh_fail(d, MH_ECORRUPT, 0,
				       "the donor's bone %u has parent %d: a parent must come "
				       "before its bones", i, (int)parents[i]);
		if (i && parents[i] < 0 && !(keep_severed && i >= animated))
			rig->nadopted++;
	}
	if (!rig->nadopted)
		return MH_OK;
	rig->adopted = malloc(rig->nadopted * sizeof *rig->adopted);
	if (!rig->adopted)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t i = 1, k = 0; i < n; i++)
		if (parents[i] < 0 && !(keep_severed && i >= animated)) {
			rig->adopted[k++] = i;
			parents[i] = i == PORT_ADOPTER ? 0 : (int32_t)PORT_ADOPTER;
		}
	return MH_OK;
}

/* Bind-world positions of bones with `parents` (each before its bone). */
static void world_of(const struct skeleton *s, const int32_t *parents, double *world)
{
	for (uint32_t i = 0; i < s->nbones; i++)
		for (int k = 0; k < 3; k++)
			world[3 * i + k] = s->bones[i].position[k] +
					   (parents[i] >= 0 ? world[3 * parents[i] + k] : 0);
}

/* The converted skeleton's bones from the donor's in `order`, behind the
 * pad: shape and kind kept (a kind-2 link renumbered, or dropped to kind
 * 1 when its bone no longer comes earlier), parents, links and parts
 * rebuilt, the MHP3rd name dropped (MHFU's rest area is zeros). */
static void lay_out(const struct skeleton *donor, const int32_t *parents, const uint32_t *order,
		    struct port_rig *rig)
{
	struct skeleton *s = &rig->skel;
	uint32_t pad = rig->pad;
	for (uint32_t j = 0; j < pad; j++)
		s->bones[j].parent = (int32_t)j - 1;
	for (uint32_t k = 0; k < rig->ndonor; k++) {
		uint32_t j = pad + k, old = order[k];
		const struct skeleton_bone *from = &donor->bones[old];
		struct skeleton_bone *to = &s->bones[j];
		memcpy(to->scale, from->scale, sizeof to->scale);
		memcpy(to->rotation, from->rotation, sizeof to->rotation);
		memcpy(to->position, from->position, sizeof to->position);
		/* The donor's root hangs off the pad; a severed root stays one. */
		to->parent = parents[old] >= 0 ? rig->joint_of[parents[old]]
			     : old == 0 ? (int32_t)pad - 1 : -1;
		int32_t link = from->kind == 2 && from->link >= 0 && (uint32_t)from->link < rig->ndonor
				       ? rig->joint_of[from->link]
				       : -1;
		to->kind = from->kind == 2 ? (link >= 0 && link < (int32_t)j ? 2u : 1u) : from->kind;
		to->link = to->kind == 2 ? link : -1;
	}
	uint32_t j = 0;
	for (uint32_t p = 0; p < rig->nparts; p++)
		for (uint32_t c = 0; c < rig->part_count[p]; c++)
			s->bones[j++].part = p;
	for (; j < s->nbones; j++) /* past the animated: one more part, as natives */
		s->bones[j].part = rig->nparts;
	skeleton_link(s, false);
	skeleton_set_params(s, 2, (const uint32_t[]){0, rig->animated});
}

enum mh_err port_rig_from_donor(const struct skeleton *donor, uint32_t animated,
				const struct skeleton *host, struct port_rig *rig,
				struct mh_diag *d)
{
	*rig = (struct port_rig){.head_part = PORT_NONE, .tail_part = PORT_NONE};
	uint32_t n = donor->nbones;
	if (!n)
		return mh_fail(d, MH_ECORRUPT, 0, "the donor's skeleton has no bones");
	if (!animated || animated > n)
		animated = n;
	int32_t *parents = malloc(n * sizeof *parents);
	uint32_t *order = malloc(n * sizeof *order);
	double *world = malloc(3 * (size_t)n * sizeof *world), *host_world = NULL;
	rig->joint_of = malloc(n * sizeof *rig->joint_of);
	enum mh_err err = MH_OK;
	if (!parents || !order || !world || !rig->joint_of) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto out;
	}
	rig->ndonor = n;
	rig->donor_animated = animated;
	if ((err = adopt(donor, animated, rig_severed_root(host) >= 0, parents, rig, d)) ||
	    (err = port_bind_of(host, "host", &host_world, d)))
		goto out;
	world_of(donor, parents, world);
	uint32_t host_lead = port_leading_origin(host_world, host->nbones);
	uint32_t donor_lead = port_leading_origin(world, n);
	rig->pad = host_lead > donor_lead ? host_lead - donor_lead : 0;
	if ((err = port_rig_partition(parents, world, n, animated, order, rig->part_count,
				      &rig->nparts, &rig->head_part, &rig->tail_part, d)))
		goto out;
	rig->part_count[0] += rig->pad;
	rig->animated = animated + rig->pad;
	rig->njoints = n + rig->pad;
	if (rig->njoints > SKELETON_MAX_BONES) {
		err = mh_fail(d, MH_ECORRUPT, 0, "the donor's %u bones and %u pad joints are "
			      "more than a skeleton holds", n, rig->pad);
		goto out;
	}
	rig->bone_of = malloc(rig->njoints * sizeof *rig->bone_of);
	if (!rig->bone_of || (err = skeleton_init(&rig->skel, SKELETON_MHFU, rig->njoints, d))) {
		err = err ? err : mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto out;
	}
	for (uint32_t j = 0; j < rig->pad; j++)
		rig->bone_of[j] = PORT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		rig->joint_of[order[k]] = (int32_t)(rig->pad + k);
		rig->bone_of[rig->pad + k] = (int32_t)order[k];
	}
	lay_out(donor, parents, order, rig);
out:
	free(parents);
	free(order);
	free(world);
	free(host_world);
	if (err)
		port_rig_free(rig);
	return err;
}

/* ---- the joints' donor bones -------------------------------------------- */

enum mh_err port_own_joints(const struct port_rig *rig, const struct skeleton *own,
			    const struct skeleton *donor,
			    const struct records *map, const struct port_settings *s,
			    struct port_joint *joints, int32_t *hip, struct mh_diag *d)
{
	double *own_world = NULL, *donor_world = NULL;
	enum mh_err err = port_bind_of(own, "own rig", &own_world, d);
	if (!err)
		err = port_bind_of(donor, "donor", &donor_world, d);
	if (err)
		goto out;
	uint32_t lead = port_leading_origin(own_world, rig->njoints);
	*hip = lead ? (int32_t)lead - 1 : PORT_NONE;
	for (uint32_t j = 0; j < rig->njoints; j++) {
		struct port_joint *pj = &joints[j];
		*pj = (struct port_joint){.bone = rig->bone_of[j], .record = PORT_NONE,
					  .why = rig->bone_of[j] < 0 ? PORT_WHY_PAD : PORT_WHY_OWN};
		/* A map line gives a joint another bone's record (or none);
		 * lines past either rig are port_settings_check's to refuse. */
		for (uint32_t i = 0; i < s->nmaps; i++) {
			const struct port_map_line *ml = &s->maps[i];
			if (ml->joint != j || (ml->bone >= 0 && (uint32_t)ml->bone >= donor->nbones))
				continue;
			pj->bone = ml->bone;
			pj->why = ml->bone < 0 ? PORT_WHY_UNSET : PORT_WHY_SET;
		}
		if (pj->bone >= 0) {
			const double *a = &own_world[3 * j], *b = &donor_world[3 * pj->bone];
			pj->distance = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
					    (a[2] - b[2]) * (a[2] - b[2]));
			pj->depth_gap = port_depth(donor, (uint32_t)pj->bone) - port_depth(own, j);
			pj->record = port_record_of(map, pj->bone);
			if (pj->record < 0)
				pj->why = PORT_WHY_NO_RECORD;
		}
		if (j >= rig->animated)
			pj->why = PORT_WHY_NOT_ANIMATED;
	}
out:
	free(own_world);
	free(donor_world);
	return err;
}
