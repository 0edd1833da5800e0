//! The vocabulary (kind 16, `k-<hash>-<n>.bin`, listed as `vocabulary: {files, first}`):
//! every term of the dictionary with its document frequency, and the spellings its pages
//! write it with; nothing else, cut only where a key's first character changes. It is what
//! typo tolerance reads.
//!
//! Payload: an fst map whose keys are of two kinds:
//! - a term → `df << 2 | flags`, its document frequency (the `df` its term shard holds);
//! - a *spelling*: a word as the pages write it, folded, whose term (its stem,
//!   [`sift_text::analyzer::stem`]) is another key → `df << 2 | flags` of that term. The
//!   builder writes a spelling only when stemming it gives its term back, so the engine
//!   finds the term by stemming the key, the same code on both sides.
//!
//! Flags: [`SPELLING`] for a spelling, [`WRITTEN`] for a term the pages also write as it
//! is. In the low bits, not above the `df`: an fst's outputs cost bytes by their size.
//!
//! Why spellings: a typo is made in a word, not in its stem. `itertor` is one edit from
//! `iterator` but three from its stem `iter`; matched against what people write, a typo's
//! neighbours are the words it was meant to be.
//!
//! Why a vocabulary at all: fuzzy matching walks every term that shares the word's first
//! letter, and without it those terms' postings came along — every term shard of the
//! letter. The engine matches in the letter's vocabulary shard, keeps the few closest and
//! most common neighbours, and then reads only those terms' shards. A shard holds one or
//! more whole first letters, never part of one (a letter's neighbours are in one file),
//! starting a new shard at a letter once the current one holds [`VOCABULARY_TARGET`] bytes
//! of terms. A vocabulary of one shard is asked for with the query's term shards
//! (`engine::expand::whole_small_vocabulary`): no round more.

use super::terms::{build_fst, open_fst};
use sift_base::error::SiftError;
use sift_text::analyzer::Analyzer;
use std::borrow::Cow;

/// Bytes of terms after which the next first letter starts a new vocabulary shard.
pub const VOCABULARY_TARGET: usize = 4 * 1024;

/// A term the pages write as it is (`borrow`, not only `borrowed`): a "did you mean" may
/// show it.
pub const WRITTEN: u64 = 1;
/// A spelling, standing for its stem.
pub const SPELLING: u64 = 2;
const FLAG_BITS: u32 = 2;

/// One key of a vocabulary shard, read.
pub struct Key<'k> {
    /// The term the key stands for: the key itself, or a spelling's stem.
    pub term: Cow<'k, str>,
    pub df: u32,
    /// The key is a way the pages write the term (a spelling, or a term marked written).
    pub written: bool,
    pub spelling: bool,
}

/// A vocabulary shard: term or spelling → document frequency (see the module's text).
pub struct VocabShard {
    pub map: fst::Map<Vec<u8>>,
}

impl VocabShard {
    pub fn decode(payload: Vec<u8>) -> Result<VocabShard, SiftError> {
        Ok(VocabShard { map: open_fst(payload, "vocabulary")? })
    }

    /// What `key`, found in this shard with `value`, stands for.
    pub fn key<'k>(&self, analyzer: &Analyzer, key: &'k str, value: u64) -> Key<'k> {
        let (df, flags) = (value >> FLAG_BITS, value & ((1 << FLAG_BITS) - 1));
        let spelling = flags & SPELLING != 0;
        let term = if spelling { analyzer.stem(key) } else { Cow::Borrowed(key) };
        Key { term, df: u32::try_from(df).unwrap_or(u32::MAX), written: flags != 0, spelling }
    }
}

/// The first character of a term (empty for the empty term).
fn initial(term: &str) -> &str {
    term.char_indices().nth(1).map_or(term, |(i, _)| &term[..i])
}

/// The vocabulary's entries: each of `terms` (sorted, with its document frequency) and each
/// of its `spellings` that is not a term itself and stems back to it, sorted by key. A
/// term's spellings are how the pages write it, "" standing for the term itself.
pub fn entries<'a>(analyzer: &Analyzer, terms: &[(&'a str, u32)], spellings: impl Fn(&'a str) -> Vec<&'a str>) -> Vec<(&'a str, u64)> {
    let mut out: Vec<(&str, u64)> = Vec::with_capacity(terms.len());
    for &(term, df) in terms {
        let spelt = spellings(term);
        let written = if spelt.contains(&"") { WRITTEN } else { 0 };
        out.push((term, u64::from(df) << FLAG_BITS | written));
        for s in spelt {
            let is_term = terms.binary_search_by(|p| p.0.cmp(s)).is_ok();
            if !s.is_empty() && s != term && !is_term && analyzer.stem(s) == term {
                out.push((s, u64::from(df) << FLAG_BITS | SPELLING));
            }
        }
    }
    out.sort_unstable();
    // Two terms written the same way: the spelling stays with the first.
    out.dedup_by(|b, a| a.0 == b.0);
    out
}

/// Vocabulary shard payloads of `entries` (sorted by key, from [`entries`]), with each
/// shard's first and last key: whole first letters a shard, a new shard at a letter once
/// the current one holds `target` bytes of keys.
pub fn encode(terms: &[(&str, u64)], target: usize) -> Result<Vec<(String, String, Vec<u8>)>, SiftError> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut bytes = 0;
    for i in 0..terms.len() {
        if i > start && bytes >= target && initial(terms[i].0) != initial(terms[i - 1].0) {
            out.push(shard(&terms[start..i])?);
            start = i;
            bytes = 0;
        }
        bytes += terms[i].0.len();
    }
    if start < terms.len() {
        out.push(shard(&terms[start..])?);
    }
    Ok(out)
}

fn shard(terms: &[(&str, u64)]) -> Result<(String, String, Vec<u8>), SiftError> {
    let payload = build_fst(terms.iter().copied())?;
    Ok((terms[0].0.to_string(), terms[terms.len() - 1].0.to_string(), payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::dictionary_holds_range;

    #[test]
    fn a_shard_holds_whole_first_letters() {
        let terms = [("apple", 3), ("apply", 1), ("banana", 2), ("band", 9), ("cab", 1), ("éclair", 4), ("étude", 1)];
        let shards = encode(&terms, 6).unwrap();
        let ranges: Vec<(&str, &str)> = shards.iter().map(|(f, l, _)| (f.as_str(), l.as_str())).collect();
        // "cab" is under the target, so the next letter joins it.
        assert_eq!(ranges, [("apple", "apply"), ("banana", "band"), ("cab", "étude")]);
        // A large target puts everything in one shard; letters are never split.
        assert_eq!(encode(&terms, 1 << 20).unwrap().len(), 1);
        let v = VocabShard::decode(shards[1].2.clone()).unwrap();
        assert_eq!(v.map.get("band"), Some(9));
        // The manifest lists separators, at or below each shard's first key.
        let holds = |v: &VocabShard, first, next| dictionary_holds_range(&v.map, first, next);
        assert!(holds(&v, "b", Some("c")));
        assert!(holds(&v, "banana", Some("cab")), "the full first key is a separator too");
        assert!(!holds(&v, "banana", Some("band")), "a range ending before its last term");
        assert!(!holds(&v, "bb", Some("c")), "a separator above the shard's first key");
        assert!(!holds(&v, "a", Some("b")), "another shard's range");
        assert!(holds(&VocabShard::decode(shards[2].2.clone()).unwrap(), "cab", None), "the last shard");
    }

    #[test]
    fn spellings_stand_for_the_terms_they_stem_to() {
        let stem = |w: &str| Analyzer::english().stem(w).into_owned();
        let (iter, borrow) = (stem("iterator"), stem("borrowed"));
        assert_eq!((iter.as_str(), borrow.as_str()), ("iter", "borrow"));
        let terms = [(borrow.as_str(), 7), (iter.as_str(), 40), ("iterators", 1)];
        let mut terms = terms.to_vec();
        terms.sort();
        let spellings = |t: &str| match t {
            // "" is the term written as it is; `iterators` is a term of its own (an
            // identifier, say), so not a spelling; `borrowed` does not stem to `iter`.
            "iter" => vec!["iterator", "iterable", "iterators", "borrowed"],
            "borrow" => vec!["", "borrowed"],
            _ => vec![],
        };
        let entries = entries(Analyzer::english(), &terms, spellings);
        let keys: Vec<&str> = entries.iter().map(|e| e.0).collect();
        assert_eq!(keys, ["borrow", "borrowed", "iter", "iterable", "iterator", "iterators"]);
        let shard = VocabShard::decode(encode(&entries, 1 << 20).unwrap().remove(0).2).unwrap();
        let read = |k: &'static str| {
            let key = shard.key(Analyzer::english(), k, shard.map.get(k).unwrap());
            (key.term.into_owned(), key.df, key.spelling, key.written)
        };
        assert_eq!(read("iterator"), ("iter".to_string(), 40, true, true));
        assert_eq!(read("iter"), ("iter".to_string(), 40, false, false), "never written as the stem itself");
        assert_eq!(read("borrow"), ("borrow".to_string(), 7, false, true), "written as it is");
        assert_eq!(read("iterators"), ("iterators".to_string(), 1, false, false));
    }

    #[test]
    fn a_bad_vocabulary_is_refused() {
        assert!(VocabShard::decode(Vec::new()).is_err());
        let (_, _, mut payload) = encode(&[("word", 1)], 1).unwrap().remove(0);
        let mid = payload.len() / 2;
        payload[mid] ^= 0x40;
        assert!(VocabShard::decode(payload).err().is_some_and(|e| e.code == "bundle_corrupt"));
        assert!(encode(&[], 1).unwrap().is_empty());
    }
}
