/* SPDX-License-Identifier: MIT */
/* The store: every write into the mounted archive, and the recovery of an
 * interrupted one at mount, made through one table of system calls.
 *
 * NOTES ON THE DESIGN
 *  1. Four ways to write an entry.  A DATA.BIN entry that keeps its block
 *     count is written in place through the journal (journal.h): only
 *     the bytes that differ, plus the TOC when its size record changes.
 *     One whose block count changes moves every later entry (each
 *     re-encrypted under its new start block): when the bytes to move
 *     are few (SHIFT_MAX_BYTES, and at most half the archive), the tail
 *     is shifted in place, its new bytes, the TOC and the archive's new
 *     length one journal record, so a crash mid-shift is redone at the
 *     next mount; else a whole new archive is written to
 *     ARCHIVE.mhfu-new (unchanged spans, and moved entries stored plain,
 *     copied in the kernel; the others re-encrypted on two threads, each
 *     taking the next run of entries in turn; each chunk's writeback
 *     started as it is written, two chunks dirty a thread at most),
 *     synced, renamed over the archive and the directory synced, the old
 *     file closed behind (its blocks freed after the write returns).  A single PAC
 *     is always replaced that way.  Either way the change is durable
 *     before the write returns 0: a journal record once synced, a
 *     rewrite once renamed and its directory synced.
 *  2. So after any crash or power loss, once recovered (store_recover, at
 *     the next mount), every entry is wholly old or wholly new, and a
 *     write that returned 0 is there.  A write that failed leaves the
 *     archive as it was -- except in the error state.
 *  3. The error state.  Once a journal record is synced the commit is
 *     decided; if writing the archive then fails, the archive may hold
 *     part of it.  The store is then `pending`: reads of the entries it
 *     writes must fail with EIO (store_entry_unreadable), no other
 *     record is written, and the next write replays the journal first
 *     (store_replay_pending), or else the next mount does.  The TOC in
 *     memory is already the new one.
 *  4. -o backup: before the first write, the archive is copied to
 *     ARCHIVE.mhfu-new, synced and renamed ARCHIVE.orig, once
 *     (store_keep_original): a copy cut short never takes that name.
 *  5. A rewrite needs room for the whole new archive beside the old: it
 *     is refused with ENOSPC before anything is written when its
 *     filesystem has less free, saying how much it needs; while it runs,
 *     rewrite_done and rewrite_total say how far it is (.mhfu/info).
 *  6. The hook.  A journal record carries the caller's note (the
 *     history's record of the commit), which the caller writes unsynced;
 *     before anything retires records (a checkpoint) or changes the
 *     archive outside the journal (a rewrite, a PAC's replacement), the
 *     store calls `hook`, which makes the caller's side durable.  At
 *     mount the notes of the records replayed are handed back
 *     (journal.recovered) for the caller to rebuild from, then
 *     store_forget_recovered removes the journal.
 *  7. At unmount (store_close) the journal is checkpointed and removed:
 *     the archive alone holds every commit.
 *
 * States (one store per mounted archive; the caller serialises every call
 * on it, as the archive's `io` lock does):
 *
 *   clean --in place or shift: record synced, archive written--> clean
 *   in place or shift --archive write fails--> PENDING (reads: EIO)
 *   PENDING --store_replay_pending (the next write), or the next mount--> clean
 *   clean --rewrite: journal retired, new file synced, renamed over,
 *           directory synced--> clean
 *   clean --unmount: checkpoint, journal removed--> closed
 *   at mount: whole records replayed, a torn one discarded, a leftover
 *             ARCHIVE.mhfu-new removed --> clean
 *
 * The seam.  Every call on the archive, its journal, its replacement, its
 * backup and their directory goes through `struct store_io`, as SQLite's
 * os_unix.c makes its system calls through a table.  The default table,
 * store_libc, calls the C library's functions (so an LD_PRELOAD shim
 * still sees every call); a test swaps in its own table to fail any call
 * or to simulate power loss, keeping each file as of its last sync.  The
 * table has no context pointer, like the calls it stands for. */
#ifndef FS_STORE_H
#define FS_STORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include "fserror.h"
#include "databin.h"
#include "journal.h"
#include "store_io.h"

struct store {
	const struct store_io *io; /* the calls: &store_libc, or a test's */
	int *fd;                   /* the caller's descriptor of the archive (the
				      caller closes it); a write that renames a new
				      file over the archive closes this one (maybe
				      after it returns, on a thread of the table's)
				      and leaves the new one's here */
	const char *path;          /* the archive's absolute path (the caller's) */
	struct databin *db;        /* its TOC (the caller's), updated by every
				      write; NULL: the archive is a single PAC
				      (and until the caller has read the TOC) */
	bool writable;             /* *fd is open read-write */
	bool locked;               /* *fd holds the archive's exclusive flock: a
				      replacement is locked too before its rename */
	bool backed_up;            /* ARCHIVE.orig exists */
	bool pending;              /* the error state (note 3) */
	uint32_t pending_entry;    /* pending: the entries whose commit awaits */
	uint32_t pending_last;     /*   replay, first to last */
	struct journal journal;    /* journal.h */
	/* Note 6: makes the notes' owner durable; 0, or an errno with the
	 * reason in why.  NULL: no notes. */
	int (*hook)(void *ctx, struct fs_diag *why);
	void *hook_ctx;
	_Atomic uint64_t bytes_written; /* into the archive by writes, for statistics */
	_Atomic uint64_t rewrite_done;  /* a rewrite under way: bytes of the new */
	_Atomic uint64_t rewrite_total; /*   archive written, of its size (0: none) */
};

/* Sets the store up over the caller's archive, its descriptor `fd` and
 * path (both must outlive the store), as a single PAC: the caller points
 * `db` at the TOC once it has read one.  Nothing is read or written. */
void store_init(struct store *s, const struct store_io *io, int *fd, const char *path,
		bool writable, bool locked);

/* At mount, before the archive is read: removes a leftover rewrite (or
 * backup copy), then recovers the journal (journal_recover: JOURNAL_FAILED
 * means the mount must not go on; the notes of the records replayed are
 * in s->journal.recovered until store_forget_recovered).  Says what it did, or why it failed,
 * in msg ("" when nothing). */
enum journal_recovery store_recover(struct store *s, struct fs_diag *msg);

/* Whether reads of entry `id` must fail: it is in the error state. */
static inline bool store_entry_unreadable(const struct store *s, uint32_t id)
{
	return s->pending && id >= s->pending_entry && id <= s->pending_last;
}

/* Leaves the error state by replaying the pending journal: 0 (also when
 * there is none), or EIO with the reason in why (the state stays). */
int store_replay_pending(struct store *s, struct fs_diag *why);

/* -o backup: copies the archive to ARCHIVE.orig and syncs it, unless it
 * exists already.  0, or EIO with the reason in why. */
int store_keep_original(struct store *s, struct fs_diag *why);

/* One entry's replacement, handed down the write chain whole: entry `id`
 * (0 for a single PAC), whose bytes are `old` (old_len of them, as the
 * caller read them), becomes `bytes` (len of them); `note` (note_len
 * bytes, NULL: none) goes into the journal record (note 6). */
struct entry_write {
	uint32_t id;
	const uint8_t *old;
	size_t old_len;
	const uint8_t *bytes;
	size_t len;
	const uint8_t *note;
	size_t note_len;
};

/* Makes w: the entry encrypted under its start block when the archive
 * is, its size record updated; in place through the journal when its
 * block count stays, only the bytes that differ; else by a shift of the
 * tail or a rewrite (note 1).  The store must be writable and not
 * pending.  Returns 0, or an errno with the reason in why: the archive
 * and the TOC are then unchanged, unless the store is now pending, or a
 * rewrite failed only after renaming its file over the archive (syncing
 * the directory): *fd and the TOC are then the new file's, which the
 * path names, and a crash may bring back either. */
int store_write_entry(struct store *s, const struct entry_write *w, struct fs_diag *why);

/* Note 6: frees the notes handed back at mount and removes the journal
 * they came from: 0, or EIO with the reason in why. */
int store_forget_recovered(struct store *s, struct fs_diag *why);

/* Note 7, at unmount: 0, or EIO with the reason in why (the journal then
 * stays, for the next mount). */
int store_close(struct store *s, struct fs_diag *why);

/* Makes everything the journal holds durable in the archive itself (a
 * checkpoint, journal.h note 3): 0, or EIO with the reason in why. */
int store_checkpoint(struct store *s, struct fs_diag *why);

#endif
