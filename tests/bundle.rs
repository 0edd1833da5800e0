//! Bundle format: determinism, lazy loading, and refusal of corrupt, truncated or
//! mismatched bundles.

use sift_core::{build, BuildOptions, Engine, SearchRequest, Step};
use sift_tests::*;

fn built() -> sift_core::BuiltBundle {
    build(&corpus_docs(), &BuildOptions { term_shard_target: 256, doc_shard_target: 512, ..Default::default() }).unwrap()
}

#[test]
fn same_input_same_bytes() {
    let a = built();
    let b = built();
    assert_eq!(a.manifest_bytes(), b.manifest_bytes());
    assert_eq!(a.shards, b.shards);
    assert!(a.shards.len() > 5, "small targets give several shards");
}

/// Run `query` through the host loop, recording every file the engine asked for.
fn search_fetching(b: &sift_core::BuiltBundle, query: &str) -> (sift_core::SearchResponse, Vec<String>) {
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let req = SearchRequest::new(query);
    let mut fetched = Vec::new();
    loop {
        match e.search(&req, &ctx()).unwrap() {
            Step::Done(r) => return (r, fetched),
            Step::Need(files) => {
                assert!(!files.is_empty());
                for f in files {
                    let bytes = &b.shards.iter().find(|(n, _)| *n == f).unwrap().1;
                    e.add_shard(&f, bytes).unwrap();
                    fetched.push(f);
                }
            }
        }
        assert!(fetched.len() < 1000, "no endless loop");
    }
}

fn term_shards_in(fetched: &[String]) -> usize {
    fetched.iter().filter(|f| f.starts_with("t-")).count()
}

#[test]
fn lazy_loading_fetches_only_what_the_query_needs() {
    let b = built();
    let (r, fetched) = search_fetching(&b, "cache");
    assert_eq!(r.results[0].id, "reference/cache.md");
    let term_shards_fetched = term_shards_in(&fetched);
    assert!(
        term_shards_fetched < b.manifest.term_shards.len(),
        "fetched {term_shards_fetched} of {} term shards",
        b.manifest.term_shards.len()
    );
    let doc_shards_fetched = fetched.iter().filter(|f| f.starts_with("d-")).count();
    assert!(doc_shards_fetched < b.manifest.doc_shards.len());
}

#[test]
fn a_typo_after_the_first_letter_is_corrected_from_that_letters_term_shards() {
    // Many small term shards, as a real site has (66 on the Python docs).
    let b = build(&corpus_docs(), &BuildOptions { term_shard_target: 24, ..Default::default() }).unwrap();
    let (r, fetched) = search_fetching(&b, "cachr");
    assert_eq!(r.results[0].id, "reference/cache.md");
    let f = r.fallback.as_ref().expect("fuzzy matching is reported");
    assert_eq!((f.from.as_str(), f.to.as_str()), ("exact", "fuzzy"));
    let (t, all) = (term_shards_in(&fetched), b.manifest.term_shards.len());
    assert!(all >= 20 && t * 4 <= all, "a mistyped word read {t} of {all} term shards: the whole dictionary");
}

#[test]
fn a_typo_in_the_first_letter_is_still_corrected_by_reading_every_term_shard() {
    let b = built();
    let (r, fetched) = search_fetching(&b, "xache");
    assert_eq!(r.results[0].id, "reference/cache.md", "no word starts like it, so every spelling is a candidate");
    assert_eq!(term_shards_in(&fetched), b.manifest.term_shards.len());
}

#[test]
fn corrupt_truncated_foreign_and_unknown_shards_are_refused() {
    let b = built();
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let (name, bytes) = &b.shards[0];
    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    assert_eq!(e.add_shard(name, &flipped).unwrap_err().code, "bundle_corrupt");
    assert_eq!(e.add_shard(name, &bytes[..bytes.len() - 3]).unwrap_err().code, "bundle_corrupt");
    let (other_name, other) = &b.shards[1];
    assert!(e.add_shard(name, other).is_err(), "a shard under another shard's name");
    assert!(e.add_shard("t-nothere.bin", other).is_err());
    assert!(!e.is_loaded(name));
    e.add_shard(other_name, other).unwrap();
    assert!(e.is_loaded(other_name));
}

#[test]
fn manifest_problems_are_clear_errors() {
    let b = built();
    let m = b.manifest_bytes();
    assert_eq!(Engine::new(&m[..m.len() / 2]).err().unwrap().code, "bundle_corrupt");
    // Every bundle is written in the newest format (4: long pages in parts).
    assert_eq!(b.manifest.format_version, 4);
    let future = String::from_utf8(m.clone()).unwrap().replace("\"format_version\": 4", "\"format_version\": 99");
    let err = Engine::new(future.as_bytes()).err().unwrap();
    assert_eq!(err.code, "bundle_version");
    assert!(err.message.contains("rebuild"), "{}", err.message);
    // A manifest claiming another version than its shards: each shard is refused.
    let v2 = String::from_utf8(m.clone()).unwrap().replace("\"format_version\": 4", "\"format_version\": 2");
    let mut e = Engine::new(v2.as_bytes()).unwrap();
    let (name, bytes) = &b.shards[0];
    assert_eq!(e.add_shard(name, bytes).unwrap_err().code, "bundle_version");
    let evil = String::from_utf8(m).unwrap().replacen("\"file\": \"t-", "\"file\": \"../t-", 1);
    assert_eq!(Engine::new(evil.as_bytes()).err().unwrap().code, "bundle_corrupt");
}

#[test]
fn empty_corpus_and_duplicate_ids() {
    let mut docs = corpus_docs();
    docs.push(docs[0].clone());
    let err = build(&docs, &BuildOptions::default()).err().unwrap();
    assert!(err.message.contains("duplicate"), "{}", err.message);
    // An empty bundle is valid and answers "nothing" with an explanation.
    let e = sift_core::engine_from_docs(&[], &BuildOptions::default()).unwrap();
    let r = run(&e, &SearchRequest::new("anything")).unwrap();
    assert_eq!(r.total, 0);
    assert!(r.fallback.is_some());
}
