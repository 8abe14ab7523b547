/* SPDX-License-Identifier: MIT */
#include "archive.h"

#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cipher.h"
#include "kinds.h"
#include "pac.h"
#include "names.h"

/* Entries larger than this are shown raw only: expanding one means
 * holding it whole in memory. */
#define TREE_MAX_BYTES (256u << 20)

/* Listing the root reads every entry's head (unless the record's kinds
 * file names them: kinds.h); heads closer than this are
 * read with what lies between them, up to SNIFF_CHUNK in one request. */
#define SNIFF_GAP_MAX (128u << 10)
#define SNIFF_CHUNK (4u << 20)

static void drop_caches(struct archive *ar, uint32_t id, bool carry);
static void forget_decoded(struct archive *ar, uint32_t id);

static int read_backing(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct archive *ar = ctx;
	return store_pread_full(ar->store.io, ar->fd, buf, len, off);
}

/* Sets the game: -o game= when given, else what the archive tells.  An
 * encrypted archive whose game cannot be told, or a -o game= its plain
 * entries contradict, is mounted with a warning: its entries may read as
 * garbage, and the user is the one who can say.  (In a decrypted archive
 * every entry is plain whatever the game.) */
static void settle_game(struct archive *ar, enum databin_game game)
{
	struct databin_game_clue clue;
	char entry[64] = "";
	databin_tell_game(&ar->db, read_backing, ar, &clue);
	ar->db.game = game != GAME_UNKNOWN ? game : clue.game;
	static const char *const FROM[] = {
		[CLUE_NONE] = "nothing", [CLUE_MAGIC] = "magics",
		[CLUE_STATISTICS] = "statistics", [CLUE_COUNT] = "entry count"};
	ar->game_from = game != GAME_UNKNOWN ? "-o game=" : FROM[clue.how];
	if (clue.how == CLUE_MAGIC)
		names_entry_label(clue.id, entry, sizeof entry);
	if (game == GAME_UNKNOWN && clue.game == GAME_UNKNOWN && ar->db.encrypted)
		mlog_printf(ar->log, "%s: cannot tell which game this encrypted archive "
			    "is from: every entry is decrypted; if the ones a game stores "
			    "plain read as garbage, mount with -o game=mhfu, mhp2g or mhp3rd",
			    ar->path);
	else if (ar->db.encrypted && game != GAME_UNKNOWN && clue.game != game &&
		 clue.how == CLUE_MAGIC)
		mlog_printf(ar->log, "%s: -o game= says %s, but %s is %s, which %s "
			    "stores plain; obeyed, so entries may read as garbage",
			    ar->path, databin_game_name(game), entry, clue.what,
			    databin_game_name(clue.game));
	else if (ar->db.encrypted && game != GAME_UNKNOWN && clue.game != game &&
		 clue.how == CLUE_STATISTICS)
		mlog_printf(ar->log, "%s: -o game= says %s, but the entries %s stores "
			    "plain read as plain; obeyed, so entries may read as garbage",
			    ar->path, databin_game_name(game), databin_game_name(clue.game));
}

/* Decides what the file is: a DATA.BIN first (its start list must end
 * exactly at the file's block count, a strong test), else a PAC.  A
 * DATA.BIN whose start list runs past the file's end is refused, unless
 * the file reads as a PAC. */
static enum archive_error identify(struct archive *ar, enum databin_game game,
				   struct fs_diag *msg)
{
	struct mh_diag d;
	enum mh_err err = databin_open(read_backing, ar, ar->size, &ar->db, &d);
	if (err == MH_OK && ar->db.count > ARCHIVE_MAX_ENTRIES) {
		fs_diag_printf(msg, "%s: a DATA.BIN of %u entries: a mount numbers at most %u",
			       ar->path, ar->db.count, ARCHIVE_MAX_ENTRIES);
		databin_free(&ar->db);
		return AR_EFORMAT;
	}
	if (err == MH_OK) {
		ar->format = FORMAT_DATABIN;
		ar->count = ar->db.count;
		settle_game(ar, game);
		return AR_OK;
	}
	if (err == MH_EIO) {
		fs_diag_printf(msg, "%s: cannot read: %s", ar->path,
			 strerror(errno));
		return AR_EIO;
	}

	uint8_t head[PAC_HEAD_MAX];
	size_t n = ar->size < sizeof head ? (size_t)ar->size : sizeof head;
	if (store_pread_full(ar->store.io, ar->fd, head, n, 0)) {
		fs_diag_printf(msg, "%s: cannot read: %s", ar->path,
			 strerror(errno));
		return AR_EIO;
	}
	if (pac_sniff(head, n, ar->size)) {
		ar->format = FORMAT_PAC;
		ar->count = 1;
		return AR_OK;
	}
	if (err == MH_ETRUNC)
		fs_diag_printf(msg, "%s: not a whole DATA.BIN: %s", ar->path, d.msg);
	else
		fs_diag_printf(msg, "%s: neither a DATA.BIN nor a PAC: %s", ar->path,
			 d.msg);
	return AR_EFORMAT;
}

/* Says who holds the lock that `fd` (wanting `exclusive`) could not
 * take, and what to do. */
static void describe_holder(int fd, bool exclusive, const char *path, struct fs_diag *msg)
{
	char *real = realpath(path, NULL);
	const char *name = real ? real : path;
	/* Shared holders alone let a shared lock through: readers. */
	if (exclusive && flock(fd, LOCK_SH | LOCK_NB) == 0)
		fs_diag_printf(msg, "%s: mounted read-only by another mount.mhfu, "
			 "under which a writer would change the file; unmount it first "
			 "(findmnt -t fuse.mhfu lists mounts), or mount this one with -o ro "
			 "too", name);
	else
		fs_diag_printf(msg, "%s: already mounted read-write by another "
			 "mount.mhfu (one writer per archive; a read-only mount would not "
			 "follow its commits); unmount it first (findmnt -t fuse.mhfu lists "
			 "mounts)", name);
	free(real);
}

/* Opens the archive and locks it for the mount's life: exclusively to
 * write (one writer per archive), shared to read only (a writer would
 * change the file under the readers).  The lock, flock(2), belongs to the
 * open file, so it passes to the daemon at its fork and goes when the
 * daemon exits, however it dies.  A lock another mount holds is waited
 * for wait_ms (a daemon just unmounted or killed is still exiting), then
 * refused.  A commit that moves entries renames a new file over the
 * archive, locked before the rename: a lock taken on the file it replaced
 * is taken again on the file the path names now. */
#define LOCK_POLL_MS 50

static enum archive_error open_locked(struct archive *ar, const struct archive_options *o,
				      struct fs_diag *msg)
{
	const struct store_io *io = o->io;
	const char *path = o->path;
	const struct timespec poll = {0, LOCK_POLL_MS * 1000000L};
	for (unsigned waited = 0;;) {
		int fd = o->read_only ? -1 : io->open(path, O_RDWR | O_CLOEXEC, 0);
		bool writable = fd >= 0;
		if (fd < 0 && (o->read_only || errno == EACCES || errno == EROFS || errno == EPERM))
			fd = io->open(path, O_RDONLY | O_CLOEXEC, 0);
		if (fd < 0) {
			fs_diag_printf(msg, "%s: %s", path, strerror(errno));
			return AR_EIO;
		}
		if (io->flock(fd, (writable ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
			struct stat held, named;
			if (!io->fstat(fd, &held) && !io->stat(path, &named) &&
			    (held.st_dev != named.st_dev || held.st_ino != named.st_ino)) {
				io->close(fd); /* renamed over meanwhile */
				continue;
			}
			ar->fd = fd;
			ar->writable = writable;
			ar->locked = true;
			return AR_OK;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			/* A filesystem without locks: mount, but say so. */
			mlog_printf(ar->log, "%s: cannot lock: %s: another mount of it "
				    "would not be refused", path, strerror(errno));
			ar->fd = fd;
			ar->writable = writable;
			return AR_OK;
		}
		if (errno == EWOULDBLOCK && waited >= o->lock_wait_ms) {
			describe_holder(fd, writable, path, msg);
			io->close(fd);
			return AR_EBUSY;
		}
		io->close(fd);
		nanosleep(&poll, NULL);
		waited += LOCK_POLL_MS;
	}
}

enum archive_error archive_open(struct archive *ar, const struct archive_options *o,
				struct fs_diag *msg)
{
	struct stat st;
	pthread_rwlockattr_t attr;
	const struct archive_options real = {o->path, o->log, o->game, o->read_only,
					     o->lock_wait_ms, o->io ? o->io : &store_libc};
	const struct store_io *io = real.io;
	const char *path = o->path;

	memset(ar, 0, sizeof *ar);
	ar->log = o->log;
	/* Locked before anything is read or replayed: two mounts never
	 * replay a journal or write at once. */
	enum archive_error locked = open_locked(ar, &real, msg);
	if (locked != AR_OK)
		return locked;
	if (io->fstat(ar->fd, &st)) {
		fs_diag_printf(msg, "%s: %s", path, strerror(errno));
		io->close(ar->fd);
		return AR_EIO;
	}
	if (!S_ISREG(st.st_mode)) {
		fs_diag_printf(msg, "%s: not a regular file", path);
		io->close(ar->fd);
		return AR_EIO;
	}
	/* Absolute: the daemon leaves the working directory behind (a table
	 * of calls of its own names its files as it likes). */
	ar->path = io == &store_libc ? realpath(path, NULL) : strdup(path);
	store_init(&ar->store, io, &ar->fd, ar->path, ar->writable, ar->locked);
	if (ar->path) {
		struct fs_diag done = {""};
		enum journal_recovery r = store_recover(&ar->store, &done);
		if (r == JOURNAL_FAILED) {
			*msg = done;
			free(ar->path);
			io->close(ar->fd);
			return AR_EIO;
		}
		if (r != JOURNAL_NONE) {
			mlog_printf(o->log, "%s: %s", ar->path, done.msg);
			io->fstat(ar->fd, &st);
		}
	}
	ar->size = (uint64_t)st.st_size;
	ar->mtime = st.st_mtim;
	ar->seen = st;
	pthread_mutex_init(&ar->lock, NULL);
	/* Commits must not starve behind a stream of readers. */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&ar->io, &attr);
	pthread_rwlockattr_destroy(&attr);

	enum archive_error err = ar->path ? identify(ar, o->game, msg) : AR_EIO;
	if (err == AR_OK && ar->format == FORMAT_DATABIN)
		ar->store.db = &ar->db; /* else a single PAC, written whole */
	if (err == AR_OK) {
		ar->cache.entries = calloc(ar->count, sizeof *ar->cache.entries);
		if (!ar->cache.entries) {
			fs_diag_printf(msg, "%s: out of memory", path);
			err = AR_EIO;
		}
	}
	if (err != AR_OK) {
		archive_close(ar);
		return err;
	}
	for (uint32_t i = 0; i < ar->count; i++) {
		atomic_init(&ar->cache.entries[i].kind, -1);
		ar->cache.entries[i].mtime = ar->mtime;
	}
	return AR_OK;
}

int archive_open_source(struct archive *ar, struct archive *like,
			const struct archive_source *src)
{
	memset(ar, 0, sizeof *ar);
	ar->fd = -1;
	ar->log = like->log;
	ar->format = like->format;
	ar->db.game = like->db.game;
	ar->game_from = like->game_from;
	ar->count = like->count;
	ar->mtime = like->mtime;
	ar->cache.budget = like->cache.budget;
	ar->source = src;
	ar->path = like->path ? strdup(like->path) : NULL;
	ar->cache.entries = calloc(ar->count ? ar->count : 1, sizeof *ar->cache.entries);
	pthread_mutex_init(&ar->lock, NULL);
	pthread_rwlock_init(&ar->io, NULL);
	if (!ar->cache.entries || (like->path && !ar->path)) {
		archive_close(ar);
		return ENOMEM;
	}
	for (uint32_t i = 0; i < ar->count; i++) {
		atomic_init(&ar->cache.entries[i].kind, -1);
		ar->cache.entries[i].mtime = ar->mtime;
	}
	like->companion = ar;
	return 0;
}

bool archive_entry_present(const struct archive *ar, uint32_t id)
{
	return !ar->source || ar->source->has(ar->source->ctx, id);
}

void archive_finish(struct archive *ar)
{
	struct fs_diag why = {""};
	if (ar->store.io && !ar->source && store_close(&ar->store, &why))
		mlog_printf(ar->log, "%s: %s: the next mount replays the journal", ar->path,
			    why.msg);
}

void archive_close(struct archive *ar)
{
	archive_finish(ar);
	for (uint32_t i = 0; ar->cache.entries && i < ar->count; i++)
		drop_caches(ar, i, false);
	free(ar->cache.entries);
	free(ar->written);
	free(atomic_load(&ar->cache.index_tsv));
	databin_free(&ar->db);
	free(ar->path);
	if (ar->fd >= 0)
		(ar->store.io ? ar->store.io->close : close)(ar->fd);
	pthread_mutex_destroy(&ar->lock);
	pthread_rwlock_destroy(&ar->io);
	memset(ar, 0, sizeof *ar);
	ar->fd = -1;
}

uint64_t archive_now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

uint64_t archive_entry_size(const struct archive *ar, uint32_t id)
{
	if (ar->source)
		return ar->source->size(ar->source->ctx, id);
	return ar->format == FORMAT_PAC ? ar->size : databin_entry_size(&ar->db, id);
}

bool archive_entry_plain(const struct archive *ar, uint32_t id)
{
	return ar->format == FORMAT_PAC || databin_entry_plain(&ar->db, id);
}

int archive_entry_load(struct archive *ar, uint32_t id, struct entry_state *st)
{
	memset(st, 0, sizeof *st);
	st->size = archive_entry_size(ar, id);
	if (!(st->bytes = malloc(st->size ? st->size : 1)))
		return ENOMEM;
	int err = archive_read_all(ar, id, 0, st->bytes, st->size);
	if (err) {
		entry_state_free(st);
		return err;
	}
	st->padded = ar->format == FORMAT_DATABIN && databin_size_index(&ar->db, id) < 0;
	st->generation = atomic_load(&ar->cache.entries[id].generation);
	int seen = atomic_load(&ar->cache.entries[id].clip_format);
	if (seen != CLIP_NONE)
		st->clip_format = (enum clip_format)seen;
	else if (ar->format != FORMAT_DATABIN || ar->db.game == GAME_UNKNOWN)
		st->clip_format = CLIP_NONE;
	else
		st->clip_format = ar->db.game == GAME_MHP3RD ? CLIP_P3RD : CLIP_MHFU;
	return 0;
}

void entry_state_free(struct entry_state *st)
{
	free(st->bytes);
	st->bytes = NULL;
}

/* Whether the bytes the last commit wrote are entry id's as it is, and
 * hold off .. off + len. */
static bool written_holds(const struct archive *ar, uint32_t id, uint64_t off, size_t len)
{
	return ar->written && ar->written_id == id &&
	       ar->written_generation == atomic_load(&ar->cache.entries[id].generation) &&
	       off <= ar->written_len && len <= ar->written_len - off;
}

/* The largest entry whose written bytes are kept (a model PAC is well
 * below; a raw copy of the largest entries is not worth the memory). */
#define WRITTEN_MAX (8u << 20)

/* Keeps the bytes a commit wrote to entry id (w's), or none when out of
 * memory or over WRITTEN_MAX; with `io` held exclusively. */
static void keep_written(struct archive *ar, const struct entry_write *w)
{
	free(ar->written);
	ar->written = w->len <= WRITTEN_MAX ? malloc(w->len ? w->len : 1) : NULL;
	if (!ar->written)
		return;
	memcpy(ar->written, w->bytes, w->len);
	ar->written_len = w->len;
	ar->written_id = w->id;
	ar->written_generation = atomic_load(&ar->cache.entries[w->id].generation);
}

int archive_read(struct archive *ar, uint32_t id, uint64_t off, void *buf, size_t len,
		 size_t *got)
{
	uint64_t size = archive_entry_size(ar, id);
	*got = 0;
	if (off >= size)
		return 0;
	if (len > size - off)
		len = (size_t)(size - off);
	if (ar->source) {
		int err = ar->source->read(ar->source->ctx, id, off, buf, len);
		*got = err ? 0 : len;
		return err;
	}
	if (written_holds(ar, id, off, len)) {
		memcpy(buf, ar->written + off, len);
		*got = len;
		return 0;
	}
	uint64_t base = ar->format == FORMAT_PAC ? 0 : databin_entry_offset(&ar->db, id);
	if (store_entry_unreadable(&ar->store, id))
		return EIO; /* part old, part new on disk: see store.h */
	if (store_pread_full(ar->store.io, ar->fd, buf, len, base + off))
		return errno;
	if (!archive_entry_plain(ar, id))
		cipher_decrypt(ar->db.start[id], off, buf, len);
	atomic_fetch_add_explicit(&ar->reads, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&ar->bytes_read, len, memory_order_relaxed);
	*got = len;
	return 0;
}

int archive_read_all(struct archive *ar, uint32_t id, uint64_t off, void *buf, size_t len)
{
	size_t got;
	int err = archive_read(ar, id, off, buf, len, &got);
	return err ? err : got == len ? 0 : EIO;
}

/* Records entry id's kind from its decrypted head.  n < 0: unreadable
 * now, so shown as data this once (reading it will report the error) and
 * sniffed again next time: a failure is not a fact about the bytes. */
/* The kind of entry id from its head[0..n), read with error err (0: none). */
static enum kind learn_kind(struct archive *ar, uint32_t id, const uint8_t *head, size_t n,
			    int err)
{
	if (err)
		return KIND_DATA;
	int k = kind_sniff(head, n, archive_entry_size(ar, id));
	atomic_store_explicit(&ar->cache.entries[id].kind, k, memory_order_release);
	atomic_fetch_add_explicit(&ar->cache.heads_sniffed, 1, memory_order_relaxed);
	atomic_store(&ar->cache.kinds_kept, false);
	return (enum kind)k;
}

static size_t head_len(const struct archive *ar, uint32_t id)
{
	uint64_t size = archive_entry_size(ar, id);
	return size < KIND_HEAD_MAX ? (size_t)size : KIND_HEAD_MAX;
}

enum kind archive_entry_kind(struct archive *ar, uint32_t id)
{
	int k = atomic_load_explicit(&ar->cache.entries[id].kind, memory_order_acquire);
	if (k >= 0)
		return (enum kind)k;
	/* Not there: nothing to learn, nothing kept (it may come). */
	if (!archive_entry_present(ar, id))
		return KIND_DATA;

	uint8_t head[KIND_HEAD_MAX];
	size_t n;
	int err = archive_read(ar, id, 0, head, sizeof head, &n);
	return learn_kind(ar, id, head, n, err);
}

void archive_sniff_all(struct archive *ar)
{
	if (atomic_load_explicit(&ar->cache.all_sniffed, memory_order_acquire))
		return;
	/* Every head, read in large sequential requests: a run of entries
	 * whose heads lie close together is read whole, with what lies
	 * between them, rather than one small read per entry in turn. */
	uint8_t *buf = ar->format == FORMAT_DATABIN && !ar->source ? malloc(SNIFF_CHUNK) : NULL;
	for (uint32_t id = 0; buf && id < ar->count;) {
		if (atomic_load_explicit(&ar->cache.entries[id].kind, memory_order_acquire) >= 0) {
			id++;
			continue;
		}
		uint64_t from = databin_entry_offset(&ar->db, id), to = from + head_len(ar, id);
		uint32_t last = id;
		while (last + 1 < ar->count) {
			uint64_t at = databin_entry_offset(&ar->db, last + 1);
			uint64_t end = at + head_len(ar, last + 1);
			if (at - to > SNIFF_GAP_MAX || end - from > SNIFF_CHUNK)
				break;
			to = end;
			last++;
		}
		if (store_pread_full(ar->store.io, ar->fd, buf, (size_t)(to - from), from))
			break; /* each entry then reads its own head */
		atomic_fetch_add_explicit(&ar->reads, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&ar->bytes_read, to - from, memory_order_relaxed);
		for (uint32_t e = id; e <= last; e++) {
			uint8_t head[KIND_HEAD_MAX];
			size_t n = head_len(ar, e);
			if (atomic_load_explicit(&ar->cache.entries[e].kind, memory_order_acquire) >= 0)
				continue;
			memcpy(head, buf + (databin_entry_offset(&ar->db, e) - from), n);
			if (!archive_entry_plain(ar, e))
				cipher_decrypt(ar->db.start[e], 0, head, n);
			learn_kind(ar, e, head, n, 0);
		}
		id = last + 1;
	}
	free(buf);
	for (uint32_t id = 0; id < ar->count; id++)
		archive_entry_kind(ar, id);
	atomic_store_explicit(&ar->cache.all_sniffed, true, memory_order_release);
	kinds_keep(ar, false); /* the next mount lists without reading */
}

const struct pactree *archive_entry_tree(struct archive *ar, uint32_t id)
{
	struct archive_entry *e = &ar->cache.entries[id];
	struct pactree *t = atomic_load_explicit(&e->tree, memory_order_acquire);
	if (t || atomic_load(&e->tree_failed))
		return t;
	if (archive_entry_kind(ar, id) != KIND_PAC)
		return NULL;

	pthread_mutex_lock(&ar->lock);
	t = atomic_load(&e->tree);
	if (!t && !atomic_load(&e->tree_failed)) {
		struct fs_diag why = {""};
		/* Only what the bytes say is kept as a fact: a failed read or
		 * allocation is tried again at the next look. */
		bool transient = false;
		uint64_t size = archive_entry_size(ar, id);
		uint8_t *buf = size <= TREE_MAX_BYTES ? malloc(size ? size : 1) : NULL;
		if (size > TREE_MAX_BYTES)
			fs_diag_printf(&why, "%llu bytes is too large to expand",
				 (unsigned long long)size);
		else if ((transient = !buf))
			fs_diag_printf(&why, "out of memory");
		else if ((transient = archive_read_all(ar, id, 0, buf, size) != 0))
			fs_diag_printf(&why, "read failed");
		else
			t = pactree_build(buf, size, 0, PACTREE_MAX_DEPTH, &why);
		free(buf);
		if (t) {
			atomic_fetch_add(&ar->cache.bytes, pactree_bytes(t));
			atomic_store_explicit(&e->tree, t, memory_order_release);
		} else {
			char name[64];
			archive_entry_name(ar, id, name, sizeof name);
			mlog_printf(ar->log, "%s: shown raw only%s: %s", name,
				    transient ? " for now" : "", why.msg);
			if (!transient)
				atomic_store(&e->tree_failed, true);
		}
	}
	pthread_mutex_unlock(&ar->lock);
	return t;
}

void archive_entry_name(struct archive *ar, uint32_t id, char *buf, size_t len)
{
	names_entry_file(id, archive_entry_kind(ar, id), buf, len);
}

/* ---- writing ---------------------------------------------------------- */

/* A PMO model in c whose vertices.tsv was printed, taken out of c. */
static struct model *take_printed_pmo(struct model_cache *c)
{
	struct model *m = atomic_load(&c->model);
	if (!m || m->kind != KIND_PMO || !atomic_load(&m->pmo_text[PMO_VERTICES_TSV]))
		return NULL;
	return atomic_exchange(&c->model, NULL);
}

/* The first PMO model of tree t with its vertices.tsv printed, taken out
 * of its member's cache; *offset: that member's. */
static struct model *take_printed_member(struct pactree *t, uint64_t *offset)
{
	for (uint32_t i = 0; t && i < t->count; i++) {
		struct model *m = take_printed_pmo(&t->subs[i].cache);
		if (!m)
			m = take_printed_member(t->subs[i].child, offset);
		else
			*offset = t->subs[i].offset;
		if (m)
			return m;
	}
	return NULL;
}

/* Frees an entry's decoded tree and models, with `io` held exclusively.
 * What they said about its bytes (kind, failures to decode) stays.  When
 * the bytes changed (`carry`), a PMO model whose vertices.tsv was read is
 * kept aside for the next model of that PMO (archive_take_carried). */
static void drop_caches(struct archive *ar, uint32_t id, bool carry)
{
	struct archive_entry *e = &ar->cache.entries[id];
	struct pactree *t = atomic_exchange(&e->tree, NULL);
	uint64_t offset = 0;
	struct model *kept = carry ? take_printed_pmo(&e->cache) : NULL;
	if (carry && !kept)
		kept = take_printed_member(t, &offset);
	model_free(atomic_exchange(&e->carried, NULL));
	e->carried_offset = offset;
	atomic_store(&e->carried, kept);
	atomic_fetch_sub(&ar->cache.bytes, pactree_bytes(t) + model_cache_text_bytes(&e->cache));
	pactree_free(t);
	model_cache_free(&e->cache);
}

struct model *archive_take_carried(struct archive *ar, uint32_t id, uint64_t offset)
{
	struct archive_entry *e = &ar->cache.entries[id];
	if (!atomic_load(&e->carried) || e->carried_offset != offset)
		return NULL;
	return atomic_exchange(&e->carried, NULL);
}

static bool over_budget(const struct archive *ar)
{
	return ar && atomic_load_explicit(&ar->cache.bytes, memory_order_relaxed) > ar->cache.budget;
}

/* The clock sweep of archive_trim, with the io lock held exclusively. */
static void sweep(struct archive *ar)
{
	size_t target = ar->cache.budget / 4 * 3;
	/* Two turns at most: the first may only clear `used` marks. */
	for (uint64_t i = 0; i < 2ull * ar->count && atomic_load(&ar->cache.bytes) > target; i++) {
		uint32_t id = ar->cache.clock_hand;
		struct archive_entry *e = &ar->cache.entries[id];
		ar->cache.clock_hand = id + 1 < ar->count ? id + 1 : 0;
		if (!atomic_load(&e->tree) && !atomic_load(&e->cache.model) &&
		    !atomic_load(&e->cache.check) && !atomic_load(&e->carried))
			continue;
		if (atomic_exchange(&e->used, false))
			continue;
		drop_caches(ar, id, false);
		atomic_fetch_add(&ar->cache.evictions, 1);
	}
}

void archive_trim(struct archive *ar)
{
	if (!over_budget(ar) && !over_budget(ar->companion))
		return;
	pthread_rwlock_wrlock(&ar->io);
	sweep(ar);
	if (ar->companion)
		sweep(ar->companion);
	pthread_rwlock_unlock(&ar->io);
}

/* Drops the decoded caches of the entries whose views are made from
 * entry id's bytes as well as their own (archive_for_linked).  With `io`
 * held exclusively. */
void archive_for_linked(struct archive *ar, uint32_t id, bool id_anim,
			void (*fn)(void *ctx, uint32_t e), void *ctx)
{
	if (ar->format != FORMAT_DATABIN)
		return;
	/* A model PAC whose PMO keeps its geometry in the entry after it:
	 * such an entry is data (a display list first), so a commit to a
	 * model leaves the PAC before it alone. */
	if (id > 0 && archive_entry_kind(ar, id) == KIND_DATA &&
	    archive_entry_kind(ar, id - 1) == KIND_PAC)
		fn(ctx, id - 1);
	for (uint64_t e = id; e <= (uint64_t)id + RECORDS_LINK_SPAN && e < ar->count; e++) {
		if (e == id ? !id_anim : archive_entry_kind(ar, (uint32_t)e) != KIND_ANIM)
			continue;
		if (e != id)
			fn(ctx, (uint32_t)e);
		if (e >= RECORDS_RIG_BEFORE && e - RECORDS_RIG_BEFORE != id)
			fn(ctx, (uint32_t)e - RECORDS_RIG_BEFORE);
	}
}

static void drop_linked(void *ar, uint32_t e)
{
	drop_caches(ar, e, true);
}

static void forget_linked(struct archive *ar, uint32_t id)
{
	archive_for_linked(ar, id, archive_entry_kind(ar, id) == KIND_ANIM, drop_linked, ar);
}

void archive_forget_views(struct archive *ar, uint32_t id)
{
	drop_caches(ar, id, true);
	forget_linked(ar, id);
}

/* Forgets what was learnt about an entry: its bytes changed.  Called with
 * `io` held exclusively, so no reader holds a pointer into these. */
static void forget_entry(struct archive *ar, uint32_t id)
{
	atomic_store(&ar->cache.entries[id].kind, -1);
	atomic_store(&ar->cache.all_sniffed, false);
	atomic_store(&ar->cache.kinds_kept, false);
	forget_decoded(ar, id);
}

/* Drops what was decoded from an entry's bytes, keeping its kind (so its
 * name): an entry in the error state keeps its name while it cannot be
 * read. */
static void forget_decoded(struct archive *ar, uint32_t id)
{
	struct archive_entry *e = &ar->cache.entries[id];
	atomic_fetch_add(&e->generation, 1);
	drop_caches(ar, id, true);
	atomic_store(&e->tree_failed, false);
	atomic_store(&e->cache.failed, false);
	free(atomic_exchange(&ar->cache.index_tsv, NULL));
}

int archive_replay_pending(struct archive *ar, struct fs_diag *why)
{
	if (!ar->store.pending)
		return 0;
	uint32_t id = ar->store.pending_entry, last = ar->store.pending_last;
	if (store_replay_pending(&ar->store, why))
		return EIO;
	ar->store.io->fstat(ar->fd, &ar->seen);
	clock_gettime(CLOCK_REALTIME, &ar->cache.entries[id].mtime);
	for (uint32_t e = id; e <= last && e < ar->count; e++) {
		forget_entry(ar, e);
		forget_linked(ar, e);
	}
	mlog_printf(ar->log, "%s: replayed the journal of the commit that failed", ar->path);
	return 0;
}

int archive_write_entry(struct archive *ar, const struct entry_write *w,
			struct entry_written *out, struct fs_diag *why)
{
	uint32_t id = w->id;
	*out = (struct entry_written){false, archive_entry_size(ar, id)};
	if (!ar->writable) {
		fs_diag_printf(why, "the archive is read-only");
		return EROFS;
	}
	int fd = ar->fd;
	int err = ar->backup ? store_keep_original(&ar->store, why) : 0;
	if (!err)
		err = store_write_entry(&ar->store, w, why);
	/* A rewrite that failed after its rename replaced the file all the
	 * same (store.h): then, as on success, the mount follows the file. */
	if (err && ar->fd == fd) {
		/* Pending: the entry is neither old nor new until the replay. */
		out->landed = store_entry_unreadable(&ar->store, id);
		for (uint32_t e = id; e < ar->count && store_entry_unreadable(&ar->store, e); e++)
			forget_decoded(ar, e);
		return err;
	}
	ar->size = ar->format == FORMAT_PAC ? w->len : databin_entry_offset(&ar->db, ar->db.count);
	struct stat st;
	if (!ar->store.io->fstat(ar->fd, &st)) {
		ar->mtime = st.st_mtim;
		ar->seen = st;
	}
	clock_gettime(CLOCK_REALTIME, &ar->cache.entries[id].mtime);
	forget_entry(ar, id);
	forget_linked(ar, id);
	if (!ar->source)
		keep_written(ar, w);
	*out = (struct entry_written){true, archive_entry_size(ar, id)};
	return err;
}
