//! Term shards: the inverted index, cut into ranges of terms in lexicographic order.
//!
//! Payload: `u32 fst_len (LE) | fst | postings`. The fst maps term → offset into the
//! postings area. Each term's postings are laid out column by column, so deflate sees runs
//! of like values (a body-only mask is the same byte thousands of times, doc gaps and tfs
//! are small numbers together) and the position count is derived, not stored:
//!
//! ```text
//! varint df·4 + positions   df, and how positions are kept (low two bits):
//!                             0 none (stop words: they carry no positions)
//!                             1 every occurrence: npos of a doc = the sum of its tfs
//!                             2 a stored count per doc (the npos column below)
//! str    surface            the term's most common written form; empty when it is the
//!                           term itself ("did you mean" shows words, not stems)
//! df × varint doc_delta     first doc as is, then gaps (strictly increasing)
//! df × u8     field_mask    bit f set: the term occurs in field f (title, path, headings, body)
//! varint tf                 one per set bit of each mask, in doc then field order
//! df × varint npos          only with positions 2
//! varint pos_delta          each doc's positions in turn, gaps from the doc's previous one
//! ```
//!
//! Positions live in one per-document space laid out by [`super::docstore`], in which fields
//! and sections are separated by gaps: phrase matching needs no field lookup and never
//! crosses a boundary. An exact term needs one shard, a prefix the shards overlapping its
//! range, fuzzy matching the shards of its first letter (or all of them).

use crate::fields::N_FIELDS;
use sift_base::error::{ErrorCode, SiftError};
use sift_base::hashing::HashMap;
use sift_base::varint::{self, Reader};

/// A term shard: an fst (term → offset) and the postings area it points into.
pub struct TermShard {
    pub map: fst::Map<Vec<u8>>,
    postings: Vec<u8>,
}

/// How a term keeps its positions (the low two bits of its first varint).
const POS_NONE: u64 = 0;
const POS_EVERY: u64 = 1;
const POS_COUNTED: u64 = 2;

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
        let (df, _) = self.df_and_positions(&mut r)?;
        let surface = r.str()?;
        Ok((df, surface))
    }

    /// The first varint of a term: its df, and how it keeps positions.
    fn df_and_positions(&self, r: &mut Reader) -> Result<(u32, u64), SiftError> {
        let v = r.u64()?;
        let df = u32::try_from(v >> 2).map_err(|_| SiftError::corrupt("posting list length exceeds 32 bits"))?;
        if v & 3 > POS_COUNTED {
            return Err(SiftError::corrupt("posting position layout unknown"));
        }
        Ok((df, v & 3))
    }

    pub fn postings(&self, offset: u64, doc_count: u32) -> Result<PostingList, SiftError> {
        let mut r = Reader::at(&self.postings, offset as usize);
        let (df, positions) = self.df_and_positions(&mut r)?;
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
            pl.docs.push(doc);
        }
        let masks = r.bytes(n)?;
        for &mask in masks {
            pl.tf.push(tf_of_mask(mask, &mut r)?);
        }
        // Only terms whose counts differ from their tfs store them (a column of their own,
        // before the positions).
        let stored = if positions == POS_COUNTED { (0..n).map(|_| r.u32()).collect::<Result<Vec<u32>, _>>()? } else { Vec::new() };
        for (k, tf) in pl.tf.iter().enumerate() {
            let npos = match positions {
                POS_NONE => 0,
                POS_EVERY => tf.iter().fold(0u32, |a, &t| a.saturating_add(t)),
                _ => stored[k],
            };
            read_positions(&mut r, self.position_count(npos)?, &mut pl.positions)?;
            pl.pos_start.push(pl.positions.len() as u32);
        }
        Ok(pl)
    }

    /// A doc's position count, refused when the shard could not hold that many.
    fn position_count(&self, npos: u32) -> Result<usize, SiftError> {
        let npos = npos as usize;
        if npos > self.postings.len() {
            return Err(SiftError::corrupt("posting position count implausible"));
        }
        Ok(npos)
    }
}

/// The per-field tfs for `mask`: one varint per set bit, in field order.
fn tf_of_mask(mask: u8, r: &mut Reader) -> Result<[u32; N_FIELDS], SiftError> {
    if mask == 0 || mask >> N_FIELDS != 0 {
        return Err(SiftError::corrupt("posting field mask invalid"));
    }
    let mut tf = [0u32; N_FIELDS];
    for (f, slot) in tf.iter_mut().enumerate() {
        if mask & (1 << f) != 0 {
            *slot = r.u32()?;
        }
    }
    Ok(tf)
}

/// `npos` gap-coded positions of one doc, appended to `out`.
fn read_positions(r: &mut Reader, npos: usize, out: &mut Vec<u32>) -> Result<(), SiftError> {
    let mut p = 0u32;
    for _ in 0..npos {
        p = p.checked_add(r.u32()?).ok_or_else(|| SiftError::corrupt("position overflow"))?;
        out.push(p);
    }
    Ok(())
}

/// What the builder gathers for one term: its postings in doc order and how it was written
/// (spelling → count) to pick the surface form.
///
/// The postings are held as compact rows, not as values: a big site's postings are most of
/// a build's memory, and a row takes a few bytes where a value took fifty and an allocation.
/// A row is `varint doc_gap` (the first doc of a run as is), `u8 field_mask`, `varint tf`
/// per set bit, `varint npos`, `varint pos_delta` each. A builder short of memory takes the
/// rows held so far ([`TermEntry::take_run`]) to disk and hands them back, in order, to
/// [`ShardWriter::push_remapped`], which turns every run into the shard's columns.
#[derive(Default, Debug)]
pub struct TermEntry {
    /// The rows since the last `take_run`.
    rows: Vec<u8>,
    run_df: u32,
    last_doc: u32,
    df: u32,
    /// Bytes the rows take as one run, wherever they were cut.
    bytes: usize,
    /// Some document has positions for the term.
    any_positions: bool,
    /// Some document's position count differs from the sum of its tfs.
    counted: bool,
    pub surfaces: HashMap<String, u32>,
}

/// One row of a [`TermEntry`], read back.
struct Row {
    doc: u32,
    mask: u8,
    tf: [u32; N_FIELDS],
    positions: Vec<u32>,
}

/// A run of a term's rows taken out of memory: (documents, rows).
pub type HeldRun = (u32, Vec<u8>);

impl TermEntry {
    /// Add the next document (documents come in increasing order) with its per-field tfs
    /// and sorted positions.
    pub fn push(&mut self, doc: u32, tf: [u32; N_FIELDS], positions: &[u32]) {
        let before = self.rows.len();
        varint::put_doc_delta(&mut self.rows, self.last_doc, doc, self.run_df == 0);
        let gap = |first: bool| varint::len(u64::from(if first { doc } else { doc - self.last_doc }));
        let (as_one_run, as_written) = (gap(self.df == 0), gap(self.run_df == 0));
        self.rows.push((0..N_FIELDS).filter(|&f| tf[f] > 0).fold(0, |m, f| m | (1 << f)));
        for &t in tf.iter().filter(|&&t| t > 0) {
            varint::put(&mut self.rows, u64::from(t));
        }
        varint::put(&mut self.rows, positions.len() as u64);
        let mut prev = 0u32;
        for &p in positions {
            varint::put(&mut self.rows, u64::from(p - prev));
            prev = p;
        }
        self.any_positions |= !positions.is_empty();
        self.counted |= tf.iter().sum::<u32>() as usize != positions.len();
        self.bytes += self.rows.len() - before + as_one_run - as_written;
        self.df += 1;
        self.run_df += 1;
        self.last_doc = doc;
    }

    /// Document frequency: what the term shard stores first, and the vocabulary beside it.
    pub fn df(&self) -> u32 {
        self.df
    }

    /// Bytes of rows held (not yet taken out).
    pub fn held_bytes(&self) -> usize {
        self.rows.len()
    }

    /// Bytes of all the rows, as if none had been taken out: about what the term shards
    /// encode, the same however the rows were cut into runs.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Memory the held rows take (what a builder short of memory counts).
    pub fn held_memory(&self) -> usize {
        self.rows.capacity()
    }

    /// The rows held since the last call, which the entry no longer holds; the next row
    /// starts a new run.
    pub fn take_run(&mut self) -> HeldRun {
        let run = (self.run_df, std::mem::take(&mut self.rows));
        self.run_df = 0;
        run
    }

    /// A run's rows in document order.
    fn rows_of((df, rows): (u32, &[u8])) -> impl Iterator<Item = Result<Row, SiftError>> + '_ {
        let mut r = Reader::new(rows);
        let mut doc = 0u32;
        (0..df).map(move |k| {
            let gap = r.u32()?;
            doc = if k == 0 { gap } else { doc.checked_add(gap).ok_or_else(|| SiftError::internal("a held doc gap overflows"))? };
            let mask = r.byte()?;
            let mut tf = [0u32; N_FIELDS];
            for (_, t) in tf.iter_mut().enumerate().filter(|(f, _)| mask & (1 << f) != 0) {
                *t = r.u32()?;
            }
            let npos = r.u32()? as usize;
            let mut positions = Vec::with_capacity(npos.min(rows.len()));
            let mut p = 0u32;
            for _ in 0..npos {
                p += r.u32()?;
                positions.push(p);
            }
            Ok(Row { doc, mask, tf, positions })
        })
    }

    /// The most common spelling (ties: the smallest), or "" when that is the term itself
    /// (which `surfaces` counts as "").
    fn surface<'a>(&'a self, term: &str) -> &'a str {
        self.surfaces
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(s, _)| s.as_str())
            .filter(|s| *s != term)
            .unwrap_or("")
    }

    /// This term's postings: the runs taken out earlier (in order), then the rows held,
    /// each position moved by `remap(doc, position)` (which keeps a document's positions
    /// in order).
    fn encode(&self, term: &str, out: &mut Vec<u8>, taken: &[HeldRun], remap: &dyn Fn(u32, u32) -> u32) -> Result<(), SiftError> {
        let positions = match (self.any_positions, self.counted) {
            (false, _) => POS_NONE,
            (true, false) => POS_EVERY,
            (true, true) => POS_COUNTED,
        };
        let runs = taken.iter().map(|(df, rows)| (*df, rows.as_slice())).chain([(self.run_df, self.rows.as_slice())]);
        let rows = runs.flat_map(Self::rows_of).collect::<Result<Vec<Row>, SiftError>>()?;
        if rows.len() != self.df as usize || rows.windows(2).any(|w| w[0].doc >= w[1].doc) {
            return Err(SiftError::internal(format!("the runs of {term:?} do not add up to its postings")));
        }
        varint::put(out, u64::from(self.df()) << 2 | positions);
        varint::put_str(out, self.surface(term));
        let mut prev = 0u32;
        for (k, row) in rows.iter().enumerate() {
            varint::put_doc_delta(out, prev, row.doc, k == 0);
            prev = row.doc;
        }
        out.extend(rows.iter().map(|row| row.mask));
        for row in &rows {
            for &t in row.tf.iter().filter(|&&t| t > 0) {
                varint::put(out, u64::from(t));
            }
        }
        if positions == POS_COUNTED {
            for row in &rows {
                varint::put(out, row.positions.len() as u64);
            }
        }
        for row in &rows {
            let mut pp = 0u32;
            for &p in &row.positions {
                let p = remap(row.doc, p);
                varint::put(out, u64::from(p - pp));
                pp = p;
            }
        }
        Ok(())
    }
}

/// Writes term shards: terms in sorted order, each shard's postings about a target size,
/// cut where neighbouring terms share the shortest prefix.
///
/// Why choose the cut: the word being typed is looked up as a prefix (`loop` → `loop`,
/// `loops`, `loopback`), which reads every shard its range overlaps; cut at the target
/// alone, a boundary often fell inside the completions of a common word. So once the
/// postings pass 1.5× the target, the cut goes between the two neighbours, among those
/// that leave the shard at least half the target, with the shortest common prefix (nearest
/// the target among equals): `lookup | loop` rather than `loop | loopback`. Short common
/// prefixes make short separators too (the manifest lists them). Readers do not care: any
/// cut is a valid shard.
pub struct ShardWriter {
    target: usize,
    terms: Vec<(String, u64)>,
    postings: Vec<u8>,
    /// Finished shards: (first term, last term, payload).
    pub done: Vec<(String, String, Vec<u8>)>,
}

/// Bytes two terms' common prefix spans.
fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

impl ShardWriter {
    pub fn new(target: usize) -> Self {
        ShardWriter { target, terms: Vec::new(), postings: Vec::new(), done: Vec::new() }
    }

    /// Add the next term (terms must come in sorted order).
    pub fn push(&mut self, term: &str, entry: &TermEntry) -> Result<(), SiftError> {
        self.push_remapped(term, entry, &[], &|_, p| p)
    }

    /// Add the next term, with the runs of its rows taken out of memory (in order), its
    /// positions moved by `remap(doc, position)` (a long page's positions onto its parts'
    /// grid: `super::partition`).
    pub fn push_remapped(
        &mut self,
        term: &str,
        entry: &TermEntry,
        taken: &[HeldRun],
        remap: &dyn Fn(u32, u32) -> u32,
    ) -> Result<(), SiftError> {
        if !self.terms.is_empty() && self.postings.len() >= self.target.saturating_add(self.target / 2) {
            self.cut_before(term)?;
        }
        self.terms.push((term.to_string(), self.postings.len() as u64));
        entry.encode(term, &mut self.postings, taken, remap)
    }

    /// Cut the held terms in two where the prefix shared across the cut is shortest (`next`:
    /// the term after them), finishing the first part as a shard and keeping the rest.
    fn cut_before(&mut self, next: &str) -> Result<(), SiftError> {
        let low = (self.target / 2) as u64;
        let n = self.terms.len();
        // Cutting before term k (1..=n): the shard holds terms[..k]; k = n cuts before `next`.
        let start = |k: usize| if k < n { self.terms[k].1 } else { self.postings.len() as u64 };
        let after = |k: usize| if k < n { self.terms[k].0.as_str() } else { next };
        let k = (1..=n)
            .filter(|&k| start(k) >= low)
            .min_by_key(|&k| (common_prefix(&self.terms[k - 1].0, after(k)), start(k).abs_diff(self.target as u64)))
            .unwrap_or(n);
        let at = start(k);
        let rest_terms: Vec<(String, u64)> = self.terms.drain(k..).map(|(t, off)| (t, off - at)).collect();
        let rest_postings = self.postings.split_off(at as usize);
        self.cut()?;
        self.terms = rest_terms;
        self.postings = rest_postings;
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
        b.insert(k.as_bytes(), v).map_err(|e| SiftError::new(ErrorCode::Internal, msg!("fst: {}", e.to_string())))?;
    }
    b.into_inner().map_err(|e| SiftError::new(ErrorCode::Internal, msg!("fst: {}", e.to_string())))
}

/// Whether a shard's fst dictionary holds the range the manifest gives it: from `first`
/// (a separator, at or below its smallest key) to below the next shard's `next_first`. One
/// served under another shard's name holds another range (shards' ranges are disjoint),
/// which matters where the manifest lists no checksum.
pub fn dictionary_holds_range(map: &fst::Map<Vec<u8>>, first: &str, next_first: Option<&str>) -> bool {
    let Some((smallest, largest)) = fst_key_range(map) else {
        return first.is_empty();
    };
    smallest.as_slice() >= first.as_bytes() && next_first.is_none_or(|next| largest.as_slice() < next.as_bytes())
}

/// The shortest prefix of `first` (at a character boundary) above `prev_last`: what a
/// store's manifest column lists for a shard whose keys start at `first` when the shard
/// before ends at `prev_last`. Every key from the separator up to the next shard's is this
/// shard's to hold, so lookups read the same shards as with full keys, for fewer bytes.
pub fn separator<'a>(prev_last: &str, first: &'a str) -> &'a str {
    first.char_indices().map(|(i, c)| &first[..i + c.len_utf8()]).find(|p| *p > prev_last).unwrap_or(first)
}

/// The smallest and largest key of an fst map (None when it is empty): the smallest
/// transitions down to the first final node, the largest down to a node with none (always
/// final).
fn fst_key_range(map: &fst::Map<Vec<u8>>) -> Option<(Vec<u8>, Vec<u8>)> {
    if map.is_empty() {
        return None;
    }
    let fst = map.as_fst();
    let (mut smallest, mut node) = (Vec::new(), fst.root());
    while !node.is_final() && !node.is_empty() {
        let t = node.transition(0);
        smallest.push(t.inp);
        node = fst.node(t.addr);
    }
    let (mut largest, mut node) = (Vec::new(), fst.root());
    while !node.is_empty() {
        let t = node.transition(node.len() - 1);
        largest.push(t.inp);
        node = fst.node(t.addr);
    }
    Some((smallest, largest))
}

/// Open an fst map from a shard, verifying its own checksum once. `fst::Map::new` checks
/// only the header and footer, and walking a damaged automaton panics inside fst (found by
/// the `bundle` fuzz target): a dictionary that passes is the one the builder wrote. The
/// checksum is fst's own (`Fst::verify`), computed here with a 1 KB table instead of fst's
/// 16 KB one.
pub(crate) fn open_fst(bytes: Vec<u8>, what: &str) -> Result<fst::Map<Vec<u8>>, SiftError> {
    let map = fst::Map::new(bytes).map_err(|_| SiftError::corrupt(msg!("{} is not a valid dictionary (fst)", what)))?;
    let all = map.as_fst().as_bytes();
    // fst::Map::new accepted it, so it holds at least its 36-byte header and footer.
    let (body, stored) = all.split_at(all.len() - 4);
    let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
    if sift_base::crc32::crc32c_masked(body) != stored {
        return Err(SiftError::corrupt(msg!("{} fails its checksum", what)));
    }
    Ok(map)
}

#[cfg(test)]
mod tests;
