/* SPDX-License-Identifier: MIT */
/* Tests of fs/store (store.h) through its seam, struct store_io.
 *
 * The table (tests/unit/simdir.h) acts on a directory simulated in memory:
 * each file keeps its bytes as written and as of its last fsync or
 * fdatasync, the
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
 * archive as it was before them, whole.  The archives are built from a
 * model with the codecs (tests/unit/store_model.h: databin_encode,
 * cipher_encrypt), not with the store, and are the oracle.  Two tests run
 * the real table, store_libc, in a temporary directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
#include "simdir.h"
#include "store.h"
#include "store_model.h"

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
	bool long_archive; /* store_model.h: a tail longer than a journal piece */
};

/* Entry 12 has a size record and two blocks, entry 7 two blocks and no
 * record, entry 2 likewise; 17..20 are stored plain when encrypted.  A
 * growth of entry 17 or later moves few bytes (the tail is shifted in
 * place), of entry 12 or earlier most of the archive (it is rewritten).
 * In a long archive entry 15 has 53 blocks and a size record, entry 16
 * 60 blocks and none, and the tails from them are shifted. */
static const struct scenario SCENARIOS[] = {
	{"in place, encrypted", false, true, false, true, 2,
	 {{12, 3500, 3}, {7, 3000, 2}}, 0, false},
	{"in place, plain", false, false, false, true, 2, {{12, 3500, 3}, {7, 3000, 2}}, 0, false},
	{"growth and shrink near the end: tail shifted, encrypted", false, true, false, true, 3,
	 {{17, 5000, 2}, {21, 4500, 1}, {22, 1000, 1}}, 0, false},
	{"growth rewrite, encrypted", false, true, false, true, 1, {{2, 7000, 2}}, 0, false},
	{"growth rewrite, plain, copied through memory", false, false, false, false, 1,
	 {{2, 7000, 2}}, 0, false},
	{"in place, growth rewrite, shrink rewrite, encrypted, -o backup", false, true, true, true, 3,
	 {{12, 3500, 3}, {12, 7000, 1}, {2, 1000, 1}}, 0, false},
	{"in place, shift, then a rewrite over the live journal, plain", false, false, false, true, 3,
	 {{12, 3500, 3}, {20, 3000, 2}, {1, 4000, 1}}, 0, false},
	{"in place, checkpoints between, encrypted", false, true, false, true, 3,
	 {{12, 3500, 3}, {7, 3000, 2}, {12, 3300, 1}}, 1, false},
	{"shift, checkpoint, in place, plain", false, false, false, true, 3,
	 {{22, 5000, 3}, {12, 3000, 2}, {20, 1000, 1}}, 2, false},
	{"long tail grown then shrunk, a journal piece at a time, encrypted", false, true, false,
	 true, 2, {{15, 53 * BLK + 3000, 2}, {16, 30000, 1}}, 0, true},
	{"long tail grown then shrunk, plain, copied through memory", false, false, false, false,
	 2, {{15, 53 * BLK + 3000, 2}, {16, 30000, 1}}, 0, true},
	{"single PAC", true, false, false, true, 2, {{0, 9000, 2}, {0, 4000, 1}}, 0, false},
	{"single PAC, -o backup", true, false, true, false, 1, {{0, 6000, 2}}, 0, false},
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

/* One commit as fs/commit/commit.c makes it: a pending journal replayed first,
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
	struct entry_write w = {e->id, m->entry[e->id].p, m->entry[e->id].len, bytes->p,
				bytes->len, (const uint8_t *)note, (size_t)n};
	err = store_write_entry(&mt->s, &w, why);
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
	model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
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
		/* Before its record is decided, a shift reads only the archive,
		 * to make the tail's pieces: that read failing is told as one,
		 * not as the journal's write. */
		if (err && sc->long_archive && !mt.s.pending && !failed_before && S.failed &&
		    !strcmp(S.failed, "pread") && strncmp(why.msg, "reading ", 8))
			fail_msg("%s, pread (call %ld) failing: \"%s\"", sc->name, fail_at, why.msg);
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
	model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
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
	model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
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
		model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
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
	model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
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
	model_init(&want[0], sc->pac, sc->encrypted, sc->long_archive);
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
 * such as tests/mount/faultio.c sees every call the store makes. */
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
	model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
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

/* The unmount checkpoints and removes the journal, leaving the archive
 * holding every commit (m's image); then the mount, m, its first image
 * and the directory are freed. */
static void unmount_holding(struct mount *mt, struct model *m, struct bytes *image)
{
	struct fs_diag why = {""};
	assert_int_equal(store_close(&mt->s, &why), 0);
	assert_true(named(JOURNAL) < 0);
	assert_true(archive_is(m));
	mount_free(mt);
	model_free(m);
	bytes_free(image);
	sim_free(&S);
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
	model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
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
	unmount_holding(&mt, &m, &image);
}

/* Large records reuse the journal's space: one that would make the file
 * longer goes at its start, after a checkpoint, so the file stays about
 * as long as the largest record rather than growing by each. */
static void test_journal_space_is_reused(void **state)
{
	(void)state;
	const struct scenario *sc = &SCENARIOS[9];
	const struct edit edits[] = {{15, 53 * BLK + 3000, 2}, {16, 30000, 1},
				     {15, 153 * BLK - 100, 1}};
	struct model m;
	struct bytes image = {0};
	struct mount mt;
	size_t len[3];
	unsigned hooks[3];
	assert_true(sc->long_archive);
	model_init(&m, sc->pac, sc->encrypted, sc->long_archive);
	model_image(&m, &image);
	sim_start(&image);
	mount_open(&mt, &m, 0);
	mt.s.journal.reuse_min = 256 << 10; /* the records here: a MiB or so */
	for (size_t i = 0; i < 3; i++) {
		struct bytes bytes = {0};
		struct fs_diag why = {""};
		bool decided;
		edited(&m, &edits[i], &bytes);
		if (commit(&mt, sc, &m, &edits[i], &bytes, &decided, &why))
			fail_msg("commit %zu: %s", i, why.msg);
		model_apply(&m, edits[i].id, &bytes);
		bytes_free(&bytes);
		assert_true(archive_is(&m));
		int j = named(JOURNAL);
		assert_true(j >= 0);
		len[i] = S.files[j].data.len;
		hooks[i] = S.hook_calls;
	}
	/* The first record (a tail of 591 blocks) is over a MiB; the second
	 * (491), shorter, takes its place; the third (644) grows the file by
	 * the 53 blocks it is longer. */
	assert_true(len[0] > JOURNAL_FILL_BYTES);
	assert_int_equal(len[1], len[0]);
	assert_int_equal(hooks[1], hooks[0] + 1);
	assert_int_equal(len[2], len[0] + 53 * BLK);
	assert_int_equal(hooks[2], hooks[1] + 1);
	unmount_holding(&mt, &m, &image);
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
	assert_non_null(store_libc.start_thread);
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

/* A new temporary directory (dir, 4096 bytes) holding DATA.BIN (its path
 * in path, 4200 bytes) with m's image, m made in `shape`. */
static void archive_in_temp_dir(char *dir, char *path, struct model *m, enum model_shape shape)
{
	const char *tmpdir = getenv("TMPDIR");
	struct bytes image = {0};
	snprintf(dir, 4096, "%s/mhfu-test-store.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, 4200, "%s/DATA.BIN", dir);
	model_init_shaped(m, false, true, shape);
	model_image(m, &image);
	write_file(path, image.p, image.len);
	bytes_free(&image);
}

/* The store on a real directory with the real calls: a commit in place
 * and a growth rewrite land, and a mount's recovery removes a leftover
 * rewrite and a torn journal.  A failure keeps the directory. */
static void test_real_calls_in_a_directory(void **state)
{
	(void)state;
	char dir[4096], path[4200], side[4300];
	struct fs_diag msg = {""};
	struct model m;
	archive_in_temp_dir(dir, path, &m, MODEL_SHORT);

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
		struct entry_write w = {12, m.entry[12].p, m.entry[12].len, bytes.p, bytes.len,
					NULL, 0};
		if (store_write_entry(&s, &w, &why))
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
}

/* The real table, but counting the threads its writes come from. */
static pthread_mutex_t writers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t writers[4];
static size_t nwriters;

static ssize_t counted_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	pthread_mutex_lock(&writers_lock);
	size_t i = 0;
	while (i < nwriters && !pthread_equal(writers[i], pthread_self()))
		i++;
	if (i == nwriters && nwriters < 4)
		writers[nwriters++] = pthread_self();
	pthread_mutex_unlock(&writers_lock);
	return pwrite(fd, buf, len, off);
}

static int open_descriptors(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A growth near the start of a wide archive, with the real calls: the
 * rewrite moves the entries after it in runs taken in turn by two
 * threads, plain ones and encrypted ones and one larger than a chunk;
 * the new file is the model's image byte for byte, the progress counted
 * every byte of it once, and the old file's descriptor is closed (behind
 * the commit, on a thread of its own). */
static void test_rewrite_on_two_threads(void **state)
{
	(void)state;
	char dir[4096], path[4200];
	struct model m;
	archive_in_temp_dir(dir, path, &m, MODEL_WIDE);

	struct store_io io = store_libc;
	io.pwrite = counted_pwrite;
	struct stat before, after;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB) && !fstat(fd, &before));
	struct store s;
	struct databin db;
	store_init(&s, &io, &fd, path, true, true);
	db_copy(&db, &m.db);
	s.db = &db;
	int open_before = open_descriptors();
	static const struct edit grow = {2, 3 * BLK + 100, 2};
	struct bytes bytes = {0};
	struct fs_diag why = {""};
	edited(&m, &grow, &bytes);
	struct entry_write w = {2, m.entry[2].p, m.entry[2].len, bytes.p, bytes.len, NULL, 0};
	if (store_write_entry(&s, &w, &why))
		fail_msg("the growth: %s", why.msg);
	model_apply(&m, 2, &bytes);
	bytes_free(&bytes);
	assert_file_is(path, &m);
	db_assert_equal(&db, &m.db);
	assert_true(!fstat(fd, &after) && after.st_ino != before.st_ino); /* rewritten */
	assert_int_equal(nwriters, 2);
	assert_int_equal(atomic_load(&s.rewrite_done), (uint64_t)after.st_size);
	assert_int_equal(atomic_load(&s.rewrite_total), 0);
	int open_now = open_descriptors();
	for (int i = 0; i < 200 && open_now > open_before; i++) {
		usleep(10000);
		open_now = open_descriptors();
	}
	assert_int_equal(open_now, open_before);

	assert_int_equal(store_close(&s, &why), 0);
	close(fd);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	databin_free(&db);
	model_free(&m);
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
		cmocka_unit_test(test_journal_space_is_reused),
		cmocka_unit_test(test_default_table_is_the_c_library),
		cmocka_unit_test(test_real_calls_in_a_directory),
		cmocka_unit_test(test_rewrite_on_two_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
