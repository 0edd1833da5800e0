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

use super::fit::TrainingText;
use super::layout::{EncoderInput, SemanticInput};
use crate::par_map;
use sift_base::error::{ErrorCode, SiftError};
use sift_base::SourceDoc;
use sift_embed::{EmbedError, Tokenizer};
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
    let mut h = blake3::Hasher::new();
    for id in ids {
        h.update(&id.to_le_bytes());
    }
    let mut k = [0u8; 16];
    k.copy_from_slice(&h.finalize().as_bytes()[..16]);
    k
}

/// Embeddings by key.
pub trait EmbeddingStore {
    fn get(&self, key: &Key) -> Option<&Vec<f32>>;
    fn insert(&mut self, key: Key, v: Vec<f32>);
    /// Called between batches while embedding: a store on disk writes what it got so far,
    /// so a build that is stopped keeps the work it has done.
    fn checkpoint(&mut self) {}
}

impl EmbeddingStore for HashMap<Key, Vec<f32>> {
    fn get(&self, key: &Key) -> Option<&Vec<f32>> {
        HashMap::get(self, key)
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
fn extra_tokens(vocab: &HashMap<String, u32>) -> Vec<u32> {
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
}

impl Default for Layout {
    fn default() -> Self {
        use super::layout::{DEFAULT_DIM, DEFAULT_PROBE};
        Layout { dim: DEFAULT_DIM, lists: None, probe: DEFAULT_PROBE, encoder: true }
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
}

/// The token sequences the semantic half of a bundle needs embedded: every chunk, and for
/// the encoder every training text and every token alone.
pub struct Sequences {
    chunk_ids: Vec<Vec<Vec<u32>>>,
    training_ids: Vec<Vec<u32>>,
    tokens: BTreeSet<u32>,
    token_ids: Vec<Vec<u32>>,
    special: Vec<u32>,
    extra: Vec<u32>,
    encoder: bool,
}

impl Sequences {
    /// Tokenize what a bundle of `docs` needs (on every core with `parallel`).
    pub fn of(docs: &[SourceDoc], tok: &Tokenizer, layout: Layout) -> Sequences {
        let chunk_ids: Vec<Vec<Vec<u32>>> = par_map(docs, |d| crate::chunk::chunks_of(d).iter().map(|c| tok.encode(c)).collect());
        let training_ids: Vec<Vec<u32>> =
            if layout.encoder { par_map(&super::training::training_texts(docs), |t| tok.encode(t)) } else { Vec::new() };
        let special = special_tokens(tok);
        let extra: Vec<u32> = if layout.encoder { extra_tokens(tok.vocab()) } else { Vec::new() };
        let tokens: BTreeSet<u32> = if layout.encoder {
            chunk_ids.iter().flatten().chain(&training_ids).flatten().chain(&extra).copied().filter(|t| !special.contains(t)).collect()
        } else {
            BTreeSet::new()
        };
        let [cls, sep, _] = tok.special_ids();
        let token_ids: Vec<Vec<u32>> = tokens.iter().map(|&t| vec![cls, t, sep]).collect();
        Sequences { chunk_ids, training_ids, tokens, token_ids, special, extra, encoder: layout.encoder }
    }

    /// The strings of the tokens the encoder gets rows for (empty without an encoder).
    fn vocab(&self, tok: &Tokenizer) -> HashMap<u32, String> {
        let by_id: HashMap<u32, &String> = tok.vocab().iter().map(|(s, &id)| (id, s)).collect();
        self.tokens.iter().filter_map(|t| by_id.get(t).map(|s| (*t, (*s).clone()))).collect()
    }

    /// Every distinct sequence once, by key.
    pub fn wanted(&self) -> BTreeMap<Key, &[u32]> {
        let mut wanted: BTreeMap<Key, &[u32]> = BTreeMap::new();
        for ids in self.chunk_ids.iter().flatten().chain(&self.training_ids).chain(&self.token_ids) {
            wanted.entry(key(ids)).or_insert(ids);
        }
        wanted
    }
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
    let mut missing: Vec<(Key, &[u32])> = seqs.into_iter().filter(|(k, _)| store.get(k).is_none()).collect();
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
    docs: &[SourceDoc],
    model: Model,
    model_name: &str,
    layout: Layout,
    store: &mut dyn EmbeddingStore,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(SemanticInput, EmbedReport, Vec<Key>), SiftError> {
    let seqs = Sequences::of(docs, &model.tokenizer, layout);
    let wanted = seqs.wanted();
    let embedded = embed_missing(&model, wanted.iter().map(|(k, v)| (*k, *v)), store, progress)?;
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
    docs: &[SourceDoc],
    model: &Model,
    layout: Layout,
    (part, of): (u32, u32),
    store: &mut dyn EmbeddingStore,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(usize, usize), SiftError> {
    let seqs = Sequences::of(docs, &model.tokenizer, layout);
    let mine: Vec<(Key, &[u32])> = seqs.wanted().into_iter().filter(|(k, _)| part_of(k, of) + 1 == part).collect();
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
    let vector = |ids: &[u32]| -> Vec<f32> { store.get(&key(ids)).cloned().unwrap_or_default() };
    let per_doc: Vec<Vec<Vec<f32>>> = seqs.chunk_ids.iter().map(|cs| cs.iter().map(|ids| vector(ids)).collect()).collect();
    let report = EmbedReport {
        chunks: seqs.chunk_ids.iter().map(Vec::len).sum(),
        texts: seqs.training_ids.len(),
        tokens: seqs.token_ids.len(),
        embedded: 0,
        stored: 0,
    };
    let Sequences { chunk_ids, training_ids, tokens, token_ids, special, extra, encoder } = seqs;
    let encoder = encoder.then(|| {
        let texts: Vec<TrainingText> = training_ids
            .into_iter()
            .map(|ids| {
                let embedding = vector(&ids);
                TrainingText { tokens: ids, embedding }
            })
            .collect();
        let prior: HashMap<u32, Vec<f32>> = tokens.iter().zip(&token_ids).map(|(&t, ids)| (t, vector(ids))).collect();
        EncoderInput { chunk_tokens: chunk_ids.into_iter().flatten().collect(), texts, prior, vocab, special, extra }
    });
    let input = SemanticInput {
        model: model_name.to_string(),
        model_dim,
        per_doc,
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
