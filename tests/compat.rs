//! Frozen bundles (like Pagefind's `frozen-pre-1.0/` and tantivy's `compat_tests.rs`):
//! `tests/frozen/<version>/bundle` was written by an earlier build of Sift and is never
//! rewritten. The current engine must still open it — lazily, from the files alone — and
//! give exactly the answers recorded in `answers.json` when it was frozen. A change that
//! breaks this must bump the bundle format version on purpose and freeze a new bundle
//! (`cargo run -p sift-tests --example freeze_bundle -- <version>`).

use sift_core::{Engine, MultiSearchRequest, SearchRequest, Step};
use sift_tests::frozen::{answer_case, cases_of, Case};
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
            let vector = case.embed.then(|| sift_tests::frozen::query_vector(engine, &req));
            unit(engine.search_with(&req, &ctx, vector.as_deref())?)
        }
        "multi_search" => unit(engine.multi_search(&MultiSearchRequest::from_json(case.request.as_bytes())?, &ctx)?),
        "get_document" => unit(engine.get_document(id)?),
        "related" => unit(engine.related(id, args["limit"].as_i64(), &ctx)?),
        other => panic!("unknown call {other}"),
    })
}

/// The frozen versions: `tests/frozen/v<N>`.
fn frozen_versions() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(repo_root().join("tests/frozen"))
        .expect("tests/frozen exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('v'))
        .collect();
    v.sort();
    v
}

#[test]
fn every_frozen_bundle_opens_and_answers_as_recorded() {
    let versions = frozen_versions();
    assert!(versions.contains(&"v1".to_string()), "{versions:?}");
    let mut failures = Vec::new();
    for version in &versions {
        let dir = repo_root().join("tests/frozen").join(version);
        let cases = cases_of(version).unwrap_or_else(|| panic!("no recorded cases for frozen {version}"));
        let recorded: Vec<serde_json::Value> =
            serde_json::from_slice(&std::fs::read(dir.join("answers.json")).expect("recorded answers")).expect("answers.json parses");
        assert_eq!(
            recorded.len(),
            cases.len(),
            "{version}: answers.json and the cases disagree: re-freeze on purpose or restore the cases"
        );
        for (case, want) in cases.iter().zip(&recorded) {
            let engine = open_lazily(&dir.join("bundle"), case);
            let got = answer_case(&engine, case);
            if !same_json(&got, want) {
                failures.push(format!(
                    "{version} {} {}:\n  recorded {}\n  now      {}",
                    case.call,
                    case.request,
                    serde_json::to_string(&want["answer"]).unwrap(),
                    serde_json::to_string(&got["answer"]).unwrap()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "a frozen bundle answers differently:\n{}", failures.join("\n"));
}

#[test]
fn every_frozen_bundle_is_complete_and_every_shard_is_checked() {
    // Every listed shard is present and passes its checks; a flipped byte in any of them is
    // refused (the decoders of older payloads stay strict).
    for version in frozen_versions() {
        let dir = repo_root().join("tests/frozen").join(&version).join("bundle");
        let manifest = std::fs::read(dir.join("manifest.json")).unwrap();
        let mut engine = Engine::new(&manifest).unwrap();
        let mut checked = std::collections::BTreeSet::new();
        loop {
            let files: Vec<String> = engine.all_files().into_iter().filter(|f| !checked.contains(f)).collect();
            if files.is_empty() {
                break;
            }
            for f in files {
                let bytes = std::fs::read(dir.join(&f)).unwrap_or_else(|e| panic!("{version} {f}: {e}"));
                let mut bad = bytes.clone();
                let mid = bad.len() / 2;
                bad[mid] ^= 0x10;
                assert_eq!(engine.add_shard(&f, &bad).unwrap_err().code, "bundle_corrupt", "{version} {f}");
                engine.add_shard(&f, &bytes).unwrap_or_else(|e| panic!("{version} {f}: {e}"));
                checked.insert(f);
            }
        }
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
            // The contract's scores are f32: answers recorded through serde hold their f64
            // widening (0.857200026512146), the engine's own writer their shortest form
            // (0.8572). Both are the same f32.
            x == y || (x as f32) == (y as f32) || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Object(x), Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w))),
        _ => a == b,
    }
}
