/* SPDX-License-Identifier: MIT */
#include "fserror.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int mh_errno(enum mh_err code)
{
	static const int errnos[] = {
		[MH_OK] = 0,
		[MH_ETRUNC] = EINVAL,
		[MH_ECORRUPT] = EINVAL,
		[MH_EUNKNOWN] = EINVAL,
		[MH_ERANGE] = EINVAL,
		[MH_ENOMEM] = ENOMEM,
		[MH_EIO] = EIO,
		[MH_ESYNTAX] = EINVAL,
	};
	return (unsigned)code < sizeof errnos / sizeof *errnos ? errnos[code] : EIO;
}

void fs_diag_printf(struct fs_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
}
