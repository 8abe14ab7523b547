/* SPDX-License-Identifier: MIT */
/* The driver context set up and torn down (driver.h). */
#include "driver.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handle.h"
#include "kinds.h"
#include "original.h"

/* Attributes and names cached for an hour: a commit retires the numbers
 * of what it changes, and a name the kernel keeps for one reads and
 * stats as the view is now, or is gone (inodes.h). */
#define CACHE_TIMEOUT 3600.0

/* The record folder (log, refused texts, history).  One given that
 * cannot be used fails the mount; the default one failing leaves the
 * record in memory, said in the log. */
static enum driver_status open_record(struct mhfs *fs, const struct driver_options *o,
				      struct fs_diag *why)
{
	struct fs_diag msg = {"out of memory"};
	char *dir = o->state ? strdup(o->state) : record_default_dir(o->archive);
	int err = dir ? record_open(&fs->record, dir, &msg) : ENOMEM;
	if (!err && (err = mlog_keep_in(&fs->log, fs->record.dir))) {
		fs_diag_printf(&msg, "%s/log: %s", fs->record.path, strerror(err));
		record_close(&fs->record);
	}
	free(dir);
	if (err && o->state) {
		fs_diag_printf(why, "-o state=%s: %s", o->state, msg.msg);
		return DRIVER_ESTATE;
	}
	if (err)
		mlog_printf(&fs->log, "the record cannot be kept on disk (%s): the log and "
			    "refused texts last only until unmount (see -o state=)", msg.msg);
	return DRIVER_OK;
}

enum driver_status driver_open(struct mhfs *fs, const struct driver_options *o,
			       struct fs_diag *msg)
{
	mlog_init(&fs->log, o->log_to_stderr);
	fs->record.dir = -1;
	scratch_init(&fs->scratch);
	fs->scratch.budget = o->scratch_bytes;
	inodes_init(&fs->inodes);
	pthread_mutex_init(&fs->errors_lock, NULL);
	pthread_mutex_init(&fs->handles_lock, NULL);
	times_init(&fs->times);
	prefetch_init(&fs->prefetch);
	fs->uid = getuid();
	fs->gid = getgid();
	fs->timeout = CACHE_TIMEOUT;
	fs->entry_timeout = CACHE_TIMEOUT;
	fs->rules = o->rules;
	fs->fit[0] = o->fit[0];
	fs->fit[1] = o->fit[1];
	fs->opened = true;
	const struct archive_options ao = {o->archive, &fs->log, o->game, o->read_only,
					   o->lock_wait_ms, o->io};
	switch (archive_open(&fs->ar, &ao, msg)) {
	case AR_OK:
		break;
	case AR_EIO:
		return DRIVER_EIO;
	case AR_EFORMAT:
		return DRIVER_EFORMAT;
	case AR_EBUSY:
		return DRIVER_EBUSY;
	}
	fs->archive_open = true;
	fs->ar.backup = o->backup;
	fs->ar.cache.budget = o->cache_bytes;
	enum driver_status status = open_record(fs, o, msg);
	if (status)
		return status;
	fs->ar.record = &fs->record;
	kinds_recall(&fs->ar);
	int err = original_open(fs, o->history_max, msg);
	if (err == ENOMEM) {
		fs_diag_printf(msg, "out of memory");
		return DRIVER_ENOMEM;
	}
	if (err)
		mlog_printf(&fs->log, "the history cannot be kept in the record (%s): "
			    "commits can be undone until unmount only", msg->msg);
	fs->history_open = true;
	return DRIVER_OK;
}

void driver_close(struct mhfs *fs)
{
	if (!fs->opened)
		return;
	if (fs->history_open) {
		kinds_keep(&fs->ar, true); /* while the archive is still locked */
		original_close(fs);
	}
	if (fs->archive_open)
		archive_close(&fs->ar);
	for (struct view_error *v = fs->errors, *next; v; v = next) {
		next = v->next;
		free(v->msg);
		free(v);
	}
	fs->errors = NULL;
	pthread_mutex_destroy(&fs->errors_lock);
	handles_free_all(fs);
	pthread_mutex_destroy(&fs->handles_lock);
	times_destroy(&fs->times);
	prefetch_destroy(&fs->prefetch);
	inodes_destroy(&fs->inodes);
	scratch_destroy(&fs->scratch);
	mlog_destroy(&fs->log);
	record_close(&fs->record);
	fs->opened = fs->archive_open = fs->history_open = false;
}
