#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's picture: the sample's Tigrex as model.glb shows it, posed
# at a frame of an executor entry, rendered headless by Blender
# (tests/gen/picture.py) from a read-only mount of a copy of the sample.
#
#   bash tests/gen/picture.sh MOUNT_BINARY SAMPLE_DIR OUT.png [ENTRY [FRAME]]
#
# ENTRY is "entry NNN" (default "entry 001"), FRAME a frame (default 30).
# Needs blender (`bash tests/deps.sh pictures`).
set -euo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
out=$(realpath "$3")
entry=${4:-entry 001}
frame=${5:-30}
here=$(realpath "$(dirname "$0")")
if ! command -v blender >/dev/null; then
	echo "picture.sh: blender is not installed: run bash tests/deps.sh pictures" >&2
	exit 1
fi
work=$(mktemp -d -t mhfu-picture.XXXXXX)
export XDG_STATE_HOME=$work/state
mnt=$work/mnt
cleanup() {
	mountpoint -q "$mnt" && fusermount3 -u "$mnt"
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$work/DATA.BIN"
"$mount_bin" -o ro "$work/DATA.BIN" "$mnt"
cp "$mnt/file_06185/model.glb" "$work/model.glb"
fusermount3 -u "$mnt"
blender --background --factory-startup --python "$here/picture.py" -- \
	"$work/model.glb" "$work/picture.png" "$entry" "$frame" >"$work/blender.log" 2>&1 ||
	{ tail -20 "$work/blender.log" >&2; exit 1; }
grep -q '^PICTURE ' "$work/blender.log" || { tail -20 "$work/blender.log" >&2; exit 1; }
mv "$work/picture.png" "$out"
echo "picture.sh: $out: file_06185/model.glb, $entry at frame $frame"
