//! LEB128 variable-length integers: the compression of every id, count and position list
//! in the bundle. Decoding is bounds-checked so a truncated shard is an error, not a panic.

use crate::error::SiftError;

pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
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
    fn truncated_and_overlong_are_errors() {
        let mut r = Reader::new(&[0x80]);
        assert!(r.u64().is_err());
        let mut r = Reader::new(&[0xff; 11]);
        assert!(r.u64().is_err());
        let mut r = Reader::new(&[5, b'a']);
        assert!(r.str().is_err());
    }
}
