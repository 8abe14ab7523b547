/* SPDX-License-Identifier: MIT */
/* Fuzz target: PMO models (codecs/pmo, pmo_ge, pmo_vertex).
 *
 * An input opening with "pmo\0" is a PMO: decoded as it is and, when its
 * version is 102 and its geometry offset lies inside it, split there into
 * a PMO and its companion (mhfu-archive(5) "PMO").  Any other input
 * builds a model with tests/gen/mkpmo.c (its first 8 bytes the seed, the
 * next 4 the shape) and then overwrites up to 7 bytes of it as the rest
 * says (a u16 offset and a byte, each), so mutations start from deep
 * inside a valid model.  What decodes must encode back byte for byte, its
 * triangles must name its vertices, and every vertex of one group (the
 * input's last byte picks it) set to itself must change no byte; a moved
 * vertex is stored or refused with a diagnostic.  What does not decode
 * must fail with a diagnostic.  Its structure alone decodes or fails
 * alike, and a clone of it encodes to the same bytes.  Any violation
 * abort()s.  Built with clang
 * -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c.
 * fuzz.sh flags: -max_len=8192
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mkpmo.h"
#include "pmo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_bytes(const struct pmo *p, const uint8_t *buf, size_t len, const uint8_t *comp,
			size_t comp_len)
{
	uint8_t *out, *cout;
	size_t n, cn;
	if (pmo_encode(p, &out, &n, &cout, &cn, NULL) != MH_OK || n != len || memcmp(out, buf, len))
		abort();
	if (p->external ? (cn != comp_len || memcmp(cout, comp, comp_len)) : cout != NULL)
		abort();
	free(out);
	free(cout);
}

static void check_triangles(const struct pmo *p, uint32_t g)
{
	uint32_t(*t)[3];
	size_t n;
	if (pmo_group_triangles(p, g, &t, &n, NULL) != MH_OK)
		abort();
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			if (t[i][k] >= p->groups[g].vertex_count)
				abort();
	free(t);
}

/* Vertex 0 of group g moved: stored (and decoding near what was asked)
 * or refused with a message. */
static void check_move(struct pmo *p, uint32_t g)
{
	struct pmo_group *grp = &p->groups[g];
	if (!grp->vertex_count)
		return;
	struct pmo_vertex v = grp->vertices[0];
	v.pos[0] = v.pos[0] / 2 + 1;
	struct mh_diag d = {0};
	enum mh_err err = pmo_vertex_set(p, g, 0, &v, &d);
	if (err && (err != MH_ERANGE || d.code != err || !d.msg[0]))
		abort();
	if (err || grp->vtype.pos != 2 || !isfinite(v.pos[0]))
		return;
	/* s16: within half a step of the scale (and float rounding) */
	float scale = fabsf(p->meshes[grp->mesh].scale[0]);
	if (!(fabsf(grp->vertices[0].pos[0] - v.pos[0]) <= scale / 32768 + fabsf(v.pos[0]) / 1e5f))
		abort();
}

/* The structure alone decodes as the whole model does: the same
 * outcome, diagnosis and vertex counts, no vertices. */
static void check_structure(const uint8_t *buf, size_t len, const uint8_t *comp, size_t comp_len,
			    enum mh_err err, const struct mh_diag *d, const struct pmo *p)
{
	struct pmo s;
	struct mh_diag ds = {0};
	if (pmo_decode_structure(buf, len, comp, comp_len, &s, &ds) != err ||
	    (err && (ds.offset != d->offset || strcmp(ds.msg, d->msg))))
		abort();
	for (uint32_t g = 0; !err && g < s.group_count; g++)
		if (s.groups[g].vertex_count != p->groups[g].vertex_count || s.groups[g].vertices)
			abort();
	pmo_free(&s);
}

/* A clone encodes to the same bytes and owns its arrays (freed apart). */
static void check_clone(const struct pmo *p, const uint8_t *buf, size_t len, const uint8_t *comp,
			size_t comp_len)
{
	struct pmo c;
	if (pmo_clone(p, &c, NULL) != MH_OK)
		abort();
	check_bytes(&c, buf, len, comp, comp_len);
	pmo_free(&c);
}

static void check_model(const uint8_t *buf, size_t len, const uint8_t *comp, size_t comp_len,
			uint8_t pick, size_t limit)
{
	struct pmo p;
	struct mh_diag d = {0};
	enum mh_err err = pmo_decode(buf, len, comp, comp_len, &p, &d);
	check_structure(buf, len, comp, comp_len, err, &d, &p);
	if (err) {
		if (d.code != err || !d.msg[0] || d.offset > limit)
			abort();
		pmo_free(&p);
		return;
	}
	check_clone(&p, buf, len, comp, comp_len);
	check_bytes(&p, buf, len, comp, comp_len);
	if (p.group_count) {
		uint32_t g = pick % p.group_count;
		check_triangles(&p, g);
		for (uint32_t v = 0; v < p.groups[g].vertex_count; v++) {
			struct pmo_vertex same = p.groups[g].vertices[v];
			if (pmo_vertex_set(&p, g, v, &same, NULL) != MH_OK)
				abort();
		}
		check_bytes(&p, buf, len, comp, comp_len);
		check_move(&p, g);
	}
	pmo_free(&p);
}

/* The input as a PMO, and split into a PMO and its companion. */
static void as_pmo(const uint8_t *data, size_t size)
{
	check_model(data, size, NULL, 0, data[size - 1], size);
	if (size < PMO_HEADER || memcmp(data + 4, "102\0", 4))
		return;
	uint32_t geometry = (uint32_t)data[0x34] | (uint32_t)data[0x35] << 8 |
			    (uint32_t)data[0x36] << 16 | (uint32_t)data[0x37] << 24;
	if (geometry >= PMO_HEADER && geometry < size)
		check_model(data, geometry, data + geometry, size - geometry, data[size - 1], size);
}

/* A synthesized model, overwritten where the input says. */
static void as_synth(const uint8_t *data, size_t size)
{
	struct mkpmo_shape s;
	uint64_t seed = mkpmo_shape_of(data, size, &s);
	struct mkpmo m;
	mkpmo_build(seed, &s, &m);
	/* a few overwrites: more leave nothing that decodes */
	size_t end = 12 + 3 * (size_t)(size > 10 ? data[10] >> 4 & 7 : 0);
	for (size_t i = 12; i + 3 <= size && i < end; i += 3) {
		size_t at = (size_t)data[i] | (size_t)data[i + 1] << 8;
		if (m.companion && at & 0x8000)
			m.companion[(at & 0x7FFF) % m.companion_len] = data[i + 2];
		else
			m.pmo[at % m.len] = data[i + 2];
	}
	size_t limit = m.len > m.companion_len ? m.len : m.companion_len;
	check_model(m.pmo, m.len, m.companion, m.companion_len, size ? data[size - 1] : 0, limit);
	mkpmo_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, PMO_MAGIC, 4))
		as_pmo(data, size);
	else
		as_synth(data, size);
	return 0;
}
