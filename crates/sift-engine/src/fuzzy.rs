//! Typo tolerance: Levenshtein automata (with transpositions counted as one edit, so
//! `recieve` is one typo from `receive`) run over the fst term dictionaries.

use fst::{IntoStreamer, Streamer};

/// The longest word typo tolerance applies to. Real words (even German compounds) stay
/// under it; past it, a typo search would only cost (the automaton's work grows with the
/// word).
pub const MAX_FUZZY_CHARS: usize = 40;

/// Allowed edits for a word of this many characters: none under 5 (short words have too
/// many neighbours), 1 from 5, 2 from 9, none past `MAX_FUZZY_CHARS`.
pub fn max_distance(word: &str) -> u8 {
    match word.chars().count() {
        0..=4 => 0,
        5..=8 => 1,
        n if n <= MAX_FUZZY_CHARS => 2,
        _ => 0,
    }
}

/// Words that look like identifiers are matched exactly: digits, or a compound.
pub fn looks_like_identifier(raw: &str) -> bool {
    raw.chars().any(|c| c.is_ascii_digit() || c == '_' || c == '.')
        || raw.chars().skip(1).any(sift_text::charclass::is_uppercase) && raw.chars().any(sift_text::charclass::is_lowercase)
}

/// Cells of a DP row: one per prefix of a word of at most `MAX_FUZZY_CHARS` characters.
const CELLS: usize = MAX_FUZZY_CHARS + 1;

/// The edit distance between two strings in characters, a swap of two neighbouring
/// characters counting as one edit (optimal string alignment), capped at `cap + 1`: the
/// distance a dictionary term is reported with.
pub fn distance(a: &str, b: &str, cap: u8) -> u8 {
    let a: Vec<char> = a.chars().take(MAX_FUZZY_CHARS).collect();
    let m = Matcher::new(&a, cap);
    let end = b.chars().fold(m.start_state(), |s, c| m.step(&s, c));
    end.row[a.len()]
}

/// An automaton over the fst's bytes accepting the terms within `max` edits (optimal
/// string alignment: insertions, deletions, substitutions and swaps of neighbouring
/// characters count one each) of a word of at most `MAX_FUZZY_CHARS` characters.
///
/// Its state is the dynamic-programming row of the term read so far against every prefix
/// of the word (Ukkonen's row automaton), the row before it (for swaps), the last
/// character, and the bytes of a character not yet complete: the edit distance is over
/// characters, whatever their UTF-8 length. A row whose every cell is above `max` can
/// never match, so the fst search prunes that branch of the dictionary. Written here
/// rather than taken from a crate: the runtime downloads every kB (a parametric DFA
/// builder costs several), and a term dictionary's walk needs no more.
struct Matcher<'w> {
    word: &'w [char],
    max: u8,
}

#[derive(Clone)]
struct Row {
    row: [u8; CELLS],
    before: [u8; CELLS],
    last: char,
    /// A character being read: its bits so far and how many continuation bytes it lacks.
    partial: u32,
    lacking: u8,
    /// An invalid UTF-8 sequence: never a match.
    dead: bool,
}

impl<'w> Matcher<'w> {
    fn new(word: &'w [char], max: u8) -> Self {
        Matcher { word, max }
    }

    fn start_state(&self) -> Row {
        let mut row = [u8::MAX; CELLS];
        for (j, cell) in row.iter_mut().enumerate().take(self.word.len() + 1) {
            *cell = (j as u8).min(self.max.saturating_add(1));
        }
        Row { row, before: [u8::MAX; CELLS], last: '\0', partial: 0, lacking: 0, dead: false }
    }

    /// The row after one more character of the term.
    fn step(&self, s: &Row, c: char) -> Row {
        let n = self.word.len();
        let top = self.max.saturating_add(1);
        let mut next = [u8::MAX; CELLS];
        next[0] = s.row[0].saturating_add(1).min(top);
        for j in 1..=n {
            let w = self.word[j - 1];
            let mut d = s.row[j].saturating_add(1).min(next[j - 1].saturating_add(1)).min(s.row[j - 1].saturating_add(u8::from(w != c)));
            if j > 1 && w == s.last && self.word[j - 2] == c && s.last != c {
                d = d.min(s.before[j - 2].saturating_add(1));
            }
            next[j] = d.min(top);
        }
        Row { row: next, before: s.row, last: c, partial: 0, lacking: 0, dead: false }
    }
}

impl fst::Automaton for Matcher<'_> {
    type State = Row;

    fn start(&self) -> Row {
        self.start_state()
    }

    fn is_match(&self, s: &Row) -> bool {
        !s.dead && s.lacking == 0 && s.row[self.word.len()] <= self.max
    }

    fn can_match(&self, s: &Row) -> bool {
        !s.dead && s.row[..=self.word.len()].iter().any(|&d| d <= self.max)
    }

    fn accept(&self, s: &Row, byte: u8) -> Row {
        let dead = || Row { dead: true, ..s.clone() };
        if s.dead {
            return s.clone();
        }
        // UTF-8, a byte at a time: a lead byte starts a character, continuations add to it.
        let (bits, lacking) = match (s.lacking, byte) {
            (0, 0x00..=0x7F) => (u32::from(byte), 0),
            (0, 0xC0..=0xDF) => (u32::from(byte & 0x1F), 1),
            (0, 0xE0..=0xEF) => (u32::from(byte & 0x0F), 2),
            (0, 0xF0..=0xF7) => (u32::from(byte & 0x07), 3),
            (1.., 0x80..=0xBF) => ((s.partial << 6) | u32::from(byte & 0x3F), s.lacking - 1),
            _ => return dead(),
        };
        if lacking > 0 {
            return Row { partial: bits, lacking, ..s.clone() };
        }
        match char::from_u32(bits) {
            Some(c) => self.step(s, c),
            None => dead(),
        }
    }
}

/// A dictionary term within `max_d` edits of a word, with the value the dictionary maps it
/// to (a term shard: the offset of its postings; the vocabulary: its document frequency).
#[derive(Debug, Clone, PartialEq)]
pub struct FuzzyHit {
    pub term: String,
    pub distance: u8,
    pub value: u64,
}

/// Terms of the dictionary `map` within `max_d` edits of `word` (the word itself excluded),
/// in term order. At most `cap` hits so a pathological dictionary cannot blow up a query.
pub fn fuzzy_terms(map: &fst::Map<Vec<u8>>, word: &str, max_d: u8, cap: usize) -> Vec<FuzzyHit> {
    let chars: Vec<char> = word.chars().collect();
    if max_d == 0 || chars.len() > MAX_FUZZY_CHARS {
        return Vec::new();
    }
    let matcher = Matcher::new(&chars, max_d);
    let mut stream = map.search(&matcher).into_stream();
    let mut out = Vec::new();
    while let Some((k, value)) = stream.next() {
        if k == word.as_bytes() {
            continue;
        }
        let Ok(term) = std::str::from_utf8(k).map(str::to_string) else { continue };
        let distance = distance(word, &term, max_d);
        if distance > max_d {
            continue;
        }
        out.push(FuzzyHit { term, distance, value });
        if out.len() >= cap {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_by_length() {
        assert_eq!(max_distance("json"), 0);
        assert_eq!(max_distance("receive"), 1);
        assert_eq!(max_distance("authentificate"), 2);
        assert_eq!(max_distance(&"a".repeat(MAX_FUZZY_CHARS)), 2);
        assert_eq!(max_distance(&"a".repeat(MAX_FUZZY_CHARS + 1)), 0);
    }

    /// Optimal string alignment distance, written out as the textbook table.
    fn osa(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for j in 0..=b.len() {
            d[0][j] = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + cost);
                }
            }
        }
        d[a.len()][b.len()]
    }

    /// Random words over a small alphabet with multi-byte letters, so neighbours are common
    /// and UTF-8 sequences of every length occur.
    fn words(seed: u64, n: usize) -> Vec<String> {
        let letters = ['a', 'b', 'c', 'e', 'é', 'ß', 'я', '中', '𝐀'];
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..n).map(|_| (0..1 + next() % 7).map(|_| letters[(next() % letters.len() as u64) as usize]).collect()).collect()
    }

    #[test]
    fn distance_is_the_optimal_string_alignment_distance() {
        let w = words(7, 400);
        for pair in w.chunks_exact(2) {
            let want = osa(&pair[0], &pair[1]).min(3) as u8;
            assert_eq!(distance(&pair[0], &pair[1], 2), want, "{pair:?}");
        }
        assert_eq!(distance("recieve", "receive", 2), 1, "a swap is one edit");
        assert_eq!(distance("authentificate", "authenticate", 2), 2);
        assert_eq!(distance("café", "cafe", 2), 1, "one character, however many bytes");
    }

    #[test]
    fn the_automaton_finds_exactly_the_terms_within_reach() {
        let mut dict = words(11, 3000);
        dict.extend(["receive", "recipe", "deceive", "relieve", "authenticate", "authentication"].map(String::from));
        dict.sort();
        dict.dedup();
        let set = fst::Set::from_iter(dict.iter()).unwrap();
        let mut queries = words(13, 60);
        queries.extend(["recieve", "authentificate", "ré"].map(String::from));
        for q in &queries {
            for d in 1..=2u8 {
                let chars: Vec<char> = q.chars().collect();
                let found: Vec<String> = set.search(Matcher::new(&chars, d)).into_stream().into_strs().unwrap();
                let want: Vec<String> = dict.iter().filter(|t| osa(q, t) <= usize::from(d)).cloned().collect();
                assert_eq!(found, want, "{q} within {d}");
            }
        }
        // A byte sequence that is not UTF-8 never matches.
        let m = Matcher::new(&['a'], 1);
        let s = fst::Automaton::accept(&m, &fst::Automaton::start(&m), 0xFF);
        assert!(!fst::Automaton::can_match(&m, &s));
    }

    #[test]
    fn identifiers_are_exact() {
        assert!(looks_like_identifier("parseJSON"));
        assert!(looks_like_identifier("utf8"));
        assert!(looks_like_identifier("state_machine"));
        assert!(!looks_like_identifier("Authentication"));
        assert!(!looks_like_identifier("recieve"));
    }
}
