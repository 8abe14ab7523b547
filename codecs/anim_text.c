/* SPDX-License-Identifier: MIT */
/* pack.txt: an animation pack's shape without its clips (anim.h; grammar
 * in man/mhfu-clip.5).
 *
 *   format mhfu|p3rd|none               once, before the streams
 *   stream N slots M                    N counts from 0 in order
 *   filled A-B C ...                    slots with a clip, ascending
 *   slot A shares [stream S] slot B     A plays the clip of earlier slot B
 *   tail HEX...  |  tail zeros N        bytes after the last clip
 *
 * Clip numbers never appear: a filled slot that shares nothing brings
 * its own clip, and clips are numbered in the order slots first use them,
 * exactly as the binary layout stores them.  How long each filled slot's
 * clip runs and whether it loops are comments the printer adds (a line
 * "# slot A runs to ..." for a slot with its own clip, the end of its
 * share line for the others): information only, the parser skips them. */
#include "anim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entries.h"
#include "hex_text.h"
#include "lex.h"
#include "strbuf.h"

#define RANGES_PER_LINE 12
#define NOTE_COLUMN 24 /* where a share line's timing comment starts */

/* Tail lines of 32 bytes in groups of 8, zero runs of 16 or more as
 * "tail zeros N". */
static const struct tail_layout TAIL_LAYOUT = {
	.zero_run = 16, .per_line = 32, .group = 8, .file_aligned = false};

/* ---- printing --------------------------------------------------------- */

static void print_filled(struct strbuf *sb, const struct anim_stream *st)
{
	unsigned ranges = 0;
	for (uint32_t i = 0; i < st->nslots;) {
		if (st->slots[i] == ANIM_EMPTY) {
			i++;
			continue;
		}
		uint32_t j = i;
		while (j + 1 < st->nslots && st->slots[j + 1] != ANIM_EMPTY)
			j++;
		strbuf_str(sb, ranges % RANGES_PER_LINE ? " " : ranges ? "\nfilled " :
			   "filled ", 0);
		strbuf_int(sb, i, 0);
		if (i != j) {
			strbuf_char(sb, '-');
			strbuf_int(sb, j, 0);
		}
		ranges++;
		i = j + 1;
	}
	if (ranges)
		strbuf_char(sb, '\n');
}

void anim_clip_timing(const struct clip *c, char *buf, size_t len)
{
	/* Built by hand, not by printf: every filled slot's line has one. */
	char t[96], num[24], start[TEXT_F32_MAX];
	text_int(num, entries_clip_frames(c));
	text_f32(start, sizeof start, c->loop_start);
	char *o = stpcpy(stpcpy(t, "runs to frame "), num);
	if (c->loop)
		stpcpy(stpcpy(o, ", loops from frame "), start);
	else
		stpcpy(o, ", plays once");
	if (len) {
		size_t n = strlen(t) < len - 1 ? strlen(t) : len - 1;
		memcpy(buf, t, n);
		buf[n] = '\0';
	}
}

/* A filled slot's line: its timing comment, or its share line with its
 * timing at the end. */
static void print_slot(struct strbuf *sb, const struct clip *c, uint32_t slot,
		       const char *share)
{
	char timing[96];
	anim_clip_timing(c, timing, sizeof timing);
	if (!share[0]) {
		strbuf_str(sb, "# slot ", 0);
		strbuf_int(sb, slot, 0);
		strbuf_char(sb, ' ');
	} else {
		strbuf_str(sb, share, strlen(share) < NOTE_COLUMN ? -NOTE_COLUMN : 0);
		strbuf_str(sb, strlen(share) < NOTE_COLUMN ? "# " : " # ", 0);
	}
	strbuf_str(sb, timing, 0);
	strbuf_char(sb, '\n');
}

char *anim_print_shape(const struct anim *a, size_t *len)
{
	struct strbuf sb = {0};
	uint32_t *first_s = calloc(a->nclips + 1, sizeof *first_s);
	uint32_t *first_i = calloc(a->nclips + 1, sizeof *first_i);
	bool *seen = calloc(a->nclips + 1, sizeof *seen);
	if (!first_s || !first_i || !seen) {
		free(first_s);
		free(first_i);
		free(seen);
		return NULL;
	}
	strbuf_str(&sb, "# animation pack: ", 0);
	strbuf_int(&sb, a->nstreams, 0);
	strbuf_str(&sb, " streams, ", 0);
	strbuf_int(&sb, a->nclips, 0);
	strbuf_str(&sb, " clips, ", 0);
	strbuf_int(&sb, (long long)a->tail_len, 0);
	strbuf_str(&sb, " tail bytes\n"
		   "# filled: slots holding a clip (streamS/slotNNN.txt)\n"
		   "# slot A shares [stream S] slot B: A plays the clip of the earlier slot B\n"
		   "# slot A runs to frame F: A's clip ends at its last keyframe, then loops or "
		   "stops\nformat ", 0);
	strbuf_str(&sb, clip_format_name(a->format), 0);
	strbuf_char(&sb, '\n');
	for (uint32_t s = 0; s < a->nstreams; s++) {
		const struct anim_stream *st = &a->streams[s];
		strbuf_str(&sb, "\nstream ", 0);
		strbuf_int(&sb, s, 0);
		strbuf_str(&sb, " slots ", 0);
		strbuf_int(&sb, st->nslots, 0);
		strbuf_char(&sb, '\n');
		print_filled(&sb, st);
		for (uint32_t i = 0; i < st->nslots; i++) {
			int32_t c = st->slots[i];
			char share[64] = "";
			if (c < 0 || (uint32_t)c >= a->nclips)
				continue;
			if (!seen[c]) {
				seen[c] = true;
				first_s[c] = s;
				first_i[c] = i;
			} else if (first_s[c] == s) {
				snprintf(share, sizeof share, "slot %u shares slot %u",
					 i, first_i[c]);
			} else {
				snprintf(share, sizeof share, "slot %u shares stream "
					 "%u slot %u", i, first_s[c], first_i[c]);
			}
			print_slot(&sb, &a->clips[c], i, share);
		}
	}
	if (a->tail_len)
		strbuf_printf(&sb, "\n# %zu bytes after the last clip\n",
			      a->tail_len);
	hex_text_print_tail(&sb, a->tail, a->tail_len, &TAIL_LAYOUT);
	free(first_s);
	free(first_i);
	free(seen);
	return strbuf_take(&sb, len);
}

/* ---- parsing ---------------------------------------------------------- */

/* While parsing, a slot holds ANIM_EMPTY, OWN (a clip of its own), or the
 * global number (over all streams) of the slot owning its clip. */
#define OWN (-2)

struct shape {
	struct lex lx;
	struct mh_diag *d;
	bool seen_format;
	enum clip_format format;
	uint32_t nstreams, scap;
	struct anim_stream *streams;
	uint32_t *base;      /* per stream: global number of its slot 0 */
	uint32_t total;      /* slots over all streams */
	int64_t last_filled; /* highest slot listed filled in this stream */
	struct tail_bytes tail;
};

static void shape_free(struct shape *sh)
{
	for (uint32_t s = 0; s < sh->nstreams; s++)
		free(sh->streams[s].slots);
	free(sh->streams);
	free(sh->base);
	free(sh->tail.p);
}

static enum mh_err oom(struct shape *sh, const struct lex_word *w)
{
	return mh_fail_text(sh->d, MH_ENOMEM, w->line, w->col, "out of memory");
}

static enum mh_err expect_word(struct shape *sh, const char *word)
{
	struct lex_word w;
	char what[32];
	snprintf(what, sizeof what, "\"%s\"", word);
	enum mh_err err = lex_expect(&sh->lx, &w, what, sh->d);
	if (!err && strcmp(w.text, word))
		err = mh_fail_text(sh->d, MH_ESYNTAX, w.line, w.col, "expected "
				   "\"%s\", got \"%s\"", word, w.text);
	return err;
}

static enum mh_err next_int(struct shape *sh, const char *what, int64_t max,
			    int64_t *v, struct lex_word *w)
{
	enum mh_err err = lex_expect(&sh->lx, w, what, sh->d);
	return err ? err : lex_int(w, 0, max, v, sh->d);
}

static enum mh_err parse_format(struct shape *sh, const struct lex_word *kw)
{
	struct lex_word w;
	if (sh->seen_format || sh->nstreams)
		return mh_fail_text(sh->d, MH_ESYNTAX, kw->line, kw->col,
				    "format must come once, before the streams");
	enum mh_err err = lex_expect(&sh->lx, &w, "mhfu, p3rd or none", sh->d);
	if (err)
		return err;
	if (!strcmp(w.text, "mhfu"))
		sh->format = CLIP_MHFU;
	else if (!strcmp(w.text, "p3rd"))
		sh->format = CLIP_P3RD;
	else if (!strcmp(w.text, "none"))
		sh->format = CLIP_NONE;
	else
		return mh_fail_text(sh->d, MH_ESYNTAX, w.line, w.col, "expected "
				    "mhfu, p3rd or none, got \"%s\"", w.text);
	sh->seen_format = true;
	return MH_OK;
}

static enum mh_err parse_stream(struct shape *sh, const struct lex_word *kw)
{
	struct lex_word w;
	int64_t n, slots;
	if (!sh->seen_format)
		return mh_fail_text(sh->d, MH_ESYNTAX, kw->line, kw->col,
				    "expected a format line before the streams");
	enum mh_err err = next_int(sh, "the stream number", UINT32_MAX, &n, &w);
	if (err)
		return err;
	if (n != sh->nstreams)
		return mh_fail_text(sh->d, MH_ESYNTAX, w.line, w.col, "expected "
				    "stream %u (streams are numbered in order "
				    "from 0), got %s", sh->nstreams, w.text);
	if ((err = expect_word(sh, "slots")) ||
	    (err = next_int(sh, "the slot count",
			    ANIM_TEXT_MAX_SLOTS - sh->total, &slots, &w)))
		return err;
	if (sh->nstreams == sh->scap) {
		uint32_t cap = sh->scap ? 2 * sh->scap : 8;
		struct anim_stream *p = realloc(sh->streams, cap * sizeof *p);
		if (p)
			sh->streams = p;
		uint32_t *b = p ? realloc(sh->base, cap * sizeof *b) : NULL;
		if (!b)
			return oom(sh, kw);
		sh->base = b;
		sh->scap = cap;
	}
	struct anim_stream *st = &sh->streams[sh->nstreams];
	*st = (struct anim_stream){0};
	if (slots && !(st->slots = malloc((size_t)slots * sizeof *st->slots)))
		return oom(sh, kw);
	st->nslots = (uint32_t)slots;
	for (uint32_t i = 0; i < st->nslots; i++)
		st->slots[i] = ANIM_EMPTY;
	sh->base[sh->nstreams++] = sh->total;
	sh->total += st->nslots;
	sh->last_filled = -1;
	return MH_OK;
}

/* The current stream, or an error at kw when there is none yet. */
static struct anim_stream *current(struct shape *sh, const struct lex_word *kw,
				   enum mh_err *err)
{
	if (sh->nstreams)
		return &sh->streams[sh->nstreams - 1];
	*err = mh_fail_text(sh->d, MH_ESYNTAX, kw->line, kw->col,
			    "\"%s\" before any stream", kw->text);
	return NULL;
}

/* One word of a filled line: "A" or "A-B". */
static enum mh_err filled_range(struct shape *sh, struct anim_stream *st,
				const struct lex_word *w)
{
	if (!st->nslots)
		return mh_fail_text(sh->d, MH_ERANGE, w->line, w->col,
				    "the stream has no slots to fill");
	struct lex_word lo = *w, hi = *w;
	char *dash = strchr(lo.text + 1, '-');
	if (dash) {
		size_t at = (size_t)(dash + 1 - lo.text);
		*dash = '\0';
		memmove(hi.text, hi.text + at, strlen(hi.text + at) + 1);
		hi.col = w->col + (unsigned)at;
	}
	int64_t a, b;
	enum mh_err err = lex_int(&lo, 0, st->nslots - 1, &a, sh->d);
	if (!err)
		err = lex_int(&hi, 0, st->nslots - 1, &b, sh->d);
	if (!err && a <= sh->last_filled)
		err = mh_fail_text(sh->d, MH_ESYNTAX, w->line, w->col, "filled "
				   "slots must ascend: %s after %lld", w->text,
				   (long long)sh->last_filled);
	if (!err && b < a)
		err = mh_fail_text(sh->d, MH_ESYNTAX, hi.line, hi.col, "range "
				   "%s ends before it starts", w->text);
	for (int64_t i = a; !err && i <= b; i++)
		st->slots[i] = OWN;
	if (!err)
		sh->last_filled = b;
	return err;
}

static enum mh_err parse_filled(struct shape *sh, const struct lex_word *kw)
{
	enum mh_err err = MH_OK;
	struct anim_stream *st = current(sh, kw, &err);
	struct lex_word w;
	if (st)
		err = lex_expect(&sh->lx, &w, "a slot or a range A-B", sh->d);
	while (!err) {
		if ((err = filled_range(sh, st, &w)))
			break;
		if (!lex_word(&sh->lx, &w, &err, sh->d))
			break;
	}
	return err;
}

/* slot A shares [stream S] slot B */
static enum mh_err parse_share(struct shape *sh, const struct lex_word *kw)
{
	enum mh_err err = MH_OK;
	struct anim_stream *st = current(sh, kw, &err);
	if (!st)
		return err;
	uint32_t cur = sh->nstreams - 1;
	struct lex_word wa, w, wb;
	int64_t a, s = cur, b;
	if ((err = next_int(sh, "the slot number", UINT32_MAX, &a, &wa)) ||
	    (err = expect_word(sh, "shares")) ||
	    (err = lex_expect(&sh->lx, &w, "\"stream\" or \"slot\"", sh->d)))
		return err;
	if (!strcmp(w.text, "stream")) {
		if ((err = next_int(sh, "the stream number", cur, &s, &w)) ||
		    (err = lex_expect(&sh->lx, &w, "\"slot\"", sh->d)))
			return err;
	}
	if (strcmp(w.text, "slot"))
		return mh_fail_text(sh->d, MH_ESYNTAX, w.line, w.col,
				    "expected \"slot\", got \"%s\"", w.text);
	if ((err = next_int(sh, "the slot number", UINT32_MAX, &b, &wb)))
		return err;
	if (a >= st->nslots || st->slots[a] == ANIM_EMPTY)
		return mh_fail_text(sh->d, MH_ESYNTAX, wa.line, wa.col, "slot "
				    "%s is not filled (list it on a filled line "
				    "first)", wa.text);
	if (st->slots[a] != OWN)
		return mh_fail_text(sh->d, MH_ESYNTAX, wa.line, wa.col, "slot "
				    "%s already shares a clip", wa.text);
	const struct anim_stream *ts = &sh->streams[s];
	if (b >= ts->nslots || ts->slots[b] == ANIM_EMPTY)
		return mh_fail_text(sh->d, MH_ESYNTAX, wb.line, wb.col, "stream "
				    "%lld slot %s is not filled", (long long)s,
				    wb.text);
	if (s == cur && b >= a)
		return mh_fail_text(sh->d, MH_ESYNTAX, wb.line, wb.col, "a slot "
				    "shares the clip of an earlier slot, and "
				    "%s is not before %s", wb.text, wa.text);
	int32_t owner = ts->slots[b];
	st->slots[a] = owner == OWN ? (int32_t)(sh->base[s] + b) : owner;
	return MH_OK;
}

static enum mh_err parse_line(struct shape *sh)
{
	struct lex_word w;
	enum mh_err err = lex_expect(&sh->lx, &w, "a word", sh->d);
	if (err)
		return err;
	if (!strcmp(w.text, "format"))
		err = parse_format(sh, &w);
	else if (!strcmp(w.text, "stream"))
		err = parse_stream(sh, &w);
	else if (!strcmp(w.text, "filled"))
		err = parse_filled(sh, &w);
	else if (!strcmp(w.text, "slot"))
		err = parse_share(sh, &w);
	else if (!strcmp(w.text, "tail"))
		err = hex_text_parse_tail(&sh->lx, &sh->tail,
					  ANIM_TEXT_MAX_TAIL, 0, sh->d);
	else
		err = mh_fail_text(sh->d, MH_ESYNTAX, w.line, w.col, "expected "
				   "format, stream, filled, slot or tail, got "
				   "\"%s\"", w.text);
	return err ? err : lex_end_of_line(&sh->lx, sh->d);
}

/* Numbers the clips in first-use order and moves the result into *a. */
static enum mh_err finish(struct shape *sh, struct anim *a)
{
	if (!sh->seen_format || !sh->nstreams)
		return mh_fail_text(sh->d, MH_ESYNTAX, sh->lx.line, sh->lx.col,
				    "expected %s", sh->seen_format ?
				    "a stream" : "a format line");
	int32_t *clip_of = malloc((sh->total ? sh->total : 1) * sizeof *clip_of);
	if (!clip_of)
		return mh_fail_text(sh->d, MH_ENOMEM, sh->lx.line, sh->lx.col,
				    "out of memory");
	uint32_t n = 0;
	for (uint32_t s = 0; s < sh->nstreams; s++)
		for (uint32_t i = 0; i < sh->streams[s].nslots; i++) {
			int32_t *v = &sh->streams[s].slots[i];
			if (*v == OWN)
				*v = (int32_t)n++;
			else if (*v != ANIM_EMPTY)
				*v = clip_of[*v];
			clip_of[sh->base[s] + i] = *v;
		}
	free(clip_of);
	if (n && !(a->clips = calloc(n, sizeof *a->clips)))
		return mh_fail_text(sh->d, MH_ENOMEM, sh->lx.line, sh->lx.col,
				    "out of memory");
	a->nclips = a->cap = n;
	a->format = sh->format;
	a->nstreams = sh->nstreams;
	a->streams = sh->streams;
	a->tail = sh->tail.p;
	a->tail_len = sh->tail.len;
	free(sh->base);
	memset(sh, 0, sizeof *sh);
	return MH_OK;
}

enum mh_err anim_parse_shape(const char *text, size_t len, struct anim *a,
			     struct mh_diag *d)
{
	memset(a, 0, sizeof *a);
	struct shape sh = {.d = d};
	lex_init(&sh.lx, text, len);
	enum mh_err err = clip_reject_nul(text, len, d);
	while (!err && lex_next_line(&sh.lx, &err, d))
		err = parse_line(&sh);
	if (!err)
		err = finish(&sh, a);
	if (err) {
		shape_free(&sh);
		anim_free(a);
	}
	return err;
}
