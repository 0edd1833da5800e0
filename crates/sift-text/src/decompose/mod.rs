//! Unicode decomposition for the two text normalisers, from compact tables that index
//! building and searching share (the same code on both sides, so they cannot disagree):
//!
//! - [`fold_char`] for the analyzer's folding: NFKD with combining marks dropped
//!   (`ﬁ` → `fi`, `é` → `e`, `Ａ` → `A`, a combining mark → nothing);
//! - [`bert_char`] for MiniLM's BertNormalizer: NFD with nonspacing marks (Mn) dropped.
//!
//! The tables hold only the characters these change, as `fold.bin`, `bert.bin` and
//! `rare.bin`:
//! entries sorted by code point, each `varint (code point − previous code point)`,
//! `u8 byte length`, the UTF-8 replacement. Hangul syllables decompose by the Unicode
//! algorithm instead (11,172 of them, no table). Both files are generated from the
//! `unicode-normalization` crate by `tests::the_tables_are_generated_from_unicode_normalization`
//! (run it with `SIFT_BLESS_TABLES=1` to rewrite them), which also proves, for every code
//! point, that per-character replacement equals the crate's string normalisation for
//! folding (every character NFKD would reorder is one folding drops) and, for BERT's, but
//! for 33 rare spacing marks that NFD orders by class when two stand side by side. The
//! crate's own tables would be most of the browser runtime; these are a fraction of it.
//!
//! Both tables are cut in two at [`in_rare_blocks`]: `fold.bin` and `bert.bin` (Latin,
//! Greek, Cyrillic, punctuation, ligatures, full- and half-width forms)
//! are always compiled in; `rare.bin` (both tables' entries for enclosed CJK and CJK
//! compatibility, Arabic presentation forms, mathematical alphanumerics, Kangxi radicals,
//! variation selectors and other rare blocks) only with the `rare-folds`
//! feature (native hosts, the builder). The browser
//! runtimes leave it out: every bundle carries a copy (the fold table shard), which
//! the engine asks for before it analyses text with a character of those blocks and installs
//! with [`install_rare_folds`] after checking it is this table byte for byte (its length and
//! CRC-32 are compiled in). Folding is the same either way; until the copy is installed a
//! rare-block character folds (and normalises for BERT) to itself.

use sift_base::varint::Reader;
use std::sync::OnceLock;

const FOLD: &[u8] = include_bytes!("fold.bin");
/// The rare blocks' tables, folding's and BERT's: `u32 LE` length of folding's, then it,
/// then BERT's.
#[cfg(feature = "rare-folds")]
const RARE: &[u8] = include_bytes!("rare.bin");
/// `rare.bin`'s length and CRC-32 (checked against the file by the generator's test):
/// what a bundle's copy must match to be installed.
pub const RARE_FOLDS_LEN: usize = 29_965;
pub const RARE_FOLDS_CRC32: u32 = 0xc60a_abdb;
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

/// The rare blocks' tables: compiled in, or installed from a bundle's copy.
struct RareTables {
    fold: Table,
    bert: Table,
}

impl RareTables {
    /// `rare.bin`'s layout (checked by length and CRC-32 before it gets here).
    fn decode(bytes: &'static [u8]) -> RareTables {
        let fold_len = bytes.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()).map_or(0, u32::from_le_bytes) as usize;
        let body = bytes.get(4..).unwrap_or_default();
        let (fold, bert) = body.split_at(fold_len.min(body.len()));
        RareTables { fold: Table::decode(fold), bert: Table::decode(bert) }
    }
}

static RARE_TABLES: OnceLock<RareTables> = OnceLock::new();

fn rare_tables() -> Option<&'static RareTables> {
    #[cfg(feature = "rare-folds")]
    return Some(RARE_TABLES.get_or_init(|| RareTables::decode(RARE)));
    #[cfg(not(feature = "rare-folds"))]
    RARE_TABLES.get()
}

fn rare_fold_table() -> Option<&'static Table> {
    rare_tables().map(|t| &t.fold)
}

/// Whether folding `c` (or BERT's normalising it) may need `rare.bin`: its code point is in
/// a block that table covers (the generator puts exactly the entries of these blocks in
/// `rare.bin`). CJK ideographs, Hangul syllables and emoji are not.
pub fn in_rare_blocks(c: char) -> bool {
    let c = c as u32;
    c >= 0x2F00
        && !(0x3000..0x3200).contains(&c)
        && !(0x3400..0xA66F).contains(&c)
        && !(0xAC00..0xF900).contains(&c)
        && !(0xFB00..0xFB50).contains(&c)
        && !(0xFE00..0xFE70).contains(&c)
        && !(0xFF00..0x10000).contains(&c)
        && !(0x1F252..0x1FBF0).contains(&c)
        && !(0x20000..0x2F800).contains(&c)
        && !(0x30000..0xE0000).contains(&c)
}

/// Whether folding and BERT's normaliser are exact for every character now: the rare
/// blocks' tables are compiled in or installed.
pub fn rare_folds_ready() -> bool {
    rare_fold_table().is_some()
}

/// `rare.bin` itself, where it is compiled in: the builder stores a copy in bundles.
pub fn rare_folds_bytes() -> Option<&'static [u8]> {
    #[cfg(feature = "rare-folds")]
    return Some(RARE);
    #[cfg(not(feature = "rare-folds"))]
    None
}

/// Install a bundle's copy of `rare.bin` (once per process; the tables are the same for
/// every bundle of this version). Refused unless it is the table this runtime was built
/// with, byte for byte.
pub fn install_rare_folds(bytes: Vec<u8>) -> Result<(), sift_base::SiftError> {
    if bytes.len() != RARE_FOLDS_LEN || sift_base::crc32::crc32(&bytes) != RARE_FOLDS_CRC32 {
        return Err(sift_base::SiftError::corrupt(msg!(
            "the fold table ({} bytes) is not this runtime's ({} bytes): a bundle built by another version of sift; rebuild it",
            bytes.len(),
            RARE_FOLDS_LEN
        )));
    }
    if !rare_folds_ready() {
        RARE_TABLES.get_or_init(|| RareTables::decode(Box::leak(bytes.into_boxed_slice())));
    }
    Ok(())
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
    match fold_table_of(c) {
        Some(table) => decompose(c, 0xA0, table, out),
        None => out.push(c),
    }
}

/// The folding table that holds `c`, if the runtime has it.
fn fold_table_of(c: char) -> Option<&'static Table> {
    if in_rare_blocks(c) {
        rare_fold_table()
    } else {
        Some(fold_table())
    }
}

/// Whether folding drops `c` entirely. Among characters that are not alphanumeric these
/// are exactly the combining marks (general category M); a few letters (`ﾞ`, a half-width
/// voiced sound mark) fold to a mark and so to nothing too.
pub fn folds_to_nothing(c: char) -> bool {
    (c as u32) >= 0x300 && fold_table_of(c).and_then(|t| t.get(c)) == Some("")
}

/// Append `c` as BertNormalizer strips accents (NFD, nonspacing marks dropped) to `out`.
pub fn bert_char(c: char, out: &mut String) {
    if !in_rare_blocks(c) {
        decompose(c, 0xC0, bert_table(), out);
    } else if let Some(t) = rare_tables() {
        decompose(c, 0xC0, &t.bert, out);
    } else {
        out.push(c);
    }
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

    fn encode(map: impl Fn(char) -> String, keep: impl Fn(char) -> bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut prev = 0u32;
        for c in chars().filter(|&c| !(HANGUL_FIRST..HANGUL_FIRST + HANGUL_COUNT).contains(&(c as u32)) && keep(c)) {
            let r = map(c);
            if r == c.to_string() {
                continue;
            }
            sift_base::varint::put(&mut out, u64::from(c as u32 - prev));
            out.push(u8::try_from(r.len()).expect("a replacement fits 255 bytes"));
            out.extend_from_slice(r.as_bytes());
            prev = c as u32;
        }
        out
    }

    #[test]
    fn the_tables_are_generated_from_unicode_normalization() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/decompose");
        let (fold_rare, bert_rare) = (encode(fold_of, in_rare_blocks), encode(bert_of, in_rare_blocks));
        let mut rare = u32::try_from(fold_rare.len()).unwrap().to_le_bytes().to_vec();
        rare.extend_from_slice(&fold_rare);
        rare.extend_from_slice(&bert_rare);
        let tables = [
            ("fold.bin", encode(fold_of, |c| !in_rare_blocks(c))),
            ("bert.bin", encode(bert_of, |c| !in_rare_blocks(c))),
            ("rare.bin", rare.clone()),
        ];
        for (file, bytes) in tables {
            if std::env::var_os("SIFT_BLESS_TABLES").is_some() {
                std::fs::write(dir.join(file), &bytes).unwrap();
            } else {
                let have = std::fs::read(dir.join(file)).unwrap();
                assert!(have == bytes, "{file} is stale: SIFT_BLESS_TABLES=1 cargo test -p sift-text decompose");
            }
        }
        let (len, crc) = (rare.len(), sift_base::crc32::crc32(&rare));
        assert!(
            (len, crc) == (RARE_FOLDS_LEN, RARE_FOLDS_CRC32),
            "set RARE_FOLDS_LEN = {len} and RARE_FOLDS_CRC32 = {crc:#010x} in decompose/mod.rs"
        );
    }

    #[test]
    fn the_rare_blocks_hold_what_folding_changes_there_and_little_else() {
        // Characters of the rare blocks that folding changes: most of what a query with a
        // rare-block character fetches the table for has an entry.
        let rare: Vec<char> = chars().filter(|&c| in_rare_blocks(c)).collect();
        let changed = rare.iter().filter(|&&c| fold_of(c) != c.to_string()).count();
        assert!(changed > 5000, "{changed}");
        // Common scripts never need the table.
        for text in ["naïve café", "Ａｂｃ ﬁ", "日本語のテキスト 한국어", "Ελληνικά русский", "𠀋 CJK extension B", "emoji 😀🦀"]
        {
            assert!(!text.chars().any(in_rare_blocks), "{text}");
        }
        for c in ['㈱', '𝐀', 'ﺎ', '⼀', '\u{E0100}', '㍿', '\u{F900}'] {
            assert!(in_rare_blocks(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn a_bundles_copy_of_the_rare_table_is_installed_only_if_it_is_this_one() {
        let ours = rare_folds_bytes().expect("native tests build with rare-folds").to_vec();
        let mut other = ours.clone();
        other[10] ^= 1;
        assert!(install_rare_folds(other).unwrap_err().message.contains("rebuild"));
        assert!(install_rare_folds(ours[..100].to_vec()).is_err());
        assert!(install_rare_folds(Vec::new()).is_err());
        install_rare_folds(ours).unwrap();
        assert!(rare_folds_ready());
        let mut folded = String::new();
        "㈱ 𝐀".chars().for_each(|c| fold_char(c, &mut folded));
        assert_eq!(folded, "(株) A");
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
