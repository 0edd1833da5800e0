//! Prototyping aid: embed texts with the installed model.
//! `embed_texts IN.jsonl OUT` reads lines `{"text": …}` or `{"ids": [token ids]}` and writes
//! OUT.ids.json (token ids per line) and OUT.f32 (n × dim little-endian f32).
use sift_embed::model::{default_model_dir, Embedder};
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = default_model_dir();
    let e = Embedder::load(&dir.join("model-f32.onnx"), &dir.join("tokenizer.json")).expect("model");
    let text = std::fs::read_to_string(&args[1]).expect("input");
    let mut ids: Vec<Vec<u32>> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("json line");
        if let Some(t) = v["text"].as_str() {
            ids.push(e.tokenizer().encode(t));
        } else {
            ids.push(v["ids"].as_array().expect("ids").iter().map(|x| x.as_u64().unwrap() as u32).collect());
        }
    }
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| ids[i].len());
    let mut out = vec![Vec::new(); ids.len()];
    let t0 = std::time::Instant::now();
    use rayon::prelude::*;
    let batches: Vec<Vec<usize>> = order.chunks(64).map(|c| c.to_vec()).collect();
    let done: Vec<(Vec<usize>, Vec<Vec<f32>>)> =
        batches.par_iter().map(|b| (b.clone(), e.embed_ids(&b.iter().map(|&i| ids[i].clone()).collect::<Vec<_>>()).unwrap())).collect();
    for (b, vs) in done {
        for (i, v) in b.into_iter().zip(vs) {
            out[i] = v;
        }
    }
    eprintln!("embedded {} texts in {:.1}s", ids.len(), t0.elapsed().as_secs_f64());
    std::fs::write(format!("{}.ids.json", args[2]), serde_json::to_string(&ids).unwrap()).unwrap();
    let mut f = std::fs::File::create(format!("{}.f32", args[2])).unwrap();
    for v in &out {
        for x in v {
            f.write_all(&x.to_le_bytes()).unwrap();
        }
    }
}
