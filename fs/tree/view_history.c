/* SPDX-License-Identifier: MIT */
/* .mhfu/history (the commits the history keeps, history.h), .mhfu/undo
 * (a commit's id written there undoes it) and .mhfu/changed.tsv (the
 * entries that differ from their originals now). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "edit.h"
#include "node.h"
#include "original.h"
#include "strbuf.h"

static int always(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	(void)fs;
	(void)n;
	(void)t;
	return 0;
}

/* An entry's name in the history: file_06185.pac, or a single PAC's
 * file name, as the user knows it. */
static void entry_name(struct mhfs *fs, uint32_t id, char *buf, size_t len)
{
	const char *slash = strrchr(fs->ar.path, '/');
	if (fs->ar.format == FORMAT_PAC)
		snprintf(buf, len, "%s", slash ? slash + 1 : fs->ar.path);
	else
		archive_entry_name(&fs->ar, id, buf, len);
}

/* ---- history ------------------------------------------------------------ */

static int history_contents(struct mhfs *fs, const struct node *n, uint8_t **data,
			    size_t *len)
{
	(void)n;
	struct strbuf t = {0};
	strbuf_printf(&t, "# id\ttime\tentry\tview\tbytes_before\tbytes_after\tundoes\t"
		      "warnings\n");
	for (size_t i = 0; i < fs->history.n; i++) {
		const struct history_commit *c = &fs->history.commits[i];
		char when[32], entry[64], undoes[24] = "-";
		struct tm tm;
		gmtime_r(&c->time.tv_sec, &tm);
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
		entry_name(fs, c->entry, entry, sizeof entry);
		if (c->undoes)
			snprintf(undoes, sizeof undoes, "%llu", (unsigned long long)c->undoes);
		strbuf_printf(&t, "%llu\t%s\t%s\t%s\t%llu\t%llu\t%s\t%s\n",
			      (unsigned long long)c->id, when, entry, c->path,
			      (unsigned long long)c->old_len, (unsigned long long)c->new_len,
			      undoes, c->warnings[0] ? c->warnings : "-");
	}
	*data = (uint8_t *)strbuf_take(&t, len);
	return *data ? 0 : ENOMEM;
}

const struct view_class view_history = {
	.flags = VIEW_LIVE,
	.in = NODE_META,
	.fixed_name = "history",
	.resolve = always,
	.contents = history_contents,
};

/* ---- undo --------------------------------------------------------------- */

static int undo_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	(void)fs;
	(void)n;
	static const char HOW[] = "# write a commit's id (or \"last\") here to undo it; "
				  "see .mhfu/history\n";
	if (!(*data = malloc(sizeof HOW)))
		return ENOMEM;
	memcpy(*data, HOW, sizeof HOW - 1);
	*len = sizeof HOW - 1;
	return 0;
}

/* The commit a request names: its id in decimal or "last", blanks
 * around it; false for anything else. */
static bool requested_id(const struct mhfs *fs, const uint8_t *data, size_t len, uint64_t *id)
{
	char text[32];
	while (len && isspace(data[len - 1]))
		len--;
	while (len && isspace(*data)) {
		data++;
		len--;
	}
	if (!len || len >= sizeof text)
		return false;
	memcpy(text, data, len);
	text[len] = '\0';
	if (!strcmp(text, "last")) {
		*id = fs->history.n ? fs->history.commits[fs->history.n - 1].id : 0;
		return *id != 0;
	}
	if (strspn(text, "0123456789") != len)
		return false;
	*id = strtoull(text, NULL, 10);
	return true;
}

/* The entry's bytes now, malloc'ed: 0 or an errno. */
static int entry_now(struct mhfs *fs, uint32_t entry, uint8_t **bytes, size_t *len)
{
	uint64_t size = archive_entry_size(&fs->ar, entry);
	if (!(*bytes = malloc(size ? size : 1)))
		return ENOMEM;
	int err = archive_read_all(&fs->ar, entry, 0, *bytes, size);
	if (err) {
		free(*bytes);
		*bytes = NULL;
		return err;
	}
	*len = size;
	return 0;
}

/* An undo commits the entry's bytes before the commit undone, as a write
 * of the whole entry: through the rules like any write, recorded as
 * undoing it (so it can be undone in turn). */
static int undo_request(struct mhfs *fs, const struct node *n, const uint8_t *data, size_t len,
			struct edit *then)
{
	(void)n;
	struct fs_diag why = {""};
	uint8_t *bytes = NULL, *now = NULL;
	size_t bytes_len = 0, now_len = 0;
	uint64_t id = 0;
	uint32_t entry = 0;
	int err = 0;
	if (!fs->ar.writable)
		return EROFS;
	pthread_rwlock_rdlock(&fs->ar.io);
	const struct history_commit *c = NULL;
	if (!requested_id(fs, data, len, &id)) {
		fs_diag_printf(&why, "write a commit's id from .mhfu/history, or \"last\"");
		err = EINVAL;
	} else if (!(c = history_find(&fs->history, id))) {
		if (fs->history.n)
			fs_diag_printf(&why, "no commit %llu in .mhfu/history (it keeps %llu to %llu)",
				       (unsigned long long)id,
				       (unsigned long long)fs->history.commits[0].id,
				       (unsigned long long)fs->history.commits[fs->history.n - 1].id);
		else
			fs_diag_printf(&why, "no commit %llu: .mhfu/history is empty",
				       (unsigned long long)id);
		err = EINVAL;
	} else {
		entry = c->entry;
		err = entry_now(fs, entry, &now, &now_len);
		if (!err)
			err = history_previous(&fs->history, c, now, now_len, &bytes, &bytes_len,
					       &why);
		else
			fs_diag_printf(&why, "reading the entry: %s", strerror(err));
	}
	pthread_rwlock_unlock(&fs->ar.io);
	free(now);
	if (err) {
		mlog_printf(&fs->log, ".mhfu/undo: refused: %s", why.msg);
		return err;
	}
	if (!bytes && !(bytes = malloc(1)))
		return ENOMEM;
	*then = (struct edit){.kind = EDIT_WRITE, .view = {.type = NODE_FILE, .entry = entry},
			      .data = bytes, .len = bytes_len, .undoes = id};
	return 0;
}

const struct view_class view_undo = {
	.flags = VIEW_WRITABLE | VIEW_LIVE,
	.in = NODE_META,
	.fixed_name = "undo",
	.resolve = always,
	.contents = undo_contents,
	.request = undo_request,
};

/* ---- changed.tsv -------------------------------------------------------- */

static int changed_contents(struct mhfs *fs, const struct node *n, uint8_t **data, size_t *len)
{
	(void)n;
	struct strbuf t = {0};
	uint32_t id = 0;
	strbuf_printf(&t, "# name\tid\toriginal_bytes\tbytes\tlast_commit\n");
	for (; history_next_changed(&fs->history, id, &id); id++) {
		if (!original_differs(fs, id))
			continue;
		char name[64], last[24] = "-";
		uint64_t commit = original_last_commit(fs, id);
		entry_name(fs, id, name, sizeof name);
		if (commit)
			snprintf(last, sizeof last, "%llu", (unsigned long long)commit);
		strbuf_printf(&t, "%s\t%u\t%llu\t%llu\t%s\n", name, id,
			      (unsigned long long)history_original_len(&fs->history, id),
			      (unsigned long long)archive_entry_size(&fs->ar, id), last);
	}
	*data = (uint8_t *)strbuf_take(&t, len);
	return *data ? 0 : ENOMEM;
}

const struct view_class view_changed = {
	.flags = VIEW_LIVE,
	.in = NODE_META,
	.fixed_name = "changed.tsv",
	.resolve = always,
	.contents = changed_contents,
};
