/* SPDX-License-Identifier: MIT */
/* Parsing skeleton.txt (skeleton_text.h) back into the model it was
 * printed from, and finding a bone's row in it. */
#include "skeleton.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex_text.h"
#include "lex.h"
#include "skeleton_text.h"

struct bone_lines {
	unsigned row;        /* line of the bone's row */
	unsigned w, count;   /* line of its w / section_count line, 0: none */
	uint32_t extra_end;  /* section offset past its last extra byte */
};

struct parser {
	struct lex lx;
	struct mh_diag *d;
	struct skeleton s;
	struct bone_lines *lines; /* per bone */
	uint32_t cap;             /* bones allocated */
	struct tail_bytes tail;   /* moved into s at the end */
	unsigned game_line, params_line, pcount_line, size_line;
};

/* Fails at word w's line:col. */
__attribute__((format(printf, 4, 5)))
static enum mh_err fail_at(struct parser *p, enum mh_err code,
			   const struct lex_word *w, const char *fmt, ...)
{
	char msg[sizeof p->d->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return mh_fail_text(p->d, code, w->line, w->col, "%s", msg);
}

static enum mh_err get_int(struct parser *p, const char *what, int64_t min,
			   int64_t max, int64_t *v, struct lex_word *w)
{
	enum mh_err err = lex_expect(&p->lx, w, what, p->d);
	return err ? err : lex_int(w, min, max, v, p->d);
}

static enum mh_err get_f32(struct parser *p, const char *what, float *v)
{
	struct lex_word w;
	enum mh_err err = lex_expect(&p->lx, &w, what, p->d);
	return err ? err : lex_f32(&w, v, p->d);
}

/* The word of column c (from 0) of a bone's row; a missing one is an
 * error naming the column (formatted only then: rows are the hot path). */
static enum mh_err column_word(struct parser *p, int c, struct lex_word *w)
{
	enum mh_err err;
	if (lex_word(&p->lx, w, &err, p->d) || err)
		return err;
	char what[48];
	snprintf(what, sizeof what, "column %d, %s", c + 1, COLS[c]);
	return lex_expect(&p->lx, w, what, p->d);
}

/* A bone index naming a row above this line. */
static enum mh_err get_bone(struct parser *p, uint32_t *i)
{
	struct lex_word w;
	int64_t v;
	enum mh_err err = get_int(p, "a bone index", 0, SKELETON_MAX_BONES - 1,
				  &v, &w);
	if (err)
		return err;
	if (v >= p->s.nbones)
		return fail_at(p, MH_ESYNTAX, &w, "bone %lld has no row above "
			       "this line (%u rows so far)", (long long)v,
			       p->s.nbones);
	*i = (uint32_t)v;
	return MH_OK;
}

static enum mh_err parse_name(struct parser *p, const struct lex_word *w,
			      struct skeleton_bone *b)
{
	if (!strcmp(w->text, "-"))
		return MH_OK;
	if (p->s.game != SKELETON_MHP3RD)
		return fail_at(p, MH_ESYNTAX, w, "MHFU bones have no name: "
			       "write - for \"%s\"", w->text);
	size_t n = 0;
	for (const char *c = w->text; *c;) {
		struct lex_word at = *w;
		at.col += (unsigned)(c - w->text);
		int byte = (uint8_t)*c++;
		if (byte == '\\') {
			if (c[0] != 'x' || hex_text_digit(c[1]) < 0 || hex_text_digit(c[2]) < 0)
				return fail_at(p, MH_ESYNTAX, &at, "expected "
					       "\\xHH in the name");
			byte = hex_text_digit(c[1]) << 4 | hex_text_digit(c[2]);
			c += 3;
			if (byte == 0)
				return fail_at(p, MH_ESYNTAX, &at, "a name "
					       "ends at its first NUL: bytes "
					       "after it go on an extra line");
		}
		if (n == SKELETON_NAME_LEN)
			return fail_at(p, MH_ESYNTAX, &at, "name \"%s\" is "
				       "longer than %u bytes", w->text,
				       SKELETON_NAME_LEN);
		b->rest[n++] = (uint8_t)byte;
	}
	return MH_OK;
}

static enum mh_err grow_bones(struct parser *p, const struct lex_word *w)
{
	/* Row indices stop at SKELETON_MAX_BONES - 1, so cap never must
	 * pass SKELETON_MAX_BONES. */
	if (p->s.nbones < p->cap)
		return MH_OK;
	uint32_t cap = p->cap ? 2 * p->cap : 64;
	if (cap > SKELETON_MAX_BONES)
		cap = SKELETON_MAX_BONES;
	struct skeleton_bone *b = realloc(p->s.bones, cap * sizeof *b);
	if (b)
		p->s.bones = b;
	struct bone_lines *l = realloc(p->lines, cap * sizeof *l);
	if (l)
		p->lines = l;
	if (!b || !l)
		return mh_fail_text(p->d, MH_ENOMEM, w->line, w->col, "%u bones",
				    cap);
	p->cap = cap;
	return MH_OK;
}

static enum mh_err parse_row(struct parser *p, const struct lex_word *first)
{
	int64_t v;
	enum mh_err err = lex_int(first, 0, SKELETON_MAX_BONES - 1, &v, p->d);
	if (err)
		return err;
	uint32_t i = p->s.nbones;
	if (v < i)
		return fail_at(p, MH_ESYNTAX, first, "bone %lld already has a "
			       "row, on line %u", (long long)v, p->lines[v].row);
	if (v > i)
		return fail_at(p, MH_ESYNTAX, first, "expected bone %u here, got "
			       "%lld: rows go in index order", i, (long long)v);
	if ((err = grow_bones(p, first)))
		return err;
	struct skeleton_bone *b = &p->s.bones[i];
	*b = (struct skeleton_bone){.count = 1,
				    .scale[3] = 1, .rotation[3] = 1,
				    .position[3] = 1};
	p->lines[i] = (struct bone_lines){.row = first->line};
	struct lex_word w;
	int64_t x[5]; /* x[1..4]: kind, parent, child, sibling */
	for (int c = 1; c <= 4; c++)
		if ((err = column_word(p, c, &w)) ||
		    (err = lex_int(&w, c == 1 ? 1 : INT32_MIN, c == 1 ? 3 : INT32_MAX,
				   &x[c], p->d)))
			return err;
	for (int c = 5; c < 14; c++) {
		float *vec = c < 8 ? b->scale : c < 11 ? b->rotation : b->position;
		if ((err = column_word(p, c, &w)) ||
		    (err = lex_f32(&w, &vec[(c - 5) % 3], p->d)))
			return err;
	}
	if ((err = get_int(p, "column 15, link", INT32_MIN, INT32_MAX, &x[0], &w)))
		return err;
	b->link = (int32_t)x[0];
	if ((err = get_int(p, "column 16, part", 0, UINT32_MAX, &x[0], &w)))
		return err;
	b->part = (uint32_t)x[0];
	if ((err = lex_expect(&p->lx, &w, "column 17, name (- for none)", p->d)) ||
	    (err = parse_name(p, &w, b)))
		return err;
	b->kind = (uint32_t)x[1];
	b->parent = (int32_t)x[2];
	b->child = (int32_t)x[3];
	b->sibling = (int32_t)x[4];
	p->s.nbones++;
	return MH_OK;
}

/* `what` may appear once; *line is where it did. */
static enum mh_err once(struct parser *p, const struct lex_word *w,
			unsigned *line)
{
	if (*line)
		return fail_at(p, MH_ESYNTAX, w, "a second %s line (the first "
			       "is line %u)", w->text, *line);
	*line = w->line;
	return MH_OK;
}

static enum mh_err parse_params(struct parser *p, const struct lex_word *kw)
{
	enum mh_err err = once(p, kw, &p->params_line);
	struct lex_word w;
	int64_t v;
	uint32_t n = 0;
	if (err || (err = get_int(p, "a params value", 0, UINT32_MAX, &v, &w)))
		return err;
	p->s.params[n++] = (uint32_t)v;
	while (lex_word(&p->lx, &w, &err, p->d)) {
		if (n == SKELETON_MAX_PARAMS)
			return fail_at(p, MH_ESYNTAX, &w, "at most %u params "
				       "values", SKELETON_MAX_PARAMS);
		if ((err = lex_int(&w, 0, UINT32_MAX, &v, p->d)))
			return err;
		p->s.params[n++] = (uint32_t)v;
	}
	p->s.nparams = n;
	return err;
}

static enum mh_err parse_extra(struct parser *p)
{
	uint32_t i = 0;
	int64_t off;
	struct lex_word w;
	enum mh_err err = get_bone(p, &i);
	if (err || (err = get_int(p, "the offset in the bone's section", 0,
				  UINT32_MAX, &off, &w)))
		return err;
	struct skeleton_bone *b = &p->s.bones[i];
	uint32_t secsize = skeleton_section_size(p->s.game);
	uint32_t lo = SKELETON_REST_OFF;
	if (p->s.game == SKELETON_MHP3RD)
		lo += (uint32_t)strnlen((const char *)b->rest, SKELETON_NAME_LEN) + 1;
	if (p->lines[i].extra_end > lo)
		lo = p->lines[i].extra_end;
	if (lo >= secsize)
		return fail_at(p, MH_ERANGE, &w, "bone %u has no room left for "
			       "extra bytes: its name and NUL or earlier extra "
			       "lines fill its section", i);
	if (off < lo || off >= secsize)
		return fail_at(p, MH_ERANGE, &w, "offset %s: bone %u's extra "
			       "bytes go in 0x%x..0x%x (after its name and "
			       "earlier extra lines)", w.text, i, lo, secsize - 1);
	uint32_t at = (uint32_t)off;
	if ((err = lex_expect(&p->lx, &w, "hex bytes", p->d)))
		return err;
	do {
		uint8_t bytes[HEX_TEXT_WORD_MAX];
		size_t n;
		if ((err = hex_text_word(&w, bytes, &n, p->d)))
			return err;
		if (at + n > secsize)
			return fail_at(p, MH_ERANGE, &w, "bytes past the end of "
				       "bone %u's section, 0x%x", i, secsize);
		memcpy(b->rest + (at - SKELETON_REST_OFF), bytes, n);
		at += (uint32_t)n;
	} while (lex_word(&p->lx, &w, &err, p->d));
	if (err)
		return err;
	p->lines[i].extra_end = at;
	return MH_OK;
}

static enum mh_err parse_line(struct parser *p, const struct lex_word *kw)
{
	const char *k = kw->text;
	struct lex_word w;
	int64_t v;
	uint32_t i = 0;
	enum mh_err err;
	if (!p->game_line) {
		if (strcmp(k, "skeleton"))
			return fail_at(p, MH_ESYNTAX, kw, "expected \"skeleton "
				       "mhfu\" or \"skeleton mhp3rd\" first, "
				       "got \"%s\"", k);
		p->game_line = kw->line;
		if ((err = lex_expect(&p->lx, &w, "mhfu or mhp3rd", p->d)))
			return err;
		if (!strcmp(w.text, "mhfu"))
			p->s.game = SKELETON_MHFU;
		else if (!strcmp(w.text, "mhp3rd"))
			p->s.game = SKELETON_MHP3RD;
		else
			return fail_at(p, MH_ESYNTAX, &w, "expected mhfu or "
				       "mhp3rd, got \"%s\"", w.text);
		return MH_OK;
	}
	if (k[0] >= '0' && k[0] <= '9')
		return parse_row(p, kw);
	if (!strcmp(k, "params"))
		return parse_params(p, kw);
	if (!strcmp(k, "params_count") || !strcmp(k, "size")) {
		bool count = k[0] == 'p';
		if ((err = once(p, kw, count ? &p->pcount_line : &p->size_line)) ||
		    (err = get_int(p, "a 32-bit unsigned value", 0, UINT32_MAX,
				   &v, &w)))
			return err;
		if (count)
			p->s.params_count = (uint32_t)v;
		else
			p->s.size_word = (uint32_t)v;
		return MH_OK;
	}
	if (!strcmp(k, "w")) {
		if ((err = get_bone(p, &i)) || (err = once(p, kw, &p->lines[i].w)))
			return err;
		struct skeleton_bone *b = &p->s.bones[i];
		if ((err = get_f32(p, "the scale's w", &b->scale[3])) ||
		    (err = get_f32(p, "the rotation's w", &b->rotation[3])))
			return err;
		return get_f32(p, "the position's w", &b->position[3]);
	}
	if (!strcmp(k, "section_count")) {
		if ((err = get_bone(p, &i)) ||
		    (err = once(p, kw, &p->lines[i].count)) ||
		    (err = get_int(p, "the section's count word", 0, UINT32_MAX,
				   &v, &w)))
			return err;
		p->s.bones[i].count = (uint32_t)v;
		return MH_OK;
	}
	if (!strcmp(k, "extra"))
		return parse_extra(p);
	if (!strcmp(k, "tail"))
		return hex_text_parse_tail(&p->lx, &p->tail, SKELETON_MAX_TAIL, 1,
					   p->d);
	if (!strcmp(k, "skeleton"))
		return once(p, kw, &p->game_line);
	return fail_at(p, MH_ESYNTAX, kw, "unknown line \"%s\": expected a bone "
		       "row, params, params_count, size, w, section_count, "
		       "extra or tail", k);
}

static enum mh_err parse_all(struct parser *p, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		unsigned line = 1, col = 1;
		for (const char *c = text; c < nul; c++, col++)
			if (*c == '\n') {
				line++;
				col = 0;
			}
		return mh_fail_text(p->d, MH_ESYNTAX, line, col, "NUL byte in text");
	}
	lex_init(&p->lx, text, len);
	enum mh_err err;
	while (lex_next_line(&p->lx, &err, p->d)) {
		struct lex_word kw;
		if ((err = lex_expect(&p->lx, &kw, "a line", p->d)) ||
		    (err = parse_line(p, &kw)) ||
		    (err = lex_end_of_line(&p->lx, p->d)))
			return err;
	}
	if (err)
		return err;
	p->s.tail = p->tail.p;
	p->s.tail_len = p->tail.len;
	p->tail = (struct tail_bytes){0};
	if (!p->game_line)
		return mh_fail_text(p->d, MH_ESYNTAX, p->lx.line, p->lx.col,
				    "expected \"skeleton mhfu\" or \"skeleton "
				    "mhp3rd\": the text has none");
	if (!p->params_line)
		return mh_fail_text(p->d, MH_ESYNTAX, p->lx.line, p->lx.col,
				    "expected a params line: the text has none");
	if (!p->pcount_line)
		p->s.params_count = p->s.nparams;
	p->s.size_fixed = p->size_line && p->s.size_word != skeleton_size(&p->s);
	if (!p->s.size_fixed)
		p->s.size_word = 0;
	return MH_OK;
}

enum mh_err skeleton_parse(const char *text, size_t len, struct skeleton *s,
			   struct mh_diag *d)
{
	struct parser p = {.d = d};
	enum mh_err err = parse_all(&p, text, len);
	free(p.lines);
	free(p.tail.p);
	if (err) {
		skeleton_free(&p.s);
		memset(s, 0, sizeof *s);
		return err;
	}
	*s = p.s;
	return MH_OK;
}

/* ---- locating bones ------------------------------------------------------- */

unsigned skeleton_text_line(const char *text, size_t len, int bone)
{
	struct lex lx;
	struct lex_word w, rest;
	enum mh_err err = MH_OK;
	lex_init(&lx, text, len);
	while (lex_next_line(&lx, &err, NULL) && lex_word(&lx, &w, &err, NULL)) {
		int64_t v;
		if (bone < 0 && !strcmp(w.text, "params"))
			return w.line;
		if (bone >= 0 && w.text[0] >= '0' && w.text[0] <= '9' &&
		    !lex_int(&w, 0, SKELETON_MAX_BONES - 1, &v, NULL) &&
		    v == bone)
			return w.line;
		while (lex_word(&lx, &rest, &err, NULL))
			;
		if (err)
			break;
	}
	return 1;
}
