//! Expanding one typed word into other dictionary terms: prefix completions of the word
//! being typed, and fuzzy neighbours (Levenshtein automata over the fst) of a word that may
//! be misspelt. A word's expansions form one synonym group that shares one idf.

use super::plan::{self, Alt, AltKind, W_FUZZY1, W_FUZZY2, W_PREFIX};
use super::resolve::{Flow, Resolver};
use super::{Engine, ShardId};
use crate::{analyzer, fuzzy, rank};

const MAX_PREFIX_EXPANSIONS: usize = 40;
const MAX_FUZZY_EXPANSIONS: usize = 8;
/// Dictionary entries walked per prefix before giving up (a one-letter prefix of a huge
/// dictionary must stay cheap).
const MAX_PREFIX_SCAN: usize = 20_000;

/// Stems shorter than the typed word, by how many letters they drop: `configura` →
/// `configur`, whose surface form `configuration` starts with what was typed.
fn stem_cuts(folded: &str) -> Vec<String> {
    let chars: Vec<char> = folded.chars().collect();
    (1..=4usize).take_while(|&cut| chars.len() >= cut + 4).map(|cut| chars[..chars.len() - cut].iter().collect()).collect()
}

/// The term shards prefix expansion of `folded` reads.
pub(crate) fn prefix_shards(eng: &Engine, folded: &str) -> Vec<ShardId> {
    if folded.chars().count() < 2 {
        return Vec::new();
    }
    let mut out: Vec<ShardId> = eng.shards_for_prefix(folded).into_iter().map(ShardId::Terms).collect();
    out.extend(stem_cuts(folded).iter().filter_map(|s| eng.shard_for_term(s)).map(ShardId::Terms));
    out
}

/// Expansions of a partly typed word: dictionary terms starting with it, and stems the
/// typed word already runs past. Appended to `out`, which holds the word's exact forms.
pub(crate) fn prefix_alts(res: &Resolver, folded: &str, out: &mut Vec<Alt>) -> Flow<()> {
    if folded.chars().count() < 2 {
        return Ok(());
    }
    let have: Vec<String> = out.iter().flat_map(|a| a.terms.iter().map(|t| t.term.clone())).collect();
    let mut cands: Vec<(u32, String)> = Vec::new();
    for si in res.eng.shards_for_prefix(folded) {
        let shard = res.term_shard(si)?;
        use fst::{Automaton, IntoStreamer, Streamer};
        let aut = fst::automaton::Str::new(folded).starts_with();
        let mut st = shard.map.search(aut).into_stream();
        let mut seen = 0;
        while let Some((k, off)) = st.next() {
            seen += 1;
            if seen > MAX_PREFIX_SCAN {
                break;
            }
            let term = String::from_utf8_lossy(k).into_owned();
            if have.contains(&term) {
                continue;
            }
            let (df, _) = shard.header(off)?;
            cands.push((df, term));
        }
    }
    for stem in stem_cuts(folded) {
        if have.contains(&stem) {
            continue;
        }
        let Some(si) = res.eng.shard_for_term(&stem) else { continue };
        let shard = res.term_shard(si)?;
        if let Some(off) = shard.offset(&stem) {
            let (df, surface) = shard.header(off)?;
            if !surface.is_empty() && surface.starts_with(folded) {
                cands.push((df, stem));
            }
        }
    }
    cands.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    cands.dedup_by(|a, b| a.1 == b.1);
    let mut alts = Vec::new();
    for (_, term) in cands.into_iter().take(MAX_PREFIX_EXPANSIONS) {
        alts.extend(plan::alt(res, &[term], false, W_PREFIX, AltKind::Prefix)?);
    }
    let exact_df: u32 = out.iter().filter(|a| a.terms.len() == 1).map(|a| a.terms[0].pl.df).max().unwrap_or(0);
    share_group_idf(res, &mut alts, exact_df);
    out.extend(alts);
    Ok(())
}

/// Where fuzzy matching looks for neighbours.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FuzzyScope {
    /// Neighbours with the word's first letter when one is a single edit away (read from
    /// that letter's shards), else every term shard: for words the exact query does not
    /// know. Typos rarely hit the first letter, and every term shard is the whole
    /// dictionary (2.7 MB on the Python docs, for one mistyped word in a browser).
    InitialFirst,
    /// Only the shards that can hold words with the word's first letter: for optional
    /// suggestions, which must not make a browser fetch the whole dictionary.
    SameInitial,
}

/// The term shards that can hold the neighbours of `word` with its first letter: what fuzzy
/// expansion reads first (none for words too short to fuzz).
pub(crate) fn initial_shards(eng: &Engine, word: &str) -> Vec<ShardId> {
    if fuzzy::max_distance(word) == 0 {
        return Vec::new();
    }
    eng.shards_for_prefix(&word.chars().take(1).collect::<String>()).into_iter().map(ShardId::Terms).collect()
}

/// Fuzzy neighbours of a folded word: the closest first, then the most common. With
/// `InitialFirst`, neighbours sharing the word's first letter win when one is a single
/// edit away; otherwise every term shard is read.
pub(crate) fn fuzzy_alts(res: &Resolver, word: &str, scope: FuzzyScope) -> Flow<Vec<Alt>> {
    let d = fuzzy::max_distance(word);
    if d == 0 {
        return Ok(Vec::new());
    }
    let stemmed = analyzer::stem(word).into_owned();
    let same_initial = initial_shards(res.eng, word);
    res.require(same_initial.iter().copied())?;
    let mut hits = Vec::new();
    neighbours(res, &same_initial, word, &stemmed, d, &mut hits)?;
    if scope == FuzzyScope::InitialFirst {
        let initial = word.chars().next();
        // A neighbour one edit away is as close as any can be; only two edits away, one
        // with another first letter may be closer (`ubprocess` → `subprocess`).
        if hits.iter().any(|(t, dist)| *dist <= 1 && t.chars().next() == initial) {
            hits.retain(|(t, _)| t.chars().next() == initial);
        } else {
            let rest: Vec<ShardId> = (0..res.eng.term_shards.len()).map(ShardId::Terms).filter(|s| !same_initial.contains(s)).collect();
            res.require(rest.iter().copied())?;
            neighbours(res, &rest, word, &stemmed, d, &mut hits)?;
        }
    }
    let mut alts = Vec::new();
    for (term, dist) in hits {
        let w = if dist <= 1 { W_FUZZY1 } else { W_FUZZY2 };
        if let Some(a) = plan::alt(res, &[term], false, w, AltKind::Fuzzy)? {
            alts.push((dist, a));
        }
    }
    alts.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.terms[0].pl.df.cmp(&a.1.terms[0].pl.df)));
    let mut alts: Vec<Alt> = alts.into_iter().take(MAX_FUZZY_EXPANSIONS).map(|(_, a)| a).collect();
    let exact_df = res.postings(&stemmed)?.map(|pl| pl.df).unwrap_or(0);
    share_group_idf(res, &mut alts, exact_df);
    Ok(alts)
}

/// Add to `hits` the terms within distance `d` of the word or its stem in `shards`
/// (loaded), each with its smallest distance; `hits` stays in term order, each term once.
fn neighbours(res: &Resolver, shards: &[ShardId], word: &str, stemmed: &str, d: u8, hits: &mut Vec<(String, u8)>) -> Flow<()> {
    for id in shards {
        let ShardId::Terms(si) = *id else { continue };
        let shard = res.term_shard(si)?;
        for probe in [word, stemmed] {
            for h in fuzzy::fuzzy_terms(shard, probe, d, 64) {
                if h.term == stemmed || h.term == word {
                    continue;
                }
                match hits.binary_search_by(|(t, _)| t.as_str().cmp(&h.term)) {
                    Ok(k) => hits[k].1 = hits[k].1.min(h.distance),
                    Err(k) => hits.insert(k, (h.term, h.distance)),
                }
            }
        }
    }
    Ok(())
}

/// Expansions of one typed word (prefix completions, fuzzy neighbours) act as one synonym
/// group: each scores with the idf of the group's combined document frequency, so a rare
/// completion (`methods` → `methodsha256`) cannot outweigh the common word the user meant.
/// `exact_df`: document frequency of the word's own term, part of the group.
fn share_group_idf(res: &Resolver, alts: &mut [Alt], exact_df: u32) {
    let n = res.eng.manifest.doc_count;
    let group_df: u64 = u64::from(exact_df) + alts.iter().map(|a| u64::from(a.terms[0].pl.df)).sum::<u64>();
    let idf = rank::idf(n, group_df.min(u64::from(n)) as u32);
    for a in alts.iter_mut() {
        for t in a.terms.iter_mut() {
            t.idf = t.idf.min(idf);
        }
    }
}
