//! Text analysis: what makes a bundle's terms from a page and a query's terms from what was
//! typed. The builder and the engine run this same code, so they cannot disagree.
//!
//! - [`analyzer`]: words (over [`wordbreak`], UAX #29), compounds split and kept joined,
//!   folding (over [`decompose`] and [`charclass`]), stemming and stop words per language,
//!   CJK and Thai bigrams;
//! - [`symbol`]: the keys an API entry's path is found by (`vec.with_capacity.`);
//! - [`wordpiece`]: BERT's WordPiece, the static encoder's tokens.
//!
//! Pure Rust without I/O: it builds for native targets and `wasm32-unknown-unknown`.

#[macro_use]
extern crate sift_base;

pub mod analyzer;
pub mod charclass;
pub mod decompose;
pub mod symbol;
pub mod wordbreak;
pub mod wordpiece;
