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
//! | [`meaning`] | the query's vector (static encoder or the host's) and the semantic hits |
//! | [`fusion`] | query shape, mode weights, score fusion, rank fusion |
//! | [`collect`] | filters, exclusions, recency, sort, pages, facets |
//! | [`present`] | sections, snippet windows, results |
//! | [`lookup`] | `get_document`, `related` |
//! | [`multi`] | `multi_search` |
//! | [`search`] | the pipeline that strings them together |

mod collect;
mod expand;
mod feedback;
mod fusion;
mod lookup;
mod matching;
mod meaning;
mod multi;
mod plan;
mod present;
mod relax;
mod resolve;
mod score;
mod search;

use crate::bundle::docmeta::DocMeta;
use crate::bundle::docstore::StoredDoc;
use crate::bundle::encoder::{EncoderIndex, EncoderRows, VocabGroup};
use crate::bundle::filters::FilterIndex;
use crate::bundle::ids::IdShard;
use crate::bundle::terms::TermShard;
use crate::bundle::vectors::VectorSet;
use crate::bundle::vindex::{decode_projection, VectorIndex};
use crate::bundle::vocabulary::VocabShard;
use crate::bundle::{self, Manifest, ShardKind, ShardRef};
use crate::contract::{Document, MultiSearchRequest, MultiSearchResponse, SearchRequest, SearchResponse, MAX_HOST_ROUNDS};
use crate::error::{ErrorCode, SiftError};
use crate::rank::NormTable;
use crate::semantic::projection::Projection;
use resolve::{Flow, Halt};

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

/// One shard of the bundle, by kind and index in its list: the manifest's, or (for the
/// children of the semantic index shards) the index's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum ShardId {
    DocMeta,
    Filters,
    Terms(usize),
    /// A shard of the vocabulary (every term and its document frequency, whole first
    /// letters a shard): what typo tolerance reads when the bundle has one.
    Vocabulary(usize),
    /// The doc store's dictionary (format 7): whenever doc shards are asked for before it is
    /// loaded, it is asked for too, first in the need list (`Resolver::require`).
    DocDictionary,
    /// Format 9's startup shard: the doc metadata, the filters and the doc store's
    /// dictionary in one file (`DocMeta`, `Filters` and `DocDictionary` then name it).
    Startup,
    /// Format 8's copy of the rare blocks' folding table (`crate::decompose`): loaded means
    /// installed in this process, by this engine or another.
    FoldTable,
    Docs(usize),
    Ids(usize),
    /// Format 1 vector shards.
    Vectors(usize),
    VectorIndex,
    VectorList(usize),
    Projection,
    EncoderIndex,
    EncoderVocab(usize),
    EncoderRows(usize),
}

pub struct Engine {
    manifest: Manifest,
    norms: NormTable,
    docmeta: Option<DocMeta>,
    filters: Option<FilterIndex>,
    term_shards: Vec<Option<TermShard>>,
    vocab_shards: Vec<Option<VocabShard>>,
    doc_shards: Vec<Option<Vec<StoredDoc>>>,
    /// Per loaded doc shard, which of its pages have a character of folding's rare blocks
    /// in the text a search analyses — worked out once as the shard is added, and only
    /// where this runtime lacks those folds and the bundle carries them (scanning the ten
    /// results' text on every search cost 0.4 of 2 ms in the browser).
    doc_rare_folds: Vec<Vec<bool>>,
    /// The doc store's dictionary (format 7), once loaded.
    doc_dictionary: Option<Vec<u8>>,
    id_shards: Vec<Option<IdShard>>,
    vector_shards: Vec<Option<VectorSet>>,
    vector_index: Option<VectorIndex>,
    vector_lists: Vec<Option<VectorSet>>,
    projection: Option<Projection>,
    encoder_index: Option<EncoderIndex>,
    encoder_vocab: Vec<Option<VocabGroup>>,
    encoder_rows: Vec<Option<EncoderRows>>,
    /// Every known shard by file name, sorted by name (binary search; a map type of its own
    /// would cost the browser engine its own hash-table code).
    by_file: Vec<(String, ShardId)>,
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
            vocab_shards: empty_slots(manifest.vocabulary.len()),
            doc_shards: empty_slots(manifest.doc_shards.len()),
            doc_rare_folds: vec![Vec::new(); manifest.doc_shards.len()],
            doc_dictionary: None,
            id_shards: empty_slots(manifest.id_shards.len()),
            vector_shards: empty_slots(n_vec),
            vector_index: None,
            vector_lists: Vec::new(),
            projection: None,
            encoder_index: None,
            encoder_vocab: Vec::new(),
            encoder_rows: Vec::new(),
            by_file: Vec::new(),
            manifest,
        };
        let semantic_index = eng.manifest.vectors.as_ref().is_some_and(|v| v.index.is_some());
        let first: &[ShardId] = match (&eng.manifest.startup, &eng.manifest.doc_dictionary) {
            (Some(_), _) => &[ShardId::Startup],
            (None, Some(_)) => &[ShardId::DocMeta, ShardId::Filters, ShardId::DocDictionary],
            (None, None) => &[ShardId::DocMeta, ShardId::Filters],
        };
        let ids: Vec<ShardId> = first
            .iter()
            .copied()
            .chain(eng.manifest.fold_table.is_some().then_some(ShardId::FoldTable))
            .chain((0..eng.term_shards.len()).map(ShardId::Terms))
            .chain((0..eng.vocab_shards.len()).map(ShardId::Vocabulary))
            .chain((0..eng.doc_shards.len()).map(ShardId::Docs))
            .chain((0..eng.id_shards.len()).map(ShardId::Ids))
            .chain((0..n_vec).map(ShardId::Vectors))
            .chain(semantic_index.then_some(ShardId::VectorIndex))
            .chain(eng.manifest.encoder.as_ref().is_some_and(|e| e.index.is_some()).then_some(ShardId::EncoderIndex))
            .collect();
        eng.register(ids);
        // Format 10: the encoder's index is the manifest's (checked when it was parsed). The
        // keyword engine reads no semantic shard, and does not list them either.
        if let Some(layout) = eng.manifest.encoder.as_ref().and_then(|e| e.layout.as_ref()).filter(|_| cfg!(feature = "semantic")) {
            let ix = layout.index()?;
            eng.install_encoder_index(ix);
        }
        Ok(eng)
    }

    fn register(&mut self, ids: impl IntoIterator<Item = ShardId>) {
        for id in ids {
            let file = self.shard_ref(id).file.clone();
            self.by_file.push((file, id));
        }
        self.by_file.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    }

    fn shard_named(&self, file: &str) -> Option<ShardId> {
        self.by_file.binary_search_by(|(f, _)| f.as_str().cmp(file)).ok().map(|k| self.by_file[k].1)
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Every shard file known now (for hosts that load everything up front): the manifest's,
    /// and the children of the semantic index shards once those are loaded. A host copying a
    /// whole bundle adds what this lists and asks again until nothing new appears.
    /// The keyword engine lists only what it reads (no vectors, no encoder).
    pub fn all_files(&self) -> Vec<String> {
        let mut files: Vec<String> = if cfg!(feature = "semantic") {
            self.manifest.all_shards().map(|s| s.file.clone()).collect()
        } else {
            self.manifest.keyword_shards().map(|s| s.file.clone()).collect()
        };
        if let Some(ix) = &self.vector_index {
            files.extend(ix.lists.iter().map(|r| r.file.clone()));
            files.push(ix.projection.file.clone());
        }
        if let Some(ix) = &self.encoder_index {
            files.extend(ix.groups.iter().chain(&ix.row_shards).map(|r| r.file.clone()));
        }
        files
    }

    /// The fold table (format 8), when this runtime lacks the rare blocks' folds and
    /// `text` (a query; a stored page's words before snippets or feedback analyse them) has
    /// a character of those blocks. Bundles before format 8 carry no table: there a runtime
    /// without it folds those characters to themselves.
    pub(crate) fn fold_table_for(&self, text: &str) -> Option<ShardId> {
        (self.lacks_rare_folds() && has_rare_block_char(text)).then_some(ShardId::FoldTable)
    }

    /// Whether this runtime lacks the rare blocks' folds and the bundle carries them.
    fn lacks_rare_folds(&self) -> bool {
        self.manifest.fold_table.is_some() && !crate::decompose::rare_folds_ready()
    }

    /// [`Engine::fold_table_for`] the analysed text (titles, headings, section text) of
    /// pages as loaded doc shards hold them: `(doc, doc shard)`.
    pub(crate) fn fold_table_for_pages(&self, pages: impl IntoIterator<Item = (u32, usize)>) -> Option<ShardId> {
        if !self.lacks_rare_folds() {
            return None;
        }
        let rare = |(doc, si): (u32, usize)| {
            let k = doc.checked_sub(self.manifest.doc_shards.get(si)?.first_doc)? as usize;
            self.doc_rare_folds.get(si)?.get(k).copied()
        };
        pages.into_iter().any(|p| rare(p).unwrap_or(false)).then_some(ShardId::FoldTable)
    }

    /// The doc store's dictionary, once loaded (format 7): a host that inflates shards
    /// itself reads the doc shards compressed after it (codec 2) with it.
    pub fn doc_dictionary(&self) -> Option<&[u8]> {
        self.doc_dictionary.as_deref()
    }

    pub fn is_loaded(&self, file: &str) -> bool {
        self.shard_named(file).is_some_and(|id| self.has(id))
    }

    /// The manifest's entry for a shard.
    fn shard_ref(&self, id: ShardId) -> &ShardRef {
        let m = &self.manifest;
        match id {
            ShardId::DocMeta => &m.docmeta,
            ShardId::Filters => &m.filters,
            ShardId::Terms(i) => &m.term_shards[i].shard,
            ShardId::Vocabulary(i) => &m.vocabulary[i].shard,
            ShardId::Docs(i) => &m.doc_shards[i].shard,
            ShardId::DocDictionary => m.doc_dictionary.as_ref().expect("registered only with a dictionary"),
            ShardId::Startup => m.startup.as_ref().expect("registered only with a startup shard"),
            ShardId::FoldTable => m.fold_table.as_ref().expect("registered only with a fold table"),
            ShardId::Ids(i) => &m.id_shards[i].shard,
            ShardId::Vectors(i) => &m.vectors.as_ref().expect("vector shard ids exist only with vectors").shards[i],
            ShardId::VectorIndex => m.vectors.as_ref().and_then(|v| v.index.as_ref()).expect("registered only with a vector index"),
            ShardId::EncoderIndex => {
                m.encoder.as_ref().and_then(|e| e.index.as_ref()).expect("registered only with an encoder index shard")
            }
            ShardId::VectorList(i) => &self.vector_index.as_ref().expect("lists are known once the index is").lists[i],
            ShardId::Projection => &self.vector_index.as_ref().expect("known once the index is").projection,
            ShardId::EncoderVocab(i) => &self.encoder_index.as_ref().expect("groups are known once the index is").groups[i],
            ShardId::EncoderRows(i) => &self.encoder_index.as_ref().expect("rows are known once the index is").row_shards[i],
        }
    }

    /// Take the encoder's index (its shard's, or format 10's from the manifest) and make
    /// its vocabulary groups and row shards known.
    fn install_encoder_index(&mut self, ix: EncoderIndex) {
        self.encoder_vocab = empty_slots(ix.groups.len());
        self.encoder_rows = empty_slots(ix.row_shards.len());
        let children: Vec<ShardId> =
            (0..ix.groups.len()).map(ShardId::EncoderVocab).chain((0..ix.row_shards.len()).map(ShardId::EncoderRows)).collect();
        self.encoder_index = Some(ix);
        self.register(children);
    }

    fn has(&self, id: ShardId) -> bool {
        match id {
            ShardId::DocMeta => self.docmeta.is_some(),
            ShardId::Filters => self.filters.is_some(),
            ShardId::Terms(i) => self.term_shards[i].is_some(),
            ShardId::Vocabulary(i) => self.vocab_shards[i].is_some(),
            ShardId::Docs(i) => self.doc_shards[i].is_some(),
            ShardId::DocDictionary => self.doc_dictionary.is_some(),
            // The three are set together, the doc metadata always.
            ShardId::Startup => self.docmeta.is_some(),
            ShardId::FoldTable => crate::decompose::rare_folds_ready(),
            ShardId::Ids(i) => self.id_shards[i].is_some(),
            ShardId::Vectors(i) => self.vector_shards[i].is_some(),
            ShardId::VectorIndex => self.vector_index.is_some(),
            ShardId::VectorList(i) => self.vector_lists.get(i).is_some_and(Option::is_some),
            ShardId::Projection => self.projection.is_some(),
            ShardId::EncoderIndex => self.encoder_index.is_some(),
            ShardId::EncoderVocab(i) => self.encoder_vocab.get(i).is_some_and(Option::is_some),
            ShardId::EncoderRows(i) => self.encoder_rows.get(i).is_some_and(Option::is_some),
        }
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
        let id = self.shard_named(file).ok_or_else(|| SiftError::corrupt(msg!("{file} is not a shard of this bundle")))?;
        let n = self.manifest.doc_count;
        let kind = match id {
            ShardId::DocMeta => ShardKind::DocMeta,
            ShardId::Filters => ShardKind::Filters,
            ShardId::Terms(_) => ShardKind::Terms,
            ShardId::Vocabulary(_) => ShardKind::Vocabulary,
            ShardId::Docs(_) => ShardKind::Docs,
            ShardId::DocDictionary => ShardKind::DocDictionary,
            ShardId::Startup => ShardKind::Startup,
            ShardId::FoldTable => ShardKind::FoldTable,
            ShardId::Ids(_) => ShardKind::Ids,
            ShardId::Vectors(_) => ShardKind::Vectors,
            ShardId::VectorIndex => ShardKind::VectorIndex,
            ShardId::VectorList(_) => ShardKind::VectorList,
            ShardId::Projection => ShardKind::Projection,
            ShardId::EncoderIndex => ShardKind::EncoderIndex,
            ShardId::EncoderVocab(_) => ShardKind::EncoderVocab,
            ShardId::EncoderRows(_) => ShardKind::EncoderRows,
        };
        if !cfg!(feature = "semantic")
            && !matches!(
                id,
                ShardId::DocMeta
                    | ShardId::Filters
                    | ShardId::Terms(_)
                    | ShardId::Vocabulary(_)
                    | ShardId::DocDictionary
                    | ShardId::Startup
                    | ShardId::FoldTable
                    | ShardId::Docs(_)
                    | ShardId::Ids(_)
            )
        {
            return Err(SiftError::new(
                ErrorCode::InvalidRequest,
                msg!("{file} is a shard of semantic search, which this runtime (the keyword engine) does not read"),
            ));
        }
        let with = bundle::Inflation { payload, dictionary: self.doc_dictionary.as_deref() };
        let payload = bundle::decode_shard_with(bytes, with, kind, self.shard_ref(id), self.manifest.format_version)?;
        let dim = self.manifest.vectors.as_ref().map_or(0, |v| v.dim as usize);
        let chunks = self.manifest.vectors.as_ref().map_or(0, |v| v.chunks);
        let wrong_dim = |what: &str, got: usize| SiftError::corrupt(msg!("{what} {file} has {got} dimensions, the manifest says {dim}"));
        // Format 10: vector lists, encoder groups and rows are stores named by rule, each
        // child naming its own place (`bundle::table`), and the term store and the
        // vocabulary list separators as their shards' first keys (`terms::separator`).
        let by_rule = bundle::has_format(self.manifest.format_version, 10);
        match id {
            // What a search reads first: the startup shard's sections (format 9), or each
            // of them as a shard of its own. (One path, so each decoder is called once.)
            ShardId::DocMeta | ShardId::Filters | ShardId::DocDictionary | ShardId::Startup => {
                let (docmeta, filters, dictionary) = match id {
                    ShardId::DocMeta => (Some(&payload[..]), None, None),
                    ShardId::Filters => (None, Some(&payload[..]), None),
                    ShardId::DocDictionary => (None, None, Some(&payload[..])),
                    _ => {
                        let s = bundle::startup::decode(&payload)?;
                        if s.dictionary.is_some() != self.manifest.doc_dictionary.is_some() {
                            return Err(SiftError::corrupt("the startup shard and the manifest disagree on the doc store's dictionary"));
                        }
                        (Some(s.docmeta), Some(s.filters), s.dictionary)
                    }
                };
                // Every section decodes before any is kept: a bad shard leaves nothing behind.
                let docmeta = docmeta.map(|p| DocMeta::decode(p, n)).transpose()?;
                let filters = filters.map(|p| FilterIndex::decode(p, n)).transpose()?;
                let dictionary = dictionary.map(|d| checked_dictionary(d, file)).transpose()?;
                self.docmeta = docmeta.or(self.docmeta.take());
                self.filters = filters.or(self.filters.take());
                self.doc_dictionary = dictionary.or(self.doc_dictionary.take());
            }
            ShardId::Terms(i) => {
                let shard = TermShard::decode(payload, self.manifest.format_version)?;
                check_listed_range("term", file, &self.manifest.term_shards, i, &shard.map, by_rule)?;
                self.term_shards[i] = Some(shard)
            }
            ShardId::Vocabulary(i) => {
                let shard = VocabShard::decode(payload, self.manifest.format_version)?;
                check_listed_range("vocabulary", file, &self.manifest.vocabulary, i, &shard.map, by_rule)?;
                self.vocab_shards[i] = Some(shard)
            }
            ShardId::FoldTable => crate::decompose::install_rare_folds(payload).map_err(|e| SiftError::corrupt(msg!("{file}: {e}")))?,
            ShardId::Docs(i) => {
                let place = self.manifest.doc_files.as_ref().map(|_| i as u32);
                let docs = StoredDoc::decode(&payload, self.manifest.doc_shards[i].docs, place)?;
                if self.lacks_rare_folds() {
                    self.doc_rare_folds[i] = docs.iter().map(|sd| sd.analysed_text().any(has_rare_block_char)).collect();
                }
                self.doc_shards[i] = Some(docs)
            }
            ShardId::Ids(i) => self.id_shards[i] = Some(IdShard::decode(payload, n)?),
            ShardId::Vectors(i) => {
                let set = VectorSet::decode(&payload, n)?;
                if set.dim != dim {
                    return Err(wrong_dim("vector shard", set.dim));
                }
                self.vector_shards[i] = Some(set);
            }
            ShardId::VectorIndex => {
                let ix = VectorIndex::decode(&payload, chunks, self.manifest.format_version)?;
                if ix.dim != dim {
                    return Err(wrong_dim("vector index", ix.dim));
                }
                self.vector_lists = empty_slots(ix.lists.len());
                let children: Vec<ShardId> = (0..ix.lists.len()).map(ShardId::VectorList).chain([ShardId::Projection]).collect();
                self.vector_index = Some(ix);
                self.register(children);
            }
            ShardId::VectorList(i) => {
                let set = VectorSet::decode_list(&payload, n, by_rule.then_some(i))?;
                let want = self.vector_index.as_ref().map_or(0, |ix| ix.counts[i] as usize);
                if set.dim != dim || set.len() != want {
                    return Err(SiftError::corrupt(msg!("vector list {file} does not match the vector index")));
                }
                self.vector_lists[i] = Some(set);
            }
            ShardId::Projection => {
                let model_dim = self.vector_index.as_ref().map_or(0, |ix| ix.model_dim);
                self.projection = Some(decode_projection(&payload, model_dim, dim)?);
            }
            ShardId::EncoderIndex => {
                let ix = EncoderIndex::decode(&payload)?;
                if ix.dim != dim {
                    return Err(wrong_dim("encoder index", ix.dim));
                }
                self.install_encoder_index(ix);
            }
            ShardId::EncoderVocab(i) => {
                let n_rows = self.encoder_index.as_ref().map_or(0, |ix| ix.n_rows);
                self.encoder_vocab[i] = Some(VocabGroup::decode(payload, n_rows, by_rule.then_some(i))?);
            }
            ShardId::EncoderRows(i) => {
                let expected = self.encoder_index.as_ref().map_or(0, |ix| ix.rows_in(i));
                self.encoder_rows[i] = Some(EncoderRows::decode(&payload, dim, expected, by_rule.then_some(i))?);
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
        if !self.has_vectors() {
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
        key_ranges_for_prefix(&self.manifest.term_shards, prefix)
    }

    /// Whether the bundle has a vocabulary (else typo tolerance reads term shards).
    fn has_vocabulary(&self) -> bool {
        !self.manifest.vocabulary.is_empty()
    }

    /// Vocabulary shards whose range overlaps the terms starting with `prefix`.
    fn vocab_shards_for_prefix(&self, prefix: &str) -> Vec<usize> {
        key_ranges_for_prefix(&self.manifest.vocabulary, prefix)
    }

    /// The doc shard holding `doc` — for a page stored in parts (format 4), its first part.
    fn doc_shard_of(&self, doc: u32) -> usize {
        self.manifest.doc_shards.partition_point(|d| d.first_doc + d.docs <= doc)
    }

    /// Every doc shard holding part of `doc`: one, or a long page's parts in order.
    fn doc_parts(&self, doc: u32) -> std::ops::Range<usize> {
        let first = self.doc_shard_of(doc);
        let shards = &self.manifest.doc_shards;
        let n = shards[first.min(shards.len())..].iter().skip(1).take_while(|d| d.first_doc == doc && d.first_pos.is_some()).count();
        first..(first + 1 + n).min(shards.len())
    }

    /// Where the part in doc shard `shard` ends in its page's position space (None: at the
    /// page's end).
    fn doc_part_end(&self, shard: usize) -> Option<u32> {
        let this = self.manifest.doc_shards.get(shard)?;
        let next = self.manifest.doc_shards.get(shard + 1)?;
        next.continues(this).then_some(next.first_pos?)
    }
}

/// The doc store's dictionary as a shard gives it (its own, or the startup shard's section).
fn checked_dictionary(bytes: &[u8], file: &str) -> Result<Vec<u8>, SiftError> {
    if bytes.len() > bundle::dictionary::MAX_DICTIONARY_BYTES {
        return Err(SiftError::corrupt(msg!("doc store dictionary {file} is implausibly large")));
    }
    Ok(bytes.to_vec())
}

fn has_rare_block_char(text: &str) -> bool {
    text.chars().any(crate::decompose::in_rare_blocks)
}

/// A key-range shard (`ranges[i]`, its dictionary `map`) must hold the range the manifest
/// gives it: one served under another shard's name holds another range.
fn check_listed_range(
    what: &str,
    file: &str,
    ranges: &[bundle::KeyRangeShardRef],
    i: usize,
    map: &fst::Map<Vec<u8>>,
    separators: bool,
) -> Result<(), SiftError> {
    let next = ranges.get(i + 1).map(|t| t.first.as_str());
    if bundle::terms::dictionary_holds_range(map, &ranges[i].first, ranges[i].last.as_deref(), next, separators) {
        return Ok(());
    }
    Err(SiftError::corrupt(msg!(
        "{what} shard {file} does not hold the terms from {} the manifest gives it (another shard's file under its name?)",
        crate::error::Quoted(&ranges[i].first)
    )))
}

/// The shards of a sorted list of key ranges that overlap the keys starting with `prefix`.
fn key_ranges_for_prefix(shards: &[bundle::KeyRangeShardRef], prefix: &str) -> Vec<usize> {
    // A shard's terms end at its last (when listed), else before the next shard's first.
    let ends_after = |i: usize| match (&shards[i].last, shards.get(i + 1)) {
        (Some(last), _) => last.as_str() >= prefix,
        (None, Some(next)) => next.first.as_str() > prefix,
        (None, None) => true,
    };
    (0..shards.len()).filter(|&i| ends_after(i) && (shards[i].first.as_str() <= prefix || shards[i].first.starts_with(prefix))).collect()
}

/// The shard of a sorted list of key ranges that may hold `key`.
fn key_range_shard(ranges: &[bundle::KeyRangeShardRef], key: &str) -> Option<usize> {
    let i = ranges.partition_point(|t| t.first.as_str() <= key);
    if i == 0 {
        return None;
    }
    // Without a listed last key (format 8's term store) the shard before the next one's
    // first may hold it.
    ranges[i - 1].last.as_ref().is_none_or(|last| key <= last.as_str()).then_some(i - 1)
}

/// Scores are shown with four decimals.
fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}
