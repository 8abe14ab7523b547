/* SPDX-License-Identifier: MIT */
/* Bytes as hex in the texts: the `tail` lines pack.txt and skeleton.txt
 * share (mhfu-clip(5)), "tail HEX..." and "tail zeros N", printed and
 * parsed here for both; and the hex words they are made of, which
 * skeleton.txt's extra lines use too. */
#ifndef MH_HEX_TEXT_H
#define MH_HEX_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "lex.h"
#include "strbuf.h"

/* Bytes a hex word holds at most. */
#define HEX_TEXT_WORD_MAX (LEX_WORD_MAX / 2)

/* p[0..n), found at offset `at` of their file, as hex pairs: a blank
 * before the first and before each one at a multiple of `group`. */
void hex_text_put(struct strbuf *sb, const uint8_t *p, size_t n, uint64_t at,
		  unsigned group);

/* The end of a line of hex that holds bytes [from, to) of a run starting
 * at offset `at`: `per_line` bytes past the `group`-aligned offset at or
 * before the line's first byte, or `to` if sooner. */
size_t hex_text_line_end(uint64_t at, size_t from, size_t to, size_t per_line,
			 unsigned group);

/* The value of hex digit c, -1 if it is none. */
int hex_text_digit(char c);

/* A word of hex digit pairs into out[HEX_TEXT_WORD_MAX]; *n bytes.
 * MH_ESYNTAX at the first non-hex digit, or at the word when its digits
 * are odd in number. */
enum mh_err hex_text_word(const struct lex_word *w, uint8_t *out, size_t *n,
			  struct mh_diag *d);

/* How a text lays out its tail lines. */
struct tail_layout {
	size_t zero_run;   /* zero runs this long or longer: "tail zeros N" */
	size_t per_line;   /* bytes on a "tail" line at most */
	unsigned group;    /* a blank before every group-th byte */
	bool file_aligned; /* lines and groups fall on the file's offsets
			    * (the tail starting at `at`); else they count
			    * from each line's first byte */
	uint64_t at;       /* the tail's offset in its file */
};

/* The tail lines of p[0..n): zero runs as "tail zeros N", other bytes as
 * "tail" lines of hex words.  Nothing when n is 0. */
void hex_text_print_tail(struct strbuf *sb, const uint8_t *p, size_t n,
			 const struct tail_layout *layout);

/* The tail a text's tail lines build up; zero-initialize, then the
 * parser moves p and len into its model or frees p. */
struct tail_bytes {
	uint8_t *p;
	size_t len, cap;
};

/* Parses what follows a line's "tail" keyword into *t: hex words
 * appended, or "zeros N" appending N zero bytes (N from min_zeros); the
 * whole tail at most max bytes (MH_ERANGE past it). */
enum mh_err hex_text_parse_tail(struct lex *lx, struct tail_bytes *t,
				size_t max, uint32_t min_zeros,
				struct mh_diag *d);

#endif
