//! Warm query loop for profilers (`perf record`, callgrind): every shard loaded, the
//! browser benchmark's queries run N times. `cargo run --profile profiling --example
//! query_profile -- <BUNDLE> [ROUNDS]`

use sift_engine::{Context, Engine, SearchRequest, Step};
use std::time::Instant;

#[path = "support/queries.rs"]
mod queries;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).expect("usage: query_profile <BUNDLE> [ROUNDS]"));
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(20);
    let mut engine = Engine::new(&std::fs::read(dir.join("manifest.json")).expect("manifest")).expect("bundle");
    for f in engine.all_files() {
        if !f.starts_with("v-") {
            engine.add_shard(&f, &std::fs::read(dir.join(&f)).expect("shard")).expect("valid shard");
        }
    }
    let ctx = Context { now_days: 20_000 };
    let queries = queries::bench_queries();
    let mut per_query = vec![0f64; queries.len()];
    for _ in 0..rounds {
        for (i, q) in queries.iter().enumerate() {
            let t = Instant::now();
            match engine.search(&SearchRequest::new(q.as_str()), &ctx).expect("search") {
                Step::Done(r) => std::hint::black_box(r),
                Step::Need(f) => panic!("needs {f:?}"),
            };
            per_query[i] += t.elapsed().as_secs_f64() * 1000.0;
        }
    }
    let mut rows: Vec<(f64, &str)> = per_query.iter().map(|t| t / rounds as f64).zip(queries.iter().map(String::as_str)).collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (t, q) in rows {
        println!("{t:8.3} ms  {q}");
    }
}
