//! The browser benchmark's queries (bench/queries.json), shared by the profiling examples.

pub fn bench_queries() -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(include_str!("../../../bench/queries.json")).expect("bench/queries.json is JSON");
    v["queries"].as_array().expect("a queries array").iter().filter_map(|q| q.as_str().map(str::to_string)).collect()
}
