//! `sift build --incremental`: a CI build that reads only what changed since the last full
//! build, written as a delta beside it (`sift/src/delta.rs`), and builds in full when it
//! cannot.

use super::*;

/// `sift build` with these arguments (its own cache folder, so the record of earlier builds
/// is this test's): its stderr.
fn build(cache: &std::path::Path, args: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sift"))
        .arg("build")
        .args(args)
        .env("SIFT_CACHE_DIR", cache)
        .output()
        .expect("sift runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

fn cli_ids(bundle: &std::path::Path, q: &str) -> Vec<String> {
    let o = sift_tests::run_sift(env!("CARGO_BIN_EXE_sift"), &["search", bundle.to_str().unwrap(), q, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    v["results"].as_array().expect("results").iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn an_incremental_build_writes_only_the_change_and_builds_in_full_when_it_cannot() {
    let d = scratch("cli-incremental");
    let (site, out, cache) = (d.join("site"), d.join("bundle"), d.join("cache"));
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("a.md"), "# Alpha\n\nThe wombat page.\n").unwrap();
    std::fs::write(site.join("b.md"), "# Beta\n\nThe heron page.\n").unwrap();
    std::fs::write(site.join("c.md"), "# Gamma\n\nThe ibis page.\n").unwrap();
    let (s, o) = (site.to_str().unwrap(), out.to_str().unwrap());
    let args = [s, "--out", o, "--no-embedder", "--incremental"];
    assert!(build(&cache, &args).contains("building every page: no earlier build"));
    // An edit and a deletion: only they are read, as a delta beside the full build.
    std::fs::write(site.join("a.md"), "# Alpha\n\nThe platypus page.\n").unwrap();
    std::fs::remove_file(site.join("b.md")).unwrap();
    let said = build(&cache, &args);
    assert!(said.contains("1 page(s) changed since the last full build") && said.contains("2 replaced or removed"), "{said}");
    assert_eq!(cli_ids(&out, "platypus"), ["a.md"]);
    assert!(cli_ids(&out, "wombat").is_empty() && cli_ids(&out, "heron").is_empty());
    assert_eq!(cli_ids(&out, "ibis"), ["c.md"]);
    // Nothing changed since: the same delta, written again.
    assert!(build(&cache, &args).contains("1 page(s) changed since the last full build"));
    // Other settings: every page, and no delta.
    let said = build(&cache, &[s, "--out", o, "--no-embedder", "--incremental", "--k1", "1.2"]);
    assert!(said.contains("building every page: the build's settings changed"), "{said}");
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(!manifest.contains("\"delta\""), "a full build has no delta");
    // A bundle another build replaced is not added to.
    build(&cache, &[s, "--out", o, "--no-embedder"]);
    let said = build(&cache, &[s, "--out", o, "--no-embedder", "--incremental", "--k1", "1.2"]);
    assert!(said.contains("building every page: the bundle at --out is not the one the last build wrote"), "{said}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_watcher_merges_a_large_change_in_the_background_and_answers_meanwhile() {
    let d = scratch("cli-watch-merge");
    let (site, out) = (d.join("site"), d.join("bundle"));
    std::fs::create_dir_all(&site).unwrap();
    let page = |i: usize, word: &str| format!("# Page {i}\n\nThe {word} page number {i}.\n");
    for i in 0..80 {
        std::fs::write(site.join(format!("p{i}.md")), page(i, "wombat")).unwrap();
    }
    let log = d.join("log");
    let child = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["watch", site.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-embedder", "-q", "--poll-ms", "50"])
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("sift watch runs");
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
        }
    }
    let _child = Kill(child);
    let until = |what: &str, done: &dyn Fn() -> bool| {
        let t = std::time::Instant::now();
        while !done() {
            assert!(t.elapsed().as_secs() < 60, "{what}: {}", std::fs::read_to_string(&log).unwrap_or_default());
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    until("the first build", &|| out.join("manifest.json").exists());
    // 70 of 80 pages changed: past the delta's size, so the site is built again in the
    // background while the change is written as a delta and answers at once.
    for i in 0..70 {
        std::fs::write(site.join(format!("p{i}.md")), page(i, "heron")).unwrap();
    }
    let total = |q: &str| json(&sift(&["search", out.to_str().unwrap(), q, "--json"]))["total"].as_u64();
    until("the change answers", &|| total("heron") == Some(70));
    until("the merge", &|| std::fs::read_to_string(&log).unwrap_or_default().contains("merged: built 80 documents in the background"));
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(!manifest.contains("\"delta\""), "the merged bundle has no delta");
    assert_eq!((total("heron"), total("wombat")), (Some(70), Some(10)));
    let left: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "the merge's folders are gone: {left:?}");
}
