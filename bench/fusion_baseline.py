#!/usr/bin/env python3
"""Dense and rank-fusion baselines on a BEIR collection, computed by reference
implementations: all-MiniLM-L6-v2 in ONNX Runtime (the model file `sift model fetch`
installed and its tokenizer, 256 tokens at most as sentence-transformers reads them; exact
cosine over every document), and reciprocal rank fusion (k = 60, Cormack et al. 2009) of its
top 100 with the top 100 of the collection's best BM25 row (bm25s, as
bench/bm25_baseline.py, with that row's k1 and stop words). Scored with the same metrics as
`sift eval`.

Usage: bench/fusion_baseline.py <collection dir> <cache dir>
Prints {"dense": {metrics}, "fusion": {metrics}, "bm25": "<the row>"} as JSON. The
documents' embeddings are cached in <cache dir> by the corpus' hash.
Needs: pip install bm25s PyStemmer onnxruntime tokenizers (bench/run.sh installs them)."""
import hashlib, json, math, os, re, sys

import bm25s
import numpy as np
import onnxruntime as ort
import Stemmer
from tokenizers import Tokenizer

d, cache = sys.argv[1], sys.argv[2]
model_dir = os.environ.get("SIFT_MODEL_DIR", os.path.expanduser("~/.cache/sift/models/all-minilm-l6-v2"))
MAX_TOKENS, RRF_K, DEPTH, BATCH = 256, 60, 100, 32

docs = [json.loads(l) for l in open(f"{d}/corpus.jsonl")]
queries = [json.loads(l) for l in open(f"{d}/queries.jsonl")]
qrels = {}
for i, line in enumerate(open(f"{d}/qrels/test.tsv")):
    q, c, s = line.rstrip("\n").split("\t")[:3]
    if i == 0 and not s.strip().lstrip("-").isdigit():
        continue
    if float(s) > 0:
        qrels.setdefault(q, {})[c] = float(s)
ids = [x["_id"] for x in docs]
texts = [(x.get("title", "") + " " + x.get("text", "")).strip() for x in docs]


def best_bm25_row():
    """k1, stop words and name of the best BM25 row of BASELINES.md."""
    best = (0.0, "1.2", "en", "")
    for line in open(f"{d}/BASELINES.md"):
        cells = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(cells) > 1 and cells[0].lower().startswith("bm25") and re.fullmatch(r"[0-9.]+", cells[1]):
            k1 = re.search(r"k1[ =]([0-9.]+)", cells[0]).group(1)
            stop = "en_plus" if ("en_plus" in cells[0] or "179" in cells[0]) else "en"
            best = max(best, (float(cells[1]), k1, stop, cells[0]))
    return best[1:]


# The package's tokenizer.json pads every text to 128 tokens and cuts there; the model
# reads up to 256, unpadded (sentence-transformers' max_seq_length).
tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
tokenizer.no_padding()
tokenizer.enable_truncation(MAX_TOKENS)
so = ort.SessionOptions()
so.intra_op_num_threads = os.cpu_count() or 1
session = ort.InferenceSession(os.path.join(model_dir, "model-f32.onnx"), so, providers=["CPUExecutionProvider"])


def embed(strings):
    """L2-normalised sentence embeddings, in batches of similar lengths."""
    order = sorted(range(len(strings)), key=lambda i: len(strings[i]))
    vectors = np.zeros((len(strings), 384), dtype=np.float32)
    for start in range(0, len(order), BATCH):
        rows = order[start : start + BATCH]
        enc = tokenizer.encode_batch([strings[i] for i in rows])
        width = max(len(e.ids) for e in enc)
        input_ids = np.zeros((len(enc), width), dtype=np.int64)
        mask = np.zeros((len(enc), width), dtype=np.int64)
        for r, e in enumerate(enc):
            input_ids[r, : len(e.ids)] = e.ids
            mask[r, : len(e.ids)] = 1
        vectors[rows] = session.run(["sentence_embedding"], {"input_ids": input_ids, "attention_mask": mask})[0]
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


os.makedirs(cache, exist_ok=True)
key = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
path = os.path.join(cache, f"{os.path.basename(d.rstrip('/'))}-{key}.npy")
if os.path.exists(path):
    doc_vectors = np.load(path)
else:
    doc_vectors = embed(texts)
    np.save(path, doc_vectors)
query_vectors = embed([q["text"] for q in queries])

k1, stop, row = best_bm25_row()
stemmer = Stemmer.Stemmer("english")
retriever = bm25s.BM25(k1=float(k1), b=0.75, method="lucene")
retriever.index(bm25s.tokenize(texts, stopwords=stop, stemmer=stemmer, show_progress=False), show_progress=False)


def metrics(runs):
    tot = [0.0, 0.0, 0.0, 0.0]
    n = 0
    for q in queries:
        rels = qrels.get(q["_id"])
        if not rels:
            continue
        ranked = runs[q["_id"]]
        g = lambda i: rels.get(i, 0.0)
        dcg = sum(g(x) / math.log2(k + 2) for k, x in enumerate(ranked[:10]))
        idcg = sum(v / math.log2(k + 2) for k, v in enumerate(sorted(rels.values(), reverse=True)[:10]))
        mrr = next((1 / (k + 1) for k, x in enumerate(ranked[:10]) if g(x) > 0), 0.0)
        rec = sum(1 for x in ranked[:DEPTH] if g(x) > 0) / len(rels)
        hits, ap = 0, 0.0
        for k, x in enumerate(ranked[:DEPTH]):
            if g(x) > 0:
                hits += 1
                ap += hits / (k + 1)
        tot = [tot[0] + dcg / idcg, tot[1] + mrr, tot[2] + rec, tot[3] + ap / len(rels)]
        n += 1
    return {"ndcg@10": round(tot[0] / n, 4), "mrr@10": round(tot[1] / n, 4), "recall@100": round(tot[2] / n, 4), "map@100": round(tot[3] / n, 4)}


dense, fused = {}, {}
for qi, q in enumerate(queries):
    top = np.argsort(-(doc_vectors @ query_vectors[qi]), kind="stable")[:DEPTH]
    dense[q["_id"]] = [ids[i] for i in top]
    toks = bm25s.tokenize([q["text"]], stopwords=stop, stemmer=stemmer, show_progress=False)
    res, sc = retriever.retrieve(toks, k=min(DEPTH, len(ids)), show_progress=False)
    lexical = [ids[i] for i, s in zip(res[0], sc[0]) if s > 0]
    rrf = {}
    for ranking in (lexical, dense[q["_id"]]):
        for rank, doc in enumerate(ranking):
            rrf[doc] = rrf.get(doc, 0.0) + 1.0 / (RRF_K + rank + 1)
    fused[q["_id"]] = sorted(rrf, key=lambda x: (-rrf[x], x))[:DEPTH]
print(json.dumps({"dense": metrics(dense), "fusion": metrics(fused), "bm25": row}))
