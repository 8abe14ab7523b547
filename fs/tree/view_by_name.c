/* SPDX-License-Identifier: MIT */
/* by-name/: links named after the monsters (codecs/monsters.h) to their
 * model PACs' folders (tigrex -> ../file_06185) and movesets
 * (tigrex-moveset -> ../file_06185/3, or the MHP3rd moveset entry's
 * folder).  A link is there only when its target is of the right kind:
 * a PAC holding a skeleton, an animation pack. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "item.h"
#include "mhfs.h"
#include "monsters.h"
#include "names.h"

#define MOVESET_SUFFIX "-moveset"

static const struct monster *table(const struct mhfs *fs, size_t *n)
{
	*n = 0;
	return fs->ar.format == FORMAT_DATABIN ? monsters_of(fs->ar.db.game, n) : NULL;
}

static int by_name_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)n;
	(void)t;
	size_t count;
	return table(fs, &count) ? 0 : ENOENT;
}

/* A link: entry the model's engine id, stream 1 for its moveset. */
static bool link_named(struct mhfs *fs, const struct node *dir, const struct node_target *t,
		       const char *name, struct node *child)
{
	(void)dir;
	(void)t;
	char base[64];
	size_t len = strlen(name), suffix = strlen(MOVESET_SUFFIX);
	bool moveset = len > suffix && !strcmp(name + len - suffix, MOVESET_SUFFIX);
	snprintf(base, sizeof base, "%.*s", (int)(moveset ? len - suffix : len), name);
	const struct monster *m = fs->ar.format == FORMAT_DATABIN
					  ? monster_named(fs->ar.db.game, base) : NULL;
	if (!m)
		return false;
	*child = (struct node){.type = NODE_BY_NAME_LINK, .entry = m->model, .stream = moveset};
	return true;
}

/* Two positions per monster: its model, its moveset. */
static enum view_child link_at(struct mhfs *fs, const struct node *dir,
			       const struct node_target *t, uint64_t pos, struct node *child)
{
	(void)dir;
	(void)t;
	size_t n;
	const struct monster *m = table(fs, &n);
	uint64_t i = (pos - NODE_POS_FIRST) / 2;
	if (i >= n)
		return CHILD_END;
	*child = (struct node){.type = NODE_BY_NAME_LINK, .entry = m[i].model,
			       .stream = (pos - NODE_POS_FIRST) % 2};
	return node_exists(fs, child) ? CHILD_FOUND : CHILD_SKIP;
}

const struct view_class view_by_name = {
	.flags = VIEW_DIR | VIEW_READ_ONLY,
	.in = NODE_ROOT,
	.fixed_name = "by-name",
	.resolve = by_name_resolve,
	.child_named = link_named,
	.child_at = link_at,
};

/* ---- the links ----------------------------------------------------------- */

static const struct monster *monster_of(const struct mhfs *fs, const struct node *n)
{
	size_t count;
	const struct monster *m = table(fs, &count);
	for (size_t i = 0; i < count; i++)
		if (m[i].model == n->entry)
			return &m[i];
	return NULL;
}

static void link_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	const struct monster *m = monster_of(fs, n);
	snprintf(buf, len, "%s%s", m ? m->name : "?", n->stream ? MOVESET_SUFFIX : "");
}

static void link_parent(const struct node *n, struct node *dir)
{
	(void)n;
	*dir = (struct node){.type = NODE_BY_NAME};
}

/* The first member of kind k of a top-level PAC, -1 if none. */
static int member_of_kind(struct mhfs *fs, uint32_t entry, enum kind k)
{
	const struct pactree *tree = archive_entry_kind(&fs->ar, entry) == KIND_PAC
					     ? archive_entry_tree(&fs->ar, entry) : NULL;
	for (uint32_t i = 0; tree && i < tree->count; i++)
		if (tree->subs[i].size && tree->subs[i].kind == k)
			return (int)i;
	return -1;
}

static int link_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	const struct monster *m = monster_of(fs, n);
	uint32_t step = m ? monsters_moveset_step(fs->ar.db.game) : 0;
	char dir[32];
	if (!m || m->model + step >= fs->ar.count || member_of_kind(fs, m->model, KIND_SKELETON) < 0)
		return ENOENT;
	if (!n->stream) {
		names_entry_dir(m->model, dir, sizeof dir);
		snprintf(t->link, sizeof t->link, "../%s", dir);
		return 0;
	}
	if (step) {
		/* MHP3rd: a standalone pack, two entries on. */
		if (archive_entry_kind(&fs->ar, m->model + step) != KIND_ANIM)
			return ENOENT;
		names_entry_dir(m->model + step, dir, sizeof dir);
		snprintf(t->link, sizeof t->link, "../%s", dir);
		return 0;
	}
	int pack = member_of_kind(fs, m->model, KIND_ANIM);
	if (pack < 0)
		return ENOENT;
	names_entry_dir(m->model, dir, sizeof dir);
	snprintf(t->link, sizeof t->link, "../%s/%d", dir, pack);
	return 0;
}

const struct view_class view_by_name_link = {
	.flags = VIEW_ITEM | VIEW_STREAM,
	.name = link_name,
	.parent = link_parent,
	.resolve = link_resolve,
};
