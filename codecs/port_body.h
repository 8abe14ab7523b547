/* SPDX-License-Identifier: MIT */
/* A port's body (mhfu-archive(5) "A port's PMO"): the donor's model
 * re-laid as an MHFU "1.0" PMO skinned to the port's rig, as a pure
 * function
 *
 *     (donor PMO, donor skeleton, bone -> joint map, port rig, skin mode
 *      [, host PMO, host skeleton, host joint -> joint map], tip joints)
 *         -> (PMO bytes, report)
 *
 * The PMO: the 0x18 monster mesh table (the 0x20 player table collapsed
 * or crashed the game), one position scale in the header, a group per
 * donor group that draws a triangle, drawing the triangles the donor's
 * group draws (pmo_group_triangles: strips and fans unrolled, degenerate
 * triangles dropped, in draw order) as one indexed triangle list with
 * u16 indices over the donor group's vertices 0 up to the highest a
 * triangle names, in the donor's numbering.  A vertex is u8 weights, u16
 * UV, s8 normal, s16 position; colours are dropped.
 *
 *  - Scale: per axis the largest |position| of a written vertex, times
 *    32768/32767, so the farthest vertex is s16 32767 (1 on an axis where
 *    every position is 0); the cull radius is its largest component.
 *  - UVs: the donor's as the GE samples them (UV scale and offset
 *    applied) over the mesh's UV scale, 1 on an axis unless a UV passes
 *    65535/32768, then that UV x 32768/65535; a UV below 0 is written as
 *    0 and counted (uv_clamped).
 *  - Normals: x 128 to the nearest, within -128..127.
 *  - Weights: each vertex's joints (below) over its group's palette, u8
 *    summing to 128 (largest remainders get the leftover units, ties to
 *    the lower slot), so each is within 1/128 of its share.
 *  - Palettes: a group's joints in ascending order in slots 0 up, at
 *    most PMO_MAX_WEIGHTS: a group whose vertices blend more keeps the 8
 *    with the most weight over the group (ties: the lower joint), as the
 *    original toolkit's ports do, each vertex renormalised over those
 *    kept (a vertex left with none rides the heaviest whole); such
 *    vertices are counted (capped).  Donor groups have 8 slots, so
 *    `source` never caps.
 *  - Materials: the donor's table copied whole, in order; mesh 0's remap
 *    run lists the materials its groups use in first use; with a tip,
 *    the tip's are copies appended after the donor's, so mesh 1's run
 *    names none of mesh 0's (as the toolkit's shipped ports have it).
 *    Lighting and blend 0 in both records, as those ports ship.
 *  - Meshes: one; with tip joints two: groups whose dominant joint (most
 *    weight summed over the group's written vertices, ties the lower
 *    joint) is a tip joint go to mesh 1 (the engine draws record 1 at
 *    the cut of a severed tail and crashes without one), the rest to
 *    mesh 0, each in donor order.  Mesh 1 is written even when no group
 *    goes there (tip_groups tells).
 *
 * The joints of a vertex:
 *  - PORT_SKIN_SOURCE: the donor's own weights, weight k on the bone in
 *    the donor group's slot k (pmo_group.slot_bone; a vertex type
 *    without weights rides slot 0 whole), mapped through joint_of_bone.
 *  - PORT_SKIN_TRANSFER: the host model's weights at the point of its
 *    surface (every host triangle with an area, host bind pose, model
 *    space) closest to the vertex (ties: the first triangle in group and
 *    draw order), blended by that point's barycentric shares, each host
 *    joint mapped through joint_of_host.
 *  In both, a bone or joint the map gives no port joint (dead) hands its
 *  weight to its nearest ancestor that has one, and drops it when none
 *  does; slots naming no bone drop theirs.  A joint's weights add up, the
 *  row is renormalised, and a vertex left with nothing rides port joint 0.
 *
 * Pure: no I/O, no globals. */
#ifndef MH_PORT_BODY_H
#define MH_PORT_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "pmo.h"
#include "port.h"
#include "skeleton.h"

#define PORT_BODY_JOINTS 256u /* palette entries name a joint in a byte */

struct port_body_in {
	const struct pmo *donor;          /* decoded; either version */
	const struct skeleton *donor_rig; /* the bones the donor's palettes name */
	const int32_t *joint_of_bone;     /* per donor bone: port joint, PORT_NONE */
	const struct skeleton *port_rig;  /* the port's MHFU rig */
	enum port_skin skin;
	/* PORT_SKIN_TRANSFER only (NULL otherwise): */
	const struct pmo *host;           /* the host's MHFU model, decoded */
	const struct skeleton *host_rig;
	const int32_t *joint_of_host;     /* per host joint: port joint, PORT_NONE */
	/* The tip chain's port joints (when the host can drop its tail);
	 * none: one mesh. */
	const int32_t *tip_joints;
	uint32_t ntip_joints;
};

/* A written vertex: where it came from and what it blends. */
struct port_body_vertex {
	uint32_t group, vertex;             /* the donor's group and its vertex */
	uint8_t count;                      /* joints below with a weight */
	uint8_t joint[PMO_MAX_WEIGHTS];     /* port joints, ascending */
	float weight[PMO_MAX_WEIGHTS];      /* as written (u8 / 128), summing to 1 */
};

struct port_body_report {
	uint32_t nvertices;
	struct port_body_vertex *vertices;  /* in the PMO's group and vertex order */
	uint32_t ngroups;                   /* written groups */
	uint32_t *donor_group;              /* per written group: the donor's */
	uint8_t *palette_size;              /* per written group */
	uint32_t tip_groups;                /* the last ones, in mesh 1 */
	uint32_t animated;                  /* the rig's animated joints (rig_animated) */
	uint32_t on_static;                 /* vertices whose heaviest joint (ties: the
					       lower) is not animated */
	uint32_t capped;                    /* vertices that lost joints to the palette cap */
	uint32_t uv_clamped;                /* UV components below 0 written as 0 */
};

/* The donor's body re-laid for the port, malloc'ed into *pmo (the
 * caller's), with *rep filled (the caller frees it with
 * port_body_report_free, also after a failure).  MH_ERANGE for inputs
 * that do not fit: a missing input the skin mode needs, a port rig of
 * no joints or more than PORT_BODY_JOINTS, a map entry or tip joint
 * past the port's joints, a donor material past 255 (remap entries are
 * bytes) or more than 255 in a mesh's run, a donor group of more than
 * 65536 vertices drawn (u16 indices), a written position not finite;
 * MH_ECORRUPT for a donor group whose material is past the tables or a
 * host with no triangle of any area in transfer mode; pmo_build's
 * errors; MH_ENOMEM. */
enum mh_err port_body(const struct port_body_in *in, uint8_t **pmo, size_t *len,
		      struct port_body_report *rep, struct mh_diag *d);

void port_body_report_free(struct port_body_report *rep); /* rep may be NULL */

#endif
