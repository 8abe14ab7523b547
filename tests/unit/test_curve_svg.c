/* SPDX-License-Identifier: MIT */
/* Clips drawn as SVG (codecs/curve_svg.h): the document's frame, its
 * escaping, one plot per channel naming track, joint and channel, the
 * curve's points at the keys, entries' parts.  Well-formedness over the
 * sample's every plot, and rendering, are tests/mount/svg_test.sh's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "curve.h"
#include "curve_svg.h"
#include "entries.h"
#include "rng.h"
#include "tigrex.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void add_channel(struct clip_track *t, uint32_t bit, const struct clip_key *keys,
			uint32_t n)
{
	struct clip_channel *ch = clip_add_channel(t, bit);
	assert_non_null(ch);
	for (uint32_t i = 0; i < n; i++)
		assert_non_null(clip_add_key(ch, keys[i]));
}

/* Track 0: rot_x with two keys sharing frame 10, loc_y, a bit without a
 * name, a channel without keys; track 1: no channels. */
static struct clip sample_clip(void)
{
	struct clip c = {0};
	struct clip_track *t = clip_add_track(&c, 0);
	assert_non_null(t);
	const struct clip_key rot[] = {{-40, 0, 0, 13}, {100, 10, -20, 0}, {300, 10, 0, 0},
				       {-7, 30, 5, 0}};
	const struct clip_key loc[] = {{32, 4, 0, 0}};
	const struct clip_key odd[] = {{16, 0, 0, 0}, {17, 30, 0, 0}};
	add_channel(t, CLIP_ROT_X, rot, 4);
	add_channel(t, CLIP_LOC_Y, loc, 1);
	add_channel(t, 0x1000, odd, 2);
	add_channel(t, CLIP_SCL_X, NULL, 0);
	assert_non_null(clip_add_track(&c, 0));
	return c;
}

/* The points="..." of the n-th polyline (from 0), malloc'ed. */
static char *polyline_points(const char *svg, int n)
{
	const char *p = svg;
	for (int i = 0; i <= n; i++) {
		p = strstr(p, "<polyline");
		assert_non_null(p);
		p++;
	}
	p = strstr(p, "points=\"");
	assert_non_null(p);
	p += 8;
	const char *end = strchr(p, '"');
	assert_non_null(end);
	char *out = malloc((size_t)(end - p) + 3);
	assert_non_null(out);
	/* Spaces around, so " F,V " finds whole points. */
	snprintf(out, (size_t)(end - p) + 3, " %.*s ", (int)(end - p), p);
	return out;
}

static void a_document_with_a_plot_per_channel(void **state)
{
	(void)state;
	struct clip c = sample_clip();
	struct curve_svg_section s = {.heading = NULL, .clip = &c, .part = -1, .first_joint = 5};
	size_t len;
	char *svg = curve_svg("clip <a> & \"b\" 'c'", &s, 1, 30, &len);
	assert_non_null(svg);
	assert_int_equal(strlen(svg), len);
	assert_memory_equal(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44);
	assert_non_null(strstr(svg, " xmlns=\"http://www.w3.org/2000/svg\""));
	assert_string_equal(svg + len - 7, "</svg>\n");
	/* The title, escaped, in <title> and as the first line. */
	assert_int_equal(count(svg, "clip &lt;a&gt; &amp; &quot;b&quot; &apos;c&apos;"), 2);
	assert_null(strstr(svg, "<a>"));

	assert_int_equal(count(svg, "<g class=\"plot\""), 4);
	assert_non_null(strstr(svg, "data-track=\"0\" data-joint=\"5\" data-channel=\"rot_x\" "
				    "data-unit=\"deg\""));
	assert_non_null(strstr(svg, "data-channel=\"loc_y\" data-unit=\"units\""));
	assert_non_null(strstr(svg, "data-channel=\"0x1000\" data-unit=\"raw\""));
	assert_non_null(strstr(svg, "data-channel=\"scl_x\" data-unit=\"scale\""));
	assert_non_null(strstr(svg, ">track 0, joint 5: rot_x</text>"));
	assert_non_null(strstr(svg, ">track 1, joint 6: no channels</text>"));
	assert_int_equal(count(svg, ">no keys</text>"), 1);
	assert_int_equal(count(svg, "<polyline"), 3);
	assert_int_equal(count(svg, "<circle"), 4 + 1 + 2);

	/* rot_x: every key's frame carries its value; frame 10 arrives at the
	 * first key there and leaves from the second. */
	char *pts = polyline_points(svg, 0);
	assert_non_null(strstr(pts, " 0,-40 "));
	assert_non_null(strstr(pts, " 10,100 10,300 "));
	assert_non_null(strstr(pts, " 30,-7 "));
	free(pts);
	/* loc_y: one key at frame 4, held from frame 0 to the end. */
	pts = polyline_points(svg, 1);
	assert_string_equal(pts, " 0,32 4,32 30,32 ");
	free(pts);
	free(svg);
	clip_free(&c);
}

static void joints_unknown_and_parts(void **state)
{
	(void)state;
	struct clip c = sample_clip();
	struct curve_svg_section s[] = {
		{.heading = "part 0 keeps its clip", .part = 0, .first_joint = -1},
		{.heading = "part 1: here", .clip = &c, .part = 1, .first_joint = -1},
	};
	char *svg = curve_svg("t", s, 2, 0, NULL);
	assert_non_null(svg);
	assert_non_null(strstr(svg, ">part 0 keeps its clip</text>"));
	assert_non_null(strstr(svg, ">part 1: here</text>"));
	assert_int_equal(count(svg, "data-part=\"1\" data-track=\"0\" data-channel="), 4);
	assert_null(strstr(svg, "data-joint"));
	assert_null(strstr(svg, "data-part=\"0\""));
	assert_non_null(strstr(svg, ">part 1, track 0: rot_x</text>"));
	assert_non_null(strstr(svg, ">part 1, track 1: no channels</text>"));
	free(svg);
	clip_free(&c);
}

/* An MHFU pack of two parts (four streams of three slots): entry 1 plays
 * stream 0 slot 1 in part 0; part 1's slot (stream 2 slot 1) is empty. */
static void the_views(void **state)
{
	(void)state;
	struct anim a;
	struct mh_diag d = {0};
	const uint32_t slots[] = {3, 3, 3, 3};
	assert_int_equal(anim_init(&a, CLIP_MHFU, 4, slots, &d), MH_OK);
	struct clip c = sample_clip();
	int32_t clip = anim_add_clip(&a, &c);
	assert_int_equal(clip, 0);
	assert_int_equal(anim_set_slot(&a, 0, 1, clip, &d), MH_OK);

	char *svg = curve_svg_clip_view(&a, 0, "f/3.anim", NULL, NULL);
	assert_non_null(svg);
	/* The heading (views_clip_heading) then says how long it runs. */
	assert_non_null(strstr(svg, "<title>f/3.anim stream 0 slot 1, runs to frame "));
	assert_int_equal(count(svg, "<g class=\"plot\""), 4);
	free(svg);

	svg = curve_svg_entry_view(&a, 1, "f/3.anim", NULL, NULL);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "<title>f/3.anim entry 1</title>"));
	assert_non_null(strstr(svg, ">part 0: stream 0 slot 1</text>"));
	assert_non_null(strstr(svg, ">part 1 keeps its clip (stream 2 slot 1 is empty)</text>"));
	assert_int_equal(count(svg, "<g class=\"plot\" "), 4);
	assert_int_equal(count(svg, "data-part=\"0\""), 4);
	free(svg);
	assert_null(curve_svg_entry_view(&a, ENTRIES_MAX, "f/3.anim", NULL, NULL));
	anim_free(&a);
}

/* An entry's part headings name the part's joints from the skeleton:
 * with 44 animated joints the Tigrex's tail has 4, its clips 5 tracks. */
static void part_joints_from_the_skeleton(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	s.params[1] = 44;
	char *svg = curve_svg_entry_view(&a, 1, "f/3.anim", &s, NULL);
	assert_non_null(svg);
	assert_non_null(strstr(svg, ">part 0: stream 0 slot 1, joints 0..30</text>"));
	assert_non_null(strstr(svg, ">part 2: stream 4 slot 1, joints 40..43 (the clip has 5 "
			       "tracks)</text>"));
	free(svg);
	anim_free(&a);
	skeleton_free(&s);
}

/* y is what the channel gives at x, printed with two decimals: between
 * its samples a hundredth of a frame either side, give or take a
 * hundredth. */
static bool near_curve(const struct clip_channel *ch, double x, double y)
{
	double lo = curve_sample(ch, x), hi = lo;
	for (int i = -1; i <= 1; i += 2) {
		double v = curve_sample(ch, x + 0.005 * i);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	return y >= lo - 0.006 && y <= hi + 0.006;
}

/* Random channels (keys out of order, sharing frames, steep slopes): every
 * point of the drawn curve is the engine's curve at its frame; at a key's
 * frame the first point is exactly the value arriving there, the last the
 * value leaving it. */
static void the_drawn_curve_is_the_engines(void **state)
{
	(void)state;
	struct rng r = {13};
	for (int round = 0; round < 300; round++) {
		struct clip c = {0};
		struct clip_track *t = clip_add_track(&c, 0);
		struct clip_channel *ch = t ? clip_add_channel(t, CLIP_ROT_Y) : NULL;
		assert_non_null(ch);
		uint32_t nkeys = rng_range(&r, 1, 12);
		for (uint32_t k = 0; k < nkeys; k++) {
			struct clip_key key = {(int16_t)((int)rng_range(&r, 0, 4000) - 2000),
					       (int16_t)rng_range(&r, 0, 40),
					       (int16_t)((int)rng_range(&r, 0, 60) - 30),
					       (int16_t)((int)rng_range(&r, 0, 60) - 30)};
			assert_non_null(clip_add_key(ch, key));
		}
		struct curve_svg_section s = {.clip = &c, .part = -1, .first_joint = -1};
		char *svg = curve_svg("random", &s, 1, 40, NULL);
		assert_non_null(svg);
		char *pts = polyline_points(svg, 0), *p = pts;
		double prev_x = -1e9;
		for (;;) {
			char *end;
			double x = strtod(p, &end);
			if (end == p)
				break;
			assert_true(*end == ',');
			double y = strtod(end + 1, &p);
			bool key = false;
			for (uint32_t k = 0; k < nkeys; k++)
				key |= ch->keys[k].frame == x;
			if (!key && !near_curve(ch, x, y))
				fail_msg("round %d: point %g,%g, the curve gives %g", round, x, y,
					 curve_sample(ch, x));
			if (key && x != prev_x && y != curve_sample(ch, x))
				fail_msg("round %d: arriving at key frame %g: %g, want %g", round, x,
					 y, curve_sample(ch, x));
			if (key && strtod(p, NULL) != x && y != curve_sample_after(ch, x))
				fail_msg("round %d: leaving key frame %g: %g, want %g", round, x, y,
					 curve_sample_after(ch, x));
			prev_x = x;
		}
		free(pts);
		free(svg);
		clip_free(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_document_with_a_plot_per_channel),
		cmocka_unit_test(joints_unknown_and_parts),
		cmocka_unit_test(the_views),
		cmocka_unit_test(part_joints_from_the_skeleton),
		cmocka_unit_test(the_drawn_curve_is_the_engines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
