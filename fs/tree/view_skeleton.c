/* SPDX-License-Identifier: MIT */
/* A skeleton's folder and its skeleton.txt: the bone tree and bind pose
 * as text (mhfu-clip(5)). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "edit.h"
#include "view_item.h"
#include "item.h"
#include "mhfs.h"

const struct view_class view_skeleton_dir = {
	.flags = VIEW_DIR | VIEW_ITEM | VIEW_EXPANDS,
	.expands = KIND_SKELETON,
	.name = item_folder_name,
	.parent = item_parent,
	.resolve = item_folder_resolve,
	.exists = item_folder_exists,
	.reserved = item_model_reserved,
};

static int skeleton_txt_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir = *n;
	dir.type = NODE_SKEL_DIR;
	int err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	if (!t->model)
		return ENOENT;
	return item_kept_text(t, model_skeleton_text(t->model));
}

static enum mh_err skeleton_txt_encode(const struct edit *e, const uint8_t *old,
				       size_t old_len, enum clip_format *format,
				       uint8_t **out, size_t *out_len, struct mh_diag *d)
{
	(void)old;
	(void)old_len;
	(void)format;
	struct skeleton s;
	enum mh_err err = skeleton_parse((const char *)e->data, e->len, &s, d);
	if (err)
		return err;
	err = skeleton_encode(&s, out, out_len, d);
	skeleton_free(&s);
	return err;
}

static unsigned skeleton_txt_line(const struct edit *e, const struct rule_violation *v)
{
	/* -1: the params line */
	return skeleton_text_line((const char *)e->data, e->len, v->bone);
}

const struct view_class view_skeleton_txt = {
	.flags = VIEW_ITEM | VIEW_WRITABLE,
	.source = SOURCE_MODEL,
	.in = NODE_SKEL_DIR,
	.fixed_name = "skeleton.txt",
	.resolve = skeleton_txt_resolve,
	.encode = skeleton_txt_encode,
	.violation_line = skeleton_txt_line,
};
