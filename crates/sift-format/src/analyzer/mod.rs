//! Text analysis: the one place that turns text into index terms, used identically at build
//! time and query time (so the two can never disagree).
//!
//! Pipeline: Unicode word segmentation (UAX #29) → compounds (words joined by `-`, `_`, `.`)
//! → parts (split on connectors and case changes) → fold (NFKD, strip diacritics, lowercase)
//! → Snowball English stem. Parts sit at consecutive positions; a compound's joined form sits
//! at its first part's position, so `StateMachine`, `state_machine` and `state machine` meet.

use crate::charclass;
use crate::decompose;
use std::borrow::Cow;
use std::sync::OnceLock;

mod segment;
mod stopwords;

pub use segment::{compounds, compounds_iter};
pub use stopwords::{is_stop_term, is_stopword};

/// Parts longer than this (in chars) are noise — base64, hashes, minified code — and are
/// not indexed. Bounds the dictionary on hostile input.
pub const MAX_TERM_CHARS: usize = 48;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The index term: folded and stemmed.
    pub term: String,
    /// Position in the token stream; a joined form shares its first part's position.
    pub pos: u32,
    /// Byte range in the analysed text (for highlighting).
    pub start: usize,
    pub end: usize,
    /// True for the joined form of a compound (`statemachine`).
    pub joined: bool,
}

/// Case and diacritic folding: NFKD (also maps ligatures and full-width forms), combining
/// marks dropped, lowercase. ASCII takes a fast path.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut decomposed = String::with_capacity(s.len());
    for c in s.chars() {
        decompose::fold_char(c, &mut decomposed);
    }
    let mut out = String::with_capacity(decomposed.len());
    for c in decomposed.chars() {
        charclass::push_lowercase(c, &mut out);
    }
    out
}

fn stemmer() -> &'static rust_stemmers::Stemmer {
    static STEMMER: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
}

/// Stem a folded word. Tokens with digits (`utf8`, `h2`, `3`) and very short tokens are kept
/// as they are: stemming identifiers and acronyms only loses information.
pub fn stem(folded: &str) -> Cow<'_, str> {
    if folded.len() <= 3 || !folded.chars().all(charclass::is_alphabetic) {
        return Cow::Borrowed(folded);
    }
    stemmer().stem(folded)
}

/// Fold and stem one word: the term a single query word looks up.
pub fn term_of(word: &str) -> String {
    let f = fold(word);
    stem(&f).into_owned()
}

/// Analyse `text`, appending tokens starting at position `first_pos`; returns the next free
/// position.
pub fn tokenize(text: &str, first_pos: u32, out: &mut Vec<Token>) -> u32 {
    let mut pos = first_pos;
    for (start, end) in compounds(text) {
        pos = emit_compound(text, start, end, pos, None, out);
    }
    pos
}

/// Like `tokenize`, but a word whose folded form fails `could_match` is not stemmed (its
/// term is left empty). Stems keep a word's first letters, so a snippet builder that only
/// looks for a few terms can skip stemming nearly every word of a long page.
/// Stops after position `stop_at` (a snippet needs nothing beyond its window).
/// Positions before `skip_before` are counted but not emitted (a snippet window deep in a
/// long section needs only the count, and plain lowercase words are counted without
/// allocating). Returns whether any token was skipped.
pub fn tokenize_filtered(text: &str, could_match: &dyn Fn(&str) -> bool, skip_before: u32, stop_at: u32, out: &mut Vec<Token>) -> bool {
    let mut pos = 0;
    let mut scratch = Vec::new();
    let mut skipped = false;
    for (start, end) in compounds_iter(text) {
        if pos > stop_at {
            break;
        }
        if pos < skip_before {
            // Counting only, while even a multi-part compound would end before the window.
            if let Some(n) = simple_word_positions(&text[start..end]) {
                if pos + n <= skip_before {
                    pos += n;
                    skipped = true;
                    continue;
                }
            }
            scratch.clear();
            let next = emit_compound(text, start, end, pos, Some(&|_: &str| false), &mut scratch);
            if next <= skip_before {
                pos = next;
                skipped |= !scratch.is_empty();
                continue;
            }
        }
        pos = emit_compound(text, start, end, pos, Some(could_match), out);
    }
    skipped
}

/// Positions taken by a compound that is one plain ASCII word (`word`, `Word`, `v2`): one,
/// exactly as `emit_compound` would count it. None: ask `emit_compound`.
fn simple_word_positions(w: &str) -> Option<u32> {
    let b = w.as_bytes();
    let plain = !b.is_empty()
        && b.len() <= MAX_TERM_CHARS
        && b[0].is_ascii_alphanumeric()
        && b[1..].iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    plain.then_some(1)
}

/// Convenience: the terms of `text` in order, joined forms included.
pub fn terms(text: &str) -> Vec<String> {
    let mut toks = Vec::new();
    tokenize(text, 0, &mut toks);
    toks.into_iter().map(|t| t.term).collect()
}

/// Split a compound into parts: connectors (`_ . - :`) separate, apostrophes vanish
/// (`don't` → `dont`), and case changes separate (`parseHTTPResponse` → parse|HTTP|Response).
fn parts(s: &str, base: usize) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cur_start = 0usize;
    let mut cur_end = 0usize;
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let flush = |cur: &mut String, st: usize, en: usize, out: &mut Vec<(usize, usize, String)>| {
        if !cur.is_empty() {
            out.push((base + st, base + en, std::mem::take(cur)));
        }
    };
    for (k, &(i, c)) in chars.iter().enumerate() {
        if c == '\'' || c == '\u{2019}' {
            continue;
        }
        if !charclass::is_alphanumeric(c) && !decompose::folds_to_nothing(c) {
            flush(&mut cur, cur_start, cur_end, &mut out);
            continue;
        }
        if !cur.is_empty() {
            let prev = cur.chars().next_back().unwrap_or(' ');
            let next = chars.get(k + 1).map(|&(_, n)| n).unwrap_or(' ');
            let lower_to_upper = charclass::is_lowercase(prev) && charclass::is_uppercase(c);
            let acronym_end = charclass::is_uppercase(prev) && charclass::is_uppercase(c) && charclass::is_lowercase(next);
            if lower_to_upper || acronym_end {
                flush(&mut cur, cur_start, cur_end, &mut out);
            }
        }
        if cur.is_empty() {
            cur_start = i;
        }
        cur.push(c);
        cur_end = i + c.len_utf8();
    }
    flush(&mut cur, cur_start, cur_end, &mut out);
    out
}

fn emit_compound(text: &str, start: usize, end: usize, pos: u32, could_match: Option<&dyn Fn(&str) -> bool>, out: &mut Vec<Token>) -> u32 {
    let stem_if = |f: &str| -> String {
        match could_match {
            Some(cm) if !cm(f) => String::new(),
            _ => stem(f).into_owned(),
        }
    };
    let ps = parts(&text[start..end], start);
    let mut folded_parts: Vec<(usize, usize, String)> = Vec::with_capacity(ps.len());
    for (s, e, p) in ps {
        let f = fold(&p);
        if f.is_empty() || f.chars().count() > MAX_TERM_CHARS {
            continue;
        }
        folded_parts.push((s, e, f));
    }
    if folded_parts.is_empty() {
        return pos;
    }
    for (k, (s, e, f)) in folded_parts.iter().enumerate() {
        out.push(Token { term: stem_if(f), pos: pos + k as u32, start: *s, end: *e, joined: false });
    }
    if folded_parts.len() > 1 {
        let joined: String = folded_parts.iter().map(|p| p.2.as_str()).collect();
        if joined.chars().count() <= MAX_TERM_CHARS {
            out.push(Token {
                term: stem_if(&joined),
                pos,
                start: folded_parts[0].0,
                end: folded_parts[folded_parts.len() - 1].1,
                joined: true,
            });
        }
    }
    pos + folded_parts.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Vec<String> {
        terms(s)
    }

    #[test]
    fn camel_snake_kebab_and_spaced_forms_meet() {
        let camel = t("StateMachine");
        let snake = t("state_machine");
        let kebab = t("state-machine");
        let spaced = t("state machine");
        assert_eq!(camel, vec!["state", "machin", "statemachin"]);
        assert_eq!(snake, camel);
        assert_eq!(kebab, camel);
        assert_eq!(spaced, vec!["state", "machin"]);
        assert_eq!(t("statemachine"), vec!["statemachin"]);
    }

    #[test]
    fn acronym_runs_split_before_the_next_word() {
        assert_eq!(t("parseHTTPResponse"), vec!["pars", "http", "respons", "parsehttprespons"]);
        assert_eq!(t("XMLHttpRequest")[..3], ["xml", "http", "request"]);
    }

    #[test]
    fn two_letter_acronyms_and_digits_are_kept() {
        assert_eq!(t("AI and UI in MCP"), vec!["ai", "and", "ui", "in", "mcp"]);
        assert_eq!(t("utf8 h2"), vec!["utf8", "h2"]);
        assert_eq!(t("Python 3.11"), vec!["python", "3", "11", "311"]);
    }

    #[test]
    fn diacritics_case_ligatures_and_full_width_fold() {
        assert_eq!(t("Crème Brûlée"), t("creme brulee"));
        assert_eq!(t("NAÏVE"), t("naive"));
        assert_eq!(t("ﬁle"), t("file"));
        assert_eq!(t("ＡＢＣ"), t("abc"));
    }

    #[test]
    fn stemming_conflates_inflections() {
        assert_eq!(term_of("authenticate"), term_of("authentication"));
        assert_eq!(term_of("Running"), term_of("runs"));
        assert_eq!(term_of("configure"), term_of("configuration"));
    }

    #[test]
    fn apostrophes_vanish_and_punctuation_splits() {
        assert_eq!(t("don't"), vec!["dont"]);
        assert_eq!(t("os.path.join()"), vec!["os", "path", "join", "ospathjoin"]);
    }

    #[test]
    fn positions_and_offsets() {
        let mut toks = Vec::new();
        let next = tokenize("read the state_machine now", 10, &mut toks);
        let sm: Vec<_> = toks.iter().filter(|t| t.term.starts_with("state")).collect();
        assert_eq!(sm[0].pos, 12);
        assert_eq!(sm.iter().find(|t| t.joined).unwrap().pos, 12);
        assert_eq!(next, 15);
        let now = toks.iter().find(|t| t.term == "now").unwrap();
        assert_eq!(&"read the state_machine now"[now.start..now.end], "now");
    }

    #[test]
    fn cjk_and_emoji_and_junk_do_not_panic() {
        assert!(!t("東京 タワー").is_empty());
        assert!(t("🦀🦀 ---- !!!").is_empty());
        assert!(t(&"x".repeat(500)).is_empty(), "over-long parts are not indexed");
        assert!(t("").is_empty());
    }
}
