//! Tables of shard files inside an index shard. A bundle with thousands of small semantic
//! shards (vector lists, encoder rows) keeps them out of `manifest.json`, which every page
//! load fetches: the manifest names the index shard, the index shard lists its children
//! with the same facts the manifest records — file name, size, CRC-32 — so every child is
//! verified exactly like a top-level shard.
//!
//! Per file: 8 bytes of its content hash (the name is `<prefix>-<16 hex digits>.bin`),
//! `varint bytes`, `u32 crc32` (LE).

use super::frame::ShardKind;
use super::manifest::ShardRef;
use super::varint::{self, Reader};
use crate::error::SiftError;

pub fn put_table(out: &mut Vec<u8>, kind: ShardKind, refs: &[ShardRef]) -> Result<(), SiftError> {
    varint::put(out, refs.len() as u64);
    for r in refs {
        let hex = r
            .file
            .strip_prefix(kind.prefix())
            .and_then(|s| s.strip_prefix('-'))
            .and_then(|s| s.strip_suffix(".bin"))
            .filter(|h| h.len() == 16)
            .ok_or_else(|| SiftError::internal(format!("shard {} is not named by its hash", r.file)))?;
        for i in 0..8 {
            let b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
                .map_err(|_| SiftError::internal(format!("shard {} is not named by its hash", r.file)))?;
            out.push(b);
        }
        let check = r.check.ok_or_else(|| SiftError::internal(format!("shard {} has no size and checksum to list", r.file)))?;
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
        let file = format!("{}-{}.bin", kind.prefix(), hash.iter().map(|b| format!("{b:02x}")).collect::<String>());
        let bytes = r.u64()?;
        let c = r.bytes(4)?;
        out.push(ShardRef::new(file, bytes, u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
