//! Collecting results: which documents may appear at all (filters, `since`, exclusions),
//! in which order (relevance or date, with an optional recency boost), which page, and the
//! facet counts of the whole result set.

use super::definition::{rank_first, Defining};
use super::matching::alt_matches;
use super::plan::{AltKind, Clause};
use super::score::{sort_hits, Hit};
use crate::contract::{Fallback, SearchResponse, Sort, ValidRequest};
use crate::params::RankingParams;
use crate::query::ParsedQuery;
use sift_format::docmeta::DocMeta;
use sift_format::filters::FilterIndex;
use std::collections::BTreeMap;

/// The hard constraints of a request: metadata filters and `since` (None: no filter at
/// all), documents excluded by `-words`, and the documents that contain every quoted text.
pub(crate) struct Filter<'a> {
    pub allowed: Option<Vec<bool>>,
    pub excluded: Vec<u32>,
    /// Documents containing every quoted phrase of the query (None: nothing was quoted).
    /// Quoted text is a hard constraint in every mode: when the lexical side relaxes to
    /// "any term" and when meaning brings in results, a page without it is not an answer.
    pub quoted: Option<Vec<u32>>,
    /// Documents that no longer answer (sorted): a delta removed them.
    pub removed: &'a [u32],
}

impl<'a> Filter<'a> {
    /// `filters`: field → accepted values (values of one field OR-ed, fields AND-ed);
    /// `removed`: documents that no longer answer (a delta's, `delta.rs`).
    pub fn new(
        index: &FilterIndex,
        meta: &DocMeta,
        filters: &[(String, Vec<String>)],
        since: Option<i64>,
        clauses: &[Clause],
        removed: &'a [u32],
    ) -> Filter<'a> {
        let (allowed, excluded) = (allowed_docs(index, meta, filters, since), excluded_docs(clauses));
        Filter { allowed, excluded, quoted: quoted_docs(clauses), removed }
    }

    /// Whether a document keeps every hard constraint: the filters and `since`, the
    /// exclusions and the quoted text.
    pub fn admits(&self, doc: u32) -> bool {
        self.allowed.as_ref().is_none_or(|a| a.get(doc as usize).copied().unwrap_or(false))
            && self.excluded.binary_search(&doc).is_err()
            && self.removed.binary_search(&doc).is_err()
            && self.quoted.as_ref().is_none_or(|q| q.binary_search(&doc).is_ok())
    }

    /// Whether any filter or `since` narrows the candidates.
    pub fn narrows(&self) -> bool {
        self.allowed.is_some()
    }

    /// The share of documents the filters and `since` admit (1 without filters).
    pub fn admitted_fraction(&self) -> f64 {
        match &self.allowed {
            None => 1.0,
            Some(a) if a.is_empty() => 0.0,
            Some(a) => a.iter().filter(|&&x| x).count() as f64 / a.len() as f64,
        }
    }
}

/// The request's filters and the query's own `field:value` terms, one list per field.
pub(crate) fn filters_of(req: &ValidRequest, parsed: &ParsedQuery) -> Vec<(String, Vec<String>)> {
    let mut filters = req.filters.clone();
    for (f, v) in &parsed.filters {
        match filters.iter_mut().find(|(ff, _)| ff == f) {
            Some((_, vs)) => vs.push(v.clone()),
            None => filters.push((f.clone(), vec![v.clone()])),
        }
    }
    filters
}

fn allowed_docs(index: &FilterIndex, meta: &DocMeta, filters: &[(String, Vec<String>)], since: Option<i64>) -> Option<Vec<bool>> {
    if filters.is_empty() && since.is_none() {
        return None;
    }
    let n = meta.lens.len();
    let mut allowed = vec![true; n];
    for (field, values) in filters {
        let mut any = vec![false; n];
        if let Some(vals) = index.fields.get(field) {
            for v in values {
                for &d in vals.get(v).map(Vec::as_slice).unwrap_or(&[]) {
                    any[d as usize] = true;
                }
            }
        }
        for (a, b) in allowed.iter_mut().zip(any) {
            *a &= b;
        }
    }
    if let Some(cut) = since {
        for (a, d) in allowed.iter_mut().zip(&meta.dates) {
            *a &= d.is_some_and(|d| d >= cut);
        }
    }
    Some(allowed)
}

/// Documents containing a quoted clause as typed (its exact alternatives).
fn quoted_clause_docs(c: &Clause) -> Vec<u32> {
    sorted_set(c.alts.iter().filter(|a| a.kind == AltKind::Exact).flat_map(|a| alt_matches(a).into_iter().map(|(doc, _)| doc)).collect())
}

/// Documents containing every quoted clause.
fn quoted_docs(clauses: &[Clause]) -> Option<Vec<u32>> {
    intersection(clauses.iter().filter(|c| c.quoted).map(quoted_clause_docs))
}

/// The documents in every set (sorted sets); `None` for no sets.
fn intersection(sets: impl IntoIterator<Item = Vec<u32>>) -> Option<Vec<u32>> {
    sets.into_iter().reduce(|mut all, docs| {
        all.retain(|d| docs.binary_search(d).is_ok());
        all
    })
}

/// Quoted text that cannot be a hard constraint, since no document has it: the labels of
/// the quoted clauses no document contains, or, when each is found but never all in one
/// document, of all of them (`true`). Empty when the quoted text constrains as typed.
pub(crate) fn unmatched_quotes(clauses: &[Clause]) -> (Vec<String>, bool) {
    let quoted: Vec<(&Clause, Vec<u32>)> = clauses.iter().filter(|c| c.quoted).map(|c| (c, quoted_clause_docs(c))).collect();
    // A long Han, Kana, Hangul or Thai run is a phrase of its bigrams: one no page holds
    // relaxes as quoted text does.
    let runs = clauses.iter().filter(|c| c.run && !c.negated && quoted_clause_docs(c).is_empty()).map(|c| c.label.clone());
    let missing: Vec<String> = quoted.iter().filter(|(_, docs)| docs.is_empty()).map(|(c, _)| c.label.clone()).chain(runs).collect();
    if !missing.is_empty() {
        return (missing, false);
    }
    let labels: Vec<String> = quoted.iter().map(|(c, _)| c.label.clone()).collect();
    let apart = intersection(quoted.into_iter().map(|(_, docs)| docs)).is_some_and(|d| d.is_empty());
    if apart {
        (labels, true)
    } else {
        (Vec::new(), false)
    }
}

/// Documents matching any negated clause (prefix completions never exclude).
fn excluded_docs(clauses: &[Clause]) -> Vec<u32> {
    let mut ex = Vec::new();
    for c in clauses.iter().filter(|c| c.negated) {
        for a in c.alts.iter().filter(|a| a.kind != AltKind::Prefix) {
            ex.extend(alt_matches(a).into_iter().map(|(doc, _)| doc));
        }
    }
    sorted_set(ex)
}

/// Doc numbers in order, each once. (A sorted vector, not a BTreeSet: the browser engine
/// pays for every collection type it instantiates.)
fn sorted_set(mut docs: Vec<u32>) -> Vec<u32> {
    docs.sort_unstable();
    docs.dedup();
    docs
}

/// Recency factor in (`recency_floor`, 1]: the rest above the floor halves every
/// `recency_half_life_days` of age. `now`: the newest date of the bundle.
fn recency(meta: &DocMeta, doc: u32, now: i64, p: &RankingParams) -> f32 {
    match meta.dates[doc as usize] {
        Some(d) => {
            let age = (now - d).max(0) as f32;
            p.recency_floor + (1.0 - p.recency_floor) * 0.5f32.powf(age / p.recency_half_life_days)
        }
        None => p.recency_floor,
    }
}

/// Final order: the recency boost when asked, then by relevance or by date (newest first,
/// then relevance).
/// (Without the `dates` feature validation refuses both options; the `cfg!`s leave their
/// code out of the browser engines.)
pub(crate) fn order(hits: &mut [Hit], meta: &DocMeta, sort: Sort, boost_recent: bool, p: &RankingParams) {
    if boost_recent && cfg!(feature = "dates") {
        let newest = meta.newest_date();
        for h in hits.iter_mut() {
            h.score *= recency(meta, h.doc, newest, p);
        }
    }
    match sort {
        Sort::Date if cfg!(feature = "dates") => hits.sort_by(|a, b| {
            let da = meta.dates[a.doc as usize];
            let db = meta.dates[b.doc as usize];
            db.cmp(&da).then(b.score.total_cmp(&a.score)).then(a.doc.cmp(&b.doc))
        }),
        _ => sort_hits(hits),
    }
}

/// Field → value → number of result documents with it (values with none left out).
pub(crate) fn facets(index: &FilterIndex, n_docs: usize, hits: &[Hit]) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut out = BTreeMap::new();
    if hits.is_empty() {
        return out;
    }
    let mut in_set = vec![false; n_docs];
    for h in hits {
        in_set[h.doc as usize] = true;
    }
    for (field, values) in &index.fields {
        // Inserted one by one, not collected: `collect` into a BTreeMap compiles a sort and a
        // bulk build for each key/value type; insertion code is shared with the other maps.
        let mut counts = BTreeMap::new();
        for (v, docs) in values {
            let c = docs.iter().filter(|&&d| in_set[d as usize]).count();
            if c > 0 {
                counts.insert(v.clone(), c);
            }
        }
        if !counts.is_empty() {
            out.insert(field.clone(), counts);
        }
    }
    out
}

/// A query with filters and no words (`folder:library`, or symbols with a `since`): every
/// page the filters admit, in the bundle's order (or by date), with facets, like a search
/// that matched them all.
pub(crate) fn browse(
    req: &ValidRequest,
    filter: &Filter,
    meta: &DocMeta,
    index: &FilterIndex,
    doc_count: u32,
    p: &RankingParams,
) -> (Vec<Hit>, SearchResponse) {
    let hits: Vec<Hit> = (0..doc_count).filter(|&d| filter.admits(d)).map(|doc| Hit { doc, score: 1.0 }).collect();
    let Collected { page, total, facets } = collected(req, meta, index, doc_count, hits, &[], p);
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
pub(crate) struct Collected {
    pub page: Vec<Hit>,
    pub total: usize,
    pub facets: BTreeMap<String, BTreeMap<String, usize>>,
}

pub(crate) fn collected(
    req: &ValidRequest,
    meta: &DocMeta,
    index: &FilterIndex,
    doc_count: u32,
    mut hits: Vec<Hit>,
    defining: &[Defining],
    p: &RankingParams,
) -> Collected {
    order(&mut hits, meta, req.sort, req.boost_recent, p);
    if req.sort == Sort::Relevance {
        rank_first(&mut hits, defining);
    }
    let page = hits.iter().skip(req.offset).take(req.limit).copied().collect();
    Collected { page, total: hits.len(), facets: facets(index, doc_count as usize, &hits) }
}

pub(crate) fn empty_response(req: &ValidRequest, fallback: Fallback) -> SearchResponse {
    SearchResponse {
        limit: req.limit,
        offset: req.offset,
        query: req.query.trim_end().to_string(),
        search_type: "lexical".into(),
        fallback: Some(fallback),
        ..Default::default()
    }
}
