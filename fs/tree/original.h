/* SPDX-License-Identifier: MIT */
/* The original tree: the archive as it was before each entry's first
 * commit, from the history's originals (history.h), shown read-only
 * under .mhfu/original/ with the live tree's classes (node_archive). */
#ifndef FS_ORIGINAL_H
#define FS_ORIGINAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mhfs.h"

/* Opens fs->history in the record (in memory without one), keeping at
 * most max_commits (0: the default), checked against the archive, and
 * fs->original over it, shaped like fs->ar.  0, or an errno with the
 * reason in msg (ENOMEM: nothing opened; else the history is in memory). */
int original_open(struct mhfs *fs, size_t max_commits, struct fs_diag *msg);
void original_close(struct mhfs *fs);

/* Whether the entry's bytes now differ from its original (false when it
 * has none, or it cannot be read now), with the archive's io lock held. */
bool original_differs(struct mhfs *fs, uint32_t entry);

/* The newest commit of the entry in the history, 0 if none is kept. */
uint64_t original_last_commit(const struct mhfs *fs, uint32_t entry);

#endif
