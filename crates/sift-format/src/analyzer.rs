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

fn is_word(seg: &str) -> bool {
    seg.chars().any(charclass::is_alphanumeric)
}

/// Byte ranges of compounds: UAX #29 words, with words joined by a single `-` merged
/// (UAX #29 already keeps `snake_case`, `os.path` and `don't` together).
pub fn compounds(text: &str) -> Vec<(usize, usize)> {
    compounds_iter(text).collect()
}

/// Lazy form of `compounds`: callers that stop early do not segment the rest of the text.
/// ASCII text (most docs) takes a hand-written segmenter that follows the UAX #29 word rules
/// for ASCII exactly (checked against `unicode-segmentation` in the tests): it is the hot
/// path of snippets and indexing, and the general tables cost a binary search per character.
pub fn compounds_iter(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    if text.is_ascii() {
        Compounds::Ascii(AsciiCompounds { b: text.as_bytes(), i: 0 })
    } else {
        Compounds::Unicode(Box::new(compounds_unicode(text)))
    }
}

enum Compounds<'a> {
    Ascii(AsciiCompounds<'a>),
    Unicode(Box<dyn Iterator<Item = (usize, usize)> + 'a>),
}

impl Iterator for Compounds<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        match self {
            Compounds::Ascii(a) => a.next(),
            Compounds::Unicode(u) => u.next(),
        }
    }
}

fn compounds_unicode(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut segs = crate::wordbreak::word_bounds(text).peekable();
    std::iter::from_fn(move || {
        // Find the next word, then absorb `-word` continuations (kebab-case).
        let (start, mut end) = loop {
            let (i, seg) = segs.next()?;
            if is_word(seg) {
                break (i, i + seg.len());
            }
        };
        loop {
            match segs.peek() {
                Some(&(i, "-")) if i == end => {
                    let mut ahead = segs.clone();
                    ahead.next();
                    match ahead.peek() {
                        Some(&(j, w)) if j == i + 1 && is_word(w) => {
                            segs.next();
                            let (j, w) = segs.next().expect("peeked");
                            end = j + w.len();
                        }
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        Some((start, end))
    })
}

/// UAX #29 word-break classes of the ASCII characters that take part in words.
#[derive(Clone, Copy, PartialEq)]
enum Wb {
    Letter,
    Numeric,
    ExtendNumLet, // _
    MidLetter,    // :
    MidNumLet,    // . and the apostrophe
    MidNum,       // , ;
    Other,
}

fn wb(c: u8) -> Wb {
    match c {
        b'a'..=b'z' | b'A'..=b'Z' => Wb::Letter,
        b'0'..=b'9' => Wb::Numeric,
        b'_' => Wb::ExtendNumLet,
        b':' => Wb::MidLetter,
        b'.' | b'\'' => Wb::MidNumLet,
        b',' | b';' => Wb::MidNum,
        _ => Wb::Other,
    }
}

struct AsciiCompounds<'a> {
    b: &'a [u8],
    i: usize,
}

impl AsciiCompounds<'_> {
    /// The UAX #29 segment starting at `start` if it starts with a word character: its end,
    /// and whether it holds a letter or digit (a run of `_` is not a word).
    fn segment(&self, start: usize) -> Option<(usize, bool)> {
        let b = self.b;
        let first = wb(*b.get(start)?);
        if !matches!(first, Wb::Letter | Wb::Numeric | Wb::ExtendNumLet) {
            return None;
        }
        let mut prev = first;
        let mut alnum = first != Wb::ExtendNumLet;
        let mut j = start + 1;
        while j < b.len() {
            let x = wb(b[j]);
            match x {
                // WB5, WB8, WB9, WB10, WB13b; WB13a
                Wb::Letter | Wb::Numeric | Wb::ExtendNumLet => {
                    alnum |= x != Wb::ExtendNumLet;
                    prev = x;
                    j += 1;
                }
                Wb::MidLetter | Wb::MidNumLet | Wb::MidNum => {
                    let y = b.get(j + 1).map(|&c| wb(c));
                    // WB6/WB7: letter (MidLetter | MidNumLet) letter; WB11/WB12: digit (MidNum | MidNumLet) digit.
                    let joins = match (prev, x, y) {
                        (Wb::Letter, Wb::MidLetter | Wb::MidNumLet, Some(Wb::Letter)) => true,
                        (Wb::Numeric, Wb::MidNum | Wb::MidNumLet, Some(Wb::Numeric)) => true,
                        _ => false,
                    };
                    if !joins {
                        break;
                    }
                    prev = y.expect("matched Some");
                    j += 2;
                }
                Wb::Other => break,
            }
        }
        Some((j, alnum))
    }
}

impl Iterator for AsciiCompounds<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        let b = self.b;
        // The next word segment.
        let (start, mut end) = loop {
            if self.i >= b.len() {
                return None;
            }
            match self.segment(self.i) {
                Some((e, true)) => break (self.i, e),
                Some((e, false)) => self.i = e,
                None => self.i += 1,
            }
        };
        // Absorb `-word` continuations (kebab-case).
        while end + 1 < b.len() && b[end] == b'-' {
            match self.segment(end + 1) {
                Some((e, true)) => end = e,
                _ => break,
            }
        }
        self.i = end;
        Some((start, end))
    }
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

/// Whether an index term is the stem of a stop word. Stop-word postings carry no
/// positions (they are a third of all tokens); phrase matching treats them as one-word gaps.
pub fn is_stop_term(term: &str) -> bool {
    static STOP_TERMS: OnceLock<Vec<String>> = OnceLock::new();
    let terms = STOP_TERMS.get_or_init(|| {
        let mut terms: Vec<String> = STOPWORDS.iter().map(|w| stem(w).into_owned()).collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    });
    terms.binary_search_by(|t| t.as_str().cmp(term)).is_ok()
}

/// English stop words, removed from bare query terms (never from phrases, never from the
/// index). A query made only of stop words keeps them.
pub fn is_stopword(folded: &str) -> bool {
    STOPWORDS.binary_search(&folded).is_ok()
}

// Sorted (binary search). The classic IR list, without words that are also identifiers
// people search for in docs (e.g. "like", "new", "get", "set").
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The ASCII segmenter must cut exactly where unicode-segmentation does: random strings
    /// over every ASCII class that matters (letters, digits, `_`, `.`, `'`, `:`, `,`, `;`,
    /// `-`, spaces, line breaks, other punctuation).
    #[test]
    fn ascii_segmenter_matches_uax29_exactly() {
        const ALPHABET: &[u8] = b"aZq9_0.':,;- \n\r\t\"()/#@!?+=*xYm1-.._''::,,;;  ";
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..60_000 {
            let len = (rnd() % 40) as usize;
            let text: String = (0..len).map(|_| ALPHABET[(rnd() % ALPHABET.len() as u64) as usize] as char).collect();
            let fast: Vec<(usize, usize)> = AsciiCompounds { b: text.as_bytes(), i: 0 }.collect();
            let reference: Vec<(usize, usize)> = compounds_unicode(&text).collect();
            assert_eq!(fast, reference, "case {case}: {text:?}");
        }
        for text in ["os.path.join", "don't stop", "3.14,15", "e.g. this", "__init__.py", "a--b", "kebab-case-x", "x:y::z", "v2.0-beta_1"] {
            let fast: Vec<(usize, usize)> = AsciiCompounds { b: text.as_bytes(), i: 0 }.collect();
            assert_eq!(fast, compounds_unicode(text).collect::<Vec<_>>(), "{text:?}");
        }
    }

    fn t(s: &str) -> Vec<String> {
        terms(s)
    }

    #[test]
    fn stopword_list_is_sorted() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
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
