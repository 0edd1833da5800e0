//! The document model: what extractors produce (`SourceDoc`) and what the bundle's document
//! store keeps for display (`StoredDoc`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One section of a page: the text under a heading. The first section of a page may have no
/// heading (the introduction).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Section {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub heading: String,
    /// The heading's id, for deep links (`page.html#anchor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    #[serde(default)]
    pub text: String,
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
}

/// A document as the bundle's document store keeps it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StoredDoc {
    pub id: String,
    pub url: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default)]
    pub sections: Vec<Section>,
    /// Where each section starts in the document's position space (the index's layout),
    /// so result building can find the matching sections from postings without
    /// re-analysing the page.
    #[serde(rename = "sp", default, skip_serializing_if = "Vec::is_empty")]
    pub section_pos: Vec<u32>,
}

impl StoredDoc {
    /// The page's text, sections joined with their headings.
    pub fn content(&self) -> String {
        let mut s = String::new();
        for sec in &self.sections {
            if !sec.heading.is_empty() {
                if !s.is_empty() {
                    s.push_str("\n\n");
                }
                s.push_str(&sec.heading);
                s.push('\n');
            } else if !s.is_empty() {
                s.push_str("\n\n");
            }
            s.push_str(&sec.text);
        }
        s
    }

    /// `type` lives in metadata (so it filters like any field) but the contract shows it at
    /// the top of a result.
    pub fn doc_type(&self) -> Option<&str> {
        self.metadata.get("type").and_then(|v| v.first()).map(String::as_str)
    }
}
