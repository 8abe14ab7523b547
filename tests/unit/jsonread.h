/* SPDX-License-Identifier: MIT */
/* A small JSON reader for the tests (RFC 8259, without \u escapes beyond
 * ASCII): a text parsed into a tree of values, strict enough that a text
 * it accepts is well-formed (one value, nothing after it but spaces).
 * Allocation failures abort (a test fixture). */
#ifndef MH_TEST_JSONREAD_H
#define MH_TEST_JSONREAD_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_kind kind;
	double number;         /* JSON_NUMBER; JSON_BOOL: 0 or 1 */
	char *string;          /* JSON_STRING */
	size_t n;              /* JSON_ARRAY, JSON_OBJECT: items */
	struct json *items;    /* n values */
	char **keys;           /* JSON_OBJECT: n keys */
};

struct json_text {
	const char *p, *end;
};

static inline void *json_ok(void *p)
{
	if (!p)
		abort();
	return p;
}

static inline void json_space(struct json_text *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r'))
		t->p++;
}

static inline bool json_word(struct json_text *t, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(t->end - t->p) < n || memcmp(t->p, w, n))
		return false;
	t->p += n;
	return true;
}

static inline char *json_read_string(struct json_text *t)
{
	if (t->p >= t->end || *t->p++ != '"')
		return NULL;
	char *s = json_ok(malloc((size_t)(t->end - t->p) + 1)), *o = s;
	while (t->p < t->end && *t->p != '"') {
		unsigned char c = (unsigned char)*t->p++;
		if (c < 0x20)
			goto bad;
		if (c == '\\') {
			if (t->p >= t->end)
				goto bad;
			c = (unsigned char)*t->p++;
			if (c == 'u') {
				if (t->end - t->p < 4)
					goto bad;
				char hex[5] = {t->p[0], t->p[1], t->p[2], t->p[3], 0};
				c = (unsigned char)strtoul(hex, NULL, 16);
				t->p += 4;
			} else if (c == 'n') {
				c = '\n';
			} else if (c != '"' && c != '\\' && c != '/') {
				goto bad;
			}
		}
		*o++ = (char)c;
	}
	if (t->p >= t->end)
		goto bad;
	t->p++;
	*o = '\0';
	return s;
bad:
	free(s);
	return NULL;
}

static inline bool json_value(struct json_text *t, struct json *v, unsigned depth);

/* An array's or object's items, up to `close`. */
static inline bool json_items(struct json_text *t, struct json *v, char close, unsigned depth)
{
	size_t cap = 0;
	json_space(t);
	if (t->p < t->end && *t->p == close) {
		t->p++;
		return true;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap * 2 + 4;
			v->items = json_ok(realloc(v->items, cap * sizeof *v->items));
			if (close == '}')
				v->keys = json_ok(realloc(v->keys, cap * sizeof *v->keys));
		}
		json_space(t);
		if (close == '}') {
			if (!(v->keys[v->n] = json_read_string(t)))
				return false;
			json_space(t);
			if (t->p >= t->end || *t->p++ != ':') {
				free(v->keys[v->n]);
				return false;
			}
		}
		memset(&v->items[v->n], 0, sizeof v->items[v->n]);
		bool ok = json_value(t, &v->items[v->n], depth + 1);
		v->n++;
		if (!ok)
			return false;
		json_space(t);
		if (t->p < t->end && *t->p == ',') {
			t->p++;
			continue;
		}
		return t->p < t->end && *t->p++ == close;
	}
}

static inline bool json_value(struct json_text *t, struct json *v, unsigned depth)
{
	json_space(t);
	if (t->p >= t->end || depth > 64)
		return false;
	char c = *t->p;
	if (c == '{' || c == '[') {
		t->p++;
		v->kind = c == '{' ? JSON_OBJECT : JSON_ARRAY;
		return json_items(t, v, c == '{' ? '}' : ']', depth);
	}
	if (c == '"')
		return v->kind = JSON_STRING, (v->string = json_read_string(t)) != NULL;
	if (json_word(t, "true") || json_word(t, "false")) {
		v->kind = JSON_BOOL;
		v->number = t->p[-1] == 'e' && t->p[-2] == 'u';
		return true;
	}
	if (json_word(t, "null"))
		return v->kind = JSON_NULL, true;
	/* A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	const char *s = t->p;
	if (t->p < t->end && *t->p == '-')
		t->p++;
	if (t->p >= t->end || !isdigit((unsigned char)*t->p))
		return false;
	if (*t->p == '0')
		t->p++;
	else
		while (t->p < t->end && isdigit((unsigned char)*t->p))
			t->p++;
	if (t->p < t->end && *t->p == '.') {
		if (++t->p >= t->end || !isdigit((unsigned char)*t->p))
			return false;
		while (t->p < t->end && isdigit((unsigned char)*t->p))
			t->p++;
	}
	if (t->p < t->end && (*t->p == 'e' || *t->p == 'E')) {
		t->p++;
		if (t->p < t->end && (*t->p == '+' || *t->p == '-'))
			t->p++;
		if (t->p >= t->end || !isdigit((unsigned char)*t->p))
			return false;
		while (t->p < t->end && isdigit((unsigned char)*t->p))
			t->p++;
	}
	char buf[64];
	size_t n = (size_t)(t->p - s);
	if (n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	v->kind = JSON_NUMBER;
	v->number = strtod(buf, NULL);
	return true;
}

static inline void json_free(struct json *v)
{
	for (size_t i = 0; i < v->n; i++) {
		json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof *v);
}

/* Parses text[0..len) into *v; false (and *v empty) when it is not one
 * well-formed JSON value. */
static inline bool json_parse(const char *text, size_t len, struct json *v)
{
	struct json_text t = {text, text + len};
	memset(v, 0, sizeof *v);
	bool ok = json_value(&t, v, 0);
	json_space(&t);
	if (!ok || t.p != t.end) {
		json_free(v);
		return false;
	}
	return true;
}

/* The member `key` of an object, NULL if none (or v is no object). */
static inline const struct json *json_get(const struct json *v, const char *key)
{
	for (size_t i = 0; v && v->kind == JSON_OBJECT && i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

/* Item i of an array, NULL past its end. */
static inline const struct json *json_at(const struct json *v, size_t i)
{
	return v && v->kind == JSON_ARRAY && i < v->n ? &v->items[i] : NULL;
}

#endif
