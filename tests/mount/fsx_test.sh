#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The randomized model check: fsx (tests/mount/fsx.c) runs its operations on a
# raw entry, a scratch file and a clip text, comparing each file with its
# model after every operation; first on a local directory (where nothing
# may mismatch), then once per seed on a fresh read-write mount of the
# sample.  After each mount's unmount the raw entry and the clip text on
# disk, decoded by mhfudump, must equal their models.  Ends with a table
# of operations and mismatches.
#
#   bash tests/mount/fsx_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY FSX_BINARY OPS SEED...
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
fsx=$(realpath "$4")
ops=$5
shift 5
seeds=("$@")
work=$(mktemp -d -t mhfu-fsx-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
operations=0 mismatches=0 disk_mismatches=0
mnt=$work/mnt
archive=$work/DATA.BIN
# The views fsx edits (tests/mount/exercise.h).
text=file_06185/3/stream2/slot024.txt
raw=file_00017.bin

trap 'leave "$mnt"' EXIT

# run_fsx LABEL ARGS...: runs fsx, relays its lines under LABEL and
# counts its files' verdicts; a mount's run adds its operations and
# mismatches to the table.
run_fsx() {
	local label=$1 rc
	shift
	"$fsx" "$@" >"$work/fsx.out" 2>&1
	rc=$?
	sed -n -e '/^[0-9]* passed, /d' -e "s/^\(not \)\{0,1\}ok - /&$label: /" -e p "$work/fsx.out"
	passed=$((passed + $(grep -c '^ok - ' "$work/fsx.out")))
	failed=$((failed + $(grep -c '^not ok - ' "$work/fsx.out")))
	[ $rc -le 1 ] || not_ok "$label: fsx ran to its end (exit $rc)"
	[ "$label" = local ] && return
	set -- $(sed -n 's/^fsx: seed [0-9]*, \([0-9]*\) operations, \([0-9]*\) mismatches$/\1 \2/p' "$work/fsx.out")
	operations=$((operations + ${1:-0}))
	mismatches=$((mismatches + ${2:-0}))
}

mkdir -p "$work/local" "$mnt"
run_fsx local --local --seed "${seeds[0]}" --ops "$ops" "$work/local"

on_disk() { # on_disk VIEW MODEL: the view on disk is the model
	cmp <("$dump" "$archive" "$1") "$2" || { disk_mismatches=$((disk_mismatches + 1)); return 1; }
}
for seed in "${seeds[@]}"; do
	cp "$sample/DATA.BIN" "$archive"
	"$mount_bin" "$archive" "$mnt" || { not_ok "mount"; continue; }
	rm -rf "$work/models" && mkdir -p "$work/models"
	run_fsx "mount, seed $seed" --seed "$seed" --ops "$ops" --models "$work/models" "$mnt"
	check "seed $seed: unmount" unmount "$mnt"
	check "seed $seed: on disk, the raw entry is its model" on_disk "$raw" "$work/models/raw.bin"
	check "seed $seed: on disk, the clip text is its model" on_disk "$text" "$work/models/text.txt"
	check "seed $seed: on disk, the archive decodes whole" "$dump" --check "$archive"
done

printf '\n| fsx figure | value |\n|---|---|\n'
printf '| operations | %s |\n| mismatches | %s |\n| mismatches on disk | %s |\n' \
	"$operations" "$mismatches" "$disk_mismatches"
finish
