//! The hash maps of the query path, keyed by the Fx hash (rustc-hash: the one rustc and
//! Firefox use) instead of std's randomly keyed SipHash-1-3.
//!
//! Why: the engine's maps are keyed by document numbers, terms and file names of a bundle
//! and a query, small sets that no one can grow on the server's behalf (a query's terms are
//! bounded by the request limits), so flooding resistance buys nothing, and SipHash with its
//! per-map random keys costs the browser runtime code and the scoring accumulators time.
//! Nothing may rely on the maps' iteration order: answers are sorted.

pub use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
