/* Growing a file's in-memory bytes (open files' buffers, scratch files). */
#ifndef FS_BUFFER_H
#define FS_BUFFER_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Room for `need` bytes in *data, whose allocation holds *cap: doubled
 * from 4 KiB until it fits, so appends cost amortized O(1).  0 or ENOMEM
 * (*data and *cap then as they were). */
static inline int buffer_reserve(uint8_t **data, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t grown = *cap ? *cap : 4096;
	while (grown < need)
		grown *= 2;
	uint8_t *p = realloc(*data, grown);
	if (!p)
		return ENOMEM;
	*data = p;
	*cap = grown;
	return 0;
}

#endif
