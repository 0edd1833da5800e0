//! The engine's shards: one registry of every file the engine may read (its manifest entry,
//! its kind and place, whether it is loaded), and the decoded form of each loaded shard.
//!
//! A shard is named by a [`ShardId`]: its kind and its place in its store. Each kind is
//! registered as one block of entries, so an id finds its entry by arithmetic and a file
//! name by binary search; adding a file decodes it with its kind's decoder (`Engine::add`)
//! and marks the entry loaded. The semantic stores (list groups, vector lists, the projection) are
//! registered when the vector index that names them is loaded.

use super::Engine;
use sift_base::error::{ErrorCode, SiftError};
use sift_format::docmeta::DocMeta;
use sift_format::docstore::StoredDoc;
use sift_format::filters::FilterIndex;
use sift_format::frame::ShardKind;
use sift_format::ids::IdShard;
use sift_format::terms::{dictionary_holds_range, TermShard};
use sift_format::vocabulary::VocabShard;
use sift_format::{KeyRangeShardRef, ShardRef};
use std::ops::Range;

/// One shard of the bundle: its kind and its place in its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum ShardId {
    /// The doc metadata, the filters and the doc store's dictionary: what every search
    /// reads in its first round.
    Startup,
    /// The folding table of the rare Unicode blocks: loaded means installed in this
    /// process, by this engine or another.
    FoldTable,
    Terms(usize),
    /// A shard of the vocabulary: what typo tolerance reads.
    Vocabulary(usize),
    Docs(usize),
    Ids(usize),
    VectorIndex,
    /// A group of vector lists: their centroids.
    ListGroup(usize),
    VectorList(usize),
    Projection,
    EncoderVocab(usize),
    EncoderRows(usize),
}

impl ShardId {
    /// Its kind, and its place in the kind's block of entries.
    fn kind_and_place(self) -> (ShardKind, usize) {
        use ShardId::*;
        match self {
            Startup => (ShardKind::Startup, 0),
            FoldTable => (ShardKind::FoldTable, 0),
            Terms(i) => (ShardKind::Terms, i),
            Vocabulary(i) => (ShardKind::Vocabulary, i),
            Docs(i) => (ShardKind::Docs, i),
            Ids(i) => (ShardKind::Ids, i),
            VectorIndex => (ShardKind::VectorIndex, 0),
            ListGroup(i) => (ShardKind::ListGroup, i),
            VectorList(i) => (ShardKind::VectorList, i),
            Projection => (ShardKind::Projection, 0),
            EncoderVocab(i) => (ShardKind::EncoderVocab, i),
            EncoderRows(i) => (ShardKind::EncoderRows, i),
        }
    }

    fn kind(self) -> ShardKind {
        self.kind_and_place().0
    }
}

/// What the keyword engine reads: the startup shard, the fold table, terms, vocabulary,
/// documents and ids (not the semantic half).
fn is_keyword(kind: ShardKind) -> bool {
    matches!(kind, ShardKind::Startup | ShardKind::FoldTable | ShardKind::Terms | ShardKind::Vocabulary | ShardKind::Docs | ShardKind::Ids)
}

struct Entry {
    shard: ShardRef,
    id: ShardId,
    loaded: bool,
}

/// Every shard file the engine knows.
#[derive(Default)]
pub(crate) struct Registry {
    entries: Vec<Entry>,
    /// Each block's entry numbers, sorted by file name (a permutation of the block's own
    /// range); a name is looked up block by block. So registering a block sorts its own
    /// names only, not every name again: a large site has thousands of doc shards, and the
    /// vector index registers its three blocks during a first hybrid query.
    by_file: Vec<u32>,
    /// Where each kind's block of entries begins and ends (by kind byte).
    blocks: [(u32, u32); 18],
    /// The stem of each store named by rule (`{stem}-{i}.bin`, `bundle::store_file`), as
    /// the manifest or the index that lists it says: its names are read, not searched for,
    /// and never sorted (opening a large site's bundle would otherwise sort thousands of
    /// names, most of its time in the browser).
    stems: [Option<String>; 18],
}

impl Registry {
    /// Register `shards` as the block of kind `make(0)`'s kind, `make(i)` naming the i-th.
    pub fn register<'a>(&mut self, shards: impl IntoIterator<Item = &'a ShardRef>, make: impl Fn(usize) -> ShardId) {
        self.add(shards, make, None);
    }

    /// Register a store named by rule: its i-th shard is `store_file(files, i)`.
    pub fn register_store<'a>(&mut self, files: &str, shards: impl IntoIterator<Item = &'a ShardRef>, make: impl Fn(usize) -> ShardId) {
        self.add(shards, make, Some(files));
    }

    fn add<'a>(&mut self, shards: impl IntoIterator<Item = &'a ShardRef>, make: impl Fn(usize) -> ShardId, stem: Option<&str>) {
        let kind = make(0).kind();
        if !cfg!(feature = "semantic") && !is_keyword(kind) {
            return; // The keyword engine neither lists nor reads the semantic shards.
        }
        let start = self.entries.len() as u32;
        for (i, shard) in shards.into_iter().enumerate() {
            self.entries.push(Entry { shard: shard.clone(), id: make(i), loaded: false });
        }
        let end = self.entries.len() as u32;
        let kind = kind as usize;
        self.blocks[kind] = (start, end);
        let mut block: Vec<u32> = (start..end).collect();
        self.stems[kind] = stem.map(str::to_string);
        if stem.is_none() {
            block.sort_unstable_by(|&a, &b| self.entries[a as usize].shard.file.cmp(&self.entries[b as usize].shard.file));
        }
        self.by_file.extend(block);
    }

    fn entry(&self, id: ShardId) -> &Entry {
        let (kind, place) = id.kind_and_place();
        &self.entries[self.blocks[kind as usize].0 as usize + place]
    }

    pub fn named(&self, file: &str) -> Option<ShardId> {
        self.blocks.iter().zip(&self.stems).find_map(|(&(start, end), stem)| {
            let block = &self.by_file[start as usize..end as usize];
            let k = match stem {
                Some(stem) => sift_format::store_place(stem, file).filter(|&k| k < block.len())?,
                None => block.binary_search_by(|&e| self.entries[e as usize].shard.file.as_str().cmp(file)).ok()?,
            };
            Some(self.entries[block[k] as usize].id)
        })
    }

    pub fn shard(&self, id: ShardId) -> &ShardRef {
        &self.entry(id).shard
    }

    pub fn is_loaded(&self, id: ShardId) -> bool {
        self.entry(id).loaded || (id == ShardId::FoldTable && sift_text::decompose::rare_folds_ready())
    }

    fn set_loaded(&mut self, id: ShardId) {
        let (kind, place) = id.kind_and_place();
        self.entries[self.blocks[kind as usize].0 as usize + place].loaded = true;
    }

    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.shard.file.as_str())
    }
}

/// What a search reads first: the startup shard's sections, decoded.
pub(crate) struct Startup {
    pub docmeta: DocMeta,
    pub filters: FilterIndex,
    /// The doc store's preset dictionary: what codec 2 (doc shards) inflates after.
    pub dictionary: Option<Vec<u8>>,
}

/// A doc shard, decoded: its documents, and (where this runtime lacks folding's rare
/// blocks and the bundle carries them) which of them have such a character in the text a
/// search analyses — worked out once as the shard is added, not on every search.
pub(crate) struct DocShard {
    pub docs: Vec<StoredDoc>,
    pub rare_folds: Vec<bool>,
}

/// A vector of `n` empty slots.
pub(crate) fn slots<T>(n: usize) -> Vec<Option<T>> {
    (0..n).map(|_| None).collect()
}

impl Engine {
    /// Verify and decode a shard file (with its payload inflated by the host when the
    /// engine has no inflater), keeping it only when it is the shard the registry expects.
    pub(super) fn add(&mut self, file: &str, bytes: &[u8], payload: Option<Vec<u8>>) -> Result<(), SiftError> {
        let id = self.registry.named(file).ok_or_else(|| SiftError::corrupt(msg!("{} is not a shard of this bundle", file)))?;
        let dictionary = self.startup.as_ref().and_then(|s| s.dictionary.as_deref());
        let with = sift_format::Inflation { payload, dictionary };
        let payload = sift_format::decode_shard_with(bytes, with, id.kind(), self.registry.shard(id))?;
        let n = self.manifest.doc_count;
        match id {
            ShardId::Startup => {
                let s = sift_format::startup::decode(&payload)?;
                if s.dictionary.is_some() != self.manifest.doc_dictionary {
                    return Err(SiftError::corrupt("the startup shard and the manifest disagree on the doc store's dictionary"));
                }
                if s.dictionary.is_some_and(|d| d.len() > sift_format::dictionary::MAX_DICTIONARY_BYTES) {
                    return Err(SiftError::corrupt(msg!("doc store dictionary {} is implausibly large", file)));
                }
                let (docmeta, filters) = (DocMeta::decode(s.docmeta, n)?, FilterIndex::decode(s.filters, n)?);
                self.startup = Some(Startup { docmeta, filters, dictionary: s.dictionary.map(<[u8]>::to_vec) });
            }
            ShardId::FoldTable => {
                sift_text::decompose::install_rare_folds(payload).map_err(|e| SiftError::corrupt(msg!("{}: {}", file, e.message)))?
            }
            ShardId::Terms(i) => {
                let shard = TermShard::decode(payload)?;
                check_range("term", file, &self.manifest.term_shards, i, &shard.map)?;
                self.terms[i] = Some(shard);
            }
            ShardId::Vocabulary(i) => {
                let shard = VocabShard::decode(payload)?;
                check_range("vocabulary", file, &self.manifest.vocabulary, i, &shard.map)?;
                self.vocabulary[i] = Some(shard);
            }
            ShardId::Docs(i) => {
                let docs = StoredDoc::decode(&payload, self.manifest.doc_shards[i].docs, i as u32)?;
                let rare_folds = if self.lacks_rare_folds() {
                    docs.iter().map(|sd| sd.analysed_text().any(has_rare_block_char)).collect()
                } else {
                    Vec::new()
                };
                self.docs[i] = Some(DocShard { docs, rare_folds });
            }
            ShardId::Ids(i) => self.ids[i] = Some(IdShard::decode(payload, n)?),
            #[cfg(feature = "semantic")]
            ShardId::VectorIndex => {
                let dim = self.vector_dim();
                let ix = sift_format::vindex::VectorIndex::decode(&payload, self.manifest.vectors.as_ref().map_or(0, |v| v.chunks))?;
                if ix.dim != dim {
                    return Err(SiftError::corrupt(msg!("vector index {} has {} dimensions, the manifest says {}", file, ix.dim, dim)));
                }
                self.vector_lists = slots(ix.lists.len());
                self.list_groups = slots(ix.groups.shards.len());
                self.registry.register_store(&ix.list_files, &ix.lists, ShardId::VectorList);
                self.registry.register_store(&ix.groups.files, &ix.groups.shards, ShardId::ListGroup);
                self.registry.register([&ix.projection], |_| ShardId::Projection);
                self.vector_index = Some(ix);
            }
            #[cfg(feature = "semantic")]
            ShardId::ListGroup(i) => {
                let lists = self.vector_index.as_ref().map_or(0..0, |ix| ix.groups.lists(i)).len();
                self.list_groups[i] = Some(sift_format::encoder::decode_row_shard(&payload, self.vector_dim(), lists, i, "list group")?);
            }
            #[cfg(feature = "semantic")]
            ShardId::VectorList(i) => {
                let (dim, set) = (self.vector_dim(), sift_format::vectors::VectorSet::decode(&payload, n, i)?);
                let want = self.vector_index.as_ref().map_or(0, |ix| ix.counts[i] as usize);
                if set.dim != dim || set.len() != want {
                    return Err(SiftError::corrupt(msg!("vector list {} does not match the vector index", file)));
                }
                self.vector_lists[i] = Some(set);
            }
            #[cfg(feature = "semantic")]
            ShardId::Projection => {
                let model_dim = self.vector_index.as_ref().map_or(0, |ix| ix.model_dim);
                self.projection = Some(sift_format::vindex::decode_projection(&payload, model_dim, self.vector_dim())?);
            }
            #[cfg(feature = "semantic")]
            ShardId::EncoderVocab(i) => {
                let n_rows = self.encoder_index.as_ref().map_or(0, |ix| ix.n_rows);
                self.encoder_vocab[i] = Some(sift_format::encoder::VocabGroup::decode(payload, n_rows, i)?);
            }
            #[cfg(feature = "semantic")]
            ShardId::EncoderRows(i) => {
                let expected = self.encoder_index.as_ref().map_or(0, |ix| ix.rows_in(i));
                self.encoder_rows[i] = Some(sift_format::encoder::EncoderRows::decode(&payload, self.vector_dim(), expected, i)?);
            }
            // The keyword engine registers no semantic shard, so none reaches here.
            #[cfg(not(feature = "semantic"))]
            _ => return Err(not_read(file)),
        }
        self.registry.set_loaded(id);
        Ok(())
    }

    /// Dimensions of the bundle's vectors (0 without them).
    #[cfg(feature = "semantic")]
    fn vector_dim(&self) -> usize {
        self.manifest.vectors.as_ref().map_or(0, |v| v.dim as usize)
    }

    pub(crate) fn has(&self, id: ShardId) -> bool {
        match crate::delta::delta_docs_id(self, id) {
            Some((delta, id)) => delta.has(id),
            None => self.registry.is_loaded(id),
        }
    }

    /// Whether this runtime lacks the rare blocks' folds and the bundle carries them.
    pub(super) fn lacks_rare_folds(&self) -> bool {
        self.manifest.fold_table.is_some() && !sift_text::decompose::rare_folds_ready()
    }

    /// The fold table, when this runtime lacks the rare blocks' folds and `text` (a query)
    /// has a character of those blocks.
    pub(crate) fn fold_table_for(&self, text: &str) -> Option<ShardId> {
        (self.lacks_rare_folds() && has_rare_block_char(text)).then_some(ShardId::FoldTable)
    }

    /// [`Engine::fold_table_for`] the analysed text (titles, headings, section text) of
    /// pages as loaded doc shards hold them: `(doc, doc shard)`.
    pub(crate) fn fold_table_for_pages(&self, pages: impl IntoIterator<Item = (u32, usize)>) -> Option<ShardId> {
        if !self.lacks_rare_folds() {
            return None;
        }
        let rare = |(doc, si): (u32, usize)| {
            let k = doc.checked_sub(self.manifest.doc_shards.get(si)?.first_doc)? as usize;
            self.docs.get(si)?.as_ref()?.rare_folds.get(k).copied()
        };
        pages.into_iter().any(|p| rare(p).unwrap_or(false)).then_some(ShardId::FoldTable)
    }

    /// Term shards whose range may hold `term`.
    pub(crate) fn shard_for_term(&self, term: &str) -> Option<usize> {
        key_range_shard(&self.manifest.term_shards, term)
    }

    /// Term shards whose range overlaps the terms starting with `prefix`.
    pub(crate) fn shards_for_prefix(&self, prefix: &str) -> Vec<usize> {
        key_ranges_for_prefix(&self.manifest.term_shards, prefix)
    }

    /// Vocabulary shards whose range overlaps the terms starting with `prefix`.
    pub(crate) fn vocab_shards_for_prefix(&self, prefix: &str) -> Vec<usize> {
        key_ranges_for_prefix(&self.manifest.vocabulary, prefix)
    }

    /// The doc shard holding `doc` — for a page stored in parts, its first part.
    pub(crate) fn doc_shard_of(&self, doc: u32) -> usize {
        self.doc_parts(doc).start
    }

    /// Every doc shard holding part of `doc`: one, or a long page's parts in order. (A
    /// delta's document in the delta's doc shards, numbered after the base's.)
    pub(crate) fn doc_parts(&self, doc: u32) -> Range<usize> {
        if let Some((delta, doc)) = self.delta_doc(doc) {
            let own = delta.doc_parts(doc);
            let n = self.manifest.doc_shards.len();
            return own.start + n..own.end + n;
        }
        let first = self.manifest.doc_shards.partition_point(|d| d.first_doc + d.docs <= doc);
        let shards = &self.manifest.doc_shards;
        let n = shards[first.min(shards.len())..].iter().skip(1).take_while(|d| d.first_doc == doc && d.first_pos.is_some()).count();
        first..(first + 1 + n).min(shards.len())
    }

    /// Where each of these doc shards' parts (of one page) starts in the page's position
    /// space.
    pub(crate) fn part_starts(&self, parts: Range<usize>) -> Vec<u32> {
        if let Some((delta, first)) = self.delta_shard(parts.start) {
            return delta.part_starts(first..first + parts.len());
        }
        self.manifest.doc_shards[parts].iter().map(|d| d.first_pos.unwrap_or(0)).collect()
    }

    /// Where the part in doc shard `shard` ends in its page's position space (None: at the
    /// page's end).
    pub(crate) fn doc_part_end(&self, shard: usize) -> Option<u32> {
        if let Some((delta, shard)) = self.delta_shard(shard) {
            return delta.doc_part_end(shard);
        }
        let this = self.manifest.doc_shards.get(shard)?;
        let next = self.manifest.doc_shards.get(shard + 1)?;
        next.continues(this).then_some(next.first_pos?)
    }
}

/// A shard added under a name the engine does not read.
pub(crate) fn not_read(file: &str) -> SiftError {
    SiftError::new(
        ErrorCode::InvalidRequest,
        msg!("{} is a shard of semantic search, which this runtime (the keyword engine) does not read", file),
    )
}

fn has_rare_block_char(text: &str) -> bool {
    text.chars().any(sift_text::decompose::in_rare_blocks)
}

/// A key-range shard (`ranges[i]`, its dictionary `map`) must hold the range the manifest
/// gives it: one served under another shard's name holds another range.
fn check_range(what: &str, file: &str, ranges: &[KeyRangeShardRef], i: usize, map: &fst::Map<Vec<u8>>) -> Result<(), SiftError> {
    let next = ranges.get(i + 1).map(|t| t.first.as_str());
    if dictionary_holds_range(map, &ranges[i].first, next) {
        return Ok(());
    }
    Err(SiftError::corrupt(msg!(
        "{} shard {} does not hold the terms from {} the manifest gives it (another shard's file under its name?)",
        what,
        file,
        sift_base::error::Quoted(&ranges[i].first)
    )))
}

/// The shards of a sorted list of key ranges that overlap the keys starting with `prefix`.
fn key_ranges_for_prefix(shards: &[KeyRangeShardRef], prefix: &str) -> Vec<usize> {
    // A shard's keys end before the next shard's first.
    let ends_after = |i: usize| shards.get(i + 1).is_none_or(|next| next.first.as_str() > prefix);
    (0..shards.len()).filter(|&i| ends_after(i) && (shards[i].first.as_str() <= prefix || shards[i].first.starts_with(prefix))).collect()
}

/// The shard of a sorted list of key ranges that may hold `key`.
pub(crate) fn key_range_shard(ranges: &[KeyRangeShardRef], key: &str) -> Option<usize> {
    let i = ranges.partition_point(|t| t.first.as_str() <= key);
    if i == 0 {
        return None;
    }
    // Without a listed last key (the term store) the shard before the next one's first may
    // hold it.
    ranges[i - 1].last.as_ref().is_none_or(|last| key <= last.as_str()).then_some(i - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(names: &[&str]) -> Vec<ShardRef> {
        names.iter().map(|n| ShardRef { file: n.to_string(), check: None }).collect()
    }

    #[test]
    fn names_by_rule_are_read_and_only_as_the_rule_writes_them() {
        let mut r = Registry::default();
        r.register_store("d-ab", &sift_format::table::store_refs("d-ab", 12), ShardId::Docs);
        r.register(&refs(&["i-z.bin", "i-a.bin", "i-m.bin"]), ShardId::Ids);
        assert!(r.stems[ShardKind::Docs as usize].is_some() && r.stems[ShardKind::Ids as usize].is_none());
        for i in [0, 1, 2, 10, 11] {
            assert_eq!(r.named(&sift_format::store_file("d-ab", i)), Some(ShardId::Docs(i)));
        }
        for bad in ["d-ab-12.bin", "d-ab-01.bin", "d-ab-+1.bin", "d-ab-.bin", "d-ab-1.bin.bin", "d-ab1.bin", "d-a-1.bin", "d-ab-1"] {
            assert_eq!(r.named(bad), None, "{bad}");
        }
        // A block named otherwise is searched.
        assert_eq!(r.named("i-m.bin"), Some(ShardId::Ids(2)));
        assert_eq!(r.named("i-a.bin"), Some(ShardId::Ids(1)));
        assert_eq!(r.named("i-b.bin"), None);
    }
}
