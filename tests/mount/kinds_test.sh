#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kinds remembered across mounts (mount.mhfu(8) "THE RECORD"): a mount
# that listed the root leaves the record's `kinds` file, and the next
# fresh mount lists the root without reading any entry (counted by
# .mhfu/info's heads_sniffed and reads); a commit that changes an
# entry's kind is remembered too; and the file never gives a wrong name:
# an archive changed while unmounted, another game, a damaged file, each
# lists exactly as a mount without the file does.
#
#   bash tests/mount/kinds_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-kinds-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
state=$work/record
mkdir -p "$mnt"
trap 'leave "$mnt"' EXIT

info() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$mnt/.mhfu/info"; }
# listing FILE [options]: mounts the archive (its record in $state), lists
# the root into FILE, notes the reads the listing made in $work/reads
# ("sniffed READS"), unmounts.
listing() {
	local out=$1 before
	shift
	"$mount_bin" -o state="$state" "$@" "$archive" "$mnt" 2>>"$work/err" || return 1
	before=$(info reads)
	ls "$mnt" >"$out"
	echo "$(info heads_sniffed) $(($(info reads) - before))" >"$work/reads"
	unmount "$mnt"
}
# What a mount without any kinds file lists: every head read.
fresh_listing() {
	local out=$1
	shift
	rm -rf "$work/fresh"
	"$mount_bin" -o state="$work/fresh" "$@" "$archive" "$mnt" 2>>"$work/err" || return 1
	ls "$mnt" >"$out"
	unmount "$mnt"
}
read_none() { [ "$(cat "$work/reads")" = "0 0" ] || { echo "heads sniffed, reads: $(cat "$work/reads")"; return 1; }; }
read_some() { [ "$(cut -d' ' -f1 "$work/reads")" -gt 0 ] || { echo "nothing read: $(cat "$work/reads")"; return 1; }; }

cp "$sample/DATA.BIN" "$archive"
fresh_listing "$work/truth"
listing "$work/first"
check "a first mount reads every entry's head to list the root" test "$(cut -d' ' -f1 "$work/reads")" = 6656
check "and leaves the kinds file in the record" test -s "$state/kinds"
listing "$work/second"
check "a second fresh mount lists the root without reading any entry" read_none
check "with the same names" cmp "$work/truth" "$work/second"
"$mount_bin" -o state="$state" "$archive" "$mnt"
check ".mhfu/info says how many kinds came from the record" test "$(info kinds_remembered)" = 6656
unmount "$mnt"

# A commit that changes an entry's kind: file_00010 becomes hit boxes.
"$mount_bin" -o state="$state" "$archive" "$mnt"
printf 'HITS' | dd of="$mnt/file_00010.bin" conv=notrunc status=none
check "a commit that changes an entry's kind renames it at once" test -e "$mnt/file_00010.hit"
unmount "$mnt"
check "the archive holds the commit" bash -c "'$dump' '$archive' file_00010.hit | head -c 4 | grep -q HITS"
listing "$work/committed"
check "the next mount names it from the record, reading nothing" read_none
fresh_listing "$work/truth"
check "as a mount without the record does" cmp "$work/truth" "$work/committed"

# Changed while unmounted, its times put back: the change time still tells.
# (file_00010 is entry 11: its start block is the TOC's word 11.)
cp "$sample/DATA.plain.BIN" "$archive"
listing "$work/plain"
start=$(od -An -tu4 -j 44 -N 4 "$archive" | tr -d ' ')
touch -r "$archive" "$work/times"
printf 'HITS' | dd of="$archive" bs=1 seek=$((start * 2048)) conv=notrunc status=none
touch -r "$work/times" "$archive"
listing "$work/outside"
check "an archive changed outside a mount: its kinds are read again" read_some
fresh_listing "$work/truth"
check "so its names are right" bash -c "cmp '$work/truth' '$work/outside' && grep -qx file_00010.hit '$work/outside'"
listing "$work/again"
check "and remembered from then on" read_none

# A damaged file is ignored, said in the log, and written anew.
printf '\x01' | dd of="$state/kinds" bs=1 seek=200 conv=notrunc status=none
listing "$work/damaged"
check "a damaged kinds file is ignored: every kind read again" read_some
check "and the log says so" grep -q 'kinds: ignored, checksum mismatch' "$state/log"
check "names as without the record" cmp "$work/truth" "$work/damaged"
listing "$work/x"
check "and the file is written anew" read_none
head -c 100 "$state/kinds" >"$work/cut" && cp "$work/cut" "$state/kinds"
listing "$work/cut-listing"
check "so is a cut one" read_some

# In an encrypted archive another game's plain list makes other bytes
# plain: other kinds.
cp "$sample/DATA.BIN" "$archive"
listing "$work/x"
listing "$work/game" -o game=mhp3rd
check "another -o game= does not take the kinds the last mount learnt" read_some
fresh_listing "$work/truth" -o game=mhp3rd
check "and names as without the record" cmp "$work/truth" "$work/game"
listing "$work/x"
check "nor does the default game take those of -o game=" read_some

# No record on disk: the mount works, lists, keeps nothing.
check "a mount whose record is in memory lists the root all the same" bash -c "
	HOME=/proc/nowhere XDG_STATE_HOME= '$mount_bin' -o ro '$archive' '$mnt' 2>/dev/null &&
	trap \"fusermount3 -u '$mnt'\" EXIT && ls '$mnt' | cmp - '$work/x' &&
	grep -q \$'^record\tnone' '$mnt/.mhfu/info'"
unmount "$mnt"
finish
