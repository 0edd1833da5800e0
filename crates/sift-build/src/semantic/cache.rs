//! The embedding cache: a model's embeddings of token sequences, by content hash, so a
//! rebuild embeds only what changed. Correct because a text embedded alone always gets the
//! same bits (`tests/embedder.rs`): a rebuild from the cache gives the bundle a clean build
//! gives.
//!
//! One append-only file per model (`<cache>/embeddings/<model hash>.bin`): an 8-byte
//! header (`SIFTEMB1`), `u32 dim`, then records of a 16-byte key (BLAKE3 of the token ids),
//! `dim` f32 and a CRC-32 of both (LE). A torn or damaged record is skipped with the rest of
//! the file from it, never used. A build indexes the file (each key's offset, read through
//! once) and reads a vector when it asks for it, checked again: only what it embeds itself
//! is held until it ends. One cache serves every site built on the machine, so a
//! build never drops another site's records just because it did not use them: only when the
//! file outgrows its cap (`SIFT_CACHE_MAX_MB`, default 2,048 — about ten sites the size of
//! the Python docs) is it rewritten, keeping this build's records first, down to half the cap.
//!
//! A split embedding (`sift embed --part i/n` on several machines) writes part files in the
//! same format, `<model hash>.part-i-of-n.bin`; put in one folder, the next build reads
//! them, appends their records to the main file and deletes them. The model's vocabulary,
//! each token alone, has a file of its own (`<model hash>.vocabulary.bin`, same format),
//! written once by `sift model fetch` and read by every build.

use sift_base::SiftError;
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &[u8; 8] = b"SIFTEMB1";
/// The magic and `u32 dim`: where the first record starts.
const HEADER_LEN: u64 = 12;
/// The cache file's size limit when `SIFT_CACHE_MAX_MB` is not set.
const DEFAULT_CAP_MB: u64 = 2048;

fn cap_bytes() -> u64 {
    std::env::var("SIFT_CACHE_MAX_MB").ok().and_then(|v| v.parse::<u64>().ok()).unwrap_or(DEFAULT_CAP_MB) << 20
}

#[cfg(test)]
use super::embed::key;
use super::embed::{EmbeddingStore, Key};

fn io_error(what: String, e: std::io::Error) -> SiftError {
    SiftError::internal(format!("{what}: {e}"))
}

/// Where caches live: `$SIFT_CACHE_DIR`, else `~/.cache/sift`.
pub fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("SIFT_CACHE_DIR") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache/sift")
}

fn vocabulary_path(dir: &Path, model_hash: &str) -> PathBuf {
    dir.join("embeddings").join(format!("{model_hash}.vocabulary.bin"))
}

/// A model's identity for caching: the BLAKE3 hash of its file (read as it streams, not
/// held: a model file is tens of MB).
pub fn model_hash(model: &Path) -> Result<String, SiftError> {
    let mut hasher = blake3::Hasher::new();
    File::open(model)
        .and_then(|mut f| std::io::copy(&mut f, &mut hasher))
        .map_err(|e| io_error(format!("cannot read {}", model.display()), e))?;
    Ok(hasher.finalize().to_hex()[..16].to_string())
}

/// A cache file's good records, read by offset as a build asks for them: a machine's cache
/// holds every site's records up to its cap, and read whole a build would hold them all.
struct Records {
    file: Mutex<File>,
    /// Where each key's record starts (its last one, when a key was written twice).
    at: HashMap<Key, u64>,
    /// Good records in the file, superseded ones too.
    count: usize,
    /// The file is foreign, torn or fails a checksum: nothing from the damage on is used.
    damaged: bool,
}

impl Records {
    /// Index a cache file of `dim`-float records, reading it once front to back (None when
    /// it cannot be opened).
    fn open(path: &Path, dim: usize) -> Option<Records> {
        let file = File::open(path).ok()?;
        let (mut at, mut count, mut damaged) = (HashMap::new(), 0, false);
        let mut reader = std::io::BufReader::with_capacity(1 << 20, &file);
        let mut header = [0u8; 12];
        if reader.read_exact(&mut header).is_err()
            || &header[..8] != MAGIC
            || u32::from_le_bytes([header[8], header[9], header[10], header[11]]) as usize != dim
        {
            damaged = true;
        } else {
            let mut rec = vec![0u8; record_len(dim)];
            let mut offset = HEADER_LEN;
            while !reader.fill_buf().map_or(true, |b| b.is_empty()) {
                // A record cut short (torn) or failing its checksum ends what is trusted.
                let Some((k, v)) = reader.read_exact(&mut rec).ok().and_then(|()| decode(&rec)) else {
                    damaged = true;
                    break;
                };
                // A non-finite vector (written before `insert` refused them) is embedded
                // again, and the next save rewrites the file without it.
                if v.iter().all(|x| x.is_finite()) {
                    at.insert(k, offset);
                    count += 1;
                } else {
                    damaged = true;
                }
                offset += rec.len() as u64;
            }
        }
        Some(Records { file: Mutex::new(file), at, count, damaged })
    }

    fn contains(&self, k: &Key) -> bool {
        self.at.contains_key(k)
    }

    /// The vector of `k`, checked again as it is read (None if the record no longer is what
    /// was indexed).
    fn read(&self, k: &Key, dim: usize) -> Option<Vec<f32>> {
        let &offset = self.at.get(k)?;
        let mut rec = vec![0u8; record_len(dim)];
        let mut file = self.file.lock().ok()?;
        file.seek(SeekFrom::Start(offset)).ok()?;
        file.read_exact(&mut rec).ok()?;
        decode(&rec).filter(|(key, _)| key == k).map(|(_, v)| v)
    }

    /// The keys in the order of the file.
    fn keys_in_order(&self) -> Vec<Key> {
        let mut keys: Vec<(u64, Key)> = self.at.iter().map(|(k, &o)| (o, *k)).collect();
        keys.sort_unstable();
        keys.into_iter().map(|(_, k)| k).collect()
    }
}

fn record_len(dim: usize) -> usize {
    16 + dim * 4 + 4
}

/// A record's key and vector, None when its checksum fails.
fn decode(rec: &[u8]) -> Option<(Key, Vec<f32>)> {
    let (body, crc) = rec.split_at(rec.len() - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return None;
    }
    let mut k = [0u8; 16];
    k.copy_from_slice(&body[..16]);
    Some((k, body[16..].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()))
}

fn encode(k: &Key, v: &[f32], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(k);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

pub struct EmbedCache {
    path: PathBuf,
    dim: usize,
    /// This cache's file, as it was opened (what it appends later is kept in `fresh`).
    own: Option<Records>,
    /// Records embedded or merged from parts since the cache was opened, in memory until
    /// the build ends (each key once, none that `own` or `base` holds).
    entries: HashMap<Key, Vec<f32>>,
    /// Records in the file (including superseded or unused ones).
    records: usize,
    /// The file has a torn or damaged tail: the next save rewrites it.
    damaged: bool,
    /// Keys in `entries` not yet in the file, in the order they came.
    fresh: Vec<Key>,
    /// A checkpoint could not write: said once, and the final save tries again.
    checkpoint_failed: bool,
    /// The file's size limit, bytes (see the module docs).
    cap: u64,
    /// Part files read into this cache: deleted once the main file holds their records.
    merged: Vec<PathBuf>,
    /// Files read but never written: the model's vocabulary, and a part's view of the
    /// main file.
    base: Vec<Records>,
}

impl EmbeddingStore for EmbedCache {
    fn get(&self, k: &Key) -> Option<Vec<f32>> {
        if let Some(v) = self.entries.get(k) {
            return Some(v.clone());
        }
        self.own.iter().chain(&self.base).find(|r| r.contains(k)).and_then(|r| r.read(k, self.dim))
    }

    fn contains(&self, k: &Key) -> bool {
        self.entries.contains_key(k) || self.own.iter().chain(&self.base).any(|r| r.contains(k))
    }

    /// A vector of the wrong length or with a non-finite number is not kept (the build
    /// then refuses the sequence's missing vector): a model or kernel that makes NaN must
    /// not leave its vectors in the cache for every later build to fail on.
    fn insert(&mut self, k: Key, v: Vec<f32>) {
        if v.len() == self.dim && v.iter().all(|x| x.is_finite()) && !self.contains(&k) {
            self.entries.insert(k, v);
            self.fresh.push(k);
        }
    }

    /// Append what was embedded since the last write, unless the file must be rewritten
    /// (damaged, or over its cap): that is left to `save`, which knows what the build used.
    fn checkpoint(&mut self) {
        if self.damaged || self.over_cap() || self.checkpoint_failed || self.fresh.is_empty() {
            return;
        }
        if let Err(err) = self.append_fresh() {
            eprintln!("warning: the embedding cache could not be written ({err:#}); trying again when the build ends");
            self.checkpoint_failed = true;
        }
    }
}

impl EmbedCache {
    /// Open (or start) the cache of a model. A missing, foreign or damaged file is not an
    /// error: the build embeds what it cannot find. Part files that `sift embed --part`
    /// wrote beside it are read too, and merged into the main file by the next `save`.
    pub fn open(dir: &Path, model_hash: &str, dim: usize) -> EmbedCache {
        let folder = dir.join("embeddings");
        let mut cache = EmbedCache::at(folder.join(format!("{model_hash}.bin")), dim);
        cache.read_base(&vocabulary_path(dir, model_hash));
        let prefix = format!("{model_hash}.part-");
        let mut parts: Vec<PathBuf> = fs::read_dir(&folder)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".bin")))
            .collect();
        parts.sort();
        for part in parts {
            // A damaged part is used up to its damage; the main file gets what was good.
            if let Some(records) = Records::open(&part, dim) {
                for k in records.keys_in_order() {
                    if let (false, Some(v)) = (cache.contains(&k), records.read(&k, dim)) {
                        cache.entries.insert(k, v);
                        cache.fresh.push(k);
                    }
                }
            }
            cache.merged.push(part);
        }
        cache
    }

    /// Open the cache of one part of a split embedding (`sift embed --part i/n`): what it
    /// embeds goes to a file of its own (`<model hash>.part-i-of-n.bin`), so the parts of
    /// several machines can be put in one folder; the main file is read, never written.
    pub fn open_part(dir: &Path, model_hash: &str, dim: usize, (part, of): (u32, u32)) -> EmbedCache {
        let folder = dir.join("embeddings");
        let mut cache = EmbedCache::at(folder.join(format!("{model_hash}.part-{part}-of-{of}.bin")), dim);
        cache.read_base(&folder.join(format!("{model_hash}.bin")));
        cache.read_base(&vocabulary_path(dir, model_hash));
        cache
    }

    /// Open the model's vocabulary file (`sift model fetch` fills it): every token alone,
    /// the same for every site, kept apart so that a cache cut down to its size limit never
    /// drops it and checking it reads it alone.
    pub fn open_vocabulary(dir: &Path, model_hash: &str, dim: usize) -> EmbedCache {
        EmbedCache::at(vocabulary_path(dir, model_hash), dim)
    }

    /// Read a file's records as ones this cache uses but never writes.
    fn read_base(&mut self, path: &Path) {
        if let Some(records) = Records::open(path, self.dim) {
            self.base.push(records);
        }
    }

    fn at(path: PathBuf, dim: usize) -> EmbedCache {
        let own = Records::open(&path, dim);
        EmbedCache {
            dim,
            entries: HashMap::new(),
            records: own.as_ref().map_or(0, |r| r.count),
            damaged: own.as_ref().is_some_and(|r| r.damaged),
            own,
            path,
            fresh: Vec::new(),
            checkpoint_failed: false,
            cap: cap_bytes(),
            merged: Vec::new(),
            base: Vec::new(),
        }
    }

    fn record_len(&self) -> usize {
        record_len(self.dim)
    }

    /// The file, with what is not yet written, would outgrow its cap: the next save
    /// rewrites it (see the module docs).
    fn over_cap(&self) -> bool {
        ((self.records + self.fresh.len()) * self.record_len()) as u64 > self.cap
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.own.as_ref().map_or(0, |r| r.at.len()) + self.entries.len()
    }

    /// Write what this build embedded. `used`: the keys the build needed — when the file
    /// holds more than twice as many records, it is rewritten with those alone (atomically).
    pub fn save(&mut self, used: &[Key]) -> Result<(), SiftError> {
        self.write(used)?;
        for part in self.merged.drain(..) {
            fs::remove_file(&part).map_err(|e| io_error(format!("cannot remove {} (merged into the cache)", part.display()), e))?;
        }
        Ok(())
    }

    fn write(&mut self, used: &[Key]) -> Result<(), SiftError> {
        let dir = self.path.parent().ok_or_else(|| SiftError::internal("cache path has no folder"))?;
        fs::create_dir_all(dir).map_err(|e| io_error(format!("cannot create {}", dir.display()), e))?;
        let compact = self.over_cap();
        if compact || self.damaged {
            return self.rewrite(used, compact);
        }
        self.append_fresh()
    }

    /// Rewrite the file: every good record (repair), or — over the cap — this build's
    /// records first, then others until half the cap, so the next builds need not rewrite.
    /// Written a record at a time into a temporary file renamed over the old one.
    fn rewrite(&mut self, used: &[Key], compact: bool) -> Result<(), SiftError> {
        let mine = |k: &Key| self.entries.contains_key(k) || self.own.as_ref().is_some_and(|r| r.contains(k));
        let used_set: std::collections::HashSet<&Key> = used.iter().collect();
        let mut others: Vec<Key> =
            self.own.iter().flat_map(|r| r.at.keys()).chain(self.entries.keys()).filter(|k| !used_set.contains(k)).copied().collect();
        others.sort_unstable();
        let mut keys: Vec<Key> = used.iter().filter(|k| mine(k)).copied().collect();
        if compact {
            let room = (self.cap / 2 / self.record_len() as u64) as usize;
            others.truncate(room.saturating_sub(keys.len()));
        }
        keys.extend(others);
        let tmp = self.path.with_extension(format!("tmp-{}", std::process::id()));
        // The new file's index is made as it is written (each record's offset).
        let (file, at) = (|| -> std::io::Result<(File, HashMap<Key, u64>)> {
            let mut out = std::io::BufWriter::new(File::create(&tmp)?);
            out.write_all(MAGIC)?;
            out.write_all(&(self.dim as u32).to_le_bytes())?;
            let mut at = HashMap::new();
            let mut rec = Vec::with_capacity(self.record_len());
            for k in &keys {
                if at.contains_key(k) {
                    continue;
                }
                let v = match self.entries.get(k) {
                    Some(v) => Some(v.clone()),
                    None => self.own.as_ref().and_then(|r| r.read(k, self.dim)),
                };
                if let Some(v) = v {
                    at.insert(*k, HEADER_LEN + (at.len() * self.record_len()) as u64);
                    rec.clear();
                    encode(k, &v, &mut rec);
                    out.write_all(&rec)?;
                }
            }
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            Ok((file, at))
        })()
        .map_err(|e| io_error(format!("cannot write {}", tmp.display()), e))?;
        // Closed before the rename, which some systems refuse over an open file.
        (self.own, self.records) = (None, at.len());
        drop(file);
        fs::rename(&tmp, &self.path).map_err(|e| io_error(format!("cannot replace {}", self.path.display()), e))?;
        let file = File::open(&self.path).map_err(|e| io_error(format!("cannot read {}", self.path.display()), e))?;
        self.entries.retain(|k, _| !at.contains_key(k));
        self.own = Some(Records { file: Mutex::new(file), count: at.len(), at, damaged: false });
        self.damaged = false;
        self.fresh.clear();
        Ok(())
    }

    /// Append the records not yet in the file (the file starts with its header when new).
    fn append_fresh(&mut self) -> Result<(), SiftError> {
        if self.fresh.is_empty() {
            return Ok(());
        }
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(|e| io_error(format!("cannot create {}", dir.display()), e))?;
        }
        let new_file = !self.path.exists() || self.records == 0;
        let mut out = Vec::with_capacity(12 + self.fresh.len() * self.record_len());
        if new_file {
            out.extend_from_slice(MAGIC);
            out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        }
        for k in &self.fresh {
            if let Some(v) = self.entries.get(k) {
                encode(k, v, &mut out);
            }
        }
        let mut f = if new_file { File::create(&self.path) } else { OpenOptions::new().append(true).open(&self.path) }
            .map_err(|e| io_error(format!("cannot open {}", self.path.display()), e))?;
        f.write_all(&out).map_err(|e| io_error(format!("cannot write {}", self.path.display()), e))?;
        self.records += self.fresh.len();
        self.fresh.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_stopped_while_embedding_keeps_what_it_checkpointed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let (a, b, c) = (key(&[1]), key(&[2]), key(&[3]));
        let mut build = EmbedCache::open(&dir, "m", 2);
        build.insert(a, vec![1.0, 0.0]);
        build.insert(b, vec![0.0, 1.0]);
        build.checkpoint();
        build.insert(c, vec![0.5, 0.5]);
        drop(build); // stopped before its next checkpoint and its save
        let next = EmbedCache::open(&dir, "m", 2);
        assert_eq!((next.len(), next.get(&a), next.get(&b)), (2, Some(vec![1.0, 0.0]), Some(vec![0.0, 1.0])));
        assert_eq!(next.get(&c), None, "what came after the last checkpoint is embedded again");
        // A damaged file is not appended to (the records would follow a tail nobody
        // reads): the checkpoint waits, and the save rewrites the file whole.
        let path = dir.join("embeddings/m.bin");
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let mut damaged = EmbedCache::open(&dir, "m", 2);
        damaged.insert(c, vec![0.5, 0.5]);
        damaged.checkpoint();
        assert_eq!(fs::metadata(&path).unwrap().len(), bytes.len() as u64 - 1, "nothing appended to a damaged file");
        damaged.save(&[a, c]).unwrap();
        let repaired = EmbedCache::open(&dir, "m", 2);
        assert_eq!((repaired.len(), repaired.get(&c)), (2, Some(vec![0.5, 0.5])));
        // A folder that cannot be written: the checkpoint says so and the build goes on.
        let blocked = dir.join("file-not-folder");
        fs::write(&blocked, b"x").unwrap();
        let mut unwritable = EmbedCache::open(&blocked, "m", 2);
        unwritable.insert(a, vec![1.0, 0.0]);
        unwritable.checkpoint();
        assert!(unwritable.checkpoint_failed && unwritable.get(&a).is_some(), "kept in memory");
        assert!(unwritable.save(&[a]).is_err(), "the final save reports it");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn records_are_read_from_the_file_as_a_build_asks_each_checked_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let (a, b) = (key(&[1]), key(&[2]));
        let mut build = EmbedCache::open(&dir, "m", 2);
        build.insert(a, vec![1.0, 0.0]);
        build.insert(b, vec![0.0, 1.0]);
        build.save(&[a, b]).unwrap();
        let read = EmbedCache::open(&dir, "m", 2);
        // Opening indexes the file and holds no vector: one changed on disk since reads
        // as missing, never as other numbers.
        assert!(read.entries.is_empty());
        let path = dir.join("embeddings/m.bin");
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 5;
        bytes[last] ^= 0xff;
        fs::write(&path, &bytes).unwrap();
        assert_eq!((read.get(&a), read.get(&b), read.contains(&b)), (Some(vec![1.0, 0.0]), None, true));
    }

    #[test]
    fn a_vector_that_is_not_finite_is_neither_kept_nor_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let (a, b, c) = (key(&[1]), key(&[2]), key(&[3]));
        let mut build = EmbedCache::open(&dir, "m", 2);
        build.insert(a, vec![1.0, 0.0]);
        build.insert(b, vec![f32::NAN, 0.0]);
        build.insert(c, vec![0.0, f32::INFINITY]);
        assert_eq!((build.get(&b), build.get(&c)), (None, None), "not kept");
        build.save(&[a, b, c]).unwrap();
        assert_eq!(EmbedCache::open(&dir, "m", 2).len(), 1);
        // A file holding one (as an earlier binary could write): the record is skipped, the
        // others read, and the next save rewrites the file without it.
        let path = dir.join("embeddings/m.bin");
        let mut bytes = fs::read(&path).unwrap();
        encode(&b, &[f32::NAN, 0.0], &mut bytes);
        fs::write(&path, &bytes).unwrap();
        let mut read = EmbedCache::open(&dir, "m", 2);
        assert_eq!((read.len(), read.get(&a).is_some(), read.get(&b)), (1, true, None));
        read.save(&[a, b]).unwrap();
        assert_eq!(fs::read(&path).unwrap().len(), 12 + read.record_len(), "rewritten without it");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn records_survive_a_reopen_a_torn_tail_is_ignored_and_parts_are_merged() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let mut c = EmbedCache::open(&dir, "m", 3);
        let (a, b) = (key(&[1, 2, 3]), key(&[4]));
        c.insert(a, vec![1.0, 2.0, 3.0]);
        c.save(&[a]).unwrap();
        c.insert(b, vec![0.5, 0.5, 0.5]);
        c.save(&[a, b]).unwrap();
        let again = EmbedCache::open(&dir, "m", 3);
        assert_eq!(again.get(&a), Some(vec![1.0, 2.0, 3.0]));
        assert_eq!(again.get(&b), Some(vec![0.5, 0.5, 0.5]));
        // A torn last record: the earlier ones stay, the torn one is gone.
        let path = dir.join("embeddings/m.bin");
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let mut torn = EmbedCache::open(&dir, "m", 3);
        assert_eq!((torn.len(), torn.get(&a).is_some()), (1, true));
        // Saving repairs the file: what follows is readable again.
        torn.insert(b, vec![0.25, 0.5, 0.75]);
        torn.save(&[a, b]).unwrap();
        let repaired = EmbedCache::open(&dir, "m", 3);
        assert_eq!(repaired.get(&b), Some(vec![0.25, 0.5, 0.75]));
        // A build of another site (using only `b`) keeps the first site's record; over the
        // cap, the file is cut down to this build's records first.
        let mut other = EmbedCache::open(&dir, "m", 3);
        other.save(&[b]).unwrap();
        assert_eq!(EmbedCache::open(&dir, "m", 3).len(), 2, "nothing dropped under the cap");
        let mut small = EmbedCache::open(&dir, "m", 3);
        small.cap = 2 * small.record_len() as u64 + 1; // three records are over; half of it holds one
        small.insert(key(&[9]), vec![0.0, 1.0, 0.0]);
        small.save(&[b]).unwrap();
        let after = EmbedCache::open(&dir, "m", 3);
        assert_eq!((after.len(), after.get(&b).is_some()), (1, true), "this build's record kept first");
        // Parts of a split embedding: each writes a file of its own and never the main
        // one; the next open reads them (a damaged part up to its damage), the next save
        // appends them to the main file and deletes them.
        let (c1, c2) = (key(&[11]), key(&[12]));
        let mut p1 = EmbedCache::open_part(&dir, "m", 3, (1, 2));
        assert!(p1.get(&b).is_some(), "a part reads the main file, so it skips what is cached");
        p1.insert(b, vec![9.0, 9.0, 9.0]); // already cached: not taken
        p1.insert(c1, vec![1.0, 1.0, 1.0]);
        p1.save(&[]).unwrap();
        let mut p2 = EmbedCache::open_part(&dir, "m", 3, (2, 2));
        p2.insert(c2, vec![2.0, 2.0, 2.0]);
        p2.save(&[]).unwrap();
        let part2 = dir.join("embeddings/m.part-2-of-2.bin");
        let bytes = fs::read(&part2).unwrap();
        fs::write(&part2, [&bytes[..], b"torn"].concat()).unwrap();
        let main_len = fs::metadata(&path).unwrap().len();
        let mut merged = EmbedCache::open(&dir, "m", 3);
        assert_eq!((merged.get(&c1), merged.get(&c2)), (Some(vec![1.0, 1.0, 1.0]), Some(vec![2.0, 2.0, 2.0])));
        assert_eq!(fs::metadata(&path).unwrap().len(), main_len, "opening writes nothing");
        merged.save(&[b, c1, c2]).unwrap();
        let names: Vec<String> =
            fs::read_dir(dir.join("embeddings")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, vec!["m.bin".to_string()], "the parts are merged and removed");
        let after = EmbedCache::open(&dir, "m", 3);
        assert_eq!((after.get(&b), after.get(&c2)), (Some(vec![0.25, 0.5, 0.75]), Some(vec![2.0, 2.0, 2.0])));
        // The model's vocabulary has a file of its own: every cache reads it, none writes it.
        let tok = key(&[101, 7, 102]);
        let mut vocab = EmbedCache::open_vocabulary(&dir, "m", 3);
        vocab.insert(tok, vec![0.5, 0.0, 0.5]);
        vocab.save(&[tok]).unwrap();
        let main_len = fs::metadata(&path).unwrap().len();
        let mut site = EmbedCache::open(&dir, "m", 3);
        assert_eq!(site.get(&tok), Some(vec![0.5, 0.0, 0.5]));
        site.insert(tok, vec![9.0, 9.0, 9.0]); // known: not taken
        site.save(&[tok, b]).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().len(), main_len, "the main file does not copy the vocabulary");
        assert_eq!(EmbedCache::open_part(&dir, "m", 3, (1, 3)).get(&tok), Some(vec![0.5, 0.0, 0.5]));
        fs::remove_file(vocabulary_path(&dir, "m")).unwrap();
        // Another dimension (another model file under the same name): ignored.
        assert_eq!(EmbedCache::open(&dir, "m", 4).len(), 0);
        let _ = fs::remove_dir_all(&dir);
    }
}
