/* SPDX-License-Identifier: MIT */
/* A small strict JSON reader (RFC 8259) for the glTF files users write
 * back (gltf_read.h): one value, nothing after it but white space; no
 * comments, trailing commas, duplicate keys, NaN or leading zeros.
 * Strings are decoded to UTF-8 (\u escapes and surrogate pairs
 * included); a NUL inside a string is refused, so every string is a C
 * string.  Every value keeps the byte offset where it starts, so a
 * reader can say line:col of whatever it refuses.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_JSON_H
#define MH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Nesting deeper than this is refused (a hostile text cannot exhaust
 * the stack). */
#define JSON_MAX_DEPTH 64

enum json_type { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

struct json_value {
	enum json_type type;
	size_t offset;             /* where the value starts in the text */
	bool boolean;              /* JV_BOOL */
	double number;             /* JV_NUMBER */
	char *string;              /* JV_STRING: NUL-terminated UTF-8 */
	uint32_t n;                /* JV_ARRAY, JV_OBJECT: items */
	struct json_value *items;  /* n values */
	char **keys;               /* JV_OBJECT: n keys, in text order */
};

/* Parses text[0..len).  On success the caller owns *v (json_value_free);
 * on failure *v is empty and d says line:col and what was expected. */
enum mh_err json_value_parse(const char *text, size_t len, struct json_value *v,
			     struct mh_diag *d);

void json_value_free(struct json_value *v);

/* Member `key` of object o, NULL when o is not an object or lacks it. */
const struct json_value *json_value_member(const struct json_value *o, const char *key);

/* Line and column (1-based, bytes) of byte `offset` of text. */
void json_line_col(const char *text, size_t len, size_t offset, unsigned *line,
		   unsigned *col);

#endif
