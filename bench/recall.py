#!/usr/bin/env python3
"""Vector recall: how much of what an exact search over every vector finds the semantic side
finds with the vectors a query reads by default. For each bundle with vectors and its
queries, recall@100 of `sift eval --mode semantic` against the same with every list read
(`probe_scale` and `group_scale` large), at the bundle's probe and at 2, 4 and 8 times it,
with semantic and hybrid nDCG@10 beside each.

Usage: bench/recall.py <sift binary> <work dir> <bundle>:<collection dir>...
(or <bundle>:<queries.jsonl>:<qrels.tsv> for a query set outside a collection's folder)"""
import json, os, subprocess, sys

sift, work, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
EXACT = ["--param", "probe_scale=1000000", "--param", "group_scale=1000000"]
SCALES = [1, 2, 4, 8]
os.makedirs(work, exist_ok=True)


def ranked(bundle, c, mode, params, name):
    queries, qrels = c if isinstance(c, tuple) else (f"{c}/queries.jsonl", f"{c}/qrels/test.tsv")
    run = os.path.join(work, f"{name}.run")
    out = subprocess.run([sift, "eval", bundle, "--queries", queries, "--qrels", qrels, "--mode", mode,
                          "--json", "--run", run, *params], check=True, capture_output=True, text=True).stdout
    lists = {}
    for line in open(run):
        q, _, doc, *_ = line.split()
        lists.setdefault(q, []).append(doc)
    return lists, json.loads(out)["ndcg@10"]


print("| collection | chunks | vectors read | recall@100 vs exact | semantic nDCG@10 | hybrid nDCG@10 |")
print("|---|---|---|---|---|---|")
for pair in pairs:
    bundle, *rest = pair.split(":")
    if len(rest) == 2:
        c, name = tuple(rest), os.path.basename(rest[0])[: -len(".jsonl")]
    else:
        c, name = rest[0], os.path.basename(rest[0].rstrip("/"))
    vectors = json.load(open(os.path.join(bundle, "manifest.json"))).get("vectors")
    if not vectors:
        print(f"| {name} | (no vectors: skipped) | | | | |")
        continue
    exact, exact_ndcg = ranked(bundle, c, "semantic", EXACT, f"{name}-exact")
    _, exact_hybrid = ranked(bundle, c, "hybrid", EXACT, f"{name}-exact-hybrid")
    for scale in SCALES:
        params = ["--param", f"probe_scale={scale}"]
        got, ndcg = ranked(bundle, c, "semantic", params, f"{name}-{scale}")
        _, hybrid = ranked(bundle, c, "hybrid", params, f"{name}-{scale}-hybrid")
        recall = [len(set(got.get(q, [])[:100]) & set(e[:100])) / len(e[:100]) for q, e in exact.items() if e]
        print(f"| {name} | {vectors['chunks']} | {scale}× the bundle's probe | {sum(recall) / len(recall):.3f} | {ndcg:.4f} | {hybrid:.4f} |")
    print(f"| {name} | {vectors['chunks']} | every vector | 1.000 | {exact_ndcg:.4f} | {exact_hybrid:.4f} |")
