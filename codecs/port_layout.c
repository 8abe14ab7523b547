/* SPDX-License-Identifier: MIT */
/* The layout (port.h step 4): which entry plays which donor clip. */
#include "port_int.h"

#include <stdlib.h>

bool port_place_donor(const struct port_place *p)
{
	return p->entry >= 0 && p->clip >= 0;
}

/* The donor clip of id `id`: its index in clips (ascending ids), -1. */
static int32_t clip_index(const struct port_clip *clips, uint32_t n, uint32_t id)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (clips[mid].id == id)
			return (int32_t)mid;
		if (clips[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct packing {
	const struct port_host *h;
	const struct port_clip *clips;
	uint32_t nclips;
	int32_t *at;         /* per entry: the clip's index, -1 */
	enum port_how *how;  /* per entry, where at >= 0 */
	int32_t *entry_of;   /* per clip: its entry, -1 */
};

static void put(struct packing *p, uint32_t entry, uint32_t clip, enum port_how how)
{
	p->at[entry] = (int32_t)clip;
	p->how[entry] = how;
	p->entry_of[clip] = (int32_t)entry;
}

/* Whether an entry can take a donor clip at all. */
static bool open_entry(const struct packing *p, uint32_t e)
{
	return e < p->h->capacity && !p->h->partial[e];
}

/* The entry a pin freed for the clip it displaced from `entry`: the
 * pinned clip's own number, followed while another pin took that one
 * too; -1 when the chain ends at no open entry. */
static int32_t freed_by(const struct packing *p, uint32_t entry)
{
	for (uint32_t steps = 0; steps <= p->nclips; steps++) {
		uint32_t own = p->clips[p->at[entry]].id;
		if (!open_entry(p, own))
			return -1;
		if (p->at[own] < 0)
			return (int32_t)own;
		if (p->how[own] != PORT_HOW_PINNED)
			return -1;
		entry = own;
	}
	return -1;
}

/* The frames and loop of what the host keeps at entry e: the clip of its
 * lowest part that fills it. */
static void host_kept(const struct port_host *h, uint32_t e, struct port_place *pl)
{
	for (uint32_t k = 0; k < h->nparts; k++) {
		const struct clip *c = port_part_clip(&h->pack, e, k);
		if (c) {
			pl->frames = entries_clip_frames(c);
			pl->loop = c->loop != 0;
			pl->loop_start = c->loop_start;
			return;
		}
	}
}

static void donor_place(const struct port_clip *c, int32_t entry, enum port_how how,
			struct port_place *pl)
{
	*pl = (struct port_place){.entry = entry,
				  .clip = (int32_t)c->id,
				  .frames = entries_clip_frames(c->clip),
				  .loop = c->clip->loop != 0,
				  .loop_start = c->clip->loop_start,
				  .how = how};
}

static void pack(struct packing *p, const struct port_settings *s)
{
	const struct port_host *h = p->h;
	for (uint32_t i = 0; i < s->npins; i++) {
		int32_t c = clip_index(p->clips, p->nclips, s->pins[i].clip);
		uint32_t e = s->pins[i].entry;
		if (c >= 0 && open_entry(p, e) && p->at[e] < 0 && p->entry_of[c] < 0)
			put(p, e, (uint32_t)c, PORT_HOW_PINNED);
	}
	for (uint32_t c = 0; c < p->nclips; c++) {
		uint32_t id = p->clips[c].id;
		if (p->entry_of[c] >= 0 || !open_entry(p, id))
			continue;
		if (p->at[id] < 0) {
			put(p, id, c, PORT_HOW_OWN);
			continue;
		}
		int32_t freed = freed_by(p, id);
		if (freed >= 0)
			put(p, (uint32_t)freed, c, PORT_HOW_MOVED);
	}
	/* The rest by id: the free entries the host fills first (its own
	 * brain asks for them), then the others from 0 up. */
	uint32_t next = 0, round = 0, c = 0;
	for (; round < 2; round++, next = 0)
		for (; next < h->capacity; next++) {
			bool host_fills = h->filled[next];
			if (!open_entry(p, next) || p->at[next] >= 0 || host_fills != (round == 0))
				continue;
			while (c < p->nclips && p->entry_of[c] >= 0)
				c++;
			if (c == p->nclips)
				return;
			put(p, next, c, round == 0 ? PORT_HOW_FREE_HOST : PORT_HOW_FREE);
		}
}

enum mh_err port_layout(const struct port_host *h, const struct port_clip *clips, uint32_t nclips,
			const struct port_settings *s, struct port_place **places,
			uint32_t *nplaces, struct mh_diag *d)
{
	uint32_t cap = h->capacity;
	struct packing p = {.h = h, .clips = clips, .nclips = nclips};
	enum mh_err err = MH_OK;
	*places = NULL;
	*nplaces = 0;
	p.at = malloc((cap ? cap : 1) * sizeof *p.at);
	p.how = calloc(cap ? cap : 1, sizeof *p.how);
	p.entry_of = malloc((nclips ? nclips : 1) * sizeof *p.entry_of);
	size_t room = (size_t)cap + nclips;
	struct port_place *pl = malloc((room ? room : 1) * sizeof *pl);
	if (!p.at || !p.how || !p.entry_of || !pl) {
		free(pl);
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
		goto out;
	}
	for (uint32_t e = 0; e < cap; e++)
		p.at[e] = -1;
	for (uint32_t c = 0; c < nclips; c++)
		p.entry_of[c] = -1;
	pack(&p, s);
	uint32_t n = 0;
	for (uint32_t e = 0; e < cap; e++, n++) {
		if (p.at[e] >= 0) {
			donor_place(&clips[p.at[e]], (int32_t)e, p.how[e], &pl[n]);
			continue;
		}
		pl[n] = (struct port_place){.entry = (int32_t)e,
					    .clip = PORT_NONE,
					    .how = h->partial[e]  ? PORT_HOW_PARTIAL
						   : h->filled[e] ? PORT_HOW_HOST
								  : PORT_HOW_EMPTY};
		host_kept(h, e, &pl[n]);
	}
	for (uint32_t c = 0; c < nclips; c++)
		if (p.entry_of[c] < 0)
			donor_place(&clips[c], PORT_NONE, PORT_HOW_UNPLACED, &pl[n++]);
	*places = pl;
	*nplaces = n;
out:
	free(p.at);
	free(p.how);
	free(p.entry_of);
	return err;
}
