//! Doc metadata: what scoring needs of every document, loaded with the first query.
//!
//! Payload:
//!
//! ```text
//! varint n_docs
//! n_docs × 4 bytes   quantised field lengths: title, path, headings, body (`encode_len`)
//! n_docs × varint    date: 0 = none, else zigzag(days since 1970-01-01) + 1
//! ```
//!
//! Field lengths take one byte each, like Lucene's norms: exact up to 63 tokens, then steps
//! of 4% (up to about 130,000 tokens). BM25F only needs a length relative to the field's
//! average, and 4% is well below what changes a ranking.

use super::varint::{self, Reader};
use crate::error::SiftError;
use crate::rank::N_FIELDS;

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

/// Per-document data needed for scoring: quantised field lengths and dates.
pub struct DocMeta {
    pub lens: Vec<[u8; N_FIELDS]>,
    pub dates: Vec<Option<i64>>,
}

impl DocMeta {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.lens.len() * 6 + 8);
        varint::put(&mut out, self.lens.len() as u64);
        for l in &self.lens {
            out.extend_from_slice(l);
        }
        for d in &self.dates {
            varint::put(&mut out, d.map(|x| varint::zigzag(x) + 1).unwrap_or(0));
        }
        out
    }

    pub fn decode(payload: &[u8], doc_count: u32) -> Result<DocMeta, SiftError> {
        let mut r = Reader::new(payload);
        let n = r.u32()?;
        if n != doc_count {
            return Err(SiftError::corrupt("doc metadata count differs from the manifest"));
        }
        let raw = r.bytes(n as usize * N_FIELDS)?;
        let lens = raw.chunks_exact(N_FIELDS).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        let mut dates = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let v = r.u64()?;
            dates.push(if v == 0 { None } else { Some(varint::unzigzag(v - 1)) });
        }
        Ok(DocMeta { lens, dates })
    }

    /// The newest date of the bundle: stands in for "now" when ranking by recency (bundles
    /// are static, and this keeps results reproducible).
    pub fn newest_date(&self) -> i64 {
        self.dates.iter().flatten().copied().max().unwrap_or(0)
    }
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
    fn round_trip_and_count_checked() {
        let m = DocMeta { lens: vec![[1, 2, 3, 200], [0, 0, 0, 0]], dates: vec![Some(-3), None] };
        let b = m.encode();
        let back = DocMeta::decode(&b, 2).unwrap();
        assert_eq!((back.lens, back.dates), (m.lens, m.dates));
        assert!(DocMeta::decode(&b, 3).is_err());
        assert!(DocMeta::decode(&b[..b.len() - 1], 2).is_err());
    }
}
