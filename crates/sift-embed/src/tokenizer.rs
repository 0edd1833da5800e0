//! BERT WordPiece tokenization as Hugging Face `tokenizers` does it for all-MiniLM-L6-v2
//! (BertNormalizer with lowercasing and accent stripping, BertPreTokenizer, WordPiece with
//! `##` continuations, `[CLS] … [SEP]`), in pure Rust so it also runs in wasm.

use std::collections::HashMap;
use std::fmt;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// Token budget per text, `[CLS]` and `[SEP]` included (the reference truncates at 256).
pub const MAX_TOKENS: usize = 256;
const MAX_CHARS_PER_WORD: usize = 100;

#[derive(Debug, Clone, PartialEq)]
pub struct TokenizerError(pub String);

impl fmt::Display for TokenizerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TokenizerError {}

pub struct Tokenizer {
    vocab: HashMap<String, u32>,
    cls: u32,
    sep: u32,
    unk: u32,
}

impl Tokenizer {
    /// Load from a Hugging Face `tokenizer.json` (the WordPiece vocabulary is read from it).
    pub fn from_json(bytes: &[u8]) -> Result<Tokenizer, TokenizerError> {
        let v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| TokenizerError(format!("tokenizer.json is not valid JSON: {e}")))?;
        let model = &v["model"];
        if model["type"] != "WordPiece" {
            return Err(TokenizerError("tokenizer.json is not a WordPiece tokenizer".into()));
        }
        let vocab_json = model["vocab"].as_object().ok_or_else(|| TokenizerError("tokenizer.json has no vocabulary".into()))?;
        let mut vocab = HashMap::with_capacity(vocab_json.len());
        for (tok, id) in vocab_json {
            let id = id.as_u64().and_then(|i| u32::try_from(i).ok()).ok_or_else(|| TokenizerError(format!("bad id for token {tok:?}")))?;
            vocab.insert(tok.clone(), id);
        }
        let get = |t: &str| vocab.get(t).copied().ok_or_else(|| TokenizerError(format!("vocabulary has no {t} token")));
        Ok(Tokenizer { cls: get("[CLS]")?, sep: get("[SEP]")?, unk: get("[UNK]")?, vocab })
    }

    /// Token ids of `text`: `[CLS]`, word pieces (truncated to fit), `[SEP]`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.cls];
        'words: for word in pre_tokenize(&normalize(text)) {
            for id in self.word_pieces(&word) {
                if ids.len() == MAX_TOKENS - 1 {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.sep);
        ids
    }

    /// Greedy longest-match-first WordPiece; a word with an unmatchable piece is `[UNK]`.
    fn word_pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_CHARS_PER_WORD {
            return vec![self.unk];
        }
        let mut out = Vec::new();
        let mut start = 0;
        let mut piece = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let from = chars[start].0;
                let to = if end == chars.len() { word.len() } else { chars[end].0 };
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[from..to]);
                if let Some(&id) = self.vocab.get(&piece) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => out.push(id),
                None => return vec![self.unk],
            }
            start = end;
        }
        out
    }
}

fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_bert_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.general_category_group() == GeneralCategoryGroup::Other
}

fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.general_category_group() == GeneralCategoryGroup::Punctuation
}

fn is_chinese_char(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F | 0x2B740..=0x2B81F | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// BertNormalizer: clean text, space out CJK ideographs, strip accents (NFD, drop Mn),
/// lowercase.
fn normalize(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_bert_control(c) {
            continue;
        }
        if is_bert_whitespace(c) {
            cleaned.push(' ');
        } else if is_chinese_char(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    let mut out = String::with_capacity(cleaned.len());
    for c in cleaned.nfd().filter(|c| c.general_category() != GeneralCategory::NonspacingMark) {
        out.extend(c.to_lowercase());
    }
    out
}

/// BertPreTokenizer: split on whitespace; every punctuation character is its own word.
fn pre_tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else if is_bert_punctuation(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
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
