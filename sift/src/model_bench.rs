//! `sift model bench`: how fast the model embeds, beside the best CPU runtime on the same
//! model file in the same run. tract (what builds embed with) and, when Python can import
//! `onnxruntime` (PyPI), ONNX Runtime embed the same token sequences of a few lengths: one
//! sequence at a time on one core and one at a time on every core (what builds do: tract's
//! plan is made for one sequence), and ONNX Runtime in batches of equal length too. It
//! prints tokens per second for each, and tract's share of ONNX Runtime's best.

use anyhow::{anyhow, bail, Result};
use rayon::prelude::*;
use sift_embed::model::{default_model_dir, Embedder};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Sequence lengths measured, `[CLS]` and `[SEP]` included: a title, a sentence, a short
/// chunk, a full one.
const LENGTHS: [usize; 4] = [16, 64, 128, 256];
/// Sequences per batch when ONNX Runtime batches equal lengths.
const BATCH: usize = 8;
/// How long each measurement runs, at least.
const SPAN: Duration = Duration::from_millis(2500);

/// Token ids of a sequence of `len` (deterministic, plain word pieces).
fn sequence(len: usize, seed: usize) -> Vec<u32> {
    let mut x = 0x9E37_79B9u32.wrapping_mul(seed as u32 + 1);
    let mut ids = vec![101];
    while ids.len() < len - 1 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        ids.push(2000 + x % 18_000);
    }
    ids.push(102);
    ids
}

/// Tokens per second of `run` over `seqs` sequences of `len` tokens per call, repeated
/// for at least `SPAN`.
fn rate(len: usize, per_call: usize, mut run: impl FnMut() -> Result<()>) -> Result<f64> {
    run()?;
    let (t0, mut calls) = (Instant::now(), 0usize);
    while t0.elapsed() < SPAN {
        run()?;
        calls += 1;
    }
    Ok((calls * per_call * len) as f64 / t0.elapsed().as_secs_f64())
}

struct Row {
    runtime: &'static str,
    how: String,
    per_len: Vec<f64>,
}

fn tract_rows(e: &Embedder, cores: usize) -> Result<Vec<Row>> {
    let embed = |ids: &[u32]| e.embed_one(ids).map(|_| ()).map_err(|err| anyhow!("{err}"));
    let mut one = Vec::new();
    let mut every = Vec::new();
    for &len in &LENGTHS {
        let seqs: Vec<Vec<u32>> = (0..cores).map(|i| sequence(len, i)).collect();
        one.push(rate(len, 1, || embed(&seqs[0]))?);
        // One sequence a call, a call a core (what builds do).
        every.push(rate(len, cores, || seqs.par_iter().try_for_each(|s| embed(s)))?);
    }
    Ok(vec![
        Row { runtime: "tract", how: "one sequence, 1 core".into(), per_len: one },
        Row { runtime: "tract", how: format!("one sequence a core, {cores} cores"), per_len: every },
    ])
}

/// ONNX Runtime's rows, from Python (None, and why, when it cannot be run).
fn onnxruntime_rows(model: &Path, cores: usize) -> Result<Vec<Row>, String> {
    let script = include_str!("model_bench_ort.py");
    let lengths: Vec<String> = LENGTHS.iter().map(|l| l.to_string()).collect();
    let out = Command::new("python3")
        .args(["-c", script, &model.to_string_lossy(), &cores.to_string(), &BATCH.to_string(), &SPAN.as_secs_f64().to_string()])
        .args(&lengths)
        .output()
        .map_err(|e| format!("python3 could not be run ({e})"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("").to_string();
        return Err(if last.contains("No module named 'onnxruntime'") {
            "the PyPI package onnxruntime is not importable (pip install onnxruntime)".into()
        } else {
            format!("ONNX Runtime failed: {last}")
        });
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("ONNX Runtime's answer: {e}"))?;
    let rows = v.as_array().ok_or("ONNX Runtime's answer is not a list")?;
    Ok(rows
        .iter()
        .map(|r| Row {
            runtime: "onnxruntime",
            how: r["how"].as_str().unwrap_or("?").to_string(),
            per_len: r["tokens_per_s"].as_array().map(|a| a.iter().map(|x| x.as_f64().unwrap_or(0.0)).collect()).unwrap_or_default(),
        })
        .collect())
}

pub fn bench(model: Option<PathBuf>) -> Result<()> {
    let model = model.unwrap_or_else(|| default_model_dir().join("model-f32.onnx"));
    if !model.exists() {
        bail!("{} not found (run `sift model fetch`)", model.display());
    }
    let cores = rayon::current_num_threads();
    let t0 = Instant::now();
    let e = crate::embedding::load(&model)?;
    println!("{} ({} bytes), loaded by tract in {} ms; {cores} cores", model.display(), model.metadata()?.len(), t0.elapsed().as_millis());
    let mut rows = tract_rows(&e, cores)?;
    let ort = onnxruntime_rows(&model, cores);
    let header: Vec<String> = LENGTHS.iter().map(|l| format!("{l} tokens")).collect();
    println!("\ntokens per second, by sequence length\n");
    println!("| runtime | how | {} |", header.join(" | "));
    println!("|---|---|{}", "---|".repeat(LENGTHS.len()));
    match ort {
        Ok(o) => rows.extend(o),
        Err(why) => println!("(ONNX Runtime not measured: {why})"),
    }
    for r in &rows {
        let cells: Vec<String> = r.per_len.iter().map(|x| format!("{x:.0}")).collect();
        println!("| {} | {} | {} |", r.runtime, r.how, cells.join(" | "));
    }
    let best = |runtime: &str| -> Vec<f64> {
        (0..LENGTHS.len())
            .map(|i| rows.iter().filter(|r| r.runtime == runtime).filter_map(|r| r.per_len.get(i).copied()).fold(0.0, f64::max))
            .collect()
    };
    let (t, o) = (best("tract"), best("onnxruntime"));
    if o.iter().any(|x| *x > 0.0) {
        let ratios: Vec<String> = t.iter().zip(&o).map(|(a, b)| format!("{:.2}×", a / b)).collect();
        println!("| tract's best / ONNX Runtime's best | | {} |", ratios.join(" | "));
    }
    Ok(())
}
