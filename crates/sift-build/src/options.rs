//! What a build is asked to do: [`BuildOptions`], and how it reports as it goes.

use crate::semantic::layout::SemanticInput;
use sift_format::fields::Bm25fParams;
use sift_format::{dictionary, vocabulary};
use sift_text::analyzer::Analyzer;

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
    pub(crate) fn step(&self, what: &str) {
        if let Some(f) = &self.0 {
            f(BuildEvent::Step(what))
        }
    }

    pub(crate) fn progress(&self, done: usize, total: usize) {
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
