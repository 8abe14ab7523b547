/* SPDX-License-Identifier: MIT */
/* What the port's files share (port.h): the host opened once, the
 * donor's clips by id, and each step's function.  Pure: no I/O, no
 * globals. */
#ifndef MH_PORT_INT_H
#define MH_PORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "clip.h"
#include "entries.h"
#include "pac.h"
#include "pmo.h"
#include "records.h"
#include "port.h"
#include "skeleton.h"

/* The MHFU model PAC's members the port reads and writes. */
#define PORT_HOST_SKELETON 0u
#define PORT_HOST_BODY 1u      /* the PMO */
#define PORT_HOST_TEXTURES 2u  /* the texture bank */
#define PORT_HOST_PACK 3u
/* Clip ids: stream x PORT_ID_STREAM + slot. */
#define PORT_ID_STREAM 100u

#define PORT_RIG_PARTS 3u   /* body, head, tail */
#define PORT_ADOPTER 1u     /* the donor bone orphan roots are re-parented onto */

/* The skeleton mode own ships: the donor's, converted (port.h). */
struct port_rig {
	struct skeleton skel;      /* MHFU, params {0, animated}; out.pac's member 0 */
	uint32_t pad;              /* origin joints put in front of the donor's */
	uint32_t donor_animated;   /* the donor's animated bones (port_driven_bones) */
	uint32_t animated;         /* donor_animated + pad */
	uint32_t nparts;           /* 1..PORT_RIG_PARTS: body, then head and tail when found */
	uint32_t part_count[PORT_RIG_PARTS]; /* joints per part (the pad in the body's) */
	int32_t head_part, tail_part; /* their part ids, PORT_NONE when not found */
	uint32_t ndonor;           /* the donor's bones */
	int32_t *joint_of;         /* per donor bone: its joint */
	uint32_t njoints;          /* pad + ndonor */
	int32_t *bone_of;          /* per joint: its donor bone, PORT_NONE for a pad */
	uint32_t nadopted;
	uint32_t *adopted;         /* the donor's orphan roots, ascending (NULL when none) */
};

/* The host, decoded, with what the layout needs of it.  In mode own
 * (port_host_own) the rig is the own rig: skel, animated and the part
 * runs are its; the pack, capacity and entries stay the host's. */
struct port_host {
	struct pac pac;
	struct skeleton skel;      /* member 0, MHFU; mode own: the own rig's */
	bool own;                  /* mode own: rig holds the conversion */
	struct port_rig rig;       /*   (its skel moved into skel) */
	/* Mode own: out.pac's member 1, malloc'ed; NULL keeps the host's.
	 * The seam where the donor's body, re-laid as an MHFU PMO for the
	 * own rig (rig.joint_of), goes. */
	uint8_t *body;
	size_t body_len;
	uint32_t *body_group;      /* per group of the body: the donor's it */
	uint32_t body_groups;      /*   was made from (port_body's report) */
	/* Mode own, decoded once for the body and its checks: the host's
	 * skeleton (port_host_own), its body and the donor's (port_own_body;
	 * has_host_body false when member 1 does not decode). */
	struct skeleton host_skel;
	struct pmo host_body;
	bool has_host_body;
	struct pmo donor_body;
	struct anim pack;          /* member 3, MHFU */
	uint32_t animated;         /* rig_animated */
	uint32_t nparts;           /* entries_parts of the pack */
	uint32_t *part_first;      /* per part: its joints' run; */
	uint32_t *part_count;      /*   count 0 for a part without joints */
	uint32_t capacity;
	bool filled[ENTRIES_MAX];  /* entries_listed */
	bool partial[ENTRIES_MAX]; /* filled, but not in part 0 */
};

/* Decodes host[0..len) (MH_ECORRUPT: no model PAC with an MHFU skeleton
 * whose animated joints each play a part of an MHFU pack, as runs) and
 * works out its capacity for species em.  On failure *h is empty. */
enum mh_err port_host_open(const uint8_t *host, size_t len, int em, struct port_host *h,
			   struct mh_diag *d);
void port_host_free(struct port_host *h);

/* Mode own on an opened host: the donor's rig converted
 * (port_rig_from_donor, its animated bones port_driven_bones) becomes the
 * rig the pack plays on; the part runs and capacity are worked out again
 * on the host's pack.  MH_ECORRUPT: the rig does not convert, or has
 * more parts than the host's pack has streams for.  On failure *h is
 * freed. */
enum mh_err port_host_own(struct port_host *h, const struct donor *donor, int em,
			  struct mh_diag *d);

/* port_host_open, then in mode own with a donor port_host_own (the body
 * is port_own_body's, run by what ports, not by what checks settings). */
enum mh_err port_host_open_mode(const uint8_t *host, size_t len, int em,
				const struct donor *donor, enum port_mode mode,
				struct port_host *h, struct mh_diag *d);

/* ---- port_whole.c: a whole monster (mode own) ---- */

/* The donor's body (its PMO with its companion geometry) re-laid as an
 * MHFU PMO on the own rig (port_body.h) into h->body and h->body_group;
 * the host PAC host[0..len) gives the host's body for skin transfer and
 * says whether the host drops its tail (the tip).  MH_ECORRUPT for a
 * donor or host body that does not decode; port_body's errors. */
enum mh_err port_own_body(struct port_host *h, const uint8_t *host,
			  const struct donor *donor, enum port_skin skin, struct mh_diag *d);

/* The checks of a whole port (STILL, TEAR, BONES, SKIN, TIP, TEMPLATE;
 * port_tear.h) on the built PAC pac[0..pac_len) against the host h as
 * port_own_body left it, and r->tear_svg.  In mode host they are
 * skipped.  MH_ENOMEM. */
enum mh_err port_own_checks(const struct port_host *h, const struct donor *donor,
			    const uint8_t *pac, size_t pac_len, struct port_result *r,
			    struct mh_diag *d);

/* Part k's clip at entry e: NULL when the slot is empty or missing. */
const struct clip *port_part_clip(const struct anim *a, uint32_t entry, uint32_t part);

/* A donor clip: its id and the moveset's clip (owned by the moveset). */
struct port_clip {
	uint32_t id;
	const struct clip *clip;
};

/* Every filled slot of every stream, by ascending id; MH_ECORRUPT for a
 * filled slot past PORT_ID_STREAM - 1 (its id would be the next
 * stream's).  *out malloc'ed (NULL when n is 0). */
enum mh_err port_donor_clips(const struct anim *moveset, struct port_clip **out, uint32_t *n,
			     struct mh_diag *d);
/* The donor clip of id `id`, NULL when the donor has none. */
const struct clip *port_donor_clip(const struct anim *moveset, uint32_t id);

/* The settings against an opened host (port_settings_check). */
enum mh_err port_settings_check_host(const struct port_settings *s, const struct port_host *h,
				     const struct donor *donor, struct mh_diag *d);

/* ---- port_match.c ---- */

/* Fills joints[0..host->nbones) and *hip (step 2 of port.h). */
enum mh_err port_match(const struct skeleton *host, const struct skeleton *donor,
		       const struct records *map, const struct port_settings *s,
		       struct port_joint *joints, int32_t *hip, struct mh_diag *d);

/* A bone's depth: its parents up to a root (a chain that does not end
 * counts as far as the bones go). */
int32_t port_depth(const struct skeleton *s, uint32_t b);

/* Every bone's bind-world position (rig_bind_world), 3 doubles each;
 * MH_ECORRUPT naming `whose` rig for a broken chain.  *out malloc'ed. */
enum mh_err port_bind_of(const struct skeleton *s, const char *whose, double **out,
			 struct mh_diag *d);

/* The leading origin chain: how many joints from 0 up sit within
 * PORT_ORIGIN of the origin (world: 3 doubles per joint). */
uint32_t port_leading_origin(const double *world, uint32_t n);

/* ---- port_rig.c: the own rig (mode own) ---- */

/* The donor bones a moveset animates: one past the last bone a record
 * drives (0 when none drives any). */
uint32_t port_driven_bones(const struct records *map);

/* The record driving donor bone b: the lowest, PORT_NONE when none. */
int32_t port_record_of(const struct records *map, int32_t bone);

/* The partition of a rig read off its tree (port.h "mode own"):
 * parents[0..n) (each before its bone) and bind-world positions world
 * (3 doubles per bone); `animated` clamped to n.  order[0..n) gets the
 * new -> old permutation (body, head, tail, then the bones past the
 * animated ones), counts[0..*nparts) the joints per part, *head and
 * *tail their part ids (PORT_NONE: none).  MH_ENOMEM only. */
enum mh_err port_rig_partition(const int32_t *parents, const double *world, uint32_t n,
			       uint32_t animated, uint32_t *order,
			       uint32_t counts[PORT_RIG_PARTS], uint32_t *nparts, int32_t *head,
			       int32_t *tail, struct mh_diag *d);

/* The own rig's joints (port.h step 2, mode own) into joints[0..njoints)
 * and *hip: joint -> donor bone (map lines first) -> record; `own` is
 * the rig's skeleton (rig->skel, or where it was moved to). */
enum mh_err port_own_joints(const struct port_rig *rig, const struct skeleton *own,
			    const struct skeleton *donor,
			    const struct records *map, const struct port_settings *s,
			    struct port_joint *joints, int32_t *hip, struct mh_diag *d);

/* Converts the donor's skeleton (MHP3rd) into the MHFU skeleton mode own
 * ships, `animated` donor bones animated (0 or past the bones: all), the
 * lead padded to the host's.  MH_ECORRUPT: a donor bone whose parent
 * does not come before it, a broken chain; MH_ENOMEM.  On failure *rig
 * is empty.  The caller frees it (port_rig_free). */
enum mh_err port_rig_from_donor(const struct skeleton *donor, uint32_t animated,
				const struct skeleton *host, struct port_rig *rig,
				struct mh_diag *d);
void port_rig_free(struct port_rig *rig); /* rig may be NULL */

/* ---- port_motion.c ---- */

/* The pelvis: the root-most animated joint (least depth, then lowest
 * index) whose track has a location-Y channel in some donor clip;
 * PORT_NONE when none. */
int32_t port_pelvis(const struct skeleton *host, uint32_t animated,
		    const struct port_joint *joints, const struct port_clip *clips,
		    uint32_t nclips);

/* Whether a donor channel is copied: one bit inside PORT_KEPT_BITS, and
 * keys. */
bool port_kept_channel(const struct clip_channel *ch);

/* The donor clip as the host's whole rig, MHFU: one track per animated
 * joint; `lift` location units added to the pelvis' location-Y keys
 * (saturating).  *out empty on failure (MH_ENOMEM). */
enum mh_err port_whole_clip(const struct clip *donor, const struct port_joint *joints,
			    uint32_t animated, int32_t pelvis, int32_t lift, struct clip *out,
			    struct mh_diag *d);

/* Part k's share of a whole-rig clip (its joints' tracks, the loop): a
 * copy into *out. */
enum mh_err port_part_of(const struct clip *whole, const struct port_host *h, uint32_t part,
			 struct clip *out, struct mh_diag *d);

/* Travel carried (port.h, mode own): the root the engine moves a
 * monster by, joint 0's first child, when the rig lets travel move onto
 * it (joint 0 and the root at the origin, the root's parent 0); else
 * PORT_NONE. */
int32_t port_travel_root(const struct skeleton *s);

enum port_carry {
	PORT_CARRIED,
	PORT_CARRY_NO_ROOT,   /* no track for the root */
	PORT_CARRY_ROTATES,   /* joint 0 has a rotation key off 0 */
	PORT_CARRY_RANGE,     /* a summed height leaves the keys' range */
	PORT_CARRY_FAILED,    /* out of memory (d says so) */
};

/* Moves a whole-rig clip's travel (track 0: joint 0, track root: the
 * root): joint 0's location X and Z onto the root, the root's X and Z
 * and both Y (summed) onto joint 0; other channels stay, sorted by bit;
 * a track left without channels rests.  The pose is the same (both
 * joints only translate, their offsets add).  Anything but PORT_CARRIED
 * leaves c as it was. */
enum port_carry port_carry_travel(struct clip *c, uint32_t root, struct mh_diag *d);

/* ---- port_layout.c ---- */

/* The places (port.h's struct port_place, r->places' order) of the donor
 * clips on the host, pins in force.  Frames and loop are the donor
 * clip's, or the host's part-0 clip's for the entries it keeps. */
enum mh_err port_layout(const struct port_host *h, const struct port_clip *clips, uint32_t nclips,
			const struct port_settings *s, struct port_place **places,
			uint32_t *nplaces, struct mh_diag *d);

/* Whether a place holds a donor clip in an entry. */
bool port_place_donor(const struct port_place *p);

/* ---- port_check.c ---- */

/* What out.pac holds in place of the host's members 0..2 (the pack,
 * member 3, is given apart): data[k] NULL keeps the host's member k. */
struct port_members {
	const uint8_t *data[PORT_HOST_PACK];
	size_t len[PORT_HOST_PACK];
};

/* Mode own's members: the own rig's skeleton (encoded into *skeleton,
 * malloc'ed, the caller frees it), h->body when set (else the host's
 * PMO), the donor's texture bank as stored (DONOR_TMH; the host's when
 * the donor has none).  Plain host mode: nothing replaced. */
enum mh_err port_members_of(const struct port_host *h, const struct donor *donor,
			    struct port_members *m, uint8_t **skeleton, struct mh_diag *d);

/* The host's PAC with member 3 replaced by pack's bytes and members 0..2
 * by swap's (NULL: none), everything else as it was, checked.  *out
 * malloc'ed. */
enum mh_err port_build_pac(const uint8_t *host, const struct port_host *h,
			   const struct port_members *swap, const uint8_t *pack, size_t pack_len,
			   uint8_t **out, size_t *len, struct mh_diag *d);

/* port_verify on an opened host; *pac (NULL: not wanted) gets the built
 * PAC when the pack encodes, NULL otherwise. */
enum mh_err port_verify_host(const uint8_t *host, size_t host_len, const struct port_host *h,
			     const struct donor *donor, struct port_result *r, uint8_t **pac,
			     size_t *pac_len, struct mh_diag *d);

#endif
