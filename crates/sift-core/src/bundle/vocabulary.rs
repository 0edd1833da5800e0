//! The vocabulary (kind 16, `k-<hash>-<n>.bin`, listed as `vocabulary: {files, first}`): every
//! term of the dictionary with its document frequency and nothing else, cut only where a
//! term's first character changes. It is what typo tolerance reads.
//!
//! Payload: an fst map, term → document frequency (the `df` its term shard holds).
//!
//! Why: fuzzy matching walks every term that shares the word's first letter, and without
//! this those terms' postings came with them — every term shard of the letter (Python docs:
//! `dictonary` read 19 term shards, 140 kB, 30 requests). The vocabulary of a letter is
//! 10–26 kB deflated there; the engine matches in it, keeps the few closest and most
//! common neighbours (their `df` decides, as it always has), and then reads only those
//! terms' shards. A shard holds one or more whole first letters — never part of one, so a
//! letter's neighbours are in one file — starting a new shard at a letter once the current
//! one holds [`VOCABULARY_TARGET`] bytes of terms.
//!
//! The vocabulary is optional: the builder writes it when the term store has more than
//! [`MIN_TERM_SHARDS`] shards (below that a letter's term shards cost no more than its
//! vocabulary, and one round less), and a runtime that predates it ignores the manifest
//! member and reads the term shards as before — so bundles with it keep format 9.

use super::terms::{build_fst, open_fst};
use crate::error::SiftError;

/// Bytes of terms after which the next first letter starts a new vocabulary shard.
pub const VOCABULARY_TARGET: usize = 4 * 1024;

/// The term store needs more shards than this for the builder to write a vocabulary.
pub const MIN_TERM_SHARDS: usize = 2;

/// A vocabulary shard: term → document frequency.
pub struct VocabShard {
    pub map: fst::Map<Vec<u8>>,
}

impl VocabShard {
    pub fn decode(payload: Vec<u8>) -> Result<VocabShard, SiftError> {
        Ok(VocabShard { map: open_fst(payload, "vocabulary")? })
    }
}

/// The first character of a term (empty for the empty term).
fn initial(term: &str) -> &str {
    term.char_indices().nth(1).map_or(term, |(i, _)| &term[..i])
}

/// Vocabulary shard payloads of `terms` (sorted, each with its document frequency), with
/// each shard's first and last term: whole first letters a shard, a new shard at a letter
/// once the current one holds `target` bytes of terms.
pub fn encode<'a>(terms: &[(&'a str, u32)], target: usize) -> Result<Vec<(String, String, Vec<u8>)>, SiftError> {
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

fn shard(terms: &[(&str, u32)]) -> Result<(String, String, Vec<u8>), SiftError> {
    let payload = build_fst(terms.iter().map(|&(t, df)| (t, u64::from(df))))?;
    Ok((terms[0].0.to_string(), terms[terms.len() - 1].0.to_string(), payload))
}

#[cfg(test)]
mod tests {
    use super::super::terms::dictionary_holds_range;
    use super::*;

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
        let holds = |v: &VocabShard, first, next| dictionary_holds_range(&v.map, first, None, next, false);
        assert!(holds(&v, "banana", Some("cab")));
        assert!(!holds(&v, "banana", Some("band")), "a range ending before its last term");
        assert!(!holds(&v, "apple", Some("cab")), "another shard's range");
        assert!(holds(&VocabShard::decode(shards[2].2.clone()).unwrap(), "cab", None), "the last shard");
        // Format 10: the manifest lists separators, at or below each shard's first key.
        let by_separator = |v: &VocabShard, first, next| dictionary_holds_range(&v.map, first, None, next, true);
        assert!(by_separator(&v, "b", Some("c")));
        assert!(by_separator(&v, "banana", Some("c")), "the full first key is a separator too");
        assert!(!by_separator(&v, "bb", Some("c")), "a separator above the shard's first key");
        assert!(!by_separator(&v, "a", Some("b")), "another shard's range");
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
