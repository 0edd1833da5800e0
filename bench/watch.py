#!/usr/bin/env python3
"""`sift watch` from an edit to the answer: a running watcher over a copy of a site, one page
edited (a new word) or deleted, and `sift search` run every 50 ms until the word is found or
the page is gone. Prints the median and the worst of a few rounds, per site.

    python3 bench/watch.py SIFT NAME=SITE_DIR [NAME=SITE_DIR ...] [--vectors NAME] [--rounds 3]
                          [--work DIR]

`--vectors NAME`: that site is built with the embedding model (the others --no-embedder).
Times run from the write of the file (the watcher polls every 250 ms and waits one more
poll for the file to settle) to the first search that answers the change.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time


def opt(args, name, default=None):
    return args[args.index(name) + 1] if name in args else default


def pages_of(site):
    out = []
    for root, _, files in os.walk(site):
        for f in sorted(files):
            if f.endswith((".md", ".html")):
                out.append(os.path.join(root, f))
    return sorted(out)


def editable(path):
    """Markdown, or HTML with a title heading: an edit lands in the main content."""
    if path.endswith(".md"):
        return True
    with open(path, encoding="utf-8", errors="replace") as f:
        return "</h1>" in f.read()


def edit(path, word):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    text = f"{text}\n\nThe {word} setting.\n" if path.endswith(".md") else text.replace("</h1>", f"</h1><p>The {word} setting.</p>", 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def search(sift, bundle, query):
    r = subprocess.run([sift, "search", bundle, query, "--limit", "50", "--mode", "lexical"], capture_output=True, text=True)
    return r.stdout


def wait(pred, what, log, limit=120.0):
    t = time.perf_counter()
    while not pred():
        if time.perf_counter() - t > limit:
            raise SystemExit(f"{what}: not seen in {limit:.0f} s\n{open(log).read()[-3000:]}")
        time.sleep(0.05)


def run_site(sift, name, site, vectors, rounds, work):
    copy, out, log = os.path.join(work, f"{name}-site"), os.path.join(work, f"{name}-bundle"), os.path.join(work, f"{name}.log")
    for p in (copy, out):
        shutil.rmtree(p, ignore_errors=True)
    shutil.copytree(site, copy)
    args = [sift, "watch", copy, "--out", out] + ([] if vectors else ["--no-embedder"])
    with open(log, "w") as lf:
        proc = subprocess.Popen(args, stdout=lf, stderr=subprocess.STDOUT)
    try:
        t0 = time.perf_counter()
        wait(lambda: "built " in open(log).read(), f"{name}: first build", log, limit=3600)
        first = time.perf_counter() - t0
        pages = pages_of(copy)
        candidates = [p for p in pages if editable(p)]
        # What `sift search` shows of a result: its URL (a Markdown page's is its path as .html).
        ids = lambda p: re.sub(r"\.md$", ".html", os.path.relpath(p, copy))
        found, gone = [], []
        for i in range(rounds):
            word = f"zorbleflux{i}q"
            page = candidates[(i * 7919 + 13) % len(candidates)]
            t = time.perf_counter()
            edit(page, word)
            wait(lambda: f"[{ids(page)}" in search(sift, out, word), f"{name}: {word} in {ids(page)}", log)
            found.append(time.perf_counter() - t)
            # A page the bundle has, deleted: gone from the answer to the word it was just given.
            t = time.perf_counter()
            os.remove(page)
            wait(lambda: f"[{ids(page)}" not in search(sift, out, word), f"{name}: {ids(page)} gone", log)
            gone.append(time.perf_counter() - t)
        lines = [l for l in open(log).read().splitlines() if l.startswith("sift watch:")]
        return first, len(pages), found, gone, lines[-1] if lines else ""
    finally:
        proc.terminate()
        proc.wait()


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    sift = argv[1]
    rounds = int(opt(argv, "--rounds", "3"))
    work = opt(argv, "--work", "/tmp/sift-bench-watch")
    vectors = {v for i, v in enumerate(argv) if i > 0 and argv[i - 1] == "--vectors"}
    sites = [a for i, a in enumerate(argv[2:], 2) if "=" in a and argv[i - 1] not in ("--vectors", "--rounds", "--work")]
    os.makedirs(work, exist_ok=True)
    print(f"sift watch: edit → searchable, delete → gone ({rounds} rounds; median / worst, seconds)")
    print("| site | pages | vectors | first build | a new word found | a deleted page gone |")
    print("|---|---|---|---|---|---|")
    for spec in sites:
        name, site = spec.split("=", 1)
        first, n, found, gone, last = run_site(sift, name, site, name in vectors, rounds, work)
        fmt = lambda xs: f"{statistics.median(xs):.2f} / {max(xs):.2f}"
        print(f"| {name} | {n} | {'yes' if name in vectors else 'no'} | {first:.1f} | {fmt(found)} | {fmt(gone)} |", flush=True)
        print(f"  (last: {last})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
