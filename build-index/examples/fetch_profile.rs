//! Bytes a cold engine fetches to answer each of the browser benchmark's queries, by file
//! kind (the first letter of a shard's name), without a browser: a quick check of a bundle
//! layout before `bash bench/browser.sh` measures it for real.
//! `cargo run --release --example fetch_profile -- <BUNDLE>`

use sift_core::{Context, Engine, SearchRequest, Step};
use std::collections::BTreeMap;

fn queries() -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(include_str!("../../bench/queries.json")).expect("bench/queries.json is JSON");
    v["queries"].as_array().expect("a queries array").iter().filter_map(|q| q.as_str().map(str::to_string)).collect()
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: fetch_profile <BUNDLE>"));
    let manifest = std::fs::read(dir.join("manifest.json")).expect("manifest");
    let ctx = Context { now_days: 20_000 };
    let mut total: BTreeMap<char, (usize, usize)> = BTreeMap::new();
    let queries = queries();
    for q in &queries {
        let mut engine = Engine::new(&manifest).expect("bundle");
        let mut per: BTreeMap<char, (usize, usize)> = BTreeMap::new();
        loop {
            match engine.search(&SearchRequest::new(q.as_str()), &ctx).expect("search") {
                Step::Done(_) => break,
                Step::Need(files) => {
                    for f in files {
                        let bytes = std::fs::read(dir.join(&f)).expect("shard");
                        let e = per.entry(f.chars().next().unwrap_or('?')).or_default();
                        e.0 += 1;
                        e.1 += bytes.len();
                        engine.add_shard(&f, &bytes).expect("valid shard");
                    }
                }
            }
        }
        let sum: usize = per.values().map(|v| v.1).sum();
        let reqs: usize = per.values().map(|v| v.0).sum();
        let kinds: Vec<String> = per.iter().map(|(k, (n, b))| format!("{k} {n}×{:.1}", *b as f64 / 1000.0)).collect();
        println!("{:>7.1} kB {:>3} req  {:<22} {}", sum as f64 / 1000.0, reqs, q, kinds.join(", "));
        for (k, v) in per {
            let t = total.entry(k).or_default();
            t.0 += v.0;
            t.1 += v.1;
        }
    }
    let n = queries.len() as f64;
    let kinds: Vec<String> =
        total.iter().map(|(k, (c, b))| format!("{k} {:.1} req {:.1} kB", *c as f64 / n, *b as f64 / n / 1000.0)).collect();
    println!(
        "mean per query: {:.1} kB, {:.1} requests ({})",
        total.values().map(|v| v.1).sum::<usize>() as f64 / n / 1000.0,
        total.values().map(|v| v.0).sum::<usize>() as f64 / n,
        kinds.join(", ")
    );
}
