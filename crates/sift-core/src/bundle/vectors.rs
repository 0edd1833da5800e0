//! Quantised vector sets: one vector per chunk (a section, or part of a long one), each
//! stored as int8 with its own scale.
//!
//! Two payloads share this type:
//! - a *vector list* (kind 7, format 2): one partition of the bundle's vectors (see
//!   `vindex`). `varint dim`, `varint n`, n delta-varint doc numbers (non-decreasing),
//!   n × dim int8 codes, n f32 scales (LE). Lists are small, so search is exact. From
//!   format 10 the lists are a store named by rule and the payload starts with `varint
//!   place`, the list's own number (see `table`).
//! - a *vector shard* (kind 5, format 1): the same followed by n × ⌈dim/8⌉ bytes of sign
//!   bits. Sets over `COARSE_ABOVE` vectors first rank by the query's dot product with each
//!   sign code (48 table lookups per 384-dim vector) and rescore the best fifth with int8.

use super::varint::{self, Reader};
use crate::error::SiftError;

/// Sets larger than this use the sign-code coarse pass before int8 rescoring.
pub const COARSE_ABOVE: usize = 4096;
/// Candidates kept by the coarse pass, per requested result.
pub const COARSE_FACTOR: usize = 20;

/// A quantised vector set: chunk → document, int8 codes, scales, sign bits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VectorSet {
    pub dim: usize,
    pub doc_of: Vec<u32>,
    pub codes: Vec<i8>,
    pub scales: Vec<f32>,
    pub signs: Vec<u8>,
    with_signs: bool,
}

impl VectorSet {
    /// A format-1 set (with sign codes).
    pub fn new(dim: usize) -> Self {
        VectorSet { dim, with_signs: true, ..Default::default() }
    }

    /// A vector list (format 2: no sign codes).
    pub fn new_list(dim: usize) -> Self {
        VectorSet { dim, with_signs: false, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.doc_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_of.is_empty()
    }

    fn sign_bytes(&self) -> usize {
        self.dim.div_ceil(8)
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
        if self.with_signs {
            let mut bits = vec![0u8; self.sign_bytes()];
            for (i, x) in v.iter().enumerate() {
                if *x > 0.0 {
                    bits[i / 8] |= 1 << (i % 8);
                }
            }
            self.signs.extend(bits);
        }
        self.doc_of.push(doc);
        Ok(())
    }

    /// The payload (a vector shard with sign codes, or a vector list without).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.codes.len() + self.len() * 6 + self.signs.len() + 8);
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
        out.extend_from_slice(&self.signs);
        out
    }

    /// A format-1 vector shard (with sign codes).
    pub fn decode(payload: &[u8], doc_count: u32) -> Result<VectorSet, SiftError> {
        Self::decode_as(payload, doc_count, true)
    }

    /// A vector list (no sign codes); `place`: its number in a store named by rule
    /// (format 10), which the payload must name first.
    pub fn decode_list(payload: &[u8], doc_count: u32, place: Option<usize>) -> Result<VectorSet, SiftError> {
        Self::decode_as(&payload[super::table::strip_place(payload, place, "vector list")?..], doc_count, false)
    }

    fn decode_as(payload: &[u8], doc_count: u32, with_signs: bool) -> Result<VectorSet, SiftError> {
        let mut r = Reader::new(payload);
        let dim = r.u32()? as usize;
        let n = r.u32()? as usize;
        if dim == 0 || dim > 4096 || n > payload.len() {
            return Err(SiftError::corrupt("vector shard header is implausible"));
        }
        let mut set = if with_signs { VectorSet::new(dim) } else { VectorSet::new_list(dim) };
        let mut d = 0u32;
        for _ in 0..n {
            d = d.wrapping_add(r.u32()?);
            if d >= doc_count {
                return Err(SiftError::corrupt("vector shard names a document out of range"));
            }
            set.doc_of.push(d);
        }
        set.codes = r.bytes(n * dim)?.iter().map(|&b| b as i8).collect();
        set.scales = r.bytes(n * 4)?.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if with_signs {
            set.signs = r.bytes(n * set.sign_bytes())?.to_vec();
        }
        if !r.is_empty() || set.scales.iter().any(|s| !s.is_finite()) {
            return Err(SiftError::corrupt("vector shard has trailing or invalid data"));
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
        let candidates: Vec<usize> = if self.with_signs && self.len() > COARSE_ABOVE {
            // Asymmetric coarse score: q · sign(v), from one 256-entry table per code byte
            // (the query keeps its magnitudes; only the stored side is one bit).
            let sb = self.sign_bytes();
            let mut table = vec![[0f32; 256]; sb];
            for (b, t) in table.iter_mut().enumerate() {
                for (byte, slot) in t.iter_mut().enumerate() {
                    *slot = (0..8).filter_map(|j| q.get(b * 8 + j).map(|x| if byte & (1 << j) != 0 { *x } else { -*x })).sum();
                }
            }
            let mut coarse: Vec<(f32, usize)> = (0..self.len())
                .map(|i| (-self.signs[i * sb..(i + 1) * sb].iter().zip(&table).map(|(&c, t)| t[c as usize]).sum::<f32>(), i))
                .collect();
            let keep = (k * COARSE_FACTOR).max(self.len() / 5).min(coarse.len());
            coarse.select_nth_unstable_by(keep - 1, |a, b| a.0.total_cmp(&b.0));
            coarse.truncate(keep);
            coarse.into_iter().map(|(_, i)| i).collect()
        } else {
            (0..self.len()).collect()
        };
        let mut scored: Vec<(usize, f32)> = candidates.into_iter().map(|i| (i, self.score(i, q))).collect();
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
        let small = recall_at_10(2000); // int8 over every vector
        let large = recall_at_10(6000); // sign-code coarse pass, then int8
        eprintln!("recall@10 vs exact f32: int8 scan {small:.3}, coarse pass + int8 {large:.3}");
        assert!(small >= 0.95, "recall@10 {small}");
        assert!(large >= 0.95, "recall@10 with the coarse pass {large}");
    }

    #[test]
    fn round_trip_and_corruption() {
        let vs = vectors(10, 16, 3);
        let mut set = VectorSet::new(16);
        for (i, v) in vs.iter().enumerate() {
            set.push(i as u32 / 2, v).unwrap();
        }
        let bytes = set.encode();
        assert_eq!(VectorSet::decode(&bytes, 5).unwrap(), set);
        assert!(VectorSet::decode(&bytes, 4).is_err(), "doc out of range");
        assert!(VectorSet::decode(&bytes[..bytes.len() - 1], 5).is_err(), "truncated");
        assert!(set.push(0, &[0.0; 3]).is_err());
        assert!(set.push(0, &[f32::NAN; 16]).is_err());
    }
}
