#!/usr/bin/env python3
"""Pack a browser engine for shipping: `pack-engine.py IN OUT` writes IN (a .wasm) as LZMA
"alone" (.lzma), which sift.js decodes with www/src/lzma.js.

A wasm module is packed with its code as streams (crates/sift-lzma's `code_streams`: the
opcodes, the local indices, the offsets, ... each a run of its own; the keyword engine
93.6 -> 86.3 kB), split and checked by that crate's `sift-code-streams` (the page joins them
with the same code): `--streams PATH` names the binary, else it is run with cargo. Other
bytes are packed as they are.

Why LZMA: 11-12% below an optimal deflate on the engines (zopfli; the keyword engine 111.2 ->
98.4 kB), the largest cut left in the bytes to a first result. The parameters were measured
on the engines: literal context 3 bits for a plain module, 1 for code streams, no literal or
position alignment (lp=0, pb=0: wasm code is a byte stream with no 2- or 4-byte structure) and the slowest, best match
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

import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A module as code streams depends less on the byte before each byte: lc=1 packs it best
# (keyword engine 87.1 kB at lc=3, 86.3 at 1).
FILTERS = {lc: [{"id": lzma.FILTER_LZMA1, "preset": 9 | lzma.PRESET_EXTREME, "lc": lc, "lp": 0, "pb": 0, "nice_len": 273}] for lc in (1, 3)}
WASM, SPLIT = b"\0asm", b"\0sw1"


def code_streams(mode: str, data: bytes, tool) -> bytes:
    """`sift-code-streams split|join` over `data`."""
    cmd = [tool] if tool else ["cargo", "run", "--quiet", "--release", "--manifest-path", os.path.join(ROOT, "Cargo.toml"), "-p", "sift-lzma", "--bin", "sift-code-streams", "--"]
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in"), os.path.join(d, "out")
        with open(src, "wb") as f:
            f.write(data)
        r = subprocess.run(cmd + [mode, src, dst], capture_output=True, text=True)
        if r.returncode != 0:
            raise ValueError(f"sift-code-streams {mode} failed: {r.stderr.strip() or r.returncode}")
        with open(dst, "rb") as f:
            return f.read()


def pack(raw: bytes, tool=None) -> bytes:
    if raw.startswith(SPLIT):
        raise ValueError("the input begins as a module in code streams would: the page would misread it")
    streams = raw.startswith(WASM)
    body = code_streams("split", raw, tool) if streams else raw
    packed = lzma.compress(body, format=lzma.FORMAT_ALONE, filters=FILTERS[1 if streams else 3])
    decoded = lzma.decompress(packed, format=lzma.FORMAT_ALONE)
    if (code_streams("join", decoded, tool) if streams else decoded) != raw:
        raise ValueError("the packed stream does not decode to the input")
    if packed[5:13] != b"\xff" * 8:
        raise ValueError("liblzma wrote a decoded size; expected it unknown")
    return packed[:5] + struct.pack("<Q", len(body)) + packed[13:]


def main(argv):
    tool = None
    if len(argv) == 5 and argv[1] == "--streams":
        tool, argv = argv[2], argv[:1] + argv[3:]
    if len(argv) != 3:
        print("usage: pack-engine.py [--streams sift-code-streams] IN OUT", file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    try:
        with open(src, "rb") as f:
            raw = f.read()
        packed = pack(raw, tool)
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
