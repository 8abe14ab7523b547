#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ports on real mounts (mount.mhfu(8) "PORTS"): the README's walk-through
# over the two samples (an MHP3rd donor's donor.pac copied into the MHFU
# Tigrex's port/, map.tsv and layout.tsv read, out.pac copied out,
# committed over the raw entry and undone), the identity port (the MHFU
# Tigrex offered as an MHP3rd donor gives back its own clips), port.txt's
# settings (pin, map, lift; a bad line refused as path:line:col), the
# donor kept across a remount and taken away by rm, garbage refused, a
# wrong offset tripping the fork check, the Zinogre's clips past the
# Tigrex's entries listed unplaced, mode own (the Brute's skeleton, body
# and textures, each whole-port check, tear.svg, skin transfer tearing),
# and kill -9 during the commit of out.pac leaving all or nothing.
#
#   bash tests/mount/port_test.sh MOUNT_BINARY SAMPLE_DIR
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
work=$(mktemp -d -t mhfu-port-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
fu=$work/fu p3=$work/p3 pac=$work/pac
trap 'leave "$fu" "$p3" "$pac"' EXIT

# The samples' sets (tests/gen/mkmodels.c): the MHP3rd sample's Brute
# Tigrex, Zinogre and identity donor (the MHFU Tigrex offered as an MHP3rd
# monster); the MHFU sample's Tigrex, the host.
brute=file_05248 brute_moveset=file_05250 identity=file_05500
port=$fu/by-name/tigrex/port
host_pac=$sample/src/file_06185.pac

mkdir -p "$fu" "$p3" "$pac" "$work/mods"
cp "$sample/DATA.BIN" "$work/fu.bin"
cp "$sample/p3rd/DATA.BIN" "$work/p3.bin"
check "mount both samples" bash -c "
	'$mount_bin' '$work/fu.bin' '$fu' && '$mount_bin' '$work/p3.bin' '$p3'"

# ---- the donor bundle ------------------------------------------------------
check "an MHP3rd model folder has donor.pac, reached by name; an MHFU one has none" bash -c "
	test -f '$p3/by-name/brute-tigrex/donor.pac' && test -f '$p3/$brute/donor.pac' &&
	test -f '$p3/by-name/zinogre/donor.pac' && ! test -e '$fu/file_06185/donor.pac'"
check "donor.pac is a PAC of the model's skeleton, PMO and bank, the companion, the moveset and its settings" bash -c "
	'$mount_bin' '$p3/$brute/donor.pac' '$pac' &&
	cmp '$pac/0.skeleton' '$p3/$brute/0.skeleton' && cmp '$pac/1.pmo' '$p3/$brute/1.pmo' &&
	cmp '$pac/2.tmh' '$p3/$brute/2.tmh' && cmp '$pac/3.anim' '$p3/$brute_moveset.anim' &&
	cmp '$pac/4.bin' '$p3/file_05249.bin' &&
	head -1 '$pac/5.bin' | grep -qx 'mhfufs-donor 1' && grep -qx 'name brute-tigrex' '$pac/5.bin' &&
	grep -qx 'monster 23' '$pac/5.bin'"
unmount "$pac"
check "donor.pac is read-only" bash -c "! cp /dev/null '$p3/$brute/donor.pac'"

# ---- the walk-through --------------------------------------------------------
check "port/ before a donor: port.txt with the defaults, check.txt saying what to copy" bash -c "
	test -f '$port/port.txt' && grep -q '^# mode host' '$port/port.txt' &&
	grep -q 'donor absent' '$port/check.txt' && ! test -e '$port/out.pac' &&
	! test -e '$port/map.tsv'"
check "cp donor.pac into port/" cp "$p3/by-name/brute-tigrex/donor.pac" "$port/"
check "port/ holds the donor as copied, its stat the copy's size, and every made file" bash -c "
	cmp '$port/donor.pac' '$p3/$brute/donor.pac' &&
	test \$(stat -c %s '$port/donor.pac') = \$(stat -c %s '$p3/$brute/donor.pac') &&
	for f in port.txt map.tsv layout.tsv check.txt model.glb out.pac; do test -s '$port/'\$f || exit 1; done"
check "the archive's bytes did not change" cmp "$sample/DATA.BIN" "$work/fu.bin"
check "map.tsv: the hip 2 is driven by the donor's hip 1; every animated joint has a row" bash -c "
	awk -F'\t' '\$1 == 2 { exit !(\$2 == 1) }' '$port/map.tsv' &&
	test \$(grep -vc '^#' '$port/map.tsv') = 48"
check "layout.tsv: 123 entries; 24 and 25 keep the host's head clips; clip 24 placed elsewhere" bash -c "
	test \$(awk -F'\t' '\$1 ~ /^[0-9]+\$/' '$port/layout.tsv' | wc -l) = 123 &&
	awk -F'\t' '\$1 == 24 || \$1 == 25 { if (\$5 != \"partial\") exit 1 }' '$port/layout.tsv' &&
	awk -F'\t' '\$2 == 24 { found = 1; if (\$1 == 24) exit 1 } END { exit !found }' '$port/layout.tsv'"
check "check.txt: every check passed, out.pac made" bash -c "
	! grep -E '^[a-z]+ error' '$port/check.txt' && grep -q '^out.pac: made' '$port/check.txt'"
check "cp port/out.pac ~/mods/ ships it" bash -c "
	cp '$port/out.pac' '$work/mods/' && cmp '$port/out.pac' '$work/mods/out.pac'"
check "out.pac is the host with only its pack changed" bash -c "
	'$mount_bin' '$work/mods/out.pac' '$pac' &&
	cmp '$pac/0.skeleton' '$fu/file_06185/0.skeleton' && cmp '$pac/1.pmo' '$fu/file_06185/1.pmo' &&
	cmp '$pac/2.tmh' '$fu/file_06185/2.tmh' && ! cmp -s '$pac/3.anim' '$fu/file_06185/3.anim'"
check "every entry the layout gives a donor clip plays it for as long as the donor's clip" bash -c "
	awk -F'\t' '\$1 ~ /^[0-9]+\$/ && \$2 != \"-\" { print \$1, \$3 }' '$port/layout.tsv' |
	while read -r e frames; do
		got=\$(awk -F'\t' -v e=\$(printf %03d \$e) '\$1 == e { print \$4 }' '$pac/3/entries/index.tsv')
		[ \"\$got\" = \"\$frames\" ] || { echo \"entry \$e: \$got frames, want \$frames\"; exit 1; }
	done"
entries_out=$(grep -vc '^#' "$pac/3/entries/index.tsv")
unmount "$pac"
here=$(dirname "$(realpath "$0")")
if have node && have npm && NODE_PATH=$(npm root -g) node -e "require('gltf-validator')" 2>/dev/null; then
	check "the Khronos glTF validator finds no error in port/model.glb" \
		env NODE_PATH="$(npm root -g)" node "$here/gltf_validate.js" "$port/model.glb"
else
	skip "the Khronos glTF validator" "npm's gltf-validator is not installed (bash tests/deps.sh pictures)"
fi
if have blender; then
	# The host's body on the host's rig, an action per entry out.pac plays.
	cp "$port/model.glb" "$work/port.glb"
	got=$(GLB=$work/port.glb blender --background --factory-startup --python-expr '
import os, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=os.environ["GLB"], import_shading="FLAT")
bones = sum(len(o.data.bones) for o in bpy.data.objects if o.type == "ARMATURE")
verts = sum(len(o.data.vertices) for o in bpy.data.objects if o.type == "MESH")
print("IMPORTED", bones, len(bpy.data.actions), verts)
' 2>&1 | awk '$1 == "IMPORTED" { print $2, $3, $4 }')
	check "Blender imports port/model.glb: the host's 48 bones, its body, an action per entry of out.pac ($entries_out; got: ${got:-nothing})" \
		awk -v g="${got:-}" -v n="$entries_out" 'BEGIN { split(g, f, " "); exit !(f[1] == 48 && f[2] == n && f[3] > 1000) }'
else
	skip "the Blender import of port/model.glb" "blender is not installed (bash tests/deps.sh pictures)"
fi
# The Tigrex's entry has no size record: it reads back in whole blocks.
check "cp port/out.pac over the raw entry commits it" bash -c "
	cp '$port/out.pac' '$work/ported.pac' && cp '$work/ported.pac' '$fu/file_06185.pac' &&
	cmp -n \$(stat -c %s '$work/ported.pac') '$fu/file_06185.pac' '$work/ported.pac' &&
	! cmp -s '$sample/DATA.BIN' '$work/fu.bin'"
check "the commit is in the history, and the port's views followed it" bash -c "
	tail -1 '$fu/.mhfu/history' | grep -q 'file_06185' &&
	grep -q '^out.pac: made' '$port/check.txt'"
id=$(tail -1 "$fu/.mhfu/history" | cut -f1)
check "undo takes the port back out" bash -c "
	echo $id > '$fu/.mhfu/undo' && cmp '$fu/file_06185.pac' '$host_pac'"

# ---- settings ------------------------------------------------------------------
check "pin: clip 5 into entry 7, the clip it displaces into entry 5" bash -c "
	echo 'pin 5 7' >> '$port/port.txt' &&
	awk -F'\t' '\$1 == 7 { exit !(\$2 == 5 && \$5 == \"pinned\") }' '$port/layout.tsv' &&
	awk -F'\t' '\$1 == 5 { exit !(\$2 == 7 && \$5 == \"moved\") }' '$port/layout.tsv' &&
	grep -qx 'pin 5 7' '$port/port.txt'"
check "a bad line is refused as path:line:col and kept in .mhfu/rejected/" bash -c "
	! sed -i '\$a pin 5' '$port/port.txt' 2>/dev/null &&
	grep -E 'by-name/tigrex/port/port.txt:[0-9]+:[0-9]+|file_06185/port/port.txt:[0-9]+:[0-9]+' '$fu/.mhfu/log' &&
	ls '$fu/.mhfu/rejected/' | grep -q 'port.txt' && grep -qx 'pin 5 7' '$port/port.txt'"
check "map past the host's joints is refused with the range" bash -c "
	! sed -i '\$a map 99 3' '$port/port.txt' 2>/dev/null &&
	grep -q 'port.txt:[0-9]*:5: VALUE_RANGE joint 99: the host.s joints are 0..47' '$fu/.mhfu/log'"
check "map 10 -: joint 10 rests, map.tsv says set by hand" bash -c "
	echo 'map 10 -' >> '$port/port.txt' &&
	awk -F'\t' '\$1 == 10 { exit !(\$2 == \"-\" && \$6 == \"unset\") }' '$port/map.tsv'"
check "the settings and the donor outlive a remount" bash -c "
	fusermount3 -u '$fu' && sleep 0.5 && '$mount_bin' '$work/fu.bin' '$fu' &&
	grep -qx 'pin 5 7' '$port/port.txt' && cmp '$port/donor.pac' '$p3/$brute/donor.pac'"
check "writing port.txt without settings takes them away" bash -c "
	grep -v '^[a-z]' '$port/port.txt' > '$work/defaults' && cat '$work/defaults' > '$port/port.txt' &&
	! grep -q '^pin' '$port/port.txt' && awk -F'\t' '\$1 == 7 { exit !(\$5 == \"own\") }' '$port/layout.tsv'"

# ---- faults ---------------------------------------------------------------------
check "rm donor.pac takes the donor away" bash -c "
	rm '$port/donor.pac' && ! test -e '$port/donor.pac' && ! test -e '$port/map.tsv' &&
	! test -e '$port/out.pac' && grep -q 'donor absent' '$port/check.txt'"
check "garbage copied as donor.pac is refused: cp fails, the port has no donor, the bytes stay pending" bash -c "
	head -c 100000 /dev/urandom > '$work/junk.pac' && ! cp '$work/junk.pac' '$port/donor.pac' 2>/dev/null &&
	grep -q 'donor absent' '$port/check.txt' && ! test -e '$port/map.tsv' &&
	getfattr -n user.mhfu.error --only-values '$port/donor.pac' | grep -q 'no donor bundle'"
check "a wrong offset trips the fork check: check.txt says so, out.pac is absent" bash -c "
	sed -i 's/^offset [0-9]* /offset 3 /' '$p3/$brute_moveset/records.txt' &&
	grep -q '^offset 3' '$p3/$brute_moveset/records.txt' &&
	cp '$p3/$brute/donor.pac' '$port/donor.pac' &&
	grep -q '^fork error' '$port/check.txt' && ! test -e '$port/out.pac' &&
	grep -q '^out.pac: absent' '$port/check.txt'"
sed -i 's/^offset 3 /offset auto /' "$p3/$brute_moveset/records.txt"

check "the Zinogre's 140 clips on the Tigrex's 123 entries: the placed and the unplaced rows add up, none dropped" bash -c "
	cp '$p3/by-name/zinogre/donor.pac' '$port/donor.pac' &&
	test \$(stat -c %s '$port/donor.pac') = \$(stat -c %s '$p3/by-name/zinogre/donor.pac') &&
	placed=\$(awk -F'\t' '\$1 ~ /^[0-9]+\$/ && \$2 != \"-\"' '$port/layout.tsv' | wc -l) &&
	unplaced=\$(awk -F'\t' '\$5 == \"unplaced\"' '$port/layout.tsv' | wc -l) &&
	test \$placed -gt 0 && test \$unplaced -gt 0 && test \$((placed + unplaced)) = 140 &&
	grep -q \"^placed ok: \$placed of 140 donor clips placed, \$unplaced listed unplaced\" '$port/check.txt' &&
	awk -F'\t' '\$5 == \"unplaced\" && (\$2 == 24 || \$2 == 25)' '$port/layout.tsv' | grep -q ."

# ---- the identity port --------------------------------------------------------------
# A whole-rig clip has one loop, part 0's; the sample's parts loop each
# their own way, so the other parts' slots are compared but for the loop.
check "the MHFU Tigrex offered as an MHP3rd donor, ported onto itself, gives back its clips" bash -c "
	cp '$p3/$identity/donor.pac' '$port/donor.pac' && grep -q '^out.pac: made' '$port/check.txt' &&
	cp '$port/out.pac' '$work/identity.pac' && '$mount_bin' '$work/identity.pac' '$pac' &&
	cd '$fu/file_06185/3' && for f in stream*/slot*.txt; do
		case \$f in stream0/*) skip='^#' ;; *) skip='^#|^loop' ;; esac
		cmp <(grep -Ev \"\$skip\" \$f) <(grep -Ev \"\$skip\" '$pac/3/'\$f) ||
			{ echo \"\$f differs\"; exit 1; }
	done"
unmount "$pac"

# ---- mode own: the whole monster -------------------------------------------------
check "mode own: every whole-port check passes with its figure, TEMPLATE a warning, out.pac made" bash -c "
	cp '$p3/$brute/donor.pac' '$port/donor.pac' && sed -i '\$a mode own' '$port/port.txt' &&
	grep -qx 'mode own' '$port/port.txt' &&
	for c in still tear bones skin tip; do
		grep -q \"^\$c ok: \" '$port/check.txt' || { echo \"no \$c\"; cat '$port/check.txt'; exit 1; }
	done &&
	grep -q '^template warning: ' '$port/check.txt' && grep -q '^out.pac: made' '$port/check.txt'"
check "map.tsv in mode own: a pad joint, then the donor's bones as the own rig's joints" bash -c "
	awk -F'\t' '\$1 == 0 { exit !(\$6 == \"pad\") }' '$port/map.tsv' &&
	awk -F'\t' '\$1 == 2 { exit !(\$2 == 1 && \$6 == \"own\") }' '$port/map.tsv' &&
	test \$(grep -vc '^#' '$port/map.tsv') = 48"
check "out.pac in mode own: the own rig, the donor's body re-laid as an MHFU PMO with its vertices, its textures as stored" bash -c "
	cp '$port/out.pac' '$work/own.pac' && '$mount_bin' '$work/own.pac' '$pac' &&
	test \$(grep -vc '^#' '$pac/0/bind_world.tsv') = 48 &&
	test \$(grep -vc '^#' '$pac/1/vertices.tsv') = \$(grep -vc '^#' '$p3/$brute/1/vertices.tsv') &&
	grep -q 'version 1.0' '$pac/1/mesh.txt' && cmp '$pac/2.tmh' '$p3/$brute/2.tmh'"
unmount "$pac"
check "tear.svg: well-formed SVG; no edge of the sample's tubes crosses the fork, and it says so" python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse('$port/tear.svg').getroot()
notes = [t.text for t in root.iter('{http://www.w3.org/2000/svg}text') if t.text]
sys.exit(not (root.tag.endswith('svg') and any('no edge crosses the body fork' in n for n in notes)))"
if have node && have npm && NODE_PATH=$(npm root -g) node -e "require('gltf-validator')" 2>/dev/null; then
	check "the Khronos glTF validator finds no error in port/model.glb in mode own" \
		env NODE_PATH="$(npm root -g)" node "$here/gltf_validate.js" "$port/model.glb"
fi
if have blender; then
	cp "$port/model.glb" "$work/own.glb"
	got=$(GLB=$work/own.glb blender --background --factory-startup --python-expr '
import os, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=os.environ["GLB"], import_shading="FLAT")
bones = sum(len(o.data.bones) for o in bpy.data.objects if o.type == "ARMATURE")
verts = sum(len(o.data.vertices) for o in bpy.data.objects if o.type == "MESH")
print("IMPORTED", bones, verts)
' 2>&1 | awk '$1 == "IMPORTED" { print $2, $3 }')
	want="48 $(grep -vc '^#' "$p3/$brute/1/vertices.tsv")"
	check "Blender imports port/model.glb in mode own: the donor's body on the own rig ($want; got: ${got:-nothing})" \
		test "${got:-}" = "$want"
else
	skip "the Blender import of port/model.glb in mode own" "blender is not installed (bash tests/deps.sh pictures)"
fi
# The host's weights taken at the closest point of a body of another shape
# (the sample's bind poses are random) tear it: the checks catch it.
check "skin transfer: no skin check; the tear of the transferred weights trips, out.pac absent" bash -c "
	sed -i '\$a skin transfer' '$port/port.txt' && grep -qx 'skin transfer' '$port/port.txt' &&
	! grep -q '^skin ' '$port/check.txt' && grep -q '^tear error: worst edge growth' '$port/check.txt' &&
	grep -q '^out.pac: absent' '$port/check.txt' && ! test -e '$port/out.pac'"
check "tear.svg plots each entry's worst growth at 25, 50 and 75%, the bars past the limit marked" python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse('$port/tear.svg').getroot()
ns = '{http://www.w3.org/2000/svg}'
groups = [g for g in root.iter(ns + 'g') if g.get('class') == 'entry']
over = [r for g in groups for r in g.iter(ns + 'rect') if 'over' in (r.get('class') or '')]
sys.exit(not (len(groups) > 10 and all(len(list(g.iter(ns + 'rect'))) == 3 for g in groups) and over))"
check "skin source again: out.pac is back" bash -c "
	sed -i 's/^skin transfer\$/skin source/' '$port/port.txt' && grep -q '^out.pac: made' '$port/check.txt'"
check "the whole port commits over the Tigrex's entry and is undone" bash -c "
	cp '$port/out.pac' '$work/own.pac' && cp '$work/own.pac' '$fu/file_06185.pac' &&
	cmp -n \$(stat -c %s '$work/own.pac') '$fu/file_06185.pac' '$work/own.pac' &&
	echo last > '$fu/.mhfu/undo' && cmp '$fu/file_06185.pac' '$host_pac'"
check "skin in mode host is refused at its line:col" bash -c "
	printf 'skin source\n' > '$work/host-skin.txt' && ! cp '$work/host-skin.txt' '$port/port.txt' 2>/dev/null &&
	grep -q 'port/port.txt:1:1: ' '$fu/.mhfu/log'"
check "port.txt written without settings: mode host again" bash -c "
	grep -v '^[a-z]' '$port/port.txt' > '$work/defaults' && cat '$work/defaults' > '$port/port.txt' &&
	grep -q '^# mode host' '$port/port.txt' && ! grep -q '^still ' '$port/check.txt'"

# ---- kill -9 during the commit ----------------------------------------------------------
cp "$p3/$brute/donor.pac" "$port/donor.pac"
cp "$port/out.pac" "$work/ported.pac"
for delay in 0.001 0.01 0.03 0.08; do
	pid=$(daemon_pid "$fu")
	cp "$work/ported.pac" "$fu/file_06185.pac" 2>/dev/null &
	sleep "$delay"
	kill -9 "$pid"
	wait
	exited "$pid"
	fusermount3 -u -z "$fu" 2>/dev/null
	"$mount_bin" "$work/fu.bin" "$fu" || break
	if cmp -s "$fu/file_06185.pac" "$host_pac" ||
		cmp -s -n "$(stat -c %s "$work/ported.pac")" "$fu/file_06185.pac" "$work/ported.pac"; then
		ok "kill -9 $delay s into the commit of out.pac: all or nothing"
	else
		not_ok "kill -9 $delay s into the commit of out.pac: all or nothing"
	fi
	cmp -s "$fu/file_06185.pac" "$host_pac" || echo last > "$fu/.mhfu/undo"
done

unmount "$fu"
unmount "$p3"
finish
