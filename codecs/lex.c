#include "lex.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lex_init(struct lex *lx, const char *text, size_t len)
{
	*lx = (struct lex){.p = text, .end = text + len, .line = 1, .col = 1};
}

static void advance(struct lex *lx)
{
	if (*lx->p == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->p++;
}

static void skip_blanks(struct lex *lx)
{
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r'))
		advance(lx);
}

static void skip_rest_of_line(struct lex *lx)
{
	while (lx->p < lx->end && *lx->p != '\n')
		advance(lx);
}

bool lex_next_line(struct lex *lx, enum mh_err *err, struct mh_diag *d)
{
	*err = MH_OK;
	for (;;) {
		skip_blanks(lx);
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
			advance(lx);
			continue;
		}
		if (lx->p >= lx->end)
			return false;
		return true;
	}
}

bool lex_word(struct lex *lx, struct lex_word *w, enum mh_err *err,
	      struct mh_diag *d)
{
	*err = MH_OK;
	skip_blanks(lx);
	if (lx->p >= lx->end || *lx->p == '\n' || *lx->p == '#')
		return false;
	w->line = lx->line;
	w->col = lx->col;
	size_t n = 0;
	while (lx->p < lx->end && !strchr(" \t\r\n#", *lx->p)) {
		if (*lx->p == '\0') {
			*err = mh_fail_text(d, MH_ESYNTAX, lx->line, lx->col,
					    "NUL byte in text");
			return false;
		}
		if (n == LEX_WORD_MAX) {
			*err = mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
					    "word longer than %d characters",
					    LEX_WORD_MAX);
			return false;
		}
		w->text[n++] = *lx->p;
		advance(lx);
	}
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

enum mh_err lex_int(const struct lex_word *w, int64_t min, int64_t max,
		    int64_t *v, struct mh_diag *d)
{
	const char *s = w->text;
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 0);
	/* strtoll's base 0 reads a leading 0 as octal: decimal is meant. */
	if (*s && *end == '\0' && !errno) {
		const char *digits = s + (*s == '-' || *s == '+');
		if (digits[0] == '0' && digits[1] && digits[1] != 'x' && digits[1] != 'X')
			x = strtoll(s, &end, 10);
	}
	if (!*s || *end || errno == ERANGE)
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected an integer, got \"%s\"", s);
	if (x < min || x > max)
		return mh_fail_text(d, MH_ERANGE, w->line, w->col,
				    "%s is outside %lld..%lld", s, (long long)min,
				    (long long)max);
	*v = x;
	return MH_OK;
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
	errno = 0;
	float x = strtof(s, &end);
	if (!*s || *end || !isfinite(x))
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected a number, got \"%s\"", s);
	*v = x;
	return MH_OK;
}
