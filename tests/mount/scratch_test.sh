#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scratch files (names that are not views, held in memory) share one
# budget: past it, writes fail with ENOSPC as on a full disk, the daemon
# stays alive and its memory bounded, and removing or truncating files
# gives the room back.  Scratch folders: made, filled, listed, moved and
# removed as on a disk (git works in a stream folder, a fifo passes
# data, a file saved in one and moved over a view commits), and at
# unmount kept whole in the record's left/, while a refused text stays
# in rejected/ however many files they hold.
#
#   bash tests/mount/scratch_test.sh MOUNT_BINARY SAMPLE_DIR
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
work=$(mktemp -d -t mhfu-scratch-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
budget_mb=32

trap 'leave "$mnt"' EXIT
info() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$mnt/.mhfu/info"; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$(info pid)/status"; }

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
"$mount_bin" "$archive" "$mnt"
check "the default scratch budget is 256 MiB" test "$(info scratch_budget)" = $((256 << 20))
unmount "$mnt"

"$mount_bin" -o scratch_mb=$budget_mb "$archive" "$mnt"
dir=$mnt/file_06185/3/stream2
# 12 files of 14 MiB, 168 MiB in all: the third cannot fit in 32 MiB.
for i in $(seq 12); do
	dd if=/dev/zero of="$dir/fill$i.tmp" bs=1M count=14 status=none 2>>"$work/dd.err" || break
done
check "writes past the budget fail with ENOSPC (two files of 14 MiB fit in 32)" bash -c "
	grep -q 'No space left on device' '$work/dd.err' && test $i = 3 &&
	test \$(stat -c %s '$dir/fill1.tmp') = $((14 << 20)) && test \$(stat -c %s '$dir/fill2.tmp') = $((14 << 20))"
check "the daemon is alive and counts what it holds within the budget" bash -c "
	test \$(awk -F'\\t' '\$1 == \"scratch_bytes\" { print \$2 }' '$mnt/.mhfu/info') -le $((budget_mb << 20)) &&
	cat '$dir/slot024.txt' >/dev/null"
# Twice the budget and some: room for a sanitizer's own use of memory.
check "the daemon's memory stays bounded (VmRSS below 2 x budget + 64 MiB)" bash -c "
	echo \"VmRSS $(rss_kb) kB\"; test $(rss_kb) -lt $(((2 * budget_mb + 64) << 10))"
check "a truncate that does not fit fails with ENOSPC too" bash -c "
	! truncate -s 30M '$dir/fill1.tmp' 2>'$work/e' && grep -q 'No space left' '$work/e'"
check "rm gives the room back: a 30 MiB file then fits" bash -c "
	rm '$dir'/fill*.tmp && test \$(awk -F'\\t' '\$1 == \"scratch_bytes\" { print \$2 }' '$mnt/.mhfu/info') = 0 &&
	dd if=/dev/zero of='$dir/big.tmp' bs=1M count=30 status=none && test \$(stat -c %s '$dir/big.tmp') = $((30 << 20))"
check "truncating gives the room back too" bash -c "
	truncate -s 0 '$dir/big.tmp' && test \$(awk -F'\\t' '\$1 == \"scratch_bytes\" { print \$2 }' '$mnt/.mhfu/info') = 0 &&
	dd if=/dev/zero of='$dir/other.tmp' bs=1M count=30 status=none"
check "sed -i still saves a view with the budget nearly used (30 of 32 MiB)" \
	sed -i 's/^# .*//' "$dir/slot024.txt"
unmount "$mnt"

# --- scratch folders --------------------------------------------------------
cp "$sample/DATA.BIN" "$archive"
"$mount_bin" "$archive" "$mnt"
record=$(info record)
w=$dir/work
check "mkdir -p makes scratch folders in a view folder, and files go in them" bash -c "
	mkdir -p '$w/a/b' && echo hello >'$w/a/b/f.txt' && test \"\$(cat '$w/a/b/f.txt')\" = hello"
check "ls -a lists a scratch folder's ., .. and names" bash -c "
	test \"\$(ls -a '$w/a' | tr '\\n' ' ')\" = '. .. b '"
check "a folder's link count counts the folders in it" bash -c "
	mkdir '$w/a/c' && test \$(stat -c %h '$w/a') = 4 && test \$(stat -c %h '$w/a/b') = 2"
check "a name made in a scratch folder changes its mtime" bash -c "
	touch -d '2001-01-01' '$w/a' && touch '$w/a/new' && test \$(stat -c %Y '$w/a') -gt 1000000000"
check "the view folder lists the scratch folder" bash -c "ls '$dir' | grep -qx work"
check "rmdir of a folder with files in it fails (ENOTEMPTY)" bash -c "
	! rmdir '$w/a' 2>'$work/e' && grep -q 'not empty' '$work/e' && test -d '$w/a/b'"
check "unlink of a folder fails (EISDIR), rm of a file in it works" bash -c "
	! unlink '$w/a/c' 2>/dev/null && test -d '$w/a/c' && rm '$w/a/new' && ! test -e '$w/a/new'"
check "mv moves a folder with what it holds" bash -c "
	mv '$w/a' '$w/moved' && test \"\$(cat '$w/moved/b/f.txt')\" = hello && ! test -e '$w/a'"
check "mkdir with a view's name fails (EEXIST)" bash -c "
	! mkdir '$dir/slot024.txt' 2>'$work/e' && grep -q 'File exists' '$work/e' && test -f '$dir/slot024.txt'"
check "a folder cannot replace a view (mv -T fails), the view as it was" bash -c "
	cp '$dir/slot024.txt' '$work/view.txt' && ! mv -T '$w/moved' '$dir/slot024.txt' 2>/dev/null &&
	cmp '$work/view.txt' '$dir/slot024.txt' && test -d '$w/moved'"
# A tool that saves in a work folder, then moves the file into place.
L=$(awk '/^channel rot_x/ { f = 1; next } f && /^ *[0-9-]/ { print NR; exit }' "$dir/slot024.txt")
sed "${L}s/^\\( *[0-9]* *\\)-\\{0,1\\}[0-9]*/\\11234/" "$dir/slot024.txt" >"$w/moved/slot024.txt"
check "a file saved in a scratch folder and moved over a view commits it" bash -c "
	mv '$w/moved/slot024.txt' '$dir/slot024.txt' && sed -n '${L}p' '$dir/slot024.txt' | grep -q ' 1234 ' &&
	grep -q 'file_06185/3/stream2/slot024.txt: committed' '$mnt/.mhfu/log'"
check "mkfifo in a scratch folder: the fifo passes data" bash -c "
	mkfifo '$w/pipe' && test -p '$w/pipe' && { echo through >'$w/pipe' & } && test \"\$(cat '$w/pipe')\" = through"
check "ln makes a hard link: one file, two names, a link count of 2" bash -c "
	echo one >'$w/h1' && ln '$w/h1' '$w/h2' && test \$(stat -c %i '$w/h1') = \$(stat -c %i '$w/h2') &&
	test \$(stat -c %h '$w/h1') = 2 && echo two >>'$w/h2' && test \"\$(cat '$w/h1')\" = \"one
two\""
check "rm of one name leaves the other with the data" bash -c "
	rm '$w/h1' && test \$(stat -c %h '$w/h2') = 1 && test \"\$(head -1 '$w/h2')\" = one && rm '$w/h2'"
check "a view cannot be hard-linked (EPERM), nor linked over" bash -c "
	! ln '$dir/slot024.txt' '$w/v' 2>'$work/e' && grep -q 'not permitted' '$work/e' && ! test -e '$w/v' &&
	cp '$dir/slot024.txt' '$work/before.txt' && echo x >'$w/x' && ! ln '$w/x' '$dir/slot024.txt' 2>/dev/null &&
	cmp '$work/before.txt' '$dir/slot024.txt'"
check "rm -r removes a folder tree, rmdir an empty folder" bash -c "
	rm -r '$w/moved' '$w/x' && mkdir '$w/empty' && rmdir '$w/empty' && test \"\$(ls '$w')\" = pipe"
if have git; then
	check "git works in a stream folder: init, add, commit, then diff shows a sed -i edit" bash -c "
		cd '$dir' && export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t &&
		git init -q . && git add slot024.txt && git commit -qm base &&
		sed -i '${L}s/ 1234 / 4321 /' slot024.txt && git diff slot024.txt | grep -q '^+.* 4321 '"
else
	skip "git in a stream folder" "git not installed"
fi
# A refused text, then a folder of more files than rejected/ keeps texts.
check "a refused write keeps its text in rejected/" bash -c "
	echo 'channel nonsense' >'$work/bad.txt' && ! cp '$work/bad.txt' '$dir/slot025.txt' 2>/dev/null &&
	ls '$record/rejected' | grep -q 'slot025.txt'"
mkdir -p "$w/many"
for i in $(seq 150); do echo "$i" >"$w/many/f$i"; done
ln -s f1 "$w/many/link"
unmount "$mnt"
left=$(ls -d "$record"/left/*/ 2>/dev/null | tail -1)
check "at unmount, a scratch folder is kept whole in the record's left/" bash -c "
	test -n '$left' && test \$(ls '${left}file_06185/3/stream2/work/many' | wc -l) = 151 &&
	test \"\$(cat '${left}file_06185/3/stream2/work/many/f150')\" = 150 &&
	test \"\$(readlink '${left}file_06185/3/stream2/work/many/link')\" = f1"
check "the log says where the folder is kept" \
	grep -q "file_06185/3/stream2/work/: a scratch folder left at unmount (151 files, .*) is kept as ${left}file_06185/3/stream2/work/" "$record/log"
check "the refused text is still in rejected/" bash -c "ls '$record/rejected' | grep -q 'slot025.txt'"
if have git; then
	check "the kept .git is a repository with its commit" bash -c "
		git -C '${left}file_06185/3/stream2' log --oneline | grep -q base"
fi

finish
