//! The watcher's deltas: after a full build, each change to the sources is written as a
//! delta beside the bundle (`sift_build::delta`): the pages added or edited since that
//! build, as a small bundle in a folder of its own, and the base documents they replace or
//! delete, named in the bundle's manifest. A change costs the changed pages' extraction and
//! a bundle of them, whatever the site's size; the engine searches base and delta as one.
//!
//! Every delta holds every change since the full build (not just the latest), so it is
//! written whole each time and the base never changes under it. Once that write is slow,
//! or past a size ([`merge_at`]), the watcher builds the site in full in the background
//! (`watch.rs`), which leaves no delta.
//!
//! Nothing is lost to a kill: the delta's folder is written under a temporary name and
//! renamed, then the manifest is replaced by a rename; a reader sees the old manifest (and
//! the folders it names, kept one delta longer) or the new one.

use crate::bundle_io::DiskBundle;
use crate::sources;
use crate::BuildArgs;
use anyhow::{anyhow, Context as _, Result};
use sift_build::BuildOptions;
use sift_format::Manifest;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The sources' files, path → what each holds: what a delta is the change of.
pub type Files = BTreeMap<PathBuf, Stamp>;

/// What a file holds as a change is told: its size and modification time (the watcher:
/// cheap, and the files are edited on this machine), or its size and a hash of its content
/// (an incremental build: a checkout gives every file a new time).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Stamp {
    Modified(u64, Option<SystemTime>),
    Content(u64, String),
}

impl Stamp {
    /// A file's size and modification time, as the watcher compares them.
    pub fn modified(m: &fs::Metadata) -> Stamp {
        Stamp::Modified(m.len(), m.modified().ok())
    }
}

/// Every file under the sources that a build reads or might read (hidden files and the
/// bundle itself left out), stamped by content when `content`, else by time.
pub fn files(sources: &[PathBuf], out: &Path, content: bool) -> Files {
    let out = fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
    let mut files = BTreeMap::new();
    for src in sources {
        let walker = walkdir::WalkDir::new(src).follow_links(false).into_iter().filter_entry(|e| {
            let hidden = e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
            // Only a directory can be the bundle: files are not canonicalized on every poll.
            !hidden && !(e.file_type().is_dir() && fs::canonicalize(e.path()).is_ok_and(|c| c == out))
        });
        for e in walker.flatten() {
            let Ok(m) = e.metadata() else { continue };
            if !m.is_file() {
                continue;
            }
            let stamp = if content {
                // A file that cannot be read is stamped as empty: read (and warned of) by the build.
                let hash = fs::read(e.path()).map(|b| blake3::hash(&b).to_hex()[..32].to_string()).unwrap_or_default();
                Stamp::Content(m.len(), hash)
            } else {
                Stamp::modified(&m)
            };
            files.insert(e.path().to_path_buf(), stamp);
        }
    }
    files
}

/// The last full build: the files it read, its manifest, and the bundle it wrote (which
/// says each page's document number: what a delta removes by).
pub struct Base {
    pub files: Files,
    /// Its manifest, without a delta.
    pub manifest: Manifest,
    bundle: DiskBundle,
    /// The delta folder the bundle's manifest names now (kept one delta longer for readers
    /// of the manifest it replaces).
    current: Option<String>,
}

impl Base {
    /// The bundle at `out` as the base of the files it was built from.
    pub fn read(out: &Path, files: Files) -> Result<Base> {
        Base::of(out, files, read_manifest(out)?)
    }

    /// `manifest` (the bundle's at `out`, with its delta if it has one) as a base.
    fn of(out: &Path, files: Files, mut manifest: Manifest) -> Result<Base> {
        let current = manifest.delta.take().and_then(|d| d.bundle).map(|(folder, _)| folder);
        let bundle = DiskBundle::of(out, manifest.clone()).map_err(|e| anyhow!("{}", e.message))?;
        Ok(Base { files, manifest, bundle, current })
    }
}

fn read_manifest(out: &Path) -> Result<Manifest> {
    let bytes = fs::read(out.join(sift_format::MANIFEST_FILE)).with_context(|| format!("cannot read {}", out.display()))?;
    Manifest::parse(&bytes).map_err(|e| anyhow!("{}", e.message))
}

/// What a delta holds, for the log.
pub struct Written {
    /// Pages in the delta, and base documents it replaces or removes.
    pub pages: usize,
    pub removed: usize,
    /// Documents that answer now.
    pub docs: usize,
    /// The delta's shards and their bytes.
    pub shards: usize,
    pub bytes: u64,
    pub warnings: Vec<String>,
}

/// Pages that changed since the last full build (`base`), added or edited: what a delta
/// of `now` would hold.
pub fn pages_changed(args: &BuildArgs, base: &Base, now: &Files) -> usize {
    now.iter().filter(|(p, v)| base.files.get(*p) != Some(*v) && sources::page_id(p, &args.sources).is_some()).count()
}

/// Changed pages past which the site is built in full again instead of growing the delta: a
/// delta's postings and vector list are read beside the base's by every search that
/// needs them, and a delta's term shards do not share the base's, so it stays a small
/// share of the site.
pub fn merge_at(base_docs: u32) -> usize {
    (base_docs as usize / 8).max(64)
}

/// Write the delta of `now` against `base` into the bundle at `args.out`: what it holds, or
/// why the change is built in full instead.
pub fn write(args: &BuildArgs, base: &mut Base, now: &Files) -> Result<Result<Written, &'static str>> {
    let plan = match plan(args, base, now)? {
        Ok(plan) => plan,
        Err(why) => return Ok(Err(why)),
    };
    for step in &plan.steps {
        step.run()?;
    }
    remove_deltas(&args.out, &plan.keep);
    base.current = plan.folder;
    Ok(Ok(plan.written))
}

/// A delta made and ready to write.
struct Plan {
    steps: Vec<Step>,
    /// The delta's folder (None: the change only deletes pages).
    folder: Option<String>,
    /// The delta folders readers may use once it is written: its own and the one before
    /// (a reader may have opened the previous manifest just before it was replaced).
    keep: Vec<String>,
    written: Written,
}

fn plan(args: &BuildArgs, base: &mut Base, now: &Files) -> Result<Result<Plan, &'static str>> {
    let changed: Vec<&PathBuf> = now.iter().filter(|(p, v)| base.files.get(*p) != Some(v)).map(|(p, _)| p).collect();
    let gone: Vec<&PathBuf> = base.files.keys().filter(|p| !now.contains_key(*p)).collect();
    // Deltas hold pages of HTML and Markdown files, in the base's one language.
    if !base.manifest.languages.is_empty() {
        return Ok(Err("a site in several languages is built in full"));
    }
    if changed.iter().chain(&gone).any(|p| sources::is_corpus(p)) {
        return Ok(Err("a JSONL corpus changed"));
    }
    let pages: Vec<(PathBuf, String)> = changed.iter().filter_map(|p| Some(((*p).clone(), sources::page_id(p, &args.sources)?))).collect();
    let (docs, warnings) = sources::extract_files(&pages, &args.source_options(false));
    // The base's documents of every changed or deleted file: replaced or gone.
    let bundle = &mut base.bundle;
    let mut removed = Vec::new();
    for p in changed.iter().chain(&gone) {
        if !base.files.contains_key(*p) {
            continue;
        }
        if let Some(id) = sources::page_id(p, &args.sources) {
            if let Some(doc) = bundle.drive(|e| e.doc_number(&id)).map_err(|e| anyhow!("{}", e.message))? {
                removed.push(doc);
            }
        }
    }
    let mut delta = if docs.is_empty() {
        None
    } else {
        let opts = sift_build::delta::options(&base.manifest, BuildOptions::default()).map_err(|e| anyhow!("{}", e.message))?;
        Some(sift_build::build(&docs, &opts).map_err(|e| anyhow!("{}", e.message))?)
    };
    // With vectors: the changed pages' chunks embedded by the bundle's own encoder, in its
    // space, as one list in the delta's folder.
    let mut vectors = None;
    if let (Some(d), Some(v), Some(_)) = (delta.as_mut(), &base.manifest.vectors, &base.manifest.encoder) {
        let chunks = chunk_vectors(bundle, &docs)?;
        if !chunks.is_empty() {
            let (entry, file) = sift_build::delta::vector_list(v.dim as usize, &chunks).map_err(|e| anyhow!("{}", e.message))?;
            d.shards.push(file);
            vectors = Some(entry);
        }
    }
    let (n_pages, n_removed) = (docs.len(), removed.len());
    let joined = sift_build::delta::joined(&base.manifest, delta.as_ref().map(|d| d.manifest.clone()), removed, vectors);
    let folder = joined.delta.as_ref().and_then(|d| d.bundle.as_ref()).map(|(folder, _)| folder.clone());
    let steps = steps(&args.out, folder.clone().zip(delta.as_ref().map(|d| d.shards.as_slice())), &joined.to_json_bytes());
    let keep = folder.iter().chain(&base.current).cloned().collect();
    let (shards, bytes) = delta.as_ref().map_or((0, 0), |d| (d.shards.len(), d.shards.iter().map(|(_, b)| b.len() as u64).sum()));
    let docs = base.manifest.doc_count as usize - n_removed + n_pages;
    Ok(Ok(Plan { steps, folder, keep, written: Written { pages: n_pages, removed: n_removed, docs, shards, bytes, warnings } }))
}

/// Each chunk of the delta's pages (`sift_build::chunk`, as a full build cuts them) as the
/// base's static encoder embeds it, by the delta's document numbers (a build numbers pages
/// in the order given), in order.
fn chunk_vectors(base: &mut DiskBundle, docs: &[sift_base::SourceDoc]) -> Result<Vec<(u32, Vec<f32>)>> {
    let mut out = Vec::new();
    for (n, doc) in docs.iter().enumerate() {
        for text in sift_build::chunk::chunks_of(doc) {
            if let Some(v) = base.drive(|e| e.embed_query(&text, None)).map_err(|e| anyhow!("{}", e.message))? {
                out.push((n as u32, v));
            }
        }
    }
    Ok(out)
}

/// `sift build --incremental`: the changes since the last full build of `--out` with these
/// settings, written as a delta beside it — when the cache has that build's record and
/// the bundle is still the one it wrote. Otherwise (or when the change is not one a delta
/// holds) `Ok(Err(why))`: build in full, then [`record`] what it read.
pub fn incremental(a: &BuildArgs, now: &Files) -> Result<Result<Written, String>> {
    let Some(record) = fs::read(record_path(&a.out)).ok().and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok()) else {
        return Ok(Err("no earlier build of this --out to add to".into()));
    };
    if record["settings"].as_str() != Some(settings(a).as_str()) {
        return Ok(Err("the build's settings changed".into()));
    }
    let Ok(manifest) = read_manifest(&a.out) else { return Ok(Err("no bundle at --out that can be read".into())) };
    let mut built = Files::new();
    for f in record["files"].as_array().into_iter().flatten() {
        if let (Some(p), Some(n), Some(h)) = (f[0].as_str(), f[1].as_u64(), f[2].as_str()) {
            built.insert(PathBuf::from(p), Stamp::Content(n, h.to_string()));
        }
    }
    let mut base = Base::of(&a.out, built, manifest)?;
    if record["manifest"].as_str() != Some(manifest_key(&base.manifest).as_str()) {
        return Ok(Err("the bundle at --out is not the one the last build wrote".into()));
    }
    if pages_changed(a, &base, now) > merge_at(base.manifest.doc_count) {
        return Ok(Err("many pages changed since the last full build".into()));
    }
    Ok(write(a, &mut base, now)?.map_err(str::to_string))
}

/// After a full `sift build --incremental`: what it read (`files`, stamped by content
/// before it read them) and what it wrote, for the next run to add to.
pub fn record(a: &BuildArgs, files: &Files) -> Result<()> {
    let manifest = read_manifest(&a.out)?;
    let files: Vec<serde_json::Value> = files
        .iter()
        .filter_map(|(p, stamp)| match stamp {
            Stamp::Content(n, h) => Some(serde_json::json!([p.to_string_lossy(), n, h])),
            Stamp::Modified(..) => None,
        })
        .collect();
    let v = serde_json::json!({"settings": settings(a), "manifest": manifest_key(&manifest), "files": files});
    let path = record_path(&a.out);
    fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).with_context(|| format!("cannot create {}", path.display()))?;
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, serde_json::to_vec(&v)?).with_context(|| format!("cannot write {}", tmp.display()))?;
    fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Where an incremental build's record of `out` is kept: in the cache (beside the embedding
/// cache, which a CI job keeps too), not in the bundle, which a site deploys.
fn record_path(out: &Path) -> PathBuf {
    let out = fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
    let key = blake3::hash(out.to_string_lossy().as_bytes()).to_hex()[..16].to_string();
    sift_build::semantic::cache::cache_root().join("builds").join(format!("{key}.json"))
}

fn manifest_key(m: &Manifest) -> String {
    blake3::hash(&m.to_json_bytes()).to_hex()[..32].to_string()
}

/// Everything a build's output depends on but the sources' content: another value builds
/// in full.
fn settings(a: &BuildArgs) -> String {
    let sources: Vec<String> =
        a.sources.iter().map(|p| fs::canonicalize(p).unwrap_or_else(|_| p.clone()).to_string_lossy().into_owned()).collect();
    let model = a.embedder.clone().or_else(crate::embedding::default_model).filter(|_| !a.no_embedder);
    serde_json::json!([
        env!("CARGO_PKG_VERSION"),
        sources,
        a.language,
        a.selector,
        a.base_url,
        a.filter_fields,
        a.max_file_bytes,
        a.index_noindex,
        a.k1,
        a.field_weights,
        a.field_b,
        model,
        a.copy_model,
        a.vector_dim,
        a.vector_lists,
        a.vector_probe,
        a.no_encoder,
        a.model_budget,
        a.full_model,
        a.doc_shard_kb,
        a.doc_part_kb,
        a.term_shard_kb,
    ])
    .to_string()
}

/// One file system step of writing a delta.
enum Step {
    Mkdir(PathBuf),
    /// Written and synced.
    Write(PathBuf, Vec<u8>),
    Rename(PathBuf, PathBuf),
}

impl Step {
    fn run(&self) -> Result<()> {
        match self {
            Step::Mkdir(d) => {
                let _ = fs::remove_dir_all(d);
                fs::create_dir(d).with_context(|| format!("cannot create {}", d.display()))
            }
            Step::Write(p, bytes) => {
                let mut f = fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
                f.write_all(bytes).with_context(|| format!("cannot write {} (disk full?)", p.display()))?;
                f.sync_all().with_context(|| format!("cannot sync {}", p.display()))
            }
            Step::Rename(a, b) => {
                fs::rename(a, b).with_context(|| format!("cannot move {} to {}", a.display(), b.display()))?;
                if let Some(d) = b.parent().and_then(|d| fs::File::open(d).ok()) {
                    let _ = d.sync_all();
                }
                Ok(())
            }
        }
    }
}

/// The steps that write a delta into the bundle at `out`: its shards into its folder (under a
/// temporary name, then renamed: the folder is named by its content, so one already there
/// is this delta), then the manifest that names it, by a rename. A kill after any step
/// leaves a bundle that answers as before or as after (`tests::…_kill_…`).
fn steps(out: &Path, shards: Option<(String, &[(String, Vec<u8>)])>, manifest: &[u8]) -> Vec<Step> {
    let pid = std::process::id();
    let mut steps = Vec::new();
    if let Some((folder, shards)) = shards.filter(|(folder, _)| !out.join(folder).is_dir()) {
        let tmp = out.join(format!(".{folder}.tmp-{pid}"));
        steps.push(Step::Mkdir(tmp.clone()));
        steps.extend(shards.iter().map(|(name, bytes)| Step::Write(tmp.join(name), bytes.clone())));
        steps.push(Step::Rename(tmp, out.join(folder)));
    }
    let tmp = out.join(format!(".manifest.json.tmp-{pid}"));
    steps.push(Step::Write(tmp.clone(), manifest.to_vec()));
    steps.push(Step::Rename(tmp, out.join(sift_format::MANIFEST_FILE)));
    steps
}

/// Remove the delta folders other than `keep`, and what a killed writer left.
fn remove_deltas(out: &Path, keep: &[String]) {
    for entry in fs::read_dir(out).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with("delta-") || name.starts_with(".delta-") || name.starts_with(".manifest.json.tmp-");
        if ours && !keep.contains(&name) {
            let _ = if entry.path().is_dir() { fs::remove_dir_all(entry.path()) } else { fs::remove_file(entry.path()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(site: &Path, out: &Path) -> BuildArgs {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            build: BuildArgs,
        }
        let argv = ["sift", site.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-embedder", "-q"];
        <Cli as clap::Parser>::try_parse_from(argv).expect("arguments").build
    }

    fn stamps(site: &Path) -> Files {
        files(&[site.to_path_buf()], Path::new("/nonexistent"), false)
    }

    fn ids(out: &Path, query: &str) -> Vec<String> {
        let mut b = DiskBundle::open(out).unwrap_or_else(|e| panic!("{}", e.message));
        let req = sift_engine::SearchRequest::new(query);
        let r = b.drive(|e| e.search(&req, &sift_engine::Context::default())).unwrap_or_else(|e| panic!("{}", e.message));
        r.results.into_iter().map(|h| h.id).collect()
    }

    fn copy(from: &Path, to: &Path) {
        let _ = fs::remove_dir_all(to);
        fs::create_dir_all(to).unwrap();
        for e in walkdir::WalkDir::new(from).min_depth(1).into_iter().flatten() {
            let dest = to.join(e.path().strip_prefix(from).unwrap());
            if e.file_type().is_dir() {
                fs::create_dir_all(&dest).unwrap();
            } else {
                fs::copy(e.path(), &dest).unwrap();
            }
        }
    }

    #[test]
    fn a_kill_after_any_step_of_a_delta_leaves_a_bundle_that_answers_as_before_or_as_after() {
        let d = crate::sources::scratch("delta-kill");
        let (site, out) = (d.join("site"), d.join("bundle"));
        fs::create_dir_all(&site).unwrap();
        fs::write(site.join("a.md"), "# Alpha\n\nThe wombat page.\n").unwrap();
        fs::write(site.join("b.md"), "# Beta\n\nThe heron page.\n").unwrap();
        let a = args(&site, &out);
        crate::build(&a).unwrap();
        let before = stamps(&site);
        // An edit (a new word), and a page deleted.
        fs::write(site.join("a.md"), "# Alpha\n\nThe platypus page.\n").unwrap();
        fs::remove_file(site.join("b.md")).unwrap();
        let now = stamps(&site);
        let pristine = d.join("pristine");
        copy(&out, &pristine);
        let mut base = Base::read(&out, before.clone()).unwrap();
        let n = match plan(&a, &mut base, &now).unwrap() {
            Ok(p) => p.steps.len(),
            Err(why) => panic!("{why}"),
        };
        assert!(n >= 4, "a folder and a manifest: {n} steps");
        for k in 0..=n {
            copy(&pristine, &out);
            let mut base = Base::read(&out, before.clone()).unwrap();
            let Ok(p) = plan(&a, &mut base, &now).unwrap() else { unreachable!() };
            for step in &p.steps[..k] {
                step.run().unwrap();
            }
            // Killed after step k: the old answers, or (the manifest replaced) the new ones.
            let new = k == n;
            assert_eq!(ids(&out, "wombat").is_empty(), new, "after {k} of {n} steps");
            assert_eq!(ids(&out, "platypus").is_empty(), !new, "after {k} of {n} steps");
            assert_eq!(ids(&out, "heron").is_empty(), new, "after {k} of {n} steps");
            // The next change is written whatever the kill left.
            let mut base = Base::read(&out, before.clone()).unwrap();
            write(&a, &mut base, &now).unwrap().unwrap_or_else(|why| panic!("{why}"));
            assert_eq!(ids(&out, "platypus"), ["a.md"]);
            assert!(ids(&out, "heron").is_empty() && ids(&out, "wombat").is_empty());
            let left: Vec<String> = fs::read_dir(&out)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|f| f.starts_with('.'))
                .collect();
            assert!(left.is_empty(), "a killed write's files are removed: {left:?}");
        }
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_page_that_cannot_be_read_is_left_out_with_a_warning_and_read_again_when_it_changes() {
        let d = crate::sources::scratch("delta-unreadable");
        let (site, out) = (d.join("site"), d.join("bundle"));
        fs::create_dir_all(&site).unwrap();
        fs::write(site.join("a.md"), "# Alpha\n\nThe wombat page.\n").unwrap();
        let a = args(&site, &out);
        crate::build(&a).unwrap();
        let mut base = Base::read(&out, stamps(&site)).unwrap();
        // Half written: not UTF-8 text, as a binary or a file cut mid-character is.
        fs::write(site.join("b.md"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
        let w = write(&a, &mut base, &stamps(&site)).unwrap().unwrap_or_else(|why| panic!("{why}"));
        assert_eq!(w.pages, 0);
        assert!(w.warnings.iter().any(|x| x.contains("b.md")), "{:?}", w.warnings);
        assert_eq!(ids(&out, "wombat"), ["a.md"], "the rest still answers");
        fs::write(site.join("b.md"), "# Beta\n\nThe heron page.\n").unwrap();
        let w = write(&a, &mut base, &stamps(&site)).unwrap().unwrap_or_else(|why| panic!("{why}"));
        assert_eq!(w.pages, 1);
        assert_eq!(ids(&out, "heron"), ["b.md"]);
        let _ = fs::remove_dir_all(&d);
    }
}
