#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Textures (mount.mhfu(8) "THE TREE", mhfu-archive(5) "TMH") through a
# real mount: every imageNN.png is checked by pngcheck and decoded by
# Python's PIL, and compared with the TMH decoded by a reader written here
# in Python from the format's description (a second, independent oracle);
# PNGs edited by PIL (indices, palette, RGBA) and copied back re-encode
# their image in place: the bank keeps its size and changes in that image
# only, read from the archive file by mhfudump, outside the mount.  An
# unchanged PNG commits nothing; other dimensions, a broken PNG and a
# changed read-only image are refused, the archive untouched.
#
#   bash tests/mount/texture_test.sh MOUNT_BINARY SAMPLE_DIR MHFUDUMP_BINARY
set -uo pipefail

mount_bin=$(realpath "$1")
sample=$(realpath "$2")
dump=$(realpath "$3")
work=$(mktemp -d -t mhfu-texture-test.XXXXXX)
. "$(dirname "$0")/lib.sh"
mnt=$work/mnt
archive=$work/DATA.BIN
bank=file_06185/2 # image00 4-bit/RGBA5551, 01 8-bit/RGBA8888, 02 RGBA8888, 03 4-bit linear, 04 DXT1
tex=$mnt/$bank

trap 'leave "$mnt"' EXIT

# A Python with PIL: the one on the PATH, else Debian's.
py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import PIL' 2>/dev/null; then py=$p && break; fi
done

cat >"$work/tmh.py" <<'EOF'
"""A TMH reader written from mhfu-archive(5), and the edits the test makes with PIL."""
import struct
import sys
from PIL import Image

BITS = [16, 16, 16, 32, 4, 8, 16, 32, 4, 8, 8]


def images(path):
    b = open(path, 'rb').read()
    assert b[:8] == b'.TMH0.14', path
    out, off = [], 16
    for _ in range(struct.unpack_from('<I', b, 8)[0]):
        size, _, _, has_clut = struct.unpack_from('<4I', b, off)
        psize, _, fmt, w, h = struct.unpack_from('<3I2H', b, off + 16)
        im = dict(start=off, end=off + size, fmt=fmt, w=w, h=h,
                  pix=b[off + 32:off + 16 + psize], clut=None)
        if has_clut:
            c = off + 16 + psize
            csize, _, cfmt, count = struct.unpack_from('<4I', b, c)
            im['clut'] = (cfmt, count, b[c + 16:c + csize])
        out.append(im)
        off += size
    return b, out


def widen(v, bits):
    return (v << (8 - bits)) | (v >> (2 * bits - 8))


def color(fmt, v):
    if fmt == 0:
        return (widen(v & 31, 5), widen(v >> 5 & 63, 6), widen(v >> 11 & 31, 5), 255)
    if fmt == 1:
        return (widen(v & 31, 5), widen(v >> 5 & 31, 5), widen(v >> 10 & 31, 5),
                255 if v >> 15 else 0)
    if fmt == 2:
        return tuple((v >> 4 * k & 15) * 17 for k in range(4))
    return tuple(v >> 8 * k & 255 for k in range(4))


def value(im, x, y):
    """The stored value of pixel (x, y): blocks of 16 bytes x 8 rows when the
    rows are whole blocks, else linear; 0 past the stored bytes."""
    bits, w = BITS[im['fmt']], im['w']
    if w * bits % 128 == 0:
        bw = 128 // bits
        pos = bw * 8 * (x // bw) + w * 8 * (y // 8) + bw * (y % 8) + x % bw
    else:
        pos = y * w + x
    byte, n = pos * bits // 8, max(1, bits // 8)
    if byte + n > len(im['pix']):
        return 0
    if bits == 4:
        return im['pix'][byte] >> (pos % 2 * 4) & 15
    return int.from_bytes(im['pix'][byte:byte + n], 'little')


def palette(im):
    cfmt, count, data = im['clut']
    n = BITS[cfmt] // 8
    colors = [color(cfmt, int.from_bytes(data[i * n:i * n + n], 'little')) for i in range(count)]
    return colors[:1 << BITS[im['fmt']]] if im['fmt'] in (4, 5) else colors


def dxt1(im):
    w, h = im['w'], im['h']
    out, across = [[None] * w for _ in range(h)], (w + 3) // 4
    for by in range((h + 3) // 4):
        for bx in range(across):
            blk = im['pix'][(by * across + bx) * 8:][:8]
            c0, c1 = struct.unpack_from('<2H', blk, 4)
            e = [((c >> 8) & 0xf8, (c >> 3) & 0xfc, (c << 3) & 0xf8) for c in (c0, c1)]
            if c0 > c1:
                mid = [tuple((2 * a + b) // 3 for a, b in zip(*e)) + (255,),
                       tuple((a + 2 * b) // 3 for a, b in zip(*e)) + (255,)]
            else:
                mid = [tuple((a + b) // 2 for a, b in zip(*e)) + (255,), (0, 0, 0, 0)]
            colors = [e[0] + (255,), e[1] + (255,)] + mid
            for k in range(16):
                x, y = bx * 4 + k % 4, by * 4 + k // 4
                if x < w and y < h:
                    out[y][x] = colors[blk[k // 4] >> 2 * (k % 4) & 3]
    return [c for row in out for c in row]


def rgba(im):
    if im['fmt'] == 8:
        return dxt1(im)
    pal = palette(im) if im['clut'] else None
    vals = [value(im, x, y) for y in range(im['h']) for x in range(im['w'])]
    return [pal[v] for v in vals] if pal else [color(im['fmt'], v) for v in vals]


def indices(im):
    return [value(im, x, y) for y in range(im['h']) for x in range(im['w'])]


def picture(path):
    """(PIL image, its RGBA pixels)."""
    img = Image.open(path)
    img.load()
    return img, list(img.convert('RGBA').getdata())


def check_all(src, mnt):
    """Every bank of the extraction: the mount's PNGs as PIL reads them are
    the images as this reader reads the mount's own .tmh files."""
    import glob
    import os
    banks = images_seen = 0
    for path in glob.glob(src + '/**/*.tmh', recursive=True):
        rel = os.path.relpath(path, src)
        _, ims = images(os.path.join(mnt, rel))
        for i, im in enumerate(ims):
            png = os.path.join(mnt, rel[:-4], 'image%02d.png' % i)
            img, got = picture(png)
            want = rgba(im)
            if img.size != (im['w'], im['h']) or got != want:
                sys.exit('%s: PIL reads other pixels than the bank holds' % png)
            if im['fmt'] in (4, 5):
                if img.mode != 'P' or list(img.getdata()) != indices(im):
                    sys.exit('%s: not the indices the bank holds' % png)
            images_seen += 1
        banks += 1
    print('%d banks, %d images' % (banks, images_seen))
    if banks < 10:
        sys.exit('too few banks')


def rect(args):
    return [int(a) for a in args]


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == 'all':
        check_all(a[0], a[1])
    elif cmd == 'paint_index':  # IN OUT x0 y0 x1 y1 INDEX: a rectangle of one index
        img, _ = picture(a[0])
        x0, y0, x1, y1, k = rect(a[2:7])
        for y in range(y0, y1):
            for x in range(x0, x1):
                img.putpixel((x, y), k)
        img.save(a[1])
    elif cmd == 'paint_rgba':  # IN OUT x0 y0 x1 y1 R G B A: as RGBA
        img = Image.open(a[0]).convert('RGBA')
        x0, y0, x1, y1, r, g, b, al = rect(a[2:10])
        for y in range(y0, y1):
            for x in range(x0, x1):
                img.putpixel((x, y), (r, g, b, al))
        img.save(a[1])
    elif cmd == 'set_color':  # IN OUT K R G B: palette entry K
        img, _ = picture(a[0])
        k, r, g, b = rect(a[2:6])
        pal = img.getpalette()
        pal[3 * k:3 * k + 3] = [r, g, b]
        img.putpalette(pal)
        img.save(a[1])
    elif cmd == 'resave':  # IN OUT: the same pixels, PIL's own bytes
        img, _ = picture(a[0])
        img.save(a[1], optimize=True)
    elif cmd == 'resize':  # IN OUT W H
        img, _ = picture(a[0])
        img.resize((int(a[2]), int(a[3]))).save(a[1])
    elif cmd == 'only_image':  # OLD NEW I: same size, bytes differ in image I only
        old, ims = images(a[0])
        new, _ = images(a[1])
        im = ims[int(a[2])]
        diff = [i for i in range(len(old)) if i < len(new) and old[i] != new[i]]
        if len(old) != len(new) or not diff or not all(im['start'] <= i < im['end'] for i in diff):
            sys.exit('%d -> %d bytes, changed at %s' % (len(old), len(new), diff[:8]))
    elif cmd == 'indices_are':  # BANK I PNG: the bank's indices are the PNG's
        _, ims = images(a[0])
        img, _ = picture(a[2])
        if indices(ims[int(a[1])]) != list(img.getdata()):
            sys.exit('other indices')
    elif cmd == 'mapped':  # OLD NEW I PNG x0 y0 x1 y1: the rectangle of the RGBA
        # PNG took the palette's nearest colour; every other pixel kept its index
        _, old = images(a[0])
        _, new = images(a[1])
        i, (x0, y0, x1, y1) = int(a[2]), rect(a[4:8])
        _, want = picture(a[3])
        pal, w = palette(new[i]), new[i]['w']
        before, after = indices(old[i]), indices(new[i])
        for k, (b, n) in enumerate(zip(before, after)):
            x, y = k % w, k // w
            if x0 <= x < x1 and y0 <= y < y1:
                c = want[k]
                near = min(range(len(pal)), key=lambda j: (sum((p - q) ** 2 for p, q in zip(pal[j], c)), j))
                if n != near:
                    sys.exit('pixel (%d, %d) is %d, the nearest colour is %d' % (x, y, n, near))
            elif b != n:
                sys.exit('pixel (%d, %d) changed from %d to %d' % (x, y, b, n))
    elif cmd == 'color_of':  # BANK I K: palette entry K
        _, ims = images(a[0])
        print(*palette(ims[int(a[1])])[int(a[2])])
    elif cmd == 'wide_bank':  # OUT: one 4-bit image of 20000x1, wider than PNGs are shown
        pixels, clut = bytes(10000), bytes(range(64))
        image = struct.pack('<4I3I2H', 32 + len(pixels) + 16 + len(clut), 0, 1, 1,
                            16 + len(pixels), 1, 4, 20000, 1) + pixels
        image += struct.pack('<4I', 16 + len(clut), 2, 3, 16) + clut
        open(a[0], 'wb').write(b'.TMH0.14' + struct.pack('<2I', 1, 0) + image)
    elif cmd == 'pixel':  # BANK I X Y: its colour
        _, ims = images(a[0])
        im = ims[int(a[1])]
        print(*rgba(im)[int(a[3]) * im['w'] + int(a[2])])
    else:
        sys.exit('unknown command ' + cmd)


main()
EOF

tmh() { "$py" "$work/tmh.py" "$@"; }
bank_now() { "$dump" "$archive" "$bank.tmh" >"$1"; }
commits() { awk -F'\t' '$1 == "commits" { print $2 }' "$mnt/.mhfu/info"; }
last_log() { tail -n "${1:-1}" "$mnt/.mhfu/log"; }

mkdir -p "$mnt"
cp "$sample/DATA.BIN" "$archive"
check "mount a copy of the sample" "$mount_bin" "$archive" "$mnt"

# --- reading -------------------------------------------------------------------
check "a TMH member is a folder of imageNN.png, as the extraction has it" bash -c "
	test \"\$(ls '$tex')\" = \"\$(printf 'image%02d.png\n' 0 1 2 3 4)\" &&
	diff -r '$sample/src/$bank' '$tex'"
check "a top-level TMH entry has its folder too" bash -c "
	e=\$(awk -F'\t' '\$6 == \"tmh\" { print \$1; exit }' '$mnt/index.tsv') && test -n \"\$e\" &&
	ls '$mnt/'\"\${e%.tmh}\"/image00.png"
find "$sample/src" -name 'image*.png' -printf '%P\n' | sort >"$work/pngs"
check "the sample has PNGs of every bank ($(wc -l <"$work/pngs") of them)" test "$(wc -l <"$work/pngs")" -gt 50
if have pngcheck; then
	check "pngcheck passes every imageNN.png of the mount" bash -c "
		cd '$mnt' && xargs -d '\n' pngcheck -q <'$work/pngs'"
else
	skip "pngcheck passes every imageNN.png of the mount" "pngcheck is not installed"
fi
if [ -n "$py" ]; then
	check "PIL reads every PNG as the images the banks hold (read by a reader of its own)" \
		tmh all "$sample/src" "$mnt"
else
	skip "PIL reads every PNG as the images the banks hold" "python3's PIL is not installed"
fi
check "mhfudump reads the same PNG from the archive file" bash -c "
	'$dump' '$archive' $bank/image01.png | cmp - '$tex/image01.png'"

# --- writing: what commits nothing ------------------------------------------------
bank_now "$work/bank0"
n=$(commits)
check "an unchanged PNG copied back commits nothing, and says so" bash -c "
	cp '$tex/image00.png' '$work/same.png' && cp '$work/same.png' '$tex/image00.png' &&
	grep -q 'image00.png: unchanged, nothing committed' '$mnt/.mhfu/log' &&
	test \$(awk -F'\t' '\$1 == \"commits\" { print \$2 }' '$mnt/.mhfu/info') = $n &&
	cmp '$sample/DATA.BIN' '$archive'"
if [ -z "$py" ]; then
	skip "PNG edits with PIL" "python3's PIL is not installed"
	finish
	exit
fi
check "the same pixels saved by PIL (other bytes) commit nothing" bash -c "
	'$py' '$work/tmh.py' resave '$tex/image01.png' '$work/resaved.png' &&
	! cmp -s '$work/resaved.png' '$tex/image01.png' && cp '$work/resaved.png' '$tex/image01.png' &&
	tail -n 1 '$mnt/.mhfu/log' | grep -q 'image01.png: unchanged' && cmp '$sample/DATA.BIN' '$archive'"

# --- writing: indices, palette, RGBA ------------------------------------------------
check "a palette PNG with indices edited by PIL is copied back" bash -c "
	'$py' '$work/tmh.py' paint_index '$tex/image00.png' '$work/idx.png' 4 2 12 9 7 &&
	cp '$work/idx.png' '$tex/image00.png' && tail -n 1 '$mnt/.mhfu/log' | grep -q 'image00.png: committed'"
bank_now "$work/bank1"
check "the bank kept its size and changed in image 0 only" tmh only_image "$work/bank0" "$work/bank1" 0
check "image 0 holds the PNG's indices, index for index" tmh indices_are "$work/bank1" 0 "$work/idx.png"
check "the PNG reads back as written" bash -c "
	'$py' -c 'import sys; from PIL import Image; a, b = (list(Image.open(p).getdata()) for p in sys.argv[1:]); sys.exit(a != b)' \
		'$work/idx.png' '$tex/image00.png'"

check "a palette colour changed by PIL rewrites the CLUT (RGBA8888: exact)" bash -c "
	'$py' '$work/tmh.py' set_color '$tex/image03.png' '$work/pal.png' 2 1 2 3 &&
	cp '$work/pal.png' '$tex/image03.png' && '$dump' '$archive' $bank.tmh >'$work/bank2' &&
	'$py' '$work/tmh.py' only_image '$work/bank1' '$work/bank2' 3 &&
	test \"\$('$py' '$work/tmh.py' color_of '$work/bank2' 3 2 | cut -d' ' -f1-3)\" = '1 2 3'"
check "... and in RGBA5551 rounds it to the CLUT's format" bash -c "
	'$py' '$work/tmh.py' set_color '$tex/image00.png' '$work/pal5.png' 1 100 150 200 &&
	cp '$work/pal5.png' '$tex/image00.png' && '$dump' '$archive' $bank.tmh >'$work/bank3' &&
	'$py' '$work/tmh.py' only_image '$work/bank2' '$work/bank3' 0 &&
	test \"\$('$py' '$work/tmh.py' color_of '$work/bank3' 0 1 | cut -d' ' -f1-3)\" = '99 148 198'"

# RGBA: one rectangle of a colour near palette entry 9 of image 1
c9=$(tmh color_of "$work/bank3" 1 9)
read -r r g b a <<<"$c9"
r=$((r < 255 ? r + 1 : r - 1))
check "an RGBA PNG painted by PIL is copied back" bash -c "
	'$py' '$work/tmh.py' paint_rgba '$tex/image01.png' '$work/rgba.png' 3 1 20 6 $r $g $b $a &&
	cp '$work/rgba.png' '$tex/image01.png' && tail -n 1 '$mnt/.mhfu/log' | grep -q 'image01.png: committed'"
bank_now "$work/bank4"
check "the bank kept its size and changed in image 1 only" tmh only_image "$work/bank3" "$work/bank4" 1
check "the painted pixels took the nearest palette colour; the others kept their index" \
	tmh mapped "$work/bank3" "$work/bank4" 1 "$work/rgba.png" 3 1 20 6

check "a direct RGBA8888 image takes the colour as painted" bash -c "
	'$py' '$work/tmh.py' paint_rgba '$tex/image02.png' '$work/direct.png' 5 2 6 3 10 20 30 40 &&
	cp '$work/direct.png' '$tex/image02.png' && '$dump' '$archive' $bank.tmh >'$work/bank5' &&
	'$py' '$work/tmh.py' only_image '$work/bank4' '$work/bank5' 2 &&
	test \"\$('$py' '$work/tmh.py' pixel '$work/bank5' 2 5 2)\" = '10 20 30 40'"

# --- refusals: the archive untouched ---------------------------------------------
refused() { # refused PNG IMAGE WORDS: cp fails, the log says why, nothing changes
	local before
	before=$(md5sum <"$archive")
	! cp "$1" "$tex/$2" 2>"$work/err" && grep -q 'Invalid argument' "$work/err" &&
		tail -n 2 "$mnt/.mhfu/log" | grep "$2: FORMAT" | grep -q "$3" &&
		test "$(md5sum <"$archive")" = "$before"
}
tmh resize "$tex/image00.png" "$work/small.png" 16 16
check "a PNG of other dimensions is refused" refused "$work/small.png" image00.png \
	'the PNG is 16x16, the image 32x32: a texture keeps its dimensions'
head -c 100 "$tex/image00.png" >"$work/cut.png"
check "a PNG cut short is refused, naming where" refused "$work/cut.png" image00.png \
	'the PNG cannot be read: .* (at byte [0-9]*)'
cp "$tex/image00.png" "$work/crc.png"
printf '\x55' | dd of="$work/crc.png" bs=1 seek=45 conv=notrunc 2>/dev/null
check "a PNG with a bad CRC is refused, naming where" refused "$work/crc.png" image00.png \
	"the PLTE chunk's CRC is .* (at byte 89)"
printf 'not a png at all' >"$work/text.png"
check "a file that is no PNG is refused" refused "$work/text.png" image00.png 'not a PNG'
check "an unchanged read-only image (DXT1) commits nothing" bash -c "
	cp '$tex/image04.png' '$work/dxt.png' && cp '$work/dxt.png' '$tex/image04.png' &&
	tail -n 1 '$mnt/.mhfu/log' | grep -q 'image04.png: unchanged'"
tmh paint_rgba "$tex/image04.png" "$work/dxt2.png" 0 0 1 1 1 2 3 255
check "a changed read-only image (DXT1) is refused" refused "$work/dxt2.png" image04.png \
	'DXT1, which is read-only here'
check "the refused PNGs are kept, as written" bash -c "
	test \$(ls '$mnt/.mhfu/rejected/' | grep -c 'file_06185%2%image0[04].png') = 5"
check "names like an image's but not one are refused" bash -c "
	! touch '$tex/image05.png' 2>/dev/null && ! touch '$tex/IMAGE00.png' 2>/dev/null &&
	grep -q 'image05.png: refused: not a name of this folder' '$mnt/.mhfu/log'"

# --- after a remount ------------------------------------------------------------------
cp "$tex/image00.png" "$tex/image01.png" "$work/" 2>/dev/null
check "unmount" unmount "$mnt"
check "mount again" "$mount_bin" "$archive" "$mnt"
check "the edited images read back as they were committed" bash -c "
	cmp '$work/image00.png' '$tex/image00.png' && cmp '$work/image01.png' '$tex/image01.png'"
check "the archive decodes whole" "$dump" --check "$archive"

# --- banks not shown -----------------------------------------------------------------
tmh wide_bank "$work/wide.tmh"
check "a bank with an image too wide for a PNG is an empty folder, the log says why" bash -c "
	cp '$work/wide.tmh' '$tex.tmh' && test -z \"\$(ls '$tex')\" &&
	grep -q '$bank.tmh: shown raw only: image 0 is 20000x1, larger than the PNGs shown' \
		'$mnt/.mhfu/log'"
head -c 100 "$work/wide.tmh" >"$work/cut.tmh"
check "a bank cut short is refused (UNDECODABLE): the game loads a texture bank there" bash -c "
	! cp '$work/cut.tmh' '$tex.tmh' 2>/dev/null && cmp '$tex.tmh' '$work/wide.tmh' &&
	grep -q '$bank.tmh: UNDECODABLE the bytes: the game loads a texture bank here' '$mnt/.mhfu/log'"
check "unmount" unmount "$mnt"
check "mount again, -o rules=warn" "$mount_bin" -o rules=warn "$archive" "$mnt"
check "stored anyway, a bank that does not decode is an empty folder, the log says why" bash -c "
	cp '$work/cut.tmh' '$tex.tmh' &&
	test -z \"\$(ls '$tex')\" && grep -q '$bank.tmh: shown raw only: image 0: its 10112 bytes run past' \
		'$mnt/.mhfu/log'"
check "unmount" unmount "$mnt"
finish
