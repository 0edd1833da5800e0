//! The embedder against an independent all-MiniLM-L6-v2 implementation
//! (../shared/data/minilm-reference: 33 awkward strings with token ids and f32 embeddings):
//! the tokenizer must match token for token, the f32 model to cosine ≥ 0.999 and the int8
//! model to cosine ≥ 0.98 on every string. Skipped, saying why, without ../shared or
//! without the converted model (`sift model fetch`).

use sift_embed::model::{default_model_dir, Embedder};
use sift_embed::Tokenizer;
use sift_tests::shared_dir;

struct Reference {
    text: String,
    ids: Vec<u32>,
    embedding: Vec<f32>,
}

fn reference() -> Option<Vec<Reference>> {
    let Some(shared) = shared_dir() else {
        sift_tests::cannot_test("../shared/data/minilm-reference not found");
        return None;
    };
    let text = std::fs::read_to_string(shared.join("data/minilm-reference/sentences.jsonl")).expect("reference readable");
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                Reference {
                    text: v["text"].as_str().unwrap().to_string(),
                    ids: v["token_ids"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect(),
                    embedding: v["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect(),
                }
            })
            .collect(),
    )
}

fn model_file(name: &str) -> Option<std::path::PathBuf> {
    let p = default_model_dir().join(name);
    if p.exists() {
        Some(p)
    } else {
        sift_tests::cannot_test(&format!("{} not found (run `sift model fetch`)", p.display()));
        None
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb).max(1e-12)
}

#[test]
fn tokenizer_matches_the_reference_token_for_token() {
    let (Some(refs), Some(tok)) = (reference(), model_file("tokenizer.json")) else { return };
    let t = Tokenizer::from_json(&std::fs::read(tok).unwrap()).unwrap();
    assert_eq!(refs.len(), 33);
    for r in &refs {
        assert_eq!(t.encode(&r.text), r.ids, "{:?}", r.text);
    }
}

fn check_model(file: &str, min_cos: f32) {
    let (Some(refs), Some(model), Some(tok)) = (reference(), model_file(file), model_file("tokenizer.json")) else { return };
    let e = Embedder::load(&model, &tok).unwrap();
    assert_eq!(e.dim, 384);
    let mut worst = 1.0f32;
    // Batches of mixed lengths exercise the padding mask too.
    for chunk in refs.chunks(8) {
        let texts: Vec<&str> = chunk.iter().map(|r| r.text.as_str()).collect();
        let got = e.embed(&texts).unwrap();
        for (r, g) in chunk.iter().zip(&got) {
            let c = cosine(g, &r.embedding);
            worst = worst.min(c);
            assert!(c >= min_cos, "{file}: cosine {c} for {:?}", r.text);
        }
    }
    eprintln!("{file}: worst cosine to the reference {worst:.5} over {} strings", refs.len());
}

#[test]
fn f32_model_matches_the_reference_forward_pass() {
    check_model("model-f32.onnx", 0.999);
}

#[test]
fn int8_model_stays_close_to_the_reference() {
    check_model("model-int8.onnx", 0.98);
}

/// The worker's setting (`modelMemory: "small"`): int8 weights kept int8, the word table
/// gathered before it is dequantized. Same vectors as the expanded model, to float rounding.
#[test]
fn int8_weights_kept_int8_give_the_same_vectors() {
    use sift_embed::model::Weights;
    let (Some(refs), Some(model), Some(tok)) = (reference(), model_file("model-int8.onnx"), model_file("tokenizer.json")) else { return };
    let (m, t) = (std::fs::read(model).unwrap(), std::fs::read(tok).unwrap());
    let expanded = Embedder::from_bytes_with(&m, &t, Weights::Expand).unwrap();
    let kept = Embedder::from_bytes_with(&m, &t, Weights::KeepInt8).unwrap();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).take(12).collect();
    for ((a, b), r) in expanded.embed(&texts).unwrap().iter().zip(kept.embed(&texts).unwrap()).zip(&refs) {
        assert!(cosine(a, &b) > 0.9999, "{:?}: {}", r.text, cosine(a, &b));
        assert!(cosine(&b, &r.embedding) >= 0.98, "{:?}", r.text);
    }
}

#[test]
fn known_similarities_hold() {
    let (Some(model), Some(tok)) = (model_file("model-int8.onnx"), model_file("tokenizer.json")) else { return };
    let e = Embedder::load(&model, &tok).unwrap();
    let v = e.embed(&["A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse."]).unwrap();
    let near = cosine(&v[0], &v[1]);
    let far = cosine(&v[0], &v[2]);
    assert!((near - 0.755).abs() < 0.03, "{near}");
    assert!((far - 0.247).abs() < 0.05, "{far}");
}

#[test]
fn missing_or_corrupt_model_files_are_clear_errors() {
    let dir = sift_tests::scratch("embedder-bad");
    let tok = dir.join("tokenizer.json");
    std::fs::write(&tok, b"{}").unwrap();
    let err = Embedder::load(&dir.join("nope.onnx"), &tok).err().unwrap().to_string();
    assert!(err.contains("tokenizer") || err.contains("nope.onnx"), "{err}");
    if let Some(real_tok) = model_file("tokenizer.json") {
        let err = Embedder::load(&dir.join("nope.onnx"), &real_tok).err().unwrap().to_string();
        assert!(err.contains("sift model fetch"), "{err}");
        let bad = dir.join("bad.onnx");
        std::fs::write(&bad, b"this is not a model").unwrap();
        let err = Embedder::load(&bad, &real_tok).err().unwrap().to_string();
        assert!(err.contains("not a readable ONNX file") && err.contains("bad.onnx"), "{err}");
    }
}

/// The embedding cache relies on this: a text embedded alone gets the same bits every time,
/// whatever was embedded before, so a rebuild that embeds only the changed texts gives the
/// bundle a clean build gives. (Batches would not: a text's row position in a batch and
/// the padding to the longest text change the last bits, which is why the embedder's plan
/// is made for one text.)
#[test]
fn a_text_embedded_alone_always_gets_the_same_bits() {
    let (Some(model), Some(tok)) = (model_file("model-f32.onnx"), model_file("tokenizer.json")) else { return };
    let e = Embedder::load(&model, &tok).unwrap();
    let texts = ["caching answers in memory", "x", &"a long chunk of documentation text ".repeat(30)];
    let first: Vec<Vec<f32>> = texts.iter().map(|t| e.embed(&[t]).unwrap().remove(0)).collect();
    e.embed(&texts).unwrap();
    for (t, f) in texts.iter().zip(&first).rev() {
        assert_eq!(&e.embed(&[t]).unwrap().remove(0), f, "{t:?}");
    }
}
