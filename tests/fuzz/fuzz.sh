#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Coverage-guided fuzzing with libFuzzer:
#
#   bash tests/fuzz/fuzz.sh [--seconds S | --runs N] [--jobs J] OUTDIR [TARGET...]
#   bash tests/fuzz/fuzz.sh OUTDIR SECONDS            (as --seconds SECONDS)
#   bash tests/fuzz/fuzz.sh --merge OUTDIR [TARGET...]
#
# builds every tests/fuzz/fuzz_*.c target (or the TARGETs named, e.g. fuzz_pac)
# with clang's libFuzzer under ASan+UBSan (the Makefile's SAN=fuzz, in
# OUTDIR/build), then runs each for S seconds (default 60) or until N
# executions, J targets at a time (default 1), on its working corpus
# OUTDIR/corpus/TARGET (kept between runs) seeded by the committed one,
# tests/fuzz/corpus/TARGET (read only), with the dictionary tests/fuzz/fuzz.dict.
# A target's source may add libFuzzer flags on a line of its opening
# comment, " * fuzz.sh flags: -max_len=8192".  Prints a table: target,
# executions, seconds (wall clock), CPU seconds, executions a second by
# each, corpus (inputs/bytes), crashes.  A crashing (or leaking, hanging, exhausting) input lands in
# OUTDIR/artifacts/TARGET/; replay it with the gcc build:
#   make build/tests/fuzz/TARGET && build/tests/fuzz/TARGET OUTDIR/artifacts/TARGET/crash-...
# then keep it in tests/fuzz/corpus/TARGET once fixed.  Exits 0 when every
# target ran clean, 1 when one crashed or could not run (or libFuzzer is
# missing), 2 for a bad command line.
#
# --merge minimizes tests/fuzz/corpus/TARGET and OUTDIR/corpus/TARGET into a
# fresh tests/fuzz/corpus/TARGET (libFuzzer's -merge=1: the fewest inputs
# keeping all the coverage, none over 4 KB), what `make check` replays.
set -euo pipefail

usage() {
	echo "usage: bash tests/fuzz/fuzz.sh [--seconds S | --runs N] [--jobs J] OUTDIR [TARGET...]" >&2
	echo "       bash tests/fuzz/fuzz.sh --merge OUTDIR [TARGET...]" >&2
	exit 2
}
count() { # NAME VALUE: a positive integer or a usage error
	[[ $2 =~ ^[0-9]+$ ]] && (($2 >= 1)) && return 0
	echo "fuzz.sh: $1 must be a positive integer, not '$2'" >&2
	exit 2
}

secs=60 runs= jobs=1 merge=0
while (($#)); do
	case $1 in
	--seconds) (($# >= 2)) || usage; count --seconds "$2"; secs=$2 runs=; shift 2 ;;
	--runs) (($# >= 2)) || usage; count --runs "$2"; runs=$2; shift 2 ;;
	--jobs) (($# >= 2)) || usage; count --jobs "$2"; jobs=$2; shift 2 ;;
	--merge) merge=1; shift ;;
	-*) usage ;;
	*) break ;;
	esac
done
(($# >= 1)) || usage
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
shift
# Everything runs from the tree's top with paths relative to it, so the
# logs and the table name no path of this machine (OUTDIR too, when it
# is inside the tree).
cd "$root" || exit 1
[[ $out == "$root"/* ]] && out=${out#"$root"/}
root=.
# A crash's stack trace likewise (its source files, and its binary when
# OUTDIR is inside the tree).
for v in ASAN_OPTIONS UBSAN_OPTIONS; do
	export "$v=${!v:+${!v}:}strip_path_prefix=$(pwd -P)/"
done
if (($# == 1)) && [[ $1 =~ ^[0-9]+$ ]]; then
	count SECONDS "$1"
	secs=$1 runs=
	shift
fi
clang=${CLANG:-clang}

# The targets: every tests/fuzz/fuzz_*.c but the gcc stand-in driver, or those named.
targets=()
if (($#)); then
	for name in "$@"; do
		name=${name%.c}
		name=${name##*/}
		if [[ $name == fuzz_driver || ! -f $root/tests/fuzz/$name.c ]]; then
			echo "fuzz.sh: no target tests/fuzz/$name.c" >&2
			exit 2
		fi
		targets+=("$name")
	done
else
	for src in "$root"/tests/fuzz/fuzz_*.c; do
		name=$(basename "$src" .c)
		[[ $name == fuzz_driver ]] || targets+=("$name")
	done
fi
if ((${#targets[@]} == 0)); then
	echo "fuzz.sh: no tests/fuzz/fuzz_*.c targets" >&2
	exit 1
fi

# The build (below) is kept between runs; one made by other flags or
# another Makefile, which make cannot tell, goes.
build_flags=(CC="$clang" SAN=fuzz CFLAGS="-O2 -g")
made_by="${build_flags[*]} $(cksum <"$root/Makefile")"
if [[ -d $out/build && $(cat "$out/build/made-by" 2>/dev/null) != "$made_by" ]]; then
	echo "fuzz.sh: $out/build was made by other flags or another Makefile: making it afresh"
	rm -rf "$out/build"
fi

# libFuzzer ships with clang's runtime libraries, packaged apart on Debian.
probe=$out/.probe
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	>"$probe.c"
if ! command -v "$clang" >/dev/null 2>&1 ||
	! "$clang" -fsanitize=fuzzer,address,undefined -o "$probe" "$probe.c" \
		>"$probe.log" 2>&1; then
	echo "fuzz.sh: clang with libFuzzer is not available ($clang)." >&2
	[[ -s $probe.log ]] && sed 's/^/  /' "$probe.log" >&2
	echo "Install it with \`make fuzz-deps\` (as root), or:" >&2
	echo "  sudo apt-get install clang libclang-rt-14-dev" >&2
	rm -f "$probe" "$probe.c" "$probe.log"
	exit 1
fi
rm -f "$probe" "$probe.c" "$probe.log"

# One build for all the targets, kept between runs (make rebuilds what
# changed): the codecs once, each target linked with libFuzzer's main.
# A make of its own (not the caller's, whose output sync names
# directories).
mkdir -p "$out/build"
printf '%s\n' "$made_by" >"$out/build/made-by"
bins=()
for name in "${targets[@]}"; do bins+=("$out/build/tests/fuzz/$name"); done
echo "fuzz.sh: building ${targets[*]} (log: $out/build.log)"
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -j"$(nproc)" "${build_flags[@]}" \
	BUILD="$out/build" "${bins[@]}" >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "fuzz.sh: the build failed (log: $out/build.log)" >&2
	exit 1
fi

# The flags a target's source asks for.
target_flags() {
	sed -n 's/^ \* fuzz\.sh flags: //p' "$root/tests/fuzz/$1.c"
}

if ((merge)); then
	for name in "${targets[@]}"; do
		committed=$root/tests/fuzz/corpus/$name
		fresh=$out/merge/$name
		rm -rf "$fresh"
		mkdir -p "$fresh" "$committed" "$out/corpus/$name"
		# shellcheck disable=SC2046 # the target's flags are words
		"$out/build/tests/fuzz/$name" -merge=1 -use_counters=0 -max_len=4096 $(target_flags "$name") \
			"$fresh" "$committed" "$out/corpus/$name" >"$out/$name.merge.log" 2>&1 || {
			echo "fuzz.sh: merging $name failed (log: $out/$name.merge.log)" >&2
			exit 1
		}
		rm -f "$committed"/*
		cp "$fresh"/* "$committed"/ 2>/dev/null || true
		echo "fuzz.sh: tests/fuzz/corpus/$name: $(find "$committed" -type f | wc -l) inputs," \
			"$(du -sb "$committed" | cut -f1) bytes"
	done
	exit 0
fi

# Runs one target; its figures go to OUTDIR/NAME.result as
# "executions seconds exec/s corpus crashes status".
run_target() {
	local name=$1 log=$out/$1.log corpus=$out/corpus/$1 committed=$root/tests/fuzz/corpus/$1
	local art=$out/artifacts/$1/ limit rc=0
	mkdir -p "$corpus" "$art"
	local dirs=("$corpus")
	[[ -d $committed ]] && dirs+=("$committed")
	if [[ -n $runs ]]; then limit=-runs=$runs; else limit=-max_total_time=$secs; fi
	local t0 t1
	t0=$(date +%s%N)
	# shellcheck disable=SC2046 # the target's flags are words
	("$out/build/tests/fuzz/$name" "$limit" -max_len=4096 -timeout=25 \
		-dict="$root/tests/fuzz/fuzz.dict" -print_final_stats=1 -artifact_prefix="$art" \
		$(target_flags "$name") "${dirs[@]}") >"$log" 2>&1 || rc=$?
	t1=$(date +%s%N)
	# CPU seconds the target used (user and system), which a busy machine
	# changes less than the wall clock's.
	times >"$out/$name.times"
	local cpu
	cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
		sub("s", "", a[2]); t += a[1] * 60 + a[2] } printf "%.3f", t }' "$out/$name.times")
	local n corp crashes status ms=$(((t1 - t0) / 1000000))
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	[[ -n $n ]] || n=$(sed -n 's/^#\([0-9][0-9]*\)[^0-9].*/\1/p' "$log" | tail -n 1)
	n=${n:-0}
	corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[bkKMG]*\) .*/\1/p' "$log" | tail -n 1)
	# A slow unit is libFuzzer's note of an input that took long (the
	# machine stalled, say), kept but not a failure.
	crashes=$(grep 'Test unit written to' "$log" | grep -vc '/slow-unit-' || true)
	if ((rc == 0)); then status=ok; else status="FAILED(exit-$rc)"; fi
	local per_cpu
	per_cpu=$(awk -v n="$n" -v t="$cpu" 'BEGIN { printf "%d", (t > 0 ? n / t : 0) }')
	echo "$n $((ms / 1000)).$(printf '%03d' $((ms % 1000))) $cpu $((n * 1000 / (ms ? ms : 1))) $per_cpu ${corp:-?} $crashes $status" \
		>"$out/$name.result"
}

rm -f "$out"/*.result
for name in "${targets[@]}"; do
	while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
	if [[ -n $runs ]]; then limit="to $runs executions"; else limit="for ${secs}s"; fi
	echo "fuzz.sh: running $name $limit (log: $out/$name.log)"
	run_target "$name" &
done
wait

failed=0
echo
row() { printf '%-14s %11s %9s %9s %8s %8s %14s %7s  %s\n' "$@"; }
row target executions seconds cpu_s exec/s exec/cpu corpus crashes status
for name in "${targets[@]}"; do
	read -r n s cpu rate per_cpu corp crashes status <"$out/$name.result" || {
		n=0 s=0 cpu=0 rate=0 per_cpu=0 corp=? crashes=? status=FAILED
	}
	[[ $status == ok ]] || failed=1
	row "$name" "$n" "$s" "$cpu" "$rate" "$per_cpu" "$corp" "$crashes" "$status"
done
if ((failed)); then
	echo "fuzz.sh: a target failed: its log and $out/artifacts/ say why" >&2
fi
exit $failed
