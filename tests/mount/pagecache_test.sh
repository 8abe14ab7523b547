#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The kernel's page cache in a read-write mount (fs/cache/inodes.h,
# fs/commit/invalidate.h): a file opened before a commit reads what it opened to
# the end, byte for byte (a text, and a raw entry whose cached pages are
# dropped midway, so that the driver serves the rest), even when a stat
# of its name waited for the commit (with the fault shim, which holds the
# commit), while a new open and a stat of the name see the commit at
# once; a second read of a view never reaches the driver (.mhfu/info's
# view_reads stays); files open on a view the driver made share its
# bytes; a slot's commit leaves the skeleton's pages cached; a writer in place and vim leave an earlier
# reader its bytes; entries read in order are stored ahead of the
# reader, but not one a writer has open; and a mount whose commits go on
# unmounts lazily, or dies by kill -9, without hanging.  What the views
# read is checked against mhfudump's reading of the archive.
#
#   bash tests/mount/pagecache_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY [FAULTIO_SO]
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
shim=${4:+$(realpath "$4")}
work=$(mktemp -d -t mhfu-pagecache-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
trap 'exec 3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-; leave "$mnt"' EXIT

fresh() {
	unmount "$mnt"
	mkdir -p "$mnt"
	cp "$sample/DATA.BIN" "$archive"
	"$mount_bin" "$@" "$archive" "$mnt"
}
info() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$mnt/.mhfu/info"; }
# info_is KEY OP VALUE: test(1) on the field as it is now, read afresh at
# each call (what eventually polls: an argument's $(...) is expanded once).
info_is() { [ "$(info "$1")" "$2" "$3" ]; }
on_disk() { "$dump" "$archive" "$1"; }
first_key() { awk '/^channel rot_x/ { f = 1; next } f && /^ *[0-9-]/ { print NR; exit }' "$1"; }
# set_value FILE LINE VALUE: sed -i (a temporary renamed over the view).
set_value() { sed -i "$2s/^\\( *[0-9]* *\\)-\\{0,1\\}[0-9]*/\\1$3/" "$1"; }
# reads_of COMMAND...: how many reads of views reached the driver while
# the command ran (its output discarded).
reads_of() {
	local before
	before=$(info view_reads)
	"$@" >/dev/null
	echo $(($(info view_reads) - before))
}
# cached FILE: a read of FILE reaches the driver not at all, once read
# (three tries: something else on the machine may drop every cache, as
# make bench does).
cached() {
	local i n
	for i in 1 2 3; do
		cat "$1" >/dev/null
		n=$(reads_of cat "$1")
		[ "$n" = 0 ] && return 0
	done
	echo "$n reads reached the driver"
	return 1
}
# The size and links of this shell's file descriptor N.
fd_stat() { stat -L -c "$2" "/proc/$$/fd/$1"; }
# same_text VIEW: the view reads what the archive holds.
same_text() { cmp <(on_disk "$1") "$mnt/$1"; }

fresh || exit 1
dir=$mnt/file_06185/3/stream2
clip=file_06185/3/stream2/slot024.txt
L=$(first_key "$dir/slot024.txt")

# --- the cache ----------------------------------------------------------------
for v in $clip file_06185/0/skeleton.txt file_06185.pac file_06185/model.glb \
	 file_06185/2/image00.png; do
	check "a second read of $v does not reach the driver" cached "$mnt/$v"
done
check "a first read reaches the driver, and .mhfu/info, never cached, says so" \
	[ "$(reads_of cat "$mnt/file_06185/1.pmo")" -gt 0 ]

# --- files open on a made view share its bytes --------------------------------
# rss_kb: the daemon's resident memory.
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$(daemon_pid "$mnt")/status"; }
glb=$mnt/file_06185/model.glb
cat "$glb" >/dev/null
before=$(rss_kb)
exec 6<"$glb" 7<"$glb" 8<"$glb" 9<"$glb"
grown=$(($(rss_kb) - before))
check "four files open on model.glb do not copy it ($(($(stat -c %s "$glb") / 1024)) KB; the daemon grew $grown KB)" \
	[ "$grown" -lt "$(($(stat -c %s "$glb") / 1024))" ]
check "and each reads it whole" bash -c "for fd in 6 7 8 9; do cmp <(cat <&\$fd) '$glb' || exit; done"
exec 6<&- 7<&- 8<&- 9<&-

# --- a text opened before a commit ------------------------------------------
cp "$dir/slot024.txt" "$work/old.txt"
exec 3<"$dir/slot024.txt"
dd bs=1000 count=1 status=none <&3 >"$work/part1"
retired=$(info inodes_retired)
set_value "$dir/slot024.txt" "$L" 4321
cat <&3 >"$work/part2"
check "a text opened before a commit (sed -i) reads its old bytes to the end" \
	cmp <(cat "$work/part1" "$work/part2") "$work/old.txt"
check "a new open reads the commit" bash -c "$(declare -f on_disk same_text); dump='$dump' \
	archive='$archive' mnt='$mnt' same_text '$clip' && sed -n '${L}p' '$dir/slot024.txt' | grep -q ' 4321 '"
check "the file opened before shows its own size, and no link" \
	bash -c "[ $(fd_stat 3 %s) = $(stat -c %s "$work/old.txt") ] && [ $(fd_stat 3 %h) = 0 ]"
check "the name shows the commit's size, one link, the same inode number" bash -c "
	[ \$(stat -c %s '$dir/slot024.txt') = \$('$dump' '$archive' '$clip' | wc -c) ] &&
	[ \$(stat -c %h '$dir/slot024.txt') = 1 ] &&
	[ \$(stat -c %i '$dir/slot024.txt') = $(fd_stat 3 %i) ]"
exec 3<&-
check "the commit gave the views it changed new inode numbers" [ "$(info inodes_retired)" -gt "$retired" ]

# --- what a slot's commit changes -------------------------------------------
cat "$mnt/file_06185/0/skeleton.txt" "$mnt/file_06185/3/pack.txt" "$mnt/file_06185.pac" >/dev/null
set_value "$dir/slot024.txt" "$L" 1234
check "a slot's commit leaves the skeleton's pages cached" \
	[ "$(reads_of cat "$mnt/file_06185/0/skeleton.txt")" = 0 ]
check "which read what the archive holds" same_text file_06185/0/skeleton.txt
check "the pack's views and the raw PAC read the commit" bash -c "
	cmp <('$dump' '$archive' file_06185/3/pack.txt) '$mnt/file_06185/3/pack.txt' &&
	cmp <('$dump' '$archive' file_06185.pac) '$mnt/file_06185.pac' &&
	cmp <('$dump' '$archive' file_06185/3.anim) '$mnt/file_06185/3.anim'"

# --- a raw entry opened before a commit, its pages dropped midway ------------
if have python3; then
	cp "$mnt/file_06185.pac" "$work/old.pac"
	cat >"$work/reader.py" <<'EOF'
# Opens a raw entry, reads its head, runs the commit, drops the file's
# cached pages and reads the rest; prints the reads that reached the
# driver meanwhile, the old file's size and the bytes the driver keeps.
import os, subprocess, sys
path, info, out, commit = sys.argv[1:5]
def field(k):
    for line in open(info):
        name, _, value = line.rstrip("\n").partition("\t")
        if name == k:
            return int(value)
fd = os.open(path, os.O_RDONLY)
data = os.read(fd, 4096)
subprocess.run(["bash", "-c", commit], check=True)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
before = field("view_reads")
while True:
    b = os.read(fd, 65536)
    if not b:
        break
    data += b
print(field("view_reads") - before, os.fstat(fd).st_size, field("kept_old_bytes"))
open(out, "wb").write(data)
os.close(fd)
EOF
	read -r asked size kept < <(python3 "$work/reader.py" "$mnt/file_06185.pac" "$mnt/.mhfu/info" \
		"$work/read.pac" "$(declare -f set_value); set_value '$dir/slot024.txt' $L 5678")
	old=$(stat -c %s "$work/old.pac")
	check "a raw entry opened before a commit reads its old bytes to the end" \
		cmp "$work/read.pac" "$work/old.pac"
	check "the driver served them once the cache had dropped them" [ "${asked:-0}" -gt 0 ]
	check "the commit kept the entry's old bytes for the open file" [ "${kept:-0}" -ge "$old" ]
	check "which showed its own size" [ "${size:-0}" = "$old" ]
	check "a new open of the entry reads the commit" bash -c \
		"cmp <('$dump' '$archive' file_06185.pac) '$mnt/file_06185.pac' && ! cmp -s '$mnt/file_06185.pac' '$work/old.pac'"
	check "the kept bytes go with the file" eventually info_is kept_old_bytes = 0
else
	skip "a raw entry opened before a commit" "python3 not installed"
fi

# --- reading ahead: entries stored into the page cache before they are read ---
stored=$(info prefetched)
if have python3; then
	# A writer's pages are its own: an entry open for writing is not
	# stored into while the others are read in order around it (in the
	# writer's own process: a child would inherit the file, and its exit
	# would flush it, a commit that gives the entry a new number).
	cat >"$work/writer.py" <<'EOF'
import os, sys
mnt, name = sys.argv[1:3]
fd = os.open(os.path.join(mnt, name), os.O_RDWR)
os.pwrite(fd, b"MHFU", 0)
for n in sorted(os.listdir(mnt)):
    p = os.path.join(mnt, n)
    if n.startswith("file_") and n != name and os.path.isfile(p):
        with open(p, "rb") as f:
            f.read()
print(os.pread(fd, 4, 0).decode(errors="replace"))
os.close(fd)
EOF
	got=$(python3 "$work/writer.py" "$mnt" file_03000.bin)
	check "a writer beside entries stored ahead reads back what it wrote" [ "$got" = MHFU ]
	check "which its close committed" bash -c "'$dump' '$archive' file_03000.bin | head -c 4 | grep -qx MHFU"
else
	find "$mnt" -maxdepth 1 -type f -name 'file_*' -print0 | xargs -0 cat >/dev/null
	skip "a writer beside entries stored ahead" "python3 not installed"
fi
check "a reader going in order had entries stored ahead of it" [ "$(($(info prefetched) - stored))" -gt 100 ]
check "which read what the archive holds" bash -c "$(declare -f on_disk); dump='$dump' archive='$archive'
	for f in file_00100.bin file_03002.bin file_06185.pac; do cmp <(on_disk \$f) '$mnt'/\$f || exit; done"
head -c 2048 /dev/urandom >"$work/new3001.bin"
cp "$work/new3001.bin" "$mnt/file_03001.bin"
check "an entry stored ahead, then written, reads the commit" bash -c \
	"cmp '$work/new3001.bin' '$mnt/file_03001.bin' && cmp <('$dump' '$archive' file_03001.bin) '$work/new3001.bin'"

# --- a writer in place, and vim, beside a reader ------------------------------
cp "$dir/slot025.txt" "$work/old25.txt"
awk -v n="$(first_key "$work/old25.txt")" 'NR == n { $2 = 777 } 1' "$work/old25.txt" >"$work/new25.txt"
exec 4<"$dir/slot025.txt"
dd bs=700 count=1 status=none <&4 >"$work/part1"
cp "$work/new25.txt" "$dir/slot025.txt"
cat <&4 >"$work/part2"
exec 4<&-
check "a reader keeps its bytes while a writer writes the view in place (cp)" \
	cmp <(cat "$work/part1" "$work/part2") "$work/old25.txt"
check "the writer's text is committed, and read by the next open" bash -c \
	"cmp <('$dump' '$archive' file_06185/3/stream2/slot025.txt) '$dir/slot025.txt' &&
	 grep -q ' 777 ' '$dir/slot025.txt'"
if have vim; then
	cat "$dir/slot026.txt" >/dev/null
	cp "$dir/slot026.txt" "$work/old26.txt"
	exec 5<"$dir/slot026.txt"
	dd bs=500 count=1 status=none <&5 >"$work/part1"
	n=$(first_key "$dir/slot026.txt")
	check "vim edits a cached view" vim -Nu NONE -es -c "${n}s/^\\( *[0-9]* *\\)-\\=[0-9]*/\\1888/" -c wq "$dir/slot026.txt"
	cat <&5 >"$work/part2"
	exec 5<&-
	check "a reader that opened before keeps its bytes" cmp <(cat "$work/part1" "$work/part2") "$work/old26.txt"
	check "a new open reads vim's commit" bash -c \
		"cmp <('$dump' '$archive' file_06185/3/stream2/slot026.txt) '$dir/slot026.txt' && grep -q ' 888 ' '$dir/slot026.txt'"
else
	skip "vim beside a reader" "vim not installed"
fi

# --- after a writer's commit, the name's next open is cached ----------------
# The kernel still maps the name to the writer's number, which the commit
# retired; its close makes it current again, its pages dropped (.mhfu/info's
# inodes_revived), so a reader a page at a time (mawk) has the page cache
# read ahead for it, and a shared mmap (which a read-through file refuses)
# works.
t=$mnt/file_06185/1/vertices.tsv
# moved_by BEFORE AFTER: vertex 40 of group 12 moved by 1 along x.
moved_by() { awk 'FNR == 1 { f++ } $1 == 12 && $2 == 40 { x[f] = $3 } END { d = x[2] - x[1]; exit !(d > 0.9 && d < 1.1) }' "$1" "$2"; }
cp "$t" "$work/v0.tsv"
awk '$1 == 12 && $2 == 40 { $3 += 1 } 1' "$work/v0.tsv" >"$work/v.tsv"
revived=$(info inodes_revived)
cat "$work/v.tsv" >"$t"
check "the writer's close made its number current again" eventually info_is inodes_revived -gt "$revived"
pages=$((($(stat -c %s "$t") + 4095) / 4096))
n=$(reads_of dd if="$t" bs=4096 status=none)
check "after a writer's commit, a reader a page at a time takes $n requests for $pages pages" \
	[ "$n" -lt $((pages / 4)) ]
check "and reads the commit" bash -c "$(declare -f moved_by); dd if='$t' bs=4096 status=none >'$work/v1.tsv' &&
	moved_by '$work/v0.tsv' '$work/v1.tsv'"
awk '$1 == 12 && $2 == 40 { $3 += 1 } 1' "$work/v1.tsv" >"$work/v.tsv"
revived=$(info inodes_revived)
cat "$work/v.tsv" >"$t"
eventually info_is inodes_revived -gt "$revived"
if have python3; then
	check "a shared mmap of it reads the next commit" bash -c "$(declare -f moved_by); python3 -c '
import mmap, sys
with open(sys.argv[1], \"rb\") as f:
    sys.stdout.buffer.write(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)[:])' '$t' >'$work/v2.tsv' &&
	moved_by '$work/v1.tsv' '$work/v2.tsv'"
else
	skip "a shared mmap after a commit" "python3 not installed"
fi

# --- the name of a view a commit changed, while a file of the old one is open ---
exec 3<"$mnt/file_06185.pac"
before=$(fd_stat 3 %s)
# More frames in a slot: the entry outgrows its blocks.
with_frames 2000 "$dir/slot027.txt" >"$work/big.txt"
cp "$work/big.txt" "$dir/slot027.txt"
new=$(on_disk file_06185.pac | wc -c)
check "a growth commit changes the raw entry's size" [ "$new" != "$before" ]
check "the file opened before keeps its size" [ "$(fd_stat 3 %s)" = "$before" ]
check "a new open of the name reads the commit" bash -c "cmp <('$dump' '$archive' file_06185.pac) '$mnt/file_06185.pac'"
exec 3<&-
check "once it is closed, a stat of the name shows the commit's size" \
	eventually bash -c "[ \$(stat -c %s '$mnt/file_06185.pac') = $new ]"
# --- a member whose kind a write changes: its old names are gone at once ------
# (junk where the game loads a texture bank: stored under -o rules=warn)
head -c 5000 /dev/urandom >"$work/junk.bin"
cat "$mnt/file_06185/2.tmh" "$mnt/file_06185/2/image00.png" >/dev/null
check "junk over a texture bank is refused by default (UNDECODABLE), its names as they were" bash -c "
	! cp '$work/junk.bin' '$mnt/file_06185/2.tmh' 2>/dev/null && cmp '$mnt/file_06185/2.tmh' <('$dump' '$archive' file_06185/2.tmh) &&
	test -f '$mnt/file_06185/2/image00.png' && grep -q 'file_06185/2.tmh: UNDECODABLE ' '$mnt/.mhfu/log'"
fresh -o rules=warn
cat "$mnt/file_06185/2.tmh" "$mnt/file_06185/2/image00.png" >/dev/null
cp "$work/junk.bin" "$mnt/file_06185/2.tmh"
check "a member written with bytes of another kind takes that kind's name" \
	cmp "$work/junk.bin" "$mnt/file_06185/2.bin"
check "its old name is gone, though the kernel had it cached" bash -c \
	"! stat '$mnt/file_06185/2.tmh' 2>/dev/null && ! cat '$mnt/file_06185/2.tmh' 2>/dev/null"
check "and so is its folder, and what was in it" bash -c \
	"! stat '$mnt/file_06185/2' 2>/dev/null && ! cat '$mnt/file_06185/2/image00.png' 2>/dev/null"
check "the archive decodes" "$dump" --check "$archive"

# --- a stat answered while a commit runs -------------------------------------
# A file is open on the raw entry, read in part, when a commit shrinks
# the entry; a stat of the name asking for its atime (which the read
# made the kernel ask the driver for; ls -l, fstat and cat's do) arrives
# while the commit holds the archive, and is answered once it is done.  The answer must be the size of the
# open file's pages, not the commit's: the kernel cuts an inode's cached
# pages to the size it is told, and the reader would get a cut PAC.  The
# fault shim holds the commit at its first write.
if [ -n "$shim" ]; then
	unmount "$mnt"
	cp "$sample/DATA.BIN" "$archive"
	rm -f "$work/hold"
	LD_PRELOAD=$shim MHFU_STALL_WHILE=$work/hold MHFU_STALL_MIN=1 "$mount_bin" "$archive" "$mnt" || exit 1
	cp "$dir/slot025.txt" "$work/small25.txt"
	with_frames 1500 "$work/small25.txt" >"$work/big25.txt"
	cp "$work/big25.txt" "$dir/slot025.txt"
	on_disk file_06185.pac >"$work/grown.pac"
	exec 3<"$mnt/file_06185.pac"
	dd bs=4096 count=1 <&3 of="$work/read.pac" status=none
	touch "$work/hold"
	cp "$work/small25.txt" "$dir/slot025.txt" &
	shrink=$!
	held=no
	for _ in $(seq 500); do [ "$(info commit)" = running ] && held=yes && break; sleep 0.02; done
	stat -c '%s %x' "$mnt/file_06185.pac" >"$work/stat.out" 2>&1 &
	stat_pid=$!
	# The stat has reached the driver, which waits for the commit, once
	# the kernel waits for its answer.
	asked=no
	for _ in $(seq 500); do
		grep -qx request_wait_answer "/proc/$stat_pid/wchan" 2>/dev/null && asked=yes && break
		sleep 0.01
	done
	rm -f "$work/hold"
	wait "$shrink" "$stat_pid"
	cat <&3 >>"$work/read.pac"
	exec 3<&-
	check "a commit shrinking the raw entry was held while a stat of its name came" \
		[ "$held$asked" = yesyes ]
	check "a file opened before it reads the old entry to its end, the stat notwithstanding" \
		cmp "$work/read.pac" "$work/grown.pac"
	check "and the commit landed" bash -c "
		cmp <('$dump' '$archive' file_06185.pac) '$mnt/file_06185.pac' &&
		[ \$(stat -c %s '$mnt/file_06185.pac') -lt \$(stat -c %s '$work/grown.pac') ]"
	fresh || exit 1
else
	skip "a stat answered while a commit runs" "no fault shim"
fi

# --- commits going on: a lazy unmount, then a kill -9 ---------------------------
# commit_loop N: N edits of slot 24 in a row, in the background.
commit_loop() {
	local i
	for i in $(seq "$1"); do
		set_value "$dir/slot024.txt" "$L" $((i % 2 ? 1111 : 2222)) 2>/dev/null || break
	done
}
pid=$(daemon_pid "$mnt")
exec 3<"$mnt/file_06185.pac"
commits=$(info commits)
commit_loop 40 &
loop=$!
for _ in $(seq 500); do [ "$(info commits)" -gt "$commits" ] && break; sleep 0.01; done
going=$(info commits)
fusermount3 -u -z "$mnt"
wait "$loop"
check "lazily unmounted with commits going on, it still serves the file open" \
	bash -c "[ $going -gt $commits ] && cat <&3 >/dev/null && kill -0 $pid"
exec 3<&-
check "and exits once that file is closed" exited "$pid"
check "the archive decodes" "$dump" --check "$archive"

"$mount_bin" "$archive" "$mnt" || exit 1
pid=$(daemon_pid "$mnt")
commits=$(info commits)
commit_loop 1000 &
loop=$!
( while kill -0 "$loop" 2>/dev/null; do stat "$dir/slot024.txt" "$dir" >/dev/null 2>&1; ls "$dir" >/dev/null 2>&1; done ) &
lookers=$!
for _ in $(seq 500); do [ "$(info commits)" -ge $((commits + 5)) ] && break; sleep 0.01; done
going=$(info commits)
kill -9 "$pid"
check "five commits in, with lookups going on" [ "$going" -ge $((commits + 5)) ]
check "killed with commits and lookups going on, the driver exits" exited "$pid"
wait "$loop" "$lookers" 2>/dev/null
check "the mount is then dead, and unmounts" bash -c "! stat '$mnt/.mhfu' 2>/dev/null; fusermount3 -u '$mnt'"
check "the archive decodes after the kill" "$dump" --check "$archive"

# A kill -9 while entries are stored ahead of readers going in order:
# the storing thread must not outlive the connection (prefetch.h).
"$mount_bin" "$archive" "$mnt" || exit 1
pid=$(daemon_pid "$mnt")
( for r in 1 2 3 4; do find "$mnt" -maxdepth 1 -type f -name 'file_*' -print0 |
	xargs -0 cat >/dev/null 2>&1 & done; wait ) &
readers=$!
for _ in $(seq 500); do [ "$(info prefetched)" -gt 0 ] && break; sleep 0.01; done
ahead=$(info prefetched)
kill -9 "$pid"
check "four readers going in order had entries stored ahead of them" [ "$ahead" -gt 0 ]
check "killed while entries were stored ahead of them, the driver exits" exited "$pid"
wait "$readers" 2>/dev/null
check "and the mount unmounts" bash -c "! stat '$mnt/.mhfu' 2>/dev/null; fusermount3 -u '$mnt'"
"$mount_bin" "$archive" "$mnt" && check "and mounts again" same_text "$clip"
unmount "$mnt"
finish
