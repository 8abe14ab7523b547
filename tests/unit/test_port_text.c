/* SPDX-License-Identifier: MIT */
/* Tests of codecs/port_text (a port's texts, mhfu-clip(5) "PORT FILES"):
 * port.txt parsed in every form and refused at line:col with what was
 * expected; printed, it parses back to the same settings and prints the
 * same text again, and a default uncommented sets it; map.tsv,
 * layout.tsv and check.txt printed exactly for a result made by hand. */
#include "testlib.h"

#include "port.h"
#include "rules.h"

static void parse_ok(const char *text, struct port_settings *s)
{
	struct mh_diag d = {0};
	enum mh_err err = port_settings_parse(text, strlen(text), s, &d);
	if (err)
		fail_msg("refused at %u:%u: %s", d.line, d.col, d.msg);
}

static void assert_refused(const char *text, size_t len, enum mh_err code, unsigned line,
			   unsigned col, const char *says)
{
	struct port_settings s;
	struct mh_diag d = {0};
	assert_text_diag(&d, port_settings_parse(text, len, &s, &d), code, line, col);
	assert_diag_says(&d, says);
	assert_false(s.lift_set);
	assert_false(s.skin_set);
	assert_int_equal(s.mode, PORT_MODE_HOST);
	assert_int_equal(s.npins, 0);
	assert_null(s.pins);
	assert_int_equal(s.nmaps, 0);
	assert_null(s.maps);
}

#define REFUSED(text, code, line, col, says) \
	assert_refused(text, sizeof text - 1, code, line, col, says)

/* ---- parsing ---------------------------------------------------------------- */

/* No port.txt kept yet: the mount parses nothing, a NULL text. */
static void test_parse_nothing(void **state)
{
	(void)state;
	struct port_settings s;
	struct mh_diag d = {0};
	assert_int_equal(port_settings_parse(NULL, 0, &s, &d), MH_OK);
	assert_false(s.lift_set);
	assert_int_equal(s.npins + s.nmaps, 0);
	port_settings_free(&s);
}

static void test_parse_every_form(void **state)
{
	(void)state;
	struct port_settings s;
	parse_ok("# a comment\n"
		 "\n"
		 "mode host\n"
		 "\tlift\t-1.5   # a comment after the value\n"
		 "pin 3 7\n"
		 "pin  105\t2\n"
		 "   map 0 5\n"
		 "map 1 -\n"
		 "map 0x10 +2\n", &s);
	assert_int_equal(s.mode, PORT_MODE_HOST);
	assert_true(s.lift_set);
	assert_true(s.lift == -1.5);
	assert_int_equal(s.lift_line, 4);
	assert_int_equal(s.lift_col, 7);
	assert_int_equal(s.npins, 2);
	assert_int_equal(s.pins[0].clip, 3);
	assert_int_equal(s.pins[0].entry, 7);
	assert_int_equal(s.pins[0].line, 5);
	assert_int_equal(s.pins[0].col, 5);
	assert_int_equal(s.pins[1].clip, 105);
	assert_int_equal(s.pins[1].entry, 2);
	assert_int_equal(s.pins[1].line, 6);
	assert_int_equal(s.pins[1].col, 6);
	assert_int_equal(s.nmaps, 3);
	assert_int_equal(s.maps[0].joint, 0);
	assert_int_equal(s.maps[0].bone, 5);
	assert_int_equal(s.maps[0].line, 7);
	assert_int_equal(s.maps[0].col, 8);
	assert_int_equal(s.maps[1].joint, 1);
	assert_int_equal(s.maps[1].bone, PORT_NONE);
	assert_int_equal(s.maps[2].joint, 16);
	assert_int_equal(s.maps[2].bone, 2);
	port_settings_free(&s);
	assert_null(s.pins);

	/* Mode own and a skin, in any order; skin's place is kept for
	 * port_settings_check (mode host refuses it). */
	parse_ok("skin transfer\n\nmode own # the donor's rig\n", &s);
	assert_int_equal(s.mode, PORT_MODE_OWN);
	assert_true(s.skin_set);
	assert_int_equal(s.skin, PORT_SKIN_TRANSFER);
	assert_int_equal(s.skin_line, 1);
	assert_int_equal(s.skin_col, 1);
	port_settings_free(&s);
	assert_int_equal(s.mode, PORT_MODE_HOST);
	assert_false(s.skin_set);
	parse_ok("mode host\n  skin source", &s);
	assert_int_equal(s.mode, PORT_MODE_HOST);
	assert_int_equal(s.skin, PORT_SKIN_SOURCE);
	assert_int_equal(s.skin_col, 3);
	port_settings_free(&s);

	/* Nothing at all: host mode, nothing set. */
	parse_ok("", &s);
	assert_int_equal(s.mode, PORT_MODE_HOST);
	assert_false(s.skin_set);
	assert_false(s.lift_set);
	assert_int_equal(s.npins + s.nmaps, 0);
	port_settings_free(&s);

	/* Lifts: whole, signed, "-0" as 0. */
	parse_ok("lift +2.50\n", &s);
	assert_true(s.lift == 2.5);
	port_settings_free(&s);
	parse_ok("lift -0", &s);
	assert_true(s.lift == 0);
	port_settings_free(&s);
	parse_ok("lift 300", &s);
	assert_true(s.lift == 300);
	port_settings_free(&s);
}

static void test_parse_errors(void **state)
{
	(void)state;
	REFUSED("mode\n", MH_ESYNTAX, 1, 5, "expected a mode: host or own");
	REFUSED("mode guest\n", MH_ESYNTAX, 1, 6,
		"expected a mode: host (the host's rig) or own (the donor's), got \"guest\"");
	REFUSED("mode host\n# again\nmode host\n", MH_ESYNTAX, 3, 1, "mode given twice");
	REFUSED("mode own\nmode host\n", MH_ESYNTAX, 2, 1, "mode given twice (first on line 1)");
	REFUSED("skin\n", MH_ESYNTAX, 1, 5, "expected a skin: source or transfer");
	REFUSED("skin own\n", MH_ESYNTAX, 1, 6, "expected a skin: source (the donor's weights)");
	REFUSED("skin source\n\n skin transfer\n", MH_ESYNTAX, 3, 2,
		"skin given twice (first on line 1)");
	REFUSED("skin source source\n", MH_ESYNTAX, 1, 13, "unexpected \"source\"");
	REFUSED("mode host host\n", MH_ESYNTAX, 1, 11, "unexpected \"host\"");
	REFUSED("lift\n", MH_ESYNTAX, 1, 5, "expected a lift");
	REFUSED("lift x\n", MH_ESYNTAX, 1, 6, "expected a decimal number");
	REFUSED("lift 1e3\n", MH_ESYNTAX, 1, 6, "expected a decimal number");
	REFUSED("lift 1.\n", MH_ESYNTAX, 1, 6, "expected a decimal number");
	REFUSED("lift .5\n", MH_ESYNTAX, 1, 6, "expected a decimal number");
	REFUSED("lift 0x10\n", MH_ESYNTAX, 1, 6, "expected a decimal number");
	REFUSED("lift 1\n lift 2\n", MH_ESYNTAX, 2, 2, "lift given twice (first on line 1)");
	REFUSED("pin\n", MH_ESYNTAX, 1, 4, "expected a donor clip id");
	REFUSED("pin 1\n", MH_ESYNTAX, 1, 6, "expected an entry");
	REFUSED("pin x 1\n", MH_ESYNTAX, 1, 5, "expected an integer");
	REFUSED("pin -1 2\n", MH_ERANGE, 1, 5, "outside 0..4294967295");
	REFUSED("pin 1 4294967296\n", MH_ERANGE, 1, 7, "outside 0..4294967295");
	REFUSED("pin 1 2 3\n", MH_ESYNTAX, 1, 9, "unexpected \"3\"");
	REFUSED("pin 1 2\npin 1 3\n", MH_ESYNTAX, 2, 5, "clip 1 is pinned twice (first on line 1)");
	REFUSED("pin 1 2\npin 4 2\n", MH_ESYNTAX, 2, 7, "entry 2 is pinned twice");
	REFUSED("map\n", MH_ESYNTAX, 1, 4, "expected a host joint");
	REFUSED("map 1\n", MH_ESYNTAX, 1, 6, "expected a donor bone, or - for none");
	REFUSED("map 1 x\n", MH_ESYNTAX, 1, 7, "expected an integer");
	REFUSED("map 1 2147483648\n", MH_ERANGE, 1, 7, "outside 0..2147483647");
	REFUSED("map 1 2\nmap 0 -\n\nmap 1 -\n", MH_ESYNTAX, 4, 5,
		"joint 1 is mapped twice (first on line 1)");
	REFUSED("map 1 - -\n", MH_ESYNTAX, 1, 9, "unexpected \"-\"");
	REFUSED("bogus 1\n", MH_ESYNTAX, 1, 1, "expected mode, skin, lift, pin or map, got \"bogus\"");
	REFUSED("map 1 2 # \0\n", MH_ESYNTAX, 1, 11, "NUL byte");
	REFUSED("pin 1 "
		"12345678901234567890123456789012345678901234567890123456789012345\n",
		MH_ESYNTAX, 1, 7, "longer than 64");
	/* A later line's error empties what earlier lines set. */
	REFUSED("lift 2\npin 1 2\nmap 3 4\nmap 3 5\n", MH_ESYNTAX, 4, 5, "mapped twice");
}

/* ---- a result by hand ------------------------------------------------------- */

static struct port_joint JOINTS[] = {
	{.bone = 5, .record = 2, .distance = 12.34, .depth_gap = -1, .why = PORT_WHY_NEAREST},
	{.bone = PORT_NONE, .record = PORT_NONE, .why = PORT_WHY_TOO_FAR},
	{.bone = 0, .record = PORT_NONE, .distance = 0.05, .depth_gap = 0,
	 .why = PORT_WHY_NO_RECORD},
	{.bone = 7, .record = 4, .distance = 3, .depth_gap = 2, .why = PORT_WHY_SET},
};

static struct port_place PLACES[] = {
	{.entry = 0, .clip = 0, .frames = 60, .loop = true, .loop_start = 9, .how = PORT_HOW_OWN},
	{.entry = 1, .clip = PORT_NONE, .frames = 30, .how = PORT_HOW_HOST},
	{.entry = 2, .clip = 105, .frames = 45, .how = PORT_HOW_PINNED},
	{.entry = 3, .clip = PORT_NONE, .frames = PORT_NONE, .how = PORT_HOW_EMPTY},
	{.entry = PORT_NONE, .clip = 201, .frames = 12, .loop = true, .loop_start = 0.5f,
	 .how = PORT_HOW_UNPLACED},
};

static struct port_result result_by_hand(void)
{
	struct port_result r = {.njoints = 4, .joints = JOINTS, .hip = 0, .pelvis = 0,
				.capacity = 4, .nplaces = 5, .places = PLACES};
	for (int c = 0; c < PORT_CHECKS; c++) {
		r.checks[c].passed = true;
		r.checks[c].level = RULE_ERROR;
	}
	snprintf(r.checks[PORT_CHECK_SPAN].figure, sizeof r.checks[0].figure,
		 "4 joints keyed over 3 clips");
	r.checks[PORT_CHECK_SIZE].level = RULE_WARNING;
	/* Mode host: the checks of a whole port are not made. */
	for (int c = PORT_CHECK_STILL; c <= PORT_CHECK_TEMPLATE; c++)
		r.checks[c].skipped = true;
	return r;
}

static void test_map_tsv(void **state)
{
	(void)state;
	struct port_result r = result_by_hand();
	size_t len;
	char *t = port_map_tsv(&r, &len);
	assert_string_equal(t, "# joint\tdonor_bone\trecord\tdistance\tdepth_gap\twhy\n"
			       "0\t5\t2\t12.3\t-1\tnearest\n"
			       "1\t-\t-\t-\t-\ttoo-far\n"
			       "2\t0\t-\t0.1\t0\tno-record\n"
			       "3\t7\t4\t3.0\t2\tset\n");
	assert_int_equal(len, strlen(t));
	free(t);
}

static void test_layout_tsv(void **state)
{
	(void)state;
	struct port_result r = result_by_hand();
	size_t len;
	char *t = port_layout_tsv(&r, &len);
	assert_string_equal(t, "# entry\tclip\tframes\tloop\thow\n"
			       "0\t0\t60\t9\town\n"
			       "1\t-\t30\t-\thost\n"
			       "2\t105\t45\t-\tpinned\n"
			       "3\t-\t-\t-\tempty\n"
			       "-\t201\t12\t0.5\tunplaced\n");
	assert_int_equal(len, strlen(t));
	free(t);
}

static void test_check_text(void **state)
{
	(void)state;
	struct port_result r = result_by_hand();
	uint8_t pac[40];
	size_t len;
	char *t = port_check_text(&r, &len);
	assert_string_equal(t, "rules ok\nspan ok: 4 joints keyed over 3 clips\nscale ok\n"
			       "placed ok\nhip ok\nfork ok\nsize ok\n"
			       "out.pac: absent: the checks above failed\n");
	free(t);

	/* Mode own: they are, each its line. */
	r.checks[PORT_CHECK_TEAR].skipped = false;
	r.checks[PORT_CHECK_TEAR].passed = false;
	snprintf(r.checks[PORT_CHECK_TEAR].figure, sizeof r.checks[0].figure,
		 "worst edge growth 208.0 units");
	t = port_check_text(&r, &len);
	assert_non_null(strstr(t, "size ok\ntear error: worst edge growth 208.0 units\nout.pac"));
	free(t);
	r.checks[PORT_CHECK_TEAR].skipped = true;

	r.pac = pac;
	r.pac_len = sizeof pac;
	r.checks[PORT_CHECK_SIZE].passed = false;
	snprintf(r.checks[PORT_CHECK_SIZE].figure, sizeof r.checks[0].figure,
		 "out.pac 40 bytes, the host's 32");
	r.checks[PORT_CHECK_RULES].passed = false;
	r.checks[PORT_CHECK_RULES].level = RULE_ERROR;
	struct rule_violation v[2] = {
		{.code = RULE_FRAME_ORDER, .level = RULE_ERROR, .member = "3.anim",
		 .msg = "stream 0 slot 1 track 2: frame 5 after 9"},
		{.code = RULE_EMPTY_CHANNEL, .level = RULE_WARNING, .msg = "stream 1 slot 0"},
	};
	r.rules = (struct rule_report){.v = v, .n = 2, .cap = 2};
	t = port_check_text(&r, &len);
	assert_string_equal(t, "rules error\nspan ok: 4 joints keyed over 3 clips\nscale ok\n"
			       "placed ok\nhip ok\nfork ok\n"
			       "size warning: out.pac 40 bytes, the host's 32\n"
			       "FRAME_ORDER error: 3.anim: stream 0 slot 1 track 2: frame 5 after 9\n"
			       "EMPTY_CHANNEL warning: stream 1 slot 0\n"
			       "out.pac: made (40 bytes)\n");
	assert_int_equal(len, strlen(t));
	free(t);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(port_check_name(PORT_CHECK_FORK), "fork");
	assert_string_equal(port_check_name(PORT_CHECKS), "?");
	assert_string_equal(port_why_name(PORT_WHY_NOT_ANIMATED), "not-animated");
	assert_string_equal(port_why_name(PORT_WHY_ORIGIN), "origin");
	assert_string_equal(port_how_name(PORT_HOW_FREE_HOST), "free-host");
	assert_string_equal(port_how_name(PORT_HOW_MOVED), "moved");
	/* Every name differs from the others of its kind. */
	for (int a = 0; a <= PORT_HOW_UNPLACED; a++)
		for (int b = a + 1; b <= PORT_HOW_UNPLACED; b++)
			assert_string_not_equal(port_how_name(a), port_how_name(b));
	assert_string_equal(port_why_name(PORT_WHY_PAD), "pad");
	assert_string_equal(port_why_name(PORT_WHY_OWN), "own");
	assert_string_equal(port_skin_name(PORT_SKIN_SOURCE), "source");
	assert_string_equal(port_skin_name(PORT_SKIN_TRANSFER), "transfer");
	for (int a = 0; a <= PORT_WHY_LAST; a++)
		for (int b = a + 1; b <= PORT_WHY_LAST; b++)
			assert_string_not_equal(port_why_name(a), port_why_name(b));
}

/* ---- port.txt printed ------------------------------------------------------- */

/* print -> parse gives s; printed again, the same text. */
static char *assert_fixed_point(const struct port_settings *s, const struct port_result *r)
{
	size_t len, len2;
	char *t = port_settings_print(s, r, "file_06185 (tigrex)", "donor.pac", &len);
	assert_non_null(t);
	assert_int_equal(len, strlen(t));
	struct port_settings back;
	struct mh_diag d = {0};
	if (port_settings_parse(t, len, &back, &d))
		fail_msg("printed text refused at %u:%u: %s\n%s", d.line, d.col, d.msg, t);
	assert_true(port_settings_equal(&back, s));
	char *t2 = port_settings_print(&back, r, "file_06185 (tigrex)", "donor.pac", &len2);
	assert_string_equal(t2, t);
	free(t2);
	port_settings_free(&back);
	return t;
}

static void test_print_exact(void **state)
{
	(void)state;
	struct port_result r = result_by_hand();
	struct port_settings s;
	parse_ok("pin   105 2  # the roar\nmode host\nmap 3 7\nlift -0.25\n", &s);
	char *t = assert_fixed_point(&s, &r);
	assert_string_equal(t,
		"# port.txt: host file_06185 (tigrex), donor donor.pac\n"
		"# The port's settings (mhfu-clip(5) \"PORT FILES\"); the lines after the settings\n"
		"# are the computed defaults: uncomment one to set it.\n"
		"lift -0.25\n"
		"pin 105 2\n"
		"map 3 7\n"
		"#\n"
		"# computed defaults (those not set above)\n"
		"# mode host\n"
		"# map 0 5\n"
		"# map 1 -\n"
		"# map 2 0\n"
		"# pin 0 0\n");
	free(t);
	port_settings_free(&s);

	/* No donor yet, labels with a newline. */
	struct port_settings none = {.mode = PORT_MODE_HOST};
	size_t len;
	t = port_settings_print(&none, NULL, "a\nb", NULL, &len);
	assert_string_equal(t,
		"# port.txt: host a?b, donor none yet\n"
		"# The port's settings (mhfu-clip(5) \"PORT FILES\"); the lines after the settings\n"
		"# are the computed defaults: uncomment one to set it.\n"
		"#\n"
		"# computed defaults (those not set above)\n"
		"# mode host\n"
		"# lift 0\n"
		"# (map and pin: none until a donor is given)\n");
	free(t);
}

/* Mode own is printed as set; the skin's default shows in its place of
 * `# mode host`, and the map defaults are r's joints (the own rig's). */
static void test_print_own(void **state)
{
	(void)state;
	struct port_result r = result_by_hand();
	struct port_settings s;
	parse_ok("mode own\nmap 2 -\n", &s);
	char *t = assert_fixed_point(&s, &r);
	assert_string_equal(t,
		"# port.txt: host file_06185 (tigrex), donor donor.pac\n"
		"# The port's settings (mhfu-clip(5) \"PORT FILES\"); the lines after the settings\n"
		"# are the computed defaults: uncomment one to set it.\n"
		"mode own\n"
		"map 2 -\n"
		"#\n"
		"# computed defaults (those not set above)\n"
		"# skin source\n"
		"# lift 0\n"
		"# map 0 5\n"
		"# map 1 -\n"
		"# map 3 7\n"
		"# pin 0 0\n"
		"# pin 105 2\n");
	/* Uncommenting the skin sets it. */
	char *at = strstr(t, "# skin source\n");
	assert_non_null(at);
	at[0] = ' ';
	struct port_settings back;
	parse_ok(t, &back);
	assert_true(back.skin_set);
	assert_int_equal(back.skin, PORT_SKIN_SOURCE);
	assert_false(port_settings_equal(&back, &s));
	char *again = assert_fixed_point(&back, &r);
	assert_non_null(strstr(again, "\nmode own\nskin source\nmap 2 -\n"));
	assert_null(strstr(again, "# skin"));
	assert_null(strstr(again, "# mode"));
	free(again);
	port_settings_free(&back);
	free(t);
	port_settings_free(&s);
	/* A skin under mode host prints back as written (check refuses it). */
	parse_ok("skin transfer\n", &s);
	t = assert_fixed_point(&s, NULL);
	assert_non_null(strstr(t, "\nskin transfer\n"));
	assert_non_null(strstr(t, "\n# mode host\n"));
	free(t);
	port_settings_free(&s);
}

/* Lifts print in the fewest decimals that read back exactly. */
static void test_print_lifts(void **state)
{
	(void)state;
	static const char *const LIFTS[][2] = {
		{"0.1", "lift 0.1\n"}, {"-3", "lift -3\n"}, {"+2.50", "lift 2.5\n"},
		{"-0.0", "lift 0\n"}, {"0.0625", "lift 0.0625\n"},
		{"123456789.123456789", "lift 123456789.12345679\n"},
		{"0.000000000000000000000000000001", "lift 0.000000000000000000000000000001\n"},
	};
	for (size_t i = 0; i < sizeof LIFTS / sizeof *LIFTS; i++) {
		char text[96];
		snprintf(text, sizeof text, "lift %s\n", LIFTS[i][0]);
		struct port_settings s;
		parse_ok(text, &s);
		char *t = assert_fixed_point(&s, NULL);
		if (!strstr(t, LIFTS[i][1]))
			fail_msg("lift %s printed as:\n%s", LIFTS[i][0], t);
		free(t);
		port_settings_free(&s);
	}
}

/* A default uncommented is a setting; the rest of the text unchanged. */
static void test_uncomment_default(void **state)
{
	(void)state;
	struct port_result r = result_by_hand();
	struct port_settings s = {.mode = PORT_MODE_HOST};
	size_t len;
	char *t = port_settings_print(&s, &r, "host", "donor", &len);
	static const char *const LINES[] = {"# map 1 -\n", "# pin 0 0\n", "# lift 0\n",
					    "# mode host\n"};
	for (size_t i = 0; i < sizeof LINES / sizeof *LINES; i++) {
		char *at = strstr(t, LINES[i]);
		assert_non_null(at);
		at[0] = ' '; /* "# map 1 -" -> "  map 1 -" */
	}
	struct port_settings back;
	parse_ok(t, &back);
	assert_true(back.lift_set);
	assert_true(back.lift == 0);
	assert_int_equal(back.nmaps, 1);
	assert_int_equal(back.maps[0].joint, 1);
	assert_int_equal(back.maps[0].bone, PORT_NONE);
	assert_int_equal(back.npins, 1);
	assert_int_equal(back.pins[0].clip, 0);
	assert_int_equal(back.pins[0].entry, 0);
	/* Printed again, the set ones leave the defaults. */
	char *again = assert_fixed_point(&back, &r);
	assert_null(strstr(again, "# map 1 -"));
	assert_null(strstr(again, "# pin 0 0"));
	assert_null(strstr(again, "# lift 0"));
	assert_non_null(strstr(again, "\nmap 1 -\n"));
	free(again);
	port_settings_free(&back);
	free(t);
}

static void test_settings_equal(void **state)
{
	(void)state;
	struct port_settings a, b;
	parse_ok("map 1 2\npin 3 4\n", &a);
	parse_ok("\n\n  pin 3 4\nmap 1 2 # elsewhere\n", &b);
	assert_true(port_settings_equal(&a, &b)); /* where they are written does not count */
	port_settings_free(&b);
	parse_ok("map 1 3\npin 3 4\n", &b);
	assert_false(port_settings_equal(&a, &b));
	port_settings_free(&b);
	parse_ok("map 1 2\npin 3 4\nlift 0\n", &b);
	assert_false(port_settings_equal(&a, &b));
	port_settings_free(&b);
	parse_ok("map 1 2\npin 3 5\n", &b);
	assert_false(port_settings_equal(&a, &b));
	port_settings_free(&b);
	parse_ok("map 1 2\npin 3 4\nmode own\n", &b);
	assert_false(port_settings_equal(&a, &b));
	port_settings_free(&b);
	parse_ok("map 1 2\npin 3 4\nmode host\n", &b);
	assert_true(port_settings_equal(&a, &b)); /* the default, written */
	port_settings_free(&b);
	parse_ok("map 1 2\npin 3 4\nskin source\n", &b);
	assert_false(port_settings_equal(&a, &b)); /* set differs from unset */
	port_settings_free(&b);
	port_settings_free(&a);
	parse_ok("skin source\n", &a);
	parse_ok("skin transfer\n", &b);
	assert_false(port_settings_equal(&a, &b));
	port_settings_free(&b);
	port_settings_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_nothing),
		cmocka_unit_test(test_parse_every_form),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_map_tsv),
		cmocka_unit_test(test_layout_tsv),
		cmocka_unit_test(test_check_text),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_print_exact),
		cmocka_unit_test(test_print_own),
		cmocka_unit_test(test_print_lifts),
		cmocka_unit_test(test_uncomment_default),
		cmocka_unit_test(test_settings_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
