/* A skeleton folder's bind_world.tsv: each bone's bind position in model
 * space, its part, and the rig's facts (body fork, animated joints,
 * severed chain), read-only (rig.h). */
#include <errno.h>
#include <stdio.h>

#include "item.h"
#include "mhfs.h"
#include "rig.h"

static int bind_world_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir = *n;
	dir.type = NODE_SKEL_DIR;
	int err = item_folder_resolve(fs, &dir, t);
	return err ? err : t->model ? 0 : ENOENT;
}

static int bind_world_contents(struct mhfs *fs, const struct node *n, uint8_t **data,
			       size_t *len)
{
	struct node_target t = {0};
	int err = bind_world_resolve(fs, n, &t);
	if (err)
		return err;
	*data = (uint8_t *)rig_bind_world_text(&t.model->skel, t.model->label, len);
	return *data ? 0 : ENOMEM;
}

const struct view_class view_bind_world = {
	.flags = VIEW_ITEM,
	.in = NODE_SKEL_DIR,
	.fixed_name = "bind_world.tsv",
	.resolve = bind_world_resolve,
	.contents = bind_world_contents,
};
