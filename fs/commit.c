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
#include "kind.h"
#include "pac.h"
#include "skeleton.h"

/* ---- containers -------------------------------------------------------- */

/* The member at `path` (depth indices) of the PAC chain in bytes. */
static bool member_at(const uint8_t *bytes, size_t len, const uint16_t *path,
		      unsigned depth, const uint8_t **out, size_t *out_len)
{
	for (unsigned i = 0; i < depth; i++) {
		struct pac pac;
		if (pac_decode(bytes, len, &pac, NULL) || path[i] >= pac.count) {
			pac_free(&pac);
			return false;
		}
		bytes += pac.entries[path[i]].offset;
		len = pac.entries[path[i]].size;
		pac_free(&pac);
	}
	*out = bytes;
	*out_len = len;
	return true;
}

/* bytes with the member at `path` replaced by item, each container
 * re-encoded at its own alignment with its own tail. */
static int splice_member(const uint8_t *bytes, size_t len, const uint16_t *path,
		  unsigned depth, const uint8_t *item, size_t item_len,
		  uint8_t **out, size_t *out_len)
{
	if (depth == 0) {
		*out = malloc(item_len ? item_len : 1);
		if (!*out)
			return ENOMEM;
		memcpy(*out, item, item_len);
		*out_len = item_len;
		return 0;
	}
	struct pac pac;
	struct pac_blob *blobs = NULL;
	uint8_t *member = NULL;
	size_t member_len;
	int err = EIO;
	if (pac_decode(bytes, len, &pac, NULL) || path[0] >= pac.count)
		goto out;
	const struct pac_entry *m = &pac.entries[path[0]];
	if ((err = splice_member(bytes + m->offset, m->size, path + 1, depth - 1, item,
			  item_len, &member, &member_len)))
		goto out;
	err = ENOMEM;
	if (member_len > UINT32_MAX || !(blobs = calloc(pac.count, sizeof *blobs)))
		goto out;
	for (uint32_t i = 0; i < pac.count; i++)
		blobs[i] = (struct pac_blob){bytes + pac.entries[i].offset, pac.entries[i].size};
	blobs[path[0]] = (struct pac_blob){member, (uint32_t)member_len};
	err = pac_encode(blobs, pac.count, pac.align, bytes + pac.tail,
			 len - (size_t)pac.tail, out, out_len, NULL) ? EFBIG : 0;
out:
	free(member);
	free(blobs);
	pac_free(&pac);
	return err;
}

static enum kind sniff(const uint8_t *p, size_t len)
{
	return kind_sniff(p, len < KIND_HEAD_MAX ? len : KIND_HEAD_MAX, len);
}

/* The first skeleton among a PAC's members, decoded into *rig. */
static bool pac_rig(const uint8_t *bytes, size_t len, struct skeleton *rig)
{
	struct pac pac;
	bool found = false;
	if (pac_decode(bytes, len, &pac, NULL))
		return false;
	for (uint32_t i = 0; i < pac.count && !found; i++) {
		const uint8_t *m = bytes + pac.entries[i].offset;
		size_t n = pac.entries[i].size;
		found = n && sniff(m, n) == KIND_SKELETON &&
			skeleton_decode(m, n, rig, NULL) == MH_OK;
	}
	pac_free(&pac);
	return found;
}

/* The skeleton beside the item at `view`'s path: its container's. */
static bool item_rig(const uint8_t *entry, size_t len, const struct node *view,
		     struct skeleton *rig)
{
	const uint8_t *parent;
	size_t parent_len;
	return view->depth > 0 &&
	       member_at(entry, len, view->path, view->depth - 1, &parent, &parent_len) &&
	       pac_rig(parent, parent_len, rig);
}

/* An entry stored in whole blocks, re-encoded: cut or zero-extended to
 * the length databin_padded_len gives. */
static int repad(const uint8_t *old, size_t old_len, uint8_t **bytes, size_t *len)
{
	size_t want = databin_padded_len(old, old_len, *bytes, *len);
	if (want > *len) {
		uint8_t *p = realloc(*bytes, want);
		if (!p)
			return ENOMEM;
		memset(p + *len, 0, want - *len);
		*bytes = p;
	}
	*len = want;
	return 0;
}

/* ---- rules ------------------------------------------------------------- */

/* The rules of every skeleton and pack in an item; `before` (the same
 * position before the edit, or NULL) for the template rule. */
static enum mh_err item_rules(const uint8_t *b, size_t n, const uint8_t *before,
			      size_t before_n, const struct skeleton *rig,
			      struct rule_report *r)
{
	enum mh_err err = MH_OK;
	switch (sniff(b, n)) {
	case KIND_SKELETON: {
		struct skeleton s, old;
		bool have_old = before && skeleton_decode(before, before_n, &old, NULL) == MH_OK;
		if (skeleton_decode(b, n, &s, NULL) == MH_OK) {
			err = rules_check_skeleton(&s, have_old ? &old : NULL, r);
			skeleton_free(&s);
		}
		if (have_old)
			skeleton_free(&old);
		return err;
	}
	case KIND_ANIM: {
		struct anim a;
		if (anim_decode(b, n, CLIP_NONE, &a, NULL) == MH_OK) {
			err = rules_check_pack(&a, rig, r);
			anim_free(&a);
		}
		return err;
	}
	case KIND_PAC: {
		struct pac pac, old;
		struct skeleton own;
		bool have_rig = pac_rig(b, n, &own);
		bool have_old = before && pac_decode(before, before_n, &old, NULL) == MH_OK;
		if (pac_decode(b, n, &pac, NULL) == MH_OK) {
			for (uint32_t i = 0; i < pac.count && !err; i++) {
				const struct pac_entry *m = &pac.entries[i];
				bool same = have_old && i < old.count && old.entries[i].size;
				if (m->size)
					err = item_rules(b + m->offset, m->size,
							 same ? before + old.entries[i].offset : NULL,
							 same ? old.entries[i].size : 0,
							 have_rig ? &own : rig, r);
			}
			pac_free(&pac);
		}
		if (have_old)
			pac_free(&old);
		if (have_rig)
			skeleton_free(&own);
		return err;
	}
	default:
		return MH_OK;
	}
}

/* ---- encoding an edit -------------------------------------------------- */

/* The clip a slot file's bytes or text give. */
static enum mh_err slot_clip(const struct edit *e, enum clip_format f, struct clip *c,
			     struct mh_diag *d)
{
	if (e->view.type == NODE_SLOT_TXT)
		return clip_parse((const char *)e->data, e->len, c, d);
	size_t used;
	enum mh_err err = clip_decode(f, e->data, e->len, c, &used, d);
	if (!err && used != e->len) {
		clip_free(c);
		return mh_fail(d, MH_ECORRUPT, used, "%zu bytes after the clip's end",
			       e->len - used);
	}
	return err;
}

/* A slot edit applied to the pack: a write replaces the clip of a slot
 * that is its clip's first user (every slot sharing it follows) and gives
 * any other slot a clip of its own. */
static enum mh_err edit_pack_slot(const struct edit *e, struct anim *a, struct mh_diag *d)
{
	uint32_t s = e->view.stream, slot = e->view.slot;
	if (s >= a->nstreams || slot >= a->streams[s].nslots)
		return mh_fail(d, MH_ERANGE, 0, "stream %u has no slot %u", s, slot);
	int32_t cur = a->streams[s].slots[slot];
	if (e->kind == EDIT_EMPTY_SLOT)
		return anim_set_slot(a, s, slot, ANIM_EMPTY, d);
	if (e->kind == EDIT_SHARE_SLOT) {
		if (e->share_stream >= a->nstreams ||
		    e->share_slot >= a->streams[e->share_stream].nslots ||
		    a->streams[e->share_stream].slots[e->share_slot] < 0)
			return mh_fail(d, MH_ERANGE, 0, "the link's target holds no clip");
		return anim_set_slot(a, s, slot, a->streams[e->share_stream].slots[e->share_slot], d);
	}
	if (a->format == CLIP_NONE)
		a->format = CLIP_MHFU; /* the first clip of an empty pack, game unknown */
	struct clip c;
	enum mh_err err = slot_clip(e, a->format, &c, d);
	if (err)
		return err;
	uint32_t fs, fslot;
	if (cur >= 0 && anim_first_use(a, (uint32_t)cur, &fs, &fslot) && fs == s && fslot == slot) {
		clip_free(&a->clips[cur]);
		a->clips[cur] = c;
		return MH_OK;
	}
	int32_t idx = anim_add_clip(a, &c);
	if (idx < 0) {
		clip_free(&c);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	return anim_set_slot(a, s, slot, idx, d);
}

/* pack.txt: the new shape, each clip taken from the slot that first uses
 * it in the new shape, as the pack holds it now. */
static enum mh_err edit_pack_shape(const struct edit *e, const struct anim *old,
				   struct anim *a, struct mh_diag *d)
{
	enum mh_err err = anim_parse_shape((const char *)e->data, e->len, a, d);
	for (uint32_t c = 0; !err && c < a->nclips; c++) {
		uint32_t s, slot;
		anim_first_use(a, c, &s, &slot);
		int32_t from = s < old->nstreams && slot < old->streams[s].nslots
				       ? old->streams[s].slots[slot] : ANIM_EMPTY;
		if (from < 0) {
			err = mh_fail_text(d, MH_ERANGE, anim_text_line((const char *)e->data, e->len, (int)s), 1,
					   "stream %u slot %u is filled but has no clip: "
					   "write stream%u/slot%03u.txt to fill it", s, slot, s, slot);
			break;
		}
		clip_free(&a->clips[c]);
		err = clip_copy(&a->clips[c], &old->clips[from], d);
	}
	if (err)
		anim_free(a);
	return err;
}

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

/* The item's new bytes from the edit and its old bytes; *format is the
 * clips' when the pack holds none, and is set to the pack's. */
static enum mh_err encode_edit(const struct edit *e, const uint8_t *old, size_t old_len,
			       enum clip_format *format, uint8_t **out, size_t *out_len,
			       struct mh_diag *d)
{
	enum mh_err err;
	switch (e->view.type) {
	case NODE_FILE:
		*out = malloc(e->len ? e->len : 1);
		if (!*out)
			return mh_fail(d, MH_ENOMEM, 0, "out of memory");
		memcpy(*out, e->data, e->len);
		*out_len = e->len;
		return MH_OK;
	case NODE_SKEL_TXT: {
		struct skeleton s;
		if ((err = skeleton_parse((const char *)e->data, e->len, &s, d)))
			return err;
		err = skeleton_encode(&s, out, out_len, d);
		skeleton_free(&s);
		return err;
	}
	case NODE_PACK_TXT:
	case NODE_SLOT_TXT:
	case NODE_SLOT_BIN: {
		struct anim a, shaped;
		if ((err = anim_decode(old, old_len, *format, &a, d)))
			return err;
		*format = a.format;
		if (e->view.type == NODE_PACK_TXT) {
			err = edit_pack_shape(e, &a, &shaped, d);
			anim_free(&a);
			if (err)
				return err;
			a = shaped;
		} else {
			err = edit_pack_slot(e, &a, d);
		}
		if (!err)
			err = anim_compact(&a, d);
		if (!err)
			err = anim_encode(&a, out, out_len, d);
		anim_free(&a);
		return err;
	}
	default:
		return mh_fail(d, MH_ERANGE, 0, "this file cannot be written");
	}
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
	const char *text = (const char *)e->data;
	if (e->kind != EDIT_WRITE)
		return 0;
	switch (e->view.type) {
	case NODE_SLOT_TXT:
		if (v->stream == (int)e->view.stream && v->slot == (int)e->view.slot)
			return clip_text_line(text, e->len, v->track, v->channel, v->key);
		return 0;
	case NODE_SKEL_TXT:
		return skeleton_text_line(text, e->len, v->bone); /* -1: the params line */
	case NODE_PACK_TXT:
		return v->stream >= 0 ? anim_text_line(text, e->len, v->stream) : 0;
	default:
		return 0;
	}
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
static bool removed_clip(struct archive *ar, const struct node *slot, char *path,
			 size_t path_len, uint8_t **text, size_t *len)
{
	struct node txt = *slot;
	struct node_target t;
	txt.type = NODE_SLOT_TXT;
	if (!node_resolve(ar, &txt, &t) || t.link[0] || !t.text ||
	    !(*text = malloc(t.text->len ? t.text->len : 1)))
		return false;
	memcpy(*text, t.text->text, t.text->len);
	*len = t.text->len;
	node_path(ar, &txt, path, path_len);
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
	set_view_error(fs, node_ino(&fs->ar, &e->view), first);
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
	node_path(ar, &e->view, path, sizeof path);
	/* A clip removed is kept in the record, as a refused text is: a
	 * removal by mistake, or the one GNU mv makes before copying over a
	 * view, loses nothing. */
	if (e->kind == EDIT_EMPTY_SLOT)
		removed = removed_clip(ar, &e->view, removed_path, sizeof removed_path,
				       &removed_text, &removed_len);
	/* A commit that failed after its journal was synced is completed
	 * first: no other commit goes ahead of it. */
	bool was_pending = ar->store.pending;
	pending_entry = ar->store.pending_entry;
	if ((err = archive_replay_pending(ar, why, sizeof why))) {
		mlog_printf(&fs->log, "%s: not committed: %s", path, why);
		goto out;
	}
	replayed = was_pending;
	uint64_t size = archive_entry_size(ar, item.entry);
	if (!node_resolve(ar, &item, &t)) {
		err = ENOENT;
		goto out;
	}
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
		set_view_error(fs, node_ino(ar, &e->view), NULL);
		mlog_printf(&fs->log, "%s: unchanged, nothing committed", path);
		unchanged = true;
		goto out;
	}

	bool have_rig = item_rig(entry, size, &item, &rig);
	/* The item as it was is checked only when the edit breaks a rule:
	 * what it broke already is demoted to a warning. */
	if (item_rules(item_new, item_len, old, t.size, have_rig ? &rig : NULL, &after) ||
	    (after.n && (item_rules(old, t.size, old, t.size, have_rig ? &rig : NULL, &before) ||
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

	if ((err = splice_member(entry, size, item.path, item.depth, item_new, item_len,
			  &entry_new, &entry_len)))
		goto out;
	/* Bytes written to the raw entry are the user's, padding and all;
	 * anything re-encoded is padded as the entry was. */
	bool raw_entry = e->view.type == NODE_FILE && e->view.depth == 0;
	if (!raw_entry && archive_entry_padded(ar, item.entry) &&
	    (err = repad(entry, size, &entry_new, &entry_len)))
		goto out;
	if ((err = archive_write_entry(ar, item.entry, entry, size, entry_new, entry_len, why,
				       sizeof why))) {
		mlog_printf(&fs->log, "%s: not committed: %s", path, why);
		goto out;
	}
	set_view_error(fs, node_ino(ar, &e->view), NULL);
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
		fuse_lowlevel_notify_inval_inode(fs->se, node_ino(ar, &e->view), 0, 0);
	rules_report_free(&after);
	rules_report_free(&before);
	free(entry);
	free(item_new);
	free(entry_new);
	return err;
}
