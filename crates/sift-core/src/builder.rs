//! Index builder: `SourceDoc`s in, bundle files (manifest + shards) out, in memory. Pure and
//! deterministic: the same documents in the same order give the same bytes.

use crate::analyzer::{self, Token};
use crate::bundle::docmeta::{self, DocMeta};
use crate::bundle::docstore::{self, visit_doc_fields, StoredDoc, ANALYSIS_PIECE_BYTES};
use crate::bundle::encoder::{EncoderLayout, ROWS_PER_SHARD};
use crate::bundle::filters::FilterIndex;
use crate::bundle::manifest::EncoderRef;
use crate::bundle::partition::{self, PagePlan};
use crate::bundle::terms::{ShardWriter, TermEntry};
use crate::bundle::vindex::VectorIndex;
use crate::bundle::{self, dictionary, ids, startup, vocabulary, DocShardRef, KeyRangeShardRef, Manifest, ShardKind, ShardRef, VectorsRef};
use crate::date;
use crate::decompose;
use crate::doc::{Section, SourceDoc};
use crate::error::SiftError;
use crate::rank::{self, Bm25fParams, N_FIELDS};
use crate::semantic::layout::{lay_out, SemanticInput};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub params: Bm25fParams,
    /// Fields usable in `filters`/`facets`. `None`: every metadata field whose values look
    /// like categories (short, repeated).
    pub filter_fields: Option<Vec<String>>,
    /// Target decoded size of a term shard's postings, in bytes. A query reads one shard
    /// per word (more for prefixes), so this is most of its term bytes; each shard costs a
    /// manifest entry (format 6: its key range, about 9 bytes of gzip). 4 KB: on the Python
    /// docs the browser benchmark's queries read 51.9 kB of shards plus a 7.0 kB manifest,
    /// against 62.4 + 5.6 kB at 8 KB, in as many requests (14.1), for a 0.9% larger
    /// bundle. Smaller paid only once typos read the vocabulary instead of every term shard
    /// of their letter; at 3 and 2 KB the manifest grows as fast as the shards shrink
    /// (58.5 and 58.0 kB in all) and requests rise (14.3, 14.6).
    pub term_shard_target: usize,
    /// Target decoded size of a document-store shard, in bytes. A result reads the shard
    /// holding its page, so a page bigger than this is alone in its shard and a first
    /// page of results reads ten pages, not ten pages and their neighbours. 4 KB: 142 kB of
    /// doc shards per first page on the Python docs against 225 kB at 48 KB, for a 6 kB
    /// larger manifest (gzip) and a 3% larger bundle.
    pub doc_shard_target: usize,
    /// A page whose text is bigger than this, in bytes, is stored in parts of about this
    /// size (runs of its sections; 0: never), so a result fetches only the part its snippet
    /// comes from. The Python docs' answer pages run to 100–400 kB of text. 6 KB: on the
    /// Python docs the benchmark's queries read 23.7 kB of doc shards for a first page of
    /// results against 29.9 kB at 8 KB (`fetch_profile`), for a 0.9 kB larger manifest
    /// (gzip, 1,849 shards against 1,426) and a 1.7% larger bundle. Smaller parts hold fewer
    /// of a page's sections to show as sub-results: on those queries' 300 results 647
    /// sub-results at 8 KB, 595 at 6 KB, 542 at 4 KB (which would read 19.3 kB).
    /// 5 KB since format 12 (parts on a grid of positions: a part costs the manifest a
    /// digit, not a first position): 30 queries read 17.0 kB of doc shards and a 2.8 kB
    /// manifest, against 20.2 and 2.7 at 6 KB and 18.8 and 5.7 with format 11's 6 KB;
    /// bundle +1.7%, sub-results 606 → 585.
    pub doc_part_target: usize,
    /// A doc store of at least this many bytes gets a preset dictionary (format 7,
    /// `bundle::dictionary`); a smaller one is deflated plainly. Default
    /// `dictionary::MIN_STORE_BYTES` (64 KB); tests lower it to give a small corpus one.
    pub doc_dictionary_from: usize,
    /// The vocabulary (`bundle::vocabulary`, what typo tolerance reads): a new shard starts
    /// at a first letter once the current one holds this many bytes of terms; None writes
    /// none (typos then read the term shards of their letter). Default 4 KB: big letters
    /// alone (Python docs: 10–26 kB deflated each), small ones together.
    pub vocabulary_target: Option<usize>,
    /// Recorded in the manifest (`sift 0.1.0`).
    pub generator: String,
    /// The semantic half, when building with an embedder: the chunks' embeddings and the
    /// static encoder's training data, made by the host.
    pub semantic: Option<SemanticInput>,
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
            vocabulary_target: Some(vocabulary::VOCABULARY_TARGET),
            generator: format!("sift {}", env!("CARGO_PKG_VERSION")),
            semantic: None,
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

/// `items.map(f)` on every core when the `parallel` feature is on (native builds), in order.
fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// One document analysed: its terms with per-field tf and positions (sorted by term), how
/// its words were written, field lengths, and where its sections start.
struct DocAnalysis {
    /// (term, per-field tf, positions, how often it was written as the term itself).
    terms: Vec<(String, [u32; N_FIELDS], Vec<u32>, u32)>,
    /// (term, how it was written otherwise, how often), once per pair.
    surfaces: Vec<(String, String, u32)>,
    lens: [u32; N_FIELDS],
    section_starts: Vec<u32>,
    /// Where the page's positions end.
    end: u32,
    /// Words not indexed because the page already had `MAX_TERMS_PER_DOC` distinct terms.
    dropped: u64,
}

/// Distinct terms indexed per document. Real pages have a few thousand (the largest Python
/// docs page, the general index, has about 9,500); a page of a million distinct random
/// words cost 643 MB and 7.9 s to build (now 127 MB and 1.9 s).
/// Words with further new terms still count towards the field lengths.
pub const MAX_TERMS_PER_DOC: usize = 100_000;

fn analyse(d: &SourceDoc) -> DocAnalysis {
    let mut per_doc: HashMap<String, ([u32; N_FIELDS], Vec<u32>, u32)> = HashMap::new();
    let mut lens = [0u32; N_FIELDS];
    let mut surface_counts: HashMap<(String, String), u32> = HashMap::new();
    let mut dropped = 0u64;
    let (section_starts, end) = visit_doc_fields(d, ANALYSIS_PIECE_BYTES, |field, text, toks| {
        for t in toks {
            if !t.joined {
                lens[field] += 1;
            }
            if per_doc.len() >= MAX_TERMS_PER_DOC && !per_doc.contains_key(&t.term) {
                dropped += 1;
                continue;
            }
            let e = per_doc.entry(t.term.clone()).or_default();
            e.0[field] += 1;
            e.1.push(t.pos);
            if field != rank::FIELD_PATH {
                let surface = surface_of(text, t);
                if surface == t.term {
                    e.2 += 1;
                } else {
                    *surface_counts.entry((t.term.clone(), surface)).or_insert(0) += 1;
                }
            }
        }
    });
    let mut surfaces: Vec<(String, String, u32)> = surface_counts.into_iter().map(|((t, s), c)| (t, s, c)).collect();
    // The merge keeps a term's first 16 spellings: make "first" independent of hashing.
    surfaces.sort_unstable();
    let mut terms: Vec<_> = per_doc
        .into_iter()
        .map(|(term, (tf, mut pos, itself))| {
            pos.sort_unstable();
            pos.dedup();
            if analyzer::is_stop_term(&term) {
                pos.clear();
            }
            (term, tf, pos, itself)
        })
        .collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    DocAnalysis { terms, surfaces, lens, section_starts, end, dropped }
}

fn surface_of(text: &str, t: &Token) -> String {
    analyzer::fold(&text[t.start..t.end]).chars().filter(|&c| crate::charclass::is_alphanumeric(c)).collect()
}

/// Build a bundle: analyse and invert the pages, cut the doc store, encode each artifact,
/// frame the shards (compressed on every core) and write the manifest that lists them.
pub fn build(docs: &[SourceDoc], opts: &BuildOptions) -> Result<BuiltBundle, SiftError> {
    check_ids(docs)?;
    let mut warnings = Vec::new();
    let mut inverted = invert(docs, &mut warnings);
    // The doc store is planned first: a long page's positions move onto its parts' grid
    // (`bundle::partition`) before the postings are written.
    let store_plan =
        plan_doc_store(docs, &inverted.section_starts, &inverted.ends, opts.doc_shard_target, opts.doc_part_target, MAX_DOC_SHARDS);
    store_plan.lay_out(&mut inverted);

    // Each artifact's payloads.
    let mut terms: Vec<&str> = inverted.postings.keys().map(String::as_str).collect();
    terms.sort_unstable();
    let term_payloads = term_shards(&terms, &inverted.postings, opts.term_shard_target)?;
    let vocab_payloads = match opts.vocabulary_target {
        Some(target) => {
            let with_df: Vec<(&str, u32)> = terms.iter().map(|&t| (t, inverted.postings[t].df())).collect();
            let spellings = |t: &str| inverted.postings[t].surfaces.keys().map(String::as_str).collect::<Vec<_>>();
            vocabulary::encode(&vocabulary::entries(&with_df, spellings), target)?
        }
        None => Vec::new(),
    };
    let filter_fields = choose_filter_fields(docs, opts.filter_fields.as_deref(), &mut warnings);
    let doc_payloads = doc_store(docs, std::mem::take(&mut inverted.section_starts), &store_plan)?;
    let store_bytes: usize = doc_payloads.iter().map(|d| d.3.len()).sum();
    let dictionary = (store_bytes >= opts.doc_dictionary_from)
        .then(|| {
            let payloads: Vec<&[u8]> = doc_payloads.iter().map(|d| d.3.as_slice()).collect();
            dictionary::train(&dictionary::training_sample(&payloads), dictionary::DICTIONARY_BYTES)
        })
        .filter(|d| !d.is_empty());
    let startup_payload = startup::encode(
        &doc_meta(docs, std::mem::take(&mut inverted.lens), &mut warnings).encode(),
        &filter_index(docs, &filter_fields).encode(),
        dictionary.as_deref(),
    );
    let id_payloads = ids::encode(&docs.iter().map(|d| d.id.as_str()).collect::<Vec<_>>())?;
    let semantic = opts.semantic.as_ref().map(|s| lay_out(s, docs.len())).transpose()?;
    let encoder = semantic.as_ref().and_then(|s| s.encoder.as_ref());

    // Framed, each kind's shards a block of their own. The rare blocks' folding table goes
    // into every bundle for runtimes that leave it out.
    let mut framer = Framer { jobs: Vec::new(), dictionary: dictionary.as_deref() };
    let startup_at = framer.add(ShardKind::Startup, [startup_payload.as_slice()]);
    let fold_at = framer.add(ShardKind::FoldTable, decompose::rare_folds_bytes());
    let terms_at = framer.add(ShardKind::Terms, term_payloads.iter().map(|t| t.2.as_slice()));
    let vocab_at = framer.add(ShardKind::Vocabulary, vocab_payloads.iter().map(|t| t.2.as_slice()));
    let docs_at = framer.add(ShardKind::Docs, doc_payloads.iter().map(|d| d.3.as_slice()));
    let ids_at = framer.add(ShardKind::Ids, id_payloads.iter().map(|t| t.2.as_slice()));
    let lists_at = framer.add(ShardKind::VectorList, semantic.iter().flat_map(|s| s.lists.iter().map(Vec::as_slice)));
    let projection_at = framer.add(ShardKind::Projection, semantic.iter().map(|s| s.projection.as_slice()));
    let groups_at = framer.add(ShardKind::EncoderVocab, encoder.iter().flat_map(|e| e.groups.iter().map(Vec::as_slice)));
    let rows_at = framer.add(ShardKind::EncoderRows, encoder.iter().flat_map(|e| e.rows.iter().map(Vec::as_slice)));
    let mut framed = framer.frame();

    // Stores named by rule, and the manifest.
    let term_files = framed.name_by_rule(terms_at.clone(), ShardKind::Terms);
    let vocab_files = (!vocab_at.is_empty()).then(|| framed.name_by_rule(vocab_at.clone(), ShardKind::Vocabulary));
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
                projection: framed.refs(projection_at).remove(0),
            };
            let (shard, file) = named(ShardKind::VectorIndex, bundle::encode_shard(ShardKind::VectorIndex, &index.encode()?));
            framed.shards.push((shard.clone(), file));
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
    let encoder = match encoder {
        Some(e) => Some(EncoderRef {
            layout: EncoderLayout {
                dim: e.dim,
                rows_per_shard: ROWS_PER_SHARD,
                n_rows: e.n_rows,
                n_word_groups: e.n_word_groups,
                group_files: framed.name_by_rule(groups_at, ShardKind::EncoderVocab),
                row_files: framed.name_by_rule(rows_at, ShardKind::EncoderRows),
            },
            texts: e.report.texts as u32,
        }),
        None => None,
    };
    let doc_shards = doc_payloads
        .iter()
        .zip(framed.refs(docs_at))
        .map(|((first_doc, n, first_pos, _), shard)| DocShardRef { shard, first_doc: *first_doc, docs: *n, first_pos: *first_pos })
        .collect();
    let manifest = Manifest {
        generator: opts.generator.clone(),
        doc_count: docs.len() as u32,
        term_count: inverted.postings.len() as u64,
        params: opts.params.stored(),
        field_tokens: inverted.field_tokens,
        filter_fields,
        startup: framed.refs(startup_at).remove(0),
        doc_dictionary: dictionary.is_some(),
        term_files,
        term_shards: key_ranges(&term_payloads, framed.refs(terms_at), false),
        vocab_files,
        vocabulary: key_ranges(&vocab_payloads, framed.refs(vocab_at), false),
        doc_files,
        doc_shards,
        part_positions: store_plan.window,
        id_shards: key_ranges(&id_payloads, framed.refs(ids_at), true),
        fold_table: framed.refs(fold_at).pop(),
        vectors,
        encoder,
    };
    let mut shards: Vec<(String, Vec<u8>)> = framed.shards.into_iter().map(|(_, f)| f).collect();
    // Manifest order first, the index shards' children after.
    let order: HashMap<String, usize> = manifest.all_shards().enumerate().map(|(i, s)| (s.file.clone(), i)).collect();
    shards.sort_by_key(|(name, _)| order.get(name).copied().unwrap_or(usize::MAX));
    Ok(BuiltBundle { manifest, shards, warnings })
}

/// Shard payloads to frame, each kind's a block of its own.
struct Framer<'a> {
    jobs: Vec<(ShardKind, &'a [u8])>,
    /// The doc store's dictionary, which doc shards are compressed after.
    dictionary: Option<&'a [u8]>,
}

impl<'a> Framer<'a> {
    /// Add a kind's payloads; the block they take.
    fn add(&mut self, kind: ShardKind, payloads: impl IntoIterator<Item = &'a [u8]>) -> Range<usize> {
        let start = self.jobs.len();
        self.jobs.extend(payloads.into_iter().map(|p| (kind, p)));
        start..self.jobs.len()
    }

    /// Every payload framed and compressed (on every core), under its content name.
    fn frame(self) -> Framed {
        let dictionary = self.dictionary;
        let shards = par_map(&self.jobs, |&(kind, payload)| match (kind, dictionary) {
            (ShardKind::Docs, Some(d)) => named(kind, bundle::encode_shard_with_dictionary(kind, payload, d)),
            _ => named(kind, bundle::encode_shard(kind, payload)),
        });
        Framed { shards }
    }
}

/// Framed shards with their manifest entries.
struct Framed {
    shards: Vec<(ShardRef, (String, Vec<u8>))>,
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
        for (_, (name, _)) in &self.shards[block.clone()] {
            h.update(name.as_bytes());
        }
        let files = format!("{}-{}", kind.prefix(), &h.finalize().to_hex()[..16]);
        for (n, (r, (name, _))) in self.shards[block].iter_mut().enumerate() {
            *r = ShardRef { file: bundle::store_file(&files, n), check: None };
            name.clone_from(&r.file);
        }
        files
    }
}

/// Every document has an id, and no two the same.
fn check_ids(docs: &[SourceDoc]) -> Result<(), SiftError> {
    if docs.len() > u32::MAX as usize / 2 {
        return Err(SiftError::invalid("too many documents for one bundle"));
    }
    let mut seen = BTreeSet::new();
    for d in docs {
        if d.id.is_empty() {
            return Err(SiftError::invalid(format!("a document has an empty id (url {:?})", d.url)));
        }
        if !seen.insert(d.id.as_str()) {
            return Err(SiftError::invalid(format!("duplicate document id {:?}", d.id)));
        }
    }
    Ok(())
}

/// The inverted index of a corpus, with what scoring and results need of each document.
struct Inverted {
    postings: HashMap<String, TermEntry>,
    /// Field lengths per document, quantised.
    lens: Vec<[u8; N_FIELDS]>,
    /// Tokens in each field over all documents.
    field_tokens: [u64; N_FIELDS],
    section_starts: Vec<Vec<u32>>,
    ends: Vec<u32>,
}

/// Documents analysed in parallel, merged in document order.
fn invert(docs: &[SourceDoc], warnings: &mut Vec<String>) -> Inverted {
    let mut inv = Inverted {
        postings: HashMap::new(),
        lens: Vec::with_capacity(docs.len()),
        field_tokens: [0; N_FIELDS],
        section_starts: Vec::with_capacity(docs.len()),
        ends: Vec::with_capacity(docs.len()),
    };
    for (doc_id, a) in par_map(docs, analyse).into_iter().enumerate() {
        for (term, tf, pos, itself) in a.terms {
            let tp = inv.postings.entry(term).or_default();
            tp.docs.push((doc_id as u32, tf, pos));
            // Written as the term itself counts too (as ""), or a rare other spelling would
            // pass for the common one (`generatorization` for `generator`).
            if itself > 0 {
                *tp.surfaces.entry(String::new()).or_insert(0) += itself;
            }
        }
        for (term, surface, count) in a.surfaces {
            if let Some(tp) = inv.postings.get_mut(&term) {
                // Bounded: a term written 10 000 ways keeps counting its first 16.
                if tp.surfaces.len() < 16 || tp.surfaces.contains_key(&surface) {
                    *tp.surfaces.entry(surface).or_insert(0) += count;
                }
            }
        }
        if a.dropped > 0 {
            warnings.push(format!(
                "{}: more than {MAX_TERMS_PER_DOC} distinct words; {} further words were not indexed",
                docs[doc_id].id, a.dropped
            ));
        }
        inv.lens.push(std::array::from_fn(|f| docmeta::encode_len(a.lens[f])));
        for f in 0..N_FIELDS {
            inv.field_tokens[f] += u64::from(a.lens[f]);
        }
        inv.section_starts.push(a.section_starts);
        inv.ends.push(a.end);
    }
    inv
}

/// Term shard payloads (first term, last term, payload), terms in sorted order.
fn term_shards(terms: &[&str], postings: &HashMap<String, TermEntry>, target: usize) -> Result<Vec<(String, String, Vec<u8>)>, SiftError> {
    let mut writer = ShardWriter::new(target);
    for term in terms {
        writer.push(term, &postings[*term])?;
    }
    writer.finish()
}

/// Quantised lengths, dates (a date that is not ISO is ignored with a warning) and link
/// densities.
fn doc_meta(docs: &[SourceDoc], lens: Vec<[u8; N_FIELDS]>, warnings: &mut Vec<String>) -> DocMeta {
    let dates = docs
        .iter()
        .map(|d| {
            let days = d.date.as_deref().and_then(date::parse_iso_days);
            if d.date.is_some() && days.is_none() {
                warnings.push(format!("{}: date {:?} is not an ISO date; ignored", d.id, d.date.as_deref().unwrap_or("")));
            }
            days
        })
        .collect();
    let link_density = docs.iter().map(|d| docmeta::encode_density(d.link_density)).collect();
    DocMeta { lens, dates, link_density }
}

/// Value → doc set, per filterable field.
fn filter_index(docs: &[SourceDoc], fields: &[String]) -> FilterIndex {
    let mut index = FilterIndex::default();
    for field in fields {
        let values = index.fields.entry(field.clone()).or_default();
        for (i, d) in docs.iter().enumerate() {
            for v in d.metadata.get(field).into_iter().flatten().collect::<BTreeSet<_>>() {
                values.entry(v.clone()).or_default().push(i as u32);
            }
        }
    }
    index
}

/// At most this many document-store shards, whatever the target: the manifest lists every
/// one (about 2 bytes of gzip each) and every page load fetches the manifest, and static
/// hosts cap a site's files (Cloudflare's Worker assets: 20,000). A corpus too big for the
/// targets in that many shards gets bigger parts, then bigger shards; the Python docs (530
/// pages, 1,849 shards in 6 KB parts) are below it, Debian's rust-doc (32,101 pages) would
/// otherwise take one file per page. 4,096: at 2,048 the Python docs could not have parts
/// under 5.9 KB, nor a site a third bigger 6 KB ones.
pub const MAX_DOC_SHARDS: usize = 4096;

/// What a document weighs in the store, for cutting shards (text, headings, and about 128
/// bytes of id, url, title and structure).
fn stored_weight(d: &SourceDoc) -> usize {
    d.sections.iter().map(|s| s.text.len() + s.heading.len()).sum::<usize>() + 128
}

/// What one document-store shard holds: whole pages `first_doc..first_doc + docs`, or part
/// `part` of a long page.
enum StoreShard {
    Pages { first_doc: usize, docs: usize },
    Part { doc: usize, part: usize },
}

/// How the document store is cut: its shards, the long pages' plans, and their window.
struct StorePlan {
    shards: Vec<StoreShard>,
    /// By document: its parts and position layout, for a page stored in parts.
    pages: Vec<Option<PagePlan>>,
    /// The parts' window in positions (the manifest's `part_positions`), when a page has parts.
    window: Option<u32>,
}

impl StorePlan {
    /// Move the long pages' positions onto their parts' grid in the postings. (Their
    /// section starts are not kept: each stored piece carries its own, from the plan.)
    fn lay_out(&self, inverted: &mut Inverted) {
        if self.pages.iter().all(Option::is_none) {
            return;
        }
        for tp in inverted.postings.values_mut() {
            for (doc, _, pos) in &mut tp.docs {
                if let Some(plan) = &self.pages[*doc as usize] {
                    pos.iter_mut().for_each(|p| *p = plan.remap(*p));
                }
            }
        }
    }
}

/// The document store's shards, each holding whole pages in order until it reaches
/// `target` bytes (raised so that there are at most `max_shards`), and a page bigger than
/// `part_target` in parts of about that size — windows of as many positions as that many
/// bytes hold on average ([`partition`]) — or of the smallest size, in steps of a quarter,
/// that keeps to `max_shards` (a bigger corpus gets bigger parts before it gets whole pages).
/// `section_starts` and `ends`: each page's position layout, as analysed.
fn plan_doc_store(
    docs: &[SourceDoc],
    section_starts: &[Vec<u32>],
    ends: &[u32],
    target: usize,
    part_target: usize,
    max_shards: usize,
) -> StorePlan {
    // Every shard but the last holds at least `target` bytes, so there are at most
    // ceil(total / target) shards: at most `max_shards` with this target.
    let total: usize = docs.iter().map(stored_weight).sum();
    let raised = target.max(total.div_ceil(max_shards.max(1)));
    // Positions a byte of the pages that could have parts (≈ 1/6 on the Python docs).
    let long = |d: &SourceDoc, part: usize| part > 0 && stored_weight(d) > part;
    let (positions, bytes) = docs
        .iter()
        .zip(ends)
        .filter(|(d, _)| long(d, part_target))
        .fold((0u64, 0u64), |(p, b), (d, &end)| (p + u64::from(end), b + stored_weight(d) as u64));
    let window_of = |part: usize| {
        u32::try_from((part as u64 * positions).div_ceil(bytes.max(1))).unwrap_or(u32::MAX).max(4 * bundle::docstore::POSITION_GAP)
    };
    let plan = |part: usize| {
        let window = window_of(part);
        let mut out = StorePlan { shards: Vec::new(), pages: vec![None; docs.len()], window: None };
        let (mut first_doc, mut batch_bytes) = (0usize, 0usize);
        for (i, d) in docs.iter().enumerate() {
            let page = long(d, part).then(|| partition::plan_page(d, &section_starts[i], ends[i], window)).flatten();
            if let Some(page) = page {
                if first_doc < i {
                    out.shards.push(StoreShard::Pages { first_doc, docs: i - first_doc });
                }
                out.shards.extend((0..page.parts.len()).map(|part| StoreShard::Part { doc: i, part }));
                out.pages[i] = Some(page);
                out.window = Some(window);
                (first_doc, batch_bytes) = (i + 1, 0);
                continue;
            }
            batch_bytes += stored_weight(d);
            if batch_bytes >= raised || i + 1 == docs.len() {
                out.shards.push(StoreShard::Pages { first_doc, docs: i + 1 - first_doc });
                (first_doc, batch_bytes) = (i + 1, 0);
            }
        }
        out
    };
    // Parts as small as asked while they fit under the cap, else the smallest that fit:
    // the size grows a quarter at a time (doubling overshot — the Python docs asked for 5 KB
    // parts got 10 KB ones, 1,178 shards of the 2,048 allowed); past the biggest page, none.
    let mut part = part_target;
    let mut store = plan(part);
    while store.shards.len() > max_shards && part > 0 {
        part = if part >= total { 0 } else { part.saturating_add(part / 4 + 1) };
        store = plan(part);
    }
    store
}

/// A long page's sections as its parts store them: the pieces of a section after the first
/// have no heading, start at their first token, and keep the section's anchor and
/// sub-result label. Returns the page (each part a run of its sections), each stored
/// section's label and whether it continues the one before, and where each part's run begins.
fn pieced(d: &SourceDoc, page: &PagePlan) -> (StoredDoc, Vec<String>, Vec<bool>, Vec<usize>) {
    let labels = docstore::labels_of(&d.sections);
    let mut out = page_fields(d);
    let (mut out_labels, mut continues, mut runs) = (Vec::new(), Vec::new(), Vec::new());
    for part in &page.parts {
        runs.push(out.sections.len());
        for p in part {
            let s = &d.sections[p.section];
            let heading = if p.continues { String::new() } else { s.heading.clone() };
            out.sections.push(Section { heading, anchor: s.anchor.clone(), text: s.text[p.text.clone()].to_string() });
            out.section_pos.push(p.start);
            out_labels.push(labels[p.section].clone());
            continues.push(p.continues);
        }
    }
    runs.push(out.sections.len());
    (out, out_labels, continues, runs)
}

/// A page's own fields as the store keeps them, without its sections.
fn page_fields(d: &SourceDoc) -> StoredDoc {
    StoredDoc {
        id: d.id.clone(),
        url: d.url.clone(),
        title: d.title.clone(),
        metadata: d.metadata.clone(),
        date: d.date.clone(),
        ..Default::default()
    }
}

/// The document store's shards as planned: (first doc, docs, first position of a part,
/// payload).
fn doc_store(
    docs: &[SourceDoc],
    mut section_starts: Vec<Vec<u32>>,
    plan: &StorePlan,
) -> Result<Vec<(u32, u32, Option<u32>, Vec<u8>)>, SiftError> {
    let stored = |i: usize, starts: &mut Vec<Vec<u32>>| StoredDoc {
        sections: docs[i].sections.clone(),
        section_pos: std::mem::take(&mut starts[i]),
        ..page_fields(&docs[i])
    };
    type Pieced = (usize, StoredDoc, Vec<String>, Vec<bool>, Vec<usize>);
    let mut whole: Option<Pieced> = None;
    let mut out = Vec::with_capacity(plan.shards.len());
    for shard in &plan.shards {
        match *shard {
            StoreShard::Pages { first_doc, docs: n } => {
                let batch: Vec<StoredDoc> = (first_doc..first_doc + n).map(|i| stored(i, &mut section_starts)).collect();
                let place = out.len() as u32;
                out.push((first_doc as u32, n as u32, None, StoredDoc::encode(&batch, place)));
            }
            StoreShard::Part { doc, part } => {
                let page = plan.pages[doc].as_ref().ok_or_else(|| SiftError::internal("a part of a page without a plan"))?;
                if whole.as_ref().is_none_or(|w| w.0 != doc) {
                    let (sd, labels, continues, runs) = pieced(&docs[doc], page);
                    whole = Some((doc, sd, labels, continues, runs));
                }
                let (_, sd, labels, continues, runs) = whole.as_ref().expect("set above");
                let mut stored_part = sd.part(runs[part]..runs[part + 1], labels);
                stored_part.continues = continues[runs[part]];
                let place = out.len() as u32;
                out.push((doc as u32, 1, Some(page.first_pos[part]), StoredDoc::encode(&[stored_part], place)));
            }
        }
    }
    Ok(out)
}

/// The manifest's entries of a store of key ranges: each shard's first and last key (the id
/// index), or (`with_last` false: the term store and the vocabulary) the separator between
/// the shard before and it.
fn key_ranges(payloads: &[(String, String, Vec<u8>)], refs: Vec<ShardRef>, with_last: bool) -> Vec<KeyRangeShardRef> {
    payloads
        .iter()
        .enumerate()
        .zip(refs)
        .map(|((i, (first, last, _)), shard)| {
            let first = match i.checked_sub(1).filter(|_| !with_last) {
                Some(before) => bundle::terms::separator(&payloads[before].1, first).to_string(),
                None => first.clone(),
            };
            KeyRangeShardRef { shard, first, last: with_last.then(|| last.clone()) }
        })
        .collect()
}

/// A framed shard under its content name, with its manifest entry.
fn named(kind: ShardKind, bytes: Vec<u8>) -> (ShardRef, (String, Vec<u8>)) {
    let hash = blake3::hash(&bytes);
    let file = format!("{}-{}.bin", kind.prefix(), &hash.to_hex()[..16]);
    let r = ShardRef::new(file.clone(), bytes.len() as u64, crate::bundle::crc32::crc32(&bytes));
    (r, (file, bytes))
}

/// Filterable fields: the ones asked for, or every metadata field that looks like a
/// category: values of at most 100 chars, and not (almost) one distinct value per document.
fn choose_filter_fields(docs: &[SourceDoc], asked: Option<&[String]>, warnings: &mut Vec<String>) -> Vec<String> {
    let mut stats: BTreeMap<&str, (BTreeSet<&str>, usize, bool)> = BTreeMap::new();
    for d in docs {
        for (k, vs) in &d.metadata {
            let e = stats.entry(k.as_str()).or_default();
            e.1 += 1;
            for v in vs {
                e.2 |= v.chars().count() > 100;
                if e.0.len() <= 1000 {
                    e.0.insert(v.as_str());
                }
            }
        }
    }
    if let Some(asked) = asked {
        let mut out: Vec<String> = asked.to_vec();
        out.sort();
        out.dedup();
        for f in &out {
            if !stats.contains_key(f.as_str()) {
                warnings.push(format!("filter field {f:?} does not occur in any document"));
            }
        }
        return out;
    }
    stats
        .into_iter()
        .filter(|(_, (values, count, long))| !*long && values.len() <= 1000 && (values.len() <= 20 || values.len() * 2 <= *count))
        .map(|(k, _)| k.to_string())
        .collect()
}

#[cfg(test)]
mod limits {
    use super::*;
    use crate::doc::Section;

    #[test]
    fn a_page_stops_indexing_new_terms_at_the_cap_and_says_so() {
        let word = |i: usize| format!("w{i}x");
        let text: Vec<String> = (0..MAX_TERMS_PER_DOC + 25).map(word).collect();
        let doc = SourceDoc {
            id: "dictionary.html".into(),
            title: "Dictionary".into(),
            sections: vec![Section { heading: String::new(), anchor: None, text: text.join(" ") }],
            ..Default::default()
        };
        let built = build(&[doc], &BuildOptions::default()).unwrap();
        // title's one term + the cap's worth of body words (the title term counts first).
        assert_eq!(built.manifest.term_count, MAX_TERMS_PER_DOC as u64);
        let w: Vec<&String> = built.warnings.iter().filter(|w| w.contains("distinct words")).collect();
        assert_eq!(w.len(), 1, "{:?}", built.warnings);
        assert!(w[0].starts_with("dictionary.html: more than 100000 distinct words; 26 further words were not indexed"), "{w:?}");
    }
}

#[cfg(test)]
mod doc_store_shards {
    use super::*;
    use crate::doc::Section;

    fn pages(n: usize, words: usize) -> Vec<SourceDoc> {
        (0..n)
            .map(|i| SourceDoc {
                id: format!("p{i}.html"),
                title: format!("Page {i}"),
                sections: vec![Section { heading: "Intro".into(), anchor: None, text: "word ".repeat(words) }],
                ..Default::default()
            })
            .collect()
    }

    /// Each page's position layout, as the builder analyses it.
    fn layouts(docs: &[SourceDoc]) -> (Vec<Vec<u32>>, Vec<u32>) {
        docs.iter().map(|d| visit_doc_fields(d, ANALYSIS_PIECE_BYTES, |_, _, _| {})).unzip()
    }

    /// The store as the builder writes it: (first doc, docs, first position, payload).
    fn store(docs: &[SourceDoc], target: usize, part_target: usize, cap: usize) -> (Vec<(u32, u32, Option<u32>, Vec<u8>)>, StorePlan) {
        let (starts, ends) = layouts(docs);
        let plan = plan_doc_store(docs, &starts, &ends, target, part_target, cap);
        let mut inv = Inverted { postings: HashMap::new(), lens: Vec::new(), field_tokens: [0; N_FIELDS], section_starts: starts, ends };
        plan.lay_out(&mut inv);
        (doc_store(docs, inv.section_starts, &plan).unwrap(), plan)
    }

    fn shards(docs: &[SourceDoc], target: usize, cap: usize) -> Vec<(u32, u32)> {
        store(docs, target, 0, cap).0.into_iter().map(|(first, n, _, _)| (first, n)).collect()
    }

    #[test]
    fn a_page_above_the_target_is_alone_and_small_pages_share() {
        let mut docs = pages(3, 2000); // ~10 KB each
        docs.extend(pages(6, 100)); // ~630 bytes each
        let got = shards(&docs, 4096, MAX_DOC_SHARDS);
        assert_eq!(&got[..3], &[(0, 1), (1, 1), (2, 1)]);
        assert!(got[3..].iter().all(|&(_, n)| n > 1), "{got:?}");
        // Every page is in exactly one shard, in order.
        let mut next = 0;
        for (first, n) in got {
            assert_eq!(first, next);
            next += n;
        }
        assert_eq!(next, 9);
    }

    #[test]
    fn the_shard_count_is_capped_by_raising_the_target() {
        let docs = pages(100, 2000);
        assert_eq!(shards(&docs, 1024, MAX_DOC_SHARDS).len(), 100);
        for cap in [1, 7, 10, 33, 99] {
            let got = shards(&docs, 1024, cap);
            assert!(got.len() <= cap, "cap {cap}: {} shards", got.len());
            assert_eq!(got.iter().map(|s| s.1).sum::<u32>(), 100);
        }
        assert_eq!(shards(&docs, 1024, 0).len(), 1, "a zero cap means one shard, not a division by zero");
    }

    #[test]
    fn parts_begin_on_the_grid_and_every_token_lies_in_its_parts_stretch() {
        // Sections of 1 to 13 words, one with neither heading nor text, one long enough to
        // be cut; parts of about two sections.
        let mut page = pages(1, 1).remove(0);
        page.sections = (0..24)
            .map(|i| {
                let (heading, words) = match i {
                    5 => (String::new(), 0),
                    9 => ("Long".into(), 300),
                    _ => (format!("H{i}"), 1 + i % 13),
                };
                Section { heading, anchor: None, text: "word ".repeat(words) }
            })
            .collect();
        let (store, plan) = store(std::slice::from_ref(&page), 4096, 100, MAX_DOC_SHARDS);
        let window = plan.window.expect("parts");
        let layout = plan.pages[0].as_ref().expect("a plan");
        assert!(store.len() > 8, "{} shards", store.len());
        let mut tokens = Vec::new();
        visit_doc_fields(&page, ANALYSIS_PIECE_BYTES, |_, _, toks| tokens.extend(toks.iter().map(|t| layout.remap(t.pos))));
        let first: Vec<u32> = store.iter().map(|s| s.2.expect("a part")).collect();
        for (k, (_, _, _, payload)) in store.iter().enumerate() {
            assert_eq!(first[k], partition::window_start(k, window).unwrap(), "part {k} on its window (no glued cut here)");
            let part = StoredDoc::decode(payload, 1, k as u32).unwrap().remove(0);
            let end = first.get(k + 1).copied().unwrap_or(u32::MAX);
            assert!(part.section_pos.iter().all(|&p| p >= first[k] && p < end), "part {k}: {:?} in {}..{end}", part.section_pos, first[k]);
            assert_eq!(part.continues, k > 0 && part.sections[0].heading.is_empty(), "part {k}");
        }
        let continuing = (0..store.len()).filter(|&k| StoredDoc::decode(&store[k].3, 1, k as u32).unwrap()[0].continues).count();
        assert!(continuing > 0, "the long section is cut");
        for &t in tokens.iter().filter(|&&t| t >= window) {
            let k = first.partition_point(|&f| f <= t) - 1;
            let part = StoredDoc::decode(&store[k].3, 1, k as u32).unwrap().remove(0);
            assert!(part.section_pos[0] <= t, "token {t} in part {k}");
        }
    }

    #[test]
    fn under_a_tight_cap_parts_grow_by_quarters_before_pages_go_whole() {
        // One long page of 16 sections of ~1 KB, and two short pages.
        let mut long = pages(1, 10).remove(0);
        long.sections = (0..16).map(|i| Section { heading: format!("S{i}"), anchor: None, text: "word ".repeat(200) }).collect();
        let mut docs = vec![long];
        docs.extend(pages(2, 10));
        let parts = |cap: usize| {
            let got = store(&docs, 4096, 2048, cap).0;
            assert!(got.len() <= cap.max(1), "cap {cap}: {} shards", got.len());
            got.iter().filter(|s| s.2.is_some()).count()
        };
        assert_eq!(parts(100), 8, "2 KB parts: two sections each");
        // Past the cap the parts grow a quarter at a time, so they stay as small as fits:
        // doubling would have made 4 parts where 6 fit, and 2 where 3 do.
        assert_eq!(parts(9), 8);
        assert_eq!(parts(8), 6, "three sections a part, and the short pages");
        assert_eq!(parts(7), 6);
        assert_eq!(parts(6), 4);
        assert_eq!(parts(4), 3);
        assert_eq!(parts(3), 2);
        assert_eq!(parts(2), 0, "no parts fit: the page is whole");
    }
}
