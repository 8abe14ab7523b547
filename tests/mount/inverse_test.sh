#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Byte stability: random sequences of edits through a real mount (slot
# texts removed and restored, keyframes changed and changed back, slots
# shared and emptied, raw members replaced and put back, streams grown
# and shrunk, a stream folder restored with tar), each followed by its
# inverses in reverse order, must leave DATA.BIN byte-identical.
#
#   bash tests/mount/inverse_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY [ROUNDS] [SEED]
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
rounds=${4:-12}
RANDOM=${5:-1}
work=$(mktemp -d -t mhfu-inverse-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN

trap 'leave "$mnt"' EXIT

# The packs edited: MHFU (in a model PAC, with shared slots) and MHP3rd
# (a top-level moveset entry).
packs=(file_06185/3 file_06121/3 file_05250)
inverses=()   # commands undoing the edits made so far, last first
saved=0       # files kept for the inverses

pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
# keep FILE: a copy of FILE, at $copy (not in a subshell: $saved counts).
keep() { saved=$((saved + 1)); copy=$work/saved.$saved; cp "$1" "$copy"; }
undo_with() { inverses=("$*" "${inverses[@]}"); }

# A filled slot text of the pack that is not a link and that no link
# anywhere in the pack points to: removing it and writing it back gives
# the same pack.
lone_slot() {
	local pack=$mnt/$1 s
	local targets
	targets=$(find "$pack" -type l -printf '%h/%l\n' | sed 's,/stream[0-9]*/\.\./,/,' | xargs -n1 basename 2>/dev/null | sort -u)
	for s in $(find "$pack" -name 'slot*.txt' -type f | shuf --random-source=<(yes "$RANDOM")); do
		grep -qx "$(basename "$s")" <<<"$targets" && continue
		echo "${s#$mnt/}"
		return 0
	done
	return 1
}

empty_slot() { # an empty slot's text name in the stream folder $1, past slot $2
	local stream=$mnt/$1 n from=${2:-0}
	local slots
	slots=$(grep "^stream ${stream##*stream} slots" "$(dirname "$stream")/pack.txt" | awk '{ print $4 }')
	for _ in $(seq 50); do
		[ "$slots" -gt "$from" ] || return 1
		n=$(printf 'slot%03d.txt' $((from + RANDOM % (slots - from))))
		[ -e "$stream/$n" ] || [ -L "$stream/$n" ] || { echo "${stream#$mnt/}/$n"; return 0; }
	done
	return 1
}

op_remove_slot() {
	local s
	s=$(lone_slot "$1") || return 0
	keep "$mnt/$s" && rm "$mnt/$s" && undo_with cp "$copy" "$mnt/$s"
}

op_change_key() {
	local s line old new
	s=$(lone_slot "$1") || return 0
	line=$(grep -n -m1 -E '^ *[0-9]+ +-?[0-9]+ ' "$mnt/$s" | cut -d: -f1)
	old=$(sed -n "${line}p" "$mnt/$s" | awk '{ print $2 }')
	new=$((old + 1 + RANDOM % 50))
	sed -i "${line}s/^\( *[0-9]* *\)-\{0,1\}[0-9]*/\1$new/" "$mnt/$s" &&
		undo_with sed -i "'${line}s/^\( *[0-9]* *\)-\{0,1\}[0-9]*/\1$old/'" "$mnt/$s"
}

# Shares and copies stay within a stream: a clip drives one part's joints.
op_share_slot() {
	local from to
	from=$(lone_slot "$1") || return 0
	# A link goes to an earlier slot (a shared clip's file is its first).
	to=$(empty_slot "$(dirname "$from")" $((10#$(basename "$from" .txt | tr -dc 0-9) + 1))) || return 0
	ln -s "$(basename "$from")" "$mnt/$to" && undo_with rm "$mnt/$to"
}

op_fill_slot() {
	local from to
	from=$(lone_slot "$1") || return 0
	to=$(empty_slot "$(dirname "$from")") || return 0
	cp "$mnt/$from" "$mnt/$to" && undo_with rm "$mnt/$to"
}

op_grow_stream() {
	local pack=$mnt/$1 k n
	k=$(cd "$pack" && pick stream*)
	k=${k#stream}
	n=$(grep "^stream $k slots" "$pack/pack.txt" | awk '{ print $4 }')
	sed -i "s/^stream $k slots $n\$/stream $k slots $((n + 2))/" "$pack/pack.txt" &&
		undo_with sed -i "'s/^stream $k slots $((n + 2))\$/stream $k slots $n/'" "$pack/pack.txt"
}

# The Tigrex's PMO replaced by another model's (one that decodes, its
# palette within the Tigrex's 48 bones: junk would be refused).
op_replace_member() {
	local m=$mnt/file_06185/1.pmo
	keep "$m"
	cp "$mnt/$(pick file_06121/1 file_06121/5 file_06130/1 file_06111/1 file_06122/0).pmo" \
		"$work/new.pmo" && cp "$work/new.pmo" "$m" && undo_with cp "$copy" "$m"
}

op_tar_stream() {
	local pack=$mnt/$1 k
	# Streams with clip files and no link to or from another stream: tar
	# makes links with ".." last, from placeholders it checks are
	# untouched, and making a slot's .bin link makes its .txt twin; and
	# a clip removed and restored in its first stream is no longer the
	# one another stream links to.
	k=$(cd "$pack" && pick $(comm -23 <(ls -d stream*/slot*.txt | cut -d/ -f1 | sort -u) \
		<(find stream* -type l -lname '../*' -printf '%h\n%l\n' | grep -o 'stream[0-9]*' | sort -u)))
	saved=$((saved + 1))
	# The .txt names only: a slot's .bin is the same slot, and tar makes
	# links that leave the folder (../streamN/...) last, finding their
	# twin already made.
	(cd "$pack" && tar -cf "$work/saved.$saved.tar" "$k"/*.txt) &&
		find "$pack/$k" -name '*.txt' -delete &&
		undo_with tar -C "$pack" -xf "$work/saved.$saved.tar"
}

ops=(op_remove_slot op_change_key op_share_slot op_fill_slot op_grow_stream op_replace_member op_tar_stream)

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
"$mount_bin" "$archive" "$mnt"

# A round: 1 to 4 edits, then their inverses; the archive must be back.
round() {
	local n=$((1 + RANDOM % 4)) op pack inv
	inverses=()
	for _ in $(seq "$n"); do
		op=$(pick "${ops[@]}")
		pack=$(pick "${packs[@]}")
		echo "edit: $op $pack"
		"$op" "$pack" || { echo "the edit failed"; return 1; }
	done
	for inv in "${inverses[@]}"; do
		echo "inverse: $inv"
		eval "$inv" || { echo "the inverse failed"; return 1; }
	done
	cmp "$sample/DATA.BIN" "$archive" || {
		for p in "${packs[@]}"; do
			diff -r --no-dereference "$sample/src/$p" "$mnt/$p" | head -20
		done
		return 1
	}
}
for r in $(seq "$rounds"); do
	check "round $r: edits and their inverses leave DATA.BIN byte-identical" round
	if ! cmp -s "$sample/DATA.BIN" "$archive"; then # start the next round whole
		unmount "$mnt"
		cp "$sample/DATA.BIN" "$archive"
		"$mount_bin" "$archive" "$mnt"
	fi
done

# The case that grew a PAC by a block at every round: one clip removed
# and restored, ten times over.
check "removing and restoring a clip ten times leaves the PAC's size as it was" bash -c "
	s=file_06185/3/stream2/slot024.txt
	cp '$mnt/'\$s '$work/clip.txt'
	for i in \$(seq 10); do rm '$mnt/'\$s && cp '$work/clip.txt' '$mnt/'\$s || exit 1; done
	cmp '$sample/DATA.BIN' '$archive'"
unmount "$mnt"
finish
