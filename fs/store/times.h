/* SPDX-License-Identifier: MIT */
/* Times set on views (utimens, or a file renamed over a view keeping its
 * own, as on a local disk), kept for the mount's life so that `rsync -a`
 * and `make` see what they set.  A view without one shows its entry's
 * last commit.  A commit that changes an entry forgets the times set on
 * its views: their bytes may have changed. */
#ifndef FS_TIMES_H
#define FS_TIMES_H

#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

struct view_times {
	uint64_t ino;
	uint32_t entry;              /* whose commits forget it; UINT32_MAX: none */
	struct timespec atime, mtime;
	struct view_times *next;
};

struct times_table {
	pthread_mutex_t lock;        /* a leaf lock: protects the list */
	struct view_times *list;
};

void times_init(struct times_table *t);
void times_destroy(struct times_table *t);

/* Sets ino's times; NULL leaves one as it is shown now (in *st).  0 or
 * ENOMEM. */
int times_set(struct times_table *t, uint64_t ino, uint32_t entry,
	      const struct timespec *atime, const struct timespec *mtime,
	      const struct stat *st);

/* Puts ino's times, if set, into *st. */
void times_apply(struct times_table *t, uint64_t ino, struct stat *st);

void times_forget_entry(struct times_table *t, uint32_t entry);

#endif
