/* SPDX-License-Identifier: MIT */
/* The checks of a whole port (port_tear.h).
 *
 * The tear is measured on the crossing edges alone: they are found once,
 * then each sample poses only the joints their vertices ride (and those
 * joints' ancestors, lazily) and skins only those vertices, so a whole
 * Tigrex-sized port costs a few hundred small poses. */
#include "port_tear.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entries.h"
#include "pose.h"
#include "rig.h"
#include "rules.h"
#include "strbuf.h"
#include "svg.h"

/* ---- verdicts ------------------------------------------------------------ */

static void verdict(struct port_check *c, bool passed, enum rule_level level, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static void verdict(struct port_check *c, bool passed, enum rule_level level, const char *fmt,
		    ...)
{
	va_list ap;
	c->passed = passed;
	c->level = level;
	va_start(ap, fmt);
	vsnprintf(c->figure, sizeof c->figure, fmt, ap);
	va_end(ap);
}

/* Up to 8 numbers of list[0..n) as "3 9 12 (+4)" at the end of buf. */
static void few(char *buf, size_t size, const int32_t *list, uint32_t n)
{
	size_t at = strlen(buf);
	for (uint32_t i = 0; i < n && i < 8 && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%d", i ? " " : "", list[i]);
	if (n > 8 && at < size)
		snprintf(buf + at, size - at, " (+%u)", n - 8);
}

/* ---- a vertex's weights -------------------------------------------------- */

/* The joints a vertex blends and their weights: weight k on the group's
 * slot_bone[k] (an unweighted vertex type rides slot 0 whole, as
 * model.glb has it), those above eps on a bone below nbones kept, one
 * joint's summed, normalised to 1.  Returns how many (0: the vertex
 * stays where it is). */
static unsigned influences(const struct pmo_group *g, const struct pmo_vertex *v,
			   uint32_t nbones, double eps, int32_t joint[PMO_MAX_WEIGHTS],
			   double w[PMO_MAX_WEIGHTS])
{
	unsigned n = 0, slots = g->vtype.weight ? g->vtype.weights : 1;
	double total = 0;
	for (unsigned k = 0; k < slots && k < PMO_MAX_WEIGHTS; k++) {
		double wk = g->vtype.weight ? v->weights[k] : 1.0;
		int32_t b = g->slot_bone[k];
		if (!(wk > eps) || b < 0 || (uint32_t)b >= nbones)
			continue;
		unsigned i = 0;
		while (i < n && joint[i] != b)
			i++;
		if (i == n) {
			joint[n] = b;
			w[n++] = 0;
		}
		w[i] += wk;
		total += wk;
	}
	for (unsigned i = 0; i < n; i++)
		w[i] /= total;
	return n;
}

/* The joint of the largest weight (the first of equals), -1 for none. */
static int32_t main_joint(const int32_t *joint, const double *w, unsigned n)
{
	int32_t best = -1;
	double most = 0;
	for (unsigned i = 0; i < n; i++)
		if (best < 0 || w[i] > most) {
			best = joint[i];
			most = w[i];
		}
	return best;
}

/* ---- the tear: the model ------------------------------------------------- */

/* A vertex of a crossing edge, ready to skin: its weights and its place
 * in each joint's bind frame. */
struct skin_vertex {
	unsigned n;
	int32_t joint[PMO_MAX_WEIGHTS];
	double w[PMO_MAX_WEIGHTS];
	double local[PMO_MAX_WEIGHTS][3];
	double rest[3];  /* where it stays without a weight */
	double posed[3];
};

struct crossing_edge {
	uint32_t a, b;        /* vertices over all groups, a < b */
	uint32_t sa, sb;      /* their skin_vertex */
	uint32_t group;
	double bind;          /* bind length */
};

struct tear_model {
	const struct skeleton *rig;
	uint32_t nbones;
	int32_t *parent;             /* loop-free (pose_parents) */
	double (*bind)[POSE_XF];
	double (*world)[POSE_XF];    /* posed, valid where stamp says so */
	uint32_t *stamp, now;
	const struct clip_track **track_of; /* the entry's track per joint */
	double frame;
	int32_t *side;               /* per joint: the fork's child above it, -1 */
	int32_t *main;               /* per vertex: its main joint */
	int32_t *skin_of;            /* per vertex: its skin_vertex, -1 */
	struct skin_vertex *skin;
	uint32_t nskin;
	struct crossing_edge *edges;
	uint32_t nedges, cap;
};

static void model_free(struct tear_model *m)
{
	free(m->parent);
	free(m->bind);
	free(m->world);
	free(m->stamp);
	free(m->track_of);
	free(m->side);
	free(m->main);
	free(m->skin_of);
	free(m->skin);
	free(m->edges);
}

static enum mh_err no_memory(struct mh_diag *d)
{
	return mh_fail(d, MH_ENOMEM, 0, "out of memory for the tear");
}

/* The rig's bind transforms and each joint's side of the fork. */
static bool model_rig(struct tear_model *m, int32_t fork)
{
	uint32_t n = m->nbones, *seen = malloc((n ? n : 1) * sizeof *seen);
	bool *done = calloc(n ? n : 1, sizeof *done);
	m->parent = malloc((n ? n : 1) * sizeof *m->parent);
	m->bind = malloc((n ? n : 1) * sizeof *m->bind);
	m->world = malloc((n ? n : 1) * sizeof *m->world);
	m->stamp = calloc(n ? n : 1, sizeof *m->stamp);
	m->track_of = calloc(n ? n : 1, sizeof *m->track_of);
	m->side = malloc((n ? n : 1) * sizeof *m->side);
	bool ok = seen && done && m->parent && m->bind && m->world && m->stamp && m->track_of &&
		  m->side;
	if (ok) {
		pose_parents(m->rig, m->parent, seen);
		for (uint32_t b = 0; b < n; b++)
			pose_bind_world(m->rig, m->parent, b, m->bind, done);
		for (uint32_t b = 0; b < n; b++) {
			/* Up the chain to the fork's child, if the chain meets the fork. */
			int32_t at = (int32_t)b;
			while (at >= 0 && m->parent[at] != fork)
				at = m->parent[at];
			m->side[b] = fork >= 0 && at >= 0 && at != fork ? at : -1;
		}
	}
	free(seen);
	free(done);
	return ok;
}

static bool add_edge(struct tear_model *m, uint32_t a, uint32_t b, uint32_t group)
{
	if (m->nedges == m->cap) {
		uint32_t cap = m->cap ? 2 * m->cap : 64;
		struct crossing_edge *e = realloc(m->edges, cap * sizeof *e);
		if (!e)
			return false;
		m->edges = e;
		m->cap = cap;
	}
	m->edges[m->nedges++] = (struct crossing_edge){.a = a < b ? a : b, .b = a < b ? b : a,
						       .group = group};
	return true;
}

static int compare_edges(const void *x, const void *y)
{
	const struct crossing_edge *a = x, *b = y;
	if (a->a != b->a)
		return (a->a > b->a) - (a->a < b->a);
	return (a->b > b->b) - (a->b < b->b);
}

/* Group g's vertex v, numbered over the groups; the group's first in *first. */
static const struct pmo_vertex *vertex_at(const struct pmo *p, const uint32_t *first,
					  uint32_t at, uint32_t *group)
{
	uint32_t lo = 0, hi = p->group_count;
	while (hi - lo > 1) { /* the last group starting at or before `at` */
		uint32_t mid = (lo + hi) / 2;
		if (first[mid] <= at)
			lo = mid;
		else
			hi = mid;
	}
	*group = lo;
	return &p->groups[lo].vertices[at - first[lo]];
}

/* Every vertex's main joint, and the edges crossing the fork, each once. */
static enum mh_err model_edges(struct tear_model *m, const struct pmo *p, uint32_t *first,
			       struct mh_diag *d)
{
	uint32_t total = 0;
	for (uint32_t g = 0; g < p->group_count; g++) {
		first[g] = total;
		total += p->groups[g].vertices ? p->groups[g].vertex_count : 0;
	}
	m->main = malloc((total ? total : 1) * sizeof *m->main);
	m->skin_of = malloc((total ? total : 1) * sizeof *m->skin_of);
	if (!m->main || !m->skin_of)
		return no_memory(d);
	for (uint32_t g = 0; g < p->group_count; g++) {
		const struct pmo_group *grp = &p->groups[g];
		for (uint32_t v = 0; grp->vertices && v < grp->vertex_count; v++) {
			int32_t joint[PMO_MAX_WEIGHTS];
			double w[PMO_MAX_WEIGHTS];
			unsigned n = influences(grp, &grp->vertices[v], m->nbones, PORT_WEIGHT_EPS,
						joint, w);
			m->main[first[g] + v] = main_joint(joint, w, n);
			m->skin_of[first[g] + v] = -1;
		}
	}
	for (uint32_t g = 0; g < p->group_count; g++) {
		const struct pmo_group *grp = &p->groups[g];
		if (!grp->vertices)
			continue;
		uint32_t(*tris)[3] = NULL;
		size_t count = 0;
		enum mh_err err = pmo_group_triangles(p, g, &tris, &count, d);
		if (err)
			return err;
		for (size_t t = 0; t < count; t++)
			for (int k = 0; k < 3; k++) {
				uint32_t a = tris[t][k], b = tris[t][(k + 1) % 3];
				if (a >= grp->vertex_count || b >= grp->vertex_count)
					continue;
				int32_t ja = m->main[first[g] + a], jb = m->main[first[g] + b];
				if (ja < 0 || jb < 0 || m->side[ja] < 0 || m->side[jb] < 0 ||
				    m->side[ja] == m->side[jb])
					continue;
				if (!add_edge(m, first[g] + a, first[g] + b, g)) {
					free(tris);
					return no_memory(d);
				}
			}
		free(tris);
	}
	if (m->nedges)
		qsort(m->edges, m->nedges, sizeof *m->edges, compare_edges);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < m->nedges; i++)
		if (!kept || compare_edges(&m->edges[kept - 1], &m->edges[i]))
			m->edges[kept++] = m->edges[i];
	m->nedges = kept;
	return MH_OK;
}

/* The crossing edges' vertices, each once, in their joints' bind frames. */
static enum mh_err model_skin(struct tear_model *m, const struct pmo *p, const uint32_t *first,
			      struct mh_diag *d)
{
	m->skin = malloc((2 * (size_t)m->nedges + 1) * sizeof *m->skin);
	if (!m->skin)
		return no_memory(d);
	for (uint32_t i = 0; i < m->nedges; i++) {
		struct crossing_edge *e = &m->edges[i];
		for (int end = 0; end < 2; end++) {
			uint32_t at = end ? e->b : e->a, g;
			if (m->skin_of[at] < 0) {
				const struct pmo_vertex *v = vertex_at(p, first, at, &g);
				struct skin_vertex *s = &m->skin[m->nskin];
				s->n = influences(&p->groups[g], v, m->nbones, PORT_WEIGHT_EPS,
						  s->joint, s->w);
				for (int c = 0; c < 3; c++)
					s->rest[c] = v->pos[c];
				for (unsigned k = 0; k < s->n; k++)
					pose_unapply(m->bind[s->joint[k]], s->rest, s->local[k]);
				m->skin_of[at] = (int32_t)m->nskin++;
			}
			*(end ? &e->sb : &e->sa) = (uint32_t)m->skin_of[at];
		}
		const double *a = m->skin[e->sa].rest, *b = m->skin[e->sb].rest;
		e->bind = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
			       (a[2] - b[2]) * (a[2] - b[2]));
	}
	return MH_OK;
}

/* ---- the tear: posing ----------------------------------------------------- */

/* Joint j's world transform at the model's frame, its ancestors' first. */
static const double *posed(struct tear_model *m, uint32_t j)
{
	if (m->stamp[j] == m->now)
		return m->world[j];
	int32_t p = m->parent[j];
	const double *pw = p >= 0 ? posed(m, (uint32_t)p) : NULL;
	double r[9], t[3];
	pose_local(&m->rig->bones[j], m->track_of[j], m->frame, r, t);
	pose_compose(pw, r, t, m->world[j]);
	m->stamp[j] = m->now;
	return m->world[j];
}

/* Which track drives each joint in entry e, and the entry's length. */
static int32_t drive_entry(struct tear_model *m, const struct anim *pack, uint32_t e)
{
	int32_t frames = 0;
	memset(m->track_of, 0, m->nbones * sizeof *m->track_of);
	for (uint32_t k = 0, n = entries_parts(pack); k < n; k++) {
		uint32_t stream, slot, first, count;
		int32_t clip = entries_part_clip(pack, e, k, &stream, &slot);
		if (clip == ANIM_EMPTY)
			continue;
		const struct clip *c = &pack->clips[clip];
		int32_t f = entries_clip_frames(c);
		frames = f > frames ? f : frames;
		if (!rig_part_joints(m->rig, k, &first, &count))
			continue;
		for (uint32_t i = 0; i < c->ntracks && i < count && first + i < m->nbones; i++)
			m->track_of[first + i] = &c->tracks[i];
	}
	return frames;
}

/* The worst crossing edge at `frame` of the driven entry. */
static void sample(struct tear_model *m, int32_t frame, struct port_tear_worst *w)
{
	m->frame = frame;
	if (++m->now == 0) { /* the stamps wrapped: start them over */
		memset(m->stamp, 0, m->nbones * sizeof *m->stamp);
		m->now = 1;
	}
	for (uint32_t i = 0; i < m->nskin; i++) {
		struct skin_vertex *s = &m->skin[i];
		if (!s->n) {
			memcpy(s->posed, s->rest, sizeof s->posed);
			continue;
		}
		memset(s->posed, 0, sizeof s->posed);
		for (unsigned k = 0; k < s->n; k++) {
			double at[3];
			pose_apply(posed(m, (uint32_t)s->joint[k]), s->local[k], at);
			for (int c = 0; c < 3; c++)
				s->posed[c] += s->w[k] * at[c];
		}
	}
	*w = (struct port_tear_worst){.frame = frame, .growth = -INFINITY};
	for (uint32_t i = 0; i < m->nedges; i++) {
		const struct crossing_edge *e = &m->edges[i];
		const double *a = m->skin[e->sa].posed, *b = m->skin[e->sb].posed;
		double len = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
				  (a[2] - b[2]) * (a[2] - b[2]));
		if (len - e->bind > w->growth) {
			w->growth = len - e->bind;
			w->a = e->a;
			w->b = e->b;
			w->group = e->group;
			w->joint_a = m->main[e->a];
			w->joint_b = m->main[e->b];
		}
	}
	if (w->joint_a > w->joint_b) {
		int32_t t = w->joint_a;
		w->joint_a = w->joint_b;
		w->joint_b = t;
	}
}

void port_tear_free(struct port_tear *t)
{
	if (!t)
		return;
	free(t->entries);
	memset(t, 0, sizeof *t);
}

enum mh_err port_tear(const struct skeleton *rig, const struct anim *pack,
		      const struct pmo *body, struct port_tear *out, struct mh_diag *d)
{
	memset(out, 0, sizeof *out);
	out->worst = -1;
	out->fork = rig_body_fork(rig);
	struct tear_model m = {.rig = rig, .nbones = rig->nbones};
	uint32_t *first = malloc((body->group_count ? body->group_count : 1) * sizeof *first);
	enum mh_err err = MH_OK;
	if (!first || !model_rig(&m, out->fork))
		err = no_memory(d);
	if (!err)
		err = model_edges(&m, body, first, d);
	if (!err)
		err = model_skin(&m, body, first, d);
	if (!err && !(out->entries = calloc(ENTRIES_MAX, sizeof *out->entries)))
		err = no_memory(d);
	for (uint32_t g = 0; !err && g < body->group_count; g++)
		out->vertices += body->groups[g].vertices ? body->groups[g].vertex_count : 0;
	out->crossing = m.nedges;
	bool mhfu = pack && pack->format == CLIP_MHFU;
	for (uint32_t e = 0; !err && mhfu && e < ENTRIES_MAX; e++) {
		if (!entries_listed(pack, e))
			continue;
		struct port_tear_entry *te = &out->entries[out->nentries++];
		te->entry = e;
		te->frames = drive_entry(&m, pack, e);
		te->sampled = te->frames >= PORT_TEAR_MIN_FRAMES && m.nedges;
		for (int i = 0; te->sampled && i < PORT_TEAR_FRACTIONS; i++) {
			sample(&m, (int32_t)floor(te->frames * port_tear_fraction(i)), &te->at[i]);
			const struct port_tear_worst *best =
				out->worst >= 0 ? &out->entries[out->worst].at[out->worst_at] : NULL;
			if (!best || te->at[i].growth > best->growth) {
				out->worst = (int32_t)(out->nentries - 1);
				out->worst_at = i;
			}
		}
	}
	free(first);
	model_free(&m);
	if (err)
		port_tear_free(out);
	return err;
}

void port_tear_check(const struct port_tear *t, struct port_check *c)
{
	if (t->fork < 0) {
		verdict(c, true, RULE_ERROR, "the rig has no body fork: nothing to tear");
		return;
	}
	if (!t->crossing) {
		verdict(c, true, RULE_ERROR, "no edge crosses the body fork (joint %d)", t->fork);
		return;
	}
	if (t->worst < 0) {
		verdict(c, true, RULE_ERROR,
			"%u edges cross the body fork (joint %d); no entry of %d frames or more",
			t->crossing, t->fork, PORT_TEAR_MIN_FRAMES);
		return;
	}
	const struct port_tear_entry *e = &t->entries[t->worst];
	const struct port_tear_worst *w = &e->at[t->worst_at];
	verdict(c, w->growth < PORT_TEAR_LIMIT, RULE_ERROR,
		"worst edge growth %.1f units (entry %u at %d%%, frame %d, group %u, joints "
		"%d-%d), limit %.0f", w->growth, e->entry, 25 * (t->worst_at + 1), w->frame,
		w->group, w->joint_a, w->joint_b, PORT_TEAR_LIMIT);
}

/* ---- tear.svg -------------------------------------------------------------- */

/* Layout, in pixels: per entry a group of three bars and a gap. */
#define SVG_MARGIN 10
#define SVG_HEAD 56
#define SVG_PLOT_X 58
#define SVG_PLOT_H 240
#define SVG_BAR 4
#define SVG_GAP 6
#define SVG_FOOT 44
#define SVG_MIN_W 640

static const char tear_style[] =
	".bar{fill:#1864ab}\n"
	".bar.f50{fill:#4dabf7}\n"
	".bar.f75{fill:#a5d8ff}\n"
	".bar.over{fill:#d9480f}\n"
	".limit{stroke:#d9480f;stroke-width:1.5;stroke-dasharray:6 3}\n"
	".zero{stroke:#999}\n";

/* Where a growth goes on the plot. */
static double growth_y(double g, double lo, double hi)
{
	return SVG_HEAD + SVG_PLOT_H - (g - lo) * SVG_PLOT_H / (hi - lo);
}

char *port_tear_svg(const struct port_tear *t, const char *title, size_t *len)
{
	uint32_t sampled = 0;
	double lo = 0, hi = PORT_TEAR_LIMIT * 1.1;
	for (uint32_t i = 0; i < t->nentries; i++) {
		if (!t->entries[i].sampled)
			continue;
		sampled++;
		for (int k = 0; k < PORT_TEAR_FRACTIONS; k++) {
			double g = t->entries[i].at[k].growth;
			lo = g < lo ? g : lo;
			hi = g > hi ? g : hi;
		}
	}
	int decimals;
	double step = svg_nice_step((hi - lo) / 5, &decimals);
	lo = svg_floor(lo / step) * step;
	hi = svg_ceil(hi / step) * step;
	int group_w = PORT_TEAR_FRACTIONS * SVG_BAR + SVG_GAP;
	int plot_w = (int)sampled * group_w + SVG_GAP;
	int width = SVG_PLOT_X + plot_w + 2 * SVG_MARGIN;
	width = width < SVG_MIN_W ? SVG_MIN_W : width;
	int height = SVG_HEAD + SVG_PLOT_H + SVG_FOOT;
	struct strbuf sb = {0};
	svg_open(&sb, width, height, title, tear_style);
	struct port_check verdict_line;
	port_tear_check(t, &verdict_line);
	strbuf_printf(&sb, "<text class=\"note\" x=\"%d\" y=\"38\">", SVG_MARGIN);
	svg_escaped(&sb, verdict_line.figure);
	strbuf_printf(&sb, "</text>\n<text class=\"note\" x=\"%d\" y=\"50\">each entry's worst "
		      "growth of an edge across the body fork at 25, 50 and 75%% of it, in units"
		      "</text>\n", SVG_MARGIN);
	strbuf_printf(&sb, "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		      SVG_PLOT_X, SVG_HEAD, plot_w, SVG_PLOT_H);
	strbuf_printf(&sb, "<path class=\"grid\" d=\"");
	for (double v = lo; v <= hi + step * 1e-6; v += step) {
		strbuf_printf(&sb, "M%d ", SVG_PLOT_X);
		strbuf_fixed(&sb, growth_y(v, lo, hi), 1);
		strbuf_printf(&sb, "h%d", plot_w);
	}
	strbuf_printf(&sb, "\"/>\n<g class=\"tick\" text-anchor=\"end\">");
	for (double v = lo; v <= hi + step * 1e-6; v += step) {
		strbuf_printf(&sb, "<text x=\"%d\" y=\"", SVG_PLOT_X - 4);
		strbuf_fixed(&sb, growth_y(v, lo, hi) + 3, 1);
		strbuf_printf(&sb, "\">");
		strbuf_fixed(&sb, v, decimals);
		strbuf_printf(&sb, "</text>");
	}
	strbuf_printf(&sb, "</g>\n<text class=\"unit\" text-anchor=\"middle\" "
		      "transform=\"translate(12 %d) rotate(-90)\">units</text>\n",
		      SVG_HEAD + SVG_PLOT_H / 2);
	double zero = growth_y(0, lo, hi);
	for (uint32_t i = 0, n = 0; i < t->nentries; i++) {
		const struct port_tear_entry *e = &t->entries[i];
		if (!e->sampled)
			continue;
		int x = SVG_PLOT_X + SVG_GAP + (int)n++ * group_w;
		strbuf_printf(&sb, "<g class=\"entry\" data-entry=\"%u\" data-frames=\"%d\">",
			      e->entry, e->frames);
		for (int k = 0; k < PORT_TEAR_FRACTIONS; k++) {
			const struct port_tear_worst *w = &e->at[k];
			double y = growth_y(w->growth, lo, hi);
			double top = y < zero ? y : zero, h = fabs(y - zero);
			strbuf_printf(&sb, "<rect class=\"bar f%d%s\" data-fraction=\"%d\" "
				      "data-growth=\"", 25 * (k + 1),
				      w->growth >= PORT_TEAR_LIMIT ? " over" : "", 25 * (k + 1));
			strbuf_fixed(&sb, w->growth, 2);
			strbuf_printf(&sb, "\" x=\"%d\" y=\"", x + k * SVG_BAR);
			strbuf_fixed(&sb, top, 1);
			strbuf_printf(&sb, "\" width=\"%d\" height=\"", SVG_BAR);
			strbuf_fixed(&sb, h, 1);
			strbuf_printf(&sb, "\"><title>entry %u at %d%% (frame %d): ", e->entry,
				      25 * (k + 1), w->frame);
			strbuf_fixed(&sb, w->growth, 1);
			strbuf_printf(&sb, " units, group %u, joints %d-%d</title></rect>", w->group,
				      w->joint_a, w->joint_b);
		}
		strbuf_printf(&sb, "</g>\n");
		if (n == 1 || n % 10 == 0) /* an entry label now and then */
			strbuf_printf(&sb, "<text class=\"tick\" x=\"%d\" y=\"%d\">%u</text>\n", x,
				      SVG_HEAD + SVG_PLOT_H + 12, e->entry);
	}
	strbuf_printf(&sb, "<path class=\"zero\" d=\"M%d ", SVG_PLOT_X);
	strbuf_fixed(&sb, zero, 1);
	strbuf_printf(&sb, "h%d\"/>\n<line class=\"limit\" x1=\"%d\" x2=\"%d\" y1=\"", plot_w,
		      SVG_PLOT_X, SVG_PLOT_X + plot_w);
	strbuf_fixed(&sb, growth_y(PORT_TEAR_LIMIT, lo, hi), 1);
	strbuf_printf(&sb, "\" y2=\"");
	strbuf_fixed(&sb, growth_y(PORT_TEAR_LIMIT, lo, hi), 1);
	strbuf_printf(&sb, "\"><title>limit %.0f units</title></line>\n", PORT_TEAR_LIMIT);
	strbuf_printf(&sb, "<text class=\"unit\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">entry"
		      "</text>\n", SVG_PLOT_X + plot_w / 2, SVG_HEAD + SVG_PLOT_H + 28);
	if (!sampled)
		strbuf_printf(&sb, "<text class=\"note\" x=\"%d\" y=\"%d\">no entry sampled"
			      "</text>\n", SVG_PLOT_X + 8, SVG_HEAD + SVG_PLOT_H / 2);
	strbuf_printf(&sb, "</svg>\n");
	return strbuf_take(&sb, len);
}

/* ---- still geometry ------------------------------------------------------ */

void port_still_check(const struct skeleton *rig, const struct pmo *body, struct port_check *c)
{
	uint32_t animated = rig_animated(rig), total = 0, riding = 0, nstill = 0;
	int32_t still[9] = {0};
	for (uint32_t g = 0; g < body->group_count; g++) {
		const struct pmo_group *grp = &body->groups[g];
		for (uint32_t v = 0; grp->vertices && v < grp->vertex_count; v++) {
			int32_t joint[PMO_MAX_WEIGHTS];
			double w[PMO_MAX_WEIGHTS];
			unsigned n = influences(grp, &grp->vertices[v], rig->nbones, PORT_WEIGHT_EPS,
						joint, w);
			bool rides = false;
			for (unsigned k = 0; k < n; k++) {
				if ((uint32_t)joint[k] < animated)
					continue;
				rides = true;
				uint32_t i = 0; /* the first 9 joints met, for the figure */
				while (i < nstill && still[i] != joint[k])
					i++;
				if (i == nstill && nstill < 9)
					still[nstill++] = joint[k];
			}
			total++;
			riding += rides;
		}
	}
	char joints[64] = "";
	few(joints, sizeof joints, still, nstill > 8 ? 8 : nstill);
	verdict(c, riding <= PORT_STILL_SHARE * total, RULE_ERROR,
		"%u of %u vertices (%.1f%%) ride joints past the %u animated%s%s%s, limit %.0f%%",
		riding, total, total ? 100.0 * riding / total : 0.0, animated,
		nstill ? " (" : "", joints, nstill > 8 ? " ...)" : nstill ? ")" : "",
		100 * PORT_STILL_SHARE);
}

/* ---- donor bones ------------------------------------------------------- */

/* A skeleton's children lists: kids[first[b] .. first[b + 1]) are bone
 * b's in bone order; the roots (parent outside) under index n. */
struct tree {
	uint32_t n;
	uint32_t *first, *kids;
	double (*world)[3];     /* bind positions in model space (rig_bind_world) */
};

static void tree_free(struct tree *t)
{
	free(t->first);
	free(t->kids);
	free(t->world);
}

static int32_t parent_of(const struct skeleton *s, uint32_t b)
{
	int32_t p = s->bones[b].parent;
	return p >= 0 && (uint32_t)p < s->nbones ? p : -1;
}

static bool tree_init(struct tree *t, const struct skeleton *s)
{
	uint32_t n = s->nbones;
	*t = (struct tree){.n = n};
	t->first = calloc((size_t)n + 2, sizeof *t->first);
	t->kids = malloc(((size_t)n + 1) * sizeof *t->kids);
	t->world = calloc((size_t)n + 1, sizeof *t->world);
	if (!t->first || !t->kids || !t->world)
		return false;
	for (uint32_t b = 0; b < n; b++) {
		int32_t p = parent_of(s, b);
		t->first[(p < 0 ? n : (uint32_t)p) + 1]++;
		if (rig_bind_world(s, b, t->world[b], NULL)) /* a broken chain: far away */
			t->world[b][0] = t->world[b][1] = t->world[b][2] = INFINITY;
	}
	for (uint32_t b = 0; b <= n; b++)
		t->first[b + 1] += t->first[b];
	uint32_t *at = malloc(((size_t)n + 1) * sizeof *at);
	if (!at)
		return false;
	memcpy(at, t->first, ((size_t)n + 1) * sizeof *at);
	for (uint32_t b = 0; b < n; b++) {
		int32_t p = parent_of(s, b);
		t->kids[at[p < 0 ? n : (uint32_t)p]++] = b;
	}
	free(at);
	return true;
}

/* The match being built: donor bone -> port joint, and the joints taken. */
struct matching {
	const struct skeleton *donor, *port;
	const struct tree *dt, *pt;
	int32_t *joint_of;
	bool *taken;
	uint32_t *stack;        /* pairs (bone, joint) to walk from */
};

static double offset_gap(const struct matching *mt, uint32_t bone, uint32_t joint)
{
	double gap = 0;
	for (int c = 0; c < 3; c++) {
		double d = fabs((double)mt->donor->bones[bone].position[c] -
				mt->port->bones[joint].position[c]);
		gap = d > gap ? d : gap;
	}
	return gap;
}

/* Walks the donor's tree from `root` down the port's from `start`:
 * joint_of (cleared by the caller) and taken filled; returns the bones
 * matched.  A port joint is used once per parent's children. */
static uint32_t walk(struct matching *mt, uint32_t root, uint32_t start)
{
	uint32_t top = 0, matched = 0;
	mt->stack[top++] = root;
	mt->stack[top++] = start;
	while (top) {
		uint32_t p = mt->stack[--top], d = mt->stack[--top];
		if (mt->joint_of[d] == PORT_NONE)
			matched++;
		mt->joint_of[d] = (int32_t)p;
		mt->taken[p] = true;
		for (uint32_t i = mt->dt->first[d]; i < mt->dt->first[d + 1]; i++) {
			uint32_t c = mt->dt->kids[i];
			int32_t best = -1;
			double least = 0;
			for (uint32_t k = mt->pt->first[p]; k < mt->pt->first[p + 1]; k++) {
				uint32_t j = mt->pt->kids[k];
				double gap = offset_gap(mt, c, j);
				if (!mt->taken[j] && (best < 0 || gap < least)) {
					best = (int32_t)j;
					least = gap;
				}
			}
			if (best >= 0 && least < PORT_OFFSET_TOL && top + 2 <= 2 * (size_t)mt->dt->n + 2) {
				mt->taken[best] = true;
				mt->stack[top++] = c;
				mt->stack[top++] = (uint32_t)best;
			}
		}
	}
	return matched;
}

static double distance3(const double a[3], const double b[3])
{
	return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
		    (a[2] - b[2]) * (a[2] - b[2]));
}

/* The free port joint nearest `at` (roots other than joint 0 when
 * roots_only) under PORT_OFFSET_TOL, -1 if none. */
static int32_t nearest_free(const struct matching *mt, const double at[3], bool roots_only)
{
	int32_t best = -1;
	double least = PORT_OFFSET_TOL;
	for (uint32_t j = 0; j < mt->pt->n; j++) {
		if (mt->taken[j] || (roots_only && (!j || parent_of(mt->port, j) >= 0)))
			continue;
		double gap = distance3(mt->pt->world[j], at);
		if (gap < least) {
			best = (int32_t)j;
			least = gap;
		}
	}
	return best;
}

enum mh_err port_correspondence(const struct skeleton *donor, const struct skeleton *port,
				int32_t *joint_of, uint32_t *pad, struct mh_diag *d)
{
	uint32_t nd = donor->nbones, np = port->nbones;
	struct tree dt, pt;
	bool okd = tree_init(&dt, donor), okp = tree_init(&pt, port);
	int32_t *trial = malloc(((size_t)nd + 1) * sizeof *trial);
	bool *taken = calloc((size_t)np + 1, sizeof *taken);
	uint32_t *stack = malloc((2 * (size_t)nd + 2) * sizeof *stack);
	enum mh_err err = MH_OK;
	*pad = 0;
	for (uint32_t b = 0; b < nd; b++)
		joint_of[b] = PORT_NONE;
	if (!okd || !okp || !trial || !taken || !stack) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory matching the donor's bones");
		goto done;
	}
	struct matching mt = {donor, port, &dt, &pt, trial, taken, stack};
	/* The donor's root on each joint down the port's leading chain. */
	uint32_t most = 0, node = 0;
	for (uint32_t depth = 0; nd && np && depth < PORT_MAX_PAD; depth++) {
		for (uint32_t b = 0; b < nd; b++)
			trial[b] = PORT_NONE;
		memset(taken, 0, np * sizeof *taken);
		uint32_t found = walk(&mt, 0, node);
		if (found > most) {
			most = found;
			*pad = depth;
			memcpy(joint_of, trial, nd * sizeof *joint_of);
		}
		if (pt.first[node + 1] - pt.first[node] != 1)
			break;
		node = pt.kids[pt.first[node]];
	}
	memset(taken, 0, np * sizeof *taken);
	for (uint32_t b = 0; b < nd; b++)
		if (joint_of[b] >= 0)
			taken[joint_of[b]] = true;
	/* The other donor roots' trees, from the port root at their place. */
	mt.joint_of = joint_of;
	for (uint32_t i = dt.first[nd]; i < dt.first[nd + 1]; i++) {
		uint32_t r = dt.kids[i];
		int32_t j = joint_of[r] == PORT_NONE ? nearest_free(&mt, dt.world[r], true) : -1;
		if (j >= 0)
			walk(&mt, r, (uint32_t)j);
	}
	/* Any bone left: the free joint at its place. */
	for (uint32_t b = 0; b < nd; b++) {
		if (joint_of[b] != PORT_NONE)
			continue;
		int32_t j = nearest_free(&mt, dt.world[b], false);
		if (j >= 0) {
			joint_of[b] = j;
			taken[j] = true;
		}
	}
done:
	tree_free(&dt);
	tree_free(&pt);
	free(trial);
	free(taken);
	free(stack);
	return err;
}

enum mh_err port_bones_check(const struct skeleton *donor, const struct skeleton *port,
			     const bool *used, struct port_check *c, struct mh_diag *d)
{
	int32_t *joint_of = malloc(((size_t)donor->nbones + 1) * sizeof *joint_of);
	int32_t *lost = calloc((size_t)donor->nbones + 1, sizeof *lost);
	uint32_t pad = 0, nlost = 0, counted = 0;
	enum mh_err err = joint_of && lost ? MH_OK
					   : mh_fail(d, MH_ENOMEM, 0, "out of memory for the bones");
	if (!err)
		err = port_correspondence(donor, port, joint_of, &pad, d);
	for (uint32_t b = 0; !err && b < donor->nbones; b++) {
		if (used && !used[b])
			continue;
		counted++;
		if (joint_of[b] == PORT_NONE)
			lost[nlost++] = (int32_t)b;
	}
	if (!err) {
		char list[96] = "";
		few(list, sizeof list, lost, nlost);
		if (nlost)
			verdict(c, false, RULE_ERROR, "donor bones %s have no joint (%u of %u do, "
				"pad %u)", list, counted - nlost, counted, pad);
		else
			verdict(c, true, RULE_ERROR, "%u of %u %sdonor bones have a joint (pad %u)",
				counted, counted, used ? "used " : "", pad);
	}
	free(joint_of);
	free(lost);
	return err;
}

/* ---- the skin ------------------------------------------------------------- */

struct skin_tally {
	uint64_t wrong;          /* vertices on other joints */
	double worst;            /* the largest weight difference */
	uint32_t worst_at;       /* its port vertex */
};

/* Donor group dg's vertices against port group pg's, from port vertex
 * number `at` on. */
static void compare_group(const struct pmo_group *dg, uint32_t ndonor, const int32_t *joint_of,
			  const struct pmo_group *pg, uint32_t nport, uint32_t at,
			  struct skin_tally *t)
{
	uint32_t n = dg->vertex_count < pg->vertex_count ? dg->vertex_count : pg->vertex_count;
	for (uint32_t v = 0; dg->vertices && pg->vertices && v < n; v++) {
		int32_t bone[PMO_MAX_WEIGHTS], want_joint[PMO_MAX_WEIGHTS], have[PMO_MAX_WEIGHTS];
		double bw[PMO_MAX_WEIGHTS], want[PMO_MAX_WEIGHTS], hw[PMO_MAX_WEIGHTS];
		unsigned nb = influences(dg, &dg->vertices[v], ndonor, PORT_WEIGHT_EPS, bone, bw);
		unsigned nw = 0, nh = influences(pg, &pg->vertices[v], nport, PORT_WEIGHT_EPS,
						  have, hw);
		double total = 0;
		for (unsigned k = 0; k < nb; k++) { /* through the map, merged */
			int32_t j = joint_of[bone[k]];
			if (j == PORT_NONE)
				continue;
			unsigned i = 0;
			while (i < nw && want_joint[i] != j)
				i++;
			if (i == nw) {
				want_joint[nw] = j;
				want[nw++] = 0;
			}
			want[i] += bw[k];
			total += bw[k];
		}
		bool same = nw == nh;
		double off = 0;
		for (unsigned i = 0; same && i < nw; i++) {
			unsigned k = 0;
			while (k < nh && have[k] != want_joint[i])
				k++;
			if (k == nh)
				same = false;
			else if (fabs(want[i] / total - hw[k]) > off)
				off = fabs(want[i] / total - hw[k]);
		}
		if (!same) {
			t->wrong++;
		} else if (off > t->worst) {
			t->worst = off;
			t->worst_at = at + v;
		}
	}
}

enum mh_err port_skin_check(const struct pmo *donor_body, uint32_t ndonor_bones,
			    const int32_t *joint_of, const struct pmo *port_body,
			    uint32_t nport_joints, const uint32_t *order,
			    struct port_check *c, struct mh_diag *d)
{
	(void)d; /* nothing allocated */
	uint64_t want = 0, got = 0;
	for (uint32_t g = 0; g < donor_body->group_count; g++)
		want += donor_body->groups[g].vertices ? donor_body->groups[g].vertex_count : 0;
	for (uint32_t g = 0; g < port_body->group_count; g++)
		got += port_body->groups[g].vertices ? port_body->groups[g].vertex_count : 0;
	if (want != got) {
		verdict(c, false, RULE_ERROR, "%llu vertices, the donor %llu",
			(unsigned long long)got, (unsigned long long)want);
		return MH_OK;
	}
	struct skin_tally t = {0};
	uint32_t at = 0;
	for (uint32_t g = 0; g < port_body->group_count; g++) {
		uint32_t dg = order ? order[g] : g;
		const struct pmo_group *pg = &port_body->groups[g];
		if (dg >= donor_body->group_count ||
		    donor_body->groups[dg].vertex_count != pg->vertex_count) {
			verdict(c, false, RULE_ERROR, "group %u has %u vertices, its donor group %d "
				"%u", g, pg->vertex_count, (int)dg,
				dg < donor_body->group_count ? donor_body->groups[dg].vertex_count : 0);
			return MH_OK;
		}
		compare_group(&donor_body->groups[dg], ndonor_bones, joint_of, pg, nport_joints, at,
			      &t);
		at += pg->vertices ? pg->vertex_count : 0;
	}
	verdict(c, !t.wrong && t.worst <= PORT_WEIGHT_STEP, RULE_ERROR,
		"%llu vertices as the donor's; %llu on other joints; worst weight off by %.4f "
		"(vertex %u), limit %.4f", (unsigned long long)got, (unsigned long long)t.wrong,
		t.worst, t.worst_at, PORT_WEIGHT_STEP);
	return MH_OK;
}

/* ---- the tail tip ------------------------------------------------------ */

/* Whether bone b's chain reaches `root` (loops end the walk). */
static bool under(const struct skeleton *s, uint32_t b, int32_t root)
{
	for (uint32_t steps = 0; steps <= s->nbones; steps++) {
		if ((int32_t)b == root)
			return true;
		int32_t p = parent_of(s, b);
		if (p < 0)
			return false;
		b = (uint32_t)p;
	}
	return false;
}

int32_t port_tip_root(const struct skeleton *s)
{
	int32_t root = rig_severed_root(s);
	uint32_t animated = rig_animated(s);
	if (root >= 0 || animated >= s->nbones)
		return root;
	uint32_t b = animated;
	for (uint32_t steps = 0; steps < s->nbones; steps++) {
		int32_t p = parent_of(s, b);
		if (p < (int32_t)animated)
			break;
		b = (uint32_t)p;
	}
	return (int32_t)b;
}

void port_tip_check(const struct skeleton *host_rig, const struct pmo *host_body,
		    const struct skeleton *port_rig, const struct pmo *port_body,
		    struct port_check *c)
{
	int32_t host_tip = rig_severed_root(host_rig), tip = port_tip_root(port_rig);
	if (host_body->h.mesh_count < 2 || host_tip < 0) {
		verdict(c, true, RULE_ERROR, "the host drops no tail");
		return;
	}
	if (tip < 0) {
		verdict(c, false, RULE_ERROR, "the host drops its tail (joint %d on); the port has "
			"no chain past its %u animated joints", host_tip, rig_animated(port_rig));
		return;
	}
	if (port_body->h.mesh_count < 2) {
		verdict(c, false, RULE_ERROR, "one mesh record: the dropped tail draws record 1");
		return;
	}
	const struct pmo_mesh *m1 = &port_body->meshes[1];
	int32_t stray[9] = {0};
	uint32_t nstray = 0, chain = 0;
	for (uint32_t b = 0; b < port_rig->nbones; b++)
		chain += under(port_rig, b, tip);
	for (uint32_t g = m1->group_first;
	     g < (uint32_t)m1->group_first + m1->group_count && g < port_body->group_count; g++) {
		const struct pmo_group *grp = &port_body->groups[g];
		bool off = false;
		for (uint32_t v = 0; grp->vertices && v < grp->vertex_count && !off; v++) {
			int32_t joint[PMO_MAX_WEIGHTS];
			double w[PMO_MAX_WEIGHTS];
			unsigned n = influences(grp, &grp->vertices[v], UINT32_MAX, 0, joint, w);
			for (unsigned k = 0; k < n; k++)
				off |= (uint32_t)joint[k] >= port_rig->nbones ||
				       !under(port_rig, (uint32_t)joint[k], tip);
		}
		if (off && nstray < 9)
			stray[nstray++] = (int32_t)g;
	}
	char list[64] = "";
	few(list, sizeof list, stray, nstray > 8 ? 8 : nstray);
	if (nstray)
		verdict(c, false, RULE_ERROR, "mesh 1 groups %s%s ride joints off the tip (joint "
			"%d on)", list, nstray > 8 ? " ..." : "", tip);
	else
		verdict(c, true, RULE_ERROR, "the tip: %u joints from %d; mesh 1's %u groups on it",
			chain, tip, m1->group_count);
}

/* ---- the template ------------------------------------------------------- */

enum mh_err port_template_check(const struct skeleton *port_rig,
				const struct skeleton *host_rig, struct port_check *c,
				struct mh_diag *d)
{
	struct rule_report r = {0};
	if (rules_check_skeleton(port_rig, host_rig, &r)) {
		rules_report_free(&r);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory checking the template");
	}
	size_t n = 0, first = 0;
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i].code == RULE_TEMPLATE && !n++)
			first = i;
	if (n)
		verdict(c, false, RULE_WARNING, "%zu difference%s from the host's skeleton, first: %s",
			n, n == 1 ? "" : "s", r.v[first].msg);
	else
		verdict(c, true, RULE_WARNING, "the host's %u bones and parents kept",
			host_rig->nbones);
	rules_report_free(&r);
	return MH_OK;
}
