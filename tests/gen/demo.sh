#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make demo`: mounts a copy of the sample archive on ./mnt, shows around,
# and leaves it mounted.  The sample itself is never mounted: the tests
# need it as generated.  The copy is made when missing or older than the
# sample (a regenerated one), so the demo's edits survive the next run.
#
#   bash tests/gen/demo.sh MOUNT_BINARY SAMPLE_DIR DEMO_DIR [MOUNT_DIR]
set -euo pipefail
mount_bin=$1
sample=$2
demo=$3
mnt=${4:-mnt}
archive=$demo/DATA.BIN

mkdir -p "$mnt" "$demo"
if mountpoint -q "$mnt"; then fusermount3 -u "$mnt"; fi
if [ ! -e "$archive" ] || [ "$sample/DATA.BIN" -nt "$archive" ]; then
	# A journal or backup left beside an older copy is not this one's.
	rm -f "$archive" "$archive".mhfu-* "$archive.orig"
	cp "$sample/DATA.BIN" "$archive.tmp"
	mv "$archive.tmp" "$archive"
	copy="The copy is fresh."
else
	copy="The copy is kept from the last demo, with its edits; remove $demo for a fresh one."
fi
"$mount_bin" "$archive" "$mnt"

show() { printf '\n$ %s\n' "$*"; eval "$@"; }
echo "Mounted $archive on $mnt: a copy of the sample archive $sample/DATA.BIN"
echo "(encrypted, as on the UMD). $copy"
echo "Edits change the copy only; the sample the tests use is never mounted."
show "cat $mnt/.mhfu/info"
show "ls $mnt | sed -n 1,8p; ls $mnt | wc -l"
show "sed -n 1,6p $mnt/index.tsv"
tig=$mnt/file_06185
echo; echo "file_06185 is a Tigrex-shaped model PAC: skeleton, model, textures, animations."
show "ls $tig $tig/3"
show "ls -l $tig/3/stream2 | sed -n 1,6p"
show "sed -n 1,16p $tig/3/stream2/slot024.txt"
show "sed -n 1,14p $tig/0/skeleton.txt"
printf '\nStill mounted on %s (edits go to %s). Unmount with: fusermount3 -u %s\n' "$mnt" "$archive" "$mnt"
