# SPDX-License-Identifier: MIT
# The bench's helpers (sourced by tests/gen/bench.sh): timing, medians,
# caches, the table's rows, and the profile of a missed target.
#
#   now                     nanoseconds, monotonic
#   median                  the median of the numbers on stdin
#   timed CMD...            runs CMD, prints its nanoseconds
#   drop_caches             syncs and drops the page cache (false when it cannot)
#   info_of DIR KEY         a line of DIR/.mhfu/info
#   ms NS, ratio A B        formatting
#   row FIGURE VALUE FLOOR RATIO TARGET VERDICT
#   judge RATIO OP LIMIT    "met" or "MISSED" (OP: le or ge)
#   missed NAME WHAT CMD... records a missed target and profiles CMD
#                           (perf record -a) for the report

now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
timed() {
	local t0 t1
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	echo $((t1 - t0))
}
drop_caches() { sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; }
info_of() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1/.mhfu/info"; }
ms() { [ -n "$1" ] && awk -v ns="$1" 'BEGIN { printf "%.1f ms", ns / 1e6 }' || echo "-"; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }' || echo "-"; }
row() { printf '| %-50s | %-22s | %-30s | %-7s | %-9s | %-6s |\n' "$@"; }
judge() {
	awk -v r="$1" -v op="$2" -v l="$3" 'BEGIN {
		if (r == "-" || r == "") { print "-"; exit }
		ok = op == "le" ? r + 0 <= l + 0 : r + 0 >= l + 0
		print ok ? "met" : "MISSED" }'
}

# The profiles of the missed targets, appended as the rows are measured.
profiles=${profiles:-$(mktemp)}
have_perf() { perf record -o /dev/null -q true >/dev/null 2>&1; }

# The processes a row runs; anything else in a profile of the whole
# machine is other work (the load).
OURS='^(mount\.mhfu|cat|sed|python3|dd|cp|truncate|ls|find|xargs|squashfuse_ll|kworker.*|jbd2.*|swapper)$'

# What dominates a profile (perf report --sort comm,dso,sym lines, all
# of them), in words, and what would close the gap: told from the run's
# own samples.
explain_profile() {
	awk -v ours="$OURS" '
	/%/ {
		p = $1; sub("%", "", p); p += 0
		line = $0
		if ($2 !~ ours) k = "load"
		else if (line ~ /swapper|cpuidle|poll_idle|default_idle/) k = "idle"
		else if (line ~ /fuse_|request_wait/) k = "fuse"
		else if (line ~ /jbd2|ext4_sync|file_write_and_wait|blk_|nvme|virtio|fsync|sync_file|writeback|submit_bio/) k = "sync"
		else if (line ~ /copy_user|copy_to_iter|copy_folio|memcpy|memmove|memset|clear_page|page_fault|filemap_|copy_page/) k = "copy"
		else if ($2 == "mount.mhfu") k = "driver"
		else k = "client"
		s[k] += p
	}
	END {
		n = split("fuse sync copy driver client idle load", ks, " ")
		best = ""
		for (i = 1; i <= n; i++)
			if (ks[i] != "load" && ks[i] != "idle" && (best == "" || s[ks[i]] > s[best]))
				best = ks[i]
		printf "  where the samples are: FUSE %.0f%%, syncs and the block layer %.0f%%, copies and page faults %.0f%%, the driver'"'"'s own code %.0f%%, the client %.0f%%, idle %.0f%%, other processes (the load) %.0f%%\n", s["fuse"], s["sync"], s["copy"], s["driver"], s["client"], s["idle"], s["load"]
		if (best == "fuse") w = "round trips through /dev/fuse: fewer, larger requests (the page cache in read-write mounts, larger reads) would close it"
		else if (best == "sync") w = "waiting for the disk: fewer syncs per commit (or cheaper ones) would close it; the floor is this disk"
		else if (best == "copy") w = "copying bytes and faulting pages: fewer copies between the driver, the kernel and the reader (the page cache, splice, reused buffers) would close it"
		else if (best == "driver") w = "the driver'"'"'s own code: its symbols above are where to cut"
		else w = "the client program itself: the floor is the program, not the mount"
		if (s["idle"] > 60 && s[best] < 15)
			w = "nothing in particular: the machine is mostly idle, the time going to handing each request between the client, the kernel and the driver (wake-ups), not to work in any of them"
		if (s["load"] > 2 * (s["fuse"] + s["sync"] + s["copy"] + s["driver"] + s["client"]))
			w = w "; but other processes took most of the machine: measure again on a quiet one"
		print "  would close it: " w
	}'
}

# missed NAME WHAT CMD...: runs CMD (a function or a program) once more
# under a profiler of the whole machine and keeps the top entries, with
# what dominates, for the report.
missed() {
	local name=$1 what=$2 data pid
	shift 2
	{
		echo
		echo "### $name: $what"
		if have_perf; then
			data=$(mktemp)
			perf record -a -g -q -o "$data" >/dev/null 2>&1 &
			pid=$!
			sleep 0.3 # perf's start
			"$@" >/dev/null 2>&1
			kill -INT "$pid"
			wait "$pid"
			perf report -i "$data" --stdio --no-children --sort comm,dso,sym -g none 2>/dev/null |
				grep '%' >"$data.all"
			echo "  the top entries of this row's processes:"
			awk -v ours="$OURS" '$2 ~ ours' "$data.all" | head -15 | sed 's/^/    /'
			explain_profile <"$data.all"
			rm -f "$data" "$data.all"
		else
			echo "  (perf does not work here: no profile; try strace -c -f on the daemon)"
		fi
	} >>"$profiles"
}
