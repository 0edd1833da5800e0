//! Writes the checked-in seed corpora, `fuzz/seeds/<target>/`: valid inputs that reach
//! deep into each target (a real bundle's shard payloads, contract requests, pages with
//! every construct the extractors handle). Run from the repository root:
//! `cargo run -p sift-fuzz --example write_seeds`.

use std::path::Path;

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new("fuzz/seeds").join(target);
    std::fs::create_dir_all(&dir).expect("seed folder");
    std::fs::write(dir.join(name), bytes).expect("seed written");
}

fn main() {
    let queries = [
        "state machine",
        "StateMachine",
        "state-mach",
        "\"rotate keys\" -oauth2",
        "cache OR memo type:reference",
        "authentificate",
        "the of and",
        "tags:core evicts ",
        "日本語 テキスト",
        "naïve café",
        "parseHTTPResponse token_refresh os.path",
        "-\"state machine\" cache",
        "a OR OR \"\" - : type: \"unclosed",
    ];
    for (i, q) in queries.iter().enumerate() {
        let mut input = vec![(i as u8).wrapping_mul(37)];
        input.extend_from_slice(q.as_bytes());
        write("query", &format!("q{i:02}"), &input);
    }

    let requests = [
        r#"{"query": "state machine"}"#,
        r#"{"query": "cache", "filters": {"type": ["reference", "guide"], "tags": "core"}, "limit": 3, "offset": 1}"#,
        r#"{"query": "release", "since": "30d", "sort": "date", "boost_recent": true}"#,
        r#"{"query": "keys", "mode": "hybrid", "explain": true, "include_content": true}"#,
        r#"{"query": "keys", "since": "2026-01-01", "mode": "semantic"}"#,
        r#"{"queries": [{"query": "cache"}, {"query": "memo", "limit": 2}], "limit": 5}"#,
        r#"{"query": "x", "limt": 3}"#,
        r#"{"query": 5}"#,
        r#"{"query": "a", "limit": -1, "offset": 99999999999999999999}"#,
        r#"{"query": "a", "filters": {"type": []}}"#,
        r#"[1, 2, {"query": "a"}]"#,
        "{\"query\": \"\\ud800\"}",
    ];
    for (i, r) in requests.iter().enumerate() {
        write("request_json", &format!("r{i:02}.json"), r.as_bytes());
    }

    for (selector, payload) in sift_fuzz::sample_payloads() {
        let mut input = vec![selector];
        input.extend_from_slice(&payload);
        write("bundle", &format!("kind{selector}"), &input);
    }

    let pages = [
        ("plain.html", "<!doctype html><html><head><title>Config | Docs</title></head><body><nav>skip</nav><main><h1 id=\"top\">Configuration</h1><p>Set the <code>api_key</code>.</p><h2 id=\"env\">Environment</h2><p>Use SIFT_HOME.</p><script>alert(1)</script></main><footer>f</footer></body></html>"),
        ("sphinx.html", "<html><head><title>os.path — Common pathname manipulations</title><meta name=\"description\" content=\"paths\"></head><body><div class=\"body\" role=\"main\"><section id=\"module-os.path\"><h1>os.path<a class=\"headerlink\" href=\"#module-os.path\">¶</a></h1><p>This module implements <em>some</em> useful functions.</p><dl><dt id=\"os.path.join\">os.path.join(<em>path</em>, <em>*paths</em>)</dt><dd><p>Join one or more path segments.</p></dd></dl></section></div></body></html>"),
        ("hostile.html", "<title><img src=x onerror=alert(1)></title><body><article><h2>&lt;b&gt; &amp;amp; &#x1F600; &#0; &#xD800;</h2><p>text<table><tr><td>cell<td>cell2</table><pre>  code\n  block</pre></article>"),
        ("meta.html", "<html lang=ja><head><meta charset=shift_jis><meta name=\"sift:type\" content=\"guide\"><meta name=\"sift:tags\" content=\"a, b\"><meta property=\"article:published_time\" content=\"2026-02-30\"></head><body><main><h1>日本語</h1><p>テキスト</p><h3></h3><h4 id=\"\">empty</h4></main></body></html>"),
    ];
    for (name, html) in pages {
        write("html", name, html.as_bytes());
    }
    let nested = format!("<html><body><main>{}deep{}</main></body></html>", "<div>".repeat(300), "</div>".repeat(300));
    write("html", "nested.html", nested.as_bytes());

    let corpus = Path::new("tests/corpus");
    let mut stack = vec![corpus.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("tests/corpus (run from the repository root)") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p.strip_prefix(corpus).unwrap().to_string_lossy().replace('/', "_");
                write("markdown", &name, &std::fs::read(&p).expect("corpus page"));
            }
        }
    }
    let tricky = [
        ("frontmatter.md", "---\ntitle: \"Quoted: title\"\ntype: guide\ntags: [a, b, \"c d\"]\ndate: 2026-13-45\nnested:\n  key: value\n---\n# Heading {#custom}\n\nText with <script>alert(1)</script> and [link](javascript:alert(1)).\n\n## Heading\n\n## Heading\n\n```rust\nfn main() {}\n```\n"),
        ("broken-frontmatter.md", "---\ntitle: [unclosed\n---\nbody"),
        ("setext.md", "Title\n=====\n\nSub\n---\n\n* list\n  * nested\n\n> quote\n> # heading in quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<div>raw <b>html</b></div>\n\n[^1]: footnote\n"),
    ];
    for (name, md) in tricky {
        write("markdown", name, md.as_bytes());
    }
    println!("seeds written to fuzz/seeds/");
}
