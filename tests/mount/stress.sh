#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make stress`: the long runs, then one table of what they found.
#
#   bash tests/mount/stress.sh BUILD_DIR SAMPLE_DIR ROUNDS STORM_SECONDS FUZZ_RUNS FSX_OPS FSX_SEED...
set -uo pipefail

build=$(realpath "$1")
sample=$(realpath "$2")
rounds=$3 storm=$4 fuzz_runs=$5 fsx_ops=$6
shift 6
fsx_seeds=("$@")
log=$(mktemp -d -t mhfu-stress.XXXXXX)
status=0

# The value of row `k` of a "| name | value |" table in file $1.
field() { awk -F'|' -v k="$2" '{ t = $2; gsub(/^ +| +$/, "", t) } t == k { v = $3; gsub(/ /, "", v); print v }' "$1"; }

bash tests/mount/crash_test.sh "$build/mount.mhfu" "$sample" "$build/mhfudump" "$rounds" | tee "$log/crash" || status=1
bash tests/mount/concurrency_test.sh "$build/mount.mhfu" "$sample" "$build/mhfudump" "$storm" | tee "$log/storm" || status=1
if [ -x "$build/tsan/mount.mhfu" ]; then
	bash tests/mount/concurrency_test.sh "$build/tsan/mount.mhfu" "$sample" "$build/mhfudump" "$storm" | tee "$log/tsan" || status=1
fi
: >"$log/fuzz"
for f in "$build"/tests/fuzz/fuzz_*; do
	case "$f" in *.o|*.d|*fuzz_driver*) continue ;; esac
	"$f" --runs "$fuzz_runs" | tee -a "$log/fuzz" || status=1
done
bash tests/mount/flip_test.sh "$build/mount.mhfu" "$sample" 300 | tee "$log/flip" || status=1
bash tests/mount/fsx_test.sh "$build/mount.mhfu" "$sample" "$build/mhfudump" "$build/fsx" "$fsx_ops" "${fsx_seeds[@]}" |
	tee "$log/fsx" || status=1
bash tests/mount/inverse_test.sh "$build/mount.mhfu" "$sample" "$build/mhfudump" 200 7 | tee "$log/inverse" || status=1
bad=$(bash tests/mount/write_test.sh "$build/mount.mhfu" "$sample" "$build/mhfudump" | tee "$log/write" |
	grep -cE '^ok - .*(refused|hostile|100 MB|NUL|UTF-8|million|damaged|huge)')

printf '\nmhfufs stress — %s\n\n| figure | value |\n|---|---|\n' "$(date -u +%Y-%m-%d)"
printf '| kill -9 rounds survived | %s of %s |\n' "$(grep -q '^not ok' "$log/crash" && echo some || echo all)" "$rounds"
printf '| acknowledged commits | %s |\n' "$(field "$log/crash" 'acknowledged commits')"
printf '| acknowledged commits lost | %s |\n' "$(field "$log/crash" 'acknowledged commits lost')"
printf '| torn entries | %s |\n' "$(field "$log/crash" 'torn entries')"
while read -r name runs _ crashes _; do
	printf '| fuzz executions: %s | %s (%s crashes) |\n' "${name%:}" "$runs" "$crashes"
done <"$log/fuzz"
printf '| bad inputs tried (each refused cleanly) | %s |\n' "$bad"
printf '| damaged archives walked | %s |\n' "$(sed -n 's/^ok - \([0-9]*\) damaged archives: \(.*\), no crash/\1: \2/p' "$log/flip")"
printf '| concurrent reads / commits | %s / %s |\n' "$(field "$log/storm" 'reads')" "$(field "$log/storm" 'commits')"
printf '| concurrency anomalies | %s |\n' "$(field "$log/storm" 'anomalies')"
printf '| fsx operations (%s seeds) / mismatches / on disk | %s / %s / %s |\n' "${#fsx_seeds[@]}" \
	"$(field "$log/fsx" 'operations')" "$(field "$log/fsx" 'mismatches')" "$(field "$log/fsx" 'mismatches on disk')"
printf '| edit sequences then their inverses, DATA.BIN byte-identical after | %s of 200 |\n' \
	"$(grep -c '^ok - round' "$log/inverse")"
[ -f "$log/tsan" ] && printf '| ThreadSanitizer storm | %s |\n' "$(grep -q '^not ok' "$log/tsan" && echo reports || echo clean)"
rm -rf "$log"
exit $status
