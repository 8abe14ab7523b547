/* SPDX-License-Identifier: MIT */
/* Telling the user what a commit did: a line in the log for each
 * outcome (`path:line: CODE message (fix: ...)` for each violation), the
 * view's user.mhfu.error xattr (the first error of its last refusal,
 * cleared by a commit), and the texts of refused writes and removed clips
 * kept in the record (.mhfu/rejected/). */
#ifndef FS_REPORT_H
#define FS_REPORT_H

#include "commit.h"

void report_commit(struct mhfs *fs, const struct edit *e, const struct commit_result *r);

/* The last refusal of the view of place number `place` (node_place),
 * for user.mhfu.error; NULL if none.  Malloc'ed. */
char *commit_error_of(struct mhfs *fs, uint64_t place);

/* At unmount: keeps each scratch file that holds data in the record
 * (.mhfu/rejected/, named after its path), where the next mount shows
 * it, and logs each one dropped (an empty file, a link).  Scratch files
 * are mostly editor temporaries, but a file copied into the tree by
 * mistake must not vanish with the daemon. */
void report_scratch_left(struct mhfs *fs);

#endif
