//! Bundle format: determinism, lazy loading, and refusal of corrupt, truncated or
//! mismatched bundles.

use sift_build::{build, BuildOptions};
use sift_engine::contract::MAX_HOST_ROUNDS;
use sift_engine::{Engine, SearchRequest};
use sift_format::{ShardKind, ShardRef, FORMAT_VERSION};
use sift_tests::*;

/// Small shards of every kind, and a doc store dictionary however small the corpus.
fn options() -> BuildOptions {
    BuildOptions { term_shard_target: 256, doc_shard_target: 512, doc_dictionary_from: 0, ..Default::default() }
}

fn built() -> sift_build::BuiltBundle {
    build(&corpus_docs(), &options()).unwrap()
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
fn search_fetching(b: &sift_build::BuiltBundle, query: &str) -> (sift_engine::SearchResponse, Vec<String>) {
    let (r, fetched, _) = search_in_rounds(b, query);
    (r, fetched)
}

/// A search by a cold engine through the host loop: the response, the files it read in
/// order, and the rounds it took.
fn search_in_rounds(b: &sift_build::BuiltBundle, query: &str) -> (sift_engine::SearchResponse, Vec<String>, usize) {
    let (r, rounds) = cold_search(b, &SearchRequest::new(query));
    let n = rounds.len();
    (r, rounds.into_iter().flatten().collect(), n)
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
    // Every bundle is written in the one current format, and any other is refused.
    let current = format!("\"format_version\":{FORMAT_VERSION}");
    assert!(String::from_utf8(m.clone()).unwrap().contains(&current));
    for other in [FORMAT_VERSION - 1, FORMAT_VERSION + 1] {
        let relabelled = String::from_utf8(m.clone()).unwrap().replace(&current, &format!("\"format_version\":{other}"));
        let err = Engine::new(relabelled.as_bytes()).err().unwrap();
        assert_eq!(err.code, "bundle_version");
        assert!(err.message.contains("rebuild it with `sift build`"), "{}", err.message);
    }
    // A shard of another version than its manifest is refused (a doc shard, which has no
    // listed checksum, so its header is what is checked).
    let mut e = Engine::new(&m).unwrap();
    let (name, bytes) = b.shards.iter().find(|(n, _)| n.starts_with("d-")).unwrap();
    let mut older = bytes.clone();
    older[4..6].copy_from_slice(&4u16.to_le_bytes());
    assert_eq!(e.add_shard(name, &older).unwrap_err().code, "bundle_version");
    let evil = String::from_utf8(m).unwrap().replacen("\"file\":\"s-", "\"file\":\"../s-", 1);
    assert_eq!(Engine::new(evil.as_bytes()).err().unwrap().code, "bundle_corrupt");
}

#[test]
fn doc_shards_are_named_by_rule_and_listed_as_columns() {
    let b = built();
    let files = b.manifest.doc_files.clone();
    assert!(files.starts_with("d-") && files.len() == 18, "{files}");
    for (n, d) in b.manifest.doc_shards.iter().enumerate() {
        assert_eq!(d.shard.file, format!("{files}-{n}.bin"));
        assert!(d.shard.check.is_none());
        assert!(b.shards.iter().any(|(name, _)| *name == d.shard.file), "{} is written", d.shard.file);
    }
    let text = String::from_utf8(b.manifest_bytes()).unwrap();
    assert!(!text.contains("\"doc_shards\"") && text.contains("\"doc_store\""));
    // Read back, the manifest is the same.
    assert_eq!(sift_format::Manifest::parse(text.as_bytes()).unwrap(), b.manifest);
    // Another build of other pages names its doc shards apart.
    let mut docs = corpus_docs();
    docs[0].title.push_str(" (edited)");
    let other = build(&docs, &BuildOptions { term_shard_target: 256, doc_shard_target: 512, ..Default::default() }).unwrap();
    assert_ne!(other.manifest.doc_files, b.manifest.doc_files);
}

#[test]
fn a_doc_shard_under_another_doc_shards_name_is_refused() {
    let b = built();
    assert!(b.manifest.doc_shards.len() >= 2);
    let (first, second) = (&b.manifest.doc_shards[0].shard.file, &b.manifest.doc_shards[1].shard.file);
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let startup = b.manifest.startup.file.clone();
    e.add_shard(&startup, &bytes_of(&startup)).unwrap();
    let err = e.add_shard(first, &bytes_of(second)).unwrap_err();
    assert_eq!(err.code, "bundle_corrupt");
    assert!(err.message.contains("served under another shard's name"), "{}", err.message);
    // Any change to a doc shard's bytes fails its payload checksum or its inflation.
    every_flip_is_refused(&mut e, first, &bytes_of(first), 7);
}

/// A shard listed without a checksum (named by rule) still refuses a byte flipped every
/// `step` bytes (its payload checksum, its inflation, its header), then takes the good one.
fn every_flip_is_refused(e: &mut Engine, name: &str, good: &[u8], step: usize) {
    for i in (0..good.len()).step_by(step) {
        let mut bad = good.to_vec();
        bad[i] ^= 0x21;
        assert!(e.add_shard(name, &bad).is_err(), "{name}: flip at {i} accepted");
    }
    e.add_shard(name, good).unwrap();
}

#[test]
fn term_shards_are_named_by_rule_and_listed_as_key_range_columns() {
    let b = built();
    let files = b.manifest.term_files.clone();
    assert!(files.starts_with("t-") && files.len() == 18, "{files}");
    assert!(b.manifest.term_shards.len() >= 2);
    for (n, t) in b.manifest.term_shards.iter().enumerate() {
        assert_eq!(t.shard.file, format!("{files}-{n}.bin"));
        assert!(t.shard.check.is_none());
        assert!(b.shards.iter().any(|(name, _)| *name == t.shard.file), "{} is written", t.shard.file);
    }
    let text = String::from_utf8(b.manifest_bytes()).unwrap();
    assert!(!text.contains("\"term_shards\"") && text.contains("\"term_store\""));
    assert_eq!(sift_format::Manifest::parse(text.as_bytes()).unwrap(), b.manifest);
    // The store lists separators: the shortest prefix of a shard's smallest term above the
    // shard before's largest (the first shard: its smallest term).
    let keys = |t: &sift_format::KeyRangeShardRef| {
        let bytes = &b.shards.iter().find(|(n, _)| *n == t.shard.file).unwrap().1;
        let payload = sift_format::decode_shard(bytes, ShardKind::Terms, &t.shard).unwrap();
        let keys = sift_format::terms::TermShard::decode(payload).unwrap().map.stream().into_byte_keys();
        let text = |k: &Vec<u8>| String::from_utf8(k.clone()).unwrap();
        (text(&keys[0]), text(&keys[keys.len() - 1]))
    };
    let ranges: Vec<(String, String)> = b.manifest.term_shards.iter().map(keys).collect();
    assert_eq!(b.manifest.term_shards[0].first, ranges[0].0);
    let mut shorter = 0;
    for (i, t) in b.manifest.term_shards.iter().enumerate().skip(1) {
        let (smallest, prev_largest) = (&ranges[i].0, &ranges[i - 1].1);
        assert!(smallest.starts_with(&t.first) && t.first > *prev_largest, "{} between {prev_largest} and {smallest}", t.first);
        assert!(t.first.char_indices().skip(1).all(|(k, _)| t.first[..k] <= *prev_largest.as_str()), "{} is the shortest", t.first);
        shorter += usize::from(t.first.len() < smallest.len());
    }
    assert!(shorter > 0, "some separator is shorter than its shard's first term");
    let mut docs = corpus_docs();
    docs[0].sections[0].text.push_str(" zebra");
    let other = build(&docs, &BuildOptions { term_shard_target: 256, doc_shard_target: 512, ..Default::default() }).unwrap();
    assert_ne!(other.manifest.term_files, b.manifest.term_files, "a changed dictionary renames every term shard");
}

#[test]
fn a_term_shard_under_another_term_shards_name_is_refused() {
    let b = built();
    let (first, second) = (&b.manifest.term_shards[0].shard.file, &b.manifest.term_shards[1].shard.file);
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let err = e.add_shard(first, &bytes_of(second)).unwrap_err();
    assert_eq!(err.code, "bundle_corrupt");
    assert!(err.message.contains("does not hold the terms"), "{}", err.message);
    every_flip_is_refused(&mut e, first, &bytes_of(first), 5);
}

/// A bundle's manifest as JSON, to damage.
fn manifest_json(b: &sift_build::BuiltBundle) -> serde_json::Value {
    serde_json::from_slice(&b.manifest_bytes()).unwrap()
}

/// The engine's refusal of a damaged manifest (it must refuse it).
fn refused(m: &serde_json::Value) -> sift_engine::SiftError {
    Engine::new(m.to_string().as_bytes()).err().expect("refused")
}

#[test]
fn a_malformed_term_store_is_a_clear_error() {
    let b = built();
    let m = manifest_json(&b);
    let mut disorder = m.clone();
    disorder["term_store"]["first"].as_array_mut().unwrap().swap(0, 1);
    assert!(refused(&disorder).message.contains("term shards are not in order"));
    let mut twice = m.clone();
    let first = twice["term_store"]["first"][0].clone();
    twice["term_store"]["first"][1] = first;
    assert!(refused(&twice).message.contains("term shards are not in order"));
    let mut not_a_term = m.clone();
    not_a_term["term_store"]["first"][0] = 7.into();
    assert_eq!(refused(&not_a_term).code, "bundle_corrupt");
    let mut unsafe_name = m.clone();
    unsafe_name["term_store"]["files"] = "../t-x".into();
    assert!(refused(&unsafe_name).message.contains("unsafe shard file"));
    let mut missing = m;
    missing.as_object_mut().unwrap().remove("term_store");
    assert_eq!(refused(&missing).code, "bundle_corrupt");
}

#[test]
fn doc_shards_are_read_with_the_doc_stores_dictionary_and_answer_as_without_it() {
    let b = built();
    assert!(b.manifest.doc_dictionary, "a doc store dictionary");
    // A section of the startup shard, which is listed with its size and checksum.
    let dict = b.manifest.startup.clone();
    assert!(dict.file.starts_with("s-") && dict.check.is_some(), "listed with its size and checksum: {dict:?}");
    let text = String::from_utf8(b.manifest_bytes()).unwrap();
    assert!(text.contains("\"dictionary\":true"));
    assert_eq!(sift_format::Manifest::parse(text.as_bytes()).unwrap(), b.manifest);
    // The doc shards are compressed after it (codec 2); the answers are those of a bundle
    // without one, snippets included.
    let plain = build(&corpus_docs(), &BuildOptions { doc_dictionary_from: usize::MAX, ..options() }).unwrap();
    assert!(!plain.manifest.doc_dictionary);
    assert!(b.shards.iter().filter(|(n, _)| n.starts_with("d-")).all(|(_, bytes)| bytes[7] == 2));
    assert!(plain.shards.iter().filter(|(n, _)| n.starts_with("d-")).all(|(_, bytes)| bytes[7] == 1));
    for q in ["cache", "deploy the bundle", "\"agentroot to production\"", "authentificate"] {
        let (with, fetched) = search_fetching(&b, q);
        let (without, _) = search_fetching(&plain, q);
        let brief = |r: &sift_engine::SearchResponse| r.results.iter().map(|x| (x.id.clone(), x.snippet.clone())).collect::<Vec<_>>();
        assert_eq!(brief(&with), brief(&without), "{q}");
        // Asked for before the doc shards that need it (the first round).
        let (d, z) = (fetched.iter().position(|f| f.starts_with("d-")), fetched.iter().position(|f| *f == dict.file));
        assert!(z.is_some() && z < d, "{q}: {fetched:?}");
    }
}

#[test]
fn a_doc_shard_before_its_dictionary_or_after_a_damaged_one_is_refused() {
    let b = built();
    let dict = b.manifest.startup.clone();
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let doc = b.manifest.doc_shards[0].shard.file.clone();
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let err = e.add_shard(&doc, &bytes_of(&doc)).unwrap_err();
    assert_eq!(err.code, "bundle_corrupt");
    assert!(err.message.contains("dictionary, which is not loaded"), "{}", err.message);
    let mut damaged = bytes_of(&dict.file);
    let n = damaged.len();
    damaged[n - 2] ^= 0x11;
    assert!(e.add_shard(&dict.file, &damaged).unwrap_err().message.contains("checksum"), "the manifest lists its checksum");
    e.add_shard(&dict.file, &bytes_of(&dict.file)).unwrap();
    e.add_shard(&doc, &bytes_of(&doc)).unwrap();
    assert!(e.is_loaded(&doc));
}

#[test]
fn a_small_doc_store_gets_no_dictionary() {
    let b = build(&corpus_docs(), &BuildOptions::default()).unwrap();
    assert!(!b.manifest.doc_dictionary, "the seed pages are far under 64 KB");
    assert!(!String::from_utf8(b.manifest_bytes()).unwrap().contains("\"dictionary\""));
    // Its startup shard has an empty dictionary section, and the bundle answers.
    let (r, fetched) = search_fetching(&b, "cache");
    assert!(!r.results.is_empty());
    assert_eq!(fetched.iter().filter(|f| f.starts_with("s-")).count(), 1, "{fetched:?}");
}

#[test]
fn a_search_reads_one_startup_shard_for_doc_metadata_filters_and_dictionary() {
    let b = built();
    let startup = b.manifest.startup.clone();
    assert!(b.manifest.doc_dictionary);
    assert!(!b.shards.iter().any(|(n, _)| n.starts_with("m-") || n.starts_with("f-") || n.starts_with("z-")), "not written on their own");
    let (r, fetched) = search_fetching(&b, "cache type:reference");
    assert!(!r.results.is_empty());
    // Once, first (the doc shards are read with its dictionary), and nothing else but
    // term and doc shards (and the vocabulary, for a "did you mean" of a rare word).
    assert_eq!(fetched[0], startup.file, "{fetched:?}");
    assert_eq!(fetched.iter().filter(|f| **f == startup.file).count(), 1, "{fetched:?}");
    assert!(fetched[1..].iter().all(|f| f.starts_with("t-") || f.starts_with("d-") || f.starts_with("k-")), "{fetched:?}");
    // Listed once for hosts that copy a whole bundle.
    let e = Engine::new(&b.manifest_bytes()).unwrap();
    assert_eq!(e.all_files().iter().filter(|f| **f == startup.file).count(), 1);
    assert!(!String::from_utf8(b.manifest_bytes()).unwrap().contains("\"docmeta\""));
}

#[test]
fn a_startup_shard_that_disagrees_with_its_manifest_is_refused() {
    let b = built();
    let startup = b.manifest.startup.clone();
    let bytes = b.shards.iter().find(|(n, _)| *n == startup.file).unwrap().1.clone();
    let payload = sift_format::decode_shard(&bytes, ShardKind::Startup, &startup).unwrap();
    let s = sift_format::startup::decode(&payload).unwrap();
    // A startup payload framed and listed with a valid checksum, so it reaches the decoder.
    let listed = |payload: &[u8]| {
        let framed = sift_format::encode_shard(ShardKind::Startup, payload);
        let mut manifest = b.manifest.clone();
        manifest.startup = ShardRef::new(startup.file.clone(), framed.len() as u64, sift_base::crc32::crc32(&framed));
        (Engine::new(&manifest.to_json_bytes()).unwrap(), framed)
    };
    // Without its dictionary section: the manifest still says it holds one.
    let (mut e, framed) = listed(&sift_format::startup::encode(s.docmeta, s.filters, None));
    let err = e.add_shard(&startup.file, &framed).unwrap_err();
    assert_eq!(err.code, "bundle_corrupt");
    assert!(err.message.contains("disagree on the doc store's dictionary"), "{}", err.message);
    assert!(!e.is_loaded(&startup.file));
    // A truncated section table, and a doc metadata section of another corpus.
    for bad in [payload[..payload.len() / 2].to_vec(), sift_format::startup::encode(&[9, 9], s.filters, s.dictionary)] {
        let (mut e, framed) = listed(&bad);
        assert_eq!(e.add_shard(&startup.file, &framed).unwrap_err().code, "bundle_corrupt");
    }
}

#[test]
fn a_malformed_doc_store_is_a_clear_error() {
    let b = built();
    let m = manifest_json(&b);
    let mut orphan = m.clone();
    orphan["doc_store"]["docs"][0] = 0.into();
    assert!(refused(&orphan).message.contains("further part that follows no part"), "{}", refused(&orphan).message);
    // Parts need the grid they lie on.
    let mut gridless = m.clone();
    gridless["doc_store"]["docs"][1] = 0.into();
    assert!(refused(&gridless).message.contains("parts but no part_positions"), "{}", refused(&gridless).message);
    let mut unsafe_name = m.clone();
    unsafe_name["doc_store"]["files"] = "../d-x".into();
    assert!(refused(&unsafe_name).message.contains("unsafe shard file"));
    let mut missing = m.clone();
    missing.as_object_mut().unwrap().remove("doc_store");
    assert_eq!(refused(&missing).code, "bundle_corrupt");
    let mut uncovered = m;
    uncovered["doc_store"]["docs"][0] = 1000.into();
    assert!(refused(&uncovered).message.contains("cover every document"));
}

#[test]
fn empty_corpus_and_duplicate_ids() {
    let mut docs = corpus_docs();
    docs.push(docs[0].clone());
    let err = build(&docs, &BuildOptions::default()).err().unwrap();
    assert!(err.message.contains("duplicate"), "{}", err.message);
    let mut no_id = corpus_docs();
    no_id[1].id = String::new();
    no_id[1].url = "/docs/lost.html".into();
    let err = build(&no_id, &BuildOptions::default()).err().unwrap();
    assert!(err.message.contains("empty id") && err.message.contains("/docs/lost.html"), "{}", err.message);
    // An empty bundle is valid and answers "nothing" with an explanation.
    let e = sift_tests::engine_from_docs(&[], &BuildOptions::default()).unwrap();
    let r = run(&e, &SearchRequest::new("anything")).unwrap();
    assert_eq!(r.total, 0);
    assert!(r.fallback.is_some());
}

#[test]
fn every_bundle_carries_the_fold_table_and_only_this_runtimes_own_is_installed() {
    let b = built();
    let table = b.manifest.fold_table.clone().expect("a fold table");
    let bytes_of = |name: &str| b.shards.iter().find(|(n, _)| n == name).unwrap().1.clone();
    let stored = bytes_of(&table.file);
    let payload = sift_format::decode_shard(&stored, ShardKind::FoldTable, &table).unwrap();
    assert_eq!(Some(payload.as_slice()), sift_text::decompose::rare_folds_bytes(), "the builder's own table, byte for byte");
    assert!(b.manifest.keyword_shards().any(|s| s.file == table.file), "the keyword engine reads it");

    // A damaged copy is refused by its checksum; a well-framed copy of another table (a
    // bundle of another version) by the engine, which installs only its own.
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let mut damaged = stored.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    assert_eq!(e.add_shard(&table.file, &damaged).unwrap_err().code, "bundle_corrupt");
    let mut other = payload.clone();
    other[0] ^= 1;
    let framed = sift_format::encode_shard(ShardKind::FoldTable, &other);
    let mut manifest = b.manifest.clone();
    let sref = manifest.fold_table.as_mut().unwrap();
    *sref = ShardRef::new(sref.file.clone(), framed.len() as u64, sift_base::crc32::crc32(&framed));
    let mut e = Engine::new(&manifest.to_json_bytes()).unwrap();
    let err = e.add_shard(&table.file, &framed).unwrap_err();
    assert!(err.message.contains("rebuild"), "{}", err.message);
    e.add_shard(&table.file, &stored).unwrap_err(); // the listed checksum is the other one's
}

#[path = "bundle/semantic_stores.rs"]
mod semantic_stores;
#[path = "bundle/vocabulary.rs"]
mod vocabulary;
