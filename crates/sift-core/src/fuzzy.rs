//! Typo tolerance: Levenshtein automata (with transpositions counted as one edit, so
//! `recieve` is one typo from `receive`) run over the fst term dictionaries.

use crate::bundle::terms::TermShard;
use fst::{IntoStreamer, Streamer};
use levenshtein_automata::{Distance, LevenshteinAutomatonBuilder, DFA};
use std::sync::OnceLock;

/// The longest word typo tolerance applies to. Real words (even German compounds) stay
/// under it; beyond it the Levenshtein DFA only costs: its construction grows with the
/// word, and a 2,000-letter word took 0.25 s and 70 MB per query.
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
        || raw.chars().skip(1).any(|c| c.is_uppercase()) && raw.chars().any(|c| c.is_lowercase())
}

fn builder(d: u8) -> &'static LevenshteinAutomatonBuilder {
    static B1: OnceLock<LevenshteinAutomatonBuilder> = OnceLock::new();
    static B2: OnceLock<LevenshteinAutomatonBuilder> = OnceLock::new();
    if d <= 1 {
        B1.get_or_init(|| LevenshteinAutomatonBuilder::new(1, true))
    } else {
        B2.get_or_init(|| LevenshteinAutomatonBuilder::new(2, true))
    }
}

/// Adapter: the DFA as an fst automaton.
struct Dfa<'a>(&'a DFA);

impl fst::Automaton for Dfa<'_> {
    type State = u32;
    fn start(&self) -> u32 {
        self.0.initial_state()
    }
    fn is_match(&self, s: &u32) -> bool {
        matches!(self.0.distance(*s), Distance::Exact(_))
    }
    fn can_match(&self, s: &u32) -> bool {
        *s != levenshtein_automata::SINK_STATE
    }
    fn accept(&self, s: &u32, byte: u8) -> u32 {
        self.0.transition(*s, byte)
    }
}

/// A dictionary term within `max_d` edits of a word.
#[derive(Debug, Clone, PartialEq)]
pub struct FuzzyHit {
    pub term: String,
    pub distance: u8,
}

/// Terms of `shard` within `max_d` edits of `word` (the word itself excluded). At most
/// `cap` hits per shard so a pathological dictionary cannot blow up a query.
pub fn fuzzy_terms(shard: &TermShard, word: &str, max_d: u8, cap: usize) -> Vec<FuzzyHit> {
    if max_d == 0 {
        return Vec::new();
    }
    let dfa = builder(max_d).build_dfa(word);
    let aut = Dfa(&dfa);
    let mut stream = shard.map.search(&aut).into_stream();
    let mut out = Vec::new();
    while let Some((k, _)) = stream.next() {
        if k == word.as_bytes() {
            continue;
        }
        let term = String::from_utf8_lossy(k).into_owned();
        let distance = match dfa.eval(&term) {
            Distance::Exact(d) => d,
            Distance::AtLeast(_) => continue,
        };
        out.push(FuzzyHit { term, distance });
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

    #[test]
    fn identifiers_are_exact() {
        assert!(looks_like_identifier("parseJSON"));
        assert!(looks_like_identifier("utf8"));
        assert!(looks_like_identifier("state_machine"));
        assert!(!looks_like_identifier("Authentication"));
        assert!(!looks_like_identifier("recieve"));
    }
}
