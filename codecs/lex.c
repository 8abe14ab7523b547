/* SPDX-License-Identifier: MIT */
#include "lex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "float_text.h"

void lex_init(struct lex *lx, const char *text, size_t len)
{
	*lx = (struct lex){.p = text, .end = text + len, .bol = text, .line = 1, .col = 1};
}

/* The bytes a word stops at: blanks, a newline, a comment, and NUL (an
 * error).  A table, so the scan costs one look-up a byte. */
static const bool STOPS[256] = {
	[' '] = true, ['\t'] = true, ['\r'] = true, ['\n'] = true, ['#'] = true,
	['\0'] = true,
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The column of *p, kept only as each call returns. */
static void sync_col(struct lex *lx)
{
	lx->col = (unsigned)(lx->p - lx->bol) + 1;
}

static void skip_blanks(struct lex *lx)
{
	while (lx->p < lx->end && blank(*lx->p))
		lx->p++;
}

static void skip_rest_of_line(struct lex *lx)
{
	const char *nl = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
	lx->p = nl ? nl : lx->end;
}

bool lex_next_line(struct lex *lx, enum mh_err *err, struct mh_diag *d)
{
	*err = MH_OK;
	for (;;) {
		skip_blanks(lx);
		sync_col(lx);
		if (lx->p >= lx->end)
			return false;
		if (*lx->p == '\0') {
			*err = mh_fail_text(d, MH_ESYNTAX, lx->line, lx->col,
					    "NUL byte in text");
			return false;
		}
		if (*lx->p == '#')
			skip_rest_of_line(lx);
		if (lx->p < lx->end && *lx->p == '\n') {
			lx->p++;
			lx->bol = lx->p;
			lx->line++;
			continue;
		}
		sync_col(lx);
		return lx->p < lx->end;
	}
}

void lex_skip_line(struct lex *lx)
{
	skip_rest_of_line(lx);
}

bool lex_word(struct lex *lx, struct lex_word *w, enum mh_err *err,
	      struct mh_diag *d)
{
	*err = MH_OK;
	skip_blanks(lx);
	sync_col(lx);
	if (lx->p >= lx->end || *lx->p == '\n' || *lx->p == '#')
		return false;
	w->line = lx->line;
	w->col = lx->col;
	const char *start = lx->p;
	while (lx->p < lx->end && !STOPS[(unsigned char)*lx->p])
		lx->p++;
	size_t n = (size_t)(lx->p - start);
	sync_col(lx);
	if (n > LEX_WORD_MAX) {
		*err = mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "word longer than %d characters", LEX_WORD_MAX);
		return false;
	}
	if (lx->p < lx->end && *lx->p == '\0') {
		*err = mh_fail_text(d, MH_ESYNTAX, lx->line, lx->col,
				    "NUL byte in text");
		return false;
	}
	memcpy(w->text, start, n);
	w->text[n] = '\0';
	return true;
}

enum mh_err lex_expect(struct lex *lx, struct lex_word *w, const char *what,
		       struct mh_diag *d)
{
	enum mh_err err;
	if (lex_word(lx, w, &err, d))
		return MH_OK;
	if (err)
		return err;
	return mh_fail_text(d, MH_ESYNTAX, lx->line, lx->col, "expected %s", what);
}

enum mh_err lex_end_of_line(struct lex *lx, struct mh_diag *d)
{
	struct lex_word w;
	enum mh_err err;
	if (!lex_word(lx, &w, &err, d))
		return err;
	return mh_fail_text(d, MH_ESYNTAX, w.line, w.col,
			    "unexpected \"%s\" at the end of the line", w.text);
}

static enum mh_err in_range(const struct lex_word *w, int64_t x, int64_t min,
			    int64_t max, int64_t *v, struct mh_diag *d)
{
	if (x < min || x > max)
		return mh_fail_text(d, MH_ERANGE, w->line, w->col,
				    "%s is outside %lld..%lld", w->text, (long long)min,
				    (long long)max);
	*v = x;
	return MH_OK;
}

enum mh_err lex_int(const struct lex_word *w, int64_t min, int64_t max,
		    int64_t *v, struct mh_diag *d)
{
	const char *s = w->text;
	/* Plain decimals, the common case, without strtoll. */
	const char *digits = s + (*s == '-' || *s == '+');
	size_t n = strspn(digits, "0123456789");
	if (n && n <= 18 && !digits[n]) {
		int64_t x = 0;
		for (size_t k = 0; k < n; k++)
			x = x * 10 + (digits[k] - '0');
		return in_range(w, *s == '-' ? -x : x, min, max, v, d);
	}
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 0);
	/* strtoll's base 0 reads a leading 0 as octal: decimal is meant. */
	if (*s && *end == '\0' && !errno) {
		if (digits[0] == '0' && digits[1] && digits[1] != 'x' && digits[1] != 'X')
			x = strtoll(s, &end, 10);
	}
	if (!*s || *end || errno == ERANGE)
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected an integer, got \"%s\"", s);
	return in_range(w, x, min, max, v, d);
}

enum mh_err lex_f32(const struct lex_word *w, float *v, struct mh_diag *d)
{
	const char *s = w->text;
	char *end;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		errno = 0;
		unsigned long long bits = strtoull(s, &end, 16);
		if (*end || errno || bits > 0xffffffffull || end - s != 10)
			return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
					    "expected 0x and 8 hex digits of a "
					    "float's bits, got \"%s\"", s);
		uint32_t b = (uint32_t)bits;
		memcpy(v, &b, sizeof *v);
		return MH_OK;
	}
	if (!text_parse_f32(s, v))
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected a number, got \"%s\"", s);
	return MH_OK;
}
