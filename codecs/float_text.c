/* SPDX-License-Identifier: MIT */
/* Floats as text (float_text.h).
 *
 * Printing.  A finite nonzero float is v = m * 2^e (m < 2^24).  Every real
 * in the interval between the midpoints to its neighbours reads back to
 * v (the midpoints themselves do when m is even: strtof breaks ties to
 * even).  "%.Pg" prints v rounded to P significant digits, so the
 * shortest such text is the rounding, for the least P, that falls in the
 * interval.  All three values -- v and the two midpoints, each a multiple
 * of 2^(e-2) -- are scaled by 10^-(k-9), k being v's decimal exponent, to
 * an integer part of ten digits and a flag saying whether anything was
 * cut off; exactly, in a few limbs (5^54 * 2^26 is the largest product).
 * Every rounding to P <= 9 digits is then an integer of that scale, and
 * the choice of P, the rounding (half to even, as printf rounds the exact
 * value) and the interval test are plain 64-bit arithmetic.
 *
 * Parsing.  A decimal of at most 2^53 significant units and a power of
 * ten within 10^+-22 gives a correctly rounded double with one
 * multiplication or division of exact doubles.  Rounding that double to
 * a float rounds the exact value the same way unless the double landed
 * on a midpoint between two floats (then the exact value may lie on
 * either side, or on it): those, and every other form, go to strtof. */
#include "float_text.h"

#include "strbuf.h" /* text_int */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- exact scaling ------------------------------------------------------ */

#define BIG_LIMBS 6 /* 192 bits: 2^26 * 5^54 < 2^152, 2^26 * 2^101 < 2^128 */

/* An unsigned integer, 32-bit limbs, least significant first; the limbs
 * from n up are zero (the loops run over the n in use, mostly one or
 * two). */
struct big {
	uint32_t w[BIG_LIMBS];
	int n;
};

static void big_mul(struct big *b, uint32_t f)
{
	uint64_t carry = 0;
	for (int i = 0; i < b->n; i++) {
		uint64_t x = (uint64_t)b->w[i] * f + carry;
		b->w[i] = (uint32_t)x;
		carry = x >> 32;
	}
	if (carry)
		b->w[b->n++] = (uint32_t)carry;
}

/* b /= d; whether the division left a remainder. */
static bool big_div(struct big *b, uint32_t d)
{
	uint64_t rem = 0;
	for (int i = b->n - 1; i >= 0; i--) {
		uint64_t x = rem << 32 | b->w[i];
		b->w[i] = (uint32_t)(x / d);
		rem = x % d;
	}
	while (b->n && !b->w[b->n - 1])
		b->n--;
	return rem != 0;
}

static const uint32_t POW5[14] = {
	1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625,
	48828125, 244140625, 1220703125,
};

static void big_mul_pow5(struct big *b, unsigned n)
{
	for (; n >= 13; n -= 13)
		big_mul(b, POW5[13]);
	big_mul(b, POW5[n]);
}

/* b /= 5^n; whether anything was cut off. */
static bool big_div_pow5(struct big *b, unsigned n)
{
	bool cut = false;
	for (; n >= 13; n -= 13)
		cut |= big_div(b, POW5[13]);
	return big_div(b, POW5[n]) | cut;
}

/* b <<= n (n >= 0) or b >>= -n; whether bits were cut off. */
static bool big_shift(struct big *b, int n)
{
	struct big r = {{0}, 0};
	bool cut = false;
	if (n >= 0) {
		int limbs = n / 32, bits = n % 32;
		for (int i = b->n - 1; i >= 0; i--) {
			uint64_t x = (uint64_t)b->w[i] << bits;
			r.w[i + limbs] |= (uint32_t)x;
			if (x >> 32)
				r.w[i + limbs + 1] |= (uint32_t)(x >> 32);
		}
		r.n = b->n ? b->n + limbs + 1 : 0;
	} else {
		int limbs = -n / 32, bits = -n % 32;
		for (int i = 0; i < b->n; i++) {
			if (i < limbs || (i == limbs && (b->w[i] & ((1u << bits) - 1))))
				cut |= b->w[i] != 0;
			if (i < limbs)
				continue;
			uint64_t x = (uint64_t)b->w[i] << 32 >> bits;
			r.w[i - limbs] |= (uint32_t)(x >> 32);
			if (i > limbs)
				r.w[i - limbs - 1] |= (uint32_t)x;
		}
		r.n = b->n > limbs ? b->n - limbs : 0;
	}
	while (r.n && !r.w[r.n - 1])
		r.n--;
	*b = r;
	return cut;
}

/* 5^n for n <= 27: less than 2^63. */
static uint64_t pow5(unsigned n)
{
	static const uint64_t P[28] = {
		1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull,
		1953125ull, 9765625ull, 48828125ull, 244140625ull, 1220703125ull,
		6103515625ull, 30517578125ull, 152587890625ull, 762939453125ull,
		3814697265625ull, 19073486328125ull, 95367431640625ull, 476837158203125ull,
		2384185791015625ull, 11920928955078125ull, 59604644775390625ull,
		298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull,
	};
	return P[n];
}

__extension__ typedef unsigned __int128 u128;

/* c * 2^e2 / 10^s: its integer part (< 2^64 for the s chosen), and in
 * *cut whether a fraction was dropped. */
static uint64_t scaled(uint32_t c, int e2, int s, bool *cut)
{
	/* The usual values (magnitudes below 1e9, so s <= 0): c * 5^-s fits
	 * 128 bits (c < 2^27), and the power of two is a shift of it. */
	if (s <= 0 && s >= -27) {
		u128 x = (u128)c * pow5((unsigned)-s);
		int n = e2 - s;
		if (n >= 0 && n < 64) {
			*cut = false;
			return (uint64_t)(x << n);
		}
		if (n < 0 && n > -128) {
			*cut = (x & (((u128)1 << -n) - 1)) != 0;
			return (uint64_t)(x >> -n);
		}
	}
	struct big b = {{c}, c != 0};
	if (s < 0)
		big_mul_pow5(&b, (unsigned)-s);
	*cut = big_shift(&b, e2 - s);
	if (s > 0)
		*cut |= big_div_pow5(&b, (unsigned)s);
	return (uint64_t)b.w[1] << 32 | b.w[0];
}

/* ---- printing ------------------------------------------------------------ */

static const uint64_t POW10[11] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
};

/* The digits of n (no trailing zeros) at decimal exponent x, as "%.Pg"
 * lays them out: scientific below 1e-4 and from 10^P up; the length. */
static size_t put_g(char *buf, bool neg, uint64_t n, int x, unsigned prec)
{
	char digits[20];
	while (n % 10 == 0)
		n /= 10;
	size_t nd = text_int(digits, (long long)n);
	char *o = buf;
	if (neg)
		*o++ = '-';
	if (x < -4 || x >= (int)prec) {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, nd - 1);
			o += nd - 1;
		}
		*o++ = 'e';
		*o++ = x < 0 ? '-' : '+';
		unsigned ax = (unsigned)(x < 0 ? -x : x);
		if (ax < 10)
			*o++ = '0';
		o += text_int(o, ax);
	} else if (x >= 0) {
		for (size_t i = 0; i < nd || i <= (size_t)x; i++) {
			if (i == (size_t)x + 1)
				*o++ = '.';
			*o++ = i < nd ? digits[i] : '0';
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = -1; i > x; i--)
			*o++ = '0';
		memcpy(o, digits, nd);
		o += nd;
	}
	*o = '\0';
	return (size_t)(o - buf);
}

/* Whether integer c (at the common scale) is within the interval whose
 * ends are lo and hi (integer part, *_cut: a fraction dropped), the ends
 * themselves counting when `ends`. */
static bool within(uint64_t c, uint64_t lo, bool lo_cut, uint64_t hi, bool hi_cut,
		   bool ends)
{
	bool above_lo = c > lo || (ends && c == lo && !lo_cut);
	bool below_hi = c < hi || (c == hi && (hi_cut || ends));
	return above_lo && below_hi;
}

/* v (ten digits, *cut: a fraction dropped below them) rounded to a
 * multiple of unit, half to even, as the digits printf gives. */
static inline uint64_t round_at(uint64_t v, bool cut, uint64_t unit)
{
	uint64_t n = v / unit, rest = v - n * unit;
	if (rest > unit / 2 || (rest == unit / 2 && (cut || n % 2)))
		n++;
	return n;
}

/* The shortest text of finite nonzero |v| (bits without the sign); its
 * length. */
static size_t shortest(char *buf, bool neg, uint32_t bits)
{
	uint32_t frac = bits & 0x7fffff, bexp = bits >> 23;
	uint32_t m = bexp ? frac | 0x800000 : frac;
	int e = bexp ? (int)bexp - 150 : -149;
	/* The gap below is half as wide at a power of two (but not below
	 * the least normal, whose neighbour is spaced as it is). */
	uint32_t lo_c = 4 * m - (frac == 0 && bexp > 1 ? 1 : 2);
	bool even = m % 2 == 0, cut, lo_cut, hi_cut;

	/* v's decimal exponent from its binary one (log10(2) ~ 78913 / 2^18:
	 * at most one off, which the loop below mends), not from log10(). */
	int b2 = e + 31 - __builtin_clz(m);
	int k = b2 >= 0 ? (b2 * 78913) >> 18 : -((-b2 * 78913 + (1 << 18) - 1) >> 18);
	uint64_t v;
	for (;;) { /* k such that v has ten digits */
		v = scaled(4 * m, e - 2, k - 9, &cut);
		if (v >= POW10[10])
			k++;
		else if (v < POW10[9])
			k--;
		else
			break;
	}
	uint64_t lo = scaled(lo_c, e - 2, k - 9, &lo_cut);
	uint64_t hi = scaled(4 * m + 2, e - 2, k - 9, &hi_cut);
	/* The least precision whose rounding of v is within the interval.
	 * Most floats need 7 to 9 digits, so the search goes down from 9,
	 * stopping at the first that is not: where the interval is the same
	 * on both sides of v (v not a power of two), a rounding to p digits
	 * within it means one to p + 1 digits is too (it is nearer v).  At a
	 * power of two, the gap below is half the gap above: up from 1. */
	uint64_t n = round_at(v, cut, POW10[1]);
	unsigned prec = 9;
	if (frac) {
#define DOWN(p)                                                                   \
	do {                                                                      \
		uint64_t np = round_at(v, cut, POW10[10 - (p)]);                  \
		if (!within(np * POW10[10 - (p)], lo, lo_cut, hi, hi_cut, even)) \
			goto found;                                               \
		n = np;                                                           \
		prec = (p);                                                       \
	} while (0)
		DOWN(8);
		DOWN(7);
		DOWN(6);
		DOWN(5);
		DOWN(4);
		DOWN(3);
		DOWN(2);
		DOWN(1);
#undef DOWN
	} else {
		for (prec = 1; prec < 9; prec++) {
			n = round_at(v, cut, POW10[10 - prec]);
			if (within(n * POW10[10 - prec], lo, lo_cut, hi, hi_cut, even))
				goto found;
		}
		n = round_at(v, cut, POW10[1]);
	}
found:
	return put_g(buf, neg, n, k + (n == POW10[prec]), prec);
}

size_t text_f32(char *buf, size_t len, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	if (!isfinite(v)) {
		int n = snprintf(buf, len, "0x%08x", bits);
		return len ? ((size_t)n < len ? (size_t)n : len - 1) : 0;
	}
	char out[TEXT_F32_MAX];
	size_t n;
	/* Whole numbers print plainly ("10", not the shorter "1e+01"). */
	if (v > -1e7f && v < 1e7f && v == (float)(long)v && !(v == 0 && signbit(v)))
		n = text_int(out, (long)v);
	else if (v == 0)
		n = (size_t)snprintf(out, sizeof out, "-0");
	else
		n = shortest(out, bits >> 31, bits & 0x7fffffff);
	if (len) {
		n = n < len - 1 ? n : len - 1;
		memcpy(buf, out, n);
		buf[n] = '\0';
	}
	return len ? n : 0;
}

void strbuf_f32(struct strbuf *sb, float v)
{
	char buf[TEXT_F32_MAX];
	strbuf_append(sb, buf, text_f32(buf, sizeof buf, v));
}

/* ---- parsing ------------------------------------------------------------- */

static const double EXACT10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The plain decimal s, [+-]digits[.digits][(e|E)[+-]digits], as its sign,
 * significant digits w (< 2^53) and power of ten; false for any other
 * form or a w too long for a double. */
static bool plain_decimal(const char *s, bool *neg, uint64_t *w, int *exp10)
{
	const char *p = s;
	int digits = 0, x = 0;
	bool any = false;
	*neg = *p == '-';
	if (*p == '+' || *p == '-')
		p++;
	*w = 0;
	for (bool point = false;; p++) {
		if (*p == '.' && !point) {
			point = true;
			continue;
		}
		if (*p < '0' || *p > '9')
			break;
		any = true;
		if (*w || *p != '0') {
			if (++digits > 16)
				return false;
			*w = *w * 10 + (uint64_t)(*p - '0');
		}
		if (point)
			x--;
	}
	if (!any || *w > (1ull << 53))
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		bool eneg = *p == '-';
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return false;
		int ev = 0;
		for (; *p >= '0' && *p <= '9'; p++)
			if ((ev = ev * 10 + (*p - '0')) > 9999)
				return false;
		x += eneg ? -ev : ev;
	}
	*exp10 = x;
	return *p == '\0';
}

bool text_parse_f32(const char *s, float *v)
{
	bool neg;
	uint64_t w;
	int x;
	if (plain_decimal(s, &neg, &w, &x) && (w == 0 || (x >= -22 && x <= 22))) {
		double q = w == 0 ? 0.0 : x >= 0 ? (double)w * EXACT10[x] :
			   (double)w / EXACT10[-x];
		uint64_t qb;
		memcpy(&qb, &q, sizeof qb);
		/* A midpoint between floats: its low 29 bits are 1 << 28. */
		if ((qb & ((1ull << 29) - 1)) != 1ull << 28) {
			float f = (float)q;
			*v = neg ? -f : f;
			return true;
		}
	}
	char *end;
	float f = strtof(s, &end);
	if (!*s || *end || !isfinite(f))
		return false;
	*v = f;
	return true;
}
