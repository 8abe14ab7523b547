/* SPDX-License-Identifier: MIT */
/* A texture bank's folder (a TMH, mhfu-archive(5)): imageNN.png per
 * image, read as the codecs picture it (tmh.h) and written back into the
 * image in place, the bank keeping its size.
 *
 * The PNGs are kept in the bank's model, made on first use, like the clip
 * texts: a stat needs a PNG's size and a read-only mount reads views
 * without opening them, so a PNG made afresh at each use would be encoded
 * again at every stat and every read; the model's memory is counted in
 * the cache's budget and dropped at the entry's commits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "view_item.h"
#include "item.h"
#include "mhfs.h"

_Static_assert(MODEL_MAX_IMAGES <= NODE_MAX_SLOTS, "an image's number fits a node's slot");

static struct node image_node(const struct node *dir, uint32_t image)
{
	struct node c = *dir;
	c.type = NODE_TMH_PNG;
	c.slot = (uint16_t)image;
	return c;
}

static bool tmh_child_named(struct mhfs *fs, const struct node *dir,
			    const struct node_target *t, const char *name, struct node *child)
{
	(void)fs;
	long long v;
	const char *end;
	if (!t->model || strncmp(name, "image", 5) || !view_number(name + 5, &v, &end) ||
	    v >= t->model->tex.count)
		return false;
	*child = image_node(dir, (uint32_t)v);
	return true;
}

/* One position per image. */
static enum view_child tmh_child_at(struct mhfs *fs, const struct node *dir,
				    const struct node_target *t, uint64_t pos,
				    struct node *child)
{
	(void)fs;
	uint64_t i = pos - NODE_POS_FIRST;
	if (!t->model || i >= t->model->tex.count)
		return CHILD_END;
	*child = image_node(dir, (uint32_t)i);
	return CHILD_FOUND;
}

static bool tmh_reserved(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			 const char *name, struct fs_diag *why)
{
	(void)fs;
	(void)dir;
	const char *end;
	if (!t->model || !view_prefixed(name, "image", &end) || !view_like_end(end))
		return false;
	if (t->model->tex.count)
		fs_diag_printf(why, "images are imageNN.png, image00.png to image%02u.png, "
			 "and cannot be created", t->model->tex.count - 1);
	else
		fs_diag_printf(why, "this bank has no images, and none can be created");
	return true;
}

const struct view_class view_tmh_dir = {
	.flags = VIEW_DIR | VIEW_ITEM | VIEW_EXPANDS,
	.expands = KIND_TMH,
	.name = item_folder_name,
	.parent = item_parent,
	.resolve = item_folder_resolve,
	.exists = item_folder_exists,
	.child_named = tmh_child_named,
	.child_at = tmh_child_at,
	.reserved = tmh_reserved,
};

/* ---- imageNN.png ------------------------------------------------------- */

static void image_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	tmh_image_file_name(n->slot, buf, len);
}

static void image_folder(const struct node *n, struct node *dir)
{
	*dir = *n;
	dir->type = NODE_TMH_DIR;
	dir->slot = 0;
}

static int image_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir;
	image_folder(n, &dir);
	int err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	if (!t->model || n->slot >= t->model->tex.count)
		return ENOENT;
	if (t->listing)
		return 0;
	const struct model_text *png = model_image_png(t->model, n->slot);
	return item_kept_text(t, png);
}

/* The bank with the image replaced from the PNG written, the same size. */
static enum mh_err image_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				enum clip_format *format, uint8_t **out, size_t *out_len,
				struct mh_diag *d)
{
	(void)format;
	struct tmh t;
	enum mh_err err = tmh_decode(old, old_len, &t, d);
	if (!err && e->view.slot >= t.count)
		err = mh_fail(d, MH_ERANGE, 0, "the bank has no image %u", e->view.slot);
	if (!err)
		err = tmh_image_replace_png(&t.images[e->view.slot], e->data, e->len, d);
	if (!err)
		err = tmh_encode(&t, out, out_len, d);
	tmh_free(&t);
	return err;
}

const struct view_class view_tmh_png = {
	.flags = VIEW_ITEM | VIEW_SLOT | VIEW_WRITABLE | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_MODEL,
	.name = image_name,
	.parent = image_folder,
	.resolve = image_resolve,
	.encode = image_encode,
};
