//! How closely a bundle's static query encoder follows the model it was fitted to: for each
//! query of one or more JSONL files (`{"text": …}` or BEIR's `{"_id", "text"}`), the cosine
//! between the encoder's vector and the model's embedding projected into the bundle's
//! space. A continuous measure of the encoder, less noisy than the ranks it leads to.
//! `cargo run --release --example encoder_fidelity -- <BUNDLE> <QUERIES.jsonl>... [--each] [--dump]`

use sift_embed::model::{default_model_dir, Embedder};
use sift_engine::{Engine, SiftError, Step};
use std::path::{Path, PathBuf};

/// Run one engine call to completion, reading the shards it asks for from `dir`.
fn drive<T>(engine: &mut Engine, dir: &Path, call: impl Fn(&Engine) -> Result<Step<T>, SiftError>) -> T {
    engine.drive(call, |f| std::fs::read(dir.join(f)).map_err(|e| SiftError::internal(format!("{f}: {e}")))).expect("engine call")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let each = args.iter().any(|a| a == "--each");
    // --dump: each query's two vectors as a JSON line (for offline analysis).
    let dump = args.iter().any(|a| a == "--dump");
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let [bundle, files @ ..] = paths.as_slice() else { panic!("usage: encoder_fidelity <BUNDLE> <QUERIES.jsonl>... [--each] [--dump]") };
    let dir = PathBuf::from(bundle);
    let mut engine = Engine::new(&std::fs::read(dir.join("manifest.json")).expect("manifest")).expect("bundle");
    let model_dir = default_model_dir();
    let model = Embedder::load(&model_dir.join("model-f32.onnx"), &model_dir.join("tokenizer.json")).expect("model (sift model fetch)");
    for file in files {
        let texts: Vec<String> = std::fs::read_to_string(file)
            .expect("queries")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line")["text"].as_str().expect("text").to_string())
            .collect();
        let mut sum = 0.0f64;
        let mut missing = 0;
        for t in &texts {
            let stat = drive(&mut engine, &dir, |e| e.embed_query(t, None));
            let m = model.embed(&[t.as_str()]).expect("embed").pop().expect("one vector");
            let proj = drive(&mut engine, &dir, |e| e.embed_query(t, Some(&m)));
            if dump {
                println!("{}", serde_json::json!({ "text": t, "static": stat, "model": proj }));
            }
            let cos = match (stat, proj) {
                (Some(a), Some(b)) => a.iter().zip(&b).map(|(x, y)| f64::from(x * y)).sum::<f64>(),
                _ => {
                    missing += 1;
                    0.0
                }
            };
            sum += cos;
            if each {
                println!("{cos:.3}  {t}");
            }
        }
        println!("{file}: {} queries, mean cosine {:.4} ({missing} without a vector)", texts.len(), sum / texts.len().max(1) as f64);
    }
}
