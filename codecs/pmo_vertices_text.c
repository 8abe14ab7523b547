/* SPDX-License-Identifier: MIT */
/* vertices.tsv (pmo_text.h; mhfu-clip(5) VERTICES.TSV): one row per
 * vertex, its columns set by its group's vertex type.  Applying parses
 * every row before the first vertex is set, and sets them through
 * pmo_vertex_set, undoing all of them when one is refused. */
#include "pmo_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmo_text_int.h"
#include "same_bytes.h"

#define MAX_COLS (5 + 3 + 2 + 4 + PMO_MAX_WEIGHTS)

/* What a group's rows hold past "group vertex x y z". */
struct row_shape {
	bool normal, uv, color;
	unsigned weights;
	unsigned cols;
};

static struct row_shape shape_of(const struct pmo_vtype *vt)
{
	struct row_shape s = {.normal = vt->normal != 0, .uv = vt->uv != 0,
			      .color = vt->color >= 4, .weights = vt->weight ? vt->weights : 0};
	s.cols = 5 + 3 * s.normal + 2 * s.uv + 4 * s.color + s.weights;
	return s;
}

/* ---- printing -------------------------------------------------------------- */

/* The texts of floats printed lately, by their bits: normals, weights and
 * many UVs take few values (quantised to a byte, a short), so most of a
 * row's floats are printed once per model, not once per vertex. */
#define MEMO_SLOTS 1024u
#define MEMO_TEXT 16u
struct memo {
	uint32_t bits[MEMO_SLOTS];
	uint8_t len[MEMO_SLOTS]; /* 0: empty */
	char text[MEMO_SLOTS][MEMO_TEXT];
};

static void put_f32(struct strbuf *sb, struct memo *m, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	unsigned slot = (bits * 2654435761u) >> 22; /* of MEMO_SLOTS */
	if (m->len[slot] && m->bits[slot] == bits) {
		strbuf_append(sb, m->text[slot], m->len[slot]);
		return;
	}
	char buf[TEXT_F32_MAX];
	size_t n = text_f32(buf, sizeof buf, v);
	strbuf_append(sb, buf, n);
	if (n < MEMO_TEXT) {
		m->bits[slot] = bits;
		m->len[slot] = (uint8_t)n;
		memcpy(m->text[slot], buf, n);
	}
}

static void put_floats(struct strbuf *sb, struct memo *m, const float *v, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		strbuf_char(sb, '\t');
		put_f32(sb, m, v[k]);
	}
}

static void put_row(struct strbuf *sb, struct memo *m, const struct pmo_group *grp,
		    const struct row_shape *s, uint32_t g, uint32_t v)
{
	const struct pmo_vertex *x = &grp->vertices[v];
	pmo_text_uint(sb, g);
	strbuf_char(sb, '\t');
	pmo_text_uint(sb, v);
	put_floats(sb, m, x->pos, 3);
	if (s->normal)
		put_floats(sb, m, x->normal, 3);
	if (s->uv)
		put_floats(sb, m, x->uv, 2);
	for (unsigned k = 0; s->color && k < 4; k++) {
		strbuf_char(sb, '\t');
		pmo_text_uint(sb, x->rgba[k]);
	}
	for (unsigned k = 0; k < s->weights; k++) {
		strbuf_char(sb, '\t');
		if (grp->slot_bone[k] < 0)
			strbuf_char(sb, '-');
		else
			pmo_text_uint(sb, (unsigned)grp->slot_bone[k]);
		strbuf_char(sb, ':');
		put_f32(sb, m, x->weights[k]);
	}
	strbuf_char(sb, '\n');
}

static const char HEADER[] =
	"# group\tvertex\tx\ty\tz\tnx\tny\tnz\tu\tv\tr\tg\tb\ta\tbone:weight...\n";

char *pmo_vertices_print(const struct pmo *p, size_t *len)
{
	return pmo_vertices_print_groups(p, 0, p->group_count, true, len);
}

char *pmo_vertices_print_groups(const struct pmo *p, uint32_t first, uint32_t end, bool header,
				size_t *len)
{
	struct strbuf sb = {0};
	struct memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	if (header)
		strbuf_append(&sb, HEADER, sizeof HEADER - 1);
	for (uint32_t g = first; g < end && g < p->group_count; g++) {
		const struct pmo_group *grp = &p->groups[g];
		struct row_shape s = shape_of(&grp->vtype);
		for (uint32_t v = 0; v < grp->vertex_count; v++)
			put_row(&sb, m, grp, &s, g, v);
	}
	free(m);
	return strbuf_take(&sb, len);
}

/* Whether two groups print their rows alike: the same columns and the
 * same bones in their weight slots. */
static bool same_shape(const struct pmo_group *a, const struct pmo_group *b)
{
	struct row_shape sa = shape_of(&a->vtype), sb = shape_of(&b->vtype);
	return a->vertex_count == b->vertex_count && sa.normal == sb.normal && sa.uv == sb.uv &&
	       sa.color == sb.color && sa.weights == sb.weights &&
	       !memcmp(a->slot_bone, b->slot_bone, sizeof a->slot_bone);
}

/* Whether vertex a prints as b does, to the bit of every value its row
 * shows. */
static bool same_row(const struct pmo_vertex *a, const struct pmo_vertex *b,
		     const struct row_shape *s)
{
	return !memcmp(a->pos, b->pos, sizeof a->pos) &&
	       (!s->normal || !memcmp(a->normal, b->normal, sizeof a->normal)) &&
	       (!s->uv || !memcmp(a->uv, b->uv, sizeof a->uv)) &&
	       (!s->color || !memcmp(a->rgba, b->rgba, sizeof a->rgba)) &&
	       !memcmp(a->weights, b->weights, s->weights * sizeof a->weights[0]);
}

/* Whether `was` and its text can lend `now` their rows: the same groups
 * of the same shapes, the text starting with the header. */
static bool rows_lendable(const struct pmo *now, const struct pmo *was, const char *text,
			  size_t len)
{
	if (!was || !text || was->group_count != now->group_count || len < sizeof HEADER - 1 ||
	    memcmp(text, HEADER, sizeof HEADER - 1))
		return false;
	for (uint32_t g = 0; g < now->group_count; g++)
		if (!same_shape(&now->groups[g], &was->groups[g]))
			return false;
	return true;
}

char *pmo_vertices_reprint(const struct pmo *now, const struct pmo *was, const char *was_text,
			   size_t was_len, size_t *len)
{
	if (!rows_lendable(now, was, was_text, was_len))
		return pmo_vertices_print(now, len);
	struct strbuf sb = {0};
	struct memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	bool lend = true;
	const char *at = was_text + sizeof HEADER - 1, *end = was_text + was_len;
	strbuf_append(&sb, HEADER, sizeof HEADER - 1);
	for (uint32_t g = 0; g < now->group_count; g++) {
		const struct pmo_group *grp = &now->groups[g];
		struct row_shape s = shape_of(&grp->vtype);
		for (uint32_t v = 0; v < grp->vertex_count; v++) {
			/* was's row v of group g, when the text still has one */
			const char *nl = lend ? memchr(at, '\n', (size_t)(end - at)) : NULL;
			if (nl && same_row(&grp->vertices[v], &was->groups[g].vertices[v], &s))
				strbuf_append(&sb, at, (size_t)(nl + 1 - at));
			else
				put_row(&sb, m, grp, &s, g, v);
			if (!nl)
				lend = false;
			else
				at = nl + 1;
		}
	}
	free(m);
	return strbuf_take(&sb, len);
}

/* ---- parsing ---------------------------------------------------------------- */

/* One row's words. */
struct row {
	struct lex_word w[MAX_COLS];
	unsigned n;
};

/* Reads the rest of the line into r: exactly s->cols words. */
static enum mh_err read_row(struct lex *lx, const struct row_shape *s, uint32_t g,
			    struct row *r, struct mh_diag *d)
{
	enum mh_err err = MH_OK;
	for (r->n = 0; r->n < s->cols; r->n++)
		if (!lex_word(lx, &r->w[r->n], &err, d)) {
			if (err)
				return err;
			return mh_fail_text(d, MH_ESYNTAX, lx->line, lx->col,
					    "group %u's rows have %u columns (its vertex type's), "
					    "this one %u", g, s->cols, r->n);
		}
	struct lex_word extra;
	if (lex_word(lx, &extra, &err, d))
		return mh_fail_text(d, MH_ESYNTAX, extra.line, extra.col,
				    "group %u's rows have %u columns (its vertex type's), "
				    "this one more", g, s->cols);
	return err;
}

static enum mh_err expect_number(const struct lex_word *w, uint32_t want, const char *what,
				 struct mh_diag *d)
{
	int64_t v;
	enum mh_err err = lex_int(w, 0, UINT32_MAX, &v, d);
	if (err)
		return err;
	if (v != want)
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected %s %u here (rows go in order, one per vertex)", what,
				    want);
	return MH_OK;
}

static enum mh_err parse_floats(const struct lex_word *w, const float *have, float *out,
				unsigned n, struct mh_diag *d)
{
	for (unsigned k = 0; k < n; k++) {
		enum mh_err err = pmo_text_float(&w[k], have[k], &out[k], d);
		if (err)
			return err;
	}
	return MH_OK;
}

static enum mh_err parse_color(const struct lex_word *w, uint8_t *rgba, struct mh_diag *d)
{
	for (unsigned k = 0; k < 4; k++) {
		int64_t v;
		enum mh_err err = lex_int(&w[k], 0, 255, &v, d);
		if (err)
			return err;
		rgba[k] = (uint8_t)v;
	}
	return MH_OK;
}

/* The bones of the group's weighted slots, for a message: "3 4 -". */
static void slot_list(const struct pmo_group *grp, unsigned n, char *out, size_t cap)
{
	size_t at = 0;
	out[0] = '\0';
	for (unsigned k = 0; k < n && at + 8 < cap; k++) {
		if (grp->slot_bone[k] < 0)
			at += (size_t)snprintf(out + at, cap - at, "%s-", k ? " " : "");
		else
			at += (size_t)snprintf(out + at, cap - at, "%s%d", k ? " " : "",
					       grp->slot_bone[k]);
	}
}

/* The bone of a bone:weight token: that of slot k (the columns keep the
 * slots' order), "-" for a slot the palette never set. */
static enum mh_err check_bone(const struct lex_word *w, size_t blen, const struct pmo_group *grp,
			      unsigned k, unsigned n, struct mh_diag *d)
{
	char bone[LEX_WORD_MAX + 1], slots[96];
	memcpy(bone, w->text, blen);
	bone[blen] = '\0';
	int have = grp->slot_bone[k];
	char want[8];
	snprintf(want, sizeof want, "%d", have);
	if (have < 0 ? !strcmp(bone, "-") : !strcmp(bone, want))
		return MH_OK;
	slot_list(grp, n, slots, sizeof slots);
	for (unsigned j = 0; j < n; j++) {
		snprintf(want, sizeof want, "%d", grp->slot_bone[j]);
		if (grp->slot_bone[j] >= 0 && !strcmp(bone, want))
			return mh_fail_text(d, MH_ERANGE, w->line, w->col,
					    "bone %s is slot %u's: weights keep the slots' order "
					    "(bones %s)", bone, j, slots);
	}
	return mh_fail_text(d, MH_ERANGE, w->line, w->col,
			    "bone %s: a weight past the palette's slots, allowed here bone %s "
			    "(slots' bones %s)", bone, have < 0 ? "-" : want, slots);
}

static enum mh_err parse_weights(const struct lex_word *w, const struct pmo_group *grp,
				 unsigned n, const float *have, float *out, struct mh_diag *d)
{
	for (unsigned k = 0; k < n; k++) {
		const char *colon = strchr(w[k].text, ':');
		if (!colon)
			return mh_fail_text(d, MH_ESYNTAX, w[k].line, w[k].col,
					    "expected bone:weight, got \"%s\"", w[k].text);
		size_t blen = (size_t)(colon - w[k].text);
		enum mh_err err = check_bone(&w[k], blen, grp, k, n, d);
		if (err)
			return err;
		struct lex_word x = {.line = w[k].line, .col = w[k].col + (unsigned)blen + 1};
		strcpy(x.text, colon + 1);
		if ((err = pmo_text_float(&x, have[k], &out[k], d)))
			return err;
	}
	return MH_OK;
}

/* The row's values past "group vertex" into *out (a copy of `have`). */
static enum mh_err parse_values(const struct row *r, const struct row_shape *s,
				const struct pmo_group *grp, const struct pmo_vertex *have,
				struct pmo_vertex *out, struct mh_diag *d)
{
	*out = *have;
	const struct lex_word *w = r->w + 2;
	enum mh_err err = parse_floats(w, have->pos, out->pos, 3, d);
	w += 3;
	if (!err && s->normal) {
		err = parse_floats(w, have->normal, out->normal, 3, d);
		w += 3;
	}
	if (!err && s->uv) {
		err = parse_floats(w, have->uv, out->uv, 2, d);
		w += 2;
	}
	if (!err && s->color) {
		err = parse_color(w, out->rgba, d);
		w += 4;
	}
	if (!err && s->weights)
		err = parse_weights(w, grp, s->weights, have->weights, out->weights, d);
	return err;
}

/* Every row parsed, before any is applied. */
struct rows {
	struct pmo_vertex *want; /* per vertex, groups in order; after a set, the old one */
	size_t *at;              /* where each row's line starts in the text */
	unsigned *line;
	size_t n;
	size_t first, last;      /* the rows parsed; those outside are as printed */
};

static void rows_free(struct rows *rs)
{
	free(rs->want);
	free(rs->at);
	free(rs->line);
}

static enum mh_err rows_alloc(const struct pmo *p, struct rows *rs, struct mh_diag *d)
{
	rs->n = 0;
	for (uint32_t g = 0; g < p->group_count; g++)
		rs->n += p->groups[g].vertex_count;
	size_t n = rs->n ? rs->n : 1;
	rs->want = malloc(n * sizeof *rs->want);
	rs->at = malloc(n * sizeof *rs->at);
	rs->line = malloc(n * sizeof *rs->line);
	if (!rs->want || !rs->at || !rs->line)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	return MH_OK;
}

static enum mh_err parse_row(struct lex *lx, const struct pmo *p, uint32_t g, uint32_t v,
			     struct pmo_vertex *out, struct mh_diag *d)
{
	const struct pmo_group *grp = &p->groups[g];
	struct row_shape s = shape_of(&grp->vtype);
	struct row r;
	enum mh_err err;
	if ((err = read_row(lx, &s, g, &r, d)) || (err = expect_number(&r.w[0], g, "group", d)) ||
	    (err = expect_number(&r.w[1], v, "vertex", d)))
		return err;
	return parse_values(&r, &s, grp, &grp->vertices[v], out, d);
}

/* The text as it was printed, a row's line found by its number: a row
 * written back as printed is that vertex unchanged, not parsed again
 * (an awk edit of one row parses one row). */
struct printed {
	const char *text, *end;
	const char *next;  /* the line of the next row, in order */
};

/* Whether the line at bol (of text ending at end) is the next printed
 * row's, byte for byte; the printed rows move on by one either way. */
static bool as_printed(struct printed *pr, const char *bol, const char *end)
{
	if (!pr->text || pr->next >= pr->end)
		return false;
	const char *row = pr->next, *nl = memchr(row, '\n', (size_t)(pr->end - row));
	size_t n = nl ? (size_t)(nl - row) : (size_t)(pr->end - row);
	pr->next = nl ? nl + 1 : pr->end;
	return (size_t)(end - bol) >= n && !memcmp(bol, row, n) &&
	       (bol + n == end || bol[n] == '\n');
}

/* The part of the text parsed: bytes [from, to), starting on line `line`,
 * holding rows [first, last); the rows outside it are as printed. */
struct span {
	size_t from, to;
	unsigned line;
	size_t first, last;
};

/* The index of the row printed at `at` (a line of the printed text),
 * read from its "group vertex": false if it is none. */
static bool printed_row(const struct pmo *p, const char *at, const char *end, size_t *index)
{
	uint64_t gv[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		const char *digits = at;
		while (at < end && *at >= '0' && *at <= '9' && gv[k] <= UINT32_MAX)
			gv[k] = gv[k] * 10 + (uint64_t)(*at++ - '0');
		if (at == digits || at == end || *at++ != '\t')
			return false;
	}
	if (gv[0] >= p->group_count || gv[1] >= p->groups[gv[0]].vertex_count)
		return false;
	*index = gv[1];
	for (uint32_t g = 0; g < gv[0]; g++)
		*index += p->groups[g].vertex_count;
	return true;
}

/* Where the text stops being as printed from either end, in whole rows:
 * an awk edit of one vertex of the Tigrex's 570 KB text parses that row
 * only.  The printed text is a header, then a line a row, each led by
 * its "group vertex": the rows and lines the ends hold are read there.
 * rows_at: the printed text's first row. */
static struct span edited_span(const struct pmo *p, const char *text, size_t len,
			       const char *printed, size_t plen, const char *rows_at, size_t n)
{
	struct span all = {0, len, 1, 0, n};
	size_t hdr = (size_t)(rows_at - printed), common = len < plen ? len : plen;
	size_t from = same_prefix((const uint8_t *)text, (const uint8_t *)printed, common);
	while (from > 0 && text[from - 1] != '\n')
		from--; /* the line of the first difference */
	if (from < hdr)
		return all;
	size_t same = same_suffix((const uint8_t *)text + len, (const uint8_t *)printed + plen,
				  common - from);
	size_t to = len - same, pto = plen - same;
	/* The rows after: whole lines in both texts. */
	if (to > from && (text[to - 1] != '\n' || printed[pto - 1] != '\n')) {
		const char *nl = memchr(text + to, '\n', len - to);
		to = nl ? (size_t)(nl + 1 - text) : len;
		pto = plen - (len - to);
	}
	size_t first = n, last = n;
	if ((from < plen && !printed_row(p, printed + from, printed + plen, &first)) ||
	    (pto < plen && !printed_row(p, printed + pto, printed + plen, &last)) || first > last)
		return all;
	unsigned header_lines = 0;
	for (size_t i = 0; i < hdr; i++)
		header_lines += printed[i] == '\n';
	return (struct span){from, to, 1 + header_lines + (unsigned)first, first, last};
}

/* Parses the rows of span sp into rs, the rows outside it as printed;
 * *whole false when the span held more or fewer rows than it should (the
 * whole text, parsed, then says where). */
static enum mh_err parse_rows(const struct pmo *p, const char *text, const struct span *sp,
			      struct printed *pr, struct rows *rs, bool *whole,
			      struct mh_diag *d)
{
	struct lex lx;
	lex_init(&lx, text + sp->from, sp->to - sp->from);
	lx.line = sp->line;
	enum mh_err err = MH_OK;
	size_t i = 0;
	/* A row missing or extra within a part only: where is for the whole. */
	bool part = sp->first > 0 || sp->last < rs->n;
	*whole = true;
	rs->first = sp->first;
	rs->last = sp->last;
	for (uint32_t g = 0; g < p->group_count; g++)
		for (uint32_t v = 0; v < p->groups[g].vertex_count; v++, i++) {
			if (i < sp->first || i >= sp->last)
				continue; /* as printed: set_all passes them by */
			if (!lex_next_line(&lx, &err, d)) {
				*whole = err || !part;
				return err ? err : mh_fail_text(d, MH_ESYNTAX, lx.line, lx.col,
					"missing rows: the text ends before group %u vertex %u "
					"(the model has %zu vertices)", g, v, rs->n);
			}
			rs->at[i] = (size_t)(lx.bol - text);
			rs->line[i] = lx.line;
			if (lx.p == lx.bol && as_printed(pr, lx.bol, lx.end)) {
				rs->want[i] = p->groups[g].vertices[v];
				lex_skip_line(&lx);
				continue;
			}
			if ((err = parse_row(&lx, p, g, v, &rs->want[i], d)))
				return err;
		}
	if (lex_next_line(&lx, &err, d)) {
		*whole = !part;
		return mh_fail_text(d, MH_ESYNTAX, lx.line, lx.col,
				    "extra row: the model has %zu vertices", rs->n);
	}
	return err;
}

/* ---- applying ------------------------------------------------------------------ */

/* The bytes holding the region, which vertex edits change. */
static uint8_t *region_bytes(struct pmo *p, size_t *len)
{
	*len = p->external ? p->companion_len : p->raw_len;
	return p->external ? p->companion : p->raw;
}

/* The column (a word of the row at text + at) that holds value c of the
 * vertex: 0-2 position, 3-5 normal, 6-7 UV, 8-11 colour, 12+ weights. */
static unsigned column_of(const struct row_shape *s, unsigned c)
{
	unsigned col = 2 + (c < 3 ? c : 3);
	if (c >= 3)
		col += s->normal ? (c < 6 ? c - 3 : 3) : 0;
	if (c >= 6)
		col += s->uv ? (c < 8 ? c - 6 : 2) : 0;
	if (c >= 8)
		col += s->color ? (c < 12 ? c - 8 : 4) : 0;
	if (c >= 12)
		col += c - 12;
	return col;
}

/* Vertex `cur` with value c taken from `want` (the colour whole). */
static bool take_value(struct pmo_vertex *x, const struct pmo_vertex *want, unsigned c)
{
	float *xf[4] = {x->pos, x->normal, x->uv, x->weights};
	const float *wf[4] = {want->pos, want->normal, want->uv, want->weights};
	static const unsigned first[5] = {0, 3, 6, 8, 12};
	if (c >= 8 && c < 12) {
		bool differ = x->rgba[c - 8] != want->rgba[c - 8];
		memcpy(x->rgba, want->rgba, 4);
		return differ;
	}
	unsigned a = c < 3 ? 0 : c < 6 ? 1 : c < 8 ? 2 : 3, k = c - first[a < 3 ? a : 4];
	bool differ = !pmo_text_same(xf[a][k], wf[a][k]);
	xf[a][k] = wf[a][k];
	return differ;
}

/* After a refusal of vertex i (g, v), which the caller undoes: the first
 * value that alone is refused names the column, with its message. */
static enum mh_err blame(struct pmo *p, uint32_t g, uint32_t v, const struct pmo_vertex *want,
			 unsigned line, const char *row, size_t row_len, enum mh_err first,
			 struct mh_diag *d)
{
	unsigned col = 1;
	struct pmo_group *grp = &p->groups[g];
	struct row_shape s = shape_of(&grp->vtype);
	struct pmo_vertex cur = grp->vertices[v];
	size_t n, vsize = grp->vtype.size;
	uint8_t *mem = region_bytes(p, &n), saved[256];
	uint8_t *q = mem + grp->vertex_at + (uint64_t)v * grp->vtype.stride;
	memcpy(saved, q, vsize);
	for (unsigned c = 0; c < 12 + PMO_MAX_WEIGHTS; c++) {
		struct pmo_vertex x = cur;
		if (!take_value(&x, want, c))
			continue;
		enum mh_err err = pmo_vertex_set(p, g, v, &x, d);
		memcpy(q, saved, vsize);
		grp->vertices[v] = cur;
		if (err) {
			/* the column's word: skip that many words of the row */
			struct lex lx;
			lex_init(&lx, row, row_len);
			struct lex_word w = {.col = 1};
			enum mh_err e2;
			for (unsigned k = 0; k <= column_of(&s, c); k++)
				if (!lex_word(&lx, &w, &e2, NULL))
					break;
			col = w.col;
			first = err;
			break;
		}
	}
	if (d) {
		d->line = line;
		d->col = col;
	}
	return first;
}

static enum mh_err set_all(struct pmo *p, struct rows *rs, const char *text, size_t len,
			   uint8_t *changed, struct mh_diag *d)
{
	size_t i = 0;
	for (uint32_t g = 0; g < p->group_count; g++)
		for (uint32_t v = 0; v < p->groups[g].vertex_count; v++, i++) {
			struct pmo_vertex *cur = &p->groups[g].vertices[v];
			if (i < rs->first || i >= rs->last || !memcmp(cur, &rs->want[i], sizeof *cur))
				continue;
			struct pmo_vertex old = *cur;
			enum mh_err err = pmo_vertex_set(p, g, v, &rs->want[i], d);
			if (err) {
				const char *row = text + rs->at[i];
				const char *nl = memchr(row, '\n', len - rs->at[i]);
				size_t row_len = nl ? (size_t)(nl - row) : len - rs->at[i];
				return blame(p, g, v, &rs->want[i], rs->line[i], row, row_len, err, d);
			}
			rs->want[i] = old;
			changed[i] = 1;
		}
	return MH_OK;
}

/* Puts back the vertices set before a refusal (their old values in
 * rs->want) and the bytes saved before the first. */
static void undo(struct pmo *p, const struct rows *rs, const uint8_t *changed, const uint8_t *saved)
{
	size_t n, i = 0;
	uint8_t *mem = region_bytes(p, &n);
	memcpy(mem, saved, n);
	for (uint32_t g = 0; g < p->group_count; g++)
		for (uint32_t v = 0; v < p->groups[g].vertex_count; v++, i++)
			if (changed[i])
				p->groups[g].vertices[v] = rs->want[i];
}

static enum mh_err apply_rows(struct pmo *p, struct rows *rs, const char *text, size_t len,
			      struct mh_diag *d)
{
	size_t n;
	const uint8_t *mem = region_bytes(p, &n);
	uint8_t *saved = malloc(n ? n : 1), *changed = calloc(rs->n ? rs->n : 1, 1);
	enum mh_err err = MH_OK;
	if (!saved || !changed)
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
	if (!err) {
		memcpy(saved, mem, n);
		if ((err = set_all(p, rs, text, len, changed, d)))
			undo(p, rs, changed, saved);
	}
	free(saved);
	free(changed);
	return err;
}

enum mh_err pmo_vertices_apply(struct pmo *p, const char *text, size_t len, struct mh_diag *d)
{
	return pmo_vertices_apply_printed(p, text, len, NULL, 0, d);
}

enum mh_err pmo_vertices_apply_printed(struct pmo *p, const char *text, size_t len,
				       const char *printed, size_t printed_len, struct mh_diag *d)
{
	struct rows rs = {0};
	struct printed pr = {printed, printed ? printed + printed_len : NULL, printed};
	/* Past the header comment: the first row's line. */
	while (printed && pr.next < pr.end && *pr.next == '#') {
		const char *nl = memchr(pr.next, '\n', (size_t)(pr.end - pr.next));
		pr.next = nl ? nl + 1 : pr.end;
	}
	enum mh_err err = rows_alloc(p, &rs, d);
	const char *rows_at = pr.next;
	struct span all = {0, len, 1, 0, rs.n};
	struct span sp = printed ? edited_span(p, text, len, printed, printed_len, rows_at, rs.n)
				 : all;
	bool whole = true;
	pr.next = sp.from ? printed + sp.from : rows_at;
	if (!err)
		err = parse_rows(p, text, &sp, &pr, &rs, &whole, d);
	if (!whole) {
		pr.next = rows_at;
		err = parse_rows(p, text, &all, &pr, &rs, &whole, d);
	}
	if (!err)
		err = apply_rows(p, &rs, text, len, d);
	rows_free(&rs);
	return err;
}
