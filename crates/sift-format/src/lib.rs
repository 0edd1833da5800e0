//! Sift's bundle format: what `sift build` writes and every runtime reads. One module per
//! artifact, its encoder beside its decoder, so the layout of each payload is written down
//! (and implemented) exactly once:
//!
//! | module | file | payload |
//! |---|---|---|
//! | [`manifest`] | `manifest.json` | entry point: magic, version, stats, params, shard table |
//! | [`frame`] | every `.bin` | 16-byte header (magic, version, kind, codec, length, CRC-32) + deflated payload |
//! | [`startup`] | `s-<hash>.bin` | [`docmeta`], [`filters`] and the doc store's [`dictionary`]: what every search reads first |
//! | [`terms`] | `t-<hash>-<n>.bin` | fst dictionary (term → offset) + postings for one term range |
//! | [`vocabulary`] | `k-<hash>-<n>.bin` | every term and spelling with its document frequency, whole first letters a shard (typo tolerance) |
//! | [`docstore`] | `d-<hash>-<n>.bin` | display data of a doc-id range or of part of a long page ([`partition`]), and the one position layout |
//! | [`ids`] | `i-<hash>.bin` | fst of document ids → doc numbers, for one id range |
//! | [`vindex`] | `x-<hash>.bin`, `c-<hash>-<n>.bin`, `p-<hash>.bin` | the vector lists' store and groups (group centroids; each group's list centroids a shard), the projection |
//! | [`vectors`] | `l-<hash>-<n>.bin` | int8 chunk vectors with scales, one list |
//! | [`encoder`] | `g-<hash>-<n>.bin`, `e-<hash>-<n>.bin` | the static query encoder's vocabulary groups and int4 rows |
//! | [`table`] | inside index shards | how index shards name their children |
//!
//! `sift_base::crc32` is the checksum of every shard; `sift_base::varint` holds the integer
//! codecs every payload uses (LEB128, zigzag, delta-coded doc-id lists). Decoders check everything they
//! read: a shard that passed its checksum but was written by a buggy or hostile builder is
//! still refused with an error, never a panic.
//!
//! One format: `FORMAT_VERSION` is bumped whenever the bytes of a bundle change meaning, and
//! a bundle of another version is refused (`bundle_version`: rebuild it). `tests/compat.rs`
//! checks that the frozen bundle of the current version still opens and answers as
//! recorded; `CHANGELOG.md` keeps the format's history.
//!
//! Pure Rust without I/O: it builds for native targets and `wasm32-unknown-unknown`.

#[macro_use]
extern crate sift_base;

pub mod dictionary;
pub mod docmeta;
pub mod docstore;
pub mod encoder;
pub mod fields;
pub mod filters;
pub mod frame;
pub mod ids;
pub mod manifest;
pub mod partition;
pub mod startup;
pub mod table;
pub mod terms;
pub mod vectors;
pub mod vindex;
pub mod vocabulary;

pub use frame::{
    decode_shard, decode_shard_with, encode_shard, encode_shard_with_dictionary, Inflation, ShardKind, FORMAT_VERSION, MAGIC,
    MAX_SHARD_PAYLOAD,
};
pub use manifest::{
    store_file, store_place, DocShardRef, FileCheck, KeyRangeShardRef, Manifest, ShardRef, VectorsRef, MANIFEST_FILE, MANIFEST_MAGIC,
};
