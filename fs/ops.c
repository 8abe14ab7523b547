/* FUSE low-level operations.
 *
 * Each operation computes into locals and replies exactly once, at its
 * end; helpers return 0 or an errno.  The archive is immutable while
 * mounted read-only, so operations take no locks of their own: the
 * archive's lazy caches publish with release/acquire (archive.h).
 *
 * Inode numbers are computed (node.h), so lookup counts need no table:
 * forget has nothing to release. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "meta.h"
#include "mhfs.h"
#include "node.h"

/* An open file: the raw bytes of a node, or a snapshot of generated text. */
struct handle {
	uint32_t entry;      /* raw: the entry read from */
	uint64_t offset;     /* raw: where the node starts in the entry */
	uint64_t size;       /* raw: the node's size */
	char *text;          /* generated: owned snapshot, else NULL */
	const char *shared;  /* generated: text owned by the archive */
	size_t text_len;
};

static struct mhfs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Generated text of a node: owned (free it) or shared, never both. */
static int node_text(struct mhfs *fs, const struct node *n, char **owned,
		     const char **shared, size_t *len)
{
	*owned = NULL;
	*shared = NULL;
	switch (n->type) {
	case NODE_INFO:
		*owned = meta_info(&fs->ar, len);
		return *owned ? 0 : ENOMEM;
	case NODE_LOG:
		*owned = mlog_text(&fs->log, len);
		return *owned ? 0 : ENOMEM;
	case NODE_INDEX:
		*shared = meta_index(&fs->ar, len);
		return *shared ? 0 : ENOMEM;
	default:
		return EINVAL;
	}
}

static int node_stat(struct mhfs *fs, const struct node *n, struct stat *st)
{
	struct node_target t;
	memset(st, 0, sizeof *st);
	st->st_ino = node_ino(&fs->ar, n);
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_atim = st->st_mtim = st->st_ctim = fs->ar.mtime;
	st->st_blksize = 4096;

	switch (n->type) {
	case NODE_ROOT:
	case NODE_META:
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return 0;
	case NODE_INFO:
	case NODE_LOG:
	case NODE_INDEX: {
		char *owned;
		const char *shared;
		size_t len;
		int err = node_text(fs, n, &owned, &shared, &len);
		free(owned);
		if (err)
			return err;
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)len;
		break;
	}
	default:
		if (!node_resolve(&fs->ar, n, &t))
			return ENOENT;
		st->st_nlink = 1;
		if (t.link[0]) {
			st->st_mode = S_IFLNK | 0777;
			st->st_size = (off_t)strlen(t.link);
		} else if (n->type == NODE_DIR || n->type == NODE_STREAM) {
			st->st_mode = S_IFDIR | 0555;
			st->st_nlink = 2;
		} else {
			st->st_mode = S_IFREG | 0444;
			st->st_size = (off_t)(t.text ? t.text->len : t.size);
		}
		break;
	}
	st->st_blocks = (st->st_size + 511) / 512;
	return 0;
}

static int get_node(struct mhfs *fs, fuse_ino_t ino, struct node *n)
{
	return node_from_ino(&fs->ar, ino, n) ? 0 : ENOENT;
}

static void fill_entry(struct mhfs *fs, struct fuse_entry_param *e)
{
	e->ino = e->attr.st_ino;
	e->generation = 0;
	e->attr_timeout = fs->timeout;
	e->entry_timeout = fs->timeout;
}

static void mhfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mhfs *fs = fs_of(req);
	struct fuse_entry_param e = {0};
	struct node dir, child;
	int err = get_node(fs, parent, &dir);
	if (!err && !node_lookup(&fs->ar, &dir, name, &child))
		err = ENOENT;
	if (!err)
		err = node_stat(fs, &child, &e.attr);
	if (err == ENOENT) {
		/* A negative entry, cached as long as a positive one. */
		e.ino = 0;
		e.entry_timeout = fs->timeout;
		fuse_reply_entry(req, &e);
		return;
	}
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	fill_entry(fs, &e);
	fuse_reply_entry(req, &e);
}

static void mhfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	struct mhfs *fs = fs_of(req);
	struct node n;
	struct stat st;
	int err = get_node(fs, ino, &n);
	if (!err)
		err = node_stat(fs, &n, &st);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_attr(req, &st, fs->timeout);
}

static void mhfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct node n;
	struct node_target t;
	struct handle *h = NULL;
	int err = get_node(fs, ino, &n);

	if (!err && (fi->flags & O_ACCMODE) != O_RDONLY)
		err = EROFS;
	if (!err && (n.type == NODE_ROOT || n.type == NODE_META || n.type == NODE_DIR ||
		     n.type == NODE_STREAM))
		err = EISDIR;
	if (!err && !(h = calloc(1, sizeof *h)))
		err = ENOMEM;
	if (err) {
		/* reply below */
	} else if (n.type == NODE_INFO || n.type == NODE_LOG || n.type == NODE_INDEX) {
		err = node_text(fs, &n, &h->text, &h->shared, &h->text_len);
		/* Info and log change as the mount runs: bypass the page cache. */
		fi->direct_io = n.type != NODE_INDEX;
		fi->keep_cache = n.type == NODE_INDEX;
	} else if (!node_resolve(&fs->ar, &n, &t) || t.link[0]) {
		err = ENOENT; /* a symlink is opened through its target */
	} else if (t.text) {
		h->shared = t.text->text;
		h->text_len = t.text->len;
		fi->keep_cache = 1;
	} else {
		h->entry = n.entry;
		h->offset = t.offset;
		h->size = t.size;
		fi->keep_cache = 1;
	}
	if (err) {
		if (h)
			free(h->text);
		free(h);
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uintptr_t)h;
	fuse_reply_open(req, fi);
}

static void mhfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	(void)ino;
	struct mhfs *fs = fs_of(req);
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;

	if (h->text || h->shared) {
		const char *text = h->text ? h->text : h->shared;
		size_t from = (uint64_t)off < h->text_len ? (size_t)off : h->text_len;
		size_t n = h->text_len - from < size ? h->text_len - from : size;
		fuse_reply_buf(req, text + from, n);
		return;
	}
	if ((uint64_t)off >= h->size) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > h->size - (uint64_t)off)
		size = (size_t)(h->size - (uint64_t)off);
	void *buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	ssize_t n = archive_read(&fs->ar, h->entry, h->offset + (uint64_t)off, buf, size);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
}

static void mhfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	free(h->text);
	free(h);
	fuse_reply_err(req, 0);
}

static void mhfs_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct mhfs *fs = fs_of(req);
	struct node n;
	struct node_target t;
	int err = get_node(fs, ino, &n);
	if (!err && (!node_resolve(&fs->ar, &n, &t) || !t.link[0]))
		err = EINVAL;
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_readlink(req, t.link);
}

static void mhfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mhfs *fs = fs_of(req);
	struct node n;
	int err = get_node(fs, ino, &n);
	if (!err && n.type != NODE_ROOT && n.type != NODE_META && n.type != NODE_DIR &&
	    n.type != NODE_STREAM)
		err = ENOTDIR;
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	/* Listings come from the archive's structure: cacheable. */
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

/* Fills one readdir reply from listing position `off`. */
static void list_dir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     int plus)
{
	struct mhfs *fs = fs_of(req);
	struct node dir, child;
	char name[64];
	int err = get_node(fs, ino, &dir);
	char *buf = err ? NULL : malloc(size);
	size_t used = 0;

	if (!err && !buf)
		err = ENOMEM;
	for (uint64_t pos = (uint64_t)off; !err;) {
		if (!node_child_at(&fs->ar, &dir, &pos, &child, name, sizeof name))
			break;
		struct fuse_entry_param e = {0};
		bool dot = name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
		if (node_stat(fs, &child, &e.attr))
			goto next; /* vanished between listing and stat: skip */
		size_t n;
		if (plus) {
			/* "." and ".." go without an inode: no lookup counted. */
			if (!dot)
				fill_entry(fs, &e);
			n = fuse_add_direntry_plus(req, buf + used, size - used, name,
						   &e, (off_t)pos + 1);
		} else {
			n = fuse_add_direntry(req, buf + used, size - used, name,
					      &e.attr, (off_t)pos + 1);
		}
		if (n > size - used)
			break;
		used += n;
next:
		pos++;
	}
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, used);
	free(buf);
}

static void mhfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	(void)fi;
	list_dir(req, ino, size, off, 0);
}

static void mhfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			     off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	list_dir(req, ino, size, off, 1);
}

static void mhfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	struct mhfs *fs = fs_of(req);
	struct statvfs sv = {
		.f_bsize = DATABIN_BLOCK,
		.f_frsize = DATABIN_BLOCK,
		.f_blocks = (fs->ar.size + DATABIN_BLOCK - 1) / DATABIN_BLOCK,
		.f_files = fs->ar.count,
		.f_namemax = 255,
	};
	fuse_reply_statfs(req, &sv);
}

static void mhfs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* Reads are served in large requests; directory listings carry
	 * attributes so `ls -l` and `find` need no lookups. */
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	conn->want &= ~(unsigned)FUSE_CAP_READDIRPLUS_AUTO;
}

const struct fuse_lowlevel_ops mhfs_ops = {
	.init = mhfs_init,
	.lookup = mhfs_lookup,
	.getattr = mhfs_getattr,
	.readlink = mhfs_readlink,
	.open = mhfs_open,
	.read = mhfs_read,
	.release = mhfs_release,
	.opendir = mhfs_opendir,
	.readdir = mhfs_readdir,
	.readdirplus = mhfs_readdirplus,
	.statfs = mhfs_statfs,
};
