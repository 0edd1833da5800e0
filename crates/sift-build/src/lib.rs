//! Sift's bundle builder: pages in ([`Pages`], their text on disk, or `SourceDoc`s held),
//! bundle files (manifest + shards) out, in memory. Deterministic: the same documents in
//! the same order give the same bytes. Build time only, never in a browser: it uses every
//! core (rayon).
//!
//! `build` reads as its stages: the semantic half ([`semantic`]: projection, vector lists,
//! the static encoder's fit), [`invert`] (analysis and inversion), [`store`] (the doc
//! store's plan), each artifact's payloads (`sift_format`'s writers), then framing, naming
//! and the manifest.

pub use sift_base::{Section, SiftError, SourceDoc};

pub mod chunk;
pub mod delta;
mod frame;
mod invert;
mod options;
pub mod pages;
pub mod semantic;
mod spill;
mod store;

pub use invert::MAX_TERMS_PER_DOC;
pub use options::{BuildEvent, BuildOptions, OnStep};
pub use pages::Pages;
pub use semantic::encoder::EncoderInput;
pub use semantic::layout::{DocVectors, SemanticInput};
pub use store::MAX_DOC_SHARDS;

use frame::{frame_doc_store, named, Framer, Stage, FRAMED_AT_A_TIME};
use invert::invert;
use semantic::layout::lay_out;
use sift_format::docmeta::{self, DocMeta};
use sift_format::encoder::{EncoderLayout, ROWS_PER_SHARD};
use sift_format::fields::N_FIELDS;
use sift_format::filters::FilterIndex;
use sift_format::manifest::EncoderRef;
use sift_format::terms::{ShardWriter, TermEntry};
use sift_format::vindex::{ListGroups, VectorIndex};
use sift_format::{dictionary, ids, startup, vocabulary, DocShardRef, KeyRangeShardRef, Manifest, ShardKind, ShardRef, VectorsRef};
pub use sift_text::analyzer::Analyzer;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use store::{each_doc_shard, plan_doc_store};

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
    let (manifest, warnings) = build_into(pages, opts.clone(), &mut files)?;
    // Manifest order first, the index shards' children after (by name).
    let order: HashMap<String, usize> = manifest.all_shards().enumerate().map(|(i, s)| (s.file.clone(), i)).collect();
    let mut shards: Vec<(String, Vec<u8>)> = files.into_iter().collect();
    shards.sort_by_key(|(name, _)| order.get(name).copied().unwrap_or(usize::MAX));
    Ok(BuiltBundle { manifest, shards, warnings })
}

/// Build a bundle: analyse and invert the pages, cut the doc store, encode each artifact,
/// frame the shards (compressed on every core) into `sink` as they are made, and return the
/// manifest that lists them, with the build's warnings. The pages' text is read back from
/// disk for each pass that needs it ([`pages`]). The semantic half is laid out first and its
/// input freed (every chunk's token ids: on a big site, more than the analysis holds) before
/// the pages are analysed.
pub fn build_into(
    mut pages: Pages,
    mut opts: BuildOptions,
    sink: &mut (dyn ShardSink + Send),
) -> Result<(Manifest, Vec<String>), SiftError> {
    pages.finish()?;
    let pages = &pages;
    check_ids(pages)?;
    let mut semantic = match opts.semantic.take() {
        Some(input) => {
            opts.on_step.step("laying out the vectors and fitting the query encoder");
            let model = input.model.clone();
            Some((lay_out(input, pages.len())?, model))
        }
        None => None,
    };
    let opts = &opts;
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
    // dictionary learns from (trained on one core while the terms, the vocabulary and the
    // ids are encoded beside it), and a third compresses each shard as it is made.
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
    let mut stage = Stage::new(sink);
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
        Ok(((term_keys, term_staged), vocab_payloads, id_payloads))
    };
    let (dictionary, rest) = rayon::join(train_dictionary, encode_the_rest);
    let (dictionary, ((term_keys, term_staged), mut vocab_payloads, mut id_payloads)) = (dictionary?, rest?);
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
    let mut framer = Framer::new(dictionary.as_deref());
    let startup_at = framer.add(ShardKind::Startup, [startup_payload]);
    let fold_at = framer.add(ShardKind::FoldTable, sift_text::decompose::rare_folds_bytes().into_iter().map(<[u8]>::to_vec));
    let terms_at = framer.add_staged(term_staged);
    let vocab_at = framer.add(ShardKind::Vocabulary, vocab_payloads.iter_mut().map(|t| std::mem::take(&mut t.2)));
    let docs_at = framer.add_staged(doc_framed);
    let ids_at = framer.add(ShardKind::Ids, id_payloads.iter_mut().map(|t| std::mem::take(&mut t.2)));
    let lists_at = framer.add(ShardKind::VectorList, semantic.iter_mut().flat_map(|(s, _)| s.lists.iter_mut().map(std::mem::take)));
    let list_groups_at = framer.add(ShardKind::ListGroup, semantic.iter_mut().flat_map(|(s, _)| s.groups.iter_mut().map(std::mem::take)));
    let projection_at = framer.add(ShardKind::Projection, semantic.iter_mut().map(|(s, _)| std::mem::take(&mut s.projection)));
    let encoder = semantic.as_mut().and_then(|(s, _)| s.encoder.as_mut());
    let (groups, rows) = encoder.map(|e| (std::mem::take(&mut e.groups), std::mem::take(&mut e.rows))).unwrap_or_default();
    let groups_at = framer.add(ShardKind::EncoderVocab, groups);
    let rows_at = framer.add(ShardKind::EncoderRows, rows);
    opts.on_step.step("compressing the shards");
    let mut framed = framer.frame(&opts.on_step, &mut stage)?;
    let encoder = semantic.as_ref().and_then(|(s, _)| s.encoder.as_ref());

    // Stores named by rule, and the manifest.
    let term_files = framed.name_by_rule(terms_at.clone(), ShardKind::Terms);
    let vocab_files = framed.name_by_rule(vocab_at.clone(), ShardKind::Vocabulary);
    let doc_files = framed.name_by_rule(docs_at.clone(), ShardKind::Docs);
    let vectors = match &semantic {
        Some((sem, model)) => {
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
                model: model.clone(),
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
        delta: None,
    };
    for (shard, staged) in &framed.shards {
        stage.sink.rename(staged, &shard.file)?;
    }
    Ok((manifest, warnings))
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
mod tests;
