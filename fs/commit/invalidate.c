/* SPDX-License-Identifier: MIT */
/* What a commit changes of what the kernel holds (invalidate.h). */
#include "invalidate.h"

#include <stdlib.h>

#include "records.h"

/* The most entries archive_for_linked names for one entry: the movesets
 * and their model PACs, and the PAC before it. */
#define MAX_LINKED (2 * (RECORDS_LINK_SPAN + 1) + 1)

void change_of(const struct node *view, enum kind before, enum kind after,
	       struct change *c)
{
	*c = (struct change){.item = *view};
	c->item.type = NODE_FILE;
	c->item.stream = c->item.slot = 0;
	c->pack = before == KIND_ANIM && after == KIND_ANIM;
	c->was_anim = view->depth == 0 && (before == KIND_ANIM || after == KIND_ANIM);
}

void change_of_entry(uint32_t entry, struct change *c)
{
	/* What the entry is after a replay is not known before it. */
	*c = (struct change){.item = {.type = NODE_FILE, .entry = entry}, .was_anim = true};
}

struct judging {
	struct mhfs *fs;
	const struct change *c;
	uint32_t linked[MAX_LINKED];
	size_t nlinked;
};

static void add_linked(void *ctx, uint32_t e)
{
	struct judging *j = ctx;
	if (j->nlinked < MAX_LINKED)
		j->linked[j->nlinked++] = e;
}

static bool is_linked(const struct judging *j, uint32_t e)
{
	for (size_t i = 0; i < j->nlinked; i++)
		if (j->linked[i] == e)
			return true;
	return false;
}

/* Where node n stands to the item committed to, in its entry. */
enum relation { BENEATH, ABOVE, APART };

static enum relation relation(const struct node *n, const struct node *item)
{
	unsigned common = n->depth < item->depth ? n->depth : item->depth;
	for (unsigned i = 0; i < common; i++)
		if (n->path[i] != item->path[i])
			return APART;
	return n->depth >= item->depth ? BENEATH : ABOVE;
}

/* The fate of the view at `place` (inodes.h's judge; the table's lock is
 * held: this computes from the numbers alone). */
static enum ino_fate judge(void *ctx, uint64_t ino, uint64_t place)
{
	(void)ino;
	struct judging *j = ctx;
	const struct change *c = j->c;
	struct node n;
	if (!node_from_ino(j->fs, place, &n))
		return FATE_KEEP;
	const struct view_class *cls = node_class(&n);
	bool dir = cls->flags & VIEW_DIR;
	if (cls->flags & VIEW_LIVE)
		return FATE_KEEP; /* never cached */
	if (!(cls->flags & VIEW_ITEM))
		return dir ? FATE_REFRESH : FATE_RETIRE; /* the root, index.tsv */
	if (n.entry != c->item.entry) {
		if (!is_linked(j, n.entry))
			return FATE_KEEP;
		return dir ? FATE_REFRESH : cls->source == SOURCE_BYTES ? FATE_KEEP : FATE_RETIRE;
	}
	if (n.original)
		return FATE_KEEP; /* as it was before the first commit, for good */
	enum relation r = relation(&n, &c->item);
	if (dir)
		return r != APART || !c->pack ? FATE_REFRESH : FATE_KEEP;
	switch (cls->source) {
	case SOURCE_BYTES:
		return r == APART ? FATE_KEEP : FATE_RETIRE;
	case SOURCE_MODEL:
		return r == BENEATH || !c->pack ? FATE_RETIRE : FATE_KEEP;
	default:
		return FATE_RETIRE;
	}
}

int invalidate_plan(struct mhfs *fs, const struct change *c, struct ino_plan *plan)
{
	struct judging j = {.fs = fs, .c = c};
	archive_for_linked(&fs->ar, c->item.entry, c->was_anim, add_linked, &j);
	return inodes_plan(&fs->inodes, judge, &j, plan);
}

void invalidate_after(struct mhfs *fs, const struct ino_plan *plan)
{
	for (size_t i = 0; i < plan->applied; i++)
		if (plan->steps[i].fate != FATE_KEEP)
			kernel_forget(fs, plan->steps[i].ino);
	/* The root's attributes (nothing looks it up, so no plan has it). */
	if (plan->applied)
		kernel_forget(fs, NODE_ROOT);
}
