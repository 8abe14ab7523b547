/* Tests of fs/store (store.h) through its seam, struct store_io.
 *
 * The table here acts on a directory simulated in memory: each file keeps
 * its bytes as written and as of its last fsync or fdatasync, the
 * directory its names as the calls left them, as of its last fsync, and
 * the changes made to them since, in order.  On it, sequences of commits
 * (in place through the journal, by a shift of the tail in place, by a
 * rewrite, with checkpoints of the journal between them, in an encrypted
 * and in a plain DATA.BIN, and of a single PAC), each ended by an
 * unmount (the journal checkpointed and removed), are run
 *  (a) failing the 1st, 2nd, ... call the sequence makes, until none
 *      fails: each failed commit is reported (an errno and a reason that
 *      names the file), leaves the archive as it was or, when it was
 *      decided (the store is pending, or its file was renamed in), as it
 *      will be, and the mount still describes the file its path names;
 *      then, after the next commit's replay or a new mount's recovery, the
 *      archive holds exactly the commits that were decided;
 *  (b) losing power after the 0th, 1st, ... call: every name back to the
 *      directory's last sync, or to any later point of its changes (a
 *      journalling filesystem keeps them in order), and every file back
 *      to its last sync or not (the disk may have kept anything written
 *      since): after recovery the archive is the one before the commit in
 *      flight or after it, never a mix, and holds every commit that had
 *      returned; recovery itself survives a second power loss.
 * A mount's recovery of a pending journal is run failing each of its
 * calls in turn too: it refuses the mount, or leaves the commit in the
 * archive and no journal to be replayed over later commits.  Some
 * sequences run under -o backup: ARCHIVE.orig, when there, must hold the
 * archive as it was before them, whole.  The archives are built from a model with the codecs (databin_encode,
 * cipher_encrypt), not with the store, and are the oracle.  One test runs
 * the real table, store_libc, in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cipher.h"
#include "databin.h"
#include "rng.h"
#include "store.h"

#define BLK DATABIN_BLOCK

/* ---- bytes ------------------------------------------------------------ */

struct bytes {
	uint8_t *p;
	size_t len;
};

static void bytes_set(struct bytes *b, const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);
	assert_non_null(q);
	if (len)
		memcpy(q, p, len);
	free(b->p);
	b->p = q;
	b->len = len;
}

static bool bytes_equal(const struct bytes *a, const struct bytes *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

static void bytes_free(struct bytes *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

/* ---- a directory in memory -------------------------------------------- */

#define DIR_PATH "/sim"
#define ARCHIVE DIR_PATH "/DATA.BIN"
#define ORIG ARCHIVE ".orig"
#define JOURNAL ARCHIVE ".mhfu-journal"
#define MAX_FILES 32 /* files made over a run: never reused */
#define MAX_NAMES 8
#define MAX_FDS 8
#define MAX_DIR_OPS 16
#define FD_BASE 1000 /* descriptors here are FD_BASE + a slot */
#define FD_FREE (-2)
#define FD_DIR (-1)

struct file {
	bool used;
	struct bytes data;   /* as written */
	struct bytes synced; /* as of its last fsync or fdatasync */
	mode_t mode;
};

struct name {
	char path[64]; /* "" when free */
	int file;
};

/* A change to the directory: `from` loses its name, `to` names `file`
 * (either path may be ""). */
struct dir_op {
	char from[64], to[64];
	int file;
};

struct sim {
	struct file files[MAX_FILES];
	struct name names[MAX_NAMES];   /* the directory now */
	struct name durable[MAX_NAMES]; /* as of its last fsync */
	struct dir_op ops[MAX_DIR_OPS]; /* changes since, in order */
	int nops;
	int fds[MAX_FDS];               /* each slot's file, FD_DIR or FD_FREE */
	long calls;                     /* made so far */
	long fail_at;                   /* the call (from 1) to fail; 0: none */
	int fail_errno;
	const char *failed;             /* the failed call's name, once it was */
	long crash_after;               /* calls after which the power goes; -1: never */
	bool crashed;                   /* it went: every later call fails */
	bool copy_in_kernel;            /* copy_file_range works (else EXDEV) */
	uint64_t free_bytes;            /* what fstatvfs says is free; 0: plenty */
	int notes_given;                /* commits whose note went to the store */
	unsigned notes_durable;         /* bit k: commit k's note made durable, by
					   the hook or a recovery, as the history's
					   records would be */
	int hook_calls;
};

static struct sim S;     /* what the table's calls act on */
static struct sim CRASH; /* S as it was when the power went */

static void sim_free(struct sim *s)
{
	for (int f = 0; f < MAX_FILES; f++) {
		bytes_free(&s->files[f].data);
		bytes_free(&s->files[f].synced);
	}
	memset(s, 0, sizeof *s);
	for (int i = 0; i < MAX_FDS; i++)
		s->fds[i] = FD_FREE;
	s->crash_after = -1;
	s->copy_in_kernel = true;
}

static void sim_copy(struct sim *to, const struct sim *from)
{
	sim_free(to);
	*to = *from;
	for (int f = 0; f < MAX_FILES; f++) {
		to->files[f].data = (struct bytes){0};
		to->files[f].synced = (struct bytes){0};
		if (!from->files[f].used)
			continue;
		bytes_set(&to->files[f].data, from->files[f].data.p, from->files[f].data.len);
		bytes_set(&to->files[f].synced, from->files[f].synced.p, from->files[f].synced.len);
	}
}

static int name_find(const struct name *names, const char *path)
{
	for (int i = 0; i < MAX_NAMES; i++)
		if (names[i].path[0] && !strcmp(names[i].path, path))
			return i;
	return -1;
}

static void name_remove(struct name *names, const char *path)
{
	int i = name_find(names, path);
	if (i >= 0)
		names[i].path[0] = '\0';
}

static void name_set(struct name *names, const char *path, int file)
{
	int i = name_find(names, path);
	for (int j = 0; i < 0 && j < MAX_NAMES; j++)
		if (!names[j].path[0])
			i = j;
	assert_true(i >= 0);
	snprintf(names[i].path, sizeof names[i].path, "%s", path);
	names[i].file = file;
}

static void dir_op_apply(struct name *names, const struct dir_op *op)
{
	if (op->from[0])
		name_remove(names, op->from);
	if (op->to[0])
		name_set(names, op->to, op->file);
}

static void dir_change(const char *from, const char *to, int file)
{
	assert_true(S.nops < MAX_DIR_OPS);
	struct dir_op *op = &S.ops[S.nops++];
	snprintf(op->from, sizeof op->from, "%s", from);
	snprintf(op->to, sizeof op->to, "%s", to);
	op->file = file;
	dir_op_apply(S.names, op);
}

/* The file `path` names, -1 if none. */
static int named(const char *path)
{
	int i = name_find(S.names, path);
	return i < 0 ? -1 : S.names[i].file;
}

/* Counts a call; false (errno set) when it fails: the chosen one, or any
 * after the power went, which is when S is kept in CRASH. */
static bool enter(const char *call)
{
	if (S.crash_after >= 0 && !S.crashed && S.calls == S.crash_after) {
		sim_copy(&CRASH, &S);
		S.crashed = true;
	}
	if (S.crashed) {
		errno = EIO;
		return false;
	}
	if (++S.calls == S.fail_at) {
		S.failed = call;
		errno = S.fail_errno;
		return false;
	}
	return true;
}

/* The slot of descriptor fd, -1 (EBADF) if it is not open. */
static int slot_of(int fd)
{
	int slot = fd - FD_BASE;
	if (slot < 0 || slot >= MAX_FDS || S.fds[slot] == FD_FREE) {
		errno = EBADF;
		return -1;
	}
	return slot;
}

/* The file open as fd, NULL (errno set) if none. */
static struct file *file_of(int fd)
{
	int slot = slot_of(fd);
	if (slot < 0)
		return NULL;
	if (S.fds[slot] == FD_DIR) {
		errno = EISDIR;
		return NULL;
	}
	return &S.files[S.fds[slot]];
}

static int new_file(mode_t mode)
{
	for (int f = 0; f < MAX_FILES; f++)
		if (!S.files[f].used) {
			S.files[f].used = true;
			S.files[f].mode = mode;
			return f;
		}
	fail_msg("more than %d files in one run", MAX_FILES);
	return -1;
}

static void file_write(struct file *f, const uint8_t *p, size_t len, uint64_t off)
{
	if (off + len > f->data.len) {
		uint8_t *q = realloc(f->data.p, off + len);
		assert_non_null(q);
		memset(q + f->data.len, 0, off + len - f->data.len);
		f->data.p = q;
		f->data.len = off + len;
	}
	memcpy(f->data.p + off, p, len);
}

static int sim_open(const char *path, int flags, mode_t mode)
{
	if (!enter("open"))
		return -1;
	int slot = 0;
	while (slot < MAX_FDS && S.fds[slot] != FD_FREE)
		slot++;
	assert_true(slot < MAX_FDS);
	if (flags & O_DIRECTORY) {
		if (strcmp(path, DIR_PATH)) {
			errno = ENOENT;
			return -1;
		}
		S.fds[slot] = FD_DIR;
		return FD_BASE + slot;
	}
	int f = named(path);
	if (f >= 0 && (flags & O_CREAT) && (flags & O_EXCL)) {
		errno = EEXIST;
		return -1;
	}
	if (f < 0 && !(flags & O_CREAT)) {
		errno = ENOENT;
		return -1;
	}
	if (f < 0) {
		f = new_file(mode);
		dir_change("", path, f);
	} else if (flags & O_TRUNC) {
		S.files[f].data.len = 0;
	}
	S.fds[slot] = f;
	return FD_BASE + slot;
}

/* As on Linux, the descriptor is released even when close fails. */
static int sim_close(int fd)
{
	bool ok = enter("close");
	int slot = slot_of(fd);
	if (slot < 0)
		return -1;
	S.fds[slot] = FD_FREE;
	return ok ? 0 : -1;
}

static ssize_t sim_pread(int fd, void *buf, size_t len, off_t off)
{
	if (!enter("pread"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	if ((uint64_t)off >= f->data.len)
		return 0;
	size_t n = f->data.len - (size_t)off < len ? f->data.len - (size_t)off : len;
	memcpy(buf, f->data.p + off, n);
	return (ssize_t)n;
}

static ssize_t sim_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (!enter("pwrite"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	file_write(f, buf, len, (uint64_t)off);
	return (ssize_t)len;
}

static ssize_t sim_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len)
{
	if (!enter("copy_file_range"))
		return -1;
	struct file *from = file_of(in), *to = file_of(out);
	if (!from || !to)
		return -1;
	if (!S.copy_in_kernel) {
		errno = EXDEV;
		return -1;
	}
	if ((uint64_t)*in_off >= from->data.len)
		return 0;
	size_t n = from->data.len - (size_t)*in_off;
	n = n < len ? n : len;
	file_write(to, from->data.p + *in_off, n, (uint64_t)*out_off);
	*in_off += (off_t)n;
	*out_off += (off_t)n;
	return (ssize_t)n;
}

static int sync_fd(int fd)
{
	int slot = slot_of(fd);
	if (slot < 0)
		return -1;
	if (S.fds[slot] == FD_DIR) {
		memcpy(S.durable, S.names, sizeof S.durable);
		S.nops = 0;
	} else {
		struct file *f = &S.files[S.fds[slot]];
		bytes_set(&f->synced, f->data.p, f->data.len);
	}
	return 0;
}

static int sim_fsync(int fd)
{
	return enter("fsync") ? sync_fd(fd) : -1;
}

static int sim_fdatasync(int fd)
{
	return enter("fdatasync") ? sync_fd(fd) : -1;
}

static int sim_fstat(int fd, struct stat *st)
{
	if (!enter("fstat"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFREG | f->mode;
	st->st_size = (off_t)f->data.len;
	return 0;
}

static int sim_fchmod(int fd, mode_t mode)
{
	if (!enter("fchmod"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	f->mode = mode;
	return 0;
}

static int sim_fchown(int fd, uid_t uid, gid_t gid)
{
	(void)uid;
	(void)gid;
	return enter("fchown") && file_of(fd) ? 0 : -1;
}

static int sim_flock(int fd, int op)
{
	(void)op;
	return enter("flock") && file_of(fd) ? 0 : -1;
}

static int sim_rename(const char *from, const char *to)
{
	if (!enter("rename"))
		return -1;
	int f = named(from);
	if (f < 0) {
		errno = ENOENT;
		return -1;
	}
	dir_change(from, to, f);
	return 0;
}

static int sim_unlink(const char *path)
{
	if (!enter("unlink"))
		return -1;
	if (named(path) < 0) {
		errno = ENOENT;
		return -1;
	}
	dir_change(path, "", -1);
	return 0;
}

static int sim_access(const char *path, int mode)
{
	(void)mode;
	if (!enter("access"))
		return -1;
	if (named(path) < 0) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

static int sim_ftruncate(int fd, off_t len)
{
	if (!enter("ftruncate"))
		return -1;
	struct file *f = file_of(fd);
	if (!f)
		return -1;
	if ((size_t)len > f->data.len)
		file_write(f, (const uint8_t *)"", 0, (uint64_t)len); /* zeros */
	f->data.len = (size_t)len;
	return 0;
}

/* Writeback started early changes nothing the power may take. */
static int sim_sync_file_range(int fd, off_t off, off_t len, unsigned flags)
{
	(void)off;
	(void)len;
	(void)flags;
	return enter("sync_file_range") && file_of(fd) ? 0 : -1;
}

/* The store's hook (store.h note 6), as the history's: a call that syncs
 * the notes given so far. */
static int sim_hook(void *ctx, struct fs_diag *why)
{
	(void)ctx;
	if (!enter("hook")) {
		fs_diag_printf(why, "syncing the notes of %s: %s", ARCHIVE, strerror(errno));
		return EIO;
	}
	S.notes_durable |= S.notes_given >= 31 ? ~1u : (2u << S.notes_given) - 2;
	S.hook_calls++;
	return 0;
}

/* The room the filesystem has: not a call that fails (the store goes on
 * when it cannot tell). */
static int sim_fstatvfs(int fd, struct statvfs *st)
{
	(void)fd;
	memset(st, 0, sizeof *st);
	st->f_frsize = st->f_bsize = 4096;
	st->f_bavail = st->f_bfree = S.free_bytes ? S.free_bytes / 4096 : 1u << 30;
	return 0;
}

static const struct store_io SIM_IO = {
	.open = sim_open,
	.close = sim_close,
	.pread = sim_pread,
	.pwrite = sim_pwrite,
	.copy_file_range = sim_copy_file_range,
	.fsync = sim_fsync,
	.fdatasync = sim_fdatasync,
	.fstat = sim_fstat,
	.fchmod = sim_fchmod,
	.fchown = sim_fchown,
	.flock = sim_flock,
	.rename = sim_rename,
	.unlink = sim_unlink,
	.access = sim_access,
	.fstatvfs = sim_fstatvfs,
	.ftruncate = sim_ftruncate,
	.sync_file_range = sim_sync_file_range,
};

/* S becomes a directory holding only `path`, with `image` in it, synced. */
static void sim_start(const struct bytes *image)
{
	sim_free(&S);
	int f = new_file(0644);
	bytes_set(&S.files[f].data, image->p, image->len);
	bytes_set(&S.files[f].synced, image->p, image->len);
	name_set(S.names, ARCHIVE, f);
	memcpy(S.durable, S.names, sizeof S.durable);
}

/* Files of `at` written since their last sync. */
static int dirty_files(const struct sim *at)
{
	int n = 0;
	for (int f = 0; f < MAX_FILES; f++)
		n += at->files[f].used && !bytes_equal(&at->files[f].data, &at->files[f].synced);
	return n;
}

/* S becomes what a power loss at `at` leaves: the names as of the
 * directory's last sync and its first `ops_kept` changes since; of the
 * files written since their last sync, the i-th as written when bit i of
 * `data_kept` is set, else as of that sync.  Nothing is open. */
static void sim_power_loss(const struct sim *at, int ops_kept, unsigned data_kept)
{
	sim_free(&S);
	S.notes_given = at->notes_given;
	S.notes_durable = at->notes_durable;
	memcpy(S.names, at->durable, sizeof S.names);
	for (int i = 0; i < ops_kept; i++)
		dir_op_apply(S.names, &at->ops[i]);
	memcpy(S.durable, S.names, sizeof S.durable);
	int dirty = 0;
	for (int f = 0; f < MAX_FILES; f++) {
		const struct file *was = &at->files[f];
		if (!was->used)
			continue;
		bool is_dirty = !bytes_equal(&was->data, &was->synced);
		const struct bytes *kept =
			is_dirty && (data_kept >> dirty++ & 1) ? &was->data : &was->synced;
		S.files[f].used = true;
		S.files[f].mode = was->mode;
		bytes_set(&S.files[f].data, kept->p, kept->len);
		bytes_set(&S.files[f].synced, kept->p, kept->len);
	}
}

/* ---- archives built from a model --------------------------------------- */

#define COUNT 24 /* entries; MHP3rd stores 17..20 plain in an encrypted archive */

static uint32_t initial_blocks(uint32_t id)
{
	return id % 5 == 2 ? 2 : 1;
}

static bool has_size_record(uint32_t id)
{
	return id % 3 == 0;
}

struct model {
	bool pac;                  /* a single PAC: entry[0] is the file */
	struct databin db;         /* a DATA.BIN's TOC */
	struct bytes entry[COUNT]; /* each entry as read: its size record's
				      length, else whole blocks */
};

static void random_bytes(struct bytes *b, size_t len, struct rng *r)
{
	uint8_t *p = malloc(len ? len : 1);
	assert_non_null(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)rng_next(r);
	free(b->p);
	b->p = p;
	b->len = len;
}

static void db_copy(struct databin *to, const struct databin *from)
{
	*to = *from;
	to->start = malloc(((size_t)from->count + 1) * sizeof *to->start);
	to->sizes = malloc((from->nsizes ? from->nsizes : 1) * sizeof *to->sizes);
	to->fill = malloc(from->fill_len ? from->fill_len : 1);
	assert_true(to->start && to->sizes && to->fill);
	memcpy(to->start, from->start, ((size_t)from->count + 1) * sizeof *to->start);
	memcpy(to->sizes, from->sizes, from->nsizes * sizeof *to->sizes);
	memcpy(to->fill, from->fill, from->fill_len);
}

static void db_assert_equal(const struct databin *a, const struct databin *b)
{
	assert_int_equal(a->count, b->count);
	assert_memory_equal(a->start, b->start, ((size_t)a->count + 1) * sizeof *a->start);
	assert_int_equal(a->nsizes, b->nsizes);
	for (uint32_t i = 0; i < a->nsizes; i++) {
		assert_int_equal(a->sizes[i].id, b->sizes[i].id);
		assert_int_equal(a->sizes[i].size, b->sizes[i].size);
	}
}

static void model_init(struct model *m, bool pac, bool encrypted)
{
	struct rng r;
	memset(m, 0, sizeof *m);
	m->pac = pac;
	rng_init(&r, 11, 0);
	if (pac) {
		random_bytes(&m->entry[0], 5000, &r);
		return;
	}
	struct databin *db = &m->db;
	db->count = COUNT;
	db->encrypted = encrypted;
	db->game = GAME_MHP3RD;
	db->start = malloc((COUNT + 1) * sizeof *db->start);
	db->sizes = malloc(COUNT * sizeof *db->sizes);
	assert_true(db->start && db->sizes);
	db->start[0] = 1;
	for (uint32_t i = 0; i < COUNT; i++) {
		db->start[i + 1] = db->start[i] + initial_blocks(i);
		if (has_size_record(i))
			db->sizes[db->nsizes++] = (struct databin_size){
				i, initial_blocks(i) * BLK - rng_range(&r, 1, BLK - 1)};
	}
	db->fill_len = BLK - (COUNT + 1) * 4 - db->nsizes * 8;
	db->fill = calloc(1, db->fill_len);
	assert_non_null(db->fill);
	for (uint32_t i = 0; i < COUNT; i++)
		random_bytes(&m->entry[i], (size_t)databin_entry_size(db, i), &r);
}

static void model_free(struct model *m)
{
	for (int i = 0; i < COUNT; i++)
		bytes_free(&m->entry[i]);
	databin_free(&m->db);
}

static void model_copy(struct model *to, const struct model *from)
{
	memset(to, 0, sizeof *to);
	to->pac = from->pac;
	for (int i = 0; i < COUNT; i++)
		if (from->entry[i].p)
			bytes_set(&to->entry[i], from->entry[i].p, from->entry[i].len);
	if (!from->pac)
		db_copy(&to->db, &from->db);
}

/* The archive file the model describes: its TOC as the codec encodes it,
 * each entry zero-padded to its blocks and, unless stored plain,
 * encrypted under its start block. */
static void model_image(const struct model *m, struct bytes *out)
{
	if (m->pac) {
		bytes_set(out, m->entry[0].p, m->entry[0].len);
		return;
	}
	const struct databin *db = &m->db;
	uint8_t *toc;
	size_t toc_len;
	struct mh_diag d;
	if (databin_encode(db, &toc, &toc_len, &d))
		fail_msg("the model's TOC does not encode: %s", d.msg);
	size_t len = (size_t)db->start[db->count] * BLK;
	uint8_t *p = calloc(1, len);
	assert_non_null(p);
	memcpy(p, toc, toc_len);
	free(toc);
	for (uint32_t i = 0; i < db->count; i++) {
		uint8_t *at = p + databin_entry_offset(db, i);
		memcpy(at, m->entry[i].p, m->entry[i].len);
		if (!databin_entry_plain(db, i))
			cipher_encrypt(db->start[i], 0, at, (size_t)databin_entry_blocks(db, i) * BLK);
	}
	free(out->p);
	out->p = p;
	out->len = len;
}

/* An edit: entry `id` becomes `len` bytes long, `changes` of the bytes it
 * keeps changed (a keyframe edit changes a few), new bytes past its old
 * end. */
struct edit {
	uint32_t id;
	size_t len;
	unsigned changes;
};

static void edited(const struct model *m, const struct edit *e, struct bytes *out)
{
	const struct bytes *old = &m->entry[e->id];
	struct rng r;
	rng_init(&r, 5, e->id);
	random_bytes(out, e->len, &r);
	memcpy(out->p, old->p, old->len < e->len ? old->len : e->len);
	for (unsigned k = 1; k <= e->changes; k++)
		out->p[e->len * k / (e->changes + 1)] ^= 0x5a;
}

/* The model after entry id became `bytes`: later entries move when its
 * block count changes; without a size record it is read as whole blocks. */
static void model_apply(struct model *m, uint32_t id, const struct bytes *bytes)
{
	if (m->pac) {
		bytes_set(&m->entry[0], bytes->p, bytes->len);
		return;
	}
	struct databin *db = &m->db;
	uint32_t blocks = bytes->len ? (uint32_t)((bytes->len + BLK - 1) / BLK) : 1;
	int64_t delta = (int64_t)blocks - databin_entry_blocks(db, id);
	for (uint32_t j = id + 1; j <= db->count; j++)
		db->start[j] = (uint32_t)(db->start[j] + delta);
	long rec = databin_size_index(db, id);
	if (rec >= 0) {
		db->sizes[rec].size = (uint32_t)bytes->len;
		bytes_set(&m->entry[id], bytes->p, bytes->len);
		return;
	}
	uint8_t *p = calloc(1, (size_t)blocks * BLK);
	assert_non_null(p);
	memcpy(p, bytes->p, bytes->len);
	free(m->entry[id].p);
	m->entry[id] = (struct bytes){p, (size_t)blocks * BLK};
}

/* ---- scenarios ---------------------------------------------------------- */

struct scenario {
	const char *name;
	bool pac;
	bool encrypted;
	bool backup;    /* -o backup: ARCHIVE.orig kept before the first write */
	bool copy_in_kernel;
	size_t nedits;
	struct edit edits[3];
	size_t live_max; /* a checkpoint after this many records (0: the default) */
};

/* Entry 12 has a size record and two blocks, entry 7 two blocks and no
 * record, entry 2 likewise; 17..20 are stored plain when encrypted.  A
 * growth of entry 17 or later moves few bytes (the tail is shifted in
 * place), of entry 12 or earlier most of the archive (it is rewritten). */
static const struct scenario SCENARIOS[] = {
	{"in place, encrypted", false, true, false, true, 2,
	 {{12, 3500, 3}, {7, 3000, 2}}, 0},
	{"in place, plain", false, false, false, true, 2, {{12, 3500, 3}, {7, 3000, 2}}, 0},
	{"growth and shrink near the end: tail shifted, encrypted", false, true, false, true, 3,
	 {{17, 5000, 2}, {21, 4500, 1}, {22, 1000, 1}}, 0},
	{"growth rewrite, encrypted", false, true, false, true, 1, {{2, 7000, 2}}, 0},
	{"growth rewrite, plain, copied through memory", false, false, false, false, 1,
	 {{2, 7000, 2}}, 0},
	{"in place, growth rewrite, shrink rewrite, encrypted, -o backup", false, true, true, true, 3,
	 {{12, 3500, 3}, {12, 7000, 1}, {2, 1000, 1}}, 0},
	{"in place, shift, then a rewrite over the live journal, plain", false, false, false, true, 3,
	 {{12, 3500, 3}, {20, 3000, 2}, {1, 4000, 1}}, 0},
	{"in place, checkpoints between, encrypted", false, true, false, true, 3,
	 {{12, 3500, 3}, {7, 3000, 2}, {12, 3300, 1}}, 1},
	{"shift, checkpoint, in place, plain", false, false, false, true, 3,
	 {{22, 5000, 3}, {12, 3000, 2}, {20, 1000, 1}}, 2},
	{"single PAC", true, false, false, true, 2, {{0, 9000, 2}, {0, 4000, 1}}, 0},
	{"single PAC, -o backup", true, false, true, false, 1, {{0, 6000, 2}}, 0},
};
#define NSCENARIOS (sizeof SCENARIOS / sizeof *SCENARIOS)

/* A mount of the archive in S: its descriptor and TOC, and the store. */
struct mount {
	int fd;
	struct databin db;
	struct store s;
};

static void mount_open(struct mount *mt, const struct model *m, size_t live_max)
{
	memset(mt, 0, sizeof *mt);
	mt->fd = sim_open(ARCHIVE, O_RDWR, 0);
	assert_true(mt->fd >= 0);
	store_init(&mt->s, &SIM_IO, &mt->fd, ARCHIVE, true, true);
	mt->s.hook = sim_hook;
	if (live_max)
		mt->s.journal.live_max = live_max;
	if (!m->pac) {
		db_copy(&mt->db, &m->db);
		mt->s.db = &mt->db;
	}
}

static void mount_free(struct mount *mt)
{
	if (mt->s.db)
		databin_free(&mt->db);
}

/* Whether the archive in S is `want`'s image. */
static bool archive_is(const struct model *want)
{
	struct bytes image = {0};
	model_image(want, &image);
	int f = named(ARCHIVE);
	bool same = f >= 0 && bytes_equal(&S.files[f].data, &image);
	bytes_free(&image);
	return same;
}

/* Fails the test, saying `what`, unless the archive in S is `want`'s
 * image. */
static void assert_archive(const struct model *want, const char *what, const struct scenario *sc,
			   long at)
{
	if (!archive_is(want))
		fail_msg("%s, call %ld (%s) failing: %s", sc->name, at,
			 S.failed ? S.failed : "none", what);
}

/* After recovery only the archive is left, with ARCHIVE.orig under -o
 * backup, which holds the archive as it was before the first commit. */
static void assert_recovered_directory(const struct scenario *sc, const struct model *first,
				       long at)
{
	for (int i = 0; i < MAX_NAMES; i++)
		if (S.names[i].path[0] && strcmp(S.names[i].path, ARCHIVE) &&
		    (!sc->backup || strcmp(S.names[i].path, ORIG)))
			fail_msg("%s, call %ld: %s left after recovery", sc->name, at,
				 S.names[i].path);
	int f = named(ORIG);
	if (f >= 0) {
		struct bytes image = {0};
		model_image(first, &image);
		if (!bytes_equal(&S.files[f].data, &image))
			fail_msg("%s, call %ld: %s is not the original", sc->name, at, ORIG);
		bytes_free(&image);
	}
}

/* The notes the last recovery handed back: bit k, commit k's. */
static unsigned RECOVERED;

/* The notes a recovery handed back, which the caller makes durable. */
static unsigned notes_of(const struct journal *j)
{
	unsigned got = 0;
	for (size_t i = 0; i < j->nrecovered; i++) {
		int k;
		if (j->recovered[i].len < 6 || sscanf((const char *)j->recovered[i].bytes,
						      "note %d", &k) != 1 || k < 1 || k > 30)
			fail_msg("a recovered note is not one the commits gave");
		got |= 1u << k;
	}
	return got;
}

/* A new mount of the archive in S recovers it: the journal replayed, its
 * notes taken (made durable, as the history does) and the journal
 * removed. */
static void recover(const struct scenario *sc, long at)
{
	struct fs_diag msg = {""};
	int fd = sim_open(ARCHIVE, O_RDWR, 0);
	assert_true(fd >= 0);
	struct store s;
	store_init(&s, &SIM_IO, &fd, ARCHIVE, true, true);
	if (store_recover(&s, &msg) == JOURNAL_FAILED)
		fail_msg("%s, call %ld: recovery failed: %s", sc->name, at, msg.msg);
	RECOVERED = notes_of(&s.journal);
	S.notes_durable |= RECOVERED;
	if (store_forget_recovered(&s, &msg))
		fail_msg("%s, call %ld: removing the journal failed: %s", sc->name, at, msg.msg);
	sim_close(fd);
}

/* The history's side (store.h note 6): every commit in the archive
 * (bit k of `landed`: commit k) has its note durable, and a recovery
 * hands back notes of commits in the archive only. */
static void assert_notes(unsigned landed, const struct scenario *sc, long at, const char *how)
{
	if (landed & ~S.notes_durable)
		fail_msg("%s, call %ld (%s): a commit in the archive lost its note (0x%x of 0x%x)",
			 sc->name, at, how, landed & ~S.notes_durable, landed);
	if (RECOVERED & ~landed)
		fail_msg("%s, call %ld (%s): a recovery handed back the note of a commit not in "
			 "the archive (0x%x)", sc->name, at, how, RECOVERED & ~landed);
}

/* One commit as fs/commit.c makes it: a pending journal replayed first,
 * then -o backup's copy, then the write.  *decided: the commit will be in
 * the archive (it returned 0, or the store is pending with it). */
static int commit(struct mount *mt, const struct scenario *sc, const struct model *m,
		  const struct edit *e, const struct bytes *bytes, bool *decided, struct fs_diag *why)
{
	why->msg[0] = '\0';
	*decided = false;
	char note[16]; /* commit k's note: "note k" */
	int n = snprintf(note, sizeof note, "note %d", ++S.notes_given);
	int err = store_replay_pending(&mt->s, why);
	if (!err && sc->backup)
		err = store_keep_original(&mt->s, why);
	if (err)
		return err;
	err = store_write_entry(&mt->s, e->id, m->entry[e->id].p, m->entry[e->id].len, bytes->p,
				bytes->len, (const uint8_t *)note, (size_t)n, why);
	*decided = !err || mt->s.pending;
	return err;
}

/* The mount describes the file its path names: its descriptor is that
 * file's, its TOC the model's. */
static void assert_mount_follows(const struct mount *mt, const struct model *m,
				 const struct scenario *sc, long at)
{
	int slot = slot_of(mt->fd);
	if (slot < 0 || S.fds[slot] != named(ARCHIVE))
		fail_msg("%s, call %ld: the mount's descriptor is not the archive's", sc->name, at);
	if (!m->pac)
		db_assert_equal(&mt->db, &m->db);
}

/* ---- (a) every call failed in turn -------------------------------------- */

/* Runs the scenario with call `fail_at` failing with `fail_errno`; returns
 * the calls it made. */
static long run_failing(const struct scenario *sc, long fail_at, int fail_errno)
{
	struct model m, first;
	struct bytes image = {0};
	model_init(&m, sc->pac, sc->encrypted);
	model_copy(&first, &m);
	model_image(&m, &image);
	sim_start(&image);
	S.copy_in_kernel = sc->copy_in_kernel;
	struct mount mt;
	mount_open(&mt, &m, sc->live_max);
	S.calls = 0;
	S.fail_at = fail_at;
	S.fail_errno = fail_errno;
	unsigned landed = 0;
	for (size_t i = 0; i < sc->nedits; i++) {
		const struct edit *e = &sc->edits[i];
		struct bytes bytes = {0};
		struct fs_diag why = {""};
		bool decided;
		edited(&m, e, &bytes);
		const char *failed_before = S.failed;
		int err = commit(&mt, sc, &m, e, &bytes, &decided, &why);
		/* A failure is the fault's, reported with an errno and a reason
		 * naming the file and saying what the call said. */
		if (err && (failed_before || !S.failed || !strstr(why.msg, ARCHIVE) ||
			    !strstr(why.msg, strerror(fail_errno)) ||
			    (err != EIO && err != fail_errno)))
			fail_msg("%s, %s (call %ld) failing with %s: commit %zu returned %s: \"%s\"",
				 sc->name, S.failed ? S.failed : "no call", fail_at,
				 strerror(fail_errno), i, strerror(err), why.msg);
		struct model next;
		model_copy(&next, &m);
		model_apply(&next, e->id, &bytes);
		/* A failed commit whose file was renamed in is decided too:
		 * the archive is the new one, and the mount must follow. */
		if (decided || archive_is(&next)) {
			model_free(&m);
			m = next;
			landed |= 2u << i;
		} else {
			model_free(&next);
		}
		if (!mt.s.pending)
			assert_archive(&m, err ? "a failed commit changed the archive"
					       : "a commit that returned 0 is not in the archive",
				       sc, fail_at);
		else if (!store_entry_unreadable(&mt.s, e->id))
			fail_msg("%s, call %ld: the entry of a pending commit reads", sc->name,
				 fail_at);
		assert_mount_follows(&mt, &m, sc, fail_at);
		bytes_free(&bytes);
	}
	long calls = S.calls;
	S.fail_at = 0;

	/* Then a new mount recovers what the disk holds... */
	struct sim after = {0};
	sim_free(&after);
	sim_copy(&after, &S);
	recover(sc, fail_at);
	assert_archive(&m, "after recovery at mount, the archive is not what was decided", sc,
		       fail_at);
	assert_recovered_directory(sc, &first, fail_at);
	assert_notes(landed, sc, fail_at, "recovered");
	/* ...or the mount goes on, and its next commit replays first; then
	 * it ends cleanly, leaving the archive alone. */
	sim_copy(&S, &after);
	sim_free(&after);
	RECOVERED = 0;
	struct fs_diag why = {""};
	if (store_replay_pending(&mt.s, &why))
		fail_msg("%s, call %ld: the replay failed: %s", sc->name, fail_at, why.msg);
	assert_archive(&m, "after the replay, the archive is not what was decided", sc, fail_at);
	if (store_close(&mt.s, &why))
		fail_msg("%s, call %ld: the unmount failed: %s", sc->name, fail_at, why.msg);
	assert_archive(&m, "after the unmount, the archive is not what was decided", sc, fail_at);
	assert_recovered_directory(sc, &first, fail_at);
	assert_notes(landed, sc, fail_at, "unmounted");
	sim_close(mt.fd);

	mount_free(&mt);
	model_free(&m);
	model_free(&first);
	bytes_free(&image);
	return calls;
}

static void test_every_call_failed_in_turn(void **state)
{
	(void)state;
	for (size_t k = 0; k < NSCENARIOS; k++) {
		long total = run_failing(&SCENARIOS[k], 0, 0);
		assert_true(total > 0);
		for (long n = 1; n <= total; n++)
			run_failing(&SCENARIOS[k], n, n % 2 ? EIO : ENOSPC);
	}
	sim_free(&S);
	sim_free(&CRASH);
}

/* ---- recovery, every call failed in turn --------------------------------- */

/* S as a failed commit leaves it pending: its journal complete, the
 * archive write failed.  *m becomes the model with the commit. */
static void make_pending(const struct scenario *sc, struct model *m, struct sim *out)
{
	for (long n = 1;; n++) {
		struct bytes image = {0}, bytes = {0};
		struct mount mt;
		struct fs_diag why = {""};
		bool decided;
		model_image(m, &image);
		sim_start(&image);
		mount_open(&mt, m, sc->live_max);
		S.calls = 0;
		S.fail_at = n;
		S.fail_errno = EIO;
		edited(m, &sc->edits[0], &bytes);
		commit(&mt, sc, m, &sc->edits[0], &bytes, &decided, &why);
		bool pending = mt.s.pending;
		mount_free(&mt);
		bytes_free(&image);
		if (pending) {
			model_apply(m, sc->edits[0].id, &bytes);
			bytes_free(&bytes);
			S.fail_at = 0;
			sim_copy(out, &S);
			return;
		}
		bytes_free(&bytes);
		if (!S.failed)
			fail_msg("%s: no failed call leaves the commit pending", sc->name);
	}
}

/* A mount's recovery of a pending journal, its 1st, 2nd, ... call
 * failing: it refuses the mount, or else the archive holds the commit
 * and no journal is left to be replayed over later ones: after a growth
 * rewrite and another recovery, the archive holds both commits. */
static void test_recovery_with_every_call_failed_in_turn(void **state)
{
	(void)state;
	const struct scenario *sc = &SCENARIOS[0];
	const struct edit grow = {12, 7000, 1};
	struct model m;
	struct sim pending = {0};
	sim_free(&pending);
	model_init(&m, sc->pac, sc->encrypted);
	make_pending(sc, &m, &pending);
	for (long n = 1;; n++) {
		struct fs_diag msg = {""}, why = {""};
		sim_copy(&S, &pending);
		int fd = sim_open(ARCHIVE, O_RDWR, 0);
		struct store s;
		store_init(&s, &SIM_IO, &fd, ARCHIVE, true, true);
		S.calls = 0;
		S.fail_at = n;
		S.fail_errno = EIO;
		S.failed = NULL;
		enum journal_recovery r = store_recover(&s, &msg);
		const char *failed = S.failed;
		S.fail_at = 0;
		struct fs_diag closing = {""};
		store_close(&s, &closing); /* the notes not taken: freed, the journal left */
		sim_close(fd);
		if (r == JOURNAL_FAILED) {
			if (!strstr(msg.msg, ARCHIVE) || !strstr(msg.msg, strerror(EIO)))
				fail_msg("recovery, %s (call %ld) failing: refused with \"%s\"",
					 failed ? failed : "no call", n, msg.msg);
			recover(sc, n);
			assert_archive(&m, "after a refused recovery, the next one did not replay",
				       sc, n);
		} else {
			assert_archive(&m, "a recovery that let the mount go on left the "
					   "archive without the commit", sc, n);
			struct model grown;
			struct bytes bytes = {0};
			struct mount mt;
			bool decided;
			model_copy(&grown, &m);
			edited(&grown, &grow, &bytes);
			mount_open(&mt, &grown, sc->live_max);
			if (commit(&mt, sc, &grown, &grow, &bytes, &decided, &why))
				fail_msg("recovery, call %ld failing: the next commit failed: %s", n,
					 why.msg);
			model_apply(&grown, grow.id, &bytes);
			recover(sc, n);
			assert_archive(&grown, "a journal left by recovery was replayed over a "
					       "later commit", sc, n);
			assert_recovered_directory(sc, &m, n);
			mount_free(&mt);
			model_free(&grown);
			bytes_free(&bytes);
		}
		if (!failed)
			break;
	}
	model_free(&m);
	sim_free(&pending);
	sim_free(&S);
}

/* A journal cut in the middle of a record is discarded at mount, and
 * the archive is as it was: the first failure that leaves a commit
 * pending is its first write into the archive. */
static void test_torn_journal_is_discarded(void **state)
{
	(void)state;
	const struct scenario *sc = &SCENARIOS[0];
	struct model old, m;
	struct sim pending = {0};
	struct fs_diag msg = {""};
	sim_free(&pending);
	model_init(&m, sc->pac, sc->encrypted);
	model_copy(&old, &m);
	make_pending(sc, &m, &pending);
	sim_copy(&S, &pending);
	int j = named(JOURNAL);
	assert_true(j >= 0);
	S.files[j].data.len /= 2;
	int fd = sim_open(ARCHIVE, O_RDWR, 0);
	struct store s;
	store_init(&s, &SIM_IO, &fd, ARCHIVE, true, true);
	assert_int_equal(store_recover(&s, &msg), JOURNAL_DISCARDED);
	assert_non_null(strstr(msg.msg, "discarded an incomplete journal"));
	assert_true(named(JOURNAL) < 0);
	assert_archive(&old, "a torn journal changed the archive", sc, 0);
	model_free(&old);
	model_free(&m);
	sim_free(&pending);
	sim_free(&S);
}

/* A mount killed after its commits landed leaves the journal: a
 * read-only mount, which may change nothing, goes on when the archive
 * holds every commit in it already (in place, and shifted: the last
 * length and each byte's last write), and refuses when one awaits replay
 * (a pending commit). */
static void test_read_only_mount_after_a_kill(void **state)
{
	(void)state;
	for (size_t k = 0; k < 3; k += 2) { /* in place; growth and shrink shifted */
		const struct scenario *sc = &SCENARIOS[k];
		struct model m;
		struct bytes image = {0};
		struct mount mt;
		model_init(&m, sc->pac, sc->encrypted);
		model_image(&m, &image);
		sim_start(&image);
		mount_open(&mt, &m, 0);
		for (size_t i = 0; i < sc->nedits; i++) {
			struct bytes bytes = {0};
			struct fs_diag why = {""};
			bool decided;
			edited(&m, &sc->edits[i], &bytes);
			if (commit(&mt, sc, &m, &sc->edits[i], &bytes, &decided, &why))
				fail_msg("%s: commit %zu: %s", sc->name, i, why.msg);
			model_apply(&m, sc->edits[i].id, &bytes);
			bytes_free(&bytes);
		}
		sim_close(mt.fd); /* killed: no unmount */
		mount_free(&mt);
		struct fs_diag msg = {""};
		int fd = sim_open(ARCHIVE, O_RDONLY, 0);
		struct store s;
		store_init(&s, &SIM_IO, &fd, ARCHIVE, false, true);
		if (store_recover(&s, &msg) != JOURNAL_HELD)
			fail_msg("%s: a read-only mount after a kill: \"%s\"", sc->name, msg.msg);
		assert_non_null(strstr(msg.msg, "in the archive already"));
		assert_true(archive_is(&m));
		assert_true(named(JOURNAL) >= 0);
		store_close(&s, &msg);
		sim_close(fd);
		model_free(&m);
		bytes_free(&image);
	}
	/* A commit pending: its record durable, the archive not written. */
	const struct scenario *sc = &SCENARIOS[0];
	struct model m;
	struct sim pending = {0};
	struct fs_diag msg = {""};
	sim_free(&pending);
	model_init(&m, sc->pac, sc->encrypted);
	make_pending(sc, &m, &pending);
	sim_copy(&S, &pending);
	int fd = sim_open(ARCHIVE, O_RDONLY, 0);
	struct store s;
	store_init(&s, &SIM_IO, &fd, ARCHIVE, false, true);
	assert_int_equal(store_recover(&s, &msg), JOURNAL_FAILED);
	assert_non_null(strstr(msg.msg, "awaits replay"));
	store_close(&s, &msg);
	sim_close(fd);
	model_free(&m);
	sim_free(&pending);
	sim_free(&S);
}

/* ---- (b) power lost after every call ------------------------------------ */

/* Recovers S, checks it holds one of want[lo..hi], then loses power
 * again (nothing written since the last sync kept), recovers again and
 * checks the same. */
static void check_recovery(const struct scenario *sc, const struct model *want, size_t lo,
			   size_t hi, const struct model *first, long at, const char *how)
{
	recover(sc, at);
	size_t got = lo;
	while (got <= hi && !archive_is(&want[got]))
		got++;
	if (got > hi)
		fail_msg("%s, power lost after call %ld (%s): the archive is none of the "
			 "states %zu..%zu (a mix, or a returned commit lost)",
			 sc->name, at, how, lo, hi);
	assert_recovered_directory(sc, first, at);
	assert_notes((2u << got) - 2, sc, at, how);
	struct sim done = {0};
	sim_free(&done);
	sim_copy(&done, &S);
	sim_power_loss(&done, 0, 0);
	sim_free(&done);
	recover(sc, at);
	if (!archive_is(&want[got]))
		fail_msg("%s, power lost after call %ld (%s): recovery did not last", sc->name,
			 at, how);
}

/* Runs the scenario until the power goes after call `crash_after`, then
 * recovers every state the disk may be left in.  Returns false when the
 * scenario ended first. */
static bool run_crashing(const struct scenario *sc, long crash_after)
{
	struct model want[4];
	struct bytes image = {0};
	model_init(&want[0], sc->pac, sc->encrypted);
	for (size_t i = 0; i < sc->nedits; i++) {
		struct bytes bytes = {0};
		model_copy(&want[i + 1], &want[i]);
		edited(&want[i], &sc->edits[i], &bytes);
		model_apply(&want[i + 1], sc->edits[i].id, &bytes);
		bytes_free(&bytes);
	}
	model_image(&want[0], &image);
	sim_start(&image);
	S.copy_in_kernel = sc->copy_in_kernel;
	struct mount mt;
	mount_open(&mt, &want[0], sc->live_max);
	S.calls = 0;
	S.crash_after = crash_after;
	size_t returned = 0;
	for (size_t i = 0; i < sc->nedits; i++) {
		struct bytes bytes = {0};
		struct fs_diag why = {""};
		bool decided;
		edited(&want[i], &sc->edits[i], &bytes);
		int err = commit(&mt, sc, &want[i], &sc->edits[i], &bytes, &decided, &why);
		bytes_free(&bytes);
		if (err) {
			if (!S.crashed)
				fail_msg("%s: commit %zu failed without a fault: %s", sc->name, i,
					 why.msg);
			break;
		}
		returned++;
	}
	/* Then the unmount: a checkpoint, the journal removed. */
	struct fs_diag closing = {""};
	if (store_close(&mt.s, &closing) && !S.crashed)
		fail_msg("%s: the unmount failed without a fault: %s", sc->name, closing.msg);
	bool crashed = S.crashed;
	if (!crashed)
		sim_copy(&CRASH, &S);
	mount_free(&mt);

	/* Every order-respecting state of the directory, with every choice
	 * of the files written since their sync. */
	size_t hi = returned < sc->nedits ? returned + 1 : returned;
	int dirty = dirty_files(&CRASH);
	assert_true(dirty <= 8);
	for (int ops = 0; ops <= CRASH.nops; ops++)
		for (unsigned kept = 0; kept < 1u << dirty; kept++) {
			char how[64];
			snprintf(how, sizeof how, "%d of %d directory changes, files 0x%x kept",
				 ops, CRASH.nops, kept);
			sim_power_loss(&CRASH, ops, kept);
			check_recovery(sc, want, returned, hi, &want[0], crash_after, how);
		}
	for (size_t i = 0; i <= sc->nedits; i++)
		model_free(&want[i]);
	bytes_free(&image);
	return crashed;
}

static void test_power_lost_after_every_call(void **state)
{
	(void)state;
	for (size_t k = 0; k < NSCENARIOS; k++)
		for (long at = 0; run_crashing(&SCENARIOS[k], at); at++)
			;
	sim_free(&S);
	sim_free(&CRASH);
}

/* ---- the real calls ------------------------------------------------------ */

/* The default table is the C library's functions themselves (open and
 * copy_file_range through a shape-fitting call), so an LD_PRELOAD shim
 * such as tests/faultio.c sees every call the store makes. */
/* A growth with too little room (beside the archive for a rewrite, for
 * the journal record of a shift) is refused before anything is written,
 * saying how much it needs and has. */
static void refused_for_room(const struct scenario *sc, const char *says)
{
	struct model m;
	struct bytes image = {0}, bytes = {0};
	struct fs_diag why = {""};
	struct mount mt;
	bool decided;
	model_init(&m, sc->pac, sc->encrypted);
	model_image(&m, &image);
	sim_start(&image);
	S.free_bytes = 8192;
	mount_open(&mt, &m, 0);
	S.calls = 0;
	edited(&m, &sc->edits[0], &bytes);
	assert_int_equal(commit(&mt, sc, &m, &sc->edits[0], &bytes, &decided, &why), ENOSPC);
	assert_false(decided);
	assert_int_equal(S.calls, 0); /* nothing opened, written or renamed */
	if (!strstr(why.msg, says) || !strstr(why.msg, "and 8192 bytes (0.0 MiB) are free: free"))
		fail_msg("%s: \"%s\"", sc->name, why.msg);
	assert_true(archive_is(&m));
	assert_int_equal(atomic_load(&mt.s.rewrite_total), 0);
	mount_free(&mt);
	model_free(&m);
	bytes_free(&image);
	bytes_free(&bytes);
	sim_free(&S);
}

static void test_growth_without_room_is_refused_first(void **state)
{
	(void)state;
	refused_for_room(&SCENARIOS[3], "No space left for a new archive: this commit moves "
					"entries, so it needs");
	refused_for_room(&SCENARIOS[2], "No space left for the journal: this commit moves "
					"entries, so it needs");
}

/* Many commits in place: checkpoints keep the journal to its live
 * records (the notes synced by the hook at each), and the unmount leaves
 * the archive alone, holding every commit. */
static void test_journal_stays_bounded(void **state)
{
	(void)state;
	const struct scenario *sc = &SCENARIOS[0];
	struct model m;
	struct bytes image = {0};
	struct mount mt;
	size_t commits = 3 * JOURNAL_LIVE_RECORDS + 5, longest = 0;
	model_init(&m, sc->pac, sc->encrypted);
	model_image(&m, &image);
	sim_start(&image);
	mount_open(&mt, &m, 0);
	for (size_t i = 0; i < commits; i++) {
		struct edit e = {i % 2 ? 12 : 7, 3000 + i % 7, 1 + (unsigned)(i % 3)};
		struct bytes bytes = {0};
		struct fs_diag why = {""};
		bool decided;
		edited(&m, &e, &bytes);
		bytes.p[i % bytes.len] ^= (uint8_t)i; /* each commit changes something */
		if (commit(&mt, sc, &m, &e, &bytes, &decided, &why))
			fail_msg("commit %zu: %s", i, why.msg);
		model_apply(&m, e.id, &bytes);
		bytes_free(&bytes);
		int j = named(JOURNAL);
		assert_true(j >= 0);
		if (S.files[j].data.len > longest)
			longest = S.files[j].data.len;
	}
	/* A record here is at most an entry's 3006 bytes, the TOC and their
	 * heads: the live records of 128 commits, not of all 389. */
	if (longest > (JOURNAL_LIVE_RECORDS + 1) * 5632)
		fail_msg("the journal grew to %zu bytes", longest);
	assert_true(S.hook_calls >= 3); /* a checkpoint every 128 commits */
	assert_true(archive_is(&m));
	struct fs_diag why = {""};
	assert_int_equal(store_close(&mt.s, &why), 0);
	assert_true(named(JOURNAL) < 0);
	assert_true(archive_is(&m));
	mount_free(&mt);
	model_free(&m);
	bytes_free(&image);
	sim_free(&S);
}

static void test_default_table_is_the_c_library(void **state)
{
	(void)state;
	assert_true(store_libc.close == close);
	assert_true(store_libc.pread == pread);
	assert_true(store_libc.pwrite == pwrite);
	assert_true(store_libc.fsync == fsync);
	assert_true(store_libc.fdatasync == fdatasync);
	assert_true(store_libc.fstat == fstat);
	assert_true(store_libc.fchmod == fchmod);
	assert_true(store_libc.fchown == fchown);
	assert_true(store_libc.flock == flock);
	assert_true(store_libc.rename == rename);
	assert_true(store_libc.unlink == unlink);
	assert_true(store_libc.access == access);
	assert_true(store_libc.fstatvfs == fstatvfs);
	assert_true(store_libc.ftruncate == ftruncate);
	assert_true(store_libc.sync_file_range == sync_file_range);
}

static void write_file(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static void assert_file_is(const char *path, const struct model *want)
{
	struct bytes image = {0};
	struct stat st;
	model_image(want, &image);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0 && !fstat(fd, &st));
	assert_int_equal(st.st_size, image.len);
	uint8_t *got = malloc(image.len);
	assert_non_null(got);
	assert_int_equal(pread(fd, got, image.len, 0), (ssize_t)image.len);
	assert_memory_equal(got, image.p, image.len);
	close(fd);
	free(got);
	bytes_free(&image);
}

/* The store on a real directory with the real calls: a commit in place
 * and a growth rewrite land, and a mount's recovery removes a leftover
 * rewrite and a torn journal.  A failure keeps the directory. */
static void test_real_calls_in_a_directory(void **state)
{
	(void)state;
	const char *tmpdir = getenv("TMPDIR");
	char dir[4096], path[4200], side[4300];
	struct fs_diag msg = {""};
	snprintf(dir, sizeof dir, "%s/mhfu-test-store.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/DATA.BIN", dir);
	struct model m;
	struct bytes image = {0};
	model_init(&m, false, true);
	model_image(&m, &image);
	write_file(path, image.p, image.len);

	int fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB));
	struct store s;
	struct databin db;
	store_init(&s, &store_libc, &fd, path, true, true);
	db_copy(&db, &m.db);
	s.db = &db;
	static const struct edit edits[] = {{12, 3500, 3}, {12, 7000, 1}};
	for (size_t i = 0; i < 2; i++) {
		struct bytes bytes = {0};
		struct fs_diag why = {""};
		edited(&m, &edits[i], &bytes);
		if (store_write_entry(&s, 12, m.entry[12].p, m.entry[12].len, bytes.p, bytes.len,
				      NULL, 0, &why))
			fail_msg("commit %zu: %s", i, why.msg);
		model_apply(&m, 12, &bytes);
		bytes_free(&bytes);
		assert_file_is(path, &m);
		db_assert_equal(&db, &m.db);
	}
	struct fs_diag why = {""};
	assert_int_equal(store_close(&s, &why), 0);
	close(fd);
	snprintf(side, sizeof side, "%s.mhfu-journal", path);
	assert_int_equal(access(side, F_OK), -1); /* a clean unmount leaves none */

	snprintf(side, sizeof side, "%s.mhfu-new", path);
	write_file(side, "half a rewrite", 14);
	snprintf(side, sizeof side, "%s.mhfu-journal", path);
	write_file(side, "MHFUJNL1 cut short", 18);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	store_init(&s, &store_libc, &fd, path, true, true);
	assert_int_equal(store_recover(&s, &msg), JOURNAL_DISCARDED);
	close(fd);
	assert_int_equal(access(side, F_OK), -1);
	snprintf(side, sizeof side, "%s.mhfu-new", path);
	assert_int_equal(access(side, F_OK), -1);
	assert_file_is(path, &m);

	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	databin_free(&db);
	model_free(&m);
	bytes_free(&image);
}

int main(void)
{
	sim_free(&S);
	sim_free(&CRASH);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_call_failed_in_turn),
		cmocka_unit_test(test_recovery_with_every_call_failed_in_turn),
		cmocka_unit_test(test_torn_journal_is_discarded),
		cmocka_unit_test(test_read_only_mount_after_a_kill),
		cmocka_unit_test(test_power_lost_after_every_call),
		cmocka_unit_test(test_growth_without_room_is_refused_first),
		cmocka_unit_test(test_journal_stays_bounded),
		cmocka_unit_test(test_default_table_is_the_c_library),
		cmocka_unit_test(test_real_calls_in_a_directory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
