//! Deltas: the pages changed since a bundle was built, as a small bundle searched together
//! with it (`sift_format::manifest::Delta`; the engine's `delta.rs` joins the two). The
//! watcher builds one on every change instead of the whole site, and a full build merges
//! it away.

use crate::BuildOptions;
use sift_format::manifest::Delta;
use sift_format::Manifest;
use sift_text::analyzer::Analyzer;

/// Build options for a delta of `base`: analysed, weighed and filtered as the base was
/// (the engine refuses a delta that is not), and without vectors (the engine joins words,
/// not vector lists: a changed page is found by its words until the next full build).
pub fn options(base: &Manifest, opts: BuildOptions) -> Result<BuildOptions, sift_base::SiftError> {
    let analyzer = Analyzer::new(&base.language, &base.stop_words)
        .map_err(|e| sift_base::SiftError::internal(format!("the bundle's language {} has no analyzer here", e.0)))?;
    Ok(BuildOptions { params: base.params, filter_fields: Some(base.filter_fields.clone()), semantic: None, analyzer, ..opts })
}

/// The folder a delta's shards go into, named by its manifest: a new delta never writes
/// over the files of one a reader may still be reading.
pub fn folder(delta: &Manifest) -> String {
    format!("delta-{}", &blake3::hash(&delta.to_json_bytes()).to_hex()[..16])
}

/// `base` with its delta: the bundle of the changed pages (None: pages were only deleted)
/// in `folder(&manifest)`, and the base's documents that no longer answer.
pub fn joined(base: &Manifest, changed: Option<Manifest>, mut removed: Vec<u32>) -> Manifest {
    removed.sort_unstable();
    removed.dedup();
    let bundle = changed.map(|m| (folder(&m), Box::new(m)));
    let delta = (bundle.is_some() || !removed.is_empty()).then_some(Delta { bundle, removed });
    Manifest { delta, ..base.clone() }
}
