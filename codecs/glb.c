/* SPDX-License-Identifier: MIT */
/* The GLB writer that model.glb's rig and motions (gltf.c) and its
 * bodies (gltf_mesh.c) share (gltf_int.h): the BIN chunk, its views and
 * accessors, and the JSON's numbers and strings. */
#include "gltf_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "float_text.h"
#include "strbuf.h"

/* A JSON string of printable ASCII: anything else is escaped. */
void glb_json_string(struct strbuf *sb, const char *s)
{
	strbuf_char(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_printf(sb, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			strbuf_printf(sb, "\\u%04x", c);
		else
			strbuf_char(sb, (char)c);
	}
	strbuf_char(sb, '"');
}

/* ---- the BIN chunk and its accessors ------------------------------------ */

/* Room for `more` bytes at a 4-byte boundary; false when out of memory. */
bool glb_reserve(struct glb *g, size_t more)
{
	if (g->failed)
		return false;
	size_t need = align_up(g->len, 4) + more;
	if (need > g->cap) {
		size_t cap = g->cap * 2 > need ? g->cap * 2 : need;
		uint8_t *b = realloc(g->bin, cap);
		if (!b) {
			g->failed = true;
			return false;
		}
		g->bin = b;
		g->cap = cap;
	}
	while (g->len % 4)
		g->bin[g->len++] = 0;
	return true;
}


/* `text`, then v in decimal: the JSON of the accessors, views and
 * samplers (thousands of each in a big model) without printf. */
void glb_text_int(struct strbuf *sb, const char *text, long long v)
{
	strbuf_str(sb, text, 0);
	strbuf_int(sb, v, 0);
}

/* The bufferView of the bytes from `start` to the end; target 0: none. */
uint32_t glb_view(struct glb *g, size_t start, int target)
{
	struct strbuf *v = &g->views;
	glb_text_int(v, g->nviews ? ",{\"buffer\":0,\"byteOffset\":" : "{\"buffer\":0,\"byteOffset\":",
		      (long long)start);
	glb_text_int(v, ",\"byteLength\":", (long long)(g->len - start));
	if (target)
		glb_text_int(v, ",\"target\":", target);
	strbuf_char(v, '}');
	return g->nviews++;
}

/* An accessor's opening up to its type: `{"bufferView":V,"componentType":T,`
 * then "normalized":true when asked, and "count":N. */
void glb_accessor_head(struct glb *g, uint32_t view, int type, bool normalized,
		       uint32_t count)
{
	struct strbuf *a = &g->accessors;
	glb_text_int(a, g->naccessors ? ",{\"bufferView\":" : "{\"bufferView\":", view);
	glb_text_int(a, ",\"componentType\":", type);
	if (normalized)
		strbuf_str(a, ",\"normalized\":true", 0);
	glb_text_int(a, ",\"count\":", count);
}

/* An accessor's type by its components: 1, 2, 3, 4 or 16. */
static const char *accessor_type(unsigned comps)
{
	static const char *const TYPES[5] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT4"};
	return TYPES[comps >= 1 && comps <= 4 ? comps - 1 : 4];
}

/* `count` floats of `comps` components each (1, 3, 4 or 16), as one
 * accessor over a view of their own; with min and max when `bounds`. */
uint32_t glb_floats(struct glb *g, const float *v, uint32_t count, unsigned comps,
			   bool bounds, int target)
{
	if (!glb_reserve(g, (size_t)count * comps * 4))
		return 0;
	size_t start = g->len;
	put_le_f32s(g->bin + g->len, v, (size_t)count * comps);
	g->len += (size_t)count * comps * 4;
	uint32_t view = glb_view(g, start, target);
	struct strbuf *a = &g->accessors;
	glb_accessor_head(g, view, GL_FLOAT, false, count);
	strbuf_str(a, ",\"type\":\"", 0);
	strbuf_str(a, accessor_type(comps), 0);
	strbuf_char(a, '"');
	for (int bound = 0; bounds && bound < 2; bound++) {
		strbuf_printf(a, ",\"%s\":[", bound ? "max" : "min");
		for (unsigned c = 0; c < comps; c++) {
			float m = v[c];
			for (uint32_t i = 1; i < count; i++) {
				float x = v[(size_t)i * comps + c];
				m = bound ? (x > m ? x : m) : (x < m ? x : m);
			}
			if (c)
				strbuf_char(a, ',');
			strbuf_f32(a, m);
		}
		strbuf_char(a, ']');
	}
	strbuf_char(a, '}');
	return g->naccessors++;
}

/* `count` unsigned integers of `comps` components, 16 or 32 bits wide. */
uint32_t glb_uints(struct glb *g, const uint32_t *v, uint32_t count, unsigned comps,
			  int type, int target)
{
	unsigned width = type == GL_UNSIGNED_SHORT ? 2 : 4;
	if (!glb_reserve(g, (size_t)count * comps * width))
		return 0;
	size_t start = g->len;
	for (size_t i = 0; i < (size_t)count * comps; i++) {
		if (width == 2)
			put_le16(g->bin + g->len, (uint16_t)v[i]);
		else
			put_le32(g->bin + g->len, v[i]);
		g->len += width;
	}
	uint32_t view = glb_view(g, start, target);
	strbuf_printf(&g->accessors,
		      "%s{\"bufferView\":%u,\"componentType\":%d,\"count\":%u,\"type\":\"%s\"}",
		      g->naccessors ? "," : "", view, type, count, accessor_type(comps));
	return g->naccessors++;
}

