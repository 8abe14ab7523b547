/* SPDX-License-Identifier: MIT */
/* The text buffer's formatters against printf, which they stand in for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"
#include "strbuf.h"

/* Appends v both ways and compares the whole buffers. */
static void check_int(struct strbuf *sb, char *want, size_t *want_len, long long v,
		      unsigned width)
{
	*want_len += (size_t)sprintf(want + *want_len, "%*lld", (int)width, v);
	strbuf_int(sb, v, width);
	assert_false(sb->failed);
	assert_int_equal(sb->len, *want_len);
	assert_string_equal(sb->buf, want);
}

static void test_int_matches_printf_at_the_edges(void **state)
{
	(void)state;
	static const long long values[] = {0, 1, -1, 9, 10, -10, 99999999, -9999999,
					   INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
	struct strbuf sb = {0};
	char *want = calloc(1, 1 << 16);
	size_t len = 0;
	assert_non_null(want);
	for (size_t i = 0; i < sizeof values / sizeof *values; i++)
		for (unsigned width = 0; width <= 24; width++)
			check_int(&sb, want, &len, values[i], width);
	free(want);
	strbuf_free(&sb);
}

static void test_int_and_char_match_printf_at_random(void **state)
{
	(void)state;
	struct rng r;
	rng_init(&r, 7, 0);
	for (int round = 0; round < 50; round++) {
		struct strbuf sb = {0};
		char *want = calloc(1, 1 << 16);
		size_t len = 0;
		assert_non_null(want);
		for (int i = 0; i < 500; i++) {
			/* Values of every magnitude, and the printers' widths. */
			long long v = (long long)(rng_next(&r) >> rng_below(&r, 64));
			if (rng_below(&r, 2))
				v = -v;
			check_int(&sb, want, &len, v, (unsigned)rng_below(&r, 12));
			if (rng_below(&r, 4) == 0) {
				want[len++] = '\n';
				strbuf_char(&sb, '\n');
			}
		}
		assert_int_equal(sb.len, len);
		assert_memory_equal(sb.buf, want, len + 1);
		free(want);
		strbuf_free(&sb);
	}
}

/* strbuf_str, strbuf_append and text_int against "%*s" and "%lld". */
static void test_str_append_and_text_int_match_printf(void **state)
{
	(void)state;
	static const char *const WORDS[] = {"", "a", "track 0", "# slot 12 runs to frame 40",
					    "0123456789012345678901234567890"};
	struct strbuf sb = {0};
	char *want = calloc(1, 1 << 16);
	size_t len = 0;
	assert_non_null(want);
	for (size_t i = 0; i < sizeof WORDS / sizeof *WORDS; i++)
		for (int width = -40; width <= 40; width += 3) {
			len += (size_t)sprintf(want + len, "%*s", width, WORDS[i]);
			strbuf_str(&sb, WORDS[i], width);
			len += (size_t)sprintf(want + len, "%.*s", (int)i, WORDS[i]);
			strbuf_append(&sb, WORDS[i], strlen(WORDS[i]) < i ? strlen(WORDS[i]) : i);
			assert_false(sb.failed);
			assert_int_equal(sb.len, len);
			assert_string_equal(sb.buf, want);
		}
	free(want);
	strbuf_free(&sb);

	static const long long INTS[] = {0, 7, -7, 10, -10, 123456789, INT32_MIN, INT64_MAX,
					 INT64_MIN};
	for (size_t i = 0; i < sizeof INTS / sizeof *INTS; i++) {
		char got[24], ref[24];
		size_t n = text_int(got, INTS[i]);
		assert_int_equal(n, (size_t)sprintf(ref, "%lld", INTS[i]));
		assert_string_equal(got, ref);
	}
}

/* strbuf_fixed against "%.*f" with its trailing zeros dropped: ties of
 * every kind (2.5 at 0 decimals, 0.125 at 2), negative zero and values
 * that round to it, magnitudes past the fast path's, then random ones. */
static void fixed_reference(char *out, size_t len, double v, int decimals)
{
	snprintf(out, len, "%.*f", decimals, v);
	char *dot = strchr(out, '.');
	if (dot) {
		char *end = out + strlen(out);
		while (end > dot + 1 && end[-1] == '0')
			end--;
		*(end == dot + 1 ? dot : end) = '\0';
	}
	if (!strcmp(out, "-0"))
		strcpy(out, "0");
}

static void check_fixed(double v, int decimals)
{
	char want[400];
	struct strbuf sb = {0};
	fixed_reference(want, sizeof want, v, decimals);
	strbuf_fixed(&sb, v, decimals);
	assert_false(sb.failed);
	if (strcmp(sb.buf, want))
		fail_msg("%.17g at %d decimals: \"%s\", printf says \"%s\"", v, decimals, sb.buf,
			 want);
	strbuf_free(&sb);
}

static void test_fixed_matches_printf(void **state)
{
	(void)state;
	static const double values[] = {0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.125,
					0.05, 0.15, 0.25, 1e-9, -1e-9, -0.004, -0.0049, 99.995,
					12.5, 1234.5678, -3, 100, 1e15, 9.2e14, 9.3e14, 1e18,
					-1e18, 1e300, 123456789.0625};
	for (size_t i = 0; i < sizeof values / sizeof *values; i++)
		for (int d = 0; d <= 6; d++)
			check_fixed(values[i], d);
	struct rng r;
	rng_init(&r, 11, 0);
	for (int i = 0; i < 200000; i++) {
		/* Values of every magnitude, and short binary fractions (ties). */
		double v = (double)(int64_t)rng_next(&r) / (double)(1ull << rng_below(&r, 63));
		if (rng_below(&r, 3) == 0)
			v = (double)(int32_t)rng_next(&r) / (double)(1u << rng_below(&r, 12));
		check_fixed(v, (int)rng_below(&r, 6));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_matches_printf_at_the_edges),
		cmocka_unit_test(test_int_and_char_match_printf_at_random),
		cmocka_unit_test(test_str_append_and_text_int_match_printf),
		cmocka_unit_test(test_fixed_matches_printf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
