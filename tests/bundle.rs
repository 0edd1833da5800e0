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

/// Many small term shards, as a real site has, and a vocabulary of several shards.
fn many_term_shards() -> sift_build::BuiltBundle {
    build(&corpus_docs(), &BuildOptions { term_shard_target: 24, vocabulary_target: 256, ..Default::default() }).unwrap()
}

fn vocab_shards_in(fetched: &[String]) -> usize {
    fetched.iter().filter(|f| f.starts_with("k-")).count()
}

#[test]
fn a_typo_one_edit_from_a_word_as_written_finds_it_though_its_stem_is_two_edits_away() {
    // `provders`: one edit from `providers`, two from its stem `provid` (and from
    // `provider`'s): matched by stems alone it found nothing. A small site and a bigger
    // one (a vocabulary of one shard, and of several).
    let small = build(&corpus_docs(), &BuildOptions::default()).unwrap();
    for (bundle, what) in [(&small, "small"), (&many_term_shards(), "bigger")] {
        for (typed, written) in [("provders", "providers"), ("rotatng tokens", "rotating tokens")] {
            let (r, _) = search_fetching(bundle, typed);
            assert!(!r.results.is_empty(), "{what}: {typed} found nothing");
            let f = r.fallback.as_ref().expect("fuzzy matching is reported");
            assert_eq!(f.to, "fuzzy", "{what}: {typed}: {f:?}");
            assert_eq!(r.suggestions, [written], "{what}: {typed}");
        }
    }
    // Still nothing for what is near no word at all, and words as typed win.
    let (r, _) = search_fetching(&small, "zzqxvwk");
    assert!(r.results.is_empty());
    let (r, _) = search_fetching(&small, "providers");
    assert!(r.fallback.is_none() && r.suggestions.is_empty(), "{:?}", r.fallback);
}

#[test]
fn a_typo_reads_its_letters_vocabulary_then_only_the_chosen_neighbours_term_shards() {
    let b = many_term_shards();
    let files = b.manifest.vocab_files.clone();
    assert!(files.starts_with("k-") && b.manifest.vocabulary.len() > 1, "{files}");
    let (r, fetched) = search_fetching(&b, "cachr");
    assert_eq!(r.results[0].id, "reference/cache.md");
    assert_eq!(vocab_shards_in(&fetched), 1, "one letter, one vocabulary shard: {fetched:?}");
    let (t, all) = (term_shards_in(&fetched), b.manifest.term_shards.len());
    assert!(all >= 20 && t * 4 <= all, "a mistyped word read {t} of {all} term shards");
    // An exact word (one too common for a "did you mean") reads no vocabulary.
    let (_, exact) = search_fetching(&b, "agentroot");
    assert_eq!(vocab_shards_in(&exact), 0);
}

#[test]
fn a_typo_in_the_first_letter_reads_the_whole_vocabulary_not_every_term_shard() {
    let b = many_term_shards();
    let (r, fetched) = search_fetching(&b, "xache");
    assert_eq!(r.results[0].id, "reference/cache.md");
    assert_eq!(vocab_shards_in(&fetched), b.manifest.vocabulary.len());
    assert!(term_shards_in(&fetched) * 4 <= b.manifest.term_shards.len(), "{fetched:?}");
}

/// The answer to `query` (as JSON, without its timings) and the rounds of the host loop it
/// took.
fn answer_and_rounds(b: &sift_build::BuiltBundle, query: &str) -> (serde_json::Value, usize) {
    let (r, _, rounds) = search_in_rounds(b, query);
    let mut v = value(&sift_base::json::ToJson::to_json(&r));
    v.as_object_mut().unwrap().remove("timings_ms");
    (v, rounds)
}

/// How far a "did you mean" is from what was typed: the edits of its words from the
/// query's, word by word (suggestions replace words, they do not add or drop them).
fn suggestion_edits(query: &str, answer: &serde_json::Value) -> Option<usize> {
    let suggestion = answer["suggestions"][0].as_str()?;
    let words = |s: &str| s.split_whitespace().map(sift_text::analyzer::fold).collect::<Vec<_>>();
    let (typed, suggested) = (words(query), words(suggestion));
    assert_eq!(typed.len(), suggested.len(), "{query} → {suggestion}");
    Some(typed.iter().zip(&suggested).map(|(a, b)| usize::from(sift_engine::fuzzy::distance(a, b, 9))).sum())
}

#[test]
fn mistyped_queries_are_answered_by_similar_spellings_in_few_rounds() {
    let b = many_term_shards();
    let queries = [
        "cachr",
        "xache",
        "authentification",
        "confguration",
        "provders",
        "rotatng tokens",
        "agentrot",
        "statemahcine",
        "transitons",
        "releasng production",
        "memoizaton",
        "escapng",
        "deployng",
        "protocl",
        "rotate tokns",
        "securty endpont",
    ];
    let mut fuzzy = 0;
    for q in queries {
        let (a, rounds) = answer_and_rounds(&b, q);
        // At most: the words as typed, their letters' vocabularies, the whole vocabulary,
        // the chosen neighbours' term shards, the doc shards, a "did you mean".
        assert!(rounds <= MAX_HOST_ROUNDS / 2, "{q}: {rounds} rounds");
        let matched = a["fallback"]["to"] == "fuzzy" || a["fallback"]["reason"].as_str().is_some_and(|r| r.contains("similar spellings"));
        if matched {
            fuzzy += 1;
            // A "did you mean" is never farther from what was typed than the words it replaces.
            let edits = suggestion_edits(q, &a).expect("says what it matched");
            assert!(edits <= 2 * q.split_whitespace().count(), "{q}: {}", a["suggestions"]);
        }
    }
    assert!(fuzzy >= 12, "only {fuzzy} of the queries were answered by typo tolerance");
    let (a, _) = answer_and_rounds(&b, "zzzzzqx");
    assert_eq!(a["total"], 0, "nothing near nonsense");
}

#[test]
fn several_mistyped_words_read_their_vocabularies_together_then_their_term_shards_together() {
    let b = many_term_shards();
    let (_, rounds_one) = answer_and_rounds(&b, "authentification");
    let (a, rounds_three) = answer_and_rounds(&b, "authentification confguration rotatng");
    assert!(a["fallback"]["from"].as_str().is_some_and(|f| f.contains("fuzzy")), "{a}");
    let (_, rounds_other) = answer_and_rounds(&b, "confguration");
    // At most: the words as typed, their letters' vocabularies, the whole vocabulary (for
    // `authentification`, with no neighbour a single edit away), the chosen neighbours'
    // term shards, the doc shards — for any number of mistyped words.
    assert!(
        rounds_three <= 5 && rounds_three < rounds_one + rounds_other - 1,
        "{rounds_three} rounds ({rounds_one} and {rounds_other} alone)"
    );
}

#[test]
fn a_small_sites_vocabulary_is_one_shard_read_with_the_words_so_a_typo_costs_no_round() {
    let small = build(&corpus_docs(), &BuildOptions::default()).unwrap();
    assert!(small.manifest.term_shards.len() <= 2, "the corpus fits in few term shards");
    assert_eq!(small.manifest.vocabulary.len(), 1);
    let (_, fetched) = search_fetching(&small, "provders");
    assert_eq!(vocab_shards_in(&fetched), 1);
    let rounds = |q: &str| search_in_rounds(&small, q).2;
    assert_eq!(rounds("provders"), rounds("providers"), "the typo is corrected in the rounds the word takes");
    // A word too short to be corrected does not ask for it.
    let (_, fetched) = search_fetching(&small, "mcp");
    assert_eq!(vocab_shards_in(&fetched), 0);
}

#[test]
fn vocabulary_shards_are_named_by_rule_hold_whole_letters_and_are_checked() {
    let b = many_term_shards();
    let files = b.manifest.vocab_files.clone();
    let v = &b.manifest.vocabulary;
    for (n, k) in v.iter().enumerate() {
        assert_eq!(k.shard.file, format!("{files}-{n}.bin"));
        assert!(k.last.is_none() && k.shard.check.is_none());
        if n > 0 {
            assert_ne!(k.first.chars().next(), v[n - 1].first.chars().next(), "a letter is never split");
        }
    }
    let text = String::from_utf8(b.manifest_bytes()).unwrap();
    assert_eq!(sift_format::Manifest::parse(text.as_bytes()).unwrap(), b.manifest);
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let (first, second) = (&v[0].shard.file, &v[1].shard.file);
    let err = e.add_shard(first, &bytes_of(second)).unwrap_err();
    assert_eq!(err.code, "bundle_corrupt");
    assert!(err.message.contains("vocabulary shard") && err.message.contains("does not hold the terms"), "{}", err.message);
    assert!(e.add_shard(first, &bytes_of(&b.manifest.term_shards[0].shard.file)).is_err(), "a term shard is not a vocabulary shard");
    every_flip_is_refused(&mut e, first, &bytes_of(first), 7);
    // The keyword engine reads it too (it is not a shard of semantic search).
    e.add_shard(first, &bytes_of(first)).unwrap();
    assert!(e.is_loaded(first) && e.all_files().contains(first));
}

#[test]
fn a_malformed_vocabulary_is_a_clear_error() {
    let b = many_term_shards();
    let m: serde_json::Value = serde_json::from_slice(&b.manifest_bytes()).unwrap();
    let refused = |m: &serde_json::Value| Engine::new(m.to_string().as_bytes()).err().expect("refused");
    let mut disorder = m.clone();
    disorder["vocabulary"]["first"].as_array_mut().unwrap().swap(0, 1);
    assert!(refused(&disorder).message.contains("vocabulary shards are not in order"));
    let mut not_a_term = m.clone();
    not_a_term["vocabulary"]["first"][0] = serde_json::Value::Null;
    assert_eq!(refused(&not_a_term).code, "bundle_corrupt");
    let mut unsafe_name = m.clone();
    unsafe_name["vocabulary"]["files"] = "k/../../x".into();
    assert!(refused(&unsafe_name).message.contains("unsafe shard file"));
    let mut no_files = m;
    no_files["vocabulary"].as_object_mut().unwrap().remove("files");
    assert_eq!(refused(&no_files).code, "bundle_corrupt");
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

#[test]
fn a_malformed_term_store_is_a_clear_error() {
    let b = built();
    let m: serde_json::Value = serde_json::from_slice(&b.manifest_bytes()).unwrap();
    let refused = |m: &serde_json::Value| Engine::new(m.to_string().as_bytes()).err().expect("refused");
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
    let m: serde_json::Value = serde_json::from_slice(&b.manifest_bytes()).unwrap();
    let refused = |m: &serde_json::Value| Engine::new(m.to_string().as_bytes()).err().expect("refused");
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

/// A bundle with vectors in three lists and a static query encoder (the toy model's).
fn semantic_built(docs: &[sift_base::SourceDoc]) -> sift_build::BuiltBundle {
    let mut semantic = sift_build::semantic::toy::semantic_input(docs, 16);
    semantic.lists = Some(3);
    semantic.probe = 8;
    semantic.group_from_lists = 2;
    build(docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap()
}

/// A hybrid search by a cold engine through the host loop: the files it read.
fn hybrid_fetching(b: &sift_build::BuiltBundle, query: &str) -> (sift_engine::SearchResponse, Vec<String>) {
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let req = SearchRequest { query: query.into(), mode: Some("hybrid".into()), ..Default::default() };
    let mut fetched = Vec::new();
    let r = e
        .drive(
            |e| e.search(&req, &ctx()),
            |f| {
                fetched.push(f.to_string());
                Ok(b.shards.iter().find(|(n, _)| n == f).unwrap_or_else(|| panic!("{f} was written")).1.clone())
            },
        )
        .unwrap();
    (r, fetched)
}

#[test]
fn the_semantic_stores_are_named_by_rule_and_the_encoder_index_is_the_manifests() {
    let docs = corpus_docs();
    let b = semantic_built(&docs);
    let enc = b.manifest.encoder.as_ref().unwrap();
    let ix = enc.layout.index().unwrap();
    assert!(ix.groups.len() >= 2 && ix.row_shards.len() >= 2, "{} groups, {} row shards", ix.groups.len(), ix.row_shards.len());
    for (stem, refs) in [(&enc.layout.group_files, &ix.groups), (&enc.layout.row_files, &ix.row_shards)] {
        for (n, r) in refs.iter().enumerate() {
            assert_eq!(r.file, format!("{stem}-{n}.bin"));
            assert!(r.check.is_none());
            assert!(b.shards.iter().any(|(name, _)| *name == r.file), "{} is written", r.file);
        }
    }
    assert!(!b.shards.iter().any(|(n, _)| n.starts_with("w-")), "no encoder index shard");
    let n_lists = b.shards.iter().filter(|(n, _)| n.starts_with("l-")).count();
    assert_eq!(n_lists, 3);
    let text = String::from_utf8(b.manifest_bytes()).unwrap();
    assert_eq!(sift_format::Manifest::parse(text.as_bytes()).unwrap(), b.manifest);

    // A hybrid query reads the vector index, then the encoder's groups and rows and the
    // nearest lists, each by its rule name: no index shard for the encoder.
    let (r, fetched) = hybrid_fetching(&b, "state machine transitions");
    assert_eq!(r.search_type, "hybrid");
    assert!(!r.results.is_empty());
    for prefix in ["x-", "c-", "l-", "g-", "e-"] {
        assert!(fetched.iter().any(|f| f.starts_with(prefix)), "{prefix} read: {fetched:?}");
    }
    assert!(fetched.iter().filter(|f| ["c-", "l-", "g-", "e-"].iter().any(|p| f.starts_with(p))).all(|f| f.matches('-').count() == 2));
    assert!(!fetched.iter().any(|f| f.starts_with("w-")));

    // A rebuild of changed text renames every child of every store.
    let mut changed = docs.clone();
    changed[0].sections[0].text.push_str(" zebra crossing");
    let c = semantic_built(&changed);
    let (le, ce) = (&enc.layout, &c.manifest.encoder.as_ref().unwrap().layout);
    assert_ne!(le.row_files, ce.row_files);
    assert_ne!(le.group_files, ce.group_files);
}

#[test]
fn a_query_reads_the_nearest_list_groups_then_the_nearest_lists_in_them() {
    // 240 pages on 24 topics, each topic its own words: vectors in clear neighbourhoods.
    let docs: Vec<sift_base::SourceDoc> = (0..240)
        .map(|i| {
            let topic = i % 24;
            let words: Vec<String> = (0..6).map(|w| format!("topic{topic}word{w}")).collect();
            let text = format!("{} page{i}", words.join(" "));
            let section = sift_base::Section { heading: String::new(), anchor: None, text, symbol: None };
            sift_base::SourceDoc {
                id: format!("p{i}"),
                url: format!("/p{i}"),
                title: format!("Page {i}"),
                sections: vec![section],
                ..Default::default()
            }
        })
        .collect();
    let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
    semantic.lists = Some(48);
    semantic.probe = 4;
    semantic.group_from_lists = 2;
    let b = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap();
    let n_lists = b.shards.iter().filter(|(n, _)| n.starts_with("l-")).count();
    let n_groups = b.shards.iter().filter(|(n, _)| n.starts_with("c-")).count();
    let want = (2.0 * (n_lists as f64).sqrt()).round() as usize;
    assert!(n_groups <= want && n_groups + 3 >= want, "2√{n_lists} groups, less any k-means left empty: {n_groups}");
    let mut warm = Engine::new(&b.manifest_bytes()).unwrap();
    sift_tests::frozen::load_all(&mut warm, |f| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone());
    let mut fewest_groups = n_groups;
    for q in ["topic3word1 topic3word2", "topic17word0", "topic9word4 topic9word5 page9"] {
        let (cold, fetched) = hybrid_fetching(&b, q);
        let first = |p: &str| fetched.iter().position(|f| f.starts_with(p));
        assert!(first("c-").is_some() && first("c-") < first("l-"), "{q}: groups, then lists: {fetched:?}");
        fewest_groups = fewest_groups.min(fetched.iter().filter(|f| f.starts_with("c-")).count());
        let req = SearchRequest { query: q.into(), mode: Some("hybrid".into()), ..Default::default() };
        let sift_engine::Step::Done(all) = warm.search(&req, &ctx()).unwrap() else { panic!("all loaded") };
        let ids = |r: &sift_engine::SearchResponse| r.results.iter().map(|h| h.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&cold), ids(&all), "{q}: a cold engine answers as one with every shard loaded");
    }
    assert!(fewest_groups < n_groups, "a query reads the nearest groups, not all");
}

/// A token added to a toy encoder's vocabulary under the next free id, with its prior row.
fn add_token(enc: &mut sift_build::semantic::layout::EncoderInput, token: &str) -> u32 {
    let id = 1 + *enc.vocab.keys().max().unwrap();
    enc.prior.insert(id, sift_build::semantic::toy::embed(token, 16));
    enc.vocab.insert(id, token.to_string());
    id
}

#[test]
fn a_word_the_site_uses_in_pieces_is_looked_up_whole_and_reads_no_continuation_group() {
    let docs = corpus_docs();
    let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
    let enc = semantic.encoder.as_mut().unwrap();
    // `quuxifying`, cut as `quux ##ify ##ing`, in two chunks; `zqing` (`zq ##ing`) in one.
    let pieces = [add_token(enc, "quux"), add_token(enc, "##ify"), add_token(enc, "##ing")];
    let zq = add_token(enc, "zq");
    enc.chunk_tokens[0].extend(pieces);
    enc.chunk_tokens[1].extend(pieces);
    enc.chunk_tokens[2].extend([zq, pieces[2]]);
    let b = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap();
    let ix = b.manifest.encoder.as_ref().unwrap().layout.index().unwrap();
    let continuation_groups: Vec<&str> = ix.groups[ix.n_word_groups..].iter().map(|g| g.file.as_str()).collect();

    let (r, fetched) = hybrid_fetching(&b, "quuxifying");
    assert!(!r.results.is_empty(), "answered by its meaning");
    assert!(!fetched.iter().any(|f| continuation_groups.contains(&f.as_str())), "{fetched:?}");
    let rows = fetched.iter().filter(|f| f.starts_with(&ix.row_shards[0].file[..18])).count();
    assert!(rows >= 1, "its pieces' rows are read: {fetched:?}");
    // A word one chunk uses is cut as before: its continuation's group is read.
    let (_, fetched) = hybrid_fetching(&b, "zqing");
    assert!(fetched.contains(&ix.groups[ix.group_of("##ing")].file), "{fetched:?}");
    cold_answers_as_warm(&b, &["quuxifying", "quuxifying cache", "zqing quuxifying"]);
}

#[test]
fn a_word_cut_into_continuations_reads_only_their_groups() {
    let docs = corpus_docs();
    let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
    // The words `quux` and `zq` and 26 × 8 continuations (`##a0` … `##z7`, and `##ify`, `##ing`),
    // as a real vocabulary has them: enough for several continuation groups.
    let enc = semantic.encoder.as_mut().unwrap();
    let add = |enc: &mut sift_build::semantic::layout::EncoderInput, token: String| {
        let id = add_token(enc, &token);
        enc.extra.push(id);
    };
    add(enc, "quux".into());
    add(enc, "zq".into());
    for c in 'a'..='z' {
        for k in 0..8 {
            add(enc, format!("##{c}{k}"));
        }
    }
    add(enc, "##ify".into());
    add(enc, "##ing".into());
    let b = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap();
    let ix = b.manifest.encoder.as_ref().unwrap().layout.index().unwrap();
    assert!(ix.n_continuation_groups >= 3, "{} continuation groups", ix.n_continuation_groups);
    let continuation_groups: Vec<&str> = ix.groups[ix.n_word_groups..].iter().map(|g| g.file.as_str()).collect();

    // `quuxifying`: `quux`, then `##ify` and `##ing`, both in the group of `i`.
    // No page has the word: answered by its meaning, which its pieces' rows give.
    let (r, fetched) = hybrid_fetching(&b, "quuxifying");
    assert_eq!(r.search_type, "semantic");
    assert!(!r.results.is_empty());
    let read: Vec<&String> = fetched.iter().filter(|f| continuation_groups.contains(&f.as_str())).collect();
    assert_eq!(read, [&ix.groups[ix.group_of("##ify")].file], "one continuation group: {fetched:?}");
    assert_eq!(ix.group_of("##ify"), ix.group_of("##ing"));
    // A word whose first piece is shorter than a group's key (`zq`, then `##x0`) reads
    // that piece's group and the continuation's.
    let (_, fetched) = hybrid_fetching(&b, "zqx0");
    for token in ["zq", "##x0"] {
        assert!(fetched.contains(&ix.groups[ix.group_of(token)].file), "{token}: {fetched:?}");
    }
    // A word cut into a piece a character (`quux` and 12 continuations, as a pasted hash
    // is) takes two rounds of continuation groups, not one a piece.
    let long = "quuxa0b1c2d3e4f5g6h7i0j1k2l3";
    let req = SearchRequest { query: long.into(), mode: Some("hybrid".into()), ..Default::default() };
    let (_, rounds) = sift_tests::cold_search(&b, &req);
    let continuation_rounds = rounds[1..].iter().filter(|r| r.iter().any(|f| continuation_groups.contains(&f.as_str()))).count();
    assert_eq!(continuation_rounds, 2, "{rounds:?}");
    // A word the bundle has whole reads no continuation group.
    let (_, fetched) = hybrid_fetching(&b, "cache");
    assert!(!fetched.iter().any(|f| continuation_groups.contains(&f.as_str())), "{fetched:?}");
    cold_answers_as_warm(&b, &["quuxifying cache", "zqx0 cache", "quuxa0b1c2d3e4f5g6h7i0j1k2l3 cache"]);
}

/// Cold (fetching what it needs) or warm (every shard loaded), the same vector and the
/// same hybrid answer.
fn cold_answers_as_warm(b: &sift_build::BuiltBundle, queries: &[&str]) {
    let mut warm = Engine::new(&b.manifest_bytes()).unwrap();
    sift_tests::frozen::load_all(&mut warm, |f| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone());
    for &q in queries {
        let req = SearchRequest { query: q.into(), mode: Some("hybrid".into()), ..Default::default() };
        let sift_engine::Step::Done(all) = warm.search(&req, &ctx()).unwrap() else { panic!("all loaded") };
        let (cold, _) = hybrid_fetching(b, q);
        let ids = |r: &sift_engine::SearchResponse| r.results.iter().map(|h| (h.id.clone(), h.score)).collect::<Vec<_>>();
        assert_eq!(ids(&cold), ids(&all), "{q}");
    }
}

#[test]
fn a_query_that_only_excludes_asks_for_a_word_and_reads_no_document() {
    let b = built();
    for q in ["-cache", "-cache -\"connection pool\""] {
        let (r, rounds) = cold_search(&b, &SearchRequest::new(q));
        assert!(r.results.is_empty() && r.total == 0 && !r.has_more, "{q}");
        let fallback = r.fallback.expect("says why");
        assert!(fallback.reason.contains("only excludes"), "{}", fallback.reason);
        assert!(rounds.iter().flatten().all(|f| !f.starts_with("d-")), "{q}: {rounds:?}");
    }
}

#[test]
fn searches_taken_in_turns_by_one_cold_engine_each_answer_as_a_warm_engine_does() {
    // A ranked search waits on the engine for its page's documents; another search asked
    // in between must neither take its ranking nor lose its own.
    let b = semantic_built(&corpus_docs());
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let reqs: Vec<SearchRequest> = [("cache", "hybrid", false), ("quuxifying cache", "hybrid", true), ("cache", "lexical", false)]
        .into_iter()
        .map(|(q, mode, explain)| SearchRequest { query: q.into(), mode: Some(mode.into()), explain: Some(explain), ..Default::default() })
        .collect();
    let mut warm = Engine::new(&b.manifest_bytes()).unwrap();
    sift_tests::frozen::load_all(&mut warm, |f| bytes_of(f));
    let json = |r: &sift_engine::SearchResponse| sift_base::json::ToJson::to_json(r).to_text();
    let want: Vec<String> = reqs
        .iter()
        .map(|r| match warm.search(r, &ctx()).unwrap() {
            sift_engine::Step::Done(a) => json(&a),
            sift_engine::Step::Need(f) => panic!("all loaded, yet {f:?}"),
        })
        .collect();
    let mut cold = Engine::new(&b.manifest_bytes()).unwrap();
    let mut got: Vec<Option<String>> = vec![None; reqs.len()];
    for _ in 0..MAX_HOST_ROUNDS * reqs.len() {
        for (i, r) in reqs.iter().enumerate() {
            if got[i].is_some() {
                continue;
            }
            match cold.search(r, &ctx()).unwrap() {
                sift_engine::Step::Done(a) => got[i] = Some(json(&a)),
                // Only the first file: each search's rounds stay interleaved with the others'.
                sift_engine::Step::Need(f) => cold.add_shard(&f[0], &bytes_of(&f[0])).unwrap(),
            }
        }
    }
    for (i, r) in reqs.iter().enumerate() {
        assert_eq!(got[i].as_deref(), Some(want[i].as_str()), "{:?} {:?}", r.query, r.mode);
    }
}

#[test]
fn an_encoder_input_whose_chunks_do_not_match_the_chunk_vectors_is_refused() {
    let docs = corpus_docs();
    for change in [1usize, 2] {
        let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
        let enc = semantic.encoder.as_mut().unwrap();
        if change == 1 {
            enc.chunk_tokens.pop(); // one chunk's tokens missing
        } else {
            let extra = enc.chunk_tokens[0].clone();
            enc.chunk_tokens.push(extra); // tokens of a chunk that has no vector
        }
        let err = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).err().expect("refused");
        assert_eq!(err.code, sift_base::error::ErrorCode::InvalidRequest, "{}", err.message);
        assert!(err.message.contains("chunk vectors but token ids for"), "{}", err.message);
    }
}

#[test]
fn a_semantic_child_under_another_ones_name_is_refused() {
    let b = semantic_built(&corpus_docs());
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let index = b.manifest.vectors.as_ref().unwrap().index.file.clone();
    e.add_shard(&index, &bytes_of(&index)).unwrap();
    let ix = b.manifest.encoder.as_ref().unwrap().layout.index().unwrap();
    let of = |p: &str| -> Vec<String> { e.all_files().into_iter().filter(|f| f.starts_with(p)).collect() };
    let (lists, groups) = (of("l-"), of("c-"));
    for (first, second) in [
        (lists[0].clone(), lists[1].clone()),
        (groups[0].clone(), groups[1].clone()),
        (ix.groups[0].file.clone(), ix.groups[1].file.clone()),
        (ix.row_shards[0].file.clone(), ix.row_shards[1].file.clone()),
    ] {
        let err = e.add_shard(&first, &bytes_of(&second)).unwrap_err();
        assert_eq!(err.code, "bundle_corrupt");
        assert!(err.message.contains("served under another's name"), "{first}: {}", err.message);
        assert!(!e.is_loaded(&first));
        every_flip_is_refused(&mut e, &first, &bytes_of(&first), 3);
    }
}

#[test]
fn a_malformed_encoder_layout_is_a_clear_error() {
    let b = semantic_built(&corpus_docs());
    let m: serde_json::Value = serde_json::from_slice(&b.manifest_bytes()).unwrap();
    let refused = |v: &serde_json::Value| Engine::new(v.to_string().as_bytes()).err().expect("refused");
    let mut no_size = m.clone();
    no_size["encoder"].as_object_mut().unwrap().remove("rows_per_shard");
    assert_eq!(refused(&no_size).code, "bundle_corrupt");
    let mut unsafe_stem = m.clone();
    unsafe_stem["encoder"]["groups"] = "g/../../x".into();
    assert!(refused(&unsafe_stem).message.contains("unsafe shard file"), "{}", refused(&unsafe_stem).message);
    let mut wrong_dim = m.clone();
    wrong_dim["encoder"]["dim"] = 17.into();
    assert!(refused(&wrong_dim).message.contains("dimensions"), "{}", refused(&wrong_dim).message);
    let mut no_groups = m.clone();
    no_groups["encoder"]["word_groups"] = 0.into();
    assert!(refused(&no_groups).message.contains("implausible"), "{}", refused(&no_groups).message);
    let mut no_continuations = m.clone();
    no_continuations["encoder"]["continuation_groups"] = 0.into();
    assert!(refused(&no_continuations).message.contains("implausible"), "{}", refused(&no_continuations).message);
    let mut unnamed_continuations = m.clone();
    unnamed_continuations["encoder"].as_object_mut().unwrap().remove("continuation_groups");
    assert!(refused(&unnamed_continuations).message.contains("continuation_groups"), "{}", refused(&unnamed_continuations).message);
    let mut no_rows = m.clone();
    no_rows["encoder"].as_object_mut().unwrap().remove("rows");
    assert!(refused(&no_rows).message.contains("\"rows\""), "{}", refused(&no_rows).message);
    assert!(Engine::new(m.to_string().as_bytes()).is_ok());
}
