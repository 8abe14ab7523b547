/* SPDX-License-Identifier: MIT */
/* MHFU executor entries: one whole-rig clip per entry, over an animation
 * pack's slots (mhfu-clip(5) "ENTRIES"; parts and streams in
 * mhfu-archive(5) "ANIMATION PACK").
 *
 * The engine plays entry e (0..199) by playing, in each part k, slot
 * e % 100 of stream 2k + e / 100; a part whose slot is empty keeps the
 * clip it was playing.  An MHFU pack of n streams has (n + 1) / 2 parts
 * (the games' packs have an even number of streams; an odd last stream
 * is a part without slots for entries 100 and up).
 *
 * The entry text lists every part in order: "part K keeps its clip" for
 * a part whose slot is empty (or missing), else "part K" followed by the
 * clip text of the part's slot (mhfu-clip(5) "CLIP FILES"), its tracks
 * commented with part and joint.  Stream, slot and sharing are comments:
 * the text of one entry can be written to another.
 *
 * Writing an entry (entries_parse, then entries_apply) splits it back
 * into the parts' slots, all parts or none, as a slot file write does:
 * a part whose clip is unchanged is left alone (keeping its sharing);
 * a changed part replaces its slot's clip in place when the slot is the
 * clip's first user (every slot sharing it follows), else the slot gets
 * a clip of its own (copy on write); "keeps its clip" empties the slot.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_ENTRIES_H
#define MH_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "clip.h"
#include "diag.h"
#include "skeleton.h"

/* Entries 0..199: e / 100 picks each part's even or odd stream. */
#define ENTRIES_MAX 200u

/* The parts of an MHFU pack, (nstreams + 1) / 2; 0 for any other format
 * (MHP3rd streams are not parts). */
uint32_t entries_parts(const struct anim *a);

/* Where part `part` plays entry `entry` (< ENTRIES_MAX): *stream and
 * *slot (always set), and the clip's index there, or ANIM_EMPTY when the
 * slot is empty or the pack has no such stream or slot. */
int32_t entries_part_clip(const struct anim *a, uint32_t entry, uint32_t part,
			  uint32_t *stream, uint32_t *slot);

/* Whether entries/ lists entry `entry`: an MHFU pack where at least one
 * part's slot for it holds a clip.  False for entry >= ENTRIES_MAX. */
bool entries_listed(const struct anim *a, uint32_t entry);

/* A clip's length in frames: its last keyframe's frame (the largest over
 * every channel), 0 for a clip without keys. */
int32_t entries_clip_frames(const struct clip *c);

/* The text of entry `entry` of the pack named `label`
 * ("file_06185/3.anim"): a header saying which parts it reaches, then
 * every part, one that keeps its clip as one line, the others as their
 * stream, slot and sharing in comments and their clip text.  Given an
 * MHFU rig (may be NULL: the header says the joints are unknown), tracks
 * are commented with their joint.  Works for any entry < ENTRIES_MAX,
 * listed or not.  Malloc'ed, NUL-terminated (length in *len if len);
 * NULL when out of memory or entry >= ENTRIES_MAX. */
char *entries_print(const struct anim *a, uint32_t entry, const char *label,
		    const struct skeleton *rig, size_t *len);

/* entries/index.tsv: a "# " heading line, then one line per listed
 * entry: the entry, then per part its stream, slot, length in frames and
 * the other slots playing the same clip ("stream2/slot025,stream4/slot003",
 * "-" for none), tab-separated.  A part that keeps its clip has "-" for
 * length and sharing; its stream and slot say where its clip would be.
 * Malloc'ed; NULL when out of memory. */
char *entries_index(const struct anim *a, size_t *len);

/* What entries_apply did to a part's slot. */
enum entries_action {
	ENTRIES_UNCHANGED, /* the slot plays what the text says already */
	ENTRIES_EMPTIED,   /* "keeps its clip" over a filled slot */
	ENTRIES_REPLACED,  /* the slot's clip replaced in place: sharers follow */
	ENTRIES_COPIED,    /* a shared slot given a clip of its own */
	ENTRIES_FILLED,    /* an empty slot given a clip */
};

struct entries_part_edit {
	bool keeps;                 /* "part K keeps its clip" */
	struct clip clip;           /* otherwise the part's clip; moved into
				     * the pack by entries_apply */
	unsigned line;              /* the "part K" line, 1-based */
	enum entries_action action; /* set by entries_apply */
};

struct entries_edit {
	uint32_t nparts;
	struct entries_part_edit *parts; /* nparts, indexed by part */
};

/* Parses an entry text for a pack of `nparts` parts (entries_parts):
 * every part exactly once, in any order.  Comment and blank lines may
 * come before the first part.  On failure *e is empty and d holds the
 * text's line:col and what was expected (MH_ESYNTAX; MH_ERANGE for a
 * number out of range; MH_ENOMEM).  The caller frees *e
 * (entries_edit_free). */
enum mh_err entries_parse(const char *text, size_t len, uint32_t nparts,
			  struct entries_edit *e, struct mh_diag *d);

/* Applies a parsed text to entry `entry` of the pack, all parts or none,
 * deciding every part against the pack as it was (see the top of this
 * file): a part whose written clip is what its slot plays, or what the
 * slot will play once another part of the same edit replaced their
 * shared clip, is unchanged.  Sets each part's action and moves the new
 * clips out of *e.  The pack may then hold clips no slot uses:
 * anim_compact before anim_encode.  Fails, leaving the pack untouched,
 * with MH_ERANGE at the part's line when a part has a clip but the pack
 * has no slot for it, or for an entry >= ENTRIES_MAX, a pack that is not
 * MHFU or of another part count; MH_ENOMEM (line 0). */
enum mh_err entries_apply(struct anim *a, uint32_t entry,
			  struct entries_edit *e, struct mh_diag *d);

void entries_edit_free(struct entries_edit *e); /* e may be NULL */

/* entries_parse, entries_apply and entries_edit_free in one call. */
enum mh_err entries_write(struct anim *a, uint32_t entry, const char *text,
			  size_t len, struct mh_diag *d);

/* An entry from a glTF 2.0 asset (entries_gltf.c; mhfu-clip(5) "GLTF
 * IN"): bytes[0..len) a .glb or a .gltf with its buffers embedded, as
 * Blender exports model.glb, its joints named as model.glb names them on
 * `rig` (the pack's MHFU skeleton), one animation.  Each joint it
 * animates gets a track fitted within fit[0] raw units of rotation and
 * fit[1] of location (fit NULL, or a 0: fit.h's defaults; rotation on
 * every axis, location on the axes that leave the bind offset); a
 * joint it does not animate keeps its track of the entry's clip (a rest
 * track where the part has none).  A part it does not touch, and with
 * only_part >= 0 every other part, stays as it is.  Each part keeps its
 * loop, loop_start and length (a new one runs to the file's last frame).  The edit
 * is for entries_apply.  Refused with the reason: no rig, not glTF, no
 * animation or several, unknown joints (gltf_motion.h), a value past
 * the keys' range (fit.h).  On failure *e is empty. */
enum mh_err entries_from_gltf(const struct anim *a, uint32_t entry, int32_t only_part,
			      const struct skeleton *rig, const uint8_t *bytes, size_t len,
			      const double fit[2], struct entries_edit *e, struct mh_diag *d);

/* The 1-based line of an element of part `part`'s clip in an entry text
 * entries_parse accepts: track -1 gives the "part K" line; otherwise as
 * clip_text_line over the part's clip text (track, channel, key from 0;
 * -1 the enclosing element), whose line 1 is the line after "part K".
 * 1 when the text has no such part.  Maps a rule violation (whose
 * stream is the part's 2K or 2K + 1) back to the text. */
unsigned entries_text_line(const char *text, size_t len, uint32_t part,
			   int track, int channel, int key);

#endif
