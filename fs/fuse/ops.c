/* SPDX-License-Identifier: MIT */
/* FUSE low-level operations: lookups, attributes, reading, listings.
 * The write side is in write.c.
 *
 * Each operation computes into locals and replies exactly once, at its
 * end; helpers return 0 or an errno.  Operations that look at the archive
 * hold its `io` lock shared (archive.h) and never across a commit.
 *
 * Inode numbers of views are computed from their places (node.h) and
 * move on when a commit changes a view the kernel holds (inodes.h); the
 * kernel's references are counted in fs->inodes (+1 per entry replied,
 * -n per forget).  Scratch files have inodes of their own (scratch.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "buffer.h"
#include "commit.h"
#include "handle.h"
#include "loop.h"
#include "ops.h"
#include "reply.h"
#include "save.h"

/* Listing positions past every view's: in .mhfu/rejected/ the kept texts,
 * then in every folder its scratch files. */
#define POS_RECORD (1ull << 40)
#define POS_SCRATCH (1ull << 41)

static void mhfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mhfs *fs = fs_of(req);
	struct node dir, child;
	uint64_t ino = 0;
	struct stat kept;

	if (strlen(name) > NAME_MAX) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	const struct view_class *folder = node_folder_class(fs, parent);
	if (folder && folder->own_lookup && !folder->own_lookup(fs, name, &kept))
		ino = kept.st_ino;
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = ino ? NULL : scratch_find(&fs->scratch, parent, name);
	if (f)
		ino = f->ino;
	pthread_mutex_unlock(&fs->scratch.lock);
	bool view = false, gone = false;
	if (!ino && node_from_ino(fs, parent, &dir)) {
		bool locked = !node_unlocked_lookup(fs, &dir, name);
		if (locked)
			fs_rdlock(fs);
		int err = node_lookup(fs, &dir, name, &child);
		view = !err;
		/* The folder is gone (its item of another kind now, or none):
		 * the kernel is to look its name up again (LOOKUP_REVAL). */
		gone = err == ENOENT && !node_exists(fs, &dir);
		if (locked)
			fs_unlock(fs);
	}
	if (view) {
		reply_view_entry(req, fs, &child, name);
	} else if (ino) {
		reply_entry(req, fs, ino);
	} else if (gone) {
		fuse_reply_err(req, ESTALE);
	} else {
		/* Negative entries are not cached: a name can appear with
		 * any write (a slot filled, a scratch file created). */
		struct fuse_entry_param e = {0};
		fuse_reply_entry(req, &e);
	}
}

static void mhfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	inodes_forget(&fs_of(req)->inodes, ino, nlookup);
	fuse_reply_none(req);
}

static void mhfs_forget_multi(fuse_req_t req, size_t count,
			      struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		inodes_forget(&fs_of(req)->inodes, forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void mhfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	reply_attr(req, fs_of(req), ino);
}

/* A read-only open in a writable mount (a read-only mount declines
 * opens).  A view's contents are fixed per inode number (inodes.h), so
 * the kernel's page cache serves it, keeping its pages from open to open;
 * what it reads from the handle is the open's own: a text as it was at
 * open (the kept text, shared, or a copy), or the raw bytes of the
 * entry's generation at open (old_bytes once a commit replaced them).
 * A writer's number, and the mount's live files, are
 * read through instead (direct_io): their pages and sizes are a writer's
 * or change as the mount runs.  Nothing to commit at close: no flush
 * either. */
static void serve_read(struct fuse_file_info *fi, bool cache)
{
	fi->direct_io = !cache;
	fi->keep_cache = cache;
	fi->noflush = 1;
}

static void read_through(struct fuse_file_info *fi)
{
	serve_read(fi, false);
}

/* Counts the open in fs->inodes, which says whether a read may be cached
 * (*cache), or refuses it: ESTALE (invariant 3 of inodes.h).  The mount's
 * live files are never cached. */
static int count_open(struct mhfs *fs, struct handle *h, bool write, bool *cache)
{
	*cache = false;
	if (node_class(&h->view)->flags & VIEW_LIVE)
		return 0;
	bool through = !write && writer_open(fs, h->place);
	int err = inodes_open(&fs->inodes, h->ino, h->place, write, through, cache);
	h->counted = !err;
	return err;
}

static int open_view(struct mhfs *fs, fuse_ino_t ino, struct fuse_file_info *fi,
		     struct handle *h)
{
	struct node_target t;
	struct node *n = &h->view;
	bool write = (fi->flags & O_ACCMODE) != O_RDONLY, cache;
	int err;
	if (!node_from_ino(fs, ino, n))
		return ENOENT;
	h->place = node_place(fs, n);
	if (node_is_dir(n))
		return EISDIR;
	if (write && !(node_class(n)->flags & VIEW_WRITABLE))
		return EACCES;
	/* Through a name the kernel still maps to a number a commit retired:
	 * the name may be gone. */
	if ((err = stale_view(fs, ino, n, 0)))
		return err;
	if (write && (!fs->ar.writable || n->original))
		return EROFS;
	if (n->type == NODE_FILE && !write) {
		if ((err = node_resolve(fs, n, &t)))
			return err;
		h->entry = n->entry;
		h->offset = t.offset;
		h->size = t.size;
		h->generation = atomic_load(&node_archive(fs, n)->cache.entries[n->entry].generation);
		if ((err = count_open(fs, h, write, &cache)))
			return err;
		serve_read(fi, cache);
		return 0;
	}
	/* Text views, and every view opened for writing: a buffer. */
	h->buffered = true;
	h->writable = write;
	if (write && (fi->flags & O_TRUNC)) {
		if ((err = node_resolve(fs, n, &t)))
			return err;
		if (t.link[0])
			return ENOENT;
		h->emptied = true;
		return count_open(fs, h, write, &cache);
	}
	/* A reader shares a kept text: it never changes (a commit keeps a
	 * new one), and lives while any file has it open. */
	err = node_contents_to_read(fs, n, &h->data, &h->len, write ? NULL : &h->shared);
	h->cap = h->len;
	if (!err)
		err = count_open(fs, h, write, &cache);
	if (!err && !write)
		serve_read(fi, cache);
	return err;
}

static void mhfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	/* A read-only mount has nothing to do at open or close.  Declining
	 * opens makes the kernel open files by itself, with no open, flush
	 * or release requests, keeping their pages cached: reading a file
	 * costs its reads only (read_unopened serves them). */
	if (!fs->ar.writable) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	struct handle *h = handle_new(ino);
	int err = h ? 0 : ENOMEM;

	enum ino_space space = ino_space(ino);
	if (!err && space == INO_OWN) {
		/* A folder's own file (a kept text): read-only, read from a
		 * copy taken now. */
		struct stat st;
		if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
			err = EACCES;
		else
			err = own_file_get(fs, ino, &st, &h->data, &h->len);
		h->buffered = true;
		read_through(fi);
	} else if (!err && space == INO_SCRATCH) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		if (!f)
			err = ENOENT;
		else if (fi->flags & O_TRUNC)
			err = scratch_truncate(f, 0);
		if (!err)
			scratch_open(&fs->scratch, ino);
		pthread_mutex_unlock(&fs->scratch.lock);
		h->scratch = ino;
		scratch_pages(fi);
	} else if (!err) {
		struct node n;
		bool locked = !node_from_ino(fs, ino, &n) || !node_unlocked(&n);
		if (locked)
			fs_rdlock(fs);
		err = open_view(fs, ino, fi, h);
		if (locked)
			fs_unlock(fs);
	}
	if (err) {
		if (h)
			handle_put(h);
		fuse_reply_err(req, err);
		return;
	}
	handles_add(fs, h);
	fi->fh = (uintptr_t)h;
	if (fuse_reply_open(req, fi))
		handle_release(fs, h);
}

/* Replies size bytes at off of a raw view: h names its entry and span. */
static void reply_raw(fuse_req_t req, struct mhfs *fs, const struct handle *h,
		      size_t size, off_t off)
{
	if ((uint64_t)off >= h->size) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > h->size - (uint64_t)off)
		size = (size_t)(h->size - (uint64_t)off);
	uint8_t *buf = read_buffer(fs, size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* Decrypting it takes a while: the kernel's next read-ahead request
	 * goes to another thread meanwhile. */
	if (size >= LOOP_HANDOVER_BYTES)
		loop_hand_over();
	fs_rdlock(fs);
	struct archive *ar = node_archive(fs, &h->view);
	uint64_t at = h->offset + (uint64_t)off;
	ssize_t n = -ESTALE;
	if (atomic_load(&ar->cache.entries[h->entry].generation) == h->generation) {
		size_t got;
		int err = archive_read(ar, h->entry, at, buf, size, &got);
		n = err ? -err : (ssize_t)got;
	} else if (h->old && at <= h->old->len) {
		/* A commit replaced the bytes this file opened: it kept them. */
		n = (ssize_t)(size < h->old->len - at ? size : h->old->len - at);
		memcpy(buf, h->old->bytes + at, (size_t)n);
	}
	fs_unlock(fs);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, (const char *)buf, (size_t)n);
}

/* reply_raw, then, for a read of a root entry from its start (a page
 * cache miss, or a file read through), the entries after it may be
 * stored ahead of the reader (prefetch.h).  What to store is taken
 * first: once replied, the file may be closed and h gone. */
static void reply_raw_ahead(fuse_req_t req, struct mhfs *fs, const struct handle *h,
			    size_t size, off_t off)
{
	const struct node *n = &h->view;
	bool ahead = n->type == NODE_FILE && n->depth == 0 && !n->original && off == 0;
	uint32_t entry = n->entry;
	reply_raw(req, fs, h, size, off);
	if (ahead)
		prefetch_after_miss(fs, entry);
}

/* Replies a slice of a buffer. */
static void reply_slice(fuse_req_t req, const uint8_t *data, size_t len, size_t size,
			off_t off)
{
	size_t from = (uint64_t)off < len ? (size_t)off : len;
	size_t n = len - from < size ? len - from : size;
	fuse_reply_buf(req, n ? (const char *)data + from : NULL, n);
}

/* A read in a read-only mount, which declines opens (mhfs_open): the
 * request names the inode only.  Texts are replied from where they are
 * kept (nothing changes them in a read-only mount); info and log are
 * printed afresh. */
static void read_unopened(fuse_req_t req, struct mhfs *fs, fuse_ino_t ino, size_t size,
			  off_t off)
{
	struct handle h = {0};
	struct node_target t;
	uint8_t *data = NULL;
	size_t len = 0;
	bool raw = false;
	int err = 0;
	if (ino_space(ino) == INO_OWN) {
		struct stat st;
		if ((err = own_file_get(fs, ino, &st, &data, &len)))
			fuse_reply_err(req, err);
		else
			reply_slice(req, data, len, size, off);
		free(data);
		return;
	}
	fs_rdlock(fs);
	if (!node_from_ino(fs, ino, &h.view) || node_is_dir(&h.view)) {
		err = ENOENT;
	} else if (node_class(&h.view)->contents) {
		err = node_contents(fs, &h.view, &data, &len);
	} else if ((err = node_resolve(fs, &h.view, &t)) || t.link[0]) {
		err = err ? err : ENOENT;
	} else if (t.text) {
		reply_slice(req, (const uint8_t *)t.text, t.text_len, size, off);
	} else {
		h.entry = h.view.entry;
		h.offset = t.offset;
		h.size = t.size;
		h.generation = atomic_load(&node_archive(fs, &h.view)->cache.entries[h.entry].generation);
		raw = true; /* replied below, the lock released */
	}
	fs_unlock(fs);
	if (err) {
		fuse_reply_err(req, err);
	} else if (data) {
		reply_slice(req, data, len, size, off);
		free(data);
	} else if (raw) {
		reply_raw_ahead(req, fs, &h, size, off);
	}
}

static void mhfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;

	if (!(ino & SCRATCH_INO) && !(h && (node_class(&h->view)->flags & VIEW_LIVE)))
		atomic_fetch_add(&fs->view_reads, 1);
	if (!h) {
		read_unopened(req, fs, ino, size, off);
	} else if (h->scratch) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, h->scratch);
		reply_slice(req, f ? f->data : NULL, f ? (size_t)f->st.st_size : 0, size, off);
		pthread_mutex_unlock(&fs->scratch.lock);
	} else if (h->buffered) {
		atomic_fetch_add(&h->refs, 1);
		pthread_mutex_lock(&h->lock);
		reply_slice(req, h->data, h->len, size, off);
		pthread_mutex_unlock(&h->lock);
		handle_put(h);
	} else {
		reply_raw_ahead(req, fs, h, size, off);
	}
}

/* The last file of a stale number closed (a writer's, whose commit
 * retired it): the kernel still maps the view's name to it, so it is made
 * the view's current number again, its pages dropped first, if the view
 * is there still under that name (inodes.h, 7). */
static void revive(struct mhfs *fs, fuse_ino_t ino, const struct node *view)
{
	uint32_t ticket;
	if (!inodes_revivable(&fs->inodes, ino, &ticket))
		return;
	kernel_forget_pages(fs, ino);
	struct stat now;
	fs_rdlock(fs);
	if (node_exists(fs, view) && !stale_view(fs, ino, view, 0) && !node_stat(fs, view, &now)) {
		times_apply(&fs->times, now.st_ino, &now); /* as ino_stat shows it */
		inodes_revive(&fs->inodes, ino, ticket, &now);
	}
	fs_unlock(fs);
}

static void mhfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	bool counted = h->counted;
	struct node view = h->view;
	/* Errors here reach nobody; flush reported them already. */
	handle_commit(fs, h, true);
	handle_release(fs, h);
	fuse_reply_err(req, 0);
	if (counted)
		revive(fs, ino, &view);
}

static void mhfs_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct mhfs *fs = fs_of(req);
	char target[4096] = "";
	int err = 0;
	if (ino & SCRATCH_INO) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		if (!f || !S_ISLNK(f->st.st_mode))
			err = EINVAL;
		else
			snprintf(target, sizeof target, "%.*s", (int)f->st.st_size,
				 (const char *)f->data);
		pthread_mutex_unlock(&fs->scratch.lock);
	} else {
		struct node n;
		struct node_target t;
		fs_rdlock(fs);
		if (!node_from_ino(fs, ino, &n) || node_resolve(fs, &n, &t))
			err = EINVAL;
		else if (!t.link[0])
			/* A stale link's slot holds a clip of its own now: the
			 * kernel is to look the name up again. */
			err = stale_view(fs, ino, &n, S_IFREG) ? ESTALE : EINVAL;
		else
			snprintf(target, sizeof target, "%s", t.link);
		fs_unlock(fs);
	}
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_readlink(req, target);
}

static void mhfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct node n;
	struct stat st;
	int err = ENOENT;
	if (ino & SCRATCH_INO) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		err = !f ? ENOENT : S_ISDIR(f->st.st_mode) ? 0 : ENOTDIR;
		pthread_mutex_unlock(&fs->scratch.lock);
	} else {
		fs_rdlock(fs);
		if (node_from_ino(fs, ino, &n))
			err = node_is_dir(&n) ? node_stat(fs, &n, &st) : ENOTDIR;
		fs_unlock(fs);
	}
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	fuse_reply_open(req, fi);
}

/* Adds one listing entry; in a readdirplus one, inode (node id) ino (a
 * view's counted by the caller; 0: none, as for "." and ".."); false
 * when the reply is full. */
static bool add_entry(fuse_req_t req, struct mhfs *fs, char *buf, size_t size,
		      size_t *used, const char *name, const struct stat *st, uint64_t ino,
		      uint64_t next, bool plus)
{
	size_t n;
	if (plus) {
		struct fuse_entry_param e = {.attr = *st, .ino = ino};
		if (ino) {
			e.attr_timeout = attr_timeout(fs, ino);
			e.entry_timeout = entry_timeout(fs, ino);
		}
		n = fuse_add_direntry_plus(req, buf + *used, size - *used, name, &e, (off_t)next);
	} else {
		n = fuse_add_direntry(req, buf + *used, size - *used, name, st, (off_t)next);
	}
	if (n > size - *used)
		return false;
	*used += n;
	return true;
}

/* Fills one readdir reply from listing position `off`: the views, then
 * the directory's scratch files. */
static void list_dir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     bool plus)
{
	struct mhfs *fs = fs_of(req);
	struct node dir, child;
	struct stat st;
	char name[256];
	char *buf = malloc(size);
	size_t used = 0;
	uint64_t pos = (uint64_t)off;
	/* The lookups this reply counts: given back if it cannot be sent. */
	uint64_t *sent = NULL;
	size_t nsent = 0, sent_cap = 0;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* A scratch folder lists "." and "..", then its files. */
	bool scratch_dir = ino & SCRATCH_INO;
	bool full = false;
	if (scratch_dir) {
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *d = scratch_by_ino(&fs->scratch, ino);
		uint64_t up = d ? d->parent : ino;
		pthread_mutex_unlock(&fs->scratch.lock);
		memset(&st, 0, sizeof st);
		st.st_mode = S_IFDIR;
		for (; !full && pos < 2; pos += !full) {
			st.st_ino = pos ? up : ino; /* (a listing skips number 0) */
			full = !add_entry(req, fs, buf, size, &used, pos ? ".." : ".", &st, 0,
					  pos ? POS_SCRATCH : 1, plus);
		}
	}
	if (scratch_dir && !full && pos < POS_SCRATCH)
		pos = POS_SCRATCH;
	fs_rdlock(fs);
	full = full || (!scratch_dir && !node_from_ino(fs, ino, &dir));
	while (!full && pos < POS_SCRATCH &&
	       node_child_at(fs, &dir, &pos, &child, name, sizeof name)) {
		bool dot = name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
		/* A view sized by making it is listed by name, number and type:
		 * ino 0 tells the kernel readdirplus gives no attributes for it
		 * (no lookup counted), so `ls` and a glob make none. */
		bool sized = node_class(&child)->flags & VIEW_SIZED_BY_MAKING;
		/* An entry of readdirplus counts a lookup, taken with its number
		 * (inodes_pin), given back if it is not sent. */
		uint64_t counted = plus && !dot && !sized ? inodes_pin(&fs->inodes, node_place(fs, &child),
							      name_hash(name)) : 0;
		uint64_t child_ino = counted ? counted : node_ino(fs, &child);
		bool listed = false;
		uint64_t *room = counted ? array_reserve(sent, &sent_cap, nsent + 1, sizeof *sent, 64)
					 : NULL;
		if (room)
			sent = room;
		if (counted && !room) {
			full = true; /* out of memory: this reply ends here */
		} else if (sized && !node_list_stat(fs, &child, &st)) {
			full = !add_entry(req, fs, buf, size, &used, name, &st, 0, pos + 1, plus);
		} else if (!sized && !node_stat(fs, &child, &st)) {
			live_attributes(fs, &st, child_ino);
			if (counted)
				inodes_told(&fs->inodes, counted, &st);
			full = !add_entry(req, fs, buf, size, &used, name, &st, counted, pos + 1, plus);
			listed = !full;
		}
		if (counted && listed)
			sent[nsent++] = counted;
		else if (counted)
			inodes_forget(&fs->inodes, counted, 1);
		if (!full)
			pos++;
	}
	fs_unlock(fs);
	if (!full && pos < POS_RECORD)
		pos = POS_RECORD;
	struct record_text *kept;
	size_t nkept;
	const struct view_class *folder = node_folder_class(fs, ino);
	if (!full && pos < POS_SCRATCH && folder && folder->own_list &&
	    !folder->own_list(fs, &kept, &nkept)) {
		for (; !full && pos - POS_RECORD < nkept; pos++) {
			const struct record_text *k = &kept[pos - POS_RECORD];
			st = k->st;
			full = !add_entry(req, fs, buf, size, &used, k->name, &st, st.st_ino,
					  pos + 1, plus);
			if (full)
				break;
		}
		free(kept);
	}
	if (!full && pos < POS_SCRATCH)
		pos = POS_SCRATCH;
	while (!full) {
		pthread_mutex_lock(&fs->scratch.lock);
		const char *its_name;
		struct scratch *f = scratch_nth(&fs->scratch, ino, pos - POS_SCRATCH, &its_name);
		if (f) {
			scratch_stat(&fs->scratch, f, &st);
			snprintf(name, sizeof name, "%s", its_name);
		}
		pthread_mutex_unlock(&fs->scratch.lock);
		if (!f || !add_entry(req, fs, buf, size, &used, name, &st, st.st_ino, pos + 1, plus))
			break;
		pos++;
	}
	/* A reply the kernel did not take (the request was interrupted)
	 * counted no lookup. */
	if (fuse_reply_buf(req, buf, used))
		for (size_t i = 0; i < nsent; i++)
			inodes_forget(&fs->inodes, sent[i], 1);
	free(sent);
	free(buf);
}

static void mhfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	(void)fi;
	list_dir(req, ino, size, off, false);
}

static void mhfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			     off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	list_dir(req, ino, size, off, true);
}

/* Blocks of frsize bytes as DATABIN_BLOCK-byte blocks. */
static uint64_t in_blocks(uint64_t blocks, uint64_t frsize)
{
	return frsize >= DATABIN_BLOCK ? blocks * (frsize / DATABIN_BLOCK)
				       : blocks / (DATABIN_BLOCK / (frsize ? frsize : 1));
}

/* The archive's blocks are used; the room to write is the backing
 * filesystem's (cp, rsync and editors check it before writing), none in
 * a read-only mount. */
static void mhfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	struct mhfs *fs = fs_of(req);
	struct statvfs backing;
	pthread_rwlock_rdlock(&fs->ar.io); /* a growth commit replaces the file */
	uint64_t used = (fs->ar.size + DATABIN_BLOCK - 1) / DATABIN_BLOCK;
	bool known = fs->ar.writable && !fstatvfs(fs->ar.fd, &backing);
	pthread_rwlock_unlock(&fs->ar.io);
	if (!known)
		memset(&backing, 0, sizeof backing);
	struct statvfs sv = {
		.f_bsize = DATABIN_BLOCK,
		.f_frsize = DATABIN_BLOCK,
		.f_bfree = in_blocks(backing.f_bfree, backing.f_frsize),
		.f_bavail = in_blocks(backing.f_bavail, backing.f_frsize),
		.f_ffree = backing.f_ffree,
		.f_favail = backing.f_favail,
		.f_namemax = 255,
	};
	sv.f_blocks = used + sv.f_bfree;
	sv.f_files = fs->ar.count + sv.f_ffree;
	fuse_reply_statfs(req, &sv);
}

static void mhfs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* Requests of up to 1 MiB (the kernel's limit is 256 pages): a
	 * model PAC or a whole clip travels in one round trip, and the
	 * kernel reads ahead that far. */
	conn->max_write = MAX_REQUEST;
	conn->max_readahead = MAX_REQUEST;
	/* Directory listings carry attributes so `ls -l` and `find` need no
	 * lookups. */
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	conn->want &= ~(unsigned)FUSE_CAP_READDIRPLUS_AUTO;
	/* A number's contents never change (inodes.h): a newer mtime (its
	 * entry's, at a commit that left this view as it was) is no reason
	 * to drop its pages.  (Links' targets are not cached: a name the
	 * kernel keeps for a stale link reads its target anew.) */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
}

const struct fuse_lowlevel_ops mhfs_ops = {
	.init = mhfs_init,
	.lookup = mhfs_lookup,
	.forget = mhfs_forget,
	.forget_multi = mhfs_forget_multi,
	.getattr = mhfs_getattr,
	.setattr = mhfs_setattr,
	.readlink = mhfs_readlink,
	.mknod = mhfs_mknod,
	.unlink = mhfs_unlink,
	.mkdir = mhfs_mkdir,
	.rmdir = mhfs_rmdir,
	.symlink = mhfs_symlink,
	.link = mhfs_link,
	.rename = mhfs_rename,
	.open = mhfs_open,
	.read = mhfs_read,
	.write = mhfs_write,
	.flush = mhfs_flush,
	.release = mhfs_release,
	.fsync = mhfs_fsync,
	.opendir = mhfs_opendir,
	.readdir = mhfs_readdir,
	.readdirplus = mhfs_readdirplus,
	.statfs = mhfs_statfs,
	.getxattr = mhfs_getxattr,
	.listxattr = mhfs_listxattr,
	.create = mhfs_create,
};

void fusefs_forget(void *session, uint64_t ino, bool pages)
{
	fuse_lowlevel_notify_inval_inode(session, ino, pages ? 0 : -1, 0);
}
