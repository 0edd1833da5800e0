//! `sift search`: a query (or several, fused) against a bundle on disk, printed as text or
//! as the contract's JSON.

use crate::bundle_io::DiskBundle;
use crate::{embedding, now_days};
use anyhow::Result;
use sift_base::error::ErrorCode;
use sift_base::json::ToJson;
use sift_engine::contract::{FilterValue, Scalar};
use sift_engine::{Context, MultiSearchRequest, SearchRequest, SiftError};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Who embeds queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryEmbedder {
    /// The bundle's static encoder (a lookup per token; bundles without one use the model).
    Static,
    /// The full model, run by tract.
    Model,
}

#[derive(clap::Args)]
pub struct SearchArgs {
    /// Bundle directory.
    dir: PathBuf,
    /// The query (omit when using --multi).
    query: Option<String>,
    #[arg(long)]
    limit: Option<i64>,
    #[arg(long)]
    offset: Option<i64>,
    /// FIELD=VALUE (repeatable; values of one field are OR-ed, fields AND-ed).
    #[arg(long = "filter")]
    filters: Vec<String>,
    /// ISO date or span (7d, 2w, 3m, 1y).
    #[arg(long)]
    since: Option<String>,
    /// relevance or date.
    #[arg(long)]
    sort: Option<String>,
    /// auto, lexical, semantic or hybrid.
    #[arg(long)]
    mode: Option<String>,
    #[arg(long)]
    boost_recent: bool,
    /// Include each result's full text.
    #[arg(long)]
    content: bool,
    /// Per-result scoring details.
    #[arg(long)]
    explain: bool,
    /// Run several queries merged by rank fusion (repeatable, up to 30).
    #[arg(long = "multi")]
    multi: Vec<String>,
    /// Who embeds the query for semantic and hybrid search: the bundle's static encoder (no
    /// model needed), or the full model (`sift model fetch`).
    #[arg(long, value_enum, default_value_t = QueryEmbedder::Static)]
    embedder: QueryEmbedder,
    /// Print the JSON contract's response (or error object).
    #[arg(long)]
    json: bool,
}

fn parse_filters(raw: &[String]) -> Result<BTreeMap<String, FilterValue>, SiftError> {
    let mut out: BTreeMap<String, Vec<Scalar>> = BTreeMap::new();
    for f in raw {
        let (k, v) = f
            .split_once('=')
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| SiftError::new(ErrorCode::InvalidFilter, format!("--filter takes FIELD=VALUE; got {f:?}")))?;
        out.entry(k.to_string()).or_default().push(Scalar::Str(v.to_string()));
    }
    Ok(out.into_iter().map(|(k, v)| (k, FilterValue::Many(v))).collect())
}

pub fn run(a: &SearchArgs) -> ExitCode {
    match search_inner(a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if a.json {
                println!("{}", e.to_error_object().to_text());
            } else {
                eprintln!("error: {}", e.message);
            }
            if e.is_client_error() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn search_inner(a: &SearchArgs) -> Result<(), SiftError> {
    let t0 = Instant::now();
    let ctx = Context { now_days: now_days() };
    let filters = parse_filters(&a.filters)?;
    let mut bundle = DiskBundle::open(&a.dir)?;
    if !a.multi.is_empty() {
        let req = MultiSearchRequest {
            queries: a
                .multi
                .iter()
                .map(|q| SearchRequest {
                    query: q.clone(),
                    filters: filters.clone(),
                    since: a.since.clone(),
                    mode: a.mode.clone(),
                    ..Default::default()
                })
                .collect(),
            limit: a.limit,
            offset: a.offset,
        };
        let vectors: Vec<Option<Vec<f32>>> = req.queries.iter().map(|q| query_vector(&bundle, q, a.embedder)).collect::<Result<_, _>>()?;
        let mut resp = bundle.drive(|e| e.multi_search_with(&req, &ctx, Some(&vectors)))?;
        resp.timings_ms.insert("total".into(), t0.elapsed().as_secs_f64() * 1000.0);
        if a.json {
            println!("{}", resp.to_json().to_pretty_text());
        } else {
            println!("{} results for {} queries (merged by rank fusion)", resp.total, resp.queries.len());
            for (i, q) in resp.queries.iter().enumerate() {
                println!("  q{i}: {:?} — {} results", q.query, q.total);
            }
            for (i, r) in resp.results.iter().enumerate() {
                println!(
                    "{:>3}. {:.3}  {}  [{}]  found by {:?}",
                    resp.offset + i + 1,
                    r.score,
                    plain(&r.title),
                    r.url,
                    r.queries.clone().unwrap_or_default()
                );
            }
        }
        return Ok(());
    }
    let query = a.query.clone().ok_or_else(|| SiftError::new(ErrorCode::EmptyQuery, "give a query, or --multi queries"))?;
    let req = SearchRequest {
        query,
        mode: a.mode.clone(),
        filters,
        since: a.since.clone(),
        limit: a.limit,
        offset: a.offset,
        sort: a.sort.clone(),
        boost_recent: a.boost_recent.then_some(true),
        include_content: a.content.then_some(true),
        explain: a.explain.then_some(true),
    };
    let qv = query_vector(&bundle, &req, a.embedder)?;
    let mut resp = bundle.drive(|e| e.search_with(&req, &ctx, qv.as_deref()))?;
    resp.timings_ms.insert("total".into(), t0.elapsed().as_secs_f64() * 1000.0);
    if a.json {
        println!("{}", resp.to_json().to_pretty_text());
        return Ok(());
    }
    println!(
        "{} result{} for {:?} ({}, {:.1} ms)",
        resp.total,
        if resp.total == 1 { "" } else { "s" },
        resp.query,
        resp.search_type,
        resp.timings_ms["total"]
    );
    if let Some(f) = &resp.fallback {
        println!("note: {} → {}: {}", f.from, f.to, f.reason);
    }
    for s in &resp.suggestions {
        println!("did you mean: {s}");
    }
    for (i, r) in resp.results.iter().enumerate() {
        println!("{:>3}. {:.3}  {}  [{}]", resp.offset + i + 1, r.score, plain(&r.title), r.url);
        if !r.snippet.is_empty() {
            println!("       {}", plain(&r.snippet));
        }
        for (j, s) in r.sub_results.iter().enumerate() {
            // The entry an identifier names: its kind beside its path.
            match r.definition.as_ref().filter(|d| j == 0 && d.url == s.url) {
                Some(d) => println!("       ↳ {} ({})  [{}]", d.path, d.kind, s.url),
                None => println!("       ↳ {}  [{}]", plain(&s.title), s.url),
            }
        }
        if let Some(c) = &r.content {
            println!("{c}");
        }
        if let Some(x) = &r.explain {
            println!("{}", x.to_pretty_text());
        }
    }
    if !resp.facets.is_empty() {
        for (field, values) in &resp.facets {
            let mut vs: Vec<_> = values.iter().collect();
            vs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let shown: Vec<String> = vs.iter().take(8).map(|(v, c)| format!("{v} ({c})")).collect();
            println!("facet {field}: {}", shown.join(", "));
        }
    }
    if resp.has_more {
        println!("more: --offset {}", resp.offset + resp.limit);
    }
    Ok(())
}

/// The query's embedding by the full model, when the request needs one: the user chose
/// the model, or the bundle has vectors but no static encoder (`--no-encoder`). In `auto` mode a
/// missing model means keyword search (with a note), not an error.
pub fn query_vector(bundle: &DiskBundle, req: &SearchRequest, embedder: QueryEmbedder) -> Result<Option<Vec<f32>>, SiftError> {
    let engine = &bundle.engine;
    if !engine.has_vectors() || req.mode.as_deref() == Some("lexical") {
        return Ok(None);
    }
    if embedder == QueryEmbedder::Static && !engine.wants_query_vector(req) {
        return Ok(None);
    }
    let Some(loaded) = embedding::query_embedder() else {
        if req.mode.as_deref().unwrap_or("auto") == "auto" && embedder == QueryEmbedder::Static {
            eprintln!("note: the embedding model is not installed (`sift model fetch`); searching by keywords only");
            return Ok(None);
        }
        return Err(SiftError::new(ErrorCode::EmbedderUnavailable, "this search needs the embedding model; run `sift model fetch`"));
    };
    let e = loaded.map_err(|e| SiftError::new(ErrorCode::EmbedderUnavailable, e))?;
    let v = e.embed(&[engine.semantic_text(req).as_str()]).map_err(|e| SiftError::internal(e.to_string()))?;
    Ok(v.into_iter().next())
}

/// Terminal rendering of the HTML-safe strings: marks as [brackets], entities decoded.
fn plain(html: &str) -> String {
    sift_engine::snippet::marked_parts(html).into_iter().map(|(t, m)| if m { format!("[{t}]") } else { t }).collect()
}
