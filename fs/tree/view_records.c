/* SPDX-License-Identifier: MIT */
/* An MHP3rd pack folder's records.txt: which bone each track of its clips
 * drives (codecs/records.h, mhfu-clip(5) "RECORD MAPS").  Written back,
 * its offset and skip lines override the map's: the override is kept in
 * the record's overrides/ (it outlives the mount, and the archive's bytes
 * do not change), and the pack's texts, plots and its model PAC's
 * model.glb are made afresh with it at once.  What the map would be
 * anyway takes the override away. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "view_pack.h"
#include "item.h"
#include "mhfs.h"

static int records_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = pack_resolve(fs, n, t);
	if (err)
		return err;
	if (!t->model->records)
		return ENOENT;
	t->text = t->model->records_txt.text;
	t->text_len = t->model->records_txt.len;
	return 0;
}

/* A commit that did not get as far as judging the edit. */
static int not_judged(struct commit_result *r, int err, const char *why)
{
	r->outcome = COMMIT_FAILED;
	snprintf(r->why, sizeof r->why, "%s", why ? why : strerror(err));
	return err;
}

/* What an override in force says, for the log. */
static void describe(const struct records_setting *set, const char *where, char *buf,
		     size_t len)
{
	if (!set->offset_set && !set->skip_set) {
		snprintf(buf, len, "no override: the map is the computed one (%s removed)", where);
		return;
	}
	char skip[64] = "auto";
	if (set->skip_set)
		snprintf(skip, sizeof skip, "%u bone%s", set->nskip, set->nskip == 1 ? "" : "s");
	char offset[16] = "auto";
	if (set->offset_set)
		snprintf(offset, sizeof offset, "%u", set->offset);
	snprintf(buf, len, "override (offset %s, skip %s) kept in %s", offset, skip, where);
}

/* Parses the new records.txt against the map in force, keeps what it
 * overrides in the record (or removes it), and drops the views made
 * with the old map. */
static int records_commit(struct mhfs *fs, const struct edit *e, struct commit_result *r)
{
	struct node_target t;
	struct records_setting set;
	struct mh_diag d = {0};
	char key[96], where[320];
	int err = records_resolve(fs, &e->view, &t);
	if (err)
		return not_judged(r, err, NULL);
	if (e->kind != EDIT_WRITE)
		return not_judged(r, EPERM, "records.txt cannot be removed");
	enum mh_err parsed = records_parse(t.model->records, (const char *)e->data, e->len, &set, &d);
	if (parsed == MH_ENOMEM)
		return not_judged(r, ENOMEM, NULL);
	if (parsed) {
		r->outcome = COMMIT_REFUSED;
		r->diag = d;
		return EINVAL;
	}
	/* An override kept that no longer fits is taken away by any write. */
	if (records_setting_equal(&set, &t.model->records->set) && !t.model->override_note[0]) {
		records_setting_free(&set);
		r->outcome = COMMIT_UNCHANGED;
		return 0;
	}
	item_override_key(&fs->ar, &e->view, key, sizeof key);
	record_override_path(&fs->record, key, RECORD_RECORDS, where, sizeof where);
	size_t len;
	char *text = records_setting_print(&set, &len);
	if (!text)
		err = not_judged(r, ENOMEM, NULL);
	else if (fs->record.dir < 0)
		err = not_judged(r, EROFS, "the record is not kept on disk, so an override would "
				 "not outlive the mount (see -o state=)");
	else if ((err = record_override_put(&fs->record, key, RECORD_RECORDS, text, len)))
		snprintf(r->why, sizeof r->why, "%s: %s", where, strerror(err));
	if (err)
		r->outcome = COMMIT_FAILED;
	if (!err) {
		describe(&set, where, r->note, sizeof r->note);
		archive_forget_views(&fs->ar, e->view.entry);
		r->outcome = COMMIT_DONE;
		r->entry_len = archive_entry_size(&fs->ar, e->view.entry);
	}
	free(text);
	records_setting_free(&set);
	return err;
}

const struct view_class view_records_txt = {
	.flags = VIEW_ITEM | VIEW_WRITABLE,
	.source = SOURCE_MODEL,
	.in = NODE_PACK_DIR,
	.fixed_name = "records.txt",
	.resolve = records_resolve,
	.commit = records_commit,
};
