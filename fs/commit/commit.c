/* SPDX-License-Identifier: MIT */
/* Commits (commit.h).
 *
 * 1. The archive is locked exclusively (archive.h) for the whole commit:
 *    readers see the entry wholly before or wholly after it.
 * 2. Nothing is written until the new entry is complete and every check
 *    passed; archive_write_entry then replaces it durably, or not at all.
 * 3. Rules run on the edited item's container (or the item, an entry)
 *    after and before the edit: a skeleton's edit re-checks the packs it
 *    drives; what was already wrong is only a warning, so it never
 *    blocks an unrelated edit.
 * 4. The history keeps the entry's previous bytes, written before the
 *    archive is, made durable by the commit's journal record (history.h
 *    note 2); a commit that fails takes them back.
 * 5. The inode numbers of the views it may change are retired in the same
 *    hold (invalidate.h: planned before anything is written, applied once
 *    the archive holds the edit), so no reader finds the new bytes under
 *    a number whose pages the kernel caches; open raw files of the entry
 *    keep its old bytes (handles_keep_old). */
#include "commit.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "fserror.h"
#include "databin.h"
#include "handle.h"
#include "invalidate.h"
#include "item.h"
#include "kind.h"
#include "pacpath.h"
#include "skeleton.h"
#include "views.h"

/* ---- encoding an edit -------------------------------------------------- */

/* The item's new bytes from the edit and its old bytes (the view's
 * class encodes); *format is the clips' when the pack holds none, and is
 * set to the pack's. */
static enum mh_err encode_edit(const struct edit *e, const uint8_t *old, size_t old_len,
			       enum clip_format *format, uint8_t **out, size_t *out_len,
			       struct mh_diag *d)
{
	const struct view_class *c = node_class(&e->view);
	if (!c->encode)
		return mh_fail(d, MH_ERANGE, 0, "this file cannot be written");
	return c->encode(e, old, old_len, format, out, out_len, d);
}

/* The text of the clip a slot removal takes out of the pack, malloc'ed
 * with its view's path; false when the slot only shares another's clip
 * (nothing leaves the pack) or the text cannot be had. */
static bool removed_clip(struct mhfs *fs, const struct node *slot, char *path,
			 size_t path_len, uint8_t **text, size_t *len)
{
	struct node txt = *slot;
	struct node_target t;
	txt.type = NODE_SLOT_TXT;
	if (node_resolve(fs, &txt, &t) || t.link[0] || !t.text ||
	    !(*text = malloc(t.text_len ? t.text_len : 1)))
		return false;
	memcpy(*text, t.text, t.text_len);
	*len = t.text_len;
	node_path(fs, &txt, path, path_len);
	return true;
}


/* Zero-extends the malloc'ed bytes[0..len) to whole DATA.BIN blocks (at
 * least one), as an entry without a size record is stored: 0 or ENOMEM. */
static int pad_to_blocks(uint8_t **bytes, size_t *len)
{
	size_t want = (*len + DATABIN_BLOCK - 1) / DATABIN_BLOCK * DATABIN_BLOCK;
	if (!want)
		want = DATABIN_BLOCK;
	if (want == *len)
		return 0;
	uint8_t *p = realloc(*bytes, want);
	if (!p)
		return ENOMEM;
	memset(p + *len, 0, want - *len);
	*bytes = p;
	*len = want;
	return 0;
}

/* ---- the commit -------------------------------------------------------- */

/* The decoded model an encoder may use for the view's item `item` (edit.h):
 * a pack's when the cache holds it, built from the bytes the commit edits
 * (a commit to the entry drops it, and the commit holds the io lock
 * exclusively, so no reader holds it either); a PMO's, built if need be,
 * for what it knows beside the PMO (view_pmo.c).  NULL: none. */
static struct model *decoded_model(struct archive *ar, const struct node *item)
{
	struct item it;
	if (item_resolve(ar, item, &it))
		return NULL;
	if (it.kind == KIND_PMO)
		return item_model(ar, item, &it);
	struct model *m = atomic_load(&it.cache->model);
	return m && m->kind == KIND_ANIM && m->pack.nclips ? m : NULL;
}

/* A refusal: the edit's encoding failed (d) or it broke a rule. */
static int refused(struct commit_result *r, const struct mh_diag *d)
{
	r->outcome = COMMIT_REFUSED;
	if (d)
		r->diag = *d;
	return EINVAL;
}

/* A failure of the archive, or of memory: the edit was not judged. */
static int failed(struct commit_result *r, int err, const char *why)
{
	r->outcome = COMMIT_FAILED;
	snprintf(r->why, sizeof r->why, "%s", why ? why : strerror(err));
	return err;
}

int commit_edit(struct mhfs *fs, const struct edit *e, struct commit_result *r)
{
	struct archive *ar = &fs->ar;
	struct node item = e->view;
	struct node_target t;
	struct mh_diag d = {0};
	struct entry_state was_entry = {0};
	uint8_t *item_new = NULL, *entry_new = NULL;
	size_t item_len = 0, entry_len = 0;
	struct fs_diag why = {""};
	int err = 0;

	memset(r, 0, sizeof *r);
	if (e->view.original)
		return r->err = failed(r, EROFS, "the original tree is read-only");
	item.type = NODE_FILE;
	item.stream = item.slot = 0;
	const struct node own = item; /* the view's item */
	uint64_t began = archive_now_us();
	pthread_rwlock_wrlock(&ar->io);
	node_path(fs, &e->view, r->path, sizeof r->path);
	/* A clip removed is kept in the record, as a refused text is: a
	 * removal by mistake, or the one GNU mv makes before copying over a
	 * view, loses nothing. */
	if (e->kind == EDIT_EMPTY_SLOT &&
	    !removed_clip(fs, &e->view, r->removed_path, sizeof r->removed_path,
			  &r->removed_text, &r->removed_len))
		r->removed_text = NULL;
	/* A commit that failed after its journal was synced is completed
	 * first: no other commit goes ahead of it. */
	bool was_pending = ar->store.pending;
	r->replayed_entry = ar->store.pending_entry;
	struct change change;
	change_of_entry(r->replayed_entry, &change);
	if (was_pending && invalidate_plan(fs, &change, &r->plan)) {
		err = failed(r, ENOMEM, NULL);
		goto out;
	}
	if ((err = archive_replay_pending(ar, &why))) {
		err = failed(r, err, why.msg);
		goto out;
	}
	inodes_apply(&fs->inodes, &r->plan);
	r->replayed = was_pending;
	struct edit ed = *e;
	const struct view_class *c = node_class(&e->view);
	if ((ed.next_entry = c->to_next_entry && c->to_next_entry(fs, &e->view)))
		item = (struct node){.type = NODE_FILE, .entry = own.entry + 1};
	r->entry = item.entry;
	if ((err = node_resolve(fs, &item, &t))) {
		err = failed(r, err, NULL);
		goto out;
	}
	/* A view kept outside the archive commits on its own: the views of
	 * its item change, not its bytes. */
	if (node_class(&e->view)->commit) {
		change_of(&e->view, t.kind, t.kind, &change);
		if (invalidate_plan(fs, &change, &r->plan)) {
			err = failed(r, ENOMEM, NULL);
			goto out;
		}
		err = node_class(&e->view)->commit(fs, e, r);
		if (r->outcome == COMMIT_DONE)
			inodes_apply(&fs->inodes, &r->plan);
		goto out;
	}
	if ((err = archive_entry_load(ar, item.entry, &was_entry))) {
		err = failed(r, err, NULL);
		goto out;
	}
	const uint8_t *entry = was_entry.bytes;
	size_t size = was_entry.size;
	const uint8_t *old = entry + t.offset;
	enum clip_format format = was_entry.clip_format;
	/* A raw write encodes nothing: no model to build for it. */
	struct model *cached = e->view.type == NODE_FILE ? NULL : decoded_model(ar, &own);
	ed.decoded = cached;
	ed.fit[0] = fs->fit[0];
	ed.fit[1] = fs->fit[1];
	int encoded = encode_edit(&ed, old, t.size, &format, &item_new, &item_len, &d);
	/* A pack taken: the model is no longer whole, so it goes whatever
	 * comes. */
	if (cached && cached->kind == KIND_ANIM && !cached->pack.nclips)
		archive_forget_views(ar, item.entry);
	if (format != CLIP_NONE)
		atomic_store(&ar->cache.entries[item.entry].clip_format, (int)format);
	if (encoded) {
		err = mh_errno(d.code) == EINVAL ? refused(r, &d) : failed(r, mh_errno(d.code), d.msg);
		goto out;
	}
	if (item_len == t.size && !memcmp(item_new, old, item_len)) {
		/* A save of what is there already (an editor's :w, rsync of an
		 * unchanged file): nothing to check, journal or write. */
		r->outcome = COMMIT_UNCHANGED;
		goto out;
	}
	/* An item too large for its container is the edit's fault too. */
	if ((encoded = pacpath_splice(entry, size, item.path, item.depth, item_new, item_len,
				      &entry_new, &entry_len, &d))) {
		err = mh_errno(d.code) == EINVAL ? refused(r, &d) : failed(r, mh_errno(d.code), d.msg);
		goto out;
	}
	/* The paths resolved before the splice, so they do now: what can
	 * fail is memory. */
	if ((encoded = rules_check_edit(entry, size, entry_new, entry_len, item.path, item.depth,
					item_new, item_len, fs->rules, &r->rules))) {
		err = failed(r, mh_errno(encoded), NULL);
		goto out;
	}
	if (rules_has_errors(&r->rules)) {
		err = refused(r, NULL);
		goto out;
	}
	/* Bytes written to the raw entry are the user's, padding and all;
	 * anything re-encoded is padded as the entry was. */
	bool raw_entry = e->view.type == NODE_FILE && e->view.depth == 0;
	if (!raw_entry && was_entry.padded &&
	    databin_repad(entry, size, &entry_new, &entry_len, NULL)) {
		err = failed(r, ENOMEM, NULL);
		goto out;
	}
	/* The store keeps such an entry in whole blocks, so the user's bytes
	 * read back zero-extended to their last block: the history keeps
	 * them so, or the commit could not be undone. */
	if (raw_entry && was_entry.padded && (err = pad_to_blocks(&entry_new, &entry_len))) {
		err = failed(r, err, NULL);
		goto out;
	}
	if (ed.next_entry)
		change_of(&item, t.kind, kind_of(item_new, item_len), &change);
	else
		change_of(&e->view, t.kind, kind_of(item_new, item_len), &change);
	if ((err = invalidate_plan(fs, &change, &r->plan))) {
		err = failed(r, err, NULL);
		goto out;
	}
	struct history_change was = {.entry = item.entry, .path = r->path, .old = entry,
				     .old_len = size, .now = entry_new, .now_len = entry_len,
				     .undoes = e->undoes, .warnings = &r->rules};
	if ((err = history_prepare(&fs->history, &was, &r->history_id, &why))) {
		err = failed(r, err, why.msg);
		goto out;
	}
	struct entry_write w = {item.entry, entry, size, entry_new, entry_len,
				fs->history.note, fs->history.note_len};
	struct entry_written written;
	err = archive_write_entry(ar, &w, &written, &why);
	history_settle(&fs->history, r->history_id, written.landed);
	if (written.landed) {
		inodes_apply(&fs->inodes, &r->plan);
		handles_keep_old(fs, item.entry, was_entry.generation, &was_entry.bytes, size);
	}
	if (err) {
		err = failed(r, err, why.msg);
		goto out;
	}
	r->outcome = COMMIT_DONE;
	/* What the entry now holds: an entry without a size record keeps
	 * whole blocks, so a truncate to 100000 bytes reads 100352. */
	r->entry_len = written.size;
	times_forget_entry(&fs->times, item.entry);
	atomic_fetch_add(&ar->commits, 1);
	atomic_store(&ar->last_commit_us, archive_now_us() - began);
out:
	inodes_cancel(&r->plan); /* what was planned for a commit that did not land */
	pthread_rwlock_unlock(&ar->io);
	entry_state_free(&was_entry);
	free(item_new);
	free(entry_new);
	return r->err = err;
}

void commit_result_free(struct commit_result *r)
{
	inodes_plan_free(&r->plan);
	rules_report_free(&r->rules);
	free(r->removed_text);
	r->removed_text = NULL;
}
