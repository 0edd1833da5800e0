//! `sift watch SOURCE... --out BUNDLE`: build, then rebuild whenever a source file changes.
//!
//! The sources are polled (size and modification time of every file, a few times a second):
//! no platform file-event API, so it behaves the same on every system and on network and
//! container mounts where events go missing. A change is built once the files have stopped
//! changing for one poll (an editor's save is often several writes). A change is written as
//! a delta beside the last full build (`delta.rs`: only the changed pages are read and
//! indexed), and past a size the site is built in full again (each text's vector from the
//! embedding cache, so only changed text is embedded). Either is swapped in atomically;
//! servers reading the bundle (`sift mcp`, `sift serve`) see the old one or the new one,
//! never half of one. A failed change keeps the last good bundle and says why.

use crate::delta::{self, Files, Stamp};
use crate::BuildArgs;
use anyhow::Result;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

#[derive(clap::Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// Also answer MCP over stdio on the bundle, in this process (as `sift mcp --watch`).
    #[arg(long)]
    pub mcp: bool,
    /// How often the sources are checked, in milliseconds.
    #[arg(long, default_value_t = 250, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub poll_ms: u64,
}

/// What the watcher did last, for `status` and the log.
#[derive(Default, Clone)]
pub struct WatchState {
    pub sources: Vec<String>,
    pub builds: u64,
    /// The last successful build: documents, seconds, when (Unix seconds).
    pub last_ok: Option<(usize, f64, u64)>,
    /// Why the last build failed, when it did (the bundle is the previous one).
    pub last_error: Option<String>,
    pub building: bool,
}

pub type Shared = Arc<Mutex<WatchState>>;

fn snapshot(sources: &[PathBuf], out: &Path) -> Files {
    delta::files(sources, out, false)
}

/// One full build, recorded in `state`; errors are reported, not returned. `files`: the
/// sources as they were before it read them. Returns the base later changes are deltas of.
fn build_once(args: &BuildArgs, state: &Shared, why: &str, files: &Files) -> Option<delta::Base> {
    state.lock().expect("watch state").building = true;
    let t = Instant::now();
    let r = crate::build(args);
    let mut s = state.lock().expect("watch state");
    s.building = false;
    s.builds += 1;
    match r {
        Ok(report) => {
            s.last_ok = Some((report.docs, t.elapsed().as_secs_f64(), unix_now()));
            s.last_error = None;
            eprintln!(
                "sift watch: {why}: built {} documents into {} in {:.2}s",
                report.docs,
                args.out.display(),
                t.elapsed().as_secs_f64()
            );
            match delta::Base::read(&args.out, files.clone()) {
                Ok(base) => Some(base),
                Err(e) => {
                    eprintln!("sift watch: the next change is built in full: {e:#}");
                    None
                }
            }
        }
        Err(e) => {
            eprintln!("sift watch: {why}: the build failed, the previous bundle stays: {e:#}");
            s.last_error = Some(format!("{e:#}"));
            None
        }
    }
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// How long writing a delta may take before the watcher merges it: an edit is searchable a
/// poll to notice it, a poll to see it settle, this, and a search after it is written.
/// Measured on the Python docs (`bench/results/2026-12-07-edits-in-a-second.md`): 8
/// changed pages 0.09 s, 16 0.25 s, 32 0.37 s, 64 0.74 s.
const DELTA_WRITE_BUDGET: Duration = Duration::from_millis(300);

/// A full build of the site in the background, into a folder beside the bundle, while the
/// watcher goes on writing deltas: the watcher swaps it in when it is done (so no delta is
/// being written then) and writes the changes made meanwhile as a delta of it.
pub struct Merge {
    /// The sources as they were when it started.
    files: Files,
    dir: PathBuf,
    done: std::thread::JoinHandle<Result<crate::BuildReport>>,
}

/// `.NAME.WHAT-PID` beside the bundle `out` (what a killed process left is removed by the
/// next build: `bundle_io::remove_stale`).
fn beside(out: &Path, what: &str) -> PathBuf {
    let name = out.file_name().map_or("bundle".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.{what}-{}", std::process::id()))
}

fn start_merge(args: &BuildArgs, files: &Files) -> Merge {
    let dir = beside(&args.out, "merge");
    let _ = fs::remove_dir_all(&dir);
    let mut a = args.clone();
    a.out = dir.clone();
    a.quiet = true;
    Merge { files: files.clone(), dir, done: std::thread::spawn(move || crate::build(&a)) }
}

/// Swap a finished merge in: the bundle aside, the merge in its place, the old one removed.
/// The new base, or None (and the bundle as it was) when the build or the swap failed.
fn finish_merge(args: &BuildArgs, state: &Shared, m: Merge) -> Option<delta::Base> {
    let report = match m.done.join() {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            eprintln!("sift watch: the full build in the background failed, the deltas stay: {e:#}");
            state.lock().expect("watch state").last_error = Some(format!("{e:#}"));
            let _ = fs::remove_dir_all(&m.dir);
            return None;
        }
        Err(_) => return None,
    };
    let old = beside(&args.out, "old");
    let swapped = fs::rename(&args.out, &old).and_then(|()| {
        fs::rename(&m.dir, &args.out).inspect_err(|_| {
            let _ = fs::rename(&old, &args.out);
        })
    });
    let _ = fs::remove_dir_all(&old);
    if let Err(e) = swapped {
        eprintln!("sift watch: the full build in the background could not be swapped in, the deltas stay: {e}");
        let _ = fs::remove_dir_all(&m.dir);
        return None;
    }
    eprintln!("sift watch: merged: built {} documents in the background in {:.2}s", report.docs, report.seconds);
    state.lock().expect("watch state").builds += 1;
    delta::Base::read(&args.out, m.files).ok()
}

/// A change: written as a delta of the last full build when it can be, else built in full;
/// past a size the delta is merged by a full build in the background (`merge`).
fn update(
    args: &BuildArgs,
    state: &Shared,
    why: &str,
    base: Option<delta::Base>,
    now: &Files,
    merge: &mut Option<Merge>,
) -> Option<delta::Base> {
    let Some(mut base) = base else { return build_once(args, state, why, now) };
    if merge.is_none() && delta::pages_changed(args, &base, now) > delta::merge_at(base.manifest.doc_count) {
        eprintln!("sift watch: many pages changed since the last full build: building the site in the background");
        *merge = Some(start_merge(args, now));
    }
    let t = Instant::now();
    match delta::write(args, &mut base, now) {
        Ok(Ok(w)) => {
            for warning in &w.warnings {
                eprintln!("sift watch: warning: {warning} (read again when it changes)");
            }
            let mut s = state.lock().expect("watch state");
            s.builds += 1;
            s.last_ok = Some((w.docs, t.elapsed().as_secs_f64(), unix_now()));
            s.last_error = None;
            let words_only = match (&base.manifest.vectors, &base.manifest.encoder) {
                (Some(_), None) => " (found by their words until the next full build: the bundle has no encoder to embed them)",
                _ => "",
            };
            eprintln!(
                "sift watch: {why}: {} page(s) since the last full build{words_only}, {} replaced or removed: written beside it in {:.2}s",
                w.pages,
                w.removed,
                t.elapsed().as_secs_f64()
            );
            drop(s);
            // Each change writes the delta again, whole: once that takes longer than an
            // edit can wait, the site is built again in the background.
            if merge.is_none() && t.elapsed() > DELTA_WRITE_BUDGET {
                eprintln!("sift watch: the delta took {:.2}s to write: building the site in the background", t.elapsed().as_secs_f64());
                *merge = Some(start_merge(args, now));
            }
            Some(base)
        }
        Ok(Err(reason)) => build_once(args, state, &format!("{why} ({reason})"), now),
        Err(e) => {
            eprintln!("sift watch: {why}: the change could not be written, the previous bundle stays: {e:#}");
            state.lock().expect("watch state").last_error = Some(format!("{e:#}"));
            Some(base)
        }
    }
}

/// Build now (when `initial`), then poll and write each change, forever.
pub fn watch_loop(args: &BuildArgs, poll: Duration, state: &Shared, initial: bool) -> ! {
    let mut seen = snapshot(&args.sources, &args.out);
    let mut base = if initial { build_once(args, state, "start", &seen) } else { delta::Base::read(&args.out, seen.clone()).ok() };
    let mut merge: Option<Merge> = None;
    loop {
        std::thread::sleep(poll);
        if merge.as_ref().is_some_and(|m| m.done.is_finished()) {
            if let Some(merged) = merge.take().and_then(|m| finish_merge(args, state, m)) {
                // What changed while it was built: a delta of it.
                let pending = merged.files != seen;
                base = Some(merged);
                if pending {
                    base = update(args, state, "changes made during the merge", base, &seen, &mut merge);
                }
            }
        }
        let now = snapshot(&args.sources, &args.out);
        if now == seen {
            continue;
        }
        // Wait until the changed files stop changing for a poll (a save in several writes
        // builds once). Only they are looked at again: on a large site a walk of every
        // file is most of the time an edit takes to be searchable.
        let mut settled = now;
        loop {
            std::thread::sleep(poll);
            let mut moved = false;
            for (path, was) in settled.iter_mut().filter(|(p, v)| seen.get(*p) != Some(*v)) {
                let is = fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| Stamp::modified(&m));
                moved |= is.as_ref() != Some(was);
                if let Some(is) = is {
                    *was = is;
                }
            }
            if !moved {
                break;
            }
            // (A file gone meanwhile: the walk says so.)
            settled = snapshot(&args.sources, &args.out);
        }
        let changed = changed_files(&seen, &settled);
        seen = settled;
        base = update(args, state, &changed, base, &seen, &mut merge);
    }
}

/// "3 files changed (guide/a.md, …)" for the log.
fn changed_files(a: &Files, b: &Files) -> String {
    let mut names: Vec<String> = a.keys().filter(|k| !b.contains_key(*k)).map(|k| format!("{} (removed)", k.display())).collect();
    names.extend(b.iter().filter(|(k, v)| a.get(*k) != Some(v)).map(|(k, _)| k.display().to_string()));
    let n = names.len();
    names.truncate(3);
    format!("{n} file{} changed ({}{})", if n == 1 { "" } else { "s" }, names.join(", "), if n > 3 { ", …" } else { "" })
}

pub fn new_state(args: &BuildArgs) -> Shared {
    Arc::new(Mutex::new(WatchState { sources: args.sources.iter().map(|p| p.display().to_string()).collect(), ..Default::default() }))
}

pub fn run(a: WatchArgs) -> Result<()> {
    let poll = Duration::from_millis(a.poll_ms);
    let state = new_state(&a.build);
    if !a.mcp {
        watch_loop(&a.build, poll, &state, true);
    }
    let mut build = a.build;
    // Stdout is the MCP channel: build quietly, one line per build on stderr.
    build.quiet = true;
    crate::mcp::serve_watching(build, poll, state)
}
