//! End-to-end: the `sift` binary on real files — build, search, eval — including bad input,
//! corrupt bundles, hostile pages, determinism and atomic replacement.

use sift_tests::*;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn sift(args: &[&str]) -> Output {
    run_sift(env!("CARGO_BIN_EXE_sift"), args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

/// A bundle's manifest, as JSON.
fn manifest(bundle: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(bundle.join("manifest.json")).unwrap()).unwrap()
}

/// The ids `sift search` answers `q` with, best first.
fn search_ids(bundle: &Path, q: &str) -> Vec<String> {
    let o = sift(&["search", bundle.to_str().unwrap(), q, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    json(&o)["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

fn build_corpus(out: &Path) {
    let corpus = repo_root().join("tests/corpus");
    // Keyword-only: these tests check the lexical contract (tests/semantic.rs and
    // tests/relevance.rs cover bundles with vectors).
    let o = sift(&["build", corpus.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--no-embedder"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn dir_bytes(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn build_then_search_json_speaks_the_contract() {
    let d = scratch("cli-search");
    let b = d.join("bundle");
    build_corpus(&b);
    assert!(b.join("manifest.json").exists());
    let o = sift(&["search", b.to_str().unwrap(), "does agentroot have mcp?", "--json"]);
    assert!(o.status.success());
    let v = json(&o);
    assert_eq!(v["results"][0]["id"], "guides/mcp-server.md");
    for key in ["results", "total", "limit", "offset", "has_more", "query", "search_type"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["search_type"], "lexical");
    // Human output, filters and multi-search.
    let o = sift(&["search", b.to_str().unwrap(), "agentroot", "--filter", "type=guide", "--limit", "2"]);
    let text = stdout(&o);
    assert!(text.contains("4 results") && text.contains("more: --offset 2"), "{text}");
    let o = sift(&["search", b.to_str().unwrap(), "--multi", "cache", "--multi", "memo", "--json"]);
    let v = json(&o);
    assert_eq!(v["queries"].as_array().unwrap().len(), 2);
}

#[test]
fn an_identifier_shows_its_definition_in_json_and_in_text() {
    let d = scratch("cli-definitions");
    let b = d.join("bundle");
    let api = repo_root().join("tests/browser/fixtures/api");
    assert!(sift(&["build", api.to_str().unwrap(), "--out", b.to_str().unwrap(), "-q", "--no-embedder"]).status.success());
    let v = json(&sift(&["search", b.to_str().unwrap(), "os::getcwd", "--json"]));
    assert_eq!(
        v["results"][0]["definition"],
        serde_json::json!({"path": "os.getcwd", "kind": "function", "url": "library/os.html#os.getcwd"})
    );
    let text = stdout(&sift(&["search", b.to_str().unwrap(), "os.getcwd"]));
    assert!(text.contains("↳ os.getcwd (function)  [library/os.html#os.getcwd]"), "{text}");
}

#[test]
fn bad_input_exits_with_clear_errors() {
    let d = scratch("cli-bad");
    let b = d.join("bundle");
    build_corpus(&b);
    let bs = b.to_str().unwrap();
    for (args, code) in [
        (vec!["search", bs, "x", "--limit", "0", "--json"], "invalid_limit"),
        (vec!["search", bs, "x", "--limit", "500", "--json"], "invalid_limit"),
        (vec!["search", bs, "", "--json"], "empty_query"),
        (vec!["search", bs, "x", "--filter", "colour=red", "--json"], "unknown_filter"),
        (vec!["search", bs, "x", "--filter", "nonsense", "--json"], "invalid_filter"),
    ] {
        let o = sift(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(json(&o)["error"]["code"], code, "{args:?}");
    }
    let huge = "a".repeat(20 * 1024);
    let o = sift(&["search", bs, &huge, "--json"]);
    assert_eq!(json(&o)["error"]["code"], "query_too_long");
    // A missing bundle.
    let o = sift(&["search", d.join("nope").to_str().unwrap(), "x"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no Sift bundle"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Shard sizes trade bytes per query against files; they never change an answer.
#[test]
fn shard_sizes_change_the_files_not_the_answers() {
    let d = scratch("cli-shard-sizes");
    // The corpus twice over (its pages and a copy under `again/`): enough postings for
    // several 1 kB term shards, which are cut between half and 1.5 times the target.
    let corpus = d.join("corpus");
    copy_tree(&repo_root().join("tests/corpus"), &corpus);
    copy_tree(&repo_root().join("tests/corpus"), &corpus.join("again"));
    let (small, large) = (d.join("small"), d.join("large"));
    for (out, kb) in [(&small, "1"), (&large, "4096")] {
        let o = sift(&[
            "build",
            corpus.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--no-embedder",
            "--term-shard-kb",
            kb,
            "--doc-shard-kb",
            kb,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let count = |dir: &Path, prefix: &str| dir_bytes(dir).iter().filter(|(n, _)| n.starts_with(prefix)).count();
    assert!(count(&small, "t-") > count(&large, "t-") && count(&large, "t-") == 1, "term shards");
    assert!(count(&small, "d-") > count(&large, "d-") && count(&large, "d-") == 1, "doc shards");
    for q in ["agentroot", "cache memo", "\"mcp server\"", "deploy the site", "agentrot"] {
        let answer = |dir: &Path| {
            let mut v = json(&sift(&["search", dir.to_str().unwrap(), q, "--json", "--limit", "20"]));
            v.as_object_mut().expect("a response object").remove("timings_ms");
            v
        };
        assert_eq!(answer(&small), answer(&large), "{q}");
    }
    // Sizes outside 1 kB to 64 MB are refused before anything is built.
    for bad in ["0", "-3", "65537", "lots"] {
        let out = d.join("bad");
        let flag = format!("--term-shard-kb={bad}");
        let o = sift(&["build", corpus.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q", "--no-embedder", &flag]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("expected a size in kB from 1 to 65536"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!out.exists(), "nothing is written for {bad}");
    }
}

#[test]
fn a_corrupt_shard_is_refused_with_a_clear_error() {
    let d = scratch("cli-corrupt");
    let b = d.join("bundle");
    build_corpus(&b);
    // Flip bytes in every term shard: whichever the query needs is corrupt.
    for e in fs::read_dir(&b).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("t-") {
            let mut bytes = fs::read(&p).unwrap();
            let n = bytes.len();
            bytes[n / 2] ^= 0x55;
            bytes[n - 1] ^= 0x55;
            fs::write(&p, bytes).unwrap();
        }
    }
    let o = sift(&["search", b.to_str().unwrap(), "cache", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["error"]["code"], "bundle_corrupt");
    // Term shards are named by rule (format 6): no manifest checksum, so what refuses a
    // flipped byte is that the shard does not inflate, or fails its payload checksum.
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with("shard t-") && (msg.contains("checksum") || msg.contains("does not decompress")), "{v}");
    // A truncated manifest.
    let m = fs::read(b.join("manifest.json")).unwrap();
    fs::write(b.join("manifest.json"), &m[..m.len() / 3]).unwrap();
    let o = sift(&["search", b.to_str().unwrap(), "cache", "--json"]);
    assert_eq!(json(&o)["error"]["code"], "bundle_corrupt");
}

#[test]
fn a_bundle_of_an_older_format_is_refused_with_a_message_to_rebuild_it() {
    let older = sift_tests::repo_root().join("tests/frozen/older-format");
    let o = sift(&["search", older.to_str().unwrap(), "cache", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["error"]["code"], "bundle_version");
    assert!(v["error"]["message"].as_str().unwrap().contains("rebuild it with `sift build`"), "{v}");
    let o = sift(&["search", older.to_str().unwrap(), "cache"]);
    assert_eq!(o.status.code(), Some(1));
    let expected = format!("format 13 and this sift reads format {}: rebuild it", sift_format::FORMAT_VERSION);
    assert!(String::from_utf8_lossy(&o.stderr).contains(&expected));
}

#[test]
fn eval_takes_ranking_parameters_by_name_and_refuses_unknown_ones() {
    let d = scratch("cli-eval-param");
    let b = d.join("bundle");
    build_corpus(&b);
    fs::write(d.join("q.jsonl"), "{\"_id\": \"1\", \"text\": \"cache\"}\n").unwrap();
    fs::write(d.join("qrels.tsv"), "query-id\tcorpus-id\tscore\n1\treference/cache.md\t1\n").unwrap();
    let eval = |param: &str| {
        let (q, r) = (d.join("q.jsonl"), d.join("qrels.tsv"));
        sift(&["eval", b.to_str().unwrap(), "--queries", q.to_str().unwrap(), "--qrels", r.to_str().unwrap(), "--json", "--param", param])
    };
    let o = eval("proximity=0.25");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(json(&o)["mrr@10"], 1.0);
    for bad in ["no_such=1", "proximity=lots", "hybrid=0.5", "proximity"] {
        let o = eval(bad);
        assert!(!o.status.success(), "{bad} accepted");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--param"), "{bad}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn html_with_script_text_is_indexed_as_text_and_shown_escaped() {
    let d = scratch("cli-html");
    let site = d.join("site");
    fs::create_dir_all(site.join("docs")).unwrap();
    fs::write(
        site.join("docs/xss.html"),
        r#"<html><head><title>XSS &amp; you</title></head><body><nav>menu</nav><main><h1>Hostile <em>page</em></h1>
        <p>Text mentions &lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(2)&gt; literally.</p>
        <script>document.write("injected")</script></main></body></html>"#,
    )
    .unwrap();
    fs::write(site.join("index.html"), "<html><body><main><h1>Home</h1><p>Welcome.</p></main></body></html>").unwrap();
    fs::write(site.join("binary.html"), b"\x89PNG\r\n\x1a\n\x00\x00\x00").unwrap();
    let b = d.join("out");
    let o = sift(&["build", site.to_str().unwrap(), "--out", b.to_str().unwrap(), "--no-embedder"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("binary.html: looks binary"), "skips with a warning");
    let v = json(&sift(&["search", b.to_str().unwrap(), "alert onerror", "--json"]));
    let r = &v["results"][0];
    assert_eq!(r["id"], "docs/xss.html");
    assert_eq!(r["url"], "docs/xss.html");
    let snippet = r["snippet"].as_str().unwrap().replace("<mark>", "").replace("</mark>", "");
    assert!(!snippet.contains('<') && snippet.contains("&lt;script&gt;"), "{snippet}");
    assert_eq!(r["title"], "Hostile page");
    let v = json(&sift(&["search", b.to_str().unwrap(), "injected", "--json"]));
    assert_eq!(v["total"], 0, "script bodies are not content");
    let v = json(&sift(&["search", b.to_str().unwrap(), "menu", "--json"]));
    assert_eq!(v["total"], 0, "navigation is not content");
}

#[test]
fn builds_are_deterministic_and_atomic() {
    let d = scratch("cli-atomic");
    let (a, b) = (d.join("a"), d.join("b"));
    build_corpus(&a);
    build_corpus(&b);
    assert_eq!(dir_bytes(&a), dir_bytes(&b), "same input, same bytes");
    // Rebuilding over an existing bundle replaces it.
    build_corpus(&a);
    assert_eq!(dir_bytes(&a), dir_bytes(&b));
    // A failing build (bad JSONL line) leaves the previous bundle as it was, no temp dirs.
    let bad = d.join("bad.jsonl");
    fs::write(&bad, "{\"_id\": \"1\", \"text\": \"ok\"}\n{not json}\n").unwrap();
    let o = sift(&["build", bad.to_str().unwrap(), "--out", a.to_str().unwrap(), "--quiet"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.jsonl:2"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(dir_bytes(&a), dir_bytes(&b));
    let leftovers: Vec<_> =
        fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with('.')).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A directory that is not a bundle is never replaced.
    let site = d.join("site");
    fs::create_dir_all(&site).unwrap();
    fs::write(site.join("index.html"), "<main><p>precious</p></main>").unwrap();
    let corpus = repo_root().join("tests/corpus");
    let o = sift(&["build", corpus.to_str().unwrap(), "--out", site.to_str().unwrap(), "--quiet"]);
    assert!(!o.status.success());
    assert!(site.join("index.html").exists());
}

#[test]
fn the_bundle_can_live_inside_the_site_it_indexes() {
    let d = scratch("cli-inside");
    let site = d.join("public");
    fs::create_dir_all(&site).unwrap();
    fs::write(site.join("page.md"), "# Page\ntext about widgets\n").unwrap();
    let out = site.join("_sift");
    for _ in 0..2 {
        let o = sift(&["build", site.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--no-embedder"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let v = json(&sift(&["search", out.to_str().unwrap(), "widgets", "--json"]));
    assert_eq!(v["total"], 1);
}

#[test]
fn eval_prints_the_metrics() {
    let d = scratch("cli-eval");
    fs::write(d.join("corpus.jsonl"), "{\"_id\":\"1\",\"title\":\"wing lift\",\"text\":\"lift of a wing\"}\n{\"_id\":\"2\",\"title\":\"drag\",\"text\":\"drag of a body\"}\n").unwrap();
    fs::write(d.join("queries.jsonl"), "{\"_id\":\"q1\",\"text\":\"wing lift\"}\n{\"_id\":\"q2\",\"text\":\"body drag\"}\n").unwrap();
    fs::write(d.join("qrels.tsv"), "query-id\tcorpus-id\tscore\nq1\t1\t2\nq2\t2\t1\n").unwrap();
    let b = d.join("b");
    assert!(sift(&["build", d.join("corpus.jsonl").to_str().unwrap(), "--out", b.to_str().unwrap(), "-q", "--no-embedder"])
        .status
        .success());
    let o = sift(&[
        "eval",
        b.to_str().unwrap(),
        "--queries",
        d.join("queries.jsonl").to_str().unwrap(),
        "--qrels",
        d.join("qrels.tsv").to_str().unwrap(),
        "--json",
    ]);
    let v = json(&o);
    assert_eq!(v["queries"], 2);
    assert_eq!(v["ndcg@10"], 1.0);
    assert_eq!(v["mrr@10"], 1.0);
    assert_eq!(v["recall@100"], 1.0);
    assert_eq!(v["map@100"], 1.0);
}

/// Hostile sources: each is a clean skip with a warning (or a clear error), and the good
/// pages beside them still index. The disk-full case needs root (a small tmpfs) and says
/// when it is skipped.
#[test]
fn hostile_sources_are_skipped_with_warnings_and_good_pages_still_index() {
    let d = scratch("cli-hostile");
    let site = d.join("site");
    fs::create_dir_all(site.join("sub")).unwrap();
    fs::write(site.join("good.html"), "<main><h1>Good</h1><p>zebrafinch page words</p></main>").unwrap();
    fs::write(site.join("badutf8.html"), b"<main><h1>Bad \xff\xfe bytes</h1><p>quokka caf\xe9</p></main>".as_slice()).unwrap();
    let mut binary = b"\x89PNG\r\n\x1a\n\x00\x00\x00".to_vec();
    binary.extend((0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
    fs::write(site.join("binary.html"), &binary).unwrap();
    let depth = 60_000;
    fs::write(site.join("deep.html"), format!("<main>{}deep{}</main>", "<div>".repeat(depth), "</div>".repeat(depth))).unwrap();
    fs::write(site.join("big.html"), format!("<main><p>{}</p></main>", "lorem ipsum ".repeat(80_000))).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", site.join("sub/loop")).unwrap();
    let out = d.join("out");
    let t = std::time::Instant::now();
    let o = sift(&["build", site.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-embedder", "--max-file-bytes", "800000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(t.elapsed().as_secs() < 20, "no page may stall the build");
    assert!(err.contains("binary.html: looks binary"), "{err}");
    assert!(err.contains("badutf8.html: invalid UTF-8"), "{err}");
    assert!(err.contains("deep.html: elements nested about"), "{err}");
    assert!(err.contains("big.html:") && err.contains("over the 800000 byte limit"), "{err}");
    let found = json(&sift(&["search", out.to_str().unwrap(), "zebrafinch", "--json"]));
    assert_eq!(found["results"][0]["id"], "good.html");
    let found = json(&sift(&["search", out.to_str().unwrap(), "quokka", "--json"]));
    assert_eq!(found["results"][0]["id"], "badutf8.html", "a page with bad bytes keeps its good text");
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_previous_bundle_survives() {
    let d = scratch("cli-diskfull");
    let full = d.join("full");
    fs::create_dir_all(&full).unwrap();
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=128k", "tmpfs", full.to_str().unwrap()]).output();
    if !mounted.map(|o| o.status.success()).unwrap_or(false) {
        sift_tests::cannot_test("cannot mount a small tmpfs here (needs root) to simulate a full disk");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).output();
        }
    }
    let _unmount = Unmount(&full);
    let out = full.join("_sift");
    // A small bundle fits; a large one does not. The small one must survive the failure.
    build_corpus(&out);
    let before = dir_bytes(&out);
    let big = d.join("big.jsonl");
    let mut lines = String::new();
    for i in 0..3000 {
        lines.push_str(&format!(
            "{{\"_id\": \"d{i}\", \"title\": \"doc {i}\", \"text\": \"{}\"}}\n",
            format!("word{i} filler{} ", i * 7).repeat(20)
        ));
    }
    fs::write(&big, lines).unwrap();
    let o = sift(&["build", big.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--no-embedder"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("No space left") || err.contains("disk full"), "{err}");
    assert_eq!(dir_bytes(&out), before, "the previous bundle is untouched");
    let leftovers: Vec<_> =
        fs::read_dir(&full).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n != "_sift").collect();
    assert!(leftovers.is_empty(), "no temp dirs left: {leftovers:?}");
}

#[test]
fn files_vanishing_mid_build_are_skipped_and_the_bundle_stays_whole() {
    // A site being rebuilt while `sift build` reads it: pages disappear between the walk
    // and the read, or before the walk reaches their folder. Whatever the timing, the build
    // either succeeds with a bundle that opens (pages it could not read are warnings) or
    // fails with a clear error and leaves the previous bundle as it was. Never a panic,
    // never a half-written bundle.
    let d = scratch("cli-vanish");
    let out = d.join("out");
    build_corpus(&out);
    let mut skipped_total = 0;
    for (round, delay_ms) in [0u64, 5, 20, 60].into_iter().enumerate() {
        let site = d.join(format!("site{round}"));
        for i in 0..600 {
            let dir = site.join(format!("part{}", i % 12));
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(format!("p{i}.md")), format!("# Page {i}\n\nvanishword{i} common text {}\n", "filler ".repeat(i % 50)))
                .unwrap();
        }
        let before = dir_bytes(&out);
        let child = Command::new(env!("CARGO_BIN_EXE_sift"))
            .args(["build", site.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-embedder", "--quiet"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        // Delete whole folders and single pages, from the end (the walk runs in name order).
        for part in (0..12).rev() {
            let dir = site.join(format!("part{part}"));
            if part % 3 == 0 {
                let _ = fs::remove_dir_all(&dir);
            } else {
                for i in (0..600).rev().filter(|i| i % 12 == part) {
                    let _ = fs::remove_file(dir.join(format!("p{i}.md")));
                }
            }
        }
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "round {round}: {err}");
        if o.status.success() {
            let r = json(&sift(&["search", out.to_str().unwrap(), "common", "--json", "--limit", "1"]));
            let total = r["total"].as_u64().expect("the new bundle answers");
            assert!(total <= 600, "round {round}: {total} documents");
            skipped_total += err.matches("cannot be read").count();
            eprintln!(
                "round {round} (+{delay_ms} ms): built, {total} pages indexed, {} skipped as vanished",
                err.matches("cannot be read").count()
            );
        } else {
            assert!(err.contains("error") && !err.trim().is_empty(), "round {round}: unclear failure: {err}");
            assert_eq!(dir_bytes(&out), before, "round {round}: a failed build must leave the previous bundle as it was");
            eprintln!("round {round} (+{delay_ms} ms): failed cleanly: {}", err.lines().next().unwrap_or(""));
        }
        let leftovers: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.') || n.contains("tmp"))
            .collect();
        assert!(leftovers.is_empty(), "round {round}: temp dirs left: {leftovers:?}");
    }
    eprintln!("{skipped_total} pages vanished between the walk and the read over all rounds");
}

#[test]
fn a_site_in_several_languages_builds_a_bundle_per_language_each_stemmed_its_way() {
    let d = scratch("cli-languages");
    let site = d.join("site");
    let page = |name: &str, lang: &str, title: &str, body: &str| {
        let html = format!(
            "<html lang=\"{lang}\"><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{body}</p></main></body></html>"
        );
        fs::create_dir_all(site.join(name).parent().unwrap()).unwrap();
        fs::write(site.join(name), html).unwrap();
    };
    page("en/a.html", "en", "Configuring packages", "Configurations are files.");
    page("en/b.html", "en-US", "Networks", "Interfaces and routes.");
    page("en/c.html", "en", "Users", "Accounts and groups.");
    page("fr/a.html", "fr", "Configurer les paquets", "Les configurations sont des fichiers.");
    page("ru/a.html", "ru", "Настройка пакетов", "Документация по установке пакетов.");
    page("xx/a.html", "xx", "Zorblat", "Zorblats zorblatting.");
    let b = d.join("b");
    let o = sift(&["build", site.to_str().unwrap(), "--out", b.to_str().unwrap(), "--no-embedder"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no stemmer for the language \"xx\""), "{err}");
    let main = manifest(&b);
    assert_eq!(main["language"], "en");
    assert_eq!(main["languages"], serde_json::json!({"fr": "fr/", "ru": "ru/", "xx": "xx/"}));
    assert_eq!(search_ids(&b.join("fr"), "configuration"), ["fr/a.html"], "French stemming");
    assert_eq!(search_ids(&b.join("ru"), "документация"), ["ru/a.html"], "Russian stemming: документации is документация");
    assert_eq!(search_ids(&b.join("ru"), "пакет"), ["ru/a.html"]);
    assert_eq!(search_ids(&b.join("xx"), "zorblat"), ["xx/a.html"]);
    assert!(search_ids(&b, "fichiers").is_empty(), "the English bundle holds the English pages only");
    assert_eq!(search_ids(&b, "configuration"), ["en/a.html"]);
    // --language: one bundle, every page in that language; a bad code is refused.
    let one = d.join("one");
    let o = sift(&["build", site.to_str().unwrap(), "--out", one.to_str().unwrap(), "--no-embedder", "--language", "fr-CA", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = manifest(&one);
    assert_eq!((m["language"].as_str(), m["doc_count"].as_u64(), m.get("languages")), (Some("fr"), Some(6), None));
    let o = sift(&["build", site.to_str().unwrap(), "--out", d.join("bad").to_str().unwrap(), "--no-embedder", "--language", "français"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a language code"), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!d.join("bad").exists(), "nothing written");
}

#[test]
fn pages_that_declare_no_language_are_stemmed_as_the_language_they_are_written_in() {
    // Debian's manuals: no `lang` anywhere; a Russian reader types the words inflected.
    let d = scratch("cli-undeclared-language");
    let site = d.join("site");
    fs::create_dir_all(&site).unwrap();
    let page = |name: &str, title: &str, body: &str| {
        let html = format!("<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{body}</p></main></body></html>");
        fs::write(site.join(name), html).unwrap();
    };
    page("build.html", "Сборка пакета", "Полная пересборка пакета выполняется командой debuild из каталога с исходным кодом.");
    page("check.html", "Проверка пакета", "Перед отправкой пакет проверяют на ошибки с помощью lintian и сценариев сопровождающего.");
    page("upload.html", "Отправка пакета", "Пакет отправляют в архив после проверки всех файлов и подписи изменений.");
    let b = d.join("b");
    let o = sift(&["build", site.to_str().unwrap(), "--out", b.to_str().unwrap(), "--no-embedder"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("3 page(s) declare no language: indexed as ru"), "the build says what it read them as: {err}");
    let m = manifest(&b);
    assert_eq!(m["language"], "ru");
    let first = |q: &str| search_ids(&b, q).first().cloned().unwrap_or_default();
    assert_eq!(first("полной пересборки"), "build.html", "пересборки is пересборка");
    assert_eq!(first("проверки пакетов"), "check.html");
    assert_eq!(first("отправке"), "upload.html");
    // A page named as a translation (`*.ru.html`) says its language by its name; pages whose
    // text says nothing clearly join the site's main language.
    fs::rename(site.join("upload.html"), site.join("upload.ru.html")).unwrap();
    fs::write(site.join("build.html"), "<html><body><main><p>debuild</p></main></body></html>").unwrap();
    fs::write(site.join("check.html"), "<html><body><main><p>lintian</p></main></body></html>").unwrap();
    let o = sift(&["build", site.to_str().unwrap(), "--out", b.to_str().unwrap(), "--no-embedder"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("declare no language"), "nothing was read from their text");
    let m = manifest(&b);
    assert_eq!((m["language"].as_str(), m["doc_count"].as_u64(), m.get("languages")), (Some("ru"), Some(3), None));
    assert_eq!(first("отправки"), "upload.ru.html");
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let p = entry.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            fs::copy(&p, &dest).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
    }
}

#[path = "cli/incremental.rs"]
mod incremental;
#[path = "cli/model.rs"]
mod model;
