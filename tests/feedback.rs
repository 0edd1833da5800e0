//! Relevance feedback for paragraph-like queries (RM3, `engine/feedback.rs`), as behaviour:
//! the words of a paragraph's best answers join it, so a page that says the same thing in
//! other words is found; those words are never required, never highlighted, never undo an
//! exclusion or a quoted phrase; short queries are left alone.

use sift_base::doc::Section;
use sift_base::SourceDoc;
use sift_build::BuildOptions;
use sift_engine::{Engine, SearchRequest, SearchResponse};
use sift_tests::*;

fn doc(id: &str, title: &str, text: &str) -> SourceDoc {
    SourceDoc {
        id: id.into(),
        url: format!("/{id}"),
        title: title.into(),
        sections: vec![Section { heading: String::new(), anchor: None, text: text.into(), symbol: None }],
        ..Default::default()
    }
}

/// Three pages answer the paragraph below in its own words and in the collector's
/// vocabulary; `cycles.html` uses only that vocabulary; the rest is unrelated.
fn engine() -> Engine {
    let mut docs = vec![
        doc(
            "gc.html",
            "Garbage collection",
            "Python frees the memory of objects your program no longer uses automatically. The collector \
             finds unreachable objects and reclaims them; the collector runs generations of unreachable objects.",
        ),
        doc(
            "refcount.html",
            "Reference counting",
            "Each object keeps a count of references; when a program no longer uses an object its memory is \
             freed at once. Unreachable reference cycles are left to the collector, which reclaims them.",
        ),
        doc(
            "memory.html",
            "Memory management",
            "Memory for Python objects is managed automatically: the allocator hands out memory and the \
             collector reclaims unreachable objects that the program uses no more.",
        ),
        doc("arenas.html", "Arenas", "The allocator gives Python objects memory from arenas and pools, automatically."),
        doc("cycles.html", "Cycle detection", "The collector walks the generations, finds unreachable cycles and reclaims them."),
        doc("sockets.html", "Sockets", "Open a network connection, send bytes and read the reply from the server."),
        doc("csv.html", "CSV files", "Read and write comma separated values, one row per line, with a dialect."),
    ];
    for i in 0..6 {
        docs.push(doc(
            &format!("misc{i}.html"),
            &format!("Misc {i}"),
            "Strings, lists and dictionaries hold values; loops repeat statements.",
        ));
    }
    sift_tests::engine_from_docs(&docs, &BuildOptions::default()).expect("builds")
}

const PARAGRAPH: &str = "how does python free the memory of objects that my program no longer uses automatically";

fn ask(e: &Engine, q: &str) -> SearchResponse {
    let req = SearchRequest { query: q.into(), mode: Some("lexical".into()), explain: Some(true), limit: Some(20), ..Default::default() };
    run(e, &req).unwrap_or_else(|err| panic!("{q:?}: {err}"))
}

/// The clauses of a result's explanation: (label, added by feedback, matched).
fn clauses(r: &SearchResponse, id: &str) -> Vec<(String, bool, bool)> {
    let x = sift_tests::value(
        r.results.iter().find(|x| x.id == id).unwrap_or_else(|| panic!("{id} not in {:?}", ids(r))).explain.as_ref().unwrap(),
    );
    x["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["clause"].as_str().unwrap().to_string(), c["feedback"] == true, c["matched"] == true))
        .collect()
}

#[test]
fn a_paragraph_also_finds_the_page_that_says_it_in_its_answers_words() {
    let e = engine();
    let r = ask(&e, PARAGRAPH);
    assert!(ids(&r).contains(&"cycles.html"), "found through the answers' words: {:?}", ids(&r));
    // It shares no word with the query: every clause it matches was added by feedback.
    let matched: Vec<_> = clauses(&r, "cycles.html").into_iter().filter(|c| c.2).collect();
    assert!(!matched.is_empty() && matched.iter().all(|c| c.1), "{matched:?}");
    assert!(matched.iter().any(|c| c.0 == "collector"), "{matched:?}");
    // The pages that answer in the query's own words still come first.
    let pos = |id: &str| ids(&r).iter().position(|x| *x == id).unwrap();
    assert!(pos("gc.html") < pos("cycles.html") && pos("memory.html") < pos("cycles.html"), "{:?}", ids(&r));
    assert!(!ids(&r).contains(&"sockets.html") && !ids(&r).contains(&"csv.html"), "{:?}", ids(&r));
}

#[test]
fn words_added_by_feedback_are_never_highlighted() {
    let e = engine();
    let r = ask(&e, PARAGRAPH);
    let added: Vec<String> = clauses(&r, "gc.html").into_iter().filter(|c| c.1).map(|c| c.0.to_lowercase()).collect();
    assert!(added.contains(&"collector".to_string()), "{added:?}");
    for x in &r.results {
        for part in x.snippet.split("<mark>").skip(1) {
            let marked = part.split("</mark>").next().unwrap().to_lowercase();
            assert!(!added.iter().any(|a| marked.starts_with(a.as_str())), "{}: {marked:?} was added, not asked", x.id);
        }
    }
    // cycles.html matched only added words: its snippet marks nothing.
    let cycles = r.results.iter().find(|x| x.id == "cycles.html").unwrap();
    assert!(!cycles.snippet.contains("<mark>"), "{}", cycles.snippet);
}

#[test]
fn feedback_keeps_exclusions_and_quotes_in_a_paragraph_cite_rather_than_constrain() {
    let e = engine();
    let r = ask(&e, &format!("{PARAGRAPH} -collector"));
    assert!(!r.results.is_empty());
    for id in ids(&r) {
        assert!(!["gc.html", "refcount.html", "memory.html", "cycles.html"].contains(&id), "{id} says collector: {:?}", ids(&r));
    }
    assert!(clauses(&r, ids(&r)[0]).iter().all(|c| c.0 != "collector"), "an excluded word is not asked for again");
    // In a paragraph, quotation marks cite: the page with the phrase near the top, not alone.
    let quoted = ask(&e, &format!("{PARAGRAPH} \"reference cycles\""));
    assert!(ids(&quoted)[..2].contains(&"refcount.html"), "{:?}", ids(&quoted));
    assert!(ids(&quoted).len() > 2, "{:?}", ids(&quoted));
    assert!(quoted.fallback.as_ref().is_none_or(|f| f.from != "phrase"), "no phrase to relax: {:?}", quoted.fallback);
}

#[test]
fn short_queries_get_no_feedback() {
    let e = engine();
    let r = ask(&e, "python memory objects automatically");
    assert!(!ids(&r).contains(&"cycles.html"), "{:?}", ids(&r));
    assert!(clauses(&r, ids(&r)[0]).iter().all(|c| !c.1));
}

#[test]
fn a_paragraph_of_unknown_words_or_only_exclusions_stays_a_clear_answer() {
    let e = engine();
    let r = ask(&e, "zqx wvk plm qrt vvb kkj xxq zzv wwq");
    assert!(r.results.is_empty() && r.fallback.is_some(), "{r:?}");
    let r = ask(&e, "-python -memory -objects -program -collector -cycles -sockets -csv -strings");
    assert!(r.results.is_empty() && r.fallback.is_some(), "{r:?}");
}
