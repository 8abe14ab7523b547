/* SPDX-License-Identifier: MIT */
/* Reading ahead across the root's entries.
 *
 * A program that goes through the entries in order (cp -r, tar, rsync, a
 * checksum of everything) waits for a round trip per file, however small,
 * and the kernel never reads ahead past the end of a file.  After misses
 * on two consecutive entries, the entries that follow are decrypted and
 * stored straight into the kernel's page cache (notify_store), a window
 * of PREFETCH_WINDOW bytes at a time.  One entry about half-way through
 * each window is left out: the reader's read of it tells where it is, and
 * the next window is stored while it reads the rest of this one, so the
 * reader does not catch up with the storing.
 *
 * A read-write mount does it too: what the kernel caches under a number
 * is one content (inodes.h), so an entry is stored under its current
 * number as a cached open would read it, the number exposed first, and
 * a commit that changes the entry retires the number the pages are
 * under.  A writer's number is never stored into: its pages may hold
 * what the writer wrote (and a write waits for its reply holding their
 * locks).
 *
 * A store waits on the page locks of the file it fills; a reader that
 * reached that file first holds them until its read is answered, which
 * another worker does.  (Were the driver killed at that moment, its
 * storing thread could not exit until the connection is aborted through
 * /sys/fs/fuse/connections: the reason it stays ahead of readers.) */
#ifndef FS_PREFETCH_H
#define FS_PREFETCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define PREFETCH_WINDOW (8u << 20)

struct mhfs;

struct prefetch {
	pthread_mutex_t lock;
	bool active;        /* a sequential reader is being served */
	bool storing;       /* a window is being stored */
	uint32_t last_miss; /* the entry last read from its start, plus one
			       (0: none yet) */
	uint32_t trip;      /* the entry left out of the current window */
	uint32_t front;     /* the first entry after the current window */
};

/* The state, with nothing under way (the driver context holds it; only
 * the FUSE layer stores, fuse/prefetch.c). */
static inline void prefetch_init(struct prefetch *p)
{
	*p = (struct prefetch){0};
	pthread_mutex_init(&p->lock, NULL);
}

static inline void prefetch_destroy(struct prefetch *p)
{
	pthread_mutex_destroy(&p->lock);
}

/* Called after replying to a read of root entry `id` from its start (a
 * page cache miss); may store the next window, in the calling thread. */
void prefetch_after_miss(struct mhfs *fs, uint32_t id);

#endif
