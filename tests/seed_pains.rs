//! Every pain in ../shared/seeds, as a test over the small docs set in tests/corpus.

use sift_base::SourceDoc;
use sift_engine::{MultiSearchRequest, SearchRequest, Step};
use sift_tests::*;

#[test]
fn page_named_for_a_term_outranks_pages_that_only_mention_it() {
    // agentroot-title-boost.md: "does agentroot have mcp?" must put mcp-server first,
    // although providers.md says "MCP" six times in its body.
    let e = corpus_engine();
    let r = search(&e, "does agentroot have mcp?");
    assert_eq!(ids(&r)[0], "guides/mcp-server.md", "{:?}", ids(&r));
    assert!(ids(&r).contains(&"guides/providers.md"));
    // Scores are graded in 0..1, not 0/50/100.
    let s: Vec<f32> = r.results.iter().map(|x| x.score).collect();
    assert!(s.iter().all(|x| *x > 0.0 && *x <= 1.0), "{s:?}");
    assert!(s[0] > s[1], "the title match scores higher: {s:?}");
    // Two-letter acronyms count: "AI" is a term, not noise.
    assert_eq!(ids(&search(&e, "AI agents"))[0], "guides/mcp-server.md");
    // The term alone too, on a site whose long pages make a short body that says it often
    // weigh more (the sample docs with the architecture notes: providers.md came first).
    let mut docs = corpus_docs();
    let long = |id: &str, title: &str| SourceDoc {
        id: id.into(),
        url: format!("/{id}"),
        title: title.into(),
        sections: vec![sift_base::doc::Section {
            heading: String::new(),
            anchor: None,
            text: "Pages of notes about the design, the build and the runtime. ".repeat(300),
            symbol: None,
        }],
        ..Default::default()
    };
    docs.extend([long("design.md", "Design"), long("history.md", "History")]);
    let e = engine_from_docs(&docs, &Default::default()).unwrap();
    for q in ["mcp", "MCP server"] {
        let r = search(&e, q);
        assert_eq!(ids(&r)[..2], ["guides/mcp-server.md", "guides/providers.md"], "{q}");
    }
}

#[test]
fn a_misspelt_query_finds_its_page_and_says_so() {
    let e = corpus_engine();
    let r = search(&e, "authentificate");
    assert_eq!(ids(&r)[0], "guides/authentication.md");
    let f = r.fallback.as_ref().expect("fuzzy matching is reported");
    assert_eq!((f.from.as_str(), f.to.as_str()), ("exact", "fuzzy"));
    assert!(f.reason.contains("authentificate"), "{}", f.reason);
    assert!(r.suggestions.iter().any(|s| s.starts_with("authentic")), "did you mean: {:?}", r.suggestions);
    // Transposition is one edit.
    assert_eq!(ids(&search(&e, "tarnsition"))[0], "reference/state-machine.md");
    // Exact matches beat fuzzy ones: "cache" does not drag in "catch"-like neighbours first.
    assert_eq!(ids(&search(&e, "cache"))[0], "reference/cache.md");
}

#[test]
fn camel_snake_and_spaced_forms_find_the_same_page() {
    let e = corpus_engine();
    for q in ["StateMachine", "state_machine", "state machine", "state-machine", "statemachine"] {
        let r = search(&e, q);
        assert_eq!(ids(&r).first(), Some(&"reference/state-machine.md"), "{q}: {:?}", ids(&r));
    }
}

#[test]
fn or_returns_the_union_and_exclusion_removes() {
    let e = corpus_engine();
    let both = search(&e, "cache OR memo");
    let ids_both = ids(&both);
    assert!(ids_both.contains(&"reference/cache.md") && ids_both.contains(&"reference/memo.md"), "{ids_both:?}");
    assert!(both.fallback.is_none(), "OR is what was asked, not a fallback");
    let cache_only = search(&e, "cache");
    assert!(!ids(&cache_only).contains(&"reference/memo.md"));
    let r = search(&e, "cache -release");
    assert!(ids(&r).contains(&"reference/cache.md") && !ids(&r).contains(&"blog/release-notes.md"), "{:?}", ids(&r));
}

#[test]
fn phrases_need_adjacent_words_and_a_phrase_no_page_has_becomes_its_words() {
    let e = corpus_engine();
    let exact = |q: &str| {
        let r = search(&e, q);
        assert!(r.fallback.is_none(), "{q}: {:?}", r.fallback);
        ids(&r).into_iter().map(String::from).collect::<Vec<_>>()
    };
    let relaxed = |q: &str| {
        let r = search(&e, q);
        assert_eq!(r.fallback.as_ref().map(|f| f.from.as_str()), Some("phrase"), "{q}: not relaxed");
        ids(&r).into_iter().map(String::from).collect::<Vec<_>>()
    };
    assert_eq!(exact("\"authentication tokens\""), ["guides/authentication.md"]);
    // "tokens expire" is in the page, "expire tokens" is not: the page, for its words.
    assert_eq!(exact("\"tokens expire\""), ["guides/authentication.md"]);
    assert_eq!(relaxed("\"expire tokens\"")[0], "guides/authentication.md");
    // Stop words inside a phrase keep their place: "releasing agentroot to production".
    assert_eq!(exact("\"agentroot to production\""), ["guides/deploy.md"]);
    relaxed("\"agentroot production\""); // the gap must be there
    relaxed("\"agentroot the to production\""); // and be one word wide
}

#[test]
fn quoted_text_never_empties_the_page() {
    let e = corpus_engine();
    // A title remembered wrongly, quoted: the pages with its words, and a note that says so.
    let r = search(&e, "\"authentication tokens rotate after one hour\"");
    assert_eq!(ids(&r)[0], "guides/authentication.md", "{:?}", ids(&r));
    let f = r.fallback.as_ref().unwrap();
    assert_eq!(f.from, "phrase", "{f:?}");
    assert_eq!(
        f.reason,
        "no document contains \"authentication tokens rotate after one hour\"; searched for its words; then only 1 document contains every term"
    );
    // Quoted inside a sentence, among words that are found.
    let r = search(&e, "I read \"upload the agentroot bundle\" and want production");
    assert_eq!(ids(&r)[0], "guides/deploy.md", "{:?}", ids(&r));
    assert_eq!(r.fallback.as_ref().unwrap().from, "phrase");
    // Two quotations each found, never on one page: their words.
    let r = search(&e, "\"switch traffic\" \"authentication tokens\"");
    assert!(!r.results.is_empty());
    assert!(r.fallback.as_ref().unwrap().reason.starts_with("no document contains all of "), "{:?}", r.fallback);
    // An unbalanced quotation mark is text: the same answer as without it.
    for q in ["\"switch traffic", "switch traffic\"", "switch 6\" traffic"] {
        let r = search(&e, q);
        assert_eq!(ids(&r), ids(&search(&e, &q.replace(['"', '6'], ""))), "{q}");
        assert!(!r.results.is_empty(), "{q}");
    }
    // In a pasted paragraph, quotation marks cite: pages without the quoted words count.
    let para = "we release agentroot to production by building the bundle and then \"rotate tokens\" for every user";
    let r = search(&e, para);
    assert!(r.fallback.as_ref().is_none_or(|f| f.from != "phrase"), "{:?}", r.fallback);
    assert!(ids(&r).contains(&"guides/deploy.md") && ids(&r).contains(&"guides/authentication.md"), "{:?}", ids(&r));
    // A phrase that is on a page stays exact, beside words found on other pages too.
    let r = search(&e, "\"switch traffic\" bundle");
    assert_eq!(ids(&r), ["guides/deploy.md"]);
    assert!(r.fallback.is_none());
    // An excluded phrase stays an exclusion, found or not.
    let r = search(&e, "tokens -\"authentication tokens\"");
    assert!(!ids(&r).contains(&"guides/authentication.md"), "{:?}", ids(&r));
    let r = search(&e, "tokens -\"zebra tokens\"");
    assert_eq!(ids(&r)[0], "guides/authentication.md");
}

#[test]
fn filters_facets_and_since_narrow_correctly() {
    let e = corpus_engine();
    // All pages mentioning agentroot, then only guides since 2024.
    let all = search_json(&e, r#"{"query": "agentroot"}"#).unwrap();
    assert_eq!(all.total, 4, "{:?}", ids(&all));
    assert_eq!(all.facets["type"]["guide"], 4);
    let r = search_json(&e, r#"{"query": "agentroot", "filters": {"type": "guide"}, "since": "2024-01-01"}"#).unwrap();
    let mut got = ids(&r);
    got.sort();
    assert_eq!(got, vec!["guides/authentication.md", "guides/mcp-server.md"]);
    // A list of values is OR within the field; the query syntax does the same.
    let r = search_json(&e, r#"{"query": "agentroot", "filters": {"type": ["guide", "reference"]}}"#).unwrap();
    assert_eq!(r.total, all.total);
    let r = search(&e, "agentroot type:reference");
    assert!(r.results.iter().all(|x| x.doc_type.as_deref() == Some("reference")), "{:?}", ids(&r));
    // Relative since: the release notes are 12 days old on the fixed test date.
    let r = search_json(&e, r#"{"query": "cache", "since": "2w"}"#).unwrap();
    assert_eq!(ids(&r), vec!["blog/release-notes.md"]);
    // Sort by date, newest first.
    let r = search_json(&e, r#"{"query": "cache", "sort": "date"}"#).unwrap();
    assert_eq!(ids(&r)[0], "blog/release-notes.md");
    // Unknown values match nothing, and say so.
    let r = search_json(&e, r#"{"query": "agentroot", "filters": {"type": "nope"}}"#).unwrap();
    assert_eq!(r.total, 0);
    assert!(r.fallback.unwrap().reason.contains("filters"));
}

#[test]
fn a_query_of_filters_alone_lists_every_page_they_admit() {
    let docs = corpus_docs();
    let e = corpus_engine();
    let guides: Vec<&str> =
        docs.iter().filter(|d| d.metadata.get("type").is_some_and(|v| v.iter().any(|t| t == "guide"))).map(|d| d.id.as_str()).collect();
    assert!(guides.len() >= 3, "the corpus has guides: {guides:?}");
    for req in [r#"{"query": "type:guide"}"#, r#"{"query": "type:guide :=", "limit": 2}"#] {
        let r = search_json(&e, req).unwrap();
        assert_eq!(r.total, guides.len(), "{req}");
        assert!(r.results.iter().all(|x| x.doc_type.as_deref() == Some("guide")), "{req}: {:?}", ids(&r));
        assert_eq!(r.has_more, r.results.len() < guides.len(), "{req}");
        assert_eq!(r.facets["type"]["guide"], guides.len(), "{req}");
        let f = r.fallback.expect("says the query had no words");
        assert_eq!((f.from.as_str(), f.to.as_str()), ("query", "filters"));
        assert!(f.reason.contains("no words") && f.reason.contains("listing every page"), "{}", f.reason);
        assert!(r.results.iter().all(|x| !x.snippet.is_empty()), "{req}: a snippet from each page");
    }
    // Newest first by date, exclusions still hold, and a value no page has says so.
    let r = search_json(&e, r#"{"query": "type:guide", "sort": "date", "limit": 50}"#).unwrap();
    let dates: Vec<String> =
        r.results.iter().map(|x| docs.iter().find(|d| d.id == x.id).unwrap().date.clone().unwrap_or_default()).collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
    let r = search(&e, "type:guide -token");
    assert_eq!(r.total, guides.len() - 1, "{:?}", ids(&r));
    assert!(!ids(&r).contains(&"guides/authentication.md"), "{:?}", ids(&r));
    let r = search(&e, "type:nope");
    assert_eq!((r.total, r.results.len()), (0, 0));
    assert!(r.fallback.expect("says why").reason.contains("no page has the values"));
    let r = search(&e, "type:guide -agentroot");
    assert_eq!((r.total, r.results.len()), (0, 0), "every guide says agentroot");
    assert!(r.fallback.expect("says why").reason.contains("filters and exclusions"));
}

#[test]
fn a_query_of_symbols_alone_says_they_are_not_words_rather_than_blame_exclusions() {
    let e = corpus_engine();
    for q in [":=", "->", "@", "()", "???", "🙂"] {
        let r = search(&e, q);
        assert_eq!((r.total, r.results.len()), (0, 0), "{q}");
        let f = r.fallback.expect("never a silent empty page");
        assert!(f.reason.contains("no words") && !f.reason.contains("excludes"), "{q}: {}", f.reason);
    }
    let r = search(&e, "-cache");
    assert!(r.fallback.expect("says why").reason.contains("only excludes"));
}

#[test]
fn recency_boost_reorders_towards_new_pages() {
    let e = corpus_engine();
    let plain = search_json(&e, r#"{"query": "cache OR memo OR release"}"#).unwrap();
    let boosted = search_json(&e, r#"{"query": "cache OR memo OR release", "boost_recent": true}"#).unwrap();
    let pos = |r: &sift_engine::SearchResponse| ids(r).iter().position(|i| *i == "blog/release-notes.md").unwrap();
    assert!(pos(&boosted) <= pos(&plain));
    assert!(boosted.results[0].score <= 1.0);
}

#[test]
fn a_query_that_matches_nothing_explains_itself() {
    let e = corpus_engine();
    let r = search(&e, "zzqxv wwkkj");
    assert!(r.results.is_empty());
    assert_eq!(r.total, 0);
    assert!(!r.has_more);
    let f = r.fallback.expect("an explanation, never a silent empty page");
    assert!(f.reason.contains("no document"), "{}", f.reason);
}

#[test]
fn and_relaxes_to_or_and_reports_it() {
    let e = corpus_engine();
    let r = search(&e, "memo transition");
    assert!(r.total >= 2);
    let f = r.fallback.expect("relaxation is reported");
    assert_eq!((f.from.as_str(), f.to.as_str()), ("all terms", "any term"));
}

#[test]
fn snippets_and_titles_never_carry_page_markup() {
    let e = corpus_engine();
    let r = search(&e, "script alert escaping");
    let hit = r.results.iter().find(|x| x.id == "reference/escaping.md").expect("found");
    for s in std::iter::once(&hit.snippet).chain(std::iter::once(&hit.title)) {
        let without_marks = s.replace("<mark>", "").replace("</mark>", "");
        assert!(!without_marks.contains('<'), "unescaped markup in {s:?}");
    }
    assert!(hit.snippet.contains("&lt;<mark>script</mark>&gt;"), "{}", hit.snippet);
    assert!(hit.snippet.contains("<mark>"), "{}", hit.snippet);
    assert_eq!(hit.title, "Escaping &lt;b&gt;markup&lt;/b&gt; in pages");
    let r = search(&e, "onerror");
    assert!(!r.results[0].snippet.replace("<mark>", "").replace("</mark>", "").contains('<'));
}

#[test]
fn sub_results_deep_link_to_sections() {
    let e = corpus_engine();
    let r = search(&e, "rotate tokens");
    let hit = &r.results[0];
    assert_eq!(hit.id, "guides/authentication.md");
    assert!(hit.sub_results.iter().any(|s| s.url == "/guides/authentication.html#rotating"), "{:?}", hit.sub_results);
    let r = search_json(&e, r#"{"query": "rotate tokens", "include_content": true}"#).unwrap();
    assert!(r.results[0].content.as_deref().unwrap().contains("Rotate authentication tokens"));
}

/// A language reference's statements, the `for` one saying "statement" most: the stop
/// word typed with it (`with`, `if`) is no clause, so only the heading tells them apart.
fn statements() -> Vec<SourceDoc> {
    let section = |kw: &str, repeats: usize| sift_base::doc::Section {
        heading: format!("The {kw} statement"),
        anchor: Some(format!("the-{kw}-statement")),
        text: format!("The {kw} statement runs code. {}", "This statement is compound; a statement like it nests. ".repeat(repeats)),
        symbol: None,
    };
    let sections = vec![section("for", 6), section("while", 3), section("if", 1), section("with", 1)];
    vec![SourceDoc {
        id: "compound".into(),
        url: "/compound.html".into(),
        title: "Compound statements".into(),
        sections,
        ..Default::default()
    }]
}

#[test]
fn a_heading_with_the_query_as_typed_stop_words_and_all_is_the_first_sub_result() {
    let e = engine_from_docs(&statements(), &Default::default()).unwrap();
    for (q, anchor) in [("with statement", "with"), ("the if statement", "if"), ("If Statements", "if"), ("\"with statement\"", "with")] {
        let r = search(&e, q);
        let subs: Vec<&str> = r.results[0].sub_results.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(subs[0], format!("/compound.html#the-{anchor}-statement"), "{q}: {subs:?}");
        let snippet = r.results[0].snippet.replace("<mark>", "").replace("</mark>", "");
        assert!(snippet.starts_with(&format!("The {anchor} statement")), "the snippet is that section's: {q}: {snippet}");
    }
    // Without the stop word, the section saying the word most comes first, as before; and
    // words in another order are not the heading as typed.
    for q in ["statement", "statement with"] {
        let r = search(&e, q);
        assert_eq!(r.results[0].sub_results[0].url, "/compound.html#the-for-statement", "{q}");
    }
}

#[test]
fn search_as_you_type_matches_the_last_word_as_a_prefix() {
    let e = corpus_engine();
    for q in ["authen", "authenticat", "memoiz", "transit"] {
        let r = search(&e, q);
        assert!(!r.results.is_empty(), "{q}");
    }
    assert_eq!(ids(&search(&e, "authen"))[0], "guides/authentication.md");
    assert_eq!(ids(&search(&e, "state mach"))[0], "reference/state-machine.md");
    // A finished word (followed by a space) is not a prefix.
    assert!(search(&e, "authen ").results.is_empty() || search(&e, "authen ").fallback.is_some());
}

#[test]
fn pagination_total_and_has_more() {
    let e = corpus_engine();
    let all = search_json(&e, r#"{"query": "agentroot", "limit": 50}"#).unwrap();
    let p1 = search_json(&e, r#"{"query": "agentroot", "limit": 2}"#).unwrap();
    let p2 = search_json(&e, r#"{"query": "agentroot", "limit": 2, "offset": 2}"#).unwrap();
    assert_eq!(p1.total, all.total);
    assert!(p1.has_more);
    assert_eq!(ids(&p1), ids(&all)[..2].to_vec());
    assert_eq!(ids(&p2), ids(&all)[2..4].to_vec());
    let last = search_json(&e, &format!(r#"{{"query": "agentroot", "limit": 2, "offset": {}}}"#, all.total - 1)).unwrap();
    assert!(!last.has_more);
    assert_eq!(last.results.len(), 1);
}

#[test]
fn explain_says_which_terms_matched_where() {
    let e = corpus_engine();
    let r = search_json(&e, r#"{"query": "mcp server", "explain": true}"#).unwrap();
    let x = &sift_tests::value(r.results[0].explain.as_ref().expect("explain"));
    let first = &x["clauses"][0];
    assert_eq!(first["clause"], "mcp");
    assert!(first["best"]["terms"][0]["fields"]["title"].as_u64().unwrap() >= 1);
    assert!(x["normalised"].as_f64().unwrap() > 0.0);
    assert!((x["final"].as_f64().unwrap() - r.results[0].score as f64).abs() < 1e-3);
}

#[test]
fn multi_search_fuses_and_deduplicates() {
    let e = corpus_engine();
    let req = MultiSearchRequest::from_json(
        br#"{"queries": [{"query": "cache"}, {"query": "memo"}, {"query": "cache memory"}, {"query": "agentroot", "filters": {"type": "reference"}}]}"#,
    )
    .unwrap();
    let Step::Done(r) = e.multi_search(&req, &ctx()).unwrap() else { panic!("all loaded") };
    let got = ids_multi(&r);
    let mut dedup = got.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), got.len(), "no duplicates: {got:?}");
    assert_eq!(got[0], "reference/cache.md", "found by two queries, ranked first: {got:?}");
    let found_by = r.results[0].queries.clone().unwrap();
    assert!(found_by.contains(&0) && found_by.contains(&2), "{found_by:?}");
    assert!(got.contains(&"reference/memo.md"));
    assert_eq!(r.queries.len(), 4);
    // 31 queries are refused.
    let many = MultiSearchRequest { queries: (0..31).map(|i| SearchRequest::new(format!("q{i}"))).collect(), ..Default::default() };
    assert_eq!(e.multi_search(&many, &ctx()).unwrap_err().code, "too_many_queries");
    let none = MultiSearchRequest::default();
    assert!(e.multi_search(&none, &ctx()).is_err());
}

fn ids_multi(r: &sift_engine::MultiSearchResponse) -> Vec<&str> {
    r.results.iter().map(|x| x.id.as_str()).collect()
}

#[test]
fn bad_input_gets_clear_errors_not_panics() {
    let e = corpus_engine();
    let cases = [
        (r#"{"query": ""}"#, "empty_query"),
        (r#"{"query": "x", "limit": 0}"#, "invalid_limit"),
        (r#"{"query": "x", "limit": 500}"#, "invalid_limit"),
        (r#"{"query": "x", "filters": {"colour": "red"}}"#, "unknown_filter"),
        (r#"{"query": "x", "mode": "semantic"}"#, "no_vectors"),
        (r#"{"query": "x", "since": "later"}"#, "invalid_since"),
        (r#"{"query": "#, "invalid_json"),
    ];
    for (json, code) in cases {
        assert_eq!(search_json(&e, json).unwrap_err().code, code, "{json}");
    }
    let huge = format!(r#"{{"query": "{}"}}"#, "word ".repeat(20_000));
    assert_eq!(search_json(&e, &huge).unwrap_err().code, "query_too_long");
    assert!(!search(&e, "cache").results.is_empty());
    // Over 16 KB is refused; a hundred terms are answered (see long_pasted_text_is_answered).
    let over = "word ".repeat(3400);
    assert_eq!(run(&e, &SearchRequest::new(over)).unwrap_err().code, "query_too_long");
    // Hostile but valid strings are just queries.
    for q in ["\"", "-", "OR", "-cache", "\u{0}\u{1}", "🦀", "a:b:c", "((()))", "\\", "<script>"] {
        let r = run(&e, &SearchRequest::new(q));
        assert!(r.is_ok() || r.as_ref().unwrap_err().code == "empty_query", "{q:?}: {r:?}");
    }
}

/// Pain: a pasted paragraph was refused ("query has more than 64 terms"). Now it is answered
/// with its most informative terms, the page it came from first, and `fallback` says what was
/// kept. Repeated words count as evidence; words found nowhere are dropped.
#[test]
fn long_pasted_text_is_answered_with_its_most_informative_terms() {
    let e = corpus_engine();
    let page = corpus_docs().into_iter().find(|d| d.id.contains("state-machine")).expect("state-machine page");
    let body: String = page.sections.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" ");
    // The page's own text, padded with many distinct words the bundle has never seen.
    let noise: String = (0..80).map(|i| format!("zq{i}xv ")).collect();
    let pasted = format!("{noise}{}", format!("{body} ").repeat(2048 / body.len().max(1) + 2));
    assert!(pasted.split_whitespace().count() > 100, "a long text");
    assert!(pasted.len() > 2048, "over the old byte limit");
    let r = run(&e, &SearchRequest::new(pasted.clone())).expect("answered");
    assert_eq!(ids(&r).first().copied(), Some(page.id.as_str()), "the source page first: {:?}", ids(&r));
    let fb = r.fallback.expect("the reduction is reported");
    assert!(fb.reason.contains("most informative"), "{fb:?}");
    assert!(!fb.reason.contains("zq1xv"), "words found nowhere are not kept: {fb:?}");
    // Same answer through the JSON contract, and deterministic.
    let json = serde_json::json!({ "query": pasted }).to_string();
    assert_eq!(ids(&search_json(&e, &json).unwrap()), ids(&run(&e, &SearchRequest::new(pasted)).unwrap()));
}

/// Pain: on an API page every method has an "Examples" section, and `hashmap entry api`
/// showed three sub-results all labelled "Examples". A repeated heading is now told apart by
/// the item it sits under, and sections that would still read the same are merged.
#[test]
fn sub_results_are_labelled_so_they_can_be_told_apart() {
    use sift_base::doc::Section;
    let sec = |heading: &str, anchor: &str, text: &str| Section {
        heading: heading.into(),
        anchor: Some(anchor.into()),
        text: text.into(),
        symbol: None,
    };
    let page = SourceDoc {
        id: "std/collections/hash_map/struct.HashMap.html".into(),
        url: "/std/collections/hash_map/struct.HashMap.html".into(),
        title: "HashMap in std::collections".into(),
        path: "std collections hash_map struct HashMap".into(),
        sections: vec![
            sec("", "main", "A hash map implemented with quadratic probing and SIMD lookup."),
            sec("pub fn insert", "method.insert", "Inserts a key-value pair into the map."),
            sec("Examples", "examples", "let mut map = HashMap::new(); map.insert(37, \"a\"); the entry api is nicer"),
            sec("pub fn entry", "method.entry", "Gets the given key's corresponding entry in the map for in-place manipulation."),
            sec("Examples", "examples-1", "let mut letters = HashMap::new(); letters.entry(ch).or_insert(0); entry api"),
            sec("pub fn get", "method.get", "Returns a reference to the value corresponding to the key."),
            sec("Examples", "examples-2", "map.get(&1); the entry api is not needed here"),
            sec("Notes", "notes", "entry api notes"),
            sec("Notes", "notes-1", "entry api notes again"),
        ],
        metadata: Default::default(),
        date: None,
        link_density: 0.0,
        annotations: Default::default(),
    };
    let e = sift_tests::engine_from_docs(&[page], &sift_build::BuildOptions::default()).unwrap();
    let r = search(&e, "hashmap entry api");
    let titles: Vec<&str> = r.results[0].sub_results.iter().map(|s| s.title.as_str()).collect();
    let mut unique = titles.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), titles.len(), "every sub-result reads differently: {titles:?}");
    assert!(titles.contains(&"pub fn entry › Examples"), "{titles:?}");
    assert!(titles.iter().all(|t| *t != "Examples"), "{titles:?}");
    // Both "Notes" sit under the same item: one sub-result.
    assert!(titles.iter().filter(|t| t.ends_with("Notes")).count() <= 1, "{titles:?}");
}

/// Pain: generated index pages (Sphinx `genindex`, rustdoc `all.html`: mostly links) ranked
/// second for single-word queries on the Python docs. The extractor measures how much of a
/// page's main text is link text, and ranking weighs a page that is mostly links less —
/// no generator is special-cased.
#[test]
fn navigation_pages_rank_below_content_for_the_same_word() {
    let opts = sift_extract::html::HtmlOptions::default();
    let entries: String =
        (0..40).map(|i| format!("<li><a href=\"library/codecs.html#e{i}\">codec entry {i} (in module codecs)</a></li>")).collect();
    let index = format!("<html><body><main><h1>Index – C</h1><ul>{entries}</ul></main></body></html>");
    let prose = "<html><body><main><h1>Text encodings</h1><p>Python reads and writes text through a codec. \
        A codec turns bytes into text and back; the <a href=\"library/codecs.html\">codecs module</a> lists them. \
        Choose the codec of a file when you open it, and the codec of a socket when you decode what it sends.</p></main></body></html>";
    let (index_doc, _) = sift_extract::html::extract(index.as_bytes(), "genindex-C.html", &opts).unwrap();
    let (prose_doc, _) = sift_extract::html::extract(prose.as_bytes(), "howto/encodings.html", &opts).unwrap();
    assert!(index_doc.link_density > 0.9, "an index is links: {}", index_doc.link_density);
    assert!(prose_doc.link_density < 0.2, "prose is not: {}", prose_doc.link_density);
    let e = sift_tests::engine_from_docs(&[index_doc.clone(), prose_doc.clone()], &sift_build::BuildOptions::default()).unwrap();
    let r = search(&e, "codec");
    assert_eq!(ids(&r), vec!["howto/encodings.html", "genindex-C.html"], "content first, navigation still found");
    // By meaning too: the prior multiplies the cosine as it multiplies BM25F.
    let by_meaning = |docs: &[SourceDoc]| {
        let opts = sift_build::BuildOptions { semantic: Some(sift_build::semantic::toy::semantic_input(docs, 64)), ..Default::default() };
        let e = sift_tests::engine_from_docs(docs, &opts).unwrap();
        let req = SearchRequest { query: "codec entry".into(), mode: Some("semantic".into()), ..Default::default() };
        let r = run(&e, &req).unwrap();
        r.results.iter().map(|x| (x.id.clone(), x.score)).collect::<Vec<_>>()
    };
    let with_prior = by_meaning(&[index_doc.clone(), prose_doc.clone()]);
    let without: Vec<SourceDoc> =
        [index_doc.clone(), prose_doc.clone()].into_iter().map(|d| SourceDoc { link_density: 0.0, ..d }).collect();
    let without = by_meaning(&without);
    let score = |v: &[(String, f32)], id: &str| v.iter().find(|x| x.0 == id).map_or(0.0, |x| x.1);
    assert!(score(&with_prior, "genindex-C.html") < score(&without, "genindex-C.html") * 0.6, "{with_prior:?} vs {without:?}");
    assert_eq!(score(&with_prior, "howto/encodings.html"), score(&without, "howto/encodings.html"), "content keeps its cosine");
    // The same pages without the signal (as from a source with no links): the index wins on
    // term frequency — the prior is what turns it around.
    let flat: Vec<SourceDoc> = [index_doc, prose_doc].into_iter().map(|d| SourceDoc { link_density: 0.0, ..d }).collect();
    let e = sift_tests::engine_from_docs(&flat, &sift_build::BuildOptions::default()).unwrap();
    assert_eq!(ids(&search(&e, "codec"))[0], "genindex-C.html");
    let x = run(&e, &SearchRequest { query: "codec".into(), explain: Some(true), ..Default::default() }).unwrap();
    assert!(x.results.iter().all(|r| r.explain.as_ref().unwrap().get("navigation_prior").is_none()), "content explains as before");
}

#[test]
fn a_title_typed_with_its_stop_words_finds_the_page_that_has_them_as_typed() {
    // "Effects of the locale": the page with those words in that order outranks a shorter
    // one that says them apart; the stop words typed between them are the gap proximity
    // allows (they carry no positions), and side by side still counts.
    let page = |id: &str, text: &str| SourceDoc {
        id: id.into(),
        url: format!("/{id}.html"),
        title: format!("Notes {id}"),
        sections: vec![sift_base::doc::Section { heading: String::new(), anchor: None, text: text.into(), symbol: None }],
        ..Default::default()
    };
    let docs = [
        page("apart", "Effects differ by user. The locale is listed."),
        page("titled", "Effects of the locale on sorting are shown in the list below."),
        page("side", "Effects locale settings have on sorting are shown in the list."),
        page("other", "Sorting is shown in the list below, by user."),
    ];
    let e = engine_from_docs(&docs, &Default::default()).unwrap();
    let r = search(&e, "Effects of the locale");
    let mut first_two = ids(&r)[..2].to_vec();
    first_two.sort();
    assert_eq!(first_two, ["side", "titled"], "{:?}", ids(&r));
    // Typed without the stop words, the pair is side by side: "side" only.
    assert_eq!(ids(&search(&e, "effects locale"))[0], "side");
}
