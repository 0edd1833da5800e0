//! The vocabulary: a typo reads its letter's vocabulary shard, then only the neighbours' term
//! shards, in few rounds; vocabulary shards are named by rule and checked.

use super::*;

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
    let m = manifest_json(&b);
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
