/* SPDX-License-Identifier: MIT */
/* viewcheck DIR: proves that every text view under DIR (a mount, or the
 * generator's extraction) parses back to its item's exact bytes:
 *
 *   N/skeleton.txt                        -> parse, encode == N.skeleton
 *   N/streamK/slotNNN.txt                 -> parse, encode == slotNNN.bin
 *   N/pack.txt + the slots' clip texts    -> parse, encode == N.anim
 *
 * Prints a line per failure and a summary "viewcheck: N skeletons, N packs,
 * N clips checked, N failed"; exits 1 on any failure. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anim.h"
#include "skeleton.h"

static unsigned skeletons, packs, clips, failed;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void fail(const char *path, const char *what, const struct mh_diag *d)
{
	failed++;
	if (d)
		printf("%s:%u:%u: %s: %s\n", path, d->line, d->col, what, d->msg);
	else
		printf("%s: %s\n", path, what);
}

/* Compares encoded bytes with a file's. */
static void same(const char *path, const uint8_t *bytes, size_t len, const char *file)
{
	size_t want_len;
	char *want = slurp(file, &want_len);
	if (!want)
		fail(path, "cannot read the raw view", NULL);
	else if (want_len != len || memcmp(want, bytes, len))
		fail(path, "parses to bytes other than the raw view's", NULL);
	free(want);
}

/* "DIR/N/name" -> "DIR/N" + suffix */
static void sibling(char *out, size_t len, const char dir_path[2048], const char *suffix)
{
	snprintf(out, len, "%s%s", dir_path, suffix);
}

static void check_skeleton(const char *path, const char dir[2048])
{
	size_t len, blen;
	char *text = slurp(path, &len), raw[4096];
	struct skeleton s;
	struct mh_diag d = {0};
	uint8_t *bytes;
	skeletons++;
	if (!text || skeleton_parse(text, len, &s, &d)) {
		fail(path, "does not parse", text ? &d : NULL);
	} else {
		if (skeleton_encode(&s, &bytes, &blen, &d))
			fail(path, "does not encode", &d);
		else {
			sibling(raw, sizeof raw, dir, ".skeleton");
			same(path, bytes, blen, raw);
			free(bytes);
		}
		skeleton_free(&s);
	}
	free(text);
}

/* Parses pack.txt, fills each clip from the slot that first uses it, and
 * checks the pack's bytes; each clip text is checked against its .bin. */
static void check_pack(const char *path, const char dir[2048])
{
	size_t len, blen;
	char *text = slurp(path, &len), file[4096];
	struct anim a;
	struct mh_diag d = {0};
	uint8_t *bytes;
	packs++;
	if (!text || anim_parse_shape(text, len, &a, &d)) {
		fail(path, "does not parse", text ? &d : NULL);
		free(text);
		return;
	}
	free(text);
	for (uint32_t c = 0; c < a.nclips; c++) {
		uint32_t s, slot;
		struct clip clip;
		anim_first_use(&a, c, &s, &slot);
		snprintf(file, sizeof file, "%s/stream%u/slot%03u.txt", dir, s, slot);
		clips++;
		if (!(text = slurp(file, &len)) || clip_parse(text, len, &clip, &d)) {
			fail(file, "does not parse", text ? &d : NULL);
		} else {
			if (clip_encode(a.format, &clip, &bytes, &blen, &d)) {
				fail(file, "does not encode", &d);
			} else {
				snprintf(file, sizeof file, "%s/stream%u/slot%03u.bin", dir, s, slot);
				same(file, bytes, blen, file);
				free(bytes);
			}
			clip_free(&a.clips[c]);
			a.clips[c] = clip;
		}
		free(text);
	}
	if (anim_encode(&a, &bytes, &blen, &d)) {
		fail(path, "does not encode", &d);
	} else {
		snprintf(file, sizeof file, "%s.anim", dir);
		same(path, bytes, blen, file);
		free(bytes);
	}
	anim_free(&a);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	const char *name = path + ftw->base;
	if (type != FTW_F)
		return 0;
	char dir[2048]; /* paths under it fit the 4096-byte buffers below */
	if (ftw->base >= (int)sizeof dir)
		return 0;
	snprintf(dir, sizeof dir, "%.*s", ftw->base > 0 ? ftw->base - 1 : 0, path);
	if (!strcmp(name, "skeleton.txt"))
		check_skeleton(path, dir);
	else if (!strcmp(name, "pack.txt"))
		check_pack(path, dir);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: viewcheck DIR\n");
		return 2;
	}
	if (nftw(argv[1], visit, 16, FTW_PHYS)) {
		perror(argv[1]);
		return 2;
	}
	printf("viewcheck: %u skeletons, %u packs, %u clips checked, %u failed\n",
	       skeletons, packs, clips, failed);
	return failed || !skeletons || !packs ? 1 : 0;
}
