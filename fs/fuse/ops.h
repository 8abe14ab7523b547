/* SPDX-License-Identifier: MIT */
/* The FUSE operations that change the tree (write.c), gathered with the
 * others in ops.c's mhfs_ops. */
#ifndef FS_OPS_H
#define FS_OPS_H

#include "fusefs.h"

void mhfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		off_t off, struct fuse_file_info *fi);
void mhfs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode, struct fuse_file_info *fi);
void mhfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		mode_t mode, dev_t rdev);
void mhfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		  struct fuse_file_info *fi);
void mhfs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void mhfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		struct fuse_file_info *fi);
void mhfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void mhfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		 fuse_ino_t newparent, const char *newname, unsigned int flags);
void mhfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		  const char *name);
void mhfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void mhfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void mhfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void mhfs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void mhfs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);

#endif
