/* SPDX-License-Identifier: MIT */
/* records.txt: print and parse (records.h; grammar in mhfu-clip(5)
 * "RECORD MAPS").
 *
 *   # comment lines, blank lines anywhere
 *   offset N | offset auto           at most once
 *   skip B B ... | skip none | skip auto   at most once
 *
 * Everything else the printer writes (what the map is made from, one
 * line per record) is comments: only offset and skip can be edited. */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "lex.h"
#include "strbuf.h"

/* Where the "# why" comments of the offset and skip lines start. */
#define NOTE_COLUMN 24
/* The most bones a skip line may list. */
#define SKIP_MAX SKELETON_MAX_BONES

/* ---- printing --------------------------------------------------------------- */

/* "0-5, 9, 12-13": the records set in flags[0..n). */
static void print_runs(struct strbuf *sb, const bool *flags, uint32_t n)
{
	bool any = false;
	for (uint32_t i = 0; i < n; i++) {
		if (!flags[i])
			continue;
		uint32_t end = i;
		while (end + 1 < n && flags[end + 1])
			end++;
		strbuf_printf(sb, end > i ? "%s%u-%u" : "%s%u", any ? ", " : "", i, end);
		any = true;
		i = end;
	}
	if (!any)
		strbuf_printf(sb, "none");
}

static void print_bones(struct strbuf *sb, const uint32_t *bones, uint32_t n)
{
	if (!n)
		strbuf_printf(sb, "none");
	for (uint32_t i = 0; i < n; i++)
		strbuf_printf(sb, "%s%u", i ? " " : "", bones[i]);
}

/* A line `left` with "# note" at NOTE_COLUMN. */
static void noted(struct strbuf *sb, const char *left, const char *note)
{
	if (strlen(left) < NOTE_COLUMN)
		strbuf_printf(sb, "%-*s# %s\n", NOTE_COLUMN, left, note);
	else
		strbuf_printf(sb, "%s # %s\n", left, note);
}

static void print_heading(struct strbuf *sb, const struct records *r, const char *label,
			  const char *rig_label, const char *monster_from)
{
	strbuf_printf(sb, "# %s: MHP3rd record map (mhfu-clip(5) \"RECORD MAPS\")\n", label);
	if (!r->rigged)
		strbuf_printf(sb, "# rig: none found (mount.mhfu(8) \"MHP3rd movesets\" says where "
			      "a moveset's rig is): no track drives a bone\n");
	else if (r->fork < 0)
		strbuf_printf(sb, "# rig: %s, %u bones, no joint forks\n",
			      rig_label ? rig_label : "?", r->nbones);
	else
		strbuf_printf(sb, "# rig: %s, %u bones, body fork %d\n",
			      rig_label ? rig_label : "?", r->nbones, (int)r->fork);
	if (r->monster == RECORDS_NO_MONSTER)
		strbuf_printf(sb, "# monster: not known (no overlay names it)\n");
	else
		strbuf_printf(sb, "# monster: em%03d%s%s%s\n", r->monster,
			      monster_from ? " (named by " : "", monster_from ? monster_from : "",
			      monster_from ? ")" : "");
	strbuf_printf(sb, "# %u records (the most tracks a clip has); with location channels: ",
		      r->nrecords);
	print_runs(sb, r->located, r->nrecords);
	strbuf_printf(sb, "\n#\n# Record i drives the i-th bone from the offset, stepping over "
		      "the skip list.\n# Write offset or skip to override them; \"auto\", or "
		      "the value they would\n# have anyway, takes the override away.\n");
}

/* The offset line and why it is what it is. */
static void print_offset(struct strbuf *sb, const struct records *r)
{
	char left[48], note[96];
	snprintf(left, sizeof left, "offset %u", r->offset);
	if (r->set.offset_set)
		snprintf(note, sizeof note, "overridden; the fork rule's is %u", r->fork_offset);
	else if (!r->rigged)
		snprintf(note, sizeof note, "no rig");
	else if (r->fork < 0 || !r->nrecords)
		snprintf(note, sizeof note, "the fork rule's (it has nothing to say here)");
	else if (!r->fork_kept)
		snprintf(note, sizeof note, "no offset keeps the fork rule");
	else
		snprintf(note, sizeof note, "the fork rule's: the lowest that keeps it");
	noted(sb, left, note);
}

static void print_skip(struct strbuf *sb, const struct records *r)
{
	struct strbuf list = {0};
	char note[96];
	const uint8_t *known;
	size_t nknown = records_known_skips(r->monster, &known);
	strbuf_printf(&list, "skip ");
	print_bones(&list, r->skip, r->nskip);
	if (r->set.skip_set)
		snprintf(note, sizeof note, "overridden; auto gives %s",
			 nknown ? "the monster's list" : "none");
	else if (nknown)
		snprintf(note, sizeof note, "em%03d's list", r->monster);
	else if (r->monster != RECORDS_NO_MONSTER)
		snprintf(note, sizeof note, "no list is known for em%03d", r->monster);
	else
		snprintf(note, sizeof note, "the monster is not known");
	if (list.failed) {
		strbuf_free(sb); /* out of memory: the whole text fails */
		sb->failed = true;
	} else
		noted(sb, list.buf, note);
	strbuf_free(&list);
}

/* Appends `note` to a record's line, after the name column or a comma. */
static void add_note(struct strbuf *sb, const char *name, bool *first, const char *note)
{
	if (*first) {
		strbuf_str(sb, name, -8);
		strbuf_str(sb, "  ", 0);
	} else {
		strbuf_str(sb, ", ", 0);
	}
	strbuf_str(sb, note, 0);
	*first = false;
}

/* One comment line per record: its bone, the bone's name, and notes
 * (without printf: the fuzzers print the map at every input). */
static void print_records(struct strbuf *sb, const struct records *r)
{
	strbuf_str(sb, "#\n# record  bone  name      notes\n", 0);
	for (uint32_t i = 0; i < r->nrecords; i++) {
		int32_t b = r->bone[i];
		const char *name = b >= 0 && r->name[b][0] ? r->name[b] : "-";
		bool first = true;
		strbuf_str(sb, "# ", 0);
		strbuf_int(sb, i, 6);
		strbuf_str(sb, "  ", 0);
		if (b >= 0)
			strbuf_int(sb, b, 4);
		else
			strbuf_str(sb, "-", 4);
		strbuf_str(sb, "  ", 0);
		if (!r->rigged || b < 0)
			add_note(sb, name, &first, r->rigged ? "past the rig" : "no rig");
		if (r->located[i])
			add_note(sb, name, &first,
				 r->rigged && r->fork >= 0 && !records_at_or_above_fork(r, b)
					 ? "location below the fork" : "location");
		if (b >= 0 && b == r->fork)
			add_note(sb, name, &first, "the body fork");
		if (first)
			strbuf_str(sb, name, 0);
		strbuf_char(sb, '\n');
	}
}

char *records_print(const struct records *r, const char *label, const char *rig_label,
		    const char *monster_from, size_t *len)
{
	struct strbuf sb = {0};
	int32_t first;
	print_heading(&sb, r, label, rig_label, monster_from);
	print_offset(&sb, r);
	print_skip(&sb, r);
	if (r->rigged && !records_fork_kept(r, &first))
		strbuf_printf(&sb, "# the fork rule is broken: record %d has location channels "
			      "and lands below the body fork\n", (int)first);
	print_records(&sb, r);
	return strbuf_take(&sb, len);
}

char *records_setting_print(const struct records_setting *s, size_t *len)
{
	struct strbuf sb = {0};
	if (s->offset_set)
		strbuf_printf(&sb, "offset %u\n", s->offset);
	if (s->skip_set) {
		strbuf_printf(&sb, "skip ");
		print_bones(&sb, s->skip, s->nskip);
		strbuf_printf(&sb, "\n");
	}
	return strbuf_take(&sb, len);
}

/* ---- parsing ---------------------------------------------------------------- */

struct parser {
	struct lex lx;
	const struct records *r;
	struct records_setting *s;
	struct mh_diag *d;
	bool seen_offset, seen_skip;
	struct lex_word offset_at, skip_at; /* the value (offset), the keyword (skip) */
	uint32_t cap;                       /* skip bones allocated */
};

/* A bone number of the rig: in range when there is a rig (without one,
 * records_fit says why no value other than the defaults can be had). */
static enum mh_err bone_word(struct parser *ps, const struct lex_word *w, const char *what,
			     uint32_t *v)
{
	int64_t x;
	enum mh_err err = lex_int(w, 0, UINT32_MAX, &x, ps->d);
	if (err)
		return err;
	if (ps->r->rigged && x >= ps->r->nbones)
		return mh_fail_text(ps->d, MH_ERANGE, w->line, w->col,
				    "%s %s is past the rig's last bone %d", what, w->text,
				    (int)ps->r->nbones - 1);
	*v = (uint32_t)x;
	return MH_OK;
}

/* "offset" or "skip" given twice. */
static enum mh_err once(struct parser *ps, const struct lex_word *kw, bool *seen)
{
	if (*seen)
		return mh_fail_text(ps->d, MH_ESYNTAX, kw->line, kw->col, "%s given twice",
				    kw->text);
	*seen = true;
	return MH_OK;
}

static enum mh_err parse_offset(struct parser *ps, const struct lex_word *kw)
{
	struct lex_word w;
	enum mh_err err = once(ps, kw, &ps->seen_offset);
	if (!err)
		err = lex_expect(&ps->lx, &w, "a bone number or auto", ps->d);
	if (err || !strcmp(w.text, "auto"))
		return err;
	ps->offset_at = w;
	ps->s->offset_set = true;
	return bone_word(ps, &w, "offset", &ps->s->offset);
}

/* Adds bone v at word w, refusing one listed already. */
static enum mh_err add_skip(struct parser *ps, const struct lex_word *w, uint32_t v)
{
	struct records_setting *s = ps->s;
	for (uint32_t i = 0; i < s->nskip; i++)
		if (s->skip[i] == v)
			return mh_fail_text(ps->d, MH_ERANGE, w->line, w->col,
					    "bone %u is listed twice", v);
	if (s->nskip == SKIP_MAX)
		return mh_fail_text(ps->d, MH_ERANGE, w->line, w->col,
				    "more than %u bones to skip", SKIP_MAX);
	if (s->nskip == ps->cap) {
		uint32_t cap = ps->cap ? 2 * ps->cap : 16;
		uint32_t *p = realloc(s->skip, cap * sizeof *p);
		if (!p)
			return mh_fail_text(ps->d, MH_ENOMEM, w->line, w->col, "out of memory");
		s->skip = p;
		ps->cap = cap;
	}
	s->skip[s->nskip++] = v;
	return MH_OK;
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static enum mh_err parse_skip(struct parser *ps, const struct lex_word *kw)
{
	struct lex_word w;
	enum mh_err err = once(ps, kw, &ps->seen_skip);
	if (!err)
		err = lex_expect(&ps->lx, &w, "bone numbers, none or auto", ps->d);
	if (err)
		return err;
	ps->skip_at = *kw;
	if (!strcmp(w.text, "auto"))
		return lex_end_of_line(&ps->lx, ps->d);
	ps->s->skip_set = true;
	if (!(ps->s->skip = malloc(sizeof *ps->s->skip)))
		return mh_fail_text(ps->d, MH_ENOMEM, w.line, w.col, "out of memory");
	ps->cap = 1;
	if (!strcmp(w.text, "none"))
		return lex_end_of_line(&ps->lx, ps->d);
	for (;;) {
		uint32_t v;
		if ((err = bone_word(ps, &w, "bone", &v)) || (err = add_skip(ps, &w, v)))
			return err;
		if (!lex_word(&ps->lx, &w, &err, ps->d))
			break;
	}
	if (!err)
		qsort(ps->s->skip, ps->s->nskip, sizeof *ps->s->skip, by_value);
	return err;
}

/* records_fit's verdict, placed where the text says what it refuses:
 * the offset's value when the offset stays set, else the skip line. */
static enum mh_err fit_at(struct parser *ps)
{
	struct mh_diag fit = {0};
	enum mh_err err = records_fit(ps->r, ps->s, &fit);
	if (!err)
		return MH_OK;
	const struct lex_word *w = ps->s->offset_set || !ps->seen_skip ? &ps->offset_at
								       : &ps->skip_at;
	return mh_fail_text(ps->d, err, w->line ? w->line : 1, w->col ? w->col : 1, "%s",
			    fit.msg);
}

enum mh_err records_parse(const struct records *r, const char *text, size_t len,
			  struct records_setting *s, struct mh_diag *d)
{
	struct parser ps = {.r = r, .s = s, .d = d};
	*s = (struct records_setting){0};
	enum mh_err err = clip_reject_nul(text, len, d);
	lex_init(&ps.lx, text, len);
	while (!err && lex_next_line(&ps.lx, &err, d)) {
		struct lex_word kw;
		if (!lex_word(&ps.lx, &kw, &err, d))
			break;
		if (!strcmp(kw.text, "offset"))
			err = parse_offset(&ps, &kw);
		else if (!strcmp(kw.text, "skip"))
			err = parse_skip(&ps, &kw);
		else
			err = mh_fail_text(d, MH_ESYNTAX, kw.line, kw.col,
					   "expected offset or skip, got \"%s\"", kw.text);
		if (!err && !strcmp(kw.text, "offset"))
			err = lex_end_of_line(&ps.lx, d);
	}
	if (!err)
		err = fit_at(&ps);
	if (err)
		records_setting_free(s);
	return err;
}
