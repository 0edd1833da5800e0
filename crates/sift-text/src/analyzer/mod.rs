//! Text analysis: the one place that turns text into index terms, used identically at build
//! time and query time (so the two can never disagree).
//!
//! Pipeline: Unicode word segmentation (UAX #29) → compounds (words joined by `-`, `_`, `.`)
//! → parts (split on connectors and case changes) → fold (NFKD, strip diacritics, lowercase)
//! → the language's Snowball stem. Parts sit at consecutive positions; a compound's joined
//! form sits at its first part's position, so `StateMachine`, `state_machine` and
//! `state machine` meet.
//!
//! Han, Kana, Hangul and Thai are written without spaces between words, and no dictionary
//! is carried to split them: a run of them is indexed as overlapping character bigrams at
//! consecutive positions, plus each character on its own (Lucene's CJK analysis), whatever
//! the bundle's language. A query's run of three or more characters is searched as its
//! bigrams, word by word (`run_bigrams`); a lone character looks up the character (`cjk`).
//!
//! Everything here depends on the language only through [`Analyzer`]: its stemmer and stop
//! words. Segmentation and folding are the same for every language.

use crate::charclass;
use crate::decompose;
use std::borrow::Cow;
use std::sync::OnceLock;

mod cjk;
mod language;
mod segment;
mod stopwords;

pub use cjk::{is_bigram_script, run_bigrams};
pub use language::{primary_subtag, set_host_stemmer, HostStemmer, STEMMED_LANGUAGES};
pub use segment::{compounds, compounds_iter};

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
    /// True for a character of a bigrammed run (Han, Kana, Hangul, Thai) indexed on its
    /// own beside the run's bigrams: the index has it for one-character queries; a query
    /// of the run looks up its bigrams instead.
    pub unigram: bool,
}

impl Token {
    /// Whether the token is one of the stream's words — what phrases, snippets and query
    /// parts go by — rather than an extra form indexed beside them (a compound's joined
    /// form, a bigrammed run's single characters).
    pub fn is_part(&self) -> bool {
        !self.joined && !self.unigram
    }
}

/// Case and diacritic folding: NFKD (also maps ligatures and full-width forms), combining
/// marks dropped, lowercase. ASCII takes a fast path.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut decomposed = String::with_capacity(s.len());
    for c in s.chars() {
        if kept_whole(c) {
            decomposed.push(c);
        } else {
            decompose::fold_char(c, &mut decomposed);
        }
    }
    let mut out = String::with_capacity(decomposed.len());
    for c in decomposed.chars() {
        charclass::push_lowercase(c, &mut out);
    }
    out
}

/// Characters folding leaves as written: the scripts whose combining marks are vowels and
/// voicing, not accents — Kana (`が` is not `か`), the Indic scripts, Thai, Lao, Tibetan,
/// Myanmar, Khmer — and Hangul syllables (which decomposition would spell out in jamo).
fn kept_whole(c: char) -> bool {
    matches!(c as u32, 0x0900..=0x0DFF | 0x0E00..=0x0EFF | 0x0F00..=0x0FFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x3040..=0x30FF | 0xAC00..=0xD7AF)
}

/// Whether a folded word is stemmed: not very short words, nor words with digits
/// (`utf8`, `h2`, `3`: stemming identifiers and acronyms only loses information), nor a
/// bigrammed run.
fn stemmable(folded: &str) -> bool {
    folded.len() > 3
        && !folded.chars().next().is_some_and(is_bigram_script)
        && folded.chars().all(|c| charclass::is_alphabetic(c) || decompose::folds_to_nothing(c))
}

/// How a bundle's text is analysed: its language's stemmer and stop words. Build and query
/// take the same one from the manifest.
#[derive(Clone)]
pub struct Analyzer {
    /// ISO 639 code (`en`, `de`, `zh`): a BCP 47 tag's primary subtag.
    language: String,
    stemmer: language::Stemmer,
    /// Folded stop words, sorted (English: the built-in list).
    stop_words: Vec<String>,
    /// Their stems, sorted.
    stop_terms: Vec<String>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Analyzer({})", self.language)
    }
}

impl PartialEq for Analyzer {
    fn eq(&self, other: &Analyzer) -> bool {
        self.language == other.language && self.stop_words == other.stop_words
    }
}

/// A language whose stemmer this build did not compile in (see `language`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StemmerMissing(pub String);

impl Analyzer {
    /// English, the language of every bundle that names none.
    pub fn english() -> &'static Analyzer {
        static EN: OnceLock<Analyzer> = OnceLock::new();
        EN.get_or_init(|| Analyzer::new("en", &[]).expect("English is built in"))
    }

    /// The analyzer of `language` (a primary subtag, `de`) with `stop_words` (English always
    /// has its own). A language without a Snowball stemmer is not stemmed.
    pub fn new(language: &str, stop_words: &[String]) -> Result<Analyzer, StemmerMissing> {
        let stemmer = language::Stemmer::of(language).map_err(|()| StemmerMissing(language.to_string()))?;
        let mut a = Analyzer { language: language.to_string(), stemmer, stop_words: Vec::new(), stop_terms: Vec::new() };
        let words: Vec<String> = if language == "en" {
            stopwords::ENGLISH.iter().map(|w| w.to_string()).collect()
        } else {
            stop_words.iter().map(|w| fold(w)).filter(|w| !w.is_empty()).collect()
        };
        a.stop_terms = words.iter().map(|w| a.stem(w).into_owned()).collect();
        a.stop_words = words;
        for list in [&mut a.stop_words, &mut a.stop_terms] {
            list.sort_unstable();
            list.dedup();
        }
        Ok(a)
    }

    /// The language's code (`en`).
    pub fn language(&self) -> &str {
        &self.language
    }

    /// The stop words a manifest records (none for English, whose list is built in).
    pub fn stored_stop_words(&self) -> &[String] {
        if self.language == "en" {
            &[]
        } else {
            &self.stop_words
        }
    }

    /// Stem a folded word (see `stemmable` for the words left as they are).
    pub fn stem<'a>(&self, folded: &'a str) -> Cow<'a, str> {
        if !stemmable(folded) {
            return Cow::Borrowed(folded);
        }
        self.stemmer.stem(folded)
    }

    /// Fold and stem one word: the term a single query word looks up.
    pub fn term_of(&self, word: &str) -> String {
        let f = fold(word);
        self.term(&f, word).into_owned()
    }

    /// The term of a word, given folded and as written. English folds, then stems (the
    /// terms every English bundle has). The other languages stem the word lowercased with
    /// its accents, then fold the stem: their suffixes carry accents (`configuração`,
    /// `configurações` share a stem only so), and the folded stem still lets a query typed
    /// with or without them meet at the stem's letters (typed without, typo tolerance
    /// bridges a changed ending).
    pub fn term<'a>(&self, folded: &'a str, written: &str) -> Cow<'a, str> {
        match self.stemmer {
            language::Stemmer::English | language::Stemmer::None => self.stem(folded),
            // Snowball's other languages, compiled in or the host's.
            _ if stemmable(folded) => Cow::Owned(fold(&self.stemmer.stem(&charclass::lowercase(written)))),
            _ => Cow::Borrowed(folded),
        }
    }

    /// Whether an index term is the stem of a stop word. Stop-word postings carry no
    /// positions (they are a third of all tokens); phrase matching treats them as one-word
    /// gaps.
    pub fn is_stop_term(&self, term: &str) -> bool {
        self.stop_terms.binary_search_by(|t| t.as_str().cmp(term)).is_ok()
    }

    /// Whether a folded word is a stop word, removed from bare query terms (never from
    /// phrases, never from the index). A query made only of stop words keeps them.
    pub fn is_stopword(&self, folded: &str) -> bool {
        self.stop_words.binary_search_by(|t| t.as_str().cmp(folded)).is_ok()
    }

    /// Analyse `text`, appending tokens starting at position `first_pos`; returns the next
    /// free position.
    pub fn tokenize(&self, text: &str, first_pos: u32, out: &mut Vec<Token>) -> u32 {
        let mut pos = first_pos;
        for (start, end) in compounds(text) {
            pos = self.emit_compound(text, start, end, pos, None, out);
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
    pub fn tokenize_filtered(
        &self,
        text: &str,
        could_match: &dyn Fn(&str) -> bool,
        skip_before: u32,
        stop_at: u32,
        out: &mut Vec<Token>,
    ) -> bool {
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
                let next = self.emit_compound(text, start, end, pos, Some(&|_: &str| false), &mut scratch);
                if next <= skip_before {
                    pos = next;
                    skipped |= !scratch.is_empty();
                    continue;
                }
            }
            pos = self.emit_compound(text, start, end, pos, Some(could_match), out);
        }
        skipped
    }

    /// Convenience: the terms of `text` in order, joined forms included.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut toks = Vec::new();
        self.tokenize(text, 0, &mut toks);
        toks.into_iter().map(|t| t.term).collect()
    }

    fn emit_compound(
        &self,
        text: &str,
        start: usize,
        end: usize,
        pos: u32,
        could_match: Option<&dyn Fn(&str) -> bool>,
        out: &mut Vec<Token>,
    ) -> u32 {
        if text[start..end].chars().next().is_some_and(is_bigram_script) {
            let term = |f: &str| match could_match {
                Some(cm) if !cm(f) => String::new(),
                _ => f.to_string(),
            };
            return cjk::emit_run(text, start, end, pos, &term, out);
        }
        // (folded, as written): the term is made from both (see `term`).
        let term = |f: &str, raw: &str| -> String {
            match could_match {
                Some(cm) if !cm(f) => String::new(),
                _ => self.term(f, raw).into_owned(),
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
        let raw = |s: usize, e: usize| text[s..e].replace(['\'', '\u{2019}'], "");
        for (k, (s, e, f)) in folded_parts.iter().enumerate() {
            out.push(Token { term: term(f, &raw(*s, *e)), pos: pos + k as u32, start: *s, end: *e, joined: false, unigram: false });
        }
        if folded_parts.len() > 1 {
            let joined: String = folded_parts.iter().map(|p| p.2.as_str()).collect();
            if joined.chars().count() <= MAX_TERM_CHARS {
                let joined_raw: String = folded_parts.iter().map(|p| raw(p.0, p.1)).collect();
                out.push(Token {
                    term: term(&joined, &joined_raw),
                    pos,
                    start: folded_parts[0].0,
                    end: folded_parts[folded_parts.len() - 1].1,
                    joined: true,
                    unigram: false,
                });
            }
        }
        pos + folded_parts.len() as u32
    }
}

/// Tokens of `text` from position `first_pos` without their terms: where words are and which
/// positions they take, which no language changes (stemming never adds or drops a token).
/// What laying out positions needs. Returns the next free position.
pub fn positions(text: &str, first_pos: u32, out: &mut Vec<Token>) -> u32 {
    let mut pos = first_pos;
    for (start, end) in compounds(text) {
        pos = Analyzer::english().emit_compound(text, start, end, pos, Some(&|_: &str| false), out);
    }
    pos
}

/// The position after `text`'s tokens, laid out from `first_pos` as [`positions`] lays
/// them out, without making the tokens: a search counts its results' headings this way, and
/// most of their words are plain.
pub fn position_after(text: &str, first_pos: u32) -> u32 {
    let mut scratch = Vec::new();
    compounds_iter(text).fold(first_pos, |pos, (start, end)| match simple_word_positions(&text[start..end]) {
        Some(n) => pos + n,
        None => {
            scratch.clear();
            Analyzer::english().emit_compound(text, start, end, pos, Some(&|_: &str| false), &mut scratch)
        }
    })
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

#[cfg(test)]
mod language_tests;
#[cfg(test)]
mod tests;
