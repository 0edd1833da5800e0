//! Bundle format v1: the manifest and the framing of every shard file (magic, version,
//! kind, codec, length, CRC-32). See docs/architecture.md for the layout of each payload.

use crate::error::SiftError;
use crate::rank::Bm25fParams;
use serde::{Deserialize, Serialize};

pub const MAGIC: &[u8; 4] = b"SIFT";
pub const MANIFEST_MAGIC: &str = "sift-bundle";
pub const FORMAT_VERSION: u16 = 1;
pub const MANIFEST_FILE: &str = "manifest.json";
const HEADER_LEN: usize = 16;
/// Refuse to inflate a shard claiming more than this: a corrupt or hostile length must not
/// allocate gigabytes.
pub const MAX_SHARD_PAYLOAD: usize = 512 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ShardKind {
    Terms = 1,
    Docs = 2,
    DocMeta = 3,
    Filters = 4,
    Vectors = 5,
}

impl ShardKind {
    fn from_u8(b: u8) -> Option<Self> {
        Some(match b {
            1 => ShardKind::Terms,
            2 => ShardKind::Docs,
            3 => ShardKind::DocMeta,
            4 => ShardKind::Filters,
            5 => ShardKind::Vectors,
            _ => return None,
        })
    }
    pub fn prefix(self) -> &'static str {
        match self {
            ShardKind::Terms => "t",
            ShardKind::Docs => "d",
            ShardKind::DocMeta => "m",
            ShardKind::Filters => "f",
            ShardKind::Vectors => "v",
        }
    }
}

/// A shard file as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRef {
    pub file: String,
    pub bytes: u64,
    /// CRC-32 of the whole file as stored: catches a shard swapped in from another build.
    pub crc32: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermShardRef {
    #[serde(flatten)]
    pub shard: ShardRef,
    /// First and last term of the shard's range (inclusive).
    pub first: String,
    pub last: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocShardRef {
    #[serde(flatten)]
    pub shard: ShardRef,
    pub first_doc: u32,
    pub docs: u32,
}

/// The vector set: which model made it, and its shards (chunk ranges, in order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorsRef {
    /// The embedding model's name (`all-MiniLM-L6-v2`): queries must be embedded by it.
    pub model: String,
    pub dim: u32,
    pub chunks: u32,
    pub shards: Vec<ShardRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub magic: String,
    pub format_version: u16,
    pub generator: String,
    pub doc_count: u32,
    pub term_count: u64,
    pub params: Bm25fParams,
    /// Average field lengths in tokens: title, path, headings, body.
    pub avg_field_len: [f32; 4],
    /// Metadata fields that can be used in `filters` and appear in `facets`.
    pub filter_fields: Vec<String>,
    pub docmeta: ShardRef,
    pub filters: ShardRef,
    pub term_shards: Vec<TermShardRef>,
    pub doc_shards: Vec<DocShardRef>,
    /// Present when the bundle was built with an embedder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors: Option<VectorsRef>,
}

impl Manifest {
    /// Parse and validate a manifest: magic, version and internal consistency.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, SiftError> {
        let v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| SiftError::corrupt(format!("manifest.json is not valid JSON: {e}")))?;
        if v.get("magic").and_then(|m| m.as_str()) != Some(MANIFEST_MAGIC) {
            return Err(SiftError::corrupt("manifest.json is not a Sift bundle manifest (wrong magic)"));
        }
        let ver = v.get("format_version").and_then(|m| m.as_u64()).unwrap_or(0);
        if ver != u64::from(FORMAT_VERSION) {
            return Err(SiftError::new(
                "bundle_version",
                format!("bundle format version {ver} is not supported (this build reads version {FORMAT_VERSION}); rebuild the bundle with this version of sift"),
            ));
        }
        let m: Manifest = serde_json::from_value(v).map_err(|e| SiftError::corrupt(format!("manifest.json is malformed: {e}")))?;
        m.validate()?;
        Ok(m)
    }

    fn validate(&self) -> Result<(), SiftError> {
        let mut next_doc = 0u32;
        for d in &self.doc_shards {
            if d.first_doc != next_doc {
                return Err(SiftError::corrupt("manifest doc shards do not tile the doc ids"));
            }
            next_doc = d.first_doc.checked_add(d.docs).ok_or_else(|| SiftError::corrupt("doc count overflow"))?;
        }
        if next_doc != self.doc_count {
            return Err(SiftError::corrupt("manifest doc shards do not cover every document"));
        }
        for w in self.term_shards.windows(2) {
            if w[0].last >= w[1].first {
                return Err(SiftError::corrupt("manifest term shards are not in order"));
            }
        }
        for f in self.all_shards() {
            if !is_safe_file_name(&f.file) {
                return Err(SiftError::corrupt(format!("manifest names an unsafe shard file {:?}", f.file)));
            }
        }
        Ok(())
    }

    pub fn all_shards(&self) -> impl Iterator<Item = &ShardRef> {
        [&self.docmeta, &self.filters]
            .into_iter()
            .chain(self.term_shards.iter().map(|t| &t.shard))
            .chain(self.doc_shards.iter().map(|d| &d.shard))
            .chain(self.vectors.iter().flat_map(|v| v.shards.iter()))
    }

    pub fn to_json_bytes(&self) -> Vec<u8> {
        let mut b = serde_json::to_vec_pretty(self).expect("manifest serialises");
        b.push(b'\n');
        b
    }
}

/// Shard names are plain file names: no separators, no `..`, so a hostile manifest cannot
/// make a host read outside the bundle.
fn is_safe_file_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && !s.starts_with('.')
}

/// Frame a payload as a shard file (deflate-compressed).
pub fn encode_shard(kind: ShardKind, payload: &[u8]) -> Vec<u8> {
    let compressed = miniz_oxide::deflate::compress_to_vec(payload, 6);
    let mut out = Vec::with_capacity(HEADER_LEN + compressed.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(kind as u8);
    out.push(1); // codec: deflate
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(&compressed);
    out
}

/// Verify and unframe a shard file. `expected` is the manifest's entry for it.
pub fn decode_shard(bytes: &[u8], kind: ShardKind, expected: &ShardRef) -> Result<Vec<u8>, SiftError> {
    let name = &expected.file;
    if bytes.len() as u64 != expected.bytes {
        return Err(SiftError::corrupt(format!(
            "shard {name} has {} bytes, the manifest says {} (truncated or from another build)",
            bytes.len(),
            expected.bytes
        )));
    }
    if crc32fast::hash(bytes) != expected.crc32 {
        return Err(SiftError::corrupt(format!("shard {name} fails its checksum (corrupt or from another build)")));
    }
    if bytes.len() < HEADER_LEN || &bytes[0..4] != MAGIC {
        return Err(SiftError::corrupt(format!("shard {name} is not a Sift shard (bad magic)")));
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != FORMAT_VERSION {
        return Err(SiftError::new("bundle_version", format!("shard {name} has format version {version}, expected {FORMAT_VERSION}")));
    }
    match ShardKind::from_u8(bytes[6]) {
        Some(k) if k == kind => {}
        _ => return Err(SiftError::corrupt(format!("shard {name} is not a {kind:?} shard"))),
    }
    let raw_len = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    let crc = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
    if raw_len > MAX_SHARD_PAYLOAD {
        return Err(SiftError::corrupt(format!("shard {name} claims an implausible size")));
    }
    let body = &bytes[HEADER_LEN..];
    let payload = match bytes[7] {
        0 => body.to_vec(),
        1 => miniz_oxide::inflate::decompress_to_vec_with_limit(body, raw_len)
            .map_err(|_| SiftError::corrupt(format!("shard {name} does not decompress (corrupt)")))?,
        c => return Err(SiftError::corrupt(format!("shard {name} uses unknown codec {c}"))),
    };
    if payload.len() != raw_len || crc32fast::hash(&payload) != crc {
        return Err(SiftError::corrupt(format!("shard {name} fails its payload checksum (corrupt)")));
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(payload: &[u8]) -> (Vec<u8>, ShardRef) {
        let b = encode_shard(ShardKind::Terms, payload);
        let r = ShardRef { file: "t-x.bin".into(), bytes: b.len() as u64, crc32: crc32fast::hash(&b) };
        (b, r)
    }

    #[test]
    fn round_trip() {
        let payload = b"hello hello hello hello".repeat(10);
        let (b, r) = framed(&payload);
        assert_eq!(decode_shard(&b, ShardKind::Terms, &r).unwrap(), payload);
    }

    #[test]
    fn every_single_byte_flip_is_refused() {
        let (b, r) = framed(&b"some payload bytes".repeat(5));
        for i in 0..b.len() {
            let mut c = b.clone();
            c[i] ^= 0x40;
            assert!(decode_shard(&c, ShardKind::Terms, &r).is_err(), "flip at {i} accepted");
        }
    }

    #[test]
    fn truncation_wrong_kind_and_header_lies_are_refused() {
        let (b, r) = framed(b"abcdef");
        assert!(decode_shard(&b[..b.len() - 1], ShardKind::Terms, &r).is_err());
        assert!(decode_shard(&b, ShardKind::Docs, &r).is_err());
        // A header that lies about its length but whose file CRC is recomputed (a shard from
        // a buggy writer) is still caught by the payload checks.
        let mut c = b.clone();
        c[8] = 0xff;
        let r2 = ShardRef { crc32: crc32fast::hash(&c), ..r.clone() };
        assert!(decode_shard(&c, ShardKind::Terms, &r2).is_err());
    }

    #[test]
    fn manifest_magic_and_version_checked() {
        assert_eq!(Manifest::parse(b"{}").unwrap_err().code, "bundle_corrupt");
        assert_eq!(Manifest::parse(b"not json").unwrap_err().code, "bundle_corrupt");
        let e = Manifest::parse(br#"{"magic":"sift-bundle","format_version":99}"#).unwrap_err();
        assert_eq!(e.code, "bundle_version");
        assert!(!is_safe_file_name("../etc/passwd"));
        assert!(is_safe_file_name("t-0123abcd.bin"));
    }
}
