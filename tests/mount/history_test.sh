#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# History and undo, the original tree, changed.tsv, export/ and by-name/:
# real programs edit a real mount of the sample (sed -i, dd), then
# .mhfu/history lists the commits, `echo ID > .mhfu/undo` undoes them
# (and an undo's undo), across unmount and remount, within the bounds;
# every outcome is checked on the backing DATA.BIN with mhfudump or cmp
# against the sample.  diff -r and git diff --no-index between
# .mhfu/original/ and the live tree show the edited lines; export/'s
# files are checked byte by byte against the loaders' layouts (python);
# a growth commit with too little room says how much (a small tmpfs, as
# root); a long one shows its progress in .mhfu/info, and a commit that
# fails or crashes at any I/O call is in the history exactly when it is
# in the archive (with the fault shim, plain builds only).
#
#   bash tests/mount/history_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY [FAULTIO_SO]
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
shim=${4:+$(realpath "$4")}
work=$(mktemp -d -t mhfu-history-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
clip=file_06185/3/stream2/slot024.txt   # the Tigrex's head clip, unshared
small=
trap '[ -n "$small" ] && mountpoint -q "$small" && umount -l "$small"; leave "$mnt"' EXIT
mkdir -p "$mnt"

# fresh [options]: a pristine copy of the sample, mounted, no record.
fresh() {
	unmount "$mnt"
	rm -rf "$XDG_STATE_HOME"
	cp "$sample/DATA.BIN" "$archive"
	"$mount_bin" "$@" "$archive" "$mnt"
}
remount() { unmount "$mnt" && "$mount_bin" "$@" "$archive" "$mnt"; }
on_disk() { "$dump" "$archive" "$1"; }
# A column of .mhfu/history's line for commit ID.
commit_field() { awk -F'\t' -v id="$1" -v f="$2" '$1 == id { print $f }' "$mnt/.mhfu/history"; }
commits() { grep -vc '^#' "$mnt/.mhfu/history"; }

"$dump" "$sample/DATA.BIN" "$clip" >"$work/clip.txt"
L=$(grep -n -m1 -A1 '^channel rot_x' "$work/clip.txt" | tail -1 | cut -d- -f1)
old_line=$(sed -n "${L}p" "$work/clip.txt")

# --- history and undo -----------------------------------------------------
fresh
check "a fresh archive has an empty history" bash -c "
	test \$(grep -vc '^#' '$mnt/.mhfu/history') = 0 && head -1 '$mnt/.mhfu/history' | grep -q '^# id'"
sed -i "${L}s/^\( *[0-9]* *\)-\{0,1\}[0-9]*/\11111/" "$mnt/$clip"
on_disk file_06185.pac >"$work/after1.pac"
new_line=$(on_disk "$clip" | sed -n "${L}p")   # as the mount prints it
check "sed -i commits (commit 1): the edit is in DATA.BIN" bash -c "
	test \"\$(echo '$new_line' | awk '{ print \$1, \$2, \$3, \$4 }')\" = \"\$(echo '$old_line' | awk '{ print \$1, 1111, \$3, \$4 }')\""
check ".mhfu/history lists commit 1: time, entry, view, sizes, no undo, no warnings" bash -c "
	line=\$(grep -v '^#' '$mnt/.mhfu/history'); echo \"\$line\"
	echo \"\$line\" | grep -Eq \$'^1\\t20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z\\tfile_06185.pac\\t$clip\\t[0-9]+\\t[0-9]+\\t-\\t-\$'"
check "the log names the commit's id" grep -q "$clip: committed (.*) as commit 1\$" "$mnt/.mhfu/log"
printf 'MHFU' | dd of="$mnt/file_00010.bin" bs=1 seek=100 conv=notrunc status=none
check "dd conv=notrunc commits (commit 2) on another entry" bash -c "
	test \"\$(commit_field 2 3)\" = file_00010.bin && '$dump' '$archive' file_00010.bin | cmp -s - '$sample/src/file_00010.bin'; test \$? = 1" 
check "echo 1 > .mhfu/undo puts file_06185 back as the sample has it, file_00010 stays edited" bash -c "
	echo 1 >'$mnt/.mhfu/undo' && cmp <('$dump' '$archive' file_06185.pac) '$sample/src/file_06185.pac' &&
	! cmp -s <('$dump' '$archive' file_00010.bin) '$sample/src/file_00010.bin' &&
	cmp '$mnt/file_06185.pac' '$sample/src/file_06185.pac'"
check "the undo is commit 3, undoing 1" bash -c "
	$(declare -f commit_field); mnt='$mnt'; test \"\$(commit_field 3 7)\" = 1 && test \"\$(commit_field 3 3)\" = file_06185.pac"
check "an undo of the undo (echo 3) brings commit 1's edit back, byte for byte" bash -c "
	echo 3 >'$mnt/.mhfu/undo' && cmp <('$dump' '$archive' file_06185.pac) '$work/after1.pac'"
check "an id the history has not is refused: the write fails, the log says why, nothing changes" bash -c "
	cp '$archive' '$work/before.BIN'
	! (echo 99 >'$mnt/.mhfu/undo') 2>'$work/err' && grep -q 'Invalid argument' '$work/err' &&
	grep -q '.mhfu/undo: refused: no commit 99 in .mhfu/history (it keeps 1 to 4)' '$mnt/.mhfu/log' &&
	! (echo banana >'$mnt/.mhfu/undo') 2>/dev/null && cmp '$archive' '$work/before.BIN'"
check ".mhfu/undo reads as how to use it" grep -q 'write a commit.s id' "$mnt/.mhfu/undo"

remount
check "after a remount the history still lists commits 1 to 4" bash -c "
	test \"\$(grep -v '^#' '$mnt/.mhfu/history' | cut -f1 | tr '\n' ' ')\" = '1 2 3 4 '"
check "undo across the remount: echo 2 restores file_00010, echo 4 undoes the redo: DATA.BIN is the sample's" bash -c "
	echo 2 >'$mnt/.mhfu/undo' && echo 4 >'$mnt/.mhfu/undo' && cmp '$archive' '$sample/DATA.BIN'"
check "\"last\" undoes the newest commit (the undo of 4: commit 1's edit back)" bash -c "
	echo last >'$mnt/.mhfu/undo' && cmp <('$dump' '$archive' file_06185.pac) '$work/after1.pac'"
check "the record keeps each commit's file and each changed entry's original" bash -c "
	dir=\$(awk -F'\t' '\$1 == \"record\" { print \$2 }' '$mnt/.mhfu/info')
	test \$(ls \"\$dir/history\" | wc -l) = 7 && test \"\$(ls \"\$dir/original\" | tr '\n' ' ')\" = '00011 06186 '"
check "an undo on a read-only mount fails with EROFS" bash -c "
	$(declare -f remount unmount daemon_pid exited running); mount_bin='$mount_bin' archive='$archive' mnt='$mnt'
	remount -o ro && ! (echo 1 >'$mnt/.mhfu/undo') 2>'$work/err'; grep -q 'Read-only' '$work/err'"
remount

# --- the original tree, changed.tsv ---------------------------------------
printf 'MHFU' | dd of="$mnt/file_00010.bin" bs=1 seek=100 conv=notrunc status=none
orig=$mnt/.mhfu/original
check ".mhfu/original/ lists the changed entries as the root does (file and folder)" bash -c "
	test \"\$(ls '$orig' | tr '\n' ' ')\" = 'file_00010.bin file_06185 file_06185.pac '"
check "the original raw entries are the sample's, byte for byte" bash -c "
	cmp '$orig/file_06185.pac' '$sample/src/file_06185.pac' && cmp '$orig/file_00010.bin' '$sample/src/file_00010.bin'"
check "diff of the clip between original/ and the live tree is exactly the edited line" bash -c "
	diff '$orig/$clip' '$mnt/$clip' >'$work/diff'; test \$? = 1 &&
	printf '%sc%s\n< %s\n---\n> %s\n' $L $L '$old_line' '$new_line' | cmp - '$work/diff'"
oldv=$(echo "$old_line" | awk '{ print $2 }')
check "diff -r: only the edited clip's views differ; every changed text line is the edit's" bash -c "
	diff -r -q '$orig/file_06185' '$mnt/file_06185' | sed 's/^Files //; s/ and .*//; s|^$orig/file_06185/||' >'$work/files'
	cat '$work/files'
	! grep -Ev '^(3\.anim|3/stream2/slot024\.(txt|bin|svg)|3/entries/entry[0-9]+\.(txt|svg)|model\.glb)\$' '$work/files' &&
	grep -qx '3/stream2/slot024.txt' '$work/files' &&
	diff -r --exclude='*.svg' --exclude='*.glb' --exclude='*.bin' '$orig/file_06185' '$mnt/file_06185' >'$work/d'
	grep -q '^<' '$work/d' && ! grep '^<' '$work/d' | grep -v -- ' $oldv ' && ! grep '^>' '$work/d' | grep -v ' 1111 '"
if have git; then
	check "git diff --no-index shows the edited line, -$old_line +$new_line" bash -c "
		cd '$work' && git diff --no-index -U0 '$orig/$clip' '$mnt/$clip' >'$work/gdiff'; test \$? = 1 &&
		test \"\$(grep -c '^[-+][^-+]' '$work/gdiff')\" = 2 &&
		grep -qx -- '-$old_line' '$work/gdiff' && grep -qx -- '+$new_line' '$work/gdiff'"
else
	skip "git diff --no-index shows the edited line" "git is not installed"
fi
check "the original tree is read-only: no write, no new file, no removal" bash -c "
	! (echo x >>'$orig/$clip') 2>/dev/null && ! touch '$orig/file_06185/new' 2>/dev/null &&
	! rm '$orig/$clip' 2>/dev/null && ! touch '$orig/x' 2>/dev/null &&
	cmp '$orig/file_06185.pac' '$sample/src/file_06185.pac'"
check "original/ has inode numbers of its own" bash -c "
	test \$(stat -c %i '$orig/file_06185.pac') != \$(stat -c %i '$mnt/file_06185.pac') &&
	test \$(stat -c %i '$orig/$clip') != \$(stat -c %i '$mnt/$clip')"
check "changed.tsv lists the two entries that differ, with their sizes and last commits" bash -c "
	cat '$mnt/.mhfu/changed.tsv'
	test \"\$(grep -v '^#' '$mnt/.mhfu/changed.tsv' | cut -f1,2,5 | tr '\t\n' ', ')\" = 'file_00010.bin,11,8 file_06185.pac,6186,7 '"

# --- export/ ----------------------------------------------------------------
fu=$mnt/.mhfu/export/NATIVEPSP
check "export/NATIVEPSP lists FILE.BIN and the changed entries' engine ids (MHFU: no P3rdML)" bash -c "
	test \"\$(ls '$fu' | tr '\n' ' ')\" = '0011 6186 FILE.BIN ' && test ! -e '$mnt/.mhfu/export/P3rdML'"
check "NATIVEPSP/NNNN is u32 size then the entry's bytes; FILE.BIN marks exactly ids 11 and 6186" python3 -c "
import struct, subprocess, sys
def entry(name):
    return subprocess.run(['$dump', '$archive', name], check=True, capture_output=True).stdout
for n, name in ((11, 'file_00010.bin'), (6186, 'file_06185.pac')):
    f = open('$fu/%04d' % n, 'rb').read()
    want = entry(name)
    if struct.unpack('<I', f[:4])[0] != len(want) or f[4:] != want:
        sys.exit('%04d is not u32 size + the entry' % n)
bits = open('$fu/FILE.BIN', 'rb').read()
marked = [i for i in range(len(bits) * 8) if bits[i // 8] >> (i % 8) & 1]
sys.exit(0 if len(bits) == (6656 + 7) // 8 and marked == [11, 6186] else 'FILE.BIN: %d bytes, %s' % (len(bits), marked))"
check "cp -r ships the mod: the copy is the same as the tree" bash -c "
	cp -r '$fu' '$work/psp' && diff -r '$fu' '$work/psp'"
check "an entry edited back to its original leaves changed.tsv and export/" bash -c "
	! cmp -s '$mnt/file_00010.bin' '$sample/src/file_00010.bin' &&
	dd if='$sample/src/file_00010.bin' of='$mnt/file_00010.bin' bs=1 skip=100 seek=100 count=4 conv=notrunc status=none &&
	! grep -q file_00010 '$mnt/.mhfu/changed.tsv' && test \"\$(ls '$fu' | tr '\n' ' ')\" = '6186 FILE.BIN ' &&
	test -e '$orig/file_00010.bin'"

# --- rule warnings, bounds -------------------------------------------------
fresh -o rules=warn
awk '/^track 1/ { print "track 1 mask 0x1000"; next } 1' "$work/clip.txt" >"$work/mask.txt"
cp "$work/mask.txt" "$mnt/$clip"
check "a commit's rule warnings are in its history line" bash -c "
	$(declare -f commit_field); mnt='$mnt'; commit_field 1 8 | grep -q '^TRACK_MASK '"
fresh -o history=3
for v in 11 12 13 14 15; do
	printf '%s' "$v" | dd of="$mnt/file_00010.bin" bs=1 seek=200 conv=notrunc status=none
done
check "-o history=3: five commits, the newest three kept, on disk too" bash -c "
	test \"\$(grep -v '^#' '$mnt/.mhfu/history' | cut -f1 | tr '\n' ' ')\" = '3 4 5 ' &&
	dir=\$(awk -F'\t' '\$1 == \"record\" { print \$2 }' '$mnt/.mhfu/info') &&
	test \"\$(ls \"\$dir/history\" | tr '\n' ' ')\" = '000000000003 000000000004 000000000005 '"
check "a dropped commit cannot be undone; the oldest kept can (back to commit 2's 12)" bash -c "
	! (echo 2 >'$mnt/.mhfu/undo') 2>/dev/null && grep -q 'no commit 2 in .mhfu/history (it keeps 3 to 5)' '$mnt/.mhfu/log' &&
	echo 3 >'$mnt/.mhfu/undo' && '$dump' '$archive' file_00010.bin | dd bs=1 skip=200 count=2 status=none | grep -qx 12"
check "the original outlives the bounds: original/ still has the sample's bytes" \
	cmp "$mnt/.mhfu/original/file_00010.bin" "$sample/src/file_00010.bin"
check "-o history=0 is refused (exit 1, one line)" bash -c "
	'$mount_bin' -o history=0 '$archive' '$work' 2>'$work/err'; test \$? = 1 && test \$(wc -l <'$work/err') = 1 &&
	grep -q 'history=0: expected a whole number of commits from 1 to 1000000' '$work/err'"

# --- by-name/ ---------------------------------------------------------------
fresh
check "by-name/ links the sample's model PACs and movesets, and no other name" bash -c "
	ls -l '$mnt/by-name' | awk 'NR > 1 { print \$9, \$11 }' >'$work/links'; cat '$work/links'
	printf '%s\n' 'gypceros ../file_06130' 'gypceros-moveset ../file_06130/3' 'rathalos ../file_06121' \
		'rathalos-moveset ../file_06121/3' 'rathian ../file_06111' 'rathian-moveset ../file_06111/3' \
		'tigrex ../file_06185' 'tigrex-moveset ../file_06185/3' | cmp - '$work/links'"
check "the links resolve: by-name/tigrex is the Tigrex's folder, tigrex-moveset its pack" bash -c "
	cmp '$mnt/by-name/tigrex/0/skeleton.txt' '$mnt/file_06185/0/skeleton.txt' &&
	cmp '$mnt/by-name/tigrex-moveset/pack.txt' '$mnt/file_06185/3/pack.txt' &&
	test \"\$(readlink '$mnt/by-name/tigrex')\" = ../file_06185"
check "a listed monster whose entry is no model has no link (fatalis, file_06112)" bash -c "
	test ! -e '$mnt/by-name/fatalis' && test ! -L '$mnt/by-name/fatalis'"
check "by-name/ is read-only" bash -c "! touch '$mnt/by-name/x' 2>/dev/null && ! rm '$mnt/by-name/tigrex' 2>/dev/null"

# --- MHP3rd: P3rdML/files/, by-name from the game's list ----------------------
unmount "$mnt"
rm -rf "$XDG_STATE_HOME"
cp "$sample/DATA.plain.BIN" "$work/p3.BIN"
"$mount_bin" -o game=mhp3rd "$work/p3.BIN" "$mnt"
printf 'P3RD' | dd of="$mnt/file_00010.bin" bs=1 seek=100 conv=notrunc status=none
p3=$mnt/.mhfu/export/P3rdML/files
check "MHP3rd: export/P3rdML/files/ names the changed entries in upper-case hex; no NATIVEPSP" bash -c "
	ls '$p3'; test \"\$(ls '$p3' | tr '\n' ' ')\" = '000B ' && test ! -e '$mnt/.mhfu/export/NATIVEPSP'"
check "MHP3rd: P3rdML/files/000B is the entry's bytes as they are" bash -c "
	cmp '$p3/000B' <('$dump' '$work/p3.BIN' file_00010.bin) && grep -q P3RD '$p3/000B'"
check "MHP3rd: by-name/brute-tigrex links the model PAC, brute-tigrex-moveset the moveset two on" bash -c "
	test \"\$(readlink '$mnt/by-name/brute-tigrex')\" = ../file_05248 &&
	test \"\$(readlink '$mnt/by-name/brute-tigrex-moveset')\" = ../file_05250 &&
	test -f '$mnt/by-name/brute-tigrex-moveset/pack.txt' && test ! -e '$mnt/by-name/tigrex'"
unmount "$mnt"

# --- a single PAC -------------------------------------------------------------
rm -rf "$XDG_STATE_HOME"
cp "$sample/src/file_06185.pac" "$work/tigrex.pac"
"$mount_bin" "$work/tigrex.pac" "$mnt"
pclip=${clip#file_06185/}
sed -i "${L}s/^\( *[0-9]* *\)-\{0,1\}[0-9]*/\11111/" "$mnt/$pclip"
check "a single PAC: the history names the PAC by its file name" bash -c "
	$(declare -f commit_field); mnt='$mnt'
	test \"\$(commit_field 1 3)\" = tigrex.pac && test \"\$(commit_field 1 4)\" = '$pclip'"
check "a single PAC: .mhfu/original/ is the PAC's folder as it was, so diff -r against the root shows the edit" bash -c "
	diff -r -q '$mnt/.mhfu/original' '$mnt' >'$work/files'; cat '$work/files'
	grep -qx 'Only in $mnt: .mhfu' '$work/files' && grep -q 'original/$pclip and' '$work/files' &&
	test -f '$mnt/.mhfu/original/check.txt' && cmp '$mnt/.mhfu/original/0.skeleton' '$sample/src/file_06185/0.skeleton' &&
	! grep -q skeleton '$work/files'"
check "a single PAC: no export/, no by-name/; echo 1 > .mhfu/undo gives back the file, byte for byte" bash -c "
	test ! -e '$mnt/.mhfu/export' && test ! -e '$mnt/by-name' &&
	echo 1 >'$mnt/.mhfu/undo' && cmp '$work/tigrex.pac' '$sample/src/file_06185.pac'"
unmount "$mnt"

# --- a growth commit: the room it needs, its progress -----------------------
# A clip of the Tigrex grown: its entry is near the end, so the entries
# after it are shifted in place (the archive keeps its inode: no new file
# is renamed over it).  An early raw entry grown moves nearly the whole
# archive: a rewrite, which needs room and shows its progress.
"$dump" "$sample/DATA.BIN" "$clip" >"$work/old.txt"
with_frames 1500 "$work/old.txt" >"$work/grow.txt"
cp "$sample/DATA.BIN" "$archive"
rm -rf "$XDG_STATE_HOME"
inode=$(stat -c %i "$archive")
"$mount_bin" "$archive" "$mnt"
cp "$work/grow.txt" "$mnt/$clip"
unmount "$mnt"
check "a growth near the end shifts the tail in place: the archive keeps its inode, the clip lands, every entry decodes" bash -c "
	test \$(stat -c %i '$archive') = $inode && test ! -e '$archive.mhfu-journal' &&
	test \$('$dump' '$archive' '$clip' | wc -l) -gt 1500 && '$dump' --check '$archive' >/dev/null"
early=file_00010.bin
{ cat "$sample/src/$early"; head -c 65536 /dev/urandom; } >"$work/grow.bin"
if [ "$(id -u)" = 0 ] && mkdir -p "$work/small" && mount -t tmpfs -o size=30m tmpfs "$work/small"; then
	small=$work/small
	cp "$sample/DATA.BIN" "$small/DATA.BIN"
	"$mount_bin" "$small/DATA.BIN" "$mnt"
	check "a growth commit with too little room fails with ENOSPC before writing, saying how much" bash -c "
		! cp '$work/grow.bin' '$mnt/$early' 2>'$work/err' && grep -q 'No space left' '$work/err' &&
		grep -Eq 'No space left for a new archive: this commit moves entries, so it needs [0-9]+ bytes \\([0-9.]+ MiB\\) beside the old one, and [0-9]+ bytes \\([0-9.]+ MiB\\) are free: free [0-9.]+ MiB more' '$mnt/.mhfu/log' &&
		cmp '$small/DATA.BIN' '$sample/DATA.BIN' && test ! -e '$small/DATA.BIN.mhfu-new' &&
		test \$(grep -vc '^#' '$mnt/.mhfu/history') = 0"
	unmount "$mnt"
	umount "$small" && small=
else
	skip "a growth commit with too little room fails with ENOSPC before writing" "needs root for a small tmpfs"
fi

if [ -z "$shim" ]; then
	skip "a growth commit shows its progress in .mhfu/info" "no fault shim (sanitizer build)"
	skip "a rewrite whose reads of the old archive fail is refused, the log naming the read" "no fault shim"
	skip "a commit failed at any I/O call is in the history exactly when it is in the archive" "no fault shim"
	skip "a crash between the history and the journal leaves neither" "no fault shim"
	skip "a crash after the journal leaves both" "no fault shim"
	finish
	exit
fi

# The shim holds the rewrite's large writes while $work/hold exists.
rm -rf "$XDG_STATE_HOME"
cp "$sample/DATA.BIN" "$archive"
touch "$work/hold"
LD_PRELOAD=$shim MHFU_STALL_WHILE=$work/hold MHFU_STALL_MIN=1048576 "$mount_bin" "$archive" "$mnt"
cp "$work/grow.bin" "$mnt/$early" 2>"$work/cp.err" &
cp_pid=$!
# Held at the first large write past the moved entry: by then its end is written.
for _ in $(seq 200); do grep -q '^commit.rewriting the archive: [1-9]' "$mnt/.mhfu/info" && break; sleep 0.05; done
grep '^commit' "$mnt/.mhfu/info" >"$work/progress"
rm -f "$work/hold"
wait "$cp_pid"; cp_rc=$?
check "while a growth commit runs, .mhfu/info answers with its progress" bash -c "
	cat '$work/progress'; total=\$(stat -c %s '$archive')
	grep -Eqx \"commit\"\$'\\t'\"rewriting the archive: [1-9][0-9]* of \$total bytes \\([0-9]+%\\)\" '$work/progress'"
check "  then the commit lands, and info says none runs" bash -c "
	test $cp_rc = 0 && grep -qx 'commit'\$'\\t''none running' '$mnt/.mhfu/info' &&
	'$dump' '$archive' '$early' | cmp -n \$(stat -c %s '$work/grow.bin') - '$work/grow.bin'"
unmount "$mnt"

# The same rewrite held, then the old archive's reads failing as it goes
# on: the commit is refused, the log saying which read failed and where.
cp "$sample/DATA.BIN" "$archive"
rm -f "$work/reads-fail"
touch "$work/hold"
LD_PRELOAD=$shim MHFU_STALL_WHILE=$work/hold MHFU_STALL_MIN=1048576 \
	MHFU_FAIL_READS_WHILE=$work/reads-fail "$mount_bin" "$archive" "$mnt"
cp "$work/grow.bin" "$mnt/$early" 2>"$work/cp.err" &
cp_pid=$!
for _ in $(seq 200); do grep -q '^commit.rewriting the archive: [1-9]' "$mnt/.mhfu/info" && break; sleep 0.05; done
touch "$work/reads-fail"
rm -f "$work/hold"
wait "$cp_pid"; cp_rc=$?
rm -f "$work/reads-fail"
check "a rewrite whose reads of the old archive fail is refused, the log naming the read and its offset; the archive stays as it was" bash -c "
	test $cp_rc != 0 && grep -q 'Input/output error' '$work/cp.err' &&
	grep -Eq 'reading $archive at byte [0-9]+: Input/output error' '$mnt/.mhfu/log' &&
	cmp '$archive' '$sample/DATA.BIN' && test ! -e '$archive.mhfu-new'"
unmount "$mnt"

# A same-size commit under the shim failing its call N, the driver then
# killed: after a remount the history lists the commit exactly when the
# archive holds it.  Sets landed and listed.
awk -v n="$L" 'NR == n { $2 = 1234 } 1' "$work/clip.txt" >"$work/same.txt"
fail_then_kill() {
	cp "$sample/DATA.BIN" "$archive"
	rm -rf "$XDG_STATE_HOME" "$work/fired" "$work/count"
	LD_PRELOAD=$shim MHFU_FAIL_AT=$1 MHFU_FAULT_MARK=$work/fired MHFU_COUNT_TO=$work/count \
		"$mount_bin" "$archive" "$mnt" 2>/dev/null
	local pid
	pid=$(daemon_pid "$mnt")
	cp "$work/same.txt" "$mnt/$clip" 2>/dev/null
	kill -9 "$pid"
	exited "$pid" >/dev/null
	fusermount3 -u -z "$mnt"
	"$mount_bin" "$archive" "$mnt" 2>/dev/null
	landed=0 listed=0
	[ "$(on_disk "$clip" | sed -n "${L}p" | awk '{ print $2 }')" = 1234 ] && landed=1
	[ "$(commits)" = 1 ] && listed=1
	unmount "$mnt"
}
# The calls of a whole commit, counted at a clean unmount.
cp "$sample/DATA.BIN" "$archive"
rm -rf "$XDG_STATE_HOME"
LD_PRELOAD=$shim MHFU_FAIL_AT=0 MHFU_COUNT_TO=$work/count "$mount_bin" "$archive" "$mnt"
cp "$work/same.txt" "$mnt/$clip"
unmount "$mnt"
total=$(cat "$work/count")
bad=0 both=0 neither=0
for n in $(seq "$total"); do
	fail_then_kill "$n"
	[ "$landed" = "$listed" ] || { echo "  call $n of $total failed: landed $landed, listed $listed"; bad=$((bad + 1)); }
	[ "$landed" = 1 ] && both=$((both + 1))
	[ "$landed" = 0 ] && neither=$((neither + 1))
done
if [ "$bad" = 0 ] && [ "$neither" -gt 0 ] && [ "$total" -gt 5 ]; then
	ok "a commit failed at any of its $total I/O calls is in the history exactly when it is in the archive ($both landed, $neither not)"
else
	not_ok "a commit failed at any of its $total I/O calls is in the history exactly when it is in the archive"
fi

# crash_at SKIP WAIT_FOR: the commit held at its write SKIP+1 (0: the
# journal's, 1: the archive's) once WAIT_FOR exists, then the driver is
# killed and the archive remounted; sets landed and listed.
crash_at() {
	cp "$sample/DATA.BIN" "$archive"
	rm -rf "$XDG_STATE_HOME"
	touch "$work/hold"
	LD_PRELOAD=$shim MHFU_STALL_WHILE=$work/hold MHFU_STALL_SKIP=$1 "$mount_bin" "$archive" "$mnt"
	local pid f
	pid=$(daemon_pid "$mnt")
	cp "$work/same.txt" "$mnt/$clip" 2>/dev/null &
	for _ in $(seq 200); do
		f=$(eval echo "$2")
		[ -s "$f" ] && break
		sleep 0.05
	done
	kill -9 "$pid"
	exited "$pid" >/dev/null
	rm -f "$work/hold"
	wait
	fusermount3 -u -z "$mnt"
	"$mount_bin" "$archive" "$mnt" 2>/dev/null
	landed=0 listed=0
	[ "$(on_disk "$clip" | sed -n "${L}p" | awk '{ print $2 }')" = 1234 ] && landed=1
	[ "$(commits)" = 1 ] && listed=1
	unmount "$mnt"
}
crash_at 0 "\$XDG_STATE_HOME/mhfufs/*/history/000000000001"
check "a crash after the history's record, before the journal: after remount neither the archive nor the history has the commit" \
	test "$landed$listed" = 00
crash_at 1 "\$archive.mhfu-journal"
check "a crash after the journal, before the archive: the remount replays it, and the history lists it" \
	test "$landed$listed" = 11
finish
