#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layering check (fs/README.md): fs/'s folders, lowest first, are
#   store cache tree commit fuse
# and a file may include headers of its own folder, of the folders before
# it, and of codecs/ (which includes none of fs/'s); only fuse/ includes
# libfuse's headers, and only through fuse/fusefs.h.
#
#   bash tests/layers.sh            checks this tree, then checks that the
#                                   check fails on copies broken on purpose
#   bash tests/layers.sh --tree DIR checks the tree at DIR (exit 1: broken)
set -uo pipefail

layers=(store cache tree commit fuse)

# check_tree ROOT: prints each violation as FILE:LINE: what; exit 1 if any.
check_tree() {
	local root=$1 bad=0 rank l f line n inc where
	declare -A rank_of home
	for n in "${!layers[@]}"; do
		rank_of[${layers[$n]}]=$n
		for f in "$root"/fs/"${layers[$n]}"/*.h; do
			[ -e "$f" ] && home[$(basename "$f")]=${layers[$n]}
		done
	done
	for f in "$root"/codecs/*.h; do home[$(basename "$f")]=codecs; done
	for l in "${layers[@]}" codecs; do
		local dir=$root/fs/$l
		[ "$l" = codecs ] && dir=$root/codecs
		for f in "$dir"/*.[ch]; do
			[ -e "$f" ] || continue
			rank=${rank_of[$l]:--1}
			while IFS=: read -r n line; do
				if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<fuse ]]; then
					if [ "$l" != fuse ] || [ "$(basename "$f")" != fusefs.h ]; then
						echo "${f#$root/}:$n: includes a libfuse header (only fs/fuse/fusefs.h may)"
						bad=1
					fi
				elif [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
					inc=${BASH_REMATCH[1]}
					where=${home[$inc]:-}
					if [ -z "$where" ]; then
						echo "${f#$root/}:$n: includes \"$inc\", which no layer holds"
						bad=1
					elif [ "$l" = codecs ] && [ "$where" != codecs ]; then
						echo "${f#$root/}:$n: codecs/ includes fs/$where/$inc"
						bad=1
					elif [ "$where" != codecs ] && [ "${rank_of[$where]}" -gt "$rank" ]; then
						echo "${f#$root/}:$n: fs/$l includes fs/$where/$inc, a layer above it"
						bad=1
					fi
				fi
			done < <(grep -n '#[[:space:]]*include' "$f")
		done
	done
	return $bad
}

if [ "${1:-}" = --tree ]; then
	check_tree "$2"
	exit
fi

root=$(realpath "$(dirname "$0")/..")
work=$(mktemp -d -t mhfu-layers.XXXXXX)
. "$(dirname "$0")/mount/lib.sh"
trap 'rm -rf "$work"' EXIT

check "fs/ keeps its layers: no folder includes one above it, only fuse/ libfuse" check_tree "$root"

# broken COPY-NAME FILE LINE: a copy of fs/ and codecs/ with LINE put at
# the top of FILE; the check must fail on it, naming FILE.
broken() {
	local copy=$work/$1 file=$2 line=$3
	mkdir -p "$copy" && cp -r "$root/fs" "$root/codecs" "$copy/" &&
		sed -i "1i $line" "$copy/$file" &&
		! check_tree "$copy" >"$work/$1.out" && grep -q "^$file:1: " "$work/$1.out"
}
check "the check fails when a view includes a libfuse header" \
	broken view-fuse fs/tree/view_slot.c '#include <fuse_lowlevel.h>'
check "... when the store includes the tree" broken store-tree fs/store/journal.c '#include "node.h"'
check "... when the tree includes the commit path" broken tree-commit fs/tree/node.c '#include "commit.h"'
check "... when a codec includes fs/" broken codec-fs codecs/pac.c '#include "archive.h"'
finish
