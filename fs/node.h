/* Nodes of the mounted tree and their inode numbers.
 *
 * Inode numbers are computed from a node's place, never allocated, so they
 * are the same on every mount of the same archive and nothing has to be
 * freed on forget:
 *
 *   bits 63..48  engine id + 1 (0: the mount's own nodes: root, .mhfu, ...)
 *   bits 47..21  sub-entry path, PACTREE_MAX_DEPTH fields of 9 bits, each
 *                the sub-entry's index + 1 (0 ends the path)
 *   bits 20..18  0
 *   bits 17..9   slot (NODE_SLOT_*)
 *   bits  8..4   stream (NODE_STREAM, NODE_SLOT_*)
 *   bits  3..0   the view: enum node_view; for the mount's own nodes, the
 *                node itself (root = 1, as FUSE requires)
 *
 * In a single-PAC mount the root (inode 1) is the folder of entry 0.
 *
 * An entry or sub-entry (its "item": entry id and path) shows as a raw
 * file and, when it is a container, a skeleton or an animation pack, as
 * a folder too: of sub-entries, of skeleton.txt, or of pack.txt and the
 * stream folders of slot files. */
#ifndef FS_NODE_H
#define FS_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive.h"

enum node_type {
	NODE_ROOT = 1,  /* the mount of a DATA.BIN */
	NODE_META,      /* .mhfu/ */
	NODE_INFO,      /* .mhfu/info */
	NODE_LOG,       /* .mhfu/log */
	NODE_INDEX,     /* index.tsv */
	NODE_REJECTED,  /* .mhfu/rejected/: texts of refused writes (scratch files) */
	NODE_FILE,      /* raw bytes of an item */
	NODE_DIR,       /* an item expanded */
	NODE_SKEL_TXT,  /* DIR/skeleton.txt */
	NODE_PACK_TXT,  /* DIR/pack.txt */
	NODE_STREAM,    /* DIR/streamK/ */
	NODE_SLOT_TXT,  /* DIR/streamK/slotNNN.txt: a clip as text */
	NODE_SLOT_BIN,  /* DIR/streamK/slotNNN.bin: the clip's bytes */
};

#define NODE_MAX_STREAMS 32u
#define NODE_MAX_SLOTS 512u

struct node {
	enum node_type type;
	uint32_t entry;                    /* engine id of the item */
	unsigned depth;                    /* sub-entry indices in path */
	uint16_t path[PACTREE_MAX_DEPTH];  /* sub-entry index at each level */
	uint16_t stream, slot;             /* NODE_STREAM, NODE_SLOT_* */
};

/* What a node stands for, resolved against the archive. */
struct node_target {
	uint64_t offset;              /* raw bytes (FILE, SLOT_BIN): in the entry */
	uint64_t size;                /* their size */
	enum kind kind;               /* the item's kind */
	const struct pactree *tree;   /* DIR of a container that decodes */
	struct model *model;          /* DIR of a skeleton or pack, views beneath */
	const struct model_text *text;/* SKEL_TXT, PACK_TXT, unshared SLOT_TXT */
	char link[64];                /* a shared slot: its symlink's target */
};

uint64_t node_ino(const struct archive *ar, const struct node *n);

/* Decodes an inode number; false if it names nothing this archive could
 * hold (node_resolve says whether it exists). */
bool node_from_ino(const struct archive *ar, uint64_t ino, struct node *n);

/* Resolves a node; false if it does not exist (or, for a text, cannot
 * be printed for want of memory). */
bool node_resolve(struct archive *ar, const struct node *n, struct node_target *t);

/* Whether the node exists, with no more work than that takes (a top-level
 * folder: its entry's kind; no tree or model built). */
bool node_exists(struct archive *ar, const struct node *n);

/* The node's path from the mount's root, "file_06185/3/stream2/slot024.txt". */
void node_path(struct archive *ar, const struct node *n, char *buf, size_t len);

/* The slot file named `name` ("slot007.txt", "slot007.bin") of a stream
 * folder, whether the slot holds a clip or not; false if no such slot. */
bool node_slot_named(struct archive *ar, const struct node *dir, const char *name,
		     struct node *slot);

/* Whether `name`, which is neither a view of folder `dir` nor a slot it
 * could fill, looks like one (a misspelt slot, a member the PAC does not
 * have, skeleton.txt in the wrong case...): such a name is refused rather
 * than held as a scratch file that would vanish at unmount.  `why` says
 * what the folder's names are.  The patterns are in mount.mhfu(8). */
bool node_name_reserved(struct archive *ar, const struct node *dir, const char *name,
			char *why, size_t why_len);

/* The child named `name` of directory `dir`; false if none. */
bool node_lookup(struct archive *ar, const struct node *dir, const char *name,
		 struct node *child);

/* Directory listing by position: the first child of `dir` at position
 * >= *pos, with its name; *pos is then its position.  Positions are
 * stable (they come from the archive's structure) and start at 0 with
 * "." and "..".  False when there are no more children. */
bool node_child_at(struct archive *ar, const struct node *dir, uint64_t *pos,
		   struct node *child, char *name, size_t name_len);

#endif
