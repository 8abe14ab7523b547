/* SPDX-License-Identifier: MIT */
/* The donor bundle (donor.h; layout in mhfu-archive(5) "DONOR BUNDLE").
 *
 * A bundle has one byte form: decode accepts only what encode writes
 * (members at alignment 16, no tail, the settings in their one spelling),
 * so decode -> encode gives the input back.  Both sides check the members
 * the same way (check_members), so encode never writes what decode
 * refuses. */
#include "donor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "pac.h"
#include "pmo.h"
#include "strbuf.h"
#include "tmh.h"

#define DONOR_ALIGN 16u
#define MAGIC_LEN (sizeof DONOR_MAGIC - 1)
#define TABLE_END (4u + 8u * DONOR_MEMBERS)
/* The header lines after the magic: model, monster, name. */
#define HEAD_LINES 4u
#define MONSTER_MAX 0xffffu /* monsters.h's em is a u16 */

static const char *const MEMBER_NAMES[DONOR_MEMBERS] = {
	"skeleton", "PMO", "texture bank", "moveset", "geometry", "settings",
};

/* ---- the parts both sides check ------------------------------------------ */

/* A name the settings line carries: 1..DONOR_NAME_MAX-1 printable
 * characters, no blank, not "-" (which says none). */
static bool name_ok(const char *s, size_t n)
{
	if (!n || n >= DONOR_NAME_MAX || (n == 1 && s[0] == '-'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return true;
}

/* Where a member's error is: at[k] is added to its decoder's offset
 * (decode: the member's offset in the bundle; encode: 0). */
static enum mh_err member_fail(struct mh_diag *d, uint32_t k, const uint64_t *at,
			       const struct mh_diag *inner, enum mh_err err)
{
	/* The bundle is one; a member that is not what it should be is its
	 * corruption (MH_EUNKNOWN is for no bundle at all). */
	if (err == MH_EUNKNOWN)
		err = MH_ECORRUPT;
	return mh_fail(d, err, at[k] + inner->offset, "member %u (%s): %s", k, MEMBER_NAMES[k],
		       inner->msg);
}

/* Members 0-4: the skeleton and moveset decoded (MHP3rd's), the PMO and
 * the texture bank by their magic (a port keeps the host's; whoever uses
 * the donor's decodes them), the geometry present exactly when the PMO
 * keeps its region outside itself.  On success the caller owns *skel
 * and *moveset. */
static enum mh_err check_members(const uint8_t *const *member, const size_t *len,
				 const uint64_t *at, struct skeleton *skel, struct anim *moveset,
				 struct mh_diag *d)
{
	struct mh_diag inner = {0};
	const uint8_t *pmo = member[DONOR_PMO], *tmh = member[DONOR_TMH];
	size_t pmo_len = len[DONOR_PMO];
	if (pmo_len < 8 || memcmp(pmo, PMO_MAGIC, 4) || memcmp(pmo + 4, "102\0", 4))
		return mh_fail(d, MH_ECORRUPT, at[DONOR_PMO],
			       "member %u (PMO): no MHP3rd PMO (\"pmo\" version 102) starts here",
			       DONOR_PMO);
	if (len[DONOR_TMH] < TMH_MAGIC_LEN || memcmp(tmh, TMH_MAGIC, TMH_MAGIC_LEN))
		return mh_fail(d, MH_ECORRUPT, at[DONOR_TMH],
			       "member %u (texture bank): no %s magic", DONOR_TMH, TMH_MAGIC);
	bool needs = pmo_needs_companion(pmo, pmo_len);
	if (needs != (len[DONOR_GEOMETRY] > 0))
		return mh_fail(d, MH_ECORRUPT, at[DONOR_GEOMETRY],
			       needs ? "member %u (geometry) is empty, but the PMO keeps its "
				       "geometry outside itself"
				     : "member %u (geometry) holds bytes, but the PMO keeps its "
				       "geometry itself", DONOR_GEOMETRY);
	enum mh_err err = skeleton_decode(member[DONOR_SKELETON], len[DONOR_SKELETON], skel,
					  &inner);
	if (err)
		return member_fail(d, DONOR_SKELETON, at, &inner, err);
	if (skel->game != SKELETON_MHP3RD) {
		const char *game = skeleton_game_name(skel->game);
		skeleton_free(skel);
		return mh_fail(d, MH_ECORRUPT, at[DONOR_SKELETON],
			       "member %u (skeleton) is %s's; a donor's is MHP3rd's",
			       DONOR_SKELETON, game);
	}
	err = anim_decode(member[DONOR_MOVESET], len[DONOR_MOVESET], CLIP_P3RD, moveset, &inner);
	if (!err && moveset->format != CLIP_P3RD) {
		inner.offset = 0;
		snprintf(inner.msg, sizeof inner.msg, "its clips are %s's; a donor's are MHP3rd's",
			 clip_format_name(moveset->format));
		anim_free(moveset);
		err = MH_ECORRUPT;
	}
	if (err) {
		skeleton_free(skel);
		return member_fail(d, DONOR_MOVESET, at, &inner, err);
	}
	return MH_OK;
}

/* The settings member as encode writes it; the override is r's in force. */
static char *settings_text(uint32_t model, int monster, const char *name,
			   const struct records *r, size_t *len)
{
	struct strbuf sb = {0};
	size_t n;
	char *set = records_setting_print(&r->set, &n);
	if (!set)
		return NULL;
	strbuf_printf(&sb, "%smodel %u\n", DONOR_MAGIC, model);
	if (monster == RECORDS_NO_MONSTER)
		strbuf_printf(&sb, "monster -\n");
	else
		strbuf_printf(&sb, "monster %d\n", monster);
	strbuf_printf(&sb, "name %s\n", name && name[0] ? name : "-");
	strbuf_append(&sb, set, n);
	free(set);
	return strbuf_take(&sb, len);
}

/* ---- encoding ----------------------------------------------------------------- */

enum mh_err donor_encode(const struct donor_parts *p, uint8_t **out, size_t *len,
			 struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	static const uint64_t at_zero[DONOR_MEMBERS];
	for (uint32_t k = 0; k < DONOR_MEMBERS - 1; k++) {
		if ((k != DONOR_GEOMETRY && !p->len[k]) || (p->len[k] && !p->member[k]))
			return mh_fail(d, MH_ERANGE, 0, "member %u (%s) is missing", k,
				       MEMBER_NAMES[k]);
		if (p->len[k] > UINT32_MAX)
			return mh_fail(d, MH_ERANGE, 0, "member %u (%s) of %zu bytes is too large "
				       "for a PAC", k, MEMBER_NAMES[k], p->len[k]);
	}
	if (p->monster != RECORDS_NO_MONSTER && (p->monster < 0 || p->monster > (int)MONSTER_MAX))
		return mh_fail(d, MH_ERANGE, 0, "monster %d is outside 0..%u", p->monster,
			       MONSTER_MAX);
	if (p->name && p->name[0] && !name_ok(p->name, strlen(p->name)))
		return mh_fail(d, MH_ERANGE, 0, "name \"%.60s\" is not 1..%u printable characters "
			       "without blanks (nor \"-\")", p->name, DONOR_NAME_MAX - 1);

	struct skeleton skel;
	struct anim moveset;
	struct records map;
	enum mh_err err = check_members(p->member, p->len, at_zero, &skel, &moveset, d);
	if (err)
		return err;
	err = records_init(&map, &skel, &moveset, p->monster, d);
	skeleton_free(&skel);
	anim_free(&moveset);
	if (err)
		return err;
	/* In force, the override is only what differs from the computed map:
	 * what decode reads back. */
	if (p->set && (err = records_override(&map, p->set, d))) {
		records_free(&map);
		return err;
	}
	size_t text_len;
	char *text = settings_text(p->model, p->monster, p->name, &map, &text_len);
	records_free(&map);
	if (!text)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for the settings");
	struct pac_blob blobs[DONOR_MEMBERS];
	for (uint32_t k = 0; k < DONOR_MEMBERS - 1; k++)
		blobs[k] = (struct pac_blob){p->len[k] ? p->member[k] : NULL, (uint32_t)p->len[k]};
	blobs[DONOR_SETTINGS] = (struct pac_blob){(const uint8_t *)text, (uint32_t)text_len};
	err = pac_encode(blobs, DONOR_MEMBERS, DONOR_ALIGN, NULL, 0, out, len, d);
	free(text);
	return err;
}

/* ---- telling a bundle --------------------------------------------------------- */

/* Whether the head holds a table of DONOR_MEMBERS entries whose settings
 * entry, within len, starts with DONOR_MAGIC. */
static bool settings_magic(const uint8_t *buf, size_t len)
{
	if (len < TABLE_END || le32(buf) != DONOR_MEMBERS)
		return false;
	uint64_t off = le32(buf + 4 + 8 * DONOR_SETTINGS);
	uint64_t size = le32(buf + 8 + 8 * DONOR_SETTINGS);
	return off && size >= MAGIC_LEN && off + MAGIC_LEN <= len &&
	       !memcmp(buf + off, DONOR_MAGIC, MAGIC_LEN);
}

bool donor_sniff(const uint8_t *buf, size_t len)
{
	return settings_magic(buf, len) && pac_sniff(buf, len, len) == 100;
}

/* ---- the settings member ---------------------------------------------------- */

/* A cursor over the settings' lines, for the errors' line:col. */
struct cursor {
	const char *p, *end;
	unsigned line;
	const char *bol;
	struct mh_diag *d;
	uint64_t offset; /* the settings member's, put in every error */
};

static enum mh_err syntax_at(struct cursor *c, const char *at, const char *fmt, const char *what)
{
	mh_fail_text(c->d, MH_ESYNTAX, c->line, (unsigned)(at - c->bol) + 1, fmt, what);
	if (c->d)
		c->d->offset = c->offset;
	return MH_ESYNTAX;
}

/* The word after "KEY " on the current line: [*w, *w + *n), the line's
 * only word after the key.  `what` says the line's form.  The cursor
 * stays on the line (next_line leaves it) so the value's errors can
 * point into it. */
static enum mh_err keyed_line(struct cursor *c, const char *key, const char *what,
			      const char **w, size_t *n)
{
	size_t klen = strlen(key);
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	const char *eol = nl ? nl : c->end;
	if ((size_t)(eol - c->p) <= klen || memcmp(c->p, key, klen) || c->p[klen] != ' ')
		return syntax_at(c, c->p, "expected \"%s\"", what);
	*w = c->p + klen + 1;
	*n = (size_t)(eol - *w);
	if (!*n || **w == ' ')
		return syntax_at(c, *w, "expected \"%s\": one space, then the value", what);
	const char *blank = memchr(*w, ' ', *n);
	if (blank)
		return syntax_at(c, blank, "expected the end of the line after \"%s\"", what);
	if (!nl)
		return syntax_at(c, eol, "expected a newline ending \"%s\"", what);
	return MH_OK;
}

/* Moves to the next line (the current one has a newline: keyed_line). */
static void next_line(struct cursor *c)
{
	c->p = (const char *)memchr(c->p, '\n', (size_t)(c->end - c->p)) + 1;
	c->bol = c->p;
	c->line++;
}

/* w[0..n) as a decimal number in its one spelling (no sign, no leading
 * zero) of at most max; false otherwise. */
static bool plain_decimal(const char *w, size_t n, uint64_t max, uint64_t *v)
{
	if (!n || n > 10 || (n > 1 && w[0] == '0'))
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (w[i] < '0' || w[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(w[i] - '0');
	}
	if (x > max)
		return false;
	*v = x;
	return true;
}

/* Lines 2-4: model, monster, name (the magic, line 1, is checked). */
static enum mh_err parse_head(struct cursor *c, struct donor *dn)
{
	const char *w;
	size_t n;
	uint64_t v;
	enum mh_err err = keyed_line(c, "model", "model N", &w, &n);
	if (err)
		return err;
	if (!plain_decimal(w, n, UINT32_MAX, &v))
		return syntax_at(c, w, "expected %s", "the model PAC's engine id, a decimal "
				 "number 0..4294967295 without leading zeros");
	dn->model = (uint32_t)v;
	next_line(c);
	if ((err = keyed_line(c, "monster", "monster EM|-", &w, &n)))
		return err;
	if (n == 1 && w[0] == '-')
		dn->monster = RECORDS_NO_MONSTER;
	else if (plain_decimal(w, n, MONSTER_MAX, &v))
		dn->monster = (int)v;
	else
		return syntax_at(c, w, "expected %s", "the monster's id, a decimal number "
				 "0..65535 without leading zeros, or - when not known");
	next_line(c);
	if ((err = keyed_line(c, "name", "name NAME|-", &w, &n)))
		return err;
	if (n == 1 && w[0] == '-')
		dn->name[0] = '\0';
	else if (name_ok(w, n)) {
		memcpy(dn->name, w, n);
		dn->name[n] = '\0';
	} else
		return syntax_at(c, w, "expected %s", "the monster's name, 1..47 printable "
				 "characters, or - for none");
	next_line(c);
	return MH_OK;
}

/* The rest, from line HEAD_LINES + 1: the override, read by records_parse
 * against dn->map and put in force; it must be spelled as encode spells
 * it (records_setting_print of what is in force), else the first place
 * it differs is the error. */
static enum mh_err parse_override(struct cursor *c, struct donor *dn)
{
	struct records_setting set;
	struct mh_diag inner = {0};
	size_t rest = (size_t)(c->end - c->p);
	enum mh_err err = records_parse(&dn->map, c->p, rest, &set, &inner);
	if (!err) {
		err = records_override(&dn->map, &set, &inner);
		records_setting_free(&set);
	}
	if (err) {
		if (c->d) {
			*c->d = inner;
			c->d->line = inner.line ? inner.line + HEAD_LINES : HEAD_LINES + 1;
			c->d->col = inner.col ? inner.col : 1;
			c->d->offset = c->offset;
		}
		return err;
	}
	size_t n;
	char *want = records_setting_print(&dn->map.set, &n);
	if (!want)
		return mh_fail(c->d, MH_ENOMEM, c->offset, "out of memory for the settings");
	size_t i = 0;
	while (i < n && i < rest && want[i] == c->p[i])
		i++;
	if (i == n && i == rest) {
		free(want);
		return MH_OK;
	}
	/* The line of the first difference, as the text and as it should be. */
	const char *got = c->p;
	for (size_t k = 0; k < i; k++)
		if (got[k] == '\n') {
			c->line++;
			c->bol = got + k + 1;
		}
	size_t line_at = (size_t)(c->bol - c->p);
	if (i == rest && want[i] == '\n') {
		free(want);
		return syntax_at(c, got + i, "expected %s", "a newline ending the line");
	}
	if (line_at < n) {
		const char *nl = memchr(want + line_at, '\n', n - line_at);
		size_t wl = nl ? (size_t)(nl - (want + line_at)) : n - line_at;
		char line[96];
		snprintf(line, sizeof line, "%.*s", (int)(wl < 80 ? wl : 80), want + line_at);
		free(want);
		return syntax_at(c, got + i, "expected \"%s\" (a bundle writes its override one way: "
				 "only what differs from the computed map)", line);
	}
	free(want);
	return syntax_at(c, got + i, "expected the end of the settings%s",
			 " (a bundle writes its override one way: only what differs from the "
			 "computed map)");
}

/* ---- decoding ----------------------------------------------------------------- */

/* The PAC is the one encode lays out: DONOR_MEMBERS entries, those but
 * the geometry non-empty, at alignment DONOR_ALIGN, no tail. */
static enum mh_err check_layout(const uint8_t *buf, const struct pac *pac, struct mh_diag *d)
{
	for (uint32_t k = 0; k < DONOR_MEMBERS; k++)
		if (k != DONOR_GEOMETRY && !pac->entries[k].size)
			return mh_fail(d, MH_ECORRUPT, 4 + 8 * k, "member %u (%s) is empty", k,
				       MEMBER_NAMES[k]);
	if (pac->align != DONOR_ALIGN) {
		uint64_t end = TABLE_END;
		for (uint32_t k = 0; k < DONOR_MEMBERS; k++) {
			const struct pac_entry *e = &pac->entries[k];
			if (!e->size)
				continue;
			if (e->offset != align_up(end, DONOR_ALIGN))
				return mh_fail(d, MH_ECORRUPT, 4 + 8 * k,
					       "member %u (%s) starts at %u; a bundle puts it at %llu "
					       "(alignment %u)", k, MEMBER_NAMES[k], le32(buf + 4 + 8 * k),
					       (unsigned long long)align_up(end, DONOR_ALIGN),
					       DONOR_ALIGN);
			end = (uint64_t)e->offset + e->size;
		}
	}
	if (pac->tail != pac->size)
		return mh_fail(d, MH_ECORRUPT, pac->tail, "%llu bytes after the last member",
			       (unsigned long long)(pac->size - pac->tail));
	return MH_OK;
}

static enum mh_err decode_into(const uint8_t *buf, size_t len, struct donor *dn,
			       struct mh_diag *d)
{
	struct pac pac;
	enum mh_err err = pac_decode(buf, len, &pac, d);
	if (err)
		return err;
	err = check_layout(buf, &pac, d);
	if (err) {
		pac_free(&pac);
		return err;
	}
	if (!(dn->bytes = malloc(len))) {
		pac_free(&pac);
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for a bundle of %zu bytes", len);
	}
	memcpy(dn->bytes, buf, len);
	dn->len = len;
	uint64_t at[DONOR_MEMBERS];
	for (uint32_t k = 0; k < DONOR_MEMBERS; k++) {
		at[k] = pac.entries[k].offset;
		dn->member[k] = pac.entries[k].size ? dn->bytes + at[k] : NULL;
		dn->member_len[k] = pac.entries[k].size;
	}
	pac_free(&pac);

	const char *text = (const char *)dn->member[DONOR_SETTINGS];
	struct cursor c = {.p = text + MAGIC_LEN, .bol = text + MAGIC_LEN,
			   .end = text + dn->member_len[DONOR_SETTINGS], .line = 2, .d = d,
			   .offset = at[DONOR_SETTINGS]};
	if ((err = parse_head(&c, dn)))
		return err;
	struct skeleton skel;
	struct anim moveset;
	if ((err = check_members(dn->member, dn->member_len, at, &skel, &moveset, d)))
		return err;
	dn->skel = skel;
	dn->moveset = moveset;
	if ((err = records_init(&dn->map, &dn->skel, &dn->moveset, dn->monster, d)))
		return err;
	return parse_override(&c, dn);
}

enum mh_err donor_decode(const uint8_t *buf, size_t len, struct donor *dn,
			 struct mh_diag *d)
{
	memset(dn, 0, sizeof *dn);
	dn->monster = RECORDS_NO_MONSTER;
	/* A bundle is told by its settings' first line, which a cut bundle
	 * may still show (then its PAC's error is the bundle's). */
	if (!settings_magic(buf, len)) {
		struct pac pac;
		bool is_pac = pac_decode(buf, len, &pac, NULL) == MH_OK;
		if (is_pac)
			pac_free(&pac);
		return mh_fail(d, MH_EUNKNOWN, 0, is_pac ? "a PAC, but no donor bundle: its "
			       "member %u does not start with \"mhfufs-donor 1\""
			       : "no donor bundle: not a PAC of %u members whose last starts "
			       "with \"mhfufs-donor 1\"", is_pac ? DONOR_SETTINGS : DONOR_MEMBERS);
	}
	enum mh_err err = decode_into(buf, len, dn, d);
	if (err)
		donor_free(dn);
	return err;
}

void donor_free(struct donor *dn)
{
	if (!dn)
		return;
	free(dn->bytes);
	skeleton_free(&dn->skel);
	anim_free(&dn->moveset);
	records_free(&dn->map);
	memset(dn, 0, sizeof *dn);
	dn->monster = RECORDS_NO_MONSTER;
}
