/* SPDX-License-Identifier: MIT */
/* Attributes and replies shared by the FUSE operations (ops.c, write.c):
 * the mount of a request, the archive's read lock, a node's attributes
 * and the replies that carry them, each worker's read buffer. */
#include "reply.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "handle.h"

struct mhfs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

void fs_rdlock(struct mhfs *fs)
{
	pthread_rwlock_rdlock(&fs->ar.io);
}

/* Every read-side operation ends here, holding nothing: the point to
 * keep the decoded caches within budget. */
void fs_unlock(struct mhfs *fs)
{
	pthread_rwlock_unlock(&fs->ar.io);
	archive_trim(&fs->ar);
}

/* The attributes of a node; for a listing (`listing`), a view sized by
 * making it (VIEW_SIZED_BY_MAKING) gets its type, not its size. */
static int stat_node(struct mhfs *fs, const struct node *n, struct stat *st, bool listing)
{
	struct node_target t;
	const struct view_class *c = node_class(n);
	mode_t writable = fs->ar.writable && !n->original && !(c->flags & VIEW_READ_ONLY) ? 0200
													: 0;
	int err;
	memset(st, 0, sizeof *st);
	st->st_ino = node_place(fs, n); /* its node id may be newer (inodes.h) */
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	/* An entry's views change at its commits; the mount's own nodes
	 * with the archive, but those made without its lock (a commit may
	 * be changing its time) are of now. */
	if (node_unlocked(n))
		clock_gettime(CLOCK_REALTIME, &st->st_mtim);
	else
		st->st_mtim = c->flags & VIEW_ITEM ? node_archive(fs, n)->cache.entries[n->entry].mtime
						   : fs->ar.mtime;
	st->st_atim = st->st_ctim = st->st_mtim;
	st->st_blksize = 4096;
	st->st_nlink = 1;

	if (c->flags & VIEW_DIR) {
		if (!node_exists(fs, n))
			return ENOENT;
		st->st_mode = S_IFDIR | 0555 | writable;
		st->st_nlink = 2;
		return 0;
	}
	listing = listing && (c->flags & VIEW_SIZED_BY_MAKING);
	if (c->contents && listing) {
		st->st_mode = S_IFREG | 0444 | (c->flags & VIEW_WRITABLE ? writable : 0);
	} else if (c->contents) {
		/* Made afresh: its size is its length now. */
		uint8_t *text;
		size_t len;
		if ((err = c->contents(fs, n, &text, &len)))
			return err;
		free(text);
		st->st_mode = S_IFREG | 0444 | (c->flags & VIEW_WRITABLE ? writable : 0);
		st->st_size = (off_t)len;
		if (c->flags & VIEW_LIVE)
			clock_gettime(CLOCK_REALTIME, &st->st_mtim);
	} else if ((err = listing ? node_resolve_type(fs, n, &t) : node_resolve(fs, n, &t))) {
		return err;
	} else if (t.link[0]) {
		st->st_mode = S_IFLNK | 0777;
		st->st_size = (off_t)strlen(t.link);
	} else {
		st->st_mode = S_IFREG | 0444 | (c->flags & VIEW_WRITABLE ? writable : 0);
		st->st_size = (off_t)(t.text ? t.text_len : t.size);
	}
	st->st_blocks = (st->st_size + 511) / 512;
	return 0;
}

int node_stat(struct mhfs *fs, const struct node *n, struct stat *st)
{
	return stat_node(fs, n, st, false);
}

int node_list_stat(struct mhfs *fs, const struct node *n, struct stat *st)
{
	return stat_node(fs, n, st, true);
}

/* What a view's attributes are while the mount runs: the size of a
 * writer that has it open, the times set on it. */
void live_attributes(struct mhfs *fs, struct stat *st, uint64_t ino)
{
	uint64_t len;
	/* Not under a number whose pages readers cache (inodes.h, 4). */
	if (writer_len(fs, st->st_ino, &len) && !inodes_cached(&fs->inodes, ino)) {
		st->st_size = (off_t)len;
		st->st_blocks = (st->st_size + 511) / 512;
	}
	times_apply(&fs->times, st->st_ino, st);
}

uint64_t place_of(struct mhfs *fs, fuse_ino_t ino)
{
	struct node n;
	return ino_space(ino) == INO_VIEW && node_from_ino(fs, ino, &n) ? node_place(fs, &n) : ino;
}

double attr_timeout(struct mhfs *fs, fuse_ino_t ino)
{
	/* Scratch files change with every write; info and log as the mount
	 * runs (and a read-only mount's kernel caches their pages: a fresh
	 * size and mtime at each stat drop the stale ones); a stale number's
	 * answer changes when its last file closes, or its view's next
	 * commit (inodes.h, 4). */
	struct node n;
	uint32_t name;
	mode_t mode;
	if ((ino & SCRATCH_INO) ||
	    (node_from_ino(fs, ino, &n) && (node_class(&n)->flags & VIEW_LIVE)) ||
	    inodes_stale(&fs->inodes, ino, &name, &mode))
		return 0;
	return fs->timeout;
}

double entry_timeout(const struct mhfs *fs, fuse_ino_t ino)
{
	return ino & SCRATCH_INO ? 0 : fs->entry_timeout;
}

uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h ? h : 1;
}

int stale_view(struct mhfs *fs, fuse_ino_t ino, const struct node *n, mode_t now)
{
	uint32_t told_name;
	mode_t told_mode;
	char name[256];
	if (!inodes_stale(&fs->inodes, ino, &told_name, &told_mode))
		return 0;
	node_name(fs, n, name, sizeof name);
	if (told_name && told_name != name_hash(name))
		return ENOENT;
	return now && (now & S_IFMT) != (told_mode & S_IFMT) ? ESTALE : 0;
}

/* ino's attributes, and whether they are a stale number's told answer
 * (*told), from one state. */
static int ino_answer(struct mhfs *fs, fuse_ino_t ino, struct stat *st, bool *was_told)
{
	int err = 0;
	*was_told = false;
	switch (ino_space(ino)) {
	case INO_OWN:
		return own_file_get(fs, ino, st, NULL, NULL);
	case INO_SCRATCH:
		pthread_mutex_lock(&fs->scratch.lock);
		struct scratch *f = scratch_by_ino(&fs->scratch, ino);
		if (f)
			scratch_stat(&fs->scratch, f, st);
		else
			err = ENOENT;
		pthread_mutex_unlock(&fs->scratch.lock);
		return err;
	case INO_VIEW:
		break;
	}
	struct node n;
	if (!node_from_ino(fs, ino, &n))
		return ENOENT;
	/* How ino answers and what its place's attributes are come from one
	 * state: a commit between them could retire a number whose readers'
	 * pages are its old contents, and the new size told for it would cut
	 * those pages (inodes.h, 4). */
	bool locked = !node_unlocked(&n);
	if (locked)
		fs_rdlock(fs);
	/* A stale number's pages may be cached: its size stays. */
	bool told = !node_is_dir(&n) && !(node_class(&n)->flags & VIEW_LIVE) &&
		    inodes_answer(&fs->inodes, ino, st) == ANSWER_TOLD;
	if (told) {
		st->st_uid = fs->uid;
		st->st_gid = fs->gid;
	} else if (!(err = node_stat(fs, &n, st)) && !node_is_dir(&n)) {
		err = stale_view(fs, ino, &n, st->st_mode);
	}
	if (locked)
		fs_unlock(fs);
	*was_told = told;
	if (told)
		return 0;
	if (!err)
		live_attributes(fs, st, ino);
	/* A folder gone (its item of another kind now, or none): the kernel
	 * is to look its name up again (LOOKUP_REVAL), not keep it as gone. */
	return err == ENOENT && node_is_dir(&n) ? ESTALE : err;
}

int ino_stat(struct mhfs *fs, fuse_ino_t ino, struct stat *st)
{
	bool told;
	return ino_answer(fs, ino, st, &told);
}

/* How long the kernel may keep an answer: a stale number's told answer
 * for no time, though the number be revived (inodes.h, 7) before the
 * reply: its told size would be kept as the current one's, and the
 * current contents' pages cut to it. */
static double answer_timeout(struct mhfs *fs, fuse_ino_t ino, bool told)
{
	return told ? 0 : attr_timeout(fs, ino);
}

/* Replies an entry for ino (a view's counted by the caller). */
static void reply_ino_entry(fuse_req_t req, struct mhfs *fs, fuse_ino_t ino, bool counted)
{
	struct fuse_entry_param e = {0};
	bool told;
	int err = ino_answer(fs, ino, &e.attr, &told);
	if (err) {
		if (counted)
			inodes_forget(&fs->inodes, ino, 1);
		fuse_reply_err(req, err);
		return;
	}
	if (counted)
		inodes_told(&fs->inodes, ino, &e.attr);
	e.ino = ino;
	e.attr_timeout = answer_timeout(fs, ino, told);
	e.entry_timeout = entry_timeout(fs, ino);
	if (fuse_reply_entry(req, &e) && counted)
		inodes_forget(&fs->inodes, ino, 1);
}

void reply_entry(fuse_req_t req, struct mhfs *fs, fuse_ino_t ino)
{
	reply_ino_entry(req, fs, ino, false);
}

void reply_view_entry(fuse_req_t req, struct mhfs *fs, const struct node *n, const char *name)
{
	uint64_t ino = inodes_pin(&fs->inodes, node_place(fs, n), name_hash(name));
	if (ino)
		reply_ino_entry(req, fs, ino, true);
	else
		fuse_reply_err(req, ENOMEM);
}

void reply_attr(fuse_req_t req, struct mhfs *fs, fuse_ino_t ino)
{
	struct stat st;
	bool told;
	int err = ino_answer(fs, ino, &st, &told);
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	if (!(ino & SCRATCH_INO))
		inodes_told(&fs->inodes, ino, &st);
	fuse_reply_attr(req, &st, answer_timeout(fs, ino, told));
}

uint8_t *read_buffer(struct mhfs *fs, size_t size)
{
	struct read_buffer {
		size_t cap;
		uint8_t data[];
	} *b = pthread_getspecific(fs->read_buffers);
	if (!b || b->cap < size) {
		size_t cap = size > MAX_REQUEST ? size : MAX_REQUEST;
		free(b);
		b = malloc(sizeof *b + cap);
		pthread_setspecific(fs->read_buffers, b);
		if (!b)
			return NULL;
		b->cap = cap;
	}
	return b->data;
}

void scratch_pages(struct fuse_file_info *fi)
{
	fi->direct_io = 0;
	fi->keep_cache = 0;
}
