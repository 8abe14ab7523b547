/* SPDX-License-Identifier: MIT */
/* The checks of a whole port (codecs/port_tear.h) on a small skinned
 * model: a root, a pelvis forking into a front leg (with a foot) and a
 * rear leg, and a bridge joint under the rear leg whose tube starts at
 * the front leg's joint, so the bridge's first ring rides the front leg
 * and its next ring the rear: the edges between them cross the fork.
 * Bodies are mkpmo_body tubes (tests/gen/mkpmo.h). */
#include "testlib.h"

#include <ctype.h>
#include <math.h>
#include <time.h>

#include "anim.h"
#include "clip.h"
#include "pmo.h"
#include "port_tear.h"
#include "rig.h"
#include "skeleton.h"
#include "mkpmo.h"

enum { BONES = 6, FRAMES = 40, SIDES = 6, RINGS = 3, BRIDGE = 5 };

/* Offsets from the parents; the bridge sits 60 units in front of the
 * front leg's joint, but hangs off the rear leg. */
static const int32_t PARENT[BONES] = {-1, 0, 1, 1, 2, 3};
static const float OFFSET[BONES][3] = {
	{0, 0, 0}, {0, 100, 0}, {50, 0, 0}, {-50, 0, 0}, {0, -100, 0}, {100, 0, 60},
};
/* The tubes: the bridge's from the front leg's joint. */
static const struct mkpmo_bone TUBES[BONES] = {
	{-1, {0, 0, 0}}, {0, {0, 100, 0}}, {1, {50, 100, 0}},
	{1, {-50, 100, 0}}, {2, {50, 0, 0}}, {2, {50, 100, 60}},
};

static void make_rig(struct skeleton *s, uint32_t nbones, uint32_t animated)
{
	assert_int_equal(skeleton_init(s, SKELETON_MHFU, nbones, NULL), MH_OK);
	for (uint32_t b = 0; b < nbones && b < BONES; b++) {
		s->bones[b].parent = PARENT[b];
		memcpy(s->bones[b].position, OFFSET[b], sizeof OFFSET[b]);
	}
	skeleton_link(s, false);
	skeleton_set_params(s, 2, (const uint32_t[]){0, animated});
}

static void decode_body(const struct mkpmo_body *b, struct pmo *p)
{
	struct mkpmo m;
	struct mh_diag d;
	mkpmo_body(7, b, &m);
	memset(p, 0, sizeof *p);
	if (pmo_decode(m.pmo, m.len, m.companion, m.companion_len, p, &d) != MH_OK)
		fail_msg("pmo_decode: %s", d.msg);
	mkpmo_free(&m);
}

/* The group of bone b's tube band 0 (rings 0 and 1). */
static uint32_t band0(uint32_t b)
{
	return b * (RINGS + 1);
}

/* Sets vertex v of group g's two weights. */
static void reweigh(struct pmo *p, uint32_t g, uint32_t v, float w0, float w1)
{
	struct pmo_vertex nv = p->groups[g].vertices[v];
	struct mh_diag d;
	nv.weights[0] = w0;
	nv.weights[1] = w1;
	if (pmo_vertex_set(p, g, v, &nv, &d) != MH_OK)
		fail_msg("pmo_vertex_set: %s", d.msg);
}

/* The body on the rig: the bridge's first ring moved onto the front leg
 * (slot 1: its tube's parent, joint 2). */
static void make_body(struct pmo *p)
{
	struct mkpmo_body b = {.skinned = true, .meshes = 1, .sides = SIDES, .rings = RINGS,
			       .bones = TUBES, .nbones = BONES};
	decode_body(&b, p);
	assert_int_equal(p->groups[band0(BRIDGE)].slot_bone[1], 2);
	for (uint32_t v = 0; v < SIDES; v++)
		reweigh(p, band0(BRIDGE), v, 0.25f, 0.75f);
}

/* ---- clips --------------------------------------------------------------- */

static void key(struct clip_track *t, uint32_t bit, int16_t from, int16_t to, int16_t frames)
{
	struct clip_channel *ch = clip_add_channel(t, bit);
	assert_non_null(ch);
	assert_non_null(clip_add_key(ch, (struct clip_key){.value = from, .frame = 0}));
	assert_non_null(clip_add_key(ch, (struct clip_key){.value = to, .frame = frames}));
	t->mask |= bit;
}

/* A track resting: rotations keyed 0 over the clip. */
static void rest(struct clip_track *t, int16_t frames)
{
	key(t, CLIP_ROT_X, 0, 0, frames);
	key(t, CLIP_ROT_Y, 0, 0, frames);
	key(t, CLIP_ROT_Z, 0, 0, frames);
}

/* The native walk: the pelvis carries the body 500 units forward while
 * turning 45 degrees: every joint moves rigidly. */
static void native(struct clip *c, int16_t frames)
{
	memset(c, 0, sizeof *c);
	for (int j = 0; j < BONES; j++)
		rest(clip_add_track(c, 0), frames);
	struct clip_track *pelvis = &c->tracks[1];
	pelvis->channels[1].keys[1].value = 2048;
	key(pelvis, CLIP_LOC_X, 0, 0, frames);
	key(pelvis, CLIP_LOC_Y, 100 * 16, 100 * 16, frames);
	key(pelvis, CLIP_LOC_Z, 0, 500 * 16, frames);
}

/* The rear leg pulled 400 units out sideways. */
static void pulled(struct clip *c)
{
	native(c, FRAMES);
	struct clip_track *rear = &c->tracks[3];
	key(rear, CLIP_LOC_X, -50 * 16, -450 * 16, FRAMES);
	key(rear, CLIP_LOC_Y, 0, 0, FRAMES);
	key(rear, CLIP_LOC_Z, 0, 0, FRAMES);
}

/* The native walk with a wrong record offset: track i drives joint
 * i + 1 (joint 0 rests), so the pelvis' location lands on the front leg. */
static void shifted(struct clip *c)
{
	native(c, FRAMES);
	struct clip_track last = c->tracks[BONES - 1];
	memmove(&c->tracks[1], &c->tracks[0], (BONES - 1) * sizeof *c->tracks);
	c->tracks[0] = last; /* the foot's rest track: rests joint 0 */
}

/* A pack of one part: entry e of stream 0 plays clips[e]. */
static void make_pack(struct anim *a, struct clip *clips, uint32_t n)
{
	assert_int_equal(anim_init(a, CLIP_MHFU, 2, (const uint32_t[]){n, 1}, NULL), MH_OK);
	for (uint32_t e = 0; e < n; e++) {
		int32_t i = anim_add_clip(a, &clips[e]);
		assert_true(i >= 0);
		assert_int_equal(anim_set_slot(a, 0, e, i, NULL), MH_OK);
	}
}

/* Entries: 0 native, 1 pulled apart, 2 shifted, 3 too short to sample. */
static void full_pack(struct anim *a)
{
	struct clip c[4];
	native(&c[0], FRAMES);
	pulled(&c[1]);
	shifted(&c[2]);
	native(&c[3], 2);
	make_pack(a, c, 4);
}

/* ---- the tear ------------------------------------------------------------ */

static double worst_of(const struct port_tear_entry *e)
{
	double w = -INFINITY;
	for (int i = 0; i < PORT_TEAR_FRACTIONS; i++)
		w = e->at[i].growth > w ? e->at[i].growth : w;
	return w;
}

static void tear_across_the_fork(void **state)
{
	(void)state;
	struct skeleton s;
	struct pmo p;
	struct anim a;
	struct port_tear t;
	struct port_check c;
	struct mh_diag d;
	make_rig(&s, BONES, BONES);
	make_body(&p);
	full_pack(&a);
	assert_int_equal(port_tear(&s, &a, &p, &t, &d), MH_OK);
	assert_int_equal(t.fork, 1);
	assert_int_equal(t.crossing, 2 * SIDES); /* ring 0 to ring 1: the strip's rungs and diagonals */
	assert_int_equal(t.nentries, 4);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(t.entries[i].entry, i);
	/* Native: rigid, no growth at any sample. */
	assert_true(t.entries[0].sampled);
	for (int i = 0; i < PORT_TEAR_FRACTIONS; i++) {
		assert_int_equal(t.entries[0].at[i].frame, (i + 1) * FRAMES / 4);
		assert_true(fabs(t.entries[0].at[i].growth) < 1e-6);
	}
	/* Pulled apart: past the limit, the worst at 75%, between the legs. */
	assert_true(worst_of(&t.entries[1]) > PORT_TEAR_LIMIT);
	assert_true(t.entries[1].at[2].growth > t.entries[1].at[1].growth);
	assert_true(t.entries[1].at[1].growth > t.entries[1].at[0].growth);
	assert_int_equal(t.entries[1].at[2].joint_a, 2);
	assert_int_equal(t.entries[1].at[2].joint_b, BRIDGE);
	/* The wrong offset: 200 units and more, as the toolkit's Zinogre. */
	assert_true(worst_of(&t.entries[2]) >= 200);
	assert_false(t.entries[3].sampled);
	assert_int_equal(t.entries[3].frames, 2);
	port_tear_check(&t, &c);
	assert_false(c.passed);
	assert_int_equal(c.level, RULE_ERROR);
	assert_non_null(strstr(c.figure, "worst edge growth"));
	assert_non_null(strstr(c.figure, "limit 120"));
	assert_true(t.worst == 2 || t.worst == 1);
	port_tear_free(&t);
	anim_free(&a);

	/* The native walk alone passes, with its figure. */
	struct clip one;
	native(&one, FRAMES);
	make_pack(&a, &one, 1);
	assert_int_equal(port_tear(&s, &a, &p, &t, &d), MH_OK);
	port_tear_check(&t, &c);
	assert_true(c.passed);
	if (!strstr(c.figure, "worst edge growth 0.0 units (entry 0 at "))
		fail_msg("%s", c.figure);
	port_tear_free(&t);
	anim_free(&a);
	pmo_free(&p);

	/* Tubes alone (no bridge moved): no edge crosses, as natives. */
	struct mkpmo_body b = {.skinned = true, .meshes = 1, .sides = SIDES, .rings = RINGS,
			       .bones = TUBES, .nbones = BONES};
	decode_body(&b, &p);
	full_pack(&a);
	assert_int_equal(port_tear(&s, &a, &p, &t, &d), MH_OK);
	assert_int_equal(t.crossing, 0);
	port_tear_check(&t, &c);
	assert_true(c.passed);
	assert_non_null(strstr(c.figure, "no edge crosses the body fork (joint 1)"));
	port_tear_free(&t);
	anim_free(&a);
	pmo_free(&p);
	skeleton_free(&s);
}

/* ---- tear.svg ------------------------------------------------------------ */

/* Whether text is well-formed enough: the declaration, then elements
 * properly nested and closed, attributes quoted, nothing after the root;
 * counts the elements whose start tag begins with `mark`. */
static bool well_formed(const char *text, const char *mark, unsigned *marks)
{
	char stack[64][32];
	int depth = 0;
	bool root_seen = false;
	*marks = 0;
	const char *s = strstr(text, "?>");
	if (strncmp(text, "<?xml", 5) || !s)
		return false;
	for (s += 2; *s; s++) {
		if (*s != '<') {
			if (!depth && !isspace((unsigned char)*s))
				return false;
			if (*s == '&' && !strchr(s, ';'))
				return false;
			continue;
		}
		const char *end = strchr(s, '>');
		if (!end)
			return false;
		if (s[1] == '/') {
			size_t n = strcspn(s + 2, " >");
			if (!depth || strlen(stack[depth - 1]) != n || strncmp(stack[depth - 1], s + 2, n))
				return false;
			depth--;
		} else {
			if (!depth && root_seen)
				return false;
			root_seen = true;
			unsigned quotes = 0;
			for (const char *q = s; q < end; q++)
				quotes += *q == '"';
			if (quotes % 2)
				return false;
			if (!strncmp(s, mark, strlen(mark)))
				(*marks)++;
			if (end[-1] != '/') {
				size_t n = strcspn(s + 1, " >/");
				if (depth == 64 || n >= 32)
					return false;
				memcpy(stack[depth], s + 1, n);
				stack[depth++][n] = '\0';
			}
		}
		s = end;
	}
	return root_seen && !depth;
}

static void tear_svg(void **state)
{
	(void)state;
	struct skeleton s;
	struct pmo p;
	struct anim a;
	struct port_tear t;
	struct mh_diag d;
	make_rig(&s, BONES, BONES);
	make_body(&p);
	full_pack(&a);
	assert_int_equal(port_tear(&s, &a, &p, &t, &d), MH_OK);
	size_t len;
	char *svg = port_tear_svg(&t, "file_06185 port <tear> & co", &len);
	assert_non_null(svg);
	assert_int_equal(strlen(svg), len);
	unsigned entries, bars;
	assert_true(well_formed(svg, "<g class=\"entry\"", &entries));
	assert_int_equal(entries, 3); /* the sampled ones: 0, 1 and 2 */
	assert_true(well_formed(svg, "<rect class=\"bar", &bars));
	assert_int_equal(bars, 3 * PORT_TEAR_FRACTIONS);
	assert_non_null(strstr(svg, "data-entry=\"1\""));
	assert_null(strstr(svg, "data-entry=\"3\""));
	assert_non_null(strstr(svg, "<line class=\"limit\""));
	assert_non_null(strstr(svg, "&lt;tear&gt; &amp; co"));
	assert_non_null(strstr(svg, " over\"")); /* a bar past the limit */
	free(svg);
	port_tear_free(&t);

	/* Nothing sampled: still a document. */
	struct port_tear none = {.fork = -1, .worst = -1};
	svg = port_tear_svg(&none, "none", &len);
	assert_true(well_formed(svg, "<g class=\"entry\"", &entries));
	assert_int_equal(entries, 0);
	free(svg);
	anim_free(&a);
	pmo_free(&p);
	skeleton_free(&s);
}

/* ---- the other checks -------------------------------------------------- */

static void still_geometry(void **state)
{
	(void)state;
	struct skeleton s;
	struct pmo p;
	struct port_check c;
	make_body(&p);
	make_rig(&s, BONES, BONES - 1); /* the bridge's sixth of the body: fine */
	port_still_check(&s, &p, &c);
	assert_true(c.passed);
	assert_non_null(strstr(c.figure, "past the 5 animated (5), limit 25%"));
	skeleton_free(&s);
	make_rig(&s, BONES, BONES - 2); /* the foot's and the bridge's third: too much */
	port_still_check(&s, &p, &c);
	assert_false(c.passed);
	assert_non_null(strstr(c.figure, "(4 5)"));
	skeleton_free(&s);
	pmo_free(&p);
}

static void donor_bones(void **state)
{
	(void)state;
	struct skeleton donor, port;
	struct port_check c;
	struct mh_diag d;
	make_rig(&donor, BONES, BONES);
	donor.game = SKELETON_MHP3RD;
	/* The port: two origin joints above the donor's root. */
	assert_int_equal(skeleton_init(&port, SKELETON_MHFU, BONES + 2, NULL), MH_OK);
	port.bones[0].parent = -1;
	port.bones[1].parent = 0;
	for (uint32_t b = 0; b < BONES; b++) {
		port.bones[b + 2].parent = PARENT[b] < 0 ? 1 : PARENT[b] + 2;
		memcpy(port.bones[b + 2].position, OFFSET[b], sizeof OFFSET[b]);
	}
	skeleton_link(&port, false);
	int32_t joint_of[BONES];
	uint32_t pad;
	assert_int_equal(port_correspondence(&donor, &port, joint_of, &pad, &d), MH_OK);
	assert_int_equal(pad, 2);
	for (int b = 0; b < BONES; b++)
		assert_int_equal(joint_of[b], b + 2);
	assert_int_equal(port_bones_check(&donor, &port, NULL, &c, &d), MH_OK);
	assert_true(c.passed);
	assert_string_equal(c.figure, "6 of 6 donor bones have a joint (pad 2)");
	skeleton_free(&donor);

	/* A donor bone the port dropped: a second foot under the rear leg. */
	make_rig(&donor, BONES + 1, BONES + 1);
	donor.bones[BONES].parent = 3;
	donor.bones[BONES].position[1] = -100;
	skeleton_link(&donor, false);
	assert_int_equal(port_bones_check(&donor, &port, NULL, &c, &d), MH_OK);
	assert_false(c.passed);
	assert_string_equal(c.figure, "donor bones 6 have no joint (6 of 7 do, pad 2)");
	/* Unused by the donor's body and records: not missed. */
	bool used[BONES + 1] = {true, true, true, true, true, true, false};
	assert_int_equal(port_bones_check(&donor, &port, used, &c, &d), MH_OK);
	assert_true(c.passed);
	skeleton_free(&donor);
	skeleton_free(&port);
}

static void skin_fidelity(void **state)
{
	(void)state;
	struct pmo donor, port;
	struct port_check c;
	struct mh_diag d;
	make_body(&donor);
	make_body(&port);
	const int32_t identity[BONES] = {0, 1, 2, 3, 4, 5};
	assert_int_equal(port_skin_check(&donor, BONES, identity, &port, BONES, NULL, &c, &d),
			 MH_OK);
	assert_true(c.passed);
	assert_non_null(strstr(c.figure, "0 on other joints; worst weight off by 0.0000"));
	/* One step off passes; a weight off by more than 1/128 fails. */
	uint32_t g = band0(3), v = 2;
	float w0 = port.groups[g].vertices[v].weights[0];
	reweigh(&port, g, v, w0 + 1.0f / 128, 1 - w0 - 1.0f / 128);
	assert_int_equal(port_skin_check(&donor, BONES, identity, &port, BONES, NULL, &c, &d),
			 MH_OK);
	assert_true(c.passed);
	reweigh(&port, g, v, w0 + 2.0f / 128, 1 - w0 - 2.0f / 128);
	assert_int_equal(port_skin_check(&donor, BONES, identity, &port, BONES, NULL, &c, &d),
			 MH_OK);
	assert_false(c.passed);
	assert_non_null(strstr(c.figure, "0 on other joints"));
	/* A vertex on other joints. */
	reweigh(&port, g, v, 1, 0);
	assert_int_equal(port_skin_check(&donor, BONES, identity, &port, BONES, NULL, &c, &d),
			 MH_OK);
	assert_false(c.passed);
	assert_non_null(strstr(c.figure, "; 1 on other joints"));
	pmo_free(&port);
	/* Fewer vertices. */
	struct mkpmo_body b = {.skinned = true, .meshes = 1, .sides = SIDES, .rings = RINGS,
			       .bones = TUBES, .nbones = BONES - 1};
	decode_body(&b, &port);
	assert_int_equal(port_skin_check(&donor, BONES, identity, &port, BONES, NULL, &c, &d),
			 MH_OK);
	assert_false(c.passed);
	pmo_free(&port);
	pmo_free(&donor);
}

/* A rig with a severed tail: joints 6 and 7, a root past the animated. */
static const struct mkpmo_bone TAILED[BONES + 2] = {
	{-1, {0, 0, 0}}, {0, {0, 100, 0}}, {1, {50, 100, 0}}, {1, {-50, 100, 0}},
	{2, {50, 0, 0}}, {3, {50, 100, 60}}, {-1, {-150, 100, 0}}, {6, {-250, 100, 0}},
};

static void tailed_rig(struct skeleton *s)
{
	make_rig(s, BONES + 2, BONES);
	s->bones[6].parent = -1;
	s->bones[6].position[0] = -150;
	s->bones[6].position[1] = 100;
	s->bones[7].parent = 6;
	s->bones[7].position[0] = -100;
	skeleton_link(s, false);
}

static void tail_tip(void **state)
{
	(void)state;
	struct skeleton host, plain;
	struct pmo body, one;
	struct port_check c;
	tailed_rig(&host);
	make_rig(&plain, BONES, BONES);
	struct mkpmo_body b = {.skinned = true, .meshes = 2, .sides = SIDES, .rings = RINGS,
			       .bones = TAILED, .nbones = BONES + 2};
	decode_body(&b, &body);
	b.meshes = 1;
	decode_body(&b, &one);
	/* Mesh record 1 made the tail's groups alone (bones 6 and 7). */
	body.meshes[0].group_count = 6 * (RINGS + 1);
	body.meshes[1].group_first = 6 * (RINGS + 1);
	body.meshes[1].group_count = 2 * (RINGS + 1);
	port_tip_check(&host, &body, &host, &body, &c);
	assert_true(c.passed);
	assert_string_equal(c.figure, "the tip: 2 joints from 6; mesh 1's 8 groups on it");
	/* A host without a tail asks nothing. */
	port_tip_check(&plain, &one, &plain, &one, &c);
	assert_true(c.passed);
	assert_string_equal(c.figure, "the host drops no tail");
	/* No severed chain, one mesh record, mesh 1 off the tip: each fails. */
	port_tip_check(&host, &body, &plain, &body, &c);
	assert_false(c.passed);
	assert_non_null(strstr(c.figure, "no chain past its 6 animated joints"));
	/* An own rig adopts the orphan chain onto its hip: the chain past
	 * its animated joints is the tip all the same. */
	struct skeleton adopted;
	tailed_rig(&adopted);
	adopted.bones[6].parent = 1;
	skeleton_link(&adopted, false);
	port_tip_check(&host, &body, &adopted, &body, &c);
	assert_true(c.passed);
	assert_string_equal(c.figure, "the tip: 2 joints from 6; mesh 1's 8 groups on it");
	skeleton_free(&adopted);
	port_tip_check(&host, &body, &host, &one, &c);
	assert_false(c.passed);
	assert_string_equal(c.figure, "one mesh record: the dropped tail draws record 1");
	body.meshes[1].group_first = 5 * (RINGS + 1);
	port_tip_check(&host, &body, &host, &body, &c);
	assert_false(c.passed);
	assert_non_null(strstr(c.figure, "mesh 1 groups 20 21 22 23 ride joints off the tip"));
	pmo_free(&body);
	pmo_free(&one);
	skeleton_free(&host);
	skeleton_free(&plain);
}

static void template_warning(void **state)
{
	(void)state;
	struct skeleton host, port;
	struct port_check c;
	struct mh_diag d;
	make_rig(&host, BONES, BONES);
	make_rig(&port, BONES, BONES);
	assert_int_equal(port_template_check(&port, &host, &c, &d), MH_OK);
	assert_true(c.passed);
	assert_int_equal(c.level, RULE_WARNING);
	port.bones[5].parent = 2;
	skeleton_link(&port, false);
	assert_int_equal(port_template_check(&port, &host, &c, &d), MH_OK);
	assert_false(c.passed);
	assert_int_equal(c.level, RULE_WARNING);
	assert_non_null(strstr(c.figure, "1 difference from the host's skeleton"));
	skeleton_free(&port);
	skeleton_free(&host);
}

/* ---- speed ---------------------------------------------------------------- */

/* A Tigrex-sized port: 48 joints (a pelvis forking into two chains of
 * 23), about 6000 vertices, 100 entries; every bridge-like ring moved so
 * that hundreds of edges cross. */
static void tigrex_sized(void **state)
{
	(void)state;
	enum { N = 48, ENTRIES = 100 };
	struct skeleton s;
	struct mkpmo_bone tubes[N];
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, N, NULL), MH_OK);
	for (int b = 0; b < N; b++) {
		int32_t parent = b == 0 ? -1 : b <= 2 ? b - 1 : b == 3 || b == 4 ? 2 : b - 2;
		float off[3] = {b == 3 ? 40.0f : b == 4 ? -40.0f : 0, b == 1 ? 100.0f : 0,
				b > 4 ? (b % 2 ? 30.0f : -30.0f) : 0};
		s.bones[b].parent = parent;
		memcpy(s.bones[b].position, off, sizeof off);
		double at[3];
		tubes[b].parent = parent;
		s.nbones = (uint32_t)b + 1; /* rig_bind_world on the bones so far */
		assert_int_equal(rig_bind_world(&s, (uint32_t)b, at, NULL), MH_OK);
		for (int c = 0; c < 3; c++)
			tubes[b].at[c] = (float)at[c];
	}
	skeleton_link(&s, false);
	skeleton_set_params(&s, 2, (const uint32_t[]){0, N});
	/* Each chain's tube bridged to the other chain's joint alongside. */
	for (int b = 5; b < N; b++)
		tubes[b].parent = b - 1;
	struct pmo p;
	struct mkpmo_body body = {.skinned = true, .meshes = 7, .sides = 21, .rings = 3,
				  .bones = tubes, .nbones = N};
	decode_body(&body, &p);
	for (int b = 5; b < N; b++)
		for (uint32_t v = 0; v < 21; v++)
			reweigh(&p, band0((uint32_t)b), v, 0.25f, 0.75f);
	struct clip clips[ENTRIES];
	for (int e = 0; e < ENTRIES; e++) {
		memset(&clips[e], 0, sizeof clips[e]);
		for (int j = 0; j < N; j++) {
			struct clip_track *t = clip_add_track(&clips[e], 0);
			rest(t, (int16_t)(30 + e));
			t->channels[0].keys[1].value = (int16_t)(e * 7 + j);
		}
	}
	struct anim a;
	make_pack(&a, clips, ENTRIES);
	struct port_tear t;
	struct mh_diag d;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(port_tear(&s, &a, &p, &t, &d), MH_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	uint32_t vertices = 0;
	for (uint32_t g = 0; g < p.group_count; g++)
		vertices += p.groups[g].vertex_count;
	print_message("tear of %u vertices, %u crossing edges, %u entries: %.1f ms\n", vertices,
		      t.crossing, t.nentries, ms);
	assert_true(vertices >= 5000);
	assert_true(t.crossing >= 100);
	assert_int_equal(t.nentries, ENTRIES);
	assert_true(ms < 1000); /* well under 100 ms unsanitized; room for ASan */
	port_tear_free(&t);
	anim_free(&a);
	pmo_free(&p);
	skeleton_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tear_across_the_fork),
		cmocka_unit_test(tear_svg),
		cmocka_unit_test(still_geometry),
		cmocka_unit_test(donor_bones),
		cmocka_unit_test(skin_fidelity),
		cmocka_unit_test(tail_tip),
		cmocka_unit_test(template_warning),
		cmocka_unit_test(tigrex_sized),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
