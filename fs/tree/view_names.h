/* SPDX-License-Identifier: MIT */
/* Name parsing shared by the view classes and the names (item.c).
 * view_number: the unsigned decimal number that starts s, *end after it.
 * view_prefixed: `prefix` (any case) then digits.  view_like_end:
 * nothing, or "." and letters: the end of a view's name (or of an
 * editor's name for one). */
#ifndef FS_VIEW_NAMES_H
#define FS_VIEW_NAMES_H

#include <stdbool.h>

bool view_number(const char *s, long long *v, const char **end);
bool view_prefixed(const char *name, const char *prefix, const char **end);
bool view_like_end(const char *end);

#endif
