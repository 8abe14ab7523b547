/* SPDX-License-Identifier: MIT */
/* The texts' lexer (codecs/lex): words and where they are, the errors it
 * names, and its numbers (mhfu-clip(5): decimal or 0x hexadecimal with a
 * sign, a leading zero not octal; floats as strtof reads them or as
 * 0x and eight hex digits of their bits). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lex.h"

/* The next word, which must be `want` at line:col. */
static void expect_word(struct lex *lx, const char *want, unsigned line, unsigned col)
{
	struct lex_word w;
	enum mh_err err;
	assert_true(lex_word(lx, &w, &err, NULL));
	assert_int_equal(err, MH_OK);
	assert_string_equal(w.text, want);
	assert_int_equal(w.line, line);
	assert_int_equal(w.col, col);
}

static void test_words_and_where_they_are(void **state)
{
	(void)state;
	static const char TEXT[] = "# a comment\n\n  track 3\tmask 0x7 # note\r\n"
				   "\t \n   1  -2 +3\n# end";
	struct lex lx;
	enum mh_err err;
	struct lex_word w;
	lex_init(&lx, TEXT, sizeof TEXT - 1);
	assert_true(lex_next_line(&lx, &err, NULL));
	assert_int_equal(lx.line, 3);
	assert_int_equal(lx.col, 3);
	expect_word(&lx, "track", 3, 3);
	expect_word(&lx, "3", 3, 9);
	expect_word(&lx, "mask", 3, 11);
	expect_word(&lx, "0x7", 3, 16);
	assert_false(lex_word(&lx, &w, &err, NULL)); /* the comment ends it */
	assert_int_equal(err, MH_OK);
	assert_true(lex_next_line(&lx, &err, NULL));
	expect_word(&lx, "1", 5, 4);
	expect_word(&lx, "-2", 5, 7);
	expect_word(&lx, "+3", 5, 10);
	assert_int_equal(lex_end_of_line(&lx, NULL), MH_OK);
	assert_false(lex_next_line(&lx, &err, NULL));
	assert_int_equal(err, MH_OK);
	assert_int_equal(lx.line, 6);
}

static void test_errors_name_the_place(void **state)
{
	(void)state;
	struct lex lx;
	struct lex_word w;
	enum mh_err err;
	struct mh_diag d = {0};

	static const char NUL[] = "loop 1\nchannel ro\0t_x\n";
	lex_init(&lx, NUL, sizeof NUL - 1);
	assert_true(lex_next_line(&lx, &err, &d));
	expect_word(&lx, "loop", 1, 1);
	expect_word(&lx, "1", 1, 6);
	assert_true(lex_next_line(&lx, &err, &d));
	expect_word(&lx, "channel", 2, 1);
	assert_false(lex_word(&lx, &w, &err, &d));
	assert_int_equal(err, MH_ESYNTAX);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 11);
	assert_string_equal(d.msg, "NUL byte in text");

	char text[2 * LEX_WORD_MAX + 8];
	memset(text, 'a', sizeof text);
	text[0] = ' ';
	text[LEX_WORD_MAX + 1] = ' '; /* a word of exactly the most */
	lex_init(&lx, text, sizeof text);
	assert_true(lex_word(&lx, &w, &err, &d));
	assert_int_equal(strlen(w.text), LEX_WORD_MAX);
	assert_false(lex_word(&lx, &w, &err, &d)); /* and one longer */
	assert_int_equal(err, MH_ESYNTAX);
	assert_int_equal(d.col, LEX_WORD_MAX + 3);
	assert_string_equal(d.msg, "word longer than 64 characters");

	lex_init(&lx, "track\n", 6);
	assert_true(lex_word(&lx, &w, &err, &d));
	assert_int_equal(lex_expect(&lx, &w, "the track's number", &d), MH_ESYNTAX);
	assert_int_equal(d.col, 6);
	assert_string_equal(d.msg, "expected the track's number");
	assert_int_equal(lex_end_of_line(&lx, &d), MH_OK);
	lex_init(&lx, "a b", 3);
	assert_true(lex_word(&lx, &w, &err, &d));
	assert_int_equal(lex_end_of_line(&lx, &d), MH_ESYNTAX);
	assert_string_equal(d.msg, "unexpected \"b\" at the end of the line");
}

/* lex_int of a word: its value, or the error and its message. */
static void expect_int(const char *text, int64_t min, int64_t max, enum mh_err want,
		       int64_t value, const char *msg)
{
	struct lex_word w = {.line = 4, .col = 2};
	struct mh_diag d = {0};
	snprintf(w.text, sizeof w.text, "%s", text);
	int64_t v = -12345;
	assert_int_equal(lex_int(&w, min, max, &v, &d), want);
	if (want == MH_OK) {
		assert_int_equal(v, value);
	} else {
		assert_int_equal(v, -12345);
		assert_int_equal(d.line, 4);
		assert_int_equal(d.col, 2);
		assert_string_equal(d.msg, msg);
	}
}

static void test_integers(void **state)
{
	(void)state;
	expect_int("0", -9, 9, MH_OK, 0, NULL);
	expect_int("-0", -9, 9, MH_OK, 0, NULL);
	expect_int("+7", -9, 9, MH_OK, 7, NULL);
	expect_int("-32768", INT16_MIN, INT16_MAX, MH_OK, -32768, NULL);
	expect_int("007", 0, 9, MH_OK, 7, NULL);
	expect_int("08", 0, 9, MH_OK, 8, NULL); /* not octal, nor refused as it */
	expect_int("-010", -99, 99, MH_OK, -10, NULL);
	expect_int("0x1f", 0, 99, MH_OK, 31, NULL);
	expect_int("-0X10", -99, 99, MH_OK, -16, NULL);
	expect_int("999999999999999999", 0, INT64_MAX, MH_OK, 999999999999999999, NULL);
	expect_int("9223372036854775807", 0, INT64_MAX, MH_OK, INT64_MAX, NULL);
	expect_int("9223372036854775808", 0, INT64_MAX, MH_ESYNTAX, 0,
		   "expected an integer, got \"9223372036854775808\"");
	expect_int("12a", 0, 99, MH_ESYNTAX, 0, "expected an integer, got \"12a\"");
	expect_int("-", 0, 99, MH_ESYNTAX, 0, "expected an integer, got \"-\"");
	expect_int("1.5", 0, 99, MH_ESYNTAX, 0, "expected an integer, got \"1.5\"");
	expect_int("32768", INT16_MIN, INT16_MAX, MH_ERANGE, 0, "32768 is outside -32768..32767");
	expect_int("-0x81", -128, 127, MH_ERANGE, 0, "-0x81 is outside -128..127");
}

static void test_floats(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint32_t bits;
	} OK[] = {{"1", 0x3f800000}, {"-1.5", 0xbfc00000}, {"0x3f800000", 0x3f800000},
		  {"0x7fc00000", 0x7fc00000}, {"1e-3", 0x3a83126f}, {"-0", 0x80000000},
		  {"3.4028235e38", 0x7f7fffff}};
	for (size_t i = 0; i < sizeof OK / sizeof *OK; i++) {
		struct lex_word w = {.line = 1, .col = 1};
		snprintf(w.text, sizeof w.text, "%s", OK[i].text);
		float v;
		uint32_t b;
		assert_int_equal(lex_f32(&w, &v, NULL), MH_OK);
		memcpy(&b, &v, sizeof b);
		assert_int_equal(b, OK[i].bits);
	}
	static const char *const BAD[] = {"1e39", "inf", "nan", "1.2.3", "0x3f80", "x"};
	for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
		struct lex_word w = {.line = 1, .col = 1};
		struct mh_diag d = {0};
		snprintf(w.text, sizeof w.text, "%s", BAD[i]);
		float v;
		assert_int_equal(lex_f32(&w, &v, &d), MH_ESYNTAX);
		assert_non_null(strstr(d.msg, BAD[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_and_where_they_are),
		cmocka_unit_test(test_errors_name_the_place),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_floats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
