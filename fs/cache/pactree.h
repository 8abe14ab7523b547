/* SPDX-License-Identifier: MIT */
/* The container structure of an entry: its PAC sub-entries, recursively,
 * as byte ranges of the entry.  Built once from the entry's bytes, then
 * immutable (shared by every reader without locks). */
#ifndef FS_PACTREE_H
#define FS_PACTREE_H

#include <stdint.h>

#include "fserror.h"
#include "kind.h"
#include "model.h"

/* Sub-entries below an entry are addressed by at most this many indices;
 * a PAC nested deeper is shown as a raw file only. */
#define PACTREE_MAX_DEPTH 3

struct pactree;

struct pactree_sub {
	uint64_t offset;        /* in the top-level entry */
	uint32_t size;          /* 0 for an empty (0,0) entry */
	enum kind kind;
	struct pactree *child;  /* when a PAC that decodes, else NULL */
	struct model_cache cache; /* when a skeleton or animation pack */
};

struct pactree {
	uint32_t count;
	struct pactree_sub *subs;
};

/* Decodes the PAC in buf[0..len) (which sits at byte `base` of its entry)
 * and every PAC nested in it up to `depth` levels.  Returns NULL when buf
 * is not a PAC that decodes exactly, with the reason in *why. */
struct pactree *pactree_build(const uint8_t *buf, uint64_t len, uint64_t base,
			      unsigned depth, struct fs_diag *why);

/* Bytes the tree itself holds, its members' check texts included (its
 * models count their own). */
size_t pactree_bytes(const struct pactree *t);

/* Frees the tree and every model cached in it. */
void pactree_free(struct pactree *t);

#endif
