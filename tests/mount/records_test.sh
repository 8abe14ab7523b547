#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# MHP3rd record maps on a real mount (mhfu-clip(5) "RECORD MAPS"): every
# track of an MHP3rd clip text names the bone it drives, as worked out by
# hand for the sample's movesets (rigs forking at joints 1 and 4, the
# skip lists of em040 and em001, a monster no overlay names); records.txt
# shows the map; an override written with sed changes the labels at
# once, outlives an unmount, is refused with path:line:col when it does
# not fit the rig (the text kept in .mhfu/rejected/), and never changes
# the archive's bytes; writing the computed values takes it away.
#
#   bash tests/mount/records_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-records-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN

trap 'leave "$mnt"' EXIT

# The sample's MHP3rd groups (tests/gen/mkmodels.c): em001's overlays, then
# two asset sets; em040's; the Brute, whose monster no overlay names.
rathian=file_05145 rathalos=file_05148 zinogre=file_05346 brute=file_05250
zmodel=file_05344
remount() { unmount "$mnt" && "$mount_bin" "$archive" "$mnt"; }
unchanged() { cmp "$sample/DATA.BIN" "$archive"; }
# label PACK TRACK: the comment on track TRACK of the pack's slot 0 of
# stream 0 (every clip has a track per record).
label() { awk -v t="track $2" '$1 " " $2 == t { sub(/^[^#]*# */, ""); print; exit }' \
	"$mnt/$1/stream0/slot000.txt"; }
# labels PACK T=LABEL...: each track's comment is LABEL.
labels() {
	local pack=$1 pair got
	shift
	for pair in "$@"; do
		got=$(label "$pack" "${pair%%=*}")
		[ "$got" = "${pair#*=}" ] || { echo "$pack track ${pair%%=*}: '$got', want '${pair#*=}'"; return 1; }
	done
}
override() { echo "$work"/state/mhfufs/DATA.BIN-*/overrides/"$1".records; }
line_of() { grep -n "^$2" "$mnt/$1/records.txt" | cut -d: -f1; }

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
check "mount a copy of the sample" "$mount_bin" "$archive" "$mnt"

# ---- the maps, worked out by hand --------------------------------------
check "an MHP3rd moveset's folder has records.txt; an MHFU pack's has none" bash -c "
	test -f '$mnt/$zinogre/records.txt' && test -f '$mnt/$brute/records.txt' &&
	! test -e '$mnt/file_06185/3/records.txt'"
check "records.txt is the extraction's, and what mhfudump reads from the archive" bash -c "
	for p in $rathian $rathalos $zinogre $brute; do
		cmp '$mnt/'\$p/records.txt '$sample/src/'\$p/records.txt &&
		cmp <('$dump' '$archive' \$p/records.txt) '$sample/src/'\$p/records.txt || exit 1
	done"
# em040 on a rig forking at 1 (51 bones): records 0, 1 move, so offset 0
# (bone 0 is the fork's parent, 1 the fork); its list steps over 9, 10,
# 16, 17, 24, 31, 37, 38, 42: record 9 is bone 11, record 36 bone 45.
check "em040's moveset: offset 0 by the fork rule, em040's list, named by its overlay" bash -c "
	f='$mnt/$zinogre/records.txt'
	grep -qx '# rig: $zmodel/0.skeleton, 51 bones, body fork 1' \"\$f\" &&
	grep -qx '# monster: em040 (named by file_05343.ovl, em040m1.ovl)' \"\$f\" &&
	grep -q '^offset 0  *# the fork rule' \"\$f\" &&
	grep -q '^skip 9 10 16 17 24 31 37 38 42 47 # em040' \"\$f\""
check "its tracks name their bones: 0, 1, 8, then 11 (9, 10 skipped), ... 45" \
	labels $zinogre "0=joint 0 (b000)" "1=joint 1 (b001)" "8=joint 8 (b008)" \
	"9=joint 11 (b011)" "14=joint 18 (b018)" "20=joint 25 (b025)" "36=joint 45 (b045)"
# em001's first set: a 2-bone lead chain, then the body from 2 forking at
# 4; records 0, 1 move: offsets 0 and 1 leave one on the lead chain, so
# offset 2; its list steps over 8, 15, 25.
check "em001's first set: fork 4 after a lead chain, offset 2" bash -c "
	grep -q '^offset 2  *# the fork rule' '$mnt/$rathian/records.txt' &&
	grep -q '^skip 8 15 25 ' '$mnt/$rathian/records.txt'"
check "its tracks: 0 on bone 2, 5 on 7, 6 on 9, 12 on 16, 23 on 28" \
	labels $rathian "0=joint 2 (b002)" "5=joint 7 (b007)" "6=joint 9 (b009)" \
	"12=joint 16 (b016)" "23=joint 28 (b028)"
# Its second set (the overlay three entries further back): a lone root,
# the body from 1 forking at 4; records 0..2 move: offset 1.
check "em001's second set, named by the same overlay: offset 1" bash -c "
	grep -qx '# monster: em001 (named by file_05142.ovl, em001m1.ovl)' '$mnt/$rathalos/records.txt' &&
	grep -q '^offset 1  *# the fork rule' '$mnt/$rathalos/records.txt'"
check "its tracks: 0 on bone 1, 6 on 7, 7 on 9, 24 on 28" \
	labels $rathalos "0=joint 1 (b001)" "6=joint 7 (b007)" "7=joint 9 (b009)" "24=joint 28 (b028)"
check "a monster no overlay names: no skip list, offset 0, track i on bone i" bash -c "
	grep -qx '# monster: not known (no overlay names it)' '$mnt/$brute/records.txt' &&
	grep -q '^skip none  *# the monster is not known' '$mnt/$brute/records.txt' &&
	$(declare -f label labels); mnt='$mnt'; labels $brute '0=joint 0 (b000)' '42=joint 42 (b042)'"
check "a clip's plot names the same bones" bash -c "
	grep -q 'data-track=\"9\" data-joint=\"11\"' '$mnt/$zinogre/stream0/slot000.svg'"

# ---- an override ---------------------------------------------------------
cp "$mnt/$zmodel/model.glb" "$work/before.glb"
check "sed -i sets em040's offset to 2" sed -i 's/^offset 0 /offset 2 /' "$mnt/$zinogre/records.txt"
# From bone 2 over em040's list: records 0..6 on 2..8, 7 on 11, 36 on 48.
check "the labels follow at once: 0 on bone 2, 7 on 11, 36 on 48" \
	labels $zinogre "0=joint 2 (b002)" "6=joint 8 (b008)" "7=joint 11 (b011)" "36=joint 48 (b048)"
check "records.txt says it is overridden, and that the fork rule is now broken" bash -c "
	grep -q '^offset 2  *# overridden; the fork rule.s is 0' '$mnt/$zinogre/records.txt' &&
	grep -q '^# the fork rule is broken: record 0 has location channels' '$mnt/$zinogre/records.txt'"
check "the override is kept in the record, the log says where" bash -c "
	test \"\$(cat $(override $zinogre))\" = 'offset 2' &&
	grep -q '$zinogre/records.txt: committed: override (offset 2, skip auto) kept in .*overrides/$zinogre.records' '$mnt/.mhfu/log'"
check "the archive's bytes are unchanged; mhfudump still reads the computed map" bash -c "
	$(declare -f unchanged); sample='$sample' archive='$archive'; unchanged &&
	cmp <('$dump' '$archive' $zinogre/records.txt) '$sample/src/$zinogre/records.txt'"
check "the model PAC's model.glb plays the moveset on the new bones" bash -c "
	! cmp -s '$mnt/$zmodel/model.glb' '$work/before.glb'"
check "the other movesets keep their maps" bash -c "
	cmp '$mnt/$rathian/records.txt' '$sample/src/$rathian/records.txt'"

cp "$mnt/$zinogre/records.txt" "$work/shown.txt"
kept_before=$(stat -c %Y.%s "$(override $zinogre)")
check "written back unchanged, nothing is committed" bash -c "
	cp '$work/shown.txt' '$mnt/$zinogre/records.txt' &&
	tail -1 '$mnt/.mhfu/log' | grep -q '$zinogre/records.txt: unchanged, nothing committed' &&
	test \"\$(stat -c %Y.%s $(override $zinogre))\" = '$kept_before'"

check "unmount and mount again" remount
check "the override outlives the mount" bash -c "
	cmp '$mnt/$zinogre/records.txt' '$work/shown.txt' &&
	$(declare -f label labels); mnt='$mnt'; labels $zinogre '7=joint 11 (b011)' '36=joint 48 (b048)'"

# ---- refusals --------------------------------------------------------------
skip_line=$(line_of $zinogre skip)
offset_line=$(line_of $zinogre offset)
check "a skip list naming a bone twice is refused" bash -c "
	! sed -i 's/^skip .*/skip 9 9/' '$mnt/$zinogre/records.txt' 2>/dev/null"
check "  with path:line:col in the log" \
	grep -q "$zinogre/records.txt:$skip_line:8: VALUE_RANGE bone 9 is listed twice" "$mnt/.mhfu/log"
check "  the text kept in .mhfu/rejected/" bash -c "
	grep -qx 'skip 9 9' '$mnt/.mhfu/rejected/'*'$zinogre%records.txt'"
check "  the map and the override as they were" bash -c "
	cmp '$mnt/$zinogre/records.txt' '$work/shown.txt' && test \"\$(cat $(override $zinogre))\" = 'offset 2'"
check "an offset past the rig is refused at its column" bash -c "
	! sed -i 's/^offset 2 /offset 60 /' '$mnt/$zinogre/records.txt' 2>/dev/null &&
	grep -q '$zinogre/records.txt:$offset_line:8: VALUE_RANGE offset 60 is past the rig.s last bone 50' '$mnt/.mhfu/log'"
check "an offset leaving records past the rig is refused, saying which" bash -c "
	! sed -i 's/^offset 2 /offset 20 /' '$mnt/$zinogre/records.txt' 2>/dev/null &&
	grep -q '$zinogre/records.txt:$offset_line:8: VALUE_RANGE record 2[0-9] would land past' '$mnt/.mhfu/log'"
printf 'offset 2\nbones 3\n' >"$work/typed.txt"
check "a line that is neither is refused" bash -c "
	! cp '$work/typed.txt' '$mnt/$zinogre/records.txt' 2>/dev/null &&
	grep -q '$zinogre/records.txt:2:1: SYNTAX expected offset or skip, got \"bones\"' '$mnt/.mhfu/log'"
check "the archive's bytes are still unchanged" unchanged

# ---- the override taken away ----------------------------------------------
check "writing the computed offset takes the override away" \
	sed -i 's/^offset 2 /offset 0 /' "$mnt/$zinogre/records.txt"
check "  the map and labels are the computed ones again, the record holds none" bash -c "
	cmp '$mnt/$zinogre/records.txt' '$sample/src/$zinogre/records.txt' &&
	! test -e $(override $zinogre) &&
	$(declare -f label labels); mnt='$mnt'; labels $zinogre '9=joint 11 (b011)'"
check "a skip list override, then auto, likewise" bash -c "
	sed -i 's/^skip .*/skip 3/' '$mnt/$rathalos/records.txt' &&
	test \"\$(cat $(override $rathalos))\" = 'skip 3' &&
	$(declare -f label labels); mnt='$mnt'; labels $rathalos '2=joint 4 (b004)' &&
	sed -i 's/^skip .*/skip auto/' '$mnt/$rathalos/records.txt' &&
	! test -e $(override $rathalos) &&
	cmp '$mnt/$rathalos/records.txt' '$sample/src/$rathalos/records.txt'"
check "no override changed the archive" unchanged

# An override kept that does not fit the rig (written there by hand) is
# not applied, the log says why, and the next write takes it away.
unmount "$mnt"
overrides=$(echo "$work"/state/mhfufs/DATA.BIN-*/overrides)
printf 'offset 99\n' >"$overrides/$zinogre.records"
check "a kept override that does not fit: mount again" "$mount_bin" "$archive" "$mnt"
check "  the map is the computed one, the log says why" bash -c "
	cmp '$mnt/$zinogre/records.txt' '$sample/src/$zinogre/records.txt' &&
	grep -q '$zinogre.anim: the override of its records.txt is not in force, as it no longer fits: .*overrides/$zinogre.records:1:8: offset 99 is past the rig.s last bone 50' '$mnt/.mhfu/log'"
check "  records.txt written back as shown takes it away" bash -c "
	cp '$sample/src/$zinogre/records.txt' '$mnt/$zinogre/records.txt' &&
	! test -e $(override $zinogre) &&
	tail -1 '$mnt/.mhfu/log' | grep -q 'committed: no override'"

# ---- what the map is made from ----------------------------------------------
# Renaming a bone of the rig (another entry) shows in the moveset's texts.
check "a rig's bone renamed in its skeleton.txt" \
	sed -i 's/^\( *11 .*\) b011$/\1 jaw/' "$mnt/$zmodel/0/skeleton.txt"
check "  names the moveset's track at once" bash -c "
	$(declare -f label labels); mnt='$mnt'; labels $zinogre '9=joint 11 (jaw)' &&
	grep -q '^#      9    11  jaw' '$mnt/$zinogre/records.txt'"
# A moveset with no model PAC two entries before it: "no rig".
lone=$(awk -F'\t' 'NR > 1 { kind[$2] = $6; name[$2] = $1 }
	END { for (i = 3000; i < 3200; i++) if (kind[i] == "data" && kind[i - 2] != "pac") { print name[i]; exit } }' \
	"$sample/src/index.tsv")
check "the moveset copied into $lone, far from any model" \
	cp "$mnt/$brute.anim" "$mnt/$lone"
lone_dir=$mnt/${lone%.bin}
check "  its tracks say no rig, and so does records.txt" bash -c "
	grep -q '^track 0  *# no rig' '$lone_dir/stream0/slot000.txt' &&
	grep -q '^# rig: none found' '$lone_dir/records.txt' &&
	grep -q '^#      0     -  -         no rig' '$lone_dir/records.txt'"
check "  an override of it is refused: there is no bone to map onto" bash -c "
	! sed -i 's/^offset 0 /offset 1 /' '$lone_dir/records.txt' 2>/dev/null &&
	grep -q 'records.txt:[0-9]*:8: VALUE_RANGE the moveset has no rig' '$mnt/.mhfu/log'"

check "unmount" unmount "$mnt"

# ---- a single PAC ----------------------------------------------------------
# A PAC holding an MHP3rd skeleton and a moveset, mounted alone: the pack
# plays on the PAC's skeleton, its monster not known.
python3 - "$sample/src/$zmodel/0.skeleton" "$sample/src/$zinogre.anim" "$work/port.pac" <<'PY'
import struct, sys
members = [open(f, 'rb').read() for f in sys.argv[1:3]]
at, table, body = 32, b'', b''
for m in members:
    table += struct.pack('<II', at, len(m))
    pad = (-len(m)) % 16
    body += m + bytes(pad)
    at += len(m) + pad
head = struct.pack('<I', len(members)) + table
open(sys.argv[3], 'wb').write(head + bytes(32 - len(head)) + body)
PY
cp "$work/port.pac" "$work/port.orig"
check "mount the PAC alone" "$mount_bin" "$work/port.pac" "$mnt"
check "its pack's map: the PAC's skeleton, no monster known, so no skip list" bash -c "
	grep -qx '# rig: port.pac/0.skeleton, 51 bones, body fork 1' '$mnt/1/records.txt' &&
	grep -q '^skip none  *# the monster is not known' '$mnt/1/records.txt' &&
	grep -q '^track 9  *# joint 9 (b009)' '$mnt/1/stream0/slot000.txt'"
check "an override there is kept under the member's path, the PAC unchanged" bash -c "
	sed -i 's/^skip none/skip 9 10/' '$mnt/1/records.txt' &&
	grep -q '^track 9  *# joint 11 (b011)' '$mnt/1/stream0/slot000.txt' &&
	test \"\$(cat '$work'/state/mhfufs/port.pac-*/overrides/1.records)\" = 'skip 9 10' &&
	cmp '$work/port.pac' '$work/port.orig'"
check "unmount the PAC" unmount "$mnt"
finish
