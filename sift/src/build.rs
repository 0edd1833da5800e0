//! `sift build`: pages from the sources, the semantic half when asked for (the model or the
//! embedding cache), the bundle built into a staging folder and swapped in whole.

use crate::{bundle_io, embedding, languages, sources, steps};
use anyhow::Result;
use sift_build::BuildOptions;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Clone)]
pub struct BuildArgs {
    /// Folders of HTML or Markdown, or .jsonl files (BEIR corpus shape).
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// Output directory of the bundle (replaced atomically).
    #[arg(long)]
    pub out: PathBuf,
    /// Analyse every page as this language (en, de, pt-BR, ja, ...): one bundle. Without it
    /// each page's own (`<html lang>`, a `lang`/`language` field) decides, one bundle per
    /// language: the main one at --out, the others in folders named by their code inside it.
    #[arg(long)]
    pub language: Option<String>,
    /// CSS selector of the main content of HTML pages (tried before main, [role=main], article, div.body).
    #[arg(long)]
    pub selector: Option<String>,
    /// Prefix of every page URL (e.g. `/docs/`).
    #[arg(long, default_value = "")]
    pub base_url: String,
    /// Metadata field usable in filters and facets (repeatable). Default: every field whose values look like categories.
    #[arg(long = "filter-field")]
    pub filter_fields: Vec<String>,
    /// Skip HTML/Markdown files larger than this many bytes.
    #[arg(long, default_value_t = 64 << 20)]
    pub max_file_bytes: u64,
    /// Index HTML pages marked `<meta name="robots" content="noindex">` too (a staging site
    /// marks every page so). By default they are left out, as search engines leave them out.
    #[arg(long)]
    pub index_noindex: bool,
    /// BM25F saturation k1.
    #[arg(long, default_value_t = sift_engine::rank::Bm25fParams::default().k1)]
    pub k1: f32,
    /// Field weights title,path,headings,body.
    #[arg(long, value_delimiter = ',')]
    pub field_weights: Option<Vec<f32>>,
    /// Length normalisation b per field title,path,headings,body.
    #[arg(long, value_delimiter = ',')]
    pub field_b: Option<Vec<f32>>,
    /// Embedding model (.onnx, with tokenizer.json beside it). Default: the model that
    /// `sift model fetch` installed, when there is one.
    #[arg(long)]
    pub embedder: Option<PathBuf>,
    /// Build a keyword-only bundle (no vectors).
    #[arg(long, conflicts_with = "embedder")]
    pub no_embedder: bool,
    /// Also copy the full query model (int8 ONNX, 23.5 MB) into the bundle's model/ folder,
    /// for pages and workers that embed queries with it instead of the bundle's static
    /// encoder (which needs no model).
    #[arg(long)]
    pub copy_model: bool,
    /// Dimensions of the bundle's vector space (the model's vectors are projected onto the
    /// corpus's principal directions).
    #[arg(long, default_value_t = sift_build::semantic::layout::DEFAULT_DIM)]
    pub vector_dim: usize,
    /// Partition the vectors into this many lists (default: one list up to 2,048 chunks,
    /// else lists of about 64).
    #[arg(long)]
    pub vector_lists: Option<usize>,
    /// Vectors a query reads in a partitioned set (the nearest lists until this many).
    #[arg(long, default_value_t = sift_build::semantic::layout::DEFAULT_PROBE)]
    pub vector_probe: usize,
    /// Build no static query encoder (hosts must then embed queries with the model).
    #[arg(long)]
    pub no_encoder: bool,
    /// Tokens the model reads at most. A site over it has the model read a sample of that
    /// size (short texts up to half of it, then chunks, chosen by hash) and every chunk's
    /// vector made by the static encoder fitted to the sample: the build's model time
    /// stops growing with the site.
    #[arg(long, default_value_t = sift_build::semantic::embed::MODEL_BUDGET, value_parser = embedding::parse_model_budget)]
    pub model_budget: usize,
    /// The model reads every chunk and training text, however many (no budget): the
    /// chunks' vectors are the model's own, at a model pass over the whole site.
    #[arg(long)]
    pub full_model: bool,
    /// Text per document-store shard, kB: smaller shards mean fewer bytes fetched for a
    /// first page of results, more files (raised when the store would need more than
    /// 4,096 shards).
    #[arg(long, default_value_t = sift_build::BuildOptions::default().doc_shard_target / 1024, value_parser = parse_shard_kb)]
    pub doc_shard_kb: usize,
    /// A page with more text than this, kB, is stored in parts of about this size (runs of
    /// its sections), so a result fetches only the part its snippet comes from (grown a
    /// quarter at a time while the store would need more than 4,096 shards); 0 keeps every
    /// page whole.
    #[arg(long, default_value_t = sift_build::BuildOptions::default().doc_part_target / 1024, value_parser = parse_part_kb)]
    pub doc_part_kb: usize,
    /// Postings per term shard (decoded), kB: smaller shards mean fewer bytes fetched per
    /// query word, more files and a longer manifest.
    #[arg(long, default_value_t = sift_build::BuildOptions::default().term_shard_target / 1024, value_parser = parse_shard_kb)]
    pub term_shard_kb: usize,
    /// No progress bar or summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write what changed since the last full build of --out (with the same settings) as
    /// a delta beside it, reading only the changed pages (their vectors made by the
    /// bundle's encoder); past an eighth of the site, or when the settings change, it
    /// builds in full. Without it every page is read and indexed again.
    #[arg(long)]
    pub incremental: bool,
}

pub struct BuildReport {
    pub docs: usize,
    pub files: usize,
    pub bytes: u64,
    pub shards: usize,
    pub seconds: f64,
}

pub fn build(a: &BuildArgs) -> Result<BuildReport> {
    if !a.incremental {
        return build_all(a);
    }
    let t0 = Instant::now();
    // Stamped before anything reads them: a file changed during the build is a change next time.
    let files = crate::delta::files(&a.sources, &a.out, true);
    let why = match crate::delta::incremental(a, &files)? {
        Ok(w) => {
            for warning in &w.warnings {
                eprintln!("warning: {warning}");
            }
            let report =
                BuildReport { docs: w.docs, files: files.len(), bytes: w.bytes, shards: w.shards, seconds: t0.elapsed().as_secs_f64() };
            if !a.quiet {
                eprintln!(
                    "{} page(s) changed since the last full build of {} ({} replaced or removed): written beside it as a delta in {:.2}s ({} shards, {:.1} KB)",
                    w.pages,
                    a.out.display(),
                    w.removed,
                    report.seconds,
                    w.shards,
                    w.bytes as f64 / 1024.0
                );
            }
            return Ok(report);
        }
        Err(why) => why,
    };
    if !a.quiet {
        eprintln!("building every page: {why}");
    }
    let report = build_all(a)?;
    crate::delta::record(a, &files)?;
    Ok(report)
}

impl BuildArgs {
    /// How these arguments read the sources (`progress`: a bar while extracting).
    pub fn source_options(&self, progress: bool) -> sources::SourceOptions {
        sources::SourceOptions {
            selector: self.selector.clone(),
            base_url: self.base_url.clone(),
            exclude: vec![self.out.clone()],
            max_file_bytes: self.max_file_bytes,
            index_noindex: self.index_noindex,
            progress,
        }
    }
}

fn build_all(a: &BuildArgs) -> Result<BuildReport> {
    let t0 = Instant::now();
    let opts = a.source_options(!a.quiet);
    let steps = steps::Steps::default();
    steps.start("reading");
    let collected = sources::collect(&a.sources, &opts)?;
    for w in &collected.warnings {
        eprintln!("warning: {w}");
    }
    collected.require_pages(&a.sources, "index")?;
    let mut params = sift_engine::rank::Bm25fParams { k1: a.k1, ..Default::default() };
    for (name, v) in [("--field-weights", &a.field_weights), ("--field-b", &a.field_b)] {
        if v.as_ref().is_some_and(|v| v.len() != 4) {
            anyhow::bail!("{name} takes 4 comma-separated numbers: title,path,headings,body");
        }
    }
    if let Some(w) = &a.field_weights {
        params.weight.copy_from_slice(&w[..4]);
    }
    if let Some(b) = &a.field_b {
        params.b.copy_from_slice(&b[..4]);
    }
    if !(params.k1 > 0.0 && params.weight.iter().all(|w| *w >= 0.0) && params.b.iter().all(|b| (0.0..=1.0).contains(b))) {
        anyhow::bail!("BM25F parameters out of range: k1 > 0, weights >= 0, 0 <= b <= 1");
    }
    let model = match (&a.embedder, a.no_embedder) {
        (_, true) => None,
        (Some(m), false) => {
            if !m.exists() {
                anyhow::bail!("embedding model {} not found (run `sift model fetch`, or pass --no-embedder)", m.display());
            }
            Some(m.clone())
        }
        (None, false) => {
            let m = embedding::default_model();
            if m.is_none() && !a.quiet {
                eprintln!("note: no embedding model installed (`sift model fetch`); building a keyword-only bundle");
            }
            m
        }
    };
    let layout = embedding::Layout {
        dim: a.vector_dim,
        lists: a.vector_lists,
        probe: a.vector_probe,
        encoder: !a.no_encoder,
        model_budget: (!a.full_model).then_some(a.model_budget),
    };
    if layout.dim == 0 || layout.lists == Some(0) {
        anyhow::bail!("--vector-dim and --vector-lists must be at least 1");
    }
    let mut lang_warnings = Vec::new();
    let groups = languages::split(collected.pages, a.language.as_deref(), &mut lang_warnings)?;
    for w in &lang_warnings {
        eprintln!("warning: {w}");
    }
    let docs_total: usize = groups.iter().map(|g| g.pages.len()).sum();
    // Shards go to disk as they are made: a big site's bundle is never held whole.
    let staging = bundle_io::Staging::new(&a.out)?;
    let mut bundles: Vec<(String, sift_format::Manifest, usize)> = Vec::with_capacity(groups.len());
    let spinner = if a.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new_spinner() };
    spinner.set_style(spinner_style());
    for (gi, g) in groups.into_iter().enumerate() {
        // The embedding model is English: another language's bundle is keyword-only (its
        // `auto` answers lexically) rather than carrying vectors that mean little.
        let model = model.as_ref().filter(|_| g.code == "en");
        if model.is_none() && gi == 0 && g.code != "en" && !a.no_embedder && embedding::default_model().is_some() && !a.quiet {
            eprintln!("note: the embedding model is English; the {} bundle is keyword-only", g.code);
        }
        let folder = if gi == 0 { String::new() } else { format!("{}/", g.code) };
        let mut sink = staging.folder(&folder)?;
        let manifest = build_language(a, g, model, layout, params, &steps, &spinner, &mut sink)?;
        bundles.push((folder, manifest, sink.files.len()));
    }
    let others: Vec<(String, String)> = bundles.iter().skip(1).map(|(f, m, _)| (m.language.clone(), f.clone())).collect();
    if !others.is_empty() && !a.quiet {
        eprintln!(
            "languages: {} (main) and {}",
            bundles[0].1.language,
            others.iter().map(|(c, f)| format!("{c} at {f}")).collect::<Vec<_>>().join(", ")
        );
    }
    bundles[0].1.languages = others;
    steps.start("writing the bundle");
    spinner.set_message("writing the bundle");
    spinner.reset_elapsed();
    let main = &bundles[0].1;
    // With --copy-model the full query model ships beside the bundle: the int8 file when
    // there is one (4× smaller; the runtimes expand it to f32 once at load).
    let model_files: Vec<(&str, PathBuf)> = match (&model, a.copy_model) {
        (Some(m), true) => {
            let int8 = m.with_file_name("model-int8.onnx");
            vec![
                ("model/model.onnx", if int8.exists() { int8 } else { m.clone() }),
                ("model/tokenizer.json", m.with_file_name("tokenizer.json")),
            ]
        }
        _ => Vec::new(),
    };
    let extras: Vec<(&str, &std::path::Path)> = model_files.iter().map(|(n, p)| (*n, p.as_path())).collect();
    let manifests: Vec<(&str, Vec<u8>)> = bundles.iter().map(|(f, m, _)| (f.as_str(), m.to_json_bytes())).collect();
    let bytes = staging.commit(&manifests, &extras)?;
    spinner.finish_and_clear();
    let report = BuildReport {
        docs: docs_total,
        files: collected.files,
        bytes,
        shards: bundles.iter().map(|(_, _, n)| n).sum(),
        seconds: t0.elapsed().as_secs_f64(),
    };
    if !a.quiet {
        eprintln!(
            "built {} documents from {} files into {} ({} shards, {} terms, {:.1} KB) in {:.2}s; filterable: {}",
            report.docs,
            report.files,
            a.out.display(),
            report.shards + bundles.len(),
            bundles.iter().map(|(_, m, _)| m.term_count).sum::<u64>(),
            bytes as f64 / 1024.0,
            report.seconds,
            if main.filter_fields.is_empty() { "none".to_string() } else { main.filter_fields.join(", ") }
        );
        eprintln!(
            "{:.1} documents/s; peak memory {}; time by step: {}",
            report.docs as f64 / report.seconds.max(1e-9),
            steps::peak_memory().map_or("unknown".to_string(), |kb| format!("{:.0} MB", kb as f64 / 1024.0)),
            steps.summary()
        );
    }
    Ok(report)
}

/// A step of the build that has not said how far it is.
fn spinner_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}").unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner())
}

/// Build the bundle of one language's pages (with vectors when `model` is given) into
/// `sink`; its manifest.
#[allow(clippy::too_many_arguments)]
fn build_language(
    a: &BuildArgs,
    mut g: languages::LanguageGroup,
    model: Option<&PathBuf>,
    layout: embedding::Layout,
    params: sift_engine::rank::Bm25fParams,
    steps: &steps::Steps,
    spinner: &indicatif::ProgressBar,
    sink: &mut bundle_io::FolderSink,
) -> Result<sift_format::Manifest> {
    if model.is_some() {
        steps.start("embedding");
    }
    let semantic = match &model {
        Some(m) => {
            // The pages are read from disk a batch at a time: only their chunks' tokens
            // are held while the model embeds.
            g.pages.finish()?;
            let (v, r, seconds) = embedding::semantic_input(&g.pages, m, layout, a.quiet)?;
            if !a.quiet {
                eprintln!(
                    "embedded {} chunks, {} titles/headings/sentences and {} tokens with {}: {} now, {} from the cache, in {:.1}s{}",
                    r.chunks,
                    r.texts,
                    r.tokens,
                    v.model,
                    r.embedded,
                    r.stored,
                    seconds,
                    if r.embedded > 0 { format!(" ({:.1} texts/s)", r.embedded as f64 / seconds.max(1e-9)) } else { String::new() }
                );
                eprintln!("{}", embedding::vectors_note(&r, layout));
            }
            Some(v)
        }
        None => None,
    };
    let t_index = Instant::now();
    let bopts = BuildOptions {
        params,
        filter_fields: (!a.filter_fields.is_empty()).then(|| a.filter_fields.clone()),
        semantic,
        doc_shard_target: a.doc_shard_kb * 1024,
        doc_part_target: a.doc_part_kb * 1024,
        term_shard_target: a.term_shard_kb * 1024,
        analyzer: languages::analyzer(&g.code)?,
        ..Default::default()
    };
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let docs_n = g.pages.len();
    let code = g.code.clone();
    let (step_bar, step_times) = (spinner.clone(), steps.clone());
    let log = steps::LogProgress::new(a.quiet);
    // A step shows a spinner until it tells how far it is, then a bar with the time to go.
    let counted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let bopts = BuildOptions {
        on_step: sift_build::OnStep(Some(std::sync::Arc::new(move |event: sift_build::BuildEvent<'_>| match event {
            sift_build::BuildEvent::Step(what) => {
                if counted.swap(false, std::sync::atomic::Ordering::Relaxed) {
                    step_bar.set_style(spinner_style());
                }
                let message = format!("{docs_n} documents ({code}): {what}");
                log.step(&message);
                step_bar.set_message(message);
                step_bar.reset_elapsed();
                step_bar.reset_eta();
                step_bar.set_position(0);
                step_times.start(what);
            }
            sift_build::BuildEvent::Progress { done, total } => {
                if !counted.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    step_bar.set_style(
                        indicatif::ProgressStyle::with_template("{spinner} {msg} {pos}/{len} {wide_bar} {elapsed}, {eta} to go")
                            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                }
                step_bar.set_length(total);
                step_bar.set_position(done);
                log.progress(done, total);
            }
        }))),
        ..bopts
    };
    let (manifest, warnings) = sift_build::build_into(g.pages, bopts, sink)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if let (Some(e), false) = (&manifest.encoder, a.quiet) {
        eprintln!(
            "indexed in {:.1}s: {} chunk vectors of {} dimensions in {} list(s); query encoder of {} tokens fitted to {} texts",
            t_index.elapsed().as_secs_f64(),
            manifest.vectors.as_ref().map_or(0, |v| v.chunks),
            manifest.vectors.as_ref().map_or(0, |v| v.dim),
            sink.files.iter().filter(|n| n.starts_with("l-")).count(),
            e.layout.n_rows,
            e.texts
        );
    }
    Ok(manifest)
}

/// A shard size target in kB: 1 (a shard per term range or page, however small) to 65,536
/// (everything in one shard).
fn parse_shard_kb(raw: &str) -> Result<usize, String> {
    match raw.parse::<usize>() {
        Ok(kb) if (1..=65_536).contains(&kb) => Ok(kb),
        _ => Err(format!("expected a size in kB from 1 to 65536, got {raw:?}")),
    }
}

fn parse_part_kb(raw: &str) -> Result<usize, String> {
    if raw == "0" {
        return Ok(0);
    }
    parse_shard_kb(raw).map_err(|e| format!("{e} (or 0: never)"))
}
