/* SPDX-License-Identifier: MIT */
/* skeleton.txt: the skeleton as text (grammar: man/mhfu-clip.5, section
 * SKELETON.TXT), printed by skeleton_print.c and parsed by
 * skeleton_parse.c.
 *
 *   skeleton mhfu                     the game, first
 *   params 0 45                       1 to 3 values
 *   params_count 3                    only when it disagrees with them
 *   size 1234                         only when the size word disagrees
 *   0 1 -1 1 -1  1 1 1  0 0 0  0 0 0  -1 0 -      one row per bone
 *   w 3 1 1 0.5                       w components when not all 1
 *   section_count 3 2                 a section count word other than 1
 *   extra 3 0x60 01000000 ff          bytes of the rest area (hex)
 *   tail 00000000 deadbeef            the tail: hex, or
 *   tail zeros 2048                   a run of zero bytes
 *
 * Rows go in index order; the per-bone lines name a bone defined above
 * them.  The printer writes the canonical form, so print -> parse -> print
 * is stable and parse gives back the model print was given. */
#ifndef MH_SKELETON_TEXT_H
#define MH_SKELETON_TEXT_H

#define NCOLS 17
#define COL_NAME 16

/* The table's columns, as the header comment and the parse errors name
 * them. */
static const char *const COLS[NCOLS] = {
	"bone", "kind", "parent", "child", "sibling",
	"scale_x", "scale_y", "scale_z", "rot_x", "rot_y", "rot_z",
	"pos_x", "pos_y", "pos_z", "link", "part", "name",
};

#endif
