//! How index shards name their children.
//!
//! **Stores named by rule.** The vector lists, the encoder's vocabulary groups and its row
//! shards are stores like the doc and term stores: `<prefix>-<hash of them all>-<n>.bin`
//! (a rebuild renames them all). Their index holds only the 8 bytes of that hash and the
//! count; each child's payload starts with `varint n`, its own place in the store, so one
//! served under another's name is refused, and its frame's payload checksum refuses any
//! changed byte.
//!
//! **Listed children** (the projection, one per bundle): 8 bytes of the content hash (the
//! name is `<prefix>-<16 hex digits>.bin`), `varint bytes`, `u32 crc32` (LE), so the child
//! is verified like a shard the manifest lists.

use super::frame::ShardKind;
use super::manifest::ShardRef;
use sift_base::error::SiftError;
use sift_base::varint::{self, Reader};

pub fn put_table(out: &mut Vec<u8>, kind: ShardKind, refs: &[ShardRef]) -> Result<(), SiftError> {
    varint::put(out, refs.len() as u64);
    for r in refs {
        let hash = r
            .file
            .strip_suffix(".bin")
            .and_then(|stem| hash_of(kind, stem))
            .ok_or_else(|| SiftError::internal(msg!("shard {} is not named by its hash", r.file)))?;
        out.extend_from_slice(&hash);
        let check = r.check.ok_or_else(|| SiftError::internal(msg!("shard {} has no size and checksum to list", r.file)))?;
        varint::put(out, check.bytes);
        out.extend_from_slice(&check.crc32.to_le_bytes());
    }
    Ok(())
}

pub fn read_table(r: &mut Reader, kind: ShardKind, max: usize) -> Result<Vec<ShardRef>, SiftError> {
    let n = r.u32()? as usize;
    if n > max {
        return Err(SiftError::corrupt("shard table is longer than its index allows"));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let hash = r.bytes(8)?;
        let file = stem(kind, hash) + ".bin";
        let bytes = r.u64()?;
        let c = r.bytes(4)?;
        out.push(ShardRef::new(file, bytes, u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    }
    Ok(out)
}

/// The 8 bytes of a store's hash (`files`: `<prefix>-<16 hex digits>`, the stem of the names
/// of a store named by rule).
pub fn put_store(out: &mut Vec<u8>, kind: ShardKind, files: &str) -> Result<(), SiftError> {
    let hash = hash_of(kind, files).ok_or_else(|| SiftError::internal(msg!("store {} is not named by its hash", files)))?;
    out.extend_from_slice(&hash);
    Ok(())
}

/// Read [`put_store`]'s hash back as the store's stem, `<prefix>-<16 hex digits>`.
pub fn read_store(r: &mut Reader, kind: ShardKind) -> Result<String, SiftError> {
    Ok(stem(kind, r.bytes(8)?))
}

/// The `n` shards of a store named by rule: `<files>-0.bin`, `<files>-1.bin`, …
pub fn store_refs(files: &str, n: usize) -> Vec<ShardRef> {
    (0..n).map(|i| ShardRef { file: super::manifest::store_file(files, i), check: None }).collect()
}

/// A child payload of a store named by rule: its place, then the payload proper.
pub fn put_place(place: usize, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 3);
    varint::put(&mut out, place as u64);
    out.extend_from_slice(payload);
    out
}

/// Where the payload proper of a child of a store named by rule begins, after checking
/// that it names `want` as its place: a child served under another's name is refused.
pub fn strip_place(payload: &[u8], want: usize, what: &str) -> Result<usize, SiftError> {
    let mut r = Reader::new(payload);
    let got = r.u64()?;
    if got != want as u64 {
        return Err(SiftError::corrupt(msg!(
            "{} {} holds the payload of {} {}: a shard served under another's name",
            what,
            want,
            what,
            got
        )));
    }
    Ok(r.pos)
}

/// The 8 bytes of a name's stem, `<prefix>-<16 hex digits>` (a shard's name without `.bin`,
/// or a store's), for shards of `kind`.
fn hash_of(kind: ShardKind, stem: &str) -> Option<[u8; 8]> {
    let hex = stem.strip_prefix(kind.prefix())?.strip_prefix('-')?;
    if hex.len() != 16 {
        return None;
    }
    let mut out = [0u8; 8];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// [`hash_of`] the other way: `<prefix>-<hash in hex>`.
fn stem(kind: ShardKind, hash: &[u8]) -> String {
    let mut stem = [kind.prefix(), "-"].concat();
    sift_base::text::push_hex(&mut stem, hash);
    stem
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_named_by_rule_round_trip_and_children_name_their_place() {
        let mut b = Vec::new();
        put_store(&mut b, ShardKind::VectorList, "l-0123456789abcdef").unwrap();
        assert_eq!(b.len(), 8);
        assert_eq!(read_store(&mut Reader::new(&b), ShardKind::VectorList).unwrap(), "l-0123456789abcdef");
        assert!(read_store(&mut Reader::new(&b[..7]), ShardKind::VectorList).is_err(), "truncated");
        for bad in ["l-0123", "e-0123456789abcdef", "l-0123456789abcdeg", "l-0123456789abcdef0"] {
            assert!(put_store(&mut Vec::new(), ShardKind::VectorList, bad).is_err(), "{bad}");
        }
        let refs = store_refs("e-0123456789abcdef", 2);
        assert_eq!(refs[1], ShardRef { file: "e-0123456789abcdef-1.bin".into(), check: None });

        let child = put_place(300, b"rows");
        let at = strip_place(&child, 300, "row shard").unwrap();
        assert_eq!(&child[at..], b"rows");
        let e = strip_place(&child, 3, "row shard").unwrap_err();
        assert!(e.message.contains("served under another's name"), "{}", e.message);
        assert!(strip_place(&[0x80], 0, "row shard").is_err(), "a varint cut short");
    }

    #[test]
    fn tables_round_trip_and_refuse_foreign_names() {
        let refs = vec![ShardRef::new("e-0123456789abcdef.bin", 300, 7), ShardRef::new("e-ffffffffffffffff.bin", 1, u32::MAX)];
        let mut b = Vec::new();
        put_table(&mut b, ShardKind::EncoderRows, &refs).unwrap();
        assert_eq!(read_table(&mut Reader::new(&b), ShardKind::EncoderRows, 10).unwrap(), refs);
        assert!(read_table(&mut Reader::new(&b), ShardKind::EncoderRows, 1).is_err());
        assert!(read_table(&mut Reader::new(&b[..b.len() - 1]), ShardKind::EncoderRows, 10).is_err());
        let bad = [ShardRef::new("x-nothex.bin", 1, 1)];
        assert!(put_table(&mut Vec::new(), ShardKind::EncoderRows, &bad).is_err());
    }
}
