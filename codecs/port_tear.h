/* SPDX-License-Identifier: MIT */
/* The checks of a whole port (mount.mhfu(8) "PORTS"), over decoded
 * models: the port's MHFU skeleton (its rig), its MHFU pack (executor
 * entries, entries.h), its PMO, and for some the donor's or the host's.
 * Each fills a struct port_check (port.h): a verdict and its figure in
 * words.
 *
 *  - The tear: how far the clips pull the mesh apart across the body
 *    fork (rig_body_fork).  A vertex rides its main joint: the joint of
 *    its largest weight (weights below PORT_WEIGHT_EPS dropped, a
 *    joint's weights summed, ties to the lower palette slot); a joint's
 *    side is the child of the fork whose subtree holds it (joints at or
 *    above the fork have none).  A mesh edge (two vertices of one of a
 *    group's triangles) crosses the fork when its vertices ride joints
 *    of different sides.  At 25%, 50% and 75% of each listed entry
 *    (frame floor(L x fraction), L the longest of its parts' clips,
 *    entries_clip_frames; entries shorter than PORT_TEAR_MIN_FRAMES are
 *    not sampled) the rig is posed as model.glb poses it (pose.h; a part
 *    whose slot is empty rests at the bind pose) and the mesh skinned
 *    linearly (each weight times its joint's posed world transform times
 *    its inverse bind transform); an edge's growth is its posed length
 *    minus its bind length.  The check fails when some entry's worst
 *    growth reaches PORT_TEAR_LIMIT.  Native rigs have no crossing edge
 *    or tear 0; a port whose records drive the wrong joints tears
 *    hundreds of units.
 *  - Still geometry: at most PORT_STILL_SHARE of the vertices ride (any
 *    weight above PORT_WEIGHT_EPS on) a joint past the animated ones
 *    (rig_animated).
 *  - Donor bones: the donor's bones mapped onto the port's joints from
 *    the two skeletons alone (port_correspondence); every bone (or every
 *    bone the caller marks used) has a joint.
 *  - Skin: in source mode the port's vertices are the donor's, in the
 *    same order: as many, each on the same joints (the donor's bones
 *    through the map; a bone without a joint dropped and the rest
 *    normalised), each weight within PORT_WEIGHT_STEP.
 *  - Tip: a host that drops its tail (a severed chain, rig_severed_root,
 *    and a second mesh record) draws the port's mesh record 1 at the
 *    cut: the port needs a severed chain and a mesh record 1 whose
 *    groups ride (any weight above 0) that chain's joints alone.
 *  - Template (a warning): the port's skeleton against the host's, the
 *    rules' TEMPLATE (rules_check_skeleton).
 *
 * Pure: no I/O, no globals. */
#ifndef MH_PORT_TEAR_H
#define MH_PORT_TEAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "diag.h"
#include "pmo.h"
#include "port.h"
#include "skeleton.h"

#define PORT_TEAR_LIMIT 120.0      /* units an edge across the fork may grow, short of */
#define PORT_TEAR_FRACTIONS 3      /* samples an entry: at 25, 50 and 75% */
#define PORT_TEAR_MIN_FRAMES 4     /* entries shorter are not sampled */
#define PORT_WEIGHT_EPS 1e-4       /* weights at or below it are padding */
#define PORT_STILL_SHARE 0.25      /* of the vertices, at most, on still joints */
#define PORT_WEIGHT_STEP (1.0 / 128) /* one step of a u8 weight */
#define PORT_OFFSET_TOL 0.5        /* units two bind offsets may differ and match */
#define PORT_MAX_PAD 8             /* port joints tried as the donor root's image */

/* The fraction of sample i (0 .. PORT_TEAR_FRACTIONS - 1): 0.25 (i + 1). */
static inline double port_tear_fraction(int i)
{
	return 0.25 * (i + 1);
}

/* ---- the tear ------------------------------------------------------------ */

/* The most grown crossing edge at one sample. */
struct port_tear_worst {
	int32_t frame;         /* floor(L x fraction) */
	double growth;         /* units: posed length - bind length */
	uint32_t a, b;         /* its vertices, numbered over the groups in order */
	uint32_t group;        /* the group whose triangle it bounds */
	int32_t joint_a, joint_b; /* the joints a and b ride */
};

struct port_tear_entry {
	uint32_t entry;
	int32_t frames;        /* L */
	bool sampled;          /* L >= PORT_TEAR_MIN_FRAMES and an edge crosses */
	struct port_tear_worst at[PORT_TEAR_FRACTIONS]; /* when sampled */
};

struct port_tear {
	int32_t fork;          /* rig_body_fork: -1 none */
	uint32_t vertices;     /* the PMO's, over its groups */
	uint32_t crossing;     /* edges crossing the fork, each once */
	uint32_t nentries;
	struct port_tear_entry *entries; /* every listed entry, in order */
	int32_t worst;         /* index in entries of the worst sample, -1 none */
	int worst_at;          /* and its fraction */
};

/* The tear of the port whose rig, pack (MHFU; NULL or another format: no
 * entry) and body are given; the caller frees *out (port_tear_free).
 * Fails, *out empty, with MH_ENOMEM or pmo_group_triangles' errors. */
enum mh_err port_tear(const struct skeleton *rig, const struct anim *pack,
		      const struct pmo *body, struct port_tear *out, struct mh_diag *d);

void port_tear_free(struct port_tear *t); /* t may be NULL */

/* The verdict: passed when no sampled growth reaches PORT_TEAR_LIMIT
 * (RULE_ERROR); figure "worst edge growth 14.2 units (entry 12 at 50%,
 * frame 30, group 7, joints 2-3), limit 120", or why nothing was
 * measured. */
void port_tear_check(const struct port_tear *t, struct port_check *c);

/* tear.svg: a bar chart, per sampled entry a <g class="entry"
 * data-entry="E"> of three bars (<rect class="bar" data-fraction="25"
 * data-growth="G">, the worst growth at 25, 50 and 75%), and the limit
 * as a <line class="limit">.  Malloc'ed, NUL-terminated (length in *len
 * if len); NULL when out of memory. */
char *port_tear_svg(const struct port_tear *t, const char *title, size_t *len);

/* ---- the other checks ---------------------------------------------------- */

/* Still geometry on the port's rig and body (RULE_ERROR): "12 of 6000
 * vertices (0.2%) ride joints past the 45 animated (46 47), limit 25%". */
void port_still_check(const struct skeleton *rig, const struct pmo *body,
		      struct port_check *c);

/* The donor's bones on the port's joints, rebuilt from the two
 * skeletons: the donor's tree walked down the port's from the root,
 * each bone's children paired with the free children of its joint whose
 * bind offset is nearest (largest axis difference under
 * PORT_OFFSET_TOL); the port joints down its leading chain (from joint
 * 0 while a joint has one child, at most PORT_MAX_PAD) each tried as the
 * donor root's image and the walk matching most bones kept (*pad: the
 * joints above it).  Then each other donor root's tree from the free
 * port root (not joint 0) nearest its bind position (model space,
 * under PORT_OFFSET_TOL), and any bone left to the free joint nearest
 * its bind position.  joint_of[donor->nbones]: PORT_NONE for a bone
 * without a joint.  MH_ENOMEM. */
enum mh_err port_correspondence(const struct skeleton *donor, const struct skeleton *port,
				int32_t *joint_of, uint32_t *pad, struct mh_diag *d);

/* Every donor bone (used NULL) or every bone used[b] marks has a joint
 * in port_correspondence (RULE_ERROR): "47 of 47 donor bones have a
 * joint (pad 2)", or the bones lost.  MH_ENOMEM. */
enum mh_err port_bones_check(const struct skeleton *donor, const struct skeleton *port,
			     const bool *used, struct port_check *c, struct mh_diag *d);

/* The skin in source mode (RULE_ERROR): port_body's vertices against
 * donor_body's in group order (order NULL), or with port group i built
 * from donor group order[i] (order of port_body->group_count; the count
 * compared is over every donor group all the same).  A donor vertex's
 * weights name donor bones below ndonor_bones, joint_of[bone] its joint
 * (PORT_NONE: dropped); the port's name joints below nport_joints.
 * "6012 vertices as the donor's; 0 on other joints; worst weight off by
 * 0.0039, limit 0.0078".  MH_ENOMEM. */
enum mh_err port_skin_check(const struct pmo *donor_body, uint32_t ndonor_bones,
			    const int32_t *joint_of, const struct pmo *port_body,
			    uint32_t nport_joints, const uint32_t *order,
			    struct port_check *c, struct mh_diag *d);

/* The first joint of a rig's tip chain: its severed root, else (an own
 * rig that adopted the donor's orphan chain onto its hip) the top of the
 * chain of joints past the animated ones; -1 when it has neither. */
int32_t port_tip_root(const struct skeleton *s);

/* The tail tip (RULE_ERROR): passes when the host drops no tail; else
 * the port has a tip chain (its severed chain, or the chain past its
 * animated joints an own rig adopts onto its hip) and a mesh record 1
 * whose groups ride its joints alone. */
void port_tip_check(const struct skeleton *host_rig, const struct pmo *host_body,
		    const struct skeleton *port_rig, const struct pmo *port_body,
		    struct port_check *c);

/* TEMPLATE as a warning (RULE_WARNING): the port's skeleton keeps the
 * host's bone count and parents, or the first difference and how many.
 * MH_ENOMEM. */
enum mh_err port_template_check(const struct skeleton *port_rig,
				const struct skeleton *host_rig, struct port_check *c,
				struct mh_diag *d);

#endif
