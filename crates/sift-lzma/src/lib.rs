//! The LZMA decoder the browser runtime unpacks its engines with, and the layout of their
//! code as streams that they are packed in ([`code_streams`]).
//!
//! `sift.js` fetches each engine as `<name>_bg.wasm.lzma` (written by
//! `scripts/pack-engine.py` with Python's liblzma) and decodes it with this crate, compiled to
//! a 2.7 kB wasm module (`crates/sift-lzma-wasm`) that `sift.js` carries inline
//! (`www/src/lzma.js`). Why LZMA: on the
//! engines it is 11–12% below an optimal deflate (keyword engine 111.2 → 98.4 kB). Why wasm
//! and not JS: the same decoder in JS took 50 ms on its one, cold, run (a single call never
//! reaches the JS engine's optimising tiers); this module decodes the keyword engine in 8 ms,
//! 15 ms with its compilation (Node on the build machine).
//!
//! The format is LZMA "alone" (`.lzma`): a properties byte (`lc + 9 · (lp + 5 · pb)`), the
//! dictionary size (u32 LE, unused: the whole output is the window) and the decoded size
//! (u64 LE), which the packer writes (liblzma leaves it unknown), then the range-coded
//! stream. The algorithm is the reference decoder's (LzmaSpec.cpp in the LZMA SDK). Every
//! way a stream can be wrong — cut short, a distance before the start, a length past the
//! end, an end marker too early — is an [`Error`], never a panic, a hang or a short output.
//! LZMA carries no checksum, so damaged bytes may decode to other bytes; the engine's wasm
//! validation refuses those.

#![no_std]
pub mod code_streams;

#[cfg(test)]
extern crate std;
#[cfg(test)]
use std::{vec, vec::Vec};

/// A decoded engine is at most this large (the full engine is 0.36 MB).
pub const MAX_SIZE: usize = 64 << 20;
/// `lc + lp` above this is refused: the literal model would outgrow the fixed tables (the
/// packer writes `lc = 3, lp = 0`; LZMA2 has the same limit).
pub const MAX_LC_LP: u32 = 4;
const HEADER: usize = 13;

/// Why a file is not an engine packed as LZMA. The discriminant is what the wasm export
/// returns (negated), and `www/src/lzma.js` says each in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    TooShort = 1,
    Properties = 2,
    SizeNotGiven = 3,
    RangeCoderStart = 4,
    Truncated = 5,
    RepeatBeforeAnyByte = 6,
    EndsEarly = 7,
    MatchBeforeStart = 8,
    MatchPastEnd = 9,
    OutputSize = 10,
    /// Packing: the input is not a wasm module with a code section ([`code_streams`]).
    NotWasm = 11,
    /// The code holds an instruction the stream layout does not know, or a body that ends
    /// inside one.
    Code = 12,
    /// A split module's header does not add up, or a stream holds bytes the code does not use.
    Streams = 13,
    /// A stream ends before the code it describes.
    StreamEnds = 14,
}

impl core::fmt::Display for Error {
    /// In words (as `www/src/lzma.js` says them).
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(match self {
            Error::TooShort => "too short",
            Error::Properties => "unsupported properties",
            Error::SizeNotGiven => "decoded size not given or over 64 MB",
            Error::RangeCoderStart => "bad range coder start",
            Error::Truncated => "truncated",
            Error::RepeatBeforeAnyByte => "a repeated match before any byte",
            Error::EndsEarly => "the stream ends before its size",
            Error::MatchBeforeStart => "a match before the start",
            Error::MatchPastEnd => "a match past the end",
            Error::OutputSize => "output of the wrong size",
            Error::NotWasm => "not a wasm module",
            Error::Code => "code the stream layout does not know",
            Error::Streams => "a code stream header that does not add up, or bytes to spare",
            Error::StreamEnds => "a code stream that ends early",
        })
    }
}

// The probability models, one array. Each tree is indexed from 1 at its offset.
const IS_MATCH: usize = 0; // 12 states x 16 position states
const IS_REP: usize = 192;
const IS_REP_G0: usize = 204;
const IS_REP_G1: usize = 216;
const IS_REP_G2: usize = 228;
const IS_REP0_LONG: usize = 240; // 12 x 16
const POS_SLOT: usize = 432; // 4 length states x 64
const SPEC_POS: usize = 688; // 115: reverse trees at dist - slot
const ALIGN: usize = 803; // 16
const MATCH_LEN: usize = 819; // choice 2, low 16 x 8, mid 16 x 8, high 256
const REP_LEN: usize = 1333;
const LITERAL: usize = 1847; // 0x300 per literal context
/// Models for the largest `lc + lp` accepted.
pub const PROBS: usize = LITERAL + (0x300 << MAX_LC_LP);

/// The decoded size the header gives, checked against what this decoder reads.
pub fn decoded_size(input: &[u8]) -> Result<usize, Error> {
    header(input).map(|h| h.size)
}

/// What the 13-byte header says: the literal context and position bits, and the size.
struct Header {
    lc: u32,
    lp: u32,
    pb: u32,
    size: usize,
}

fn header(input: &[u8]) -> Result<Header, Error> {
    if input.len() < HEADER + 5 {
        return Err(Error::TooShort);
    }
    let props = u32::from(input[0]);
    let (lc, lp, pb) = (props % 9, (props / 9) % 5, props / 45);
    if props >= 9 * 5 * 5 || lc + lp > MAX_LC_LP {
        return Err(Error::Properties);
    }
    let mut size = [0u8; 8];
    size.copy_from_slice(&input[5..HEADER]);
    let size = u64::from_le_bytes(size);
    if size > MAX_SIZE as u64 {
        return Err(Error::SizeNotGiven);
    }
    Ok(Header { lc, lp, pb, size: size as usize })
}

/// The range decoder over the stream after the header.
struct Range<'a> {
    input: &'a [u8],
    at: usize,
    range: u32,
    code: u32,
    /// Set once a byte past the end was asked for (read as 0): the caller reports it.
    truncated: bool,
}

impl<'a> Range<'a> {
    fn new(input: &'a [u8]) -> Result<Range<'a>, Error> {
        if input.len() < 5 || input[0] != 0 {
            return Err(Error::RangeCoderStart);
        }
        let code = u32::from_be_bytes([input[1], input[2], input[3], input[4]]);
        if code == u32::MAX {
            return Err(Error::RangeCoderStart);
        }
        Ok(Range { input, at: 5, range: u32::MAX, code, truncated: false })
    }

    #[inline(always)]
    fn normalize(&mut self) {
        if self.range < 1 << 24 {
            let byte = match self.input.get(self.at) {
                Some(&b) => b,
                None => {
                    self.truncated = true;
                    0
                }
            };
            self.at += 1;
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(byte);
        }
    }

    // Not inlined: a call per bit costs 1 ms on an engine and saves 2 kB of wasm (1 kB gzip).
    #[inline(never)]
    fn bit(&mut self, p: &mut u16) -> u32 {
        let bound = (self.range >> 11) * u32::from(*p);
        let b = if self.code < bound {
            self.range = bound;
            *p += (2048 - *p) >> 5;
            0
        } else {
            self.range -= bound;
            self.code -= bound;
            *p -= *p >> 5;
            1
        };
        self.normalize();
        b
    }

    fn direct(&mut self, mut n: u32) -> u32 {
        let mut v = 0u32;
        while n > 0 {
            self.range >>= 1;
            let b = u32::from(self.code >= self.range);
            self.code -= self.range & 0u32.wrapping_sub(b);
            v = (v << 1) | b;
            self.normalize();
            n -= 1;
        }
        v
    }

    /// A `bits`-bit symbol, most significant bit first, from the tree at `probs[off + 1..]`.
    fn tree(&mut self, probs: &mut [u16], off: usize, bits: u32) -> u32 {
        let mut m = 1usize;
        for _ in 0..bits {
            m = (m << 1) + self.bit(&mut probs[off + m]) as usize;
        }
        (m - (1 << bits)) as u32
    }

    /// The same, least significant bit first.
    fn reverse(&mut self, probs: &mut [u16], off: usize, bits: u32) -> u32 {
        let mut m = 1usize;
        let mut v = 0u32;
        for i in 0..bits {
            let b = self.bit(&mut probs[off + m]);
            m = (m << 1) + b as usize;
            v |= b << i;
        }
        v
    }

    fn length(&mut self, probs: &mut [u16], base: usize, pos_state: usize) -> u32 {
        if self.bit(&mut probs[base]) == 0 {
            self.tree(probs, base + 2 + (pos_state << 3), 3)
        } else if self.bit(&mut probs[base + 1]) == 0 {
            8 + self.tree(probs, base + 130 + (pos_state << 3), 3)
        } else {
            16 + self.tree(probs, base + 258, 8)
        }
    }
}

/// Decodes `input` (a whole `.lzma` file) into `out`, which must be [`decoded_size`] long;
/// `probs` is the decoder's model memory (at least [`PROBS`] entries; overwritten).
pub fn decode(input: &[u8], out: &mut [u8], probs: &mut [u16]) -> Result<(), Error> {
    let Header { lc, lp, pb, size } = header(input)?;
    if out.len() != size || probs.len() < PROBS {
        return Err(Error::OutputSize);
    }
    let mut rc = Range::new(&input[HEADER..])?;
    let probs = &mut probs[..LITERAL + (0x300 << (lc + lp))];
    probs.fill(1024);
    let (pb_mask, lp_mask) = ((1usize << pb) - 1, (1usize << lp) - 1);
    let (mut state, mut n) = (0usize, 0usize);
    let (mut rep0, mut rep1, mut rep2, mut rep3) = (0usize, 0usize, 0usize, 0usize);
    let result = (|| {
        while n < size {
            if rc.truncated {
                return Err(Error::Truncated);
            }
            let pos_state = n & pb_mask;
            if rc.bit(&mut probs[IS_MATCH + (state << 4) + pos_state]) == 0 {
                let prev = if n > 0 { out[n - 1] } else { 0 };
                let base = LITERAL + 0x300 * (((n & lp_mask) << lc) + (usize::from(prev) >> (8 - lc)));
                let mut m = 1usize;
                if state >= 7 {
                    // After a match the byte at rep0 guides the first bits while they agree.
                    let mut matched = usize::from(out[n - rep0 - 1]);
                    while m < 0x100 {
                        let mb = (matched >> 7) & 1;
                        matched <<= 1;
                        let b = rc.bit(&mut probs[base + ((1 + mb) << 8) + m]) as usize;
                        m = (m << 1) | b;
                        if mb != b {
                            break;
                        }
                    }
                }
                while m < 0x100 {
                    m = (m << 1) | rc.bit(&mut probs[base + m]) as usize;
                }
                out[n] = (m - 0x100) as u8;
                n += 1;
                state = if state < 4 {
                    0
                } else if state < 10 {
                    state - 3
                } else {
                    state - 6
                };
                continue;
            }
            let len;
            if rc.bit(&mut probs[IS_REP + state]) != 0 {
                if n == 0 {
                    return Err(Error::RepeatBeforeAnyByte);
                }
                if rc.bit(&mut probs[IS_REP_G0 + state]) == 0 {
                    if rc.bit(&mut probs[IS_REP0_LONG + (state << 4) + pos_state]) == 0 {
                        state = if state < 7 { 9 } else { 11 };
                        out[n] = out[n - rep0 - 1];
                        n += 1;
                        continue;
                    }
                } else {
                    let dist;
                    if rc.bit(&mut probs[IS_REP_G1 + state]) == 0 {
                        dist = rep1;
                    } else {
                        if rc.bit(&mut probs[IS_REP_G2 + state]) == 0 {
                            dist = rep2;
                        } else {
                            dist = rep3;
                            rep3 = rep2;
                        }
                        rep2 = rep1;
                    }
                    rep1 = rep0;
                    rep0 = dist;
                }
                len = rc.length(probs, REP_LEN, pos_state);
                state = if state < 7 { 8 } else { 11 };
            } else {
                rep3 = rep2;
                rep2 = rep1;
                rep1 = rep0;
                len = rc.length(probs, MATCH_LEN, pos_state);
                state = if state < 7 { 7 } else { 10 };
                let slot = rc.tree(probs, POS_SLOT + ((len.min(3) as usize) << 6), 6);
                let dist: u64 = if slot < 4 {
                    u64::from(slot)
                } else {
                    let bits = (slot >> 1) - 1;
                    let base = u64::from(2 | (slot & 1)) << bits;
                    if slot < 14 {
                        base + u64::from(rc.reverse(probs, SPEC_POS + base as usize - slot as usize, bits))
                    } else {
                        base + (u64::from(rc.direct(bits - 4)) << 4) + u64::from(rc.reverse(probs, ALIGN, 4))
                    }
                };
                if dist == u64::from(u32::MAX) {
                    return Err(Error::EndsEarly);
                }
                if dist >= n as u64 {
                    return Err(Error::MatchBeforeStart);
                }
                rep0 = dist as usize;
            }
            let len = len as usize + 2;
            if len > size - n {
                return Err(Error::MatchPastEnd);
            }
            for i in n..n + len {
                out[i] = out[i - rep0 - 1];
            }
            n += len;
        }
        Ok(())
    })();
    // Past the end the stream reads as zeros: whatever went wrong first, it was cut short.
    match (result, rc.truncated) {
        (_, true) => Err(Error::Truncated),
        (r, false) => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Written by scripts/pack-engine.py (liblzma, lc=3 lp=0 pb=0), as the build packs engines.
    const EMPTY: &[u8] = &[3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 131, 255, 251, 255, 255, 192, 0, 0, 0];
    const ONE: &[u8] = &[3, 0, 0, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 48, 195, 235, 255, 255, 255, 225, 0, 0, 0];
    const TEXT: &[u8] = &[
        3, 0, 0, 0, 4, 202, 0, 0, 0, 0, 0, 0, 0, 0, 52, 26, 21, 65, 24, 184, 154, 39, 223, 157, 250, 100, 207, 57, 146, 25, 166, 200, 126,
        45, 116, 59, 181, 113, 91, 208, 156, 131, 112, 195, 219, 200, 236, 184, 134, 230, 212, 56, 141, 40, 174, 156, 120, 185, 146, 7, 91,
        206, 100, 112, 57, 21, 76, 121, 146, 13, 235, 250, 176, 230, 223, 119, 82, 144, 56, 18, 232, 8, 10, 214, 13, 138, 91, 17, 255, 227,
        173, 16, 0,
    ];

    fn text() -> Vec<u8> {
        let mut t = b"hello hello hello, said the shell to the shell; hello!".repeat(3);
        t.extend(0..40u8);
        t
    }

    fn unpack(input: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = vec![0; decoded_size(input)?];
        let mut probs = vec![0; PROBS];
        decode(input, &mut out, &mut probs).map(|()| out)
    }

    #[test]
    fn streams_written_by_liblzma_decode_to_what_was_packed() {
        assert_eq!(unpack(EMPTY).unwrap(), b"");
        assert_eq!(unpack(ONE).unwrap(), b"a");
        assert_eq!(unpack(TEXT).unwrap(), text());
    }

    #[test]
    fn every_truncation_is_an_error_or_the_whole_output() {
        let whole = text();
        let mut decoded = 0;
        for n in 0..TEXT.len() {
            match unpack(&TEXT[..n]) {
                Ok(out) => {
                    assert_eq!(out, whole, "first {n} bytes");
                    decoded += 1;
                }
                Err(e) => assert!(matches!(e, Error::Truncated | Error::TooShort | Error::RangeCoderStart), "first {n}: {e:?}"),
            }
        }
        // Only the end marker and the coder's flush (unread: the size is known) may go.
        assert!(decoded <= 8, "{decoded} truncations decoded");
    }

    #[test]
    fn every_flipped_byte_is_refused_or_decoded_from_the_stream_alone() {
        let whole = text();
        let mut noticed = 0;
        let mut cases = 0;
        for at in HEADER..TEXT.len() {
            for flip in [1u8, 0x80, 0xff] {
                let mut bad = TEXT.to_vec();
                bad[at] ^= flip;
                // Into two buffers filled differently: a stream that decodes wrote every byte.
                let mut a = vec![0x00; whole.len()];
                let mut b = vec![0xff; whole.len()];
                let ra = decode(&bad, &mut a, &mut vec![0; PROBS]);
                let rb = decode(&bad, &mut b, &mut vec![0; PROBS]);
                assert_eq!(ra, rb, "byte {at} ^ {flip}");
                if ra.is_ok() {
                    assert_eq!(a, b, "byte {at} ^ {flip}: a byte of the output was not decoded");
                }
                cases += 1;
                if ra.is_err() || a != whole {
                    noticed += 1;
                }
            }
        }
        // LZMA has no checksum, but a flip in the stream changes what it decodes to (the
        // range coder's last bytes, which a known size leaves unread, aside).
        // (215 of 240 on this stream: most of the others are in its last bytes.)
        assert!(noticed * 100 >= cases * 85, "only {noticed} of {cases} flips changed anything");
    }

    #[test]
    fn a_malformed_header_says_what_is_wrong() {
        let mut h = TEXT.to_vec();
        h[0] = 225;
        assert_eq!(unpack(&h), Err(Error::Properties));
        h[0] = 3 + 9 * 2; // lc 3 + lp 2: beyond the fixed tables
        assert_eq!(unpack(&h), Err(Error::Properties));
        let mut h = TEXT.to_vec();
        h[5..13].copy_from_slice(&[0xff; 8]); // liblzma's "size unknown"
        assert_eq!(unpack(&h), Err(Error::SizeNotGiven));
        let mut h = TEXT.to_vec();
        h[13] = 7;
        assert_eq!(unpack(&h), Err(Error::RangeCoderStart));
        assert_eq!(unpack(&TEXT[..17]), Err(Error::TooShort));
        let mut h = TEXT.to_vec();
        h[5] += 10; // more bytes than the stream holds: its end marker comes first
        assert_eq!(unpack(&h), Err(Error::EndsEarly));
        let mut out = vec![0; 3];
        assert_eq!(decode(TEXT, &mut out, &mut vec![0; PROBS]), Err(Error::OutputSize));
    }
}
