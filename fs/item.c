#include "item.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "views.h"


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
	it->cache = &ar->entries[n->entry].cache;
	atomic_store_explicit(&ar->entries[n->entry].used, true, memory_order_relaxed);
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
		views_entry_dir_name(n->entry, buf, len);
	const struct pactree *tree = n->depth ? archive_entry_tree(ar, n->entry) : NULL;
	for (unsigned i = 0; tree && i < n->depth; i++) {
		size_t used = strlen(buf);
		const struct pactree_sub *s = &tree->subs[n->path[i]];
		if (used + 1 < len) {
			buf[used++] = '/';
			if (i + 1 == n->depth)
				views_member_name(n->path[i], s->kind, buf + used, len - used);
			else
				snprintf(buf + used, len - used, "%u", n->path[i]);
		}
		tree = s->child;
	}
}

/* The skeleton beside a pack in the same container, for joint comments. */
static const struct skeleton *item_rig(struct archive *ar, const struct node *n,
				       const struct item *it)
{
	if (it->kind != KIND_ANIM || !it->parent)
		return NULL;
	for (uint32_t i = 0; i < it->parent->count; i++) {
		if (it->parent->subs[i].kind != KIND_SKELETON)
			continue;
		struct node sib = *n;
		struct item sit;
		sib.path[n->depth - 1] = (uint16_t)i;
		if (item_resolve(ar, &sib, &sit))
			return NULL;
		struct model *m = item_model(ar, &sib, &sit);
		return m ? &m->skel : NULL;
	}
	return NULL;
}

struct model *item_model(struct archive *ar, const struct node *n, const struct item *it)
{
	struct model_cache *c = it->cache;
	struct model *m = atomic_load_explicit(&c->model, memory_order_acquire);
	if (m || atomic_load(&c->failed) || !model_kind(it->kind))
		return m;

	const struct skeleton *rig = item_rig(ar, n, it);
	char label[128];
	struct fs_diag why = {""};
	item_label(ar, n, label, sizeof label);
	pthread_mutex_lock(&ar->lock);
	m = atomic_load(&c->model);
	if (!m && !atomic_load(&c->failed)) {
		/* A failed read or allocation is tried again at the next look;
		 * only a decoding failure is a fact about the bytes. */
		bool transient = false;
		uint8_t *buf = malloc(it->size ? it->size : 1);
		if ((transient = !buf))
			fs_diag_printf(&why, "out of memory");
		else if ((transient = archive_read(ar, n->entry, it->offset, buf, it->size) !=
				      (ssize_t)it->size))
			fs_diag_printf(&why, "read failed");
		else
			m = model_build(it->kind, buf, it->size, label, rig,
					&ar->cached_bytes, &why);
		free(buf);
		if (m) {
			atomic_store_explicit(&c->model, m, memory_order_release);
		} else {
			mlog_printf(ar->log, "%s: shown raw only%s: %s", label,
				    transient ? " for now" : "", why.msg);
			if (!transient)
				atomic_store(&c->failed, true);
		}
	}
	pthread_mutex_unlock(&ar->lock);
	return m;
}

bool item_model_reserved(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			 const char *name, struct fs_diag *why)
{
	(void)fs;
	(void)dir;
	const char *end;
	if (!t->model || (strcasecmp(name, "skeleton.txt") && strcasecmp(name, "pack.txt") &&
			  !(view_prefixed(name, "stream", &end) && !*end)))
		return false;
	fs_diag_printf(why, "this folder holds %s",
		 t->model->kind == KIND_SKELETON ? "skeleton.txt" : "pack.txt and stream folders");
	return true;
}
