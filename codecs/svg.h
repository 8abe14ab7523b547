/* SPDX-License-Identifier: MIT */
/* What the SVG plots share (curve_svg.c's clips, port_tear.c's tear):
 * escaped text, axis steps, the document's head and its style.  Pure: no
 * I/O, no globals but const text. */
#ifndef MH_SVG_H
#define MH_SVG_H

#include "strbuf.h"

/* Text as XML character data or an attribute value.  Control characters
 * XML does not allow become '?'. */
void svg_escaped(struct strbuf *sb, const char *s);

/* floor and ceil for the magnitudes plotted (well inside long long),
 * without libm. */
double svg_floor(double v);
double svg_ceil(double v);

/* A tick spacing of 1, 2 or 5 times a power of ten near `span` (> 0),
 * and the decimals its labels need. */
double svg_nice_step(double span, int *decimals);

/* The plots' style sheet: text, .head, .section, .name, .tick, .unit,
 * .note, .area, .grid, .curve (the blue of a curve), .key (the orange of
 * a key). */
extern const char svg_style[];

/* The document's opening: the XML declaration, <svg> of width x height
 * (sans-serif, 10px), <title>, the style (svg_style and `extra`, NULL:
 * none), a light background, and `title` again as the heading line. */
void svg_open(struct strbuf *sb, int width, int height, const char *title, const char *extra);

#endif
