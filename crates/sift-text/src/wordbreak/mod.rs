//! Word boundaries (Unicode Standard Annex #29) for text that is not ASCII, over a compact
//! table of the Word_Break property that index building and searching share.
//!
//! `word.bin` lists the code points whose Word_Break is not `Other`, as runs: `varint gap`
//! (from the end of the run before), `varint length − 1`, `u8 class` ([`Wb`]).
//! `pictographic.bin` lists the Extended_Pictographic runs (for rule WB3c) the same way,
//! without the class. Both are generated from the `unicode-segmentation` crate's tables by
//! `tests::the_tables_are_generated_from_unicode_segmentation` (`SIFT_BLESS_TABLES=1` to
//! rewrite them); other tests hold [`word_bounds`] to the crate's segmentation for every
//! code point in a set of contexts and for random strings of every class. These are less
//! than half the size of the crate's own tables and state machine.
//!
//! The segmentation follows the crate exactly (it is what bundles were built with): a
//! segment is built forward, character by character, in a state that says what the
//! segment is so far; Extend, Format and ZWJ characters join whatever precedes them (WB4),
//! and a letter or number run may continue across one MidLetter / MidNum character only if
//! the right kind follows (WB6, WB7, WB11, WB12), else the segment ends before it.

use sift_base::varint::Reader;
use std::sync::OnceLock;

const WORD: &[u8] = include_bytes!("word.bin");
const PICTOGRAPHIC: &[u8] = include_bytes!("pictographic.bin");

/// Word_Break values (`Other` is every code point the table does not list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wb {
    Other = 0,
    ALetter = 1,
    Cr = 2,
    DoubleQuote = 3,
    Extend = 4,
    ExtendNumLet = 5,
    Format = 6,
    HebrewLetter = 7,
    Katakana = 8,
    Lf = 9,
    MidLetter = 10,
    MidNum = 11,
    MidNumLet = 12,
    Newline = 13,
    Numeric = 14,
    RegionalIndicator = 15,
    SingleQuote = 16,
    WSegSpace = 17,
    Zwj = 18,
}

impl Wb {
    fn from_u8(b: u8) -> Wb {
        use Wb::*;
        [
            Other,
            ALetter,
            Cr,
            DoubleQuote,
            Extend,
            ExtendNumLet,
            Format,
            HebrewLetter,
            Katakana,
            Lf,
            MidLetter,
            MidNum,
            MidNumLet,
            Newline,
            Numeric,
            RegionalIndicator,
            SingleQuote,
            WSegSpace,
            Zwj,
        ]
        .get(usize::from(b))
        .copied()
        .unwrap_or(Other)
    }
}

/// Runs of code points: (first, last, class), and where the runs of each block of
/// `BLOCK` code points begin (built when decoded, so a lookup searches a few runs, not all).
/// ASCII, most characters even of text that is not all ASCII, has a table of its own.
struct Runs {
    runs: Vec<(u32, u32, u8)>,
    blocks: Vec<u32>,
    ascii: [u8; 128],
}

const BLOCK: u32 = 0x80;
/// Blocks indexed: the planes most text is written in (the rest search every run).
const INDEXED: u32 = 0x20000;

impl Runs {
    /// A table as its generator wrote it (its test checks it); a truncated entry ends it.
    fn decode(bytes: &[u8], with_class: bool) -> Runs {
        let mut r = Reader::new(bytes);
        let mut runs = Vec::new();
        let mut next = 0u32;
        while let (Ok(gap), Ok(len)) = (r.u32(), r.u32()) {
            let class = if with_class { r.byte().unwrap_or(0) } else { 1 };
            let first = next.saturating_add(gap);
            let last = first.saturating_add(len);
            runs.push((first, last, class));
            next = last.saturating_add(1);
        }
        let blocks = (0..=INDEXED / BLOCK).map(|b| runs.partition_point(|&(_, last, _)| last < b * BLOCK) as u32).collect();
        let mut table = Runs { runs, blocks, ascii: [0; 128] };
        table.ascii = std::array::from_fn(|c| table.search(c as u32));
        table
    }

    fn get(&self, c: char) -> u8 {
        match self.ascii.get(c as usize) {
            Some(&class) => class,
            None => self.search(c as u32),
        }
    }

    fn search(&self, c: u32) -> u8 {
        let (lo, hi) = match self.blocks.get((c / BLOCK) as usize..=(c / BLOCK) as usize + 1) {
            Some(&[lo, hi]) => (lo as usize, (hi as usize + 1).min(self.runs.len())),
            _ => (0, self.runs.len()),
        };
        let runs = &self.runs[lo..hi];
        let i = runs.partition_point(|&(_, last, _)| last < c);
        match runs.get(i) {
            Some(&(first, _, class)) if first <= c => class,
            _ => 0,
        }
    }
}

fn word_runs() -> &'static Runs {
    static T: OnceLock<Runs> = OnceLock::new();
    T.get_or_init(|| Runs::decode(WORD, true))
}

fn pictographic_runs() -> &'static Runs {
    static T: OnceLock<Runs> = OnceLock::new();
    T.get_or_init(|| Runs::decode(PICTOGRAPHIC, false))
}

/// The Word_Break class of `c`.
pub fn class(c: char) -> Wb {
    Wb::from_u8(word_runs().get(c))
}

fn pictographic(c: char) -> bool {
    pictographic_runs().get(c) != 0
}

/// What the segment being built is so far.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Letter,
    HebrewLetter,
    Numeric,
    Katakana,
    ExtendNumLet,
    WSegSpace,
    Zwj,
    Emoji,
    /// One regional indicator (a flag takes two).
    HalfFlag,
    Flag,
    /// After a character that joins only if the right kind follows (the segment ends
    /// before it, at `at`, otherwise), or after Extend/Format at the segment's start.
    Pending(Need, usize),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    /// A letter must follow (WB6/WB7); back up to the middle character if not.
    Letter,
    /// A Hebrew letter must follow a double quote (WB7b/WB7c).
    HebrewLetter,
    /// A number must follow (WB11/WB12).
    Numeric,
    /// A letter may follow a single quote after a Hebrew letter (WB7a keeps the quote either way).
    MaybeLetter,
    /// Extend/Format characters at the start of a segment: whatever comes next starts another.
    Nothing,
}

/// The end of the segment that starts at byte `start` of `text` (`start < text.len()`).
fn segment_end(text: &str, start: usize) -> usize {
    let mut state = State::Start;
    let mut prev = Wb::Other;
    // An Extend/Format/ZWJ character joined a space run: no further space joins it (WB3d
    // applies to neighbours only).
    let mut skipped = false;
    let mut chars = text[start..].char_indices().map(|(i, c)| (start + i, c)).peekable();
    while let Some((at, c)) = chars.next() {
        let after = at + c.len_utf8();
        let wb = class(c);
        let prev_zwj = prev == Wb::Zwj;
        prev = wb;
        if state != State::Start && matches!(wb, Wb::Extend | Wb::Format | Wb::Zwj) {
            skipped = true; // WB4
            continue;
        }
        if prev_zwj && pictographic(c) {
            state = State::Emoji; // WB3c
            continue;
        }
        let next = match state {
            State::Start => match wb {
                Wb::Cr => return if chars.peek().is_some_and(|&(_, n)| class(n) == Wb::Lf) { after + 1 } else { after }, // WB3, WB3a
                Wb::Lf | Wb::Newline => return after,                                                                    // WB3a
                Wb::ALetter => State::Letter,
                Wb::HebrewLetter => State::HebrewLetter,
                Wb::Numeric => State::Numeric,
                Wb::Katakana => State::Katakana,
                Wb::ExtendNumLet => State::ExtendNumLet,
                Wb::RegionalIndicator => State::HalfFlag,
                Wb::Zwj => State::Zwj,
                Wb::WSegSpace => State::WSegSpace,
                _ => match chars.peek() {
                    Some(&(_, n)) if matches!(class(n), Wb::Extend | Wb::Format | Wb::Zwj) => State::Pending(Need::Nothing, after),
                    _ => return after, // WB999
                },
            },
            State::WSegSpace if wb == Wb::WSegSpace && !skipped => State::WSegSpace, // WB3d
            State::Letter | State::HebrewLetter => match wb {
                Wb::ALetter => State::Letter,                                                              // WB5
                Wb::HebrewLetter => State::HebrewLetter,                                                   // WB5
                Wb::Numeric => State::Numeric,                                                             // WB9
                Wb::ExtendNumLet => State::ExtendNumLet,                                                   // WB13a
                Wb::DoubleQuote if state == State::HebrewLetter => State::Pending(Need::HebrewLetter, at), // WB7b
                Wb::SingleQuote if state == State::HebrewLetter => State::Pending(Need::MaybeLetter, at),  // WB7a
                Wb::MidLetter | Wb::MidNumLet | Wb::SingleQuote => State::Pending(Need::Letter, at),       // WB6
                _ => return at,
            },
            State::Numeric => match wb {
                Wb::Numeric => State::Numeric,                                                     // WB8
                Wb::ALetter => State::Letter,                                                      // WB10
                Wb::HebrewLetter => State::HebrewLetter,                                           // WB10
                Wb::ExtendNumLet => State::ExtendNumLet,                                           // WB13a
                Wb::MidNum | Wb::MidNumLet | Wb::SingleQuote => State::Pending(Need::Numeric, at), // WB12
                _ => return at,
            },
            State::Katakana => match wb {
                Wb::Katakana => State::Katakana,         // WB13
                Wb::ExtendNumLet => State::ExtendNumLet, // WB13a
                _ => return at,
            },
            State::ExtendNumLet => match wb {
                Wb::ExtendNumLet => State::ExtendNumLet, // WB13a
                Wb::ALetter => State::Letter,            // WB13b
                Wb::HebrewLetter => State::HebrewLetter, // WB13b
                Wb::Numeric => State::Numeric,           // WB13b
                Wb::Katakana => State::Katakana,         // WB13b
                _ => return at,
            },
            State::HalfFlag if wb == Wb::RegionalIndicator => State::Flag, // WB15, WB16
            State::Pending(need, back) => match (need, wb) {
                (Need::Numeric, Wb::Numeric) => State::Numeric,                              // WB11
                (Need::Letter | Need::MaybeLetter, Wb::ALetter) => State::Letter,            // WB7
                (Need::Letter | Need::MaybeLetter, Wb::HebrewLetter) => State::HebrewLetter, // WB7
                (Need::HebrewLetter, Wb::HebrewLetter) => State::HebrewLetter,               // WB7c
                (Need::Nothing | Need::MaybeLetter, _) => return at,
                _ => return back,
            },
            _ => return at,
        };
        state = next;
    }
    match state {
        State::Pending(Need::Letter | Need::HebrewLetter | Need::Numeric, back) => back,
        _ => text.len(),
    }
}

/// The segments of `text` with their byte offsets, as UAX #29 word boundaries cut it (what
/// `unicode_segmentation::UnicodeSegmentation::split_word_bound_indices` gives).
pub fn word_bounds(text: &str) -> impl Iterator<Item = (usize, &str)> + Clone + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let end = segment_end(text, at);
        let seg = (at, &text[at..end]);
        at = end;
        Some(seg)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_segmentation::UnicodeSegmentation;

    fn chars() -> impl Iterator<Item = char> {
        (0..=0x10FFFFu32).filter_map(char::from_u32)
    }

    fn theirs(s: &str) -> Vec<(usize, &str)> {
        s.split_word_bound_indices().collect()
    }

    fn ours(s: &str) -> Vec<(usize, &str)> {
        word_bounds(s).collect()
    }

    /// The crate's own tables, read from its source (`tables.rs`): the Word_Break runs and
    /// the Extended_Pictographic runs. Only the generator needs them; what is checked is
    /// behaviour.
    fn crate_tables() -> Option<(Vec<(u32, u32, Wb)>, Vec<(u32, u32)>)> {
        let home = std::env::var("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo"));
        let lock = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock")).ok()?;
        let version = lock.split("name = \"unicode-segmentation\"\nversion = \"").nth(1)?.split('"').next()?.to_string();
        let src = std::fs::read_dir(home.join("registry/src"))
            .ok()?
            .flatten()
            .find_map(|d| std::fs::read_to_string(d.path().join(format!("unicode-segmentation-{version}/src/tables.rs"))).ok())?;
        let runs = |module: &str, table: &str| -> Vec<(u32, u32, String)> {
            let body = src.split(&format!("pub mod {module} {{")).nth(1).unwrap_or_default();
            let body = body.split(&format!("const {table}: &[")).nth(1).unwrap_or_default();
            let body = body.split("= &[").nth(1).unwrap_or_default().split("];").next().unwrap_or_default();
            let cp = |s: &str| u32::from_str_radix(s.trim().trim_start_matches("'\\u{").trim_end_matches("}'"), 16).unwrap();
            body.split('(')
                .skip(1)
                .map(|entry| {
                    let parts: Vec<&str> = entry.split(')').next().unwrap().split(',').map(str::trim).collect();
                    (cp(parts[0]), cp(parts[1]), parts[2].to_string())
                })
                .collect()
        };
        let names = [
            "WC_ALetter",
            "WC_CR",
            "WC_Double_Quote",
            "WC_Extend",
            "WC_ExtendNumLet",
            "WC_Format",
            "WC_Hebrew_Letter",
            "WC_Katakana",
            "WC_LF",
            "WC_MidLetter",
            "WC_MidNum",
            "WC_MidNumLet",
            "WC_Newline",
            "WC_Numeric",
            "WC_Regional_Indicator",
            "WC_Single_Quote",
            "WC_WSegSpace",
            "WC_ZWJ",
        ];
        let word = runs("word", "word_cat_table")
            .into_iter()
            .map(|(a, b, name)| (a, b, Wb::from_u8(names.iter().position(|n| *n == name).expect("a known class") as u8 + 1)))
            .collect();
        let emoji = runs("emoji", "emoji_cat_table")
            .into_iter()
            .filter(|(_, _, name)| name == "EC_Extended_Pictographic")
            .map(|(a, b, _)| (a, b))
            .collect();
        Some((word, emoji))
    }

    fn encode(runs: impl Iterator<Item = (u32, u32, Option<Wb>)>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut next = 0u32;
        for (first, last, class) in runs {
            sift_base::varint::put(&mut out, u64::from(first - next));
            sift_base::varint::put(&mut out, u64::from(last - first));
            if let Some(c) = class {
                out.push(c as u8);
            }
            next = last + 1;
        }
        out
    }

    #[test]
    fn the_tables_are_generated_from_unicode_segmentation() {
        let Some((word, emoji)) = crate_tables() else {
            eprintln!("skipped: unicode-segmentation's source is not in the cargo registry here");
            return;
        };
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/wordbreak");
        let files = [
            ("word.bin", encode(word.iter().map(|&(a, b, c)| (a, b, Some(c))))),
            ("pictographic.bin", encode(emoji.iter().map(|&(a, b)| (a, b, None)))),
        ];
        for (file, bytes) in files {
            if std::env::var_os("SIFT_BLESS_TABLES").is_some() {
                std::fs::write(dir.join(file), &bytes).unwrap();
            } else {
                let have = std::fs::read(dir.join(file)).unwrap();
                assert!(have == bytes, "{file} is stale: SIFT_BLESS_TABLES=1 cargo test -p sift-text wordbreak");
            }
        }
    }

    #[test]
    fn every_character_segments_as_the_crate_segments_it() {
        // Probes that tell the classes apart: between letters, numbers, Hebrew letters and
        // katakana (the Mid* classes, WB5-WB13b), twice (WB3d, WB13, WB15), before an
        // extending mark (WB4), after a ZWJ (WB3c), after a CR (WB3).
        for c in chars() {
            let probes = [
                format!("a{c}a"),
                format!("1{c}1"),
                format!("א{c}א"),
                format!("ア{c}_"),
                format!("{c}{c}\u{301}{c}"),
                format!("\u{200d}{c} "),
                format!("\r{c}\n"),
            ];
            for s in &probes {
                assert_eq!(ours(s), theirs(s), "U+{:04X} in {s:?}", c as u32);
            }
        }
    }

    #[test]
    fn random_strings_of_every_class_segment_as_the_crate_segments_them() {
        // A few characters of every class and the pictographs.
        let mut pool: Vec<char> = Vec::new();
        for class in 0..=18u8 {
            pool.extend(chars().filter(|&c| class_of(c) == class).step_by(997).take(4));
        }
        pool.extend(chars().filter(|&c| pictographic(c)).step_by(97).take(8));
        pool.extend(['a', 'Z', '5', ' ', '.', '\'', '"', ':', ',', '_', '\u{200d}', '\u{301}', '\r', '\n', '-']);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let len = 1 + next() % 10;
            let s: String = (0..len).map(|_| pool[(next() % pool.len() as u64) as usize]).collect();
            assert_eq!(ours(&s), theirs(&s), "{s:?}");
        }
    }

    fn class_of(c: char) -> u8 {
        class(c) as u8
    }
}
