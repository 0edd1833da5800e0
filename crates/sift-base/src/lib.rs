//! What every Sift crate speaks, below the analysis, the format and the engine:
//!
//! - [`error`]: `SiftError` and the closed list of error codes;
//! - [`text`] and [`msg!`]: error messages filled in without `core::fmt`, so every runtime,
//!   the browser engines too, carries its errors' texts at little cost;
//! - [`json`]: JSON values, read and written (the contract, the doc store's pages);
//! - [`doc`]: a source document (what extraction makes and the builder takes);
//! - [`date`]: civil dates as days;
//! - [`hashing`]: the small fast hasher of the query path's maps;
//! - [`varint`] and [`crc32`]: the integer codecs and the checksum every payload and every
//!   generated table uses.
//!
//! Pure Rust without I/O: it builds for native targets and `wasm32-unknown-unknown`.

/// An error message's text: the literal with each `{}` replaced by the next argument (a
/// `text::Arg`: text, integers, `Quoted`), written without `core::fmt`.
#[macro_export]
macro_rules! msg {
    ($text:literal $(, $arg:expr)* $(,)?) => {
        $crate::text::fill($text, &[$(&$arg as &dyn $crate::text::Arg),*])
    };
}

pub mod crc32;
pub mod date;
pub mod doc;
pub mod error;
pub mod hashing;
pub mod json;
pub mod text;
pub mod varint;

pub use doc::{Annotations, Section, SourceDoc, Symbol, Weighted};
pub use error::SiftError;
