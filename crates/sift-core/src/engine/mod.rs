//! The search engine over a bundle. Pure: the host hands it shard bytes; when a call needs a
//! shard it does not have, it answers `Step::Need(files)` and the host calls again after
//! `add_shard`. The native CLI and the wasm runtime run the same loop ([`Engine::drive`] for
//! Rust hosts; `www/src/host.js` for JavaScript ones).
//!
//! The query path, by IR concept (Query → Weight → Scorer → Collector):
//!
//! | module | job |
//! |---|---|
//! | [`resolve`] | shards and postings on demand; a missing shard halts the step through `?` |
//! | [`plan`] | parsed query → clauses of alternatives (exact term, compound, prefix) |
//! | [`expand`] | a word's prefix completions and fuzzy neighbours, as one idf group |
//! | [`matching`] | which documents an alternative matches (phrases over positions), proximity |
//! | [`score`] | BM25F of a document: one function for ranking and for `explain` |
//! | [`relax`] | the fallback chain (fuzzy → AND → scored OR → fuzzy) and suggestions |
//! | [`fusion`] | query shape, mode weights, semantic hits, score fusion, rank fusion |
//! | [`collect`] | filters, exclusions, recency, sort, pages, facets |
//! | [`present`] | sections, snippet windows, results |
//! | [`lookup`] | `get_document`, `related` |
//! | [`multi`] | `multi_search` |
//! | [`search`] | the pipeline that strings them together |

mod collect;
mod expand;
mod fusion;
mod lookup;
mod matching;
mod multi;
mod plan;
mod present;
mod relax;
mod resolve;
mod score;
mod search;

use crate::bundle::docmeta::DocMeta;
use crate::bundle::docstore::StoredDoc;
use crate::bundle::filters::FilterIndex;
use crate::bundle::ids::IdShard;
use crate::bundle::terms::TermShard;
use crate::bundle::vectors::VectorSet;
use crate::bundle::{self, Manifest, ShardKind, ShardRef};
use crate::contract::{Document, MultiSearchRequest, MultiSearchResponse, SearchRequest, SearchResponse, MAX_HOST_ROUNDS};
use crate::error::{ErrorCode, SiftError};
use crate::rank::NormTable;
use resolve::{Flow, Halt};
use std::collections::HashMap;

pub use fusion::RRF_K;

/// Either the answer, or the shard files the engine needs before it can answer.
#[derive(Debug)]
pub enum Step<T> {
    Done(T),
    Need(Vec<String>),
}

/// Host-supplied context: the engine has no clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    pub now_days: i64,
}

/// One shard of the bundle, by kind and index in the manifest's list of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum ShardId {
    DocMeta,
    Filters,
    Terms(usize),
    Docs(usize),
    Vectors(usize),
    Ids(usize),
}

pub struct Engine {
    manifest: Manifest,
    norms: NormTable,
    docmeta: Option<DocMeta>,
    filters: Option<FilterIndex>,
    term_shards: Vec<Option<TermShard>>,
    doc_shards: Vec<Option<Vec<StoredDoc>>>,
    vector_shards: Vec<Option<VectorSet>>,
    id_shards: Vec<Option<IdShard>>,
    by_file: HashMap<String, ShardId>,
}

fn empty_slots<T>(n: usize) -> Vec<Option<T>> {
    (0..n).map(|_| None).collect()
}

/// A flow's outcome as the public API gives it.
fn step<T>(flow: Flow<T>) -> Result<Step<T>, SiftError> {
    match flow {
        Ok(v) => Ok(Step::Done(v)),
        Err(Halt::Need(files)) => Ok(Step::Need(files)),
        Err(Halt::Fail(e)) => Err(e),
    }
}

impl Engine {
    pub fn new(manifest_bytes: &[u8]) -> Result<Engine, SiftError> {
        let manifest = Manifest::parse(manifest_bytes)?;
        let norms = NormTable::new(&manifest.params, &manifest.avg_field_len);
        let n_vec = manifest.vectors.as_ref().map_or(0, |v| v.shards.len());
        let mut eng = Engine {
            norms,
            docmeta: None,
            filters: None,
            term_shards: empty_slots(manifest.term_shards.len()),
            doc_shards: empty_slots(manifest.doc_shards.len()),
            vector_shards: empty_slots(n_vec),
            id_shards: empty_slots(manifest.id_shards.len()),
            by_file: HashMap::new(),
            manifest,
        };
        let ids: Vec<ShardId> = [ShardId::DocMeta, ShardId::Filters]
            .into_iter()
            .chain((0..eng.term_shards.len()).map(ShardId::Terms))
            .chain((0..eng.doc_shards.len()).map(ShardId::Docs))
            .chain((0..n_vec).map(ShardId::Vectors))
            .chain((0..eng.id_shards.len()).map(ShardId::Ids))
            .collect();
        for id in ids {
            eng.by_file.insert(eng.shard_ref(id).file.clone(), id);
        }
        Ok(eng)
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Every shard file of the bundle (for hosts that load everything up front).
    pub fn all_files(&self) -> Vec<String> {
        self.manifest.all_shards().map(|s| s.file.clone()).collect()
    }

    pub fn is_loaded(&self, file: &str) -> bool {
        self.by_file.get(file).is_some_and(|&id| self.has(id))
    }

    /// The manifest's entry for a shard.
    fn shard_ref(&self, id: ShardId) -> &ShardRef {
        let m = &self.manifest;
        match id {
            ShardId::DocMeta => &m.docmeta,
            ShardId::Filters => &m.filters,
            ShardId::Terms(i) => &m.term_shards[i].shard,
            ShardId::Docs(i) => &m.doc_shards[i].shard,
            ShardId::Vectors(i) => &m.vectors.as_ref().expect("vector shard ids exist only with vectors").shards[i],
            ShardId::Ids(i) => &m.id_shards[i].shard,
        }
    }

    fn has(&self, id: ShardId) -> bool {
        match id {
            ShardId::DocMeta => self.docmeta.is_some(),
            ShardId::Filters => self.filters.is_some(),
            ShardId::Terms(i) => self.term_shards[i].is_some(),
            ShardId::Docs(i) => self.doc_shards[i].is_some(),
            ShardId::Vectors(i) => self.vector_shards[i].is_some(),
            ShardId::Ids(i) => self.id_shards[i].is_some(),
        }
    }

    /// Verify and decode a shard file. A bad shard is refused and not kept.
    pub fn add_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), SiftError> {
        let &id = self.by_file.get(file).ok_or_else(|| SiftError::corrupt(format!("{file} is not a shard of this bundle")))?;
        let n = self.manifest.doc_count;
        let kind = match id {
            ShardId::DocMeta => ShardKind::DocMeta,
            ShardId::Filters => ShardKind::Filters,
            ShardId::Terms(_) => ShardKind::Terms,
            ShardId::Docs(_) => ShardKind::Docs,
            ShardId::Vectors(_) => ShardKind::Vectors,
            ShardId::Ids(_) => ShardKind::Ids,
        };
        let payload = bundle::decode_shard(bytes, kind, self.shard_ref(id))?;
        match id {
            ShardId::DocMeta => self.docmeta = Some(DocMeta::decode(&payload, n)?),
            ShardId::Filters => self.filters = Some(FilterIndex::decode(&payload, n)?),
            ShardId::Terms(i) => self.term_shards[i] = Some(TermShard::decode(payload)?),
            ShardId::Docs(i) => self.doc_shards[i] = Some(StoredDoc::decode(&payload, self.manifest.doc_shards[i].docs)?),
            ShardId::Ids(i) => self.id_shards[i] = Some(IdShard::decode(payload, n)?),
            ShardId::Vectors(i) => {
                let dim = self.manifest.vectors.as_ref().map_or(0, |v| v.dim as usize);
                let set = VectorSet::decode(&payload, n)?;
                if set.dim != dim {
                    return Err(SiftError::corrupt(format!("vector shard {file} has {} dimensions, the manifest says {dim}", set.dim)));
                }
                self.vector_shards[i] = Some(set);
            }
        }
        Ok(())
    }

    /// Run an engine call to completion on a Rust host: whenever it needs shards, `load`
    /// reads each file's bytes (from disk, memory, …) and the call is repeated. At most
    /// `MAX_HOST_ROUNDS` rounds: the engine never needs more.
    pub fn drive<T>(
        &mut self,
        mut call: impl FnMut(&Engine) -> Result<Step<T>, SiftError>,
        mut load: impl FnMut(&str) -> Result<Vec<u8>, SiftError>,
    ) -> Result<T, SiftError> {
        for _ in 0..MAX_HOST_ROUNDS {
            match call(self)? {
                Step::Done(v) => return Ok(v),
                Step::Need(files) => {
                    for f in files {
                        if !self.is_loaded(&f) {
                            let bytes = load(&f)?;
                            self.add_shard(&f, &bytes)?;
                        }
                    }
                }
            }
        }
        Err(SiftError::new(ErrorCode::Internal, "the engine kept asking for shards"))
    }

    /// A request as JSON in: what surfaces without a query vector call.
    pub fn search_json(&self, body: &[u8], ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        let req = SearchRequest::from_json(body)?;
        self.search(&req, ctx)
    }

    /// Whether the bundle has vectors (semantic and hybrid search are possible).
    pub fn has_vectors(&self) -> bool {
        self.manifest.vectors.is_some()
    }

    /// Whether answering `req` uses the query's embedding: the host embeds the query only
    /// then (and passes it to `search_with`).
    pub fn wants_query_vector(&self, req: &SearchRequest) -> bool {
        self.has_vectors() && req.mode.as_deref() != Some("lexical")
    }

    pub fn search(&self, req: &SearchRequest, ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        self.search_with(req, ctx, None)
    }

    /// Search with the query's embedding (made by the bundle's model, L2-normalised) for
    /// semantic, hybrid and auto modes.
    pub fn search_with(&self, req: &SearchRequest, ctx: &Context, query_vector: Option<&[f32]>) -> Result<Step<SearchResponse>, SiftError> {
        let valid = req.validate(&self.manifest.filter_fields, ctx.now_days)?;
        step(search::run(self, &valid, query_vector))
    }

    /// Several queries at once, merged by reciprocal rank fusion and de-duplicated.
    pub fn multi_search(&self, req: &MultiSearchRequest, ctx: &Context) -> Result<Step<MultiSearchResponse>, SiftError> {
        step(multi::run(self, req, ctx))
    }

    /// The document with this id, as the contract shows it (None: no such id).
    pub fn get_document(&self, id: &str) -> Result<Step<Option<Document>>, SiftError> {
        step(lookup::get_document(self, id))
    }

    /// Pages like the page `id`: by meaning when the bundle has vectors (the mean of the
    /// page's chunk vectors, fused with its title and headings as keywords), else by the
    /// title and headings alone. The page itself is left out.
    pub fn related(&self, id: &str, limit: Option<i64>, ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        step(lookup::related(self, id, limit, ctx))
    }

    /// Term shards whose range may hold `term`.
    fn shard_for_term(&self, term: &str) -> Option<usize> {
        key_range_shard(&self.manifest.term_shards, term)
    }

    /// Term shards whose range overlaps the terms starting with `prefix`.
    fn shards_for_prefix(&self, prefix: &str) -> Vec<usize> {
        self.manifest
            .term_shards
            .iter()
            .enumerate()
            .filter(|(_, t)| t.last.as_str() >= prefix && (t.first.as_str() <= prefix || t.first.starts_with(prefix)))
            .map(|(i, _)| i)
            .collect()
    }

    fn doc_shard_of(&self, doc: u32) -> usize {
        self.manifest.doc_shards.partition_point(|d| d.first_doc + d.docs <= doc)
    }
}

/// The shard of a sorted list of key ranges that may hold `key`.
fn key_range_shard(ranges: &[bundle::KeyRangeShardRef], key: &str) -> Option<usize> {
    let i = ranges.partition_point(|t| t.first.as_str() <= key);
    if i == 0 {
        return None;
    }
    (key <= ranges[i - 1].last.as_str()).then_some(i - 1)
}

/// Scores are shown with four decimals.
fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}
