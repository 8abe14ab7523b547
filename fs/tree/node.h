/* SPDX-License-Identifier: MIT */
/* Nodes of the mounted tree: generic dispatch over the view classes
 * (view.h), and inode numbers.
 *
 * Inode numbers are computed from a node's place, never allocated, so they
 * are the same on every mount of the same archive and nothing has to be
 * freed on forget:
 *
 *   bits 63..48  engine id + 1 (0: the mount's own nodes: root, .mhfu, ...)
 *   bits 47..21  sub-entry path, PACTREE_MAX_DEPTH fields of 9 bits, each
 *                the sub-entry's index + 1 (0 ends the path)
 *   bits 20..12  slot (VIEW_SLOT)
 *   bits 11..7   stream (VIEW_STREAM)
 *   bit   6      the node is of the original tree (.mhfu/original/)
 *   bits  5..0   the view's type (enum node_type); for the mount's own
 *                nodes the inode number is the type (root = 1)
 *
 * These are place numbers: a file view's inode number is its place
 * number until a commit changes the view while the kernel holds it, then
 * one allocated by inodes.h (bits 63..48 all but the top one set, above
 * every entry field: engine ids stay below ARCHIVE_MAX_ENTRIES).
 *
 * In a single-PAC mount the root (inode 1) is the folder of entry 0.
 *
 * An entry or sub-entry (its "item": entry id and path) shows as a raw
 * file and, when it is a container, a skeleton or an animation pack, as
 * a folder too: of sub-entries, of skeleton.txt, or of pack.txt and the
 * stream folders of slot files.
 *
 * The original tree shows the same items as they were before their first
 * commit (history.h): the same classes over another archive, the one
 * node_archive names, read-only. */
#ifndef FS_NODE_H
#define FS_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive.h"
#include "view.h"

#define NODE_MAX_STREAMS 32u
#define NODE_MAX_SLOTS 512u

/* Listing positions: 0 and 1 are "." and "..", 2 the root's .mhfu;
 * a class's children start at NODE_POS_FIRST. */
#define NODE_POS_FIRST 3

struct node {
	enum node_type type;
	uint32_t entry;                    /* VIEW_ITEM: engine id of the item */
	unsigned depth;                    /* sub-entry indices in path */
	uint16_t path[PACTREE_MAX_DEPTH];  /* sub-entry index at each level */
	uint16_t stream, slot;             /* VIEW_STREAM, VIEW_SLOT */
	bool original;                     /* VIEW_ITEM: of the original tree */
};

/* What a node stands for, resolved against the archive. */
struct node_target {
	uint64_t offset;              /* raw bytes (FILE, SLOT_BIN): in the entry */
	uint64_t size;                /* their size */
	enum kind kind;               /* the item's kind */
	const struct pactree *tree;   /* DIR of a container that decodes */
	struct model *model;          /* DIR of a skeleton or pack, views beneath */
	const char *text;             /* a text view: its text, kept while the */
	size_t text_len;              /*   archive's io lock is held */
	const struct model_text *kept; /* the kept text it is, if so: an open
					  may share it (model_text_share) */
	char link[64];                /* a shared slot: its symlink's target */
	bool listing;                 /* in: only the type is asked (a listing of
					 a VIEW_SIZED_BY_MAKING view): its
					 contents need not be made */
};

/* The class of a node (valid type). */
const struct view_class *node_class(const struct node *n);

/* The type of the folder an item of kind k shows as; NODE_NONE if none. */
enum node_type node_folder_type(enum kind k);

static inline bool node_is_dir(const struct node *n)
{
	return node_class(n)->flags & VIEW_DIR;
}

/* A node's place number (the layout above), and its current inode
 * number: the place number, or the one a commit gave the view since
 * (inodes.h; folders never change numbers). */
uint64_t node_place(const struct mhfs *fs, const struct node *n);
uint64_t node_ino(struct mhfs *fs, const struct node *n);

/* The archive an item node reads: the mounted one, or the original tree's. */
struct archive *node_archive(struct mhfs *fs, const struct node *n);

/* Decodes an inode number, a place number or one inodes.h allocated
 * (stale or current: inodes_answer tells); false if it names nothing
 * this archive could hold (node_resolve says whether it exists). */
bool node_from_ino(struct mhfs *fs, uint64_t ino, struct node *n);

/* The class of the folder of inode number `dir` (a view's or the
 * mount's own), for its hooks; NULL when it names none. */
const struct view_class *node_folder_class(struct mhfs *fs, uint64_t dir);

/* Resolves a node: 0, ENOENT when it does not exist, or the errno of
 * what failed (ENOMEM printing a text, EIO reading the archive). */
int node_resolve(struct mhfs *fs, const struct node *n, struct node_target *t);

/* node_resolve for a listing: whether it exists and is a link, its
 * contents left unmade where the class can (t->listing). */
int node_resolve_type(struct mhfs *fs, const struct node *n, struct node_target *t);

/* Whether the node exists, with no more work than that takes (a top-level
 * folder: its entry's kind; no tree or model built). */
bool node_exists(struct mhfs *fs, const struct node *n);

/* The node's name in its folder, and its path from the mount's root,
 * "file_06185/3/stream2/slot024.txt" ("" for the root). */
void node_name(struct mhfs *fs, const struct node *n, char *buf, size_t len);
void node_path(struct mhfs *fs, const struct node *n, char *buf, size_t len);
/* The path of `name` in folder `dir`, "file_06185/3/stream2/slot7.txt"
 * ("notes.txt" at the root): a name that is no view (a scratch file, a
 * refused one). */
void node_child_path(struct mhfs *fs, const struct node *dir, const char *name, char *buf,
		     size_t len);

/* The view a new file named `name` in folder `dir` would fill (an empty
 * slot's file); false if none. */
bool node_fillable(struct mhfs *fs, const struct node *dir, const char *name,
		   struct node *view);

/* Whether `name`, which is neither a view of folder `dir` nor one it
 * could fill, looks like one (a misspelt slot, a member the PAC does not
 * have, skeleton.txt in the wrong case...): such a name is refused rather
 * than held as a scratch file that never reaches the archive.  `why` says
 * what the folder's names are.  The patterns are in mount.mhfu(8). */
bool node_name_reserved(struct mhfs *fs, const struct node *dir, const char *name,
			struct fs_diag *why);

/* Whether the node, or looking `name` up in folder dir, needs no hold
 * of the archive's io lock (VIEW_UNLOCKED: .mhfu and .mhfu/info answer
 * while a commit holds it). */
bool node_unlocked(const struct node *n);
bool node_unlocked_lookup(struct mhfs *fs, const struct node *dir, const char *name);

/* The child named `name` of folder `dir`: 0, ENOENT, or an errno. */
int node_lookup(struct mhfs *fs, const struct node *dir, const char *name,
		struct node *child);

/* Directory listing by position: the first child of `dir` at position
 * >= *pos, with its name; *pos is then its position.  Positions are
 * stable (they come from the archive's structure) and start at 0 with
 * "." and "..".  False when there are no more children. */
bool node_child_at(struct mhfs *fs, const struct node *dir, uint64_t *pos,
		   struct node *child, char *name, size_t name_len);

/* A file view's current contents (text or bytes), malloc'ed: 0, ENOENT
 * (also for a link), or an errno. */
int node_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len);
/* node_contents, where shared is not NULL for a file opened to read: a
 * kept text is then shared, not copied (*shared set, *data its text, not
 * to be written or freed but given back with model_text_put); else as
 * node_contents (*shared NULL). */
int node_contents_to_read(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len,
			  const struct model_text **shared);

#endif
