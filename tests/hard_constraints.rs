//! Hard constraints hold in every mode: a result that lacks the quoted text (also when
//! the lexical side relaxes to any term), contains an excluded word, or fails a filter or
//! `since` is dropped; quoted text no page contains relaxes to its words, and says so — in `lexical`, `semantic`, `hybrid` and `auto` alike. The bundle is built with the toy model
//! (`sift_build::semantic::toy`), so no model is needed.

use sift_build::BuildOptions;
use sift_engine::{Engine, SearchResponse};
use sift_tests::engine_from_docs;
use sift_tests::*;
use std::sync::OnceLock;

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let docs = corpus_docs();
        let opts = BuildOptions { semantic: Some(sift_build::semantic::toy::semantic_input(&docs, 64)), ..BuildOptions::default() };
        engine_from_docs(&docs, &opts).expect("corpus builds with toy vectors")
    })
}

fn ask(json: serde_json::Value) -> SearchResponse {
    search_json(engine(), &json.to_string()).unwrap_or_else(|e| panic!("{json}: {e:?}"))
}

const MODES: [&str; 4] = ["lexical", "semantic", "hybrid", "auto"];

#[test]
fn quoted_text_stays_exact_in_every_mode() {
    for mode in MODES {
        let r =
            ask(serde_json::json!({ "query": "\"switch traffic\" release bundle", "mode": mode, "include_content": true, "limit": 50 }));
        assert!(!r.results.is_empty(), "{mode}: the page with the phrase is found");
        for x in &r.results {
            let text = x.content.as_deref().unwrap_or_default().to_lowercase();
            assert!(text.contains("switch traffic"), "{mode}: {} lacks the quoted text", x.id);
        }
        // Typed on a phone (“ ”) or pasted from another language („ “, « »), the same.
        for typographic in ["“switch traffic” release bundle", "„switch traffic“ release bundle", "«switch traffic» release bundle"]
        {
            let t = ask(serde_json::json!({ "query": typographic, "mode": mode, "limit": 50 }));
            assert_eq!(ids(&t), ids(&r), "{mode}: {typographic}");
        }
        // Without the quotes, meaning brings in another page (the release notes).
        if mode != "lexical" {
            let loose = ask(serde_json::json!({ "query": "switch traffic release bundle", "mode": mode, "limit": 50 }));
            assert!(loose.results.len() > r.results.len(), "{mode}: {:?} vs {:?}", ids(&loose), ids(&r));
        }
        // When no page has every word, "any term" keeps the quoted text required.
        let any = ask(serde_json::json!({ "query": "\"switch traffic\" cache", "mode": mode, "limit": 50 }));
        assert_eq!(ids(&any), ["guides/deploy.md"], "{mode}");
        let loose = ask(serde_json::json!({ "query": "switch traffic cache", "mode": mode, "limit": 50 }));
        assert!(ids(&loose).contains(&"reference/cache.md"), "{mode}: {:?}", ids(&loose));
    }
}

#[test]
fn quoted_text_no_page_has_relaxes_to_its_words_in_every_mode_and_says_so() {
    for mode in MODES {
        // The words are on a page, in another order: that page, by its words.
        let r = ask(serde_json::json!({ "query": "\"traffic switch\" bundle", "mode": mode }));
        assert_eq!(ids(&r).first(), Some(&"guides/deploy.md"), "{mode}: {:?}", ids(&r));
        let f = r.fallback.as_ref().unwrap_or_else(|| panic!("{mode}: no fallback"));
        assert_eq!(
            (f.from.as_str(), f.reason.as_str()),
            ("phrase", "no document contains \"traffic switch\"; searched for its words"),
            "{mode}"
        );
        // A word found nowhere: the rest of the words still answer, and the note says both steps.
        let r = ask(serde_json::json!({ "query": "\"zebra bundle\"", "mode": mode }));
        assert!(!r.results.is_empty(), "{mode}");
        let f = r.fallback.as_ref().unwrap();
        assert!(
            f.from == "phrase" && f.reason.starts_with("no document contains \"zebra bundle\"; searched for its words"),
            "{mode}: {f:?}"
        );
        if mode == "lexical" {
            assert!(f.reason.contains("; then "), "the words relaxed further: {f:?}");
        }
    }
}

#[test]
fn exclusions_filters_and_since_hold_for_results_by_meaning() {
    let with_deploy: Vec<String> =
        ids(&ask(serde_json::json!({ "query": "deploy", "mode": "lexical", "limit": 50 }))).into_iter().map(String::from).collect();
    assert!(!with_deploy.is_empty());
    for mode in MODES {
        let r = ask(serde_json::json!({ "query": "release the bundle -deploy", "mode": mode, "limit": 50 }));
        assert!(!r.results.is_empty(), "{mode}");
        for id in ids(&r) {
            assert!(!with_deploy.iter().any(|d| d == id), "{mode}: {id} contains the excluded word");
        }
        let r = ask(serde_json::json!({ "query": "release the bundle", "mode": mode, "filters": { "type": "guide" }, "limit": 50 }));
        assert!(r.results.iter().all(|x| x.doc_type.as_deref() == Some("guide")), "{mode}: {:?}", ids(&r));
        let r = ask(serde_json::json!({ "query": "release the bundle", "mode": mode, "since": "2025-01-01", "limit": 50 }));
        assert!(r.results.iter().all(|x| x.date.as_deref().is_some_and(|d| d >= "2025-01-01")), "{mode}: {:?}", ids(&r));
    }
}
