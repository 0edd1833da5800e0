//! Relevance on Cranfield (../shared/data/cranfield, BEIR format), every mode, both query
//! embedders side by side, and on CACM (lexical; hybrid above both of its sides):
//! - lexical must not fall below a standard BM25 (bm25s, Lucene variant, k1 1.2, b 0.75,
//!   stemmed: nDCG@10 0.3695 — BASELINES.md's first row, reproduced by
//!   bench/bm25_baseline.py), nor below 0.40 (relevance feedback);
//! - with the embedding model installed and reading every chunk (`--full-model`): the
//!   bundle's static query encoder — no model at query time — at semantic ≥ 0.36 and
//!   hybrid ≥ 0.435, above
//!   every BASELINES row (best: rank fusion 0.4180) and above lexical and semantic; auto at
//!   least as good as hybrid; the full model as query embedder within 0.01 of exact f32
//!   MiniLM (0.3817) in semantic mode;
//! - built by default (over the model's budget: the model reads every chunk, as they fit
//!   in it, and a sample of the other texts for the encoder), hybrid still above lexical
//!   and semantic on both.
//!
//! Skipped, saying why, when ../shared is absent; the semantic part when the model is.

use sift_tests::*;
use std::path::Path;

const BM25_NDCG10: f64 = 0.3695;
const DENSE_F32_NDCG10: f64 = 0.3817;
const RRF_NDCG10: f64 = 0.4180;

fn sift(args: &[&str]) -> std::process::Output {
    let o = run_sift(env!("CARGO_BIN_EXE_sift"), args);
    assert!(o.status.success(), "sift {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

/// Metrics of one mode: `{"static": {...}, "model": {...}}` with `embedders` "both", else
/// one object.
fn eval(bundle: &Path, c: &Path, mode: &str, embedders: &str) -> serde_json::Value {
    let o = sift(&[
        "eval",
        bundle.to_str().unwrap(),
        "--queries",
        c.join("queries.jsonl").to_str().unwrap(),
        "--qrels",
        c.join("qrels/test.tsv").to_str().unwrap(),
        "--mode",
        mode,
        "--embedder",
        embedders,
        "--json",
    ]);
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Where the build looks for the embedding model.
fn model() -> std::path::PathBuf {
    sift_embed::model::default_model_dir().join("model-f32.onnx")
}

/// A collection's bundle, built with vectors when the model is installed (`true` then),
/// with `flags` besides.
fn build_collection(c: &Path, name: &str, flags: &[&str]) -> (std::path::PathBuf, bool) {
    let out = scratch(name).join("bundle");
    let corpus = c.join("corpus.jsonl");
    let with_vectors = model().exists();
    let mut args = vec!["build", corpus.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"];
    args.extend(flags);
    if !with_vectors {
        args.push("--no-embedder");
    }
    sift(&args);
    (out, with_vectors)
}

fn ndcg(v: &serde_json::Value) -> f64 {
    v["ndcg@10"].as_f64().unwrap()
}

#[test]
fn cranfield_every_mode_beats_its_baseline() {
    let Some(shared) = shared_dir() else {
        sift_tests::cannot_test("../shared/data/cranfield not found (the relevance evaluation needs the shared test collection)");
        return;
    };
    let c = shared.join("data/cranfield");
    let (out, with_vectors) = build_collection(&c, "cranfield", &["--full-model"]);

    let lexical = eval(&out, &c, "lexical", "static");
    eprintln!("cranfield lexical: {lexical}");
    assert_eq!(lexical["queries"], 225);
    assert_eq!(lexical["empty"], 0, "every query has an answer");
    assert!(ndcg(&lexical) >= BM25_NDCG10, "lexical nDCG@10 {} below standard BM25 {BM25_NDCG10}", ndcg(&lexical));
    // 0.4033 measured with RM3 feedback for paragraph-like queries (0.3848 without).
    assert!(ndcg(&lexical) >= 0.40, "lexical nDCG@10 {} below 0.40: relevance feedback lost", ndcg(&lexical));
    assert!(lexical["recall@100"].as_f64().unwrap() >= 0.7354, "Recall@100 below BM25's 0.7354: {lexical}");

    if !with_vectors {
        sift_tests::cannot_test(&format!("semantic, hybrid and auto need the model at {} (run `sift model fetch`)", model().display()));
        return;
    }
    let modes = ["semantic", "hybrid", "auto"];
    let both: Vec<serde_json::Value> = modes.iter().map(|m| eval(&out, &c, m, "both")).collect();
    eprintln!("cranfield nDCG@10      static encoder   full model");
    eprintln!("  lexical              {:>14.4} {:>12.4}", ndcg(&lexical), ndcg(&lexical));
    for (m, v) in modes.iter().zip(&both) {
        eprintln!("  {m:<20} {:>14.4} {:>12.4}", ndcg(&v["static"]), ndcg(&v["model"]));
    }
    let (semantic, hybrid, auto) = (&both[0]["static"], &both[1]["static"], &both[2]["static"]);
    assert!(ndcg(semantic) >= 0.36, "static semantic {} below 0.36", ndcg(semantic));
    // Issue 16's goal was 0.44: 0.4408 measured with RM3's λ at 0.5 (0.4245 with no
    // feedback). λ 0.7, which lexical search on four collections and hybrid search on six
    // of the seven need, leaves it at 0.4369 (bench/results/2026-12-07-lexical-against-bm25.md).
    assert!(ndcg(hybrid) >= 0.435 && ndcg(hybrid) > RRF_NDCG10, "static hybrid {} below 0.435 / rank fusion {RRF_NDCG10}", ndcg(hybrid));
    assert!(ndcg(hybrid) > ndcg(&lexical) && ndcg(hybrid) > ndcg(semantic));
    assert!(ndcg(auto) >= ndcg(hybrid), "auto {} below hybrid {}", ndcg(auto), ndcg(hybrid));
    let model_semantic = ndcg(&both[0]["model"]);
    assert!(
        (model_semantic - DENSE_F32_NDCG10).abs() <= 0.01,
        "full-model semantic {model_semantic} not within 0.01 of f32 MiniLM {DENSE_F32_NDCG10}"
    );
    assert!(ndcg(&both[1]["model"]) > RRF_NDCG10, "full-model hybrid {}", ndcg(&both[1]["model"]));
    hybrid_above_both_sides_when_budgeted(&c, "cranfield-budgeted", ndcg(&lexical));
}

/// Built by default (the collection is over the model's budget), hybrid with the bundle's
/// encoder ranks above lexical and above semantic.
fn hybrid_above_both_sides_when_budgeted(c: &Path, name: &str, lexical: f64) {
    let (out, _) = build_collection(c, name, &[]);
    let semantic = ndcg(&eval(&out, c, "semantic", "static"));
    let hybrid = ndcg(&eval(&out, c, "hybrid", "static"));
    eprintln!("{name}: semantic {semantic:.4}, hybrid {hybrid:.4}, lexical {lexical:.4}");
    assert!(hybrid > lexical && hybrid > semantic, "{name}: hybrid {hybrid} not above lexical {lexical} and semantic {semantic}");
}

/// CACM (../shared/data/cacm): a collection nothing was tuned on until it was measured,
/// with quoted titles and an unbalanced quotation mark among its queries. Lexical search
/// must beat every bm25s row of its BASELINES.md (best 0.5097) and answer every query; with
/// the model installed, hybrid (static encoder) must rank above lexical and semantic, though
/// the model is far weaker here than the words (semantic 0.31 against lexical 0.51).
#[test]
fn cacm_lexical_beats_every_bm25_row_and_hybrid_beats_both_of_its_sides() {
    let Some(shared) = shared_dir() else {
        sift_tests::cannot_test("../shared/data/cacm not found (the relevance evaluation needs the shared test collection)");
        return;
    };
    let c = shared.join("data/cacm");
    let (out, with_vectors) = build_collection(&c, "cacm", &["--full-model"]);
    let lexical = eval(&out, &c, "lexical", "static");
    eprintln!("cacm lexical: {lexical}");
    assert_eq!(lexical["queries"], 52);
    assert_eq!(lexical["empty"], 0, "every query has an answer: {lexical}");
    assert!(ndcg(&lexical) >= 0.5097, "lexical nDCG@10 {} below bm25s's best row 0.5097", ndcg(&lexical));
    // A document's number is not a word of it.
    let o = sift(&["search", out.to_str().unwrap(), "1978", "--json"]);
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(r["results"].as_array().unwrap().iter().all(|x| x["id"] != "1978"), "{r}");

    if !with_vectors {
        sift_tests::cannot_test(&format!("CACM's semantic and hybrid need the model at {} (run `sift model fetch`)", model().display()));
        return;
    }
    let semantic = eval(&out, &c, "semantic", "static");
    let hybrid = eval(&out, &c, "hybrid", "static");
    eprintln!("cacm static semantic: {semantic}\ncacm static hybrid: {hybrid}");
    assert_eq!(hybrid["empty"], 0, "every query has an answer: {hybrid}");
    // 0.5250 against 0.5126 and 0.3095 measured when the fusion's weights were chosen on
    // every collection at once (0.4762 before: an unreached page counted half).
    assert!(
        ndcg(&hybrid) > ndcg(&lexical) && ndcg(&hybrid) > ndcg(&semantic),
        "static hybrid {} not above lexical {} and semantic {}",
        ndcg(&hybrid),
        ndcg(&lexical),
        ndcg(&semantic)
    );
    hybrid_above_both_sides_when_budgeted(&c, "cacm-budgeted", ndcg(&lexical));
}
