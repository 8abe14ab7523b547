/* SPDX-License-Identifier: MIT */
/* model.glb of a model PAC's bytes alone (gltf.h gltf_model_of_pac): what
 * a port's out.pac shows, which no archive holds yet.  Pure. */
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "gltf.h"
#include "kind.h"
#include "pac.h"
#include "pmo.h"
#include "skeleton.h"
#include "tmh.h"

#define MAX_BODIES 2 /* a dual model set's second body, members 4-6 */

/* The PNGs of a texture bank, for a body: a bank that does not decode
 * gives none. */
struct pngs {
	uint8_t **png;
	size_t *len;
	uint32_t count;
};

static void pngs_free(struct pngs *p)
{
	for (uint32_t i = 0; i < p->count; i++)
		free(p->png[i]);
	free(p->png);
	free(p->len);
}

static enum mh_err bank_pngs(const uint8_t *bytes, size_t len, struct pngs *p, struct mh_diag *d)
{
	struct tmh t;
	memset(p, 0, sizeof *p);
	if (tmh_decode(bytes, len, &t, NULL)) {
		tmh_free(&t);
		return MH_OK;
	}
	enum mh_err err = MH_OK;
	p->png = calloc(t.count + 1, sizeof *p->png);
	p->len = calloc(t.count + 1, sizeof *p->len);
	if (!p->png || !p->len)
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory");
	for (uint32_t i = 0; !err && i < t.count; i++, p->count++)
		err = tmh_image_png(&t.images[i], &p->png[i], &p->len[i], d);
	tmh_free(&t);
	return err;
}

enum mh_err gltf_model_of_pac(const uint8_t *pac_bytes, size_t len, uint8_t **out,
			      size_t *out_len, struct mh_diag *d)
{
	struct pac pac;
	struct skeleton rig;
	struct anim pack;
	struct pmo pmo[MAX_BODIES];
	struct pngs pngs[MAX_BODIES];
	struct gltf_body body[MAX_BODIES];
	bool has_rig = false, has_pack = false;
	size_t nbodies = 0;
	enum mh_err err = pac_decode(pac_bytes, len, &pac, d);
	if (err)
		return err;
	for (uint32_t i = 0; !err && i < pac.count; i++) {
		const uint8_t *m = pac_bytes + pac.entries[i].offset;
		size_t n = pac.entries[i].size;
		enum kind k = n ? kind_of(m, n) : KIND_DATA;
		if (k == KIND_SKELETON && !has_rig) {
			has_rig = !skeleton_decode(m, n, &rig, NULL);
			if (!has_rig)
				skeleton_free(&rig);
		} else if (k == KIND_ANIM && !has_pack) {
			has_pack = !anim_decode(m, n, CLIP_NONE, &pack, NULL);
			if (!has_pack)
				anim_free(&pack);
		} else if (k == KIND_PMO && nbodies < MAX_BODIES) {
			size_t b = nbodies;
			if (pmo_decode(m, n, NULL, 0, &pmo[b], NULL)) {
				pmo_free(&pmo[b]);
				continue;
			}
			body[b] = (struct gltf_body){.pmo = &pmo[b]};
			memset(&pngs[b], 0, sizeof pngs[b]);
			nbodies++;
			/* The texture bank after it, before the next PMO. */
			for (uint32_t j = i + 1; j < pac.count && !err; j++) {
				const uint8_t *t = pac_bytes + pac.entries[j].offset;
				size_t tn = pac.entries[j].size;
				enum kind tk = tn ? kind_of(t, tn) : KIND_DATA;
				if (tk == KIND_PMO)
					break;
				if (tk != KIND_TMH)
					continue;
				if (!(err = bank_pngs(t, tn, &pngs[b], d)))
					body[b] = (struct gltf_body){pmo + b,
								     (const uint8_t *const *)pngs[b].png,
								     pngs[b].len, pngs[b].count};
				break;
			}
		}
	}
	if (!err)
		err = gltf_model_with(has_rig ? &rig : NULL, has_pack ? &pack : NULL, NULL, body,
				      nbodies, out, out_len, d);
	for (size_t b = 0; b < nbodies; b++) {
		pmo_free(&pmo[b]);
		pngs_free(&pngs[b]);
	}
	if (has_rig)
		skeleton_free(&rig);
	if (has_pack)
		anim_free(&pack);
	pac_free(&pac);
	return err;
}
