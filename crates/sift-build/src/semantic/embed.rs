//! Embedding a corpus for the semantic half of a bundle: every chunk, and — for the static
//! query encoder — every title, heading and sentence and every token they use, alone.
//!
//! The model is the host's (`sift_embed`'s, run by tract, in the CLI): the builder calls it
//! through [`Model`], one tokenized text at a time, and tokenizes with its `Tokenizer`.
//!
//! Each token sequence is embedded by itself: in a batch, a text's row position and the
//! padding change its last bits, and then a rebuild that embeds only what changed would
//! not give the bundle a clean build gives. Embeddings are looked up in (and added to) an
//! `EmbeddingStore` by the hash of their token ids: the CLI's store is a file cache, tests
//! use memory. The same keys split the work over machines (`part_of`): each embeds its
//! part into the store, and the build then finds everything there.
//!
//! The model's share is bounded by a budget of tokens (`Layout::model_budget`): a site
//! whose chunks and training texts fit in it is read whole, and its chunks' vectors are
//! the model's; a larger one is sampled, each text in the order of its key (a hash of its
//! tokens: neither page order nor an edit elsewhere moves it), each that still fits
//! (`sample`). If the chunks alone fit, the model reads them all and the other texts that
//! fit after them, and the chunks' vectors stay the model's; otherwise titles, headings
//! and sentences take up to half the budget, then the chunks, and every chunk's vector is
//! the static encoder's, fitted to the sample (`DocVectors::Fitted`). The tokens of the
//! vocabulary alone are not counted: `sift model fetch` embeds them once per model.

use super::encoder::EncoderInput;
use super::fit::TrainingText;
use super::layout::{DocVectors, SemanticInput};
use super::tokens::TokenRuns;
use super::training::{TrainingTexts, MAX_SENTENCES};
use crate::pages::PageBatches;
use crate::par_map;
use sift_base::error::{ErrorCode, SiftError};
use sift_embed::{EmbedError, Tokenizer};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A store key: the first 16 bytes of the BLAKE3 hash of the token ids (LE u32).
pub type Key = [u8; 16];

/// The model as the builder calls it: one tokenized text (`[CLS] … [SEP]`) in, its
/// L2-normalised embedding out, and the tokenizer it cuts texts with.
pub struct Model<'a> {
    pub tokenizer: Tokenizer,
    /// The dimension of its vectors.
    pub dim: usize,
    pub embed: Box<dyn Fn(&[u32]) -> Result<Vec<f32>, EmbedError> + Sync + 'a>,
}

impl Model<'_> {
    fn embed(&self, ids: &[u32]) -> Result<Vec<f32>, SiftError> {
        (self.embed)(ids).map_err(|e| SiftError::new(ErrorCode::EmbedderUnavailable, e.0))
    }
}

pub fn key(ids: &[u32]) -> Key {
    // The ids' bytes handed to the hasher a block at a time: one call an id cost more than
    // the hashing (a big site's chunks hold tens of millions of ids). The same hash.
    let mut h = blake3::Hasher::new();
    let mut bytes = [0u8; 1024];
    for block in ids.chunks(bytes.len() / 4) {
        for (b, id) in bytes.chunks_exact_mut(4).zip(block) {
            b.copy_from_slice(&id.to_le_bytes());
        }
        h.update(&bytes[..block.len() * 4]);
    }
    let mut k = [0u8; 16];
    k.copy_from_slice(&h.finalize().as_bytes()[..16]);
    k
}

/// Embeddings by key.
pub trait EmbeddingStore {
    /// A copy: a store on disk reads it as it is asked for.
    fn get(&self, key: &Key) -> Option<Vec<f32>>;
    fn contains(&self, key: &Key) -> bool;
    fn insert(&mut self, key: Key, v: Vec<f32>);
    /// Called between batches while embedding: a store on disk writes what it got so far,
    /// so a build that is stopped keeps the work it has done.
    fn checkpoint(&mut self) {}
}

impl EmbeddingStore for HashMap<Key, Vec<f32>> {
    fn get(&self, key: &Key) -> Option<Vec<f32>> {
        HashMap::get(self, key).cloned()
    }
    fn contains(&self, key: &Key) -> bool {
        self.contains_key(key)
    }
    fn insert(&mut self, key: Key, v: Vec<f32>) {
        HashMap::insert(self, key, v);
    }
}

/// Tokens of the model's vocabulary that every encoder gets even when the corpus never
/// uses them: every plain word (two or more lowercase ASCII letters), so a query word the
/// site never says still counts by its meaning, and single ASCII letters and digits (with
/// their `##` forms) so any ASCII word can be cut. Their rows are their own embeddings.
///
/// Every plain word, not only the common ones: WordPiece lists words roughly by frequency
/// only up to about id 10,000, and past it are words queries use (`publish` 10,172,
/// `chunk`, `prompt`, `transitions` above 20,000). A small site used to lose them: the
/// demo corpus's "publish the site for visitors" was embedded as "the site for visitors".
fn extra_tokens<S>(vocab: &std::collections::HashMap<String, u32, S>) -> Vec<u32> {
    let mut out: Vec<u32> = vocab
        .iter()
        .filter(|(t, _)| {
            let plain = t.strip_prefix("##").unwrap_or(t);
            let single = plain.len() == 1 && plain.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
            let word = !t.starts_with("##") && t.len() >= 2 && t.bytes().all(|b| b.is_ascii_lowercase());
            single || word
        })
        .map(|(_, &id)| id)
        .collect();
    out.sort_unstable();
    out
}

/// How the semantic half is laid out (see [`super::layout`]).
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub dim: usize,
    pub lists: Option<usize>,
    pub probe: usize,
    /// Fit a static query encoder (else hosts embed queries with the model).
    pub encoder: bool,
    /// Tokens the model reads at most (None: every chunk and training text, however many).
    /// Over it, the chunks' vectors are fitted (module doc); without an encoder the model
    /// reads everything.
    pub model_budget: Option<usize>,
}

/// The model's budget by default, in tokens: about a minute of two cores, so a clean
/// hybrid build of a site the Python docs' size stays under a minute and a half.
pub const MODEL_BUDGET: usize = 400_000;

impl Default for Layout {
    fn default() -> Self {
        use super::layout::{DEFAULT_DIM, DEFAULT_PROBE};
        Layout { dim: DEFAULT_DIM, lists: None, probe: DEFAULT_PROBE, encoder: true, model_budget: Some(MODEL_BUDGET) }
    }
}

#[derive(Debug, Clone, Default)]
pub struct EmbedReport {
    pub chunks: usize,
    /// Training texts besides the chunks (titles, headings, sentences).
    pub texts: usize,
    /// Tokens embedded alone (the encoder's prior).
    pub tokens: usize,
    /// Sequences embedded now, and found in the store.
    pub embedded: usize,
    pub stored: usize,
    /// Where the chunks' vectors come from.
    pub doc_vectors: DocVectors,
    /// Tokens of the chunks and training texts (each distinct one once), and of those the
    /// tokens the model read (all of them, or the sample the budget allows).
    pub site_tokens: usize,
    pub read_tokens: usize,
}

/// The token sequences the semantic half of a bundle needs embedded: every chunk, and for
/// the encoder every training text and every token alone.
pub struct Sequences {
    /// Every chunk's token ids, page by page, and how many chunks each page has.
    chunks: TokenRuns,
    page_chunks: Vec<usize>,
    training_ids: Vec<Vec<u32>>,
    tokens: BTreeSet<u32>,
    token_ids: Vec<Vec<u32>>,
    special: Vec<u32>,
    extra: Vec<u32>,
    encoder: bool,
    /// The chunks and texts the model reads when the site is over the budget.
    sample: Option<BTreeSet<Key>>,
    site_tokens: usize,
    read_tokens: usize,
}

impl Sequences {
    /// Tokenize what a bundle of `docs` needs (on every core), and choose the sample when
    /// the site is over the budget: refused when the budget holds none of its chunks (the
    /// bundle's space is fitted to the chunks the model read).
    pub fn of(docs: &(impl PageBatches + ?Sized), tok: &Tokenizer, layout: Layout) -> Result<Sequences, SiftError> {
        // The pages are read a batch at a time and only their chunks' tokens kept.
        let (mut chunks, mut page_chunks) = (TokenRuns::default(), Vec::new());
        let mut training = layout.encoder.then(|| TrainingTexts::new(MAX_SENTENCES));
        docs.each_batch(&mut |batch| {
            for page in par_map(batch, |d| crate::chunk::chunks_of(d).iter().map(|c| tok.encode(c)).collect::<Vec<_>>()) {
                page_chunks.push(page.len());
                page.iter().for_each(|ids| chunks.push(ids));
            }
            if let Some(t) = training.as_mut() {
                t.add(batch);
            }
            Ok(())
        })?;
        chunks.shrink_to_fit();
        let training_ids: Vec<Vec<u32>> = training.map(|t| par_map(&t.finish(), |t| tok.encode(t))).unwrap_or_default();
        let special = special_tokens(tok);
        let extra: Vec<u32> = if layout.encoder { extra_tokens(tok.vocab()) } else { Vec::new() };
        // Marked in a table by id, not collected: a big site's tokens, collected, would
        // take more memory than its chunks.
        let mut seen: Vec<bool> = Vec::new();
        if layout.encoder {
            for t in chunks.all_ids().chain(training_ids.iter().flatten().copied()).chain(extra.iter().copied()) {
                let t = t as usize;
                if t >= seen.len() {
                    seen.resize(t + 1, false);
                }
                seen[t] = true;
            }
        }
        let tokens: BTreeSet<u32> = (0..seen.len() as u32).filter(|&t| seen[t as usize] && !special.contains(&t)).collect();
        let [cls, sep, _] = tok.special_ids();
        let token_ids: Vec<Vec<u32>> = tokens.iter().map(|&t| vec![cls, t, sep]).collect();
        let chunk_lens: BTreeMap<Key, usize> = chunks.iter().map(|ids| (key(&ids), ids.len())).collect();
        let texts: BTreeMap<Key, usize> =
            training_ids.iter().map(|ids| (key(ids), ids.len())).filter(|(k, _)| !chunk_lens.contains_key(k)).collect();
        let site_tokens = chunk_lens.values().chain(texts.values()).sum();
        let (sample, read_tokens) = match layout.model_budget {
            Some(budget) if layout.encoder && site_tokens > budget => {
                let (taken, read) = sample(&chunk_lens, &texts, budget);
                if !chunk_lens.is_empty() && !chunk_lens.keys().any(|k| taken.contains(k)) {
                    let shortest = chunk_lens.values().min().copied().unwrap_or(0);
                    return Err(SiftError::invalid(format!(
                        "the model's budget of {budget} tokens holds none of the site's chunks (the shortest has {shortest}): raise it"
                    )));
                }
                (Some(taken), read)
            }
            _ => (None, site_tokens),
        };
        Ok(Sequences {
            chunks,
            page_chunks,
            training_ids,
            tokens,
            token_ids,
            special,
            extra,
            encoder: layout.encoder,
            sample,
            site_tokens,
            read_tokens,
        })
    }

    /// Whether the model reads this chunk or text (all of them, unless sampled).
    fn reads(&self, k: &Key) -> bool {
        self.sample.as_ref().is_none_or(|s| s.contains(k))
    }

    /// The strings of the tokens the encoder gets rows for (empty without an encoder).
    fn vocab(&self, tok: &Tokenizer) -> HashMap<u32, String> {
        let by_id: HashMap<u32, &String> = tok.vocab().iter().map(|(s, &id)| (id, s)).collect();
        self.tokens.iter().filter_map(|t| by_id.get(t).map(|s| (*t, (*s).clone()))).collect()
    }

    /// Every distinct sequence the model reads once, by key.
    pub fn wanted(&self) -> BTreeMap<Key, Cow<'_, [u32]>> {
        let mut wanted: BTreeMap<Key, Cow<'_, [u32]>> = BTreeMap::new();
        let texts = self.training_ids.iter().chain(&self.token_ids).map(|ids| Cow::Borrowed(ids.as_slice()));
        for ids in self.chunks.iter().chain(texts) {
            let k = key(&ids);
            if self.reads(&k) {
                wanted.entry(k).or_insert(ids);
            }
        }
        wanted
    }
}

/// The sample the model reads from a site over its budget (key → tokens). When every chunk
/// fits in the budget, the chunks come first and the titles, headings and sentences
/// (`texts`) take what is left: the chunks' vectors are then the model's own, which
/// ranked above the encoder's on Cranfield, CACM and MED
/// (bench/results/2026-12-07-hybrid-build-own-work.md). Otherwise the texts take up to
/// half of `budget`, then the chunks and the texts left take the rest. Each in the order
/// of its key, each that still fits. Half and half, because the encoder learns the
/// queries' side from the short texts and the documents' from the chunks: texts first
/// ranked best on the docs' known items, chunks first on Cranfield and CACM
/// (bench/results/2026-12-07-meaning-at-keyword-cost.md). Returns the sample and its tokens.
fn sample(chunks: &BTreeMap<Key, usize>, texts: &BTreeMap<Key, usize>, budget: usize) -> (BTreeSet<Key>, usize) {
    let mut taken = BTreeSet::new();
    let mut read = 0;
    let mut take = |(k, &n): (&Key, &usize), limit: usize| {
        if read + n <= limit && taken.insert(*k) {
            read += n;
        }
    };
    if chunks.values().sum::<usize>() > budget {
        for t in texts {
            take(t, budget / 2);
        }
    }
    for t in chunks.iter().chain(texts) {
        take(t, budget);
    }
    (taken, read)
}

/// The special tokens ([CLS], [SEP], [UNK], [PAD], [MASK]): no encoder row of their own.
fn special_tokens(tok: &Tokenizer) -> Vec<u32> {
    let [cls, sep, unk] = tok.special_ids();
    [cls, sep, unk].into_iter().chain(["[PAD]", "[MASK]"].iter().filter_map(|t| tok.vocab().get(*t).copied())).collect()
}

/// Every token of the model's vocabulary alone (`[CLS] t [SEP]`), bracketed ones aside
/// (special and `[unused…]` tokens, which text never becomes): what `sift model fetch`
/// embeds once per model, so that no site's first build has to.
pub fn vocabulary_sequences(tok: &Tokenizer) -> Vec<Vec<u32>> {
    let [cls, sep, _] = tok.special_ids();
    let mut ids: Vec<u32> = tok.vocab().iter().filter(|(t, _)| !(t.starts_with('[') && t.ends_with(']'))).map(|(_, &id)| id).collect();
    ids.sort_unstable();
    ids.into_iter().map(|t| vec![cls, t, sep]).collect()
}

/// Which of `n` parts a sequence belongs to when the embedding is split over machines
/// (`sift embed --part i/n`): by its key, so every machine agrees without talking.
pub fn part_of(k: &Key, n: u32) -> u32 {
    u32::from_le_bytes([k[0], k[1], k[2], k[3]]) % n.max(1)
}

/// Sequences embedded between two checkpoints of the store: enough to keep every core busy
/// (they are sorted by length, so a batch's sequences take about as long each), few enough
/// that a stopped build loses little and the batch's vectors are a small part of memory.
const BATCH: usize = 1024;

/// Embed those of `seqs` that `store` lacks and add them to it, a batch at a time with a
/// checkpoint of the store after each; returns how many. `progress(done, total)` is called
/// as sequences are embedded (from several threads when `parallel` is on).
pub fn embed_missing<'a>(
    model: &Model,
    seqs: impl IntoIterator<Item = (Key, &'a [u32])>,
    store: &mut dyn EmbeddingStore,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<usize, SiftError> {
    // Longest first: the slow ones start early, so the cores finish together.
    let mut missing: Vec<(Key, &[u32])> = seqs.into_iter().filter(|(k, _)| !store.contains(k)).collect();
    missing.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    missing.dedup_by_key(|m| m.0);
    let total = missing.len() as u64;
    let done = std::sync::atomic::AtomicU64::new(0);
    let embed_one = |(k, ids): &(Key, &[u32])| -> Result<(Key, Vec<f32>), SiftError> {
        let v = model.embed(ids)?;
        progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
        Ok((*k, v))
    };
    for batch in missing.chunks(BATCH) {
        let fresh: Vec<Result<(Key, Vec<f32>), SiftError>> = par_map(batch, embed_one);
        // What the batch embedded before an error is kept too.
        let mut failed = None;
        for r in fresh {
            match r {
                Ok((k, v)) => store.insert(k, v),
                Err(e) => failed = failed.or(Some(e)),
            }
        }
        store.checkpoint();
        if let Some(e) = failed {
            return Err(e);
        }
    }
    Ok(missing.len())
}

/// Embed (or find in `store`) everything the semantic half of a bundle of `docs` needs.
/// The keys this corpus used are returned with the input (a file store drops the others
/// when it compacts). Given the model itself rather than a reference, it frees it once the
/// embedding is done: its optimised plan is a few hundred MB, and what comes next (the
/// vectors gathered, then the bundle's index laid out) is where a large site's build
/// needs the most memory.
pub fn semantic_input(
    docs: &(impl PageBatches + ?Sized),
    model: Model,
    model_name: &str,
    layout: Layout,
    store: &mut dyn EmbeddingStore,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(SemanticInput, EmbedReport, Vec<Key>), SiftError> {
    let seqs = Sequences::of(docs, &model.tokenizer, layout)?;
    let wanted = seqs.wanted();
    let embedded = embed_missing(&model, wanted.iter().map(|(k, v)| (*k, v.as_ref())), store, progress)?;
    let used: Vec<Key> = wanted.into_keys().collect();
    let (vocab, model_dim) = (seqs.vocab(&model.tokenizer), model.dim);
    drop(model);
    let (input, mut report) = assemble(seqs, vocab, model_dim, model_name, layout, &*store);
    report.embedded = embedded;
    report.stored = used.len() - embedded;
    Ok((input, report, used))
}

/// One machine's share of a split embedding: embed the sequences of part `part` of `of`
/// (numbered from 1) that `store` lacks. Returns how many were embedded now and how many
/// the part holds.
pub fn embed_part(
    docs: &(impl PageBatches + ?Sized),
    model: &Model,
    layout: Layout,
    (part, of): (u32, u32),
    store: &mut dyn EmbeddingStore,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(usize, usize), SiftError> {
    let seqs = Sequences::of(docs, &model.tokenizer, layout)?;
    let wanted = seqs.wanted();
    let mine: Vec<(Key, &[u32])> = wanted.iter().filter(|(k, _)| part_of(k, of) + 1 == part).map(|(k, v)| (*k, v.as_ref())).collect();
    let n = mine.len();
    Ok((embed_missing(model, mine, store, progress)?, n))
}

/// The semantic input from the embeddings in `store` (a sequence missing there gets an
/// empty vector, which the builder refuses). The sequences' token ids move into it.
fn assemble(
    seqs: Sequences,
    vocab: HashMap<u32, String>,
    model_dim: usize,
    model_name: &str,
    layout: Layout,
    store: &dyn EmbeddingStore,
) -> (SemanticInput, EmbedReport) {
    let stored = |k: &Key| -> Vec<f32> { store.get(k).unwrap_or_default() };
    // What the model did not read has no vector (not one a store may hold from before).
    let vector = |ids: &[u32]| -> Vec<f32> {
        let k = key(ids);
        if seqs.reads(&k) {
            stored(&k)
        } else {
            Vec::new()
        }
    };
    let per_doc: Vec<Vec<Vec<f32>>> = {
        let mut chunks = seqs.chunks.iter();
        seqs.page_chunks.iter().map(|&n| chunks.by_ref().take(n).map(|ids| vector(&ids)).collect()).collect()
    };
    let training: Vec<Vec<f32>> = seqs.training_ids.iter().map(|ids| vector(ids)).collect();
    // The chunks' vectors are the model's when it read every chunk (a sample may hold them
    // all, and only some of the other texts).
    let every_chunk = seqs.sample.is_none() || seqs.chunks.iter().all(|ids| seqs.reads(&key(&ids)));
    let doc_vectors = if every_chunk { DocVectors::Model } else { DocVectors::Fitted };
    let sampled = seqs.sample.is_some();
    let report = EmbedReport {
        chunks: seqs.chunks.len(),
        texts: seqs.training_ids.len(),
        tokens: seqs.token_ids.len(),
        embedded: 0,
        stored: 0,
        doc_vectors,
        site_tokens: seqs.site_tokens,
        read_tokens: seqs.read_tokens,
    };
    let Sequences { chunks, training_ids, tokens, token_ids, special, extra, encoder, .. } = seqs;
    let encoder = encoder.then(|| {
        let texts: Vec<TrainingText> =
            training_ids.into_iter().zip(training).map(|(tokens, embedding)| TrainingText { tokens, embedding }).collect();
        let prior: HashMap<u32, Vec<f32>> = tokens.iter().zip(&token_ids).map(|(&t, ids)| (t, stored(&key(ids)))).collect();
        EncoderInput { chunk_tokens: chunks, texts, prior, vocab, special, extra, sampled }
    });
    let input = SemanticInput {
        model: model_name.to_string(),
        model_dim,
        per_doc,
        doc_vectors,
        dim: layout.dim,
        lists: layout.lists,
        probe: layout.probe,
        group_from_lists: super::layout::GROUP_FROM_LISTS,
        encoder,
    };
    (input, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_the_hash_of_the_ids_little_endian_bytes_however_long() {
        for n in [0, 1, 255, 256, 257, 1000] {
            let ids: Vec<u32> = (0..n).map(|i| i * 40_503 + 7).collect();
            let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
            assert_eq!(key(&ids), blake3::hash(&bytes).as_bytes()[..16], "{n} ids");
        }
    }

    /// Chunks keyed 1, 2, 3 (50, 30 and 40 tokens) and texts keyed 0, 7, 9 (5, 30, 20).
    fn three_chunks_and_three_texts() -> (fn(u8) -> Key, BTreeMap<Key, usize>, BTreeMap<Key, usize>) {
        let k: fn(u8) -> Key = |i| [i; 16];
        let chunks = [(k(3), 40), (k(1), 50), (k(2), 30)].into_iter().collect();
        let texts = [(k(0), 5), (k(9), 20), (k(7), 30)].into_iter().collect();
        (k, chunks, texts)
    }

    #[test]
    fn the_sample_gives_the_short_texts_half_the_budget_and_the_chunks_the_rest() {
        let (k, chunks, texts) = three_chunks_and_three_texts();
        // Texts in key order up to 50: 0 (5), 7 (35), 9 (over 50: left). Then the chunks
        // and the texts left up to 100: chunk 1 (85), 2 and 3 (over), text 9 (over).
        let (taken, read) = sample(&chunks, &texts, 100);
        assert_eq!(taken, [k(0), k(7), k(1)].into_iter().collect());
        assert_eq!(read, 85);
        // Without texts the chunks take it all; a budget that holds everything takes all.
        assert_eq!(sample(&chunks, &BTreeMap::new(), 100), ([k(1), k(2)].into_iter().collect(), 80));
        let (taken, read) = sample(&chunks, &texts, 1000);
        assert_eq!((taken.len(), read), (6, 175));
    }

    #[test]
    fn when_every_chunk_fits_the_chunks_come_first_and_the_texts_take_the_rest() {
        let (k, chunks, texts) = three_chunks_and_three_texts();
        // The chunks' 120 fit in 150: all of them, then texts in key order: 0 (125), 7 (over),
        // 9 (145).
        let (taken, read) = sample(&chunks, &texts, 150);
        assert_eq!(taken, [k(1), k(2), k(3), k(0), k(9)].into_iter().collect());
        assert_eq!(read, 145);
        // Exactly the chunks: no text.
        assert_eq!(sample(&chunks, &texts, 120), ([k(1), k(2), k(3)].into_iter().collect(), 120));
    }

    #[test]
    fn every_plain_word_and_every_ascii_letter_gets_a_row() {
        let vocab: HashMap<String, u32> = [
            ("[CLS]", 101),
            ("the", 1996),
            ("publish", 10_172),
            ("chunk", 20_000),
            ("##s", 2015),
            ("a", 1037),
            ("##7", 2581),
            ("x1", 3000),
            ("café", 4000),
            ("##ing", 2075),
            ("Paris", 5000),
        ]
        .into_iter()
        .map(|(t, id)| (t.to_string(), id))
        .collect();
        let got = extra_tokens(&vocab);
        // Plain words at any id; single letters and digits, word-initial or not; no special
        // tokens, no continuations of several characters, nothing with a digit, an accent
        // or a capital.
        assert_eq!(got, vec![1037, 1996, 2015, 2581, 10_172, 20_000]);
    }
}
