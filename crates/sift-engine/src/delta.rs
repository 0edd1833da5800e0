//! A bundle and its delta, searched as one collection.
//!
//! A delta (`sift_format::manifest::Delta`) is what changed since the bundle was built: a
//! small bundle of the pages added or edited, in a folder beside the base's shards, and
//! the base documents that no longer answer. The engine opens the delta as an engine of
//! its own and joins the two where the pipeline reads the bundle, so no stage knows there
//! are two:
//!
//! - **doc numbers**: the delta's documents follow the base's (`first_doc` on), and so do
//!   its doc shards (`ShardId::Docs(base shards + i)`);
//! - **postings**: a term's list is the base's without the removed documents, then the
//!   delta's, and its df their length;
//! - **the startup shard**: the delta's doc metadata and filter values appended to the
//!   base's, once both are loaded;
//! - **statistics**: the documents that answer, for idf; field lengths of both bundles less
//!   the removed documents' (as their stored lengths say), for length norms — so a score is
//!   a clean build's but for the quantisation of the removed pages' lengths;
//! - **removed documents**: excluded by every search's filter, and unknown to `get_document`.
//!
//! A call reads the delta's startup shard with its first shards; the delta's other shards
//! are read as the base's are, when a stage needs them (a term's postings, a page, the
//! vector list with the base's lists), named with its folder so hosts fetch them as any.
//! - **vectors**: the delta's chunk vectors (made by the base's encoder, in its space) are
//!   one list searched beside whichever of the base's lists a query reads, fetched with them.
//!
//! What the joined view leaves out: word completion, typo tolerance and definitions by
//! prefix enumerate the base's dictionary only (a word new in the delta is found as typed).

use super::resolve::{Flow, Halt};
use super::shards::{ShardId, Startup};
use super::Engine;
use crate::rank::NormTable;
use sift_base::error::SiftError;
use sift_format::docmeta::decode_len;
use sift_format::frame::ShardKind;
use sift_format::terms::PostingList;
use sift_format::vectors::VectorSet;
use sift_format::ShardRef;
use std::sync::Arc;

pub(crate) struct Delta {
    /// The delta's own engine (None: the change only deleted pages).
    pub engine: Option<Engine>,
    /// Its folder and a slash: what its files' names begin with, as hosts fetch them.
    pub prefix: String,
    /// The delta's documents are numbered from here on (the base's count).
    pub first_doc: u32,
    /// Base documents that no longer answer, in increasing order.
    pub removed: Vec<u32>,
    /// Whether the base's startup shard holds the delta's documents too.
    pub merged: bool,
    /// The delta's chunk vectors in the base's space (its manifest entry, and the list once
    /// loaded): searched beside the base's lists, whatever their probe.
    pub vectors: Option<(ShardRef, Option<VectorSet>)>,
}

impl Delta {
    /// A delta file's name within the delta (None: a base file).
    pub fn own<'a>(&self, file: &'a str) -> Option<&'a str> {
        file.strip_prefix(self.prefix.as_str()).filter(|_| self.engine.is_some())
    }

    /// What every call reads of the delta first, if not loaded yet, named as the host fetches
    /// it: its startup shard (its documents' metadata, joined to the base's before anything
    /// is scored). The rest it reads as it needs, as the base is read.
    pub fn missing(&self) -> Vec<String> {
        match &self.engine {
            Some(e) if e.startup.is_none() => vec![[self.prefix.as_str(), &e.manifest.startup.file].concat()],
            _ => Vec::new(),
        }
    }

    /// The delta's vector list, named as the host fetches it, while it is not loaded.
    pub fn missing_vectors(&self) -> Option<String> {
        let (r, set) = self.vectors.as_ref()?;
        set.is_none().then(|| [self.prefix.as_str(), &r.file].concat())
    }

    /// Whether `own` (a name within the delta) is its vector list.
    pub fn is_vectors(&self, own: &str) -> bool {
        self.vectors.as_ref().is_some_and(|(r, _)| r.file == own)
    }

    /// Add the delta's vector list: checked as any shard (the file against its manifest
    /// entry, the header, the payload), its dimensions the base's, its documents the delta's.
    pub fn add_vectors(&mut self, bytes: &[u8], payload: Option<Vec<u8>>, dim: usize) -> Result<(), SiftError> {
        if !cfg!(feature = "semantic") {
            return Err(super::shards::not_read(&self.prefix));
        }
        let docs = self.docs();
        let Some((r, set)) = self.vectors.as_mut() else { return Err(SiftError::internal("the delta has no vectors")) };
        let with = sift_format::Inflation { payload, dictionary: None };
        let payload = sift_format::decode_shard_with(bytes, with, ShardKind::VectorList, r)?;
        let list = VectorSet::decode(&payload, docs, 0)?;
        if list.dim != dim {
            return Err(SiftError::corrupt(msg!("the delta's vectors have {} dimensions, the bundle's {}", list.dim, dim)));
        }
        *set = Some(list);
        Ok(())
    }

    /// Documents in the delta.
    pub fn docs(&self) -> u32 {
        self.engine.as_ref().map_or(0, |e| e.manifest.doc_count)
    }
}

impl Engine {
    /// What the delta's file names begin with, as hosts fetch them ("" without a delta).
    pub(crate) fn delta_prefix(&self) -> &str {
        self.delta.as_ref().map_or("", |d| d.prefix.as_str())
    }

    /// The delta's engine and the name within it of `file`, when `file` is one of the
    /// delta's (its vector list aside, which no engine holds).
    pub(crate) fn delta_file<'a>(&self, file: &'a str) -> Option<(&Engine, &'a str)> {
        let d = self.delta.as_ref()?;
        Some((d.engine.as_ref()?, d.own(file)?))
    }

    /// The delta engine's halt as this engine's: the files it needs named as the host
    /// fetches them.
    pub(crate) fn through_delta<T>(&self, flow: Flow<T>) -> Flow<T> {
        flow.map_err(|h| match h {
            Halt::Need(files) => Halt::Need(files.into_iter().map(|f| [self.delta_prefix(), f.as_str()].concat()).collect()),
            fail => fail,
        })
    }

    /// Documents of the collection searched: the base's and its delta's (removed ones
    /// among them until the next build). Doc numbers run below it.
    pub(crate) fn doc_count(&self) -> u32 {
        self.manifest.doc_count + self.delta.as_ref().map_or(0, |d| d.docs())
    }

    /// The delta's chunk vectors and where its doc numbers start, once loaded.
    pub(crate) fn delta_vectors(&self) -> Option<(&VectorSet, u32)> {
        let d = self.delta.as_ref()?;
        Some((d.vectors.as_ref()?.1.as_ref()?, d.first_doc))
    }

    /// Documents that answer: what idf counts.
    pub(crate) fn live_docs(&self) -> u32 {
        self.doc_count() - self.removed().len() as u32
    }

    /// Base documents that no longer answer.
    pub(crate) fn removed(&self) -> &[u32] {
        self.delta.as_ref().map_or(&[], |d| &d.removed)
    }

    /// The delta's engine and where its doc numbers and doc shards start, when a document
    /// or doc shard number is the delta's.
    pub(crate) fn delta_doc(&self, doc: u32) -> Option<(&Engine, u32)> {
        let d = self.delta.as_ref()?;
        Some((d.engine.as_ref()?, doc.checked_sub(d.first_doc)?))
    }

    pub(crate) fn delta_shard(&self, shard: usize) -> Option<(&Engine, usize)> {
        let e = self.delta.as_ref()?.engine.as_ref()?;
        Some((e, shard.checked_sub(self.manifest.doc_shards.len())?))
    }

    /// Append the delta's documents to the base's startup shard, once both are loaded, and
    /// weigh lengths against the joined collection's.
    pub(crate) fn merge_startups(&mut self) {
        let Some(d) = self.delta.as_mut() else { return };
        let Some(base) = self.startup.as_mut() else { return };
        if d.merged {
            return;
        }
        let mut tokens = self.manifest.field_tokens.map(|t| t as f64);
        if let Some(e) = &d.engine {
            let Some(theirs) = e.startup.as_ref() else { return };
            join_startups(base, theirs, d.first_doc);
            tokens.iter_mut().zip(e.manifest.field_tokens).for_each(|(t, x)| *t += x as f64);
        }
        for &doc in &d.removed {
            let lens = base.docmeta.lens.get(doc as usize).copied().unwrap_or_default();
            tokens.iter_mut().zip(lens).for_each(|(t, q)| *t = (*t - f64::from(decode_len(q))).max(0.0));
        }
        d.merged = true;
        let live = f64::from(self.live_docs().max(1));
        self.norms = NormTable::new(&self.manifest.params, &tokens.map(|t| (t / live) as f32));
    }
}

/// `theirs` (numbered from `first_doc`) after `base`'s documents.
fn join_startups(base: &mut Startup, theirs: &Startup, first_doc: u32) {
    let (m, t) = (&mut base.docmeta, &theirs.docmeta);
    if !(m.link_density.is_empty() && t.link_density.is_empty()) {
        m.link_density.resize(first_doc as usize, 0);
        m.link_density.extend(t.link_density.iter().copied().chain(std::iter::repeat(0)).take(t.lens.len()));
    }
    m.lens.extend_from_slice(&t.lens);
    m.dates.extend_from_slice(&t.dates);
    for (field, values) in &theirs.filters.fields {
        let ours = base.filters.fields.entry(field.clone()).or_default();
        for (value, docs) in values {
            ours.entry(value.clone()).or_default().extend(docs.iter().map(|d| d + first_doc));
        }
    }
}

/// A term's postings in the joined collection: the base's without the removed documents,
/// then the delta's renumbered.
pub(crate) fn join_postings(
    base: Option<Arc<PostingList>>,
    theirs: Option<Arc<PostingList>>,
    first_doc: u32,
    removed: &[u32],
) -> Option<Arc<PostingList>> {
    if removed.is_empty() && theirs.is_none() {
        return base;
    }
    let mut out =
        PostingList { df: 0, surface: String::new(), docs: Vec::new(), tf: Vec::new(), positions: Vec::new(), pos_start: vec![0] };
    let mut take = |pl: &PostingList, offset: u32, keep: &dyn Fn(u32) -> bool| {
        if out.surface.is_empty() {
            out.surface.clone_from(&pl.surface);
        }
        for (k, &doc) in pl.docs.iter().enumerate().filter(|(_, &doc)| keep(doc)) {
            out.docs.push(doc + offset);
            out.tf.push(pl.tf[k]);
            out.positions.extend_from_slice(pl.positions_of(k));
            out.pos_start.push(out.positions.len() as u32);
        }
    };
    if let Some(pl) = &base {
        take(pl, 0, &|doc| removed.binary_search(&doc).is_err());
    }
    if let Some(pl) = &theirs {
        take(pl, first_doc, &|_| true);
    }
    out.df = out.docs.len() as u32;
    (base.is_some() || theirs.is_some()).then(|| Arc::new(out))
}

/// A doc shard id of the joined collection, as the delta's engine numbers it.
pub(crate) fn delta_docs_id(eng: &Engine, id: ShardId) -> Option<(&Engine, ShardId)> {
    match id {
        ShardId::Docs(si) => eng.delta_shard(si).map(|(e, i)| (e, ShardId::Docs(i))),
        _ => None,
    }
}
