//! The embedder in the CLI: chunk embeddings at build time (batched, sorted by length so
//! padding is small, spread over every core) and query embeddings at search time.

use anyhow::{anyhow, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sift_core::{ChunkVectors, SourceDoc};
use sift_embed::model::{default_model_dir, Embedder};
use std::path::{Path, PathBuf};
use std::time::Instant;

const BATCH: usize = 32;

/// The default model file, if `sift model fetch` installed it.
pub fn default_model() -> Option<PathBuf> {
    let p = default_model_dir().join("model-f32.onnx");
    p.exists().then_some(p)
}

/// The model's name: from `model.json` beside it, else the file name.
pub fn model_name(model: &Path) -> String {
    let stamp = model.with_file_name("model.json");
    std::fs::read(&stamp)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["model"].as_str().map(str::to_string))
        .unwrap_or_else(|| model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
}

pub fn load(model: &Path) -> Result<Embedder> {
    Embedder::load(model, &model.with_file_name("tokenizer.json")).map_err(|e| anyhow!("{e}"))
}

/// The installed model, loaded once per process (`sift eval` embeds hundreds of queries).
pub fn query_embedder() -> Option<Result<&'static Embedder, String>> {
    static CACHE: std::sync::OnceLock<Result<Embedder, String>> = std::sync::OnceLock::new();
    let model = default_model()?;
    Some(CACHE.get_or_init(|| load(&model).map_err(|e| e.to_string())).as_ref().map_err(Clone::clone))
}

pub struct EmbedReport {
    pub chunks: usize,
    pub seconds: f64,
}

/// Embed every chunk of every document.
pub fn embed_docs(docs: &[SourceDoc], model: &Path, quiet: bool) -> Result<(ChunkVectors, EmbedReport)> {
    let e = load(model)?;
    let chunks: Vec<Vec<String>> = docs.iter().map(sift_core::chunk::chunks_of).collect();
    let mut flat: Vec<(usize, usize, Vec<u32>)> = Vec::new();
    for (d, cs) in chunks.iter().enumerate() {
        for (c, text) in cs.iter().enumerate() {
            flat.push((d, c, e.tokenizer().encode(text)));
        }
    }
    flat.sort_by_key(|x| x.2.len());
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(flat.len() as u64) };
    bar.set_style(
        ProgressStyle::with_template("{spinner} embedding {pos}/{len} chunks {wide_bar} {per_sec} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let t0 = Instant::now();
    let batches: Vec<&[(usize, usize, Vec<u32>)]> = flat.chunks(BATCH).collect();
    let embedded: Vec<Result<Vec<Vec<f32>>>> = batches
        .par_iter()
        .map(|b| {
            let ids: Vec<Vec<u32>> = b.iter().map(|x| x.2.clone()).collect();
            let r = e.embed_ids(&ids).map_err(|e| anyhow!("{e}"));
            bar.inc(b.len() as u64);
            r
        })
        .collect();
    bar.finish_and_clear();
    let mut per_doc: Vec<Vec<Vec<f32>>> = chunks.iter().map(|c| vec![Vec::new(); c.len()]).collect();
    for (batch, vecs) in batches.iter().zip(embedded) {
        for (x, v) in batch.iter().zip(vecs?) {
            per_doc[x.0][x.1] = v;
        }
    }
    let report = EmbedReport { chunks: flat.len(), seconds: t0.elapsed().as_secs_f64() };
    Ok((ChunkVectors { model: model_name(model), dim: e.dim, per_doc }, report))
}
