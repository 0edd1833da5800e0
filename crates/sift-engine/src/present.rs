//! Turning a scored document into a result: escaped title, a snippet of the best-matching
//! section (its window found from the postings' positions), and sub-results deep-linking
//! to the other matching sections. Only the chosen sections are analysed, and only up to
//! the snippet window, so a 500 KB page costs no more than a short one.

use super::definition::Defining;
use super::plan::Plan;
use super::resolve::{Flow, Resolver};
use super::round4;
use super::score::Hit;
use super::{Engine, ShardId};
use crate::contract::{Definition, SearchResult, SubResult};
use crate::snippet::{self, MatchQuality};
use sift_format::docstore::StoredDoc;
use sift_format::terms::PostingList;
use sift_text::analyzer::Analyzer;
use std::cmp::Reverse;
use std::sync::Arc;

const SNIPPET_WORDS: usize = 28;
const MAX_SUB_RESULTS: usize = 3;

/// What highlighting needs of a plan: every term any positive alternative matches, with
/// its postings (for positions), and the first letters that can stem to them.
struct Highlight {
    /// In term order, each term once.
    terms: Vec<(String, Arc<PostingList>)>,
    /// For each term, the query word it answers: a word's variants — `locale` and
    /// `locales`, a prefix's completions — count once when counting how many of the query's
    /// words a part or a section holds.
    word: Vec<usize>,
    prefixes: Vec<String>,
    /// The query's words as typed (`Plan::typed`), and their first letters (as `prefixes`).
    typed: Vec<String>,
    typed_prefixes: Vec<String>,
}

impl Highlight {
    fn new(plan: &Plan) -> Highlight {
        let mut terms: Vec<(String, Arc<PostingList>)> = Vec::new();
        let mut word = Vec::new();
        // A word is a clause's term at one place of its alternatives: `locales` and `locale`
        // are the same word, a phrase's (or a compound's, or a CJK run's) terms are several.
        let mut words: Vec<(usize, usize)> = Vec::new();
        // The words the query asked for, not those feedback added.
        for (c, clause) in plan.positive_clauses().filter(|c| !c.expansion).enumerate() {
            for (i, t) in clause.alts.iter().flat_map(|a| a.terms.iter().enumerate()) {
                if let Err(k) = terms.binary_search_by(|(x, _)| x.cmp(&t.term)) {
                    let w = words.iter().position(|&x| x == (c, i)).unwrap_or_else(|| {
                        words.push((c, i));
                        words.len() - 1
                    });
                    terms.insert(k, (t.term.clone(), t.pl.clone()));
                    word.insert(k, w);
                }
            }
        }
        let prefixes = snippet::match_prefixes(terms.iter().map(|(t, _)| t));
        let typed_prefixes = snippet::match_prefixes(&plan.typed);
        Highlight { terms, word, prefixes, typed: plan.typed.clone(), typed_prefixes }
    }

    /// Where the query's terms occur in `doc` (positions from the postings), per term, each
    /// with the query word it answers.
    fn positions(&self, doc: u32) -> Vec<(usize, &[u32])> {
        let terms = self.terms.iter().zip(&self.word);
        terms.filter_map(|((_, pl), &w)| Some((w, pl.positions_of(pl.docs.binary_search(&doc).ok()?)))).collect()
    }

    /// The doc shard a result reads: for a page stored in parts, the part with the best
    /// match — most distinct terms, then the closest together (a section titled with the
    /// query has them side by side, where a long discussion only says them more often),
    /// then most hits, then the earliest (the page's opening when nothing matched, as for
    /// an answer found by meaning alone).
    fn shard_for(&self, eng: &Engine, doc: u32, defined_at: Option<u32>) -> usize {
        let parts = eng.doc_parts(doc);
        if parts.len() < 2 {
            return parts.start;
        }
        // Where each part's sections start. Title and path matches come before the first
        // and are in every part's result; the sections' matches decide — or the definition
        // the query names, when the page has one.
        let starts = eng.part_starts(parts.clone());
        if let Some(p) = defined_at {
            return parts.start + starts.partition_point(|&s| s <= p).saturating_sub(1);
        }
        let mut per_part: Vec<Vec<(u32, usize)>> = vec![Vec::new(); parts.len()];
        for (w, positions) in self.positions(doc) {
            for &p in positions.iter().filter(|&&p| p >= starts[0]) {
                per_part[starts.partition_point(|&s| s <= p) - 1].push((p, w));
            }
        }
        let rank: Vec<(usize, Reverse<u32>, usize)> = per_part
            .iter_mut()
            .map(|h| {
                h.sort_unstable();
                let q = quality_of(h);
                (q.distinct, Reverse(tightest(h, q.distinct)), q.hits)
            })
            .collect();
        let best = (0..parts.len()).max_by(|&a, &b| rank[a].cmp(&rank[b]).then(b.cmp(&a))).unwrap_or(0);
        parts.start + best
    }

    /// A document's result from doc shard `si` (its `explain` is filled by the caller).
    fn result(
        &self,
        res: &Resolver,
        doc: u32,
        si: usize,
        score: f32,
        defined_at: Option<u32>,
        include_content: bool,
    ) -> Flow<SearchResult> {
        let sd = res.stored_in(doc, si)?;
        // A part sees only the matches up to its end (positions are sorted; those before its
        // first section fall to the title or to no section).
        let mut positions = self.positions(doc);
        if let Some(end) = res.eng.doc_part_end(si) {
            positions.iter_mut().for_each(|(_, p)| *p = &p[..p.partition_point(|&x| x < end)]);
        }
        let in_parts = res.eng.doc_parts(doc).len() > 1;
        let mut r = build_result(
            &res.eng.analyzer,
            sd,
            score,
            &self.terms,
            &self.prefixes,
            (&self.typed, &self.typed_prefixes),
            &positions,
            in_parts,
            defined_at,
        );
        if include_content {
            r.content = Some(res.whole(doc)?.content());
        }
        Ok(r)
    }
}

/// The results of a page (`explain` is the caller's to fill). Reads one doc shard per
/// result — for a long page, the part its snippet comes from (all its parts with
/// `include_content`).
pub(crate) fn results(res: &Resolver, plan: &Plan, page: &[Hit], defining: &[Defining], include_content: bool) -> Flow<Vec<SearchResult>> {
    let highlight = Highlight::new(plan);
    let defined_at = |doc: u32| defining.iter().find(|d| d.doc == doc).map(|d| d.pos);
    let shards: Vec<usize> = page.iter().map(|h| highlight.shard_for(res.eng, h.doc, defined_at(h.doc))).collect();
    let whole = page.iter().filter(|_| include_content).flat_map(|h| res.eng.doc_parts(h.doc));
    res.require(shards.iter().copied().chain(whole).map(ShardId::Docs))?;
    // Snippets analyse the pages' text: a rare-block character there needs the fold table.
    res.require(res.eng.fold_table_for_pages(page.iter().zip(&shards).map(|(h, &si)| (h.doc, si))))?;
    let mut out = Vec::with_capacity(page.len());
    for (h, &si) in page.iter().zip(&shards) {
        out.push(highlight.result(res, h.doc, si, h.score, defined_at(h.doc), include_content)?);
    }
    Ok(out)
}

/// Where the matched terms fall in each section (from postings positions, no text
/// analysis): per section, the (position, query word) pairs in order.
fn section_hits(sd: &StoredDoc, term_positions: &[(usize, &[u32])]) -> Vec<Vec<(u32, usize)>> {
    let n = sd.sections.len();
    let mut per: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    if sd.section_pos.len() != n {
        return per;
    }
    for &(w, positions) in term_positions {
        for &p in positions {
            let s = sd.section_pos.partition_point(|&start| start <= p);
            if s > 0 {
                per[s - 1].push((p, w)); // s == 0: title or path
            }
        }
    }
    for v in per.iter_mut() {
        v.sort_unstable();
    }
    per
}

/// The narrowest span of positions holding `distinct` different terms among `hits` (sorted
/// by position); `u32::MAX` when there is none.
fn tightest(hits: &[(u32, usize)], distinct: usize) -> u32 {
    let mut count = vec![0usize; hits.iter().map(|h| h.1 + 1).max().unwrap_or(0)];
    let (mut best, mut from, mut have) = (u32::MAX, 0, 0);
    for &(p, t) in hits {
        count[t] += 1;
        have += usize::from(count[t] == 1);
        while have == distinct && distinct > 0 {
            let (q, u) = hits[from];
            best = best.min(p - q);
            count[u] -= 1;
            have -= usize::from(count[u] == 0);
            from += 1;
        }
    }
    best
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

fn build_result(
    analyzer: &Analyzer,
    sd: &StoredDoc,
    score: f32,
    match_terms: &[(String, Arc<PostingList>)],
    prefixes: &[String],
    (typed, typed_prefixes): (&[String], &[String]),
    term_positions: &[(usize, &[u32])],
    in_parts: bool,
    defined_at: Option<u32>,
) -> SearchResult {
    let is_match = |t: &str| match_terms.binary_search_by(|(x, _)| x.as_str().cmp(t)).is_ok();
    let hits = section_hits(sd, term_positions);
    let quality: Vec<MatchQuality> = hits.iter().map(|h| quality_of(h)).collect();
    let positional = sd.section_pos.len() == sd.sections.len();
    let snippet_of = |i: usize| {
        let focus = positional.then(|| snippet_focus(sd, i, &hits[i]));
        snippet::snippet(analyzer, &sd.sections[i].text, &is_match, prefixes, SNIPPET_WORDS, focus).html
    };
    // Distinct query terms in each section's heading: of sections matching as many terms,
    // the one titled with them is the one to link to, before one that only says them more
    // often ("The shell prompt" asks for that section, not the longest about shells).
    let titled: Vec<usize> = (0..sd.sections.len())
        .map(|i| {
            let body = if positional && !hits[i].is_empty() { sd.body_start(i).unwrap_or(0) } else { 0 };
            let in_heading: Vec<(u32, usize)> = hits[i].iter().copied().filter(|h| h.0 < body).collect();
            quality_of(&in_heading).distinct
        })
        .collect();
    // A heading with the query's words as typed, stop words too, in order: of sections
    // matching as many words, the one to link to (`with statement` asks for "The with
    // statement", not "The for statement", which says "statement" as often).
    // (Only where the query's words are, and stemming only words that could be them, as
    // snippets do: headings are most of a page's analysis.)
    let could_be_typed = |folded: &str| typed_prefixes.iter().any(|p| folded.starts_with(p.as_str()));
    let mut toks = Vec::new();
    let as_typed: Vec<bool> = (0..sd.sections.len())
        .map(|i| {
            toks.clear();
            typed.len() > 1 && quality[i].hits > 0 && {
                analyzer.tokenize_filtered(&sd.sections[i].heading, &could_be_typed, 0, u32::MAX, &mut toks);
                let heading: Vec<&str> = toks.iter().filter(|t| t.is_part()).map(|t| t.term.as_str()).collect();
                heading.windows(typed.len()).any(|w| w == typed)
            }
        })
        .collect();
    let rank = |i: usize| (quality[i].distinct, as_typed[i], titled[i], quality[i].hits);
    let mut order: Vec<usize> = (0..sd.sections.len()).collect();
    order.sort_by(|&a, &b| rank(b).cmp(&rank(a)).then(a.cmp(&b)));
    // The entry the query names, if the page has it: its section gives the snippet.
    let defined = defined_at.and_then(|p| (0..sd.sections.len()).find(|&i| sd.section_pos.get(i) == Some(&p)));
    let best =
        defined.filter(|&i| !sd.sections[i].text.is_empty()).or_else(|| order.iter().copied().find(|&i| !sd.sections[i].text.is_empty()));
    let snippet = best.map(snippet_of).unwrap_or_default();
    let mut subs: Vec<SubResult> = Vec::new();
    let section_url = |i: usize| match &sd.sections[i].anchor {
        Some(a) if !a.is_empty() => [sd.url.split('#').next().unwrap_or(""), "#", a].concat(),
        _ => sd.url.clone(),
    };
    // The entry's section is the first sub-result, labelled with its path.
    let definition = defined.and_then(|i| {
        let sym = sd.sections[i].symbol.as_ref()?;
        let url = section_url(i);
        let sn = if Some(i) == best { snippet.clone() } else { snippet_of(i) };
        subs.push(SubResult { title: snippet::escape_html(&sym.path), url: url.clone(), snippet: sn });
        Some(Definition { path: sym.path.clone(), kind: sym.kind.clone(), url })
    });
    // Sub-results when the page has more than one section (a part of a long page may hold
    // just one).
    if sd.sections.len() > 1 || in_parts {
        let labels = sd.section_labels();
        // A section with a heading, or a piece of one that goes on from the part before
        // (stored without it, under the section's label).
        let titled = |i: usize| !sd.sections[i].heading.is_empty() || (i == 0 && sd.continues && !labels[0].is_empty());
        // An untitled section with an anchor is a section going on after an entry list:
        // labelled as the section it goes on with.
        let label = |i: usize| match &sd.sections[i].anchor {
            Some(a) if !titled(i) => (0..i).rev().find(|&j| titled(j) && sd.sections[j].anchor.as_ref() == Some(a)),
            _ => Some(i).filter(|&i| titled(i)),
        };
        for (i, l) in order.iter().filter(|&&i| quality[i].hits > 0).filter_map(|&i| Some((i, label(i)?))) {
            let title = snippet::escape_html(&labels[l]);
            // Sections that would read the same are one sub-result: the best-matching one.
            if subs.iter().any(|s| s.title == title) || Some(i) == defined {
                continue;
            }
            let url = section_url(i);
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
        definition,
        metadata: sd.metadata.clone(),
        date: sd.date.clone(),
        content: None,
        explain: None,
        queries: None,
    }
}
