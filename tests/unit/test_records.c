/* SPDX-License-Identifier: MIT */
/* Tests of codecs/records (MHP3rd record maps) and records_text
 * (records.txt).
 *
 * Every map is checked against one worked out by hand from
 * mhfu-clip(5) "RECORD MAPS": rigs whose body fork sits at different
 * joints, with and without a leading chain the moveset never reaches,
 * monsters with known skip lists, no rig, records past the rig.  The
 * parser's errors are checked at their line:col; print -> parse gives
 * back the setting printed; random rigs and packs keep the map's
 * invariants; allocation failures end cleanly. */
#include "faults.h"
#include "testlib.h"

#include "anim.h"
#include "clip.h"
#include "records.h"
#include "rng.h"
#include "skeleton.h"
#include "views.h"

/* ---- fixtures ------------------------------------------------------------- */

/* A rig of n bones with these parents, MHP3rd, bone b named "bNNN". */
static void rig_of(struct skeleton *s, const int32_t *parent, uint32_t n)
{
	assert_int_equal(skeleton_init(s, SKELETON_MHP3RD, n, NULL), MH_OK);
	for (uint32_t b = 0; b < n; b++) {
		s->bones[b].parent = parent[b];
		snprintf((char *)s->bones[b].rest, SKELETON_NAME_LEN, "b%03u", b % 1000);
	}
	skeleton_link(s, false);
}

/* A quadruped: `lead` bones on a root chain of their own (never driven),
 * the body's root, a spine of `spine` bones down to the fork, a front
 * and a rear branch off the fork, then a severed chain on a root of its
 * own.  The fork is bone lead + spine. */
static uint32_t quadruped(struct skeleton *s, uint32_t lead, uint32_t spine, uint32_t front,
			  uint32_t rear, uint32_t severed)
{
	int32_t parent[128];
	uint32_t n = 0;
	for (uint32_t i = 0; i < lead; i++, n++)
		parent[n] = i ? (int32_t)n - 1 : -1;
	uint32_t root = n;
	for (uint32_t i = 0; i <= spine; i++, n++)
		parent[n] = i ? (int32_t)n - 1 : -1;
	uint32_t fork = n - 1;
	for (uint32_t i = 0; i < front; i++, n++)
		parent[n] = i ? (int32_t)n - 1 : (int32_t)fork;
	for (uint32_t i = 0; i < rear; i++, n++)
		parent[n] = i ? (int32_t)n - 1 : (int32_t)fork;
	for (uint32_t i = 0; i < severed; i++, n++)
		parent[n] = i ? (int32_t)n - 1 : -1;
	assert_true(n <= 128 && root + spine == fork);
	rig_of(s, parent, n);
	return fork;
}

/* A one-stream MHP3rd pack of one clip of `tracks` tracks, every one
 * rotating, those in `located` (ascending, -1 ended) moving too. */
static void pack_of(struct anim *a, uint32_t tracks, const int *located)
{
	assert_int_equal(anim_init(a, CLIP_P3RD, 1, (const uint32_t[]){2}, NULL), MH_OK);
	struct clip c = {0};
	for (uint32_t t = 0; t < tracks; t++) {
		struct clip_track *tr = clip_add_track(&c, 0);
		assert_non_null(tr);
		bool moves = false;
		for (const int *l = located; *l >= 0; l++)
			moves |= (uint32_t)*l == t;
		uint32_t bit = moves ? CLIP_LOC_Y : CLIP_ROT_X;
		struct clip_channel *ch = clip_add_channel(tr, bit);
		assert_non_null(ch);
		assert_non_null(clip_add_key(ch, (struct clip_key){.value = (int16_t)t}));
	}
	int32_t k = anim_add_clip(a, &c);
	assert_true(k >= 0);
	assert_int_equal(anim_set_slot(a, 0, 1, k, NULL), MH_OK);
}

/* The map of rig s and a pack of `tracks` tracks, `located` moving. */
static void map_of(struct records *r, const struct skeleton *s, uint32_t tracks,
		   const int *located, int monster)
{
	struct anim a;
	pack_of(&a, tracks, located);
	assert_int_equal(records_init(r, s, &a, monster, NULL), MH_OK);
	anim_free(&a);
}

/* r's bones are want[0..n). */
static void assert_bones(const struct records *r, const int32_t *want, uint32_t n)
{
	assert_int_equal(r->nrecords, n);
	for (uint32_t i = 0; i < n; i++)
		if (r->bone[i] != want[i])
			fail_msg("record %u drives bone %d, want %d", i, (int)r->bone[i],
				 (int)want[i]);
}

/* ---- the table -------------------------------------------------------------- */

static void test_known_skip_lists(void **state)
{
	(void)state;
	const uint8_t *b;
	assert_int_equal(records_known_skips(40, &b), 10);
	assert_int_equal(b[0], 9);
	assert_int_equal(b[9], 47);
	assert_int_equal(records_known_skips(1, &b), 3);
	assert_memory_equal(b, ((const uint8_t[]){8, 15, 25}), 3);
	assert_int_equal(records_known_skips(41, &b), 12);
	assert_int_equal(b[11], 48);
	assert_int_equal(records_known_skips(58, &b), 0); /* the Brute: none known */
	assert_null(b);
	assert_int_equal(records_known_skips(RECORDS_NO_MONSTER, &b), 0);
}

/* ---- hand-computed maps ----------------------------------------------------- */

/* The Zinogre's shape (em040): 51 bones forking at 1, 37 records, the
 * first two moving.  Offset 0 keeps both at or above the fork (0 is its
 * parent, 1 the fork); the skip list leaves 9 of bones 0..46 out, so the
 * records end on bone 45, the last before the severed chain. */
static void test_fork_at_1_with_em040s_list(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	assert_int_equal(quadruped(&s, 0, 1, 23, 21, 5), 1);
	assert_int_equal(s.nbones, 51);
	map_of(&r, &s, 37, (const int[]){0, 1, -1}, 40);
	assert_int_equal(r.fork, 1);
	assert_int_equal(r.fork_offset, 0);
	assert_true(r.fork_kept);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.nskip, 10);
	static const int32_t want[37] = {
		0,  1,  2,  3,  4,  5,  6,  7,  8,  /* 9, 10 skipped */
		11, 12, 13, 14, 15,                 /* 16, 17 */
		18, 19, 20, 21, 22, 23,             /* 24 */
		25, 26, 27, 28, 29, 30,             /* 31 */
		32, 33, 34, 35, 36,                 /* 37, 38 */
		39, 40, 41,                         /* 42 */
		43, 44, 45,
	};
	assert_bones(&r, want, 37);
	char label[32];
	records_bone_label(&r, 9, label, sizeof label);
	assert_string_equal(label, "joint 11 (b011)");
	records_free(&r);
	skeleton_free(&s);
}

/* Two bones on a root chain of their own, then the body: root 2, fork 4.
 * Records 0 and 1 move: offset 0 puts them on 0 and 1, off the fork's
 * chain; offset 1 on 1 and 2, 1 still off it; offset 2 on 2 and 3, the
 * fork's parents.  em001's list then steps over 8, 15 and 25. */
static void test_fork_at_4_after_a_lead_chain(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	assert_int_equal(quadruped(&s, 2, 2, 12, 12, 2), 4);
	map_of(&r, &s, 24, (const int[]){0, 1, -1}, 1);
	assert_int_equal(r.fork_offset, 2);
	assert_int_equal(r.offset, 2);
	static const int32_t want[24] = {
		2,  3,  4,  5,  6,  7,  9,  10, 11, 12, 13, 14,
		16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 27, 28,
	};
	assert_bones(&r, want, 24);
	int32_t first;
	assert_true(records_fork_kept(&r, &first));
	assert_int_equal(first, -1);
	records_free(&r);
	skeleton_free(&s);
}

/* One lone root, then the body from 1 with the fork at 3; records 0..2
 * move, so offset 1 (bones 1, 2, 3: the fork and its parents). */
static void test_fork_at_3_three_moving_records(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	assert_int_equal(quadruped(&s, 1, 2, 4, 4, 0), 3);
	map_of(&r, &s, 8, (const int[]){0, 1, 2, -1}, RECORDS_NO_MONSTER);
	assert_int_equal(r.offset, 1);
	assert_int_equal(r.nskip, 0);
	assert_bones(&r, (const int32_t[]){1, 2, 3, 4, 5, 6, 7, 8}, 8);
	records_free(&r);
	skeleton_free(&s);
}

/* A record that moves past the fork on every offset: the rule cannot be
 * kept, offset 0 is used and the map says so. */
static void test_no_offset_keeps_the_fork_rule(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	/* 0 forks into 1 and 2 at once: only bone 0 is at or above it. */
	rig_of(&s, (const int32_t[]){-1, 0, 0, 1, 2}, 5);
	map_of(&r, &s, 3, (const int[]){0, 2, -1}, RECORDS_NO_MONSTER);
	assert_int_equal(r.fork, 0);
	assert_false(r.fork_kept);
	assert_int_equal(r.offset, 0);
	int32_t first;
	assert_false(records_fork_kept(&r, &first));
	assert_int_equal(first, 2);
	char *text = records_print(&r, "m.anim", "m/0.skeleton", NULL, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "no offset keeps the fork rule"));
	assert_non_null(strstr(text, "record 2 has location channels and lands below"));
	assert_non_null(strstr(text, "location below the fork"));
	free(text);
	records_free(&r);
	skeleton_free(&s);
}

/* A chain does not fork: offset 0, whatever moves. */
static void test_a_chain_has_no_fork(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	rig_of(&s, (const int32_t[]){-1, 0, 1, 2}, 4);
	map_of(&r, &s, 3, (const int[]){1, 2, -1}, RECORDS_NO_MONSTER);
	assert_int_equal(r.fork, -1);
	assert_true(r.fork_kept);
	assert_bones(&r, (const int32_t[]){0, 1, 2}, 3);
	records_free(&r);
	skeleton_free(&s);
}

/* More records than bones: the last ones land past the rig. */
static void test_records_past_the_rig(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	rig_of(&s, (const int32_t[]){-1, 0, 1, 1, 2}, 5);
	map_of(&r, &s, 8, (const int[]){-1}, 22); /* em022 skips bone 8: past it anyway */
	assert_bones(&r, (const int32_t[]){0, 1, 2, 3, 4, -1, -1, -1}, 8);
	char label[32];
	records_bone_label(&r, 6, label, sizeof label);
	assert_string_equal(label, "past the rig");
	records_bone_label(&r, 99, label, sizeof label);
	assert_string_equal(label, "past the rig");
	records_free(&r);
	skeleton_free(&s);
}

/* Without a rig every record says so, and nothing can be overridden. */
static void test_no_rig(void **state)
{
	(void)state;
	struct records r;
	map_of(&r, NULL, 4, (const int[]){0, -1}, 40);
	assert_false(r.rigged);
	assert_bones(&r, (const int32_t[]){-1, -1, -1, -1}, 4);
	char label[32];
	records_bone_label(&r, 0, label, sizeof label);
	assert_string_equal(label, "no rig");
	struct records_setting s = {.offset_set = true, .offset = 3};
	struct mh_diag d = {0};
	assert_diag(&d, records_override(&r, &s, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "no rig");
	/* What it shows reads back as no override at all. */
	size_t len;
	char *text = records_print(&r, "file_05250.anim", NULL, NULL, &len);
	struct records_setting back;
	assert_int_equal(records_parse(&r, text, len, &back, &d), MH_OK);
	assert_false(back.offset_set || back.skip_set);
	free(text);
	records_free(&r);
}

/* ---- overrides -------------------------------------------------------------- */

static void test_overrides_move_the_map(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	quadruped(&s, 0, 1, 10, 10, 3);
	map_of(&r, &s, 6, (const int[]){0, -1}, RECORDS_NO_MONSTER);
	assert_bones(&r, (const int32_t[]){0, 1, 2, 3, 4, 5}, 6);

	uint32_t skip[] = {2, 4};
	struct records_setting set = {.offset_set = true, .offset = 1, .skip_set = true,
				      .nskip = 2, .skip = skip};
	assert_int_equal(records_override(&r, &set, NULL), MH_OK);
	assert_bones(&r, (const int32_t[]){1, 3, 5, 6, 7, 8}, 6);
	assert_true(r.set.offset_set && r.set.skip_set);
	/* Record 0 moves and lands on the fork itself: the rule holds. */
	int32_t first;
	assert_true(records_fork_kept(&r, &first));

	/* The values it would have anyway are no override. */
	struct records_setting plain = {.offset_set = true, .offset = 0, .skip_set = true};
	assert_int_equal(records_override(&r, &plain, NULL), MH_OK);
	assert_false(r.set.offset_set || r.set.skip_set);
	assert_bones(&r, (const int32_t[]){0, 1, 2, 3, 4, 5}, 6);
	records_free(&r);
	skeleton_free(&s);
}

/* The fork rule's offset follows the skip list in force. */
static void test_the_fork_offset_follows_the_skip_list(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	quadruped(&s, 2, 2, 6, 6, 0); /* fork 4 */
	map_of(&r, &s, 6, (const int[]){0, 1, -1}, RECORDS_NO_MONSTER);
	assert_int_equal(r.offset, 2);
	/* Skipping 0..1 puts records 0, 1 on 2, 3 from offset 0. */
	uint32_t skip[] = {0, 1};
	struct records_setting set = {.skip_set = true, .nskip = 2, .skip = skip};
	assert_int_equal(records_override(&r, &set, NULL), MH_OK);
	assert_int_equal(r.fork_offset, 0);
	assert_int_equal(r.offset, 0);
	assert_false(r.set.offset_set);
	assert_bones(&r, (const int32_t[]){2, 3, 4, 5, 6, 7}, 6);
	records_free(&r);
	skeleton_free(&s);
}

static void test_overrides_that_do_not_fit(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	quadruped(&s, 0, 1, 3, 3, 0); /* 8 bones */
	map_of(&r, &s, 4, (const int[]){-1}, RECORDS_NO_MONSTER);
	struct mh_diag d = {0};
	uint32_t far[] = {8}, twice[] = {3, 3};
	struct {
		struct records_setting set;
		const char *says;
	} bad[] = {
		{{.offset_set = true, .offset = 8}, "offset 8 is past the rig's last bone 7"},
		{{.skip_set = true, .nskip = 1, .skip = far}, "bone 8 is past"},
		{{.skip_set = true, .nskip = 2, .skip = twice}, "must ascend"},
		{{.offset_set = true, .offset = 5}, "record 3 would land past"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_diag(&d, records_override(&r, &bad[i].set, &d), MH_ERANGE, 0);
		assert_diag_says(&d, bad[i].says);
		assert_false(r.set.offset_set || r.set.skip_set); /* unchanged */
		assert_int_equal(r.offset, 0);
	}
	records_free(&r);
	skeleton_free(&s);
}

/* ---- records.txt ------------------------------------------------------------ */

/* The rig of the parser tests: 8 bones, 4 records. */
static void small_map(struct skeleton *s, struct records *r)
{
	quadruped(s, 0, 1, 3, 3, 0);
	map_of(r, s, 4, (const int[]){0, -1}, RECORDS_NO_MONSTER);
}

static void test_parse(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	struct records_setting set;
	struct mh_diag d = {0};
	small_map(&s, &r);
	static const char TEXT[] = "# a comment\n\noffset 2   # why\nskip 4 3\n";
	assert_int_equal(records_parse(&r, TEXT, strlen(TEXT), &set, &d), MH_OK);
	assert_true(set.offset_set && set.skip_set);
	assert_int_equal(set.offset, 2);
	assert_int_equal(set.nskip, 2);
	assert_int_equal(set.skip[0], 3); /* sorted */
	assert_int_equal(set.skip[1], 4);
	records_setting_free(&set);

	static const char AUTO[] = "offset auto\nskip auto\n";
	assert_int_equal(records_parse(&r, AUTO, strlen(AUTO), &set, &d), MH_OK);
	assert_false(set.offset_set || set.skip_set);
	assert_int_equal(records_parse(&r, "", 0, &set, &d), MH_OK);
	assert_false(set.offset_set || set.skip_set);
	static const char NONE[] = "skip none\n";
	assert_int_equal(records_parse(&r, NONE, strlen(NONE), &set, &d), MH_OK);
	assert_false(set.skip_set); /* no list is known: none is what it has */
	records_free(&r);
	skeleton_free(&s);
}

static void test_parse_errors(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	small_map(&s, &r);
	static const struct {
		const char *text;
		enum mh_err code;
		unsigned line, col;
		const char *says;
	} bad[] = {
		{"offset\n", MH_ESYNTAX, 1, 7, "a bone number or auto"},
		{"offset x\n", MH_ESYNTAX, 1, 8, "integer"},
		{"offset -1\n", MH_ERANGE, 1, 8, "outside"},
		{"offset 2 3\n", MH_ESYNTAX, 1, 10, "unexpected"},
		{"offset 8\n", MH_ERANGE, 1, 8, "offset 8 is past the rig's last bone 7"},
		{"offset 1\noffset 2\n", MH_ESYNTAX, 2, 1, "twice"},
		{"skip\n", MH_ESYNTAX, 1, 5, "bone numbers, none or auto"},
		{"skip 1 9\n", MH_ERANGE, 1, 8, "bone 9 is past"},
		{"skip 1 2 1\n", MH_ERANGE, 1, 10, "listed twice"},
		{"skip none 3\n", MH_ESYNTAX, 1, 11, "unexpected"},
		{"skip auto 3\n", MH_ESYNTAX, 1, 11, "unexpected"},
		{"\nskip 1\nskip 2\n", MH_ESYNTAX, 3, 1, "twice"},
		{"offset 5\n", MH_ERANGE, 1, 8, "record 3 would land past"},
		{"skip 0 1 2 3 4\n", MH_ERANGE, 1, 1, "would land past"},
		{"  bones 3\n", MH_ESYNTAX, 1, 3, "expected offset or skip"},
		{"offset 1\0\n", MH_ESYNTAX, 1, 9, "NUL"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct records_setting set = {.offset_set = true};
		struct mh_diag d = {0};
		size_t len = strlen(bad[i].text);
		if (strstr(bad[i].says, "NUL"))
			len = 10;
		enum mh_err err = records_parse(&r, bad[i].text, len, &set, &d);
		assert_text_diag(&d, err, bad[i].code, bad[i].line, bad[i].col);
		assert_diag_says(&d, bad[i].says);
		assert_false(set.offset_set || set.skip_set || set.skip);
	}
	records_free(&r);
	skeleton_free(&s);
}

/* Without a rig, a value other than what it shows is refused where it
 * is written. */
static void test_no_rig_refuses_at_the_value(void **state)
{
	(void)state;
	struct records r;
	map_of(&r, NULL, 2, (const int[]){-1}, RECORDS_NO_MONSTER);
	struct records_setting set;
	struct mh_diag d = {0};
	static const char TEXT[] = "skip none\noffset 4\n";
	assert_text_diag(&d, records_parse(&r, TEXT, strlen(TEXT), &set, &d), MH_ERANGE, 2, 8);
	assert_diag_says(&d, "no rig");
	static const char SKIP[] = "offset 0\nskip 1\n";
	assert_text_diag(&d, records_parse(&r, SKIP, strlen(SKIP), &set, &d), MH_ERANGE, 2, 1);
	records_free(&r);
}

/* records.txt as printed: heading, the two lines, a line per record;
 * read back it is the setting in force. */
static void test_print(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	quadruped(&s, 0, 1, 23, 21, 5);
	map_of(&r, &s, 37, (const int[]){0, 1, -1}, 40);
	size_t len;
	char *text = records_print(&r, "file_05341.anim", "file_05339/0.skeleton",
				   "file_05337.ovl, em040m0.ovl", &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	static const char *const lines[] = {
		"# file_05341.anim: MHP3rd record map (mhfu-clip(5) \"RECORD MAPS\")\n",
		"# rig: file_05339/0.skeleton, 51 bones, body fork 1\n",
		"# monster: em040 (named by file_05337.ovl, em040m0.ovl)\n",
		"with location channels: 0-1\n",
		"\noffset 0                # the fork rule's: the lowest that keeps it\n",
		"\nskip 9 10 16 17 24 31 37 38 42 47 # em040's list\n",
		"\n#      0     0  b000      location\n",
		"\n#      1     1  b001      location, the body fork\n",
		"\n#      9    11  b011\n",
		"\n#     36    45  b045\n",
	};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		if (!strstr(text, lines[i]))
			fail_msg("records.txt lacks \"%s\":\n%s", lines[i], text);
	struct records_setting set;
	assert_int_equal(records_parse(&r, text, len, &set, NULL), MH_OK);
	assert_false(set.offset_set || set.skip_set);
	free(text);

	/* Overridden, it says so, and reads back as the same override. */
	uint32_t skip[] = {3};
	struct records_setting over = {.offset_set = true, .offset = 1, .skip_set = true,
				       .nskip = 1, .skip = skip};
	assert_int_equal(records_override(&r, &over, NULL), MH_OK);
	text = records_print(&r, "m.anim", "m/0.skeleton", NULL, &len);
	assert_non_null(strstr(text, "offset 1                # overridden; the fork rule's is 0\n"));
	assert_non_null(strstr(text, "skip 3                  # overridden; auto gives the "
				     "monster's list\n"));
	assert_non_null(strstr(text, "# monster: em040\n"));
	assert_int_equal(records_parse(&r, text, len, &set, NULL), MH_OK);
	assert_true(records_setting_equal(&set, &r.set));
	records_setting_free(&set);
	free(text);

	/* The override alone, as the record keeps it. */
	text = records_setting_print(&r.set, &len);
	assert_string_equal(text, "offset 1\nskip 3\n");
	assert_int_equal(records_parse(&r, text, len, &set, NULL), MH_OK);
	assert_true(records_setting_equal(&set, &r.set));
	records_setting_free(&set);
	free(text);
	struct records_setting empty_list = {.skip_set = true};
	text = records_setting_print(&empty_list, &len);
	assert_string_equal(text, "skip none\n");
	free(text);
	records_free(&r);
	skeleton_free(&s);
}

static void test_setting_equal(void **state)
{
	(void)state;
	uint32_t a[] = {1, 2}, b[] = {1, 3};
	struct records_setting x = {.offset_set = true, .offset = 2, .skip_set = true,
				    .nskip = 2, .skip = a};
	struct records_setting y = x;
	assert_true(records_setting_equal(&x, &y));
	y.skip = b;
	assert_false(records_setting_equal(&x, &y));
	y = x;
	y.offset = 3;
	assert_false(records_setting_equal(&x, &y));
	y = x;
	y.skip_set = false;
	assert_false(records_setting_equal(&x, &y));
	struct records_setting none = {0}, unset_offset = {.offset = 9};
	assert_true(records_setting_equal(&none, &unset_offset));
	records_setting_free(NULL);
	records_free(NULL);
}

/* ---- clip texts ------------------------------------------------------------- */

/* A slot's text names each record's bone in a comment and still reads
 * back as the same clip. */
static void test_clip_text_names_the_bones(void **state)
{
	(void)state;
	struct skeleton s;
	struct records r;
	struct anim a;
	quadruped(&s, 2, 2, 6, 6, 0);
	pack_of(&a, 3, (const int[]){0, 1, -1});
	assert_int_equal(records_init(&r, &s, &a, 1, NULL), MH_OK);
	size_t len;
	char *text = views_clip_text_mapped(&a, 0, "p.anim", NULL, &r, &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "# p.anim stream 0 slot 1 - joints by records.txt: "
				     "offset 2, 2 bones skipped, runs to frame 0, plays once\n"));
	assert_non_null(strstr(text, "\ntrack 0                 # joint 2 (b002)\n"));
	assert_non_null(strstr(text, "\ntrack 2                 # joint 4 (b004)\n"));
	struct clip back;
	assert_int_equal(clip_parse(text, len, &back, NULL), MH_OK);
	assert_true(clip_equal(&back, &a.clips[0]));
	clip_free(&back);
	free(text);
	records_free(&r);

	/* Without a rig. */
	assert_int_equal(records_init(&r, NULL, &a, 1, NULL), MH_OK);
	text = views_clip_text_mapped(&a, 0, "p.anim", NULL, &r, &len);
	assert_non_null(strstr(text, " - no rig (records.txt), runs"));
	assert_non_null(strstr(text, "\ntrack 1                 # no rig\n"));
	free(text);
	/* Without a map, as before: no comment. */
	text = views_clip_text_mapped(&a, 0, "p.anim", NULL, NULL, &len);
	assert_non_null(strstr(text, "\ntrack 1\n"));
	free(text);
	records_free(&r);
	anim_free(&a);
	skeleton_free(&s);
}

/* ---- the layout ------------------------------------------------------------- */

/* An MWo3 head naming `name` at offset 32. */
static void overlay_head(uint8_t head[RECORDS_OVERLAY_HEAD], const char *name)
{
	memset(head, 0x5a, RECORDS_OVERLAY_HEAD);
	memcpy(head, "MWo3", 4);
	memset(head + RECORDS_OVERLAY_NAME_AT, 0, RECORDS_OVERLAY_HEAD - RECORDS_OVERLAY_NAME_AT);
	memcpy(head + RECORDS_OVERLAY_NAME_AT, name, strlen(name));
}

static void test_overlay_names(void **state)
{
	(void)state;
	uint8_t h[RECORDS_OVERLAY_HEAD];
	char name[40];
	static const struct {
		const char *name;
		int em;
	} cases[] = {
		{"em040m0.ovl", 40}, {"em058m1.ovl", 58}, {"em1m12.ovl", 1},
		{"em040m0.ovlx", -1}, {"em040.ovl", -1}, {"emXm0.ovl", -1}, {"e040m0.ovl", -1},
		{"em0400m0.ovl", -1}, {"", -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		overlay_head(h, cases[i].name);
		if (records_overlay_monster(h, sizeof h, name, sizeof name) != cases[i].em)
			fail_msg("\"%s\" gives the wrong monster", cases[i].name);
		assert_string_equal(name, cases[i].name);
	}
	overlay_head(h, "em040m0.ovl");
	assert_int_equal(records_overlay_monster(h, sizeof h - 1, name, sizeof name), -1);
	h[0] = 'X';
	assert_int_equal(records_overlay_monster(h, sizeof h, name, sizeof name), -1);
	assert_string_equal(name, "");
	/* A name no one could read is not shown. */
	overlay_head(h, "em040\x01m0.ovl");
	assert_int_equal(records_overlay_monster(h, sizeof h, name, sizeof name), -1);
	assert_string_equal(name, "");
}

/* An archive of heads: entry i is heads[i] (NULL: data). */
struct heads {
	const char *names[64]; /* an overlay's name, "" a nameless MWo3 */
	uint32_t count;
	unsigned reads;
};

static long read_head(void *ctx, uint32_t id, uint8_t *buf, size_t len)
{
	struct heads *h = ctx;
	h->reads++;
	if (id >= h->count || len < RECORDS_OVERLAY_HEAD)
		return -1;
	if (h->names[id])
		overlay_head(buf, h->names[id]);
	else
		memset(buf, 0x11, RECORDS_OVERLAY_HEAD);
	return RECORDS_OVERLAY_HEAD;
}

static void test_find_monster(void **state)
{
	(void)state;
	/* em001's group: two overlays, then two asset sets; then em040's
	 * with one; an MWo3 of no such name; a model with nothing before. */
	struct heads h = {.count = 40};
	h.names[10] = "em001m0.ovl";
	h.names[11] = "em001m1.ovl";  /* sets at 12 and 15 */
	h.names[18] = "em040m0.ovl";
	h.names[19] = "em040m1.ovl";  /* set at 20 */
	h.names[25] = "";             /* set at 26 */
	char name[40];
	uint32_t from = 0;
	assert_int_equal(records_find_monster(12, read_head, &h, &from, name, sizeof name), 1);
	assert_int_equal(from, 11);
	assert_string_equal(name, "em001m1.ovl");
	assert_int_equal(records_find_monster(15, read_head, &h, &from, name, sizeof name), 1);
	assert_int_equal(from, 11);
	assert_int_equal(records_find_monster(20, read_head, &h, &from, name, sizeof name), 40);
	assert_int_equal(from, 19);
	from = 99;
	assert_int_equal(records_find_monster(26, read_head, &h, &from, name, sizeof name), -1);
	assert_int_equal(from, 99);
	assert_int_equal(records_find_monster(2, read_head, &h, &from, name, sizeof name), -1);
	assert_int_equal(records_find_monster(0, read_head, &h, &from, name, sizeof name), -1);
	/* The walk stops after RECORDS_WALK_SETS sets. */
	h.reads = 0;
	assert_int_equal(records_find_monster(39 + 3 * 20, read_head, &h, &from, name,
					      sizeof name), -1);
	assert_true(h.reads <= RECORDS_WALK_SETS);
	struct heads far = {.count = 64};
	far.names[0] = "em007m0.ovl";
	assert_int_equal(records_find_monster(1 + 3 * (RECORDS_WALK_SETS - 1), read_head, &far,
					      &from, name, sizeof name), 7);
	assert_int_equal(records_find_monster(1 + 3 * RECORDS_WALK_SETS, read_head, &far, &from,
					      name, sizeof name), -1);
}

/* ---- random rigs ------------------------------------------------------------ */

/* The fork rule by its definition: the lowest offset whose walk (bones
 * upward from it, over r's skip list) puts every moving record at or
 * above the fork; -1 when none does. */
static int32_t fork_offset_by_definition(const struct records *r)
{
	if (r->fork < 0)
		return 0;
	for (uint32_t o = 0; o < r->nbones; o++) {
		uint32_t b = o, k = 0;
		bool keeps = true;
		for (uint32_t i = 0; i < r->nrecords && keeps; i++, b++) {
			while (k < r->nskip && r->skip[k] < b)
				k++;
			while (k < r->nskip && r->skip[k] == b)
				b++, k++;
			keeps = !r->located[i] ||
				(b < r->nbones && records_at_or_above_fork(r, (int32_t)b));
		}
		if (keeps)
			return (int32_t)o;
	}
	return -1;
}

/* r's fork rule offset is the definition's, for its own skip list. */
static void assert_fork_offset(const struct records *r)
{
	int32_t want = fork_offset_by_definition(r);
	if (want < 0) {
		assert_false(r->fork_kept);
		assert_int_equal(r->fork_offset, 0);
	} else {
		assert_true(r->fork_kept);
		assert_int_equal(r->fork_offset, want);
	}
}

/* Random trees (each bone's parent an earlier bone, now and then a root),
 * random packs and monsters: the map ascends, steps over the skip list,
 * keeps the fork rule when it says so, and its text reads back. */
static void test_random_maps(void **state)
{
	(void)state;
	struct rng g = {2026};
	static const int monsters[] = {-1, 1, 7, 16, 22, 40, 41, 47, 58};
	for (int round = 0; round < 300; round++) {
		uint32_t n = rng_range(&g, 1, 60), tracks = rng_range(&g, 0, 70);
		int32_t parent[60];
		for (uint32_t b = 0; b < n; b++)
			parent[b] = b && rng_below(&g, 8) ? (int32_t)rng_below(&g, b) : -1;
		struct skeleton s;
		/* Every other rig a quadruped, whose fork lies deeper. */
		if (round % 2)
			rig_of(&s, parent, n);
		else {
			quadruped(&s, rng_below(&g, 4), rng_range(&g, 0, 8), rng_range(&g, 1, 20),
				  rng_range(&g, 1, 20), rng_below(&g, 8));
			n = s.nbones;
		}
		/* Moving records: scattered, or (as in the games) a few in a
		 * row near the start, now and then one further on. */
		int located[72], nl = 0;
		uint32_t from = rng_below(&g, 3), to = from + rng_below(&g, 4);
		for (uint32_t t = 0; t < tracks; t++)
			if (round % 2 ? rng_below(&g, 6) == 0
				      : (t >= from && t < to) || rng_below(&g, 40) == 0)
				located[nl++] = (int)t;
		located[nl] = -1;
		struct records r;
		map_of(&r, &s, tracks, located, monsters[rng_below(&g, 9)]);
		int32_t last = -1, first;
		for (uint32_t i = 0; i < r.nrecords; i++) {
			int32_t b = r.bone[i];
			if (b < 0) {
				last = INT32_MAX;
				continue;
			}
			assert_true(b > last && (uint32_t)b < n && (uint32_t)b >= r.offset);
			for (uint32_t k = 0; k < r.nskip; k++)
				assert_int_not_equal(r.skip[k], b);
			last = b;
		}
		if (r.fork_kept)
			assert_true(records_fork_kept(&r, &first));
		assert_fork_offset(&r);
		/* A skip list of the user's: the rule's offset follows it. */
		uint32_t skip[128], nskip = 0;
		for (uint32_t b = 0; b < n; b++)
			if (rng_below(&g, 6) == 0)
				skip[nskip++] = b;
		struct records skipped;
		map_of(&skipped, &s, tracks, located, r.monster);
		struct records_setting own = {.skip_set = true, .skip = skip, .nskip = nskip};
		if (records_override(&skipped, &own, NULL) == MH_OK)
			assert_fork_offset(&skipped);
		records_free(&skipped);
		/* Every lower offset breaks the rule. */
		for (uint32_t o = 0; r.fork_kept && o < r.offset; o++) {
			struct records_setting t = {.offset_set = true, .offset = o};
			struct records probe;
			map_of(&probe, &s, tracks, located, r.monster);
			if (records_override(&probe, &t, NULL) == MH_OK)
				assert_false(records_fork_kept(&probe, &first));
			records_free(&probe);
		}
		size_t len;
		char *text = records_print(&r, "x.anim", "x/0.skeleton", NULL, &len);
		struct records_setting back;
		assert_int_equal(records_parse(&r, text, len, &back, NULL), MH_OK);
		assert_true(records_setting_equal(&back, &r.set));
		records_setting_free(&back);
		free(text);
		records_free(&r);
		skeleton_free(&s);
	}
}

/* ---- allocation failures ---------------------------------------------------- */

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct skeleton s;
	struct anim a;
	struct records base;
	quadruped(&s, 2, 2, 12, 12, 2);
	pack_of(&a, 20, (const int[]){0, 1, -1});
	assert_int_equal(records_init(&base, &s, &a, 1, NULL), MH_OK);
	static const char TEXT[] = "offset 3\nskip 9 10 11\n";
	long live = faults_live;
	for (int what = 0; what < 5; what++) {
		for (long k = 0;; k++) {
			struct records r;
			struct records_setting set = {0};
			struct mh_diag d = {0};
			enum mh_err err = MH_OK;
			char *t = NULL;
			bool copied = what == 1 || what == 2;
			if (copied)
				assert_int_equal(records_init(&r, &s, &a, 1, NULL), MH_OK);
			faults_arm(k);
			switch (what) {
			case 0: err = records_init(&r, &s, &a, 1, &d); break;
			case 1: err = records_parse(&r, TEXT, strlen(TEXT), &set, &d);
				if (!err) {
					err = records_override(&r, &set, &d);
					if (err)
						records_setting_free(&set);
				}
				break;
			case 2: t = records_print(&r, "l", "r", "m", NULL); err = t ? 0 : MH_ENOMEM; break;
			case 3: t = records_print(&base, "l", NULL, NULL, NULL); err = t ? 0 : MH_ENOMEM; break;
			default: t = records_setting_print(&base.set, NULL); err = t ? 0 : MH_ENOMEM; break;
			}
			bool fired = faults_disarm();
			records_setting_free(&set);
			free(t);
			if (what == 0 && !err)
				records_free(&r);
			if (copied) {
				if (what == 1 && err)
					assert_int_equal(r.offset, 2); /* as it was */
				records_free(&r);
			}
			if (!fired) {
				assert_int_equal(err, MH_OK);
				assert_int_equal(faults_live, live);
				break;
			}
			assert_int_equal(err, MH_ENOMEM);
			if (what == 0 || what == 1)
				assert_int_equal(d.code, MH_ENOMEM);
			assert_int_equal(faults_live, live);
		}
	}
	records_free(&base);
	anim_free(&a);
	skeleton_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_skip_lists),
		cmocka_unit_test(test_fork_at_1_with_em040s_list),
		cmocka_unit_test(test_fork_at_4_after_a_lead_chain),
		cmocka_unit_test(test_fork_at_3_three_moving_records),
		cmocka_unit_test(test_no_offset_keeps_the_fork_rule),
		cmocka_unit_test(test_a_chain_has_no_fork),
		cmocka_unit_test(test_records_past_the_rig),
		cmocka_unit_test(test_no_rig),
		cmocka_unit_test(test_overrides_move_the_map),
		cmocka_unit_test(test_the_fork_offset_follows_the_skip_list),
		cmocka_unit_test(test_overrides_that_do_not_fit),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_no_rig_refuses_at_the_value),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_setting_equal),
		cmocka_unit_test(test_clip_text_names_the_bones),
		cmocka_unit_test(test_overlay_names),
		cmocka_unit_test(test_find_monster),
		cmocka_unit_test(test_random_maps),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
