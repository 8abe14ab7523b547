/* SPDX-License-Identifier: MIT */
/* Skeletons: a monster's bone tree and bind pose (mhfu-archive(5)
 * "SKELETON").  MHFU (and MHP2G) and
 * MHP3rd share one layout and differ in the magic and the bone sections'
 * size.  All integers little-endian:
 *
 *   0x00 u32 magic       0xC0000000 MHFU, 0x80000000 MHP3rd
 *   0x04 u32 sections    bones + 1 (the params section counts as one)
 *   0x08 u32 size        0x18 + 4*values + the bone sections; bytes after
 *                        the last bone are the tail, kept verbatim
 *   0x0C u32 0           the params section: tag 0,
 *   0x10 u32 count       its count word (MHP3rd may disagree with values),
 *   0x14 u32 size        12 + 4*values, which tells how many values (1..3),
 *   0x18 u32 values[]
 *
 * then one section per bone, 0x10C bytes on MHFU, 0x5C on MHP3rd:
 *
 *   +0x00 u32 0x40000000 | kind (1..3)      +0x04 u32 count, normally 1
 *   +0x08 u32 section size                  +0x0C s32 index = position
 *   +0x10 s32 parent, +0x14 child, +0x18 sibling (-1: none)
 *   +0x1C f32[4] scale, +0x2C f32[4] rotation (Euler), +0x3C f32[4]
 *         position (offset from the parent); each w normally 1.0
 *   +0x4C s32 link (kind 2: an earlier bone; else -1)
 *   +0x50 u32 part (MHFU: the animation part driving the bone; MHP3rd 0)
 *   +0x54 the rest: MHFU zeros to 0x10C; MHP3rd an 8-byte name, a C
 *         string then leftover bytes
 *
 * Invariants this module keeps (and tests/unit/test_skeleton.c checks):
 *  1. decode -> encode reproduces the input byte for byte: every byte is
 *     either derived from the model's fields or held in it (the section
 *     count word, the w's, the rest area, a size word that disagrees, the
 *     params count, the tail).
 *  2. What the model cannot hold fails to decode with the byte offset and
 *     the bone: a section size other than the game's, an index other than
 *     the bone's position, a tag other than 0x40000000 | 1..3, a params
 *     section size other than 16, 20 or 24, a non-zero params tag.
 *  3. print -> parse gives back the same model (skeleton_print.c,
 *     skeleton_parse.c), so print -> parse -> encode reproduces the input
 *     too. */
#ifndef MH_SKELETON_H
#define MH_SKELETON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define SKELETON_MAGIC_MHFU   0xC0000000u
#define SKELETON_MAGIC_MHP3RD 0x80000000u
#define SKELETON_BONE_TAG     0x40000000u /* | kind */
#define SKELETON_HEADER       0x18u       /* up to the params values */
#define SKELETON_MAX_PARAMS   3u
#define SKELETON_SECTION_MHFU   0x10Cu
#define SKELETON_SECTION_MHP3RD 0x5Cu
#define SKELETON_REST_OFF     0x54u       /* the rest area in a section */
#define SKELETON_REST_MAX     (SKELETON_SECTION_MHFU - SKELETON_REST_OFF)
#define SKELETON_NAME_LEN     8u          /* MHP3rd's rest area */
/* Bounds on what we accept, so hostile input cannot make us allocate
 * without limit (monsters have 17..61 bones and no or a short tail). */
#define SKELETON_MAX_BONES    4096u
#define SKELETON_MAX_TAIL     (16u << 20)
/* Bytes of a skeleton's head that always suffice for skeleton_sniff. */
#define SKELETON_HEAD_MAX     0x40u

enum skeleton_game {
	SKELETON_MHFU,   /* magic 0xC0000000, 0x10C-byte sections (also MHP2G) */
	SKELETON_MHP3RD, /* magic 0x80000000, 0x5C-byte sections */
};

struct skeleton_bone {
	uint32_t kind;    /* 1..3; the section's tag is 0x40000000 | kind */
	uint32_t count;   /* the section's count word (+0x04), normally 1 */
	int32_t parent;   /* bone index, -1 for a root */
	int32_t child;    /* first child, -1 for none */
	int32_t sibling;  /* next sibling, -1 for none */
	float scale[4];   /* bind scale x y z w; w normally 1.0 */
	float rotation[4];/* bind rotation (Euler) x y z w; w normally 1.0 */
	float position[4];/* offset from the parent x y z w; w normally 1.0 */
	int32_t link;     /* kind 2: an earlier bone's index; else -1 */
	uint32_t part;    /* MHFU: animation part; MHP3rd: 0 */
	/* The section's bytes from +0x54: SKELETON_REST_MAX on MHFU (zeros
	 * in the games' files), SKELETON_NAME_LEN on MHP3rd (the name, a C
	 * string, then leftovers); bytes past the game's length are zero. */
	uint8_t rest[SKELETON_REST_MAX];
};

struct skeleton {
	enum skeleton_game game;
	uint32_t nbones;              /* 0..SKELETON_MAX_BONES */
	struct skeleton_bone *bones;  /* nbones of them, malloc'ed */
	uint32_t nparams;             /* values, 1..3 */
	uint32_t params[SKELETON_MAX_PARAMS]; /* MHFU monsters: {0, animated} */
	uint32_t params_count;        /* the count word at 0x10; normally nparams */
	bool size_fixed;              /* the size word disagrees with the sections: */
	uint32_t size_word;           /*   then this is it, written as found */
	uint8_t *tail;                /* bytes after the last bone, malloc'ed */
	size_t tail_len;              /* 0..SKELETON_MAX_TAIL */
};

/* Decodes the skeleton occupying all of buf[0..len).  On success the
 * caller owns *s (skeleton_free); on failure *s is empty and d says what
 * is wrong at which byte offset, naming the bone. */
enum mh_err skeleton_decode(const uint8_t *buf, size_t len, struct skeleton *s,
			    struct mh_diag *d);

/* The skeleton's bytes.  Fails with MH_ERANGE (offset 0) if the model
 * cannot be encoded: a game, kind or count out of range.  *out is
 * malloc'ed and owned by the caller. */
enum mh_err skeleton_encode(const struct skeleton *s, uint8_t **out, size_t *len,
			    struct mh_diag *d);

/* The skeleton as skeleton.txt (man/mhfu-clip.5): `header_comment`
 * (NULL, or lines to print first as # comments), a comment explaining
 * the columns, then the text.  Returns malloc'ed text owned by the caller
 * and its length, or NULL if an allocation failed. */
char *skeleton_print(const struct skeleton *s, const char *header_comment,
		     size_t *len);

/* Parses skeleton.txt.  On success the caller owns *s, which always
 * encodes; on failure *s is empty and d says line:col and what was
 * expected. */
enum mh_err skeleton_parse(const char *text, size_t len, struct skeleton *s,
			   struct mh_diag *d);

/* The 1-based line of bone `bone`'s row in a skeleton.txt skeleton_parse
 * accepts; bone -1: the params line.  1 when the text has no such line. */
unsigned skeleton_text_line(const char *text, size_t len, int bone);

/* Scores whether data of `size` bytes whose first `len` bytes are `head`
 * is a skeleton: 100 when the header and the first bone section are as
 * the format says (skeleton_decode checks the rest), 60 when only the
 * size word disagrees, 0 otherwise.  len >= min(size, SKELETON_HEAD_MAX)
 * always suffices. */
int skeleton_sniff(const uint8_t *head, size_t len, uint64_t size);

void skeleton_free(struct skeleton *s);

/* ---- building skeletons (sample generators, tests) ---------------------- */

/* An empty skeleton of `nbones` bones with the neutral defaults: kind 1,
 * count 1, no parent, child, sibling or link (-1), scale 1 1 1, rotation
 * 0 0 0, position 0 0 0 (each w 1.0), part 0, rest zeros; params {0}
 * (params_count 1); no tail.  MH_ERANGE if nbones > SKELETON_MAX_BONES. */
enum mh_err skeleton_init(struct skeleton *s, enum skeleton_game game,
			  uint32_t nbones, struct mh_diag *d);

/* Sets every bone's child and sibling from the parents: a bone's child is
 * its first child in bone order, its sibling the next bone in bone order
 * with the same parent.  Roots are siblings of each other only when
 * `chain_roots`.  A parent outside 0..nbones-1, or the bone itself,
 * makes a root. */
void skeleton_link(struct skeleton *s, bool chain_roots);

/* Sets the values, and params_count to match.  n is 1..3. */
void skeleton_set_params(struct skeleton *s, uint32_t n, const uint32_t *values);

/* What the size word says when it agrees: 0x18 + 4*values + sections. */
uint64_t skeleton_size(const struct skeleton *s);

/* The section size of a game's bones, and the length of its rest area. */
uint32_t skeleton_section_size(enum skeleton_game game);
uint32_t skeleton_rest_len(enum skeleton_game game);

/* "mhfu" or "mhp3rd". */
const char *skeleton_game_name(enum skeleton_game game);

#endif
