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
//!  "encoder"?: {"dim", "rows_per_shard", "word_groups", "continuation_groups", "groups", "rows", "tokens", "texts"}}
//! ```

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
}

impl Manifest {
    /// Parse and validate a manifest: magic, version and internal consistency. A bundle of
    /// another format is refused with `bundle_version`.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, SiftError> {
        let v = json::parse(bytes).map_err(|e| SiftError::corrupt(msg!("manifest.json is not valid JSON: {}", e)))?;
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
        let m = Manifest::from_json(&v).map_err(|e| SiftError::corrupt(msg!("manifest.json is malformed: {}", e)))?;
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

fn u32_of(f: &Fields, name: &str) -> Result<u32, String> {
    f.uint(name, u64::from(u32::MAX)).map(|v| v as u32)
}

/// A member that is an array of exactly `N` unsigned integers up to `max`.
fn uints<const N: usize>(f: &Fields, name: &str, max: u64) -> Result<[u64; N], String> {
    let v = f.list(name, |x| json::as_u64(x).filter(|&n| n <= max).ok_or_else(|| msg!("{} must hold whole numbers", name)))?;
    v.try_into().map_err(|v: Vec<u64>| msg!("{} must hold {} numbers, not {}", name, N, v.len()))
}

fn milli(x: f32) -> u64 {
    (f64::from(x) * 1000.0).round().max(0.0) as u64
}

fn from_milli(x: u64) -> f32 {
    x as f32 / 1000.0
}

impl Bm25fParams {
    /// The parameters as the manifest stores them: thousandths.
    pub fn from_json(v: &Json) -> Result<Bm25fParams, String> {
        let f = Fields::of(v, "params", None)?;
        let k1 = f.uint("k1_milli", 1_000_000)?;
        let (b, weight) = (uints::<N_FIELDS>(&f, "b_milli", 1000)?, uints::<N_FIELDS>(&f, "weight_milli", 1_000_000)?);
        Ok(Bm25fParams { k1: from_milli(k1), b: b.map(from_milli), weight: weight.map(from_milli) })
    }

    /// The parameters a bundle built with these reads back (each to the nearest thousandth).
    pub fn stored(&self) -> Bm25fParams {
        Bm25fParams {
            k1: from_milli(milli(self.k1)),
            b: self.b.map(|b| from_milli(milli(b))),
            weight: self.weight.map(|w| from_milli(milli(w))),
        }
    }
}

impl ToJson for Bm25fParams {
    fn to_json(&self) -> Json {
        Json::obj([
            ("k1_milli", Json::from(milli(self.k1))),
            ("b_milli", Json::from(self.b.map(milli).to_vec())),
            ("weight_milli", Json::from(self.weight.map(milli).to_vec())),
        ])
    }
}

impl ShardRef {
    fn from_fields(f: &Fields) -> Result<ShardRef, String> {
        Ok(ShardRef::new(f.str("file")?, f.uint("bytes", u64::MAX)?, u32_of(f, "crc32")?))
    }

    fn from_json(v: &Json) -> Result<ShardRef, String> {
        ShardRef::from_fields(&Fields::of(v, "shard", None)?)
    }

    fn members(&self) -> Vec<(&'static str, Json, bool)> {
        let mut m = vec![("file", Json::from(&self.file), true)];
        if let Some(c) = self.check {
            m.extend([("bytes", Json::from(c.bytes), true), ("crc32", Json::from(c.crc32), true)]);
        }
        m
    }
}

impl ToJson for ShardRef {
    fn to_json(&self) -> Json {
        members(self.members())
    }
}

impl KeyRangeShardRef {
    fn from_json(v: &Json) -> Result<KeyRangeShardRef, String> {
        let f = Fields::of(v, "key-range shard", None)?;
        Ok(KeyRangeShardRef { shard: ShardRef::from_fields(&f)?, first: f.str("first")?, last: Some(f.str("last")?) })
    }
}

impl ToJson for KeyRangeShardRef {
    fn to_json(&self) -> Json {
        let mut m = self.shard.members();
        m.extend([("first", Json::from(&self.first), true), ("last", Json::from(self.last.clone()), self.last.is_some())]);
        members(m)
    }
}

impl VectorsRef {
    fn from_json(v: &Json) -> Result<VectorsRef, String> {
        let f = Fields::of(v, "vectors", None)?;
        Ok(VectorsRef {
            model: f.str("model")?,
            dim: u32_of(&f, "dim")?,
            model_dim: u32_of(&f, "model_dim")?,
            chunks: u32_of(&f, "chunks")?,
            index: ShardRef::from_json(f.need("index")?)?,
        })
    }
}

impl ToJson for VectorsRef {
    fn to_json(&self) -> Json {
        Json::obj([
            ("model", Json::from(&self.model)),
            ("dim", Json::from(self.dim)),
            ("model_dim", Json::from(self.model_dim)),
            ("chunks", Json::from(self.chunks)),
            ("index", self.index.to_json()),
        ])
    }
}

impl EncoderRef {
    fn from_json(v: &Json) -> Result<EncoderRef, String> {
        let f = Fields::of(v, "encoder", None)?;
        let layout = EncoderLayout {
            dim: u32_of(&f, "dim")? as usize,
            rows_per_shard: u32_of(&f, "rows_per_shard")? as usize,
            n_rows: u32_of(&f, "tokens")? as usize,
            n_word_groups: u32_of(&f, "word_groups")? as usize,
            n_continuation_groups: u32_of(&f, "continuation_groups")? as usize,
            group_files: f.str("groups")?,
            row_files: f.str("rows")?,
        };
        Ok(EncoderRef { layout, texts: u32_of(&f, "texts")? })
    }
}

impl ToJson for EncoderRef {
    fn to_json(&self) -> Json {
        let l = &self.layout;
        Json::obj([
            ("dim", Json::from(l.dim)),
            ("rows_per_shard", Json::from(l.rows_per_shard)),
            ("word_groups", Json::from(l.n_word_groups)),
            ("continuation_groups", Json::from(l.n_continuation_groups)),
            ("groups", Json::from(&l.group_files)),
            ("rows", Json::from(&l.row_files)),
            ("tokens", Json::from(l.n_rows)),
            ("texts", Json::from(self.texts)),
        ])
    }
}

impl Manifest {
    fn from_json(v: &Json) -> Result<Manifest, String> {
        let f = Fields::of(v, "manifest", None)?;
        let (term_files, term_shards) = key_store_from_json(f.need("term_store")?, "term store")?;
        let (vocab_files, vocabulary) = key_store_from_json(f.need("vocabulary")?, "vocabulary")?;
        let (doc_files, doc_shards, part_positions) = doc_store_from_json(f.need("doc_store")?)?;
        let startup = f.need("startup")?;
        Ok(Manifest {
            generator: f.str("generator")?,
            doc_count: u32_of(&f, "doc_count")?,
            term_count: f.uint("term_count", u64::MAX)?,
            params: Bm25fParams::from_json(f.need("params")?)?,
            field_tokens: uints(&f, "field_tokens", u64::MAX)?,
            filter_fields: f.list("filter_fields", |x| json::string_in(x, "a filter field"))?,
            startup: ShardRef::from_json(startup)?,
            doc_dictionary: matches!(startup.get("dictionary"), Some(Json::Bool(true))),
            term_files,
            term_shards,
            vocab_files,
            vocabulary,
            doc_files,
            doc_shards,
            part_positions,
            id_shards: f.list("id_shards", KeyRangeShardRef::from_json)?,
            fold_table: f.get("fold_table").map(ShardRef::from_json).transpose()?,
            vectors: f.get("vectors").map(VectorsRef::from_json).transpose()?,
            encoder: f.get("encoder").map(EncoderRef::from_json).transpose()?,
            language: f.opt_str("language")?.unwrap_or_else(|| "en".to_string()),
            stop_words: match f.get("stop_words") {
                Some(_) => f.list("stop_words", |x| json::string_in(x, "a stop word"))?,
                None => Vec::new(),
            },
            languages: match f.get("languages") {
                Some(Json::Obj(members)) => members
                    .iter()
                    .map(|(k, v)| {
                        v.as_str().map(|p| (k.clone(), p.to_string())).ok_or_else(|| "languages must map codes to folders".to_string())
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("languages must be an object".to_string()),
                None => Vec::new(),
            },
        })
    }
}

impl ToJson for Manifest {
    fn to_json(&self) -> Json {
        let mut startup = self.startup.members();
        startup.push(("dictionary", Json::Bool(true), self.doc_dictionary));
        members(vec![
            ("magic", Json::from(MANIFEST_MAGIC), true),
            ("format_version", Json::from(FORMAT_VERSION), true),
            ("generator", Json::from(&self.generator), true),
            ("doc_count", Json::from(self.doc_count), true),
            ("term_count", Json::from(self.term_count), true),
            ("params", self.params.to_json(), true),
            ("field_tokens", Json::from(&self.field_tokens[..]), true),
            ("filter_fields", Json::from(&self.filter_fields[..]), true),
            ("language", Json::from(&self.language), true),
            ("stop_words", Json::from(&self.stop_words[..]), !self.stop_words.is_empty()),
            ("languages", Json::obj(self.languages.iter().map(|(k, v)| (k.as_str(), Json::from(v)))), !self.languages.is_empty()),
            ("startup", members(startup), true),
            ("term_store", key_store_to_json(&self.term_files, &self.term_shards), true),
            ("vocabulary", key_store_to_json(&self.vocab_files, &self.vocabulary), true),
            ("doc_store", doc_store_to_json(&self.doc_files, &self.doc_shards, self.part_positions), true),
            ("id_shards", self.id_shards.to_json(), !self.id_shards.is_empty()),
            ("fold_table", self.fold_table.to_json(), self.fold_table.is_some()),
            ("vectors", self.vectors.to_json(), self.vectors.is_some()),
            ("encoder", self.encoder.to_json(), self.encoder.is_some()),
        ])
    }
}

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

/// A store of key-range shards named by rule (the term store, the vocabulary): each shard's
/// separator, a column.
fn key_store_from_json(v: &Json, what: &str) -> Result<(String, Vec<KeyRangeShardRef>), String> {
    let f = Fields::of(v, what, None)?;
    let files = f.str("files")?;
    let first = f.list("first", |x| json::string_in(x, "a store key"))?;
    let shards = first
        .into_iter()
        .enumerate()
        .map(|(n, first)| KeyRangeShardRef { shard: ShardRef { file: store_file(&files, n), check: None }, first, last: None })
        .collect();
    Ok((files, shards))
}

fn key_store_to_json(files: &str, shards: &[KeyRangeShardRef]) -> Json {
    Json::obj([("files", Json::from(files)), ("first", Json::Arr(shards.iter().map(|t| Json::from(&t.first)).collect()))])
}

/// The doc store as the manifest lists it: `docs` (documents per shard; 0 for a further
/// part of the page the entry before holds a part of), and where parts begin
/// ([`Manifest::part_positions`]).
fn doc_store_from_json(v: &Json) -> Result<(String, Vec<DocShardRef>, Option<u32>), String> {
    let f = Fields::of(v, "doc store", None)?;
    let files = f.str("files")?;
    let docs =
        f.list("docs", |x| json::as_u64(x).and_then(|n| u32::try_from(n).ok()).ok_or_else(|| msg!("doc store docs must be counts")))?;
    let window = f.opt_uint("part_positions", u64::from(u32::MAX))?.map(|p| p as u32);
    let first_pos = grid_positions(&f, &docs, window)?;
    let mut shards: Vec<DocShardRef> = Vec::with_capacity(docs.len());
    let mut next_doc = 0u32;
    for (n, (&count, &pos)) in docs.iter().zip(&first_pos).enumerate() {
        let (first_doc, count) = if count == 0 {
            match shards.last() {
                Some(DocShardRef { first_doc, first_pos: Some(_), .. }) if pos.is_some() => (*first_doc, 1),
                _ => return Err(msg!("doc store has a further part that follows no part")),
            }
        } else {
            let first = next_doc;
            next_doc = next_doc.checked_add(count).ok_or_else(|| msg!("doc count overflow"))?;
            (first, count)
        };
        shards.push(DocShardRef { shard: ShardRef { file: store_file(&files, n), check: None }, first_doc, docs: count, first_pos: pos });
    }
    Ok((files, shards, window))
}

/// Each part's first position from the grid — part `k` of a page at
/// `(k + 1)·P`, plus its listed offset (`part_offsets`: `[entry, offset]` pairs, entries
/// increasing, each a further part, `0 < |offset| < P`).
fn grid_positions(f: &Fields, docs: &[u32], window: Option<u32>) -> Result<Vec<Option<u32>>, String> {
    let offsets = f.list("part_offsets", |x| match x {
        Json::Arr(pair) if pair.len() == 2 => match (json::as_u64(&pair[0]), json::as_i64(&pair[1])) {
            (Some(n), Some(off)) => Ok((n, off)),
            _ => Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window")),
        },
        _ => Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window")),
    })?;
    if docs.first() == Some(&0) {
        return Err(msg!("doc store has a further part that follows no part"));
    }
    let grid = || window.filter(|&p| p > 0).ok_or_else(|| msg!("doc store has parts but no part_positions"));
    let mut first_pos = vec![None; docs.len()];
    let mut k = 0usize; // the part's place in its page
    for n in 0..docs.len() {
        k = if docs[n] == 0 { k + 1 } else { 0 };
        // A page's first part is the entry before a further part.
        if k > 0 || docs.get(n + 1) == Some(&0) {
            first_pos[n] = crate::partition::window_start(k, grid()?);
        }
    }
    let mut last = None;
    for (n, off) in offsets {
        let at = usize::try_from(n).ok().filter(|&n| n < docs.len() && docs[n] == 0 && last.is_none_or(|l| l < n));
        let (Some(at), Some(p)) = (at, window) else {
            return Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window"));
        };
        if off == 0 || off.unsigned_abs() >= u64::from(p) {
            return Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window"));
        }
        first_pos[at] = first_pos[at].and_then(|w| u32::try_from(i64::from(w) + off).ok());
        if first_pos[at].is_none() {
            return Err(msg!("doc store part_offsets must be [entry, offset] pairs naming further parts in order, each within its window"));
        }
        last = Some(at);
    }
    Ok(first_pos)
}

fn doc_store_to_json(files: &str, shards: &[DocShardRef], window: Option<u32>) -> Json {
    let continues = |i: usize| i > 0 && shards[i].continues(&shards[i - 1]);
    let docs = (0..shards.len()).map(|i| Json::from(if continues(i) { 0 } else { shards[i].docs })).collect();
    let mut store = Json::obj([("files", Json::from(files)), ("docs", Json::Arr(docs))]);
    if let Some(p) = window {
        // Each further part's offset from its window (the builder lays parts out so that
        // few have one).
        let mut offsets = Vec::new();
        let mut k = 0usize;
        for i in 0..shards.len() {
            k = if continues(i) { k + 1 } else { 0 };
            let (Some(first), Some(w)) = (shards[i].first_pos, crate::partition::window_start(k, p)) else { continue };
            if k > 0 && first != w {
                offsets.push(Json::Arr(vec![Json::from(i), Json::from(i64::from(first) - i64::from(w))]));
            }
        }
        store.set("part_positions", Json::from(p));
        if !offsets.is_empty() {
            store.set("part_offsets", Json::Arr(offsets));
        }
    }
    store
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_place_is_read_back_from_the_name_store_file_writes_and_from_no_other() {
        for n in [0, 1, 9, 10, 11, 123_456] {
            assert_eq!(store_place("d-ab", &store_file("d-ab", n)), Some(n));
        }
        for bad in [
            "d-ab-01.bin",
            "d-ab-+1.bin",
            "d-ab-.bin",
            "d-ab-1.bin.bin",
            "d-ab1.bin",
            "d-a-1.bin",
            "d-ab-1",
            "d-ab-99999999999999999999999.bin",
        ] {
            assert_eq!(store_place("d-ab", bad), None, "{bad}");
        }
    }

    #[test]
    fn manifest_magic_and_version_checked() {
        assert_eq!(Manifest::parse(b"{}").unwrap_err().code, "bundle_corrupt");
        assert_eq!(Manifest::parse(b"not json").unwrap_err().code, "bundle_corrupt");
        for old in [1, 13, 99] {
            let text = format!(r#"{{"magic":"sift-bundle","format_version":{old}}}"#);
            let e = Manifest::parse(text.as_bytes()).unwrap_err();
            assert_eq!(e.code, "bundle_version");
            assert!(e.message.contains("rebuild it with `sift build`"), "{}", e.message);
        }
        assert!(!is_safe_file_name("../etc/passwd"));
        assert!(is_safe_file_name("t-0123abcd.bin"));
    }
}
