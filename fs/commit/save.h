/* SPDX-License-Identifier: MIT */
/* Saving: what an open file or a scratch file holds, committed to its
 * view.  A write is committed at the commit points (flush, fsync,
 * release) of its handle; a scratch file renamed over a view commits its
 * contents to it; a link to a slot's file shares its clip. */
#ifndef FS_SAVE_H
#define FS_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "commit.h"
#include "handle.h"

/* Commits a dirty writable handle (at release also an emptied one): 0,
 * or the commit's errno; a clean handle returns its last commit's.  A
 * failed commit sticks to the handle, as a writeback error does. */
int handle_commit(struct mhfs *fs, struct handle *h, bool release);

/* Commits an edit, reports it (report.h) and drops what the kernel
 * caches of what it changed: 0 or the commit's errno. */
int save_edit(struct mhfs *fs, const struct edit *e);

/* Commits data as the new contents of view. */
int commit_write(struct mhfs *fs, const struct node *view, const uint8_t *data, size_t len);

/* Makes the slot of view play the clip of the slot a link's target
 * names ("slot000.txt", "../stream2/slot000.txt"): EINVAL for another
 * target. */
int share_slot(struct mhfs *fs, const struct node *view, const char *target);

/* Whether a link at view to target stays a link once made: the file of
 * a shared clip is its first slot's, and every later slot links to it,
 * so linking a slot to a later one would make the new name a regular
 * file where ln(1) made a link.  True too when the target is not a clip
 * (share_slot says why). */
bool links_to_earlier(struct mhfs *fs, const struct node *view, const char *target);

/* Commits a scratch file's contents to a view: a link shares its
 * target's clip, anything else is written. */
int commit_scratch(struct mhfs *fs, uint64_t ino, const struct node *view);

#endif
