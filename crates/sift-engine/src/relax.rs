//! Never a silent empty page. When the query as typed cannot fill the page, relax it step by
//! step and say what was done (`fallback`):
//!
//! 1. words that exist nowhere are probably misspelt: they also match similar spellings;
//! 2. all terms (AND);
//! 3. any term (scored OR), when AND cannot fill the page;
//! 4. nothing at all: similar spellings of every word;
//! 5. still nothing: the response says so (the search adds meaning when it can).
//!
//! Suggestions ("did you mean") come from the same fuzzy matching.

use super::collect::Filter;
use super::expand::{common_neighbours, fuzzy_alts, FuzzyScope};
use super::plan::{Clause, Plan};
use super::resolve::{Flow, Resolver};
use super::score::{Hit, Scorer};
use crate::contract::Fallback;
use sift_base::text::{self, quoted_list};

/// The lexical answer: hits, best first, and what was relaxed to find them.
pub(crate) struct Relaxed {
    pub hits: Vec<Hit>,
    pub fallback: Option<Fallback>,
    /// Whether the hits contain every term (the chain stopped at step 2).
    pub all_terms: bool,
}

fn fallback(from: &str, to: &str, reason: String) -> Option<Fallback> {
    Some(Fallback { from: from.into(), to: to.into(), reason })
}

/// Run the chain. `page`: results the page shows (offset + limit); `want`: candidates the
/// caller ranks (at least `page`; more when meaning is fused in, so that a page of 10 and a
/// page of 100 rank alike). Relaxing to any term only for candidates the page does not show
/// is not reported. Adds fuzzy alternatives to the plan's clauses where it relaxes spelling.
pub(crate) fn relax(res: &Resolver, scorer: &Scorer, plan: &mut Plan, filter: &Filter, page: usize, want: usize) -> Flow<Relaxed> {
    let positive = plan.positive.clone();
    let mut fallback_used = None;
    // 1. Unknown words match similar spellings.
    let unknown: Vec<usize> = positive.iter().copied().filter(|&i| plan.clauses[i].exact_df() == 0).collect();
    let mut fuzzed = Vec::new();
    let (clauses, words) = fuzzy_words(plan, &unknown);
    for (i, near) in clauses.into_iter().zip(fuzzy_alts(res, &words, FuzzyScope::InitialFirst)?) {
        if let Some(first) = near.alts.first() {
            let c = &mut plan.clauses[i];
            c.suggestion = Some(near.written.unwrap_or_else(|| first.terms[0].surface()));
            c.alts.extend(near.alts);
            fuzzed.push(c.label.clone());
        }
    }
    // 2. All terms.
    let mut hits = scorer.rank(plan, true, filter);
    let mut all_terms = true;
    if !fuzzed.is_empty() {
        fallback_used =
            fallback("exact", "fuzzy", ["no document contains ", &quoted_list(&fuzzed), "; matched similar spellings"].concat());
    }
    // 3. Any term, when AND cannot fill the page.
    if hits.len() < want && positive.len() > 1 {
        let or_hits = scorer.rank(plan, false, filter);
        if or_hits.len() > hits.len() {
            let reason = if hits.is_empty() {
                let missing: Vec<String> = plan.positive_clauses().filter(|c| c.alts.is_empty()).map(|c| c.label.clone()).collect();
                if missing.is_empty() {
                    "no document contains every term".to_string()
                } else {
                    ["no document contains ", &quoted_list(&missing)].concat()
                }
            } else {
                let documents = if hits.len() == 1 { " document contains" } else { " documents contain" };
                ["only ", &text::uint(hits.len() as u64), documents, " every term"].concat()
            };
            let from = if fuzzed.is_empty() { "all terms" } else { "all terms (fuzzy)" };
            if hits.len() < page {
                fallback_used = fallback(from, "any term", reason);
            }
            hits = or_hits;
            all_terms = false;
        }
    }
    // 4. Nothing at all: similar spellings of every word.
    if hits.is_empty() {
        let mut changed = Vec::new();
        let known: Vec<usize> = positive.iter().copied().filter(|i| !unknown.contains(i)).collect();
        let (clauses, words) = fuzzy_words(plan, &known);
        for (i, near) in clauses.into_iter().zip(fuzzy_alts(res, &words, FuzzyScope::InitialFirst)?) {
            if !near.alts.is_empty() {
                plan.clauses[i].alts.extend(near.alts);
                changed.push(plan.clauses[i].label.clone());
            }
        }
        if !changed.is_empty() {
            hits = scorer.rank(plan, false, filter);
            all_terms = false;
            if !hits.is_empty() {
                fallback_used = fallback(
                    "exact",
                    "fuzzy",
                    ["no document matches the query as typed; matched similar spellings of ", &quoted_list(&changed)].concat(),
                );
            }
        }
    }
    // 5. Nothing.
    if hits.is_empty() {
        let reason = if filter.narrows() {
            "no document matches the query with these filters (similar spellings were tried too)"
        } else {
            "no document matches any term of the query (similar spellings were tried too)"
        };
        fallback_used = fallback("query", "nothing", reason.into());
    }
    Ok(Relaxed { hits, fallback: fallback_used, all_terms })
}

/// Of the clauses `of`, those with a word typo tolerance applies to, and their words.
fn fuzzy_words(plan: &Plan, of: &[usize]) -> (Vec<usize>, Vec<String>) {
    of.iter().filter_map(|&i| Some((i, plan.clauses[i].fuzzy_word.clone()?))).unzip()
}

/// A clause worth a "did you mean" lookup: a rare plain word, and few results.
fn wants_suggestion(c: &Clause, found: usize) -> Option<&str> {
    let w = c.fuzzy_word.as_deref()?;
    let df = c.exact_df();
    (c.suggestion.is_none() && df > 0 && df < 3 && found < 3).then_some(w)
}

/// A rewrite of the query: words corrected by the chain, and rare words that have a far
/// more common neighbour (only in the dictionary of the word's first letter: its vocabulary
/// shard, or its term shards).
pub(crate) fn suggestions(res: &Resolver, plan: &Plan, query: &str, found: usize) -> Flow<Vec<String>> {
    // Per clause, the rare word to look up when the chain corrected nothing there; they are
    // looked up together, each with the frequency its suggestion needs.
    let lookups: Vec<(&Clause, Option<&str>)> =
        plan.positive_clauses().map(|c| (c, c.suggestion.is_none().then(|| wants_suggestion(c, found)).flatten())).collect();
    let (words, min_df): (Vec<String>, Vec<u32>) =
        lookups.iter().filter_map(|&(c, w)| Some((w?.to_string(), (20 * c.exact_df()).max(5)))).unzip();
    let mut looked_up = if words.is_empty() { Vec::new() } else { common_neighbours(res, &words, &min_df)? }.into_iter();
    // In clause order: the chain's corrections, and the rare words' common neighbours.
    let mut rewrites: Vec<(String, String)> = Vec::new();
    for (c, lookup) in lookups {
        let to = match (&c.suggestion, lookup) {
            (Some(s), _) => Some(s.clone()),
            (None, Some(_)) => looked_up.next().flatten(),
            (None, None) => None,
        };
        rewrites.extend(to.map(|to| (c.label.clone(), to)));
    }
    if rewrites.is_empty() {
        return Ok(Vec::new());
    }
    let mut s = query.to_string();
    for (from, to) in rewrites {
        s = s.replacen(&from, &to, 1);
    }
    Ok(if s != query { vec![s] } else { Vec::new() })
}
