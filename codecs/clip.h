/* SPDX-License-Identifier: MIT */
/* Animation clips (mhfu-archive(5) "CLIPS"): the model, its two
 * binary encodings and its text form.
 *
 * A clip holds one track per joint it drives, a track one channel per
 * animated component, a channel its keyframes.  Both games store the same
 * nesting; every size includes its own header; all little-endian.
 *
 *   MHFU, sections {u32 tag, u32 count, u32 size}:
 *     clip     0x80000002, tracks, size, u32 loop, f32 loop_start  (0x14)
 *     track    0x80000000 | mask, channels, size                   (12)
 *     channel  0x80120000 | bit, keys, 12 + 8 * keys               (12)
 *   MHP3rd, compact, no tags:
 *     clip     u32 tracks, u32 size, u32 loop, f32 loop_start      (0x10)
 *     track    u16 channels, u16 size                              (4)
 *     channel  u16 bit, u16 keys, u32 size = 8 + 8 * keys          (8)
 *   keyframe (both): s16 value, s16 frame, s16 ease_in, s16 ease_out
 *
 * Invariants the codecs keep:
 *  1. decode accepts only bytes that encode reproduces exactly: a count,
 *     size or tag that disagrees is an error naming its byte offset,
 *     never silently fixed.
 *  2. A track's mask is kept as stored (MHFU), even when it disagrees with
 *     its channels' bits.  MHP3rd stores no mask: decode sets it to the
 *     OR of the channels' bits, encode ignores it.
 *  3. Channel order inside a track is kept as stored or written.
 *  4. print -> parse gives back an equal clip (clip_equal), so
 *     decode -> print -> parse -> encode reproduces the bytes. */
#ifndef MH_CLIP_H
#define MH_CLIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum clip_format {
	CLIP_NONE = 0, /* unknown: only for packs without clips */
	CLIP_MHFU,     /* MHFU / MHP2G tagged sections */
	CLIP_P3RD,     /* MHP3rd compact headers */
};

/* Channel bits (mhfu-archive(5) "CLIPS"); one raw unit of each kind. */
#define CLIP_U1    0x001u
#define CLIP_U2    0x002u
#define CLIP_U4    0x004u
#define CLIP_ROT_X 0x008u /* rotation: 4096 = 90 degrees */
#define CLIP_ROT_Y 0x010u
#define CLIP_ROT_Z 0x020u
#define CLIP_LOC_X 0x040u /* location: 16 = 1.0 */
#define CLIP_LOC_Y 0x080u
#define CLIP_LOC_Z 0x100u
#define CLIP_SCL_X 0x200u /* scale: 256 = 1.0 */
#define CLIP_SCL_Y 0x400u
#define CLIP_SCL_Z 0x800u
#define CLIP_ROT_BITS (CLIP_ROT_X | CLIP_ROT_Y | CLIP_ROT_Z)

#define CLIP_MHFU_TAG     0x80000002u
#define CLIP_MHFU_TRACK   0x80000000u
#define CLIP_MHFU_CHANNEL 0x80120000u

/* One keyframe.  On disk: value, frame, ease_in, ease_out. */
struct clip_key {
	int16_t value;    /* in the channel's raw unit */
	int16_t frame;
	int16_t ease_in;  /* slope arriving at this key, units per frame */
	int16_t ease_out; /* slope leaving it */
};

struct clip_channel {
	uint32_t bit;          /* which component, 0..0xffff (CLIP_ROT_X...) */
	uint32_t nkeys;
	struct clip_key *keys; /* nkeys of them */
	uint32_t cap;          /* keys allocated (the builders' business) */
};

struct clip_track {
	uint32_t mask;                 /* MHFU tag's low 31 bits, as stored */
	uint32_t nchannels;
	struct clip_channel *channels; /* in stored order */
	uint32_t cap;                  /* channels allocated */
};

struct clip {
	uint32_t loop;             /* nonzero: the clip loops */
	float loop_start;          /* compared and kept by its bits */
	uint32_t ntracks;
	struct clip_track *tracks; /* track i drives the part's i-th joint */
	uint32_t cap;              /* tracks allocated */
};

/* ---- model ------------------------------------------------------------ */

/* Frees everything *c owns and zeroes it; c may be NULL. */
void clip_free(struct clip *c);

/* Equal loop, loop_start bits, masks, channel bits and keys, in order. */
bool clip_equal(const struct clip *a, const struct clip *b);

/* A deep copy into *dst (which must not own anything). */
enum mh_err clip_copy(struct clip *dst, const struct clip *src,
		      struct mh_diag *d);

/* Builders, for parsers and sample generators.  Each returns the new
 * element (valid until the next add to the same parent), or NULL when
 * out of memory (the clip is unchanged and still valid).
 * clip_add_channel also ORs the bit into the track's mask. */
struct clip_track *clip_add_track(struct clip *c, uint32_t mask);
struct clip_channel *clip_add_channel(struct clip_track *t, uint32_t bit);
struct clip_key *clip_add_key(struct clip_channel *ch, struct clip_key k);

/* ---- binary (clip.c) -------------------------------------------------- */

/* Decodes one clip from buf[0..avail); its extent is its own size field,
 * returned in *used.  On failure *c is empty and d says at which byte
 * offset (from buf) what was wrong.  The caller owns *c (clip_free). */
enum mh_err clip_decode(enum clip_format f, const uint8_t *buf, size_t avail,
			struct clip *c, size_t *used, struct mh_diag *d);

/* Bytes clip_encode would produce (no range checks). */
uint64_t clip_size(enum clip_format f, const struct clip *c);

/* Encodes into dst[0..room), setting *used to clip_size.  Fails with
 * MH_ERANGE (nothing useful written) when a value does not fit the
 * format: a bit over 0xffff, an MHFU mask with bit 31, an MHP3rd count or
 * track size over 0xffff, a size over 4 GiB, room too small. */
enum mh_err clip_encode_to(enum clip_format f, const struct clip *c,
			   uint8_t *dst, size_t room, size_t *used,
			   struct mh_diag *d);

/* The same into a malloc'ed *out the caller frees. */
enum mh_err clip_encode(enum clip_format f, const struct clip *c,
			uint8_t **out, size_t *len, struct mh_diag *d);

/* "mhfu", "p3rd", "none". */
const char *clip_format_name(enum clip_format f);

/* ---- text (clip_text.c; grammar in man/mhfu-clip.5) ------------------- */

/* Prints c as text: the `header` lines (NULL for none) as "# " comments,
 * a units comment, loop, loop_start, then each track, channel and key.
 * When first_joint >= 0, track i is commented "joint first_joint + i";
 * -1 prints no joint comments.  Returns malloc'ed NUL-terminated text
 * (length in *len, if len), or NULL when out of memory. */
char *clip_print(const struct clip *c, const char *header, int first_joint,
		 size_t *len);

/* Names track i of a clip in its comment ("joint 9"), into buf[0..len);
 * "" for no comment. */
typedef void clip_track_label_fn(const void *ctx, uint32_t track, char *buf, size_t len);

/* The same, track i commented with what label(ctx, i) says: for tracks
 * that are not a run of joints (an MHP3rd record map). */
char *clip_print_labeled(const struct clip *c, const char *header, clip_track_label_fn *label,
			 const void *ctx, size_t *len);

/* clip_print knowing the part: tracks past its `joints` joints (the
 * skeleton's count, whatever the clip's) drive no joint and say so.
 * part >= 0 is one part of an MHFU entry's text (entries.h), which
 * prints the units line once for all parts: no units line, and each
 * track commented "part P, joint J" ("part P" when first_joint is -1);
 * part -1 is a clip file, as clip_print. */
char *clip_print_at(const struct clip *c, const char *header, long part, int first_joint,
		    uint32_t joints, size_t *len);

/* Parses clip text (len bytes; NUL bytes are an error).  On failure *c
 * is empty and d holds line:col and what was expected. */
enum mh_err clip_parse(const char *text, size_t len, struct clip *c,
		       struct mh_diag *d);

/* Fails (MH_ESYNTAX, line:col) at the first NUL byte of text, comments
 * included; every text parser calls it first. */
enum mh_err clip_reject_nul(const char *text, size_t len, struct mh_diag *d);

/* The 1-based line of an element of a clip text clip_parse accepts:
 * track `track`'s channel `channel`'s key `key` (positions from 0, as
 * the parser counts them; -1: the enclosing element).  Falls back to the
 * channel's line, then the track's, then 1 when the text lacks the
 * element. */
unsigned clip_text_line(const char *text, size_t len, int track, int channel,
			int key);

/* A channel's name ("rot_x"), or NULL for a bit without one. */
const char *clip_channel_name(uint32_t bit);

#endif
