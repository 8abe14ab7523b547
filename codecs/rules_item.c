/* SPDX-License-Identifier: MIT */
/* Engine rules over an item's bytes (rules.h rules_check_item): a
 * skeleton, a pack, or a PAC of them checked member by member against its
 * own skeleton, a whole model PAC that carries its own rig and pack
 * taken for a port (its TEMPLATE violations warnings), and what the game
 * loads still decoding after the edit (UNDECODABLE). */
#include "rules.h"

#include <stdio.h>
#include <string.h>

#include "kind.h"
#include "pac.h"
#include "pacpath.h"
#include "pmo.h"
#include "tmh.h"
#include "names.h"

/* Whether a decode succeeded; one that ran out of memory fails the
 * report. */
static bool decoded(enum mh_err err, struct rule_report *r)
{
	if (err == MH_ENOMEM)
		r->failed = true;
	return err == MH_OK;
}

/* What the game loads a member of kind k as, in words; NULL for the
 * kinds no rule keeps decoding (data, hit boxes, overlays...). */
static const char *loaded_as(enum kind k)
{
	switch (k) {
	case KIND_SKELETON: return "a skeleton";
	case KIND_ANIM: return "an animation pack";
	case KIND_PMO: return "a PMO";
	case KIND_TMH: return "a texture bank";
	default: return NULL;
	}
}

/* Whether buf[0..len) decodes as kind k (d: why not).  A PMO whose
 * geometry is in the next entry (mhfu-archive(5) "PMO"), which an item's
 * bytes do not hold, is taken for one while it starts with its magic. */
static bool decodes_as(const uint8_t *buf, size_t len, enum kind k, struct mh_diag *d,
		       struct rule_report *r)
{
	enum mh_err err = MH_OK;
	*d = (struct mh_diag){0};
	switch (k) {
	case KIND_SKELETON: {
		struct skeleton s;
		if (!(err = skeleton_decode(buf, len, &s, d)))
			skeleton_free(&s);
		break;
	}
	case KIND_ANIM: {
		struct anim a;
		if (!(err = anim_decode(buf, len, CLIP_NONE, &a, d)))
			anim_free(&a);
		break;
	}
	case KIND_TMH: {
		struct tmh t;
		err = tmh_decode(buf, len, &t, d);
		tmh_free(&t);
		break;
	}
	case KIND_PAC: {
		struct pac p;
		if (!(err = pac_decode(buf, len, &p, d)))
			pac_free(&p);
		break;
	}
	case KIND_PMO: {
		struct pmo p;
		if (kind_of(buf, len) != KIND_PMO) {
			err = mh_fail(d, MH_EUNKNOWN, 0, "no \"pmo\" magic");
			break;
		}
		if (pmo_needs_companion(buf, len))
			break;
		err = pmo_decode_structure(buf, len, NULL, 0, &p, d);
		pmo_free(&p);
		break;
	}
	default:
		break;
	}
	return decoded(err, r);
}

static void name_member(struct rule_report *r, size_t from, uint32_t index, enum kind k);

/* UNDECODABLE for what the game loads in buf[0..len) (before the edit),
 * now gone: the thing itself, or a PAC's loaded members, recursively;
 * why: the PAC around it that no longer decodes, NULL if none. */
static void report_gone(const uint8_t *buf, size_t len, const struct mh_diag *why,
			struct rule_report *r)
{
	struct mh_diag d;
	enum kind k = kind_of(buf, len);
	struct pac pac;
	if (k == KIND_PAC && decoded(pac_decode(buf, len, &pac, NULL), r)) {
		for (uint32_t i = 0; i < pac.count && !r->failed; i++) {
			const struct pac_entry *m = &pac.entries[i];
			size_t at = r->n;
			if (!m->size)
				continue;
			report_gone(buf + m->offset, m->size, why, r);
			name_member(r, at, i, kind_of(buf + m->offset, m->size));
		}
		pac_free(&pac);
	} else if (loaded_as(k) && decodes_as(buf, len, k, &d, r)) {
		rules_report_undecodable(r, loaded_as(k), true, why);
	}
}

/* What the rules' own checks found decoding the new bytes as their kind
 * (so that UNDECODABLE decodes nothing twice). */
struct decoding {
	enum kind kind;      /* the kind they were decoded as */
	bool ok;
	struct mh_diag why;  /* !ok: the decoder's diagnostic */
};

/* UNDECODABLE at the item: what the game loaded from `before` there
 * still decodes as its kind; a PAC's members are compared one by one
 * (check_pac_item) once the PAC itself decodes.  `now` (may be NULL):
 * what decoding the new bytes gave already. */
static void check_still_decodes(const uint8_t *item, size_t len, const uint8_t *before,
				size_t before_len, const struct decoding *now,
				struct rule_report *r)
{
	struct mh_diag was_ok, why;
	enum kind was = kind_of(before, before_len);
	if (len == before_len && !memcmp(item, before, len))
		return; /* a member the edit left alone decodes as it did */
	if (was != KIND_PAC && !loaded_as(was))
		return;
	bool ok = now && now->kind == was ? now->ok : decodes_as(item, len, was, &why, r);
	if (now && now->kind == was)
		why = now->why;
	if (ok || !decodes_as(before, before_len, was, &was_ok, r))
		return;
	if (was == KIND_PAC)
		report_gone(before, before_len, &why, r);
	else
		rules_report_undecodable(r, loaded_as(was), false, &why);
}

/* Each check_*_item decodes the item as its kind and, when it decodes,
 * checks it; what decoding gave goes to *now. */
static void check_skeleton_item(const uint8_t *item, size_t len,
				const uint8_t *before, size_t before_len,
				struct decoding *now, struct rule_report *r)
{
	struct skeleton s, old;
	bool have_old = before && decoded(skeleton_decode(before, before_len, &old, NULL), r);
	if ((now->ok = decoded(skeleton_decode(item, len, &s, &now->why), r))) {
		rules_check_skeleton(&s, have_old ? &old : NULL, r);
		skeleton_free(&s);
	}
	if (have_old)
		skeleton_free(&old);
}

/* A PMO: its palette against the skeleton beside it, its groups' draws.
 * One whose geometry is in the next entry is not checked here. */
static void check_pmo_item(const uint8_t *item, size_t len, const struct skeleton *rig,
			   struct decoding *now, struct rule_report *r)
{
	struct pmo p;
	if (pmo_needs_companion(item, len)) {
		now->kind = KIND_DATA; /* UNDECODABLE decodes it as it can */
		return;
	}
	if ((now->ok = decoded(pmo_decode_structure(item, len, NULL, 0, &p, &now->why), r)))
		rules_check_pmo(&p, rig, r);
	pmo_free(&p);
}

static void check_pack_item(const uint8_t *item, size_t len, const struct skeleton *rig,
			    struct decoding *now, struct rule_report *r)
{
	struct anim a;
	if ((now->ok = decoded(anim_decode(item, len, CLIP_NONE, &a, &now->why), r))) {
		rules_check_pack(&a, rig, r);
		anim_free(&a);
	}
}

/* Names the member of violations [from, r->n): member `index` of kind k
 * of a PAC, ahead of the member a nested PAC's walk named. */
static void name_member(struct rule_report *r, size_t from, uint32_t index, enum kind k)
{
	char folder[16];
	size_t prefix = (size_t)snprintf(folder, sizeof folder, "%u/", index);
	for (size_t i = from; i < r->n; i++) {
		char *member = r->v[i].member;
		size_t size = sizeof r->v[i].member, keep = strlen(member);
		if (k != KIND_PAC) {
			names_member(index, k, member, size);
			continue;
		}
		if (prefix + keep >= size)
			keep = size - 1 - prefix; /* cut short, as names are */
		memmove(member + prefix, member, keep);
		memcpy(member, folder, prefix);
		member[prefix + keep] = '\0';
	}
}

/* What a port may break: TEMPLATE, and UNDECODABLE for a member it no
 * longer has (not one it has that does not decode). */
static bool port_may_break(const struct rule_violation *v)
{
	return v->code == RULE_TEMPLATE || (v->code == RULE_UNDECODABLE && v->gone);
}

/* A port: the PAC's violations [from, r->n) hold no error but what a
 * port may break, and it carries its own skeleton and a pack.  Those of
 * its own members then become warnings (rules_table). */
static void allow_port(struct rule_report *r, size_t from, bool has_pack)
{
	for (size_t i = from; i < r->n; i++)
		if (!has_pack || (r->v[i].level == RULE_ERROR && !port_may_break(&r->v[i])))
			return;
	for (size_t i = from; i < r->n; i++) {
		struct rule_violation *v = &r->v[i];
		if (!port_may_break(v) || strchr(v->member, '/'))
			continue;
		v->level = RULE_WARNING;
		size_t used = strlen(v->msg);
		snprintf(v->msg + used, sizeof v->msg - used, " (a port: the PAC "
			 "carries its own skeleton and pack, and they agree)");
	}
}

static void check_pac_item(const uint8_t *item, size_t len, const uint8_t *before,
			   size_t before_len, const struct skeleton *rig,
			   bool whole_model, struct decoding *now, struct rule_report *r)
{
	struct pac pac, old;
	struct skeleton own;
	bool have_own = false, has_pack = false;
	size_t from = r->n;
	decoded(pacpath_first_skeleton(item, len, &own, &have_own, NULL), r);
	bool have_old = before && decoded(pac_decode(before, before_len, &old, NULL), r);
	if ((now->ok = decoded(pac_decode(item, len, &pac, &now->why), r))) {
		for (uint32_t i = 0; i < pac.count && !r->failed; i++) {
			const struct pac_entry *m = &pac.entries[i];
			bool same = have_old && i < old.count && old.entries[i].size;
			size_t at = r->n;
			if (!m->size)
				continue;
			enum kind k = kind_of(item + m->offset, m->size);
			has_pack |= k == KIND_ANIM;
			rules_check_item(item + m->offset, m->size,
					 same ? before + old.entries[i].offset : NULL,
					 same ? old.entries[i].size : 0,
					 have_own ? &own : rig, whole_model, r);
			name_member(r, at, i, k);
		}
		/* Members that were there and are no longer. */
		for (uint32_t i = 0; have_old && i < old.count && !r->failed; i++) {
			const struct pac_entry *m = &old.entries[i];
			size_t at = r->n;
			if (!m->size || (i < pac.count && pac.entries[i].size))
				continue;
			report_gone(before + m->offset, m->size, NULL, r);
			name_member(r, at, i, kind_of(before + m->offset, m->size));
		}
		pac_free(&pac);
	}
	if (whole_model && have_own)
		allow_port(r, from, has_pack);
	if (have_old)
		pac_free(&old);
	if (have_own)
		skeleton_free(&own);
}

enum mh_err rules_check_item(const uint8_t *item, size_t len,
			     const uint8_t *before, size_t before_len,
			     const struct skeleton *rig, bool whole_model,
			     struct rule_report *r)
{
	struct decoding now = {.kind = kind_of(item, len)};
	bool checked = true;
	switch (now.kind) {
	case KIND_SKELETON:
		check_skeleton_item(item, len, before, before_len, &now, r);
		break;
	case KIND_ANIM:
		check_pack_item(item, len, rig, &now, r);
		break;
	case KIND_PAC:
		check_pac_item(item, len, before, before_len, rig, whole_model, &now, r);
		break;
	case KIND_PMO:
		check_pmo_item(item, len, rig, &now, r);
		break;
	default:
		checked = false;
		break;
	}
	if (before)
		check_still_decodes(item, len, before, before_len, checked ? &now : NULL, r);
	return r->failed ? MH_ENOMEM : MH_OK;
}
