/* SPDX-License-Identifier: MIT */
/* The FUSE layer's way to libfuse: the API version, the operations
 * (ops.c, write.c) and what fills the driver context's `kernel` (mhfs.h).
 * The only header of the project that includes libfuse's; the layering
 * check (tests/layers.sh) holds every other folder to that. */
#ifndef FS_FUSEFS_H
#define FS_FUSEFS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "mhfs.h"

extern const struct fuse_lowlevel_ops mhfs_ops;

/* struct kernel's forget for a session: the inode's attributes, and with
 * `pages` its pages, dropped (FUSE_NOTIFY_INVAL_INODE). */
void fusefs_forget(void *session, uint64_t ino, bool pages);

#endif
