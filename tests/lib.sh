# The shell tests' common header: sourced after the script sets `work`
# (its temporary folder).  Counts checks, keeps sanitizer reports of the
# daemons in $work, and prints the closing "N passed, N failed" line.
#
#   check NAME COMMAND...   passes when the command succeeds; its output
#                           is shown when it fails
#   skip NAME WHY
#   finish                  the closing line; the status to exit with

# The mounts keep their record (log, refused texts) in here.
export XDG_STATE_HOME=$work/state
export ASAN_OPTIONS="log_path=$work/asan:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="log_path=$work/ubsan:print_stacktrace=1:${UBSAN_OPTIONS:-}"
passed=0 failed=0 skipped=0

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; }
skip() { skipped=$((skipped + 1)); echo "ok - $1 # skip $2"; }
check() {
	local name=$1
	shift
	if "$@" >"$work/out" 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/    /' "$work/out" | head -30; fi
}
have() { command -v "$1" >/dev/null 2>&1; }

# The daemon serving mount point $1, from its .mhfu/info.
daemon_pid() { awk -F'\t' '$1 == "pid" { print $2 }' "$1/.mhfu/info"; }

# unmount DIR: unmounts and waits (bounded) for the daemon to exit, so its
# sanitizer reports, if any, are written before they are looked for.
unmount() {
	local dir=$1 pid
	mountpoint -q "$dir" || return 0
	pid=$(daemon_pid "$dir")
	fusermount3 -u "$dir" || return 1
	for _ in $(seq 200); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
	echo "daemon $pid still running after unmount"
	return 1
}

no_sanitizer_reports() { ! ls "$work"/asan.* "$work"/ubsan.* 2>/dev/null | grep -q .; }

finish() {
	check "no sanitizer reports from the daemons" no_sanitizer_reports
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}
