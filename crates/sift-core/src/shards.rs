//! Decoded shards: the read side of the bundle format. Every decoder checks what it reads
//! (lengths, doc ids in range, strictly increasing) so a shard that passed its checksum but
//! was written by a buggy or hostile builder still cannot cause a panic.

use crate::builder::unzigzag;
use crate::doc::StoredDoc;
use crate::error::SiftError;
use crate::rank::N_FIELDS;
use crate::varint::Reader;
use std::collections::BTreeMap;

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
        let map = fst::Map::new(fst_bytes).map_err(|e| SiftError::corrupt(format!("term dictionary: {e}")))?;
        // `Map::new` checks only the header and footer, and walking a damaged automaton
        // panics inside fst (found by the `bundle` fuzz target). The fst's own checksum
        // (CRC-32C over the whole automaton) is verified once here, so a dictionary that
        // passes is the one the builder wrote.
        map.as_fst().verify().map_err(|e| SiftError::corrupt(format!("term dictionary fails its checksum: {e}")))?;
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
            doc = next_doc_id(&mut r, doc, k == 0, doc_count)?;
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

/// Per-document data needed for scoring: quantised field lengths and dates.
pub struct DocMeta {
    pub lens: Vec<[u8; N_FIELDS]>,
    pub dates: Vec<Option<i64>>,
}

impl DocMeta {
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
            dates.push(if v == 0 { None } else { Some(unzigzag(v - 1)) });
        }
        Ok(DocMeta { lens, dates })
    }
}

/// Filterable field → value → sorted doc ids.
pub struct FilterIndex {
    pub fields: BTreeMap<String, BTreeMap<String, Vec<u32>>>,
}

impl FilterIndex {
    pub fn decode(payload: &[u8], doc_count: u32) -> Result<FilterIndex, SiftError> {
        let mut r = Reader::new(payload);
        let nf = r.u32()?;
        let mut fields = BTreeMap::new();
        for _ in 0..nf {
            let name = r.str()?.to_string();
            let nv = r.u32()?;
            let mut values = BTreeMap::new();
            for _ in 0..nv {
                let v = r.str()?.to_string();
                values.insert(v, read_doc_list(&mut r, doc_count)?);
            }
            fields.insert(name, values);
        }
        Ok(FilterIndex { fields })
    }
}

fn read_doc_list(r: &mut Reader, doc_count: u32) -> Result<Vec<u32>, SiftError> {
    let n = r.u32()?;
    if n > doc_count {
        return Err(SiftError::corrupt("filter doc list longer than the document count"));
    }
    let mut out = Vec::with_capacity(n as usize);
    let mut d = 0u32;
    for k in 0..n {
        d = next_doc_id(r, d, k == 0, doc_count)?;
        out.push(d);
    }
    Ok(out)
}

/// The next id of a delta-encoded, strictly increasing doc-id list, checked against the
/// document count.
fn next_doc_id(r: &mut Reader, prev: u32, first: bool, doc_count: u32) -> Result<u32, SiftError> {
    let delta = r.u32()?;
    if !first && delta == 0 {
        return Err(SiftError::corrupt("doc ids not increasing"));
    }
    prev.checked_add(delta).filter(|&d| d < doc_count).ok_or_else(|| SiftError::corrupt("doc id out of range"))
}

pub fn decode_docs(payload: &[u8], expected: u32) -> Result<Vec<StoredDoc>, SiftError> {
    let docs: Vec<StoredDoc> = serde_json::from_slice(payload).map_err(|e| SiftError::corrupt(format!("document store: {e}")))?;
    if docs.len() != expected as usize {
        return Err(SiftError::corrupt("document store shard holds the wrong number of documents"));
    }
    Ok(docs)
}
