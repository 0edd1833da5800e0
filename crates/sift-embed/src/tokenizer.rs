//! The model's tokenizer: all-MiniLM-L6-v2's `tokenizer.json` vocabulary with the WordPiece
//! algorithm of `sift_text::wordpiece` (the same code the query-time static
//! encoder runs), framed as `[CLS] … [SEP]`.

use crate::EmbedError;
use sift_text::wordpiece;
pub use sift_text::wordpiece::MAX_TOKENS;

/// The vocabulary, token string → id, keyed by foldhash: a build looks up every word of a
/// site, and SipHash took a quarter of tokenizing (the hash of a short string with good
/// low bits; the Fx hash's low bits crowd a short word's buckets and were slower still).
pub type Vocabulary = std::collections::HashMap<String, u32, foldhash::fast::RandomState>;

#[derive(Clone)]
pub struct Tokenizer {
    vocab: Vocabulary,
    cls: u32,
    sep: u32,
    unk: u32,
}

impl Tokenizer {
    /// Load from a Hugging Face `tokenizer.json` (the WordPiece vocabulary is read from it).
    pub fn from_json(bytes: &[u8]) -> Result<Tokenizer, EmbedError> {
        let v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| EmbedError(format!("tokenizer.json is not valid JSON: {e}")))?;
        let model = &v["model"];
        if model["type"] != "WordPiece" {
            return Err(EmbedError("tokenizer.json is not a WordPiece tokenizer".into()));
        }
        let vocab_json = model["vocab"].as_object().ok_or_else(|| EmbedError("tokenizer.json has no vocabulary".into()))?;
        let mut vocab = Vocabulary::with_capacity_and_hasher(vocab_json.len(), Default::default());
        for (tok, id) in vocab_json {
            let id = id.as_u64().and_then(|i| u32::try_from(i).ok()).ok_or_else(|| EmbedError(format!("bad id for token {tok:?}")))?;
            vocab.insert(tok.clone(), id);
        }
        let get = |t: &str| vocab.get(t).copied().ok_or_else(|| EmbedError(format!("vocabulary has no {t} token")));
        Ok(Tokenizer { cls: get("[CLS]")?, sep: get("[SEP]")?, unk: get("[UNK]")?, vocab })
    }

    /// Read a `tokenizer.json` file.
    #[cfg(not(target_family = "wasm"))]
    pub fn read(path: &std::path::Path) -> Result<Tokenizer, EmbedError> {
        let bytes = std::fs::read(path).map_err(|e| EmbedError(format!("cannot read tokenizer {}: {e}", path.display())))?;
        Tokenizer::from_json(&bytes).map_err(|e| EmbedError(format!("{}: {e}", path.display())))
    }

    /// Token ids of `text`: `[CLS]`, word pieces (truncated to fit), `[SEP]`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.cls];
        ids.extend(wordpiece::encode_pieces(&self.vocab, text, Some(self.unk)));
        ids.push(self.sep);
        ids
    }

    /// The vocabulary: token string → id.
    pub fn vocab(&self) -> &Vocabulary {
        &self.vocab
    }

    /// The ids of `[CLS]`, `[SEP]` and `[UNK]`.
    pub fn special_ids(&self) -> [u32; 3] {
        [self.cls, self.sep, self.unk]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Tokenizer {
        let vocab: Vec<&str> = vec!["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "hello", "!", ",", "cafe", "東"];
        let json = serde_json::json!({"model": {"type": "WordPiece", "vocab": vocab.iter().enumerate().map(|(i, t)| (t.to_string(), serde_json::json!(i))).collect::<serde_json::Map<_, _>>()}});
        Tokenizer::from_json(json.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn word_pieces_punctuation_accents_and_unknowns() {
        let t = tiny();
        assert_eq!(t.encode("Unaffable!"), vec![2, 4, 5, 6, 8, 3]);
        assert_eq!(t.encode("CAFÉ, hello"), vec![2, 10, 9, 7, 3]);
        assert_eq!(t.encode("xyz 東"), vec![2, 1, 11, 3]);
        assert_eq!(t.encode(""), vec![2, 3]);
        assert_eq!(t.encode(" \t\u{0}\u{7} "), vec![2, 3]);
    }

    #[test]
    fn truncates_to_the_budget() {
        let t = tiny();
        let ids = t.encode(&"hello ".repeat(1000));
        assert_eq!(ids.len(), MAX_TOKENS);
        assert_eq!((ids[0], ids[MAX_TOKENS - 1]), (2, 3));
    }

    #[test]
    fn bad_tokenizer_files_are_errors() {
        assert!(Tokenizer::from_json(b"nope").is_err());
        assert!(Tokenizer::from_json(br#"{"model":{"type":"BPE"}}"#).is_err());
        assert!(Tokenizer::from_json(br#"{"model":{"type":"WordPiece","vocab":{"a":1}}}"#).is_err());
    }
}
