#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Lock tests: one writer per archive.  A second read-write mount of the same
# file (by the same path, another mount point, a symbolic or a hard link)
# is refused with exit status 5 and a message naming the archive and what
# to do, before it reads or replays anything; read-only mounts share the
# archive with each other but not with a writer; the lock follows the
# archive through the rename of a growth commit, and goes with a daemon
# killed by SIGKILL.  Outcomes are checked on the backing file with
# mhfudump.
#
#   bash tests/mount/lock_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-lock-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
archive=$work/DATA.BIN
small=file_06185/3/stream2/slot024.txt  # same-size value edits: in place
grow=file_06185/3/stream2/slot025.txt   # 2000 more keys: shifts the entries after it
mounts=()

trap 'leave "${mounts[@]}"' EXIT

# mount_at DIR FILE [options...]: mounts, to be unmounted at the end.
mount_at() {
	local dir=$1 file=$2
	shift 2
	mkdir -p "$dir"
	"$mount_bin" "$@" "$file" "$dir" || return 1
	mounts+=("$dir")
}

# refused DIR FILE WORDS [options...]: the mount fails with exit status 5
# and a message naming FILE (its real path) with WORDS, mounts nothing,
# and leaves the archive byte-identical.
refused() {
	local dir=$1 file=$2 words=$3 rc before
	shift 3
	mkdir -p "$dir"
	before=$(md5sum <"$archive")
	"$mount_bin" "${wait_opts[@]}" "$@" "$file" "$dir" 2>"$work/err"
	rc=$?
	cat "$work/err"
	if mountpoint -q "$dir" && ! is_mounted_before "$dir"; then
		fusermount3 -u "$dir"
		echo "mounted"
		return 1
	fi
	[ "$rc" -eq 5 ] || { echo "exit $rc, want 5"; return 1; }
	grep -qF "mount.mhfu: $(realpath "$file"): $words" "$work/err" || return 1
	grep -qF "unmount it first" "$work/err" || return 1
	[ "$(md5sum <"$archive")" = "$before" ] || { echo "the archive changed"; return 1; }
}
is_mounted_before() { [ "$1" = "$m1" ]; }

value_on_disk() { "$dump" "$archive" "$small" | sed -n "${L}p" | awk '{ print $2 }'; }
keys_on_disk() { "$dump" "$archive" "$grow" | grep -c '^ *[0-9]'; }
# set_value DIR V: an in-place commit through mount DIR.
set_value() { sed -i "${L}s/^\\( *[0-9]* *\\)-\\{0,1\\}[0-9]*/\\1$2/" "$1/$small"; }
lands() { [ "$(value_on_disk)" = "$1" ] || { echo "value on disk $(value_on_disk), want $1"; return 1; }; }

cp "$sample/DATA.BIN" "$archive"
"$dump" "$archive" "$small" >"$work/small.txt"
L=$(grep -n -m1 -A1 '^channel rot_x' "$work/small.txt" | tail -1 | cut -d- -f1)
"$dump" "$archive" "$grow" >"$work/grow0.txt"
awk '/^channel/ && !d { print; print "#  frame value ease_in ease_out";
	for (f = 0; f < 2000; f++) print f, f % 100, 0, 0; d = 1; s = 1; next }
	s && /^ *(#|[0-9-])/ { next } { s = 0; print }' "$work/grow0.txt" >"$work/grow1.txt"
keys1=$(grep -c '^ *[0-9]' "$work/grow1.txt")
ln -s "$archive" "$work/link.BIN"
ln "$archive" "$work/hard.BIN"

m1=$work/m1 m2=$work/m2
check "mount the archive read-write" mount_at "$m1" "$archive"
# The mount command returned: the process that took the lock has exited,
# and its daemon, forked from it, holds the lock now.
wait_opts=()
check "a second read-write mount, another mount point: refused (exit 5)" \
	refused "$m2" "$archive" "already mounted read-write by another mount.mhfu"
# The refusals below need not wait the default 3 s for a lock that stays.
wait_opts=(-o lock_wait=0)
check "a second read-write mount, the same mount point: refused" \
	refused "$m1" "$archive" "already mounted read-write"
check "a second read-write mount through a symbolic link: refused" \
	refused "$m2" "$work/link.BIN" "already mounted read-write"
check "a second read-write mount through a hard link: refused" \
	refused "$m2" "$work/hard.BIN" "already mounted read-write"
check "a second read-write mount by a relative path: refused" \
	eval '(cd "$work" && refused "$m2" DATA.BIN "already mounted read-write")'
check "a read-only mount under the writer: refused" \
	refused "$m2" "$archive" "already mounted read-write" -o ro

# A refused mount runs no recovery: a rewrite in progress beside the
# archive (here, a stand-in) is left alone.
echo "a rewrite in progress" >"$archive.mhfu-new"
check "a refused mount leaves the writer's sidecar files alone" \
	bash -c "! '$mount_bin' '$archive' '$m2' 2>/dev/null && test -s '$archive.mhfu-new'"
rm -f "$archive.mhfu-new"

check "the first mount still commits (in place)" set_value "$m1" 1234
check "  on disk" lands 1234
ino_before=$(stat -c %i "$archive")
check "the first mount makes a growth commit near the end" cp "$work/grow1.txt" "$m1/$grow"
check "  on disk, in the same file (the entries after it shifted in place)" \
	bash -c "test \"\$('$dump' '$archive' '$grow' | grep -c '^ *[0-9]')\" = $keys1 && test \"\$(stat -c %i '$archive')\" = $ino_before"
# An early entry grown moves most of the archive: rewritten and renamed.
early=file_00010.bin
{ cat "$sample/src/$early"; head -c 65536 /dev/urandom; } >"$work/early.bin"
check "the first mount makes a growth commit that moves most of the archive" \
	cp "$work/early.bin" "$m1/$early"
check "  on disk, in a new file renamed over the archive" \
	bash -c "'$dump' '$archive' '$early' | cmp -n \$(stat -c %s '$work/early.bin') - '$work/early.bin' && test \"\$(stat -c %i '$archive')\" != $ino_before"
check "after the growth commit a second read-write mount is still refused" \
	refused "$m2" "$archive" "already mounted read-write"
check "  through the symbolic link too" refused "$m2" "$work/link.BIN" "already mounted read-write"
check "  and read-only" refused "$m2" "$archive" "already mounted read-write" -o ro
check "the first mount commits after the growth commit" set_value "$m1" 4321
check "  on disk" lands 4321

# kill -9: the kernel releases the lock with the daemon's files.
pid=$(daemon_pid "$m1")
kill -9 "$pid"
check "the killed daemon exits" exited "$pid"
fusermount3 -u -z "$m1"
# The killed mount's journal is left; its commits landed, so a read-only
# mount, which replays nothing, goes on over it.
check "after kill -9 of the holder, its journal is left" test -s "$archive.mhfu-journal"
check "  a read-only mount goes on over it" mount_at "$m2" "$archive" -o ro
check "  saying its commits are in the archive already" grep -q 'in the archive already' "$m2/.mhfu/log"
check "  unmount it" unmount "$m2"
check "after kill -9 of the holder, a new read-write mount succeeds" mount_at "$m2" "$archive"
check "  and sees every commit of the killed one" \
	bash -c "test \"\$('$dump' '$archive' '$small' | sed -n '${L}p' | awk '{ print \$2 }')\" = 4321 && test \"\$(grep -c '^ *[0-9]' '$m2/$grow')\" = $keys1"
check "  and commits" set_value "$m2" 777
check "unmount it" unmount "$m2"

# A lock let go of while the mount waits for it: taken (flock(1) holds
# the same flock(2) lock a mount does).
flock -x "$archive" sleep 2 &
holder=$!
for _ in $(seq 100); do flock -n -s "$archive" true || break; sleep 0.01; done
check "  -o lock_wait=0 under a lock held by another program: refused (exit 5)" bash -c "
	'$mount_bin' -o lock_wait=0 '$archive' '$m2' 2>'$work/err'; test \$? = 5"
check "  -o lock_wait=30 outlasts a lock held for 2 s: mounted" mount_at "$m2" "$archive" -o lock_wait=30
wait "$holder"
check "  on disk" lands 777
check "unmount it" unmount "$m2"

# Read-only mounts share the archive; a writer waits for them all.
check "a read-only mount" mount_at "$m1" "$archive" -o ro
check "a second read-only mount beside it" mount_at "$m2" "$archive" -o ro
m3=$work/m3
check "a read-write mount under readers: refused (exit 5)" \
	refused "$m3" "$archive" "mounted read-only by another mount.mhfu"
check "  the message says what to do" grep -qF "or mount this one with -o ro too" "$work/err"
check "unmount the first reader" unmount "$m1"
check "a read-write mount under the other reader: refused" \
	refused "$m3" "$archive" "mounted read-only by another mount.mhfu"
check "unmount the other reader" unmount "$m2"
check "with no reader left, the read-write mount succeeds" mount_at "$m3" "$archive"
check "unmount it" unmount "$m3"

# A single PAC: a commit renames a new file over it.
pac=$work/one.pac
archive=$pac
cp "$sample/src/file_06185.pac" "$pac"
check "mount a single PAC read-write" mount_at "$m1" "$pac"
check "a second read-write mount of the PAC: refused" refused "$m2" "$pac" "already mounted read-write"
ino_before=$(stat -c %i "$pac")
check "a commit to the PAC (renamed over it)" \
	bash -c "sed -i '${L}s/^\\( *[0-9]* *\\)-\\{0,1\\}[0-9]*/\\1555/' '$m1/3/stream2/slot024.txt' && test \"\$(stat -c %i '$pac')\" != $ino_before"
check "after it a second read-write mount of the PAC is still refused" \
	refused "$m2" "$pac" "already mounted read-write"
check "unmount the PAC" unmount "$m1"

check "--help documents exit status 5" bash -c "'$mount_bin' --help | grep -q '^5 another mount holds the archive'"

finish
