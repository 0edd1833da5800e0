//! Format 4: a long page is stored in parts (runs of its sections), and a result reads only
//! the part its snippet comes from; whole-page reads (`content`, `get_document`, `related`)
//! put the parts back together. Format 11: a section bigger than a part is stored in pieces.
//! Format 12: the parts lie on a grid of positions, so the manifest lists where they begin
//! only for the few that begin off it.

use sift_base::doc::{Section, SourceDoc};
use sift_build::{build, BuildOptions, BuiltBundle};
use sift_engine::{Engine, SearchRequest, Step};
use sift_tests::*;

/// A long reference page — twelve sections of about 600 bytes, a distinct word in each
/// ("alpha" … "lambda"), "Examples" under every item — and a short page.
fn corpus() -> Vec<SourceDoc> {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "mu", "lambda"];
    let mut sections = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let heading = if i % 2 == 0 { format!("item_{w}()") } else { "Examples".to_string() };
        let text = format!("The {w} entry explains {w} in detail. {}", "Plain filler prose about the library. ".repeat(15));
        sections.push(Section { heading, anchor: Some(format!("s{i}")), text, symbol: None });
    }
    let long = SourceDoc { id: "long".into(), url: "/long.html".into(), title: "Long reference".into(), sections, ..Default::default() };
    let short = SourceDoc {
        id: "short".into(),
        url: "/short.html".into(),
        title: "Short note".into(),
        sections: vec![Section {
            heading: String::new(),
            anchor: None,
            text: "A short note that mentions lambda once.".into(),
            symbol: None,
        }],
        ..Default::default()
    };
    vec![long, short]
}

fn built(part_target: usize) -> BuiltBundle {
    let opts = BuildOptions { doc_shard_target: 512, doc_part_target: part_target, ..Default::default() };
    build(&corpus(), &opts).unwrap()
}

/// Run a call through the host loop, recording the doc-store files it read.
fn run<T>(b: &BuiltBundle, call: impl Fn(&Engine) -> Result<Step<T>, sift_engine::SiftError>) -> (T, Vec<String>) {
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let mut docs_read = Vec::new();
    let v = e
        .drive(call, |f| {
            if f.starts_with("d-") {
                docs_read.push(f.to_string());
            }
            Ok(b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone())
        })
        .unwrap();
    (v, docs_read)
}

fn parts_of_long(b: &BuiltBundle) -> Vec<(String, u32)> {
    b.manifest.doc_shards.iter().filter(|d| d.first_doc == 0).map(|d| (d.shard.file.clone(), d.first_pos.unwrap_or(0))).collect()
}

#[test]
fn a_long_page_is_stored_in_runs_of_its_sections_and_a_short_one_whole() {
    let b = built(1500);
    let parts = parts_of_long(&b);
    assert!(parts.len() >= 4, "twelve 600-byte sections in parts of 1.5 kB: {parts:?}");
    assert!(parts[0].1 > 0, "the first part starts at the first section, after the title");
    assert!(parts.windows(2).all(|w| w[0].1 < w[1].1), "parts in position order: {parts:?}");
    let short: Vec<_> = b.manifest.doc_shards.iter().filter(|d| d.first_doc + d.docs > 1).collect();
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].first_pos, None);

    // Without parts (target 0) the page is one shard, and the bundle format 5 all the same.
    let whole = built(0);
    assert_eq!(parts_of_long(&whole).len(), 1);
    assert!(whole.manifest.doc_shards.iter().all(|d| d.first_pos.is_none()));
}

#[test]
fn a_result_reads_only_the_part_its_snippet_comes_from() {
    let b = built(1500);
    let parts = parts_of_long(&b);
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("kappa"), &ctx()));
    assert_eq!(r.results[0].id, "long");
    assert!(r.results[0].snippet.contains("<mark>kappa</mark>"), "{}", r.results[0].snippet);
    assert_eq!(read.len(), 1, "one doc-store file for one result: {read:?}");
    assert_ne!(read[0], parts[0].0, "not the page's opening: the part with section 9");
    // The sub-result is labelled as the whole page labels it: a repeated heading by the
    // item above it.
    let sub: Vec<&str> = r.results[0].sub_results.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(sub, ["item_iota() › Examples"]);
    assert_eq!(r.results[0].sub_results[0].url, "/long.html#s9");

    // A word of the first section reads the first part; the same result as a whole page.
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("alpha"), &ctx()));
    assert_eq!(read, [parts[0].0.clone()]);
    let whole = built(0);
    let (w, _) = run(&whole, |e| e.search(&SearchRequest::new("alpha"), &ctx()));
    assert_eq!(r.results[0].snippet, w.results[0].snippet);
    assert_eq!(r.results[0].title, w.results[0].title);
}

#[test]
fn the_best_part_is_the_one_with_most_distinct_query_words() {
    let b = built(1500);
    // "beta" and "gamma" sit in neighbouring sections (1 and 2), "lambda" at the end.
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("beta OR gamma OR lambda"), &ctx()));
    let long = r.results.iter().find(|x| x.id == "long").expect("the long page matches");
    assert!(long.snippet.contains("<mark>beta</mark>") || long.snippet.contains("<mark>gamma</mark>"), "{}", long.snippet);
    assert_eq!(read.iter().filter(|f| parts_of_long(&b).iter().any(|p| &p.0 == *f)).count(), 1, "{read:?}");
}

/// A long page ("guide") whose six early sections each say `talk`, and a later one titled
/// `heading` (anchor `anchor`) that says little, with the short page of [`corpus`].
fn talk_then_title(talk: &str, heading: &str, anchor: &str) -> Vec<SourceDoc> {
    let mut sections: Vec<Section> = (0..6)
        .map(|i| Section { heading: format!("Step {i}"), anchor: Some(format!("step{i}")), text: talk.to_string(), symbol: None })
        .collect();
    sections.push(Section {
        heading: heading.into(),
        anchor: Some(anchor.into()),
        text: format!("What it does. {}", "Plain filler prose about the library. ".repeat(12)),
        symbol: None,
    });
    let page = SourceDoc { id: "guide".into(), url: "/guide.html".into(), title: "Guide".into(), sections, ..Default::default() };
    vec![page, corpus().remove(1)]
}

/// Sections that talk about the shell and its prompt at length, then "The shell prompt".
fn talkative_then_titled() -> Vec<SourceDoc> {
    let talk =
        format!("The shell starts. {} A prompt appears later.", "The shell reads its profile and the shell sets variables. ".repeat(8));
    talk_then_title(&talk, "The shell prompt", "prompt")
}

#[test]
fn of_parts_with_as_many_query_words_the_one_where_they_stand_together_is_read() {
    let b = built_from(&talkative_then_titled(), 1500);
    assert!(parts_of_long(&b).len() >= 3, "{:?}", parts_of_long(&b));
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("the shell prompt"), &ctx()));
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!(r.results[0].id, "guide");
    assert_eq!(r.results[0].sub_results[0].url, "/guide.html#prompt", "{:?}", r.results[0].sub_results);
}

/// Sections that say "locale" often, and words it begins (`locales-all`: completions of
/// the word being typed), then "Effects of the locale".
fn forms_then_titled() -> Vec<SourceDoc> {
    let talk = format!("{} Set it once.", "The locale package locales-all has every locale; one is chosen per user. ".repeat(8));
    talk_then_title(&talk, "Effects of the locale", "effects")
}

#[test]
fn a_words_completions_count_once_when_a_part_is_chosen() {
    let b = built_from(&forms_then_titled(), 1500);
    assert!(parts_of_long(&b).len() >= 3, "{:?}", parts_of_long(&b));
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("Effects of the locale"), &ctx()));
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!(r.results[0].id, "guide");
    assert_eq!(r.results[0].sub_results[0].url, "/guide.html#effects", "{:?}", r.results[0].sub_results);
}

#[test]
fn a_compounds_parts_are_words_of_their_own_when_a_part_is_chosen() {
    // "dpkg-divert" asks for both of its parts: a part saying "dpkg" and "command" often is
    // not a better match than the one titled with all three.
    let talk = format!(
        "The dpkg starts. {} A prompt appears later. Each dpkg command is logged.",
        "The dpkg reads its profile and the dpkg sets variables. ".repeat(8)
    );
    let b = built_from(&talk_then_title(&talk, "The dpkg-divert command", "divert"), 1500);
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("The dpkg-divert command"), &ctx()));
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!(r.results[0].sub_results[0].url, "/guide.html#divert", "{:?}", r.results[0].sub_results);
}

#[test]
fn whole_page_reads_put_the_parts_back_together() {
    let docs = corpus();
    let b = built(1500);
    let whole = built(0);
    let (doc, read) = run(&b, |e| e.get_document("long"));
    let doc = doc.expect("found");
    assert_eq!(read.len(), parts_of_long(&b).len(), "every part: {read:?}");
    assert_eq!(doc.sections, docs[0].sections, "every section, in order, as built");
    let (doc_whole, _) = run(&whole, |e| e.get_document("long"));
    assert_eq!(Some(doc), doc_whole);

    let mut req = SearchRequest::new("kappa");
    req.include_content = Some(true);
    let (r, _) = run(&b, |e| e.search(&req, &ctx()));
    let (w, _) = run(&whole, |e| e.search(&req, &ctx()));
    assert_eq!(r.results[0].content, w.results[0].content);
    assert!(r.results[0].content.as_deref().is_some_and(|c| c.contains("alpha") && c.contains("lambda")));

    let (rel, _) = run(&b, |e| e.related("long", Some(5), &ctx()));
    let (rel_whole, _) = run(&whole, |e| e.related("long", Some(5), &ctx()));
    let ids = |r: &sift_engine::SearchResponse| r.results.iter().map(|x| x.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&rel), ids(&rel_whole));
}

#[test]
fn a_manifest_with_parts_out_of_order_is_refused() {
    let b = built(1500);
    let text = String::from_utf8(b.manifest_bytes()).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Offsets that move a part before the one ahead of it.
    let p = m["doc_store"]["part_positions"].as_i64().expect("a grid");
    m["doc_store"]["part_offsets"] = serde_json::json!([[1, p - 1], [2, 1 - p]]);
    let e = Engine::new(m.to_string().as_bytes()).err().expect("refused");
    assert!(e.message.contains("parts are not in order"), "{}", e.message);
}

#[test]
fn the_manifest_lists_no_parts_first_position_but_the_grid_they_lie_on() {
    let b = built(1500);
    let m: serde_json::Value = serde_json::from_slice(&b.manifest_bytes()).unwrap();
    let store = &m["doc_store"];
    assert!(store.get("first_pos").is_none(), "{store}");
    let window = u32::try_from(store["part_positions"].as_u64().expect("a grid")).unwrap();
    let parts = parts_of_long(&b);
    assert!(parts.len() >= 4);
    // Part k of the page at (k + 1)·P, unless listed with an offset.
    let offsets: Vec<(usize, i64)> = store
        .get("part_offsets")
        .map(|o| o.as_array().unwrap().iter().map(|p| (p[0].as_u64().unwrap() as usize, p[1].as_i64().unwrap())).collect())
        .unwrap_or_default();
    for (k, (_, first)) in parts.iter().enumerate() {
        let off = offsets.iter().find(|o| o.0 == k).map_or(0, |o| o.1);
        assert_eq!(i64::from(*first), i64::from(window) * (k as i64 + 1) + off, "part {k}");
    }
    // Read back exactly.
    assert_eq!(Engine::new(&b.manifest_bytes()).unwrap().manifest().doc_shards, b.manifest.doc_shards);
    // Offsets that are not a further part's, zero, or a window or more are refused.
    let p = i64::from(window);
    for bad in [
        serde_json::json!([[0, 3]]),
        serde_json::json!([[2, 1], [1, 1]]),
        serde_json::json!([[1, 0]]),
        serde_json::json!([[1, p]]),
        serde_json::json!([[1, -p]]),
        serde_json::json!([[1]]),
        serde_json::json!([[1, 1.5]]),
    ] {
        let mut m = m.clone();
        m["doc_store"]["part_offsets"] = bad.clone();
        let e = Engine::new(m.to_string().as_bytes()).err().expect("refused");
        assert!(
            e.message.contains("part_offsets must be [entry, offset] pairs naming further parts in order, each within its window"),
            "{bad}: {}",
            e.message
        );
    }
    let mut zero = m.clone();
    zero["doc_store"]["part_positions"] = 0.into();
    let e = Engine::new(zero.to_string().as_bytes()).err().expect("refused");
    assert!(e.message.contains("no part_positions"), "{}", e.message);
}

/// Format 11: a page that is one 20 KB section (a reference table, say) with a rare word
/// near its start and another near its end, and a short page.
fn one_long_section() -> Vec<SourceDoc> {
    let filler = "Plain filler prose about the library and its many options. ";
    let text =
        format!("The opening row mentions omicron. {} The closing row mentions sigma here. {}", filler.repeat(300), filler.repeat(40));
    let table = SourceDoc {
        id: "table".into(),
        url: "/table.html".into(),
        title: "Big table".into(),
        sections: vec![Section { heading: "Reference table".into(), anchor: Some("tbl".into()), text, symbol: None }],
        ..Default::default()
    };
    vec![table, corpus().remove(1)]
}

fn built_from(docs: &[SourceDoc], part_target: usize) -> BuiltBundle {
    build(docs, &BuildOptions { doc_shard_target: 512, doc_part_target: part_target, ..Default::default() }).unwrap()
}

/// The stored page of each part of doc 0 (the builder's own payloads, inflated).
fn stored_parts(b: &BuiltBundle) -> Vec<sift_format::docstore::StoredDoc> {
    b.manifest
        .doc_shards
        .iter()
        .filter(|d| d.first_doc == 0)
        .map(|d| {
            let bytes = &b.shards.iter().find(|(n, _)| *n == d.shard.file).unwrap().1;
            let payload = sift_format::decode_shard(bytes, sift_format::ShardKind::Docs, &d.shard).unwrap();
            let place = b.manifest.doc_shards.iter().position(|x| x.shard.file == d.shard.file).unwrap() as u32;
            sift_format::docstore::StoredDoc::decode(&payload, 1, place).unwrap().remove(0)
        })
        .collect()
}

#[test]
fn a_section_bigger_than_a_part_is_stored_in_pieces_each_a_part() {
    let docs = one_long_section();
    let b = built_from(&docs, 1500);
    let parts = parts_of_long(&b);
    let text_len = docs[0].sections[0].text.len();
    assert_eq!(parts.len(), text_len.div_ceil(1500), "{text_len} bytes in pieces of at most about 1.5 kB: {parts:?}");
    assert!(parts.windows(2).all(|w| w[0].1 < w[1].1), "parts in position order: {parts:?}");
    let stored = stored_parts(&b);
    // The first piece keeps the heading; each further one goes on from the part before,
    // without it, under the section's anchor and label.
    assert!(!stored[0].continues);
    assert_eq!(stored[0].sections[0].heading, "Reference table");
    for p in &stored[1..] {
        assert!(p.continues);
        assert_eq!((p.sections.len(), p.sections[0].heading.as_str()), (1, ""));
        assert_eq!(p.sections[0].anchor.as_deref(), Some("tbl"));
        assert_eq!(p.section_labels(), ["Reference table"]);
    }
    let text: String = stored.iter().map(|p| p.sections[0].text.as_str()).collect();
    assert_eq!(text, docs[0].sections[0].text, "the pieces are the text, cut after whitespace");
    // A further piece's first position is exact (its first token), not rounded: the
    // tokens of the piece before lie just before it.
    let (r, _) = run(&b, |e| e.search(&SearchRequest::new("sigma"), &ctx()));
    assert!(r.results[0].snippet.contains("<mark>sigma</mark>"), "{}", r.results[0].snippet);
}

#[test]
fn a_result_in_a_long_section_reads_only_the_piece_its_snippet_comes_from() {
    let docs = one_long_section();
    let b = built_from(&docs, 1500);
    let parts = parts_of_long(&b);
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("sigma"), &ctx()));
    assert_eq!(r.results[0].id, "table");
    assert_eq!(read.len(), 1, "one piece of the page: {read:?}");
    assert!(read[0] != parts[0].0 && read[0] != parts.last().unwrap().0, "the piece with the closing row, not the opening: {read:?}");
    assert!(r.results[0].snippet.contains("closing row mentions <mark>sigma</mark> here"), "{}", r.results[0].snippet);
    // The deep link stays: the piece is shown as its section.
    let subs: Vec<(&str, &str)> = r.results[0].sub_results.iter().map(|s| (s.title.as_str(), s.url.as_str())).collect();
    assert_eq!(subs, [("Reference table", "/table.html#tbl")]);
    assert!(r.results[0].sub_results[0].snippet.contains("<mark>sigma</mark>"));

    // A word of the opening reads the first piece, and answers as the page kept whole does.
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("omicron"), &ctx()));
    assert_eq!(read, [parts[0].0.clone()]);
    let whole = built_from(&docs, 0);
    assert_eq!(parts_of_long(&whole).len(), 1);
    let (w, _) = run(&whole, |e| e.search(&SearchRequest::new("omicron"), &ctx()));
    assert_eq!(r.results[0].snippet, w.results[0].snippet);
    // (In parts, a result links to its section as a page in parts always has; kept whole,
    // a page of one section has no sub-results.)
    assert_eq!(r.results[0].sub_results.iter().map(|s| s.url.as_str()).collect::<Vec<_>>(), ["/table.html#tbl"]);
    assert!(w.results[0].sub_results.is_empty());
    // Phrases and totals do not see the cut: the index is the same.
    for q in ["\"closing row mentions sigma\"", "filler options", "omicron sigma"] {
        let (r, _) = run(&b, |e| e.search(&SearchRequest::new(q), &ctx()));
        let (w, _) = run(&whole, |e| e.search(&SearchRequest::new(q), &ctx()));
        let ids = |x: &sift_engine::SearchResponse| x.results.iter().map(|r| (r.id.clone(), r.score.to_bits())).collect::<Vec<_>>();
        assert_eq!((ids(&r), r.total), (ids(&w), w.total), "{q}");
    }
}

#[test]
fn whole_page_reads_join_a_sections_pieces_back_exactly() {
    let docs = one_long_section();
    let b = built_from(&docs, 1500);
    let whole = built_from(&docs, 0);
    let (doc, read) = run(&b, |e| e.get_document("table"));
    assert_eq!(read.len(), parts_of_long(&b).len(), "every piece: {read:?}");
    assert_eq!(doc.expect("found").sections, docs[0].sections, "one section, its text whole again");
    let mut req = SearchRequest::new("sigma");
    req.include_content = Some(true);
    let (r, _) = run(&b, |e| e.search(&req, &ctx()));
    let (w, _) = run(&whole, |e| e.search(&req, &ctx()));
    assert_eq!(r.results[0].content, w.results[0].content);
    assert!(!r.results[0].content.as_deref().unwrap_or("").contains("\n\n"), "no break where a piece was cut");
}

#[test]
fn a_doc_shard_whose_continues_is_not_a_boolean_is_refused() {
    use sift_format::{decode_shard, encode_shard, ShardKind};
    let b = built_from(&one_long_section(), 1500);
    let (_, read) = run(&b, |e| e.search(&SearchRequest::new("sigma"), &ctx()));
    let second = b.manifest.doc_shards.iter().find(|d| d.shard.file == read[0]).unwrap().clone();
    let bytes = &b.shards.iter().find(|(n, _)| *n == second.shard.file).unwrap().1;
    let payload = String::from_utf8(decode_shard(bytes, ShardKind::Docs, &second.shard).unwrap()).unwrap();
    assert!(payload.contains(r#""continues":true"#), "{payload}");
    let bad = encode_shard(ShardKind::Docs, payload.replace(r#""continues":true"#, r#""continues":"yes""#).as_bytes());
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let err = e
        .drive(
            |e| e.search(&SearchRequest::new("sigma"), &ctx()),
            |f| Ok(if f == second.shard.file { bad.clone() } else { b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone() }),
        )
        .expect_err("refused");
    assert_eq!(err.code, "bundle_corrupt");
    assert!(err.message.contains("continues") && err.message.contains("true or false"), "{}", err.message);
}

#[test]
fn a_long_run_without_words_stays_with_a_piece_that_has_some() {
    // An ASCII rule of 6 kB between two paragraphs: a piece of it alone would start where
    // the piece after it does, and the manifest would refuse parts out of order.
    let text = format!("{}{}{}", "Intro words about omicron. ".repeat(40), "-- ".repeat(2000), "Closing words about sigma. ".repeat(40));
    let mut docs = one_long_section();
    docs[0].sections[0].text = text.clone();
    let b = built_from(&docs, 1500);
    assert!(parts_of_long(&b).windows(2).all(|w| w[0].1 < w[1].1), "{:?}", parts_of_long(&b));
    let (r, read) = run(&b, |e| e.search(&SearchRequest::new("sigma"), &ctx()));
    assert_eq!(read.len(), 1);
    assert!(r.results[0].snippet.contains("<mark>sigma</mark>"), "{}", r.results[0].snippet);
    let (doc, _) = run(&b, |e| e.get_document("table"));
    assert_eq!(doc.expect("found").sections[0].text, text);
}
