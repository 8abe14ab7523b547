/* The mount's own files: .mhfu/info and index.tsv. */
#ifndef FS_META_H
#define FS_META_H

#include <stddef.h>

#include "archive.h"

struct mhfs;

/* .mhfu/info as text: what the archive is and how the mount is doing.
 * malloc'ed; NULL on ENOMEM. */
char *meta_info(struct mhfs *fs, size_t *len);

/* index.tsv, one line per entry; built once and kept by the archive
 * (the pointer stays valid until archive_close).  NULL on ENOMEM. */
const char *meta_index(struct archive *ar, size_t *len);

#endif
