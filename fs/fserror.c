#include "fserror.h"

#include <errno.h>

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
