//! Sift's engine core: analysis, index building, the bundle format, query parsing,
//! ranking, typo tolerance, filters and facets, snippets, fallback and multi-search.
//! Pure Rust without I/O: it builds for native targets and `wasm32-unknown-unknown`.
//!
//! Surfaces (the CLI, the wasm runtime, the fuzz targets) use the items re-exported here:
//! build a bundle (`build`), open it (`Engine`), answer the JSON contract (`contract`).

/// An error message's text: the literal with each `{}` replaced by the next argument (a
/// `text::Arg`: text, integers, `Quoted`), written without `core::fmt` so that every runtime,
/// the browser engines too, carries its errors' texts at little cost.
macro_rules! msg {
    ($text:literal $(, $arg:expr)* $(,)?) => {
        $crate::text::fill($text, &[$(&$arg as &dyn $crate::text::Arg),*])
    };
}

pub mod analyzer;
pub mod builder;
pub mod bundle;
pub mod charclass;
pub mod chunk;
pub mod contract;
pub mod date;
pub mod decompose;
pub mod doc;
mod engine;
pub mod error;
pub mod fuzzy;
pub mod hashing;
pub mod json;
pub mod query;
pub mod rank;
pub mod semantic;
pub mod snippet;
pub mod text;
pub mod wordbreak;

pub use builder::{build, BuildOptions, BuiltBundle};
pub use contract::{Document, MultiSearchRequest, MultiSearchResponse, SearchRequest, SearchResponse};
pub use doc::{Section, SourceDoc};
pub use engine::{Context, Engine, Step, RRF_K};
pub use error::SiftError;
pub use semantic::layout::{EncoderInput, SemanticInput};

/// Build a bundle in memory and open an engine over it with every shard loaded: the
/// shortest path from documents to answers (tests, small embedded corpora).
pub fn engine_from_docs(docs: &[SourceDoc], opts: &BuildOptions) -> Result<Engine, SiftError> {
    let built = build(docs, opts)?;
    let mut eng = Engine::new(&built.manifest_bytes())?;
    for (name, bytes) in &built.shards {
        eng.add_shard(name, bytes)?;
    }
    Ok(eng)
}
