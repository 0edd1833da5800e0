//! A module split into streams and joined again: the same bytes back, each field in its stream, bad input refused.

use super::*;
use std::{vec, vec::Vec};

fn leb(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A module with a type, a function, a table and a code section holding every kind of
/// field: written by hand, byte by byte, as the spec lays it out.
fn module() -> Vec<u8> {
    let mut body = vec![1, 2, 0x7f]; // one local declaration: 2 × i32
    body.extend([0x41, 0xe5, 0x8e, 0x26]); // i32.const 624485
    body.extend([0x21, 0x00, 0x20, 0x00, 0x22, 0x01]); // local.set 0, local.get 0, local.tee 1
    body.extend([0x28, 0x02, 0x90, 0x03]); // i32.load align=2 offset=400
    body.extend([0x02, 0x40, 0x0c, 0x00, 0x0b]); // block (empty) br 0 end
    body.extend([0x02, 0x7f, 0x41, 0x01, 0x0e, 0x02, 0x00, 0x00, 0x00, 0x0b]); // block i32, br_table
    body.extend([0x1a, 0x42, 0x7f, 0x1a]); // drop, i64.const -1, drop
    body.extend([0x43, 0, 0, 0x80, 0x3f, 0x1a]); // f32.const 1.0, drop
    body.extend([0x44, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x1a]); // f64.const 1.0, drop
    body.extend([0x23, 0x00, 0x1a, 0x3f, 0x00, 0x1a]); // global.get 0, drop, memory.size, drop
    body.extend([0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xfc, 0x0b, 0x00]); // memory.fill
    body.extend([0xd2, 0x00, 0xd1, 0x1a, 0x10, 0x00]); // ref.func 0, ref.is_null, drop, call 0
    body.extend([0xfd, 0x0c]); // v128.const
    body.extend(0..16u8);
    body.extend([0xfd, 0x15, 0x03, 0x1a, 0x1a]); // i8x16.extract_lane_s 3, drop, drop
    body.extend([0x41, 0x00, 0x29, 0x83, 0x00, 0x00, 0x1a]); // i64.load align=3 in two bytes
    body.push(0x0b);
    let mut code = vec![1];
    leb(body.len() as u64, &mut code);
    code.extend(&body);
    let mut m = b"\0asm\x01\0\0\0".to_vec();
    m.extend([1, 4, 1, 0x60, 0, 0]); // type section: () -> ()
    m.extend([3, 2, 1, 0]); // function section
    m.extend([5, 3, 1, 0, 1]); // memory section
    m.extend([6, 6, 1, 0x7f, 0, 0x41, 0, 0x0b]); // global section
    m.push(10);
    leb(code.len() as u64, &mut m);
    m.extend(&code);
    m.extend([0, 4, b'n', b'a', b'm', b'e']); // a custom section after the code
    m
}

fn split_of(m: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = vec![0; m.len() + HEADER];
    split(m, &mut out).map(|()| out)
}

fn join_of(s: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = vec![0; joined_size(s)?];
    join(s, &mut out).map(|()| out)
}

#[test]
fn a_split_module_joins_to_the_same_bytes() {
    let m = module();
    let s = split_of(&m).unwrap();
    assert!(is_split(&s) && !is_split(&m));
    assert_eq!(joined_size(&s).unwrap(), m.len());
    assert_eq!(join_of(&s).unwrap(), m);
}

#[test]
fn fields_land_in_their_streams() {
    let m = module();
    let s = split_of(&m).unwrap();
    let stream = |k: Stream| {
        let mut at = HEADER + get_u32(&s, 4) - get_u32(&s, 12);
        for i in 0..k as usize {
            at += get_u32(&s, 16 + 4 * i);
        }
        s[at..at + get_u32(&s, 16 + 4 * k as usize)].to_vec()
    };
    assert_eq!(stream(Local), [0, 0, 1]);
    assert_eq!(stream(I32), [0xe5, 0x8e, 0x26, 1, 0, 0, 0, 0]);
    // Natural alignment stored as 0; a two-byte alignment as it was.
    assert_eq!(stream(Align), [0, 0x83, 0x00]);
    assert_eq!(stream(Offset), [0x90, 0x03, 0x00]);
    assert_eq!(stream(Label), [0, 2, 0, 0, 0]);
    assert_eq!(stream(Call), [0, 0]);
    assert_eq!(stream(LocalDecls), [1, 2, 0x7f]);
}

#[test]
fn what_is_not_a_module_or_not_understood_is_refused() {
    assert_eq!(split_of(b"not wasm at all"), Err(Error::NotWasm));
    let mut m = module();
    assert_eq!(split_of(&m[..m.len() - 8]), Err(Error::NotWasm)); // the code section cut
    let op = m.iter().position(|&b| b == 0xe5).unwrap() - 1; // the first i32.const
    m[op] = 0xff; // no such opcode
    assert_eq!(split_of(&m), Err(Error::Code));
    let no_code = b"\0asm\x01\0\0\0\x01\x04\x01\x60\0\0";
    assert_eq!(split_of(no_code), Err(Error::NotWasm));
    assert_eq!(split(&module(), &mut [0; 3]), Err(Error::OutputSize));
}

#[test]
fn every_damaged_split_form_is_an_error_or_a_module_of_the_same_length() {
    let m = module();
    let s = split_of(&m).unwrap();
    for n in 0..s.len() {
        assert!(join_of(&s[..n]).is_err(), "first {n} bytes joined");
    }
    for at in 0..s.len() {
        for flip in [1u8, 0x80, 0xff] {
            let mut bad = s.clone();
            bad[at] ^= flip;
            if let Ok(out) = join_of(&bad) {
                // A flipped byte of the prefix, suffix or an immediate's value is a
                // different module of the same shape: the engine's validation judges it.
                assert_eq!(out.len(), m.len(), "byte {at} ^ {flip}");
            }
        }
    }
    let mut extra = s.clone();
    extra.push(0);
    assert_eq!(join_of(&extra), Err(Error::Streams));
    let mut out = vec![0; 2];
    assert_eq!(join(&s, &mut out), Err(Error::OutputSize));
}

#[test]
fn a_stream_with_bytes_to_spare_is_refused() {
    let m = module();
    let mut s = split_of(&m).unwrap();
    // Move a byte from the I32 stream's end to the Offset stream's: lengths still add up.
    let i32_len = 16 + 4 * I32 as usize;
    let off_len = 16 + 4 * Offset as usize;
    let (a, b) = (get_u32(&s, i32_len), get_u32(&s, off_len));
    s[i32_len..i32_len + 4].copy_from_slice(&(a as u32 - 1).to_le_bytes());
    s[off_len..off_len + 4].copy_from_slice(&(b as u32 + 1).to_le_bytes());
    assert!(matches!(join_of(&s), Err(Error::StreamEnds | Error::Streams | Error::Code)));
}
