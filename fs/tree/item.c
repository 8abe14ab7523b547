/* SPDX-License-Identifier: MIT */
#include "item.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "record.h"
#include "names.h"


bool item_is_pac_root(const struct archive *ar, const struct node *n)
{
	return ar->format == FORMAT_PAC && n->type == NODE_DIR && n->entry == 0 &&
	       n->depth == 0 && !n->original;
}

int item_resolve(struct archive *ar, const struct node *n, struct item *it)
{
	memset(it, 0, sizeof *it);
	if (!archive_entry_present(ar, n->entry))
		return ENOENT;
	it->size = archive_entry_size(ar, n->entry);
	it->kind = archive_entry_kind(ar, n->entry);
	it->cache = &ar->cache.entries[n->entry].cache;
	atomic_store_explicit(&ar->cache.entries[n->entry].used, true, memory_order_relaxed);
	/* A top-level item's own tree is fetched by item_tree when it is
	 * listed: naming or sizing it needs none. */
	const struct pactree *tree = NULL;
	if (n->depth > 0)
		tree = archive_entry_tree(ar, n->entry);
	for (unsigned i = 0; i < n->depth; i++) {
		if (!tree || n->path[i] >= tree->count || !tree->subs[n->path[i]].size)
			return ENOENT;
		struct pactree_sub *s = &tree->subs[n->path[i]];
		it->parent = tree;
		it->sub = s;
		it->offset = s->offset;
		it->size = s->size;
		it->kind = s->kind;
		it->cache = &s->cache;
		tree = s->child;
	}
	it->tree = tree;
	return 0;
}

bool item_has_dir(const struct node *n, const struct item *it)
{
	if (it->kind == KIND_PAC)
		return n->depth < PACTREE_MAX_DEPTH && (n->depth == 0 || it->tree);
	return model_kind(it->kind);
}

const struct pactree *item_tree(struct archive *ar, const struct node *n,
				const struct item *it)
{
	if (it->kind != KIND_PAC)
		return NULL;
	return n->depth == 0 ? archive_entry_tree(ar, n->entry) : it->tree;
}

void item_label(struct archive *ar, const struct node *n, char *buf, size_t len)
{
	/* A single PAC is named by its file's name, as the user knows it. */
	const char *pac = ar->format == FORMAT_PAC ? strrchr(ar->path, '/') : NULL;
	if (ar->format == FORMAT_PAC)
		snprintf(buf, len, "%s", pac ? pac + 1 : ar->path);
	else if (n->depth == 0)
		archive_entry_name(ar, n->entry, buf, len);
	else
		names_entry_dir(n->entry, buf, len);
	const struct pactree *tree = n->depth ? archive_entry_tree(ar, n->entry) : NULL;
	for (unsigned i = 0; tree && i < n->depth; i++) {
		size_t used = strlen(buf);
		const struct pactree_sub *s = &tree->subs[n->path[i]];
		if (used + 1 < len) {
			buf[used++] = '/';
			if (i + 1 == n->depth)
				names_member(n->path[i], s->kind, buf + used, len - used);
			else
				snprintf(buf + used, len - used, "%u", n->path[i]);
		}
		tree = s->child;
	}
}

/* The member of kind k beside item n in the same container, as its node:
 * a pack's is the first skeleton; a PMO's, the last skeleton before it
 * and the first texture bank after it (a dual model set is skeleton,
 * PMO, bank twice: mhfu-archive(5) "MODEL PAC"). */
static bool sibling(const struct node *n, const struct item *it, enum kind k, struct node *sib)
{
	const struct pactree *pac = it->parent;
	uint32_t self = n->depth ? n->path[n->depth - 1] : 0;
	int found = -1;
	for (uint32_t i = 0; pac && i < pac->count; i++) {
		if (pac->subs[i].kind != k || i == self)
			continue;
		bool before = i < self;
		if (it->kind == KIND_ANIM || (k == KIND_TMH && !before)) {
			found = (int)i;
			break;
		}
		if (k == KIND_SKELETON && before)
			found = (int)i;
	}
	if (found < 0)
		return false;
	*sib = *n;
	sib->type = NODE_FILE;
	sib->path[n->depth - 1] = (uint16_t)found;
	return true;
}

/* The model of the member of kind k beside item n (sibling), or NULL. */
static struct model *sibling_model(struct archive *ar, const struct node *n,
				   const struct item *it, enum kind k)
{
	struct node sib;
	struct item sit;
	if ((it->kind != KIND_ANIM && it->kind != KIND_PMO) || !sibling(n, it, k, &sib) ||
	    item_resolve(ar, &sib, &sit))
		return NULL;
	return item_model(ar, &sib, &sit);
}

/* The skeleton beside a pack or a PMO in the same container: a pack's
 * joint comments, a PMO's bones. */
static const struct skeleton *item_rig(struct archive *ar, const struct node *n,
				       const struct item *it)
{
	struct model *m = sibling_model(ar, n, it, KIND_SKELETON);
	return m ? &m->skel : NULL;
}

/* The images of the texture bank beside a PMO, -1 when there is none. */
static int32_t item_images(struct archive *ar, const struct node *n, const struct item *it)
{
	struct model *m = sibling_model(ar, n, it, KIND_TMH);
	return m ? (int32_t)m->tex.count : -1;
}

/* A PMO whose geometry is in the next entry (mhfu-archive(5) "PMO"):
 * that entry's bytes, malloc'ed into *out; 0 when none is needed, else
 * 0 or an errno. */
static int pmo_companion(struct archive *ar, const struct node *n, const uint8_t *pmo,
			 size_t len, uint8_t **out, size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	if (!pmo_needs_companion(pmo, len))
		return 0;
	if (ar->format != FORMAT_DATABIN || n->entry + 1 >= ar->count)
		return ENOENT;
	struct entry_state next;
	int err = archive_entry_load(ar, n->entry + 1, &next);
	if (!err) {
		*out = next.bytes; /* taken */
		*out_len = next.size;
	}
	return err;
}

/* ---- MHP3rd movesets: their rig, monster and override --------------------- */

bool item_moveset_rig(struct archive *ar, uint32_t entry, struct node *skel)
{
	if (ar->format != FORMAT_DATABIN || entry < RECORDS_RIG_BEFORE || entry >= ar->count ||
	    archive_entry_kind(ar, entry) != KIND_ANIM)
		return false;
	uint32_t model = entry - RECORDS_RIG_BEFORE;
	const struct pactree *tree = archive_entry_kind(ar, model) == KIND_PAC
					     ? archive_entry_tree(ar, model) : NULL;
	for (uint32_t i = 0; tree && i < tree->count; i++)
		if (tree->subs[i].kind == KIND_SKELETON && tree->subs[i].size) {
			*skel = (struct node){.type = NODE_FILE, .entry = model, .depth = 1};
			skel->path[0] = (uint16_t)i;
			return true;
		}
	return false;
}

void item_override_key(const struct archive *ar, const struct node *n, char *buf, size_t len)
{
	if (ar->format == FORMAT_PAC) {
		buf[0] = '\0';
		for (unsigned i = 0; i < n->depth; i++) {
			size_t used = strlen(buf);
			snprintf(buf + used, len - used, "%s%u", i ? "/" : "", n->path[i]);
		}
	} else {
		names_item_dir(n->entry, n->path, n->depth, buf, len);
	}
}

/* records_head_fn over the archive. */
static long entry_head(void *ctx, uint32_t id, uint8_t *buf, size_t len)
{
	struct archive *ar = ctx;
	size_t got;
	return id < ar->count && !archive_read(ar, id, 0, buf, len, &got) ? (long)got : -1;
}

/* The skeleton model of node sk into *rig and its label; false when it
 * does not decode. */
static bool rig_of_node(struct archive *ar, const struct node *sk, const struct skeleton **rig,
			char *label, size_t len)
{
	struct item it;
	struct model *m = item_resolve(ar, sk, &it) ? NULL : item_model(ar, sk, &it);
	if (!m)
		return false;
	*rig = &m->skel;
	item_label(ar, sk, label, len);
	return true;
}

/* What pack n's record map is made from (model.h), if it is MHP3rd's:
 * the skeleton beside it in its PAC, else (a standalone moveset) the
 * model PAC's RECORDS_RIG_BEFORE entries before it, whose group's
 * overlay names the monster; and its override.  *override is malloc'ed
 * (NULL: none). */
static void map_source(struct archive *ar, const struct node *n, const struct item *it,
		       struct model_map_source *src, uint8_t **override)
{
	struct node sk;
	*src = (struct model_map_source){.monster = RECORDS_NO_MONSTER};
	*override = NULL;
	if (sibling(n, it, KIND_SKELETON, &sk)) {
		rig_of_node(ar, &sk, &src->rig, src->rig_label, sizeof src->rig_label);
	} else if (!it->parent && item_moveset_rig(ar, n->entry, &sk)) {
		rig_of_node(ar, &sk, &src->rig, src->rig_label, sizeof src->rig_label);
		uint32_t from;
		char name[RECORDS_OVERLAY_HEAD], file[32];
		src->monster = records_find_monster(sk.entry, entry_head, ar, &from, name,
						    sizeof name);
		if (src->monster != RECORDS_NO_MONSTER) {
			names_entry_file(from, KIND_OVL, file, sizeof file);
			snprintf(src->monster_from, sizeof src->monster_from, "%s, %s", file, name);
		}
	}
	char key[96];
	item_override_key(ar, n, key, sizeof key);
	if (ar->record && !record_override_get(ar->record, key, RECORD_RECORDS, override, &src->override_len)) {
		src->override = *override;
		record_override_path(ar->record, key, RECORD_RECORDS, src->override_path,
				     sizeof src->override_path);
	}
}

struct model *item_model(struct archive *ar, const struct node *n, const struct item *it)
{
	struct model_cache *c = it->cache;
	struct model *m = atomic_load_explicit(&c->model, memory_order_acquire);
	if (m || atomic_load(&c->failed) || !model_kind(it->kind))
		return m;

	const struct skeleton *rig = item_rig(ar, n, it);
	int32_t images = it->kind == KIND_PMO ? item_images(ar, n, it) : -1;
	struct model_map_source src;
	uint8_t *override = NULL;
	if (it->kind == KIND_ANIM)
		map_source(ar, n, it, &src, &override);
	char label[128];
	struct fs_diag why = {""};
	item_label(ar, n, label, sizeof label);
	pthread_mutex_lock(&ar->lock);
	m = atomic_load(&c->model);
	if (!m && !atomic_load(&c->failed)) {
		/* A failed read or allocation is tried again at the next look;
		 * only a decoding failure is a fact about the bytes. */
		bool transient = false;
		uint8_t *buf = malloc(it->size ? it->size : 1), *companion = NULL;
		size_t companion_len = 0;
		int err = 0;
		if ((transient = !buf))
			fs_diag_printf(&why, "out of memory");
		else if ((transient = archive_read_all(ar, n->entry, it->offset, buf, it->size) != 0))
			fs_diag_printf(&why, "read failed");
		else if ((err = pmo_companion(ar, n, buf, it->size, &companion, &companion_len))) {
			transient = err != ENOENT;
			fs_diag_printf(&why, "its geometry is in the next entry, which %s",
				       err == ENOENT ? "is not there" : "could not be read");
		}
		if (!why.msg[0]) {
			struct model *was = it->kind == KIND_PMO
						    ? archive_take_carried(ar, n->entry, it->offset)
						    : NULL;
			struct model_input in = {
				.kind = it->kind, .buf = buf, .len = it->size, .label = label,
				.rig = rig, .map = it->kind == KIND_ANIM ? &src : NULL,
				.companion = companion, .companion_len = companion_len,
				.images = images, .was = was,
			};
			m = model_build(&in, &ar->cache.bytes, &ar->cache.pictures_made, &why);
			model_free(was);
		}
		free(buf);
		free(companion);
		if (m) {
			atomic_store_explicit(&c->model, m, memory_order_release);
			if (m->override_note[0])
				mlog_printf(ar->log, "%s: the override of its records.txt is not "
					    "in force, as it no longer fits: %s", label,
					    m->override_note);
		} else {
			mlog_printf(ar->log, "%s: shown raw only%s: %s", label,
				    transient ? " for now" : "", why.msg);
			if (!transient)
				atomic_store(&c->failed, true);
		}
	}
	pthread_mutex_unlock(&ar->lock);
	free(override);
	return m;
}

int item_kept_text(struct node_target *t, const struct model_text *text)
{
	if (!text)
		return ENOMEM;
	t->text = text->text;
	t->text_len = text->len;
	t->kept = text;
	return 0;
}

bool item_model_reserved(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			 const char *name, struct fs_diag *why)
{
	(void)fs;
	(void)dir;
	const char *end;
	if (!t->model || (strcasecmp(name, "skeleton.txt") && strcasecmp(name, "pack.txt") &&
			  strcasecmp(name, "records.txt") &&
			  !(view_prefixed(name, "stream", &end) && !*end)))
		return false;
	fs_diag_printf(why, "this folder holds %s",
		 t->model->kind == KIND_SKELETON ? "skeleton.txt"
		 : t->model->records ? "pack.txt, records.txt and stream folders"
				     : "pack.txt and stream folders (records.txt is an "
				       "MHP3rd pack's)");
	return true;
}
