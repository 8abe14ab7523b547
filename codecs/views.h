/* SPDX-License-Identifier: MIT */
/* The text views of a model as the mount shows them: the codecs' text
 * with the comments that place it (which entry, stream and slot, which
 * joints).  Shared by the filesystem and the sample generator, whose
 * extraction is the mount tests' oracle. */
#ifndef MH_VIEWS_H
#define MH_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "kind.h"
#include "skeleton.h"

/* skeleton.txt of the skeleton named `label` (e.g. "file_06185/0.skeleton"). */
char *views_skeleton_text(const struct skeleton *s, const char *label, size_t *len);

/* pack.txt of a pack. */
char *views_pack_text(const struct anim *a, size_t *len);

/* The joints an MHFU stream's tracks drive, from the rig's parts (stream
 * s plays part s/2 over the first params[1] joints, rig_part_joints):
 * the first and how many, whatever the clips' track counts.  False when
 * unknown: no rig, an MHP3rd pack, no animated count, or parts that are
 * not a run.  Allocates nothing, so "unknown" is its only failure. */
bool views_stream_joints(const struct anim *a, const struct skeleton *rig, uint32_t stream,
			 uint32_t *first, uint32_t *count);

/* The heading of clip `clip` of the pack named `label`: the slot that
 * first uses it (the file the other slots link to) and, given the rig,
 * its part and the part's joints from the rig (and the clip's track
 * count when it differs), how long it runs and whether it loops
 * (anim_clip_timing): "file_06185/3.anim stream 2 slot 24 - part 1,
 * joints 31..39, runs to frame 495, loops from frame 9".  Returns the first joint its tracks drive
 * (views_stream_joints): -1 when unknown.  rig may be NULL. */
int views_clip_heading(const struct anim *a, uint32_t clip, const char *label,
		       const struct skeleton *rig, char *buf, size_t len);

/* The text of clip `clip` of the pack named `label`, headed by
 * views_clip_heading.  rig may be NULL. */
char *views_clip_text(const struct anim *a, uint32_t clip, const char *label,
		      const struct skeleton *rig, size_t *len);

/* The same for a pack whose tracks a record map places (records.h):
 * when the pack is MHP3rd's and map is not NULL (views_mapped), the
 * heading says how the map is made and each track is commented with
 * its bone (records_bone_label); else as above. */
struct records;
bool views_mapped(const struct anim *a, const struct records *map);
int views_clip_heading_mapped(const struct anim *a, uint32_t clip, const char *label,
			      const struct skeleton *rig, const struct records *map, char *buf,
			      size_t len);
char *views_clip_text_mapped(const struct anim *a, uint32_t clip, const char *label,
			     const struct skeleton *rig, const struct records *map, size_t *len);

/* check.txt of a model folder's item: a skeleton, a pack (against `rig`,
 * may be NULL) or a PAC holding them: every engine rule it breaks now
 * (rules_check_item, with no edit to compare to), one line each,
 *   CODE level [MEMBER ]ELEMENT: what (fix: how)
 * or a line saying there is none, after comment lines saying so.
 * Malloc'ed, NUL-terminated (length in *len); NULL when out of memory. */
char *views_check_text(const uint8_t *item, size_t item_len,
		       const struct skeleton *rig, size_t *len);

#endif
