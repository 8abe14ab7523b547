/* SPDX-License-Identifier: MIT */
/* PMO display lists (mhfu-archive(5) "PMO", display lists): a group's
 * list walked as the GE walks it, its draws, and the triangles they make.
 *
 * Addresses are positions in the bytes holding the region (the PMO's own,
 * or its companion's): the lists open with ORIGIN, so a VADDR or IADDR
 * argument is the buffer's distance from that word, wherever the region
 * sits. */
#include "pmo.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#define GE_ADDR_MASK 0x0FFFFFFFu

/* The GE's address registers as a list sets them. */
struct ge_state {
	uint64_t offset;        /* ORIGIN's address or OFFSETADDR's arg << 8 */
	uint32_t base;          /* BASE's argument */
	int64_t vaddr, iaddr;   /* -1 until set */
	bool has_vtype, fface;
	struct pmo_vtype vt;
};

unsigned pmo_index_size(unsigned i)
{
	static const unsigned size[4] = {0, 1, 2, 4};
	return size[i & 3];
}

static uint32_t op_of(uint32_t word)
{
	return word >> 24;
}

static uint32_t arg_of(uint32_t word)
{
	return word & 0xFFFFFF;
}

static int64_t ge_address(const struct ge_state *s, uint32_t arg)
{
	return (int64_t)((s->offset + ((uint64_t)(s->base & 0x0F0000) << 8 | arg)) & GE_ADDR_MASK);
}

/* Counts the list's words through its RET or END, its PRIMs and the
 * vertex slots they draw (a bound on the indices they read). */
static enum mh_err scan_list(const struct pmo_region *r, struct pmo_group *grp, uint32_t g,
			     uint32_t *prims, uint64_t *slots, struct mh_diag *d)
{
	uint64_t at = grp->list_at;
	*prims = 0;
	*slots = 0;
	for (;; at += 4) {
		if (at + 4 > r->end)
			return mh_fail(d, MH_ECORRUPT, grp->list_at,
				       "group %u's display list has no RET or END before the region "
				       "ends", g);
		uint32_t w = le32(r->mem + at);
		if (op_of(w) == PMO_PRIM) {
			(*prims)++;
			*slots += w & 0xFFFF;
		}
		if (op_of(w) == PMO_RET || op_of(w) == PMO_END)
			break;
	}
	grp->cmd_count = (uint32_t)((at + 4 - grp->list_at) / 4);
	return MH_OK;
}

static enum mh_err take_budget(uint64_t *budget, uint64_t n, uint64_t at, uint32_t g,
			       struct mh_diag *d)
{
	if (n > *budget)
		return mh_fail(d, MH_ECORRUPT, at, "group %u draws more than the PMO's bytes can "
			       "hold (its blocks overlap others too often)", g);
	*budget -= n;
	return MH_OK;
}

/* An indexed draw: its indices read from the region, IADDR advanced. */
static enum mh_err read_indices(const struct pmo_region *r, struct ge_state *s,
				struct pmo_group *grp, struct pmo_draw *dr, uint32_t g,
				struct mh_diag *d)
{
	uint64_t at = grp->list_at + 4ull * dr->cmd;
	unsigned size = pmo_index_size(s->vt.index);
	if (s->iaddr < 0)
		return mh_fail(d, MH_ECORRUPT, at, "group %u: an indexed PRIM before IADDR", g);
	uint64_t from = (uint64_t)s->iaddr, n = (uint64_t)dr->count * size;
	if (from < r->start || from > r->end || n > r->end - from)
		return mh_fail(d, MH_ECORRUPT, at, "group %u: %u indices at 0x%llx lie outside the "
			       "region", g, dr->count, (unsigned long long)from);
	dr->first_index = grp->index_count;
	for (uint32_t k = 0; k < dr->count; k++) {
		const uint8_t *q = r->mem + from + (uint64_t)k * size;
		grp->indices[grp->index_count++] = size == 1 ? *q : size == 2 ? le16(q) : le32(q);
	}
	s->iaddr += (int64_t)n;
	return MH_OK;
}

/* The vertices a draw reaches past the group's buffer: its first plus
 * its count, or its highest index plus one. */
static uint64_t draw_reach(const struct pmo_group *grp, const struct pmo_draw *dr)
{
	uint64_t top = 0;
	if (!dr->indexed)
		return (uint64_t)dr->first_vertex + dr->count;
	if (!dr->count)
		return 0;
	for (uint32_t k = 0; k < dr->count; k++) {
		uint32_t v = grp->indices[dr->first_index + k];
		if (v + 1ull > top)
			top = v + 1ull;
	}
	return dr->first_vertex + top;
}

static enum mh_err do_prim(const struct pmo_region *r, struct ge_state *s,
			   struct pmo_group *grp, uint32_t i, uint32_t word, uint32_t g,
			   struct mh_diag *d)
{
	uint64_t at = grp->list_at + 4ull * i;
	if (!s->has_vtype || s->vaddr < 0)
		return mh_fail(d, MH_ECORRUPT, at, "group %u: PRIM at command %u before VTYPE and "
			       "VADDR", g, i);
	uint64_t rel = (uint64_t)s->vaddr - grp->vertex_at;
	if ((uint64_t)s->vaddr < grp->vertex_at || rel % s->vt.stride ||
	    rel / s->vt.stride > UINT32_MAX)
		return mh_fail(d, MH_ECORRUPT, at, "group %u: PRIM at command %u draws from 0x%llx, "
			       "not a vertex of its buffer at 0x%llx", g, i,
			       (unsigned long long)s->vaddr, (unsigned long long)grp->vertex_at);
	struct pmo_draw *dr = &grp->draws[grp->draw_count++];
	*dr = (struct pmo_draw){.cmd = i, .prim = (uint8_t)(word >> 16 & 7),
				.count = (uint16_t)word, .indexed = s->vt.index != 0,
				.fface = s->fface, .vtype = s->vt.word,
				.first_vertex = (uint32_t)(rel / s->vt.stride)};
	if (dr->indexed) {
		enum mh_err err = read_indices(r, s, grp, dr, g, d);
		if (err)
			return err;
	} else {
		s->vaddr += (int64_t)dr->count * s->vt.stride;
	}
	uint64_t reach = draw_reach(grp, dr);
	if (reach > UINT32_MAX)
		return mh_fail(d, MH_ECORRUPT, at, "group %u: PRIM at command %u reaches past 2^32 "
			       "vertices", g, i);
	if (reach > grp->vertex_count)
		grp->vertex_count = (uint32_t)reach;
	return MH_OK;
}

static enum mh_err do_command(const struct pmo_region *r, struct ge_state *s,
			      struct pmo_group *grp, uint32_t i, uint32_t g, struct mh_diag *d)
{
	uint32_t w = grp->cmds[i], arg = arg_of(w);
	uint64_t at = grp->list_at + 4ull * i;
	switch (op_of(w)) {
	case PMO_ORIGIN: s->offset = at; break;
	case PMO_OFFSETADDR: s->offset = (uint64_t)arg << 8; break;
	case PMO_BASE: s->base = arg; break;
	case PMO_VADDR: s->vaddr = ge_address(s, arg); break;
	case PMO_IADDR: s->iaddr = ge_address(s, arg); break;
	case PMO_FFACE: s->fface = arg & 1; break;
	case PMO_VTYPE:
		/* One vertex type a list: the vertices are one buffer. */
		if (s->has_vtype && s->vt.word != arg)
			return mh_fail(d, MH_ECORRUPT, at, "group %u sets a second vertex type 0x%06x "
				       "(after 0x%06x)", g, arg, s->vt.word);
		pmo_vtype_of(arg, &s->vt);
		s->has_vtype = true;
		break;
	case PMO_PRIM: return do_prim(r, s, grp, i, w, g, d);
	case PMO_JUMP: case PMO_BJUMP: case PMO_CALL: case PMO_BEZIER: case PMO_SPLINE:
		return mh_fail(d, MH_ECORRUPT, at, "group %u: command %u (0x%02x) jumps, calls or "
			       "draws patches, which a model list does not", g, i, op_of(w));
	default: break; /* NOP, RET, END and any other: kept, no effect here */
	}
	return MH_OK;
}

enum mh_err pmo_walk_group(const struct pmo_region *r, struct pmo_group *grp, uint32_t g,
			   uint64_t *budget, struct mh_diag *d)
{
	uint64_t len = r->end - r->start;
	if (grp->list_off >= len)
		return mh_fail(d, MH_ECORRUPT, r->start,
			       "group %u's display list offset 0x%x is past the region (0x%llx bytes)",
			       g, grp->list_off, (unsigned long long)len);
	grp->list_at = r->start + grp->list_off;
	grp->vertex_at = r->start + grp->vertex_off;
	uint32_t prims;
	uint64_t slots;
	enum mh_err err = scan_list(r, grp, g, &prims, &slots, d);
	if (err || (err = take_budget(budget, grp->cmd_count + prims + slots, grp->list_at, g, d)))
		return err;
	grp->cmds = malloc(4ull * grp->cmd_count);
	grp->draws = calloc(prims ? prims : 1, sizeof *grp->draws);
	grp->indices = malloc(slots ? 4 * slots : 4);
	if (!grp->cmds || !grp->draws || !grp->indices)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t i = 0; i < grp->cmd_count; i++)
		grp->cmds[i] = le32(r->mem + grp->list_at + 4ull * i);
	struct ge_state s = {.vaddr = -1, .iaddr = -1};
	for (uint32_t i = 0; i < grp->cmd_count; i++)
		if ((err = do_command(r, &s, grp, i, g, d)))
			return err;
	if (!s.has_vtype)
		return mh_fail(d, MH_ECORRUPT, grp->list_at, "group %u's list sets no vertex type", g);
	grp->vtype = s.vt;
	return MH_OK;
}

/* ---- triangles ------------------------------------------------------------ */

static size_t emit(uint32_t (*out)[3], size_t n, uint32_t a, uint32_t b, uint32_t c)
{
	if (a == b || b == c || a == c)
		return n; /* degenerate: the GE draws nothing */
	out[n][0] = a;
	out[n][1] = b;
	out[n][2] = c;
	return n + 1;
}

size_t pmo_unroll(unsigned prim, const uint32_t *v, size_t n, bool fface, uint32_t (*out)[3])
{
	size_t t = 0;
	unsigned swap = fface ? 1 : 0;
	if (prim == PMO_TRIANGLES) {
		for (size_t k = 0; k + 2 < n; k += 3)
			t = swap ? emit(out, t, v[k + 1], v[k], v[k + 2])
				 : emit(out, t, v[k], v[k + 1], v[k + 2]);
	} else if (prim == PMO_STRIP) {
		for (size_t k = 0; k + 2 < n; k++)
			t = (k + swap) & 1 ? emit(out, t, v[k + 1], v[k], v[k + 2])
					   : emit(out, t, v[k], v[k + 1], v[k + 2]);
	} else if (prim == PMO_FAN) {
		for (size_t k = 0; k + 2 < n; k++)
			t = swap ? emit(out, t, v[k + 1], v[0], v[k + 2])
				 : emit(out, t, v[0], v[k + 1], v[k + 2]);
	}
	return t;
}

/* A draw's vertex numbers in the group's buffer, into v (count of them). */
static void draw_vertices(const struct pmo_group *grp, const struct pmo_draw *dr, uint32_t *v)
{
	for (uint32_t k = 0; k < dr->count; k++)
		v[k] = dr->first_vertex + (dr->indexed ? grp->indices[dr->first_index + k] : k);
}

enum mh_err pmo_group_triangles(const struct pmo *p, uint32_t g, uint32_t (**tris)[3],
				size_t *count, struct mh_diag *d)
{
	*tris = NULL;
	*count = 0;
	if (g >= p->group_count)
		return mh_fail(d, MH_ERANGE, 0, "no group %u (the PMO has %u)", g, p->group_count);
	const struct pmo_group *grp = &p->groups[g];
	size_t room = 0, most = 0;
	for (uint32_t i = 0; i < grp->draw_count; i++) {
		room += grp->draws[i].count;
		if (grp->draws[i].count > most)
			most = grp->draws[i].count;
	}
	if (!room)
		return MH_OK;
	uint32_t(*out)[3] = malloc(room * sizeof *out);
	uint32_t *v = malloc(most * sizeof *v);
	if (!out || !v) {
		free(out);
		free(v);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	}
	size_t n = 0;
	for (uint32_t i = 0; i < grp->draw_count; i++) {
		draw_vertices(grp, &grp->draws[i], v);
		n += pmo_unroll(grp->draws[i].prim, v, grp->draws[i].count, grp->draws[i].fface,
				out + n);
	}
	free(v);
	if (!n) {
		free(out);
		return MH_OK;
	}
	*tris = out;
	*count = n;
	return MH_OK;
}
