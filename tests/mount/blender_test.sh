#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Blender's own export comes back (mount.mhfu(8) "entries/entryNNN.glb"):
# model.glb imported headless, one entry's action exported as Blender's
# glTF exporter writes it and copied onto entries/entryNNN.glb, which
# commits it as that entry.  Read back with entrycmp.py (an evaluator of
# its own from mhfu-clip(5)): the clip equals the original within the
# fitter's tolerances at every frame, and nothing else of DATA.BIN moved;
# a bone turned by 10 degrees at one frame in Blender is turned there and
# nowhere else, and one written to a slot changes that part alone; every
# entry exported at once and written back comes back within 0.1 degrees; a
# vertex of the body moved in Blender and written to 1/mesh.glb moves in
# the PMO, and the body written to model.glb itself moves it back; one
# deleted is refused; a file of every entry, or one that is
# no glTF, is refused
# with the reason, the text kept under .mhfu/rejected/.  Skipped without
# Blender (bash tests/deps.sh pictures installs it).
#
#   bash tests/mount/blender_test.sh MOUNT_BINARY SAMPLE_DIR
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
work=$(mktemp -d -t mhfu-blender-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
here=$(dirname "$(realpath "$0")")
mnt=$work/mnt
trap 'leave "$mnt" "$work/all" "$work/loose"' EXIT

check "-o fit= below half a raw unit, or not two numbers, is refused at mount" bash -c "
	mkdir -p '$work/nofit' && cp '$sample/DATA.BIN' '$work/fit.bin' &&
	! '$mount_bin' -o fit=0.1:1 '$work/fit.bin' '$work/nofit' 2>'$work/err' &&
	grep -q 'fit=0.1:1: expected ROT:LOC' '$work/err' &&
	! '$mount_bin' -o fit=2 '$work/fit.bin' '$work/nofit' 2>/dev/null"

if ! have blender; then
	skip "Blender's export back into an entry" "blender is not installed (bash tests/deps.sh pictures)"
	closing_line
	exit
fi

entries=$mnt/file_06185/3/entries
mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$work/DATA.BIN"
check "mount a copy of the sample" "$mount_bin" "$work/DATA.BIN" "$mnt"
cp "$mnt/file_06185/model.glb" "$work/model.glb"
cp "$entries/entry001.txt" "$work/entry001.before"
cp "$entries/entry002.txt" "$work/entry002.before"

# export ENTRY OUT [BONE FRAME DEGREES]: Blender's export of one entry.
export_entry() {
	GLB=$work/model.glb ENTRY=$1 OUT=$2 BONE=${3:-} FRAME=${4:-} DEGREES=${5:-} \
		blender --background --factory-startup --python "$here/blender_entry.py" 2>&1 |
		grep -q '^EXPORTED'
}

check "Blender exports entry 001 of model.glb" export_entry 1 "$work/entry001.glb"
export -f export_entry
export work here
check "cp of the export onto entries/entry001.glb commits it as entry 001" bash -c "
	cp '$work/entry001.glb' '$entries/entry001.glb' &&
	grep -q 'file_06185/3/entries/entry001.glb: committed' '$mnt/.mhfu/log'"
check "the entry is the original within the tolerances at every frame (rotations 0.25 degrees, locations 1.7 raw)" bash -c "
	cp '$entries/entry001.txt' '$work/entry001.fitted' &&
	python3 '$here/entrycmp.py' '$work/entry001.before' '$entries/entry001.txt' >'$work/cmp' &&
	cat '$work/cmp' && awk '\$1 == \"worst_turn\" && \$2 >= 0.25 { exit 1 } \$1 == \"worst_location\" && \$2 > 1.7 { exit 1 }' '$work/cmp'"
# Blender's floats carry model.glb's 16-bit rounding: the fitter still
# finds the engine's spans (423 key lines came back as 1,848 before it
# allowed for that).
check "... with about the keys it had (at most a tenth more)" bash -c "
	keys() { grep -c '^ *[0-9]' \"\$1\"; }
	echo \$(keys '$work/entry001.before') keys before, \$(keys '$work/entry001.fitted') after &&
	test \$((\$(keys '$work/entry001.fitted') * 10)) -le \$((\$(keys '$work/entry001.before') * 11))"
check "nothing else of DATA.BIN moved: entry 002 as it was, the Tigrex the only entry changed" bash -c "
	cmp '$entries/entry002.txt' '$work/entry002.before' &&
	test \"\$(grep -v '^#' '$mnt/.mhfu/changed.tsv' | cut -f1)\" = file_06185.pac"
check "the entry's file is the request: nothing left under its name" bash -c "! test -e '$entries/entry001.glb'"
# Entry 024 plays in the head's part alone: the others keep their clips.
check "entry 024 (the head's part alone) comes back the same way, the other parts keeping their clips" bash -c "
	cp '$entries/entry024.txt' '$work/entry024.before' && export_entry 24 '$work/entry024.glb' &&
	cp '$work/entry024.glb' '$entries/entry024.glb' &&
	python3 '$here/entrycmp.py' '$work/entry024.before' '$entries/entry024.txt' >'$work/cmp' &&
	cat '$work/cmp' && awk '\$1 == \"worst_turn\" && \$2 >= 0.25 { exit 1 } \$1 == \"worst_location\" && \$2 > 1.7 { exit 1 }' '$work/cmp' &&
	grep -c '^part [0-9] keeps its clip' '$entries/entry024.txt' | grep -qx 2"

# Every entry: one Blender export of every action, split into a file an
# animation (gltf_split.py), each written back onto the same mount: every
# one is its entry again within 0.1 degrees (0.04 at worst on the
# sample) and 1.7 raw location units at every frame, its last frame
# included (model.glb's times are the floats not before their frames:
# Blender truncates frames, and the nearest float lost entry 039's last
# frame, 1 degree off), and none is refused.
check "Blender exports every entry's action; each written back is its entry within 0.1 degrees, none refused" bash -c "
	mkdir -p '$work/all' '$work/split' && cp '$sample/DATA.BIN' '$work/all.bin' &&
	'$mount_bin' '$work/all.bin' '$work/all' &&
	GLB='$work/model.glb' ENTRY=all OUT='$work/every.glb' blender --background --factory-startup \
		--python '$here/blender_entry.py' 2>&1 | grep -q '^EXPORTED' &&
	n=\$(python3 '$here/gltf_split.py' '$work/every.glb' '$work/split') &&
	e='$work/all/file_06185/3/entries' &&
	test \$n = \$(grep -vc '^#' \$e/index.tsv) && close=0 &&
	for f in '$work/split'/entry*.glb; do
		name=\$(basename \$f .glb)
		cp \$e/\$name.txt '$work/before.txt' || exit 1
		cp \$f \$e/\$name.glb || { echo \$name refused; exit 1; }
		python3 '$here/entrycmp.py' '$work/before.txt' \$e/\$name.txt >'$work/cmp' || { echo \$name; exit 1; }
		awk -v n=\$name '\$1 == \"worst_turn\" && \$2 >= 0.1 { print n, \$0; exit 1 } \$1 == \"worst_location\" && \$2 > 1.7 { print n, \$0; exit 1 }' '$work/cmp' || exit 1
		close=\$((close + 1))
	done; echo \$close of \$n entries within 0.1 degrees
	fusermount3 -u '$work/all'; test \$close = \$n"

# Joint 05 (part 0's track 5) turned by 10 degrees at frame 30 alone.
check "Blender turns joint 05 by 10 degrees at frame 30 of entry 001 and exports it" \
	export_entry 1 "$work/turned.glb" "joint 05" 30 10
check "written back, the entry has the turn at frame 30 and nothing else beyond the tolerance" bash -c "
	cp '$entries/entry001.txt' '$work/entry001.now' && cp '$work/turned.glb' '$entries/entry001.glb' &&
	python3 '$here/entrycmp.py' '$work/entry001.now' '$entries/entry001.txt' --at 0 5 30 --skip 0 5 30 >'$work/cmp' &&
	cat '$work/cmp' &&
	awk '\$1 == \"turn_at\" && (\$2 < 9.5 || \$2 > 10.5) { exit 1 } \$1 == \"worst_turn\" && \$2 >= 0.25 { exit 1 }' '$work/cmp'"

# Joint 33 (the head, part 1's track 2) turned at frame 20, written to
# the head's slot: that part alone changes.
check "Blender turns joint 33 by 10 degrees at frame 20 of entry 001" \
	export_entry 1 "$work/head.glb" "joint 33" 20 10
check "copied onto stream2/slot001.glb, the head's part has the turn and the body's slot stays as it was" bash -c "
	cp '$mnt/file_06185/3/stream0/slot001.txt' '$work/body.before' &&
	cp '$entries/entry001.txt' '$work/entry001.now' &&
	cp '$work/head.glb' '$mnt/file_06185/3/stream2/slot001.glb' &&
	cmp '$mnt/file_06185/3/stream0/slot001.txt' '$work/body.before' &&
	python3 '$here/entrycmp.py' '$work/entry001.now' '$entries/entry001.txt' --at 1 2 20 --skip 1 2 20 >'$work/cmp' &&
	cat '$work/cmp' &&
	awk '\$1 == \"turn_at\" && (\$2 < 9.5 || \$2 > 10.5) { exit 1 } \$1 == \"worst_turn\" && \$2 >= 0.25 { exit 1 }' '$work/cmp'"

# Looser tolerances (-o fit=), fewer keys: the same export, every frame
# within them.
check "-o fit=16:16: the same export fitted with fewer keys, within 16 raw units" bash -c "
	mkdir -p '$work/loose' && cp '$sample/DATA.BIN' '$work/loose.bin' &&
	'$mount_bin' -o fit=16:16 '$work/loose.bin' '$work/loose' &&
	cp '$work/entry001.glb' '$work/loose/file_06185/3/entries/entry001.glb' &&
	cp '$work/loose/file_06185/3/entries/entry001.txt' '$work/entry001.loose' &&
	fusermount3 -u '$work/loose' && sleep 0.3 &&
	python3 '$here/entrycmp.py' '$work/entry001.before' '$work/entry001.loose' >'$work/cmp' &&
	cat '$work/cmp' && awk '\$1 == \"worst_location\" && \$2 > 16.1 { exit 1 }' '$work/cmp' &&
	test \$(grep -c '^ *[0-9-]' '$work/entry001.loose') -lt \$(grep -c '^ *[0-9-]' '$work/entry001.fitted')"

# The body: Blender's mesh vertex 100 (group 2's vertex 16: the groups'
# vertices in order) moved 5 units along X, written to 1/mesh.glb.
mesh_export() {
	GLB=$work/model.glb OUT=$1 VERTEX=100 DX=${2:-0} DELETE=${3:-} \
		blender --background --factory-startup --python "$here/blender_mesh.py" 2>&1 |
		grep -q '^EXPORTED'
}
check "Blender moves one vertex of the body and exports it" mesh_export "$work/mesh.glb" 5
check "copied onto 1/mesh.glb, that vertex alone moves in the PMO, by 5 units along X" bash -c "
	cp '$mnt/file_06185/1/vertices.tsv' '$work/vertices.before' &&
	cp '$work/mesh.glb' '$mnt/file_06185/1/mesh.glb' &&
	diff '$work/vertices.before' '$mnt/file_06185/1/vertices.tsv' | grep '^[<>]' >'$work/moved' ;
	cat '$work/moved' && test \$(wc -l <'$work/moved') = 2 &&
	awk '\$2 == 2 && \$3 == 16 { x[\$1] = \$4 } END { d = x[\">\"] - x[\"<\"]; exit !(d > 4.95 && d < 5.05) }' '$work/moved'"
check "Blender exports the body unmoved (model.glb as it was)" mesh_export "$work/unmoved.glb" 0
check "copied onto model.glb itself, the body is as the export has it: vertices.tsv as before the move" bash -c "
	cp '$work/unmoved.glb' '$mnt/file_06185/model.glb' &&
	cmp '$work/vertices.before' '$mnt/file_06185/1/vertices.tsv' &&
	grep -q 'file_06185/model.glb: committed' '$mnt/.mhfu/log' &&
	head -c 4 '$mnt/file_06185/model.glb' | grep -q glTF"
check "a body with a vertex deleted is refused: growing or cutting geometry is not supported" bash -c "
	mesh_export() { GLB='$work/model.glb' OUT=\$1 VERTEX=100 DELETE=1 blender --background --factory-startup --python '$here/blender_mesh.py' 2>&1 | grep -q '^EXPORTED'; } &&
	mesh_export '$work/cut.glb' &&
	! cp '$work/cut.glb' '$mnt/file_06185/1/mesh.glb' 2>/dev/null &&
	grep -q 'mesh.glb.*not supported yet' '$mnt/.mhfu/log'"

check "model.glb itself (every entry) is refused, saying how many animations; the bytes kept" bash -c "
	! cp '$work/model.glb' '$entries/entry003.glb' 2>/dev/null &&
	grep -q 'entry003.glb.*animations' '$mnt/.mhfu/log' && ls '$mnt/.mhfu/rejected/' | grep -q 'entry003.glb'"
check "a text that is no glTF is refused with the reason" bash -c "
	echo 'not a model' > '$work/junk.glb' && ! cp '$work/junk.glb' '$entries/entry004.glb' 2>/dev/null &&
	grep -q 'entry004.glb: ' '$mnt/.mhfu/log'"

unmount "$mnt"
finish
