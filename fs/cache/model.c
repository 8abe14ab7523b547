/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "curve_svg.h"
#include "entries.h"
#include "pmo_text.h"
#include "rig.h"
#include "views.h"

/* Adds n bytes to what m holds. */
static void model_count(struct model *m, size_t n)
{
	atomic_fetch_add(&m->bytes, n);
	atomic_fetch_add(m->account, n);
}

/* A texture bank's model: decoded, shown only if it encodes back to the
 * same bytes and its images fit the mount's numbering; its images' PNGs
 * are made on first use.  0, or EINVAL saying why when it is not shown. */
static int tmh_build(struct model *m, const uint8_t *buf, size_t len, struct mh_diag *d,
		     struct fs_diag *why)
{
	uint8_t *again = NULL;
	size_t again_len = 0;
	if (tmh_decode(buf, len, &m->tex, d) || tmh_encode(&m->tex, &again, &again_len, d)) {
		fs_diag_printf(why, "%s at byte %llu", d->msg, (unsigned long long)d->offset);
		free(again);
		return EINVAL;
	}
	bool same = again_len == len && !memcmp(again, buf, len);
	free(again);
	uint32_t big = 0;
	while (big < m->tex.count && png_size_ok(m->tex.images[big].width,
						 m->tex.images[big].height))
		big++;
	if (!same)
		fs_diag_printf(why, "its TMH does not encode back to the same bytes");
	else if (big < m->tex.count)
		fs_diag_printf(why, "image %u is %ux%u, larger than the PNGs shown (sides up "
			 "to %u, %u pixels)", big, m->tex.images[big].width,
			 m->tex.images[big].height, PNG_MAX_SIDE, PNG_MAX_PIXELS);
	else if (m->tex.count > MODEL_MAX_IMAGES)
		fs_diag_printf(why, "%u images: the mount shows banks of up to %u",
			 m->tex.count, MODEL_MAX_IMAGES);
	else if (!(m->image_png = calloc(m->tex.count ? m->tex.count : 1, sizeof *m->image_png)))
		fs_diag_printf(why, "out of memory");
	else
		return 0;
	return EINVAL;
}

/* An MHP3rd pack's record map and records.txt, the override in force
 * when it still fits (else m->override_note says why not).  False when
 * out of memory. */
static bool pack_map(struct model *m, const struct model_map_source *src)
{
	if (!(m->records = calloc(1, sizeof *m->records)) ||
	    records_init(m->records, src->rig, &m->pack, src->monster, NULL)) {
		free(m->records);
		m->records = NULL;
		return false;
	}
	struct records_setting set;
	struct mh_diag d = {0};
	if (src->override &&
	    (records_parse(m->records, (const char *)src->override, src->override_len, &set, &d) ||
	     records_override(m->records, &set, &d))) {
		if (d.code == MH_ENOMEM)
			return false;
		snprintf(m->override_note, sizeof m->override_note, "%.255s:%u:%u: %.192s", src->override_path,
			 d.line, d.col, d.msg);
	}
	if (src->override)
		records_setting_free(&set);
	m->records_txt.text = records_print(m->records, m->label, src->rig ? src->rig_label : NULL,
					    src->monster_from[0] ? src->monster_from : NULL,
					    &m->records_txt.len);
	return m->records_txt.text != NULL;
}

static const struct model_text *model_keep(struct model *m, _Atomic(struct model_text *) *slot,
					   char *text, size_t len);

/* PMO model m's vertices.tsv, its rows lent by its model before (was)
 * where their vertices did not change: the text a commit of one row
 * reads back costs one row's printing.  Out of memory, it is printed on
 * first use as any other. */
static void reprint_vertices(struct model *m, const struct model *was)
{
	const struct model_text *t = atomic_load(&was->pmo_text[PMO_VERTICES_TSV]);
	size_t len = 0;
	char *text = t ? pmo_vertices_reprint(&m->pmo, &was->pmo, t->text, t->len, &len) : NULL;
	if (text)
		model_keep(m, &m->pmo_text[PMO_VERTICES_TSV], text, len);
}

struct model *model_build(const struct model_input *in, _Atomic size_t *account,
			  _Atomic uint64_t *pictures, struct fs_diag *why)
{
	struct mh_diag d = {0};
	enum kind kind = in->kind;
	const uint8_t *buf = in->buf;
	size_t len = in->len;
	const struct skeleton *rig = in->rig;
	struct model *m = calloc(1, sizeof *m);
	if (!m || !(m->label = strdup(in->label)))
		goto nomem;
	m->kind = kind;
	if (kind == KIND_PMO) {
		if (pmo_decode(buf, len, in->companion, in->companion_len, &m->pmo, &d))
			goto bad;
		m->images = in->images;
		m->bones = rig ? (int32_t)rig->nbones : -1;
		len += m->pmo.companion_len; /* kept with it */
	} else if (kind == KIND_TMH) {
		if (tmh_build(m, buf, len, &d, why))
			goto bad_said;
	} else if (kind == KIND_SKELETON) {
		if (skeleton_decode(buf, len, &m->skel, &d))
			goto bad;
	} else {
		if (anim_decode(buf, len, CLIP_NONE, &m->pack, &d))
			goto bad;
		uint32_t n = m->pack.nclips ? m->pack.nclips : 1;
		m->clip_offset = calloc(n, sizeof *m->clip_offset);
		m->clip_size = calloc(n, sizeof *m->clip_size);
		m->clip_text = calloc(n, sizeof *m->clip_text);
		m->clip_svg = calloc(n, sizeof *m->clip_svg);
		m->entry_svg = calloc(ENTRIES_MAX, sizeof *m->entry_svg);
		m->entry_text = calloc(ENTRIES_MAX, sizeof *m->entry_text);
		if (!m->clip_offset || !m->clip_size || !m->clip_text || !m->clip_svg ||
		    !m->entry_svg || !m->entry_text)
			goto nomem;
		anim_clip_offsets(&m->pack, m->clip_offset, m->clip_size);
		m->rig = rig;
		m->text.text = views_pack_text(&m->pack, &m->text.len);
		if (in->map && m->pack.format == CLIP_P3RD && !pack_map(m, in->map))
			goto nomem;
	}
	if (kind == KIND_ANIM && !m->text.text)
		goto nomem;
	/* The decoded structures: about the size of the bytes they came
	 * from, counted once; the texts exactly. */
	m->account = account;
	m->pictures = pictures;
	model_count(m, sizeof *m + len + m->text.len + m->records_txt.len);
	if (kind == KIND_PMO && in->was)
		reprint_vertices(m, in->was);
	return m;
bad:
	fs_diag_printf(why, "%s at byte %llu", d.msg, (unsigned long long)d.offset);
bad_said:
	model_free(m);
	return NULL;
nomem:
	fs_diag_printf(why, "out of memory");
	model_free(m);
	return NULL;
}

const struct model_text *model_text_keep(_Atomic(struct model_text *) *slot, char *text,
					 size_t len, size_t *kept)
{
	struct model_text *t = malloc(sizeof *t), *expected = NULL;
	*kept = 0;
	if (!t) {
		free(text);
		return NULL;
	}
	*t = (struct model_text){.text = text, .len = len};
	atomic_init(&t->refs, 1);
	if (!atomic_compare_exchange_strong(slot, &expected, t)) {
		free(text); /* another reader made it first */
		free(t);
		return expected;
	}
	*kept = sizeof *t + len;
	return t;
}

/* model_text_keep, counted in m's memory; NULL text: out of memory. */
static const struct model_text *model_keep(struct model *m, _Atomic(struct model_text *) *slot,
					   char *text, size_t len)
{
	size_t kept;
	const struct model_text *t = text ? model_text_keep(slot, text, len, &kept) : NULL;
	if (t)
		model_count(m, kept);
	return t;
}

/* model_keep of a picture, counted as made. */
static const struct model_text *keep_picture(struct model *m, _Atomic(struct model_text *) *slot,
					     char *bytes, size_t len)
{
	if (bytes && m->pictures)
		atomic_fetch_add(m->pictures, 1);
	return model_keep(m, slot, bytes, len);
}

/* What prints text i of a pack's model (a clip's or an entry's). */
typedef char *model_printer(const struct model *m, uint32_t i, size_t *len);

/* Text i of `cache`, printed by `print` on first use. */
static const struct model_text *cached_text(struct model *m, _Atomic(struct model_text *) *cache,
					    uint32_t i, model_printer *print, bool picture)
{
	struct model_text *t = atomic_load_explicit(&cache[i], memory_order_acquire);
	size_t len = 0;
	if (t)
		return t;
	char *text = print(m, i, &len);
	return picture ? keep_picture(m, &cache[i], text, len) : model_keep(m, &cache[i], text, len);
}

static char *clip_text_of(const struct model *m, uint32_t clip, size_t *len)
{
	return views_clip_text_mapped(&m->pack, clip, m->label, m->rig, m->records, len);
}

static char *clip_svg_of(const struct model *m, uint32_t clip, size_t *len)
{
	return curve_svg_clip_view_mapped(&m->pack, clip, m->label, m->rig, m->records, len);
}

static char *entry_text_of(const struct model *m, uint32_t entry, size_t *len)
{
	return entries_print(&m->pack, entry, m->label, m->rig, len);
}

static char *entry_svg_of(const struct model *m, uint32_t entry, size_t *len)
{
	return curve_svg_entry_view(&m->pack, entry, m->label, m->rig, len);
}

const struct model_text *model_image_png(struct model *m, uint32_t image)
{
	struct model_text *t = atomic_load_explicit(&m->image_png[image], memory_order_acquire);
	uint8_t *png;
	size_t len;
	if (t)
		return t;
	if (tmh_image_png(&m->tex.images[image], &png, &len, NULL))
		return NULL;
	return keep_picture(m, &m->image_png[image], (char *)png, len);
}

/* Rows of vertices.tsv a body needs before its text is printed in two
 * halves at once: the Tigrex's 6,000 are half of a cold read of it. */
#define SPLIT_PRINT_VERTICES 4096u

/* One half of vertices.tsv, printed on a thread of its own. */
struct half_print {
	const struct pmo *p;
	uint32_t first, end;
	char *text;
	size_t len;
};

static void *print_half(void *arg)
{
	struct half_print *h = arg;
	h->text = pmo_vertices_print_groups(h->p, h->first, h->end, h->first == 0, &h->len);
	return NULL;
}

/* pmo_vertices_print, a big body's two halves of groups at once (the
 * later half on a thread of its own, or here when none can start). */
static char *print_vertices(const struct pmo *p, size_t *len)
{
	uint64_t total = 0, sofar = 0;
	for (uint32_t g = 0; g < p->group_count; g++)
		total += p->groups[g].vertex_count;
	uint32_t mid = 0;
	while (mid < p->group_count && 2 * sofar < total)
		sofar += p->groups[mid++].vertex_count;
	if (total < SPLIT_PRINT_VERTICES || mid == 0 || mid == p->group_count)
		return pmo_vertices_print(p, len);
	struct half_print a = {p, 0, mid, NULL, 0}, b = {p, mid, p->group_count, NULL, 0};
	pthread_t later;
	bool apart = !pthread_create(&later, NULL, print_half, &b);
	print_half(&a);
	if (apart)
		pthread_join(later, NULL);
	else
		print_half(&b);
	char *text = a.text && b.text ? realloc(a.text, a.len + b.len + 1) : NULL;
	if (text) {
		memcpy(text + a.len, b.text, b.len + 1);
		*len = a.len + b.len;
	} else {
		free(a.text);
	}
	free(b.text);
	return text;
}

const struct model_text *model_pmo_text(struct model *m, enum pmo_view which)
{
	static char *(*const print[PMO_VIEWS])(const struct pmo *, size_t *) = {
		pmo_mesh_print, print_vertices, pmo_materials_print,
	};
	struct model_text *t = atomic_load_explicit(&m->pmo_text[which], memory_order_acquire);
	size_t len = 0;
	if (t)
		return t;
	char *text = print[which](&m->pmo, &len);
	return model_keep(m, &m->pmo_text[which], text, len);
}

/* The text kept in slot, or made by print now and kept there (NULL when
 * out of memory): a model's texts printed on first use. */
static const struct model_text *made_once(struct model *m, _Atomic(struct model_text *) *slot,
					  char *(*print)(const struct model *, size_t *))
{
	struct model_text *t = atomic_load_explicit(slot, memory_order_acquire);
	size_t len = 0;
	if (t)
		return t;
	char *text = print(m, &len);
	return model_keep(m, slot, text, len);
}

static char *skeleton_txt_of(const struct model *m, size_t *len)
{
	return views_skeleton_text(&m->skel, m->label, len);
}

static char *bind_world_of(const struct model *m, size_t *len)
{
	return rig_bind_world_text(&m->skel, m->label, len);
}

static char *entries_index_of(const struct model *m, size_t *len)
{
	return entries_index(&m->pack, len);
}

const struct model_text *model_skeleton_text(struct model *m)
{
	return made_once(m, &m->skeleton_txt, skeleton_txt_of);
}

const struct model_text *model_bind_world(struct model *m)
{
	return made_once(m, &m->bind_world, bind_world_of);
}

const struct model_text *model_entries_index(struct model *m)
{
	return made_once(m, &m->entries_index, entries_index_of);
}

const struct model_text *model_clip_text(struct model *m, uint32_t clip)
{
	return cached_text(m, m->clip_text, clip, clip_text_of, false);
}

const struct model_text *model_clip_svg(struct model *m, uint32_t clip)
{
	return cached_text(m, m->clip_svg, clip, clip_svg_of, true);
}

const struct model_text *model_entry_text(struct model *m, uint32_t entry)
{
	return cached_text(m, m->entry_text, entry, entry_text_of, false);
}

const struct model_text *model_entry_svg(struct model *m, uint32_t entry)
{
	return cached_text(m, m->entry_svg, entry, entry_svg_of, true);
}


const struct model_text *model_keep_glb(struct model *m, uint8_t *bytes, size_t len)
{
	return keep_picture(m, &m->glb, (char *)bytes, len);
}

const struct model_text *model_keep_made(struct model *m, _Atomic(struct model_text *) *slot,
					 uint8_t *bytes, size_t len)
{
	size_t kept;
	const struct model_text *t = model_text_keep(slot, (char *)bytes, len, &kept);
	if (t)
		model_count(m, kept);
	return t;
}

const struct model_text *model_text_share(const struct model_text *t)
{
	if (t)
		atomic_fetch_add(&((struct model_text *)t)->refs, 1);
	return t;
}

void model_text_put(const struct model_text *t)
{
	struct model_text *m = (struct model_text *)t;
	if (m && atomic_fetch_sub(&m->refs, 1) == 1) {
		free(m->text);
		free(m);
	}
}

size_t model_cache_text_bytes(const struct model_cache *c)
{
	const struct model_text *t = atomic_load(&c->check);
	return t ? sizeof *t + t->len : 0;
}

void model_cache_free(struct model_cache *c)
{
	model_free(atomic_exchange(&c->model, NULL));
	model_text_put(atomic_exchange(&c->check, NULL));
}

/* Frees a cache of n texts. */
static void free_texts(_Atomic(struct model_text *) *cache, uint32_t n)
{
	for (uint32_t c = 0; cache && c < n; c++)
		model_text_put(atomic_load(&cache[c]));
	free(cache);
}

void model_take_pack(struct model *m, struct anim *a)
{
	free_texts(m->clip_text, m->pack.nclips);
	free_texts(m->clip_svg, m->pack.nclips);
	m->clip_text = m->clip_svg = NULL;
	*a = m->pack;
	memset(&m->pack, 0, sizeof m->pack);
}

void model_free(struct model *m)
{
	if (!m)
		return;
	if (m->account)
		atomic_fetch_sub(m->account, atomic_load(&m->bytes));
	free_texts(m->clip_text, m->pack.nclips);
	free_texts(m->clip_svg, m->pack.nclips);
	free_texts(m->entry_svg, ENTRIES_MAX);
	free_texts(m->entry_text, ENTRIES_MAX);
	free_texts(m->image_png, m->tex.count);
	tmh_free(&m->tex);
	for (int v = 0; v < PMO_VIEWS; v++)
		model_text_put(atomic_load(&m->pmo_text[v]));
	pmo_free(&m->pmo);
	model_text_put(atomic_load(&m->glb));
	for (int v = 0; v < PORT_VIEWS; v++)
		model_text_put(atomic_load(&m->port[v]));
	model_text_put(atomic_load(&m->donor));
	model_text_put(atomic_load(&m->bind_world));
	model_text_put(atomic_load(&m->skeleton_txt));
	model_text_put(atomic_load(&m->entries_index));
	free(m->clip_offset);
	free(m->clip_size);
	free(m->text.text);
	records_free(m->records);
	free(m->records);
	free(m->records_txt.text);
	free(m->label);
	skeleton_free(&m->skel);
	anim_free(&m->pack);
	free(m);
}
