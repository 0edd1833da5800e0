//! Sift's bundle format: what `sift build` writes and every runtime reads.
//!
//! - [`bundle`]: the manifest and each artifact's payload, its writer beside its reader;
//! - the analysis that makes a bundle's terms ([`analyzer`], over [`charclass`],
//!   [`decompose`] and [`wordbreak`]) and the static encoder's tokens ([`wordpiece`]): the
//!   builder and the engine run the same code, so a query's terms are the pages' terms;
//! - what every surface speaks: [`json`], [`error`] (the closed list of error codes),
//!   [`doc`] (a source document), [`date`], [`fields`] (the BM25F fields and parameters).
//!
//! Pure Rust without I/O: it builds for native targets and `wasm32-unknown-unknown`.

/// An error message's text: the literal with each `{}` replaced by the next argument (a
/// `text::Arg`: text, integers, `Quoted`), written without `core::fmt` so that every runtime,
/// the browser engines too, carries its errors' texts at little cost.
#[macro_export]
macro_rules! msg {
    ($text:literal $(, $arg:expr)* $(,)?) => {
        $crate::text::fill($text, &[$(&$arg as &dyn $crate::text::Arg),*])
    };
}

pub mod analyzer;
pub mod bundle;
pub mod charclass;
pub mod date;
pub mod decompose;
pub mod doc;
pub mod error;
pub mod fields;
pub mod hashing;
pub mod json;
pub mod symbol;
pub mod text;
pub mod wordbreak;
pub mod wordpiece;

pub use doc::{Annotations, Section, SourceDoc, Symbol, Weighted};
pub use error::SiftError;
