/* SPDX-License-Identifier: MIT */
/* Which entries hold which monster: the public monster ids of each game
 * and where their model PACs and movesets are, for the mount's by-name/
 * links (mount.mhfu(8) "by-name/" names the sources).
 *
 *   MHFU (NA/EU): a big monster's model PAC is file_{em + 6110}, engine
 *   id em + 6111 (the Tigrex, em 75: file_06185); its moveset is the
 *   PAC's animation pack.
 *   MHP3rd: each monster's model PAC is listed by the game's file list;
 *   its geometry is the next entry and its moveset (a standalone
 *   animation pack) the entry two ids on.
 *
 * The tables say where a monster should be; whether the entry there is a
 * model the caller checks. */
#ifndef MH_MONSTERS_H
#define MH_MONSTERS_H

#include <stddef.h>
#include <stdint.h>

#include "databin.h"

struct monster {
	uint16_t em;          /* the game's monster id */
	uint32_t model;       /* engine id of its model PAC */
	const char *name;     /* lower case, words joined by '-'; a later id
				 of a name the list repeats ends in -emNNN */
};

/* The monsters of `game`, by ascending model id; *n of them.  NULL and 0
 * for a game without a table (MHP2G: its entries are numbered otherwise). */
const struct monster *monsters_of(enum databin_game game, size_t *n);

/* The entry two ids on from a model that is its moveset (MHP3rd), 0 when
 * the moveset is inside the model PAC (MHFU). */
uint32_t monsters_moveset_step(enum databin_game game);

/* The monster of `game` whose name is `name`, NULL if none. */
const struct monster *monster_named(enum databin_game game, const char *name);

#endif
