/* SPDX-License-Identifier: MIT */
/* The history of commits (history.h). */
#include "history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "buffer.h"
#include "bytes.h"
#include "crc32.h"
#include "record.h"
#include "same_bytes.h"

#define HISTORY_DIR "history"
#define ORIGINALS_DIR "original"
#define RECORD_MAGIC "MHFUHIS1"
#define ORIGINAL_MAGIC "MHFUORG1"
#define MAGIC_LEN 8
#define RECORD_HEAD 92   /* through the delta's suffix; then path, warnings,
			    the delta's bytes, crc */
#define ORIGINAL_HEAD 28 /* magic, entry, len, crc, z_len; then bytes, crc */
#define TAIL 4           /* the file's CRC-32 */
#define NAME_DIGITS 12

/* ---- bytes ------------------------------------------------------------- */

uint32_t history_crc(const uint8_t *p, size_t len)
{
	return mh_crc32(0, p, len);
}

/* The entry's bytes compressed at `level`, malloc'ed: fast rather than
 * small (the commit waits for it). */
static int squeeze(const uint8_t *p, size_t len, int level, uint8_t **z, size_t *z_len)
{
	uLongf n = compressBound(len);
	if (!(*z = malloc(n ? n : 1)))
		return ENOMEM;
	if (compress2(*z, &n, p, len, level) != Z_OK) {
		free(*z);
		return ENOMEM;
	}
	*z_len = n;
	return 0;
}

/* z[0..z_len) decompressed to exactly len bytes, malloc'ed; EIO when
 * they are not that many. */
static int unsqueeze(const uint8_t *z, size_t z_len, uint64_t len, uint8_t **out)
{
	uLongf n = (uLongf)len;
	if ((uint64_t)n != len || !(*out = malloc(len ? len : 1)))
		return ENOMEM;
	int rc = uncompress(*out, &n, z, z_len);
	if (rc == Z_MEM_ERROR) {
		free(*out);
		return ENOMEM;
	}
	if (rc != Z_OK || n != len) {
		free(*out);
		return EIO;
	}
	return 0;
}

/* ---- deltas ------------------------------------------------------------- */

/* A commit's record keeps what it replaced, not the whole entry: the
 * bytes before and after the change are common to both sides, so the
 * bytes before it are the bytes after it with old[prefix .. old_len -
 * suffix) back in the middle.  A keyframe's edit keeps a few bytes. */
struct delta {
	uint64_t prefix, suffix; /* bytes common to old and new at each end */
};

static struct delta delta_of(const uint8_t *old, size_t old_len, const uint8_t *now,
			     size_t now_len)
{
	size_t common = old_len < now_len ? old_len : now_len;
	size_t p = same_prefix(old, now, common);
	return (struct delta){p, same_suffix(old + old_len, now + now_len, common - p)};
}

/* The bytes before a commit from those after it (now[0..now_len)) and
 * the middle it replaced; malloc'ed, or NULL (ENOMEM, or a delta that
 * does not fit: the record is damaged). */
static uint8_t *undelta(const uint8_t *now, size_t now_len, struct delta d,
			const uint8_t *mid, size_t mid_len, size_t old_len)
{
	if (d.prefix + d.suffix > now_len || d.prefix + mid_len + d.suffix != old_len)
		return NULL;
	uint8_t *old = malloc(old_len ? old_len : 1);
	if (!old)
		return NULL;
	memcpy(old, now, d.prefix);
	memcpy(old + d.prefix, mid, mid_len);
	memcpy(old + d.prefix + mid_len, now + now_len - d.suffix, d.suffix);
	return old;
}

/* ---- files ------------------------------------------------------------- */

/* Writes a file durably under `name`: as `tmp` first, synced, renamed
 * (when tmp is given: the name never holds part of it), then the folder
 * synced.  0 or an errno; nothing is left on failure. */
static int write_durably(int dir, const char *name, const char *tmp, const uint8_t *data,
			 size_t len)
{
	const char *first = tmp ? tmp : name;
	int fd = openat(dir, first, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	int err = record_write_all(fd, data, len);
	if (!err && fsync(fd))
		err = errno;
	close(fd);
	if (!err && tmp && renameat(dir, tmp, dir, name))
		err = errno;
	if (!err && fsync(dir))
		err = errno;
	if (err) {
		unlinkat(dir, first, 0);
		if (tmp)
			unlinkat(dir, name, 0);
	}
	return err;
}

/* Writes a file under `name`, not synced (history_sync does, before the
 * journal record that can rebuild it is retired).  0 or an errno; nothing
 * is left on failure. */
static int write_unsynced(int dir, const char *name, const uint8_t *data, size_t len)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	int err = record_write_all(fd, data, len);
	if (close(fd) && !err)
		err = errno;
	if (err)
		unlinkat(dir, name, 0);
	return err;
}

static void record_name(uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%0*llu", NAME_DIGITS, (unsigned long long)id);
}

static void original_name(uint32_t entry, char *buf, size_t len)
{
	snprintf(buf, len, "%05u", entry);
}

/* A name of all digits, of the given length; its value. */
static bool digits_name(const char *name, size_t want, uint64_t *v)
{
	if (strlen(name) != want || strspn(name, "0123456789") != want)
		return false;
	*v = strtoull(name, NULL, 10);
	return true;
}

/* ---- the record of a commit -------------------------------------------- */

static void commit_free(struct history_commit *c)
{
	free(c->path);
	free(c->warnings);
	free(c->kept);
}

/* The warnings of a report as one line: "CODE message; CODE message". */
static char *warnings_line(const struct rule_report *r)
{
	size_t cap = 1;
	for (size_t i = 0; r && i < r->n; i++)
		cap += strlen(rule_info(r->v[i].code)->name) + strlen(r->v[i].member) +
		       strlen(r->v[i].msg) + 4;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	size_t used = 0;
	s[0] = '\0';
	for (size_t i = 0; r && i < r->n; i++) {
		const struct rule_violation *v = &r->v[i];
		used += (size_t)snprintf(s + used, cap - used, "%s%s %s%s%s", i ? "; " : "",
					 rule_info(v->code)->name, v->member,
					 v->member[0] ? " " : "", v->msg);
	}
	/* One line, one column of .mhfu/history. */
	for (char *p = s; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
	return s;
}

/* The record file of commit c with the previous bytes z; malloc'ed. */
static uint8_t *record_bytes(const struct history_commit *c, struct delta d, const uint8_t *z,
			     size_t z_len, size_t *len)
{
	size_t path_len = strlen(c->path), warn_len = strlen(c->warnings);
	size_t n = RECORD_HEAD + path_len + warn_len + z_len + TAIL;
	uint8_t *f = malloc(n);
	if (!f)
		return NULL;
	memcpy(f, RECORD_MAGIC, MAGIC_LEN);
	put_le64(f + 8, c->id);
	put_le64(f + 16, (uint64_t)c->time.tv_sec);
	put_le32(f + 24, (uint32_t)c->time.tv_nsec);
	put_le32(f + 28, c->entry);
	put_le64(f + 32, c->old_len);
	put_le64(f + 40, c->new_len);
	put_le32(f + 48, c->old_crc);
	put_le32(f + 52, c->new_crc);
	put_le64(f + 56, c->undoes);
	put_le32(f + 64, (uint32_t)path_len);
	put_le32(f + 68, (uint32_t)warn_len);
	put_le32(f + 72, (uint32_t)z_len);
	put_le64(f + 76, d.prefix);
	put_le64(f + 84, d.suffix);
	memcpy(f + RECORD_HEAD, c->path, path_len);
	memcpy(f + RECORD_HEAD + path_len, c->warnings, warn_len);
	memcpy(f + RECORD_HEAD + path_len + warn_len, z, z_len);
	put_le32(f + n - TAIL, history_crc(f, n - TAIL));
	*len = n;
	return f;
}

/* Decodes a record file (its CRC checked): 0, or EIO. */
static int parse_record(const uint8_t *f, size_t len, struct history_commit *c,
			struct delta *d, const uint8_t **z, size_t *z_len)
{
	if (len < RECORD_HEAD + TAIL || memcmp(f, RECORD_MAGIC, MAGIC_LEN))
		return EIO;
	uint64_t path_len = le32(f + 64), warn_len = le32(f + 68), zl = le32(f + 72);
	if (RECORD_HEAD + path_len + warn_len + zl + TAIL != len ||
	    history_crc(f, len - TAIL) != le32(f + len - TAIL))
		return EIO;
	memset(c, 0, sizeof *c);
	c->id = le64(f + 8);
	c->time.tv_sec = (time_t)le64(f + 16);
	c->time.tv_nsec = (long)le32(f + 24) % 1000000000L;
	c->entry = le32(f + 28);
	c->old_len = le64(f + 32);
	c->new_len = le64(f + 40);
	c->old_crc = le32(f + 48);
	c->new_crc = le32(f + 52);
	c->undoes = le64(f + 56);
	c->file_bytes = len;
	c->path = strndup((const char *)f + RECORD_HEAD, path_len);
	c->warnings = strndup((const char *)f + RECORD_HEAD + path_len, warn_len);
	if (!c->path || !c->warnings) {
		free(c->path);
		free(c->warnings);
		return ENOMEM;
	}
	*d = (struct delta){le64(f + 76), le64(f + 84)};
	if (d->prefix + d->suffix > c->old_len || d->prefix + d->suffix > c->new_len) {
		commit_free(c);
		return EIO;
	}
	*z = f + RECORD_HEAD + path_len + warn_len;
	*z_len = zl;
	return 0;
}

/* ---- originals --------------------------------------------------------- */

static uint8_t *original_bytes(uint32_t entry, uint64_t len, uint32_t crc, const uint8_t *z,
			       size_t z_len, size_t *file_len)
{
	size_t n = ORIGINAL_HEAD + z_len + TAIL;
	uint8_t *f = malloc(n);
	if (!f)
		return NULL;
	memcpy(f, ORIGINAL_MAGIC, MAGIC_LEN);
	put_le32(f + 8, entry);
	put_le64(f + 12, len);
	put_le32(f + 20, crc);
	put_le32(f + 24, (uint32_t)z_len);
	memcpy(f + ORIGINAL_HEAD, z, z_len);
	put_le32(f + n - TAIL, history_crc(f, n - TAIL));
	*file_len = n;
	return f;
}

/* Checks an original's file (of `entry`): 0 with its length and CRC, or
 * EIO. */
static int parse_original(const uint8_t *f, size_t len, uint32_t entry, uint64_t *bytes,
			  uint32_t *crc)
{
	if (len < ORIGINAL_HEAD + TAIL || memcmp(f, ORIGINAL_MAGIC, MAGIC_LEN) ||
	    le32(f + 8) != entry || ORIGINAL_HEAD + (uint64_t)le32(f + 24) + TAIL != len ||
	    history_crc(f, len - TAIL) != le32(f + len - TAIL))
		return EIO;
	*bytes = le64(f + 12);
	*crc = le32(f + 20);
	return 0;
}

/* A listing of the open folder dir (its descriptor stays the caller's);
 * NULL on failure. */
static DIR *listing(int dir)
{
	int fd = dup(dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* Learns the originals on disk; removes temporaries and damaged ones (an
 * entry whose original is lost gets a new one at its next commit). */
static void load_originals(struct history *h)
{
	DIR *d = listing(h->originals_dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		uint64_t id;
		uint8_t *f;
		size_t len;
		struct history_original *o;
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(h->originals_dir, e->d_name, 0); /* a temporary */
		if (!digits_name(e->d_name, 5, &id) || id >= h->entries ||
		    record_read_file(h->originals_dir, e->d_name, &f, &len))
			continue;
		if ((o = calloc(1, sizeof *o)) &&
		    !parse_original(f, len, (uint32_t)id, &o->len, &o->crc))
			h->originals[id] = o;
		else if (o)
			unlinkat(h->originals_dir, e->d_name, 0);
		if (!h->originals[id])
			free(o);
		free(f);
	}
	closedir(d);
}

/* Keeps the entry's original from its bytes before its first commit.
 * 0 or an errno. */
static int keep_original(struct history *h, uint32_t entry, const uint8_t *old, size_t old_len,
			 struct fs_diag *why)
{
	struct history_original *o = calloc(1, sizeof *o);
	size_t file_len, z_len;
	uint8_t *f = NULL, *z = NULL;
	int err = 0;
	/* Stored, not compressed: the first commit of an entry waits for
	 * it (a 352 KB PAC took 30 ms at the fastest level). */
	if (o && !squeeze(old, old_len, Z_NO_COMPRESSION, &z, &z_len)) {
		o->len = old_len;
		o->crc = history_crc(old, old_len);
		f = original_bytes(entry, o->len, o->crc, z, z_len, &file_len);
	}
	free(z);
	if (!f)
		err = ENOMEM;
	if (!err && h->originals_dir >= 0) {
		char name[16], tmp[32];
		original_name(entry, name, sizeof name);
		snprintf(tmp, sizeof tmp, ".%s.tmp", name);
		if ((err = write_durably(h->originals_dir, name, tmp, f, file_len)))
			fs_diag_printf(why, "keeping the entry's original in the record: %s",
				       strerror(err));
		free(f);
	} else if (!err) {
		o->kept = f;
	}
	if (err) {
		if (!why->msg[0])
			fs_diag_printf(why, "out of memory");
		free(o);
		return err;
	}
	h->originals[entry] = o;
	return 0;
}

/* ---- open and close ---------------------------------------------------- */

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct history_commit *)a)->id;
	uint64_t y = ((const struct history_commit *)b)->id;
	return x < y ? -1 : x > y;
}

static int add_commit(struct history *h, const struct history_commit *c)
{
	struct history_commit *more = array_reserve(h->commits, &h->cap, h->n + 1, sizeof *more, 64);
	if (!more)
		return ENOMEM;
	h->commits = more;
	h->commits[h->n++] = *c;
	h->bytes += c->file_bytes;
	if (c->id >= h->next_id)
		h->next_id = c->id + 1;
	return 0;
}

/* Removes commit i, and its file. */
static void drop_commit(struct history *h, size_t i)
{
	struct history_commit *c = &h->commits[i];
	if (h->dir >= 0) {
		char name[32];
		record_name(c->id, name, sizeof name);
		unlinkat(h->dir, name, 0);
	}
	h->bytes -= c->file_bytes;
	commit_free(c);
	memmove(c, c + 1, (h->n - i - 1) * sizeof *c);
	h->n--;
}

/* Learns the records on disk (headers checked, the previous bytes only
 * when an undo reads them), oldest first; removes damaged ones. */
static void load_records(struct history *h)
{
	DIR *d = listing(h->dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		uint64_t id;
		uint8_t *f;
		size_t len, z_len;
		const uint8_t *z;
		struct history_commit c;
		struct delta d;
		if (!digits_name(e->d_name, NAME_DIGITS, &id))
			continue;
		/* Ids are never given twice while a record of one is there. */
		if (id >= h->next_id)
			h->next_id = id + 1;
		if (record_read_file(h->dir, e->d_name, &f, &len))
			continue;
		int err = parse_record(f, len, &c, &d, &z, &z_len);
		if (!err && (c.id != id || c.entry >= h->entries))
			err = EIO;
		if (err == EIO)
			unlinkat(h->dir, e->d_name, 0);
		else if (!err && add_commit(h, &c))
			commit_free(&c);
		free(f);
	}
	closedir(d);
	if (h->n)
		qsort(h->commits, h->n, sizeof *h->commits, by_id);
}

/* Note 3: keeps the records whose bytes are the next record's of their
 * entry, or the entry's now. */
static void check_chains(struct history *h, history_current_fn *current, void *ctx)
{
	for (size_t i = h->n; i-- > 0;) {
		const struct history_commit *c = &h->commits[i], *next = NULL;
		for (size_t j = i + 1; j < h->n && !next; j++)
			if (h->commits[j].entry == c->entry)
				next = &h->commits[j];
		uint64_t len;
		uint32_t crc;
		bool stands = next ? next->old_len == c->new_len && next->old_crc == c->new_crc
				   : !current(ctx, c->entry, &len, &crc) && len == c->new_len &&
					     crc == c->new_crc;
		if (!stands)
			drop_commit(h, i);
	}
}

/* Drops the oldest records past the bounds, never the newest. */
static void trim(struct history *h)
{
	while (h->n > 1 && (h->n > h->max_commits || h->bytes > h->max_bytes))
		drop_commit(h, 0);
}

/* A subfolder of the record, created if missing; -1 on failure. */
static int open_subdir(int record_dir, const char *name)
{
	if (mkdirat(record_dir, name, 0700) && errno != EEXIST)
		return -1;
	return openat(record_dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Note 2: the records the journal replayed at mount, written again,
 * synced, whatever the power loss left of them. */
static void adopt_notes(struct history *h, const struct journal_note *notes, size_t n)
{
	bool wrote = false;
	for (size_t i = 0; i < n; i++) {
		struct history_commit c;
		struct delta d;
		const uint8_t *z;
		size_t z_len;
		char name[32];
		if (parse_record(notes[i].bytes, notes[i].len, &c, &d, &z, &z_len))
			continue;
		record_name(c.id, name, sizeof name);
		commit_free(&c);
		int fd = openat(h->dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			continue;
		if (!record_write_all(fd, notes[i].bytes, notes[i].len))
			fsync(fd);
		close(fd);
		wrote = true;
	}
	if (wrote)
		fsync(h->dir);
}

int history_open(struct history *h, int record_dir, uint32_t entries, size_t max_commits,
		 const struct journal_note *recovered, size_t nrecovered,
		 history_current_fn *current, void *ctx, struct fs_diag *msg)
{
	memset(h, 0, sizeof *h);
	h->dir = h->originals_dir = -1;
	h->entries = entries;
	h->next_id = 1;
	h->max_commits = max_commits ? max_commits : HISTORY_MAX_COMMITS;
	h->max_bytes = HISTORY_MAX_BYTES;
	pthread_mutex_init(&h->lock, NULL);
	if (!(h->originals = calloc(entries ? entries : 1, sizeof *h->originals))) {
		fs_diag_printf(msg, "out of memory");
		return ENOMEM;
	}
	if (record_dir < 0)
		return 0;
	h->dir = open_subdir(record_dir, HISTORY_DIR);
	h->originals_dir = h->dir >= 0 ? open_subdir(record_dir, ORIGINALS_DIR) : -1;
	if (h->dir < 0 || h->originals_dir < 0) {
		int err = errno;
		fs_diag_printf(msg, "%s/: %s", h->dir < 0 ? HISTORY_DIR : ORIGINALS_DIR,
			       strerror(err));
		if (h->dir >= 0)
			close(h->dir);
		h->dir = -1;
		return err;
	}
	load_originals(h);
	adopt_notes(h, recovered, nrecovered);
	load_records(h);
	check_chains(h, current, ctx);
	trim(h); /* a smaller -o history= than the last mount's */
	return 0;
}

void history_close(struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		commit_free(&h->commits[i]);
	free(h->commits);
	for (uint32_t i = 0; h->originals && i < h->entries; i++) {
		if (!h->originals[i])
			continue;
		free(h->originals[i]->kept);
		free(atomic_load(&h->originals[i]->bytes));
		free(h->originals[i]);
	}
	free(h->originals);
	free(h->note);
	free(h->unsynced);
	if (h->dir >= 0)
		close(h->dir);
	if (h->originals_dir >= 0)
		close(h->originals_dir);
	pthread_mutex_destroy(&h->lock);
	memset(h, 0, sizeof *h);
	h->dir = h->originals_dir = -1;
}

/* ---- commits ----------------------------------------------------------- */

/* Notes a record written unsynced, for history_sync. */
static int remember_unsynced(struct history *h, uint64_t id)
{
	uint64_t *more = array_reserve(h->unsynced, &h->unsynced_cap, h->nunsynced + 1,
				       sizeof *more, 64);
	if (!more)
		return ENOMEM;
	h->unsynced = more;
	h->unsynced[h->nunsynced++] = id;
	return 0;
}

int history_sync(struct history *h, struct fs_diag *why)
{
	int err = 0;
	for (size_t i = 0; !err && i < h->nunsynced; i++) {
		char name[32];
		record_name(h->unsynced[i], name, sizeof name);
		int fd = openat(h->dir, name, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue; /* taken back, or past the bounds */
		if (fd < 0 || fsync(fd))
			err = errno;
		if (fd >= 0)
			close(fd);
		if (err)
			fs_diag_printf(why, "syncing history/%s in the record: %s", name,
				       strerror(err));
	}
	if (!err && h->nunsynced && fsync(h->dir)) {
		err = errno;
		fs_diag_printf(why, "syncing history/ in the record: %s", strerror(err));
	}
	if (!err)
		h->nunsynced = 0;
	return err;
}

int history_hook(void *ctx, struct fs_diag *why)
{
	return history_sync(ctx, why);
}


int history_prepare(struct history *h, const struct history_change *ch, uint64_t *id,
		    struct fs_diag *why)
{
	struct history_commit c = {.id = h->next_id, .entry = ch->entry,
				   .old_len = ch->old_len, .new_len = ch->now_len,
				   .old_crc = history_crc(ch->old, ch->old_len),
				   .new_crc = history_crc(ch->now, ch->now_len),
				   .undoes = ch->undoes};
	uint8_t *z = NULL, *f = NULL;
	size_t z_len = 0, f_len = 0;
	int err = 0;
	clock_gettime(CLOCK_REALTIME, &c.time);
	c.path = strdup(ch->path);
	c.warnings = warnings_line(ch->warnings);
	struct delta d = delta_of(ch->old, ch->old_len, ch->now, ch->now_len);
	if (!c.path || !c.warnings ||
	    squeeze(ch->old + d.prefix, ch->old_len - d.prefix - d.suffix, Z_BEST_SPEED, &z,
		    &z_len))
		err = ENOMEM;
	if (!err && !h->originals[ch->entry])
		err = keep_original(h, ch->entry, ch->old, ch->old_len, why);
	if (!err && !(f = record_bytes(&c, d, z, z_len, &f_len)))
		err = ENOMEM;
	c.file_bytes = f_len;
	if (!err && h->dir >= 0) {
		char name[32];
		record_name(c.id, name, sizeof name);
		if ((err = write_unsynced(h->dir, name, f, f_len)))
			fs_diag_printf(why, "keeping the commit's history in the record: %s",
				       strerror(err));
		else if ((err = remember_unsynced(h, c.id)))
			unlinkat(h->dir, name, 0);
	}
	if (!err && h->dir < 0) {
		c.kept = f;
		f = NULL;
	}
	if (!err && (err = add_commit(h, &c)) && h->dir >= 0) {
		char name[32];
		record_name(c.id, name, sizeof name);
		unlinkat(h->dir, name, 0);
		h->nunsynced--;
	}
	free(z);
	free(h->note);
	h->note = NULL;
	h->note_len = 0;
	if (err) {
		free(f);
		if (!why->msg[0])
			fs_diag_printf(why, "out of memory keeping the commit's history");
		commit_free(&c);
		return err;
	}
	/* The journal carries the record (history.h note 2). */
	h->note = f;
	h->note_len = f ? f_len : 0;
	*id = c.id;
	return 0;
}

void history_settle(struct history *h, uint64_t id, bool landed)
{
	for (size_t i = h->n; !landed && i-- > 0;)
		if (h->commits[i].id == id) {
			drop_commit(h, i);
			/* The id may come again: nothing refers to it. */
			if (id + 1 == h->next_id)
				h->next_id = id;
			return;
		}
	/* The oldest go once the newest has landed. */
	if (landed)
		trim(h);
}

const struct history_commit *history_find(const struct history *h, uint64_t id)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->commits[i].id == id)
			return &h->commits[i];
	return NULL;
}

/* The bytes before commit c from those after it, checked: 0, or an errno
 * with the reason in why. */
static int step_back(struct history *h, const struct history_commit *c, const uint8_t *after,
		     size_t after_len, uint8_t **before, struct fs_diag *why)
{
	uint8_t *f = c->kept, *mid = NULL;
	size_t f_len = c->file_bytes, z_len;
	const uint8_t *z;
	struct history_commit again;
	struct delta d;
	char name[32];
	int err = 0;
	record_name(c->id, name, sizeof name);
	if (!f && (err = record_read_file(h->dir, name, &f, &f_len))) {
		fs_diag_printf(why, "history/%s: %s", name, strerror(err));
		return err == ENOENT ? EIO : err;
	}
	if (!(err = parse_record(f, f_len, &again, &d, &z, &z_len))) {
		commit_free(&again);
		err = unsqueeze(z, z_len, c->old_len - d.prefix - d.suffix, &mid);
	}
	if (!err && !(*before = undelta(after, after_len, d, mid, c->old_len - d.prefix - d.suffix,
					c->old_len)))
		err = ENOMEM;
	if (!err && history_crc(*before, c->old_len) != c->old_crc) {
		free(*before);
		err = EIO;
	}
	if (f != c->kept)
		free(f);
	free(mid);
	if (err == EIO)
		fs_diag_printf(why, "history/%s is damaged", name);
	else if (err)
		fs_diag_printf(why, "%s", strerror(err));
	return err;
}

int history_previous(struct history *h, const struct history_commit *c, const uint8_t *now,
		     size_t now_len, uint8_t **bytes, size_t *len, struct fs_diag *why)
{
	uint8_t *cur = malloc(now_len ? now_len : 1);
	size_t cur_len = now_len;
	if (!cur)
		return ENOMEM;
	memcpy(cur, now, now_len);
	/* From the entry as it is, back through its later commits to c. */
	for (size_t i = h->n; i-- > 0 && h->commits[i].id >= c->id;) {
		const struct history_commit *r = &h->commits[i];
		uint8_t *before;
		if (r->entry != c->entry)
			continue;
		if (cur_len != r->new_len || history_crc(cur, cur_len) != r->new_crc) {
			fs_diag_printf(why, "the entry is not as commit %llu left it: changed "
				       "outside this mount", (unsigned long long)r->id);
			free(cur);
			return EIO;
		}
		int err = step_back(h, r, cur, cur_len, &before, why);
		free(cur);
		if (err)
			return err;
		cur = before;
		cur_len = (size_t)r->old_len;
	}
	*bytes = cur;
	*len = cur_len;
	return 0;
}

/* ---- originals, read ---------------------------------------------------- */

bool history_changed(const struct history *h, uint32_t entry)
{
	return entry < h->entries && h->originals[entry];
}

uint64_t history_original_len(const struct history *h, uint32_t entry)
{
	return history_changed(h, entry) ? h->originals[entry]->len : 0;
}

int history_original(struct history *h, uint32_t entry, const uint8_t **bytes, size_t *len)
{
	if (!history_changed(h, entry))
		return ENOENT;
	struct history_original *o = h->originals[entry];
	uint8_t *b = atomic_load_explicit(&o->bytes, memory_order_acquire);
	int err = 0;
	if (!b) {
		pthread_mutex_lock(&h->lock);
		if (!(b = atomic_load(&o->bytes))) {
			uint8_t *f = o->kept;
			size_t f_len = 0;
			char name[16];
			original_name(entry, name, sizeof name);
			if (!f)
				err = record_read_file(h->originals_dir, name, &f, &f_len);
			else
				f_len = ORIGINAL_HEAD + le32(f + 24) + TAIL;
			uint64_t l;
			uint32_t crc;
			if (!err)
				err = parse_original(f, f_len, entry, &l, &crc);
			if (!err)
				err = unsqueeze(f + ORIGINAL_HEAD, le32(f + 24), o->len, &b);
			if (!err && history_crc(b, o->len) != o->crc) {
				free(b);
				err = EIO;
			}
			if (f != o->kept)
				free(f);
			if (!err)
				atomic_store_explicit(&o->bytes, b, memory_order_release);
		}
		pthread_mutex_unlock(&h->lock);
	}
	if (err)
		return err == ENOENT ? EIO : err;
	*bytes = b;
	*len = (size_t)o->len;
	return 0;
}

bool history_next_changed(const struct history *h, uint32_t from, uint32_t *entry)
{
	for (uint32_t i = from; i < h->entries; i++)
		if (h->originals[i]) {
			*entry = i;
			return true;
		}
	return false;
}
