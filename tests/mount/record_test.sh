#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The record outlives the mount: refused edits are logged and their texts
# kept on disk (in the archive's record folder), so after an unmount and a
# remount .mhfu/log still shows the refusals and .mhfu/rejected/ the texts,
# byte for byte as typed; the record stays bounded however many refusals.
#
#   bash tests/mount/record_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-record-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
# The default place: under HOME, which is the work dir's.
export HOME=$work/home
unset XDG_STATE_HOME
mkdir -p "$HOME"
mnt=$work/mnt
archive=$work/DATA.BIN
clip=file_06185/3/stream2/slot024.txt
view=$mnt/$clip

trap 'leave "$mnt"' EXIT

remount() { # remount [options]: unmount if mounted, mount the archive again
	unmount "$mnt"
	"$mount_bin" "$@" "$archive" "$mnt"
}
# The record folder of the archive in its default place.
record() { echo "$HOME"/.local/state/mhfufs/DATA.BIN-*; }
kept() { ls "$mnt/.mhfu/rejected/"; }
unchanged() { cmp "$sample/DATA.BIN" "$archive"; }

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
remount
"$dump" "$archive" "$clip" >"$work/clip.txt"
# Two refusals of one view: a syntax error, and a rule broken (TRACK_MASK).
printf 'track 0\nchannel rot_q\n' >"$work/typed1.txt"
awk '/^track 1/ { print "track 1 mask 0x1000"; next } 1' "$work/clip.txt" >"$work/typed2.txt"
check "a syntax error is refused, its text kept under .mhfu/rejected/" bash -c "
	! cp '$work/typed1.txt' '$view' 2>/dev/null && $(declare -f unchanged kept); sample='$sample' archive='$archive' mnt='$mnt'
	unchanged && test \$(kept | wc -l) = 1 && cmp '$work/typed1.txt' '$mnt/.mhfu/rejected/'\"\$(kept)\""
check "a second refusal of the same view is kept beside the first" bash -c "
	! cp '$work/typed2.txt' '$view' 2>/dev/null && $(declare -f kept); mnt='$mnt'
	test \$(kept | wc -l) = 2 && cmp '$work/typed2.txt' '$mnt/.mhfu/rejected/'\"\$(kept | tail -1)\""
check "kept texts are named by time and view" bash -c "
	ls '$mnt/.mhfu/rejected/' | grep -Ex '[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-file_06185%3%stream2%slot024\\.txt' | wc -l | grep -qx 2"

remount
check "after a remount .mhfu/log still shows both refusals" bash -c "
	grep -q 'slot024.txt:2:9: SYNTAX' '$mnt/.mhfu/log' && grep -q 'slot024.txt:[0-9]*: TRACK_MASK' '$mnt/.mhfu/log' &&
	test \$(grep -c ' mounted ' '$mnt/.mhfu/log') = 2"
check "after a remount .mhfu/rejected/ lists both texts, byte for byte as typed" bash -c "
	set -- \$(ls '$mnt/.mhfu/rejected/'); test \$# = 2 &&
	cmp '$work/typed1.txt' '$mnt/.mhfu/rejected/'\$1 && cmp '$work/typed2.txt' '$mnt/.mhfu/rejected/'\$2"
check "the record is in the documented place, named in .mhfu/info" bash -c "
	dir=\$(echo '$HOME'/.local/state/mhfufs/DATA.BIN-*); test -d \"\$dir\" &&
	test \"\$(awk -F'\\t' '\$1 == \"record\" { print \$2 }' '$mnt/.mhfu/info')\" = \"\$dir\" &&
	test \$(ls \"\$dir/rejected\" | wc -l) = 2 && grep -q 'SYNTAX' \"\$dir/log\""
check "kept texts are read-only: no write, truncate, chmod or new file" bash -c "
	f='$mnt/.mhfu/rejected/'\$(ls '$mnt/.mhfu/rejected/' | head -1)
	! bash -c \"echo x >>'\$f'\" 2>/dev/null && ! truncate -s 0 \"\$f\" 2>/dev/null && ! chmod 600 \"\$f\" 2>/dev/null &&
	! touch '$mnt/.mhfu/rejected/new' 2>/dev/null && cmp '$work/typed1.txt' \"\$f\""
check "kept texts are not renamed (EXDEV: mv copies)" python3 -c "
import errno, os, sys
d = '$mnt/.mhfu/rejected/'
first = d + sorted(os.listdir(d))[0]
for src, dst in ((first, d + 'renamed.txt'), (first, '$mnt/file_06185/3/stream2/x.txt'),
                 ('$view', d + 'slot024.txt')):
    try:
        os.rename(src, dst)
        sys.exit('renamed ' + src)
    except OSError as e:
        if e.errno != errno.EXDEV:
            sys.exit(src + ': ' + str(e))
sys.exit(len(os.listdir(d)) != 2)"
check "rm of a kept text removes it from the record" bash -c "
	dir=\$(echo '$HOME'/.local/state/mhfufs/DATA.BIN-*); first=\$(ls '$mnt/.mhfu/rejected/' | head -1)
	rm '$mnt/.mhfu/rejected/'\$first && ! test -e \"\$dir/rejected/\$first\" &&
	! ls '$mnt/.mhfu/rejected/' | grep -qx \"\$first\" && test \$(ls \"\$dir/rejected\" | wc -l) = 1"

remount -o ro
check "a read-only mount lists and reads the kept texts" bash -c "
	set -- \$(ls '$mnt/.mhfu/rejected/'); test \$# = 1 && cmp '$work/typed2.txt' '$mnt/.mhfu/rejected/'\$1 &&
	grep -q SYNTAX '$mnt/.mhfu/log'"

# --- bounds -----------------------------------------------------------------
remount
for i in $(seq 110); do
	printf '# refusal %d\ntrack 0\nchannel rot_q\n' "$i" >"$work/n.txt"
	cp "$work/n.txt" "$view" 2>/dev/null
done
check "after 110 more refusals rejected/ keeps the newest 100" bash -c "
	dir=\$(echo '$HOME'/.local/state/mhfufs/DATA.BIN-*)
	test \$(ls \"\$dir/rejected\" | wc -l) = 100 && test \$(ls '$mnt/.mhfu/rejected/' | wc -l) = 100 &&
	head -1 '$mnt/.mhfu/rejected/'\$(ls '$mnt/.mhfu/rejected/' | tail -1) | grep -qx '# refusal 110' &&
	head -1 '$mnt/.mhfu/rejected/'\$(ls '$mnt/.mhfu/rejected/' | head -1) | grep -qx '# refusal 11'"
for i in 1 2 3 4; do
	{ echo "# big $i"; yes 'track track' | head -c $((5 << 20)); } >"$work/big.txt"
	cp "$work/big.txt" "$view" 2>/dev/null
done
dir=$(record)
check "4 refused texts of 5 MiB: each keeps its first MiB, and the log says so" bash -c "
	test \$(ls '$dir/rejected' | wc -l) = 100 && test \$(cat '$dir'/rejected/* | wc -c) -le 16777216 &&
	for f in \$(ls '$mnt/.mhfu/rejected/' | tail -4); do
		test \$(stat -c %s '$mnt/.mhfu/rejected/'\$f) = 1048576 || exit 1; done &&
	head -1 '$mnt/.mhfu/rejected/'\$(ls '$mnt/.mhfu/rejected/' | tail -4 | head -1) | grep -qx '# big 1' &&
	test \$(grep -c 'the refused text is kept as .mhfu/rejected/.*, its first 1048576 of 5242888 bytes' '$mnt/.mhfu/log') = 4"
# Texts typed by hand, refused, then a storm of big refused copies: past
# the byte bound the largest go, never a typed one.
for i in 1 2 3; do
	printf '# typed by hand %d\ntrack 0\nchannel rot_q\n' "$i" >"$work/hand$i.txt"
	cp "$work/hand$i.txt" "$view" 2>/dev/null
done
head -c $((10 << 20)) /dev/urandom >"$work/huge.bin"
for i in $(seq 20); do cp "$work/huge.bin" "$view" 2>/dev/null; done
check "20 refused copies of 10 MB leave the texts typed by hand before them" bash -c "
	for i in 1 2 3; do grep -lx '# typed by hand '\$i '$mnt/.mhfu/rejected/'* | grep -q . || exit 1; done &&
	test \$(cat '$dir'/rejected/* | wc -c) -le \$((16777216 + 100 * 65536))"
unmount "$mnt"
# A log already past its bound (an older version, a hand edit): cut at once.
for i in $(seq 40000); do echo "2000-01-01T00:00:00Z filler line $i, long enough to fill the log quickly"; done >>"$dir/log"
remount
printf 'track 0\nchannel rot_q\n' >"$work/n.txt"
cp "$work/n.txt" "$view" 2>/dev/null
check "the log stays within 1 MiB, keeping its newest lines whole" bash -c "
	test \$(stat -c %s '$dir/log') -le 1048576 && grep -q 'filler line 40000,' '$mnt/.mhfu/log' &&
	! grep -q 'filler line 1,' '$mnt/.mhfu/log' && head -1 '$mnt/.mhfu/log' | grep -q '^20[0-9-]*T' &&
	tail -1 '$mnt/.mhfu/log' | grep -q 'refused text is kept'"
unmount "$mnt"

# --- scratch files left at unmount: kept, or said to be dropped -----------
left=$work/left
"$mount_bin" -o state="$left" "$archive" "$mnt"
printf 'my notes\n' >"$mnt/notes.txt"
head -c 100000 /dev/urandom >"$work/blob"
cp "$work/blob" "$mnt/file_06185/3/stream2/blob.tmp"
: >"$mnt/empty"
ln -s file_00001.bin "$mnt/lnk"
printf 'gone\n' >"$mnt/removed.txt" && rm "$mnt/removed.txt"
printf 'not a clip\n' >"$mnt/file_06185/3/stream2/slot099.txt" # refused, kept then
unmount "$mnt"
"$mount_bin" -o state="$left" "$archive" "$mnt"
check "a scratch file left at unmount is in .mhfu/rejected/ at the next mount, byte for byte" bash -c "
	cmp <(printf 'my notes\n') '$mnt'/.mhfu/rejected/*Z-notes.txt"
check "one in a model's folder too, named after its path" \
	cmp "$work/blob" "$mnt"/.mhfu/rejected/*Z-file_06185%3%stream2%blob.tmp
check "those two only: an empty file, a link and a removed file keep nothing" \
	test "$(ls "$mnt/.mhfu/rejected" | grep -vc 'slot099.txt$')" = 2
check "a new slot's refused text, still in its folder at unmount, is kept once, at its refusal" \
	test "$(ls "$mnt/.mhfu/rejected" | grep -c '^[0-9T.]*Z-file_06185%3%stream2%slot099.txt$')" = 1
check "the log says where each kept one is" bash -c "
	grep -q 'notes.txt: a scratch file (9 bytes) left at unmount is kept as .mhfu/rejected/[0-9T.]*Z-notes.txt\$' '$mnt/.mhfu/log' &&
	grep -q 'file_06185/3/stream2/blob.tmp: a scratch file (100000 bytes) left at unmount is kept as' '$mnt/.mhfu/log'"
check "and that the empty file and the link are dropped" bash -c "
	grep -q ' empty: an empty scratch file is dropped at unmount' '$mnt/.mhfu/log' &&
	grep -q ' lnk: a scratch link (to file_00001.bin) is dropped at unmount' '$mnt/.mhfu/log' &&
	! grep -q removed.txt '$mnt/.mhfu/log'"
check "then the mount's last line, unmounted, before the next mount's first" bash -c "
	tail -2 '$mnt/.mhfu/log' | cut -d' ' -f2- | diff - <(printf '%s\n' 'unmounted from $mnt' \
		'mounted $archive on $mnt, read-write')"
check "the next mount has no scratch files, and the archive is as it was" bash -c "
	test ! -e '$mnt/notes.txt' && test ! -L '$mnt/lnk' && test ! -e '$mnt/file_06185/3/stream2/blob.tmp' &&
	cmp '$sample/DATA.BIN' '$archive'"
unmount "$mnt"

# --- where the record goes ---------------------------------------------------
check "-o state=DIR keeps the record in DIR" bash -c "
	'$mount_bin' -o state='$work/elsewhere' '$archive' '$mnt' && trap \"fusermount3 -u '$mnt'\" EXIT &&
	! cp '$work/typed1.txt' '$view' 2>/dev/null && test \$(ls '$work/elsewhere/rejected' | wc -l) = 1 &&
	grep -q SYNTAX '$work/elsewhere/log' && grep -q \$'^record\t$work/elsewhere\$' '$mnt/.mhfu/info'"
check "\$XDG_STATE_HOME, when set, is the default place's base" bash -c "
	XDG_STATE_HOME='$work/xdg' '$mount_bin' '$archive' '$mnt' && trap \"fusermount3 -u '$mnt'\" EXIT &&
	! cp '$work/typed1.txt' '$view' 2>/dev/null && test \$(ls '$work'/xdg/mhfufs/DATA.BIN-*/rejected | wc -l) = 1"
check "-o state= naming a folder that cannot be made is refused (exit 1)" bash -c "
	'$mount_bin' -o state=/proc/nowhere '$archive' '$mnt' 2>'$work/err'; test \$? = 1 &&
	grep -q 'state=/proc/nowhere' '$work/err' && ! mountpoint -q '$mnt'"
check "a default place that cannot be made: mounted, with a warning, the record in memory" bash -c "
	HOME=/proc/nowhere '$mount_bin' '$archive' '$mnt' 2>'$work/err' && trap \"fusermount3 -u '$mnt'\" EXIT &&
	grep -q 'cannot be kept on disk' '$work/err' && ! cp '$work/typed1.txt' '$view' 2>/dev/null &&
	cmp '$work/typed1.txt' '$mnt/.mhfu/rejected/'\"\$(ls '$mnt/.mhfu/rejected/' | head -1)\" &&
	grep -q SYNTAX '$mnt/.mhfu/log'"

unmount "$mnt"
finish
