//! HTML pages of a built static site: find the main content (`<main>`, `[role=main]`,
//! `<article>`, Sphinx's `div.body`, or a caller's selector), drop navigation and scripts,
//! and cut it into sections at headings — and at API entries with ids (`<dt id>`), so a
//! result can deep-link to `os.html#os.getcwd`.

use crate::annotations;
use crate::api::PageApi;
use crate::{collapse_ws, decode_text, folder_of, path_words, ExtractError};
use ego_tree::iter::Edge;
use scraper::{ElementRef, Html, Node, Selector};
use sift_base::{Annotations, Section, SourceDoc, Weighted};
use std::collections::BTreeMap;

#[derive(Default)]
pub struct HtmlOptions {
    /// CSS selector of the main content; tried before the built-in ones.
    pub selector: Option<String>,
    /// Prepended to the relative path to form the URL (`/docs/`).
    pub base_url: String,
    /// Index pages marked `<meta name="robots" content="noindex">` too (a staging site
    /// marks every page so); by default they are left out, as search engines leave them.
    pub index_noindex: bool,
}

const MAIN_SELECTORS: &[&str] = &["main", "[role=main]", "article", "div.body", "#content", "body"];
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
const SKIP_META: &[&str] =
    &["viewport", "generator", "theme-color", "color-scheme", "robots", "referrer", "format-detection", "google-site-verification"];
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

/// Whether a robots directive (`noindex, follow`, `none`) keeps the page out of indexes.
fn robots_forbid_indexing(content: &str) -> bool {
    content.split(',').map(str::trim).any(|d| d.eq_ignore_ascii_case("noindex") || d.eq_ignore_ascii_case("none"))
}

/// Extract one page. `rel_path` is the page's path relative to the site root.
pub fn extract(bytes: &[u8], rel_path: &str, opts: &HtmlOptions) -> Result<(SourceDoc, Vec<String>), ExtractError> {
    let mut warnings = Vec::new();
    let (text, warn) = decode_text(bytes, rel_path)?;
    warnings.extend(warn);
    let depth = nesting_depth(text.as_bytes());
    if depth > MAX_NESTING {
        return Err(ExtractError::Skip(format!(
            "{rel_path}: elements nested about {depth} deep (over {MAX_NESTING}); the HTML parser slows down quadratically on such pages, so it is skipped"
        )));
    }
    let html = Html::parse_document(&text);

    let mut metadata: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut date = None;
    let meta_sel = Selector::parse("meta[name][content], meta[property][content]").expect("static selector");
    for m in html.select(&meta_sel) {
        let el = m.value();
        let name = el.attr("name").or_else(|| el.attr("property")).unwrap_or("").trim().to_ascii_lowercase();
        let content = collapse_ws(el.attr("content").unwrap_or(""));
        if name == "robots" && !opts.index_noindex && robots_forbid_indexing(&content) {
            return Err(ExtractError::NoIndex);
        }
        if name.is_empty() || content.is_empty() || SKIP_META.contains(&name.as_str()) {
            continue;
        }
        match name.as_str() {
            "date" | "article:published_time" | "dc.date" | "last-modified" | "article:modified_time" => {
                date.get_or_insert(content);
            }
            "keywords" | "tags" | "article:tag" => {
                for t in content.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                    metadata.entry("tags".into()).or_default().push(t.to_string());
                }
            }
            _ => metadata.entry(name).or_default().push(content),
        }
    }
    if let Some(lang) = html.root_element().value().attr("lang").map(str::trim).filter(|l| !l.is_empty()) {
        metadata.entry("language".into()).or_default().push(lang.to_string());
    }
    if let Some(folder) = folder_of(rel_path) {
        metadata.insert("folder".into(), vec![folder]);
    }

    let first = |css: &str| Selector::parse(css).ok().and_then(|s| html.select(&s).next());
    let first_text = |css: &str| first(css).map(|e| collapse_ws(&e.text().collect::<String>())).unwrap_or_default();
    let page_title = first_text("title");
    let body_class = first("body").and_then(|b| b.value().attr("class")).unwrap_or("");
    // The content the page marks for indexing (`data-sift-body`, several joined), else
    // the main content found by selector.
    let marked = annotations::bodies(&html);
    let body_marked = !marked.is_empty();
    let roots: Vec<ElementRef> = if body_marked { marked } else { find_main(&html, opts.selector.as_deref()).into_iter().collect() };
    let root = roots.first().copied();
    // A source listing weighs like navigation: it is where an identifier occurs most often,
    // and the least what a reader looking one up wants (rustdoc marks its `src/` pages).
    let source_page = body_class.split_whitespace().any(|c| c == "source");
    let link_density = if source_page || root.is_some_and(is_listing) { 1.0 } else { root.map_or(0.0, link_density) };
    let mut sections = sections_of(&roots, &mut warnings);
    // The title: the main content's first h1, else <title>, else the file name.
    let h1 = sections.iter().position(|s| s.1 == 1);
    // API entries: which sections define an identifier (the page's generator and the item
    // it documents decide how its headings' ids read).
    let generator = first("meta[name=generator][content]").and_then(|m| m.value().attr("content")).unwrap_or("");
    let package = first_text("div.sub-title, div.header .sub-title");
    let package = package.strip_prefix("Package ").unwrap_or("");
    let h1_text = h1.map(|i| sections[i].0.heading.clone()).unwrap_or_default();
    let api = PageApi::new(body_class, generator, &h1_text, package);
    for s in sections.iter_mut() {
        if let Some(h) = s.2.and_then(|n| html.tree.get(n)).and_then(ElementRef::wrap) {
            s.0.symbol = api.entry(h, s.0.anchor.as_deref(), &s.0.heading);
        }
    }
    // The page's own item is defined at its top: its link is the page itself.
    if let (Some(item), Some(s)) = (api.page_item(), sections.get_mut(h1.unwrap_or(0))) {
        if s.0.symbol.is_none() {
            s.0.symbol = Some(item);
            s.0.anchor = None;
        }
    }
    let title = match h1 {
        Some(i) if !sections[i].0.heading.is_empty() => {
            let t = sections[i].0.heading.clone();
            sections[i].0.heading.clear(); // the title field already holds it
            t
        }
        _ if !page_title.is_empty() => page_title,
        _ => rel_path.rsplit('/').next().unwrap_or(rel_path).to_string(),
    };
    let mut sections: Vec<Section> =
        sections.into_iter().map(|(s, _, _)| s).filter(|s| !s.text.is_empty() || !s.heading.is_empty() || s.symbol.is_some()).collect();
    // Weighted stretches: the markers `sections_of` left in the text become byte ranges.
    let weighted = annotations::take_weights(&mut sections.iter_mut().map(|s| &mut s.text).collect::<Vec<_>>())
        .into_iter()
        .map(|(section, start, end, weight)| Weighted { section, start, end, weight })
        .collect();
    // Metadata, filters and sorts the page tags (anywhere in it, `<head>` included).
    let mut title = title;
    let mut ann = Annotations { body: Some(body_marked), weighted, ..Default::default() };
    let mut meta_seen = std::collections::BTreeSet::new();
    for c in annotations::captures(&html, "meta") {
        // One value per key, the first (as Pagefind keeps it); `title` names the result.
        if meta_seen.insert(c.key.clone()) {
            if c.key == "title" {
                title = c.value;
            } else {
                metadata.insert(c.key, vec![c.value]);
            }
        }
    }
    for c in annotations::captures(&html, "filter") {
        let values = metadata.entry(c.key.clone()).or_default();
        if !values.contains(&c.value) {
            values.push(c.value);
        }
        if !ann.filters.contains(&c.key) {
            ann.filters.push(c.key);
        }
    }
    for c in annotations::captures(&html, "sort") {
        if c.key == "date" {
            date = Some(c.value);
        } else if !ann.sorts.contains(&c.key) {
            ann.sorts.push(c.key);
        }
    }
    if sections.is_empty() && title.is_empty() {
        return Err(ExtractError::Skip(format!("{rel_path}: no text content; skipped")));
    }
    let doc = SourceDoc {
        id: rel_path.to_string(),
        url: format!("{}{}", opts.base_url, rel_path),
        title,
        path: path_words(rel_path),
        sections,
        metadata,
        date,
        link_density,
        annotations: ann,
    };
    Ok((doc, warnings))
}

/// The share of the main content's text (non-space characters) inside links: near 1 for a
/// generated index or a table of contents, near 0 for prose.
fn link_density(root: ElementRef) -> f32 {
    let chars = |t: &str| t.chars().filter(|c| !c.is_whitespace()).count();
    let total: usize = root.text().map(chars).sum();
    if total == 0 {
        return 0.0;
    }
    let a = Selector::parse("a[href]").expect("static selector");
    // Headerlinks ("¶") count too: one character a heading, nothing beside a page's text.
    let linked: usize = root.select(&a).flat_map(|e| e.text()).map(chars).sum();
    (linked as f32 / total as f32).min(1.0)
}

/// Whether the main content is a code listing: code blocks (`<pre>`) with at most a
/// heading's worth of prose around them (a twentieth of the text, or 80 characters). A
/// page of examples with prose between them (the Python docs' `email.examples`, 82% code)
/// is not: it is what its reader wants, and weighing it less cost the known-item
/// paraphrases.
fn is_listing(root: ElementRef) -> bool {
    let chars = |t: &str| t.chars().filter(|c| !c.is_whitespace()).count();
    let total: usize = root.text().map(chars).sum();
    let pre = Selector::parse("pre").expect("static selector");
    // Nested `pre`s are rare; the outermost counts once.
    let code: usize = root
        .select(&pre)
        .filter(|p| !p.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "pre"))
        .flat_map(|e| e.text())
        .map(chars)
        .sum();
    code > 0 && total - code.min(total) <= (total / 20).max(80)
}

/// Deeper than this, html5ever's open-element scans make parsing quadratic (100,000 nested
/// `<div>`s: 21 s); no real page comes near it.
const MAX_NESTING: usize = 25_000;

/// The deepest element nesting of a page, estimated from its tags without parsing: opening
/// tags count up and closing tags down; void elements, self-closing tags and elements
/// whose end tag is optional (`p`, `li`, …, closed implicitly by parsers) do not count.
fn nesting_depth(b: &[u8]) -> usize {
    const NO_DEPTH: &[&[u8]] = &[
        b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"source", b"track", b"wbr", b"p", b"li",
        b"dt", b"dd", b"tr", b"td", b"th", b"option", b"param",
    ];
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"<!--") {
            i = b[i..].windows(3).position(|w| w == b"-->").map_or(b.len(), |p| i + p + 3);
            continue;
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let name_start = i + 1 + usize::from(closing);
        let name_len = b[name_start.min(b.len())..].iter().take_while(|c| c.is_ascii_alphanumeric()).count();
        if name_len == 0 || !b[name_start].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let name = &b[name_start..name_start + name_len];
        let end = b[name_start..].iter().position(|&c| c == b'>').map_or(b.len(), |p| name_start + p);
        let self_closing = end > 0 && b.get(end - 1) == Some(&b'/');
        if !NO_DEPTH.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            if closing {
                depth = depth.saturating_sub(1);
            } else if !self_closing {
                depth += 1;
                max = max.max(depth);
            }
        }
        i = end.max(i + 1);
    }
    max
}

fn find_main<'a>(html: &'a Html, custom: Option<&str>) -> Option<ElementRef<'a>> {
    if let Some(sel) = custom.and_then(|c| Selector::parse(c).ok()) {
        if let Some(e) = html.select(&sel).next() {
            return Some(e);
        }
    }
    MAIN_SELECTORS.iter().filter_map(|s| Selector::parse(s).ok()).find_map(|s| html.select(&s).next())
}

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
fn sections_of(roots: &[ElementRef], warnings: &mut Vec<String>) -> Vec<(Section, u8, Option<ego_tree::NodeId>)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(html: &str) -> SourceDoc {
        extract(html.as_bytes(), "guide/page.html", &HtmlOptions::default()).unwrap().0
    }

    #[test]
    fn main_content_sections_and_anchors() {
        let d = ex(r##"<html lang="en"><head><title>Site — Page</title><meta name="description" content="About pages">
            <meta name="type" content="guide"></head><body>
            <nav>Home | Menu</nav>
            <main><h1>Install Guide<a class="headerlink" href="#x">¶</a></h1><p>Intro text.</p>
            <section id="linux"><h2>On Linux</h2><p>Use apt.</p><script>evil()</script></section>
            <h2 id="mac">On macOS</h2><p>Use brew.</p>
            <dl><dt id="os.getcwd">os.getcwd()</dt><dd>Return the cwd.</dd></dl></main>
            <footer>© 2024</footer></body></html>"##);
        assert_eq!(d.title, "Install Guide");
        assert_eq!(d.id, "guide/page.html");
        assert_eq!(d.metadata["type"], vec!["guide"]);
        assert_eq!(d.metadata["folder"], vec!["guide"]);
        assert_eq!(d.metadata["language"], vec!["en"]);
        let all: String = d.sections.iter().map(|s| format!("[{}#{:?}] {} ", s.heading, s.anchor, s.text)).collect();
        assert!(!all.contains("Menu") && !all.contains("evil") && !all.contains('¶') && !all.contains('©'), "{all}");
        let linux = d.sections.iter().find(|s| s.heading == "On Linux").unwrap();
        assert_eq!(linux.anchor.as_deref(), Some("linux"));
        assert_eq!(linux.text, "Use apt.");
        assert_eq!(d.sections.iter().find(|s| s.heading == "On macOS").unwrap().anchor.as_deref(), Some("mac"));
        let api = d.sections.iter().find(|s| s.heading == "os.getcwd()").unwrap();
        assert_eq!((api.anchor.as_deref(), api.text.as_str()), (Some("os.getcwd"), "Return the cwd."));
    }

    #[test]
    fn a_headings_permalink_is_no_text_whichever_generator_wrote_it() {
        let d = ex(r##"<html><body><main><h1>Guide</h1><p>Intro.</p>
            <h2 class="anchor" id="requirements">Requirements<a href="#requirements" class="hash-link" aria-label="Direct link to Requirements" title="Direct link to Requirements">&#8203;</a></h2><p>Node 18.</p>
            <h2 id="try-it" tabindex="-1">Try It Online <a class="header-anchor" href="#try-it" aria-label="Permalink to &quot;Try It Online&quot;">&#8203;</a></h2><p>In a browser.</p>
            <div class="sl-heading-wrapper level-h2"><h2 id="rotate">Rotate</h2><a class="sl-anchor-link" href="#rotate"><span aria-hidden="true" class="sl-anchor-icon"><svg></svg></span><span class="sr-only">Section titled “Rotate”</span></a></div><p>Turn it.</p>
            <h2 id="cells">Cells<a class="anchor-link" href="#cells">¶</a></h2><p>Run them.</p>
            </main></body></html>"##);
        let got: Vec<(&str, Option<&str>, &str)> =
            d.sections.iter().skip(1).map(|s| (s.heading.as_str(), s.anchor.as_deref(), s.text.as_str())).collect();
        assert_eq!(
            got,
            [
                ("Requirements", Some("requirements"), "Node 18."),
                ("Try It Online", Some("try-it"), "In a browser."),
                ("Rotate", Some("rotate"), "Turn it."),
                ("Cells", Some("cells"), "Run them.")
            ]
        );
    }

    #[test]
    fn docusauruss_tables_of_contents_and_page_tools_are_no_text() {
        let d = ex(r##"<html><body><main class="docMainContainer"><div class="row"><div class="col docItemCol">
            <span class="theme-doc-version-badge badge">Version: 3.1</span>
            <article><div class="theme-doc-toc-mobile tocCollapsible"><button>On this page</button><ul class="table-of-contents"><li><a href="#setup">Setup</a></li></ul></div>
            <div class="theme-doc-markdown markdown"><header><h1>Caching</h1></header><p>Keep answers.</p>
            <h2 class="anchor" id="setup">Setup<a href="#setup" class="hash-link">&#8203;</a></h2><p>Turn it on.</p></div>
            <div class="theme-doc-footer"><a href="https://x/edit" class="theme-edit-this-page">Edit this page</a><span class="theme-last-updated">Last updated on Jan 1</span></div></article>
            </div><div class="col col--3"><div class="tableOfContents theme-doc-toc-desktop"><ul class="table-of-contents"><li><a href="#setup">Setup</a></li></ul></div></div></div></main></body></html>"##);
        let got: Vec<(&str, &str)> = d.sections.iter().map(|s| (s.heading.as_str(), s.text.as_str())).collect();
        assert_eq!(got, [("", "Keep answers."), ("Setup", "Turn it on.")]);
    }

    #[test]
    fn a_heading_links_to_an_anchor_inside_it_before_it_or_on_its_section() {
        let d = ex(r##"<html><body><main><h1>Reference</h1>
            <div class="toc"><p><b>Table of Contents</b></p><dl><dt><a href="#_console_basics">1.1. Console basics</a></dt></dl></div>
            <div class="section"><div class="titlepage"><h2 class="title"><a id="_console_basics"></a>1.1. Console basics</h2></div><p>Shells.</p></div>
            <a name="legacy"></a><h2>Legacy anchor</h2><p>Old generators.</p>
            <section id="modern"><h2>Section id</h2><p>Sphinx.</p></section>
            <h2 id="own"><a id="inner"></a>Own id</h2><p>The heading's own id wins.</p>
            <h3 class="title"><a id="_unclosed_one"/>2.1. Unclosed one</h3><p>DocBook writes XHTML.</p>
            <h3 class="title"><a id="_unclosed_two"/>2.2. Unclosed two</h3><p>Parsed as HTML.</p>
            </main></body></html>"##);
        assert!(d.sections.iter().all(|s| !s.text.contains("Table of Contents")), "a table of contents is navigation");
        let anchors: Vec<(&str, Option<&str>)> =
            d.sections.iter().filter(|s| !s.heading.is_empty()).map(|s| (s.heading.as_str(), s.anchor.as_deref())).collect();
        assert_eq!(
            anchors,
            [
                ("1.1. Console basics", Some("_console_basics")),
                ("Legacy anchor", Some("legacy")),
                ("Section id", Some("modern")),
                ("Own id", Some("own")),
                ("2.1. Unclosed one", Some("_unclosed_one")),
                ("2.2. Unclosed two", Some("_unclosed_two"))
            ]
        );
    }

    #[test]
    fn sift_annotations_mark_the_body_ignore_weigh_and_tag_as_pagefind_s_do() {
        let page = r##"<html><head><title>T</title><meta data-sift-filter="author[content]" content="Ada" name="x-author"></head><body>
            <div>Outside the marked body.</div>
            <section data-sift-body><h1>Guide</h1><p>Intro <b data-sift-weight="3">heavy words</b> plain.</p>
              <aside data-sift-ignore>not indexed <span data-sift-meta="kept">still read</span></aside>
              <div data-sift-ignore="all"><span data-sift-filter="tag">Hidden</span></div>
              <img alt="Diagram of pipes" data-sift-index-attrs="alt,title">
              <p data-sift-weight="eleven">Bad weight.</p>
              <span data-sift-filter="tag">one</span><span data-sift-filter="tag">two</span>
              <i data-sift-sort="date:2024-05-06" data-sift-meta="summary:Short, with a comma"></i>
              <i data-sift-sort="priority:3"></i>
            </section>
            <section data-sift-body><h2>Second part</h2><p>Joined.</p></section></body></html>"##;
        let (d, warnings) = extract(page.as_bytes(), "g.html", &HtmlOptions::default()).unwrap();
        let text: String = d.sections.iter().map(|s| format!("{} {} ", s.heading, s.text)).collect();
        assert!(!text.contains("Outside") && !text.contains("not indexed") && !text.contains("Hidden"), "{text}");
        assert!(text.contains("Diagram of pipes") && text.contains("Joined."), "{text}");
        assert_eq!(d.annotations.body, Some(true));
        assert_eq!(d.metadata["author"], ["Ada"]);
        assert_eq!(d.metadata["tag"], ["one", "two"], "not the tag inside ignore=all");
        assert_eq!(d.metadata["kept"], ["still read"], "meta inside a plain ignore is read");
        assert_eq!(d.metadata["summary"], ["Short, with a comma"]);
        assert_eq!(d.annotations.filters, ["author", "tag"]);
        assert_eq!(d.date.as_deref(), Some("2024-05-06"));
        assert_eq!(d.annotations.sorts, ["priority"]);
        let w = &d.annotations.weighted;
        assert_eq!(w.len(), 1);
        assert_eq!(&d.sections[w[0].section].text[w[0].start..w[0].end], "heavy words");
        assert_eq!(w[0].weight, 3.0);
        assert!(d.sections.iter().all(|s| s.text.chars().all(|c| (c as u32) < 0xF0000)), "no markers left");
        assert!(warnings.iter().any(|w| w.contains("\"eleven\"") && w.contains("0 to 10")), "{warnings:?}");
        // The same page in Pagefind's spelling reads the same.
        let pf = extract(page.replace("data-sift-", "data-pagefind-").as_bytes(), "g.html", &HtmlOptions::default()).unwrap().0;
        assert_eq!((pf.sections, pf.metadata, pf.annotations), (d.sections, d.metadata, d.annotations));
        // A page without a marked body says so (the site may leave it out).
        assert_eq!(ex("<main><p>Plain.</p></main>").annotations.body, Some(false));
    }

    #[test]
    fn script_text_is_not_content_but_escaped_text_is_kept_verbatim() {
        let d = ex("<main><p>Write &lt;script&gt;alert(1)&lt;/script&gt; to test.</p><script>alert(2)</script></main>");
        let text = &d.sections[0].text;
        assert!(text.contains("<script>alert(1)</script>"), "text is plain text, escaped later: {text}");
        assert!(!text.contains("alert(2)"));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 20_000;
        let html = format!("<main>{}deep{}</main>", "<div>".repeat(depth), "</div>".repeat(depth));
        let d = ex(&html);
        assert!(d.sections.iter().any(|s| s.text.contains("deep")));
    }

    #[test]
    fn a_page_marked_noindex_is_left_out_unless_the_build_asks_for_it() {
        let page = |robots: &str| {
            format!("<html><head><meta name=\"robots\" content=\"{robots}\"></head><main><h1>T</h1><p>Text.</p></main></html>")
        };
        let plain = HtmlOptions::default();
        for robots in ["noindex", "noindex,follow", "NOINDEX, nofollow", "none"] {
            assert_eq!(extract(page(robots).as_bytes(), "p.html", &plain).err(), Some(ExtractError::NoIndex), "{robots}");
        }
        for robots in ["index, follow", "nofollow", "noarchive", ""] {
            assert!(extract(page(robots).as_bytes(), "p.html", &plain).is_ok(), "{robots}");
        }
        let all = HtmlOptions { index_noindex: true, ..HtmlOptions::default() };
        let (d, _) = extract(page("noindex").as_bytes(), "p.html", &all).unwrap();
        assert_eq!(d.title, "T");
        // Another tool's directive, or the word in text, is not the page's own robots tag.
        let other = "<meta name=\"googlebot-news\" content=\"noindex\"><main><p>noindex</p></main>";
        assert!(extract(other.as_bytes(), "p.html", &plain).is_ok());
    }

    #[test]
    fn absurd_nesting_is_skipped_with_a_warning_not_parsed_for_minutes() {
        let depth = 100_000;
        let html = format!("<main>{}deep{}</main>", "<div>".repeat(depth), "</div>".repeat(depth));
        let t = std::time::Instant::now();
        match extract(html.as_bytes(), "deep.html", &HtmlOptions::default()) {
            Err(ExtractError::Skip(w)) => assert!(w.contains("deep.html") && w.contains("nested"), "{w}"),
            other => panic!("expected a skip, got {other:?}"),
        }
        assert!(t.elapsed().as_secs() < 5, "the estimate is linear");
        // Real pages are nowhere near: many unclosed <p>/<li>, void and self-closing tags.
        let page = format!("<main>{}<div/><img src=x><!-- <div><div> --></main>", "<p>text<li>item<br>".repeat(50_000));
        assert!(nesting_depth(page.as_bytes()) < 5);
    }

    #[test]
    fn empty_and_binary_pages_are_skipped() {
        assert!(matches!(extract(b"<html></html>", "e.html", &HtmlOptions::default()), Ok(_) | Err(ExtractError::Skip(_))));
        assert!(matches!(extract(b"\x89PNG\x00\x00", "img.html", &HtmlOptions::default()), Err(ExtractError::Skip(_))));
    }
}

#[cfg(test)]
mod api_entries {
    use super::*;
    use sift_base::Symbol;

    fn symbols(html: &str, path: &str) -> Vec<(String, Option<String>, String, String)> {
        let d = extract(html.as_bytes(), path, &HtmlOptions::default()).unwrap().0;
        d.sections.into_iter().filter_map(|s| s.symbol.map(|Symbol { path, kind }| (s.heading, s.anchor, path, kind))).collect()
    }

    #[test]
    fn sphinx_entries_are_definitions_with_their_dotted_path_and_kind() {
        let page = r##"<html><body><div class="body"><section id="module-os.path"><h1>os — Miscellaneous interfaces</h1><p>Intro.</p>
            <dl class="py function"><dt class="sig sig-object py" id="os.getcwd"><span class="sig-prename">os.</span><span class="sig-name">getcwd</span>()<a class="headerlink" href="#os.getcwd">¶</a></dt>
            <dd><p>Return the current working directory.</p></dd></dl>
            <dl class="py class"><dt class="sig sig-object py" id="os.DirEntry"><em>class</em> os.DirEntry</dt><dd>An entry.</dd></dl>
            <dl class="c function"><dt class="sig sig-object c" id="c.PyList_New">PyObject *PyList_New(Py_ssize_t len)</dt><dd>New list.</dd></dl>
            <dl class="std cmdoption"><dt class="sig sig-object std" id="cmdoption-c">-c command</dt><dd>Run.</dd></dl>
            <section id="module-not a path"><h2>Other</h2><p>Text.</p></section>
            </section></div></body></html>"##;
        let s = symbols(page, "library/os.html");
        let got: Vec<(&str, &str, &str)> = s.iter().map(|(_, a, p, k)| (a.as_deref().unwrap(), p.as_str(), k.as_str())).collect();
        assert_eq!(
            got,
            [
                ("module-os.path", "os.path", "module"),
                ("os.getcwd", "os.getcwd", "function"),
                ("os.DirEntry", "os.DirEntry", "class"),
                ("c.PyList_New", "PyList_New", "function")
            ]
        );
    }

    #[test]
    fn the_text_after_an_entry_list_is_its_sections_not_the_last_entrys() {
        let page = r##"<html><body><div class="body"><section id="module-copy"><h1>copy — Shallow and deep copy operations</h1><p>Intro.</p>
            <dl class="py function"><dt class="sig sig-object py" id="copy.copy">copy.copy(x)</dt><dd><p>Return a shallow copy.</p></dd>
            <dt class="sig sig-object py" id="copy.copy2">copy.copy2(x)</dt><dd><p>Another.</p></dd></dl>
            <dl class="py exception"><dt class="sig sig-object py" id="copy.Error">exception copy.Error</dt><dd><p>Raised for errors.</p></dd></dl>
            <p>The difference between shallow and deep copying.</p>
            <section id="usage"><h2>Usage</h2><p>Use it.</p>
            <dl class="py class"><dt class="sig sig-object py" id="copy.Copier">class copy.Copier</dt><dd><p>A copier.</p>
              <dl class="py method"><dt class="sig sig-object py" id="copy.Copier.run">run()</dt><dd><p>Runs.</p></dd></dl>
              <p>More about copiers.</p></dd></dl>
            <p>After the class.</p>
            <dl class="py function"><dt class="sig sig-object py" id="copy.last">copy.last()</dt><dd><p>Last.</p></dd></dl>
            </section></section></div></body></html>"##;
        let d = extract(page.as_bytes(), "library/copy.html", &HtmlOptions::default()).unwrap().0;
        let got: Vec<(&str, Option<&str>, &str, bool)> =
            d.sections.iter().map(|s| (s.heading.as_str(), s.anchor.as_deref(), s.text.as_str(), s.symbol.is_some())).collect();
        assert_eq!(
            got,
            [
                // Sphinx's module target: the module is defined where its section opens.
                ("", Some("module-copy"), "Intro.", true),
                ("copy.copy(x)", Some("copy.copy"), "Return a shallow copy.", true),
                ("copy.copy2(x)", Some("copy.copy2"), "Another.", true),
                ("exception copy.Error", Some("copy.Error"), "Raised for errors.", true),
                // The section goes on, untitled: its heading is indexed and shown once.
                ("", Some("module-copy"), "The difference between shallow and deep copying.", false),
                ("Usage", Some("usage"), "Use it.", false),
                ("class copy.Copier", Some("copy.Copier"), "A copier.", true),
                ("run()", Some("copy.Copier.run"), "Runs.", true),
                // A class's text after its methods is the class's, and the section's after it.
                ("", Some("copy.Copier"), "More about copiers.", false),
                ("", Some("usage"), "After the class.", false),
                // A list with nothing after it leaves no empty section.
                ("copy.last()", Some("copy.last"), "Last.", true),
            ]
        );
    }

    #[test]
    fn a_rustdoc_headings_notable_traits_tooltip_is_not_its_text() {
        let page = r##"<html><body class="rustdoc trait"><main><h1 class="fqn">Trait <a href="#">Error</a></h1><p>Errors.</p>
            <section id="method.from-4" class="method trait-impl"><a href="#method.from-4" class="anchor"></a><h4 class="code-header">fn <a class="fnname" href="#">from</a>(err: &amp;str) -&gt; Box&lt;dyn Error&gt;<span class="notable-traits"><span class="notable-traits-tooltip">ⓘ<span class="notable-traits-tooltiptext"><span class="docblock"><span class="notable">Notable traits for Box&lt;I, A&gt;</span><code class="content">impl&lt;I, A&gt; Iterator for Box&lt;I, A&gt;</code></span></span></span></span></h4></section>
            <div class="docblock"><p>Converts a str into a box of dyn Error.</p></div></main></body></html>"##;
        let doc = extract(page.as_bytes(), "std/error/trait.Error.html", &HtmlOptions::default()).unwrap().0;
        let sec = doc.sections.iter().find(|s| s.anchor.as_deref() == Some("method.from-4")).expect("the method's section");
        assert_eq!(sec.heading, "fn from(err: &str) -> Box<dyn Error>");
        assert!(doc.sections.iter().all(|s| !s.text.contains("Notable") && !s.text.contains("Iterator")), "{:?}", doc.sections);
    }

    #[test]
    fn rustdoc_pages_and_members_are_definitions_with_their_full_path() {
        let page = r##"<html><body class="rustdoc struct"><main><section id="main-content" class="content">
            <h1 class="fqn"><span class="in-band">Struct <a href="../index.html">std</a>::<wbr><a href="index.html">vec</a>::<wbr><a class="struct" href="#">Vec</a><button id="copy-path">Copy item path</button></span></h1>
            <span class="out-of-band"><span class="since" title="Stable since Rust version 1.0.0">1.0.0</span> · <a class="srclink" href="../src/x.rs.html">source</a> · <a id="toggle-all-docs" href="javascript:void(0)">[<span class="inner">&#x2212;</span>]</a></span>
            <details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand description</span></summary>
            <div class="docblock"><p>A contiguous growable array type.</p></div></details>
            <section id="method.with_capacity" class="method has-srclink"><span class="rightside"><a class="srclink" href="../src/x.rs.html">source</a></span><a href="#method.with_capacity" class="anchor"></a><h4 class="code-header">pub fn <a href="#method.with_capacity" class="fnname">with_capacity</a>(capacity: usize) -&gt; Vec&lt;T&gt;</h4></section>
            <div class="docblock"><p>Constructs a new, empty Vec with at least the specified capacity.</p></div>
            <section id="method.clone-1" class="method"><h4 class="code-header">fn clone(&amp;self) -&gt; Self</h4></section><div class="docblock"><p>Clones.</p></div>
            <h2 id="implementations" class="small-section-header">Implementations</h2><p>Impls.</p>
            </section></main></body></html>"##;
        let s = symbols(page, "std/vec/struct.Vec.html");
        // The page's chrome is no text of it: version, source link, toggles.
        let text = extract(page.as_bytes(), "std/vec/struct.Vec.html", &HtmlOptions::default()).unwrap().0.sections[0].text.clone();
        assert_eq!(text, "A contiguous growable array type.");
        let got: Vec<(Option<&str>, &str, &str)> = s.iter().map(|(_, a, p, k)| (a.as_deref(), p.as_str(), k.as_str())).collect();
        assert_eq!(
            got,
            [
                (None, "std::vec::Vec", "struct"),
                (Some("method.with_capacity"), "std::vec::Vec::with_capacity", "method"),
                (Some("method.clone-1"), "std::vec::Vec::clone", "method")
            ]
        );
        // A primitive's page names it after two words.
        let prim = r##"<html><body class="rustdoc primitive"><main><h1 class="fqn"><span class="in-band">Primitive Type <a class="primitive" href="#">str</a></span></h1><p>String slices.</p>
            <section id="method.split_whitespace" class="method"><h4 class="code-header">pub fn split_whitespace(&amp;self)</h4></section><p>Splits.</p></main></body></html>"##;
        let paths: Vec<String> = symbols(prim, "std/primitive.str.html").into_iter().map(|s| s.2).collect();
        assert_eq!(paths, ["str", "str::split_whitespace"]);
        // A source listing is marked as such: it weighs like navigation.
        let src = extract(
            b"<html><body class=\"rustdoc source\"><main><pre>fn main() {}</pre><p>x</p></main></body></html>",
            "src/a.rs.html",
            &HtmlOptions::default(),
        )
        .unwrap()
        .0;
        assert_eq!(src.link_density, 1.0);
        // A page that is all code, marked by no generator, is a listing too; a page of
        // examples with prose between them is not.
        let code = "<pre>def getcwd(): return _getcwd()  # the current working directory\ndef chdir(path): _chdir(path)</pre>";
        let listing = extract(
            format!("<html><body><div class=\"body\"><h1>Source code for os</h1><div class=\"highlight\">{code}</div></div></body></html>")
                .as_bytes(),
            "_modules/os.html",
            &HtmlOptions::default(),
        )
        .unwrap()
        .0;
        assert_eq!(listing.link_density, 1.0);
        let examples = extract(format!("<html><body><main><h1>Examples</h1><p>First, read the directory you are in, then change to another one.</p>{code}<p>The second call returns the new directory: a relative path now resolves against it.</p></main></body></html>").as_bytes(), "examples.html", &HtmlOptions::default()).unwrap().0;
        assert_eq!(examples.link_density, 0.0);
    }

    #[test]
    fn javadoc_typedoc_and_doxygen_members_are_definitions() {
        let javadoc = r##"<html><head><meta name="generator" content="javadoc/ClassWriterImpl"></head><body class="class-declaration-page"><main>
            <div class="header"><div class="sub-title">Package java.util</div><h1 class="title">Class ArrayList&lt;E&gt;</h1></div>
            <section class="detail" id="add(E)"><h3>add</h3><div class="block">Appends the element.</div></section>
            <section class="detail" id="size()"><h3>size</h3><div class="block">The size.</div></section></main></body></html>"##;
        let s = symbols(javadoc, "java/util/ArrayList.html");
        let got: Vec<(&str, &str)> = s.iter().map(|(_, _, p, k)| (p.as_str(), k.as_str())).collect();
        assert_eq!(got, [("java.util.ArrayList", "class"), ("java.util.ArrayList.add", "method"), ("java.util.ArrayList.size", "method")]);

        let typedoc = r##"<html><head><meta name="generator" content="TypeDoc 0.25"></head><body><main><h1>Class Engine</h1>
            <section class="tsd-panel tsd-member tsd-kind-method tsd-parent-kind-class"><a id="search" class="tsd-anchor"></a><h3 class="tsd-anchor-link">search</h3><p>Searches.</p></section>
            </main></body></html>"##;
        let s = symbols(typedoc, "classes/Engine.html");
        assert_eq!(s.last().map(|(_, a, p, k)| (a.as_deref(), p.as_str(), k.as_str())), Some((Some("search"), "Engine.search", "method")));

        let doxygen = r##"<html><head><meta name="generator" content="Doxygen 1.9.4"></head><body><div class="contents"><h1>ns::Engine Class Reference</h1>
            <a id="a5b2c"></a><h2 class="memtitle"><span class="permalink"><a href="#a5b2c">&#9670;&nbsp;</a></span>search()</h2><div class="memdoc">Searches.</div>
            </div></body></html>"##;
        let s = symbols(doxygen, "classns_1_1Engine.html");
        assert_eq!(
            s.last().map(|(_, a, p, k)| (a.as_deref(), p.as_str(), k.as_str())),
            Some((Some("a5b2c"), "ns::Engine.search", "member"))
        );
    }

    #[test]
    fn a_heading_is_a_definition_only_when_it_is_code_naming_its_id() {
        let page = r##"<html><body><main><h1>API</h1>
            <h3 id="parse"><code>parse(text)</code></h3><p>Parses.</p>
            <h3 id="installation">Installation</h3><p>Run it.</p>
            <h3 id="parse-options"><code>other()</code></h3><p>Unrelated id.</p>
            <dl><dt id="json.dumps">json.dumps(obj)</dt><dd>Serialise.</dd><dt id="glossary-term">term</dt><dd>A word.</dd></dl>
            </main></body></html>"##;
        let s = symbols(page, "api.html");
        let got: Vec<(&str, &str)> = s.iter().map(|(_, _, p, k)| (p.as_str(), k.as_str())).collect();
        assert_eq!(got, [("parse", "heading"), ("json.dumps", "entry")]);
    }
}
