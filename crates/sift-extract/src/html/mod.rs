//! HTML pages of a built static site: find the main content (`<main>`, `[role=main]`,
//! `<article>`, Sphinx's `div.body`, or a caller's selector), drop navigation and scripts,
//! and cut it into sections at headings — and at API entries with ids (`<dt id>`), so a
//! result can deep-link to `os.html#os.getcwd`.

use crate::annotations;
use crate::api::PageApi;
use crate::{collapse_ws, decode_text, folder_of, path_words, ExtractError};
use ego_tree::iter::Edge;
use scraper::{ElementRef, Html, Node, Selector};
use sections::sections_of;
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
const SKIP_META: &[&str] =
    &["viewport", "generator", "theme-color", "color-scheme", "robots", "referrer", "format-detection", "google-site-verification"];

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

mod sections;
#[cfg(test)]
mod tests;
