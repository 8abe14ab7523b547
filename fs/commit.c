/* Commits (commit.h).
 *
 * 1. The archive is locked exclusively (archive.h) for the whole commit:
 *    readers see the entry wholly before or wholly after it.
 * 2. Nothing is written until the new entry is complete and every check
 *    passed; archive_write_entry then replaces it durably, or not at all.
 * 3. Rules run on the edited item after and before the edit: what was
 *    already wrong is only a warning, so it never blocks an unrelated
 *    edit. */
#include "commit.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "databin.h"
#include "pacpath.h"
#include "skeleton.h"

/* ---- encoding an edit -------------------------------------------------- */

/* The clip format of an edited pack that holds no clip, which its bytes
 * do not say: the one its entry's packs were seen in this mount, else
 * the archive's game's. */
static enum clip_format default_clip_format(const struct archive *ar, uint32_t entry)
{
	int seen = atomic_load(&ar->entries[entry].clip_format);
	if (seen != CLIP_NONE)
		return (enum clip_format)seen;
	if (ar->format != FORMAT_DATABIN || ar->db.game == GAME_UNKNOWN)
		return CLIP_NONE;
	return ar->db.game == GAME_MHP3RD ? CLIP_P3RD : CLIP_MHFU;
}

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

/* ---- reporting --------------------------------------------------------- */

static void set_view_error(struct mhfs *fs, uint64_t ino, const char *msg)
{
	pthread_mutex_lock(&fs->errors_lock);
	struct view_error **p = &fs->errors;
	while (*p && (*p)->ino != ino)
		p = &(*p)->next;
	if (*p && !msg) {
		struct view_error *gone = *p;
		*p = gone->next;
		free(gone->msg);
		free(gone);
	} else if (msg) {
		if (!*p && (*p = calloc(1, sizeof **p)))
			(*p)->ino = ino;
		if (*p) {
			free((*p)->msg);
			(*p)->msg = strdup(msg);
		}
	}
	pthread_mutex_unlock(&fs->errors_lock);
}

char *commit_error_of(struct mhfs *fs, uint64_t ino)
{
	char *msg = NULL;
	pthread_mutex_lock(&fs->errors_lock);
	for (struct view_error *v = fs->errors; v; v = v->next)
		if (v->ino == ino && v->msg)
			msg = strdup(v->msg);
	pthread_mutex_unlock(&fs->errors_lock);
	return msg;
}

/* The line of a violation in the text the user wrote, 0 if not in it. */
static unsigned violation_line(const struct edit *e, const struct rule_violation *v)
{
	const struct view_class *c = node_class(&e->view);
	return e->kind == EDIT_WRITE && c->violation_line ? c->violation_line(e, v) : 0;
}

/* Keeps a text (`what`: a refused one, a removed clip's) in the record
 * (.mhfu/rejected/); if it cannot be written there, in memory until
 * unmount, named after the view. */
static void keep_text(struct mhfs *fs, const char *path, const uint8_t *data, size_t len,
		      const char *what)
{
	char name[256];
	int err = fs->record.dir < 0 ? 0
		  : record_keep(&fs->record, path, data, len, name, sizeof name);
	if (fs->record.dir >= 0 && !err) {
		mlog_printf(&fs->log, "%s: %s is kept as .mhfu/rejected/%s", path, what, name);
		return;
	}
	if (err)
		mlog_printf(&fs->log, "%s: %s cannot be kept in %s (%s): kept in "
			    "memory until unmount", path, what, fs->record.path, strerror(err));
	size_t i = 0;
	for (; path[i] && i + 1 < sizeof name; i++)
		name[i] = path[i] == '/' ? '%' : path[i];
	name[i] = '\0';
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_create(&fs->scratch, NODE_REJECTED, name,
					   S_IFREG | 0644, fs->uid, fs->gid);
	if (f && scratch_set(f, data, len))
		scratch_unlink(&fs->scratch, f);
	pthread_mutex_unlock(&fs->scratch.lock);
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

/* Logs what a refused edit broke; the first error becomes the view's
 * xattr.  Returns EINVAL. */
/* Logs each violation as path:line: CODE message (fix: ...); the first
 * error's line goes to first, if given and still empty. */
static void log_violations(struct mhfs *fs, const struct edit *e, const char *path,
			   const struct rule_report *r, char *first, size_t first_len)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rule_violation *v = &r->v[i];
		char line[512], at[32] = "";
		unsigned ln = violation_line(e, v);
		if (ln)
			snprintf(at, sizeof at, ":%u", ln);
		snprintf(line, sizeof line, "%s%s: %s %s (fix: %s)%s", path, at,
			 rule_info(v->code)->name, v->msg, v->fix,
			 v->level == RULE_ERROR ? "" : " [warning]");
		mlog_printf(&fs->log, "%s", line);
		if (first && !first[0] && v->level == RULE_ERROR)
			snprintf(first, first_len, "%s", line);
	}
}

static int refuse(struct mhfs *fs, const struct edit *e, const char *path,
		  const struct mh_diag *d, const struct rule_report *r)
{
	char first[512] = "";
	if (d) {
		const char *code = d->code == MH_ERANGE && d->line ? rules_table[RULE_VALUE_RANGE].name
				   : d->line ? "SYNTAX" : "FORMAT";
		if (d->line)
			snprintf(first, sizeof first, "%s:%u:%u: %s %s", path, d->line,
				 d->col, code, d->msg);
		else
			snprintf(first, sizeof first, "%s: %s %s", path, code, d->msg);
		mlog_printf(&fs->log, "%s", first);
	}
	if (r)
		log_violations(fs, e, path, r, first, sizeof first);
	set_view_error(fs, node_ino(fs, &e->view), first);
	if (e->kind == EDIT_WRITE && e->view.type != NODE_FILE)
		keep_text(fs, path, e->data, e->len, "the refused text");
	atomic_fetch_add(&fs->ar.refusals, 1);
	return EINVAL;
}

/* ---- cache invalidation ------------------------------------------------- */

/* Drops what the kernel caches of the entry's inodes: pages (of mmaps
 * and writers: readers in a writable mount read through) and attributes.
 * Done once the commit released the archive: it waits for page locks,
 * which readers waiting on us may hold.  Names are not invalidated: the
 * kernel would take the directory's lock, which the operation that
 * committed (a rename) may hold while it waits for us; if the driver died
 * then, the connection could never be aborted.  View names expire after fs->entry_timeout. */
static void invalidate(struct mhfs *fs, uint32_t entry)
{
	size_t n;
	uint64_t *inos = known_with_top(&fs->known, (uint64_t)entry + 1, &n);
	for (size_t i = 0; fs->se && i < n; i++)
		fuse_lowlevel_notify_inval_inode(fs->se, inos[i], 0, 0);
	free(inos);
	/* The root (names, sizes) and index.tsv (every entry's start and
	 * size: a growth moves the later ones) depend on every entry. */
	if (fs->se) {
		fuse_lowlevel_notify_inval_inode(fs->se, NODE_ROOT, 0, 0);
		fuse_lowlevel_notify_inval_inode(fs->se, NODE_INDEX, 0, 0);
	}
}

/* ---- the commit -------------------------------------------------------- */

int commit_edit(struct mhfs *fs, const struct edit *e)
{
	struct archive *ar = &fs->ar;
	struct node item = e->view;
	struct node_target t;
	struct mh_diag d = {0};
	struct rule_report after = {0}, before = {0};
	struct skeleton rig;
	uint8_t *entry = NULL, *item_new = NULL, *entry_new = NULL;
	size_t item_len = 0, entry_len = 0;
	char path[512], why[512] = "";
	bool unchanged = false, replayed = false, removed = false;
	uint8_t *removed_text = NULL;
	size_t removed_len = 0;
	char removed_path[512];
	uint32_t pending_entry = 0;
	int err = 0;

	item.type = NODE_FILE;
	item.stream = item.slot = 0;
	uint64_t began = archive_now_us();
	pthread_rwlock_wrlock(&ar->io);
	node_path(fs, &e->view, path, sizeof path);
	/* A clip removed is kept in the record, as a refused text is: a
	 * removal by mistake, or the one GNU mv makes before copying over a
	 * view, loses nothing. */
	if (e->kind == EDIT_EMPTY_SLOT)
		removed = removed_clip(fs, &e->view, removed_path, sizeof removed_path,
				       &removed_text, &removed_len);
	/* A commit that failed after its journal was synced is completed
	 * first: no other commit goes ahead of it. */
	bool was_pending = ar->journal_pending;
	pending_entry = ar->pending_entry;
	if ((err = archive_replay_pending(ar, why, sizeof why))) {
		mlog_printf(&fs->log, "%s: not committed: %s", path, why);
		goto out;
	}
	replayed = was_pending;
	uint64_t size = archive_entry_size(ar, item.entry);
	if ((err = node_resolve(fs, &item, &t)))
		goto out;
	if (!(entry = malloc(size ? size : 1))) {
		err = ENOMEM;
		goto out;
	}
	if (archive_read(ar, item.entry, 0, entry, size) != (ssize_t)size) {
		err = EIO;
		goto out;
	}
	const uint8_t *old = entry + t.offset;
	enum clip_format format = default_clip_format(ar, item.entry);
	int encoded = encode_edit(e, old, t.size, &format, &item_new, &item_len, &d);
	if (format != CLIP_NONE)
		atomic_store(&ar->entries[item.entry].clip_format, (int)format);
	if (encoded) {
		err = d.code == MH_ENOMEM ? ENOMEM : refuse(fs, e, path, &d, NULL);
		goto out;
	}
	if (item_len == t.size && !memcmp(item_new, old, item_len)) {
		/* A save of what is there already (an editor's :w, rsync of an
		 * unchanged file): nothing to check, journal or write. */
		set_view_error(fs, node_ino(fs, &e->view), NULL);
		mlog_printf(&fs->log, "%s: unchanged, nothing committed", path);
		unchanged = true;
		goto out;
	}

	bool have_rig;
	/* The item as it was is checked only when the edit breaks a rule:
	 * what it broke already is demoted to a warning.  A rig missing for
	 * want of memory would skip rules: that fails the commit too. */
	if (pacpath_item_rig(entry, size, item.path, item.depth, &rig, &have_rig, NULL) ==
		    MH_ENOMEM ||
	    rules_check_item(item_new, item_len, old, t.size, have_rig ? &rig : NULL, &after) ||
	    (after.n && (rules_check_item(old, t.size, old, t.size, have_rig ? &rig : NULL,
					  &before) ||
			 rules_demote_existing(&after, &before)))) {
		err = ENOMEM;
	} else {
		rules_apply_mode(&after, fs->rules);
		if (rules_has_errors(&after))
			err = refuse(fs, e, path, NULL, &after);
		else if (after.n)
			log_violations(fs, e, path, &after, NULL, 0); /* warnings only */
	}
	if (have_rig)
		skeleton_free(&rig);
	if (err)
		goto out;

	enum mh_err spliced = pacpath_splice(entry, size, item.path, item.depth, item_new,
					     item_len, &entry_new, &entry_len, NULL);
	if (spliced) {
		err = spliced == MH_ENOMEM ? ENOMEM : spliced == MH_ERANGE ? EFBIG : EIO;
		goto out;
	}
	/* Bytes written to the raw entry are the user's, padding and all;
	 * anything re-encoded is padded as the entry was. */
	bool raw_entry = e->view.type == NODE_FILE && e->view.depth == 0;
	if (!raw_entry && archive_entry_padded(ar, item.entry) &&
	    databin_repad(entry, size, &entry_new, &entry_len, NULL)) {
		err = ENOMEM;
		goto out;
	}
	if ((err = archive_write_entry(ar, item.entry, entry, size, entry_new, entry_len, why,
				       sizeof why))) {
		mlog_printf(&fs->log, "%s: not committed: %s", path, why);
		goto out;
	}
	set_view_error(fs, node_ino(fs, &e->view), NULL);
	times_forget_entry(&fs->times, item.entry);
	atomic_fetch_add(&ar->commits, 1);
	atomic_store(&ar->last_commit_us, archive_now_us() - began);
	mlog_printf(&fs->log, "%s: committed (%zu bytes, entry %u now %zu bytes)", path,
		    e->len, item.entry, entry_len);
out:
	pthread_rwlock_unlock(&ar->io);
	if (!err && removed)
		keep_text(fs, removed_path, removed_text, removed_len, "the removed clip's text");
	free(removed_text);
	if (replayed)
		invalidate(fs, pending_entry);
	if (!err && !unchanged)
		invalidate(fs, item.entry);
	else if (err == EINVAL && fs->se)
		/* The kernel cached what was written: the view shows the archive. */
		fuse_lowlevel_notify_inval_inode(fs->se, node_ino(fs, &e->view), 0, 0);
	rules_report_free(&after);
	rules_report_free(&before);
	free(entry);
	free(item_new);
	free(entry_new);
	return err;
}
