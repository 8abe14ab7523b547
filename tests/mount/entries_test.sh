#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Executor entries (entries/entryNNN.txt, mhfu-clip(5) "ENTRIES") edited
# through a real mount: a write splits into the parts' slots in one
# commit, shared clips are copied on write as the slot files do, and a
# refused write (a syntax error in the last part, a rule broken in one
# part) leaves every byte of the archive as it was.  The slots are read
# back from the archive file by mhfudump, outside the mount.
#
#   bash tests/mount/entries_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-entries-test.XXXXXX)
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

# --- head-only entries: the Tigrex's 24 reaches the head alone -------------------
slot 2 024 >"$work/head24.txt"
line=$(first_key_of_part 1 "$entries/entry024.txt")
check "writing entry 24 (head only) commits" \
	sed -i "${line}s/^\( *[0-9]* *\)-\?[0-9]*/\14242/" "$entries/entry024.txt"
check "stream 2 slot 24 holds the new value; streams 0 and 4 still have no slot 24" bash -c "
	'$dump' '$archive' '$pack/stream2/slot024.txt' | diff '$work/head24.txt' - | grep -q '^> .* 4242 ' &&
	! '$dump' '$archive' '$pack/stream0/slot024.txt' >/dev/null 2>&1 &&
	! '$dump' '$archive' '$pack/stream4/slot024.txt' >/dev/null 2>&1"
check "index.tsv: entry 24's parts 0 and 2 keep their clips (no length)" \
	awk -F'\t' '$1 == 24 { found = $2 == 0 && $3 == 24 && $4 == "-" && $8 != "-" && $12 == "-" }
		END { exit !found }' "$entries/index.tsv"

# --- entries 100 and up: file_06111 fills its odd streams in every part ----------
odd=file_06111/3
oddent=$mnt/$odd/entries
oddslot() { "$dump" "$archive" "$odd/stream$1/slot$2.txt"; }
check "file_06111 lists entries 100-124 (odd streams), not 20, 21 (no part plays them) or 125" bash -c "
	for e in 100 107 119 120 121 122 123 124; do test -f '$oddent/entry'\$e'.txt' || exit 1; done
	! test -e '$oddent/entry020.txt' && ! test -e '$oddent/entry021.txt' &&
	! test -e '$oddent/entry125.txt'"
check "index.tsv: 107 plays slot 7 of streams 1, 3, 5; 120 the head's alone; 123 all but the head" \
	awk -F'\t' '$1 == 107 && $2 == 1 && $3 == 7 && $6 == 3 && $7 == 7 && $10 == 5 && $11 == 7 { a = 1 }
		$1 == 120 && $4 == "-" && $8 != "-" && $12 == "-" { b = 1 }
		$1 == 123 && $4 != "-" && $8 == "-" && $12 != "-" { c = 1 }
		END { exit !(a && b && c) }' "$oddent/index.tsv"
check "entry 107's header: every part plays it, joints from the skeleton" bash -c "
	head -1 '$oddent/entry107.txt' | grep -qx '# $odd.anim entry 107: every part plays it (parts 0, 1, 2)' &&
	grep -q '^part 2  *# stream 5 slot 7, joints 34..39, ' '$oddent/entry107.txt'"
for s in 0 1 3 5; do oddslot "$s" 007 >"$work/odd$s.txt"; done
# Every part's first keyframe value to 4321, and part 0's last keyframe to
# frame 600 (its clip then runs to 600): one file, three parts' slots.
awk '/^part / { p = 1 } p && /^ +[0-9]+ +-?[0-9]+/ { sub(/^ *[0-9]+ +-?[0-9]+/, sprintf("%8d %7d", $1, 4321)); p = 0 } 1' \
	"$oddent/entry107.txt" >"$work/e107.txt"
last0=$(awk '/^part 1 / { print last; exit } /^ +[0-9]+ +-?[0-9]+/ { last = NR }' "$work/e107.txt")
sed -i "${last0}s/^ *[0-9]*/     600/" "$work/e107.txt"
n=$(commits)
check "writing entry 107 whole commits once" bash -c "
	cp '$work/e107.txt' '$oddent/entry107.txt' && test \"\$(awk -F'\t' '\$1 == \"commits\" { print \$2 }' '$mnt/.mhfu/info')\" = $((n + 1))"
check "streams 1, 3 and 5 slot 7 all hold 4321, in the archive file" bash -c "
	for s in 1 3 5; do
		'$dump' '$archive' '$odd/stream'\$s'/slot007.txt' | awk '/^ +[0-9]+ +-?[0-9]+/ { exit \$2 != 4321 }' || exit 1
	done"
check "stream 0 slot 7 (entry 7) is byte for byte as it was" bash -c "
	'$dump' '$archive' '$odd/stream0/slot007.txt' | cmp - '$work/odd0.txt'"
check "index.tsv follows the commit: part 0 of entry 107 runs to frame 600" \
	awk -F'\t' '$1 == 107 { found = $4 == 600 } END { exit !found }' "$oddent/index.tsv"
check "index.tsv's size is its length" bash -c "
	test \"\$(stat -c %s '$oddent/index.tsv')\" = \"\$(wc -c <'$oddent/index.tsv')\""
oddslot 3 020 >"$work/odd3-20.txt"
line=$(first_key_of_part 1 "$oddent/entry120.txt")
check "writing entry 120 (the head's alone, stream 3) changes stream 3 slot 20 only" bash -c "
	sed -i '${line}s/^\( *[0-9]* *\)-\?[0-9]*/\1999/' '$oddent/entry120.txt' &&
	'$dump' '$archive' '$odd/stream3/slot020.txt' | diff '$work/odd3-20.txt' - | grep -q '^> .* 999 ' &&
	! '$dump' '$archive' '$odd/stream1/slot020.txt' >/dev/null 2>&1 &&
	! '$dump' '$archive' '$odd/stream5/slot020.txt' >/dev/null 2>&1"

# --- bind_world.tsv follows a skeleton commit -----------------------------------
world=$mnt/file_06185/0/bind_world.tsv
x0=$(awk -F'\t' '$1 == 0 { print $4 }' "$world")
x1=$(awk -F'\t' '$1 == 1 { print $4 }' "$world")
awk '$1 == "0" && NF > 10 { $12 = $12 + 10 } 1' "$mnt/file_06185/0/skeleton.txt" >"$work/skel.txt"
check "a skeleton commit moving the root by 10 in x" cp "$work/skel.txt" "$mnt/file_06185/0/skeleton.txt"
check "bind_world.tsv follows: the root and its child 10 further in x, size its length" bash -c "
	awk -F'\t' -v a='$x0' -v b='$x1' '\$1 == 0 { r = \$4 == a + 10 } \$1 == 1 { c = \$4 == b + 10 }
		END { exit !(r && c) }' '$world' &&
	test \"\$(stat -c %s '$world')\" = \"\$(wc -c <'$world')\""

check "unmount" unmount "$mnt"
check "remounted, entry 1 shows the committed edit" bash -c "
	'$mount_bin' '$archive' '$mnt' && grep -q '^ *[0-9]* *1234 ' '$entries/entry001.txt'"
finish
