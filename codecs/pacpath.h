/* SPDX-License-Identifier: MIT */
/* Members of nested PACs (mhfu-archive(5) "PAC"), addressed by a path:
 * path[0] is a member of the outermost PAC, path[1] a member of that
 * member, and so on; depth 0 addresses the whole buffer.
 *
 * Invariants:
 *  1. Every walk decodes each PAC on the path with pac_decode, so a path
 *     through bytes that are not exactly a PAC fails, naming the byte
 *     offset (from the start of the outermost buffer) and the depth.
 *  2. A splice changes only the member addressed: every PAC on the path
 *     is re-encoded at the alignment it was decoded at, with its own
 *     tail, and every other member's bytes are kept. */
#ifndef MH_PACPATH_H
#define MH_PACPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "skeleton.h"

/* The member at path[0..depth) of the PAC chain in buf[0..len): a range
 * of buf (*member points into it, valid while buf is).  Fails with the
 * PAC's error when a container on the path does not decode, MH_ERANGE
 * when an index is past its PAC's count, MH_ENOMEM; d says at which byte
 * of buf. */
enum mh_err pacpath_member(const uint8_t *buf, size_t len, const uint16_t *path,
			   unsigned depth, const uint8_t **member,
			   size_t *member_len, struct mh_diag *d);

/* buf with the member at path[0..depth) replaced by member[0..member_len)
 * (invariant 2); at depth 0, a copy of member.  *out is malloc'ed and
 * owned by the caller.  Fails as pacpath_member does, and with MH_ERANGE
 * when a PAC on the path cannot be encoded (a member over 4 GiB, every
 * member empty: pac_encode's reasons). */
enum mh_err pacpath_splice(const uint8_t *buf, size_t len, const uint16_t *path,
			   unsigned depth, const uint8_t *member,
			   size_t member_len, uint8_t **out, size_t *out_len,
			   struct mh_diag *d);

/* The first member of the PAC in buf[0..len) that is a skeleton (sniffs
 * as one and decodes), decoded into *rig, which the caller then owns
 * (skeleton_free).  *found is false, and *rig empty, when no member is;
 * fails (with *found false) when buf is not a PAC that decodes, or with
 * MH_ENOMEM. */
enum mh_err pacpath_first_skeleton(const uint8_t *buf, size_t len,
				   struct skeleton *rig, bool *found,
				   struct mh_diag *d);

/* The rig of the item at path[0..depth): the first skeleton among the
 * members of its container (the PAC at path[0..depth-1)), as
 * pacpath_first_skeleton gives it.  *found is false for depth 0 (an
 * entry has no container) and when the container holds no skeleton;
 * fails as pacpath_member and pacpath_first_skeleton do. */
enum mh_err pacpath_item_rig(const uint8_t *buf, size_t len, const uint16_t *path,
			     unsigned depth, struct skeleton *rig, bool *found,
			     struct mh_diag *d);

#endif
