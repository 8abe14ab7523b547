# SPDX-License-Identifier: MIT
# The shell tests' common header: sourced after the script sets `work`
# (its temporary folder).  Counts checks, keeps the mounts' record and the
# daemons' sanitizer reports in $work, and prints the closing
# "N passed, N failed, N skipped" line.
#
#   check NAME COMMAND...   passes when the command succeeds; its output
#                           is shown when it fails
#   ok NAME, not_ok NAME    a check the script decides itself
#   skip NAME WHY
#   have PROGRAM            true when PROGRAM is installed
#   eventually COMMAND...   true once the command succeeds (polled, bounded:
#                           what a program did after the driver answered,
#                           a close's release, a screen redrawn); its
#                           arguments are expanded once, so what changes
#                           is read inside the command (a function)
#   daemon_pid DIR          the pid of the daemon serving mount point DIR
#   running PID             true while process PID runs
#   exited PID              waits until process PID has exited
#   unmount DIR             unmounts, waiting for the daemon to exit
#   leave DIR...            for the EXIT trap: lazily unmounts the DIRs still
#                           mounted, removes $work unless a check failed
#   finish                  checks that no daemon left a sanitizer report,
#                           then closing_line
#   closing_line            the closing line; the status to exit with

# The mounts keep their record (log, refused texts) in here.
export XDG_STATE_HOME=$work/state
export ASAN_OPTIONS="log_path=$work/asan:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="log_path=$work/ubsan:print_stacktrace=1:${UBSAN_OPTIONS:-}"
export TSAN_OPTIONS="log_path=$work/tsan:${TSAN_OPTIONS:-}"
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

daemon_pid() { awk -F'\t' '$1 == "pid" { print $2 }' "$1/.mhfu/info"; }

# with_frames N CLIP: the clip text CLIP with its first channel's keys
# replaced by N frames (0..N-1): an entry that outgrows its blocks.
with_frames() {
	awk -v n="$1" '/^channel/ && !d { print; for (f = 0; f < n; f++) print f, f % 90, 0, 0; d = 1; s = 1; next }
		s && /^ *(#|[0-9-])/ { next } { s = 0; print }' "$2"
}

eventually() {
	local i
	for i in $(seq 200); do
		"$@" 2>/dev/null && return 0
		sleep 0.1
	done
	"$@"
}
# A zombie has exited: only its parent's wait is missing.
running() {
	local state
	state=$(awk '$1 == "State:" { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

# Bounded (30 s: a loaded machine can take seconds to reap a daemon).
exited() {
	for _ in $(seq 600); do
		running "$1" || return 0
		sleep 0.05
	done
	echo "process $1 still running"
	return 1
}

# Waits for the daemon to exit, so its sanitizer reports, if any, are
# written before they are looked for, and the archive is free to be
# mounted again.
unmount() {
	local dir=$1 pid
	mountpoint -q "$dir" || return 0
	pid=$(daemon_pid "$dir")
	fusermount3 -u "$dir" || return 1
	exited "$pid"
}

# A failed run keeps its folder (archives, logs, reports) for a look.
leave() {
	local dir
	for dir in "$@"; do
		mountpoint -q "$dir" && fusermount3 -u -z "$dir"
	done
	if [ "$failed" -eq 0 ]; then rm -rf "$work"; else echo "kept $work"; fi
}

# Shows the reports it finds.
no_sanitizer_reports() {
	local report status=0
	for report in "$work"/asan.* "$work"/ubsan.* "$work"/tsan.*; do
		[ -e "$report" ] || continue
		status=1
		head -40 "$report"
	done
	return "$status"
}

closing_line() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

finish() {
	check "no sanitizer reports from the daemons" no_sanitizer_reports
	closing_line
}
