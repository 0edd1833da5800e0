//! What each fuzz target does with its input. `fuzz/fuzz_targets/*.rs` are one-line
//! wrappers around these functions, and `tests/` replays every checked-in seed and every
//! input that once crashed through them, so a fixed crash stays fixed on stable Rust
//! without libFuzzer.
//!
//! Every function must return for every input: errors are fine, panics, aborts, unbounded
//! allocation and runaway time are the bugs the fuzzer hunts.

use sift_base::{Section, SourceDoc};
use sift_build::{BuildOptions, BuiltBundle};
use sift_engine::{Context, Engine, MultiSearchRequest, SearchRequest, Step};
use sift_format::vindex::VectorIndex;
use sift_format::{startup, ShardKind, ShardRef};
use std::collections::BTreeMap;

/// Build a bundle in memory and open an engine over it with every shard loaded.
fn engine_from_docs(docs: &[SourceDoc], opts: &BuildOptions) -> Result<Engine, sift_engine::SiftError> {
    let built = sift_build::build(docs, opts)?;
    let mut eng = Engine::new(&built.manifest_bytes())?;
    for (name, bytes) in &built.shards {
        eng.add_shard(name, bytes)?;
    }
    Ok(eng)
}

/// The fuzz targets by name: the directory names under `fuzz/seeds` and `fuzz/regressions`.
pub const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("query", query),
    ("request_json", request_json),
    ("bundle", bundle),
    ("html", html),
    ("markdown", markdown),
    ("lzma", lzma),
    ("code_streams", code_streams),
];

pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

const VECTOR_DIM: usize = 8;

fn ctx() -> Context {
    Context { now_days: sift_base::date::days_from_civil(2026, 11, 22) }
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
                symbol: None,
            })
            .collect(),
        metadata: BTreeMap::from([
            ("type".to_string(), vec![ty.to_string()]),
            ("tags".to_string(), tags.iter().map(|s| s.to_string()).collect()),
        ]),
        date: date.map(String::from),
        link_density: 0.0,
        annotations: Default::default(),
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
            &[
                ("Eviction", "The cache evicts the least recently used entry; memo tables are caches too."),
                // Longer than a part (400 bytes here): stored in pieces (format 11; cut where a
                // window ends since format 12).
                ("Tuning", TUNING),
            ],
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

/// A section longer than the sample's parts.
const TUNING: &str = "Size the cache by the working set, not by the memory you have: a cache that holds \
    every entry ever read evicts nothing and helps nothing. Start with the number of distinct keys an hour of \
    traffic reads, measure the hit rate, then double it while the rate still climbs. Entries expire after their \
    time to live whatever their use; a memo table keeps them until the process ends. Warm the cache at startup \
    from the last run's keys when cold misses hurt, and never cache errors: a failed lookup cached for an hour is \
    an outage for an hour. Sharded caches take a lock per shard, so more shards mean less waiting under load, and \
    the eviction order is kept per shard too. Metrics name the hits, the misses, the evictions and the bytes held.";

/// The sample site built with small shards (several term and doc shards) and vectors.
pub fn sample_bundle() -> BuiltBundle {
    build_sample(&sample_docs())
}

fn build_sample(docs: &[SourceDoc]) -> BuiltBundle {
    // The toy model's vectors in three lists, with its query encoder: every semantic part.
    let mut semantic = sift_build::semantic::toy::semantic_input(docs, VECTOR_DIM);
    semantic.lists = Some(3);
    semantic.probe = 4;
    // Its lists in groups, so the list groups' decoder is fuzzed too.
    semantic.group_from_lists = 2;
    // Small targets: several shards of each kind, and long pages in parts.
    let opts = BuildOptions {
        term_shard_target: 256,
        doc_shard_target: 512,
        doc_part_target: 400,
        // A doc store dictionary, however small the sample.
        doc_dictionary_from: 0,
        // Several vocabulary shards.
        vocabulary_target: 256,
        semantic: Some(semantic),
        ..BuildOptions::default()
    };
    sift_build::build(docs, &opts).expect("the sample site builds")
}

/// An engine over `manifest` fed every shard it lists (the index shards' children too).
/// A shard the engine refuses is left out: searches must then ask for it or fail cleanly,
/// never panic.
fn loaded<'a>(manifest: &[u8], shards: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Option<Engine> {
    let mut eng = Engine::new(manifest).ok()?;
    let shards: Vec<(&str, &[u8])> = shards.into_iter().collect();
    let mut tried = std::collections::BTreeSet::new();
    loop {
        let next: Vec<String> = eng.all_files().into_iter().filter(|f| !tried.contains(f)).collect();
        if next.is_empty() {
            return Some(eng);
        }
        for f in next {
            if let Some((_, bytes)) = shards.iter().find(|(n, _)| *n == f) {
                let _ = eng.add_shard(&f, bytes);
            }
            tried.insert(f);
        }
    }
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
fn check_response(r: &sift_engine::SearchResponse) {
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
        req.filters.insert("type".into(), sift_engine::contract::FilterValue::One(sift_engine::contract::Scalar::Str("reference".into())));
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
            // The bundle's static encoder, then the host's (toy) model vector.
            drive(eng, &req, None);
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
    let parsed = sift_engine::query::parse(&text, |f| f == "type" || f == "tags");
    assert!(!parsed.open_last || !parsed.groups.is_empty());
    let mut toks = Vec::new();
    sift_text::analyzer::Analyzer::english().tokenize(&text, 0, &mut toks);
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

/// What the bundle target feeds fuzzed payloads to, by selector (0: the manifest): a
/// shard kind's payload, or a section of the startup shard.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    Shard(ShardKind),
    DocMeta,
    Filters,
    Dictionary,
}

const TARGETS_OF_BUNDLE: [Target; 15] = [
    Target::Shard(ShardKind::Terms),
    Target::Shard(ShardKind::Docs),
    Target::DocMeta,
    Target::Filters,
    Target::Shard(ShardKind::Ids),
    Target::Shard(ShardKind::VectorIndex),
    Target::Shard(ShardKind::VectorList),
    Target::Shard(ShardKind::Projection),
    Target::Shard(ShardKind::EncoderVocab),
    Target::Shard(ShardKind::EncoderRows),
    Target::Dictionary,
    Target::Shard(ShardKind::FoldTable),
    Target::Shard(ShardKind::Startup),
    Target::Shard(ShardKind::Vocabulary),
    Target::Shard(ShardKind::ListGroup),
];

fn target_of(selector: u8) -> Option<Target> {
    match selector as usize % (TARGETS_OF_BUNDLE.len() + 1) {
        0 => None,
        k => Some(TARGETS_OF_BUNDLE[k - 1]),
    }
}

/// The sample bundle with one shard (the `n`-th of its kind, wrapping) or one startup
/// section replaced by `payload`, framed with a valid checksum and listed where the bundle
/// lists it — in the manifest, or in the vector index (then re-framed and re-listed in
/// turn) — so the bytes reach the payload decoder. Returns the manifest and the files.
fn replaced(built: &BuiltBundle, target: Target, n: usize, payload: &[u8]) -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let mut manifest = built.manifest.clone();
    let mut files = built.shards.clone();
    let frame = |kind: ShardKind, payload: &[u8], sref: &mut ShardRef, files: &mut Vec<(String, Vec<u8>)>| {
        let framed = sift_format::encode_shard(kind, payload);
        if sref.check.is_some() {
            *sref = ShardRef::new(sref.file.clone(), framed.len() as u64, crc32fast::hash(&framed));
        }
        if let Some(f) = files.iter_mut().find(|(name, _)| *name == sref.file) {
            f.1 = framed;
        }
    };
    let payload_of = |r: &ShardRef, kind: ShardKind| -> Vec<u8> {
        let bytes = &built.shards.iter().find(|(name, _)| *name == r.file).expect("listed shard exists").1;
        sift_format::decode_shard(bytes, kind, r).expect("sample shard decodes")
    };
    let kind = match target {
        Target::Shard(kind) => kind,
        section => {
            // The fuzzed bytes replace one of the startup shard's sections.
            let whole = payload_of(&manifest.startup, ShardKind::Startup);
            let s = startup::decode(&whole).expect("sample startup shard decodes");
            let (mut meta, mut filters, mut dictionary) = (s.docmeta.to_vec(), s.filters.to_vec(), s.dictionary.map(<[u8]>::to_vec));
            match section {
                Target::DocMeta => meta = payload.to_vec(),
                Target::Filters => filters = payload.to_vec(),
                _ => dictionary = Some(payload.to_vec()),
            }
            frame(ShardKind::Startup, &startup::encode(&meta, &filters, dictionary.as_deref()), &mut manifest.startup, &mut files);
            return (manifest.to_json_bytes(), files);
        }
    };
    match kind {
        ShardKind::Terms => {
            let i = n % manifest.term_shards.len();
            frame(kind, payload, &mut manifest.term_shards[i].shard, &mut files);
        }
        ShardKind::Vocabulary => {
            let i = n % manifest.vocabulary.len();
            frame(kind, payload, &mut manifest.vocabulary[i].shard, &mut files);
        }
        ShardKind::Docs => {
            let i = n % manifest.doc_shards.len();
            frame(kind, payload, &mut manifest.doc_shards[i].shard, &mut files);
        }
        ShardKind::Ids => {
            let i = n % manifest.id_shards.len();
            frame(kind, payload, &mut manifest.id_shards[i].shard, &mut files);
        }
        ShardKind::Startup => frame(kind, payload, &mut manifest.startup, &mut files),
        ShardKind::FoldTable => frame(kind, payload, manifest.fold_table.as_mut().expect("sample has a fold table"), &mut files),
        ShardKind::VectorIndex => frame(kind, payload, &mut manifest.vectors.as_mut().expect("vectors").index, &mut files),
        ShardKind::VectorList | ShardKind::ListGroup | ShardKind::Projection => {
            let v = manifest.vectors.as_mut().expect("vectors");
            let mut ix = VectorIndex::decode(&payload_of(&v.index, ShardKind::VectorIndex), v.chunks).expect("sample index decodes");
            let (n_lists, n_groups) = (ix.lists.len(), ix.groups.shards.len());
            let child = match kind {
                ShardKind::Projection => &mut ix.projection,
                ShardKind::ListGroup => &mut ix.groups.shards[n % n_groups],
                _ => &mut ix.lists[n % n_lists],
            };
            frame(kind, payload, child, &mut files);
            frame(ShardKind::VectorIndex, &ix.encode().expect("index encodes"), &mut v.index, &mut files);
        }
        ShardKind::EncoderVocab | ShardKind::EncoderRows => {
            // The index is the manifest's and its children are named by rule: replaced in place.
            let mut ix = manifest.encoder.as_ref().expect("an encoder").layout.index().expect("sample layout is plausible");
            let list = if kind == ShardKind::EncoderVocab { &mut ix.groups } else { &mut ix.row_shards };
            let i = n % list.len();
            frame(kind, payload, &mut list[i], &mut files);
        }
    }
    (manifest.to_json_bytes(), files)
}

/// The bundle loader: the manifest parser (selector 0: the rest is a manifest) and each
/// shard kind's payload decoder (other selectors: the rest is the payload of one shard of
/// the sample bundle, framed and listed with a valid checksum so the bytes reach the
/// decoder), then queries over whatever loaded.
pub fn bundle(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    SAMPLE.with(|sample| {
        let Some(target) = target_of(selector) else {
            if let Some(eng) = loaded(rest, files(&sample.built)) {
                exercise(&eng, "state machine", selector);
            }
            return;
        };
        let (manifest, shards) = replaced(&sample.built, target, selector as usize / (TARGETS_OF_BUNDLE.len() + 1), rest);
        let Some(eng) = loaded(&manifest, shards.iter().map(|(n, b)| (n.as_str(), b.as_slice()))) else { return };
        for q in ["state machine", "cach", "authentification", "\"rotate keys\" -oauth2", "type:reference evicts", "日本語"] {
            exercise(&eng, q, selector);
        }
        for d in &sample.doc_ids {
            let _ = eng.get_document(d);
            let _ = eng.related(d, Some(5), &ctx());
        }
    });
}

/// Each target's payload in the sample bundle, with the selector that feeds it to the
/// bundle target (for seeds), and the manifest (selector 0).
pub fn sample_payloads() -> Vec<(u8, Vec<u8>)> {
    let b = sample_bundle();
    let mut out = Vec::new();
    let startup = {
        let bytes = &b.shards.iter().find(|(n, _)| *n == b.manifest.startup.file).expect("listed").1;
        sift_format::decode_shard(bytes, ShardKind::Startup, &b.manifest.startup).expect("sample startup shard decodes")
    };
    for (k, target) in TARGETS_OF_BUNDLE.iter().enumerate() {
        let selector = (k + 1) as u8;
        let kind = match *target {
            Target::Shard(kind) => kind,
            section => {
                let s = startup::decode(&startup).expect("sample startup shard splits");
                let bytes = match section {
                    Target::DocMeta => s.docmeta,
                    Target::Filters => s.filters,
                    _ => s.dictionary.expect("sample has a dictionary"),
                };
                out.push((selector, bytes.to_vec()));
                continue;
            }
        };
        let mut eng = Engine::new(&b.manifest_bytes()).expect("sample opens");
        // The first shard of this kind the engine can name (children once their index is in).
        let name = loop {
            let files = eng.all_files();
            if let Some(f) = files.iter().find(|f| f.starts_with(&format!("{}-", kind.prefix()))) {
                break f.clone();
            }
            let unloaded: Vec<&String> = files.iter().filter(|f| !eng.is_loaded(f)).collect();
            for f in unloaded {
                let bytes = &b.shards.iter().find(|(n, _)| n == f).expect("listed").1;
                eng.add_shard(f, bytes).expect("sample shard loads");
            }
        };
        let bytes = &b.shards.iter().find(|(n, _)| *n == name).expect("listed").1;
        let sref = ShardRef::new(name.clone(), bytes.len() as u64, crc32fast::hash(bytes));
        out.push((selector, payload_in(&b, &mut eng, kind, &sref)));
    }
    // A part that goes on from the one before (a piece of a long section), as the doc
    // shard it is (selector: the docs, that shard).
    let docs_selector = 1 + TARGETS_OF_BUNDLE.iter().position(|k| *k == Target::Shard(ShardKind::Docs)).expect("docs are fuzzed");
    let mut eng = Engine::new(&b.manifest_bytes()).expect("sample opens");
    let piece = b.manifest.doc_shards.iter().enumerate().find_map(|(m, d)| {
        let payload = payload_in(&b, &mut eng, ShardKind::Docs, &d.shard);
        String::from_utf8_lossy(&payload).contains("\"continues\":true").then_some((m, payload))
    });
    let (m, payload) = piece.expect("the sample has a long section in pieces");
    out.push((u8::try_from(docs_selector + m * (TARGETS_OF_BUNDLE.len() + 1)).expect("selector fits a byte"), payload));
    out.push((0, b.manifest_bytes()));
    out
}

/// The payload of one of a sample bundle's shards. Doc shards are compressed after the
/// store's dictionary, which `eng` is given first (with the startup shard).
fn payload_in(b: &BuiltBundle, eng: &mut Engine, kind: ShardKind, sref: &ShardRef) -> Vec<u8> {
    let file = |name: &str| &b.shards.iter().find(|(n, _)| n == name).expect("listed").1;
    let startup = &b.manifest.startup.file;
    if !eng.is_loaded(startup) {
        eng.add_shard(startup, file(startup)).expect("the startup shard loads");
    }
    let with = sift_format::Inflation { payload: None, dictionary: eng.doc_dictionary() };
    sift_format::decode_shard_with(file(&sref.file), with, kind, sref).expect("sample shard decodes")
}

/// Index one extracted page and query it by its own words.
fn index_and_query(doc: SourceDoc) {
    let words: Vec<String> = sift_text::analyzer::Analyzer::english().terms(&format!(
        "{} {}",
        doc.title,
        doc.sections.first().map(|s| s.text.as_str()).unwrap_or("")
    ));
    let eng = match crate::engine_from_docs(&[doc], &BuildOptions::default()) {
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
    let opts = sift_extract::html::HtmlOptions { selector: None, base_url: "/".into(), index_noindex: false };
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

/// The LZMA decoder the page unpacks its engines with (`sift_lzma`, run in the page as
/// wasm): any file is decoded or refused without a panic, and a file that decodes was
/// decoded whole — every output byte written from the stream, none left from before (the
/// same file into a buffer filled otherwise gives the same bytes). Sizes over 1 MB are left
/// out to keep runs fast (the decoder reads them the same way). Seeds: streams written by
/// `scripts/pack-engine.py`.
pub fn lzma(data: &[u8]) {
    let Ok(size) = sift_lzma::decoded_size(data) else { return };
    if size > 1 << 20 {
        return;
    }
    let mut models = vec![0; sift_lzma::PROBS];
    let mut a = vec![0xa5; size];
    let mut b = vec![0x5a; size];
    let (ra, rb) = (sift_lzma::decode(data, &mut a, &mut models), sift_lzma::decode(data, &mut b, &mut models));
    assert_eq!(ra, rb, "the same file decoded twice");
    if ra.is_ok() {
        assert!(a == b, "a byte of the output was not written by the decoder");
    }
}

/// The engines' code as streams (`sift_lzma::code_streams`, joined in the page after LZMA):
/// any input joins or is refused without a panic, and a join that succeeds wrote every byte
/// of its output (into buffers filled otherwise it gives the same bytes); any input that
/// splits as a module joins back to exactly itself. Seeds: a small real module (the LZMA
/// decoder's wasm) and its split form.
pub fn code_streams(data: &[u8]) {
    use sift_lzma::code_streams::{join, joined_size, split, HEADER};
    if let Ok(size) = joined_size(data) {
        if size <= 1 << 20 {
            let (mut a, mut b) = (vec![0xa5; size], vec![0x5a; size]);
            let (ra, rb) = (join(data, &mut a), join(data, &mut b));
            assert_eq!(ra, rb, "the same form joined twice");
            if ra.is_ok() {
                assert!(a == b, "a byte of the module was not written by the join");
            }
        }
    }
    let mut form = vec![0; data.len() + HEADER];
    if split(data, &mut form).is_ok() {
        let mut back = vec![0; joined_size(&form).expect("a split form's header")];
        join(&form, &mut back).expect("a split form joins");
        assert!(back == data, "a split module joined to other bytes");
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
