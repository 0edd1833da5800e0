#!/usr/bin/env python3
"""What meaning costs and what it buys, per collection: lexical, the model path (`sift build
--full-model`: the model reads every chunk) and the budgeted path (`sift build`'s default: the
model reads at most --model-budget tokens; a site over it whose chunks fit keeps the model's
chunk vectors and samples the other texts, a larger one gets its chunks' vectors from the
static encoder fitted to the sample), in `auto` mode, with the share of the model path's
gain over lexical that the budgeted path keeps, the tokens the model read and the build time.

Usage: bench/meaning.py <sift binary> <work dir> [--clean] [--site DIR --known DIR] <collection dir>...
  --clean   each build starts from an empty embedding cache holding only the model's
            vocabulary (what `sift model fetch` embeds): clean build times. Without it the
            machine's cache serves what earlier builds embedded, and the times are warm.
  --site    a docs site scored by known items: --known PREFIX names the query sets
            PREFIX-<half>.jsonl and their judgements PREFIX-qrels.tsv
            (bench/known-item/python-docs for the Python docs)."""
import glob, json, os, re, shutil, subprocess, sys, tempfile, time

args = sys.argv[1:]
sift, work = args[0], args[1]
rest = args[2:]
clean = "--clean" in rest
site = known = None
if "--site" in rest:
    site = rest[rest.index("--site") + 1]
    known = rest[rest.index("--known") + 1]
collections = [a for i, a in enumerate(rest) if not a.startswith("--") and (i == 0 or rest[i - 1] not in ("--site", "--known"))]


def cache_env():
    """The environment of a build: an empty cache with the vocabulary when --clean."""
    env = dict(os.environ)
    if not clean:
        return env, None
    home = os.environ.get("SIFT_CACHE_DIR") or os.path.expanduser("~/.cache/sift")
    tmp = tempfile.mkdtemp(prefix="sift-clean-cache-")
    os.makedirs(f"{tmp}/embeddings")
    for v in glob.glob(f"{home}/embeddings/*.vocabulary.bin"):
        shutil.copy(v, f"{tmp}/embeddings/")
    env["SIFT_CACHE_DIR"] = tmp
    return env, tmp


def build(source, out, *flags):
    """Builds; returns (seconds, tokens the model read, tokens of the site, path)."""
    env, tmp = cache_env()
    t0 = time.time()
    p = subprocess.run([sift, "build", source, "--out", out, *flags], capture_output=True, text=True, env=env)
    seconds = time.time() - t0
    if tmp:
        shutil.rmtree(tmp)
    if p.returncode != 0:
        sys.exit(f"sift build {source} {' '.join(flags)} failed:\n{p.stderr}")
    m = re.search(r"site's texts hold (\d+) tokens, over the model's budget of \d+: the model read a sample of (\d+)", p.stderr)
    if m:
        return seconds, int(m.group(2)), int(m.group(1)), "budgeted"
    m = re.search(r"the site's (\d+) tokens|read every chunk \((\d+) tokens", p.stderr)
    if not m:
        sys.exit(f"sift build {source}: no vectors line in its output:\n{p.stderr}")
    n = int(m.group(1) or m.group(2))
    return seconds, n, n, "model"


def score(bundle, queries, qrels, metric, mode):
    out = subprocess.run([sift, "eval", bundle, "--queries", queries, "--qrels", qrels, "--mode", mode, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)[metric]


def kept(lex, model, new):
    gain = model - lex
    if abs(gain) < 1e-9:
        return "-"
    return f"{100 * (new - lex) / gain:.0f}%"


print(f"meaning: lexical, the model path and the budgeted path, auto mode ({'clean builds' if clean else 'warm cache'})")
print("| set | metric | lexical | model path | budgeted | gain kept | tokens read: model / budgeted | build s: model / budgeted |")
print("|---|---|---|---|---|---|---|---|")


def report(name, metric, sets, source):
    full = build(source, f"{work}/{name}-model", "--full-model")
    budget = build(source, f"{work}/{name}-budgeted")
    for label, queries, qrels in sets:
        lex = score(f"{work}/{name}-budgeted", queries, qrels, metric, "lexical")
        model = score(f"{work}/{name}-model", queries, qrels, metric, "auto")
        new = score(f"{work}/{name}-budgeted", queries, qrels, metric, "auto")
        path = "" if budget[3] == "budgeted" else " (within the budget: the model path)"
        print(
            f"| {label} | {metric} | {lex:.4f} | {model:.4f} | {new:.4f} | {kept(lex, model, new)} |"
            f" {full[1]:,} / {budget[1]:,}{path} | {full[0]:.1f} / {budget[0]:.1f} |",
            flush=True,
        )


os.makedirs(work, exist_ok=True)
for c in collections:
    name = os.path.basename(c.rstrip("/"))
    report(name, "ndcg@10", [(name, f"{c}/queries.jsonl", f"{c}/qrels/test.tsv")], f"{c}/corpus.jsonl")
if site:
    # --known PREFIX: the query sets PREFIX-<half>.jsonl, judged by PREFIX-qrels.tsv.
    sets = [(os.path.basename(q)[: -len(".jsonl")], q, f"{known}-qrels.tsv") for q in sorted(glob.glob(f"{known}-*.jsonl"))]
    report(os.path.basename(site.rstrip("/")), "mrr@10", sets, site)
