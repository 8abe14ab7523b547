/* SPDX-License-Identifier: MIT */
/* Ports (mount.mhfu(8) "PORTS"): an MHP3rd monster's moveset carried onto
 * an MHFU host, as a pure function
 *
 *     (host PAC, donor bundle, settings) -> (PAC, map, layout, checks)
 *
 * In the host-rig mode (`mode host`, the default) the donor's moveset is
 * retargeted onto the host's own skeleton; the host's skeleton, PMO and
 * texture bank are kept as they are, and only the pack (member 3) is
 * rebuilt.  The steps, each a function of the ones before:
 *
 *  1. The record map (records.h): which donor bone each record drives,
 *     the donor's override (donor.h) in force.
 *  2. Joint matching (port_match.c): bind-world positions (rig.h); cost
 *     distance + PORT_DEPTH_COST per level of tree depth difference;
 *     only pairs closer (strictly) than a quarter of the donor's
 *     bounding-box diagonal; greedy in cost order (ties: lower host
 *     joint, then lower bone), each host joint and donor bone used once,
 *     over every host joint (those past the animated ones get no track:
 *     not_animated); then the leading origin chains (joints from 0 up
 *     within PORT_ORIGIN of the origin) paired from their hip ends,
 *     surplus host ones left unmatched, a joint whose greedy bone the
 *     pairing takes left too_far.  `map JOINT BONE|-` lines are put in
 *     force first: their joints and bones stay out of both passes.  A
 *     matched bone's record is the lowest driving it; none: no_record.
 *  3. Tracks (port_motion.c): joint -> donor bone -> record -> the donor
 *     clip's track, its kept channels (one bit inside PORT_KEPT_BITS,
 *     with keys: scale dropped) copied raw and sorted by bit, stably; a
 *     joint no donor bone drives, or whose track keeps no channel or is
 *     past the clip's tracks, gets a rest track: rotation X, Y and Z
 *     keyed 0 at frame 0 and at the clip's length (entries_clip_frames;
 *     at least frame PORT_REST_SPAN), never an empty track.  `lift`
 *     adds round(16 x lift) location units to the pelvis' location-Y
 *     keys, saturating at the s16 range (the pelvis: the animated joint
 *     of least depth, then lowest index, whose donor track has a kept
 *     location-Y channel in some clip).
 *  4. Layout (port_layout.c): donor clip id stream x 100 + slot, every
 *     filled slot of every stream (a filled slot past 99 makes the donor
 *     MH_ECORRUPT).  The capacity is the host's entry count
 *     (PORT_TIGREX_ENTRIES for the Tigrex, em 75; otherwise the larger
 *     of 100 and one past the host's last filled entry), limited to the
 *     entries whose slots every part with joints has (and ENTRIES_MAX).
 *     `pin` lines first; then each clip id below the capacity into the
 *     entry of its number, and a clip whose entry a pin took into the
 *     entry that pin freed: the pinned clip's own number, followed back
 *     while another pin took that one too (moved); the rest, by id, into
 *     free entries (those the host fills first, then the others from 0
 *     up).  A partial entry (the host fills it in some parts but not in
 *     part 0: the Tigrex's 24 and 25, played by the head alone) never
 *     gets a whole-rig clip, nor a pin.  Entries left over keep the
 *     host's clips; clips with no room are listed unplaced.
 *  5. The split: entry e of part k is slot e % 100 of stream 2k + e / 100
 *     (entries.h); each part gets the clip's loop and loop_start.
 *  6. The checks (port_check.c); out.pac exists only when none fails.
 *     out.pac is the host's PAC with member 3 replaced (anim_compact,
 *     anim_encode), every other member, the alignment and the tail as
 *     they were.
 *
 * Mode own (`mode own`): the donor's own skeleton, converted to an MHFU
 * one (port_rig.c), ships instead of the host's; the steps change so:
 *
 *  1'. The own rig.  The donor's animated bones: one past the last bone
 *     a record drives.  Every root past bone 0 (the orphan root chain)
 *     is re-parented onto donor bone 1 (the hip; bone 1 itself onto 0),
 *     its offset kept, so it moves with the body (the toolkit's adopter;
 *     not the port's joint 1, which is a pad joint when pad > 0).  A
 *     donor whose bone's parent does not come before it is refused.  The
 *     lead pad: host origin chain length - the donor's (PORT_ORIGIN, as
 *     in step 2), at least 0, joints at the origin chained in front, so
 *     the donor's hip lands on the host's hip index (the Brute, 2, on
 *     the Tigrex, 3: pad 1).  The partition (read off the tree with
 *     the adopted parents and bind-world z): the tail is the subtree
 *     holding the most -Z animated bone, the head (among the rest) the
 *     most +Z, each grown from that bone to its parent while the
 *     parent's whole subtree holds at most 40% of the animated bones
 *     (floor, at least 1), no bone past them and none of the tail, and
 *     never up to joint 0; when only the bone itself fits, the whole
 *     subtree of 2..40% reaching furthest instead.  No head when the two
 *     meet or leave no body; under 3 animated bones, one part.  Order:
 *     the pad, the body (the other animated bones in donor order), the
 *     head, the tail, then the bones past the animated ones; parts 0, 1,
 *     2 (a missing head or tail takes no id), the rest one more; params
 *     {0, animated + pad}.  Bones keep scale, rotation, position and
 *     kind; a kind-2 link is renumbered, or dropped (kind 1) when it no
 *     longer names an earlier joint; child and sibling rebuilt (roots no
 *     siblings); the MHP3rd name dropped.  The native Tigrex offered as
 *     a donor comes back in its order, parts 31/9/5.
 *  2'. Joints: per own joint its donor bone (none for a pad: `pad`),
 *     the lowest record driving it (`own`; none: `no-record`); a `map J
 *     B|-` line gives joint J bone B's record (or none) instead, the
 *     bone's own joint keeping it.  The hip: the own rig's last leading
 *     origin joint.
 *  3'. Tracks as in step 3 over the own rig's animated joints, then the
 *     travel carried on each whole-rig clip (port_carry_travel): joint
 *     0's location X and Z onto the root (joint 0's first child, the
 *     joint the engine moves the monster by), the root's X and Z and
 *     both joints' Y (summed, keyed on both key sets) onto joint 0, where
 *     the FK draws them; the pose is the same.  Left as it was where the
 *     rig has no root at the origin, joint 0 has a rotation key off 0,
 *     or a summed key leaves the s16 range (r->carried, r->uncarried).
 *  4'. Layout as in step 4 on the host's pack (capacity, partial
 *     entries), but no host clip is kept: entries left over are empty
 *     (how `empty`, a partial one `partial`, frames 0).  The own rig
 *     may have at most as many parts as the host's pack has streams for.
 *  6'. out.pac: member 0 the own rig (skeleton_encode), member 2 the
 *     donor's texture bank as stored, member 3 the pack; member 1 stays
 *     the host's PMO until the body is swapped in (port_int.h's
 *     port_host.body).  The rules get whole_model: TEMPLATE and
 *     UNDECODABLE are warnings when nothing else breaks.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_PORT_H
#define MH_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "diag.h"
#include "donor.h"
#include "rules.h"
#include "skeleton.h"

#define PORT_DEPTH_COST 50.0    /* per level of tree depth difference */
#define PORT_ORIGIN 1.0         /* an origin joint's distance to the origin at most */
#define PORT_KEPT_BITS 0x1ffu   /* channels copied: rotation, location, 0x1/0x2/0x4 */
#define PORT_REST_SPAN 2        /* a rest track's last key at least at this frame */
#define PORT_TIGREX_EM 75
#define PORT_TIGREX_ENTRIES 123u
#define PORT_NONE (-1)

/* ---- settings (port.txt; port_text.c) ---------------------------------- */

enum port_mode {
	PORT_MODE_HOST, /* the donor's moveset on the host's skeleton (the default) */
	PORT_MODE_OWN,  /* the donor's own skeleton converted (port_rig.c) ships */
};

/* Whose skin weights the body carries in mode own (port_body.h). */
enum port_skin {
	PORT_SKIN_SOURCE,   /* the donor's own, through the joint map (the default) */
	PORT_SKIN_TRANSFER, /* the host model's, at the closest surface point */
};

struct port_pin {
	uint32_t clip;   /* donor clip id, stream x 100 + slot */
	uint32_t entry;
	unsigned line, col; /* where the pin's clip is in port.txt */
};

struct port_map_line {
	uint32_t joint;  /* host joint */
	int32_t bone;    /* donor bone, PORT_NONE for `-` (no bone) */
	unsigned line, col; /* where the joint is in port.txt */
};

struct port_settings {
	enum port_mode mode;
	bool skin_set;             /* `skin` given (mode own only) */
	enum port_skin skin;
	unsigned skin_line, skin_col;
	bool lift_set;
	double lift;               /* model units (16 location units each) */
	unsigned lift_line, lift_col;
	uint32_t npins;
	struct port_pin *pins;     /* in text order; a clip or entry at most once */
	uint32_t nmaps;
	struct port_map_line *maps; /* in text order; a joint at most once */
};

/* Parses port.txt: blank and '#' lines ignored; `mode host|own`, `skin
 * source|transfer`, `lift N` (at most once each), `pin CLIP ENTRY`, `map
 * JOINT BONE|-`.  A line that breaks the grammar is MH_ESYNTAX at its
 * line:col saying what was expected.  Ranges, and `skin` outside mode
 * own, are port_settings_check's.  On failure *s is empty.  The caller
 * frees *s. */
enum mh_err port_settings_parse(const char *text, size_t len, struct port_settings *s,
				struct mh_diag *d);

/* Checks s against the host (its PAC) and the donor (NULL: none yet):
 * a map's joint past the rig's joints (the host's in mode host, the own
 * rig's in mode own: not checked without a donor) or bone past the
 * donor's bones (at the map's line:col), a pin's clip the donor does not
 * have, entry past the capacity or partial (at the pin's), a lift whose
 * location units leave the keys' range, -2048..2047.9375: MH_ERANGE with
 * the allowed range; `skin` in mode host: MH_ERANGE at the skin's
 * line:col (it says whose weights the donor's body carries, and mode host
 * ships the host's body: refused rather than ignored, so a port.txt never
 * holds a line that does nothing).  A host that is no model PAC, or in
 * mode own a donor rig that does not convert: port_run's errors. */
enum mh_err port_settings_check(const struct port_settings *s, const uint8_t *host,
				size_t host_len, int host_em, const struct donor *donor,
				struct mh_diag *d);

void port_settings_free(struct port_settings *s); /* s may be NULL */

/* The same settings: mode, skin, lift, pins and maps in order; where
 * they were written (line, col) is not compared. */
bool port_settings_equal(const struct port_settings *a, const struct port_settings *b);

/* ---- the port (port.c) ------------------------------------------------- */

/* Why a host joint has the donor bone it has (map.tsv's `why`). */
enum port_why {
	PORT_WHY_NEAREST,   /* greedy, by cost */
	PORT_WHY_ORIGIN,    /* the leading origin chains, paired from the hip */
	PORT_WHY_SET,       /* a `map` line */
	PORT_WHY_UNSET,     /* a `map JOINT -` line */
	PORT_WHY_TOO_FAR,   /* no donor bone within the cutoff was left */
	PORT_WHY_SURPLUS,   /* a leading origin joint the donor has no match for */
	PORT_WHY_NO_RECORD, /* matched, but no record drives that bone: rests */
	PORT_WHY_NOT_ANIMATED, /* past the rig's animated joints: no track */
	/* mode own (the own rig's joints) */
	PORT_WHY_PAD,       /* an origin joint put in front of the donor's: rests */
	PORT_WHY_OWN,       /* the donor bone's own joint, a record driving it */
};
#define PORT_WHY_LAST PORT_WHY_OWN

struct port_joint {
	int32_t bone;       /* donor bone, PORT_NONE */
	int32_t record;     /* the record driving it, PORT_NONE */
	double distance;    /* between bind-world positions, when bone >= 0 */
	int32_t depth_gap;  /* donor depth - host depth, when bone >= 0 */
	enum port_why why;
};

/* How an entry got what it plays (layout.tsv's `how`). */
enum port_how {
	PORT_HOW_OWN,       /* the donor clip of the entry's number */
	PORT_HOW_PINNED,    /* a `pin` line */
	PORT_HOW_MOVED,     /* displaced by a pin: into the entry the pin freed */
	PORT_HOW_FREE_HOST, /* a free entry the host fills */
	PORT_HOW_FREE,      /* another free entry */
	PORT_HOW_PARTIAL,   /* a partial entry: the host's clips kept */
	PORT_HOW_HOST,      /* no donor clip: the host's clips kept */
	PORT_HOW_EMPTY,     /* no donor clip and no host clip */
	PORT_HOW_UNPLACED,  /* a donor clip no entry was left for */
};

struct port_place {
	int32_t entry;      /* PORT_NONE for an unplaced clip */
	int32_t clip;       /* donor clip id, PORT_NONE when the host's are kept */
	int32_t frames;     /* the clip's length (entries_clip_frames), the donor
			       clip's, or for a kept entry the host's clip of
			       the lowest part filling it (0 when empty) */
	bool loop;
	float loop_start;
	enum port_how how;
};

enum port_check_code {
	/* the engine's rules on out.pac (rules_check_item, before the
	 * host's PAC, not whole_model): no error */
	PORT_CHECK_RULES,
	/* every animated joint of every placed donor clip keyed over its
	 * span: a joint playing a donor track over that track's (from frame
	 * 0, or the donor's first key if later, to the donor's last key: a
	 * channel ending early holds its last key, in natives too), a rest
	 * track from 0 to the clip's length L (entries_clip_frames; at least
	 * PORT_REST_SPAN); over the channels with keys whose bits are kept */
	PORT_CHECK_SPAN,
	PORT_CHECK_SCALE,   /* no bit past PORT_KEPT_BITS in a placed clip's parts */
	/* every donor clip placed once or listed unplaced; a placed one's
	 * part clips (every part with joints) there, its loop and loop_start
	 * in each, and the longest of them its length L (PORT_REST_SPAN when
	 * L is shorter: the rest tracks' least span) */
	PORT_CHECK_PLACED,
	PORT_CHECK_HIP,     /* the hip (r->hip) has a donor bone and a record */
	PORT_CHECK_FORK,    /* records with location channels at or above the
			       fork (records_fork_kept on the donor's map) */
	PORT_CHECK_SIZE,    /* a warning: the PAC is larger than the host's */
	/* The checks of a whole port, mode own only (port_tear.h; skipped
	 * in mode host, whose body is the host's own): */
	PORT_CHECK_STILL,   /* at most 25% of vertices on joints not animated */
	PORT_CHECK_TEAR,    /* edges crossing the body fork grow less than 120
			       units at 25, 50 and 75% of every clip */
	PORT_CHECK_BONES,   /* every donor bone survives on a joint */
	PORT_CHECK_SKIN,    /* skin source: the donor's vertices, joints and
			       weights (within 1/128); skipped with skin transfer */
	PORT_CHECK_TIP,     /* a host that drops its tail: mesh record 1 holds
			       the tip chain's groups */
	PORT_CHECK_TEMPLATE, /* a warning: the rig against the host's (TEMPLATE) */
	PORT_CHECKS,
};

struct port_check {
	bool skipped;           /* not checked in this mode (passed) */
	bool passed;
	enum rule_level level;  /* RULE_ERROR, PORT_CHECK_SIZE RULE_WARNING */
	char figure[192];       /* the figure behind the verdict, in words */
};

struct port_result {
	enum port_mode mode;
	uint32_t njoints;          /* the rig's joints: the host's, or the own rig's */
	struct port_joint *joints; /* per joint of that rig */
	int32_t hip;               /* the rig's hip: its last leading origin joint */
	int32_t pelvis;            /* the joint `lift` moves, PORT_NONE */
	uint32_t capacity;
	uint32_t nplaces;
	struct port_place *places; /* entries 0..capacity-1 in order, then the unplaced */
	struct port_check checks[PORT_CHECKS];
	struct rule_report rules;  /* PORT_CHECK_RULES's violations */
	struct anim pack;          /* the built pack (also when a check failed) */
	uint8_t *pac;              /* out.pac: NULL when a check failed */
	size_t pac_len;
	size_t host_len;           /* the host PAC's size, for PORT_CHECK_SIZE */
	/* mode own */
	struct skeleton rig;       /* the own rig (out.pac's member 0); empty in mode host */
	uint32_t pad;              /* its origin joints put in front of the donor's */
	enum port_skin skin;       /* the body's weights */
	char *tear_svg;            /* tear.svg (port_tear_svg), NULL in mode host */
	size_t tear_svg_len;
	uint32_t carried;          /* placed clips whose travel was carried, */
	uint32_t uncarried;        /*   and those left as they were (joint 0
				      turns, or the rig has no root at the origin) */
};

/* Ports donor onto the MHFU model PAC host[0..host_len) (member 0 its
 * skeleton, member 3 its pack), species host_em (-1 unknown) with
 * settings s.  MH_OK with *r filled, out.pac set when every error-level
 * check passed; an error with *r empty: s out of range
 * (port_settings_check's MH_ERANGE), the host no model PAC with an MHFU
 * skeleton naming its animated joints, each a part of an MHFU pack in
 * runs, or the donor's moveset filling a slot past 99 (MH_ECORRUPT),
 * MH_ENOMEM.  The caller frees *r (port_result_free). */
enum mh_err port_run(const uint8_t *host, size_t host_len, int host_em,
		     const struct donor *donor, const struct port_settings *s,
		     struct port_result *r, struct mh_diag *d);

/* The checks on a built pack, port_run's last step, there for tests that
 * break a built pack on purpose: fills r->checks, r->rules and
 * r->host_len from r->pack (which it compacts: clips may move), r->joints,
 * r->hip and r->places (r->pac is left alone).  A pack that no longer
 * encodes fails RULES (and SIZE); MH_ENOMEM, or port_run's host errors. */
enum mh_err port_verify(const uint8_t *host, size_t host_len, const struct donor *donor,
			struct port_result *r, struct mh_diag *d);

void port_result_free(struct port_result *r); /* r may be NULL */

/* ---- texts (port_text.c) ----------------------------------------------- */

/* port.txt as the mount shows it: comments naming host and donor (either
 * label may be NULL), the lines of s (normalized), then every computed
 * default as a comment line (`# mode host`, or in mode own `# skin
 * source`; `# lift 0`, `# map J B` per joint of r's rig: the host's, or
 * in mode own the own rig's, `# pin C E` per placed clip) from r (NULL:
 * no donor yet).
 * Malloc'ed, NULL when out of memory. */
char *port_settings_print(const struct port_settings *s, const struct port_result *r,
			  const char *host_label, const char *donor_label, size_t *len);

/* map.tsv: a heading line, then per host joint: joint donor_bone record
 * distance depth_gap why ("-" for none). */
char *port_map_tsv(const struct port_result *r, size_t *len);

/* layout.tsv: a heading line, then per entry: entry clip frames loop how,
 * then a row per unplaced clip (entry "-", how "unplaced"). */
char *port_layout_tsv(const struct port_result *r, size_t *len);

/* check.txt: per check a line "NAME ok|error|warning: figure", then the
 * rules' violations, then whether out.pac exists. */
char *port_check_text(const struct port_result *r, size_t *len);

/* check.txt of a port that could not run: `why` it could not (a donor
 * that does not decode, settings that no longer fit), or, NULL, that no
 * donor was given and what to copy in. */
char *port_check_unmade(const char *host_label, const char *donor_label, const char *why,
			size_t *len);

const char *port_check_name(enum port_check_code c); /* "rules", "span", ... */
const char *port_why_name(enum port_why w);          /* "nearest", ... */
const char *port_how_name(enum port_how h);          /* "own", ... */
const char *port_skin_name(enum port_skin s);        /* "source", "transfer" */

#endif
