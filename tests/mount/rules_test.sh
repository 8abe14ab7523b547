#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Whole-model rules through a real mount (mount.mhfu(8) "Rules"): a
# skeleton edit re-checks the packs of its PAC, channel bits the engine
# does not play are refused, a whole model PAC of another species is a
# port (TEMPLATE a warning) only when its own skeleton and pack agree,
# what the game loads must still decode (UNDECODABLE), and every model
# folder's check.txt lists what is broken now.  Refusals
# are checked on the archive file itself (cmp); what lands, with
# mhfudump, outside the mount.
#
#   bash tests/mount/rules_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-rules-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
model=$mnt/file_06185
skel=$model/0/skeleton.txt
slot24=$model/3/stream2/slot024.txt

trap 'leave "$mnt"' EXIT

# fresh [options]: a pristine copy of the sample, mounted.
fresh() {
	unmount "$mnt"
	mkdir -p "$mnt"
	cp "$sample/DATA.BIN" "$archive"
	"$mount_bin" "$@" "$archive" "$mnt"
}
unchanged() { cmp "$sample/DATA.BIN" "$archive"; }

# refused CODE FILE AWK-PROGRAM: the edited copy of FILE is refused with
# CODE in the log (at a line of it, or in another member, with none), and
# the archive keeps every byte.
refused() {
	local code=$1 file=$2 prog=$3
	awk "$prog" "$file" >"$work/edited.txt" || return 1
	if cp "$work/edited.txt" "$file" 2>/dev/null; then echo "the write succeeded"; return 1; fi
	unchanged || { echo "archive changed"; return 1; }
	grep -Eq "${file#$mnt/}(:[0-9]+)?: $code " "$mnt/.mhfu/log" ||
		{ echo "no $code in the log:"; cat "$mnt/.mhfu/log"; return 1; }
}

fresh
check "a clean model folder's check.txt says none" bash -c "
	grep -qx 'none: no rule is broken' '$model/check.txt' &&
	grep -qx 'none: no rule is broken' '$mnt/file_05250/check.txt' &&
	! grep -q '^[A-Z_]* \\(error\\|warning\\) ' '$model/check.txt'"
check "check.txt is in model folders only: not in a member's, nor a PAC without a model" bash -c "
	test -f '$mnt/file_06121/check.txt' && ! test -e '$model/3/check.txt' &&
	! test -e '$model/0/check.txt' && ! test -e '$mnt/file_00025/check.txt'"
check "check.txt is read-only" bash -c "
	! echo x 2>/dev/null >'$model/check.txt' && cmp '$sample/DATA.BIN' '$archive'"

# --- a skeleton edit re-checks the clips of its pack --------------------------
check "params 0 44 is refused: the tail's clips keep 5 tracks for 4 joints (PARTITION)" \
	refused PARTITION "$skel" '$1 == "params" { $3 = 44 } 1'
check "the refusal names the pack's slot, outside the skeleton's text" \
	grep -q "0/skeleton.txt: PARTITION 3.anim stream 4 slot 0: 5 tracks, part 2 has 4 joints (40..43)" \
	"$mnt/.mhfu/log"
check "params 0 0 is refused (ANIMATED_COUNT)" \
	refused ANIMATED_COUNT "$skel" '$1 == "params" { $3 = 0 } 1'
check "params 0 48 is refused: the severed tail's part has no stream (PARTITION)" \
	refused PARTITION "$skel" '$1 == "params" { $3 = 48 } 1'
check "the refusal says which part lacks a stream" grep -q \
	"0/skeleton.txt: PARTITION 3.anim stream 6: part 3 has 3 joints, the pack has no stream 6 for it" \
	"$mnt/.mhfu/log"
check "a child column that disagrees with the parents is refused (BONE_LINKS)" \
	refused BONE_LINKS "$skel" '$1 == "5" && NF > 10 { $4 = 7 } 1'

# --- channels the engine does not play --------------------------------------
for bit in 0x1000 0x4000; do
	check "a channel of bit $bit is refused (CHANNEL_BIT)" \
		refused CHANNEL_BIT "$slot24" "/^track 1 / { print; print \"channel $bit\"; print \"0 16 0 0\"; next } 1"
done
check "an unnamed channel (u4, bit 0x004) commits" bash -c "
	awk '/^track 1 / { print; print \"channel u4\"; print \"0 16 0 0\"; next } 1' '$slot24' >'$work/u4.txt' &&
	cp '$work/u4.txt' '$slot24' && ! cmp -s '$sample/DATA.BIN' '$archive' &&
	'$dump' '$archive' file_06185/3/stream2/slot024.txt | grep -q '^channel u4'"

# --- check.txt follows the archive ------------------------------------------
fresh
awk '/^track 1 / { print; print "channel loc_x"; next } 1' "$slot24" >"$work/empty.txt"
check "a channel without keys commits with a warning (EMPTY_CHANNEL)" bash -c "
	cp '$work/empty.txt' '$slot24' && ! cmp -s '$sample/DATA.BIN' '$archive' &&
	grep -q 'slot024.txt:[0-9]*: EMPTY_CHANNEL stream 2 slot 24 track 1 (joint 32) channel loc_x: no keyframes .*\\[warning\\]' '$mnt/.mhfu/log'"
check "check.txt lists it, with the member, the element and the fix" grep -qx \
	"EMPTY_CHANNEL warning 3.anim stream 2 slot 24 track 1 (joint 32) channel loc_x: no keyframes (fix: key the channel (one key at frame 0 holds a value) or delete it)" \
	"$model/check.txt"
check "check.txt no longer says none" bash -c "! grep -q '^none' '$model/check.txt'"

# --- the clip's length and loop -----------------------------------------------
check "a clip's header gives its part's joints, length and loop" \
	grep -Eq "^# file_06185/3.anim stream 2 slot 24 - part 1, joints 31..39, runs to frame [0-9]+, (loops from frame [0-9.]+|plays once)$" "$slot24"
check "pack.txt gives each filled slot's length and loop" bash -c "
	grep -Eq '^# slot 0 runs to frame [0-9]+, (loops from frame [0-9.]+|plays once)$' '$model/3/pack.txt' &&
	grep -Eq '^slot 2 shares slot 0 +# runs to frame [0-9]+' '$model/3/pack.txt'"
fresh -o rules=warn
awk '$1 == "params" { $3 = 44 } 1' "$skel" >"$work/44.txt"
check "-o rules=warn: params 0 44 commits, the tail's clips named 40..43 from the skeleton" bash -c "
	cp '$work/44.txt' '$skel' &&
	grep -q '^# file_06185/3.anim stream 4 slot 0 - part 2, joints 40..43 (the clip has 5 tracks), ' '$model/3/stream4/slot000.txt' &&
	grep -q '^PARTITION error 3.anim stream 4 slot 0: 5 tracks, part 2 has 4 joints' '$model/check.txt'"
check "... and entry texts too: part 2 plays joints 40..43, the clip's fifth track drives none" bash -c "
	grep -q '^part 2  *# stream 4 slot 1, joints 40..43 (the clip has 5 tracks), ' '$model/3/entries/entry001.txt' &&
	grep -q '^track 4  *# part 2, past its 4 joints: drives none' '$model/3/entries/entry001.txt' &&
	grep -q '^track 4  *# past the part.s 4 joints: drives none' '$model/3/stream4/slot001.txt' &&
	! grep -q 'joint 44' '$model/3/entries/entry001.txt'"

# --- a whole model PAC: a port, or a rig edited in place ------------------------
fresh
check "another species' whole model PAC commits as a port: TEMPLATE only a warning" bash -c "
	cp '$mnt/file_06130.pac' '$mnt/file_06121.pac' &&
	cmp <('$dump' '$archive' file_06121.pac) '$mnt/file_06130.pac' &&
	grep -q 'file_06121.pac: TEMPLATE 0.skeleton .*(a port: .*\\[warning\\]' '$mnt/.mhfu/log'"
# A PAC whose skeleton is another species' but whose pack is its own:
# made with the rules off, then written whole into a pristine archive.
fresh -o rules=off
cp "$mnt/file_06130/0.skeleton" "$mnt/file_06121/0.skeleton"
check "with the rules off the mismatch commits, and check.txt lists it" \
	grep -q '^PARTITION error 3.anim stream' "$mnt/file_06121/check.txt"
unmount "$mnt"
"$dump" "$archive" file_06121.pac >"$work/mixed.pac"
fresh
check "a whole PAC whose skeleton and pack disagree is refused (TEMPLATE), archive unchanged" bash -c "
	! cp '$work/mixed.pac' '$mnt/file_06121.pac' 2>/dev/null && cmp '$sample/DATA.BIN' '$archive' &&
	grep -q 'file_06121.pac: TEMPLATE 0.skeleton ' '$mnt/.mhfu/log' &&
	grep -q 'file_06121.pac: PARTITION 3.anim ' '$mnt/.mhfu/log'"

# --- what the game loads must still decode (UNDECODABLE) ----------------------
# Bytes that no longer decode as the member the game loads there are
# refused under the default rules: cp says so, the archive keeps every
# byte, the member keeps its name, check.txt and model.glb stay.
fresh
head -c 6000 /dev/urandom >"$work/junk.bin"
{ head -c 4 "$model/0.skeleton"; head -c 3000 /dev/urandom; } >"$work/skeleton-magic.bin"
head -c $(($(stat -c %s "$mnt/file_06185.pac") / 2)) "$mnt/file_06185.pac" >"$work/half.pac"
for case in "0.skeleton junk.bin" "3.anim junk.bin" "2.tmh junk.bin" "0.skeleton skeleton-magic.bin"; do
	set -- $case
	check "junk ($2) over $1 is refused (UNDECODABLE), the error reaches cp" bash -c "
		! cp '$work/$2' '$model/$1' 2>'$work/cp.err' && grep -q 'Invalid argument' '$work/cp.err' &&
		cmp '$sample/DATA.BIN' '$archive' && grep -q 'file_06185/$1: UNDECODABLE the bytes: the game loads ' '$mnt/.mhfu/log' &&
		test -f '$model/$1' && test -f '$model/check.txt' && test -f '$model/model.glb'"
done
check "a whole PAC of junk over a model PAC is refused, naming each member it loads" bash -c "
	! cp '$work/junk.bin' '$mnt/file_06185.pac' 2>/dev/null && cmp '$sample/DATA.BIN' '$archive' &&
	grep -q 'file_06185.pac: UNDECODABLE 0.skeleton the bytes: .*it is gone: the PAC around it does not decode' '$mnt/.mhfu/log' &&
	grep -q 'file_06185.pac: UNDECODABLE 3.anim ' '$mnt/.mhfu/log' &&
	grep -q 'file_06185.pac: UNDECODABLE 2.tmh ' '$mnt/.mhfu/log' &&
	test -f '$model/model.glb'"
check "a model PAC cut in half is refused (UNDECODABLE), archive unchanged" bash -c "
	! cp '$work/half.pac' '$mnt/file_06185.pac' 2>/dev/null && cmp '$sample/DATA.BIN' '$archive' &&
	test \$(grep -c 'file_06185.pac: UNDECODABLE ' '$mnt/.mhfu/log') -ge 6"
check "the refusal names the first member on the file's user.mhfu.error" bash -c "
	! cp '$work/junk.bin' '$model/3.anim' 2>/dev/null &&
	getfattr --only-values -n user.mhfu.error '$model/3.anim' | grep -q 'UNDECODABLE'"
check "junk over a raw data entry still commits (the game loads no model there)" bash -c "
	cp '$work/junk.bin' '$mnt/file_00010.bin' &&
	cmp <('$dump' '$archive' file_00010.bin | head -c 6000) '$work/junk.bin'"
fresh -o rules=warn
check "-o rules=warn stores the junk member, with an UNDECODABLE warning" bash -c "
	cp '$work/junk.bin' '$model/2.tmh' && cmp <('$dump' '$archive' file_06185/2.bin) '$work/junk.bin' &&
	grep -q 'file_06185/2.tmh: UNDECODABLE the bytes: .*\\[warning\\]' '$mnt/.mhfu/log'"

unmount "$mnt"
finish
