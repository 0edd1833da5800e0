//! Write a frozen bundle and its recorded answers into `tests/frozen/v<N>/`, N being the
//! format version this build writes: `cargo run -p sift-tests --example freeze_bundle -- v2`.
//!
//! Run this only on purpose: when a new bundle format version is frozen, or when a ranking
//! change is deliberate (then say so in the commit). Older versions cannot be rewritten
//! (this build writes only the newest format); `tests/compat.rs` checks that the current
//! engine still opens every frozen bundle and answers exactly as recorded.

use sift_tests::frozen::{answer_case, cases_of, current_options, load_all};
use sift_tests::{corpus_docs, repo_root};

fn main() {
    let version = std::env::args().nth(1).unwrap_or_default();
    let current = format!("v{}", sift_format::FORMAT_VERSION);
    if version != current {
        eprintln!("usage: freeze_bundle {current} (this build writes format {current} only; older frozen bundles stay as they are)");
        std::process::exit(2);
    }
    let cases = cases_of(&version).expect("cases for the current version");
    let docs = corpus_docs();
    let built = sift_build::build(&docs, &current_options(&docs)).expect("corpus builds");
    let dir = repo_root().join("tests/frozen").join(&version);
    let bundle = dir.join("bundle");
    let _ = std::fs::remove_dir_all(&bundle);
    std::fs::create_dir_all(&bundle).expect("bundle dir");
    std::fs::write(bundle.join(sift_format::MANIFEST_FILE), built.manifest_bytes()).expect("manifest");
    for (name, bytes) in &built.shards {
        std::fs::write(bundle.join(name), bytes).expect("shard");
    }
    let mut engine = sift_engine::Engine::new(&built.manifest_bytes()).expect("opens");
    load_all(&mut engine, |f| built.shards.iter().find(|(n, _)| n == f).expect("built shard").1.clone());
    let answers: Vec<serde_json::Value> = cases.iter().map(|c| answer_case(&engine, c)).collect();
    let mut text = serde_json::to_string_pretty(&answers).expect("json");
    text.push('\n');
    std::fs::write(dir.join("answers.json"), text).expect("answers");
    eprintln!("froze {} shards and {} answers into {}", built.shards.len(), answers.len(), dir.display());
}
