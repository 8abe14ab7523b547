#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "bytes.h"
#include "store.h"

/* The journal: "MHFUJNL1", u32 count, then per write u64 offset, u32
 * length and the bytes, then a u32 CRC-32 of everything before it. */
#define MAGIC "MHFUJNL1"
#define MAGIC_LEN 8
#define JOURNAL_MAX (1ull << 32)

static void journal_path(char *buf, size_t len, const char *archive)
{
	snprintf(buf, len, "%s.mhfu-journal", archive);
}

/* The journal's bytes for the writes; malloc'ed. */
static uint8_t *serialize(const struct journal_write *w, size_t n, size_t *len)
{
	size_t total = MAGIC_LEN + 4 + 4;
	for (size_t i = 0; i < n; i++)
		total += 12 + w[i].len;
	if (total > JOURNAL_MAX)
		return NULL;
	uint8_t *buf = malloc(total), *p = buf;
	if (!buf)
		return NULL;
	memcpy(p, MAGIC, MAGIC_LEN);
	put_le32(p + MAGIC_LEN, (uint32_t)n);
	p += MAGIC_LEN + 4;
	for (size_t i = 0; i < n; i++) {
		put_le32(p, (uint32_t)w[i].offset);
		put_le32(p + 4, (uint32_t)(w[i].offset >> 32));
		put_le32(p + 8, (uint32_t)w[i].len);
		memcpy(p + 12, w[i].data, w[i].len);
		p += 12 + w[i].len;
	}
	put_le32(p, (uint32_t)crc32(0, buf, (uInt)(p - buf)));
	*len = total;
	return buf;
}

/* Writes the records into the archive and syncs it: 0, or -1 with errno. */
static int apply(const struct store *s, const struct journal_write *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (store_pwrite_full(s->io, *s->fd, w[i].data, w[i].len, w[i].offset))
			return -1;
	return s->io->fdatasync(*s->fd);
}

int journal_commit(const struct store *s, const struct journal_write *w, size_t n,
		   bool *pending, struct fs_diag *why)
{
	const struct store_io *io = s->io;
	char jpath[4096];
	size_t len;
	*pending = false;
	uint8_t *bytes = serialize(w, n, &len);
	if (!bytes) {
		fs_diag_printf(why, "the journal of this commit is too large");
		return ENOMEM;
	}
	journal_path(jpath, sizeof jpath, s->path);
	/* O_EXCL: a journal still there is a commit awaiting replay, never
	 * to be overwritten. */
	int jfd = io->open(jpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (jfd < 0 && errno == EEXIST) {
		fs_diag_printf(why, "%s awaits replay", jpath);
		*pending = true;
		free(bytes);
		return EIO;
	}
	if (jfd < 0 || store_pwrite_full(io, jfd, bytes, len, 0) || io->fsync(jfd) ||
	    store_sync_parent(io, jpath)) {
		int err = errno == ENOSPC || errno == EDQUOT ? errno : EIO;
		fs_diag_printf(why, "writing %s: %s", jpath, strerror(errno));
		if (jfd >= 0)
			io->close(jfd);
		io->unlink(jpath);
		free(bytes);
		return err;
	}
	io->close(jfd);
	free(bytes);
	/* From here the commit will happen: now, or by replay at the next
	 * mount if we die or the disk refuses. */
	if (apply(s, w, n)) {
		fs_diag_printf(why, "writing the archive: %s (the journal %s "
			 "will complete it: at the next commit, or the next mount)",
			 strerror(errno), jpath);
		*pending = true;
		return EIO;
	}
	/* A journal left behind would be replayed over what later commits
	 * write (a rewrite moves entries): until it is gone, the commit
	 * stays pending, and the next commit replays and removes it first. */
	if (io->unlink(jpath)) {
		fs_diag_printf(why, "removing %s: %s (the next commit, or the next "
			 "mount, will replay and remove it)", jpath, strerror(errno));
		*pending = true;
		return EIO;
	}
	return 0;
}

/* What reading a journal back found. */
enum loaded {
	LOADED_COMPLETE,   /* magic, records that fit, the checksum */
	LOADED_TORN,       /* anything else: a commit that never returned */
	LOADED_UNREADABLE, /* a read or an allocation failed, errno says why:
			      no fact about the journal */
	LOADED_ABSENT,     /* there is no journal */
	LOADED_UNOPENED,   /* it cannot be opened, errno says why */
};

/* Reads the journal open as jfd; when complete, its n writes are in *w,
 * pointing into *buf (both malloc'ed, freed by the caller whatever the
 * result). */
static enum loaded load(const struct store_io *io, int jfd, uint8_t **bufp,
			struct journal_write **wp, size_t *np)
{
	struct stat st;
	*bufp = NULL;
	*wp = NULL;
	*np = 0;
	if (io->fstat(jfd, &st))
		return LOADED_UNREADABLE;
	if ((uint64_t)st.st_size > JOURNAL_MAX)
		return LOADED_TORN;
	size_t len = (size_t)st.st_size;
	uint8_t *buf = *bufp = malloc(len + 1);
	if (!buf)
		return LOADED_UNREADABLE;
	if (store_pread_full(io, jfd, buf, len, 0))
		return LOADED_UNREADABLE;
	if (len < MAGIC_LEN + 8 || memcmp(buf, MAGIC, MAGIC_LEN) ||
	    le32(buf + len - 4) != (uint32_t)crc32(0, buf, (uInt)(len - 4)))
		return LOADED_TORN;
	size_t n = le32(buf + MAGIC_LEN), pos = MAGIC_LEN + 4;
	struct journal_write *w = *wp = calloc(n ? n : 1, sizeof *w);
	if (!w)
		return LOADED_UNREADABLE;
	for (size_t i = 0; i < n; i++) {
		if (pos + 12 > len - 4)
			return LOADED_TORN;
		w[i].offset = le32(buf + pos) | (uint64_t)le32(buf + pos + 4) << 32;
		w[i].len = le32(buf + pos + 8);
		w[i].data = buf + pos + 12;
		if (w[i].len > len - 4 - pos - 12)
			return LOADED_TORN;
		pos += 12 + w[i].len;
	}
	*np = n;
	return pos == len - 4 ? LOADED_COMPLETE : LOADED_TORN;
}

/* Opens the journal of s (its path in jpath) and loads it as load()
 * does; *cause is errno as the open or the load left it. */
static enum loaded open_load(const struct store *s, char *jpath, size_t jpath_len,
			     uint8_t **bufp, struct journal_write **wp, size_t *np, int *cause)
{
	*bufp = NULL;
	*wp = NULL;
	journal_path(jpath, jpath_len, s->path);
	int jfd = s->io->open(jpath, O_RDONLY | O_CLOEXEC, 0);
	if (jfd < 0) {
		*cause = errno;
		return errno == ENOENT ? LOADED_ABSENT : LOADED_UNOPENED;
	}
	enum loaded loaded = load(s->io, jfd, bufp, wp, np);
	*cause = errno;
	s->io->close(jfd);
	return loaded;
}

int journal_replay(const struct store *s, struct fs_diag *why)
{
	const struct store_io *io = s->io;
	char jpath[4096];
	uint8_t *buf;
	struct journal_write *w;
	size_t n;
	int cause, err = 0;
	enum loaded loaded = open_load(s, jpath, sizeof jpath, &buf, &w, &n, &cause);
	if (loaded == LOADED_ABSENT || loaded == LOADED_UNOPENED) {
		fs_diag_printf(why, "%s: %s", jpath, strerror(cause));
		err = EIO;
	} else if (loaded == LOADED_UNREADABLE) {
		fs_diag_printf(why, "reading %s: %s", jpath, strerror(cause));
		err = EIO;
	} else if (loaded == LOADED_TORN) {
		fs_diag_printf(why, "%s cannot be read back whole", jpath);
		err = EIO;
	} else if (apply(s, w, n)) {
		fs_diag_printf(why, "replaying %s: %s", jpath, strerror(errno));
		err = EIO;
	} else if (io->unlink(jpath) || store_sync_parent(io, jpath)) {
		fs_diag_printf(why, "removing %s: %s", jpath, strerror(errno));
		err = EIO;
	}
	free(w);
	free(buf);
	return err;
}

enum journal_recovery journal_recover(const struct store *s, struct fs_diag *msg)
{
	const struct store_io *io = s->io;
	char jpath[4096];
	uint8_t *buf;
	struct journal_write *w;
	size_t n;
	int cause;
	enum loaded loaded = open_load(s, jpath, sizeof jpath, &buf, &w, &n, &cause);
	if (loaded == LOADED_ABSENT) {
		msg->msg[0] = '\0';
		return JOURNAL_NONE;
	}
	/* A journal that cannot be read may hold a committed change: the
	 * mount waits for it rather than take the archive as it stands. */
	if (loaded == LOADED_UNOPENED) {
		fs_diag_printf(msg, "%s: %s", jpath, strerror(cause));
		return JOURNAL_FAILED;
	}
	enum journal_recovery r;
	if (loaded == LOADED_UNREADABLE) {
		fs_diag_printf(msg, "reading %s: %s", jpath, strerror(cause));
		r = JOURNAL_FAILED;
	} else if (loaded == LOADED_TORN) {
		io->unlink(jpath);
		store_sync_parent(io, jpath);
		fs_diag_printf(msg, "discarded an incomplete journal (a commit "
			 "that had not returned; the archive was not touched)");
		r = JOURNAL_DISCARDED;
	} else if (!s->writable || apply(s, w, n)) {
		fs_diag_printf(msg, "%s: a committed change awaits replay but the "
			 "archive cannot be written%s%s", jpath, s->writable ? ": " : "",
			 s->writable ? strerror(errno) : "");
		r = JOURNAL_FAILED;
	} else if (io->unlink(jpath)) {
		/* Left, it would be replayed again over later commits. */
		fs_diag_printf(msg, "%s: replayed into the archive, but cannot be "
			 "removed: %s", jpath, strerror(errno));
		r = JOURNAL_FAILED;
	} else {
		store_sync_parent(io, jpath);
		fs_diag_printf(msg, "replayed the journal of a commit (%zu writes)", n);
		r = JOURNAL_REPLAYED;
	}
	free(w);
	free(buf);
	return r;
}
