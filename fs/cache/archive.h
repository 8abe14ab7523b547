/* SPDX-License-Identifier: MIT */
/* The mounted archive: the backing file, its TOC, and what has been
 * learnt about its entries so far.
 *
 * A single-PAC mount is an archive of one plain entry spanning the file.
 *
 * Locking.  `io` is held shared by every FUSE operation that looks at the
 * archive (its fd, TOC or caches) and exclusively by a commit, which may
 * move entries, replace the file and drop an entry's caches; so readers
 * see the archive wholly before or wholly after a commit.  Within the
 * shared hold, lazily learnt facts (an entry's kind, its container tree,
 * a model, index.tsv) are computed once and published with release
 * stores, read with acquire loads; `lock` serialises their builders.
 * Lock order: io, then lock. */
#ifndef FS_ARCHIVE_H
#define FS_ARCHIVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fserror.h"
#include "databin.h"
#include "anim.h"
#include "kind.h"
#include "log.h"
#include "pactree.h"
#include "store.h"

struct record;

enum archive_format { FORMAT_DATABIN, FORMAT_PAC };

/* The most entries a mount numbers (node.h: engine id + 1 in 15 bits,
 * the top value kept for numbers allocated after a commit). */
#define ARCHIVE_MAX_ENTRIES 32766u

/* Where the entries of an archive without a backing file come from: the
 * original tree's (.mhfu/original/, history.h).  has: whether entry id
 * is there at all; size: its byte size; read: len bytes at off of it (off
 * and len within its size), 0 or an errno. */
struct archive_source {
	bool (*has)(void *ctx, uint32_t id);
	uint64_t (*size)(void *ctx, uint32_t id);
	int (*read)(void *ctx, uint32_t id, uint64_t off, void *buf, size_t len);
	void *ctx;
};

/* Why archive_open failed: decides the exit code.  AR_EBUSY: another
 * mount holds the archive (one writer, or readers only). */
enum archive_error { AR_OK, AR_EIO, AR_EFORMAT, AR_EBUSY };

struct archive_entry {
	_Atomic int kind;                    /* enum kind, or -1 until sniffed */
	_Atomic(struct pactree *) tree;      /* NULL until built */
	_Atomic bool tree_failed;            /* built and not a valid PAC */
	struct model_cache cache;            /* a skeleton or pack entry's model */
	_Atomic uint64_t generation;         /* commits to this entry so far */
	_Atomic int clip_format;             /* enum clip_format of its packs as
						last seen by a commit: a pack
						emptied of clips does not say */
	struct timespec mtime;               /* its last commit, else the
						archive's mtime at mount */
	_Atomic bool used;                   /* looked at since the eviction
						clock last passed */
	_Atomic(struct model *) carried;     /* a PMO's model from before the
						entry's bytes last changed, its
						vertices.tsv printed: the next
						model of that PMO reprints only
						the rows that changed
						(archive_take_carried) */
	uint64_t carried_offset;             /* where that PMO was in the entry */
};

/* What the mount has learnt of the entries: per entry (kind, container
 * tree, model, generation), the index, and the decoded bytes' budget with
 * its eviction clock.  Dropped and rebuilt as commits change the entries;
 * the archive's bytes never depend on it. */
struct entry_cache {
	struct archive_entry *entries; /* the archive's count of them */
	_Atomic(char *) index_tsv;     /* built on first use */
	_Atomic bool all_sniffed;      /* every entry's kind is known */
	_Atomic bool kinds_kept;       /* the record's kinds file says what
					  the entries' kinds are (kinds.h) */
	_Atomic bool kinds_saving, kinds_said; /* kinds.h's own */
	uint32_t kinds_remembered;     /* kinds the file gave at mount */
	_Atomic uint64_t heads_sniffed; /* kinds read from the entries' heads */
	_Atomic uint64_t pictures_made; /* plots, model.glb files and PNGs made */
	size_t budget;                 /* -o cache_mb: bytes of decoded trees,
					  models and texts to keep */
	_Atomic size_t bytes;          /* held now */
	_Atomic uint64_t evictions;    /* entries whose caches were dropped */
	uint32_t clock_hand;           /* next entry the eviction looks at */
};

/* The archive proper: the backing file, its TOC and the store that
 * writes it, with the entry cache beside them. */
struct archive {
	int fd;                        /* the backing file, read-write when
					  writable; the store replaces it when a
					  write renames a new file over it */
	char *path;                    /* absolute, for messages and the store */
	uint64_t size;                 /* bytes of the backing file */
	struct timespec mtime;         /* of the backing file */
	struct stat seen;              /* the backing file as this mount last
					  saw it: at open, after each commit */
	enum archive_format format;
	struct databin db;             /* FORMAT_DATABIN only */
	const char *game_from;         /* what told db.game, for .mhfu/info */
	uint32_t count;                /* entries */
	struct entry_cache cache;      /* what is known of them */
	pthread_rwlock_t io;           /* readers shared, commits exclusive */
	pthread_mutex_t lock;          /* serialises lazy builders */
	bool writable;                 /* opened read-write */
	bool locked;                   /* fd holds the archive's flock: exclusive
					  when writable, else shared */
	bool backup;                   /* -o backup: keep ARCHIVE.orig */
	/* The write side: every write into the archive and its recovery,
	 * through the store's table of calls (reads use the table too); it
	 * holds the error state (store.h), its `pending` under `io`. */
	struct store store;
	_Atomic uint64_t reads, bytes_read; /* statistics for .mhfu/info */
	_Atomic uint64_t prefetched;   /* entries stored ahead of readers */
	_Atomic uint64_t commits, refusals;
	uint64_t startup_us;           /* main() to mounted, for .mhfu/info */
	_Atomic uint64_t last_commit_us; /* the last commit, lock to synced */
	struct mlog *log;              /* where damaged entries are reported */
	struct record *record;         /* where overrides are kept (record.h), or
					  NULL; set once before the mount serves */
	/* An archive read from a source, not a file (archive_open_source):
	 * its entries come from there; fd, db's start list and store unused. */
	const struct archive_source *source;
	/* An archive read under this one's io lock (the original tree, whose
	 * own lock is unused): its caches are trimmed with ours. */
	struct archive *companion;
	/* The entry the last commit wrote, its bytes as written: the views
	 * remade after it, and the next commit to it, read them here, not
	 * from the file and its cipher again.  Set and dropped with `io`
	 * held exclusively; serves while written_generation is the
	 * entry's. */
	uint8_t *written;
	size_t written_len;
	uint32_t written_id;
	uint64_t written_generation;
};

/* What archive_open opens, and how. */
struct archive_options {
	const char *path;
	struct mlog *log;            /* where damaged entries are reported */
	enum databin_game game;      /* forced; GAME_UNKNOWN: told from it */
	bool read_only;
	unsigned lock_wait_ms;       /* how long another mount's lock is waited for */
	const struct store_io *io;   /* the system calls (store_io.h); NULL: libc's */
};

/* Opens o->path: a DATA.BIN (plain or encrypted) or a single PAC, locked
 * for the mount's life (exclusively when opened read-write, else shared;
 * AR_EBUSY when another mount still holds it after lock_wait_ms), every
 * call on it through o->io.  On failure, a message naming what and where
 * is written to msg. */
enum archive_error archive_open(struct archive *ar, const struct archive_options *o,
				struct fs_diag *msg);
void archive_close(struct archive *ar);

/* At unmount, before the store's hook goes (the history closes): the
 * journal checkpointed and removed (store_close), a failure logged.
 * archive_close does it too, if still due. */
void archive_finish(struct archive *ar);

/* Opens an archive shaped like `like` (format, entry count, game, path)
 * whose entries come from `src`, read-only, read under like's io lock
 * (which trims its caches: like->companion).  0 or ENOMEM. */
int archive_open_source(struct archive *ar, struct archive *like,
			const struct archive_source *src);

/* Whether entry id is there: always, unless the archive's source lacks it. */
bool archive_entry_present(const struct archive *ar, uint32_t id);

/* CLOCK_MONOTONIC in microseconds, for the timings in .mhfu/info. */
uint64_t archive_now_us(void);

uint64_t archive_entry_size(const struct archive *ar, uint32_t id);
bool archive_entry_plain(const struct archive *ar, uint32_t id);
/* What a commit needs of one entry, asked once (archive_entry_load). */
struct entry_state {
	uint8_t *bytes;        /* the whole entry, decrypted; malloc'ed */
	size_t size;
	bool padded;           /* stored in whole blocks, the padding in its
				  bytes: a DATA.BIN entry without a size record */
	enum clip_format clip_format; /* of a pack the edit empties of clips,
				  which its bytes do not say: the one its packs
				  were last seen in, else the game's */
	uint64_t generation;   /* commits to it so far */
};

/* Loads entry id as a commit needs it, with `io` held: 0, or an errno
 * (then st holds nothing to free).  entry_state_free frees it. */
int archive_entry_load(struct archive *ar, uint32_t id, struct entry_state *st);
void entry_state_free(struct entry_state *st);

/* Reads up to len bytes at `off` of entry `id`, decrypted, clamped to the
 * entry: 0 with *got the bytes read (fewer at its end, none past it), or
 * an errno. */
int archive_read(struct archive *ar, uint32_t id, uint64_t off, void *buf, size_t len,
		 size_t *got);

/* Reads exactly len bytes at `off` of entry `id`: 0, or an errno (EIO
 * when the entry ends first). */
int archive_read_all(struct archive *ar, uint32_t id, uint64_t off, void *buf, size_t len);

/* The entry's kind, sniffed from its head on first use. */
enum kind archive_entry_kind(struct archive *ar, uint32_t id);

/* Learns every entry's kind, as listing the root needs. */
void archive_sniff_all(struct archive *ar);

/* The entry's container tree, NULL if it is not a PAC that decodes (the
 * reason then goes to the mount log once). */
const struct pactree *archive_entry_tree(struct archive *ar, uint32_t id);

/* The model carried across a change of entry id's bytes
 * (archive_entry.carried) of the PMO at `offset` in it, taken (the
 * caller frees it), or NULL.  With the archive's lock held. */
struct model *archive_take_carried(struct archive *ar, uint32_t id, uint64_t offset);

/* When the decoded caches exceed the budget, drops those of entries not
 * looked at lately (a clock sweep) until a quarter is free.  Takes `io`
 * exclusively: call it holding no lock. */
void archive_trim(struct archive *ar);

/* The entry's name at the mount's root: file_NNNNN + extension. */
void archive_entry_name(struct archive *ar, uint32_t id, char *buf, size_t len);

/* Drops the decoded caches of entry id, whose bytes did not change, and
 * of the entries whose views read it (an MHP3rd moveset's, its model
 * PAC's: mount.mhfu(8) "MHP3rd movesets"), so they are made afresh: an
 * override of a moveset's records.txt.  With `io` held exclusively. */
void archive_forget_views(struct archive *ar, uint32_t id);

/* Calls fn for each entry whose views are made from entry id's bytes as
 * well as their own (mount.mhfu(8) "MHP3rd movesets"): the movesets up
 * to RECORDS_LINK_SPAN entries after it (their maps read their model PAC
 * and the overlays before it), and each one's model PAC, whose model.glb
 * plays it (id's own too, when id is a moveset: id_anim says whether it
 * is, or is about to be, one); and, when entry id is data, the PAC just
 * before it, whose PMO may keep its geometry there (mhfu-archive(5)
 * "PMO").  None outside a
 * DATA.BIN.  With `io` held. */
void archive_for_linked(struct archive *ar, uint32_t id, bool id_anim,
			void (*fn)(void *ctx, uint32_t e), void *ctx);

/* Leaves the store's error state by replaying the pending journal, with
 * `io` held exclusively: 0 (also when there is none), or EIO with the
 * reason in why. */
int archive_replay_pending(struct archive *ar, struct fs_diag *why);

/* What became of an archive_write_entry. */
struct entry_written {
	bool landed;   /* the entry holds the new bytes, or will: also after a
			  failure that left the store pending or replaced
			  the file all the same (store_write_entry) */
	uint64_t size; /* what the entry holds now: an entry without a size
			  record keeps whole blocks */
};

/* Makes w (store.h; old read under the same hold, its note the history's
 * record, store.h note 6) with `io` held exclusively, through the store
 * (in place when its blocks stay, else by a shift or a rewrite; synced
 * before it returns), keeping ARCHIVE.orig first under -o backup.  The
 * entry's caches are dropped.  Returns 0, or an errno with the reason in
 * why: the archive is then unchanged unless out->landed, when the mount
 * follows it as after a success. */
int archive_write_entry(struct archive *ar, const struct entry_write *w,
			struct entry_written *out, struct fs_diag *why);

#endif
