/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum mh_err mh_fail(struct mh_diag *d, enum mh_err code, uint64_t offset,
		    const char *fmt, ...)
{
	if (!d)
		return code;
	va_list ap;
	d->code = code;
	d->offset = offset;
	d->line = 0;
	d->col = 0;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return code;
}

enum mh_err mh_fail_text(struct mh_diag *d, enum mh_err code, unsigned line,
			 unsigned col, const char *fmt, ...)
{
	if (!d)
		return code;
	va_list ap;
	d->code = code;
	d->offset = 0;
	d->line = line;
	d->col = col;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return code;
}

const char *mh_strerror(enum mh_err code)
{
	switch (code) {
	case MH_OK:       return "ok";
	case MH_ETRUNC:   return "truncated";
	case MH_ECORRUPT: return "corrupt";
	case MH_EUNKNOWN: return "unknown format";
	case MH_ERANGE:   return "out of range";
	case MH_ENOMEM:   return "out of memory";
	case MH_EIO:      return "I/O error";
	case MH_ESYNTAX:  return "syntax error";
	}
	return "unknown error";
}
