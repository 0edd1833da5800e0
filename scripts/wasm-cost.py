#!/usr/bin/env python3
"""What each function of a wasm module costs in the file an engine ships as (LZMA).

    python3 scripts/wasm-cost.py MODULE.wasm [N]

MODULE must keep its name section: wasm-bindgen's output before wasm-opt strips it, e.g.
$CARGO_TARGET_DIR/wasm-pkg/core/sift_wasm_keyword/sift_wasm_bg.wasm after
scripts/build-wasm.sh. Prints the N largest functions (default 60) by their marginal cost:
the LZMA size of the code section minus its size without that function's body. Raw size
misleads for a packed engine: LZMA finds the near-copies monomorphisation makes, so a
function that repeats another costs little however large, and code of its own costs much
(docs/architecture.md, "Lean engine, measured step by step").
"""
import lzma
import re
import sys


def uleb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def functions(data):
    """(bodies, names by function index, number of imported functions)."""
    i, bodies, names, imports = 8, [], {}, 0
    while i < len(data):
        sid = data[i]
        size, i = uleb(data, i + 1)
        body = data[i:i + size]
        if sid == 2:  # imports: count the functions (they come first in the index space)
            n, j = uleb(body, 0)
            for _ in range(n):
                for _ in range(2):
                    ln, j = uleb(body, j)
                    j += ln
                kind = body[j]
                j += 1
                if kind == 0:
                    _, j = uleb(body, j)
                    imports += 1
                elif kind == 1:
                    j += 1
                    flags, j = uleb(body, j)
                    _, j = uleb(body, j)
                    if flags & 1:
                        _, j = uleb(body, j)
                elif kind == 2:
                    flags = body[j]
                    _, j = uleb(body, j + 1)
                    if flags & 1:
                        _, j = uleb(body, j)
                elif kind == 3:
                    j += 2
                else:
                    raise SystemExit(f"unknown import kind {kind}")
        elif sid == 10:
            n, j = uleb(body, 0)
            for _ in range(n):
                ln, j = uleb(body, j)
                bodies.append(body[j:j + ln])
                j += ln
        elif sid == 0:
            ln, j = uleb(body, 0)
            if body[j:j + ln] == b"name":
                j += ln
                while j < len(body):
                    sub = body[j]
                    sl, j = uleb(body, j + 1)
                    if sub == 1:
                        n, k = uleb(body, j)
                        for _ in range(n):
                            idx, k = uleb(body, k)
                            ln, k = uleb(body, k)
                            names[idx] = body[k:k + ln].decode("utf8", "replace")
                            k += ln
                    j += sl
        i += size
    return bodies, names, imports


def packed(b):
    # The parameters scripts/pack-engine.py ships with, at a quicker preset.
    f = [{"id": lzma.FILTER_LZMA1, "preset": 6, "lc": 3, "lp": 0, "pb": 0}]
    return len(lzma.compress(b, format=lzma.FORMAT_ALONE, filters=f))


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    bodies, names, imports = functions(open(sys.argv[1], "rb").read())
    if not names:
        raise SystemExit(f"{sys.argv[1]} has no name section (take wasm-bindgen's output, before wasm-opt)")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    base = packed(b"".join(bodies))
    largest = sorted(range(len(bodies)), key=lambda i: -len(bodies[i]))[: max(n * 2, n)]
    rows = []
    for i in largest:
        cost = base - packed(b"".join(bodies[:i] + bodies[i + 1:]))
        name = re.sub(r"\[[0-9a-f]{16}\]", "", names.get(i + imports, f"function {i + imports}"))
        rows.append((cost, len(bodies[i]), name))
    rows.sort(reverse=True)
    print(f"code section: {sum(map(len, bodies))} bytes raw, {base} LZMA; {len(bodies)} functions")
    print(f"{'LZMA':>6} {'raw':>6}  function")
    for cost, raw, name in rows[:n]:
        print(f"{cost:6d} {raw:6d}  {name[:160]}")


if __name__ == "__main__":
    main()
