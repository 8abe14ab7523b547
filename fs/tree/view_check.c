/* SPDX-License-Identifier: MIT */
/* A model folder's check.txt: every engine rule its model breaks now,
 * with the fix, read-only (views_check_text).  A model folder is a PAC's
 * folder holding a skeleton or a pack, or the folder of a skeleton or
 * pack that is an entry of its own; in a PAC the members' folders have
 * none (their PAC's lists them).  Made on first use from the archive's
 * bytes and kept with the item's model cache (the rules run once, not at
 * every stat), which a commit to the entry drops: it follows every
 * commit. */
#include <errno.h>
#include <stdlib.h>

#include "item.h"
#include "view_item.h"
#include "mhfs.h"
#include "pacpath.h"
#include "views.h"

/* The folder check.txt n is in, of the type its item shows as. */
static int check_folder(struct mhfs *fs, const struct node *n, struct node *dir)
{
	struct item it;
	int err = item_resolve(node_archive(fs, n), n, &it);
	if (err)
		return err;
	*dir = *n;
	dir->type = node_folder_type(it.kind);
	return dir->type == NODE_NONE ? ENOENT : 0;
}

/* Whether the rules have anything to say about items of kind k. */
static bool ruled(enum kind k)
{
	return k == KIND_SKELETON || k == KIND_ANIM;
}

static bool holds_model(const struct pactree *tree)
{
	for (uint32_t i = 0; tree && i < tree->count; i++)
		if (tree->subs[i].size && ruled(tree->subs[i].kind))
			return true;
	return false;
}

/* Whether n's folder is a model folder; its target in t. */
static int check_folder_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir;
	int err = check_folder(fs, n, &dir);
	if (!err)
		err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	bool model_folder = t->kind == KIND_PAC ? holds_model(t->tree)
						: n->depth == 0 && ruled(t->kind);
	return model_folder ? 0 : ENOENT;
}

static bool check_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	return !check_folder_resolve(fs, n, &t);
}

/* The text, printed from the whole entry (a nested PAC's packs meet its
 * container's rig): malloc'ed, NULL with the errno in *err. */
static char *check_print(struct mhfs *fs, const struct node *n, const struct node_target *t,
			 size_t *len, int *err)
{
	uint64_t size = archive_entry_size(node_archive(fs, n), n->entry);
	uint8_t *entry = malloc(size ? size : 1);
	char *text = NULL;
	*err = ENOMEM;
	if (!entry)
		return NULL;
	if ((*err = archive_read_all(node_archive(fs, n), n->entry, 0, entry, size))) {
		free(entry);
		return NULL;
	}
	struct skeleton rig;
	bool have_rig = false;
	if (pacpath_item_rig(entry, size, n->path, n->depth, &rig, &have_rig, NULL) != MH_ENOMEM)
		text = views_check_text(entry + t->offset, t->size, have_rig ? &rig : NULL, len);
	if (have_rig)
		skeleton_free(&rig);
	free(entry);
	return text;
}

static int check_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct item it;
	int err = check_folder_resolve(fs, n, t);
	if (err || (err = item_resolve(node_archive(fs, n), n, &it)))
		return err;
	const struct model_text *kept = atomic_load_explicit(&it.cache->check,
							     memory_order_acquire);
	if (!kept) {
		size_t len = 0, added;
		char *text = check_print(fs, n, t, &len, &err);
		if (!text)
			return err;
		if ((kept = model_text_keep(&it.cache->check, text, len, &added)))
			atomic_fetch_add(&node_archive(fs, n)->cache.bytes, added);
	}
	return item_kept_text(t, kept);
}

const struct view_class view_check = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.in = NODE_DIR,
	.also_in = {NODE_SKEL_DIR, NODE_PACK_DIR},
	.fixed_name = "check.txt",
	.resolve = check_resolve,
	.exists = check_exists,
};
