//! BM25F scoring (Robertson & Zaragoza, "The Probabilistic Relevance Framework", 2009):
//! per-field length normalisation, weighted term frequencies summed across fields, one
//! saturation. Field lengths are stored as one byte each (log scale), like Lucene's norms.

use serde::{Deserialize, Serialize};

pub const FIELD_TITLE: usize = 0;
pub const FIELD_PATH: usize = 1;
pub const FIELD_HEADINGS: usize = 2;
pub const FIELD_BODY: usize = 3;
pub const N_FIELDS: usize = 4;
pub const FIELD_NAMES: [&str; N_FIELDS] = ["title", "path", "headings", "body"];

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bm25fParams {
    pub k1: f32,
    /// Length normalisation per field (0 = none, 1 = full).
    pub b: [f32; N_FIELDS],
    /// Field weights: a title or file-name match counts this many body occurrences.
    pub weight: [f32; N_FIELDS],
}

impl Default for Bm25fParams {
    fn default() -> Self {
        Bm25fParams { k1: 1.5, b: [0.5, 0.5, 0.6, 0.75], weight: [3.0, 3.0, 2.0, 1.0] }
    }
}

/// Robertson–Spärck Jones idf with the +1 that keeps it positive (Lucene's form).
pub fn idf(doc_count: u32, df: u32) -> f32 {
    let n = doc_count as f32;
    let df = df as f32;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// Precomputed `1 − b + b·len/avglen` for every quantised length of every field.
pub struct NormTable {
    pub norm: [[f32; 256]; N_FIELDS],
}

impl NormTable {
    pub fn new(params: &Bm25fParams, avg: &[f32; N_FIELDS]) -> Self {
        let mut norm = [[1.0f32; 256]; N_FIELDS];
        for f in 0..N_FIELDS {
            let avg_len = avg[f].max(1e-3);
            for q in 0..256 {
                norm[f][q] = 1.0 - params.b[f] + params.b[f] * decode_len(q as u8) / avg_len;
            }
        }
        NormTable { norm }
    }

    /// The weighted, length-normalised term frequency `tf~` of BM25F.
    #[inline]
    pub fn pseudo_tf(&self, params: &Bm25fParams, tf: &[u32; N_FIELDS], lens: &[u8; N_FIELDS]) -> f32 {
        let mut t = 0.0;
        for f in 0..N_FIELDS {
            if tf[f] > 0 {
                t += params.weight[f] * tf[f] as f32 / self.norm[f][lens[f] as usize];
            }
        }
        t
    }
}

/// Saturate a pseudo term frequency: in 0..1.
#[inline]
pub fn saturate(k1: f32, tf: f32) -> f32 {
    tf / (k1 + tf)
}

/// One byte per field length: exact up to 63 tokens, then 4% steps (up to ~130k tokens).
pub fn encode_len(len: u32) -> u8 {
    if len < 64 {
        return len as u8;
    }
    let steps = ((len as f64 / 64.0).ln() / 1.04f64.ln()).floor() as u32;
    (64 + steps).min(255) as u8
}

pub fn decode_len(q: u8) -> f32 {
    if q < 64 {
        return q as f32;
    }
    (64.0 * 1.04f64.powi(i32::from(q) - 64)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_quantisation_is_monotone_and_close() {
        let mut prev = 0u8;
        for len in [0u32, 1, 10, 63, 64, 65, 100, 1000, 10_000, 100_000, u32::MAX] {
            let q = encode_len(len);
            assert!(q >= prev);
            prev = q;
            if (1..100_000).contains(&len) {
                let back = decode_len(q);
                assert!((back - len as f32).abs() / len as f32 <= 0.05, "{len} -> {back}");
            }
        }
    }

    #[test]
    fn idf_is_positive_and_decreasing() {
        assert!(idf(100, 1) > idf(100, 50));
        assert!(idf(100, 100) > 0.0);
    }
}
