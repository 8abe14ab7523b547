/* SPDX-License-Identifier: MIT */
/* Generic dispatch over the view classes (view.h), and inode numbers. */
#include "node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "item.h"
#include "mhfs.h"

#define ENTRY_SHIFT 48
#define PATH_SHIFT 21
#define PATH_BITS 9
#define PATH_MASK ((1ull << PATH_BITS) - 1)
#define SLOT_SHIFT 12
#define STREAM_SHIFT 7
#define TYPE_MASK 0x3full
#define ORIGINAL_BIT 0x40ull

#define VIEW_ENTRY(type, cls) [type] = &cls,
static const struct view_class *const classes[NODE_TYPES] = {VIEW_TABLE(VIEW_ENTRY)};
#undef VIEW_ENTRY

_Static_assert(NODE_TYPES <= TYPE_MASK + 1, "view types fit an inode's type field");
_Static_assert(NODE_MAX_SLOTS <= 1u << (PATH_SHIFT - SLOT_SHIFT), "slots fit");
_Static_assert(NODE_MAX_STREAMS <= 1u << (SLOT_SHIFT - STREAM_SHIFT), "streams fit");
_Static_assert(ARCHIVE_MAX_ENTRIES < INODES_ALLOC_TOP,
	       "engine ids + 1 fit an inode's entry field below allocated numbers'");

const struct view_class *node_class(const struct node *n)
{
	return classes[n->type];
}

const struct view_class *node_folder_class(struct mhfs *fs, uint64_t dir)
{
	struct node n;
	return ino_space(dir) == INO_VIEW && node_from_ino(fs, dir, &n) && node_is_dir(&n)
		       ? node_class(&n) : NULL;
}

enum node_type node_folder_type(enum kind k)
{
	for (int t = NODE_NONE + 1; t < NODE_TYPES; t++)
		if ((classes[t]->flags & VIEW_EXPANDS) && classes[t]->expands == k)
			return (enum node_type)t;
	return NODE_NONE;
}

static bool is_mount_root(const struct mhfs *fs, const struct node *n)
{
	return n->type == NODE_ROOT || item_is_pac_root(&fs->ar, n);
}

/* ---- inode numbers ---------------------------------------------------- */

/* The kernel finds inodes in a hash table keyed by the low bits of their
 * numbers (fs/inode.c): numbers that differ only in the entry field would
 * all share one bucket, and listing the root would walk thousands of
 * inodes per name.  So a hash of the entry field is XOR-ed into the bits
 * below it; applying the same XOR again undoes it. */
static uint64_t ino_scramble(uint64_t ino)
{
	uint64_t entry = ino >> ENTRY_SHIFT & 0x7fff;
	return ino ^ (entry * 0x9e3779b97f4a7c15ull >> (64 - ENTRY_SHIFT));
}

uint64_t node_place(const struct mhfs *fs, const struct node *n)
{
	if (!(node_class(n)->flags & VIEW_ITEM))
		return n->type;
	if (item_is_pac_root(&fs->ar, n))
		return NODE_ROOT;
	uint64_t ino = ((uint64_t)n->entry + 1) << ENTRY_SHIFT;
	for (unsigned i = 0; i < n->depth; i++)
		ino |= ((uint64_t)n->path[i] + 1) << (PATH_SHIFT + PATH_BITS * i);
	return ino_scramble(ino | (uint64_t)n->slot << SLOT_SHIFT |
			    (uint64_t)n->stream << STREAM_SHIFT |
			    (n->original ? ORIGINAL_BIT : 0) | n->type);
}

uint64_t node_ino(struct mhfs *fs, const struct node *n)
{
	uint64_t place = node_place(fs, n);
	/* Folders keep their place numbers (inodes.h). */
	return node_is_dir(n) ? place : inodes_current(&fs->inodes, place);
}

struct archive *node_archive(struct mhfs *fs, const struct node *n)
{
	return n->original ? &fs->original : &fs->ar;
}

bool node_from_ino(struct mhfs *fs, uint64_t ino, struct node *n)
{
	memset(n, 0, sizeof *n);
	/* A number after a place's own names the place in the table. */
	if (ino >> ENTRY_SHIFT == INODES_ALLOC_TOP && !inodes_place(&fs->inodes, ino, &ino))
		return false;
	ino = ino_scramble(ino);
	uint64_t entry = ino >> ENTRY_SHIFT, type = ino & TYPE_MASK;
	if (type == NODE_NONE || type >= NODE_TYPES)
		return false;
	n->type = (enum node_type)type;
	n->original = ino & ORIGINAL_BIT;
	unsigned flags = node_class(n)->flags;
	if (n->original && !(flags & VIEW_ITEM))
		return false;
	if (entry == 0) {
		if (ino == NODE_ROOT && fs->ar.format == FORMAT_PAC)
			n->type = NODE_DIR;
		return ino == type && !(flags & VIEW_ITEM);
	}
	if (entry > fs->ar.count || !(flags & VIEW_ITEM))
		return false;
	n->entry = (uint32_t)(entry - 1);
	n->stream = ino >> STREAM_SHIFT & (NODE_MAX_STREAMS - 1);
	n->slot = ino >> SLOT_SHIFT & (NODE_MAX_SLOTS - 1);
	if ((!(flags & VIEW_STREAM) && n->stream) || (!(flags & VIEW_SLOT) && n->slot))
		return false;
	bool ended = false;
	for (unsigned i = 0; i < PACTREE_MAX_DEPTH; i++) {
		uint64_t f = ino >> (PATH_SHIFT + PATH_BITS * i) & PATH_MASK;
		if (f == 0) {
			ended = true;
			continue;
		}
		if (ended || f > PAC_MAX_ENTRIES)
			return false;
		n->path[n->depth++] = (uint16_t)(f - 1);
	}
	return true;
}

/* ---- dispatch --------------------------------------------------------- */

int node_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	memset(t, 0, sizeof *t);
	return node_class(n)->resolve(fs, n, t);
}

int node_resolve_type(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	memset(t, 0, sizeof *t);
	t->listing = true;
	return node_class(n)->resolve(fs, n, t);
}

bool node_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	const struct view_class *c = node_class(n);
	return c->exists ? c->exists(fs, n) : !node_resolve(fs, n, &t);
}

void node_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	const struct view_class *c = node_class(n);
	if (c->fixed_name)
		snprintf(buf, len, "%s", c->fixed_name);
	else
		c->name(fs, n, buf, len);
}

/* The fixed-name view of class type in folder dir. */
static struct node fixed_child(const struct node *dir, enum node_type type)
{
	struct node c = *dir;
	c.type = type;
	c.stream = c.slot = 0;
	return c;
}

/* Whether class c is a fixed-name view in folders of type dir. */
static bool fixed_in(const struct view_class *c, enum node_type dir)
{
	return dir != NODE_NONE &&
	       (c->in == dir || c->also_in[0] == dir || c->also_in[1] == dir);
}

/* The folder of fixed-name view n of class c: of its `in` type or, for a
 * view in several folder types, of the type its item shows as. */
static struct node fixed_folder(struct mhfs *fs, const struct node *n,
				const struct view_class *c)
{
	struct item it;
	enum node_type type = c->in;
	if (c->also_in[0] != NODE_NONE && !item_resolve(node_archive(fs, n), n, &it) &&
	    fixed_in(c, node_folder_type(it.kind)))
		type = node_folder_type(it.kind);
	return fixed_child(n, type);
}

/* The k-th fixed-name view of folder dir's type; false past the last. */
static bool nth_fixed_child(const struct node *dir, uint64_t k, struct node *child)
{
	for (int t = NODE_NONE + 1; t < NODE_TYPES; t++)
		if (fixed_in(classes[t], dir->type) && k-- == 0) {
			*child = fixed_child(dir, (enum node_type)t);
			return true;
		}
	return false;
}

static uint64_t fixed_children(const struct node *dir)
{
	uint64_t n = 0;
	for (int t = NODE_NONE + 1; t < NODE_TYPES; t++)
		n += fixed_in(classes[t], dir->type);
	return n;
}

void node_path(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	const struct view_class *c = node_class(n);
	struct node dir;
	if ((!c->in && !c->parent) || is_mount_root(fs, n)) {
		buf[0] = '\0';
		return;
	}
	if (c->in)
		dir = fixed_folder(fs, n, c);
	else
		c->parent(n, &dir);
	node_path(fs, &dir, buf, len);
	size_t used = strlen(buf);
	if (used && used + 1 < len)
		buf[used++] = '/';
	node_name(fs, n, buf + used, len - used);
}

void node_child_path(struct mhfs *fs, const struct node *dir, const char *name, char *buf,
		     size_t len)
{
	node_path(fs, dir, buf, len);
	size_t used = strlen(buf);
	snprintf(buf + used, len - used, "%s%s", used ? "/" : "", name);
}

bool node_unlocked(const struct node *n)
{
	return node_class(n)->flags & VIEW_UNLOCKED;
}

bool node_unlocked_lookup(struct mhfs *fs, const struct node *dir, const char *name)
{
	return node_unlocked(dir) || (is_mount_root(fs, dir) && !strcmp(name, ".mhfu"));
}

int node_lookup(struct mhfs *fs, const struct node *dir, const char *name,
		struct node *child)
{
	struct node_target t;
	char want[256];
	if (is_mount_root(fs, dir) && !strcmp(name, ".mhfu")) {
		*child = (struct node){.type = NODE_META};
		return 0;
	}
	const struct view_class *c = node_class(dir);
	if (!(c->flags & VIEW_DIR))
		return ENOTDIR;
	int err = node_resolve(fs, dir, &t);
	if (err)
		return err;
	bool named = false;
	for (uint64_t k = 0; !named && nth_fixed_child(dir, k, child); k++) {
		node_name(fs, child, want, sizeof want);
		named = !strcmp(name, want);
	}
	if (!named && !(c->child_named && c->child_named(fs, dir, &t, name, child)))
		return ENOENT;
	node_name(fs, child, want, sizeof want);
	if (strcmp(name, want))
		return ENOENT;
	return node_resolve(fs, child, &t);
}

bool node_child_at(struct mhfs *fs, const struct node *dir, uint64_t *pos,
		   struct node *child, char *name, size_t name_len)
{
	const struct view_class *c = node_class(dir);
	struct node_target t;
	bool resolved = false;
	for (;; (*pos)++) {
		uint64_t p = *pos;
		if (p == 0 || p == 1) {
			*child = *dir; /* "..": the kernel fills in the parent */
			snprintf(name, name_len, p == 0 ? "." : "..");
			return true;
		}
		if (p == 2 && is_mount_root(fs, dir)) {
			*child = (struct node){.type = NODE_META};
			snprintf(name, name_len, ".mhfu");
			return true;
		}
		if (p < NODE_POS_FIRST)
			continue;
		if (!resolved && !(resolved = !node_resolve(fs, dir, &t)))
			return false;
		uint64_t fixed = fixed_children(dir);
		if (p - NODE_POS_FIRST < fixed) {
			nth_fixed_child(dir, p - NODE_POS_FIRST, child);
			if (node_exists(fs, child)) {
				node_name(fs, child, name, name_len);
				return true;
			}
			continue;
		}
		if (!c->child_at)
			return false;
		switch (c->child_at(fs, dir, &t, p - fixed, child)) {
		case CHILD_FOUND:
			node_name(fs, child, name, name_len);
			return true;
		case CHILD_END:
			return false;
		case CHILD_SKIP:
			break;
		}
	}
}

bool node_fillable(struct mhfs *fs, const struct node *dir, const char *name,
		   struct node *view)
{
	struct node_target t;
	char want[256];
	const struct view_class *c = node_class(dir);
	if (!c->fillable || node_resolve(fs, dir, &t) || !c->fillable(fs, dir, &t, name, view))
		return false;
	node_name(fs, view, want, sizeof want);
	return !strcmp(name, want);
}

bool node_name_reserved(struct mhfs *fs, const struct node *dir, const char *name,
			struct fs_diag *why)
{
	struct node_target t;
	const struct view_class *c = node_class(dir);
	return c->reserved && !node_resolve(fs, dir, &t) &&
	       c->reserved(fs, dir, &t, name, why);
}

int node_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	return node_contents_to_read(fs, n, data, len, NULL);
}

int node_contents_to_read(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len,
			  const struct model_text **shared)
{
	struct node_target t;
	const struct view_class *c = node_class(n);
	if (shared)
		*shared = NULL;
	if (c->flags & VIEW_DIR)
		return EISDIR;
	if (c->contents)
		return c->contents(fs, n, data, len);
	int err = node_resolve(fs, n, &t);
	if (err)
		return err;
	if (t.link[0])
		return ENOENT;
	if (shared && (*shared = model_text_share(t.kept))) {
		*data = (uint8_t *)(uintptr_t)t.kept->text;
		*len = t.kept->len;
		return 0;
	}
	if (t.text) {
		if (!(*data = malloc(t.text_len ? t.text_len : 1)))
			return ENOMEM;
		memcpy(*data, t.text, t.text_len);
		*len = t.text_len;
		return 0;
	}
	if (!(*data = malloc(t.size ? t.size : 1)))
		return ENOMEM;
	if ((err = archive_read_all(node_archive(fs, n), n->entry, t.offset, *data, t.size))) {
		free(*data);
		*data = NULL;
		return err;
	}
	*len = t.size;
	return 0;
}
