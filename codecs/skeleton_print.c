/* SPDX-License-Identifier: MIT */
/* Printing skeleton.txt (skeleton_text.h): the canonical form, a table
 * with a row per bone, then the lines for what the table does not say. */
#include "skeleton.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex_text.h"
#include "skeleton_text.h"
#include "strbuf.h"

#define CELL 40     /* room for any cell's text */
#define HEX_LINE 32u /* bytes per extra or tail line */
#define HEX_GROUP 4u /* a blank before each u32 of the section */

static const uint32_t ONE_BITS = 0x3f800000u; /* 1.0f */

static uint32_t bits(float v)
{
	uint32_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

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
	case 0: text_int(out, i); return;
	case 1: text_int(out, b->kind); return;
	case 2: text_int(out, b->parent); return;
	case 3: text_int(out, b->child); return;
	case 4: text_int(out, b->sibling); return;
	case 14: text_int(out, b->link); return;
	case 15: text_int(out, b->part); return;
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
	strbuf_char(sb, '#');
	for (int c = 0; c < NCOLS; c++) {
		strbuf_str(sb, c ? gap(c) : " ", 0);
		strbuf_str(sb, COLS[c], width[c]);
	}
	strbuf_char(sb, '\n');
	for (uint32_t i = 0; i < s->nbones; i++) {
		char *name = cells[(size_t)i * NCOLS + COL_NAME];
		cell(s, i, COL_NAME, name);
		strbuf_char(sb, ' ');
		for (int c = 0; c < NCOLS; c++) {
			strbuf_str(sb, c ? gap(c) : " ", 0);
			strbuf_str(sb, cells[(size_t)i * NCOLS + c], width[c]);
		}
		strbuf_char(sb, '\n');
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
		static const char HEX[] = "0123456789abcdef";
		size_t at = SKELETON_REST_OFF + k;
		char off[24] = " 0x"; /* as "%zx" */
		size_t n = 3;
		int shift = 60;
		while (shift > 0 && !(at >> shift))
			shift -= 4;
		for (; shift >= 0; shift -= 4)
			off[n++] = HEX[at >> shift & 15];
		strbuf_append(sb, "extra ", 6);
		strbuf_int(sb, i, 0);
		strbuf_append(sb, off, n);
		hex_text_put(sb, rest + k, e - k, at, HEX_GROUP);
		strbuf_char(sb, '\n');
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
		strbuf_append(sb, "# ", n ? 2 : 1);
		strbuf_append(sb, text, n);
		strbuf_char(sb, '\n');
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
	for (uint32_t k = 0; k < s->nparams && k < SKELETON_MAX_PARAMS; k++) {
		strbuf_char(&sb, ' ');
		strbuf_int(&sb, s->params[k], 0);
	}
	strbuf_char(&sb, '\n');
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
			const float w[3] = {b->scale[3], b->rotation[3], b->position[3]};
			strbuf_append(&sb, "w ", 2);
			strbuf_int(&sb, i, 0);
			for (int k = 0; k < 3; k++) {
				char f[TEXT_F32_MAX];
				text_f32(f, sizeof f, w[k]);
				strbuf_char(&sb, ' ');
				strbuf_str(&sb, f, 0);
			}
			strbuf_char(&sb, '\n');
		}
		if (b->count != 1) {
			strbuf_append(&sb, "section_count ", 14);
			strbuf_int(&sb, i, 0);
			strbuf_char(&sb, ' ');
			strbuf_int(&sb, b->count, 0);
			strbuf_char(&sb, '\n');
		}
		print_extra(&sb, s, i);
	}
	print_tail(&sb, s);
	return strbuf_take(&sb, len);
}
