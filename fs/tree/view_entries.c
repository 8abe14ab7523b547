/* SPDX-License-Identifier: MIT */
/* An MHFU pack folder's entries/: entryNNN.txt, one executor entry as
 * the whole rig plays it (every part's clip for it, in one text),
 * entryNNN.svg, its curves (read-only), and entries/index.tsv
 * (codecs/entries.h; mhfu-clip(5) "ENTRIES", "PLOTS").  Writing
 * an entry splits it back into the parts' slots in one commit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "edit.h"
#include "view_item.h"
#include "view_pack.h"
#include "entries.h"
#include "item.h"
#include "mhfs.h"

/* The pack folder of entries/ resolves; its pack has parts. */
static int entries_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pack_resolve(fs, n, t);
	return err ? err : entries_parts(&t->model->pack) ? 0 : ENOENT;
}

/* An entry's files, in listing order. */
static const enum node_type entry_files[] = {NODE_ENTRY_TXT, NODE_ENTRY_SVG};
#define ENTRY_FILES (sizeof entry_files / sizeof entry_files[0])

static struct node entry_node(const struct node *dir, enum node_type type, uint32_t entry)
{
	struct node c = *dir;
	c.type = type;
	c.slot = (uint16_t)entry;
	return c;
}

static bool entries_child_named(struct mhfs *fs, const struct node *dir,
				const struct node_target *t, const char *name,
				struct node *child)
{
	(void)fs;
	(void)t;
	long long v;
	const char *end;
	if (strncmp(name, "entry", 5) || !view_number(name + 5, &v, &end) || v >= ENTRIES_MAX)
		return false;
	*child = entry_node(dir, !strcmp(end, ".svg")   ? NODE_ENTRY_SVG
				 : !strcmp(end, ".glb") ? NODE_ENTRY_GLB
							: NODE_ENTRY_TXT,
			    (uint32_t)v);
	return true;
}

/* Two positions per entry, its text and its plots; entries no part plays
 * are not listed. */
static enum view_child entries_child_at(struct mhfs *fs, const struct node *dir,
					const struct node_target *t, uint64_t pos,
					struct node *child)
{
	(void)fs;
	uint64_t e = (pos - NODE_POS_FIRST) / ENTRY_FILES;
	if (e >= ENTRIES_MAX)
		return CHILD_END;
	if (!entries_listed(&t->model->pack, (uint32_t)e))
		return CHILD_SKIP;
	*child = entry_node(dir, entry_files[(pos - NODE_POS_FIRST) % ENTRY_FILES], (uint32_t)e);
	return CHILD_FOUND;
}

static bool entries_reserved(struct mhfs *fs, const struct node *dir,
			     const struct node_target *t, const char *name, struct fs_diag *why)
{
	(void)fs;
	(void)dir;
	(void)t;
	const char *end;
	if (!view_prefixed(name, "entry", &end) || !view_like_end(end))
		return false;
	fs_diag_printf(why, "entries are entryNNN.txt (and entryNNN.svg, the plots, "
		 "read-only), three digits, listed when a part plays them: fill a part's "
		 "slot (stream folders) to add one, or copy a glTF in as entryNNN.glb");
	return true;
}

/* entryNNN.glb: a glTF copied in becomes entry NNN (one no part plays
 * yet too). */
static bool entries_fillable(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			     const char *name, struct node *view)
{
	return entries_child_named(fs, dir, t, name, view) && view->type == NODE_ENTRY_GLB;
}

const struct view_class view_entries_dir = {
	.flags = VIEW_DIR | VIEW_ITEM,
	.in = NODE_PACK_DIR,
	.fixed_name = "entries",
	.resolve = entries_resolve,
	.child_named = entries_child_named,
	.child_at = entries_child_at,
	.reserved = entries_reserved,
	.fillable = entries_fillable,
};

/* ---- entryNNN.txt ------------------------------------------------------- */

static void entry_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	snprintf(buf, len, "entry%03u.txt", n->slot);
}

static void in_entries(const struct node *n, struct node *dir)
{
	*dir = *n;
	dir->type = NODE_ENTRIES_DIR;
	dir->slot = 0;
}

static int entry_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = entries_resolve(fs, n, t);
	if (err)
		return err;
	if (!entries_listed(&t->model->pack, n->slot))
		return ENOENT;
	return item_kept_text(t, model_entry_text(t->model, n->slot));
}

static enum mh_err split_entry(const struct edit *e, struct anim *a, struct mh_diag *d)
{
	return entries_write(a, e->view.slot, (const char *)e->data, e->len, d);
}

static enum mh_err entry_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				enum clip_format *format, uint8_t **out, size_t *out_len,
				struct mh_diag *d)
{
	return pack_reencode(e, old, old_len, format, split_entry, out, out_len, d);
}

/* A violation in one of this entry's slots points at its part's text. */
static unsigned entry_line(const struct edit *e, const struct rule_violation *v)
{
	uint32_t entry = e->view.slot;
	if (v->stream < 0 || (uint32_t)v->stream % 2 != entry / 100 || v->slot != (int)(entry % 100))
		return 0;
	return entries_text_line((const char *)e->data, e->len, (uint32_t)v->stream / 2,
				 v->track, v->channel, v->key);
}

const struct view_class view_entry_txt = {
	.flags = VIEW_ITEM | VIEW_SLOT | VIEW_WRITABLE,
	.source = SOURCE_MODEL,
	.name = entry_name,
	.parent = in_entries,
	.resolve = entry_resolve,
	.encode = entry_encode,
	.violation_line = entry_line,
};

/* ---- entries/entryNNN.svg ----------------------------------------------- */

/* The plots of every part's clip, read-only, drawn on first use and kept
 * with the model (an entry's are too big to draw again at every read, as
 * its text is printed). */

static void entry_svg_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	snprintf(buf, len, "entry%03u.svg", n->slot);
}

static int entry_svg_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = entry_resolve(fs, n, t);
	if (err || t->listing)
		return err;
	return item_kept_text(t, model_entry_svg(t->model, n->slot));
}

const struct view_class view_entry_svg = {
	.flags = VIEW_ITEM | VIEW_SLOT | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_MODEL,
	.name = entry_svg_name,
	.parent = in_entries,
	.resolve = entry_svg_resolve,
};

/* ---- entries/index.tsv --------------------------------------------------- */

/* Printed on first use and kept with the pack's model. */
static int entries_index_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = entries_resolve(fs, n, t);
	return err ? err : item_kept_text(t, model_entries_index(t->model));
}

static bool entries_index_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	return !entries_resolve(fs, n, &t);
}

const struct view_class view_entries_index = {
	.flags = VIEW_ITEM,
	.source = SOURCE_MODEL,
	.in = NODE_ENTRIES_DIR,
	.fixed_name = "index.tsv",
	.resolve = entries_index_resolve,
	.exists = entries_index_exists,
};

/* ---- entryNNN.glb --------------------------------------------------------- */

/* A glTF animation copied in as entry NNN (entries_from_gltf: Blender's
 * export of model.glb, one action): fitted, split into the parts and
 * committed as an entry text is.  Nothing to read back: the file is the
 * request, and the entry's text and plots show what it became. */
static void entry_glb_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	snprintf(buf, len, "entry%03u.glb", n->slot);
}

static enum mh_err split_glb(const struct edit *e, struct anim *a, struct mh_diag *d)
{
	struct entries_edit ed;
	const struct skeleton *rig = e->decoded ? e->decoded->rig : NULL;
	enum mh_err err = entries_from_gltf(a, e->view.slot, -1, rig, e->data, e->len, e->fit, &ed,
					    d);
	if (!err)
		err = entries_apply(a, e->view.slot, &ed, d);
	entries_edit_free(&ed);
	return err;
}

static enum mh_err entry_glb_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				    enum clip_format *format, uint8_t **out, size_t *out_len,
				    struct mh_diag *d)
{
	return pack_reencode(e, old, old_len, format, split_glb, out, out_len, d);
}

const struct view_class view_entry_glb = {
	.flags = VIEW_ITEM | VIEW_SLOT | VIEW_WRITABLE,
	.source = SOURCE_MODEL,
	.name = entry_glb_name,
	.parent = in_entries,
	.resolve = item_request_resolve,
	.encode = entry_glb_encode,
};

/* ---- streamK/slotNNN.glb ----------------------------------------------------- */

/* A glTF animation copied in as one slot: the part stream K plays (K / 2)
 * of the entry the slot is (slot NNN of an even stream: entry NNN; of an
 * odd one: 100 + NNN), that part alone. */
static void slot_glb_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	snprintf(buf, len, "slot%03u.glb", n->slot);
}

static enum mh_err split_slot_glb(const struct edit *e, struct anim *a, struct mh_diag *d)
{
	struct entries_edit ed;
	const struct skeleton *rig = e->decoded ? e->decoded->rig : NULL;
	uint32_t entry = (e->view.stream % 2) * (ENTRIES_MAX / 2) + e->view.slot;
	enum mh_err err = entries_from_gltf(a, entry, e->view.stream / 2, rig, e->data, e->len,
					    e->fit, &ed, d);
	if (!err)
		err = entries_apply(a, entry, &ed, d);
	entries_edit_free(&ed);
	return err;
}

static enum mh_err slot_glb_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				   enum clip_format *format, uint8_t **out, size_t *out_len,
				   struct mh_diag *d)
{
	return pack_reencode(e, old, old_len, format, split_slot_glb, out, out_len, d);
}

const struct view_class view_slot_glb = {
	.flags = VIEW_ITEM | VIEW_STREAM | VIEW_SLOT | VIEW_WRITABLE,
	.source = SOURCE_MODEL,
	.name = slot_glb_name,
	.parent = pack_stream_of,
	.resolve = item_request_resolve,
	.encode = slot_glb_encode,
};
