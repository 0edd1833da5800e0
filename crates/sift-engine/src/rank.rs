//! BM25F scoring (Robertson & Zaragoza, "The Probabilistic Relevance Framework", 2009):
//! per-field length normalisation, weighted term frequencies summed across fields, one
//! saturation:
//!
//! `tf~ = Σ_f w_f·tf_f / (1 − b_f + b_f·len_f/avglen_f)`, `score(t) = idf(t) · tf~/(k1 + tf~)`.
//!
//! Field lengths are stored as one byte each (`bundle::docmeta`). `engine::score` applies
//! these pieces, once, for ranking and explanations alike.

use sift_format::docmeta::decode_len;

pub use sift_format::fields::{Bm25fParams, FIELD_BODY, FIELD_HEADINGS, FIELD_NAMES, FIELD_PATH, FIELD_TITLE, N_FIELDS};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idf_is_positive_and_decreasing() {
        assert!(idf(100, 1) > idf(100, 50));
        assert!(idf(100, 100) > 0.0);
    }
}
