#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views.h"

/* Adds n bytes to what m holds. */
static void model_count(struct model *m, size_t n)
{
	atomic_fetch_add(&m->bytes, n);
	atomic_fetch_add(m->account, n);
}

struct model *model_build(enum kind kind, const uint8_t *buf, size_t len,
			  const char *label, const struct skeleton *rig,
			  _Atomic size_t *account, char *why, size_t why_len)
{
	struct mh_diag d = {0};
	struct model *m = calloc(1, sizeof *m);
	if (!m || !(m->label = strdup(label)))
		goto nomem;
	m->kind = kind;
	if (kind == KIND_SKELETON) {
		if (skeleton_decode(buf, len, &m->skel, &d))
			goto bad;
		m->text.text = views_skeleton_text(&m->skel, label, &m->text.len);
	} else {
		if (anim_decode(buf, len, CLIP_NONE, &m->pack, &d))
			goto bad;
		uint32_t n = m->pack.nclips ? m->pack.nclips : 1;
		m->clip_offset = calloc(n, sizeof *m->clip_offset);
		m->clip_size = calloc(n, sizeof *m->clip_size);
		m->clip_text = calloc(n, sizeof *m->clip_text);
		if (!m->clip_offset || !m->clip_size || !m->clip_text)
			goto nomem;
		anim_clip_offsets(&m->pack, m->clip_offset, m->clip_size);
		m->rig = rig;
		m->text.text = views_pack_text(&m->pack, &m->text.len);
	}
	if (!m->text.text)
		goto nomem;
	/* The decoded structures: about the size of the bytes they came
	 * from, counted once; the texts exactly. */
	m->account = account;
	model_count(m, sizeof *m + len + m->text.len);
	return m;
bad:
	snprintf(why, why_len, "%s at byte %llu", d.msg, (unsigned long long)d.offset);
	model_free(m);
	return NULL;
nomem:
	snprintf(why, why_len, "out of memory");
	model_free(m);
	return NULL;
}

const struct model_text *model_clip_text(struct model *m, uint32_t clip)
{
	struct model_text *t = atomic_load_explicit(&m->clip_text[clip], memory_order_acquire);
	if (t)
		return t;
	t = malloc(sizeof *t);
	if (!t)
		return NULL;
	t->text = views_clip_text(&m->pack, clip, m->label, m->rig, &t->len);
	if (!t->text) {
		free(t);
		return NULL;
	}
	struct model_text *expected = NULL;
	if (!atomic_compare_exchange_strong(&m->clip_text[clip], &expected, t)) {
		free(t->text); /* another reader printed it first */
		free(t);
		t = expected;
	} else {
		model_count(m, sizeof *t + t->len);
	}
	return t;
}

const struct model_text *model_keep_glb(struct model *m, uint8_t *bytes, size_t len)
{
	struct model_text *t = malloc(sizeof *t), *expected = NULL;
	if (!t) {
		free(bytes);
		return NULL;
	}
	*t = (struct model_text){.text = (char *)bytes, .len = len};
	if (!atomic_compare_exchange_strong(&m->glb, &expected, t)) {
		free(bytes); /* another reader made it first */
		free(t);
		return expected;
	}
	model_count(m, sizeof *t + len);
	return t;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	if (m->account)
		atomic_fetch_sub(m->account, atomic_load(&m->bytes));
	for (uint32_t c = 0; m->clip_text && c < m->pack.nclips; c++) {
		struct model_text *t = atomic_load(&m->clip_text[c]);
		if (t)
			free(t->text);
		free(t);
	}
	free(m->clip_text);
	struct model_text *glb = atomic_load(&m->glb);
	if (glb)
		free(glb->text);
	free(glb);
	free(m->clip_offset);
	free(m->clip_size);
	free(m->text.text);
	free(m->label);
	skeleton_free(&m->skel);
	anim_free(&m->pack);
	free(m);
}
