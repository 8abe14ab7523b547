#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	for (int attempt = 0; attempt < 2 && !sb->failed; attempt++) {
		size_t room = sb->cap - sb->len;
		va_start(ap, fmt);
		int n = vsnprintf(sb->buf ? sb->buf + sb->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			break;
		if ((size_t)n < room) {
			sb->len += (size_t)n;
			return;
		}
		size_t cap = sb->cap * 2 + (size_t)n + 256;
		char *b = realloc(sb->buf, cap);
		if (!b)
			break;
		sb->buf = b;
		sb->cap = cap;
	}
	free(sb->buf);
	*sb = (struct strbuf){.failed = true};
}

/* Room for n more characters and the NUL; false (and the buffer
 * dropped) when it cannot be had. */
static bool reserve(struct strbuf *sb, size_t n)
{
	if (sb->failed)
		return false;
	if (sb->cap - sb->len > n)
		return true;
	size_t cap = sb->cap * 2 + n + 256;
	char *b = realloc(sb->buf, cap);
	if (!b) {
		free(sb->buf);
		*sb = (struct strbuf){.failed = true};
		return false;
	}
	sb->buf = b;
	sb->cap = cap;
	return true;
}

size_t text_int(char *out, long long v)
{
	char rev[24];
	size_t n = 0;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		rev[n++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		rev[n++] = '-';
	for (size_t i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	out[n] = '\0';
	return n;
}

void strbuf_int(struct strbuf *sb, long long v, unsigned width)
{
	char digits[24];
	size_t n = text_int(digits, v);
	size_t pad = width > n ? width - n : 0;
	if (!reserve(sb, pad + n))
		return;
	memset(sb->buf + sb->len, ' ', pad);
	memcpy(sb->buf + sb->len + pad, digits, n + 1);
	sb->len += pad + n;
}

void strbuf_char(struct strbuf *sb, char c)
{
	if (!reserve(sb, 1))
		return;
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void strbuf_str(struct strbuf *sb, const char *s, int width)
{
	size_t n = strlen(s), w = width < 0 ? 0u - (size_t)width : (size_t)width;
	size_t pad = w > n ? w - n : 0;
	if (!reserve(sb, pad + n))
		return;
	char *o = sb->buf + sb->len;
	memset(width < 0 ? o + n : o, ' ', pad);
	memcpy(width < 0 ? o : o + pad, s, n);
	sb->len += pad + n;
	sb->buf[sb->len] = '\0';
}

void strbuf_append(struct strbuf *sb, const char *s, size_t n)
{
	if (!reserve(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

char *strbuf_take(struct strbuf *sb, size_t *len)
{
	char *text = sb->failed ? NULL : sb->buf ? sb->buf : strdup("");
	if (len)
		*len = text ? sb->len : 0;
	*sb = (struct strbuf){0};
	return text;
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	*sb = (struct strbuf){0};
}
