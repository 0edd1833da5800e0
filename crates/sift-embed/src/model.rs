//! The sentence embedder: tokenizer + ONNX graph (from `convert.rs`) run by tract.
//! Each text is embedded alone, by a plan made for one sequence of any length: tract then
//! picks kernels for a single row, faster than for the file's symbolic batch (`sift model
//! bench`; bench/results), and a text's vector never depends on what else was embedded
//! (no padding, no neighbours), which the embedding cache relies on.

use crate::tokenizer::Tokenizer;
#[cfg(not(target_family = "wasm"))]
use std::path::Path;
use std::path::PathBuf;
use tract_onnx::prelude::*;

pub use crate::EmbedError;

/// Where `sift model fetch` puts the default model: `$SIFT_MODEL_DIR`, else
/// `~/.cache/sift/models/all-minilm-l6-v2`.
pub fn default_model_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SIFT_MODEL_DIR") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache/sift/models/all-minilm-l6-v2")
}

/// What to do with an int8 model's weights at load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// Expand to f32 once: fastest queries, four times the memory (90 MB of weights).
    Expand,
    /// Keep int8 (23 MB), dequantised as each query runs: for hosts with a memory limit
    /// (a Cloudflare isolate has 128 MB).
    KeepInt8,
}

pub struct Embedder {
    plan: std::sync::Arc<TypedRunnableModel>,
    tokenizer: Tokenizer,
    pub dim: usize,
}

impl Embedder {
    /// Load an ONNX sentence-embedding graph and its `tokenizer.json`.
    #[cfg(not(target_family = "wasm"))]
    pub fn load(model: &Path, tokenizer: &Path) -> Result<Embedder, EmbedError> {
        let tokenizer = Tokenizer::read(tokenizer)?;
        let bytes =
            std::fs::read(model).map_err(|e| EmbedError(format!("cannot read model {}: {e} (run `sift model fetch`)", model.display())))?;
        let in_file = |e: EmbedError| EmbedError(format!("{}: {e}", model.display()));
        // The file's bytes are freed once parsed, before tract copies the weights.
        let proto = Embedder::parse(&bytes).map_err(in_file)?;
        drop(bytes);
        Embedder::from_proto(proto, tokenizer, Weights::Expand).map_err(in_file)
    }

    /// Load from bytes (the wasm runtime fetches both files). Int8 weights stored as
    /// `DequantizeLinear` of constants are expanded to f32 once here, so each query runs
    /// the plain f32 graph (tract would otherwise dequantize on every call: 4.5× slower).
    pub fn from_bytes(model: &[u8], tokenizer: &[u8]) -> Result<Embedder, EmbedError> {
        Embedder::from_bytes_with(model, tokenizer, Weights::Expand)
    }

    /// Load from bytes, keeping int8 weights as they are or expanding them to f32.
    pub fn from_bytes_with(model: &[u8], tokenizer: &[u8], weights: Weights) -> Result<Embedder, EmbedError> {
        let tokenizer = Embedder::parse_tokenizer(tokenizer)?;
        let proto = Embedder::parse(model)?;
        Embedder::from_proto(proto, tokenizer, weights)
    }

    /// Like [`Embedder::from_bytes_with`], freeing the file's bytes once they are parsed: a
    /// lower peak of memory where it counts (a worker's wasm memory never shrinks).
    pub fn from_vec_with(model: Vec<u8>, tokenizer: &[u8], weights: Weights) -> Result<Embedder, EmbedError> {
        let tokenizer = Embedder::parse_tokenizer(tokenizer)?;
        let proto = Embedder::parse(&model)?;
        drop(model);
        Embedder::from_proto(proto, tokenizer, weights)
    }

    fn parse(model: &[u8]) -> Result<tract_onnx::pb::ModelProto, EmbedError> {
        tract_onnx::onnx()
            .proto_model_for_read(&mut &model[..])
            .map_err(|e| EmbedError(format!("the model is not a readable ONNX file: {e}")))
    }

    fn parse_tokenizer(tokenizer: &[u8]) -> Result<Tokenizer, EmbedError> {
        Tokenizer::from_json(tokenizer).map_err(|e| EmbedError(format!("tokenizer.json: {e}")))
    }

    fn from_proto(mut proto: tract_onnx::pb::ModelProto, tokenizer: Tokenizer, weights: Weights) -> Result<Embedder, EmbedError> {
        let onnx = tract_onnx::onnx();
        if let Some(graph) = proto.graph.as_mut() {
            // Embedding tables stay int8 in both modes: only the rows a query reads are
            // dequantized (a 47 MB f32 table otherwise).
            crate::dequantize::gather_before_dequantize(graph)?;
            if weights == Weights::Expand {
                crate::dequantize::fold_constant_dequantize(graph)?;
            }
        }
        let err = |e: TractError| EmbedError(format!("the model cannot be loaded: {e}"));
        let mut model = onnx.model_for_proto_model(&proto).map_err(err)?;
        // The parsed file's weights are copied into the model: free them before the optimiser
        // makes its own (wasm memory never shrinks, so the peak is what a worker keeps).
        drop(proto);
        // Every input (the token ids, the attention mask) one sequence of `len` tokens.
        let len = model.symbols.sym("len");
        for input in 0..model.inputs.len() {
            let one = InferenceFact::dt_shape(i64::datum_type(), tvec!(1.to_dim(), len.to_dim()));
            model.set_input_fact(input, one).map_err(err)?;
        }
        let plan = model.into_optimized().and_then(|m| m.into_runnable()).map_err(err)?;
        let mut e = Embedder { plan, tokenizer, dim: 0 };
        e.dim = e.embed(&["probe"])?.first().map(Vec::len).unwrap_or(0);
        if e.dim == 0 {
            return Err(EmbedError("the model produced no embedding".into()));
        }
        Ok(e)
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// L2-normalised embeddings of `texts`, in order, each embedded alone.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts.iter().map(|t| self.embed_one(&self.tokenizer.encode(t))).collect()
    }

    /// The embedding of one tokenized text.
    pub fn embed_one(&self, ids: &[u32]) -> Result<Vec<f32>, EmbedError> {
        // An empty text is read as one padding token, as a batch padded it before.
        let input: Vec<i64> = if ids.is_empty() { vec![0] } else { ids.iter().map(|&id| i64::from(id)).collect() };
        let mask = vec![i64::from(!ids.is_empty()); input.len()];
        let err = |e: TractError| EmbedError(format!("embedding failed: {e}"));
        let input = Tensor::from_shape(&[1, input.len()], &input).map_err(err)?;
        let mask = Tensor::from_shape(&[1, mask.len()], &mask).map_err(err)?;
        let out = self.plan.run(tvec!(input.into_tvalue(), mask.into_tvalue())).map_err(err)?;
        let view = out[0].to_plain_array_view::<f32>().map_err(err)?;
        let shape = view.shape().to_vec();
        if shape.len() != 2 || shape[0] != 1 {
            return Err(EmbedError(format!("model output has shape {shape:?}, expected [1, dim]")));
        }
        if view.iter().any(|x| !x.is_finite()) {
            // Seen with tract's AMX bf16 kernel (`TRACT_AMX_BF16`) on some CPUs: every output
            // NaN. Such vectors would rank nothing; say so rather than build or time them.
            return Err(EmbedError(
                "the model's output holds NaN or infinite values (a matrix kernel this CPU runs wrongly, e.g. TRACT_AMX_BF16, or a damaged model file)".into(),
            ));
        }
        Ok(view.iter().copied().collect())
    }
}
