//! Relevance on Cranfield (../shared/data/cranfield, BEIR format): Sift's lexical mode must
//! not fall below a standard BM25 (bm25s, Lucene variant, k1 1.2, b 0.75, stemmed:
//! nDCG@10 0.3695 — the first row of BASELINES.md, reproduced by bench/bm25_baseline.py).
//! Skipped, and says so, when ../shared is not beside the repository.

use sift_tests::*;
use std::process::Command;

const BM25_NDCG10: f64 = 0.3695;

#[test]
fn cranfield_lexical_beats_standard_bm25() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipped: ../shared/data/cranfield not found (the relevance evaluation needs the shared test collection)");
        return;
    };
    let c = shared.join("data/cranfield");
    let out = scratch("cranfield").join("bundle");
    let b = Command::new(sift_bin_at(env!("CARGO_BIN_EXE_sift")))
        .args(["build", c.join("corpus.jsonl").to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"])
        .output()
        .unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let o = Command::new(sift_bin_at(env!("CARGO_BIN_EXE_sift")))
        .args([
            "eval",
            out.to_str().unwrap(),
            "--queries",
            c.join("queries.jsonl").to_str().unwrap(),
            "--qrels",
            c.join("qrels/test.tsv").to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    eprintln!("cranfield lexical: {v}");
    assert_eq!(v["queries"], 225);
    let ndcg = v["ndcg@10"].as_f64().unwrap();
    assert!(ndcg >= BM25_NDCG10, "nDCG@10 {ndcg} below standard BM25 {BM25_NDCG10}");
    assert!(v["recall@100"].as_f64().unwrap() >= 0.7354, "Recall@100 below BM25's 0.7354: {v}");
}
