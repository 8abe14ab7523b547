/* SPDX-License-Identifier: MIT */
/* The tables of monsters.h.  MHFU: the monster ids of the large monsters
 * as a public HP overlay for the game reads them from memory
 * (Alexander-Lancellott/MH-HP-Overlay-For-PSP-Emulator,
 * modules/monsters_mhfu.py), placed by the em + 6110 rule.  MHP3rd: the
 * ids and names of Kurogami2134/MHP3rd-Game-FIle-List
 * (useful_info/monster_ids.md), placed where that list's files.csv puts
 * em/model/emNNN.pac (its numbers count the TOC as file 0000, so the
 * engine id is one less; the MHFU-ModKit toolkit's
 * docs/MHP3RD_FILE_MONSTER_MAP.md agrees for a dozen monsters it
 * identified by eye, e.g. Zinogre file_05339). */
#include "monsters.h"

#include <string.h>

#define MHFU_MODEL_BASE 6111u

/* Engine id of an MHFU model from its monster id. */
#define FU(em, name) {em, MHFU_MODEL_BASE + (em), name}

static const struct monster MHFU[] = {
	FU(1, "rathian"), FU(2, "fatalis"), FU(6, "yian-kut-ku"), FU(7, "lao-shan-lung"),
	FU(8, "cephadrome"), FU(11, "rathalos"), FU(14, "diablos"), FU(15, "khezu"),
	FU(17, "gravios"), FU(20, "gypceros"), FU(21, "plesioth"), FU(22, "basarios"),
	FU(26, "monoblos"), FU(27, "velocidrome"), FU(28, "gendrome"), FU(31, "iodrome"),
	FU(33, "kirin"), FU(36, "fatalis-em036"), FU(37, "pink-rathian"),
	FU(38, "blue-yian-kut-ku"), FU(39, "purple-gypceros"), FU(40, "yian-garuga"),
	FU(41, "silver-rathalos"), FU(42, "gold-rathian"), FU(43, "black-diablos"),
	FU(44, "white-monoblos"), FU(45, "red-khezu"), FU(46, "green-plesioth"),
	FU(47, "black-gravios"), FU(48, "daimyo-hermitaur"), FU(49, "azure-rathalos"),
	FU(50, "ash-lao-shan-lung"), FU(51, "blangonga"), FU(52, "congalala"),
	FU(53, "rajang"), FU(54, "kushala-daora"), FU(55, "shen-gaoren"),
	FU(58, "yama-tsukami"), FU(59, "chameleos"), FU(60, "kushala-daora-em060"),
	FU(64, "lunastra"), FU(65, "teostra"), FU(67, "shogun-ceanataur"),
	FU(68, "bulldrome"), FU(71, "fatalis-em071"), FU(72, "yama-tsukami-em072"),
	FU(75, "tigrex"), FU(76, "akantor"), FU(77, "giadrome"), FU(78, "yian-garuga-em078"),
	FU(79, "king-shakalaka"), FU(80, "vespoid-queen"), FU(81, "nargacuga"),
	FU(82, "hypnocatrice"), FU(83, "lavasioth"), FU(84, "copper-blangonga"),
	FU(85, "emerald-congalala"), FU(86, "plum-d-hermitaur"), FU(87, "terra-s-ceanataur"),
	FU(88, "ukanlos"), FU(89, "rajang-em089"),
};

/* files.csv's number of em/model/emNNN.pac, less one. */
#define P3(em, csv, name) {em, (csv) - 1u, name}

static const struct monster MHP3RD[] = {
	P3(1, 5142, "rathian"), P3(2, 5145, "rathalos"), P3(3, 5150, "qurupeco"),
	P3(4, 5155, "gigginox"), P3(5, 5160, "barioth"), P3(6, 5165, "diablos"),
	P3(7, 5170, "deviljho"), P3(8, 5175, "barroth"), P3(9, 5180, "uragaan"),
	P3(10, 5187, "jaggi"), P3(11, 5194, "jaggia"), P3(12, 5199, "great-jaggi"),
	P3(13, 5202, "baggi"), P3(14, 5205, "great-baggi"), P3(15, 5208, "gold-rathian"),
	P3(16, 5213, "royal-ludroth"), P3(17, 5220, "ludroth"), P3(18, 5223, "silver-rathalos"),
	P3(19, 5228, "agnaktor"), P3(20, 5231, "black-diablos"), P3(21, 5238, "uroktor"),
	P3(22, 5245, "delex"), P3(23, 5250, "brute-tigrex"), P3(24, 5255, "alatreon"),
	P3(25, 5260, "jhen-mohran"), P3(26, 5267, "giggi"), P3(27, 5274, "aptonoth"),
	P3(28, 5277, "popo"), P3(29, 5284, "rhenoplos"), P3(30, 5291, "felyne"),
	P3(31, 5294, "melynx"), P3(32, 5299, "green-nargacuga"), P3(33, 5306, "altaroth"),
	P3(34, 5313, "kelbi"), P3(35, 5320, "gigginox-egg"), P3(36, 5327, "bnahabra"),
	P3(37, 5330, "bnahabra-em037"), P3(38, 5333, "bnahabra-em038"),
	P3(39, 5336, "bnahabra-em039"), P3(40, 5341, "zinogre"),
	P3(41, 5346, "amatsu-magatsuchi"),
	/* The list writes 5341 here, a slip: it falls between 5350 and 5352. */
	P3(42, 5351, "arzuros"), P3(43, 5356, "lagombi"), P3(44, 5361, "volvidon"),
	P3(45, 5364, "great-wroggi"), P3(46, 5369, "duramboros"), P3(47, 5374, "nibelsnarf"),
	P3(48, 5377, "wroggi"), P3(49, 5380, "slagtoth"), P3(50, 5387, "gargwa"),
	P3(51, 5390, "crimson-qurupeco"), P3(52, 5393, "baleful-gigginox"),
	P3(53, 5396, "sand-barioth"), P3(54, 5399, "jade-barroth"), P3(55, 5402, "steel-uragaan"),
	P3(56, 5405, "purple-ludroth"), P3(57, 5408, "glacial-agnaktor"), P3(58, 5411, "tigrex"),
	P3(59, 5414, "nargacuga"), P3(60, 5419, "akantor"), P3(61, 5424, "ukanlos"),
	P3(62, 5429, "bulldrome"), P3(63, 5436, "bullfango"), P3(64, 5439, "anteka"),
	P3(65, 5442, "cart-felyne"), P3(66, 5449, "nyanjiro"), P3(67, 5456, "veggie-elder"),
	P3(68, 5459, "slagtoth-em068"),
};

const struct monster *monsters_of(enum databin_game game, size_t *n)
{
	switch (game) {
	case GAME_MHFU:
		*n = sizeof MHFU / sizeof *MHFU;
		return MHFU;
	case GAME_MHP3RD:
		*n = sizeof MHP3RD / sizeof *MHP3RD;
		return MHP3RD;
	default:
		*n = 0;
		return NULL;
	}
}

uint32_t monsters_moveset_step(enum databin_game game)
{
	return game == GAME_MHP3RD ? 2 : 0;
}

const struct monster *monster_named(enum databin_game game, const char *name)
{
	size_t n;
	const struct monster *m = monsters_of(game, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}
