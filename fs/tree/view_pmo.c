/* SPDX-License-Identifier: MIT */
/* A PMO's folder (mhfu-archive(5) "PMO"): mesh.txt, vertices.tsv and
 * materials.tsv (mhfu-clip(5)), printed from its model and written back
 * into the PMO in place: it keeps its size and every byte not edited.
 *
 * An edit is applied to the PMO decoded afresh from the bytes the commit
 * holds, with what the model knows beside it: the geometry of an MHP3rd
 * model kept in the next entry, the skeleton's bones and the texture
 * bank's images.  Vertices kept in that next entry are another entry's
 * bytes, which a commit of this one cannot write: such an edit is
 * refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "item.h"
#include "mhfs.h"
#include "pmo_text.h"
#include "view_item.h"

const struct view_class view_pmo_dir = {
	.flags = VIEW_DIR | VIEW_ITEM | VIEW_EXPANDS,
	.expands = KIND_PMO,
	.name = item_folder_name,
	.parent = item_parent,
	.resolve = item_folder_resolve,
	.exists = item_folder_exists,
};

/* The view's text view: which of the three a node is. */
static enum pmo_view view_of(const struct node *n)
{
	return n->type == NODE_PMO_MESH ? PMO_MESH_TXT
	       : n->type == NODE_PMO_VERTICES ? PMO_VERTICES_TSV : PMO_MATERIALS_TSV;
}

static int pmo_text_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir = *n;
	dir.type = NODE_PMO_DIR;
	int err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	if (!t->model)
		return ENOENT;
	if (t->listing)
		return 0;
	return item_kept_text(t, model_pmo_text(t->model, view_of(n)));
}

/* Applies the edited text of view `which` to p. */
static enum mh_err apply_text(struct pmo *p, enum pmo_view which, const struct edit *e,
			      const struct model *m, struct mh_diag *d)
{
	const char *text = (const char *)e->data;
	switch (which) {
	case PMO_MESH_TXT:
		return pmo_mesh_apply(p, text, e->len, m && m->bones > 0 ? (unsigned)m->bones : 0u,
				      d);
	case PMO_VERTICES_TSV:
		return pmo_vertices_apply(p, text, e->len, d);
	default:
		return pmo_materials_apply(p, text, e->len,
					   m && m->images >= 0 ? (unsigned)m->images : 255u, d);
	}
}

static enum mh_err pmo_text_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				   enum clip_format *format, uint8_t **out, size_t *out_len,
				   struct mh_diag *d)
{
	(void)format;
	const struct model *m = e->decoded && e->decoded->kind == KIND_PMO ? e->decoded : NULL;
	struct pmo p;
	uint8_t *companion = NULL;
	size_t companion_len = 0;
	enum mh_err err = pmo_decode(old, old_len, m ? m->pmo.companion : NULL,
				     m ? m->pmo.companion_len : 0, &p, d);
	if (!err)
		err = apply_text(&p, view_of(&e->view), e, m, d);
	if (!err)
		err = pmo_encode(&p, out, out_len, &companion, &companion_len, d);
	if (!err && p.external &&
	    (companion_len != p.companion_len || memcmp(companion, m->pmo.companion, companion_len)))
		err = mh_fail(d, MH_ERANGE, 0, "this model's vertices are kept in the next entry "
			      "(its companion geometry), which an edit of the PMO cannot write yet");
	free(companion);
	pmo_free(&p);
	return err;
}

#define PMO_TEXT_VIEW(file)                                                  \
	{                                                                    \
		.flags = VIEW_ITEM | VIEW_WRITABLE, .source = SOURCE_MODEL,  \
		.in = NODE_PMO_DIR, .fixed_name = file,                      \
		.resolve = pmo_text_resolve, .encode = pmo_text_encode,      \
	}

const struct view_class view_pmo_mesh = PMO_TEXT_VIEW("mesh.txt");
const struct view_class view_pmo_vertices = PMO_TEXT_VIEW("vertices.tsv");
const struct view_class view_pmo_materials = PMO_TEXT_VIEW("materials.tsv");
