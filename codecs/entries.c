/* SPDX-License-Identifier: MIT */
/* MHFU executor entries: listing, printing, index.tsv, parsing and
 * applying an entry text (entries.h; grammar in mhfu-clip(5) "ENTRIES").
 *
 *   # comments and blank lines anywhere
 *   part K keeps its clip       the part's slot is (or becomes) empty
 *   part K                      the part's clip follows, as clip text
 *   loop ... track ... channel ... keyframes
 *
 * A "part" line ends the clip text of the part before it, so each part's
 * clip is parsed by clip_parse alone and its errors are moved to the
 * entry text's lines. */
#include "entries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "rig.h"
#include "strbuf.h"
#include "names.h"

/* Where trailing comments start on "part" lines, as on track lines. */
#define NOTE_COLUMN 24

uint32_t entries_parts(const struct anim *a)
{
	if (a->format != CLIP_MHFU)
		return 0;
	return a->nstreams / 2 + a->nstreams % 2;
}

int32_t entries_part_clip(const struct anim *a, uint32_t entry, uint32_t part,
			  uint32_t *stream, uint32_t *slot)
{
	anim_mhfu_entry_slot(part, entry, stream, slot);
	if (*stream >= a->nstreams || *slot >= a->streams[*stream].nslots)
		return ANIM_EMPTY;
	return a->streams[*stream].slots[*slot];
}

bool entries_listed(const struct anim *a, uint32_t entry)
{
	uint32_t nparts = entries_parts(a), stream, slot;
	for (uint32_t k = 0; entry < ENTRIES_MAX && k < nparts; k++)
		if (entries_part_clip(a, entry, k, &stream, &slot) != ANIM_EMPTY)
			return true;
	return false;
}

int32_t entries_clip_frames(const struct clip *c)
{
	int32_t last = 0;
	bool any = false;
	for (uint32_t t = 0; t < c->ntracks; t++)
		for (uint32_t ch = 0; ch < c->tracks[t].nchannels; ch++) {
			const struct clip_channel *chan = &c->tracks[t].channels[ch];
			for (uint32_t k = 0; k < chan->nkeys; k++)
				if (!any || chan->keys[k].frame > last) {
					last = chan->keys[k].frame;
					any = true;
				}
		}
	return last;
}

/* ---- printing --------------------------------------------------------- */

/* A slot of a pack. */
struct slot_ref {
	uint32_t stream, slot;
};

/* The slots playing `clip` but `skip` (two slots, which may be the same),
 * as "stream 2 slot 25 (entry 25)" (tsv: "stream2/slot025"),
 * comma-separated; nothing when none. */
static void print_sharers(struct strbuf *sb, const struct anim *a, int32_t clip,
			  const struct slot_ref skip[2], bool tsv)
{
	bool first = true;
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t i = 0; i < a->streams[s].nslots; i++) {
			if (a->streams[s].slots[i] != clip ||
			    (s == skip[0].stream && i == skip[0].slot) ||
			    (s == skip[1].stream && i == skip[1].slot))
				continue;
			strbuf_printf(sb, first ? "" : tsv ? "," : ", ");
			first = false;
			if (tsv)
				strbuf_printf(sb, "stream%u/slot%03u", s, i);
			else if (i < 100)
				strbuf_printf(sb, "stream %u slot %u (entry %u)", s, i,
					      s % 2 * 100 + i);
			else
				strbuf_printf(sb, "stream %u slot %u", s, i);
		}
}

/* Whether any slot but `skip` plays `clip`. */
static bool is_shared_beyond(const struct anim *a, int32_t clip,
			     const struct slot_ref skip[2])
{
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t i = 0; i < a->streams[s].nslots; i++)
			if (a->streams[s].slots[i] == clip &&
			    (s != skip[0].stream || i != skip[0].slot) &&
			    (s != skip[1].stream || i != skip[1].slot))
				return true;
	return false;
}

static bool is_shared(const struct anim *a, int32_t clip, uint32_t stream,
		      uint32_t slot)
{
	struct slot_ref self[2] = {{stream, slot}, {stream, slot}};
	return is_shared_beyond(a, clip, self);
}

/* "part 1", "parts 0, 2". */
static void print_part_list(struct strbuf *sb, const bool *reached,
			    uint32_t nparts, bool which)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < nparts; k++)
		n += reached[k] == which;
	strbuf_printf(sb, n == 1 ? "part " : "parts ");
	for (uint32_t k = 0, i = 0; k < nparts; k++)
		if (reached[k] == which)
			strbuf_printf(sb, i++ ? ", %u" : "%u", k);
}

static void print_heading(struct strbuf *sb, const struct anim *a,
			  uint32_t entry, const char *label, const bool *reached,
			  bool joints_known)
{
	uint32_t nparts = entries_parts(a), n = 0;
	for (uint32_t k = 0; k < nparts; k++)
		n += reached[k];
	strbuf_printf(sb, "# %s entry %u: ", label, entry);
	if (!nparts) {
		strbuf_printf(sb, "not an MHFU pack, it has no parts\n");
		return;
	}
	if (!n) {
		strbuf_printf(sb, "no part plays it, every part keeps its clip\n");
	} else if (n == nparts) {
		strbuf_printf(sb, "every part plays it (");
		print_part_list(sb, reached, nparts, true);
		strbuf_printf(sb, ")\n");
	} else {
		strbuf_printf(sb, "reaches ");
		print_part_list(sb, reached, nparts, true);
		strbuf_printf(sb, " only; ");
		print_part_list(sb, reached, nparts, false);
		strbuf_printf(sb, n == nparts - 1 ? " keeps its clip\n"
						  : " keep their clips\n");
	}
	strbuf_printf(sb, "# part K plays slot %u of stream 2K%s; \"part K keeps "
		      "its clip\": the slot is\n# empty and the part goes on "
		      "playing the clip it was playing\n", entry % 100,
		      entry < 100 ? "" : " + 1");
	if (!joints_known)
		strbuf_printf(sb, "# no rig: the joints are unknown, tracks count "
			      "from 0 within each part\n");
	strbuf_printf(sb, "# units: rot 4096 = 90 deg, loc 16 = 1.0, scl 256 = "
		      "1.0; ease in channel units per frame\n");
}

/* A line of `left`, then "# note" at NOTE_COLUMN. */
static void noted_line(struct strbuf *sb, const char *left, const char *note)
{
	if (strlen(left) < NOTE_COLUMN)
		strbuf_printf(sb, "%-*s# %s\n", NOTE_COLUMN, left, note);
	else
		strbuf_printf(sb, "%s # %s\n", left, note);
}

static void print_kept_part(struct strbuf *sb, const struct anim *a,
			    uint32_t part, uint32_t stream, uint32_t slot)
{
	char left[64], note[96];
	snprintf(left, sizeof left, "part %u keeps its clip", part);
	if (stream >= a->nstreams)
		snprintf(note, sizeof note, "the pack has no stream %u", stream);
	else if (slot >= a->streams[stream].nslots)
		snprintf(note, sizeof note, "stream %u has no slot %u (it has %u)",
			 stream, slot, a->streams[stream].nslots);
	else
		snprintf(note, sizeof note, "stream %u slot %u is empty", stream,
			 slot);
	noted_line(sb, left, note);
}

/* The sharing comment above a part's clip: whom an edit reaches. */
static void print_sharing(struct strbuf *sb, const struct anim *a, int32_t clip,
			  uint32_t stream, uint32_t slot)
{
	struct slot_ref skip[2] = {{stream, slot}, {stream, slot}};
	anim_first_use(a, (uint32_t)clip, &skip[1].stream, &skip[1].slot);
	if (skip[1].stream == stream && skip[1].slot == slot) {
		strbuf_printf(sb, "shared with ");
		print_sharers(sb, a, clip, skip, false);
		strbuf_printf(sb, ": an edit here changes them too");
		return;
	}
	strbuf_printf(sb, "shares the clip of stream %u slot %u", skip[1].stream,
		      skip[1].slot);
	if (skip[1].slot < 100)
		strbuf_printf(sb, " (entry %u)", skip[1].stream % 2 * 100 + skip[1].slot);
	if (is_shared_beyond(a, clip, skip)) {
		strbuf_printf(sb, ", also played by ");
		print_sharers(sb, a, clip, skip, false);
	}
	strbuf_printf(sb, ": an edit here gives this slot a clip of its own");
}

/* The part's line, sharing comment and clip text, its tracks named by
 * the rig's joints of the part when `joints` (the part's joint count, 0
 * when unknown) is given; false when out of memory. */
static bool print_played_part(struct strbuf *sb, const struct anim *a,
			      uint32_t part, uint32_t stream, uint32_t slot,
			      int32_t clip, uint32_t first_joint, uint32_t joints)
{
	const struct clip *c = &a->clips[clip];
	bool shared = is_shared(a, clip, stream, slot);
	char left[32], note[160];
	int n = snprintf(note, sizeof note, "stream %u slot %u", stream, slot);
	if (joints)
		n += snprintf(note + n, sizeof note - (size_t)n, ", ");
	if (joints)
		n += names_joints_phrase(note + n, sizeof note - (size_t)n, first_joint, joints,
					 c->ntracks);
	snprintf(note + n, sizeof note - (size_t)n, ", runs to frame %d%s",
		 (int)entries_clip_frames(c), shared ? "" : ", not shared");
	snprintf(left, sizeof left, "part %u", part);
	noted_line(sb, left, note);

	struct strbuf header = {0};
	if (shared)
		print_sharing(&header, a, clip, stream, slot);
	char *head = strbuf_take(&header, NULL);
	char *text = head ? clip_print_at(c, shared ? head : NULL, part,
					  joints ? (int)first_joint : -1, joints, NULL) : NULL;
	free(head);
	if (!text)
		return false;
	strbuf_printf(sb, "%s", text);
	free(text);
	return true;
}

char *entries_print(const struct anim *a, uint32_t entry, const char *label,
		    const struct skeleton *rig, size_t *len)
{
	uint32_t nparts = entries_parts(a);
	if (entry >= ENTRIES_MAX)
		return NULL;
	bool *reached = calloc(nparts ? nparts : 1, sizeof *reached);
	if (!reached)
		return NULL;
	bool have_rig = rig && a->format == CLIP_MHFU && rig->nparams >= 2;
	uint32_t stream, slot;
	for (uint32_t k = 0; k < nparts; k++)
		reached[k] = entries_part_clip(a, entry, k, &stream, &slot) != ANIM_EMPTY;

	struct strbuf sb = {0};
	bool ok = true;
	print_heading(&sb, a, entry, label, reached, have_rig);
	for (uint32_t k = 0; ok && k < nparts; k++) {
		int32_t clip = entries_part_clip(a, entry, k, &stream, &slot);
		uint32_t first = 0, count = 0;
		strbuf_printf(&sb, "\n");
		if (have_rig && !rig_part_joints(rig, k, &first, &count))
			count = 0;
		if (clip == ANIM_EMPTY)
			print_kept_part(&sb, a, k, stream, slot);
		else
			ok = print_played_part(&sb, a, k, stream, slot, clip, first, count);
	}
	free(reached);
	if (!ok) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_take(&sb, len);
}

char *entries_index(const struct anim *a, size_t *len)
{
	uint32_t nparts = entries_parts(a), stream, slot;
	struct strbuf sb = {0};
	strbuf_printf(&sb, "# entry");
	for (uint32_t k = 0; k < nparts; k++)
		strbuf_printf(&sb, "\tpart%u_stream\tpart%u_slot\tpart%u_frames"
			      "\tpart%u_shared_with", k, k, k, k);
	strbuf_printf(&sb, "\n");
	for (uint32_t e = 0; e < ENTRIES_MAX; e++) {
		if (!entries_listed(a, e))
			continue;
		strbuf_printf(&sb, "%u", e);
		for (uint32_t k = 0; k < nparts; k++) {
			int32_t clip = entries_part_clip(a, e, k, &stream, &slot);
			strbuf_printf(&sb, "\t%u\t%u\t", stream, slot);
			if (clip == ANIM_EMPTY) {
				strbuf_printf(&sb, "-\t-");
				continue;
			}
			strbuf_printf(&sb, "%d\t", (int)entries_clip_frames(&a->clips[clip]));
			struct slot_ref self[2] = {{stream, slot}, {stream, slot}};
			if (is_shared(a, clip, stream, slot))
				print_sharers(&sb, a, clip, self, true);
			else
				strbuf_printf(&sb, "-");
		}
		strbuf_printf(&sb, "\n");
	}
	return strbuf_take(&sb, len);
}

/* ---- parsing ---------------------------------------------------------- */

/* A line of the text whose first word is "part". */
struct part_line {
	const char *start; /* its first byte */
	const char *next;  /* the byte after its newline (or the text's end) */
	unsigned line;     /* 1-based */
};

/* The next "part" line from p (at line `line`), or false. */
static bool next_part_line(const char *p, const char *end, unsigned line,
			   struct part_line *pl)
{
	for (; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end, *w = p;
		while (w < next && (*w == ' ' || *w == '\t' || *w == '\r'))
			w++;
		if (next - w >= 4 && !memcmp(w, "part", 4) &&
		    (w + 4 == end || strchr(" \t\r\n#", w[4]))) {
			*pl = (struct part_line){p, next, line};
			return true;
		}
		p = next;
	}
	return false;
}

/* Reads "part K [keeps its clip]"; *part within nparts. */
static enum mh_err parse_part_line(const struct part_line *pl, uint32_t nparts,
				   uint32_t *part, bool *keeps, struct mh_diag *d)
{
	struct lex lx;
	struct lex_word w;
	enum mh_err err;
	int64_t k;
	lex_init(&lx, pl->start, (size_t)(pl->next - pl->start));
	lx.line = pl->line;
	lex_next_line(&lx, &err, d);
	lex_word(&lx, &w, &err, d); /* "part" */
	if ((err = lex_expect(&lx, &w, "the part number", d)) ||
	    (err = lex_int(&w, 0, UINT32_MAX, &k, d)))
		return err;
	if (k >= nparts)
		return nparts ? mh_fail_text(d, MH_ERANGE, w.line, w.col,
					     "no part %s: the pack has parts "
					     "0..%u", w.text, nparts - 1)
			      : mh_fail_text(d, MH_ERANGE, w.line, w.col,
					     "no part %s: the pack has no parts "
					     "(it is not an MHFU pack)", w.text);
	*part = (uint32_t)k;
	*keeps = false;
	if (!lex_word(&lx, &w, &err, d))
		return err;
	static const char *const KEEPS[] = {"keeps", "its", "clip"};
	for (int i = 0; i < 3; i++) {
		if (i && (err = lex_expect(&lx, &w, "\"keeps its clip\"", d)))
			return err;
		if (strcmp(w.text, KEEPS[i]))
			return mh_fail_text(d, MH_ESYNTAX, w.line, w.col,
					    "expected \"keeps its clip\" or the "
					    "end of the line, got \"%s\"", w.text);
	}
	*keeps = true;
	return lex_end_of_line(&lx, d);
}

/* Fails at the first statement of text[0..len) (from line `line`):
 * `why` says what may come there. */
static enum mh_err no_statement(const char *text, size_t len, unsigned line,
				const char *why, struct mh_diag *d)
{
	struct lex lx;
	struct lex_word w;
	enum mh_err err;
	lex_init(&lx, text, len);
	lx.line = line;
	if (!lex_next_line(&lx, &err, d) || !lex_word(&lx, &w, &err, d))
		return err;
	return mh_fail_text(d, MH_ESYNTAX, w.line, w.col, "%s, got \"%s\"", why,
			    w.text);
}

/* The text of one part, from `body` (at line `line`) to `end`. */
static enum mh_err parse_part_body(struct entries_part_edit *pe, uint32_t part,
				   const char *body, const char *end,
				   unsigned line, struct mh_diag *d)
{
	char why[128];
	if (pe->keeps) {
		snprintf(why, sizeof why, "part %u keeps its clip, so it has no "
			 "clip text (to give it one, write \"part %u\" alone)",
			 part, part);
		return no_statement(body, (size_t)(end - body), line, why, d);
	}
	enum mh_err err = clip_parse(body, (size_t)(end - body), &pe->clip, d);
	if (err && d && d->line)
		d->line += line - 1;
	return err;
}

/* The line of the text's last character, for what is missing at its end. */
static unsigned last_line(const char *text, size_t len)
{
	unsigned line = 1;
	for (size_t i = 0; i + 1 < len; i++)
		line += text[i] == '\n';
	return line;
}

void entries_edit_free(struct entries_edit *e)
{
	if (!e)
		return;
	for (uint32_t k = 0; k < e->nparts; k++)
		clip_free(&e->parts[k].clip);
	free(e->parts);
	memset(e, 0, sizeof *e);
}

enum mh_err entries_parse(const char *text, size_t len, uint32_t nparts,
			  struct entries_edit *e, struct mh_diag *d)
{
	memset(e, 0, sizeof *e);
	enum mh_err err = clip_reject_nul(text, len, d);
	if (err)
		return err;
	if (!(e->parts = calloc(nparts ? nparts : 1, sizeof *e->parts)))
		return mh_fail_text(d, MH_ENOMEM, 1, 1, "out of memory");
	e->nparts = nparts;
	const char *end = text + len, *body = text;
	unsigned body_line = 1;
	int64_t current = -1; /* the part whose text runs up to the next part line */
	struct part_line pl;
	for (;;) {
		bool more = next_part_line(body, end, body_line, &pl);
		const char *stop = more ? pl.start : end;
		if (current < 0)
			err = no_statement(body, (size_t)(stop - body), body_line,
					   "expected \"part 0\" or \"part 0 keeps "
					   "its clip\" before any clip text", d);
		else
			err = parse_part_body(&e->parts[current], (uint32_t)current,
					      body, stop, body_line, d);
		if (err || !more)
			break;
		uint32_t k;
		bool keeps;
		if ((err = parse_part_line(&pl, nparts, &k, &keeps, d)))
			break;
		if (e->parts[k].line) {
			err = mh_fail_text(d, MH_ESYNTAX, pl.line, 1, "part %u "
					   "given twice (first at line %u)", k,
					   e->parts[k].line);
			break;
		}
		e->parts[k].line = pl.line;
		e->parts[k].keeps = keeps;
		current = k;
		body = pl.next;
		body_line = pl.line + 1;
	}
	for (uint32_t k = 0; !err && k < nparts; k++)
		if (!e->parts[k].line)
			err = mh_fail_text(d, MH_ESYNTAX, last_line(text, len), 1,
					   "part %u is missing: write \"part %u\" "
					   "and its clip, or \"part %u keeps its "
					   "clip\"", k, k, k);
	if (err)
		entries_edit_free(e);
	return err;
}

/* ---- applying --------------------------------------------------------- */

/* Fails unless every part that has a clip has a slot for the entry. */
static enum mh_err check_slots(const struct anim *a, uint32_t entry,
			       const struct entries_edit *e, struct mh_diag *d)
{
	for (uint32_t k = 0; k < e->nparts; k++) {
		uint32_t s, slot;
		anim_mhfu_entry_slot(k, entry, &s, &slot);
		if (e->parts[k].keeps)
			continue;
		if (s >= a->nstreams)
			return mh_fail_text(d, MH_ERANGE, e->parts[k].line, 1,
					    "part %u has no slot for entry %u: "
					    "the pack has no stream %u", k, entry, s);
		if (slot >= a->streams[s].nslots)
			return mh_fail_text(d, MH_ERANGE, e->parts[k].line, 1,
					    "part %u has no slot for entry %u: "
					    "stream %u has %u slots, no slot %u",
					    k, entry, s, a->streams[s].nslots, slot);
	}
	return MH_OK;
}

/* Whether (stream, slot) is the first user of its clip `clip`. */
static bool first_user(const struct anim *a, int32_t clip, uint32_t stream,
		       uint32_t slot)
{
	uint32_t fs, fslot;
	return anim_first_use(a, (uint32_t)clip, &fs, &fslot) && fs == stream &&
	       fslot == slot;
}

/* Decides each part's action against the pack as it is; returns how many
 * clips the edit adds. */
static uint32_t plan(const struct anim *a, uint32_t entry,
		     struct entries_edit *e)
{
	uint32_t s, slot, added = 0;
	/* First the in-place replacements, which other parts may follow. */
	for (uint32_t k = 0; k < e->nparts; k++) {
		struct entries_part_edit *pe = &e->parts[k];
		int32_t cur = entries_part_clip(a, entry, k, &s, &slot);
		pe->action = ENTRIES_UNCHANGED;
		if (!pe->keeps && cur != ANIM_EMPTY && first_user(a, cur, s, slot) &&
		    !clip_equal(&a->clips[cur], &pe->clip))
			pe->action = ENTRIES_REPLACED;
	}
	for (uint32_t k = 0; k < e->nparts; k++) {
		struct entries_part_edit *pe = &e->parts[k];
		int32_t cur = entries_part_clip(a, entry, k, &s, &slot);
		if (pe->action == ENTRIES_REPLACED)
			continue;
		if (pe->keeps) {
			pe->action = cur == ANIM_EMPTY ? ENTRIES_UNCHANGED : ENTRIES_EMPTIED;
			continue;
		}
		if (cur == ANIM_EMPTY) {
			pe->action = ENTRIES_FILLED;
			added++;
			continue;
		}
		/* What the slot plays once the replacements are done. */
		const struct clip *plays = &a->clips[cur];
		for (uint32_t j = 0; j < e->nparts; j++) {
			uint32_t sj, slotj;
			if (e->parts[j].action == ENTRIES_REPLACED &&
			    entries_part_clip(a, entry, j, &sj, &slotj) == cur)
				plays = &e->parts[j].clip;
		}
		if (clip_equal(plays, &pe->clip)) {
			pe->action = ENTRIES_UNCHANGED;
		} else {
			pe->action = ENTRIES_COPIED;
			added++;
		}
	}
	return added;
}

/* Room for `more` clips, so that anim_add_clip cannot fail. */
static enum mh_err reserve_clips(struct anim *a, uint32_t more, struct mh_diag *d)
{
	if (a->nclips > (uint32_t)INT32_MAX - more)
		return mh_fail(d, MH_ERANGE, 0, "the pack would hold more than "
			       "%d clips", INT32_MAX);
	if (a->nclips + more <= a->cap)
		return MH_OK;
	struct clip *p = realloc(a->clips, (size_t)(a->nclips + more) * sizeof *p);
	if (!p)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory");
	a->clips = p;
	a->cap = a->nclips + more;
	return MH_OK;
}

enum mh_err entries_apply(struct anim *a, uint32_t entry,
			  struct entries_edit *e, struct mh_diag *d)
{
	uint32_t nparts = entries_parts(a), s, slot;
	if (entry >= ENTRIES_MAX)
		return mh_fail(d, MH_ERANGE, 0, "no entry %u: entries are 0..%u",
			       entry, ENTRIES_MAX - 1);
	if (!nparts)
		return mh_fail(d, MH_ERANGE, 0, "entries are MHFU's: this pack's "
			       "streams are not parts");
	if (e->nparts != nparts)
		return mh_fail(d, MH_ERANGE, 0, "the text was parsed for %u parts, "
			       "the pack has %u", e->nparts, nparts);
	enum mh_err err = check_slots(a, entry, e, d);
	if (err || (err = reserve_clips(a, plan(a, entry, e), d)))
		return err;
	for (uint32_t k = 0; k < nparts; k++) {
		struct entries_part_edit *pe = &e->parts[k];
		int32_t cur = entries_part_clip(a, entry, k, &s, &slot);
		switch (pe->action) {
		case ENTRIES_UNCHANGED:
			break;
		case ENTRIES_EMPTIED:
			a->streams[s].slots[slot] = ANIM_EMPTY;
			break;
		case ENTRIES_REPLACED:
			clip_free(&a->clips[cur]);
			a->clips[cur] = pe->clip;
			memset(&pe->clip, 0, sizeof pe->clip);
			break;
		case ENTRIES_COPIED:
		case ENTRIES_FILLED:
			a->streams[s].slots[slot] = anim_add_clip(a, &pe->clip);
			break;
		}
	}
	return MH_OK;
}

enum mh_err entries_write(struct anim *a, uint32_t entry, const char *text,
			  size_t len, struct mh_diag *d)
{
	struct entries_edit e;
	enum mh_err err = entries_parse(text, len, entries_parts(a), &e, d);
	if (!err)
		err = entries_apply(a, entry, &e, d);
	entries_edit_free(&e);
	return err;
}

/* ---- locating elements ------------------------------------------------ */

unsigned entries_text_line(const char *text, size_t len, uint32_t part,
			   int track, int channel, int key)
{
	const char *end = text + len, *p = text;
	unsigned line = 1;
	struct part_line pl;
	while (next_part_line(p, end, line, &pl)) {
		uint32_t k;
		bool keeps;
		p = pl.next;
		line = pl.line + 1;
		if (parse_part_line(&pl, UINT32_MAX, &k, &keeps, NULL) || k != part)
			continue;
		if (track < 0)
			return pl.line;
		struct part_line next;
		const char *stop = next_part_line(p, end, line, &next) ? next.start : end;
		return line - 1 + clip_text_line(p, (size_t)(stop - p), track,
						 channel, key);
	}
	return 1;
}
