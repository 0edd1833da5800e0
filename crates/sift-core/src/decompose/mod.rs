//! Unicode decomposition for the two text normalisers, from compact tables that index
//! building and searching share (the same code on both sides, so they cannot disagree):
//!
//! - [`fold_char`] for the analyzer's folding: NFKD with combining marks dropped
//!   (`ﬁ` → `fi`, `é` → `e`, `Ａ` → `A`, a combining mark → nothing);
//! - [`bert_char`] for MiniLM's BertNormalizer: NFD with nonspacing marks (Mn) dropped.
//!
//! The tables hold only the characters these change, as `fold.bin` and `bert.bin`:
//! entries sorted by code point, each `varint (code point − previous code point)`,
//! `u8 byte length`, the UTF-8 replacement. Hangul syllables decompose by the Unicode
//! algorithm instead (11,172 of them, no table). Both files are generated from the
//! `unicode-normalization` crate by `tests::the_tables_are_generated_from_unicode_normalization`
//! (run it with `SIFT_BLESS_TABLES=1` to rewrite them), which also proves, for every code
//! point, that per-character replacement equals the crate's string normalisation for
//! folding (every character NFKD would reorder is one folding drops) and, for BERT's, but
//! for 33 rare spacing marks that NFD orders by class when two stand side by side. The crate's
//! own tables were 63 kB of the gzipped browser runtime; these are a fraction of that.

use crate::bundle::varint::Reader;
use std::sync::OnceLock;

const FOLD: &[u8] = include_bytes!("fold.bin");
const BERT: &[u8] = include_bytes!("bert.bin");

/// A decoded table: code points, and each one's replacement (None if the generator ever
/// wrote invalid UTF-8, which its test rules out).
struct Table {
    chars: Vec<u32>,
    replacements: Vec<Option<&'static str>>,
}

impl Table {
    fn decode(bytes: &'static [u8]) -> Table {
        let mut t = Table { chars: Vec::new(), replacements: Vec::new() };
        let mut r = Reader::new(bytes);
        let mut cp = 0u32;
        // Written by the generator and checked by its test; a truncated entry ends the
        // table rather than panicking.
        while let Ok(delta) = r.u32() {
            let Ok(text) = r.byte().and_then(|len| r.bytes(usize::from(len))) else { break };
            cp = cp.saturating_add(delta);
            t.chars.push(cp);
            t.replacements.push(std::str::from_utf8(text).ok());
        }
        t
    }

    fn get(&self, c: char) -> Option<&'static str> {
        self.replacements[self.chars.binary_search(&(c as u32)).ok()?]
    }
}

fn fold_table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| Table::decode(FOLD))
}

fn bert_table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| Table::decode(BERT))
}

const HANGUL_FIRST: u32 = 0xAC00;
const HANGUL_COUNT: u32 = 11_172;

/// A Hangul syllable's conjoining jamo (Unicode §3.12), appended to `out`.
fn hangul(c: char, out: &mut String) -> bool {
    let s = (c as u32).wrapping_sub(HANGUL_FIRST);
    if s >= HANGUL_COUNT {
        return false;
    }
    let (l, v, t) = (0x1100 + s / 588, 0x1161 + (s % 588) / 28, s % 28);
    out.extend([l, v].into_iter().filter_map(char::from_u32));
    if t > 0 {
        out.extend(char::from_u32(0x11A7 + t));
    }
    true
}

/// Append `c` to `out` as `table` replaces it; characters below `identity_below` and
/// Hangul syllables need no lookup.
fn decompose(c: char, identity_below: u32, table: &Table, out: &mut String) {
    if (c as u32) < identity_below {
        out.push(c);
    } else if !hangul(c, out) {
        match table.get(c) {
            Some(r) => out.push_str(r),
            None => out.push(c),
        }
    }
}

/// Append `c` folded (NFKD, combining marks dropped; case is the caller's) to `out`.
pub fn fold_char(c: char, out: &mut String) {
    decompose(c, 0xA0, fold_table(), out);
}

/// Whether folding drops `c` entirely. Among characters that are not alphanumeric these
/// are exactly the combining marks (general category M); a few letters (`ﾞ`, a half-width
/// voiced sound mark) fold to a mark and so to nothing too.
pub fn folds_to_nothing(c: char) -> bool {
    (c as u32) >= 0x300 && fold_table().get(c) == Some("")
}

/// Append `c` as BertNormalizer strips accents (NFD, nonspacing marks dropped) to `out`.
pub fn bert_char(c: char, out: &mut String) {
    decompose(c, 0xC0, bert_table(), out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_normalization::char::{canonical_combining_class, is_combining_mark as crate_is_mark};
    use unicode_normalization::UnicodeNormalization;
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

    fn chars() -> impl Iterator<Item = char> {
        (0..=0x10FFFFu32).filter_map(char::from_u32)
    }

    fn fold_of(c: char) -> String {
        c.to_string().nfkd().filter(|x| !crate_is_mark(*x)).collect()
    }

    fn bert_of(c: char) -> String {
        c.to_string().nfd().filter(|x| x.general_category() != GeneralCategory::NonspacingMark).collect()
    }

    fn encode(map: impl Fn(char) -> String) -> Vec<u8> {
        let mut out = Vec::new();
        let mut prev = 0u32;
        for c in chars().filter(|&c| !(HANGUL_FIRST..HANGUL_FIRST + HANGUL_COUNT).contains(&(c as u32))) {
            let r = map(c);
            if r == c.to_string() {
                continue;
            }
            crate::bundle::varint::put(&mut out, u64::from(c as u32 - prev));
            out.push(u8::try_from(r.len()).expect("a replacement fits 255 bytes"));
            out.extend_from_slice(r.as_bytes());
            prev = c as u32;
        }
        out
    }

    #[test]
    fn the_tables_are_generated_from_unicode_normalization() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/decompose");
        for (file, bytes) in [("fold.bin", encode(fold_of)), ("bert.bin", encode(bert_of))] {
            if std::env::var_os("SIFT_BLESS_TABLES").is_some() {
                std::fs::write(dir.join(file), &bytes).unwrap();
            } else {
                let have = std::fs::read(dir.join(file)).unwrap();
                assert!(have == bytes, "{file} is stale: SIFT_BLESS_TABLES=1 cargo test -p sift-core decompose");
            }
        }
    }

    #[test]
    fn every_character_maps_as_the_crate_normalises_it() {
        for c in chars() {
            let mut got = String::new();
            fold_char(c, &mut got);
            assert_eq!(got, fold_of(c), "fold U+{:04X}", c as u32);
            got.clear();
            bert_char(c, &mut got);
            assert_eq!(got, bert_of(c), "bert U+{:04X}", c as u32);
            if !c.is_alphanumeric() {
                assert_eq!(folds_to_nothing(c), crate_is_mark(c), "mark U+{:04X}", c as u32);
            }
        }
    }

    #[test]
    fn per_character_replacement_equals_string_normalisation() {
        // NFKD and NFD reorder runs of characters with a nonzero combining class; if every
        // such character is dropped, reordering cannot show, and per-character replacement
        // is exactly the string's normalisation.
        let reordered_and_kept: Vec<u32> =
            chars().filter(|&c| canonical_combining_class(c) != 0 && !crate_is_mark(c)).map(|c| c as u32).collect();
        assert!(reordered_and_kept.is_empty(), "fold keeps {reordered_and_kept:X?}, which NFKD reorders");
        let kept: Vec<u32> = chars()
            .filter(|&c| canonical_combining_class(c) != 0 && c.general_category() != GeneralCategory::NonspacingMark)
            .map(|c| c as u32)
            .collect();
        // Spacing marks with a combining class (33 in Unicode 16: viramas of Tagalog,
        // Balinese, Javanese and other scripts, Hangul tone marks, musical stems and flags):
        // BERT's NFD would put two of them standing side by side in class order; here they
        // keep text order. Only the query encoder's tokens of such rare sequences can
        // differ from the reference tokenizer; the index does not use this normaliser.
        assert!(kept.len() <= 40, "{kept:X?}");
        let text = "Ａ ﬁ Crème brûlée naïve Ångström 한국어 Ⅻ ½ ǅ ﬃ ᾇ İ";
        let mut folded = String::new();
        let mut bert = String::new();
        for c in text.chars() {
            fold_char(c, &mut folded);
            bert_char(c, &mut bert);
        }
        assert_eq!(folded, text.nfkd().filter(|x| !crate_is_mark(*x)).collect::<String>());
        assert_eq!(bert, text.nfd().filter(|x| x.general_category() != GeneralCategory::NonspacingMark).collect::<String>());
    }
}
