//! Helpers shared by the integration tests: the seed-pain corpus, an engine over it, the
//! `sift` binary, and where `../shared` is (when it is there).

use sift_base::date::days_from_civil;
use sift_base::SourceDoc;
use sift_build::{BuildOptions, BuiltBundle};
use sift_engine::{Context, Engine, SearchRequest, SearchResponse, SiftError, Step};
use std::path::{Path, PathBuf};

#[path = "frozen_cases.rs"]
pub mod frozen;

/// Build a bundle in memory and open an engine over it with every shard loaded: the
/// shortest path from documents to answers.
pub fn engine_from_docs(docs: &[SourceDoc], opts: &BuildOptions) -> Result<Engine, SiftError> {
    let built = sift_build::build(docs, opts)?;
    let mut eng = Engine::new(&built.manifest_bytes())?;
    for (name, bytes) in &built.shards {
        eng.add_shard(name, bytes)?;
    }
    Ok(eng)
}

/// The repository root, found from the running test's package (cargo sets
/// `CARGO_MANIFEST_DIR` at run time): the compile-time value can name another clone, because
/// cargo reuses this library's build from a shared target directory whatever the clone's path.
pub fn repo_root() -> PathBuf {
    let runtime = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let start = runtime.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    start
        .ancestors()
        .find(|p| p.join("tests/corpus").is_dir() && p.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf())
}

/// The small docs set in tests/corpus, extracted like `sift build` does.
pub fn corpus_docs() -> Vec<SourceDoc> {
    let root = repo_root().join("tests/corpus");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("corpus readable") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            sift_extract::markdown::extract(&std::fs::read(p).unwrap(), &rel, "/").expect("corpus page extracts").0
        })
        .collect()
}

pub fn corpus_engine() -> Engine {
    engine_from_docs(&corpus_docs(), &BuildOptions::default()).expect("corpus builds")
}

/// "Today" for the tests: fixed, so `since: 7d` means the same thing every run.
pub fn ctx() -> Context {
    Context { now_days: days_from_civil(2026, 11, 22) }
}

pub fn run(engine: &Engine, req: &SearchRequest) -> Result<SearchResponse, SiftError> {
    match engine.search(req, &ctx())? {
        Step::Done(r) => Ok(r),
        Step::Need(f) => panic!("engine with every shard loaded asked for {f:?}"),
    }
}

/// `req` answered by a cold engine over `built` through the host loop: the answer, and the
/// files the engine asked for, round by round.
pub fn cold_search(built: &BuiltBundle, req: &SearchRequest) -> (SearchResponse, Vec<Vec<String>>) {
    let mut e = Engine::new(&built.manifest_bytes()).unwrap();
    let mut rounds: Vec<Vec<String>> = Vec::new();
    loop {
        match e.search(req, &ctx()).unwrap() {
            Step::Done(r) => return (r, rounds),
            Step::Need(files) => {
                assert!(!files.is_empty());
                for f in &files {
                    let bytes = &built.shards.iter().find(|(n, _)| n == f).unwrap_or_else(|| panic!("no shard {f}")).1;
                    e.add_shard(f, bytes).unwrap();
                }
                rounds.push(files);
            }
        }
        assert!(rounds.len() < 50, "no endless loop: {rounds:?}");
    }
}

/// Search with a JSON request.
pub fn search_json(engine: &Engine, json: &str) -> Result<SearchResponse, SiftError> {
    run(engine, &SearchRequest::from_json(json.as_bytes())?)
}

pub fn search(engine: &Engine, q: &str) -> SearchResponse {
    run(engine, &SearchRequest::new(q)).unwrap_or_else(|e| panic!("{q:?}: {e}"))
}

pub fn ids(r: &SearchResponse) -> Vec<&str> {
    r.results.iter().map(|x| x.id.as_str()).collect()
}

/// Run the `sift` binary under test (`env!("CARGO_BIN_EXE_sift")` of the calling test
/// target). Whatever the exit status, it must never panic.
pub fn run_sift(bin: &str, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new(bin).args(args).output().expect("sift runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "sift {args:?} panicked: {stderr}");
    out
}

/// A test that cannot test (its data or the model is missing): under CI (`CI` set) that is
/// a failure, since CI always has them; elsewhere the test says what it skipped and returns.
pub fn cannot_test(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI is set and this test cannot run: {why}");
    }
    eprintln!("skipped: {why}");
}

/// `../shared` beside the repository, when present (CI has it; a fresh clone may not).
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().parent()?.join("shared");
    p.join("data").is_dir().then_some(p)
}

/// A fresh scratch directory under the target dir.
pub fn scratch(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test exe path");
    let d = exe.parent().unwrap().join("scratch").join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The cargo target directory (`CARGO_TARGET_DIR`, else `target/` in the repository):
/// where tests leave artifacts for the Node test runs.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target"))
}

/// (year, month, day) of a day count since 1970-01-01 (the format's own inverse of
/// `days_from_civil`).
pub use sift_base::date::civil_from_days;

/// A value the engine wrote (`sift_base::json`), read back by serde_json (the independent
/// reader the tests compare against).
pub fn value(j: &sift_base::json::Json) -> serde_json::Value {
    serde_json::from_str(&j.to_text()).unwrap_or_else(|e| panic!("the engine wrote invalid JSON ({e}): {}", j.to_text()))
}

/// The real model as the builder calls it (`sift_build::semantic::embed::Model`).
pub fn model(e: &sift_embed::model::Embedder) -> sift_build::semantic::embed::Model<'_> {
    sift_build::semantic::embed::Model { tokenizer: e.tokenizer().clone(), dim: e.dim, embed: Box::new(move |ids| e.embed_one(ids)) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates_round_trip() {
        for days in [-1, 0, 59, 60, 365, 10_957, 20_000, 20_414, 30_000] {
            let (y, m, d) = super::civil_from_days(days);
            assert_eq!(sift_base::date::days_from_civil(y, m, d), days, "{days} → {y}-{m}-{d}");
        }
    }
}
