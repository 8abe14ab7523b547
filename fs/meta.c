#include "meta.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h"

/* A growing text buffer; on allocation failure it frees itself and
 * further appends do nothing. */
struct text {
	char *buf;
	size_t len, cap;
	int failed;
};

static void text_printf(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void text_printf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	for (int attempt = 0; attempt < 2 && !t->failed; attempt++) {
		size_t room = t->cap - t->len;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf ? t->buf + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = 1;
		} else if ((size_t)n < room) {
			t->len += (size_t)n;
			return;
		} else {
			size_t cap = t->cap * 2 + (size_t)n + 256;
			char *b = realloc(t->buf, cap);
			if (!b)
				t->failed = 1;
			else {
				t->buf = b;
				t->cap = cap;
			}
		}
	}
	if (t->failed) {
		free(t->buf);
		t->buf = NULL;
	}
}

char *meta_info(struct archive *ar, size_t *len)
{
	struct text t = {0};
	bool databin = ar->format == FORMAT_DATABIN;

	text_printf(&t, "format\t%s\n", databin ? "DATA.BIN" : "PAC");
	text_printf(&t, "archive\t%s\n", ar->path);
	text_printf(&t, "size\t%llu\n", (unsigned long long)ar->size);
	if (databin) {
		text_printf(&t, "game\t%s\n", databin_game_name(ar->db.game));
		text_printf(&t, "encrypted\t%s\n", ar->db.encrypted ? "yes" : "no");
		text_printf(&t, "entries\t%u\n", ar->count);
		text_printf(&t, "size_pairs\t%u\n", ar->db.nsizes);
		text_printf(&t, "toc_blocks\t%u\n", ar->db.start[0]);
		text_printf(&t, "blocks\t%u\n", ar->db.start[ar->count]);
	}
	text_printf(&t, "mode\tread-only\n");
	text_printf(&t, "journal\tnone\n");
	text_printf(&t, "reads\t%llu\n", (unsigned long long)atomic_load(&ar->reads));
	text_printf(&t, "bytes_read\t%llu\n", (unsigned long long)atomic_load(&ar->bytes_read));
	text_printf(&t, "pid\t%ld\n", (long)getpid());
	text_printf(&t, "version\t%s\n", MHFU_VERSION);
	*len = t.len;
	return t.buf;
}

const char *meta_index(struct archive *ar, size_t *len)
{
	char *index = atomic_load_explicit(&ar->index_tsv, memory_order_acquire);
	if (!index) {
		struct text t = {0};
		char name[64];
		text_printf(&t, "# name\tid\tstart\tblocks\tsize\tkind\tplain\n");
		for (uint32_t id = 0; id < ar->count && ar->format == FORMAT_DATABIN; id++) {
			archive_entry_name(ar, id, name, sizeof name);
			text_printf(&t, "%s\t%u\t%u\t%u\t%llu\t%s\t%s\n", name, id,
				    ar->db.start[id], databin_entry_blocks(&ar->db, id),
				    (unsigned long long)archive_entry_size(ar, id),
				    kind_name(archive_entry_kind(ar, id)),
				    archive_entry_plain(ar, id) ? "yes" : "no");
		}
		if (!t.buf)
			return NULL;
		char *expected = NULL;
		if (!atomic_compare_exchange_strong(&ar->index_tsv, &expected, t.buf))
			free(t.buf); /* another thread built it first */
		index = atomic_load(&ar->index_tsv);
	}
	*len = strlen(index);
	return index;
}
