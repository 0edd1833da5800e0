//! The static encoder as a bundle stores it: fitted to what the model read ([`super::fit`]),
//! then laid out as the engine reads it — vocabulary groups (by a word's first three
//! characters, continuations by their first), row shards, and the site's whole words
//! (`sift_format::encoder`).

use super::fit::{fit, FitParams, FitReport, FittedEncoder, TrainingText};
use super::projection::Projection;
use super::tokens::TokenRuns;
use sift_base::error::SiftError;
use sift_base::hashing;
use sift_format::encoder::{encode_groups, groups_for, pack_pieces, EncoderRows, ROWS_PER_SHARD, WHOLE_WORD_MAX_PIECES};
use sift_text::wordpiece;
use std::borrow::Cow;
use std::collections::HashMap;

/// The corpus texts and token embeddings the static encoder is fitted to.
#[derive(Debug, Clone, Default)]
pub struct EncoderInput {
    /// Token ids of each chunk (as the model's tokenizer cuts it), in the order of
    /// `SemanticInput::per_doc` flattened: the chunks are training texts too, and their
    /// embeddings are the ones `per_doc` holds (a large site's chunk vectors are held once).
    pub chunk_tokens: TokenRuns,
    /// The other training texts (titles, headings, sentences): token ids and embedding.
    pub texts: Vec<TrainingText>,
    /// The model's embedding of each token alone (`[CLS] t [SEP]`), for every token the
    /// texts use.
    pub prior: HashMap<u32, Vec<f32>>,
    /// Token id → its string in the model's vocabulary (`word`, `##piece`).
    pub vocab: HashMap<u32, String>,
    /// The model read a sample of the texts (a site over its budget): those it did not
    /// read have an empty embedding, and the fit pulls less toward the prior
    /// (`FitParams::for_sample`).
    pub sampled: bool,
    /// Token ids without meaning of their own (`[CLS]`, `[SEP]`, `[PAD]`, `[UNK]`, `[MASK]`).
    pub special: Vec<u32>,
    /// Tokens the corpus does not use but queries may (every plain word, single characters):
    /// their rows are their prior, so a paraphrase in words the site never uses still has
    /// a meaning. Each needs a `prior` and a `vocab` entry.
    pub extra: Vec<u32>,
}

/// The encoder as payloads.
pub(crate) struct EncoderLayout {
    pub dim: usize,
    pub n_rows: usize,
    pub n_word_groups: usize,
    pub n_continuation_groups: usize,
    /// Vocabulary group payloads (word groups, then continuation groups).
    pub groups: Vec<Vec<u8>>,
    /// Row shard payloads.
    pub rows: Vec<Vec<u8>>,
    pub report: FitReport,
}

/// `chunks`: the chunk vectors, in `per_doc` order (checked by the caller), None where the
/// model did not read the chunk.
pub(crate) fn fit_encoder(input: &EncoderInput, chunks: &[Option<&[f32]>], projection: &Projection) -> Result<FittedEncoder, SiftError> {
    if input.chunk_tokens.len() != chunks.len() {
        return Err(SiftError::invalid(format!("{} chunk vectors but token ids for {} chunks", chunks.len(), input.chunk_tokens.len())));
    }
    for t in input.texts.iter().filter(|t| !input.sampled || !t.embedding.is_empty()) {
        if t.embedding.len() != projection.model_dim || t.embedding.iter().any(|x| !x.is_finite()) {
            return Err(SiftError::invalid(format!("an encoder training text's embedding is not {} finite numbers", projection.model_dim)));
        }
    }
    let texts =
        input.chunk_tokens.iter().zip(chunks.iter().copied()).chain(
            input.texts.iter().map(|t| (Cow::Borrowed(t.tokens.as_slice()), Some(t.embedding.as_slice()).filter(|e| !e.is_empty()))),
        );
    let params = if input.sampled { FitParams::for_sample() } else { FitParams::default() };
    Ok(fit(texts, &|t| input.prior.get(&t).cloned(), projection, &input.special, &input.extra, params))
}

pub(crate) fn lay_out_encoder(input: &EncoderInput, fitted: FittedEncoder) -> Result<EncoderLayout, SiftError> {
    let tokens = fitted
        .tokens
        .iter()
        .map(|t| input.vocab.get(t).cloned().ok_or_else(|| SiftError::invalid(format!("token {t} has no string in the vocabulary"))))
        .collect::<Result<Vec<String>, SiftError>>()?;
    let dim = fitted.dim;
    let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let continuations = refs.iter().filter(|t| t.starts_with("##")).count();
    let words = whole_words(&input.chunk_tokens, &input.vocab, &refs);
    let n_word_groups = groups_for(refs.len() - continuations + words.len());
    let n_continuation_groups = groups_for(continuations);
    let groups = encode_groups(&refs, &words, n_word_groups, n_continuation_groups)?;
    let rows = fitted.rows.chunks(ROWS_PER_SHARD * dim).enumerate().map(|(i, c)| EncoderRows::encode(c, dim, i)).collect();
    Ok(EncoderLayout { dim, n_rows: tokens.len(), n_word_groups, n_continuation_groups, groups, rows, report: fitted.report })
}

/// A word is stored whole when at least this many chunks use it: a word the site uses once
/// is seldom what its readers search for, and each one adds to its group's bytes.
pub const WHOLE_WORD_MIN_CHUNKS: usize = 2;

/// The words the chunks use that WordPiece cuts into two or three pieces over the bundle's
/// vocabulary (`tokens[r]` is row r's token), each with its pieces' rows as cutting it at
/// query time gives them (the same code), those of at least [`WHOLE_WORD_MIN_CHUNKS`]
/// chunks, in word order: the whole words a query looks up before cutting
/// ([`encode_groups`]), which spares it the continuations' groups.
fn whole_words(chunk_tokens: &TokenRuns, vocab: &HashMap<u32, String>, tokens: &[&str]) -> Vec<(String, Vec<u32>)> {
    // A word: a first piece and the `##` continuations after it, as the chunk was cut, kept
    // by its pieces' ids (a big site has tens of millions of pieces); only words of two or
    // three pieces can be stored whole (`pack_pieces`).
    const MAX: usize = WHOLE_WORD_MAX_PIECES;
    let mut continuation = vec![false; vocab.keys().max().map_or(0, |&id| id as usize + 1)];
    for (&id, t) in vocab {
        continuation[id as usize] = t.starts_with("##");
    }
    let mut chunks_of: hashing::HashMap<[u32; MAX], (usize, usize)> = Default::default(); // word → (chunks, last chunk + 1)
    for (c, ids) in chunk_tokens.iter().enumerate() {
        let (mut word, mut pieces) = ([u32::MAX; MAX], 0);
        let mut end_word = |word: [u32; MAX], pieces: usize| {
            if (2..=MAX).contains(&pieces) {
                let seen = chunks_of.entry(word).or_insert((0, 0));
                if seen.1 != c + 1 {
                    *seen = (seen.0 + 1, c + 1);
                }
            }
        };
        for &id in ids.iter() {
            if pieces > 0 && continuation.get(id as usize).copied().unwrap_or(false) {
                if pieces < MAX {
                    word[pieces] = id;
                }
                pieces += 1;
            } else {
                end_word(word, pieces);
                (word, pieces) = ([u32::MAX; MAX], 1);
                word[0] = id;
            }
        }
        end_word(word, pieces);
    }
    // As the chunk spelled it: the first piece whole, the continuations without `##`.
    let spelled = |word: &[u32; MAX]| -> String {
        let piece = |(i, id): (usize, &u32)| vocab.get(id).map_or("", |t| if i == 0 { t } else { t.strip_prefix("##").unwrap_or(t) });
        word.iter().filter(|&&id| id != u32::MAX).enumerate().map(piece).collect()
    };
    let rows: HashMap<String, u32> = tokens.iter().enumerate().map(|(r, t)| (t.to_string(), r as u32)).collect();
    let mut out: Vec<(String, Vec<u32>)> = chunks_of
        .into_iter()
        .filter(|(_, (chunks, _))| *chunks >= WHOLE_WORD_MIN_CHUNKS)
        .map(|(w, seen)| (spelled(&w), seen))
        .filter(|(w, _)| wordpiece::words(w) == [w.as_str()])
        .filter_map(|(w, _)| {
            let mut pieces = Vec::new();
            (wordpiece::word_pieces(&rows, &w, &mut pieces) && pack_pieces(&pieces).is_some()).then_some((w, pieces))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_are_the_words_of_two_chunks_or_more_cut_into_two_or_three_pieces() {
        let vocab: HashMap<u32, String> =
            ["[CLS]", "vec", "##tor", "phantom", "##da", "##ta", "a", "##b", "##c", "##d", "once", "##r", "-", "x"]
                .iter()
                .enumerate()
                .map(|(i, t)| (i as u32, t.to_string()))
                .collect();
        // Rows in another order than the model's ids: a whole word stores rows.
        let tokens = ["x", "-", "##r", "once", "##d", "##c", "##b", "a", "##ta", "##da", "phantom", "##tor", "vec"];
        let row = |t: &str| tokens.iter().position(|x| *x == t).unwrap() as u32;
        let chunk_tokens: TokenRuns = [
            vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], // vector phantomdata abcd oncer
            vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1],      // vector phantomdata abcd vec
            vec![0, 1, 2, 1, 2, 12, 13, 10],            // vector vector - x once
        ]
        .into_iter()
        .collect();
        let words = whole_words(&chunk_tokens, &vocab, &tokens);
        assert_eq!(
            words,
            [
                ("phantomdata".to_string(), vec![row("phantom"), row("##da"), row("##ta")]),
                ("vector".to_string(), vec![row("vec"), row("##tor")])
            ],
            "abcd has four pieces, oncer is in one chunk, a token alone is no whole word"
        );
    }
}
