//! HTML pages of a built static site: find the main content (`<main>`, `[role=main]`,
//! `<article>`, Sphinx's `div.body`, or a caller's selector), drop navigation and scripts,
//! and cut it into sections at headings — and at API entries with ids (`<dt id>`), so a
//! result can deep-link to `os.html#os.getcwd`.

use crate::{collapse_ws, decode_text, folder_of, path_words, ExtractError};
use ego_tree::iter::Edge;
use scraper::{ElementRef, Html, Node, Selector};
use sift_format::{Section, SourceDoc};
use std::collections::BTreeMap;

pub struct HtmlOptions {
    /// CSS selector of the main content; tried before the built-in ones.
    pub selector: Option<String>,
    /// Prepended to the relative path to form the URL (`/docs/`).
    pub base_url: String,
}

impl Default for HtmlOptions {
    fn default() -> Self {
        HtmlOptions { selector: None, base_url: String::new() }
    }
}

const MAIN_SELECTORS: &[&str] = &["main", "[role=main]", "article", "div.body", "#content", "body"];
const SKIP_TAGS: &[&str] =
    &["script", "style", "noscript", "template", "nav", "footer", "svg", "button", "form", "select", "iframe", "object", "canvas", "head"];
const SKIP_CLASSES: &[&str] = &["headerlink", "sidebar", "related", "sphinxsidebar", "toctree-wrapper", "breadcrumbs", "navigation"];
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

    let page_title = Selector::parse("title")
        .ok()
        .and_then(|s| html.select(&s).next())
        .map(|t| collapse_ws(&t.text().collect::<String>()))
        .unwrap_or_default();
    let root = find_main(&html, opts.selector.as_deref());
    let link_density = root.map_or(0.0, link_density);
    let mut sections = match root {
        Some(r) => sections_of(r),
        None => Vec::new(),
    };
    // The title: the main content's first h1, else <title>, else the file name.
    let h1 = sections.iter().position(|s| s.1 == 1);
    let title = match h1 {
        Some(i) if !sections[i].0.heading.is_empty() => {
            let t = sections[i].0.heading.clone();
            sections[i].0.heading.clear(); // the title field already holds it
            t
        }
        _ if !page_title.is_empty() => page_title,
        _ => rel_path.rsplit('/').next().unwrap_or(rel_path).to_string(),
    };
    let sections: Vec<Section> = sections.into_iter().map(|(s, _)| s).filter(|s| !s.text.is_empty() || !s.heading.is_empty()).collect();
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

fn skipped(el: &scraper::node::Element) -> bool {
    SKIP_TAGS.contains(&el.name())
        || el.attr("hidden").is_some()
        || el.attr("aria-hidden") == Some("true")
        || el.classes().any(|c| SKIP_CLASSES.contains(&c))
}

/// Walk the content iteratively (deeply nested pages must not overflow the stack) and cut
/// it into (section, heading level) at headings and at `<dt id>` API entries.
fn sections_of(root: ElementRef) -> Vec<(Section, u8)> {
    let mut out: Vec<(Section, u8)> = vec![(Section::default(), 0)];
    let mut skip_until: Option<ego_tree::NodeId> = None;
    // Inside a heading: (node, level, id, text so far).
    let mut in_heading: Option<(ego_tree::NodeId, u8, Option<String>, String)> = None;
    let mut pending_anchor: Option<String> = None;
    let mut body = String::new();
    let flush_body = |out: &mut Vec<(Section, u8)>, body: &mut String| {
        let t = collapse_ws(body);
        if !t.is_empty() {
            let last = &mut out.last_mut().expect("never empty").0;
            if !last.text.is_empty() {
                last.text.push(' ');
            }
            last.text.push_str(&t);
        }
        body.clear();
    };
    for edge in root.traverse() {
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
                                flush_body(&mut out, &mut body);
                                in_heading = Some((node.id(), level, el.id().map(str::to_string), String::new()));
                                continue;
                            }
                            if let Some(id) = el.id() {
                                if pending_anchor.is_none() {
                                    pending_anchor = Some(id.to_string());
                                }
                            }
                        }
                        if BLOCK_TAGS.contains(&name) {
                            match &mut in_heading {
                                Some(h) => h.3.push(' '),
                                None => body.push(' '),
                            }
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
                if in_heading.as_ref().is_some_and(|h| h.0 == node.id()) {
                    let (_, level, id, text) = in_heading.take().expect("checked");
                    let anchor = pending_anchor.take().or(id);
                    out.push((Section { heading: collapse_ws(&text), anchor, text: String::new() }, level));
                } else if let Node::Element(el) = node.value() {
                    if BLOCK_TAGS.contains(&el.name()) && in_heading.is_none() {
                        body.push(' ');
                    }
                }
            }
        }
    }
    flush_body(&mut out, &mut body);
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
