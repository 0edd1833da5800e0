//! Bundles on disk: open one and answer the engine's requests for shards from files, and
//! build one into a temp dir and swap it in (fsync, rename), so a failed build never leaves
//! a half-written bundle where a site serves from.

use anyhow::{anyhow, Context as _, Result};
use sift_base::error::ErrorCode;
use sift_build::ShardSink;
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
        let mpath = dir.join(sift_format::MANIFEST_FILE);
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

    /// The bundle in `dir` read through this manifest (the watcher's base: the manifest on
    /// disk may name a delta beside it).
    pub fn of(dir: &Path, manifest: sift_format::Manifest) -> Result<DiskBundle, SiftError> {
        Ok(DiskBundle { dir: dir.to_path_buf(), engine: Engine::from_manifest(manifest)? })
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

/// Files synced at once when a bundle is committed: a sync waits on the disk, not the
/// processor, so more syncs than cores keep it busy.
const SYNCERS: usize = 32;

/// A bundle being built: its shards go into a sibling temp dir (`.NAME.tmp-PID`) as they
/// are framed, and `commit` swaps it in, so a failed build never leaves a half-written
/// bundle where a site serves from (dropped without a commit, the temp dir is removed).
pub struct Staging {
    out: PathBuf,
    parent: PathBuf,
    name: String,
    tmp: PathBuf,
    committed: bool,
}

/// One bundle's folder in the staging dir ("" for the main one, `de/` for a language
/// beside it): the sink its build puts shards into.
pub struct FolderSink {
    dir: PathBuf,
    /// The shards' final names, as they were renamed to them.
    pub files: Vec<String>,
}

impl Staging {
    /// Refuses an `out` that is not a bundle before anything is built.
    pub fn new(out: &Path) -> Result<Staging> {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
        refuse_non_bundle(out)?;
        let name = out.file_name().ok_or_else(|| anyhow!("--out {} has no directory name", out.display()))?.to_string_lossy().into_owned();
        remove_stale(&parent, &name);
        let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        Ok(Staging { out: out.to_path_buf(), parent, name, tmp, committed: false })
    }

    pub fn folder(&self, folder: &str) -> Result<FolderSink> {
        let dir = self.tmp.join(folder);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(FolderSink { dir, files: Vec::new() })
    }

    /// Sync every shard, copy `extras` in (`model/model.onnx` ← a file: the query embedder a
    /// browser or worker fetches lives beside its bundle), write the manifests — the other
    /// languages' first, the main one (folder "") last: a directory with a manifest is a
    /// complete bundle — and swap the bundle in. Returns the bytes written.
    pub fn commit(mut self, manifests: &[(&str, Vec<u8>)], extras: &[(&str, &Path)]) -> Result<u64> {
        let write = |file: &str, bytes: &[u8]| -> Result<u64> {
            let p = self.tmp.join(file);
            if let Some(dir) = p.parent() {
                fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            let mut f = fs::File::create(&p).with_context(|| format!("cannot create {}", p.display()))?;
            f.write_all(bytes).with_context(|| format!("cannot write {} (disk full?)", p.display()))?;
            f.sync_all().with_context(|| format!("cannot sync {}", p.display()))?;
            Ok(bytes.len() as u64)
        };
        let mut shards = Vec::new();
        files_under(&self.tmp, &mut shards)?;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(SYNCERS).build().context("cannot start the syncs")?;
        let mut total: u64 = pool.install(|| {
            use rayon::prelude::*;
            shards
                .par_iter()
                .map(|p| -> Result<u64> {
                    let f = fs::File::open(p).with_context(|| format!("cannot open {}", p.display()))?;
                    f.sync_all().with_context(|| format!("cannot sync {} (disk full?)", p.display()))?;
                    Ok(f.metadata()?.len())
                })
                .sum::<Result<u64>>()
        })?;
        for (name, src) in extras {
            total += write(name, &fs::read(src).with_context(|| format!("cannot read {}", src.display()))?)?;
        }
        let (main, others): (Vec<_>, Vec<_>) = manifests.iter().partition(|(folder, _)| folder.is_empty());
        for (folder, bytes) in others.iter().rev().chain(&main) {
            total += write(&format!("{folder}{}", sift_format::MANIFEST_FILE), bytes)?;
        }
        if main.is_empty() {
            return Err(anyhow!("no bundle to write"));
        }
        // Swap: old bundle aside, new one in, old one removed.
        let (out, name) = (&self.out, &self.name);
        let old = self.parent.join(format!(".{name}.old-{}", std::process::id()));
        let had_old = out.exists();
        if had_old {
            fs::rename(out, &old).with_context(|| format!("cannot move the previous bundle at {} aside", out.display()))?;
        }
        if let Err(e) = fs::rename(&self.tmp, out) {
            if had_old {
                let _ = fs::rename(&old, out);
            }
            return Err(anyhow!("cannot move the new bundle into {}: {e}", out.display()));
        }
        self.committed = true;
        if had_old {
            let _ = fs::remove_dir_all(&old);
        }
        Ok(total)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Remove what builds of `name` that were killed left beside it (`.NAME.tmp-PID`, a bundle
/// half built; `.NAME.old-PID`, the bundle a swap had moved aside): on a big site each is
/// the size of a bundle. Only where the system tells which processes run (`/proc`), and
/// only those of processes that no longer run: a build still going keeps its own.
fn remove_stale(parent: &Path, name: &str) {
    let proc_fs = Path::new("/proc");
    if !proc_fs.join("self").exists() {
        return;
    }
    let (tmp, old, merge) = (format!(".{name}.tmp-"), format!(".{name}.old-"), format!(".{name}.merge-"));
    for entry in fs::read_dir(parent).into_iter().flatten().flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        let Some(pid) = file.strip_prefix(&tmp).or_else(|| file.strip_prefix(&old)).or_else(|| file.strip_prefix(&merge)) else { continue };
        if pid.parse::<u32>().is_ok() && !proc_fs.join(pid).exists() && entry.path().is_dir() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            files_under(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Shards are written as they come and synced at the commit, all at once.
impl ShardSink for FolderSink {
    fn put(&mut self, file: &str, bytes: Vec<u8>) -> Result<(), SiftError> {
        let p = self.dir.join(file);
        fs::write(&p, bytes).map_err(|e| SiftError::internal(format!("cannot write {} (disk full?): {e}", p.display())))
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), SiftError> {
        let (a, b) = (self.dir.join(from), self.dir.join(to));
        fs::rename(&a, &b).map_err(|e| SiftError::internal(format!("cannot rename {} to {}: {e}", a.display(), b.display())))?;
        self.files.push(to.to_string());
        Ok(())
    }
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
    let is_bundle = fs::read(out.join(sift_format::MANIFEST_FILE))
        .map(|b| String::from_utf8_lossy(&b).contains(sift_format::MANIFEST_MAGIC))
        .unwrap_or(false);
    if empty || is_bundle {
        Ok(())
    } else {
        Err(anyhow!("refusing to replace {}: it exists and is not a Sift bundle (choose an empty or new --out directory)", out.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_removes_what_killed_builds_left_and_keeps_what_running_ones_use() {
        let dir = crate::sources::scratch("staging");
        // 4,294,967 is above any Linux pid_max: that process cannot be running.
        let dead = [".site.tmp-4294967", ".site.old-4294967"];
        // Process 1 always runs; another bundle's leftovers and a pid that is not a number
        // are none of this build's business.
        let kept = [".site.tmp-1", ".other.tmp-4294967", ".site.tmp-abc"];
        for d in dead.iter().chain(&kept) {
            fs::create_dir_all(dir.join(d).join("t")).unwrap();
        }
        let staging = Staging::new(&dir.join("site")).unwrap();
        drop(staging);
        for d in dead {
            assert!(!dir.join(d).exists(), "{d} removed");
        }
        for d in kept {
            assert!(dir.join(d).exists(), "{d} kept");
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
