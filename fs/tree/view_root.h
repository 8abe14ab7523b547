/* SPDX-License-Identifier: MIT */
/* The root's family (view_root.c): naming entries at the root. */
#ifndef FS_VIEW_ROOT_H
#define FS_VIEW_ROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive.h"

/* The entry a name at a DATA.BIN's root names ("file_06185",
 * "file_06185.pac", "file_-0001..."), *end just after its number (the
 * caller checks the rest): false if none (view_root.c). */
bool root_entry_of(const struct archive *ar, const char *name, uint32_t *id,
		   const char **end);

#endif
