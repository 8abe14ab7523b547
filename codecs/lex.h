/* SPDX-License-Identifier: MIT */
/* A line-oriented lexer for the text formats: '#' starts a comment, blank
 * lines are free, words are separated by blanks.  Every token knows its
 * line and column, so parse errors can say file:line:col. */
#ifndef MH_LEX_H
#define MH_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Longest word the lexer returns; longer ones are a syntax error. */
#define LEX_WORD_MAX 64

struct lex {
	const char *p, *end; /* the unread text */
	const char *bol;     /* where the line of *p begins */
	unsigned line, col;  /* of *p, 1-based (col as each call returns) */
};

struct lex_word {
	char text[LEX_WORD_MAX + 1];
	unsigned line, col;  /* where it starts */
};

void lex_init(struct lex *lx, const char *text, size_t len);

/* Moves to the next line that holds a word; false at the end of text.
 * Fails (MH_ESYNTAX via *err) on a NUL byte. */
bool lex_next_line(struct lex *lx, enum mh_err *err, struct mh_diag *d);

/* Reads the next word of the current line; false at the line's end or a
 * comment.  A too-long word sets *err. */
bool lex_word(struct lex *lx, struct lex_word *w, enum mh_err *err,
	      struct mh_diag *d);

/* Like lex_word, but a missing word is an error saying what was expected. */
enum mh_err lex_expect(struct lex *lx, struct lex_word *w, const char *what,
		       struct mh_diag *d);

/* Moves past the rest of the current line (to its newline, which
 * lex_next_line then takes). */
void lex_skip_line(struct lex *lx);

/* Fails unless nothing but blanks or a comment remains on the line. */
enum mh_err lex_end_of_line(struct lex *lx, struct mh_diag *d);

/* Integer words: decimal or 0x hex, optional sign, within [min, max]. */
enum mh_err lex_int(const struct lex_word *w, int64_t min, int64_t max,
		    int64_t *v, struct mh_diag *d);

/* A float word: a decimal number, or 0xXXXXXXXX giving the bits. */
enum mh_err lex_f32(const struct lex_word *w, float *v, struct mh_diag *d);

#endif
