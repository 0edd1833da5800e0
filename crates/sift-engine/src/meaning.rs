//! The semantic half of a search: the query's vector — from the bundle's static encoder
//! (WordPiece tokens → rows → sum → normalise, no model), or from the host's model
//! (projected into the bundle's space) — and the documents nearest to it.
//!
//! A bundle partitions its vectors into lists, and its lists into groups; a query reads the
//! groups nearest to it, then the lists nearest to it in those groups until it has covered
//! the bundle's probe budget of vectors (both budgets grow when filters narrow the
//! candidates).

use super::collect::Filter;
use super::resolve::{Flow, Resolver};
use super::score::{prior, sort_hits, Hit};
use super::{shards::ShardId, Engine};
use crate::params::RankingParams;
use crate::query::{self, Item};
use sift_base::hashing::HashMap;
use sift_format::encoder::{word_group, EncoderIndex, WORD_KEY_CHARS};
use sift_format::vindex::normalise;
use sift_text::wordpiece::{self, Vocab, MAX_TOKENS};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

/// The words and phrases of a query, without operators, exclusions or `field:value`
/// filters: what it means.
pub(crate) fn semantic_text(query: &str, filter_fields: &[String]) -> String {
    let parsed = query::parse(query, |f| filter_fields.iter().any(|x| x == f));
    let mut words: Vec<&str> = Vec::new();
    for g in parsed.groups.iter().filter(|g| !g.negated) {
        for item in &g.items {
            words.push(match item {
                Item::Word(w) => w,
                Item::Phrase(p) => p,
            });
        }
    }
    words.join(" ")
}

/// What the semantic side reads in the search's first round: the vector index and the
/// vocabulary groups the text's words start in. Those depend on nothing else, and asked
/// with the lexical side's shards they save the encoder a round trip of its own (its rows,
/// then the nearest lists, still need one each).
pub(crate) fn first_round(eng: &Engine, host_vector: bool, text: &str) -> Vec<ShardId> {
    let mut ids = vec![ShardId::VectorIndex];
    if let (false, Some(ix)) = (host_vector, eng.encoder_index.as_ref()) {
        ids.extend(first_piece_groups(ix, &wordpiece::words(text)));
    }
    ids
}

/// The vocabulary groups that hold the first pieces of `words` — the tokens that start with
/// a word's first three characters. A word none of them begins (a rare one) starts with a
/// prefix of one or two characters as a token of its own, in another group: that one is
/// read when a lookup misses it (`LoadedVocab`), as continuation groups are. A word the
/// site uses is in its group whole, pieces and all; so most queries read one group a word,
/// and one more for each continuation a word the site does not use needs.
fn first_piece_groups<'a>(ix: &'a EncoderIndex, words: &'a [String]) -> impl Iterator<Item = ShardId> + 'a {
    words.iter().map(|w| ShardId::EncoderVocab(word_group(w, ix.n_word_groups)))
}

/// The query's unit vector in the bundle's space; None when nothing in the text has a
/// meaning the encoder knows (every word unknown to the corpus).
pub(crate) fn query_vector(res: &Resolver, text: &str, host: Option<&[f32]>) -> Flow<Option<Vec<f32>>> {
    match host {
        Some(v) => {
            res.require([ShardId::VectorIndex])?;
            let q = res.projection()?.apply_normalised(v);
            Ok(q.iter().any(|x| *x != 0.0).then_some(q))
        }
        None => encode(res, text),
    }
}

/// The bundle's vocabulary as far as its groups are loaded; a lookup in a group that is
/// not records the group, so the search can fetch it and tokenise again. `word` is the word
/// being cut; `continued`: a continuation of it was found.
struct LoadedVocab<'a> {
    res: &'a Resolver<'a>,
    word: Cell<&'a str>,
    continued: Cell<bool>,
    missing: RefCell<BTreeSet<usize>>,
}

impl Vocab for LoadedVocab<'_> {
    fn id(&self, piece: &str) -> Option<u32> {
        let ix = self.res.eng.encoder_index.as_ref()?;
        let g = ix.group_of(piece);
        let Some(group) = self.res.encoder_vocab_if_loaded(g) else {
            let mut missing = self.missing.borrow_mut();
            missing.insert(g);
            match piece.strip_prefix("##") {
                // A word that needs a second continuation may need many (a pasted hash cuts
                // into one piece a character): every later character's group comes in
                // this round, so no word takes more than two rounds of continuations.
                Some(rest) if self.continued.get() => {
                    missing.extend(rest.char_indices().map(|(i, _)| ix.continuation_group_of(&rest[i..])));
                }
                Some(_) => {}
                // A first piece shorter than a group's key is only looked up when no longer
                // piece begins the word, and the rest of the word then needs a
                // continuation: its group comes in the same round.
                None => {
                    let rest = self.word.get().get(piece.len()..).unwrap_or("");
                    if piece.chars().nth(WORD_KEY_CHARS - 1).is_none() && !rest.is_empty() {
                        missing.insert(ix.continuation_group_of(rest));
                    }
                }
            }
            return None;
        };
        let row = group.row(piece);
        if row.is_some() && piece.starts_with("##") {
            self.continued.set(true);
        }
        row
    }
}

/// The static encoder: the text's WordPiece tokens over the bundle's vocabulary, their
/// rows summed, normalised. Reads the vocabulary groups of its words' first three
/// characters, which hold the site's words whole (with their pieces), then — where a word
/// is not one of those and needs them — its first continuation's group, and in one
/// more round every later character's group if it needs more, or its shorter prefixes'
/// groups; then the row shards of the tokens found.
fn encode(res: &Resolver, text: &str) -> Flow<Option<Vec<f32>>> {
    let eng = res.eng;
    let Some(ix) = eng.encoder_index.as_ref() else { return Ok(None) };
    let words = wordpiece::words(text);
    res.require(first_piece_groups(ix, &words))?;
    let vocab = LoadedVocab { res, word: Cell::new(""), continued: Cell::new(false), missing: RefCell::new(BTreeSet::new()) };
    let mut rows: Vec<u32> = Vec::new();
    for word in &words {
        // A word the site uses, stored whole with its pieces: no continuation to look up.
        let group = res.encoder_vocab_if_loaded(word_group(word, ix.n_word_groups));
        if !group.is_some_and(|g| g.whole_word(word, &mut rows)) {
            vocab.word.set(word);
            vocab.continued.set(false);
            wordpiece::word_pieces(&vocab, word, &mut rows);
        }
        if rows.len() >= MAX_TOKENS - 2 {
            rows.truncate(MAX_TOKENS - 2);
            break;
        }
    }
    // A continuation (`##`) or a lone first character found its group missing: fetch it
    // and cut the words again.
    res.require(vocab.missing.into_inner().into_iter().map(ShardId::EncoderVocab))?;
    let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
    for r in rows {
        *counts.entry(r).or_insert(0) += 1;
    }
    res.require(counts.keys().map(|&r| ShardId::EncoderRows(ix.locate(r).0)))?;
    let mut q = vec![0f32; ix.dim];
    for (&r, &c) in &counts {
        let (shard, at) = ix.locate(r);
        let row = res.encoder_rows(shard)?.row(at);
        for (x, v) in q.iter_mut().zip(row) {
            *x += c as f32 * v;
        }
    }
    normalise(&mut q);
    Ok(q.iter().any(|x| *x != 0.0).then_some(q))
}

/// Pseudo-relevance feedback in the vector space (Rocchio): the query's vector plus the
/// normalised sum of the chunk vectors of the best fused answers, normalised. Reads only
/// vector lists already loaded, so it costs no extra round of fetches. None when nothing
/// of those answers was loaded.
pub(crate) fn feedback(res: &Resolver, q: &[f32], fused: &[Hit]) -> Option<Vec<f32>> {
    let eng = res.eng;
    let mut sum = vec![0f32; q.len()];
    for h in fused.iter().take(eng.params.rocchio_docs) {
        for (_, set) in res.loaded_vector_lists() {
            set.add_doc_vectors(h.doc, &mut sum);
        }
    }
    normalise(&mut sum);
    if sum.iter().all(|x| *x == 0.0) {
        return None;
    }
    let mut q2: Vec<f32> = q.iter().zip(&sum).map(|(a, b)| a + eng.params.rocchio_weight * b).collect();
    normalise(&mut q2);
    Some(q2)
}

/// A document's two best chunk cosines.
#[derive(Clone, Copy, Debug)]
struct TwoBest(f32, f32);

impl Default for TwoBest {
    fn default() -> Self {
        TwoBest(f32::MIN, f32::MIN)
    }
}

impl TwoBest {
    fn add(&mut self, cos: f32) {
        if cos > self.0 {
            self.1 = self.0;
            self.0 = cos;
        } else if cos > self.1 {
            self.1 = cos;
        }
    }
}

/// Each document's score from its chunks: its best cosine, plus `second_chunk_weight` times
/// the margin by which its second-best chunk clears the best cosine of the document at
/// `evidence_rank` (of the last document, in a shorter list). Why: a page with two sections
/// that each answer the query is more likely the page about it than a page that touches it
/// once, and on docs sites the answer page is often long (functools, logging, asyncio).
/// A single-chunk document loses nothing, and a weak second section adds nothing, so short
/// abstracts rank as before.
fn doc_scores(best: HashMap<u32, TwoBest>, p: &RankingParams) -> Vec<(u32, f32)> {
    let mut firsts: Vec<f32> = best.values().map(|b| b.0).collect();
    firsts.sort_by(|a, b| b.total_cmp(a));
    let threshold = firsts.get(p.evidence_rank).or(firsts.last()).copied().unwrap_or(0.0);
    best.into_iter().map(|(doc, b)| (doc, b.0 + p.second_chunk_weight * (b.1 - threshold).max(0.0))).collect()
}

/// `semantic_hits` over the vector lists already loaded (no probe, no fetch).
pub(crate) fn semantic_hits_in_loaded_lists(res: &Resolver, q: &[f32], depth: usize, filter: &Filter) -> Flow<Vec<Hit>> {
    let loaded: Vec<usize> = res.loaded_vector_lists().map(|(l, _)| l).collect();
    best_of_lists(res, q, depth, filter, Some(loaded))
}

/// Documents by meaning: the best chunks for the query, a document scoring by its chunks
/// (`doc_scores`: its best, and a second that would make the first page by itself; floored
/// at 0, times the document's navigation prior), hard constraints applied. Best first, at
/// most `depth`.
pub(crate) fn semantic_hits(res: &Resolver, q: &[f32], depth: usize, filter: &Filter) -> Flow<Vec<Hit>> {
    best_of_lists(res, q, depth, filter, None)
}

/// The lists a query reads: with one list, it; with the lists' centroids in the index, the
/// nearest lists until the probe budget of vectors; else the groups nearest to `q` until
/// they hold the groups' budget of vectors, then the lists nearest to `q` in them until
/// the probe budget. A filter that admits a fraction f of the documents reads 1/f times the
/// vectors, so about as many admissible ones reach the ranking.
fn nearest_lists(res: &Resolver, q: &[f32], admitted: f64) -> Flow<Vec<usize>> {
    let eng = res.eng;
    let ix = res.vector_index()?;
    let budget = |probe: u32, scale: f32| {
        if admitted > 0.0 {
            (f64::from(probe) * f64::from(scale) / admitted).ceil() as usize
        } else {
            0
        }
    };
    let p = &eng.params;
    if let Some(lists) = ix.lists_without_groups(q, budget(ix.probe, p.probe_scale)) {
        return Ok(lists);
    }
    let groups = ix.groups_for(q, budget(ix.groups.probe, p.probe_scale * p.group_scale));
    res.require(groups.iter().map(|&g| ShardId::ListGroup(g)))?;
    let loaded = groups.iter().map(|&g| res.list_group(g).map(|centroids| (g, centroids))).collect::<Flow<Vec<_>>>()?;
    Ok(ix.lists_in(loaded, q, budget(ix.probe, p.probe_scale)))
}

/// `lists`: which vector lists to read (None: probe the nearest ones).
fn best_of_lists(res: &Resolver, q: &[f32], depth: usize, filter: &Filter, lists: Option<Vec<usize>>) -> Flow<Vec<Hit>> {
    let eng = res.eng;
    let mut best: HashMap<u32, TwoBest> = HashMap::default();
    let mut take = |doc: u32, cos: f32| {
        if filter.admits(doc) {
            best.entry(doc).or_default().add(cos);
        }
    };
    res.require([ShardId::VectorIndex])?;
    let lists = match lists {
        Some(l) => l,
        None => nearest_lists(res, q, filter.admitted_fraction())?,
    };
    // The delta's vector list (if any) is fetched with the base's lists: one round.
    let delta_list = eng.delta.as_ref().and_then(|d| d.missing_vectors()).filter(|_| cfg!(feature = "semantic"));
    res.require_with(lists.iter().map(|&l| ShardId::VectorList(l)), delta_list)?;
    for l in lists {
        let set = res.vector_list(l)?;
        for (i, cos) in set.search(q, set.len()) {
            take(set.doc_of[i], cos);
        }
    }
    // The pages changed since the build (a delta's list, searched whole: it is small).
    if let Some((set, first_doc)) = eng.delta_vectors() {
        for (i, cos) in set.search(q, set.len()) {
            take(set.doc_of[i] + first_doc, cos);
        }
    }
    // A navigation page (mostly links) ranks below content for the same match, by meaning
    // as by words: its prior multiplies the cosine as it multiplies BM25F.
    let meta = res.docmeta()?;
    let mut hits: Vec<Hit> = doc_scores(best, &eng.params)
        .into_iter()
        .map(|(doc, s)| Hit { doc, score: s.clamp(0.0, 1.0) * prior(meta, doc, &eng.params) })
        .collect();
    sort_hits(&mut hits);
    hits.truncate(depth);
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::DEFAULT;

    fn scores(chunks: &[(u32, f32)]) -> Vec<(u32, f32)> {
        let mut best: HashMap<u32, TwoBest> = HashMap::default();
        for &(doc, cos) in chunks {
            best.entry(doc).or_default().add(cos);
        }
        let mut s = doc_scores(best, &DEFAULT);
        s.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        s
    }

    #[test]
    fn a_page_with_two_answering_sections_outranks_one_that_touches_the_query_once() {
        // Doc 0: two strong sections; doc 1: one slightly stronger section; 25 weaker pages
        // set the threshold at 0.30.
        let mut chunks = vec![(0, 0.60), (0, 0.55), (1, 0.62)];
        chunks.extend((2..27).map(|d| (d, 0.30)));
        let s = scores(&chunks);
        assert_eq!(s[0].0, 0);
        assert!((s[0].1 - (0.60 + DEFAULT.second_chunk_weight * (0.55 - 0.30))).abs() < 1e-6, "{s:?}");
        assert_eq!(s[1], (1, 0.62), "a single-chunk page keeps its best cosine");
    }

    #[test]
    fn a_weak_second_section_adds_nothing() {
        let mut chunks = vec![(0, 0.60), (0, 0.20), (1, 0.62)];
        chunks.extend((2..27).map(|d| (d, 0.30)));
        let s = scores(&chunks);
        assert_eq!(&s[..2], &[(1, 0.62), (0, 0.60)]);
    }

    #[test]
    fn in_a_short_list_the_last_document_sets_the_threshold() {
        // Three documents: the threshold is the third's best (0.40); one document alone
        // keeps its best cosine whatever its other chunks.
        let s = scores(&[(0, 0.50), (0, 0.45), (1, 0.48), (2, 0.40)]);
        assert!((s[0].1 - (0.50 + DEFAULT.second_chunk_weight * 0.05)).abs() < 1e-6, "{s:?}");
        assert_eq!(scores(&[(7, 0.5), (7, 0.49)]), vec![(7, 0.5)]);
    }
}
