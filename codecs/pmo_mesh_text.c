/* SPDX-License-Identifier: MIT */
/* mesh.txt (pmo_text.h; mhfu-clip(5) MESH.TXT): the model's structure,
 * one keyword line at a time in a fixed order.  The structure lines
 * (version, mesh and group heads, vertex type, draws, vertex counts) are
 * read-only: the parser prints each one as the model has it and wants
 * the same words back.  The others hold the editable fields; they are
 * parsed into a staged copy, swapped into the model once all of the text
 * is accepted, and the model decoded again from its encoded bytes. */
#include "pmo_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmo_text_int.h"

static const char *const NOT_YET = "growing or re-laying geometry is not supported yet";

/* ---- the read-only lines --------------------------------------------------- */

static const char *format_name(unsigned fmt, bool is_signed)
{
	static const char *const u[4] = {"none", "u8", "u16", "f32"};
	static const char *const s[4] = {"none", "s8", "s16", "f32"};
	return (is_signed ? s : u)[fmt & 3];
}

static void vtype_words(struct strbuf *sb, const struct pmo_vtype *vt)
{
	static const char *const colors[8] = {"none", "format1", "format2", "format3",
					      "565", "5551", "4444", "8888"};
	static const char *const index[4] = {"none", "u8", "u16", "u32"};
	if (vt->weight)
		strbuf_printf(sb, " weights %u %s,", vt->weights, format_name(vt->weight, false));
	if (vt->uv)
		strbuf_printf(sb, " uv %s,", format_name(vt->uv, false));
	if (vt->color)
		strbuf_printf(sb, " color %s,", colors[vt->color & 7]);
	if (vt->normal)
		strbuf_printf(sb, " normal %s,", format_name(vt->normal, true));
	strbuf_printf(sb, " position %s", format_name(vt->pos, true));
	if (vt->index)
		strbuf_printf(sb, ", index %s", index[vt->index & 3]);
	if (vt->morphs > 1)
		strbuf_printf(sb, ", morphs %u", vt->morphs);
	if (vt->through)
		strbuf_printf(sb, ", through");
}

static void draw_words(struct strbuf *sb, const struct pmo_draw *dr)
{
	static const char *const prims[8] = {"points", "lines", "line_strip", "triangles",
					     "strip", "fan", "rectangles", "prim7"};
	strbuf_printf(sb, "draw %s %u%s%s", prims[dr->prim & 7], dr->count,
		      dr->indexed ? " indexed" : "", dr->fface ? " fface" : "");
}

/* ---- the editable lines ----------------------------------------------------- */

static void put_floats(struct strbuf *sb, const char *key, const float *v, unsigned n)
{
	strbuf_printf(sb, "%s", key);
	for (unsigned k = 0; k < n; k++) {
		strbuf_char(sb, ' ');
		strbuf_f32(sb, v[k]);
	}
	strbuf_char(sb, '\n');
}

/* The lighting word's bits by name; others as one hex word. */
static const struct {
	const char *name;
	uint32_t bit;
} LIGHT[] = {{"light", 1u}, {"fog", 2u}, {"alpha", 4u}, {"enable", 1u << 31}};
#define NLIGHT (sizeof LIGHT / sizeof LIGHT[0])

static void put_lighting(struct strbuf *sb, uint32_t w)
{
	strbuf_printf(sb, "lighting");
	if (!w)
		strbuf_printf(sb, " none");
	uint32_t rest = w;
	for (size_t i = 0; i < NLIGHT; i++)
		if (w & LIGHT[i].bit) {
			strbuf_printf(sb, " %s", LIGHT[i].name);
			rest &= ~LIGHT[i].bit;
		}
	if (rest)
		strbuf_printf(sb, " 0x%08x", (unsigned)rest);
	strbuf_char(sb, '\n');
}

static void put_palette(struct strbuf *sb, const struct pmo *p, const struct pmo_group *grp)
{
	strbuf_printf(sb, "palette");
	for (uint32_t i = 0; i < grp->palette_count; i++) {
		const struct pmo_bone *b = &p->palette[grp->palette_first + i];
		strbuf_printf(sb, " %u:%u", b->slot, b->bone);
	}
	strbuf_char(sb, '\n');
}

/* ---- printing ------------------------------------------------------------------ */

/* Line builders for the read-only lines, shared with the parser. */
static void version_line(struct strbuf *sb, const struct pmo *p)
{
	strbuf_printf(sb, "version %s", p->h.version == PMO_P3RD ? "102" : "1.0");
}

static void mesh_line(struct strbuf *sb, const struct pmo *p, uint32_t i)
{
	strbuf_printf(sb, "mesh %u groups %u remap %u", i, p->meshes[i].group_count,
		      p->meshes[i].remap_count);
}

static void group_line(struct strbuf *sb, uint32_t g)
{
	strbuf_printf(sb, "group %u", g);
}

static void vtype_line(struct strbuf *sb, const struct pmo_group *grp)
{
	strbuf_printf(sb, "vtype");
	vtype_words(sb, &grp->vtype);
}

static void vertices_line(struct strbuf *sb, const struct pmo_group *grp)
{
	strbuf_printf(sb, "vertices %u", grp->vertex_count);
}

static void print_group(struct strbuf *sb, const struct pmo *p, uint32_t g)
{
	const struct pmo_group *grp = &p->groups[g];
	group_line(sb, g);
	strbuf_printf(sb, "\nmaterial %u", grp->material);
	int m = pmo_group_material(p, g);
	if (m >= 0)
		strbuf_printf(sb, "\t# materials.tsv row %d\n", m);
	else
		strbuf_printf(sb, "\t# past the materials\n");
	put_palette(sb, p, grp);
	vtype_line(sb, grp);
	strbuf_char(sb, '\n');
	for (uint32_t i = 0; i < grp->draw_count; i++) {
		draw_words(sb, &grp->draws[i]);
		strbuf_char(sb, '\n');
	}
	vertices_line(sb, grp);
	strbuf_char(sb, '\n');
}

static void print_mesh(struct strbuf *sb, const struct pmo *p, uint32_t i)
{
	const struct pmo_mesh *m = &p->meshes[i];
	mesh_line(sb, p, i);
	strbuf_char(sb, '\n');
	if (p->h.version == PMO_P3RD)
		put_floats(sb, "scale", m->scale, 4);
	put_floats(sb, "uv_scale", m->uv_scale, 2);
	if (p->h.version == PMO_P3RD)
		put_floats(sb, "uv_offset", m->uv_offset, 2);
	put_lighting(sb, m->lighting);
	strbuf_printf(sb, "blend 0x%08x\n", (unsigned)m->blend);
	for (uint32_t g = m->group_first; g < (uint32_t)m->group_first + m->group_count; g++)
		print_group(sb, p, g);
}

char *pmo_mesh_print(const struct pmo *p, size_t *len)
{
	struct strbuf sb = {0};
	strbuf_printf(&sb, "# mesh.txt: the PMO's structure (mhfu-clip(5) MESH.TXT)\n");
	version_line(&sb, p);
	strbuf_char(&sb, '\n');
	put_floats(&sb, "scale", p->h.scale, 3);
	put_floats(&sb, "cull_radius", &p->h.cull_radius, 1);
	for (uint32_t i = 0; i < p->h.mesh_count; i++)
		print_mesh(&sb, p, i);
	return strbuf_take(&sb, len);
}

/* ---- parsing ---------------------------------------------------------------------- */

/* The fields mesh.txt edits, staged: copies of the model's, swapped in
 * once the whole text is accepted. */
struct staged {
	struct pmo_header h;
	struct pmo_mesh *meshes;
	uint8_t *materials;        /* per group */
	struct pmo_bone *palette;
};

struct parser {
	struct lex lx;
	const struct pmo *p;
	unsigned bones;
	struct staged *s;
	struct mh_diag *d;
};

/* Moves to the next line; its end is refused as the structure changing. */
static enum mh_err next_line(struct parser *ps, const char *what)
{
	enum mh_err err;
	if (lex_next_line(&ps->lx, &err, ps->d))
		return MH_OK;
	return err ? err : mh_fail_text(ps->d, MH_ERANGE, ps->lx.line, ps->lx.col,
					"the text ends where %s was expected: %s", what, NOT_YET);
}

/* The line's words must be the read-only line the model prints. */
static enum mh_err same_line(struct parser *ps, const struct strbuf *want)
{
	if (want->failed)
		return mh_fail(ps->d, MH_ENOMEM, 0, "out of memory");
	struct lex wl;
	lex_init(&wl, want->buf, want->len);
	struct lex_word a, b;
	enum mh_err err = MH_OK, e2;
	for (;;) {
		bool got = lex_word(&ps->lx, &a, &err, ps->d);
		if (err)
			return err;
		bool exp = lex_word(&wl, &b, &e2, NULL);
		if (!got && !exp)
			return MH_OK;
		if (got && exp && !strcmp(a.text, b.text))
			continue;
		unsigned line = got ? a.line : ps->lx.line, col = got ? a.col : ps->lx.col;
		return mh_fail_text(ps->d, MH_ERANGE, line, col, "expected \"%s\" (the line reads "
				    "\"%s\"): %s", exp ? b.text : "the end of the line", want->buf,
				    NOT_YET);
	}
}

/* The next line must be the read-only line in *want, which this frees. */
static enum mh_err read_only(struct parser *ps, const char *what, struct strbuf *want)
{
	enum mh_err err = next_line(ps, what);
	if (!err)
		err = same_line(ps, want);
	strbuf_free(want);
	return err;
}

/* The first word of an editable line must be `key`. */
static enum mh_err keyword(struct parser *ps, const char *key)
{
	enum mh_err err = next_line(ps, key);
	struct lex_word w;
	if (err || (err = lex_expect(&ps->lx, &w, key, ps->d)))
		return err;
	if (strcmp(w.text, key))
		return mh_fail_text(ps->d, MH_ERANGE, w.line, w.col,
				    "expected the \"%s\" line here, got \"%s\": lines keep the "
				    "printed order; %s", key, w.text, NOT_YET);
	return MH_OK;
}

static enum mh_err floats_line(struct parser *ps, const char *key, const float *have,
			       float *out, unsigned n)
{
	enum mh_err err = keyword(ps, key);
	struct lex_word w;
	for (unsigned k = 0; !err && k < n; k++)
		if (!(err = lex_expect(&ps->lx, &w, "a number", ps->d)))
			err = pmo_text_float(&w, have[k], &out[k], ps->d);
	return err ? err : lex_end_of_line(&ps->lx, ps->d);
}

static enum mh_err light_word(const struct lex_word *w, uint32_t *v, struct mh_diag *d)
{
	for (size_t i = 0; i < NLIGHT; i++)
		if (!strcmp(w->text, LIGHT[i].name)) {
			*v |= LIGHT[i].bit;
			return MH_OK;
		}
	if (!strcmp(w->text, "none"))
		return MH_OK;
	int64_t x;
	if (strncmp(w->text, "0x", 2) || lex_int(w, 0, UINT32_MAX, &x, NULL))
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected light, fog, alpha, enable, none or 0x bits, got \"%s\"",
				    w->text);
	*v |= (uint32_t)x;
	return MH_OK;
}

static enum mh_err lighting_line(struct parser *ps, uint32_t *out)
{
	enum mh_err err = keyword(ps, "lighting");
	struct lex_word w;
	*out = 0;
	while (!err && lex_word(&ps->lx, &w, &err, ps->d))
		err = light_word(&w, out, ps->d);
	return err;
}

static enum mh_err blend_line(struct parser *ps, uint32_t *out)
{
	struct lex_word w;
	int64_t v;
	enum mh_err err = keyword(ps, "blend");
	if (err || (err = lex_expect(&ps->lx, &w, "the blend word", ps->d)) ||
	    (err = lex_int(&w, 0, UINT32_MAX, &v, ps->d)))
		return err;
	*out = (uint32_t)v;
	return lex_end_of_line(&ps->lx, ps->d);
}

static enum mh_err material_line(struct parser *ps, uint32_t g)
{
	const struct pmo_group *grp = &ps->p->groups[g];
	unsigned run = ps->p->meshes[grp->mesh].remap_count;
	struct lex_word w;
	int64_t v;
	enum mh_err err = keyword(ps, "material");
	if (err || (err = lex_expect(&ps->lx, &w, "the material index", ps->d)) ||
	    (err = lex_int(&w, 0, 255, &v, ps->d)))
		return err;
	if (v != grp->material && v >= run)
		return run ? mh_fail_text(ps->d, MH_ERANGE, w.line, w.col, "material %s is past "
					  "mesh %u's remap run, allowed 0-%u", w.text, grp->mesh,
					  run - 1)
			   : mh_fail_text(ps->d, MH_ERANGE, w.line, w.col, "material %s: mesh %u "
					  "has no remap entries to point at", w.text, grp->mesh);
	ps->s->materials[g] = (uint8_t)v;
	return lex_end_of_line(&ps->lx, ps->d);
}

/* One slot:bone pair: the slot as printed, the bone within the skeleton. */
static enum mh_err bone_pair(struct parser *ps, const struct lex_word *w, struct pmo_bone *b)
{
	char want[16];
	int n = snprintf(want, sizeof want, "%u:", b->slot);
	if (strncmp(w->text, want, (size_t)n))
		return mh_fail_text(ps->d, MH_ERANGE, w->line, w->col, "expected slot %u's pair "
				    "\"%s<bone>\", got \"%s\": the slots stay; %s", b->slot, want,
				    w->text, NOT_YET);
	struct lex_word x = {.line = w->line, .col = w->col + (unsigned)n};
	strcpy(x.text, w->text + n);
	unsigned max = ps->bones ? ps->bones - 1 : 255;
	int64_t v;
	enum mh_err err = lex_int(&x, 0, 255, &v, ps->d);
	if (err)
		return err;
	if (v != b->bone && v > max)
		return mh_fail_text(ps->d, MH_ERANGE, x.line, x.col, "bone %s is past the "
				    "skeleton's %u bones, allowed 0-%u", x.text, ps->bones, max);
	b->bone = (uint8_t)v;
	return MH_OK;
}

static enum mh_err palette_line(struct parser *ps, uint32_t g)
{
	const struct pmo_group *grp = &ps->p->groups[g];
	enum mh_err err = keyword(ps, "palette");
	struct lex_word w;
	for (uint32_t i = 0; !err && i < grp->palette_count; i++) {
		if (!lex_word(&ps->lx, &w, &err, ps->d))
			return err ? err : mh_fail_text(ps->d, MH_ERANGE, ps->lx.line, ps->lx.col,
				"group %u's palette has %u pairs, this line %u: %s", g,
				grp->palette_count, i, NOT_YET);
		err = bone_pair(ps, &w, &ps->s->palette[grp->palette_first + i]);
	}
	if (!err && lex_word(&ps->lx, &w, &err, ps->d))
		return mh_fail_text(ps->d, MH_ERANGE, w.line, w.col, "group %u's palette has %u "
				    "pairs, this line more: %s", g, grp->palette_count, NOT_YET);
	return err;
}

static enum mh_err parse_group(struct parser *ps, uint32_t g)
{
	const struct pmo_group *grp = &ps->p->groups[g];
	struct strbuf sb = {0};
	group_line(&sb, g);
	enum mh_err err = read_only(ps, "a group line", &sb);
	if (err || (err = material_line(ps, g)) || (err = palette_line(ps, g)))
		return err;
	vtype_line(&sb, grp);
	if ((err = read_only(ps, "the vtype line", &sb)))
		return err;
	for (uint32_t i = 0; i < grp->draw_count; i++) {
		draw_words(&sb, &grp->draws[i]);
		if ((err = read_only(ps, "a draw line", &sb)))
			return err;
	}
	vertices_line(&sb, grp);
	return read_only(ps, "the vertices line", &sb);
}

static enum mh_err parse_mesh(struct parser *ps, uint32_t i)
{
	const struct pmo_mesh *m = &ps->p->meshes[i];
	struct pmo_mesh *out = &ps->s->meshes[i];
	bool p3rd = ps->p->h.version == PMO_P3RD;
	struct strbuf sb = {0};
	mesh_line(&sb, ps->p, i);
	enum mh_err err = read_only(ps, "a mesh line", &sb);
	if (err || (p3rd && (err = floats_line(ps, "scale", m->scale, out->scale, 4))) ||
	    (err = floats_line(ps, "uv_scale", m->uv_scale, out->uv_scale, 2)) ||
	    (p3rd && (err = floats_line(ps, "uv_offset", m->uv_offset, out->uv_offset, 2))) ||
	    (err = lighting_line(ps, &out->lighting)) || (err = blend_line(ps, &out->blend)))
		return err;
	for (uint32_t g = m->group_first; g < (uint32_t)m->group_first + m->group_count; g++)
		if ((err = parse_group(ps, g)))
			return err;
	return MH_OK;
}

static enum mh_err parse_all(struct parser *ps)
{
	const struct pmo *p = ps->p;
	struct strbuf sb = {0};
	version_line(&sb, p);
	enum mh_err err = read_only(ps, "the version line", &sb);
	if (err || (err = floats_line(ps, "scale", p->h.scale, ps->s->h.scale, 3)) ||
	    (err = floats_line(ps, "cull_radius", &p->h.cull_radius, &ps->s->h.cull_radius, 1)))
		return err;
	for (uint32_t i = 0; i < p->h.mesh_count; i++)
		if ((err = parse_mesh(ps, i)))
			return err;
	if (lex_next_line(&ps->lx, &err, ps->d))
		return mh_fail_text(ps->d, MH_ERANGE, ps->lx.line, ps->lx.col,
				    "a line past the model's last group: %s", NOT_YET);
	return err;
}

/* ---- applying ------------------------------------------------------------------------ */

static void staged_free(struct staged *s)
{
	free(s->meshes);
	free(s->materials);
	free(s->palette);
}

static enum mh_err staged_init(const struct pmo *p, struct staged *s, struct mh_diag *d)
{
	size_t nm = p->h.mesh_count, ng = p->group_count, nb = p->palette_count;
	s->h = p->h;
	s->meshes = malloc((nm ? nm : 1) * sizeof *s->meshes);
	s->materials = malloc(ng ? ng : 1);
	s->palette = malloc((nb ? nb : 1) * sizeof *s->palette);
	if (!s->meshes || !s->materials || !s->palette)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	memcpy(s->meshes, p->meshes, nm * sizeof *s->meshes);
	for (size_t g = 0; g < ng; g++)
		s->materials[g] = p->groups[g].material;
	memcpy(s->palette, p->palette, nb * sizeof *s->palette);
	return MH_OK;
}

static bool staged_differs(const struct pmo *p, const struct staged *s)
{
	if (memcmp(s->h.scale, p->h.scale, sizeof s->h.scale) ||
	    !pmo_text_same(s->h.cull_radius, p->h.cull_radius) ||
	    memcmp(s->meshes, p->meshes, p->h.mesh_count * sizeof *s->meshes) ||
	    memcmp(s->palette, p->palette, p->palette_count * sizeof *s->palette))
		return true;
	for (uint32_t g = 0; g < p->group_count; g++)
		if (s->materials[g] != p->groups[g].material)
			return true;
	return false;
}

/* Exchanges the staged fields with the model's: applying, or undoing. */
static void staged_swap(struct pmo *p, struct staged *s)
{
	struct pmo_header h = p->h;
	p->h = s->h;
	s->h = h;
	struct pmo_mesh *m = p->meshes;
	p->meshes = s->meshes;
	s->meshes = m;
	struct pmo_bone *b = p->palette;
	p->palette = s->palette;
	s->palette = b;
	for (uint32_t g = 0; g < p->group_count; g++) {
		uint8_t x = p->groups[g].material;
		p->groups[g].material = s->materials[g];
		s->materials[g] = x;
	}
}

/* MHFU's meshes hold the header's scale (pmo.h): keep them so. */
static void mhfu_mesh_scale(struct pmo *p)
{
	if (p->h.version == PMO_P3RD)
		return;
	for (uint32_t i = 0; i < p->h.mesh_count; i++)
		memcpy(p->meshes[i].scale, p->h.scale, sizeof p->h.scale);
}

/* The model with the staged fields: encoded, and decoded again so that
 * positions, UVs and weights' bones follow them. */
static enum mh_err redecode(struct pmo *p, struct staged *s, struct mh_diag *d)
{
	staged_swap(p, s);
	mhfu_mesh_scale(p);
	uint8_t *out, *comp = NULL;
	size_t n, cn = 0;
	struct pmo q;
	enum mh_err err = pmo_encode(p, &out, &n, &comp, &cn, d);
	if (!err) {
		err = pmo_decode(out, n, comp, cn, &q, d);
		free(out);
		free(comp);
		if (err)
			pmo_free(&q);
	}
	if (err) {
		staged_swap(p, s);
		return err;
	}
	pmo_free(p);
	*p = q;
	return MH_OK;
}

enum mh_err pmo_mesh_apply(struct pmo *p, const char *text, size_t len, unsigned bones,
			   struct mh_diag *d)
{
	struct staged s = {0};
	struct parser ps = {.p = p, .bones = bones, .s = &s, .d = d};
	lex_init(&ps.lx, text, len);
	enum mh_err err = staged_init(p, &s, d);
	if (!err)
		err = parse_all(&ps);
	if (!err && staged_differs(p, &s))
		err = redecode(p, &s, d);
	staged_free(&s);
	return err;
}
