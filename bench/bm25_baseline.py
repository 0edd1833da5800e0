#!/usr/bin/env python3
"""Standard BM25 baseline on a BEIR collection, computed with PyPI `bm25s` (title + text,
English Snowball stemming via PyStemmer, English stop words), scored with the same metrics
as `sift eval` (nDCG@10 graded, MRR@10, Recall@100, MAP@100).

Usage: bench/bm25_baseline.py <collection dir> [k1] [b]
Needs: pip install bm25s PyStemmer (bench/run.sh installs them)."""
import json, sys

import bm25s
import Stemmer

from beir import load, metrics, text

d = sys.argv[1]
k1 = float(sys.argv[2]) if len(sys.argv) > 2 else 1.2
b = float(sys.argv[3]) if len(sys.argv) > 3 else 0.75
docs, queries, qrels = load(d)

stemmer = Stemmer.Stemmer("english")
retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
retriever.index(bm25s.tokenize([text(x) for x in docs], stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
ids = [x["_id"] for x in docs]

runs = {}
for q in queries:
    toks = bm25s.tokenize([q["text"]], stopwords="en", stemmer=stemmer, show_progress=False)
    res, _ = retriever.retrieve(toks, k=min(100, len(ids)), show_progress=False)
    runs[q["_id"]] = [ids[i] for i in res[0]]
print(json.dumps({"method": f"bm25s lucene k1={k1} b={b} stemmed en-stopwords", **metrics(queries, qrels, runs)}))
