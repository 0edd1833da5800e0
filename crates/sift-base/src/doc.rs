//! The document model: what extractors hand the builder (`SourceDoc`, made of `Section`s).
//! What the bundle keeps of it for display is `bundle::docstore::StoredDoc`; what a client
//! reads back (`get_document`) is a `Document`.

use crate::json::{members, Fields, Json, JsonError, ToJson};
use std::collections::BTreeMap;

/// One section of a page: the text under a heading. The first section of a page may have no
/// heading (the introduction).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Section {
    pub heading: String,
    /// The heading's id, for deep links (`page.html#anchor`).
    pub anchor: Option<String>,
    pub text: String,
    /// The API entry this section defines, when its generator marks one up
    /// (`os.getcwd`, `std::vec::Vec::with_capacity`): identifier queries find it first.
    pub symbol: Option<Symbol>,
}

/// A definition: an API entry's full path as its documentation writes it, and its kind as
/// the generator names it (`function`, `method`, `struct`, …).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Symbol {
    pub path: String,
    pub kind: String,
}

impl Section {
    /// A section as the document store and the contract write it (`heading`, `anchor`,
    /// `symbol` and `kind` only when present).
    pub fn from_json(v: &Json) -> Result<Section, JsonError> {
        let f = Fields::of(v, "section", None)?;
        Ok(Section {
            heading: f.opt_str("heading")?.unwrap_or_default(),
            anchor: f.opt_str("anchor")?,
            text: f.opt_str("text")?.unwrap_or_default(),
            symbol: match f.opt_str("symbol")? {
                Some(path) => Some(Symbol { path, kind: f.opt_str("kind")?.unwrap_or_default() }),
                None => None,
            },
        })
    }
}

impl ToJson for Section {
    fn to_json(&self) -> Json {
        members(vec![
            ("heading", Json::from(&self.heading), !self.heading.is_empty()),
            ("anchor", Json::from(self.anchor.clone()), self.anchor.is_some()),
            ("text", Json::from(&self.text), true),
            ("symbol", Json::from(self.symbol.as_ref().map(|s| s.path.clone())), self.symbol.is_some()),
            ("kind", Json::from(self.symbol.as_ref().map(|s| s.kind.clone())), self.symbol.is_some()),
        ])
    }
}

/// A document as an extractor hands it to the index builder.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceDoc {
    pub id: String,
    pub url: String,
    pub title: String,
    /// Words of the path/file name (`guides/mcp-server.md`) for the path field.
    pub path: String,
    pub sections: Vec<Section>,
    /// Metadata: every value is a list of strings (one value is a list of one).
    pub metadata: BTreeMap<String, Vec<String>>,
    /// ISO date, if the source had one.
    pub date: Option<String>,
    /// Share of the page's main text that is not prose (0..1): link text (navigation pages,
    /// generated indexes, are mostly links) or a code listing (a source page). 0 when
    /// unknown (Markdown, JSONL).
    pub link_density: f32,
    /// What the page's HTML says about its own indexing. Build time only: not stored.
    pub annotations: Annotations,
}

/// A page's indexing annotations (`data-sift-*`, or Pagefind's `data-pagefind-*` with the
/// same meaning), as far as the builder needs them after extraction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    /// Whether the page marks its indexed content (`data-sift-body`): once any page of a
    /// site does, the pages that do not are left out. None: not an HTML page.
    pub body: Option<bool>,
    /// Metadata fields the page tags as filters (`data-sift-filter`): always filterable.
    pub filters: Vec<String>,
    /// Stretches of section text whose words count more or less (`data-sift-weight`).
    pub weighted: Vec<Weighted>,
    /// Sort keys the page tags other than `date` (which sets the page's date): results
    /// sort by relevance or date only, so the build says they are not used.
    pub sorts: Vec<String>,
}

/// Bytes `start..end` of section `section`'s text, weighted `weight` (0 to 10). An
/// occurrence there counts `weight²` times toward its term's frequency, as Pagefind's
/// quadratic weights do: 2 counts 4 times, 10 a hundred times, 0.5 a quarter. Frequencies
/// are stored as whole numbers: a page's sum is rounded, and a word the page has only in
/// light stretches still counts once (it matches, and weighs least).
#[derive(Debug, Clone, PartialEq)]
pub struct Weighted {
    pub section: usize,
    pub start: usize,
    pub end: usize,
    pub weight: f32,
}

impl Weighted {
    /// What an occurrence counts.
    pub fn count(weight: f32) -> f32 {
        weight * weight
    }

    /// Per-field sums of counts as the whole frequencies a posting stores: rounded, and at
    /// least 1 in the field with the most when all would round to 0.
    pub fn whole<const N: usize>(sums: [f32; N]) -> [u32; N] {
        let mut tf = sums.map(|s| s.round() as u32);
        if tf.iter().all(|&t| t == 0) {
            let best = (0..sums.len()).max_by(|&a, &b| sums[a].total_cmp(&sums[b])).unwrap_or(0);
            tf[best] = 1;
        }
        tf
    }
}

/// A page as `get_document` returns it: its sections in order, with their headings and
/// anchors (`url#anchor` deep-links to a section). Strings are plain text.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub id: String,
    pub url: String,
    pub title: String,
    pub metadata: BTreeMap<String, Vec<String>>,
    pub date: Option<String>,
    pub sections: Vec<Section>,
}

impl ToJson for Document {
    fn to_json(&self) -> Json {
        members(vec![
            ("id", Json::from(&self.id), true),
            ("url", Json::from(&self.url), true),
            ("title", Json::from(&self.title), true),
            ("metadata", Json::from(&self.metadata), !self.metadata.is_empty()),
            ("date", Json::from(self.date.clone()), self.date.is_some()),
            ("sections", self.sections.to_json(), true),
        ])
    }
}
