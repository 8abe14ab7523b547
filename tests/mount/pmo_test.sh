#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A PMO's folder (mount.mhfu(8) "THE TREE", mhfu-clip(5) MESH.TXT,
# VERTICES.TSV, MATERIALS.TSV) through a real mount of a copy of the
# sample: vertices.tsv agrees with a PMO reader written here in Python from
# mhfu-archive(5) "PMO" (pmo_reader.py, a second, independent oracle); the
# texts written back unchanged commit nothing; the README's awk edit moves
# exactly one vertex of the PMO in DATA.BIN (read by mhfudump, outside the
# mount, and by the reader) and nothing else; values the format cannot
# hold are refused at path:line:col, the archive untouched and the text
# kept; an MHP3rd model's vertex edit lands in the next entry, which holds
# its geometry, its PAC unchanged; a PMO that does not decode is served as
# bytes with its folder empty and a log line.
#
#   bash tests/mount/pmo_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
here=$(realpath "$(dirname "$0")")
work=$(mktemp -d -t mhfu-pmo-test.XXXXXX)
. "$here/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
member=file_06185/1 # the Tigrex's PMO
dir=$mnt/$member
# The README's edit: vertex 40 of group 12, x moved 5 units.
G=12 V=40

trap 'leave "$mnt"' EXIT

reader() { python3 "$here/pmo_reader.py" "$@"; }
commits() { awk -F'\t' '$1 == "commits" { print $2 }' "$mnt/.mhfu/info"; }
pmo_now() { "$dump" "$archive" "$member.pmo" >"$1"; }
# The rows of vertices.tsv as "group vertex x y z", one a line.
positions() { grep -v '^#' "$1" | awk '{ print $1, $2, $3, $4, $5 }'; }
# Whether two position lists agree within a relative 1e-4.
agree() {
	paste -d' ' "$1" "$2" | awk '
		{ if ($1 != $6 || $2 != $7) bad++
		  for (k = 3; k <= 5; k++) { d = $k - $(k + 5); d = d < 0 ? -d : d
		    m = $k < 0 ? -$k : $k; if (d > 1e-4 * (1 + m)) bad++ } }
		END { exit bad > 0 || NR == 0 }'
}

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
check "mount a copy of the sample" "$mount_bin" "$archive" "$mnt"

# --- reading -----------------------------------------------------------------
check "a PMO member is a folder of mesh.txt, vertices.tsv and materials.tsv" \
	test "$(ls "$dir" | tr '\n' ' ')" = "materials.tsv mesh.txt vertices.tsv "
check "the model has the retail shape: 7 meshes, about 200 groups, 4000 vertices" bash -c "
	test \$(grep -c '^mesh ' '$dir/mesh.txt') = 7 &&
	test \$(grep -c '^group ' '$dir/mesh.txt') -gt 150 &&
	test \$(grep -vc '^#' '$dir/vertices.tsv') -gt 3500"
reader positions "$mnt/$member.pmo" >"$work/oracle"
positions "$dir/vertices.tsv" >"$work/shown"
check "vertices.tsv's positions are those an independent reader finds ($(wc -l <"$work/oracle") vertices)" \
	agree "$work/oracle" "$work/shown"
check "vertex $V of group $G exists" grep -q "^$G $V " "$work/shown"
check "mesh.txt names its vertex types, draws and palettes in words" bash -c "
	grep -q '^vtype weights 2 u8, uv u16, normal s8, position s16, index u' '$dir/mesh.txt' &&
	grep -q '^draw strip [0-9]* indexed' '$dir/mesh.txt' && grep -q '^palette 0:' '$dir/mesh.txt'"
check "materials.tsv has a row per material, textured from the bank" bash -c "
	test \$(grep -vc '^#' '$dir/materials.tsv') -ge 2 &&
	grep -v '^#' '$dir/materials.tsv' | awk '\$4 != \"-\" { t++ } END { exit t == 0 }'"
check "the PMO of every model PAC (one with model.glb) has its three texts" bash -c "
	n=0; for g in '$mnt'/file_*/model.glb; do for p in \${g%/model.glb}/*.pmo; do
		d=\${p%.pmo}; test -s \"\$d/vertices.tsv\" -a -s \"\$d/mesh.txt\" || exit 1; n=\$((n + 1))
	done; done; test \$n -ge 5"

# --- writing back what is there ---------------------------------------------------
pmo_now "$work/pmo0"
n=$(commits)
check "each text written back unchanged commits nothing" bash -c "
	for f in mesh.txt vertices.tsv materials.tsv; do
		cat '$dir/'\$f >'$work/'\$f && cat '$work/'\$f >'$dir/'\$f || exit 1
	done
	test \$(awk -F'\t' '\$1 == \"commits\" { print \$2 }' '$mnt/.mhfu/info') = $n &&
	cmp '$sample/DATA.BIN' '$archive'"
check "vertices.tsv as awk prints it (spaces, not tabs) commits nothing either" bash -c "
	awk '{ \$1 = \$1 } 1' '$dir/vertices.tsv' >'$work/spaced' && ! cmp -s '$work/spaced' '$dir/vertices.tsv' &&
	cat '$work/spaced' >'$dir/vertices.tsv' && cmp '$sample/DATA.BIN' '$archive'"

# --- the README's edit --------------------------------------------------------------
check "awk moves vertex $V of group $G by 5 along x" bash -c "
	awk '\$1 == $G && \$2 == $V { \$3 += 5 } 1' '$dir/vertices.tsv' >'$work/v' &&
	cat '$work/v' >'$dir/vertices.tsv'"
pmo_now "$work/pmo1"
check "the PMO in DATA.BIN kept its size and changed in that vertex's x only" \
	test "$(reader diff "$work/pmo0" "$work/pmo1")" = "$G $V x"
reader positions "$work/pmo1" >"$work/oracle1"
check "the reader finds x grown by 5 (within a step of the scale) and nothing else moved" bash -c "
	paste -d' ' '$work/oracle' '$work/oracle1' | awk -v g=$G -v v=$V '
		\$1 == g && \$2 == v { d = \$8 - \$3 - 5; if (d < -0.02 || d > 0.02 || \$9 != \$4 || \$10 != \$5) bad++; next }
		\$3 != \$8 || \$4 != \$9 || \$5 != \$10 { bad++ } END { exit bad > 0 }'"
check "vertices.tsv shows it, the other rows as they were" bash -c "
	positions() { grep -v '^#' \"\$1\" | awk '{ print \$1, \$2, \$3, \$4, \$5 }'; }
	positions '$dir/vertices.tsv' >'$work/shown1' &&
	test \$(diff '$work/shown' '$work/shown1' | grep -c '^[<>]') = 2"
check "the rest of the archive is as it was" bash -c "
	cmp -l '$sample/DATA.BIN' '$archive' | wc -l | grep -qx '[12]'"

# --- refusals -------------------------------------------------------------------------
pmo_now "$work/pmo2"
cp "$archive" "$work/before-refusals"
# Where the edited vertex's x is: its line, and its column once awk has
# rebuilt the row with single spaces.
line=$(grep -n "^$G	$V	" "$dir/vertices.tsv" | cut -d: -f1)
col=$((${#G} + ${#V} + 3))
check "a position the scale cannot reach is refused: cp fails" bash -c "
	awk '\$1 == $G && \$2 == $V { \$3 = 1e6 } 1' '$dir/vertices.tsv' >'$work/far' &&
	! cp '$work/far' '$dir/vertices.tsv' 2>'$work/err'"
check "... the log names vertices.tsv:$line:$col and the range" bash -c "
	grep -q '$member/vertices.tsv:$line:$col: .*allowed' '$mnt/.mhfu/log'"
check "... the text is kept under .mhfu/rejected/" bash -c "
	ls '$mnt/.mhfu/rejected/' | grep -q 'vertices.tsv' &&
	cmp \"\$(ls -t '$mnt/.mhfu/rejected/'*vertices.tsv* | head -n 1)\" '$work/far'"
check "a weight on a bone of no palette slot is refused" bash -c "
	awk -v OFS='\t' '\$1 == $G && \$2 == $V { for (k = 6; k <= NF; k++) if (\$k ~ /:/) { sub(/^[0-9]+:/, \"250:\", \$k); break } } 1' \
		'$dir/vertices.tsv' >'$work/bone' && ! cp '$work/bone' '$dir/vertices.tsv' 2>/dev/null &&
	tail -n 5 '$mnt/.mhfu/log' | grep -q 'palette'"
check "a texture past the bank's images is refused" bash -c "
	awk -v OFS='\t' '!/^#/ && !done { \$4 = 99; done = 1 } 1' '$dir/materials.tsv' >'$work/tex' &&
	! cp '$work/tex' '$dir/materials.tsv' 2>/dev/null &&
	tail -n 5 '$mnt/.mhfu/log' | grep -q 'materials.tsv:[0-9]*:[0-9]*: .*allowed 0-'"
check "a palette bone past the skeleton (48 bones) is refused" bash -c "
	awk '/^palette 0:/ && !done { sub(/^palette 0:[0-9]+/, \"palette 0:60\"); done = 1 } 1' \
		'$dir/mesh.txt' >'$work/pal' && ! cp '$work/pal' '$dir/mesh.txt' 2>/dev/null &&
	tail -n 5 '$mnt/.mhfu/log' | grep -q 'mesh.txt:[0-9]*:[0-9]*: '"
check "a changed draw is refused: growing geometry is not supported yet" bash -c "
	awk '/^draw strip/ && !done { sub(/strip [0-9]+/, \"strip 99\"); done = 1 } 1' \
		'$dir/mesh.txt' >'$work/draw' && ! cp '$work/draw' '$dir/mesh.txt' 2>/dev/null &&
	tail -n 5 '$mnt/.mhfu/log' | grep -q 'not supported yet'"
check "a vertex row removed is refused" bash -c "
	awk '!(\$1 == $G && \$2 == $V)' '$dir/vertices.tsv' >'$work/short' &&
	! cp '$work/short' '$dir/vertices.tsv' 2>/dev/null"
check "after every refusal the archive is as it was" cmp "$work/before-refusals" "$archive"

# --- an MHP3rd model: its geometry is the next entry's ------------------------------------
p3=file_05248/1 # the Brute Tigrex; its geometry is file_05249
"$dump" "$archive" file_05248.pac >"$work/p3pac0"
"$dump" "$archive" file_05249.bin >"$work/p3geo0"
check "an MHP3rd model's vertices.tsv, its geometry in the next entry, takes an awk edit" bash -c "
	awk '\$1 == 0 && \$2 == 0 { \$3 += 1 } 1' '$mnt/$p3/vertices.tsv' >'$work/p3v' &&
	cat '$work/p3v' >'$mnt/$p3/vertices.tsv'"
"$dump" "$archive" file_05248.pac >"$work/p3pac1"
"$dump" "$archive" file_05249.bin >"$work/p3geo1"
check "... which lands in file_05249 (1 or 2 bytes), the PAC's own bytes unchanged" bash -c "
	cmp '$work/p3pac0' '$work/p3pac1' &&
	n=\$(cmp -l '$work/p3geo0' '$work/p3geo1' | wc -l) && test \$n -ge 1 -a \$n -le 2"
check "... and the reader, given that entry, finds vertex 0 of group 0 moved by 1" bash -c "
	a=\$(python3 '$here/pmo_reader.py' positions '$mnt/$p3.pmo' '$work/p3geo0' | awk '\$1 == 0 && \$2 == 0 { print \$3 }')
	b=\$(python3 '$here/pmo_reader.py' positions '$mnt/$p3.pmo' '$work/p3geo1' | awk '\$1 == 0 && \$2 == 0 { print \$3 }')
	awk -v a=\$a -v b=\$b 'BEGIN { d = b - a - 1; exit !(d > -0.05 && d < 0.05) }'"

check "its model.glb written back is refused: the body's geometry is the next entry's, 1/mesh.glb takes it" bash -c "
	cp '$mnt/file_05248/model.glb' '$work/p3.glb' && cp '$archive' '$work/before-p3glb' &&
	! cp '$work/p3.glb' '$mnt/file_05248/model.glb' 2>/dev/null &&
	grep -q 'file_05248/model.glb.*write its body to 1/mesh.glb' '$mnt/.mhfu/log' &&
	cmp '$work/before-p3glb' '$archive'"

# --- a mesh edit ------------------------------------------------------------------------
check "a material's colour edited in materials.tsv lands" bash -c "
	awk -v OFS='\t' '!/^#/ && !done { \$2 = \"11223344\"; done = 1 } 1' '$dir/materials.tsv' >'$work/col' &&
	cp '$work/col' '$dir/materials.tsv' && grep -v '^#' '$dir/materials.tsv' | head -n 1 | grep -q '11223344'"
pmo_now "$work/pmo3"
check "... in the material's colour word only: 1 to 4 bytes of the PMO, side by side" bash -c "
	cmp -l '$work/pmo2' '$work/pmo3' | awk 'NR == 1 { first = \$1 } { last = \$1; n++ }
		END { exit !(n >= 1 && n <= 4 && last - first < 4) }'"

# After a commit the mount reprints only the rows whose vertices changed:
# what it shows must be what a fresh mount prints from the bytes.
cat "$dir/vertices.tsv" >"$work/v-after-commits"
cat "$mnt/$p3/vertices.tsv" >"$work/p3v-after-commit"

# --- a PMO that does not decode ------------------------------------------------------------
check "unmount" unmount "$mnt"
check "remount with -o rules=warn" "$mount_bin" -o rules=warn "$archive" "$mnt"
check "vertices.tsv read after the commits is what a fresh mount prints, byte for byte" \
	cmp "$work/v-after-commits" "$dir/vertices.tsv"
check "... the MHP3rd model's too, whose geometry the commit wrote to the next entry" \
	cmp "$work/p3v-after-commit" "$mnt/$p3/vertices.tsv"
head -c 64 "$mnt/$member.pmo" >"$work/damaged.pmo"
head -c 2000 /dev/urandom >>"$work/damaged.pmo"
check "junk behind a PMO's header is stored with a warning (UNDECODABLE)" bash -c "
	cp '$work/damaged.pmo' '$mnt/$member.pmo' && cmp '$work/damaged.pmo' '$mnt/$member.pmo' &&
	grep -q 'UNDECODABLE' '$mnt/.mhfu/log'"
check "its folder is empty, its bytes served, and the log says why" bash -c "
	test -z \"\$(ls '$dir')\" && grep -q '$member.pmo: shown raw only' '$mnt/.mhfu/log'"
check "the PAC's model.glb still opens (the stand-in where the body was)" bash -c "
	head -c 4 '$mnt/file_06185/model.glb' | grep -q glTF"
check "unmount at last" unmount "$mnt"
no_sanitizer_reports
finish
