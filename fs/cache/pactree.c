/* SPDX-License-Identifier: MIT */
#include "pactree.h"

#include <stdio.h>
#include <stdlib.h>

#include "pac.h"

struct pactree *pactree_build(const uint8_t *buf, uint64_t len, uint64_t base,
			      unsigned depth, struct fs_diag *why)
{
	struct pac pac;
	struct mh_diag d;

	if (pac_decode(buf, len, &pac, &d) != MH_OK) {
		fs_diag_printf(why, "%s at byte %llu", d.msg,
			 (unsigned long long)(base + d.offset));
		return NULL;
	}
	struct pactree *t = calloc(1, sizeof *t);
	if (t)
		t->subs = calloc(pac.count, sizeof *t->subs);
	if (!t || !t->subs) {
		free(t);
		pac_free(&pac);
		fs_diag_printf(why, "out of memory");
		return NULL;
	}
	t->count = pac.count;
	for (uint32_t i = 0; i < pac.count; i++) {
		struct pactree_sub *s = &t->subs[i];
		const uint8_t *p = buf + pac.entries[i].offset;
		s->offset = base + pac.entries[i].offset;
		s->size = pac.entries[i].size;
		if (!s->size)
			continue;
		s->kind = kind_sniff(p, s->size, s->size);
		/* A nested PAC that does not decode stays a raw file: the
		 * sniff was a near miss, not an error worth reporting. */
		if (s->kind == KIND_PAC && depth > 1) {
			struct fs_diag ignored;
			s->child = pactree_build(p, s->size, s->offset, depth - 1, &ignored);
		}
	}
	pac_free(&pac);
	return t;
}

size_t pactree_bytes(const struct pactree *t)
{
	size_t n = t ? sizeof *t + t->count * sizeof *t->subs : 0;
	for (uint32_t i = 0; t && i < t->count; i++)
		n += pactree_bytes(t->subs[i].child) + model_cache_text_bytes(&t->subs[i].cache);
	return n;
}

void pactree_free(struct pactree *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->count; i++) {
		pactree_free(t->subs[i].child);
		model_cache_free(&t->subs[i].cache);
	}
	free(t->subs);
	free(t);
}
