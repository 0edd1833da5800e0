//! The fields BM25F scores (title, URL path, headings, body) and its parameters, which a
//! bundle records in its manifest: the builder lays positions out field by field, the
//! engine scores with them.

pub const FIELD_TITLE: usize = 0;
pub const FIELD_PATH: usize = 1;
pub const FIELD_HEADINGS: usize = 2;
pub const FIELD_BODY: usize = 3;
pub const N_FIELDS: usize = 4;
pub const FIELD_NAMES: [&str; N_FIELDS] = ["title", "path", "headings", "body"];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25fParams {
    pub k1: f32,
    /// Length normalisation per field (0 = none, 1 = full).
    pub b: [f32; N_FIELDS],
    /// Field weights: a title or file-name match counts this many body occurrences.
    pub weight: [f32; N_FIELDS],
}

impl Default for Bm25fParams {
    fn default() -> Self {
        Bm25fParams { k1: 1.5, b: [0.5, 0.5, 0.6, 0.75], weight: [3.0, 3.0, 2.0, 1.0] }
    }
}
