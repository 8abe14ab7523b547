/* SPDX-License-Identifier: MIT */
/* Telling the user what a commit did (report.h): the log, the view's
 * user.mhfu.error xattr, and the record of refused and removed texts. */
#include "report.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reporting --------------------------------------------------------- */

static void set_view_error(struct mhfs *fs, uint64_t ino, const char *msg)
{
	pthread_mutex_lock(&fs->errors_lock);
	struct view_error **p = &fs->errors;
	while (*p && (*p)->ino != ino)
		p = &(*p)->next;
	if (*p && !msg) {
		struct view_error *gone = *p;
		*p = gone->next;
		free(gone->msg);
		free(gone);
	} else if (msg) {
		if (!*p && (*p = calloc(1, sizeof **p)))
			(*p)->ino = ino;
		if (*p) {
			free((*p)->msg);
			(*p)->msg = strdup(msg);
		}
	}
	pthread_mutex_unlock(&fs->errors_lock);
}

char *commit_error_of(struct mhfs *fs, uint64_t ino)
{
	char *msg = NULL;
	pthread_mutex_lock(&fs->errors_lock);
	for (struct view_error *v = fs->errors; v; v = v->next)
		if (v->ino == ino && v->msg)
			msg = strdup(v->msg);
	pthread_mutex_unlock(&fs->errors_lock);
	return msg;
}

/* The line of a violation in the text the user wrote, 0 if not in it
 * (one in another member of the PAC, which the edit broke). */
static unsigned violation_line(const struct edit *e, const struct rule_violation *v)
{
	const struct view_class *c = node_class(&e->view);
	return e->kind == EDIT_WRITE && c->violation_line && !v->member[0]
		       ? c->violation_line(e, v) : 0;
}

/* Keeps a text (`what`: a refused one, a removed clip's) in the record
 * (.mhfu/rejected/), its first RECORD_MAX_TEXT_BYTES (a text typed by
 * hand is far smaller: what is past them is a copy gone wrong, which
 * would push typed texts out); if it cannot be written there, in memory
 * until unmount, named after the view. */
static void keep_text(struct mhfs *fs, const char *path, const uint8_t *data, size_t len,
		      const char *what)
{
	char name[256];
	size_t kept = len < RECORD_MAX_TEXT_BYTES ? len : RECORD_MAX_TEXT_BYTES;
	int err = fs->record.dir < 0 ? 0
		  : record_keep(&fs->record, path, data, kept, name, sizeof name);
	if (fs->record.dir >= 0 && !err) {
		char cut[64] = "";
		if (kept < len)
			snprintf(cut, sizeof cut, ", its first %zu of %zu bytes", kept, len);
		mlog_printf(&fs->log, "%s: %s is kept as .mhfu/rejected/%s%s", path, what, name, cut);
		return;
	}
	if (err)
		mlog_printf(&fs->log, "%s: %s cannot be kept in %s (%s): kept in "
			    "memory until unmount", path, what, fs->record.path, strerror(err));
	size_t i = 0;
	for (; path[i] && i + 1 < sizeof name; i++)
		name[i] = path[i] == '/' ? '%' : path[i];
	name[i] = '\0';
	pthread_mutex_lock(&fs->scratch.lock);
	struct scratch *f = scratch_create(&fs->scratch, NODE_REJECTED, name,
					   S_IFREG | 0644, fs->uid, fs->gid);
	if (f)
		f->kept_text = true;
	if (f && scratch_set(f, data, len))
		scratch_unlink(&fs->scratch, f);
	pthread_mutex_unlock(&fs->scratch.lock);
}

/* Logs each violation as path:line: CODE [member ]message (fix: ...);
 * the first error's line goes to first, if given and still empty. */
static void log_violations(struct mhfs *fs, const struct edit *e, const char *path,
			   const struct rule_report *r, char *first, size_t first_len)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rule_violation *v = &r->v[i];
		char line[1024], at[32] = "";
		unsigned ln = violation_line(e, v);
		if (ln)
			snprintf(at, sizeof at, ":%u", ln);
		snprintf(line, sizeof line, "%s%s: %s %s%s%s (fix: %s)%s", path, at,
			 rule_info(v->code)->name, v->member, v->member[0] ? " " : "",
			 v->msg, v->fix, v->level == RULE_ERROR ? "" : " [warning]");
		mlog_printf(&fs->log, "%s", line);
		if (first && !first[0] && v->level == RULE_ERROR)
			snprintf(first, first_len, "%s", line);
	}
}

/* Logs what a refused edit broke; the first error becomes the view's
 * xattr; a refused text is kept in the record. */
static void refuse(struct mhfs *fs, const struct edit *e, const char *path,
		   const struct mh_diag *d, const struct rule_report *r)
{
	char first[1024] = "";
	if (d) {
		const char *code = d->code == MH_ERANGE && d->line ? rules_table[RULE_VALUE_RANGE].name
				   : d->line ? "SYNTAX" : "FORMAT";
		if (d->line)
			snprintf(first, sizeof first, "%s:%u:%u: %s %s", path, d->line,
				 d->col, code, d->msg);
		else
			snprintf(first, sizeof first, "%s: %s %s", path, code, d->msg);
		mlog_printf(&fs->log, "%s", first);
	}
	if (r)
		log_violations(fs, e, path, r, first, sizeof first);
	set_view_error(fs, node_place(fs, &e->view), first);
	if (e->kind == EDIT_WRITE && e->view.type != NODE_FILE)
		keep_text(fs, path, e->data, e->len, "the refused text");
	atomic_fetch_add(&fs->ar.refusals, 1);
}

void report_commit(struct mhfs *fs, const struct edit *e, const struct commit_result *r)
{
	uint64_t ino = node_place(fs, &e->view);
	switch (r->outcome) {
	case COMMIT_DONE:
		if (r->rules.n)
			log_violations(fs, e, r->path, &r->rules, NULL, 0); /* warnings only */
		set_view_error(fs, ino, NULL);
		if (r->note[0])
			mlog_printf(&fs->log, "%s: committed: %s", r->path, r->note);
		else if (e->undoes)
			mlog_printf(&fs->log, "%s: committed (%zu bytes, entry %u now %zu bytes) as "
				    "commit %llu, undoing commit %llu", r->path, e->len, r->entry,
				    r->entry_len, (unsigned long long)r->history_id,
				    (unsigned long long)e->undoes);
		else
			mlog_printf(&fs->log, "%s: committed (%zu bytes, entry %u now %zu bytes) as "
				    "commit %llu", r->path, e->len, r->entry, r->entry_len,
				    (unsigned long long)r->history_id);
		if (r->removed_text)
			keep_text(fs, r->removed_path, r->removed_text, r->removed_len,
				  "the removed clip's text");
		break;
	case COMMIT_UNCHANGED:
		set_view_error(fs, ino, NULL);
		mlog_printf(&fs->log, "%s: unchanged, nothing committed", r->path);
		break;
	case COMMIT_REFUSED:
		refuse(fs, e, r->path, r->diag.code ? &r->diag : NULL, &r->rules);
		break;
	case COMMIT_FAILED:
		mlog_printf(&fs->log, "%s: not committed: %s", r->path, r->why);
		break;
	}
}

/* ---- what scratch files hold at unmount -------------------------------- */

/* Where scratch file f is in the tree, "notes.txt",
 * "file_06185/3/stream2/slot024.txt~" or "work/a/notes.txt" (in scratch
 * folders); a text kept in memory because the record could not take it
 * is named after its view already.  With the scratch lock held. */
static void scratch_path(struct mhfs *fs, const struct scratch *f, char *buf, size_t len)
{
	char rel[PATH_MAX];
	size_t at = sizeof rel - 1;
	rel[at] = '\0';
	/* The names up to the view folder, written from the end. */
	const struct scratch *top = f;
	for (const struct scratch *d = f; d;
	     d = (d->parent & SCRATCH_INO) ? scratch_by_ino(&fs->scratch, d->parent) : NULL) {
		size_t name = strlen(d->name), n = name + (d != f); /* and its '/' */
		if (n > at)
			break;
		at -= n;
		memcpy(rel + at, d->name, name);
		if (d != f)
			rel[at + name] = '/';
		top = d;
	}
	struct node dir;
	if (!f->kept_text && node_from_ino(fs, top->parent, &dir))
		node_child_path(fs, &dir, rel + at, buf, len);
	else
		snprintf(buf, len, "%s", f->kept_text ? f->name : rel + at);
}

/* The scratch folder in a view folder that f is in (or is), or NULL: f
 * is in a view folder. */
static const struct scratch *scratch_top(struct scratch_table *t, const struct scratch *f)
{
	const struct scratch *top = S_ISDIR(f->st.st_mode) ? f : NULL;
	/* (Bounded as a path is: the kernel never makes a folder its own
	 * child, but a loop must not hang the unmount.) */
	int depth = 0;
	for (const struct scratch *d = f; d && (d->parent & SCRATCH_INO) && depth < PATH_MAX / 2;
	     depth++)
		if ((d = scratch_by_ino(t, d->parent)))
			top = d;
	return top;
}

static const char *special_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "fifo" : S_ISSOCK(mode) ? "socket" : "device node";
}

/* Keeps scratch folder `top` and all in it as a tree of the record's
 * left/ (record.h), opened for the first folder; one log line says
 * where, or what was lost. */
static void keep_scratch_folder(struct mhfs *fs, const struct scratch *top,
				struct record_left *left, int *left_err)
{
	char top_path[PATH_MAX], path[PATH_MAX];
	size_t files = 0, bytes = 0, special = 0;
	int err = 0;
	if (left->dir < 0 && !*left_err)
		*left_err = record_left_open(&fs->record, left);
	err = *left_err;
	scratch_path(fs, top, top_path, sizeof top_path);
	for (const struct scratch *f = fs->scratch.files; f && !err; f = f->next) {
		if (!f->linked || f->pending || scratch_top(&fs->scratch, f) != top)
			continue;
		mode_t mode = f->st.st_mode;
		if (!S_ISDIR(mode) && !S_ISREG(mode) && !S_ISLNK(mode)) {
			special++;
			continue;
		}
		scratch_path(fs, f, path, sizeof path);
		err = record_left_put(left, path, mode, f->data, (size_t)f->st.st_size);
		files += !S_ISDIR(mode);
		bytes += S_ISREG(mode) ? (size_t)f->st.st_size : 0;
	}
	if (err)
		mlog_printf(&fs->log, "%s/: a scratch folder is lost at unmount: it cannot be kept "
			    "in %s (%s)", top_path, fs->record.path ? fs->record.path : "the record",
			    strerror(err));
	else
		mlog_printf(&fs->log, "%s/: a scratch folder left at unmount (%zu files, %zu bytes) "
			    "is kept as %s/%s/%s", top_path, files, bytes, left->path, top_path,
			    special ? " (its fifos, sockets and device nodes are dropped)" : "");
}

void report_scratch_left(struct mhfs *fs)
{
	struct record_left left = {.dir = -1};
	int left_err = 0;
	pthread_mutex_lock(&fs->scratch.lock);
	for (const struct scratch *f = fs->scratch.files; f; f = f->next) {
		/* A new view's file (pending) had its text kept when its
		 * commit was refused: it is not kept twice. */
		if (!f->linked || f->pending)
			continue;
		char path[PATH_MAX], name[256];
		size_t len = (size_t)f->st.st_size;
		const struct scratch *top = scratch_top(&fs->scratch, f);
		if (top) {
			if (top == f)
				keep_scratch_folder(fs, f, &left, &left_err);
			continue;
		}
		scratch_path(fs, f, path, sizeof path);
		if (!S_ISREG(f->st.st_mode) && !S_ISLNK(f->st.st_mode)) {
			mlog_printf(&fs->log, "%s: a scratch %s is dropped at unmount", path,
				    special_kind(f->st.st_mode));
			continue;
		}
		if (S_ISLNK(f->st.st_mode)) {
			mlog_printf(&fs->log, "%s: a scratch link (to %.*s) is dropped at unmount",
				    path, (int)len, (const char *)f->data);
			continue;
		}
		if (!len) {
			mlog_printf(&fs->log, "%s: an empty scratch file is dropped at unmount", path);
			continue;
		}
		int err = record_keep(&fs->record, path, f->data, len, name, sizeof name);
		if (err)
			mlog_printf(&fs->log, "%s: a scratch file (%zu bytes) is lost at unmount: "
				    "it cannot be kept in %s (%s)", path, len,
				    fs->record.path ? fs->record.path : "the record",
				    strerror(err));
		else
			mlog_printf(&fs->log, "%s: a scratch file (%zu bytes) left at unmount is "
				    "kept as .mhfu/rejected/%s", path, len, name);
	}
	pthread_mutex_unlock(&fs->scratch.lock);
	record_left_close(&left);
}
