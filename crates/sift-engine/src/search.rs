//! The search pipeline: a validated request in, a response out, each stage one module.

use super::collect::{self, Collected, Filter};
use super::definition;
use super::feedback;
use super::fusion;
use super::meaning;
use super::plan;
use super::present;
use super::relax;
use super::resolve::{Flow, Halt, Resolver};
use super::score::{self, Hit, Scorer};
use super::{shards::ShardId, Engine};
use crate::contract::{Fallback, SearchResponse, ValidRequest, MAX_CLAUSES};
use crate::params::RankingParams;
use crate::query;
use sift_base::error::SiftError;
use sift_base::hashing::HashMap;
use sift_base::json::Json;
use sift_format::{docmeta::DocMeta, filters::FilterIndex};
use sift_text::symbol::QueryKey;
use std::collections::BTreeMap;

/// `query_vector`: the host's embedding of the query (the model's space), if it made one;
/// `meaning`: the text to embed instead of the query's own words (`related`).
///
/// A search is ranked once: when only its page's documents are missing, the ranking waits
/// on the engine (`Engine::ranked`) for the host's next call, which presents it instead of
/// ranking again. Kept rankings are final: a call ranks only once every shard the ranking
/// reads is loaded, and more shards never change it (cold answers equal warm ones).
pub(crate) fn run(eng: &Engine, req: &ValidRequest, query_vector: Option<&[f32]>, meaning: Option<&str>) -> Flow<SearchResponse> {
    let asked = Asked { req: req.clone(), vector: query_vector.map(<[f32]>::to_vec), meaning: meaning.map(str::to_string) };
    // (Locked only to take or keep a ranking, never while ranking or presenting.)
    let waiting = || eng.ranked.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let kept = waiting().take().filter(|r| r.asked == asked);
    let ranked = match kept {
        Some(r) => r,
        None => rank(eng, asked)?,
    };
    let res = Resolver::new(eng);
    let req = &ranked.asked.req;
    match present::results(&res, &ranked.plan, &ranked.page, &ranked.defining, req.include_content && cfg!(feature = "whole-pages")) {
        Err(Halt::Need(files)) => {
            *waiting() = Some(ranked);
            Err(Halt::Need(files))
        }
        Err(e) => Err(e),
        Ok(mut results) => {
            for (r, x) in results.iter_mut().zip(ranked.explains) {
                r.explain = x;
            }
            let mut resp = ranked.response;
            resp.has_more = req.offset + results.len() < resp.total;
            resp.results = results;
            Ok(resp)
        }
    }
}

/// What a search was asked: the same request, vector and meaning rank the same.
#[derive(PartialEq)]
pub(crate) struct Asked {
    req: ValidRequest,
    vector: Option<Vec<f32>>,
    meaning: Option<String>,
}

/// A search ranked, its page's documents still to read.
pub(crate) struct Ranked {
    asked: Asked,
    plan: plan::Plan,
    page: Vec<Hit>,
    defining: Vec<definition::Defining>,
    /// Each page result's `explain`, when asked.
    explains: Vec<Option<sift_base::json::Json>>,
    /// The response but for its results.
    response: SearchResponse,
}

/// Rank a search, stage by stage: each stage is a function of what the ones before it
/// found, and any of them may halt for shards (`?`), which the host fetches before the
/// engine runs the stages again from the top.
fn rank(eng: &Engine, asked: Asked) -> Flow<Ranked> {
    let res = Resolver::new(eng);
    let req = &asked.req;
    // 1. Read the query: its syntax, how much words and meaning count, what meaning reads.
    let intent = read_query(&res, &asked)?;
    // 2. Plan the words: clauses of alternatives (quotes and paths nothing holds relaxed).
    let words = plan_words(&res, req, &intent)?;
    let long = words.long();
    let (mut plan, parsed) = (words.plan, words.parsed);
    // 3. The hard constraints (filters, `since`, exclusions, quotes) and the definitions.
    let (meta, index) = (res.docmeta()?, res.filters()?);
    let distinct = plan.positive.len();
    let reduced = long.then(|| plan.keep_most_informative(MAX_CLAUSES, &words.repeats, eng.live_docs())).flatten();
    let reduced = reduced.map(|kept| most_informative(distinct, &kept));
    // (`since_days` and `include_content` are never set without their features: validation
    // refuses them. Said here too, so the code goes with the feature.)
    let since_days = req.since_days.filter(|_| cfg!(feature = "dates"));
    let filter = Filter::new(index, meta, &collect::filters_of(req, &parsed), since_days, &plan.clauses, eng.removed());
    let defining = match &intent.def_key {
        Some(k) => definition::lookup(&res, k, &|d| filter.admits(d))?,
        None => Vec::new(),
    };
    if plan.positive.is_empty() {
        let (page, response) = no_words(req, &parsed, &filter, meta, index, eng);
        let defining = if filter.narrows() { Vec::new() } else { defining };
        return Ok(Ranked { plan, page, defining, explains: Vec::new(), response, asked });
    }
    // 4. By meaning: the query's vector and the nearest documents. Found before the words,
    // which need nothing of it: each round of vector shards is then asked for without
    // scoring the words again.
    let (q, by_meaning) = by_meaning(&res, req, &intent, &filter)?;
    // 5. By words: BM25F, relaxed until it answers, normalised to 0..1.
    let scorer = Scorer { bm25f: &eng.manifest.params, ranking: &eng.params, norms: &eng.norms, meta };
    let lexical = by_words(&res, &scorer, req, &intent, &mut plan, &filter)?;
    let coverage = by_meaning.as_ref().and_then(|_| {
        fusion::coverage(&eng.analyzer, &intent.searched, parsed.has_phrase(), &plan, &lexical.hits, eng.live_docs(), &eng.params)
    });
    // 6. Paragraph-like queries: relevance feedback on both sides.
    let refined = refine(&res, &scorer, req, &intent, &mut plan, lexical, by_meaning, q.as_deref(), &filter, coverage.as_ref())?;
    // 7. Fuse the two sides.
    // A page's neighbours (`related`, which asks by the page's meaning) are what meaning
    // alone finds, however far below the page itself.
    let within = if asked.meaning.is_some() { f32::INFINITY } else { eng.params.meaning_only_within };
    let params = RankingParams { meaning_only_within: within, ..eng.params };
    let fallback = chain([reduced, refined.fallback]);
    let mut combined =
        fusion::combine(refined.lexical, refined.by_meaning, intent.weights, fallback, req.explain, coverage.as_ref(), &params);
    combined.feedback = refined.feedback;
    // (Quoted text relaxed to words counts in every mode: meaning alone too no longer needs it.)
    combined.fallback = chain([words.unquoted, combined.fallback.take()]);
    let hits = std::mem::take(&mut combined.hits);
    // 8. Order, page, facets (the page's documents are read when it is presented).
    let Collected { page, total, facets } = collect::collected(req, meta, index, eng.doc_count(), hits, &defining, &eng.params);
    let explains = explains(&scorer, &page, &plan, refined.max_possible, &combined, q.is_some(), intent.weights, req.explain);
    let response = SearchResponse {
        results: Vec::new(),
        has_more: false,
        total,
        limit: req.limit,
        offset: req.offset,
        query: req.query.trim_end().to_string(),
        search_type: combined.search_type.into(),
        fallback: combined.fallback.clone(),
        suggestions: refined.suggestions,
        facets,
        timings_ms: BTreeMap::new(),
    };
    Ok(Ranked { plan, page, defining, explains, response, asked })
}

/// Stage 1: the query as the ranking reads it.
struct Intent {
    /// The query as searched: read as ASCII where it was typed in full-width forms (the
    /// response repeats it as it came).
    searched: String,
    parsed: query::ParsedQuery,
    /// (lexical, semantic) weights.
    weights: (f32, f32),
    /// Whether meaning counts: read through [`Intent::semantic`].
    semantic: bool,
    /// The host's vector of the query, when it is the one to use.
    host_vector: Option<Vec<f32>>,
    /// The text the query's meaning is made from: the host's, or the query's words.
    text: String,
    /// What the semantic side reads in the first round.
    first_semantic: Vec<ShardId>,
    /// An identifier-shaped query's definition key, and the shards it reads.
    def_key: Option<QueryKey>,
    def_shards: Vec<ShardId>,
}

impl Intent {
    /// Whether meaning counts: never in the keyword engine. The feature is tested where the
    /// flag is read too: through the struct the compiler would no longer see that the
    /// keyword engine never gets past it, and would compile the semantic half into it.
    fn semantic(&self) -> bool {
        cfg!(feature = "semantic") && self.semantic
    }
}

fn read_query(res: &Resolver, asked: &Asked) -> Flow<Intent> {
    let eng = res.eng;
    let req = &asked.req;
    // The query is analysed first: a character of folding's rare blocks needs the table.
    res.require(eng.fold_table_for(&req.query))?;
    let searched = query::ascii_forms(&req.query);
    let mut parsed = parse(eng, &searched);
    if let Some(words) = plan::cited(&eng.analyzer, &parsed, eng.params.feedback_min_clauses) {
        parsed = words;
    }
    let (weights, host_vector) = fusion::mode_weights(
        &eng.analyzer,
        req,
        parsed.has_phrase(),
        &eng.params,
        eng.manifest.vectors.as_ref(),
        eng.has_query_encoder(),
        asked.vector.as_deref(),
    )?;
    // (Always false in the keyword engine, so none of the semantic half is compiled in.)
    let semantic = cfg!(feature = "semantic") && weights.1 > 0.0;
    let text = match (semantic, &asked.meaning) {
        (false, _) => String::new(),
        (true, Some(m)) => m.clone(),
        (true, None) => meaning::semantic_text(&searched, &eng.manifest.filter_fields),
    };
    let first_semantic = if semantic { meaning::first_round(eng, host_vector.is_some(), &text) } else { Vec::new() };
    // A query shaped like an identifier also looks up definitions (not when meaning alone
    // is asked for).
    let def_key = sift_text::symbol::query_key(&searched, &eng.analyzer).filter(|_| weights.0 > 0.0);
    let def_shards = def_key.as_ref().map(|k| definition::shards(eng, k)).unwrap_or_default();
    let host_vector = host_vector.map(<[f32]>::to_vec);
    Ok(Intent { searched: searched.into_owned(), parsed, weights, semantic, host_vector, text, first_semantic, def_key, def_shards })
}

fn parse(eng: &Engine, q: &str) -> query::ParsedQuery {
    query::parse(q, |f| eng.manifest.filter_fields.iter().any(|x| x == f))
}

/// Stage 2: the words' plan.
struct Words {
    plan: plan::Plan,
    /// The query as planned (quotes or a path nothing holds relaxed to words).
    parsed: query::ParsedQuery,
    /// Terms a long query repeats (merged), and whether it is long ([`Words::long`]).
    repeats: Vec<u32>,
    long: bool,
    /// What relaxing quotes or a path did.
    unquoted: Option<Fallback>,
}

impl Words {
    /// Whether the query is long enough to be reduced to its most informative terms: only
    /// with the `feedback` feature, tested here for the reason [`Intent::semantic`] gives.
    fn long(&self) -> bool {
        cfg!(feature = "feedback") && self.long
    }
}

fn plan_words(res: &Resolver, req: &ValidRequest, intent: &Intent) -> Flow<Words> {
    let eng = res.eng;
    let mut parsed = intent.parsed.clone();
    // Quoted text that no document contains is no constraint: it relaxes to its words
    // (ranked with proximity like any words), once, and the response says so (`unquoted`
    // also says when a path was searched as its parts).
    let mut unquoted = None;
    let (mut plan, repeats, long) = loop {
        let drafts = plan::draft(&eng.analyzer, &parsed, intent.weights.0 > 0.0);
        let typed = drafts.iter().filter(|d| !d.negated).count();
        // Paragraph-like queries are the full runtime's: a browser engine built without
        // them hands the query on rather than answer it differently. (Each clause is a
        // draft and relaxing only drops clauses, so feedback below never applies where
        // this did not.)
        if !cfg!(feature = "feedback") && feedback::applies(typed, &eng.params) {
            return Err(SiftError::full_runtime_required("a query of 8 or more terms (relevance feedback)").into());
        }
        // Long input (a pasted paragraph) is answered, not refused: repeats merge here, and
        // after resolution the most informative terms are kept (`Plan::keep_most_informative`).
        let long = cfg!(feature = "feedback") && typed > MAX_CLAUSES;
        let (drafts, repeats) = if long { plan::merge_repeats(drafts) } else { (drafts, Vec::new()) };
        // One round for everything the plan reads: the startup shard (scoring data,
        // filters, and the doc store's dictionary the results' doc shards are read with),
        // the words' term shards, and the semantic indexes when meaning counts.
        let shards =
            drafts.iter().flat_map(|d| d.shards(eng)).chain(intent.first_semantic.iter().cloned()).chain(intent.def_shards.iter().cloned());
        res.require([ShardId::Startup].into_iter().chain(shards))?;
        let plan = plan::resolve(res, &drafts)?;
        // A path that nothing is written as, or defined as (`os.getcwdd`), is its parts:
        // words, with typo tolerance — once, and the response says so.
        if unquoted.is_none() && plan.positive_clauses().all(|c| c.alts.is_empty()) {
            if let Some((k, words)) = intent.def_key.as_ref().zip(definition::parts_as_words(&intent.searched)) {
                if definition::lookup(res, k, &|_| true)?.is_empty() {
                    parsed = parse(eng, &words);
                    let reason = ["no document contains ", req.query.trim(), "; searched for its parts: ", &words].concat();
                    unquoted = Some(Fallback { from: "identifier".into(), to: "words".into(), reason });
                    continue;
                }
            }
        }
        let (labels, apart) = if unquoted.is_none() { collect::unmatched_quotes(&plan.clauses) } else { (Vec::new(), false) };
        if labels.is_empty() {
            break (plan, repeats, long);
        }
        parsed = parsed.unquote(|g| labels.contains(&plan::label(g)));
        unquoted = Some(phrases_as_words(&labels, apart));
    };
    plan.typed = plan::typed_terms(&eng.analyzer, &parsed);
    Ok(Words { plan, parsed, repeats, long, unquoted })
}

/// What a long query kept of its `distinct` terms.
fn most_informative(distinct: usize, kept: &[String]) -> Fallback {
    Fallback {
        from: format!("{distinct} terms"),
        to: format!("{} terms", kept.len()),
        reason: format!(
            "the query has {distinct} distinct terms; searched for the {} most informative (rarest in this bundle, repeated ones first): {}",
            kept.len(),
            kept.join(" ")
        ),
    }
}

/// A query without words to search for: with filters, every page they admit; else a
/// response that says why there is nothing.
fn no_words(
    req: &ValidRequest,
    parsed: &query::ParsedQuery,
    filter: &Filter,
    meta: &DocMeta,
    index: &FilterIndex,
    eng: &Engine,
) -> (Vec<Hit>, SearchResponse) {
    if filter.narrows() {
        return collect::browse(req, filter, meta, index, eng.doc_count(), &eng.params);
    }
    let reason = if parsed.groups.iter().any(|g| g.negated) {
        "the query only excludes terms; add a word to search for"
    } else {
        // Punctuation and symbols (`:=`, `->`, `@`) are not indexed: say so, rather than
        // blame exclusions the query does not have.
        "the query has no words, only symbols, which are not indexed; type a word"
    };
    (Vec::new(), collect::empty_response(req, Fallback { from: "query".into(), to: "nothing".into(), reason: reason.into() }))
}

/// Stage 4: the query's vector (its tokens' encoder rows, or the host's vector projected)
/// and the documents nearest to it: the semantic half alone, fused with the words, or as
/// the last fallback. A query with no meaning the encoder knows is lexical (empty if
/// meaning was all it asked for).
fn by_meaning(res: &Resolver, req: &ValidRequest, intent: &Intent, filter: &Filter) -> Flow<(Option<Vec<f32>>, Option<Vec<Hit>>)> {
    if !intent.semantic() {
        return Ok((None, None));
    }
    let q = meaning::query_vector(res, &intent.text, intent.host_vector.as_deref())?;
    let hits = match &q {
        Some(q) => Some(meaning::semantic_hits(res, q, meaning_depth(req, &res.eng.params), filter)?),
        None if intent.weights.0 == 0.0 => Some(Vec::new()),
        None => None,
    };
    Ok((q, hits))
}

/// Documents taken from the semantic side: enough for the page, at least `semantic_depth`.
fn meaning_depth(req: &ValidRequest, p: &RankingParams) -> usize {
    (req.offset + req.limit).max(p.semantic_depth)
}

/// Stage 5: the lexical half.
struct Lexical {
    /// Normalised to 0..1 by the best score the plan could reach.
    hits: Vec<Hit>,
    fallback: Option<Fallback>,
    /// Whether every hit has every term (relaxing stopped before "any term").
    all_terms: bool,
    suggestions: Vec<String>,
    /// The best score the plan could reach, which normalised the hits.
    max_possible: f32,
}

fn by_words(res: &Resolver, scorer: &Scorer, req: &ValidRequest, intent: &Intent, plan: &mut plan::Plan, filter: &Filter) -> Flow<Lexical> {
    let p = &res.eng.params;
    // With meaning fused in, the lexical side always brings `semantic_depth` candidates: a
    // page of 10 then ranks like a page of 100 (partial word matches fuse with meaning,
    // where the words of a paraphrase rarely all match).
    let page_end = req.offset + req.limit;
    let want = if intent.semantic() { page_end.max(p.semantic_depth) } else { page_end };
    let relaxed = relax::relax(res, scorer, plan, filter, page_end, want)?;
    let suggestions = relax::suggestions(res, plan, &intent.searched, relaxed.hits.len())?;
    let mut hits = relaxed.hits;
    let max_possible = score::max_possible(plan, p.proximity, p.whole_title);
    score::normalise(&mut hits, max_possible);
    Ok(Lexical { hits, fallback: relaxed.fallback, all_terms: relaxed.all_terms, suggestions, max_possible })
}

/// Stage 6's output: both sides after feedback.
struct Refined {
    lexical: Vec<Hit>,
    by_meaning: Option<Vec<Hit>>,
    fallback: Option<Fallback>,
    suggestions: Vec<String>,
    /// The lexical side's best possible score, which normalised it.
    max_possible: f32,
    /// How many of the best answers gave the semantic side feedback (0: none).
    feedback: usize,
}

/// Stage 6: paragraph-like queries' best first answers (fused, when meaning counts) refine
/// the query on both sides — their words join the lexical query (RM3), their meaning the
/// query's vector — and each side searches again before the one fusion.
fn refine(
    res: &Resolver,
    scorer: &Scorer,
    req: &ValidRequest,
    intent: &Intent,
    plan: &mut plan::Plan,
    lexical: Lexical,
    by_meaning: Option<Vec<Hit>>,
    q: Option<&[f32]>,
    filter: &Filter,
    coverage: Option<&HashMap<u32, f32>>,
) -> Flow<Refined> {
    let p = &res.eng.params;
    let Lexical { hits: mut lex, fallback, all_terms, suggestions, mut max_possible } = lexical;
    let mut by_meaning = by_meaning;
    let mut feedback = 0;
    if cfg!(feature = "feedback") && fusion::fuses(intent.weights, &lex) && feedback::applies(plan.positive.len(), p) {
        let first = match &by_meaning {
            Some(sem) => fusion::fuse(&lex, sem, intent.weights, coverage, p),
            None => lex.clone(),
        };
        let model = feedback::relevance_model(res, &first)?;
        if feedback::expand(res, plan, &model)? {
            lex = scorer.rank(plan, all_terms, filter);
            max_possible = score::max_possible(plan, p.proximity, p.whole_title);
            score::normalise(&mut lex, max_possible);
        }
        if let Some(q2) = q.and_then(|qv| meaning::feedback(res, qv, &first)) {
            by_meaning = Some(meaning::semantic_hits_in_loaded_lists(res, &q2, meaning_depth(req, p), filter)?);
            feedback = p.rocchio_docs;
        }
    }
    Ok(Refined { lexical: lex, by_meaning, fallback, suggestions, max_possible, feedback })
}

/// Each page result's `explain`, when asked (the full runtime's).
fn explains(
    scorer: &Scorer,
    page: &[Hit],
    plan: &plan::Plan,
    max_possible: f32,
    combined: &fusion::Combined,
    meaning: bool,
    weights: (f32, f32),
    asked: bool,
) -> Vec<Option<Json>> {
    #[cfg(feature = "explain")]
    {
        page.iter()
            .map(|h| {
                asked.then(|| {
                    let mut x = scorer.explain(h.doc, plan, max_possible, h.score);
                    if meaning {
                        x.set("fusion", combined.explain(h.doc, weights));
                    }
                    x
                })
            })
            .collect()
    }
    #[cfg(not(feature = "explain"))]
    {
        let _ = (scorer, page, plan, max_possible, combined, meaning, weights, asked);
        Vec::new()
    }
}

/// Quoted text relaxed to its words: `labels` as typed, `apart` when each was found but
/// never all in one document.
fn phrases_as_words(labels: &[String], apart: bool) -> Fallback {
    let list = labels.join(", ");
    let reason = match (apart, labels.len()) {
        (true, _) => ["no document contains all of ", &list, "; searched for their words"].concat(),
        (false, 1) => ["no document contains ", &list, "; searched for its words"].concat(),
        (false, _) => ["no document contains ", &list, "; searched for their words"].concat(),
    };
    Fallback { from: "phrase".into(), to: "words".into(), reason }
}

/// The fallbacks taken, in order, as one: from the first, to the last, every reason.
fn chain(steps: impl IntoIterator<Item = Option<Fallback>>) -> Option<Fallback> {
    steps.into_iter().flatten().reduce(|a, b| Fallback { from: a.from, to: b.to, reason: [a.reason, b.reason].join("; then ") })
}
