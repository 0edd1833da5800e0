//! BERT WordPiece tokenization as Hugging Face `tokenizers` does it for all-MiniLM-L6-v2:
//! BertNormalizer (clean text, space out CJK ideographs, strip accents, lowercase),
//! BertPreTokenizer (split on whitespace, every punctuation character its own word), then
//! greedy longest-match-first WordPiece with `##` continuations; a word with a piece that
//! cannot be matched is `[UNK]`.
//!
//! One implementation for both sides: the build-time embedder (`sift-embed`, with the
//! model's full vocabulary) and the query-time static encoder (the bundle's vocabulary, the
//! tokens its corpus uses). For a word the corpus contains, both give the same pieces: the
//! bundle's vocabulary is a subset of the model's, and holds every piece the word was cut
//! into, so no longer match can exist in it.

use crate::charclass;

/// Token budget per text, `[CLS]` and `[SEP]` included (the model reads at most 256).
pub const MAX_TOKENS: usize = 256;
/// Longer words are `[UNK]` whole, as in BERT.
pub const MAX_CHARS_PER_WORD: usize = 100;

/// A vocabulary: a piece (`word` or `##cont`) → its id.
pub trait Vocab {
    fn id(&self, piece: &str) -> Option<u32>;
}

impl<S: std::hash::BuildHasher> Vocab for std::collections::HashMap<String, u32, S> {
    fn id(&self, piece: &str) -> Option<u32> {
        self.get(piece).copied()
    }
}

/// Append the pieces of one word, greedy longest-match-first; false (nothing appended) when a
/// piece cannot be matched
/// (the word is `[UNK]`).
pub fn word_pieces(vocab: &dyn Vocab, word: &str, out: &mut Vec<u32>) -> bool {
    // Most words are pieces of their own: the longest match tried first is the word.
    if word.len() <= MAX_CHARS_PER_WORD {
        if let Some(id) = vocab.id(word) {
            out.push(id);
            return true;
        }
    }
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    if chars.len() > MAX_CHARS_PER_WORD {
        return false;
    }
    let start_len = out.len();
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
            if let Some(id) = vocab.id(&piece) {
                found = Some(id);
                break;
            }
            end -= 1;
        }
        match found {
            Some(id) => out.push(id),
            None => {
                out.truncate(start_len);
                return false;
            }
        }
        start = end;
    }
    true
}

fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_bert_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && charclass::is_other(c)
}

fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || charclass::is_punctuation(c)
}

fn is_chinese_char(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F | 0x2B740..=0x2B81F | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// BertNormalizer: clean text, space out CJK ideographs, strip accents (NFD, drop Mn),
/// lowercase.
pub fn normalize(text: &str) -> String {
    // Each step maps a character alone, so they run in one pass; an ASCII character has no
    // accent to strip.
    let mut out = String::with_capacity(text.len());
    let mut stripped = String::new();
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_bert_control(c) {
            continue;
        }
        if is_bert_whitespace(c) {
            out.push(' ');
        } else if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            let cjk = is_chinese_char(c);
            if cjk {
                out.push(' ');
            }
            stripped.clear();
            crate::decompose::bert_char(c, &mut stripped);
            for d in stripped.chars() {
                charclass::push_lowercase(d, &mut out);
            }
            if cjk {
                out.push(' ');
            }
        }
    }
    out
}

/// BertPreTokenizer: split on whitespace; every punctuation character is its own word.
pub fn pre_tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(text, |w| {
        out.push(w.to_string());
        true
    });
    out
}

/// [`pre_tokenize`]'s words, each handed to `f` as a slice of `text` until it returns false.
fn each_word(text: &str, mut f: impl FnMut(&str) -> bool) {
    let mut start = None;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if space || is_bert_punctuation(c) {
            if let Some(s) = start.take() {
                if !f(&text[s..i]) {
                    return;
                }
            }
            if !space && !f(&text[i..i + c.len_utf8()]) {
                return;
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        f(&text[s..]);
    }
}

/// The words of a text as the model sees them (normalised, pre-tokenised).
pub fn words(text: &str) -> Vec<String> {
    pre_tokenize(&normalize(text))
}

/// Word-piece ids of a text without `[CLS]`/`[SEP]`, at most `MAX_TOKENS - 2` of them (what
/// the model reads); an unmatchable word adds `unk` (None: it is skipped).
pub fn encode_pieces(vocab: &dyn Vocab, text: &str, unk: Option<u32>) -> Vec<u32> {
    let mut ids = Vec::new();
    each_word(&normalize(text), |word| {
        if !word_pieces(vocab, word, &mut ids) {
            ids.extend(unk);
        }
        if ids.len() >= MAX_TOKENS - 2 {
            ids.truncate(MAX_TOKENS - 2);
            return false;
        }
        true
    });
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn vocab(tokens: &[&str]) -> HashMap<String, u32> {
        tokens.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect()
    }

    #[test]
    fn longest_match_first_with_continuations() {
        let v = vocab(&["un", "##aff", "##able", "hello", "!", "cafe", "東"]);
        assert_eq!(encode_pieces(&v, "Unaffable!", None), vec![0, 1, 2, 4]);
        assert_eq!(encode_pieces(&v, "CAFÉ hello", None), vec![5, 3]);
        assert_eq!(encode_pieces(&v, "xyz 東", Some(99)), vec![99, 6]);
        assert_eq!(encode_pieces(&v, "xyz", None), Vec::<u32>::new());
    }

    #[test]
    fn a_subset_vocabulary_cuts_known_words_the_same_way() {
        let full = vocab(&["re", "##lease", "release", "##d", "rel", "##eas"]);
        let mut ids = Vec::new();
        assert!(word_pieces(&full, "released", &mut ids));
        let used: HashMap<String, u32> = full.iter().filter(|(_, id)| ids.contains(id)).map(|(k, v)| (k.clone(), *v)).collect();
        let mut again = Vec::new();
        assert!(word_pieces(&used, "released", &mut again));
        assert_eq!(ids, again);
    }

    #[test]
    fn truncates_to_the_model_budget() {
        let v = vocab(&["a"]);
        assert_eq!(encode_pieces(&v, &"a ".repeat(1000), None).len(), MAX_TOKENS - 2);
    }
}
