/* SPDX-License-Identifier: MIT */
/* How far two byte runs agree from either end: a commit's journal writes
 * and its history record keep only the middle that changed, and
 * vertices.tsv parses only the rows between what was written back as
 * printed.  Compared a block at a time through memcmp (vectorised), then
 * byte by byte in the block that differs: an edit of a few bytes in a
 * 566 KB model PAC scans it at memory speed. */
#ifndef MH_SAME_BYTES_H
#define MH_SAME_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SAME_BYTES_BLOCK 256u

/* The bytes a[0..n) and b[0..n) have in common from the start. */
static inline size_t same_prefix(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (n - i >= SAME_BYTES_BLOCK && !memcmp(a + i, b + i, SAME_BYTES_BLOCK))
		i += SAME_BYTES_BLOCK;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* The bytes the n before a_end and the n before b_end have in common
 * from their ends. */
static inline size_t same_suffix(const uint8_t *a_end, const uint8_t *b_end, size_t n)
{
	size_t i = 0;
	while (n - i >= SAME_BYTES_BLOCK &&
	       !memcmp(a_end - i - SAME_BYTES_BLOCK, b_end - i - SAME_BYTES_BLOCK, SAME_BYTES_BLOCK))
		i += SAME_BYTES_BLOCK;
	while (i < n && a_end[-1 - (ptrdiff_t)i] == b_end[-1 - (ptrdiff_t)i])
		i++;
	return i;
}

#endif
