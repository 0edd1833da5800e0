//! Frozen bundles (like Pagefind's `frozen-pre-1.0/` and tantivy's `compat_tests.rs`):
//! `tests/frozen/<version>/bundle` was written by an earlier build of Sift and is never
//! rewritten. The current engine must still open it — lazily, from the files alone — and
//! give exactly the answers recorded in `answers.json` when it was frozen. A change that
//! breaks this must bump the bundle format version on purpose and freeze a new bundle
//! (`cargo run -p sift-tests --example freeze_bundle -- <version>`).

use sift_core::{Engine, MultiSearchRequest, SearchRequest, Step};
use sift_tests::frozen::{answer_case, Case, V1_CASES};
use sift_tests::repo_root;

fn open_lazily(dir: &std::path::Path, case: &Case) -> Engine {
    // A fresh engine per case, fed only the shards the case asks for, exactly as a browser
    // or the CLI would: the frozen bundle must answer through the host loop too.
    let manifest = std::fs::read(dir.join("manifest.json")).expect("frozen manifest");
    let mut engine = Engine::new(&manifest).unwrap_or_else(|e| panic!("frozen bundle no longer opens: {e}"));
    let load = |f: &str| Ok(std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("frozen shard {f}: {e}")));
    // Errors are part of the recorded answers; only shard loading must succeed here.
    let _ = engine.drive(|e| answer_step(e, case), load);
    engine
}

/// The case's call as one engine step (its answer is rendered by `answer_case`).
fn answer_step(engine: &Engine, case: &Case) -> Result<Step<()>, sift_core::SiftError> {
    let ctx = sift_tests::ctx();
    let args: serde_json::Value = serde_json::from_str(case.request).unwrap_or_default();
    let id = args["id"].as_str().unwrap_or_default();
    fn unit<T>(s: Step<T>) -> Step<()> {
        match s {
            Step::Done(_) => Step::Done(()),
            Step::Need(f) => Step::Need(f),
        }
    }
    Ok(match case.call {
        "search" => {
            let req = SearchRequest::from_json(case.request.as_bytes())?;
            let vector = case.embed.then(|| sift_tests::frozen::toy_embedding(&req.query));
            unit(engine.search_with(&req, &ctx, vector.as_deref())?)
        }
        "multi_search" => unit(engine.multi_search(&MultiSearchRequest::from_json(case.request.as_bytes())?, &ctx)?),
        "get_document" => unit(engine.get_document(id)?),
        "related" => unit(engine.related(id, args["limit"].as_i64(), &ctx)?),
        other => panic!("unknown call {other}"),
    })
}

#[test]
fn frozen_v1_bundle_opens_and_answers_as_recorded() {
    let dir = repo_root().join("tests/frozen/v1");
    let recorded: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("answers.json")).expect("recorded answers")).expect("answers.json parses");
    assert_eq!(recorded.len(), V1_CASES.len(), "answers.json and V1_CASES disagree: re-freeze on purpose or restore the cases");
    let mut failures = Vec::new();
    for (case, want) in V1_CASES.iter().zip(&recorded) {
        let engine = open_lazily(&dir.join("bundle"), case);
        let got = answer_case(&engine, case);
        if !same_json(&got, want) {
            failures.push(format!(
                "{} {}:\n  recorded {}\n  now      {}",
                case.call,
                case.request,
                serde_json::to_string(&want["answer"]).unwrap(),
                serde_json::to_string(&got["answer"]).unwrap()
            ));
        }
    }
    assert!(failures.is_empty(), "the frozen v1 bundle answers differently:\n{}", failures.join("\n"));
}

#[test]
fn frozen_v1_bundle_is_complete_and_every_shard_is_checked() {
    // Every listed shard is present and passes its checks; a flipped byte in any of them is
    // refused (the decoders of v1 payloads stay strict).
    let dir = repo_root().join("tests/frozen/v1/bundle");
    let manifest = std::fs::read(dir.join("manifest.json")).unwrap();
    let mut engine = Engine::new(&manifest).unwrap();
    for f in engine.all_files() {
        let bytes = std::fs::read(dir.join(&f)).unwrap();
        let mut bad = bytes.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x10;
        assert_eq!(engine.add_shard(&f, &bad).unwrap_err().code, "bundle_corrupt", "{f}");
        engine.add_shard(&f, &bytes).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
}

/// JSON equality, numbers within 1e-9 relative: the recorded file is parsed back by
/// serde_json, whose float parsing may be off by an ulp of the f64 (the engine's scores are
/// f32, so this is far below any real change).
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Object(x), Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w))),
        _ => a == b,
    }
}
