/* SPDX-License-Identifier: MIT */
#include "rig.h"

#include <stdlib.h>

#include "anim.h"
#include "strbuf.h"

uint32_t rig_animated(const struct skeleton *s)
{
	if (s->nparams >= 2 && s->params[1] <= s->nbones)
		return s->params[1];
	return s->nbones;
}

bool rig_animated_sound(const struct skeleton *s)
{
	return s->nparams < 2 || (s->params[1] && s->params[1] <= s->nbones);
}

bool rig_part_joints(const struct skeleton *s, uint32_t part, uint32_t *first,
		     uint32_t *count)
{
	*first = *count = 0;
	return s->nparams >= 2 && s->nbones &&
	       anim_part_joints_of(&s->bones[0].part, sizeof s->bones[0], rig_animated(s), part,
				   first, count);
}

int32_t rig_body_fork(const struct skeleton *s)
{
	for (uint32_t j = 0; j < s->nbones; j++) {
		unsigned children = 0;
		for (uint32_t c = 0; c < s->nbones && children < 2; c++)
			children += s->bones[c].parent == (int32_t)j;
		if (children > 1)
			return (int32_t)j;
	}
	return -1;
}

int32_t rig_severed_root(const struct skeleton *s)
{
	for (uint32_t b = rig_animated(s); b < s->nbones; b++)
		if (s->bones[b].parent < 0)
			return (int32_t)b;
	return -1;
}

enum mh_err rig_bind_world(const struct skeleton *s, uint32_t b, double world[3],
			   struct mh_diag *d)
{
	world[0] = world[1] = world[2] = 0;
	int32_t at = (int32_t)b;
	/* A chain longer than the bones has a loop. */
	for (uint32_t steps = 0; at >= 0; steps++) {
		if ((uint32_t)at >= s->nbones || steps > s->nbones)
			return mh_fail(d, MH_ECORRUPT, 0, "bone %u: its chain of parents %s", b,
				       (uint32_t)at >= s->nbones ? "leaves the skeleton"
								 : "loops");
		for (int i = 0; i < 3; i++)
			world[i] += s->bones[at].position[i];
		at = s->bones[at].parent;
	}
	return MH_OK;
}

char *rig_bind_world_text(const struct skeleton *s, const char *label, size_t *len)
{
	struct strbuf t = {0};
	uint32_t animated = rig_animated(s);
	int32_t fork = rig_body_fork(s), severed = rig_severed_root(s);
	strbuf_printf(&t, "# %s: bind pose in model space (the offsets summed up each chain)\n",
		      label);
	strbuf_printf(&t, "# animated joints 0..%d; body fork %d; severed chain %s",
		      (int)animated - 1, (int)fork, severed < 0 ? "none" : "from ");
	if (severed >= 0)
		strbuf_printf(&t, "%d", (int)severed);
	strbuf_printf(&t, "\n# bone\tparent\tpart\tx\ty\tz\trole\n");
	for (uint32_t b = 0; b < s->nbones; b++) {
		const struct skeleton_bone *bone = &s->bones[b];
		double w[3];
		strbuf_printf(&t, "%u\t%d\t%u\t", b, (int)bone->parent, bone->part);
		if (rig_bind_world(s, b, w, NULL))
			strbuf_printf(&t, "-\t-\t-\t");
		else
			strbuf_printf(&t, "%.6g\t%.6g\t%.6g\t", w[0], w[1], w[2]);
		const char *role = (int32_t)b == fork	   ? "fork"
				   : (int32_t)b == severed ? "severed"
				   : bone->parent < 0	   ? "root"
				   : b >= animated	   ? "static"
							   : "-";
		strbuf_printf(&t, "%s\n", role);
	}
	return strbuf_take(&t, len);
}
