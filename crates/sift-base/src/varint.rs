//! The integer codecs of every payload: LEB128 variable-length integers (every id, count
//! and position), zigzag for signed values (dates), length-prefixed UTF-8 strings, and
//! delta-coded, strictly increasing doc-id lists. Decoding is bounds-checked so a truncated
//! shard is an error, not a panic.

use crate::error::SiftError;

pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bytes `put` writes for `v`.
pub fn len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Signed → unsigned so small magnitudes of either sign stay short: 0, -1, 1, -2 → 0, 1, 2, 3.
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A sorted doc-id list: `varint n`, then the first id and the gaps to each next id.
pub fn put_doc_list(out: &mut Vec<u8>, ids: &[u32]) {
    put(out, ids.len() as u64);
    let mut prev = 0u32;
    for (k, &id) in ids.iter().enumerate() {
        put_doc_delta(out, prev, id, k == 0);
        prev = id;
    }
}

/// One entry of a delta-coded doc-id sequence (the first id as is, then gaps).
pub fn put_doc_delta(out: &mut Vec<u8>, prev: u32, id: u32, first: bool) {
    put(out, u64::from(if first { id } else { id - prev }));
}

/// A cursor over a byte slice that reads varints and length-prefixed strings.
pub struct Reader<'a> {
    buf: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn at(buf: &'a [u8], pos: usize) -> Self {
        Reader { buf, pos }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn u64(&mut self) -> Result<u64, SiftError> {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = *self.buf.get(self.pos).ok_or_else(truncated)?;
            self.pos += 1;
            if shift >= 64 || (shift == 63 && b > 1) {
                return Err(SiftError::corrupt("varint overflows 64 bits"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    pub fn u32(&mut self) -> Result<u32, SiftError> {
        u32::try_from(self.u64()?).map_err(|_| SiftError::corrupt("varint exceeds 32 bits"))
    }

    pub fn byte(&mut self) -> Result<u8, SiftError> {
        let b = *self.buf.get(self.pos).ok_or_else(truncated)?;
        self.pos += 1;
        Ok(b)
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], SiftError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(truncated)?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub fn str(&mut self) -> Result<&'a str, SiftError> {
        let n = self.u64()? as usize;
        let b = self.bytes(n)?;
        std::str::from_utf8(b).map_err(|_| SiftError::corrupt("invalid UTF-8 in shard string"))
    }
}

impl Reader<'_> {
    /// A doc-id list written by `put_doc_list`, checked: at most `doc_count` ids, strictly
    /// increasing, each below `doc_count`.
    pub fn doc_list(&mut self, doc_count: u32) -> Result<Vec<u32>, SiftError> {
        let n = self.u32()?;
        if n > doc_count {
            return Err(SiftError::corrupt("doc-id list longer than the document count"));
        }
        let mut out = Vec::with_capacity(n as usize);
        let mut d = 0u32;
        for k in 0..n {
            d = self.doc_delta(d, k == 0, doc_count)?;
            out.push(d);
        }
        Ok(out)
    }

    /// The next id of a delta-coded, strictly increasing doc-id sequence, checked against
    /// the document count.
    pub fn doc_delta(&mut self, prev: u32, first: bool, doc_count: u32) -> Result<u32, SiftError> {
        let delta = self.u32()?;
        if !first && delta == 0 {
            return Err(SiftError::corrupt("doc ids not increasing"));
        }
        let base = if first { 0 } else { prev };
        base.checked_add(delta).filter(|&d| d < doc_count).ok_or_else(|| SiftError::corrupt("doc id out of range"))
    }
}

fn truncated() -> SiftError {
    SiftError::corrupt("shard data ends early (truncated)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edge_values() {
        let vals = [0u64, 1, 127, 128, 300, 16_383, 16_384, u32::MAX as u64, u64::MAX];
        let mut buf = Vec::new();
        for v in vals {
            put(&mut buf, v);
        }
        let mut r = Reader::new(&buf);
        for v in vals {
            assert_eq!(r.u64().unwrap(), v);
        }
        assert!(r.is_empty());
    }

    #[test]
    fn zigzag_and_doc_lists_round_trip() {
        for v in [0i64, -1, 1, -20_000, 20_000, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        let mut buf = Vec::new();
        put_doc_list(&mut buf, &[0, 3, 4, 90]);
        assert_eq!(Reader::new(&buf).doc_list(91).unwrap(), vec![0, 3, 4, 90]);
        assert!(Reader::new(&buf).doc_list(90).is_err(), "id out of range");
        let mut dup = Vec::new();
        put(&mut dup, 2);
        put(&mut dup, 5);
        put(&mut dup, 0);
        assert!(Reader::new(&dup).doc_list(10).is_err(), "ids must increase");
    }

    #[test]
    fn truncated_and_overlong_are_errors() {
        let mut r = Reader::new(&[0x80]);
        assert!(r.u64().is_err());
        let mut r = Reader::new(&[0xff; 11]);
        assert!(r.u64().is_err());
        let mut r = Reader::new(&[5, b'a']);
        assert!(r.str().is_err());
    }
}
