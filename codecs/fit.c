/* SPDX-License-Identifier: MIT */
#include "fit.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

double fit_tolerance(uint32_t bit)
{
	return curve_kind_of(bit, NULL) == CURVE_LOC ? FIT_TOL_LOCATION : FIT_TOL_ROTATION;
}

/* v rounded to a whole raw unit (halves away from zero) and clamped to
 * s16. */
static int16_t whole(double v)
{
	if (v <= -32768)
		return INT16_MIN;
	if (v >= 32767)
		return INT16_MAX;
	return (int16_t)lround(v);
}

/* One channel being fitted: its samples, the tolerance, and scratch. */
struct fitter {
	const double *y;
	uint32_t n;
	double tol;
	double *curve;            /* n: the curve of a span being tried, by frame */
	double *low, *high;       /* n: the least and greatest sample of 0 .. t */
	double *low_to, *high_to; /* n: the same of t .. n - 1 */
	uint32_t *cubic_to;       /* n: the last frame of the one cubic from t on */
	uint32_t *near_cubic_to;  /* n: the same, the samples within rounding
				     noise of one (a file's, such as a 16-bit
				     quaternion's): as far or further */
};

/* The span from frame a to frame b (a < b): its keys' values are the
 * samples rounded; its end slopes the least squares fit of the Hermite
 * curve to the samples between, rounded.  Returns the largest distance
 * between the engine's curve through them and the samples between (at
 * a and b it is the rounded sample, within half a unit, not counted);
 * the keys into *from and *to when given. */
static double span_error(const struct fitter *f, uint32_t a, uint32_t b, struct clip_key *from,
			 struct clip_key *to)
{
	const double *y = f->y;
	double va = whole(y[a]), vb = whole(y[b]), span = (double)b - a;
	double chord = (vb - va) / span;
	struct clip_key k0 = {.value = (int16_t)va, .frame = (int16_t)a},
			k1 = {.value = (int16_t)vb, .frame = (int16_t)b};
	/* Normal equations of the slopes (m0, m1), each basis d (1-s)^2 and
	 * d (s^2 - s); a small pull towards the chord keeps a span with one
	 * frame inside (two unknowns, one sample) determined. */
	double s00 = 0, s01 = 0, s11 = 0, r0 = 0, r1 = 0;
	for (uint32_t t = a + 1; t < b; t++) {
		double d = (double)t - a, s = d / span;
		double h1 = s * s * (3 - 2 * s);
		double p0 = d * (1 - s) * (1 - s), p1 = d * (s * s - s);
		double r = y[t] - va * (1 - h1) - vb * h1;
		s00 += p0 * p0;
		s01 += p0 * p1;
		s11 += p1 * p1;
		r0 += r * p0;
		r1 += r * p1;
	}
	double m0 = chord, m1 = chord;
	if (b - a > 1) {
		double lambda = 1e-9 * (s00 + s11);
		double a00 = s00 + lambda, a11 = s11 + lambda;
		double b0 = r0 + lambda * chord, b1 = r1 + lambda * chord;
		double det = a00 * a11 - s01 * s01;
		if (det > 0) {
			m0 = (a11 * b0 - s01 * b1) / det;
			m1 = (a00 * b1 - s01 * b0) / det;
		}
	}
	k0.ease_out = whole(m0);
	k1.ease_in = whole(m1);
	if (from)
		*from = k0;
	if (to)
		*to = k1;
	if (b - a < 2)
		return 0;
	curve_sample_span(&k0, &k1, a + 1, b - 1, f->curve);
	double worst = 0;
	for (uint32_t t = a + 1; t < b; t++)
		worst = fmax(worst, fabs(f->curve[t] - y[t]));
	return worst;
}

static bool span_fits(const struct fitter *f, uint32_t a, uint32_t b)
{
	return span_error(f, a, b, NULL, NULL) <= f->tol;
}

/* The largest distance of the samples before a key at frame e (before
 * true) or after it from its value, which the curve holds there. */
static double hold_error(const struct fitter *f, uint32_t e, bool before)
{
	double v = whole(f->y[e]);
	double lo = before ? f->low[e] : f->low_to[e], hi = before ? f->high[e] : f->high_to[e];
	return fmax(hi - v, v - lo);
}

/* The furthest b in lo .. end such that span a..b fits, knowing a..lo
 * does: doubling steps, then halving between the last fit and the first
 * miss (spans are taken to fit up to some length and no further). */
static uint32_t reach_from(const struct fitter *f, uint32_t a, uint32_t lo, uint32_t end)
{
	uint32_t good = lo, bad = end + 1, step = 1;
	while (good < end) {
		uint32_t b = end - good > step ? good + step : end;
		if (!span_fits(f, a, b)) {
			bad = b;
			break;
		}
		good = b;
		step *= 2;
	}
	while (bad - good > 1) {
		uint32_t mid = good + (bad - good) / 2;
		if (span_fits(f, a, mid))
			good = mid;
		else
			bad = mid;
	}
	return good;
}

/* The furthest b such that span a..b fits, knowing a..lo does: the
 * doubling search, or further the end of the cubic the samples follow
 * from a, when that fits.  Samples of engine keys follow one cubic from
 * key to key, and only the key's own frame ends such a span: a shorter
 * one ends at a fractional value and slopes that whole ones miss. */
static uint32_t furthest(const struct fitter *f, uint32_t a, uint32_t lo)
{
	uint32_t r = reach_from(f, a, lo, f->n - 1), cubic = f->cubic_to[a];
	uint32_t near = f->near_cubic_to[a];
	if (cubic > r && span_fits(f, a, cubic))
		r = cubic;
	return near > r && span_fits(f, a, near) ? near : r;
}

/* A key at frame e, after a key at frame a (or, a == e, the first key,
 * whose hold before it is within the tolerance), is the better next key
 * when the span after it reaches further than *reach, or as far with a
 * smaller error arriving (the frame where engine keys' samples bend fits
 * with none).  Updates *best, *reach and *best_error. */
static void consider(const struct fitter *f, uint32_t a, uint32_t e, uint32_t *best,
		     uint32_t *reach, double *best_error)
{
	uint32_t lo = e + 1;
	if (*reach > e && f->near_cubic_to[e] < *reach) {
		if (!span_fits(f, e, *reach))
			return; /* reaches less far */
		lo = *reach;
	}
	double error = a == e ? hold_error(f, e, true) : span_error(f, a, e, NULL, NULL);
	if (error > f->tol)
		return;
	uint32_t r = furthest(f, e, lo);
	if (r > *reach || (r == *reach && error < *best_error)) {
		*best = e;
		*reach = r;
		*best_error = error;
	}
}

/* How far back from a span's furthest end the next key is looked for
 * among all frames; further back only where the samples' cubic from a
 * frame reaches past the best so far (an engine key's frame).  Looking
 * back further found no fewer keys in the tests, at twice the time. */
#define LOOK_BACK 8

/* The keys of a channel that is not still throughout into ch: the
 * look-back greedy of fit.h 3. */
static enum mh_err place_keys(const struct fitter *f, struct clip_channel *ch)
{
	uint32_t last = f->n - 1, a = 0, reach = 0;
	double best_error = INFINITY;
	/* The first key: any frame the samples before it hold still for. */
	for (uint32_t e = 0; e < last && f->high[e] - f->low[e] <= 2 * f->tol; e++)
		consider(f, e, e, &a, &reach, &best_error);
	struct clip_key from, to;
	span_error(f, a, a + 1, &from, NULL);
	from.ease_in = 0; /* before the first key the curve holds */
	if (!clip_add_key(ch, from))
		return MH_ENOMEM;
	for (;;) {
		/* The last key, when a span from a reaches a frame the samples
		 * after it hold still for: the one nearest them. */
		uint32_t end = 0;
		best_error = INFINITY;
		for (uint32_t e = a + 1; e <= reach; e++) {
			double error = hold_error(f, e, false);
			if (error <= f->tol && (error = fmax(error, span_error(f, a, e, NULL, NULL))) <= f->tol &&
			    error < best_error) {
				end = e;
				best_error = error;
			}
		}
		/* Else the next key: the one letting the span after it reach
		 * furthest. */
		uint32_t next = end, next_reach = 0;
		for (uint32_t e = reach; !end && e > a; e--)
			if (reach - e < LOOK_BACK || f->near_cubic_to[e] >= next_reach)
				consider(f, a, e, &next, &next_reach, &best_error);
		span_error(f, a, next, &from, &to);
		ch->keys[ch->nkeys - 1].ease_out = from.ease_out;
		if (end)
			to.ease_out = 0; /* after the last key the curve holds */
		if (!clip_add_key(ch, to))
			return MH_ENOMEM;
		if (end)
			return MH_OK;
		a = next;
		reach = next_reach;
	}
}

enum mh_err fit_channel(uint32_t bit, const double *values, uint32_t n, double tol,
			struct clip_channel *out, struct mh_diag *d)
{
	*out = (struct clip_channel){.bit = bit};
	if (n == 0 || n > FIT_FRAMES_MAX)
		return mh_fail(d, MH_ERANGE, 0, "%u frames: a channel has 1 to %u", n,
			       FIT_FRAMES_MAX);
	if (!(tol >= FIT_TOL_MIN) || !isfinite(tol))
		return mh_fail(d, MH_ERANGE, 0, "tolerance %g: at least %g raw units", tol,
			       FIT_TOL_MIN);
	for (uint32_t t = 0; t < n; t++)
		if (!(values[t] > -32768.5 && values[t] < 32767.5))
			return mh_fail(d, MH_ERANGE, t,
				       "frame %u: value %g is outside -32768..32767 raw units", t,
				       values[t]);
	struct fitter f = {.y = values, .n = n, .tol = tol};
	double lo = values[0], hi = values[0];
	for (uint32_t t = 1; t < n; t++) {
		lo = fmin(lo, values[t]);
		hi = fmax(hi, values[t]);
	}
	double still = whole((lo + hi) / 2);
	if (hi - still <= tol && still - lo <= tol) {
		/* One key holds the whole channel. */
		if (!clip_add_key(out, (struct clip_key){.value = (int16_t)still}))
			return mh_fail(d, MH_ENOMEM, 0, "out of memory");
		return MH_OK;
	}
	double *scratch = malloc(5 * (size_t)n * sizeof *scratch);
	f.cubic_to = malloc(2 * (size_t)n * sizeof *f.cubic_to);
	if (!scratch || !f.cubic_to) {
		free(scratch);
		free(f.cubic_to);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	f.curve = scratch;
	f.low = scratch + n;
	f.high = f.low + n;
	f.low_to = f.high + n;
	f.high_to = f.low_to + n;
	for (uint32_t t = 0; t < n; t++) {
		f.low[t] = t ? fmin(f.low[t - 1], values[t]) : values[t];
		f.high[t] = t ? fmax(f.high[t - 1], values[t]) : values[t];
		uint32_t u = n - 1 - t;
		f.low_to[u] = t ? fmin(f.low_to[u + 1], values[u]) : values[u];
		f.high_to[u] = t ? fmax(f.high_to[u + 1], values[u]) : values[u];
	}
	/* Five samples follow one cubic where their fourth difference is
	 * 0 (to rounding); any four do.  Samples read from a file carry its
	 * rounding, which the fourth difference multiplies by up to 16: they
	 * follow one nearly where it stays within three tolerances, and an
	 * engine key's bend, a change of slope, shows beyond that. */
	f.near_cubic_to = f.cubic_to + n;
	for (uint32_t t = n; t-- > 0;) {
		if (t + 4 >= n) {
			f.cubic_to[t] = f.near_cubic_to[t] = n - 1;
			continue;
		}
		const double *y = values + t;
		double fourth = fabs(y[0] - 4 * y[1] + 6 * y[2] - 4 * y[3] + y[4]);
		f.cubic_to[t] = fourth <= 1e-6 ? f.cubic_to[t + 1] : t + 3;
		f.near_cubic_to[t] = fourth <= 3 * tol ? f.near_cubic_to[t + 1] : t + 3;
	}
	enum mh_err rc = place_keys(&f, out);
	free(scratch);
	free(f.cubic_to);
	if (rc) {
		free(out->keys);
		*out = (struct clip_channel){.bit = bit};
		return mh_fail(d, rc, 0, "out of memory");
	}
	return MH_OK;
}

enum mh_err fit_track(const struct fit_track_samples *s, uint32_t n, struct clip *c,
		      struct mh_diag *d)
{
	struct clip_track *t = clip_add_track(c, 0);
	if (!t)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t i = 0; i < CURVE_CHANNELS; i++) {
		if (!s->samples[i])
			continue;
		uint32_t bit = 1u << i;
		struct clip_channel fitted;
		struct mh_diag why = {0};
		bool rotation = !(bit & (CLIP_LOC_X | CLIP_LOC_Y | CLIP_LOC_Z));
		double tol = s->tolerance[rotation ? 0 : 1];
		enum mh_err rc = fit_channel(bit, s->samples[i], n, tol > 0 ? tol : fit_tolerance(bit),
					     &fitted, &why);
		struct clip_channel *ch = rc ? NULL : clip_add_channel(t, bit);
		if (!ch) {
			free(fitted.keys);
			for (uint32_t k = 0; k < t->nchannels; k++)
				free(t->channels[k].keys);
			free(t->channels);
			c->ntracks--;
			if (!rc)
				return mh_fail(d, MH_ENOMEM, 0, "out of memory");
			return mh_fail(d, rc, why.offset, "%s: %s", clip_channel_name(bit), why.msg);
		}
		*ch = fitted; /* the builder's channel takes the fitted keys */
	}
	return MH_OK;
}

enum mh_err fit_clip(const struct fit_track_samples *tracks, uint32_t ntracks, uint32_t n,
		     uint32_t loop, float loop_start, struct clip *out, struct mh_diag *d)
{
	*out = (struct clip){.loop = loop, .loop_start = loop_start};
	struct clip_channel *first = NULL;
	int32_t end = -1;
	for (uint32_t i = 0; i < ntracks; i++) {
		struct mh_diag why = {0};
		enum mh_err rc = fit_track(&tracks[i], n, out, &why);
		if (rc) {
			clip_free(out);
			*out = (struct clip){0};
			return mh_fail(d, rc, why.offset, "track %u %s", i, why.msg);
		}
		const struct clip_track *t = &out->tracks[i];
		for (uint32_t c = 0; c < t->nchannels; c++) {
			const struct clip_channel *ch = &t->channels[c];
			if (ch->keys[ch->nkeys - 1].frame > end)
				end = ch->keys[ch->nkeys - 1].frame;
		}
		if (!first && t->nchannels)
			first = &t->channels[0];
	}
	if (first && end < (int32_t)n - 1) {
		/* Keep the clip's length: the first channel holds to the end. */
		struct clip_key hold = first->keys[first->nkeys - 1];
		hold.frame = (int16_t)(n - 1);
		hold.ease_in = 0;
		if (!clip_add_key(first, hold)) {
			clip_free(out);
			*out = (struct clip){0};
			return mh_fail(d, MH_ENOMEM, 0, "out of memory");
		}
	}
	return MH_OK;
}
