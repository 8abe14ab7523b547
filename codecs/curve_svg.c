/* SPDX-License-Identifier: MIT */
#include "curve_svg.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "entries.h"
#include "records.h"
#include "strbuf.h"
#include "svg.h"
#include "names.h"
#include "views.h"

/* Layout, in pixels.  A cell holds one plot: its title above the plot
 * area, the value ticks left of it, the frame ticks below. */
#define COLS 6        /* plots in a row, at most: a track's channels wrap */
#define MARGIN 10
#define HEAD_H 70     /* the title and the units' three lines */
#define UNITS_LINE_H 12
#define SECTION_H 26  /* a section's heading */
#define NOTE_H 20     /* a line saying a track has no channels */
#define CELL_W 270
#define CELL_H 150
#define PLOT_X 58     /* the plot area in its cell */
#define PLOT_Y 22
#define PLOT_W 196
#define PLOT_H 90
#define MIN_W 640
#define STEP_PX 3     /* the curve between two keys: a point every 3 pixels, */
#define SPAN_STEPS 24 /* at most 24 steps */
#define KEY_R 2.5

/* ---- one plot ----------------------------------------------------------- */

/* An axis from lo to hi with ticks every step, labelled with `decimals`
 * decimals; in frames (x) or display units (y). */
struct axis {
	double lo, hi, step;
	int decimals;
};

struct point {
	double frame, raw;
};

/* A key's place in frame order: its frame, then its stored position. */
struct key_ref {
	int16_t frame;
	uint32_t index;
};

static int compare_key_refs(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	if (x->frame != y->frame)
		return (x->frame > y->frame) - (x->frame < y->frame);
	return (x->index > y->index) - (x->index < y->index);
}

/* Steps a span between two keys is drawn in: one per STEP_PX pixels,
 * at most SPAN_STEPS. */
static size_t span_steps(double frames, const struct axis *x)
{
	double px = frames * PLOT_W / (x->hi - x->lo);
	size_t n = (size_t)(px / STEP_PX) + 1;
	return n < SPAN_STEPS ? n : SPAN_STEPS;
}

/* The keys that decide the curve from a key frame up to the next (curve.h
 * 1.-3.): the last key of the frame before, the first and last of this
 * one, the first of the next, in that order.  Sampled anywhere from this
 * frame to the next, they give what the whole channel gives, so drawing
 * costs one sort, not a pass over every key per point. */
static struct clip_channel window_at(const struct clip_channel *ch, const struct key_ref *refs,
				     size_t n, size_t first, size_t last, struct clip_key *buf)
{
	struct clip_channel w = {.bit = ch->bit, .keys = buf};
	if (first > 0)
		buf[w.nkeys++] = ch->keys[refs[first - 1].index];
	buf[w.nkeys++] = ch->keys[refs[first].index];
	buf[w.nkeys++] = ch->keys[refs[last].index];
	if (last + 1 < n)
		buf[w.nkeys++] = ch->keys[refs[last + 1].index];
	return w;
}

/* The curve's points over [x->lo, x->hi] (a channel with keys): every
 * key's frame exactly, twice where the curve leaves it from another value
 * than it arrives with (keys sharing a frame), steps between keys, and
 * the axis' ends where the curve holds.  Malloc'ed (*n points), NULL when
 * out of memory. */
static struct point *curve_points(const struct clip_channel *ch, const struct axis *x, size_t *n)
{
	struct key_ref *refs = malloc(ch->nkeys * sizeof *refs);
	struct point *p = malloc((2 + (SPAN_STEPS + 1) * (size_t)ch->nkeys) * sizeof *p);
	if (!refs || !p) {
		free(refs);
		free(p);
		return NULL;
	}
	for (uint32_t i = 0; i < ch->nkeys; i++)
		refs[i] = (struct key_ref){ch->keys[i].frame, i};
	qsort(refs, ch->nkeys, sizeof *refs, compare_key_refs);
	*n = 0;
	for (size_t first = 0, last; first < ch->nkeys; first = last + 1) {
		for (last = first; last + 1 < ch->nkeys && refs[last + 1].frame == refs[first].frame;)
			last++;
		struct clip_key buf[4];
		struct clip_channel w = window_at(ch, refs, ch->nkeys, first, last, buf);
		double f = refs[first].frame, v = curve_sample(&w, f), after = curve_sample_after(&w, f);
		if (first == 0 && x->lo < f)
			p[(*n)++] = (struct point){x->lo, curve_sample(&w, x->lo)};
		p[(*n)++] = (struct point){f, v};
		if (after != v)
			p[(*n)++] = (struct point){f, after};
		if (last + 1 == ch->nkeys) {
			if (x->hi > f)
				p[(*n)++] = (struct point){x->hi, curve_sample(&w, x->hi)};
			break;
		}
		double span = refs[last + 1].frame - f;
		size_t steps = span_steps(span, x);
		for (size_t i = 1; i < steps; i++) {
			double t = f + span * (double)i / (double)steps;
			p[(*n)++] = (struct point){t, curve_sample(&w, t)};
		}
	}
	free(refs);
	return p;
}

/* The value axis over raw values vmin..vmax, in display units. */
static struct axis value_axis(uint32_t bit, double vmin, double vmax)
{
	struct axis a;
	double k = curve_display(bit, 1), lo = vmin * k, hi = vmax * k;
	if (hi - lo < 1e-6) { /* flat: a unit either side */
		lo -= 1;
		hi += 1;
	}
	a.step = svg_nice_step((hi - lo) / 4, &a.decimals);
	a.lo = svg_floor(lo / a.step) * a.step;
	a.hi = svg_ceil(hi / a.step) * a.step;
	return a;
}

/* Where a plot puts frames and raw values in its cell. */
struct plot_map {
	double x0, x1; /* frames */
	double y0, y1; /* raw */
};

static double map_x(const struct plot_map *m, double frame)
{
	return PLOT_X + (frame - m->x0) * PLOT_W / (m->x1 - m->x0);
}

static double map_y(const struct plot_map *m, double raw)
{
	return PLOT_Y + PLOT_H - (raw - m->y0) * PLOT_H / (m->y1 - m->y0);
}

/* The joint a section's track drives, -1 when not known. */
static long long track_joint(const struct curve_svg_section *s, uint32_t track)
{
	if (s->first_joint >= 0)
		return (long long)s->first_joint + track;
	return s->joint && track < s->njoints ? s->joint[track] : -1;
}

/* "part 1, track 0, joint 31", as much as is known. */
static int track_name(const struct curve_svg_section *s, uint32_t track, char *buf, size_t len)
{
	int n = s->part >= 0 ? snprintf(buf, len, "part %d, track %u", s->part, track)
			     : snprintf(buf, len, "track %u", track);
	if (track_joint(s, track) >= 0)
		n += snprintf(buf + n, len - (size_t)n, ", joint %lld", track_joint(s, track));
	return n;
}

/* The channel's name in the clip text: "rot_x", or its bit, "0x1000". */
static void channel_name(uint32_t bit, char *buf, size_t len)
{
	const char *name = clip_channel_name(bit);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "0x%03x", bit);
}

/* The value axis' grid and labels; the frame axis is shared (#frames). */
static void put_value_ticks(struct strbuf *sb, const struct plot_map *m, const struct axis *y,
			    double k)
{
	long long n = 0;
	while (y->lo + (double)n * y->step <= y->hi + y->step * 1e-6)
		n++;
	strbuf_printf(sb, "<path class=\"grid\" d=\"");
	for (long long i = 0; i < n; i++) {
		strbuf_printf(sb, "M%d ", PLOT_X);
		strbuf_fixed(sb, map_y(m, (y->lo + (double)i * y->step) / k), 1);
		strbuf_printf(sb, "h%d", PLOT_W);
	}
	strbuf_printf(sb, "\"/>\n<g class=\"tick\" text-anchor=\"end\">");
	for (long long i = 0; i < n; i++) {
		double v = y->lo + (double)i * y->step;
		strbuf_printf(sb, "<text x=\"%d\" y=\"", PLOT_X - 4);
		strbuf_fixed(sb, map_y(m, v / k) + 3, 1);
		strbuf_printf(sb, "\">");
		strbuf_fixed(sb, v, y->decimals);
		strbuf_printf(sb, "</text>");
	}
	strbuf_printf(sb, "</g>\n");
}

/* The curve in (frame, raw) coordinates, placed by its transform; the
 * keys as points, each with a tooltip. */
static void put_curve(struct strbuf *sb, const struct plot_map *m, const struct clip_channel *ch,
		      const struct point *p, size_t n)
{
	double a = PLOT_W / (m->x1 - m->x0), d = -PLOT_H / (m->y1 - m->y0);
	strbuf_printf(sb, "<polyline class=\"curve\" vector-effect=\"non-scaling-stroke\" "
		      "transform=\"matrix(%.9g 0 0 %.9g %.9g %.9g)\" points=\"", a, d,
		      PLOT_X - m->x0 * a, PLOT_Y + PLOT_H - m->y0 * d);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_char(sb, ' ');
		strbuf_fixed(sb, p[i].frame, 2);
		strbuf_char(sb, ',');
		strbuf_fixed(sb, p[i].raw, 2);
	}
	strbuf_printf(sb, "\"/>\n<g class=\"key\">");
	const char *unit = curve_display_unit(ch->bit);
	for (uint32_t i = 0; i < ch->nkeys; i++) {
		const struct clip_key *k = &ch->keys[i];
		strbuf_str(sb, "<circle cx=\"", 0);
		strbuf_fixed(sb, map_x(m, k->frame), 1);
		strbuf_str(sb, "\" cy=\"", 0);
		strbuf_fixed(sb, map_y(m, k->value), 1);
		strbuf_str(sb, "\" r=\"", 0);
		strbuf_fixed(sb, KEY_R, 1);
		strbuf_str(sb, "\"><title>frame ", 0);
		strbuf_int(sb, k->frame, 0);
		strbuf_str(sb, ": ", 0);
		strbuf_int(sb, k->value, 0);
		strbuf_str(sb, " = ", 0);
		strbuf_fixed(sb, curve_display(ch->bit, k->value), 3);
		strbuf_char(sb, ' ');
		strbuf_str(sb, unit, 0);
		strbuf_str(sb, ", ease ", 0);
		strbuf_int(sb, k->ease_in, 0);
		strbuf_char(sb, ' ');
		strbuf_int(sb, k->ease_out, 0);
		strbuf_str(sb, "</title></circle>\n", 0);
	}
	strbuf_printf(sb, "</g>\n");
}

/* The plot of one channel, its cell's top left at (x, y); false when
 * out of memory. */
static bool put_plot(struct strbuf *sb, const struct curve_svg_section *s, uint32_t track,
		     const struct clip_channel *ch, int x, int y, const struct axis *frames)
{
	size_t n = 0;
	struct point *p = ch->nkeys ? curve_points(ch, frames, &n) : NULL;
	if (ch->nkeys && !p)
		return false;
	double vmin = 0, vmax = 0;
	for (size_t i = 0; i < n; i++) {
		if (!i || p[i].raw < vmin)
			vmin = p[i].raw;
		if (!i || p[i].raw > vmax)
			vmax = p[i].raw;
	}
	struct axis values = value_axis(ch->bit, vmin, vmax);
	double k = curve_display(ch->bit, 1);
	struct plot_map m = {frames->lo, frames->hi, values.lo / k, values.hi / k};
	char name[96], channel[16];
	const char *unit = curve_display_unit(ch->bit);
	channel_name(ch->bit, channel, sizeof channel);
	track_name(s, track, name, sizeof name);

	strbuf_printf(sb, "<g class=\"plot\" transform=\"translate(%d %d)\"", x, y);
	if (s->part >= 0)
		strbuf_printf(sb, " data-part=\"%d\"", s->part);
	strbuf_printf(sb, " data-track=\"%u\"", track);
	if (track_joint(s, track) >= 0)
		strbuf_printf(sb, " data-joint=\"%lld\"", track_joint(s, track));
	strbuf_printf(sb, " data-channel=\"%s\" data-unit=\"%s\">\n"
		      "<text class=\"name\" x=\"%d\" y=\"%d\">", channel, unit, PLOT_X, PLOT_Y - 7);
	svg_escaped(sb, name);
	strbuf_printf(sb, ": %s</text>\n<use href=\"#frames\"/><use href=\"#unit-%s\"/>\n",
		      channel, unit);
	put_value_ticks(sb, &m, &values, k);
	if (ch->nkeys)
		put_curve(sb, &m, ch, p, n);
	else
		strbuf_printf(sb, "<text class=\"note\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
			      "no keys</text>\n", PLOT_X + PLOT_W / 2, PLOT_Y + PLOT_H / 2);
	strbuf_printf(sb, "</g>\n");
	free(p);
	return true;
}

/* What every plot shares, drawn once: the plot area with the frame
 * axis (#frames), and each unit's label on the value axis (#unit-deg...). */
static void put_defs(struct strbuf *sb, const struct axis *x)
{
	struct plot_map m = {x->lo, x->hi, 0, 1};
	strbuf_printf(sb, "<defs>\n<g id=\"frames\"><rect class=\"area\" x=\"%d\" y=\"%d\" "
		      "width=\"%d\" height=\"%d\"/><path class=\"grid\" d=\"", PLOT_X, PLOT_Y,
		      PLOT_W, PLOT_H);
	for (long long i = 0; x->lo + (double)i * x->step <= x->hi + 1e-6; i++) {
		strbuf_printf(sb, "M");
		strbuf_fixed(sb, map_x(&m, x->lo + (double)i * x->step), 1);
		strbuf_printf(sb, " %dv%d", PLOT_Y, PLOT_H);
	}
	strbuf_printf(sb, "\"/>\n<g class=\"tick\" text-anchor=\"middle\">");
	for (long long i = 0; x->lo + (double)i * x->step <= x->hi + 1e-6; i++) {
		double f = x->lo + (double)i * x->step;
		strbuf_printf(sb, "<text x=\"");
		strbuf_fixed(sb, map_x(&m, f), 1);
		strbuf_printf(sb, "\" y=\"%d\">", PLOT_Y + PLOT_H + 12);
		strbuf_fixed(sb, f, 0);
		strbuf_printf(sb, "</text>");
	}
	strbuf_printf(sb, "<text class=\"unit\" x=\"%d\" y=\"%d\">frame</text></g></g>\n",
		      PLOT_X + PLOT_W / 2, PLOT_Y + PLOT_H + 26);
	static const char *const units[] = {"deg", "units", "scale", "raw"};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		strbuf_printf(sb, "<text id=\"unit-%s\" class=\"unit\" text-anchor=\"middle\" "
			      "transform=\"translate(12 %d) rotate(-90)\">%s</text>\n", units[i],
			      PLOT_Y + PLOT_H / 2, units[i]);
	strbuf_printf(sb, "</defs>\n");
}

/* ---- the document ------------------------------------------------------- */

static uint32_t rows_of(const struct clip_track *t)
{
	return (t->nchannels + COLS - 1) / COLS;
}

/* The height the sections take, and the plots in the widest row. */
static int sections_height(const struct curve_svg_section *s, uint32_t n, uint32_t *cols)
{
	int h = 0;
	*cols = 1;
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].heading)
			h += SECTION_H;
		if (!s[i].clip)
			continue;
		if (!s[i].clip->ntracks)
			h += NOTE_H;
		for (uint32_t t = 0; t < s[i].clip->ntracks; t++) {
			const struct clip_track *tr = &s[i].clip->tracks[t];
			h += tr->nchannels ? (int)rows_of(tr) * CELL_H : NOTE_H;
			if (tr->nchannels > *cols)
				*cols = tr->nchannels < COLS ? tr->nchannels : COLS;
		}
	}
	return h;
}

/* The frame axis: from 0 (or an earlier key) to `frames` (or a later
 * key), at least one frame long. */
static struct axis frame_axis(const struct curve_svg_section *s, uint32_t n, int32_t frames)
{
	struct axis a = {.lo = 0, .hi = frames};
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t t = 0; s[i].clip && t < s[i].clip->ntracks; t++)
			for (uint32_t c = 0; c < s[i].clip->tracks[t].nchannels; c++) {
				const struct clip_channel *ch = &s[i].clip->tracks[t].channels[c];
				for (uint32_t k = 0; k < ch->nkeys; k++) {
					if (ch->keys[k].frame < a.lo)
						a.lo = ch->keys[k].frame;
					if (ch->keys[k].frame > a.hi)
						a.hi = ch->keys[k].frame;
				}
			}
	if (a.hi < a.lo + 1)
		a.hi = a.lo + 1;
	a.step = svg_nice_step((a.hi - a.lo) / 5, &a.decimals);
	if (a.step < 1)
		a.step = 1;
	a.decimals = 0;
	a.lo = svg_floor(a.lo / a.step) * a.step;
	return a;
}

static void put_note(struct strbuf *sb, int y, const char *text)
{
	strbuf_printf(sb, "<text class=\"note\" x=\"%d\" y=\"%d\">", MARGIN + PLOT_X, y + 14);
	svg_escaped(sb, text);
	strbuf_printf(sb, "</text>\n");
}

/* A section at height *y; false when out of memory. */
static bool put_section(struct strbuf *sb, const struct curve_svg_section *s, int *y,
			const struct axis *frames)
{
	char note[96];
	if (s->heading) {
		strbuf_printf(sb, "<text class=\"section\" x=\"%d\" y=\"%d\">", MARGIN, *y + 18);
		svg_escaped(sb, s->heading);
		strbuf_printf(sb, "</text>\n");
		*y += SECTION_H;
	}
	if (!s->clip)
		return true;
	if (!s->clip->ntracks) {
		put_note(sb, *y, "no tracks");
		*y += NOTE_H;
	}
	for (uint32_t t = 0; t < s->clip->ntracks; t++) {
		const struct clip_track *tr = &s->clip->tracks[t];
		if (!tr->nchannels) {
			int n = track_name(s, t, note, sizeof note);
			snprintf(note + n, sizeof note - (size_t)n, ": no channels");
			put_note(sb, *y, note);
			*y += NOTE_H;
			continue;
		}
		for (uint32_t c = 0; c < tr->nchannels; c++)
			if (!put_plot(sb, s, t, &tr->channels[c], MARGIN + (int)(c % COLS) * CELL_W,
				      *y + (int)(c / COLS) * CELL_H, frames))
				return false;
		*y += (int)rows_of(tr) * CELL_H;
	}
	return true;
}

char *curve_svg(const char *title, const struct curve_svg_section *sections,
		uint32_t nsections, int32_t frames, size_t *len)
{
	uint32_t cols;
	int height = HEAD_H + sections_height(sections, nsections, &cols) + MARGIN;
	int width = 2 * MARGIN + (int)cols * CELL_W;
	if (width < MIN_W)
		width = MIN_W;
	struct axis x = frame_axis(sections, nsections, frames);
	struct strbuf sb = {0};
	svg_open(&sb, width, height, title, NULL);
	/* The units, in lines that fit the narrowest plot (MIN_W). */
	static const char *const units[] = {
		"the curves the engine plays: cubic Hermite through the keys, ease slopes,",
		"held before the first key and after the last; rotations in degrees",
		"(4096 raw = 90 deg), locations in units (16 raw = 1.0), scales (256 raw = 1.0)",
	};
	for (int i = 0; i < (int)(sizeof units / sizeof *units); i++)
		strbuf_printf(&sb, "<text class=\"note\" x=\"%d\" y=\"%d\">%s</text>\n", MARGIN,
			      38 + i * UNITS_LINE_H, units[i]);
	put_defs(&sb, &x);
	int y = HEAD_H;
	for (uint32_t i = 0; i < nsections; i++)
		if (!put_section(&sb, &sections[i], &y, &x)) {
			strbuf_free(&sb);
			return NULL;
		}
	strbuf_printf(&sb, "</svg>\n");
	return strbuf_take(&sb, len);
}

/* ---- the views ---------------------------------------------------------- */

char *curve_svg_clip_view(const struct anim *a, uint32_t clip, const char *label,
			  const struct skeleton *rig, size_t *len)
{
	return curve_svg_clip_view_mapped(a, clip, label, rig, NULL, len);
}

char *curve_svg_clip_view_mapped(const struct anim *a, uint32_t clip, const char *label,
				 const struct skeleton *rig, const struct records *map,
				 size_t *len)
{
	char title[320];
	const struct clip *c = &a->clips[clip];
	struct curve_svg_section s = {.clip = c, .part = -1};
	s.first_joint = views_clip_heading_mapped(a, clip, label, rig, map, title, sizeof title);
	if (views_mapped(a, map)) {
		s.joint = map->bone;
		s.njoints = map->nrecords;
	}
	return curve_svg(title, &s, 1, entries_clip_frames(c), len);
}

/* A part's heading: where its clip is, which joints of the rig it drives
 * (`joints` of them from first_joint; 0 unknown), or that it keeps its
 * clip. */
static void part_heading(const struct anim *a, uint32_t part, uint32_t stream, uint32_t slot,
			 int32_t clip, uint32_t first_joint, uint32_t joints, char *buf,
			 size_t len)
{
	if (clip == ANIM_EMPTY) {
		snprintf(buf, len, "part %u keeps its clip (stream %u slot %u is empty)", part,
			 stream, slot);
		return;
	}
	int n = snprintf(buf, len, "part %u: stream %u slot %u%s", part, stream, slot,
			 joints ? ", " : "");
	if (joints && n >= 0 && (size_t)n < len)
		names_joints_phrase(buf + n, len - (size_t)n, first_joint, joints,
				    a->clips[clip].ntracks);
}

char *curve_svg_entry_view(const struct anim *a, uint32_t entry, const char *label,
			   const struct skeleton *rig, size_t *len)
{
	enum { HEADING = 128 };
	if (entry >= ENTRIES_MAX)
		return NULL;
	uint32_t nparts = entries_parts(a), n = nparts ? nparts : 1;
	struct curve_svg_section *s = calloc(n, sizeof *s);
	char *headings = calloc(n, HEADING);
	char *svg = NULL;
	if (!s || !headings)
		goto done;
	int32_t frames = 0;
	for (uint32_t k = 0; k < nparts; k++) {
		uint32_t stream, slot;
		int32_t clip = entries_part_clip(a, entry, k, &stream, &slot);
		s[k].heading = headings + (size_t)k * HEADING;
		s[k].part = (int)k;
		s[k].first_joint = -1;
		uint32_t first = 0, joints = 0;
		if (clip != ANIM_EMPTY && views_stream_joints(a, rig, stream, &first, &joints))
			s[k].first_joint = (int)first;
		if (clip != ANIM_EMPTY) {
			s[k].clip = &a->clips[clip];
			int32_t f = entries_clip_frames(s[k].clip);
			frames = f > frames ? f : frames;
		}
		part_heading(a, k, stream, slot, clip, first, joints,
			     headings + (size_t)k * HEADING, HEADING);
	}
	char title[256];
	snprintf(title, sizeof title, "%s entry %u", label, entry);
	svg = curve_svg(title, s, nparts, frames, len);
done:
	free(headings);
	free(s);
	return svg;
}
