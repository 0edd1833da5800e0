//! The two Unicode character classes BERT's text cleaning and pre-tokenization ask about
//! (`semantic/wordpiece.rs`), from compact range tables that the build-time embedder and the
//! query-time static encoder share:
//!
//! - [`is_other`]: general category group C (Cc, Cf, Cs, Co, Cn), what BertNormalizer
//!   drops as control characters;
//! - [`is_punctuation`]: general category group P, what BertPreTokenizer splits off.
//!
//! Each table is `other.bin` / `punctuation.bin`: the class as sorted, disjoint runs of code
//! points, each run `varint (start − previous run's end)`, `varint (length − 1)`. Both files
//! are generated from the `unicode-properties` crate by
//! `tests::the_tables_are_generated_from_unicode_properties` (run it with
//! `SIFT_BLESS_TABLES=1` to rewrite them), which also checks every code point against the
//! crate. The crate's full general-category table is ten times the runs for these two
//! questions.

mod letters;

pub use letters::{is_alphabetic, is_alphanumeric, is_lowercase, is_uppercase, lowercase, push_lowercase};

use sift_base::varint::Reader;
use std::sync::OnceLock;

const OTHER: &[u8] = include_bytes!("other.bin");
const PUNCTUATION: &[u8] = include_bytes!("punctuation.bin");

/// Decoded runs: `(first, last)` code points, inclusive, sorted.
struct Runs(Vec<(u32, u32)>);

impl Runs {
    fn decode(bytes: &[u8]) -> Runs {
        let mut runs = Vec::new();
        let mut r = Reader::new(bytes);
        let mut end = 0u32;
        // Written by the generator below and checked by its test; a truncated pair ends
        // the table rather than panicking.
        while let (Ok(gap), Ok(len)) = (r.u32(), r.u32()) {
            let first = end.saturating_add(gap);
            let last = first.saturating_add(len);
            runs.push((first, last));
            end = last.saturating_add(1);
        }
        Runs(runs)
    }

    fn contains(&self, c: char) -> bool {
        let c = c as u32;
        // The first run starting after `c`; `c` is in the run before it, if anywhere.
        let k = self.0.partition_point(|&(first, _)| first <= c);
        k > 0 && c <= self.0[k - 1].1
    }
}

/// General category group Other (control, format, surrogate, private use, unassigned).
pub fn is_other(c: char) -> bool {
    static T: OnceLock<Runs> = OnceLock::new();
    // ASCII's only Other characters are the C0 controls and DEL.
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    T.get_or_init(|| Runs::decode(OTHER)).contains(c)
}

/// General category group Punctuation.
pub fn is_punctuation(c: char) -> bool {
    static T: OnceLock<Runs> = OnceLock::new();
    // ASCII's punctuation without its symbols (`$ + < = > ^ ` | ~`): most text is ASCII,
    // and the table is a search.
    if c.is_ascii() {
        return matches!(c, '!'..='#' | '%'..='*' | ','..='/' | ':' | ';' | '?' | '@' | '['..=']' | '_' | '{' | '}');
    }
    T.get_or_init(|| Runs::decode(PUNCTUATION)).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sift_base::varint;
    use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

    fn chars() -> impl Iterator<Item = char> {
        (0..=0x10FFFFu32).filter_map(char::from_u32)
    }

    /// Runs over code points (surrogates, which are not `char`s, count as Other, as the
    /// crate's Cs; it keeps Other's runs across them unbroken).
    fn encode(group: GeneralCategoryGroup) -> Vec<u8> {
        let member = |cp: u32| match char::from_u32(cp) {
            Some(c) => c.general_category_group() == group,
            None => group == GeneralCategoryGroup::Other,
        };
        let mut out = Vec::new();
        let mut end = 0u32;
        let mut cp = 0u32;
        while cp <= 0x10FFFF {
            if !member(cp) {
                cp += 1;
                continue;
            }
            let first = cp;
            while cp < 0x10FFFF && member(cp + 1) {
                cp += 1;
            }
            varint::put(&mut out, u64::from(first - end));
            varint::put(&mut out, u64::from(cp - first));
            end = cp + 1;
            cp += 1;
        }
        out
    }

    #[test]
    fn the_tables_are_generated_from_unicode_properties() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/charclass");
        for (file, bytes) in
            [("other.bin", encode(GeneralCategoryGroup::Other)), ("punctuation.bin", encode(GeneralCategoryGroup::Punctuation))]
        {
            if std::env::var_os("SIFT_BLESS_TABLES").is_some() {
                std::fs::write(dir.join(file), &bytes).unwrap();
            } else {
                let have = std::fs::read(dir.join(file)).unwrap();
                assert!(have == bytes, "{file} is stale: SIFT_BLESS_TABLES=1 cargo test -p sift-text charclass");
            }
        }
    }

    #[test]
    fn every_character_is_classed_as_the_crate_classes_it() {
        for c in chars() {
            let group = c.general_category_group();
            assert_eq!(is_other(c), group == GeneralCategoryGroup::Other, "other U+{:04X}", c as u32);
            assert_eq!(is_punctuation(c), group == GeneralCategoryGroup::Punctuation, "punctuation U+{:04X}", c as u32);
        }
    }

    #[test]
    fn a_truncated_table_decodes_to_the_runs_before_the_cut() {
        let full = Runs::decode(PUNCTUATION);
        let cut = Runs::decode(&PUNCTUATION[..PUNCTUATION.len() - 1]);
        assert_eq!(cut.0.len(), full.0.len() - 1);
        assert!(Runs::decode(&[]).0.is_empty());
        assert!(!Runs::decode(&[0x80]).contains('\0'));
    }
}
