//! Semantic search without a model at query time.
//!
//! Documents are embedded at build time by the bundle's model (all-MiniLM-L6-v2). Queries
//! are embedded by a *static encoder* fitted to the bundle: a table with one vector per
//! WordPiece token the corpus uses, living in the model's own output space (reduced to the
//! bundle's dimensions); a query vector is the normalised sum of its tokens' rows. Looking
//! up a few rows and adding them replaces running a transformer.
//!
//! This module fits the semantic half at build time: [`embed`] (what the model embeds, with
//! the store that caches it; [`cache`] that store on disk, one file per model), [`projection`] (the bundle's space),
//! [`ivf`] (the vector lists), [`fit`] (the static encoder, over [`linalg`]; [`encoder`] its
//! payloads), [`training`]
//! (its training texts), [`tokens`] (texts' token ids held compactly), [`layout`] (all of it as payloads); [`toy`] is a deterministic
//! stand-in model for tests. The query-time side is the engine's; the tokenizer
//! (`sift_text::wordpiece`) is shared.

pub mod cache;
pub mod embed;
pub mod encoder;
pub mod fit;
pub mod ivf;
pub mod layout;
pub mod linalg;
pub mod projection;
pub mod tokens;
pub mod toy;
pub mod training;
