/* SPDX-License-Identifier: MIT */
/* An MHP3rd model folder's donor.pac: the donor bundle (codecs/donor.h,
 * mhfu-archive(5) "DONOR BUNDLE"), all a port needs of the monster in one
 * file, to copy into an MHFU model folder's port/ (view_port.c).
 * Read-only; present in the folder of a top-level model PAC of a DATA.BIN
 * whose first skeleton is MHP3rd's and whose moveset sits
 * RECORDS_RIG_BEFORE entries on (item_moveset_rig).  It carries the PAC's
 * skeleton, first PMO and the texture bank after it, the PMO's companion
 * geometry when it needs one (the next entry), the moveset, and the
 * moveset's record map settings: the monster its overlay names and the
 * records.txt override in force.  Made on first use and kept with the
 * skeleton's model: a commit to the PAC, its geometry or its moveset, or
 * to the moveset's records.txt, drops it (archive_for_linked). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "donor.h"
#include "item.h"
#include "log.h"
#include "mhfs.h"
#include "monsters.h"
#include "pmo.h"
#include "view_item.h"

/* The first member of kind k at or after member `from`, -1 if none. */
static int member_of(const struct pactree *tree, uint32_t from, enum kind k)
{
	for (uint32_t i = from; i < tree->count; i++)
		if (tree->subs[i].kind == k && tree->subs[i].size)
			return (int)i;
	return -1;
}

/* The PAC's folder resolves, it is a top-level model PAC of a DATA.BIN
 * with an MHP3rd skeleton, a PMO and a texture bank after it, and its
 * moveset is RECORDS_RIG_BEFORE entries on: t->model is the skeleton's
 * model; *pack the moveset's when pack. */
static int donor_source(struct mhfs *fs, const struct node *n, struct node_target *t,
			struct model **pack)
{
	struct node dir = *n, rig;
	dir.type = NODE_DIR;
	struct archive *ar = node_archive(fs, n);
	if (n->depth || ar->format != FORMAT_DATABIN ||
	    !item_moveset_rig(ar, n->entry + RECORDS_RIG_BEFORE, &rig) ||
	    rig.entry != n->entry || rig.depth != 1)
		return ENOENT;
	int err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	int pmo = t->tree ? member_of(t->tree, 0, KIND_PMO) : -1;
	if (pmo < 0 || member_of(t->tree, (uint32_t)pmo + 1, KIND_TMH) < 0)
		return ENOENT;
	if ((err = pac_first_model(fs, &dir, t->tree, KIND_SKELETON, &t->model)))
		return err;
	if (!t->model || t->model->skel.game != SKELETON_MHP3RD)
		return ENOENT;
	if (!pack)
		return 0;
	struct node moveset = {.type = NODE_FILE, .entry = n->entry + RECORDS_RIG_BEFORE,
			       .original = n->original};
	struct item it;
	if (item_resolve(ar, &moveset, &it))
		return ENOENT;
	*pack = item_model(ar, &moveset, &it);
	return *pack ? 0 : atomic_load(&it.cache->failed) ? ENOENT : EIO;
}

static bool donor_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	memset(&t, 0, sizeof t);
	return !donor_source(fs, n, &t, NULL);
}

/* Entry id's bytes, malloc'ed: 0 or an errno. */
static int read_entry(struct archive *ar, uint32_t id, uint8_t **bytes, size_t *len)
{
	*len = archive_entry_size(ar, id);
	if (!(*bytes = malloc(*len ? *len : 1)))
		return ENOMEM;
	int err = archive_read_all(ar, id, 0, *bytes, *len);
	if (err) {
		free(*bytes);
		*bytes = NULL;
	}
	return err;
}

/* The bundle's bytes: 0 with *out malloc'ed, or an errno. */
static int donor_make(struct mhfs *fs, const struct node *n, const struct node_target *t,
		      const struct model *pack, uint8_t **out, size_t *out_len)
{
	struct archive *ar = node_archive(fs, n);
	uint8_t *model = NULL, *geometry = NULL, *moveset = NULL;
	size_t model_len, geometry_len = 0, moveset_len;
	int skel = member_of(t->tree, 0, KIND_SKELETON), pmo = member_of(t->tree, 0, KIND_PMO);
	int tmh = pmo < 0 ? -1 : member_of(t->tree, (uint32_t)pmo + 1, KIND_TMH);
	int err = read_entry(ar, n->entry, &model, &model_len);
	if (!err)
		err = read_entry(ar, n->entry + RECORDS_RIG_BEFORE, &moveset, &moveset_len);
	const struct pactree_sub *sub = t->tree->subs;
	if (!err && pmo_needs_companion(model + sub[pmo].offset, sub[pmo].size))
		err = read_entry(ar, n->entry + 1, &geometry, &geometry_len);
	if (!err) {
		size_t count;
		const struct monster *m = monsters_of(ar->db.game, &count);
		const char *name = NULL;
		for (size_t i = 0; i < count; i++)
			if (m[i].model == n->entry)
				name = m[i].name;
		const struct records *map = pack->records;
		struct donor_parts p = {
			.member = {model + sub[skel].offset, model + sub[pmo].offset,
				   model + sub[tmh].offset, moveset, geometry},
			.len = {sub[skel].size, sub[pmo].size, sub[tmh].size, moveset_len,
				geometry_len},
			.model = n->entry,
			.monster = map ? map->monster : RECORDS_NO_MONSTER,
			.name = name,
			.set = map ? &map->set : NULL,
		};
		struct mh_diag d = {0};
		enum mh_err e = donor_encode(&p, out, out_len, &d);
		if (e && e != MH_ENOMEM) {
			char label[128];
			item_label(ar, n, label, sizeof label);
			mlog_printf(ar->log, "%s/donor.pac: not made: %s", label, d.msg);
		}
		err = e == MH_OK ? 0 : e == MH_ENOMEM ? ENOMEM : ENOENT;
	}
	free(model);
	free(geometry);
	free(moveset);
	return err;
}

static int donor_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct model *pack = NULL;
	int err = donor_source(fs, n, t, t->listing ? NULL : &pack);
	if (err || t->listing)
		return err;
	const struct model_text *kept = atomic_load_explicit(&t->model->donor,
							     memory_order_acquire);
	if (!kept) {
		uint8_t *bytes = NULL;
		size_t len = 0;
		if ((err = donor_make(fs, n, t, pack, &bytes, &len)) && err != ENOENT)
			return err;
		/* One that cannot be made is kept absent: not made again at
		 * every look. */
		if (!(kept = model_keep_made(t->model, &t->model->donor, bytes, len)))
			return ENOMEM;
	}
	return kept->text ? item_kept_text(t, kept) : ENOENT;
}

const struct view_class view_donor_pac = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.in = NODE_DIR,
	.fixed_name = "donor.pac",
	.resolve = donor_resolve,
	.exists = donor_exists,
};
