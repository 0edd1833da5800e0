//! The framing of every shard file: a 16-byte header, then the payload.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `SIFT` |
//! | 4 | 2 | format version (u16 LE) |
//! | 6 | 1 | shard kind ([`ShardKind`]) |
//! | 7 | 1 | codec (0 raw, 1 deflate, 2 deflate after the doc store's dictionary) |
//! | 8 | 4 | decoded payload length (u32 LE) |
//! | 12 | 4 | CRC-32 of the decoded payload (u32 LE) |
//!
//! The manifest records the size and CRC-32 of the shards it lists by name, so a shard
//! swapped in from another build is refused even when its own header is intact. Stores
//! named by rule (terms, vocabulary, docs, and the semantic stores) carry their build in
//! their names instead; any change to such a file fails its payload checksum.

use super::manifest::ShardRef;
use sift_base::error::{ErrorCode, SiftError};

pub const MAGIC: &[u8; 4] = b"SIFT";

/// The one format this build writes and reads. Bumped whenever the bytes of a bundle change
/// meaning; a bundle of any other version is refused with `bundle_version` (rebuild it).
/// `CHANGELOG.md` says what each version brought.
pub const FORMAT_VERSION: u16 = 18;

const HEADER_LEN: usize = 16;

/// Refuse to inflate a shard claiming more than this: a corrupt or hostile length must not
/// allocate gigabytes.
pub const MAX_SHARD_PAYLOAD: usize = 512 << 20;

/// What a shard holds. The numbers are the header's kind byte; gaps are kinds of earlier
/// formats, never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ShardKind {
    Terms = 1,
    Docs = 2,
    Ids = 6,
    VectorList = 7,
    VectorIndex = 8,
    Projection = 9,
    EncoderRows = 11,
    EncoderVocab = 12,
    FoldTable = 14,
    Startup = 15,
    Vocabulary = 16,
    ListGroup = 17,
}

impl ShardKind {
    const ALL: [ShardKind; 12] = [
        ShardKind::Terms,
        ShardKind::Docs,
        ShardKind::Ids,
        ShardKind::VectorList,
        ShardKind::VectorIndex,
        ShardKind::Projection,
        ShardKind::EncoderRows,
        ShardKind::EncoderVocab,
        ShardKind::FoldTable,
        ShardKind::Startup,
        ShardKind::Vocabulary,
        ShardKind::ListGroup,
    ];

    /// What a message calls it, and the prefix of its file names.
    pub fn name_and_prefix(self) -> (&'static str, &'static str) {
        use ShardKind::*;
        match self {
            Terms => ("term", "t"),
            Docs => ("doc", "d"),
            Ids => ("id", "i"),
            VectorList => ("vector list", "l"),
            VectorIndex => ("vector index", "x"),
            Projection => ("projection", "p"),
            EncoderRows => ("encoder rows", "e"),
            EncoderVocab => ("encoder vocabulary", "g"),
            FoldTable => ("fold table", "u"),
            Startup => ("startup", "s"),
            Vocabulary => ("vocabulary", "k"),
            ListGroup => ("list group", "c"),
        }
    }

    fn name(self) -> &'static str {
        self.name_and_prefix().0
    }

    pub fn prefix(self) -> &'static str {
        self.name_and_prefix().1
    }

    fn from_u8(b: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|k| *k as u8 == b)
    }
}

/// Codecs: how a shard's payload is stored after its header.
const CODEC_RAW: u8 = 0;
const CODEC_DEFLATE: u8 = 1;
/// Deflate as the continuation of a stream that began with the doc store's dictionary.
const CODEC_DEFLATE_AFTER_DICTIONARY: u8 = 2;

/// Frame a payload as a shard file (deflate-compressed).
pub fn encode_shard(kind: ShardKind, payload: &[u8]) -> Vec<u8> {
    frame(kind, payload, CODEC_DEFLATE, miniz_oxide::deflate::compress_to_vec(payload, 6))
}

/// Frame a doc shard's payload compressed after the doc store's `dictionary`.
pub fn encode_shard_with_dictionary(kind: ShardKind, payload: &[u8], dictionary: &[u8]) -> Vec<u8> {
    frame(kind, payload, CODEC_DEFLATE_AFTER_DICTIONARY, super::dictionary::compress_with(dictionary, payload, 6))
}

fn frame(kind: ShardKind, payload: &[u8], codec: u8, body: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(kind as u8);
    out.push(codec);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&sift_base::crc32::crc32(payload).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// Verify and unframe a shard file. `expected` is the manifest's entry for it.
pub fn decode_shard(bytes: &[u8], kind: ShardKind, expected: &ShardRef) -> Result<Vec<u8>, SiftError> {
    decode_shard_with(bytes, Inflation::default(), kind, expected)
}

/// What a reader brings to a shard besides its bytes.
#[derive(Default)]
pub struct Inflation<'a> {
    /// The payload of a deflated shard, inflated by the host (the browser engine has no
    /// inflater; the payload is checked against the header like the engine's own would be).
    pub payload: Option<Vec<u8>>,
    /// The doc store's dictionary, once loaded: what codec 2 inflates after.
    pub dictionary: Option<&'a [u8]>,
}

/// [`decode_shard`], with the payload of a deflated shard already inflated by the host
/// (`inflated`): the browser engine carries no inflater and leaves
/// it to the platform's `DecompressionStream`. The file is checked as always (its size and
/// checksum against the manifest, its header), and the host's payload against the header
/// (length and CRC-32), so a host cannot hand the engine anything the file does not hold.
pub fn decode_shard_with(bytes: &[u8], with: Inflation, kind: ShardKind, expected: &ShardRef) -> Result<Vec<u8>, SiftError> {
    let name = &expected.file;
    // Without a listed size and checksum (a store named by rule), the payload's own
    // checksum below still refuses any change to the file.
    if let Some(check) = expected.check {
        if bytes.len() as u64 != check.bytes {
            return Err(SiftError::corrupt(msg!(
                "shard {} has {} bytes, the manifest says {} (truncated or from another build)",
                name,
                bytes.len(),
                check.bytes
            )));
        }
        if sift_base::crc32::crc32(bytes) != check.crc32 {
            return Err(SiftError::corrupt(msg!("shard {} fails its checksum (corrupt or from another build)", name)));
        }
    }
    if bytes.len() < HEADER_LEN || &bytes[0..4] != MAGIC {
        return Err(SiftError::corrupt(msg!("shard {} is not a Sift shard (bad magic)", name)));
    }
    let shard_version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if shard_version != FORMAT_VERSION {
        return Err(SiftError::new(
            ErrorCode::BundleVersion,
            msg!("shard {} has format version {}, this build reads {}", name, shard_version, FORMAT_VERSION),
        ));
    }
    match ShardKind::from_u8(bytes[6]) {
        Some(k) if k == kind => {}
        _ => return Err(SiftError::corrupt(msg!("shard {} is not a {} shard", name, kind.name()))),
    }
    let raw_len = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    let crc = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
    if raw_len > MAX_SHARD_PAYLOAD {
        return Err(SiftError::corrupt(msg!("shard {} claims an implausible size", name)));
    }
    let body = &bytes[HEADER_LEN..];
    let payload = match (bytes[7], with.payload) {
        (CODEC_RAW, _) => body.to_vec(),
        (CODEC_DEFLATE | CODEC_DEFLATE_AFTER_DICTIONARY, Some(payload)) => payload,
        (CODEC_DEFLATE, None) => inflate(body, raw_len, name)?,
        (CODEC_DEFLATE_AFTER_DICTIONARY, None) => match with.dictionary {
            Some(dictionary) => inflate_after(dictionary, body, raw_len, name)?,
            None => {
                return Err(SiftError::corrupt(msg!(
                    "shard {} is compressed with the doc store's dictionary, which is not loaded (a host must add it first)",
                    name
                )))
            }
        },
        (c, _) => return Err(SiftError::corrupt(msg!("shard {} uses unknown codec {}", name, c))),
    };
    if payload.len() != raw_len || sift_base::crc32::crc32(&payload) != crc {
        return Err(SiftError::corrupt(msg!("shard {} fails its payload checksum (corrupt)", name)));
    }
    Ok(payload)
}

/// A deflate stream's content, at most `limit` bytes.
#[cfg(feature = "inflate")]
fn inflate(body: &[u8], limit: usize, name: &str) -> Result<Vec<u8>, SiftError> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(body, limit)
        .map_err(|_| SiftError::corrupt(msg!("shard {} does not decompress (corrupt)", name)))
}

#[cfg(feature = "inflate")]
fn inflate_after(dictionary: &[u8], body: &[u8], limit: usize, name: &str) -> Result<Vec<u8>, SiftError> {
    super::dictionary::inflate_with(dictionary, body, limit)
        .ok_or_else(|| SiftError::corrupt(msg!("shard {} does not decompress (corrupt)", name)))
}

/// Without the `inflate` feature the host inflates (`decode_shard_with`): a deflated shard
/// it gives no payload for did not inflate there.
#[cfg(not(feature = "inflate"))]
fn inflate(_body: &[u8], _limit: usize, name: &str) -> Result<Vec<u8>, SiftError> {
    Err(SiftError::corrupt(msg!("shard {} does not decompress (corrupt, or its host gave no inflated payload)", name)))
}

#[cfg(not(feature = "inflate"))]
fn inflate_after(_dictionary: &[u8], body: &[u8], limit: usize, name: &str) -> Result<Vec<u8>, SiftError> {
    inflate(body, limit, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(payload: &[u8]) -> (Vec<u8>, ShardRef) {
        let b = encode_shard(ShardKind::Terms, payload);
        let r = ShardRef::new("t-x.bin", b.len() as u64, sift_base::crc32::crc32(&b));
        (b, r)
    }

    #[test]
    fn round_trip() {
        let payload = b"hello hello hello hello".repeat(10);
        let (b, r) = framed(&payload);
        assert_eq!(decode_shard(&b, ShardKind::Terms, &r).unwrap(), payload);
    }

    #[test]
    fn a_payload_the_host_inflated_is_checked_against_the_header() {
        let payload = b"inflated by the host, checked by the engine ".repeat(8);
        let (b, r) = framed(&payload);
        let with = |p: Vec<u8>| decode_shard_with(&b, Inflation { payload: Some(p), dictionary: None }, ShardKind::Terms, &r);
        assert_eq!(with(payload.clone()).unwrap(), payload);
        let mut other = payload.clone();
        other[5] ^= 1;
        assert!(with(other).unwrap_err().message.contains("payload checksum"), "a changed byte");
        assert!(with(payload[1..].to_vec()).is_err(), "a short payload");
        // The file itself is still checked against the manifest, whatever the host says.
        let mut c = b.clone();
        c[20] ^= 1;
        let host = Inflation { payload: Some(payload.clone()), dictionary: None };
        assert!(decode_shard_with(&c, host, ShardKind::Terms, &r).is_err());
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
        let r2 = ShardRef::new(r.file.clone(), c.len() as u64, sift_base::crc32::crc32(&c));
        assert!(decode_shard(&c, ShardKind::Terms, &r2).is_err());
    }
}
