/* SPDX-License-Identifier: MIT */
/* Clips drawn as SVG documents (mhfu-clip(5) "PLOTS"): one small plot
 * per channel, a row per track, each showing the channel's keyframes as
 * points and the curve the engine plays through them (curve.h), sampled
 * over the clip's frames: held before the first key and after the last.
 * The y axis is in degrees for rotations, model units for locations,
 * factors for scales and raw units for the rest; the x axis in frames.
 *
 * The document is what a browser opens: XML with the SVG namespace, its
 * text escaped.  For programs reading it back, every plot is a
 * <g class="plot"> carrying data-track, data-channel (the clip text's
 * name, "rot_x", or "0x1000"), data-unit, and data-part and data-joint
 * when known; its curve is the one <polyline class="curve"> whose points
 * are (frame, raw value) pairs, placed on the plot by its transform, so
 * the point at a key's frame reads the key's raw value exactly; its keys
 * are the <circle class="key"> elements, in stored order.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_CURVE_SVG_H
#define MH_CURVE_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "clip.h"
#include "skeleton.h"

/* A heading and the plots of one clip under it. */
struct curve_svg_section {
	const char *heading;     /* a line above the plots; NULL: none */
	const struct clip *clip; /* NULL: the heading alone */
	int part;                /* >= 0: the part plots name (an entry's) */
	int first_joint;         /* track i drives joint first_joint + i; -1: unknown */
	const int32_t *joint;    /* else, if set: track i < njoints drives joint[i] */
	uint32_t njoints;        /*   (-1: none), as a record map places them */
};

/* The document: `title` (its <title> and first line), a line on the
 * units, then the sections in order.  Every x axis runs from frame 0 (or
 * an earlier key) to `frames` (at least 1), so the plots line up.
 * Malloc'ed, NUL-terminated (length in *len if len); NULL when out of
 * memory. */
char *curve_svg(const char *title, const struct curve_svg_section *sections,
		uint32_t nsections, int32_t frames, size_t *len);

/* slotNNN.svg: clip `clip` of the pack named `label`, titled as its text
 * is headed (views_clip_heading), its tracks naming their joints given
 * the rig (may be NULL). */
char *curve_svg_clip_view(const struct anim *a, uint32_t clip, const char *label,
			  const struct skeleton *rig, size_t *len);

/* The same for a pack whose tracks a record map places (MHP3rd), as
 * views_clip_text_mapped heads and names them. */
struct records;
char *curve_svg_clip_view_mapped(const struct anim *a, uint32_t clip, const char *label,
				 const struct skeleton *rig, const struct records *map,
				 size_t *len);

/* entryNNN.svg: entry `entry` (< ENTRIES_MAX) of an MHFU pack, a section
 * per part: the part's stream, slot and joints and its clip's plots, or
 * that it keeps its clip.  The x axes run to the entry's longest part.
 * NULL when out of memory or for entry >= ENTRIES_MAX. */
char *curve_svg_entry_view(const struct anim *a, uint32_t entry, const char *label,
			   const struct skeleton *rig, size_t *len);

#endif
