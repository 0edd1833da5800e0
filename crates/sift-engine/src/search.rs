//! The search pipeline: a validated request in, a response out, each stage one module.

use super::collect::{self, Filter};
use super::definition;
use super::feedback;
use super::fusion;
use super::meaning;
use super::plan;
use super::present;
use super::relax;
use super::resolve::{Flow, Halt, Resolver};
#[cfg(feature = "explain")]
use super::round4;
use super::score::{self, Hit, Scorer};
use super::{shards::ShardId, Engine};
use crate::contract::{Fallback, SearchResponse, Sort, ValidRequest, MAX_CLAUSES};
use crate::params::RankingParams;
use crate::query;
use sift_base::error::SiftError;
use sift_base::hashing::HashMap;
#[cfg(feature = "explain")]
use sift_base::json::Json;
use sift_format::{docmeta::DocMeta, filters::FilterIndex};
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

fn rank(eng: &Engine, asked: Asked) -> Flow<Ranked> {
    let req = &asked.req;
    let (query_vector, meaning) = (asked.vector.as_deref(), asked.meaning.as_deref());
    let res = Resolver::new(eng);
    let filter_fields = &eng.manifest.filter_fields;
    // The query is analysed first: a character of folding's rare blocks needs the table.
    res.require(eng.fold_table_for(&req.query))?;
    let parse = |q: &str| query::parse(q, |f| filter_fields.iter().any(|x| x == f));
    // (What is searched; the response repeats the query as it came.)
    let searched = query::ascii_forms(&req.query);
    let mut parsed = parse(&searched);
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
        query_vector,
    )?;
    // (Always false in the keyword engine, so none of the semantic half is compiled in.)
    let semantic = cfg!(feature = "semantic") && weights.1 > 0.0;
    // The query's meaning: the host's text for its model, or the query's words.
    let text =
        if semantic { meaning.map_or_else(|| meaning::semantic_text(&searched, filter_fields), str::to_string) } else { String::new() };
    let first_semantic = if semantic { meaning::first_round(eng, host_vector.is_some(), &text) } else { Vec::new() };
    // A query shaped like an identifier also looks up definitions (not when meaning alone
    // is asked for).
    let def_key = sift_text::symbol::query_key(&searched, &eng.analyzer).filter(|_| weights.0 > 0.0);
    let def_shards = def_key.as_ref().map(|k| definition::shards(eng, k)).unwrap_or_default();

    // Quoted text that no document contains is no constraint: it relaxes to its words
    // (ranked with proximity like any words), once, and the response says so (`unquoted`
    // also says when a path was searched as its parts).
    let mut unquoted = None;
    let (mut plan, repeats, long) = loop {
        let drafts = plan::draft(&eng.analyzer, &parsed, weights.0 > 0.0);
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
        let shards = drafts.iter().flat_map(|d| d.shards(eng)).chain(first_semantic.iter().cloned()).chain(def_shards.iter().cloned());
        res.require([ShardId::Startup].into_iter().chain(shards))?;
        let plan = plan::resolve(&res, &drafts)?;
        // A path that nothing is written as, or defined as (`os.getcwdd`), is its parts:
        // words, with typo tolerance — once, and the response says so.
        if unquoted.is_none() && plan.positive_clauses().all(|c| c.alts.is_empty()) {
            if let Some((k, words)) = def_key.as_ref().zip(definition::parts_as_words(&searched)) {
                if definition::lookup(&res, k, &|_| true)?.is_empty() {
                    parsed = parse(&words);
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
    let (meta, index) = (res.docmeta()?, res.filters()?);
    let distinct = plan.positive.len();
    let reduced = long.then(|| plan.keep_most_informative(MAX_CLAUSES, &repeats, eng.manifest.doc_count)).flatten().map(|kept| Fallback {
        from: format!("{distinct} terms"),
        to: format!("{} terms", kept.len()),
        reason: format!(
            "the query has {distinct} distinct terms; searched for the {} most informative (rarest in this bundle, repeated ones first): {}",
            kept.len(),
            kept.join(" ")
        ),
    });
    // (`since_days` and `include_content` are never set without their features: validation
    // refuses them. Said here too, so the code goes with the feature.)
    let since_days = req.since_days.filter(|_| cfg!(feature = "dates"));
    let filter = Filter::new(index, meta, &collect::filters_of(req, &parsed), since_days, &plan.clauses);
    let defining = match &def_key {
        Some(k) => definition::lookup(&res, k, &|d| filter.admits(d))?,
        None => Vec::new(),
    };
    if plan.positive.is_empty() {
        if filter.narrows() {
            let (page, response) = browse(req, &filter, meta, index, eng.manifest.doc_count);
            return Ok(Ranked { plan, page, defining: Vec::new(), explains: Vec::new(), response, asked });
        }
        let reason = if parsed.groups.iter().any(|g| g.negated) {
            "the query only excludes terms; add a word to search for"
        } else {
            // Punctuation and symbols (`:=`, `->`, `@`) are not indexed: say so, rather than
            // blame exclusions the query does not have.
            "the query has no words, only symbols, which are not indexed; type a word"
        };
        let response = empty_response(req, Fallback { from: "query".into(), to: "nothing".into(), reason: reason.into() });
        return Ok(Ranked { plan, page: Vec::new(), defining, explains: Vec::new(), response, asked });
    }

    // The query's meaning (its tokens' encoder rows, or the host's vector projected).
    let q = if semantic { meaning::query_vector(&res, &text, host_vector)? } else { None };
    // The semantic half: alone, fused with the lexical list, or as the last fallback. A
    // query with no meaning the encoder knows is lexical (empty if meaning was all it asked).
    // Found before the lexical half, which needs nothing of it: each round of vector shards
    // is then asked for without scoring the words again (every call runs from the start).
    let depth = (req.offset + req.limit).max(eng.params.semantic_depth);
    let by_meaning = match &q {
        Some(q) => Some(meaning::semantic_hits(&res, q, depth, &filter)?),
        None if semantic && weights.0 == 0.0 => Some(Vec::new()),
        None => None,
    };

    // The lexical half, relaxed until it answers; scores normalised to 0..1.
    let scorer = Scorer {
        params: &eng.manifest.params,
        norms: &eng.norms,
        meta,
        proximity: eng.params.proximity,
        whole_title: eng.params.whole_title,
    };
    // With meaning fused in, the lexical side always brings `semantic_depth` candidates: a
    // page of 10 then ranks like a page of 100 (partial word matches fuse with meaning,
    // where the words of a paraphrase rarely all match).
    let page_end = req.offset + req.limit;
    let want = if semantic { page_end.max(eng.params.semantic_depth) } else { page_end };
    let relaxed = relax::relax(&res, &scorer, &mut plan, &filter, page_end, want)?;
    let suggestions = relax::suggestions(&res, &plan, &searched, relaxed.hits.len())?;
    let mut max_possible = score::max_possible(&plan, eng.params.proximity, eng.params.whole_title);
    let mut lexical = relaxed.hits;
    score::normalise(&mut lexical, max_possible);

    let fallback = chain([reduced, relaxed.fallback]);
    let coverage = match by_meaning {
        Some(_) => fusion::coverage(&eng.analyzer, &searched, parsed.has_phrase(), &plan, &lexical, eng.manifest.doc_count, &eng.params),
        None => None,
    };
    // Paragraph-like queries: the best first answers (fused, when meaning counts) refine
    // the query on both sides — their words join the lexical query (RM3), their meaning
    // the query's vector — and each side searches again before the one fusion below.
    let mut by_meaning = by_meaning;
    let mut feedback = 0;
    let typed_clauses = plan.positive.len();
    if cfg!(feature = "feedback") && fuses(weights, &lexical) && feedback::applies(typed_clauses, &eng.params) {
        let first = match &by_meaning {
            Some(sem) => fusion::fuse(&lexical, sem, weights, coverage.as_ref(), &eng.params),
            None => lexical.clone(),
        };
        let model = feedback::relevance_model(&res, &first)?;
        if feedback::expand(&res, &mut plan, &model)? {
            lexical = scorer.rank(&plan, relaxed.all_terms, &filter);
            max_possible = score::max_possible(&plan, eng.params.proximity, eng.params.whole_title);
            score::normalise(&mut lexical, max_possible);
        }
        if let Some(q2) = q.as_deref().and_then(|qv| meaning::feedback(eng, qv, &first)) {
            by_meaning = Some(meaning::semantic_hits_in_loaded_lists(&res, &q2, depth, &filter)?);
            feedback = eng.params.rocchio_docs;
        }
    }
    // A page's neighbours (`related`, which asks by the page's meaning) are what meaning
    // alone finds, however far below the page itself.
    let within = if meaning.is_some() { f32::INFINITY } else { eng.params.meaning_only_within };
    let params = crate::params::RankingParams { meaning_only_within: within, ..eng.params };
    let mut combined = combine(lexical, by_meaning, weights, fallback, req.explain, coverage.as_ref(), &params);
    combined.feedback = feedback;
    // (Quoted text relaxed to words counts in every mode: meaning alone too no longer needs it.)
    combined.fallback = chain([unquoted, combined.fallback.take()]);
    let hits = std::mem::take(&mut combined.hits);

    // Order, page, facets; then the stored documents of the page.
    let Collected { page, total, facets } = collected(req, meta, index, eng.manifest.doc_count, hits, &defining);
    #[cfg(feature = "explain")]
    let explains = page
        .iter()
        .map(|h| {
            req.explain.then(|| {
                let mut x = scorer.explain(h.doc, &plan, max_possible, h.score);
                if q.is_some() {
                    x.set("fusion", combined.explain(h.doc, weights));
                }
                x
            })
        })
        .collect();
    #[cfg(not(feature = "explain"))]
    let explains = Vec::new();
    let response = SearchResponse {
        results: Vec::new(),
        has_more: false,
        total,
        limit: req.limit,
        offset: req.offset,
        query: req.query.trim_end().to_string(),
        search_type: combined.search_type.into(),
        fallback: combined.fallback.clone(),
        suggestions,
        facets,
        timings_ms: BTreeMap::new(),
    };
    Ok(Ranked { plan, page, defining, explains, response, asked })
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

/// The two halves as one list, and what the response says about it.
// The per-side scores are read only by `explain` (not in the lean browser runtime).
#[cfg_attr(not(feature = "explain"), allow(dead_code))]
struct Combined {
    hits: Vec<Hit>,
    search_type: &'static str,
    fallback: Option<Fallback>,
    /// Each side's score per document, kept for `explain`.
    lexical_scores: HashMap<u32, f32>,
    semantic_scores: HashMap<u32, f32>,
    /// How much of a short query each lexical hit covers, where fusion weighed it.
    coverage: HashMap<u32, f32>,
    /// How many of the best answers gave the semantic side feedback (0: it searched once).
    feedback: usize,
    /// What a document the semantic side did not reach counted there (`fusion::unreached`).
    unreached: f32,
}

impl Combined {
    /// How a document's fused score came about.
    #[cfg(feature = "explain")]
    fn explain(&self, doc: u32, (w_lex, w_sem): (f32, f32)) -> Json {
        let mut x = Json::obj([("lexical", Json::from(self.lexical_scores.get(&doc).map(|s| round4(*s))))]);
        // Only partial matches say so (full ones explain as they always did).
        if let Some(c) = self.coverage.get(&doc).filter(|&&c| c < 1.0) {
            x.set("coverage", round4(*c).into());
        }
        if self.feedback > 0 {
            x.set("feedback_docs", self.feedback.into());
        }
        x.set("search_type", self.search_type.into());
        x.set("semantic", self.semantic_scores.get(&doc).map(|s| round4(*s)).into());
        if self.search_type == "hybrid" && !self.semantic_scores.contains_key(&doc) {
            x.set("semantic_unreached", round4(self.unreached).into());
        }
        x.set("weights", Json::obj([("lexical", Json::from(w_lex)), ("semantic", Json::from(w_sem))]));
        x
    }
}

fn combine(
    lexical: Vec<Hit>,
    semantic: Option<Vec<Hit>>,
    weights: (f32, f32),
    fallback: Option<Fallback>,
    explain: bool,
    coverage: Option<&HashMap<u32, f32>>,
    p: &RankingParams,
) -> Combined {
    let Some(sem) = semantic else {
        return Combined {
            hits: lexical,
            search_type: "lexical",
            fallback,
            lexical_scores: HashMap::default(),
            semantic_scores: HashMap::default(),
            coverage: HashMap::default(),
            feedback: 0,
            unreached: 0.0,
        };
    };
    let (lexical_scores, semantic_scores, coverage_kept, unreached) = if explain {
        (
            lexical.iter().map(|h| (h.doc, h.score)).collect(),
            sem.iter().map(|h| (h.doc, h.score)).collect(),
            coverage.cloned().unwrap_or_default(),
            fusion::unreached(&sem, p),
        )
    } else {
        (HashMap::default(), HashMap::default(), HashMap::default(), 0.0)
    };
    let (hits, search_type, fallback) = if weights.0 == 0.0 {
        (sem, "semantic", None)
    } else if !fuses(weights, &lexical) {
        // A fallback must not dress up noise as an answer: only real similarity counts.
        let sem: Vec<Hit> = sem.into_iter().filter(|h| h.score >= p.semantic_fallback_min).collect();
        let fallback = if sem.is_empty() {
            fallback
        } else {
            Some(Fallback {
                from: "lexical".into(),
                to: "semantic".into(),
                reason: "no document contains the query's words (or similar spellings); showing results by meaning".into(),
            })
        };
        (sem, "semantic", fallback)
    } else {
        (fusion::fuse(&lexical, &sem, weights, coverage, p), "hybrid", fallback)
    };
    let coverage = if search_type == "hybrid" { coverage_kept } else { HashMap::default() };
    Combined { hits, search_type, fallback, lexical_scores, semantic_scores, coverage, feedback: 0, unreached }
}

/// Whether the two lists are fused (hybrid), given a semantic list: the lexical side has
/// weight and found something; otherwise meaning answers alone.
fn fuses((w_lex, _): (f32, f32), lexical: &[Hit]) -> bool {
    w_lex > 0.0 && !lexical.is_empty()
}

/// A query with filters and no words (`folder:library`, or symbols with a `since`): every
/// page the filters admit, in the bundle's order (or by date), with facets, like a search
/// that matched them all.
fn browse(req: &ValidRequest, filter: &Filter, meta: &DocMeta, index: &FilterIndex, doc_count: u32) -> (Vec<Hit>, SearchResponse) {
    let hits: Vec<Hit> = (0..doc_count).filter(|&d| filter.admits(d)).map(|doc| Hit { doc, score: 1.0 }).collect();
    let Collected { page, total, facets } = collected(req, meta, index, doc_count, hits, &[]);
    let reason = if total == 0 && !filter.excluded.is_empty() {
        "the query has no words, and no page passes its filters and exclusions"
    } else if total == 0 {
        "the query has no words, and no page has the values its filters ask for"
    } else {
        "the query has no words; listing every page its filters admit"
    };
    let fallback = Fallback { from: "query".into(), to: "filters".into(), reason: reason.into() };
    (page, SearchResponse { total, facets, ..empty_response(req, fallback) })
}

/// A search's hits ordered (the defined item first by relevance), paged, counted.
struct Collected {
    page: Vec<Hit>,
    total: usize,
    facets: BTreeMap<String, BTreeMap<String, usize>>,
}

fn collected(
    req: &ValidRequest,
    meta: &DocMeta,
    index: &FilterIndex,
    doc_count: u32,
    mut hits: Vec<Hit>,
    defining: &[definition::Defining],
) -> Collected {
    collect::order(&mut hits, meta, req.sort, req.boost_recent);
    if req.sort == Sort::Relevance {
        definition::rank_first(&mut hits, defining);
    }
    let page = hits.iter().skip(req.offset).take(req.limit).copied().collect();
    Collected { page, total: hits.len(), facets: collect::facets(index, doc_count as usize, &hits) }
}

fn empty_response(req: &ValidRequest, fallback: Fallback) -> SearchResponse {
    SearchResponse {
        limit: req.limit,
        offset: req.offset,
        query: req.query.trim_end().to_string(),
        search_type: "lexical".into(),
        fallback: Some(fallback),
        ..Default::default()
    }
}

#[cfg(all(test, feature = "explain"))]
mod tests {
    use super::*;

    #[test]
    fn explain_says_what_a_page_the_semantic_side_did_not_reach_counted_there() {
        let lexical = vec![Hit { doc: 1, score: 0.9 }, Hit { doc: 2, score: 0.4 }];
        let semantic = vec![Hit { doc: 2, score: 0.6 }, Hit { doc: 3, score: 0.5 }];
        let c = combine(lexical, Some(semantic), (0.3, 0.7), None, true, None, &crate::params::DEFAULT);
        assert_eq!(c.search_type, "hybrid");
        let unread = c.explain(1, (0.3, 0.7));
        assert!(unread.get("semantic").is_some_and(Json::is_null));
        assert_eq!(unread.get("semantic_unreached").map(Json::to_text), Some("0.5".into()), "the lowest score reached");
        assert!(c.explain(2, (0.3, 0.7)).get("semantic_unreached").is_none(), "reached: its own score");
    }
}
