/* SPDX-License-Identifier: MIT */
/* Tests of codecs/databin's games: their names, the entries each stores
 * plain, and telling the game of an archive from those entries (their
 * magics first, then how plain their bytes read, then the entry count). */
#include "cipher.h"
#include "databin.h"
#include "rng.h"
#include "testlib.h"
#include "databin_model.h"

/* ---- plain entries ---------------------------------------------------- */

static void test_entry_plain_follows_archive_and_game(void **state)
{
	(void)state;
	struct databin m;
	model_init(&m, 1, 100, NULL, false);
	for (uint32_t id = 0; id < 100; id++)
		assert_true(databin_entry_plain(&m, id));
	m.encrypted = true;
	m.game = GAME_UNKNOWN;
	for (uint32_t id = 0; id < 100; id++)
		assert_false(databin_entry_plain(&m, id));
	m.game = GAME_MHFU;
	for (uint32_t id = 0; id < 100; id++)
		assert_int_equal(databin_entry_plain(&m, id),
				 id == 42 || id == 43 || (id >= 46 && id <= 62));
	m.game = GAME_MHP2G;
	for (uint32_t id = 0; id < 100; id++)
		assert_int_equal(databin_entry_plain(&m, id),
				 id == 22 || id == 23 || (id >= 26 && id <= 42));
	m.game = GAME_MHP3RD;
	for (uint32_t id = 0; id < 100; id++)
		assert_int_equal(databin_entry_plain(&m, id),
				 (id >= 17 && id <= 20) || (id >= 81 && id <= 92));
	databin_free(&m);
}

static void test_game_plain_id_lists(void **state)
{
	(void)state;
	assert_false(databin_game_plain_id(GAME_UNKNOWN, 42));
	assert_false(databin_game_plain_id(GAME_COUNT, 42));
	assert_false(databin_game_plain_id((enum databin_game)99, 42));
	assert_true(databin_game_plain_id(GAME_MHFU, 62));
	assert_false(databin_game_plain_id(GAME_MHFU, 63));
	assert_false(databin_game_plain_id(GAME_MHFU, 44));
	assert_false(databin_game_plain_id(GAME_MHP2G, 24));
	assert_true(databin_game_plain_id(GAME_MHP3RD, 92));
	assert_false(databin_game_plain_id(GAME_MHP3RD, 21));
}

/* ---- game names -------------------------------------------------------- */

static void test_game_name_print_parse_roundtrip(void **state)
{
	(void)state;
	for (int g = GAME_UNKNOWN + 1; g < GAME_COUNT; g++) {
		const char *name = databin_game_name((enum databin_game)g);
		assert_non_null(name);
		assert_true(strlen(name) > 0);
		assert_int_equal(databin_game_parse(name), g);
	}
	assert_string_equal(databin_game_name(GAME_UNKNOWN), "unknown");
	assert_string_equal(databin_game_name(GAME_COUNT), "unknown");
	assert_string_equal(databin_game_name((enum databin_game)1000), "unknown");
}

static void test_game_parse_aliases_any_case(void **state)
{
	(void)state;
	assert_int_equal(databin_game_parse("mhfu"), GAME_MHFU);
	assert_int_equal(databin_game_parse("MHFU"), GAME_MHFU);
	assert_int_equal(databin_game_parse("mhp2g"), GAME_MHP2G);
	assert_int_equal(databin_game_parse("MhP2G"), GAME_MHP2G);
	assert_int_equal(databin_game_parse("mhp3rd"), GAME_MHP3RD);
	assert_int_equal(databin_game_parse("MHP3RD"), GAME_MHP3RD);
	assert_int_equal(databin_game_parse(""), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("unknown"), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("mhf"), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("mhfu "), GAME_UNKNOWN);
	assert_int_equal(databin_game_parse("mhp3"), GAME_UNKNOWN);
}

/* ---- game guessing ----------------------------------------------------- */

/* An encrypted archive of 100 one-block entries whose entries on
 * `plain_game`'s list are stored plain; the model handed back has its
 * game cleared, as databin_open would leave it. */
static uint8_t *guess_archive(enum databin_game plain_game, uint32_t count,
			      uint64_t *size, struct databin *m)
{
	model_init(m, 1, count, NULL, true);
	model_sizes(m, 0, NULL);
	model_fill(m, 0);
	m->game = plain_game;
	uint8_t *a = build_archive(m, size);
	m->game = GAME_UNKNOWN;
	return a;
}

static enum databin_game open_and_guess(const uint8_t *a, uint64_t size,
					struct databin *got)
{
	struct mh_diag d = {0};
	struct mem_archive mem = {a, (size_t)size, size, 0, false};
	assert_int_equal(databin_open(mem_archive_read, &mem, size, got, &d), MH_OK);
	assert_true(got->encrypted);
	assert_int_equal(got->game, GAME_UNKNOWN);
	enum databin_game g = databin_guess_game(got, mem_archive_read, &mem);
	assert_int_equal(got->game, g);
	return g;
}

static void test_guess_game_mhfu_from_plain_entries_42_43_46_to_62(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_MHFU, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_MHFU);
	assert_true(databin_entry_plain(&got, 50));
	assert_false(databin_entry_plain(&got, 30));
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_guess_game_mhp2g_from_plain_entries_22_23_26_to_42(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_MHP2G, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_MHP2G);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_guess_game_mhp3rd_from_plain_entries(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_MHP3RD, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_MHP3RD);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

static void test_guess_game_unknown_when_every_entry_is_encrypted(void **state)
{
	(void)state;
	struct databin m, got;
	uint64_t size;
	uint8_t *a = guess_archive(GAME_UNKNOWN, 100, &size, &m);
	assert_int_equal(open_and_guess(a, size, &got), GAME_UNKNOWN);
	free(a);
	databin_free(&m);
	databin_free(&got);
}

/* What each of 100 one-block entries holds, as stored. */
enum held { HELD_ENCRYPTED, HELD_TABLE, HELD_NOISE, HELD_MODULE, HELD_MOVIE };

/* An encrypted archive of 100 one-block entries: HELD_ENCRYPTED entries a
 * structured table stored encrypted; the others stored plain, a table
 * (mostly zeros), noise (no more zeros than its decryption), or noise
 * behind a PSP module's or a PSMF movie's magic. */
static uint8_t *held_archive(const enum held *held, uint64_t *size, struct databin *m)
{
	struct rng r = {0x5EED};
	model_init(m, 1, 100, NULL, true);
	model_sizes(m, 0, NULL);
	model_fill(m, 0);
	*size = model_file_size(m);
	uint8_t *toc, *a = calloc(1, *size);
	size_t len;
	assert_non_null(a);
	encode_ok(m, &toc, &len);
	memcpy(a, toc, len);
	free(toc);
	for (uint32_t id = 0; id < m->count; id++) {
		uint8_t *p = a + databin_entry_offset(m, id);
		if (held[id] == HELD_ENCRYPTED || held[id] == HELD_TABLE)
			structured_content(id, p, BLK);
		else
			for (size_t i = 0; i < BLK; i++)
				p[i] = (uint8_t)(1 + rng_below(&r, 255));
		if (held[id] == HELD_MODULE)
			memcpy(p, id % 2 ? "~PSP" : "\x7f" "ELF", 4);
		if (held[id] == HELD_MOVIE)
			memcpy(p, "PSMF", 4);
		if (held[id] == HELD_ENCRYPTED)
			cipher_encrypt(m->start[id], 0, p, BLK);
	}
	return a;
}

/* Marks `game`'s plain ids in held[] as `what`. */
static void hold_game(enum held *held, enum databin_game game, enum held what)
{
	for (uint32_t id = 0; id < 100; id++)
		if (databin_game_plain_id(game, id))
			held[id] = what;
}

static struct databin_game_clue tell(const enum held *held)
{
	struct databin m, got;
	struct mh_diag d = {0};
	struct databin_game_clue clue;
	uint64_t size;
	uint8_t *a = held_archive(held, &size, &m);
	struct mem_archive mem = {a, (size_t)size, size, 0, false};
	assert_int_equal(databin_open(mem_archive_read, &mem, size, &got, &d), MH_OK);
	assert_true(got.encrypted);
	databin_tell_game(&got, mem_archive_read, &mem, &clue);
	assert_int_equal(got.game, GAME_UNKNOWN); /* left alone */
	assert_int_equal(databin_guess_game(&got, mem_archive_read, &mem), clue.game);
	assert_int_equal(got.game, clue.game);
	free(a);
	databin_free(&m);
	databin_free(&got);
	return clue;
}

static void test_guess_game_by_magic_when_plain_entries_read_as_noise(void **state)
{
	(void)state;
	/* Modules and movies are compressed or encrypted by Sony: as many
	 * zeros stored as decrypted, so no statistics; the magics tell. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHFU, HELD_MOVIE);
	held[42] = held[43] = HELD_MODULE;
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_MHFU);
	assert_int_equal(clue.how, CLUE_MAGIC);
	/* 42 is on MHP2G's list too: 43 is the witness. */
	assert_int_equal(clue.id, 43);
	assert_string_equal(clue.what, "a PSP module (~PSP)");

	memset(held, 0, sizeof held);
	hold_game(held, GAME_MHP3RD, HELD_MODULE);
	clue = tell(held);
	assert_int_equal(clue.game, GAME_MHP3RD);
	assert_int_equal(clue.how, CLUE_MAGIC);
	assert_int_equal(clue.id, 17);
	assert_string_equal(clue.what, "a PSP module (~PSP)");
}

static void test_guess_game_magics_come_before_statistics(void **state)
{
	(void)state;
	/* MHP2G's entries read as plain tables, MHFU's hold movies: the
	 * movies are the stronger evidence. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHP2G, HELD_TABLE);
	hold_game(held, GAME_MHFU, HELD_MOVIE);
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_MHFU);
	assert_int_equal(clue.how, CLUE_MAGIC);
	assert_string_equal(clue.what, "a PSMF movie");
}

static void test_guess_game_magic_tie_falls_back_to_statistics(void **state)
{
	(void)state;
	/* One movie at 42, on both MHFU's and MHP2G's lists: a tie.  The
	 * statistics then decide: MHP2G's other entries read as tables. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHP2G, HELD_TABLE);
	held[42] = HELD_MOVIE;
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_MHP2G);
	assert_int_equal(clue.how, CLUE_STATISTICS);

	/* Nothing else plain: nothing tells. */
	memset(held, 0, sizeof held);
	held[42] = HELD_MOVIE;
	clue = tell(held);
	assert_int_equal(clue.game, GAME_UNKNOWN);
	assert_int_equal(clue.how, CLUE_NONE);
}

static void test_guess_game_unknown_when_plain_entries_read_as_noise(void **state)
{
	(void)state;
	/* Stored plain but neither a known magic nor structured data. */
	enum held held[100] = {0};
	hold_game(held, GAME_MHFU, HELD_NOISE);
	struct databin_game_clue clue = tell(held);
	assert_int_equal(clue.game, GAME_UNKNOWN);
	assert_int_equal(clue.how, CLUE_NONE);
}

static void test_plain_magic_names_what_an_entry_begins_with(void **state)
{
	(void)state;
	assert_string_equal(databin_plain_magic((const uint8_t *)"~PSP\0\0", 6),
			    "a PSP module (~PSP)");
	assert_string_equal(databin_plain_magic((const uint8_t *)"\x7f" "ELF", 4),
			    "a PSP module (ELF)");
	assert_string_equal(databin_plain_magic((const uint8_t *)"PSMF0015", 8),
			    "a PSMF movie");
	assert_string_equal(databin_plain_magic((const uint8_t *)"RIFF", 4), "a RIFF sound");
	assert_null(databin_plain_magic((const uint8_t *)"~PS", 3));
	assert_null(databin_plain_magic((const uint8_t *)"pmo\0", 4));
	assert_null(databin_plain_magic((const uint8_t *)"psmf", 4));
}

static void test_guess_game_plain_archive_by_entry_count(void **state)
{
	(void)state;
	static const struct {
		uint32_t count;
		enum databin_game game;
	} cases[] = {{6656, GAME_MHFU}, {6602, GAME_MHP2G}, {5955, GAME_MHP3RD},
		     {6000, GAME_UNKNOWN}};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct databin m, got;
		struct mh_diag d = {0};
		uint8_t *toc;
		size_t len;
		/* Only the last entry has a block: the archive stays small. */
		uint32_t *blocks = calloc(cases[c].count, sizeof *blocks);
		assert_non_null(blocks);
		blocks[cases[c].count - 1] = 1;
		model_init(&m, 14, cases[c].count, blocks, false);
		model_sizes(&m, 0, NULL);
		model_fill(&m, 0xff);
		encode_ok(&m, &toc, &len);
		struct mem_archive mem = {toc, len, model_file_size(&m), 0, false};
		assert_int_equal(databin_open(mem_archive_read, &mem, mem.size, &got, &d), MH_OK);
		assert_false(got.encrypted);
		assert_int_equal(databin_guess_game(&got, mem_archive_read, &mem), cases[c].game);
		assert_int_equal(got.game, cases[c].game);
		free(toc);
		free(blocks);
		databin_free(&m);
		databin_free(&got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_plain_follows_archive_and_game),
		cmocka_unit_test(test_game_plain_id_lists),
		cmocka_unit_test(test_game_name_print_parse_roundtrip),
		cmocka_unit_test(test_game_parse_aliases_any_case),
		cmocka_unit_test(test_guess_game_mhfu_from_plain_entries_42_43_46_to_62),
		cmocka_unit_test(test_guess_game_mhp2g_from_plain_entries_22_23_26_to_42),
		cmocka_unit_test(test_guess_game_mhp3rd_from_plain_entries),
		cmocka_unit_test(test_guess_game_unknown_when_every_entry_is_encrypted),
		cmocka_unit_test(test_guess_game_plain_archive_by_entry_count),
		cmocka_unit_test(test_guess_game_by_magic_when_plain_entries_read_as_noise),
		cmocka_unit_test(test_guess_game_magics_come_before_statistics),
		cmocka_unit_test(test_guess_game_magic_tie_falls_back_to_statistics),
		cmocka_unit_test(test_guess_game_unknown_when_plain_entries_read_as_noise),
		cmocka_unit_test(test_plain_magic_names_what_an_entry_begins_with),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
