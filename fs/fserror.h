/* The error convention of fs/.
 *
 * A function returns 0 or an errno, never a bool for "failed": ENOENT
 * says a thing is absent, anything else that it could not be had
 * (ENOMEM, EIO...).  What went wrong, in words and where, goes into the
 * caller's struct mh_diag (codecs/diag.h) or reason buffer.  Codec errors
 * become errnos through mh_errno, the one table. */
#ifndef FS_FSERROR_H
#define FS_FSERROR_H

#include "diag.h"

/* The errno of a codec error: EINVAL for input that is wrong (the user's:
 * a refusal), ENOMEM, EIO for a reader that failed; 0 for MH_OK. */
int mh_errno(enum mh_err code);

#endif
