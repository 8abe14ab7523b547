/* SPDX-License-Identifier: MIT */
/* Commits: an edit of a view becomes new bytes of its item (the view's
 * class encodes it), is checked against the engine's rules, is spliced
 * into every container up to its entry (re-encoded), and is written into
 * the archive (archive_write_entry).  A refused edit leaves the archive
 * as it was.  The result says which; report.h tells the user. */
#ifndef FS_COMMIT_H
#define FS_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "edit.h"
#include "mhfs.h"

int commit_edit(struct mhfs *fs, const struct edit *e, struct commit_result *r);
void commit_result_free(struct commit_result *r);

#endif
