#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer:
#
#   bash tests/fuzz.sh OUTDIR [SECONDS]
#
# builds every tests/fuzz_*.c target (not the gcc stand-in driver) with
# clang -fsanitize=fuzzer,address,undefined plus codecs/*.c into OUTDIR,
# runs each for SECONDS (default 60) on its corpus OUTDIR/corpus_<target>
# (kept between runs; seeded on first use) with a dictionary of the
# formats' magics, and prints the executions per target.  A crashing input
# lands in OUTDIR/crash-<target>-*; replay it with the gcc build:
#   build/tests/<target> OUTDIR/crash-<target>-<hash>
# Exits 1 if libFuzzer is missing or any target crashed.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || $1 == -* ]]; then
	echo "usage: bash tests/fuzz.sh OUTDIR [SECONDS]" >&2
	exit 2
fi
secs=${2:-60}
if ! [[ $secs =~ ^[0-9]+$ ]] || ((secs < 1)); then
	echo "fuzz.sh: SECONDS must be a positive integer, not '$secs'" >&2
	exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
clang=${CLANG:-clang}

# libFuzzer ships with clang's runtime libraries, packaged apart on Debian.
probe=$out/.probe
cat >"$probe.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
EOF
if ! command -v "$clang" >/dev/null 2>&1 ||
	! "$clang" -fsanitize=fuzzer,address,undefined -o "$probe" "$probe.c" \
		>"$probe.log" 2>&1; then
	echo "fuzz.sh: clang with libFuzzer is not available${clang:+ ($clang)}." >&2
	[[ -s $probe.log ]] && sed 's/^/  /' "$probe.log" >&2
	echo "Install it with:" >&2
	echo "  sudo apt-get install clang libclang-rt-14-dev" >&2
	rm -f "$probe" "$probe.c" "$probe.log"
	exit 1
fi
rm -f "$probe" "$probe.c" "$probe.log"

# shellcheck disable=SC2054 # the commas are -fsanitize='s
cflags=(-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64
	-g -O1 -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-I"$root/codecs")

# Magics and boundary words, as libFuzzer dictionary entries.
cat >"$out/magics.dict" <<'EOF'
pmo="pmo\x00"
tmh=".TMH0.14"
hits="HITS"
mwo3="MWo3"
dbst="dbsT"
head="Head "
skel_mhfu="\x00\x00\x00\xc0"
skel_p3rd="\x00\x00\x00\x80"
anim="\x02\x00\x00\x80"
count1="\x01\x00\x00\x00"
count256="\x00\x01\x00\x00"
off16="\x10\x00\x00\x00"
block="\x00\x08\x00\x00"
enc17="\xd6\xe3\x69\xa0"
EOF

# Seeds: a minimal PAC and minimal plain DATA.BIN, so the first
# executions already pass the decoders' first checks.
seed_corpus() {
	local dir=$1
	mkdir -p "$dir"
	[[ -n $(ls -A "$dir") ]] && return 0
	# PAC: 2 entries at alignment 16 (table 20 -> 32, 37 -> 48), a tail.
	{
		printf '\x02\x00\x00\x00\x20\x00\x00\x00\x05\x00\x00\x00'
		printf '\x30\x00\x00\x00\x03\x00\x00\x00'
		head -c 12 /dev/zero
		printf 'HITS\x01'
		head -c 11 /dev/zero
		printf 'abcT'
	} >"$dir/seed-pac"
	# DATA.BIN: a 1-block TOC, start = {1, 2, 2, 3}, pair {0, 100}, fill;
	# then two blocks of entries.
	{
		printf '\x01\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00'
		printf '\x00\x00\x00\x00\x64\x00\x00\x00'
		head -c $((3 * 2048 - 24)) /dev/zero
	} >"$dir/seed-databin"
	# Real structures from the sample archive, when it was generated: its
	# PACs, skeletons, packs, clips and texts.
	local src=$root/build/sample/src
	if [[ -d $src ]]; then
		find "$src" -maxdepth 3 \( -name '*.pac' -o -name '*.skeleton' -o -name '*.anim' \
			-o -name 'skeleton.txt' -o -name 'pack.txt' \) -size -1M | head -60 |
			while read -r f; do cp "$f" "$dir/sample-$(echo "$f" | md5sum | cut -c1-12)"; done
		find "$src" -path '*stream*' \( -name 'slot00*.bin' -o -name 'slot00*.txt' \) -type f | head -40 |
			while read -r f; do cp "$f" "$dir/sample-$(echo "$f" | md5sum | cut -c1-12)"; done
	fi
}

targets=()
for src in "$root"/tests/fuzz_*.c; do
	name=$(basename "$src" .c)
	[[ $name == fuzz_driver ]] && continue
	echo "fuzz.sh: building $name"
	"$clang" "${cflags[@]}" -o "$out/$name" "$src" "$root"/codecs/*.c -lz
	targets+=("$name")
done
if ((${#targets[@]} == 0)); then
	echo "fuzz.sh: no tests/fuzz_*.c targets" >&2
	exit 1
fi

declare -A execs status
failed=0
for name in "${targets[@]}"; do
	corpus=$out/corpus_$name
	seed_corpus "$corpus"
	log=$out/$name.log
	echo "fuzz.sh: running $name for ${secs}s (log: $log)"
	rc=0
	(cd "$out" && "./$name" -max_total_time="$secs" -max_len=16384 \
		-dict=magics.dict -use_value_profile=1 -print_final_stats=1 \
		-artifact_prefix="$out/crash-$name-" "$corpus") >"$log" 2>&1 || rc=$?
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[[ -z $n ]] && n=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	execs[$name]=${n:-?}
	if ((rc == 0)); then
		status[$name]=ok
	else
		status[$name]="FAILED (exit $rc, see $log)"
		failed=1
	fi
done

echo
printf '%-16s %14s  %s\n' target executions status
for name in "${targets[@]}"; do
	printf '%-16s %14s  %s\n' "$name" "${execs[$name]}" "${status[$name]}"
done
exit $failed
