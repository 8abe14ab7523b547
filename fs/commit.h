/* Commits: an edit of a view becomes new bytes of its item (parse,
 * encode), is checked against the engine's rules, is spliced into every
 * container up to its entry (re-encoded), and is written into the archive
 * (archive_write_entry); then the kernel's caches of the entry's inodes
 * are invalidated.  A refused edit leaves the archive as it was: it is
 * reported as `path:line: CODE message (fix: ...)` in the log, in the
 * view's user.mhfu.error xattr, and its text is kept under
 * .mhfu/rejected/. */
#ifndef FS_COMMIT_H
#define FS_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "mhfs.h"
#include "node.h"

enum edit_kind {
	EDIT_WRITE,       /* the view's new contents (a new slot file too) */
	EDIT_EMPTY_SLOT,  /* a slot file removed */
	EDIT_SHARE_SLOT,  /* a slot file made a link to another slot */
};

struct edit {
	enum edit_kind kind;
	struct node view;          /* the view edited */
	const uint8_t *data;       /* EDIT_WRITE */
	size_t len;
	uint32_t share_stream;     /* EDIT_SHARE_SLOT: the slot whose clip */
	uint32_t share_slot;       /*   the view's slot plays too */
};

/* Commits an edit.  Returns 0; EINVAL when refused (reported as above);
 * EROFS, EIO, ENOSPC, ENOMEM... when the archive could not take it. */
int commit_edit(struct mhfs *fs, const struct edit *e);

/* The view's last refusal, for user.mhfu.error; NULL if none.  Malloc'ed. */
char *commit_error_of(struct mhfs *fs, uint64_t ino);

#endif
