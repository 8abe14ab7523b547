/* SPDX-License-Identifier: MIT */
/* The store (store.h): writes into the archive, through its table of
 * system calls. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cipher.h"
#include "same_bytes.h"

/* ---- the store --------------------------------------------------------- */

void store_init(struct store *s, const struct store_io *io, int *fd, const char *path,
		bool writable, bool locked)
{
	s->io = io;
	s->fd = fd;
	s->path = path;
	s->db = NULL;
	s->writable = writable;
	s->locked = locked;
	s->backed_up = false;
	s->pending = false;
	s->pending_entry = s->pending_last = 0;
	journal_init(&s->journal);
	s->hook = NULL;
	s->hook_ctx = NULL;
	atomic_init(&s->bytes_written, 0);
	atomic_init(&s->rewrite_done, 0);
	atomic_init(&s->rewrite_total, 0);
}

/* Note 5: 0 when the filesystem holding the archive has room for `need`
 * more bytes (a new archive beside it, or a shift's journal record and
 * growth), else ENOSPC with why saying how much.  Where the room cannot
 * be told, the write is tried. */
static int need_room(const struct store *s, uint64_t need, bool shift, struct fs_diag *why)
{
	struct statvfs sv;
	if (s->io->fstatvfs(*s->fd, &sv))
		return 0;
	uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (need <= avail)
		return 0;
	fs_diag_printf(why, "No space left for %s: this commit moves entries, so it "
		       "needs %llu bytes (%.1f MiB) %s, and %llu bytes (%.1f MiB) are free: free "
		       "%.1f MiB more", shift ? "the journal" : "a new archive",
		       (unsigned long long)need, need / 1048576.0,
		       shift ? "for the journal and the archive's growth" : "beside the old one",
		       (unsigned long long)avail, avail / 1048576.0, (need - avail) / 1048576.0);
	return ENOSPC;
}

/* Where a rewrite, or -o backup's copy, is written before its rename. */
static void replacement_path(const struct store *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s.mhfu-new", s->path);
}

/* What the journal writes through: the store's calls, descriptor, path
 * and hook, handed over at each call (journal.h). */
static struct journal_channel channel_of(const struct store *s)
{
	return (struct journal_channel){.io = s->io, .fd = s->fd, .path = s->path,
					.writable = s->writable, .hook = s->hook,
					.hook_ctx = s->hook_ctx};
}

enum journal_recovery store_recover(struct store *s, struct fs_diag *msg)
{
	const struct journal_channel ch = channel_of(s);
	char npath[4096];
	replacement_path(s, npath, sizeof npath);
	if (s->io->unlink(npath) == 0)
		store_sync_parent(s->io, npath); /* an unfinished rewrite or backup:
						    the archive is whole */
	return journal_recover(&s->journal, &ch, msg);
}

int store_replay_pending(struct store *s, struct fs_diag *why)
{
	const struct journal_channel ch = channel_of(s);
	if (!s->pending)
		return 0;
	if (journal_replay(&s->journal, &ch, why))
		return EIO;
	s->pending = false;
	return 0;
}

int store_forget_recovered(struct store *s, struct fs_diag *why)
{
	const struct journal_channel ch = channel_of(s);
	return journal_forget(&s->journal, &ch, why);
}

int store_close(struct store *s, struct fs_diag *why)
{
	const struct journal_channel ch = channel_of(s);
	return journal_close(&s->journal, &ch, s->pending, why);
}

int store_checkpoint(struct store *s, struct fs_diag *why)
{
	const struct journal_channel ch = channel_of(s);
	return s->pending ? 0 : journal_checkpoint(&s->journal, &ch, why);
}

/* Note 6: the caller's side made durable before the archive changes
 * outside the journal.  0, or EIO. */
static int call_hook(struct store *s, struct fs_diag *why)
{
	return s->hook && s->hook(s->hook_ctx, why) ? EIO : 0;
}

/* Enters the error state for entries first..last. */
static void go_pending(struct store *s, uint32_t first, uint32_t last)
{
	s->pending = true;
	s->pending_entry = first;
	s->pending_last = last;
}

static bool entry_plain(const struct store *s, uint32_t id)
{
	return !s->db || databin_entry_plain(s->db, id);
}

/* Bytes [pos, pos + n) of entry id as stored: its len bytes padded with
 * zeros, encrypted under `start` unless it is stored plain. */
static void stored_piece(const struct store *s, uint32_t id, uint32_t start,
			 const uint8_t *bytes, size_t len, uint64_t pos, uint8_t *buf, size_t n)
{
	memset(buf, 0, n);
	if (pos < len)
		memcpy(buf, bytes + pos, n < len - pos ? n : (size_t)(len - pos));
	if (!entry_plain(s, id))
		cipher_encrypt(start, pos, buf, n);
}

/* The entry as stored, in whole blocks (stored_piece).  malloc'ed. */
static uint8_t *stored_blocks(const struct store *s, uint32_t id, uint32_t start,
			      const uint8_t *bytes, size_t len, uint32_t blocks)
{
	size_t span = (size_t)blocks * DATABIN_BLOCK;
	uint8_t *buf = malloc(span ? span : 1);
	if (buf)
		stored_piece(s, id, start, bytes, len, 0, buf, span);
	return buf;
}

/* Locks a file about to be renamed over the archive as the archive is
 * locked, so that no other mount can take the new file between the
 * rename and this mount's next look.  0, or an errno. */
static int lock_like(const struct store *s, int fd)
{
	return s->locked && s->io->flock(fd, LOCK_EX | LOCK_NB) ? errno : 0;
}

/* Opens the file that will be renamed over the archive (ARCHIVE.mhfu-new)
 * with the archive's mode and owner, so a rewrite changes nobody's access
 * to it, locked like it, as *fd: 0, or an errno (the file removed). */
static int open_replacement(const struct store *s, const char *tmp, int *fd)
{
	const struct store_io *io = s->io;
	struct stat st;
	int err = 0;
	if ((*fd = io->open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return errno;
	/* Only root may give a file away: a user writing another's archive
	 * leaves the new file theirs. */
	if (io->fstat(*s->fd, &st) || io->fchmod(*fd, st.st_mode & 07777) ||
	    (io->fchown(*fd, st.st_uid, st.st_gid) && errno != EPERM))
		err = errno;
	else
		err = lock_like(s, *fd);
	if (err) {
		io->close(*fd);
		io->unlink(tmp);
		*fd = -1;
	}
	return err;
}

/* A descriptor closed on a thread of its own. */
struct closing {
	const struct store_io *io;
	int fd;
};

static void *close_work(void *arg)
{
	struct closing *c = arg;
	c->io->close(c->fd);
	free(c);
	return NULL;
}

/* Closes fd, on a thread of its own where the table can start one: the
 * last close of a replaced archive frees its blocks, which takes 60-80 ms
 * of waiting on this machine's ext4, and the commit is durable without
 * it. */
static void close_behind(const struct store_io *io, int fd)
{
	struct closing *c = io->start_thread ? malloc(sizeof *c) : NULL;
	pthread_t t;
	if (c) {
		*c = (struct closing){io, fd};
		if (io->start_thread(&t, close_work, c) == 0) {
			pthread_detach(t);
			return;
		}
		free(c);
	}
	io->close(fd);
}

/* Renames the synced replacement, open as fd at tmp, over the archive and
 * takes its descriptor in place of the old one: from the rename on, the
 * path names the new file, so the store follows it whatever comes next.
 * 0, or an errno: *renamed says whether the rename was made (else the
 * caller removes tmp); after it, the directory could not be synced, and
 * the rename may not survive a crash. */
static int replace_archive(struct store *s, int fd, const char *tmp, bool *renamed)
{
	*renamed = false;
	if (s->io->fsync(fd) || s->io->rename(tmp, s->path))
		return errno;
	*renamed = true;
	int old = *s->fd, err = store_sync_parent(s->io, s->path) ? errno : 0;
	*s->fd = fd;
	close_behind(s->io, old);
	return err;
}

/* Entries moved per read and write of a rewrite: at least one, else as
 * many as fit here. */
#define REWRITE_CHUNK (8u << 20)

/* Note 1: a tail of at most this many bytes (and at most half the
 * archive) is shifted in place through the journal rather than the
 * archive rewritten: the journal writes it twice, a rewrite the whole
 * archive once. */
#define SHIFT_MAX_BYTES (64u << 20)

/* Whether entries [j, k) all are stored plain: moved, their bytes stay. */
static bool run_plain(const struct store *s, uint32_t j, uint32_t k)
{
	for (uint32_t e = j; e < k; e++)
		if (!entry_plain(s, e))
			return false;
	return true;
}

/* Re-encrypts, in buf (the len bytes at `lo` of the archive as `db`
 * lays it out, as stored under the old TOC `was`), each piece of an entry
 * that moves in `db` under its new start.  `first` is an entry at or
 * before lo's; returns the entry holding the last byte, a next span's
 * `first`. */
static uint32_t reencrypt_span(const struct store *s, const struct databin *was,
			       const struct databin *db, uint32_t first, uint64_t lo,
			       uint8_t *buf, size_t len)
{
	uint64_t hi = lo + len;
	uint32_t e = first;
	while (e + 1 < db->count && databin_entry_offset(db, e + 1) <= lo)
		e++;
	for (;; e++) {
		uint64_t start = databin_entry_offset(db, e), end = databin_entry_offset(db, e + 1);
		uint64_t a = start > lo ? start : lo, z = end < hi ? end : hi;
		if (!entry_plain(s, e) && db->start[e] != was->start[e])
			cipher_reencrypt(was->start[e], db->start[e], a - start, buf + (a - lo),
					 (size_t)(z - a));
		if (end >= hi || e + 1 >= db->count)
			return e;
	}
}

/* The end of the run of entries from j that fits in REWRITE_CHUNK bytes
 * (one entry at least); *total the run's bytes. */
static uint32_t run_end(const struct databin *db, uint32_t j, size_t *total)
{
	uint32_t k;
	*total = 0;
	for (k = j; k < db->count; k++) {
		size_t span = (size_t)(db->start[k + 1] - db->start[k]) * DATABIN_BLOCK;
		if (k > j && *total + span > REWRITE_CHUNK)
			break;
		*total += span;
	}
	return k;
}

/* A new archive's span just written, [off, off + len): its writeback
 * started, and the writer's span before it (*behind) waited for, so that
 * each writer keeps two chunks dirty at most: it is never throttled
 * behind a flood of dirty pages, and the final sync has little left.
 * A failure here is the final sync's to report. */
static void write_behind(const struct store_io *io, int fd, uint64_t off, uint64_t len,
			 uint64_t behind[2])
{
	io->sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
	if (behind[1])
		io->sync_file_range(fd, (off_t)behind[0], (off_t)behind[1],
				    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
					    SYNC_FILE_RANGE_WAIT_AFTER);
	behind[0] = off;
	behind[1] = len;
}

/* A chunk of the new archive (open as fd) just written at `to`, from the
 * old archive's bytes at `from`: its writeback started (write_behind),
 * the old bytes' pages, read for the last time, given back at once, and
 * the progress shown.  The new file's next pages then reuse those rather
 * than memory the kernel handed back long ago, which a virtual machine
 * that reports free pages to its host faults in anew at first touch
 * (the rewrite's cost, twice over, without this); the archive was synced
 * before the rewrite began, so every page given back is clean. */
static void chunk_done(struct store *s, int fd, uint64_t from, uint64_t to, uint64_t len,
		       uint64_t behind[2])
{
	write_behind(s->io, fd, to, len, behind);
	s->io->fadvise(*s->fd, (off_t)from, (off_t)len, POSIX_FADV_DONTNEED);
	atomic_fetch_add(&s->rewrite_done, len);
}

/* Copies [from, to) of the old archive, unchanged, into the new one (open
 * as fd), a chunk at a time: 0, or an errno. */
static int copy_kept(struct store *s, int fd, uint64_t from, uint64_t to, uint8_t *buf,
		     uint64_t behind[2])
{
	for (uint64_t n; from < to; from += n) {
		n = to - from < REWRITE_CHUNK ? to - from : REWRITE_CHUNK;
		if (store_copy_span(s->io, *s->fd, fd, from, from, n, buf, REWRITE_CHUNK))
			return errno;
		chunk_done(s, fd, from, from, n, behind);
	}
	return 0;
}

/* The entries after a rewritten one, being moved into the new archive
 * by one or two movers (copy_moved), each claiming the next run of
 * entries in turn: re-encryption and the copies in and out of the page
 * cache take a processor each, and the runs' writes stay in order. */
struct moving {
	struct store *s;
	const struct databin *was, *db; /* the TOC before and after */
	int fd;                         /* the new archive */
	pthread_mutex_t lock;           /* guards next, err and read_at */
	uint32_t next;                  /* the first entry no mover has claimed */
	int err;                        /* the first failure's errno; 0: none */
	int64_t read_at;                /* where reading the old archive failed, if
					   that was the first failure; else -1 */
};

struct mover {
	struct moving *m;
	uint8_t *buf;       /* REWRITE_CHUNK bytes, or a larger run's */
	uint64_t behind[2]; /* write_behind's */
};

/* Claims the next run of entries, [*j, *k) of *total bytes: false when
 * none is left or a mover has failed. */
static bool claim_run(struct moving *m, uint32_t *j, uint32_t *k, size_t *total)
{
	pthread_mutex_lock(&m->lock);
	bool any = !m->err && m->next < m->db->count;
	if (any) {
		*j = m->next;
		*k = m->next = run_end(m->db, *j, total);
	}
	pthread_mutex_unlock(&m->lock);
	return any;
}

/* Moves entries [j, k), total bytes: a plain run copied in the kernel,
 * the others read, re-encrypted under their new start and written: 0,
 * or an errno.  A failed read of the old archive sets *read_at to its
 * offset. */
static int move_run(struct mover *w, uint32_t j, uint32_t k, size_t total, int64_t *read_at)
{
	const struct moving *m = w->m;
	struct store *s = m->s;
	const struct store_io *io = s->io;
	uint64_t from = databin_entry_offset(m->was, j), to = databin_entry_offset(m->db, j);
	if (run_plain(s, j, k)) {
		if (store_copy_span(io, *s->fd, m->fd, from, to, total, w->buf, REWRITE_CHUNK))
			return errno;
	} else {
		if (total > REWRITE_CHUNK) {
			uint8_t *big = realloc(w->buf, total);
			if (!big)
				return ENOMEM;
			w->buf = big;
		}
		if (store_pread_full(io, *s->fd, w->buf, total, from)) {
			*read_at = (int64_t)from;
			return errno;
		}
		reencrypt_span(s, m->was, m->db, j, to, w->buf, total);
		if (store_pwrite_full(io, m->fd, w->buf, total, to))
			return errno;
	}
	chunk_done(s, m->fd, from, to, total, w->behind);
	return 0;
}

/* A mover's work: runs until none is left, or the first failure. */
static void *move_runs(void *arg)
{
	struct mover *w = arg;
	struct moving *m = w->m;
	uint32_t j, k;
	size_t total;
	while (claim_run(m, &j, &k, &total)) {
		int64_t read_at = -1;
		int err = move_run(w, j, k, total, &read_at);
		if (err) {
			pthread_mutex_lock(&m->lock);
			if (!m->err) {
				m->err = err;
				m->read_at = read_at;
			}
			pthread_mutex_unlock(&m->lock);
			break;
		}
	}
	return NULL;
}

/* Writes the entries after `id` of the new archive (open as fd) from the
 * old one, on this thread (with *bufp and behind) and, where the table
 * can start one, a second with a buffer of its own.  0, or the first
 * failure's errno, and *read_at where reading the old archive failed if
 * that was it (else -1). */
static int copy_moved(struct store *s, const struct databin *was, const struct databin *db,
		      uint32_t id, int fd, uint8_t **bufp, uint64_t behind[2], int64_t *read_at)
{
	struct moving m = {s, was, db, fd, PTHREAD_MUTEX_INITIALIZER, id + 1, 0, -1};
	struct mover self = {&m, *bufp, {behind[0], behind[1]}}, other = {&m, NULL, {0, 0}};
	pthread_t t;
	bool two = s->io->start_thread && (other.buf = malloc(REWRITE_CHUNK)) &&
		   s->io->start_thread(&t, move_runs, &other) == 0;
	move_runs(&self);
	if (two)
		pthread_join(t, NULL);
	free(other.buf);
	*bufp = self.buf;
	pthread_mutex_destroy(&m.lock);
	*read_at = m.read_at;
	return m.err;
}

/* The store's TOC becomes db's start and sizes (taken). */
static void adopt_toc(struct store *s, struct databin *db)
{
	free(s->db->start);
	free(s->db->sizes);
	s->db->start = db->start;
	s->db->sizes = db->sizes;
	db->start = NULL;
	db->sizes = NULL;
}

/* Writes a whole new archive beside the old one and renames it over:
 * TOC `db`, entry w->id from w->bytes.  Entries before it keep their place
 * and bytes (copied as they are); later ones move (copy_moved).  Takes
 * db's start and sizes: once the new file is the archive they are the
 * store's TOC, else they are freed. */
static int rewrite_archive(struct store *s, struct databin *db, const struct entry_write *w,
			   struct fs_diag *why)
{
	uint32_t id = w->id;
	const struct journal_channel ch = channel_of(s);
	const struct store_io *io = s->io;
	struct databin *was = s->db;
	char tmp[4096];
	uint8_t *toc = NULL, *buf = NULL, *entry = NULL;
	size_t toc_len;
	struct mh_diag d = {0};
	int fd = -1, err;
	bool renamed = false;

	if (databin_encode(db, &toc, &toc_len, &d)) {
		fs_diag_printf(why, "the TOC would not read back: %s", d.msg);
		err = EINVAL;
		goto fail;
	}
	uint64_t new_size = databin_entry_offset(db, db->count);
	/* Note 6, journal.h note 4: nothing of the old file is replayed over
	 * the new one. */
	if ((err = need_room(s, new_size, false, why)) ||
	    (err = journal_retire(&s->journal, &ch, why)))
		goto fail;
	atomic_store(&s->rewrite_done, 0);
	atomic_store(&s->rewrite_total, new_size);
	replacement_path(s, tmp, sizeof tmp);
	uint32_t blocks = db->start[id + 1] - db->start[id];
	if (!(buf = malloc(REWRITE_CHUNK)) ||
	    !(entry = stored_blocks(s, id, db->start[id], w->bytes, w->len, blocks))) {
		err = ENOMEM;
		goto fail;
	}
	/* The TOC spans the blocks before entry 0. */
	uint64_t head = databin_entry_offset(was, 0), at = databin_entry_offset(db, id);
	uint64_t behind[2] = {0, 0};
	int64_t read_at = -1;
	if (!(err = open_replacement(s, tmp, &fd)) &&
	    !(err = store_pwrite_full(io, fd, toc, toc_len, 0)) &&
	    !(err = copy_kept(s, fd, head, at, buf, behind)) &&
	    !(err = store_pwrite_full(io, fd, entry, (size_t)blocks * DATABIN_BLOCK, at))) {
		/* the TOC's and the entry's */
		atomic_fetch_add(&s->rewrite_done, head + (uint64_t)blocks * DATABIN_BLOCK);
		if (!(err = copy_moved(s, was, db, id, fd, &buf, behind, &read_at)))
			err = replace_archive(s, fd, tmp, &renamed);
	}
	if (renamed) {
		fd = -1; /* the archive's now */
		adopt_toc(s, db);
		atomic_fetch_add(&s->bytes_written, databin_entry_offset(was, was->count));
	}
	if (err == ENOMEM)
		goto fail;
	if (read_at >= 0)
		fs_diag_printf(why, "reading %s at byte %lld: %s", s->path, (long long)read_at,
			       strerror(err));
	else if (err)
		fs_diag_printf(why, "writing %s: %s", tmp, strerror(err));
	if (err && err != ENOSPC && err != EDQUOT)
		err = EIO;
fail:
	atomic_store(&s->rewrite_total, 0);
	if (fd >= 0) {
		io->close(fd);
		io->unlink(tmp);
	}
	free(db->start);
	free(db->sizes);
	free(toc);
	free(buf);
	free(entry);
	return err;
}

/* The bytes of a shifted tail, made a piece at a time (a journal write's
 * fill, journal.h): entry id's new blocks, then every later entry read
 * from its old place and re-encrypted under its new start. */
struct tail_source {
	const struct store *s;
	const struct databin *was, *db; /* the TOC before and after */
	uint32_t id;
	const uint8_t *bytes;           /* entry id's new bytes */
	size_t len, span;               /*   and its new blocks' */
	uint32_t next;                  /* the entry the last piece ended in */
};

static int fill_tail(void *ctx, uint64_t pos, uint8_t *buf, size_t n)
{
	struct tail_source *t = ctx;
	const struct store *s = t->s;
	const struct databin *was = t->was, *db = t->db;
	uint64_t base = databin_entry_offset(db, t->id);
	size_t own = 0; /* bytes of entry id */
	if (pos < t->span) {
		own = n < t->span - pos ? n : (size_t)(t->span - pos);
		stored_piece(s, t->id, db->start[t->id], t->bytes, t->len, pos, buf, own);
	}
	if (own == n)
		return 0;
	uint64_t lo = base + pos + own;
	uint64_t from = databin_entry_offset(was, t->id + 1) + (lo - base - t->span);
	int err = store_pread_full(s->io, *s->fd, buf + own, n - own, from);
	if (err)
		return err;
	t->next = reencrypt_span(s, was, db, t->next, lo, buf + own, n - own);
	return 0;
}

/* Note 1: the tail from entry id on, shifted in place as one journal
 * record: entry id's new blocks and every later entry at its new place
 * (fill_tail), the TOC, the archive's new length.  Takes db's start and
 * sizes as rewrite_archive does. */
static int shift_tail(struct store *s, struct databin *db, const struct entry_write *w,
		      struct fs_diag *why)
{
	uint32_t id = w->id;
	const struct journal_channel ch = channel_of(s);
	struct databin *was = s->db;
	uint8_t *toc = NULL;
	size_t toc_len;
	struct mh_diag d = {0};
	int err = 0;
	uint64_t at = databin_entry_offset(db, id), end = databin_entry_offset(db, db->count);
	uint64_t old_end = databin_entry_offset(was, was->count);
	struct tail_source tail = {s, was, db, id, w->bytes, w->len,
				   (size_t)(db->start[id + 1] - db->start[id]) * DATABIN_BLOCK, id + 1};
	err = need_room(s, 2 * (end - at) + (end > old_end ? end - old_end : 0), true, why);
	if (!err && databin_encode(db, &toc, &toc_len, &d)) {
		fs_diag_printf(why, "the TOC would not read back: %s", d.msg);
		err = EINVAL;
	}
	if (!err) {
		struct journal_write jw[2] = {{at, NULL, (size_t)(end - at), fill_tail, &tail},
					      {0, toc, toc_len, NULL, NULL}};
		struct journal_record r = {jw, 2, end, w->note, w->note_len};
		bool pending;
		err = journal_commit(&s->journal, &ch, &r, &pending, why);
		if (pending)
			go_pending(s, id, db->count - 1);
		if (!err || pending) {
			adopt_toc(s, db);
			atomic_fetch_add(&s->bytes_written, end - at + toc_len);
		}
	}
	free(db->start);
	free(db->sizes);
	free(toc);
	return err;
}

/* An entry that keeps its blocks, in place through the journal: the bytes
 * that change (a keyframe edit changes a few bytes of a large PAC), found
 * by comparing with the entry as it stands, and the TOC when its size
 * record changes.  Padding past both lengths stays as it is; what a
 * shrink gives up becomes zeros. */
static int write_in_place(struct store *s, const struct entry_write *ew, struct fs_diag *why)
{
	uint32_t id = ew->id;
	const uint8_t *old = ew->old, *bytes = ew->bytes;
	size_t old_len = ew->old_len, len = ew->len;
	const struct journal_channel ch = channel_of(s);
	struct databin *db = s->db;
	long rec = databin_size_index(db, id);
	struct journal_write w[2];
	size_t n = 0, common = len < old_len ? len : old_len;
	size_t lo = same_prefix(old, bytes, common), hi = len > old_len ? len : old_len;
	if (len == old_len)
		hi -= same_suffix(old + len, bytes + len, len - lo);
	uint8_t *toc = NULL, *buf = calloc(1, hi > lo ? hi - lo : 1);
	if (!buf)
		return ENOMEM;
	if (len > lo)
		memcpy(buf, bytes + lo, (len < hi ? len : hi) - lo);
	if (!entry_plain(s, id))
		cipher_encrypt(db->start[id], lo, buf, hi - lo);
	if (hi > lo)
		w[n++] = (struct journal_write){databin_entry_offset(db, id) + lo, buf, hi - lo, NULL, NULL};
	uint32_t old_size = rec >= 0 ? db->sizes[rec].size : 0;
	if (rec >= 0 && old_size != len) {
		size_t toc_len;
		struct mh_diag d;
		db->sizes[rec].size = (uint32_t)len;
		if (databin_encode(db, &toc, &toc_len, &d)) {
			db->sizes[rec].size = old_size;
			free(buf);
			fs_diag_printf(why, "the TOC would not read back: %s", d.msg);
			return EINVAL;
		}
		w[n++] = (struct journal_write){0, toc, toc_len, NULL, NULL};
	}
	bool pending = false;
	struct journal_record r = {w, n, 0, ew->note, ew->note_len};
	int err = n ? journal_commit(&s->journal, &ch, &r, &pending, why) : 0;
	if (pending) {
		/* The commit will happen: the TOC stays as it will be. */
		go_pending(s, id, id);
	} else if (err && rec >= 0) {
		db->sizes[rec].size = old_size;
	}
	for (size_t i = 0; !err && i < n; i++)
		atomic_fetch_add(&s->bytes_written, w[i].len);
	free(buf);
	free(toc);
	return err;
}

/* An entry whose block count changes: every later entry moves, by a
 * shift in place when the bytes to move are few, else by a rewrite. */
static int write_moving(struct store *s, const struct entry_write *w, uint32_t blocks,
			struct fs_diag *why)
{
	uint32_t id = w->id;
	struct databin db = *s->db;
	long rec = databin_size_index(&db, id);
	db.start = malloc(((size_t)db.count + 1) * sizeof *db.start);
	db.sizes = malloc((db.nsizes ? db.nsizes : 1) * sizeof *db.sizes);
	if (!db.start || !db.sizes) {
		free(db.start);
		free(db.sizes);
		return ENOMEM;
	}
	memcpy(db.sizes, s->db->sizes, db.nsizes * sizeof *db.sizes);
	int64_t delta = (int64_t)blocks - databin_entry_blocks(s->db, id);
	for (uint32_t j = 0; j <= db.count; j++)
		db.start[j] = (uint32_t)(s->db->start[j] + (j > id ? delta : 0));
	if (rec >= 0)
		db.sizes[rec].size = (uint32_t)w->len;
	uint64_t shifted = databin_entry_offset(&db, db.count) - databin_entry_offset(&db, id);
	if (shifted <= SHIFT_MAX_BYTES && 2 * shifted <= databin_entry_offset(&db, db.count))
		return shift_tail(s, &db, w, why);
	return rewrite_archive(s, &db, w, why);
}

static int write_databin_entry(struct store *s, const struct entry_write *w,
			       struct fs_diag *why)
{
	uint32_t id = w->id;
	size_t len = w->len;
	uint64_t want = (len + DATABIN_BLOCK - 1) / DATABIN_BLOCK;
	uint32_t blocks = want ? (uint32_t)want : 1;

	if (databin_size_index(s->db, id) >= 0 && len == 0) {
		fs_diag_printf(why, "an entry with a size record cannot be empty");
		return EINVAL;
	}
	if (want > UINT32_MAX / 2) {
		fs_diag_printf(why, "%zu bytes is too large for an entry", len);
		return EFBIG;
	}
	if (blocks == databin_entry_blocks(s->db, id))
		return write_in_place(s, w, why);
	return write_moving(s, w, blocks, why);
}

/* A single PAC: the new file replaces the old by rename. */
static int write_pac_file(struct store *s, const uint8_t *bytes, size_t len, struct fs_diag *why)
{
	char tmp[4096];
	if (call_hook(s, why))
		return EIO;
	replacement_path(s, tmp, sizeof tmp);
	int fd = -1;
	bool renamed = false;
	int err = open_replacement(s, tmp, &fd);
	if (!err && !(err = store_pwrite_full(s->io, fd, bytes, len, 0)))
		err = replace_archive(s, fd, tmp, &renamed);
	if (renamed)
		atomic_fetch_add(&s->bytes_written, len);
	if (!err)
		return 0;
	fs_diag_printf(why, "writing %s: %s", tmp, strerror(err));
	if (!renamed && fd >= 0) {
		s->io->close(fd);
		s->io->unlink(tmp);
	}
	return EIO;
}

int store_write_entry(struct store *s, const struct entry_write *w, struct fs_diag *why)
{
	return s->db ? write_databin_entry(s, w, why) : write_pac_file(s, w->bytes, w->len, why);
}

int store_keep_original(struct store *s, struct fs_diag *why)
{
	const struct store_io *io = s->io;
	char orig[4096], tmp[4096];
	snprintf(orig, sizeof orig, "%s.orig", s->path);
	if (s->backed_up || io->access(orig, F_OK) == 0) {
		s->backed_up = true;
		return 0;
	}
	/* Copied beside and renamed: ARCHIVE.orig, once there, is kept for
	 * good, so a crash must never leave part of a copy under its name. */
	replacement_path(s, tmp, sizeof tmp);
	struct stat st;
	int out = io->open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	uint8_t *buf = malloc(REWRITE_CHUNK);
	bool failed = out < 0 || !buf || io->fstat(*s->fd, &st) ||
		      store_copy_span(io, *s->fd, out, 0, 0, (uint64_t)st.st_size, buf, REWRITE_CHUNK) ||
		      io->fsync(out) || io->rename(tmp, orig) || store_sync_parent(io, orig);
	int cause = errno;
	free(buf);
	if (out >= 0)
		io->close(out);
	if (failed) {
		fs_diag_printf(why, "keeping %s: %s", orig, strerror(cause));
		io->unlink(tmp);
		return EIO;
	}
	s->backed_up = true;
	return 0;
}
