/* SPDX-License-Identifier: MIT */
/* Tests of codecs/views' names (mount.mhfu(8) "THE TREE"), kind_of, a
 * clip's header and check.txt.
 *
 * The names are checked by hand on the edge cases (entry 0, ids past
 * five digits, buffers too short), then against the sample archive's
 * extraction ($MHFU_SAMPLE, see tests/unit/test_sample.c): tests/gen/mkarchive
 * names every entry and every PAC member on its own, so each name given
 * here must be a file it wrote, holding those bytes.  The clip header and
 * check.txt are checked on the Tigrex-shaped models (tests/unit/tigrex.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kind.h"
#include "pac.h"
#include "tigrex.h"
#include "names.h"
#include "views.h"

static void test_entry_names(void **state)
{
	(void)state;
	char buf[64];
	names_entry_dir(6186, buf, sizeof buf);
	assert_string_equal(buf, "file_06185");
	names_entry_dir(1, buf, sizeof buf);
	assert_string_equal(buf, "file_00000");
	names_entry_dir(0, buf, sizeof buf);
	assert_string_equal(buf, "file_-0001");
	names_entry_dir(123457, buf, sizeof buf);
	assert_string_equal(buf, "file_123456");
	names_entry_dir(UINT32_MAX, buf, sizeof buf);
	assert_string_equal(buf, "file_4294967294");

	names_entry_file(6186, KIND_PAC, buf, sizeof buf);
	assert_string_equal(buf, "file_06185.pac");
	names_entry_file(0, KIND_DATA, buf, sizeof buf);
	assert_string_equal(buf, "file_-0001.bin");
	names_entry_file(43, KIND_HITS, buf, sizeof buf);
	assert_string_equal(buf, "file_00042.hit");

	names_entry_label(6186, buf, sizeof buf);
	assert_string_equal(buf, "entry 6186 (file_06185)");
	names_entry_label(0, buf, sizeof buf);
	assert_string_equal(buf, "entry 0 (file_-0001)");
}

static void test_member_and_item_names(void **state)
{
	(void)state;
	char buf[64];
	names_member(3, KIND_ANIM, buf, sizeof buf);
	assert_string_equal(buf, "3.anim");
	names_member(0, KIND_SKELETON, buf, sizeof buf);
	assert_string_equal(buf, "0.skeleton");
	names_member(255, KIND_DATA, buf, sizeof buf);
	assert_string_equal(buf, "255.bin");

	static const uint16_t ANIM[] = {3}, DEEP[] = {1, 0, 12};
	names_item(6186, ANIM, 1, KIND_ANIM, buf, sizeof buf);
	assert_string_equal(buf, "file_06185/3.anim");
	names_item(6186, DEEP, 3, KIND_SKELETON, buf, sizeof buf);
	assert_string_equal(buf, "file_06185/1/0/12.skeleton");
	names_item(6186, NULL, 0, KIND_PAC, buf, sizeof buf);
	assert_string_equal(buf, "file_06185.pac");
	names_item_dir(6186, ANIM, 1, buf, sizeof buf);
	assert_string_equal(buf, "file_06185/3");
	names_item_dir(6186, DEEP, 3, buf, sizeof buf);
	assert_string_equal(buf, "file_06185/1/0/12");
	names_item_dir(6186, NULL, 0, buf, sizeof buf);
	assert_string_equal(buf, "file_06185");
}

/* A buffer too short gets the name cut, NUL-terminated, and nothing
 * past its end (ASan would see it: each is exactly malloc'ed). */
static void test_names_cut_short(void **state)
{
	(void)state;
	static const uint16_t DEEP[] = {1, 0, 12};
	for (size_t len = 1; len < 32; len++) {
		char *buf = malloc(len);
		assert_non_null(buf);
		names_item(6186, DEEP, 3, KIND_SKELETON, buf, len);
		assert_true(strlen(buf) < len);
		assert_memory_equal(buf, "file_06185/1/0/12.skeleton", strlen(buf));
		names_item_dir(6186, DEEP, 3, buf, len);
		assert_memory_equal(buf, "file_06185/1/0/12", strlen(buf));
		names_entry_label(6186, buf, len);
		assert_memory_equal(buf, "entry 6186 (file_06185)", strlen(buf));
		free(buf);
	}
}

static void test_kind_of_reads_only_the_head(void **state)
{
	(void)state;
	/* A PAC larger than KIND_HEAD_MAX: one member of 20000 bytes. */
	static uint8_t big[20000];
	const struct pac_blob b[] = {{big, sizeof big}};
	uint8_t *pac;
	size_t len;
	assert_int_equal(pac_encode(b, 1, 16, NULL, 0, &pac, &len, NULL), MH_OK);
	assert_true(len > KIND_HEAD_MAX);
	assert_int_equal(kind_of(pac, len), KIND_PAC);
	assert_int_equal(kind_of(pac, len), kind_sniff(pac, KIND_HEAD_MAX, len));
	/* Cut short, the table promises more than there is. */
	assert_int_equal(kind_of(pac, len - 1), KIND_DATA);
	assert_int_equal(kind_of((const uint8_t *)"HITS....", 8), KIND_HITS);
	assert_int_equal(kind_of(NULL, 0), KIND_DATA);
	free(pac);
}

/* ---- the sample's extraction ------------------------------------------- */

static uint8_t *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *p = NULL;
	long size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (size >= 0 && (p = malloc(size ? (size_t)size : 1))) {
		rewind(f);
		if (fread(p, 1, (size_t)size, f) != (size_t)size) {
			free(p);
			p = NULL;
		}
	}
	fclose(f);
	*len = size >= 0 ? (size_t)size : 0;
	return p;
}

static enum kind kind_named(const char *name)
{
	for (int k = 0; k < KIND_COUNT; k++)
		if (!strcmp(kind_name((enum kind)k), name))
			return (enum kind)k;
	fail_msg("no kind is named %s", name);
	return KIND_DATA;
}

static void test_names_are_the_sample_extractions(void **state)
{
	(void)state;
	const char *dir = getenv("MHFU_SAMPLE");
	if (!dir || !*dir)
		fail_msg("MHFU_SAMPLE is not set: point it at the sample directory "
			 "`make units` builds (build/sample)");
	char path[4096];
	snprintf(path, sizeof path, "%s/src/index.tsv", dir);
	FILE *idx = fopen(path, "r");
	if (!idx)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	char line[512], listed[256], kind[32], name[64], folder[64];
	unsigned entries = 0, members = 0;
	while (fgets(line, sizeof line, idx)) {
		unsigned id, start, blocks;
		unsigned long long size;
		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%255[^\t]\t%u\t%u\t%u\t%llu\t%31[^\t]", listed,
					&id, &start, &blocks, &size, kind), 6);
		enum kind k = kind_named(kind);
		names_entry_file(id, k, name, sizeof name);
		assert_string_equal(name, listed);
		entries++;
		if (k != KIND_PAC)
			continue;
		/* Each member's name is a file the extraction wrote. */
		size_t len, mlen;
		snprintf(path, sizeof path, "%s/src/%s", dir, name);
		uint8_t *entry = read_whole(path, &len);
		assert_non_null(entry);
		struct pac pac;
		assert_int_equal(pac_decode(entry, len, &pac, NULL), MH_OK);
		names_item_dir(id, NULL, 0, folder, sizeof folder);
		for (uint32_t i = 0; i < pac.count; i++) {
			const uint8_t *m = entry + pac.entries[i].offset;
			size_t n = pac.entries[i].size;
			if (!n)
				continue;
			const uint16_t at[] = {(uint16_t)i};
			names_item(id, at, 1, kind_of(m, n), name, sizeof name);
			snprintf(path, sizeof path, "%s/src/%s", dir, name);
			uint8_t *file = read_whole(path, &mlen);
			if (!file)
				fail_msg("%s: the extraction has no such file", path);
			assert_int_equal(mlen, n);
			assert_memory_equal(file, m, n);
			assert_int_equal(strncmp(name, folder, strlen(folder)), 0);
			free(file);
			members++;
		}
		pac_free(&pac);
		free(entry);
	}
	fclose(idx);
	print_message("%u entries, %u PAC members named as extracted\n", entries, members);
	assert_true(entries > 6000);
	assert_true(members > 0);
}

/* The first line of text, as a string to compare. */
static void assert_first_line(const char *text, const char *want)
{
	const char *nl = strchr(text, '\n');
	size_t n = nl ? (size_t)(nl - text) : strlen(text);
	if (n != strlen(want) || strncmp(text, want, n))
		fail_msg("first line \"%.*s\", want \"%s\"", (int)n, text, want);
}

/* The header names the part's joints from the skeleton, however many
 * tracks the clip has, and how the clip plays. */
static void test_clip_header(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	uint32_t tail = (uint32_t)a.streams[4].slots[1];
	a.clips[tail].loop = 1;
	a.clips[tail].loop_start = 12.5f;
	char *text = views_clip_text(&a, tail, "m/3.anim", &s, NULL);
	assert_first_line(text, "# m/3.anim stream 4 slot 1 - part 2, joints 40..44, runs "
			  "to frame 30, loops from frame 12.5");
	free(text);
	/* 44 animated joints: the tail's part has 4, its clips still 5 tracks. */
	s.params[1] = 44;
	text = views_clip_text(&a, tail, "m/3.anim", &s, NULL);
	assert_first_line(text, "# m/3.anim stream 4 slot 1 - part 2, joints 40..43 (the "
			  "clip has 5 tracks), runs to frame 30, loops from frame 12.5");
	/* Track 3 drives the part's last joint; track 4, past it, none. */
	assert_non_null(strstr(text, "\ntrack 3                 # joint 43\n"));
	assert_non_null(strstr(text, "\ntrack 4                 # past the part's 4 joints: "
			       "drives none\n"));
	assert_null(strstr(text, "joint 44"));
	free(text);
	text = views_clip_text(&a, tail, "m/3.anim", NULL, NULL);
	assert_first_line(text, "# m/3.anim stream 4 slot 1, runs to frame 30, loops from "
			  "frame 12.5");
	free(text);
	anim_free(&a);
	skeleton_free(&s);
}

/* check.txt: a line per violation, the member named, or a line saying
 * there is none. */
static void test_check_text(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	struct pac_blob m[2];
	uint8_t *skel, *pack, *model;
	size_t skel_len, pack_len, model_len, len;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	assert_int_equal(skeleton_encode(&s, &skel, &skel_len, NULL), MH_OK);
	assert_int_equal(anim_encode(&a, &pack, &pack_len, NULL), MH_OK);
	m[0] = (struct pac_blob){skel, (uint32_t)skel_len};
	m[1] = (struct pac_blob){pack, (uint32_t)pack_len};
	assert_int_equal(pac_encode(m, 2, 16, NULL, 0, &model, &model_len, NULL), MH_OK);
	char *text = views_check_text(model, model_len, NULL, &len);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "\nnone: no rule is broken\n"));
	free(text);
	free(model);
	free(pack);

	/* A channel without keys (a warning) in the head's slot 3. */
	assert_non_null(clip_add_channel(&slot_clip(&a, 2, 3)->tracks[1], CLIP_LOC_X));
	assert_int_equal(anim_encode(&a, &pack, &pack_len, NULL), MH_OK);
	m[1] = (struct pac_blob){pack, (uint32_t)pack_len};
	assert_int_equal(pac_encode(m, 2, 16, NULL, 0, &model, &model_len, NULL), MH_OK);
	static const char LINE[] = "EMPTY_CHANNEL warning 1.anim stream 2 slot 3 track 1 "
				   "(joint 32) channel loc_x: no keyframes (fix: key the "
				   "channel (one key at frame 0 holds a value) or delete it)\n";
	text = views_check_text(model, model_len, NULL, &len);
	assert_non_null(strstr(text, LINE));
	assert_null(strstr(text, "none"));
	free(text);
	/* The pack alone names no member. */
	text = views_check_text(pack, pack_len, &s, &len);
	assert_non_null(strstr(text, "\nEMPTY_CHANNEL warning stream 2 slot 3 track 1"));
	free(text);
	free(model);
	free(pack);
	free(skel);
	anim_free(&a);
	skeleton_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_names),
		cmocka_unit_test(test_member_and_item_names),
		cmocka_unit_test(test_names_cut_short),
		cmocka_unit_test(test_kind_of_reads_only_the_head),
		cmocka_unit_test(test_names_are_the_sample_extractions),
		cmocka_unit_test(test_clip_header),
		cmocka_unit_test(test_check_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
