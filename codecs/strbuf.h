/* SPDX-License-Identifier: MIT */
/* A growing text buffer for printers.  After an allocation failure it
 * holds nothing and ignores further appends; check `failed` at the end. */
#ifndef MH_STRBUF_H
#define MH_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "float_text.h" /* text_f32, which the printers use with these */

struct strbuf {
	char *buf;    /* NUL-terminated once anything was appended */
	size_t len;
	size_t cap;
	bool failed;  /* an allocation failed: buf is NULL */
};

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* printf's "%*lld" and "%c", without parsing a format: the printers'
 * hot path (a clip's keyframes). */
void strbuf_int(struct strbuf *sb, long long v, unsigned width);

/* printf's "%lld" into out (>= 21 bytes), NUL-terminated; its length. */
size_t text_int(char *out, long long v);
void strbuf_char(struct strbuf *sb, char c);

/* printf's "%*s": s right-aligned in width, left-aligned in -width. */
void strbuf_str(struct strbuf *sb, const char *s, int width);

/* v as printf's "%.*f" prints it, then trailing zeros and a bare point
 * dropped, and "-0" as "0": "12.5", "-3".  Without printf when it can
 * (plots print thousands of numbers). */
void strbuf_fixed(struct strbuf *sb, double v, int decimals);

/* s[0..n) as it is. */
void strbuf_append(struct strbuf *sb, const char *s, size_t n);

/* Hands the text to the caller (malloc'ed, "" if empty; NULL if an
 * allocation failed) and resets the buffer. */
char *strbuf_take(struct strbuf *sb, size_t *len);

void strbuf_free(struct strbuf *sb);

#endif
