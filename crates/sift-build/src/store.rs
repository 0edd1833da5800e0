//! The document store's plan: which pages share a shard, which long pages are stored in
//! parts (runs of their sections, on a grid of positions: `bundle::partition`), and each
//! shard's payload.

use crate::pages::Pages;
use crate::par_map;
use sift_base::doc::{Section, SourceDoc};
use sift_base::error::SiftError;
use sift_format::docstore::{self, StoredDoc};
use sift_format::partition::{self, PagePlan};

/// At most this many document-store shards, whatever the target: the manifest lists every
/// one and every page load fetches the manifest, and static hosts cap a site's files
/// (Cloudflare's Worker assets: 20,000). A corpus too big for the targets in that many
/// shards gets bigger parts, then bigger shards.
pub const MAX_DOC_SHARDS: usize = 4096;

/// What one document-store shard holds: whole pages `first_doc..first_doc + docs`, or part
/// `part` of a long page.
enum StoreShard {
    Pages { first_doc: usize, docs: usize },
    Part { doc: usize, part: usize },
}

/// How the document store is cut: its shards, the long pages' plans, and their window.
pub(crate) struct StorePlan {
    shards: Vec<StoreShard>,
    /// By document: its parts and position layout, for a page stored in parts.
    pages: Vec<Option<PagePlan>>,
    /// The parts' window in positions (the manifest's `part_positions`), when a page has parts.
    pub window: Option<u32>,
}

impl StorePlan {
    /// The doc store's shards.
    pub(crate) fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// A position of document `doc` as analysed, where the postings keep it: a long
    /// page's positions move onto its parts' grid. (Its section starts are not kept: each
    /// stored piece carries its own, from the plan.)
    pub(crate) fn remap(&self, doc: u32, pos: u32) -> u32 {
        match self.pages.get(doc as usize) {
            Some(Some(plan)) => plan.remap(pos),
            _ => pos,
        }
    }
}

/// The document store's shards, each holding whole pages in order until it reaches
/// `target` bytes (raised so that there are at most `max_shards`), and a page bigger than
/// `part_target` in parts of about that size — windows of as many positions as that many
/// bytes hold on average ([`partition`]) — or of the smallest size, in steps of a quarter,
/// that keeps to `max_shards` (a bigger corpus gets bigger parts before it gets whole pages).
/// `section_starts` and `ends`: each page's position layout, as analysed.
pub(crate) fn plan_doc_store(
    pages: &Pages,
    section_starts: &[Vec<u32>],
    ends: &[u32],
    target: usize,
    part_target: usize,
    max_shards: usize,
) -> Result<StorePlan, SiftError> {
    // Every shard but the last holds at least `target` bytes, so there are at most
    // ceil(total / target) shards: at most `max_shards` with this target.
    // What a page weighs in the store: its text and headings, and about 128 bytes of id,
    // url, title and structure.
    let weight = |i: usize| pages.text_bytes(i) + 128;
    let total: usize = (0..pages.len()).map(weight).sum();
    let raised = target.max(total.div_ceil(max_shards.max(1)));
    // Positions a byte of the pages that could have parts.
    let long = |i: usize, part: usize| part > 0 && weight(i) > part;
    let (positions, bytes) =
        (0..pages.len()).filter(|&i| long(i, part_target)).fold((0u64, 0u64), |(p, b), i| (p + u64::from(ends[i]), b + weight(i) as u64));
    let window_of =
        |part: usize| u32::try_from((part as u64 * positions).div_ceil(bytes.max(1))).unwrap_or(u32::MAX).max(4 * docstore::POSITION_GAP);
    let plan = |part: usize| -> Result<StorePlan, SiftError> {
        let window = window_of(part);
        let mut out = StorePlan { shards: Vec::new(), pages: vec![None; pages.len()], window: None };
        // Only a long page's text is read back here, to be cut (on every core).
        let long_pages: Vec<usize> = (0..pages.len()).filter(|&i| long(i, part)).collect();
        for chunk in long_pages.chunks(PLANNED_AT_A_TIME) {
            let planned = par_map(chunk, |&i| Ok(partition::plan_page(&pages.page(i)?, &section_starts[i], ends[i], window)));
            for (&i, page) in chunk.iter().zip(planned) {
                out.pages[i] = page?;
            }
        }
        let (mut first_doc, mut batch_bytes) = (0usize, 0usize);
        for i in 0..pages.len() {
            if let Some(page) = &out.pages[i] {
                if first_doc < i {
                    out.shards.push(StoreShard::Pages { first_doc, docs: i - first_doc });
                }
                out.shards.extend((0..page.parts.len()).map(|part| StoreShard::Part { doc: i, part }));
                out.window = Some(window);
                (first_doc, batch_bytes) = (i + 1, 0);
                continue;
            }
            batch_bytes += weight(i);
            if batch_bytes >= raised || i + 1 == pages.len() {
                out.shards.push(StoreShard::Pages { first_doc, docs: i + 1 - first_doc });
                (first_doc, batch_bytes) = (i + 1, 0);
            }
        }
        Ok(out)
    };
    // Parts as small as asked while they fit under the cap, else the smallest that fit:
    // the size grows a quarter at a time (doubling overshoots: parts twice the size asked
    // for, far fewer shards than allowed); past the biggest page, none.
    let sizes: Vec<usize> =
        std::iter::successors(Some(part_target), |&p| (p > 0).then(|| if p >= total { 0 } else { p.saturating_add(p / 4 + 1) })).collect();
    // Each try cuts every long page, so the search starts at the first size whose parts
    // would fit by the pages' positions alone (a page of p positions in about p / window
    // parts, the short ones in shards of `raised` bytes), then walks up while it does not
    // fit, or down while the size below it still does.
    let estimate = |part: usize| -> usize {
        let window = u64::from(window_of(part));
        let (mut shards, mut short) = (0u64, 0u64);
        for i in 0..pages.len() {
            match long(i, part) {
                true => shards += (u64::from(ends[i]) + window / 2) / window,
                false => short += weight(i) as u64,
            }
        }
        (shards + short.div_ceil(raised as u64)) as usize
    };
    let fits = |store: &StorePlan| store.shards.len() <= max_shards;
    let mut k = sizes.iter().position(|&p| estimate(p) <= max_shards).unwrap_or(sizes.len() - 1);
    let mut store = plan(sizes[k])?;
    if fits(&store) {
        while k > 0 {
            let smaller = plan(sizes[k - 1])?;
            if !fits(&smaller) {
                break;
            }
            (k, store) = (k - 1, smaller);
        }
    } else {
        while !fits(&store) && k + 1 < sizes.len() {
            k += 1;
            store = plan(sizes[k])?;
        }
    }
    Ok(store)
}

/// Long pages read back and cut at a time (on every core).
const PLANNED_AT_A_TIME: usize = 256;

/// A long page's sections as its parts store them: the pieces of a section after the first
/// have no heading, start at their first token, and keep the section's anchor and
/// sub-result label. Returns the page (each part a run of its sections), each stored
/// section's label and whether it continues the one before, and where each part's run begins.
fn pieced(d: &SourceDoc, page: &PagePlan) -> (StoredDoc, Vec<String>, Vec<bool>, Vec<usize>) {
    let labels = docstore::labels_of(&d.sections);
    let mut out = page_fields(d);
    let (mut out_labels, mut continues, mut runs) = (Vec::new(), Vec::new(), Vec::new());
    for part in &page.parts {
        runs.push(out.sections.len());
        for p in part {
            let s = &d.sections[p.section];
            let heading = if p.continues { String::new() } else { s.heading.clone() };
            let symbol = if p.continues { None } else { s.symbol.clone() };
            out.sections.push(Section { heading, anchor: s.anchor.clone(), text: s.text[p.text.clone()].to_string(), symbol });
            out.section_pos.push(p.start);
            out_labels.push(labels[p.section].clone());
            continues.push(p.continues);
        }
    }
    runs.push(out.sections.len());
    (out, out_labels, continues, runs)
}

/// A page's own fields as the store keeps them, without its sections.
fn page_fields(d: &SourceDoc) -> StoredDoc {
    StoredDoc {
        id: d.id.clone(),
        url: d.url.clone(),
        title: d.title.clone(),
        metadata: d.metadata.clone(),
        date: d.date.clone(),
        ..Default::default()
    }
}

/// A document-store shard as planned: (first doc, docs, first position of a part, payload).
pub(crate) type DocPayload = (u32, u32, Option<u32>, Vec<u8>);

/// Each document-store shard's payload as planned, in order, handed to `each` with its
/// place: the store is the site's text again, so a build never needs it all at once.
/// Shards whose place `wanted` refuses are not encoded at all. The payloads are made on
/// every core, `UNITS_AT_A_TIME` units at a time; a unit is a shard of whole pages, or the
/// wanted parts of one long page (pieced once for all of them).
pub(crate) fn each_doc_shard(
    pages: &Pages,
    section_starts: &[Vec<u32>],
    plan: &StorePlan,
    wanted: impl Fn(usize) -> bool,
    mut each: impl FnMut(usize, DocPayload) -> Result<(), SiftError>,
) -> Result<(), SiftError> {
    let mut units: Vec<Vec<usize>> = Vec::new();
    for place in (0..plan.shards.len()).filter(|&place| wanted(place)) {
        let same_page = |unit: &Vec<usize>| match (&plan.shards[unit[0]], &plan.shards[place]) {
            (StoreShard::Part { doc: a, .. }, StoreShard::Part { doc: b, .. }) => a == b,
            _ => false,
        };
        match units.last_mut() {
            Some(unit) if same_page(unit) => unit.push(place),
            _ => units.push(vec![place]),
        }
    }
    let make = |unit: &Vec<usize>| -> Result<Vec<(usize, DocPayload)>, SiftError> {
        match plan.shards[unit[0]] {
            StoreShard::Pages { first_doc, docs: n } => {
                let stored = |(i, d): (usize, SourceDoc)| {
                    let fields = page_fields(&d);
                    StoredDoc { sections: d.sections, section_pos: section_starts[i].clone(), ..fields }
                };
                let batch: Vec<StoredDoc> = (first_doc..).zip(pages.read(first_doc..first_doc + n)?).map(stored).collect();
                Ok(vec![(unit[0], (first_doc as u32, n as u32, None, StoredDoc::encode(&batch, unit[0] as u32)))])
            }
            StoreShard::Part { doc, .. } => {
                let page = plan.pages[doc].as_ref().ok_or_else(|| SiftError::internal("a part of a page without a plan"))?;
                let (sd, labels, continues, runs) = pieced(&pages.page(doc)?, page);
                let mut out = Vec::with_capacity(unit.len());
                for &place in unit {
                    let StoreShard::Part { part, .. } = plan.shards[place] else {
                        return Err(SiftError::internal("a unit of parts holding whole pages"));
                    };
                    let mut stored_part = sd.part(runs[part]..runs[part + 1], &labels);
                    stored_part.continues = continues[runs[part]];
                    out.push((place, (doc as u32, 1, Some(page.first_pos[part]), StoredDoc::encode(&[stored_part], place as u32))));
                }
                Ok(out)
            }
        }
    };
    for window in units.chunks(UNITS_AT_A_TIME) {
        for made in par_map(window, make) {
            for (place, payload) in made? {
                each(place, payload)?;
            }
        }
    }
    Ok(())
}

/// Units of the doc store made at a time (on every core) before they are handed over.
const UNITS_AT_A_TIME: usize = 64;

#[cfg(test)]
mod doc_store_shards {
    use super::*;
    use sift_base::doc::Section;
    use sift_format::docstore::{visit_doc_fields, ANALYSIS_PIECE_BYTES};

    fn pages(n: usize, words: usize) -> Vec<SourceDoc> {
        (0..n)
            .map(|i| SourceDoc {
                id: format!("p{i}.html"),
                title: format!("Page {i}"),
                sections: vec![Section { heading: "Intro".into(), anchor: None, text: "word ".repeat(words), symbol: None }],
                ..Default::default()
            })
            .collect()
    }

    /// Each page's position layout, as the builder analyses it.
    fn layouts(docs: &[SourceDoc]) -> (Vec<Vec<u32>>, Vec<u32>) {
        docs.iter().map(|d| visit_doc_fields(d, sift_text::analyzer::Analyzer::english(), ANALYSIS_PIECE_BYTES, |_, _, _, _| {})).unzip()
    }

    /// The store as the builder writes it: (first doc, docs, first position, payload).
    fn store(docs: &[SourceDoc], target: usize, part_target: usize, cap: usize) -> (Vec<(u32, u32, Option<u32>, Vec<u8>)>, StorePlan) {
        let (starts, ends) = layouts(docs);
        let pages = Pages::of(docs.iter().cloned()).unwrap();
        let plan = plan_doc_store(&pages, &starts, &ends, target, part_target, cap).unwrap();
        let mut out = Vec::new();
        each_doc_shard(
            &pages,
            &starts,
            &plan,
            |_| true,
            |_, p| {
                out.push(p);
                Ok(())
            },
        )
        .unwrap();
        (out, plan)
    }

    fn shards(docs: &[SourceDoc], target: usize, cap: usize) -> Vec<(u32, u32)> {
        store(docs, target, 0, cap).0.into_iter().map(|(first, n, _, _)| (first, n)).collect()
    }

    #[test]
    fn a_page_above_the_target_is_alone_and_small_pages_share() {
        let mut docs = pages(3, 2000); // ~10 KB each
        docs.extend(pages(6, 100)); // ~630 bytes each
        let got = shards(&docs, 4096, MAX_DOC_SHARDS);
        assert_eq!(&got[..3], &[(0, 1), (1, 1), (2, 1)]);
        assert!(got[3..].iter().all(|&(_, n)| n > 1), "{got:?}");
        // Every page is in exactly one shard, in order.
        let mut next = 0;
        for (first, n) in got {
            assert_eq!(first, next);
            next += n;
        }
        assert_eq!(next, 9);
    }

    #[test]
    fn the_shard_count_is_capped_by_raising_the_target() {
        let docs = pages(100, 2000);
        assert_eq!(shards(&docs, 1024, MAX_DOC_SHARDS).len(), 100);
        for cap in [1, 7, 10, 33, 99] {
            let got = shards(&docs, 1024, cap);
            assert!(got.len() <= cap, "cap {cap}: {} shards", got.len());
            assert_eq!(got.iter().map(|s| s.1).sum::<u32>(), 100);
        }
        assert_eq!(shards(&docs, 1024, 0).len(), 1, "a zero cap means one shard, not a division by zero");
    }

    #[test]
    fn parts_begin_on_the_grid_and_every_token_lies_in_its_parts_stretch() {
        // Sections of 1 to 13 words, one with neither heading nor text, one long enough to
        // be cut; parts of about two sections.
        let mut page = pages(1, 1).remove(0);
        page.sections = (0..24)
            .map(|i| {
                let (heading, words) = match i {
                    5 => (String::new(), 0),
                    9 => ("Long".into(), 300),
                    _ => (format!("H{i}"), 1 + i % 13),
                };
                Section { heading, anchor: None, text: "word ".repeat(words), symbol: None }
            })
            .collect();
        let (store, plan) = store(std::slice::from_ref(&page), 4096, 100, MAX_DOC_SHARDS);
        let window = plan.window.expect("parts");
        let layout = plan.pages[0].as_ref().expect("a plan");
        assert!(store.len() > 8, "{} shards", store.len());
        let mut tokens = Vec::new();
        visit_doc_fields(&page, sift_text::analyzer::Analyzer::english(), ANALYSIS_PIECE_BYTES, |_, _, toks, _| {
            tokens.extend(toks.iter().map(|t| layout.remap(t.pos)))
        });
        let first: Vec<u32> = store.iter().map(|s| s.2.expect("a part")).collect();
        for (k, (_, _, _, payload)) in store.iter().enumerate() {
            assert_eq!(first[k], partition::window_start(k, window).unwrap(), "part {k} on its window (no glued cut here)");
            let part = StoredDoc::decode(payload, 1, k as u32).unwrap().remove(0);
            let end = first.get(k + 1).copied().unwrap_or(u32::MAX);
            assert!(part.section_pos.iter().all(|&p| p >= first[k] && p < end), "part {k}: {:?} in {}..{end}", part.section_pos, first[k]);
            assert_eq!(part.continues, k > 0 && part.sections[0].heading.is_empty(), "part {k}");
        }
        let continuing = (0..store.len()).filter(|&k| StoredDoc::decode(&store[k].3, 1, k as u32).unwrap()[0].continues).count();
        assert!(continuing > 0, "the long section is cut");
        for &t in tokens.iter().filter(|&&t| t >= window) {
            let k = first.partition_point(|&f| f <= t) - 1;
            let part = StoredDoc::decode(&store[k].3, 1, k as u32).unwrap().remove(0);
            assert!(part.section_pos[0] <= t, "token {t} in part {k}");
        }
    }

    #[test]
    fn under_a_tight_cap_parts_grow_by_quarters_before_pages_go_whole() {
        // One long page of 16 sections of ~1 KB, and two short pages.
        let mut long = pages(1, 10).remove(0);
        long.sections =
            (0..16).map(|i| Section { heading: format!("S{i}"), anchor: None, text: "word ".repeat(200), symbol: None }).collect();
        let mut docs = vec![long];
        docs.extend(pages(2, 10));
        let parts = |cap: usize| {
            let got = store(&docs, 4096, 2048, cap).0;
            assert!(got.len() <= cap.max(1), "cap {cap}: {} shards", got.len());
            got.iter().filter(|s| s.2.is_some()).count()
        };
        assert_eq!(parts(100), 8, "2 KB parts: two sections each");
        // Past the cap the parts grow a quarter at a time, so they stay as small as fits:
        // doubling would have made 4 parts where 6 fit, and 2 where 3 do.
        assert_eq!(parts(9), 8);
        assert_eq!(parts(8), 6, "three sections a part, and the short pages");
        assert_eq!(parts(7), 6);
        assert_eq!(parts(6), 4);
        assert_eq!(parts(4), 3);
        assert_eq!(parts(3), 2);
        assert_eq!(parts(2), 0, "no parts fit: the page is whole");
    }
}
