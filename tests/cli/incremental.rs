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
