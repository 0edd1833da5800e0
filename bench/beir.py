"""A BEIR collection as the benchmarks read it (corpus.jsonl, queries.jsonl, qrels/test.tsv,
BASELINES.md), and the metrics `sift eval` reports, for the Python baselines
(bm25_baseline.py, fusion_baseline.py) and the parameter search (loo.py)."""
import json, math, re

DEPTH = 100


def load(d):
    """(documents, queries, qrels): qrels[query id][doc id] = grade, positive grades only."""
    docs = [json.loads(l) for l in open(f"{d}/corpus.jsonl")]
    queries = [json.loads(l) for l in open(f"{d}/queries.jsonl")]
    qrels = {}
    for i, line in enumerate(open(f"{d}/qrels/test.tsv")):
        q, c, s = line.rstrip("\n").split("\t")[:3]
        if i == 0 and not s.strip().lstrip("-").isdigit():
            continue
        if float(s) > 0:
            qrels.setdefault(q, {})[c] = float(s)
    return docs, queries, qrels


def text(doc):
    """What BM25 and the model read of a document: its title and text."""
    return doc.get("title", "") + " " + doc.get("text", "")


def metrics(queries, qrels, runs):
    """nDCG@10 (graded), MRR@10, Recall@100 and MAP@100 of `runs` (query id → doc ids, best
    first), averaged over the judged queries; "queries": how many."""
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
    names = ["ndcg@10", "mrr@10", "recall@100", "map@100"]
    return {**{k: round(v / n, 4) for k, v in zip(names, tot)}, "queries": n}


def best_bm25_row(d):
    """The best BM25 row of a collection's BASELINES.md: (nDCG@10, k1, bm25s stop words, row)."""
    best = (0.0, "1.2", "en", "")
    for line in open(f"{d}/BASELINES.md"):
        cells = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(cells) > 1 and cells[0].lower().startswith("bm25") and re.fullmatch(r"[0-9.]+", cells[1]):
            k1 = re.search(r"k1[ =]([0-9.]+)", cells[0]).group(1)
            stop = "en_plus" if ("en_plus" in cells[0] or "179" in cells[0]) else "en"
            best = max(best, (float(cells[1]), k1, stop, cells[0]))
    return best
