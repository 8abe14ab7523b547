/* SPDX-License-Identifier: MIT */
/* Fuzz target: the PMO text views (codecs/pmo_text.h).
 *
 * The input's first 12 bytes build a model with tests/gen/mkpmo.c (8 of
 * seed, 4 of shape, as in fuzz_pmo.c); the 13th picks where the rest
 * goes; the rest is text.  Each of the three views is applied twice:
 * the rest as the whole text, and the view as printed with the rest
 * spliced in at a place the 13th byte picks (so edits start from a text
 * that parses).  An applied text must leave a model that encodes to the
 * same sizes, and whose vertices.tsv reprinted from the model before
 * (pmo_vertices_reprint) is the one printed afresh; a refused one must
 * carry its diagnostic and leave the model's bytes as they were.  A
 * spliced vertices.tsv must apply the same (outcome, diagnostic, bytes)
 * with its printed text given, which parses only the rows between what
 * is as printed at either end, as without.  Any violation abort()s.
 * fuzz.sh flags: -max_len=4096
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mkpmo.h"
#include "pmo.h"
#include "pmo_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct enc {
	uint8_t *pmo, *comp;
	size_t len, comp_len;
};

static void encode(const struct pmo *p, struct enc *e)
{
	if (pmo_encode(p, &e->pmo, &e->len, &e->comp, &e->comp_len, NULL) != MH_OK)
		abort();
}

static void enc_free(struct enc *e)
{
	free(e->pmo);
	free(e->comp);
}

static char *print_view(const struct pmo *p, int view, size_t *n)
{
	char *t = view == 0 ? pmo_mesh_print(p, n) : view == 1 ? pmo_vertices_print(p, n)
							       : pmo_materials_print(p, n);
	if (!t)
		abort();
	return t;
}

static enum mh_err apply_view(struct pmo *p, int view, const char *t, size_t n,
			      struct mh_diag *d)
{
	return view == 0 ? pmo_mesh_apply(p, t, n, 40, d)
	       : view == 1 ? pmo_vertices_apply(p, t, n, d)
			   : pmo_materials_apply(p, t, n, 3, d);
}

/* vertices.tsv of p reprinted from its model before (was, and the text
 * printed from it) is the text printed afresh. */
static void check_reprint(const struct pmo *p, const struct pmo *was, const char *was_text,
			  size_t was_len)
{
	size_t n, m;
	char *fresh = print_view(p, 1, &n), *re = pmo_vertices_reprint(p, was, was_text, was_len, &m);
	if (!re || m != n || memcmp(re, fresh, n))
		abort();
	free(fresh);
	free(re);
}

/* Applies t: accepted, the sizes stay and vertices.tsv reprints as it
 * prints; refused, the bytes stay. */
static void check_apply(struct pmo *p, int view, const char *t, size_t n)
{
	struct enc before, after;
	encode(p, &before);
	struct pmo was;
	size_t was_len;
	if (pmo_clone(p, &was, NULL) != MH_OK)
		abort();
	char *was_text = print_view(&was, 1, &was_len);
	struct mh_diag d = {0};
	enum mh_err err = apply_view(p, view, t, n, &d);
	check_reprint(p, &was, was_text, was_len);
	free(was_text);
	pmo_free(&was);
	encode(p, &after);
	if (after.len != before.len || after.comp_len != before.comp_len)
		abort();
	if (err && (d.code != err || !d.msg[0] || !d.line || !d.col ||
		    memcmp(after.pmo, before.pmo, before.len) ||
		    (before.comp && memcmp(after.comp, before.comp, before.comp_len))))
		abort();
	enc_free(&before);
	enc_free(&after);
}

/* vertices.tsv text e applied to copies of p with its printed text and
 * without: the same outcome, diagnostic and bytes. */
static void check_printed_agrees(const struct pmo *p, const char *e, size_t n,
				 const char *printed, size_t printed_len)
{
	struct pmo with, without;
	if (pmo_clone(p, &with, NULL) != MH_OK || pmo_clone(p, &without, NULL) != MH_OK)
		abort();
	struct mh_diag dw = {0}, dwo = {0};
	enum mh_err ew = pmo_vertices_apply_printed(&with, e, n, printed, printed_len, &dw);
	enum mh_err ewo = pmo_vertices_apply(&without, e, n, &dwo);
	struct enc a, b;
	encode(&with, &a);
	encode(&without, &b);
	if (ew != ewo || a.len != b.len || memcmp(a.pmo, b.pmo, a.len) ||
	    a.comp_len != b.comp_len || (a.comp && memcmp(a.comp, b.comp, a.comp_len)) ||
	    (ew && (dw.line != dwo.line || dw.col != dwo.col || strcmp(dw.msg, dwo.msg))))
		abort();
	enc_free(&a);
	enc_free(&b);
	pmo_free(&with);
	pmo_free(&without);
}

/* The view printed, data[0..n) spliced in at a place `pick` chooses. */
static void check_spliced(struct pmo *p, int view, const uint8_t *data, size_t n, uint8_t pick)
{
	size_t len;
	char *t = print_view(p, view, &len);
	size_t at = len ? (size_t)pick * 2654435761u % len : 0, cut = n ? data[0] % 8 : 0;
	if (cut > len - at)
		cut = len - at;
	char *e = malloc(len + n + 1);
	if (!e)
		abort();
	memcpy(e, t, at);
	memcpy(e + at, data, n);
	memcpy(e + at + n, t + at + cut, len - at - cut);
	if (view == 1)
		check_printed_agrees(p, e, len - cut + n, t, len);
	check_apply(p, view, e, len - cut + n);
	free(e);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t head[13] = {0};
	memcpy(head, data, size < 13 ? size : 13);
	uint64_t seed = 0;
	for (int i = 0; i < 8; i++)
		seed |= (uint64_t)head[i] << 8 * i;
	struct mkpmo_shape s = {.p3rd = head[8] & 1, .skinned = head[8] >> 1 & 1,
				.remap = head[8] >> 2 & 1, .companion = head[8] >> 3 & 1,
				.meshes = 1 + head[9] % 3, .groups_per_mesh = 1 + head[10] % 3,
				.vertices = 3 + head[11] % 20, .tail = head[8] >> 4};
	struct mkpmo m;
	mkpmo_build(seed, &s, &m);
	struct pmo p;
	if (pmo_decode(m.pmo, m.len, m.companion, m.companion_len, &p, NULL) != MH_OK)
		abort();
	const uint8_t *rest = size > 13 ? data + 13 : data;
	size_t n = size > 13 ? size - 13 : 0;
	for (int view = 0; view < 3; view++) {
		check_apply(&p, view, (const char *)rest, n);
		check_spliced(&p, view, rest, n, head[12]);
	}
	pmo_free(&p);
	mkpmo_free(&m);
	return 0;
}
