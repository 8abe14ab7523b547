/* SPDX-License-Identifier: MIT */
/* Tests of codecs/pacpath (members of nested PACs: walk, splice, rig).
 *
 * A hand-laid chain of three PACs, each at its own alignment (16, 8, 4)
 * and with its own tail, is walked and spliced at depths 1 to 3; the
 * spliced bytes are checked table word by table word against the layout
 * mhfu-archive(5) "PAC" gives, computed here from the original's
 * alignment, and every member off the path must keep its bytes.  The
 * same check runs on every member, down to three levels, of every PAC of
 * the sample archive ($MHFU_SAMPLE, see tests/unit/test_sample.c), where
 * splicing a member's own bytes back must reproduce the entry exactly.
 * Walking a bad path fails with the byte offset of the PAC at fault; and
 * every allocation of each function is failed in turn. */
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

#include "bytes.h"
#include "faults.h"
#include "kind.h"
#include "pac.h"
#include "pacpath.h"

/* ---- fixtures ---------------------------------------------------------- */

static void encode_ok(const struct pac_blob *b, uint32_t count, uint32_t align,
		      const char *tail, uint8_t **out, size_t *len)
{
	struct mh_diag d = {0};
	if (pac_encode(b, count, align, (const uint8_t *)tail, strlen(tail), out, len, &d))
		fail_msg("pac_encode: %s", d.msg);
}

/* The chain: OUTER (alignment 16, tail "OUTER-TAIL") holds MIDDLE at 0
 * and "Q" at 1; MIDDLE (alignment 8, tail "mid") holds "xyz" at 0 and
 * INNER at 1; INNER (alignment 4, tail "T1") holds "abcde" at 0, an
 * empty member at 1 and "fghijk" at 2.  Member sizes are chosen so that
 * no PAC would lay out alike at a larger alignment. */
struct chain {
	uint8_t *inner, *middle, *outer;
	size_t inner_len, middle_len, outer_len;
};

static void chain_build(struct chain *c)
{
	const struct pac_blob in[] = {{(const uint8_t *)"abcde", 5}, {NULL, 0},
				      {(const uint8_t *)"fghijk", 6}};
	encode_ok(in, 3, 4, "T1", &c->inner, &c->inner_len);
	const struct pac_blob mid[] = {{(const uint8_t *)"xyz", 3},
				       {c->inner, (uint32_t)c->inner_len}};
	encode_ok(mid, 2, 8, "mid", &c->middle, &c->middle_len);
	const struct pac_blob out[] = {{c->middle, (uint32_t)c->middle_len},
				       {(const uint8_t *)"Q", 1}};
	encode_ok(out, 2, 16, "OUTER-TAIL", &c->outer, &c->outer_len);
}

static void chain_free(struct chain *c)
{
	free(c->inner);
	free(c->middle);
	free(c->outer);
}

static void decode_ok(const uint8_t *b, size_t len, struct pac *pac)
{
	struct mh_diag d = {0};
	if (pac_decode(b, len, pac, &d))
		fail_msg("pac_decode: %s at %llu", d.msg, (unsigned long long)d.offset);
}

/* ---- the check of a splice --------------------------------------------- */

/* `got` must be `old` with the member at path[level..depth) replaced by
 * member[0..member_len): same count and tail, every member off the path
 * byte-identical, the member on it checked one level down, and the table
 * exactly the packed layout at the old PAC's alignment (computed here,
 * not by pac_encode).  Returns the PACs checked. */
static unsigned check_splice(const uint8_t *old, size_t old_len, const uint8_t *got,
			     size_t got_len, const uint16_t *path, unsigned depth,
			     unsigned level, const uint8_t *member, size_t member_len)
{
	if (level == depth) {
		assert_int_equal(got_len, member_len);
		if (member_len)
			assert_memory_equal(got, member, member_len);
		return 0;
	}
	struct pac was, now;
	decode_ok(old, old_len, &was);
	decode_ok(got, got_len, &now);
	assert_int_equal(now.count, was.count);
	assert_int_equal(le32(got), was.count);
	uint64_t end = 4 + 8 * (uint64_t)was.count;
	unsigned checked = 1;
	for (uint32_t i = 0; i < was.count; i++) {
		uint32_t off = le32(got + 4 + 8 * i), size = le32(got + 8 + 8 * i);
		if (i == path[level]) {
			checked += check_splice(old + was.entries[i].offset,
						was.entries[i].size, got + off, size,
						path, depth, level + 1, member, member_len);
		} else {
			assert_int_equal(size, was.entries[i].size);
			assert_memory_equal(got + off, old + was.entries[i].offset, size);
		}
		if (!size) {
			assert_int_equal(off, 0);
			continue;
		}
		assert_int_equal(off, align_up(end, was.align));
		for (uint64_t gap = end; gap < off; gap++)
			assert_int_equal(got[gap], 0);
		end = off + (uint64_t)size;
	}
	/* The tail follows the last member, as it was. */
	assert_int_equal(now.tail, end);
	assert_int_equal(got_len - end, old_len - was.tail);
	assert_memory_equal(got + end, old + was.tail, old_len - was.tail);
	pac_free(&was);
	pac_free(&now);
	return checked;
}

static void splice_ok(const uint8_t *buf, size_t len, const uint16_t *path,
		      unsigned depth, const uint8_t *member, size_t member_len,
		      uint8_t **out, size_t *out_len)
{
	struct mh_diag d = {0};
	enum mh_err err = pacpath_splice(buf, len, path, depth, member, member_len,
					 out, out_len, &d);
	if (err)
		fail_msg("pacpath_splice: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

/* ---- the hand-laid chain ------------------------------------------------ */

static void test_chain_is_laid_as_intended(void **state)
{
	(void)state;
	struct chain c;
	chain_build(&c);
	/* INNER: header 28 bytes; "abcde" at 28, "fghijk" at 32 rounded to
	 * 4 = 36, tail "T1" at 42. */
	assert_int_equal(c.inner_len, 44);
	assert_int_equal(le32(c.inner + 4), 28);
	assert_int_equal(le32(c.inner + 20), 36);
	assert_memory_equal(c.inner + 42, "T1", 2);
	/* MIDDLE: header 20; "xyz" at 24, INNER at 32, "mid" at 76. */
	assert_int_equal(c.middle_len, 79);
	assert_int_equal(le32(c.middle + 4), 24);
	assert_int_equal(le32(c.middle + 12), 32);
	/* OUTER: MIDDLE at 32, "Q" at 112, "OUTER-TAIL" at 113. */
	assert_int_equal(c.outer_len, 123);
	assert_int_equal(le32(c.outer + 4), 32);
	assert_int_equal(le32(c.outer + 12), 112);
	struct pac p;
	decode_ok(c.inner, c.inner_len, &p);
	assert_int_equal(p.align, 4);
	pac_free(&p);
	decode_ok(c.middle, c.middle_len, &p);
	assert_int_equal(p.align, 8);
	pac_free(&p);
	decode_ok(c.outer, c.outer_len, &p);
	assert_int_equal(p.align, 16);
	pac_free(&p);
	chain_free(&c);
}

static void test_member_walks_every_depth(void **state)
{
	(void)state;
	struct chain c;
	chain_build(&c);
	const uint8_t *m;
	size_t n;
	static const uint16_t FGHIJK[] = {0, 1, 2}, INNER[] = {0, 1}, Q[] = {1};
	assert_int_equal(pacpath_member(c.outer, c.outer_len, FGHIJK, 3, &m, &n, NULL), MH_OK);
	assert_ptr_equal(m, c.outer + 32 + 32 + 36);
	assert_int_equal(n, 6);
	assert_memory_equal(m, "fghijk", 6);
	assert_int_equal(pacpath_member(c.outer, c.outer_len, INNER, 2, &m, &n, NULL), MH_OK);
	assert_int_equal(n, c.inner_len);
	assert_memory_equal(m, c.inner, n);
	assert_int_equal(pacpath_member(c.outer, c.outer_len, Q, 1, &m, &n, NULL), MH_OK);
	assert_int_equal(n, 1);
	assert_int_equal(m[0], 'Q');
	/* Depth 0: the whole buffer. */
	assert_int_equal(pacpath_member(c.outer, c.outer_len, NULL, 0, &m, &n, NULL), MH_OK);
	assert_ptr_equal(m, c.outer);
	assert_int_equal(n, c.outer_len);
	chain_free(&c);
}

static void test_member_of_bad_path_names_the_pac_and_byte(void **state)
{
	(void)state;
	struct chain c;
	chain_build(&c);
	const uint8_t *m = NULL;
	size_t n = 0;
	struct mh_diag d = {0};

	/* MIDDLE (at byte 32) has two members. */
	static const uint16_t PAST[] = {0, 5};
	assert_int_equal(pacpath_member(c.outer, c.outer_len, PAST, 2, &m, &n, &d), MH_ERANGE);
	assert_int_equal(d.code, MH_ERANGE);
	assert_int_equal(d.offset, 32);
	assert_string_equal(d.msg, "the PAC at byte 32 (depth 1) has 2 members: no member 5");
	assert_null(m);

	/* "Q" (at byte 112) is no PAC: too short for its count word. */
	static const uint16_t INTO_Q[] = {1, 0};
	d = (struct mh_diag){0};
	enum mh_err err = pacpath_member(c.outer, c.outer_len, INTO_Q, 2, &m, &n, &d);
	assert_int_equal(err, MH_ETRUNC);
	assert_int_equal(d.code, MH_ETRUNC);
	assert_true(d.offset >= 112 && d.offset <= 113);
	assert_non_null(strstr(d.msg, "the PAC at byte 112 (depth 1): "));

	/* INNER's second member is empty: it holds no third level. */
	static const uint16_t INTO_EMPTY[] = {0, 1, 1, 0};
	d = (struct mh_diag){0};
	err = pacpath_member(c.outer, c.outer_len, INTO_EMPTY, 4, &m, &n, &d);
	assert_int_not_equal(err, MH_OK);
	assert_int_equal(d.offset, 32 + 32);
	assert_non_null(strstr(d.msg, "the PAC at byte 64 (depth 3): "));

	/* A corrupt table word in INNER (its member 0 now starts at 29),
	 * found through the chain: the offset is OUTER's. */
	uint8_t *bad = malloc(c.outer_len);
	assert_non_null(bad);
	memcpy(bad, c.outer, c.outer_len);
	put_le32(bad + 32 + 32 + 4, 29);
	static const uint16_t INTO_INNER[] = {0, 1, 0};
	d = (struct mh_diag){0};
	err = pacpath_member(bad, c.outer_len, INTO_INNER, 3, &m, &n, &d);
	assert_int_equal(err, MH_ECORRUPT);
	assert_int_equal(d.offset, 32 + 32 + 4);
	assert_non_null(strstr(d.msg, "the PAC at byte 64 (depth 2): "));

	/* The outermost buffer itself cut short. */
	d = (struct mh_diag){0};
	err = pacpath_member(c.outer, 10, INTO_INNER, 1, &m, &n, &d);
	assert_int_not_equal(err, MH_OK);
	assert_non_null(strstr(d.msg, "the PAC at byte 0 (depth 0): "));
	free(bad);
	chain_free(&c);
}

static void test_splice_three_levels_deep(void **state)
{
	(void)state;
	struct chain c;
	chain_build(&c);
	static const uint16_t PATH[] = {0, 1, 2};
	static const char NEW[] = "a longer member!!"; /* 17 bytes */
	uint8_t *out;
	size_t len;
	splice_ok(c.outer, c.outer_len, PATH, 3, (const uint8_t *)NEW, 17, &out, &len);
	assert_int_equal(check_splice(c.outer, c.outer_len, out, len, PATH, 3, 0,
				      (const uint8_t *)NEW, 17), 3);
	/* By hand: INNER grows by 11 to 55 bytes ("abcde" at 28, the new
	 * member at 36..53, "T1"); MIDDLE to 90 (INNER at 32, "mid" at 87);
	 * OUTER puts "Q" at 32 + 90 rounded to 16 = 128, then its tail. */
	assert_int_equal(le32(out + 32 + 32 + 20), 36);
	assert_int_equal(le32(out + 32 + 32 + 24), 17);
	assert_memory_equal(out + 32 + 32 + 36, NEW, 17);
	assert_memory_equal(out + 32 + 32 + 53, "T1", 2);
	assert_int_equal(le32(out + 32 + 16), 55);
	assert_memory_equal(out + 32 + 87, "mid", 3);
	assert_int_equal(le32(out + 8), 90);
	assert_int_equal(le32(out + 12), 128);
	assert_int_equal(len, 128 + 1 + 10);
	assert_memory_equal(out + 129, "OUTER-TAIL", 10);
	free(out);
	chain_free(&c);
}

static void test_splice_two_levels_deep(void **state)
{
	(void)state;
	struct chain c;
	chain_build(&c);
	/* "xyz" in MIDDLE becomes 9 bytes: INNER moves from 32 to 40 (8 is
	 * MIDDLE's alignment), byte for byte the same. */
	static const uint16_t PATH[] = {0, 0};
	uint8_t *out;
	size_t len;
	splice_ok(c.outer, c.outer_len, PATH, 2, (const uint8_t *)"123456789", 9, &out, &len);
	assert_int_equal(check_splice(c.outer, c.outer_len, out, len, PATH, 2, 0,
				      (const uint8_t *)"123456789", 9), 2);
	assert_int_equal(le32(out + 32 + 12), 40);
	assert_memory_equal(out + 32 + 40, c.inner, c.inner_len);
	free(out);

	/* The same bytes back: the chain as it was. */
	static const uint16_t DEEP[] = {0, 1, 2};
	splice_ok(c.outer, c.outer_len, DEEP, 3, (const uint8_t *)"fghijk", 6, &out, &len);
	assert_int_equal(len, c.outer_len);
	assert_memory_equal(out, c.outer, len);
	free(out);

	/* Emptied: INNER's third member becomes (0, 0), its tail follows
	 * "abcde". */
	splice_ok(c.outer, c.outer_len, DEEP, 3, NULL, 0, &out, &len);
	assert_int_equal(check_splice(c.outer, c.outer_len, out, len, DEEP, 3, 0, NULL, 0), 3);
	assert_memory_equal(out + 32 + 32 + 33, "T1", 2);
	free(out);

	/* Depth 0: a copy of the member. */
	splice_ok(c.outer, c.outer_len, NULL, 0, (const uint8_t *)"raw", 3, &out, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(out, "raw", 3);
	free(out);
	chain_free(&c);
}

static void test_splice_errors(void **state)
{
	(void)state;
	struct chain c;
	chain_build(&c);
	uint8_t *out = (uint8_t *)&c;
	size_t len = 5;
	struct mh_diag d = {0};
	static const uint16_t PAST[] = {0, 1, 7};
	assert_int_equal(pacpath_splice(c.outer, c.outer_len, PAST, 3, (const uint8_t *)"x", 1,
					&out, &len, &d), MH_ERANGE);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(d.offset, 64);
	assert_string_equal(d.msg, "the PAC at byte 64 (depth 2) has 3 members: no member 7");

	/* A PAC whose only member is emptied would not read back as one. */
	const struct pac_blob one[] = {{(const uint8_t *)"solo", 4}};
	uint8_t *single;
	size_t single_len;
	encode_ok(one, 1, 16, "", &single, &single_len);
	static const uint16_t FIRST[] = {0};
	d = (struct mh_diag){0};
	assert_int_equal(pacpath_splice(single, single_len, FIRST, 1, NULL, 0, &out, &len, &d),
			 MH_ERANGE);
	assert_null(out);
	assert_non_null(strstr(d.msg, "the PAC at byte 0 (depth 0): every entry is empty"));
	free(single);
	chain_free(&c);
}

/* ---- rigs --------------------------------------------------------------- */

/* An MHFU skeleton of n bones in a chain, encoded. */
static uint8_t *skeleton_bytes(uint32_t n, size_t *len)
{
	struct skeleton s;
	uint8_t *out;
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, n, NULL), MH_OK);
	for (uint32_t i = 1; i < n; i++)
		s.bones[i].parent = (int32_t)i - 1;
	skeleton_link(&s, false);
	assert_int_equal(skeleton_encode(&s, &out, len, NULL), MH_OK);
	skeleton_free(&s);
	return out;
}

static void test_first_skeleton_and_item_rig(void **state)
{
	(void)state;
	size_t s3_len, s5_len;
	uint8_t *s3 = skeleton_bytes(3, &s3_len), *s5 = skeleton_bytes(5, &s5_len);
	/* A skeleton whose third bone's index word is wrong: it sniffs as
	 * one (the sniff reads the first bone) but does not decode, so the
	 * search goes on.  (Bones start at 0x1C with one params value.) */
	uint8_t *bad = malloc(s5_len);
	assert_non_null(bad);
	memcpy(bad, s5, s5_len);
	put_le32(bad + 0x1C + 2 * SKELETON_SECTION_MHFU + 0x0C, 7);
	assert_int_equal(kind_of(bad, s5_len), KIND_SKELETON);
	assert_int_equal(skeleton_decode(bad, s5_len, &(struct skeleton){0}, NULL), MH_ECORRUPT);
	const struct pac_blob members[] = {{(const uint8_t *)"data", 4}, {bad, (uint32_t)s5_len},
					   {s3, (uint32_t)s3_len}, {s5, (uint32_t)s5_len}};
	uint8_t *pac, *outer;
	size_t pac_len, outer_len;
	encode_ok(members, 4, 16, "", &pac, &pac_len);
	const struct pac_blob wrap[] = {{(const uint8_t *)"data", 4}, {pac, (uint32_t)pac_len}};
	encode_ok(wrap, 2, 16, "", &outer, &outer_len);

	struct skeleton rig;
	bool found = true;
	struct mh_diag d = {0};
	assert_int_equal(pacpath_first_skeleton(pac, pac_len, &rig, &found, &d), MH_OK);
	assert_true(found);
	assert_int_equal(rig.nbones, 3);
	uint8_t *again;
	size_t again_len;
	assert_int_equal(skeleton_encode(&rig, &again, &again_len, NULL), MH_OK);
	assert_int_equal(again_len, s3_len);
	assert_memory_equal(again, s3, s3_len);
	free(again);
	skeleton_free(&rig);

	/* The rig of member 3 of the inner PAC is that PAC's first
	 * skeleton; an item of the outer PAC has none beside it; an entry
	 * (depth 0) has no container. */
	static const uint16_t IN_INNER[] = {1, 3}, IN_OUTER[] = {1};
	assert_int_equal(pacpath_item_rig(outer, outer_len, IN_INNER, 2, &rig, &found, &d), MH_OK);
	assert_true(found);
	assert_int_equal(rig.nbones, 3);
	skeleton_free(&rig);
	found = true;
	assert_int_equal(pacpath_item_rig(outer, outer_len, IN_OUTER, 1, &rig, &found, &d), MH_OK);
	assert_false(found);
	assert_int_equal(rig.nbones, 0);
	found = true;
	assert_int_equal(pacpath_item_rig(outer, outer_len, NULL, 0, &rig, &found, &d), MH_OK);
	assert_false(found);

	/* Failed is not absent: no PAC, or a path that does not walk. */
	found = true;
	assert_int_equal(pacpath_first_skeleton(s3, s3_len, &rig, &found, &d), MH_EUNKNOWN);
	assert_false(found);
	static const uint16_t PAST[] = {5, 0};
	d = (struct mh_diag){0};
	found = true;
	assert_int_equal(pacpath_item_rig(outer, outer_len, PAST, 2, &rig, &found, &d), MH_ERANGE);
	assert_false(found);
	assert_string_equal(d.msg, "the PAC at byte 0 (depth 0) has 2 members: no member 5");
	/* The parent itself not a PAC: the offset is the outer buffer's. */
	static const uint16_t BESIDE_DATA[] = {0, 0};
	d = (struct mh_diag){0};
	assert_int_not_equal(pacpath_item_rig(outer, outer_len, BESIDE_DATA, 2, &rig, &found, &d),
			     MH_OK);
	assert_true(d.offset >= le32(outer + 4));
	free(outer);
	free(pac);
	free(bad);
	free(s3);
	free(s5);
}

/* ---- the sample --------------------------------------------------------- */

static uint8_t *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f);
	assert_true(size >= 0);
	rewind(f);
	uint8_t *p = malloc(size ? (size_t)size : 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return p;
}

struct sample_stats {
	unsigned splices, pacs_checked, deepest;
};

/* Splices every member of the PAC at path[0..depth) of entry[0..len),
 * and below it down to three levels: its own bytes back (the entry must
 * come back exactly), then those bytes with three more (check_splice). */
static void splice_every_member(const uint8_t *entry, size_t len, uint16_t *path,
				unsigned depth, const char *name, struct sample_stats *st)
{
	const uint8_t *at;
	size_t at_len;
	struct pac pac;
	assert_int_equal(pacpath_member(entry, len, path, depth, &at, &at_len, NULL), MH_OK);
	if (depth == 3 || kind_of(at, at_len) != KIND_PAC ||
	    pac_decode(at, at_len, &pac, NULL) != MH_OK)
		return;
	for (uint32_t i = 0; i < pac.count; i++) {
		const uint8_t *m = at + pac.entries[i].offset;
		size_t n = pac.entries[i].size;
		uint8_t *out, *grown = malloc(n + 3);
		size_t out_len;
		assert_non_null(grown);
		memcpy(grown, m, n);
		memcpy(grown + n, "\x01\x02\x03", 3);
		path[depth] = (uint16_t)i;
		splice_ok(entry, len, path, depth + 1, m, n, &out, &out_len);
		if (out_len != len || memcmp(out, entry, len))
			fail_msg("%s: member %u at depth %u spliced back unchanged "
				 "changes the entry", name, i, depth + 1);
		free(out);
		splice_ok(entry, len, path, depth + 1, grown, n + 3, &out, &out_len);
		st->pacs_checked += check_splice(entry, len, out, out_len, path, depth + 1,
						 0, grown, n + 3);
		free(out);
		free(grown);
		st->splices += 2;
		if (depth + 1 > st->deepest)
			st->deepest = depth + 1;
		splice_every_member(entry, len, path, depth + 1, name, st);
	}
	pac_free(&pac);
}

static void test_sample_pacs_splice_exactly(void **state)
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
	char line[512], name[256], kind[32];
	unsigned entries = 0;
	struct sample_stats st = {0};
	while (fgets(line, sizeof line, idx)) {
		unsigned id, start, blocks;
		unsigned long long size;
		if (line[0] == '#' ||
		    sscanf(line, "%255[^\t]\t%u\t%u\t%u\t%llu\t%31[^\t]", name, &id, &start,
			   &blocks, &size, kind) != 6 || strcmp(kind, "pac"))
			continue;
		snprintf(path, sizeof path, "%s/src/%s", dir, name);
		size_t len;
		uint8_t *entry = read_whole(path, &len);
		uint16_t at[3];
		splice_every_member(entry, len, at, 0, name, &st);
		free(entry);
		entries++;
	}
	fclose(idx);
	print_message("%u PAC entries, %u splices, %u PACs checked, depth up to %u\n",
		      entries, st.splices, st.pacs_checked, st.deepest);
	assert_true(entries > 0);
	assert_true(st.deepest >= 2);
}

/* ---- allocation failures ----------------------------------------------- */

static void test_allocation_failures(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct chain c;
	chain_build(&c);
	size_t s_len;
	uint8_t *s = skeleton_bytes(4, &s_len);
	const struct pac_blob rigged[] = {{c.inner, (uint32_t)c.inner_len}, {s, (uint32_t)s_len},
					  {(const uint8_t *)"pack", 4}};
	uint8_t *with_rig;
	size_t with_rig_len;
	encode_ok(rigged, 3, 16, "", &with_rig, &with_rig_len);
	static const uint16_t DEEP[] = {0, 1, 2}, PACK[] = {2};
	long live = faults_live;
	for (int what = 0; what < 4; what++)
		for (long k = 0;; k++) {
			struct mh_diag d = {0};
			const uint8_t *m;
			size_t n;
			uint8_t *out = NULL;
			struct skeleton rig;
			bool found = false;
			enum mh_err err;
			faults_arm(k);
			switch (what) {
			case 0:
				err = pacpath_member(c.outer, c.outer_len, DEEP, 3, &m, &n, &d);
				break;
			case 1:
				err = pacpath_splice(c.outer, c.outer_len, DEEP, 3,
						     (const uint8_t *)"new", 3, &out, &n, &d);
				break;
			case 2:
				err = pacpath_first_skeleton(with_rig, with_rig_len, &rig, &found, &d);
				break;
			default:
				err = pacpath_item_rig(with_rig, with_rig_len, PACK, 1, &rig, &found, &d);
				break;
			}
			bool fired = faults_disarm();
			if (what >= 2) {
				assert_int_equal(found, !err);
				if (found)
					skeleton_free(&rig);
			}
			if (!err && what == 1)
				assert_int_equal(check_splice(c.outer, c.outer_len, out, n, DEEP, 3, 0,
							      (const uint8_t *)"new", 3), 3);
			free(out);
			assert_int_equal(faults_live, live);
			if (!fired) {
				assert_int_equal(err, MH_OK);
				assert_true(k > 0);
				break;
			}
			if (err != MH_ENOMEM)
				fail_msg("function %d, allocation %ld failed: %s (%s), want "
					 "out of memory", what, k, mh_strerror(err), d.msg);
			assert_int_equal(d.code, MH_ENOMEM);
			assert_null(out);
		}
	free(with_rig);
	free(s);
	chain_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_is_laid_as_intended),
		cmocka_unit_test(test_member_walks_every_depth),
		cmocka_unit_test(test_member_of_bad_path_names_the_pac_and_byte),
		cmocka_unit_test(test_splice_three_levels_deep),
		cmocka_unit_test(test_splice_two_levels_deep),
		cmocka_unit_test(test_splice_errors),
		cmocka_unit_test(test_first_skeleton_and_item_rig),
		cmocka_unit_test(test_sample_pacs_splice_exactly),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
