/* SPDX-License-Identifier: MIT */
/* .mhfu/export/: the entries that differ from their originals now
 * (original.h), laid out as the games' mod loaders read loose files
 * (codecs/loose.h): NATIVEPSP/ for FUComplete (MHFU, MHP2G), with its
 * FILE.BIN, and P3rdML/files/ for MHP3rd's loader; a DATA.BIN of an
 * unknown game shows both.  Read-only, made afresh from the archive. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loose.h"
#include "node.h"
#include "original.h"

static bool is_databin(const struct mhfs *fs)
{
	return fs->ar.format == FORMAT_DATABIN;
}

static int databin_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)n;
	(void)t;
	return is_databin(fs) ? 0 : ENOENT;
}

const struct view_class view_export = {
	.flags = VIEW_DIR | VIEW_READ_ONLY,
	.in = NODE_META,
	.fixed_name = "export",
	.resolve = databin_resolve,
};

/* ---- the two layouts ---------------------------------------------------- */

/* A layout's folder of files, and its files' type. */
struct layout {
	enum loose_layout loose;
	enum node_type dir, file;
	enum databin_game not_for[2]; /* games whose loader is the other's */
};

static const struct layout LAYOUTS[] = {
	{LOOSE_FUCOMPLETE, NODE_EXPORT_FU, NODE_EXPORT_FU_FILE, {GAME_MHP3RD, GAME_MHP3RD}},
	{LOOSE_P3RDML, NODE_EXPORT_P3_FILES, NODE_EXPORT_P3_FILE, {GAME_MHFU, GAME_MHP2G}},
};

/* The layout of a folder or file type. */
static const struct layout *layout_of(enum node_type type)
{
	for (size_t i = 0; i < sizeof LAYOUTS / sizeof *LAYOUTS; i++)
		if (LAYOUTS[i].dir == type || LAYOUTS[i].file == type)
			return &LAYOUTS[i];
	return NULL;
}

static bool layout_shown(const struct mhfs *fs, const struct layout *l)
{
	return is_databin(fs) && fs->ar.db.game != l->not_for[0] && fs->ar.db.game != l->not_for[1];
}

static int layout_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)t;
	const struct layout *l = layout_of(n->type == NODE_EXPORT_P3 ? NODE_EXPORT_P3_FILES
								      : n->type);
	return l && layout_shown(fs, l) ? 0 : ENOENT;
}

static bool files_child_named(struct mhfs *fs, const struct node *dir,
			      const struct node_target *t, const char *name, struct node *child)
{
	(void)t;
	const struct layout *l = layout_of(dir->type);
	uint32_t id;
	if (!loose_parse_name(l->loose, name, &id) || id >= fs->ar.count)
		return false;
	*child = (struct node){.type = l->file, .entry = id};
	return true;
}

/* One position per entry, its engine id. */
static enum view_child files_child_at(struct mhfs *fs, const struct node *dir,
				      const struct node_target *t, uint64_t pos,
				      struct node *child)
{
	(void)t;
	const struct layout *l = layout_of(dir->type);
	uint32_t id;
	if (!history_next_changed(&fs->history, (uint32_t)(pos - NODE_POS_FIRST), &id))
		return CHILD_END;
	if (id != pos - NODE_POS_FIRST || !original_differs(fs, id))
		return CHILD_SKIP;
	*child = (struct node){.type = l->file, .entry = id};
	return CHILD_FOUND;
}

const struct view_class view_export_fu = {
	.flags = VIEW_DIR | VIEW_READ_ONLY,
	.in = NODE_EXPORT,
	.fixed_name = "NATIVEPSP",
	.resolve = layout_resolve,
	.child_named = files_child_named,
	.child_at = files_child_at,
};

const struct view_class view_export_p3 = {
	.flags = VIEW_DIR | VIEW_READ_ONLY,
	.in = NODE_EXPORT,
	.fixed_name = "P3rdML",
	.resolve = layout_resolve,
};

const struct view_class view_export_p3_files = {
	.flags = VIEW_DIR | VIEW_READ_ONLY,
	.in = NODE_EXPORT_P3,
	.fixed_name = "files",
	.resolve = layout_resolve,
	.child_named = files_child_named,
	.child_at = files_child_at,
};

/* ---- the files ----------------------------------------------------------- */

static void file_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	loose_name(layout_of(n->type)->loose, n->entry, buf, len);
}

static void file_parent(const struct node *n, struct node *dir)
{
	*dir = (struct node){.type = layout_of(n->type)->dir};
}

static int file_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)t;
	return layout_shown(fs, layout_of(n->type)) && original_differs(fs, n->entry) ? 0
										    : ENOENT;
}

/* The loader's header, then the entry's bytes as they are now. */
static int file_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	const struct layout *l = layout_of(n->type);
	int err = file_resolve(fs, n, NULL);
	if (err)
		return err;
	uint64_t size = archive_entry_size(&fs->ar, n->entry);
	size_t head = loose_header_len(l->loose);
	uint8_t *f = malloc(head + size ? head + size : 1);
	if (!f)
		return ENOMEM;
	err = archive_read_all(&fs->ar, n->entry, 0, f + head, size);
	if (err || !loose_header(l->loose, size, f)) {
		free(f);
		return err ? err : EIO;
	}
	*data = f;
	*len = head + size;
	return 0;
}

const struct view_class view_export_fu_file = {
	.flags = VIEW_ITEM,
	.source = SOURCE_BYTES,
	.name = file_name,
	.parent = file_parent,
	.resolve = file_resolve,
	.contents = file_contents,
};

const struct view_class view_export_p3_file = {
	.flags = VIEW_ITEM,
	.source = SOURCE_BYTES,
	.name = file_name,
	.parent = file_parent,
	.resolve = file_resolve,
	.contents = file_contents,
};

/* ---- FILE.BIN ------------------------------------------------------------ */

static int bitmap_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	int err = layout_resolve(fs, &(struct node){.type = NODE_EXPORT_FU}, NULL);
	(void)n;
	if (err)
		return err;
	size_t bytes = loose_bitmap_len(fs->ar.count);
	uint8_t *map = calloc(1, bytes ? bytes : 1);
	if (!map)
		return ENOMEM;
	for (uint32_t id = 0; history_next_changed(&fs->history, id, &id); id++)
		if (original_differs(fs, id))
			loose_bitmap_mark(map, id);
	*data = map;
	*len = bytes;
	return 0;
}

static int bitmap_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)n;
	return layout_resolve(fs, &(struct node){.type = NODE_EXPORT_FU}, t);
}

const struct view_class view_export_bitmap = {
	.flags = VIEW_LIVE,
	.in = NODE_EXPORT_FU,
	.fixed_name = LOOSE_BITMAP_NAME,
	.resolve = bitmap_resolve,
	.contents = bitmap_contents,
};
