//! Term shards: the inverted index, cut into ranges of terms in lexicographic order.
//!
//! Payload: `u32 fst_len (LE) | fst | postings`. The fst maps term → offset into the
//! postings area. At that offset:
//!
//! ```text
//! varint df
//! str    surface      the term's most common written form; empty when it is the term itself
//!                     ("did you mean" shows words, not stems)
//! df × { varint doc_delta      first doc as is, then gaps (strictly increasing)
//!        u8     field_mask     bit f set: the term occurs in field f (title, path, headings, body)
//!        varint tf             one per set bit, in field order
//!        varint npos           0 for stop words (they carry no positions)
//!        npos × varint pos_delta }
//! ```
//!
//! Positions live in one per-document space laid out by [`super::docstore`], in which fields
//! and sections are separated by gaps: phrase matching needs no field lookup and never
//! crosses a boundary. An exact term needs one shard, a prefix the shards overlapping its
//! range, fuzzy matching all of them.

use super::varint::{self, Reader};
use crate::error::{ErrorCode, SiftError};
use crate::rank::N_FIELDS;
use std::collections::HashMap;

/// A term shard: an fst (term → offset) and the postings area it points into.
pub struct TermShard {
    pub map: fst::Map<Vec<u8>>,
    postings: Vec<u8>,
}

/// The postings of one term.
#[derive(Debug, Clone, Default)]
pub struct PostingList {
    pub df: u32,
    /// The most common way the term was written (empty when it is the term itself).
    pub surface: String,
    pub docs: Vec<u32>,
    pub tf: Vec<[u32; N_FIELDS]>,
    /// Positions of doc k: `positions[pos_start[k]..pos_start[k+1]]`.
    pub positions: Vec<u32>,
    pub pos_start: Vec<u32>,
}

impl PostingList {
    pub fn positions_of(&self, k: usize) -> &[u32] {
        &self.positions[self.pos_start[k] as usize..self.pos_start[k + 1] as usize]
    }
}

impl TermShard {
    pub fn decode(payload: Vec<u8>) -> Result<TermShard, SiftError> {
        if payload.len() < 4 {
            return Err(SiftError::corrupt("term shard too short"));
        }
        let fst_len = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]) as usize;
        if fst_len > payload.len() - 4 {
            return Err(SiftError::corrupt("term shard dictionary length exceeds the shard"));
        }
        let fst_bytes = payload[4..4 + fst_len].to_vec();
        let postings = payload[4 + fst_len..].to_vec();
        let map = open_fst(fst_bytes, "term dictionary")?;
        Ok(TermShard { map, postings })
    }

    pub fn offset(&self, term: &str) -> Option<u64> {
        self.map.get(term.as_bytes())
    }

    /// Document frequency and surface form, without decoding the list.
    pub fn header(&self, offset: u64) -> Result<(u32, &str), SiftError> {
        let mut r = Reader::at(&self.postings, offset as usize);
        let df = r.u32()?;
        let surface = r.str()?;
        Ok((df, surface))
    }

    pub fn postings(&self, offset: u64, doc_count: u32) -> Result<PostingList, SiftError> {
        let mut r = Reader::at(&self.postings, offset as usize);
        let df = r.u32()?;
        if df > doc_count {
            return Err(SiftError::corrupt("posting list longer than the document count"));
        }
        let surface = r.str()?.to_string();
        let n = df as usize;
        let mut pl = PostingList {
            df,
            surface,
            docs: Vec::with_capacity(n),
            tf: Vec::with_capacity(n),
            positions: Vec::new(),
            pos_start: Vec::with_capacity(n + 1),
        };
        pl.pos_start.push(0);
        let mut doc = 0u32;
        for k in 0..n {
            doc = r.doc_delta(doc, k == 0, doc_count)?;
            let mask = r.byte()?;
            if mask == 0 || mask >> N_FIELDS != 0 {
                return Err(SiftError::corrupt("posting field mask invalid"));
            }
            let mut tf = [0u32; N_FIELDS];
            for (f, slot) in tf.iter_mut().enumerate() {
                if mask & (1 << f) != 0 {
                    *slot = r.u32()?;
                }
            }
            let npos = r.u32()? as usize;
            if npos > self.postings.len() {
                return Err(SiftError::corrupt("posting position count implausible"));
            }
            let mut p = 0u32;
            for _ in 0..npos {
                p = p.checked_add(r.u32()?).ok_or_else(|| SiftError::corrupt("position overflow"))?;
                pl.positions.push(p);
            }
            pl.docs.push(doc);
            pl.tf.push(tf);
            pl.pos_start.push(pl.positions.len() as u32);
        }
        Ok(pl)
    }
}

/// What the builder gathered for one term: its postings in doc order, and how it was
/// written (spelling → count) to pick the surface form.
#[derive(Default)]
pub struct TermEntry {
    /// (doc, per-field tf, positions)
    pub docs: Vec<(u32, [u32; N_FIELDS], Vec<u32>)>,
    pub surfaces: HashMap<String, u32>,
}

impl TermEntry {
    /// The most common spelling (ties: the smallest), or "" when that is the term itself.
    fn surface<'a>(&'a self, term: &str) -> &'a str {
        self.surfaces
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(s, _)| s.as_str())
            .filter(|s| *s != term)
            .unwrap_or("")
    }

    fn encode(&self, term: &str, out: &mut Vec<u8>) {
        varint::put(out, self.docs.len() as u64);
        varint::put_str(out, self.surface(term));
        let mut prev = 0u32;
        for (k, (doc, tf, pos)) in self.docs.iter().enumerate() {
            varint::put_doc_delta(out, prev, *doc, k == 0);
            prev = *doc;
            let mask: u8 = (0..N_FIELDS).filter(|&f| tf[f] > 0).fold(0, |m, f| m | (1 << f));
            out.push(mask);
            for &t in tf.iter().filter(|&&t| t > 0) {
                varint::put(out, u64::from(t));
            }
            varint::put(out, pos.len() as u64);
            let mut pp = 0u32;
            for &p in pos {
                varint::put(out, u64::from(p - pp));
                pp = p;
            }
        }
    }
}

/// Writes term shards: terms in sorted order, cut when the postings reach a target size.
pub struct ShardWriter {
    target: usize,
    terms: Vec<(String, u64)>,
    postings: Vec<u8>,
    /// Finished shards: (first term, last term, payload).
    pub done: Vec<(String, String, Vec<u8>)>,
}

impl ShardWriter {
    pub fn new(target: usize) -> Self {
        ShardWriter { target, terms: Vec::new(), postings: Vec::new(), done: Vec::new() }
    }

    /// Add the next term (terms must come in sorted order).
    pub fn push(&mut self, term: &str, entry: &TermEntry) -> Result<(), SiftError> {
        if !self.terms.is_empty() && self.postings.len() >= self.target {
            self.cut()?;
        }
        self.terms.push((term.to_string(), self.postings.len() as u64));
        entry.encode(term, &mut self.postings);
        Ok(())
    }

    /// The finished shards (at least one, even for an empty dictionary).
    pub fn finish(mut self) -> Result<Vec<(String, String, Vec<u8>)>, SiftError> {
        if !self.terms.is_empty() || self.done.is_empty() {
            self.cut()?;
        }
        Ok(self.done)
    }

    fn cut(&mut self) -> Result<(), SiftError> {
        let fst_bytes = build_fst(self.terms.iter().map(|(t, off)| (t.as_str(), *off)))?;
        let mut payload = Vec::with_capacity(4 + fst_bytes.len() + self.postings.len());
        payload.extend_from_slice(&(fst_bytes.len() as u32).to_le_bytes());
        payload.extend_from_slice(&fst_bytes);
        payload.extend_from_slice(&self.postings);
        let first = self.terms.first().map(|t| t.0.clone()).unwrap_or_default();
        let last = self.terms.last().map(|t| t.0.clone()).unwrap_or_default();
        self.terms.clear();
        self.postings.clear();
        self.done.push((first, last, payload));
        Ok(())
    }
}

/// An fst map from sorted keys (term and id dictionaries).
pub(crate) fn build_fst<'a>(keys: impl IntoIterator<Item = (&'a str, u64)>) -> Result<Vec<u8>, SiftError> {
    let mut b = fst::MapBuilder::memory();
    for (k, v) in keys {
        b.insert(k.as_bytes(), v).map_err(|e| SiftError::new(ErrorCode::Internal, format!("fst: {e}")))?;
    }
    b.into_inner().map_err(|e| SiftError::new(ErrorCode::Internal, format!("fst: {e}")))
}

/// Open an fst map from a shard, verifying its own checksum once. `fst::Map::new` checks
/// only the header and footer, and walking a damaged automaton panics inside fst (found by
/// the `bundle` fuzz target): a dictionary that passes is the one the builder wrote. The
/// checksum is fst's own (`Fst::verify`), computed here with a 1 KB table instead of fst's
/// 16 KB one.
pub(crate) fn open_fst(bytes: Vec<u8>, what: &str) -> Result<fst::Map<Vec<u8>>, SiftError> {
    let map = fst::Map::new(bytes).map_err(|e| SiftError::corrupt(format!("{what}: {e}")))?;
    let all = map.as_fst().as_bytes();
    // fst::Map::new accepted it, so it holds at least its 36-byte header and footer.
    let (body, stored) = all.split_at(all.len() - 4);
    let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
    if crate::bundle::crc32::crc32c_masked(body) != stored {
        return Err(SiftError::corrupt(format!("{what} fails its checksum")));
    }
    Ok(map)
}
