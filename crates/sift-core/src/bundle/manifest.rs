//! `manifest.json`: the bundle's entry point. JSON so that it is readable with standard
//! tools: magic and format version, document and term counts, the BM25F parameters and
//! average field lengths, the filterable fields, and the shard table (file name, size and
//! CRC-32 of every shard as stored; key ranges of term and id shards; doc ranges of
//! doc-store shards; the vector set's model and dimension).

use super::encoder::EncoderLayout;
use super::frame::FORMAT_VERSION;
use crate::error::{ErrorCode, SiftError};
use crate::json::{self, members, Fields, Json, ToJson};
use crate::rank::Bm25fParams;
use crate::text;

pub const MANIFEST_MAGIC: &str = "sift-bundle";
pub const MANIFEST_FILE: &str = "manifest.json";

/// A shard file as the manifest lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardRef {
    pub file: String,
    /// None for the shards of a store named by rule (doc shards from format 5, term shards
    /// from 6: see [`Manifest::doc_files`], [`Manifest::term_files`]).
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

/// A shard holding a sorted range of keys (terms, document ids).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRangeShardRef {
    pub shard: ShardRef,
    /// First and last key of the shard's range (inclusive). No `last` in format 8's term
    /// store: a term shard holds the terms from its `first` to the next shard's, and saying
    /// where each ends cost the manifest every visitor fetches first 1.2 kB of its 7 kB of
    /// gzip (Python docs); a word between two shards' terms now reads the shard before it
    /// to learn it is absent. From format 10 the term store's and the vocabulary's `first` is
    /// a separator (`terms::separator`): the shortest prefix of the shard's first key above
    /// the shard before's last, so the column says where each shard starts in fewer bytes.
    pub first: String,
    pub last: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DocShardRef {
    pub shard: ShardRef,
    pub first_doc: u32,
    pub docs: u32,
    /// Format 4: set when the shard holds one *part* of a long page — a run of its
    /// consecutive sections — and says where that run's first section starts in the page's
    /// position space. A page's parts are consecutive entries of one `first_doc`, so the
    /// engine can pick the part a result's snippet comes from before fetching it.
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
    /// Dimensions of the stored vectors (format 2: the projection's; format 1: the model's).
    pub dim: u32,
    pub chunks: u32,
    /// Format 1: the vector shards (kind 5), chunk ranges in order.
    pub shards: Vec<ShardRef>,
    /// Format 2: the vector index (kind 8: lists, centroids, projection).
    pub index: Option<ShardRef>,
    /// Format 2: dimensions of the model's own vectors (what a host that embeds queries
    /// with the model passes; the projection maps them to `dim`).
    pub model_dim: Option<u32>,
}

impl VectorsRef {
    /// Dimensions of a query vector made by the model.
    pub fn model_dim(&self) -> u32 {
        self.model_dim.unwrap_or(self.dim)
    }
}

/// The static query encoder (format 2).
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderRef {
    /// Formats 2–9: the encoder index shard (kind 10: vocabulary and row shards).
    pub index: Option<ShardRef>,
    /// Format 10: the index itself, its vocabulary groups and row shards named by rule
    /// (see [`super::encoder`]): a semantic query reads no index shard for it.
    pub layout: Option<EncoderLayout>,
    /// Tokens with a row.
    pub tokens: u32,
    /// Corpus texts it was fitted to.
    pub texts: u32,
}

#[derive(Debug, Clone, PartialEq)]
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
    /// Scoring data and the filter index. From format 9 both are sections of the startup
    /// shard, and these name it.
    pub docmeta: ShardRef,
    pub filters: ShardRef,
    /// Format 9: the startup shard ([`super::startup`]): the doc metadata, the filters and
    /// the doc store's dictionary in one file, which every search reads in its first round.
    /// `docmeta`, `filters` and (when the store has one) `doc_dictionary` are then this
    /// shard; the manifest lists it once, as `startup` (with `dictionary: true` when it
    /// holds one).
    pub startup: Option<ShardRef>,
    pub term_shards: Vec<KeyRangeShardRef>,
    /// Format 6: the term shards are named by rule like the doc shards, `<term_files>-<n>.bin`,
    /// and listed as two columns of their key ranges, `term_store: {files, first, last}`,
    /// without a size and checksum each. Why: small term shards cut the bytes a query reads
    /// (one shard a word), and each listed by name and checksum cost the manifest every
    /// visitor fetches first 34 bytes of gzip. A term shard's payload checksum refuses
    /// corruption, and its own first and last terms must be the range the manifest gives it
    /// (one served under another's name is refused).
    pub term_files: Option<String>,
    /// The vocabulary ([`super::vocabulary`]: every term with its document frequency, whole
    /// first letters a shard), what typo tolerance reads instead of a letter's term shards.
    /// Optional within format 9 (a runtime that predates it ignores the member): its shards
    /// are named by rule, `<vocab_files>-<n>.bin`, and listed by their first terms,
    /// `vocabulary: {files, first}` — a few hundred bytes of manifest.
    pub vocabulary: Vec<KeyRangeShardRef>,
    pub vocab_files: Option<String>,
    pub doc_shards: Vec<DocShardRef>,
    /// Format 5: the doc shards are named by rule, `<doc_files>-<n>.bin` for the n-th
    /// (`doc_files` is `d-` and a hash of them all, so a rebuild renames them), and listed
    /// as two columns, `doc_store: {files, docs, first_pos}`, without a size and checksum
    /// each: a name carries its build, and a shard's payload checksum refuses corruption.
    /// Why: with long pages in parts a docs site has thousands of doc shards, and their
    /// names and checksums were four fifths of the manifest every visitor fetches first.
    pub doc_files: Option<String>,
    /// Format 12: a long page's parts lie on a grid of this many positions (its title and
    /// path below it, part `k` from `(k + 1)·P`, see [`super::partition`]), so `doc_store`
    /// lists no `first_pos` column: each part's is derived, and only the parts that begin
    /// off their window say by how much (`part_offsets: [[entry, offset], ...]`). None when
    /// no page is in parts, and in earlier formats.
    pub part_positions: Option<u32>,
    /// Format 7: the doc store's preset dictionary (kind 13), listed in `doc_store` with its
    /// size and checksum; the doc shards are compressed after it (codec 2). Absent for a
    /// store too small to share much (see [`super::dictionary`]).
    pub doc_dictionary: Option<ShardRef>,
    /// Document id → doc number, in id ranges (absent in bundles written before it existed:
    /// then lookups by id scan the document store).
    pub id_shards: Vec<KeyRangeShardRef>,
    /// Format 8: the analyzer's folding table for the rare Unicode blocks (kind 14; see
    /// [`crate::decompose`]), which the browser runtimes do not compile in.
    pub fold_table: Option<ShardRef>,
    /// Present when the bundle was built with an embedder.
    pub vectors: Option<VectorsRef>,
    /// Present when the bundle was built with a static query encoder.
    pub encoder: Option<EncoderRef>,
}

impl Manifest {
    /// Parse and validate a manifest: magic, version and internal consistency.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, SiftError> {
        let v = json::parse(bytes).map_err(|e| SiftError::corrupt(msg!("manifest.json is not valid JSON: {e}")))?;
        if v.get("magic").and_then(|m| m.as_str()) != Some(MANIFEST_MAGIC) {
            return Err(SiftError::corrupt("manifest.json is not a Sift bundle manifest (wrong magic)"));
        }
        let ver = v.get("format_version").and_then(json::as_u64).unwrap_or(0);
        if !(1..=u64::from(FORMAT_VERSION)).contains(&ver) {
            return Err(SiftError::new(
                ErrorCode::BundleVersion,
                msg!("bundle format version {ver} is not supported (this build reads versions 1 to {FORMAT_VERSION}); rebuild the bundle with this version of sift"),
            ));
        }
        if ver != u64::from(FORMAT_VERSION) && !super::READS_OLDER_FORMATS {
            let (ver, reads) = (text::uint(ver), text::uint(u64::from(FORMAT_VERSION)));
            let what =
                ["A bundle of format ", &ver, " (this engine reads format ", &reads, "; rebuilding the bundle lets it load)"].concat();
            return Err(SiftError::full_runtime_required(&what));
        }
        let m = Manifest::from_json(&v).map_err(|e| SiftError::corrupt(msg!("manifest.json is malformed: {e}")))?;
        m.validate()?;
        Ok(m)
    }

    /// The oldest format that describes this bundle: 12 when its long pages' parts lie on a
    /// grid of positions, 10 when its encoder's stores are named by rule, 9 when it has a startup shard, 8 when it carries the rare blocks' fold
    /// table, 7 when the doc store has a dictionary,
    /// 6 when the term shards are named by rule, 5 when the doc shards are, 4 when a long page is stored in parts,
    /// 2 when it uses the format-2 vector layout or a static encoder, else 1 (so keyword
    /// bundles stay readable by older runtimes).
    pub fn required_version(&self) -> u16 {
        let v2 = self.encoder.is_some() || self.vectors.as_ref().is_some_and(|v| v.index.is_some());
        if self.part_positions.is_some() {
            12
        } else if self.encoder.as_ref().is_some_and(|e| e.layout.is_some()) {
            10
        } else if self.startup.is_some() {
            9
        } else if self.fold_table.is_some() {
            8
        } else if self.doc_dictionary.is_some() {
            7
        } else if self.term_files.is_some() {
            6
        } else if self.doc_files.is_some() {
            5
        } else if self.doc_shards.iter().any(|d| d.first_pos.is_some()) {
            4
        } else if v2 {
            2
        } else {
            1
        }
    }

    fn validate(&self) -> Result<(), SiftError> {
        if self.format_version < self.required_version() {
            return Err(SiftError::corrupt(msg!(
                "manifest needs format {} (its layout) but says format {}",
                self.required_version(),
                self.format_version
            )));
        }
        if let Some(v) = &self.vectors {
            if v.shards.is_empty() == v.index.is_none() {
                return Err(SiftError::corrupt("manifest vectors need either shards (format 1) or an index (format 2)"));
            }
        }
        if let Some(e) = &self.encoder {
            let Some(v) = self.vectors.as_ref().filter(|v| v.index.is_some()) else {
                return Err(SiftError::corrupt("manifest has a query encoder but no format-2 vectors"));
            };
            match (&e.index, &e.layout) {
                (Some(_), None) if !super::has_format(self.format_version, 10) => {}
                (None, Some(layout)) => {
                    layout.check()?;
                    if layout.dim != v.dim as usize {
                        return Err(SiftError::corrupt("manifest encoder's dimensions differ from the vectors'"));
                    }
                    for stem in [&layout.group_files, &layout.row_files] {
                        if !is_safe_file_name(stem) {
                            return Err(SiftError::corrupt(msg!("manifest names an unsafe shard file {}", crate::error::Quoted(stem))));
                        }
                    }
                }
                _ => return Err(SiftError::corrupt("manifest encoder needs an index shard (formats 2 to 9) or its layout (format 10)")),
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
                    return Err(SiftError::corrupt(msg!("manifest {what} shards are not in order")));
                }
            }
        }
        for f in self.all_shards() {
            if !is_safe_file_name(&f.file) {
                return Err(SiftError::corrupt(msg!("manifest names an unsafe shard file {}", crate::error::Quoted(&f.file))));
            }
        }
        Ok(())
    }

    /// Every shard the manifest names (format 2 index shards name further shards).
    /// Every shard the manifest lists: the keyword ones, then the semantic half's.
    pub fn all_shards(&self) -> impl Iterator<Item = &ShardRef> {
        self.keyword_shards()
            .chain(self.vectors.iter().flat_map(|v| v.shards.iter().chain(v.index.iter())))
            .chain(self.encoder.iter().flat_map(|e| e.index.iter()))
    }

    /// The shards a search by words reads: scoring data, filters, the fold table, the doc store's
    /// dictionary (before the doc shards it is needed for), terms, documents, ids.
    /// Each file once: with a startup shard, that one file for the first three.
    pub fn keyword_shards(&self) -> impl Iterator<Item = &ShardRef> {
        let separate = self.startup.is_none();
        self.startup
            .iter()
            .chain([&self.docmeta, &self.filters].into_iter().filter(move |_| separate))
            .chain(self.fold_table.iter())
            .chain(self.doc_dictionary.iter().filter(move |_| separate))
            .chain(self.term_shards.iter().map(|t| &t.shard))
            .chain(self.vocabulary.iter().map(|t| &t.shard))
            .chain(self.doc_shards.iter().map(|d| &d.shard))
            .chain(self.id_shards.iter().map(|t| &t.shard))
    }

    /// List `shard` as the startup shard (a re-framed copy of it: new size and checksum)
    /// everywhere the manifest names it: the doc metadata, the filters and, when the store
    /// has one, the dictionary.
    pub fn list_startup(&mut self, shard: ShardRef) {
        self.docmeta = shard.clone();
        self.filters = shard.clone();
        if self.doc_dictionary.is_some() {
            self.doc_dictionary = Some(shard.clone());
        }
        self.startup = Some(shard);
    }

    /// The manifest as written: compact JSON, every visitor's first fetch (Python docs:
    /// 7.1 kB gzip, 7.9 kB pretty-printed; `jq .` reads it).
    pub fn to_json_bytes(&self) -> Vec<u8> {
        let mut b = self.to_json().to_text().into_bytes();
        b.push(b'\n');
        b
    }
}

// Reading and writing. Members a newer build adds are ignored (its format version says
// whether this runtime may read the bundle at all); optional members are written only when
// present, as the bundle has always had them.

fn u32_of(f: &Fields, name: &str) -> Result<u32, String> {
    f.uint(name, u64::from(u32::MAX)).map(|v| v as u32)
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

impl DocShardRef {
    fn from_json(v: &Json) -> Result<DocShardRef, String> {
        let f = Fields::of(v, "doc shard", None)?;
        let first_pos = f.opt_uint("first_pos", u64::from(u32::MAX))?.map(|p| p as u32);
        Ok(DocShardRef { shard: ShardRef::from_fields(&f)?, first_doc: u32_of(&f, "first_doc")?, docs: u32_of(&f, "docs")?, first_pos })
    }
}

impl ToJson for DocShardRef {
    fn to_json(&self) -> Json {
        let mut m = self.shard.members();
        m.extend([
            ("first_doc", Json::from(self.first_doc), true),
            ("docs", Json::from(self.docs), true),
            ("first_pos", Json::from(self.first_pos.unwrap_or(0)), self.first_pos.is_some()),
        ]);
        members(m)
    }
}

impl VectorsRef {
    fn from_json(v: &Json) -> Result<VectorsRef, String> {
        let f = Fields::of(v, "vectors", None)?;
        Ok(VectorsRef {
            model: f.str("model")?,
            dim: u32_of(&f, "dim")?,
            chunks: u32_of(&f, "chunks")?,
            shards: f.list("shards", ShardRef::from_json)?,
            index: f.get("index").map(ShardRef::from_json).transpose()?,
            model_dim: f.opt_uint("model_dim", u64::from(u32::MAX))?.map(|d| d as u32),
        })
    }
}

impl ToJson for VectorsRef {
    fn to_json(&self) -> Json {
        members(vec![
            ("model", Json::from(&self.model), true),
            ("dim", Json::from(self.dim), true),
            ("chunks", Json::from(self.chunks), true),
            ("shards", self.shards.to_json(), !self.shards.is_empty()),
            ("index", self.index.to_json(), self.index.is_some()),
            ("model_dim", Json::from(self.model_dim), self.model_dim.is_some()),
        ])
    }
}

impl EncoderRef {
    fn from_json(v: &Json) -> Result<EncoderRef, String> {
        let f = Fields::of(v, "encoder", None)?;
        let tokens = u32_of(&f, "tokens")?;
        // Format 10 names its two stores; older formats name the index shard.
        let layout = match f.get("rows") {
            Some(_) => Some(EncoderLayout {
                dim: u32_of(&f, "dim")? as usize,
                rows_per_shard: u32_of(&f, "rows_per_shard")? as usize,
                n_rows: tokens as usize,
                n_word_groups: u32_of(&f, "word_groups")? as usize,
                group_files: f.str("groups")?,
                row_files: f.str("rows")?,
            }),
            None => None,
        };
        let index = if layout.is_some() { None } else { Some(ShardRef::from_json(f.need("index")?)?) };
        Ok(EncoderRef { index, layout, tokens, texts: u32_of(&f, "texts")? })
    }
}

impl ToJson for EncoderRef {
    fn to_json(&self) -> Json {
        let l = self.layout.as_ref();
        members(vec![
            ("index", self.index.to_json(), self.index.is_some()),
            ("dim", Json::from(l.map_or(0, |l| l.dim as u64)), l.is_some()),
            ("rows_per_shard", Json::from(l.map_or(0, |l| l.rows_per_shard as u64)), l.is_some()),
            ("word_groups", Json::from(l.map_or(0, |l| l.n_word_groups as u64)), l.is_some()),
            ("groups", Json::from(l.map(|l| l.group_files.clone())), l.is_some()),
            ("rows", Json::from(l.map(|l| l.row_files.clone())), l.is_some()),
            ("tokens", Json::from(self.tokens), true),
            ("texts", Json::from(self.texts), true),
        ])
    }
}

impl Manifest {
    fn from_json(v: &Json) -> Result<Manifest, String> {
        let f = Fields::of(v, "manifest", None)?;
        f.need("filter_fields")?;
        let version = f.uint("format_version", u64::from(u16::MAX))?;
        // `term_store`, `doc_store` and `startup`: every bundle of the current format has
        // them; older formats listed other fields instead, which an engine reading only the
        // current format does not look for (nor compile the reading of).
        let (term_files, term_shards) = match f.get("term_store") {
            Some(store) => {
                let (files, shards) = key_store_from_json(store, "term store", version)?;
                (Some(files), shards)
            }
            None if super::READS_OLDER_FORMATS => {
                f.need("term_shards")?;
                (None, f.list("term_shards", KeyRangeShardRef::from_json)?)
            }
            None => return Err(f.missing("term_store")),
        };
        let (vocab_files, vocabulary) = match f.get("vocabulary") {
            Some(store) => {
                let (files, shards) = key_store_from_json(store, "vocabulary", 8)?;
                (Some(files), shards)
            }
            None => (None, Vec::new()),
        };
        let (doc_files, doc_shards, mut doc_dictionary, part_positions) = match f.get("doc_store") {
            Some(store) => {
                let (files, shards, dictionary, window) = doc_store_from_json(store, version)?;
                (Some(files), shards, dictionary, window)
            }
            None if super::READS_OLDER_FORMATS => (None, f.list("doc_shards", DocShardRef::from_json)?, None, None),
            None => return Err(f.missing("doc_store")),
        };
        // Format 9: one startup shard stands for the doc metadata, the filters and the
        // dictionary, which are then not listed on their own.
        let (startup, docmeta, filters) = match f.get("startup") {
            Some(v) => {
                let shard = ShardRef::from_json(v)?;
                // (A `docmeta`, `filters` or doc-store `dictionary` beside it is not read.)
                doc_dictionary = matches!(v.get("dictionary"), Some(Json::Bool(true))).then(|| shard.clone());
                (Some(shard.clone()), shard.clone(), shard)
            }
            None if super::READS_OLDER_FORMATS => {
                (None, ShardRef::from_json(f.need("docmeta")?)?, ShardRef::from_json(f.need("filters")?)?)
            }
            None => return Err(f.missing("startup")),
        };
        Ok(Manifest {
            magic: f.str("magic")?,
            format_version: f.uint("format_version", u64::from(u16::MAX))? as u16,
            generator: f.str("generator")?,
            doc_count: u32_of(&f, "doc_count")?,
            term_count: f.uint("term_count", u64::MAX)?,
            params: Bm25fParams::from_json(f.need("params")?)?,
            avg_field_len: crate::rank::f32_array(&f, "avg_field_len")?,
            filter_fields: f.list("filter_fields", |x| json::string_in(x, "a filter field"))?,
            docmeta,
            filters,
            startup,
            term_shards,
            term_files,
            vocabulary,
            vocab_files,
            doc_shards,
            doc_files,
            part_positions,
            doc_dictionary,
            id_shards: f.list("id_shards", KeyRangeShardRef::from_json)?,
            fold_table: f.get("fold_table").map(ShardRef::from_json).transpose()?,
            vectors: f.get("vectors").map(VectorsRef::from_json).transpose()?,
            encoder: f.get("encoder").map(EncoderRef::from_json).transpose()?,
        })
    }
}

impl ToJson for Manifest {
    fn to_json(&self) -> Json {
        members(vec![
            ("magic", Json::from(&self.magic), true),
            ("format_version", Json::from(self.format_version), true),
            ("generator", Json::from(&self.generator), true),
            ("doc_count", Json::from(self.doc_count), true),
            ("term_count", Json::from(self.term_count), true),
            ("params", self.params.to_json(), true),
            ("avg_field_len", Json::from(&self.avg_field_len[..]), true),
            ("filter_fields", Json::from(&self.filter_fields[..]), true),
            ("docmeta", self.docmeta.to_json(), self.startup.is_none()),
            ("filters", self.filters.to_json(), self.startup.is_none()),
            (
                "startup",
                self.startup.as_ref().map_or(Json::Null, |s| {
                    let mut m = s.members();
                    m.push(("dictionary", Json::Bool(true), self.doc_dictionary.is_some()));
                    members(m)
                }),
                self.startup.is_some(),
            ),
            ("term_shards", self.term_shards.to_json(), self.term_files.is_none()),
            (
                "term_store",
                self.term_files.as_deref().map_or(Json::Null, |files| key_store_to_json(files, &self.term_shards, self.format_version)),
                self.term_files.is_some(),
            ),
            (
                "vocabulary",
                self.vocab_files.as_deref().map_or(Json::Null, |files| key_store_to_json(files, &self.vocabulary, 8)),
                self.vocab_files.is_some(),
            ),
            ("doc_shards", self.doc_shards.to_json(), self.doc_files.is_none()),
            (
                "doc_store",
                self.doc_files.as_deref().map_or(Json::Null, |files| {
                    let dictionary = self.doc_dictionary.as_ref().filter(|_| self.startup.is_none());
                    doc_store_to_json(files, &self.doc_shards, dictionary, self.format_version, self.part_positions)
                }),
                self.doc_files.is_some(),
            ),
            ("id_shards", self.id_shards.to_json(), !self.id_shards.is_empty()),
            ("fold_table", self.fold_table.to_json(), self.fold_table.is_some()),
            ("vectors", self.vectors.to_json(), self.vectors.is_some()),
            ("encoder", self.encoder.to_json(), self.encoder.is_some()),
        ])
    }
}

/// The n-th shard of a store named by rule (doc shards from format 5, term shards from 6):
/// `files` is the kind's prefix and a hash of the whole store.
pub fn store_file(files: &str, n: usize) -> String {
    [files, "-", &text::uint(n as u64), ".bin"].concat()
}

/// A store of key-range shards named by rule (format 6's term store; the vocabulary): each
/// shard's first and last key, a column each; from format 8 the first keys only (see
/// [`KeyRangeShardRef::last`]).
fn key_store_from_json(v: &Json, what: &str, version: u64) -> Result<(String, Vec<KeyRangeShardRef>), String> {
    let f = Fields::of(v, what, None)?;
    let files = f.str("files")?;
    let term = |x: &Json| json::string_in(x, "a store key");
    let first = f.list("first", term)?;
    let last: Vec<Option<String>> = match (super::has_format(version, 8), f.get("last")) {
        (true, None) => vec![None; first.len()],
        (false, Some(_)) => f.list("last", term)?.into_iter().map(Some).collect(),
        (true, Some(_)) => return Err(msg!("a format-8 {what} lists no last keys")),
        (false, None) => return Err(msg!("{what}: missing field \"last\"")),
    };
    if first.len() != last.len() {
        return Err(msg!("{what} columns differ in length"));
    }
    let shards = first
        .into_iter()
        .zip(last)
        .enumerate()
        .map(|(n, (first, last))| KeyRangeShardRef { shard: ShardRef { file: store_file(&files, n), check: None }, first, last })
        .collect();
    Ok((files, shards))
}

fn key_store_to_json(files: &str, shards: &[KeyRangeShardRef], version: u16) -> Json {
    let mut store = Json::obj([("files", Json::from(files)), ("first", Json::Arr(shards.iter().map(|t| Json::from(&t.first)).collect()))]);
    if version < 8 {
        store.set("last", Json::Arr(shards.iter().map(|t| Json::from(t.last.clone())).collect()));
    }
    store
}

/// A doc store as the manifest lists it: the files' stem, the shards, the dictionary (formats
/// 7 and 8) and `part_positions` (format 12).
type DocStore = (String, Vec<DocShardRef>, Option<ShardRef>, Option<u32>);

/// Format 5's doc store: `docs` (documents per shard; 0 for a further part of the page the
/// entry before holds a part of) and `first_pos` (a part's first position, null for a shard
/// of whole pages), a column each, so the manifest grows by a few bytes a shard. From format
/// 8 a further part's `first_pos` is counted from the part before it (smaller numbers:
/// 0.5 kB less gzip on the Python docs). From format 12 there is no `first_pos` column:
/// `part_positions` and `part_offsets` say where parts begin ([`Manifest::part_positions`]).
fn doc_store_from_json(v: &Json, version: u64) -> Result<DocStore, String> {
    let f = Fields::of(v, "doc store", None)?;
    let files = f.str("files")?;
    let dictionary = f.get("dictionary").map(ShardRef::from_json).transpose()?;
    let docs =
        f.list("docs", |x| json::as_u64(x).and_then(|n| u32::try_from(n).ok()).ok_or_else(|| msg!("doc store docs must be counts")))?;
    let window = f.opt_uint("part_positions", u64::from(u32::MAX))?.map(|p| p as u32);
    // (A manifest that says an older format than its layout is refused by `validate`,
    // which needs it read first: the grid is read whatever the version says, and a store
    // without parts needs no `first_pos` column.)
    // `deltas`: format 8 to 11's column counts a further part from the one before it.
    let (first_pos, deltas) = if super::has_format(version, 12) || window.is_some() {
        (grid_positions(&f, &docs, window)?, false)
    } else if f.get("first_pos").is_none() && !docs.contains(&0) {
        (vec![None; docs.len()], false)
    } else {
        let column = f.list("first_pos", |x| match x {
            Json::Null => Ok(None),
            x => json::as_u64(x)
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| msg!("doc store first_pos must be positions or null")),
        })?;
        (column, super::has_format(version, 8))
    };
    if docs.len() != first_pos.len() {
        return Err(msg!("doc store columns differ in length"));
    }
    let mut shards: Vec<DocShardRef> = Vec::with_capacity(docs.len());
    let mut next_doc = 0u32;
    for (n, (&count, &pos)) in docs.iter().zip(&first_pos).enumerate() {
        let (first_doc, count, pos) = if count == 0 {
            match shards.last() {
                Some(DocShardRef { first_doc, first_pos: Some(prev), .. }) if pos.is_some() => {
                    let pos = if deltas { pos.and_then(|d| prev.checked_add(d)) } else { pos };
                    (*first_doc, 1, Some(pos.ok_or_else(|| msg!("doc store part position overflow"))?))
                }
                _ => return Err(msg!("doc store has a further part that follows no part")),
            }
        } else {
            let first = next_doc;
            next_doc = next_doc.checked_add(count).ok_or_else(|| msg!("doc count overflow"))?;
            (first, count, pos)
        };
        shards.push(DocShardRef { shard: ShardRef { file: store_file(&files, n), check: None }, first_doc, docs: count, first_pos: pos });
    }
    Ok((files, shards, dictionary, window))
}

/// Format 12: each part's first position from the grid — part `k` of a page at
/// `(k + 1)·P`, plus its listed offset (`part_offsets`: `[entry, offset]` pairs, entries
/// increasing, each a further part, `0 < |offset| < P`).
fn grid_positions(f: &Fields, docs: &[u32], window: Option<u32>) -> Result<Vec<Option<u32>>, String> {
    let offsets = f.list("part_offsets", |x| match x {
        Json::Arr(pair) if pair.len() == 2 => match (json::as_u64(&pair[0]), json::as_i64(&pair[1])) {
            (Some(n), Some(off)) => Ok((n, off)),
            _ => Err(msg!("doc store part_offsets must be [entry, offset] pairs of integers")),
        },
        _ => Err(msg!("doc store part_offsets must be [entry, offset] pairs")),
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
            first_pos[n] = crate::bundle::partition::window_start(k, grid()?);
        }
    }
    let mut last = None;
    for (n, off) in offsets {
        let at = usize::try_from(n).ok().filter(|&n| n < docs.len() && docs[n] == 0 && last.is_none_or(|l| l < n));
        let (Some(at), Some(p)) = (at, window) else {
            return Err(msg!("doc store part_offsets must name further parts, in order"));
        };
        if off == 0 || off.unsigned_abs() >= u64::from(p) {
            return Err(msg!("doc store part offsets must be nonzero and within a window"));
        }
        first_pos[at] = first_pos[at].and_then(|w| u32::try_from(i64::from(w) + off).ok());
        if first_pos[at].is_none() {
            return Err(msg!("doc store part position overflow"));
        }
        last = Some(at);
    }
    Ok(first_pos)
}

fn doc_store_to_json(files: &str, shards: &[DocShardRef], dictionary: Option<&ShardRef>, version: u16, window: Option<u32>) -> Json {
    let continues = |i: usize| i > 0 && shards[i].continues(&shards[i - 1]);
    let docs = (0..shards.len()).map(|i| Json::from(if continues(i) { 0 } else { shards[i].docs })).collect();
    let mut store = Json::obj([("files", Json::from(files)), ("docs", Json::Arr(docs))]);
    if version >= 12 {
        if let Some(p) = window {
            // Each further part's offset from its window (the builder lays parts out so
            // that few have one).
            let mut offsets = Vec::new();
            let mut k = 0usize;
            for i in 0..shards.len() {
                k = if continues(i) { k + 1 } else { 0 };
                let (Some(first), Some(w)) = (shards[i].first_pos, crate::bundle::partition::window_start(k, p)) else { continue };
                if k > 0 && first != w {
                    offsets.push(Json::Arr(vec![Json::from(i), Json::from(i64::from(first) - i64::from(w))]));
                }
            }
            store.set("part_positions", Json::from(p));
            if !offsets.is_empty() {
                store.set("part_offsets", Json::Arr(offsets));
            }
        }
    } else {
        let first_pos = (0..shards.len())
            .map(|i| match (shards[i].first_pos, continues(i).then(|| shards[i - 1].first_pos).flatten()) {
                (Some(p), Some(prev)) if version >= 8 => Json::from(p.saturating_sub(prev)),
                (p, _) => p.map_or(Json::Null, Json::from),
            })
            .collect();
        store.set("first_pos", Json::Arr(first_pos));
    }
    if let Some(d) = dictionary {
        store.set("dictionary", d.to_json());
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
    fn manifest_magic_and_version_checked() {
        assert_eq!(Manifest::parse(b"{}").unwrap_err().code, "bundle_corrupt");
        assert_eq!(Manifest::parse(b"not json").unwrap_err().code, "bundle_corrupt");
        let e = Manifest::parse(br#"{"magic":"sift-bundle","format_version":99}"#).unwrap_err();
        assert_eq!(e.code, "bundle_version");
        assert!(!is_safe_file_name("../etc/passwd"));
        assert!(is_safe_file_name("t-0123abcd.bin"));
    }
}
