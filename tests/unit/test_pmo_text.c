/* SPDX-License-Identifier: MIT */
/* Tests of the PMO text views (codecs/pmo_text.h; mhfu-clip(5) MESH.TXT,
 * VERTICES.TSV, MATERIALS.TSV) on models built by tests/gen/mkpmo.c.
 *
 * Each view printed and applied unchanged gives the model's bytes back;
 * an edit changes exactly the bytes of the fields edited; an awk-style
 * edit (its line rebuilt with single spaces) moves one vertex only; every
 * refusal names line:col and leaves the model as it was. */
#include <math.h>
#include <stdio.h>

#include "mkpmo.h"
#include "pmo.h"
#include "pmo_text.h"
#include "rng.h"
#include "testlib.h"

/* ---- helpers ---------------------------------------------------------------- */

struct model {
	struct mkpmo m;
	struct pmo p;
};

static void build(uint64_t seed, const struct mkpmo_shape *s, struct model *x)
{
	struct mh_diag d = {0};
	mkpmo_build(seed, s, &x->m);
	enum mh_err err = pmo_decode(x->m.pmo, x->m.len, x->m.companion, x->m.companion_len,
				     &x->p, &d);
	if (err)
		fail_msg("pmo_decode: %s: %s", mh_strerror(err), d.msg);
}

static void drop(struct model *x)
{
	pmo_free(&x->p);
	mkpmo_free(&x->m);
}

/* The model's bytes now: the PMO's, or (external) its companion's. */
struct bytes {
	uint8_t *pmo, *comp;
	size_t len, comp_len;
};

static void encode(const struct pmo *p, struct bytes *b)
{
	struct mh_diag d = {0};
	enum mh_err err = pmo_encode(p, &b->pmo, &b->len, &b->comp, &b->comp_len, &d);
	if (err)
		fail_msg("pmo_encode: %s: %s", mh_strerror(err), d.msg);
}

static void bytes_free(struct bytes *b)
{
	free(b->pmo);
	free(b->comp);
}

/* The model encodes to its original bytes. */
static void unchanged(const struct model *x)
{
	struct bytes b;
	encode(&x->p, &b);
	assert_int_equal(b.len, x->m.len);
	assert_memory_equal(b.pmo, x->m.pmo, b.len);
	assert_int_equal(b.comp_len, x->m.companion ? x->m.companion_len : 0);
	if (x->m.companion)
		assert_memory_equal(b.comp, x->m.companion, b.comp_len);
	bytes_free(&b);
}

enum view { MESH, VERTICES, MATERIALS };

static char *print(const struct pmo *p, enum view v, size_t *len)
{
	char *t = v == MESH ? pmo_mesh_print(p, len) : v == VERTICES ? pmo_vertices_print(p, len)
								     : pmo_materials_print(p, len);
	assert_non_null(t);
	assert_int_equal(strlen(t), *len);
	return t;
}

static enum mh_err apply(struct pmo *p, enum view v, const char *t, struct mh_diag *d)
{
	size_t n = strlen(t);
	return v == MESH ? pmo_mesh_apply(p, t, n, 0, d)
	       : v == VERTICES ? pmo_vertices_apply(p, t, n, d)
			       : pmo_materials_apply(p, t, n, 256, d);
}

static void apply_ok(struct pmo *p, enum view v, const char *t)
{
	struct mh_diag d = {0};
	enum mh_err err = apply(p, v, t, &d);
	if (err)
		fail_msg("apply: %s at %u:%u: %s", mh_strerror(err), d.line, d.col, d.msg);
}

/* Applying t is refused at line:col saying `words`, and the model keeps
 * its bytes. */
static void refused(struct model *x, enum view v, const char *t, enum mh_err code,
		    unsigned line, unsigned col, const char *words)
{
	struct mh_diag d = {0};
	enum mh_err err = apply(&x->p, v, t, &d);
	assert_text_diag(&d, err, code, line, col);
	assert_diag_says(&d, words);
	unchanged(x);
}

/* The start of line `line` (1-based) of t. */
static const char *line_at(const char *t, unsigned line)
{
	for (unsigned l = 1; l < line && t; l++)
		if ((t = strchr(t, '\n')))
			t++;
	assert_non_null(t);
	return t;
}

/* The first line of t starting with `prefix`, 1-based. */
static unsigned find_line(const char *t, const char *prefix)
{
	size_t n = strlen(prefix);
	for (unsigned l = 1; *t; l++) {
		if (!strncmp(t, prefix, n))
			return l;
		const char *nl = strchr(t, '\n');
		if (!nl)
			break;
		t = nl + 1;
	}
	fail_msg("no line starts with \"%s\"", prefix);
	return 0;
}

/* Word `word` (0-based) of line `line`: where it starts and its length. */
static const char *word_at(const char *t, unsigned line, unsigned word, size_t *n)
{
	const char *s = line_at(t, line);
	for (unsigned k = 0;; k++) {
		s += strspn(s, " \t");
		size_t len = strcspn(s, " \t\n");
		assert_true(len > 0);
		if (k == word) {
			*n = len;
			return s;
		}
		s += len;
	}
}

static unsigned word_col(const char *t, unsigned line, unsigned word)
{
	size_t n;
	return (unsigned)(word_at(t, line, word, &n) - line_at(t, line)) + 1;
}

/* t with [at, at + n) replaced by `with`, malloc'ed. */
static char *splice(const char *t, const char *at, size_t n, const char *with)
{
	size_t head = (size_t)(at - t), w = strlen(with), tail = strlen(at + n);
	char *o = malloc(head + w + tail + 1);
	assert_non_null(o);
	memcpy(o, t, head);
	memcpy(o + head, with, w);
	memcpy(o + head + w, at + n, tail + 1);
	return o;
}

static char *set_word(const char *t, unsigned line, unsigned word, const char *with)
{
	size_t n;
	const char *at = word_at(t, line, word, &n);
	return splice(t, at, n, with);
}

/* t without line `line` (with { at its end: the line and the rest). */
static char *cut_line(const char *t, unsigned line)
{
	const char *at = line_at(t, line), *nl = strchr(at, '\n');
	return splice(t, at, nl ? (size_t)(nl - at) + 1 : strlen(at), "");
}

/* t with each tab a mix of blanks: "  \t ". */
static char *mixed_blanks(const char *t)
{
	char *o = malloc(4 * strlen(t) + 1), *q = o;
	assert_non_null(o);
	for (; *t; t++)
		if (*t == '\t') {
			memcpy(q, "  \t ", 4);
			q += 4;
		} else {
			*q++ = *t;
		}
	*q = '\0';
	return o;
}

/* t with every run of tabs and spaces one space: awk's record rebuilt. */
static char *single_spaces(const char *t)
{
	char *o = malloc(strlen(t) + 1), *q = o;
	assert_non_null(o);
	for (; *t; t++) {
		bool blank = *t == ' ' || *t == '\t';
		if (!blank || q == o || (q[-1] != ' '))
			*q++ = blank ? ' ' : *t;
	}
	*q = '\0';
	return o;
}

/* The vertices.tsv line of group g's vertex v (after the header line). */
static unsigned vertex_line(const struct pmo *p, uint32_t g, uint32_t v)
{
	unsigned line = 2;
	for (uint32_t k = 0; k < g; k++)
		line += p->groups[k].vertex_count;
	return line + v;
}

/* The bytes that differ between the model's encoding and the original
 * must all lie in [lo, hi) of the PMO (comp: of the companion), and some
 * must. */
static void differs_only(const struct model *x, bool comp, size_t lo, size_t hi)
{
	struct bytes b;
	encode(&x->p, &b);
	const uint8_t *now = comp ? b.comp : b.pmo, *was = comp ? x->m.companion : x->m.pmo;
	size_t n = comp ? b.comp_len : b.len, changed = 0;
	for (size_t i = 0; i < n; i++)
		if (now[i] != was[i]) {
			if (i < lo || i >= hi)
				fail_msg("byte 0x%zx changed, outside [0x%zx, 0x%zx)", i, lo, hi);
			changed++;
		}
	assert_true(changed > 0);
	if (!comp && x->m.companion)
		assert_memory_equal(b.comp, x->m.companion, b.comp_len);
	if (comp)
		assert_memory_equal(b.pmo, x->m.pmo, b.len);
	bytes_free(&b);
}

/* ---- round trips ---------------------------------------------------------------- */

static void roundtrip_views(struct model *x)
{
	for (enum view v = MESH; v <= MATERIALS; v++) {
		size_t n, n2;
		char *t = print(&x->p, v, &n);
		apply_ok(&x->p, v, t);
		unchanged(x);
		char *t2 = print(&x->p, v, &n2);
		assert_string_equal(t, t2);
		/* the same, its blanks runs of single spaces */
		char *s = single_spaces(t);
		apply_ok(&x->p, v, s);
		unchanged(x);
		free(s);
		/* and with runs of tabs and spaces */
		s = mixed_blanks(t);
		apply_ok(&x->p, v, s);
		unchanged(x);
		free(s);
		free(t);
		free(t2);
	}
}

static void test_roundtrip(void **state)
{
	(void)state;
	struct rng r = {77};
	for (unsigned i = 0; i < 60; i++) {
		struct mkpmo_shape s = {.p3rd = i % 2, .meshes = rng_range(&r, 1, 3),
			.groups_per_mesh = rng_range(&r, 1, 5), .vertices = rng_range(&r, 3, 80),
			.skinned = rng_below(&r, 2), .remap = rng_below(&r, 2),
			.companion = i % 4 == 1, .tail = rng_range(&r, 0, 20)};
		struct model x;
		build(3000 + i, &s, &x);
		roundtrip_views(&x);
		drop(&x);
	}
}

static void test_monster(void **state)
{
	(void)state;
	for (int v = 0; v < 3; v++) {
		struct mkpmo_shape s;
		mkpmo_monster(v > 0, v == 2, &s);
		struct model x;
		build(75, &s, &x);
		assert_true(x.m.vertices > 4000);
		roundtrip_views(&x);
		drop(&x);
	}
}

/* ---- vertices.tsv --------------------------------------------------------------- */

/* A skinned model, and a group whose positions are s16 or f32 with a
 * vertex near the origin. */
static void skinned(struct model *x, bool p3rd, uint32_t *g)
{
	struct mkpmo_shape s = {.p3rd = p3rd, .meshes = 2, .groups_per_mesh = 3, .vertices = 30,
				.skinned = true, .remap = true};
	build(p3rd ? 41 : 40, &s, x);
	for (*g = 0; *g < x->p.group_count; (*g)++)
		if (x->p.groups[*g].vtype.pos >= 2 && x->p.groups[*g].vtype.weight)
			return;
	fail_msg("no skinned s16/f32 group");
}

/* awk '$1 == g && $2 == v { $3 += delta } 1': that row rebuilt with single
 * spaces, x printed as awk's %.6g. */
static char *awk_move_x(const struct pmo *p, const char *t, uint32_t g, uint32_t v,
			double delta)
{
	unsigned line = vertex_line(p, g, v);
	size_t n;
	const char *x = word_at(t, line, 2, &n);
	char num[64], with[64];
	memcpy(num, x, n);
	num[n] = '\0';
	snprintf(with, sizeof with, "%.6g", strtod(num, NULL) + delta);
	char *edited = set_word(t, line, 2, with);
	/* the record rebuilt: its line only */
	const char *at = line_at(edited, line), *nl = strchr(at, '\n');
	char *row = malloc((size_t)(nl - at) + 1);
	memcpy(row, at, (size_t)(nl - at));
	row[nl - at] = '\0';
	char *spaced = single_spaces(row);
	char *out = splice(edited, at, (size_t)(nl - at), spaced);
	free(row);
	free(spaced);
	free(edited);
	return out;
}

static void test_awk_edit(void **state)
{
	(void)state;
	for (int p3rd = 0; p3rd < 2; p3rd++) {
		struct model x;
		uint32_t g;
		skinned(&x, p3rd, &g);
		const struct pmo_group *grp = &x.p.groups[g];
		uint32_t v = grp->vertex_count / 2;
		float before[3];
		memcpy(before, grp->vertices[v].pos, sizeof before);
		size_t n;
		char *t = print(&x.p, VERTICES, &n);
		/* a fifth of the scale: within reach of any position */
		char *e = awk_move_x(&x.p, t, g, v, x.p.meshes[grp->mesh].scale[0] / 5);
		apply_ok(&x.p, VERTICES, e);
		assert_true(grp->vertices[v].pos[0] != before[0]);
		assert_memory_equal(grp->vertices[v].pos + 1, before + 1, 2 * sizeof(float));
		size_t at = grp->vertex_at + (size_t)v * grp->vtype.stride + grp->vtype.pos_at;
		unsigned comp = grp->vtype.pos == 2 ? 2 : 4;
		differs_only(&x, x.p.external, at, at + comp);
		free(e);
		free(t);
		drop(&x);
	}
}

static void test_vertex_edit_colour_weight(void **state)
{
	(void)state;
	struct model x;
	uint32_t g;
	skinned(&x, false, &g);
	const struct pmo_group *grp = &x.p.groups[g];
	size_t n;
	char *t = print(&x.p, VERTICES, &n);
	unsigned line = vertex_line(&x.p, g, 0);
	unsigned wcol = 5 + 3 * !!grp->vtype.normal + 2 * !!grp->vtype.uv +
			4 * (grp->vtype.color >= 4);
	char tok[32];
	snprintf(tok, sizeof tok, "%d:0.5", grp->slot_bone[0]);
	char *e = set_word(t, line, wcol, tok);
	apply_ok(&x.p, VERTICES, e);
	assert_true(fabsf(grp->vertices[0].weights[0] - 0.5f) < 0.01f);
	size_t at = grp->vertex_at + grp->vtype.weight_at;
	differs_only(&x, false, at, at + 4);
	free(e);
	free(t);
	drop(&x);
}

/* Applies e to a fresh model of `seed` and `shape`, with or without the
 * printed text: the outcome (code, line, column, message) and the
 * bytes, as one string to compare. */
static char *outcome(uint64_t seed, const struct mkpmo_shape *shape, const char *e,
		     bool printed)
{
	struct model x;
	struct mh_diag d = {0};
	size_t n, len, clen;
	build(seed, shape, &x);
	char *t = print(&x.p, VERTICES, &n);
	enum mh_err err = printed ? pmo_vertices_apply_printed(&x.p, e, strlen(e), t, n, &d)
				  : pmo_vertices_apply(&x.p, e, strlen(e), &d);
	uint8_t *bytes = NULL, *comp = NULL;
	assert_int_equal(pmo_encode(&x.p, &bytes, &len, &comp, &clen, NULL), MH_OK);
	char *out = malloc(2 * (len + clen) + 512);
	assert_non_null(out);
	int at = snprintf(out, 512, "%d %u:%u %s|", err, d.line, d.col, err ? d.msg : "");
	for (size_t i = 0; i < len; i++)
		at += sprintf(out + at, "%02x", bytes[i]);
	for (size_t i = 0; i < clen; i++)
		at += sprintf(out + at, "%02x", comp[i]);
	free(bytes);
	free(comp);
	free(t);
	drop(&x);
	return out;
}

/* The printed text given, vertices.tsv applies exactly as without it:
 * an awk edit, a moved row, a missing row, a value out of reach, a text
 * whose every line moved by one (a row inserted at the top). */
static void test_apply_printed_agrees(void **state)
{
	(void)state;
	for (int p3rd = 0; p3rd < 2; p3rd++) {
		struct model x;
		uint32_t g;
		skinned(&x, p3rd, &g);
		uint64_t seed = p3rd ? 41 : 40;
		struct mkpmo_shape shape = {.p3rd = p3rd, .meshes = 2, .groups_per_mesh = 3,
					    .vertices = 30, .skinned = true, .remap = true};
		size_t n;
		char *t = print(&x.p, VERTICES, &n);
		const struct pmo_group *grp = &x.p.groups[g];
		unsigned line = vertex_line(&x.p, g, 2);
		char *edits[5];
		edits[0] = awk_move_x(&x.p, t, g, 2, x.p.meshes[grp->mesh].scale[0] / 7);
		edits[1] = cut_line(t, line);
		edits[2] = set_word(t, line, 2, "1e30");
		edits[3] = malloc(n + 32);
		snprintf(edits[3], n + 32, "0 0 0 0 0\n%s", t);
		edits[4] = set_word(t, vertex_line(&x.p, g, 3), 1, "2");
		for (int k = 0; k < 5; k++) {
			char *with = outcome(seed, &shape, edits[k], true);
			char *without = outcome(seed, &shape, edits[k], false);
			assert_string_equal(with, without);
			free(with);
			free(without);
			free(edits[k]);
		}
		free(t);
		drop(&x);
	}
}

/* t with one random change of the kinds a hand, a script or a bad copy
 * makes: a line cut, doubled or swapped with the next, a comment or a
 * blank line put in, a byte changed, put in or cut, a word set to a
 * number, the text cut short, a row added at the end. */
static char *mutate(struct rng *r, const char *t)
{
	size_t len = strlen(t);
	unsigned lines = 0;
	for (const char *c = t; *c; c++)
		lines += *c == '\n';
	unsigned line = rng_range(r, 1, lines);
	const char *at = line_at(t, line), *nl = strchr(at, '\n');
	size_t line_len = nl ? (size_t)(nl - at) + 1 : strlen(at);
	const char *pos = t + rng_below(r, len + 1);
	char one[2] = {"0123456789.-e \t\n#x:"[rng_below(r, 19)], 0}, num[32];
	switch (rng_below(r, 10)) {
	case 0:
		return cut_line(t, line);
	case 1: {
		char *dup = strndup(at, line_len);
		char *o = splice(t, at, 0, dup);
		free(dup);
		return o;
	}
	case 2: {
		if (line >= lines)
			return strdup(t);
		const char *next = at + line_len, *nl2 = strchr(next, '\n');
		size_t next_len = nl2 ? (size_t)(nl2 - next) + 1 : strlen(next);
		char *swapped = malloc(line_len + next_len + 1);
		assert_non_null(swapped);
		memcpy(swapped, next, next_len);
		memcpy(swapped + next_len, at, line_len);
		swapped[line_len + next_len] = '\0';
		char *o = splice(t, at, line_len + next_len, swapped);
		free(swapped);
		return o;
	}
	case 3:
		return splice(t, at, 0, rng_below(r, 2) ? "# a note\n" : "\n");
	case 4:
		return pos < t + len ? splice(t, pos, 1, one) : strdup(t);
	case 5:
		return splice(t, pos, 0, one);
	case 6:
		return pos < t + len ? splice(t, pos, 1, "") : strdup(t);
	case 7:
		if (line < 2)
			return strdup(t);
		snprintf(num, sizeof num, "%g", (double)rng_range(r, 0, 2000) / 16 - 60);
		return set_word(t, line, rng_range(r, 2, 4), num);
	case 8:
		return strndup(t, (size_t)(pos - t));
	default:
		return splice(t, t + len, 0, "0 0 1 2 3\n");
	}
}

/* The same on random changes, one or two at a time, anywhere in the
 * text: the printed text given, only the rows between what is as printed
 * at either end are parsed, and the outcome is still the same. */
static void test_apply_printed_agrees_random(void **state)
{
	(void)state;
	struct rng r = {1234};
	for (int p3rd = 0; p3rd < 2; p3rd++) {
		uint64_t seed = 50 + (uint64_t)p3rd;
		struct mkpmo_shape shape = {.p3rd = p3rd, .meshes = 2, .groups_per_mesh = 3,
					    .vertices = 12, .skinned = true, .remap = true};
		struct model x;
		build(seed, &shape, &x);
		size_t n;
		char *t = print(&x.p, VERTICES, &n);
		for (int k = 0; k < 300; k++) {
			char *once = mutate(&r, t), *e = once;
			if (k % 3 == 0) {
				e = mutate(&r, once);
				free(once);
			}
			char *with = outcome(seed, &shape, e, true);
			char *without = outcome(seed, &shape, e, false);
			if (strcmp(with, without))
				fail_msg("case %d: with the printed text %.80s, without %.80s", k, with,
					 without);
			free(with);
			free(without);
			free(e);
		}
		free(t);
		drop(&x);
	}
}

/* The text of a model after an edit, reprinted from the model before and
 * its text, is the text printed afresh: after an awk edit and a weight
 * edit, beside an unrelated model, and beside a text cut short. */
static void reprint_is_print(const struct pmo *now, const struct pmo *was, const char *text,
			     size_t len)
{
	size_t n, m;
	char *fresh = print(now, VERTICES, &n);
	char *re = pmo_vertices_reprint(now, was, text, len, &m);
	assert_non_null(re);
	assert_int_equal(m, n);
	assert_string_equal(re, fresh);
	free(re);
	free(fresh);
}

static void test_reprint(void **state)
{
	(void)state;
	for (int p3rd = 0; p3rd < 2; p3rd++) {
		struct model was, now, other;
		uint32_t g;
		skinned(&was, p3rd, &g);
		skinned(&now, p3rd, &g);
		size_t n;
		char *t = print(&was.p, VERTICES, &n);
		reprint_is_print(&now.p, &was.p, t, n); /* nothing changed */
		const struct pmo_group *grp = &now.p.groups[g];
		uint32_t moved = grp->vertex_count / 2;
		char *e = awk_move_x(&now.p, t, g, moved, now.p.meshes[grp->mesh].scale[0] / 5);
		apply_ok(&now.p, VERTICES, e);
		struct pmo_vertex v = grp->vertices[moved + 1];
		v.weights[0] = v.weights[0] > 0.5f ? 0.25f : 0.75f;
		struct mh_diag d = {0};
		assert_int_equal(pmo_vertex_set(&now.p, g, moved + 1, &v, &d), MH_OK);
		reprint_is_print(&now.p, &was.p, t, n);
		reprint_is_print(&now.p, &was.p, t, n / 2);
		reprint_is_print(&now.p, &was.p, t + 1, n - 1);
		struct mkpmo_shape s = {.p3rd = p3rd, .meshes = 3, .groups_per_mesh = 2,
					.vertices = 20, .skinned = true};
		build(7, &s, &other);
		reprint_is_print(&now.p, &other.p, t, n);
		reprint_is_print(&other.p, &now.p, t, n);
		size_t k;
		char *unchanged_text = pmo_vertices_reprint(&now.p, &was.p, t, n, &k);
		/* the untouched rows are was's text itself */
		size_t before_moved = (size_t)(line_at(t, vertex_line(&was.p, g, moved)) - t);
		assert_memory_equal(unchanged_text, t, before_moved);
		free(unchanged_text);
		free(e);
		free(t);
		drop(&other);
		drop(&now);
		drop(&was);
	}
}

/* vertices.tsv printed in runs of groups, the first with the header,
 * concatenates to the whole text, at every split (the mount prints a big
 * body's two halves at once). */
static void test_print_in_runs(void **state)
{
	(void)state;
	for (int p3rd = 0; p3rd < 2; p3rd++) {
		struct model x;
		uint32_t g;
		skinned(&x, p3rd, &g);
		size_t n;
		char *whole = print(&x.p, VERTICES, &n);
		for (uint32_t mid = 0; mid <= x.p.group_count; mid++) {
			size_t a_len, b_len;
			char *a = pmo_vertices_print_groups(&x.p, 0, mid, true, &a_len);
			char *b = pmo_vertices_print_groups(&x.p, mid, x.p.group_count, false, &b_len);
			assert_non_null(a);
			assert_non_null(b);
			assert_int_equal(a_len + b_len, n);
			assert_memory_equal(a, whole, a_len);
			assert_memory_equal(b, whole + a_len, b_len);
			free(a);
			free(b);
		}
		free(whole);
		drop(&x);
	}
}

static void test_vertex_refusals(void **state)
{
	(void)state;
	struct model x;
	uint32_t g;
	skinned(&x, false, &g);
	const struct pmo_group *grp = &x.p.groups[g];
	size_t n;
	char *t = print(&x.p, VERTICES, &n), *e;
	unsigned line = vertex_line(&x.p, g, 1), last = vertex_line(&x.p, x.p.group_count - 1,
		x.p.groups[x.p.group_count - 1].vertex_count - 1);
	unsigned cols = 5 + 3 * !!grp->vtype.normal + 2 * !!grp->vtype.uv +
			4 * (grp->vtype.color >= 4) + grp->vtype.weights;

	/* a missing row: the text ends; an extra one */
	e = cut_line(t, last);
	refused(&x, VERTICES, e, MH_ESYNTAX, last, 1, "missing rows");
	free(e);
	size_t tl = strlen(t);
	e = malloc(tl + 40);
	snprintf(e, tl + 40, "%s0 0 0 0 0\n", t);
	refused(&x, VERTICES, e, MH_ESYNTAX, last + 1, 1, "extra row");
	free(e);
	/* out of order: the row of vertex 2 where vertex 1's belongs */
	e = cut_line(t, line);
	refused(&x, VERTICES, e, MH_ESYNTAX, line, word_col(t, line + 1, 1), "expected vertex 1");
	free(e);
	e = set_word(t, line, 0, "999");
	refused(&x, VERTICES, e, MH_ESYNTAX, line, 1, "expected group");
	free(e);
	/* column counts: one short, one more */
	size_t wn;
	const char *lw = word_at(t, line, cols - 2, &wn);
	const char *nl = strchr(lw, '\n');
	e = splice(t, lw + wn, (size_t)(nl - lw - wn), "");
	refused(&x, VERTICES, e, MH_ESYNTAX, line,
		(unsigned)(lw + wn - line_at(t, line)) + 1, "columns");
	free(e);
	e = splice(t, nl, 0, "\t7");
	refused(&x, VERTICES, e, MH_ESYNTAX, line, (unsigned)(nl - line_at(t, line)) + 2,
		"columns");
	free(e);
	/* a weight's bone not among the palette's slots; a non-number */
	unsigned wcol = cols - grp->vtype.weights;
	e = set_word(t, line, wcol, "300:0");
	refused(&x, VERTICES, e, MH_ERANGE, line, word_col(t, line, wcol),
		"a weight past the palette's slots");
	free(e);
	e = set_word(t, line, wcol, "-:0");
	refused(&x, VERTICES, e, MH_ERANGE, line, word_col(t, line, wcol),
		"a weight past the palette's slots");
	free(e);
	char tok[32];
	snprintf(tok, sizeof tok, "%d:heavy", grp->slot_bone[0]);
	e = set_word(t, line, wcol, tok);
	refused(&x, VERTICES, e, MH_ESYNTAX, line,
		word_col(t, line, wcol) + (unsigned)(strchr(tok, ':') - tok) + 1, "heavy");
	free(e);
	snprintf(tok, sizeof tok, "%d:2", grp->slot_bone[0]);
	e = set_word(t, line, wcol, tok);
	refused(&x, VERTICES, e, MH_ERANGE, line, word_col(t, line, wcol), "[0, 1]");
	free(e);
	e = set_word(t, line, 3, "1.5.5");
	refused(&x, VERTICES, e, MH_ESYNTAX, line, word_col(t, line, 3), "number");
	free(e);
	e = set_word(t, line, 3, "0x7fc00000");
	refused(&x, VERTICES, e, MH_ERANGE, line, word_col(t, line, 3), "finite");
	free(e);
	/* a position the scale cannot reach (s16 here); an earlier valid edit
	 * is undone */
	assert_int_equal(grp->vtype.pos, 2);
	char *first = set_word(t, vertex_line(&x.p, 0, 0), 2, "0");
	e = set_word(first, line, 4, "1e9");
	refused(&x, VERTICES, e, MH_ERANGE, line, word_col(t, line, 4), "allowed");
	char *again = print(&x.p, VERTICES, &n);
	assert_string_equal(again, t);
	free(again);
	free(first);
	free(e);
	free(t);
	drop(&x);
}

/* ---- materials.tsv -------------------------------------------------------------- */

static void test_materials(void **state)
{
	(void)state;
	struct model x;
	uint32_t g;
	skinned(&x, true, &g);
	size_t n;
	char *t = print(&x.p, MATERIALS, &n), *e;
	struct mh_diag d = {0};
	uint32_t last = x.p.h.material_count + 1, at = x.p.h.material_off;
	assert_true(x.p.h.material_count >= 2);
	/* colour rrggbbaa: red in the low byte */
	e = set_word(t, 2, 1, "11223344");
	assert_int_equal(pmo_materials_apply(&x.p, e, strlen(e), 4, &d), MH_OK);
	assert_int_equal(x.p.materials[0].color, 0x44332211u);
	differs_only(&x, false, at, at + 4);
	free(e);
	drop(&x);
	skinned(&x, true, &g);
	/* texture: - is 0xFF; past the bank's images refused */
	e = set_word(t, 3, 3, "-");
	assert_int_equal(pmo_materials_apply(&x.p, e, strlen(e), 4, &d), MH_OK);
	assert_int_equal(x.p.materials[1].texture, 0xFF);
	free(e);
	drop(&x);
	skinned(&x, true, &g);
	unsigned tex = x.p.materials[1].texture;
	e = set_word(t, 3, 3, tex == 3 ? "2" : "3");
	assert_int_equal(pmo_materials_apply(&x.p, e, strlen(e), 4, &d), MH_OK);
	assert_int_equal(x.p.materials[1].texture, tex == 3 ? 2 : 3);
	differs_only(&x, false, at + 16 + 8, at + 16 + 9);
	drop(&x);
	skinned(&x, true, &g);
	d = (struct mh_diag){0};
	enum mh_err err = pmo_materials_apply(&x.p, e, strlen(e), tex == 3 ? 2 : 3, &d);
	assert_text_diag(&d, err, MH_ERANGE, 3, word_col(t, 3, 3));
	assert_diag_says(&d, tex == 3 ? "allowed 0-1 or -" : "allowed 0-2 or -");
	unchanged(&x);
	free(e);
	/* bad hex, row counts, order */
	e = set_word(t, 2, 2, "ff00zz00");
	refused(&x, MATERIALS, e, MH_ESYNTAX, 2, word_col(t, 2, 2) + 4, "hex");
	free(e);
	e = set_word(t, 2, 2, "ff00");
	refused(&x, MATERIALS, e, MH_ESYNTAX, 2, word_col(t, 2, 2), "8 hex digits");
	free(e);
	e = cut_line(t, last);
	refused(&x, MATERIALS, e, MH_ESYNTAX, last, 1, "missing rows");
	free(e);
	e = malloc(n + 32);
	snprintf(e, n + 32, "%s9 00000000 00000000 -\n", t);
	refused(&x, MATERIALS, e, MH_ESYNTAX, last + 1, 1, "extra row");
	free(e);
	e = cut_line(t, 2);
	refused(&x, MATERIALS, e, MH_ESYNTAX, 2, 1, "expected material 0");
	free(e);
	free(t);
	drop(&x);
}

/* ---- mesh.txt ------------------------------------------------------------------- */

/* One edit of mesh.txt: word `word` of the first line starting `prefix`
 * (with NULL: the whole line is `line`). */
struct mesh_edit {
	const char *prefix;
	unsigned word;
	const char *with, *line;
};

static void mesh_edit_ok(struct model *x, const struct mesh_edit *me, size_t lo, size_t hi)
{
	size_t n;
	char *t = print(&x->p, MESH, &n);
	unsigned line = find_line(t, me->prefix);
	char *e;
	if (me->with) {
		e = set_word(t, line, me->word, me->with);
	} else {
		const char *at = line_at(t, line);
		e = splice(t, at, strcspn(at, "\n"), me->line);
	}
	apply_ok(&x->p, MESH, e);
	differs_only(x, false, lo, hi);
	/* the new model prints what was applied */
	char *again = print(&x->p, MESH, &n);
	assert_string_equal(again, e);
	free(again);
	/* and its vertices, decoded again, apply back unchanged */
	struct bytes before, after;
	encode(&x->p, &before);
	again = print(&x->p, VERTICES, &n);
	apply_ok(&x->p, VERTICES, again);
	encode(&x->p, &after);
	assert_memory_equal(after.pmo, before.pmo, before.len);
	bytes_free(&before);
	bytes_free(&after);
	free(again);
	free(e);
	free(t);
}

static void mesh_model(struct model *x, bool p3rd)
{
	struct mkpmo_shape s = {.p3rd = p3rd, .meshes = 2, .groups_per_mesh = 3, .vertices = 20,
				.skinned = true, .remap = true, .companion = p3rd};
	build(p3rd ? 51 : 50, &s, x);
}

static void test_mesh_edits(void **state)
{
	(void)state;
	for (int p3rd = 0; p3rd < 2; p3rd++) {
		struct model x;
		mesh_model(&x, p3rd);
		size_t mesh = x.p.h.mesh_off, rest = mesh + (p3rd ? 32 : 8);
		const struct mesh_edit edits[] = {
			{"cull_radius", 1, "123.5", NULL}, {"scale", 2, "7.25", NULL},
			{"uv_scale", 1, "0.5", NULL}, {"lighting", 0, NULL, "lighting alpha 0x00010000"},
			{"blend", 1, "0x12345678", NULL},
		};
		const size_t range[][2] = {
			{0x0C, 0x10}, {0x14, 0x18}, {p3rd ? mesh + 16 : mesh, 0},
			{rest, rest + 4}, {rest + 4, rest + 8},
		};
		for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
			size_t hi = range[i][1] ? range[i][1] : range[i][0] + 4;
			mesh_edit_ok(&x, &edits[i], range[i][0], hi);
			drop(&x);
			mesh_model(&x, p3rd);
		}
		/* a group's material (in a mesh whose remap run has room) and a
		 * palette bone */
		uint32_t g = 0, run = 0;
		for (uint64_t seed = 60; run < 2; seed++) {
			drop(&x);
			build(seed, &(struct mkpmo_shape){.p3rd = p3rd, .meshes = 2,
				.groups_per_mesh = 3, .vertices = 20, .skinned = true, .remap = true},
			      &x);
			for (g = 0; g < x.p.group_count && run < 2; g++)
				run = x.p.meshes[x.p.groups[g].mesh].remap_count;
		}
		g--;
		char with[16];
		snprintf(with, sizeof with, "%u", (x.p.groups[g].material + 1) % run);
		/* the g-th "material" line */
		size_t n;
		char *t = print(&x.p, MESH, &n);
		unsigned line = find_line(t, "material");
		for (uint32_t k = 0; k < g; k++)
			line += find_line(line_at(t, line + 1), "material");
		char *e = set_word(t, line, 1, with);
		apply_ok(&x.p, MESH, e);
		differs_only(&x, false, x.p.h.group_off + 16 * g, x.p.h.group_off + 16 * g + 1);
		free(e);
		free(t);
		drop(&x);
		mesh_model(&x, p3rd);
		assert_true(x.p.groups[0].palette_count > 0);
		const struct pmo_bone *b = &x.p.palette[0];
		snprintf(with, sizeof with, "%u:%u", b->slot, (b->bone + 1) % 200);
		unsigned slot = b->slot, bone = (b->bone + 1) % 200;
		mesh_edit_ok(&x, &(struct mesh_edit){"palette", 1, with, NULL}, x.p.h.palette_off + 1,
			     x.p.h.palette_off + 2);
		/* the weights' bones follow */
		assert_int_equal(x.p.groups[0].slot_bone[slot], bone);
		drop(&x);
	}
}

/* The first line starting `prefix` with word `word` set: refused. */
static void mesh_refused(struct model *x, const char *t, const char *prefix, unsigned word,
			 const char *with, unsigned bones, enum mh_err code, unsigned col_add,
			 const char *words)
{
	unsigned line = find_line(t, prefix);
	char *e = set_word(t, line, word, with);
	struct mh_diag d = {0};
	enum mh_err err = pmo_mesh_apply(&x->p, e, strlen(e), bones, &d);
	assert_text_diag(&d, err, code, line, word_col(t, line, word) + col_add);
	assert_diag_says(&d, words);
	unchanged(x);
	free(e);
}

static void test_mesh_refusals(void **state)
{
	(void)state;
	struct model x;
	mesh_model(&x, false);
	size_t n;
	char *t = print(&x.p, MESH, &n), *e;
	const char *NOT_YET = "not supported yet";
	mesh_refused(&x, t, "vtype", 1, "weights9", 0, MH_ERANGE, 0, NOT_YET);
	mesh_refused(&x, t, "vertices", 1, "999", 0, MH_ERANGE, 0, NOT_YET);
	mesh_refused(&x, t, "draw", 2, "999", 0, MH_ERANGE, 0, NOT_YET);
	mesh_refused(&x, t, "mesh", 3, "9", 0, MH_ERANGE, 0, NOT_YET);
	mesh_refused(&x, t, "version", 1, "102", 0, MH_ERANGE, 0, NOT_YET);
	mesh_refused(&x, t, "palette", 1, "77:1", 0, MH_ERANGE, 0, NOT_YET);
	mesh_refused(&x, t, "cull_radius", 1, "0x7f800000", 0, MH_ERANGE, 0, "finite");
	mesh_refused(&x, t, "scale", 1, "nope", 0, MH_ESYNTAX, 0, "number");
	mesh_refused(&x, t, "lighting", 1, "bright", 0, MH_ESYNTAX, 0, "light, fog");
	mesh_refused(&x, t, "blend", 1, "0x100000000", 0, MH_ERANGE, 0, "4294967295");
	char run[16], slot[16];
	snprintf(run, sizeof run, "%u", x.p.meshes[0].remap_count);
	snprintf(slot, sizeof slot, "%u:", x.p.palette[0].slot);
	char allowed[32];
	snprintf(allowed, sizeof allowed, "allowed 0-%u", x.p.meshes[0].remap_count - 1);
	mesh_refused(&x, t, "material", 1, run, 0, MH_ERANGE, 0, allowed);
	char bone[40];
	snprintf(bone, sizeof bone, "%s%u", slot, x.p.palette[0].bone == 5 ? 6 : 5);
	mesh_refused(&x, t, "palette", 1, bone, 5, MH_ERANGE, (unsigned)strlen(slot),
		     "allowed 0-4");
	snprintf(bone, sizeof bone, "%s256", slot);
	mesh_refused(&x, t, "palette", 1, bone, 0, MH_ERANGE, (unsigned)strlen(slot), "0..255");
	/* a draw line gone; a line past the end */
	unsigned line = find_line(t, "draw");
	e = cut_line(t, line);
	struct mh_diag d = {0};
	enum mh_err err = pmo_mesh_apply(&x.p, e, strlen(e), 0, &d);
	assert_int_equal(err, MH_ERANGE);
	assert_int_equal(d.line, line);
	assert_diag_says(&d, NOT_YET);
	unchanged(&x);
	free(e);
	e = malloc(n + 16);
	snprintf(e, n + 16, "%sgroup 99\n", t);
	line = 1;
	for (const char *c = t; *c; c++)
		line += *c == '\n';
	refused(&x, MESH, e, MH_ERANGE, line, 1, NOT_YET);
	free(e);
	free(t);
	drop(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_monster),
		cmocka_unit_test(test_awk_edit),
		cmocka_unit_test(test_vertex_edit_colour_weight),
		cmocka_unit_test(test_vertex_refusals),
		cmocka_unit_test(test_apply_printed_agrees),
		cmocka_unit_test(test_apply_printed_agrees_random),
		cmocka_unit_test(test_reprint),
		cmocka_unit_test(test_print_in_runs),
		cmocka_unit_test(test_materials),
		cmocka_unit_test(test_mesh_edits),
		cmocka_unit_test(test_mesh_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
