/* SPDX-License-Identifier: MIT */
/* The history of commits, kept in the archive's record folder (record.h)
 * so that every commit can be undone, across unmounts; and each changed
 * entry's bytes as they were before its first commit (its original), for
 * .mhfu/original/, .mhfu/changed.tsv and .mhfu/export/.
 *
 * NOTES ON THE DESIGN
 *  1. Files, in the record folder: history/NNNNNNNNNNNN, one per commit
 *     (its id, 12 decimal digits): the commit's time, entry, view, the
 *     entry's size and CRC-32 before and after, the commit it undoes, its
 *     rule warnings, then what the commit replaced, zlib-compressed (the
 *     entry's previous bytes between the ends the two sides share: a
 *     keyframe's edit keeps a few bytes), and a CRC-32 of the whole file.
 *     original/NNNNN, one per entry ever changed (its engine id): the
 *     entry's bytes before its first commit, as a zlib stream of stored
 *     blocks (compressing would hold up the first commit), likewise
 *     checked.
 *  2. Order.  A commit's original (at its entry's first commit) is
 *     written and synced before the store touches the archive
 *     (history_prepare); its record is written unsynced, and its bytes go
 *     into the commit's journal record (journal.h), synced with it: one
 *     sync for both.  Before the journal retires records the store calls
 *     history_sync, which syncs the records written since; at mount the
 *     records the journal replayed are written again, synced
 *     (history_open).  A commit that fails takes its record back
 *     (history_settle), unless the store will still complete it (its
 *     journal is pending) or replaced the file all the same.
 *  3. So a crash can leave a record of a commit that never landed (the
 *     crash came before its journal was complete), never lose the record
 *     of one that did.  At mount (history_open) each entry's records are
 *     checked as a chain: a record stands when the next record of its
 *     entry starts from the bytes it ended with (size and CRC), or, being
 *     the entry's last, when the entry holds them now; the others are
 *     removed.  So is a file cut short.  An original is written once, by
 *     renaming a synced temporary, and never changes.
 *     Undoing commit N takes the entry back from what it holds through
 *     its later records to N (history_previous); records go oldest
 *     first, so that chain is always whole.
 *  4. Bounds: the newest HISTORY_MAX_COMMITS records within
 *     HISTORY_MAX_BYTES on disk (the newest always kept); older ones are
 *     removed as new ones come.  Originals are not bounded (one per entry
 *     ever changed, at most the archive): they go with the
 *     record folder, removed by hand.
 *  5. With no record folder (record.h: the record in memory), records
 *     and originals are kept in memory until unmount.
 *
 * Locking: the archive's io lock, held exclusively by the calls that
 * change the history (prepare, settle: a commit), shared by the others;
 * `lock` guards the originals' bytes, decompressed on first use. */
#ifndef FS_HISTORY_H
#define FS_HISTORY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fserror.h"
#include "journal.h"
#include "rules.h"

/* The bounds by default (-o history=N sets the count). */
#define HISTORY_MAX_COMMITS 200
#define HISTORY_MAX_BYTES (256ull << 20)

struct history_commit {
	uint64_t id;              /* 1, 2, ... across mounts */
	struct timespec time;     /* when it was committed (UTC) */
	uint32_t entry;           /* the entry's engine id */
	uint64_t old_len, new_len; /* the entry's bytes before and after */
	uint32_t old_crc, new_crc;
	uint64_t undoes;          /* the commit it undid, 0 if none */
	char *path;               /* the view written */
	char *warnings;           /* its rule warnings: "CODE message", "; "
				     between them; "" when none */
	uint64_t file_bytes;      /* of its record on disk */
	uint8_t *kept;            /* in memory (no record folder): the file */
};

struct history_original {
	uint64_t len;             /* the entry's bytes before its first commit */
	uint32_t crc;
	uint8_t *kept;            /* in memory (no record folder): the file */
	_Atomic(uint8_t *) bytes; /* decompressed on first use, then kept */
};

struct history {
	int dir;                  /* the record's history/, -1: in memory */
	int originals_dir;        /* the record's original/, -1: in memory */
	uint32_t entries;         /* of the archive: ids below it */
	struct history_commit *commits; /* oldest first */
	size_t n, cap;
	uint64_t next_id;
	uint64_t bytes;           /* of the records */
	size_t max_commits;       /* the bounds (note 4) */
	uint64_t max_bytes;
	struct history_original **originals; /* per entry, NULL: unchanged */
	pthread_mutex_t lock;     /* guards originals' bytes */
	uint8_t *note;            /* the last prepared record's bytes, for the */
	size_t note_len;          /*   journal (NULL: in memory) */
	uint64_t *unsynced;       /* ids of records written unsynced (note 2) */
	size_t nunsynced, unsynced_cap;
};

/* The CRC-32 the history keeps of an entry's bytes. */
uint32_t history_crc(const uint8_t *p, size_t len);

/* What an entry holds now: its size and CRC-32; 0 or an errno. */
typedef int history_current_fn(void *ctx, uint32_t entry, uint64_t *len, uint32_t *crc);

/* Opens the history of an archive of `entries` entries in the record
 * folder `record_dir` (-1: in memory), creating history/ and original/,
 * writes again the records the journal replayed at mount (`recovered`,
 * nrecovered of them: journal.h), and checks it against what the
 * entries hold now (note 3), removing what did not land; keeps at most
 * max_commits records (0: the default).  0, or an errno with the reason
 * in msg (the history is then in memory). */
int history_open(struct history *h, int record_dir, uint32_t entries, size_t max_commits,
		 const struct journal_note *recovered, size_t nrecovered,
		 history_current_fn *current, void *ctx, struct fs_diag *msg);
void history_close(struct history *h);

/* What a commit is, for its record. */
struct history_change {
	uint32_t entry;
	const char *path;         /* the view written */
	const uint8_t *old, *now; /* the entry's bytes before and after */
	size_t old_len, now_len;
	uint64_t undoes;          /* the commit it undoes, 0 if none */
	const struct rule_report *warnings;
};

/* Before a commit writes the archive: keeps the entry's original if it
 * has none (synced), and writes the commit's record, unsynced, its bytes
 * in h->note for the journal (note 2); *id is the commit's.  0, or an
 * errno with the reason in why: no record is kept then. */
int history_prepare(struct history *h, const struct history_change *c, uint64_t *id,
		    struct fs_diag *why);

/* Makes the records written since the last call durable (fsync each and
 * the folder): 0, or an errno with the reason in why.  history_hook is
 * the same, as the store's hook (store.h note 6), ctx the history. */
int history_sync(struct history *h, struct fs_diag *why);
int history_hook(void *ctx, struct fs_diag *why);

/* After the write: a commit that did not land takes its record back;
 * one that did drops the oldest records past the bounds. */
void history_settle(struct history *h, uint64_t id, bool landed);

/* The commit of id, NULL when there is none (never made, or dropped past
 * the bounds); valid until the next prepare or settle. */
const struct history_commit *history_find(const struct history *h, uint64_t id);

/* The bytes entry c->entry had before commit c, malloc'ed, from what it
 * holds now (now[0..now_len)): each record keeps what its commit replaced
 * (note 1), so the entry is taken back through its later commits to c.
 * 0, or an errno with the reason in why (EIO: a record is damaged, or the
 * entry is not as the history left it). */
int history_previous(struct history *h, const struct history_commit *c, const uint8_t *now,
		     size_t now_len, uint8_t **bytes, size_t *len, struct fs_diag *why);

/* Whether the entry was ever changed (has an original), and its original
 * bytes, decompressed on first use and kept until history_close: 0, or
 * ENOENT, EIO (damaged), ENOMEM. */
bool history_changed(const struct history *h, uint32_t entry);
uint64_t history_original_len(const struct history *h, uint32_t entry);
int history_original(struct history *h, uint32_t entry, const uint8_t **bytes, size_t *len);

/* The first entry >= from that has an original; false if none. */
bool history_next_changed(const struct history *h, uint32_t from, uint32_t *entry);

#endif
