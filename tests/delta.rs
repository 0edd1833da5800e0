//! A bundle and its delta (the pages changed since it was built) answer as a clean build of
//! the same pages would: the engine joins them (`sift-engine/src/delta.rs`).

use sift_base::{Section, SourceDoc};
use sift_build::{BuildOptions, BuiltBundle};
use sift_engine::{Engine, SearchRequest, SearchResponse, Step};
use sift_tests::{corpus_docs, ctx, run};

fn built(docs: &[SourceDoc]) -> BuiltBundle {
    sift_build::build(docs, &BuildOptions::default()).expect("builds")
}

/// The base with a delta of `changed` pages replacing or adding to it and `gone` ids
/// deleted: an engine with every file loaded, the files (the delta's in its folder) and
/// the joined manifest.
fn with_delta(base: &BuiltBundle, changed: &[SourceDoc], gone: &[&str]) -> (Engine, Vec<(String, Vec<u8>)>, Vec<u8>) {
    let plain = loaded(&base.manifest_bytes(), &base.shards);
    let number = |id: &str| match plain.doc_number(id).expect("lookup") {
        Step::Done(n) => n,
        Step::Need(f) => panic!("a loaded engine asked for {f:?}"),
    };
    let removed: Vec<u32> = changed.iter().map(|d| d.id.as_str()).chain(gone.iter().copied()).filter_map(number).collect();
    let delta = (!changed.is_empty()).then(|| {
        let opts = sift_build::delta::options(&base.manifest, BuildOptions::default()).expect("options");
        sift_build::build(changed, &opts).expect("delta builds")
    });
    let manifest = sift_build::delta::joined(&base.manifest, delta.as_ref().map(|d| d.manifest.clone()), removed, None);
    let mut files = base.shards.clone();
    if let Some(d) = &delta {
        let folder = sift_build::delta::folder(&d.manifest);
        files.extend(d.shards.iter().map(|(name, bytes)| (format!("{folder}/{name}"), bytes.clone())));
    }
    let manifest = manifest.to_json_bytes();
    (loaded(&manifest, &files), files, manifest)
}

fn loaded(manifest: &[u8], files: &[(String, Vec<u8>)]) -> Engine {
    let mut eng = Engine::new(manifest).expect("manifest opens");
    for (name, bytes) in files {
        eng.add_shard(name, bytes).unwrap_or_else(|e| panic!("{name}: {}", e.message));
    }
    eng
}

fn search(eng: &Engine, query: &str) -> SearchResponse {
    run(eng, &SearchRequest { limit: Some(50), ..SearchRequest::new(query) }).expect("search")
}

/// Every guide, by the filter alone.
fn guides() -> SearchRequest {
    SearchRequest { limit: Some(50), ..SearchRequest::new("type:guide") }
}

fn ids(r: &SearchResponse) -> Vec<String> {
    r.results.iter().map(|h| h.id.clone()).collect()
}

fn page(id: &str, title: &str, text: &str) -> SourceDoc {
    SourceDoc {
        id: id.into(),
        url: format!("/{id}"),
        title: title.into(),
        path: id.replace(['/', '.', '-'], " "),
        sections: vec![Section { text: text.into(), ..Default::default() }],
        metadata: [("type".to_string(), vec!["guide".to_string()])].into(),
        ..Default::default()
    }
}

/// The corpus edited three ways: one page rewritten, one deleted, one added.
fn edits() -> (Vec<SourceDoc>, Vec<SourceDoc>, Vec<SourceDoc>, &'static str) {
    let before = corpus_docs();
    let edited_id = before[1].id.clone();
    let deleted = before[2].id.clone();
    let rewritten =
        page(&edited_id, "Quokka caching", "The quokka cache keeps tokens for a while. Tokens expire; the cache refreshes them.");
    let mut added = page("guides/zebrafish.md", "Zebrafish deployment", "Deploy with zebrafish: the cache and the tokens travel together.");
    // Long enough to be stored in parts: a result reads the part its match is in.
    added.sections.extend((0..40).map(|i| {
        Section {
            heading: format!("Stage {i}"),
            text: format!("Stage {i} of the zebrafish rollout moves the cache{} forward. ", if i == 33 { " and the axolotl" } else { "" })
                .repeat(8),
            ..Default::default()
        }
    }));
    let after: Vec<SourceDoc> = before
        .iter()
        .filter(|d| d.id != deleted)
        .map(|d| if d.id == edited_id { rewritten.clone() } else { d.clone() })
        .chain([added.clone()])
        .collect();
    (before, after, vec![rewritten, added], Box::leak(deleted.into_boxed_str()))
}

#[test]
fn a_bundle_and_its_delta_answer_as_a_clean_build_of_the_same_pages() {
    let (before, after, changed, deleted) = edits();
    let (joined, _, _) = with_delta(&built(&before), &changed, &[deleted]);
    let clean = loaded(&built(&after).manifest_bytes(), &built(&after).shards);
    let queries =
        ["cache", "tokens", "quokka", "zebrafish deploy", "axolotl", "authentication", "deploy", "state machine", "memo", "escaping"];
    for q in queries {
        let (a, b) = (search(&joined, q), search(&clean, q));
        let (mut x, mut y) = (ids(&a), ids(&b));
        assert_eq!(a.total, b.total, "{q}: total");
        assert_eq!(x.first(), y.first(), "{q}: first result");
        x.sort();
        y.sort();
        assert_eq!(x, y, "{q}: the same pages");
        // Scores differ only by the quantised lengths of the removed pages in length norms.
        for h in &a.results {
            let s = b.results.iter().find(|r| r.id == h.id).map(|r| r.score).unwrap_or_default();
            assert!((h.score - s).abs() <= 0.01 * s.max(0.1), "{q}: {} scores {} joined, {s} clean", h.id, h.score);
        }
        assert_eq!(a.facets, b.facets, "{q}: facets");
    }
    // Browsing by filters alone lists the same pages, the removed one not among them.
    let browse = |e: &Engine| run(e, &guides()).expect("browse");
    let (a, b) = (browse(&joined), browse(&clean));
    assert_eq!(a.total, b.total);
    assert!(!ids(&a).iter().any(|i| i == deleted), "{:?}", ids(&a));
}

#[test]
fn an_edited_page_answers_with_its_new_words_only_and_a_deleted_one_not_at_all() {
    let (before, _, changed, deleted) = edits();
    let edited = changed[0].id.clone();
    let base = built(&before);
    let old = loaded(&base.manifest_bytes(), &base.shards);
    // A word only the old version had.
    let old_word = "rotate";
    let had = ids(&search(&old, old_word)).contains(&edited);
    let (joined, _, _) = with_delta(&base, &changed, &[deleted]);
    assert_eq!(ids(&search(&joined, "quokka")), std::slice::from_ref(&edited));
    assert_eq!(ids(&search(&joined, "zebrafish")), ["guides/zebrafish.md"]);
    // A match deep in a page stored in parts: its snippet comes from the part it is in.
    let deep = search(&joined, "axolotl");
    assert!(deep.results[0].snippet.contains("axolotl"), "{}", deep.results[0].snippet);
    if had {
        assert!(!ids(&search(&joined, old_word)).contains(&edited), "the old version answers");
    }
    for q in ["cache", "tokens", "deploy"] {
        assert!(!ids(&search(&joined, q)).iter().any(|i| i == deleted), "{q}: the deleted page answers");
    }
    let doc = |id: &str| match joined.get_document(id).expect("lookup") {
        Step::Done(d) => d,
        Step::Need(f) => panic!("asked for {f:?}"),
    };
    assert!(doc(deleted).is_none(), "a deleted page is no document");
    assert_eq!(doc(&edited).map(|d| d.title), Some("Quokka caching".to_string()));
    assert_eq!(doc("guides/zebrafish.md").map(|d| d.title), Some("Zebrafish deployment".to_string()));
}

#[test]
fn a_delta_that_only_deletes_needs_no_folder_and_hides_the_page() {
    let (before, _, _, deleted) = edits();
    let base = built(&before);
    let (joined, files, _) = with_delta(&base, &[], &[deleted]);
    assert_eq!(files.len(), base.shards.len());
    let manifest = String::from_utf8(sift_build::delta::joined(&base.manifest, None, vec![0], None).to_json_bytes()).expect("text");
    assert!(manifest.contains(r#""delta":{"removed":[0]}"#), "{manifest}");
    for q in ["cache", "tokens", "deploy"] {
        assert!(!ids(&search(&joined, q)).iter().any(|i| i == deleted), "{q}");
    }
    assert!(!ids(&run(&joined, &guides()).expect("browse")).iter().any(|i| i == deleted));
}

#[test]
fn a_cold_engine_reads_the_deltas_startup_first_and_the_rest_as_it_needs_it() {
    let (before, _, changed, deleted) = edits();
    let base = built(&before);
    let (_, files, manifest) = with_delta(&base, &changed, &[deleted]);
    let mut cold = Engine::new(&manifest).expect("opens");
    let req = SearchRequest::new("zebrafish");
    let mut rounds: Vec<Vec<String>> = Vec::new();
    let answer = loop {
        match cold.search(&req, &ctx()).expect("search") {
            Step::Done(r) => break r,
            Step::Need(need) => {
                for f in &need {
                    let bytes = &files.iter().find(|(n, _)| n == f).unwrap_or_else(|| panic!("no file {f}")).1;
                    cold.add_shard(f, bytes).expect("loads");
                }
                rounds.push(need);
                assert!(rounds.len() < 10, "{rounds:?}");
            }
        }
    };
    assert_eq!(ids(&answer), ["guides/zebrafish.md"]);
    assert!(rounds[0].iter().any(|f| f.starts_with("delta-") && f.contains("/s-")), "the delta's startup first: {:?}", rounds[0]);
    let read: Vec<&String> = rounds.iter().flatten().collect();
    assert!(read.iter().any(|f| f.starts_with("delta-") && f.contains("/t-")), "the delta's postings: {read:?}");
    // Nothing of the delta a word's search does not read: its id index, its vocabulary.
    assert!(!read.iter().any(|f| f.starts_with("delta-") && (f.contains("/i-") || f.contains("/k-"))), "{read:?}");
    assert!(rounds.len() <= 4, "{} rounds: {rounds:?}", rounds.len());
}

#[test]
fn a_delta_that_does_not_fit_its_bundle_is_refused_with_a_clear_error() {
    let (before, _, changed, deleted) = edits();
    let base = built(&before);
    let (_, _, manifest) = with_delta(&base, &changed, &[deleted]);
    let text = String::from_utf8(manifest).expect("text");
    let (at, folder_at) = (text.find(r#""delta":{"removed":["#).expect("a delta"), text.find(r#""folder":"delta-"#).expect("a folder"));
    let inner_language = text.rfind(r#""language":"en""#).expect("the delta's language");
    let n = base.manifest.doc_count;
    let cases: Vec<(String, &str)> = vec![
        (
            format!(r#"{}"delta":{{"removed":[2,1],{}"#, &text[..at], &text[text[at..].find("],").map(|i| at + i + 2).unwrap()..]),
            "out of order",
        ),
        (
            format!(r#"{}"delta":{{"removed":[{n}],{}"#, &text[..at], &text[text[at..].find("],").map(|i| at + i + 2).unwrap()..]),
            "does not have",
        ),
        (text.replacen(r#""folder":"delta-"#, r#""folder":"../delta-"#, 1), "unsafe folder"),
        (
            text.replacen(r#""folder":"delta-"#, r#""vectors":{"file":"l-x.bin","bytes":1,"crc32":1},"folder":"delta-"#, 1),
            "not a listed file of a bundle with vectors",
        ),
        (
            format!(r#"{}"language":"de"{}"#, &text[..inner_language], &text[inner_language + r#""language":"en""#.len()..]),
            "analysed or filtered otherwise",
        ),
        (
            format!("{}{}", &text[..folder_at], &text[text[folder_at..].find(',').map(|i| folder_at + i + 1).unwrap()..]),
            "a manifest without a folder",
        ),
    ];
    for (bad, why) in cases {
        let e = Engine::new(bad.as_bytes()).err().unwrap_or_else(|| panic!("accepted: {why}"));
        assert_eq!(e.code, "bundle_corrupt", "{why}");
        assert!(e.message.contains(why), "{why}: {}", e.message);
    }
}

#[test]
fn a_deltas_pages_are_found_by_meaning_in_the_bundles_own_space() {
    // The frozen bundle has vectors and a static encoder: the base.
    let dir = sift_tests::repo_root().join("tests/frozen/v18/bundle");
    let manifest_bytes = std::fs::read(dir.join("manifest.json")).expect("frozen manifest");
    let base_manifest = sift_format::Manifest::parse(&manifest_bytes).expect("parses");
    let mut base = Engine::new(&manifest_bytes).expect("opens");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    // (The vector index names its children once loaded: ask again until nothing is new.)
    while let Some(name) = base.all_files().into_iter().find(|f| !files.iter().any(|(n, _)| n == f)) {
        let bytes = std::fs::read(dir.join(&name)).expect("shard");
        base.add_shard(&name, &bytes).expect("loads");
        files.push((name, bytes));
    }
    let found = |e: &Engine, q: &str| -> Vec<String> {
        let req = SearchRequest { mode: Some("semantic".into()), limit: Some(50), ..SearchRequest::new(q) };
        ids(&run(e, &req).expect("semantic search"))
    };
    let gone = found(&base, "cache")[0].clone();
    let page = page(
        "guides/otters.md",
        "Otters and rivers",
        "Otters swim in cold rivers and eat fish; a family of otters shares one den by the river bank.",
    );
    let opts = sift_build::delta::options(&base_manifest, BuildOptions::default()).expect("options");
    let delta = sift_build::build(std::slice::from_ref(&page), &opts).expect("delta builds");
    // Each chunk as the base's encoder embeds it (what the watcher does).
    let chunks: Vec<(u32, Vec<f32>)> = sift_build::chunk::chunks_of(&page)
        .iter()
        .filter_map(|t| match base.embed_query(t, None).expect("embeds") {
            Step::Done(v) => v.map(|v| (0, v)),
            Step::Need(f) => panic!("asked for {f:?}"),
        })
        .collect();
    assert!(!chunks.is_empty());
    let dim = base_manifest.vectors.as_ref().expect("vectors").dim as usize;
    let (entry, list) = sift_build::delta::vector_list(dim, &chunks).expect("a vector list");
    let number = match base.doc_number(&gone).expect("lookup") {
        Step::Done(n) => n.expect("a page of the base"),
        Step::Need(f) => panic!("asked for {f:?}"),
    };
    let joined = sift_build::delta::joined(&base_manifest, Some(delta.manifest.clone()), vec![number], Some(entry));
    let folder = sift_build::delta::folder(&delta.manifest);
    files.extend(delta.shards.iter().chain([&list]).map(|(n, b)| (format!("{folder}/{n}"), b.clone())));
    let joined = loaded(&joined.to_json_bytes(), &files);
    assert_eq!(found(&joined, "otters living by a river").first().map(String::as_str), Some("guides/otters.md"));
    assert!(!found(&joined, "cache").contains(&gone), "a removed page is not found by meaning either");
}
