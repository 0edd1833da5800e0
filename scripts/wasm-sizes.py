#!/usr/bin/env python3
"""Where a wasm module's bytes go: code size per function (from the name section), summed
by crate. Usage: wasm-sizes.py module.wasm [top-n]. Needs a module with its name section."""
import re, sys
from collections import Counter

def leb(b, i):
    r = s = 0
    while True:
        x = b[i]; i += 1
        r |= (x & 0x7f) << s; s += 7
        if x < 0x80:
            return r, i

def main(path, top):
    b = open(path, 'rb').read()
    i, sections, imports = 8, {}, 0
    while i < len(b):
        sid = b[i]; size, j = leb(b, i + 1)
        sections.setdefault(sid, []).append((j, j + size))
        i = j + size
    # count imported functions: they come first in the function index space
    if 2 in sections:
        s, e = sections[2][0]; n, p = leb(b, s)
        for _ in range(n):
            for _ in range(2):
                l, p = leb(b, p); p += l
            kind = b[p]; p += 1
            if kind == 0: _, p = leb(b, p); imports += 1
            elif kind == 1: p += 1; fl, p = leb(b, p); _, p = leb(b, p); p = leb(b, p)[1] if fl & 1 else p
            elif kind == 2: fl, p = leb(b, p); _, p = leb(b, p); p = leb(b, p)[1] if fl & 1 else p
            elif kind == 3: p += 2
    names = {}
    for s, e in sections.get(0, []):
        nl, p = leb(b, s); name = b[p:p + nl]; p += nl
        if name != b'name': continue
        while p < e:
            sub = b[p]; sz, q = leb(b, p + 1)
            if sub == 1:
                n, r = leb(b, q)
                for _ in range(n):
                    idx, r = leb(b, r); l, r = leb(b, r); names[idx] = b[r:r + l].decode('utf8', 'replace'); r += l
            p = q + sz
    s, e = sections[10][0]; n, p = leb(b, s)
    sizes = []
    for k in range(n):
        sz, q = leb(b, p); sizes.append((sz, names.get(imports + k, f'func{imports + k}'))); p = q + sz
    by_crate = Counter()
    for sz, nm in sizes:
        m = re.search(r'([a-z_][a-z0-9_]*)::', nm)
        by_crate[m.group(1) if m else nm[:40]] += sz
    total = sum(s for s, _ in sizes)
    data = sum(e - s for s, e in sections.get(11, []))
    print(f'code {total} bytes in {len(sizes)} functions; data {data} bytes')
    for c, sz in by_crate.most_common(top): print(f'{sz:9d}  {c}')
    print('-- largest functions')
    for sz, nm in sorted(sizes, reverse=True)[:top]: print(f'{sz:9d}  {nm[:110]}')

main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25)
