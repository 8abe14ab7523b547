/* The inodes the kernel holds, with their lookup counts: +1 for every
 * entry replied (lookup, create, symlink, readdirplus), -n on forget.
 * A commit invalidates the kernel's caches of the known inodes of the
 * entry it changed.  A count going negative is a bug (asserted). */
#ifndef FS_KNOWN_H
#define FS_KNOWN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct known {
	pthread_mutex_t lock;  /* protects the table */
	uint64_t *ino;         /* open addressing; 0 empty, ~0 deleted */
	uint64_t *count;
	size_t cap, used;      /* used counts deleted slots too */
};

void known_init(struct known *k);
void known_destroy(struct known *k);
void known_ref(struct known *k, uint64_t ino);
void known_forget(struct known *k, uint64_t ino, uint64_t n);

/* The known inodes whose bits 63..48 equal `top` (an entry's), copied
 * into a malloc'ed array; NULL and *n = 0 when none or out of memory. */
uint64_t *known_with_top(struct known *k, uint64_t top, size_t *n);

#endif
