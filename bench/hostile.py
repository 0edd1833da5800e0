#!/usr/bin/env python3
"""Hostile inputs for `sift build`: what each does, how long it takes, its peak memory.

    python3 bench/hostile.py [--sift PATH] [--raised-limit]

Each row builds a small good site plus one hostile input into a fresh output folder that
already holds a previous bundle, then reports the build's exit status, the warning or
error it printed, wall time, peak resident memory (the child's ru_maxrss) and whether the
good page is still found (or, on failure, whether the previous bundle is byte-identical).
`--raised-limit` adds the 200 MB page with the size limit raised, which needs ~4 GB.
Vanishing files and a full disk are exercised by tests/cli.rs (they need timing or a
tmpfs mount); this script reports the inputs that are files.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/sift-target"))
# The measured child's stderr goes here (os.fork + execv, so wait4 gives its own rusage).
ERR_FILE = os.path.join(tempfile.gettempdir(), f"sift-hostile-{os.getpid()}.err")


def run_measured(cmd):
    """Run a command; return (exit code, stderr, seconds, peak RSS in MB from wait4)."""
    t = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        errf = os.open(ERR_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(devnull, 1)
        os.dup2(errf, 2)
        try:
            os.execv(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    secs = time.monotonic() - t
    with open(ERR_FILE, encoding="utf-8", errors="replace") as f:
        err = f.read()
    os.remove(ERR_FILE)
    return os.waitstatus_to_exitcode(status), err, secs, usage.ru_maxrss / 1024


def digest(folder):
    h = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def html_page(body):
    return f"<!doctype html><html><head><title>Hostile</title></head><body><main>{body}</main></body></html>"


def case_big(site, mb):
    para = "<p>" + "lorem ipsum dolor sit amet consectetur " * 25 + "</p>\n"
    with open(os.path.join(site, "huge.html"), "w") as f:
        f.write("<!doctype html><html><body><main><h1>Huge</h1>")
        for _ in range(mb * 1024 * 1024 // len(para)):
            f.write(para)
        f.write("</main></body></html>")


def case_nested(site):
    n = 100_000
    with open(os.path.join(site, "deep.html"), "w") as f:
        f.write(html_page("<div>" * n + "deep" + "</div>" * n))


def case_long_word(site):
    with open(os.path.join(site, "word.html"), "w") as f:
        f.write(html_page("<h1>Word</h1><p>" + "a" * 20_000_000 + "</p>"))


def case_distinct_words(site):
    rnd = random.Random(7)
    words = ("".join(rnd.choice("bcdfghjklmnpqrstvwxz") + rnd.choice("aeiou") for _ in range(5)) for _ in range(1_000_000))
    with open(os.path.join(site, "dictionary.html"), "w") as f:
        f.write(html_page("<p>" + " ".join(words) + "</p>"))


def case_bad_utf8(site):
    with open(os.path.join(site, "bad.html"), "wb") as f:
        f.write(b"<main><h1>Bad \xff\xfe bytes</h1><p>quokka caf\xe9 \xc3\x28 \xed\xa0\x80</p></main>")


def case_binary(site):
    rnd = random.Random(1)
    with open(os.path.join(site, "image.html"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(rnd.randrange(256) for _ in range(1 << 20)))


def case_symlink_loop(site):
    os.makedirs(os.path.join(site, "sub"))
    os.symlink("..", os.path.join(site, "sub", "loop"))
    os.symlink("/dev/zero", os.path.join(site, "zero.html"))


def case_fifo(site):
    os.mkfifo(os.path.join(site, "pipe.html"))


def case_many_files(site):
    for i in range(20_000):
        d = os.path.join(site, f"dir{i % 100}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"p{i}.md"), "w") as f:
            f.write(f"# Page {i}\n\nword{i} text\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sift", default=os.path.join(TARGET, "release", "sift"))
    ap.add_argument("--raised-limit", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(args.sift):
        subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "sift"], cwd=ROOT)
    cases = [
        ("200 MB HTML page (default 64 MB limit)", lambda s: case_big(s, 200), []),
        ("60 MB HTML page (under the limit)", lambda s: case_big(s, 60), []),
        ("100,000 nested <div>s", case_nested, []),
        ("one 20 MB word", case_long_word, []),
        ("1,000,000 distinct words on one page", case_distinct_words, []),
        ("invalid UTF-8", case_bad_utf8, []),
        ("binary bytes named .html", case_binary, []),
        ("symlink loop + symlink to /dev/zero", case_symlink_loop, []),
        ("FIFO named .html", case_fifo, []),
        ("20,000 small files", case_many_files, []),
    ]
    if args.raised_limit:
        cases.insert(1, ("200 MB HTML page, --max-file-bytes 300000000", lambda s: case_big(s, 200), ["--max-file-bytes", "300000000"]))
    rows = []
    for name, make, extra in cases:
        work = tempfile.mkdtemp(prefix="sift-hostile-")
        try:
            site = os.path.join(work, "site")
            out = os.path.join(work, "out")
            os.makedirs(site)
            with open(os.path.join(site, "good.md"), "w") as f:
                f.write("# Good page\n\nzebrafinch lives here\n")
            prev = subprocess.run([args.sift, "build", site, "--out", out, "--no-embedder", "--quiet"], capture_output=True)
            assert prev.returncode == 0, prev.stderr
            before = digest(out)
            make(site)
            code, err, secs, peak = run_measured([args.sift, "build", site, "--out", out, "--no-embedder", "--quiet", *extra])
            if code == 0:
                r = subprocess.run([args.sift, "search", out, "zebrafinch", "--json"], capture_output=True, text=True)
                found = r.returncode == 0 and json.loads(r.stdout)["results"][:1] and json.loads(r.stdout)["results"][0]["id"] == "good.md"
                outcome = "built; good page " + ("found" if found else "MISSING")
            else:
                outcome = "failed; previous bundle " + ("intact" if digest(out) == before else "CHANGED")
            lines = [l.strip() for l in err.splitlines() if l.strip() and "good.md" not in l]
            said = lines[0] if lines else "(nothing)"
            if "panicked" in err:
                said = "PANIC: " + said
            rows.append((name, outcome, said[:110], secs, peak))
            print(f"{name}: {outcome} in {secs:.2f} s, peak {peak:.0f} MB — {said[:110]}", file=sys.stderr)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("\n| input | outcome | message | time | peak RSS |")
    print("|---|---|---|---|---|")
    for name, outcome, said, secs, peak in rows:
        print(f"| {name} | {outcome} | {said.replace('|', '/')} | {secs:.2f} s | {peak:.0f} MB |")


if __name__ == "__main__":
    main()
