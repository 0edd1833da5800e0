//! Definitions: a query that is one identifier or path (`json.dumps`, `Vec::with_capacity`,
//! `sorted`) looks up the API entries the build recognised, by their keys in the term
//! dictionary (`symbol`: one key per tail of each path), and the pages defining it rank
//! first, their results linking to the entry (`present`).
//!
//! Which definition comes first: a path as typed before one completed from what is being
//! typed (`Vec::with_capa`); a name capitalised as typed before one that is not (`Clone`
//! the trait before `clone` the methods); the one the query names most completely — its
//! whole path before a tail of a longer one (`open` is the builtin before `os.open`);
//! among equals, the page's own score.

use super::resolve::{Flow, Resolver};
use super::score::{sort_hits, Hit};
use super::{Engine, ShardId};
use sift_format::terms::PostingList;
use sift_text::symbol::{self, QueryKey};

/// Keys a query being typed completes to, at most.
const MAX_COMPLETIONS: usize = 24;
/// Pages ranked first for their definitions, at most.
const MAX_DEFINING_PAGES: usize = 20;
/// Term shards a completion reads, at most (a prefix's keys are nearly always in one).
const MAX_COMPLETION_SHARDS: usize = 2;
/// How much worse a completed path ranks than a path as typed.
const COMPLETED: u32 = 1_000;
/// How much worse a definition whose name's first letter differs in case from the
/// query's ranks (`Clone` asks for the trait before the `clone` methods).
const CASE_DIFFERS: u32 = 100;

/// A page defining what the query names: where the definition's section starts, and how
/// well it matches (lower is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Defining {
    pub doc: u32,
    pub pos: u32,
    rank: u32,
}

/// A path's parts as words (`os.getcwdd` → `os getcwdd`), when it has several.
pub(crate) fn parts_as_words(query: &str) -> Option<String> {
    let parts = symbol::components(query.trim().trim_end_matches([':', '.', '#', '/']))?;
    (parts.len() > 1).then(|| parts.join(" "))
}

/// The term shards the lookup reads.
pub(crate) fn shards(eng: &Engine, key: &QueryKey) -> Vec<ShardId> {
    let apart = key.apart.iter().flat_map(|(c, n)| [c, n]);
    let mut out: Vec<usize> = key.exact.iter().chain(apart).filter_map(|k| eng.shard_for_term(k)).collect();
    out.sort_unstable();
    out.dedup();
    if !key.prefix.is_empty() {
        out.extend(eng.shards_for_prefix(&key.prefix).into_iter().take(MAX_COMPLETION_SHARDS));
    }
    out.into_iter().map(ShardId::Terms).collect()
}

/// The pages defining what the query names, each with its best definition (their shards
/// must be loaded).
pub(crate) fn lookup(res: &Resolver, key: &QueryKey, admits: &dyn Fn(u32) -> bool) -> Flow<Vec<Defining>> {
    let mut keys: Vec<(String, u32)> = key.exact.iter().map(|k| (k.clone(), 0)).collect();
    if !key.prefix.is_empty() {
        for si in res.eng.shards_for_prefix(&key.prefix).into_iter().take(MAX_COMPLETION_SHARDS) {
            let shard = res.term_shard(si)?;
            // (The automaton word completion uses too: one instance of the stream's code.)
            use fst::{Automaton, IntoStreamer, Streamer};
            let mut stream = shard.map.search(fst::automaton::Str::new(&key.prefix).starts_with()).into_stream();
            while let Some((k, _)) = stream.next() {
                let Ok(k) = std::str::from_utf8(k) else { continue };
                if symbol::is_key(k) && !keys.iter().any(|(x, _)| x == k) && keys.len() <= MAX_COMPLETIONS {
                    keys.push((k.to_string(), COMPLETED));
                }
            }
        }
    }
    let mut found: Vec<Defining> = Vec::new();
    for (k, base) in keys {
        if let Some(pl) = res.postings(&k)? {
            add(&mut found, &pl, base, key.capital, &|doc| admits(doc));
        }
    }
    // Nothing defined as typed: the name on a page that also defines what the words before
    // it name (a module's page holds its classes' methods).
    if let (true, Some((container, name))) = (found.is_empty(), &key.apart) {
        if let (Some(c), Some(n)) = (res.postings(container)?, res.postings(name)?) {
            add(&mut found, &n, 0, key.capital, &|doc| c.docs.binary_search(&doc).is_ok() && admits(doc));
        }
    }
    Ok(found)
}

/// Each page of `pl` that `on` admits, with its best definition of the key, into `found`.
fn add(found: &mut Vec<Defining>, pl: &PostingList, base: u32, capital_asked: bool, on: &dyn Fn(u32) -> bool) {
    for (i, &doc) in pl.docs.iter().enumerate() {
        let (Some(&pos), true) = (pl.positions_of(i).first(), on(doc)) else { continue };
        let (left_out, capital) = symbol::key_tf(pl.tf[i][sift_format::fields::FIELD_HEADINGS]);
        let case = if capital == capital_asked { 0 } else { CASE_DIFFERS };
        let d = Defining { doc, pos, rank: base + case + left_out };
        match found.iter_mut().find(|f| f.doc == doc) {
            Some(f) if f.rank > d.rank => *f = d,
            Some(_) => {}
            None => found.push(d),
        }
    }
}

/// The pages defining the query first, in the order of their definitions and then of
/// their scores, scored as the best page (so scores still read best first); the rest
/// after them as they were.
pub(crate) fn rank_first(hits: &mut Vec<Hit>, defining: &[Defining]) {
    if defining.is_empty() {
        return;
    }
    let top = hits.iter().map(|h| h.score).fold(0.0f32, f32::max);
    let score_of = |doc: u32| hits.iter().find(|h| h.doc == doc).map_or(0.0, |h| h.score);
    // Ordered as hits are (best first, then by doc): a definition's rank in whole steps,
    // its page's score (0..1) between them.
    let mut order: Vec<Hit> = defining.iter().map(|d| Hit { doc: d.doc, score: 0.5 * score_of(d.doc) - d.rank as f32 }).collect();
    sort_hits(&mut order);
    order.truncate(MAX_DEFINING_PAGES);
    let top = if top > 0.0 { top } else { 1.0 };
    let rest: Vec<Hit> = hits.iter().filter(|h| !order.iter().any(|f| f.doc == h.doc)).copied().collect();
    order.iter_mut().for_each(|h| h.score = top);
    order.extend(rest);
    *hits = order;
}
