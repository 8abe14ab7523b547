/* SPDX-License-Identifier: MIT */
/* Fuzz target: port.txt (codecs/port_text.c).
 *
 * Each input is parsed twice: as the whole text, and spliced into
 * port.txt as printed for settings and a result drawn from the input's
 * first bytes (so the parser sees near-valid lines and the defaults'
 * comments).  What parses must print a text that parses back to equal
 * settings and prints the same text again; what fails must say where
 * (line:col) and leave the settings empty.  The result's tables
 * (map.tsv, layout.tsv, check.txt) are printed too, each line ending in
 * a newline.  Any violation abort()s.  Built with clang
 * -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "port.h"

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

static void check_text(char *t, const size_t *lenp)
{
	size_t len = *lenp;
	check(t != NULL && strlen(t) == len && (!len || t[len - 1] == '\n'));
	free(t);
}

/* The input's shape as a port's result: up to 8 joints, up to 8 places. */
static void result_of(const uint8_t *data, size_t size, struct port_result *r,
		      struct port_joint *joints, struct port_place *places)
{
	*r = (struct port_result){.njoints = byte_at(data, size, 0) % 9,
				  .nplaces = byte_at(data, size, 1) % 9, .joints = joints,
				  .places = places};
	for (uint32_t j = 0; j < r->njoints; j++) {
		uint8_t v = byte_at(data, size, 2 + j);
		joints[j] = (struct port_joint){.bone = v % 5 ? v % 40 : PORT_NONE,
						.record = v % 3 ? v % 20 : PORT_NONE,
						.distance = v / 7.0, .depth_gap = v % 5 - 2,
						.why = (enum port_why)(v % 8)};
	}
	for (uint32_t i = 0; i < r->nplaces; i++) {
		uint8_t v = byte_at(data, size, 10 + i);
		places[i] = (struct port_place){.entry = v % 4 ? (int32_t)i : PORT_NONE,
						.clip = v % 3 ? v % 200 : PORT_NONE,
						.frames = v % 90, .loop = v & 1,
						.loop_start = (float)(v % 16) / 4,
						.how = (enum port_how)(v % 9)};
	}
	for (int c = 0; c < PORT_CHECKS; c++)
		r->checks[c] = (struct port_check){.passed = byte_at(data, size, 20 + c) & 1,
						   .level = RULE_ERROR};
}

/* Parses text; an accepted one prints to a fixed point. */
static void parse_path(const char *text, size_t len, const struct port_result *r)
{
	struct port_settings s = {.lift_set = true}, back;
	struct mh_diag d = {0};
	enum mh_err err = port_settings_parse(text, len, &s, &d);
	if (err) {
		check(d.code == err && d.msg[0] && d.line >= 1 && d.col >= 1);
		check(!s.lift_set && !s.pins && !s.maps && !s.npins && !s.nmaps);
		return;
	}
	size_t plen, plen2;
	char *p = port_settings_print(&s, r, "host", "donor", &plen);
	check(p != NULL && strlen(p) == plen);
	check(port_settings_parse(p, plen, &back, &d) == MH_OK);
	check(port_settings_equal(&back, &s));
	char *p2 = port_settings_print(&back, r, "host", "donor", &plen2);
	check(p2 != NULL && plen2 == plen && !memcmp(p, p2, plen));
	free(p2);
	free(p);
	port_settings_free(&back);
	port_settings_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct port_joint joints[8];
	struct port_place places[8];
	struct port_result r;
	result_of(data, size, &r, joints, places);
	parse_path((const char *)data, size, byte_at(data, size, 30) & 1 ? &r : NULL);

	/* Settings of the input's shape, printed, the input spliced in. */
	struct port_pin pins[2] = {{byte_at(data, size, 3), 7, 0, 0}, {300, byte_at(data, size, 4), 0, 0}};
	struct port_map_line maps[2] = {{1, PORT_NONE, 0, 0}, {byte_at(data, size, 5) + 2u, 3, 0, 0}};
	struct port_settings s = {.mode = PORT_MODE_HOST, .lift_set = byte_at(data, size, 6) & 1,
				  .lift = (byte_at(data, size, 7) - 128) / 8.0,
				  .npins = byte_at(data, size, 8) % 3, .pins = pins,
				  .nmaps = byte_at(data, size, 9) % 3, .maps = maps};
	size_t tlen;
	char *t = port_settings_print(&s, &r, "host", NULL, &tlen);
	check(t != NULL);
	if (size >= 2) {
		size_t at = ((size_t)data[0] << 8 | data[1]) % (tlen + 1);
		size_t n = size - 2 < 32 ? size - 2 : 32;
		char *spliced = malloc(tlen + n + 1);
		check(spliced != NULL);
		memcpy(spliced, t, at);
		memcpy(spliced + at, data + 2, n);
		size_t keep = data[1] & 1 ? at : (at + n < tlen ? at + n : tlen);
		memcpy(spliced + at + n, t + keep, tlen - keep);
		parse_path(spliced, at + n + tlen - keep, &r);
		free(spliced);
	}
	free(t);

	size_t len; /* set by the call, read by check_text after it */
	check_text(port_map_tsv(&r, &len), &len);
	check_text(port_layout_tsv(&r, &len), &len);
	check_text(port_check_text(&r, &len), &len);
	return 0;
}
