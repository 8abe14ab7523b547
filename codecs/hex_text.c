/* SPDX-License-Identifier: MIT */
/* Bytes as hex in the texts (hex_text.h). */
#include "hex_text.h"

#include <stdlib.h>
#include <string.h>

void hex_text_put(struct strbuf *sb, const uint8_t *p, size_t n, uint64_t at,
		  unsigned group)
{
	static const char HEX[] = "0123456789abcdef";
	char chunk[192];
	for (size_t k = 0; k < n;) {
		size_t o = 0;
		for (; k < n && o + 3 <= sizeof chunk; k++) {
			if (k == 0 || (at + k) % group == 0)
				chunk[o++] = ' ';
			chunk[o++] = HEX[p[k] >> 4];
			chunk[o++] = HEX[p[k] & 15];
		}
		strbuf_append(sb, chunk, o);
	}
}

size_t hex_text_line_end(uint64_t at, size_t from, size_t to, size_t per_line,
			 unsigned group)
{
	size_t end = (size_t)((at + from) / group * group + per_line - at);
	return end < to ? end : to;
}

int hex_text_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum mh_err hex_text_word(const struct lex_word *w, uint8_t *out, size_t *n,
			  struct mh_diag *d)
{
	size_t len = strlen(w->text);
	for (size_t k = 0; k < len; k++)
		if (hex_text_digit(w->text[k]) < 0)
			return mh_fail_text(d, MH_ESYNTAX, w->line,
					    w->col + (unsigned)k, "expected hex "
					    "digits, got \"%s\"", w->text);
	if (len % 2)
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col, "\"%s\" has "
				    "%zu hex digits: bytes take two each",
				    w->text, len);
	for (size_t k = 0; k < len / 2; k++)
		out[k] = (uint8_t)(hex_text_digit(w->text[2 * k]) << 4 |
				   hex_text_digit(w->text[2 * k + 1]));
	*n = len / 2;
	return MH_OK;
}

/* Zero bytes from p[0], at most `max` counted. */
static size_t zeros(const uint8_t *p, size_t n, size_t max)
{
	size_t z = 0;
	while (z < n && z < max && !p[z])
		z++;
	return z;
}

void hex_text_print_tail(struct strbuf *sb, const uint8_t *p, size_t n,
			 const struct tail_layout *layout)
{
	const struct tail_layout *l = layout;
	for (size_t k = 0; k < n;) {
		size_t z = zeros(p + k, n - k, SIZE_MAX);
		if (z >= l->zero_run) {
			strbuf_printf(sb, "tail zeros %zu\n", z);
			k += z;
			continue;
		}
		size_t end = l->file_aligned ?
			hex_text_line_end(l->at, k, n, l->per_line, l->group) :
			k + l->per_line < n ? k + l->per_line : n;
		size_t e = k + 1;
		while (e < end && zeros(p + e, n - e, l->zero_run) < l->zero_run)
			e++;
		strbuf_printf(sb, "tail");
		hex_text_put(sb, p + k, e - k, l->file_aligned ? l->at + k : 0,
			     l->group);
		strbuf_printf(sb, "\n");
		k = e;
	}
}

/* Appends n bytes (zeros when bytes is NULL), w being the word that
 * brings them. */
static enum mh_err append(struct tail_bytes *t, size_t max,
			  const struct lex_word *w, const uint8_t *bytes,
			  size_t n, struct mh_diag *d)
{
	if (n > max - t->len)
		return mh_fail_text(d, MH_ERANGE, w->line, w->col, "the tail "
				    "grows past %zu bytes", max);
	if (n == 0)
		return MH_OK;
	if (t->len + n > t->cap) {
		size_t cap = 2 * t->cap + n + 64;
		uint8_t *p = realloc(t->p, cap);
		if (!p)
			return mh_fail_text(d, MH_ENOMEM, w->line, w->col,
					    "tail of %zu bytes", cap);
		t->p = p;
		t->cap = cap;
	}
	if (bytes)
		memcpy(t->p + t->len, bytes, n);
	else
		memset(t->p + t->len, 0, n);
	t->len += n;
	return MH_OK;
}

enum mh_err hex_text_parse_tail(struct lex *lx, struct tail_bytes *t,
				size_t max, uint32_t min_zeros,
				struct mh_diag *d)
{
	struct lex_word w;
	enum mh_err err = lex_expect(lx, &w, "hex bytes or zeros N", d);
	if (err)
		return err;
	if (!strcmp(w.text, "zeros")) {
		int64_t n;
		if ((err = lex_expect(lx, &w, "a count of zero bytes", d)) ||
		    (err = lex_int(&w, min_zeros, (int64_t)max, &n, d)))
			return err;
		return append(t, max, &w, NULL, (size_t)n, d);
	}
	do {
		uint8_t bytes[HEX_TEXT_WORD_MAX];
		size_t n;
		if ((err = hex_text_word(&w, bytes, &n, d)) ||
		    (err = append(t, max, &w, bytes, n, d)))
			return err;
	} while (lex_word(lx, &w, &err, d));
	return err;
}
