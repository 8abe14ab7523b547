/* SPDX-License-Identifier: MIT */
/* An item's raw bytes (an entry at the root, a member in its PAC's
 * folder), and a PAC's folder of members.  A single-PAC mount's root is
 * the folder of its one entry. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "edit.h"
#include "view_item.h"
#include "item.h"
#include "mhfs.h"
#include "names.h"

/* The folder holding an item's views: its container's, or the root. */
void item_parent(const struct node *n, struct node *dir)
{
	*dir = (struct node){.type = n->original ? NODE_ORIGINAL : NODE_ROOT};
	if (n->depth == 0)
		return;
	*dir = *n;
	dir->type = NODE_DIR;
	dir->depth--;
	dir->path[dir->depth] = 0;
	dir->stream = dir->slot = 0;
}

/* ---- raw bytes -------------------------------------------------------- */

static void raw_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	struct item it;
	if (n->depth == 0)
		archive_entry_name(node_archive(fs, n), n->entry, buf, len);
	else if (!item_resolve(node_archive(fs, n), n, &it))
		names_member(n->path[n->depth - 1], it.kind, buf, len);
	else
		snprintf(buf, len, "%u", n->path[n->depth - 1]);
}

static int raw_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct item it;
	int err = item_resolve(node_archive(fs, n), n, &it);
	if (err)
		return err;
	t->offset = it.offset;
	t->size = it.size;
	t->kind = it.kind;
	return 0;
}

/* The user's bytes, as they are. */
static enum mh_err raw_encode(const struct edit *e, const uint8_t *old, size_t old_len,
			      enum clip_format *format, uint8_t **out, size_t *out_len,
			      struct mh_diag *d)
{
	(void)old;
	(void)old_len;
	(void)format;
	if (!(*out = malloc(e->len ? e->len : 1)))
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	memcpy(*out, e->data, e->len);
	*out_len = e->len;
	return MH_OK;
}

int item_request_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)fs;
	(void)n;
	(void)t;
	return ENOENT;
}

const struct view_class view_raw = {
	.flags = VIEW_ITEM | VIEW_WRITABLE,
	.source = SOURCE_BYTES,
	.name = raw_name,
	.parent = item_parent,
	.resolve = raw_resolve,
	.encode = raw_encode,
};

/* ---- a PAC's folder --------------------------------------------------- */

/* The name of an item's folder, whatever its kind: file_06185, or the
 * member's index below. */
void item_folder_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	if (n->depth == 0)
		names_entry_dir(n->entry, buf, len);
	else
		snprintf(buf, len, "%u", n->path[n->depth - 1]);
}

int item_folder_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct item it;
	struct archive *ar = node_archive(fs, n);
	int err = item_resolve(ar, n, &it);
	if (err)
		return err;
	if (node_folder_type(it.kind) != n->type || !item_has_dir(n, &it))
		return ENOENT;
	t->offset = it.offset;
	t->size = it.size;
	t->kind = it.kind;
	t->tree = item_tree(ar, n, &it);
	if (model_kind(it.kind))
		t->model = item_model(ar, n, &it);
	return 0;
}

bool item_folder_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	/* A top-level folder: the folder rule needs only the entry's kind. */
	struct archive *ar = node_archive(fs, n);
	if (n->depth == 0)
		return archive_entry_present(ar, n->entry) &&
		       node_folder_type(archive_entry_kind(ar, n->entry)) == n->type;
	return !node_resolve(fs, n, &t);
}

/* The member's view in this folder: its file, or its folder. */
static struct node member_node(const struct node *dir, uint32_t i, enum node_type type)
{
	struct node c = *dir;
	c.type = type;
	c.path[c.depth++] = (uint16_t)i;
	return c;
}

static bool pac_child_named(struct mhfs *fs, const struct node *dir,
			    const struct node_target *t, const char *name, struct node *child)
{
	(void)fs;
	long long v;
	const char *end;
	if (!t->tree || dir->depth >= PACTREE_MAX_DEPTH || !view_number(name, &v, &end) ||
	    v >= t->tree->count || !t->tree->subs[v].size)
		return false;
	enum node_type type = *end ? NODE_FILE : node_folder_type(t->tree->subs[v].kind);
	*child = member_node(dir, (uint32_t)v, type);
	return type != NODE_NONE;
}

/* Two positions per member: its file, its folder. */
static enum view_child pac_child_at(struct mhfs *fs, const struct node *dir,
				    const struct node_target *t, uint64_t pos,
				    struct node *child)
{
	(void)fs;
	uint64_t i = (pos - NODE_POS_FIRST) / 2;
	bool folder = (pos - NODE_POS_FIRST) % 2;
	if (!t->tree || i >= t->tree->count || dir->depth >= PACTREE_MAX_DEPTH)
		return CHILD_END;
	const struct pactree_sub *s = &t->tree->subs[i];
	enum node_type type = folder ? node_folder_type(s->kind) : NODE_FILE;
	if (!s->size || type == NODE_NONE || (folder && s->kind == KIND_PAC && !s->child))
		return CHILD_SKIP;
	*child = member_node(dir, (uint32_t)i, type);
	return CHILD_FOUND;
}

static bool is_kind_ext(const char *ext)
{
	for (int k = 0; k < KIND_COUNT; k++)
		if (!strcasecmp(ext, kind_ext((enum kind)k)))
			return true;
	return false;
}

static bool pac_reserved(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			 const char *name, struct fs_diag *why)
{
	(void)fs;
	(void)dir;
	const char *end;
	if (!t->tree || !isdigit((unsigned char)name[0]))
		return false;
	for (end = name; isdigit((unsigned char)*end); end++)
		;
	if (*end != '.' || !is_kind_ext(end))
		return false;
	fs_diag_printf(why, "members are named N.EXT as listed, N from 0 to %u, "
		 "and cannot be created", t->tree->count ? t->tree->count - 1 : 0);
	return true;
}

const struct view_class view_pac_dir = {
	.flags = VIEW_DIR | VIEW_ITEM | VIEW_EXPANDS,
	.expands = KIND_PAC,
	.name = item_folder_name,
	.parent = item_parent,
	.resolve = item_folder_resolve,
	.exists = item_folder_exists,
	.child_named = pac_child_named,
	.child_at = pac_child_at,
	.reserved = pac_reserved,
};
