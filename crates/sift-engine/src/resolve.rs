//! Shards and postings on demand. Every engine step reads the bundle through a `Resolver`:
//! a shard that is not loaded halts the step with `Halt::Need`, which `?` carries out to
//! the public entry point (and from there to the host as `Step::Need`). Nothing can compute
//! on partial data by forgetting a check.
//!
//! To keep round trips few, a stage first `require`s every shard it will read — all of them
//! are asked for at once — and only then reads them.

use super::{shards::ShardId, Engine, POSTINGS_KEPT};
use sift_base::error::SiftError;
use sift_format::docmeta::DocMeta;
use sift_format::docstore::StoredDoc;
use sift_format::encoder::{EncoderRows, VocabGroup};
use sift_format::filters::FilterIndex;
use sift_format::ids::IdShard;
use sift_format::terms::{PostingList, TermShard};
use sift_format::vectors::VectorSet;
use sift_format::vindex::{Projection, VectorIndex};
use sift_format::vocabulary::VocabShard;
use std::borrow::Cow;
use std::sync::Arc;

/// Why a step stopped: it needs shard files, or it failed.
#[derive(Debug)]
pub(crate) enum Halt {
    Need(Vec<String>),
    Fail(SiftError),
}

impl From<SiftError> for Halt {
    fn from(e: SiftError) -> Self {
        Halt::Fail(e)
    }
}

pub(crate) type Flow<T> = Result<T, Halt>;

/// One call's view of the bundle: the engine's loaded shards, and the postings decoded so
/// far (kept on the engine: a term looked up in several rounds is decoded once).
pub(crate) struct Resolver<'a> {
    pub eng: &'a Engine,
}

impl<'a> Resolver<'a> {
    pub fn new(eng: &'a Engine) -> Self {
        Resolver { eng }
    }

    /// Every shard in `shards` is loaded, or the step halts asking for all the missing ones
    /// — with the startup shard first when a doc shard needs its dictionary (a host adds
    /// the files of a need list in its order).
    pub fn require(&self, shards: impl IntoIterator<Item = ShardId>) -> Flow<()> {
        // Generic only here: the rest is one function however many iterator types call it.
        self.require_missing(shards.into_iter().filter(|&id| !self.eng.has(id)).collect(), None)
    }

    /// [`Resolver::require`], and in the same round a delta's file that is no shard of a
    /// registry (its vector list, named as the host fetches it), when it is missing.
    pub fn require_with(&self, shards: impl IntoIterator<Item = ShardId>, delta_file: Option<String>) -> Flow<()> {
        self.require_missing(shards.into_iter().filter(|&id| !self.eng.has(id)).collect(), delta_file)
    }

    fn require_missing(&self, mut missing: Vec<ShardId>, delta_file: Option<String>) -> Flow<()> {
        // The delta's startup shard comes with the first shards anything asks for.
        let mut delta = self.eng.delta.as_ref().map(|d| d.missing()).unwrap_or_default();
        delta.extend(delta_file);
        if missing.is_empty() && delta.is_empty() {
            return Ok(());
        }
        let docs = missing.iter().any(|id| matches!(id, ShardId::Docs(_)));
        if docs && self.eng.manifest.doc_dictionary && !self.eng.has(ShardId::Startup) {
            missing.push(ShardId::Startup);
        }
        // Sorted by id: the startup shard first.
        missing.sort_unstable();
        missing.dedup();
        let name = |id| match crate::delta::delta_docs_id(self.eng, id) {
            Some((delta, id)) => [self.eng.delta_prefix(), &delta.registry.shard(id).file].concat(),
            None => self.eng.registry.shard(id).file.clone(),
        };
        Err(Halt::Need(missing.into_iter().map(name).chain(delta).collect()))
    }

    /// The delta's startup shard is loaded (and joined to the base's), or the step halts
    /// asking for it: checked before documents are read or scored.
    pub fn require_delta(&self) -> Flow<()> {
        self.require_missing(Vec::new(), None)
    }

    fn loaded<T>(&self, id: ShardId, slot: Option<&'a T>) -> Flow<&'a T> {
        match slot {
            Some(t) => Ok(t),
            None => {
                self.require_missing(vec![id], None)?;
                Err(Halt::Fail(SiftError::internal("a shard the engine holds could not be read")))
            }
        }
    }

    pub fn docmeta(&self) -> Flow<&'a DocMeta> {
        self.require_delta()?;
        self.loaded(ShardId::Startup, self.eng.startup.as_ref()).map(|s| &s.docmeta)
    }

    pub fn filters(&self) -> Flow<&'a FilterIndex> {
        self.require_delta()?;
        self.loaded(ShardId::Startup, self.eng.startup.as_ref()).map(|s| &s.filters)
    }

    pub fn term_shard(&self, i: usize) -> Flow<&'a TermShard> {
        self.loaded(ShardId::Terms(i), self.eng.terms[i].as_ref())
    }

    pub fn vocab_shard(&self, i: usize) -> Flow<&'a VocabShard> {
        self.loaded(ShardId::Vocabulary(i), self.eng.vocabulary[i].as_ref())
    }

    pub fn id_shard(&self, i: usize) -> Flow<&'a IdShard> {
        self.loaded(ShardId::Ids(i), self.eng.ids[i].as_ref())
    }

    /// The vector index (the caller knows the bundle has vectors).
    pub fn vector_index(&self) -> Flow<&'a VectorIndex> {
        self.loaded(ShardId::VectorIndex, self.eng.vector_index.as_ref())
    }

    /// The projection from the model's space to the bundle's.
    pub fn projection(&self) -> Flow<&'a Projection> {
        self.loaded(ShardId::Projection, self.eng.projection.as_ref())
    }

    /// Group `g` of vector lists: its lists' centroids.
    pub fn list_group(&self, g: usize) -> Flow<&'a [f32]> {
        self.loaded(ShardId::ListGroup(g), self.eng.list_groups.get(g).and_then(Option::as_ref)).map(Vec::as_slice)
    }

    /// Vector list `l`.
    pub fn vector_list(&self, l: usize) -> Flow<&'a VectorSet> {
        self.loaded(ShardId::VectorList(l), self.eng.vector_lists.get(l).and_then(Option::as_ref))
    }

    /// The vector lists loaded so far (read without fetching: feedback, `related`).
    pub fn loaded_vector_lists(&self) -> impl Iterator<Item = (usize, &'a VectorSet)> {
        self.eng.vector_lists.iter().enumerate().filter_map(|(l, set)| set.as_ref().map(|s| (l, s)))
    }

    /// Vocabulary group `g` of the static encoder if it is loaded (None: not yet). Read
    /// without halting: the encoder cuts every word first and asks for all the groups it
    /// found missing at once.
    pub fn encoder_vocab_if_loaded(&self, g: usize) -> Option<&'a VocabGroup> {
        self.eng.encoder_vocab.get(g).and_then(Option::as_ref)
    }

    /// Row shard `i` of the static encoder.
    pub fn encoder_rows(&self, i: usize) -> Flow<&'a EncoderRows> {
        self.loaded(ShardId::EncoderRows(i), self.eng.encoder_rows.get(i).and_then(Option::as_ref))
    }

    /// The stored document `doc` — for a page stored in parts, its first part (the page's
    /// opening).
    pub fn stored(&self, doc: u32) -> Flow<&'a StoredDoc> {
        self.stored_in(doc, self.eng.doc_shard_of(doc))
    }

    /// Document `doc` as doc shard `si` holds it (all of it, or one part).
    pub fn stored_in(&self, doc: u32, si: usize) -> Flow<&'a StoredDoc> {
        if let (Some((delta, doc)), Some((_, si))) = (self.eng.delta_doc(doc), self.eng.delta_shard(si)) {
            return self.eng.through_delta(Resolver::new(delta).stored_in(doc, si));
        }
        let shard = self.loaded(ShardId::Docs(si), self.eng.docs.get(si).and_then(Option::as_ref))?;
        let k = doc.checked_sub(self.eng.manifest.doc_shards[si].first_doc).map(|k| k as usize);
        k.and_then(|k| shard.docs.get(k)).ok_or_else(|| Halt::Fail(SiftError::corrupt(msg!("document {} is not in its doc shard", doc))))
    }

    /// The whole of document `doc`: a page stored in parts is read in full and joined.
    pub fn whole(&self, doc: u32) -> Flow<Cow<'a, StoredDoc>> {
        let parts = self.eng.doc_parts(doc);
        if parts.len() == 1 {
            return self.stored(doc).map(Cow::Borrowed);
        }
        self.require(parts.clone().map(ShardId::Docs))?;
        let parts: Vec<&StoredDoc> = parts.map(|si| self.stored_in(doc, si)).collect::<Flow<_>>()?;
        Ok(Cow::Owned(StoredDoc::join(&parts)))
    }

    /// Postings of an exact term (None: not in the dictionary).
    pub fn postings(&self, term: &str) -> Flow<Option<Arc<PostingList>>> {
        if let Some(c) = self.eng.postings.lock().ok().and_then(|p| p.get(term).cloned()) {
            return Ok(c);
        }
        let pl = match self.eng.shard_for_term(term) {
            Some(si) => {
                let shard = self.term_shard(si)?;
                match shard.offset(term) {
                    Some(off) => Some(Arc::new(shard.postings(off, self.eng.manifest.doc_count)?)),
                    None => None,
                }
            }
            None => None,
        };
        let pl = match &self.eng.delta {
            Some(d) => {
                let theirs = match &d.engine {
                    Some(e) => self.eng.through_delta(Resolver::new(e).postings(term))?,
                    None => None,
                };
                crate::delta::join_postings(pl, theirs, d.first_doc, &d.removed)
            }
            None => pl,
        };
        if let Ok(mut kept) = self.eng.postings.lock() {
            if kept.len() >= POSTINGS_KEPT {
                kept.clear();
            }
            kept.insert(term.to_string(), pl.clone());
        }
        Ok(pl)
    }
}
