//! Every checked-in seed (`fuzz/seeds/<target>/`) and every input that once crashed a
//! fuzz target (`fuzz/regressions/<target>/`) goes through the target's body again, on
//! stable Rust without libFuzzer: a fixed crash stays fixed.

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn replay(kind: &str) -> usize {
    let mut n = 0;
    for (name, body) in sift_fuzz::TARGETS {
        let dir = fuzz_dir().join(kind).join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).expect("input readable");
            eprintln!("replaying {}", f.display());
            body(&bytes);
            n += 1;
        }
    }
    n
}

#[test]
fn every_seed_runs_clean() {
    let n = replay("seeds");
    assert!(n >= 40, "expected the checked-in seed corpora, found {n} inputs");
}

#[test]
fn every_past_crash_runs_clean() {
    let n = replay("regressions");
    assert!(n >= 2, "expected the checked-in crash regressions, found {n} inputs");
}

#[test]
fn every_folder_names_a_target() {
    for kind in ["seeds", "regressions"] {
        for e in std::fs::read_dir(fuzz_dir().join(kind)).expect("fuzz folder") {
            let name = e.expect("entry").file_name().to_string_lossy().into_owned();
            assert!(sift_fuzz::target(&name).is_some(), "fuzz/{kind}/{name} is not a fuzz target");
        }
    }
}
