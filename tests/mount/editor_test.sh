#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Editor tests: a refused edit, saved as a user saves it from every kind of
# tool (emacs, vim and nano typed into through tmux and read off their
# screen; sed -i, cp, rsync, python, shell redirection), is reported as a
# failed save; the backing DATA.BIN stays byte-identical (decoded by
# mhfudump), the view reads its last valid text, the typed text is kept
# under .mhfu/rejected/, and saving the fixed text from the same editor
# lands.
#
#   bash tests/mount/editor_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-editor-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
# A new user's editors: no settings of their own.
export HOME=$work/home TERM=xterm
mkdir -p "$HOME"
mnt=$work/mnt
archive=$work/DATA.BIN
clip=file_06185/3/stream2/slot024.txt   # the Tigrex's head clip, unshared
cdir=$mnt/file_06185/3/stream2
# The newest refused text of the clip kept under .mhfu/rejected/.
rejected() { ls -t "$mnt"/.mhfu/rejected/*slot024.txt 2>/dev/null | head -1; }
# The editors' own tmux server, so no other session is touched.
tm() { tmux -S "$work/tmux.sock" "$@"; }

cleanup() {
	tm kill-server 2>/dev/null
	leave "$mnt"
}
trap cleanup EXIT

# fresh: a pristine copy of the sample, mounted.
fresh() {
	unmount "$mnt"
	mkdir -p "$mnt"
	cp "$sample/DATA.BIN" "$archive"
	"$mount_bin" "$archive" "$mnt"
}

on_disk() { "$dump" "$archive" "$1"; }
disk_line() { on_disk "$clip" | sed -n "$1p" | tr -s ' '; }
unchanged() { cmp "$sample/DATA.BIN" "$archive"; }

fresh
# The edit every tool makes: a valid keyframe value (line L) and a track
# mask the track's channels do not have (line T0, rule TRACK_MASK).
T0=$(on_disk "$clip" | grep -n -m1 '^track 0 ' | cut -d: -f1)
L=$(on_disk "$clip" | grep -n -m1 -A1 '^channel rot_x' | tail -1 | cut -d- -f1)
key_line=$(disk_line "$L" | awk '{ $2 = 1111 } 1')
bad_track="track 0 mask 0x1000"
on_disk "$clip" | awk -v l="$L" -v k="$key_line" -v t="$T0" -v b="$bad_track" \
	'NR == l { $0 = k } NR == t { $0 = b } 1' >"$work/bad.txt"

refusals() { grep -c "slot024.txt:$T0: TRACK_MASK" "$mnt/.mhfu/log"; }
# before_save: what kept compares with.
before_save() {
	refused_before=$(refusals)
	rm -f "$mnt"/.mhfu/rejected/*
}
# kept: after a refused save, the archive is the sample byte for byte, the
# view reads its last valid text, the refusal is logged and the typed text
# is kept under .mhfu/rejected/.
kept() {
	unchanged || { echo "the archive changed"; return 1; }
	cmp <(on_disk "$clip") "$cdir/slot024.txt" ||
		{ echo "the view does not read the archive's text"; return 1; }
	[ "$(refusals)" -gt "$refused_before" ] ||
		{ echo "no TRACK_MASK refusal logged:"; cat "$mnt/.mhfu/log"; return 1; }
	grep -q "^$bad_track" "$(rejected)" ||
		{ echo "the typed text is not under .mhfu/rejected/"; return 1; }
}
lands() { # lands: the valid keyframe value is on disk
	local got
	got=$(disk_line "$L" | awk '{ print $2 }')
	[ "$got" = 1111 ] || { echo "line $L value on disk: $got, want 1111"; return 1; }
	"$dump" --check "$archive"
}

# --- interactive editors, through tmux -----------------------------------
editor_pid=
# start COMMAND: runs an editor on the clip in a fresh tmux session and
# waits until it shows the clip.
start() {
	tm kill-server 2>/dev/null
	tm new-session -d -x 200 -y 50 -c "$cdir" "exec $1" || return 1
	editor_pid=$(tm display-message -p '#{pane_pid}')
	shows 'joint 31'
}
screen() { tm capture-pane -p 2>/dev/null; }
# shows REGEX: waits until the screen matches (bounded).
shows() {
	eventually bash -c "tmux -S '$work/tmux.sock' capture-pane -p | grep -q -E -- '$1'" ||
		{ echo "the screen never showed /$1/:"; screen | tail -4; return 1; }
}
# stop: ends the editor and waits for it to exit, so the mount is free.
stop() {
	tm kill-server 2>/dev/null
	[ -z "$editor_pid" ] || eventually bash -c "! kill -0 $editor_pid"
}
keys() { tm send-keys "$@"; }
text() { tm send-keys -l "$1"; }

vim_session() { # vim_session VIM_ARGS...: a refused :w, then the fixed text saved
	start "vim $* slot024.txt" || return 1
	text "${L}GS$key_line"; keys Escape
	text "${T0}GS$bad_track"; keys Escape
	before_save
	text ":w"; keys Enter
	shows 'E512: Close failed' || return 1
	echo "vim said:"; screen | grep -E 'E[0-9]+:|WARNING' | sed 's/ *$//'
	kept || return 1
	# The buffer still holds the text: fix the track line, :w again.
	keys Enter
	text "${T0}GStrack 0"; keys Escape
	text ":w"; keys Enter
	shows 'written' || return 1
	lands
}
emacs_session() { # emacs_session EMACS_ARGS...: likewise, C-x C-s
	start "emacs -nw $* slot024.txt" || return 1
	keys M-g g; text "$L"; keys Enter C-k; text "$key_line"
	keys M-g g; text "$T0"; keys Enter C-k; text "$bad_track"
	shows "^$bad_track" || return 1
	# Its lock (.#name, a symlink) and auto-save (#name#) files are
	# scratch files: they work, and never reach the archive.
	eventually test -L "$cdir/.#slot024.txt" || { echo "no lock file"; return 1; }
	keys M-x; text "do-auto-save"; keys Enter
	eventually grep -q "^$bad_track" "$cdir/#slot024.txt#" || { echo "no auto-save file"; return 1; }
	unchanged || { echo "the lock or auto-save file changed the archive"; return 1; }
	before_save
	keys C-x C-s
	shows 'Write error: Invalid argument' || return 1
	screen | grep -q -E '^-UU-:\*\*' || { echo "the buffer is not marked modified:"; screen; return 1; }
	kept || return 1
	keys M-g g; text "$T0"; keys Enter C-k; text "track 0"
	keys C-x C-s
	shows '^Wrote ' || return 1
	lands || return 1
	eventually bash -c "! test -e '$cdir/#slot024.txt#'" || { echo "the auto-save file stayed"; return 1; }
	eventually bash -c "! test -L '$cdir/.#slot024.txt'" || { echo "the lock stayed"; return 1; }
}
nano_session() { # nano_session: likewise, ^O
	start "nano slot024.txt" || return 1
	keys C-_; text "$L"; keys Enter C-k; text "$key_line"; keys Enter
	keys C-_; text "$T0"; keys Enter C-k; text "$bad_track"; keys Enter
	keys C-o
	shows 'File Name to Write' || return 1
	before_save
	keys Enter
	shows 'Error writing .*Invalid argument' || return 1
	kept || return 1
	keys C-_; text "$T0"; keys Enter C-k; text "track 0"; keys Enter
	keys C-o
	shows 'File Name to Write' || return 1
	keys Enter
	shows 'Wrote [0-9]+ lines' || return 1
	lands
}
# editor NAME SESSION ARGS...: one session on a fresh mount.
editor() {
	local name=$1
	shift
	fresh
	check "$name" "$@"
	stop
}

if have tmux && have vim; then
	# The tests run under /tmp, where vim (backupskip) and emacs make no
	# backup: they write the file in place.  Elsewhere (a mount under
	# /mnt) they first rename the original to a backup and rename it back
	# when the write fails: the second session of each takes that path.
	editor "vim (default settings): :w of a refused edit fails (E512), the original is kept, the fixed text lands" vim_session
	editor "vim (writebackup renames, as outside /tmp): the same" vim_session -c "'set backupskip='"
else
	skip "vim" "vim or tmux not installed"
fi
if have tmux && have emacs; then
	editor "emacs -nw (default settings): C-x C-s of a refused edit says Write error, the buffer stays modified, the fixed text lands" emacs_session
	editor "emacs -nw (backups by renaming, as outside /tmp): the same" emacs_session --eval "\"(setq backup-enable-predicate #'always)\""
else
	skip "emacs" "emacs or tmux not installed"
fi
if have tmux && have nano; then
	editor "nano: ^O of a refused edit says Error writing, the fixed text lands" nano_session
else
	skip "nano" "nano or tmux not installed"
fi

# --- other tools -------------------------------------------------------------
fresh
# fails_with COMMAND...: the command fails saying "Invalid argument", and
# the refusal is kept as for an editor.
fails_with() {
	before_save
	if "$@" 2>"$work/err"; then echo "$1 succeeded"; return 1; fi
	cat "$work/err"
	grep -q 'Invalid argument' "$work/err" || { echo "$1 did not say Invalid argument"; return 1; }
	kept
}
check "sed -i fails (rename: Invalid argument)" fails_with \
	sed -i "${T0}s/^track 0 .*/$bad_track/" "$cdir/slot024.txt"
check "cp fails (close: Invalid argument)" fails_with cp "$work/bad.txt" "$cdir/slot024.txt"
if have rsync; then
	mkdir -p "$work/from" && cp "$work/bad.txt" "$work/from/slot024.txt"
	check "rsync fails (rename: Invalid argument)" fails_with rsync -I "$work/from/slot024.txt" "$cdir/slot024.txt"
	check "rsync --inplace fails (close: Invalid argument)" fails_with rsync -I --inplace "$work/from/slot024.txt" "$cdir/slot024.txt"
else
	skip "rsync" "not installed"
fi
check "python open('w'): close raises OSError(EINVAL)" fails_with python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write(open(sys.argv[2]).read())" "$cdir/slot024.txt" "$work/bad.txt"
# The refusal sticks to the open file, as a writeback error does: a tool
# that ignores fsync's error (emacs does for EINVAL) sees it at close.
check "a refusal sticks: every fsync and the close fail, until a write commits" python3 -c "
import errno, os, sys
path, bad = sys.argv[1], open(sys.argv[2], 'rb').read()
good = open(path, 'rb').read()
def fails(call, *args):
    try:
        call(*args)
    except OSError as e:
        assert e.errno == errno.EINVAL, e
        return True
    return False
fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
os.write(fd, bad)
assert fails(os.fsync, fd), 'fsync of a refused text succeeded'
assert fails(os.fsync, fd), 'a second fsync succeeded'
assert fails(os.close, fd), 'close after a refused fsync succeeded'
fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
os.write(fd, bad)
assert fails(os.fsync, fd)
os.ftruncate(fd, 0)
os.pwrite(fd, good, 0)
assert not fails(os.fsync, fd), 'the valid text was refused'
assert not fails(os.fsync, fd) and not fails(os.close, fd), 'a refusal outlived a commit'
" "$cdir/slot024.txt" "$work/bad.txt"
check "shell redirection (close unchecked): the refusal is in the log and user.mhfu.error" bash -c "
	printf 'track 0\nchannel rot_q\n' >'$cdir/slot024.txt'
	cmp '$sample/DATA.BIN' '$archive' && grep -q 'slot024.txt:2:9: SYNTAX' '$mnt/.mhfu/log' &&
	getfattr --only-values -n user.mhfu.error '$cdir/slot024.txt' | grep -q 'slot024.txt:2:9: SYNTAX' &&
	grep -q 'rot_q' \"\$(ls -t '$mnt'/.mhfu/rejected/*slot024.txt | head -1)\""

unmount "$mnt"
finish
