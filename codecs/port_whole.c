/* SPDX-License-Identifier: MIT */
/* A whole monster (mode own, port.h): the donor's body re-laid on the own
 * rig (port_body.h), and the checks of a whole port (port_tear.h) on what
 * was built.  Pure: no I/O, no globals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "donor.h"
#include "pac.h"
#include "pmo.h"
#include "port_body.h"
#include "port_int.h"
#include "port_tear.h"
#include "rig.h"

/* The own-mode checks, in check.txt's order. */
static const enum port_check_code WHOLE[] = {
	PORT_CHECK_STILL, PORT_CHECK_TEAR, PORT_CHECK_BONES,
	PORT_CHECK_SKIN,  PORT_CHECK_TIP,  PORT_CHECK_TEMPLATE,
};
#define NWHOLE (sizeof WHOLE / sizeof *WHOLE)

/* The host's body (member 1) into h->host_body; has_host_body false
 * when it does not decode (the checks that need it are skipped). */
static void host_body(struct port_host *h, const uint8_t *host)
{
	const struct pac_entry *e = h->pac.entries;
	h->has_host_body = h->pac.count > 1 && e[1].size &&
			   !pmo_decode(host + e[1].offset, e[1].size, NULL, 0, &h->host_body, NULL);
	if (!h->has_host_body)
		pmo_free(&h->host_body);
}

static enum mh_err donor_body(const struct donor *donor, struct pmo *p, struct mh_diag *d)
{
	struct mh_diag why = {0};
	if (!pmo_decode(donor->member[DONOR_PMO], donor->member_len[DONOR_PMO],
			donor->member[DONOR_GEOMETRY], donor->member_len[DONOR_GEOMETRY], p, &why))
		return MH_OK;
	pmo_free(p);
	return mh_fail(d, why.code == MH_ENOMEM ? MH_ENOMEM : MH_ECORRUPT, why.offset,
		       "the donor's PMO does not decode: %s", why.msg);
}

/* The tip chain: the own rig's joints from its tip root (port_tip_root:
 * the severed chain the rig keeps when the host drops its tail) down,
 * malloc'ed into *out. */
static enum mh_err tip_joints(const struct skeleton *s, int32_t **out, uint32_t *n,
			      struct mh_diag *d)
{
	int32_t root = port_tip_root(s);
	*n = 0;
	if (!(*out = malloc((s->nbones ? s->nbones : 1) * sizeof **out)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t j = 0; root >= 0 && j < s->nbones; j++) {
		uint32_t b = j, steps = 0;
		while ((int32_t)b != root && s->bones[b].parent >= 0 &&
		       (uint32_t)s->bones[b].parent < s->nbones && steps++ < s->nbones)
			b = (uint32_t)s->bones[b].parent;
		if ((int32_t)b == root)
			(*out)[(*n)++] = (int32_t)j;
	}
	return MH_OK;
}

/* Per host joint, the own joint its donor bone became (skin transfer):
 * the host-rig match (port_match) followed through the conversion. */
static enum mh_err host_to_own(const struct port_host *h, const struct skeleton *host_skel,
			       const struct donor *donor, int32_t **out, struct mh_diag *d)
{
	struct port_settings none = {.mode = PORT_MODE_HOST};
	struct port_joint *joints = calloc(host_skel->nbones ? host_skel->nbones : 1,
					   sizeof *joints);
	int32_t hip;
	*out = malloc((host_skel->nbones ? host_skel->nbones : 1) * sizeof **out);
	enum mh_err err = joints && *out ? port_match(host_skel, &donor->skel, &donor->map, &none,
						     joints, &hip, d)
					 : mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t j = 0; !err && j < host_skel->nbones; j++) {
		int32_t b = joints[j].bone;
		(*out)[j] = b >= 0 && (uint32_t)b < h->rig.ndonor ? h->rig.joint_of[b] : PORT_NONE;
	}
	free(joints);
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}

enum mh_err port_own_body(struct port_host *h, const uint8_t *host,
			  const struct donor *donor, enum port_skin skin, struct mh_diag *d)
{
	struct port_body_report rep = {0};
	int32_t *tip = NULL, *of_host = NULL;
	uint32_t ntip = 0;
	enum mh_err err = donor_body(donor, &h->donor_body, d);
	if (err)
		return err;
	host_body(h, host);
	const struct pmo *hp = h->has_host_body ? &h->host_body : NULL;
	/* A host that can drop its tail draws mesh record 1 at the cut. */
	if (hp && rig_severed_root(&h->host_skel) >= 0 && hp->h.mesh_count >= 2)
		err = tip_joints(&h->skel, &tip, &ntip, d);
	if (!err && skin == PORT_SKIN_TRANSFER)
		err = hp ? host_to_own(h, &h->host_skel, donor, &of_host, d)
			 : mh_fail(d, MH_ECORRUPT, 0, "skin transfer: the host's body "
				   "(member 1) does not decode");
	if (!err) {
		bool transfer = skin == PORT_SKIN_TRANSFER;
		struct port_body_in in = {
			.donor = &h->donor_body, .donor_rig = &donor->skel,
			.joint_of_bone = h->rig.joint_of, .port_rig = &h->skel, .skin = skin,
			.host = transfer ? hp : NULL, .host_rig = transfer ? &h->host_skel : NULL,
			.joint_of_host = of_host, .tip_joints = tip, .ntip_joints = ntip,
		};
		err = port_body(&in, &h->body, &h->body_len, &rep, d);
	}
	if (!err) {
		h->body_group = rep.donor_group;
		h->body_groups = rep.ngroups;
		rep.donor_group = NULL;
	}
	port_body_report_free(&rep);
	free(tip);
	free(of_host);
	return err;
}

static void not_checked(struct port_check *c, bool skipped, const char *why)
{
	*c = (struct port_check){.skipped = skipped, .passed = skipped, .level = RULE_ERROR};
	snprintf(c->figure, sizeof c->figure, "%s", why);
}

enum mh_err port_own_checks(const struct port_host *h, const struct donor *donor,
			    const uint8_t *pac, size_t pac_len, struct port_result *r,
			    struct mh_diag *d)
{
	struct pac built;
	struct pmo body = {0};
	struct port_tear tear = {0};
	struct mh_diag why = {0};
	if (!h->own) {
		for (size_t i = 0; i < NWHOLE; i++)
			not_checked(&r->checks[WHOLE[i]], true, "mode host: the host's own body");
		return MH_OK;
	}
	if (!pac || pac_decode(pac, pac_len, &built, &why)) {
		for (size_t i = 0; i < NWHOLE; i++)
			not_checked(&r->checks[WHOLE[i]], false, "no PAC to check");
		return MH_OK;
	}
	const struct pac_entry *e = built.entries;
	if (built.count < 2 || pmo_decode(pac + e[1].offset, e[1].size, NULL, 0, &body, &why)) {
		pmo_free(&body);
		pac_free(&built);
		for (size_t i = 0; i < NWHOLE; i++)
			not_checked(&r->checks[WHOLE[i]], false, "the port's body does not decode");
		return MH_OK;
	}
	port_still_check(&h->skel, &body, &r->checks[PORT_CHECK_STILL]);
	enum mh_err err = port_tear(&h->skel, &r->pack, &body, &tear, d);
	if (!err) {
		port_tear_check(&tear, &r->checks[PORT_CHECK_TEAR]);
		if (!(r->tear_svg = port_tear_svg(&tear, "port/tear.svg", &r->tear_svg_len)))
			err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	if (!err)
		err = port_bones_check(&donor->skel, &h->skel, NULL, &r->checks[PORT_CHECK_BONES], d);
	if (!err && r->skin == PORT_SKIN_SOURCE)
		err = port_skin_check(&h->donor_body, donor->skel.nbones, h->rig.joint_of, &body,
				      h->skel.nbones, h->body_group, &r->checks[PORT_CHECK_SKIN], d);
	else if (!err)
		not_checked(&r->checks[PORT_CHECK_SKIN], true, "skin transfer: the host's weights");
	if (!err && h->has_host_body)
		port_tip_check(&h->host_skel, &h->host_body, &h->skel, &body,
			       &r->checks[PORT_CHECK_TIP]);
	else if (!err)
		not_checked(&r->checks[PORT_CHECK_TIP], true, "the host's body does not decode");
	if (!err)
		err = port_template_check(&h->skel, &h->host_skel, &r->checks[PORT_CHECK_TEMPLATE], d);
	port_tear_free(&tear);
	pmo_free(&body);
	pac_free(&built);
	return err;
}
