/* SPDX-License-Identifier: MIT */
/* The donor bundle (mhfu-archive(5) "DONOR BUNDLE"): one file carrying
 * all a port needs of an MHP3rd monster, what a mount shows as a model
 * folder's donor.pac.  It is a PAC (pac.h) of DONOR_MEMBERS members:
 *
 *   0  the skeleton (MHP3rd)
 *   1  the PMO (version 102; its geometry region is member 4)
 *   2  the texture bank (TMH)
 *   3  the moveset: the standalone MHP3rd animation pack
 *   4  the PMO's companion geometry (the entry after the model PAC);
 *      empty when the PMO holds its own
 *   5  the settings, text, one "key value" per line:
 *        mhfufs-donor 1        the bundle's version, first
 *        model N               the engine id of the model PAC
 *        monster EM|-          the monster's id (RECORDS_NO_MONSTER: -)
 *        name NAME|-           the monster's name in by-name/
 *      then the record map's override, as records.txt holds it
 *      (records_setting_print: "offset N", "skip B..."; nothing when the
 *      map is the computed one)
 *
 * Members 0-3 are the archive's bytes as stored.  A bundle is told from
 * any other PAC by its settings member's first line.  Pure: no I/O, no
 * globals. */
#ifndef MH_DONOR_H
#define MH_DONOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "diag.h"
#include "records.h"
#include "skeleton.h"

#define DONOR_MEMBERS 6u
#define DONOR_SKELETON 0u
#define DONOR_PMO 1u
#define DONOR_TMH 2u
#define DONOR_MOVESET 3u
#define DONOR_GEOMETRY 4u
#define DONOR_SETTINGS 5u
#define DONOR_MAGIC "mhfufs-donor 1\n"
#define DONOR_NAME_MAX 48u

/* What a bundle is made of: each member's bytes (geometry may be empty),
 * and the settings. */
struct donor_parts {
	const uint8_t *member[DONOR_MEMBERS - 1]; /* members 0-4 */
	size_t len[DONOR_MEMBERS - 1];
	uint32_t model;
	int monster;                    /* RECORDS_NO_MONSTER when unknown */
	const char *name;               /* NULL or "": none */
	const struct records_setting *set; /* NULL: no override */
};

/* A decoded bundle.  It owns a copy of the bundle's bytes; member[k]
 * points into it. */
struct donor {
	uint8_t *bytes;
	size_t len;
	const uint8_t *member[DONOR_MEMBERS];
	size_t member_len[DONOR_MEMBERS];
	uint32_t model;
	int monster;
	char name[DONOR_NAME_MAX];      /* "" when none */
	struct skeleton skel;           /* member 0, decoded */
	struct anim moveset;            /* member 3, decoded */
	struct records map;             /* the record map in force: made from
					   skel, moveset and monster, the
					   override put in force */
};

/* Lays a bundle out.  MH_ERANGE when a member is missing (only the
 * geometry may be empty) or too large for a PAC, the monster is outside
 * 0..65535, the name is not 1..DONOR_NAME_MAX-1 printable characters
 * without blanks (nor "-"), or the override does not fit the map
 * (records_override's).  The members are checked as donor_decode checks
 * them, with its codes (offsets within the member), so what encodes
 * decodes; the override written is the one in force, without what it
 * sets to the computed value.  *out malloc'ed. */
enum mh_err donor_encode(const struct donor_parts *p, uint8_t **out, size_t *len,
			 struct mh_diag *d);

/* Decodes the bundle occupying buf[0..len): the PAC, the settings (a bad
 * line is MH_ESYNTAX at its line:col, offset the settings member's), the
 * skeleton (it must be MHP3rd's), the moveset (MHP3rd clips) and the
 * record map.  The PMO and the texture bank are checked by their heads
 * only (PMO_MAGIC and version 102, TMH_MAGIC: a host-rig port keeps the
 * host's), the geometry present exactly when pmo_needs_companion.  Only
 * what donor_encode writes decodes (alignment 16, no tail, the settings
 * in their one spelling), so decode -> encode gives the bytes.
 * MH_EUNKNOWN for bytes that are no bundle at all (no PAC, or no settings
 * member starting with DONOR_MAGIC, also when the bytes end before that
 * line does); a member that is not what it should be is MH_ECORRUPT at
 * its offset.  On failure *dn is empty.  The caller owns *dn
 * (donor_free). */
enum mh_err donor_decode(const uint8_t *buf, size_t len, struct donor *dn,
			 struct mh_diag *d);

/* Whether buf[0..len) looks like a bundle: a PAC whose settings member
 * starts with DONOR_MAGIC.  Decodes nothing else. */
bool donor_sniff(const uint8_t *buf, size_t len);

void donor_free(struct donor *dn); /* dn may be NULL */

#endif
