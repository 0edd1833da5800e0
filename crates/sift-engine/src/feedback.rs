//! Pseudo-relevance feedback on the lexical side: RM3 (Lavrenko & Croft 2001, as in
//! Abdul-Jaleel et al. 2004). A paragraph-like query names its subject in words the
//! relevant pages often do not use; the pages it finds first do use them. The words that
//! dominate the best first answers — the relevance model P(w|R) = Σ_d P(w|d)·P(d|q) — join
//! the query as optional clauses, weighted so that the query's own words keep most of the
//! mass (`feedback_original_weight`), and the lexical side ranks again.
//!
//! Only for paragraph-like queries ([`applies`]): a short query names one thing, and
//! feedback on it drifts. It costs two rounds of fetches (the answers' doc shards, then the
//! new words' term shards), only for those queries. The same queries get feedback on the
//! semantic side too (`meaning::feedback`, Rocchio).
//!
//! Added clauses are marked `expansion`: they are scored like any word (explanations list
//! them), never required ("all terms" means the query's own), never highlighted, and never
//! paired for proximity.

use super::plan::{Alt, AltKind, Clause, Plan};
use super::resolve::{Flow, Resolver};
use super::score::Hit;
use super::ShardId;
use crate::params::RankingParams;
use sift_base::hashing::HashMap;
use sift_text::analyzer::{Analyzer, Token};

/// Whether a query of `typed_clauses` positive clauses gets feedback.
pub(crate) fn applies(typed_clauses: usize, p: &RankingParams) -> bool {
    typed_clauses >= p.feedback_min_clauses
}

/// Tokens read from each answer: a page's opening says what it is about, and a 500 kB
/// page must not cost more than a short one.
const MAX_TOKENS_PER_DOC: u32 = 1000;

/// The relevance model of the best answers in `first`: its `feedback_terms` most probable
/// terms with their probabilities (summing to 1), most probable first (ties by term). Reads
/// the answers' doc shards. Empty when no answer has a positive score or a content word.
pub(crate) fn relevance_model(res: &Resolver, first: &[Hit]) -> Flow<Vec<(String, f32)>> {
    let top: Vec<&Hit> = first.iter().take(res.eng.params.feedback_docs).filter(|h| h.score > 0.0).collect();
    res.require(top.iter().map(|h| ShardId::Docs(res.eng.doc_shard_of(h.doc))))?;
    res.require(res.eng.fold_table_for_pages(top.iter().map(|h| (h.doc, res.eng.doc_shard_of(h.doc)))))?;
    let total: f32 = top.iter().map(|h| h.score).sum();
    let mut model: HashMap<String, f32> = HashMap::default();
    let mut toks: Vec<Token> = Vec::new();
    for h in &top {
        let doc = res.stored(h.doc)?;
        toks.clear();
        let mut budget = MAX_TOKENS_PER_DOC;
        for text in doc.analysed_text() {
            if budget == 0 {
                break;
            }
            let before = toks.len();
            res.eng.analyzer.tokenize_filtered(text, &|_| true, 0, budget - 1, &mut toks);
            budget = budget.saturating_sub((toks.len() - before) as u32);
        }
        let mut tf: HashMap<&str, u32> = HashMap::default();
        for t in toks.iter().filter(|t| content_term(&res.eng.analyzer, t)) {
            *tf.entry(t.term.as_str()).or_insert(0) += 1;
        }
        let len: u32 = tf.values().sum();
        if len == 0 {
            continue;
        }
        let p_doc = h.score / total;
        for (term, c) in tf {
            *model.entry(term.to_string()).or_insert(0.0) += c as f32 / len as f32 * p_doc;
        }
    }
    let mut ranked: Vec<(String, f32)> = model.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(res.eng.params.feedback_terms);
    let z: f32 = ranked.iter().map(|(_, p)| p).sum();
    if z > 0.0 {
        ranked.iter_mut().for_each(|(_, p)| *p /= z);
    }
    Ok(ranked)
}

/// A word that can say what a page is about: not a stop word, not a compound's joined form
/// (its parts count), more than one character.
fn content_term(analyzer: &Analyzer, t: &Token) -> bool {
    t.is_part() && t.term.chars().nth(1).is_some() && !analyzer.is_stop_term(&t.term)
}

/// Add the relevance model to the plan (RM3): a word already in the query weighs more, a
/// new word becomes an optional `expansion` clause. Each of the query's `n` clauses weighs
/// λ/n and the model (1−λ), so relative to a clause of the query a model word with
/// probability p weighs (1−λ)/λ · n · p. Reads the new words' term shards. Returns whether
/// the plan changed. Words the query excludes are left out.
pub(crate) fn expand(res: &Resolver, plan: &mut Plan, model: &[(String, f32)]) -> Flow<bool> {
    let n = plan.positive_clauses().filter(|c| !c.expansion).count() as f32;
    let w = res.eng.params.feedback_original_weight;
    let scale = (1.0 - w) / w * n;
    res.require(model.iter().filter_map(|(t, _)| res.eng.shard_for_term(t)).map(ShardId::Terms))?;
    let mut changed = false;
    // The words the query excludes (`-word`): asking for one again would only weigh pages
    // the exclusion drops. An excluded phrase (`-"a b"`) excludes neither word on its own:
    // a page with `a` but not the phrase still answers.
    let excluded: Vec<String> = plan
        .clauses
        .iter()
        .filter(|c| c.negated && !c.quoted)
        .flat_map(|c| &c.alts)
        .filter(|a| a.terms.len() == 1)
        .map(|a| a.terms[0].term.clone())
        .collect();
    for (term, p) in model {
        if excluded.contains(term) {
            continue;
        }
        let weight = scale * p;
        let own = plan.positive.iter().copied().find(|&i| {
            let c = &plan.clauses[i];
            c.alts.iter().any(|a| a.kind == AltKind::Exact && a.terms.len() == 1 && &a.terms[0].term == term)
        });
        if let Some(i) = own {
            // The query's own word: its clause weighs 1 + the model's share.
            for a in &mut plan.clauses[i].alts {
                a.weight *= 1.0 + weight;
            }
            changed = true;
            continue;
        }
        let Some(alt) = super::plan::alt(res, std::slice::from_ref(term), false, weight, AltKind::Exact)? else { continue };
        plan.positive.push(plan.clauses.len());
        plan.clauses.push(expansion_clause(alt));
        changed = true;
    }
    Ok(changed)
}

fn expansion_clause(alt: Alt) -> Clause {
    Clause {
        label: alt.terms[0].surface(),
        alts: vec![alt],
        negated: false,
        quoted: false,
        run: false,
        fuzzy_word: None,
        suggestion: None,
        expansion: true,
        stops_before: 0,
    }
}
