/* SPDX-License-Identifier: MIT */
/* Facts the game derives from a skeleton (mhfu-archive(5) "SKELETON"):
 * which joints are animated, each bone's bind position in model space,
 * the body fork and the severed chain.  Pure functions of the model. */
#ifndef MH_RIG_H
#define MH_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "skeleton.h"

/* The animated joints: the first params[1] bones (MHFU monsters), else
 * all of them (also when params[1] is past the bones). */
uint32_t rig_animated(const struct skeleton *s);

/* Whether the rig says soundly how many joints are animated: no second
 * params value (all are), or one of 1 to the bone count.  The rules'
 * ANIMATED_COUNT; the rules that need the parts are skipped without it. */
bool rig_animated_sound(const struct skeleton *s);

/* The joints MHFU part `part` drives on the rig: the contiguous run of
 * animated joints (rig_animated) whose part is `part`
 * (anim_part_joints).  False, *first and *count then meaningless, when
 * the rig gives no animated count (params' second value) or the part
 * has no such run.  Allocates nothing: it cannot fail otherwise. */
bool rig_part_joints(const struct skeleton *s, uint32_t part, uint32_t *first,
		     uint32_t *count);

/* The body fork: the lowest joint with more than one child (counted by
 * their parent fields), -1 if none. */
int32_t rig_body_fork(const struct skeleton *s);

/* The first bone of the severed chain: a root past the animated joints
 * (a cuttable tail), -1 if none. */
int32_t rig_severed_root(const struct skeleton *s);

/* Bone b's bind position in model space: the sum of the offsets up its
 * chain to its root.  A chain that does not reach a root (a parent out
 * of range, a loop) fails with MH_ECORRUPT naming the bone. */
enum mh_err rig_bind_world(const struct skeleton *s, uint32_t b, double world[3],
			   struct mh_diag *d);

/* bind_world.tsv: one line per bone (bone, parent, part, x, y, z, role),
 * headed by comments naming `label` and the rig's facts.  Malloc'ed, NULL
 * when out of memory; a bone whose chain is broken shows "-" for x y z. */
char *rig_bind_world_text(const struct skeleton *s, const char *label, size_t *len);

#endif
