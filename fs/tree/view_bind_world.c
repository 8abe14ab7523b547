/* SPDX-License-Identifier: MIT */
/* A skeleton folder's bind_world.tsv: each bone's bind position in model
 * space, its part, and the rig's facts (body fork, animated joints,
 * severed chain), read-only (rig.h), printed once and kept with the
 * skeleton's model. */
#include <errno.h>
#include <stdio.h>

#include "item.h"
#include "view_item.h"
#include "mhfs.h"

static int bind_world_folder(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir = *n;
	dir.type = NODE_SKEL_DIR;
	int err = item_folder_resolve(fs, &dir, t);
	return err ? err : t->model ? 0 : ENOENT;
}

static bool bind_world_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	return !bind_world_folder(fs, n, &t);
}

/* Printed on first use and kept with the skeleton's model. */
static int bind_world_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = bind_world_folder(fs, n, t);
	return err ? err : item_kept_text(t, model_bind_world(t->model));
}

const struct view_class view_bind_world = {
	.flags = VIEW_ITEM,
	.source = SOURCE_MODEL,
	.in = NODE_SKEL_DIR,
	.fixed_name = "bind_world.tsv",
	.resolve = bind_world_resolve,
	.exists = bind_world_exists,
};
