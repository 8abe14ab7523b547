/* The plots of a pack's clips (codecs/curve_svg.h; mhfu-clip(5) "PLOTS"),
 * read-only: streamK/slotNNN.svg beside each slot's text and bytes, and
 * entries/entryNNN.svg beside each entry's text.
 *
 * A slot sharing an earlier slot's clip shows, like its .txt and .bin,
 * as a symbolic link to that slot's .svg: one drawing per clip.  Plots
 * are drawn on first use and kept with the model (as the clips' texts
 * are), counted in its memory: an entry's are too big to draw again at
 * every read, as its text is printed. */
#include <errno.h>
#include <stdio.h>

#include "curve_svg.h"
#include "item.h"
#include "mhfs.h"
#include "views.h"

/* ---- streamK/slotNNN.svg ------------------------------------------------ */

static void slot_svg_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	views_slot_name(n->slot, VIEWS_SLOT_SVG, buf, len);
}

/* In the stream folder, as the slot's other files. */
static void in_stream(const struct node *n, struct node *dir)
{
	view_slot_txt.parent(n, dir);
}

static int slot_svg_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pack_resolve(fs, n, t);
	if (err)
		return err;
	struct model *m = t->model;
	int32_t clip = pack_slot_clip(m, n->stream, n->slot);
	if (clip < 0)
		return ENOENT;
	views_slot_link(&m->pack, n->stream, n->slot, VIEWS_SLOT_SVG, t->link, sizeof t->link);
	if (t->link[0])
		return 0;
	const struct model_text *svg = model_clip_svg(m, (uint32_t)clip);
	if (!svg)
		return ENOMEM;
	t->text = svg->text;
	t->text_len = svg->len;
	return 0;
}

const struct view_class view_slot_svg = {
	.flags = VIEW_ITEM | VIEW_STREAM | VIEW_SLOT,
	.name = slot_svg_name,
	.parent = in_stream,
	.resolve = slot_svg_resolve,
};

/* ---- entries/entryNNN.svg ----------------------------------------------- */

static void entry_svg_name(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	(void)fs;
	snprintf(buf, len, "entry%03u.svg", n->slot);
}

/* In entries/, and there when the entry's text is. */
static void in_entries(const struct node *n, struct node *dir)
{
	view_entry_txt.parent(n, dir);
}

static int entry_svg_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = view_entry_txt.resolve(fs, n, t);
	if (err)
		return err;
	const struct model_text *svg = model_entry_svg(t->model, n->slot);
	if (!svg)
		return ENOMEM;
	t->text = svg->text;
	t->text_len = svg->len;
	return 0;
}

const struct view_class view_entry_svg = {
	.flags = VIEW_ITEM | VIEW_SLOT,
	.name = entry_svg_name,
	.parent = in_entries,
	.resolve = entry_svg_resolve,
};
