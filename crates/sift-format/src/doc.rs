//! The document model: what extractors hand the builder (`SourceDoc`, made of `Section`s).
//! What the bundle keeps of it for display is `bundle::docstore::StoredDoc`; what a client
//! reads back (`get_document`) is a `Document`.

use crate::json::{members, Fields, Json, ToJson};
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
    pub fn from_json(v: &Json) -> Result<Section, String> {
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
