#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mount.mhfu as a user installs and runs it: `make install` lays out the
# driver, mount(8)'s helper links and the manuals (under DESTDIR, then for
# real into a temporary PREFIX), and mount(8) runs the installed helper:
# mount -t mhfu and -t fuse.mhfu, fstab lines (mount DIR, mount -a),
# umount, mount -f, -v, -r, -N; and the driver's refusals say what to do:
# usage errors, a file as mount point, a dead mount on the mount point, a
# read-only backing file.
#
# Root only: it runs in a private mount namespace of its own, where the
# temporary sbin is laid over the system's (mount(8) looks for helpers
# there) and a temporary fstab over /etc/fstab; the system's are never
# touched and nothing mounted here is seen outside.
#
#   bash tests/mount/install_test.sh MOUNT_BINARY SAMPLE_DIR
set -uo pipefail

if [ -z "${MHFU_INSTALL_TEST_NS:-}" ]; then
	if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
		echo "ok - install and mount(8) # skip needs root and mount namespaces"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	MHFU_INSTALL_TEST_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
repo=$(realpath "$(dirname "$0")/../..")
work=$(mktemp -d -t mhfu-install-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
prefix=$work/prefix
sbin=$work/sbin
installed=$prefix/bin/mount.mhfu
stage=$work/stage
archive=$work/a/DATA.BIN
mnt=$work/mnt
ns_pid=

cleanup() {
	# Every mount made here, innermost first: their drivers then exit and
	# the namespace goes with the last of them.
	awk -v w="$work/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m"; done
	[ -n "$ns_pid" ] && kill "$ns_pid" 2>/dev/null
	if [ "$failed" -eq 0 ]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap cleanup EXIT

# make in the source tree, on the build the binary under test comes from
# (up to date: nothing is rebuilt), whatever make runs this test.
make_here() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$repo" BUILD="$(dirname "$mount_bin")" "$@"; }

mkdir -p "$work/a" "$work/b" "$work/ro" "$mnt" "$work/m1" "$work/m2"
cp "$sample/DATA.BIN" "$archive"
cp "$sample/DATA.BIN" "$work/b/DATA.BIN"
cp "$sample/DATA.BIN" "$work/ro/DATA.BIN"

info_field() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1/.mhfu/info"; }
# How many mounts sit on DIR (a second mount over the first counts 2).
mounts_on() { awk -v d="$1" '$5 == d' /proc/self/mountinfo | wc -l; }
not_mounted() { ! mountpoint -q "$1"; }
# gone PID: the process has exited (bounded wait).
gone() {
	for _ in $(seq 200); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	echo "process $1 still running"
	return 1
}
# umount_all DIR: umount(8) and wait for the driver to exit.
umount_all() {
	local dir=$1 pid
	pid=$(daemon_pid "$dir")
	umount "$dir" && gone "$pid" && not_mounted "$dir"
}
# refused CODE WORDS COMMAND...: the command fails with CODE, mounts
# nothing on $mnt, and its stderr (kept in $work/err) holds WORDS.
refused() {
	local code=$1 words=$2 rc
	shift 2
	"$@" 2>"$work/err"
	rc=$?
	cat "$work/err"
	if mountpoint -q "$mnt"; then echo "mounted"; umount "$mnt"; return 1; fi
	[ "$rc" -eq "$code" ] || { echo "exit $rc, want $code"; return 1; }
	grep -qF -- "$words" "$work/err"
}

# --- make install, make uninstall ------------------------------------------

driver_time=$(stat -c %Y "$mount_bin")
check "make install DESTDIR=: the driver, mount(8)'s helper links and the manuals" bash -c "
	$(declare -f make_here); mount_bin='$mount_bin' repo='$repo'
	make_here install DESTDIR='$stage' || exit 1
	find '$stage' ! -type d -printf '%p %l\n' | sed 's|^$stage||' | sort >'$work/layout'
	printf '%s\n' \
		'/sbin/mount.fuse.mhfu /usr/local/bin/mount.mhfu' \
		'/sbin/mount.mhfu /usr/local/bin/mount.mhfu' \
		'/usr/local/bin/mount.mhfu ' \
		'/usr/local/share/man/man5/mhfu-archive.5 ' \
		'/usr/local/share/man/man5/mhfu-clip.5 ' \
		'/usr/local/share/man/man8/mount.mhfu.8 ' | diff - '$work/layout' &&
	cmp '$mount_bin' '$stage/usr/local/bin/mount.mhfu' &&
	test -x '$stage/usr/local/bin/mount.mhfu' &&
	cmp '$repo/man/mount.mhfu.8' '$stage/usr/local/share/man/man8/mount.mhfu.8' &&
	cmp '$repo/man/mhfu-clip.5' '$stage/usr/local/share/man/man5/mhfu-clip.5'"
check "make install does not rebuild the driver under test" \
	test "$(stat -c %Y "$mount_bin")" = "$driver_time"
check "make uninstall DESTDIR=: removes all of it" bash -c "
	$(declare -f make_here); mount_bin='$mount_bin' repo='$repo'
	make_here uninstall DESTDIR='$stage' && test -z \"\$(find '$stage' ! -type d)\""
check "make install PREFIX= SBINDIR= MANDIR=: a real install there" bash -c "
	$(declare -f make_here); mount_bin='$mount_bin' repo='$repo'
	make_here install PREFIX='$prefix' SBINDIR='$sbin' MANDIR='$prefix/man' &&
	test \"\$(readlink '$sbin/mount.mhfu')\" = '$installed' &&
	test \"\$(readlink '$sbin/mount.fuse.mhfu')\" = '$installed' && cmp '$mount_bin' '$installed'"
check "man finds mount.mhfu(8), mhfu-clip(5) and mhfu-archive(5)" bash -c "
	export MANPATH='$prefix/man'
	test \"\$(man -w mount.mhfu)\" = '$prefix/man/man8/mount.mhfu.8' &&
	test \"\$(man -w 5 mhfu-clip)\" = '$prefix/man/man5/mhfu-clip.5' &&
	test \"\$(man -w 5 mhfu-archive)\" = '$prefix/man/man5/mhfu-archive.5'"
MANPATH=$prefix/man MANWIDTH=100 man mount.mhfu >"$work/manual" 2>"$work/man.err"
check "man mount.mhfu: an FSTAB section with a line of type mhfu" bash -c "
	sed -n '/^FSTAB/,/^[A-Z]/p' '$work/manual' | grep -E '^ +/[^ ]+ +/[^ ]+ +mhfu +[^ ]+ +0 +0'"
check "man mount.mhfu: the exit status of an unknown option (1) and of a dead mount (4)" bash -c "
	sed -n '/^EXIT STATUS/,/^EXAMPLES/p' '$work/manual' | tr -s ' \n' '  ' >'$work/exits' &&
	grep -q ' 1 Bad command line:.* unknown option' '$work/exits' &&
	grep -q ' 4 FUSE could not mount.*fusermount3 -u' '$work/exits'"

# The installed helpers where mount(8) looks for them: the temporary
# sbin laid over the system's, in this namespace only.
system_sbin=$(realpath /sbin)
if ! mount -t overlay mhfu-test-sbin -o "lowerdir=$sbin:$system_sbin" "$system_sbin"; then
	not_ok "lay the installed sbin over $system_sbin"
	finish
	exit
fi

# --- mount(8) runs the helper ----------------------------------------------

check "the README's mount.mhfu is on the PATH from BINDIR: mounts, fusermount3 -u unmounts" bash -c "
	PATH='$prefix/bin':\$PATH mount.mhfu '$archive' '$mnt' && test -f '$mnt/.mhfu/info' &&
	fusermount3 -u '$mnt'"
check "mount -t mhfu ARCHIVE DIR: mounted, type fuse.mhfu, the archive as source" bash -c "
	mount -t mhfu '$archive' '$mnt' &&
	test \"\$(findmnt -no FSTYPE,SOURCE '$mnt' | tr -s ' ')\" = 'fuse.mhfu $archive' &&
	test \"\$(awk -F'\t' '\$1 == \"mode\" { print \$2 }' '$mnt/.mhfu/info')\" = read-write"
check "a save that changes nothing: the log says unchanged, the archive is as it was" bash -c "
	view='$mnt/file_06185/3/stream2/slot024.txt'
	cp \"\$view\" '$work/same.txt' && cp '$work/same.txt' \"\$view\" &&
	grep -q 'file_06185/3/stream2/slot024.txt: unchanged, nothing committed' '$mnt/.mhfu/log' &&
	cmp '$sample/DATA.BIN' '$archive'"
check "umount DIR: unmounted, the driver exits" umount_all "$mnt"
check "mount -t fuse.mhfu ARCHIVE DIR: mounted through mount.fuse.mhfu" bash -c "
	mount -t fuse.mhfu '$archive' '$mnt' && test \"\$(findmnt -no FSTYPE '$mnt')\" = fuse.mhfu"
check "umount DIR of the fuse.mhfu mount" umount_all "$mnt"
check "mount -f (fake): exit 0 at once, nothing mounted" bash -c "
	timeout 20 mount -f -t mhfu '$archive' '$mnt' && ! mountpoint -q '$mnt'"
check "mount -fv says it fakes" bash -c "
	timeout 20 mount -fv -t mhfu '$archive' '$mnt' | grep -F 'not mounted on $mnt (fake)' &&
	! mountpoint -q '$mnt'"
check "mount -v says what was mounted" bash -c "
	mount -v -t mhfu '$archive' '$mnt' >'$work/v.out' && cat '$work/v.out' &&
	grep -F 'mounted $archive on $mnt: DATA.BIN of' '$work/v.out' | grep -q 'read-write\$'"
check "umount after mount -v" umount_all "$mnt"
check "mount -r: mode read-only in .mhfu/info, ro in the mount's options" bash -c "
	mount -r -t mhfu '$archive' '$mnt' &&
	test \"\$(awk -F'\t' '\$1 == \"mode\" { print \$2 }' '$mnt/.mhfu/info')\" = read-only &&
	findmnt -no OPTIONS '$mnt' | grep -q '^ro,'"
check "umount after mount -r" umount_all "$mnt"
check "mount -s -n (sloppy, no mtab) and -w: accepted" bash -c "
	mount -s -n -w -t mhfu '$archive' '$mnt' && test -f '$mnt/.mhfu/info'"
check "umount after mount -s -n -w" umount_all "$mnt"

# --- fstab ---------------------------------------------------------------

# The manual's fstab lines, on this test's archives and mount points.
fstab=$work/fstab
sed -n '/^FSTAB/,/^[A-Z]/p' "$work/manual" |
	awk '($3 == "mhfu" || $3 == "fuse.mhfu") && NF == 6' >"$work/manual-fstab"
check "the manual's FSTAB section shows two lines" test "$(wc -l <"$work/manual-fstab")" = 2
awk -v a1="$archive" -v m1="$work/m1" -v a2="$work/b/DATA.BIN" -v m2="$work/m2" \
	'NR == 1 { $1 = a1; $2 = m1 } NR == 2 { $1 = a2; $2 = m2 } 1' "$work/manual-fstab" >"$fstab"
check "mount -a -T FSTAB: the auto line mounted (read-only, as it asks), the noauto one not" bash -c "
	mount -a -T '$fstab' && mountpoint -q '$work/m2' && ! mountpoint -q '$work/m1' &&
	test \"\$(awk -F'\t' '\$1 == \"mode\" { print \$2 }' '$work/m2/.mhfu/info')\" = read-only"
check "mount -a -T FSTAB again: nothing mounted twice" bash -c "
	mount -a -T '$fstab' && test \$(awk -v d='$work/m2' '\$5 == d' /proc/self/mountinfo | wc -l) = 1"
check "mount -T FSTAB DIR: the noauto line, with its options (user: noexec)" bash -c "
	mount -T '$fstab' '$work/m1' &&
	test \"\$(awk -F'\t' '\$1 == \"cache_budget\" { print \$2 }' '$work/m1/.mhfu/info')\" = 33554432 &&
	findmnt -no OPTIONS '$work/m1' | grep -q noexec"
check "umount the noauto line's mount" umount_all "$work/m1"
check "umount the auto line's mount" umount_all "$work/m2"
# The same as a user types it, from /etc/fstab (this namespace's).
check "mount DIR from /etc/fstab" bash -c "
	mount --bind '$fstab' /etc/fstab && mount '$work/m1' && test -f '$work/m1/.mhfu/info'"
check "umount DIR of the /etc/fstab line" umount_all "$work/m1"

# A user line mounted by a user who is not root: mount(8) runs the helper
# as them and libfuse mounts through fusermount3 (root itself is then kept
# out of the mount, as FUSE keeps everyone but its owner).  /dev/fuse is root's
# alone on some machines: a node open to all stands in for it here.
user_dir=$work/user
mkdir -p "$user_dir/m" "$user_dir/state"
cp "$sample/DATA.BIN" "$user_dir/DATA.BIN"
chmod 755 "$work"
chown -R nobody: "$user_dir"
echo "$user_dir/DATA.BIN $user_dir/m mhfu noauto,user,state=$user_dir/state 0 0" >>"$fstab"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
if mknod "$work/fuse" c 10 229 2>/dev/null && chmod 666 "$work/fuse" &&
	mount --bind "$work/fuse" /dev/fuse; then
	check "fstab user line: mount DIR by a user who is not root; the driver runs as them" bash -c "
		$(declare -f as_nobody)
		as_nobody mount '$user_dir/m' && as_nobody mountpoint -q '$user_dir/m' &&
		as_nobody grep -q '^mode.read-write' '$user_dir/m/.mhfu/info' &&
		pid=\$(as_nobody awk -F'\t' '\$1 == \"pid\" { print \$2 }' '$user_dir/m/.mhfu/info') &&
		test \"\$(ps -o user= -p \$pid)\" = nobody"
	check "fstab user line: umount DIR by that user" bash -c "
		$(declare -f as_nobody)
		as_nobody umount '$user_dir/m' && ! as_nobody mountpoint -q '$user_dir/m'"
else
	skip "fstab user line mounted by a user who is not root" "no device node can stand in for /dev/fuse"
fi

# --- read-only --------------------------------------------------------------

# A backing file on a read-only filesystem, which root cannot write either.
mount --bind "$work/ro" "$work/ro" && mount -o remount,bind,ro "$work/ro"
check "a read-only backing file mounts read-only: mode read-only in .mhfu/info" bash -c "
	mount -t mhfu '$work/ro/DATA.BIN' '$mnt' 2>'$work/ro.err' &&
	test \"\$(awk -F'\t' '\$1 == \"mode\" { print \$2 }' '$mnt/.mhfu/info')\" = read-only &&
	findmnt -no OPTIONS '$mnt' | grep -q '^ro,'"
check "... and says so on stderr, with why" \
	grep -F "mount.mhfu: $work/ro/DATA.BIN: Read-only file system: mounting read-only" "$work/ro.err"
check "umount the read-only mount" umount_all "$mnt"

# --- refusals: one line, the exit status the manual gives ---------------------

check "no arguments: one usage line naming --help, exit 1" bash -c "
	'$installed' 2>'$work/err'; rc=\$?; cat '$work/err'
	test \$rc = 1 && test \$(wc -l <'$work/err') = 1 && grep -q 'mount.mhfu --help' '$work/err'"
check "an unknown -o option: its name and the usage line, exit 1" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	refused 1 \"unknown option(s): \\\`-o frobnicate'\" '$installed' -o frobnicate '$archive' '$mnt' &&
	test \$(wc -l <'$work/err') = 2 && grep -q 'mount.mhfu --help' '$work/err'"
check "an unknown switch: exit 1" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	refused 1 \"unknown option(s): \\\`-x'\" '$installed' -x '$archive' '$mnt'"
check "a third argument: exit 1" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	refused 1 \"unexpected argument 'extra'\" '$installed' '$archive' '$mnt' extra"
check "another filesystem type: exit 1" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	refused 1 '-t ext4: this helper mounts type mhfu' '$sbin/mount.fuse.mhfu' '$archive' '$mnt' -t ext4"
check "mount(8)'s type argument: accepted" bash -c "
	'$sbin/mount.fuse.mhfu' '$archive' '$mnt' -t fuse.mhfu && test -f '$mnt/.mhfu/info'"
check "umount after -t fuse.mhfu" umount_all "$mnt"
touch "$work/file"
check "a regular file as mount point: refused, exit 1" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	refused 1 'mount point $work/file: not a directory' '$installed' '$archive' '$work/file' &&
	! mountpoint -q '$work/file'"
check "a missing mount point: exit 1" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	refused 1 'mount point $work/nowhere: No such file or directory' '$installed' '$archive' '$work/nowhere'"
check "-f with an archive that is not there: exit 2, as the mount would" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	refused 2 '$work/none.BIN: No such file or directory' '$installed' -f '$work/none.BIN' '$mnt'"

# A dead mount: its driver killed, the mount point answers "Transport
# endpoint is not connected".  Mounting again says how to clear it.
check "a mount whose driver is then killed" mount -t mhfu "$archive" "$mnt"
dead_pid=$(daemon_pid "$mnt")
kill -9 "$dead_pid"
check "the killed driver exits" gone "$dead_pid"
check "mounting over the dead mount: refused, exit 4, says fusermount3 -u DIR" bash -c "
	$(declare -f refused); work='$work' mnt='$mnt'
	'$installed' '$archive' '$mnt' 2>'$work/err'; rc=\$?; cat '$work/err'
	test \$rc = 4 && grep -qF 'Transport endpoint is not connected' '$work/err' &&
	grep -qF 'fusermount3 -u $mnt\`' '$work/err' &&
	test \$(awk -v d='$mnt' '\$5 == d' /proc/self/mountinfo | wc -l) = 1"
check "the same through mount -t mhfu: mount(8) fails, with the helper's message" bash -c "
	mount -t mhfu '$archive' '$mnt' 2>'$work/err'; rc=\$?; cat '$work/err'
	test \$rc != 0 && grep -qF 'fusermount3 -u $mnt\`' '$work/err' &&
	test \$(awk -v d='$mnt' '\$5 == d' /proc/self/mountinfo | wc -l) = 1"
check "after fusermount3 -u DIR it mounts again" bash -c "
	fusermount3 -u '$mnt' && mount -t mhfu '$archive' '$mnt' && test -f '$mnt/.mhfu/info'"
check "umount after the dead mount was cleared" umount_all "$mnt"

# --- -N, -o foreground, --help, mount(8)'s options given directly ------------------

unshare -m --propagation private sleep 600 &
ns_pid=$!
sleep 0.2
check "mount.mhfu -N PID: mounted in that namespace only" bash -c "
	'$installed' -N $ns_pid '$archive' '$mnt' && ! mountpoint -q '$mnt' &&
	nsenter -t $ns_pid -m test -f '$mnt/.mhfu/info' && nsenter -t $ns_pid -m umount '$mnt'"
check "mount -N PID -t mhfu (a namespace file for the helper): mounted there only" bash -c "
	mount -N $ns_pid -t mhfu '$archive' '$mnt' && ! mountpoint -q '$mnt' &&
	nsenter -t $ns_pid -m test -f '$mnt/.mhfu/info' && nsenter -t $ns_pid -m umount '$mnt'"
kill "$ns_pid"
ns_pid=

check "-o foreground: serves until unmounted, then exits 0" bash -c "
	'$installed' -o foreground '$archive' '$mnt' 2>'$work/fg.err' & fg=\$!
	for _ in \$(seq 200); do test -f '$mnt/.mhfu/info' && break; sleep 0.05; done
	kill -0 \$fg && umount '$mnt' && wait \$fg"
check "--help names .mhfu/log and -f as fake" bash -c "
	'$installed' --help >'$work/help' && grep -qF 'MOUNTPOINT/.mhfu/log' '$work/help' &&
	grep -q '^ *-f  *fake' '$work/help'"
check "mount(8)'s and fstab's options given to mount.mhfu itself: accepted" bash -c "
	'$installed' -s -n -w -o rw,defaults,auto,noauto,nofail,_netdev,user,users,nouser \
		-o owner,group,x-a,x-b=1,comment=c,exec '$archive' '$mnt' && test -f '$mnt/.mhfu/info'"
check "umount after them" umount_all "$mnt"
check "switches given together (-fnv): taken one by one" bash -c "
	'$installed' -fnv '$archive' '$mnt' | grep -q '(fake)' && ! mountpoint -q '$mnt'"

# A machine without the build's packages: `make` says in one line what to
# install (here libfuse3's .pc is made unfindable), before any compile.
root=$repo
check "make without libfuse3's package says in one line to run make deps" bash -c "
	! make -s -C '$root' PKG_CONFIG=false BUILD='$work/nobuild' all >'$work/make.out' 2>&1 &&
	grep -qx \"mhfufs: missing libfuse3-dev: run 'make deps' as root, or: sudo apt-get install libfuse3-dev pkg-config\" '$work/make.out' &&
	! grep -q 'fatal error' '$work/make.out' && ! test -e '$work/nobuild/fs'"

finish
