/* SPDX-License-Identifier: MIT */
/* The float printer and parser (codecs/float_text) against the libc
 * routines they stand in for: text_f32 must print exactly what the
 * shortest "%.Pg" that strtof reads back prints (the texts' form before
 * it, which every stored text has), and text_parse_f32 must read every
 * word exactly as strtof does. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "float_text.h"
#include "rng.h"

static float from_bits(uint32_t b)
{
	float v;
	memcpy(&v, &b, sizeof v);
	return v;
}

static uint32_t to_bits(float v)
{
	uint32_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

/* The printer by printf: the least precision whose text reads back. */
static void reference_f32(char *buf, size_t len, float v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "0x%08x", to_bits(v));
		return;
	}
	if (v > -1e7f && v < 1e7f && v == (float)(long)v && !(v == 0 && signbit(v))) {
		snprintf(buf, len, "%.0f", (double)v);
		return;
	}
	for (int prec = 1; prec <= 9; prec++) {
		snprintf(buf, len, "%.*g", prec, (double)v);
		float back = strtof(buf, NULL);
		if (to_bits(back) == to_bits(v))
			return;
	}
}

/* text_f32(v) is the reference's text and reads back to v's bits. */
static void check_print(uint32_t bits)
{
	float v = from_bits(bits);
	char got[TEXT_F32_MAX], want[64];
	text_f32(got, sizeof got, v);
	reference_f32(want, sizeof want, v);
	if (strcmp(got, want)) {
		print_error("bits 0x%08x: printed \"%s\", printf's shortest is \"%s\"\n",
			    bits, got, want);
		fail();
	}
	if (isfinite(v)) {
		float back;
		assert_true(text_parse_f32(got, &back));
		assert_int_equal(to_bits(back), bits);
	}
}

static void test_print_edges(void **state)
{
	(void)state;
	static const uint32_t EDGES[] = {
		0x00000000, 0x80000000, /* zeros */
		0x00000001, 0x80000001, 0x00000002, 0x00000003, /* least subnormals */
		0x007fffff, 0x00800000, 0x00800001, /* subnormal / normal border */
		0x7f7fffff, 0xff7fffff, 0x7f7ffffe, /* largest */
		0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff, /* inf, nan */
		0x3f800000, 0x3f7fffff, 0x3f800001, /* 1 and its neighbours */
		0x4b7fffff, 0x4b800000, 0x4b800001, /* around 2^24 */
		0x4b189680, 0x4b18967f, 0x4b189681, /* 1e7 and neighbours */
		0xcb189680, 0xcb18967f,
		0x3dcccccd, 0x3e4ccccd, 0x3f000000, 0x3fc00000, /* 0.1 0.2 0.5 1.5 */
		0x3a83126f, 0x38d1b717, 0x0da24260, /* 0.001 1e-4 1e-30 */
		0x501502f9, 0x7e967699, 0x5d5e0b6b, /* 1e10 1e38 1e18 */
		0x4cbebc20, 0x4e6e6b28, /* 1e8 1e9 */
		0x47efffff, 0x49742400, 0x4974240f,
	};
	for (size_t i = 0; i < sizeof EDGES / sizeof *EDGES; i++)
		check_print(EDGES[i]);
	/* Every power of two and its neighbours, both signs: the halved gap. */
	for (uint32_t e = 0; e < 255; e++)
		for (uint32_t d = 0; d < 3; d++) {
			uint32_t b = (e << 23) + d - 1;
			check_print(b);
			check_print(b | 0x80000000u);
		}
	/* Powers of ten and their neighbours, as floats. */
	for (int x = -45; x <= 38; x++) {
		uint32_t b = to_bits((float)pow(10, x));
		for (uint32_t d = 0; d < 5; d++)
			check_print(b + d - 2);
	}
	/* Whole numbers near the plain form's end, halves, quarters. */
	for (int w = 9999990; w <= 10000010; w++) {
		check_print(to_bits((float)w));
		check_print(to_bits((float)w + 0.5f));
		check_print(to_bits(-(float)w - 0.25f));
	}
}

static void test_print_random(void **state)
{
	(void)state;
	struct rng r;
	rng_init(&r, 11, 0);
	for (int i = 0; i < 300000; i++)
		check_print((uint32_t)rng_next(&r));
	/* Floats of the magnitudes the texts hold: few digits after the
	 * point, and their neighbours. */
	for (int i = 0; i < 100000; i++) {
		float v = (float)((double)(int32_t)rng_next(&r) /
				  pow(10, (double)rng_below(&r, 12)));
		check_print(to_bits(v) + (uint32_t)rng_below(&r, 3) - 1);
	}
}

/* text_parse_f32(s) is strtof(s) on the whole word, or refuses it. */
static void check_parse(const char *s)
{
	char *end;
	float want = strtof(s, &end);
	bool ok = *s && !*end && isfinite(want);
	float got = 0;
	bool parsed = text_parse_f32(s, &got);
	if (parsed != ok || (ok && to_bits(got) != to_bits(want))) {
		print_error("\"%s\": parsed %d as 0x%08x, strtof %d as 0x%08x\n", s, parsed,
			    to_bits(got), ok, to_bits(want));
		fail();
	}
}

static void test_parse_forms(void **state)
{
	(void)state;
	static const char *const WORDS[] = {
		"0", "-0", "+0", "0.0", "-0.000", "1", "-1", "+1.5", ".5", "5.", "-.5e1",
		"1e5", "1E5", "1e+5", "1e-5", "1e", "1e+", "e5", ".", "-", "+", "", "..5",
		"1.2.3", "1e5.5", "1x", "0x1p3", "-0x1p-2", "0x", "inf", "-inf", "nan",
		"infinity", "1e39", "-1e39", "3.4028235e38", "3.4028236e38", "1e-46",
		"1e-45", "1.4e-45", "7e-46", "1.17549435e-38", "1e-22", "1e22", "1e23",
		"9007199254740993", "9007199254740992", "12345678901234567890",
		"0.00000000000000000000000000000000000000000001", "1e99999", "1e-99999",
		"0e99999", "16777217", "16777219", "33554434", "33554435", "0.1", "0.2",
		"0.3", "1.00000006", "1.00000018", "8388608.5", "8388609.5", "4194304.25",
		"1 ", " 1", "1\t", "0001", "00.0100", "-00.0e-0",
	};
	for (size_t i = 0; i < sizeof WORDS / sizeof *WORDS; i++)
		check_parse(WORDS[i]);
}

static void test_parse_random(void **state)
{
	(void)state;
	struct rng r;
	rng_init(&r, 12, 0);
	char s[64];
	for (int i = 0; i < 300000; i++) {
		/* Midpoints between floats, exactly and nearly: the cases a
		 * double cannot settle. */
		float v = from_bits((uint32_t)rng_next(&r) & 0x7f7fffff);
		double mid = ((double)v + (double)nextafterf(v, INFINITY)) / 2;
		switch (rng_below(&r, 4)) {
		case 0: snprintf(s, sizeof s, "%.*g", (int)rng_below(&r, 12) + 1, (double)v); break;
		case 1: snprintf(s, sizeof s, "%.*g", (int)rng_below(&r, 20) + 1, mid); break;
		case 2: snprintf(s, sizeof s, "%.*e", (int)rng_below(&r, 17), mid); break;
		default:
			snprintf(s, sizeof s, "%s%llu%s%d", rng_below(&r, 2) ? "-" : "",
				 (unsigned long long)(rng_next(&r) >> rng_below(&r, 64)),
				 rng_below(&r, 2) ? "e" : "e-", (int)rng_below(&r, 40));
			break;
		}
		check_parse(s);
		char t[TEXT_F32_MAX];
		text_f32(t, sizeof t, v);
		check_parse(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_edges),
		cmocka_unit_test(test_print_random),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
