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

/* "joints 31..39", and " (the clip has 5 tracks)" when ntracks is not
 * count: how a clip's heading names its part's joints.  Into buf (len
 * bytes, cut short as snprintf does); returns what snprintf does. */
int views_joints_phrase(char *buf, size_t len, uint32_t first, uint32_t count,
			uint32_t ntracks);

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

/* A slot's files: its clip as text, its bytes, its curves' plots. */
enum views_slot_file { VIEWS_SLOT_TXT, VIEWS_SLOT_BIN, VIEWS_SLOT_SVG };

/* The file name of a slot's view, "slot024.txt", "slot024.bin" or
 * "slot024.svg", and the target of a slot's symlink when it shares an
 * earlier slot's clip ("slot000.txt" or "../stream0/slot000.txt"); ""
 * when it does not. */
void views_slot_name(uint32_t slot, enum views_slot_file file, char *buf, size_t len);
void views_slot_link(const struct anim *a, uint32_t stream, uint32_t slot,
		     enum views_slot_file file, char *buf, size_t len);

/* ---- names (mount.mhfu(8) "THE TREE") ---------------------------------
 * Entries go by the community's numbering: engine id minus one, five
 * digits, so id 6186 is file_06185 and id 0 is file_-0001.  Each writes
 * at most len (>= 1) bytes, NUL included, cutting the name short if need
 * be. */

/* An entry's folder: "file_06185". */
void views_entry_dir_name(uint32_t id, char *buf, size_t len);

/* An entry's file, its extension from its kind: "file_06185.pac". */
void views_entry_file_name(uint32_t id, enum kind kind, char *buf, size_t len);

/* An entry in messages about the archive as a whole:
 * "entry 6186 (file_06185)". */
void views_entry_label(uint32_t id, char *buf, size_t len);

/* A PAC member's file, by its index and kind: "3.anim". */
void views_member_name(uint32_t index, enum kind kind, char *buf, size_t len);

/* The item at path[0..depth) of entry id (a member of nested PACs, as
 * pacpath.h addresses it) from the mount's root, `kind` being the
 * item's: its containers' folders, then its file ("file_06185/3.anim",
 * "file_00100/1/0.skeleton"); at depth 0 the entry's file.  The label of
 * the item in comments and the log. */
void views_item_name(uint32_t id, const uint16_t *path, unsigned depth,
		     enum kind kind, char *buf, size_t len);

/* The folder of that item: "file_06185/3"; at depth 0 "file_06185". */
void views_item_dir_name(uint32_t id, const uint16_t *path, unsigned depth,
			 char *buf, size_t len);

#endif
