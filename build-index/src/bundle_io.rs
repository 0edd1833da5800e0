//! Bundles on disk: open one and answer the engine's requests for shards from files, and
//! write one atomically (temp dir, fsync, rename) so a failed build never leaves a
//! half-written bundle where a site serves from.

use anyhow::{anyhow, Context as _, Result};
use sift_build::BuiltBundle;
use sift_engine::error::ErrorCode;
use sift_engine::{Engine, SiftError, Step};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// An engine over a bundle directory, fed lazily from disk.
pub struct DiskBundle {
    pub dir: PathBuf,
    pub engine: Engine,
}

impl DiskBundle {
    pub fn open(dir: &Path) -> Result<DiskBundle, SiftError> {
        let mpath = dir.join(sift_engine::bundle::MANIFEST_FILE);
        let bytes = fs::read(&mpath).map_err(|e| {
            SiftError::new(
                ErrorCode::BundleMissing,
                format!(
                    "no Sift bundle at {} ({}: {e}); build one with `sift build <SOURCE> --out {}`",
                    dir.display(),
                    mpath.display(),
                    dir.display()
                ),
            )
        })?;
        Ok(DiskBundle { dir: dir.to_path_buf(), engine: Engine::new(&bytes)? })
    }

    /// Load every shard now (benchmarks of warm queries).
    pub fn load_all(&mut self) -> Result<(), SiftError> {
        let files = self.engine.all_files();
        self.load(&files)
    }

    pub fn load(&mut self, files: &[String]) -> Result<(), SiftError> {
        for f in files {
            if !self.engine.is_loaded(f) {
                let bytes = read_shard(&self.dir, f)?;
                self.engine.add_shard(f, &bytes)?;
            }
        }
        Ok(())
    }

    /// Run an engine call to completion, reading the shards it asks for from disk.
    pub fn drive<T>(&mut self, call: impl FnMut(&Engine) -> Result<Step<T>, SiftError>) -> Result<T, SiftError> {
        let dir = self.dir.clone();
        self.engine.drive(call, |f| read_shard(&dir, f))
    }
}

fn read_shard(dir: &Path, file: &str) -> Result<Vec<u8>, SiftError> {
    fs::read(dir.join(file)).map_err(|e| SiftError::corrupt(format!("bundle shard {file} cannot be read: {e} (the bundle is incomplete)")))
}

/// Files written at once (`write_atomic`).
const WRITERS: usize = 32;

/// Write bundles to `out` atomically: into a sibling temp dir first, then swapped in. Each
/// goes to its folder inside `out` ("" for the main one, `de/` for a language beside it).
/// `extras` are copied in too (`model/model.onnx` ← a file): the query embedder a browser
/// or worker fetches lives beside the bundle it belongs to.
pub fn write_atomic(bundles: &[(&str, &BuiltBundle)], out: &Path, extras: &[(&str, &Path)]) -> Result<u64> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    refuse_non_bundle(out)?;
    let name = out.file_name().ok_or_else(|| anyhow!("--out {} has no directory name", out.display()))?.to_string_lossy().into_owned();
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    let result = (|| -> Result<u64> {
        fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        let write = |file: &str, bytes: &[u8]| -> Result<u64> {
            let p = tmp.join(file);
            let mut f = fs::File::create(&p).with_context(|| format!("cannot create {}", p.display()))?;
            f.write_all(bytes).with_context(|| format!("cannot write {} (disk full?)", p.display()))?;
            f.sync_all().with_context(|| format!("cannot sync {}", p.display()))?;
            Ok(bytes.len() as u64)
        };
        for (folder, _) in bundles.iter().filter(|(f, _)| !f.is_empty()) {
            fs::create_dir_all(tmp.join(folder)).with_context(|| format!("cannot create {}", tmp.join(folder).display()))?;
        }
        let extras: Vec<(&str, Vec<u8>)> = extras
            .iter()
            .map(|(name, src)| Ok((*name, fs::read(src).with_context(|| format!("cannot read {}", src.display()))?)))
            .collect::<Result<_>>()?;
        for (name, _) in &extras {
            if let Some(dir) = Path::new(name).parent() {
                fs::create_dir_all(tmp.join(dir)).with_context(|| format!("cannot create {}", tmp.join(dir).display()))?;
            }
        }
        // Every shard, and the extras, written and synced many at a time: a sync waits on
        // the disk, not the processor, so more writers than cores keep it busy.
        let shards = bundles
            .iter()
            .flat_map(|(folder, built)| built.shards.iter().map(move |(file, bytes)| (format!("{folder}{file}"), bytes.as_slice())));
        let files: Vec<(String, &[u8])> = shards.chain(extras.iter().map(|(name, bytes)| (name.to_string(), bytes.as_slice()))).collect();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(WRITERS).build().context("cannot start the writers")?;
        let mut total: u64 = pool.install(|| {
            use rayon::prelude::*;
            files.par_iter().map(|(file, bytes)| write(file, bytes)).sum::<Result<u64>>()
        })?;
        // The other languages' manifests, then the main one: a folder holding the main
        // manifest holds every file of every language.
        for (folder, built) in bundles.iter().rev().filter(|(f, _)| !f.is_empty()) {
            total += write(&format!("{folder}{}", sift_engine::bundle::MANIFEST_FILE), &built.manifest_bytes())?;
        }
        // The manifest last: a directory with a manifest is a complete bundle.
        let main = bundles.first().ok_or_else(|| anyhow!("no bundle to write"))?.1;
        Ok(total + write(sift_engine::bundle::MANIFEST_FILE, &main.manifest_bytes())?)
    })();
    let total = match result {
        Ok(t) => t,
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    // Swap: old bundle aside, new one in, old one removed.
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    let had_old = out.exists();
    if had_old {
        fs::rename(out, &old).with_context(|| format!("cannot move the previous bundle at {} aside", out.display()))?;
    }
    if let Err(e) = fs::rename(&tmp, out) {
        if had_old {
            let _ = fs::rename(&old, out);
        }
        let _ = fs::remove_dir_all(&tmp);
        return Err(anyhow!("cannot move the new bundle into {}: {e}", out.display()));
    }
    if had_old {
        let _ = fs::remove_dir_all(&old);
    }
    Ok(total)
}

/// Never replace a directory that is not a Sift bundle: `--out ./public` by mistake must not
/// delete a site.
fn refuse_non_bundle(out: &Path) -> Result<()> {
    if !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        return Err(anyhow!("--out {} exists and is not a directory", out.display()));
    }
    let empty = fs::read_dir(out).map(|mut d| d.next().is_none()).unwrap_or(false);
    let is_bundle = fs::read(out.join(sift_engine::bundle::MANIFEST_FILE))
        .map(|b| String::from_utf8_lossy(&b).contains(sift_engine::bundle::MANIFEST_MAGIC))
        .unwrap_or(false);
    if empty || is_bundle {
        Ok(())
    } else {
        Err(anyhow!("refusing to replace {}: it exists and is not a Sift bundle (choose an empty or new --out directory)", out.display()))
    }
}
