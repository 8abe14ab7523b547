/* SPDX-License-Identifier: MIT */
/* A PMO model's text views (pmo_text.h; grammars: man/mhfu-clip.5,
 * MESH.TXT, VERTICES.TSV, MATERIALS.TSV).  Shared helpers and
 * materials.tsv here; mesh.txt in pmo_mesh_text.c, vertices.tsv in
 * pmo_vertices_text.c. */
#include "pmo_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hex_text.h"
#include "pmo_text_int.h"

/* ---- shared -------------------------------------------------------------- */

void pmo_text_uint(struct strbuf *sb, unsigned long long v)
{
	char buf[24];
	size_t n = text_int(buf, (long long)v);
	strbuf_append(sb, buf, n);
}

bool pmo_text_same(float a, float b)
{
	return !memcmp(&a, &b, sizeof a);
}

enum mh_err pmo_text_float(const struct lex_word *w, float have, float *out, struct mh_diag *d)
{
	enum mh_err err = lex_f32(w, out, d);
	if (err)
		return err;
	/* an unchanged value keeps its bits, finite or not */
	if (!pmo_text_same(*out, have) && !isfinite(*out))
		return mh_fail_text(d, MH_ERANGE, w->line, w->col,
				    "\"%s\" is not finite: allowed any finite number", w->text);
	return MH_OK;
}

/* ---- materials.tsv ---------------------------------------------------------- */

/* u32 RGBA (red in the low byte) as rrggbbaa: the bytes as stored. */
static void put_rgba(struct strbuf *sb, uint32_t c)
{
	static const char hex[] = "0123456789abcdef";
	char out[8];
	for (int k = 0; k < 4; k++) {
		uint8_t b = (uint8_t)(c >> 8 * k);
		out[2 * k] = hex[b >> 4];
		out[2 * k + 1] = hex[b & 15];
	}
	strbuf_append(sb, out, sizeof out);
}

char *pmo_materials_print(const struct pmo *p, size_t *len)
{
	struct strbuf sb = {0};
	strbuf_printf(&sb, "# material\tcolor\tambient\ttexture\n");
	for (uint32_t i = 0; i < p->h.material_count; i++) {
		const struct pmo_material *m = &p->materials[i];
		pmo_text_uint(&sb, i);
		strbuf_char(&sb, '\t');
		put_rgba(&sb, m->color);
		strbuf_char(&sb, '\t');
		put_rgba(&sb, m->ambient);
		strbuf_char(&sb, '\t');
		if (m->texture == 0xFF)
			strbuf_char(&sb, '-');
		else
			pmo_text_uint(&sb, m->texture);
		strbuf_char(&sb, '\n');
	}
	return strbuf_take(&sb, len);
}

static enum mh_err parse_rgba(const struct lex_word *w, uint32_t *c, struct mh_diag *d)
{
	if (strlen(w->text) != 8)
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected 8 hex digits rrggbbaa, got \"%s\"", w->text);
	uint32_t v = 0;
	for (int k = 0; k < 8; k++) {
		int x = hex_text_digit(w->text[k]);
		if (x < 0)
			return mh_fail_text(d, MH_ESYNTAX, w->line, w->col + (unsigned)k,
					    "\"%c\" is not a hex digit (rrggbbaa)", w->text[k]);
		v |= (uint32_t)x << (k / 2 * 8 + (k % 2 ? 0 : 4));
	}
	*c = v;
	return MH_OK;
}

/* The texture column: "-" (0xFF) or an image index; a changed one must
 * name one of the bank's images. */
static enum mh_err parse_texture(const struct lex_word *w, uint8_t have, unsigned images,
				 uint8_t *t, struct mh_diag *d)
{
	if (!strcmp(w->text, "-")) {
		*t = 0xFF;
		return MH_OK;
	}
	int64_t v;
	enum mh_err err = lex_int(w, 0, 254, &v, d);
	if (err)
		return err;
	if (v != have && v >= (int64_t)images) {
		if (!images)
			return mh_fail_text(d, MH_ERANGE, w->line, w->col,
					    "texture %s: the bank has no images, allowed -", w->text);
		return mh_fail_text(d, MH_ERANGE, w->line, w->col,
				    "texture %s is past the bank's images, allowed 0-%u or -",
				    w->text, images - 1);
	}
	*t = (uint8_t)v;
	return MH_OK;
}

static enum mh_err parse_material_row(struct lex *lx, uint32_t i, const struct pmo_material *have,
				      unsigned images, struct pmo_material *m, struct mh_diag *d)
{
	struct lex_word w;
	int64_t n;
	enum mh_err err;
	if ((err = lex_expect(lx, &w, "the material number", d)) ||
	    (err = lex_int(&w, 0, UINT32_MAX, &n, d)))
		return err;
	if (n != i)
		return mh_fail_text(d, MH_ESYNTAX, w.line, w.col,
				    "expected material %u here (rows go in order, one per material)", i);
	*m = *have;
	if ((err = lex_expect(lx, &w, "the colour (rrggbbaa)", d)) ||
	    (err = parse_rgba(&w, &m->color, d)) ||
	    (err = lex_expect(lx, &w, "the ambient (rrggbbaa)", d)) ||
	    (err = parse_rgba(&w, &m->ambient, d)) ||
	    (err = lex_expect(lx, &w, "the texture (an image index or -)", d)) ||
	    (err = parse_texture(&w, have->texture, images, &m->texture, d)))
		return err;
	return lex_end_of_line(lx, d);
}

enum mh_err pmo_materials_apply(struct pmo *p, const char *text, size_t len, unsigned images,
				struct mh_diag *d)
{
	uint32_t n = p->h.material_count;
	struct pmo_material *m = malloc((n ? n : 1) * sizeof *m);
	if (!m)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	struct lex lx;
	lex_init(&lx, text, len);
	enum mh_err err = MH_OK;
	for (uint32_t i = 0; i < n && !err; i++) {
		if (!lex_next_line(&lx, &err, d)) {
			if (!err)
				err = mh_fail_text(d, MH_ESYNTAX, lx.line, lx.col,
						   "missing rows: the model has %u materials, "
						   "the text ends before material %u", n, i);
			break;
		}
		err = parse_material_row(&lx, i, &p->materials[i], images, &m[i], d);
	}
	if (!err && lex_next_line(&lx, &err, d))
		err = mh_fail_text(d, MH_ESYNTAX, lx.line, lx.col,
				   "extra row: the model has %u materials", n);
	if (!err && n)
		memcpy(p->materials, m, n * sizeof *m);
	free(m);
	return err;
}
