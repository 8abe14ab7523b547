#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The plots of the clips (slotNNN.svg, entries/entryNNN.svg; mhfu-clip(5)
# "PLOTS") through a real mount of a copy of the sample: every plot of the
# Tigrex is well-formed SVG with one plot per channel of its clip text and
# each key's value on its curve (tests/mount/svgcheck.py, a reader of its own);
# a shared slot's plot is a link as its text is; a listing makes none (a
# stat or a read does); the plots are read-only
# and follow an edit of the text; and they render in headless Chromium to
# an image holding the curves and the keys (skipped without chromium).
#
#   bash tests/mount/svg_test.sh MOUNT_BINARY SAMPLE_DIR
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
svgcheck=$(realpath "$(dirname "$0")/svgcheck.py")
work=$(mktemp -d -t mhfu-svg-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
pack=$mnt/file_06185/3

trap 'leave "$mnt"' EXIT

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
check "mount a copy of the sample" "$mount_bin" "$archive" "$mnt"

# Pictures are made when read or stat'ed, never by a listing: `ls`, a
# glob of the texts and find(1) see names and types only (the listing's
# entries for plots, model.glb and PNGs carry no attributes).
pictures() { awk -F'\t' '$1 == "pictures_made" { print $2 }' "$mnt/.mhfu/info"; }
listing_makes_no_picture() {
	ls -R "$mnt/file_06185" >/dev/null &&
		cat "$pack"/stream*/*.txt >/dev/null &&
		[ "$(find "$mnt/file_06185" -type l -name '*.svg' | wc -l)" -gt 0 ] || return 1
	[ "$(pictures)" = 0 ] || { echo "pictures_made $(pictures) after listing"; return 1; }
	local size
	size=$(stat -c %s "$pack/stream0/slot000.svg")
	[ "$(pictures)" = 1 ] || { echo "pictures_made $(pictures) after one stat"; return 1; }
	[ "$(wc -c <"$pack/stream0/slot000.svg")" = "$size" ]
}
check "listing the Tigrex's folders and reading its texts makes no picture; a stat makes one" \
	listing_makes_no_picture

# Every slot text has its plots beside it: a file, or the link its text
# is, to the same slot's plots.
plots_beside_texts() {
	local txt svg n=0
	for txt in "$pack"/stream*/slot*.txt; do
		svg=${txt%.txt}.svg
		if [ -L "$txt" ]; then
			[ "$(readlink "$svg")" = "$(readlink "$txt" | sed 's/\.txt$/.svg/')" ] ||
				{ echo "$svg: links to '$(readlink "$svg")', its text to '$(readlink "$txt")'"; return 1; }
		elif [ -L "$svg" ] || [ ! -f "$svg" ]; then
			echo "$svg: not a file beside $txt"
			return 1
		fi
		n=$((n + 1))
	done
	[ "$(find "$pack"/stream* -name '*.svg' | wc -l)" = "$n" ] || { echo "more plots than texts"; return 1; }
	echo "$n slots"
	[ "$n" -gt 100 ]
}
check "every slot's text has its plots beside it; a shared slot's are the link its text is" \
	plots_beside_texts
check "the listing shows slot000.txt, .bin and .svg" \
	test "$(ls "$pack/stream0" | sed -n 1,3p | tr '\n' ' ')" = "slot000.bin slot000.svg slot000.txt "
check "a shared slot's plots link to the first slot's" test "$(readlink "$pack/stream0/slot002.svg")" = slot000.svg

# Pairs of text and plots for svgcheck, one a line: the slots' own files
# (not links), the entries.
pairs() {
	local txt
	for txt in "$@"; do
		[ -L "$txt" ] || printf '%s\n%s\n' "$txt" "${txt%.txt}.svg"
	done
}
pairs "$pack"/stream*/slot*.txt >"$work/slots"
pairs "$pack"/entries/entry*.txt >"$work/entries"
check "every slot's plots: SVG, a plot per channel naming track, joint and channel, keys on the curve" \
	bash -c "test -s '$work/slots' && xargs -d '\n' -n 100 python3 '$svgcheck' plots <'$work/slots'"
check "every entry has its plots beside its text" bash -c "
	for t in '$pack'/entries/entry*.txt; do test -f \"\${t%.txt}.svg\" || exit 1; done
	test \$(ls '$pack/entries' | grep -c 'svg\$') = \$(ls '$pack/entries' | grep -c 'entry.*txt\$')"
check "every entry's plots: every part's channels, titled by part, keys on the curves" \
	bash -c "test -s '$work/entries' && xargs -d '\n' -n 100 python3 '$svgcheck' plots <'$work/entries'"
check "entry 24: parts 0 and 2 keep their clips, part 1 plotted" bash -c "
	grep -q '>part 0 keeps its clip (stream 0 slot 24 is empty)<' '$pack/entries/entry024.svg' &&
	grep -q '>part 1: stream 2 slot 24, joints 31..39<' '$pack/entries/entry024.svg' &&
	grep -q '>part 1, track 0, joint 31: rot_x<' '$pack/entries/entry024.svg'"
if have xmllint; then
	check "xmllint: every plot is well-formed XML" \
		bash -c "find '$pack' -name '*.svg' -type f -print0 | xargs -0 xmllint --noout"
else
	skip "xmllint: every plot is well-formed XML" "xmllint is not installed"
fi

# The checker notices a curve off its key: one point moved.
sed 's/ points="0,-6834 / points="0,-6833 /' "$pack/stream2/slot024.svg" >"$work/moved.svg"
check "the check fails on a curve that misses a key" bash -c "
	! cmp -s '$pack/stream2/slot024.svg' '$work/moved.svg' &&
	! python3 '$svgcheck' plots '$pack/stream2/slot024.txt' '$work/moved.svg'"

# Read-only.
check "a plot cannot be written" bash -c "! echo x >'$pack/stream2/slot024.svg'"
check "a plot cannot be removed (EPERM)" bash -c "
	! rm -f '$pack/stream2/slot024.svg' 2>'$work/err' && grep -q 'Operation not permitted' '$work/err' &&
	test -f '$pack/stream2/slot024.svg'"
check "plots of an empty slot cannot be made (EINVAL)" bash -c "
	! touch '$pack/stream0/slot024.svg' 2>'$work/err' && grep -q 'Invalid argument' '$work/err' &&
	! test -e '$pack/stream0/slot024.svg'"
check "mode r--r--r--" test "$(stat -c %A "$pack/stream2/slot024.svg")" = -r--r--r--

# An edit of the text shows in the plots: the first key of rot_x.
check "edit slot024.txt: rot_x's first key -6834 -> 1234" \
	sed -i 's/^\( *0 *\)-6834 /\1 1234 /' "$pack/stream2/slot024.txt"
check "the plots follow: rot_x starts at 1234, every key on its curve" bash -c "
	grep -q '^ *0 *1234 ' '$pack/stream2/slot024.txt' &&
	grep -q ' points=\"0,1234 ' '$pack/stream2/slot024.svg' &&
	python3 '$svgcheck' plots '$pack/stream2/slot024.txt' '$pack/stream2/slot024.svg' \
		'$pack/entries/entry024.txt' '$pack/entries/entry024.svg'"
check "removing a slot's text removes its plots" bash -c "
	rm '$pack/stream2/slot025.txt' && ! test -e '$pack/stream2/slot025.svg' &&
	! test -e '$pack/stream2/slot025.bin'"

# Rendering: headless Chromium's screenshot of a slot's and an entry's
# plots holds the curves' blue and the keys' orange.
render() {
	local svg=$1 png=$2
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$work/chromium" --window-size=1200,900 \
		--screenshot="$png" "file://$svg" >"$work/chromium.log" 2>&1
	python3 "$svgcheck" png "$png"
}
if have chromium; then
	check "Chromium renders a slot's plots" render "$pack/stream2/slot024.svg" "$work/slot.png"
	check "Chromium renders an entry's plots" render "$pack/entries/entry001.svg" "$work/entry.png"
else
	skip "Chromium renders a slot's plots" "chromium is not installed"
	skip "Chromium renders an entry's plots" "chromium is not installed"
fi

unmount "$mnt"
finish
