//! The query embedder for browsers, workers and extensions: loaded lazily by the JS wrapper
//! only when a bundle has vectors and the site leaves semantic search on.

use sift_embed::model::{Embedder, Weights};
use wasm_bindgen::prelude::*;

/// Errors cross into JS as a JSON string `{"code","message"}`; the wrapper parses it.
fn err(code: &str, message: String) -> JsValue {
    JsValue::from_str(&serde_json::json!({ "code": code, "message": message }).to_string())
}

#[wasm_bindgen]
pub struct SiftEmbedder {
    inner: Embedder,
}

#[wasm_bindgen]
impl SiftEmbedder {
    /// Load the ONNX model and its `tokenizer.json`. An int8 model's weights are expanded to
    /// f32 once (fast queries), or kept int8 with `small_memory` (a worker's 128 MB isolate).
    #[wasm_bindgen(constructor)]
    pub fn new(model: Vec<u8>, tokenizer: &[u8], small_memory: Option<bool>) -> Result<SiftEmbedder, JsValue> {
        let weights = if small_memory.unwrap_or(false) { Weights::KeepInt8 } else { Weights::Expand };
        Embedder::from_vec_with(model, tokenizer, weights).map(|inner| SiftEmbedder { inner }).map_err(|e| err("embedder_unavailable", e.0))
    }

    /// Bytes of this module's linear memory (wasm memory never shrinks: this is the peak).
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes() -> f64 {
        #[cfg(target_arch = "wasm32")]
        return (core::arch::wasm32::memory_size(0) * 65536) as f64;
        #[cfg(not(target_arch = "wasm32"))]
        0.0
    }

    pub fn dim(&self) -> usize {
        self.inner.dim
    }

    /// The L2-normalised embedding of one query.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, JsValue> {
        let mut v = self.inner.embed(&[text]).map_err(|e| err("internal", format!("embedding failed: {}", e.0)))?;
        v.pop().ok_or_else(|| err("internal", "the model returned no embedding".into()))
    }
}
