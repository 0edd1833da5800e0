//! `manifest.json`: the bundle's entry point, JSON so that standard tools read it. It holds
//! the magic and format version, document and term counts, the BM25F parameters and field
//! token totals, the filterable fields, and the shard table: the shards it lists by name
//! (with the size and CRC-32 of the file as stored) and the stores named by rule (their
//! stem and one column or two of what each shard holds).
//!
//! Every number is an integer: the BM25F parameters in thousandths, the field lengths as
//! totals, so no reader parses a float.
//!
//! ```text
//! {"magic": "sift-bundle", "format_version": 14, "generator", "doc_count", "term_count",
//!  "params": {"k1_milli", "b_milli": [4], "weight_milli": [4]},
//!  "field_tokens": [title, path, headings, body],
//!  "filter_fields": [...],
//!  "language": "en", "stop_words"?: [...], "languages"?: {"de": "de/", ...},
//!  "startup": {file, bytes, crc32, "dictionary"?: true},
//!  "term_store": {"files", "first": [separator per shard]},
//!  "vocabulary": {"files", "first": [...]},
//!  "doc_store": {"files", "docs": [docs per shard; 0: a further part], "part_positions"?, "part_offsets"?},
//!  "id_shards": [{file, bytes, crc32, first, last}],
//!  "fold_table"?: {file, bytes, crc32},
//!  "vectors"?: {"model", "dim", "model_dim", "chunks", "index": {file, bytes, crc32}},
//!  "encoder"?: {"dim", "rows_per_shard", "word_groups", "continuation_groups", "groups", "rows", "tokens", "texts"},
//!  "delta"?: {"removed": [doc numbers], "folder"?: "delta-<hash>", "manifest"?: {a manifest},
//!             "vectors"?: {file, bytes, crc32}}}
//! ```
//!
//! A **delta** is what changed since the bundle was built, kept beside it until the next
//! full build (`sift watch`): the pages added or edited, as a small bundle of their own in
//! `folder` (its `manifest` inline, so a host still fetches one entry point), and this
//! bundle's documents that no longer answer (`removed`: deleted pages, and the old
//! version of each edited one). The engine searches the two as one collection (`delta.rs`
//! in the engine).

use super::encoder::EncoderLayout;
use super::frame::FORMAT_VERSION;
use crate::fields::{Bm25fParams, N_FIELDS};
use sift_base::error::{ErrorCode, SiftError};
use sift_base::json::{self, members, Fields, Json, ToJson};
use sift_base::text;

pub const MANIFEST_MAGIC: &str = "sift-bundle";
pub const MANIFEST_FILE: &str = "manifest.json";

/// A shard file as the manifest lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardRef {
    pub file: String,
    /// None for the shards of a store named by rule, whose names carry their build.
    pub check: Option<FileCheck>,
}

/// Size and CRC-32 of the whole file as stored: catch a shard swapped in from another build.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileCheck {
    pub bytes: u64,
    pub crc32: u32,
}

impl ShardRef {
    pub fn new(file: impl Into<String>, bytes: u64, crc32: u32) -> ShardRef {
        ShardRef { file: file.into(), check: Some(FileCheck { bytes, crc32 }) }
    }
}

/// A shard holding a sorted range of keys (terms, spellings, document ids).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRangeShardRef {
    pub shard: ShardRef,
    /// Where the shard's keys start. In the term store and the vocabulary a *separator*
    /// (`terms::separator`): the shortest prefix of its first key above the shard before's
    /// last, and its keys run to below the next shard's; for id shards the first key itself.
    pub first: String,
    /// The last key, for id shards.
    pub last: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DocShardRef {
    pub shard: ShardRef,
    pub first_doc: u32,
    pub docs: u32,
    /// Set when the shard holds one *part* of a long page — a run of its consecutive
    /// sections — and says where that run starts in the page's position space. A page's
    /// parts are consecutive entries of one `first_doc`, so the engine can pick the part a
    /// result's snippet comes from before fetching it.
    pub first_pos: Option<u32>,
}

impl DocShardRef {
    /// Whether this entry is a further part of the page that `prev` (the entry before it)
    /// holds a part of.
    pub fn continues(&self, prev: &DocShardRef) -> bool {
        self.first_pos.is_some() && prev.first_pos.is_some() && prev.first_doc == self.first_doc
    }
}

/// The vector set: which model made it, and where its vectors are.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorsRef {
    /// The embedding model's name (`all-MiniLM-L6-v2`): queries must be embedded by it (or
    /// by the bundle's static encoder, fitted to it).
    pub model: String,
    /// Dimensions of the stored vectors (the projection's).
    pub dim: u32,
    /// Dimensions of the model's own vectors (what a host that embeds queries with the
    /// model passes; the projection maps them to `dim`).
    pub model_dim: u32,
    pub chunks: u32,
    /// The vector index (kind 8: lists, centroids, projection).
    pub index: ShardRef,
}

/// The static query encoder: its index, and what it was fitted to.
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderRef {
    pub layout: EncoderLayout,
    /// Corpus texts it was fitted to.
    pub texts: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub generator: String,
    pub doc_count: u32,
    pub term_count: u64,
    pub params: Bm25fParams,
    /// Tokens in each field over all documents (title, path, headings, body).
    pub field_tokens: [u64; N_FIELDS],
    /// Metadata fields that can be used in `filters` and appear in `facets`.
    pub filter_fields: Vec<String>,
    /// The startup shard ([`super::startup`]): the doc metadata, the filters and the doc
    /// store's dictionary, which every search reads in its first round.
    pub startup: ShardRef,
    /// Whether the startup shard holds a dictionary for the doc store ([`super::dictionary`]).
    pub doc_dictionary: bool,
    /// The term store: `<term_files>-<n>.bin`.
    pub term_files: String,
    pub term_shards: Vec<KeyRangeShardRef>,
    /// The vocabulary ([`super::vocabulary`]): `<vocab_files>-<n>.bin`.
    pub vocab_files: String,
    pub vocabulary: Vec<KeyRangeShardRef>,
    /// The doc store: `<doc_files>-<n>.bin`.
    pub doc_files: String,
    pub doc_shards: Vec<DocShardRef>,
    /// A long page's parts lie on a grid of this many positions (its title and path below
    /// it, part `k` from `(k + 1)·P`, see [`super::partition`]), so `doc_store` lists no
    /// first position per part: each is derived, and only the parts that begin off their
    /// window say by how much (`part_offsets: [[entry, offset], ...]`). None when no page
    /// is in parts.
    pub part_positions: Option<u32>,
    /// Document id → doc number, in id ranges.
    pub id_shards: Vec<KeyRangeShardRef>,
    /// The analyzer's folding table for the rare Unicode blocks (kind 14; see
    /// [`sift_text::decompose`]), which the browser runtimes do not compile in.
    pub fold_table: Option<ShardRef>,
    /// Present when the bundle was built with an embedder.
    pub vectors: Option<VectorsRef>,
    /// Present when the bundle was built with a static query encoder.
    pub encoder: Option<EncoderRef>,
    /// The language the text was analysed as (ISO 639: `en`, `de`, `zh`), and its stop
    /// words (none for English, whose list every runtime has): queries are analysed the same
    /// way (`analyzer::Analyzer`).
    pub language: String,
    pub stop_words: Vec<String>,
    /// The site's other languages, built beside this bundle in one build: language code →
    /// the folder of its bundle, relative to this one (`de/`). Set on the main bundle only.
    pub languages: Vec<(String, String)>,
    /// Pages changed since this bundle was built (see the module's comment).
    pub delta: Option<Delta>,
}

/// The pages changed since a bundle was built: searched together with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// The bundle of the pages added or edited, and its folder (relative to this bundle's,
    /// a plain name): None when pages were only deleted.
    pub bundle: Option<(String, Box<Manifest>)>,
    /// This bundle's documents that no longer answer, in increasing order.
    pub removed: Vec<u32>,
    /// The changed pages' chunk vectors in this bundle's space (the bundle's own encoder
    /// made them), as one vector list in the delta's folder, numbered as the delta's
    /// documents: when this bundle has vectors.
    pub vectors: Option<ShardRef>,
}

impl Manifest {
    /// Parse and validate a manifest: magic, version and internal consistency. A bundle of
    /// another format is refused with `bundle_version`.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, SiftError> {
        let v = json::parse(bytes).map_err(|e| SiftError::corrupt(msg!("manifest.json is not valid JSON: {}", e)))?;
        Manifest::of_json(&v)
    }

    /// [`Manifest::parse`] of parsed JSON (a delta's manifest is a member of its base's).
    fn of_json(v: &Json) -> Result<Manifest, SiftError> {
        if v.get("magic").and_then(|m| m.as_str()) != Some(MANIFEST_MAGIC) {
            return Err(SiftError::corrupt("manifest.json is not a Sift bundle manifest (wrong magic)"));
        }
        let ver = v.get("format_version").and_then(json::as_u64).unwrap_or(0);
        if ver != u64::from(FORMAT_VERSION) {
            let (ver, reads) = (text::uint(ver), text::uint(u64::from(FORMAT_VERSION)));
            return Err(SiftError::new(
                ErrorCode::BundleVersion,
                msg!("the bundle is format {} and this sift reads format {}: rebuild it with `sift build`", ver, reads),
            ));
        }
        let m = Manifest::from_json(v).map_err(|e| SiftError::corrupt(msg!("manifest.json is malformed: {}", e)))?;
        m.validate()?;
        Ok(m)
    }

    /// Average tokens per document in each field, for BM25F's length normalisation.
    pub fn avg_field_len(&self) -> [f32; N_FIELDS] {
        let n = f64::from(self.doc_count.max(1));
        std::array::from_fn(|f| (self.field_tokens[f] as f64 / n) as f32)
    }

    fn validate(&self) -> Result<(), SiftError> {
        if sift_text::analyzer::primary_subtag(&self.language).as_deref() != Some(self.language.as_str()) {
            return Err(SiftError::corrupt(msg!("manifest language {} is not a language code", sift_base::error::Quoted(&self.language))));
        }
        if let (Some(e), Some(v)) = (&self.encoder, &self.vectors) {
            e.layout.check()?;
            if e.layout.dim != v.dim as usize {
                return Err(SiftError::corrupt("manifest encoder's dimensions differ from the vectors'"));
            }
        } else if self.encoder.is_some() {
            return Err(SiftError::corrupt("manifest has a query encoder but no vectors"));
        }
        for (code, folder) in &self.languages {
            let safe = folder.strip_suffix('/').is_some_and(is_safe_file_name);
            if sift_text::analyzer::primary_subtag(code).as_deref() != Some(code.as_str()) || !safe {
                return Err(SiftError::corrupt(msg!(
                    "manifest languages list {} at {}: not a language code and a folder",
                    sift_base::error::Quoted(code),
                    sift_base::error::Quoted(folder)
                )));
            }
        }
        if let Some(d) = &self.delta {
            self.validate_delta(d)?;
        }
        let mut next_doc = 0u32;
        let mut prev: Option<&DocShardRef> = None;
        for d in &self.doc_shards {
            match prev {
                Some(p) if d.continues(p) => {
                    if p.first_pos >= d.first_pos || d.docs != 1 {
                        return Err(SiftError::corrupt("manifest doc shard parts are not in order"));
                    }
                }
                _ => {
                    if d.first_doc != next_doc || (d.first_pos.is_some() && d.docs != 1) {
                        return Err(SiftError::corrupt("manifest doc shards do not tile the doc ids"));
                    }
                    next_doc = d.first_doc.checked_add(d.docs).ok_or_else(|| SiftError::corrupt("doc count overflow"))?;
                }
            }
            prev = Some(d);
        }
        if next_doc != self.doc_count {
            return Err(SiftError::corrupt("manifest doc shards do not cover every document"));
        }
        for (what, ranges) in [("term", &self.term_shards), ("id", &self.id_shards), ("vocabulary", &self.vocabulary)] {
            for w in ranges.windows(2) {
                if w[0].first >= w[1].first || w[0].last.as_ref().is_some_and(|last| *last >= w[1].first) {
                    return Err(SiftError::corrupt(msg!("manifest {} shards are not in order", what)));
                }
            }
        }
        let stems = [&self.term_files, &self.vocab_files, &self.doc_files];
        let encoder = self.encoder.iter().flat_map(|e| [&e.layout.group_files, &e.layout.row_files]);
        for name in self.all_shards().map(|s| &s.file).chain(stems).chain(encoder) {
            if !is_safe_file_name(name) {
                return Err(SiftError::corrupt(msg!("manifest names an unsafe shard file {}", sift_base::error::Quoted(name))));
            }
        }
        Ok(())
    }

    /// A delta must read as this bundle does (its language, its filter fields), hold only
    /// what the engine merges (no vector space, no further delta, no other languages; its
    /// chunk vectors, in this bundle's space, listed beside it) and remove
    /// only documents this bundle has.
    fn validate_delta(&self, d: &Delta) -> Result<(), SiftError> {
        if d.removed.windows(2).any(|w| w[0] >= w[1]) || d.removed.last().is_some_and(|&n| n >= self.doc_count) {
            return Err(SiftError::corrupt("manifest delta removes documents out of order or that the bundle does not have"));
        }
        let Some((folder, m)) = &d.bundle else {
            return match d.vectors {
                Some(_) => Err(SiftError::corrupt("manifest delta has vectors but no pages")),
                None => Ok(()),
            };
        };
        if let Some(v) = &d.vectors {
            if self.vectors.is_none() || !is_safe_file_name(&v.file) || v.check.is_none() {
                return Err(SiftError::corrupt("manifest delta's vectors are not a listed file of a bundle with vectors"));
            }
        }
        if !is_safe_file_name(folder) {
            return Err(SiftError::corrupt(msg!("manifest delta names an unsafe folder {}", sift_base::error::Quoted(folder))));
        }
        if m.language != self.language || m.stop_words != self.stop_words || m.filter_fields != self.filter_fields {
            return Err(SiftError::corrupt("manifest delta is analysed or filtered otherwise than its bundle"));
        }
        if m.delta.is_some() || m.vectors.is_some() || !m.languages.is_empty() {
            return Err(SiftError::corrupt("manifest delta has vectors, a delta or languages of its own"));
        }
        Ok(())
    }

    /// Every shard the manifest lists: the keyword ones, then the vector index.
    pub fn all_shards(&self) -> impl Iterator<Item = &ShardRef> {
        self.keyword_shards().chain(self.vectors.iter().map(|v| &v.index))
    }

    /// The shards a search by words reads: the startup shard, the fold table, terms,
    /// vocabulary, documents, ids.
    pub fn keyword_shards(&self) -> impl Iterator<Item = &ShardRef> {
        std::iter::once(&self.startup)
            .chain(self.fold_table.iter())
            .chain(self.term_shards.iter().map(|t| &t.shard))
            .chain(self.vocabulary.iter().map(|t| &t.shard))
            .chain(self.doc_shards.iter().map(|d| &d.shard))
            .chain(self.id_shards.iter().map(|t| &t.shard))
    }

    /// The manifest as written: compact JSON, every visitor's first fetch (`jq .` reads it).
    pub fn to_json_bytes(&self) -> Vec<u8> {
        let mut b = self.to_json().to_text().into_bytes();
        b.push(b'\n');
        b
    }
}

// Reading and writing. Members a newer build adds are ignored (its format version says
// whether this runtime may read the bundle at all); optional members are written only when
// present.

/// The n-th shard of a store named by rule: `files` is the kind's prefix and a hash of the
/// whole store.
pub fn store_file(files: &str, n: usize) -> String {
    [files, "-", &text::uint(n as u64), ".bin"].concat()
}

/// `n` for the file `store_file(files, n)`, and for no other name.
pub fn store_place(files: &str, file: &str) -> Option<usize> {
    let digits = file.strip_prefix(files)?.strip_prefix('-')?.strip_suffix(".bin")?;
    let canonical = !digits.is_empty() && (digits == "0" || !digits.starts_with('0'));
    let n = digits.bytes().try_fold(0usize, |n, b| n.checked_mul(10)?.checked_add(char::from(b).to_digit(10)? as usize));
    n.filter(|_| canonical)
}

/// Shard names are plain file names: no separators, no `..`, so a hostile manifest cannot
/// make a host read outside the bundle.
/// (A store's stem is checked the same way: its names add only `-<n>.bin`, and no store
/// has a billion shards.)
fn is_safe_file_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && !s.starts_with('.')
}

mod codec;
#[cfg(test)]
mod tests;
