/* Whole-buffer file I/O that retries short transfers and EINTR, and the
 * directory sync that makes a create, rename or unlink durable. */
#ifndef FS_FILEIO_H
#define FS_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/* 0, or -1 with errno (EIO when the file ends first). */
int pread_full(int fd, void *buf, size_t len, uint64_t off);
int pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* fsyncs the directory holding `path`; 0 or -1 with errno. */
int sync_parent(const char *path);

#endif
