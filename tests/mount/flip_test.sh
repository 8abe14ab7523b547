#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile archives: copies of the sample with random bytes flipped (in the
# TOC, in PAC tables, in skeletons and packs) are mounted and walked, every
# file read.  Each must be refused with a clear message (exit 3) or mount
# and serve every read or fail it cleanly: never a crash, a hang, or a
# sanitizer report.
#
#   bash tests/mount/flip_test.sh MOUNT_BINARY SAMPLE_DIR [ARCHIVES]
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
count=${3:-20}
work=$(mktemp -d -t mhfu-flip-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
refused=0 served=0
trap 'leave "$mnt"' EXIT
mkdir -p "$mnt"
size=$(stat -c %s "$sample/DATA.plain.BIN")
tig=$(awk -F'\t' '$1 == "file_06185.pac" { print $3 * 2048 }' "$sample/src/index.tsv")
RANDOM=7
for i in $(seq "$count"); do
	src=$([ $((i % 2)) = 0 ] && echo DATA.BIN || echo DATA.plain.BIN)
	cp "$sample/$src" "$archive"
	# Flip a few bytes: in the TOC, in the Tigrex's PAC, anywhere.
	for k in 1 2 3 4 5 6; do
		if [ $k = 1 ] && [ $((i % 4)) = 0 ]; then
			at=$(( (RANDOM * 32768 + RANDOM) % 34816 ))   # the TOC
		elif [ $((k % 2)) = 0 ]; then
			at=$(( tig + (RANDOM * 32768 + RANDOM) % 360000 ))   # the Tigrex's PAC
		else
			at=$(( 34816 + (RANDOM * 32768 + RANDOM) % (size - 34816) ))   # any entry
		fi
		printf "\\x$(printf %02x $((RANDOM % 256)))" | dd of="$archive" bs=1 seek="$at" conv=notrunc status=none
	done
	timeout 20 "$mount_bin" -o ro "$archive" "$mnt" 2>"$work/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		if [ $rc -eq 3 ] && [ -s "$work/err" ]; then refused=$((refused + 1)); continue; fi
		not_ok "archive $i: mount exit $rc"; cat "$work/err"; continue
	fi
	# Read errors are expected of damaged bytes; a read that hangs is not.
	timeout 120 bash -c "find '$mnt' -type f -print0 | xargs -0 cat >/dev/null 2>&1; find '$mnt' -type l | wc -l >/dev/null"
	if [ $? -eq 124 ]; then
		not_ok "archive $i: reading every file hung"
	elif ! mountpoint -q "$mnt" || ! test -f "$mnt/.mhfu/info"; then
		not_ok "archive $i: the driver died or hung"
	else
		served=$((served + 1))
	fi
	pid=$(daemon_pid "$mnt" 2>/dev/null)
	fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt"
	# Its sanitizer reports are written by the time it has exited.
	[ -z "$pid" ] || exited "$pid" || not_ok "archive $i: the driver did not exit"
done
no_sanitizer_reports || not_ok "sanitizer reports"
[ "$failed" -eq 0 ] && ok "$count damaged archives: $refused refused with a message, $served served, no crash"
closing_line
