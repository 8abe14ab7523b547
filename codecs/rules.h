/* SPDX-License-Identifier: MIT */
/* Engine rules: what an edited skeleton or animation pack must keep for
 * MHFU to load and play it (mount.mhfu(8) "Rules"; parts and
 * streams in mhfu-archive(5) "ANIMATION PACK"), checked at every commit
 * (mount.mhfu(8) "WRITING") and listed in each model folder's check.txt.
 *
 * Each rule has a stable code (its name, "PARENT_ORDER"), a default level
 * and a fix hint, listed in rules_table (and, by hand, in mount.mhfu(8)
 * "Rules").  Where the modding toolkit's validator has the same rule the
 * code and level are its own, so its users' words carry over; the rules
 * it lacks have names of their own.  The driver's log lines quote the
 * code and the hint.  A check appends one violation per offending
 * element to a caller-owned report; the driver then applies the mount's
 * mode (rules_apply_mode), demotes what was already wrong before the edit
 * (rules_demote_existing) and rejects the commit when rules_has_errors.
 *
 * Invariants:
 *  1. Pure: no I/O, no globals but const tables; every check only reads
 *     its models and appends to the report.
 *  2. MHP3rd skeletons and packs get only the rules that do not depend on
 *     MHFU's layout (rules_table's mhfu_only is false): NO_TRACKS,
 *     CHANNEL_BIT, DUPLICATE_CHANNEL, NEGATIVE_FRAME, FRAME_ORDER,
 *     EMPTY_CHANNEL.
 *  3. A violation names its element twice: as coordinates (member, bone,
 *     or stream/slot/track/channel/key, -1 where not applicable; indices
 *     count from 0 like the text's track numbers) for the driver and the
 *     text locators, and in words in msg for people. */
#ifndef MH_RULES_H
#define MH_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "clip.h"
#include "diag.h"
#include "skeleton.h"

/* The rules, in table order.  The enum's values may change between
 * versions; the names in rules_table are the stable codes. */
enum rule_code {
	RULE_PARENT_ORDER,     /* skeleton: parents before children */
	RULE_ANIMATED_COUNT,   /* skeleton: 0 < params[1] <= bones */
	RULE_BONE_LINKS,       /* skeleton: child, sibling, link agree with parents */
	RULE_STREAM_RUNS,      /* skeleton: the parts run 0,0,..,1,1,.. */
	RULE_STREAM_SUBTREE,   /* skeleton: each later part one subtree */
	RULE_PARTITION,        /* pack: one track per joint of the stream's part */
	RULE_NO_TRACKS,        /* clip: at least one track */
	RULE_TRACK_EMPTY,      /* clip: every track has a channel */
	RULE_SCALE_CHANNEL,    /* clip: no scale channel */
	RULE_CHANNEL_BIT,      /* clip: only the bits the engine plays */
	RULE_DUPLICATE_CHANNEL,/* clip: a channel bit once per track */
	RULE_TRACK_MASK,       /* clip: mask = OR of the channels' bits */
	RULE_NEGATIVE_FRAME,   /* clip: frames >= 0 */
	RULE_FRAME_ORDER,      /* clip: frames never going backwards */
	RULE_EMPTY_CHANNEL,    /* clip: every channel has a key */
	RULE_VALUE_RANGE,      /* text: numbers within s16 (the parsers' MH_ERANGE) */
	RULE_TEMPLATE,         /* skeleton: bone count and parents kept */
	RULE_UNDECODABLE,      /* item: what the game loads still decodes */
	RULE_PALETTE_JOINT,    /* PMO: a palette names a bone of the skeleton */
	RULE_EMPTY_GROUP,      /* PMO: every group has vertices */
	RULE_COUNT
};

enum rule_level {
	RULE_WARNING, /* logged; the commit goes ahead */
	RULE_ERROR,   /* the commit is rejected */
};

struct rule_info {
	enum rule_code code;
	const char *name;      /* the stable code, "PARENT_ORDER" */
	enum rule_level level; /* default level */
	bool mhfu_only;        /* skipped on MHP3rd skeletons and packs */
	bool toolkit;          /* the toolkit's validator has it, by this code */
	const char *summary;   /* what it checks, one line */
	const char *fix;       /* how to fix a violation, one line */
};

/* The table, RULE_COUNT entries indexed by enum rule_code. */
extern const struct rule_info rules_table[RULE_COUNT];

/* The entry of a code; of a name (exact, upper case), NULL if none. */
const struct rule_info *rule_info(enum rule_code code);
const struct rule_info *rule_by_name(const char *name);

/* "error" or "warning". */
const char *rule_level_name(enum rule_level level);

struct rule_violation {
	enum rule_code code;
	enum rule_level level;
	bool existing;      /* demoted: the element broke the rule before the edit */
	bool gone;          /* UNDECODABLE: the member is no longer there at all */
	char member[48];    /* rules_check_item on a PAC: the member the
			       element is in, "3.anim", "1/0.skeleton"
			       (member names of mount.mhfu(8)); "" for the
			       item itself */
	int32_t bone;       /* skeleton rules: the bone, -1 for the skeleton */
	int32_t stream;     /* pack checks: the stream, -1 otherwise */
	int32_t slot;       /*   and the slot (a clip's first use), -1 */
	int32_t track;      /* clip rules: the track, -1 for the clip */
	int32_t channel;    /*   the channel's position in the track, -1 */
	int32_t key;        /*   the key's position in the channel, -1 */
	int32_t group;      /* PMO rules: the group, -1 otherwise */
	int32_t joint;      /* the joint the track drives, -1 unknown */
	uint32_t bit;       /* the channel's bit when channel >= 0, else 0 */
	int32_t frame;      /* the key's frame when key >= 0, else 0 */
	char msg[192];      /* the element in words, then what is wrong */
	const char *fix;    /* the rule's fix hint (static) */
};

/* A growable list of violations; zero-initialize, then rules_report_free.
 * A check that cannot allocate marks the report failed (sticky until
 * freed or RULES_OFF): violations may then be missing, so a failed report
 * counts as holding errors. */
struct rule_report {
	struct rule_violation *v; /* n of them, in the order found */
	size_t n, cap;
	bool failed;              /* an allocation failed during a check */
};

void rules_report_free(struct rule_report *r); /* r may be NULL */

/* True when any violation is at RULE_ERROR, or the report failed. */
bool rules_has_errors(const struct rule_report *r);

/* ---- checks: each appends to *r and returns MH_ENOMEM when r is failed
 * (see struct rule_report), else MH_OK. */

/* PARENT_ORDER, ANIMATED_COUNT, BONE_LINKS, STREAM_RUNS, STREAM_SUBTREE
 * and, when `before` is given, TEMPLATE against it: MHFU skeletons only
 * (an MHP3rd one adds nothing). */
enum mh_err rules_check_skeleton(const struct skeleton *s,
				 const struct skeleton *before,
				 struct rule_report *r);

/* PALETTE_JOINT (against rig, NULL: skipped) and EMPTY_GROUP on a
 * decoded PMO. */
struct pmo;
enum mh_err rules_check_pmo(const struct pmo *p, const struct skeleton *rig,
			    struct rule_report *r);

/* The clip rules for a clip of format f: NO_TRACKS, CHANNEL_BIT,
 * DUPLICATE_CHANNEL, NEGATIVE_FRAME, FRAME_ORDER, EMPTY_CHANNEL, and on
 * MHFU TRACK_EMPTY, SCALE_CHANNEL, TRACK_MASK and, when part_joints >= 0,
 * PARTITION (ntracks must equal it; TRACK_EMPTY then looks only at the
 * part's tracks).  first_joint (-1: unknown) is the joint of track 0, for
 * the messages. */
enum mh_err rules_check_clip(const struct clip *c, enum clip_format f,
			     int part_joints, int first_joint,
			     struct rule_report *r);

/* The clip rules on every clip, at its first-use stream and slot, and on
 * an MHFU pack with an MHFU `rig` (NULL: skipped) PARTITION: for every
 * stream and clip used in it, at the clip's first slot in that stream,
 * stream s plays part s / 2, whose joints are the animated joints (the
 * first params[1] bones, or all when that value is missing, 0 or too
 * large) of that part; and every part with joints has its stream 2k
 * (reported at that stream, slot -1; an empty one passes). */
enum mh_err rules_check_pack(const struct anim *a, const struct skeleton *rig,
			     struct rule_report *r);

/* The rules of every skeleton and pack in an item's bytes item[0..len)
 * (rules_item.c):
 * the item itself when it is a skeleton (rules_check_skeleton) or a pack
 * (rules_check_pack against `rig`, NULL: none), and when it is a PAC,
 * every member's, recursively, a PAC's members against its own first
 * skeleton (pacpath_first_skeleton), else against `rig`; their
 * violations name the member (struct rule_violation).  `before` (NULL:
 * none) is the item's bytes before the edit: a skeleton is checked for
 * TEMPLATE against the one at the same position in it.  `whole_model`:
 * the edit replaced the item as a whole, so a PAC in it that carries its
 * own skeleton and pack and breaks no rule but TEMPLATE (and UNDECODABLE
 * for members it no longer has: another species has no second model) is
 * a port of another species, those violations warnings; otherwise
 * (a skeleton edited in place, in its PAC) TEMPLATE keeps its level.
 * Bytes that do not decode as what they sniff as are not checked (they
 * are not a skeleton or pack after all).  UNDECODABLE: where `before`
 * held, at the same position, something the game loads (a skeleton, a
 * pack, a PMO, a texture bank, or a PAC holding any of them) that
 * decoded, the new bytes there must decode as the same kind, and a PAC's
 * such members must still be there (a PMO counts as decoding while it
 * starts with its magic).  Running out of memory decoding fails the
 * report, like running out checking. */
enum mh_err rules_check_item(const uint8_t *item, size_t len,
			     const uint8_t *before, size_t before_len,
			     const struct skeleton *rig, bool whole_model,
			     struct rule_report *r);

/* Appends UNDECODABLE at the item itself (rules_item.c names its
 * member): the game loads `what` ("a skeleton") there, and the new bytes
 * do not decode as one, or (`gone`) are no longer there; `why` (may be
 * NULL when gone) is the diagnostic of the decoder that refused them, or
 * of the PAC around them.  Returns as the checks do. */
enum mh_err rules_report_undecodable(struct rule_report *r, const char *what, bool gone,
				     const struct mh_diag *why);

/* ---- levels ----------------------------------------------------------- */

enum rules_mode {
	RULES_STRICT, /* levels as checked */
	RULES_WARN,   /* every violation becomes a warning */
	RULES_OFF,    /* the report is emptied */
};

/* The rules of an edit (rules_edit.c): the entry's bytes before (entry)
 * and after it (entry_new), the item edited at path[0..depth) (0: the
 * entry itself) and its new bytes.  Checked over the item's container
 * when it has one (a skeleton's edit re-checks the packs beside it, a
 * pack's meets the skeleton beside it), a leaf member (neither skeleton,
 * pack nor PAC, before or after: a PMO, a texture bank) alone against
 * the rig its container's check would give it, else the item, with
 * rules_check_item (a whole PAC written is whole_model); what the scope
 * already broke before the edit is demoted (rules_demote_existing, run
 * only when the edit breaks a rule), and the mode applied.  The item's
 * own violations name no member.  MH_ENOMEM, or the error of a path that
 * does not resolve; *after is then to be freed all the same. */
enum mh_err rules_check_edit(const uint8_t *entry, size_t size, const uint8_t *entry_new,
			     size_t entry_len, const uint16_t *path, unsigned depth,
			     const uint8_t *item_new, size_t item_len, enum rules_mode mode,
			     struct rule_report *after);

/* RULES_OFF also clears `failed`. */
void rules_apply_mode(struct rule_report *r, enum rules_mode mode);

/* Every error of `after` that `before` (the same check run on the models
 * before the edit) also holds becomes a warning with `existing` set, so a
 * flaw the archive already had never blocks an unrelated edit.  The same
 * violation: same code, member, bone, stream, slot and track; the channel by its
 * bit and the key by its frame (so adding a channel or key elsewhere does
 * not make an old flaw new).  MH_ENOMEM leaves `after` unchanged. */
enum mh_err rules_demote_existing(struct rule_report *after,
				  const struct rule_report *before);

/* ---- locating elements in pack.txt -----------------------------------
 * (clip texts: clip_text_line in clip.h; skeleton.txt: skeleton_text_line
 * in skeleton.h) */

/* The 1-based line of the `stream N` line of stream `stream` in a
 * pack.txt anim_parse_shape accepts; 1 when there is none. */
unsigned anim_text_line(const char *text, size_t len, int stream);

#endif
