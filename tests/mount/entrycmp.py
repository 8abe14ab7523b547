#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two texts of one executor entry (entries/entryNNN.txt) as the
engine plays them, read independently of the driver's code from
mhfu-clip(5): each channel evaluated at every frame (cubic Hermite between
keys, the eases as slopes in units per frame, held outside the keys),
each track's rotation composed Rz Ry Rx from its raw angles (4096 = 90
degrees) and compared as a rotation, its location axes (16 = 1.0) where
both texts have them.

  entrycmp.py OLD NEW [--skip PART TRACK FRAME] [--at PART TRACK FRAME]

prints "worst_turn DEGREES at PART TRACK FRAME", "worst_location RAW"
and, with --at, "turn_at DEGREES" there; --skip leaves that one spot out
of the worst.  Exits 1 when a part is in one text and not the other, or
a part's length differs."""
import math
import sys


def parse(path):
    parts, cur, track, keys = {}, None, None, None
    for line in open(path, encoding="utf-8"):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "part":
            k = int(words[1])
            if len(words) > 2 and words[2] == "keeps":
                parts[k], cur = None, None
            else:
                cur = {"tracks": []}
                parts[k] = cur
        elif cur is None:
            continue
        elif words[0] in ("loop", "loop_start"):
            cur[words[0]] = float(words[1])
        elif words[0] == "track":
            track = {}
            cur["tracks"].append(track)
        elif words[0] == "channel":
            keys = []
            track[words[1]] = keys
        else:
            keys.append(tuple(int(w) for w in words[:4]))
    return parts


def value(keys, f):
    if f <= keys[0][0]:
        return keys[0][1]
    for (t0, v0, _, e0), (t1, v1, e1, _) in zip(keys, keys[1:]):
        if t0 <= f <= t1:
            span = t1 - t0
            if span <= 0:
                return v0
            s, d = (f - t0) / span, f - t0
            return (v0 * (1 - 3 * s * s + 2 * s ** 3) + v1 * (3 * s * s - 2 * s ** 3)
                    + e0 * d * (1 - s) ** 2 + e1 * d * (s * s - s))
    return keys[-1][1]


def length(part):
    return max((k[0] for t in part["tracks"] for ch in t.values() for k in ch), default=0)


def matrix(track, f):
    a = [value(track[n], f) * math.pi / 8192 if n in track else 0.0
         for n in ("rot_x", "rot_y", "rot_z")]
    cx, sx, cy, sy, cz, sz = (math.cos(a[0]), math.sin(a[0]), math.cos(a[1]),
                              math.sin(a[1]), math.cos(a[2]), math.sin(a[2]))
    rx = ((1, 0, 0), (0, cx, -sx), (0, sx, cx))
    ry = ((cy, 0, sy), (0, 1, 0), (-sy, 0, cy))
    rz = ((cz, -sz, 0), (sz, cz, 0), (0, 0, 1))
    mul = lambda p, q: [[sum(p[i][k] * q[k][j] for k in range(3)) for j in range(3)]
                        for i in range(3)]
    return mul(mul(rz, ry), rx)


def turn(a, b):
    tr = sum(a[i][j] * b[i][j] for i in range(3) for j in range(3))
    return math.degrees(math.acos(max(-1.0, min(1.0, (tr - 1) / 2))))


def main():
    args = sys.argv[1:]
    old, new = parse(args[0]), parse(args[1])
    skip = at = None
    if "--skip" in args:
        i = args.index("--skip")
        skip = tuple(int(x) for x in args[i + 1:i + 4])
    if "--at" in args:
        i = args.index("--at")
        at = tuple(int(x) for x in args[i + 1:i + 4])
    if sorted(old) != sorted(new):
        print("parts differ:", sorted(old), sorted(new))
        return 1
    worst, where, worst_loc, turn_at = 0.0, None, 0.0, None
    for k in sorted(old):
        po, pn = old[k], new[k]
        if (po is None) != (pn is None):
            print("part", k, "keeps its clip in one text only")
            return 1
        if po is None:
            continue
        if length(po) != length(pn) or len(po["tracks"]) != len(pn["tracks"]):
            print("part", k, "length", length(po), length(pn), "tracks",
                  len(po["tracks"]), len(pn["tracks"]))
            return 1
        for t, (to, tn) in enumerate(zip(po["tracks"], pn["tracks"])):
            for f in range(length(po) + 1):
                d = turn(matrix(to, f), matrix(tn, f))
                if at == (k, t, f):
                    turn_at = d
                if d > worst and (k, t, f) != skip:
                    worst, where = d, (k, t, f)
                for n in ("loc_x", "loc_y", "loc_z"):
                    if n in to and n in tn:
                        worst_loc = max(worst_loc, abs(value(to[n], f) - value(tn[n], f)))
    print("worst_turn %.4f at %s" % (worst, " ".join(map(str, where or ()))))
    print("worst_location %.3f" % worst_loc)
    if at:
        print("turn_at %.4f" % (turn_at if turn_at is not None else -1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
