/* SPDX-License-Identifier: MIT */
/* Entry kinds remembered across mounts: the record folder's `kinds` file
 * (codecs/kindcache.h), so that listing the root of a fresh mount names
 * every entry without reading one.
 *
 * Believed only when it describes this very file as it is now: the same
 * device, inode, size, modification and change times, the same TOC, game
 * and encryption, told by the same build of the driver; any difference,
 * or a damaged file, and the kinds are sniffed from the entries as ever.
 * A file's times tell a change only when the change lands on a later
 * tick of the filesystem's clock than the one before: so the file is
 * written only when the archive's last change is at least KINDS_TICKS
 * ticks old (at unmount the driver waits that long, a few milliseconds,
 * rather than not write it; on a filesystem whose times are whole
 * seconds it writes none then).  Written beside and renamed over, not
 * synced: after a crash the file is whole, stale or damaged, and a stale
 * or damaged one is ignored. */
#ifndef FS_KINDS_H
#define FS_KINDS_H

#include <stdbool.h>

struct archive;

/* Sets the kinds the record's file holds for the archive, when it
 * describes it (before the mount serves).  Logs a damaged file. */
void kinds_recall(struct archive *ar);

/* Writes what the archive's entries' kinds are now into the record's
 * file, unless the file says it already, there is no record on disk,
 * or the backing file changed other than through this mount.
 * `unmounting`: the last chance, worth waiting a few ticks for. */
void kinds_keep(struct archive *ar, bool unmounting);

#endif
