/* SPDX-License-Identifier: MIT */
/* The port (port.h): the host opened, the settings checked against it,
 * then the steps of port.h's top comment in order. */
#include "port_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"

/* ---- the host -------------------------------------------------------- */

/* A member's decoder failed: the host is no model PAC (out of memory
 * stays itself). */
static enum mh_err host_refused(enum mh_err err, const char *what, const struct mh_diag *why,
				struct mh_diag *d)
{
	if (err == MH_ENOMEM)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory decoding the host's %s", what);
	return mh_fail(d, MH_ECORRUPT, 0, "the host's %s: %s", what, why->msg);
}

/* Part k's joints: a run of animated joints, or none. */
static enum mh_err find_part_runs(struct port_host *h, struct mh_diag *d)
{
	for (uint32_t j = 0; j < h->animated; j++)
		if (h->skel.bones[j].part >= h->nparts)
			return mh_fail(d, MH_ECORRUPT, 0,
				       "the host's joint %u plays part %u; its pack has parts 0..%u",
				       j, h->skel.bones[j].part, h->nparts - 1);
	for (uint32_t k = 0; k < h->nparts; k++) {
		bool any = false;
		for (uint32_t j = 0; j < h->animated && !any; j++)
			any = h->skel.bones[j].part == k;
		if (any && !rig_part_joints(&h->skel, k, &h->part_first[k], &h->part_count[k]))
			return mh_fail(d, MH_ECORRUPT, 0,
				       "the host's part %u: its joints are not one run", k);
		if (!any)
			h->part_first[k] = h->part_count[k] = 0;
	}
	return MH_OK;
}

/* Entries whose slots every part with joints has (entries.h). */
static uint32_t addressable(const struct port_host *h)
{
	for (uint32_t e = 0; e < ENTRIES_MAX; e++)
		for (uint32_t k = 0; k < h->nparts; k++) {
			uint32_t stream, slot;
			anim_mhfu_entry_slot(k, e, &stream, &slot);
			if (h->part_count[k] &&
			    (stream >= h->pack.nstreams || slot >= h->pack.streams[stream].nslots))
				return e;
		}
	return ENTRIES_MAX;
}

static void find_capacity(struct port_host *h, int em)
{
	uint32_t last = 0;
	for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
		uint32_t stream, slot;
		h->filled[e] = entries_listed(&h->pack, e);
		h->partial[e] = h->filled[e] &&
				entries_part_clip(&h->pack, e, 0, &stream, &slot) == ANIM_EMPTY;
		if (h->filled[e])
			last = e + 1;
	}
	uint32_t want = em == PORT_TIGREX_EM ? PORT_TIGREX_ENTRIES
					     : (last > PORT_ID_STREAM ? last : PORT_ID_STREAM);
	uint32_t room = addressable(h);
	h->capacity = want < room ? want : room;
}

enum mh_err port_host_open(const uint8_t *host, size_t len, int em, struct port_host *h,
			   struct mh_diag *d)
{
	*h = (struct port_host){0};
	struct mh_diag why = {0};
	enum mh_err err = pac_decode(host, len, &h->pac, &why);
	if (err)
		return host_refused(err, "PAC", &why, d);
	if (h->pac.count <= PORT_HOST_PACK) {
		err = mh_fail(d, MH_ECORRUPT, 0,
			      "the host PAC has %u members; a model PAC has its pack at member %u",
			      h->pac.count, PORT_HOST_PACK);
		goto fail;
	}
	const struct pac_entry *sk = &h->pac.entries[PORT_HOST_SKELETON];
	if ((err = skeleton_decode(host + sk->offset, sk->size, &h->skel, &why))) {
		err = host_refused(err, "skeleton (member 0)", &why, d);
		goto fail;
	}
	if (h->skel.game != SKELETON_MHFU || h->skel.nparams < 2 ||
	    !rig_animated_sound(&h->skel)) {
		err = mh_fail(d, MH_ECORRUPT, 0,
			      "the host's skeleton is no MHFU rig naming its animated joints");
		goto fail;
	}
	const struct pac_entry *pk = &h->pac.entries[PORT_HOST_PACK];
	if ((err = anim_decode(host + pk->offset, pk->size, CLIP_MHFU, &h->pack, &why))) {
		err = host_refused(err, "pack (member 3)", &why, d);
		goto fail;
	}
	if (h->pack.format != CLIP_MHFU) {
		err = mh_fail(d, MH_ECORRUPT, 0, "the host's pack (member 3) is no MHFU pack");
		goto fail;
	}
	h->animated = rig_animated(&h->skel);
	h->nparts = entries_parts(&h->pack);
	h->part_first = calloc(h->nparts ? h->nparts : 1, sizeof *h->part_first);
	h->part_count = calloc(h->nparts ? h->nparts : 1, sizeof *h->part_count);
	if (!h->part_first || !h->part_count) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto fail;
	}
	if ((err = find_part_runs(h, d)))
		goto fail;
	find_capacity(h, em);
	return MH_OK;
fail:
	port_host_free(h);
	return err;
}

void port_host_free(struct port_host *h)
{
	if (!h)
		return;
	pac_free(&h->pac);
	skeleton_free(&h->skel);
	port_rig_free(&h->rig);
	free(h->body);
	free(h->body_group);
	skeleton_free(&h->host_skel);
	pmo_free(&h->host_body);
	pmo_free(&h->donor_body);
	anim_free(&h->pack);
	free(h->part_first);
	free(h->part_count);
	*h = (struct port_host){0};
}

enum mh_err port_host_own(struct port_host *h, const struct donor *donor, int em,
			  struct mh_diag *d)
{
	struct port_rig rig;
	enum mh_err err = port_rig_from_donor(&donor->skel, port_driven_bones(&donor->map),
					      &h->skel, &rig, d);
	if (err)
		goto fail;
	h->host_skel = h->skel;
	h->skel = rig.skel;
	rig.skel = (struct skeleton){0};
	h->rig = rig;
	h->own = true;
	h->animated = rig_animated(&h->skel);
	if (rig.nparts > h->nparts) {
		err = mh_fail(d, MH_ECORRUPT, 0,
			      "the donor's rig converts into %u parts; the host's pack has "
			      "streams for %u", rig.nparts, h->nparts);
		goto fail;
	}
	if ((err = find_part_runs(h, d)))
		goto fail;
	find_capacity(h, em);
	return MH_OK;
fail:
	port_host_free(h);
	return err;
}

enum mh_err port_host_open_mode(const uint8_t *host, size_t len, int em,
				const struct donor *donor, enum port_mode mode,
				struct port_host *h, struct mh_diag *d)
{
	enum mh_err err = port_host_open(host, len, em, h, d);
	if (!err && mode == PORT_MODE_OWN && donor)
		err = port_host_own(h, donor, em, d);
	return err;
}

const struct clip *port_part_clip(const struct anim *a, uint32_t entry, uint32_t part)
{
	uint32_t stream, slot;
	int32_t k = entry < ENTRIES_MAX ? entries_part_clip(a, entry, part, &stream, &slot)
					: ANIM_EMPTY;
	return k == ANIM_EMPTY || (uint32_t)k >= a->nclips ? NULL : &a->clips[k];
}

/* ---- the donor's clips ----------------------------------------------- */

enum mh_err port_donor_clips(const struct anim *moveset, struct port_clip **out, uint32_t *n,
			     struct mh_diag *d)
{
	*out = NULL;
	*n = 0;
	uint32_t count = 0;
	for (uint32_t s = 0; s < moveset->nstreams; s++)
		for (uint32_t i = 0; i < moveset->streams[s].nslots; i++) {
			if (moveset->streams[s].slots[i] == ANIM_EMPTY)
				continue;
			if (i >= PORT_ID_STREAM)
				return mh_fail(d, MH_ECORRUPT, 0,
					       "the donor's stream %u fills slot %u: a clip id "
					       "(stream x 100 + slot) needs slots 0..99", s, i);
			count++;
		}
	if (!count)
		return MH_OK;
	struct port_clip *c = malloc(count * sizeof *c);
	if (!c)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t s = 0; s < moveset->nstreams; s++)
		for (uint32_t i = 0; i < moveset->streams[s].nslots; i++) {
			int32_t k = moveset->streams[s].slots[i];
			if (k != ANIM_EMPTY)
				c[(*n)++] = (struct port_clip){s * PORT_ID_STREAM + i,
							       &moveset->clips[k]};
		}
	*out = c;
	return MH_OK;
}

const struct clip *port_donor_clip(const struct anim *moveset, uint32_t id)
{
	uint32_t s = id / PORT_ID_STREAM, i = id % PORT_ID_STREAM;
	if (s >= moveset->nstreams || i >= moveset->streams[s].nslots)
		return NULL;
	int32_t k = moveset->streams[s].slots[i];
	return k == ANIM_EMPTY || (uint32_t)k >= moveset->nclips ? NULL : &moveset->clips[k];
}

/* ---- settings -------------------------------------------------------- */

/* A lift's location units, rounded; false when they leave the keys'. */
static bool lift_units(double lift, int32_t *units)
{
	double u = round(lift * 16.0);
	if (!isfinite(u) || u < INT16_MIN || u > INT16_MAX)
		return false;
	*units = (int32_t)u;
	return true;
}

enum mh_err port_settings_check_host(const struct port_settings *s, const struct port_host *h,
				     const struct donor *donor, struct mh_diag *d)
{
	if (s->skin_set && s->mode != PORT_MODE_OWN)
		return mh_fail_text(d, MH_ERANGE, s->skin_line, s->skin_col,
				    "skin: the donor's body is shipped in mode own only; this port "
				    "is mode host (the host's body): drop the line or set mode own");
	/* Mode own without a donor yet has no rig to measure joints by. */
	bool rig_known = s->mode == PORT_MODE_HOST || h->own;
	for (uint32_t i = 0; i < s->nmaps; i++) {
		const struct port_map_line *m = &s->maps[i];
		if (rig_known && m->joint >= h->skel.nbones)
			return mh_fail_text(d, MH_ERANGE, m->line, m->col,
					    "joint %u: the %s's joints are 0..%u", m->joint,
					    h->own ? "own rig" : "host", h->skel.nbones - 1);
		if (donor && m->bone >= 0 && (uint32_t)m->bone >= donor->skel.nbones)
			return mh_fail_text(d, MH_ERANGE, m->line, m->col,
					    "bone %d: the donor's bones are 0..%u, or -",
					    (int)m->bone, donor->skel.nbones - 1);
	}
	for (uint32_t i = 0; i < s->npins; i++) {
		const struct port_pin *p = &s->pins[i];
		if (donor && !port_donor_clip(&donor->moveset, p->clip))
			return mh_fail_text(d, MH_ERANGE, p->line, p->col,
					    "clip %u: the donor has no such clip (ids are stream "
					    "x 100 + slot of its filled slots)", p->clip);
		if (p->entry >= h->capacity)
			return mh_fail_text(d, MH_ERANGE, p->line, p->col,
					    "entry %u: the host's entries are 0..%u", p->entry,
					    h->capacity - 1);
		if (h->partial[p->entry])
			return mh_fail_text(d, MH_ERANGE, p->line, p->col,
					    "entry %u is partial (the host plays it on some parts "
					    "only): pin to another of 0..%u", p->entry,
					    h->capacity - 1);
	}
	int32_t units;
	if (s->lift_set && !lift_units(s->lift, &units))
		return mh_fail_text(d, MH_ERANGE, s->lift_line, s->lift_col,
				    "lift %g: the location keys take -2048..2047.9375 "
				    "(16 units each)", s->lift);
	return MH_OK;
}

enum mh_err port_settings_check(const struct port_settings *s, const uint8_t *host,
				size_t host_len, int host_em, const struct donor *donor,
				struct mh_diag *d)
{
	struct port_host h;
	enum mh_err err = port_host_open_mode(host, host_len, host_em, donor, s->mode, &h, d);
	if (err)
		return err;
	err = port_settings_check_host(s, &h, donor, d);
	port_host_free(&h);
	return err;
}

/* ---- the port -------------------------------------------------------- */

static enum mh_err copy_skeleton(struct skeleton *to, const struct skeleton *from,
				 struct mh_diag *d)
{
	*to = *from;
	to->bones = malloc((from->nbones ? from->nbones : 1) * sizeof *to->bones);
	to->tail = from->tail_len ? malloc(from->tail_len) : NULL;
	if (!to->bones || (from->tail_len && !to->tail)) {
		free(to->bones);
		free(to->tail);
		*to = (struct skeleton){0};
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	memcpy(to->bones, from->bones, from->nbones * sizeof *to->bones);
	if (from->tail_len)
		memcpy(to->tail, from->tail, from->tail_len);
	return MH_OK;
}

/* Mode own keeps none of the host's clips: every slot emptied, and the
 * places of entries no donor clip fills say so (a partial entry stays
 * partial: the host's brain plays it on some parts, so no whole-rig clip
 * goes there). */
static enum mh_err own_leftovers(struct port_result *r, struct mh_diag *d)
{
	for (uint32_t st = 0; st < r->pack.nstreams; st++)
		for (uint32_t i = 0; i < r->pack.streams[st].nslots; i++)
			r->pack.streams[st].slots[i] = ANIM_EMPTY;
	for (uint32_t i = 0; i < r->nplaces; i++) {
		struct port_place *p = &r->places[i];
		if (p->entry < 0 || p->clip >= 0)
			continue;
		p->how = p->how == PORT_HOW_PARTIAL ? PORT_HOW_PARTIAL : PORT_HOW_EMPTY;
		p->frames = 0;
		p->loop = false;
		p->loop_start = 0;
	}
	return anim_compact(&r->pack, d);
}

/* Steps 3 and 5 for one placed clip: its whole-rig clip split into the
 * parts' slots of its entry. */
static enum mh_err put_clip(struct port_result *r, const struct port_host *h,
			    const struct port_place *p, const struct clip *donor_clip,
			    int32_t lift, struct mh_diag *d)
{
	struct clip whole = {0};
	enum mh_err err = port_whole_clip(donor_clip, r->joints, h->animated, r->pelvis, lift,
					  &whole, d);
	int32_t root = h->own ? port_travel_root(&h->skel) : PORT_NONE;
	if (!err && h->own && root < 0)
		r->uncarried++;
	if (!err && root >= 0) {
		enum port_carry carry = port_carry_travel(&whole, (uint32_t)root, d);
		if (carry == PORT_CARRY_FAILED)
			err = MH_ENOMEM;
		else if (carry == PORT_CARRIED)
			r->carried++;
		else
			r->uncarried++;
	}
	for (uint32_t k = 0; !err && k < h->nparts; k++) {
		if (!h->part_count[k])
			continue;
		struct clip part = {0};
		uint32_t stream, slot;
		anim_mhfu_entry_slot(k, (uint32_t)p->entry, &stream, &slot);
		if ((err = port_part_of(&whole, h, k, &part, d)))
			break;
		int32_t at = anim_add_clip(&r->pack, &part);
		if (at < 0) {
			clip_free(&part);
			err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
			break;
		}
		err = anim_set_slot(&r->pack, stream, slot, at, d);
	}
	clip_free(&whole);
	return err;
}

static enum mh_err run(const uint8_t *host, size_t host_len, struct port_host *h,
		       const struct donor *donor, const struct port_settings *s,
		       struct port_result *r, struct mh_diag *d)
{
	struct port_clip *clips = NULL;
	uint32_t nclips = 0;
	int32_t lift = 0;
	uint8_t *pac = NULL;
	size_t pac_len = 0;
	enum mh_err err = port_donor_clips(&donor->moveset, &clips, &nclips, d);
	if (err)
		return err;
	r->njoints = h->skel.nbones;
	r->joints = calloc(r->njoints ? r->njoints : 1, sizeof *r->joints);
	if (!r->joints) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto out;
	}
	err = h->own ? port_own_joints(&h->rig, &h->skel, &donor->skel, &donor->map, s, r->joints, &r->hip, d)
		     : port_match(&h->skel, &donor->skel, &donor->map, s, r->joints, &r->hip, d);
	if (err || (h->own && (err = copy_skeleton(&r->rig, &h->skel, d))))
		goto out;
	r->pad = h->rig.pad;
	r->pelvis = port_pelvis(&h->skel, h->animated, r->joints, clips, nclips);
	if (s->lift_set)
		lift_units(s->lift, &lift);
	r->capacity = h->capacity;
	if ((err = port_layout(h, clips, nclips, s, &r->places, &r->nplaces, d)))
		goto out;
	/* The host's pack is the new one's start: in mode host what no donor
	 * clip replaces stays the host's; in mode own its clips would play
	 * another rig, so only its streams stay. */
	r->pack = h->pack;
	h->pack = (struct anim){0};
	if (h->own && (err = own_leftovers(r, d)))
		goto out;
	for (uint32_t i = 0; i < r->nplaces && !err; i++)
		if (port_place_donor(&r->places[i]))
			err = put_clip(r, h, &r->places[i],
				       port_donor_clip(&donor->moveset, (uint32_t)r->places[i].clip),
				       lift, d);
	if (err || (err = anim_compact(&r->pack, d)))
		goto out;
	if ((err = port_verify_host(host, host_len, h, donor, r, &pac, &pac_len, d)))
		goto out;
	bool passed = true;
	for (int c = 0; c < PORT_CHECKS; c++)
		passed &= r->checks[c].passed || r->checks[c].level != RULE_ERROR;
	if (passed) {
		r->pac = pac;
		r->pac_len = pac_len;
	} else {
		free(pac);
	}
out:
	free(clips);
	return err;
}

enum mh_err port_run(const uint8_t *host, size_t host_len, int host_em,
		     const struct donor *donor, const struct port_settings *s,
		     struct port_result *r, struct mh_diag *d)
{
	*r = (struct port_result){.hip = PORT_NONE, .pelvis = PORT_NONE, .mode = s->mode,
				  .skin = s->skin};
	struct port_host h;
	enum mh_err err = port_host_open_mode(host, host_len, host_em, donor, s->mode, &h, d);
	if (err)
		return err;
	if (!(err = port_settings_check_host(s, &h, donor, d)) &&
	    !(h.own && (err = port_own_body(&h, host, donor, s->skin, d))))
		err = run(host, host_len, &h, donor, s, r, d);
	port_host_free(&h);
	if (err)
		port_result_free(r);
	return err;
}

void port_result_free(struct port_result *r)
{
	if (!r)
		return;
	free(r->joints);
	free(r->places);
	skeleton_free(&r->rig);
	rules_report_free(&r->rules);
	anim_free(&r->pack);
	free(r->pac);
	free(r->tear_svg);
	*r = (struct port_result){.hip = PORT_NONE, .pelvis = PORT_NONE};
}
