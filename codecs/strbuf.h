/* A growing text buffer for printers.  After an allocation failure it
 * holds nothing and ignores further appends; check `failed` at the end. */
#ifndef MH_STRBUF_H
#define MH_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

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
void strbuf_char(struct strbuf *sb, char c);

/* Hands the text to the caller (malloc'ed, "" if empty; NULL if an
 * allocation failed) and resets the buffer. */
char *strbuf_take(struct strbuf *sb, size_t *len);

void strbuf_free(struct strbuf *sb);

/* The shortest decimal that reads back (strtof) to exactly v's bits,
 * whole numbers below 1e7 without an exponent ("1500"); non-finite
 * values print as their bits, "0x7fc00000".  buf >= 32. */
void text_f32(char *buf, size_t len, float v);

#endif
