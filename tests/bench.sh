#!/usr/bin/env bash
# `make bench`: figures, not pass/fail.  Builds the full-scale archive once
# (cached in BUILD/bench), then measures mount time and read throughput of
# every raw entry through the mount against `cat` of the backing file, the
# physical limit of this machine.  Each figure is the median of RUNS runs.
#
#   bash tests/bench.sh BUILD_DIR
set -euo pipefail

build=$(realpath "$1")
runs=${RUNS:-5}
dir=$build/bench
archive=$dir/DATA.BIN
mnt=$dir/mnt
mkdir -p "$dir" "$mnt"

if [ ! -f "$dir/.done" ] || [ "$build/mkarchive" -nt "$dir/.done" ]; then
	echo "generating the full-scale archive (once)..."
	"$build/mkarchive" --seed 1 --scale full --out "$archive"
	touch "$dir/.done"
fi
trap 'mountpoint -q "$mnt" && fusermount3 -u "$mnt"' EXIT

now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# Drops the page cache when allowed (root); cold figures say if it was not.
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; }
cold=yes
drop_caches || cold="no (cannot drop caches: figures are warm)"

entries() { find "$mnt" -maxdepth 1 -type f -name 'file_*' -print0; }
read_all() { entries | xargs -0 cat >/dev/null; }

mount_ns=() cold_ns=() warm_ns=() cat_cold_ns=() cat_warm_ns=()
for _ in $(seq "$runs"); do
	drop_caches || true
	t0=$(now); cat "$archive" >/dev/null; t1=$(now)
	cat "$archive" >/dev/null; t2=$(now)
	cat_cold_ns+=($((t1 - t0))) cat_warm_ns+=($((t2 - t1)))

	drop_caches || true
	t0=$(now); "$build/mount.mhfu" "$archive" "$mnt"; t1=$(now)
	mount_ns+=($((t1 - t0)))
	t0=$(now); read_all; t1=$(now)
	read_all; t2=$(now)
	cold_ns+=($((t1 - t0))) warm_ns+=($((t2 - t1)))
	fusermount3 -u "$mnt"
done

size=$(stat -c %s "$archive")
count=$("$build/mount.mhfu" "$archive" "$mnt" && awk -F'\t' '$1 == "entries" { print $2 }' "$mnt/.mhfu/info"; fusermount3 -u "$mnt")
m() { printf '%s\n' "$@" | median; }
mount_med=$(m "${mount_ns[@]}") cold_med=$(m "${cold_ns[@]}") warm_med=$(m "${warm_ns[@]}")
cat_cold=$(m "${cat_cold_ns[@]}") cat_warm=$(m "${cat_warm_ns[@]}")

ms() { awk -v ns="$1" 'BEGIN { printf "%.1f ms", ns / 1e6 }'; }
mbs() { awk -v ns="$1" -v b="$size" 'BEGIN { printf "%.0f MB/s", b / 1e6 / (ns / 1e9) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '\nmhfufs bench — %s, %s entries, %s MB, median of %s runs, cold caches: %s\n\n' \
	"$(date -u +%Y-%m-%d)" "$count" "$((size / 1000000))" "$runs" "$cold"
printf '| %-44s | %-12s | %-10s | %-24s |\n' figure mount.mhfu "cat file" "ratio (mhfu time / cat)"
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..12})" "$(printf -- '-%.0s' {1..26})"
printf '| %-44s | %-12s | %-10s | %-24s |\n' "mount time (full-scale archive)" "$(ms "$mount_med")" "" ""
printf '| %-44s | %-12s | %-10s | %-24s |\n' "read every raw entry, cold: time" "$(ms "$cold_med")" "$(ms "$cat_cold")" "$(ratio "$cold_med" "$cat_cold")"
printf '| %-44s | %-12s | %-10s | %-24s |\n' "read every raw entry, cold: throughput" "$(mbs "$cold_med")" "$(mbs "$cat_cold")" ""
printf '| %-44s | %-12s | %-10s | %-24s |\n' "read every raw entry, warm: time" "$(ms "$warm_med")" "$(ms "$cat_warm")" "$(ratio "$warm_med" "$cat_warm")"
printf '| %-44s | %-12s | %-10s | %-24s |\n' "read every raw entry, warm: throughput" "$(mbs "$warm_med")" "$(mbs "$cat_warm")" ""
