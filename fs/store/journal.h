/* SPDX-License-Identifier: MIT */
/* The write-ahead journal that makes a write of the store (store.h) in
 * place atomic and durable with one sync.
 *
 * NOTES ON THE DESIGN
 *  1. One file, ARCHIVE.mhfu-journal, created (and its directory synced)
 *     at the mount's first journaled commit, kept open until unmount and
 *     then removed.  Each commit appends a record: "MHFUJNL2", u64
 *     sequence number, u64 the archive's length after it (0: as it is),
 *     u32 count of writes, u32 length of the note, then per write u64
 *     offset, u32 length and the bytes, then the note (what the caller
 *     must be able to rebuild: the history's record, history.h), then a
 *     CRC-32 of the record.
 *  2. A commit: its record is written at the end of the live records and
 *     the journal fdatasync'ed -- the commit is then decided and durable
 *     -- and its writes made into the archive, which is not synced (a
 *     large record's writeback is started, sync_file_range(2), so that
 *     the sync after it finds it done).  One sync per commit.  A large
 *     write (a shifted tail) is never whole in memory: its bytes are
 *     made a piece at a time into the record, and copied from the
 *     journal into the archive in the kernel.
 *  3. Checkpoint, before the live records pass JOURNAL_LIVE_RECORDS or
 *     JOURNAL_LIVE_BYTES, before a record of JOURNAL_REUSE_BYTES or more
 *     would make the file longer (it goes at offset 0 instead), before
 *     anything not journaled changes the archive (a rewrite), and at
 *     unmount: the store's hook makes the notes' owner durable (the
 *     history fsyncs the records it wrote unsynced), then the archive is
 *     fdatasync'ed; only then are the records retired, by writing the
 *     next one at offset 0.  Nothing is synced to retire them: a record
 *     left past the live ones has a sequence number that does not follow
 *     (read stops there), and live records replayed again over an
 *     archive that already holds them change nothing (the writes are
 *     absolute and replayed in order).  The file keeps its length (the
 *     largest record, or JOURNAL_LIVE_BYTES and a small one): the next
 *     records overwrite pages and blocks the kernel holds already, which
 *     a file cut short or grown would allocate anew at every commit.
 *  4. Before a rewrite replaces the archive, the journal is emptied
 *     durably (truncated, synced): records of the old file must never
 *     be replayed over the new one.
 *  5. Reading back: records from offset 0 while each is whole (magic,
 *     bounds, CRC) and its sequence number follows the one before.  A
 *     crash mid-append leaves a torn last record: the commit had not
 *     returned, the archive was not touched by it, it is discarded.
 *  6. So after any crash or power loss, the records read back are
 *     exactly the commits decided since the last checkpoint (plus,
 *     harmlessly, ones already checkpointed), every entry is wholly old
 *     or wholly new once they are replayed, and a commit that returned
 *     is there.  A failed append is cut off again (truncated) so that a
 *     commit reported failed is never replayed; if that fails too, the
 *     commit is decided (pending).
 *
 * State (the caller serialises every call):
 *
 *   none --first commit: file created, directory synced--> open, 0 live
 *   open --record synced--> decided --archive written--> live += 1
 *   decided --archive write fails--> PENDING (store.h note 3)
 *   open --checkpoint: hook, archive synced--> open, 0 live
 *   open --retire: checkpoint, truncated, synced--> open, empty
 *   open --unmount: checkpoint, removed, directory synced--> none
 *   at mount: whole records replayed, archive synced, notes kept for the
 *             caller --journal_forget: removed--> none; torn: discarded;
 *             read-only, its commits in the archive already: left
 *
 * Every call goes through the store's table (store.h), on the store's
 * archive. */
#ifndef FS_JOURNAL_H
#define FS_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fserror.h"

#include "store_io.h"

/* What the journal writes through, handed to it by its owner (the
 * store) at each call, as SQLite's wal.c takes a file and never the
 * pager: the calls, the archive's descriptor (a rewrite replaces it) and
 * path (the journal is PATH.mhfu-journal beside it), whether the archive
 * may be written, and note 6's hook (NULL: none). */
struct journal_channel {
	const struct store_io *io;
	int *fd;
	const char *path;
	bool writable;
	int (*hook)(void *ctx, struct fs_diag *why);
	void *hook_ctx;
};

/* Live records allowed before a checkpoint (note 3): a checkpoint syncs
 * what they wrote into the archive, once however often they rewrote it
 * (two shifts of a tail, store.h, fit). */
#define JOURNAL_LIVE_RECORDS 128
#define JOURNAL_LIVE_BYTES (128u << 20)
#define JOURNAL_REUSE_BYTES (4u << 20)

/* A write's bytes are `data`, or when that is NULL, made by `fill` in
 * order, at most JOURNAL_FILL_BYTES at a time: fill(ctx, pos, buf, n)
 * puts bytes [pos, pos + n) of the write in buf, read from the archive
 * (a failure is reported as reading it), and returns 0, or an errno. */
#define JOURNAL_FILL_BYTES (1u << 20)

struct journal_write {
	uint64_t offset;       /* in the archive */
	const uint8_t *data;
	size_t len;
	int (*fill)(void *ctx, uint64_t pos, uint8_t *buf, size_t n);
	void *ctx;
};

/* A record: its writes, the archive's length after them (0: unchanged),
 * and the caller's note (NULL: none). */
struct journal_record {
	const struct journal_write *w;
	size_t n;
	uint64_t size;
	const uint8_t *note;
	size_t note_len;
};

/* A note read back at mount, malloc'ed. */
struct journal_note {
	uint8_t *bytes;
	size_t len;
};

/* The journal's state, in the store. */
struct journal {
	int fd;                 /* open from the first commit; -1: none */
	uint64_t end;           /* where the next record goes */
	uint64_t file_len;      /* the file's bytes, live records or not */
	uint64_t next_seq;
	size_t live;            /* records since the last checkpoint */
	size_t live_max;        /* JOURNAL_LIVE_RECORDS (a test may lower it) */
	size_t reuse_min;       /* JOURNAL_REUSE_BYTES (likewise) */
	bool archive_unsynced;  /* the archive was written since its last sync */
	struct journal_note *recovered; /* at mount: the notes of the records */
	size_t nrecovered;              /*   replayed, until journal_forget */
};

void journal_init(struct journal *j);

/* Commits a record (note 2), after a checkpoint when one is due.  0 or an
 * errno, with the reason in why.  *pending is set when the record is
 * durable but writing the archive failed (or cutting off a failed record
 * did): the commit will happen (journal_replay, or the next mount), and
 * the archive may hold part of it until then. */
int journal_commit(struct journal *j, const struct journal_channel *c,
		   const struct journal_record *r, bool *pending,
		   struct fs_diag *why);

/* Note 3: the hook, the archive synced, the records retired.  0, or EIO
 * with the reason in why (the records stay live). */
int journal_checkpoint(struct journal *j, const struct journal_channel *c, struct fs_diag *why);

/* Note 4: a checkpoint, then the journal emptied durably.  0 or EIO. */
int journal_retire(struct journal *j, const struct journal_channel *c, struct fs_diag *why);

/* At unmount: a checkpoint, then the journal removed; left when the
 * store is pending (the next mount replays it).  0, or EIO with the
 * reason in why (the journal then stays, and is replayed at the next
 * mount). */
int journal_close(struct journal *j, const struct journal_channel *c, bool pending,
		  struct fs_diag *why);

/* Replays the live records a failed commit left (journal_commit's
 * *pending) and syncs the archive.  0, or EIO with the reason in why. */
int journal_replay(struct journal *j, const struct journal_channel *c, struct fs_diag *why);

enum journal_recovery {
	JOURNAL_NONE, JOURNAL_REPLAYED, JOURNAL_DISCARDED, JOURNAL_HELD, JOURNAL_FAILED
};

/* At mount: replays the whole records into the archive and syncs it,
 * keeping their notes (j->recovered) and the journal for journal_forget;
 * a journal without a whole record is removed.  A store that is not
 * writable leaves a journal whose commits the archive holds already
 * (JOURNAL_HELD: a mount killed after its commits landed), for a
 * read-write mount to remove.  JOURNAL_FAILED when a journal cannot be
 * read, or whole records cannot be replayed (the store is not writable,
 * or the write fails): the mount must not go on.  Says what it did, or
 * why it failed, in msg. */
enum journal_recovery journal_recover(struct journal *j, const struct journal_channel *c,
				      struct fs_diag *msg);

/* Once the caller has made the recovered notes durable: frees them and
 * removes the journal they came from.  0, or EIO with the reason in why
 * (the journal then stays: its records are replayed again at the next
 * mount, harmlessly, and the next commit appends after them). */
int journal_forget(struct journal *j, const struct journal_channel *c, struct fs_diag *why);

#endif
