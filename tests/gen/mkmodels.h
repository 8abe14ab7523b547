/* SPDX-License-Identifier: MIT */
/* Model PACs for the sample archive, built from the spec with the codecs'
 * builders and the tests' PMO synthesizer (mkpmo.h): shaped like the
 * retail ones (mhfu-archive(5)). */
#ifndef TESTS_MKMODELS_H
#define TESTS_MKMODELS_H

#include <stddef.h>
#include <stdint.h>

enum mkmodel {
	MODEL_TIGREX,       /* MHFU Tigrex: 48 bones, 6 streams, file_06185 */
	MODEL_FOUR_STREAMS, /* MHFU, 2 parts in 4 streams all filled, entries 4-6 filled */
	MODEL_TWO_STREAMS,  /* MHFU, one part in 2 streams */
	MODEL_P3RD,         /* MHP3rd model PAC: named skeleton, PMO, TMH, PMO, TMH */
	MODEL_P3RD_GEOMETRY,/* its PMO's companion: the geometry region (id + 1) */
	MODEL_P3RD_MOVESET, /* its moveset, a standalone pack (id + 2) */
	/* MHP3rd groups (mount.mhfu(8) "MHP3rd movesets"): the overlays
	 * naming the monster, then its asset sets of model PAC, geometry
	 * and moveset; rigs whose body fork sits at different joints. */
	MODEL_EM001_OVERLAY0,   /* em001m0.ovl */
	MODEL_EM001_OVERLAY1,   /* em001m1.ovl */
	MODEL_RATHIAN,          /* em001, set 1: a 2-bone lead chain, fork 4 */
	MODEL_RATHIAN_GEOMETRY, /* companions, as MODEL_P3RD_GEOMETRY */
	MODEL_RATHIAN_MOVESET,  /* 24 records, 0-1 moving: offset 2 */
	MODEL_RATHALOS,         /* em001, set 2: a lone root, fork 4 */
	MODEL_RATHALOS_GEOMETRY,
	MODEL_RATHALOS_MOVESET, /* 25 records, 0-2 moving: offset 1 */
	MODEL_EM040_OVERLAY0,   /* em040m0.ovl */
	MODEL_EM040_OVERLAY1,   /* em040m1.ovl */
	MODEL_ZINOGRE,          /* em040: 51 bones, fork 1 */
	MODEL_ZINOGRE_GEOMETRY,
	MODEL_ZINOGRE_MOVESET,  /* 37 records, 0-1 moving: offset 0 */
	MODEL_ODD_STREAMS,  /* MHFU, 3 parts whose odd streams are filled too
			       (entries 100-124), 120 and 121 the head's alone */
	MODEL_STATIC,       /* MHFU small monster: no skeleton, a static PMO and its bank */
	/* The MHP3rd sample's port donors (mkarchive --game mhp3rd), each a
	 * group of two overlays and one set as above. */
	MODEL_EM023_OVERLAY0,   /* em023m0.ovl */
	MODEL_EM023_OVERLAY1,   /* em023m1.ovl */
	MODEL_BRUTE_TIGREX,     /* em023: 47 bones, 2 origin joints, fork 1 */
	MODEL_BRUTE_TIGREX_GEOMETRY,
	MODEL_BRUTE_TIGREX_MOVESET, /* 77 clips in 2 streams, 44 records */
	MODEL_ZINOGRE_FULL,     /* em040 (overlays MODEL_EM040_*): MODEL_ZINOGRE's rig */
	MODEL_ZINOGRE_FULL_GEOMETRY,
	MODEL_ZINOGRE_FULL_MOVESET, /* 140 clip ids in 3 streams, 37 records */
	MODEL_EM099_OVERLAY0,   /* em099m0.ovl: an id no table knows */
	MODEL_EM099_OVERLAY1,   /* em099m1.ovl */
	MODEL_TIGREX_DONOR,     /* MODEL_TIGREX's rig as MHP3rd's, an MHP3rd PMO, its bank */
	MODEL_TIGREX_DONOR_GEOMETRY,
	MODEL_TIGREX_DONOR_MOVESET, /* entry e of the Tigrex's pack as clip id e */
	MODEL_COUNT
};

/* Where a sample puts each model: engine ids (file_NNNNN + 1). */
struct mkmodel_place {
	uint32_t id;
	enum mkmodel model;
};
/* The MHFU sample's, and the MHP3rd sample's. */
extern const struct mkmodel_place MKMODEL_PLACES[];
extern const size_t MKMODEL_PLACES_COUNT;
extern const struct mkmodel_place MKMODEL_P3RD_PLACES[];
extern const size_t MKMODEL_P3RD_PLACES_COUNT;

/* The bytes of `model`, the same for the same seed; malloc'ed.  NULL
 * with a message in why when a codec refuses what was built (a bug). */
uint8_t *mkmodel_build(enum mkmodel model, uint64_t seed, size_t *len,
		       char *why, size_t why_len);

/* A texture bank of one to three small images of random formats (the
 * game's, and DXT1), drawn from a stream derived from r's state (r itself
 * is not drawn from: what a generator draws after it stays as it was);
 * malloc'ed, NULL with why as above. */
struct rng;
uint8_t *mkmodel_tmh(const struct rng *r, size_t *len, char *why, size_t why_len);

#endif
