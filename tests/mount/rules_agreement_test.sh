#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rules against the modding toolkit's validator, edit by edit (the
# README's table; mount.mhfu(8) "Rules" says why they differ where they
# do).  Each row is one concrete
# change to the sample's Tigrex (file_06185) made through a real mount,
# with what the toolkit's `mhfu-port validate --template 75` says of the
# edited model PAC (read from its code: constraints.py and the decoders
# behind it; it cannot run here) and what the mount must do.  A row fails
# when the mount's outcome drifts: refused or committed, the archive
# file unchanged after a refusal (cmp), and exactly the rule codes the log
# names for that write, at their levels.  The man page's table must hold
# The README's table must hold the same rows, and say "agrees" exactly
# where the two verdicts agree.
#
#   bash tests/mount/rules_agreement_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
readme=$here/../../README.md
work=$(mktemp -d -t mhfu-agreement-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
log=$mnt/.mhfu/log
skel=file_06185/0/skeleton.txt
slot=file_06185/3/stream2/slot024.txt   # a head clip: 9 tracks, joints 31..39
pack=file_06185/3/pack.txt

trap 'leave "$mnt"' EXIT
mkdir -p "$mnt"

mounted=false
# A pristine copy of the sample, mounted, unless the one mounted is still
# pristine (the last row was refused).
pristine() {
	$mounted && cmp -s "$sample/DATA.BIN" "$archive" && return 0
	unmount "$mnt"
	cp "$sample/DATA.BIN" "$archive"
	"$mount_bin" "$@" "$archive" "$mnt" && mounted=true
}

# Whole PACs the rows write: the Tigrex's own, and the Tigrex's with
# another species' skeleton (made with the rules off).
cp "$sample/DATA.BIN" "$archive"
"$dump" "$archive" file_06185.pac >"$work/tigrex.pac"
head -c $(($(stat -c %s "$work/tigrex.pac") / 2)) "$work/tigrex.pac" >"$work/half.pac"
head -c 4000 /dev/urandom >"$work/junk.bin"
"$mount_bin" -o rules=off "$archive" "$mnt"
cp "$mnt/file_06130/0.skeleton" "$mnt/file_06185/0.skeleton"
unmount "$mnt"
"$dump" "$archive" file_06185.pac >"$work/mixed.pac"

# The edits.  awk_edit FILE PROGRAM: FILE through awk, copied back over
# itself; the others write a whole file.
awk_edit() {
	awk "$2" "$mnt/$1" >"$work/edited" || return 2
	cp "$work/edited" "$mnt/$1" 2>/dev/null
}
port_pac() { cp "$mnt/file_06130.pac" "$mnt/file_06185.pac" 2>/dev/null; }
mixed_pac() { cp "$work/mixed.pac" "$mnt/file_06185.pac" 2>/dev/null; }
same_pac() { cp "$work/tigrex.pac" "$mnt/file_06185.pac" 2>/dev/null; }
half_pac() { cp "$work/half.pac" "$mnt/file_06185.pac" 2>/dev/null; }
junk_skeleton() { cp "$work/junk.bin" "$mnt/file_06185/0.skeleton" 2>/dev/null; }
raw_skeleton() { cp "$mnt/file_06130/0.skeleton" "$mnt/file_06185/0.skeleton" 2>/dev/null; }
# pmo_edit COMMAND ARGS...: the Tigrex's 1.pmo through pmo_reader.py,
# written back raw.
pmo_edit() {
	python3 "$here/pmo_reader.py" "$1" "$mnt/file_06185/1.pmo" "$work/edited.pmo" "${@:2}" ||
		return 2
	cp "$work/edited.pmo" "$mnt/file_06185/1.pmo" 2>/dev/null
}

# The codes the log names for the last write (its lines after line $1),
# "CODE" for an error, "CODE:warning" for a warning, sorted, one a line.
codes_since() {
	tail -n +"$(($1 + 1))" "$log" | awk '$3 ~ /^[A-Z_]+$/ && $2 ~ /:$/ {
		print $3 ($NF == "[warning]" ? ":warning" : "") }' | sort -u
}

# The codes a verdict names: "refused A, B" or "commits, warns A".
verdict_codes() {
	local v=$1 level=
	case $v in
	refused*) v=${v#refused} ;;
	"commits, warns"*) v=${v#commits, warns}; level=:warning ;;
	*) v= ;;
	esac
	for c in ${v//,/ }; do echo "$c$level"; done | sort -u
}

# Whether the toolkit's and the mount's verdicts agree: both refuse, every
# code the toolkit names among the mount's; or both accept, warning of the
# same codes.
agrees() {
	local tk=$1 mt=$2 c
	case $tk in
	error*|"cannot "*)
		[[ $mt == refused* ]] || return 1
		for c in $(echo "${tk#error}" | tr ',' ' ' | grep -o '[A-Z_]\{4,\}'); do
			verdict_codes "$mt" | grep -qx "$c" || return 1
		done ;;
	passes) [ "$mt" = commits ] ;;
	"warns "*) [ "$mt" = "commits, ${tk}" ] ;;
	*) return 1 ;;
	esac
}

rows=()
agreed=0
# row N EDIT-IN-WORDS TOOLKIT MOUNT COMMAND...: runs the edit on a
# pristine mount and checks the mount's verdict.
row() {
	local n=$1 what=$2 tk=$3 mt=$4 before rc got want
	shift 4
	rows+=("$n	$what	$tk	$mt")
	agrees "$tk" "$mt" && agreed=$((agreed + 1))
	pristine || { not_ok "row $n: mount"; return; }
	before=$(wc -l <"$log")
	"$@"
	rc=$?
	got=$(codes_since "$before")
	want=$(verdict_codes "$mt")
	if [ "$rc" -eq 2 ]; then
		not_ok "row $n ($what): the edit could not be made"
	elif [[ $mt == refused* ]] && [ "$rc" -eq 0 ]; then
		not_ok "row $n ($what): committed, want $mt"
	elif [[ $mt == refused* ]] && ! cmp -s "$sample/DATA.BIN" "$archive"; then
		not_ok "row $n ($what): refused, but the archive changed"
	elif [[ $mt == commits* ]] && [ "$rc" -ne 0 ]; then
		not_ok "row $n ($what): refused, want $mt"; codes_since "$before" | sed 's/^/    /'
	elif [ "$got" != "$want" ]; then
		not_ok "row $n ($what): the log names {$(echo $got)}, want {$(echo $want)}"
	else
		ok "row $n: $what: $mt (toolkit: $tk)"
	fi
}

# --- the skeleton, edited in place (skeleton.txt: bone kind parent child
# sibling scale rot pos link part name; $12 is pos_x, $15 link, $16 part) ---
row 1 "params 0 44" "error PARTITION" "refused PARTITION" \
	awk_edit "$skel" '$1 == "params" { $3 = 44 } 1'
row 2 "params 0 0" "error ANIMATED_COUNT" "refused ANIMATED_COUNT" \
	awk_edit "$skel" '$1 == "params" { $3 = 0 } 1'
row 3 "params 0 49 (48 bones)" "error ANIMATED_COUNT" "refused ANIMATED_COUNT" \
	awk_edit "$skel" '$1 == "params" { $3 = 49 } 1'
row 4 "params 0 48: the severed tail animated" "error PARTITION" "refused PARTITION" \
	awk_edit "$skel" '$1 == "params" { $3 = 48 } 1'
row 5 "params 0: no animated count, all 48" "error PARTITION" "refused PARTITION" \
	awk_edit "$skel" '$1 == "params" { $0 = "params 0" } 1'
row 6 "bone 10 moved 5 along x" "passes" "commits" \
	awk_edit "$skel" '$1 == "10" && NF > 10 { $12 += 5 } 1'
row 7 "bone 4's parent 14, after it" "error PARENT_ORDER, TEMPLATE" \
	"refused PARENT_ORDER, TEMPLATE" awk_edit "$skel" \
	'NF > 10 && $1 == "4" { $3 = 14 } NF > 10 && $1 == "3" { $4 = -1 }
	 NF > 10 && $1 == "14" { $4 = 4 } 1'
row 8 "head joint 39 hung off body joint 8" "error STREAM_SUBTREE, TEMPLATE" \
	"refused STREAM_SUBTREE, TEMPLATE" awk_edit "$skel" \
	'NF > 10 && $1 == "39" { $3 = 8 } NF > 10 && $1 == "38" { $4 = -1 }
	 NF > 10 && $1 == "9" { $5 = 39 } 1'
row 9 "the tail (40) hung off the head (35)" "error TEMPLATE" \
	"refused STREAM_SUBTREE, TEMPLATE" awk_edit "$skel" \
	'NF > 10 && $1 == "40" { $3 = 35 } NF > 10 && $1 == "15" { $5 = -1 }
	 NF > 10 && $1 == "36" { $5 = 40 } 1'
row 10 "the tail (40) hung off body joint 5" "error TEMPLATE" "refused TEMPLATE" \
	awk_edit "$skel" \
	'NF > 10 && $1 == "40" { $3 = 5 } NF > 10 && $1 == "15" { $5 = -1 }
	 NF > 10 && $1 == "6" { $5 = 40 } 1'
row 11 "bone 44's part 0: part 0 in two runs" "error STREAM_RUNS, PARTITION" \
	"refused STREAM_RUNS, PARTITION" awk_edit "$skel" 'NF > 10 && $1 == "44" { $16 = 0 } 1'
row 12 "the parts numbered 0, 2, 3: no part 1" "error PARTITION" \
	"refused STREAM_RUNS, PARTITION" awk_edit "$skel" 'NF > 10 && $1 >= 31 && $1 <= 47 { $16++ } 1'
row 13 "bone 5's child 7, not its first child 6" "passes" "refused BONE_LINKS" \
	awk_edit "$skel" 'NF > 10 && $1 == "5" { $4 = 7 } 1'
row 14 "bone 3's sibling 10, not the next one 5" "passes" "refused BONE_LINKS" \
	awk_edit "$skel" 'NF > 10 && $1 == "3" { $5 = 10 } 1'
row 15 "a link on kind-1 bone 7" "passes" "refused BONE_LINKS" \
	awk_edit "$skel" 'NF > 10 && $1 == "7" { $15 = 3 } 1'
row 16 "root 0's sibling the next root, 45" "passes" "commits" \
	awk_edit "$skel" 'NF > 10 && $1 == "0" { $5 = 45 } 1'
row 17 "a bone 48 added under 47" "error TEMPLATE" "refused TEMPLATE" \
	awk_edit "$skel" 'NF > 10 && $1 == "47" { $4 = 48; print; $1 = 48; $3 = 47; $4 = -1 } 1'
row 18 "another species' skeleton as 0.skeleton" "error PALETTE_JOINT, PARTITION, TEMPLATE" \
	"refused PALETTE_JOINT, PARTITION, TEMPLATE" raw_skeleton

# --- a head clip (stream2/slot024.txt: track N lines, channel lines, then
# "frame value ease_in ease_out" keys) ---------------------------------------
key='/^ +-?[0-9]+ +-?[0-9]+ +-?[0-9]+ +-?[0-9]+/'
row 19 "a channel of bit 0x1000" "cannot read it" "refused CHANNEL_BIT" \
	awk_edit "$slot" '/^track 1 / { print; print "channel 0x1000"; print "0 16 0 0"; next } 1'
row 20 "a channel of bit 0x4000" "cannot read it" "refused CHANNEL_BIT" \
	awk_edit "$slot" '/^track 1 / { print; print "channel 0x4000"; print "0 16 0 0"; next } 1'
row 21 "a channel of two bits, 0x003" "passes" "refused CHANNEL_BIT" \
	awk_edit "$slot" '/^track 1 / { print; print "channel 0x003"; print "0 16 0 0"; next } 1'
row 22 "an unnamed channel, u4 (0x004)" "passes" "commits" \
	awk_edit "$slot" '/^track 1 / { print; print "channel u4"; print "0 16 0 0"; next } 1'
row 23 "a scale channel, scl_y" "error SCALE_CHANNEL" "refused SCALE_CHANNEL" \
	awk_edit "$slot" '/^track 1 / { print; print "channel scl_y"; print "0 256 0 0"; next } 1'
row 24 "rot_x twice in a track" "error DUPLICATE_CHANNEL" "refused DUPLICATE_CHANNEL" \
	awk_edit "$slot" '/^track 1 / { print; print "channel rot_x"; print "0 0 0 0"; next } 1'
row 25 "a channel without keys" "warns EMPTY_CHANNEL" "commits, warns EMPTY_CHANNEL" \
	awk_edit "$slot" '/^track 1 / { print; print "channel loc_x"; next } 1'
row 26 "a key at frame -1" "error NEGATIVE_FRAME" "refused NEGATIVE_FRAME" \
	awk_edit "$slot" "$key"' && !d { $1 = -1; d = 1 } 1'
row 27 "a key at frame 5 before one at 0" "warns FRAME_ORDER" "refused FRAME_ORDER" \
	awk_edit "$slot" "$key"' && !d { print "5 0 0 0"; d = 1 } 1'
row 28 "two keys at the same frame" "passes" "commits" \
	awk_edit "$slot" "$key"' && !d { print; d = 1 } 1'
row 29 "a track's mask with bits no channel has" "cannot read it" "refused TRACK_MASK" \
	awk_edit "$slot" '/^track 1 / { $0 = "track 1 mask 0xfff" } 1'
row 30 "a track without channels" "passes" "refused TRACK_EMPTY" \
	awk_edit "$slot" '/^track / { skip = $2 == 1 } skip && !/^track / { next } 1'
row 31 "a clip without tracks" "error NO_TRACKS" "refused NO_TRACKS" \
	awk_edit "$slot" '/^track / { cut = 1 } !cut'
row 32 "a head clip a track short (8 of 9)" "error PARTITION" "refused PARTITION" \
	awk_edit "$slot" '/^track 8 / { cut = 1 } !cut'
row 33 "a head clip a track long (10 of 9)" "error PARTITION" "refused PARTITION" \
	awk_edit "$slot" '1; END { print "track 9"; print "channel rot_x"; print "0 0 0 0" }'
row 34 "a value of 40000 (past s16)" "cannot write it" "refused VALUE_RANGE" \
	awk_edit "$slot" "$key"' && !d { $2 = 40000; d = 1 } 1'
row 35 "the clip's loop flag flipped" "passes" "commits" \
	awk_edit "$slot" '$1 == "loop" { $2 = 1 - $2 } 1'

# --- the pack (pack.txt) ---------------------------------------------------
row 36 "the tail's stream 4 emptied" "error PARTITION" "commits" \
	awk_edit "$pack" '/^stream / { s = $2 } s == 4 && ($1 == "filled" || $1 == "slot") { next } 1'
row 37 "stream 3 (the head's) slot 0 plays a body clip" "error PARTITION" "refused PARTITION" \
	awk_edit "$pack" '{ print } $0 == "stream 3 slots 105" { print "filled 0"; print "slot 0 shares stream 0 slot 0" }'
row 38 "stream 1 slot 0 plays a body clip (entry 100)" "passes" "commits" \
	awk_edit "$pack" '{ print } $0 == "stream 1 slots 105" { print "filled 0"; print "slot 0 shares stream 0 slot 0" }'

# --- whole model PACs written at once -----------------------------------------
row 39 "another species' whole PAC (a port)" "error TEMPLATE" "commits, warns TEMPLATE" port_pac
row 40 "the PAC with another species' skeleton" "error PALETTE_JOINT, PARTITION, TEMPLATE" \
	"refused PALETTE_JOINT, PARTITION, TEMPLATE" mixed_pac
row 41 "the Tigrex's own PAC, unchanged" "passes" "commits" same_pac
row 42 "the Tigrex's PAC cut in half" "cannot read it" "refused UNDECODABLE" half_pac
row 43 "junk over 0.skeleton" "cannot read it" "refused UNDECODABLE" junk_skeleton

# --- the PMO, written raw (1.pmo) ---------------------------------------------
row 44 "a palette entry of 1.pmo naming bone 60 (48 bones)" "error PALETTE_JOINT" \
	"refused PALETTE_JOINT" pmo_edit palette_bone 0 60
row 45 "1.pmo's group 5 without draws: no vertex" "warns EMPTY_GROUP" \
	"commits, warns EMPTY_GROUP" pmo_edit no_draws 5
unmount "$mnt"

# --- the README holds the same table -------------------------------------------
# Its rows "| N | edit | toolkit | mount | agrees, or why not |", after
# the comment naming this test.
awk '/<!-- rules_agreement_test.sh/ { t = 1; next } t && /^\| [0-9]+ \|/ {
	sub(/^\| /, ""); sub(/ \|$/, ""); gsub(/ \| /, "\t"); print; seen = 1; next }
	t && seen && /^$/ { exit }' \
	"$readme" >"$work/readme-rows"
printf '%s\n' "${rows[@]}" >"$work/rows"
check "the README's table has this test's rows, verdicts as here" \
	diff <(cut -f1-4 "$work/readme-rows") "$work/rows"
mismatch=
while IFS=$'\t' read -r n what tk mt note; do
	if agrees "$tk" "$mt"; then [ "$note" = agrees ] || mismatch="$mismatch $n"
	else [[ $note == differs* ]] || mismatch="$mismatch $n"; fi
done <"$work/readme-rows"
check "the README says \"agrees\" exactly where the verdicts agree${mismatch:+ (not rows$mismatch)}" \
	test -z "$mismatch"
check "the README counts them: they agree on $agreed of the ${#rows[@]} edits" \
	grep -q "agree on $agreed of the ${#rows[@]} edits" "$readme"
finish
