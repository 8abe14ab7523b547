/* SPDX-License-Identifier: MIT */
/* Attributes and replies shared by the FUSE operations (reply.c). */
#ifndef FS_REPLY_H
#define FS_REPLY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "fusefs.h"
#include "node.h"

/* The largest request: 1 MiB (the kernel's limit is 256 pages). */
#define MAX_REQUEST (1u << 20)

struct mhfs *fs_of(fuse_req_t req);

/* The archive's io lock, shared (archive.h).  Every read-side operation
 * unlocks here, holding nothing: the point to keep the decoded caches
 * within budget. */
void fs_rdlock(struct mhfs *fs);
void fs_unlock(struct mhfs *fs);

/* A view's attributes as the archive gives them (with io held; st_ino
 * is its place number); then what they are while the mount runs: the
 * size of a writer that has inode (node id) ino open, the times set on
 * the view. */
int node_stat(struct mhfs *fs, const struct node *n, struct stat *st);
void live_attributes(struct mhfs *fs, struct stat *st, uint64_t ino);

/* node_stat for a listing: a view sized by making it (a plot, model.glb:
 * VIEW_SIZED_BY_MAKING) is not made, and its size is left 0, for the
 * listing to give no attributes (the kernel looks it up when it wants
 * them). */
int node_list_stat(struct mhfs *fs, const struct node *n, struct stat *st);

/* The place number of inode ino (node_place), what the times set on a
 * view and its refusals are kept under; ino itself when not a view's. */
uint64_t place_of(struct mhfs *fs, fuse_ino_t ino);

/* How long the kernel may cache ino's attributes, and its name (st: its
 * attributes), seconds. */
double attr_timeout(struct mhfs *fs, fuse_ino_t ino);

/* An open scratch file goes through the page cache, so it maps shared
 * (mmap MAP_SHARED: ENODEV under direct_io, and editors and fsx map);
 * its pages are dropped at each open, as only the kernel changes an open
 * scratch file's bytes (writes, truncates) between opens. */
void scratch_pages(struct fuse_file_info *fi);
double entry_timeout(const struct mhfs *fs, fuse_ino_t ino);

/* What the names a number is told under are kept as (inodes_pin). */
uint32_t name_hash(const char *name);
/* For a stale number of view n (inodes.h), with the io lock held: ENOENT
 * when the view's name is not the one the kernel knows the number by any
 * more (its item changed kind: the old name is gone), ESTALE when its
 * type is not `now` (a link become a file: the kernel is to look the name
 * up again; 0: not known), else 0. */
int stale_view(struct mhfs *fs, fuse_ino_t ino, const struct node *n, mode_t now);
/* Attributes of a view or scratch inode (takes the archive's read lock):
 * a stale number's as it was told, or ESTALE (inodes_answer). */
int ino_stat(struct mhfs *fs, fuse_ino_t ino, struct stat *st);
/* Replies ino's attributes (a view open for writing: the size written). */
void reply_attr(fuse_req_t req, struct mhfs *fs, fuse_ino_t ino);
/* Replies an entry for a scratch file or kept text (inode ino), or for
 * view n under its current number, counting the kernel's reference. */
void reply_entry(fuse_req_t req, struct mhfs *fs, fuse_ino_t ino);
void reply_view_entry(fuse_req_t req, struct mhfs *fs, const struct node *n, const char *name);
/* The calling thread's buffer for decrypted bytes, at least size long:
 * reads allocate nothing once their thread has served one.  NULL when
 * out of memory. */
uint8_t *read_buffer(struct mhfs *fs, size_t size);

#endif
