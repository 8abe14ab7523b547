/* The write-ahead journal that makes an in-place write of the store
 * (store.h) atomic.
 *
 * NOTES ON THE DESIGN
 *  1. An in-place write is a set of writes into the archive (the entry's
 *     blocks, the TOC when a size record changes).  They are first
 *     written to ARCHIVE.mhfu-journal with a checksum and synced, with its
 *     directory; only then is the archive written and synced; then the
 *     journal is removed.
 *  2. A crash before the journal is complete leaves the archive untouched
 *     (the torn journal fails its checksum and is discarded at the next
 *     mount); a crash after it leaves a complete journal, replayed at the
 *     next mount (replaying twice is harmless: the writes are absolute).
 *  3. So every entry written in place is always fully old or fully new,
 *     and once a commit has returned, it survives any crash.
 *
 * State:  clean --journal synced--> pending --archive synced--> applied
 *         --journal removed--> clean.  Mount: pending/applied -> replay ->
 *         clean; torn -> discard -> clean.
 *
 * Every call goes through the store's table (store.h), on the store's
 * archive. */
#ifndef FS_JOURNAL_H
#define FS_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fserror.h"

struct store;

struct journal_write {
	uint64_t offset;       /* in the archive */
	const uint8_t *data;
	size_t len;
};

/* Applies `n` writes to the store's archive atomically, as described
 * above.  0 or an errno, with the reason in why.  *pending is set when
 * the journal was synced but writing the archive failed: the commit will
 * happen (journal_replay, or the next mount), and the archive may hold
 * part of it until then. */
int journal_commit(const struct store *s, const struct journal_write *w, size_t n,
		   bool *pending, struct fs_diag *why);

/* Replays the complete journal a failed commit left (journal_commit's
 * *pending) and removes it.  0 or an errno, with the reason in why; the
 * journal then stays. */
int journal_replay(const struct store *s, struct fs_diag *why);

enum journal_recovery { JOURNAL_NONE, JOURNAL_REPLAYED, JOURNAL_DISCARDED, JOURNAL_FAILED };

/* At mount: replays a complete journal into the archive and removes it,
 * discards a torn one.  JOURNAL_FAILED when a journal cannot be read, or
 * a complete one cannot be replayed (the store is not writable, or the
 * write fails) or removed after it: the mount must not go on.  Says what
 * it did, or why it failed, in msg. */
enum journal_recovery journal_recover(const struct store *s, struct fs_diag *msg);

#endif
