/* SPDX-License-Identifier: MIT */
/* PAC containers (mhfu-archive(5) "PAC").
 *
 * u32 count, then count {u32 offset, u32 size}; (0,0) is an empty entry.
 * Non-empty entries are packed in order, each at the previous end rounded
 * up to the alignment A (16, 8 or 4, not stored: the largest that
 * reproduces the input), gaps zero; what follows the last entry is the
 * tail, kept verbatim. */
#ifndef MH_PAC_H
#define MH_PAC_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define PAC_MAX_ENTRIES 256u
/* Bytes of a PAC's head that always suffice for pac_sniff. */
#define PAC_HEAD_MAX (4u + 8u * PAC_MAX_ENTRIES)

struct pac_entry {
	uint32_t offset; /* from the PAC's start; 0 with size 0 when empty */
	uint32_t size;
};

struct pac {
	uint32_t count;            /* entries, 1..256 */
	struct pac_entry *entries; /* count of them */
	uint32_t align;            /* 16, 8 or 4 */
	uint64_t tail;             /* offset of the tail: the last entry's end */
	uint64_t size;             /* the whole PAC, tail included */
};

/* An entry's bytes for pac_encode; {NULL, 0} is an empty entry. */
struct pac_blob {
	const uint8_t *data;
	uint32_t size;
};

/* Decodes the PAC occupying all of buf[0..len).  The caller owns *pac. */
enum mh_err pac_decode(const uint8_t *buf, size_t len, struct pac *pac,
		       struct mh_diag *d);

/* Lays out `count` entries at alignment `align`, then the tail.  *out is
 * malloc'ed and owned by the caller. */
enum mh_err pac_encode(const struct pac_blob *entries, uint32_t count,
		       uint32_t align, const uint8_t *tail, size_t tail_len,
		       uint8_t **out, size_t *len, struct mh_diag *d);

/* Scores whether data of `size` bytes whose first `head_len` bytes are
 * `head` is a PAC: 100 when its table is valid and packed at some
 * alignment, 0 otherwise.  head_len >= min(size, PAC_HEAD_MAX) always
 * suffices; gap bytes are not checked (pac_decode does). */
int pac_sniff(const uint8_t *head, size_t head_len, uint64_t size);

void pac_free(struct pac *pac);

#endif
