#!/usr/bin/env python3
"""Whether a screenshot of a flame graph shows frames: decodes the PNG (8-bit RGB or RGBA, no
interlace: what Chromium writes) with zlib alone and counts pixels of the function frames' warm
colors (red >= 205, blue <= 55, as client/flame.c colors them) and of the process and "all"
frames' violet. Prints the counts; exit 1 when either is under 0.5% of the image (blank, an
error page, or a graph that did not draw). Usage: flame-png.py SHOT.png"""
import struct
import sys
import zlib

data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        assert depth == 8 and ctype in (2, 6) and not interlace, 'unexpected PNG format'
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, rows = bytearray(stride), []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
warm = violet = 0
for line in rows:
    for x in range(0, stride, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        warm += r >= 205 and b <= 55
        violet += 170 <= r <= 200 and 150 <= g <= 180 and b == 220
total = w * h
print(f'screenshot {w}x{h}: {warm} function-frame pixels ({100 * warm / total:.1f}%), '
      f'{violet} process/all-frame pixels ({100 * violet / total:.1f}%)')
sys.exit(0 if warm > total / 200 and violet > total / 200 else 1)
