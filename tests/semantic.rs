//! The semantic half end to end over the seed corpus, embedded with the real model and
//! searched with the bundle's static query encoder (no model at query time): identifiers
//! keep their exact page first in hybrid mode, a paraphrase that shares no word with the
//! page still finds it (and says the answer is by meaning), the encoder stays close to the
//! model on texts it was not fitted to, the full model stays an option, bad vectors and
//! bad shards are refused. Skipped, saying why, when the model is not installed.

use sift_base::SourceDoc;
use sift_build::semantic::cache::{self, EmbedCache};
use sift_build::semantic::embed::{self as corpus, Layout};
use sift_build::{build, BuildOptions};
use sift_embed::model::{default_model_dir, Embedder};
use sift_engine::contract::{FilterValue, Scalar};
use sift_engine::{Engine, SearchRequest, SearchResponse, SiftError, Step};
use sift_tests::*;
use std::sync::{Mutex, OnceLock};

struct Setup {
    e: Embedder,
    /// The machine's embedding cache, as `sift build` uses it: a test that builds a variant
    /// of the corpus embeds only what is new, and a run only what no earlier run embedded
    /// (the vocabulary is `sift model fetch`'s).
    store: Mutex<EmbedCache>,
    engine: Engine,
    built: sift_build::BuiltBundle,
    /// Sentences left out of the encoder's fit (every fourth), for the parity check.
    held_out: Vec<String>,
}

fn embedder() -> Option<(Embedder, EmbedCache)> {
    let dir = default_model_dir();
    let model = dir.join("model-f32.onnx");
    if !model.exists() {
        sift_tests::cannot_test(&format!("{} not found (run `sift model fetch`)", model.display()));
        return None;
    }
    let e = Embedder::load(&model, &dir.join("tokenizer.json")).expect("model loads");
    let store = EmbedCache::open(&cache::cache_root(), &cache::model_hash(&model).expect("model hashes"), e.dim);
    Some((e, store))
}

fn semantic_build(
    e: &Embedder,
    docs: &[SourceDoc],
    layout: Layout,
    held_out: &[String],
    store: &mut EmbedCache,
) -> sift_build::BuiltBundle {
    let (mut input, _, used) =
        corpus::semantic_input(docs, sift_tests::model(e), "all-MiniLM-L6-v2", layout, store, &|_, _| {}).expect("corpus embeds");
    if let Err(err) = store.save(&used) {
        eprintln!("warning: the embedding cache could not be saved ({err}); the next run embeds again");
    }
    if let Some(enc) = input.encoder.as_mut() {
        let held: std::collections::HashSet<Vec<u32>> = held_out.iter().map(|t| e.tokenizer().encode(t)).collect();
        enc.texts.retain(|t| !held.contains(&t.tokens));
    }
    build(docs, &BuildOptions { semantic: Some(input), ..Default::default() }).expect("builds")
}

fn open(built: &sift_build::BuiltBundle) -> Engine {
    let mut engine = Engine::new(&built.manifest_bytes()).unwrap();
    sift_tests::frozen::load_all(&mut engine, |f| built.shards.iter().find(|(n, _)| n == f).unwrap().1.clone());
    engine
}

fn setup() -> Option<&'static Setup> {
    static SETUP: OnceLock<Option<Setup>> = OnceLock::new();
    SETUP
        .get_or_init(|| {
            let (e, mut store) = embedder()?;
            let docs = corpus_docs();
            let sentences: Vec<String> =
                docs.iter().flat_map(|d| d.sections.iter()).flat_map(|s| sift_build::semantic::training::sentences(&s.text)).collect();
            let held_out: Vec<String> = sentences.into_iter().step_by(4).collect();
            let built = semantic_build(&e, &docs, Layout::default(), &held_out, &mut store);
            Some(Setup { engine: open(&built), e, store: Mutex::new(store), built, held_out })
        })
        .as_ref()
}

fn ask(s: &Setup, q: &str, mode: &str) -> Result<SearchResponse, SiftError> {
    let req = SearchRequest { query: q.into(), mode: Some(mode.into()), ..Default::default() };
    match s.engine.search(&req, &ctx())? {
        Step::Done(r) => Ok(r),
        Step::Need(f) => panic!("all loaded, asked for {f:?}"),
    }
}

fn without_timings(mut r: SearchResponse) -> String {
    r.timings_ms.clear();
    sift_base::json::ToJson::to_json(&r).to_text()
}

fn done<T>(step: Step<T>) -> T {
    match step {
        Step::Done(v) => v,
        Step::Need(f) => panic!("all loaded, asked for {f:?}"),
    }
}

#[test]
fn the_bundle_embeds_its_own_queries() {
    let Some(s) = setup() else { return };
    assert!(s.engine.has_query_encoder());
    let req = SearchRequest { query: "keeping answers in memory".into(), mode: Some("hybrid".into()), ..Default::default() };
    assert!(!s.engine.wants_query_vector(&req), "no host embedding needed");
    let m = s.built.manifest.vectors.as_ref().unwrap();
    assert_eq!((m.dim, m.model_dim), (128, 384));
}

/// The rounds of files a cold engine asks for to answer `query` in `mode`.
fn rounds_of(s: &Setup, query: &str, mode: &str) -> Vec<Vec<String>> {
    cold_answer(s, query, mode).1
}

/// A cold engine's answer to `query` in `mode` (as JSON, without timings) and the rounds of
/// files it asked for.
fn cold_answer(s: &Setup, query: &str, mode: &str) -> (String, Vec<Vec<String>>) {
    let req = SearchRequest { query: query.into(), mode: Some(mode.into()), ..Default::default() };
    let (r, rounds) = cold_search(&s.built, &req);
    (without_timings(r), rounds)
}

#[test]
fn a_hybrid_query_reads_its_words_vocabulary_groups_in_its_first_round() {
    let Some(s) = setup() else { return };
    // The encoder's vocabulary groups depend only on the words and the manifest: they come
    // with the term shards, so the static encoder's rows are the second round, the nearest
    // lists the third and the results' pages the fourth (one round each, no more).
    let rounds = rounds_of(s, "cache memory", "hybrid");
    let kinds = |r: &[String]| r.iter().map(|f| f[..1].to_string()).collect::<std::collections::BTreeSet<_>>();
    let first = kinds(&rounds[0]);
    for kind in ["s", "t", "x", "g"] {
        assert!(first.contains(kind), "{kind}- in the first round: {rounds:?}");
    }
    let later: Vec<_> = rounds[1..].iter().map(|r| kinds(r)).collect();
    let want: Vec<std::collections::BTreeSet<String>> = ["e", "l", "d"].iter().map(|k| [k.to_string()].into()).collect();
    assert_eq!(later, want, "{rounds:?}");
    // Read a round later or not, the vocabulary gives the words the same tokens: a cold
    // engine answers as one with every shard loaded — for rare words too, whose first
    // character is a token in another group, read when a lookup misses it.
    for q in ["cache memory", "qzxv jj", "zebra x", "ünïcödé wörds"] {
        let warm = without_timings(ask(s, q, "hybrid").unwrap());
        assert_eq!(cold_answer(s, q, "hybrid").0, warm, "{q}");
    }
    // "qzxv": no token begins with "qzx", so its shorter prefixes' groups are read a round
    // later, with the groups of the continuations after each of them; every further
    // continuation it is cut into may take one more round, never more than its letters.
    let rare = rounds_of(s, "qzxv jj", "hybrid");
    let later_groups: Vec<&Vec<String>> = rare[1..].iter().filter(|r| r.iter().any(|f| f.starts_with("g-"))).collect();
    assert!((1..=4).contains(&later_groups.len()), "{rare:?}");
    let ix = s.built.manifest.encoder.as_ref().unwrap().layout.index().unwrap();
    for token in ["qz", "q", "##xv", "##zxv"] {
        let file = &ix.groups[ix.group_of(token)].file;
        assert!(rare[0].contains(file) || later_groups[0].contains(file), "{token} in the second round: {rare:?}");
    }
    // A lexical query reads nothing of the semantic half.
    let lexical = rounds_of(s, "cache memory", "lexical");
    assert!(lexical.iter().flatten().all(|f| !["g", "x", "e", "l"].contains(&&f[..1])), "{lexical:?}");
}

#[test]
fn identifiers_keep_their_exact_page_first_in_hybrid_mode() {
    let Some(s) = setup() else { return };
    for (q, want) in
        [("StateMachine", "reference/state-machine.md"), ("mcp", "guides/mcp-server.md"), ("state_machine", "reference/state-machine.md")]
    {
        for mode in ["hybrid", "auto"] {
            let r = ask(s, q, mode).unwrap();
            assert_eq!(r.results[0].id, want, "{q} ({mode}): {:?}", ids(&r));
            assert_eq!(r.search_type, "hybrid");
        }
    }
}

#[test]
fn a_paraphrase_finds_its_page_by_meaning() {
    let Some(s) = setup() else { return };
    // No word in common with "Deploying to production: Releasing Agentroot to production:
    // build the bundle, upload it and switch traffic over".
    let r = ask(s, "ship it to the live servers", "semantic").unwrap();
    assert_eq!(r.search_type, "semantic");
    assert_eq!(r.results[0].id, "guides/deploy.md", "{:?}", ids(&r));
    // No word of this query is in the corpus: keyword search finds nothing, auto says so and
    // answers by meaning.
    let r = ask(s, "push my web app to the cloud", "auto").unwrap();
    assert_eq!(r.results[0].id, "guides/deploy.md", "{:?}", ids(&r));
    assert_eq!(r.search_type, "semantic");
    let f = r.fallback.expect("the switch to meaning is reported");
    assert_eq!((f.from.as_str(), f.to.as_str()), ("lexical", "semantic"));
    // Noise is not dressed up as an answer: nothing similar, nothing returned.
    let r = ask(s, "zzqxv wwkkj", "auto").unwrap();
    assert!(r.results.is_empty(), "{:?}", ids(&r));
    assert_eq!(r.fallback.unwrap().to, "nothing");
    // Scores stay in 0..1 in every mode.
    for mode in ["semantic", "hybrid", "auto"] {
        let r = ask(s, "remember results of earlier calls", mode).unwrap();
        assert!(r.results.iter().all(|x| (0.0..=1.0).contains(&x.score)), "{mode}");
        assert_eq!(r.results[0].id, "reference/memo.md", "{mode}: {:?}", ids(&r));
    }
}

#[test]
fn the_static_encoder_stays_close_to_the_model_on_texts_it_was_not_fitted_to() {
    let Some(s) = setup() else { return };
    assert!(s.held_out.len() >= 5, "{} held-out sentences", s.held_out.len());
    let mut total = 0.0;
    let mut worst = 1.0f32;
    for t in &s.held_out {
        let model = s.e.embed(&[t]).unwrap().remove(0);
        let projected = done(s.engine.embed_query(t, Some(&model)).unwrap()).expect("the model's vector projects");
        let ours = done(s.engine.embed_query(t, None).unwrap()).expect("the encoder knows the words");
        let cos: f32 = ours.iter().zip(&projected).map(|(a, b)| a * b).sum();
        total += cos;
        worst = worst.min(cos);
    }
    let mean = total / s.held_out.len() as f32;
    eprintln!("static encoder vs the model on {} held-out sentences: mean cosine {mean:.3}, worst {worst:.3}", s.held_out.len());
    assert!(mean >= 0.75, "mean cosine {mean}");
}

#[test]
fn the_full_model_stays_an_option() {
    let Some(s) = setup() else { return };
    // An idiom ("roll out") is beyond a bag of static token vectors fitted to nine pages
    // (the encoder ranks the deploy guide second, after the release notes' "new version");
    // the model reads it in context.
    let req = SearchRequest { query: "roll out a new version to the servers".into(), mode: Some("semantic".into()), ..Default::default() };
    let v = s.e.embed(&[s.engine.semantic_text(&req).as_str()]).unwrap().remove(0);
    let r = done(s.engine.search_with(&req, &ctx(), Some(&v)).unwrap());
    assert_eq!(r.results[0].id, "guides/deploy.md", "{:?}", ids(&r));
    // A vector of the wrong size or with NaNs is refused.
    assert_eq!(s.engine.search_with(&req, &ctx(), Some(&[0.1; 3])).unwrap_err().code, "invalid_request");
    assert_eq!(s.engine.search_with(&req, &ctx(), Some(&vec![f32::NAN; s.e.dim])).unwrap_err().code, "invalid_request");
}

#[test]
fn hybrid_results_respect_filters_and_explain_the_fusion() {
    let Some(s) = setup() else { return };
    let req = SearchRequest {
        query: "keeping answers in memory".into(),
        mode: Some("hybrid".into()),
        filters: [("type".to_string(), FilterValue::One(Scalar::Str("blog".into())))].into(),
        explain: Some(true),
        ..Default::default()
    };
    let r = done(s.engine.search(&req, &ctx()).unwrap());
    assert_eq!(ids(&r), vec!["blog/release-notes.md"]);
    let x = sift_tests::value(r.results[0].explain.as_ref().unwrap());
    assert!(x["fusion"]["semantic"].as_f64().unwrap() > 0.0, "{x}");
}

#[test]
fn without_an_encoder_the_host_must_embed_and_bad_shards_are_refused() {
    let Some(s) = setup() else { return };
    let docs = corpus_docs();
    let built = semantic_build(&s.e, &docs, Layout { encoder: false, ..Layout::default() }, &[], &mut s.store.lock().unwrap());
    let engine = open(&built);
    assert!(!engine.has_query_encoder());
    let req = SearchRequest { query: "cache".into(), mode: Some("hybrid".into()), ..Default::default() };
    assert!(engine.wants_query_vector(&req));
    assert_eq!(engine.search(&req, &ctx()).unwrap_err().code, "embedder_required");
    // A lexical request never needs the embedding.
    let lex = SearchRequest { query: "cache".into(), mode: Some("lexical".into()), ..Default::default() };
    assert!(!engine.wants_query_vector(&lex));
    assert!(matches!(engine.search(&lex, &ctx()).unwrap(), Step::Done(_)));
    // A flipped byte in a vector list, a vocabulary group or an encoder row shard is refused.
    for prefix in ["l-", "g-", "e-"] {
        let (name, bytes) = s.built.shards.iter().find(|(n, _)| n.starts_with(prefix)).unwrap();
        let mut bad = bytes.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 1;
        // (The vector index names the lists; the encoder's index is the manifest's.)
        let mut fresh = Engine::new(&s.built.manifest_bytes()).unwrap();
        let (n, b) = s.built.shards.iter().find(|(n, _)| n.starts_with("x-")).unwrap();
        fresh.add_shard(n, b).unwrap();
        assert_eq!(fresh.add_shard(name, &bad).unwrap_err().code, "bundle_corrupt", "{name}");
    }
}

#[test]
fn builds_with_vectors_are_deterministic() {
    let Some(s) = setup() else { return };
    let docs = corpus_docs();
    let again = semantic_build(&s.e, &docs, Layout::default(), &s.held_out, &mut s.store.lock().unwrap());
    assert_eq!(again.manifest_bytes(), s.built.manifest_bytes());
    assert_eq!(again.shards, s.built.shards);
    assert_eq!(
        s.built.manifest.vectors.as_ref().unwrap().chunks as usize,
        docs.iter().map(|d| sift_build::chunk::chunks_of(d).len()).sum::<usize>()
    );
}

#[test]
fn a_site_whose_chunks_fit_the_budget_keeps_the_models_chunk_vectors_and_samples_the_rest() {
    let Some(s) = setup() else { return };
    let docs = corpus_docs();
    let store = &mut s.store.lock().unwrap();
    let chunks: std::collections::BTreeSet<Vec<u32>> =
        docs.iter().flat_map(sift_build::chunk::chunks_of).map(|c| s.e.tokenizer().encode(&c)).collect();
    let chunk_tokens: usize = chunks.iter().map(Vec::len).sum();
    let budget = chunk_tokens + 60;
    let layout = Layout { model_budget: Some(budget), ..Layout::default() };
    let (input, report, _) =
        corpus::semantic_input(&docs[..], sift_tests::model(&s.e), "all-MiniLM-L6-v2", layout, &mut **store, &|_, _| {})
            .expect("corpus embeds");
    assert_eq!(report.doc_vectors, sift_build::DocVectors::Model, "{report:?}");
    assert!(report.read_tokens > chunk_tokens && report.read_tokens <= budget && report.read_tokens < report.site_tokens, "{report:?}");
    assert!(input.per_doc.iter().flatten().all(|v| !v.is_empty()), "the model read every chunk");
    let encoder = input.encoder.as_ref().unwrap();
    let texts_read = encoder.texts.iter().filter(|t| !t.embedding.is_empty()).count();
    assert!(encoder.sampled && texts_read > 0 && texts_read < encoder.texts.len(), "{texts_read} of {} texts read", encoder.texts.len());
    // The chunks' vectors are the model's: the lists of a full build, an encoder fitted to less.
    let built = build(&docs, &BuildOptions { semantic: Some(input), ..Default::default() }).expect("builds");
    let lists = |b: &sift_build::BuiltBundle| -> Vec<Vec<u8>> {
        b.shards.iter().filter(|(name, _)| name.starts_with("l-")).map(|(_, bytes)| bytes.clone()).collect()
    };
    assert!(!lists(&built).is_empty());
    assert_eq!(lists(&built), lists(&s.built), "the same vector lists as the model's build");
    let engine = open(&built);
    let req = SearchRequest { query: "remember results of earlier calls".into(), mode: Some("semantic".into()), ..Default::default() };
    let r = done(engine.search(&req, &ctx()).unwrap());
    assert_eq!(r.results[0].id, "reference/memo.md", "{:?}", ids(&r));
}

#[test]
fn a_site_over_the_models_budget_is_sampled_and_every_chunk_gets_the_encoders_vector() {
    let Some(s) = setup() else { return };
    let docs = corpus_docs();
    let store = &mut s.store.lock().unwrap();
    let full = corpus::semantic_input(&docs[..], sift_tests::model(&s.e), "all-MiniLM-L6-v2", Layout::default(), &mut **store, &|_, _| {})
        .expect("corpus embeds")
        .1;
    assert_eq!(full.doc_vectors, sift_build::DocVectors::Model, "the seed corpus fits in the default budget");
    assert_eq!(full.read_tokens, full.site_tokens);
    // A third of the site's tokens: half of it titles, headings and sentences, then chunks.
    let budget = full.site_tokens / 3;
    let layout = Layout { model_budget: Some(budget), ..Layout::default() };
    let (input, report, _) =
        corpus::semantic_input(&docs[..], sift_tests::model(&s.e), "all-MiniLM-L6-v2", layout, &mut **store, &|_, _| {})
            .expect("corpus embeds");
    assert_eq!(report.doc_vectors, sift_build::DocVectors::Fitted);
    assert!(report.read_tokens <= budget && report.read_tokens > budget / 2, "{report:?}");
    let read = input.per_doc.iter().flatten().filter(|v| !v.is_empty()).count();
    assert!(read > 0 && read < report.chunks, "{read} of {} chunks read", report.chunks);
    let texts = &input.encoder.as_ref().unwrap().texts;
    let texts_read = texts.iter().filter(|t| !t.embedding.is_empty()).count();
    assert!(texts_read > 0 && texts_read < texts.len(), "{texts_read} of {} texts read", texts.len());
    let built = build(&docs, &BuildOptions { semantic: Some(input.clone()), ..Default::default() }).expect("builds");
    assert_eq!(built.manifest.vectors.as_ref().unwrap().chunks as usize, report.chunks, "every chunk has a vector");
    let again = build(&docs, &BuildOptions { semantic: Some(input), ..Default::default() }).expect("builds");
    assert_eq!(again.shards, built.shards, "deterministic");
    // Meaning still finds the page a paraphrase means.
    let engine = open(&built);
    let req = SearchRequest { query: "remember results of earlier calls".into(), mode: Some("semantic".into()), ..Default::default() };
    let r = done(engine.search(&req, &ctx()).unwrap());
    assert_eq!(r.results[0].id, "reference/memo.md", "{:?}", ids(&r));
    // A budget that holds no chunk is refused, saying what to do.
    let layout = Layout { model_budget: Some(2), ..Layout::default() };
    let err = corpus::semantic_input(&docs[..], sift_tests::model(&s.e), "all-MiniLM-L6-v2", layout, &mut **store, &|_, _| {}).unwrap_err();
    assert!(err.message.contains("budget of 2 tokens holds none of the site's chunks"), "{}", err.message);
}

#[test]
fn related_pages_by_meaning_find_the_sibling_topic() {
    let Some(s) = setup() else { return };
    let id = ask(s, "Caching", "lexical").unwrap().results[0].id.clone();
    let r = done(s.engine.related(&id, Some(3), &ctx()).unwrap());
    let got = ids(&r);
    assert!(!got.contains(&id.as_str()));
    assert_eq!(r.search_type, "hybrid", "a bundle with vectors relates by meaning too");
    assert!(got.iter().any(|d| d.contains("memo")), "memoization is the sibling of caching: {got:?}");
}

#[test]
fn a_page_sharing_one_word_of_a_short_query_does_not_outrank_its_clear_meaning() {
    let Some(s) = setup() else { return };
    // A page about something else that happens to say "site"; the deploy guide shares no
    // word with the query but is what it means (MiniLM's clear semantic best).
    let stray = "# Ranking internals\n\nScores combine BM25F over title, headings and body with a proximity bonus. \
                 Field weights favour titles. On a small site the index fits in one shard; tokens are stemmed \
                 and folded before lookup.\n";
    let mut docs = corpus_docs();
    docs.push(sift_extract::markdown::extract(stray.as_bytes(), "ranking.md", "/").unwrap().0);
    let built = semantic_build(&s.e, &docs, Layout::default(), &[], &mut s.store.lock().unwrap());
    let engine = open(&built);
    let ask = |q: &str| {
        let req = SearchRequest { query: q.into(), mode: Some("hybrid".into()), explain: Some(true), ..Default::default() };
        let v = s.e.embed(&[engine.semantic_text(&req).as_str()]).unwrap().remove(0);
        done(engine.search_with(&req, &ctx(), Some(&v)).unwrap())
    };
    // With the model's query vector, and with the bundle's own static encoder (what every
    // surface uses by default). The encoder has a row for "publish" although the corpus never
    // says it (every plain word of the model's vocabulary gets one): without it the query was
    // embedded as "the site for visitors" and the stray page won by meaning too.
    let by_encoder = |q: &str| {
        let req = SearchRequest { query: q.into(), mode: Some("hybrid".into()), explain: Some(true), ..Default::default() };
        done(engine.search(&req, &ctx()).unwrap())
    };
    for r in [ask("publish the site for visitors"), by_encoder("publish the site for visitors")] {
        assert_eq!(r.results[0].id, "guides/deploy.md", "{:?}", ids(&r));
        assert_eq!(r.results[1].id, "ranking.md", "the one-word match is kept, just below: {:?}", ids(&r));
        let coverage = &sift_tests::value(r.results[1].explain.as_ref().unwrap())["fusion"]["coverage"];
        assert!(coverage.as_f64().is_some_and(|c| c < 0.5), "explain shows the partial coverage: {coverage}");
    }
    // Words that cover the query keep their lexical win, and so do identifiers.
    let r = ask("proximity bonus for titles");
    assert_eq!(r.results[0].id, "ranking.md", "{:?}", ids(&r));
    let r = ask("StateMachine transitions");
    assert_eq!(r.results[0].id, "reference/state-machine.md", "{:?}", ids(&r));
}

#[test]
fn with_meaning_fused_in_every_page_size_ranks_alike() {
    let Some(s) = setup() else { return };
    // Few pages hold every word of these queries, many hold one: a small page used to rank
    // the all-words pages alone (AND), a large one the partial matches too (OR).
    for q in ["fast memo", "memory cache answers", "tokens expire users", "agents call tools"] {
        let page = |offset: usize, limit: usize| {
            let req = SearchRequest {
                query: q.into(),
                mode: Some("hybrid".into()),
                offset: Some(offset as i64),
                limit: Some(limit as i64),
                ..Default::default()
            };
            let r = done(s.engine.search(&req, &ctx()).unwrap());
            r.results.iter().map(|x| x.id.clone()).collect::<Vec<_>>()
        };
        let all = page(0, 10);
        for limit in 1..=3 {
            assert_eq!(page(0, limit), all[..limit.min(all.len())], "{q}: first {limit}");
            let from = limit.min(all.len());
            assert_eq!(page(limit, limit), all[from..(2 * limit).min(all.len())], "{q}: second page of {limit}");
        }
    }
}

#[test]
fn paragraph_like_queries_search_again_with_feedback_from_their_best_answers() {
    let Some(s) = setup() else { return };
    let ask = |q: &str| {
        let req = SearchRequest { query: q.into(), mode: Some("hybrid".into()), explain: Some(true), ..Default::default() };
        done(s.engine.search(&req, &ctx()).unwrap())
    };
    let long = ask("how can the cache keep recent answers in memory so that repeated questions from users are fast");
    let fusion = &sift_tests::value(long.results[0].explain.as_ref().unwrap())["fusion"];
    assert_eq!(fusion["feedback_docs"], 3, "{fusion}");
    assert_eq!(long.results[0].id, "reference/cache.md", "{:?}", ids(&long));
    let short = ask("cache recent answers");
    assert!(
        sift_tests::value(short.results[0].explain.as_ref().unwrap())["fusion"].get("feedback_docs").is_none(),
        "short queries name one thing"
    );
}
