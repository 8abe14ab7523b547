/* SPDX-License-Identifier: MIT */
/* The error convention of fs/.
 *
 * A function returns 0 or an errno, never a bool for "failed": ENOENT
 * says a thing is absent, anything else that it could not be had
 * (ENOMEM, EIO...).  What went wrong, in words and where, goes into the
 * caller's struct fs_diag; a codec's struct mh_diag (codecs/diag.h) is
 * carried as it is where its line, column or offset matter (a refused
 * edit).  Codec errors become errnos through mh_errno, the one table. */
#ifndef FS_FSERROR_H
#define FS_FSERROR_H

#include "diag.h"

/* What went wrong, in words and where (a file, an entry, a call), for
 * the log and the user: the one diagnostic of fs/ functions, whose
 * return is the errno. */
struct fs_diag {
	char msg[512];
};

/* Says what went wrong in d; returns nothing, so a caller goes on to
 * return its errno. */
void fs_diag_printf(struct fs_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The errno of a codec error: EINVAL for input that is wrong (the user's:
 * a refusal), ENOMEM, EIO for a reader that failed; 0 for MH_OK. */
int mh_errno(enum mh_err code);

#endif
