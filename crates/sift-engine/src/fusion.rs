//! How the semantic half meets the lexical one: the request's mode and the query's shape
//! decide the weights; a convex combination of normalised scores fuses the two lists.
//! Reciprocal rank fusion (for `multi_search`) lives here too.

use super::matching::alt_match_at;
use super::plan::Plan;
#[cfg(feature = "explain")]
use super::round4;
use super::score::{sort_hits, Hit};
use crate::contract::{Fallback, Mode, ValidRequest};
use crate::rank;
use sift_base::error::{ErrorCode, SiftError};
use sift_base::hashing::HashMap;
#[cfg(feature = "explain")]
use sift_base::json::Json;
use sift_format::VectorsRef;
use sift_text::analyzer::{self, Analyzer};
use sift_text::charclass;

use crate::params::RankingParams;

fn code_like(w: &str) -> bool {
    let core = w.trim_matches(|c: char| !charclass::is_alphanumeric(c));
    // Letters and digits together (`utf8`, `h2o`), not a plain number ("mach 2").
    (core.chars().any(|c| c.is_ascii_digit()) && core.chars().any(charclass::is_alphabetic))
        || ["_", "::", "()", "->", "/", "#"].iter().any(|p| w.contains(p))
        || (core.contains('.') && !core.ends_with('.'))
        || core.chars().skip(1).any(charclass::is_uppercase) && core.chars().any(charclass::is_lowercase)
        || (core.len() >= 2 && core.chars().all(|c| c.is_ascii_uppercase()))
}

fn content_words(analyzer: &Analyzer, query: &str) -> usize {
    query
        .split_whitespace()
        .filter(|w| !analyzer.is_stopword(&analyzer::fold(w.trim_matches(|c: char| !charclass::is_alphanumeric(c)))))
        .count()
}

/// Quoted text (`quoted`: a phrase the parser found), a single word, or a short query with
/// an identifier in it.
pub(crate) fn exact_shaped(analyzer: &Analyzer, query: &str, quoted: bool) -> bool {
    let content = content_words(analyzer, query);
    quoted || content <= 1 || (content <= 4 && query.split_whitespace().any(code_like))
}

/// `mode: auto`: weights from the query's shape. Identifiers, acronyms, code and quoted text
/// want exact matches; questions and long natural-language queries want meaning; one or two
/// plain keywords lean lexical.
pub(crate) fn auto_weights(analyzer: &Analyzer, query: &str, quoted: bool, p: &RankingParams) -> (f32, f32) {
    if exact_shaped(analyzer, query, quoted) {
        return p.exact_shaped;
    }
    let content = content_words(analyzer, query);
    let first = query.split_whitespace().next().map(charclass::lowercase).unwrap_or_default();
    let question = query.trim_end().ends_with('?')
        || ["what", "how", "why", "when", "where", "which", "who", "can", "does", "do", "is", "are", "should", "could"]
            .contains(&first.as_str());
    match (question, content) {
        // Natural language (an identifier in a long question is one clue among many).
        (_, c) if c >= 4 => p.hybrid,
        (true, 3) => p.hybrid,
        (true, _) => p.balanced,
        (false, 2) => p.keywords,
        _ => p.balanced,
    }
}

/// (lexical, semantic) weights of a request, with the host's query vector when it gives
/// one and the semantic side has weight. Semantic and hybrid requests need vectors in the
/// bundle and a way to embed the query: the bundle's static encoder or the host's vector
/// (of the model's dimensions).
pub(crate) fn mode_weights<'v>(
    analyzer: &Analyzer,
    req: &ValidRequest,
    quoted: bool,
    p: &RankingParams,
    vectors: Option<&VectorsRef>,
    has_encoder: bool,
    host_vector: Option<&'v [f32]>,
) -> Result<((f32, f32), Option<&'v [f32]>), SiftError> {
    if !cfg!(feature = "semantic") && vectors.is_some() {
        // The keyword engine: words only, whatever the bundle holds (on a bundle without
        // vectors, every engine answers alike below).
        return match req.mode {
            Mode::Semantic | Mode::Hybrid => Err(SiftError::new(
                ErrorCode::InvalidRequest,
                "semantic search is not built into this runtime (the keyword engine of a page with semantic search off); use mode lexical or auto",
            )),
            Mode::Auto | Mode::Lexical => Ok(((1.0, 0.0), None)),
        };
    }
    let can_embed = has_encoder || host_vector.is_some();
    let weights = match (req.mode, vectors) {
        (Mode::Semantic | Mode::Hybrid, None) => {
            return Err(SiftError::new(
                ErrorCode::NoVectors,
                "this bundle was built without vectors, so semantic and hybrid search are unavailable; use mode lexical (or auto), or rebuild the bundle with the embedder",
            ))
        }
        (Mode::Semantic | Mode::Hybrid, Some(v)) if !can_embed => {
            return Err(SiftError::new(
                ErrorCode::EmbedderRequired,
                msg!("{} mode needs the query embedded with the bundle's model ({}); the host did not provide it", if req.mode == Mode::Semantic { "semantic" } else { "hybrid" }, v.model),
            ))
        }
        (Mode::Semantic, Some(_)) => (0.0, 1.0),
        (Mode::Hybrid, Some(_)) if exact_shaped(analyzer, &req.query, quoted) => p.exact_shaped,
        (Mode::Hybrid, Some(_)) => p.hybrid,
        (Mode::Auto, Some(_)) if can_embed => auto_weights(analyzer, &req.query, quoted, p),
        _ => (1.0, 0.0),
    };
    let host_vector = if weights.1 > 0.0 { host_vector } else { None };
    if let (Some(q), Some(v)) = (host_vector, vectors) {
        if q.len() != v.model_dim as usize || q.iter().any(|x| !x.is_finite()) {
            return Err(SiftError::invalid(msg!("the query vector must have {} finite components; got {}", v.model_dim, q.len())));
        }
    }
    Ok((weights, host_vector))
}

/// How much of a short natural-language query each lexical hit covers: the idf-weighted
/// share of its positive clauses the document matches (any alternative: exact, prefix or
/// fuzzy), words found nowhere in the bundle weighing most. `None` when coverage does not
/// apply: exact-shaped queries (an identifier, a title, quoted text keep winning
/// lexically), single clauses and paragraphs.
pub(crate) fn coverage(
    analyzer: &Analyzer,
    query: &str,
    quoted: bool,
    plan: &Plan,
    hits: &[Hit],
    doc_count: u32,
    p: &RankingParams,
) -> Option<HashMap<u32, f32>> {
    let clauses: Vec<_> = plan.positive_clauses().collect();
    if exact_shaped(analyzer, query, quoted) || clauses.len() < 2 || clauses.len() > p.coverage_max_clauses {
        return None;
    }
    let weight: Vec<f32> = clauses.iter().map(|c| rank::idf(doc_count, c.exact_df())).collect();
    let total: f32 = weight.iter().sum::<f32>().max(1e-6);
    Some(
        hits.iter()
            .map(|h| {
                let matched: f32 = clauses
                    .iter()
                    .zip(&weight)
                    .filter(|(c, _)| c.alts.iter().any(|a| alt_match_at(a, h.doc).is_some()))
                    .map(|(_, w)| w)
                    .sum();
                (h.doc, matched / total)
            })
            .collect(),
    )
}

/// What a document the semantic side did not reach counts there: `unreached_meaning` times
/// the lowest score it did reach (0 when it reached nothing). A query reads the vector lists
/// nearest to it, a small share of a large site's, so a page found by its words but not by
/// meaning is only known to be below the semantic list's end, not unrelated.
pub(crate) fn unreached(semantic: &[Hit], p: &RankingParams) -> f32 {
    semantic.iter().map(|h| h.score).reduce(f32::min).map_or(0.0, |m| p.unreached_meaning * m.max(0.0))
}

/// Convex combination of the lexical score (divided by the list's best, so the best lexical
/// match counts fully) and the raw cosine; a document missing from the lexical list scores 0
/// there (and is kept only within `meaning_only_within` of the best cosine), one missing
/// from the semantic list scores `unreached`. The result stays in 0..1.
///
/// With `coverage` (short natural-language queries), a page that shares a minor part of
/// the query (less than `coverage_to_outrank_meaning` of it) is placed just below a clear
/// semantic best instead of above it; partial matches otherwise keep their full lexical
/// score: a page that shares one or two words with a paraphrase of it is usually the right
/// one, and scaling every partial match by its coverage lost more than it gained.
pub(crate) fn fuse(
    lexical: &[Hit],
    semantic: &[Hit],
    weights: (f32, f32),
    coverage: Option<&HashMap<u32, f32>>,
    p: &RankingParams,
) -> Vec<Hit> {
    let (w_lex, w_sem) = weights;
    // Not min-max normalised: the cosine's own 0..1 scale carries information that min-max
    // throws away (Bruch et al. 2022).
    let lmax = lexical.iter().map(|h| h.score).fold(1e-6f32, f32::max);
    let l: HashMap<u32, f32> = lexical.iter().map(|h| (h.doc, h.score / lmax)).collect();
    let s: HashMap<u32, f32> = semantic.iter().map(|h| (h.doc, h.score)).collect();
    let unreached = unreached(semantic, p);
    let best_meaning = semantic.iter().map(|h| h.score).fold(f32::MIN, f32::max);
    let by_meaning_alone = semantic.iter().filter(|h| h.score >= best_meaning - p.meaning_only_within).map(|h| &h.doc);
    let mut docs: Vec<u32> = l.keys().chain(by_meaning_alone).copied().collect();
    docs.sort_unstable();
    docs.dedup();
    let fused = |doc: u32| w_lex * l.get(&doc).copied().unwrap_or(0.0) + w_sem * s.get(&doc).copied().unwrap_or(unreached);
    let mut out: Vec<Hit> = docs.into_iter().map(|doc| Hit { doc, score: fused(doc) }).collect();
    let mut by_meaning: Vec<&Hit> = semantic.iter().collect();
    by_meaning.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    let clear = match by_meaning.as_slice() {
        [best, second, ..] => (best.score - second.score >= p.clear_meaning_margin).then_some(*best),
        [best] => Some(*best),
        [] => None,
    };
    if let (Some(cov), Some(best)) = (coverage, clear) {
        let bar = fused(best.doc);
        let top = out.iter().map(|h| h.score).fold(bar, f32::max).max(1e-6);
        for h in out.iter_mut().filter(|h| h.doc != best.doc && h.score > bar) {
            if cov.get(&h.doc).is_some_and(|&c| c < p.coverage_to_outrank_meaning) {
                // Just below the bar, in the order they had.
                h.score = bar * (p.demoted_to + p.demoted_spread * h.score / top);
            }
        }
    }
    sort_hits(&mut out);
    out
}

/// A result's share of reciprocal rank fusion at 0-based `rank`.
pub(crate) fn rrf(rank: usize, p: &RankingParams) -> f32 {
    1.0 / (p.rrf_k + rank as f32 + 1.0)
}

/// The two halves as one list, and what the response says about it.
// The per-side scores are read only by `explain` (not in the lean browser runtime).
#[cfg_attr(not(feature = "explain"), allow(dead_code))]
pub(crate) struct Combined {
    pub hits: Vec<Hit>,
    pub search_type: &'static str,
    pub fallback: Option<Fallback>,
    /// Each side's score per document, kept for `explain`.
    lexical_scores: HashMap<u32, f32>,
    semantic_scores: HashMap<u32, f32>,
    /// How much of a short query each lexical hit covers, where fusion weighed it.
    coverage: HashMap<u32, f32>,
    /// How many of the best answers gave the semantic side feedback (0: it searched once).
    pub feedback: usize,
    /// What a document the semantic side did not reach counted there (`fusion::unreached`).
    unreached: f32,
}

impl Combined {
    /// How a document's fused score came about.
    #[cfg(feature = "explain")]
    pub fn explain(&self, doc: u32, (w_lex, w_sem): (f32, f32)) -> Json {
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

pub(crate) fn combine(
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
            unreached(&sem, p),
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
        (fuse(&lexical, &sem, weights, coverage, p), "hybrid", fallback)
    };
    let coverage = if search_type == "hybrid" { coverage_kept } else { HashMap::default() };
    Combined { hits, search_type, fallback, lexical_scores, semantic_scores, coverage, feedback: 0, unreached }
}

/// Whether the two lists are fused (hybrid), given a semantic list: the lexical side has
/// weight and found something; otherwise meaning answers alone.
pub(crate) fn fuses((w_lex, _): (f32, f32), lexical: &[Hit]) -> bool {
    w_lex > 0.0 && !lexical.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::DEFAULT;

    #[test]
    fn auto_weights_follow_the_query_shape() {
        let lexical_heavy = |q: &str| auto_weights(Analyzer::english(), q, q.contains('"'), &DEFAULT).0 > 0.5;
        let semantic_heavy = |q: &str| auto_weights(Analyzer::english(), q, q.contains('"'), &DEFAULT).1 > 0.5;
        for q in ["StateMachine", "os.path.join", "utf8 decode", "\"exact phrase\"", "MCP", "HTTP_PROXY", "mcp", "deploy"] {
            assert!(lexical_heavy(q), "{q}: {:?}", auto_weights(Analyzer::english(), q, q.contains('"'), &DEFAULT));
        }
        for q in [
            "how do I release my app to production?",
            "what are the structural problems of high speed aircraft",
            "ways to keep answers around between calls",
        ] {
            assert!(semantic_heavy(q), "{q}: {:?}", auto_weights(Analyzer::english(), q, q.contains('"'), &DEFAULT));
        }
        assert_eq!(auto_weights(Analyzer::english(), "does agentroot have mcp?", false, &DEFAULT), (0.5, 0.5), "short question: balanced");
        let (l, s) = auto_weights(Analyzer::english(), "anything at all here", false, &DEFAULT);
        assert!((l + s - 1.0).abs() < 1e-6);
    }

    #[test]
    fn fusion_stays_in_range_and_keeps_both_sides() {
        let lex = vec![Hit { doc: 1, score: 0.9 }, Hit { doc: 2, score: 0.3 }];
        let sem = vec![Hit { doc: 3, score: 0.8 }, Hit { doc: 1, score: 0.6 }];
        let f = fuse(&lex, &sem, (0.3, 0.7), None, &DEFAULT);
        assert_eq!(f[0].doc, 1, "in both lists");
        assert!(f.iter().all(|h| (0.0..=1.0).contains(&h.score)));
        assert_eq!(f.len(), 3);
    }

    #[test]
    fn a_page_found_by_meaning_alone_far_below_the_best_is_no_answer() {
        let lex = vec![Hit { doc: 1, score: 0.9 }];
        let sem = vec![Hit { doc: 2, score: 0.62 }, Hit { doc: 3, score: 0.40 }, Hit { doc: 4, score: 0.25 }, Hit { doc: 1, score: 0.10 }];
        let docs = |p: &RankingParams| fuse(&lex, &sem, (0.3, 0.7), None, p).iter().map(|h| h.doc).collect::<Vec<_>>();
        assert_eq!(docs(&DEFAULT), [2, 1, 3], "0.25 is more than 0.3 below 0.62; a word match is kept whatever its cosine");
        assert_eq!(docs(&RankingParams { meaning_only_within: 1.0, ..DEFAULT }).len(), 4);
    }

    #[test]
    fn a_word_match_the_semantic_side_did_not_reach_counts_as_its_lowest_score_there() {
        // Doc 1 is the best word match, in no vector list the query read; docs 2 and 3 are
        // what the semantic side reached (0.6 and 0.5).
        let lex = vec![Hit { doc: 1, score: 0.9 }, Hit { doc: 3, score: 0.3 }];
        let sem = vec![Hit { doc: 2, score: 0.6 }, Hit { doc: 3, score: 0.5 }];
        let f = fuse(&lex, &sem, (0.3, 0.7), None, &DEFAULT);
        assert_eq!(f.iter().map(|h| h.doc).collect::<Vec<_>>(), [1, 3, 2]);
        assert!((f[0].score - (0.3 + 0.7 * 0.5)).abs() < 1e-6, "the lowest score reached: {:?}", f[0]);
        let zero = RankingParams { unreached_meaning: 0.0, ..DEFAULT };
        let order = fuse(&lex, &sem, (0.3, 0.7), None, &zero).iter().map(|h| h.doc).collect::<Vec<_>>();
        assert_eq!(order, [3, 2, 1], "counted as 0, the best word match would come last");
        assert_eq!(unreached(&[], &DEFAULT), 0.0, "nothing reached: nothing to count");
    }

    #[test]
    fn a_partial_word_match_stays_below_a_clear_semantic_best() {
        // Doc 1 is the only lexical hit and covers a third of the query; doc 2 is what the
        // query means (cosine 0.45, clearly ahead of doc 1's 0.2).
        let lex = vec![Hit { doc: 1, score: 0.2 }];
        let sem = vec![Hit { doc: 2, score: 0.45 }, Hit { doc: 1, score: 0.2 }, Hit { doc: 3, score: 0.35 }];
        let order = |cov: f32, sem: &[Hit]| {
            let c: HashMap<u32, f32> = [(1, cov)].into_iter().collect();
            fuse(&lex, sem, DEFAULT.hybrid, Some(&c), &DEFAULT).iter().map(|h| h.doc).collect::<Vec<_>>()
        };
        assert_eq!(fuse(&lex, &sem, DEFAULT.hybrid, None, &DEFAULT)[0].doc, 1, "without coverage the word match wins");
        assert_eq!(order(0.33, &sem), [2, 1, 3], "kept, just below the meaning");
        assert_eq!(order(0.8, &sem), [1, 2, 3], "a match covering most of the query keeps its place");
        // No clear winner by meaning (0.45 vs 0.43): the word match keeps its place.
        let close = vec![Hit { doc: 2, score: 0.45 }, Hit { doc: 4, score: 0.43 }, Hit { doc: 1, score: 0.2 }];
        assert_eq!(order(0.33, &close)[0], 1);
    }
}

#[cfg(all(test, feature = "explain"))]
mod combine_tests {
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
