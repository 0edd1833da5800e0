#!/usr/bin/env python3
"""Relevance on BEIR test collections, one table per collection: Sift in every mode (the
semantic modes with both query encoders: the bundle's static encoder and the full model)
beside a standard BM25 computed with bm25s (bench/bm25_baseline.py), MiniLM's exact search
and the rank fusion of the two (bench/fusion_baseline.py, when the model is installed), and
whether hybrid reaches the goal: at least lexical + 0.01 and the rank fusion.

Usage: bench/relevance.py <sift binary> <work dir> <collection dir>...
Each collection is built into <work dir>/<name> (with vectors when the model is installed,
as `sift build` does by default). `no result` counts queries answered with nothing."""
import json, os, subprocess, sys

sift, work, collections = sys.argv[1], sys.argv[2], sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
METRICS = ["ndcg@10", "mrr@10", "recall@100", "map@100", "empty"]


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def row(name, m):
    cells = [f"{m[k]:.4f}" if isinstance(m[k], float) else str(m[k]) for k in METRICS]
    print(f"| {name} | " + " | ".join(cells) + " |")


for c in collections:
    name = os.path.basename(c.rstrip("/"))
    out = os.path.join(work, name)
    run(sift, "build", f"{c}/corpus.jsonl", "--out", out, "-q")
    with open(f"{out}/manifest.json") as f:
        vectors = json.load(f).get("vectors") is not None
    ev = lambda mode, emb: json.loads(run(sift, "eval", out, "--queries", f"{c}/queries.jsonl", "--qrels", f"{c}/qrels/test.tsv", "--mode", mode, "--embedder", emb, "--json"))
    print(f"\n{name}: nDCG@10, MRR@10, Recall@100, MAP@100, queries with no result")
    print("| system | nDCG@10 | MRR@10 | R@100 | MAP@100 | no result |")
    print("|---|---|---|---|---|---|")
    lexical = ev("lexical", "static")
    row("sift lexical", lexical)
    hybrid = None
    if vectors:
        for mode in ["semantic", "hybrid", "auto"]:
            both = ev(mode, "both")
            row(f"sift {mode} (static encoder)", both["static"])
            row(f"sift {mode} (full model)", both["model"])
            if mode == "hybrid":
                hybrid = both["static"]
    else:
        print("| (no vectors: the model is not installed, semantic modes skipped) | | | | | |")
    for k1 in ["1.2", "1.5"]:
        m = json.loads(run("python3", f"{here}/bm25_baseline.py", c, k1, "0.75"))
        m.setdefault("empty", "-")
        row(f"bm25s (k1 {k1}, b 0.75)", m)
    if vectors:
        base = json.loads(run("python3", f"{here}/fusion_baseline.py", c, os.path.join(work, "fusion-cache")))
        for key, label in [("dense", "MiniLM f32, exact (ONNX Runtime)"), ("fusion", f"rank fusion (k 60): {base['bm25']} + MiniLM")]:
            base[key].setdefault("empty", "-")
            row(label, base[key])
        goal = max(lexical["ndcg@10"] + 0.01, base["fusion"]["ndcg@10"])
        verdict = "met" if hybrid["ndcg@10"] >= goal else "not met"
        print(f"\nhybrid {hybrid['ndcg@10']:.4f} against max(lexical + 0.01, rank fusion) = {goal:.4f}: {verdict}")
