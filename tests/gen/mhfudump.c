/* SPDX-License-Identifier: MIT */
/* mhfudump: reads an archive file directly, with the codecs alone (no
 * FUSE), so tests can check what a write through the mount left on disk.
 *
 *   mhfudump ARCHIVE PATH     prints the view at PATH as the mount names it:
 *                             file_06185.pac, file_06185/3.anim,
 *                             file_06185/0/skeleton.txt, file_06185/3/pack.txt,
 *                             file_06185/3/stream2/slot024.txt (or .bin),
 *                             file_06185/2/image00.png, file_05250/records.txt
 *                             (MHP3rd tracks named by the record map the
 *                             archive gives, with no override)
 *   mhfudump --check ARCHIVE  decodes the TOC and every entry, every PAC,
 *                             skeleton, pack and texture bank in it; prints
 *                             a summary
 *
 * Exit status: 0 done, 1 no such view or the archive is damaged, 2 usage
 * or I/O.  ARCHIVE is a DATA.BIN (plain or encrypted) or a single PAC. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "cipher.h"
#include "databin.h"
#include "kind.h"
#include "movesets.h"
#include "pac.h"
#include "skeleton.h"
#include "tmh.h"
#include "views.h"

static uint8_t *file_bytes;
static size_t file_len;

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	if (off > file_len || len > file_len - off)
		return -1;
	memcpy(buf, file_bytes + off, len);
	return 0;
}

static enum kind sniff(const uint8_t *p, size_t n)
{
	return kind_sniff(p, n < KIND_HEAD_MAX ? n : KIND_HEAD_MAX, n);
}

/* Entry `id` decrypted, malloc'ed. */
static uint8_t *entry_bytes(const struct databin *db, uint32_t id, size_t *len)
{
	size_t span = (size_t)databin_entry_blocks(db, id) * DATABIN_BLOCK;
	uint8_t *p = malloc(span ? span : 1);
	if (!p)
		return NULL;
	memcpy(p, file_bytes + databin_entry_offset(db, id), span);
	if (!databin_entry_plain(db, id))
		cipher_decrypt(db->start[id], 0, p, span);
	*len = (size_t)databin_entry_size(db, id);
	return p;
}

static int emit(const void *p, size_t n)
{
	return fwrite(p, 1, n, stdout) == n ? 0 : 2;
}

static int emit_text(char *text, size_t n)
{
	int rc = text ? emit(text, n) : 2;
	free(text);
	return rc;
}

/* moveset_entry_fn over the archive. */
static uint8_t *entry_of(void *db, uint32_t id, size_t *len)
{
	return id < ((struct databin *)db)->count ? entry_bytes(db, id, len) : NULL;
}

/* A pack's view: pack.txt, records.txt (MHP3rd), a slot's text or bytes;
 * `src` says what its rig is. */
static int show_pack(const uint8_t *p, size_t n, const char *label, const char *rest,
		     const struct moveset_source *src)
{
	struct anim a;
	unsigned stream, slot;
	char ext[4];
	size_t len;
	int rc = 1;
	const struct skeleton *rig = src->rig;
	if (anim_decode(p, n, CLIP_NONE, &a, NULL))
		return 1;
	struct records map;
	bool mapped = moveset_map(&a, src, &map) == 1;
	if (!strcmp(rest, "pack.txt")) {
		char *text = views_pack_text(&a, &len);
		rc = emit_text(text, len);
	} else if (mapped && !strcmp(rest, "records.txt")) {
		char *text = moveset_records_text(&map, label, src, &len);
		rc = emit_text(text, len);
	} else if (sscanf(rest, "stream%u/slot%u.%3s", &stream, &slot, ext) == 3 &&
		   stream < a.nstreams && slot < a.streams[stream].nslots &&
		   a.streams[stream].slots[slot] >= 0) {
		uint32_t clip = (uint32_t)a.streams[stream].slots[slot];
		if (!strcmp(ext, "txt")) {
			char *text = views_clip_text_mapped(&a, clip, label, rig,
							    mapped ? &map : NULL, &len);
			rc = emit_text(text, len);
		} else {
			uint8_t *bytes;
			if (!clip_encode(a.format, &a.clips[clip], &bytes, &len, NULL)) {
				rc = emit(bytes, len);
				free(bytes);
			}
		}
	}
	if (mapped)
		records_free(&map);
	anim_free(&a);
	return rc;
}

/* The view named by `rest` inside an item (bytes p, n, named `label`),
 * with `src` the rig beside it (and, for a standalone moveset, its
 * monster). */
static int show(const uint8_t *p, size_t n, const char *label, const char *rest,
		const struct moveset_source *src)
{
	enum kind k = sniff(p, n);
	size_t len;
	if (!*rest)
		return emit(p, n);
	if (k == KIND_SKELETON && !strcmp(rest, "skeleton.txt")) {
		struct skeleton s;
		if (skeleton_decode(p, n, &s, NULL))
			return 1;
		char *text = views_skeleton_text(&s, label, &len);
		skeleton_free(&s);
		return emit_text(text, len);
	}
	if (k == KIND_TMH) {
		struct tmh t;
		unsigned image;
		char name[32];
		uint8_t *png;
		int rc = 1;
		if (tmh_decode(p, n, &t, NULL)) {
			tmh_free(&t);
			return 1;
		}
		if (sscanf(rest, "image%u.png", &image) == 1 && image < t.count) {
			tmh_image_file_name(image, name, sizeof name);
			if (!strcmp(rest, name) && !tmh_image_png(&t.images[image], &png, &len, NULL)) {
				rc = emit(png, len);
				free(png);
			}
		}
		tmh_free(&t);
		return rc;
	}
	if (k == KIND_ANIM)
		return show_pack(p, n, label, rest, src);
	if (k != KIND_PAC)
		return 1;
	struct pac pac;
	struct moveset_source own = {.monster = RECORDS_NO_MONSTER};
	bool have_rig = false;
	unsigned i;
	int used = 0, rc = 1;
	if (pac_decode(p, n, &pac, NULL) || sscanf(rest, "%u%n", &i, &used) != 1 ||
	    i >= pac.count || !pac.entries[i].size) {
		pac_free(&pac);
		return 1;
	}
	for (uint32_t j = 0; j < pac.count && !have_rig; j++) {
		have_rig = pac.entries[j].size &&
			   sniff(p + pac.entries[j].offset, pac.entries[j].size) == KIND_SKELETON &&
			   !skeleton_decode(p + pac.entries[j].offset, pac.entries[j].size, &own.own,
					    NULL);
		if (have_rig)
			snprintf(own.rig_label, sizeof own.rig_label, "%.60s/%u.skeleton", label, j);
	}
	own.rig = have_rig ? &own.own : NULL;
	const uint8_t *m = p + pac.entries[i].offset;
	size_t mn = pac.entries[i].size;
	char sub[512];
	const char *after = rest + used;
	enum kind mk = sniff(m, mn);
	if (*after == '.') { /* "3.anim": the member's bytes */
		rc = strcmp(after, kind_ext(mk)) ? 1 : emit(m, mn);
	} else if (*after == '/') {
		snprintf(sub, sizeof sub, "%s/%u%s", label, i, mk == KIND_PAC ? "" : kind_ext(mk));
		rc = show(m, mn, sub, after + 1, &own);
	}
	moveset_source_free(&own);
	pac_free(&pac);
	return rc;
}

/* Every PAC, skeleton, pack and texture bank in an item decodes; counts
 * them (but PACs). */
static bool check_item(const uint8_t *p, size_t n, unsigned *models)
{
	struct pac pac;
	switch (sniff(p, n)) {
	case KIND_TMH: {
		struct tmh t;
		bool ok = !tmh_decode(p, n, &t, NULL);
		tmh_free(&t);
		*models += ok;
		return ok;
	}
	case KIND_SKELETON: {
		struct skeleton s;
		if (skeleton_decode(p, n, &s, NULL))
			return false;
		skeleton_free(&s);
		++*models;
		return true;
	}
	case KIND_ANIM: {
		struct anim a;
		if (anim_decode(p, n, CLIP_NONE, &a, NULL))
			return false;
		anim_free(&a);
		++*models;
		return true;
	}
	case KIND_PAC:
		if (pac_decode(p, n, &pac, NULL))
			return false;
		for (uint32_t i = 0; i < pac.count; i++)
			if (pac.entries[i].size &&
			    !check_item(p + pac.entries[i].offset, pac.entries[i].size, models)) {
				pac_free(&pac);
				return false;
			}
		pac_free(&pac);
		return true;
	default:
		return true;
	}
}

int main(int argc, char **argv)
{
	bool check = argc == 3 && !strcmp(argv[1], "--check");
	if (argc != 3) {
		fprintf(stderr, "usage: mhfudump ARCHIVE PATH | mhfudump --check ARCHIVE\n");
		return 2;
	}
	const char *archive = check ? argv[2] : argv[1];
	FILE *f = fopen(archive, "rb");
	long size;
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(file_bytes = malloc((size_t)size + 1)) ||
	    fread(file_bytes, 1, (size_t)size, f) != (size_t)size) {
		perror(archive);
		return 2;
	}
	fclose(f);
	file_len = (size_t)size;

	struct databin db;
	struct mh_diag d;
	int rc = 1;
	if (databin_open(mem_read, NULL, file_len, &db, &d)) {
		/* A single PAC: its folder is the root. */
		unsigned models = 0;
		if (check) {
			rc = check_item(file_bytes, file_len, &models) ? 0 : 1;
			printf("PAC: %s, %u models\n", rc ? "damaged" : "ok", models);
		} else {
			struct moveset_source none = {.monster = RECORDS_NO_MONSTER};
			rc = show(file_bytes, file_len, "", argv[2], &none);
		}
		free(file_bytes);
		return rc;
	}
	databin_guess_game(&db, mem_read, NULL);
	if (check) {
		unsigned models = 0, bad = 0;
		for (uint32_t id = 0; id < db.count; id++) {
			size_t n;
			uint8_t *p = entry_bytes(&db, id, &n);
			if (!p || !check_item(p, n, &models)) {
				printf("entry %u (file_%05lld) does not decode\n", id, (long long)id - 1);
				bad++;
			}
			free(p);
		}
		printf("DATA.BIN: %u entries, %u size pairs, %u models, %u damaged\n",
		       db.count, db.nsizes, models, bad);
		rc = bad ? 1 : 0;
	} else {
		long long num;
		int used = 0;
		if (sscanf(argv[2], "file_%lld%n", &num, &used) == 1 && num >= -1 &&
		    num + 1 < db.count) {
			uint32_t id = (uint32_t)(num + 1);
			size_t n;
			uint8_t *p = entry_bytes(&db, id, &n);
			const char *rest = argv[2] + used;
			char label[64];
			enum kind k = p ? sniff(p, n) : KIND_DATA;
			snprintf(label, sizeof label, "file_%05lld%s", num,
				 k == KIND_PAC ? "" : kind_ext(k));
			if (!p)
				rc = 2;
			else if (*rest == '.')
				rc = strcmp(rest, kind_ext(k)) ? 1 : emit(p, n);
			else if (*rest == '/') {
				/* A standalone MHP3rd moveset plays on the model
				 * PAC before it. */
				struct moveset_source src = {.monster = RECORDS_NO_MONSTER};
				if (k == KIND_ANIM)
					moveset_source_of(id, entry_of, &db, &src);
				rc = show(p, n, label, rest + 1, &src);
				moveset_source_free(&src);
			}
			free(p);
		}
	}
	databin_free(&db);
	free(file_bytes);
	return rc;
}
