#!/usr/bin/env python3
"""Standard BM25 baseline on a BEIR collection, computed with PyPI `bm25s` (title + text,
English Snowball stemming via PyStemmer, English stop words), scored with the same metrics
as `sift eval` (nDCG@10 graded, MRR@10, Recall@100, MAP@100).

Usage: bench/bm25_baseline.py <collection dir> [k1] [b]
Needs: pip install bm25s PyStemmer (bench/run.sh installs them)."""
import json, math, sys

import bm25s
import Stemmer

d = sys.argv[1]
k1 = float(sys.argv[2]) if len(sys.argv) > 2 else 1.2
b = float(sys.argv[3]) if len(sys.argv) > 3 else 0.75
docs = [json.loads(l) for l in open(f"{d}/corpus.jsonl")]
queries = [json.loads(l) for l in open(f"{d}/queries.jsonl")]
qrels = {}
for i, line in enumerate(open(f"{d}/qrels/test.tsv")):
    q, c, s = line.rstrip("\n").split("\t")[:3]
    if i == 0 and not s.strip().lstrip("-").isdigit():
        continue
    if float(s) > 0:
        qrels.setdefault(q, {})[c] = float(s)

stemmer = Stemmer.Stemmer("english")
corpus = [(x.get("title", "") + " " + x.get("text", "")) for x in docs]
retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
retriever.index(bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
ids = [x["_id"] for x in docs]

tot = [0.0, 0.0, 0.0, 0.0]
n = 0
for q in queries:
    rels = qrels.get(q["_id"])
    if not rels:
        continue
    toks = bm25s.tokenize([q["text"]], stopwords="en", stemmer=stemmer, show_progress=False)
    res, _ = retriever.retrieve(toks, k=min(100, len(ids)), show_progress=False)
    ranked = [ids[i] for i in res[0]]
    g = lambda i: rels.get(i, 0.0)
    dcg = sum(g(x) / math.log2(k + 2) for k, x in enumerate(ranked[:10]))
    ideal = sorted(rels.values(), reverse=True)[:10]
    idcg = sum(v / math.log2(k + 2) for k, v in enumerate(ideal))
    mrr = next((1 / (k + 1) for k, x in enumerate(ranked[:10]) if g(x) > 0), 0.0)
    rec = sum(1 for x in ranked[:100] if g(x) > 0) / len(rels)
    hits, ap = 0, 0.0
    for k, x in enumerate(ranked[:100]):
        if g(x) > 0:
            hits += 1
            ap += hits / (k + 1)
    tot = [tot[0] + dcg / idcg, tot[1] + mrr, tot[2] + rec, tot[3] + ap / len(rels)]
    n += 1
print(json.dumps({"method": f"bm25s lucene k1={k1} b={b} stemmed en-stopwords", "ndcg@10": round(tot[0] / n, 4),
                  "mrr@10": round(tot[1] / n, 4), "recall@100": round(tot[2] / n, 4), "map@100": round(tot[3] / n, 4), "queries": n}))
