/* The driver's state, shared by main and the FUSE operations. */
#ifndef FS_MHFS_H
#define FS_MHFS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "archive.h"
#include "log.h"

struct mhfs {
	struct archive ar;     /* the backing archive */
	struct mlog log;       /* .mhfu/log */
	uid_t uid;             /* owner shown for every node */
	gid_t gid;
	double timeout;        /* attribute and entry cache timeout, seconds */
};

extern const struct fuse_lowlevel_ops mhfs_ops;

#endif
