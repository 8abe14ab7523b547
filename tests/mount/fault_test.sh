#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection: every write, sync and rename a commit makes is failed
# in turn (the 1st, the 2nd, ... until no fault fires), for an in-place
# commit and for one that moves entries.  Each time the commit either
# lands whole or is refused; after a remount (recovery) the archive holds
# the old or the new clip, a refused commit never the new one... unless its
# journal was complete, and always decodes.
#
#   bash tests/mount/fault_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY FAULTIO_SO
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
shim=$(realpath "$4")
work=$(mktemp -d -t mhfu-fault-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
clip=file_06185/3/stream2/slot024.txt
trap 'leave "$mnt"' EXIT
mkdir -p "$mnt"
"$dump" "$sample/DATA.BIN" "$clip" >"$work/old.txt"   # as the archive holds it
L=$(awk '/^channel rot_x/ { f = 1; next } f && /^ *[0-9-]/ { print NR; exit }' "$work/old.txt")
awk -v n="$L" 'NR == n { $2 = 1234 } 1' "$work/old.txt" >"$work/same.txt"
with_frames 1500 "$work/old.txt" >"$work/grow.txt"

# One commit under the shim: fail call $2 (0: none) of edit $1; sets rc.
attempt() {
	cp "$sample/DATA.BIN" "$archive"
	rm -f "$work/fired" "$work/count"
	LD_PRELOAD=$shim MHFU_FAIL_AT=$2 MHFU_FAULT_MARK=$work/fired MHFU_COUNT_TO=$work/count \
		"$mount_bin" "$archive" "$mnt" 2>/dev/null
	cp "$work/$1.txt" "$mnt/$clip" 2>/dev/null
	rc=$?
	fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt"
	# The shim writes its count as the driver exits.
	eventually test -e "$work/count"
}

for edit in same grow; do
	attempt "$edit" 0
	total=$(cat "$work/count" 2>/dev/null || echo 0)
	# Every call of a short commit; of a long one (a rewrite), the first
	# calls, a spread through the middle and the last ones.
	if [ "$total" -le 40 ]; then
		calls=$(seq "$total")
	else
		calls="$(seq 12) $((total / 4)) $((total / 2)) $((3 * total / 4)) $(seq $((total - 6)) "$total")"
	fi
	faults=0 bad=0
	for n in $calls; do
		attempt "$edit" "$n"
		[ -e "$work/fired" ] || continue
		faults=$((faults + 1))
		# Remount without faults: recovery, then the clip as on disk.
		"$mount_bin" "$archive" "$mnt" 2>/dev/null && unmount "$mnt"
		"$dump" "$archive" "$clip" >"$work/got" 2>/dev/null
		"$dump" --check "$archive" >/dev/null ||
			{ echo "  $edit, fault at call $n of $total: the archive does not decode"; bad=$((bad + 1)); }
		is_new=0
		[ "$edit" = same ] && [ "$(awk -v n="$L" 'NR == n { print $2 }' "$work/got")" = 1234 ] && is_new=1
		[ "$edit" = grow ] && [ "$(wc -l <"$work/got")" -gt $(( $(wc -l <"$work/old.txt") + 1000 )) ] && is_new=1
		if [ $rc -eq 0 ] && [ $is_new = 0 ]; then
			echo "  $edit, fault at call $n of $total: cp succeeded but the edit is not on disk"; bad=$((bad + 1))
		fi
		if [ $is_new = 0 ] && ! cmp -s "$work/got" "$work/old.txt"; then
			echo "  $edit, fault at call $n of $total: the clip is neither old nor new"; bad=$((bad + 1))
		fi
	done
	if [ $bad -eq 0 ] && [ $faults -gt 0 ]; then
		ok "$edit-size commit: $faults of its $total I/O calls failed in turn, each whole or refused, archive always decodes"
	else
		not_ok "$edit-size commit under faults ($faults faults of $total calls, $bad bad)"
	fi
done
# A real journal torn mid-record: the archive write after the journal's
# sync fails (the first call whose failure leaves a journal: after the
# original's syncs, the journal's directory's, its record's write and
# sync), the journal stays; cut in half, it must be discarded at mount.
jn=$archive.mhfu-journal
for n in $(seq 20); do
	attempt same "$n"
	[ -s "$jn" ] && break
done
if [ -s "$jn" ]; then
	truncate -s $(( $(stat -c %s "$jn") / 2 )) "$jn"
	rm -rf "$XDG_STATE_HOME"   # the log must hold this mount's lines only
	"$mount_bin" "$archive" "$mnt" 2>/dev/null
	grep -q 'discarded an incomplete journal' "$mnt/.mhfu/log"; discarded=$?
	unmount "$mnt"
	"$dump" "$archive" "$clip" >"$work/got"
	if [ $discarded -eq 0 ] && [ ! -e "$jn" ] && cmp -s "$work/got" "$work/old.txt" &&
		"$dump" --check "$archive" >/dev/null; then
		ok "a real journal torn mid-record is discarded, the clip old"
	else
		not_ok "a real journal torn mid-record is discarded, the clip old"
	fi
else
	not_ok "no journal left by a failed archive write"
fi
# The error state: the archive write after the journal's sync fails (the
# first call whose failure leaves the commit pending, on a fresh record,
# which keeps the entry's original first), so the commit is pending.
# Reads of the entry fail until the next commit replays the journal
# first; then both are in the archive.
for n in $(seq 20); do
	cp "$sample/DATA.BIN" "$archive"
	rm -rf "$work/fired" "$XDG_STATE_HOME"
	LD_PRELOAD=$shim MHFU_FAIL_AT=$n MHFU_FAULT_MARK=$work/fired "$mount_bin" "$archive" "$mnt" 2>/dev/null
	cp "$work/same.txt" "$mnt/$clip" 2>/dev/null; rc=$?
	grep -q '^journal.pending' "$mnt/.mhfu/info" && break
	unmount "$mnt"
done
pending_ok=1
{ [ $rc -ne 0 ] && [ -e "$work/fired" ] && [ -s "$archive.mhfu-journal" ] &&
	grep -q '^journal.pending' "$mnt/.mhfu/info" &&
	! cat "$mnt/file_06185.pac" >/dev/null 2>"$work/e" && grep -q 'Input/output error' "$work/e"; } ||
	{ pending_ok=0; echo "  the failed commit did not leave the entry in the error state"; cat "$work/e" 2>/dev/null; }
{ truncate -s 1000 "$mnt/file_00010.bin" && grep -q '^journal.clean' "$mnt/.mhfu/info" &&
	[ "$(awk -v n="$L" 'NR == n { print $2 }' "$mnt/$clip")" = 1234 ]; } ||
	{ pending_ok=0; echo "  the next commit did not replay the journal first"; }
unmount "$mnt"
[ ! -e "$archive.mhfu-journal" ] || { pending_ok=0; echo "  the unmount left the journal"; }
{ [ "$("$dump" "$archive" "$clip" | awk -v n="$L" 'NR == n { print $2 }')" = 1234 ] &&
	"$dump" --check "$archive" >/dev/null &&
	"$dump" "$archive" file_00010.bin | head -c 1000 | cmp -s - <(head -c 1000 "$sample/src/file_00010.bin") &&
	[ "$("$dump" "$archive" file_00010.bin | tail -c 1048 | tr -d '\0' | wc -c)" = 0 ]; } ||
	{ pending_ok=0; echo "  the archive does not hold both commits"; }
if [ $pending_ok = 1 ]; then
	ok "a commit whose archive write failed after its journal: reads fail, the next commit replays it first"
else
	not_ok "a commit whose archive write failed after its journal: reads fail, the next commit replays it first"
fi

# A transient read failure while listing is not taken for a fact: the
# entries it hid are PACs again once reads work.
cp "$sample/DATA.BIN" "$archive"
LD_PRELOAD=$shim MHFU_FAIL_READS_WHILE=$work/reads-fail "$mount_bin" "$archive" "$mnt" 2>/dev/null
touch "$work/reads-fail"
ls "$mnt" >"$work/first" 2>/dev/null
rm -f "$work/reads-fail"
# Names are cached for a second: listed again until the PAC shows (or
# the bound runs out, which fails the check).
eventually bash -c "ls '$mnt' >'$work/again' && grep -q '^file_06185.pac\$' '$work/again'"
if ! grep -q '^file_06185.pac$' "$work/first" && grep -q '^file_06185.pac$' "$work/again" &&
	test -d "$mnt/file_06185/3/stream2"; then
	ok "a read failure while listing is tried again, not cached as plain data"
else
	not_ok "a read failure while listing is tried again, not cached as plain data"
	grep file_06185 "$work/first" "$work/again"
fi
unmount "$mnt"

# The shim and a sanitizer's runtime do not mix: the test runs on plain
# builds only, so there are no sanitizer reports to look for.
closing_line
