#!/usr/bin/env python3
"""Pack a browser engine for shipping: `pack-engine.py IN OUT` writes IN (a .wasm) as LZMA
"alone" (.lzma), which sift.js decodes with www/src/lzma.js.

Why LZMA: 11-12% below an optimal deflate on the engines (zopfli; the keyword engine 111.2 ->
98.4 kB), the largest cut left in the bytes to a first result. The parameters were measured
on the engines: literal context 3 bits, no literal or position alignment (lc=3, lp=0, pb=0:
wasm code is a byte stream with no 2- or 4-byte structure) and the slowest, best match
search. Python's standard library (liblzma) encodes; nothing is installed for it.

The decoded size is written into the header (liblzma leaves it unknown and ends the stream
with a marker), so the page allocates the engine once; the file is decoded back here with
liblzma before it is kept, and written under a temporary name then renamed, so a page never
sees a bad or half-written file.
"""
import lzma
import os
import struct
import sys

FILTERS = [{"id": lzma.FILTER_LZMA1, "preset": 9 | lzma.PRESET_EXTREME, "lc": 3, "lp": 0, "pb": 0, "nice_len": 273}]


def pack(raw: bytes) -> bytes:
    packed = lzma.compress(raw, format=lzma.FORMAT_ALONE, filters=FILTERS)
    if lzma.decompress(packed, format=lzma.FORMAT_ALONE) != raw:
        raise ValueError("the packed stream does not decode to the input")
    if packed[5:13] != b"\xff" * 8:
        raise ValueError("liblzma wrote a decoded size; expected it unknown")
    return packed[:5] + struct.pack("<Q", len(raw)) + packed[13:]


def main(argv):
    if len(argv) != 3:
        print("usage: pack-engine.py IN OUT", file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    try:
        with open(src, "rb") as f:
            raw = f.read()
        packed = pack(raw)
        tmp = dst + ".tmp"
        with open(tmp, "wb") as f:
            f.write(packed)
        os.replace(tmp, dst)
    except (OSError, ValueError, lzma.LZMAError) as e:
        print(f"pack-engine: {e}", file=sys.stderr)
        return 1
    print(f"{dst}: {len(raw)} bytes -> {len(packed)} packed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
