/* Engine rules over an item's bytes (rules.h rules_check_item): a
 * skeleton, a pack, or a PAC of them checked member by member against its
 * own skeleton, and a whole model PAC that carries its own rig and pack
 * taken for a port (its TEMPLATE violations warnings). */
#include "rules.h"

#include <stdio.h>
#include <string.h>

#include "kind.h"
#include "pac.h"
#include "pacpath.h"
#include "views.h"

/* Whether a decode succeeded; one that ran out of memory fails the
 * report. */
static bool decoded(enum mh_err err, struct rule_report *r)
{
	if (err == MH_ENOMEM)
		r->failed = true;
	return err == MH_OK;
}

static void check_skeleton_item(const uint8_t *item, size_t len,
				const uint8_t *before, size_t before_len,
				struct rule_report *r)
{
	struct skeleton s, old;
	bool have_old = before && decoded(skeleton_decode(before, before_len, &old, NULL), r);
	if (decoded(skeleton_decode(item, len, &s, NULL), r)) {
		rules_check_skeleton(&s, have_old ? &old : NULL, r);
		skeleton_free(&s);
	}
	if (have_old)
		skeleton_free(&old);
}

static void check_pack_item(const uint8_t *item, size_t len,
			    const struct skeleton *rig, struct rule_report *r)
{
	struct anim a;
	if (decoded(anim_decode(item, len, CLIP_NONE, &a, NULL), r)) {
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
			views_member_name(index, k, member, size);
			continue;
		}
		if (prefix + keep >= size)
			keep = size - 1 - prefix; /* cut short, as names are */
		memmove(member + prefix, member, keep);
		memcpy(member, folder, prefix);
		member[prefix + keep] = '\0';
	}
}

/* A port: the PAC's violations [from, r->n) hold no error but TEMPLATE,
 * and it carries its own skeleton and a pack.  Its own members' TEMPLATE
 * violations then become warnings (rules_table). */
static void allow_port(struct rule_report *r, size_t from, bool has_pack)
{
	for (size_t i = from; i < r->n; i++)
		if (!has_pack || (r->v[i].level == RULE_ERROR && r->v[i].code != RULE_TEMPLATE))
			return;
	for (size_t i = from; i < r->n; i++) {
		struct rule_violation *v = &r->v[i];
		if (v->code != RULE_TEMPLATE || strchr(v->member, '/'))
			continue;
		v->level = RULE_WARNING;
		size_t used = strlen(v->msg);
		snprintf(v->msg + used, sizeof v->msg - used, " (a port: the PAC "
			 "carries its own skeleton and pack, and they agree)");
	}
}

static void check_pac_item(const uint8_t *item, size_t len, const uint8_t *before,
			   size_t before_len, const struct skeleton *rig,
			   bool whole_model, struct rule_report *r)
{
	struct pac pac, old;
	struct skeleton own;
	bool have_own = false, has_pack = false;
	size_t from = r->n;
	decoded(pacpath_first_skeleton(item, len, &own, &have_own, NULL), r);
	bool have_old = before && decoded(pac_decode(before, before_len, &old, NULL), r);
	if (decoded(pac_decode(item, len, &pac, NULL), r)) {
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
	switch (kind_of(item, len)) {
	case KIND_SKELETON:
		check_skeleton_item(item, len, before, before_len, r);
		break;
	case KIND_ANIM:
		check_pack_item(item, len, rig, r);
		break;
	case KIND_PAC:
		check_pac_item(item, len, before, before_len, rig, whole_model, r);
		break;
	default:
		break;
	}
	return r->failed ? MH_ENOMEM : MH_OK;
}
