/* SPDX-License-Identifier: MIT */
/* A model PAC folder's model.glb: its skeleton as a rig with a stand-in
 * mesh, and its animation pack's motions, as glTF 2.0 (codecs/gltf.h).
 * Read-only; present when the PAC holds a skeleton that decodes.  The
 * first skeleton and the first pack of the PAC are used, as a pack's
 * joint comments do (item.c); an MHP3rd model PAC of a DATA.BIN, which
 * holds no pack, plays its standalone moveset (item_moveset_rig), and
 * MHP3rd tracks go where the pack's record map puts them. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fserror.h"
#include "view_item.h"
#include "gltf.h"
#include "item.h"
#include "log.h"
#include "records.h"
#include "mhfs.h"

/* The decoded model of the PAC's first member of kind k into *m, NULL
 * when there is none or it does not decode: 0; EIO when it could not be
 * built now (a failed read or allocation, tried again at the next use). */
static int first_member_model(struct mhfs *fs, const struct node *dir,
			      const struct pactree *tree, enum kind k, struct model **m)
{
	*m = NULL;
	if (dir->depth >= PACTREE_MAX_DEPTH)
		return 0;
	for (uint32_t i = 0; i < tree->count; i++) {
		if (tree->subs[i].kind != k || !tree->subs[i].size)
			continue;
		struct node member = *dir;
		struct item it;
		member.path[member.depth++] = (uint16_t)i;
		if (item_resolve(node_archive(fs, dir), &member, &it))
			return 0;
		*m = item_model(node_archive(fs, dir), &member, &it);
		return *m || atomic_load(&it.cache->failed) ? 0 : EIO;
	}
	return 0;
}

static struct node pac_folder_of(const struct node *n)
{
	struct node dir = *n;
	dir.type = NODE_DIR;
	return dir;
}

/* The PAC's folder resolves and its first skeleton decodes: t->model is
 * the skeleton's model, t->tree the PAC's. */
static int pac_skeleton(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir = pac_folder_of(n);
	int err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	if (!t->tree)
		return ENOENT;
	err = first_member_model(fs, &dir, t->tree, KIND_SKELETON, &t->model);
	return err ? err : t->model ? 0 : ENOENT;
}

static bool model_glb_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	memset(&t, 0, sizeof t);
	return !pac_skeleton(fs, n, &t);
}

/* The moveset of an MHP3rd model PAC at the top of a DATA.BIN: the
 * standalone pack RECORDS_RIG_BEFORE entries after it, whose rig is the
 * PAC's first skeleton (NULL when none, or it does not decode); 0, or
 * EIO as first_member_model. */
static int linked_moveset(struct mhfs *fs, const struct node *dir, struct model **m)
{
	struct node rig, pack = {.type = NODE_FILE, .entry = dir->entry + RECORDS_RIG_BEFORE};
	struct item it;
	*m = NULL;
	if (dir->depth || pack.entry < dir->entry ||
	    !item_moveset_rig(&fs->ar, pack.entry, &rig) || item_resolve(&fs->ar, &pack, &it))
		return 0;
	*m = item_model(&fs->ar, &pack, &it);
	return *m || atomic_load(&it.cache->failed) ? 0 : EIO;
}

/* Made on first use and kept with the skeleton's model: a read-only
 * mount asks for a file's contents at every read request, and the
 * Tigrex's file is megabytes.  A commit to the PAC builds its models
 * afresh, so the file follows every edit of the skeleton or the pack. */
static int model_glb_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pac_skeleton(fs, n, t);
	if (err || t->listing)
		return err;
	const struct model_text *glb = atomic_load_explicit(&t->model->glb, memory_order_acquire);
	if (!glb) {
		struct node dir = pac_folder_of(n);
		struct model *pack;
		struct mh_diag d = {0};
		uint8_t *bytes;
		size_t len;
		if ((err = first_member_model(fs, &dir, t->tree, KIND_ANIM, &pack)) ||
		    (!pack && (err = linked_moveset(fs, &dir, &pack))))
			return err;
		enum mh_err e = gltf_model_mapped(&t->model->skel, pack ? &pack->pack : NULL,
						  pack ? pack->records : NULL, &bytes, &len, &d);
		if (e != MH_OK) {
			if (e != MH_ENOMEM) {
				char label[128];
				item_label(node_archive(fs, &dir), &dir, label, sizeof label);
				mlog_printf(fs->ar.log, "%s/model.glb: not made: %s", label, d.msg);
			}
			return e == MH_ERANGE ? EFBIG : mh_errno(e);
		}
		if (!(glb = model_keep_glb(t->model, bytes, len)))
			return ENOMEM;
	}
	return item_kept_text(t, glb);
}

const struct view_class view_model_glb = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.in = NODE_DIR,
	.fixed_name = "model.glb",
	.resolve = model_glb_resolve,
	.exists = model_glb_exists,
};
