/* SPDX-License-Identifier: MIT */
/* Tests of the codecs against the generated sample archive.
 *
 * $MHFU_SAMPLE names a directory made by tests/gen/mkarchive: DATA.BIN (as on
 * the UMD, encrypted), DATA.plain.BIN (the same layout decrypted) and
 * src/ (every entry's bytes as extracted, with src/index.tsv).  Without
 * it every test fails, loudly: a skipped oracle is a silent pass.
 *
 * The oracle is the whole archive: it must be rebuilt byte for byte from
 * the decoded TOC and its entries, every PAC in it must re-encode byte
 * for byte, and every skeleton, pack and clip must too, both from its
 * model and from its printed text; every PMO in a model PAC must decode
 * and re-encode byte for byte, with its companion entry when it has one. */
#include "anim.h"
#include "bytes.h"
#include "cipher.h"
#include "databin.h"
#include "kind.h"
#include "skeleton.h"
#include "pac.h"
#include "pmo.h"
#include "tmh.h"
#include "testlib.h"

/* ---- the sample, loaded once for the group ----------------------------- */

struct sample {
	char dir[4096];
	char why[4300];     /* why the sample is unusable; "" when loaded */
	struct file_bytes enc;    /* DATA.BIN */
	struct file_bytes plain;  /* DATA.plain.BIN */
	struct mem_archive enc_in, plain_in; /* the two, as databin reads them */
};

static struct sample S;

static int group_setup(void **state)
{
	(void)state;
	const char *dir = getenv("MHFU_SAMPLE");
	memset(&S, 0, sizeof S);
	if (!dir || !*dir) {
		snprintf(S.why, sizeof S.why,
			 "MHFU_SAMPLE is not set: point it at a directory made by "
			 "`build/mkarchive --seed 1 --out DIR/DATA.BIN --plain-out "
			 "DIR/DATA.plain.BIN --extract DIR/src` (`make units` does)");
		return 0; /* every test then fails with this message */
	}
	snprintf(S.dir, sizeof S.dir, "%s", dir);
	char path[4200];
	snprintf(path, sizeof path, "%s/DATA.BIN", dir);
	if (!read_whole_file(path, &S.enc, S.why, sizeof S.why))
		return 0;
	S.enc_in = mem_archive_of(S.enc.p, S.enc.len);
	snprintf(path, sizeof path, "%s/DATA.plain.BIN", dir);
	if (read_whole_file(path, &S.plain, S.why, sizeof S.why))
		S.plain_in = mem_archive_of(S.plain.p, S.plain.len);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(S.enc.p);
	free(S.plain.p);
	memset(&S, 0, sizeof S);
	return 0;
}

static void need_sample(void)
{
	if (S.why[0])
		fail_msg("no sample archive: %s", S.why);
}

/* ---- helpers ---------------------------------------------------------- */

static void open_ok(struct mem_archive *in, struct databin *db)
{
	struct mh_diag d = {0};
	enum mh_err err = databin_open(mem_archive_read, in, in->size, db, &d);
	if (err)
		fail_msg("databin_open: %s at byte %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

/* Opens DATA.BIN and sets its game as a mount would. */
static void open_encrypted(struct databin *db)
{
	open_ok(&S.enc_in, db);
	databin_guess_game(db, mem_archive_read, &S.enc_in);
}

static void check_toc_reencodes(struct mem_archive *in, bool encrypted)
{
	struct databin db;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	open_ok(in, &db);
	assert_int_equal(db.encrypted, encrypted);
	if (databin_encode(&db, &toc, &len, &d))
		fail_msg("databin_encode: %s", d.msg);
	assert_int_equal(len, (size_t)db.start[0] * DATABIN_BLOCK);
	assert_true(len <= in->len);
	assert_memory_equal(toc, in->buf, len);
	free(toc);
	databin_free(&db);
}

/* ---- the archive ------------------------------------------------------- */

static void test_sample_is_given_and_readable(void **state)
{
	(void)state;
	need_sample();
	if (!S.plain.p)
		fail_msg("%s/DATA.plain.BIN is missing", S.dir);
	assert_true(S.enc.len >= DATABIN_BLOCK);
	assert_int_equal(S.enc.len % DATABIN_BLOCK, 0);
	assert_int_equal(S.enc.len, S.plain.len);
}

static void test_open_detects_encrypted_data_bin(void **state)
{
	(void)state;
	need_sample();
	struct databin db;
	open_ok(&S.enc_in, &db);
	assert_true(db.encrypted);
	assert_int_equal(db.start[db.count], S.enc.len / DATABIN_BLOCK);
	databin_free(&db);
}

static void test_open_detects_plain_twin(void **state)
{
	(void)state;
	need_sample();
	assert_non_null(S.plain.p);
	struct databin db;
	open_ok(&S.plain_in, &db);
	assert_false(db.encrypted);
	databin_free(&db);
}

static void test_guess_game_on_encrypted_is_mhfu(void **state)
{
	(void)state;
	need_sample();
	struct databin db;
	open_ok(&S.enc_in, &db);
	assert_int_equal(databin_guess_game(&db, mem_archive_read, &S.enc_in), GAME_MHFU);
	assert_int_equal(db.game, GAME_MHFU);
	/* The sample's plain entries are modules and movies: their magics
	 * tell, before any statistics. */
	struct databin_game_clue clue;
	databin_tell_game(&db, mem_archive_read, &S.enc_in, &clue);
	assert_int_equal(clue.game, GAME_MHFU);
	assert_int_equal(clue.how, CLUE_MAGIC);
	databin_free(&db);
}

static void test_guess_game_on_plain_twin_is_mhfu(void **state)
{
	(void)state;
	need_sample();
	assert_non_null(S.plain.p);
	struct databin db;
	open_ok(&S.plain_in, &db);
	assert_int_equal(db.count, 6656); /* MHFU NA/EU */
	assert_int_equal(databin_guess_game(&db, mem_archive_read, &S.plain_in), GAME_MHFU);
	databin_free(&db);
}

static void test_encrypted_toc_reencodes_byte_exactly(void **state)
{
	(void)state;
	need_sample();
	check_toc_reencodes(&S.enc_in, true);
}

static void test_plain_toc_reencodes_byte_exactly(void **state)
{
	(void)state;
	need_sample();
	assert_non_null(S.plain.p);
	check_toc_reencodes(&S.plain_in, false);
}

static void test_plain_and_encrypted_tocs_decode_alike(void **state)
{
	(void)state;
	need_sample();
	assert_non_null(S.plain.p);
	struct databin e, p;
	open_ok(&S.enc_in, &e);
	open_ok(&S.plain_in, &p);
	assert_int_equal(e.count, p.count);
	assert_memory_equal(e.start, p.start, ((size_t)e.count + 1) * 4);
	assert_int_equal(e.nsizes, p.nsizes);
	assert_memory_equal(e.sizes, p.sizes, e.nsizes * sizeof *e.sizes);
	assert_int_equal(e.fill_len, p.fill_len);
	assert_memory_equal(e.fill, p.fill, e.fill_len);
	databin_free(&e);
	databin_free(&p);
}

static void test_archive_rebuilds_byte_identically_from_toc_and_entries(void **state)
{
	(void)state;
	need_sample();
	assert_non_null(S.plain.p);
	struct databin db;
	struct mh_diag d = {0};
	uint8_t *toc;
	size_t len;
	open_encrypted(&db);
	if (databin_encode(&db, &toc, &len, &d))
		fail_msg("databin_encode: %s", d.msg);
	uint8_t *out = malloc(S.enc.len);
	assert_non_null(out);
	memcpy(out, toc, len);
	free(toc);
	size_t at = len;
	unsigned plain_entries = 0;
	for (uint32_t id = 0; id < db.count; id++) {
		uint64_t off = databin_entry_offset(&db, id);
		size_t span = (size_t)databin_entry_blocks(&db, id) * DATABIN_BLOCK;
		assert_int_equal(off, at);
		uint8_t *e = malloc(span ? span : 1);
		assert_non_null(e);
		memcpy(e, S.enc.p + off, span);
		bool plain = databin_entry_plain(&db, id);
		plain_entries += plain;
		if (!plain)
			cipher_decrypt(db.start[id], 0, e, span);
		/* The decrypted twin holds the same entry bytes. */
		if (memcmp(e, S.plain.p + off, span))
			fail_msg("entry %u decrypts unlike DATA.plain.BIN", id);
		if (!plain)
			cipher_encrypt(db.start[id], 0, e, span);
		memcpy(out + at, e, span);
		at += span;
		free(e);
	}
	assert_int_equal(at, S.enc.len);
	assert_int_equal(plain_entries, 19); /* 42, 43, 46..62 */
	if (memcmp(out, S.enc.p, S.enc.len)) {
		size_t i = 0;
		while (out[i] == S.enc.p[i])
			i++;
		fail_msg("rebuilt archive differs from DATA.BIN at byte %zu", i);
	}
	free(out);
	databin_free(&db);
}

/* Reads src/index.tsv and checks each listed entry's extracted bytes,
 * geometry and kind against the archive. */
static void test_entries_match_extracted_sources(void **state)
{
	(void)state;
	need_sample();
	struct databin db;
	open_encrypted(&db);
	char path[4400];
	snprintf(path, sizeof path, "%s/src/index.tsv", S.dir);
	FILE *idx = fopen(path, "r");
	if (!idx)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	char line[512], name[256], kind[32] = "", plain[8] = "";
	unsigned id, start, blocks, checked = 0;
	unsigned long long size;
	uint8_t *buf = NULL;
	while (fgets(line, sizeof line, idx)) {
		if (line[0] == '#')
			continue;
		int n = sscanf(line, "%255[^\t]\t%u\t%u\t%u\t%llu\t%31[^\t]\t%7s",
			       name, &id, &start, &blocks, &size, kind, plain);
		if (n < 5)
			fail_msg("%s: cannot parse line: %s", path, line);
		assert_true(id < db.count);
		assert_int_equal(start, db.start[id]);
		assert_int_equal(blocks, databin_entry_blocks(&db, id));
		assert_int_equal(size, databin_entry_size(&db, id));
		size_t span = (size_t)blocks * DATABIN_BLOCK;
		buf = realloc(buf, span ? span : 1);
		assert_non_null(buf);
		memcpy(buf, S.enc.p + databin_entry_offset(&db, id), span);
		if (!databin_entry_plain(&db, id))
			cipher_decrypt(db.start[id], 0, buf, span);
		if (n >= 6) {
			size_t head = size < KIND_HEAD_MAX ? (size_t)size : KIND_HEAD_MAX;
			assert_string_equal(kind, kind_name(kind_sniff(buf, head, size)));
		}
		if (n >= 7)
			assert_int_equal(strcmp(plain, "yes") == 0,
					 databin_game_plain_id(GAME_MHFU, id));
		char fpath[4800];
		struct file_bytes f = {0};
		snprintf(fpath, sizeof fpath, "%s/src/%s", S.dir, name);
		char why[4900];
		if (!read_whole_file(fpath, &f, why, sizeof why))
			fail_msg("%s", why);
		assert_int_equal(f.len, size);
		if (memcmp(f.p, buf, f.len))
			fail_msg("src/%s differs from entry %u of DATA.BIN", name, id);
		free(f.p);
		checked++;
	}
	fclose(idx);
	free(buf);
	assert_int_equal(checked, db.count);
	databin_free(&db);
}

/* ---- PACs -------------------------------------------------------------- */

struct pac_stats {
	unsigned top, nested, by_align[17], max_depth;
};

/* Decodes buf as a PAC and rebuilds it with pac_encode from the decoded
 * model; the bytes must match.  Recurses into members that decode. */
static void pac_roundtrip(const uint8_t *buf, size_t len, unsigned depth,
			  uint32_t id, struct pac_stats *st)
{
	struct pac pac;
	struct mh_diag d = {0};
	assert_int_equal(pac_decode(buf, len, &pac, &d), MH_OK);
	st->by_align[pac.align]++;
	if (depth > st->max_depth)
		st->max_depth = depth;
	struct pac_blob *b = calloc(pac.count, sizeof *b);
	assert_non_null(b);
	for (uint32_t i = 0; i < pac.count; i++)
		b[i] = (struct pac_blob){buf + pac.entries[i].offset, pac.entries[i].size};
	uint8_t *out;
	size_t out_len;
	if (pac_encode(b, pac.count, pac.align, buf + pac.tail,
		       len - (size_t)pac.tail, &out, &out_len, &d))
		fail_msg("entry %u depth %u: pac_encode: %s", id, depth, d.msg);
	if (out_len != len || memcmp(out, buf, len))
		fail_msg("entry %u depth %u: PAC does not re-encode byte-exactly",
			 id, depth);
	free(out);
	for (uint32_t i = 0; i < pac.count; i++) {
		struct pac inner;
		if (b[i].size && pac_decode(b[i].data, b[i].size, &inner, NULL) == MH_OK) {
			pac_free(&inner);
			st->nested++;
			pac_roundtrip(b[i].data, b[i].size, depth + 1, id, st);
		}
	}
	free(b);
	pac_free(&pac);
}

static void test_every_pac_reencodes_byte_exactly(void **state)
{
	(void)state;
	need_sample();
	struct databin db;
	struct pac_stats st = {0};
	open_encrypted(&db);
	uint8_t *buf = NULL;
	for (uint32_t id = 0; id < db.count; id++) {
		size_t span = (size_t)databin_entry_blocks(&db, id) * DATABIN_BLOCK;
		size_t size = (size_t)databin_entry_size(&db, id);
		buf = realloc(buf, span ? span : 1);
		assert_non_null(buf);
		memcpy(buf, S.enc.p + databin_entry_offset(&db, id), span);
		if (!databin_entry_plain(&db, id))
			cipher_decrypt(db.start[id], 0, buf, span);
		struct pac pac;
		bool is_pac = pac_decode(buf, size, &pac, NULL) == MH_OK;
		pac_free(&pac);
		size_t head = size < KIND_HEAD_MAX ? size : KIND_HEAD_MAX;
		/* In the sample, what sniffs as a PAC decodes as one. */
		assert_int_equal(kind_sniff(buf, head, size) == KIND_PAC, is_pac);
		if (!is_pac)
			continue;
		st.top++;
		pac_roundtrip(buf, size, 0, id, &st);
	}
	free(buf);
	print_message("%u PAC entries, %u nested PACs (depth up to %u); "
		      "alignment 16: %u, 8: %u, 4: %u\n", st.top, st.nested,
		      st.max_depth, st.by_align[16], st.by_align[8], st.by_align[4]);
	assert_true(st.top > 0);
	assert_true(st.nested > 0);
	databin_free(&db);
}

struct model_stats {
	unsigned skeletons, packs, clips;
};

static void same_bytes(const uint8_t *got, size_t got_len, const uint8_t *want,
		       size_t want_len, uint32_t id, const char *what)
{
	if (got_len != want_len || memcmp(got, want, want_len))
		fail_msg("entry %u: %s does not reproduce its bytes", id, what);
}

static void skeleton_both_ways(const uint8_t *buf, size_t len, uint32_t id)
{
	struct skeleton s, again;
	struct mh_diag d = {0};
	uint8_t *out;
	size_t out_len, text_len;
	if (skeleton_decode(buf, len, &s, &d) || skeleton_encode(&s, &out, &out_len, &d))
		fail_msg("entry %u: skeleton: %s at %llu", id, d.msg,
			 (unsigned long long)d.offset);
	same_bytes(out, out_len, buf, len, id, "skeleton decode->encode");
	free(out);
	char *text = skeleton_print(&s, NULL, &text_len);
	assert_non_null(text);
	if (skeleton_parse(text, text_len, &again, &d) ||
	    skeleton_encode(&again, &out, &out_len, &d))
		fail_msg("entry %u: skeleton.txt:%u:%u: %s", id, d.line, d.col, d.msg);
	same_bytes(out, out_len, buf, len, id, "skeleton print->parse->encode");
	free(out);
	free(text);
	skeleton_free(&again);
	skeleton_free(&s);
}

/* anim_clip_offsets against the pack's own bytes: each slot's table word
 * is its clip's offset, and each clip decodes there to its size. */
static void clip_offsets_match(const struct anim *a, const uint8_t *buf, size_t len,
			       uint32_t id)
{
	uint64_t *off = malloc(((size_t)a->nclips + 1) * sizeof *off);
	uint64_t *size = malloc(((size_t)a->nclips + 1) * sizeof *size);
	assert_non_null(off);
	assert_non_null(size);
	anim_clip_offsets(a, off, size);
	size_t table = 8 * ((size_t)a->nstreams + 1);
	for (uint32_t s = 0; s < a->nstreams; s++)
		for (uint32_t i = 0; i < a->streams[s].nslots; i++, table += 4)
			if (a->streams[s].slots[i] != ANIM_EMPTY &&
			    le32(buf + table) != off[a->streams[s].slots[i]])
				fail_msg("entry %u: stream %u slot %u is at %u, "
					 "anim_clip_offsets says %llu", id, s, i,
					 le32(buf + table),
					 (unsigned long long)off[a->streams[s].slots[i]]);
	uint64_t end = le32(buf + 8 * (size_t)a->nstreams + 4);
	for (uint32_t c = 0; c < a->nclips; c++) {
		struct clip clip;
		size_t used;
		assert_int_equal(off[c], end);
		assert_true(off[c] <= len);
		assert_int_equal(clip_decode(a->format, buf + off[c], len - (size_t)off[c],
					     &clip, &used, NULL), MH_OK);
		assert_int_equal(used, size[c]);
		assert_true(clip_equal(&clip, &a->clips[c]));
		clip_free(&clip);
		end += size[c];
	}
	assert_int_equal(end + a->tail_len, len);
	free(off);
	free(size);
}

/* The pack from pack.txt and each clip's text, as a modder's files give it. */
static void pack_both_ways(const uint8_t *buf, size_t len, uint32_t id,
			   struct model_stats *st)
{
	struct anim a, again;
	struct mh_diag d = {0};
	uint8_t *out;
	size_t out_len, text_len;
	if (anim_decode(buf, len, CLIP_NONE, &a, &d) || anim_encode(&a, &out, &out_len, &d))
		fail_msg("entry %u: pack: %s at %llu", id, d.msg, (unsigned long long)d.offset);
	same_bytes(out, out_len, buf, len, id, "pack decode->encode");
	free(out);
	clip_offsets_match(&a, buf, len, id);
	char *text = anim_print_shape(&a, &text_len);
	assert_non_null(text);
	if (anim_parse_shape(text, text_len, &again, &d))
		fail_msg("entry %u: pack.txt:%u:%u: %s", id, d.line, d.col, d.msg);
	free(text);
	assert_int_equal(again.nclips, a.nclips);
	for (uint32_t c = 0; c < a.nclips; c++) {
		struct clip clip;
		text = clip_print(&a.clips[c], NULL, -1, &text_len);
		assert_non_null(text);
		if (clip_parse(text, text_len, &clip, &d))
			fail_msg("entry %u: clip %u:%u:%u: %s", id, c, d.line, d.col, d.msg);
		free(text);
		clip_free(&again.clips[c]);
		again.clips[c] = clip;
		st->clips++;
	}
	if (anim_encode(&again, &out, &out_len, &d))
		fail_msg("entry %u: pack from text: %s", id, d.msg);
	same_bytes(out, out_len, buf, len, id, "pack print->parse->encode");
	free(out);
	anim_free(&again);
	anim_free(&a);
}

/* Every skeleton and pack in buf: itself, or among a PAC's members. */
static void models_in(const uint8_t *buf, size_t len, uint32_t id,
		      struct model_stats *st)
{
	size_t head = len < KIND_HEAD_MAX ? len : KIND_HEAD_MAX;
	enum kind k = kind_sniff(buf, head, len);
	struct pac pac;
	if (k == KIND_SKELETON) {
		st->skeletons++;
		skeleton_both_ways(buf, len, id);
	} else if (k == KIND_ANIM) {
		st->packs++;
		pack_both_ways(buf, len, id, st);
	} else if (k == KIND_PAC && pac_decode(buf, len, &pac, NULL) == MH_OK) {
		for (uint32_t i = 0; i < pac.count; i++)
			if (pac.entries[i].size)
				models_in(buf + pac.entries[i].offset,
					  pac.entries[i].size, id, st);
		pac_free(&pac);
	}
}

static void test_every_model_reencodes_from_model_and_text(void **state)
{
	(void)state;
	need_sample();
	struct databin db;
	struct model_stats st = {0};
	open_encrypted(&db);
	uint8_t *buf = NULL;
	for (uint32_t id = 0; id < db.count; id++) {
		size_t span = (size_t)databin_entry_blocks(&db, id) * DATABIN_BLOCK;
		buf = realloc(buf, span ? span : 1);
		assert_non_null(buf);
		memcpy(buf, S.enc.p + databin_entry_offset(&db, id), span);
		if (!databin_entry_plain(&db, id))
			cipher_decrypt(db.start[id], 0, buf, span);
		models_in(buf, (size_t)databin_entry_size(&db, id), id, &st);
	}
	free(buf);
	print_message("%u skeletons, %u packs, %u clips\n", st.skeletons,
		      st.packs, st.clips);
	/* Tigrex, two more MHFU species (one with a second set), MHP3rd. */
	assert_true(st.skeletons >= 5);
	assert_true(st.packs >= 4);
	assert_true(st.clips >= 300);
	databin_free(&db);
}

/* ---- PMOs -------------------------------------------------------------- */

struct pmo_stats {
	unsigned models, companions, mhfu, p3rd, statics, unknown_cmds, groups, vertices;
	unsigned most_meshes, most_groups;
};

/* Entry id's bytes, decrypted, its size in *size; malloc'ed. */
static uint8_t *entry_bytes(const struct databin *db, uint32_t id, size_t *size)
{
	size_t span = (size_t)databin_entry_blocks(db, id) * DATABIN_BLOCK;
	uint8_t *buf = malloc(span ? span : 1);
	assert_non_null(buf);
	memcpy(buf, S.enc.p + databin_entry_offset(db, id), span);
	if (!databin_entry_plain(db, id))
		cipher_decrypt(db->start[id], 0, buf, span);
	*size = (size_t)databin_entry_size(db, id);
	return buf;
}

/* A model's PMO: the magic and a version of the two games' (the
 * sample's other "pmo" entries are random bytes behind the magic). */
static bool is_model_pmo(const uint8_t *buf, size_t len)
{
	return len >= PMO_HEADER && !memcmp(buf, PMO_MAGIC, 4) &&
	       (!memcmp(buf + 4, "1.0\0", 4) || !memcmp(buf + 4, "102\0", 4));
}

/* What the sample's models promise: textures from the bank beside the
 * PMO (below its image count), UVs in [0, 1), skinned vertices' weights
 * summing to one, at most 8 palette slots. */
static void pmo_looks_right(const struct pmo *p, uint32_t images, uint32_t id)
{
	for (uint32_t m = 0; m < p->h.material_count; m++)
		if (p->materials[m].texture != 0xFF && p->materials[m].texture >= images)
			fail_msg("entry %u: material %u: texture %u of %u images", id, m,
				 p->materials[m].texture, images);
	for (uint32_t g = 0; g < p->group_count; g++) {
		const struct pmo_group *grp = &p->groups[g];
		assert_true(pmo_group_material(p, g) >= 0);
		for (uint32_t v = 0; v < grp->vertex_count; v++) {
			const struct pmo_vertex *vx = &grp->vertices[v];
			float sum = 0;
			for (unsigned k = 0; k < PMO_MAX_WEIGHTS; k++)
				sum += vx->weights[k];
			if (vx->uv[0] < 0 || vx->uv[0] >= 1 || vx->uv[1] < 0 || vx->uv[1] >= 1 ||
			    (grp->vtype.weight && (sum < 0.99f || sum > 1.01f)))
				fail_msg("entry %u: group %u vertex %u: uv %g %g, weights %g", id, g,
					 v, vx->uv[0], vx->uv[1], sum);
		}
	}
}

/* Decodes a PMO (with the companion when it has one) and encodes it back. */
static void pmo_both_ways(const uint8_t *buf, size_t len, const uint8_t *comp, size_t comp_len,
			  uint32_t images, uint32_t id, struct pmo_stats *st)
{
	struct pmo p;
	struct mh_diag d = {0};
	uint8_t *out = NULL, *out_comp = NULL;
	size_t out_len, out_comp_len;
	bool external = pmo_needs_companion(buf, len);
	if (pmo_decode(buf, len, external ? comp : NULL, external ? comp_len : 0, &p, &d) ||
	    pmo_encode(&p, &out, &out_len, &out_comp, &out_comp_len, &d))
		fail_msg("entry %u: pmo: %s at %llu", id, d.msg, (unsigned long long)d.offset);
	same_bytes(out, out_len, buf, len, id, "PMO decode->encode");
	if (external)
		same_bytes(out_comp, out_comp_len, comp, comp_len, id + 1,
			   "companion decode->encode");
	pmo_looks_right(&p, images, id);
	st->models++;
	st->companions += external;
	st->p3rd += p.h.version == PMO_P3RD;
	st->mhfu += p.h.version == PMO_MHFU;
	st->groups += p.group_count;
	bool weighted = p.palette_count > 0;
	for (uint32_t g = 0; g < p.group_count; g++) {
		weighted |= p.groups[g].vtype.weight != 0;
		st->vertices += p.groups[g].vertex_count;
		for (uint32_t c = 0; c < p.groups[g].cmd_count; c++) {
			unsigned op = p.groups[g].cmds[c] >> 24;
			st->unknown_cmds += op == 0x1D || op == 0x21 || op == 0xDB || op == 0x50 ||
					    op == 0xC6;
		}
	}
	st->statics += !weighted;
	if (p.h.mesh_count > st->most_meshes)
		st->most_meshes = p.h.mesh_count;
	if (p.group_count > st->most_groups)
		st->most_groups = p.group_count;
	free(out);
	free(out_comp);
	pmo_free(&p);
}

/* The images of the bank after member i of a PAC (0 when none). */
static uint32_t bank_after(const uint8_t *buf, const struct pac *pac, uint32_t i)
{
	struct tmh t;
	if (i + 1 >= pac->count)
		return 0;
	const struct pac_entry *e = &pac->entries[i + 1];
	uint32_t n = tmh_decode(buf + e->offset, e->size, &t, NULL) ? 0 : t.count;
	tmh_free(&t);
	return n;
}

static void test_every_pmo_reencodes_with_its_companion(void **state)
{
	(void)state;
	need_sample();
	struct databin db;
	struct pmo_stats st = {0};
	open_encrypted(&db);
	for (uint32_t id = 0; id < db.count; id++) {
		size_t size;
		uint8_t *buf = entry_bytes(&db, id, &size);
		struct pac pac;
		size_t head = size < KIND_HEAD_MAX ? size : KIND_HEAD_MAX;
		if (kind_sniff(buf, head, size) != KIND_PAC ||
		    pac_decode(buf, size, &pac, NULL) != MH_OK) {
			free(buf);
			continue;
		}
		for (uint32_t i = 0; i < pac.count; i++) {
			const uint8_t *m = buf + pac.entries[i].offset;
			size_t len = pac.entries[i].size, comp_len = 0;
			if (!is_model_pmo(m, len))
				continue;
			uint8_t *comp = NULL;
			if (pmo_needs_companion(m, len)) {
				assert_true(id + 1 < db.count);
				comp = entry_bytes(&db, id + 1, &comp_len);
			}
			pmo_both_ways(m, len, comp, comp_len, bank_after(buf, &pac, i), id, &st);
			free(comp);
		}
		pac_free(&pac);
		free(buf);
	}
	print_message("%u PMOs (%u MHFU, %u MHP3rd, %u with a companion, %u static): "
		      "%u groups, %u vertices, %u modding-tool commands\n", st.models, st.mhfu,
		      st.p3rd, st.companions, st.statics, st.groups, st.vertices, st.unknown_cmds);
	/* Tigrex, the four-stream model's two sets, the two-stream and the
	 * odd-stream models, a small monster; four MHP3rd models, each a
	 * low-detail one too. */
	assert_true(st.mhfu >= 6);
	assert_true(st.statics >= 1);
	assert_true(st.p3rd >= 8);
	assert_true(st.companions >= 4);
	assert_true(st.unknown_cmds > 0);
	assert_true(st.most_meshes >= 7);
	assert_true(st.most_groups >= 180);
	databin_free(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_is_given_and_readable),
		cmocka_unit_test(test_open_detects_encrypted_data_bin),
		cmocka_unit_test(test_open_detects_plain_twin),
		cmocka_unit_test(test_guess_game_on_encrypted_is_mhfu),
		cmocka_unit_test(test_guess_game_on_plain_twin_is_mhfu),
		cmocka_unit_test(test_encrypted_toc_reencodes_byte_exactly),
		cmocka_unit_test(test_plain_toc_reencodes_byte_exactly),
		cmocka_unit_test(test_plain_and_encrypted_tocs_decode_alike),
		cmocka_unit_test(test_archive_rebuilds_byte_identically_from_toc_and_entries),
		cmocka_unit_test(test_entries_match_extracted_sources),
		cmocka_unit_test(test_every_pac_reencodes_byte_exactly),
		cmocka_unit_test(test_every_model_reencodes_from_model_and_text),
		cmocka_unit_test(test_every_pmo_reencodes_with_its_companion),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
