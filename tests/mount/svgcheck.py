#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a clip's plots (slotNNN.svg, entryNNN.svg) against its text
(slotNNN.txt, entryNNN.txt), read independently of the driver's code:

  svgcheck.py plots TEXT SVG [TEXT SVG...]
                               each SVG well-formed XML in the SVG
                               namespace; one plot per channel of its
                               text, in order,
                               naming its part, track, joint and channel;
                               one point per key; the curve's first point
                               at each key's frame is that frame's first
                               key's value and its last point the last
                               key's (keys taken in frame order); every
                               note line inside the picture's width
  svgcheck.py png FILE         a PNG that is not blank: it holds the
                               curves' blue and the keys' orange

Prints what it checked; exits 1 with the first difference."""

import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print(msg)
    sys.exit(1)


def channels_of_text(path):
    """[(part, track, joint, channel, [(frame, value)...])] in text order."""
    out, part, track, joint = [], None, None, None
    for line in open(path, encoding="utf-8"):
        code, _, comment = line.partition("#")
        words = code.split()
        if not words:
            continue
        if words[0] == "part":
            part = int(words[1])
        elif words[0] == "track":
            track = int(words[1])
            m = re.search(r"joint (\d+)", comment)
            joint = int(m.group(1)) if m else None
        elif words[0] == "channel":
            name = words[1]
            if name.startswith("0x"):
                name = "0x%03x" % int(name, 16)
            out.append((part, track, joint, name, []))
        elif re.match(r"[-+0-9]", words[0]):
            frame, value = int(words[0], 0), int(words[1], 0)
            out[-1][4].append((frame, value))
    return out


def number(s):
    return float(s)


def check_notes_fit(svg, root):
    """Every note line ends inside the picture: its width estimated at
    0.55 em a character, generous for a sans-serif face at 10 px."""
    width = number(root.get("width"))
    for t in root.iter(SVG + "text"):
        if t.get("class") != "note":
            continue
        words = "".join(t.itertext())
        end = number(t.get("x")) + 0.55 * 10 * len(words)
        if end > width:
            fail(f"{svg}: the note \"{words[:40]}...\" ends near x={end:.0f}, past the "
                 f"picture's width {width:.0f}")


def check_plots(text, svg):
    want = channels_of_text(text)
    root = ET.parse(svg).getroot()
    if root.tag != SVG + "svg":
        fail(f"{svg}: the root is {root.tag}, not an svg element in the SVG namespace")
    plots = [g for g in root.iter(SVG + "g") if g.get("class") == "plot"]
    if len(plots) != len(want):
        fail(f"{svg}: {len(plots)} plots, {text} has {len(want)} channels")
    check_notes_fit(svg, root)
    points = 0
    for g, (part, track, joint, name, keys) in zip(plots, want):
        where = f"{svg}: plot of part {part} track {track} {name}"
        got = (g.get("data-part"), g.get("data-track"), g.get("data-joint"), g.get("data-channel"))
        expect = (None if part is None else str(part), str(track),
                  None if joint is None else str(joint), name)
        if got != expect:
            fail(f"{where}: names (part, track, joint, channel) {got}, want {expect}")
        circles = [c for c in g.iter(SVG + "circle")]
        if len(circles) != len(keys):
            fail(f"{where}: {len(circles)} key points, {len(keys)} keys")
        curves = [p for p in g.iter(SVG + "polyline") if p.get("class") == "curve"]
        if not keys:
            if curves:
                fail(f"{where}: a curve without keys")
            continue
        if len(curves) != 1:
            fail(f"{where}: {len(curves)} curves")
        pts = [tuple(map(number, p.split(","))) for p in curves[0].get("points").split()]
        ordered = sorted(keys, key=lambda k: k[0])  # stable: ties keep text order
        for frame in sorted({f for f, _ in keys}):
            at = [k[1] for k in ordered if k[0] == frame]
            ys = [y for x, y in pts if x == frame]
            if not ys:
                fail(f"{where}: no point of the curve at frame {frame}")
            if ys[0] != at[0] or ys[-1] != at[-1]:
                fail(f"{where}: the curve at frame {frame} is {ys}, the keys there {at}")
            points += 1
        xs = [x for x, _ in pts]
        if xs != sorted(xs):
            fail(f"{where}: the curve's frames go back")
    print(f"{svg}: {len(plots)} plots, {points} key frames on their curves")


def png_pixels(path):
    """Width, height and rows of RGB(A) tuples of an 8-bit PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, color = ihdr[:4]
    if depth != 8 or color not in (2, 6):
        fail(f"{path}: depth {depth} color type {color}, want 8-bit RGB or RGBA")
    bpp = 3 if color == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def check_png(path):
    width, height, rows = png_pixels(path)
    colors = {}
    for row in rows:
        for px in row:
            colors[px] = colors.get(px, 0) + 1

    def near(rgb):
        return sum(n for c, n in colors.items() if all(abs(c[i] - rgb[i]) <= 24 for i in range(3)))

    blue, orange = near((0x18, 0x64, 0xab)), near((0xd9, 0x48, 0x0f))
    print(f"{path}: {width}x{height}, {len(colors)} colours, curve blue {blue} px, key orange {orange} px")
    if len(colors) < 8 or blue < 50 or orange < 20:
        fail(f"{path}: looks blank")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and len(sys.argv) % 2 == 0 and sys.argv[1] == "plots":
        for i in range(2, len(sys.argv), 2):
            check_plots(sys.argv[i], sys.argv[i + 1])
    elif len(sys.argv) == 3 and sys.argv[1] == "png":
        check_png(sys.argv[2])
    else:
        fail(__doc__)
