/* SPDX-License-Identifier: MIT */
/* FUSE operations that change the tree: writing, creating, truncating,
 * renaming, linking and removing, and the commit points (flush, fsync,
 * release).
 *
 * What a name is decides what happens to it:
 *   - a view (node.h): writes are buffered in the handle and committed at
 *     the commit points (commit.h); a slot file can also be created (fills
 *     the slot), removed (empties it) or made a link to another slot
 *     (shares its clip);
 *   - anything else is a scratch file or folder (scratch.h), held in
 *     memory; a scratch file renamed over a view commits its contents to
 *     the view, and a view renamed to a scratch name is copied, never
 *     lost. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>

#include "commit.h"
#include "report.h"
#include "handle.h"
#include "ops.h"
#include "reply.h"
#include "save.h"

#define ERROR_XATTR "user.mhfu.error"

/* What a name in a directory is: a view, an empty slot's file, a name
 * that looks like a view but is none (refused), or a scratch name. */
enum name_kind { NAME_SCRATCH, NAME_VIEW, NAME_NEW_SLOT, NAME_RESERVED, NAME_NONE,
		 NAME_READ_ONLY /* in a read-only folder (the original tree) */ };

static enum name_kind classify(struct mhfs *fs, fuse_ino_t parent, const char *name,
			       struct node *view)
{
	struct node dir;
	struct fs_diag why;
	enum name_kind k = NAME_SCRATCH;
	if (parent & SCRATCH_INO) {
		/* In a scratch folder, every name is a scratch name. */
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *d = scratch_dir(&fs->scratch, parent);
		k = d && d->linked ? NAME_SCRATCH : NAME_NONE;
		pthread_mutex_unlock(&fs->scratch.lock);
		return k;
	}
	pthread_rwlock_rdlock(&fs->ar.io);
	if (!node_from_ino(fs, parent, &dir))
		k = NAME_NONE;
	else if (dir.original || (node_class(&dir)->flags & VIEW_READ_ONLY))
		k = NAME_READ_ONLY;
	else if (!node_lookup(fs, &dir, name, view))
		k = NAME_VIEW;
	else if (node_fillable(fs, &dir, name, view))
		k = NAME_NEW_SLOT;
	else if (node_name_reserved(fs, &dir, name, &why)) {
		char path[512];
		node_child_path(fs, &dir, name, path, sizeof path);
		mlog_printf(&fs->log, "%s: refused: not a name of this folder: %s", path, why.msg);
		k = NAME_RESERVED;
	}
	pthread_rwlock_unlock(&fs->ar.io);
	return k;
}

/* The errno for a name that cannot be created: ENOENT, EEXIST, or
 * EINVAL for one that looks like a view but is none (logged). */
static int name_error(enum name_kind k)
{
	return k == NAME_NONE ? ENOENT : k == NAME_VIEW ? EEXIST : k == NAME_RESERVED ? EINVAL
	       : k == NAME_READ_ONLY ? EROFS : 0;
}

/* A name about to be created: a new slot file or a scratch name; see
 * name_error otherwise; EROFS on a read-only archive. */
static int new_name(struct mhfs *fs, fuse_ino_t parent, const char *name,
		    struct node *view, enum name_kind *k)
{
	*k = NAME_NONE;
	if (strlen(name) > NAME_MAX)
		return ENAMETOOLONG;
	if (!fs->ar.writable)
		return EROFS;
	const struct view_class *folder = node_folder_class(fs, parent);
	if (folder && folder->create_error)
		return folder->create_error;
	*k = classify(fs, parent, name, view);
	return name_error(*k);
}

/* A file renamed over a view: the view now shows the file's times, as a
 * local disk would (rsync sets them on its temporary). */
static void keep_times(struct mhfs *fs, uint64_t ino, const struct node *view)
{
	struct stat st;
	bool found = false;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, ino);
	if (f) {
		st = f->st;
		found = true;
	}
	pthread_mutex_unlock(&fs->scratch.lock);
	if (found)
		times_set(&fs->times, node_place(fs, view), view->entry, &st.st_atim,
			  &st.st_mtim, &st);
}

void mhfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		off_t off, struct fuse_file_info *fi)
{
	(void)ino;
	struct mhfs *fs = fs_of(req);
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	int err = 0;

	if (!h->scratch && !h->writable) {
		fuse_reply_err(req, EBADF);
		return;
	}
	/* A request (.mhfu/undo): carried out now, its outcome the write's. */
	const struct view_class *c = h->scratch ? NULL : node_class(&h->view);
	if (c && c->request) {
		struct edit then = {0};
		err = c->request(fs, &h->view, (const uint8_t *)buf, size, &then);
		if (!err && then.data)
			err = save_edit(fs, &then);
		free((void *)then.data);
		if (err)
			fuse_reply_err(req, err);
		else
			fuse_reply_write(req, size);
		return;
	}
	pthread_mutex_lock(&h->lock);
	if (h->scratch) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, h->scratch);
		err = f ? scratch_write(f, (const uint8_t *)buf, size, (uint64_t)off) : ENOENT;
		pthread_mutex_unlock(&fs->scratch.lock);
	} else {
		uint64_t end = (uint64_t)off + size;
		err = handle_resize(h, end > h->len ? end : h->len);
		if (!err)
			memcpy(h->data + off, buf, size);
	}
	if (!err) {
		h->dirty = true;
		h->emptied = false;
	}
	pthread_mutex_unlock(&h->lock);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_write(req, size);
}

/* A new scratch file (or pending slot file) in parent. */
static int new_scratch(struct mhfs *fs, fuse_req_t req, fuse_ino_t parent,
		       const char *name, mode_t mode, const struct node *pending,
		       uint64_t *ino)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	int err = 0;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_create(&fs->scratch, parent, name, mode,
					   ctx->uid, ctx->gid);
	if (!f) {
		err = ENOMEM;
	} else {
		*ino = f->ino;
		if (pending) {
			f->pending = true;
			f->view = node_place(fs, pending);
		}
	}
	pthread_mutex_unlock(&fs->scratch.lock);
	return err;
}

void mhfs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode, struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	uint64_t ino = 0;
	enum name_kind k = NAME_NONE;
	int err = new_name(fs, parent, name, &view, &k);

	if (!err)
		err = new_scratch(fs, req, parent, name, S_IFREG | (mode & 07777),
				  k == NAME_NEW_SLOT ? &view : NULL, &ino);
	struct handle *h = err ? NULL : handle_new(ino);
	if (!err && !h)
		err = ENOMEM;
	if (!err) {
		h->scratch = ino;
		pthread_mutex_lock(&fs->scratch.lock);
		scratch_open(&fs->scratch, ino);
		pthread_mutex_unlock(&fs->scratch.lock);
	}
	struct fuse_entry_param e = {0};
	if (!err)
		handles_add(fs, h);
	if (!err && (err = ino_stat(fs, ino, &e.attr)))
		handle_release(fs, h);
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	/* A new slot file is committed once written; left empty (touch, or
	 * tar's placeholder for a link it makes last) it stays a pending
	 * file and the slot stays empty. */
	e.ino = ino;
	fi->fh = (uintptr_t)h;
	scratch_pages(fi);
	if (fuse_reply_create(req, &e, fi))
		handle_release(fs, h);
}

void mhfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		mode_t mode, dev_t rdev)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	uint64_t ino = 0;
	enum name_kind k;
	int err = new_name(fs, parent, name, &view, &k);
	if (!err && k != NAME_SCRATCH)
		err = EPERM; /* a slot is filled by writing it */
	if (!err)
		err = new_scratch(fs, req, parent, name, mode, NULL, &ino);
	if (!err && !S_ISREG(mode)) {
		/* A fifo, socket or device node: the kernel serves its opens. */
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		if (f)
			f->st.st_rdev = rdev;
		pthread_mutex_unlock(&fs->scratch.lock);
	}
	if (err)
		fuse_reply_err(req, err);
	else
		reply_entry(req, fs, ino);
}

/* Truncating a view by path: committed at once, unless a writer has it
 * open: then its buffer is what is truncated, committed at its close. */
static int truncate_view(struct mhfs *fs, fuse_ino_t ino, uint64_t size)
{
	struct node n;
	struct handle h = {0};
	int err = 0;
	struct handle *writer = writer_of(fs, place_of(fs, ino));
	if (writer) {
		pthread_mutex_lock(&writer->lock);
		err = handle_resize(writer, size);
		if (!err)
			writer->dirty = true;
		pthread_mutex_unlock(&writer->lock);
		handle_put(writer);
		return err;
	}
	pthread_rwlock_rdlock(&fs->ar.io);
	if (!node_from_ino(fs, ino, &n))
		err = ENOENT;
	else if (size)
		err = node_contents(fs, &n, &h.data, &h.len);
	pthread_rwlock_unlock(&fs->ar.io);
	h.cap = h.len;
	if (!err)
		err = handle_resize(&h, size);
	if (!err)
		err = commit_write(fs, &n, h.data, h.len);
	free(h.data);
	return err;
}

static int set_scratch_attributes(struct mhfs *fs, fuse_ino_t ino, const struct stat *attr,
				  int to_set)
{
	int err = 0;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, ino);
	if (!f) {
		err = ENOENT;
	} else {
		if (to_set & FUSE_SET_ATTR_SIZE)
			err = scratch_truncate(f, (uint64_t)attr->st_size);
		if (to_set & FUSE_SET_ATTR_MODE)
			f->st.st_mode = (f->st.st_mode & S_IFMT) | (attr->st_mode & 07777);
		if (to_set & FUSE_SET_ATTR_UID)
			f->st.st_uid = attr->st_uid;
		if (to_set & FUSE_SET_ATTR_GID)
			f->st.st_gid = attr->st_gid;
		if (to_set & FUSE_SET_ATTR_MTIME)
			f->st.st_mtim = attr->st_mtim;
		if (to_set & FUSE_SET_ATTR_ATIME)
			f->st.st_atim = attr->st_atim;
		if (to_set & (FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_ATIME_NOW)) {
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			if (to_set & FUSE_SET_ATTR_MTIME_NOW)
				f->st.st_mtim = now;
			if (to_set & FUSE_SET_ATTR_ATIME_NOW)
				f->st.st_atim = now;
		}
		if (!err)
			scratch_changed(f);
	}
	pthread_mutex_unlock(&fs->scratch.lock);
	return err;
}

/* A view's mode and owner are the mount's: setting them to what they are
 * succeeds (cp -p, rsync -a, tar), anything else is EPERM.  Times are
 * kept (times.h).  A size truncates. */
static int set_view_attributes(struct mhfs *fs, fuse_ino_t ino, const struct stat *attr,
			       int to_set, struct handle *h)
{
	const int times = FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME |
			  FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW;
	struct stat st;
	int err = ino_stat(fs, ino, &st);
	if (err)
		return err;
	if (!fs->ar.writable && (to_set & (FUSE_SET_ATTR_SIZE | times |
					   FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID |
					   FUSE_SET_ATTR_GID)))
		return EROFS;
	if (((to_set & FUSE_SET_ATTR_MODE) && (attr->st_mode & 07777) != (st.st_mode & 07777)) ||
	    ((to_set & FUSE_SET_ATTR_UID) && attr->st_uid != st.st_uid) ||
	    ((to_set & FUSE_SET_ATTR_GID) && attr->st_gid != st.st_gid))
		return EPERM;
	if (to_set & FUSE_SET_ATTR_SIZE) {
		if (h && h->writable) {
			pthread_mutex_lock(&h->lock);
			err = handle_resize(h, (uint64_t)attr->st_size);
			h->dirty = h->dirty || !err;
			pthread_mutex_unlock(&h->lock);
		} else if (!(err = inodes_truncate(&fs->inodes, ino, place_of(fs, ino)))) {
			/* (ESTALE: a number readers cache got a new one for this.) */
			err = truncate_view(fs, ino, (uint64_t)attr->st_size);
		}
		if (err)
			return err;
	}
	if (to_set & times) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		struct node n;
		pthread_rwlock_rdlock(&fs->ar.io);
		uint32_t entry = node_from_ino(fs, ino, &n) && (node_class(&n)->flags & VIEW_ITEM)
					 ? n.entry : UINT32_MAX;
		pthread_rwlock_unlock(&fs->ar.io);
		const struct timespec *atime = to_set & FUSE_SET_ATTR_ATIME_NOW ? &now
					       : to_set & FUSE_SET_ATTR_ATIME ? &attr->st_atim : NULL;
		const struct timespec *mtime = to_set & FUSE_SET_ATTR_MTIME_NOW ? &now
					       : to_set & FUSE_SET_ATTR_MTIME ? &attr->st_mtim : NULL;
		err = times_set(&fs->times, place_of(fs, ino), entry, atime, mtime, &st);
	}
	return err;
}

void mhfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		  struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct handle *h = fi ? (struct handle *)(uintptr_t)fi->fh : NULL;
	int err;

	switch (ino_space(ino)) {
	case INO_OWN:
		err = EPERM; /* a kept text is as it was refused */
		break;
	case INO_SCRATCH:
		err = set_scratch_attributes(fs, ino, attr, to_set);
		if (!err && (to_set & FUSE_SET_ATTR_SIZE) && h) {
			pthread_mutex_lock(&h->lock);
			h->dirty = true;
			pthread_mutex_unlock(&h->lock);
		}
		break;
	case INO_VIEW:
		err = set_view_attributes(fs, ino, attr, to_set, h);
		break;
	}
	if (err)
		fuse_reply_err(req, err);
	else
		reply_attr(req, fs, ino);
}

/* Commits what the handle holds and replies.  Then, while the writer's
 * process exits or checks its file, the view the commit changed is
 * looked at as a stat of its path would (node_exists: its folder's
 * model, no more), so that the path's next walk finds it made. */
static void commit_and_reply(fuse_req_t req, struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	uint64_t commits = atomic_load(&fs->ar.commits);
	struct node view = h->view;
	bool a_view = !h->scratch && h->counted;
	int err = handle_commit(fs, h, false);
	fuse_reply_err(req, err);
	if (err || !a_view || atomic_load(&fs->ar.commits) == commits)
		return;
	fs_rdlock(fs);
	node_exists(fs, &view);
	fs_unlock(fs);
}

void mhfs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	/* No handle: a read-only mount, which has nothing to flush ever
	 * (ENOSYS tells the kernel to stop asking). */
	if (!fi->fh) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	commit_and_reply(req, fi);
}

void mhfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		struct fuse_file_info *fi)
{
	(void)ino;
	(void)datasync;
	if (!fi->fh) {
		fuse_reply_err(req, 0);
		return;
	}
	commit_and_reply(req, fi);
}

void mhfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	int err = 0;
	if (strlen(name) > NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	/* A folder's own file (a kept text) is removed from where it is kept. */
	const struct view_class *folder = node_folder_class(fs, parent);
	if (folder && folder->own_unlink && (err = folder->own_unlink(fs, name)) != ENOENT) {
		fuse_reply_err(req, err);
		return;
	}
	err = 0;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_find(&fs->scratch, parent, name);
	bool was_scratch = f != NULL;
	if (f && S_ISDIR(f->st.st_mode))
		err = EISDIR;
	else if (f)
		scratch_remove(&fs->scratch, parent, name);
	pthread_mutex_unlock(&fs->scratch.lock);
	if (was_scratch) {
		fuse_reply_err(req, err);
		return;
	}
	enum name_kind k = classify(fs, parent, name, &view);
	if (k != NAME_VIEW)
		err = k == NAME_READ_ONLY ? EROFS : ENOENT;
	else if (!(node_class(&view)->flags & VIEW_REMOVABLE))
		err = EPERM; /* entries and their members cannot disappear */
	else if (!fs->ar.writable)
		err = EROFS;
	else {
		struct edit e = {.kind = EDIT_EMPTY_SLOT, .view = view};
		err = save_edit(fs, &e);
	}
	fuse_reply_err(req, err);
}

/* Renames a scratch name to another, replacing any (scratch_move). */
static int move_scratch(struct mhfs *fs, fuse_ino_t parent, const char *name,
			fuse_ino_t newparent, const char *newname)
{
	pthread_mutex_lock(&fs->scratch.lock);
	int err = scratch_move(&fs->scratch, parent, name, newparent, newname);
	pthread_mutex_unlock(&fs->scratch.lock);
	return err;
}

/* A view renamed to a scratch name: the scratch file gets its contents
 * (a link, its target) and its times, as the file moved would keep them
 * (an editor's backup renamed back over the view shows what it read:
 * vim and emacs check), and the view stays, so nothing is lost. */
static int copy_view(struct mhfs *fs, fuse_req_t req, const struct node *view,
		     fuse_ino_t newparent, const char *newname)
{
	uint8_t *data = NULL;
	size_t len = 0;
	struct node_target t;
	struct stat shown;
	bool link = false;
	uint64_t ino;
	pthread_rwlock_rdlock(&fs->ar.io);
	int err = node_stat(fs, view, &shown);
	if (!err)
		err = node_resolve(fs, view, &t);
	if (!err && t.link[0]) {
		link = true;
		len = strlen(t.link);
		data = (uint8_t *)strdup(t.link);
		err = data ? 0 : ENOMEM;
	} else if (!err) {
		err = node_contents(fs, view, &data, &len);
	}
	pthread_rwlock_unlock(&fs->ar.io);
	if (!err) {
		times_apply(&fs->times, shown.st_ino, &shown);
		err = new_scratch(fs, req, newparent, newname,
				  link ? S_IFLNK | 0777 : S_IFREG | 0644, NULL, &ino);
	}
	if (!err) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		if (!f) {
			err = ENOENT;
		} else if (!(err = scratch_set(f, data, len))) {
			f->st.st_atim = shown.st_atim;
			f->st.st_mtim = shown.st_mtim;
		}
		pthread_mutex_unlock(&fs->scratch.lock);
	}
	free(data);
	return err;
}

void mhfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		 fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct mhfs *fs = fs_of(req);
	struct node src, dst;
	uint64_t ino = 0;
	int err = flags & RENAME_EXCHANGE ? EINVAL : fs->ar.writable ? 0 : EROFS;
	/* Folders whose files do not move (kept texts: mv copies, then
	 * removes the text). */
	const struct view_class *out_of = node_folder_class(fs, parent);
	const struct view_class *into = node_folder_class(fs, newparent);
	if (!err && out_of && out_of->rename_error)
		err = out_of->rename_error;
	if (!err && into && into->rename_error)
		err = into->rename_error;

	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_find(&fs->scratch, parent, name);
	/* Only a file's bytes (or a link's target) can become a view's. */
	bool has_contents = f && (S_ISREG(f->st.st_mode) || S_ISLNK(f->st.st_mode));
	if (f)
		ino = f->ino;
	pthread_mutex_unlock(&fs->scratch.lock);
	if (!err && (strlen(name) > NAME_MAX || strlen(newname) > NAME_MAX))
		err = ENAMETOOLONG;
	enum name_kind to = err ? NAME_NONE : classify(fs, newparent, newname, &dst), from;
	if (!err && (to == NAME_NONE || to == NAME_RESERVED || to == NAME_READ_ONLY))
		err = name_error(to);
	if (!err && (flags & RENAME_NOREPLACE) && to == NAME_VIEW)
		err = EEXIST;
	if (err) {
		/* reply below */
	} else if (ino) {
		/* sed -i, rsync, editors: a scratch file saved over a view. */
		if (to == NAME_SCRATCH) {
			err = move_scratch(fs, parent, name, newparent, newname);
		} else if (!has_contents) {
			err = EPERM; /* a folder or a fifo is no view's contents */
		} else if (!(err = commit_scratch(fs, ino, &dst))) {
			/* The name moved over the view is gone (the file's
			 * other names stay), and so is a file shadowing it. */
			keep_times(fs, ino, &dst);
			pthread_mutex_lock(&fs->scratch.lock);
			scratch_remove(&fs->scratch, parent, name);
			scratch_remove(&fs->scratch, newparent, newname);
			pthread_mutex_unlock(&fs->scratch.lock);
		}
	} else if ((from = classify(fs, parent, name, &src)) != NAME_VIEW) {
		err = from == NAME_READ_ONLY ? EROFS : ENOENT;
	} else if (to != NAME_SCRATCH) {
		err = EXDEV; /* between views: mv copies, then removes */
	} else {
		err = copy_view(fs, req, &src, newparent, newname);
	}
	fuse_reply_err(req, err);
}

/* Whether the view is a symbolic link to target. */
static bool is_link_to(struct mhfs *fs, const struct node *view, const char *target)
{
	struct node_target t;
	pthread_rwlock_rdlock(&fs->ar.io);
	bool same = !node_resolve(fs, view, &t) && t.link[0] && !strcmp(t.link, target);
	pthread_rwlock_unlock(&fs->ar.io);
	return same;
}

void mhfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		  const char *name)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	uint64_t ino = 0;
	enum name_kind k = NAME_NONE;
	int err = new_name(fs, parent, name, &view, &k);
	/* A slot's .txt and .bin are one slot: linking the second where the
	 * first made the same link already (tar restores both) succeeds. */
	if (err == EEXIST && is_link_to(fs, &view, link))
		err = 0;
	else if (!err && k == NAME_NEW_SLOT && !links_to_earlier(fs, &view, link)) {
		char path[512];
		pthread_rwlock_rdlock(&fs->ar.io);
		node_path(fs, &view, path, sizeof path);
		pthread_rwlock_unlock(&fs->ar.io);
		mlog_printf(&fs->log, "%s: refused: a link goes to an earlier slot (a shared "
			    "clip's file is its first slot's) (fix: copy the clip here, then link "
			    "the later slot to this one: cp %s %s && ln -sf %s %s)", path, link,
			    strrchr(path, '/') + 1, strrchr(path, '/') + 1, link);
		err = EINVAL;
	} else if (!err && k == NAME_NEW_SLOT) {
		/* ln -s slot000.txt slot007.txt: slot 7 plays slot 0's clip. */
		err = share_slot(fs, &view, link);
	} else if (!err) {
		err = new_scratch(fs, req, parent, name, S_IFLNK | 0777, NULL, &ino);
		if (!err) {
			pthread_mutex_lock(&fs->scratch.lock);
			struct scratch *f = scratch_by_ino(&fs->scratch, ino);
			err = f ? scratch_set(f, (const uint8_t *)link, strlen(link)) : ENOENT;
			pthread_mutex_unlock(&fs->scratch.lock);
		}
	}
	if (err)
		fuse_reply_err(req, err);
	else if (ino)
		reply_entry(req, fs, ino);
	else
		reply_view_entry(req, fs, &view, name);
}

/* A hard link: a scratch file's name more (a view's names are the
 * archive's, and a new slot's file is that slot's alone). */
void mhfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	enum name_kind k;
	int err = new_name(fs, newparent, newname, &view, &k);
	if (!err && (k != NAME_SCRATCH || ino_space(ino) != INO_SCRATCH))
		err = EPERM;
	if (!err) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		err = !f || !f->linked ? ENOENT
		      : S_ISDIR(f->st.st_mode) || f->pending || f->kept_text ? EPERM
		      : scratch_link(&fs->scratch, f, newparent, newname);
		pthread_mutex_unlock(&fs->scratch.lock);
	}
	if (err)
		fuse_reply_err(req, err);
	else
		reply_entry(req, fs, ino);
}

/* The archive's folders are its structure: none can be made or removed.
 * A folder made under a scratch name is a scratch folder: a place for a
 * tool's files (a work folder, .git), held as scratch files are. */
void mhfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	uint64_t ino = 0;
	enum name_kind k;
	int err = new_name(fs, parent, name, &view, &k);
	if (!err && k != NAME_SCRATCH)
		err = EPERM; /* a slot's name is a file's */
	if (!err)
		err = new_scratch(fs, req, parent, name, S_IFDIR | (mode & 07777), NULL, &ino);
	if (err)
		fuse_reply_err(req, err);
	else
		reply_entry(req, fs, ino);
}

void mhfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	int err = ENOENT;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_find(&fs->scratch, parent, name);
	if (f)
		err = !S_ISDIR(f->st.st_mode) ? ENOTDIR
		      : scratch_nth(&fs->scratch, f->ino, 0, NULL) ? ENOTEMPTY : 0;
	if (f && !err)
		scratch_unlink(&fs->scratch, f);
	pthread_mutex_unlock(&fs->scratch.lock);
	if (f) {
		fuse_reply_err(req, err);
		return;
	}
	enum name_kind k = classify(fs, parent, name, &view);
	err = k == NAME_READ_ONLY ? EROFS : k != NAME_VIEW ? ENOENT
	      : !(node_class(&view)->flags & VIEW_DIR) ? ENOTDIR
	      : fs->ar.writable ? EPERM : EROFS;
	fuse_reply_err(req, err);
}

/* What user.mhfu.error says of a file: its last refusal, or of a new
 * slot's file not yet committed (pending), why it is not; NULL if none. */
static char *error_of(struct mhfs *fs, fuse_ino_t ino)
{
	uint64_t view = 0;
	if (ino_space(ino) != INO_VIEW) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		if (f && f->pending && f->linked)
			view = f->view;
		pthread_mutex_unlock(&fs->scratch.lock);
		if (!view)
			return NULL;
	}
	char *msg = commit_error_of(fs, place_of(fs, view ? view : ino));
	if (!msg && view)
		msg = strdup("pending: not committed, the slot stays empty until a clip that "
			     "commits is written to this file");
	return msg;
}

void mhfs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct mhfs *fs = fs_of(req);
	char *msg = strcmp(name, ERROR_XATTR) ? NULL : error_of(fs, ino);
	size_t len = msg ? strlen(msg) : 0;
	if (!msg)
		fuse_reply_err(req, ENODATA);
	else if (size == 0)
		fuse_reply_xattr(req, len);
	else if (size < len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, msg, len);
	free(msg);
}

void mhfs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct mhfs *fs = fs_of(req);
	char *msg = error_of(fs, ino);
	size_t len = msg ? sizeof ERROR_XATTR : 0;
	if (size == 0)
		fuse_reply_xattr(req, len);
	else if (size < len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, ERROR_XATTR, len);
	free(msg);
}
