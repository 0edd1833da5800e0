//! The document store, and the one position layout that the index and the store share.
//!
//! Payload: JSON, `{"shard": n, "docs": [...]}`, the [`StoredDoc`]s of the contiguous
//! doc-number range the manifest gives (deflate makes JSON nearly as small as a custom
//! layout, and keeps the store readable with standard tools). Doc shards are named by rule
//! and listed without a checksum each, so a shard names its own place `n` in the store, and
//! one served under another's name is refused. Each document is an object `{id, url,
//! title, metadata?, date?, sections, sp?, labels?, continues?}` (members absent when empty;
//! `continues`: the part goes on from the one before, see [`super::partition`]).
//!
//! # The position layout
//! Every token of a document has a position in one space: the title, then the path, then
//! each section's heading and body, each field starting [`POSITION_GAP`] after the previous
//! one ends, so no phrase or proximity match crosses a boundary. Postings store positions in
//! this space; the store records where each section starts (`sp`), so result building finds
//! the matching sections — and the best snippet window inside them — from the postings'
//! positions, analysing only the chosen sections and only up to the window.
//! [`visit_doc_fields`] (indexing) and [`body_start`] (results) are its only definitions;
//! a page in parts moves its sections onto a grid of windows afterwards
//! ([`super::partition`]).

use crate::fields;
use sift_base::doc::{Section, SourceDoc};
use sift_base::error::Quoted;
use sift_base::error::SiftError;
use sift_base::json::{self, Fields, Json, JsonError, ToJson};
use sift_text::analyzer::{self, Analyzer, Token};
use std::collections::BTreeMap;

/// Positions left empty between fields and between sections.
pub const POSITION_GAP: u32 = 8;

/// A document as the bundle's document store keeps it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredDoc {
    pub id: String,
    pub url: String,
    pub title: String,
    pub metadata: BTreeMap<String, Vec<String>>,
    pub date: Option<String>,
    pub sections: Vec<Section>,
    /// Where each section starts in the document's position space (the index's layout),
    /// so result building can find the matching sections from postings without
    /// re-analysing the page.
    pub section_pos: Vec<u32>,
    /// In a part of a long page ([`StoredDoc::part`]): what each of the part's
    /// sections is called as a sub-result, worked out over the whole page (a repeated
    /// heading is told apart by the item it sits under, which may be in an earlier part).
    /// Empty when every label is the heading itself.
    pub labels: Vec<String>,
    /// In a part of a long page: the part's first section goes on from the part
    /// before it — a further piece of a section cut where a window ends ([`super::partition`]),
    /// stored without its heading (its start, `sp`, is its first token's position) and
    /// shown as its section (label and anchor) in sub-results.
    pub continues: bool,
}

impl StoredDoc {
    /// The text of the page that searches analyse (relevance feedback, the fold table's
    /// check): title, then each section's heading and text.
    pub fn analysed_text(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.title.as_str()).chain(self.sections.iter().flat_map(|s| [s.heading.as_str(), s.text.as_str()]))
    }

    /// The payload of doc shard `shard` of its store.
    pub fn encode(docs: &[StoredDoc], shard: u32) -> Vec<u8> {
        Json::obj([("shard", Json::from(shard)), ("docs", docs.to_json())]).to_text().into_bytes()
    }

    /// Doc shard `shard` of its store, holding `expected` documents; the payload must name
    /// the same place.
    pub fn decode(payload: &[u8], expected: u32, shard: u32) -> Result<Vec<StoredDoc>, SiftError> {
        let corrupt = |e: JsonError| SiftError::corrupt(msg!("document store: {}", e));
        let v = json::parse(payload).map_err(corrupt)?;
        let f = Fields::of(&v, "doc shard", Some(&["shard", "docs"])).map_err(corrupt)?;
        let named = f.uint("shard", u64::from(u32::MAX)).map_err(corrupt)?;
        if named != u64::from(shard) {
            return Err(SiftError::corrupt(msg!(
                "document store: shard {} holds shard {}'s documents (served under another shard's name)",
                shard,
                named
            )));
        }
        let items = match f.need("docs").map_err(corrupt)? {
            Json::Arr(items) => items,
            v => return Err(corrupt(msg!("a shard's docs must be an array of documents, not {}", v.kind()).into())),
        };
        let docs: Vec<StoredDoc> =
            items.iter().map(StoredDoc::from_json).collect::<Result<_, _>>().map_err(|e: String| corrupt(e.into()))?;
        if docs.len() != expected as usize {
            return Err(SiftError::corrupt("document store shard holds the wrong number of documents"));
        }
        Ok(docs)
    }

    fn from_json(v: &Json) -> Result<StoredDoc, String> {
        let f = Fields::of(v, "document", None)?;
        let metadata = match f.get("metadata") {
            None => BTreeMap::new(),
            Some(Json::Obj(m)) => {
                // Inserted, not collected (collect::facets says why).
                let mut out = BTreeMap::new();
                for (k, v) in m {
                    let Json::Arr(vals) = v else {
                        return Err(msg!("metadata {} must be an array of strings", Quoted(k)));
                    };
                    out.insert(k.clone(), vals.iter().map(|x| json::string_in(x, "a metadata value")).collect::<Result<_, _>>()?);
                }
                out
            }
            Some(v) => return Err(msg!("metadata must be an object, not {}", v.kind())),
        };
        Ok(StoredDoc {
            id: f.str("id")?,
            url: f.str("url")?,
            title: f.str("title")?,
            metadata,
            date: f.opt_str("date")?,
            sections: f.list("sections", Section::from_json)?,
            section_pos: f
                .list("sp", |x| json::as_u64(x).and_then(|p| u32::try_from(p).ok()).ok_or_else(|| msg!("sp must hold positions")))?,
            labels: match f.get("labels") {
                None => Vec::new(),
                Some(_) => f.list("labels", |x| json::string_in(x, "a section label"))?,
            },
            continues: f.opt_bool("continues")?.unwrap_or(false),
        })
    }

    /// What each section is called as a sub-result. A heading the page repeats ("Examples"
    /// under every method of an API page, "Parameters" under every function) is told apart
    /// by the nearest heading before it that the page does not repeat — the item it sits
    /// under: `entry › Examples`. A part of a long page carries the labels the whole page
    /// gave its sections.
    pub fn section_labels(&self) -> Vec<String> {
        if self.labels.len() == self.sections.len() {
            return self.labels.clone();
        }
        labels_of(&self.sections)
    }

    /// The part of this page holding sections `range`: the page's
    /// fields, those sections, and their labels as the whole page gives them.
    pub fn part(&self, range: std::ops::Range<usize>, labels: &[String]) -> StoredDoc {
        let labels = &labels[range.clone()];
        let named = labels.iter().zip(&self.sections[range.clone()]).any(|(l, s)| *l != s.heading);
        let mut part = self.clone_fields();
        part.sections = self.sections[range.clone()].to_vec();
        part.section_pos = self.section_pos.get(range).map(<[u32]>::to_vec).unwrap_or_default();
        if named {
            part.labels = labels.to_vec();
        }
        part
    }

    /// A page put back together from its parts, in order: a piece that continues a
    /// section is joined back to it (the cut was after whitespace, so the text is whole again).
    pub fn join(parts: &[&StoredDoc]) -> StoredDoc {
        let mut whole = parts.first().map(|p| p.clone_fields()).unwrap_or_default();
        for p in parts {
            let skip = match (p.continues, p.sections.first(), whole.sections.last_mut()) {
                (true, Some(piece), Some(section)) => {
                    section.text.push_str(&piece.text);
                    1
                }
                _ => 0,
            };
            whole.sections.extend(p.sections.iter().skip(skip).cloned());
            whole.section_pos.extend(p.section_pos.iter().skip(skip));
        }
        whole
    }

    /// The page's own fields, without sections.
    pub(crate) fn clone_fields(&self) -> StoredDoc {
        StoredDoc {
            id: self.id.clone(),
            url: self.url.clone(),
            title: self.title.clone(),
            metadata: self.metadata.clone(),
            date: self.date.clone(),
            ..StoredDoc::default()
        }
    }

    /// Where section `i`'s body starts in the position space (after its heading's tokens
    /// and a gap), if the store knows where the section starts.
    pub fn body_start(&self, i: usize) -> Option<u32> {
        let start = *self.section_pos.get(i)?;
        Some(body_start(start, &self.sections.get(i)?.heading))
    }

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

    /// The contract's view of the page (no storage details).
    pub fn to_document(&self) -> sift_base::doc::Document {
        sift_base::doc::Document {
            id: self.id.clone(),
            url: self.url.clone(),
            title: self.title.clone(),
            metadata: self.metadata.clone(),
            date: self.date.clone(),
            sections: self.sections.clone(),
        }
    }

    /// `type` lives in metadata (so it filters like any field) but the contract shows it at
    /// the top of a result.
    pub fn doc_type(&self) -> Option<&str> {
        self.metadata.get("type").and_then(|v| v.first()).map(String::as_str)
    }
}

impl ToJson for StoredDoc {
    /// The contract's `Document` and, when known, where each section starts (`sp`).
    fn to_json(&self) -> Json {
        let mut doc = self.to_document().to_json();
        if !self.section_pos.is_empty() {
            doc.set("sp", Json::from(&self.section_pos[..]));
        }
        if !self.labels.is_empty() {
            doc.set("labels", Json::Arr(self.labels.iter().map(Json::from).collect()));
        }
        if self.continues {
            doc.set("continues", Json::Bool(true));
        }
        doc
    }
}

/// What each of a page's sections is called as a sub-result ([`StoredDoc::section_labels`]).
pub fn labels_of(sections: &[Section]) -> Vec<String> {
    // How often each section's heading occurs in the page (quadratic, but a page has at
    // most a few hundred sections, and a hash map would cost the browser engine its code).
    let heading = |i: usize| sections[i].heading.as_str();
    let n = sections.len();
    let counts: Vec<usize> = (0..n).map(|i| (0..n).filter(|&j| heading(j) == heading(i)).count()).collect();
    (0..n)
        .map(|i| {
            if counts[i] < 2 {
                return heading(i).to_string();
            }
            match (0..i).rev().find(|&j| !heading(j).is_empty() && counts[j] == 1).map(heading) {
                Some(parent) => [parent, " › ", heading(i)].concat(),
                None => heading(i).to_string(),
            }
        })
        .collect()
}

/// The position where a section's body starts, given where the section starts.
pub fn body_start(section_start: u32, heading: &str) -> u32 {
    if heading.is_empty() {
        return section_start;
    }
    analyzer::position_after(heading, section_start) + POSITION_GAP
}

/// Long texts are analysed this many bytes at a time (cut after whitespace, where no word
/// can span), so a huge page's tokens are never all in memory at once.
pub const ANALYSIS_PIECE_BYTES: usize = 64 << 10;

/// Where a piece of a field's text lies: its section (None for the title and path) and its
/// byte offset in the field's text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PieceAt {
    pub section: Option<usize>,
    pub offset: usize,
}

/// Walk a document's fields in index order — title, path, then each section's heading and
/// body — calling `f(field, text, tokens, at)` for each piece of at most about
/// `piece_bytes` of a field's text, with positions laid out in one space (the one
/// definition of the position layout; a page in parts moves its sections onto a grid
/// afterwards, see [`super::partition`]). Returns the position where each section starts,
/// and where the page's positions end.
pub fn visit_doc_fields(
    doc: &SourceDoc,
    analyzer: &Analyzer,
    piece_bytes: usize,
    mut f: impl FnMut(usize, &str, &[Token], PieceAt),
) -> (Vec<u32>, u32) {
    let mut pos = 0u32;
    let mut buf = Vec::new();
    let mut push = |field: usize, text: &str, section: Option<usize>, pos: &mut u32| {
        let mut next = *pos;
        let mut offset = 0;
        for piece in pieces(text, piece_bytes) {
            buf.clear();
            next = analyzer.tokenize(piece, next, &mut buf);
            f(field, piece, &buf, PieceAt { section, offset });
            offset += piece.len();
        }
        *pos = next + POSITION_GAP;
    };
    push(fields::FIELD_TITLE, &doc.title, None, &mut pos);
    push(fields::FIELD_PATH, &doc.path, None, &mut pos);
    let mut starts = Vec::with_capacity(doc.sections.len());
    for (i, s) in doc.sections.iter().enumerate() {
        starts.push(pos);
        if !s.heading.is_empty() {
            push(fields::FIELD_HEADINGS, &s.heading, Some(i), &mut pos);
        }
        push(fields::FIELD_BODY, &s.text, Some(i), &mut pos);
    }
    (starts, pos)
}

/// `text` in consecutive pieces of about `size` bytes, each ending just after an ASCII
/// whitespace byte (or at the end): word segmentation never joins across whitespace, so
/// analysing the pieces one after another gives the same tokens as analysing the whole.
pub(crate) fn pieces(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = if rest.len() <= size {
            rest.len()
        } else {
            rest.as_bytes()[size..].iter().position(u8::is_ascii_whitespace).map(|i| size + i + 1).unwrap_or(rest.len())
        };
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (field, term, position, joined, the word as written) for every token of a document.
    fn tokens(doc: &SourceDoc, piece_bytes: usize) -> (Vec<(usize, String, u32, bool, String)>, Vec<u32>) {
        let mut out = Vec::new();
        let (starts, _) = visit_doc_fields(doc, Analyzer::english(), piece_bytes, |field, text, toks, _| {
            out.extend(toks.iter().map(|t| (field, t.term.clone(), t.pos, t.joined, text[t.start..t.end].to_string())));
        });
        (out, starts)
    }

    #[test]
    fn analysing_in_pieces_gives_the_same_tokens() {
        let text = "The StateMachine's state-machine\tparses os.path  and HTTP/2; naïve café\n日本語のテキスト も 検索 できます。 \
                    parseHTTPResponse token_refresh v1.2.3 — «quoted» e-mail\u{a0}nbsp 123 456 x";
        let doc = SourceDoc {
            id: "a".into(),
            title: "Title with state-machine".into(),
            path: "guides mcp server".into(),
            sections: vec![
                Section { heading: "".into(), anchor: None, text: text.repeat(3), symbol: None },
                Section { heading: "Heading two".into(), anchor: None, text: text.into(), symbol: None },
                Section { heading: "Empty".into(), anchor: None, text: String::new(), symbol: None },
            ],
            ..Default::default()
        };
        let whole = tokens(&doc, usize::MAX);
        assert!(whole.0.len() > 100);
        for size in [1, 2, 3, 7, 16, 64, 300] {
            assert_eq!(tokens(&doc, size), whole, "pieces of {size} bytes");
        }
    }

    #[test]
    fn body_start_is_where_the_indexed_body_begins() {
        let doc = SourceDoc {
            id: "a".into(),
            title: "A title".into(),
            path: "some path".into(),
            sections: vec![
                Section { heading: String::new(), anchor: None, text: "intro words".into(), symbol: None },
                Section { heading: "Heading of StateMachine".into(), anchor: None, text: "first body word".into(), symbol: None },
            ],
            ..Default::default()
        };
        let mut body_first = Vec::new();
        let (starts, _) = visit_doc_fields(&doc, sift_text::analyzer::Analyzer::english(), usize::MAX, |field, _, toks, _| {
            if field == fields::FIELD_BODY {
                body_first.push(toks[0].pos);
            }
        });
        let sd = StoredDoc { sections: doc.sections.clone(), section_pos: starts, ..Default::default() };
        assert_eq!((0..2).map(|i| sd.body_start(i).unwrap()).collect::<Vec<_>>(), body_first);
        assert_eq!(sd.body_start(2), None);
    }

    #[test]
    fn pieces_cover_the_text_and_end_after_whitespace() {
        let text = "ab cd\u{3000}ef gh\nij";
        let ps: Vec<&str> = pieces(text, 2).collect();
        assert_eq!(ps.concat(), text);
        assert!(ps[..ps.len() - 1].iter().all(|p| p.ends_with(|c: char| c.is_ascii_whitespace())), "{ps:?}");
        assert_eq!(pieces("", 4).count(), 0);
        assert_eq!(pieces("nowhitespace", 3).collect::<Vec<_>>(), ["nowhitespace"]);
    }
}
