/* SPDX-License-Identifier: MIT */
/* A model PAC folder's model.glb: its skeleton as a rig, its PMOs as the
 * body (each with the PNGs of the texture bank after it; a stand-in mesh
 * when it has none that decodes), and its animation pack's motions, as
 * glTF 2.0 (codecs/gltf.h).
 * Read-only; present when the PAC holds a skeleton that decodes, or,
 * without a skeleton (a small monster), a PMO that does: a static body
 * then, no skin, no motions.  The
 * first skeleton and the first pack of the PAC are used, as a pack's
 * joint comments do (item.c); an MHP3rd model PAC of a DATA.BIN, which
 * holds no pack, plays its standalone moveset (item_moveset_rig), and
 * MHP3rd tracks go where the pack's record map puts them. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "fserror.h"
#include "view_item.h"
#include "gltf.h"
#include "item.h"
#include "log.h"
#include "pmo.h"
#include "records.h"
#include "mhfs.h"

/* A dual model set's second body (members 4-6) at most. */
#define MAX_BODIES 2

int pac_first_model(struct mhfs *fs, const struct node *dir,
			      const struct pactree *tree, enum kind k, struct model **m)
{
	*m = NULL;
	if (dir->depth >= PACTREE_MAX_DEPTH)
		return 0;
	for (uint32_t i = 0; i < tree->count; i++) {
		if (tree->subs[i].kind != k || !tree->subs[i].size)
			continue;
		struct node member = *dir;
		struct item it;
		member.path[member.depth++] = (uint16_t)i;
		if (item_resolve(node_archive(fs, dir), &member, &it))
			return 0;
		*m = item_model(node_archive(fs, dir), &member, &it);
		return *m || atomic_load(&it.cache->failed) ? 0 : EIO;
	}
	return 0;
}

/* The PAC's bodies for model.glb: each PMO member that decodes (its
 * model's, kept with the member like its views'), and the PNGs of the
 * first texture bank after it (before the next PMO). */
struct pac_bodies {
	struct gltf_body body[MAX_BODIES];
	const uint8_t **png[MAX_BODIES];
	size_t *png_len[MAX_BODIES];
	size_t n;
};

static void pac_bodies_free(struct pac_bodies *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->png[i]);
		free(b->png_len[i]);
	}
}

/* Member i of the PAC at dir as a decoded PMO (with its companion's
 * geometry, item.c) into *p: 0, ENOENT when it does not decode, EIO when
 * it could not be built now (tried again at the next use). */
static int member_pmo(struct mhfs *fs, const struct node *dir, uint32_t i,
		      const struct pmo **p)
{
	struct node member = *dir;
	struct item it;
	member.path[member.depth++] = (uint16_t)i;
	if (item_resolve(node_archive(fs, dir), &member, &it))
		return ENOENT;
	struct model *m = item_model(node_archive(fs, dir), &member, &it);
	if (m)
		*p = &m->pmo;
	return m ? 0 : atomic_load(&it.cache->failed) ? ENOENT : EIO;
}

/* The PNGs of texture bank member i (its images, encoded on first use
 * and kept with its model) for body k; a bank that does not decode
 * gives none. */
static int member_pngs(struct mhfs *fs, const struct node *dir, uint32_t i,
		       struct pac_bodies *b, size_t k)
{
	struct node member = *dir;
	struct item it;
	member.path[member.depth++] = (uint16_t)i;
	if (item_resolve(node_archive(fs, dir), &member, &it))
		return 0;
	struct model *m = item_model(node_archive(fs, dir), &member, &it);
	if (!m)
		return atomic_load(&it.cache->failed) ? 0 : EIO;
	uint32_t count = m->tex.count;
	b->png[k] = calloc(count + 1, sizeof *b->png[k]);
	b->png_len[k] = calloc(count + 1, sizeof *b->png_len[k]);
	if (!b->png[k] || !b->png_len[k])
		return ENOMEM;
	for (uint32_t im = 0; im < count; im++) {
		const struct model_text *png = model_image_png(m, im);
		if (!png)
			return ENOMEM;
		b->png[k][im] = (const uint8_t *)png->text;
		b->png_len[k][im] = png->len;
	}
	b->body[k].png = b->png[k];
	b->body[k].png_len = b->png_len[k];
	b->body[k].images = count;
	return 0;
}

/* The bodies of the PAC at dir (tree its tree): 0, or an errno when a
 * member could not be read now (b then holds what it made, to free). */
static int pac_bodies(struct mhfs *fs, const struct node *dir, const struct pactree *tree,
		      struct pac_bodies *b)
{
	memset(b, 0, sizeof *b);
	if (dir->depth >= PACTREE_MAX_DEPTH)
		return 0;
	for (uint32_t i = 0; i < tree->count && b->n < MAX_BODIES; i++) {
		if (tree->subs[i].kind != KIND_PMO || !tree->subs[i].size)
			continue;
		const struct pmo *pmo;
		int err = member_pmo(fs, dir, i, &pmo);
		if (err == ENOENT)
			continue;
		if (err)
			return err;
		size_t k = b->n++;
		b->body[k].pmo = pmo;
		for (uint32_t j = i + 1; j < tree->count && tree->subs[j].kind != KIND_PMO; j++)
			if (tree->subs[j].kind == KIND_TMH && tree->subs[j].size) {
				if ((err = member_pngs(fs, dir, j, b, k)))
					return err;
				break;
			}
	}
	return 0;
}

static bool has_member(const struct pactree *tree, enum kind k)
{
	for (uint32_t i = 0; i < tree->count; i++)
		if (tree->subs[i].kind == k && tree->subs[i].size)
			return true;
	return false;
}

static struct node pac_folder_of(const struct node *n)
{
	struct node dir = *n;
	dir.type = NODE_DIR;
	return dir;
}

/* The PAC's folder resolves and its first skeleton decodes, or, in a
 * PAC without one (a small monster's static model), its first PMO: t->model
 * is that member's model, which keeps model.glb; t->tree is the PAC's. */
static int pac_skeleton(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir = pac_folder_of(n);
	int err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	if (!t->tree)
		return ENOENT;
	err = pac_first_model(fs, &dir, t->tree, KIND_SKELETON, &t->model);
	if (!err && !t->model && !has_member(t->tree, KIND_SKELETON))
		err = pac_first_model(fs, &dir, t->tree, KIND_PMO, &t->model);
	return err ? err : t->model ? 0 : ENOENT;
}

static bool model_glb_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	memset(&t, 0, sizeof t);
	return !pac_skeleton(fs, n, &t);
}

/* The moveset of an MHP3rd model PAC at the top of a DATA.BIN: the
 * standalone pack RECORDS_RIG_BEFORE entries after it, whose rig is the
 * PAC's first skeleton (NULL when none, or it does not decode); 0, or
 * EIO as first_member_model. */
static int linked_moveset(struct mhfs *fs, const struct node *dir, struct model **m)
{
	struct node rig, pack = {.type = NODE_FILE, .entry = dir->entry + RECORDS_RIG_BEFORE};
	struct item it;
	*m = NULL;
	if (dir->depth || pack.entry < dir->entry ||
	    !item_moveset_rig(&fs->ar, pack.entry, &rig) || item_resolve(&fs->ar, &pack, &it))
		return 0;
	*m = item_model(&fs->ar, &pack, &it);
	return *m || atomic_load(&it.cache->failed) ? 0 : EIO;
}

int model_glb_make(struct mhfs *fs, const struct node *dir, const struct pactree *tree,
		   const struct skeleton *rig, const struct anim *pack, const struct records *map,
		   const char *name, uint8_t **bytes, size_t *len)
{
	struct mh_diag d = {0};
	struct pac_bodies bodies = {.n = 0};
	int err = pac_bodies(fs, dir, tree, &bodies);
	if (err) {
		pac_bodies_free(&bodies);
		return err;
	}
	enum mh_err e = gltf_model_with(rig, pack, map, bodies.body, bodies.n, bytes, len, &d);
	pac_bodies_free(&bodies);
	if (e == MH_OK)
		return 0;
	if (e != MH_ENOMEM) {
		char label[128];
		item_label(node_archive(fs, dir), dir, label, sizeof label);
		mlog_printf(fs->ar.log, "%s/%s: not made: %s", label, name, d.msg);
	}
	return e == MH_ERANGE ? EFBIG : mh_errno(e);
}

/* Made on first use and kept with the skeleton's model: a read-only
 * mount asks for a file's contents at every read request, and the
 * Tigrex's file is megabytes.  A commit to the PAC builds its models
 * afresh, so the file follows every edit of the skeleton or the pack. */
static int model_glb_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pac_skeleton(fs, n, t);
	if (err || t->listing)
		return err;
	const struct model_text *glb = atomic_load_explicit(&t->model->glb, memory_order_acquire);
	if (!glb) {
		struct node dir = pac_folder_of(n);
		struct model *pack = NULL;
		uint8_t *bytes;
		size_t len;
		const struct skeleton *rig =
			t->model->kind == KIND_SKELETON ? &t->model->skel : NULL;
		if ((rig && (err = pac_first_model(fs, &dir, t->tree, KIND_ANIM, &pack))) ||
		    (rig && !pack && (err = linked_moveset(fs, &dir, &pack))) ||
		    (err = model_glb_make(fs, &dir, t->tree, rig, pack ? &pack->pack : NULL,
					  pack ? pack->records : NULL, "model.glb", &bytes, &len)))
			return err;
		if (!(glb = model_keep_glb(t->model, bytes, len)))
			return ENOMEM;
	}
	return item_kept_text(t, glb);
}

/* Blender's export of model.glb written back: the PAC's bodies moved in
 * place (pmo_pac_apply_gltf), its animations not read (an entry's goes
 * to entries/entryNNN.glb). */
static enum mh_err model_glb_encode(const struct edit *e, const uint8_t *old, size_t old_len,
				    enum clip_format *format, uint8_t **out, size_t *out_len,
				    struct mh_diag *d)
{
	(void)format;
	uint32_t moved;
	return pmo_pac_apply_gltf(old, old_len, e->data, e->len, out, out_len, &moved, d);
}

const struct view_class view_model_glb = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING | VIEW_WRITABLE,
	.in = NODE_DIR,
	.fixed_name = "model.glb",
	.resolve = model_glb_resolve,
	.exists = model_glb_exists,
	.encode = model_glb_encode,
};
