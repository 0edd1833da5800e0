//! The engines' code laid out as streams before LZMA packs it (and back, in the page).
//!
//! A wasm function body interleaves opcodes with their immediates: local indices, memory
//! offsets, constants, call targets. LZMA models a byte from the bytes before it, and in
//! that mix an opcode follows an offset follows a local index. Written as one stream per
//! kind of field — the opcodes, then the local indices, then the memory offsets, … — each
//! stream is far more regular: the shipped keyword engine 93,612 → 86,308 bytes (−7.8%),
//! 85,952 with the alignments below. Executable packers (kkrunchy's x86 filter, for one)
//! split machine code the same way; the transform is lossless, and the page undoes it
//! after decoding.
//!
//! The split form (what the `.lzma` file decodes to; [`MAGIC`] tells it from a module):
//!
//! ```text
//! MAGIC (4 bytes) · module length · prefix length · code length · STREAMS stream lengths
//!     (u32 LE each) · prefix · suffix · stream 0 · stream 1 · …
//! ```
//!
//! The prefix is the module up to the code section's payload (its id and size included),
//! the suffix everything after it; the code payload — the function count and the bodies —
//! is in the streams, in the order of [`Stream`]. Every byte of the module is in exactly
//! one place, so the split form is [`HEADER`] bytes longer than the module.
//!
//! Splitting and joining walk the same grammar (`walk`): one function copies each field
//! of the code, from the module into its stream or from its stream into the module. A
//! field either side does not know — an opcode outside the features the engines are built
//! with (MVP, bulk memory, sign extension, saturating conversions, reference types,
//! multi-value, SIMD), an over-long LEB128, a body that ends inside an instruction — is an
//! [`Error`], never a panic or a guess; and every stream must be used to its last byte.

use crate::Error;

/// The first bytes of a split module (a module's are `\0asm`).
pub const MAGIC: [u8; 4] = *b"\0sw1";
/// The streams, in the order they follow each other.
pub const STREAMS: usize = 14;
/// Bytes before the prefix: the magic, three lengths and the streams' lengths.
pub const HEADER: usize = 4 + 4 * (3 + STREAMS);

/// What each stream holds, in stream order (measured: this order packs smallest of those
/// tried; the function sizes and local declarations are small either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Opcodes, with the sub-opcode of a prefixed one (`0xfc`, `0xfd`).
    Op = 0,
    /// The function count, then each body's size.
    BodySize,
    /// Each body's local declarations.
    LocalDecls,
    /// `local.get`, `local.set`, `local.tee` indices.
    Local,
    /// Global and table indices.
    Global,
    /// `call` and `ref.func` targets.
    Call,
    /// Branch labels (`br`, `br_if`, `br_table`).
    Label,
    /// `i32.const` values.
    I32,
    /// `i64.const` values.
    I64,
    /// `f32.const`, `f64.const` values.
    Float,
    /// Block types (`block`, `loop`, `if`).
    Block,
    /// Everything rarer: `call_indirect`'s type and table, `select`'s types, memory and
    /// data indices, reference types, SIMD lanes and constants.
    Misc,
    /// A memory access's alignment.
    Align,
    /// A memory access's offset.
    Offset,
}

use Stream::*;

/// The streams by number (the table of opcodes names them so).
const STREAM_ORDER: [Stream; STREAMS] = [Op, BodySize, LocalDecls, Local, Global, Call, Label, I32, I64, Float, Block, Misc, Align, Offset];

/// One side of the walk: copies a field of the code between the module and its stream.
trait Copier {
    /// Copy one LEB128 number (at most 10 bytes) and return its value (unsigned reading;
    /// a signed one only ever needs its bytes).
    fn leb(&mut self, s: Stream) -> Result<u64, Error>;
    /// Copy `n` bytes.
    fn bytes(&mut self, s: Stream, n: usize) -> Result<(), Error>;
    /// Copy one byte and return it.
    fn byte(&mut self, s: Stream) -> Result<u8, Error>;
    /// Copy a memory access's alignment: a one-byte LEB128 (every one wasm-opt writes) is
    /// stored XOR the access's natural alignment, so the stream is nearly all zeros (the
    /// keyword engine −0.36 kB packed); a longer one as it is. Either way it keeps its length,
    /// so the mapping is its own inverse and needs no canonical LEB128.
    fn align(&mut self, natural: u8) -> Result<(), Error>;
    /// Bytes of the code payload copied so far.
    fn done(&self) -> usize;
}

/// The code section's payload: the function count, then each body — its size, its local
/// declarations, its instructions up to exactly its size.
fn walk(c: &mut impl Copier, code_len: usize) -> Result<(), Error> {
    let functions = c.leb(BodySize)?;
    for _ in 0..functions {
        let size = usize::try_from(c.leb(BodySize)?).map_err(|_| Error::Code)?;
        let end = c.done().checked_add(size).ok_or(Error::Code)?;
        if end > code_len {
            return Err(Error::Code);
        }
        let decls = c.leb(LocalDecls)?;
        for _ in 0..decls {
            c.leb(LocalDecls)?;
            c.bytes(LocalDecls, 1)?;
        }
        while c.done() < end {
            instruction(c)?;
        }
        if c.done() != end {
            return Err(Error::Code);
        }
    }
    if c.done() != code_len {
        return Err(Error::Code);
    }
    Ok(())
}

// What follows an opcode, as the table below codes it: one LEB128 into a stream
// (`LEB + stream`), or one of these shapes.
const NONE: u8 = 0;
const TWO_MISC: u8 = 1; // two LEB128s (call_indirect's type and table; table and memory ops)
const BR_TABLE: u8 = 2; // a count n, then n + 1 labels
const SELECT_T: u8 = 3; // a count n, then n value types
const MEMARG: u8 = 0x10; // alignment, offset; `MEMARG + n`: natural alignment 2^n
const F32: u8 = 5;
const F64: u8 = 6;
const PREFIX_FC: u8 = 7; // a sub-opcode (LEB128) says
const PREFIX_FD: u8 = 8;
const MEMARG_LANE: u8 = 9; // SIMD load/store lane: a memarg, a lane
const V128: u8 = 10; // 16 bytes: v128.const, i8x16.shuffle
const LANE: u8 = 11; // one byte
const BAD: u8 = 0xff;
const LEB: u8 = 0x20;

/// The immediates of each one-byte opcode. A table, not a match, because the page runs
/// this: the table is 256 bytes of data where a 256-way branch was 0.7 kB of code.
static OPCODES: [u8; 256] = {
    let mut t = [BAD; 256];
    let mut op = 0;
    while op < 256 {
        t[op] = match op as u8 {
            // unreachable, nop, else, end, return, drop, select, the numeric instructions
            // (sign extension included), ref.is_null
            0x00 | 0x01 | 0x05 | 0x0b | 0x0f | 0x1a | 0x1b | 0x45..=0xc4 | 0xd1 => NONE,
            0x02..=0x04 => LEB + Block as u8,
            0x0c | 0x0d => LEB + Label as u8,
            0x0e => BR_TABLE,
            0x10 | 0xd2 => LEB + Call as u8,
            0x11 => TWO_MISC,
            0x1c => SELECT_T,
            0x20..=0x22 => LEB + Local as u8,
            0x23..=0x26 => LEB + Global as u8,
            // loads, then stores: i32, i64, f32, f64, then the narrow ones
            0x28 | 0x2a | 0x34 | 0x35 | 0x36 | 0x38 | 0x3e => MEMARG + 2,
            0x29 | 0x2b | 0x37 | 0x39 => MEMARG + 3,
            0x2c | 0x2d | 0x30 | 0x31 | 0x3a | 0x3c => MEMARG,
            0x2e | 0x2f | 0x32 | 0x33 | 0x3b | 0x3d => MEMARG + 1,
            0x3f | 0x40 | 0xd0 => LEB + Misc as u8,
            0x41 => LEB + I32 as u8,
            0x42 => LEB + I64 as u8,
            0x43 => F32,
            0x44 => F64,
            0xfc => PREFIX_FC,
            0xfd => PREFIX_FD,
            _ => BAD,
        };
        op += 1;
    }
    t
};

/// The immediates of a `0xfc` instruction (bulk memory, saturating conversions, tables).
fn prefix_fc(sub: u64) -> u8 {
    match sub {
        0..=7 => NONE,
        8 | 10 | 12 | 14 => TWO_MISC,
        9 | 11 | 13 | 15..=17 => LEB + Misc as u8,
        _ => BAD,
    }
}

/// The immediates of a `0xfd` instruction (SIMD, relaxed SIMD).
fn prefix_fd(sub: u64) -> u8 {
    match sub {
        0..=11 | 92 | 93 => MEMARG,
        12 | 13 => V128,
        21..=34 => LANE,
        84..=91 => MEMARG_LANE,
        14..=20 | 35..=83 | 94..=0x113 => NONE,
        _ => BAD,
    }
}

/// One instruction: its opcode, then its immediates each into its stream.
#[inline(never)]
fn instruction(c: &mut impl Copier) -> Result<(), Error> {
    let mut kind = OPCODES[usize::from(c.byte(Op)?)];
    if kind == PREFIX_FC {
        kind = prefix_fc(c.leb(Op)?);
    } else if kind == PREFIX_FD {
        kind = prefix_fd(c.leb(Op)?);
    }
    match kind {
        NONE => {}
        TWO_MISC => {
            c.leb(Misc)?;
            c.leb(Misc)?;
        }
        BR_TABLE => {
            for _ in 0..=c.leb(Label)? {
                c.leb(Label)?;
            }
        }
        SELECT_T => {
            for _ in 0..c.leb(Misc)? {
                c.bytes(Misc, 1)?;
            }
        }
        MEMARG..=0x13 => {
            c.align(kind - MEMARG)?;
            c.leb(Offset)?;
        }
        MEMARG_LANE => {
            c.align(0)?;
            c.leb(Offset)?;
            c.bytes(Misc, 1)?;
        }
        F32 => c.bytes(Float, 4)?,
        F64 => c.bytes(Float, 8)?,
        V128 => c.bytes(Misc, 16)?,
        LANE => c.bytes(Misc, 1)?,
        k if (LEB..LEB + STREAMS as u8).contains(&k) => {
            c.leb(STREAM_ORDER[usize::from(k - LEB)])?;
        }
        _ => return Err(Error::Code),
    }
    Ok(())
}

/// Reads a LEB128 number at `*at` of `from`: its value and its length.
fn read_leb(from: &[u8], at: usize) -> Result<(u64, usize), Error> {
    let mut value = 0u64;
    for i in 0..10 {
        let b = *from.get(at + i).ok_or(Error::Code)?;
        value |= u64::from(b & 0x7f).checked_shl(7 * i as u32).unwrap_or(0);
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Err(Error::Code)
}

/// Splitting: reads the module's code, writes each field at its stream's cursor. With no
/// output it only counts (the first pass, which sizes the streams).
struct Split<'a> {
    code: &'a [u8],
    pos: usize,
    out: &'a mut [u8],
    at: [usize; STREAMS],
}

impl Split<'_> {
    fn copy(&mut self, s: Stream, n: usize) -> Result<(), Error> {
        let from = self.code.get(self.pos..self.pos + n).ok_or(Error::Code)?;
        let at = self.at[s as usize];
        if !self.out.is_empty() {
            self.out[at..at + n].copy_from_slice(from);
        }
        self.at[s as usize] = at + n;
        self.pos += n;
        Ok(())
    }
}

impl Copier for Split<'_> {
    fn leb(&mut self, s: Stream) -> Result<u64, Error> {
        let (v, n) = read_leb(self.code, self.pos)?;
        self.copy(s, n)?;
        Ok(v)
    }
    fn bytes(&mut self, s: Stream, n: usize) -> Result<(), Error> {
        self.copy(s, n)
    }
    fn byte(&mut self, s: Stream) -> Result<u8, Error> {
        let b = *self.code.get(self.pos).ok_or(Error::Code)?;
        self.copy(s, 1)?;
        Ok(b)
    }
    fn align(&mut self, natural: u8) -> Result<(), Error> {
        let start = self.pos;
        self.leb(Align)?;
        if self.pos - start == 1 && !self.out.is_empty() {
            self.out[self.at[Align as usize] - 1] ^= natural;
        }
        Ok(())
    }
    fn done(&self) -> usize {
        self.pos
    }
}

/// Joining: reads each field at its stream's cursor, writes the module's code in order.
struct Join<'a> {
    streams: [&'a [u8]; STREAMS],
    at: [usize; STREAMS],
    code: &'a mut [u8],
    pos: usize,
}

impl Join<'_> {
    fn copy(&mut self, s: Stream, n: usize) -> Result<(), Error> {
        let at = self.at[s as usize];
        let from = self.streams[s as usize].get(at..at + n).ok_or(Error::StreamEnds)?;
        let to = self.code.get_mut(self.pos..self.pos + n).ok_or(Error::Code)?;
        to.copy_from_slice(from);
        self.at[s as usize] = at + n;
        self.pos += n;
        Ok(())
    }
}

impl Copier for Join<'_> {
    fn leb(&mut self, s: Stream) -> Result<u64, Error> {
        let (v, n) = read_leb(self.streams[s as usize], self.at[s as usize]).map_err(|_| Error::StreamEnds)?;
        self.copy(s, n)?;
        Ok(v)
    }
    fn bytes(&mut self, s: Stream, n: usize) -> Result<(), Error> {
        self.copy(s, n)
    }
    fn byte(&mut self, s: Stream) -> Result<u8, Error> {
        let b = *self.streams[s as usize].get(self.at[s as usize]).ok_or(Error::StreamEnds)?;
        self.copy(s, 1)?;
        Ok(b)
    }
    fn align(&mut self, natural: u8) -> Result<(), Error> {
        let start = self.pos;
        self.leb(Align)?;
        if self.pos - start == 1 {
            self.code[start] ^= natural;
        }
        Ok(())
    }
    fn done(&self) -> usize {
        self.pos
    }
}

/// Where a module's code payload is: `(start, length)`. A module without one, or one whose
/// sections do not add up, is [`Error::NotWasm`].
fn code_payload(module: &[u8]) -> Result<(usize, usize), Error> {
    if module.len() < 8 || module[..4] != *b"\0asm" {
        return Err(Error::NotWasm);
    }
    let mut at = 8;
    while at < module.len() {
        let id = module[at];
        let (size, n) = read_leb(module, at + 1).map_err(|_| Error::NotWasm)?;
        let start = at + 1 + n;
        let end = usize::try_from(size).ok().and_then(|s| start.checked_add(s)).filter(|&e| e <= module.len()).ok_or(Error::NotWasm)?;
        if id == 10 {
            return Ok((start, end - start));
        }
        at = end;
    }
    Err(Error::NotWasm)
}

fn put_u32(out: &mut [u8], at: usize, v: usize) -> Result<(), Error> {
    let v = u32::try_from(v).map_err(|_| Error::NotWasm)?;
    out[at..at + 4].copy_from_slice(&v.to_le_bytes());
    Ok(())
}

fn get_u32(from: &[u8], at: usize) -> usize {
    u32::from_le_bytes([from[at], from[at + 1], from[at + 2], from[at + 3]]) as usize
}

/// Writes `module` in split form into `out`, which must be `module.len() + HEADER` bytes.
pub fn split(module: &[u8], out: &mut [u8]) -> Result<(), Error> {
    if out.len() != module.len() + HEADER {
        return Err(Error::OutputSize);
    }
    let (start, len) = code_payload(module)?;
    let code = &module[start..start + len];
    // First pass: how long each stream is.
    let mut count = Split { code, pos: 0, out: &mut [], at: [0; STREAMS] };
    walk(&mut count, len)?;
    let lengths = count.at;
    out[..4].copy_from_slice(&MAGIC);
    put_u32(out, 4, module.len())?;
    put_u32(out, 8, start)?;
    put_u32(out, 12, len)?;
    let mut at = [0; STREAMS];
    let mut next = HEADER + module.len() - len; // after the prefix and the suffix
    for (s, &n) in lengths.iter().enumerate() {
        put_u32(out, 16 + 4 * s, n)?;
        at[s] = next;
        next += n;
    }
    out[HEADER..HEADER + start].copy_from_slice(&module[..start]);
    out[HEADER + start..HEADER + module.len() - len].copy_from_slice(&module[start + len..]);
    let mut write = Split { code, pos: 0, out, at };
    walk(&mut write, len)
}

/// Whether `bytes` are a module in split form (else they are what was packed, as it was).
pub fn is_split(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes[..4] == MAGIC
}

/// The module's length, from a split form's header (checked against the form's length).
pub fn joined_size(split: &[u8]) -> Result<usize, Error> {
    Ok(layout(split)?.module)
}

struct Layout {
    module: usize,
    prefix: usize,
    code: usize,
    streams: [usize; STREAMS],
}

fn layout(split: &[u8]) -> Result<Layout, Error> {
    if split.len() < HEADER || !is_split(split) {
        return Err(Error::Streams);
    }
    let module = get_u32(split, 4);
    let prefix = get_u32(split, 8);
    let code = get_u32(split, 12);
    let mut streams = [0; STREAMS];
    let mut total = 0usize;
    for (s, n) in streams.iter_mut().enumerate() {
        *n = get_u32(split, 16 + 4 * s);
        total = total.checked_add(*n).ok_or(Error::Streams)?;
    }
    let fits = prefix.checked_add(code).is_some_and(|pc| pc <= module) && total == code && split.len() - HEADER == module;
    if !fits || module > crate::MAX_SIZE {
        return Err(Error::Streams);
    }
    Ok(Layout { module, prefix, code, streams })
}

/// Writes the module a split form stands for into `out` (exactly [`joined_size`] bytes).
pub fn join(split: &[u8], out: &mut [u8]) -> Result<(), Error> {
    let l = layout(split)?;
    if out.len() != l.module {
        return Err(Error::OutputSize);
    }
    let body = &split[HEADER..];
    let suffix = l.module - l.prefix - l.code;
    out[..l.prefix].copy_from_slice(&body[..l.prefix]);
    out[l.prefix + l.code..].copy_from_slice(&body[l.prefix..l.prefix + suffix]);
    let mut streams: [&[u8]; STREAMS] = [&[]; STREAMS];
    let mut next = l.prefix + suffix;
    for (s, &n) in l.streams.iter().enumerate() {
        streams[s] = &body[next..next + n];
        next += n;
    }
    let mut j = Join { streams, at: [0; STREAMS], code: &mut out[l.prefix..l.prefix + l.code], pos: 0 };
    walk(&mut j, l.code)?;
    // Every byte of every stream is the module's: one left over means a damaged form.
    if j.at != l.streams {
        return Err(Error::Streams);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
