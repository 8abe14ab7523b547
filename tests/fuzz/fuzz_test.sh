#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fuzz/fuzz.sh run as a new user runs it, for a second a target:
#
#   bash tests/fuzz/fuzz_test.sh SAMPLE_DIR [OUTDIR]
#
# On a copy of the source tree without build/ (a fresh clone), with one
# more target that crashes on its committed seed, fuzz.sh builds every
# tests/fuzz/fuzz_*.c, runs each, reports executions for every real target,
# names the crashing one, keeps its input and exits 1 (a target whose
# seed is slow is not counted as crashing).  On the copy with
# a generated sample in build/ (after `make check`, where fuzz.sh once
# died of SIGPIPE seeding its corpora), one clean target exits 0; a build
# kept from other flags is made afresh; a bad command line exits 2.
# OUTDIR (default: a temporary folder) keeps the clang build between
# runs, so only the first builds everything.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
sample=$(realpath "$1")
work=$(mktemp -d -t mhfu-fuzz-test.XXXXXX)
. "$root/tests/mount/lib.sh"
out=${2:-$work/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
trap 'leave' EXIT

# The copy: sources with their times (so OUTDIR's objects stay current).
copy=$work/src
mkdir -p "$copy"
tar -C "$root" --exclude=./build --exclude=./.git --exclude=./mnt -cf - . |
	tar -C "$copy" -xpf -
# OUTDIR seen from inside the copy, so fuzz.sh's logs name paths
# relative to the tree it runs in.
ln -s "$out" "$copy/fuzz-out"
cat >"$copy/tests/fuzz/fuzz_zz_crash.c" <<'EOF'
/* A target that crashes on its seed: fuzz_test.sh's. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, "boom", 4))
		abort();
	return 0;
}
EOF
mkdir -p "$copy/tests/fuzz/corpus/fuzz_zz_crash"
printf 'boom' >"$copy/tests/fuzz/corpus/fuzz_zz_crash/seed"
# And one whose seed is slow: libFuzzer keeps it as a slow unit, which is
# not a crash.
cat >"$copy/tests/fuzz/fuzz_zz_slow.c" <<'EOF'
/* A target slow on its seed: fuzz_test.sh's.
 * fuzz.sh flags: -report_slow_units=1 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, "slow", 4))
		nanosleep(&(struct timespec){.tv_sec = 1, .tv_nsec = 300000000}, NULL);
	return 0;
}
EOF
mkdir -p "$copy/tests/fuzz/corpus/fuzz_zz_slow"
printf 'slow' >"$copy/tests/fuzz/corpus/fuzz_zz_slow/seed"
# Each run starts from the committed corpora alone.
rm -rf "$out/corpus" "$out/artifacts"

targets=()
for src in "$root"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	[[ $name == fuzz_driver ]] || targets+=("$name")
done

# The table's row for a target: "executions status", or nothing.
row_of() { awk -v t="$2" '$1 == t { print $2, $9 }' "$1"; }

env -u ASAN_OPTIONS -u UBSAN_OPTIONS bash "$copy/tests/fuzz/fuzz.sh" --seconds 1 --jobs 2 "$copy/fuzz-out" >"$work/all.out" 2>&1
status=$?
if [[ $status == 1 ]]; then ok "fuzz.sh exits 1 when a target crashed"; else
	not_ok "fuzz.sh exits 1 when a target crashed (it exited $status)"
	tail -n 30 "$work/all.out"
fi
for name in "${targets[@]}"; do
	read -r n st <<<"$(row_of "$work/all.out" "$name")"
	if [[ ${st:-} == ok && ${n:-0} -gt 0 ]]; then ok "$name ran ($n executions)"; else
		not_ok "$name ran: its row is '$(grep "^$name " "$work/all.out")'"
		tail -n 20 "$out/$name.log" 2>/dev/null
	fi
done
read -r n st <<<"$(row_of "$work/all.out" fuzz_zz_crash)"
crashes=$(awk '$1 == "fuzz_zz_crash" { print $8 }' "$work/all.out")
if [[ ${st:-} == FAILED* && ${crashes:-0} -ge 1 ]]; then ok "the crashing target is reported"; else
	not_ok "the crashing target is reported: '$(grep '^fuzz_zz_crash ' "$work/all.out")'"
fi
read -r n st <<<"$(row_of "$work/all.out" fuzz_zz_slow)"
crashes=$(awk '$1 == "fuzz_zz_slow" { print $8 }' "$work/all.out")
if [[ ${st:-} == ok && ${crashes:-} == 0 ]] &&
	[[ -n $(find "$out/artifacts/fuzz_zz_slow" -name 'slow-unit-*' 2>/dev/null) ]]; then
	ok "a slow unit libFuzzer kept is not counted as a crash"
else
	not_ok "a slow unit libFuzzer kept is not counted as a crash: '$(grep '^fuzz_zz_slow ' "$work/all.out")'," \
		"artifacts: $(ls "$out/artifacts/fuzz_zz_slow" 2>&1)"
fi
# (The crash's stack trace names its binary, which is outside this copy.)
logs=$(ls "$out"/*.log | grep -v '/fuzz_zz_crash\.log$')
if grep -lI -e "$copy" -e "$root" $logs >/dev/null; then
	not_ok "the logs name paths relative to the tree: $(grep -lI -e "$copy" -e "$root" $logs | head -3)"
else
	ok "the logs name paths relative to the tree"
fi
kept=$(find "$out/artifacts/fuzz_zz_crash" -name 'crash-*' -type f 2>/dev/null | sed -n 1p)
if [[ -n $kept ]] && [[ $(head -c 4 "$kept") == boom ]]; then
	ok "the crashing input is kept"
else
	not_ok "the crashing input is kept (in $out/artifacts/fuzz_zz_crash)"
fi

# After `make check`: the sample's tree in build/.
mkdir -p "$copy/build"
ln -s "$sample" "$copy/build/sample"
env -u ASAN_OPTIONS -u UBSAN_OPTIONS bash "$copy/tests/fuzz/fuzz.sh" --seconds 1 "$copy/fuzz-out" fuzz_pac >"$work/one.out" 2>&1
status=$?
read -r n st <<<"$(row_of "$work/one.out" fuzz_pac)"
if [[ $status == 0 && ${st:-} == ok && ${n:-0} -gt 0 ]]; then
	ok "with a sample in build/, a clean target exits 0 ($n executions)"
else
	not_ok "with a sample in build/, a clean target exits 0 (exit $status)"
	tail -n 20 "$work/one.out"
fi

# A build kept from other flags or another Makefile (an older fuzz.sh's)
# goes before anything else is tried, even when clang is then missing.
mkdir -p "$work/stale/build"
echo "CC=clang SAN=fuzz CFLAGS=-O1 -g" >"$work/stale/build/made-by"
touch "$work/stale/build/object.o"
CLANG=clang-missing bash "$copy/tests/fuzz/fuzz.sh" --seconds 1 "$work/stale" fuzz_pac >"$work/stale.out" 2>&1
status=$?
if [[ $status == 1 && ! -e $work/stale/build/object.o ]] && grep -q "making it afresh" "$work/stale.out" &&
	grep -q "clang with libFuzzer is not available" "$work/stale.out"; then
	ok "a build made by other flags is not kept"
else
	not_ok "a build made by other flags is not kept (exit $status): $(ls "$work/stale/build" 2>&1)"
	cat "$work/stale.out"
fi

env -u ASAN_OPTIONS -u UBSAN_OPTIONS bash "$copy/tests/fuzz/fuzz.sh" --seconds soon "$copy/fuzz-out" >"$work/usage.out" 2>&1
status=$?
if [[ $status == 2 ]] && grep -q "must be a positive integer" "$work/usage.out"; then
	ok "a bad command line exits 2 saying why"
else
	not_ok "a bad command line exits 2 saying why (exit $status)"
fi
# The stand-in targets leave nothing in OUTDIR (their crash's trace
# names the binary by its path on this machine).
rm -rf "$out"/fuzz_zz_* "$out"/*/fuzz_zz_* "$out"/build/tests/fuzz/fuzz_zz_*
closing_line
