/* SPDX-License-Identifier: MIT */
/* Fuzz target: the donor bundle (codecs/donor.c).
 *
 * Each input is used two ways:
 *  1. as a bundle: donor_decode; what decodes must encode (donor_encode
 *     of its members and settings) to the same bytes, and sniff as a
 *     bundle; what fails must say where and leave the donor empty;
 *  2. as settings: a bundle made here (an MHP3rd rig of up to 16 bones
 *     and a pack of up to 12 records drawn from the input's first bytes)
 *     has its settings member overwritten by the input from a place the
 *     input chooses, then is decoded as in 1; a refused settings member
 *     says line:col.
 * Any violation abort()s.  Built with clang -fsanitize=fuzzer
 * (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "donor.h"
#include "pac.h"
#include "skeleton.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static uint8_t byte_at(const uint8_t *data, size_t size, size_t i)
{
	return size ? data[i % size] : 0;
}

/* Decodes b; an accepted bundle encodes back to b.  Returns the error. */
static enum mh_err decode_path(const uint8_t *b, size_t len, struct mh_diag *d)
{
	struct donor dn;
	enum mh_err err = donor_decode(b, len, &dn, d);
	if (err) {
		check(d->code == err && d->msg[0] && !dn.bytes && !dn.skel.bones &&
		      !dn.moveset.streams && !dn.map.bone);
		return err;
	}
	check(donor_sniff(b, len));
	struct donor_parts p = {.model = dn.model, .monster = dn.monster, .name = dn.name,
				.set = &dn.map.set};
	for (uint32_t k = 0; k < DONOR_MEMBERS - 1; k++) {
		p.member[k] = dn.member[k];
		p.len[k] = dn.member_len[k];
	}
	uint8_t *again;
	size_t again_len;
	check(donor_encode(&p, &again, &again_len, NULL) == MH_OK);
	check(again_len == len && !memcmp(again, b, len));
	free(again);
	donor_free(&dn);
	return MH_OK;
}

/* A bundle of the input's shape, its settings spliced with the input. */
static void settings_path(const uint8_t *data, size_t size)
{
	struct skeleton s;
	struct anim a;
	uint32_t nbones = 1 + byte_at(data, size, 0) % 16;
	uint32_t tracks = 1 + byte_at(data, size, 1) % 12;
	check(skeleton_init(&s, SKELETON_MHP3RD, nbones, NULL) == MH_OK);
	for (uint32_t b = 1; b < nbones; b++)
		s.bones[b].parent = (int32_t)(byte_at(data, size, 2 + b) % b);
	skeleton_link(&s, false);
	check(anim_init(&a, CLIP_P3RD, 1, (const uint32_t[]){1}, NULL) == MH_OK);
	struct clip c = {0};
	for (uint32_t t = 0; t < tracks; t++) {
		struct clip_track *tr = clip_add_track(&c, 0);
		check(tr && clip_add_channel(tr, t % 3 ? CLIP_ROT_X : CLIP_LOC_Y));
	}
	int32_t k = anim_add_clip(&a, &c);
	check(k >= 0 && anim_set_slot(&a, 0, 0, k, NULL) == MH_OK);
	uint8_t *skel, *pack;
	size_t skel_len, pack_len;
	check(skeleton_encode(&s, &skel, &skel_len, NULL) == MH_OK);
	check(anim_encode(&a, &pack, &pack_len, NULL) == MH_OK);
	skeleton_free(&s);
	anim_free(&a);
	uint8_t pmo[0x40] = "pmo\0" "102\0", tmh[] = ".TMH0.14";
	struct donor_parts p = {.member = {skel, pmo, tmh, pack, NULL},
				.len = {skel_len, sizeof pmo, sizeof tmh, pack_len, 0},
				.model = byte_at(data, size, 2), .monster = byte_at(data, size, 3) % 60,
				.name = byte_at(data, size, 4) & 1 ? "brute-tigrex" : NULL};
	uint8_t *b;
	size_t len;
	check(donor_encode(&p, &b, &len, NULL) == MH_OK);
	check(decode_path(b, len, &(struct mh_diag){0}) == MH_OK);

	/* Member 5 is the last: the text from its offset to the end. */
	uint32_t at = (uint32_t)b[4 + 8 * DONOR_SETTINGS] | (uint32_t)b[5 + 8 * DONOR_SETTINGS] << 8;
	size_t tlen = len - at;
	size_t cut = size ? ((size_t)data[0] << 8 | byte_at(data, size, 1)) % (tlen + 1) : 0;
	size_t n = size > 64 ? 64 : size;
	uint8_t *text = malloc(tlen + n + 1);
	check(text != NULL);
	memcpy(text, b + at, cut);
	memcpy(text + cut, data, n);
	size_t keep = byte_at(data, size, 5) & 1 ? cut : (cut + n < tlen ? cut + n : tlen);
	memcpy(text + cut + n, b + at + keep, tlen - keep);
	size_t text_len = cut + n + tlen - keep;
	struct pac_blob blobs[DONOR_MEMBERS] = {
		{skel, (uint32_t)skel_len}, {pmo, sizeof pmo}, {tmh, sizeof tmh},
		{pack, (uint32_t)pack_len}, {NULL, 0}, {text, (uint32_t)text_len},
	};
	uint8_t *spliced;
	size_t spliced_len;
	if (text_len && pac_encode(blobs, DONOR_MEMBERS, 16, NULL, 0, &spliced, &spliced_len,
				   NULL) == MH_OK) {
		struct mh_diag d = {0};
		enum mh_err err = decode_path(spliced, spliced_len, &d);
		/* Past the magic, a refusal is the settings' (line:col) or,
		 * with the magic overwritten, no bundle. */
		check(!err || err == MH_EUNKNOWN || (d.line >= 2 && d.col >= 1));
		free(spliced);
	}
	free(text);
	free(b);
	free(skel);
	free(pack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mh_diag d = {0};
	decode_path(data, size, &d);
	settings_path(data, size);
	return 0;
}
