//! The content walk: which elements are left out, where blocks break the text, and the
//! cuts into sections at headings and at API entries with ids (`<dt id>`).

use super::*;

const SKIP_TAGS: &[&str] =
    &["script", "style", "noscript", "template", "nav", "footer", "svg", "button", "form", "select", "iframe", "object", "canvas", "head"];
// (`rightside`, `out-of-band`: rustdoc's "source" link, version and `[−]` beside each
// item's heading and the page's; `hideme`: its "Expand description" toggles;
// `notable-traits`: its hover tooltip inside a method's heading, every impl of the return
// type — `fn from(..) -> Box<..>` would otherwise be labelled with Box's Iterator impls.)
// (`toc`, `list-of-…`: DocBook's tables of contents at the top of a page: they say every
// section's title, and so won a long page's best part for a query that is one of them;
// `table-of-contents`, `theme-doc-toc-…`: Docusaurus's, inside its `<main>`; with its "Edit
// this page", "Last updated" and version badge.)
// (`headerlink`, `hash-link`, `header-anchor`, `sl-anchor-link`, `anchor-link`,
// `td-heading-self-link`: the permalink beside a heading in Sphinx and MkDocs, Docusaurus,
// VitePress, Starlight, Jupyter and Docsy: a `¶`, a zero-width space or "Section titled …".)
const SKIP_CLASSES: &[&str] = &[
    "headerlink",
    "hash-link",
    "header-anchor",
    "sl-anchor-link",
    "anchor-link",
    "td-heading-self-link",
    "sidebar",
    "related",
    "sphinxsidebar",
    "toctree-wrapper",
    "breadcrumbs",
    "navigation",
    "rightside",
    "out-of-band",
    "hideme",
    "notable-traits",
    "toc",
    "table-of-contents",
    "theme-doc-toc-mobile",
    "theme-doc-toc-desktop",
    "theme-edit-this-page",
    "theme-last-updated",
    "theme-doc-version-badge",
    "list-of-tables",
    "list-of-figures",
    "list-of-examples",
];
const BLOCK_TAGS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "pre",
    "table",
    "tr",
    "td",
    "th",
    "br",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "figure",
    "figcaption",
    "hr",
    "header",
    "main",
    "aside",
];

fn heading_level(name: &str) -> Option<u8> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

/// The place an element marks for links: its id, or an `<a name>` (older generators).
fn anchor_of(el: &scraper::node::Element) -> Option<&str> {
    el.id().or_else(|| if el.name() == "a" { el.attr("name") } else { None }).filter(|a| !a.is_empty())
}

fn skipped(el: &scraper::node::Element) -> bool {
    SKIP_TAGS.contains(&el.name())
        || annotations::attr(el, "ignore").is_some()
        || el.attr("hidden").is_some()
        || el.attr("aria-hidden") == Some("true")
        || el.classes().any(|c| SKIP_CLASSES.contains(&c))
}

/// Walk the content iteratively (deeply nested pages must not overflow the stack) and cut
/// it into (section, heading level, the heading's node) at headings and at `<dt id>` API
/// entries. An entry ends with its `<dl>`: the text after it goes on with the section the
/// entry was in (its anchor, no heading, no node), not with the last entry of a list (a
/// module's prose after its functions is not its last function's). Several roots
/// (marked bodies) are walked in turn as one text. Weighted elements leave markers in the
/// text ([`annotations::take_weights`]).
pub(super) fn sections_of(roots: &[ElementRef], warnings: &mut Vec<String>) -> Vec<(Section, u8, Option<ego_tree::NodeId>)> {
    let mut out: Vec<(Section, u8, Option<ego_tree::NodeId>)> = vec![(Section::default(), 0, None)];
    // Open entry lists: (the `<dl>`, the section its entries are in).
    let mut lists: Vec<(ego_tree::NodeId, usize)> = Vec::new();
    // After a list closes: the section that goes on, started by the next text (none if a
    // heading or another entry comes first).
    let mut resume: Option<usize> = None;
    let mut skip_until: Option<ego_tree::NodeId> = None;
    // Inside a heading: (node, level, its id, text so far, the last anchor inside it).
    let mut in_heading: Option<(ego_tree::NodeId, u8, Option<String>, String, Option<String>)> = None;
    let mut pending_anchor: Option<String> = None;
    let mut body = String::new();
    let flush_body = |out: &mut Vec<(Section, u8, Option<ego_tree::NodeId>)>, body: &mut String, resume: &mut Option<usize>| {
        let t = collapse_ws(body);
        if !t.is_empty() {
            if let Some(within) = resume.take() {
                // Untitled: its heading is indexed and labelled once, where it stands.
                let (s, level, _) = &out[within];
                let goes_on = Section { heading: String::new(), anchor: s.anchor.clone(), text: String::new(), symbol: None };
                out.push((goes_on, *level, None));
            }
            let last = &mut out.last_mut().expect("never empty").0;
            if !last.text.is_empty() {
                last.text.push(' ');
            }
            last.text.push_str(&t);
        }
        body.clear();
    };
    // Elements whose weight marker is open, closed when they close.
    let mut weighted: Vec<ego_tree::NodeId> = Vec::new();
    for edge in roots.iter().flat_map(|r| r.traverse()) {
        match edge {
            Edge::Open(node) => {
                if skip_until.is_some() {
                    continue;
                }
                match node.value() {
                    Node::Element(el) => {
                        if skipped(el) {
                            skip_until = Some(node.id());
                            continue;
                        }
                        let name = el.name();
                        let api_entry = name == "dt" && el.id().is_some();
                        if in_heading.is_none() {
                            if let Some(level) = heading_level(name).or(if api_entry { Some(7) } else { None }) {
                                flush_body(&mut out, &mut body, &mut resume);
                                let within = resume.take().unwrap_or(out.len() - 1);
                                if let Some(dl) = node.parent().filter(|_| api_entry).map(|p| p.id()) {
                                    if lists.last().is_none_or(|l| l.0 != dl) {
                                        lists.push((dl, within));
                                    }
                                }
                                in_heading = Some((node.id(), level, el.id().map(str::to_string), String::new(), None));
                                continue;
                            }
                            if let Some(id) = anchor_of(el) {
                                if pending_anchor.is_none() {
                                    pending_anchor = Some(id.to_string());
                                }
                            }
                        } else if let (Some(h), Some(a)) = (in_heading.as_mut(), anchor_of(el)) {
                            // An anchor inside the heading (DocBook's `<h2><a id="x"/>Title</h2>`).
                            // The last one: an HTML parser reopens an `<a id>` left open (`<a/>` is
                            // no empty element) inside the next heading, before that one's own.
                            h.4 = Some(a.to_string());
                        }
                        if BLOCK_TAGS.contains(&name) {
                            match &mut in_heading {
                                Some(h) => h.3.push(' '),
                                None => body.push(' '),
                            }
                        }
                        for v in annotations::indexed_attrs(el) {
                            let to = match &mut in_heading {
                                Some(h) => &mut h.3,
                                None => &mut body,
                            };
                            to.push(' ');
                            to.push_str(&v);
                            to.push(' ');
                        }
                        // Weights apply to body text; a heading weighs as a heading.
                        match annotations::weight(el) {
                            Some(Ok(w)) if in_heading.is_none() => {
                                body.push(annotations::open_marker(w));
                                weighted.push(node.id());
                            }
                            Some(Err(why)) => warnings.push(why),
                            _ => {}
                        }
                    }
                    Node::Text(t) => match &mut in_heading {
                        Some(h) => h.3.push_str(t),
                        None => {
                            body.push_str(t);
                            if !t.trim().is_empty() {
                                pending_anchor = None;
                            }
                        }
                    },
                    _ => {}
                }
            }
            Edge::Close(node) => {
                if skip_until == Some(node.id()) {
                    skip_until = None;
                    continue;
                }
                if weighted.last() == Some(&node.id()) {
                    weighted.pop();
                    body.push(annotations::close_marker());
                }
                if in_heading.as_ref().is_some_and(|h| h.0 == node.id()) {
                    let (node_id, level, id, text, inner) = in_heading.take().expect("checked");
                    // The heading's own id first; else an anchor inside it; else an empty
                    // element's just before it (`<a id>`, an enclosing `<section id>`).
                    let anchor = id.or(inner).or(pending_anchor.take());
                    pending_anchor = None;
                    out.push((Section { heading: collapse_ws(&text), anchor, text: String::new(), symbol: None }, level, Some(node_id)));
                } else if lists.last().is_some_and(|l| l.0 == node.id()) {
                    flush_body(&mut out, &mut body, &mut resume);
                    resume = lists.pop().map(|l| l.1);
                } else if let Node::Element(el) = node.value() {
                    if BLOCK_TAGS.contains(&el.name()) && in_heading.is_none() {
                        body.push(' ');
                    }
                }
            }
        }
    }
    flush_body(&mut out, &mut body, &mut resume);
    out
}
