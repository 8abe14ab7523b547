/* SPDX-License-Identifier: MIT */
/* What a commit changes of what the kernel holds, and telling it.
 *
 * A commit to an item (an entry, or a member at some path in it) may
 * change, of the numbers the kernel holds (inodes.h):
 *   - the raw bytes of the item, of its containers and of its members
 *     (views of SOURCE_BYTES: a raw file, an export file);
 *   - every view of the item and beneath it;
 *   - the views made from the whole entry (check.txt, model.glb, and any
 *     view that does not say: SOURCE_ENTRY);
 *   - unless the edit was of a pack, left a pack (a slot, pack.txt, an
 *     entry, records.txt), every other model view of the entry too: a
 *     skeleton's edit relabels the packs beside it, a member's may turn
 *     it into another kind.  A pack's edit leaves the skeleton's, the
 *     other packs' and the texture banks' views as they were;
 *   - the views (not the bytes) of the entries whose views read this one
 *     (archive_for_linked), the original tree's included;
 *   - the root's index.tsv, and the attributes of the folders above.
 * The file views among these get new numbers (the old ones go stale:
 * their open files read what they opened); folders keep theirs, their
 * attributes dropped.
 *
 * TELLING THE KERNEL, WITHOUT WAITING ON IT
 * Only notifications that never wait are sent, from the committing
 * thread before the commit replies: the attributes of what changed are
 * dropped (FUSE_NOTIFY_INVAL_INODE, no pages).  Names are not: dropping
 * one (FUSE_NOTIFY_INVAL_ENTRY, _DELETE) takes the kernel's lock of its
 * folder, which the operation that committed (a rename), a lookup or a
 * listing may hold while it waits for us; a thread doing it then, were
 * the driver to die, would hold up its exit for good (a core dump waits
 * for every thread), no request being answered any more.  (Expiring all
 * names at once, FUSE_NOTIFY_INC_EPOCH, would not wait, but it drops the
 * kernel's inodes, and their pages, of every view walked through after
 * it: the views a commit left as they were too.)  None is needed: a
 * name the kernel still maps to a retired number reads and stats as the
 * view is now (inodes.h, 4), and is looked up again when it expires
 * (mhfs.h: file_entry_timeout) or a listing names it.
 */
#ifndef FS_INVALIDATE_H
#define FS_INVALIDATE_H

#include <stdbool.h>

#include "inodes.h"
#include "mhfs.h"
#include "node.h"

struct change {
	struct node item;  /* the item committed to (its entry, depth, path) */
	bool pack;         /* a pack before and after the commit */
	bool was_anim;     /* the entry was, or will be, a standalone pack */
};

/* The change of a commit to the item of view, a pack before (kind
 * `before`) and after (`after`) or not. */
void change_of(const struct node *view, enum kind before, enum kind after,
	       struct change *c);
/* The change of a commit replacing entry `entry` whole (a replay). */
void change_of_entry(uint32_t entry, struct change *c);

/* Adds to plan what change c does to the numbers the kernel holds, with
 * the io lock held exclusively, before the archive is written
 * (inodes_plan): 0 or ENOMEM. */
int invalidate_plan(struct mhfs *fs, const struct change *c, struct ino_plan *plan);

/* Once the commit is out (no io lock held): drops the attributes of
 * what the plan changed; never waits. */
void invalidate_after(struct mhfs *fs, const struct ino_plan *plan);



#endif
