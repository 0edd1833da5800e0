//! `sift bench`: build a site with Sift and with Pagefind in the same run, then measure
//! Sift's query latency (plain, fuzzy, filtered, multi-search; cold and warm) and the
//! `sift search` command end to end. Prints numbers, never asserts them.

use crate::bundle_io::DiskBundle;
use crate::BuildArgs;
use anyhow::{anyhow, Context as _, Result};
use flate2::write::GzEncoder;
use flate2::Compression;
use sift_engine::contract::{FilterValue, Scalar};
use sift_engine::{Context, MultiSearchRequest, SearchRequest};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// A built static site (HTML), e.g. /usr/share/doc/python3.11/html.
    #[arg(long)]
    pub site: PathBuf,
    /// The Pagefind binary (e.g. bench/node_modules/.bin/pagefind); skipped when absent.
    #[arg(long)]
    pub pagefind: Option<PathBuf>,
    /// Scratch directory for the bundles.
    #[arg(long, default_value = "bench/out")]
    pub work: PathBuf,
    /// Repetitions of each query set for the latency figures.
    #[arg(long, default_value_t = 20)]
    pub rounds: usize,
    /// A metadata field and value for the filtered queries.
    #[arg(long, default_value = "folder=library")]
    pub filter: String,
    /// A bundle of the same site built with vectors: `sift search --mode hybrid` per process
    /// is timed on it too, with the bundle's static encoder and (when installed) the model.
    #[arg(long)]
    pub hybrid: Option<PathBuf>,
    /// Also print the figures as one JSON object.
    #[arg(long)]
    pub json: bool,
}

const PLAIN: &[&str] = &[
    "os.path.join",
    "list comprehension",
    "asyncio event loop",
    "json dumps indent",
    "subprocess run capture output",
    "datetime timezone",
    "regular expression groups",
    "dataclass field default",
    "open file encoding",
    "logging configuration",
    "argparse subcommands",
    "socket timeout",
    "threading lock",
    "pathlib glob",
    "unittest mock patch",
    "string formatting",
    "exception chaining",
    "generator expression",
    "context manager",
    "sqlite3 connect",
];
const FUZZY: &[&str] = &[
    "asyncoi",
    "dictionnary",
    "subproces",
    "conection pool",
    "itertols",
    "recieve data",
    "enviroment variables",
    "authentification",
    "serialisation pickel",
    "excepion handling",
];
const PREFIX: &[&str] = &["asyn", "subpro", "dataclas", "json.du", "pathl", "itert", "contextm", "collections.namedt"];

#[derive(Debug, Clone, Copy, Default)]
struct Sizes {
    files: usize,
    raw: u64,
    gzip: u64,
}

fn dir_sizes(dir: &Path) -> Result<Sizes> {
    let mut s = Sizes::default();
    for e in walkdir::WalkDir::new(dir) {
        let e = e?;
        if !e.file_type().is_file() {
            continue;
        }
        let bytes = std::fs::read(e.path())?;
        let mut gz = GzEncoder::new(Vec::new(), Compression::best());
        gz.write_all(&bytes)?;
        let gz = gz.finish()?;
        s.files += 1;
        s.raw += bytes.len() as u64;
        // Servers send already-compressed files (Pagefind's, Sift's shards) as they are.
        s.gzip += (gz.len() as u64).min(bytes.len() as u64);
    }
    Ok(s)
}

/// p50 and p95 of `sift search <bundle> <query> --json <extra>` run as a process, over ten of
/// the plain queries.
fn time_search_processes(exe: &Path, bundle: &Path, extra: &[&str]) -> Result<(f64, f64)> {
    let mut v = Vec::new();
    for q in PLAIN.iter().take(10) {
        let t = Instant::now();
        let o = Command::new(exe).args(["search", &bundle.to_string_lossy(), q, "--json"]).args(extra).output()?;
        if !o.status.success() {
            return Err(anyhow!("sift search failed: {}", String::from_utf8_lossy(&o.stderr).trim()));
        }
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(percentiles(v))
}

fn percentiles(mut v: Vec<f64>) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.95))
}

fn kb(b: u64) -> String {
    format!("{:.1} KB", b as f64 / 1024.0)
}

pub fn run(a: &BenchArgs) -> Result<()> {
    if !a.site.is_dir() {
        return Err(anyhow!("--site {} is not a directory", a.site.display()));
    }
    std::fs::create_dir_all(&a.work).with_context(|| format!("cannot create {}", a.work.display()))?;
    let sift_out = a.work.join("sift");
    let mut report = serde_json::Map::new();

    // 1. Build with Sift.
    let build = crate::build(&BuildArgs {
        sources: vec![a.site.clone()],
        out: sift_out.clone(),
        language: None,
        selector: None,
        base_url: String::new(),
        filter_fields: Vec::new(),
        max_file_bytes: 64 << 20,
        index_noindex: false,
        k1: sift_engine::rank::Bm25fParams::default().k1,
        field_weights: None,
        field_b: None,
        embedder: None,
        no_embedder: true,
        copy_model: false,
        vector_dim: sift_build::semantic::layout::DEFAULT_DIM,
        vector_lists: None,
        vector_probe: sift_build::semantic::layout::DEFAULT_PROBE,
        no_encoder: false,
        model_budget: sift_build::semantic::embed::MODEL_BUDGET,
        full_model: false,
        doc_shard_kb: sift_build::BuildOptions::default().doc_shard_target / 1024,
        doc_part_kb: sift_build::BuildOptions::default().doc_part_target / 1024,
        term_shard_kb: sift_build::BuildOptions::default().term_shard_target / 1024,
        quiet: true,
        incremental: false,
    })?;
    let sift_sizes = dir_sizes(&sift_out)?;
    println!("site: {} ({} HTML pages indexed)", a.site.display(), build.docs);
    println!("\n== build ==");
    println!("{:<10} {:>9} {:>7} {:>12} {:>12}", "tool", "time", "files", "bytes raw", "bytes gzip");
    println!("{:<10} {:>8.2}s {:>7} {:>12} {:>12}", "sift", build.seconds, sift_sizes.files, kb(sift_sizes.raw), kb(sift_sizes.gzip));
    report.insert("pages".into(), build.docs.into());
    report.insert("sift_build_s".into(), round3(build.seconds).into());
    report.insert("sift_bytes_raw".into(), sift_sizes.raw.into());
    report.insert("sift_bytes_gzip".into(), sift_sizes.gzip.into());
    report.insert("sift_files".into(), sift_sizes.files.into());

    // 2. Build with Pagefind on the same site.
    match &a.pagefind {
        Some(pf) if pf.exists() => {
            let pf_out = a.work.join("pagefind");
            let _ = std::fs::remove_dir_all(&pf_out);
            let t0 = Instant::now();
            let o = Command::new(pf)
                .args(["--site", &a.site.to_string_lossy(), "--output-path", &pf_out.to_string_lossy()])
                .output()
                .with_context(|| format!("cannot run {}", pf.display()))?;
            let secs = t0.elapsed().as_secs_f64();
            if !o.status.success() {
                return Err(anyhow!("pagefind failed: {}", String::from_utf8_lossy(&o.stderr)));
            }
            let pages = String::from_utf8_lossy(&o.stdout)
                .lines()
                .find(|l| l.contains("Indexed") && l.contains("page"))
                .unwrap_or("")
                .trim()
                .to_string();
            let s = dir_sizes(&pf_out)?;
            println!("{:<10} {:>8.2}s {:>7} {:>12} {:>12}   ({pages})", "pagefind", secs, s.files, kb(s.raw), kb(s.gzip));
            println!(
                "sift / pagefind: build time {:.2}x, bytes raw {:.2}x, bytes gzip {:.2}x (goal: at most 0.5x)",
                build.seconds / secs,
                sift_sizes.raw as f64 / s.raw as f64,
                sift_sizes.gzip as f64 / s.gzip as f64
            );
            report.insert("pagefind_build_s".into(), round3(secs).into());
            report.insert("pagefind_bytes_raw".into(), s.raw.into());
            report.insert("pagefind_bytes_gzip".into(), s.gzip.into());
            report.insert("pagefind_files".into(), s.files.into());
        }
        Some(pf) => println!("pagefind: {} not found; skipped (bench/run.sh installs it)", pf.display()),
        None => println!("pagefind: not given (--pagefind); skipped"),
    }

    // 3. Query latency in-process.
    let ctx = Context { now_days: crate::now_days() };
    let (field, value) = a.filter.split_once('=').ok_or_else(|| anyhow!("--filter takes FIELD=VALUE"))?;
    let t0 = Instant::now();
    let mut cold = DiskBundle::open(&sift_out)?;
    let first = cold.drive(|e| e.search(&SearchRequest::new(PLAIN[0]), &ctx))?;
    let cold_ms = t0.elapsed().as_secs_f64() * 1000.0;
    let cold_files: usize = cold.engine.all_files().iter().filter(|f| cold.engine.is_loaded(f)).count();
    println!("\n== queries (in-process, ms) ==");
    println!(
        "cold first query (open bundle, read {cold_files} of {} shards, answer): {cold_ms:.2} ms, {} results",
        cold.engine.all_files().len(),
        first.total
    );
    report.insert("cold_first_query_ms".into(), round3(cold_ms).into());

    let mut warm = DiskBundle::open(&sift_out)?;
    warm.load_all()?;
    let filters: std::collections::BTreeMap<String, FilterValue> =
        [(field.to_string(), FilterValue::One(Scalar::Str(value.to_string())))].into_iter().collect();
    let mut sets: Vec<(&str, Vec<f64>)> = Vec::new();
    let mut time_set = |name: &'static str, run: &mut dyn FnMut() -> Result<()>| -> Result<()> {
        let mut v = Vec::new();
        for _ in 0..a.rounds {
            let t = Instant::now();
            run()?;
            v.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        sets.push((name, v));
        Ok(())
    };
    for q in PLAIN {
        time_set("plain", &mut || warm.drive(|e| e.search(&SearchRequest::new(*q), &ctx)).map(|_| ()).map_err(Into::into))?;
    }
    for q in PREFIX {
        time_set("prefix", &mut || warm.drive(|e| e.search(&SearchRequest::new(*q), &ctx)).map(|_| ()).map_err(Into::into))?;
    }
    for q in FUZZY {
        time_set("fuzzy", &mut || warm.drive(|e| e.search(&SearchRequest::new(*q), &ctx)).map(|_| ()).map_err(Into::into))?;
    }
    for q in PLAIN {
        let req = SearchRequest { query: q.to_string(), filters: filters.clone(), ..Default::default() };
        time_set("filtered", &mut || warm.drive(|e| e.search(&req, &ctx)).map(|_| ()).map_err(Into::into))?;
    }
    for chunk in PLAIN.chunks(5) {
        let req = MultiSearchRequest { queries: chunk.iter().map(|q| SearchRequest::new(*q)).collect(), ..Default::default() };
        time_set("multi(5)", &mut || warm.drive(|e| e.multi_search(&req, &ctx)).map(|_| ()).map_err(Into::into))?;
    }
    let mut merged: Vec<(&str, Vec<f64>)> = Vec::new();
    for (name, v) in sets {
        match merged.iter_mut().find(|(n, _)| *n == name) {
            Some((_, all)) => all.extend(v),
            None => merged.push((name, v)),
        }
    }
    println!("{:<10} {:>8} {:>8} {:>8}", "warm", "p50", "p95", "samples");
    for (name, v) in merged {
        let n = v.len();
        let (p50, p95) = percentiles(v);
        println!("{name:<10} {p50:>8.3} {p95:>8.3} {n:>8}");
        report.insert(format!("warm_{}_p50_ms", name.replace("(5)", "5")), round3(p50).into());
        report.insert(format!("warm_{}_p95_ms", name.replace("(5)", "5")), round3(p95).into());
    }

    // 4. `sift search` end to end (process start, lazy shard reads, answer).
    let exe = std::env::current_exe()?;
    let (p50, p95) = time_search_processes(&exe, &sift_out, &[])?;
    println!("\n`sift search` process, end to end: p50 {p50:.1} ms, p95 {p95:.1} ms");
    report.insert("cli_search_p50_ms".into(), round3(p50).into());
    report.insert("cli_search_p95_ms".into(), round3(p95).into());
    if let Some(hybrid) = &a.hybrid {
        for embedder in ["static", "model"] {
            let flag = format!("`sift search --mode hybrid --embedder {embedder}`");
            match time_search_processes(&exe, hybrid, &["--mode", "hybrid", "--embedder", embedder]) {
                Ok((p50, p95)) => {
                    println!("{flag} process, end to end: p50 {p50:.1} ms, p95 {p95:.1} ms (goal for static: ≤ 50 ms)");
                    report.insert(format!("cli_hybrid_{embedder}_p50_ms"), round3(p50).into());
                    report.insert(format!("cli_hybrid_{embedder}_p95_ms"), round3(p95).into());
                }
                // The model may not be installed: say so and go on.
                Err(e) => println!("{flag}: {e:#}"),
            }
        }
    }
    if a.json {
        println!("{}", serde_json::Value::Object(report));
    }
    Ok(())
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
