/* SPDX-License-Identifier: MIT */
/* MHP3rd record maps (mhfu-clip(5) "RECORD MAPS"): which bone each track
 * ("record") of an MHP3rd clip drives.
 *
 * MHP3rd tracks are not positional.  Record i drives the i-th bone
 * counted from the monster's offset, stepping over the bones in its skip
 * list.  The offset follows the fork rule: it is the lowest one where
 * every record that carries location channels (in any clip of the pack)
 * lands on the body fork or above it, the body fork being the lowest
 * joint with more than one child; above means on the fork's chain of
 * parents.  The skip list is the one known for the monster's id
 * (records_known_skips), none when the monster is not known.
 *
 * A record map is made from a rig (the skeleton the moveset belongs to;
 * none: every record says "no rig"), the pack, and the monster's id; an
 * override (records.txt, written back) may replace the offset, the skip
 * list or both.  struct records owns copies of everything it needs: it
 * outlives the skeleton and pack it was made from.
 *
 * Where the rig and the monster's id come from in an archive is the
 * archive's layout (mhfu-archive(5) "MHP3RD MOVESETS"): a standalone
 * moveset at entry E belongs to the model PAC at E - RECORDS_RIG_BEFORE;
 * the monster's id is named by the AI overlay (an MWo3 file) that opens
 * the model's group: records_find_monster walks back to it through a
 * reader the caller gives.  Pure: no I/O of its own, no globals. */
#ifndef MH_RECORDS_H
#define MH_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "diag.h"
#include "skeleton.h"

#define RECORDS_NO_MONSTER (-1)
/* A standalone moveset's model PAC: this many entries before it (its
 * geometry sits between them). */
#define RECORDS_RIG_BEFORE 2u
/* The walk back from a model PAC to its group's overlay: over at most
 * this many asset sets (model PAC, geometry, moveset) of one family. */
#define RECORDS_WALK_SETS 16u
#define RECORDS_SET_ENTRIES 3u
/* The entries a standalone moveset's map is made from lie at most this
 * many entries before it: a commit to an entry changes the maps of the
 * movesets up to this many entries after it. */
#define RECORDS_LINK_SPAN (RECORDS_RIG_BEFORE + RECORDS_WALK_SETS * RECORDS_SET_ENTRIES)
/* An overlay's name: a C string at this offset of its MWo3 header. */
#define RECORDS_OVERLAY_NAME_AT 32u
#define RECORDS_OVERLAY_HEAD 64u
/* Names shown for a bone: its MHP3rd name when printable. */
#define RECORDS_NAME_MAX (SKELETON_NAME_LEN + 1)

/* An override of the map's offset or skip list (records.txt). */
struct records_setting {
	bool offset_set;  /* the offset is overridden */
	uint32_t offset;
	bool skip_set;    /* the skip list is overridden */
	uint32_t nskip;
	uint32_t *skip;   /* ascending, no bone twice; malloc'ed */
};

struct records {
	/* What the map is made from (records_init). */
	bool rigged;               /* a rig is known */
	uint32_t nbones;           /* the rig's bones */
	int32_t *parent;           /* per bone */
	char (*name)[RECORDS_NAME_MAX]; /* per bone: its name when printable, else "" */
	int32_t fork;              /* the body fork, -1 when no joint forks */
	bool *above_fork;          /* per bone: the fork or one of its ancestors
				      (the fork rule asks it of every record at
				      every offset tried) */
	int monster;               /* the monster's id, RECORDS_NO_MONSTER */
	uint32_t nrecords;         /* the most tracks a clip of the pack has */
	bool *located;             /* per record: a clip gives it location channels */
	/* What the map would be without an override. */
	uint32_t fork_offset;      /* the fork rule's offset (0 when no offset keeps it) */
	bool fork_kept;            /* some offset keeps the fork rule */
	/* The map in force. */
	struct records_setting set; /* the override: only what differs from the above */
	uint32_t offset;           /* the offset in force */
	uint32_t nskip;            /* the skip list in force */
	uint32_t *skip;
	int32_t *bone;             /* per record: the bone it drives, -1 none
				      (no rig, or past the rig's last bone) */
};

/* The bones a monster's moveset never drives, by MHP3rd monster id (the
 * public list of the community's Blender add-on): *bones points to them,
 * ascending; returns how many, 0 for a monster without a known list. */
size_t records_known_skips(int monster, const uint8_t **bones);

/* Makes the map of `pack`'s records on `rig` (NULL: no rig) for monster
 * `monster` (RECORDS_NO_MONSTER: not known), without an override.  The
 * caller owns *r (records_free).  MH_ENOMEM; on failure *r is empty. */
enum mh_err records_init(struct records *r, const struct skeleton *rig, const struct anim *pack,
			 int monster, struct mh_diag *d);

/* Puts setting s in force on r (a copy: s stays the caller's), as
 * records_parse gives it: what s sets to the value r would have anyway
 * is not an override.  MH_ERANGE (offset 0) when s does not fit the rig:
 * an offset or a skipped bone past its last bone, a bone listed twice,
 * a record that would land past the last bone, or any override without
 * a rig; MH_ENOMEM.  On failure r is as it was. */
enum mh_err records_override(struct records *r, const struct records_setting *s,
			     struct mh_diag *d);

/* Normalizes s against r: what s sets to the value r would have anyway
 * (the monster's skip list; the fork rule's offset for the skip list s
 * leaves in force) is unset.  Then checks that what stays set fits, with
 * records_override's errors (at offset 0).  MH_ENOMEM. */
enum mh_err records_fit(const struct records *r, struct records_setting *s, struct mh_diag *d);

/* The bone record i drives: r->bone[i], or -1 past nrecords. */
int32_t records_bone(const struct records *r, uint32_t record);

/* The comment naming record i's bone in a clip text: "joint 9 (b009)",
 * "joint 9", "past the rig", "no rig". */
void records_bone_label(const struct records *r, uint32_t record, char *buf, size_t len);

/* Whether bone b is the body fork or on its chain of parents (false for
 * -1, and when no joint forks). */
bool records_at_or_above_fork(const struct records *r, int32_t b);

/* Whether the map in force keeps the fork rule; *first is then -1, else
 * the first record with location channels that does not land at or above
 * the fork. */
bool records_fork_kept(const struct records *r, int32_t *first);

/* records.txt: comments saying what the map is made from (`label` the
 * pack, `rig_label` its rig or NULL, `monster_from` where the monster's
 * id was read or NULL), the offset and skip lines, then one comment line
 * per record.  Malloc'ed, NULL when out of memory. */
char *records_print(const struct records *r, const char *label, const char *rig_label,
		    const char *monster_from, size_t *len);

/* Parses records.txt (len bytes) against r: `offset N|auto` and
 * `skip B...|none|auto`, each at most once, anything else an error at
 * line:col (MH_ESYNTAX; MH_ERANGE for a value that does not fit the rig,
 * records_override's checks at the word that breaks them).  A line not
 * given, `auto`, or the value r would have anyway leaves that part
 * unset.  On success the caller owns *s (records_setting_free); on
 * failure *s is empty. */
enum mh_err records_parse(const struct records *r, const char *text, size_t len,
			  struct records_setting *s, struct mh_diag *d);

/* The override alone, as text records_parse reads back: "offset 2\n"
 * and/or "skip 3 4\n" ("" when nothing is set).  Malloc'ed, NULL when out
 * of memory. */
char *records_setting_print(const struct records_setting *s, size_t *len);

bool records_setting_equal(const struct records_setting *a, const struct records_setting *b);
void records_setting_free(struct records_setting *s); /* s may be NULL */
void records_free(struct records *r);                 /* r may be NULL */

/* ---- the layout: where a moveset's monster is named ----------------------- */

/* The monster an AI overlay names: its MWo3 header's name (at
 * RECORDS_OVERLAY_NAME_AT) "emNNNmK.ovl" gives NNN; the name goes to
 * `name` ("" when the head is no overlay).  -1 when the head is not an
 * overlay of that name. */
int records_overlay_monster(const uint8_t *head, size_t len, char *name, size_t name_len);

/* Reads up to len bytes of the head of entry `id` into buf: how many, or
 * -1 when it cannot be read. */
typedef long records_head_fn(void *ctx, uint32_t id, uint8_t *buf, size_t len);

/* The monster of the model PAC at entry `model`: walking back over whole
 * asset sets (entries model-1, model-4, ... for RECORDS_WALK_SETS sets)
 * to the first overlay, whose name says it.  *from is that overlay's
 * entry and `name` its name.  RECORDS_NO_MONSTER when the walk meets an
 * overlay of another name, an unreadable entry or the archive's start,
 * or finds none. */
int records_find_monster(uint32_t model, records_head_fn *head, void *ctx, uint32_t *from,
			 char *name, size_t name_len);

#endif
