#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make demo` mounts a copy: editing the demo's mount changes the copy, never
# the sample the tests use.  tests/gen/demo.sh runs here on a copy of the sample
# with its own demo and mount folders, from the work folder (so an older
# demo.sh, mounting ./mnt, mounts there too).
#
#   bash tests/mount/demo_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
demo_sh=$(realpath "$(dirname "$0")/../gen/demo.sh")
work=$(mktemp -d -t mhfu-demo-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
copy=$work/demo/DATA.BIN
clip=file_06185/3/stream2/slot024.txt

trap 'leave "$mnt"' EXIT

mkdir -p "$work/sample"
cp "$sample/DATA.BIN" "$work/sample/DATA.BIN"
demo() { (cd "$work" && bash "$demo_sh" "$mount_bin" "$work/sample" "$work/demo" "$mnt") >"$work/demo.out"; }
# The clip's first rotation key line, and its value in archive FILE.
L=$("$dump" "$sample/DATA.BIN" "$clip" | grep -n -m1 -A1 '^channel rot_x' | tail -1 | cut -d- -f1)
value() { "$dump" "$1" "$clip" | sed -n "${L}p" | awk '{ print $2 }'; }
sample_unchanged() { cmp "$sample/DATA.BIN" "$work/sample/DATA.BIN"; }
copy_has_edit() {
	local v
	v=$(value "$copy")
	[ "$v" = 321 ] || { echo "the copy's value: $v, want 321"; return 1; }
}

mounts_copy() { demo && grep -F "$copy" "$work/demo.out" && test -f "$mnt/.mhfu/info"; }
edit_lands_in_copy() {
	sed -i "${L}s/^\( *[0-9]* *\)-\{0,1\}[0-9]*/\1321/" "$mnt/$clip" &&
		sample_unchanged && copy_has_edit
}
copy_kept() { demo && grep 'kept from the last demo' "$work/demo.out" && copy_has_edit && sample_unchanged; }
copy_renewed() {
	touch -d '+1 minute' "$work/sample/DATA.BIN" && demo &&
		grep 'The copy is fresh' "$work/demo.out" && cmp "$sample/DATA.BIN" "$copy"
}
check "make demo mounts a copy and says so" mounts_copy
check "sed -i in the demo's mount changes the copy, not the sample" edit_lands_in_copy
check "the next make demo keeps the demo's edits" copy_kept
check "a regenerated sample replaces the copy" copy_renewed

unmount "$mnt"
finish
