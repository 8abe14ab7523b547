/* SPDX-License-Identifier: MIT */
/* A PMO's folder (mhfu-archive(5) "PMO"): mesh.txt, vertices.tsv and
 * materials.tsv (mhfu-clip(5)), printed from its model and written back
 * into the PMO in place: it keeps its size and every byte not edited.
 *
 * An edit is applied to the PMO decoded afresh from the bytes the commit
 * holds, with what the model knows beside it: the geometry of an MHP3rd
 * model kept in the next entry, the skeleton's bones and the texture
 * bank's images.  The vertices of such a model are that next entry's
 * bytes: an edit of its vertices.tsv is committed to that entry
 * (to_next_entry), the PMO's own bytes staying as they are. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "item.h"
#include "mhfs.h"
#include "pmo_text.h"
#include "view_item.h"

#define PMO_GLB_NAME "mesh.glb"

/* mesh.glb: a reshaped body copied in (Blender's export of model.glb). */
static bool pmo_dir_fillable(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			     const char *name, struct node *view)
{
	(void)fs;
	if (strcmp(name, PMO_GLB_NAME) || !t->model)
		return false;
	*view = *dir;
	view->type = NODE_PMO_GLB;
	return true;
}

const struct view_class view_pmo_dir = {
	.flags = VIEW_DIR | VIEW_ITEM | VIEW_EXPANDS,
	.expands = KIND_PMO,
	.name = item_folder_name,
	.parent = item_parent,
	.resolve = item_folder_resolve,
	.exists = item_folder_exists,
	.fillable = pmo_dir_fillable,
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

/* Applies the edited text of view `which` (or mesh.glb's body) to p. */
static enum mh_err apply_text(struct pmo *p, enum pmo_view which, const struct edit *e,
			      const struct model *m, struct mh_diag *d)
{
	const char *text = (const char *)e->data;
	uint32_t moved;
	if (e->view.type == NODE_PMO_GLB)
		return pmo_apply_gltf(p, e->data, e->len, &moved, d);
	switch (which) {
	case PMO_MESH_TXT:
		return pmo_mesh_apply(p, text, e->len, m && m->bones > 0 ? (unsigned)m->bones : 0u,
				      d);
	case PMO_VERTICES_TSV: {
		/* The text as the model printed it, if it did: the rows
		 * written back as they were are not parsed again. */
		const struct model_text *was =
			m ? atomic_load(&m->pmo_text[PMO_VERTICES_TSV]) : NULL;
		return pmo_vertices_apply_printed(p, text, e->len, was ? was->text : NULL,
						  was ? was->len : 0, d);
	}
	default:
		return pmo_materials_apply(p, text, e->len,
					   m && m->images >= 0 ? (unsigned)m->images : 255u, d);
	}
}

/* Whether the model's vertices are in the next entry: its vertices.tsv
 * commits there. */
static bool pmo_to_next_entry(struct mhfs *fs, const struct node *view)
{
	struct node_target t;
	memset(&t, 0, sizeof t);
	t.listing = true; /* its model, not its text */
	struct node vertices = *view;
	vertices.type = NODE_PMO_VERTICES;
	return (view->type == NODE_PMO_VERTICES || view->type == NODE_PMO_GLB) &&
	       !pmo_text_resolve(fs, &vertices, &t) && t.model->pmo.external;
}

/* Whether model m was decoded from the bytes the edit commits to (old:
 * its PMO's, or with next_entry its geometry's): its PMO is then what
 * decoding them gives, and a copy of it saves decoding them again. */
static bool model_holds(const struct model *m, bool next_entry, const uint8_t *old,
			size_t old_len)
{
	const uint8_t *held = !m ? NULL : next_entry ? m->pmo.companion : m->pmo.raw;
	size_t held_len = !m ? 0 : next_entry ? m->pmo.companion_len : m->pmo.raw_len;
	return held && held_len == old_len && !memcmp(held, old, old_len);
}

/* The new bytes of what the edit commits to: the PMO (old), or, with
 * e->next_entry, the next entry holding its geometry (old), the PMO's own
 * bytes those the model keeps.  The other of the two must not change. */
static enum mh_err pmo_text_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				   enum clip_format *format, uint8_t **out, size_t *out_len,
				   struct mh_diag *d)
{
	(void)format;
	const struct model *m = e->decoded && e->decoded->kind == KIND_PMO ? e->decoded : NULL;
	if (e->next_entry && !m)
		return mh_fail(d, MH_EIO, 0, "the PMO beside its geometry could not be read");
	struct pmo p;
	enum mh_err err = model_holds(m, e->next_entry, old, old_len)
				  ? pmo_clone(&m->pmo, &p, d)
			  : e->next_entry
				  ? pmo_decode(m->pmo.raw, m->pmo.raw_len, old, old_len, &p, d)
				  : pmo_decode(old, old_len, m ? m->pmo.companion : NULL,
					       m ? m->pmo.companion_len : 0, &p, d);
	/* [0] the PMO, [1] its geometry's entry (external models only) */
	uint8_t *made[2] = {NULL, NULL};
	size_t made_len[2] = {0, 0};
	if (!err)
		err = apply_text(&p, view_of(&e->view), e, m, d);
	if (!err)
		err = pmo_encode(&p, &made[0], &made_len[0], &made[1], &made_len[1], d);
	int mine = e->next_entry, other = !mine;
	if (!err && p.external) {
		/* decoded with the model's bytes: m is there */
		const uint8_t *was = other ? m->pmo.companion : m->pmo.raw;
		size_t was_len = other ? m->pmo.companion_len : m->pmo.raw_len;
		if (made_len[other] != was_len || memcmp(made[other], was, was_len))
			err = mh_fail(d, MH_ERANGE, 0, "this edit would change both the PMO "
				      "and the entry holding its geometry: edit one text at a time");
	}
	if (!err) {
		*out = made[mine]; /* taken */
		*out_len = made_len[mine];
		made[mine] = NULL;
	}
	free(made[0]);
	free(made[1]);
	pmo_free(&p);
	return err;
}

#define PMO_TEXT_VIEW(file)                                                  \
	{                                                                    \
		.flags = VIEW_ITEM | VIEW_WRITABLE, .source = SOURCE_MODEL,  \
		.in = NODE_PMO_DIR, .fixed_name = file,                      \
		.resolve = pmo_text_resolve, .encode = pmo_text_encode,      \
		.to_next_entry = pmo_to_next_entry,                          \
	}

const struct view_class view_pmo_mesh = PMO_TEXT_VIEW("mesh.txt");
const struct view_class view_pmo_vertices = PMO_TEXT_VIEW("vertices.tsv");
const struct view_class view_pmo_materials = PMO_TEXT_VIEW("materials.tsv");

/* mesh.glb: a request, as entries/entryNNN.glb is: its vertices moved in,
 * nothing to read; vertices.tsv shows what it became. */
const struct view_class view_pmo_glb = {
	.flags = VIEW_ITEM | VIEW_WRITABLE,
	.source = SOURCE_MODEL,
	.in = NODE_PMO_DIR,
	.fixed_name = PMO_GLB_NAME,
	.resolve = item_request_resolve,
	.encode = pmo_text_encode,
	.to_next_entry = pmo_to_next_entry,
};
