//! A model-free stand-in for an embedding model, for tests, fuzzing and examples that need
//! a bundle with vectors and a query encoder but no model: each word (as the model's
//! pre-tokenizer cuts it) is a token, and a text's embedding is the normalised sum of its
//! tokens' pseudo-random ±1 patterns (from an FNV hash). Texts sharing words point the
//! same way, so semantic answers mean something, and the static encoder can learn it.

use super::encoder::EncoderInput;
use super::fit::TrainingText;
use super::layout::SemanticInput;
use super::projection::normalise;
use sift_base::doc::SourceDoc;
use sift_text::wordpiece;
use std::collections::{BTreeSet, HashMap};

fn pattern(token: &str, dim: usize) -> Vec<f32> {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in token.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (0..dim).map(|i| if (h >> (i % 64)) & 1 == 1 { 1.0 } else { -1.0 }).collect()
}

/// The toy embedding of a text (`dim` dimensions, unit length; a text without words gets
/// the first axis).
pub fn embed(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    for w in wordpiece::words(text) {
        for (x, p) in v.iter_mut().zip(pattern(&w, dim)) {
            *x += p;
        }
    }
    normalise(&mut v);
    if v.iter().all(|x| *x == 0.0) {
        v[0] = 1.0;
    }
    v
}

/// A bundle's semantic input as the toy model would make it: chunk vectors and an encoder
/// fitted to the chunks, titles, headings and sentences. `dim`: the toy model's dimension
/// (the bundle's space keeps all of it).
pub fn semantic_input(docs: &[SourceDoc], dim: usize) -> SemanticInput {
    let chunks: Vec<Vec<String>> = docs.iter().map(crate::chunk::chunks_of).collect();
    let texts: Vec<String> = super::training::training_texts(docs);
    let vocab_words: BTreeSet<String> = chunks.iter().flatten().chain(&texts).flat_map(|t| wordpiece::words(t)).collect();
    // Ids from 10 (0..10 are left for special tokens, as in a real vocabulary).
    let ids: HashMap<String, u32> = vocab_words.iter().enumerate().map(|(i, w)| (w.clone(), 10 + i as u32)).collect();
    let tokens_of = |t: &str| wordpiece::words(t).iter().map(|w| ids[w]).collect::<Vec<u32>>();
    let encoder = EncoderInput {
        chunk_tokens: chunks.iter().flatten().map(|c| tokens_of(c)).collect(),
        texts: texts.iter().map(|t| TrainingText { tokens: tokens_of(t), embedding: embed(t, dim) }).collect(),
        prior: ids.iter().map(|(w, &id)| (id, embed(w, dim))).collect(),
        vocab: ids.iter().map(|(w, &id)| (id, w.clone())).collect(),
        special: Vec::new(),
        extra: Vec::new(),
        sampled: false,
    };
    SemanticInput {
        model: format!("toy-fnv-{dim}"),
        model_dim: dim,
        per_doc: chunks.iter().map(|cs| cs.iter().map(|c| embed(c, dim)).collect()).collect(),
        doc_vectors: super::layout::DocVectors::Model,
        dim,
        lists: None,
        probe: super::layout::DEFAULT_PROBE,
        group_from_lists: super::layout::GROUP_FROM_LISTS,
        encoder: Some(encoder),
    }
}
