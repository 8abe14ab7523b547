#include "node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_SHIFT 48
#define PATH_SHIFT 21
#define PATH_BITS 9
#define VIEW_MASK ((1ull << PATH_SHIFT) - 1)
#define PATH_MASK ((1ull << PATH_BITS) - 1)

/* Listing positions: "." and "..", the mount's own names, then two per
 * entry or sub-entry (its raw file, its folder). */
#define POS_FIRST_CHILD 4

static bool single_pac(const struct archive *ar)
{
	return ar->format == FORMAT_PAC;
}

static bool is_pac_root(const struct archive *ar, const struct node *n)
{
	return single_pac(ar) && n->type == NODE_DIR && n->entry == 0 && n->depth == 0;
}

uint64_t node_ino(const struct archive *ar, const struct node *n)
{
	if (n->type != NODE_FILE && n->type != NODE_DIR)
		return n->type;
	if (is_pac_root(ar, n))
		return NODE_ROOT;
	uint64_t ino = ((uint64_t)n->entry + 1) << ENTRY_SHIFT;
	for (unsigned i = 0; i < n->depth; i++)
		ino |= ((uint64_t)n->path[i] + 1) << (PATH_SHIFT + PATH_BITS * i);
	return ino | (n->type == NODE_DIR ? NODE_VIEW_DIR : NODE_VIEW_FILE);
}

bool node_from_ino(const struct archive *ar, uint64_t ino, struct node *n)
{
	memset(n, 0, sizeof *n);
	uint64_t entry = ino >> ENTRY_SHIFT;
	if (entry == 0) {
		if (ino == NODE_ROOT && single_pac(ar)) {
			n->type = NODE_DIR;
			return true;
		}
		if (ino < NODE_ROOT || ino > NODE_INDEX)
			return false;
		if (ino == NODE_INDEX && single_pac(ar))
			return false;
		n->type = (enum node_type)ino;
		return true;
	}
	if (entry > ar->count)
		return false;
	n->entry = (uint32_t)(entry - 1);
	uint64_t view = ino & VIEW_MASK;
	if (view != NODE_VIEW_FILE && view != NODE_VIEW_DIR)
		return false;
	n->type = view == NODE_VIEW_DIR ? NODE_DIR : NODE_FILE;
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

bool node_resolve(struct archive *ar, const struct node *n, struct node_target *t)
{
	memset(t, 0, sizeof *t);
	t->size = archive_entry_size(ar, n->entry);
	t->kind = archive_entry_kind(ar, n->entry);
	const struct pactree *tree = NULL;
	if (n->depth > 0 || n->type == NODE_DIR) {
		tree = archive_entry_tree(ar, n->entry);
		/* A PAC whose full decode failed still lists as a folder
		 * (the sniff said PAC); it is empty, the reason logged. */
		if (!tree && !(n->depth == 0 && t->kind == KIND_PAC))
			return false;
	}
	for (unsigned i = 0; i < n->depth; i++) {
		if (!tree || n->path[i] >= tree->count || !tree->subs[n->path[i]].size)
			return false;
		const struct pactree_sub *s = &tree->subs[n->path[i]];
		t->offset = s->offset;
		t->size = s->size;
		t->kind = s->kind;
		tree = s->child;
	}
	if (n->type == NODE_DIR) {
		if (!tree && !(n->depth == 0 && t->kind == KIND_PAC))
			return false;
		t->tree = tree;
	}
	return true;
}

/* Names of a child at a listing position of an entry-level or
 * sub-entry-level directory. */
static void entry_file_name(struct archive *ar, uint32_t id, char *buf, size_t len)
{
	archive_entry_name(ar, id, buf, len);
}

static void entry_dir_name(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "file_%05lld", (long long)id - 1);
}

static void sub_file_name(const struct pactree_sub *s, uint32_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%u%s", i, kind_ext(s->kind));
}

static void sub_dir_name(uint32_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%u", i);
}

static struct node sub_node(const struct node *dir, uint32_t i, enum node_type type)
{
	struct node c = *dir;
	c.type = type;
	c.path[c.depth++] = (uint16_t)i;
	return c;
}

static struct node entry_node(uint32_t id, enum node_type type)
{
	return (struct node){.type = type, .entry = id};
}

/* Parses the decimal number that starts `s` (an optional '-', then
 * digits); false if there is none. */
static bool leading_number(const char *s, long long *v)
{
	char *end;
	if (!(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	*v = strtoll(s, &end, 10);
	return end != s;
}

bool node_lookup(struct archive *ar, const struct node *dir, const char *name,
		 struct node *child)
{
	char want[64];
	long long v;
	bool root = dir->type == NODE_ROOT || is_pac_root(ar, dir);

	if (root && !strcmp(name, ".mhfu")) {
		*child = (struct node){.type = NODE_META};
		return true;
	}
	if (dir->type == NODE_ROOT && !strcmp(name, "index.tsv")) {
		*child = (struct node){.type = NODE_INDEX};
		return true;
	}
	if (dir->type == NODE_META) {
		if (!strcmp(name, "info") || !strcmp(name, "log")) {
			*child = (struct node){.type = name[0] == 'i' ? NODE_INFO : NODE_LOG};
			return true;
		}
		return false;
	}
	if (dir->type == NODE_ROOT) {
		if (strncmp(name, "file_", 5) || !leading_number(name + 5, &v) ||
		    v < -1 || v + 1 >= (long long)ar->count)
			return false;
		uint32_t id = (uint32_t)(v + 1);
		entry_dir_name(id, want, sizeof want);
		if (!strcmp(name, want)) {
			*child = entry_node(id, NODE_DIR);
			return archive_entry_kind(ar, id) == KIND_PAC;
		}
		entry_file_name(ar, id, want, sizeof want);
		*child = entry_node(id, NODE_FILE);
		return !strcmp(name, want);
	}
	if (dir->type != NODE_DIR || dir->depth >= PACTREE_MAX_DEPTH)
		return false;

	struct node_target t;
	if (!node_resolve(ar, dir, &t) || !t.tree || !leading_number(name, &v) ||
	    v < 0 || v >= t.tree->count || name[0] == '-')
		return false;
	const struct pactree_sub *s = &t.tree->subs[v];
	if (!s->size)
		return false;
	sub_dir_name((uint32_t)v, want, sizeof want);
	if (!strcmp(name, want)) {
		*child = sub_node(dir, (uint32_t)v, NODE_DIR);
		return s->child != NULL;
	}
	sub_file_name(s, (uint32_t)v, want, sizeof want);
	*child = sub_node(dir, (uint32_t)v, NODE_FILE);
	return !strcmp(name, want);
}

bool node_child_at(struct archive *ar, const struct node *dir, uint64_t *pos,
		   struct node *child, char *name, size_t name_len)
{
	bool root = dir->type == NODE_ROOT || is_pac_root(ar, dir);

	for (;; (*pos)++) {
		uint64_t p = *pos;
		if (p == 0 || p == 1) {
			*child = *dir; /* "..": the kernel fills in the parent */
			snprintf(name, name_len, p == 0 ? "." : "..");
			return true;
		}
		if (p == 2 && root) {
			*child = (struct node){.type = NODE_META};
			snprintf(name, name_len, ".mhfu");
			return true;
		}
		if (p == 3 && dir->type == NODE_ROOT) {
			*child = (struct node){.type = NODE_INDEX};
			snprintf(name, name_len, "index.tsv");
			return true;
		}
		if (p < POS_FIRST_CHILD)
			continue;

		uint64_t i = (p - POS_FIRST_CHILD) / 2;
		bool folder = (p - POS_FIRST_CHILD) % 2;
		if (dir->type == NODE_META) {
			if (i > 1)
				return false;
			if (folder)
				continue;
			*child = (struct node){.type = i == 0 ? NODE_INFO : NODE_LOG};
			snprintf(name, name_len, i == 0 ? "info" : "log");
			return true;
		}
		if (dir->type == NODE_ROOT) {
			if (i >= ar->count)
				return false;
			if (folder) {
				if (archive_entry_kind(ar, (uint32_t)i) != KIND_PAC)
					continue;
				entry_dir_name((uint32_t)i, name, name_len);
			} else {
				entry_file_name(ar, (uint32_t)i, name, name_len);
			}
			*child = entry_node((uint32_t)i, folder ? NODE_DIR : NODE_FILE);
			return true;
		}

		struct node_target t;
		if (dir->depth >= PACTREE_MAX_DEPTH || !node_resolve(ar, dir, &t) ||
		    !t.tree || i >= t.tree->count)
			return false;
		const struct pactree_sub *s = &t.tree->subs[i];
		if (!s->size || (folder && !s->child))
			continue;
		if (folder)
			sub_dir_name((uint32_t)i, name, name_len);
		else
			sub_file_name(s, (uint32_t)i, name, name_len);
		*child = sub_node(dir, (uint32_t)i, folder ? NODE_DIR : NODE_FILE);
		return true;
	}
}
