//! What each fuzz target does with its input. `fuzz/fuzz_targets/*.rs` are one-line
//! wrappers around these functions, and `tests/` replays every checked-in seed and every
//! input that once crashed through them, so a fixed crash stays fixed on stable Rust
//! without libFuzzer.
//!
//! Every function must return for every input: errors are fine, panics, aborts, unbounded
//! allocation and runaway time are the bugs the fuzzer hunts.

use sift_core::bundle::{self, Manifest, ShardKind, ShardRef};
use sift_core::{BuildOptions, BuiltBundle, ChunkVectors, Context, Engine, MultiSearchRequest, SearchRequest, Section, SourceDoc, Step};
use std::collections::BTreeMap;

/// The fuzz targets by name: the directory names under `fuzz/seeds` and `fuzz/regressions`.
pub const TARGETS: &[(&str, fn(&[u8]))] =
    &[("query", query), ("request_json", request_json), ("bundle", bundle), ("html", html), ("markdown", markdown)];

pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

const VECTOR_DIM: usize = 8;

fn ctx() -> Context {
    Context { now_days: sift_core::date::days_from_civil(2026, 11, 22) }
}

/// A small site with every feature the engine has: several sections, metadata filters,
/// dates, compounds, stop words, and a vector set (dimension 8).
pub fn sample_docs() -> Vec<SourceDoc> {
    let page = |id: &str, title: &str, ty: &str, tags: &[&str], date: Option<&str>, sections: &[(&str, &str)]| SourceDoc {
        id: id.into(),
        url: format!("/{id}"),
        title: title.into(),
        path: sift_extract::path_words(id),
        sections: sections
            .iter()
            .map(|(h, t)| Section {
                heading: h.to_string(),
                anchor: (!h.is_empty()).then(|| sift_extract::markdown::slug(h)),
                text: t.to_string(),
            })
            .collect(),
        metadata: BTreeMap::from([
            ("type".to_string(), vec![ty.to_string()]),
            ("tags".to_string(), tags.iter().map(|s| s.to_string()).collect()),
        ]),
        date: date.map(String::from),
    };
    vec![
        page(
            "guides/authentication.md",
            "Authentication",
            "guide",
            &["security", "api"],
            Some("2026-10-01"),
            &[
                ("", "Every request carries an API key in the Authorization header."),
                ("Rotating keys", "Rotate keys every 90 days; the old key keeps working for a day."),
                ("OAuth2 flow", "The StateMachine handles token_refresh and parseHTTPResponse errors."),
            ],
        ),
        page(
            "reference/state-machine.md",
            "State machine",
            "reference",
            &["core"],
            Some("2025-03-14"),
            &[("Transitions", "A transition moves the state machine from one state to the next."), ("", "state-machine, état, naïve café")],
        ),
        page(
            "reference/cache.md",
            "Cache",
            "reference",
            &["core", "performance"],
            None,
            &[("Eviction", "The cache evicts the least recently used entry; memo tables are caches too.")],
        ),
        page(
            "blog/release-notes.md",
            "Release notes 2.0",
            "blog",
            &["news"],
            Some("2026-11-20"),
            &[("What's new", "Faster search, typo tolerance, filters and facets. 日本語のテキスト も 検索 できます。")],
        ),
        page("guides/to-be-or-not.md", "To be or not to be", "guide", &[], Some("2024-01-01"), &[("", "the of and to be or not")]),
    ]
}

fn sample_vectors(docs: &[SourceDoc]) -> ChunkVectors {
    let per_doc = docs
        .iter()
        .enumerate()
        .map(|(d, doc)| {
            sift_core::chunk::chunks_of(doc)
                .iter()
                .enumerate()
                .map(|(c, _)| {
                    let mut v: Vec<f32> = (0..VECTOR_DIM).map(|i| ((d * 7 + c * 3 + i) % 5) as f32 - 2.0).collect();
                    v[d % VECTOR_DIM] += 3.0;
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    v.iter_mut().for_each(|x| *x /= n);
                    v
                })
                .collect()
        })
        .collect();
    ChunkVectors { model: "fuzz-model".into(), dim: VECTOR_DIM, per_doc }
}

/// The sample site built with small shards (several term and doc shards) and vectors.
pub fn sample_bundle() -> BuiltBundle {
    build_sample(&sample_docs())
}

fn build_sample(docs: &[SourceDoc]) -> BuiltBundle {
    let opts =
        BuildOptions { term_shard_target: 256, doc_shard_target: 512, vectors: Some(sample_vectors(docs)), ..BuildOptions::default() };
    sift_core::build(docs, &opts).expect("the sample site builds")
}

fn loaded<'a>(manifest: &[u8], shards: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Option<Engine> {
    let mut eng = Engine::new(manifest).ok()?;
    for (name, bytes) in shards {
        // A shard the engine refuses is left out: searches must then ask for it or fail
        // cleanly, never panic.
        let _ = eng.add_shard(name, bytes);
    }
    Some(eng)
}

fn files(built: &BuiltBundle) -> impl Iterator<Item = (&str, &[u8])> {
    built.shards.iter().map(|(n, b)| (n.as_str(), b.as_slice()))
}

/// The sample bundle, built once per thread: its files, its document ids, and an engine
/// with every shard loaded.
struct Sample {
    built: BuiltBundle,
    doc_ids: Vec<String>,
    engine: Engine,
}

thread_local! {
    static SAMPLE: Sample = {
        let docs = sample_docs();
        let built = build_sample(&docs);
        let engine = loaded(&built.manifest_bytes(), files(&built)).expect("the sample bundle opens");
        Sample { built, doc_ids: docs.into_iter().map(|d| d.id).collect(), engine }
    };
}

fn query_vector(seed: u8) -> Vec<f32> {
    let mut v: Vec<f32> = (0..VECTOR_DIM).map(|i| ((seed as usize + i * 5) % 7) as f32 - 3.0).collect();
    if v.iter().all(|x| *x == 0.0) {
        v[0] = 1.0;
    }
    v
}

/// Run a request to completion or error. Engines here may be missing shards (refused as
/// corrupt), so `Need` is an answer too.
fn drive(eng: &Engine, req: &SearchRequest, vector: Option<&[f32]>) {
    if let Ok(Step::Done(r)) = eng.search_with(req, &ctx(), vector) {
        check_response(&r);
    }
}

/// Cheap invariants of any answer.
fn check_response(r: &sift_core::SearchResponse) {
    assert!(r.results.len() <= r.limit, "more results than the limit");
    assert!(r.total >= r.results.len(), "total below the page size");
    for x in &r.results {
        assert!(x.score.is_finite(), "score {} is not finite", x.score);
    }
}

fn exercise(eng: &Engine, query: &str, flags: u8) {
    let mut req = SearchRequest::new(query);
    req.limit = Some(i64::from(flags % 7) + 1);
    req.offset = Some(i64::from(flags >> 6));
    if flags & 8 != 0 {
        req.filters.insert("type".into(), sift_core::contract::FilterValue::One(sift_core::contract::Scalar::Str("reference".into())));
    }
    if flags & 16 != 0 {
        req.sort = Some("date".into());
        req.since = Some("400d".into());
        req.boost_recent = Some(true);
    }
    req.explain = Some(flags & 32 != 0);
    req.include_content = Some(flags & 32 != 0);
    drive(eng, &req, None);
    if eng.has_vectors() {
        for mode in ["hybrid", "semantic", "auto"] {
            req.mode = Some(mode.into());
            drive(eng, &req, Some(&query_vector(flags)));
        }
    }
}

/// The query parser and everything a query string reaches: parsing, analysis, prefix and
/// fuzzy expansion, AND/OR fallback, filters in the text, snippets. Input: one flags byte
/// (limit, offset, filters, sort, explain), then the query.
pub fn query(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let parsed = sift_core::query::parse(&text, |f| f == "type" || f == "tags");
    assert!(!parsed.open_last || !parsed.groups.is_empty());
    let mut toks = Vec::new();
    sift_core::analyzer::tokenize(&text, 0, &mut toks);
    for t in &toks {
        assert!(t.start <= t.end && t.end <= text.len() && text.is_char_boundary(t.start) && text.is_char_boundary(t.end));
    }
    SAMPLE.with(|sample| {
        let eng = &sample.engine;
        exercise(eng, &text, flags);
        let _ = eng.related(&text, Some(i64::from(flags % 12)), &ctx());
        let _ = eng.get_document(&text);
    });
}

/// The JSON request decoder and validation: a search request, or (when that fails to
/// decode) a multi-search request, run against the sample engine.
pub fn request_json(data: &[u8]) {
    SAMPLE.with(|sample| {
        let eng = &sample.engine;
        match SearchRequest::from_json(data) {
            Ok(req) => {
                drive(eng, &req, None);
                if eng.has_vectors() {
                    drive(eng, &req, Some(&query_vector(data.len() as u8)));
                }
            }
            Err(e) => assert_eq!(e.code, "invalid_json"),
        }
        if let Ok(req) = MultiSearchRequest::from_json(data) {
            let _ = eng.multi_search(&req, &ctx());
        }
        let _ = eng.search_json(data, &ctx());
    });
}

/// The shard of the sample bundle that the selector byte picks, by kind.
fn pick(manifest: &mut Manifest, selector: u8) -> (ShardKind, &mut ShardRef) {
    match selector % 6 {
        1 => {
            let n = manifest.term_shards.len();
            (ShardKind::Terms, &mut manifest.term_shards[(selector as usize / 6) % n].shard)
        }
        2 => {
            let n = manifest.doc_shards.len();
            (ShardKind::Docs, &mut manifest.doc_shards[(selector as usize / 6) % n].shard)
        }
        3 => (ShardKind::DocMeta, &mut manifest.docmeta),
        4 => (ShardKind::Filters, &mut manifest.filters),
        _ => (ShardKind::Vectors, &mut manifest.vectors.as_mut().expect("sample has vectors").shards[0]),
    }
}

/// The bundle loader: the manifest parser (selector byte 0: the rest is a manifest) and
/// each shard kind's payload decoder (selectors 1–5: the rest is the payload of one shard
/// of the sample bundle, framed as a shard and listed in the manifest with its checksum, so
/// the bytes reach the decoder), then queries over whatever loaded.
pub fn bundle(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    SAMPLE.with(|sample| {
        if selector % 6 == 0 {
            if let Some(eng) = loaded(rest, files(&sample.built)) {
                exercise(&eng, "state machine", selector);
            }
            return;
        }
        let mut manifest = sample.built.manifest.clone();
        let (kind, sref) = pick(&mut manifest, selector);
        let framed = bundle::encode_shard(kind, rest);
        sref.bytes = framed.len() as u64;
        sref.crc32 = crc32fast::hash(&framed);
        let file = sref.file.clone();
        let shards = files(&sample.built).map(|(n, b)| (n, if n == file { framed.as_slice() } else { b }));
        let Some(eng) = loaded(&manifest.to_json_bytes(), shards) else { return };
        for q in ["state machine", "cach", "authentification", "\"rotate keys\" -oauth2", "type:reference evicts", "日本語"] {
            exercise(&eng, q, selector);
        }
        for d in &sample.doc_ids {
            let _ = eng.get_document(d);
            let _ = eng.related(d, Some(5), &ctx());
        }
    });
}

/// Decode one shard of the sample bundle to its payload (for seeds).
pub fn sample_payloads() -> Vec<(u8, Vec<u8>)> {
    let b = sample_bundle();
    let mut m = b.manifest.clone();
    let mut out = Vec::new();
    for selector in 1u8..=5 {
        let (kind, sref) = pick(&mut m, selector);
        let sref = sref.clone();
        let bytes = &b.shards.iter().find(|(n, _)| *n == sref.file).expect("listed shard exists").1;
        out.push((selector, bundle::decode_shard(bytes, kind, &sref).expect("sample shard decodes")));
    }
    out.push((0, b.manifest_bytes()));
    out
}

/// Index one extracted page and query it by its own words.
fn index_and_query(doc: SourceDoc) {
    let words: Vec<String> =
        sift_core::analyzer::terms(&format!("{} {}", doc.title, doc.sections.first().map(|s| s.text.as_str()).unwrap_or("")));
    let eng = match sift_core::engine_from_docs(&[doc], &BuildOptions::default()) {
        Ok(e) => e,
        Err(_) => return,
    };
    let q = words.iter().take(3).cloned().collect::<Vec<_>>().join(" ");
    if !q.is_empty() {
        exercise(&eng, &q, 0x22);
    }
}

/// The HTML extractor (main-content detection, skipped tags, sections and anchors,
/// the nesting guard), then the builder over what it extracted.
pub fn html(data: &[u8]) {
    let opts = sift_extract::html::HtmlOptions { selector: None, base_url: "/".into() };
    if let Ok((doc, _warnings)) = sift_extract::html::extract(data, "dir/page.html", &opts) {
        index_and_query(doc);
    }
}

/// The Markdown extractor (front matter, headings, code, HTML in Markdown), the page
/// renderer `sift serve` uses, then the builder.
pub fn markdown(data: &[u8]) {
    if let Ok(page) = sift_extract::markdown::render_page(data, "dir/page.md") {
        // The page template loads the search box; the rendered Markdown in <main> must
        // never carry a script of its own.
        let main = page.split_once("<main>").map(|(_, m)| m).unwrap_or("");
        assert!(!main.contains("<script"), "raw HTML from Markdown must be shown as text");
    }
    if let Ok((doc, _warnings)) = sift_extract::markdown::extract(data, "dir/page.md", "/") {
        index_and_query(doc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_payloads_round_trip_through_the_bundle_target() {
        for (selector, payload) in sample_payloads() {
            let mut input = vec![selector];
            input.extend_from_slice(&payload);
            bundle(&input);
        }
    }
}
