/* SPDX-License-Identifier: MIT */
/* Fuzz target: a written view's way to a commit, the codecs' side of
 * fs/commit/commit.c: the view's bytes encoded into its item (skeleton.txt,
 * pack.txt, a slot's text or bytes, a slot emptied or shared, an entry's
 * text, a texture's PNG, a PMO's mesh.txt, vertices.tsv or materials.tsv,
 * an item's raw bytes), the item spliced into its
 * model PAC (codecs/pacpath), then the engine's rules over the item's
 * container after and before the edit (codecs/rules), in a rules mode.
 *
 * The input: bytes 0..8 seed a small model PAC (a rig, a PMO, a texture
 * bank, an MHFU pack of the rig's parts); byte 8 picks the view,
 * byte 9 its slot, entry or image, byte 10 how the written bytes are
 * made from the rest: the rest itself, or the view's current text with
 * the rest as edits (3 bytes: a position and a byte) or spliced in.
 *
 * The promises, none of which counts violations or fixes their levels
 * (rules come and go): an encoding or splice that fails says why and
 * where; an edit that changes nothing is that; a judged edit's report is
 * whole (not failed), every violation's code, level and message real,
 * demoted ones warnings; a PMO's texts keep its size; an edit the report
 * lets through leaves a PAC
 * whose edited member holds exactly the new bytes and whose other members
 * are untouched, the new item decodes and re-encodes to itself, and the
 * same checks give the same report again.  Any broken one abort()s.
 * Built with clang -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with
 * tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clipgen.h"
#include "entries.h"
#include "kind.h"
#include "mkmodels.h"
#include "mkpmo.h"
#include "pac.h"
#include "pacpath.h"
#include "pmo.h"
#include "pmo_text.h"
#include "rules.h"
#include "skeleton.h"
#include "tmh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

/* The model's members, in this order. */
enum { M_SKELETON, M_PMO, M_TMH, M_PACK, M_COUNT };

/* The views a write can come through. */
enum view {
	V_SKELETON_TXT, V_PACK_TXT, V_SLOT_TXT, V_SLOT_BIN, V_SLOT_EMPTY,
	V_SLOT_SHARE, V_ENTRY_TXT, V_PNG, V_RAW_MEMBER, V_PMO_MESH, V_PMO_VERTICES,
	V_PMO_MATERIALS, V_COUNT
};

static bool pmo_view(enum view v)
{
	return v == V_PMO_MESH || v == V_PMO_VERTICES || v == V_PMO_MATERIALS;
}

/* A rig of nparts parts of 1..4 joints each, chained, as MHFU's are. */
static uint8_t *make_rig(struct rng *r, uint32_t nparts, size_t *len)
{
	uint32_t joints[3], n = 0;
	for (uint32_t p = 0; p < nparts; p++)
		n += joints[p] = 1 + gen_below(r, 4);
	struct skeleton s;
	check(skeleton_init(&s, SKELETON_MHFU, n, NULL) == MH_OK);
	for (uint32_t b = 0, p = 0, k = 0; b < n; b++, k++) {
		if (k == joints[p]) {
			p++;
			k = 0;
		}
		s.bones[b].parent = b ? (int32_t)(gen_below(r, 4) ? b - 1 : gen_below(r, b)) : -1;
		s.bones[b].part = p;
		s.bones[b].position[gen_below(r, 3)] = (float)gen_s16(r) / 16;
	}
	skeleton_link(&s, false);
	s.nparams = s.params_count = 2;
	s.params[1] = gen_below(r, 6) ? n : gen_below(r, n + 2);
	uint8_t *out;
	check(skeleton_encode(&s, &out, len, NULL) == MH_OK);
	skeleton_free(&s);
	return out;
}

/* A texture bank of the sample's kind: one of a few, built once (they
 * cost more than all the rest of an execution). */
static const uint8_t *texture_bank(uint32_t which, size_t *len)
{
	static uint8_t *banks[4];
	static size_t lens[4];
	which %= 4;
	if (!banks[which]) {
		struct rng r = {which + 1};
		char why[128] = "";
		banks[which] = gen_ok(mkmodel_tmh(&r, &lens[which], why, sizeof why));
	}
	*len = lens[which];
	return banks[which];
}

static uint8_t *make_model(uint64_t seed, size_t *len)
{
	struct rng r = {seed};
	uint32_t nparts = 1 + gen_below(&r, 2);
	struct pac_blob m[M_COUNT];
	uint8_t *bytes[M_COUNT];
	size_t sizes[M_COUNT];
	bytes[M_SKELETON] = make_rig(&r, nparts, &sizes[M_SKELETON]);
	struct mkpmo pmo;
	const struct mkpmo_shape shape = {.meshes = 1 + gen_below(&r, 2),
		.groups_per_mesh = 1 + gen_below(&r, 3), .vertices = 4 + gen_below(&r, 8),
		.skinned = gen_below(&r, 2), .remap = true};
	mkpmo_build(r.x, &shape, &pmo);
	bytes[M_PMO] = pmo.pmo; /* taken */
	sizes[M_PMO] = pmo.len;
	pmo.pmo = NULL;
	mkpmo_free(&pmo);
	const uint8_t *bank = texture_bank(gen_below(&r, 4), &sizes[M_TMH]);
	bytes[M_TMH] = gen_ok(malloc(sizes[M_TMH]));
	memcpy(bytes[M_TMH], bank, sizes[M_TMH]);
	struct anim a;
	gen_mhfu_pack(&r, &a, nparts, 4, 3);
	check(anim_encode(&a, &bytes[M_PACK], &sizes[M_PACK], NULL) == MH_OK);
	anim_free(&a);
	for (int i = 0; i < M_COUNT; i++)
		m[i] = (struct pac_blob){bytes[i], (uint32_t)sizes[i]};
	uint8_t *out;
	check(pac_encode(m, M_COUNT, 16, NULL, 0, &out, len, NULL) == MH_OK);
	for (int i = 0; i < M_COUNT; i++)
		free(bytes[i]);
	return out;
}

/* ---- the views' current texts and their encodings --------------------- */

struct edit {
	enum view view;
	uint32_t stream, slot;     /* slot views; the entry; the image */
	uint32_t from_stream, from_slot; /* V_SLOT_SHARE */
	const uint8_t *data;       /* what was written */
	size_t len;
};

/* The text (or PNG) the view shows for the item old[0..len), malloc'ed;
 * NULL when it shows none. */
static uint8_t *current(const struct edit *e, const uint8_t *old, size_t len, size_t *out_len)
{
	uint8_t *out = NULL;
	if (e->view == V_SKELETON_TXT) {
		struct skeleton s;
		check(skeleton_decode(old, len, &s, NULL) == MH_OK);
		out = (uint8_t *)skeleton_print(&s, NULL, out_len);
		skeleton_free(&s);
	} else if (e->view == V_PNG) {
		struct tmh t;
		check(tmh_decode(old, len, &t, NULL) == MH_OK);
		if (e->slot < t.count)
			check(tmh_image_png(&t.images[e->slot], &out, out_len, NULL) == MH_OK);
		tmh_free(&t);
	} else if (pmo_view(e->view)) {
		struct pmo p;
		check(pmo_decode(old, len, NULL, 0, &p, NULL) == MH_OK);
		out = (uint8_t *)(e->view == V_PMO_MESH ? pmo_mesh_print(&p, out_len)
				  : e->view == V_PMO_VERTICES ? pmo_vertices_print(&p, out_len)
							       : pmo_materials_print(&p, out_len));
		pmo_free(&p);
	} else if (e->view != V_RAW_MEMBER) {
		struct anim a;
		check(anim_decode(old, len, CLIP_MHFU, &a, NULL) == MH_OK);
		if (e->view == V_PACK_TXT)
			out = (uint8_t *)anim_print_shape(&a, out_len);
		else if (e->view == V_ENTRY_TXT)
			out = (uint8_t *)entries_print(&a, e->slot, "fuzz", NULL, out_len);
		else if (e->stream < a.nstreams && e->slot < a.streams[e->stream].nslots &&
			 a.streams[e->stream].slots[e->slot] >= 0) {
			const struct clip *c = &a.clips[a.streams[e->stream].slots[e->slot]];
			if (e->view == V_SLOT_BIN)
				check(clip_encode(CLIP_MHFU, c, &out, out_len, NULL) == MH_OK);
			else
				out = (uint8_t *)clip_print(c, NULL, -1, out_len);
		}
		anim_free(&a);
	} else {
		out = gen_ok(malloc(len ? len : 1));
		memcpy(out, old, len);
		*out_len = len;
	}
	return out;
}

static enum mh_err edit_pack(const struct edit *e, struct anim *a, struct mh_diag *d)
{
	switch (e->view) {
	case V_PACK_TXT: {
		struct anim shaped;
		enum mh_err err = anim_reshape(a, (const char *)e->data, e->len, &shaped, d);
		if (!err) {
			anim_free(a);
			*a = shaped;
		}
		return err;
	}
	case V_SLOT_TXT:
	case V_SLOT_BIN:
		return anim_slot_write(a, e->stream, e->slot, e->view == V_SLOT_TXT ?
				       ANIM_SLOT_TEXT : ANIM_SLOT_BYTES, e->data, e->len, d);
	case V_SLOT_EMPTY:
		return anim_slot_empty(a, e->stream, e->slot, d);
	case V_SLOT_SHARE:
		return anim_slot_share(a, e->stream, e->slot, e->from_stream, e->from_slot, d);
	default:
		return entries_write(a, e->slot, (const char *)e->data, e->len, d);
	}
}

/* The item's new bytes, as the view's class encodes them (fs/view_*.c). */
static enum mh_err encode(const struct edit *e, const uint8_t *old, size_t len,
			  uint8_t **out, size_t *out_len, struct mh_diag *d)
{
	enum mh_err err;
	if (e->view == V_SKELETON_TXT) {
		struct skeleton s;
		if (!(err = skeleton_parse((const char *)e->data, e->len, &s, d)))
			err = skeleton_encode(&s, out, out_len, d);
		skeleton_free(&s);
	} else if (e->view == V_PNG) {
		struct tmh t;
		check(tmh_decode(old, len, &t, NULL) == MH_OK);
		err = e->slot < t.count ? MH_OK : mh_fail(d, MH_ERANGE, 0, "no image %u", e->slot);
		if (!err)
			err = tmh_image_replace_png(&t.images[e->slot], e->data, e->len, d);
		if (!err)
			err = tmh_encode(&t, out, out_len, d);
		tmh_free(&t);
	} else if (pmo_view(e->view)) {
		/* As view_pmo.c: the PMO decoded afresh, the text applied, the
		 * bounds the skeleton's bones and the bank's images (here, any). */
		struct pmo p;
		const char *text = (const char *)e->data;
		check(pmo_decode(old, len, NULL, 0, &p, NULL) == MH_OK);
		err = e->view == V_PMO_MESH ? pmo_mesh_apply(&p, text, e->len, 0, d)
		      : e->view == V_PMO_VERTICES ? pmo_vertices_apply(&p, text, e->len, d)
						  : pmo_materials_apply(&p, text, e->len, 255, d);
		if (!err)
			err = pmo_encode(&p, out, out_len, NULL, NULL, d);
		check(err || *out_len == len); /* in place */
		pmo_free(&p);
	} else if (e->view == V_RAW_MEMBER) {
		*out = gen_ok(malloc(e->len ? e->len : 1));
		memcpy(*out, e->data, e->len);
		*out_len = e->len;
		err = MH_OK;
	} else {
		struct anim a;
		check(anim_decode(old, len, CLIP_MHFU, &a, NULL) == MH_OK);
		if (!(err = edit_pack(e, &a, d)) && !(err = anim_compact(&a, d)))
			err = anim_encode(&a, out, out_len, d);
		anim_free(&a);
	}
	return err;
}

/* ---- the rules and the promises ---------------------------------------- */

static void check_report(const struct rule_report *r)
{
	check(!r->failed);
	for (size_t i = 0; i < r->n; i++) {
		const struct rule_violation *v = &r->v[i];
		check(rule_info(v->code) != NULL);
		check(v->level == RULE_WARNING || v->level == RULE_ERROR);
		check(v->msg[0] && memchr(v->msg, '\0', sizeof v->msg));
		check(!v->existing || v->level == RULE_WARNING);
	}
}

static bool same_report(const struct rule_report *a, const struct rule_report *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].code != b->v[i].code || a->v[i].level != b->v[i].level ||
		    strcmp(a->v[i].msg, b->v[i].msg))
			return false;
	return true;
}

/* The edit judged as the commit judges it (rules_check_edit), the
 * report's promises kept. */
static void judge(const uint8_t *entry, size_t size, const uint8_t *entry_new,
		  size_t entry_len, const uint16_t *path, const uint8_t *item, size_t item_len,
		  enum rules_mode mode, struct rule_report *after)
{
	check(rules_check_edit(entry, size, entry_new, entry_len, path, 1, item, item_len, mode,
			       after) == MH_OK);
	check_report(after);
}

/* What the accepted edit left: the member holds the new bytes, the others
 * are untouched, and the new item (unless raw bytes were written) decodes
 * to itself. */
static void check_accepted(const uint8_t *entry, size_t size, const uint8_t *entry_new,
			   size_t entry_len, uint16_t member, bool raw, const uint8_t *item,
			   size_t len)
{
	struct pac was, now;
	check(pac_decode(entry, size, &was, NULL) == MH_OK);
	check(pac_decode(entry_new, entry_len, &now, NULL) == MH_OK);
	check(now.count == was.count);
	for (uint32_t i = 0; i < now.count; i++) {
		const struct pac_entry *a = &was.entries[i], *b = &now.entries[i];
		if (i == member)
			check(b->size == len && !memcmp(entry_new + b->offset, item, len));
		else
			check(b->size == a->size &&
			      !memcmp(entry_new + b->offset, entry + a->offset, a->size));
	}
	pac_free(&was);
	pac_free(&now);

	uint8_t *again = NULL;
	size_t n = 0;
	if (raw) {
		/* bytes as written: nothing to decode */
	} else if (member == M_SKELETON) {
		struct skeleton s;
		check(skeleton_decode(item, len, &s, NULL) == MH_OK);
		check(skeleton_encode(&s, &again, &n, NULL) == MH_OK);
		skeleton_free(&s);
	} else if (member == M_TMH) {
		struct tmh t;
		check(tmh_decode(item, len, &t, NULL) == MH_OK);
		check(tmh_encode(&t, &again, &n, NULL) == MH_OK);
		tmh_free(&t);
	} else if (member == M_PACK) {
		struct anim a;
		check(anim_decode(item, len, CLIP_MHFU, &a, NULL) == MH_OK);
		check(anim_encode(&a, &again, &n, NULL) == MH_OK);
		anim_free(&a);
	} else if (member == M_PMO) {
		struct pmo p;
		check(pmo_decode(item, len, NULL, 0, &p, NULL) == MH_OK);
		check(pmo_encode(&p, &again, &n, NULL, NULL, NULL) == MH_OK);
		pmo_free(&p);
	}
	check(!again || (n == len && !memcmp(again, item, len)));
	free(again);
}

/* The written bytes: the rest of the input, or the view's text with the
 * rest as edits or spliced in at a place the rest's first bytes choose. */
static uint8_t *written(const struct edit *e, const uint8_t *old, size_t len, uint8_t how,
			const uint8_t *rest, size_t nrest, size_t *out_len)
{
	size_t clen = 0;
	uint8_t *cur = how % 3 ? current(e, old, len, &clen) : NULL;
	if (!cur) {
		uint8_t *out = gen_ok(malloc(nrest ? nrest : 1));
		memcpy(out, rest, nrest);
		*out_len = nrest;
		return out;
	}
	if (how % 3 == 1) {
		gen_apply_edits(cur, clen, rest, nrest);
		*out_len = clen;
		return cur;
	}
	size_t at = nrest >= 2 ? (size_t)(rest[0] | rest[1] << 8) % (clen + 1) : clen;
	size_t n = nrest >= 2 ? nrest - 2 : 0, cut = how & 8 ? n : 0;
	cut = cut < clen - at ? cut : clen - at;
	uint8_t *out = gen_ok(malloc(clen - cut + n + 1));
	memcpy(out, cur, at);
	memcpy(out + at, rest + (nrest - n), n);
	memcpy(out + at + n, cur + at + cut, clen - at - cut);
	*out_len = clen - cut + n;
	free(cur);
	return out;
}

static const uint16_t MEMBER_OF[V_COUNT] = {
	[V_SKELETON_TXT] = M_SKELETON, [V_PACK_TXT] = M_PACK, [V_SLOT_TXT] = M_PACK,
	[V_SLOT_BIN] = M_PACK, [V_SLOT_EMPTY] = M_PACK, [V_SLOT_SHARE] = M_PACK,
	[V_ENTRY_TXT] = M_PACK, [V_PNG] = M_TMH, [V_RAW_MEMBER] = M_SKELETON,
	[V_PMO_MESH] = M_PMO, [V_PMO_VERTICES] = M_PMO, [V_PMO_MATERIALS] = M_PMO,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 11)
		return 0;
	uint64_t seed;
	memcpy(&seed, data, 8);
	size_t size_entry;
	uint8_t *entry = make_model(seed, &size_entry);
	struct edit e = {.view = (enum view)(data[8] % V_COUNT)};
	e.stream = data[9] >> 6;
	e.slot = data[9] & 7;
	e.from_stream = data[9] >> 3 & 3;
	e.from_slot = data[10] >> 5;
	if (e.view == V_ENTRY_TXT)
		e.slot = (data[9] & 3) + (data[9] & 4 ? 100 : 0);
	uint16_t path[1] = {MEMBER_OF[e.view]};
	if (e.view == V_RAW_MEMBER)
		path[0] = data[9] % M_COUNT;

	const uint8_t *old;
	size_t old_len;
	check(pacpath_member(entry, size_entry, path, 1, &old, &old_len, NULL) == MH_OK);
	size_t wlen;
	uint8_t *w = written(&e, old, old_len, data[10], data + 11, size - 11, &wlen);
	e.data = w;
	e.len = wlen;

	uint8_t *item = NULL, *entry_new = NULL;
	size_t item_len = 0, entry_len = 0;
	struct mh_diag d = {0};
	enum mh_err err = encode(&e, old, old_len, &item, &item_len, &d);
	if (err) {
		check(d.code == err && d.msg[0]);
	} else if (item_len != old_len || memcmp(item, old, old_len)) {
		err = pacpath_splice(entry, size_entry, path, 1, item, item_len, &entry_new,
				     &entry_len, &d);
		check(!err || (d.code == err && d.msg[0]));
	} else {
		err = MH_ERANGE; /* unchanged: nothing to judge */
	}
	if (!err) {
		enum rules_mode mode = (enum rules_mode)(data[10] >> 4 & 3) % 3;
		struct rule_report after = {0}, again = {0};
		judge(entry, size_entry, entry_new, entry_len, path, item, item_len, mode, &after);
		if (!rules_has_errors(&after)) {
			check_accepted(entry, size_entry, entry_new, entry_len, path[0],
				       e.view == V_RAW_MEMBER, item, item_len);
			judge(entry, size_entry, entry_new, entry_len, path, item, item_len, mode, &again);
			check(same_report(&after, &again));
		}
		rules_report_free(&after);
		rules_report_free(&again);
	}
	free(item);
	free(entry_new);
	free(w);
	free(entry);
	return 0;
}
