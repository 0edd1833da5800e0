//! The embedder: a WordPiece tokenizer that matches all-MiniLM-L6-v2's `tokenizer.json`
//! token for token, and (feature `tract`) the ONNX model run by tract, returning
//! L2-normalised sentence embeddings.

#[cfg(feature = "tract")]
pub mod convert;
#[cfg(feature = "tract")]
pub mod dequantize;
mod error;
#[cfg(feature = "tract")]
pub mod model;
pub mod tokenizer;

pub use error::EmbedError;
pub use tokenizer::Tokenizer;
