//! The bundle format: what `sift build` writes and every runtime reads. One module per
//! artifact, its encoder beside its decoder, so the layout of each payload is written down
//! (and implemented) exactly once:
//!
//! | module | file | payload |
//! |---|---|---|
//! | [`manifest`] | `manifest.json` | entry point: magic, version, stats, params, shard table |
//! | [`frame`] | every `.bin` | 16-byte header (magic, version, kind, codec, length, CRC-32) + deflated payload |
//! | [`terms`] | `t-<hash>.bin` | fst dictionary (term → offset) + postings for one term range |
//! | [`docmeta`] | `m-<hash>.bin` | one byte per field length (log-quantised), dates |
//! | [`filters`] | `f-<hash>.bin` | per filterable field, value → doc-id set |
//! | [`startup`] | `s-<hash>.bin` | format 9: docmeta, filters and the doc store's dictionary in one file |
//! | [`docstore`] | `d-<hash>.bin` | display data of a doc-id range, and the one position layout |
//! | [`vocabulary`] | `k-<hash>-<n>.bin` | every term with its document frequency, whole first letters a shard (typo tolerance) |
//! | [`ids`] | `i-<hash>.bin` | fst of document ids → doc numbers, for one id range |
//! | [`vectors`] | `v-<hash>.bin`, `l-<hash>-<n>.bin` | int8 chunk vectors with scales (and, format 1, sign codes) |
//! | [`vindex`] | `x-<hash>.bin` | the vector lists' store, their centroids, the projection |
//! | [`encoder`] | `g-<hash>-<n>.bin`, `e-<hash>-<n>.bin` | the static query encoder's vocabulary groups and int4 rows |
//! | [`table`] | inside index shards | children listed by name, size and checksum (formats 2–9), or stores named by rule (10) |
//!
//! [`crc32`] is the checksum of every shard; [`varint`] holds the integer codecs every payload uses (LEB128, zigzag, delta-coded
//! doc-id lists). Decoders check everything they read: a shard that passed its checksum but
//! was written by a buggy or hostile builder is still refused with an error, never a panic.
//!
//! Compatibility: `FORMAT_VERSION` is bumped whenever a reader of the previous version would
//! misread a new bundle. Additions an older reader safely ignores (a new optional manifest
//! field naming new shard kinds) keep the version; `tests/compat.rs` checks that every
//! frozen bundle of the current version still opens and answers as recorded.

/// Whether this build reads bundles of the formats before [`FORMAT_VERSION`] (feature
/// `older-formats`: native builds and the full runtime). The browser's keyword and lean
/// engines read the current format only and answer an older bundle with
/// `full_runtime_required` when they open its manifest, which sift.js meets with the full
/// runtime (the older formats' readers were 1.1 kB of the packed keyword engine).
pub const READS_OLDER_FORMATS: bool = cfg!(feature = "older-formats");

/// Whether a bundle of format `version` has what format `since` brought. Always true in an
/// engine that reads the current format only, so the compiler drops the older paths.
pub(crate) fn has_format(version: impl Into<u64>, since: u64) -> bool {
    !READS_OLDER_FORMATS || version.into() >= since
}

pub mod crc32;
pub mod dictionary;
pub mod docmeta;
pub mod docstore;
pub mod encoder;
pub mod filters;
pub mod frame;
pub mod ids;
pub mod manifest;
pub mod partition;
pub mod startup;
pub mod table;
pub mod terms;
pub mod varint;
pub mod vectors;
pub mod vindex;
pub mod vocabulary;

pub use frame::{
    decode_shard, decode_shard_with, encode_shard, encode_shard_with_dictionary, Inflation, ShardKind, FORMAT_VERSION, MAGIC,
    MAX_SHARD_PAYLOAD,
};
pub use manifest::{store_file, DocShardRef, FileCheck, KeyRangeShardRef, Manifest, ShardRef, VectorsRef, MANIFEST_FILE, MANIFEST_MAGIC};
