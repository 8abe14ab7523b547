/* SPDX-License-Identifier: MIT */
/* A slot's files in its stream's folder: slotNNN.txt, the clip as text
 * (mhfu-clip(5)), slotNNN.bin, its bytes, and slotNNN.svg, its curves
 * plotted (codecs/curve_svg.h; mhfu-clip(5) "PLOTS"), read-only.  A slot
 * that shares an earlier slot's clip shows each as a symbolic link to
 * that slot's file: one drawing per clip.  Plots are drawn on first use
 * and kept with the model, as the texts are. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "edit.h"
#include "view_pack.h"
#include "item.h"
#include "mhfs.h"
#include "names.h"

static enum names_slot_file slot_file(const struct node *n)
{
	return n->type == NODE_SLOT_BIN ? NAMES_SLOT_BIN
	       : n->type == NODE_SLOT_SVG ? NAMES_SLOT_SVG : NAMES_SLOT_TXT;
}

static void slot_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	names_slot(n->slot, slot_file(n), buf, len);
}

static int slot_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pack_resolve(fs, n, t);
	if (err)
		return err;
	struct model *m = t->model;
	int32_t clip = pack_slot_clip(m, n->stream, n->slot);
	if (clip < 0)
		return ENOENT;
	names_slot_link(&m->pack, n->stream, n->slot, slot_file(n), t->link, sizeof t->link);
	if (t->link[0] || (t->listing && n->type == NODE_SLOT_SVG))
		return 0;
	if (n->type == NODE_SLOT_BIN) {
		t->offset += m->clip_offset[clip];
		t->size = m->clip_size[clip];
		return 0;
	}
	const struct model_text *text = n->type == NODE_SLOT_SVG ? model_clip_svg(m, (uint32_t)clip)
								 : model_clip_text(m, (uint32_t)clip);
	return item_kept_text(t, text);
}

/* A write fills the slot (its clip's first user's edit reaches every
 * slot sharing it; any other slot gets a clip of its own), a removal
 * empties it, a link shares another slot's clip. */
static enum mh_err slot_edit(const struct edit *e, struct anim *a, struct mh_diag *d)
{
	const struct node *v = &e->view;
	switch (e->kind) {
	case EDIT_EMPTY_SLOT:
		return anim_slot_empty(a, v->stream, v->slot, d);
	case EDIT_SHARE_SLOT:
		return anim_slot_share(a, v->stream, v->slot, e->share_stream, e->share_slot, d);
	case EDIT_WRITE:
		break;
	}
	return anim_slot_write(a, v->stream, v->slot,
			       v->type == NODE_SLOT_TXT ? ANIM_SLOT_TEXT : ANIM_SLOT_BYTES,
			       e->data, e->len, d);
}

static enum mh_err slot_encode(const struct edit *e, const uint8_t *old, size_t old_len,
			       enum clip_format *format, uint8_t **out, size_t *out_len,
			       struct mh_diag *d)
{
	return pack_reencode(e, old, old_len, format, slot_edit, out, out_len, d);
}

static unsigned slot_txt_line(const struct edit *e, const struct rule_violation *v)
{
	if (v->stream != (int)e->view.stream || v->slot != (int)e->view.slot)
		return 0;
	return clip_text_line((const char *)e->data, e->len, v->track, v->channel, v->key);
}

const struct view_class view_slot_txt = {
	.flags = VIEW_ITEM | VIEW_STREAM | VIEW_SLOT | VIEW_WRITABLE | VIEW_REMOVABLE,
	.source = SOURCE_MODEL,
	.name = slot_name,
	.parent = pack_stream_of,
	.resolve = slot_resolve,
	.encode = slot_encode,
	.violation_line = slot_txt_line,
};

const struct view_class view_slot_bin = {
	.flags = VIEW_ITEM | VIEW_STREAM | VIEW_SLOT | VIEW_WRITABLE | VIEW_REMOVABLE,
	.source = SOURCE_MODEL,
	.name = slot_name,
	.parent = pack_stream_of,
	.resolve = slot_resolve,
	.encode = slot_encode,
};

const struct view_class view_slot_svg = {
	.flags = VIEW_ITEM | VIEW_STREAM | VIEW_SLOT | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_MODEL,
	.name = slot_name,
	.parent = pack_stream_of,
	.resolve = slot_resolve,
};
