//! Expanding one typed word into other dictionary terms: prefix completions of the word
//! being typed, and fuzzy neighbours (Levenshtein automata over the fst) of a word that may
//! be misspelt. A word's expansions form one synonym group that shares one idf.

use super::plan::{self, Alt, AltKind};
use super::resolve::{Flow, Resolver};
use super::{Engine, ShardId};
use crate::{fuzzy, rank};

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
            // Definitions' keys (`os.getcwd.`) sort among the words they start with: they
            // are not words, and do not use up the scan.
            let Ok(term) = std::str::from_utf8(k) else { continue };
            if sift_text::symbol::is_key(term) {
                continue;
            }
            seen += 1;
            if seen > res.eng.params.prefix_scan {
                break;
            }
            let term = term.to_string();
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
    for (_, term) in cands.into_iter().take(res.eng.params.prefix_expansions) {
        alts.extend(plan::alt(res, &[term], false, res.eng.params.prefix, AltKind::Prefix)?);
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
    /// that letter's dictionary), else the whole dictionary: for words the exact query does
    /// not know. Typos rarely hit the first letter, and the whole dictionary is large.
    InitialFirst,
    /// Only the dictionary of the word's first letter: for optional suggestions, which must
    /// not make a browser fetch the whole dictionary.
    SameInitial,
}

/// A dictionary term near a typed word.
pub(crate) struct Neighbour {
    term: String,
    /// The fewest edits from the word as typed or from its stem (what weighs its matches).
    distance: u8,
    /// The fewest edits from the word as typed. A typo is made in a word, not in its stem,
    /// so a neighbour only that near the stem ranks one edit further (`threding`:
    /// `threading`, then `three`, whose stem is one edit from `thred`).
    typed: Option<u8>,
    /// The nearest way of writing the term found near the word as typed (a vocabulary's
    /// spelling, see `bundle::vocabulary`, or a term indexed as written), with
    /// its distance: what a "did you mean" shows, rather than the term's most common
    /// spelling (`itertor`: `iterator`, not `iterable`, both stemmed to `iter`).
    written: Option<(u8, String)>,
    df: u32,
}

impl Neighbour {
    /// How far the neighbour ranks: its edits from the word as typed, or one more than from
    /// the word's stem.
    fn rank(&self) -> u8 {
        self.typed.unwrap_or(u8::MAX).min(self.distance.saturating_add(1))
    }

    /// Closest first; among equals, the most common.
    fn order(&self, other: &Neighbour) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank()).then_with(|| other.df.cmp(&self.df))
    }
}

/// A fuzzy word's alternatives and how its nearest neighbour is written, when the
/// vocabulary said (else the "did you mean" shows the term's most common spelling).
pub(crate) struct Fuzzed {
    pub alts: Vec<Alt>,
    pub written: Option<String>,
}

/// The vocabulary shards that hold the terms starting with `prefix` (terms, spellings and
/// document frequencies, no postings).
fn dictionary_shards(eng: &Engine, prefix: &str) -> Vec<ShardId> {
    eng.vocab_shards_for_prefix(prefix).into_iter().map(ShardId::Vocabulary).collect()
}

/// A small site's vocabulary, when `word` may be mistyped: asked for with the words' term
/// shards, so a typo costs no round of its own. A vocabulary of one shard is a few kB (a
/// shard holds whole letters up to a few kB of keys); a bigger site's letters are read only
/// once a word turns out unknown.
pub(crate) fn whole_small_vocabulary(eng: &Engine, word: &str) -> Option<ShardId> {
    (eng.manifest.vocabulary.len() == 1 && fuzzy::max_distance(word) > 0).then_some(ShardId::Vocabulary(0))
}

/// The shards that hold the neighbours of `word` with its first letter: what fuzzy matching
/// reads first (none for words too short to fuzz).
pub(crate) fn initial_shards(eng: &Engine, word: &str) -> Vec<ShardId> {
    if fuzzy::max_distance(word) == 0 {
        return Vec::new();
    }
    dictionary_shards(eng, &word.chars().take(1).collect::<String>())
}

/// Fuzzy neighbours of each of `words` (folded), read from the dictionaries alone: the
/// closest first, then the most common, at most `fuzzy_expansions` a word. With
/// `InitialFirst`, neighbours sharing a word's first letter win when one is a single edit
/// away; otherwise the whole dictionary is read. Every word's first-letter dictionaries
/// are asked for in one round, and the whole dictionary (for the words that need it) in at
/// most one more.
pub(crate) fn fuzzy_neighbours(res: &Resolver, words: &[String], scope: FuzzyScope) -> Flow<Vec<Vec<Neighbour>>> {
    let initials: Vec<Vec<ShardId>> = words.iter().map(|w| initial_shards(res.eng, w)).collect();
    res.require(initials.iter().flatten().copied())?;
    // Per word: its hits so far, and whether it needs the rest of the dictionary.
    let mut found: Vec<(Vec<Neighbour>, bool)> = Vec::with_capacity(words.len());
    for (word, same_initial) in words.iter().zip(&initials) {
        let mut hits = Vec::new();
        neighbours(res, same_initial, word, &mut hits)?;
        let initial = word.chars().next();
        // A neighbour one edit away is as close as any can be; only two edits away, one
        // with another first letter may be closer (`ubprocess` → `subprocess`).
        let whole = scope == FuzzyScope::InitialFirst
            && fuzzy::max_distance(word) > 0
            && !hits.iter().any(|h| h.distance <= 1 && h.term.chars().next() == initial);
        if scope == FuzzyScope::InitialFirst && !whole {
            hits.retain(|h| h.term.chars().next() == initial);
        }
        found.push((hits, whole));
    }
    if found.iter().any(|f| f.1) {
        res.require(dictionary_shards(res.eng, ""))?;
    }
    for ((word, same_initial), (hits, whole)) in words.iter().zip(&initials).zip(found.iter_mut()) {
        if *whole {
            let rest: Vec<ShardId> = dictionary_shards(res.eng, "").into_iter().filter(|s| !same_initial.contains(s)).collect();
            neighbours(res, &rest, word, hits)?;
        }
        // Stable: among equals, term order.
        hits.sort_by(Neighbour::order);
        hits.truncate(res.eng.params.fuzzy_expansions);
    }
    Ok(found.into_iter().map(|f| f.0).collect())
}

/// The term shards turning `picks` into alternatives reads: theirs, and the shard of the
/// word's stem (whose document frequency the group shares).
fn neighbour_shards(eng: &Engine, word: &str, picks: &[Neighbour]) -> Vec<ShardId> {
    let stemmed = eng.analyzer.stem(word);
    picks.iter().map(|n| n.term.as_str()).chain([&*stemmed]).filter_map(|t| eng.shard_for_term(t)).map(ShardId::Terms).collect()
}

/// The alternatives of a word's fuzzy neighbours (`picks`, from [`fuzzy_neighbours`]), in
/// their order: one synonym group with the word. Reads the term shards
/// [`neighbour_shards`] names ([`fuzzy_alts`] asks for every word's in one round).
fn alts_of(res: &Resolver, word: &str, picks: &[Neighbour]) -> Flow<Fuzzed> {
    let mut alts = Vec::new();
    let mut written = None;
    for n in picks {
        let w = if n.distance <= 1 { res.eng.params.fuzzy1 } else { res.eng.params.fuzzy2 };
        let alt = plan::alt(res, std::slice::from_ref(&n.term), false, w, AltKind::Fuzzy)?;
        if alts.is_empty() && alt.is_some() {
            written = n.written.as_ref().map(|w| w.1.clone());
        }
        alts.extend(alt);
    }
    let exact_df = res.postings(&res.eng.analyzer.stem(word))?.map(|pl| pl.df).unwrap_or(0);
    share_group_idf(res, &mut alts, exact_df);
    Ok(Fuzzed { alts, written })
}

/// Fuzzy alternatives of each of `words` (folded): every word's dictionaries are read
/// together ([`fuzzy_neighbours`]), then every chosen neighbour's term shards in one round
/// more — with a vocabulary, a few term shards instead of all of a letter's.
pub(crate) fn fuzzy_alts(res: &Resolver, words: &[String], scope: FuzzyScope) -> Flow<Vec<Fuzzed>> {
    let picks = fuzzy_neighbours(res, words, scope)?;
    res.require(words.iter().zip(&picks).flat_map(|(w, p)| neighbour_shards(res.eng, w, p)))?;
    words.iter().zip(&picks).map(|(w, p)| alts_of(res, w, p)).collect()
}

/// For each word (folded) and document frequency: the most common fuzzy neighbour with the
/// word's first letter that is at least that frequent, as people write it — a "did you
/// mean" for a rare word. Reads the letters' dictionaries, then only those neighbours' term
/// shards.
pub(crate) fn common_neighbours(res: &Resolver, words: &[String], min_df: &[u32]) -> Flow<Vec<Option<String>>> {
    let picks = fuzzy_neighbours(res, words, FuzzyScope::SameInitial)?;
    let best: Vec<Option<&Neighbour>> =
        picks.iter().zip(min_df).map(|(p, &min)| p.iter().filter(|n| n.df >= min).max_by_key(|n| n.df)).collect();
    res.require(best.iter().flatten().filter_map(|n| res.eng.shard_for_term(&n.term)).map(ShardId::Terms))?;
    best.into_iter()
        .map(|n| {
            let Some(n) = n else { return Ok(None) };
            let known = plan::rterm(res, &n.term)?;
            Ok(known.map(|t| n.written.as_ref().map_or_else(|| t.surface(), |w| w.1.clone())))
        })
        .collect()
}

/// Add to `hits` the terms within the word's typo distance of it or its stem in the
/// vocabulary shards `shards` (loaded), each with its smallest distance; `hits` stays in
/// term order, each term once.
fn neighbours(res: &Resolver, shards: &[ShardId], word: &str, hits: &mut Vec<Neighbour>) -> Flow<()> {
    let d = fuzzy::max_distance(word);
    if d == 0 {
        return Ok(());
    }
    let stemmed = res.eng.analyzer.stem(word);
    let stemmed = &*stemmed;
    for id in shards {
        let ShardId::Vocabulary(vi) = *id else { continue };
        // A term or a spelling of it → its df (`VocabShard::key`).
        let vocab = res.vocab_shard(vi)?;
        for probe in [word, stemmed] {
            for h in fuzzy::fuzzy_terms(&vocab.map, probe, d, res.eng.params.fuzzy_hits_per_shard) {
                let k = vocab.key(&res.eng.analyzer, &h.term, h.value);
                let (term, df, spelling, marked) = (k.term.into_owned(), k.df, k.spelling, k.written);
                // A spelling stands for its stem: near the word as typed, it is a
                // neighbour at that distance; near the typed word's stem it means nothing
                // (a stem is not a spelling).
                if spelling && probe != word {
                    continue;
                }
                if term == stemmed || term == word {
                    continue;
                }
                let typed = (probe == word).then_some(h.distance);
                // How the neighbour is written, when the key says: a spelling is, a term
                // the vocabulary marks as written is, and so is a term that stemming would
                // change (it was indexed as written: a path's word, an identifier).
                let literal = marked || res.eng.analyzer.stem(&h.term) != h.term;
                let written = (typed.is_some() && literal).then_some((h.distance, h.term));
                add_hit(hits, Neighbour { term, distance: h.distance, typed, written, df });
            }
        }
    }
    Ok(())
}

/// Add a neighbour to `hits` (in term order, each term once), or merge it into the one of
/// the same term: the smaller distances, the nearer written form.
fn add_hit(hits: &mut Vec<Neighbour>, hit: Neighbour) {
    match hits.binary_search_by(|n| n.term.cmp(&hit.term)) {
        Ok(k) => {
            let n = &mut hits[k];
            n.distance = n.distance.min(hit.distance);
            n.typed = n.typed.into_iter().chain(hit.typed).min();
            if hit.written.as_ref().is_some_and(|w| n.written.as_ref().is_none_or(|have| w.0 < have.0)) {
                n.written = hit.written;
            }
        }
        Err(k) => hits.insert(k, hit),
    }
}

/// Expansions of one typed word (prefix completions, fuzzy neighbours) act as one synonym
/// group: each scores with the idf of the group's combined document frequency, so a rare
/// completion (`methods` → `methodsha256`) cannot outweigh the common word the user meant.
/// `exact_df`: document frequency of the word's own term, part of the group.
fn share_group_idf(res: &Resolver, alts: &mut [Alt], exact_df: u32) {
    let n = res.eng.live_docs();
    let group_df: u64 = u64::from(exact_df) + alts.iter().map(|a| u64::from(a.terms[0].pl.df)).sum::<u64>();
    let idf = rank::idf(n, group_df.min(u64::from(n)) as u32);
    for a in alts.iter_mut() {
        for t in a.terms.iter_mut() {
            t.idf = t.idf.min(idf);
        }
    }
}
