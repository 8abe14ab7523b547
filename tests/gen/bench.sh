#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make bench`: figures, not pass/fail (issue 15's table).  Builds the
# full-scale archive once (cached in BUILD/bench) with its raw entries
# extracted and a squashfs image of exactly those entries, then measures
# each row of the table beside its floor in the same run (the peer or
# the same work without mount.mhfu), prints the table with the ratio to
# the floor, the target and whether it is met, then each missed target
# with its profile (perf record -a) and what dominates it.
#
#   bash tests/gen/bench.sh BUILD_DIR
#   RUNS=N        runs a figure is the median of (default 5; RUNS=1 for a
#                 quick look)
#   COMMITS=N     commits in a row for the steadiness row (default 10000)
set -uo pipefail

build=$(realpath "$1")
runs=${RUNS:-5}
commits=${COMMITS:-10000}
dir=$build/bench
archive=$dir/DATA.BIN
edit=$dir/edit.BIN
mnt=$dir/mnt
here=$(dirname "$0")
mkdir -p "$dir" "$mnt" "$mnt.sq"
export XDG_STATE_HOME=$dir/state   # the mounts' record (log, kinds)
profiles=$dir/profiles.txt
: >"$profiles"
. "$here/bench_lib.sh"

if [ ! -f "$dir/.done" ] || [ "$build/mkarchive" -nt "$dir/.done" ]; then
	echo "generating the full-scale archive and its squashfs peer (once)..."
	rm -rf "$dir/src" "$dir/raw" "$dir/raw.sqfs"
	"$build/mkarchive" --seed 1 --scale full --out "$archive" --extract "$dir/src" || exit 1
	mkdir -p "$dir/raw"
	find "$dir/src" -maxdepth 1 -type f -name 'file_*' -exec ln {} "$dir/raw/" \;
	mksquashfs "$dir/raw" "$dir/raw.sqfs" -noappend -no-progress -quiet >/dev/null
	# The port's donor: the MHP3rd sample's Brute Tigrex.
	"$build/mkarchive" --seed 1 --game mhp3rd --out "$dir/p3.bin" || exit 1
	touch "$dir/.done"
fi
# The mounts' record is the run's own: it goes with it (its log names
# this machine's paths).
cleanup() {
	for m in "$mnt" "$mnt.sq"; do mountpoint -q "$m" && fusermount3 -u "$m"; done
	rm -rf "$XDG_STATE_HOME"
}
trap cleanup EXIT
cold="dropped before each cold run"
drop_caches || cold="NOT dropped (not root, or no /proc/sys/vm/drop_caches): cold figures are warm"
read_all() { find "$1" -maxdepth 1 -type f -name 'file_*' -print0 | xargs -0 cat >/dev/null; }
mounted() { "$build/mount.mhfu" "$@" "$mnt"; }
unmount() { fusermount3 -u "$mnt"; }
out=$dir/table.txt
: >"$out"
table() { row "$@" >>"$out"; }

# --- read every raw entry, beside squashfuse_ll ---------------------------------
# fs_run AT MOUNT-COMMAND...: one run, "COLD WARM" nanoseconds.
fs_run() {
	local at=$1 c w
	shift
	drop_caches
	"$@" >/dev/null 2>&1 || return 1
	c=$(timed read_all "$at")
	w=$(timed read_all "$at")
	fusermount3 -u "$at"
	echo "$c $w"
}

# row_read LABEL TARGET_COLD TARGET_WARM [MOUNT OPTIONS]
row_read() {
	local label=$1 tc=$2 tw=$3 m=() s=() mc mw sc sw
	shift 3
	for _ in $(seq "$runs"); do
		m+=("$(fs_run "$mnt" "$build/mount.mhfu" "$@" "$archive" "$mnt")")
		s+=("$(fs_run "$mnt.sq" squashfuse_ll "$dir/raw.sqfs" "$mnt.sq")")
	done
	mc=$(printf '%s\n' "${m[@]}" | cut -d' ' -f1 | median)
	mw=$(printf '%s\n' "${m[@]}" | cut -d' ' -f2 | median)
	sc=$(printf '%s\n' "${s[@]}" | cut -d' ' -f1 | median)
	sw=$(printf '%s\n' "${s[@]}" | cut -d' ' -f2 | median)
	local rc rw
	rc=$(ratio "$mc" "$sc") rw=$(ratio "$mw" "$sw")
	table "$label, cold" "$(ms "$mc")" "squashfuse_ll $(ms "$sc")" "$rc" "<= $tc" "$(judge "$rc" le "$tc")"
	table "$label, warm" "$(ms "$mw")" "squashfuse_ll $(ms "$sw")" "$rw" "<= $tw" "$(judge "$rw" le "$tw")"
	[ "$(judge "$rc" le "$tc")" = MISSED ] && missed "$label, cold" "${rc}x squashfuse_ll (target $tc)" \
		fs_run "$mnt" "$build/mount.mhfu" "$@" "$archive" "$mnt"
	[ "$(judge "$rw" le "$tw")" = MISSED ] && missed "$label, warm" "${rw}x squashfuse_ll (target $tw)" \
		warm_read "$@"
}
warm_read() { mounted "$@" "$archive" && read_all "$mnt" && read_all "$mnt"; unmount; }

# --- the Tigrex's clip texts, beside the same files on the local disk -----------
clips=file_06185/3
cat_texts() { cat "$1"/stream*/*.txt >/dev/null; }
row_texts() {
	local f=() a=() l=() sf=() sa=() first again local_t sq_first sq_again
	mounted "$archive" && rm -rf "$dir/texts" && cp -r "$mnt/$clips" "$dir/texts" && unmount
	# The same files through another FUSE driver: what FUSE's round trips
	# per file (lookup, open, read, release) cost on this machine.
	mksquashfs "$dir/texts" "$dir/texts.sqfs" -noappend -no-progress -quiet >/dev/null
	for _ in $(seq "$runs"); do
		mounted "$archive"
		f+=("$(timed cat_texts "$mnt/$clips")")
		a+=("$(timed cat_texts "$mnt/$clips")")
		unmount
		l+=("$(timed cat_texts "$dir/texts")")
		squashfuse_ll "$dir/texts.sqfs" "$mnt.sq"
		sf+=("$(timed cat_texts "$mnt.sq")")
		sa+=("$(timed cat_texts "$mnt.sq")")
		fusermount3 -u "$mnt.sq"
	done
	first=$(printf '%s\n' "${f[@]}" | median) again=$(printf '%s\n' "${a[@]}" | median)
	local_t=$(printf '%s\n' "${l[@]}" | median)
	sq_first=$(printf '%s\n' "${sf[@]}" | median) sq_again=$(printf '%s\n' "${sa[@]}" | median)
	local r1 r2
	r1=$(ratio "$first" "$local_t") r2=$(ratio "$again" "$local_t")
	table "all Tigrex clip texts, default mount, first" "$(ms "$first")" "local disk $(ms "$local_t")" "$r1" "<= 1.2" "$(judge "$r1" le 1.2)"
	table "  beside FUSE's floor: squashfuse_ll, first" "$(ms "$first")" "squashfuse_ll $(ms "$sq_first")" "$(ratio "$first" "$sq_first")" "(FUSE)" "-"
	table "same, again" "$(ms "$again")" "local disk $(ms "$local_t")" "$r2" "<= 1.0" "$(judge "$r2" le 1.0)"
	table "  beside FUSE's floor: squashfuse_ll, again" "$(ms "$again")" "squashfuse_ll $(ms "$sq_again")" "$(ratio "$again" "$sq_again")" "(FUSE)" "-"
	mounted "$archive" && cat_texts "$mnt/$clips"
	local share
	share=$(one_worker_share "$mnt" cat_texts "$mnt/$clips")
	unmount
	table "  of the workers' switches, the busiest's (again)" "${share}%" "-" "-" "(loop.h)" "-"
	[ "$(judge "$r1" le 1.2)" = MISSED ] && missed "Tigrex texts, first" "${r1}x the local disk$(at_fuse_floor "$first" "$sq_first")" texts_first
	[ "$(judge "$r2" le 1.0)" = MISSED ] && missed "Tigrex texts, again" "${r2}x the local disk$(at_fuse_floor "$again" "$sq_again")" texts_again
}
# Of the daemon's workers' voluntary switches while COMMAND runs (the main
# thread, which watches, aside), the share of the busiest: a run of quick
# requests is served by the reader's thread (fs/fuse/loop.h), near 100%;
# libfuse's loop woke a thread for each request (26-50% here).
one_worker_share() {
	local pid before after
	pid=$(info_of "$1" pid)
	shift
	switches() {
		local t
		for t in /proc/"$pid"/task/*; do
			[ "${t##*/}" = "$pid" ] ||
				awk -v t="${t##*/}" '$1 == "voluntary_ctxt_switches:" { print t, $2 }' "$t/status"
		done
	}
	before=$(switches)
	"$@"
	after=$(switches)
	awk 'NR == FNR { was[$1] = $2; next } { d = $2 - was[$1]; all += d; if (d > top) top = d }
		END { printf "%d", all ? 100 * top / all : 0 }' <(echo "$before") <(echo "$after")
}
# ", at FUSE's floor ..." when the mount took at most 1.1x squashfuse_ll's time.
at_fuse_floor() {
	awk -v m="$1" -v s="$2" 'BEGIN { if (m <= 1.1 * s) printf ", at FUSE'"'"'s floor: %.2fx squashfuse_ll on the same files", m / s }'
}
texts_first() { mounted "$archive" && cat_texts "$mnt/$clips"; unmount; }
texts_again() { mounted "$archive" && cat_texts "$mnt/$clips" && for _ in 1 2 3; do cat_texts "$mnt/$clips"; done; unmount; }

# --- edits, on a copy: sed -i, entries, growth, commits in a row ----------------
# The line of slot024's first rot_x key, and entry001's.
key_line() { awk '/^channel rot_x/ { f = 1; next } f && /^ *[0-9-]/ { print NR; exit }' "$1"; }
edit_line() { sed -i "${2}s/^\\( *[0-9]* *\\)-\\{0,1\\}[0-9]*/\\1$3/" "$1"; }
slot=$clips/stream2/slot024.txt
entry=$clips/entries/entry001.txt
local_sed() { edit_line "$1" "$2" "$3" && sync "$1" "$(dirname "$1")"; }
row_sed() {
	local e=() l=() L
	L=$(key_line "$mnt/$slot")
	for i in $(seq "$runs"); do
		e+=("$(timed edit_line "$mnt/$slot" "$L" $((100 + i)))")
		l+=("$(timed local_sed "$dir/texts/stream2/slot024.txt" "$L" $((100 + i)))")
	done
	sed_mount=$(printf '%s\n' "${e[@]}" | median)
	local lt r
	lt=$(printf '%s\n' "${l[@]}" | median) r=$(ratio "$sed_mount" "$lt")
	table "sed -i one keyframe, fsync included" "$(ms "$sed_mount") (commit $(info_of "$mnt" last_commit_us) us)" \
		"sed -i + sync, local $(ms "$lt")" "$r" "<= 1.2" "$(judge "$r" le 1.2)"
	[ "$(judge "$r" le 1.2)" = MISSED ] && missed "sed -i one keyframe" "${r}x sed -i + sync on the local disk" \
		edit_line "$mnt/$slot" "$L" 77
}
row_entry_edit() {
	local e=() s=() Ls Le
	Ls=$(key_line "$mnt/$slot") Le=$(key_line "$mnt/$entry")
	for i in $(seq "$runs"); do
		e+=("$(timed edit_line "$mnt/$entry" "$Le" $((200 + i)))")
		s+=("$(timed edit_line "$mnt/$slot" "$Ls" $((300 + i)))")
	done
	local et st r
	et=$(printf '%s\n' "${e[@]}" | median) st=$(printf '%s\n' "${s[@]}" | median) r=$(ratio "$et" "$st")
	table "an edit through entries/entry001.txt" "$(ms "$et")" "slot edit $(ms "$st")" "$r" "<= 1.5" "$(judge "$r" le 1.5)"
	[ "$(judge "$r" le 1.5)" = MISSED ] && missed "entry edit" "${r}x a slot edit" edit_line "$mnt/$entry" "$Le" 99
}

# The raw entry of a data entry about `pct` percent through the archive,
# as "NAME END_BYTE" (index.tsv: name id start blocks size kind).
entry_at() {
	awk -F'\t' -v pct="$1" -v total="$(stat -c %s "$edit")" '
		NR > 1 && $6 == "data" && $3 * 2048 >= total * pct / 100 { print $1, ($3 + $4) * 2048; exit }' \
		"$mnt/index.tsv"
}
grow() { truncate -s +8192 "$mnt/$1"; }
copy_tail() { dd if="$edit" of="$dir/tail.bin" bs=1M iflag=skip_bytes skip="$1" conv=fsync status=none; }
copy_all() { cp "$edit" "$dir/copy.BIN" && sync "$dir/copy.BIN"; }
# row_growth LABEL PERCENT FLOOR-KIND TARGET OP
row_growth() {
	local label=$1 pct=$2 kind=$3 target=$4 op=$5 g=() f=() name end
	for _ in $(seq "$runs"); do
		read -r name end < <(entry_at "$pct")
		g+=("$(timed grow "$name")")
		read -r name end < <(entry_at "$pct")
		if [ "$kind" = tail ]; then f+=("$(timed copy_tail "$end")"); else f+=("$(timed copy_all)"); fi
	done
	rm -f "$dir/tail.bin" "$dir/copy.BIN"
	local gt ft r floor
	gt=$(printf '%s\n' "${g[@]}" | median) ft=$(printf '%s\n' "${f[@]}" | median)
	if [ "$kind" = tail ]; then
		r=$(ratio "$gt" "$ft") floor="dd of the $(( ($(stat -c %s "$edit") - end) / 1000000 )) MB after it $(ms "$ft")"
	else
		r=$(ratio "$ft" "$gt") floor="cp + sync of the archive $(ms "$ft")"
	fi
	table "$label" "$(ms "$gt")" "$floor" "$r" "$([ "$op" = le ] && echo "<=" || echo ">=") $target" "$(judge "$r" "$op" "$target")"
	[ "$(judge "$r" "$op" "$target")" = MISSED ] && missed "$label" "ratio $r (target $target)" grow "$name"
}

# COMMITS commits in a row through a slot's text, two texts in turn: the
# per-commit time and the daemon's RSS of the first tenth against the
# last tenth.
row_commits() {
	local pid window
	pid=$(info_of "$mnt" pid) window=$((commits / 10))
	cp "$mnt/$slot" "$dir/a.txt"
	edit_line "$dir/a.txt" "$(key_line "$dir/a.txt")" 4321 && cp "$dir/a.txt" "$dir/b.txt"
	cp "$mnt/$slot" "$dir/a.txt"
	python3 - "$mnt/$slot" "$dir/a.txt" "$dir/b.txt" "$commits" "$pid" "$mnt/.mhfu/info" >"$dir/commits.txt" <<'EOF'
import sys, time
path, a, b, n, pid, info = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read(), int(sys.argv[4]), sys.argv[5], sys.argv[6]
page = 4096
for i in range(n):
    t0 = time.monotonic_ns()
    with open(path, "w") as f:
        f.write(b if i % 2 == 0 else a)
    t1 = time.monotonic_ns()
    rss = int(open(f"/proc/{pid}/statm").read().split()[1]) * page if i % 10 == 0 else -1
    us = -1
    if i % 10 == 0:
        for line in open(info):
            if line.startswith("last_commit_us\t"):
                us = int(line.split("\t")[1])
    print(t1 - t0, rss, us)
EOF
	local t1 t2 r1 r2 c1 c2 rt rr
	t1=$(head -n "$window" "$dir/commits.txt" | cut -d' ' -f1 | median)
	t2=$(tail -n "$window" "$dir/commits.txt" | cut -d' ' -f1 | median)
	r1=$(head -n "$window" "$dir/commits.txt" | awk '$2 >= 0 { s += $2; n++ } END { printf "%d", s / n }')
	r2=$(tail -n "$window" "$dir/commits.txt" | awk '$2 >= 0 { s += $2; n++ } END { printf "%d", s / n }')
	c1=$(head -n "$window" "$dir/commits.txt" | awk '$3 >= 0 { print $3 }' | median)
	c2=$(tail -n "$window" "$dir/commits.txt" | awk '$3 >= 0 { print $3 }' | median)
	rt=$(ratio "$t2" "$t1") rr=$(ratio "$r2" "$r1")
	table "$commits commits in a row, per commit (last/first $window)" "$(ms "$t2") (commit $c2 us)" "first $window: $(ms "$t1") (commit $c1 us)" "$rt" "<= 1.10" "$(judge "$rt" le 1.10)"
	table "  the daemon's RSS (last/first $window)" "$((r2 / 1024)) KB" "first $window: $((r1 / 1024)) KB" "$rr" "<= 1.10" "$(judge "$rr" le 1.10)"
	# The first window holds the heap's growth to its working size (one
	# step or a few, in the first hundreds of commits); the second shows
	# whether it goes on growing.
	local r_second rs
	r_second=$(sed -n "$((window + 1)),$((2 * window))p" "$dir/commits.txt" | awk '$2 >= 0 { s += $2; n++ } END { printf "%d", s / n }')
	rs=$(ratio "$r2" "$r_second")
	table "  the daemon's RSS (last/second $window)" "$((r2 / 1024)) KB" "second $window: $((r_second / 1024)) KB" "$rs" "(after warm-up)" "-"
	[ "$(judge "$rt" le 1.10)" = MISSED ] && missed "commits in a row" "the last commits take ${rt}x the first" \
		edit_line "$mnt/$slot" "$(key_line "$mnt/$slot")" 55
}

# --- a fresh mount's root, and the Tigrex's pictures ------------------------------
row_listing() {
	local before t n
	mounted "$archive" && ls "$mnt" >/dev/null && unmount # the record learns the kinds
	mounted "$archive"
	before=$(info_of "$mnt" reads)
	t=$(timed ls "$mnt")
	n=$(info_of "$mnt" heads_sniffed)
	table "listing the root of a fresh mount (entries read)" "$n read, $(($(info_of "$mnt" reads) - before)) reads, $(ms "$t")" \
		"kinds remembered: $(info_of "$mnt" kinds_remembered)" "$n" "0 read" "$([ "$n" = 0 ] && echo met || echo MISSED)"
	unmount
	[ "$n" = 0 ] || missed "listing the root" "$n heads read" listing_fresh
}
listing_fresh() { mounted "$archive" && ls "$mnt"; unmount; }
pictures="model.glb 2/image00.png 2/image01.png 2/image02.png 2/image03.png 2/image04.png"
row_pictures() {
	local p t=() l=() ft lt
	for p in $pictures; do
		t=() l=()
		for _ in $(seq "$runs"); do
			mounted "$archive"
			t+=("$(timed cat "$mnt/file_06185/$p")")
			cp "$mnt/file_06185/$p" "$dir/picture"
			unmount
			l+=("$(timed cat "$dir/picture")")
		done
		ft=$(printf '%s\n' "${t[@]}" | median) lt=$(printf '%s\n' "${l[@]}" | median)
		# model.glb carries the body: its target is the issue's 60 ms.
		local most=50
		[ "$p" = model.glb ] && most=60
		table "Tigrex $p ($(stat -c %s "$dir/picture") bytes), first read" "$(ms "$ft")" "local disk $(ms "$lt")" \
			"$(ratio "$ft" "$lt")" "<= $most ms" "$(awk -v t="$ft" -v m="$most" 'BEGIN { print t <= m * 1e6 ? "met" : "MISSED" }')"
		awk -v t="$ft" -v m="$most" 'BEGIN { exit !(t > m * 1e6) }' &&
			missed "$p, first read" "$(ms "$ft")" picture_first "$p"
	done
	rm -f "$dir/picture"
}
picture_first() { mounted "$archive" && cat "$mnt/file_06185/$1"; unmount; }

# --- the body: vertices.tsv read and edited with awk, beside the local disk ---------
body=file_06185/1
# The README's edit: a vertex's x moved, written back, synced.
move_vertex() {
	awk -v x="$3" '$1 == 12 && $2 == 40 { $3 += x } 1' "$1" >"$2" && cat "$2" >"$1" &&
		sync "$1"
}
row_body() {
	local f=() l=() e=() le=() ft lt et lt2 r i
	for i in $(seq "$runs"); do
		drop_caches
		mounted "$archive"
		f+=("$(timed cat "$mnt/$body/vertices.tsv")")
		cp "$mnt/$body/vertices.tsv" "$dir/vertices.tsv"
		unmount
		drop_caches
		l+=("$(timed cat "$dir/vertices.tsv")")
	done
	ft=$(printf '%s\n' "${f[@]}" | median) lt=$(printf '%s\n' "${l[@]}" | median) r=$(ratio "$ft" "$lt")
	table "Tigrex vertices.tsv ($(stat -c %s "$dir/vertices.tsv") bytes), first read" "$(ms "$ft")" \
		"local disk $(ms "$lt")" "$r" "<= 1.5" "$(judge "$r" le 1.5)"
	[ "$(judge "$r" le 1.5)" = MISSED ] && missed "vertices.tsv, first read" "${r}x the local disk" \
		body_first
	cp "$archive" "$edit" && sync
	mounted "$edit"
	cat "$mnt/$body/vertices.tsv" >/dev/null
	for i in $(seq "$runs"); do
		e+=("$(timed move_vertex "$mnt/$body/vertices.tsv" "$dir/v.mnt" "0.$i")")
		le+=("$(timed move_vertex "$dir/vertices.tsv" "$dir/v.local" "0.$i")")
	done
	local cu
	cu=$(info_of "$mnt" last_commit_us)
	unmount
	et=$(printf '%s\n' "${e[@]}" | median) lt2=$(printf '%s\n' "${le[@]}" | median) r=$(ratio "$et" "$lt2")
	table "awk moves one vertex, fsync included" "$(ms "$et") (commit $cu us)" \
		"the same on the local disk $(ms "$lt2")" "$r" "<= 1.5" "$(judge "$r" le 1.5)"
	[ "$(judge "$r" le 1.5)" = MISSED ] && missed "awk vertex edit" "${r}x the local disk" body_edit
	rm -f "$edit" "$dir/vertices.tsv" "$dir/v.mnt" "$dir/v.local"
}
body_first() { mounted "$archive" && cat "$mnt/$body/vertices.tsv"; unmount; }
body_edit() { cp "$archive" "$edit" && mounted "$edit" && move_vertex "$mnt/$body/vertices.tsv" "$dir/v.mnt" 1; unmount; }

# --- a port: the Brute Tigrex's moves onto the Tigrex, out.pac's first read -----
# The toolkit's docs give no figure for a build; the floor is a plain copy
# of the host's PAC on the local disk.
row_port() {
	local t=() l=() ft lt
	"$build/mount.mhfu" -o ro "$dir/p3.bin" "$mnt.sq" && cp "$mnt.sq/by-name/brute-tigrex/donor.pac" \
		"$dir/donor.pac" && fusermount3 -u "$mnt.sq"
	cp "$archive" "$edit" && sync
	mounted "$edit" && cp "$dir/donor.pac" "$mnt/by-name/tigrex/port/" && unmount
	for _ in $(seq "$runs"); do
		drop_caches
		mounted "$edit"
		t+=("$(timed cat "$mnt/file_06185/port/out.pac")")
		unmount
		drop_caches
		l+=("$(timed cp "$dir/src/file_06185.pac" "$dir/copy.pac")")
	done
	ft=$(printf '%s\n' "${t[@]}" | median) lt=$(printf '%s\n' "${l[@]}" | median)
	table "a port (the Brute Tigrex onto the Tigrex), out.pac's first read" "$(ms "$ft")" \
		"cp of the host's PAC $(ms "$lt")" "$(ratio "$ft" "$lt")" "<= 100 ms" \
		"$(awk -v t="$ft" 'BEGIN { print t <= 100e6 ? "met" : "MISSED" }')"
	awk -v t="$ft" 'BEGIN { exit !(t > 100e6) }' && missed "a port, out.pac's first read" "$(ms "$ft")" port_first
	# The whole monster: the Brute's rig, body and textures too.
	mounted "$edit" && echo 'mode own' >"$mnt/file_06185/port/port.txt" && unmount
	t=()
	for _ in $(seq "$runs"); do
		drop_caches
		mounted "$edit"
		t+=("$(timed cat "$mnt/file_06185/port/out.pac")")
		unmount
	done
	ft=$(printf '%s\n' "${t[@]}" | median)
	table "a whole port (mode own: the Brute's rig and body), out.pac's first read" "$(ms "$ft")" \
		"cp of the host's PAC $(ms "$lt")" "$(ratio "$ft" "$lt")" "<= 250 ms" \
		"$(awk -v t="$ft" 'BEGIN { print t <= 250e6 ? "met" : "MISSED" }')"
	awk -v t="$ft" 'BEGIN { exit !(t > 250e6) }' && missed "a whole port, out.pac's first read" "$(ms "$ft")" port_first
	rm -f "$edit" "$dir/copy.pac"
}
port_first() { mounted "$edit" && cat "$mnt/file_06185/port/out.pac"; unmount; }

# --- Blender's export of the Tigrex's longest entry, fitted and committed --------
# The export is made once (Blender is slow to start) and kept with the
# full-scale archive; without Blender the row says so.
row_glb() {
	local t=() l=() ft lt e glb=$dir/entry.glb
	if ! command -v blender >/dev/null; then
		table "Blender's export of the longest entry, fitted and committed" "-" \
			"(blender is not installed)" "-" "<= 200 ms" "-"
		return
	fi
	mounted -o ro "$archive"
	e=$(awk -F'\t' '!/^#/ && $4 + 0 > best { best = $4 + 0; e = $1 } END { print e + 0 }' \
		"$mnt/file_06185/3/entries/index.tsv")
	[ -s "$glb" ] || GLB=$mnt/file_06185/model.glb ENTRY=$e OUT=$glb \
		blender --background --factory-startup --python "$here/../mount/blender_entry.py" \
		>/dev/null 2>&1
	unmount
	for _ in $(seq "$runs"); do
		cp "$archive" "$edit" && sync
		mounted "$edit"
		t+=("$(timed cp "$glb" "$mnt/file_06185/3/entries/entry$(printf %03d "$e").glb")")
		unmount
		l+=("$(timed cp "$glb" "$dir/copy.glb")")
	done
	ft=$(printf '%s\n' "${t[@]}" | median) lt=$(printf '%s\n' "${l[@]}" | median)
	table "Blender's export of entry $e (the longest), fitted and committed" "$(ms "$ft")" \
		"cp of the export $(ms "$lt")" "$(ratio "$ft" "$lt")" "<= 200 ms" \
		"$(awk -v t="$ft" 'BEGIN { print t <= 200e6 ? "met" : "MISSED" }')"
	rm -f "$edit" "$dir/copy.glb"
}

# --- the run ------------------------------------------------------------------
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "measuring (median of $runs; $commits commits in a row; load average $load)..."
row_read "read every raw entry, default mount" 0.5 0.7
row_read "read every raw entry, -o ro" 0.35 0.5 -o ro
row_texts
cp "$archive" "$edit" && sync
mounted "$edit"
row_sed
row_entry_edit
row_growth "growth commit of an entry near the end (90%)" 90 tail 2 le
row_growth "growth commit near the start (10%), vs cp speed" 10 all 0.8 ge
row_commits
unmount
rm -f "$edit" "$dir/a.txt" "$dir/b.txt"
row_listing
row_pictures
row_body
row_port
row_glb
cipher_seq=- cipher_rand=-
[ -x "$build/cipher_bench" ] && read -r cipher_seq cipher_rand < <("$build/cipher_bench" | awk '{ printf "%s ", $2 }')

count=$(find "$dir/raw" -type f | wc -l)
printf '\nmhfufs bench — %s, %s entries (%s MB), median of %s, caches %s, load average %s at the start, %s at the end\n\n' \
	"$(date -u +%Y-%m-%d)" "$count" "$(($(stat -c %s "$archive") / 1000000))" "$runs" "$cold" "$load" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
row figure mount.mhfu "floor (the same work, or the peer)" ratio target verdict
row "$(printf -- '-%.0s' {1..50})" ---------------------- ------------------------------ ------- --------- ------
cat "$out"
printf '\ncipher in process, sequential / random offsets: %s / %s MB/s\n' "$cipher_seq" "$cipher_rand"
if [ -s "$profiles" ]; then
	printf '\nMissed targets, each profiled once more (perf record -a: every process, so the\n'
	printf 'load of other work on this machine shows as "other"):\n'
	cat "$profiles"
else
	printf '\nEvery target met.\n'
fi
