#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# model.glb (glTF 2.0: the rig, the PMO's body or a stand-in mesh, every
# executor entry as an animation) through a real mount of a copy of the
# sample: the GLB's
# header and chunks, its JSON read by python3, the Tigrex's 48 joints and
# one animation per entries/entryNNN.txt, absent where a PAC holds no
# skeleton, read-only, and following a committed edit.  When installed
# (`bash tests/deps.sh pictures`): the Khronos validator finds no error,
# and Blender imports it with 48 bones and one action per entry.  The
# Tigrex's PMO is its body: skinned to the rig, one primitive per group,
# as many vertices as its vertices.tsv gives, its textures the bank's
# PNGs; Blender imports as many vertices and triangles as the file holds.
#
#   bash tests/mount/gltf_test.sh MOUNT_BINARY SAMPLE_DIR
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
here=$(realpath "$(dirname "$0")")
work=$(mktemp -d -t mhfu-gltf-test.XXXXXX)
. "$here/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
glb=$mnt/file_06185/model.glb
entries=$mnt/file_06185/3/entries

trap 'leave "$mnt"' EXIT

# Prints "JOINTS ANIMATIONS NAMES..." of a GLB, after checking its
# header (magic, version 2, length), its two chunks (types, lengths that
# are multiples of 4, the JSON padded with spaces, the BIN with zeros up
# to the buffer's byteLength) and that the JSON parses.
glb_facts() {
	python3 - "$1" <<'EOF'
import json, struct, sys
b = open(sys.argv[1], 'rb').read()
magic, version, length = struct.unpack_from('<III', b, 0)
assert (magic, version, length) == (0x46546C67, 2, len(b)), (hex(magic), version, length, len(b))
jlen, jtype = struct.unpack_from('<II', b, 12)
assert jtype == 0x4E4F534A and jlen % 4 == 0, (hex(jtype), jlen)
blen, btype = struct.unpack_from('<II', b, 20 + jlen)
assert btype == 0x004E4942 and blen % 4 == 0 and 28 + jlen + blen == len(b), (hex(btype), blen)
j = json.loads(b[20:20 + jlen])
used = j['buffers'][0]['byteLength']
assert used <= blen and not any(b[28 + jlen + used:]), 'BIN padding'
anims = [a['name'] for a in j.get('animations', [])]
print(len(j['skins'][0]['joints']), len(anims), *anims)
EOF
}

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
check "mount a copy of the sample" "$mount_bin" "$archive" "$mnt"

check "file_06185/model.glb is listed beside the members" \
	bash -c "ls '$mnt/file_06185' >'$work/list' && grep -qx model.glb '$work/list'"
check "its header, chunks and JSON are well-formed" glb_facts "$glb"
entry_names=$(cd "$entries" && ls entry*.txt | sed 's/entry\([0-9]*\)\.txt/entry \1/' | tr '\n' ' ')
nentries=$(ls "$entries"/entry*.txt | wc -l)
read -r joints nanims names < <(glb_facts "$glb")
check "the Tigrex's rig has 48 joints" test "$joints" = 48
check "one animation per listed entry ($nentries)" test "$nanims" = "$nentries"
check "named after the entries, in order" test "$names " = "$entry_names"
cp "$glb" "$work/before.glb"
check "its size is its length" test "$(stat -c %s "$glb")" = "$(wc -c <"$glb")"
check "a PAC without a skeleton or a PMO that decodes has no model.glb" bash -c "
	test -d '$mnt/file_00025' && ! test -e '$mnt/file_00025/model.glb'"
# A small monster's PAC: a PMO without weights, no skeleton.
check "a small monster's PAC (a PMO, no skeleton) has a static model.glb: its body, no skin, no motions" bash -c "
	python3 - '$mnt/file_06122/model.glb' '$mnt/file_06122/0/mesh.txt' <<'EOF'
import json, struct, sys
b = open(sys.argv[1], 'rb').read()
g = json.loads(b[20:20 + struct.unpack_from('<I', b, 12)[0]])
groups = sum(1 for line in open(sys.argv[2]) if line.startswith('group '))
assert [n.get('name') for n in g['nodes']] == ['body'], g['nodes']
assert 'skins' not in g and not g.get('animations'), 'skinned or animated'
assert len(g['meshes'][0]['primitives']) == groups, (len(g['meshes'][0]['primitives']), groups)
EOF"
read -r p3_joints p3_anims p3_first _ < <(glb_facts "$mnt/file_05248/model.glb")
p3_slots=$(find "$sample/src/file_05250" -name 'slot*.txt' | wc -l)
check "the MHP3rd model PAC plays its moveset two entries on: 46 joints, $p3_slots slots" \
	test "$p3_joints $p3_anims $p3_first" = "46 $p3_slots stream"
check "it takes bodies only: junk copied over it is refused, the file as it was; it cannot be removed" bash -c "
	cp '$glb' '$work/glb.before' && printf x >'$work/junk' &&
	! cp '$work/junk' '$glb' 2>/dev/null && cmp '$work/glb.before' '$glb' &&
	grep -q 'model.glb: ' '$mnt/.mhfu/log' && ! rm '$glb' 2>/dev/null"

# An edit of an entry is in model.glb at once: the file is the pack's.
line=$(awk '/^ +[0-9]+ +-?[0-9]+/ { print NR; exit }' "$entries/entry001.txt")
check "sed -i changes a keyframe of entry 1" \
	sed -i "${line}s/^\( *[0-9]* *\)-\?[0-9]*/\11234/" "$entries/entry001.txt"
check "model.glb follows the commit" bash -c "! cmp -s '$glb' '$work/before.glb'"
check "and is still well-formed, with every entry" bash -c "
	$(declare -f glb_facts); test \"\$(glb_facts '$glb' | cut -d' ' -f1,2)\" = '48 $nentries'"
cp "$glb" "$work/model.glb"

if have node && have npm && NODE_PATH=$(npm root -g) node -e "require('gltf-validator')" 2>/dev/null; then
	check "the Khronos glTF validator finds no error" \
		env NODE_PATH="$(npm root -g)" node "$here/gltf_validate.js" "$work/model.glb"
	check "nor in an MHP3rd model's, its moveset placed by the record map" \
		env NODE_PATH="$(npm root -g)" node "$here/gltf_validate.js" "$mnt/file_05344/model.glb"
else
	skip "the Khronos glTF validator" "npm's gltf-validator is not installed (bash tests/deps.sh pictures)"
fi

# Debian's Blender 3.4 importer fails on its own numpy with the default
# shading ("NORMALS" uses np.bool): FLAT shading takes another path.
if have blender; then
	blender_import() {
		GLB=$work/model.glb blender --background --factory-startup --python-expr '
import os, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=os.environ["GLB"], import_shading="FLAT")
bones = sum(len(o.data.bones) for o in bpy.data.objects if o.type == "ARMATURE")
# The rotations (normalized shorts in the file) as Blender keyed them:
# unit quaternions, each key of a bone its four curves at one frame.
worst, keys = 0.0, 0
for act in bpy.data.actions:
    quat = {}
    for fc in act.fcurves:
        if fc.data_path.endswith("rotation_quaternion"):
            quat.setdefault(fc.data_path, {})[fc.array_index] = fc
    for curves in quat.values():
        if len(curves) != 4:
            continue
        for points in zip(*(curves[i].keyframe_points for i in range(4))):
            worst = max(worst, abs(sum(p.co[1] ** 2 for p in points) - 1))
            keys += 1
print("IMPORTED", bones, len(bpy.data.actions), keys, "%.6f" % worst)
' 2>&1 | awk '$1 == "IMPORTED" { print $2, $3, $4, $5 }'
	}
	read -r bones actions keys worst <<<"$(blender_import)"
	check "Blender imports it: 48 bones, $nentries actions (got: ${bones:-nothing} ${actions:-})" \
		test "${bones:-}" = 48 -a "${actions:-}" = "$nentries"
	check "its rotation keys, 16-bit in the file, are unit quaternions in Blender (${keys:-0} keys, worst |q|^2 - 1 ${worst:-?})" \
		awk -v k="${keys:-0}" -v w="${worst:-9}" 'BEGIN { exit !(k > 100000 && w < 1e-3) }'
	# The README's command, as a user pastes it (headless here, on this
	# copy): it imports on Debian's Blender and sets the scene to the
	# engine's 30 frames a second, so entry 001 ends at its last frame
	# (at Blender's default 24 it ended at 4/5 of it, between frames).
	readme_cmd=$(grep -m1 '^blender --python-expr' "$here/../../README.md")
	readme_cmd=${readme_cmd/blender /blender --background --factory-startup }
	readme_cmd=${readme_cmd//\/mnt\/mh\/file_06185\/model.glb/$work/model.glb}
	cat >"$work/range.py" <<'PY'
import bpy
act = [a for a in bpy.data.actions if a.name.startswith("entry 001")][0]
print("RANGE", int(round(act.frame_range[1])), bpy.context.scene.render.fps)
PY
	glb_frames=$(python3 -c '
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<I", b, 12)[0]
g = json.loads(b[20:20 + n])
a = [a for a in g["animations"] if a["name"] == "entry 001"][0]
t = max(g["accessors"][s["input"]]["max"][0] for s in a["samplers"])
print(round(t * 30))' "$work/model.glb")
	read -r _ last fps <<<"$(bash -c "$readme_cmd --python '$work/range.py'" 2>&1 | grep '^RANGE')"
	check "the README's Blender command imports model.glb at 30 fps: entry 001 ends at frame $glb_frames (got ${last:-nothing} at ${fps:-?} fps)" \
		test "${last:-}" = "$glb_frames" -a "${fps:-}" = 30
else
	skip "the Blender import" "blender is not installed (bash tests/deps.sh pictures)"
fi

# The body.  Prints "BODY-NODES SKINNED PRIMITIVES MATERIALS IMAGES
# STAND-INS VERTICES TRIANGLES", after checking each image's bytes are
# the bank's imageNN.png.
body_facts() {
	python3 - "$1" "$2" <<'EOF'
import json, struct, sys
b = open(sys.argv[1], 'rb').read()
n = struct.unpack_from('<I', b, 12)[0]
g = json.loads(b[20:20 + n])
binary = b[28 + n:]
for im in g.get('images', []):
    v = g['bufferViews'][im['bufferView']]
    png = open('%s/%s.png' % (sys.argv[2], im['name']), 'rb').read()
    assert binary[v['byteOffset']:v['byteOffset'] + v['byteLength']] == png, im['name']
bodies = [x for x in g['nodes'] if x.get('name', '').startswith('body')]
prims = [p for x in bodies for p in g['meshes'][x['mesh']]['primitives']]
stand = [x for x in g['nodes'] if x.get('name') == 'stand-in']
verts = sum(g['accessors'][p['attributes']['POSITION']]['count'] for p in prims)
tris = sum(g['accessors'][p['indices']]['count'] // 3 for p in prims)
print(len(bodies), sum('skin' in x for x in bodies), len(prims), len(g.get('materials', [])),
      len(g.get('images', [])), len(stand), verts, tris)
EOF
}
pmo=$mnt/file_06185/1
nimages=$(ls "$mnt/file_06185/2" | grep -c '^image.*\.png$')
ngroups=$(grep -c '^group ' "$pmo/mesh.txt")
nverts=$(grep -vc '^#' "$pmo/vertices.tsv")
read -r nbody nskinned nprims nmats nimg nstand gverts gtris < <(body_facts "$glb" "$mnt/file_06185/2")
check "model.glb carries the Tigrex's PMO: one body node, skinned, $nimages images, no stand-in (got ${nbody:-?} ${nskinned:-?} ${nimg:-?} ${nstand:-?})" \
	test "${nbody:-} ${nskinned:-} ${nimg:-} ${nstand:-}" = "1 1 $nimages 0"
check "one primitive per group ($ngroups, got ${nprims:-0}), every vertex of vertices.tsv ($nverts, got ${gverts:-0}), materials (${nmats:-0})" \
	test "${nprims:-0}" = "$ngroups" -a "${gverts:-0}" = "$nverts" -a "${nmats:-0}" -gt 0
cp "$glb" "$work/model.glb"
if have node && have npm && NODE_PATH=$(npm root -g) node -e "require('gltf-validator')" 2>/dev/null; then
	check "the Khronos glTF validator finds no error in the body" \
		env NODE_PATH="$(npm root -g)" node "$here/gltf_validate.js" "$work/model.glb"
else
	skip "the Khronos glTF validator on the body" "npm's gltf-validator is not installed"
fi
if have blender; then
	meshes=$(GLB=$work/model.glb blender --background --factory-startup --python-expr '
import os, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=os.environ["GLB"], import_shading="FLAT")
m = [o for o in bpy.data.objects if o.type == "MESH"]
print("MESHES", len(m), sum(len(o.data.polygons) for o in m),
      sum(1 for o in m if any(x.type == "ARMATURE" for x in o.modifiers)),
      sum(len(o.data.vertices) for o in m))
' 2>&1 | awk '$1 == "MESHES" { print $2, $3, $4, $5 }')
	read -r nobj npoly narm nvert <<<"$meshes"
	check "Blender imports the body on the armature: the file's $gverts vertices and $gtris triangles (got: ${meshes:-nothing})" \
		test "${nobj:-0}" -ge 1 -a "${narm:-0}" = "${nobj:-x}" -a "${npoly:-0}" = "${gtris:-x}" \
		-a "${nvert:-0}" = "${gverts:-x}"
else
	skip "the Blender import of the body" "blender is not installed"
fi

check "unmount" unmount "$mnt"
check "remounted, the same bytes: the file is made deterministically" bash -c "
	'$mount_bin' -o ro '$archive' '$mnt' && cmp '$glb' '$work/model.glb'"
check "unmount again" unmount "$mnt"
finish
