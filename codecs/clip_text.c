/* SPDX-License-Identifier: MIT */
/* Clip text: print and parse (clip.h; grammar in man/mhfu-clip.5).
 *
 *   # comment lines, blank lines anywhere
 *   loop N                      optional, before the first track
 *   loop_start F                optional, before the first track
 *   track N [mask M]            N counts from 0 in order
 *   channel NAME|BIT            NAME: u1 u2 u4 rot_x .. scl_z
 *   FRAME VALUE EASE_IN EASE_OUT    one keyframe; VALUE may be Ddeg on rot_*
 *
 * The printer writes raw integers only (they are the truth); a track's
 * mask is printed only when it differs from its channels' bits. */
#include "clip.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "strbuf.h"

/* Where trailing "# ..." comments start on track and channel lines. */
#define NOTE_COLUMN 24

static const struct {
	const char *name;
	uint32_t bit;
} NAMES[] = {
	{"u1", CLIP_U1},       {"u2", CLIP_U2},       {"u4", CLIP_U4},
	{"rot_x", CLIP_ROT_X}, {"rot_y", CLIP_ROT_Y}, {"rot_z", CLIP_ROT_Z},
	{"loc_x", CLIP_LOC_X}, {"loc_y", CLIP_LOC_Y}, {"loc_z", CLIP_LOC_Z},
	{"scl_x", CLIP_SCL_X}, {"scl_y", CLIP_SCL_Y}, {"scl_z", CLIP_SCL_Z},
};

const char *clip_channel_name(uint32_t bit)
{
	for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
		if (NAMES[i].bit == bit)
			return NAMES[i].name;
	return NULL;
}

/* ---- printing --------------------------------------------------------- */

/* A line of `left`, then, if note is non-empty, "# note" at NOTE_COLUMN. */
static void noted_line(struct strbuf *sb, const char *left, const char *note)
{
	if (note[0]) {
		bool short_left = strlen(left) < NOTE_COLUMN;
		strbuf_str(sb, left, short_left ? -NOTE_COLUMN : 0);
		strbuf_str(sb, short_left ? "# " : " # ", 0);
	} else {
		strbuf_str(sb, left, 0);
	}
	strbuf_str(sb, note, 0);
	strbuf_char(sb, '\n');
}

static void print_header(struct strbuf *sb, const char *header)
{
	while (header && *header) {
		const char *nl = strchr(header, '\n');
		int n = nl ? (int)(nl - header) : (int)strlen(header);
		strbuf_printf(sb, n ? "# %.*s\n" : "#\n", n, header);
		header = nl ? nl + 1 : NULL;
	}
}

static uint32_t channel_bits(const struct clip_track *t)
{
	uint32_t bits = 0;
	for (uint32_t i = 0; i < t->nchannels; i++)
		bits |= t->channels[i].bit;
	return bits;
}

/* How the track comments name their joints (clip_print and its kin):
 * part (-1: a clip file), track 0's joint (-1: unknown) and the part's
 * joint count (past it, no joint); with no joint known, label names
 * track i (if set). */
struct track_naming {
	long part;
	int first_joint;
	uint32_t joints;
	clip_track_label_fn *label;
	const void *ctx;
};

static void track_where(const struct track_naming *nm, uint32_t i, char *where, size_t len)
{
	where[0] = '\0';
	if (nm->first_joint >= 0 && i >= nm->joints && nm->part >= 0)
		snprintf(where, len, "part %ld, past its %u joints: drives none", nm->part,
			 nm->joints);
	else if (nm->first_joint >= 0 && i >= nm->joints)
		snprintf(where, len, "past the part's %u joints: drives none", nm->joints);
	else if (nm->part >= 0 && nm->first_joint >= 0)
		snprintf(where, len, "part %ld, joint %lld", nm->part,
			 (long long)nm->first_joint + i);
	else if (nm->part >= 0)
		snprintf(where, len, "part %ld", nm->part);
	else if (nm->first_joint >= 0)
		snprintf(where, len, "joint %lld", (long long)nm->first_joint + i);
	else if (nm->label)
		nm->label(nm->ctx, i, where, len);
}

static void print_track(struct strbuf *sb, const struct clip_track *t,
			uint32_t i, const struct track_naming *nm, bool *first_channel)
{
	char left[64], note[128], where[96];
	int n = snprintf(left, sizeof left, "track %u", i);
	if (t->mask != channel_bits(t))
		snprintf(left + n, sizeof left - (size_t)n, " mask 0x%03x",
			 t->mask);
	const char *empty = t->nchannels ? "" : "no channels";
	track_where(nm, i, where, sizeof where);
	snprintf(note, sizeof note, "%s%s%s", where,
		 *where && *empty ? ", " : "", empty);
	strbuf_printf(sb, "\n");
	noted_line(sb, left, note);

	for (uint32_t j = 0; j < t->nchannels; j++) {
		const struct clip_channel *ch = &t->channels[j];
		const char *name = clip_channel_name(ch->bit);
		if (name)
			snprintf(left, sizeof left, "channel %s", name);
		else
			snprintf(left, sizeof left, "channel 0x%03x", ch->bit);
		if (*first_channel && name)
			snprintf(note, sizeof note, "bit 0x%03x", ch->bit);
		else
			note[0] = '\0';
		noted_line(sb, left, note);
		if (*first_channel)
			strbuf_printf(sb, "#  frame   value  ease_in  ease_out\n");
		*first_channel = false;
		for (uint32_t k = 0; k < ch->nkeys; k++) {
			const struct clip_key *key = &ch->keys[k];
			/* As "%8d%8d%9d%10d\n". */
			strbuf_int(sb, key->frame, 8);
			strbuf_int(sb, key->value, 8);
			strbuf_int(sb, key->ease_in, 9);
			strbuf_int(sb, key->ease_out, 10);
			strbuf_char(sb, '\n');
		}
	}
}

/* clip_print and its kin: a part (nm->part >= 0) prints no units line. */
static char *print_clip(const struct clip *c, const char *header, const struct track_naming *nm,
			size_t *len)
{
	struct strbuf sb = {0};
	char f[32];
	print_header(&sb, header);
	if (nm->part < 0)
		strbuf_printf(&sb, "# units: rot 4096 = 90 deg, loc 16 = 1.0, "
			      "scl 256 = 1.0; ease in channel units per frame\n");
	text_f32(f, sizeof f, c->loop_start);
	strbuf_printf(&sb, "loop %u\nloop_start %s\n", c->loop, f);
	bool first_channel = true;
	for (uint32_t i = 0; i < c->ntracks; i++)
		print_track(&sb, &c->tracks[i], i, nm, &first_channel);
	return strbuf_take(&sb, len);
}

char *clip_print(const struct clip *c, const char *header, int first_joint,
		 size_t *len)
{
	struct track_naming nm = {.part = -1, .first_joint = first_joint, .joints = UINT32_MAX};
	return print_clip(c, header, &nm, len);
}

char *clip_print_labeled(const struct clip *c, const char *header, clip_track_label_fn *label,
			 const void *ctx, size_t *len)
{
	struct track_naming nm = {.part = -1, .first_joint = -1, .joints = UINT32_MAX,
				  .label = label, .ctx = ctx};
	return print_clip(c, header, &nm, len);
}

char *clip_print_at(const struct clip *c, const char *header, long part, int first_joint,
		    uint32_t joints, size_t *len)
{
	struct track_naming nm = {.part = part < 0 ? -1 : part, .first_joint = first_joint,
				  .joints = joints};
	return print_clip(c, header, &nm, len);
}

/* ---- parsing ---------------------------------------------------------- */

struct parser {
	struct lex lx;
	struct clip *c;
	struct mh_diag *d;
	bool seen_loop, seen_loop_start;
	bool has_track, has_channel; /* the last track / channel is current */
	bool explicit_mask;          /* the current track gave `mask` */
	uint32_t mask;               /* ... and this one */
};

/* The track being written: its mask is final when the next one starts. */
static void finish_track(struct parser *ps)
{
	if (ps->has_track && ps->explicit_mask)
		ps->c->tracks[ps->c->ntracks - 1].mask = ps->mask;
}

static enum mh_err nomem(struct parser *ps, const struct lex_word *w)
{
	return mh_fail_text(ps->d, MH_ENOMEM, w->line, w->col,
			    "out of memory");
}

static enum mh_err parse_int(struct parser *ps, const char *what, int64_t min,
			     int64_t max, int64_t *v)
{
	struct lex_word w;
	enum mh_err err = lex_expect(&ps->lx, &w, what, ps->d);
	return err ? err : lex_int(&w, min, max, v, ps->d);
}

static enum mh_err parse_loop(struct parser *ps, const struct lex_word *kw)
{
	bool start = !strcmp(kw->text, "loop_start");
	bool *seen = start ? &ps->seen_loop_start : &ps->seen_loop;
	if (ps->has_track)
		return mh_fail_text(ps->d, MH_ESYNTAX, kw->line, kw->col,
				    "%s must come before the first track",
				    kw->text);
	if (*seen)
		return mh_fail_text(ps->d, MH_ESYNTAX, kw->line, kw->col,
				    "%s given twice", kw->text);
	*seen = true;
	if (!start) {
		int64_t v;
		enum mh_err err = parse_int(ps, "the loop flag", 0, UINT32_MAX, &v);
		if (!err)
			ps->c->loop = (uint32_t)v;
		return err;
	}
	struct lex_word w;
	enum mh_err err = lex_expect(&ps->lx, &w, "the loop start (a number)",
				     ps->d);
	return err ? err : lex_f32(&w, &ps->c->loop_start, ps->d);
}

static enum mh_err parse_track(struct parser *ps, const struct lex_word *kw)
{
	struct lex_word w;
	enum mh_err err = lex_expect(&ps->lx, &w, "the track number", ps->d);
	int64_t n, mask = 0;
	if (!err)
		err = lex_int(&w, 0, UINT32_MAX, &n, ps->d);
	if (err)
		return err;
	if (n != ps->c->ntracks)
		return mh_fail_text(ps->d, MH_ESYNTAX, w.line, w.col,
				    "expected track %u (tracks are numbered "
				    "in order from 0), got %s", ps->c->ntracks,
				    w.text);
	bool has_mask = lex_word(&ps->lx, &w, &err, ps->d);
	if (err)
		return err;
	if (has_mask && strcmp(w.text, "mask"))
		return mh_fail_text(ps->d, MH_ESYNTAX, w.line, w.col,
				    "expected \"mask\" or the end of the line, "
				    "got \"%s\"", w.text);
	if (has_mask &&
	    (err = parse_int(ps, "the track's mask", 0, 0x7fffffff, &mask)))
		return err;
	finish_track(ps);
	if (!clip_add_track(ps->c, 0))
		return nomem(ps, kw);
	ps->has_track = true;
	ps->has_channel = false;
	ps->explicit_mask = has_mask;
	ps->mask = (uint32_t)mask;
	return MH_OK;
}

static enum mh_err parse_channel(struct parser *ps, const struct lex_word *kw)
{
	if (!ps->has_track)
		return mh_fail_text(ps->d, MH_ESYNTAX, kw->line, kw->col,
				    "a channel before any track");
	struct lex_word w;
	enum mh_err err = lex_expect(&ps->lx, &w, "a channel name", ps->d);
	if (err)
		return err;
	int64_t bit = -1;
	for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES && bit < 0; i++)
		if (!strcmp(w.text, NAMES[i].name))
			bit = NAMES[i].bit;
	if (bit < 0 && w.text[0] >= '0' && w.text[0] <= '9')
		err = lex_int(&w, 0, 0xffff, &bit, ps->d);
	else if (bit < 0)
		err = mh_fail_text(ps->d, MH_ESYNTAX, w.line, w.col,
				   "expected a channel name (u1 u2 u4 rot_x "
				   "rot_y rot_z loc_x loc_y loc_z scl_x scl_y "
				   "scl_z) or a bit number, got \"%s\"", w.text);
	if (err)
		return err;
	if (!clip_add_channel(&ps->c->tracks[ps->c->ntracks - 1],
			      (uint32_t)bit))
		return nomem(ps, kw);
	ps->has_channel = true;
	return MH_OK;
}

/* A value in degrees ("-45.5deg") on a rotation channel, to raw units
 * rounded to the nearest (halves away from zero). */
static enum mh_err parse_degrees(struct parser *ps, const struct lex_word *w,
				 uint32_t bit, int64_t *v)
{
	size_t n = strlen(w->text) - 3;
	if (bit != CLIP_ROT_X && bit != CLIP_ROT_Y && bit != CLIP_ROT_Z)
		return mh_fail_text(ps->d, MH_ESYNTAX, w->line, w->col,
				    "degrees (\"%s\") are only for rotation "
				    "channels", w->text);
	char num[LEX_WORD_MAX + 1];
	memcpy(num, w->text, n);
	num[n] = '\0';
	char *end;
	errno = 0;
	double deg = strtod(num, &end);
	bool digit = n && (strchr("0123456789.", num[0]) ||
			   (n > 1 && strchr("+-", num[0]) &&
			    strchr("0123456789.", num[1])));
	if (!digit || *end || errno || strchr(num, 'x') || strchr(num, 'X'))
		return mh_fail_text(ps->d, MH_ESYNTAX, w->line, w->col,
				    "expected a number of degrees, got \"%s\"",
				    w->text);
	double raw = deg * 4096.0 / 90.0;
	if (!(raw > -32768.5 && raw < 32767.5))
		return mh_fail_text(ps->d, MH_ERANGE, w->line, w->col,
				    "%s is %.1f raw units, outside "
				    "-32768..32767", w->text, raw);
	*v = raw < 0 ? -(int64_t)(-raw + 0.5) : (int64_t)(raw + 0.5);
	return MH_OK;
}

static enum mh_err parse_key(struct parser *ps, const struct lex_word *first)
{
	if (!ps->has_channel)
		return mh_fail_text(ps->d, MH_ESYNTAX, first->line, first->col,
				    "a keyframe before any channel");
	struct clip_track *t = &ps->c->tracks[ps->c->ntracks - 1];
	struct clip_channel *ch = &t->channels[t->nchannels - 1];
	static const char *const WHAT[] = {"frame", "value", "ease_in",
					   "ease_out"};
	int64_t v[4];
	struct lex_word w = *first;
	for (int i = 0; i < 4; i++) {
		enum mh_err err = MH_OK;
		if (i && (err = lex_expect(&ps->lx, &w, WHAT[i], ps->d)))
			return err;
		size_t n = strlen(w.text);
		if (i == 1 && n > 3 && !strcmp(w.text + n - 3, "deg"))
			err = parse_degrees(ps, &w, ch->bit, &v[i]);
		else
			err = lex_int(&w, INT16_MIN, INT16_MAX, &v[i], ps->d);
		if (err && ps->d) {
			/* Say which of the four columns is wrong. */
			char msg[sizeof ps->d->msg];
			memcpy(msg, ps->d->msg, sizeof msg);
			mh_fail_text(ps->d, err, w.line, w.col, "%s: %s",
				     WHAT[i], msg);
		}
		if (err)
			return err;
	}
	struct clip_key k = {.frame = (int16_t)v[0], .value = (int16_t)v[1],
			     .ease_in = (int16_t)v[2], .ease_out = (int16_t)v[3]};
	return clip_add_key(ch, k) ? MH_OK : nomem(ps, first);
}

static enum mh_err parse_line(struct parser *ps)
{
	struct lex_word w;
	enum mh_err err = lex_expect(&ps->lx, &w, "a word", ps->d);
	if (err)
		return err;
	if (!strcmp(w.text, "loop") || !strcmp(w.text, "loop_start"))
		err = parse_loop(ps, &w);
	else if (!strcmp(w.text, "track"))
		err = parse_track(ps, &w);
	else if (!strcmp(w.text, "channel"))
		err = parse_channel(ps, &w);
	else if (w.text[0] && strchr("0123456789+-", w.text[0]))
		err = parse_key(ps, &w);
	else
		err = mh_fail_text(ps->d, MH_ESYNTAX, w.line, w.col,
				   "expected loop, loop_start, track, channel "
				   "or a keyframe (frame value ease_in "
				   "ease_out), got \"%s\"", w.text);
	return err ? err : lex_end_of_line(&ps->lx, ps->d);
}

enum mh_err clip_reject_nul(const char *text, size_t len, struct mh_diag *d)
{
	const char *nul = len ? memchr(text, '\0', len) : NULL; /* an empty text may be NULL */
	if (!nul)
		return MH_OK;
	unsigned line = 1, col = 1;
	for (const char *p = text; p < nul; p++, col++)
		if (*p == '\n') {
			line++;
			col = 0;
		}
	return mh_fail_text(d, MH_ESYNTAX, line, col, "NUL byte in text");
}

enum mh_err clip_parse(const char *text, size_t len, struct clip *c,
		       struct mh_diag *d)
{
	memset(c, 0, sizeof *c);
	struct parser ps = {.c = c, .d = d};
	lex_init(&ps.lx, text, len);
	enum mh_err err = clip_reject_nul(text, len, d);
	while (!err && lex_next_line(&ps.lx, &err, d))
		err = parse_line(&ps);
	finish_track(&ps);
	if (err)
		clip_free(c);
	return err;
}

/* ---- locating elements ------------------------------------------------ */

/* The first word of the next line that has one, the rest of that line
 * skipped; false at the end of the text or at what the lexer refuses. */
static bool next_statement(struct lex *lx, struct lex_word *first)
{
	struct lex_word rest;
	enum mh_err err = MH_OK;
	if (!lex_next_line(lx, &err, NULL) || !lex_word(lx, first, &err, NULL))
		return false;
	while (lex_word(lx, &rest, &err, NULL))
		;
	return !err;
}

unsigned clip_text_line(const char *text, size_t len, int track, int channel,
			int key)
{
	struct lex lx;
	struct lex_word w;
	unsigned found[3] = {0, 0, 0}; /* lines of the track, channel, key */
	int t = -1, ch = -1, k = -1;   /* the current ones, as the parser counts */
	lex_init(&lx, text, len);
	while (track >= 0 && !found[2] && next_statement(&lx, &w)) {
		if (!strcmp(w.text, "track")) {
			if (t == track)
				break; /* past the track: no such channel or key */
			t++;
			ch = k = -1;
			if (t == track)
				found[0] = w.line;
		} else if (!strcmp(w.text, "channel")) {
			ch++;
			k = -1;
			if (t == track && ch == channel)
				found[1] = w.line;
		} else if (w.text[0] && strchr("0123456789+-", w.text[0])) {
			k++;
			if (t == track && ch == channel && channel >= 0 && k == key)
				found[2] = w.line;
		}
	}
	for (int i = 2; i >= 0; i--)
		if (found[i])
			return found[i];
	return 1;
}
