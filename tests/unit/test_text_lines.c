/* SPDX-License-Identifier: MIT */
/* Tests of the text locators clip_text_line, skeleton_text_line and
 * anim_text_line, which turn a rule violation's coordinates into the line
 * of the text it names: on printed texts (every element) and on
 * hand-messed ones (exact lines). */
#include "clipgen.h"
#include "rules.h"
#include "tigrex.h"

/* Line n (1-based) of text. */
static const char *line_at(const char *text, unsigned n)
{
	while (--n)
		text = strchr(text, '\n') + 1;
	return text;
}

/* The same text as any parser reads it: every line maybe preceded by a
 * comment or blank line, blanks widened into runs of spaces and tabs, a
 * trailing comment, a CR before the newline.  Malloc'ed. */
static char *mess(struct rng *g, const char *in)
{
	static const char *const NOISE[] = {
		"# track 0\n", "\n", " \t \n", "#channel rot_x\n",
		"   # 0 0 0 0\n", "# stream 0 slots 1\n", "#1 1 -1\n"};
	char *out = malloc(8 * strlen(in) + 64), *o = out;
	assert_non_null(out);
	for (const char *p = in; *p;) {
		if (gen_below(g, 4) == 0)
			o = stpcpy(o, NOISE[gen_below(g, 7)]);
		if (gen_below(g, 3) == 0)
			o = stpcpy(o, gen_below(g, 2) ? "\t" : "  ");
		for (; *p && *p != '\n'; p++) {
			if (*p != ' ') {
				*o++ = *p;
				continue;
			}
			for (uint32_t n = 1 + gen_below(g, 3); n--;)
				*o++ = gen_below(g, 3) ? ' ' : '\t';
		}
		if (gen_below(g, 4) == 0)
			o = stpcpy(o, " # track 7 channel 9");
		if (gen_below(g, 4) == 0)
			*o++ = '\r';
		if (*p == '\n')
			*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/* Line `line` of text is clip element track t (channel j, key k). */
static void assert_clip_line(const char *text, unsigned line,
			     const struct clip *c, uint32_t t, int64_t j,
			     int64_t k)
{
	const char *l = line_at(text, line);
	int n, frame, value;
	char word[32];
	if (j < 0) {
		assert_int_equal(sscanf(l, " track %d", &n), 1);
		assert_int_equal(n, t);
		return;
	}
	const struct clip_channel *ch = &c->tracks[t].channels[j];
	if (k < 0) {
		assert_int_equal(sscanf(l, " channel %31s", word), 1);
		const char *name = clip_channel_name(ch->bit);
		if (name && strcmp(word, name))
			fail_msg("line %u: channel %s, not %s", line, word, name);
		if (!name)
			assert_int_equal(strtoul(word, NULL, 0), ch->bit);
		return;
	}
	assert_int_equal(sscanf(l, "%d %d", &frame, &value), 2);
	assert_int_equal(frame, ch->keys[k].frame);
	assert_int_equal(value, ch->keys[k].value);
}

/* Every element of random clips is found, printed and messed. */
static void test_clip_text_line_random(void **state)
{
	(void)state;
	struct rng g = {99};
	for (int round = 0; round < 200; round++) {
		struct clip c, back;
		gen_clip(&g, round % 2 ? GEN_WILD : GEN_NATIVE_FU,
			 gen_below(&g, 8), 4, &c);
		char *printed = clip_print(&c, "hdr", round % 3 - 1, NULL);
		char *text = round % 4 ? mess(&g, printed) : printed;
		size_t len = strlen(text);
		struct mh_diag d = {0};
		assert_int_equal(clip_parse(text, len, &back, &d), MH_OK);
		assert_true(clip_equal(&c, &back));
		clip_free(&back);
		for (uint32_t t = 0; t < c.ntracks; t++) {
			const struct clip_track *tr = &c.tracks[t];
			assert_clip_line(text, clip_text_line(text, len, (int)t,
							      -1, -1), &c, t, -1, -1);
			for (uint32_t j = 0; j < tr->nchannels; j++) {
				assert_clip_line(text, clip_text_line(text, len,
					(int)t, (int)j, -1), &c, t, j, -1);
				for (uint32_t k = 0; k < tr->channels[j].nkeys; k++)
					assert_clip_line(text, clip_text_line(text,
						len, (int)t, (int)j, (int)k), &c,
						t, j, k);
			}
		}
		if (text != printed)
			free(text);
		free(printed);
		clip_free(&c);
	}
}

/* Messed skeleton.txt and pack.txt still locate every bone and stream. */
static void test_text_lines_messed(void **state)
{
	(void)state;
	struct rng g = {5};
	struct skeleton s, sback;
	struct anim a, aback;
	tigrex_skeleton(&s, TIGREX_BONES);
	tigrex_pack(&a);
	char *sprinted = skeleton_print(&s, "file_06134", NULL);
	char *aprinted = anim_print_shape(&a, NULL);
	for (int round = 0; round < 20; round++) {
		char *text = mess(&g, sprinted);
		size_t len = strlen(text);
		struct mh_diag d = {0};
		assert_int_equal(skeleton_parse(text, len, &sback, &d), MH_OK);
		skeleton_free(&sback);
		for (int i = -1; i < TIGREX_BONES; i++) {
			const char *l = line_at(text, skeleton_text_line(text, len, i));
			int n = -1;
			if (i < 0)
				assert_int_equal(sscanf(l, " params %d", &n), 1);
			else
				assert_int_equal(sscanf(l, "%d", &n), 1);
			assert_int_equal(n, i < 0 ? 0 : i);
		}
		free(text);

		text = mess(&g, aprinted);
		len = strlen(text);
		assert_int_equal(anim_parse_shape(text, len, &aback, &d), MH_OK);
		anim_free(&aback);
		for (int i = 0; i < 6; i++) {
			int n = -1;
			assert_int_equal(sscanf(line_at(text, anim_text_line(text,
				len, i)), " stream %d", &n), 1);
			assert_int_equal(n, i);
		}
		free(text);
	}
	free(sprinted);
	free(aprinted);
	anim_free(&a);
	skeleton_free(&s);
}

static void test_clip_text_line_printed(void **state)
{
	(void)state;
	struct clip c;
	rest_clip(&c, 4);
	empty_track(&c.tracks[2]);
	char *text = clip_print(&c, "file_06185 anim stream 4\nslot 3", 40, NULL);
	size_t len = strlen(text);
	for (uint32_t t = 0; t < c.ntracks; t++) {
		unsigned lt = clip_text_line(text, len, (int)t, -1, -1);
		int n;
		assert_int_equal(sscanf(line_at(text, lt), "track %d", &n), 1);
		assert_int_equal(n, t);
		for (uint32_t j = 0; j < c.tracks[t].nchannels; j++) {
			unsigned lc = clip_text_line(text, len, (int)t, (int)j, -1);
			char name[16];
			assert_true(lc > lt);
			assert_int_equal(sscanf(line_at(text, lc), "channel %15s",
						name), 1);
			assert_string_equal(name, clip_channel_name(
				c.tracks[t].channels[j].bit));
			for (uint32_t k = 0; k < 2; k++) {
				unsigned lk = clip_text_line(text, len, (int)t,
							     (int)j, (int)k);
				const struct clip_key *key =
					&c.tracks[t].channels[j].keys[k];
				int frame, value;
				assert_true(lk > lc);
				assert_int_equal(sscanf(line_at(text, lk), "%d %d",
							&frame, &value), 2);
				assert_int_equal(frame, key->frame);
				assert_int_equal(value, key->value);
			}
			/* No such key: the channel's line. */
			assert_int_equal(clip_text_line(text, len, (int)t,
							(int)j, 2), lc);
		}
		/* No such channel: the track's line. */
		assert_int_equal(clip_text_line(text, len, (int)t, 3, 0), lt);
	}
	assert_int_equal(clip_text_line(text, len, 4, -1, -1), 1);
	assert_int_equal(clip_text_line(text, len, -1, 0, 0), 1);
	free(text);
	clip_free(&c);
}

static void test_clip_text_line_messy(void **state)
{
	(void)state;
	static const char TEXT[] =
		"# track 0 in a comment\n"          /*  1 */
		"\n"                                /*  2 */
		"  loop 1\r\n"                      /*  3 */
		"\tloop_start 0.5   # track\n"      /*  4 */
		"track 0#joint 2\n"                 /*  5 */
		"   # channel rot_x\n"              /*  6 */
		"channel\t0x008\r\n"                /*  7 */
		"+0 -1 0 0\n"                       /*  8 */
		"\n"                                /*  9 */
		"  12   90deg   0   0   # key 1\n"  /* 10 */
		"channel loc_y\n"                   /* 11 */
		"track   1  mask 0x10\n"            /* 12 */
		"track 2\n"                         /* 13 */
		"channel rot_z\n"                   /* 14 */
		"# 5 5 5 5\n"                       /* 15 */
		"-3 4 0 0";                         /* 16, no newline */
	size_t len = strlen(TEXT);
	struct clip c;
	struct mh_diag d = {0};
	assert_int_equal(clip_parse(TEXT, len, &c, &d), MH_OK);
	assert_int_equal(c.ntracks, 3);
	clip_free(&c);
	assert_int_equal(clip_text_line(TEXT, len, 0, -1, -1), 5);
	assert_int_equal(clip_text_line(TEXT, len, 0, 0, -1), 7);
	assert_int_equal(clip_text_line(TEXT, len, 0, 0, 0), 8);
	assert_int_equal(clip_text_line(TEXT, len, 0, 0, 1), 10);
	assert_int_equal(clip_text_line(TEXT, len, 0, 1, -1), 11);
	assert_int_equal(clip_text_line(TEXT, len, 0, 1, 0), 11);
	assert_int_equal(clip_text_line(TEXT, len, 1, -1, -1), 12);
	assert_int_equal(clip_text_line(TEXT, len, 1, 0, 0), 12);
	assert_int_equal(clip_text_line(TEXT, len, 2, 0, 0), 16);
	assert_int_equal(clip_text_line(TEXT, len, 2, 0, 1), 14);
	assert_int_equal(clip_text_line(TEXT, len, 3, 0, 0), 1);
	assert_int_equal(clip_text_line("", 0, 0, 0, 0), 1);
}

static void test_skeleton_text_line(void **state)
{
	(void)state;
	struct skeleton s;
	tigrex_skeleton(&s, TIGREX_BONES);
	size_t len;
	char *text = skeleton_print(&s, "file_06134 entry 0", &len);
	assert_non_null(text);
	for (int i = 0; i < TIGREX_BONES; i++) {
		int n = -1;
		sscanf(line_at(text, skeleton_text_line(text, len, i)), "%d", &n);
		assert_int_equal(n, i);
	}
	assert_true(!strncmp(line_at(text, skeleton_text_line(text, len, -1)),
			     "params 0 45", 11));
	assert_int_equal(skeleton_text_line(text, len, TIGREX_BONES), 1);
	free(text);
	skeleton_free(&s);

	static const char TEXT[] =
		"# 2 bones\n"                                               /* 1 */
		"skeleton mhfu\n"                                           /* 2 */
		"\n"                                                        /* 3 */
		"# 0 1 -1 ...\n"                                            /* 4 */
		"  params 0   2 # animated\r\n"                             /* 5 */
		"000 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n"                  /* 6 */
		"w 0 1 1 1\n"                                               /* 7 */
		"\t0x1 1 0 -1 -1 1 1 1 0 0 0 0 1e1 0 -1 0 - # bone 1\n";    /* 8 */
	struct mh_diag d = {0};
	assert_int_equal(skeleton_parse(TEXT, strlen(TEXT), &s, &d), MH_OK);
	skeleton_free(&s);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), -1), 5);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), 0), 6);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), 1), 8);
	assert_int_equal(skeleton_text_line(TEXT, strlen(TEXT), 2), 1);
}

static void test_anim_text_line(void **state)
{
	(void)state;
	struct anim a;
	tigrex_pack(&a);
	size_t len;
	char *text = anim_print_shape(&a, &len);
	for (int s = 0; s < 6; s++) {
		int n = -1;
		sscanf(line_at(text, anim_text_line(text, len, s)), "stream %d", &n);
		assert_int_equal(n, s);
	}
	assert_int_equal(anim_text_line(text, len, 6), 1);
	assert_int_equal(anim_text_line(text, len, -1), 1);
	free(text);
	anim_free(&a);

	static const char TEXT[] =
		"# stream 0 slots 1\n"          /* 1 */
		"format mhfu\n"                 /* 2 */
		"  stream 0 slots 2 # one\r\n"  /* 3 */
		"filled 0-1\n"                  /* 4 */
		"\n"                            /* 5 */
		"\tstream\t1   slots 0\n"       /* 6 */
		"tail zeros 4\n";               /* 7 */
	struct mh_diag d = {0};
	assert_int_equal(anim_parse_shape(TEXT, strlen(TEXT), &a, &d), MH_OK);
	anim_free(&a);
	assert_int_equal(anim_text_line(TEXT, strlen(TEXT), 0), 3);
	assert_int_equal(anim_text_line(TEXT, strlen(TEXT), 1), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clip_text_line_random),
		cmocka_unit_test(test_text_lines_messed),
		cmocka_unit_test(test_clip_text_line_printed),
		cmocka_unit_test(test_clip_text_line_messy),
		cmocka_unit_test(test_skeleton_text_line),
		cmocka_unit_test(test_anim_text_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
