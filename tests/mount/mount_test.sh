#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real-mount tests: mount the generated sample archives with mount.mhfu and
# check what ordinary programs see against the generator's own extraction
# (SAMPLE/src), an independent oracle of every entry's bytes and of the tree.
#
#   bash tests/mount/mount_test.sh MOUNT_BINARY SAMPLE_DIR VIEWCHECK_BINARY
#
# A mount that returned is ready (the daemon's parent waits for it), so
# nothing here sleeps to wait for a mount.  Under a sanitizer build the
# daemon's reports go to files that the leak check looks for.
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
viewcheck=$(realpath "$3")
src=$sample/src
work=$(mktemp -d -t mhfu-mount-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mounts=()
trap 'leave "${mounts[@]}"' EXIT

# mount_archive FILE DIR [options...]: mounts, and lists DIR for the cleanup.
mount_archive() {
	local file=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	"$mount_bin" "$@" "$file" "$dir" || return 1
	mounts+=("$dir")
}

# Every raw entry, sub-entry and text view equals the generator's (which
# prints with the codecs), shared slots are the same symbolic links, and
# the trees hold the same names: diff reads every file through the mount.
# by-name/ is links the mount derives (tested by history_test.sh).
same_tree() { diff -r --no-dereference "$src" "$1" -x .mhfu -x index.tsv -x by-name; }

# index.tsv as the generator laid the archive out; in a decrypted archive
# every entry is stored plain, so the last column reads "yes" throughout.
same_index() {
	local dir=$1 plain=$2
	if [ "$plain" = yes ]; then
		diff <(awk -F'\t' -v OFS='\t' 'NR > 1 { $7 = "yes" } 1' "$src/index.tsv") "$dir/index.tsv"
	else
		diff "$src/index.tsv" "$dir/index.tsv"
	fi
}

sizes_and_blocks() {
	local dir=$1
	(cd "$src" && find . -type f ! -name index.tsv -printf '%p %s\n' | sort) >"$work/want"
	(cd "$dir" && find . -path ./.mhfu -prune -o -type f ! -name index.tsv -printf '%p %s\n' | sort) >"$work/got"
	diff "$work/want" "$work/got" || return 1
	# st_blocks counts 512-byte units of the file's size.
	(cd "$dir" && find . -path ./.mhfu -prune -o -type f -printf '%s %b\n') |
		awk '{ if ($2 != int(($1 + 511) / 512)) { print "bad st_blocks: " $0; bad = 1 } } END { exit bad }'
}

parallel_readers() {
	local dir=$1 list=$work/files want
	(cd "$src" && find . -type f ! -name index.tsv | sort) >"$list"
	want=$(cd "$src" && xargs cat <"$list" | md5sum)
	for i in $(seq 8); do
		(cd "$dir" && xargs cat <"$list" | md5sum >"$work/sum.$i") &
	done
	wait
	for i in $(seq 8); do
		[ "$(cat "$work/sum.$i")" = "$want" ] || { echo "reader $i saw other bytes"; return 1; }
	done
}

info_field() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1/.mhfu/info"; }

# A read-only mount lets the kernel cache .mhfu/info's pages (no opens):
# the counters must still move between two reads.
info_fresh() {
	local dir=$1 before after
	before=$(info_field "$dir" bytes_read)
	cat "$dir/file_06185.pac" >/dev/null
	after=$(info_field "$dir" bytes_read)
	echo "bytes_read $before then $after"
	[ "$after" -gt "$before" ]
}

refused() { # refused FILE CODE WORDS: mount fails with CODE, message has WORDS
	local file=$1 code=$2 words=$3 dir=$work/refused rc
	mkdir -p "$dir"
	"$mount_bin" "$file" "$dir" 2>"$work/err"
	rc=$?
	if mountpoint -q "$dir"; then fusermount3 -u "$dir"; echo "mounted"; return 1; fi
	cat "$work/err"
	[ "$rc" -eq "$code" ] || { echo "exit $rc, want $code"; return 1; }
	grep -q -- "$words" "$work/err"
}

# The read-write mounts are of copies: the sample is every test's oracle,
# and the copies show that mounting and reading write nothing.
cp "$sample/DATA.BIN" "$sample/DATA.plain.BIN" "$work/"

# --- the encrypted archive, as on the UMD ---
enc=$work/enc
check "mount the encrypted sample" mount_archive "$work/DATA.BIN" "$enc"
check "info: encrypted MHFU" test "$(info_field "$enc" encrypted)/$(info_field "$enc" game)" = "yes/MHFU (NA/EU)"
check "info: the game told by the plain entries' magics" test "$(info_field "$enc" game_from)" = magics
check "index.tsv lists every entry as the generator laid it out" same_index "$enc" no
check "every entry and sub-entry reads back byte-identical (encrypted)" same_tree "$enc"
check "sizes and st_blocks (encrypted)" sizes_and_blocks "$enc"
check "8 parallel readers see the same bytes" parallel_readers "$enc"
check "every text view read through the mount parses back to its exact bytes" "$viewcheck" "$enc"
tig=$enc/file_06185/3
check "Tigrex: slots 24 and 25 only in stream 2, empty slots absent" \
	bash -c "test -f '$tig/stream2/slot024.txt' -a -f '$tig/stream2/slot025.bin' -a ! -e '$tig/stream0/slot024.txt' -a ! -e '$tig/stream1/slot000.txt'"
check "Tigrex: a shared slot is a link to the first slot using its clip" \
	test "$(readlink "$tig/stream0/slot002.txt")" = slot000.txt
check "Tigrex: 6 streams, filled 62 0 64 0 62 0" \
	test "$(for s in 0 1 2 3 4 5; do ls "$tig/stream$s" | grep -c 'txt$'; done | tr '\n' ' ')" = "62 0 64 0 62 0 "
check "grep -r finds a channel in the clip texts" grep -rq --include='*.txt' '^channel rot_x' "$tig"
check "skeleton.txt of the Tigrex lists 48 bones" \
	test "$(grep -cE '^ *[0-9]+ ' "$enc/file_06185/0/skeleton.txt")" = 48
# bind_world.tsv against the offsets of skeleton.txt summed up each chain
# by awk: a second computation of the same facts.
check "bind_world.tsv: each bone's bind position is its offsets summed up its chain" bash -c "
	awk '/^ *[0-9]+ /{ p[\$1] = \$3; x[\$1] = \$12; y[\$1] = \$13; z[\$1] = \$14 }
	     END { for (b in p) { sx = sy = sz = 0
			for (j = b; j != -1; j = p[j]) { sx += x[j]; sy += y[j]; sz += z[j] }
			printf \"%d\\t%d\\t%.6g\\t%.6g\\t%.6g\\n\", b, p[b], sx, sy, sz } }' \
		'$enc/file_06185/0/skeleton.txt' | sort -n >'$work/world.expected'
	awk -F'\t' '!/^#/ { print \$1 \"\\t\" \$2 \"\\t\" \$4 \"\\t\" \$5 \"\\t\" \$6 }' \
		'$enc/file_06185/0/bind_world.tsv' >'$work/world.shown'
	diff '$work/world.expected' '$work/world.shown'"
check "bind_world.tsv marks the Tigrex's body fork, animated joints and severed tail" \
	grep -qx '# animated joints 0..44; body fork 2; severed chain from 45' \
	"$enc/file_06185/0/bind_world.tsv"
check "statfs: 2048-byte blocks, the archive's blocks used" \
	test "$(stat -f -c '%S %b %f' "$enc" | awk '{ print $1, $2 - $3 }')" = "2048 $(($(stat -c %s "$sample/DATA.BIN") / 2048))"
# Copy tools check the room left before writing: it is the backing
# filesystem's (the same within 64 MiB: other processes write there too).
check "df: the space available is the backing filesystem's" bash -c "
	df -B1 --output=avail '$enc' '$sample' | tail -2 | tr '\n' ' ' | tee /dev/stderr |
	awk '{ d = \$1 - \$2; if (d < 0) d = -d; exit !(\$1 > 0 && d < 64 * 1048576) }'"
check "statfs: names up to 255 bytes, the entries among the files" bash -c "
	test \$(stat -f -c %l '$enc') = 255 && test \$(stat -f -c %c '$enc') -ge \$(grep -vc '^#' '$src/index.tsv')"
check "index.tsv and .mhfu/info cannot be written" bash -c "! echo x >'$enc/index.tsv' && ! echo x >'$enc/.mhfu/info'"
ino1=$(stat -c %i "$enc/file_00100.bin" "$enc"/file_*/0.* 2>/dev/null | md5sum)
enc_workers=$(info_field "$enc" workers_max)
check "unmount the encrypted sample" unmount "$enc"

# --- the decrypted twin ---
plain=$work/plain
check "mount the decrypted sample (-o max_threads=3)" mount_archive "$work/DATA.plain.BIN" "$plain" -o max_threads=3
check "info: not encrypted" test "$(info_field "$plain" encrypted)" = no
check "-o max_threads= given bounds the workers (info: workers_max)" test "$(info_field "$plain" workers_max)" = 3
check "index.tsv of the decrypted twin" same_index "$plain" yes
check "every entry and sub-entry reads back byte-identical (plain)" same_tree "$plain"
check "sizes and st_blocks (plain)" sizes_and_blocks "$plain"
check "inode numbers are stable across mounts" \
	test "$(stat -c %i "$plain/file_00100.bin" "$plain"/file_*/0.* 2>/dev/null | md5sum)" = "$ino1"
check "unmount the decrypted sample" unmount "$plain"
one=$work/one
check "mount with -o single_thread" mount_archive "$work/DATA.plain.BIN" "$one" -o single_thread
check "-o single_thread: one worker (info: workers_max), and it serves" \
	bash -c "test \"\$(awk -F'\t' '\$1 == \"workers_max\" { print \$2 }' '$one/.mhfu/info')\" = 1 && cmp -s '$one/file_00100.bin' '$src/file_00100.bin'"
check "unmount the single-threaded mount" unmount "$one"
idle=$work/idle
check "mount with libfuse's -o max_idle_threads=1 and -o clone_fd" \
	mount_archive "$work/DATA.BIN" "$idle" -o max_idle_threads=1 -o clone_fd
check "-o max_idle_threads= and -o clone_fd change nothing: the default workers_max" \
	test "$(info_field "$idle" workers_max)" = "$enc_workers"
check "8 parallel readers see the same bytes (-o max_idle_threads=1,clone_fd)" parallel_readers "$idle"
check "unmount the max_idle_threads mount" unmount "$idle"
check "mounting and reading wrote nothing: both archives as generated" \
	bash -c "cmp '$sample/DATA.BIN' '$work/DATA.BIN' && cmp '$sample/DATA.plain.BIN' '$work/DATA.plain.BIN'"

# --- read-only: declined opens, the kernel opening files itself ---
ro=$work/ro
check "mount the encrypted sample read-only" mount_archive "$sample/DATA.BIN" "$ro" -o ro
check "read-only: .mhfu/info is not served stale from the page cache" info_fresh "$ro"
check "every entry and sub-entry reads back byte-identical (read-only)" same_tree "$ro"
check "read-only: a reader going in order had entries stored ahead of it" \
	test "$(info_field "$ro" prefetched)" -gt 100
check "sizes and st_blocks (read-only)" sizes_and_blocks "$ro"
check "8 parallel readers see the same bytes (read-only)" parallel_readers "$ro"
check "every text view parses back to its exact bytes (read-only)" "$viewcheck" "$ro"
check "read-only: statfs shows no room to write" test "$(stat -f -c '%a %f' "$ro")" = "0 0"
check "unmount the read-only mount" unmount "$ro"

# --- a cache budget of nothing: every decoded model evicted at once ---
tiny=$work/tiny
check "mount with -o cache_mb=0" mount_archive "$work/DATA.BIN" "$tiny" -o cache_mb=0
check "every file reads back byte-identical with models evicted throughout" same_tree "$tiny"
check "every text view parses back with models evicted throughout" "$viewcheck" "$tiny"
check "info: evictions happened and nothing stays cached" \
	test "$(info_field "$tiny" evictions)" -gt 0 -a "$(info_field "$tiny" cached_bytes)" = 0
check "unmount the cache_mb=0 mount" unmount "$tiny"
check "mount with -o cache_mb=1" mount_archive "$work/DATA.BIN" "$tiny" -o cache_mb=1
check "every text view parses back under a 1 MB budget" "$viewcheck" "$tiny"
check "info: the cache stayed within 1 MB, evicting" \
	test "$(info_field "$tiny" cached_bytes)" -le 1048576 -a "$(info_field "$tiny" evictions)" -gt 0 \
	-a "$(info_field "$tiny" cache_budget)" = 1048576
check "unmount the cache_mb=1 mount" unmount "$tiny"

# --- options ---
opt=$work/opt
mkdir -p "$opt"
mounts+=("$opt")
check "-o game= sets the plain-entry list" bash -c "
	'$mount_bin' -o game=mhp2g '$work/DATA.BIN' '$opt' && trap \"fusermount3 -u '$opt'\" EXIT &&
	grep -q \$'^game\tMHP2G' '$opt/.mhfu/info'"
# game_mount DIR FILE [options...]: mounts read-only, leaving the daemon's
# stderr in $work/err; unmounted by the next call or at the end.
game_mount() {
	local dir=$1 file=$2
	shift 2
	mountpoint -q "$dir" && fusermount3 -u "$dir"
	"$mount_bin" -o ro "$@" "$file" "$dir" 2>"$work/err" || { cat "$work/err"; return 1; }
	mounts+=("$dir")
}
warned() { # warned DIR WORDS: stderr and the mount's log both say WORDS
	cat "$work/err"
	grep -qF -- "$2" "$work/err" && grep -qF -- "$2" "$1/.mhfu/log"
}
check "-o game= contradicting the plain entries: mounted as asked" game_mount "$opt" "$sample/DATA.BIN" -o game=mhp2g
check "  info: game MHP2G, from -o game=" test "$(info_field "$opt" game)/$(info_field "$opt" game_from)" = "MHP2G (JP)/-o game="
check "  warned on stderr and in .mhfu/log, naming the entry that contradicts" warned "$opt" \
	"-o game= says MHP2G (JP), but entry 43 (file_00042) is a PSP module (~PSP), which MHFU (NA/EU) stores plain"
check "-o game= agreeing with the plain entries: no warning" game_mount "$opt" "$sample/DATA.BIN" -o game=mhfu
check "  nothing on stderr" test ! -s "$work/err"
# The plain entries overwritten with bytes that are neither a known magic
# nor plain data: an encrypted archive whose game cannot be told.
nogame=$work/nogame.bin
cp "$sample/DATA.BIN" "$nogame"
awk -F'\t' '$7 == "yes" { print $3, $4 }' "$src/index.tsv" | while read -r start blocks; do
	head -c $((blocks * 2048)) /dev/zero | tr '\0' '\245' |
		dd of="$nogame" bs=2048 seek="$start" conv=notrunc status=none
done
check "an encrypted archive whose game cannot be told is mounted" game_mount "$opt" "$nogame"
check "  info: game unknown, told by nothing" test "$(info_field "$opt" game)/$(info_field "$opt" game_from)" = "unknown/nothing"
check "  warned on stderr and in .mhfu/log, naming -o game=" warned "$opt" \
	"cannot tell which game this encrypted archive is from"
check "  the warning says what to give" grep -qF -- "mount with -o game=mhfu, mhp2g or mhp3rd" "$work/err"
fusermount3 -u "$opt"
check "-o game= refuses an unknown game (exit 1)" bash -c "
	'$mount_bin' -o game=mhp4 '$work/DATA.BIN' '$opt' 2>'$work/err'; test \$? = 1 && grep -q 'expected mhfu' '$work/err'"
check "-o rules= refuses an unknown mode (exit 1)" bash -c "
	'$mount_bin' -o rules=lax '$work/DATA.BIN' '$opt' 2>'$work/err'; test \$? = 1 && grep -q 'expected strict, warn or off' '$work/err'"
check "-o cache_mb= refuses a negative budget (exit 1)" bash -c "
	'$mount_bin' -o cache_mb=-1 '$work/DATA.BIN' '$opt' 2>'$work/err'; test \$? = 1 && grep -q 'expected a whole number of MiB from 0 to' '$work/err'"
# fuse_opt's %d would wrap these: 2^32 MiB to 0, the others anywhere.
for bad in 99999999999999 18446744073709551617 4294967296 1048577 12abc ' 5'; do
	check "-o cache_mb=$bad is refused (exit 1), and -o scratch_mb=$bad" bash -c "
		for o in cache_mb scratch_mb; do
			'$mount_bin' -o \"\$o=$bad\" '$work/DATA.BIN' '$opt' 2>'$work/err'; rc=\$?
			mountpoint -q '$opt' && fusermount3 -u '$opt'
			test \$rc = 1 && grep -q \"\$o=$bad: expected a whole number of MiB from 0 to 1048576\" '$work/err' || exit 1
		done"
done
check "-o lock_wait= refuses what is not 0 to 3600 seconds (exit 1)" bash -c "
	for bad in 3601 -1 1.5 x; do
		'$mount_bin' -o lock_wait=\$bad '$work/DATA.BIN' '$opt' 2>'$work/err'; rc=\$?
		mountpoint -q '$opt' && fusermount3 -u '$opt'
		test \$rc = 1 && grep -q \"lock_wait=\$bad: expected a whole number of seconds from 0 to 3600\" '$work/err' || exit 1
	done"
check "-o cache_mb=1048576 (1 TiB, the largest) is taken as is" bash -c "
	'$mount_bin' -o cache_mb=1048576,scratch_mb=1048576 '$work/DATA.BIN' '$opt' && trap \"fusermount3 -u '$opt'\" EXIT &&
	grep -qx \$'cache_budget\t1099511627776' '$opt/.mhfu/info' && grep -qx \$'scratch_budget\t1099511627776' '$opt/.mhfu/info'"

# --- a single PAC ---
# The Tigrex's model PAC: its texts name it after the PAC's file name.
pac=file_06185.pac
single=$work/single
check "mount a single PAC ($pac)" mount_archive "$src/$pac" "$single"
expected=$work/single.expected
cp -r "$src/${pac%.pac}" "$expected"
find "$expected" \( -name '*.txt' -o -name '*.tsv' \) -exec sed -i "1s|^# ${pac%.pac}/|# $pac/|" {} +
find "$expected" -name '*.svg' -exec sed -i "s|>${pac%.pac}/|>$pac/|g" {} +
check "the PAC's mount equals its folder in the archive, its texts naming $pac" \
	diff -r "$expected" "$single" -x .mhfu
check "a clip's header names the PAC by its file name" \
	grep -q "^# $pac/3.anim stream 0 slot 0 " "$single/3/stream0/slot000.txt"
check "info: format PAC" test "$(info_field "$single" format)" = PAC
check "unmount the single PAC" unmount "$single"

# --- archives that must be refused, with what and where ---
bad=$work/bad.bin
head -c 10000 "$sample/DATA.BIN" >"$bad"
check "a truncated archive is refused (not whole blocks)" refused "$bad" 3 "not a whole number"
head -c $((2048 * 4)) "$sample/DATA.BIN" >"$bad"
check "a truncated archive is refused (TOC cut)" refused "$bad" 3 "not a DATA.BIN"
cp "$sample/DATA.plain.BIN" "$bad"
printf '\xff\xff\xff\x7f' | dd of="$bad" bs=1 seek=400 conv=notrunc status=none
check "a corrupt start list is refused, naming the word" refused "$bad" 3 "start\[100\]"
# Cut at a block where an entry starts: the start list ends at the file's
# block count there, and the TOC's words go on past it.
cut_at=$(awk -F'\t' '$2 == 100 { print $3 }' "$src/index.tsv")
for twin in DATA.BIN DATA.plain.BIN; do
	cp "$sample/$twin" "$bad"
	truncate -s $((cut_at * 2048)) "$bad"
	check "$twin cut where entry 100 starts is refused, naming it" refused "$bad" 3 \
		"entry 100 (file_00099) starts at block $cut_at, where the file ends, but the TOC lists 6656 entries"
done
check "a missing archive is refused" refused "$work/none.bin" 2 "No such file"

finish
