//! The frozen bundles' cases: what `examples/freeze_bundle.rs` built each frozen bundle from,
//! and the calls whose answers it recorded. `tests/compat.rs` replays the same calls against
//! the checked-in bundle and expects the recorded answers, byte for byte.
//!
//! Changing a case here changes nothing on disk: the recorded answers are only rewritten by
//! running the freezer on purpose (a new frozen version, or a deliberate ranking change).

use sift_base::SourceDoc;
use sift_build::BuildOptions;

/// Dimension of the toy vectors in the frozen bundle.
pub const TOY_DIM: usize = 16;

/// The build options of the frozen bundle: the seed corpus with small shard
/// targets (several term and doc shards, longer pages in parts) and the toy model's vectors and query encoder
/// (`sift_build::semantic::toy`), so no model is needed to rebuild or replay it.
pub fn current_options(docs: &[SourceDoc]) -> BuildOptions {
    let mut semantic = sift_build::semantic::toy::semantic_input(docs, TOY_DIM);
    // Several lists, so the frozen bundle exercises the partitioned layout too (their
    // centroids in the index, as a site of fewer than `GROUP_FROM_LISTS` lists has them).
    semantic.lists = Some(3);
    semantic.probe = 8;
    BuildOptions {
        term_shard_target: 512,
        doc_shard_target: 1024,
        // The seed pages are short: a small part target cuts the longer ones.
        doc_part_target: 160,
        // The seed pages are few: a dictionary anyway, as a docs site has one.
        doc_dictionary_from: 0,
        generator: format!("sift frozen-v{}", sift_format::FORMAT_VERSION),
        semantic: Some(semantic),
        ..BuildOptions::default()
    }
}

/// One recorded call: `search` / `multi_search` take the request JSON; `get_document` and
/// `related` take `{"id", "limit"?}`. `embed`: the search's query vector is the toy
/// embedding of its query.
pub struct Case {
    pub call: &'static str,
    pub request: &'static str,
    pub embed: bool,
}

const fn search(request: &'static str) -> Case {
    Case { call: "search", request, embed: false }
}

const fn embedded(request: &'static str) -> Case {
    Case { call: "search", request, embed: true }
}

/// The cases recorded for the frozen bundle of the current format (`v<N>`).
pub fn cases_of(version: &str) -> Option<Vec<&'static Case>> {
    (version == format!("v{}", sift_format::FORMAT_VERSION)).then(|| CASES.iter().chain(SPELLING_CASES).collect())
}

/// Typos one edit from a word as the pages write it and further from its stem (`provders`:
/// `providers`, stem `provid`), and a "did you mean" that shows the nearest spelling rather
/// than the term's most common one.
pub const SPELLING_CASES: &[Case] =
    &[search(r#"{"query": "provders"}"#), search(r#"{"query": "rotatng tokens"}"#), search(r#"{"query": "authentification"}"#)];

/// Every kind of call: the static encoder answers semantic and hybrid queries without a
/// host vector; `embed` cases pass the toy model's own query vector (the full-model option).
pub const CASES: &[Case] = &[
    search(r#"{"query": "cache"}"#),
    search(r#"{"query": "mcp", "mode": "lexical"}"#),
    search(r#"{"query": "StateMachine"}"#),
    search(r#"{"query": "state machine", "explain": true}"#),
    search(r#"{"query": "authentificate"}"#),
    search(r#"{"query": "authen"}"#),
    search(r#"{"query": "\"agentroot to production\""}"#),
    search(r#"{"query": "cache OR memo", "limit": 2, "offset": 1}"#),
    search(r#"{"query": "agentroot type:guide"}"#),
    search(r#"{"query": "release", "filters": {"type": ["guide", "blog"]}, "sort": "date"}"#),
    search(r#"{"query": "agentroot", "since": "2024-01-01", "boost_recent": true}"#),
    search(r#"{"query": "zzqxv wwkkj"}"#),
    search(r#"{"query": "keeping answers in memory", "mode": "semantic"}"#),
    search(r#"{"query": "keeping answers in memory", "mode": "hybrid", "explain": true}"#),
    search(r#"{"query": "how do I release my app to production?"}"#),
    search(r#"{"query": "cache", "mode": "hybrid", "filters": {"type": "reference"}}"#),
    search(r#"{"query": "publish the site for visitors"}"#),
    search(r#"{"query": "\"switch traffic\" bundle", "mode": "hybrid"}"#),
    search(r#"{"query": "release the bundle -deploy", "mode": "semantic"}"#),
    embedded(r#"{"query": "keeping answers in memory", "mode": "semantic"}"#),
    Case {
        call: "multi_search",
        request: r#"{"queries": [{"query": "cache"}, {"query": "remember earlier calls"}], "limit": 5}"#,
        embed: false,
    },
    Case { call: "get_document", request: r#"{"id": "reference/cache.md"}"#, embed: false },
    Case { call: "get_document", request: r#"{"id": "no/such/page.md"}"#, embed: false },
    Case { call: "related", request: r#"{"id": "reference/cache.md", "limit": 3}"#, embed: false },
];

/// The host's query vector for an `embed` case: the toy model's.
pub fn query_vector(engine: &sift_engine::Engine, req: &sift_engine::SearchRequest) -> Vec<f32> {
    sift_build::semantic::toy::embed(&engine.semantic_text(req), TOY_DIM)
}

/// Load every shard of a bundle, the index shards' children included.
pub fn load_all(engine: &mut sift_engine::Engine, mut read: impl FnMut(&str) -> Vec<u8>) {
    loop {
        let missing: Vec<String> = engine.all_files().into_iter().filter(|f| !engine.is_loaded(f)).collect();
        if missing.is_empty() {
            return;
        }
        for f in missing {
            let bytes = read(&f);
            engine.add_shard(&f, &bytes).unwrap_or_else(|e| panic!("{f}: {e}"));
        }
    }
}

/// Run one case against an engine with every shard it asks for at hand, and give the
/// answer as the contract's JSON: the response, or the error object.
pub fn answer_case(engine: &sift_engine::Engine, case: &Case) -> serde_json::Value {
    use sift_base::json::ToJson;
    use sift_engine::{MultiSearchRequest, SearchRequest, Step};
    fn done<T: ToJson>(step: Result<Step<T>, sift_engine::SiftError>) -> serde_json::Value {
        match step {
            Ok(Step::Done(v)) => crate::value(&v.to_json()),
            Ok(Step::Need(files)) => panic!("an engine with every shard asked for {files:?}"),
            Err(e) => crate::value(&e.to_error_object()),
        }
    }
    let ctx = crate::ctx();
    let args: serde_json::Value = serde_json::from_str(case.request).unwrap_or(serde_json::Value::Null);
    let answer = match case.call {
        "search" => match SearchRequest::from_json(case.request.as_bytes()) {
            Ok(req) => {
                let v = case.embed.then(|| query_vector(engine, &req));
                done(engine.search_with(&req, &ctx, v.as_deref()))
            }
            Err(e) => crate::value(&e.to_error_object()),
        },
        "multi_search" => match MultiSearchRequest::from_json(case.request.as_bytes()) {
            Ok(req) => done(engine.multi_search(&req, &ctx)),
            Err(e) => crate::value(&e.to_error_object()),
        },
        "get_document" => {
            let mut v = done(engine.get_document(args["id"].as_str().unwrap_or_default()));
            if let Some(o) = v.as_object_mut() {
                o.remove("sp"); // storage detail, never part of the contract
            }
            v
        }
        "related" => done(engine.related(args["id"].as_str().unwrap_or_default(), args["limit"].as_i64(), &ctx)),
        other => panic!("unknown call {other}"),
    };
    serde_json::json!({ "call": case.call, "request": args, "answer": answer })
}
