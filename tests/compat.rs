//! The frozen bundle (like Pagefind's `frozen-pre-1.0/` and tantivy's `compat_tests.rs`):
//! `tests/frozen/v<N>/bundle` was written when format N was frozen and is never rewritten
//! by accident. The engine must open it — lazily, from the files alone — and give exactly
//! the answers recorded in `answers.json`. A change that breaks this bumps the format
//! version on purpose and freezes a new bundle in place of the old one
//! (`cargo run -p sift-tests --example freeze_bundle -- v<N>`). A bundle of an older format
//! is refused with a message that says to rebuild it (`tests/frozen/older-format/`).

use sift_engine::{Engine, MultiSearchRequest, SearchRequest, Step};
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
fn answer_step(engine: &Engine, case: &Case) -> Result<Step<()>, sift_engine::SiftError> {
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

fn frozen_dir() -> std::path::PathBuf {
    repo_root().join("tests/frozen").join(format!("v{}", sift_format::FORMAT_VERSION))
}

#[test]
fn the_frozen_bundle_opens_and_answers_as_recorded() {
    let version = format!("v{}", sift_format::FORMAT_VERSION);
    let dir = frozen_dir();
    let cases = cases_of(&version).expect("cases of the current format");
    let recorded: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("answers.json")).expect("the frozen bundle of the current format and its answers"))
            .expect("answers.json parses");
    assert_eq!(recorded.len(), cases.len(), "answers.json and the cases disagree: re-freeze on purpose or restore the cases");
    let mut failures = Vec::new();
    for (case, want) in cases.iter().zip(&recorded) {
        let engine = open_lazily(&dir.join("bundle"), case);
        let got = answer_case(&engine, case);
        if got != *want {
            failures.push(format!(
                "{} {}:\n  recorded {}\n  now      {}",
                case.call,
                case.request,
                serde_json::to_string(&want["answer"]).unwrap(),
                serde_json::to_string(&got["answer"]).unwrap()
            ));
        }
    }
    assert!(failures.is_empty(), "the frozen bundle answers differently:\n{}", failures.join("\n"));
}

#[test]
fn the_frozen_bundle_is_complete_and_every_shard_is_checked() {
    // Every listed shard is present and passes its checks; a flipped byte in any of them is
    // refused.
    let dir = frozen_dir().join("bundle");
    let manifest = std::fs::read(dir.join("manifest.json")).unwrap();
    let mut engine = Engine::new(&manifest).unwrap();
    let mut checked = std::collections::BTreeSet::new();
    loop {
        let files: Vec<String> = engine.all_files().into_iter().filter(|f| !checked.contains(f)).collect();
        if files.is_empty() {
            break;
        }
        for f in files {
            let bytes = std::fs::read(dir.join(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            let mut bad = bytes.clone();
            let mid = bad.len() / 2;
            bad[mid] ^= 0x10;
            assert_eq!(engine.add_shard(&f, &bad).unwrap_err().code, "bundle_corrupt", "{f}");
            engine.add_shard(&f, &bytes).unwrap_or_else(|e| panic!("{f}: {e}"));
            checked.insert(f);
        }
    }
}

#[test]
fn a_bundle_of_an_older_format_is_refused_with_a_message_to_rebuild_it() {
    let manifest = std::fs::read(repo_root().join("tests/frozen/older-format/manifest.json")).expect("an older bundle's manifest");
    let e = Engine::new(&manifest).err().expect("refused");
    assert_eq!(e.code, "bundle_version");
    assert!(e.message.contains("format 13") && e.message.contains("rebuild it with `sift build`"), "{}", e.message);
    // Every current format's own bundle is not.
    let frozen = std::fs::read(frozen_dir().join("bundle/manifest.json")).unwrap();
    assert!(Engine::new(&frozen).is_ok());
}
