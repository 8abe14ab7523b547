# SPDX-License-Identifier: MIT
"""A PMO reader written here from mhfu-archive(5) "PMO", independent of the
driver's codec: the positions of every vertex and where they are stored.

    python3 pmo_reader.py positions PMO [COMPANION]   group vertex x y z, one a line
    python3 pmo_reader.py diff OLD NEW [COMPANION]    the stored bytes that differ:
                                                      group vertex field, one a line
    python3 pmo_reader.py palette_bone IN OUT K BONE  palette entry K names BONE
    python3 pmo_reader.py no_draws IN OUT G           group G's PRIMs become NOPs
"""
import struct
import sys

SIZE = [0, 1, 2, 4]        # by a VTYPE format field
COLOR = {4: 2, 5: 2, 6: 2, 7: 4}


def layout(vtype):
    """(offset of each component, the vertex's size) for a VTYPE word."""
    uv, col, nrm, pos = vtype & 3, vtype >> 2 & 7, vtype >> 5 & 3, vtype >> 7 & 3
    wt, nw = vtype >> 9 & 3, (vtype >> 14 & 7) + 1
    at, big, where = 0, 1, {}

    def put(name, align, count):
        nonlocal at, big
        if not align:
            return
        at = (at + align - 1) // align * align
        where[name] = at
        at += align * count
        big = max(big, align)
    put('weights', SIZE[wt], nw)
    put('uv', SIZE[uv], 2)
    put('color', COLOR.get(col, 0), 1)
    put('normal', SIZE[nrm], 3)
    put('position', SIZE[pos] or 1, 3)
    size = (at + big - 1) // big * big
    return where, size, SIZE[pos] or 1


def read(pmo, companion):
    b = open(pmo, 'rb').read()
    assert b[:4] == b'pmo\0', pmo
    p3rd = b[4:8] == b'102\0'
    size, = struct.unpack_from('<I', b, 8)
    scale = struct.unpack_from('<3f', b, 0x10)
    meshes, = struct.unpack_from('<H', b, 0x1C)
    mesh_off, group_off = struct.unpack_from('<2I', b, 0x20)
    geometry, = struct.unpack_from('<I', b, 0x34)
    region, base = b, geometry
    if geometry == len(b) and size > len(b):
        region, base = open(companion, 'rb').read(), 0
    groups = []
    for m in range(meshes):
        rec = mesh_off + m * (0x30 if p3rd else 0x18)
        mscale = struct.unpack_from('<3f', b, rec) if p3rd else scale
        count, first = struct.unpack_from('<2H', b, rec + (0x2C if p3rd else 0x14))
        for g in range(first, first + count):
            lst, vtx, idx = struct.unpack_from('<3I', b, group_off + g * 16 + 4)
            groups.append((g, mscale, base + lst, base + vtx))
    return region, sorted(groups)


def vertices(region, lst, vtx):
    """(vtype, the vertex count) of the group whose list is at lst."""
    offset = bs = 0
    vaddr = iaddr = 0
    vtype, count, at = 0, 0, lst
    while True:
        w, = struct.unpack_from('<I', region, at)
        op, arg = w >> 24, w & 0xFFFFFF
        addr = (offset + ((bs & 0x0F0000) << 8 | arg)) & 0x0FFFFFFF
        if op == 0x14:
            offset = at  # its own address, in the region
        elif op == 0x13:
            offset = arg << 8
        elif op == 0x10:
            bs = arg
        elif op == 0x01:
            vaddr = addr
        elif op == 0x02:
            iaddr = addr
        elif op == 0x12:
            vtype = arg
        elif op == 0x04:
            n = arg & 0xFFFF
            _, stride, _ = layout(vtype)
            first = (vaddr - vtx) // stride
            isz = SIZE[vtype >> 11 & 3]
            if isz:
                fmt = {1: 'B', 2: 'H', 4: 'I'}[isz]
                ix = struct.unpack_from('<%d%s' % (n, fmt), region, iaddr)
                count = max(count, first + max(ix) + 1)
                iaddr += n * isz
            else:
                count = max(count, first + n)
                vaddr += n * stride
        elif op in (0x0B, 0x0C):
            return vtype, count
        at += 4


def positions(pmo, companion):
    region, groups = read(pmo, companion)
    out = []
    for g, scale, lst, vtx in groups:
        vtype, count = vertices(region, lst, vtx)
        where, stride, comp = layout(vtype)
        fmt, div = {1: ('b', 128.0), 2: ('h', 32768.0), 4: ('f', 1.0)}[comp]
        for v in range(count):
            at = vtx + v * stride + where['position']
            raw = struct.unpack_from('<3' + fmt, region, at)
            xyz = [raw[k] / div * scale[k] for k in range(3)]
            out.append((g, v, xyz, at, comp))
    return out


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'positions':
        for g, v, xyz, _, _ in positions(args[0], args[1] if len(args) > 1 else None):
            print('%d %d %.6g %.6g %.6g' % (g, v, *xyz))
    elif cmd == 'palette_bone':
        b = bytearray(open(args[0], 'rb').read())
        palette, = struct.unpack_from('<I', b, 0x2C)
        b[palette + 2 * int(args[2]) + 1] = int(args[3])
        open(args[1], 'wb').write(b)
    elif cmd == 'no_draws':
        b = bytearray(open(args[0], 'rb').read())
        group_off, = struct.unpack_from('<I', b, 0x24)
        lst, = struct.unpack_from('<I', b, group_off + 16 * int(args[2]) + 4)
        at = struct.unpack_from('<I', b, 0x34)[0] + lst
        while b[at + 3] not in (0x0B, 0x0C):
            if b[at + 3] == 0x04:
                struct.pack_into('<I', b, at, 0)
            at += 4
        open(args[1], 'wb').write(b)
    elif cmd == 'diff':
        old, new = open(args[0], 'rb').read(), open(args[1], 'rb').read()
        if len(old) != len(new):
            sys.exit('the PMO changed size: %d to %d bytes' % (len(old), len(new)))
        fields = {}
        for g, v, _, at, comp in positions(args[0], args[2] if len(args) > 2 else None):
            for k, axis in enumerate('xyz'):
                for i in range(comp):
                    fields[at + k * comp + i] = '%d %d %s' % (g, v, axis)
        seen = []
        for i in range(len(old)):
            if old[i] != new[i]:
                name = fields.get(i, 'byte %d (no position)' % i)
                if name not in seen:
                    seen.append(name)
        print('\n'.join(seen))


if __name__ == '__main__':
    main()
