/* SPDX-License-Identifier: MIT */
/* The JSON reader (json.h): recursive descent over the text, each value
 * built in place; arrays and objects grow by doubling. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Longest number text taken (the digits a double can use, and room). */
#define NUMBER_MAX 400

struct reader {
	const char *text, *p, *end;
	struct mh_diag *d;
};

static enum mh_err fail_at(struct reader *r, const char *at, const char *what)
{
	unsigned line, col;
	json_line_col(r->text, (size_t)(r->end - r->text), (size_t)(at - r->text), &line, &col);
	enum mh_err err = mh_fail_text(r->d, MH_ESYNTAX, line, col, "JSON: %s", what);
	if (r->d)
		r->d->offset = (uint64_t)(at - r->text);
	return err;
}

void json_line_col(const char *text, size_t len, size_t offset, unsigned *line, unsigned *col)
{
	unsigned l = 1, c = 1;
	for (size_t i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return false;
	r->p += n;
	return true;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* Four hex digits after "\u"; -1 when they are not. */
static long hex4(struct reader *r)
{
	if (r->end - r->p < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hex_digit(r->p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	r->p += 4;
	return v;
}

static size_t put_utf8(char *o, unsigned long c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xC0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xE0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3F));
		o[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3F));
	o[2] = (char)(0x80 | (c >> 6 & 0x3F));
	o[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* An escape's code point after the backslash; -1 when malformed. */
static long escape(struct reader *r)
{
	if (r->p >= r->end)
		return -1;
	char c = *r->p++;
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = c ? strchr(from, c) : NULL;
	if (k)
		return (unsigned char)to[k - from];
	if (c != 'u')
		return -1;
	long u = hex4(r);
	if (u < 0xD800 || u > 0xDFFF)
		return u;
	/* A surrogate: a high one followed by "\u" and a low one. */
	if (u > 0xDBFF || r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
		return -1;
	r->p += 2;
	long low = hex4(r);
	if (low < 0xDC00 || low > 0xDFFF)
		return -1;
	return 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
}

/* A string at r->p (its opening quote) into *out, malloc'ed. */
static enum mh_err read_string(struct reader *r, char **out)
{
	const char *start = r->p++;
	/* Escapes never grow: "\uXXXX" is 6 bytes for at most 3 of UTF-8,
	 * a surrogate pair 12 for 4. */
	const char *q = r->p;
	while (q < r->end && *q != '"')
		q += *q == '\\' && q + 1 < r->end ? 2 : 1;
	if (q >= r->end)
		return fail_at(r, start, "a string without its closing quote");
	char *s = malloc((size_t)(q - r->p) + 1), *o = s;
	if (!s)
		return mh_fail(r->d, MH_ENOMEM, 0, "out of memory for a JSON string");
	while (*r->p != '"') {
		const char *at = r->p;
		unsigned char c = (unsigned char)*r->p++;
		long cp = c;
		if (c < 0x20) {
			free(s);
			return fail_at(r, at, "a control character inside a string");
		}
		if (c == '\\' && ((cp = escape(r)) < 0 || cp == 0)) {
			free(s);
			return fail_at(r, at, cp ? "a malformed escape" : "\\u0000 inside a string");
		}
		if (c == '\\')
			o += put_utf8(o, (unsigned long)cp);
		else
			*o++ = (char)c;
	}
	r->p++;
	*o = '\0';
	*out = s;
	return MH_OK;
}

static enum mh_err read_number(struct reader *r, double *out)
{
	const char *start = r->p, *p = r->p;
	if (p < r->end && *p == '-')
		p++;
	if (p < r->end && *p == '0') {
		p++;
	} else if (p < r->end && *p >= '1' && *p <= '9') {
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return fail_at(r, start, "expected a value");
	}
	if (p < r->end && *p == '.') {
		if (++p >= r->end || *p < '0' || *p > '9')
			return fail_at(r, p, "expected a digit after the decimal point");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= r->end || *p < '0' || *p > '9')
			return fail_at(r, p, "expected a digit in the exponent");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p - start > NUMBER_MAX)
		return fail_at(r, start, "a number longer than 400 characters");
	char buf[NUMBER_MAX + 1];
	memcpy(buf, start, (size_t)(p - start));
	buf[p - start] = '\0';
	double v = strtod(buf, NULL);
	if (!isfinite(v))
		return fail_at(r, start, "a number too large for a double");
	*out = v;
	r->p = p;
	return MH_OK;
}

static enum mh_err read_value(struct reader *r, struct json_value *v, unsigned depth);

/* Room for one more item in v (and its key when an object). */
static bool grow(struct json_value *v, uint32_t *cap)
{
	if (v->n < *cap)
		return true;
	uint32_t more = *cap ? *cap * 2 : 4;
	struct json_value *items = realloc(v->items, more * sizeof *items);
	if (!items)
		return false;
	v->items = items;
	if (v->type == JV_OBJECT) {
		char **keys = realloc(v->keys, more * sizeof *keys);
		if (!keys)
			return false;
		v->keys = keys;
	}
	*cap = more;
	return true;
}

/* An array or object at r->p (its opening bracket). */
static enum mh_err read_list(struct reader *r, struct json_value *v, unsigned depth)
{
	bool object = *r->p == '{';
	char close = object ? '}' : ']';
	v->type = object ? JV_OBJECT : JV_ARRAY;
	if (depth >= JSON_MAX_DEPTH)
		return fail_at(r, r->p, "nesting deeper than 64");
	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return MH_OK;
	}
	uint32_t cap = 0;
	for (;;) {
		skip_space(r);
		if (!grow(v, &cap))
			return mh_fail(r->d, MH_ENOMEM, 0, "out of memory for JSON");
		char *key = NULL;
		if (object) {
			if (r->p >= r->end || *r->p != '"')
				return fail_at(r, r->p, "expected a key in quotes");
			const char *at = r->p;
			enum mh_err err = read_string(r, &key);
			if (err)
				return err;
			for (uint32_t i = 0; i < v->n; i++)
				if (!strcmp(v->keys[i], key)) {
					free(key);
					return fail_at(r, at, "a key given twice in one object");
				}
			skip_space(r);
			if (r->p >= r->end || *r->p != ':') {
				free(key);
				return fail_at(r, r->p, "expected ':' after a key");
			}
			r->p++;
			skip_space(r);
			v->keys[v->n] = key;
		}
		/* Counted before it is read, so a failure frees it. */
		memset(&v->items[v->n], 0, sizeof v->items[v->n]);
		v->n++;
		enum mh_err err = read_value(r, &v->items[v->n - 1], depth + 1);
		if (err)
			return err;
		skip_space(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return MH_OK;
		}
		return fail_at(r, r->p, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static enum mh_err read_value(struct reader *r, struct json_value *v, unsigned depth)
{
	skip_space(r);
	v->offset = (size_t)(r->p - r->text);
	if (r->p >= r->end)
		return fail_at(r, r->p, "expected a value, found the end of the text");
	switch (*r->p) {
	case '{':
	case '[':
		return read_list(r, v, depth);
	case '"':
		v->type = JV_STRING;
		return read_string(r, &v->string);
	case 't':
	case 'f':
		v->type = JV_BOOL;
		v->boolean = *r->p == 't';
		if (literal(r, v->boolean ? "true" : "false"))
			return MH_OK;
		break;
	case 'n':
		v->type = JV_NULL;
		if (literal(r, "null"))
			return MH_OK;
		break;
	default:
		v->type = JV_NUMBER;
		return read_number(r, &v->number);
	}
	return fail_at(r, r->p, "expected a value");
}

enum mh_err json_value_parse(const char *text, size_t len, struct json_value *v,
			     struct mh_diag *d)
{
	struct reader r = {.text = text, .p = text, .end = text + len, .d = d};
	memset(v, 0, sizeof *v);
	enum mh_err err = read_value(&r, v, 0);
	if (!err) {
		skip_space(&r);
		if (r.p < r.end)
			err = fail_at(&r, r.p, "text after the value");
	}
	if (err)
		json_value_free(v);
	return err;
}

void json_value_free(struct json_value *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < v->n; i++) {
		json_value_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof *v);
}

const struct json_value *json_value_member(const struct json_value *o, const char *key)
{
	if (!o || o->type != JV_OBJECT)
		return NULL;
	for (uint32_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}
