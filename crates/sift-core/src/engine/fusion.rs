//! How the semantic half meets the lexical one: the request's mode and the query's shape
//! decide the weights; a convex combination of normalised scores fuses the two lists.
//! Reciprocal rank fusion (for `multi_search`) lives here too.

use super::score::{sort_hits, Hit};
use crate::analyzer;
use crate::bundle::VectorsRef;
use crate::contract::{Mode, ValidRequest};
use crate::error::{ErrorCode, SiftError};
use std::collections::HashMap;

/// Reciprocal rank fusion constant (Cormack et al. 2009).
pub const RRF_K: f32 = 60.0;
/// Documents taken from the semantic side for fusion.
pub(crate) const SEMANTIC_DEPTH: usize = 100;
/// Cosine below which a document is not an answer when keywords found nothing (MiniLM
/// gives unrelated text 0.0–0.15; the seed corpus's paraphrases score 0.28–0.33).
pub(crate) const SEMANTIC_FALLBACK_MIN: f32 = 0.2;
/// `mode: hybrid`: (lexical, semantic) weights of the score fusion. Cosines of relevant and
/// irrelevant chunks differ by less than normalised BM25F scores do, so the semantic side
/// needs the larger weight to count equally (Cranfield nDCG@10: 0.5/0.5 0.411, 0.3/0.7 0.423).
pub(crate) const HYBRID_WEIGHTS: (f32, f32) = (0.3, 0.7);
/// Weights for queries that name something exactly: identifiers, acronyms, code, quoted
/// text, a single word. Both `hybrid` and `auto` use them, so an exact match stays first.
pub(crate) const EXACT_WEIGHTS: (f32, f32) = (0.8, 0.2);

fn code_like(w: &str) -> bool {
    let core = w.trim_matches(|c: char| !c.is_alphanumeric());
    // Letters and digits together (`utf8`, `h2o`), not a plain number ("mach 2").
    (core.chars().any(|c| c.is_ascii_digit()) && core.chars().any(char::is_alphabetic))
        || ["_", "::", "()", "->", "/", "#"].iter().any(|p| w.contains(p))
        || (core.contains('.') && !core.ends_with('.'))
        || core.chars().skip(1).any(char::is_uppercase) && core.chars().any(char::is_lowercase)
        || (core.len() >= 2 && core.chars().all(|c| c.is_ascii_uppercase()))
}

fn content_words(query: &str) -> usize {
    query.split_whitespace().filter(|w| !analyzer::is_stopword(&analyzer::fold(w.trim_matches(|c: char| !c.is_alphanumeric())))).count()
}

/// Quoted text, a single word, or a short query with an identifier in it.
pub(crate) fn exact_shaped(query: &str) -> bool {
    let content = content_words(query);
    query.contains('"') || content <= 1 || (content <= 4 && query.split_whitespace().any(code_like))
}

/// `mode: auto`: weights from the query's shape. Identifiers, acronyms, code and quoted text
/// want exact matches; questions and long natural-language queries want meaning; one or two
/// plain keywords lean lexical.
pub(crate) fn auto_weights(query: &str) -> (f32, f32) {
    if exact_shaped(query) {
        return EXACT_WEIGHTS;
    }
    let content = content_words(query);
    let first = query.split_whitespace().next().map(str::to_lowercase).unwrap_or_default();
    let question = query.trim_end().ends_with('?')
        || ["what", "how", "why", "when", "where", "which", "who", "can", "does", "do", "is", "are", "should", "could"]
            .contains(&first.as_str());
    match (question, content) {
        // Natural language (an identifier in a long question is one clue among many).
        (_, c) if c >= 4 => HYBRID_WEIGHTS,
        (true, 3) => HYBRID_WEIGHTS,
        (true, _) => (0.5, 0.5),
        (false, 2) => (0.7, 0.3),
        _ => (0.5, 0.5),
    }
}

/// (lexical, semantic) weights of a request, with the host's query vector when it gives
/// one and the semantic side has weight. Semantic and hybrid requests need vectors in the
/// bundle and a way to embed the query: the bundle's static encoder or the host's vector
/// (of the model's dimensions).
pub(crate) fn mode_weights<'v>(
    req: &ValidRequest,
    vectors: Option<&VectorsRef>,
    has_encoder: bool,
    host_vector: Option<&'v [f32]>,
) -> Result<((f32, f32), Option<&'v [f32]>), SiftError> {
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
                format!("{:?} mode needs the query embedded with the bundle's model ({}); the host did not provide it", req.mode, v.model).to_lowercase(),
            ))
        }
        (Mode::Semantic, Some(_)) => (0.0, 1.0),
        (Mode::Hybrid, Some(_)) if exact_shaped(&req.query) => EXACT_WEIGHTS,
        (Mode::Hybrid, Some(_)) => HYBRID_WEIGHTS,
        (Mode::Auto, Some(_)) if can_embed => auto_weights(&req.query),
        _ => (1.0, 0.0),
    };
    let host_vector = if weights.1 > 0.0 { host_vector } else { None };
    if let (Some(q), Some(v)) = (host_vector, vectors) {
        if q.len() != v.model_dim() as usize || q.iter().any(|x| !x.is_finite()) {
            return Err(SiftError::invalid(format!("the query vector must have {} finite components; got {}", v.model_dim(), q.len())));
        }
    }
    Ok((weights, host_vector))
}

/// Convex combination of the lexical score (divided by the list's best, so the best lexical
/// match counts fully) and the raw cosine; a document missing from a list scores 0 there.
/// The result stays in 0..1.
pub(crate) fn fuse(lexical: &[Hit], semantic: &[Hit], (w_lex, w_sem): (f32, f32)) -> Vec<Hit> {
    // Per-query min-max normalisation did worse on Cranfield (0.418 vs 0.423): the cosine's
    // own 0..1 scale carries information that min-max throws away (Bruch et al. 2022).
    let lmax = lexical.iter().map(|h| h.score).fold(1e-6f32, f32::max);
    let l: HashMap<u32, f32> = lexical.iter().map(|h| (h.doc, h.score / lmax)).collect();
    let s: HashMap<u32, f32> = semantic.iter().map(|h| (h.doc, h.score)).collect();
    let mut docs: Vec<u32> = l.keys().chain(s.keys()).copied().collect();
    docs.sort_unstable();
    docs.dedup();
    let mut out: Vec<Hit> = docs
        .into_iter()
        .map(|doc| Hit { doc, score: w_lex * l.get(&doc).copied().unwrap_or(0.0) + w_sem * s.get(&doc).copied().unwrap_or(0.0) })
        .collect();
    sort_hits(&mut out);
    out
}

/// A result's share of reciprocal rank fusion at 0-based `rank`.
pub(crate) fn rrf(rank: usize) -> f32 {
    1.0 / (RRF_K + rank as f32 + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_weights_follow_the_query_shape() {
        let lexical_heavy = |q: &str| auto_weights(q).0 > 0.5;
        let semantic_heavy = |q: &str| auto_weights(q).1 > 0.5;
        for q in ["StateMachine", "os.path.join", "utf8 decode", "\"exact phrase\"", "MCP", "HTTP_PROXY", "mcp", "deploy"] {
            assert!(lexical_heavy(q), "{q}: {:?}", auto_weights(q));
        }
        for q in [
            "how do I release my app to production?",
            "what are the structural problems of high speed aircraft",
            "ways to keep answers around between calls",
        ] {
            assert!(semantic_heavy(q), "{q}: {:?}", auto_weights(q));
        }
        assert_eq!(auto_weights("does agentroot have mcp?"), (0.5, 0.5), "short question: balanced");
        let (l, s) = auto_weights("anything at all here");
        assert!((l + s - 1.0).abs() < 1e-6);
    }

    #[test]
    fn fusion_stays_in_range_and_keeps_both_sides() {
        let lex = vec![Hit { doc: 1, score: 0.9 }, Hit { doc: 2, score: 0.3 }];
        let sem = vec![Hit { doc: 3, score: 0.8 }, Hit { doc: 1, score: 0.6 }];
        let f = fuse(&lex, &sem, (0.3, 0.7));
        assert_eq!(f[0].doc, 1, "in both lists");
        assert!(f.iter().all(|h| (0.0..=1.0).contains(&h.score)));
        assert_eq!(f.len(), 3);
    }
}
