/* SPDX-License-Identifier: MIT */
/* Animation packs (mhfu-archive(5) "ANIMATION PACK"): the container both games share.
 *
 *   0x00     {u32 slots, u32 table}[N]  per stream: slot count, table offset
 *   8N       u32 0
 *   8N + 4   u32 data_start             end of the slot tables
 *   8(N+1)   the slot tables, back to back, stream 0 first: u32 per slot,
 *            a clip's offset from the pack's start or 0xFFFFFFFF (empty)
 *   data_start  the clips, back to back, in the order slots first use
 *            them (stream 0 slots 0..n, then stream 1, ...); slots may
 *            share a clip, within a stream and across streams
 *   then     the tail: whatever follows the last clip, kept verbatim
 *
 * N is read from stream 0's table offset (N = table / 8 - 1).  Every
 * offset of this layout follows from the slot counts, the sharing and the
 * clips' sizes, so the model (struct anim) holds only those, and decode
 * rejects (with the byte offset and what) any pack the layout would not
 * reproduce exactly.  The clips' encoding is told from the first clip's
 * first word: 0x80000002 MHFU, below 0x10000 MHP3rd.
 *
 * MHFU packs split a rig into parts: stream s plays part s / 2 (even
 * streams entries 0-99, odd ones 100 and up), one track per joint of the
 * part, in joint order.  Which joints a part holds is the skeleton's
 * business: the caller passes each joint's part to anim_part_joints, so
 * this module needs no skeleton.  MHP3rd streams are independent clip
 * sets over the whole rig. */
#ifndef MH_ANIM_H
#define MH_ANIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clip.h"
#include "diag.h"

#define ANIM_EMPTY (-1)          /* a slot without a clip */
#define ANIM_NO_CLIP 0xffffffffu /* an empty slot's table word */
/* Bytes of a pack's head that suffice for anim_sniff's best answer when
 * the header, the slot tables and the first clip's header fit in them
 * (up to 1,970 slots over ANIM_SNIFF_MAX_STREAMS streams; the Tigrex's
 * pack has 615).  Packs of more streams than that sniff as 0. */
#define ANIM_HEAD_MAX 8192u
#define ANIM_SNIFF_MAX_STREAMS 32u
/* Limits of pack.txt, so a short text cannot ask for gigabytes. */
#define ANIM_TEXT_MAX_SLOTS (1u << 20) /* slots over all streams */
#define ANIM_TEXT_MAX_TAIL (1u << 24)  /* tail bytes */

struct anim_stream {
	uint32_t nslots;
	int32_t *slots; /* per slot: an index into anim.clips, or ANIM_EMPTY */
};

struct anim {
	enum clip_format format;     /* of every clip; CLIP_NONE only without clips */
	uint32_t nstreams;           /* >= 1 to encode */
	struct anim_stream *streams;
	uint32_t nclips;
	struct clip *clips;          /* numbered in the order slots first use them */
	uint32_t cap;                /* clips allocated */
	uint8_t *tail;               /* bytes after the last clip, verbatim */
	size_t tail_len;
};

/* ---- binary (anim.c) -------------------------------------------------- */

/* Decodes the pack occupying all of buf[0..len).  `format` is used only
 * when the pack holds no clip (else the clips' own first word decides;
 * CLIP_NONE is allowed).  On failure *a is empty and d holds the byte
 * offset and what is wrong.  The caller owns *a (anim_free). */
enum mh_err anim_decode(const uint8_t *buf, size_t len,
			enum clip_format format, struct anim *a,
			struct mh_diag *d);

/* Lays the pack out; *out is malloc'ed and owned by the caller.  Fails
 * with MH_ERANGE when the model would not decode back to itself: no
 * stream, a slot naming no clip, clips not numbered in first-use order or
 * one used by no slot (anim_compact fixes both), a clip that does not fit
 * the format, a pack over 4 GiB. */
enum mh_err anim_encode(const struct anim *a, uint8_t **out, size_t *len,
			struct mh_diag *d);

/* Where anim_encode lays each clip out: clip i at byte offset[i] of the
 * encoded pack, size[i] bytes long (both arrays of a->nclips).  For a
 * pack anim_encode accepts (clips numbered in first-use order: as
 * decoded, or after anim_compact); nothing is checked. */
void anim_clip_offsets(const struct anim *a, uint64_t *offset, uint64_t *size);

/* Scores whether `size` bytes whose first `len` are `head` are an
 * animation pack: 100 when the header, the slot tables and the first
 * clip's header agree; 70 when the head ends before the first clip; 50
 * for a pack without clips; 0 otherwise (random bytes score 0). */
int anim_sniff(const uint8_t *head, size_t len, uint64_t size);

void anim_free(struct anim *a); /* a may be NULL */

/* Same format, streams, slots, clips and tail. */
bool anim_equal(const struct anim *a, const struct anim *b);

/* ---- building (anim.c) ------------------------------------------------ */

/* An empty pack: nstreams streams of slots[s] empty slots each. */
enum mh_err anim_init(struct anim *a, enum clip_format format,
		      uint32_t nstreams, const uint32_t *slots,
		      struct mh_diag *d);

/* Moves *c into the pack (then zeroes *c); returns its index, or -1 when
 * out of memory (*c is then left to the caller). */
int32_t anim_add_clip(struct anim *a, struct clip *c);

/* Puts clip (an index, or ANIM_EMPTY) in a slot; MH_ERANGE if any of the
 * three is out of range. */
enum mh_err anim_set_slot(struct anim *a, uint32_t stream, uint32_t slot,
			  int32_t clip, struct mh_diag *d);

/* Renumbers the clips in the order slots first use them and frees those
 * no slot uses, so the pack can be encoded. */
enum mh_err anim_compact(struct anim *a, struct mh_diag *d);

/* The first slot (in stream, then slot order) using `clip`: the one whose
 * file the others link to.  False when no slot uses it. */
bool anim_first_use(const struct anim *a, uint32_t clip, uint32_t *stream,
		    uint32_t *slot);

/* ---- MHFU parts and entries (anim.c) ---------------------------------- */

/* The part an MHFU stream plays. */
static inline uint32_t anim_mhfu_part(uint32_t stream)
{
	return stream / 2;
}

/* Given parts[j], the part of each animated joint j < njoints (from the
 * skeleton), the first joint of `part` and how many it holds.  False when
 * no joint is in the part or its joints are not one contiguous run. */
bool anim_part_joints(const uint32_t *parts, uint32_t njoints, uint32_t part,
		      uint32_t *first, uint32_t *count);

/* The same over a field of an array of structs: parts[j] is the uint32_t
 * at (const char *)part0 + j * stride (a skeleton's bones' part fields). */
bool anim_part_joints_of(const uint32_t *part0, size_t stride, uint32_t njoints,
			 uint32_t part, uint32_t *first, uint32_t *count);

/* Where MHFU executor entry `entry` of `part` lives: slot entry % 100 of
 * stream 2 * part + entry / 100. */
void anim_mhfu_entry_slot(uint32_t part, uint32_t entry, uint32_t *stream,
			  uint32_t *slot);

/* ---- pack.txt (anim_text.c; grammar in man/mhfu-clip.5) --------------- */

/* The pack's shape without the clips: format, each stream's slot count,
 * which slots are filled and which share an earlier slot's clip, and the
 * tail as hex; each filled slot's clip timing (anim_clip_timing) is a
 * comment, which the parser skips.  Together with the clips (one per
 * filled, unshared slot) it reproduces the pack exactly.  Malloc'ed
 * text, NULL when out of memory. */
char *anim_print_shape(const struct anim *a, size_t *len);

/* How a clip plays, in words: "runs to frame 495, loops from frame 9"
 * or "runs to frame 60, plays once" (it runs to its last keyframe; a
 * nonzero loop loops it from loop_start). */
void anim_clip_timing(const struct clip *c, char *buf, size_t len);

/* Parses pack.txt into *a: streams and slots as written, one empty clip
 * per filled slot that does not share (numbered in first-use order, to be
 * filled in by the caller, e.g. from the slots' clip files via
 * anim_first_use), and the tail.  On failure *a is empty and d holds
 * line:col and what was expected. */
enum mh_err anim_parse_shape(const char *text, size_t len, struct anim *a,
			     struct mh_diag *d);

/* ---- slot and shape edits (anim_edit.c) ------------------------------
 * The edits a pack's folder takes (mount.mhfu(8) "WRITING").  A slot
 * edit checks its slot first (MH_ERANGE, "stream S has no slot N") and
 * changes the pack only when it succeeds; the pack then needs
 * anim_compact before anim_encode, as an edit may leave a clip unused or
 * out of first-use order.  A shape edit builds a new pack. */

/* How a slot's file gives its clip: slotNNN.txt or slotNNN.bin. */
enum anim_slot_form {
	ANIM_SLOT_TEXT,  /* clip text (clip_parse) */
	ANIM_SLOT_BYTES, /* one clip's bytes in the pack's format, exactly */
};

/* The clip a slot file holds, into *c (the caller owns it): its text, or
 * its bytes in format f, which must end where the clip does ("N bytes
 * after the clip's end", MH_ECORRUPT at the clip's end otherwise). */
enum mh_err anim_slot_file_clip(enum clip_format f, enum anim_slot_form form,
				const uint8_t *file, size_t len, struct clip *c,
				struct mh_diag *d);

/* Gives slot `slot` of stream `stream` clip *c, copying on write: when
 * the slot is its clip's first user (the slot whose file the others
 * link to), the clip is replaced and every slot sharing it plays the
 * new one; any other slot gets a clip of its own and the others keep
 * theirs.  Takes *c whatever the outcome (it is zeroed). */
enum mh_err anim_slot_put(struct anim *a, uint32_t stream, uint32_t slot,
			  struct clip *c, struct mh_diag *d);

/* A slot file written: its clip (anim_slot_file_clip, in the pack's
 * format; a pack of no known format without clips takes MHFU's), put
 * with anim_slot_put. */
enum mh_err anim_slot_write(struct anim *a, uint32_t stream, uint32_t slot,
			    enum anim_slot_form form, const uint8_t *file,
			    size_t len, struct mh_diag *d);

/* A slot emptied (its file removed); the slots sharing its clip keep it. */
enum mh_err anim_slot_empty(struct anim *a, uint32_t stream, uint32_t slot,
			    struct mh_diag *d);

/* A slot made to play the clip of slot from_slot of stream from_stream
 * (its file made a link to that slot's); MH_ERANGE when that slot holds
 * no clip. */
enum mh_err anim_slot_share(struct anim *a, uint32_t stream, uint32_t slot,
			    uint32_t from_stream, uint32_t from_slot,
			    struct mh_diag *d);

/* A new pack.txt applied to `old`: *a gets the shape text[0..len) gives
 * (anim_parse_shape) and, for each of its clips, a copy of the clip
 * `old` holds in the slot that first uses it in the new shape.  Fails
 * with the parser's error, or MH_ERANGE at the line of that slot's
 * stream when the slot holds no clip in `old` (a slot filled by the
 * shape must be given a clip by its file).  On failure *a is empty. */
enum mh_err anim_reshape(const struct anim *old, const char *text, size_t len,
			 struct anim *a, struct mh_diag *d);

#endif
