/* FUSE operations that change the tree: writing, creating, truncating,
 * renaming, linking and removing, and the commit points (flush, fsync,
 * release).
 *
 * What a name is decides what happens to it:
 *   - a view (node.h): writes are buffered in the handle and committed at
 *     the commit points (commit.h); a slot file can also be created (fills
 *     the slot), removed (empties it) or made a link to another slot
 *     (shares its clip);
 *   - anything else is a scratch file (scratch.h), held in memory; a
 *     scratch file renamed over a view commits its contents to the view,
 *     and a view renamed to a scratch name is copied, never lost. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "commit.h"
#include "handle.h"

#define ERROR_XATTR "user.mhfu.error"
/* A view's new contents are held in memory until committed: a bound
 * keeps a runaway writer from exhausting it (retail entries are a few
 * MB; the archive's largest, tens). */
#define WRITE_MAX_BYTES (64ull << 20)

/* What a name in a directory is. */
enum name_kind { NAME_SCRATCH, NAME_VIEW, NAME_NEW_SLOT, NAME_NONE };

static enum name_kind classify(struct mhfs *fs, fuse_ino_t parent, const char *name,
			       struct node *view)
{
	struct node dir;
	enum name_kind k = NAME_SCRATCH;
	pthread_rwlock_rdlock(&fs->ar.io);
	if (!(parent & SCRATCH_INO) && !node_from_ino(&fs->ar, parent, &dir))
		k = NAME_NONE;
	else if (!(parent & SCRATCH_INO) && node_lookup(&fs->ar, &dir, name, view))
		k = NAME_VIEW;
	else if (!(parent & SCRATCH_INO) && node_slot_named(&fs->ar, &dir, name, view))
		k = NAME_NEW_SLOT;
	pthread_rwlock_unlock(&fs->ar.io);
	return k;
}

/* A name about to be created: a new slot file or a scratch name; ENOENT
 * or EEXIST otherwise, EROFS on a read-only archive. */
static int new_name(struct mhfs *fs, fuse_ino_t parent, const char *name,
		    struct node *view, enum name_kind *k)
{
	if (!fs->ar.writable)
		return EROFS;
	if (parent == NODE_REJECTED)
		return EACCES; /* only refusals add texts there */
	*k = classify(fs, parent, name, view);
	return *k == NAME_NONE ? ENOENT : *k == NAME_VIEW ? EEXIST : 0;
}

static int commit_write(struct mhfs *fs, const struct node *view, const uint8_t *data,
			size_t len)
{
	struct edit e = {.kind = EDIT_WRITE, .view = *view, .data = data, .len = len};
	return commit_edit(fs, &e);
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

static int share_slot(struct mhfs *fs, const struct node *view, const char *target)
{
	struct edit e = {.kind = EDIT_SHARE_SLOT, .view = *view};
	if (!link_slot(view, target, &e.share_stream, &e.share_slot))
		return EINVAL;
	return commit_edit(fs, &e);
}

/* Commits a scratch file's contents to a view: a link shares its target's
 * clip, anything else is written. */
static int commit_scratch(struct mhfs *fs, uint64_t ino, const struct node *view)
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

/* Unlinks the scratch file of this inode, if it still has its name. */
static void drop_scratch(struct mhfs *fs, uint64_t ino)
{
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, ino);
	if (f && f->linked)
		scratch_unlink(f);
	pthread_mutex_unlock(&fs->scratch.lock);
}

int handle_commit(struct mhfs *fs, struct handle *h, bool release)
{
	if (!h->dirty && !(release && h->emptied))
		return 0;
	h->dirty = h->emptied = false;
	if (!h->scratch)
		return commit_write(fs, &h->view, h->data, h->len);
	/* A new slot file: committed to its slot, then it is the view. */
	struct node view;
	bool pending = false;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, h->scratch);
	if (f && f->pending && f->linked) {
		pending = node_from_ino(&fs->ar, f->view, &view);
	}
	pthread_mutex_unlock(&fs->scratch.lock);
	if (!pending)
		return 0;
	int err = commit_scratch(fs, h->scratch, &view);
	if (!err)
		drop_scratch(fs, h->scratch);
	return err;
}

void mhfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		off_t off, struct fuse_file_info *fi)
{
	(void)ino;
	struct mhfs *fs = fs_of(req);
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	int err = 0;

	if (h->scratch) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, h->scratch);
		err = f ? scratch_write(f, (const uint8_t *)buf, size, (uint64_t)off) : ENOENT;
		pthread_mutex_unlock(&fs->scratch.lock);
	} else if (!h->writable) {
		err = EBADF;
	} else if ((uint64_t)off + size > WRITE_MAX_BYTES) {
		err = EFBIG;
	} else {
		size_t end = (size_t)off + size;
		err = handle_resize(h, end > h->len ? end : h->len);
		if (!err)
			memcpy(h->data + off, buf, size);
	}
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	h->dirty = true;
	h->emptied = false;
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
			f->view = node_ino(&fs->ar, pending);
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
	struct handle *h = err ? NULL : calloc(1, sizeof *h);
	if (!err && !h)
		err = ENOMEM;
	struct fuse_entry_param e = {0};
	if (!err)
		err = ino_stat(fs, ino, &e.attr);
	if (err) {
		free(h);
		fuse_reply_err(req, err);
		return;
	}
	atomic_init(&h->refs, 1);
	h->scratch = ino;
	h->dirty = k == NAME_NEW_SLOT; /* even empty, a new slot file is committed */
	e.ino = ino;
	fi->fh = (uintptr_t)h;
	fi->direct_io = 1;
	if (fuse_reply_create(req, &e, fi))
		free(h);
}

void mhfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		mode_t mode, dev_t rdev)
{
	(void)rdev;
	struct mhfs *fs = fs_of(req);
	struct node view;
	uint64_t ino = 0;
	int err = !S_ISREG(mode) ? EPERM : fs->ar.writable ? 0 : EROFS;
	if (!err && parent == NODE_REJECTED)
		err = EACCES;
	if (!err && classify(fs, parent, name, &view) != NAME_SCRATCH)
		err = EEXIST;
	if (!err)
		err = new_scratch(fs, req, parent, name, mode, NULL, &ino);
	if (err)
		fuse_reply_err(req, err);
	else
		reply_entry(req, fs, ino);
}

/* Truncating a view by path: committed at once. */
static int truncate_view(struct mhfs *fs, fuse_ino_t ino, uint64_t size)
{
	struct node n;
	struct handle h = {0};
	int err = 0;
	pthread_rwlock_rdlock(&fs->ar.io);
	if (!node_from_ino(&fs->ar, ino, &n))
		err = ENOENT;
	else if (size)
		err = view_contents(fs, &n, &h.data, &h.len);
	pthread_rwlock_unlock(&fs->ar.io);
	h.cap = h.len;
	if (!err && size > WRITE_MAX_BYTES)
		err = EFBIG;
	if (!err)
		err = handle_resize(&h, (size_t)size);
	if (!err)
		err = commit_write(fs, &n, h.data, h.len);
	free(h.data);
	return err;
}

void mhfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		  struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct handle *h = fi ? (struct handle *)(uintptr_t)fi->fh : NULL;
	int err = 0;

	if (record_ino(ino)) {
		err = EPERM; /* a kept text is as it was refused */
	} else if (ino & SCRATCH_INO) {
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
		}
		pthread_mutex_unlock(&fs->scratch.lock);
		if (!err && (to_set & FUSE_SET_ATTR_SIZE) && h)
			h->dirty = true;
	} else if (to_set & FUSE_SET_ATTR_SIZE) {
		/* Modes, owners and times of views are the archive's: a
		 * request to set them succeeds and changes nothing, so cp -p
		 * and rsync work. */
		if (!fs->ar.writable)
			err = EROFS;
		else if (h && h->writable) {
			err = (uint64_t)attr->st_size > WRITE_MAX_BYTES
				      ? EFBIG : handle_resize(h, (size_t)attr->st_size);
			h->dirty = !err;
		} else {
			err = truncate_view(fs, ino, (uint64_t)attr->st_size);
		}
	}
	if (err)
		fuse_reply_err(req, err);
	else
		reply_attr(req, fs, ino, h);
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
	fuse_reply_err(req, handle_commit(fs_of(req), (struct handle *)(uintptr_t)fi->fh, false));
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
	fuse_reply_err(req, handle_commit(fs_of(req), (struct handle *)(uintptr_t)fi->fh, false));
}

void mhfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	int err = 0;
	/* A kept text removed from the mount is removed from the record. */
	if (parent == NODE_REJECTED && (err = record_remove(&fs->record, name)) != ENOENT) {
		fuse_reply_err(req, err);
		return;
	}
	err = 0;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_find(&fs->scratch, parent, name);
	if (f)
		scratch_unlink(f);
	pthread_mutex_unlock(&fs->scratch.lock);
	if (f) {
		fuse_reply_err(req, 0);
		return;
	}
	if (classify(fs, parent, name, &view) != NAME_VIEW)
		err = ENOENT;
	else if (view.type != NODE_SLOT_TXT && view.type != NODE_SLOT_BIN)
		err = EPERM; /* entries and their members cannot disappear */
	else if (!fs->ar.writable)
		err = EROFS;
	else {
		struct edit e = {.kind = EDIT_EMPTY_SLOT, .view = view};
		err = commit_edit(fs, &e);
	}
	fuse_reply_err(req, err);
}

/* Renames a scratch file to another scratch name, replacing any. */
static int move_scratch(struct mhfs *fs, uint64_t ino, fuse_ino_t newparent,
			const char *newname)
{
	int err = 0;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_by_ino(&fs->scratch, ino);
	struct scratch *old = scratch_find(&fs->scratch, newparent, newname);
	char *name = strdup(newname);
	if (!f || !name) {
		err = f ? ENOMEM : ENOENT;
		free(name);
	} else {
		if (old && old != f)
			scratch_unlink(old);
		free(f->name);
		f->name = name;
		f->parent = newparent;
		f->pending = false;
	}
	pthread_mutex_unlock(&fs->scratch.lock);
	return err;
}

/* A view renamed to a scratch name: the scratch file gets its contents
 * (a link, its target) and the view stays, so nothing is lost. */
static int copy_view(struct mhfs *fs, fuse_req_t req, const struct node *view,
		     fuse_ino_t newparent, const char *newname)
{
	uint8_t *data = NULL;
	size_t len = 0;
	struct node_target t;
	bool link = false;
	uint64_t ino;
	pthread_rwlock_rdlock(&fs->ar.io);
	int err = node_resolve(&fs->ar, view, &t) ? 0 : ENOENT;
	if (!err && t.link[0]) {
		link = true;
		len = strlen(t.link);
		data = (uint8_t *)strdup(t.link);
		err = data ? 0 : ENOMEM;
	} else if (!err) {
		err = view_contents(fs, view, &data, &len);
	}
	pthread_rwlock_unlock(&fs->ar.io);
	if (!err)
		err = new_scratch(fs, req, newparent, newname,
				  link ? S_IFLNK | 0777 : S_IFREG | 0644, NULL, &ino);
	if (!err) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		err = f ? scratch_set(f, data, len) : ENOENT;
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
	/* Kept texts are not moved: mv copies (then removes the text). */
	if (!err && (parent == NODE_REJECTED || newparent == NODE_REJECTED))
		err = EXDEV;

	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_find(&fs->scratch, parent, name);
	if (f)
		ino = f->ino;
	pthread_mutex_unlock(&fs->scratch.lock);
	enum name_kind to = err ? NAME_NONE : classify(fs, newparent, newname, &dst);
	if (!err && to == NAME_NONE)
		err = ENOENT;
	if (!err && (flags & RENAME_NOREPLACE) && to == NAME_VIEW)
		err = EEXIST;
	if (err) {
		/* reply below */
	} else if (ino) {
		/* sed -i, rsync, editors: a scratch file saved over a view. */
		if (to == NAME_SCRATCH) {
			err = move_scratch(fs, ino, newparent, newname);
		} else if (!(err = commit_scratch(fs, ino, &dst))) {
			drop_scratch(fs, ino);
			pthread_mutex_lock(&fs->scratch.lock);
			struct scratch *shadow = scratch_find(&fs->scratch, newparent, newname);
			if (shadow)
				scratch_unlink(shadow);
			pthread_mutex_unlock(&fs->scratch.lock);
		}
	} else if (classify(fs, parent, name, &src) != NAME_VIEW) {
		err = ENOENT;
	} else if (to != NAME_SCRATCH) {
		err = EXDEV; /* between views: mv copies, then removes */
	} else {
		err = copy_view(fs, req, &src, newparent, newname);
	}
	fuse_reply_err(req, err);
}

void mhfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		  const char *name)
{
	struct mhfs *fs = fs_of(req);
	struct node view;
	uint64_t ino = 0;
	enum name_kind k = NAME_NONE;
	int err = new_name(fs, parent, name, &view, &k);
	if (!err && k == NAME_NEW_SLOT) {
		/* ln -s slot000.txt slot007.txt: slot 7 plays slot 0's clip. */
		if (!(err = share_slot(fs, &view, link)))
			ino = node_ino(&fs->ar, &view);
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
	else
		reply_entry(req, fs, ino);
}

void mhfs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	char *msg = strcmp(name, ERROR_XATTR) ? NULL : commit_error_of(fs_of(req), ino);
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
	char *msg = commit_error_of(fs_of(req), ino);
	size_t len = msg ? sizeof ERROR_XATTR : 0;
	if (size == 0)
		fuse_reply_xattr(req, len);
	else if (size < len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, ERROR_XATTR, len);
	free(msg);
}
