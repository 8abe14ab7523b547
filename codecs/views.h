/* The text views of a model as the mount shows them: the codecs' text
 * with the comments that place it (which entry, stream and slot, which
 * joints).  Shared by the filesystem and the sample generator, whose
 * extraction is the mount tests' oracle. */
#ifndef MH_VIEWS_H
#define MH_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "skeleton.h"

/* skeleton.txt of the skeleton named `label` (e.g. "file_06185/0.skeleton"). */
char *views_skeleton_text(const struct skeleton *s, const char *label, size_t *len);

/* pack.txt of a pack. */
char *views_pack_text(const struct anim *a, size_t *len);

/* The first joint an MHFU stream's tracks drive, from the rig's parts
 * (stream s plays part s/2 over the first params[1] joints); -1 when
 * unknown: no rig, an MHP3rd pack, or parts that are not a run. */
int views_first_joint(const struct anim *a, const struct skeleton *rig,
		      uint32_t stream);

/* The text of clip `clip` of the pack named `label`, headed by the slot
 * that first uses it (the file the other slots link to) and, given the
 * rig, its part and joints.  rig may be NULL. */
char *views_clip_text(const struct anim *a, uint32_t clip, const char *label,
		      const struct skeleton *rig, size_t *len);

/* The file name of a slot's view, "slot024.txt" or "slot024.bin", and
 * the target of a slot's symlink when it shares an earlier slot's clip
 * ("slot000.txt" or "../stream0/slot000.txt"); "" when it does not. */
void views_slot_name(uint32_t slot, int bin, char *buf, size_t len);
void views_slot_link(const struct anim *a, uint32_t stream, uint32_t slot,
		     int bin, char *buf, size_t len);

#endif
