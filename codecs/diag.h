/* SPDX-License-Identifier: MIT */
/* Diagnostics shared by every codec.
 *
 * A codec function returns an enum mh_err (MH_OK on success) and, on
 * failure, fills the caller's struct mh_diag with where it happened: a
 * byte offset for binary input, line and column for text.  mh_fail() is
 * the one function that records a failure, so it is the breakpoint to set
 * when hunting a rejected input. */
#ifndef MH_DIAG_H
#define MH_DIAG_H

#include <stddef.h>
#include <stdint.h>

enum mh_err {
	MH_OK = 0,
	MH_ETRUNC,   /* input ends before a structure it announces */
	MH_ECORRUPT, /* input is inconsistent with the format */
	MH_EUNKNOWN, /* input is not of this format at all */
	MH_ERANGE,   /* a value in the model cannot be encoded */
	MH_ENOMEM,   /* allocation failed */
	MH_EIO,      /* the caller's reader failed */
	MH_ESYNTAX,  /* text does not follow its grammar */
};

struct mh_diag {
	enum mh_err code;
	uint64_t offset;   /* byte offset in the input, when binary */
	unsigned line;     /* 1-based line, when text; 0 otherwise */
	unsigned col;      /* 1-based column, when text */
	char msg[192];     /* what is wrong, in words */
};

/* Records a failure at a byte offset; returns code so callers can
 * `return mh_fail(...)`.  d may be NULL. */
enum mh_err mh_fail(struct mh_diag *d, enum mh_err code, uint64_t offset,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Records a failure in text at line:col (1-based); returns code. */
enum mh_err mh_fail_text(struct mh_diag *d, enum mh_err code, unsigned line,
			 unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A short name for an error code ("truncated", "corrupt", ...). */
const char *mh_strerror(enum mh_err code);

#endif
