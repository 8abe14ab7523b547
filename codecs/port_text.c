/* SPDX-License-Identifier: MIT */
/* A port's texts (port.h; grammars in mhfu-clip(5) "PORT FILES"): port.txt
 * parsed and printed, map.tsv, layout.tsv and check.txt printed.
 *
 *   # comment lines, blank lines, "# ..." after a value
 *   mode host|own          at most once (host: the default)
 *   skin source|transfer   at most once (mode own; source: the default)
 *   lift N                 at most once; a decimal number, may be negative
 *   pin CLIP ENTRY         a clip or an entry at most once
 *   map JOINT BONE|-       a joint at most once
 */
#include "port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "lex.h"
#include "strbuf.h"

/* ---- parsing ---------------------------------------------------------------- */

struct parser {
	struct lex lx;
	struct port_settings *s;
	struct mh_diag *d;
	bool seen_mode;
	unsigned mode_line;
	uint32_t pin_cap, map_cap;
};

/* w as a lift: sign, digits, and a point with digits after it; no
 * exponent, so the printer's plain decimals are the whole grammar. */
static enum mh_err lift_word(const struct lex_word *w, double *v, struct mh_diag *d)
{
	const char *p = w->text + (w->text[0] == '-' || w->text[0] == '+');
	size_t n = strspn(p, "0123456789");
	bool ok = n > 0;
	if (ok && p[n] == '.') {
		size_t f = strspn(p + n + 1, "0123456789");
		ok = f > 0 && !p[n + 1 + f];
	} else
		ok = ok && !p[n];
	if (!ok)
		return mh_fail_text(d, MH_ESYNTAX, w->line, w->col,
				    "expected a decimal number of model units (\"-1.5\"), got \"%s\"",
				    w->text);
	double x = strtod(w->text, NULL);
	*v = x == 0 ? 0 : x; /* "-0" is 0 */
	return MH_OK;
}

static enum mh_err parse_mode(struct parser *ps, const struct lex_word *kw)
{
	struct lex_word w;
	if (ps->seen_mode)
		return mh_fail_text(ps->d, MH_ESYNTAX, kw->line, kw->col,
				    "mode given twice (first on line %u)", ps->mode_line);
	enum mh_err err = lex_expect(&ps->lx, &w, "a mode: host or own", ps->d);
	if (err)
		return err;
	if (strcmp(w.text, "host") && strcmp(w.text, "own"))
		return mh_fail_text(ps->d, MH_ESYNTAX, w.line, w.col,
				    "expected a mode: host (the host's rig) or own (the donor's), "
				    "got \"%s\"", w.text);
	ps->seen_mode = true;
	ps->mode_line = kw->line;
	ps->s->mode = strcmp(w.text, "own") ? PORT_MODE_HOST : PORT_MODE_OWN;
	return MH_OK;
}

static enum mh_err parse_skin(struct parser *ps, const struct lex_word *kw)
{
	struct lex_word w;
	struct port_settings *s = ps->s;
	if (s->skin_set)
		return mh_fail_text(ps->d, MH_ESYNTAX, kw->line, kw->col,
				    "skin given twice (first on line %u)", s->skin_line);
	enum mh_err err = lex_expect(&ps->lx, &w, "a skin: source or transfer", ps->d);
	if (err)
		return err;
	if (strcmp(w.text, "source") && strcmp(w.text, "transfer"))
		return mh_fail_text(ps->d, MH_ESYNTAX, w.line, w.col,
				    "expected a skin: source (the donor's weights) or transfer, "
				    "got \"%s\"", w.text);
	s->skin_set = true;
	s->skin = strcmp(w.text, "source") ? PORT_SKIN_TRANSFER : PORT_SKIN_SOURCE;
	s->skin_line = kw->line;
	s->skin_col = kw->col;
	return MH_OK;
}

static enum mh_err parse_lift(struct parser *ps, const struct lex_word *kw)
{
	struct lex_word w;
	struct port_settings *s = ps->s;
	if (s->lift_set)
		return mh_fail_text(ps->d, MH_ESYNTAX, kw->line, kw->col,
				    "lift given twice (first on line %u)", s->lift_line);
	enum mh_err err = lex_expect(&ps->lx, &w, "a lift in model units (\"-1.5\")", ps->d);
	if (err || (err = lift_word(&w, &s->lift, ps->d)))
		return err;
	s->lift_set = true;
	s->lift_line = w.line;
	s->lift_col = w.col;
	return MH_OK;
}

/* Room for one more of n items of `size` in *items (capacity *cap). */
static bool grow(void **items, uint32_t n, uint32_t *cap, size_t size)
{
	if (n < *cap)
		return true;
	uint32_t c = *cap ? 2 * *cap : 8;
	void *p = realloc(*items, c * size);
	if (!p)
		return false;
	*items = p;
	*cap = c;
	return true;
}

static enum mh_err parse_pin(struct parser *ps)
{
	struct lex_word cw, ew;
	int64_t clip, entry;
	struct port_settings *s = ps->s;
	enum mh_err err = lex_expect(&ps->lx, &cw, "a donor clip id (stream x 100 + slot)", ps->d);
	if (err || (err = lex_int(&cw, 0, UINT32_MAX, &clip, ps->d)) ||
	    (err = lex_expect(&ps->lx, &ew, "an entry after the clip", ps->d)) ||
	    (err = lex_int(&ew, 0, UINT32_MAX, &entry, ps->d)))
		return err;
	for (uint32_t i = 0; i < s->npins; i++) {
		if (s->pins[i].clip == clip)
			return mh_fail_text(ps->d, MH_ESYNTAX, cw.line, cw.col,
					    "clip %lld is pinned twice (first on line %u)",
					    (long long)clip, s->pins[i].line);
		if (s->pins[i].entry == entry)
			return mh_fail_text(ps->d, MH_ESYNTAX, ew.line, ew.col,
					    "entry %lld is pinned twice (first on line %u)",
					    (long long)entry, s->pins[i].line);
	}
	if (!grow((void **)&s->pins, s->npins, &ps->pin_cap, sizeof *s->pins))
		return mh_fail_text(ps->d, MH_ENOMEM, cw.line, cw.col, "out of memory");
	s->pins[s->npins++] = (struct port_pin){(uint32_t)clip, (uint32_t)entry, cw.line, cw.col};
	return MH_OK;
}

static enum mh_err parse_map(struct parser *ps)
{
	struct lex_word jw, bw;
	int64_t joint, bone = PORT_NONE;
	struct port_settings *s = ps->s;
	enum mh_err err = lex_expect(&ps->lx, &jw, "a host joint", ps->d);
	if (err || (err = lex_int(&jw, 0, UINT32_MAX, &joint, ps->d)) ||
	    (err = lex_expect(&ps->lx, &bw, "a donor bone, or - for none", ps->d)))
		return err;
	if (strcmp(bw.text, "-") && (err = lex_int(&bw, 0, INT32_MAX, &bone, ps->d)))
		return err;
	for (uint32_t i = 0; i < s->nmaps; i++)
		if (s->maps[i].joint == joint)
			return mh_fail_text(ps->d, MH_ESYNTAX, jw.line, jw.col,
					    "joint %lld is mapped twice (first on line %u)",
					    (long long)joint, s->maps[i].line);
	if (!grow((void **)&s->maps, s->nmaps, &ps->map_cap, sizeof *s->maps))
		return mh_fail_text(ps->d, MH_ENOMEM, jw.line, jw.col, "out of memory");
	s->maps[s->nmaps++] = (struct port_map_line){(uint32_t)joint, (int32_t)bone, jw.line,
						     jw.col};
	return MH_OK;
}

enum mh_err port_settings_parse(const char *text, size_t len, struct port_settings *s,
				struct mh_diag *d)
{
	struct parser ps = {.s = s, .d = d};
	*s = (struct port_settings){.mode = PORT_MODE_HOST};
	enum mh_err err = clip_reject_nul(text, len, d);
	lex_init(&ps.lx, text, len);
	while (!err && lex_next_line(&ps.lx, &err, d)) {
		struct lex_word kw;
		if (!lex_word(&ps.lx, &kw, &err, d))
			break;
		if (!strcmp(kw.text, "mode"))
			err = parse_mode(&ps, &kw);
		else if (!strcmp(kw.text, "skin"))
			err = parse_skin(&ps, &kw);
		else if (!strcmp(kw.text, "lift"))
			err = parse_lift(&ps, &kw);
		else if (!strcmp(kw.text, "pin"))
			err = parse_pin(&ps);
		else if (!strcmp(kw.text, "map"))
			err = parse_map(&ps);
		else
			err = mh_fail_text(d, MH_ESYNTAX, kw.line, kw.col,
					   "expected mode, skin, lift, pin or map, got \"%s\"", kw.text);
		if (!err)
			err = lex_end_of_line(&ps.lx, d);
	}
	if (err)
		port_settings_free(s);
	return err;
}

void port_settings_free(struct port_settings *s)
{
	if (!s)
		return;
	free(s->pins);
	free(s->maps);
	*s = (struct port_settings){.mode = PORT_MODE_HOST};
}

bool port_settings_equal(const struct port_settings *a, const struct port_settings *b)
{
	if (a->mode != b->mode || a->skin_set != b->skin_set ||
	    (a->skin_set && a->skin != b->skin) || a->lift_set != b->lift_set ||
	    (a->lift_set && a->lift != b->lift) || a->npins != b->npins || a->nmaps != b->nmaps)
		return false;
	for (uint32_t i = 0; i < a->npins; i++)
		if (a->pins[i].clip != b->pins[i].clip || a->pins[i].entry != b->pins[i].entry)
			return false;
	for (uint32_t i = 0; i < a->nmaps; i++)
		if (a->maps[i].joint != b->maps[i].joint || a->maps[i].bone != b->maps[i].bone)
			return false;
	return true;
}

/* ---- port.txt ----------------------------------------------------------------- */

/* The shortest plain decimal ("%.Nf") that reads back to v: what
 * lift_word reads. */
static void lift_text(char *buf, size_t len, double v)
{
	for (int decimals = 0; decimals <= 64; decimals++) {
		snprintf(buf, len, "%.*f", decimals, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* A label on a comment line: control characters (a newline would end
 * the comment) shown as '?'. */
static void label(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_char(sb, (unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s);
}

static bool joint_set(const struct port_settings *s, uint32_t joint)
{
	for (uint32_t i = 0; i < s->nmaps; i++)
		if (s->maps[i].joint == joint)
			return true;
	return false;
}

static bool pin_taken(const struct port_settings *s, uint32_t clip, uint32_t entry)
{
	for (uint32_t i = 0; i < s->npins; i++)
		if (s->pins[i].clip == clip || s->pins[i].entry == entry)
			return true;
	return false;
}

static void print_bone(struct strbuf *sb, int32_t bone)
{
	if (bone < 0)
		strbuf_char(sb, '-');
	else
		strbuf_int(sb, bone, 0);
}

char *port_settings_print(const struct port_settings *s, const struct port_result *r,
			  const char *host_label, const char *donor_label, size_t *len)
{
	struct strbuf sb = {0};
	char num[80];
	strbuf_str(&sb, "# port.txt: host ", 0);
	label(&sb, host_label ? host_label : "?");
	strbuf_str(&sb, ", donor ", 0);
	label(&sb, donor_label ? donor_label : "none yet");
	strbuf_str(&sb, "\n# The port's settings (mhfu-clip(5) \"PORT FILES\"); the lines after "
		   "the settings\n# are the computed defaults: uncomment one to set it.\n", 0);
	if (s->mode == PORT_MODE_OWN)
		strbuf_str(&sb, "mode own\n", 0);
	if (s->skin_set)
		strbuf_printf(&sb, "skin %s\n", port_skin_name(s->skin));
	if (s->lift_set) {
		lift_text(num, sizeof num, s->lift);
		strbuf_printf(&sb, "lift %s\n", num);
	}
	for (uint32_t i = 0; i < s->npins; i++)
		strbuf_printf(&sb, "pin %u %u\n", s->pins[i].clip, s->pins[i].entry);
	for (uint32_t i = 0; i < s->nmaps; i++) {
		strbuf_printf(&sb, "map %u ", s->maps[i].joint);
		print_bone(&sb, s->maps[i].bone);
		strbuf_char(&sb, '\n');
	}
	strbuf_str(&sb, "#\n# computed defaults (those not set above)\n", 0);
	/* mode own is set, never a default; skin means something there only */
	if (s->mode == PORT_MODE_HOST)
		strbuf_str(&sb, "# mode host\n", 0);
	else if (!s->skin_set)
		strbuf_printf(&sb, "# skin %s\n", port_skin_name(PORT_SKIN_SOURCE));
	if (!s->lift_set)
		strbuf_str(&sb, "# lift 0\n", 0);
	if (!r)
		strbuf_str(&sb, "# (map and pin: none until a donor is given)\n", 0);
	for (uint32_t j = 0; r && j < r->njoints; j++) {
		if (joint_set(s, j))
			continue;
		strbuf_printf(&sb, "# map %u ", j);
		print_bone(&sb, r->joints[j].bone);
		strbuf_char(&sb, '\n');
	}
	for (uint32_t i = 0; r && i < r->nplaces; i++) {
		const struct port_place *pl = &r->places[i];
		if (pl->entry < 0 || pl->clip < 0 ||
		    pin_taken(s, (uint32_t)pl->clip, (uint32_t)pl->entry))
			continue;
		strbuf_printf(&sb, "# pin %d %d\n", (int)pl->clip, (int)pl->entry);
	}
	return strbuf_take(&sb, len);
}

/* ---- map.tsv, layout.tsv, check.txt ------------------------------------------ */

static void cell_int(struct strbuf *sb, long long v, bool none, char end)
{
	if (none)
		strbuf_char(sb, '-');
	else
		strbuf_int(sb, v, 0);
	strbuf_char(sb, end);
}

char *port_map_tsv(const struct port_result *r, size_t *len)
{
	struct strbuf sb = {0};
	strbuf_str(&sb, "# joint\tdonor_bone\trecord\tdistance\tdepth_gap\twhy\n", 0);
	for (uint32_t j = 0; j < r->njoints; j++) {
		const struct port_joint *pj = &r->joints[j];
		bool matched = pj->bone >= 0;
		cell_int(&sb, j, false, '\t');
		cell_int(&sb, pj->bone, !matched, '\t');
		cell_int(&sb, pj->record, pj->record < 0, '\t');
		if (matched)
			strbuf_printf(&sb, "%.1f\t", pj->distance);
		else
			strbuf_str(&sb, "-\t", 0);
		cell_int(&sb, pj->depth_gap, !matched, '\t');
		strbuf_str(&sb, port_why_name(pj->why), 0);
		strbuf_char(&sb, '\n');
	}
	return strbuf_take(&sb, len);
}

char *port_layout_tsv(const struct port_result *r, size_t *len)
{
	struct strbuf sb = {0};
	strbuf_str(&sb, "# entry\tclip\tframes\tloop\thow\n", 0);
	for (uint32_t i = 0; i < r->nplaces; i++) {
		const struct port_place *pl = &r->places[i];
		cell_int(&sb, pl->entry, pl->entry < 0, '\t');
		cell_int(&sb, pl->clip, pl->clip < 0, '\t');
		cell_int(&sb, pl->frames, pl->frames < 0, '\t');
		if (pl->loop)
			strbuf_f32(&sb, pl->loop_start); /* the frame it loops from */
		else
			strbuf_char(&sb, '-');
		strbuf_char(&sb, '\t');
		strbuf_str(&sb, port_how_name(pl->how), 0);
		strbuf_char(&sb, '\n');
	}
	return strbuf_take(&sb, len);
}

char *port_check_text(const struct port_result *r, size_t *len)
{
	struct strbuf sb = {0};
	for (int c = 0; c < PORT_CHECKS; c++) {
		const struct port_check *ck = &r->checks[c];
		if (ck->skipped)
			continue;
		strbuf_printf(&sb, "%s %s", port_check_name((enum port_check_code)c),
			      ck->passed ? "ok" : rule_level_name(ck->level));
		if (ck->figure[0])
			strbuf_printf(&sb, ": %.*s", (int)sizeof ck->figure, ck->figure);
		strbuf_char(&sb, '\n');
	}
	for (size_t i = 0; i < r->rules.n; i++) {
		const struct rule_violation *v = &r->rules.v[i];
		const struct rule_info *info = rule_info(v->code);
		strbuf_printf(&sb, "%s %s: %s%s%.*s\n", info ? info->name : "?",
			      rule_level_name(v->level), v->member, v->member[0] ? ": " : "",
			      (int)sizeof v->msg, v->msg);
	}
	if (r->rules.failed)
		strbuf_str(&sb, "rules: out of memory: violations may be missing\n", 0);
	if (r->mode == PORT_MODE_OWN)
		strbuf_printf(&sb, "travel: carried onto the root in %u placed clips, %u left as "
			      "they were (joint 0 turns, or no root at the origin)\n", r->carried,
			      r->uncarried);
	if (r->pac)
		strbuf_printf(&sb, "out.pac: made (%zu bytes)\n", r->pac_len);
	else
		strbuf_str(&sb, "out.pac: absent: the checks above failed\n", 0);
	return strbuf_take(&sb, len);
}

char *port_check_unmade(const char *host_label, const char *donor_label, const char *why,
			size_t *len)
{
	struct strbuf sb = {0};
	if (why) {
		strbuf_printf(&sb, "# check.txt: the port of %s onto %s\nport error: %s\n"
			      "out.pac: absent: the port could not be made\n",
			      donor_label ? donor_label : "donor.pac", host_label, why);
	} else {
		strbuf_printf(&sb, "# check.txt: the port onto %s\n"
			      "donor absent: copy an MHP3rd model's donor.pac into this folder\n"
			      "out.pac: absent: no donor\n", host_label);
	}
	return strbuf_take(&sb, len);
}

const char *port_check_name(enum port_check_code c)
{
	switch (c) {
	case PORT_CHECK_RULES: return "rules";
	case PORT_CHECK_SPAN:  return "span";
	case PORT_CHECK_SCALE: return "scale";
	case PORT_CHECK_PLACED: return "placed";
	case PORT_CHECK_HIP:   return "hip";
	case PORT_CHECK_FORK:  return "fork";
	case PORT_CHECK_SIZE:  return "size";
	case PORT_CHECK_STILL: return "still";
	case PORT_CHECK_TEAR:  return "tear";
	case PORT_CHECK_BONES: return "bones";
	case PORT_CHECK_SKIN:  return "skin";
	case PORT_CHECK_TIP:   return "tip";
	case PORT_CHECK_TEMPLATE: return "template";
	case PORT_CHECKS:      break;
	}
	return "?";
}

const char *port_why_name(enum port_why w)
{
	switch (w) {
	case PORT_WHY_NEAREST: return "nearest";
	case PORT_WHY_ORIGIN: return "origin";
	case PORT_WHY_SET: return "set";
	case PORT_WHY_UNSET: return "unset";
	case PORT_WHY_TOO_FAR: return "too-far";
	case PORT_WHY_SURPLUS: return "surplus";
	case PORT_WHY_NO_RECORD: return "no-record";
	case PORT_WHY_NOT_ANIMATED: return "not-animated";
	case PORT_WHY_PAD: return "pad";
	case PORT_WHY_OWN: return "own";
	}
	return "?";
}

const char *port_skin_name(enum port_skin s)
{
	return s == PORT_SKIN_TRANSFER ? "transfer" : "source";
}

const char *port_how_name(enum port_how h)
{
	switch (h) {
	case PORT_HOW_OWN: return "own";
	case PORT_HOW_PINNED: return "pinned";
	case PORT_HOW_MOVED: return "moved";
	case PORT_HOW_FREE_HOST: return "free-host";
	case PORT_HOW_FREE: return "free";
	case PORT_HOW_PARTIAL: return "partial";
	case PORT_HOW_HOST: return "host";
	case PORT_HOW_EMPTY: return "empty";
	case PORT_HOW_UNPLACED: return "unplaced";
	}
	return "?";
}
