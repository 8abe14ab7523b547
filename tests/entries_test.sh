#!/usr/bin/env bash
# Executor entries (entries/entryNNN.txt, mhfu-clip(5) "ENTRIES") edited
# through a real mount: a write splits into the parts' slots in one
# commit, shared clips are copied on write as the slot files do, and a
# refused write (a syntax error in the last part, a rule broken in one
# part) leaves every byte of the archive as it was.  The slots are read
# back from the archive file by mhfudump, outside the mount.
#
#   bash tests/entries_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d "${TMPDIR:-/tmp}/mhfu-entries-test.XXXXXX")
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
pack=file_06185/3
entries=$mnt/$pack/entries

trap 'leave "$mnt"' EXIT

slot() { "$dump" "$archive" "$pack/stream$1/slot$2.txt"; }
commits() { awk -F'\t' '$1 == "commits" { print $2 }' "$mnt/.mhfu/info"; }
# The first keyframe line of part $1's section of an entry text.
first_key_of_part() {
	awk -v part="part $1" '$1 " " $2 == part { p = 1 } p && /^ +[0-9]+ +-?[0-9]+/ { print NR; exit }' "$2"
}

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
check "mount a copy of the sample" "$mount_bin" "$archive" "$mnt"

check "entries/ lists the entries a part plays, with index.tsv" bash -c "
	test -f '$entries/index.tsv' && test -f '$entries/entry001.txt' &&
	test -f '$entries/entry024.txt' && ! test -e '$entries/entry099.txt'"
check "entry 24 reaches the head only: parts 0 and 2 keep their clips" bash -c "
	grep -qx 'part 0 keeps its clip *# stream 0 slot 24 is empty' '$entries/entry024.txt' &&
	grep -q '^part 1  *# stream 2 slot 24' '$entries/entry024.txt' &&
	grep -qx 'part 2 keeps its clip *# stream 4 slot 24 is empty' '$entries/entry024.txt'"

# One keyframe of part 1 (stream 2) changed: one commit, only that slot.
for s in 0 2 4; do slot "$s" 001 >"$work/before$s.txt"; done
n=$(commits)
line=$(first_key_of_part 1 "$entries/entry001.txt")
check "sed -i changes a keyframe of part 1 of entry 1" \
	sed -i "${line}s/^\( *[0-9]* *\)-\?[0-9]*/\11234/" "$entries/entry001.txt"
check "the write was one commit" test "$(commits)" = $((n + 1))
check "stream 2 slot 1 holds the new value, in the archive file" bash -c "
	slot() { '$dump' '$archive' '$pack/stream'\$1'/slot'\$2'.txt'; }
	slot 2 001 | diff '$work/before2.txt' - | grep -q '^> .* 1234 '"
check "parts 0 and 2 are byte for byte as they were" bash -c "
	'$dump' '$archive' '$pack/stream0/slot001.txt' | cmp - '$work/before0.txt' &&
	'$dump' '$archive' '$pack/stream4/slot001.txt' | cmp - '$work/before4.txt'"
check "the entry reads back with the new value" grep -q "^ *[0-9]* *1234 " "$entries/entry001.txt"

# Entry 2 plays stream 0's slot 2, which shares slot 0's clip: writing
# it gives slot 2 a clip of its own, slot 0 keeps its own.
slot 0 000 >"$work/slot0.txt"
line=$(first_key_of_part 0 "$entries/entry002.txt")
check "stream0/slot002 is a link to slot000 before" test -L "$mnt/$pack/stream0/slot002.txt"
check "writing entry 2's part 0 copies the shared clip on write" \
	sed -i "${line}s/^\( *[0-9]* *\)-\?[0-9]*/\1777/" "$entries/entry002.txt"
# (The kernel may show the link it cached for up to a second: names are
# not invalidated by a commit, mount.mhfu(8).)
check "stream0/slot002 is a file of its own now, slot000 unchanged" bash -c "
	for i in \$(seq 30); do
		test -f '$mnt/$pack/stream0/slot002.txt' && ! test -L '$mnt/$pack/stream0/slot002.txt' && break
		sleep 0.1
	done
	! test -L '$mnt/$pack/stream0/slot002.txt' &&
	'$dump' '$archive' '$pack/stream0/slot000.txt' | cmp - '$work/slot0.txt'"

# Refusals: the archive stays byte for byte as it was.
cp "$archive" "$work/committed.BIN"
cp "$entries/entry001.txt" "$work/entry001.txt"
printf 'channel rot_q\n' >>"$work/entry001.txt"
check "a syntax error in the last part is refused (EINVAL)" bash -c "
	! cp '$work/entry001.txt' '$entries/entry001.txt' 2>'$work/err'"
check "the log names the entry's path and line" \
	grep -q "$pack/entries/entry001.txt:$(wc -l <"$work/entry001.txt"):" "$mnt/.mhfu/log"
check "no part was written" cmp "$archive" "$work/committed.BIN"
cp "$entries/entry001.txt" "$work/entry001.txt"
line=$(first_key_of_part 2 "$work/entry001.txt")
sed -i "${line}s/^ *[0-9]*/      -5/" "$work/entry001.txt"
check "a negative frame in part 2 is refused" bash -c "
	! cp '$work/entry001.txt' '$entries/entry001.txt' 2>/dev/null"
check "the log points at the frame's line of the entry" \
	grep -q "$pack/entries/entry001.txt:$line: NEGATIVE_FRAME" "$mnt/.mhfu/log"
check "still no part was written" cmp "$archive" "$work/committed.BIN"

check "unmount" unmount "$mnt"
check "remounted, entry 1 shows the committed edit" bash -c "
	'$mount_bin' '$archive' '$mnt' && grep -q '^ *[0-9]* *1234 ' '$entries/entry001.txt'"
finish
