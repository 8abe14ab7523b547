/* SPDX-License-Identifier: MIT */
/* Inode numbers of views, their generations, and what the kernel holds.
 *
 * NOTES ON THE DESIGN
 * A view's place (its node, node.h) has a place number, computed from
 * the place and the same on every mount.  The kernel keeps one page
 * cache and one size per inode, and a read-write mount lets it cache a
 * file view's pages; a commit, though, may change a view while files of
 * it are open.  So a file view's contents are fixed per number: a commit
 * that changes a view the kernel holds gives the view a new number (a new
 * generation), and the old number goes stale, keeping the pages, the
 * size and the bytes its open files read.  Numbers after a place number
 * are allocated here: ALLOC_TOP in bits 63..48, a serial below, counting
 * up for the mount's life, never reused; the table maps each to its
 * place.  These are the kernel's node ids; what stat(2) shows (st_ino)
 * stays the place number, so a program that checks a file's inode
 * around its own open and write (vim) sees one file.  Folders and the
 * mount's own nodes keep their place numbers: nothing caches their
 * contents.
 *
 * The table holds a record per number the kernel holds (lookups,
 * counted: +1 per entry replied, taken with the number's choice:
 * inodes_pin; -n per forget), per number open, and per place that moved
 * on from its place number.  A record says what the kernel may cache of
 * its number:
 *   EXPOSED  opened with the page cache, or for writing: its pages may
 *            be in the kernel's cache.
 *   WRITTEN  a writer's number: its pages and size may be what a writer
 *            wrote, so readers read it through (direct_io) and its
 *            attributes follow its place.
 *   STALE    its place moved on to another number.
 *
 * INVARIANTS
 *  1. A number names one place for its life, and what readers cache
 *     under it is one content (a revived one's, 7, from its revival on): a commit changing a view first retires
 *     every number of the view the kernel holds (invalidate.h plans it
 *     before the archive is written, and it is applied with the io lock
 *     still held exclusively, so no reader sees the new bytes under an
 *     old number).
 *  2. A number opened for reading with the page cache is EXPOSED before
 *     the open replies, under the io lock held shared: a commit (holding
 *     it exclusively) sees every exposure.
 *  3. A writer never shares a number with cached readers: a write open
 *     (or a truncate by path) of an EXPOSED number that is not WRITTEN
 *     retires it, the place getting a new number for writing, and fails
 *     with ESTALE; the kernel then looks the name up again (LOOKUP_REVAL)
 *     and opens the new number.  While a view has a writer, new reads of
 *     it go through (inodes_open's `through`) and its size shows under
 *     none of its numbers that readers cache; the last writer's close of
 *     a number retires it, so later readers get a clean one.
 *  4. A stale number whose pages readers cache answers, while files of
 *     it are open, the attributes the kernel was last told (nlink 0, as a
 *     file a rename replaced on a disk): its size never changes under
 *     their pages.  Otherwise it answers its place's attributes (not
 *     cached: attr_timeout 0), a new open of it reads its place's
 *     contents through (direct_io, which ignores the old pages and size;
 *     an mmap drops them first), and its name, if the view's is another
 *     now or gone (a kind changed), is gone (reply.h: stale_view).  So a
 *     name the kernel still maps to a stale number, until it looks the
 *     name up again, reads and stats as the view is now; nothing needs
 *     to drop names from the kernel's cache (invalidate.h).  The answer
 *     is chosen, and the place's attributes read, under one hold of the
 *     io lock: a commit between the two would tell a number whose pages
 *     readers cache its new size, and the kernel cuts those pages to it.
 *  5. A place's current number is its place number until it moves; it
 *     moves back only when the kernel holds none of its numbers (neither
 *     the place number nor the current one): both are then as new.
 *  6. The table's lock is a leaf, taken after the archive's io lock; the
 *     only code run with it held is a plan's judge, which computes from
 *     numbers alone.
 *  7. A stale number the kernel holds, whose last file closed, while the
 *     kernel holds no file of it nor the place's current number, becomes
 *     the place's current number again (revived), as new: its pages and
 *     attributes dropped from the kernel first, then, if no file opened it
 *     meanwhile, made current with the io lock held shared (as an
 *     exposure, 2: a commit sees it).  The kernel maps the view's name
 *     to that number until it looks the name up again: after a writer's
 *     commit (cat > FILE, then sync FILE or the next reader), the next
 *     open of the name reads through the page cache, with its read-ahead
 *     (not a request a page, as a reader like mawk would make reading
 *     through), and a shared mmap of it works.  What the kernel was told
 *     of it (4) becomes the place's attributes at its revival: a commit
 *     retiring it again before the kernel asks must answer the size of
 *     the contents its readers cache, not the old one (which would cut
 *     their pages to it).  And an answer of what the kernel was told is
 *     kept by it for no time, though the number be revived between the
 *     answer and its reply (reply.c).
 *
 * States of a number:  held --open--> EXPOSED --commit, or a writer's
 * open--> STALE --forgotten, closed--> gone, or --closed, held (7)-->
 * held as new;  a number made for a writer starts WRITTEN, and goes
 * STALE at a commit or its last writer's close.
 * ESTALE, which makes the kernel look a name up again, comes only from a
 * write open or a truncate that needs a new number (3), and for a folder
 * gone (reply.c). */
#ifndef FS_INODES_H
#define FS_INODES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Bits 63..48 of allocated numbers: the entry field of view numbers
 * (node.h) one past the largest engine id (archive.h's bound). */
#define INODES_ALLOC_TOP 0x7fffull

enum { INO_EXPOSED = 1, INO_WRITTEN = 2, INO_STALE = 4 };

/* What the kernel was last told of a number's attributes. */
struct ino_attr {
	off_t size;
	mode_t mode;
	struct timespec atime, mtime;
};

struct ino_rec {
	uint64_t ino;          /* the number; 0: free slot, ~0: deleted */
	uint64_t place;        /* its place's number */
	uint64_t current;      /* a place's record: its current number, 0 while
				  that is its place number */
	uint64_t lookups;      /* the kernel's references */
	uint32_t opens;        /* files of it open, */
	uint32_t writers;      /*   of which for writing */
	uint32_t opened;       /* opens so far (a revival's ticket) */
	unsigned flags;        /* INO_* */
	uint32_t name;         /* a hash of the name it was last told under (0:
				  none): a stale number's name may be gone */
	struct ino_attr told;  /* set at every reply of its attributes */
};

/* What a commit's plan does to a number the kernel holds (invalidate.h
 * judges; inodes_plan collects). */
enum ino_fate {
	FATE_KEEP,     /* the commit leaves its view as it is */
	FATE_RETIRE,   /* a file view the commit may change: a new number */
	FATE_REFRESH,  /* a folder whose attributes may change */
};

/* One number a plan changes. */
struct ino_step {
	enum ino_fate fate;
	uint64_t ino;
	uint64_t next;         /* FATE_RETIRE: the place's new number */
};

struct ino_plan {
	struct ino_step *steps;
	size_t n, cap;
	size_t applied;        /* steps [0, applied) are applied */
};

/* Says the fate of number ino of place `place` (judge's context ctx). */
typedef enum ino_fate ino_judge(void *ctx, uint64_t ino, uint64_t place);

struct inodes {
	pthread_mutex_t lock;  /* guards everything below but the atomics */
	struct ino_rec *slot;  /* open addressing on ino */
	size_t cap, used;      /* used counts deleted slots too */
	uint64_t serial;       /* the last number allocated */
	_Atomic uint64_t moved;   /* places whose current number is not theirs:
				     none, and no lookup takes the lock */
	_Atomic uint64_t retired; /* numbers retired so far (.mhfu/info) */
	_Atomic uint64_t revived; /* stale numbers made current again (.mhfu/info) */
};

void inodes_init(struct inodes *t);
void inodes_destroy(struct inodes *t);

/* The current number of place `place`, about to be told to the kernel (a
 * lookup, a listing) under a name of hash `name`: one more reference,
 * taken with the choice of the number, so that no forget meanwhile takes
 * the number's record away.  0 when out of memory: the reply must then
 * fail. */
uint64_t inodes_pin(struct inodes *t, uint64_t place, uint32_t name);
/* The kernel forgot n references to ino. */
void inodes_forget(struct inodes *t, uint64_t ino, uint64_t n);
/* Attributes of ino replied to the kernel (getattr, setattr). */
void inodes_told(struct inodes *t, uint64_t ino, const struct stat *st);

/* The current number of place `place`. */
uint64_t inodes_current(struct inodes *t, uint64_t place);
/* The place of allocated number ino: false if the table has none. */
bool inodes_place(struct inodes *t, uint64_t ino, uint64_t *place);
/* Whether ino is stale: its place moved on to another number; then *name
 * is the hash of the name it was last told under (0: none), *mode what
 * it was told of its type. */
bool inodes_stale(struct inodes *t, uint64_t ino, uint32_t *name, mode_t *mode);

/* How getattr answers for ino; the io lock held shared (invariant 4). */
enum ino_answer {
	ANSWER_PLACE,  /* its place's attributes now */
	ANSWER_TOLD,   /* what it was told (*st: st_ino its place, nlink 0):
			  stale, its pages cached for files of it open */
};
enum ino_answer inodes_answer(struct inodes *t, uint64_t ino, struct stat *st);

/* An open of number ino of place `place`: 0, and for reading, *cache
 * says whether the page cache may serve it (else direct_io: a writer's
 * number, or a stale one, whose open reads its place's contents now, or
 * `through`: the view has a writer, whose size stat shows);
 * ESTALE for a write to a number readers cache (retired, if it was not:
 * invariant 3); ENOMEM. */
int inodes_open(struct inodes *t, uint64_t ino, uint64_t place, bool write, bool through,
		bool *cache);
/* A file opened by inodes_open closed: true when it was the number's
 * last writer, and it retired the number. */
bool inodes_release(struct inodes *t, uint64_t ino, bool write);
/* Whether stale number ino may be revived (invariant 7) now that its
 * last file closed: then *ticket is for inodes_revive, once the kernel
 * has dropped the number's pages and attributes. */
bool inodes_revivable(struct inodes *t, uint64_t ino, uint32_t *ticket);
/* Makes ino its place's current number again, as new, if it may still be
 * revived and no file opened it since inodes_revivable gave the ticket;
 * with the io lock held shared.  `now`, the place's attributes under that
 * hold, become what the kernel was told of ino: its pages from now on
 * are that content's, whatever it was told of the old (4). */
bool inodes_revive(struct inodes *t, uint64_t ino, uint32_t ticket, const struct stat *now);
/* Before a truncate by path of number ino: 0, ESTALE as for a write
 * open, ENOMEM. */
int inodes_truncate(struct inodes *t, uint64_t ino, uint64_t place);
/* Before the driver stores pages of place `place` into the kernel's
 * cache unasked (prefetch.h), with the io lock held shared: its current
 * number, now EXPOSED as by a cached open; 0 when the kernel holds no
 * such number, or it is a writer's (WRITTEN), whose pages may be what
 * the writer wrote. */
uint64_t inodes_expose(struct inodes *t, uint64_t place);
/* Whether the kernel may cache pages of ino that readers rely on: then
 * its size must stay what it was told. */
bool inodes_cached(struct inodes *t, uint64_t ino);

/* Commits.  inodes_plan, with the io lock held exclusively before the
 * archive is written, judges every current number the kernel holds and
 * adds those the commit changes to plan, reserving what applying them
 * needs: 0 or ENOMEM (the commit must then fail).  inodes_apply, once the
 * archive holds the commit (the lock still held), retires the steps'
 * FATE_RETIRE numbers, allocating nothing; inodes_cancel drops the steps
 * not applied (the commit failed). */
int inodes_plan(struct inodes *t, ino_judge *judge, void *ctx, struct ino_plan *plan);
void inodes_apply(struct inodes *t, struct ino_plan *plan);
void inodes_cancel(struct ino_plan *plan);
void inodes_plan_free(struct ino_plan *plan);

#endif
