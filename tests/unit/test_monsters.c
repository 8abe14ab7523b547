/* SPDX-License-Identifier: MIT */
/* The monster tables (codecs/monsters.h): the published places, names
 * unique and as by-name/ writes them, models ascending. */
#include <ctype.h>

#include "testlib.h"

#include "monsters.h"

static void test_known_places(void **state)
{
	(void)state;
	const struct monster *m = monster_named(GAME_MHFU, "tigrex");
	assert_non_null(m);
	assert_int_equal(m->em, 75);
	assert_int_equal(m->model, 6186); /* file_06185 */
	assert_int_equal(monster_named(GAME_MHFU, "nargacuga")->model, 6111 + 81);
	m = monster_named(GAME_MHP3RD, "zinogre");
	assert_int_equal(m->em, 40);
	assert_int_equal(m->model, 5340); /* file_05339 */
	assert_int_equal(monster_named(GAME_MHP3RD, "brute-tigrex")->model, 5249);
	assert_int_equal(monster_named(GAME_MHP3RD, "rathian")->model, 5141);
	assert_int_equal(monster_named(GAME_MHP3RD, "arzuros")->model, 5350);
	assert_int_equal(monsters_moveset_step(GAME_MHP3RD), 2);
	assert_int_equal(monsters_moveset_step(GAME_MHFU), 0);
	assert_null(monster_named(GAME_MHFU, "zinogre"));
	assert_null(monster_named(GAME_MHFU, "Tigrex"));
	size_t n;
	assert_null(monsters_of(GAME_MHP2G, &n));
	assert_int_equal(n, 0);
}

static void test_names_and_order(void **state)
{
	(void)state;
	static const enum databin_game GAMES[] = {GAME_MHFU, GAME_MHP3RD};
	for (size_t g = 0; g < 2; g++) {
		size_t n;
		const struct monster *m = monsters_of(GAMES[g], &n);
		assert_true(n > 50);
		for (size_t i = 0; i < n; i++) {
			for (const char *c = m[i].name; *c; c++)
				assert_true(islower((unsigned char)*c) || isdigit((unsigned char)*c) ||
					    *c == '-');
			assert_true(m[i].name[0] != '-' && !strstr(m[i].name, "--") &&
				    !strstr(m[i].name, "-moveset"));
			assert_ptr_equal(monster_named(GAMES[g], m[i].name), &m[i]);
			if (i) {
				assert_true(m[i].model > m[i - 1].model);
				assert_true(m[i].em > m[i - 1].em);
			}
			/* Movesets two on never land on another monster's model. */
			for (size_t j = 0; GAMES[g] == GAME_MHP3RD && j < n; j++)
				assert_true(m[j].model != m[i].model + 2 &&
					    m[j].model != m[i].model + 1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_places),
		cmocka_unit_test(test_names_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
