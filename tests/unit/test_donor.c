/* SPDX-License-Identifier: MIT */
/* Tests of codecs/donor (the donor bundle, mhfu-archive(5) "DONOR
 * BUNDLE").
 *
 * Bundles are made from synthetic members: an MHP3rd skeleton and pack
 * built here, a PMO that is its 0x40-byte header alone (the bundle checks
 * a PMO by its magic and version, and by whether it keeps its geometry
 * outside itself), a texture bank that is its magic and a few bytes.
 * decode -> encode gives the bytes; an override travels through; every
 * settings error is at its line:col; cut, garbled or misaligned bundles
 * are refused at their offset; other PACs are MH_EUNKNOWN.
 *
 *   test_donor --write-corpus DIR   writes the fuzz target's seeds
 *                                   (tests/fuzz/corpus/fuzz_donor) */
#include "testlib.h"

#include "anim.h"
#include "clip.h"
#include "donor.h"
#include "pac.h"
#include "records.h"
#include "skeleton.h"

/* ---- fixtures ------------------------------------------------------------- */

#define BONES 8u
#define TRACKS 4u
#define PMO_LEN 0x40u

struct members {
	uint8_t *skel, *pack;
	size_t skel_len, pack_len;
	uint8_t pmo[PMO_LEN];
	uint8_t tmh[12];
	uint8_t geometry[24];
};

/* A chain of BONES bones (no fork, so the fork rule's offset is 0),
 * game `game`. */
static void skeleton_bytes(enum skeleton_game game, uint8_t **out, size_t *len)
{
	struct skeleton s;
	assert_int_equal(skeleton_init(&s, game, BONES, NULL), MH_OK);
	for (uint32_t b = 1; b < BONES; b++)
		s.bones[b].parent = (int32_t)b - 1;
	skeleton_link(&s, false);
	assert_int_equal(skeleton_encode(&s, out, len, NULL), MH_OK);
	skeleton_free(&s);
}

/* An MHP3rd pack: one stream of two slots, one clip of TRACKS rotating
 * tracks. */
static void pack_bytes(uint8_t **out, size_t *len)
{
	struct anim a;
	assert_int_equal(anim_init(&a, CLIP_P3RD, 1, (const uint32_t[]){2}, NULL), MH_OK);
	struct clip c = {0};
	for (uint32_t t = 0; t < TRACKS; t++) {
		struct clip_track *tr = clip_add_track(&c, 0);
		assert_non_null(tr);
		struct clip_channel *ch = clip_add_channel(tr, CLIP_ROT_Y);
		assert_non_null(ch);
		assert_non_null(clip_add_key(ch, (struct clip_key){.value = (int16_t)(100 * t)}));
		assert_non_null(clip_add_key(ch, (struct clip_key){.frame = 10}));
	}
	int32_t k = anim_add_clip(&a, &c);
	assert_true(k >= 0);
	assert_int_equal(anim_set_slot(&a, 0, 1, k, NULL), MH_OK);
	assert_int_equal(anim_encode(&a, out, len, NULL), MH_OK);
	anim_free(&a);
}

/* A PMO header of version 102; with `external`, one whose size counts a
 * geometry region its geometry offset (its own length) puts outside it. */
static void pmo_header(uint8_t *p, bool external)
{
	memset(p, 0, PMO_LEN);
	memcpy(p, "pmo\0" "102\0", 8);
	if (external) {
		store_le32(p + 0x08, PMO_LEN + 24); /* size */
		store_le32(p + 0x34, PMO_LEN);      /* geometry offset */
	}
}

static void members_make(struct members *m)
{
	skeleton_bytes(SKELETON_MHP3RD, &m->skel, &m->skel_len);
	pack_bytes(&m->pack, &m->pack_len);
	pmo_header(m->pmo, false);
	memcpy(m->tmh, ".TMH0.14" "\1\0\0\0", 12);
	for (size_t i = 0; i < sizeof m->geometry; i++)
		m->geometry[i] = (uint8_t)(0xa0 + i);
}

static void members_free(struct members *m)
{
	free(m->skel);
	free(m->pack);
}

/* The parts of m: no geometry unless `geometry` (the PMO then made to
 * need it), model 6410, monster 58, name "brute-tigrex". */
static struct donor_parts parts_of(struct members *m, bool geometry)
{
	pmo_header(m->pmo, geometry);
	return (struct donor_parts){
		.member = {m->skel, m->pmo, m->tmh, m->pack, geometry ? m->geometry : NULL},
		.len = {m->skel_len, PMO_LEN, sizeof m->tmh, m->pack_len,
			geometry ? sizeof m->geometry : 0},
		.model = 6410, .monster = 58, .name = "brute-tigrex",
	};
}

/* A PAC of m's members at alignment `align` with `settings` as member 5
 * (NULL: none), as a bundle lays them out when align is 16. */
static void raw_bundle(struct members *m, uint32_t align, const char *settings, uint8_t **out,
		       size_t *len)
{
	struct pac_blob b[DONOR_MEMBERS] = {
		{m->skel, (uint32_t)m->skel_len}, {m->pmo, PMO_LEN},
		{m->tmh, sizeof m->tmh}, {m->pack, (uint32_t)m->pack_len}, {NULL, 0},
		{(const uint8_t *)settings, settings ? (uint32_t)strlen(settings) : 0},
	};
	pmo_header(m->pmo, false);
	assert_int_equal(pac_encode(b, DONOR_MEMBERS, align, NULL, 0, out, len, NULL), MH_OK);
}

/* *dn holds nothing (a failed decode's promise). */
static void assert_empty(const struct donor *dn)
{
	assert_null(dn->bytes);
	assert_int_equal(dn->len, 0);
	assert_null(dn->skel.bones);
	assert_int_equal(dn->moveset.nstreams, 0);
	assert_null(dn->map.bone);
}

/* A bundle's settings member (the last), as text. */
static char *settings_of(const uint8_t *b, size_t len)
{
	struct pac pac;
	assert_int_equal(pac_decode(b, len, &pac, NULL), MH_OK);
	const struct pac_entry *e = &pac.entries[DONOR_SETTINGS];
	char *t = malloc(e->size + 1);
	assert_non_null(t);
	memcpy(t, b + e->offset, e->size);
	t[e->size] = '\0';
	pac_free(&pac);
	return t;
}

/* The parts of a decoded bundle, to encode it again. */
static struct donor_parts parts_of_donor(const struct donor *dn)
{
	struct donor_parts p = {.model = dn->model, .monster = dn->monster, .name = dn->name,
				.set = &dn->map.set};
	for (uint32_t k = 0; k < DONOR_MEMBERS - 1; k++) {
		p.member[k] = dn->member[k];
		p.len[k] = dn->member_len[k];
	}
	return p;
}

/* decode(b) then encode of its parts gives b. */
static void assert_reencodes(const uint8_t *b, size_t len, struct donor *dn)
{
	assert_int_equal(donor_decode(b, len, dn, NULL), MH_OK);
	struct donor_parts p = parts_of_donor(dn);
	uint8_t *again;
	size_t again_len;
	assert_int_equal(donor_encode(&p, &again, &again_len, NULL), MH_OK);
	assert_int_equal(again_len, len);
	assert_memory_equal(again, b, len);
	free(again);
}

/* ---- round trips ------------------------------------------------------------ */

static void test_round_trip(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	for (int geometry = 0; geometry < 2; geometry++) {
		struct donor_parts p = parts_of(&m, geometry);
		uint8_t *b;
		size_t len;
		struct donor dn;
		assert_int_equal(donor_encode(&p, &b, &len, NULL), MH_OK);
		assert_true(donor_sniff(b, len));
		assert_reencodes(b, len, &dn);
		for (uint32_t k = 0; k < DONOR_MEMBERS - 1; k++) {
			assert_int_equal(dn.member_len[k], p.len[k]);
			if (p.len[k])
				assert_memory_equal(dn.member[k], p.member[k], p.len[k]);
			else
				assert_null(dn.member[k]);
		}
		assert_int_equal(dn.model, 6410);
		assert_int_equal(dn.monster, 58);
		assert_string_equal(dn.name, "brute-tigrex");
		assert_int_equal(dn.skel.nbones, BONES);
		assert_int_equal(dn.skel.game, SKELETON_MHP3RD);
		assert_int_equal(dn.moveset.nclips, 1);
		assert_int_equal(dn.map.nrecords, TRACKS);
		assert_false(dn.map.set.offset_set || dn.map.set.skip_set);
		for (uint32_t i = 0; i < TRACKS; i++)
			assert_int_equal(dn.map.bone[i], (int32_t)i);
		char *t = settings_of(b, len);
		assert_string_equal(t, "mhfufs-donor 1\nmodel 6410\nmonster 58\nname brute-tigrex\n");
		free(t);
		donor_free(&dn);
		assert_null(dn.bytes);
		free(b);
	}
	members_free(&m);
}

/* No monster and no name: "-" for both, back as RECORDS_NO_MONSTER and "". */
static void test_none_round_trip(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	struct donor_parts p = parts_of(&m, false);
	p.monster = RECORDS_NO_MONSTER;
	p.name = NULL;
	uint8_t *b;
	size_t len;
	struct donor dn;
	assert_int_equal(donor_encode(&p, &b, &len, NULL), MH_OK);
	char *t = settings_of(b, len);
	assert_string_equal(t, "mhfufs-donor 1\nmodel 6410\nmonster -\nname -\n");
	free(t);
	assert_reencodes(b, len, &dn);
	assert_int_equal(dn.monster, RECORDS_NO_MONSTER);
	assert_string_equal(dn.name, "");
	donor_free(&dn);
	free(b);
	members_free(&m);
}

/* An offset and a skip list travel through and are in force: records
 * 0..3 from bone 2 over bone 4 drive 2, 3, 5, 6. */
static void test_override_carried(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	struct donor_parts p = parts_of(&m, true);
	uint32_t skip[] = {4};
	struct records_setting set = {.offset_set = true, .offset = 2, .skip_set = true,
				      .nskip = 1, .skip = skip};
	p.set = &set;
	uint8_t *b;
	size_t len;
	struct donor dn;
	assert_int_equal(donor_encode(&p, &b, &len, NULL), MH_OK);
	char *t = settings_of(b, len);
	assert_string_equal(t, "mhfufs-donor 1\nmodel 6410\nmonster 58\nname brute-tigrex\n"
			    "offset 2\nskip 4\n");
	free(t);
	assert_reencodes(b, len, &dn);
	assert_true(records_setting_equal(&dn.map.set, &set));
	assert_int_equal(dn.map.offset, 2);
	const int32_t want[TRACKS] = {2, 3, 5, 6};
	for (uint32_t i = 0; i < TRACKS; i++)
		assert_int_equal(dn.map.bone[i], want[i]);
	donor_free(&dn);
	free(b);
	members_free(&m);
}

/* What the map has anyway is no override: offset 0 is the fork rule's. */
static void test_default_override_dropped(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	struct donor_parts p = parts_of(&m, false);
	struct records_setting set = {.offset_set = true, .offset = 0};
	p.set = &set;
	uint8_t *b;
	size_t len;
	assert_int_equal(donor_encode(&p, &b, &len, NULL), MH_OK);
	char *t = settings_of(b, len);
	assert_null(strstr(t, "offset"));
	free(t);
	free(b);
	members_free(&m);
}

/* ---- encode's refusals -------------------------------------------------- */

static void test_encode_refusals(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	struct mh_diag d = {0};
	uint8_t *b = (uint8_t *)&d;
	size_t len = 1;

	struct donor_parts p = parts_of(&m, false);
	p.len[DONOR_TMH] = 0;
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "member 2 (texture bank) is missing");
	assert_null(b);
	assert_int_equal(len, 0);

	p = parts_of(&m, false);
	p.name = "two words";
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ERANGE, 0);
	p.name = "-";
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ERANGE, 0);
	p.name = "a-name-of-forty-eight-characters-is-one-too-long";
	assert_int_equal(strlen(p.name), DONOR_NAME_MAX);
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ERANGE, 0);
	p.name = NULL;
	p.monster = 65536;
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ERANGE, 0);

	/* A geometry the PMO does not need, and none for one that does. */
	p = parts_of(&m, false);
	p.member[DONOR_GEOMETRY] = m.geometry;
	p.len[DONOR_GEOMETRY] = sizeof m.geometry;
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ECORRUPT, 0);
	assert_diag_says(&d, "geometry) holds bytes");
	p = parts_of(&m, true);
	p.len[DONOR_GEOMETRY] = 0;
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ECORRUPT, 0);
	assert_diag_says(&d, "geometry) is empty");

	/* An MHFU skeleton; an override past the rig. */
	uint8_t *mhfu;
	size_t mhfu_len;
	skeleton_bytes(SKELETON_MHFU, &mhfu, &mhfu_len);
	p = parts_of(&m, false);
	p.member[DONOR_SKELETON] = mhfu;
	p.len[DONOR_SKELETON] = mhfu_len;
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ECORRUPT, 0);
	assert_diag_says(&d, "mhfu's; a donor's is MHP3rd's");
	free(mhfu);
	p = parts_of(&m, false);
	struct records_setting past = {.offset_set = true, .offset = BONES - 2};
	p.set = &past;
	assert_diag(&d, donor_encode(&p, &b, &len, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "past the rig's last bone");
	assert_null(b);
	members_free(&m);
}

/* ---- the settings' errors ------------------------------------------------- */

/* A bundle with settings text `t` fails with `code` at line:col, offset
 * the settings member's, and leaves the donor empty. */
static void assert_settings_error(struct members *m, const char *t, enum mh_err code,
				  unsigned line, unsigned col, const char *says)
{
	uint8_t *b;
	size_t len;
	raw_bundle(m, 16, t, &b, &len);
	struct pac pac;
	assert_int_equal(pac_decode(b, len, &pac, NULL), MH_OK);
	struct donor dn;
	struct mh_diag d = {0};
	enum mh_err err = donor_decode(b, len, &dn, &d);
	assert_text_diag(&d, err, code, line, col);
	assert_int_equal(d.offset, pac.entries[DONOR_SETTINGS].offset);
	assert_diag_says(&d, says);
	assert_empty(&dn);
	pac_free(&pac);
	free(b);
}

#define HEAD "mhfufs-donor 1\nmodel 6410\nmonster 58\nname brute-tigrex\n"

static void test_settings_errors(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	/* The head lines. */
	assert_settings_error(&m, "mhfufs-donor 1\n", MH_ESYNTAX, 2, 1, "model N");
	assert_settings_error(&m, "mhfufs-donor 1\nmodl 5\n", MH_ESYNTAX, 2, 1, "model N");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel x\n", MH_ESYNTAX, 2, 7, "engine id");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 007\n", MH_ESYNTAX, 2, 7, "engine id");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 4294967296\n", MH_ESYNTAX, 2, 7,
			      "0..4294967295");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel  5\n", MH_ESYNTAX, 2, 7, "one space");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5 6\n", MH_ESYNTAX, 2, 8,
			      "end of the line");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5", MH_ESYNTAX, 2, 8, "newline");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5\nname x\n", MH_ESYNTAX, 3, 1,
			      "monster EM|-");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5\nmonster em58\n", MH_ESYNTAX, 3, 9,
			      "monster's id");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5\nmonster 65536\n", MH_ESYNTAX, 3, 9,
			      "0..65535");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5\nmonster -\n", MH_ESYNTAX, 4, 1,
			      "name NAME|-");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5\nmonster -\nname a b\n", MH_ESYNTAX,
			      4, 7, "end of the line");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5\nmonster -\nname "
			      "a-name-of-forty-eight-characters-is-one-too-long\n",
			      MH_ESYNTAX, 4, 6, "1..47 printable");
	assert_settings_error(&m, "mhfufs-donor 1\nmodel 5\nmonster -\nname \x01\n", MH_ESYNTAX,
			      4, 6, "printable");
	/* The override: records_parse's errors, then its one spelling. */
	assert_settings_error(&m, HEAD "bogus 1\n", MH_ESYNTAX, 5, 1, "expected offset or skip");
	assert_settings_error(&m, HEAD "offset 7\n", MH_ERANGE, 5, 8, "would land past");
	assert_settings_error(&m, HEAD "offset 9\n", MH_ERANGE, 5, 8, "past the rig's last bone");
	assert_settings_error(&m, HEAD "offset 2\noffset 3\n", MH_ESYNTAX, 6, 1, "given twice");
	assert_settings_error(&m, HEAD "offset  2\n", MH_ESYNTAX, 5, 8, "\"offset 2\"");
	assert_settings_error(&m, HEAD "offset 2 # why\n", MH_ESYNTAX, 5, 9, "\"offset 2\"");
	assert_settings_error(&m, HEAD "skip 5\noffset 2\n", MH_ESYNTAX, 5, 1, "\"offset 2\"");
	assert_settings_error(&m, HEAD "offset 0\n", MH_ESYNTAX, 5, 1, "end of the settings");
	assert_settings_error(&m, HEAD "offset auto\n", MH_ESYNTAX, 5, 1, "end of the settings");
	assert_settings_error(&m, HEAD "# a comment\n", MH_ESYNTAX, 5, 1, "end of the settings");
	assert_settings_error(&m, HEAD "\n", MH_ESYNTAX, 5, 1, "end of the settings");
	assert_settings_error(&m, HEAD "offset 2", MH_ESYNTAX, 5, 9, "a newline");
	members_free(&m);
}

/* ---- damaged bundles and other PACs ----------------------------------------- */

static void assert_refused(const uint8_t *b, size_t len, enum mh_err code, uint64_t offset,
			   const char *says)
{
	struct donor dn;
	struct mh_diag d = {0};
	assert_diag(&d, donor_decode(b, len, &dn, &d), code, offset);
	assert_diag_says(&d, says);
	assert_empty(&dn);
}

static void test_cut_and_garbled(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	struct donor_parts p = parts_of(&m, false);
	uint8_t *b;
	size_t len;
	assert_int_equal(donor_encode(&p, &b, &len, NULL), MH_OK);
	struct pac pac;
	assert_int_equal(pac_decode(b, len, &pac, NULL), MH_OK);
	uint32_t set_at = pac.entries[DONOR_SETTINGS].offset;
	uint32_t pmo_at = pac.entries[DONOR_PMO].offset;
	uint32_t skel_at = pac.entries[DONOR_SKELETON].offset;
	uint32_t pack_at = pac.entries[DONOR_MOVESET].offset;
	pac_free(&pac);

	/* Cut after the magic: a bundle whose last member ends past its end. */
	assert_refused(b, len - 1, MH_ECORRUPT, 4 + 8 * DONOR_SETTINGS, "past the PAC's");
	assert_false(donor_sniff(b, len - 1));
	/* Cut inside the magic, or inside the table: no bundle to be seen. */
	assert_refused(b, set_at + 5, MH_EUNKNOWN, 0, "no donor bundle");
	assert_refused(b, 20, MH_EUNKNOWN, 0, "no donor bundle");
	assert_refused(b, 0, MH_EUNKNOWN, 0, "no donor bundle");
	assert_false(donor_sniff(b, set_at + 5));

	uint8_t *g = malloc(len + 1);
	assert_non_null(g);
	/* A byte after the last member. */
	memcpy(g, b, len);
	g[len] = 0;
	assert_refused(g, len + 1, MH_ECORRUPT, len, "1 bytes after the last member");
	/* The PMO's magic, the skeleton's, the pack's first clip offset. */
	memcpy(g, b, len);
	g[pmo_at] = 'P';
	assert_refused(g, len, MH_ECORRUPT, pmo_at, "member 1 (PMO)");
	memcpy(g, b, len);
	g[pmo_at + 4] = '1', g[pmo_at + 5] = '.', g[pmo_at + 6] = '0';
	assert_refused(g, len, MH_ECORRUPT, pmo_at, "version 102");
	memcpy(g, b, len);
	store_le32(g + skel_at, 0x12345678);
	assert_refused(g, len, MH_ECORRUPT, skel_at, "member 0 (skeleton)");
	memcpy(g, b, len);
	store_le32(g + pack_at, 0x1000);
	struct mh_diag d = {0};
	struct donor dn;
	assert_int_not_equal(donor_decode(g, len, &dn, &d), MH_OK);
	assert_true(d.offset >= pack_at);
	assert_diag_says(&d, "member 3 (moveset)");
	assert_empty(&dn);
	/* A non-zero byte in the padding after the skeleton. */
	assert_true(skel_at + m.skel_len < pmo_at);
	memcpy(g, b, len);
	g[pmo_at - 1] = 1;
	assert_refused(g, len, MH_ECORRUPT, pmo_at - 1, "padding");
	free(g);
	free(b);

	/* An MHFU skeleton inside a bundle. */
	uint8_t *mhfu;
	size_t mhfu_len;
	free(m.skel);
	skeleton_bytes(SKELETON_MHFU, &mhfu, &mhfu_len);
	m.skel = mhfu;
	m.skel_len = mhfu_len;
	raw_bundle(&m, 16, HEAD, &b, &len);
	assert_refused(b, len, MH_ECORRUPT, load_le32(b + 4), "mhfu's; a donor's is MHP3rd's");
	free(b);
	members_free(&m);
}

/* Members laid at alignment 4 (a PAC, not a bundle's layout), an empty
 * member, and PACs that are no bundle. */
static void test_layout_and_other_pacs(void **state)
{
	(void)state;
	struct members m;
	members_make(&m);
	uint8_t *b;
	size_t len;
	/* The table's 52 bytes end off 16: alignment 4 puts the skeleton at 52. */
	raw_bundle(&m, 4, HEAD, &b, &len);
	assert_true(donor_sniff(b, len));
	assert_refused(b, len, MH_ECORRUPT, 4 + 8 * DONOR_SKELETON,
		       "starts at 52; a bundle puts it at 64 (alignment 16)");
	free(b);

	/* No texture bank. */
	struct pac_blob blobs[DONOR_MEMBERS] = {
		{m.skel, (uint32_t)m.skel_len}, {m.pmo, PMO_LEN}, {NULL, 0},
		{m.pack, (uint32_t)m.pack_len}, {NULL, 0},
		{(const uint8_t *)HEAD, (uint32_t)strlen(HEAD)},
	};
	assert_int_equal(pac_encode(blobs, DONOR_MEMBERS, 16, NULL, 0, &b, &len, NULL), MH_OK);
	assert_refused(b, len, MH_ECORRUPT, 4 + 8 * DONOR_TMH, "member 2 (texture bank) is empty");
	free(b);

	/* Six members, the last no settings; three members. */
	blobs[DONOR_TMH] = (struct pac_blob){m.tmh, sizeof m.tmh};
	blobs[DONOR_SETTINGS] = (struct pac_blob){(const uint8_t *)"mhfufs-donor 2\n", 15};
	assert_int_equal(pac_encode(blobs, DONOR_MEMBERS, 16, NULL, 0, &b, &len, NULL), MH_OK);
	assert_false(donor_sniff(b, len));
	assert_refused(b, len, MH_EUNKNOWN, 0, "a PAC, but no donor bundle");
	free(b);
	assert_int_equal(pac_encode(blobs, 3, 16, NULL, 0, &b, &len, NULL), MH_OK);
	assert_false(donor_sniff(b, len));
	assert_refused(b, len, MH_EUNKNOWN, 0, "a PAC, but no donor bundle");
	free(b);
	/* Seven members, the sixth starting as a bundle's settings would. */
	struct pac_blob seven[7];
	memcpy(seven, blobs, sizeof blobs);
	seven[DONOR_SETTINGS] = (struct pac_blob){(const uint8_t *)HEAD, (uint32_t)strlen(HEAD)};
	seven[6] = (struct pac_blob){m.tmh, sizeof m.tmh};
	assert_int_equal(pac_encode(seven, 7, 16, NULL, 0, &b, &len, NULL), MH_OK);
	assert_false(donor_sniff(b, len));
	assert_refused(b, len, MH_EUNKNOWN, 0, "no donor bundle");
	free(b);
	members_free(&m);
}

/* ---- the fuzz target's seeds ----------------------------------------------- */

/* Small valid bundles: without and with geometry, with an override,
 * without monster and name. */
static int write_corpus(const char *dir)
{
	struct members m;
	members_make(&m);
	uint32_t skip[] = {4};
	struct records_setting set = {.offset_set = true, .offset = 2, .skip_set = true,
				      .nskip = 1, .skip = skip};
	static const char *const NAMES[] = {"plain", "geometry", "override", "no-monster"};
	for (int i = 0; i < 4; i++) {
		struct donor_parts p = parts_of(&m, i == 1);
		if (i == 2)
			p.set = &set;
		if (i == 3) {
			p.monster = RECORDS_NO_MONSTER;
			p.name = NULL;
		}
		uint8_t *b;
		size_t len;
		struct mh_diag d = {0};
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, NAMES[i]);
		FILE *f = NULL;
		if (donor_encode(&p, &b, &len, &d) != MH_OK || !(f = fopen(path, "wb")) ||
		    fwrite(b, 1, len, f) != len || fclose(f)) {
			fprintf(stderr, "test_donor: %s: %s\n", path, d.msg[0] ? d.msg : "not written");
			return 1;
		}
		free(b);
	}
	members_free(&m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_none_round_trip),
		cmocka_unit_test(test_override_carried),
		cmocka_unit_test(test_default_override_dropped),
		cmocka_unit_test(test_encode_refusals),
		cmocka_unit_test(test_settings_errors),
		cmocka_unit_test(test_cut_and_garbled),
		cmocka_unit_test(test_layout_and_other_pacs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
