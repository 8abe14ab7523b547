#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Crash tests: commits killed with SIGKILL at random moments, torn
# journals, a full disk, a read-only filesystem.  After every crash the
# archive is remounted (replaying the journal) and checked on disk with
# mhfudump against a model of the commits that were acknowledged: each
# one present, nothing partial, every entry decodable.  The commits are a
# keyframe value, a clip that grows (its entry is near the end: the
# entries after it are shifted in place through the journal), and an executor
# entry written whole: its three parts' slots (odd streams 1, 3, 5) are
# all new or all old.
#
#   bash tests/mount/crash_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY [ROUNDS]
#
# Prints a table; the summary line is "N passed, N failed, N skipped".
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
rounds=${4:-200}
work=$(mktemp -d -t mhfu-crash-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
small=file_06185/3/stream2/slot024.txt  # same-size value edits
grow=file_06185/3/stream2/slot025.txt   # toggled between two sizes: shifts the tail
entry=file_06111/3/entries/entry107.txt # one text over three parts' slots
entry_slots=(file_06111/3/stream1/slot007.txt file_06111/3/stream3/slot007.txt
	file_06111/3/stream5/slot007.txt)
tmpfs=

cleanup() {
	[ -n "$tmpfs" ] && mountpoint -q "$tmpfs" && umount -l "$tmpfs"
	leave "$mnt"
}
trap cleanup EXIT

# Aborts the FUSE connection of a mount (fusectl), so nothing waits on a
# dead driver forever.
abort_mount() {
	mountpoint -q /sys/fs/fuse/connections || mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null
	local conn
	conn=$(awk -v m="$1" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo | tail -1)
	[ -n "$conn" ] && echo 1 >"/sys/fs/fuse/connections/$conn/abort" 2>/dev/null
}
mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"

value_of() { "$dump" "$archive" "$small" | sed -n "${L}p" | awk '{ print $2 }'; }
keys_of() { "$dump" "$archive" "$grow" | grep -c '^ *[0-9]'; }

# The edits: a value on line L of the small clip; the grow clip either as
# shipped or with 2000 more keys in its first channel.
"$dump" "$archive" "$small" >"$work/small.txt"
L=$(grep -n -m1 -A1 '^channel rot_x' "$work/small.txt" | tail -1 | cut -d- -f1)
"$dump" "$archive" "$grow" >"$work/grow0.txt"
awk '/^channel/ && !d { print; print "#  frame value ease_in ease_out";
	for (f = 0; f < 2000; f++) print f, f % 100, 0, 0; d = 1; s = 1; next }
	s && /^ *(#|[0-9-])/ { next } { s = 0; print }' "$work/grow0.txt" >"$work/grow1.txt"
keys0=$(grep -c '^ *[0-9]' "$work/grow0.txt")
keys1=$(grep -c '^ *[0-9]' "$work/grow1.txt")

# The entry: its text as the mount prints it, and each part's first
# keyframe value, read from the parts' slots on disk ("a b c").
"$mount_bin" -o ro "$archive" "$mnt" && cp "$mnt/$entry" "$work/entry.txt" && unmount "$mnt"
first_value() { awk '/^ +[0-9]+ +-?[0-9]+/ { print $2; exit }'; }
entry_values() {
	local s out=
	for s in "${entry_slots[@]}"; do out="$out $("$dump" "$archive" "$s" | first_value)"; done
	echo $out
}
# The entry text with every part's first keyframe value set to $1.
entry_with() {
	awk -v v="$1" '/^part / { p = 1 } p && /^ +[0-9]+ +-?[0-9]+/ {
		sub(/^ *[0-9]+ +-?[0-9]+/, sprintf("%8d %7d", $1, v)); p = 0 } { print }' "$work/entry.txt"
}

lost=0 torn=0 hung=0 acked_n=0 entry_rounds=0 value=$(value_of) keys=$keys0
values=$(entry_values)
for round in $(seq "$rounds"); do
	"$mount_bin" -o rules=off "$archive" "$mnt" || { not_ok "round $round: remount"; break; }
	pid=$(daemon_pid "$mnt")
	rm -f "$work/acked"
	pick=$((RANDOM % 4))
	if [ "$pick" -eq 1 ]; then
		want=$((RANDOM % 30000))
		entry_with "$want" >"$work/entry-new.txt"
		(cp "$work/entry-new.txt" "$mnt/$entry" 2>/dev/null && touch "$work/acked") &
		kind=entry want_values="$want $want $want"
		entry_rounds=$((entry_rounds + 1))
	elif [ "$pick" -eq 0 ]; then
		want_keys=$([ "$keys" = "$keys0" ] && echo "$keys1" || echo "$keys0")
		src=$([ "$want_keys" = "$keys1" ] && echo grow1 || echo grow0)
		(cp "$work/$src.txt" "$mnt/$grow" 2>/dev/null && touch "$work/acked") &
		kind=grow
	else
		want=$((RANDOM % 30000))
		(sed -i "${L}s/^\\( *[0-9]* *\\)-\\{0,1\\}[0-9]*/\\1$want/" "$mnt/$small" 2>/dev/null &&
			touch "$work/acked") &
		kind=value
	fi
	op=$!
	sleep "0.0$((RANDOM % 60))"
	kill -9 "$pid" 2>/dev/null
	# Its lock is the archive's until it is gone: remounting sooner would
	# be refused, as a second writer.
	exited "$pid" || { not_ok "round $round: the killed driver did not exit"; break; }
	# The operation must end (with an error) once the driver is gone.
	for _ in $(seq 100); do kill -0 "$op" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$op" 2>/dev/null; then
		hung=$((hung + 1)); not_ok "round $round: an operation hung after the driver died"
		abort_mount "$mnt"
	fi
	wait "$op"
	fusermount3 -u -z "$mnt" 2>/dev/null
	# Remount: recovery runs; then the archive as on disk.
	"$mount_bin" "$archive" "$mnt" 2>/dev/null && unmount "$mnt"
	if ! "$dump" --check "$archive" >"$work/check" 2>&1; then
		torn=$((torn + 1))
		not_ok "round $round: the archive does not decode"; cat "$work/check"
		break
	fi
	now_value=$(value_of) now_keys=$(keys_of) now_values=$(entry_values)
	[ -f "$work/acked" ] && acked_n=$((acked_n + 1))
	if [ "$kind" = entry ]; then
		if [ -f "$work/acked" ] && [ "$now_values" != "$want_values" ]; then
			lost=$((lost + 1)); not_ok "round $round: acknowledged entry ($want_values) lost ($now_values)"
		elif [ "$now_values" != "$want_values" ] && [ "$now_values" != "$values" ]; then
			torn=$((torn + 1))
			not_ok "round $round: entry parts $now_values are neither all old ($values) nor all new"
		fi
	elif [ "$kind" = value ]; then
		if [ -f "$work/acked" ] && [ "$now_value" != "$want" ]; then
			lost=$((lost + 1)); not_ok "round $round: acknowledged value $want lost ($now_value)"
		elif [ "$now_value" != "$want" ] && [ "$now_value" != "$value" ]; then
			torn=$((torn + 1)); not_ok "round $round: value $now_value is neither old nor new"
		fi
	else
		if [ -f "$work/acked" ] && [ "$now_keys" != "$want_keys" ]; then
			lost=$((lost + 1)); not_ok "round $round: acknowledged growth lost"
		elif [ "$now_keys" != "$want_keys" ] && [ "$now_keys" != "$keys" ]; then
			torn=$((torn + 1)); not_ok "round $round: clip neither old nor new"
		fi
	fi
	value=$now_value keys=$now_keys values=$now_values
	[ -e "$archive.mhfu-journal" ] || [ -e "$archive.mhfu-new" ] && {
		torn=$((torn + 1)); not_ok "round $round: a sidecar file was left after recovery"; }
done
[ "$lost" -eq 0 ] && [ "$torn" -eq 0 ] && [ "$hung" -eq 0 ] &&
	ok "$rounds kill -9 rounds: $acked_n acknowledged commits, none lost, no partial entry"
[ "$entry_rounds" -gt 0 ] && [ "$lost" -eq 0 ] && [ "$torn" -eq 0 ] &&
	ok "$entry_rounds of them wrote an entry: its three parts all new or all old"

# A torn journal: discarded, the archive untouched.  (The record of the
# rounds above is dropped: the log must hold this mount's lines only.)
cp "$sample/DATA.BIN" "$archive"
rm -rf "$XDG_STATE_HOME"
printf 'MHFUJNL1\001\000\000\000garbage' >"$archive.mhfu-journal"
if "$mount_bin" "$archive" "$mnt" && grep -q 'discarded an incomplete journal' "$mnt/.mhfu/log" &&
	unmount "$mnt" && cmp "$sample/DATA.BIN" "$archive" && [ ! -e "$archive.mhfu-journal" ]; then
	ok "a torn journal is discarded and the archive left as it was"
else
	not_ok "a torn journal is discarded and the archive left as it was"
fi
# A leftover rewrite: removed.
echo partial >"$archive.mhfu-new"
if "$mount_bin" "$archive" "$mnt" && unmount "$mnt" && [ ! -e "$archive.mhfu-new" ] &&
	cmp "$sample/DATA.BIN" "$archive"; then
	ok "an unfinished rewrite is removed at mount"
else
	not_ok "an unfinished rewrite is removed at mount"
fi

# A full disk and a read-only filesystem (needs root for tmpfs).
tmpfs=$work/small
mkdir -p "$tmpfs"
if mount -t tmpfs -o size=24m tmpfs "$tmpfs" 2>/dev/null; then
	cp "$sample/DATA.BIN" "$tmpfs/DATA.BIN"
	head -c $((24 * 1048576 - $(stat -c %s "$tmpfs/DATA.BIN") - 65536)) /dev/zero >"$tmpfs/filler" 2>/dev/null
	"$mount_bin" "$tmpfs/DATA.BIN" "$mnt"
	before=$(md5sum <"$tmpfs/DATA.BIN")
	if ! cp "$work/grow1.txt" "$mnt/$grow" 2>/dev/null && [ "$(md5sum <"$tmpfs/DATA.BIN")" = "$before" ] &&
		[ ! -e "$tmpfs/DATA.BIN.mhfu-new" ] && grep -q 'No space left' "$mnt/.mhfu/log"; then
		ok "a full disk refuses a growing commit, archive unchanged, no sidecar left"
	else
		not_ok "a full disk refuses a growing commit, archive unchanged, no sidecar left"; cat "$mnt/.mhfu/log"
	fi
	unmount "$mnt"
	rm -f "$tmpfs/filler"
	mount -o remount,ro "$tmpfs"
	if "$mount_bin" "$tmpfs/DATA.BIN" "$mnt" && grep -q 'read-only' "$mnt/.mhfu/info" &&
		! bash -c "echo '# x' >>'$mnt/$small'" 2>/dev/null; then
		ok "a read-only backing file gives a read-only mount (EROFS)"
	else
		not_ok "a read-only backing file gives a read-only mount (EROFS)"
	fi
	unmount "$mnt"
	umount "$tmpfs"
else
	skip "full disk and read-only filesystem" "cannot mount tmpfs"
fi

printf '\n| crash figure | value |\n|---|---|\n'
printf '| kill -9 rounds | %s |\n| of them entry writes | %s |\n| acknowledged commits | %s |\n| acknowledged commits lost | %s |\n| torn entries | %s |\n| operations hung | %s |\n' \
	"$rounds" "$entry_rounds" "$acked_n" "$lost" "$torn" "$hung"
finish
