//! Sift's search engine: a query against a bundle, answered as the JSON contract says. Pure:
//! the host hands it shard bytes; when a call needs a shard it does not have, it answers
//! `Step::Need(files)` and the host calls again after `add_shard`. The native CLI and the
//! wasm runtime run the same loop ([`Engine::drive`] for Rust hosts; `www/src/host.js` for
//! JavaScript ones).
//!
//! The query path, by IR concept (Query → Weight → Scorer → Collector):
//!
//! | module | job |
//! |---|---|
//! | [`shards`] | the registry of the bundle's shard files, and each one's decoder |
//! | [`resolve`] | shards and postings on demand; a missing shard halts the step through `?` |
//! | [`query`] | the query syntax: words, phrases, `-exclusions`, `OR`, `field:value` |
//! | [`plan`] | parsed query → clauses of alternatives (exact term, compound, prefix) |
//! | [`definition`] | an identifier query's definitions (API entries), ranked first |
//! | [`expand`] | a word's prefix completions and fuzzy neighbours, as one idf group |
//! | [`matching`] | which documents an alternative matches (phrases over positions), proximity |
//! | [`score`] | BM25F of a document ([`rank`]): one function for ranking and for `explain` |
//! | [`relax`] | the fallback chain (fuzzy → AND → scored OR → fuzzy) and suggestions |
//! | [`meaning`] | the query's vector (static encoder or the host's) and the semantic hits |
//! | [`fusion`] | query shape, mode weights, score fusion, rank fusion |
//! | [`feedback`] | relevance feedback for paragraph-like queries |
//! | [`collect`] | filters, exclusions, recency, sort, pages, facets |
//! | [`present`] | sections, snippet windows ([`snippet`]), results |
//! | [`lookup`] | `get_document`, `related` |
//! | [`multi`] | `multi_search` |
//! | [`search`] | the pipeline that strings them together |
//! | [`params`] | every ranking parameter, with its default |
//!
//! [`contract`] holds the requests and responses every surface speaks.

#[macro_use]
extern crate sift_base;

pub mod agent;
mod collect;
pub mod contract;
mod definition;
mod delta;
mod expand;
mod feedback;
mod fusion;
pub mod fuzzy;
mod lookup;
mod matching;
mod meaning;
mod multi;
pub mod params;
mod plan;
mod present;
pub mod query;
pub mod rank;
mod relax;
mod resolve;
mod score;
mod search;
mod shards;
pub mod snippet;

use crate::contract::MAX_HOST_ROUNDS;
use crate::rank::NormTable;
use resolve::{Flow, Halt};
use shards::{slots, DocShard, Registry, ShardId, Startup};
use sift_base::error::ErrorCode;
pub use sift_base::error::SiftError;
use sift_base::hashing::HashMap;
use sift_format::encoder::{EncoderIndex, EncoderRows, VocabGroup};
use sift_format::ids::IdShard;
use sift_format::terms::{PostingList, TermShard};
use sift_format::vectors::VectorSet;
use sift_format::vindex::Projection;
use sift_format::vindex::VectorIndex;
use sift_format::vocabulary::VocabShard;
use sift_format::Manifest;
use sift_text::analyzer::Analyzer;
use std::sync::{Arc, Mutex};

pub use contract::{Document, MultiSearchRequest, MultiSearchResponse, SearchRequest, SearchResponse};
pub use params::RankingParams;

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

/// Decoded posting lists kept across calls (a search takes several host rounds, each of
/// which would decode its terms again), up to this many terms; past it the cache starts
/// over, so an engine serving many queries does not grow without bound.
const POSTINGS_KEPT: usize = 4096;

pub struct Engine {
    manifest: Manifest,
    norms: NormTable,
    registry: Registry,
    startup: Option<Startup>,
    terms: Vec<Option<TermShard>>,
    vocabulary: Vec<Option<VocabShard>>,
    docs: Vec<Option<DocShard>>,
    ids: Vec<Option<IdShard>>,
    vector_index: Option<VectorIndex>,
    /// Each loaded group's list centroids (`lists × dim`).
    list_groups: Vec<Option<Vec<f32>>>,
    vector_lists: Vec<Option<VectorSet>>,
    projection: Option<Projection>,
    /// The static encoder's index (the manifest's), and its loaded groups and rows.
    encoder_index: Option<EncoderIndex>,
    encoder_vocab: Vec<Option<VocabGroup>>,
    encoder_rows: Vec<Option<EncoderRows>>,
    /// How the engine weighs what it finds (`params`): the defaults, unless a native host
    /// tries others.
    params: RankingParams,
    /// Term → its decoded postings (None: not in the dictionary).
    postings: Mutex<HashMap<String, Option<Arc<PostingList>>>>,
    /// The bundle's analysis (its language), which queries go through too.
    analyzer: Analyzer,
    /// The last search, ranked and waiting for its page's documents (`search::run`).
    ranked: Mutex<Option<search::Ranked>>,
    /// The pages changed since the bundle was built, searched with it (`delta`).
    delta: Option<Box<delta::Delta>>,
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
        Engine::from_manifest(Manifest::parse(manifest_bytes)?)
    }

    /// An engine over a manifest already read (and checked: `Manifest::parse`). The
    /// delta, if any, moves out of it into the engine that searches it.
    pub fn from_manifest(mut m: Manifest) -> Result<Engine, SiftError> {
        let delta = match m.delta.take() {
            Some(d) => {
                let (prefix, engine) = match d.bundle {
                    Some((folder, dm)) => (folder + "/", Some(Engine::from_manifest(*dm)?)),
                    None => (String::new(), None),
                };
                let vectors = d.vectors.map(|r| (r, None));
                Some(Box::new(delta::Delta { engine, prefix, first_doc: m.doc_count, removed: d.removed, merged: false, vectors }))
            }
            None => None,
        };
        let analyzer = Analyzer::new(&m.language, &m.stop_words).map_err(|e| {
            let msg = msg!("the bundle's language {} needs its stemmer, which this runtime leaves out: load its stemmer module first (stem/<code>.wasm.lzma; sift.js does) or use the full runtime", sift_base::error::Quoted(&e.0));
            SiftError::new(ErrorCode::FullRuntimeRequired, msg)
        })?;
        let mut registry = Registry::default();
        registry.register([&m.startup], |_| ShardId::Startup);
        registry.register(m.fold_table.iter(), |_| ShardId::FoldTable);
        registry.register_store(&m.term_files, m.term_shards.iter().map(|t| &t.shard), ShardId::Terms);
        registry.register_store(&m.vocab_files, m.vocabulary.iter().map(|t| &t.shard), ShardId::Vocabulary);
        registry.register_store(&m.doc_files, m.doc_shards.iter().map(|d| &d.shard), ShardId::Docs);
        registry.register(m.id_shards.iter().map(|t| &t.shard), ShardId::Ids);
        registry.register(m.vectors.iter().map(|v| &v.index), |_| ShardId::VectorIndex);
        // The encoder's index is the manifest's (checked when it was parsed).
        let encoder_index = m.encoder.as_ref().filter(|_| cfg!(feature = "semantic")).map(|e| e.layout.index()).transpose()?;
        if let (Some(ix), Some(e)) = (&encoder_index, &m.encoder) {
            registry.register_store(&e.layout.group_files, &ix.groups, ShardId::EncoderVocab);
            registry.register_store(&e.layout.row_files, &ix.row_shards, ShardId::EncoderRows);
        }
        Ok(Engine {
            norms: NormTable::new(&m.params, &m.avg_field_len()),
            registry,
            startup: None,
            terms: slots(m.term_shards.len()),
            vocabulary: slots(m.vocabulary.len()),
            docs: slots(m.doc_shards.len()),
            ids: slots(m.id_shards.len()),
            vector_index: None,
            list_groups: Vec::new(),
            vector_lists: Vec::new(),
            projection: None,
            encoder_vocab: slots(encoder_index.as_ref().map_or(0, |ix| ix.groups.len())),
            encoder_rows: slots(encoder_index.as_ref().map_or(0, |ix| ix.row_shards.len())),
            encoder_index,
            params: RankingParams::default(),
            postings: Mutex::new(HashMap::default()),
            ranked: Mutex::new(None),
            manifest: m,
            analyzer,
            delta,
        })
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Rank with other parameters than the defaults (experiments: `sift eval --param`).
    pub fn set_ranking(&mut self, params: RankingParams) {
        self.params = params;
        *self.ranked.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    /// Every shard file known now (for hosts that load everything up front): the manifest's,
    /// and the vector index's children once it is loaded. A host copying a whole bundle adds
    /// what this lists and asks again until nothing new appears. The keyword engine lists
    /// only what it reads (no vectors, no encoder).
    pub fn all_files(&self) -> Vec<String> {
        let mut files: Vec<String> = self.registry.files().map(str::to_string).collect();
        if let Some(d) = &self.delta {
            let vectors = d.vectors.iter().filter(|_| cfg!(feature = "semantic")).map(|(r, _)| r.file.clone());
            files.extend(d.engine.iter().flat_map(|e| e.all_files()).chain(vectors).map(|f| [d.prefix.as_str(), &f].concat()));
        }
        files
    }

    /// The doc store's dictionary, once loaded: a host that inflates shards itself reads
    /// the doc shards compressed after it (codec 2) with it.
    pub fn doc_dictionary(&self) -> Option<&[u8]> {
        self.startup.as_ref()?.dictionary.as_deref()
    }

    /// The dictionary the shard `file` is read with, if it is a doc shard compressed after
    /// one (codec 2): its store's — a delta's doc shards have their own — once that store's
    /// startup shard is loaded.
    pub fn doc_dictionary_for(&self, file: &str) -> Option<&[u8]> {
        match self.delta_file(file) {
            Some((delta, own)) => delta.doc_dictionary_for(own),
            None => self.doc_dictionary(),
        }
    }

    pub fn is_loaded(&self, file: &str) -> bool {
        if let Some(d) = self.delta.as_ref().filter(|d| d.own(file).is_some_and(|own| d.is_vectors(own))) {
            return d.vectors.as_ref().is_some_and(|(_, set)| set.is_some());
        }
        if let Some((e, own)) = self.delta_file(file) {
            return e.is_loaded(own);
        }
        self.registry.named(file).is_some_and(|id| self.has(id))
    }

    /// Verify and decode a shard file. A bad shard is refused and not kept.
    pub fn add_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), SiftError> {
        self.add_shard_inflated(file, bytes, None)
    }

    /// [`Engine::add_shard`] with the payload of a deflated shard inflated by the host
    /// (`payload`: the browser's `DecompressionStream`; the engine checks it against the
    /// shard's header). A runtime built without the `inflate` feature needs it for every
    /// deflated shard.
    pub fn add_shard_inflated(&mut self, file: &str, bytes: &[u8], payload: Option<Vec<u8>>) -> Result<(), SiftError> {
        if !cfg!(feature = "semantic") && self.manifest.vectors.as_ref().is_some_and(|v| v.index.file == file) {
            return Err(shards::not_read(file));
        }
        let dim = self.manifest.vectors.as_ref().map_or(0, |v| v.dim as usize);
        if let Some(d) = self.delta.as_mut() {
            if d.own(file).is_some_and(|own| d.is_vectors(own)) {
                return d.add_vectors(bytes, payload, dim);
            }
            if let (Some(own), Some(e)) = (d.own(file), d.engine.as_mut()) {
                e.add_shard_inflated(own, bytes, payload)?;
                self.merge_startups();
                return Ok(());
            }
        }
        self.add(file, bytes, payload)?;
        self.merge_startups();
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

    /// Whether the bundle embeds queries itself (a static encoder fitted to its corpus): then
    /// no host needs a model for semantic or hybrid search.
    pub fn has_query_encoder(&self) -> bool {
        self.manifest.encoder.is_some()
    }

    /// Whether answering `req` needs the host to embed the query (a bundle with vectors but
    /// no query encoder): the host embeds `semantic_text(req)` only then, and passes the
    /// vector to `search_with`. A host may also pass its own model's vector to a bundle that
    /// has an encoder (the full model as an option).
    pub fn wants_query_vector(&self, req: &SearchRequest) -> bool {
        self.has_vectors() && !self.has_query_encoder() && req.mode.as_deref() != Some("lexical")
    }

    /// The query's vector in the bundle's space: the static encoder's (no `host_vector`),
    /// or the host model's vector projected. None when the text has no meaning the encoder
    /// knows, or the bundle has no vectors.
    pub fn embed_query(&self, text: &str, host_vector: Option<&[f32]>) -> Result<Step<Option<Vec<f32>>>, SiftError> {
        // (The feature tested as well: the keyword engine then compiles none of the encoder.)
        if !cfg!(feature = "semantic") || !self.has_vectors() {
            return Ok(Step::Done(None));
        }
        let res = resolve::Resolver::new(self);
        // The static encoder normalises the text as BERT does: a rare-block character
        // needs the fold table's BERT half.
        let ready = res.require(self.fold_table_for(text));
        step(
            ready
                .and_then(|_| res.require(meaning::first_round(self, host_vector.is_some(), text)))
                .and_then(|_| meaning::query_vector(&res, text, host_vector)),
        )
    }

    /// The text a query means, for embedding: its words and phrases, without operators,
    /// exclusions or `field:value` filters.
    pub fn semantic_text(&self, req: &SearchRequest) -> String {
        meaning::semantic_text(&req.query, &self.manifest.filter_fields)
    }

    pub fn search(&self, req: &SearchRequest, ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        self.search_with(req, ctx, None)
    }

    /// Search with the query's embedding (made by the bundle's model, L2-normalised) for
    /// semantic, hybrid and auto modes.
    pub fn search_with(&self, req: &SearchRequest, ctx: &Context, query_vector: Option<&[f32]>) -> Result<Step<SearchResponse>, SiftError> {
        let valid = req.validate(&self.manifest.filter_fields, ctx.now_days)?;
        step(search::run(self, &valid, query_vector, None))
    }

    /// Several queries at once, merged by reciprocal rank fusion and de-duplicated. Each
    /// query is embedded by the bundle's static encoder when semantic search applies.
    pub fn multi_search(&self, req: &MultiSearchRequest, ctx: &Context) -> Result<Step<MultiSearchResponse>, SiftError> {
        step(multi::run(self, req, ctx, None))
    }

    /// `multi_search` with the host's embedding of each query (`query_vectors[i]` for query
    /// `i`; None where it made none).
    pub fn multi_search_with(
        &self,
        req: &MultiSearchRequest,
        ctx: &Context,
        query_vectors: Option<&[Option<Vec<f32>>]>,
    ) -> Result<Step<MultiSearchResponse>, SiftError> {
        step(multi::run(self, req, ctx, query_vectors))
    }

    /// The document with this id, as the contract shows it (None: no such id).
    pub fn get_document(&self, id: &str) -> Result<Step<Option<Document>>, SiftError> {
        step(lookup::get_document(self, id))
    }

    /// The number of the document with this id (None: no such id, or a delta removed it):
    /// what a delta names the documents it removes by.
    pub fn doc_number(&self, id: &str) -> Result<Step<Option<u32>>, SiftError> {
        step(lookup::doc_number(&resolve::Resolver::new(self), id))
    }

    /// Pages like the page `id`: by meaning when the bundle has vectors (the mean of the
    /// page's chunk vectors, fused with its title and headings as keywords), else by the
    /// title and headings alone. The page itself is left out.
    pub fn related(&self, id: &str, limit: Option<i64>, ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        step(lookup::related(self, id, limit, ctx))
    }
}

/// Scores are shown with four decimals.
fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}
