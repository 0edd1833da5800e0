//! Deltas: the pages changed since a bundle was built, as a small bundle searched together
//! with it (`sift_format::manifest::Delta`; the engine's `delta.rs` joins the two). The
//! watcher builds one on every change instead of the whole site, and a full build merges
//! it away.

use crate::BuildOptions;
use sift_format::frame::ShardKind;
use sift_format::manifest::Delta;
use sift_format::vectors::VectorSet;
use sift_format::{Manifest, ShardRef};
use sift_text::analyzer::Analyzer;

/// Build options for a delta of `base`: analysed, weighed and filtered as the base was
/// (the engine refuses a delta that is not), and without a vector space of its own (its
/// chunks' vectors are the base's encoder's, in the base's space: [`vector_list`]).
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
/// in `folder(&manifest)`, the base's documents that no longer answer, and the changed
/// pages' vector list (`vectors`, in the same folder).
pub fn joined(base: &Manifest, changed: Option<Manifest>, mut removed: Vec<u32>, vectors: Option<ShardRef>) -> Manifest {
    removed.sort_unstable();
    removed.dedup();
    let bundle = changed.map(|m| (folder(&m), Box::new(m)));
    let delta = (bundle.is_some() || !removed.is_empty()).then_some(Delta { bundle, removed, vectors });
    Manifest { delta, ..base.clone() }
}

/// The changed pages' chunk vectors as a vector list (`chunks`: each chunk's document, as
/// the delta numbers them, and its vector in the base's space, L2-normalised): its
/// manifest entry and file. Their document numbers must not decrease.
pub fn vector_list(dim: usize, chunks: &[(u32, Vec<f32>)]) -> Result<(ShardRef, (String, Vec<u8>)), sift_base::SiftError> {
    let mut set = VectorSet::new(dim);
    for (doc, v) in chunks {
        set.push(*doc, v)?;
    }
    Ok(crate::frame::named(ShardKind::VectorList, sift_format::encode_shard(ShardKind::VectorList, &set.encode(0))))
}
