/* SPDX-License-Identifier: MIT */
/* The journal (journal.h). */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buffer.h"
#include "bytes.h"
#include "crc32.h"

#define MAGIC "MHFUJNL2"
#define MAGIC_LEN 8
#define HEAD 32     /* magic, seq, size, count, note length */
#define WRITE_HEAD 12
#define TAIL 4      /* the record's CRC-32 */
#define JOURNAL_MAX (1ull << 32)

static void journal_path(char *buf, size_t len, const char *archive)
{
	snprintf(buf, len, "%s.mhfu-journal", archive);
}

static uint32_t crc_of(const uint8_t *p, size_t len)
{
	return mh_crc32(0, p, len);
}

void journal_init(struct journal *j)
{
	memset(j, 0, sizeof *j);
	j->fd = -1;
	j->next_seq = 1;
	j->live_max = JOURNAL_LIVE_RECORDS;
	j->reuse_min = JOURNAL_REUSE_BYTES;
}

static void free_notes(struct journal *j)
{
	for (size_t i = 0; i < j->nrecovered; i++)
		free(j->recovered[i].bytes);
	free(j->recovered);
	j->recovered = NULL;
	j->nrecovered = 0;
}

/* ---- records ------------------------------------------------------------ */

/* A record's length; 0 when it is too large for the format. */
static uint64_t record_len(const struct journal_record *r)
{
	uint64_t total = HEAD + r->note_len + TAIL;
	for (size_t i = 0; i < r->n; i++)
		total += WRITE_HEAD + r->w[i].len;
	return total > JOURNAL_MAX || r->n > UINT32_MAX || r->note_len > UINT32_MAX ? 0 : total;
}

/* Writes this large or more start their writeback at once (note 2). */
#define WRITEBACK_EARLY (1u << 20)

/* Where a record's bytes go: small pieces gathered in buf, large ones
 * (a shifted tail) written from where they are, never copied; the
 * writeback of each WRITEBACK_EARLY written is started, so that the disk
 * works while the rest is made and the sync has little left. */
#define STAGE 8192

struct sink {
	const struct store_io *io;
	int fd;
	uint64_t at;       /* where the next byte goes */
	uint64_t unstarted; /* where the bytes whose writeback waits begin */
	uint32_t crc;      /* of the bytes put so far */
	uint8_t buf[STAGE];
	size_t n;
	int err;           /* the first failure's errno, or 0 */
	bool reading;      /*   which was a fill's: reading the archive */
};

static void sink_write(struct sink *k, const uint8_t *p, size_t len)
{
	if (!k->err && len && store_pwrite_full(k->io, k->fd, p, len, k->at))
		k->err = errno ? errno : EIO;
	k->at += len;
	/* Only a head start: its failure is the sync's. */
	if (!k->err && k->at - k->unstarted >= WRITEBACK_EARLY) {
		k->io->sync_file_range(k->fd, (off_t)k->unstarted, (off_t)(k->at - k->unstarted),
				       SYNC_FILE_RANGE_WRITE);
		k->unstarted = k->at;
	}
}

static void sink_flush(struct sink *k)
{
	sink_write(k, k->buf, k->n);
	k->n = 0;
}

static void sink_put(struct sink *k, const void *data, size_t len)
{
	const uint8_t *p = data;
	k->crc = mh_crc32(k->crc, p, len);
	if (len > STAGE - k->n) {
		sink_flush(k);
		if (len > STAGE) {
			sink_write(k, p, len);
			return;
		}
	}
	memcpy(k->buf + k->n, p, len);
	k->n += len;
}

/* Puts write w's bytes: from memory, or made a piece at a time in buf
 * (JOURNAL_FILL_BYTES). */
static void sink_put_write(struct sink *k, const struct journal_write *w, uint8_t *buf)
{
	if (w->data) {
		sink_put(k, w->data, w->len);
		return;
	}
	for (size_t pos = 0; pos < w->len && !k->err;) {
		size_t n = w->len - pos < JOURNAL_FILL_BYTES ? w->len - pos : JOURNAL_FILL_BYTES;
		if ((k->err = w->fill(w->ctx, pos, buf, n)))
			k->reading = true;
		else
			sink_put(k, buf, n);
		pos += n;
	}
}

/* Writes record r, numbered seq, at `at` of the journal open as fd, the
 * bytes of its filled writes made in buf: 0, or an errno, *reading set
 * when it was a fill's (reading the archive). */
static int write_record(const struct store_io *io, int fd, const struct journal_record *r,
			uint64_t seq, uint64_t at, uint8_t *buf, bool *reading)
{
	struct sink k = {.io = io, .fd = fd, .at = at, .unstarted = at, .crc = 0};
	uint8_t head[HEAD], whead[WRITE_HEAD], tail[TAIL];
	memcpy(head, MAGIC, MAGIC_LEN);
	put_le64(head + 8, seq);
	put_le64(head + 16, r->size);
	put_le32(head + 24, (uint32_t)r->n);
	put_le32(head + 28, (uint32_t)r->note_len);
	sink_put(&k, head, HEAD);
	for (size_t i = 0; i < r->n; i++) {
		put_le64(whead, r->w[i].offset);
		put_le32(whead + 8, (uint32_t)r->w[i].len);
		sink_put(&k, whead, WRITE_HEAD);
		sink_put_write(&k, &r->w[i], buf);
	}
	if (r->note_len)
		sink_put(&k, r->note, r->note_len);
	put_le32(tail, (uint32_t)k.crc);
	sink_put(&k, tail, TAIL);
	sink_flush(&k);
	*reading = k.reading;
	return k.err;
}

/* Records read back: each points into the journal's bytes. */
struct loaded {
	uint8_t *buf;          /* the file, malloc'ed */
	size_t len;
	struct journal_record *r; /* n of them, malloc'ed, with their writes */
	size_t n;
	uint64_t end;          /* where the last whole one ends */
	uint64_t last_seq;
};

static void loaded_free(struct loaded *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((void *)l->r[i].w);
	free(l->r);
	free(l->buf);
	memset(l, 0, sizeof *l);
}

/* The record at buf[pos..len) if it is whole: its length, else 0.  Its
 * writes are malloc'ed into r->w; -1 when out of memory. */
static long long parse_one(const uint8_t *buf, size_t len, size_t pos, struct journal_record *r,
			   uint64_t *seq)
{
	const uint8_t *p = buf + pos;
	size_t left = len - pos;
	if (left < HEAD + TAIL || memcmp(p, MAGIC, MAGIC_LEN))
		return 0;
	*seq = le64(p + 8);
	r->size = le64(p + 16);
	r->n = le32(p + 24);
	r->note_len = le32(p + 28);
	size_t at = HEAD;
	if (r->n > left / WRITE_HEAD)
		return 0;
	struct journal_write *w = calloc(r->n ? r->n : 1, sizeof *w);
	if (!w)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		if (left - TAIL < at || left - TAIL - at < WRITE_HEAD)
			goto torn;
		w[i].offset = le64(p + at);
		w[i].len = le32(p + at + 8);
		w[i].data = p + at + WRITE_HEAD;
		at += WRITE_HEAD;
		if (w[i].len > left - TAIL - at)
			goto torn;
		at += w[i].len;
	}
	if (r->note_len > left - TAIL - at)
		goto torn;
	r->note = p + at;
	at += r->note_len;
	if (le32(p + at) != crc_of(p, at))
		goto torn;
	r->w = w;
	return (long long)(at + TAIL);
torn:
	free(w);
	return 0;
}

/* Note 5: the whole records of buf[0..len), in order.  0, or ENOMEM. */
static int parse_all(struct loaded *l)
{
	size_t cap = 0;
	for (size_t pos = 0; pos < l->len;) {
		struct journal_record r;
		uint64_t seq;
		long long got = parse_one(l->buf, l->len, pos, &r, &seq);
		if (got < 0)
			return ENOMEM;
		if (got == 0)
			break;
		if (l->n && seq != l->last_seq + 1) {
			free((void *)r.w);
			break;
		}
		struct journal_record *more = array_reserve(l->r, &cap, l->n + 1, sizeof *more, 8);
		if (!more) {
			free((void *)r.w);
			return ENOMEM;
		}
		l->r = more;
		l->r[l->n++] = r;
		l->last_seq = seq;
		pos += (size_t)got;
		l->end = pos;
	}
	return 0;
}

/* Reads the journal open as fd and parses it: 0, or an errno. */
static int load(const struct store_io *io, int fd, struct loaded *l)
{
	struct stat st;
	memset(l, 0, sizeof *l);
	if (io->fstat(fd, &st))
		return errno;
	if ((uint64_t)st.st_size > JOURNAL_MAX)
		return EFBIG;
	l->len = (size_t)st.st_size;
	if (!(l->buf = malloc(l->len ? l->len : 1)))
		return ENOMEM;
	if (store_pread_full(io, fd, l->buf, l->len, 0))
		return errno;
	return parse_all(l);
}

/* Makes the records' writes into the archive, not synced: 0, or an
 * errno.  A filled write's bytes are copied from the journal, where the
 * one record (n is 1) sits at `at`; buf holds JOURNAL_FILL_BYTES. */
static int apply(const struct journal *j, const struct journal_channel *c,
		 const struct journal_record *r, size_t n, uint64_t at,
		 uint8_t *buf)
{
	const struct store_io *io = c->io;
	for (size_t k = 0; k < n; k++) {
		uint64_t pos = at + HEAD;
		for (size_t i = 0; i < r[k].n; i++) {
			const struct journal_write *w = &r[k].w[i];
			pos += WRITE_HEAD;
			if (w->data ? store_pwrite_full(io, *c->fd, w->data, w->len, w->offset)
				    : store_copy_span(io, j->fd, *c->fd, pos, w->offset, w->len,
						      buf, JOURNAL_FILL_BYTES))
				return errno;
			pos += w->len;
			/* Only a head start: its failure is the checkpoint's. */
			if (w->len >= WRITEBACK_EARLY)
				io->sync_file_range(*c->fd, (off_t)w->offset, (off_t)w->len,
						    SYNC_FILE_RANGE_WRITE);
		}
		if (r[k].size && io->ftruncate(*c->fd, (off_t)r[k].size))
			return errno;
	}
	return 0;
}

/* Makes every loaded record's writes into the archive and syncs it: 0,
 * or an errno. */
static int apply_synced(const struct journal *j, const struct journal_channel *c,
			const struct loaded *l)
{
	int err = apply(j, c, l->r, l->n, 0, NULL);
	return err ? err : c->io->fdatasync(*c->fd) ? errno : 0;
}

/* ---- the mount's journal ---------------------------------------------- */

/* Opens the journal at the mount's first commit: a new file (its
 * directory synced), or one a recovery could not remove, whose whole
 * records count as live (replayed already; again, harmlessly).  0, or
 * an errno. */
static int open_journal(struct journal *j, const struct journal_channel *c, const char *jpath)
{
	const struct store_io *io = c->io;
	struct loaded l;
	int fd = io->open(jpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	int err = load(io, fd, &l);
	if (!err && store_sync_parent(io, jpath))
		err = errno;
	if (err) {
		loaded_free(&l);
		io->close(fd);
		return err;
	}
	j->fd = fd;
	j->end = l.end;
	j->file_len = l.len;
	j->live = l.n;
	if (l.n)
		j->next_seq = l.last_seq + 1;
	loaded_free(&l);
	return 0;
}

int journal_checkpoint(struct journal *j, const struct journal_channel *c, struct fs_diag *why)
{
	if (c->hook && c->hook(c->hook_ctx, why))
		return EIO;
	if (j->archive_unsynced) {
		if (c->io->fdatasync(*c->fd)) {
			fs_diag_printf(why, "syncing %s: %s", c->path, strerror(errno));
			return EIO;
		}
		j->archive_unsynced = false;
	}
	j->live = 0;
	j->end = 0;
	return 0;
}

/* Cuts off a record that failed at `at`, so that it is never replayed:
 * 0, or an errno. */
static int cut_off(struct journal *j, const struct journal_channel *c, uint64_t at)
{
	if (c->io->ftruncate(j->fd, (off_t)at))
		return errno;
	j->file_len = at;
	return 0;
}

/* Writes record r (len bytes, its filled writes made in buf) after the
 * live ones, syncs it, and makes its writes into the archive: as
 * journal_commit. */
static int journal_append(struct journal *j, const struct journal_channel *c,
			  const struct journal_record *r, size_t len,
			  uint8_t *buf, bool *pending, struct fs_diag *why)
{
	const struct store_io *io = c->io;
	char jpath[4096];
	uint64_t at = j->end;
	journal_path(jpath, sizeof jpath, c->path);
	bool reading = false;
	int cause = write_record(io, j->fd, r, j->next_seq, at, buf, &reading);
	if (!cause && io->fdatasync(j->fd))
		cause = errno;
	if (cause) {
		int err = cause == ENOSPC || cause == EDQUOT ? cause : EIO;
		if (at + len > j->file_len)
			j->file_len = at + len;
		if (cut_off(j, c, at)) {
			/* It may be whole on disk: then it is decided. */
			fs_diag_printf(why, "writing %s: %s (the commit may still land: "
				       "the next commit, or the next mount, replays it)", jpath,
				       strerror(cause));
			j->end = at + len;
			j->live++;
			j->next_seq++;
			*pending = true;
			return EIO;
		}
		if (reading)
			fs_diag_printf(why, "reading %s: %s", c->path, strerror(cause));
		else
			fs_diag_printf(why, "writing %s: %s", jpath, strerror(cause));
		return err;
	}
	j->end = at + len;
	if (j->end > j->file_len)
		j->file_len = j->end;
	j->live++;
	j->next_seq++;
	/* From here the commit will happen: now, or by replay at the next
	 * commit or mount if we die or the disk refuses. */
	j->archive_unsynced = true;
	if ((cause = apply(j, c, r, 1, at, buf))) {
		fs_diag_printf(why, "writing the archive: %s (the journal %s will "
			       "complete it: at the next commit, or the next mount)",
			       strerror(cause), jpath);
		*pending = true;
		return EIO;
	}
	return 0;
}

int journal_commit(struct journal *j, const struct journal_channel *c,
		   const struct journal_record *r, bool *pending,
		   struct fs_diag *why)
{
	char jpath[4096];
	size_t len;
	*pending = false;
	journal_path(jpath, sizeof jpath, c->path);
	if (!(len = (size_t)record_len(r))) {
		fs_diag_printf(why, "the journal of this commit is too large");
		return EFBIG;
	}
	bool start_over = j->end && len >= j->reuse_min && j->end + len > j->file_len;
	if ((j->live >= j->live_max || j->end >= JOURNAL_LIVE_BYTES || start_over) &&
	    journal_checkpoint(j, c, why))
		return EIO;
	int cause = j->fd < 0 ? open_journal(j, c, jpath) : 0;
	if (cause) {
		fs_diag_printf(why, "opening %s: %s", jpath, strerror(cause));
		return cause == ENOSPC || cause == EDQUOT ? cause : EIO;
	}
	uint8_t *buf = NULL;
	for (size_t i = 0; i < r->n && !buf; i++)
		if (!r->w[i].data && !(buf = malloc(JOURNAL_FILL_BYTES)))
			return ENOMEM;
	int err = journal_append(j, c, r, len, buf, pending, why);
	free(buf);
	return err;
}

int journal_retire(struct journal *j, const struct journal_channel *c, struct fs_diag *why)
{
	char jpath[4096];
	journal_path(jpath, sizeof jpath, c->path);
	if (journal_checkpoint(j, c, why))
		return EIO;
	if (j->fd < 0) {
		/* Not opened by this mount: one its recovery could not remove
		 * goes now. */
		if (c->io->unlink(jpath) == 0 && store_sync_parent(c->io, jpath) == 0)
			return 0;
		if (errno == ENOENT)
			return 0;
		fs_diag_printf(why, "removing %s: %s", jpath, strerror(errno));
		return EIO;
	}
	if (j->file_len == 0)
		return 0;
	if (c->io->ftruncate(j->fd, 0) || c->io->fdatasync(j->fd)) {
		fs_diag_printf(why, "emptying %s: %s", jpath, strerror(errno));
		return EIO;
	}
	j->file_len = 0;
	return 0;
}

int journal_close(struct journal *j, const struct journal_channel *c, bool pending,
		  struct fs_diag *why)
{
	char jpath[4096];
	int err = 0;
	free_notes(j); /* not forgotten: the journal stays for the next mount */
	if (j->fd < 0)
		return 0;
	journal_path(jpath, sizeof jpath, c->path);
	if (pending) {
		/* Left for the next mount, with what its notes' owner holds. */
		if (c->hook)
			c->hook(c->hook_ctx, why);
		c->io->close(j->fd);
		j->fd = -1;
		return 0;
	}
	if (journal_checkpoint(j, c, why))
		err = EIO;
	c->io->close(j->fd);
	j->fd = -1;
	if (!err && (c->io->unlink(jpath) || store_sync_parent(c->io, jpath))) {
		fs_diag_printf(why, "removing %s: %s", jpath, strerror(errno));
		err = EIO;
	}
	return err;
}

int journal_replay(struct journal *j, const struct journal_channel *c, struct fs_diag *why)
{
	struct loaded l;
	char jpath[4096];
	journal_path(jpath, sizeof jpath, c->path);
	if (j->fd < 0) {
		fs_diag_printf(why, "%s: not open", jpath);
		return EIO;
	}
	int err = 0, cause = load(c->io, j->fd, &l);
	if (cause) {
		fs_diag_printf(why, "reading %s: %s", jpath, strerror(cause));
		err = EIO;
	} else if (l.end < j->end) {
		fs_diag_printf(why, "%s cannot be read back whole", jpath);
		err = EIO;
	} else if ((cause = apply_synced(j, c, &l))) {
		fs_diag_printf(why, "replaying %s: %s", jpath, strerror(cause));
		err = EIO;
	} else {
		j->archive_unsynced = false;
	}
	loaded_free(&l);
	return err;
}

/* Keeps the notes of the records replayed at mount: 0, or ENOMEM. */
static int keep_notes(struct journal *j, const struct loaded *l)
{
	if (!(j->recovered = calloc(l->n ? l->n : 1, sizeof *j->recovered)))
		return ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		if (!l->r[i].note_len)
			continue;
		struct journal_note *n = &j->recovered[j->nrecovered];
		if (!(n->bytes = malloc(l->r[i].note_len)))
			return ENOMEM;
		memcpy(n->bytes, l->r[i].note, l->r[i].note_len);
		n->len = l->r[i].note_len;
		j->nrecovered++;
	}
	return 0;
}

/* Whether [off, off + len) of the archive holds data; not when it
 * cannot be read. */
static bool holds(const struct journal_channel *c, uint64_t off, const uint8_t *data,
		  size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	bool same = buf && !store_pread_full(c->io, *c->fd, buf, len, off) &&
		    !memcmp(buf, data, len);
	free(buf);
	return same;
}

/* Whether the archive already holds what replaying the records would
 * leave: the last length they set, and at each byte below it the last
 * write to it (a journal left by a mount killed after its commits had
 * landed).  Walks the writes newest first, comparing only the bytes no
 * later write covers. */
static bool already_in_archive(const struct journal_channel *c, const struct loaded *l)
{
	struct stat st;
	uint64_t size = 0;
	for (size_t k = l->n; k-- > 0 && !size;)
		size = l->r[k].size;
	if (c->io->fstat(*c->fd, &st) || (size && (uint64_t)st.st_size != size))
		return false;
	if (!size)
		size = (uint64_t)st.st_size;
	/* Bytes covered by later writes, as [from, to) spans. */
	size_t cap = 0, n = 0;
	uint64_t (*done)[2] = NULL;
	bool same = true;
	for (size_t k = l->n; same && k-- > 0;)
		for (size_t i = l->r[k].n; same && i-- > 0;) {
			const struct journal_write *w = &l->r[k].w[i];
			uint64_t from = w->offset, to = w->offset + w->len < size ? w->offset + w->len : size;
			for (uint64_t at = from; same && at < to;) {
				uint64_t next = to; /* the first covered byte at or after `at` */
				bool covered = false;
				for (size_t c = 0; c < n && !covered; c++) {
					if (done[c][0] <= at && at < done[c][1]) {
						at = done[c][1];
						covered = true;
					} else if (done[c][0] > at && done[c][0] < next) {
						next = done[c][0];
					}
				}
				if (covered)
					continue;
				same = holds(c, at, w->data + (at - from), (size_t)(next - at));
				at = next;
			}
			uint64_t (*more)[2] = array_reserve(done, &cap, n + 1, sizeof *done, 16);
			if (!more) {
				same = false;
				break;
			}
			done = more;
			done[n][0] = from;
			done[n++][1] = w->offset + w->len;
		}
	free(done);
	return same;
}

enum journal_recovery journal_recover(struct journal *j, const struct journal_channel *c,
				      struct fs_diag *msg)
{
	const struct store_io *io = c->io;
	char jpath[4096];
	struct loaded l = {0};
	journal_path(jpath, sizeof jpath, c->path);
	msg->msg[0] = '\0';
	int fd = io->open(jpath, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0 && errno == ENOENT)
		return JOURNAL_NONE;
	/* A journal that cannot be read may hold a committed change: the
	 * mount waits for it rather than take the archive as it stands. */
	if (fd < 0) {
		fs_diag_printf(msg, "%s: %s", jpath, strerror(errno));
		return JOURNAL_FAILED;
	}
	int cause = load(io, fd, &l);
	io->close(fd);
	enum journal_recovery r;
	if (cause) {
		fs_diag_printf(msg, "reading %s: %s", jpath, strerror(cause));
		r = JOURNAL_FAILED;
	} else if (!l.n) {
		bool empty = l.len == 0;
		io->unlink(jpath);
		store_sync_parent(io, jpath);
		if (!empty)
			fs_diag_printf(msg, "discarded an incomplete journal (a commit "
				       "that had not returned; the archive was not touched)");
		r = empty ? JOURNAL_NONE : JOURNAL_DISCARDED;
	} else if (!c->writable && already_in_archive(c, &l)) {
		/* A read-only mount changes nothing: a read-write one removes it. */
		fs_diag_printf(msg, "%s: the commits it holds are in the archive already",
			       jpath);
		r = JOURNAL_HELD;
	} else if (!c->writable || (cause = apply_synced(j, c, &l))) {
		fs_diag_printf(msg, "%s: a committed change awaits replay but the "
			       "archive cannot be written%s%s", jpath, c->writable ? ": " : "",
			       c->writable ? strerror(cause) : "");
		r = JOURNAL_FAILED;
	} else if (keep_notes(j, &l)) {
		free_notes(j);
		fs_diag_printf(msg, "%s: out of memory", jpath);
		r = JOURNAL_FAILED;
	} else {
		fs_diag_printf(msg, "replayed the journal of %zu commit%s%s", l.n,
			       l.n == 1 ? "" : "s",
			       l.end < l.len ? " (an incomplete record after them discarded)" : "");
		r = JOURNAL_REPLAYED;
	}
	loaded_free(&l);
	return r;
}

int journal_forget(struct journal *j, const struct journal_channel *c, struct fs_diag *why)
{
	char jpath[4096];
	bool had = j->recovered != NULL;
	free_notes(j);
	if (!had)
		return 0;
	journal_path(jpath, sizeof jpath, c->path);
	/* Left, it would only be replayed again: the archive holds it. */
	if (c->io->unlink(jpath) || store_sync_parent(c->io, jpath)) {
		fs_diag_printf(why, "removing %s: %s", jpath, strerror(errno));
		return EIO;
	}
	return 0;
}
