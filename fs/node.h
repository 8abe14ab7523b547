/* Nodes of the mounted tree and their inode numbers.
 *
 * Inode numbers are computed from a node's place, never allocated, so they
 * are the same on every mount of the same archive and nothing has to be
 * freed on forget:
 *
 *   bits 63..48  engine id + 1 (0: the mount's own nodes: root, .mhfu, ...)
 *   bits 47..21  sub-entry path, PACTREE_MAX_DEPTH fields of 9 bits, each
 *                the sub-entry's index + 1 (0 ends the path)
 *   bits 20..0   view: NODE_VIEW_FILE (raw bytes) or NODE_VIEW_DIR (folder);
 *                for the mount's own nodes, the node itself (root = 1, as
 *                FUSE requires)
 *
 * In a single-PAC mount the root (inode 1) is the folder of entry 0. */
#ifndef FS_NODE_H
#define FS_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive.h"

enum node_type {
	NODE_ROOT = 1, /* the mount of a DATA.BIN */
	NODE_META,     /* .mhfu/ */
	NODE_INFO,     /* .mhfu/info */
	NODE_LOG,      /* .mhfu/log */
	NODE_INDEX,    /* index.tsv */
	NODE_FILE,     /* raw bytes of an entry or sub-entry */
	NODE_DIR,      /* an entry or sub-entry that is a container, expanded */
};

#define NODE_VIEW_FILE 1u
#define NODE_VIEW_DIR 2u

struct node {
	enum node_type type;
	uint32_t entry;                    /* engine id, NODE_FILE/NODE_DIR */
	unsigned depth;                    /* sub-entry indices in path */
	uint16_t path[PACTREE_MAX_DEPTH];  /* sub-entry index at each level */
};

/* What a NODE_FILE or NODE_DIR stands for, resolved against the archive. */
struct node_target {
	uint64_t offset;              /* in the entry */
	uint64_t size;
	enum kind kind;
	const struct pactree *tree;   /* the expanded container, NODE_DIR only */
};

uint64_t node_ino(const struct archive *ar, const struct node *n);

/* Decodes an inode number; false if it names nothing this archive has. */
bool node_from_ino(const struct archive *ar, uint64_t ino, struct node *n);

/* Resolves a NODE_FILE/NODE_DIR; false if the node does not exist. */
bool node_resolve(struct archive *ar, const struct node *n, struct node_target *t);

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
