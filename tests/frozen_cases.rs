//! The frozen bundles' cases: what `examples/freeze_bundle.rs` built each frozen bundle from,
//! and the calls whose answers it recorded. `tests/compat.rs` replays the same calls against
//! the checked-in bundle and expects the recorded answers, byte for byte.
//!
//! Changing a case here changes nothing on disk: the recorded answers are only rewritten by
//! running the freezer on purpose (a new frozen version, or a deliberate ranking change).

use sift_core::{BuildOptions, SourceDoc};

/// Dimension of the toy vectors in frozen bundles.
pub const TOY_DIM: usize = 16;

/// A deterministic stand-in for an embedding model: each analysed term of the text adds a
/// pseudo-random ±1 pattern (from its FNV hash), the sum L2-normalised. Texts that share
/// words point the same way, so semantic and hybrid answers mean something, without a model.
pub fn toy_embedding(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; TOY_DIM];
    for term in sift_core::analyzer::terms(text) {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in term.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100000001b3);
        }
        for (i, x) in v.iter_mut().enumerate() {
            *x += if (h >> (i % 64)) & 1 == 1 { 1.0 } else { -1.0 };
        }
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    } else {
        v[0] = 1.0;
    }
    v
}

/// The build options of the newest frozen bundle: the seed corpus with small shard
/// targets (several term and doc shards, longer pages in parts) and the toy model's vectors and query encoder
/// (`sift_core::semantic::toy`), so no model is needed to rebuild or replay it.
pub fn current_options(docs: &[SourceDoc]) -> BuildOptions {
    let mut semantic = sift_core::semantic::toy::semantic_input(docs, TOY_DIM);
    // Several lists, so the frozen bundle exercises the partitioned layout too.
    semantic.lists = Some(3);
    semantic.probe = 8;
    BuildOptions {
        term_shard_target: 512,
        doc_shard_target: 1024,
        // The seed pages are short: a small part target cuts the longer ones.
        doc_part_target: 160,
        // The seed pages are few: a dictionary anyway, as a docs site has one.
        doc_dictionary_from: 0,
        generator: format!("sift frozen-v{}", sift_core::bundle::FORMAT_VERSION),
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

/// The cases recorded for a frozen version.
pub fn cases_of(version: &str) -> Option<Vec<&'static Case>> {
    let cases: &[&[Case]] = match version {
        "v1" => &[V1_CASES],
        // Format 3 changed the term shards' layout, format 4 stores long pages in parts
        // (the frozen corpus's longer pages are), format 5 names doc shards by rule and
        // format 6 term shards, format 7 adds the doc store's dictionary and format 8 the
        // rare blocks' fold table, format 9 puts the doc metadata, filters and dictionary
        // in one startup shard, format 10 names the semantic half's stores by rule and
        // puts the encoder's index in the manifest, format 11 stores a section bigger than a
        // part in pieces (the frozen corpus's longer sections are): not what a bundle can answer.
        "v2" | "v3" | "v4" | "v5" | "v6" | "v7" | "v8" | "v9" | "v10" | "v11" | "v12" => &[V2_CASES],
        // Format 13 puts the pages' spellings in the vocabulary: typos it alone corrects.
        "v13" => &[V2_CASES, V13_SPELLING_CASES],
        _ => return None,
    };
    Some(cases.iter().flat_map(|c| c.iter()).collect())
}

/// Format 13: typos one edit from a word as the pages write it and further from its stem
/// (`provders`: `providers`, stem `provid`), and a "did you mean" that shows the nearest
/// spelling rather than the term's most common one.
pub const V13_SPELLING_CASES: &[Case] =
    &[search(r#"{"query": "provders"}"#), search(r#"{"query": "rotatng tokens"}"#), search(r#"{"query": "authentification"}"#)];

/// Format 2: the static encoder answers semantic and hybrid queries without a host vector;
/// `embed` cases pass the toy model's own query vector (the full-model option).
pub const V2_CASES: &[Case] = &[
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

pub const V1_CASES: &[Case] = &[
    search(r#"{"query": "cache"}"#),
    search(r#"{"query": "mcp", "mode": "lexical"}"#),
    search(r#"{"query": "StateMachine"}"#),
    search(r#"{"query": "state machine", "explain": true}"#),
    search(r#"{"query": "authentificate"}"#),
    search(r#"{"query": "authen"}"#),
    search(r#"{"query": "\"agentroot to production\""}"#),
    search(r#"{"query": "cache -memo"}"#),
    search(r#"{"query": "cache OR memo", "limit": 2, "offset": 1}"#),
    search(r#"{"query": "agentroot type:guide"}"#),
    search(r#"{"query": "release", "filters": {"type": ["guide", "blog"]}, "sort": "date"}"#),
    search(r#"{"query": "agentroot", "since": "2024-01-01", "boost_recent": true}"#),
    search(r#"{"query": "escaping html", "include_content": true, "limit": 1}"#),
    search(r#"{"query": "the of and"}"#),
    search(r#"{"query": "zzqxv wwkkj"}"#),
    search(r#"{"query": "deploy provider tokens", "explain": true}"#),
    search(r#"{"query": "x", "limit": 0}"#),
    search(r#"{"query": "x", "filters": {"colour": "red"}}"#),
    search(r#"{"query": "   "}"#),
    embedded(r#"{"query": "keeping answers in memory", "mode": "semantic"}"#),
    embedded(r#"{"query": "keeping answers in memory", "mode": "hybrid", "explain": true}"#),
    embedded(r#"{"query": "how do I release my app to production?"}"#),
    embedded(r#"{"query": "cache", "mode": "hybrid", "filters": {"type": "reference"}}"#),
    Case { call: "multi_search", request: r#"{"queries": [{"query": "cache"}, {"query": "memo"}], "limit": 5}"#, embed: false },
    Case { call: "get_document", request: r#"{"id": "reference/cache.md"}"#, embed: false },
    Case { call: "get_document", request: r#"{"id": "no/such/page.md"}"#, embed: false },
    Case { call: "related", request: r#"{"id": "reference/cache.md", "limit": 3}"#, embed: false },
];

/// The host's query vector for an `embed` case: format-1 bundles were frozen with
/// `toy_embedding`, later ones with `sift_core::semantic::toy`.
pub fn query_vector(engine: &sift_core::Engine, req: &sift_core::SearchRequest) -> Vec<f32> {
    if engine.manifest().format_version == 1 {
        toy_embedding(&req.query)
    } else {
        sift_core::semantic::toy::embed(&engine.semantic_text(req), TOY_DIM)
    }
}

/// Load every shard of a bundle, the index shards' children included.
pub fn load_all(engine: &mut sift_core::Engine, mut read: impl FnMut(&str) -> Vec<u8>) {
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
pub fn answer_case(engine: &sift_core::Engine, case: &Case) -> serde_json::Value {
    use sift_core::json::ToJson;
    use sift_core::{MultiSearchRequest, SearchRequest, Step};
    fn done<T: ToJson>(step: Result<Step<T>, sift_core::SiftError>) -> serde_json::Value {
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
