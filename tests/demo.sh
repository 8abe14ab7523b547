#!/usr/bin/env bash
# `make demo`: mounts the sample archive on ./mnt, shows around, and leaves
# it mounted.
set -euo pipefail
mount_bin=$1
sample=$2
mnt=mnt

mkdir -p "$mnt"
if mountpoint -q "$mnt"; then fusermount3 -u "$mnt"; fi
"$mount_bin" "$sample/DATA.BIN" "$mnt"

show() { printf '\n$ %s\n' "$*"; eval "$@"; }
echo "Mounted the sample archive $sample/DATA.BIN (encrypted, as on the UMD) on ./$mnt"
show "cat $mnt/.mhfu/info"
show "ls $mnt | sed -n 1,8p; ls $mnt | wc -l"
show "sed -n 1,6p $mnt/index.tsv"
tig=$mnt/file_06185
echo; echo "file_06185 is a Tigrex-shaped model PAC: skeleton, model, textures, animations."
show "ls $tig $tig/3"
show "ls -l $tig/3/stream2 | sed -n 1,6p"
show "sed -n 1,16p $tig/3/stream2/slot024.txt"
show "sed -n 1,14p $tig/0/skeleton.txt"
printf '\nStill mounted on ./%s. Unmount with: fusermount3 -u %s\n' "$mnt" "$mnt"
