//! Differential property tests: random corpora, queries, filters and pages, answered by
//! Sift (built in memory, and again after a round trip through files on disk) and by the
//! naive reference in `reference.rs`; results, order, totals, scores and facets must agree.
//!
//! `PROPTEST_CASES` sets the budget (CI: the default below; locally e.g.
//! `PROPTEST_CASES=20000 cargo test --release -p sift-tests --test differential`).
//! `write_wasm_sample` writes a fixed sample of cases for the wasm engine, which
//! `tests/wasm/differential.test.mjs` runs under Node (`cargo run -p sift-tests --example
//! wasm_sample`: a fixture generator, not a test).

mod reference;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use reference::{Answer, Doc, Group, Item, Query, Reference};
use sift_base::date::days_from_civil;
use sift_base::json::ToJson;
use sift_base::{Section, SourceDoc};
use sift_build::{BuildOptions, BuiltBundle};
use sift_engine::contract::{FilterValue, Scalar};
use sift_engine::{Context, Engine, SearchRequest, SearchResponse, Step};
use std::collections::BTreeMap;
use std::path::Path;

/// Four letters: Sift allows no typos in words this short, and no word is a prefix of
/// another, so every match is exact and the reference needs no fuzzy or prefix logic.
const VOCAB: [&str; 12] = ["kalo", "mira", "tupa", "seno", "rubo", "lima", "daku", "voga", "piru", "neta", "zolu", "faxa"];
const STOP: [&str; 3] = ["the", "of", "in"];
const TYPES: [&str; 3] = ["guide", "reference", "blog"];
const TAGS: [&str; 4] = ["core", "api", "news", "beta"];
const FILTER_FIELDS: [&str; 2] = ["type", "tags"];
/// Scores are printed with 4 decimals; two scores this close are a tie.
const TOLERANCE: f64 = 2e-4;

fn ctx() -> Context {
    Context { now_days: days_from_civil(2026, 11, 22) }
}

// ---------------------------------------------------------------- generators

fn word() -> impl Strategy<Value = String> {
    // Skewed: the first words are common, the last rare (some absent from a corpus).
    let weighted: Vec<&str> = VOCAB.iter().enumerate().flat_map(|(i, w)| std::iter::repeat_n(*w, 12 - i)).collect();
    prop_oneof![
        8 => prop::sample::select(weighted).prop_map(String::from),
        1 => prop::sample::select(STOP.to_vec()).prop_map(String::from),
    ]
}

fn text(max_words: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 0..=max_words).prop_map(|w| w.join(" "))
}

fn date() -> impl Strategy<Value = (i64, u32, u32)> {
    (2024i64..=2026, 1u32..=12, 1u32..=28)
}

fn iso((y, m, d): (i64, u32, u32)) -> String {
    format!("{y:04}-{m:02}-{d:02}")
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        text(3),
        text(2),
        prop::collection::vec((text(3), text(25)), 1..=3),
        prop::option::weighted(0.8, prop::sample::select(TYPES.to_vec())),
        prop::sample::subsequence(TAGS.to_vec(), 0..=2),
        prop::option::weighted(0.7, date()),
    )
        .prop_map(|(title, path, sections, ty, tags, date)| {
            let mut metadata = BTreeMap::new();
            if let Some(t) = ty {
                metadata.insert("type".to_string(), vec![t.to_string()]);
            }
            if !tags.is_empty() {
                metadata.insert("tags".to_string(), tags.iter().map(|s| s.to_string()).collect());
            }
            Doc { id: String::new(), title, path, sections, metadata, date: date.map(|(y, m, d)| days_from_civil(y, m, d)) }
        })
}

fn corpus() -> impl Strategy<Value = Vec<Doc>> {
    prop::collection::vec(doc(), 1..=24).prop_map(|mut docs| {
        for (i, d) in docs.iter_mut().enumerate() {
            d.id = format!("d{i:03}");
        }
        docs
    })
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        5 => word().prop_map(Item::Word),
        1 => prop::collection::vec(word(), 1..=3).prop_map(Item::Phrase),
    ]
}

fn group() -> impl Strategy<Value = Group> {
    prop_oneof![
        6 => prop::collection::vec(item(), 1..=2).prop_map(|items| Group { items, negated: false }),
        1 => item().prop_map(|i| Group { items: vec![i], negated: true }),
    ]
}

fn query() -> impl Strategy<Value = (Query, bool)> {
    (
        // Mostly short queries; some of eight clauses or more (relevance feedback).
        prop_oneof![4 => prop::collection::vec(group(), 1..=4), 1 => prop::collection::vec(group(), 8..=11)],
        prop::option::weighted(0.15, (prop::sample::select(FILTER_FIELDS.to_vec()), 0usize..4)),
        prop::option::weighted(
            0.25,
            (prop::sample::select(FILTER_FIELDS.to_vec()), prop::sample::subsequence((0usize..4).collect::<Vec<_>>(), 1..=2)),
        ),
        prop::option::weighted(0.2, date()),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        1usize..=12,
        prop_oneof![3 => Just(0usize), 1 => 1usize..=8],
        any::<bool>(),
    )
        .prop_map(|(groups, text_filter, filter, since, sort_by_date, boost_recent, limit, offset, trailing_space)| {
            let value = |field: &str, i: usize| if field == "type" { TYPES[i % 3] } else { TAGS[i % 4] }.to_string();
            let text_filters = text_filter.map(|(f, i)| vec![(f.to_string(), value(f, i))]).unwrap_or_default();
            let filters =
                filter.map(|(f, is)| BTreeMap::from([(f.to_string(), is.iter().map(|&i| value(f, i)).collect())])).unwrap_or_default();
            let q = Query {
                groups,
                text_filters,
                filters,
                since: since.map(|(y, m, d)| days_from_civil(y, m, d)),
                sort_by_date,
                boost_recent,
                limit,
                offset,
            };
            (q, trailing_space)
        })
}

fn build_opts() -> impl Strategy<Value = (usize, usize)> {
    // Small shard targets split even a small corpus over several term and doc shards.
    (prop_oneof![Just(64usize), Just(512), Just(1 << 20)], prop_oneof![Just(128usize), Just(4096), Just(1 << 20)])
}

// ---------------------------------------------------------------- the engine under test

fn source_docs(docs: &[Doc]) -> Vec<SourceDoc> {
    docs.iter()
        .map(|d| SourceDoc {
            id: d.id.clone(),
            url: format!("/{}.html", d.id),
            title: d.title.clone(),
            path: d.path.clone(),
            sections: d.sections.iter().map(|(h, t)| Section { heading: h.clone(), anchor: None, text: t.clone(), symbol: None }).collect(),
            metadata: d.metadata.clone(),
            date: d.date.map(|days| {
                let (y, m, dd) = sift_tests::civil_from_days(days);
                iso((y, m, dd))
            }),
            // The navigation prior (link density, HTML only) is covered by the seed-pain
            // test of its own; the generated corpora are prose.
            link_density: 0.0,
            annotations: Default::default(),
        })
        .collect()
}

fn build(docs: &[Doc], (term_kb, doc_kb): (usize, usize)) -> BuiltBundle {
    let opts = BuildOptions {
        filter_fields: Some(FILTER_FIELDS.iter().map(|s| s.to_string()).collect()),
        term_shard_target: term_kb,
        doc_shard_target: doc_kb,
        ..BuildOptions::default()
    };
    sift_build::build(&source_docs(docs), &opts).expect("random corpus builds")
}

fn open(manifest: &[u8], shards: &[(String, Vec<u8>)]) -> Engine {
    let mut eng = Engine::new(manifest).expect("manifest opens");
    for (name, bytes) in shards {
        eng.add_shard(name, bytes).expect("shard loads");
    }
    eng
}

/// Write the bundle as `sift build` lays it out, then open it from the files alone.
fn round_trip(built: &BuiltBundle, dir: &Path) -> Engine {
    std::fs::create_dir_all(dir).expect("bundle dir");
    std::fs::write(dir.join(sift_format::MANIFEST_FILE), built.manifest_bytes()).expect("manifest written");
    for (name, bytes) in &built.shards {
        std::fs::write(dir.join(name), bytes).expect("shard written");
    }
    let manifest = std::fs::read(dir.join(sift_format::MANIFEST_FILE)).expect("manifest read");
    let listed = Engine::new(&manifest).expect("manifest opens").all_files();
    let shards: Vec<(String, Vec<u8>)> = listed.iter().map(|f| (f.clone(), std::fs::read(dir.join(f)).expect("shard read"))).collect();
    open(&manifest, &shards)
}

fn render(q: &Query, trailing_space: bool) -> String {
    let item = |i: &Item| match i {
        Item::Word(w) => w.clone(),
        Item::Phrase(ws) => format!("\"{}\"", ws.join(" ")),
    };
    let mut parts: Vec<String> = q
        .groups
        .iter()
        .map(|g| {
            let body = g.items.iter().map(item).collect::<Vec<_>>().join(" OR ");
            if g.negated {
                format!("-{body}")
            } else {
                body
            }
        })
        .collect();
    parts.extend(q.text_filters.iter().map(|(f, v)| format!("{f}:{v}")));
    let mut s = parts.join(" ");
    if trailing_space {
        s.push(' ');
    }
    s
}

fn request(q: &Query, trailing_space: bool) -> SearchRequest {
    let mut req = SearchRequest::new(render(q, trailing_space));
    req.mode = Some("lexical".into());
    req.limit = Some(q.limit as i64);
    req.offset = Some(q.offset as i64);
    req.filters =
        q.filters.iter().map(|(f, vs)| (f.clone(), FilterValue::Many(vs.iter().map(|v| Scalar::Str(v.clone())).collect()))).collect();
    req.since = q.since.map(|d| iso(sift_tests::civil_from_days(d)));
    if q.sort_by_date {
        req.sort = Some("date".into());
    }
    req.boost_recent = q.boost_recent.then_some(true);
    req
}

fn answer(eng: &Engine, req: &SearchRequest) -> SearchResponse {
    match eng.search(req, &ctx()) {
        Ok(Step::Done(r)) => r,
        Ok(Step::Need(f)) => panic!("every shard is loaded, yet the engine asks for {f:?}"),
        Err(e) => panic!("{:?} failed: {e}", req.query),
    }
}

// ---------------------------------------------------------------- comparison

/// Sift's page against the reference's full ranking. Documents whose scores (and dates,
/// when sorting by date) tie within the printed precision may come in either order.
fn agree(got: &SearchResponse, want: &Answer, q: &Query) -> Result<(), String> {
    if want.ambiguous {
        // Feedback cut a near-tie the reference cannot call (see `Answer::ambiguous`).
        return Ok(());
    }
    if got.total != want.total {
        return Err(format!("total {} ≠ reference {}", got.total, want.total));
    }
    let expect_len = want.total.saturating_sub(q.offset).min(q.limit);
    if got.results.len() != expect_len {
        return Err(format!("page of {} ≠ reference {expect_len}", got.results.len()));
    }
    if got.has_more != (q.offset + got.results.len() < want.total) {
        return Err("has_more disagrees".into());
    }
    let mut seen = std::collections::BTreeSet::new();
    for (k, r) in got.results.iter().enumerate() {
        if !seen.insert(&r.id) {
            return Err(format!("{} appears twice", r.id));
        }
        let rank = q.offset + k;
        let at_rank = &want.ranked[rank];
        let Some(mine) = want.ranked.iter().find(|x| x.id == r.id) else {
            return Err(format!("{} at rank {rank} is not a reference hit", r.id));
        };
        if (mine.score - f64::from(r.score)).abs() > TOLERANCE {
            return Err(format!("{}: score {} ≠ reference {:.6}", r.id, r.score, mine.score));
        }
        let tie = (mine.score - at_rank.score).abs() <= TOLERANCE && (!q.sort_by_date || mine.date == at_rank.date);
        if !tie {
            return Err(format!(
                "rank {rank}: {} (score {:.6}) where the reference has {} (score {:.6})",
                r.id, mine.score, at_rank.id, at_rank.score
            ));
        }
    }
    if got.facets != want.facets {
        return Err(format!("facets {:?} ≠ reference {:?}", got.facets, want.facets));
    }
    Ok(())
}

/// One checked request: what was asked, the reference's answer, and Sift's as JSON text.
struct Checked {
    req: SearchRequest,
    sort_by_date: bool,
    want: Answer,
    got_json: String,
}

/// Check every query of a case against the reference, in memory and after the bundle went
/// through files in `dir` (which are left there).
fn check_case_in(
    dir: &Path,
    docs: &[Doc],
    shard_targets: (usize, usize),
    queries: &[(Query, bool)],
) -> Result<Vec<Checked>, TestCaseError> {
    let reference = Reference::new(docs, &FILTER_FIELDS);
    let built = build(docs, shard_targets);
    let memory = open(&built.manifest_bytes(), &built.shards);
    let disk = round_trip(&built, dir);
    let mut checked = Vec::with_capacity(queries.len());
    for (q, trailing) in queries {
        let req = request(q, *trailing);
        let want = reference.search(q);
        let got = answer(&memory, &req);
        agree(&got, &want, q).map_err(|e| TestCaseError::fail(format!("query {:?}: {e}", req.query)))?;
        let got_json = got.to_json().to_text();
        prop_assert_eq!(answer(&disk, &req).to_json().to_text(), got_json.as_str(), "the bundle read back from disk answers differently");
        checked.push(Checked { req, sort_by_date: q.sort_by_date, want, got_json });
    }
    Ok(checked)
}

fn check_case(docs: &[Doc], shard_targets: (usize, usize), queries: &[(Query, bool)]) -> Result<(), TestCaseError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = sift_tests::scratch(&format!("differential-{}", N.fetch_add(1, Ordering::Relaxed)));
    let outcome = check_case_in(&dir, docs, shard_targets, queries).map(drop);
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

fn config() -> Config {
    // A few hundred cases in CI; PROPTEST_CASES raises it (proptest reads it itself).
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    Config { cases, failure_persistence: None, ..Config::default() }
}

#[test]
fn vocabulary_is_exact_only() {
    // The reference's scope: words the analyzer keeps as they are, too short for typo
    // tolerance, none a prefix of another (or of a stop word), so no fuzzy or prefix
    // expansion can apply.
    for w in VOCAB {
        assert_eq!(sift_text::analyzer::Analyzer::english().terms(w), vec![w.to_string()], "{w} must stem to itself");
        assert_eq!(sift_engine::fuzzy::max_distance(w), 0, "{w} must be too short for typos");
        for other in VOCAB.iter().chain(STOP.iter()) {
            assert!(other == &w || (!other.starts_with(w) && !w.starts_with(other)), "{w} / {other} share a prefix");
        }
    }
    for s in STOP {
        assert!(sift_text::analyzer::Analyzer::english().is_stopword(s), "{s} must be a stop word");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn sift_agrees_with_the_naive_reference(
        docs in corpus(),
        shard_targets in build_opts(),
        queries in prop::collection::vec(query(), 1..=6),
    ) {
        check_case(&docs, shard_targets, &queries)?;
    }
}

/// Hand-picked cases the generator reaches only rarely.
/// A query with no words yet, no filters, the first page of ten, by relevance.
fn plain_query() -> Query {
    Query {
        groups: vec![],
        text_filters: vec![],
        filters: BTreeMap::new(),
        since: None,
        sort_by_date: false,
        boost_recent: false,
        limit: 10,
        offset: 0,
    }
}

#[test]
fn reference_edge_cases() {
    let doc = |id: &str, title: &str, body: &str, ty: &str, date: Option<(i64, u32, u32)>| Doc {
        id: id.into(),
        title: title.into(),
        path: String::new(),
        sections: vec![(String::new(), body.into())],
        metadata: BTreeMap::from([("type".to_string(), vec![ty.to_string()])]),
        date: date.map(|(y, m, d)| days_from_civil(y, m, d)),
    };
    let docs = vec![
        doc("d000", "kalo mira", "tupa the seno kalo mira", "guide", Some((2026, 1, 1))),
        doc("d001", "seno", "kalo of mira mira kalo", "blog", None),
        doc("d002", "the of", "the of in", "reference", Some((2025, 6, 1))),
        doc("d003", "kalo", "kalo", "guide", Some((2026, 11, 1))),
    ];
    let w = |s: &str| Item::Word(s.into());
    let g = |items: Vec<Item>| Group { items, negated: false };
    let base = plain_query();
    let cases = vec![
        // Stop words only: they are the query.
        Query { groups: vec![g(vec![w("the")]), g(vec![w("of")])], ..base.clone() },
        // A phrase with a stop-word gap.
        Query { groups: vec![g(vec![Item::Phrase(vec!["kalo".into(), "of".into(), "mira".into()])])], ..base.clone() },
        // AND cannot fill the page: scored OR, with proximity for the neighbours.
        Query { groups: vec![g(vec![w("kalo")]), g(vec![w("mira")]), g(vec![w("faxa")])], ..base.clone() },
        // Exclusion of a phrase, OR group, text filter, date sort and recency.
        Query {
            groups: vec![
                g(vec![w("kalo"), w("seno")]),
                Group { items: vec![Item::Phrase(vec!["kalo".into(), "mira".into()])], negated: true },
            ],
            text_filters: vec![("type".into(), "guide".into())],
            sort_by_date: true,
            boost_recent: true,
            ..base.clone()
        },
        // A page past the end, and `since`.
        Query { groups: vec![g(vec![w("kalo")])], since: Some(days_from_civil(2026, 1, 1)), offset: 5, ..base.clone() },
        // Only exclusions.
        Query { groups: vec![Group { items: vec![w("kalo")], negated: true }], ..base.clone() },
    ];
    let queries: Vec<(Query, bool)> = cases.into_iter().flat_map(|q| [(q.clone(), true), (q, false)]).collect();
    check_case(&docs, (64, 128), &queries).unwrap_or_else(|e| panic!("{e}"));
}

/// A fixed sample of generated cases for the wasm engine: each bundle's files, and per
/// request the JSON request, the reference's ranking and the native engine's answer.
/// `tests/wasm/differential.test.mjs` loads each bundle with the npm package's wasm
/// engine under Node and checks it against both.
#[allow(dead_code)] // the test binary includes this file too; the example calls it
pub fn write_wasm_sample() {
    let out = sift_tests::target_dir().join("differential-wasm");
    let _ = std::fs::remove_dir_all(&out);
    let mut runner = TestRunner::deterministic();
    let strategy = (corpus(), build_opts(), prop::collection::vec(query(), 1..=6));
    let mut cases = Vec::new();
    for i in 0..40 {
        let (docs, targets, queries) = strategy.new_tree(&mut runner).expect("generates").current();
        let checked =
            check_case_in(&out.join(format!("case-{i:02}")), &docs, targets, &queries).unwrap_or_else(|e| panic!("sample case {i}: {e}"));
        let requests: Vec<serde_json::Value> = checked
            .iter()
            .filter(|c| !c.want.ambiguous)
            .map(|c| {
                serde_json::json!({
                    "request": sift_tests::value(&c.req.to_json()),
                    "sort_by_date": c.sort_by_date,
                    "reference": {
                        "total": c.want.total,
                        "ranked": c.want.ranked.iter().map(|r| serde_json::json!({"id": r.id, "score": r.score, "date": r.date})).collect::<Vec<_>>(),
                        "facets": c.want.facets,
                    },
                    // Parsed from Sift's JSON text, as the wasm bindings answer: `json!` of
                    // the response would widen the f32 scores to f64 noise (0.831 → 0.83099997…).
                    "native": serde_json::from_str::<serde_json::Value>(&c.got_json).unwrap(),
                })
            })
            .collect();
        cases.push(serde_json::json!({ "dir": format!("case-{i:02}"), "requests": requests }));
    }
    let body = serde_json::json!({ "tolerance": TOLERANCE, "cases": cases });
    std::fs::write(out.join("cases.json"), serde_json::to_vec_pretty(&body).unwrap()).expect("cases written");
}

/// Found by the generator: a paragraph-like query (eight typed clauses, so relevance
/// feedback runs) whose words repeat, with an excluded phrase, over a one-page corpus.
#[test]
fn repeated_words_with_feedback_and_an_excluded_phrase() {
    let docs = vec![Doc {
        id: "d000".into(),
        title: String::new(),
        path: String::new(),
        sections: vec![(String::new(), "tupa".into())],
        metadata: BTreeMap::new(),
        date: None,
    }];
    let w = |s: &str| Group { items: vec![Item::Word(s.into())], negated: false };
    let mut groups = vec![Group { items: vec![Item::Phrase(vec!["tupa".into(), "kalo".into()])], negated: true }];
    groups.extend(["kalo", "kalo", "kalo", "kalo", "tupa", "tupa", "kalo", "kalo"].map(w));
    let q = Query { groups, ..plain_query() };
    check_case(&docs, (64, 128), &[(q.clone(), true), (q, false)]).unwrap_or_else(|e| panic!("{e}"));
}
