//! Scoring a document against a plan: BM25F (see `rank`) per matching alternative, the
//! best alternative per clause, summed over clauses, plus proximity bonuses and the bonus
//! of a title that holds every clause (`title_bonus`). `Scorer::alt`
//! is the one place the formula is applied: ranking (`rank`) and explanations (`explain`)
//! both call it, so an explanation always adds up to the score it explains.

use super::collect::Filter;
#[cfg(feature = "explain")]
use super::matching::alt_match_at;
use super::matching::{alt_matches, proximity_pairs};
use super::plan::{Alt, Clause, Plan, RTerm};
#[cfg(feature = "explain")]
use super::round4;
use crate::params::RankingParams;
use crate::rank::{self, Bm25fParams, NormTable, N_FIELDS};
use sift_base::hashing::HashMap;
#[cfg(feature = "explain")]
use sift_base::json::Json;
use sift_format::docmeta::DocMeta;
use sift_format::fields::FIELD_TITLE;

/// A scored candidate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub doc: u32,
    pub score: f32,
}

/// Best first; ties by doc number, so every ranking is deterministic.
pub(crate) fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
}

/// One term's part of a document's score.
#[cfg_attr(not(feature = "explain"), allow(dead_code))]
pub(crate) struct TermScore {
    pub idf: f32,
    /// BM25F's `tf~`: field-weighted, length-normalised term frequency.
    pub weighted_tf: f32,
    pub score: f32,
}

pub(crate) struct Scorer<'a> {
    /// The bundle's BM25F parameters (its manifest's).
    pub bm25f: &'a Bm25fParams,
    /// The engine's ranking parameters.
    pub ranking: &'a RankingParams,
    pub norms: &'a NormTable,
    pub meta: &'a DocMeta,
}

/// A document's prior, multiplying its score by words and by meaning alike: 1 for a
/// content page, `navigation_weight` for a page that is all navigation.
pub(crate) fn prior(meta: &DocMeta, doc: u32, p: &RankingParams) -> f32 {
    1.0 - (1.0 - p.navigation_weight) * meta.navigation(doc)
}

/// Whether a match of `alt` (`ks`: its terms' posting indexes) has every term in the title.
fn in_title(alt: &Alt, ks: &[usize]) -> bool {
    alt.terms.iter().zip(ks).all(|(t, &k)| t.pl.tf[k][FIELD_TITLE] > 0)
}

/// Whether a title of `len` words (as laid out in positions, stop words too) is about as
/// long as the query's `clauses`: the query and at most one word more ("MCP Server" for
/// `mcp`). A longer title holding every word says them among others — a rustdoc path
/// (`std::collections::vec_deque::Iter` holds `iterator collect vec` through its stems), a
/// book chapter's full name — and gains nothing.
fn title_is_the_query(len: u8, clauses: u32) -> bool {
    u32::from(len) <= clauses + 1
}

/// What a title holding every clause the query typed adds: `whole_title` times those
/// clauses' best possible scores (feedback's words are not asked of a title).
pub(crate) fn title_bonus(plan: &Plan, whole_title: f32) -> f32 {
    whole_title * plan.positive_clauses().filter(|c| !c.expansion).map(Clause::max_score).sum::<f32>()
}

impl Scorer<'_> {
    /// An alternative's score in `doc` (`ks`: each term's posting index for the doc): its
    /// terms' `idf · saturate(tf~)`, summed, times the alternative's weight. `each` sees
    /// every term's part (explanations); ranking passes a no-op.
    pub fn alt(&self, alt: &Alt, ks: &[usize], doc: u32, mut each: impl FnMut(&RTerm, &[u32; N_FIELDS], &TermScore)) -> f32 {
        let lens = &self.meta.lens[doc as usize];
        let mut s = 0.0;
        for (t, &k) in alt.terms.iter().zip(ks) {
            let tf = &t.pl.tf[k];
            let weighted_tf = self.norms.pseudo_tf(self.bm25f, tf, lens);
            let ts = TermScore { idf: t.idf, weighted_tf, score: t.idf * rank::saturate(self.bm25f.k1, weighted_tf) };
            each(t, tf, &ts);
            s += ts.score;
        }
        s * alt.weight
    }

    /// Score every document matching the plan: `all` requires every positive clause (AND),
    /// else any (scored OR). Best first.
    pub fn rank(&self, plan: &Plan, all: bool, filter: &Filter) -> Vec<Hit> {
        let n = self.meta.lens.len();
        let mut acc: HashMap<u32, (f32, u64)> = HashMap::default();
        let mut best: HashMap<u32, f32> = HashMap::default();
        // The clauses each document's title holds, one bit each as in `acc`.
        let mut titled: HashMap<u32, u64> = HashMap::default();
        // One bit per clause of the query's own (`all` requires them); clauses added by
        // feedback only add to the score.
        let mut n_own = 0u32;
        for clause in plan.positive_clauses() {
            let bit = if clause.expansion {
                0
            } else {
                n_own += 1;
                1u64.checked_shl(n_own - 1).unwrap_or(0)
            };
            best.clear();
            for alt in &clause.alts {
                for (doc, ks) in alt_matches(alt) {
                    if bit != 0 && in_title(alt, &ks) {
                        *titled.entry(doc).or_insert(0) |= bit;
                    }
                    let s = self.alt(alt, &ks, doc, |_, _, _| {});
                    let e = best.entry(doc).or_insert(0.0);
                    if s > *e {
                        *e = s;
                    }
                }
            }
            for (&doc, &s) in &best {
                let e = acc.entry(doc).or_insert((0.0, 0));
                e.0 += s;
                e.1 |= bit;
            }
        }
        for pair in proximity_pairs(&plan.clauses, &plan.positive) {
            for &doc in &pair.a.pl.docs {
                if let (Some(bonus), Some(e)) = (pair.bonus(doc, self.ranking.proximity), acc.get_mut(&doc)) {
                    e.0 += bonus;
                }
            }
        }
        let full: u64 = if n_own >= 64 { u64::MAX } else { (1u64 << n_own) - 1 };
        let bonus = title_bonus(plan, self.ranking.whole_title);
        let named = |doc: u32| title_is_the_query(self.meta.lens[doc as usize][FIELD_TITLE], n_own);
        for (doc, _) in titled.iter().filter(|(&doc, &mask)| mask == full && n_own > 0 && (doc as usize) < n && named(doc)) {
            if let Some(e) = acc.get_mut(doc) {
                e.0 += bonus;
            }
        }
        let mut hits: Vec<Hit> = acc
            .into_iter()
            .filter(|(doc, (_, mask))| (!all || *mask == full) && (*doc as usize) < n && filter.admits(*doc))
            .map(|(doc, (score, _))| Hit { doc, score: score * prior(self.meta, doc, self.ranking) })
            .collect();
        sort_hits(&mut hits);
        hits
    }

    /// Per-result scoring details: which alternative matched each clause, in which fields,
    /// each term's part; proximity; the normalisation.
    #[cfg(feature = "explain")]
    pub fn explain(&self, doc: u32, plan: &Plan, max_possible: f32, score: f32) -> Json {
        let mut out_clauses = Vec::new();
        let mut raw = 0.0;
        for c in plan.positive_clauses() {
            let mut best: Option<(f32, Json)> = None;
            for alt in &c.alts {
                let Some(ks) = alt_match_at(alt, doc) else { continue };
                let mut terms = Vec::new();
                let s = self.alt(alt, &ks, doc, |t, tf, ts| {
                    let fields = Json::obj((0..N_FIELDS).filter(|&f| tf[f] > 0).map(|f| (rank::FIELD_NAMES[f], Json::from(tf[f]))));
                    terms.push(Json::obj([
                        ("fields", fields),
                        ("idf", round4(ts.idf).into()),
                        ("score", round4(ts.score).into()),
                        ("term", Json::from(&t.term)),
                        ("weighted_tf", round4(ts.weighted_tf).into()),
                    ]));
                });
                if best.as_ref().is_none_or(|b| s > b.0) {
                    let detail = Json::obj([
                        ("match", Json::from(alt.kind.name())),
                        ("phrase", alt.phrase.into()),
                        ("score", round4(s).into()),
                        ("terms", Json::Arr(terms)),
                        ("weight", alt.weight.into()),
                    ]);
                    best = Some((s, detail));
                }
            }
            let (s, detail) = best.unwrap_or((0.0, Json::Null));
            raw += s;
            let matched = !detail.is_null();
            let mut clause = Json::obj([("best", detail), ("clause", Json::from(&c.label))]);
            if c.expansion {
                clause.set("feedback", true.into());
            }
            clause.set("matched", matched.into());
            out_clauses.push(clause);
        }
        let mut proximity = Vec::new();
        for pair in proximity_pairs(&plan.clauses, &plan.positive) {
            let bonus = pair.bonus(doc, self.ranking.proximity).unwrap_or(0.0);
            raw += bonus;
            let terms = Json::from(vec![pair.a.term.clone(), pair.b.term.clone()]);
            proximity.push(Json::obj([("pair", terms), ("between", (pair.between as f64).into()), ("score", round4(bonus).into())]));
        }
        let own = plan.positive_clauses().filter(|c| !c.expansion).count() as u32;
        let whole_title = title_is_the_query(self.meta.lens[doc as usize][FIELD_TITLE], own)
            && plan
                .positive_clauses()
                .filter(|c| !c.expansion)
                .all(|c| c.alts.iter().any(|a| alt_match_at(a, doc).is_some_and(|ks| in_title(a, &ks))));
        let title = if whole_title { title_bonus(plan, self.ranking.whole_title) } else { 0.0 };
        raw += title;
        let p = self.bm25f;
        let prior = prior(self.meta, doc, self.ranking);
        raw *= prior;
        let params = Json::obj([
            ("b", Json::from(&p.b[..])),
            ("fields", Json::from(&rank::FIELD_NAMES[..])),
            ("k1", p.k1.into()),
            ("weights", Json::from(&p.weight[..])),
        ]);
        let mut out = Json::obj([
            ("bm25f", round4(raw).into()),
            ("clauses", Json::Arr(out_clauses)),
            ("final", round4(score).into()),
            ("max_possible", round4(max_possible).into()),
        ]);
        // Only navigation pages say so (content pages explain as they always did).
        if prior < 1.0 {
            out.set("navigation_prior", round4(prior).into());
        }
        out.set("normalised", round4((raw / max_possible).min(1.0)).into());
        out.set("params", params);
        out.set("proximity", Json::Arr(proximity));
        out.set("whole_title", round4(title).into());
        out
    }
}

/// The best score a document could reach for this plan — every clause and every proximity
/// pair at its maximum, and a title holding the query — so that `score / max_possible` says
/// how much of the query a document covers (0..1), not merely its place in the list.
pub(crate) fn max_possible(plan: &Plan, proximity: f32, whole_title: f32) -> f32 {
    let clauses: f32 = plan.positive_clauses().map(|c| c.max_score()).sum();
    let pairs: f32 = proximity_pairs(&plan.clauses, &plan.positive).iter().map(|p| p.max(proximity)).sum();
    (clauses + pairs + title_bonus(plan, whole_title)).max(1e-6)
}

/// Lexical scores divided by the plan's best possible score, capped at 1.
pub(crate) fn normalise(hits: &mut [Hit], max_possible: f32) {
    for h in hits.iter_mut() {
        h.score = (h.score / max_possible).min(1.0);
    }
}
