//! `sift`: build, search, evaluate and benchmark Sift bundles.

mod bench;
mod build;
mod bundle_io;
mod delta;
mod embedding;
mod eval;
mod http;
mod languages;
mod mcp;
mod model_bench;
mod model_fetch;
mod search;
mod serve;
mod sources;
mod steps;
mod watch;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub use build::{build, BuildArgs, BuildReport};
pub use search::{query_vector, QueryEmbedder};

/// mimalloc: a build allocates and frees millions of small strings and postings rows on
/// every core, and in glibc's allocator that was over a third of the analysing step's time,
/// with more memory kept (`bench/results`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "sift", version, about = "Hybrid search that ships as static files", long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Build a bundle from HTML/Markdown folders and .jsonl files.
    Build(BuildArgs),
    /// Embed one part of a site's texts into the embedding cache, for a build split over
    /// several machines (`--part 2/8` on each job of a CI matrix, then one `sift build`).
    Embed(embedding::EmbedArgs),
    /// Search a bundle.
    Search(search::SearchArgs),
    /// Evaluate a bundle on a test collection (BEIR queries.jsonl + qrels .tsv).
    Eval(eval::EvalArgs),
    /// Benchmark build and queries on a site, with Pagefind built on the same site.
    Bench(bench::BenchArgs),
    /// Manage the embedding model (`sift model fetch`).
    Model(model_fetch::ModelArgs),
    /// Serve a bundle with the demo search page on 127.0.0.1.
    Serve(serve::ServeArgs),
    /// Answer MCP (Model Context Protocol) over stdio on a bundle, for local agents;
    /// `--watch SOURCE...` rebuilds it as the sources change.
    Mcp(mcp::McpArgs),
    /// Build, then rebuild whenever a source file changes (`--mcp`: and answer MCP on stdio).
    Watch(watch::WatchArgs),
}

fn main() -> ExitCode {
    // `sift search … | head` must end quietly when head closes the pipe, like any Unix
    // tool, instead of panicking on the failed write.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Build(a) => build(&a).map(|_| ()),
        Cmd::Embed(a) => embedding::embed(&a),
        Cmd::Search(a) => return search::run(&a),
        Cmd::Eval(a) => eval::run(&a),
        Cmd::Bench(a) => bench::run(&a),
        Cmd::Model(a) => model_fetch::run(&a),
        Cmd::Serve(a) => serve::run(&a),
        Cmd::Mcp(a) => mcp::run(a),
        Cmd::Watch(a) => watch::run(a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

pub fn now_days() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64 / 86_400).unwrap_or(0)
}
