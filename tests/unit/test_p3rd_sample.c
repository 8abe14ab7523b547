/* SPDX-License-Identifier: MIT */
/* Tests of the MHP3rd sample archive: $MHFU_SAMPLE/p3rd/DATA.BIN, made by
 * `mkarchive --game mhp3rd` (make sample), and the port donors in it.
 * Without it every test fails, loudly, as test_sample's do.
 *
 * The archive must be told as MHP3rd by itself; each donor set must be
 * found as the mount finds it (its overlays name its monster, its
 * moveset's rig is the model PAC two entries before it) and be shaped as
 * its port needs: the Brute Tigrex's rig has two origin joints, fork 1
 * and an orphan root; the Zinogre's map uses em040's skip list and its
 * moveset has more clip ids than the Tigrex host has entries; the
 * identity donor (the MHFU sample's Tigrex, $MHFU_SAMPLE/src/file_06185.pac)
 * maps with offset 0 and no skips and plays the Tigrex's entries. */
#include "anim.h"
#include "cipher.h"
#include "databin.h"
#include "entries.h"
#include "monsters.h"
#include "movesets.h"
#include "pac.h"
#include "port.h"
#include "records.h"
#include "rig.h"
#include "skeleton.h"
#include "testlib.h"

/* Where the sample puts the donor sets (tests/gen/mkmodels.c). */
#define BRUTE_MODEL 5249u
#define ZINOGRE_MODEL 5340u
#define DONOR_MODEL 5501u
#define DONOR_EM 99
#define TIGREX_FILE "src/file_06185.pac" /* the MHFU sample's Tigrex */

static struct {
	char why[4300];          /* why the sample is unusable; "" when loaded */
	struct file_bytes arch;  /* p3rd/DATA.BIN */
	struct file_bytes tigrex;
	struct mem_archive in;
	struct databin db;
	bool opened;
} S;

static int group_setup(void **state)
{
	(void)state;
	const char *dir = getenv("MHFU_SAMPLE");
	char path[4200];
	struct mh_diag d = {0};
	memset(&S, 0, sizeof S);
	if (!dir || !*dir) {
		snprintf(S.why, sizeof S.why,
			 "MHFU_SAMPLE is not set: point it at the folder `make sample` makes "
			 "(`make units` does)");
		return 0;
	}
	snprintf(path, sizeof path, "%s/p3rd/DATA.BIN", dir);
	if (!read_whole_file(path, &S.arch, S.why, sizeof S.why))
		return 0;
	snprintf(path, sizeof path, "%s/%s", dir, TIGREX_FILE);
	if (!read_whole_file(path, &S.tigrex, S.why, sizeof S.why))
		return 0;
	S.in = mem_archive_of(S.arch.p, S.arch.len);
	if (databin_open(mem_archive_read, &S.in, S.in.size, &S.db, &d)) {
		snprintf(S.why, sizeof S.why, "p3rd/DATA.BIN does not open: %s", d.msg);
		return 0;
	}
	S.opened = true;
	databin_guess_game(&S.db, mem_archive_read, &S.in);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (S.opened)
		databin_free(&S.db);
	free(S.arch.p);
	free(S.tigrex.p);
	memset(&S, 0, sizeof S);
	return 0;
}

static void need_sample(void)
{
	if (S.why[0])
		fail_msg("no MHP3rd sample: %s", S.why);
}

/* moveset_entry_fn: entry id's logical bytes, decrypted. */
static uint8_t *entry_bytes(void *ctx, uint32_t id, size_t *len)
{
	(void)ctx;
	if (id >= S.db.count)
		return NULL;
	size_t span = (size_t)databin_entry_blocks(&S.db, id) * DATABIN_BLOCK;
	uint8_t *p = malloc(span ? span : 1);
	assert_non_null(p);
	memcpy(p, S.arch.p + databin_entry_offset(&S.db, id), span);
	if (!databin_entry_plain(&S.db, id))
		cipher_decrypt(S.db.start[id], 0, p, span);
	*len = (size_t)databin_entry_size(&S.db, id);
	return p;
}

/* A donor set as the mount sees it: its moveset (two entries after the
 * model), the rig and monster it maps with, and the map. */
struct donor_set {
	struct anim moveset;
	struct moveset_source src;
	struct records map;
};

static void set_load(uint32_t model, struct donor_set *s)
{
	size_t len;
	uint32_t id = model + RECORDS_RIG_BEFORE;
	uint8_t *p = entry_bytes(NULL, id, &len);
	struct mh_diag d = {0};
	if (kind_of(p, len) != KIND_ANIM || anim_decode(p, len, CLIP_NONE, &s->moveset, &d))
		fail_msg("entry %u: not a moveset: %s", id, d.msg);
	free(p);
	assert_true(moveset_source_of(id, entry_bytes, NULL, &s->src));
	assert_int_equal(moveset_map(&s->moveset, &s->src, &s->map), 1);
}

static void set_free(struct donor_set *s)
{
	records_free(&s->map);
	moveset_source_free(&s->src);
	anim_free(&s->moveset);
}

/* Whether clip id `id` (stream id / 100, slot id % 100) is filled. */
static bool clip_id_filled(const struct anim *a, uint32_t id)
{
	uint32_t stream = id / 100, slot = id % 100;
	return stream < a->nstreams && slot < a->streams[stream].nslots &&
	       a->streams[stream].slots[slot] != ANIM_EMPTY;
}

static uint32_t filled_clip_ids(const struct anim *a)
{
	uint32_t n = 0;
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t slot = 0; slot < a->streams[s].nslots; slot++)
			n += a->streams[s].slots[slot] != ANIM_EMPTY;
	return n;
}

/* ---- the archive ------------------------------------------------------- */

static void test_archive_is_told_as_mhp3rd_by_its_magics(void **state)
{
	(void)state;
	need_sample();
	struct databin_game_clue clue;
	databin_tell_game(&S.db, mem_archive_read, &S.in, &clue);
	assert_int_equal(clue.game, GAME_MHP3RD);
	assert_int_equal(clue.how, CLUE_MAGIC);
	assert_true(S.db.encrypted);
	assert_int_equal(S.db.count, databin_game_entries(GAME_MHP3RD));
	assert_int_equal(S.db.game, GAME_MHP3RD);
}

/* Each set's overlays name its em id, and the walk back from its model
 * finds them; the monster table puts the named monsters where they are. */
static void test_each_set_is_found_from_its_overlays(void **state)
{
	(void)state;
	need_sample();
	static const struct {
		uint32_t model;
		int em;
		const char *name; /* in by-name/, NULL: none */
	} SETS[] = {
		{BRUTE_MODEL, 23, "brute-tigrex"},
		{ZINOGRE_MODEL, 40, "zinogre"},
		{DONOR_MODEL, DONOR_EM, NULL},
	};
	for (size_t i = 0; i < sizeof SETS / sizeof *SETS; i++) {
		char name[RECORDS_OVERLAY_HEAD], want[32];
		for (uint32_t k = 0; k < 2; k++) {
			size_t len;
			uint8_t *p = entry_bytes(NULL, SETS[i].model - 2 + k, &len);
			assert_int_equal(records_overlay_monster(p, len, name, sizeof name), SETS[i].em);
			snprintf(want, sizeof want, "em%03dm%u.ovl", SETS[i].em, k);
			assert_string_equal(name, want);
			free(p);
		}
		struct moveset_reader rd = {entry_bytes, NULL};
		uint32_t from = 0;
		assert_int_equal(records_find_monster(SETS[i].model, moveset_head, &rd, &from, name,
						      sizeof name),
				 SETS[i].em);
		assert_int_equal(from, SETS[i].model - 1);
		const struct monster *m = SETS[i].name ? monster_named(GAME_MHP3RD, SETS[i].name)
						       : NULL;
		if (SETS[i].name) {
			assert_non_null(m);
			assert_int_equal(m->em, SETS[i].em);
			assert_int_equal(m->model, SETS[i].model);
		}
	}
}

/* ---- the Brute Tigrex -------------------------------------------------- */

static void test_brute_rig_has_two_origin_joints_fork_1_and_an_orphan_root(void **state)
{
	(void)state;
	need_sample();
	struct donor_set s;
	set_load(BRUTE_MODEL, &s);
	const struct skeleton *rig = s.src.rig;
	assert_int_equal(rig->game, SKELETON_MHP3RD);
	assert_int_equal(rig_body_fork(rig), 1);
	assert_int_equal(s.map.fork, 1);
	for (uint32_t b = 0; b < 2; b++) {
		double world[3];
		assert_int_equal(rig_bind_world(rig, b, world, NULL), MH_OK);
		for (int c = 0; c < 3; c++)
			assert_true(world[c] == 0.0);
	}
	assert_int_equal(rig->bones[0].parent, -1);
	assert_int_equal(rig->bones[1].parent, 0);
	/* Animated bones first (the records), then the orphan chain, a
	 * second root. */
	uint32_t animated = s.map.nrecords, roots = 0;
	for (uint32_t b = 0; b < rig->nbones; b++)
		roots += rig->bones[b].parent < 0;
	assert_int_equal(roots, 2);
	assert_int_equal(rig_severed_root(rig), (int32_t)animated);
	assert_in_range(rig->nbones, 45, 50);
	assert_in_range(animated, 42, 46);
	/* The head chain: the first child of the shoulders (the spine's end,
	 * the next joint after the hip with more than one child), a chain of
	 * 3 or more ending before the tail (off the hip) and the legs (the
	 * shoulders' other children). */
	uint32_t children[64] = {0};
	assert_true(rig->nbones <= 64);
	for (uint32_t b = 1; b < rig->nbones; b++)
		if (rig->bones[b].parent >= 0)
			children[rig->bones[b].parent]++;
	int32_t shoulders = -1, head = -1, leg = -1, tail = -1;
	for (uint32_t b = 2; b < animated && shoulders < 0; b++)
		if (children[b] > 1)
			shoulders = (int32_t)b;
	assert_true(shoulders > 1);
	for (uint32_t b = (uint32_t)shoulders + 1; b < animated; b++) {
		int32_t parent = rig->bones[b].parent;
		if (parent == shoulders && head < 0)
			head = (int32_t)b;
		else if (parent == shoulders && leg < 0)
			leg = (int32_t)b;
		else if (parent == 1 && head >= 0 && tail < 0)
			tail = (int32_t)b;
	}
	assert_true(head > shoulders && tail > head + 2 && leg > tail);
	for (int32_t b = head + 1; b < tail; b++)
		assert_int_equal(rig->bones[b].parent, b - 1);
	set_free(&s);
}

static void test_brute_moveset_moves_at_or_above_the_fork_only(void **state)
{
	(void)state;
	need_sample();
	struct donor_set s;
	set_load(BRUTE_MODEL, &s);
	int32_t first;
	assert_int_equal(s.moveset.nstreams, 2);
	assert_int_equal(filled_clip_ids(&s.moveset), 77);
	assert_true(clip_id_filled(&s.moveset, 24));
	assert_int_equal(s.map.offset, 0);
	assert_int_equal(s.map.nskip, 0);
	assert_true(records_fork_kept(&s.map, &first));
	for (uint32_t i = 0; i < s.map.nrecords; i++)
		if (s.map.located[i])
			assert_true(records_at_or_above_fork(&s.map, s.map.bone[i]));
	set_free(&s);
}

/* ---- the Zinogre ------------------------------------------------------- */

static void test_zinogre_maps_with_em040s_skip_list(void **state)
{
	(void)state;
	need_sample();
	struct donor_set s;
	set_load(ZINOGRE_MODEL, &s);
	const uint8_t *known;
	size_t nknown = records_known_skips(40, &known);
	assert_int_equal(s.src.monster, 40);
	assert_true(s.src.rig->nbones > known[nknown - 1]);
	assert_int_equal(s.map.nskip, nknown);
	for (size_t i = 0; i < nknown; i++)
		assert_int_equal(s.map.skip[i], known[i]);
	/* As many records as the animated bones the list leaves: the last
	 * lands on the last animated bone. */
	uint32_t animated = s.src.rig->params[1], skipped = 0;
	for (size_t i = 0; i < nknown; i++)
		skipped += known[i] < animated;
	assert_int_equal(s.map.nrecords, animated - skipped);
	assert_int_equal(s.map.bone[s.map.nrecords - 1], (int32_t)animated - 1);
	set_free(&s);
}

static void test_zinogre_has_more_clip_ids_than_the_tigrex_has_entries(void **state)
{
	(void)state;
	need_sample();
	struct donor_set s;
	set_load(ZINOGRE_MODEL, &s);
	assert_true(filled_clip_ids(&s.moveset) > PORT_TIGREX_ENTRIES);
	assert_true(s.moveset.nclips > PORT_TIGREX_ENTRIES);
	assert_true(clip_id_filled(&s.moveset, 24));
	assert_true(clip_id_filled(&s.moveset, 25));
	set_free(&s);
}

/* ---- the identity donor ------------------------------------------------ */

/* The MHFU sample's Tigrex: its rig and pack. */
static void tigrex_load(struct skeleton *rig, struct anim *pack)
{
	struct pac pac;
	struct mh_diag d = {0};
	assert_int_equal(pac_decode(S.tigrex.p, S.tigrex.len, &pac, &d), MH_OK);
	const struct pac_entry *e = pac.entries;
	assert_true(pac.count >= 4);
	assert_int_equal(skeleton_decode(S.tigrex.p + e[0].offset, e[0].size, rig, &d), MH_OK);
	assert_int_equal(anim_decode(S.tigrex.p + e[3].offset, e[3].size, CLIP_NONE, pack, &d),
			 MH_OK);
	pac_free(&pac);
}

static void assert_tracks_equal(const struct clip_track *a, const struct clip_track *b)
{
	assert_int_equal(a->nchannels, b->nchannels);
	for (uint32_t k = 0; k < a->nchannels; k++) {
		assert_int_equal(a->channels[k].bit, b->channels[k].bit);
		assert_int_equal(a->channels[k].nkeys, b->channels[k].nkeys);
		assert_memory_equal(a->channels[k].keys, b->channels[k].keys,
				    a->channels[k].nkeys * sizeof *a->channels[k].keys);
	}
}

static void test_identity_donor_has_the_tigrexs_bones(void **state)
{
	(void)state;
	need_sample();
	struct donor_set s;
	struct skeleton rig;
	struct anim pack;
	set_load(DONOR_MODEL, &s);
	tigrex_load(&rig, &pack);
	const struct skeleton *own = s.src.rig;
	assert_int_equal(own->game, SKELETON_MHP3RD);
	assert_int_equal(own->nbones, rig.nbones);
	for (uint32_t b = 0; b < rig.nbones; b++) {
		assert_int_equal(own->bones[b].parent, rig.bones[b].parent);
		assert_memory_equal(own->bones[b].position, rig.bones[b].position,
				    sizeof rig.bones[b].position);
	}
	anim_free(&pack);
	skeleton_free(&rig);
	set_free(&s);
}

static void test_identity_donor_maps_with_offset_0_and_no_skips(void **state)
{
	(void)state;
	need_sample();
	struct donor_set s;
	int32_t first;
	set_load(DONOR_MODEL, &s);
	assert_int_equal(s.src.monster, DONOR_EM);
	assert_int_equal(s.map.offset, 0);
	assert_int_equal(s.map.fork_offset, 0);
	assert_true(s.map.fork_kept);
	assert_int_equal(s.map.nskip, 0);
	assert_true(records_fork_kept(&s.map, &first));
	for (uint32_t i = 0; i < s.map.nrecords; i++)
		assert_int_equal(s.map.bone[i], (int32_t)i);
	set_free(&s);
}

/* Clip id e is the Tigrex's entry e: part 0's tracks, then part 1's and
 * part 2's, for every entry part 0 fills, and no other. */
static void test_identity_donor_plays_the_tigrexs_entries(void **state)
{
	(void)state;
	need_sample();
	struct donor_set s;
	struct skeleton rig;
	struct anim pack;
	set_load(DONOR_MODEL, &s);
	tigrex_load(&rig, &pack);
	uint32_t entries = 0, nparts = entries_parts(&pack);
	assert_int_equal(nparts, 3);
	for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
		uint32_t stream, slot;
		int32_t lead = entries_part_clip(&pack, e, 0, &stream, &slot);
		assert_int_equal(clip_id_filled(&s.moveset, e), lead >= 0);
		if (lead < 0)
			continue;
		entries++;
		const struct clip *c =
			&s.moveset.clips[s.moveset.streams[e / 100].slots[e % 100]];
		assert_int_equal(c->loop, pack.clips[lead].loop);
		assert_memory_equal(&c->loop_start, &pack.clips[lead].loop_start,
				    sizeof c->loop_start);
		uint32_t at = 0;
		for (uint32_t k = 0; k < nparts; k++) {
			uint32_t first, count;
			assert_true(rig_part_joints(&rig, k, &first, &count));
			assert_int_equal(first, at);
			int32_t part = entries_part_clip(&pack, e, k, &stream, &slot);
			assert_true(part >= 0); /* this Tigrex's parts fill what part 0 does */
			for (uint32_t j = 0; j < count; j++)
				assert_tracks_equal(&c->tracks[at + j], &pack.clips[part].tracks[j]);
			at += count;
		}
		assert_int_equal(c->ntracks, at);
	}
	assert_int_equal(filled_clip_ids(&s.moveset), entries);
	assert_true(entries > 0);
	/* 24 and 25 are the head's alone: no whole-rig clip. */
	assert_false(clip_id_filled(&s.moveset, 24));
	anim_free(&pack);
	skeleton_free(&rig);
	set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_archive_is_told_as_mhp3rd_by_its_magics),
		cmocka_unit_test(test_each_set_is_found_from_its_overlays),
		cmocka_unit_test(test_brute_rig_has_two_origin_joints_fork_1_and_an_orphan_root),
		cmocka_unit_test(test_brute_moveset_moves_at_or_above_the_fork_only),
		cmocka_unit_test(test_zinogre_maps_with_em040s_skip_list),
		cmocka_unit_test(test_zinogre_has_more_clip_ids_than_the_tigrex_has_entries),
		cmocka_unit_test(test_identity_donor_has_the_tigrexs_bones),
		cmocka_unit_test(test_identity_donor_maps_with_offset_0_and_no_skips),
		cmocka_unit_test(test_identity_donor_plays_the_tigrexs_entries),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
