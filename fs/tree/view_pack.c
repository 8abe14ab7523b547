/* SPDX-License-Identifier: MIT */
/* An animation pack's folder: pack.txt (its shape: streams of slots, and
 * which slots share a clip) and a folder per stream of slot files
 * (view_slot.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "edit.h"
#include "view_pack.h"
#include "entries.h"
#include "view_item.h"
#include "item.h"
#include "mhfs.h"
#include "views.h"

static struct node stream_node(const struct node *dir, unsigned stream)
{
	struct node c = *dir;
	c.type = NODE_STREAM;
	c.stream = (uint16_t)stream;
	return c;
}

static bool pack_child_named(struct mhfs *fs, const struct node *dir,
			     const struct node_target *t, const char *name, struct node *child)
{
	(void)fs;
	long long v;
	const char *end;
	if (!t->model || strncmp(name, "stream", 6) || !view_number(name + 6, &v, &end) ||
	    v >= t->model->pack.nstreams || v >= NODE_MAX_STREAMS)
		return false;
	*child = stream_node(dir, (unsigned)v);
	return true;
}

/* One position per stream. */
static enum view_child pack_child_at(struct mhfs *fs, const struct node *dir,
				     const struct node_target *t, uint64_t pos,
				     struct node *child)
{
	(void)fs;
	if (!t->model)
		return CHILD_END;
	uint64_t s = pos - NODE_POS_FIRST;
	if (s >= t->model->pack.nstreams || s >= NODE_MAX_STREAMS)
		return CHILD_END;
	*child = stream_node(dir, (unsigned)s);
	return CHILD_FOUND;
}

const struct view_class view_pack_dir = {
	.flags = VIEW_DIR | VIEW_ITEM | VIEW_EXPANDS,
	.expands = KIND_ANIM,
	.name = item_folder_name,
	.parent = item_parent,
	.resolve = item_folder_resolve,
	.exists = item_folder_exists,
	.child_named = pack_child_named,
	.child_at = pack_child_at,
	.reserved = item_model_reserved,
};

/* The pack folder of a view in it (pack.txt, a stream, a slot). */
void pack_folder_of(const struct node *n, struct node *dir)
{
	*dir = *n;
	dir->type = NODE_PACK_DIR;
	dir->stream = dir->slot = 0;
}

void pack_stream_of(const struct node *n, struct node *dir)
{
	*dir = *n;
	dir->type = NODE_STREAM;
	dir->slot = 0;
}

/* Resolves the pack folder of a view in it; ENOENT if its pack does not
 * decode. */
int pack_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir;
	pack_folder_of(n, &dir);
	int err = item_folder_resolve(fs, &dir, t);
	return err ? err : t->model ? 0 : ENOENT;
}

enum mh_err pack_reencode(const struct edit *e, const uint8_t *old, size_t old_len,
			  enum clip_format *format, pack_edit_fn *apply, uint8_t **out,
			  size_t *out_len, struct mh_diag *d)
{
	struct anim a;
	enum mh_err err = MH_OK;
	/* The model's pack was decoded from these bytes without a format to
	 * fall back on: the same as decoding them now when its clips say
	 * theirs. */
	if (e->decoded && e->decoded->pack.nclips) {
		model_take_pack(e->decoded, &a);
	} else if ((err = anim_decode(old, old_len, *format, &a, d))) {
		return err;
	}
	*format = a.format;
	if (!(err = apply(e, &a, d)) && !(err = anim_compact(&a, d)))
		err = anim_encode(&a, out, out_len, d);
	anim_free(&a);
	return err;
}

static int pack_txt_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pack_resolve(fs, n, t);
	if (err)
		return err;
	t->text = t->model->text.text;
	t->text_len = t->model->text.len;
	return 0;
}

/* The new shape, each clip taken from the slot that first uses it. */
static enum mh_err reshape(const struct edit *e, struct anim *a, struct mh_diag *d)
{
	struct anim shaped;
	enum mh_err err = anim_reshape(a, (const char *)e->data, e->len, &shaped, d);
	if (err)
		return err;
	anim_free(a);
	*a = shaped;
	return MH_OK;
}

static enum mh_err pack_txt_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				   enum clip_format *format, uint8_t **out, size_t *out_len,
				   struct mh_diag *d)
{
	return pack_reencode(e, old, old_len, format, reshape, out, out_len, d);
}

static unsigned pack_txt_line(const struct edit *e, const struct rule_violation *v)
{
	return v->stream >= 0 ? anim_text_line((const char *)e->data, e->len, v->stream) : 0;
}

const struct view_class view_pack_txt = {
	.flags = VIEW_ITEM | VIEW_WRITABLE,
	.source = SOURCE_MODEL,
	.in = NODE_PACK_DIR,
	.fixed_name = "pack.txt",
	.resolve = pack_txt_resolve,
	.encode = pack_txt_encode,
	.violation_line = pack_txt_line,
};

/* ---- stream folders ------------------------------------------------------ */

static void stream_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	snprintf(buf, len, "stream%u", n->stream);
}

static int stream_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pack_resolve(fs, n, t);
	return err ? err : n->stream < t->model->pack.nstreams ? 0 : ENOENT;
}

/* A slot's clip, or -1 when the slot does not exist or is empty. */
int32_t pack_slot_clip(const struct model *m, unsigned stream, unsigned slot)
{
	if (!m || m->kind != KIND_ANIM || stream >= m->pack.nstreams ||
	    slot >= m->pack.streams[stream].nslots)
		return -1;
	return m->pack.streams[stream].slots[slot];
}

/* A slot's files, in listing order. */
static const enum node_type slot_files[] = {NODE_SLOT_TXT, NODE_SLOT_BIN, NODE_SLOT_SVG};
#define SLOT_FILES (sizeof slot_files / sizeof slot_files[0])

static struct node slot_node(const struct node *dir, enum node_type type, unsigned slot)
{
	struct node c = *dir;
	c.type = type;
	c.slot = (uint16_t)slot;
	return c;
}

/* "slot007.txt", "slot007.bin" or "slot007.svg": the candidate slot;
 * *slot is its number, whether it holds a clip or not. */
static bool slot_candidate(const struct node *dir, const char *name, struct node *child)
{
	long long v;
	const char *end;
	if (strncmp(name, "slot", 4) || !view_number(name + 4, &v, &end) ||
	    v >= NODE_MAX_SLOTS)
		return false;
	*child = slot_node(dir, !strcmp(end, ".bin")   ? NODE_SLOT_BIN
				: !strcmp(end, ".svg") ? NODE_SLOT_SVG
				: !strcmp(end, ".glb") ? NODE_SLOT_GLB
						       : NODE_SLOT_TXT,
			   (unsigned)v);
	return true;
}

static bool stream_child_named(struct mhfs *fs, const struct node *dir,
			       const struct node_target *t, const char *name,
			       struct node *child)
{
	(void)fs;
	return slot_candidate(dir, name, child) &&
	       pack_slot_clip(t->model, dir->stream, child->slot) >= 0;
}

static bool stream_fillable(struct mhfs *fs, const struct node *dir,
			    const struct node_target *t, const char *name, struct node *view)
{
	(void)fs;
	/* A glTF becomes a part of an entry: an MHFU pack's slot below 100. */
	return slot_candidate(dir, name, view) && view->type != NODE_SLOT_SVG &&
	       view->slot < t->model->pack.streams[dir->stream].nslots &&
	       (view->type != NODE_SLOT_GLB ||
		(entries_parts(&t->model->pack) && view->slot < ENTRIES_MAX / 2));
}

/* Three positions per slot: its text, its bytes, its plots; empty slots
 * have none. */
static enum view_child stream_child_at(struct mhfs *fs, const struct node *dir,
				       const struct node_target *t, uint64_t pos,
				       struct node *child)
{
	(void)fs;
	uint64_t slot = (pos - NODE_POS_FIRST) / SLOT_FILES;
	enum node_type type = slot_files[(pos - NODE_POS_FIRST) % SLOT_FILES];
	if (slot >= t->model->pack.streams[dir->stream].nslots || slot >= NODE_MAX_SLOTS)
		return CHILD_END;
	if (pack_slot_clip(t->model, dir->stream, (unsigned)slot) < 0)
		return CHILD_SKIP;
	*child = slot_node(dir, type, (unsigned)slot);
	return CHILD_FOUND;
}

static bool stream_reserved(struct mhfs *fs, const struct node *dir,
			    const struct node_target *t, const char *name, struct fs_diag *why)
{
	(void)fs;
	const char *end;
	if (!view_prefixed(name, "slot", &end) || !view_like_end(end))
		return false;
	fs_diag_printf(why, "slot files are slotNNN.txt or slotNNN.bin, three "
		 "digits, 000 to %03u in stream %u (more slots: pack.txt); "
		 "slotNNN.svg, the plots, is read-only; a glTF is copied in as "
		 "slotNNN.glb",
		 t->model->pack.streams[dir->stream].nslots - 1, dir->stream);
	return true;
}

const struct view_class view_stream_dir = {
	.flags = VIEW_DIR | VIEW_ITEM | VIEW_STREAM,
	.name = stream_name,
	.parent = pack_folder_of,
	.resolve = stream_resolve,
	.child_named = stream_child_named,
	.child_at = stream_child_at,
	.reserved = stream_reserved,
	.fillable = stream_fillable,
};
