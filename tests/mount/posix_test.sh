#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# POSIX conformance: posix_check's table of cases (tests/mount/posix_check.c),
# run first on a local directory, where every case must pass (so the cases
# say what a local disk does), then on a real read-write mount of the
# sample.  What the cases committed through the mount is then checked on
# the archive on disk, decoded by mhfudump.
#
#   bash tests/mount/posix_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY POSIX_CHECK_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
posix_check=$(realpath "$4")
work=$(mktemp -d -t mhfu-posix-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
# The views posix_check edits (tests/mount/exercise.h).
text=file_06185/3/stream2/slot024.txt
raw=file_00043.bin

trap 'leave "$mnt"' EXIT

# --- on a local directory: the cases are right -------------------------
mkdir -p "$work/local"
check "posix_check --local: every case passes on a local directory" "$posix_check" --local "$work/local"

# --- on a mount: each case is a result of its own ----------------------
mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
"$mount_bin" "$archive" "$mnt" || { not_ok "mount"; exit 1; }
"$posix_check" "$mnt" >"$work/cases" 2>&1
rc=$?
grep -v '^[0-9]* passed, ' "$work/cases"
passed=$((passed + $(grep -c '^ok - ' "$work/cases")))
failed=$((failed + $(grep -c '^not ok - ' "$work/cases")))
[ $rc -le 1 ] || not_ok "posix_check ran to its end (exit $rc)"

check "the cases left no scratch file in the mount" bash -c "
	! ls -a '$mnt' '$mnt/${text%/*}' | grep '^pc-'"
cp "$mnt/$text" "$work/text.mount"
cp "$mnt/$raw" "$work/raw.mount"
check "unmount" unmount "$mnt"

# --- on disk ------------------------------------------------------------
# The clip text: the one edit renamed over it (its first rotation key's
# value moved by 7 toward zero); the comments appended later are not part
# of the clip.
awk '/^channel / { rot = /^channel rot_/ } rot && !done && NF == 4 && length($0) == 35 {
	$0 = sprintf("%8d%8d%9d%10d", $1, $2 > 0 ? $2 - 7 : $2 + 7, $3, $4); done = 1 } 1' \
	"$sample/src/$text" >"$work/text.want"
check "on disk: the clip text holds the edit renamed over it" bash -c "
	diff <('$dump' '$archive' '$text') '$work/text.want' && cmp '$work/text.mount' '$work/text.want'"
# The raw entry: the last cases truncate it to 60 bytes, grow it to 2000
# (zeros) and write 'mtime' at byte 10.
{ head -c 10 "$sample/src/$raw"; printf mtime; tail -c +16 "$sample/src/$raw" | head -c 45; head -c 1940 /dev/zero; } >"$work/raw.want"
check "on disk: the raw entry holds what the cases left" bash -c "
	cmp <('$dump' '$archive' '$raw') '$work/raw.want' && cmp '$work/raw.mount' '$work/raw.want'"
check "on disk: the entries beside them are unchanged" bash -c "
	for e in file_00042.bin file_00044.bin file_06185/3/stream2/slot023.txt file_06185/3/stream2/slot025.txt file_06185/0/skeleton.txt; do
		cmp <('$dump' '$archive' \$e) '$sample/src/'\$e || exit 1
	done"
check "on disk: the archive decodes whole" "$dump" --check "$archive"
finish
