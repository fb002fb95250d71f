#!/usr/bin/env python3
"""pngcheck.py PNG [MIN_INK [RRGGBB MIN]]: decode a PNG (8-bit grey, RGB or
RGBA, not interlaced; what Chromium writes) with zlib alone and print its
size, the pixels that are not white and how many distinct colours they
have.  Exits 1 when fewer than MIN_INK pixels (a share, default 0.01) are
not white (a blank picture), or, given a colour, when fewer than MIN
pixels are close to it (a series that is not drawn)."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise SystemExit(f'{path}: not a PNG')
    pos, idat, w = 8, b'', None
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b'IHDR':
            w, h, depth, ctype, _, _, inter = struct.unpack('>IIBBBBB', body)
            if depth != 8 or inter != 0 or ctype not in (0, 2, 6):
                raise SystemExit(f'{path}: PNG depth {depth} colour type {ctype} interlace {inter}: not handled')
            bpp = {0: 1, 2: 3, 6: 4}[ctype]
        elif typ == b'IDAT':
            idat += body
        elif typ == b'IEND':
            break
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path = sys.argv[1]
    least = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
    want = bytes.fromhex(sys.argv[3]) if len(sys.argv) > 3 else None
    want_n = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    w, h, bpp, rows = decode(path)
    ink, near, colours = 0, 0, set()
    for r in rows:
        for x in range(0, len(r), bpp):
            px = r[x:x + min(bpp, 3)]
            if any(v < 245 for v in px):
                ink += 1
                colours.add(bytes(px))
                if want and len(px) == 3 and all(abs(a - b) < 40 for a, b in zip(px, want)):
                    near += 1
    share = ink / float(w * h)
    print(f'{path}: {w}x{h}, {ink} pixels not white ({share:.3f}), {len(colours)} colours' +
          (f', {near} near #{sys.argv[3]}' if want else ''))
    sys.exit(0 if share >= least and (want is None or near >= want_n) else 1)


main()
