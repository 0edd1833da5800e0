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
import hashlib, json, os, sys

import bm25s
import numpy as np
import onnxruntime as ort
import Stemmer
from tokenizers import Tokenizer

from beir import best_bm25_row, load, metrics, text

d, cache = sys.argv[1], sys.argv[2]
model_dir = os.environ.get("SIFT_MODEL_DIR", os.path.expanduser("~/.cache/sift/models/all-minilm-l6-v2"))
MAX_TOKENS, RRF_K, DEPTH, BATCH = 256, 60, 100, 32

docs, queries, qrels = load(d)
ids = [x["_id"] for x in docs]
texts = [text(x) for x in docs]


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

_, k1, stop, row = best_bm25_row(d)
stemmer = Stemmer.Stemmer("english")
retriever = bm25s.BM25(k1=float(k1), b=0.75, method="lucene")
retriever.index(bm25s.tokenize(texts, stopwords=stop, stemmer=stemmer, show_progress=False), show_progress=False)


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
print(json.dumps({"dense": metrics(queries, qrels, dense), "fusion": metrics(queries, qrels, fused), "bm25": row}))
