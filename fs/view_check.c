/* A model folder's check.txt: every engine rule its model breaks now,
 * with the fix, read-only (views_check_text).  A model folder is a PAC's
 * folder holding a skeleton or a pack, or the folder of a skeleton or
 * pack that is an entry of its own; in a PAC the members' folders have
 * none (their PAC's lists them).  Printed afresh at each use from the
 * archive's bytes, so it follows every commit. */
#include <errno.h>
#include <stdlib.h>

#include "item.h"
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

static int check_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
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

static int check_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	struct node_target t;
	int err = check_resolve(fs, n, &t);
	if (err)
		return err;
	/* The whole entry: a nested PAC's packs meet its container's rig. */
	uint64_t size = archive_entry_size(node_archive(fs, n), n->entry);
	uint8_t *entry = malloc(size ? size : 1);
	if (!entry)
		return ENOMEM;
	ssize_t got = archive_read(node_archive(fs, n), n->entry, 0, entry, size);
	if (got != (ssize_t)size) {
		free(entry);
		return got < 0 ? (int)-got : EIO;
	}
	struct skeleton rig;
	bool have_rig = false;
	if (pacpath_item_rig(entry, size, n->path, n->depth, &rig, &have_rig, NULL) == MH_ENOMEM)
		err = ENOMEM;
	else if (!(*data = (uint8_t *)views_check_text(entry + t.offset, t.size,
							 have_rig ? &rig : NULL, len)))
		err = ENOMEM;
	if (have_rig)
		skeleton_free(&rig);
	free(entry);
	return err;
}

const struct view_class view_check = {
	.flags = VIEW_ITEM,
	.in = NODE_DIR,
	.also_in = {NODE_SKEL_DIR, NODE_PACK_DIR},
	.fixed_name = "check.txt",
	.resolve = check_resolve,
	.contents = check_contents,
};
