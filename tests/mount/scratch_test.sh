#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scratch files (names that are not views, held in memory) share one
# budget: past it, writes fail with ENOSPC as on a full disk, the daemon
# stays alive and its memory bounded, and removing or truncating files
# gives the room back.
#
#   bash tests/mount/scratch_test.sh MOUNT_BINARY SAMPLE_DIR
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/mhfu-scratch-test.XXXXXX")
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
budget_mb=32

trap 'leave "$mnt"' EXIT
info() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$mnt/.mhfu/info"; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$(info pid)/status"; }

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
"$mount_bin" "$archive" "$mnt"
check "the default scratch budget is 256 MiB" test "$(info scratch_budget)" = $((256 << 20))
unmount "$mnt"

"$mount_bin" -o scratch_mb=$budget_mb "$archive" "$mnt"
dir=$mnt/file_06185/3/stream2
# 12 files of 14 MiB, 168 MiB in all: the third cannot fit in 32 MiB.
for i in $(seq 12); do
	dd if=/dev/zero of="$dir/fill$i.tmp" bs=1M count=14 status=none 2>>"$work/dd.err" || break
done
check "writes past the budget fail with ENOSPC (two files of 14 MiB fit in 32)" bash -c "
	grep -q 'No space left on device' '$work/dd.err' && test $i = 3 &&
	test \$(stat -c %s '$dir/fill1.tmp') = $((14 << 20)) && test \$(stat -c %s '$dir/fill2.tmp') = $((14 << 20))"
check "the daemon is alive and counts what it holds within the budget" bash -c "
	test \$(awk -F'\\t' '\$1 == \"scratch_bytes\" { print \$2 }' '$mnt/.mhfu/info') -le $((budget_mb << 20)) &&
	cat '$dir/slot024.txt' >/dev/null"
# Twice the budget and some: room for a sanitizer's own use of memory.
check "the daemon's memory stays bounded (VmRSS below 2 x budget + 64 MiB)" bash -c "
	echo \"VmRSS $(rss_kb) kB\"; test $(rss_kb) -lt $(((2 * budget_mb + 64) << 10))"
check "a truncate that does not fit fails with ENOSPC too" bash -c "
	! truncate -s 30M '$dir/fill1.tmp' 2>'$work/e' && grep -q 'No space left' '$work/e'"
check "rm gives the room back: a 30 MiB file then fits" bash -c "
	rm '$dir'/fill*.tmp && test \$(awk -F'\\t' '\$1 == \"scratch_bytes\" { print \$2 }' '$mnt/.mhfu/info') = 0 &&
	dd if=/dev/zero of='$dir/big.tmp' bs=1M count=30 status=none && test \$(stat -c %s '$dir/big.tmp') = $((30 << 20))"
check "truncating gives the room back too" bash -c "
	truncate -s 0 '$dir/big.tmp' && test \$(awk -F'\\t' '\$1 == \"scratch_bytes\" { print \$2 }' '$mnt/.mhfu/info') = 0 &&
	dd if=/dev/zero of='$dir/other.tmp' bs=1M count=30 status=none"
check "sed -i still saves a view with the budget nearly used (30 of 32 MiB)" \
	sed -i 's/^# .*//' "$dir/slot024.txt"
unmount "$mnt"

finish
