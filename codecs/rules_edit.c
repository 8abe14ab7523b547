/* SPDX-License-Identifier: MIT */
/* The rules of one edit (rules.h rules_check_edit): the scope it is
 * judged in, the check after it, what was broken before demoted, and the
 * mount's mode.  The commit (fs/commit/commit.c) and its fuzz target
 * (tests/fuzz/fuzz_commit.c) both judge through it. */
#include "rules.h"

#include <string.h>

#include "kind.h"
#include "pacpath.h"
#include "names.h"

/* What the rules check for an edit: the item's container when it has one
 * (a skeleton's edit re-checks the packs beside it, a pack's meets the
 * skeleton beside it), else the item itself; before the edit and after
 * it.  A leaf member's edit (a PMO's, a texture bank's) is the member
 * alone, against the container's rig. */
struct rule_scope {
	const uint8_t *now, *was;         /* the scope's bytes after and before */
	size_t now_len, was_len;
	struct skeleton rig_now, rig_was; /* the scope's container's rig, if any */
	bool have_rig_now, have_rig_was;
	bool leaf;                        /* a leaf alone: rig_now is also its rig
					     before (the edit left it as it was) */
};

static void rule_scope_free(struct rule_scope *sc)
{
	if (sc->have_rig_now)
		skeleton_free(&sc->rig_now);
	if (sc->have_rig_was)
		skeleton_free(&sc->rig_was);
}

/* Whether a member of kind k no other member's rules read: not a
 * skeleton (the packs' and PMOs' rig), a pack (its rig's parts) or a PAC
 * (members of its own). */
static bool leaf_kind(enum kind k)
{
	return k != KIND_SKELETON && k != KIND_ANIM && k != KIND_PAC;
}

/* A member that is a leaf before and after the edit (a PMO, a texture
 * bank, data) changes no other member's verdict: the scope narrows to
 * it, still read against the container's rig.  *old: its bytes before. */
static bool edits_a_leaf(const uint8_t *entry, size_t size, const uint16_t *path,
			 unsigned depth, enum kind k, const uint8_t **old, size_t *old_len)
{
	return depth && leaf_kind(k) &&
	       !pacpath_member(entry, size, path, depth, old, old_len, NULL) &&
	       leaf_kind(kind_of(*old, *old_len));
}

/* A rig missing for want of memory would skip rules: MH_ENOMEM. */
static enum mh_err rule_scope_of(const uint8_t *entry, size_t size, const uint8_t *entry_new,
				 size_t entry_len, const uint16_t *path, unsigned depth,
				 const uint8_t *item_new, size_t item_len, struct rule_scope *sc)
{
	unsigned scope = depth ? depth - 1 : 0;
	enum mh_err err;
	memset(sc, 0, sizeof *sc);
	/* A leaf's rig is the one its container's check gives its members:
	 * the container's first skeleton, else the one around it. */
	if (edits_a_leaf(entry, size, path, depth, kind_of(item_new, item_len), &sc->was,
			 &sc->was_len)) {
		sc->leaf = true;
		sc->now = item_new;
		sc->now_len = item_len;
		return pacpath_item_rig(entry_new, entry_len, path, depth, &sc->rig_now,
					&sc->have_rig_now, NULL) == MH_ENOMEM ? MH_ENOMEM : MH_OK;
	}
	if ((err = pacpath_member(entry, size, path, scope, &sc->was, &sc->was_len, NULL)) ||
	    (err = pacpath_member(entry_new, entry_len, path, scope, &sc->now, &sc->now_len,
				  NULL)))
		return err;
	if (pacpath_item_rig(entry_new, entry_len, path, scope, &sc->rig_now,
			     &sc->have_rig_now, NULL) == MH_ENOMEM ||
	    pacpath_item_rig(entry, size, path, scope, &sc->rig_was, &sc->have_rig_was,
			     NULL) == MH_ENOMEM)
		return MH_ENOMEM;
	return MH_OK;
}

/* The violations in the edited item itself name no member: the view's
 * path already says which. */
static void unname_own_member(struct rule_report *r, const char *member)
{
	for (size_t i = 0; member[0] && i < r->n; i++)
		if (!strcmp(r->v[i].member, member))
			r->v[i].member[0] = '\0';
}

enum mh_err rules_check_edit(const uint8_t *entry, size_t size, const uint8_t *entry_new,
			     size_t entry_len, const uint16_t *path, unsigned depth,
			     const uint8_t *item_new, size_t item_len, enum rules_mode mode,
			     struct rule_report *after)
{
	struct rule_report before = {0};
	struct rule_scope sc;
	enum kind k = kind_of(item_new, item_len);
	bool whole_model = k == KIND_PAC;
	char member[48] = "";
	if (depth)
		names_member(path[depth - 1], k, member, sizeof member);
	enum mh_err err = rule_scope_of(entry, size, entry_new, entry_len, path, depth, item_new,
					item_len, &sc);
	const struct skeleton *rig_now = sc.have_rig_now ? &sc.rig_now : NULL;
	const struct skeleton *rig_was = sc.leaf ? rig_now : sc.have_rig_was ? &sc.rig_was : NULL;
	if (!err &&
	    (rules_check_item(sc.now, sc.now_len, sc.was, sc.was_len, rig_now, whole_model,
			      after) ||
	     (after->n && (rules_check_item(sc.was, sc.was_len, sc.was, sc.was_len, rig_was,
					    whole_model, &before) ||
			   rules_demote_existing(after, &before)))))
		err = MH_ENOMEM;
	if (!err) {
		unname_own_member(after, member);
		rules_apply_mode(after, mode);
	}
	rule_scope_free(&sc);
	rules_report_free(&before);
	return err;
}
