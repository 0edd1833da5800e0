//! Bytes a cold engine fetches to answer each of the browser benchmark's queries, by file
//! kind (the first letter of a shard's name), without a browser: a quick check of a bundle
//! layout before `bash bench/browser.sh` measures it for real. The manifest, which a page
//! fetches once, is not counted. Beside the bytes, the sub-results the answers show (what
//! smaller doc parts cost: a result's sub-results come from its part only).
//! `cargo run --release --example fetch_profile -- <BUNDLE> [QUERIES]` — QUERIES: a file of
//! one query a line (default: the browser benchmark's, bench/queries.json); beside each
//! query, the rounds of fetches it took (on a slow link each costs a round trip). With
//! `SIFT_PROFILE_FILES=1` it also prints every file read and its size (`FILE name bytes`,
//! to stderr), to see which shards a layout change shrinks.

#[path = "support/queries.rs"]
mod queries;

use sift_engine::{Context, Engine, SearchRequest, SiftError, Step};
use std::collections::BTreeMap;

/// Requests and bytes per file kind.
type Fetched = BTreeMap<char, (usize, usize)>;

fn add(into: &mut Fetched, kind: char, requests: usize, bytes: usize) {
    let e = into.entry(kind).or_default();
    e.0 += requests;
    e.1 += bytes;
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: fetch_profile <BUNDLE> [QUERIES]"));
    let manifest = std::fs::read(dir.join("manifest.json")).expect("manifest");
    let ctx = Context { now_days: 20_000 };
    let queries = match std::env::args().nth(2) {
        Some(file) => std::fs::read_to_string(&file)
            .expect("queries file")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        None => queries::bench_queries(),
    };
    println!("manifest: {:.1} kB gzip (fetched once a page)", gzip_len(&manifest) as f64 / 1000.0);
    let mut total = Fetched::new();
    let (mut results, mut subs, mut all_rounds) = (0usize, 0usize, 0usize);
    for q in &queries {
        let mut per = Fetched::new();
        let mut engine = Engine::new(&manifest).expect("bundle");
        let req = SearchRequest::new(q.as_str());
        let mut rounds = 0;
        let answer = engine
            .drive(
                |e| {
                    let step = e.search(&req, &ctx);
                    rounds += usize::from(matches!(step, Ok(Step::Need(_))));
                    step
                },
                |f| {
                    let bytes = std::fs::read(dir.join(f)).map_err(|e| SiftError::internal(format!("{f}: {e}")))?;
                    add(&mut per, f.chars().next().unwrap_or('?'), 1, bytes.len());
                    if std::env::var_os("SIFT_PROFILE_FILES").is_some() {
                        eprintln!("FILE {f} {}", bytes.len());
                    }
                    Ok(bytes)
                },
            )
            .expect("search");
        let shown: usize = answer.results.iter().map(|r| r.sub_results.len()).sum();
        (results, subs) = (results + answer.results.len(), subs + shown);
        let (reqs, sum) = per.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
        let kinds: Vec<String> = per.iter().map(|(k, (n, b))| format!("{k} {n}×{:.1}", *b as f64 / 1000.0)).collect();
        all_rounds += rounds;
        println!("{:>7.1} kB {:>3} req {rounds} rounds {:>3} subs  {:<22} {}", sum as f64 / 1000.0, reqs, shown, q, kinds.join(", "));
        for (k, (n, b)) in per {
            add(&mut total, k, n, b);
        }
    }
    let n = queries.len() as f64;
    let (reqs, sum) = total.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    let kinds: Vec<String> =
        total.iter().map(|(k, (c, b))| format!("{k} {:.1} req {:.1} kB", *c as f64 / n, *b as f64 / n / 1000.0)).collect();
    println!(
        "mean per query: {:.1} kB, {:.1} requests, {:.2} rounds ({})",
        sum as f64 / n / 1000.0,
        reqs as f64 / n,
        all_rounds as f64 / n,
        kinds.join(", ")
    );
    println!("sub-results: {subs} on {results} results");
}

/// Bytes of `data` gzipped, as a host sends the manifest.
fn gzip_len(data: &[u8]) -> usize {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).expect("in memory");
    e.finish().expect("in memory").len()
}
