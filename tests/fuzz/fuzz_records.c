/* SPDX-License-Identifier: MIT */
/* Fuzz target: records.txt (codecs/records.c, records_text.c).
 *
 * Each input is used three ways, against a record map made from its
 * first bytes (a rig of up to 64 bones with parents drawn from them, a
 * pack of up to 80 records some of which move, a monster id, with or
 * without a rig):
 *  1. as text: records_parse; what parses must be an override the map
 *     takes (records_override), and records.txt printed with it must
 *     parse back to the same setting, as must the override alone
 *     (records_setting_print); what fails must say where (line:col) and
 *     leave the setting empty;
 *  2. spliced into the map's own records.txt, so the parser sees
 *     near-valid lines; checked as in 1;
 *  3. as an override's words: the input's bytes as offset and skip
 *     bones, given to records_override directly; a setting it refuses
 *     leaves the map as it was.
 * Any violation abort()s.  Built with clang -fsanitize=fuzzer
 * (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "records.h"
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

/* The map of the input's shape: with data[0] odd, no rig. */
static void map_of(const uint8_t *data, size_t size, struct records *r)
{
	static const int MONSTERS[] = {RECORDS_NO_MONSTER, 1, 7, 16, 22, 40, 41, 47, 58};
	struct skeleton s;
	struct anim a;
	uint32_t nbones = 1 + byte_at(data, size, 1) % 64;
	uint32_t tracks = byte_at(data, size, 2) % 81;
	check(skeleton_init(&s, SKELETON_MHP3RD, nbones, NULL) == MH_OK);
	for (uint32_t b = 1; b < nbones; b++) {
		uint8_t v = byte_at(data, size, 3 + b);
		s.bones[b].parent = v % 7 == 0 ? -1 : (int32_t)(v % b);
	}
	check(anim_init(&a, CLIP_P3RD, 1, (const uint32_t[]){1}, NULL) == MH_OK);
	struct clip c = {0};
	for (uint32_t t = 0; t < tracks; t++) {
		struct clip_track *tr = clip_add_track(&c, 0);
		check(tr != NULL);
		bool moves = byte_at(data, size, 70 + t) % 5 == 0;
		check(clip_add_channel(tr, moves ? CLIP_LOC_Z : CLIP_ROT_Y) != NULL);
	}
	int32_t k = anim_add_clip(&a, &c);
	check(k >= 0 && anim_set_slot(&a, 0, 0, k, NULL) == MH_OK);
	int monster = MONSTERS[byte_at(data, size, 3) % 9];
	check(records_init(r, byte_at(data, size, 0) & 1 ? NULL : &s, &a, monster, NULL) == MH_OK);
	anim_free(&a);
	skeleton_free(&s);
}

/* s read back from records.txt printed with it in force, and from the
 * override alone: the same setting. */
static void check_round_trips(struct records *r, const struct records_setting *s)
{
	struct records_setting back;
	struct mh_diag d = {0};
	size_t len;
	check(records_override(r, s, &d) == MH_OK);
	check(records_setting_equal(&r->set, s));
	char *text = records_print(r, "fuzz.anim", "fuzz/0.skeleton", "fuzz.ovl, em001m0.ovl", &len);
	check(text != NULL && strlen(text) == len);
	check(records_parse(r, text, len, &back, &d) == MH_OK);
	check(records_setting_equal(&back, &r->set));
	records_setting_free(&back);
	free(text);
	text = records_setting_print(&r->set, &len);
	check(text != NULL);
	check(records_parse(r, text, len, &back, &d) == MH_OK);
	check(records_setting_equal(&back, &r->set));
	records_setting_free(&back);
	free(text);
	/* The map in force walks the bones upward, over the skip list. */
	int32_t last = -1;
	for (uint32_t i = 0; i < r->nrecords; i++) {
		int32_t b = r->bone[i];
		check(b < 0 || (r->rigged && b > last && (uint32_t)b < r->nbones));
		if (b >= 0)
			last = b;
		for (uint32_t k = 0; b >= 0 && k < r->nskip; k++)
			check(r->skip[k] != (uint32_t)b);
	}
}

static void text_path(struct records *r, const char *text, size_t len)
{
	struct records_setting s = {.offset_set = true};
	struct mh_diag d = {0};
	enum mh_err err = records_parse(r, text, len, &s, &d);
	if (err) {
		check(d.code == err && d.msg[0] && d.line >= 1 && d.col >= 1);
		check(!s.offset_set && !s.skip_set && !s.skip && !s.nskip);
		return;
	}
	check_round_trips(r, &s);
	records_setting_free(&s);
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* An override of the input's words: offset data[4], skip data[5..]
 * (sorted and without repeats when data[0] says, as records_parse
 * gives them). */
static void words_path(struct records *r, const uint8_t *data, size_t size)
{
	uint32_t skip[16];
	struct records_setting s = {.offset_set = byte_at(data, size, 0) & 2,
				    .offset = byte_at(data, size, 4) % 80,
				    .skip_set = byte_at(data, size, 0) & 4, .skip = skip};
	for (size_t i = 5; i < size && s.nskip < 16; i++)
		skip[s.nskip++] = data[i] % 70;
	if (byte_at(data, size, 0) & 8 && s.nskip) {
		qsort(skip, s.nskip, sizeof *skip, by_value);
		uint32_t n = 1;
		for (uint32_t i = 1; i < s.nskip; i++)
			if (skip[i] != skip[n - 1])
				skip[n++] = skip[i];
		s.nskip = n;
	}
	uint32_t offset = r->offset;
	bool was_offset = r->set.offset_set, was_skip = r->set.skip_set;
	struct mh_diag d = {0};
	if (records_override(r, &s, &d) != MH_OK) {
		check(d.msg[0] && r->offset == offset && r->set.offset_set == was_offset &&
		      r->set.skip_set == was_skip);
		return;
	}
	/* What it put in force, copied: check_round_trips replaces it. */
	struct records_setting in_force = r->set;
	in_force.skip = malloc((r->set.nskip ? r->set.nskip : 1) * sizeof *in_force.skip);
	check(in_force.skip != NULL);
	if (r->set.nskip)
		memcpy(in_force.skip, r->set.skip, r->set.nskip * sizeof *in_force.skip);
	check_round_trips(r, &in_force);
	records_setting_free(&in_force);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct records r;
	map_of(data, size, &r);
	text_path(&r, (const char *)data, size);

	size_t tlen;
	char *text = records_print(&r, "fuzz.anim", NULL, NULL, &tlen);
	check(text != NULL);
	if (size >= 2) {
		/* Overwrite a stretch of the text at a place data chooses. */
		size_t at = ((size_t)data[0] << 8 | data[1]) % (tlen + 1);
		size_t n = size - 2 < 24 ? size - 2 : 24;
		char *spliced = malloc(tlen + n + 1);
		check(spliced != NULL);
		memcpy(spliced, text, at);
		memcpy(spliced + at, data + 2, n);
		size_t keep = data[1] & 1 ? at : (at + n < tlen ? at + n : tlen);
		memcpy(spliced + at + n, text + keep, tlen - keep);
		text_path(&r, spliced, at + n + tlen - keep);
		free(spliced);
	}
	free(text);
	words_path(&r, data, size);
	records_free(&r);
	return 0;
}
