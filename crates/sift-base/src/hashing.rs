//! The hash maps of the query path, keyed by a small fast hasher (the Fx hash rustc and
//! Firefox use: rotate, xor, multiply by a constant per word) instead of std's randomly
//! keyed SipHash-1-3. Written here rather than taken from rustc-hash, whose string hashing
//! costs the packed keyword engine more (bench/results/decisions.md).
//!
//! Why: the engine's maps are keyed by document numbers, terms and file names of a bundle
//! and a query, small sets that no one can grow on the server's behalf (a query's terms are
//! bounded by the request limits), so flooding resistance buys nothing; SipHash and its
//! per-map random keys cost the browser runtime code (and their hashing, time on the
//! scoring accumulators). Maps iterate in a fixed order now, though nothing may rely on it:
//! answers are sorted.

use std::hash::{BuildHasherDefault, Hasher};

pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<FxHasher>>;

/// A word-at-a-time multiplicative hasher.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The tail's length in the word's top byte (free: a tail is under 8 bytes), so
            // `a` and `a\0` hash apart.
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            word[7] = rest.len() as u8;
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keyed_by_the_fast_hasher_behave_as_maps() {
        let mut m: HashMap<String, u32> = HashMap::default();
        for i in 0..1000u32 {
            m.insert(format!("term{i}"), i);
        }
        assert_eq!(m.len(), 1000);
        assert!((0..1000u32).all(|i| m[&format!("term{i}")] == i));
        let s: HashSet<u32> = (0..5000).map(|i| i * 7).collect();
        assert!(s.contains(&(7 * 4999)) && !s.contains(&8));
    }

    #[test]
    fn strings_differing_past_a_word_hash_apart() {
        use std::hash::Hash;
        // As a map hashes a key.
        let h = |s: &str| {
            let mut f = FxHasher::default();
            s.hash(&mut f);
            f.finish()
        };
        assert_ne!(h("abcdefgh1"), h("abcdefgh2"));
        assert_ne!(h("a"), h("a\0"));
        assert_eq!(h("same"), h("same"));
    }
}
