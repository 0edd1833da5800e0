//! The letter properties the analyzer asks about — alphabetic, alphanumeric, lowercase,
//! uppercase and the lowercase mapping — from one compact table, `letters.bin`, that index
//! building and searching share.
//!
//! Why a table of our own rather than `char`'s methods: those answer from the compiling
//! toolchain's Unicode version, and the builder (stable Rust, Unicode 17) and the browser
//! engines (nightly, Unicode 18) are compiled by different ones, so a word could be cut or
//! lowercased differently at index time and at query time. With the table both answer the
//! same by construction. It is also smaller than the standard library's tables and lookups.
//!
//! Encoding: three bytes of the Unicode version it was generated from, then runs over code
//! points, sorted and disjoint: `varint (first − previous run's end)`, `varint code`, then
//! one property pair (`code` even: a run of `code / 2 + 1` code points alike) or two
//! (`code` odd: `code / 2 + 1` pairs of code points alternating between them, as upper- and
//! lowercase letters do in many blocks). A property pair is a class byte ([`ALPHABETIC`],
//! [`NUMERIC`], [`LOWERCASE`], [`UPPERCASE`], [`DOTTED`]) and `varint zigzag(lowercase −
//! code point)`. A code point in no run has no property and lowercases to itself. The only
//! character whose lowercase is two characters, U+0130 `İ`, is marked [`DOTTED`]: its
//! lowercase is the mapped character and U+0307.
//!
//! Generated from the standard library by `tests::the_table_is_generated_from_the_standard_library`
//! (`SIFT_BLESS_TABLES=1` rewrites it), which also checks every code point against it when
//! the toolchain's Unicode version is the table's.

use sift_base::varint::{unzigzag, Reader};
use std::sync::OnceLock;

const LETTERS: &[u8] = include_bytes!("letters.bin");

const ALPHABETIC: u8 = 1;
const NUMERIC: u8 = 2;
const LOWERCASE: u8 = 4;
const UPPERCASE: u8 = 8;
/// Lowercases to the mapped character followed by U+0307 COMBINING DOT ABOVE.
const DOTTED: u8 = 16;

/// A code point's class bits and lowercase offset.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct Props {
    class: u8,
    lower: i32,
}

/// A decoded run: code points `first..=last`, all `a`, or alternating `a`, `b`, `a`, ….
struct Run {
    first: u32,
    last: u32,
    a: Props,
    b: Option<Props>,
}

fn decode(bytes: &[u8]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut r = Reader::new(bytes.get(3..).unwrap_or_default());
    let mut end = 0u32;
    let props = |r: &mut Reader| -> Option<Props> { Some(Props { class: r.byte().ok()?, lower: unzigzag(r.u64().ok()?) as i32 }) };
    // Written by the generator below and checked by its test; a truncated run ends the
    // table rather than panicking.
    while let (Ok(gap), Ok(code)) = (r.u32(), r.u32()) {
        let Some(a) = props(&mut r) else { break };
        let (b, len) = if code & 1 == 1 {
            let Some(b) = props(&mut r) else { break };
            (Some(b), (code / 2 + 1).saturating_mul(2))
        } else {
            (None, code / 2 + 1)
        };
        let first = end.saturating_add(gap);
        let last = first.saturating_add(len - 1);
        runs.push(Run { first, last, a, b });
        end = last.saturating_add(1);
    }
    runs
}

fn props(c: char) -> Props {
    static T: OnceLock<Vec<Run>> = OnceLock::new();
    lookup(T.get_or_init(|| decode(LETTERS)), c)
}

fn lookup(runs: &[Run], c: char) -> Props {
    let c = c as u32;
    // The first run starting after `c`; `c` is in the run before it, if anywhere.
    let k = runs.partition_point(|r| r.first <= c);
    match k.checked_sub(1).map(|i| &runs[i]) {
        Some(r) if c <= r.last => match r.b {
            Some(b) if (c - r.first) & 1 == 1 => b,
            _ => r.a,
        },
        _ => Props::default(),
    }
}

/// ASCII answered by `ascii` (no table lookup on the common path), the rest by the table.
fn has(c: char, ascii: fn(&char) -> bool, class: u8) -> bool {
    if c.is_ascii() {
        ascii(&c)
    } else {
        props(c).class & class != 0
    }
}

/// Unicode's Alphabetic property (what `char::is_alphabetic` answers).
pub fn is_alphabetic(c: char) -> bool {
    has(c, char::is_ascii_alphabetic, ALPHABETIC)
}

/// Alphabetic or Numeric (what `char::is_alphanumeric` answers).
pub fn is_alphanumeric(c: char) -> bool {
    has(c, char::is_ascii_alphanumeric, ALPHABETIC | NUMERIC)
}

/// Unicode's Lowercase property.
pub fn is_lowercase(c: char) -> bool {
    has(c, char::is_ascii_lowercase, LOWERCASE)
}

/// Unicode's Uppercase property.
pub fn is_uppercase(c: char) -> bool {
    has(c, char::is_ascii_uppercase, UPPERCASE)
}

/// Append `c` lowercased (what `char::to_lowercase` yields).
pub fn push_lowercase(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    push_lowered(c, props(c), out);
}

fn push_lowered(c: char, p: Props, out: &mut String) {
    // Every offset the generator wrote lands on a character; anything else (a damaged
    // table) leaves `c` as it is.
    out.push(char::from_u32((c as u32).wrapping_add_signed(p.lower)).unwrap_or(c));
    if p.class & DOTTED != 0 {
        out.push('\u{307}');
    }
}

/// `s` lowercased a character at a time.
pub fn lowercase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    s.chars().for_each(|c| push_lowercase(c, &mut out));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sift_base::varint;

    fn std_props(c: char) -> Props {
        let mut class = 0;
        for (yes, bit) in
            [(c.is_alphabetic(), ALPHABETIC), (c.is_numeric(), NUMERIC), (c.is_lowercase(), LOWERCASE), (c.is_uppercase(), UPPERCASE)]
        {
            if yes {
                class |= bit;
            }
        }
        let lower: Vec<char> = c.to_lowercase().collect();
        match lower[..] {
            [l] => Props { class, lower: l as i32 - c as i32 },
            [l, '\u{307}'] => Props { class: class | DOTTED, lower: l as i32 - c as i32 },
            _ => panic!("U+{:04X} lowercases to {lower:?}: the table cannot say so", c as u32),
        }
    }

    fn put(out: &mut Vec<u8>, p: Props) {
        out.push(p.class);
        varint::put(out, varint::zigzag(i64::from(p.lower)));
    }

    /// Runs of code points alike, and of alternating pairs where that takes fewer runs.
    fn encode() -> Vec<u8> {
        let (major, minor, update) = char::UNICODE_VERSION;
        let mut out = vec![major, minor, update];
        let of = |cp: u32| char::from_u32(cp).map(std_props).unwrap_or_default();
        let none = Props::default();
        let mut end = 0u32;
        let mut cp = 0u32;
        while cp <= 0x10FFFF {
            let a = of(cp);
            if a == none {
                cp += 1;
                continue;
            }
            let same = (cp..=0x10FFFF).take_while(|&x| of(x) == a).count() as u32;
            let b = if cp < 0x10FFFF { of(cp + 1) } else { none };
            // Pairs (a, b) repeated: worth it when they cover more than the plain run.
            let pairs = if b != a {
                (0..).take_while(|&k| cp + 2 * k < 0x10FFFF && of(cp + 2 * k) == a && of(cp + 2 * k + 1) == b).count() as u32
            } else {
                0
            };
            varint::put(&mut out, u64::from(cp - end));
            if pairs >= 2 && 2 * pairs > same {
                varint::put(&mut out, u64::from(2 * (pairs - 1) + 1));
                put(&mut out, a);
                put(&mut out, b);
                cp += 2 * pairs;
            } else {
                varint::put(&mut out, u64::from(2 * (same - 1)));
                put(&mut out, a);
                cp += same;
            }
            end = cp;
        }
        out
    }

    fn table_is_this_toolchains() -> bool {
        let (major, minor, update) = char::UNICODE_VERSION;
        LETTERS[..3] == [major, minor, update]
    }

    #[test]
    fn the_table_is_generated_from_the_standard_library() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/charclass/letters.bin");
        if std::env::var_os("SIFT_BLESS_TABLES").is_some() {
            std::fs::write(&path, encode()).unwrap();
            return;
        }
        if !table_is_this_toolchains() {
            eprintln!(
                "skipped: letters.bin is Unicode {:?}, this toolchain's is {:?} (SIFT_BLESS_TABLES=1 regenerates it)",
                &LETTERS[..3],
                char::UNICODE_VERSION
            );
            return;
        }
        assert!(LETTERS == encode(), "letters.bin is stale: SIFT_BLESS_TABLES=1 cargo test -p sift-text letters");
    }

    #[test]
    fn every_character_answers_as_the_standard_library() {
        if !table_is_this_toolchains() {
            eprintln!("skipped: letters.bin is Unicode {:?}, not this toolchain's {:?}", &LETTERS[..3], char::UNICODE_VERSION);
            return;
        }
        let mut lower = String::new();
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let at = format!("U+{:04X}", c as u32);
            assert_eq!(is_alphabetic(c), c.is_alphabetic(), "alphabetic {at}");
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "alphanumeric {at}");
            assert_eq!(is_lowercase(c), c.is_lowercase(), "lowercase {at}");
            assert_eq!(is_uppercase(c), c.is_uppercase(), "uppercase {at}");
            lower.clear();
            push_lowercase(c, &mut lower);
            assert_eq!(lower, c.to_lowercase().collect::<String>(), "to_lowercase {at}");
        }
    }

    #[test]
    fn letters_of_several_scripts() {
        assert_eq!(lowercase("ÉCOLE Straße ΣΟΦΙΑ Москва İ"), "école straße σοφια москва i\u{307}");
        assert!(is_alphabetic('漢') && is_alphabetic('é') && !is_alphabetic('٣') && is_alphanumeric('٣'));
        assert!(is_alphanumeric('Ⅻ') && is_uppercase('Ⅻ') && is_lowercase('ⅻ'));
        assert!(is_uppercase('Ω') && !is_lowercase('Ω') && is_lowercase('ω'));
        assert!(!is_alphanumeric('—') && !is_alphanumeric(' ') && !is_alphanumeric('\u{10FFFF}'));
    }

    #[test]
    fn a_damaged_table_decodes_to_the_runs_before_the_damage() {
        let full = decode(LETTERS);
        assert_eq!(decode(&LETTERS[..LETTERS.len() - 1]).len(), full.len() - 1);
        assert!(decode(&[]).is_empty());
        assert!(decode(&[17, 0, 0, 0x80]).is_empty());
        // A run claiming the whole code space with an offset to no character.
        let mut t = vec![17, 0, 0];
        varint::put(&mut t, 0);
        varint::put(&mut t, u64::from(2 * 0x10FFFFu32));
        t.push(ALPHABETIC);
        varint::put(&mut t, varint::zigzag(0x200000));
        let runs = decode(&t);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].last, 0x10FFFF);
        let mut out = String::new();
        push_lowered('Q', lookup(&runs, 'Q'), &mut out);
        assert_eq!(out, "Q");
        // A run longer than the code space ends at the top of it, not by overflowing.
        let mut t = vec![17, 0, 0];
        varint::put(&mut t, 5);
        varint::put(&mut t, u64::from(u32::MAX));
        t.extend([ALPHABETIC, 0, ALPHABETIC, 0]);
        assert_eq!(decode(&t)[0].last, u32::MAX);
    }
}
