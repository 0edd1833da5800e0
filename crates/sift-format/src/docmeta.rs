//! Doc metadata: what scoring needs of every document, loaded with the first query.
//!
//! Payload:
//!
//! ```text
//! varint n_docs
//! n_docs × 4 bytes   quantised field lengths: title, path, headings, body (`encode_len`)
//! n_docs × varint    date: 0 = none, else zigzag(days since 1970-01-01) + 1
//! n_docs × 1 byte    link density, round(255 × linked text / all text), written as ranking
//!                    reads it: 0 up to half the text linked, 255 from 80% — present only when
//!                    some page has more (readers before it stop at the dates and ignore it)
//! ```
//!
//! Link density marks navigation: a generated index (Sphinx `genindex`, rustdoc `all.html`)
//! is almost all links, an article almost none. The extractor gives a code listing (a
//! source page) a density of 1 (`SourceDoc::link_density`: the part of a page that is not
//! prose), so a `src/` page weighs like navigation too. [`DocMeta::prior`] turns it into the one
//! document prior of ranking: 1 up to half the text linked, falling linearly to 0.5 at 80%.
//!
//! Field lengths take one byte each, like Lucene's norms: exact up to 63 tokens, then steps
//! of 4% (up to about 130,000 tokens). BM25F only needs a length relative to the field's
//! average, and 4% is well below what changes a ranking.

use crate::fields::N_FIELDS;
use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};

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
#[derive(Default)]
pub struct DocMeta {
    pub lens: Vec<[u8; N_FIELDS]>,
    pub dates: Vec<Option<i64>>,
    /// Quantised link density per document (empty: no page has links).
    pub link_density: Vec<u8>,
}

/// Link density (0..1) up to which a page is content, and from which it is all
/// navigation: the ramp between them is how much of a navigation page it is
/// (`DocMeta::navigation`; the engine's `navigation_weight` says what that costs).
pub const NAV_FROM: f32 = 0.5;
pub const NAV_FULL: f32 = 0.8;

/// Link density in 0..1, one byte, as ranking reads it: 0 wherever a page is content (at
/// most `NAV_FROM`), 255 wherever it is all navigation (from `NAV_FULL`). Most pages are the
/// former, and their exact densities, a byte of noise each, were most of a large site's
/// startup shard.
pub fn encode_density(d: f32) -> u8 {
    let q = (d.clamp(0.0, 1.0) * 255.0).round() as u8;
    let n = navigation_of(q);
    if n == 0.0 {
        0
    } else if n == 1.0 {
        255
    } else {
        q
    }
}

/// How much of a navigation page a stored link density makes a page (0..1).
fn navigation_of(q: u8) -> f32 {
    let d = f32::from(q) / 255.0;
    ((d - NAV_FROM) / (NAV_FULL - NAV_FROM)).clamp(0.0, 1.0)
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
        // Only when some page has links: bundles of Markdown or JSONL stay as they were.
        if self.link_density.len() == self.lens.len() && self.link_density.iter().any(|&q| q > 0) {
            out.extend_from_slice(&self.link_density);
        }
        out
    }

    /// How much of a navigation page `doc` is: 0 for content, 1 for a page that is mostly
    /// links.
    pub fn navigation(&self, doc: u32) -> f32 {
        self.link_density.get(doc as usize).map_or(0.0, |&q| navigation_of(q))
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
        let link_density = if r.is_empty() { Vec::new() } else { r.bytes(n as usize)?.to_vec() };
        Ok(DocMeta { lens, dates, link_density })
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
        let m = DocMeta { lens: vec![[1, 2, 3, 200], [0, 0, 0, 0]], dates: vec![Some(-3), None], link_density: Vec::new() };
        let b = m.encode();
        let back = DocMeta::decode(&b, 2).unwrap();
        assert_eq!((back.lens, back.dates, back.link_density), (m.lens.clone(), m.dates.clone(), vec![]));
        assert!(DocMeta::decode(&b, 3).is_err());
        assert!(DocMeta::decode(&b[..b.len() - 1], 2).is_err());
        // With link densities: written after the dates, read back; a cut section is an error.
        let nav = DocMeta { link_density: vec![encode_density(0.1), encode_density(0.95)], ..m };
        let b = nav.encode();
        let back = DocMeta::decode(&b, 2).unwrap();
        assert_eq!(back.link_density, nav.link_density);
        assert!(DocMeta::decode(&b[..b.len() - 1], 2).is_err());
        assert_eq!(back.navigation(0), 0.0, "content");
        assert_eq!(back.navigation(1), 1.0, "a page of links");
        let partly = DocMeta { link_density: vec![encode_density(0.65)], ..DocMeta::default() }.navigation(0);
        assert!(nav.navigation(0) == 0.0 && partly > 0.0 && partly < 1.0);
    }

    #[test]
    fn a_density_is_stored_as_ranking_reads_it_with_every_ramp_value_unchanged() {
        for i in 0..=1000 {
            let d = i as f32 / 1000.0;
            let exact = (d * 255.0).round() as u8;
            assert_eq!(navigation_of(encode_density(d)), navigation_of(exact), "density {d}");
        }
        assert_eq!((encode_density(0.0), encode_density(0.3), encode_density(0.49)), (0, 0, 0), "content: no density kept");
        assert_eq!((encode_density(0.8), encode_density(0.95), encode_density(1.0)), (255, 255, 255), "navigation: the floor");
        assert_eq!(encode_density(0.65), (0.65f32 * 255.0).round() as u8, "in between: as measured");
        // A site whose pages are all content writes no densities at all.
        let content =
            DocMeta { lens: vec![[1, 1, 1, 1]; 2], dates: vec![None; 2], link_density: vec![encode_density(0.2), encode_density(0.4)] };
        let plain = DocMeta { lens: content.lens.clone(), dates: content.dates.clone(), link_density: Vec::new() };
        assert_eq!(content.encode(), plain.encode());
    }
}
