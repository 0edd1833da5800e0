//! Turning a scored document into a result: escaped title, a snippet of the best-matching
//! section (its window found from the postings' positions), and sub-results deep-linking
//! to the other matching sections. Only the chosen sections are analysed, and only up to
//! the snippet window, so a 500 KB page costs no more than a short one.

use super::plan::Plan;
use super::resolve::{Flow, Resolver};
use super::round4;
use super::score::Hit;
use crate::bundle::docstore::StoredDoc;
use crate::bundle::terms::PostingList;
use crate::contract::{SearchResult, SubResult};
use crate::snippet::{self, MatchQuality};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

const SNIPPET_WORDS: usize = 28;
const MAX_SUB_RESULTS: usize = 3;

/// What highlighting needs of a plan: every term any positive alternative matches, with
/// its postings (for positions), and the first letters that can stem to them.
struct Highlight {
    terms: BTreeMap<String, Rc<PostingList>>,
    term_set: BTreeSet<String>,
    prefixes: Vec<String>,
}

impl Highlight {
    fn new(plan: &Plan) -> Highlight {
        let mut terms: BTreeMap<String, Rc<PostingList>> = BTreeMap::new();
        // The words the query asked for, not those feedback added.
        for a in plan.positive_clauses().filter(|c| !c.expansion).flat_map(|c| c.alts.iter()) {
            for t in &a.terms {
                terms.entry(t.term.clone()).or_insert_with(|| t.pl.clone());
            }
        }
        let term_set: BTreeSet<String> = terms.keys().cloned().collect();
        let prefixes = snippet::match_prefixes(&term_set);
        Highlight { terms, term_set, prefixes }
    }

    /// A document's result (its `explain` is filled by the caller).
    fn result(&self, sd: &StoredDoc, doc: u32, score: f32, include_content: bool) -> SearchResult {
        let positions: Vec<&[u32]> =
            self.terms.values().filter_map(|pl| pl.docs.binary_search(&doc).ok().map(|k| pl.positions_of(k))).collect();
        build_result(sd, score, &self.term_set, &self.prefixes, &positions, include_content)
    }
}

/// The results of a page (its doc shards must be loaded), with `explain` filled by
/// `explain` when the request asks for it.
pub(crate) fn results(
    res: &Resolver,
    plan: &Plan,
    page: &[Hit],
    include_content: bool,
    explain: Option<&dyn Fn(&Hit) -> crate::json::Json>,
) -> Flow<Vec<SearchResult>> {
    let highlight = Highlight::new(plan);
    let mut out = Vec::with_capacity(page.len());
    for h in page {
        let mut r = highlight.result(res.stored(h.doc)?, h.doc, h.score, include_content);
        r.explain = explain.map(|f| f(h));
        out.push(r);
    }
    Ok(out)
}

/// Where the matched terms fall in each section (from postings positions, no text
/// analysis): per section, the (position, term index) pairs in order.
fn section_hits(sd: &StoredDoc, term_positions: &[&[u32]]) -> Vec<Vec<(u32, usize)>> {
    let n = sd.sections.len();
    let mut per: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    if sd.section_pos.len() != n {
        return per;
    }
    for (ti, positions) in term_positions.iter().enumerate() {
        for &p in positions.iter() {
            let s = sd.section_pos.partition_point(|&start| start <= p);
            if s > 0 {
                per[s - 1].push((p, ti)); // s == 0: title or path
            }
        }
    }
    for v in per.iter_mut() {
        v.sort_unstable();
    }
    per
}

fn quality_of(hits: &[(u32, usize)]) -> MatchQuality {
    let mut terms: Vec<usize> = hits.iter().map(|h| h.1).collect();
    terms.sort_unstable();
    terms.dedup();
    MatchQuality { distinct: terms.len(), hits: hits.len() }
}

/// The best snippet window of a section's body, as a position relative to the body's first
/// token: the window with the most distinct terms, then the most hits.
fn snippet_focus(sd: &StoredDoc, i: usize, hits: &[(u32, usize)]) -> u32 {
    let body_start = sd.body_start(i).unwrap_or(0);
    let body: Vec<(u32, usize)> = hits.iter().filter(|h| h.0 >= body_start).map(|&(p, t)| (p - body_start, t)).collect();
    let mut best = (0usize, 0usize, 0u32);
    for (k, &(p, _)) in body.iter().enumerate() {
        let in_window: Vec<usize> = body[k..].iter().take_while(|h| h.0 < p + SNIPPET_WORDS as u32).map(|h| h.1).collect();
        let n = in_window.len();
        let mut d = in_window;
        d.sort_unstable();
        d.dedup();
        if (d.len(), n) > (best.0, best.1) {
            best = (d.len(), n, p);
        }
    }
    best.2
}

/// What a sub-result is called. A heading the page repeats ("Examples" under every method
/// of an API page, "Parameters" under every function) is told apart by the nearest heading
/// before it that the page does not repeat — the item it sits under: `entry › Examples`.
/// `counts`: how often each heading occurs in the page (counted once per page).
fn section_label(sd: &StoredDoc, i: usize, counts: &HashMap<&str, usize>) -> String {
    let heading = &sd.sections[i].heading;
    let count = |h: &str| counts.get(h).copied().unwrap_or(0);
    if count(heading) < 2 {
        return heading.clone();
    }
    match sd.sections[..i].iter().rev().map(|s| s.heading.as_str()).find(|h| !h.is_empty() && count(h) == 1) {
        Some(parent) => format!("{parent} › {heading}"),
        None => heading.clone(),
    }
}

fn build_result(
    sd: &StoredDoc,
    score: f32,
    match_terms: &BTreeSet<String>,
    prefixes: &[String],
    term_positions: &[&[u32]],
    include_content: bool,
) -> SearchResult {
    let is_match = |t: &str| match_terms.contains(t);
    let hits = section_hits(sd, term_positions);
    let quality: Vec<MatchQuality> = hits.iter().map(|h| quality_of(h)).collect();
    let positional = sd.section_pos.len() == sd.sections.len();
    let snippet_of = |i: usize| {
        let focus = positional.then(|| snippet_focus(sd, i, &hits[i]));
        snippet::snippet(&sd.sections[i].text, &is_match, prefixes, SNIPPET_WORDS, focus).html
    };
    let mut order: Vec<usize> = (0..sd.sections.len()).collect();
    order.sort_by(|&a, &b| quality[b].cmp(&quality[a]).then(a.cmp(&b)));
    let best = order.iter().copied().find(|&i| !sd.sections[i].text.is_empty());
    let snippet = best.map(snippet_of).unwrap_or_default();
    let mut subs: Vec<SubResult> = Vec::new();
    if sd.sections.len() > 1 {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for s in &sd.sections {
            *counts.entry(s.heading.as_str()).or_insert(0) += 1;
        }
        for &i in order.iter().filter(|&&i| quality[i].hits > 0 && !sd.sections[i].heading.is_empty()) {
            let title = snippet::escape_html(&section_label(sd, i, &counts));
            // Sections that would read the same are one sub-result: the best-matching one.
            if subs.iter().any(|s| s.title == title) {
                continue;
            }
            let sec = &sd.sections[i];
            let url = match &sec.anchor {
                Some(a) if !a.is_empty() => format!("{}#{}", sd.url.split('#').next().unwrap_or(""), a),
                _ => sd.url.clone(),
            };
            let sn = if Some(i) == best { snippet.clone() } else { snippet_of(i) };
            subs.push(SubResult { title, url, snippet: sn });
            if subs.len() == MAX_SUB_RESULTS {
                break;
            }
        }
    }
    SearchResult {
        id: sd.id.clone(),
        url: sd.url.clone(),
        title: snippet::escape_html(&sd.title),
        doc_type: sd.doc_type().map(str::to_string),
        snippet,
        score: round4(score),
        sub_results: subs,
        metadata: sd.metadata.clone(),
        date: sd.date.clone(),
        content: include_content.then(|| sd.content()),
        explain: None,
        queries: None,
    }
}
