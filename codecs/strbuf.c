/* SPDX-License-Identifier: MIT */
#include "strbuf.h"

#include <float.h>
#include <stdarg.h>
#include <stdbool.h>
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
	if (n) /* s may be an empty strbuf's NULL */
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

/* The common case skips printf: v * 10^decimals, decimals <= 4, has at
 * most 53 + 10 significant bits, so x87's 64-bit mantissa holds it
 * exactly, and rounding it half to even is what printf does to the
 * exact value (in the default rounding mode, which nothing here changes). */
void strbuf_fixed(struct strbuf *sb, double v, int decimals)
{
	static const long long scale[] = {1, 10, 100, 1000, 10000};
	char buf[64];
	bool fast = LDBL_MANT_DIG >= 64 && decimals >= 0 && decimals <= 4;
	long double x = fast ? (long double)v * (long double)scale[decimals] : 0;
	if (fast && x > -9e18L && x < 9e18L) {
		long long n = (long long)x; /* toward zero, then the rest half to even */
		long double rest = x - (long double)n;
		if (rest > 0.5L || (rest == 0.5L && (n & 1)))
			n++;
		else if (rest < -0.5L || (rest == -0.5L && (n & 1)))
			n--;
		char *end = buf + text_int(buf, n < 0 ? -n : n);
		int d = decimals;
		while (d > 0 && end - buf <= d) { /* at least one digit left of the point */
			memmove(buf + 1, buf, (size_t)(end - buf) + 1);
			buf[0] = '0';
			end++;
		}
		while (d > 0 && end[-1] == '0')
			*--end = '\0', d--;
		if (d > 0) {
			memmove(end - d + 1, end - d, (size_t)d + 1);
			end[-d] = '.';
		}
		if (n < 0)
			strbuf_char(sb, '-');
		strbuf_str(sb, buf, 0);
		return;
	}
	size_t at = sb->len;
	strbuf_printf(sb, "%.*f", decimals, v);
	if (sb->failed)
		return;
	char *s = sb->buf + at, *dot = strchr(s, '.');
	if (dot) {
		char *end = sb->buf + sb->len;
		while (end > dot + 1 && end[-1] == '0')
			end--;
		if (end == dot + 1)
			end = dot;
		*end = '\0';
		sb->len = (size_t)(end - sb->buf);
	}
	if (!strcmp(s, "-0")) {
		strcpy(s, "0");
		sb->len--;
	}
}
