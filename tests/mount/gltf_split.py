#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Splits a GLB of several animations into one GLB per animation, the rest
of the asset as it is (glTF 2.0's binary container: a 12-byte header, a
JSON chunk, a BIN chunk): what exporting each action alone would give.

  gltf_split.py IN.glb OUTDIR

writes OUTDIR/entryNNN.glb for each animation named "entry NNN..." and
prints how many."""
import json
import os
import re
import struct
import sys


def main():
    data = open(sys.argv[1], "rb").read()
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    rest = data[20 + jlen:]
    n = 0
    for anim in doc.get("animations", []):
        m = re.match(r"entry (\d+)", anim.get("name", ""))
        if not m:
            continue
        text = json.dumps(dict(doc, animations=[anim])).encode()
        text += b" " * (-len(text) % 4)
        body = struct.pack("<II", len(text), 0x4E4F534A) + text + rest
        head = struct.pack("<III", 0x46546C67, 2, 12 + len(body))
        with open(os.path.join(sys.argv[2], "entry%03d.glb" % int(m.group(1))), "wb") as f:
            f.write(head + body)
        n += 1
    print(n)


if __name__ == "__main__":
    main()
