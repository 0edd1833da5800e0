//! The query embedder for browsers, workers and extensions: loaded lazily by the JS wrapper
//! only when a bundle has vectors and the site leaves semantic search on.

use sift_embed::model::Embedder;
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
    /// Load the ONNX model (f32, or int8 expanded once here) and its `tokenizer.json`.
    #[wasm_bindgen(constructor)]
    pub fn new(model: &[u8], tokenizer: &[u8]) -> Result<SiftEmbedder, JsValue> {
        Embedder::from_bytes(model, tokenizer).map(|inner| SiftEmbedder { inner }).map_err(|e| err("embedder_unavailable", e.0))
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
        let mut v = self.inner.embed(&[text]).map_err(|e| err("embedding_failed", e.0))?;
        v.pop().ok_or_else(|| err("embedding_failed", "the model returned no embedding".into()))
    }
}
