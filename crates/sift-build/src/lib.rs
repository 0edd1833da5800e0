//! Sift's bundle builder: pages in ([`Pages`], their text on disk, or `SourceDoc`s held),
//! bundle files (manifest + shards) out, in memory. Deterministic: the same documents in
//! the same order give the same bytes. Build time only, never in a browser: it uses every
//! core (rayon).
//!
//! `build` reads as its stages: [`invert`] (analysis and inversion), [`store`] (the doc
//! store's plan), each artifact's payloads (`sift_format`'s writers), the semantic half
//! ([`semantic`]: projection, vector lists, the static encoder's fit), then framing, naming
//! and the manifest.

pub use sift_base::{Section, SiftError, SourceDoc};

pub mod chunk;
mod invert;
pub mod pages;
pub mod semantic;
mod spill;
mod store;

pub use invert::MAX_TERMS_PER_DOC;
pub use pages::Pages;
pub use semantic::layout::{EncoderInput, SemanticInput};
pub use store::MAX_DOC_SHARDS;

use invert::invert;
use semantic::layout::lay_out;
use sift_format::docmeta::{self, DocMeta};
use sift_format::encoder::{EncoderLayout, ROWS_PER_SHARD};
use sift_format::fields::{Bm25fParams, N_FIELDS};
use sift_format::filters::FilterIndex;
use sift_format::manifest::EncoderRef;
use sift_format::terms::{ShardWriter, TermEntry};
use sift_format::vindex::{ListGroups, VectorIndex};
use sift_format::{dictionary, ids, startup, vocabulary, DocShardRef, KeyRangeShardRef, Manifest, ShardKind, ShardRef, VectorsRef};
pub use sift_text::analyzer::Analyzer;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use store::{each_doc_shard, plan_doc_store};

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub params: Bm25fParams,
    /// Fields usable in `filters`/`facets`. `None`: every metadata field whose values look
    /// like categories (short, repeated).
    pub filter_fields: Option<Vec<String>>,
    /// Target decoded size of a term shard's postings, in bytes. A query reads one shard
    /// per word (more for prefixes), so this is most of its term bytes; each shard costs
    /// the manifest its separator. Smaller shards make a longer manifest, larger ones read
    /// more a word (bench/results/decisions.md).
    pub term_shard_target: usize,
    /// Target decoded size of a document-store shard, in bytes. A result reads the shard
    /// holding its page, so a page bigger than this is alone in its shard and a first page
    /// of results reads ten pages, not ten pages and their neighbours.
    pub doc_shard_target: usize,
    /// A page whose text is bigger than this, in bytes, is stored in parts of about this
    /// size (runs of its sections; 0: never), so a result fetches only the part its snippet
    /// comes from. Smaller parts read fewer bytes and hold fewer of a page's sections to
    /// show as sub-results.
    pub doc_part_target: usize,
    /// A doc store of at least this many bytes gets a preset dictionary
    /// (`sift_format::dictionary`); a smaller one is deflated plainly. Tests lower it to give a
    /// small corpus one.
    pub doc_dictionary_from: usize,
    /// The vocabulary (`sift_format::vocabulary`, what typo tolerance reads): a new shard starts
    /// at a first letter once the current one holds this many bytes of terms, so big letters
    /// are alone and small ones together.
    pub vocabulary_target: usize,
    /// Recorded in the manifest (`sift 0.1.0`).
    pub generator: String,
    /// The semantic half, when building with an embedder: the chunks' embeddings and the
    /// static encoder's training data, made by the host.
    pub semantic: Option<SemanticInput>,
    /// Told the name of each step as it starts (a host's progress display).
    pub on_step: OnStep,
    /// How the pages' text is analysed (their language's stemmer and stop words).
    pub analyzer: Analyzer,
    /// Bytes of postings held in memory before they are written to disk as a run
    /// (`spill`): what keeps a big site's build in bounded memory. The bundle's bytes are
    /// the same whatever it is.
    pub postings_memory: usize,
}

/// What a build tells its host as it goes (`BuildOptions::on_step`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildEvent<'a> {
    /// A step starts.
    Step(&'a str),
    /// `done` of the current step's `total` units (pages, terms, shards) are done.
    Progress { done: u64, total: u64 },
}

/// A host's progress callback (`BuildOptions::on_step`); none by default.
#[derive(Clone, Default)]
pub struct OnStep(pub Option<std::sync::Arc<dyn Fn(BuildEvent<'_>) + Send + Sync>>);

impl OnStep {
    fn step(&self, what: &str) {
        if let Some(f) = &self.0 {
            f(BuildEvent::Step(what))
        }
    }

    fn progress(&self, done: usize, total: usize) {
        if let Some(f) = &self.0 {
            f(BuildEvent::Progress { done: done as u64, total: total as u64 })
        }
    }
}

impl std::fmt::Debug for OnStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "OnStep(Some)" } else { "OnStep(None)" })
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            params: Bm25fParams::default(),
            filter_fields: None,
            term_shard_target: 4 * 1024,
            doc_shard_target: 4 * 1024,
            doc_part_target: 5 * 1024,
            doc_dictionary_from: dictionary::MIN_STORE_BYTES,
            vocabulary_target: vocabulary::VOCABULARY_TARGET,
            generator: format!("sift {}", env!("CARGO_PKG_VERSION")),
            semantic: None,
            on_step: OnStep::default(),
            analyzer: Analyzer::english().clone(),
            postings_memory: 256 << 20,
        }
    }
}

/// The bundle as it will be written: file name → bytes, plus the manifest.
pub struct BuiltBundle {
    pub manifest: Manifest,
    /// Shard files in manifest order. `manifest.json` is not among them.
    pub shards: Vec<(String, Vec<u8>)>,
    pub warnings: Vec<String>,
}

impl BuiltBundle {
    pub fn manifest_bytes(&self) -> Vec<u8> {
        self.manifest.to_json_bytes()
    }
    pub fn total_bytes(&self) -> u64 {
        self.manifest_bytes().len() as u64 + self.shards.iter().map(|(_, b)| b.len() as u64).sum::<u64>()
    }
}

/// `items.map(f)` on every core, in order.
pub(crate) fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    use rayon::prelude::*;
    items.par_iter().map(f).collect()
}

/// Where a build puts each shard file as soon as it is framed, so that a big site's
/// compressed bundle is never held whole: in memory ([`build_pages`], for tests and
/// libraries) or in a directory (the CLI's staging folder, swapped in when the build is
/// done). A shard is put under a staging name and renamed once its name is known: a store
/// named by rule (`<prefix>-<hash>-<n>.bin`) hashes every shard of the store first.
pub trait ShardSink {
    fn put(&mut self, file: &str, bytes: Vec<u8>) -> Result<(), SiftError>;
    fn rename(&mut self, from: &str, to: &str) -> Result<(), SiftError>;
}

/// Shards held in memory, file name → bytes (two shards of the same content are one file,
/// as on disk).
impl ShardSink for BTreeMap<String, Vec<u8>> {
    fn put(&mut self, file: &str, bytes: Vec<u8>) -> Result<(), SiftError> {
        self.insert(file.to_string(), bytes);
        Ok(())
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), SiftError> {
        let bytes = self.remove(from).ok_or_else(|| SiftError::internal(format!("no shard {from} to rename")))?;
        self.insert(to.to_string(), bytes);
        Ok(())
    }
}

/// Build a bundle of pages held in memory ([`build_pages`]).
pub fn build(docs: &[SourceDoc], opts: &BuildOptions) -> Result<BuiltBundle, SiftError> {
    build_pages(Pages::of(docs.iter().cloned())?, opts)
}

/// [`build_into`] memory: the bundle with its shards in manifest order.
pub fn build_pages(pages: Pages, opts: &BuildOptions) -> Result<BuiltBundle, SiftError> {
    let mut files = BTreeMap::new();
    let (manifest, warnings) = build_into(pages, opts, &mut files)?;
    // Manifest order first, the index shards' children after (by name).
    let order: HashMap<String, usize> = manifest.all_shards().enumerate().map(|(i, s)| (s.file.clone(), i)).collect();
    let mut shards: Vec<(String, Vec<u8>)> = files.into_iter().collect();
    shards.sort_by_key(|(name, _)| order.get(name).copied().unwrap_or(usize::MAX));
    Ok(BuiltBundle { manifest, shards, warnings })
}

/// Build a bundle: analyse and invert the pages, cut the doc store, encode each artifact,
/// frame the shards (compressed on every core) into `sink` as they are made, and return the
/// manifest that lists them, with the build's warnings. The pages' text is read back from
/// disk for each pass that needs it ([`pages`]).
pub fn build_into(mut pages: Pages, opts: &BuildOptions, sink: &mut (dyn ShardSink + Send)) -> Result<(Manifest, Vec<String>), SiftError> {
    pages.finish()?;
    let pages = &pages;
    check_ids(pages)?;
    let mut warnings = Vec::new();
    opts.on_step.step("analysing and inverting the pages");
    let mut inverted = invert(pages, &opts.analyzer, opts.postings_memory, &opts.on_step, &mut warnings)?;
    // The doc store is planned first: a long page's positions move onto its parts' grid
    // (`sift_format::partition`) as the postings are written.
    opts.on_step.step("planning the doc store");
    let store_plan =
        plan_doc_store(pages, &inverted.section_starts, &inverted.ends, opts.doc_shard_target, opts.doc_part_target, MAX_DOC_SHARDS)?;

    // Each artifact's payloads. The doc store is the site's text again, so it is never held
    // as payloads: a pass over it measures each shard, a second makes the ones the
    // dictionary learns from (trained on one core while the terms, the vocabulary, the ids
    // and the semantic half are encoded beside it), and a third compresses each shard as it
    // is made.
    let section_starts = std::mem::take(&mut inverted.section_starts);
    let mut doc_sizes = Vec::new();
    each_doc_shard(
        pages,
        &section_starts,
        &store_plan,
        |_| true,
        |_, p| {
            doc_sizes.push(p.3.len());
            Ok(())
        },
    )?;
    let train_dictionary = || -> Result<Option<Vec<u8>>, SiftError> {
        if doc_sizes.iter().sum::<usize>() < opts.doc_dictionary_from {
            return Ok(None);
        }
        let sample: BTreeSet<usize> = dictionary::training_sample(&doc_sizes).collect();
        let mut payloads = Vec::with_capacity(sample.len());
        each_doc_shard(
            pages,
            &section_starts,
            &store_plan,
            |place| sample.contains(&place),
            |_, p| {
                payloads.push(p.3);
                Ok(())
            },
        )?;
        let samples: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        Ok(Some(dictionary::train(&samples, dictionary::DICTIONARY_BYTES)).filter(|d| !d.is_empty()))
    };
    let mut terms: Vec<&str> = inverted.postings.keys().map(String::as_str).collect();
    terms.sort_unstable();
    let mut stage = Stage { sink, staged: 0 };
    let encode_the_rest = || -> Result<_, SiftError> {
        opts.on_step.step("encoding the terms, the vocabulary and the doc store");
        let postings = Postings { terms: &terms, entries: &inverted.postings, runs: std::mem::take(&mut inverted.runs) };
        // The term shards framed into the sink a batch at a time as they are encoded: the
        // largest store after the doc store is never held as payloads either. Each keeps
        // its first and last term, which the manifest lists.
        let (mut term_keys, mut term_staged) = (Vec::new(), Vec::new());
        let mut frame_terms = |batch: Vec<(String, String, Vec<u8>)>| -> Result<(), SiftError> {
            let mut payloads = Vec::with_capacity(batch.len());
            for (first, last, payload) in batch {
                term_keys.push((first, last, ()));
                payloads.push(payload);
            }
            term_staged.extend(stage.frame(ShardKind::Terms, payloads, None)?);
            Ok(())
        };
        term_shards(
            postings,
            opts.term_shard_target,
            MAX_TERM_SHARDS,
            &|doc, pos| store_plan.remap(doc, pos),
            &opts.on_step,
            &mut frame_terms,
        )?;
        // Definitions' keys are not words: nothing completes or corrects to them.
        let with_df: Vec<(&str, u32)> =
            terms.iter().filter(|t| !sift_text::symbol::is_key(t)).map(|&t| (t, inverted.postings[t].df())).collect();
        let spellings = |t: &str| inverted.postings[t].surfaces.keys().map(String::as_str).collect::<Vec<_>>();
        let vocab_payloads = vocabulary::encode(&vocabulary::entries(&opts.analyzer, &with_df, spellings), opts.vocabulary_target)?;
        let id_payloads = ids::encode(&(0..pages.len()).map(|i| pages.id(i)).collect::<Vec<_>>())?;
        if opts.semantic.is_some() {
            opts.on_step.step("laying out the vectors and fitting the query encoder");
        }
        let semantic = opts.semantic.as_ref().map(|s| lay_out(s, pages.len())).transpose()?;
        Ok(((term_keys, term_staged), vocab_payloads, id_payloads, semantic))
    };
    let (dictionary, rest) = rayon::join(train_dictionary, encode_the_rest);
    let (dictionary, ((term_keys, term_staged), mut vocab_payloads, mut id_payloads, mut semantic)) = (dictionary?, rest?);
    // The postings are in the term shards now: their memory goes before compressing.
    drop(terms);
    let term_count = std::mem::take(&mut inverted.postings).len() as u64;
    opts.on_step.step("compressing the doc store");
    let (doc_shards, doc_framed) = frame_doc_store(pages, &section_starts, &store_plan, dictionary.as_deref(), &opts.on_step, &mut stage)?;
    let filter_fields = choose_filter_fields(pages.heads(), opts.filter_fields.as_deref(), &mut warnings);
    let startup_payload = startup::encode(
        &doc_meta(pages.heads(), std::mem::take(&mut inverted.lens), &mut warnings).encode(),
        &filter_index(pages.heads(), &filter_fields).encode(),
        dictionary.as_deref(),
    );

    // Framed, each kind's shards a block of their own. The rare blocks' folding table goes
    // into every bundle for runtimes that leave it out. The framer takes the payloads
    // (what is left of them is what the manifest needs).
    let mut framer = Framer { blocks: Vec::new(), shards: 0, dictionary: dictionary.as_deref() };
    let startup_at = framer.add(ShardKind::Startup, [startup_payload]);
    let fold_at = framer.add(ShardKind::FoldTable, sift_text::decompose::rare_folds_bytes().into_iter().map(<[u8]>::to_vec));
    let terms_at = framer.add_staged(term_staged);
    let vocab_at = framer.add(ShardKind::Vocabulary, vocab_payloads.iter_mut().map(|t| std::mem::take(&mut t.2)));
    let docs_at = framer.add_staged(doc_framed);
    let ids_at = framer.add(ShardKind::Ids, id_payloads.iter_mut().map(|t| std::mem::take(&mut t.2)));
    let lists_at = framer.add(ShardKind::VectorList, semantic.iter_mut().flat_map(|s| s.lists.iter_mut().map(std::mem::take)));
    let list_groups_at = framer.add(ShardKind::ListGroup, semantic.iter_mut().flat_map(|s| s.groups.iter_mut().map(std::mem::take)));
    let projection_at = framer.add(ShardKind::Projection, semantic.iter_mut().map(|s| std::mem::take(&mut s.projection)));
    let encoder = semantic.as_mut().and_then(|s| s.encoder.as_mut());
    let (groups, rows) = encoder.map(|e| (std::mem::take(&mut e.groups), std::mem::take(&mut e.rows))).unwrap_or_default();
    let groups_at = framer.add(ShardKind::EncoderVocab, groups);
    let rows_at = framer.add(ShardKind::EncoderRows, rows);
    opts.on_step.step("compressing the shards");
    let mut framed = framer.frame(&opts.on_step, &mut stage)?;
    let encoder = semantic.as_ref().and_then(|s| s.encoder.as_ref());

    // Stores named by rule, and the manifest.
    let term_files = framed.name_by_rule(terms_at.clone(), ShardKind::Terms);
    let vocab_files = framed.name_by_rule(vocab_at.clone(), ShardKind::Vocabulary);
    let doc_files = framed.name_by_rule(docs_at.clone(), ShardKind::Docs);
    let vectors = match (&semantic, &opts.semantic) {
        (Some(sem), Some(input)) => {
            let index = VectorIndex {
                model_dim: sem.model_dim,
                dim: sem.dim,
                probe: sem.probe as u32,
                lists: framed.refs(lists_at.clone()),
                list_files: framed.name_by_rule(lists_at, ShardKind::VectorList),
                counts: sem.counts.clone(),
                centroids: sem.centroids.clone(),
                groups: ListGroups {
                    probe: sem.group_probe as u32,
                    shards: framed.refs(list_groups_at.clone()),
                    files: if sem.group_sizes.is_empty() {
                        String::new()
                    } else {
                        framed.name_by_rule(list_groups_at, ShardKind::ListGroup)
                    },
                    sizes: sem.group_sizes.clone(),
                    centroids: sem.group_centroids.clone(),
                },
                projection: framed.refs(projection_at).remove(0),
            };
            let staged = stage.put(named(ShardKind::VectorIndex, sift_format::encode_shard(ShardKind::VectorIndex, &index.encode()?)))?;
            let shard = staged.0.clone();
            framed.shards.push(staged);
            Some(VectorsRef {
                model: input.model.clone(),
                dim: sem.dim as u32,
                model_dim: sem.model_dim as u32,
                chunks: sem.chunks as u32,
                index: shard,
            })
        }
        _ => None,
    };
    let encoder = encoder.map(|e| EncoderRef {
        layout: EncoderLayout {
            dim: e.dim,
            rows_per_shard: ROWS_PER_SHARD,
            n_rows: e.n_rows,
            n_word_groups: e.n_word_groups,
            n_continuation_groups: e.n_continuation_groups,
            group_files: framed.name_by_rule(groups_at, ShardKind::EncoderVocab),
            row_files: framed.name_by_rule(rows_at, ShardKind::EncoderRows),
        },
        texts: e.report.texts as u32,
    });
    let doc_shards = doc_shards
        .into_iter()
        .zip(framed.refs(docs_at))
        .map(|((first_doc, docs, first_pos), shard)| DocShardRef { shard, first_doc, docs, first_pos })
        .collect();
    let manifest = Manifest {
        generator: opts.generator.clone(),
        doc_count: pages.len() as u32,
        term_count,
        params: opts.params.stored(),
        field_tokens: inverted.field_tokens,
        filter_fields,
        startup: framed.refs(startup_at).remove(0),
        doc_dictionary: dictionary.is_some(),
        term_files,
        term_shards: key_ranges(&term_keys, framed.refs(terms_at), false),
        vocab_files,
        vocabulary: key_ranges(&vocab_payloads, framed.refs(vocab_at), false),
        doc_files,
        doc_shards,
        part_positions: store_plan.window,
        id_shards: key_ranges(&id_payloads, framed.refs(ids_at), true),
        fold_table: framed.refs(fold_at).pop(),
        vectors,
        encoder,
        language: opts.analyzer.language().to_string(),
        stop_words: opts.analyzer.stored_stop_words().to_vec(),
        languages: Vec::new(),
    };
    for (shard, staged) in &framed.shards {
        stage.sink.rename(staged, &shard.file)?;
    }
    Ok((manifest, warnings))
}

/// The sink, and how many shards went into it under a staging name.
struct Stage<'s> {
    sink: &'s mut (dyn ShardSink + Send),
    staged: usize,
}

impl Stage<'_> {
    /// Put a framed shard into the sink under a staging name of its own (two shards can
    /// have the same content), which is returned with its manifest entry.
    fn put(&mut self, (shard, (_, bytes)): FramedShard) -> Result<StagedShard, SiftError> {
        let staged = format!("staged-{}.bin", self.staged);
        self.staged += 1;
        self.sink.put(&staged, bytes)?;
        Ok((shard, staged))
    }

    /// Payloads of one kind framed and compressed on every core, then put into the sink in
    /// order.
    fn frame(&mut self, kind: ShardKind, payloads: Vec<Vec<u8>>, dictionary: Option<&[u8]>) -> Result<Vec<StagedShard>, SiftError> {
        use rayon::prelude::*;
        let framed: Vec<FramedShard> = payloads.into_par_iter().map(|p| frame_one(kind, &p, dictionary)).collect();
        framed.into_iter().map(|f| self.put(f)).collect()
    }
}

/// Shard payloads to frame (or framed already), each kind's a block of its own.
struct Framer<'a> {
    blocks: Vec<Block>,
    /// Shards in the blocks so far.
    shards: usize,
    /// The doc store's dictionary, which doc shards are compressed after.
    dictionary: Option<&'a [u8]>,
}

/// A shard framed under its content name, with its manifest entry.
type FramedShard = (ShardRef, (String, Vec<u8>));

/// A shard in the sink: its manifest entry (whose file is the name it will have) and its
/// staging name.
type StagedShard = (ShardRef, String);

enum Block {
    Payloads(ShardKind, Vec<Vec<u8>>),
    Staged(Vec<StagedShard>),
}

/// A payload framed and compressed (a doc shard after the dictionary, when there is one).
fn frame_one(kind: ShardKind, payload: &[u8], dictionary: Option<&[u8]>) -> FramedShard {
    match (kind, dictionary) {
        (ShardKind::Docs, Some(d)) => named(kind, sift_format::encode_shard_with_dictionary(kind, payload, d)),
        _ => named(kind, sift_format::encode_shard(kind, payload)),
    }
}

/// The doc store's shards compressed as they are made, a batch at a time on every core, and
/// put into the sink: each one's (first doc, docs, first position of a part), and the
/// staged shards.
fn frame_doc_store(
    pages: &Pages,
    section_starts: &[Vec<u32>],
    plan: &store::StorePlan,
    dictionary: Option<&[u8]>,
    on_step: &OnStep,
    stage: &mut Stage,
) -> Result<(Vec<(u32, u32, Option<u32>)>, Vec<StagedShard>), SiftError> {
    let (mut places, mut staged, mut batch) = (Vec::new(), Vec::new(), Vec::new());
    let total = plan.shard_count();
    let mut compress = |batch: &mut Vec<Vec<u8>>, staged: &mut Vec<StagedShard>| -> Result<(), SiftError> {
        staged.extend(stage.frame(ShardKind::Docs, std::mem::take(batch), dictionary)?);
        on_step.progress(staged.len(), total);
        Ok(())
    };
    each_doc_shard(
        pages,
        section_starts,
        plan,
        |_| true,
        |_, (first_doc, n, first_pos, payload)| {
            places.push((first_doc, n, first_pos));
            batch.push(payload);
            if batch.len() == FRAMED_AT_A_TIME {
                compress(&mut batch, &mut staged)?;
            }
            Ok(())
        },
    )?;
    compress(&mut batch, &mut staged)?;
    Ok((places, staged))
}

/// Payloads framed at a time: each is freed once framed, so a big site's bundle is not
/// held both ways at once.
const FRAMED_AT_A_TIME: usize = 256;

impl Framer<'_> {
    /// Add a kind's payloads; the block they take.
    fn add(&mut self, kind: ShardKind, payloads: impl IntoIterator<Item = Vec<u8>>) -> Range<usize> {
        let payloads: Vec<Vec<u8>> = payloads.into_iter().collect();
        self.block(payloads.len(), Block::Payloads(kind, payloads))
    }

    /// Add shards in the sink already (the doc store's, the terms'); the block they take.
    fn add_staged(&mut self, staged: Vec<StagedShard>) -> Range<usize> {
        self.block(staged.len(), Block::Staged(staged))
    }

    fn block(&mut self, n: usize, block: Block) -> Range<usize> {
        self.blocks.push(block);
        self.shards += n;
        self.shards - n..self.shards
    }

    /// Every payload framed and compressed (on every core, a batch at a time, each freed
    /// once framed) and put into the sink.
    fn frame(self, on_step: &OnStep, stage: &mut Stage) -> Result<Framed, SiftError> {
        let mut shards = Vec::with_capacity(self.shards);
        on_step.progress(0, self.shards);
        for block in self.blocks {
            match block {
                Block::Staged(staged) => shards.extend(staged),
                Block::Payloads(kind, payloads) => {
                    let mut payloads = payloads.into_iter();
                    loop {
                        let batch: Vec<Vec<u8>> = payloads.by_ref().take(FRAMED_AT_A_TIME).collect();
                        if batch.is_empty() {
                            break;
                        }
                        shards.extend(stage.frame(kind, batch, self.dictionary)?);
                        on_step.progress(shards.len(), self.shards);
                    }
                }
            }
        }
        Ok(Framed { shards })
    }
}

/// The shards in the sink, with their manifest entries.
struct Framed {
    shards: Vec<StagedShard>,
}

impl Framed {
    fn refs(&self, block: Range<usize>) -> Vec<ShardRef> {
        self.shards[block].iter().map(|(r, _)| r.clone()).collect()
    }

    /// Name a store's shards by rule, `<prefix>-<hash>-<n>.bin`, the hash being over their
    /// content names (so any change to the store renames every shard of it: still safe to
    /// cache forever); the manifest then lists them without a size and checksum each.
    /// Returns `<prefix>-<hash>`.
    fn name_by_rule(&mut self, block: Range<usize>, kind: ShardKind) -> String {
        let mut h = blake3::Hasher::new();
        for (r, _) in &self.shards[block.clone()] {
            h.update(r.file.as_bytes());
        }
        let files = format!("{}-{}", kind.prefix(), &h.finalize().to_hex()[..16]);
        for (n, (r, _)) in self.shards[block].iter_mut().enumerate() {
            *r = ShardRef { file: sift_format::store_file(&files, n), check: None };
        }
        files
    }
}

/// Every document has an id, and no two the same.
fn check_ids(pages: &Pages) -> Result<(), SiftError> {
    if pages.len() > u32::MAX as usize / 2 {
        return Err(SiftError::invalid("too many documents for one bundle"));
    }
    let mut seen = HashSet::new();
    for i in 0..pages.len() {
        let id = pages.id(i);
        if id.is_empty() {
            return Err(SiftError::invalid(format!("a document has an empty id (url {:?})", pages.head(i).url)));
        }
        if !seen.insert(id) {
            return Err(SiftError::invalid(format!("duplicate document id {id:?}")));
        }
    }
    Ok(())
}

/// At most about this many term shards, whatever the target: the manifest lists each one's
/// separator and every page load fetches the manifest, and static hosts cap a site's files
/// (Cloudflare's: 20,000, shared with the doc store's `MAX_DOC_SHARDS`). A bigger site
/// gets bigger shards.
pub const MAX_TERM_SHARDS: usize = 12_000;

/// A site's postings as the term shards are written from them: its terms in sorted
/// order, each one's entry (with the rows still held), and the runs taken to disk.
struct Postings<'a> {
    terms: &'a [&'a str],
    entries: &'a HashMap<String, TermEntry>,
    runs: Vec<std::fs::File>,
}

/// Term shard payloads (first term, last term, payload), terms in sorted order, each
/// term's rows gathered from every run in turn, handed to `each` a batch at a time as they
/// are made. The target is raised so that shards of about it stay within `max_shards`
/// (rows take about what the shards encode).
fn term_shards(
    postings: Postings<'_>,
    target: usize,
    max_shards: usize,
    remap: &(dyn Fn(u32, u32) -> u32 + Sync),
    on_step: &OnStep,
    each: &mut dyn FnMut(Vec<(String, String, Vec<u8>)>) -> Result<(), SiftError>,
) -> Result<(), SiftError> {
    let mut runs = postings.runs.into_iter().map(spill::RunReader::new).collect::<Result<Vec<_>, _>>()?;
    let bytes: usize = postings.entries.values().map(TermEntry::bytes).sum();
    let mut writer = ShardWriter::new(target.max(bytes.div_ceil(max_shards.max(1))));
    for (k, term) in postings.terms.iter().enumerate() {
        if k % 4096 == 0 {
            on_step.progress(k, postings.terms.len());
        }
        let mut taken = Vec::new();
        for run in &mut runs {
            taken.extend(run.take(term)?);
        }
        writer.push_remapped(term, &postings.entries[*term], &taken, remap)?;
        if writer.done.len() >= FRAMED_AT_A_TIME {
            each(std::mem::take(&mut writer.done))?;
        }
    }
    if !runs.iter().all(spill::RunReader::is_done) {
        return Err(SiftError::internal("a run of postings holds terms past the last one"));
    }
    each(writer.finish()?)
}

/// Quantised lengths, dates (a date that is not ISO is ignored with a warning) and link
/// densities.
fn doc_meta(docs: impl Iterator<Item = SourceDoc>, lens: Vec<[u8; N_FIELDS]>, warnings: &mut Vec<String>) -> DocMeta {
    let (mut dates, mut link_density) = (Vec::with_capacity(lens.len()), Vec::with_capacity(lens.len()));
    for d in docs {
        let days = d.date.as_deref().and_then(sift_base::date::parse_iso_days);
        if d.date.is_some() && days.is_none() {
            warnings.push(format!("{}: date {:?} is not an ISO date; ignored", d.id, d.date.as_deref().unwrap_or("")));
        }
        dates.push(days);
        link_density.push(docmeta::encode_density(d.link_density));
    }
    DocMeta { lens, dates, link_density }
}

/// Value → doc set, per filterable field.
fn filter_index(docs: impl Iterator<Item = SourceDoc>, fields: &[String]) -> FilterIndex {
    let mut index = FilterIndex { fields: fields.iter().map(|f| (f.clone(), BTreeMap::new())).collect() };
    for (i, mut d) in docs.enumerate() {
        for (field, values) in &mut index.fields {
            for v in d.metadata.remove(field).into_iter().flatten().collect::<BTreeSet<_>>() {
                values.entry(v).or_default().push(i as u32);
            }
        }
    }
    index
}

/// The manifest's entries of a store of key ranges: each shard's first and last key (the id
/// index), or (`with_last` false: the term store and the vocabulary) the separator between
/// the shard before and it.
fn key_ranges<P>(payloads: &[(String, String, P)], refs: Vec<ShardRef>, with_last: bool) -> Vec<KeyRangeShardRef> {
    payloads
        .iter()
        .enumerate()
        .zip(refs)
        .map(|((i, (first, last, _)), shard)| {
            let first = match i.checked_sub(1).filter(|_| !with_last) {
                Some(before) => sift_format::terms::separator(&payloads[before].1, first).to_string(),
                None => first.clone(),
            };
            KeyRangeShardRef { shard, first, last: with_last.then(|| last.clone()) }
        })
        .collect()
}

/// A framed shard under its content name, with its manifest entry.
fn named(kind: ShardKind, bytes: Vec<u8>) -> FramedShard {
    let hash = blake3::hash(&bytes);
    let file = format!("{}-{}.bin", kind.prefix(), &hash.to_hex()[..16]);
    let r = ShardRef::new(file.clone(), bytes.len() as u64, sift_base::crc32::crc32(&bytes));
    (r, (file, bytes))
}

/// Filterable fields: the ones asked for and the ones pages tag as filters
/// (`data-sift-filter`); else every metadata field that looks like a category: values of at
/// most 100 chars, and not (almost) one distinct value per document.
fn choose_filter_fields(docs: impl Iterator<Item = SourceDoc>, asked: Option<&[String]>, warnings: &mut Vec<String>) -> Vec<String> {
    let mut stats: BTreeMap<String, (BTreeSet<String>, usize, bool)> = BTreeMap::new();
    // Fields pages tag as filters (`data-sift-filter`) are filterable whatever else is.
    let mut tagged: BTreeSet<String> = BTreeSet::new();
    for d in docs {
        for (k, vs) in d.metadata {
            let e = stats.entry(k).or_default();
            e.1 += 1;
            for v in vs {
                e.2 |= v.chars().count() > 100;
                if e.0.len() <= 1000 {
                    e.0.insert(v);
                }
            }
        }
        tagged.extend(d.annotations.filters);
    }
    if let Some(asked) = asked {
        let mut out: Vec<String> = asked.to_vec();
        out.extend(tagged);
        out.sort();
        out.dedup();
        for f in &out {
            if !stats.contains_key(f.as_str()) {
                warnings.push(format!("filter field {f:?} does not occur in any document"));
            }
        }
        return out;
    }
    // A site that tags its filters has said which fields are filters: no others are guessed.
    if !tagged.is_empty() {
        return tagged.into_iter().collect();
    }
    stats
        .into_iter()
        .filter(|(_, (values, count, long))| !*long && values.len() <= 1000 && (values.len() <= 20 || values.len() * 2 <= *count))
        .map(|(k, _)| k)
        .collect()
}

#[cfg(test)]
mod term_store {
    use super::*;

    fn pages(n: usize) -> Vec<SourceDoc> {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "the", "theta", "iota", "kappa", "lambda", "Kappas"];
        (0..n)
            .map(|i| {
                let text: Vec<String> =
                    (0..40 + i % 300).map(|k| format!("{} w{}", words[(i * 7 + k) % words.len()], (i * k) % 997)).collect();
                SourceDoc {
                    id: format!("p{i}.html"),
                    title: format!("Page {} {}", i, words[i % words.len()]),
                    sections: vec![
                        Section { heading: "Intro".into(), anchor: Some("intro".into()), text: text.join(" "), symbol: None },
                        Section {
                            heading: "More".into(),
                            anchor: Some("more".into()),
                            text: text[..text.len() / 2].join(". "),
                            symbol: None,
                        },
                    ],
                    ..Default::default()
                }
            })
            .collect()
    }

    #[test]
    fn a_build_tells_its_host_each_step_and_how_far_it_is() {
        let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = events.clone();
        let on_step = OnStep(Some(std::sync::Arc::new(move |e: BuildEvent<'_>| {
            let e = match e {
                BuildEvent::Step(what) => format!("step {what}"),
                BuildEvent::Progress { done, total } => format!("{done}/{total}"),
            };
            seen.lock().unwrap().push(e);
        })));
        build(&pages(1100), &BuildOptions { on_step, ..Default::default() }).unwrap();
        let events = events.lock().unwrap().join(", ");
        // A site this small is analysed in eighths.
        let eighths = "138/1100, 276/1100, 414/1100, 552/1100, 690/1100, 828/1100, 966/1100, 1100/1100";
        assert!(
            events.starts_with(&format!("step analysing and inverting the pages, {eighths}, step planning the doc store, ")),
            "{events}"
        );
        assert!(events.contains("step encoding the terms, the vocabulary and the doc store, 0/"), "{events}");
        assert!(events.contains("step compressing the shards, 0/"), "{events}");
    }

    #[test]
    fn a_build_short_of_memory_writes_the_same_bundle() {
        // Three batches of pages, some long enough to be stored in parts (their positions
        // move as their postings are written), and postings taken to disk after each batch.
        let docs = pages(1300);
        let opts = BuildOptions { doc_part_target: 2048, ..Default::default() };
        let held = build(&docs, &opts).unwrap();
        let spilled = build(&docs, &BuildOptions { postings_memory: 1, ..opts }).unwrap();
        assert!(held.manifest.part_positions.is_some(), "some page is stored in parts");
        assert_eq!(held.manifest_bytes(), spilled.manifest_bytes());
        assert!(held.shards == spilled.shards, "the shards differ");
    }

    /// 2,000 terms in 30 documents; with runs taken to disk after documents 9 and 20.
    fn postings(runs: bool) -> (HashMap<String, TermEntry>, Vec<std::fs::File>) {
        let mut postings: HashMap<String, TermEntry> = HashMap::new();
        let mut files = Vec::new();
        for doc in 0..30u32 {
            for t in (0..2000u32).filter(|t| (t + doc) % 3 == 0) {
                postings.entry(format!("term{t:05}")).or_default().push(doc * 300 + t, [0, 0, 0, 2], &[doc, doc + 40 * t]);
            }
            if runs && (doc == 9 || doc == 20) {
                files.push(spill::write_run(&mut postings).unwrap());
            }
        }
        (postings, files)
    }

    /// Every term shard, collected.
    fn all(postings: Postings, cap: usize) -> Result<Vec<(String, String, Vec<u8>)>, SiftError> {
        let mut out = Vec::new();
        term_shards(postings, 64, cap, &|_, p| p, &OnStep::default(), &mut |batch| {
            out.extend(batch);
            Ok(())
        })
        .map(|()| out)
    }

    #[test]
    fn term_shards_are_the_same_whether_postings_were_taken_to_disk_or_not() {
        let (held, _) = postings(false);
        let mut terms: Vec<&str> = held.keys().map(String::as_str).collect();
        terms.sort_unstable();
        for cap in [usize::MAX, 20] {
            let whole = all(Postings { terms: &terms, entries: &held, runs: Vec::new() }, cap).unwrap();
            let (spilled, runs) = postings(true);
            assert_eq!(runs.len(), 2);
            let cut = all(Postings { terms: &terms, entries: &spilled, runs }, cap).unwrap();
            assert!(whole == cut, "cap {cap}: the shards differ");
        }
        // A run holding a term the list lacks is an error, not a silent loss.
        let (spilled, runs) = postings(true);
        assert!(all(Postings { terms: &terms[1..], entries: &spilled, runs }, 20).is_err());
    }

    #[test]
    fn the_term_shard_count_is_capped_by_raising_the_target() {
        let (postings, _) = postings(false);
        let mut terms: Vec<&str> = postings.keys().map(String::as_str).collect();
        terms.sort_unstable();
        let shards = |cap: usize| all(Postings { terms: &terms, entries: &postings, runs: Vec::new() }, cap).unwrap();
        let uncapped = shards(usize::MAX).len();
        assert!(uncapped > 500, "{uncapped} shards");
        for cap in [1, 10, 100, 400] {
            let got = shards(cap);
            assert!(got.len() <= cap, "cap {cap}: {} shards", got.len());
            // Every term still in one shard, in order.
            let firsts: Vec<&str> = got.iter().map(|s| s.0.as_str()).collect();
            assert!(firsts.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(got[0].0, "term00000");
            assert_eq!(got.last().unwrap().1, "term01999");
            let cut = got.len();
            assert!(cut * 2 > cap.min(uncapped), "cap {cap}: {cut} shards, far fewer than allowed");
        }
    }
}
