//! A vector list (kind 7): one partition of the bundle's chunk vectors (see `vindex`), one
//! vector per chunk (a section, or part of a long one), each stored as int8 with its own
//! scale. Lists are small, so search within one is exact.
//!
//! Payload: `varint place` (the list's number in its store, see `table`), `varint dim`,
//! `varint n`, n delta-varint doc numbers (non-decreasing), n × dim int8 codes, n f32
//! scales (LE).

use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};

/// A quantised vector set: chunk → document, int8 codes, scales.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VectorSet {
    pub dim: usize,
    pub doc_of: Vec<u32>,
    pub codes: Vec<i8>,
    pub scales: Vec<f32>,
}

impl VectorSet {
    pub fn new(dim: usize) -> Self {
        VectorSet { dim, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.doc_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_of.is_empty()
    }

    /// Add one (L2-normalised) vector for `doc`: symmetric int8 with scale max|x|/127.
    pub fn push(&mut self, doc: u32, v: &[f32]) -> Result<(), SiftError> {
        if v.len() != self.dim {
            return Err(SiftError::invalid(msg!("vector has {} dimensions, the set has {}", v.len(), self.dim)));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(SiftError::invalid("vector has a NaN or infinite component"));
        }
        let amax = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if amax > 0.0 { amax / 127.0 } else { 1.0 };
        self.codes.extend(v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8));
        self.scales.push(scale);
        self.doc_of.push(doc);
        Ok(())
    }

    /// The payload, after its place in the store.
    pub fn encode(&self, place: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.codes.len() + self.len() * 6 + 12);
        varint::put(&mut out, place as u64);
        varint::put(&mut out, self.dim as u64);
        varint::put(&mut out, self.len() as u64);
        let mut prev = 0u32;
        for &d in &self.doc_of {
            varint::put(&mut out, u64::from(d.wrapping_sub(prev)));
            prev = d;
        }
        out.extend(self.codes.iter().map(|&c| c as u8));
        for s in &self.scales {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out
    }

    /// List `place` of its store, which the payload must name first.
    pub fn decode(payload: &[u8], doc_count: u32, place: usize) -> Result<VectorSet, SiftError> {
        let mut r = Reader::at(payload, super::table::strip_place(payload, place, "vector list")?);
        let dim = r.u32()? as usize;
        let n = r.u32()? as usize;
        if dim == 0 || dim > 4096 || n > payload.len() {
            return Err(SiftError::corrupt("vector list header is implausible"));
        }
        let mut set = VectorSet::new(dim);
        let mut d = 0u32;
        for _ in 0..n {
            d = d.wrapping_add(r.u32()?);
            if d >= doc_count {
                return Err(SiftError::corrupt("vector list names a document out of range"));
            }
            set.doc_of.push(d);
        }
        set.codes = r.bytes(n * dim)?.iter().map(|&b| b as i8).collect();
        set.scales = r.bytes(n * 4)?.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if !r.is_empty() || set.scales.iter().any(|s| !s.is_finite()) {
            return Err(SiftError::corrupt("vector list has trailing or invalid data"));
        }
        Ok(set)
    }

    /// Add the (dequantised) vectors of `doc`'s chunks to `sum`.
    pub fn add_doc_vectors(&self, doc: u32, sum: &mut [f32]) {
        if sum.len() != self.dim {
            return;
        }
        for (i, _) in self.doc_of.iter().enumerate().filter(|(_, &d)| d == doc) {
            let codes = &self.codes[i * self.dim..(i + 1) * self.dim];
            for (s, &c) in sum.iter_mut().zip(codes) {
                *s += f32::from(c) * self.scales[i];
            }
        }
    }

    fn score(&self, i: usize, q: &[f32]) -> f32 {
        let codes = &self.codes[i * self.dim..(i + 1) * self.dim];
        let dot: f32 = codes.iter().zip(q).map(|(&c, &x)| f32::from(c) * x).sum();
        dot * self.scales[i]
    }

    /// The `k` best chunks for a normalised query, best first: (chunk, cosine).
    pub fn search(&self, q: &[f32], k: usize) -> Vec<(usize, f32)> {
        if q.len() != self.dim || self.is_empty() || k == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = (0..self.len()).map(|i| (i, self.score(i, q))).collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random unit vectors with some cluster structure.
    fn vectors(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut s = seed;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 10_000) as f32 / 5_000.0 - 1.0
        };
        let centres: Vec<Vec<f32>> = (0..16).map(|_| (0..dim).map(|_| rnd()).collect()).collect();
        (0..n)
            .map(|i| {
                let c = &centres[i % 16];
                let v: Vec<f32> = c.iter().map(|x| x + 0.8 * rnd()).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.into_iter().map(|x| x / norm).collect()
            })
            .collect()
    }

    fn exact_top(vs: &[Vec<f32>], q: &[f32], k: usize) -> Vec<usize> {
        let mut s: Vec<(usize, f32)> = vs.iter().enumerate().map(|(i, v)| (i, v.iter().zip(q).map(|(a, b)| a * b).sum())).collect();
        s.sort_by(|a, b| b.1.total_cmp(&a.1));
        s.into_iter().take(k).map(|x| x.0).collect()
    }

    fn recall_at_10(n: usize) -> f64 {
        let dim = 384;
        let vs = vectors(n, dim, 42);
        let mut set = VectorSet::new(dim);
        for (i, v) in vs.iter().enumerate() {
            set.push(i as u32, v).unwrap();
        }
        let queries = vectors(50, dim, 7);
        let mut found = 0;
        for q in &queries {
            let exact = exact_top(&vs, q, 10);
            let got: Vec<usize> = set.search(q, 10).into_iter().map(|x| x.0).collect();
            found += exact.iter().filter(|i| got.contains(i)).count();
        }
        found as f64 / (queries.len() * 10) as f64
    }

    #[test]
    fn quantised_search_recall_against_exact_f32() {
        let recall = recall_at_10(2000);
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn round_trip_and_corruption() {
        let vs = vectors(10, 16, 3);
        let mut set = VectorSet::new(16);
        for (i, v) in vs.iter().enumerate() {
            set.push(i as u32 / 2, v).unwrap();
        }
        let bytes = set.encode(3);
        assert_eq!(VectorSet::decode(&bytes, 5, 3).unwrap(), set);
        assert!(VectorSet::decode(&bytes, 5, 2).is_err(), "another list's payload");
        assert!(VectorSet::decode(&bytes, 4, 3).is_err(), "doc out of range");
        assert!(VectorSet::decode(&bytes[..bytes.len() - 1], 5, 3).is_err(), "truncated");
        assert!(set.push(0, &[0.0; 3]).is_err());
        assert!(set.push(0, &[f32::NAN; 16]).is_err());
    }
}
