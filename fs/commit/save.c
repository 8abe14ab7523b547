/* SPDX-License-Identifier: MIT */
/* Saving: what an open file or a scratch file holds, committed to its
 * view (save.h). */
#include "save.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "invalidate.h"
#include "report.h"

int save_edit(struct mhfs *fs, const struct edit *e)
{
	struct commit_result r;
	int err = commit_edit(fs, e, &r);
	report_commit(fs, e, &r);
	/* What the commit (and a journal replayed first) retired. */
	invalidate_after(fs, &r.plan);
	if (r.outcome == COMMIT_REFUSED)
		/* The view shows the archive, not the size written (a writer's
		 * number: retired when the writer closes, inodes.h). */
		kernel_forget(fs, node_ino(fs, &e->view));
	commit_result_free(&r);
	return err;
}

int commit_write(struct mhfs *fs, const struct node *view, const uint8_t *data,
			size_t len)
{
	struct edit e = {.kind = EDIT_WRITE, .view = *view, .data = data, .len = len};
	return save_edit(fs, &e);
}

/* A link's target in the same pack: "slot000.txt" or
 * "../stream2/slot000.txt"; false for anything else. */
static bool link_slot(const struct node *from, const char *target, uint32_t *stream,
		      uint32_t *slot)
{
	unsigned s = from->stream, n;
	char ext[4];
	int used = 0;
	if (!strncmp(target, "../stream", 9) &&
	    sscanf(target, "../stream%u/slot%3u.%3s%n", &s, &n, ext, &used) == 3)
		;
	else if (sscanf(target, "slot%3u.%3s%n", &n, ext, &used) != 2)
		return false;
	if (target[used] || (strcmp(ext, "txt") && strcmp(ext, "bin")))
		return false;
	*stream = s;
	*slot = n;
	return true;
}

int share_slot(struct mhfs *fs, const struct node *view, const char *target)
{
	struct edit e = {.kind = EDIT_SHARE_SLOT, .view = *view};
	if (!link_slot(view, target, &e.share_stream, &e.share_slot))
		return EINVAL;
	return save_edit(fs, &e);
}

/* Whether a link at `view` to `target` stays a link once made: the file
 * of a shared clip is its first slot's, and every later slot links to
 * it, so linking a slot to a later one would make the new name a regular
 * file where ln(1) made a link.  True too when the target is not a clip
 * (share_slot says why). */
bool links_to_earlier(struct mhfs *fs, const struct node *view, const char *target)
{
	struct node first = *view;
	struct node_target t;
	uint32_t s, n;
	if (!link_slot(view, target, &s, &n))
		return true;
	first.stream = (uint16_t)s;
	first.slot = (uint16_t)n;
	pthread_rwlock_rdlock(&fs->ar.io);
	bool shared = !node_resolve(fs, &first, &t) && t.link[0];
	pthread_rwlock_unlock(&fs->ar.io);
	if (shared && !link_slot(&first, t.link, &s, &n))
		return true;
	return s < view->stream || (s == view->stream && n < view->slot);
}

/* Commits a scratch file's contents to a view: a link shares its target's
 * clip, anything else is written. */
int commit_scratch(struct mhfs *fs, uint64_t ino, const struct node *view)
{
	uint8_t *data = NULL;
	size_t len = 0;
	bool link = false;
	int err = 0;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, ino);
	if (!f) {
		err = ENOENT;
	} else {
		len = (size_t)f->st.st_size;
		link = S_ISLNK(f->st.st_mode);
		if ((data = malloc(len + 1))) {
			if (len)
				memcpy(data, f->data, len);
			data[len] = '\0';
		} else {
			err = ENOMEM;
		}
	}
	pthread_mutex_unlock(&fs->scratch.lock);
	if (!err)
		err = link ? share_slot(fs, view, (const char *)data)
			   : commit_write(fs, view, data, len);
	free(data);
	return err;
}

/* Unlinks the scratch file of this inode (a new slot's, which has one
 * name), if it still has its name. */
static void drop_scratch(struct mhfs *fs, uint64_t ino)
{
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, ino);
	if (f && f->linked)
		scratch_unlink(&fs->scratch, f);
	pthread_mutex_unlock(&fs->scratch.lock);
}

/* A new slot file closed empty: said in the log, as nothing is committed. */
static void note_empty_slot_file(struct mhfs *fs, uint64_t ino)
{
	struct node view;
	bool empty_pending = false;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, ino);
	if (f && f->pending && f->linked && f->st.st_size == 0)
		empty_pending = node_from_ino(fs, f->view, &view);
	pthread_mutex_unlock(&fs->scratch.lock);
	if (!empty_pending)
		return;
	char path[512];
	pthread_rwlock_rdlock(&fs->ar.io);
	node_path(fs, &view, path, sizeof path);
	pthread_rwlock_unlock(&fs->ar.io);
	mlog_printf(&fs->log, "%s: empty; the slot stays empty until a clip is written to it", path);
}

/* Commits what the handle holds: 0 or errno. */
static int commit_handle(struct mhfs *fs, struct handle *h)
{
	/* A request's writes were carried out as they came (write.c). */
	if (!h->scratch && node_class(&h->view)->request)
		return 0;
	if (!h->scratch)
		return commit_write(fs, &h->view, h->data, h->len);
	/* A new slot file: committed to its slot, then it is the view. */
	struct node view;
	bool pending = false;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, h->scratch);
	if (f && f->pending && f->linked)
		pending = node_from_ino(fs, f->view, &view);
	pthread_mutex_unlock(&fs->scratch.lock);
	if (!pending)
		return 0;
	int err = commit_scratch(fs, h->scratch, &view);
	if (!err)
		drop_scratch(fs, h->scratch);
	return err;
}

/* handle_commit with h->lock held.  A failed commit sticks to the
 * handle, as a writeback error does: a tool that ignores the fsync's
 * error (emacs takes EINVAL there for "fsync unsupported") still sees it
 * at close. */
static int commit_locked(struct mhfs *fs, struct handle *h, bool release)
{
	if (!h->dirty && !(release && h->emptied)) {
		if (release && h->scratch)
			note_empty_slot_file(fs, h->scratch);
		return h->error;
	}
	h->dirty = h->emptied = false;
	atomic_store(&h->showing, false);
	h->error = commit_handle(fs, h);
	return h->error;
}

int handle_commit(struct mhfs *fs, struct handle *h, bool release)
{
	pthread_mutex_lock(&h->lock);
	int err = commit_locked(fs, h, release);
	pthread_mutex_unlock(&h->lock);
	return err;
}

