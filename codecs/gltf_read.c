/* SPDX-License-Identifier: MIT */
/* glTF 2.0 read back (gltf_read.h): the container, the JSON (json.h),
 * the buffers, then nodes, skins, meshes, animations and the scene, each
 * accessor decoded to floats once, when something first names it. */
#include "gltf_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "gltf.h"
#include "json.h"

#define GLB_HEADER 12u
#define GLB_CHUNK_HEADER 8u

/* componentType values (the OpenGL enums). */
#define CT_BYTE 5120
#define CT_UBYTE 5121
#define CT_SHORT 5122
#define CT_USHORT 5123
#define CT_UINT 5125
#define CT_FLOAT 5126

/* What a use of an accessor takes: element shapes (bit n: n components,
 * n = 1, 2, 3, 4 or 16) and component kinds. */
#define SHAPE(n) (1u << (n))
enum {
	K_FLOAT = 1 << 0,
	K_NORM_SIGNED = 1 << 1,   /* normalized byte, short */
	K_NORM_UNSIGNED = 1 << 2, /* normalized unsigned byte, short */
	K_UINT_SMALL = 1 << 3,    /* unsigned byte, short, not normalized */
	K_UINT = 1 << 4,          /* unsigned int, not normalized */
};

struct buffer {
	const uint8_t *data;
	uint64_t len;     /* byteLength */
	uint8_t *owned;   /* a data: URI's bytes */
};

struct reading {
	const char *json;
	size_t json_len;
	uint64_t json_at;  /* the JSON text's offset in the file */
	bool glb;
	const uint8_t *bin;
	size_t bin_len;
	bool has_bin;
	struct json_value root;
	const struct json_value *views, *accessors;
	struct buffer *buffers;
	uint32_t nbuffers;
	struct gltf_asset *a;
	struct mh_diag *d;
};

/* A refusal at value v (NULL: the whole text) of the JSON, naming what
 * and where: line:col, and in a GLB the byte offset too. */
__attribute__((format(printf, 4, 5))) static enum mh_err
refuse(struct reading *r, const struct json_value *v, enum mh_err code, const char *fmt, ...)
{
	size_t at = v ? v->offset : 0;
	unsigned line, col;
	json_line_col(r->json, r->json_len, at, &line, &col);
	char msg[sizeof r->d->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	enum mh_err err = mh_fail_text(r->d, code, line, col, "%s", msg);
	if (r->d && r->glb)
		r->d->offset = r->json_at + at;
	return err;
}

static enum mh_err no_memory(struct reading *r)
{
	return mh_fail(r->d, MH_ENOMEM, 0, "out of memory reading the glTF");
}

static const char *type_name(enum json_type t)
{
	static const char *names[] = {"null", "a boolean", "a number", "a string", "an array",
				      "an object"};
	return names[t];
}

/* Member key of o, of JSON type `type`; NULL when absent.  *err set when
 * present with another type. */
static const struct json_value *member(struct reading *r, const struct json_value *o,
				       const char *path, const char *key, enum json_type type,
				       enum mh_err *err)
{
	const struct json_value *v = json_value_member(o, key);
	if (v && v->type != type) {
		*err = refuse(r, v, MH_ECORRUPT, "%s.%s: %s, expected %s", path, key,
			      type_name(v->type), type_name(type));
		return NULL;
	}
	return v;
}

static bool integral(const struct json_value *v, double lo, double hi)
{
	return v->type == JV_NUMBER && v->number == floor(v->number) && v->number >= lo &&
	       v->number <= hi;
}

/* Member key of o as an index below `below`: *out (-1 when absent and
 * not required). */
static enum mh_err index_of(struct reading *r, const struct json_value *o, const char *path,
			    const char *key, uint32_t below, bool required, int32_t *out)
{
	const struct json_value *v = json_value_member(o, key);
	*out = -1;
	if (!v) {
		if (required)
			return refuse(r, o, MH_ECORRUPT, "%s: no \"%s\"", path, key);
		return MH_OK;
	}
	if (!integral(v, 0, (double)below - 1))
		return refuse(r, v, MH_ECORRUPT, "%s.%s: not an index below %u", path, key, below);
	*out = (int32_t)v->number;
	return MH_OK;
}

/* Member key of o, a whole number in [lo, hi] (default `dflt`). */
static enum mh_err uint_of(struct reading *r, const struct json_value *o, const char *path,
			   const char *key, double lo, double hi, bool required, uint64_t dflt,
			   uint64_t *out)
{
	const struct json_value *v = json_value_member(o, key);
	*out = dflt;
	if (!v) {
		if (required)
			return refuse(r, o, MH_ECORRUPT, "%s: no \"%s\"", path, key);
		return MH_OK;
	}
	if (!integral(v, lo, hi))
		return refuse(r, v, MH_ECORRUPT, "%s.%s: not a whole number in [%.0f, %.0f]", path,
			      key, lo, hi);
	*out = (uint64_t)v->number;
	return MH_OK;
}

/* An optional array of n numbers into out. */
static enum mh_err numbers(struct reading *r, const struct json_value *o, const char *path,
			   const char *key, uint32_t n, double *out, bool *given)
{
	enum mh_err err = MH_OK;
	const struct json_value *v = member(r, o, path, key, JV_ARRAY, &err);
	*given = v != NULL;
	if (!v)
		return err;
	if (v->n != n)
		return refuse(r, v, MH_ECORRUPT, "%s.%s: %u numbers, expected %u", path, key, v->n,
			      n);
	for (uint32_t i = 0; i < n; i++) {
		if (v->items[i].type != JV_NUMBER)
			return refuse(r, &v->items[i], MH_ECORRUPT, "%s.%s[%u]: not a number", path,
				      key, i);
		out[i] = v->items[i].number;
	}
	return MH_OK;
}

/* A name: a copy of member "name", "" when absent. */
static enum mh_err name_of(struct reading *r, const struct json_value *o, const char *path,
			   char **out)
{
	enum mh_err err = MH_OK;
	const struct json_value *v = member(r, o, path, "name", JV_STRING, &err);
	if (err)
		return err;
	const char *s = v ? v->string : "";
	size_t n = strlen(s) + 1;
	if (!(*out = malloc(n)))
		return no_memory(r);
	memcpy(*out, s, n);
	return MH_OK;
}

/* An array member: *list (NULL and n 0 when absent). */
static enum mh_err list_of(struct reading *r, const struct json_value *o, const char *path,
			   const char *key, const struct json_value **list, uint32_t *n)
{
	enum mh_err err = MH_OK;
	*list = member(r, o, path, key, JV_ARRAY, &err);
	*n = *list ? (*list)->n : 0;
	return err;
}

/* Item i of array `list` as an object. */
static enum mh_err object_at(struct reading *r, const struct json_value *list, uint32_t i,
			     const char *path)
{
	if (list->items[i].type != JV_OBJECT)
		return refuse(r, &list->items[i], MH_ECORRUPT, "%s: %s, expected an object", path,
			      type_name(list->items[i].type));
	return MH_OK;
}

/* ---- buffers ---------------------------------------------------------------- */

static int base64_digit(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A'
	       : c >= 'a' && c <= 'z' ? c - 'a' + 26
	       : c >= '0' && c <= '9' ? c - '0' + 52
	       : c == '+'	      ? 62
	       : c == '/'	      ? 63
				      : -1;
}

/* s[0..n) base64 (padding optional) into *out; false when malformed. */
static bool base64_decode(const char *s, size_t n, uint8_t **out, size_t *len, bool *oom)
{
	while (n && s[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return false;
	uint8_t *o = malloc(n / 4 * 3 + 3);
	if (!o) {
		*oom = true;
		return false;
	}
	size_t k = 0;
	uint32_t acc = 0;
	for (size_t i = 0; i < n; i++) {
		int v = base64_digit((unsigned char)s[i]);
		if (v < 0) {
			free(o);
			return false;
		}
		acc = acc << 6 | (uint32_t)v;
		if (i % 4 == 3) {
			o[k++] = (uint8_t)(acc >> 16);
			o[k++] = (uint8_t)(acc >> 8);
			o[k++] = (uint8_t)acc;
		}
	}
	if (n % 4 == 2) {
		o[k++] = (uint8_t)(acc >> 4);
	} else if (n % 4 == 3) {
		o[k++] = (uint8_t)(acc >> 10);
		o[k++] = (uint8_t)(acc >> 2);
	}
	*out = o;
	*len = k;
	return true;
}

static enum mh_err read_buffer(struct reading *r, const struct json_value *list, uint32_t i)
{
	char path[48];
	snprintf(path, sizeof path, "buffers[%u]", i);
	const struct json_value *b = &list->items[i];
	enum mh_err err = object_at(r, list, i, path);
	if (err)
		return err;
	struct buffer *buf = &r->buffers[i];
	if ((err = uint_of(r, b, path, "byteLength", 1, 9007199254740991.0, true, 0, &buf->len)))
		return err;
	const struct json_value *uri = member(r, b, path, "uri", JV_STRING, &err);
	if (err)
		return err;
	size_t have;
	if (!uri) {
		if (!r->glb || i != 0 || !r->has_bin)
			return refuse(r, b, MH_ECORRUPT,
				      "%s: no \"uri\" and no GLB BIN chunk to stand for it", path);
		buf->data = r->bin;
		have = r->bin_len;
	} else if (!strncmp(uri->string, "data:", 5)) {
		const char *comma = strchr(uri->string, ',');
		if (!comma || comma - uri->string < 12 || strncmp(comma - 7, ";base64", 7))
			return refuse(r, uri, MH_ECORRUPT, "%s.uri: a data URI that is not base64",
				      path);
		bool oom = false;
		if (!base64_decode(comma + 1, strlen(comma + 1), &buf->owned, &have, &oom))
			return oom ? no_memory(r)
				   : refuse(r, uri, MH_ECORRUPT,
					    "%s.uri: the base64 data is malformed", path);
		buf->data = buf->owned;
	} else {
		return refuse(r, uri, MH_ECORRUPT,
			      "%s.uri: \"%.40s\" is a file beside the asset, which the mount cannot "
			      "read: export a .glb or embed the buffers",
			      path, uri->string);
	}
	if (buf->len > have)
		return refuse(r, b, MH_ECORRUPT, "%s: byteLength %llu, but only %zu bytes are there",
			      path, (unsigned long long)buf->len, have);
	return MH_OK;
}

static enum mh_err read_buffers(struct reading *r)
{
	const struct json_value *list;
	enum mh_err err = list_of(r, &r->root, "glTF", "buffers", &list, &r->nbuffers);
	if (err || !r->nbuffers)
		return err;
	if (!(r->buffers = calloc(r->nbuffers, sizeof *r->buffers)))
		return no_memory(r);
	for (uint32_t i = 0; i < r->nbuffers && !err; i++)
		err = read_buffer(r, list, i);
	return err;
}

/* ---- accessors -------------------------------------------------------------- */

static unsigned shape_comps(const char *type)
{
	static const struct {
		const char *name;
		unsigned comps;
	} shapes[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
		      {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		if (!strcmp(type, shapes[i].name))
			return shapes[i].comps;
	return 0;
}

static unsigned component_size(int ct)
{
	return ct == CT_BYTE || ct == CT_UBYTE ? 1 : ct == CT_SHORT || ct == CT_USHORT ? 2 : 4;
}

static unsigned component_kind(int ct, bool normalized)
{
	if (ct == CT_FLOAT)
		return K_FLOAT;
	if (normalized)
		return ct == CT_BYTE || ct == CT_SHORT ? K_NORM_SIGNED
		       : ct == CT_UINT		 ? 0
						 : K_NORM_UNSIGNED;
	return ct == CT_UINT ? K_UINT : ct == CT_UBYTE || ct == CT_USHORT ? K_UINT_SMALL : 0;
}

static float component(const uint8_t *p, int ct, bool normalized)
{
	switch (ct) {
	case CT_BYTE: {
		double v = (int8_t)p[0];
		return (float)(normalized ? fmax(v / 127.0, -1.0) : v);
	}
	case CT_UBYTE:
		return normalized ? (float)(p[0] / 255.0) : p[0];
	case CT_SHORT: {
		double v = (int16_t)le16(p);
		return (float)(normalized ? fmax(v / 32767.0, -1.0) : v);
	}
	case CT_USHORT:
		return normalized ? (float)(le16(p) / 65535.0) : le16(p);
	case CT_UINT:
		return (float)le32(p);
	default: {
		uint32_t bits = le32(p);
		float f;
		memcpy(&f, &bits, sizeof f);
		return f;
	}
	}
}

/* Accessor `index`, used at `path` (a member's value `at`), decoded:
 * its shape and kind among those given. */
static enum mh_err accessor(struct reading *r, const struct json_value *at, const char *path,
			    uint32_t index, unsigned shapes, unsigned kinds,
			    struct gltf_floats *out)
{
	const struct json_value *acc = &r->accessors->items[index];
	char apath[40];
	snprintf(apath, sizeof apath, "accessors[%u]", index);
	enum mh_err err = object_at(r, r->accessors, index, apath);
	if (err)
		return err;
	if (json_value_member(acc, "sparse"))
		return refuse(r, at, MH_ECORRUPT,
			      "%s: accessor %u is sparse, which is not read (write it dense)", path,
			      index);
	uint64_t ct, count;
	const struct json_value *type = member(r, acc, apath, "type", JV_STRING, &err);
	const struct json_value *norm = err ? NULL : member(r, acc, apath, "normalized", JV_BOOL, &err);
	if (!err)
		err = uint_of(r, acc, apath, "componentType", 5120, 5126, true, 0, &ct);
	if (!err)
		err = uint_of(r, acc, apath, "count", 1, 4294967295.0, true, 0, &count);
	if (err)
		return err;
	if (!type)
		return refuse(r, acc, MH_ECORRUPT, "%s: no \"type\"", apath);
	unsigned comps = shape_comps(type->string), size = component_size((int)ct);
	bool normalized = norm && norm->boolean;
	if (!comps || ct == 5124)
		return refuse(r, acc, MH_ECORRUPT, "%s: type %s of componentType %llu is not glTF's",
			      apath, type->string, (unsigned long long)ct);
	unsigned kind = component_kind((int)ct, normalized);
	if (!(shapes & SHAPE(comps)) || !(kinds & kind))
		return refuse(r, at, MH_ECORRUPT,
			      "%s: accessor %u is %s of componentType %llu%s, which glTF does not "
			      "allow here",
			      path, index, type->string, (unsigned long long)ct,
			      normalized ? " normalized" : "");
	uint64_t bytes = count * comps * sizeof(float);
	out->count = (uint32_t)count;
	out->comps = comps;
	if (r->a->decoded[index]) {
		out->v = r->a->decoded[index];
		return MH_OK;
	}
	if (r->a->decoded_bytes + bytes > GLTF_READ_MAX_BYTES)
		return refuse(r, at, MH_ERANGE, "%s: accessor %u takes the decoded numbers past %u "
			      "bytes", path, index, GLTF_READ_MAX_BYTES);
	int32_t view_index;
	if ((err = index_of(r, acc, apath, "bufferView", r->views ? r->views->n : 0, false,
			    &view_index)))
		return err;
	uint64_t offset, elem = (uint64_t)comps * size;
	if ((err = uint_of(r, acc, apath, "byteOffset", 0, 4294967295.0, false, 0, &offset)))
		return err;
	const uint8_t *data = NULL;
	uint64_t stride = elem;
	if (view_index >= 0) {
		char vpath[40];
		snprintf(vpath, sizeof vpath, "bufferViews[%d]", view_index);
		const struct json_value *view = &r->views->items[view_index];
		int32_t buf;
		uint64_t voff, vlen, vstride;
		if ((err = object_at(r, r->views, (uint32_t)view_index, vpath)) ||
		    (err = index_of(r, view, vpath, "buffer", r->nbuffers, true, &buf)) ||
		    (err = uint_of(r, view, vpath, "byteOffset", 0, 9007199254740991.0, false, 0,
				   &voff)) ||
		    (err = uint_of(r, view, vpath, "byteLength", 1, 9007199254740991.0, true, 0,
				   &vlen)) ||
		    (err = uint_of(r, view, vpath, "byteStride", 4, 252, false, 0, &vstride)))
			return err;
		if (voff + vlen > r->buffers[buf].len)
			return refuse(r, view, MH_ECORRUPT,
				      "%s: bytes %llu..%llu are past buffer %d's %llu", vpath,
				      (unsigned long long)voff, (unsigned long long)(voff + vlen), buf,
				      (unsigned long long)r->buffers[buf].len);
		if (vstride) {
			if (vstride < elem)
				return refuse(r, view, MH_ECORRUPT,
					      "%s: byteStride %llu is less than accessor %u's "
					      "element of %llu bytes",
					      vpath, (unsigned long long)vstride, index,
					      (unsigned long long)elem);
			stride = vstride;
		}
		if (offset + stride * (count - 1) + elem > vlen)
			return refuse(r, at, MH_ECORRUPT,
				      "%s: accessor %u reads past bufferView %d (%llu bytes needed, "
				      "%llu there)",
				      path, index, view_index,
				      (unsigned long long)(offset + stride * (count - 1) + elem),
				      (unsigned long long)vlen);
		data = r->buffers[buf].data + voff + offset;
	}
	float *v = calloc((size_t)count * comps, sizeof *v);
	if (!v)
		return no_memory(r);
	for (uint64_t i = 0; data && i < count; i++)
		for (unsigned c = 0; c < comps; c++) {
			float f = component(data + i * stride + c * size, (int)ct, normalized);
			if (!isfinite(f)) {
				free(v);
				return refuse(r, at, MH_ECORRUPT,
					      "%s: accessor %u's element %llu is not a finite number",
					      path, index, (unsigned long long)i);
			}
			v[i * comps + c] = f;
		}
	r->a->decoded[index] = v;
	r->a->decoded_bytes += bytes;
	out->v = v;
	return MH_OK;
}

/* Member key of o naming an accessor, decoded (count 0 when absent and
 * not required). */
static enum mh_err accessor_member(struct reading *r, const struct json_value *o,
				   const char *path, const char *key, bool required,
				   unsigned shapes, unsigned kinds, struct gltf_floats *out)
{
	int32_t index;
	*out = (struct gltf_floats){0};
	enum mh_err err = index_of(r, o, path, key, r->accessors ? r->accessors->n : 0, required,
				   &index);
	if (err || index < 0)
		return err;
	char mpath[96];
	snprintf(mpath, sizeof mpath, "%s.%s", path, key);
	return accessor(r, json_value_member(o, key), mpath, (uint32_t)index, shapes, kinds, out);
}

/* ---- nodes ------------------------------------------------------------------ */

/* The rotation of a column-major 3x3 as a unit quaternion x y z w. */
static void matrix_quat(const double m[9], double q[4])
{
	double t = m[0] + m[4] + m[8];
	if (t > 0) {
		double s = sqrt(t + 1) * 2;
		q[3] = s / 4;
		q[0] = (m[5] - m[7]) / s;
		q[1] = (m[6] - m[2]) / s;
		q[2] = (m[1] - m[3]) / s;
	} else if (m[0] > m[4] && m[0] > m[8]) {
		double s = sqrt(1 + m[0] - m[4] - m[8]) * 2;
		q[3] = (m[5] - m[7]) / s;
		q[0] = s / 4;
		q[1] = (m[3] + m[1]) / s;
		q[2] = (m[6] + m[2]) / s;
	} else if (m[4] > m[8]) {
		double s = sqrt(1 + m[4] - m[0] - m[8]) * 2;
		q[3] = (m[6] - m[2]) / s;
		q[0] = (m[3] + m[1]) / s;
		q[1] = s / 4;
		q[2] = (m[7] + m[5]) / s;
	} else {
		double s = sqrt(1 + m[8] - m[0] - m[4]) * 2;
		q[3] = (m[1] - m[3]) / s;
		q[0] = (m[6] + m[2]) / s;
		q[1] = (m[7] + m[5]) / s;
		q[2] = s / 4;
	}
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	for (int i = 0; i < 4; i++)
		q[i] = n > 0 ? q[i] / n : i == 3;
}

/* A node's matrix taken apart: translation, scale (negative X when it
 * mirrors), rotation. */
static void matrix_trs(struct gltf_node *n)
{
	const double *m = n->matrix;
	double rot[9];
	for (int c = 0; c < 3; c++) {
		n->translation[c] = m[12 + c];
		n->scale[c] = sqrt(m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] +
				   m[c * 4 + 2] * m[c * 4 + 2]);
	}
	double det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
		     m[8] * (m[1] * m[6] - m[2] * m[5]);
	if (det < 0)
		n->scale[0] = -n->scale[0];
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < 3; i++)
			rot[c * 3 + i] = n->scale[c] ? m[c * 4 + i] / n->scale[c] : (c == i);
	matrix_quat(rot, n->rotation);
}

static enum mh_err read_node(struct reading *r, const struct json_value *list, uint32_t i,
			     uint32_t nmeshes, uint32_t nskins)
{
	char path[32];
	snprintf(path, sizeof path, "nodes[%u]", i);
	enum mh_err err = object_at(r, list, i, path);
	const struct json_value *o = &list->items[i];
	struct gltf_node *n = &r->a->nodes[i];
	bool given;
	if (err || (err = name_of(r, o, path, &n->name)) ||
	    (err = numbers(r, o, path, "translation", 3, n->translation, &given)) ||
	    (err = numbers(r, o, path, "rotation", 4, n->rotation, &given)) ||
	    (err = numbers(r, o, path, "scale", 3, n->scale, &given)) ||
	    (err = numbers(r, o, path, "matrix", 16, n->matrix, &n->has_matrix)) ||
	    (err = index_of(r, o, path, "mesh", nmeshes, false, &n->mesh)) ||
	    (err = index_of(r, o, path, "skin", nskins, false, &n->skin)))
		return err;
	if (n->has_matrix)
		matrix_trs(n);
	const struct json_value *children;
	if ((err = list_of(r, o, path, "children", &children, &n->nchildren)))
		return err;
	if (n->nchildren && !(n->children = malloc(n->nchildren * sizeof *n->children)))
		return no_memory(r);
	for (uint32_t k = 0; k < n->nchildren; k++) {
		const struct json_value *c = &children->items[k];
		if (!integral(c, 0, (double)r->a->nnodes - 1))
			return refuse(r, c, MH_ECORRUPT, "%s.children[%u]: not a node index below %u",
				      path, k, r->a->nnodes);
		uint32_t child = (uint32_t)c->number;
		struct gltf_node *cn = &r->a->nodes[child];
		if (cn->parent >= 0 || child == i)
			return refuse(r, c, MH_ECORRUPT,
				      "%s.children[%u]: node %u already has a parent (node %d)", path,
				      k, child, child == i ? (int)i : cn->parent);
		cn->parent = (int32_t)i;
		n->children[k] = child;
	}
	return MH_OK;
}

static enum mh_err read_nodes(struct reading *r, uint32_t nmeshes, uint32_t nskins)
{
	const struct json_value *list;
	enum mh_err err = list_of(r, &r->root, "glTF", "nodes", &list, &r->a->nnodes);
	if (err || !r->a->nnodes)
		return err;
	if (!(r->a->nodes = calloc(r->a->nnodes, sizeof *r->a->nodes)))
		return no_memory(r);
	for (uint32_t i = 0; i < r->a->nnodes; i++) {
		struct gltf_node *n = &r->a->nodes[i];
		n->parent = n->mesh = n->skin = -1;
		n->rotation[3] = 1;
		n->scale[0] = n->scale[1] = n->scale[2] = 1;
		for (int k = 0; k < 16; k++)
			n->matrix[k] = k % 5 == 0;
	}
	for (uint32_t i = 0; i < r->a->nnodes && !err; i++)
		err = read_node(r, list, i, nmeshes, nskins);
	/* Every node has one parent at most; a walk up longer than the
	 * nodes is a loop. */
	for (uint32_t i = 0; i < r->a->nnodes && !err; i++) {
		int32_t at = (int32_t)i;
		for (uint32_t steps = 0; at >= 0; steps++, at = r->a->nodes[at].parent)
			if (steps > r->a->nnodes)
				return refuse(r, &list->items[i], MH_ECORRUPT,
					      "nodes[%u]: its parents loop back to it", i);
	}
	return err;
}

/* ---- skins ------------------------------------------------------------------ */

static enum mh_err read_skins(struct reading *r)
{
	const struct json_value *list;
	enum mh_err err = list_of(r, &r->root, "glTF", "skins", &list, &r->a->nskins);
	if (err || !r->a->nskins)
		return err;
	if (!(r->a->skins = calloc(r->a->nskins, sizeof *r->a->skins)))
		return no_memory(r);
	for (uint32_t i = 0; i < r->a->nskins; i++) {
		char path[32];
		snprintf(path, sizeof path, "skins[%u]", i);
		const struct json_value *o = &list->items[i], *joints;
		struct gltf_skin *s = &r->a->skins[i];
		s->skeleton = -1;
		if ((err = object_at(r, list, i, path)) || (err = name_of(r, o, path, &s->name)) ||
		    (err = list_of(r, o, path, "joints", &joints, &s->njoints)) ||
		    (err = index_of(r, o, path, "skeleton", r->a->nnodes, false, &s->skeleton)))
			return err;
		if (!joints || !s->njoints)
			return refuse(r, o, MH_ECORRUPT, "%s: no joints", path);
		if (!(s->joints = malloc(s->njoints * sizeof *s->joints)))
			return no_memory(r);
		for (uint32_t k = 0; k < s->njoints; k++) {
			const struct json_value *j = &joints->items[k];
			if (!integral(j, 0, (double)r->a->nnodes - 1))
				return refuse(r, j, MH_ECORRUPT,
					      "%s.joints[%u]: not a node index below %u", path, k,
					      r->a->nnodes);
			s->joints[k] = (uint32_t)j->number;
		}
		if ((err = accessor_member(r, o, path, "inverseBindMatrices", false, SHAPE(16),
					   K_FLOAT, &s->inverse_binds)))
			return err;
		if (s->inverse_binds.count && s->inverse_binds.count < s->njoints)
			return refuse(r, json_value_member(o, "inverseBindMatrices"), MH_ECORRUPT,
				      "%s.inverseBindMatrices: %u matrices for %u joints", path,
				      s->inverse_binds.count, s->njoints);
	}
	return MH_OK;
}

/* ---- meshes ----------------------------------------------------------------- */

/* The integer members of member "extras" of o, when it is an object. */
static enum mh_err read_extras(struct reading *r, const struct json_value *o,
			       struct gltf_extra **out, uint32_t *n)
{
	const struct json_value *e = json_value_member(o, "extras");
	*out = NULL;
	*n = 0;
	if (!e || e->type != JV_OBJECT || !e->n)
		return MH_OK;
	if (!(*out = calloc(e->n, sizeof **out)))
		return no_memory(r);
	for (uint32_t i = 0; i < e->n; i++) {
		if (!integral(&e->items[i], -9007199254740991.0, 9007199254740991.0))
			continue;
		size_t len = strlen(e->keys[i]) + 1;
		struct gltf_extra *x = &(*out)[*n];
		if (!(x->key = malloc(len)))
			return no_memory(r);
		memcpy(x->key, e->keys[i], len);
		x->value = (int64_t)e->items[i].number;
		(*n)++;
	}
	return MH_OK;
}

static enum mh_err read_primitive(struct reading *r, const struct json_value *list, uint32_t k,
				  const char *mesh_path, struct gltf_primitive *p)
{
	char path[64];
	snprintf(path, sizeof path, "%s.primitives[%u]", mesh_path, k);
	const struct json_value *o = &list->items[k], *attrs;
	enum mh_err err = object_at(r, list, k, path);
	uint64_t mode, material;
	if (err || (err = uint_of(r, o, path, "mode", 0, 6, false, 4, &mode)) ||
	    (err = uint_of(r, o, path, "material", 0,
			   r->a->nmaterials ? r->a->nmaterials - 1.0 : -1.0, false, UINT64_MAX,
			   &material)) ||
	    (err = read_extras(r, o, &p->extras, &p->nextras)))
		return err;
	p->mode = (uint32_t)mode;
	p->material = material == UINT64_MAX ? -1 : (int32_t)material;
	if (!(attrs = member(r, o, path, "attributes", JV_OBJECT, &err)))
		return err ? err : refuse(r, o, MH_ECORRUPT, "%s: no \"attributes\"", path);
	char apath[80];
	snprintf(apath, sizeof apath, "%s.attributes", path);
	const unsigned uv = K_FLOAT | K_NORM_UNSIGNED;
	if ((err = accessor_member(r, attrs, apath, "POSITION", true, SHAPE(3), K_FLOAT,
				   &p->position)) ||
	    (err = accessor_member(r, attrs, apath, "NORMAL", false, SHAPE(3), K_FLOAT,
				   &p->normal)) ||
	    (err = accessor_member(r, attrs, apath, "TEXCOORD_0", false, SHAPE(2), uv,
				   &p->texcoord0)) ||
	    (err = accessor_member(r, attrs, apath, "COLOR_0", false, SHAPE(3) | SHAPE(4), uv,
				   &p->color0)) ||
	    (err = accessor_member(r, attrs, apath, "JOINTS_0", false, SHAPE(4), K_UINT_SMALL,
				   &p->joints0)) ||
	    (err = accessor_member(r, attrs, apath, "WEIGHTS_0", false, SHAPE(4), uv,
				   &p->weights0)))
		return err;
	p->nvertices = p->position.count;
	static const char *names[] = {"NORMAL", "TEXCOORD_0", "COLOR_0", "JOINTS_0", "WEIGHTS_0"};
	const struct gltf_floats *others[] = {&p->normal, &p->texcoord0, &p->color0, &p->joints0,
					      &p->weights0};
	for (int i = 0; i < 5; i++)
		if (others[i]->count && others[i]->count != p->nvertices)
			return refuse(r, json_value_member(attrs, names[i]), MH_ECORRUPT,
				      "%s.%s: %u elements, POSITION has %u", apath, names[i],
				      others[i]->count, p->nvertices);
	struct gltf_floats idx;
	if ((err = accessor_member(r, o, path, "indices", false, SHAPE(1), K_UINT_SMALL | K_UINT,
				   &idx)) || !idx.count)
		return err;
	/* Decoded again as integers: a float holds an index exactly only
	 * below 2^24, and this one is checked against the vertex count. */
	const struct json_value *at = json_value_member(o, "indices");
	if (!(p->indices = malloc(idx.count * sizeof *p->indices)))
		return no_memory(r);
	p->nindices = idx.count;
	for (uint32_t i = 0; i < idx.count; i++) {
		double v = idx.v[i];
		if (v >= p->nvertices)
			return refuse(r, at, MH_ECORRUPT, "%s.indices: index %u is %.0f, past the %u "
				      "vertices", path, i, v, p->nvertices);
		p->indices[i] = (uint32_t)v;
	}
	return MH_OK;
}

/* The materials' names: what the meshes' primitives name them by. */
static enum mh_err read_materials(struct reading *r)
{
	const struct json_value *list;
	enum mh_err err = list_of(r, &r->root, "glTF", "materials", &list, &r->a->nmaterials);
	if (err || !r->a->nmaterials)
		return err;
	if (!(r->a->material_names = calloc(r->a->nmaterials, sizeof *r->a->material_names)))
		return no_memory(r);
	for (uint32_t i = 0; i < r->a->nmaterials && !err; i++) {
		char path[32];
		snprintf(path, sizeof path, "materials[%u]", i);
		if (!(err = object_at(r, list, i, path)))
			err = name_of(r, &list->items[i], path, &r->a->material_names[i]);
	}
	return err;
}

static enum mh_err read_meshes(struct reading *r)
{
	const struct json_value *list;
	enum mh_err err = list_of(r, &r->root, "glTF", "meshes", &list, &r->a->nmeshes);
	if (err || !r->a->nmeshes)
		return err;
	if (!(r->a->meshes = calloc(r->a->nmeshes, sizeof *r->a->meshes)))
		return no_memory(r);
	for (uint32_t i = 0; i < r->a->nmeshes; i++) {
		char path[32];
		snprintf(path, sizeof path, "meshes[%u]", i);
		const struct json_value *o = &list->items[i], *prims;
		struct gltf_mesh *m = &r->a->meshes[i];
		if ((err = object_at(r, list, i, path)) || (err = name_of(r, o, path, &m->name)) ||
		    (err = read_extras(r, o, &m->extras, &m->nextras)) ||
		    (err = list_of(r, o, path, "primitives", &prims, &m->nprimitives)))
			return err;
		if (!m->nprimitives)
			return refuse(r, o, MH_ECORRUPT, "%s: no primitives", path);
		if (!(m->primitives = calloc(m->nprimitives, sizeof *m->primitives)))
			return no_memory(r);
		for (uint32_t k = 0; k < m->nprimitives; k++)
			if ((err = read_primitive(r, prims, k, path, &m->primitives[k])))
				return err;
	}
	return MH_OK;
}

/* ---- animations ------------------------------------------------------------- */

static enum mh_err read_sampler(struct reading *r, const struct json_value *list, uint32_t k,
				const char *anim_path, struct gltf_sampler *s)
{
	char path[64];
	snprintf(path, sizeof path, "%s.samplers[%u]", anim_path, k);
	const struct json_value *o = &list->items[k];
	enum mh_err err = object_at(r, list, k, path);
	const struct json_value *interp = err ? NULL
					      : member(r, o, path, "interpolation", JV_STRING, &err);
	if (err)
		return err;
	s->interp = GLTF_LINEAR;
	if (interp && !strcmp(interp->string, "STEP"))
		s->interp = GLTF_STEP;
	else if (interp && !strcmp(interp->string, "CUBICSPLINE"))
		s->interp = GLTF_CUBICSPLINE;
	else if (interp && strcmp(interp->string, "LINEAR"))
		return refuse(r, interp, MH_ECORRUPT,
			      "%s.interpolation: \"%.32s\", expected LINEAR, STEP or CUBICSPLINE",
			      path, interp->string);
	if ((err = accessor_member(r, o, path, "input", true, SHAPE(1), K_FLOAT, &s->input)))
		return err;
	const struct json_value *in = json_value_member(o, "input");
	for (uint32_t i = 1; i < s->input.count; i++)
		if (!(s->input.v[i] > s->input.v[i - 1]))
			return refuse(r, in, MH_ECORRUPT,
				      "%s.input: time %u (%g s) is not after time %u (%g s)", path, i,
				      s->input.v[i], i - 1, s->input.v[i - 1]);
	/* The output's shape depends on the channels' paths: any here,
	 * checked against each channel's path after. */
	return accessor_member(r, o, path, "output", true, SHAPE(1) | SHAPE(3) | SHAPE(4),
			       K_FLOAT | K_NORM_SIGNED | K_NORM_UNSIGNED, &s->output);
}

/* Channel k's target and its sampler's output checked against its path. */
static enum mh_err read_channel(struct reading *r, const struct json_value *list, uint32_t k,
				const char *anim_path, struct gltf_animation *an,
				const struct json_value *samplers)
{
	char path[64];
	snprintf(path, sizeof path, "%s.channels[%u]", anim_path, k);
	const struct json_value *o = &list->items[k], *target, *pv;
	struct gltf_channel *c = &an->channels[k];
	int32_t sampler;
	enum mh_err err = object_at(r, list, k, path);
	if (err || (err = index_of(r, o, path, "sampler", an->nsamplers, true, &sampler)))
		return err;
	c->sampler = (uint32_t)sampler;
	if (!(target = member(r, o, path, "target", JV_OBJECT, &err)))
		return err ? err : refuse(r, o, MH_ECORRUPT, "%s: no \"target\"", path);
	char tpath[80];
	snprintf(tpath, sizeof tpath, "%s.target", path);
	if ((err = index_of(r, target, tpath, "node", r->a->nnodes, false, &c->node)))
		return err;
	if (!(pv = member(r, target, tpath, "path", JV_STRING, &err)))
		return err ? err : refuse(r, target, MH_ECORRUPT, "%s: no \"path\"", tpath);
	static const char *paths[] = {"translation", "rotation", "scale", "weights"};
	int which = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(pv->string, paths[i]))
			which = i;
	if (which < 0)
		return refuse(r, pv, MH_ECORRUPT,
			      "%s.path: \"%.32s\", expected translation, rotation, scale or weights",
			      tpath, pv->string);
	c->path = (enum gltf_path)which;
	struct gltf_sampler *s = &an->samplers[sampler];
	const struct gltf_floats *out = &s->output;
	uint32_t per_key = s->interp == GLTF_CUBICSPLINE ? 3 : 1, comps;
	const struct json_value *outv = json_value_member(&samplers->items[sampler], "output");
	int32_t out_index = (int32_t)outv->number;
	const struct json_value *acc = &r->accessors->items[out_index];
	const struct json_value *ctv = json_value_member(acc, "componentType");
	bool float_type = ctv && ctv->number == CT_FLOAT;
	unsigned want = c->path == GLTF_PATH_ROTATION ? 4 : c->path == GLTF_PATH_WEIGHTS ? 1 : 3;
	if (out->comps != want || (!float_type && (c->path == GLTF_PATH_TRANSLATION ||
						    c->path == GLTF_PATH_SCALE)))
		return refuse(r, o, MH_ECORRUPT,
			      "%s: a %s channel, but sampler %d's output (accessor %d) is not %s",
			      path, pv->string, sampler, out_index,
			      want == 4   ? "VEC4"
			      : want == 1 ? "SCALAR"
					  : "VEC3 of floats");
	if (c->path == GLTF_PATH_WEIGHTS) {
		uint64_t keys = (uint64_t)s->input.count * per_key;
		if (out->count % keys)
			return refuse(r, o, MH_ECORRUPT,
				      "%s: sampler %d's output has %u values, not a multiple of its "
				      "%llu keys",
				      path, sampler, out->count, (unsigned long long)keys);
		comps = (uint32_t)(out->count / keys);
	} else {
		comps = want;
		if ((uint64_t)out->count != (uint64_t)s->input.count * per_key)
			return refuse(r, o, MH_ECORRUPT,
				      "%s: sampler %d has %u times but %u outputs (expected %llu)",
				      path, sampler, s->input.count, out->count,
				      (unsigned long long)s->input.count * per_key);
	}
	if (s->comps && s->comps != comps)
		return refuse(r, o, MH_ECORRUPT,
			      "%s: sampler %d already drives a channel of another shape", path,
			      sampler);
	s->comps = comps;
	return MH_OK;
}

static enum mh_err read_animation(struct reading *r, const struct json_value *list, uint32_t i)
{
	char path[32];
	snprintf(path, sizeof path, "animations[%u]", i);
	const struct json_value *o = &list->items[i], *samplers, *channels;
	struct gltf_animation *an = &r->a->animations[i];
	enum mh_err err = object_at(r, list, i, path);
	if (err || (err = name_of(r, o, path, &an->name)) ||
	    (err = list_of(r, o, path, "samplers", &samplers, &an->nsamplers)) ||
	    (err = list_of(r, o, path, "channels", &channels, &an->nchannels)))
		return err;
	if (!an->nsamplers || !an->nchannels)
		return refuse(r, o, MH_ECORRUPT, "%s: no %s", path,
			      an->nsamplers ? "channels" : "samplers");
	if (!(an->samplers = calloc(an->nsamplers, sizeof *an->samplers)) ||
	    !(an->channels = calloc(an->nchannels, sizeof *an->channels)))
		return no_memory(r);
	for (uint32_t k = 0; k < an->nsamplers; k++)
		if ((err = read_sampler(r, samplers, k, path, &an->samplers[k])))
			return err;
	for (uint32_t k = 0; k < an->nchannels; k++)
		if ((err = read_channel(r, channels, k, path, an, samplers)))
			return err;
	return MH_OK;
}

static enum mh_err read_animations(struct reading *r)
{
	const struct json_value *list;
	enum mh_err err = list_of(r, &r->root, "glTF", "animations", &list, &r->a->nanimations);
	if (err || !r->a->nanimations)
		return err;
	if (!(r->a->animations = calloc(r->a->nanimations, sizeof *r->a->animations)))
		return no_memory(r);
	for (uint32_t i = 0; i < r->a->nanimations && !err; i++)
		err = read_animation(r, list, i);
	return err;
}

/* ---- the scene, the asset, the container -------------------------------------- */

static enum mh_err read_scene(struct reading *r)
{
	const struct json_value *scenes;
	uint32_t nscenes;
	int32_t scene;
	enum mh_err err = list_of(r, &r->root, "glTF", "scenes", &scenes, &nscenes);
	if (err || (err = index_of(r, &r->root, "glTF", "scene", nscenes, false, &scene)))
		return err;
	if (scene < 0 && nscenes)
		scene = 0;
	r->a->scene = scene;
	if (scene < 0)
		return MH_OK;
	char path[32];
	snprintf(path, sizeof path, "scenes[%d]", scene);
	const struct json_value *nodes;
	if ((err = object_at(r, scenes, (uint32_t)scene, path)) ||
	    (err = list_of(r, &scenes->items[scene], path, "nodes", &nodes, &r->a->nscene_nodes)))
		return err;
	if (r->a->nscene_nodes &&
	    !(r->a->scene_nodes = malloc(r->a->nscene_nodes * sizeof *r->a->scene_nodes)))
		return no_memory(r);
	for (uint32_t k = 0; k < r->a->nscene_nodes; k++) {
		const struct json_value *v = &nodes->items[k];
		if (!integral(v, 0, (double)r->a->nnodes - 1) ||
		    r->a->nodes[(uint32_t)v->number].parent >= 0)
			return refuse(r, v, MH_ECORRUPT, "%s.nodes[%u]: not a root node's index", path,
				      k);
		r->a->scene_nodes[k] = (uint32_t)v->number;
	}
	return MH_OK;
}

/* The JSON read into the asset. */
static enum mh_err read_gltf(struct reading *r)
{
	enum mh_err err = json_value_parse(r->json, r->json_len, &r->root, r->d);
	if (err) {
		if (r->d && r->glb)
			r->d->offset += r->json_at;
		return err;
	}
	if (r->root.type != JV_OBJECT)
		return refuse(r, &r->root, MH_ECORRUPT, "glTF: the JSON is not an object");
	const struct json_value *asset = member(r, &r->root, "glTF", "asset", JV_OBJECT, &err);
	const struct json_value *version = asset ? member(r, asset, "asset", "version", JV_STRING,
							  &err)
						 : NULL;
	if (err)
		return err;
	if (!version || strncmp(version->string, "2.", 2))
		return refuse(r, version ? version : asset ? asset : &r->root, MH_ECORRUPT,
			      "asset.version: %s%.16s%s, only glTF 2.0 is read",
			      version ? "\"" : "", version ? version->string : "missing",
			      version ? "\"" : "");
	const struct json_value *required;
	uint32_t nrequired;
	if ((err = list_of(r, &r->root, "glTF", "extensionsRequired", &required, &nrequired)))
		return err;
	if (nrequired)
		return refuse(r, &required->items[0], MH_ECORRUPT,
			      "extensionsRequired[0]: %s%.40s%s is not read: export without it",
			      required->items[0].type == JV_STRING ? "\"" : "",
			      required->items[0].type == JV_STRING ? required->items[0].string
								   : "a non-string",
			      required->items[0].type == JV_STRING ? "\"" : "");
	uint32_t n;
	if ((err = list_of(r, &r->root, "glTF", "bufferViews", &r->views, &n)) ||
	    (err = list_of(r, &r->root, "glTF", "accessors", &r->accessors, &n)))
		return err;
	r->a->naccessors = r->accessors ? r->accessors->n : 0;
	if (r->a->naccessors &&
	    !(r->a->decoded = calloc(r->a->naccessors, sizeof *r->a->decoded)))
		return no_memory(r);
	const struct json_value *meshes = json_value_member(&r->root, "meshes");
	const struct json_value *skins = json_value_member(&r->root, "skins");
	uint32_t nmeshes = meshes && meshes->type == JV_ARRAY ? meshes->n : 0;
	uint32_t nskins = skins && skins->type == JV_ARRAY ? skins->n : 0;
	if ((err = read_buffers(r)) || (err = read_nodes(r, nmeshes, nskins)) ||
	    (err = read_skins(r)) || (err = read_materials(r)) || (err = read_meshes(r)) || (err = read_animations(r)))
		return err;
	return read_scene(r);
}

/* The GLB's chunks: the JSON, and the BIN when there is one. */
static enum mh_err open_glb(struct reading *r, const uint8_t *buf, size_t len)
{
	if (len < GLB_HEADER)
		return mh_fail(r->d, MH_ETRUNC, len, "GLB: a 12-byte header, the file has %zu bytes",
			       len);
	uint32_t version = le32(buf + 4), total = le32(buf + 8);
	if (version != 2)
		return mh_fail(r->d, MH_ECORRUPT, 4, "GLB: version %u, only 2 is read", version);
	if (total > len)
		return mh_fail(r->d, MH_ETRUNC, 8, "GLB: the header says %u bytes, the file has %zu",
			       total, len);
	if (total < len)
		return mh_fail(r->d, MH_ECORRUPT, 8,
			       "GLB: the header says %u bytes, the file has %zu: bytes after it",
			       total, len);
	size_t at = GLB_HEADER;
	for (unsigned chunk = 0; at < total; chunk++) {
		if (total - at < GLB_CHUNK_HEADER)
			return mh_fail(r->d, MH_ETRUNC, at,
				       "GLB: chunk %u's 8-byte header is cut short", chunk);
		uint32_t clen = le32(buf + at), type = le32(buf + at + 4);
		if (clen > total - at - GLB_CHUNK_HEADER)
			return mh_fail(r->d, MH_ETRUNC, at,
				       "GLB: chunk %u says %u bytes, %zu are left", chunk, clen,
				       total - at - GLB_CHUNK_HEADER);
		const uint8_t *data = buf + at + GLB_CHUNK_HEADER;
		if (chunk == 0 && type != GLTF_CHUNK_JSON)
			return mh_fail(r->d, MH_ECORRUPT, at + 4,
				       "GLB: the first chunk is of type 0x%08x, not JSON", type);
		if (chunk == 0) {
			r->json = (const char *)data;
			r->json_len = clen;
			r->json_at = at + GLB_CHUNK_HEADER;
		} else if (chunk == 1 && type == GLTF_CHUNK_BIN) {
			r->bin = data;
			r->bin_len = clen;
			r->has_bin = true;
		} else if (type == GLTF_CHUNK_JSON || type == GLTF_CHUNK_BIN) {
			return mh_fail(r->d, MH_ECORRUPT, at + 4,
				       "GLB: chunk %u is a second %s chunk", chunk,
				       type == GLTF_CHUNK_JSON ? "JSON" : "BIN");
		}
		at += GLB_CHUNK_HEADER + (size_t)clen;
	}
	if (!r->json)
		return mh_fail(r->d, MH_ETRUNC, GLB_HEADER, "GLB: no JSON chunk");
	return MH_OK;
}

enum mh_err gltf_read(const uint8_t *buf, size_t len, struct gltf_asset *a, struct mh_diag *d)
{
	memset(a, 0, sizeof *a);
	a->scene = -1;
	struct reading r = {.a = a, .d = d};
	enum mh_err err;
	if (len >= 4 && le32(buf) == GLTF_MAGIC) {
		r.glb = true;
		err = open_glb(&r, buf, len);
	} else {
		size_t i = 0;
		while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
			i++;
		if (i == len || buf[i] != '{')
			err = mh_fail(d, MH_EUNKNOWN, 0,
				      "neither a GLB (magic \"glTF\") nor glTF JSON (an object)");
		else
			err = MH_OK;
		r.json = (const char *)buf;
		r.json_len = len;
	}
	if (!err)
		err = read_gltf(&r);
	json_value_free(&r.root);
	for (uint32_t i = 0; i < r.nbuffers; i++)
		free(r.buffers[i].owned);
	free(r.buffers);
	if (err)
		gltf_asset_free(a);
	return err;
}

static void free_extras(struct gltf_extra *x, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(x[i].key);
	free(x);
}

void gltf_asset_free(struct gltf_asset *a)
{
	for (uint32_t i = 0; a->nodes && i < a->nnodes; i++) {
		free(a->nodes[i].name);
		free(a->nodes[i].children);
	}
	for (uint32_t i = 0; a->skins && i < a->nskins; i++) {
		free(a->skins[i].name);
		free(a->skins[i].joints);
	}
	for (uint32_t i = 0; a->animations && i < a->nanimations; i++) {
		free(a->animations[i].name);
		free(a->animations[i].samplers);
		free(a->animations[i].channels);
	}
	for (uint32_t i = 0; a->meshes && i < a->nmeshes; i++) {
		struct gltf_mesh *m = &a->meshes[i];
		for (uint32_t k = 0; m->primitives && k < m->nprimitives; k++) {
			free(m->primitives[k].indices);
			free_extras(m->primitives[k].extras, m->primitives[k].nextras);
		}
		free(m->primitives);
		free(m->name);
		free_extras(m->extras, m->nextras);
	}
	for (uint32_t i = 0; a->material_names && i < a->nmaterials; i++)
		free(a->material_names[i]);
	free(a->material_names);
	for (uint32_t i = 0; a->decoded && i < a->naccessors; i++)
		free(a->decoded[i]);
	free(a->nodes);
	free(a->skins);
	free(a->animations);
	free(a->meshes);
	free(a->scene_nodes);
	free(a->decoded);
	memset(a, 0, sizeof *a);
	a->scene = -1;
}

int32_t gltf_node_named(const struct gltf_asset *a, const char *name)
{
	for (uint32_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i].name && !strcmp(a->nodes[i].name, name))
			return (int32_t)i;
	return -1;
}

bool gltf_extra_int(const struct gltf_extra *extras, uint32_t n, const char *key,
		    int64_t *value)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(extras[i].key, key)) {
			*value = extras[i].value;
			return true;
		}
	return false;
}
