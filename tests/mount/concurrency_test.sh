#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Concurrency: readers of text and raw views run while writers commit to
# the same entry (two slots) and to another one, some commits moving every
# later entry.  Readers must only see whole states: a clip text is one of
# the values written, never a mix; the changing entry's raw bytes are a
# whole PAC in one written state, or the read fails with ESTALE (a commit
# replaced the file under an open handle); an entry the writers do not
# touch reads the same bytes throughout, wherever it moves.  Beside them,
# scratch folders are made, filled, linked, listed, moved and removed in
# the same view folder, reading back what was written.  Nothing may
# deadlock.  By default the mount has no cache budget (-o cache_mb=0), so
# decoded models are evicted and rebuilt throughout; STORM_CACHE_MB sets
# another, STORM_MIN_COMMITS the commits the storm must see (10).
#
#   bash tests/mount/concurrency_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY [SECONDS]
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
seconds=${4:-10}
work=$(mktemp -d -t mhfu-concurrency-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
trap 'leave "$mnt"' EXIT

mkdir -p "$mnt" "$work/r"
cp "$sample/DATA.BIN" "$archive"
"$mount_bin" -o cache_mb=${STORM_CACHE_MB:-0} "$archive" "$mnt" || exit 1
# The daemon's threads at rest: the main one, the first worker, and any
# a runtime adds (ThreadSanitizer's).
pid=$(awk -F'\t' '$1 == "pid" { print $2 }' "$mnt/.mhfu/info")
at_rest=$(awk '$1 == "Threads:" { print $2 }' "/proc/$pid/status")
dir=$mnt/file_06185/3/stream2
other=$mnt/file_06121/3/stream0/slot000.txt
first_key() { awk '/^channel rot_x/ { f = 1; next } f && /^ *[0-9-]/ { print NR; exit }' "$1"; }
L=$(first_key "$dir/slot024.txt")
M=$(first_key "$other")
# A later entry the writers never touch, and its bytes.
still=$(awk -F'\t' 'NR > 1 && $2 > 6300 && $6 == "pac" { print $1; exit }' "$sample/src/index.tsv")
with_frames 1500 "$dir/slot025.txt" >"$work/big.txt"
cp "$dir/slot025.txt" "$work/small.txt"

set_value() { sed -i "$2s/^\\( *[0-9]* *\\)-\\{0,1\\}[0-9]*/\\1$3/" "$1"; }
end=$((SECONDS + seconds))
writer() { # writer FILE LINE A B: toggles a value until the end
	local i=0
	while [ $SECONDS -lt $end ]; do
		set_value "$1" "$2" $(( i % 2 ? $3 : $4 )) 2>>"$work/writer.err" && echo ok >>"$work/commits.$5"
		i=$((i + 1))
	done
}
grower() {
	local i=0
	while [ $SECONDS -lt $end ]; do
		cp "$work/$([ $((i % 2)) = 0 ] && echo big || echo small).txt" "$dir/slot025.txt" &&
			echo ok >>"$work/commits.grow"
		i=$((i + 1))
	done
}
scratcher() { # scratcher N: a scratch folder's life, over and over
	local n=$1 i=0 w
	while [ $SECONDS -lt $end ]; do
		w=$dir/work.$n
		mkdir -p "$w/a/b" && echo "$n $i" >"$w/a/b/f" && ln "$w/a/b/f" "$w/a/g" &&
			mv "$w/a" "$w/c" && ls -la "$w/c" >/dev/null &&
			[ "$(cat "$w/c/g")" = "$n $i" ] && [ "$(stat -c %h "$w/c/b/f")" = 2 ] &&
			rm -r "$w" && ! [ -e "$w" ] ||
			{ echo "scratch folder $w, round $i" >>"$work/anomalies"; rm -rf "$w"; }
		echo ok >>"$work/r/scratch.$n"
		i=$((i + 1))
	done
}
reader() { # reader N: reads and checks until the end
	local n=$1 v reads=0 bad=0
	while [ $SECONDS -lt $end ]; do
		v=$(sed -n "${L}p" "$dir/slot024.txt" | awk '{ print $2 }')
		case "$v" in 1111|2222) ;; *) echo "slot024 value '$v'" >>"$work/anomalies"; bad=$((bad + 1)) ;; esac
		v=$(sed -n "${M}p" "$other" | awk '{ print $2 }')
		case "$v" in 3333|4444) ;; *) echo "other value '$v'" >>"$work/anomalies"; bad=$((bad + 1)) ;; esac
		cmp -s "$mnt/$still" "$sample/src/$still" || { echo "$still changed" >>"$work/anomalies"; bad=$((bad + 1)); }
		# The changing entry's raw bytes: a whole PAC in one written
		# state, or a read refused as stale (a commit replaced it).
		if cat "$mnt/file_06185.pac" >"$work/r/pac.$n" 2>"$work/r/err.$n"; then
			v=$("$dump" "$work/r/pac.$n" 3/stream2/slot024.txt | sed -n "${L}p" | awk '{ print $2 }')
			case "$v" in 1111|2222) ;; *)
				echo "raw pac: slot024 value '$v' ($(stat -c %s "$work/r/pac.$n") bytes, kept as bad.$n.$reads)" >>"$work/anomalies"
				cp "$work/r/pac.$n" "$work/bad.$n.$reads"; bad=$((bad + 1)) ;;
			esac
		elif grep -q 'Stale file handle' "$work/r/err.$n"; then
			echo stale >>"$work/stale"
		else
			echo "raw pac: $(cat "$work/r/err.$n")" >>"$work/anomalies"; bad=$((bad + 1))
		fi
		ls "$dir" >/dev/null
		reads=$((reads + 4))
	done
	echo "$reads" >"$work/r/$n"
}
# Settle both values first, so readers know the states.
set_value "$dir/slot024.txt" "$L" 1111 && set_value "$other" "$M" 3333
# The daemon's threads, sampled through the storm: its workers stay
# within workers_max.
workers=$(awk -F'\t' '$1 == "workers_max" { print $2 }' "$mnt/.mhfu/info")
threads() {
	local most=0 n
	while [ $SECONDS -lt $end ]; do
		n=$(awk '$1 == "Threads:" { print $2 }' "/proc/$pid/status" 2>/dev/null)
		[ "${n:-0}" -gt "$most" ] && most=$n
		sleep 0.05
	done
	echo "$most" >"$work/threads"
}
threads &
for n in $(seq 6); do reader "$n" & done
writer "$dir/slot024.txt" "$L" 1111 2222 a &
writer "$dir/slot026.txt" "$L" 5 -5 b &
writer "$other" "$M" 3333 4444 c &
grower &
scratcher 1 &
scratcher 2 &
if timeout $((seconds + 60)) bash -c 'wait' 2>/dev/null; wait; then :; fi
ops=$(cat "$work"/r/[0-9]* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
folders=$(cat "$work"/r/scratch.* 2>/dev/null | wc -l)
if [ "$folders" -gt 0 ] && ! ls "$dir" | grep -q '^work\.'; then
	ok "$folders scratch folders made, filled, linked, moved and removed beside the storm"
else
	not_ok "scratch folders beside the storm: $folders rounds, left: $(ls "$dir" | grep '^work\.' | tr '\n' ' ')"
fi
commits=$(cat "$work"/commits.* 2>/dev/null | wc -l)
anomalies=$( [ -f "$work/anomalies" ] && wc -l <"$work/anomalies" || echo 0)
if mountpoint -q "$mnt" && [ "$anomalies" -eq 0 ] && [ "$commits" -ge "${STORM_MIN_COMMITS:-10}" ]; then
	ok "$ops reads beside $commits commits (same entry, other entry, moving entries): no anomaly, no deadlock"
else
	not_ok "concurrent readers and writers: $anomalies anomalies, $commits commits"
	head -20 "$work/anomalies" 2>/dev/null; head "$work/writer.err" 2>/dev/null
	grep -v committed "$mnt/.mhfu/log" | head
fi
most=$(cat "$work/threads" 2>/dev/null)
cores=$(getconf _NPROCESSORS_ONLN)
expected=$(( cores * 2 < 4 ? 4 : cores * 2 > 10 ? 10 : cores * 2 ))
if [ "$workers" = "$expected" ] && [ -n "$most" ] && [ "$most" -le $((at_rest - 1 + workers)) ]; then
	ok "the storm's daemon kept to $workers workers (2 a processor, 4 to 10): $most threads at most ($at_rest at rest)"
else
	not_ok "worker threads: workers_max '$workers' (expected $expected), $most threads at most ($at_rest at rest)"
fi
cp "$mnt/.mhfu/log" "$work/mount.log"
evictions=$(awk -F'\t' '$1 == "evictions" { print $2 }' "$mnt/.mhfu/info")
unmount "$mnt"
if "$dump" --check "$archive" >"$work/check"; then ok "the archive decodes after the storm"; else not_ok "the archive decodes after the storm"; cat "$work/check"; fi
stale=$( [ -f "$work/stale" ] && wc -l <"$work/stale" || echo 0)
printf '\n| concurrency figure | value |\n|---|---|\n| reads | %s |\n| commits | %s |\n| scratch folder rounds | %s |\n| anomalies | %s |\n| raw reads refused as stale | %s |\n| entries evicted from the cache | %s |\n' "$ops" "$commits" "$folders" "$anomalies" "$stale" "$evictions"
finish
