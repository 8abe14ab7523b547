/* SPDX-License-Identifier: MIT */
/* Floats in the texts (mhfu-clip(5)): printed in the shortest decimal
 * that reads back to the same bits, parsed back exactly.  Both are on the
 * printers' and parsers' hot path (every skeleton cell, every clip's loop
 * start), so neither goes through printf or, in the common case, strtof:
 * the printer works in exact integer arithmetic, the parser takes
 * strtof's answer only for the inputs a double cannot settle. */
#ifndef MH_FLOAT_TEXT_H
#define MH_FLOAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Room text_f32 needs: "-1.23456789e-38" and its NUL, with margin. */
#define TEXT_F32_MAX 32

/* v as the shortest "%.Pg" (P = 1..9) that reads back (strtof) to exactly
 * v's bits, whole numbers below 1e7 without an exponent ("1500");
 * non-finite values print as their bits, "0x7fc00000".  buf >= 32.
 * Returns the length written. */
size_t text_f32(char *buf, size_t len, float v);

/* text_f32 of v appended to sb. */
struct strbuf;
void strbuf_f32(struct strbuf *sb, float v);

/* s as strtof reads it, when all of s is a finite number (strtof's
 * syntax: sign, digits, point, exponent, or its hex, inf and nan forms);
 * false otherwise, *v untouched. */
bool text_parse_f32(const char *s, float *v);

#endif
