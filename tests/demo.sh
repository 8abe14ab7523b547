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
pac=$(ls -d "$mnt"/file_*/ | head -1)
show "ls -l ${pac%/}"
show "sed -n 1,6p $mnt/index.tsv"
show "od -A x -t x1z ${pac%/}.pac | sed -n 1,4p"
printf '\nStill mounted on ./%s. Unmount with: fusermount3 -u %s\n' "$mnt" "$mnt"
