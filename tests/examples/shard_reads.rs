//! What a cold engine reads to answer each query, shard by shard, from a bundle on disk:
//! `cargo run --release -p sift-tests --example shard_reads -- BUNDLE MODE QUERIES.txt`.
//! Prints per query the rounds, the bytes by shard kind (the files' sizes on disk, which
//! are already compressed), and the median over the queries.

use sift_engine::{Engine, SearchRequest, Step};
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, mode, queries] = &args[..] else {
        eprintln!("usage: shard_reads BUNDLE MODE QUERIES.txt");
        std::process::exit(2);
    };
    let dir = std::path::Path::new(dir);
    let manifest = std::fs::read(dir.join("manifest.json")).expect("manifest.json");
    let mut totals = Vec::new();
    for q in std::fs::read_to_string(queries).expect("queries").lines().filter(|l| !l.trim().is_empty()) {
        let body = serde_json::json!({"query": q, "mode": mode}).to_string();
        let req = SearchRequest::from_json(body.as_bytes()).expect("request");
        let mut e = Engine::new(&manifest).expect("engine");
        let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut rounds = 0;
        loop {
            match e.search(&req, &sift_tests::ctx()).expect("search") {
                Step::Done(_) => break,
                Step::Need(files) => {
                    rounds += 1;
                    for f in &files {
                        let bytes = std::fs::read(dir.join(f)).expect("shard");
                        let k = kinds.entry(f[..1].to_string()).or_default();
                        k.0 += 1;
                        k.1 += bytes.len();
                        e.add_shard(f, &bytes).expect("shard loads");
                    }
                }
            }
        }
        let total: usize = kinds.values().map(|k| k.1).sum();
        totals.push(total);
        let by: Vec<String> = kinds.iter().map(|(k, (n, b))| format!("{k} {n}:{:.1}", *b as f64 / 1024.0)).collect();
        println!("{:>7.1} kB {rounds} rounds  {q:<40} {}", total as f64 / 1024.0, by.join(" "));
    }
    totals.sort();
    println!("median {:.1} kB over {} queries", totals[totals.len() / 2] as f64 / 1024.0, totals.len());
}
