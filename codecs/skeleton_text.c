/* skeleton.txt: the skeleton as text (grammar: man/mhfu-clip.5, section
 * SKELETON.TXT).
 *
 *   skeleton mhfu                     the game, first
 *   params 0 45                       1 to 3 values
 *   params_count 3                    only when it disagrees with them
 *   size 1234                         only when the size word disagrees
 *   0 1 -1 1 -1  1 1 1  0 0 0  0 0 0  -1 0 -      one row per bone
 *   w 3 1 1 0.5                       w components when not all 1
 *   section_count 3 2                 a section count word other than 1
 *   extra 3 0x60 01000000 ff          bytes of the rest area (hex)
 *   tail 00000000 deadbeef            the tail: hex, or
 *   tail zeros 2048                   a run of zero bytes
 *
 * Rows go in index order; the per-bone lines name a bone defined above
 * them.  The printer writes the canonical form, so print -> parse -> print
 * is stable and parse gives back the model print was given. */
#include "skeleton.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex_text.h"
#include "lex.h"
#include "strbuf.h"

#define NCOLS 17
#define COL_NAME 16
#define CELL 40     /* room for any cell's text */
#define HEX_LINE 32u /* bytes per extra or tail line */
#define HEX_GROUP 4u /* a blank before each u32 of the section */

static const char *const COLS[NCOLS] = {
	"bone", "kind", "parent", "child", "sibling",
	"scale_x", "scale_y", "scale_z", "rot_x", "rot_y", "rot_z",
	"pos_x", "pos_y", "pos_z", "link", "part", "name",
};

static const uint32_t ONE_BITS = 0x3f800000u; /* 1.0f */

static uint32_t bits(float v)
{
	uint32_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

/* ---- print ---------------------------------------------------------------- */

/* The name column: the C string in rest[0..8), escaped so it is one
 * word: bytes outside 0x21..0x7e, '#' and '\' as \xHH; "-" when empty. */
static void name_cell(const struct skeleton *s, const struct skeleton_bone *b,
		      char *out)
{
	size_t n = s->game == SKELETON_MHP3RD ? strnlen((const char *)b->rest,
							SKELETON_NAME_LEN) : 0;
	if (n == 0) {
		strcpy(out, "-");
		return;
	}
	char *o = out;
	for (size_t k = 0; k < n; k++) {
		uint8_t c = b->rest[k];
		if (c < 0x21 || c > 0x7e || c == '#' || c == '\\' ||
		    (n == 1 && c == '-'))
			o += sprintf(o, "\\x%02x", c);
		else
			*o++ = (char)c;
	}
	*o = '\0';
}

/* Cell `col` of bone i, into out (CELL bytes). */
static void cell(const struct skeleton *s, uint32_t i, int col, char *out)
{
	const struct skeleton_bone *b = &s->bones[i];
	switch (col) {
	case 0: sprintf(out, "%u", i); return;
	case 1: sprintf(out, "%u", b->kind); return;
	case 2: sprintf(out, "%d", b->parent); return;
	case 3: sprintf(out, "%d", b->child); return;
	case 4: sprintf(out, "%d", b->sibling); return;
	case 14: sprintf(out, "%d", b->link); return;
	case 15: sprintf(out, "%u", b->part); return;
	case COL_NAME: name_cell(s, b, out); return;
	}
	const float *v = col < 8 ? b->scale : col < 11 ? b->rotation : b->position;
	text_f32(out, CELL, v[(col - 5) % 3]);
}

/* Two spaces before each group of columns, one elsewhere. */
static const char *gap(int col)
{
	return col == 5 || col == 8 || col == 11 || col == 14 ? "  " : " ";
}

/* The table: each column as wide as its widest cell, numbers right-
 * aligned, the name last.  Cells are formatted once (floats cost a
 * shortest-form search), so an allocation failure fails the text. */
static void print_table(struct strbuf *sb, const struct skeleton *s)
{
	int width[NCOLS];
	char (*cells)[CELL] = malloc(((size_t)s->nbones * NCOLS + 1) * CELL);
	if (!cells) {
		strbuf_free(sb);
		sb->failed = true;
		return;
	}
	for (int c = 0; c < NCOLS; c++)
		width[c] = c == COL_NAME ? 0 : (int)strlen(COLS[c]);
	for (uint32_t i = 0; i < s->nbones; i++)
		for (int c = 0; c < COL_NAME; c++) {
			char *t = cells[(size_t)i * NCOLS + c];
			cell(s, i, c, t);
			if ((int)strlen(t) > width[c])
				width[c] = (int)strlen(t);
		}
	strbuf_printf(sb, "#");
	for (int c = 0; c < NCOLS; c++)
		strbuf_printf(sb, "%s%*s", c ? gap(c) : " ", width[c], COLS[c]);
	strbuf_printf(sb, "\n");
	for (uint32_t i = 0; i < s->nbones; i++) {
		char *name = cells[(size_t)i * NCOLS + COL_NAME];
		cell(s, i, COL_NAME, name);
		strbuf_printf(sb, " ");
		for (int c = 0; c < NCOLS; c++)
			strbuf_printf(sb, "%s%*s", c ? gap(c) : " ", width[c],
				      cells[(size_t)i * NCOLS + c]);
		strbuf_printf(sb, "\n");
	}
	free(cells);
}

/* `extra` lines for the non-zero bytes of bone i's rest area beyond its
 * name (MHP3rd) or anywhere in it (MHFU). */
static void print_extra(struct strbuf *sb, const struct skeleton *s, uint32_t i)
{
	const uint8_t *rest = s->bones[i].rest;
	size_t lo = 0, hi = skeleton_rest_len(s->game);
	if (s->game == SKELETON_MHP3RD)
		lo = strnlen((const char *)rest, SKELETON_NAME_LEN) + 1;
	while (lo < hi && !rest[lo])
		lo++;
	while (hi > lo && !rest[hi - 1])
		hi--;
	for (size_t k = lo; k < hi;) {
		size_t e = hex_text_line_end(SKELETON_REST_OFF, k, hi, HEX_LINE,
					     HEX_GROUP);
		strbuf_printf(sb, "extra %u 0x%zx", i, SKELETON_REST_OFF + k);
		hex_text_put(sb, rest + k, e - k, SKELETON_REST_OFF + k,
			     HEX_GROUP);
		strbuf_printf(sb, "\n");
		k = e;
	}
}

/* Zero runs of 32 or more as "tail zeros N"; other bytes as hex words
 * lined up with the file's u32s, 32 bytes a line. */
static void print_tail(struct strbuf *sb, const struct skeleton *s)
{
	const struct tail_layout layout = {
		.zero_run = 32, .per_line = HEX_LINE, .group = HEX_GROUP,
		.file_aligned = true, .at = skeleton_size(s)};
	if (s->tail_len)
		strbuf_printf(sb, "# the tail: %zu bytes after the last bone, "
			      "at 0x%llx\n", s->tail_len,
			      (unsigned long long)layout.at);
	hex_text_print_tail(sb, s->tail, s->tail_len, &layout);
}

static void print_comment(struct strbuf *sb, const char *text)
{
	while (text && *text) {
		size_t n = strcspn(text, "\n");
		strbuf_printf(sb, "#%s%.*s\n", n ? " " : "", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

char *skeleton_print(const struct skeleton *s, const char *header_comment,
		     size_t *len)
{
	struct strbuf sb = {0};
	print_comment(&sb, header_comment);
	print_comment(&sb,
		"skeleton.txt: one row per bone, in index order (mhfu-clip(5)).\n"
		"kind 1..3; parent, child, sibling, link: bone indices, -1 for "
		"none;\n"
		"scale, rot (Euler) and pos (offset from the parent): the bind "
		"pose's\n"
		"x y z floats as stored (0xXXXXXXXX gives exact bits); part: the "
		"MHFU\n"
		"animation part (0 on MHP3rd); name: MHP3rd only, - for none, "
		"\\xHH a byte.\n"
		"Lines after the table (w, section_count, extra, tail) keep "
		"what the\n"
		"table does not say, so the skeleton re-encodes byte for byte.");
	strbuf_printf(&sb, "skeleton %s\nparams", skeleton_game_name(s->game));
	for (uint32_t k = 0; k < s->nparams && k < SKELETON_MAX_PARAMS; k++)
		strbuf_printf(&sb, " %u", s->params[k]);
	strbuf_printf(&sb, "\n");
	if (s->params_count != s->nparams)
		strbuf_printf(&sb, "params_count %u  # the count word; there "
			      "are %u values\n", s->params_count, s->nparams);
	if (s->size_fixed)
		strbuf_printf(&sb, "size %u  # the size word as found; without "
			      "this line: %llu\n", s->size_word,
			      (unsigned long long)skeleton_size(s));
	print_table(&sb, s);
	for (uint32_t i = 0; i < s->nbones; i++) {
		const struct skeleton_bone *b = &s->bones[i];
		if (bits(b->scale[3]) != ONE_BITS ||
		    bits(b->rotation[3]) != ONE_BITS ||
		    bits(b->position[3]) != ONE_BITS) {
			char w[3][40];
			text_f32(w[0], sizeof w[0], b->scale[3]);
			text_f32(w[1], sizeof w[1], b->rotation[3]);
			text_f32(w[2], sizeof w[2], b->position[3]);
			strbuf_printf(&sb, "w %u %s %s %s\n", i, w[0], w[1], w[2]);
		}
		if (b->count != 1)
			strbuf_printf(&sb, "section_count %u %u\n", i, b->count);
		print_extra(&sb, s, i);
	}
	print_tail(&sb, s);
	return strbuf_take(&sb, len);
}

/* ---- parse ---------------------------------------------------------------- */

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
	char what[48];
	int64_t x[5]; /* x[1..4]: kind, parent, child, sibling */
	for (int c = 1; c <= 4; c++) {
		snprintf(what, sizeof what, "column %d, %s", c + 1, COLS[c]);
		if ((err = get_int(p, what, c == 1 ? 1 : INT32_MIN,
				   c == 1 ? 3 : INT32_MAX, &x[c], &w)))
			return err;
	}
	for (int c = 5; c < 14; c++) {
		float *vec = c < 8 ? b->scale : c < 11 ? b->rotation : b->position;
		snprintf(what, sizeof what, "column %d, %s", c + 1, COLS[c]);
		if ((err = get_f32(p, what, &vec[(c - 5) % 3])))
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
