//! `sift eval`: relevance on a BEIR-shaped test collection — nDCG@10 (graded gains, log2
//! discount), MRR@10, Recall@100, MAP@100 — through the same search path users get.

use crate::bundle_io::DiskBundle;
use crate::QueryEmbedder;
use anyhow::{anyhow, Context as _, Result};
use sift_base::error::ErrorCode;
use sift_engine::{Context, SearchRequest};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct EvalArgs {
    /// Bundle directory.
    pub dir: PathBuf,
    /// queries.jsonl ({"_id", "text"} per line).
    #[arg(long)]
    pub queries: PathBuf,
    /// qrels .tsv (query-id, corpus-id, score; with a header line).
    #[arg(long)]
    pub qrels: PathBuf,
    /// auto, lexical, semantic or hybrid.
    #[arg(long)]
    pub mode: Option<String>,
    /// Who embeds the queries: the bundle's static encoder, the full model, or both (two
    /// columns side by side).
    #[arg(long, value_enum, default_value_t = EvalEmbedder::Static)]
    pub embedder: EvalEmbedder,
    /// Print {"ndcg@10", "mrr@10", "recall@100", "map@100", "queries", "empty"} (with `--embedder both`,
    /// one such object per embedder).
    #[arg(long)]
    pub json: bool,
    /// Also write each query's ranking (its first 100 results) to this file as a TREC run
    /// (`qid Q0 doc rank score tag`, the tag naming the query embedder), for per-query
    /// analysis and for trec_eval.
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Rank with a parameter other than its default, `name=value` (a pair as
    /// `lexical,semantic`): see `RankingParams` in crates/sift-engine/src/params.rs.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Results asked for per request, the first 100 read page by page. Relaxing to "any
    /// term" depends on whether all terms fill the page: 10 ranks as a search box does.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub page_size: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalEmbedder {
    Static,
    Model,
    Both,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Metrics {
    pub ndcg10: f64,
    pub mrr10: f64,
    pub recall100: f64,
    pub map100: f64,
    pub queries: usize,
    /// Queries answered with no result at all (the product promises none).
    pub empty: usize,
}

pub fn read_queries(path: &PathBuf) -> Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| anyhow!("{}:{}: invalid JSON: {e}", path.display(), i + 1))?;
        let id = match &v["_id"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return Err(anyhow!("{}:{}: query has no _id", path.display(), i + 1)),
        };
        let text = v["text"].as_str().ok_or_else(|| anyhow!("{}:{}: query has no text", path.display(), i + 1))?;
        out.push((id, text.to_string()));
    }
    Ok(out)
}

pub fn read_qrels(path: &PathBuf) -> Result<HashMap<String, HashMap<String, f64>>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out: HashMap<String, HashMap<String, f64>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
        if cols.len() < 3 {
            continue;
        }
        let Ok(score) = cols[2].parse::<f64>() else {
            if i == 0 {
                continue; // header
            }
            return Err(anyhow!("{}:{}: score {:?} is not a number", path.display(), i + 1, cols[2]));
        };
        if score > 0.0 {
            out.entry(cols[0].to_string()).or_default().insert(cols[1].to_string(), score);
        }
    }
    Ok(out)
}

/// Metrics of one ranked list against graded judgments.
pub fn score_query(ranked: &[String], rels: &HashMap<String, f64>) -> (f64, f64, f64, f64) {
    let gain = |id: &String| rels.get(id).copied().unwrap_or(0.0);
    let dcg: f64 = ranked.iter().take(10).enumerate().map(|(i, id)| gain(id) / ((i + 2) as f64).log2()).sum();
    let mut ideal: Vec<f64> = rels.values().copied().collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal.iter().take(10).enumerate().map(|(i, g)| g / ((i + 2) as f64).log2()).sum();
    let ndcg = if idcg > 0.0 { dcg / idcg } else { 0.0 };
    let mrr = ranked.iter().take(10).position(|id| gain(id) > 0.0).map(|p| 1.0 / (p + 1) as f64).unwrap_or(0.0);
    let n_rel = rels.len().max(1) as f64;
    let found = ranked.iter().take(100).filter(|id| gain(id) > 0.0).count() as f64;
    let mut hits = 0.0;
    let mut ap = 0.0;
    for (i, id) in ranked.iter().take(100).enumerate() {
        if gain(id) > 0.0 {
            hits += 1.0;
            ap += hits / (i + 1) as f64;
        }
    }
    (ndcg, mrr, found / n_rel, ap / n_rel)
}

pub fn evaluate(
    bundle: &mut DiskBundle,
    queries: &[(String, String)],
    qrels: &HashMap<String, HashMap<String, f64>>,
    mode: Option<&str>,
    embedder: QueryEmbedder,
    page_size: u32,
    mut run: Option<&mut Vec<(String, Vec<(String, f32)>)>>,
) -> Result<Metrics> {
    let ctx = Context { now_days: crate::now_days() };
    let mut sum = (0.0, 0.0, 0.0, 0.0);
    let (mut n, mut empty) = (0usize, 0usize);
    for (qid, text) in queries {
        let Some(rels) = qrels.get(qid) else { continue };
        let mut ranked: Vec<(String, f32)> = Vec::new();
        let probe = SearchRequest { query: text.clone(), mode: mode.map(str::to_string), ..Default::default() };
        let qv = crate::query_vector(bundle, &probe, embedder)?;
        let per = page_size as usize;
        for page in 0..100usize.div_ceil(per) {
            let req = SearchRequest {
                query: text.clone(),
                mode: mode.map(str::to_string),
                limit: Some(per as i64),
                offset: Some((page * per) as i64),
                ..Default::default()
            };
            match bundle.drive(|e| e.search_with(&req, &ctx, qv.as_deref())) {
                Ok(r) => {
                    ranked.extend(r.results.into_iter().map(|x| (x.id, x.score)));
                    if !r.has_more {
                        break;
                    }
                }
                Err(e)
                    if matches!(
                        e.code,
                        ErrorCode::NoVectors | ErrorCode::EmbedderRequired | ErrorCode::EmbedderUnavailable | ErrorCode::InvalidMode
                    ) =>
                {
                    return Err(e.into())
                }
                Err(e) if e.is_client_error() => {
                    eprintln!("warning: query {qid}: {}", e.message);
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
        empty += usize::from(ranked.is_empty());
        let ids: Vec<String> = ranked.iter().map(|(id, _)| id.clone()).collect();
        let m = score_query(&ids, rels);
        if let Some(run) = run.as_deref_mut() {
            run.push((qid.clone(), ranked));
        }
        sum = (sum.0 + m.0, sum.1 + m.1, sum.2 + m.2, sum.3 + m.3);
        n += 1;
    }
    let d = n.max(1) as f64;
    Ok(Metrics { ndcg10: sum.0 / d, mrr10: sum.1 / d, recall100: sum.2 / d, map100: sum.3 / d, queries: n, empty })
}

pub fn run(a: &EvalArgs) -> Result<()> {
    let mut bundle = DiskBundle::open(&a.dir)?;
    bundle.load_all()?;
    let mut ranking = sift_engine::RankingParams::default();
    for p in &a.params {
        let (name, value) = p.split_once('=').ok_or_else(|| anyhow!("--param takes NAME=VALUE, not {p:?}"))?;
        ranking.set(name, value).map_err(|e| anyhow!("--param: {}", e.message))?;
    }
    bundle.engine.set_ranking(ranking);
    let queries = read_queries(&a.queries)?;
    let qrels = read_qrels(&a.qrels)?;
    let embedders: Vec<(&str, QueryEmbedder)> = match a.embedder {
        EvalEmbedder::Static => vec![("static", QueryEmbedder::Static)],
        EvalEmbedder::Model => vec![("model", QueryEmbedder::Model)],
        EvalEmbedder::Both => vec![("static", QueryEmbedder::Static), ("model", QueryEmbedder::Model)],
    };
    let mut results = Vec::new();
    let mut trec = String::new();
    for (name, e) in &embedders {
        let mut rankings = Vec::new();
        results.push((*name, evaluate(&mut bundle, &queries, &qrels, a.mode.as_deref(), *e, a.page_size, Some(&mut rankings))?));
        for (qid, ranked) in rankings {
            for (rank, (doc, score)) in ranked.iter().enumerate() {
                trec.push_str(&format!("{qid} Q0 {doc} {} {score} sift-{name}\n", rank + 1));
            }
        }
    }
    if let Some(path) = &a.run {
        std::fs::write(path, trec).with_context(|| format!("cannot write the run file {}", path.display()))?;
    }
    let as_json = |m: &Metrics| {
        let mut o = BTreeMap::new();
        o.insert("ndcg@10", serde_json::json!(round(m.ndcg10)));
        o.insert("mrr@10", serde_json::json!(round(m.mrr10)));
        o.insert("recall@100", serde_json::json!(round(m.recall100)));
        o.insert("map@100", serde_json::json!(round(m.map100)));
        o.insert("queries", serde_json::json!(m.queries));
        o.insert("empty", serde_json::json!(m.empty));
        serde_json::json!(o)
    };
    if a.json {
        if results.len() == 1 {
            println!("{}", as_json(&results[0].1));
        } else {
            let o: serde_json::Map<String, serde_json::Value> = results.iter().map(|(n, m)| (n.to_string(), as_json(m))).collect();
            println!("{}", serde_json::Value::Object(o));
        }
        return Ok(());
    }
    let header: Vec<String> = results.iter().map(|(n, _)| format!("{n:>10}")).collect();
    println!("{:<12}{}", "query embedder", header.join(""));
    let row = |label: &str, f: &dyn Fn(&Metrics) -> String| {
        println!("{label:<12}{}", results.iter().map(|(_, m)| format!("{:>10}", f(m))).collect::<String>());
    };
    row("queries", &|m| m.queries.to_string());
    row("no result", &|m| m.empty.to_string());
    row("nDCG@10", &|m| format!("{:.4}", m.ndcg10));
    row("MRR@10", &|m| format!("{:.4}", m.mrr10));
    row("Recall@100", &|m| format!("{:.4}", m.recall100));
    row("MAP@100", &|m| format!("{:.4}", m.map100));
    Ok(())
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_of_a_known_ranking() {
        let rels: HashMap<String, f64> = [("a".to_string(), 3.0), ("b".to_string(), 1.0)].into_iter().collect();
        let perfect = score_query(&["a".into(), "b".into()], &rels);
        assert!((perfect.0 - 1.0).abs() < 1e-9 && perfect.1 == 1.0 && perfect.2 == 1.0 && (perfect.3 - 1.0).abs() < 1e-9);
        let (ndcg, mrr, recall, map) = score_query(&["x".into(), "b".into()], &rels);
        assert_eq!(mrr, 0.5);
        assert_eq!(recall, 0.5);
        assert!((map - 0.25).abs() < 1e-9);
        let expect = (1.0 / 3f64.log2()) / (3.0 + 1.0 / 3f64.log2());
        assert!((ndcg - expect).abs() < 1e-9);
        assert_eq!(score_query(&[], &rels), (0.0, 0.0, 0.0, 0.0));
    }
}
