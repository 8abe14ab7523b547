/* SPDX-License-Identifier: MIT */
/* Growing arrays: open files' and scratch files' bytes, the tables the
 * driver keeps (history, inode plans, journal records, kept texts). */
#ifndef FS_BUFFER_H
#define FS_BUFFER_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Room for `need` (>= 1) items of `size` bytes in `items`, an
 * allocation of *cap items: grown by doubling from `first`, so appends
 * cost amortized O(1).  Returns the array (items itself when it has room
 * already), or NULL when out of memory or past SIZE_MAX; items and *cap
 * are then as they were. */
static inline void *array_reserve(void *items, size_t *cap, size_t need, size_t size,
				  size_t first)
{
	if (need <= *cap)
		return items;
	size_t grown = *cap ? *cap : first;
	while (grown < need) {
		if (grown > SIZE_MAX / 2)
			return NULL;
		grown *= 2;
	}
	if (grown > SIZE_MAX / size)
		return NULL;
	void *p = realloc(items, grown * size);
	if (p)
		*cap = grown;
	return p;
}

/* Room for `need` bytes in *data (0, or ENOMEM with *data as it was).
 * Room for none is there always, also in a buffer never allocated (an
 * open(O_TRUNC) then ftruncate(fd, 0), as fsx starts). */
static inline int buffer_reserve(uint8_t **data, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	uint8_t *p = array_reserve(*data, cap, need, 1, 4096);
	if (!p)
		return ENOMEM;
	*data = p;
	return 0;
}

#endif
