//! The embedder in the CLI: at build time, everything the semantic half of a bundle needs
//! — the chunks' embeddings and the static encoder's training data (titles, headings and
//! sentences, and every token alone) — embedded once and cached by content; at search
//! time, the query embedded by the full model when a user asks for it; and `sift embed`,
//! one machine's part of that work when it is split.

use anyhow::{anyhow, Result};
use indicatif::{ProgressBar, ProgressStyle};
use sift_build::pages::PageBatches;
use sift_build::semantic::cache::{self as embed_cache, EmbedCache};
use sift_build::semantic::embed::{self as corpus, EmbedReport, Model};
use sift_build::SemanticInput;
use sift_embed::model::{default_model_dir, Embedder};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The default model file, if `sift model fetch` installed it.
pub fn default_model() -> Option<PathBuf> {
    let p = default_model_dir().join("model-f32.onnx");
    p.exists().then_some(p)
}

/// The `model.json` that `sift model fetch` writes beside a model (its name, its dimension).
fn stamp(model: &Path) -> Option<serde_json::Value> {
    std::fs::read(model.with_file_name("model.json")).ok().and_then(|b| serde_json::from_slice(&b).ok())
}

/// The model's name: from its `model.json`, else the file name.
fn model_name(stamp: Option<&serde_json::Value>, model: &Path) -> String {
    stamp
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

pub use sift_build::semantic::embed::Layout;

/// The model as the builder calls it, borrowing or owning the embedder (owned, the
/// builder frees it once the embedding is done).
pub fn as_model<'a, E: std::borrow::Borrow<Embedder> + Sync + 'a>(e: E) -> Model<'a> {
    let (tokenizer, dim) = (e.borrow().tokenizer().clone(), e.borrow().dim);
    Model { tokenizer, dim, embed: Box::new(move |ids| e.borrow().embed_one(ids)) }
}

/// The model as a build calls it, with its name, loaded when it is first asked to embed: a
/// rebuild whose texts the cache holds never loads it (a few hundred MB and a second). Its
/// dimension and name come from `model.json` beside it; a model without a stamped
/// dimension is loaded at once.
fn lazy_model(model: &Path) -> Result<(Model<'static>, String)> {
    let stamp = stamp(model);
    let name = model_name(stamp.as_ref(), model);
    let Some(dim) = stamp.and_then(|v| v["dim"].as_u64()).map(|d| d as usize) else {
        return Ok((as_model(load(model)?), name));
    };
    let tokenizer = sift_embed::Tokenizer::read(&model.with_file_name("tokenizer.json")).map_err(|e| anyhow!("{e}"))?;
    let (path, loaded) = (model.to_path_buf(), std::sync::OnceLock::<Result<Embedder, String>>::new());
    let embed = move |ids: &[u32]| {
        let e = loaded
            .get_or_init(|| match load(&path) {
                Ok(e) if e.dim != dim => Err(format!("{} makes {}-dimension vectors, its model.json says {dim}", path.display(), e.dim)),
                r => r.map_err(|e| e.to_string()),
            })
            .as_ref()
            .map_err(|e| sift_embed::EmbedError(e.clone()))?;
        e.embed_one(ids)
    };
    Ok((Model { tokenizer, dim, embed: Box::new(embed) }, name))
}

/// Run `f` with a progress callback `(done, total)` drawn as the embedding bar.
pub fn with_embedding_bar<T>(quiet: bool, f: impl FnOnce(&(dyn Fn(u64, u64) + Sync)) -> T) -> T {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(
        ProgressStyle::with_template("{spinner} embedding {pos}/{len} texts {wide_bar} {per_sec}, {eta} to go")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let log = crate::steps::LogProgress::new(quiet);
    log.step("embedding texts");
    let out = f(&|done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
        log.progress(done, total);
    });
    bar.finish_and_clear();
    out
}

/// One machine's share of a split embedding (`sift embed --part i/n`), written to a part
/// file of the cache. Returns the sequences embedded now, those the part holds, seconds.
pub fn embed_part(
    docs: &(impl PageBatches + ?Sized),
    model: &Path,
    layout: Layout,
    part: (u32, u32),
    quiet: bool,
) -> Result<(usize, usize, f64)> {
    let t0 = Instant::now();
    let (m, _) = lazy_model(model)?;
    let mut cache = EmbedCache::open_part(&embed_cache::cache_root(), &embed_cache::model_hash(model)?, m.dim, part);
    let (now, of_part) = with_embedding_bar(quiet, |progress| corpus::embed_part(docs, &m, layout, part, &mut cache, progress))
        .map_err(|err| anyhow!("{err}"))?;
    cache.save(&[])?;
    Ok((now, of_part, t0.elapsed().as_secs_f64()))
}

/// Embed what the semantic half of a bundle needs (see `sift_build::semantic::embed`), with the
/// embedding cache of the model as the store and a progress bar.
pub fn semantic_input(
    docs: &(impl PageBatches + ?Sized),
    model: &Path,
    layout: Layout,
    quiet: bool,
) -> Result<(SemanticInput, EmbedReport, f64)> {
    let t0 = Instant::now();
    let (m, name) = lazy_model(model)?;
    let mut cache = EmbedCache::open(&embed_cache::cache_root(), &embed_cache::model_hash(model)?, m.dim);
    let (input, report, used) = with_embedding_bar(quiet, |progress| corpus::semantic_input(docs, m, &name, layout, &mut cache, progress))
        .map_err(|err| anyhow!("{err}"))?;
    if let Err(err) = cache.save(&used) {
        eprintln!("warning: the embedding cache could not be saved ({err:#}); the next build embeds everything again");
    }
    Ok((input, report, t0.elapsed().as_secs_f64()))
}

#[derive(clap::Args)]
pub struct EmbedArgs {
    /// The sources `sift build` will read, with the same options.
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// This machine's part, `i/n` (1 ≤ i ≤ n): the texts whose hash falls in part i of n.
    #[arg(long, value_parser = parse_part)]
    pub part: (u32, u32),
    /// The bundle directory the build will write, skipped when it lies inside the sources.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// As for `sift build`: the CSS selector of the main content of HTML pages.
    #[arg(long)]
    pub selector: Option<String>,
    /// As for `sift build`: the prefix of every page URL.
    #[arg(long, default_value = "")]
    pub base_url: String,
    /// As for `sift build`: files larger than this many bytes are skipped.
    #[arg(long, default_value_t = 64 << 20)]
    pub max_file_bytes: u64,
    /// As for `sift build`: index HTML pages marked noindex too.
    #[arg(long)]
    pub index_noindex: bool,
    /// Embedding model (default: the one `sift model fetch` installed).
    #[arg(long)]
    pub embedder: Option<PathBuf>,
    /// The build will fit no static query encoder (its texts need no embedding).
    #[arg(long)]
    pub no_encoder: bool,
    /// As for `sift build`: tokens the model reads at most (the same sample on every part).
    #[arg(long, default_value_t = sift_build::semantic::embed::MODEL_BUDGET, value_parser = parse_model_budget)]
    pub model_budget: usize,
    /// As for `sift build`: the model reads every chunk and training text.
    #[arg(long)]
    pub full_model: bool,
    /// No progress bar or summary.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_part(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--part takes i/n with 1 <= i <= n (e.g. 2/8), not `{s}`");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// `--model-budget` (`sift build` and `sift embed`): a count of tokens, at least 1.
pub fn parse_model_budget(raw: &str) -> Result<usize, String> {
    match raw.parse::<usize>() {
        Ok(0) => Err("the model's budget must be at least 1 token".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("expected a number of tokens, got {raw:?}")),
    }
}

/// What the build did for the chunks' vectors, and why, in a line.
pub fn vectors_note(r: &EmbedReport, layout: Layout) -> String {
    match (r.doc_vectors, layout.model_budget) {
        (sift_build::DocVectors::Fitted, Some(budget)) => format!(
            "vectors: the site's texts hold {} tokens, over the model's budget of {budget}: the model read a sample of {} and every \
             chunk's vector is the static encoder's, fitted to it (--full-model: the model reads every chunk)",
            r.site_tokens, r.read_tokens
        ),
        (sift_build::DocVectors::Model, Some(budget)) if r.read_tokens < r.site_tokens => format!(
            "vectors: the site's texts hold {} tokens, over the model's budget of {budget}: the model read a sample of {}, every \
             chunk first (their vectors are the model's), then the titles, headings and sentences that fit, which the static \
             encoder is fitted to (--full-model: the model reads them all)",
            r.site_tokens, r.read_tokens
        ),
        (_, Some(budget)) if r.site_tokens > budget => format!(
            "vectors: the model read every chunk ({} tokens, over its budget of {budget}: without the static encoder \
             (--no-encoder) nothing else can make the chunks' vectors)",
            r.site_tokens
        ),
        (_, Some(budget)) => {
            format!("vectors: the model read every chunk (the site's {} tokens are within its budget of {budget})", r.site_tokens)
        }
        _ => format!("vectors: the model read every chunk ({} tokens; --full-model)", r.site_tokens),
    }
}

/// `sift embed`: one part of a split embedding.
pub fn embed(a: &EmbedArgs) -> Result<()> {
    let opts = crate::sources::SourceOptions {
        selector: a.selector.clone(),
        base_url: a.base_url.clone(),
        exclude: a.out.iter().cloned().collect(),
        max_file_bytes: a.max_file_bytes,
        index_noindex: a.index_noindex,
        progress: !a.quiet,
    };
    let mut collected = crate::sources::collect(&a.sources, &opts)?;
    collected.require_pages(&a.sources, "embed")?;
    let model = match &a.embedder {
        Some(m) if !m.exists() => anyhow::bail!("embedding model {} not found (run `sift model fetch`)", m.display()),
        Some(m) => m.clone(),
        None => default_model().ok_or_else(|| anyhow::anyhow!("no embedding model installed: run `sift model fetch` first"))?,
    };
    let layout = Layout { encoder: !a.no_encoder, model_budget: (!a.full_model).then_some(a.model_budget), ..Default::default() };
    collected.pages.finish()?;
    let (now, of_part, seconds) = embed_part(&collected.pages, &model, layout, a.part, a.quiet)?;
    if !a.quiet {
        eprintln!(
            "part {}/{}: {} of the site's texts, {} embedded now ({:.1}/s), {} already in the cache, in {:.1}s",
            a.part.0,
            a.part.1,
            of_part,
            now,
            now as f64 / seconds.max(1e-9),
            of_part - now,
            seconds
        );
    }
    Ok(())
}
