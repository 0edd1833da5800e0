//! Analysis and inversion: each page's terms with their per-field frequencies and
//! positions, how the pages write them (the vocabulary's spellings), field lengths and
//! section starts, analysed on every core and merged in document order.

use crate::pages::Pages;
use crate::par_map;
use sift_base::doc::{SourceDoc, Weighted};
use sift_base::error::SiftError;
use sift_format::docmeta;
use sift_format::docstore::{visit_doc_fields, ANALYSIS_PIECE_BYTES};
use sift_format::fields::{self, N_FIELDS};
use sift_format::terms::TermEntry;
use sift_text::analyzer::{self, Analyzer, Token};
use sift_text::symbol;
use std::collections::HashMap;

/// One document analysed: its terms with per-field tf and positions (sorted by term), how
/// its words were written, field lengths, and where its sections start.
struct DocAnalysis {
    /// (term, per-field tf, positions, how often it was written as the term itself).
    terms: Vec<(String, [u32; N_FIELDS], Vec<u32>, u32)>,
    /// (term, how it was written otherwise, how often), once per pair.
    surfaces: Vec<(String, String, u32)>,
    lens: [u32; N_FIELDS],
    pub section_starts: Vec<u32>,
    /// Where the page's positions end.
    end: u32,
    /// Words not indexed because the page already had `MAX_TERMS_PER_DOC` distinct terms.
    dropped: u64,
}

/// Distinct terms indexed per document. Real pages have a few thousand (a generated index
/// about ten thousand); a page of a million distinct random words must not cost the build
/// gigabytes.
/// Words with further new terms still count towards the field lengths.
pub const MAX_TERMS_PER_DOC: usize = 100_000;

fn analyse(d: &SourceDoc, analyzer: &Analyzer) -> DocAnalysis {
    // Per-field frequencies as sums of weights (an occurrence counts 1, or its weighted
    // stretch's count), made whole numbers below.
    let mut per_doc: HashMap<String, ([f32; N_FIELDS], Vec<u32>, u32)> = HashMap::new();
    let mut lens = [0u32; N_FIELDS];
    let mut surface_counts: HashMap<(String, String), u32> = HashMap::new();
    let mut dropped = 0u64;
    let weighted = &d.annotations.weighted;
    let (section_starts, end) = visit_doc_fields(d, analyzer, ANALYSIS_PIECE_BYTES, |field, text, toks, at| {
        for t in toks {
            if t.is_part() {
                lens[field] += 1;
            }
            if per_doc.len() >= MAX_TERMS_PER_DOC && !per_doc.contains_key(&t.term) {
                dropped += 1;
                continue;
            }
            // A weighted stretch (`data-sift-weight`): the innermost one holding the word.
            let byte = at.offset + t.start;
            let count = match weighted.iter().rev().find(|w| Some(w.section) == at.section && (w.start..w.end).contains(&byte)) {
                Some(w) if field == fields::FIELD_BODY => Weighted::count(w.weight),
                _ => 1.0,
            };
            let e = per_doc.entry(t.term.clone()).or_default();
            e.0[field] += count;
            e.1.push(t.pos);
            if field != fields::FIELD_PATH {
                let surface = surface_of(text, t);
                if surface == t.term {
                    e.2 += 1;
                } else {
                    *surface_counts.entry((t.term.clone(), surface)).or_insert(0) += 1;
                }
            }
        }
    });
    // Definitions: each key of a section's path, at the section's start (`symbol`).
    for (s, &start) in d.sections.iter().zip(&section_starts) {
        for (key, tf) in s.symbol.as_ref().map(|sym| symbol::keys(&sym.path, &sym.kind)).unwrap_or_default() {
            let e = per_doc.entry(key).or_default();
            // A page defining the same tail twice (`Vec::clone` of two impls) keeps its first.
            if e.1.is_empty() {
                e.0[fields::FIELD_HEADINGS] = tf as f32;
                e.1.push(start);
            }
        }
    }
    let mut surfaces: Vec<(String, String, u32)> = surface_counts.into_iter().map(|((t, s), c)| (t, s, c)).collect();
    // The merge keeps a term's first 16 spellings: make "first" independent of hashing.
    surfaces.sort_unstable();
    let mut terms: Vec<_> = per_doc
        .into_iter()
        .map(|(term, (weighted_tf, mut pos, itself))| {
            let tf = Weighted::whole(weighted_tf);
            pos.sort_unstable();
            pos.dedup();
            if analyzer.is_stop_term(&term) {
                pos.clear();
            }
            (term, tf, pos, itself)
        })
        .collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    DocAnalysis { terms, surfaces, lens, section_starts, end, dropped }
}

fn surface_of(text: &str, t: &Token) -> String {
    analyzer::fold(&text[t.start..t.end]).chars().filter(|&c| sift_text::charclass::is_alphanumeric(c)).collect()
}

/// The inverted index of a corpus, with what scoring and results need of each document.
pub(crate) struct Inverted {
    /// Every term, with the rows of its postings not yet taken to disk.
    pub postings: HashMap<String, TermEntry>,
    /// The runs of postings taken to disk, in document order (`crate::spill`).
    pub runs: Vec<std::fs::File>,
    /// Memory the rows held take.
    held: usize,
    /// Field lengths per document, quantised.
    pub lens: Vec<[u8; N_FIELDS]>,
    /// Tokens in each field over all documents.
    pub field_tokens: [u64; N_FIELDS],
    pub section_starts: Vec<Vec<u32>>,
    pub ends: Vec<u32>,
}

/// Documents analysed at a time (on every core) before they are merged: the analyses of a
/// batch are held until then, the postings of the whole site after.
const ANALYSIS_BATCH: usize = 512;

/// Documents analysed in parallel, a batch at a time, merged in document order; a batch
/// is merged while the next one is analysed. Once the postings held pass `memory` bytes
/// they are written to disk as a run.
pub(crate) fn invert(
    pages: &Pages,
    analyzer: &Analyzer,
    memory: usize,
    on_step: &crate::OnStep,
    warnings: &mut Vec<String>,
) -> Result<Inverted, SiftError> {
    let mut inv = Inverted {
        postings: HashMap::new(),
        runs: Vec::new(),
        held: 0,
        lens: Vec::with_capacity(pages.len()),
        field_tokens: [0; N_FIELDS],
        section_starts: Vec::with_capacity(pages.len()),
        ends: Vec::with_capacity(pages.len()),
    };
    // Each batch's pages read back, then analysed on every core. A small site goes in
    // smaller batches, or its first batch would be analysed alone and its last merged alone.
    let batch = pages.len().div_ceil(8).clamp(32, ANALYSIS_BATCH);
    let analysed = |first: usize| -> Result<Vec<DocAnalysis>, SiftError> {
        Ok(par_map(&pages.read(first..(first + batch).min(pages.len()))?, |d| analyse(d, analyzer)))
    };
    let mut batches = (0..pages.len()).step_by(batch);
    let mut pending: Vec<DocAnalysis> = batches.next().map(analysed).transpose()?.unwrap_or_default();
    loop {
        let upcoming = batches.next();
        let (merged, analysed) = rayon::join(
            || {
                inv.merge(std::mem::take(&mut pending), pages, warnings);
                on_step.progress(inv.ends.len(), pages.len());
                if inv.held > memory {
                    inv.runs.push(crate::spill::write_run(&mut inv.postings)?);
                    inv.held = 0;
                }
                Ok::<(), SiftError>(())
            },
            || upcoming.map(analysed).transpose(),
        );
        merged?;
        match analysed? {
            Some(a) => pending = a,
            None => return Ok(inv),
        }
    }
}

impl Inverted {
    /// Add the next documents' analyses (numbered from the documents merged so far).
    fn merge(&mut self, analysed: Vec<DocAnalysis>, pages: &Pages, warnings: &mut Vec<String>) {
        for a in analysed {
            let doc_id = self.ends.len();
            for (term, tf, pos, itself) in a.terms {
                let tp = self.postings.entry(term).or_default();
                let memory = tp.held_memory();
                tp.push(doc_id as u32, tf, &pos);
                self.held += tp.held_memory() - memory;
                // Written as the term itself counts too (as ""), or a rare other spelling would
                // pass for the common one (`generatorization` for `generator`).
                if itself > 0 {
                    *tp.surfaces.entry(String::new()).or_insert(0) += itself;
                }
            }
            for (term, surface, count) in a.surfaces {
                if let Some(tp) = self.postings.get_mut(&term) {
                    // Bounded: a term written 10 000 ways keeps counting its first 16.
                    if tp.surfaces.len() < 16 || tp.surfaces.contains_key(&surface) {
                        *tp.surfaces.entry(surface).or_insert(0) += count;
                    }
                }
            }
            if a.dropped > 0 {
                warnings.push(format!(
                    "{}: more than {MAX_TERMS_PER_DOC} distinct words; {} further words were not indexed",
                    pages.id(doc_id),
                    a.dropped
                ));
            }
            self.lens.push(std::array::from_fn(|f| docmeta::encode_len(a.lens[f])));
            for f in 0..N_FIELDS {
                self.field_tokens[f] += u64::from(a.lens[f]);
            }
            self.section_starts.push(a.section_starts);
            self.ends.push(a.end);
        }
    }
}

#[cfg(test)]
mod limits {
    use super::*;
    use crate::{build, BuildOptions};
    use sift_base::doc::Section;

    #[test]
    fn a_page_stops_indexing_new_terms_at_the_cap_and_says_so() {
        let word = |i: usize| format!("w{i}x");
        let text: Vec<String> = (0..MAX_TERMS_PER_DOC + 25).map(word).collect();
        let doc = SourceDoc {
            id: "dictionary.html".into(),
            title: "Dictionary".into(),
            sections: vec![Section { heading: String::new(), anchor: None, text: text.join(" "), symbol: None }],
            ..Default::default()
        };
        let built = build(&[doc], &BuildOptions::default()).unwrap();
        // title's one term + the cap's worth of body words (the title term counts first).
        assert_eq!(built.manifest.term_count, MAX_TERMS_PER_DOC as u64);
        let w: Vec<&String> = built.warnings.iter().filter(|w| w.contains("distinct words")).collect();
        assert_eq!(w.len(), 1, "{:?}", built.warnings);
        assert!(w[0].starts_with("dictionary.html: more than 100000 distinct words; 26 further words were not indexed"), "{w:?}");
    }
}
