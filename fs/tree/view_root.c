/* SPDX-License-Identifier: MIT */
/* The root of a DATA.BIN mount: each entry as a raw file and, when it
 * expands, a folder; and index.tsv, one line per entry.  (A single-PAC
 * mount's root is its PAC's folder, view_item.c.) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "item.h"
#include "view_root.h"
#include "mhfs.h"
#include "node.h"
#include "strbuf.h"

/* Listing positions: two per entry (file, folder). */
#define POS_ENTRIES NODE_POS_FIRST

static int root_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)fs;
	(void)n;
	(void)t;
	return 0;
}

bool root_entry_of(const struct archive *ar, const char *name, uint32_t *id,
		   const char **end)
{
	long long v = -1;
	*end = name + 10;
	if (strncmp(name, "file_", 5) ||
	    (strncmp(name, "file_-0001", 10) && !view_number(name + 5, &v, end)) ||
	    v + 1 >= (long long)ar->count)
		return false;
	*id = (uint32_t)(v + 1);
	return true;
}

/* "file_06185" or "file_06185.pac", "file_-0001...": the candidate
 * entry (node_lookup checks the whole name). */
static bool root_child_named(struct mhfs *fs, const struct node *dir,
			     const struct node_target *t, const char *name,
			     struct node *child)
{
	(void)dir;
	(void)t;
	uint32_t id;
	const char *end;
	if (!root_entry_of(&fs->ar, name, &id, &end))
		return false;
	enum kind k = archive_entry_kind(&fs->ar, id);
	*child = (struct node){.type = *end ? NODE_FILE : node_folder_type(k), .entry = id};
	return child->type != NODE_NONE;
}

static enum view_child root_child_at(struct mhfs *fs, const struct node *dir,
				     const struct node_target *t, uint64_t pos,
				     struct node *child)
{
	(void)dir;
	(void)t;
	struct archive *ar = &fs->ar;
	archive_sniff_all(ar);
	uint64_t i = (pos - POS_ENTRIES) / 2;
	bool folder = (pos - POS_ENTRIES) % 2;
	if (i >= ar->count)
		return CHILD_END;
	enum node_type type = folder ? node_folder_type(archive_entry_kind(ar, (uint32_t)i))
				     : NODE_FILE;
	*child = (struct node){.type = type, .entry = (uint32_t)i};
	return type == NODE_NONE ? CHILD_SKIP : CHILD_FOUND;
}

static bool root_reserved(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			  const char *name, struct fs_diag *why)
{
	(void)dir;
	(void)t;
	const char *end;
	if (strcasecmp(name, "index.tsv") &&
	    !(view_prefixed(name, "file_", &end) && view_like_end(end)) &&
	    !(view_prefixed(name, "file_-", &end) && view_like_end(end)))
		return false;
	fs_diag_printf(why, "entries are named file_NNNNN.EXT as listed "
		 "(file_-0001 to file_%05u), and cannot be created",
		 fs->ar.count >= 2 ? fs->ar.count - 2 : 0);
	return true;
}

const struct view_class view_root = {
	.flags = VIEW_DIR,
	.fixed_name = "",
	.resolve = root_resolve,
	.child_named = root_child_named,
	.child_at = root_child_at,
	.reserved = root_reserved,
};

/* ---- index.tsv ---------------------------------------------------------- */

/* Built once and kept by the archive (valid until archive_close). */
static const char *index_text(struct archive *ar, size_t *len)
{
	char *index = atomic_load_explicit(&ar->cache.index_tsv, memory_order_acquire);
	if (!index) {
		struct strbuf t = {0};
		char name[64];
		strbuf_printf(&t, "# name\tid\tstart\tblocks\tsize\tkind\tplain\n");
		archive_sniff_all(ar); /* every kind, in large reads */
		for (uint32_t id = 0; id < ar->count; id++) {
			archive_entry_name(ar, id, name, sizeof name);
			strbuf_printf(&t, "%s\t%u\t%u\t%u\t%llu\t%s\t%s\n", name, id,
				    ar->db.start[id], databin_entry_blocks(&ar->db, id),
				    (unsigned long long)archive_entry_size(ar, id),
				    kind_name(archive_entry_kind(ar, id)),
				    archive_entry_plain(ar, id) ? "yes" : "no");
		}
		char *built = strbuf_take(&t, NULL), *expected = NULL;
		if (!built)
			return NULL;
		if (!atomic_compare_exchange_strong(&ar->cache.index_tsv, &expected, built))
			free(built); /* another thread built it first */
		index = atomic_load(&ar->cache.index_tsv);
	}
	*len = strlen(index);
	return index;
}

static int index_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)n;
	if (fs->ar.format != FORMAT_DATABIN)
		return ENOENT;
	t->text = index_text(&fs->ar, &t->text_len);
	return t->text ? 0 : ENOMEM;
}

const struct view_class view_index = {
	.in = NODE_ROOT,
	.fixed_name = "index.tsv",
	.resolve = index_resolve,
};
