/* SPDX-License-Identifier: MIT */
/* Items: an entry or a sub-entry of the archive (an entry id and a path
 * of member indices), with the caches the views of it share: its
 * container tree and its decoded model.  The item views (view_item.c,
 * view_skeleton.c, view_pack.c, view_slot.c) resolve through here; each
 * view family's own helpers are in its header (view_item.h, view_pack.h,
 * view_root.h). */
#ifndef FS_ITEM_H
#define FS_ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive.h"
#include "model.h"
#include "node.h"

struct item {
	uint64_t offset, size;         /* in the entry */
	enum kind kind;
	const struct pactree *tree;    /* the container's tree, when it is one
					  (a top-level one: see item_tree) */
	struct pactree_sub *sub;       /* depth >= 1: the sub-entry */
	const struct pactree *parent;  /* depth >= 1: the container holding it */
	struct model_cache *cache;     /* where its model is kept */
};

/* The item of node n: 0, or ENOENT when its path names no member. */
int item_resolve(struct archive *ar, const struct node *n, struct item *it);

/* Whether the item shows as a folder: a container (at the top level as
 * soon as it sniffs as one, below only when it decoded: a top-level one
 * that does not decode is empty, its reason logged), a skeleton or a
 * pack (when they do not decode: empty, reason logged). */
bool item_has_dir(const struct node *n, const struct item *it);

/* The container tree of a PAC item (a top-level one is built on first
 * use); NULL if it does not decode. */
const struct pactree *item_tree(struct archive *ar, const struct node *n,
				const struct item *it);

/* The decoded model of a skeleton or pack item, built on first use;
 * NULL when it does not decode (logged) or could not be built now. */
struct model *item_model(struct archive *ar, const struct node *n, const struct item *it);

/* "file_06185/3.anim": names the item in comments and the log. */
void item_label(struct archive *ar, const struct node *n, char *buf, size_t len);

/* The names a skeleton's or pack's folder refuses: the texts and stream
 * folders of either, in any case (a view misspelt, or of the other kind). */
bool item_model_reserved(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			 const char *name, struct fs_diag *why);

/* MHP3rd movesets (mount.mhfu(8) "MHP3rd movesets").  item_moveset_rig:
 * whether top-level entry `entry` of a DATA.BIN is a standalone moveset
 * (an animation pack) whose model PAC, RECORDS_RIG_BEFORE entries before
 * it, holds a skeleton: *skel is then that skeleton's node (its first).
 * item_override_key: what the record keeps the override of pack n's
 * records.txt under ("file_05250", "file_06185/3"; in a single-PAC mount
 * the member path, "3"). */
bool item_moveset_rig(struct archive *ar, uint32_t entry, struct node *skel);
void item_override_key(const struct archive *ar, const struct node *n, char *buf, size_t len);

/* Points t at a text kept with a model (resolve callbacks): 0, or
 * ENOMEM when text is NULL (it could not be made). */
int item_kept_text(struct node_target *t, const struct model_text *text);

/* Whether the node is the root of a single-PAC mount (entry 0's folder). */
bool item_is_pac_root(const struct archive *ar, const struct node *n);

#endif
