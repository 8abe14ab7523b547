/* SPDX-License-Identifier: MIT */
/* Tests of codecs/entries (MHFU executor entries, mhfu-clip(5) "ENTRIES").
 *
 * Every MHFU pack of the sample archive ($MHFU_SAMPLE, made by
 * tests/gen/mkarchive: src/file_NNNNN/M.anim with the PAC's first skeleton
 * as its rig) goes through print -> parse -> apply -> encode for every
 * listed entry and must give its bytes back.  Edits check that only the
 * written part changes, that a shared clip is copied on write or
 * replaced in place as a slot file write does, that a bad text leaves
 * the pack byte for byte as it was, and that every allocation failure
 * is a clean MH_ENOMEM.  Packs built here (tests/clipgen.h) cover what
 * the sample lacks: clips shared across parts, missing slots. */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clipgen.h"
#include "entries.h"
#include "faults.h"
#include "testlib.h"
#include "tigrex.h"

/* ---- the sample's MHFU packs ------------------------------------------- */

struct pack {
	char label[64];     /* "file_06185/3.anim" */
	uint8_t *bytes;     /* the pack as extracted */
	size_t len;
	struct skeleton rig;
	bool has_rig;
};

#define MAX_PACKS 16
static struct pack PACKS[MAX_PACKS];
static unsigned NPACKS;
static char WHY[4400]; /* why the sample is unusable; "" when loaded */

/* The member number of "N.ext" in a PAC's folder, or -1. */
static long member(const char *name, const char *ext)
{
	char *end;
	long n = strtol(name, &end, 10);
	return end != name && *end == '.' && !strcmp(end + 1, ext) ? n : -1;
}

/* Adds the MHFU packs of one extracted PAC folder, with its first
 * skeleton as their rig. */
static void add_folder(const char *src, const char *folder)
{
	char path[8192];
	if (snprintf(path, sizeof path, "%s/%s", src, folder) >= (int)sizeof path)
		return;
	DIR *dir = opendir(path);
	struct dirent *de;
	long rig = -1;
	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (member(de->d_name, "skeleton") >= 0 &&
		    (rig < 0 || member(de->d_name, "skeleton") < rig))
			rig = member(de->d_name, "skeleton");
	rewinddir(dir);
	while ((de = readdir(dir)) && NPACKS < MAX_PACKS) {
		struct pack *p = &PACKS[NPACKS];
		struct anim a;
		struct file_bytes f;
		char why[8400];
		if (member(de->d_name, "anim") < 0)
			continue;
		if (snprintf(path, sizeof path, "%s/%s/%s", src, folder,
			     de->d_name) >= (int)sizeof path ||
		    snprintf(p->label, sizeof p->label, "%s/%s", folder,
			     de->d_name) >= (int)sizeof p->label ||
		    !read_whole_file(path, &f, why, sizeof why))
			continue;
		p->bytes = f.p;
		p->len = f.len;
		if (anim_decode(p->bytes, p->len, CLIP_NONE, &a, NULL) ||
		    a.format != CLIP_MHFU) {
			anim_free(&a);
			free(p->bytes);
			continue;
		}
		anim_free(&a);
		bool fits = snprintf(path, sizeof path, "%s/%s/%ld.skeleton", src,
				     folder, rig) < (int)sizeof path;
		p->has_rig = rig >= 0 && fits &&
			     read_whole_file(path, &f, why, sizeof why);
		if (p->has_rig) {
			p->has_rig = !skeleton_decode(f.p, f.len, &p->rig, NULL);
			free(f.p);
		}
		NPACKS++;
	}
	closedir(dir);
}

static int group_setup(void **state)
{
	(void)state;
	const char *dir = getenv("MHFU_SAMPLE");
	char src[4200];
	if (!dir || !*dir) {
		snprintf(WHY, sizeof WHY, "MHFU_SAMPLE is not set: point it at a "
			 "directory made by `build/mkarchive --seed 1 --out "
			 "DIR/DATA.BIN --extract DIR/src` (`make units` does)");
		return 0;
	}
	snprintf(src, sizeof src, "%s/src", dir);
	DIR *d = opendir(src);
	struct dirent *de;
	if (!d) {
		snprintf(WHY, sizeof WHY, "cannot open %s", src);
		return 0;
	}
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			add_folder(src, de->d_name);
	closedir(d);
	if (!NPACKS)
		snprintf(WHY, sizeof WHY, "no MHFU pack under %s", src);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NPACKS; i++) {
		free(PACKS[i].bytes);
		if (PACKS[i].has_rig)
			skeleton_free(&PACKS[i].rig);
	}
	NPACKS = 0;
	return 0;
}

static void need_sample(void)
{
	if (WHY[0])
		fail_msg("no sample archive: %s", WHY);
}

static const struct pack *find_pack(const char *label)
{
	need_sample();
	for (unsigned i = 0; i < NPACKS; i++)
		if (!strcmp(PACKS[i].label, label))
			return &PACKS[i];
	fail_msg("the sample has no MHFU pack %s", label);
	return NULL;
}

static const struct pack *tigrex(void)
{
	return find_pack("file_06185/3.anim");
}

/* ---- helpers ---------------------------------------------------------- */

static void decode_ok(const struct pack *p, struct anim *a)
{
	struct mh_diag d = {0};
	if (anim_decode(p->bytes, p->len, CLIP_NONE, a, &d))
		fail_msg("%s: %s", p->label, d.msg);
}

/* The pack's bytes after anim_compact. */
static uint8_t *encode_ok(struct anim *a, size_t *len)
{
	struct mh_diag d = {0};
	uint8_t *out = NULL;
	if (anim_compact(a, &d) || anim_encode(a, &out, len, &d))
		fail_msg("encode: %s", d.msg);
	return out;
}

static void assert_bytes(struct anim *a, const uint8_t *want, size_t want_len)
{
	size_t len;
	uint8_t *got = encode_ok(a, &len);
	assert_int_equal(len, want_len);
	assert_memory_equal(got, want, len);
	free(got);
}

static char *print_ok(const struct anim *a, uint32_t entry,
		      const struct skeleton *rig)
{
	char *t = entries_print(a, entry, "pack", rig, NULL);
	assert_non_null(t);
	return t;
}

static void parse_ok(const char *text, uint32_t nparts, struct entries_edit *e)
{
	struct mh_diag d = {0};
	if (entries_parse(text, strlen(text), nparts, e, &d))
		fail_msg("%u:%u: %s\n%s", d.line, d.col, d.msg, text);
}

static void apply_ok(struct anim *a, uint32_t entry, struct entries_edit *e)
{
	struct mh_diag d = {0};
	if (entries_apply(a, entry, e, &d))
		fail_msg("apply entry %u: %u:%u: %s", entry, d.line, d.col, d.msg);
}

/* The text with line `line` (1-based) replaced by `with` (no newline). */
static char *replace_line(const char *text, unsigned line, const char *with)
{
	const char *p = text;
	for (unsigned l = 1; l < line; l++) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	const char *rest = strchr(p, '\n');
	rest = rest ? rest : p + strlen(p);
	size_t n = (size_t)(p - text);
	char *out = malloc(n + strlen(with) + strlen(rest) + 1);
	assert_non_null(out);
	memcpy(out, text, n);
	strcpy(out + n, with);
	strcat(out, rest);
	return out;
}

/* The line of part `part`'s first keyframe in an entry text. */
static unsigned first_key_line(const char *text, uint32_t part)
{
	unsigned line = entries_text_line(text, strlen(text), part, -1, -1, -1);
	const char *p = text;
	for (unsigned l = 1; l <= line; l++)
		p = strchr(p, '\n') + 1;
	for (line++; *p; line++, p = strchr(p, '\n') + 1) {
		p += strspn(p, " ");
		assert_true(strncmp(p, "part", 4));
		if (strchr("0123456789-", *p))
			return line;
	}
	fail_msg("part %u has no keyframe", part);
	return 0;
}

/* The text with part `part`'s first keyframe's value changed by one;
 * *key is the key as it will be. */
static char *bump_first_key(const char *text, uint32_t part, struct clip_key *key)
{
	unsigned line = first_key_line(text, part);
	const char *p = text;
	for (unsigned l = 1; l < line; l++)
		p = strchr(p, '\n') + 1;
	int f, v, in, out;
	assert_int_equal(sscanf(p, "%d %d %d %d", &f, &v, &in, &out), 4);
	v = v < 32767 ? v + 1 : v - 1;
	*key = (struct clip_key){.frame = (int16_t)f, .value = (int16_t)v,
				 .ease_in = (int16_t)in, .ease_out = (int16_t)out};
	char with[64];
	snprintf(with, sizeof with, "%d %d %d %d", f, v, in, out);
	return replace_line(text, line, with);
}

/* An entry and part whose slot shares a clip: as its first user (first)
 * or not. */
static bool find_shared(const struct anim *a, bool first, uint32_t *entry,
			uint32_t *part)
{
	for (uint32_t e = 0; e < ENTRIES_MAX; e++)
		for (uint32_t k = 0; k < entries_parts(a); k++) {
			uint32_t s, slot, fs, fslot, users = 0;
			int32_t c = entries_part_clip(a, e, k, &s, &slot);
			if (c < 0 || !anim_first_use(a, (uint32_t)c, &fs, &fslot))
				continue;
			for (uint32_t t = 0; t < a->nstreams; t++)
				for (uint32_t i = 0; i < a->streams[t].nslots; i++)
					users += a->streams[t].slots[i] == c;
			if (users > 1 && (fs == s && fslot == slot) == first) {
				*entry = e;
				*part = k;
				return true;
			}
		}
	return false;
}

/* ---- listing ---------------------------------------------------------- */

static void test_sample_packs(void **state)
{
	(void)state;
	need_sample();
	assert_true(NPACKS >= 3); /* the Tigrex, a 4-stream and a 2-stream model */
	const struct pack *t = tigrex();
	assert_true(t->has_rig);
	struct anim a;
	decode_ok(t, &a);
	assert_int_equal(entries_parts(&a), 3);
	/* Streams 0 and 4 fill slots 0-23 and 26-63, stream 2 slots 0-63, the
	 * odd streams nothing: entries 0..63 (24 and 25 for the head alone). */
	for (uint32_t e = 0; e < ENTRIES_MAX + 5; e++)
		assert_int_equal(entries_listed(&a, e), e < 64);
	anim_free(&a);

	decode_ok(find_pack("file_06121/3.anim"), &a);
	assert_int_equal(entries_parts(&a), 2);
	assert_true(entries_listed(&a, 111) && !entries_listed(&a, 112));
	assert_true(entries_listed(&a, 29) && !entries_listed(&a, 30));
	anim_free(&a);
}

/* The parts entry e reaches, as a bit set. */
static unsigned reached(const struct anim *a, uint32_t e)
{
	unsigned parts = 0;
	for (uint32_t k = 0; k < entries_parts(a); k++) {
		uint32_t s, slot;
		if (entries_part_clip(a, e, k, &s, &slot) >= 0)
			parts |= 1u << k;
	}
	return parts;
}

/* file_06111's odd streams are filled in all three parts: entries 100
 * and up play every part (100-119, 122), the head alone (120, 121, its
 * stream 3), or every part but the head (123, 124); 20 and 21 no part. */
static void test_odd_streams_in_every_part(void **state)
{
	(void)state;
	const struct pack *p = find_pack("file_06111/3.anim");
	struct anim a;
	decode_ok(p, &a);
	assert_true(p->has_rig);
	assert_int_equal(entries_parts(&a), 3);
	for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
		unsigned want = e < 42 && e != 20 && e != 21 ? 7
				: e >= 100 && e < 120 ? 7
				: e == 120 || e == 121 ? 2
				: e == 122 ? 7
				: e == 123 || e == 124 ? 5 : 0;
		if (reached(&a, e) != want)
			fail_msg("entry %u reaches parts 0x%x, want 0x%x", e, reached(&a, e), want);
		assert_int_equal(entries_listed(&a, e), want != 0);
	}
	/* Entry 107 is slot 7 of the odd streams 1, 3, 5, with the joints of
	 * each part from the rig. */
	char *text = print_ok(&a, 107, &p->rig);
	assert_non_null(strstr(text, "\npart 0                  # stream 1 slot 7, joints 0..25"));
	assert_non_null(strstr(text, "\npart 1                  # stream 3 slot 7, joints 26..33"));
	assert_non_null(strstr(text, "\npart 2                  # stream 5 slot 7, joints 34..39"));
	assert_null(strstr(text, " keeps its clip   #"));
	free(text);
	text = print_ok(&a, 123, &p->rig);
	assert_true(!strncmp(text, "# pack entry 123: reaches parts 0, 2 only; part 1 keeps "
			     "its clip\n", 63));
	assert_non_null(strstr(text, "\npart 1 keeps its clip   # stream 3 slot 23 is empty\n"));
	free(text);
	anim_free(&a);
}

static void test_mhp3rd_has_no_entries(void **state)
{
	(void)state;
	struct gen_rng r = {7};
	struct anim a;
	gen_p3rd(&r, &a);
	assert_int_equal(entries_parts(&a), 0);
	for (uint32_t e = 0; e < ENTRIES_MAX; e++)
		assert_false(entries_listed(&a, e));
	struct mh_diag d = {0};
	assert_int_equal(entries_write(&a, 0, "part 0 keeps its clip\n", 22, &d),
			 MH_ERANGE);
	assert_int_equal(d.line, 1);
	assert_int_equal(d.col, 6);
	char *t = entries_print(&a, 0, "p3rd", NULL, NULL);
	assert_non_null(strstr(t, "not an MHFU pack"));
	free(t);
	anim_free(&a);
}

/* ---- the round trip --------------------------------------------------- */

/* Each part's clip as parsed from entry e's text encodes to the bytes
 * its slot's clip has in the pack. */
static void assert_parts_encode_as_before(const struct pack *p, const struct anim *a,
					  uint32_t e, const struct entries_edit *ed)
{
	uint64_t *offset = calloc(a->nclips + 1, sizeof *offset);
	uint64_t *size = calloc(a->nclips + 1, sizeof *size);
	assert_true(offset && size);
	anim_clip_offsets(a, offset, size);
	for (uint32_t k = 0; k < ed->nparts; k++) {
		uint32_t s, slot;
		int32_t c = entries_part_clip(a, e, k, &s, &slot);
		assert_int_equal(ed->parts[k].keeps, c < 0);
		if (c < 0)
			continue;
		uint8_t *bytes = NULL;
		size_t len = 0;
		struct mh_diag d = {0};
		assert_int_equal(clip_encode(CLIP_MHFU, &ed->parts[k].clip, &bytes, &len, &d),
				 MH_OK);
		if (len != size[c] || memcmp(bytes, p->bytes + offset[c], len))
			fail_msg("%s entry %u part %u: the parsed clip encodes to other bytes",
				 p->label, e, k);
		free(bytes);
	}
	free(offset);
	free(size);
}

static void test_every_entry_round_trips(void **state)
{
	(void)state;
	need_sample();
	unsigned checked = 0, odd = 0;
	for (unsigned i = 0; i < NPACKS; i++) {
		const struct pack *p = &PACKS[i];
		struct anim a;
		decode_ok(p, &a);
		for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
			if (!entries_listed(&a, e))
				continue;
			for (int with_rig = 0; with_rig < 2; with_rig++) {
				char *text = print_ok(&a, e, with_rig && p->has_rig ? &p->rig : NULL);
				struct entries_edit ed;
				parse_ok(text, entries_parts(&a), &ed);
				assert_parts_encode_as_before(p, &a, e, &ed);
				apply_ok(&a, e, &ed);
				for (uint32_t k = 0; k < ed.nparts; k++)
					assert_int_equal(ed.parts[k].action, ENTRIES_UNCHANGED);
				entries_edit_free(&ed);
				assert_bytes(&a, p->bytes, p->len);
				free(text);
			}
			checked++;
			odd += e >= 100;
		}
		anim_free(&a);
	}
	assert_true(checked >= 64 + 42 + 35 + 63);
	assert_true(odd >= 12 + 25);
}

/* ---- edits ------------------------------------------------------------ */

/* Editing one keyframe of an unshared part changes that clip alone. */
static void test_one_key_changes_one_part(void **state)
{
	(void)state;
	const struct pack *p = tigrex();
	struct anim a, want;
	decode_ok(p, &a);
	decode_ok(p, &want);
	const uint32_t entry = 3, part = 1;
	uint32_t s, slot;
	int32_t c = entries_part_clip(&a, entry, part, &s, &slot);
	assert_true(c >= 0);
	char *text = print_ok(&a, entry, &p->rig);
	assert_non_null(strstr(text, "part 1                  # stream 2 slot 3, "
				"joints 31..39"));
	/* The edit below is to track 0's channel 0's key 0. */
	assert_int_equal(first_key_line(text, part),
			 entries_text_line(text, strlen(text), part, 0, 0, 0));
	struct clip_key key;
	char *edited = bump_first_key(text, part, &key);
	struct entries_edit ed;
	parse_ok(edited, 3, &ed);
	apply_ok(&a, entry, &ed);
	assert_int_equal(ed.parts[0].action, ENTRIES_UNCHANGED);
	assert_int_equal(ed.parts[1].action, ENTRIES_REPLACED);
	assert_int_equal(ed.parts[2].action, ENTRIES_UNCHANGED);
	entries_edit_free(&ed);

	want.clips[c].tracks[0].channels[0].keys[0] = key;
	size_t n, wn;
	uint8_t *got = encode_ok(&a, &n), *wanted = encode_ok(&want, &wn);
	assert_int_equal(n, wn);
	assert_memory_equal(got, wanted, n);
	assert_true(n != p->len || memcmp(got, p->bytes, n));
	/* Decoded again, every slot but the edited one plays what it did. */
	struct anim back, orig;
	assert_int_equal(anim_decode(got, n, CLIP_NONE, &back, NULL), MH_OK);
	decode_ok(p, &orig);
	for (uint32_t t = 0; t < orig.nstreams; t++)
		for (uint32_t i = 0; i < orig.streams[t].nslots; i++) {
			int32_t x = orig.streams[t].slots[i], y = back.streams[t].slots[i];
			assert_int_equal(x < 0, y < 0);
			if (x >= 0)
				assert_int_equal(clip_equal(&orig.clips[x], &back.clips[y]),
						 !(t == s && i == slot));
		}
	anim_free(&back);
	anim_free(&orig);
	free(got);
	free(wanted);
	free(edited);
	free(text);
	anim_free(&want);
	anim_free(&a);
}

/* A part playing a clip it shares with an earlier slot gets its own copy;
 * the first user's edit is seen by every slot sharing the clip. */
static void test_shared_clip_copy_on_write(void **state)
{
	(void)state;
	const struct pack *p = tigrex();
	for (int first = 0; first < 2; first++) {
		struct anim a;
		uint32_t entry = 0, part = 0, s, slot;
		decode_ok(p, &a);
		assert_true(find_shared(&a, first, &entry, &part));
		int32_t old = entries_part_clip(&a, entry, part, &s, &slot);
		struct clip before;
		assert_int_equal(clip_copy(&before, &a.clips[old], NULL), MH_OK);
		char *text = print_ok(&a, entry, &p->rig);
		assert_non_null(strstr(text, first ? ": an edit here changes them too"
					     : ": an edit here gives this slot a clip of its own"));
		struct clip_key key;
		char *edited = bump_first_key(text, part, &key);
		struct entries_edit ed;
		parse_ok(edited, entries_parts(&a), &ed);
		apply_ok(&a, entry, &ed);
		assert_int_equal(ed.parts[part].action,
				 first ? ENTRIES_REPLACED : ENTRIES_COPIED);
		entries_edit_free(&ed);
		size_t n;
		uint8_t *bytes = encode_ok(&a, &n);
		struct anim back;
		assert_int_equal(anim_decode(bytes, n, CLIP_NONE, &back, NULL), MH_OK);
		struct anim orig;
		decode_ok(p, &orig);
		int32_t mine = back.streams[s].slots[slot];
		assert_int_equal(back.clips[mine].tracks[0].channels[0].keys[0].value,
				 key.value);
		unsigned others = 0;
		for (uint32_t t = 0; t < orig.nstreams; t++)
			for (uint32_t i = 0; i < orig.streams[t].nslots; i++) {
				if (orig.streams[t].slots[i] != orig.streams[s].slots[slot] ||
				    (t == s && i == slot))
					continue;
				others++;
				int32_t x = back.streams[t].slots[i];
				/* The first user's sharers follow; a copy leaves them. */
				assert_int_equal(x == mine, first);
				assert_int_equal(clip_equal(&back.clips[x], &before), !first);
			}
		assert_true(others >= 1);
		anim_free(&orig);
		anim_free(&back);
		free(bytes);
		clip_free(&before);
		free(edited);
		free(text);
		anim_free(&a);
	}
}

/* A bad last part leaves the pack as it was, however good the rest. */
static void test_error_in_last_part_changes_nothing(void **state)
{
	(void)state;
	const struct pack *p = tigrex();
	struct anim a;
	decode_ok(p, &a);
	char *text = print_ok(&a, 5, &p->rig);
	struct clip_key key;
	char *edited = bump_first_key(text, 0, &key);
	unsigned line = entries_text_line(edited, strlen(edited), 2, 4, 0, 0);
	char *broken = replace_line(edited, line, "      12   oops 0 0");
	struct mh_diag d = {0};
	assert_int_equal(entries_write(&a, 5, broken, strlen(broken), &d), MH_ESYNTAX);
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, 12);
	assert_non_null(strstr(d.msg, "value"));
	assert_bytes(&a, p->bytes, p->len);
	/* The same edit without the error lands. */
	assert_int_equal(entries_write(&a, 5, edited, strlen(edited), &d), MH_OK);
	size_t n;
	uint8_t *bytes = encode_ok(&a, &n);
	assert_true(n != p->len || memcmp(bytes, p->bytes, n));
	free(bytes);
	free(broken);
	free(edited);
	free(text);
	anim_free(&a);
}

/* The Tigrex's 24 and 25 reach the head alone. */
static void test_head_only_entries(void **state)
{
	(void)state;
	const struct pack *p = tigrex();
	struct anim a;
	decode_ok(p, &a);
	for (uint32_t e = 24; e <= 25; e++) {
		char *text = print_ok(&a, e, &p->rig);
		char want[128];
		snprintf(want, sizeof want, "# pack entry %u: reaches part 1 only; "
			 "parts 0, 2 keep their clips\n", e);
		assert_true(!strncmp(text, want, strlen(want)));
		snprintf(want, sizeof want, "\npart 0 keeps its clip   # stream 0 slot "
			 "%u is empty\n", e);
		assert_non_null(strstr(text, want));
		snprintf(want, sizeof want, "\npart 2 keeps its clip   # stream 4 slot "
			 "%u is empty\n", e);
		assert_non_null(strstr(text, want));
		snprintf(want, sizeof want, "\npart 1                  # stream 2 slot "
			 "%u, joints 31..39", e);
		assert_non_null(strstr(text, want));
		assert_null(strstr(text, "# part 0, joint"));
		assert_null(strstr(text, "# part 2, joint"));
		for (int j = 31; j <= 39; j++) {
			snprintf(want, sizeof want, "# part 1, joint %d\n", j);
			assert_non_null(strstr(text, want));
		}
		assert_null(strstr(text, "joint 40"));
		/* The parsed text has no clip for parts 0 and 2. */
		struct entries_edit ed;
		parse_ok(text, 3, &ed);
		assert_true(ed.parts[0].keeps && !ed.parts[1].keeps && ed.parts[2].keeps);
		assert_int_equal(ed.parts[0].clip.ntracks, 0);
		assert_int_equal(ed.parts[1].clip.ntracks, 9);
		entries_edit_free(&ed);
		free(text);
	}
	anim_free(&a);
}

/* An entry names each part's joints from the skeleton, not from its
 * clip's track count: with 44 animated joints the tail's part has 4
 * (40..43) and its clips still 5 tracks, the last driving none. */
static void test_joints_from_the_skeleton(void **state)
{
	(void)state;
	struct skeleton s;
	struct anim a;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	s.params[1] = 44;
	char *text = print_ok(&a, 1, &s);
	assert_non_null(strstr(text, "\npart 2                  # stream 4 slot 1, joints 40..43 "
			       "(the clip has 5 tracks), runs to frame "));
	assert_non_null(strstr(text, "\npart 1                  # stream 2 slot 1, joints "
			       "31..39, runs to frame "));
	assert_non_null(strstr(text, "# part 2, joint 43\n"));
	assert_non_null(strstr(text, "# part 2, past its 4 joints: drives none\n"));
	assert_null(strstr(text, "joint 44"));
	/* It still parses back to the same pack. */
	struct entries_edit ed;
	parse_ok(text, 3, &ed);
	assert_int_equal(ed.parts[2].clip.ntracks, 5);
	entries_edit_free(&ed);
	free(text);
	/* No animated count: the joints are unknown, tracks count from 0. */
	s.nparams = 1;
	text = print_ok(&a, 1, &s);
	assert_non_null(strstr(text, "# no rig: the joints are unknown"));
	assert_null(strstr(text, "joints 40"));
	free(text);
	anim_free(&a);
	skeleton_free(&s);
}

/* "keeps its clip" empties a filled slot; a clip fills an empty one. */
static void test_keep_and_fill(void **state)
{
	(void)state;
	const struct pack *p = tigrex();
	struct anim a;
	uint32_t s, slot;
	decode_ok(p, &a);
	char *text = print_ok(&a, 7, &p->rig);
	char *cut = strstr(text, "\npart 2 ");
	assert_non_null(cut);
	strcpy(cut, "\npart 2 keeps its clip\n");
	struct entries_edit ed;
	parse_ok(text, 3, &ed);
	apply_ok(&a, 7, &ed);
	assert_int_equal(ed.parts[2].action, ENTRIES_EMPTIED);
	assert_int_equal(ed.parts[0].action, ENTRIES_UNCHANGED);
	entries_edit_free(&ed);
	assert_int_equal(entries_part_clip(&a, 7, 2, &s, &slot), ANIM_EMPTY);
	assert_int_equal(s, 4);
	assert_int_equal(slot, 7);
	free(text);

	/* Entry 24 given entry 23's body clip: slot 24 of stream 0 filled. */
	char *from = print_ok(&a, 23, &p->rig);
	int32_t c23 = entries_part_clip(&a, 23, 0, &s, &slot);
	assert_int_equal(entries_part_clip(&a, 24, 0, &s, &slot), ANIM_EMPTY);
	uint32_t before = a.nclips;
	struct mh_diag d = {0};
	assert_int_equal(entries_write(&a, 24, from, strlen(from), &d), MH_OK);
	int32_t c24 = entries_part_clip(&a, 24, 0, &s, &slot);
	assert_true(c24 >= 0 && c24 != c23);
	assert_true(clip_equal(&a.clips[c24], &a.clips[c23]));
	assert_int_equal(a.nclips, before + 2); /* parts 0 and 2 filled */
	assert_true(entries_listed(&a, 24));
	free(from);
	size_t n;
	uint8_t *bytes = encode_ok(&a, &n);
	struct anim back;
	assert_int_equal(anim_decode(bytes, n, CLIP_NONE, &back, NULL), MH_OK);
	anim_free(&back);
	free(bytes);
	anim_free(&a);
}

/* Entry 50 of a Tigrex-shaped pack: stream 4 slot 50 (part 2) shares the
 * clip of stream 2 slot 50 (part 1).  Each part plays what its section
 * says, whichever parts the text changes. */
static void test_clip_shared_across_parts(void **state)
{
	(void)state;
	for (int both = 0; both < 2; both++) {
		struct gen_rng r = {11};
		struct anim a;
		uint32_t s, slot;
		gen_tigrex(&r, &a);
		int32_t shared = entries_part_clip(&a, 50, 1, &s, &slot);
		assert_int_equal(entries_part_clip(&a, 50, 2, &s, &slot), shared);
		char *text = print_ok(&a, 50, NULL);
		assert_non_null(strstr(text, "# shared with stream 4 slot 50 (entry 50)"));
		assert_non_null(strstr(text, "# shares the clip of stream 2 slot 50 (entry 50)"));
		/* Without a rig, tracks name their part alone. */
		assert_non_null(strstr(text, "\n# no rig: the joints are unknown"));
		assert_non_null(strstr(text, "\ntrack 0                 # part 2"));
		assert_null(strstr(text, ", joint"));
		struct clip_key key;
		char *once = bump_first_key(text, 1, &key);
		char *edited = both ? bump_first_key(once, 2, &key) : once;
		struct entries_edit ed;
		parse_ok(edited, 3, &ed);
		struct clip want1, want2;
		assert_int_equal(clip_copy(&want1, &ed.parts[1].clip, NULL), MH_OK);
		assert_int_equal(clip_copy(&want2, &ed.parts[2].clip, NULL), MH_OK);
		apply_ok(&a, 50, &ed);
		assert_int_equal(ed.parts[1].action, ENTRIES_REPLACED);
		assert_int_equal(ed.parts[2].action, both ? ENTRIES_UNCHANGED : ENTRIES_COPIED);
		entries_edit_free(&ed);
		int32_t c1 = entries_part_clip(&a, 50, 1, &s, &slot);
		int32_t c2 = entries_part_clip(&a, 50, 2, &s, &slot);
		assert_true(clip_equal(&a.clips[c1], &want1));
		assert_true(clip_equal(&a.clips[c2], &want2));
		assert_int_equal(c1 == c2, both);
		clip_free(&want1);
		clip_free(&want2);
		if (both)
			free(edited);
		free(once);
		free(text);
		anim_free(&a);
	}
}

/* A part without a slot for the entry cannot take a clip: refused at its
 * line, the pack untouched. */
static void test_missing_slot_refused(void **state)
{
	(void)state;
	static const uint32_t SLOTS[5] = {100, 100, 100, 40, 100};
	struct gen_rng r = {5};
	struct anim a;
	assert_int_equal(anim_init(&a, CLIP_MHFU, 5, SLOTS, NULL), MH_OK);
	gen_fill(&r, &a, 0, 60, 100, 100, 4, GEN_NATIVE_FU);
	gen_fill(&r, &a, 1, 60, 100, 100, 4, GEN_NATIVE_FU);
	gen_fill(&r, &a, 2, 60, 100, 100, 3, GEN_NATIVE_FU);
	gen_fill(&r, &a, 3, 40, 100, 100, 3, GEN_NATIVE_FU);
	gen_fill(&r, &a, 4, 60, 100, 100, 2, GEN_NATIVE_FU);
	assert_int_equal(entries_parts(&a), 3);
	size_t n;
	uint8_t *bytes = encode_ok(&a, &n);
	char *text = print_ok(&a, 150, NULL);
	assert_non_null(strstr(text, "part 1 keeps its clip   # stream 3 has no slot "
				"50 (it has 40)\n"));
	assert_non_null(strstr(text, "part 2 keeps its clip   # the pack has no "
				"stream 5\n"));
	/* Part 0's clip is fine; part 1 has nowhere to go. */
	const char *bad = "part 0\ntrack 0\ntrack 1\ntrack 2\ntrack 3\n"
			  "# part 1's clip\npart 1\nloop 1\npart 2 keeps its clip\n";
	struct mh_diag d = {0};
	assert_int_equal(entries_write(&a, 150, bad, strlen(bad), &d), MH_ERANGE);
	assert_int_equal(d.line, 7);
	assert_non_null(strstr(d.msg, "stream 3 has 40 slots, no slot 50"));
	assert_bytes(&a, bytes, n);
	const char *no_stream = "part 0 keeps its clip\npart 1 keeps its clip\n"
				"part 2\n";
	assert_int_equal(entries_write(&a, 150, no_stream, strlen(no_stream), &d),
			 MH_ERANGE);
	assert_int_equal(d.line, 3);
	assert_non_null(strstr(d.msg, "no stream 5"));
	assert_bytes(&a, bytes, n);
	const char *fine = "part 0\ntrack 0\ntrack 1\ntrack 2\ntrack 3\n"
			   "part 1 keeps its clip\npart 2 keeps its clip\n";
	assert_int_equal(entries_write(&a, 150, fine, strlen(fine), &d), MH_OK);
	uint32_t s, slot;
	int32_t c = entries_part_clip(&a, 150, 0, &s, &slot);
	assert_true(c >= 0 && s == 1 && slot == 50);
	assert_int_equal(a.clips[c].ntracks, 4);
	assert_int_equal(entries_write(&a, ENTRIES_MAX, fine, strlen(fine), &d),
			 MH_ERANGE);
	free(text);
	free(bytes);
	anim_free(&a);
}

/* ---- parse errors ----------------------------------------------------- */

static void test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		enum mh_err err;
		unsigned line, col;
		const char *says;
	} CASES[] = {
		{"", MH_ESYNTAX, 1, 1, "part 0 is missing"},
		{"# nothing\n\n", MH_ESYNTAX, 2, 1, "part 0 is missing"},
		{"loop 1\npart 0\n", MH_ESYNTAX, 1, 1, "expected \"part 0\""},
		{"part 0 keeps its clip\n", MH_ESYNTAX, 1, 1, "part 1 is missing"},
		{"part 0\npart 1\npart 1 keeps its clip\n", MH_ESYNTAX, 3, 1,
		 "part 1 given twice (first at line 2)"},
		{"part 0\npart 2\n", MH_ERANGE, 2, 6, "the pack has parts 0..1"},
		{"part\n", MH_ESYNTAX, 1, 5, "the part number"},
		{"part x\n", MH_ESYNTAX, 1, 6, "integer"},
		{"part 0 keeps\n", MH_ESYNTAX, 1, 13, "keeps its clip"},
		{"part 0 keeps his clip\n", MH_ESYNTAX, 1, 14, "keeps its clip"},
		{"part 0 keeps its clip now\n", MH_ESYNTAX, 1, 23, "unexpected \"now\""},
		{"part 0 retains\n", MH_ESYNTAX, 1, 8, "\"keeps its clip\" or the end"},
		{"part 0 keeps its clip\n  loop 1\npart 1\n", MH_ESYNTAX, 2, 3,
		 "part 0 keeps its clip, so it has no clip text"},
		{"part 0\nloop 1\n\ntrack 0\n  channel rot_q\npart 1\n", MH_ESYNTAX,
		 5, 11, "channel name"},
		{"part 1 # head\nloop_start 1\nloop_start 2\npart 0\n", MH_ESYNTAX, 3, 1,
		 "twice"},
		{"part 0\ntrack 0\nchannel rot_x\n0 99999 0 0\npart 1\n", MH_ERANGE, 4, 3,
		 "value"},
		{"part 0\npart 1\n   \x01\n", MH_ESYNTAX, 3, 4, "expected loop"},
	};
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
		struct entries_edit e;
		struct mh_diag d = {0};
		enum mh_err err = entries_parse(CASES[i].text, strlen(CASES[i].text), 2,
						&e, &d);
		if (err != CASES[i].err || d.line != CASES[i].line ||
		    d.col != CASES[i].col || !strstr(d.msg, CASES[i].says))
			fail_msg("case %zu: got %s at %u:%u \"%s\", want %s at %u:%u "
				 "\"%s\"", i, mh_strerror(err), d.line, d.col, d.msg,
				 mh_strerror(CASES[i].err), CASES[i].line,
				 CASES[i].col, CASES[i].says);
		assert_int_equal(e.nparts, 0);
		assert_null(e.parts);
	}
	/* A NUL byte anywhere, comments included. */
	static const char NUL[] = "part 0\n# a\0b\npart 1\n";
	struct entries_edit e;
	struct mh_diag d = {0};
	assert_int_equal(entries_parse(NUL, sizeof NUL - 1, 2, &e, &d), MH_ESYNTAX);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 4);
	/* Any order, comments and blank lines anywhere. */
	static const char LIBERAL[] = "\n# header\npart 1 keeps its clip # why\n"
				      "\n  part 0\t# body\nloop 1\ntrack 0\n";
	parse_ok(LIBERAL, 2, &e);
	assert_true(e.parts[1].keeps && !e.parts[0].keeps);
	assert_int_equal(e.parts[0].line, 5);
	assert_int_equal(e.parts[1].line, 3);
	assert_int_equal(e.parts[0].clip.loop, 1);
	assert_int_equal(e.parts[0].clip.ntracks, 1);
	entries_edit_free(&e);
	entries_edit_free(NULL);
}

static void test_text_line(void **state)
{
	(void)state;
	static const char T[] = "# x\npart 1 keeps its clip\npart 0\nloop 1\n"
				"track 0\nchannel rot_x\n0 1 0 0\n5 2 0 0\n"
				"track 1\n";
	size_t n = sizeof T - 1;
	assert_int_equal(entries_text_line(T, n, 1, -1, -1, -1), 2);
	assert_int_equal(entries_text_line(T, n, 0, -1, -1, -1), 3);
	assert_int_equal(entries_text_line(T, n, 0, 0, -1, -1), 5);
	assert_int_equal(entries_text_line(T, n, 0, 0, 0, -1), 6);
	assert_int_equal(entries_text_line(T, n, 0, 0, 0, 1), 8);
	assert_int_equal(entries_text_line(T, n, 0, 1, -1, -1), 9);
	assert_int_equal(entries_text_line(T, n, 2, 0, 0, 0), 1);
}

/* ---- index.tsv -------------------------------------------------------- */

static void test_index(void **state)
{
	(void)state;
	const struct pack *p = tigrex();
	struct anim a;
	decode_ok(p, &a);
	size_t len;
	char *tsv = entries_index(&a, &len);
	assert_non_null(tsv);
	assert_int_equal(strlen(tsv), len);
	static const char HEAD[] = "# entry\tpart0_stream\tpart0_slot\t"
				   "part0_frames\tpart0_shared_with\tpart1_stream";
	assert_true(!strncmp(tsv, HEAD, strlen(HEAD)));
	unsigned lines = 0;
	for (char *l = tsv; *l; l = strchr(l, '\n') + 1) {
		unsigned tabs = 0;
		for (char *c = l; *c != '\n'; c++)
			tabs += *c == '\t';
		assert_int_equal(tabs, 12);
		lines++;
	}
	assert_int_equal(lines, 1 + 64);
	uint32_t s, slot;
	char want[256];
	int32_t c = entries_part_clip(&a, 24, 1, &s, &slot);
	snprintf(want, sizeof want, "\n24\t0\t24\t-\t-\t2\t24\t%d\t-\t4\t24\t-\t-\n",
		 (int)entries_clip_frames(&a.clips[c]));
	assert_non_null(strstr(tsv, want));
	/* Slots 0 and 2 of every stream share a clip. */
	c = entries_part_clip(&a, 2, 0, &s, &slot);
	snprintf(want, sizeof want, "\n2\t0\t2\t%d\tstream0/slot000\t",
		 (int)entries_clip_frames(&a.clips[c]));
	assert_non_null(strstr(tsv, want));
	free(tsv);
	anim_free(&a);

	struct clip k = {0};
	struct clip_channel *ch;
	assert_int_equal(entries_clip_frames(&k), 0);
	ch = clip_add_channel(clip_add_track(&k, 0), CLIP_ROT_X);
	clip_add_key(ch, (struct clip_key){.frame = 40});
	clip_add_key(ch, (struct clip_key){.frame = 7});
	ch = clip_add_channel(clip_add_track(&k, 0), CLIP_ROT_Y);
	clip_add_key(ch, (struct clip_key){.frame = 12});
	assert_int_equal(entries_clip_frames(&k), 40);
	clip_free(&k);
}

/* ---- damaged texts ---------------------------------------------------- */

/* Entry texts with random bytes changed, lines dropped or doubled: each
 * parses or fails with a position inside the text; what parses applies,
 * and the pack still encodes and decodes. */
static void test_damaged_texts(void **state)
{
	(void)state;
	static const char BYTES[] = "0123456789 -#\npartkeps\x01x";
	const struct pack *p = tigrex();
	struct gen_rng r = {0xE17};
	struct anim a;
	decode_ok(p, &a);
	char *texts[2] = {print_ok(&a, 24, &p->rig), print_ok(&a, 13, NULL)};
	unsigned parsed = 0;
	for (int iter = 0; iter < 1500; iter++) {
		const char *src = texts[iter % 2];
		size_t n = strlen(src);
		size_t cap = 2 * n;
		char *t = malloc(cap + 1);
		assert_non_null(t);
		memcpy(t, src, n + 1);
		for (uint32_t k = 1 + gen_below(&r, 4); k && n; k--) {
			size_t at = gen_below(&r, (uint32_t)n);
			const char *eol = strchr(t + at, '\n');
			size_t end = eol ? (size_t)(eol - t) + 1 : n;
			switch (gen_below(&r, 3)) {
			case 0: /* a byte */
				t[at] = BYTES[gen_below(&r, sizeof BYTES - 1)];
				break;
			case 1: /* the rest of a line */
				memmove(t + at, t + end, n - end + 1);
				n -= end - at;
				break;
			default: /* a line twice, if there is room */
				if (n + (end - at) <= cap) {
					memmove(t + end + (end - at), t + end, n - end + 1);
					memcpy(t + end, t + at, end - at);
					n += end - at;
				}
				break;
			}
		}
		struct entries_edit e;
		struct mh_diag d = {0};
		unsigned lines = 1;
		for (size_t i = 0; i + 1 < n; i++)
			lines += t[i] == '\n';
		if (entries_parse(t, n, 3, &e, &d)) {
			assert_true(d.line >= 1 && d.line <= lines);
			assert_true(d.col >= 1);
		} else {
			struct anim b;
			decode_ok(p, &b);
			if (entries_apply(&b, 24, &e, &d) == MH_OK) {
				size_t len;
				uint8_t *bytes = NULL;
				if (!anim_compact(&b, NULL) &&
				    !anim_encode(&b, &bytes, &len, NULL)) {
					struct anim back;
					assert_int_equal(anim_decode(bytes, len, CLIP_NONE,
								     &back, NULL), MH_OK);
					anim_free(&back);
				}
				free(bytes);
			}
			entries_edit_free(&e);
			anim_free(&b);
			parsed++;
		}
		free(t);
	}
	assert_true(parsed > 0 && parsed < 1500);
	free(texts[0]);
	free(texts[1]);
	anim_free(&a);
}

/* ---- allocation failures ---------------------------------------------- */

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	const struct pack *p = tigrex();
	struct anim a;
	decode_ok(p, &a);
	/* Entry 13: part 0 shares slot 9's clip, part 1 plays its own. */
	const uint32_t entry = 13;
	char *text = print_ok(&a, entry, &p->rig);
	struct clip_key key;
	char *once = bump_first_key(text, 0, &key);
	char *edited = bump_first_key(once, 1, &key);
	free(once);
	struct anim b;
	struct entries_edit e;
	decode_ok(p, &b);
	parse_ok(edited, 3, &e);
	apply_ok(&b, entry, &e);
	assert_int_equal(e.parts[0].action, ENTRIES_COPIED);
	assert_int_equal(e.parts[1].action, ENTRIES_REPLACED);
	entries_edit_free(&e);
	anim_free(&b);
	long live = faults_live;
	for (int what = 0; what < 5; what++)
		for (long k = 0;; k++) {
			struct anim b;
			struct entries_edit e = {0};
			struct mh_diag d = {0};
			enum mh_err err = MH_OK;
			char *t = NULL;
			if (what >= 3) {
				decode_ok(p, &b);
				/* No room for another clip: the copy must make some. */
				assert_int_equal(anim_compact(&b, NULL), MH_OK);
				if (what == 4)
					parse_ok(edited, 3, &e);
			}
			faults_arm(k);
			switch (what) {
			case 0: t = entries_print(&a, entry, "pack", &p->rig, NULL); break;
			case 1: t = entries_index(&a, NULL); break;
			case 2: err = entries_parse(edited, strlen(edited), 3, &e, &d); break;
			case 3: err = entries_write(&b, entry, edited, strlen(edited), &d); break;
			default: err = entries_apply(&b, entry, &e, &d); break;
			}
			bool fired = faults_disarm();
			if (what <= 1 && !t)
				err = MH_ENOMEM;
			free(t);
			entries_edit_free(&e);
			if (what >= 3) {
				if (err)
					assert_bytes(&b, p->bytes, p->len);
				anim_free(&b);
			}
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				break;
			}
			assert_int_equal(err, MH_ENOMEM);
		}
	free(edited);
	free(text);
	anim_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_packs),
		cmocka_unit_test(test_odd_streams_in_every_part),
		cmocka_unit_test(test_mhp3rd_has_no_entries),
		cmocka_unit_test(test_every_entry_round_trips),
		cmocka_unit_test(test_one_key_changes_one_part),
		cmocka_unit_test(test_shared_clip_copy_on_write),
		cmocka_unit_test(test_error_in_last_part_changes_nothing),
		cmocka_unit_test(test_head_only_entries),
		cmocka_unit_test(test_joints_from_the_skeleton),
		cmocka_unit_test(test_keep_and_fill),
		cmocka_unit_test(test_clip_shared_across_parts),
		cmocka_unit_test(test_missing_slot_refused),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_text_line),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_damaged_texts),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
