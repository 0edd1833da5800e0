//! Page annotations: what a site's HTML says about its own indexing, as `data-sift-*`
//! attributes or Pagefind's `data-pagefind-*` with the same meaning, so a Pagefind site
//! switches by changing its build command.
//!
//! | attribute | meaning |
//! |---|---|
//! | `body` | the page's indexed content (several are joined); once any page of a site has one, pages without are left out |
//! | `ignore` | not indexed; `ignore="all"`: its `meta`/`filter`/`sort` tags are not read either |
//! | `weight="W"` | words inside count `W²` times (0 to 10; Pagefind's quadratic scale) |
//! | `meta="k, k[attr], k:value"` | metadata: the element's text, an attribute, or an inline value (inline: last, to the end); `title` renames the result |
//! | `filter="…"` | the same captures, as filter values (several per key); the key is always filterable |
//! | `sort="…"` | `date` sets the page's date (sort by date); other keys are reported, unused |
//! | `index-attrs="title,alt"` | these attributes' values are indexed where the element is |
//!
//! `meta`, `filter` and `sort` may be anywhere in the page, inside `<head>` or outside the
//! body too.

use crate::collapse_ws;
use scraper::{ElementRef, Html, Selector};

/// The two spellings of an annotation, Sift's first.
const PREFIXES: [&str; 2] = ["data-sift-", "data-pagefind-"];

/// The value of annotation `name` (`body`, `weight`, …) on an element, in either spelling.
pub fn attr<'a>(el: &'a scraper::node::Element, name: &str) -> Option<&'a str> {
    // Asked of every element for several names: matched in place, not by a formatted name.
    PREFIXES.iter().find_map(|p| el.attrs().find(|(k, _)| k.strip_prefix(p) == Some(name)).map(|(_, v)| v))
}

/// A selector for elements with annotation `name` in either spelling.
fn selector(name: &str) -> Selector {
    Selector::parse(&PREFIXES.map(|p| format!("[{p}{name}]")).join(", ")).expect("annotation selector")
}

/// The elements marked as the page's body, outermost only, in document order.
pub fn bodies(html: &Html) -> Vec<ElementRef<'_>> {
    let sel = selector("body");
    html.select(&sel).filter(|e| !e.ancestors().filter_map(ElementRef::wrap).any(|a| attr(a.value(), "body").is_some())).collect()
}

/// The weight an element gives its words, if it sets one: `Err` says why a value is not one.
pub fn weight(el: &scraper::node::Element) -> Option<Result<f32, String>> {
    let raw = attr(el, "weight")?;
    Some(match raw.trim().parse::<f32>() {
        Ok(w) if (0.0..=10.0).contains(&w) => Ok(w),
        _ => Err(format!("weight {raw:?} on <{}> is not a number from 0 to 10; ignored", el.name())),
    })
}

/// The attributes an element asks to be indexed (`index-attrs="title,alt"`), with values.
pub fn indexed_attrs(el: &scraper::node::Element) -> Vec<String> {
    let Some(list) = attr(el, "index-attrs") else { return Vec::new() };
    list.split(',').filter_map(|a| el.attr(a.trim())).map(collapse_ws).filter(|v| !v.is_empty()).collect()
}

/// One capture of a `meta`/`filter`/`sort` annotation.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    pub key: String,
    pub value: String,
}

/// Every capture of annotation `name` in the page, in document order: `key` (the element's
/// text), `key[attr]` (an attribute's value), `key:value` (inline, to the end of the list).
/// Inside an `ignore="all"` element nothing is read.
pub fn captures(html: &Html, name: &str) -> Vec<Capture> {
    let sel = selector(name);
    let mut out = Vec::new();
    for el in html.select(&sel) {
        let ignored_all = std::iter::once(el)
            .chain(el.ancestors().filter_map(ElementRef::wrap))
            .any(|a| attr(a.value(), "ignore").is_some_and(|v| v.trim() == "all"));
        if ignored_all {
            continue;
        }
        let spec = attr(el.value(), name).unwrap_or("");
        for (key, source) in parse_spec(spec) {
            let value = match source {
                Source::Text => collapse_ws(&el.text().collect::<String>()),
                Source::Attr(a) => el.value().attr(&a).map(collapse_ws).unwrap_or_default(),
                Source::Inline(v) => v,
            };
            if !key.is_empty() && !value.is_empty() {
                out.push(Capture { key, value });
            }
        }
    }
    out
}

#[derive(Debug, PartialEq)]
enum Source {
    Text,
    Attr(String),
    Inline(String),
}

/// `heading, tag[data-section], author:Freeform text, captured to the end` → captures.
fn parse_spec(spec: &str) -> Vec<(String, Source)> {
    let mut out = Vec::new();
    let mut rest = spec;
    while !rest.trim().is_empty() {
        let comma = rest.find(',').unwrap_or(rest.len());
        let colon = rest.find(':');
        let bracket = rest.find('[');
        // An inline value runs to the end of the list, commas included.
        if let Some(c) = colon.filter(|&c| c < comma && bracket.is_none_or(|b| c < b)) {
            out.push((rest[..c].trim().to_string(), Source::Inline(rest[c + 1..].trim().to_string())));
            break;
        }
        let item = rest[..comma].trim();
        match (item.find('['), item.strip_suffix(']')) {
            (Some(b), Some(inner)) => out.push((item[..b].trim().to_string(), Source::Attr(inner[b + 1..].trim().to_string()))),
            _ => out.push((item.to_string(), Source::Text)),
        }
        rest = rest.get(comma + 1..).unwrap_or("");
    }
    out
}

/// Markers of a weighted stretch in text being collected (characters of the Supplementary
/// Private Use Area, which no page's text uses): an opening one carries the weight in
/// hundredths; [`take_weights`] removes them and says where the stretches are.
const OPEN: u32 = 0xF0000;
const CLOSE: char = '\u{F1000}';

pub fn open_marker(weight: f32) -> char {
    char::from_u32(OPEN + (weight * 100.0).round() as u32).expect("a private use character")
}

pub fn close_marker() -> char {
    CLOSE
}

/// Remove the markers from each section's text (in page order: a weighted element may hold
/// a heading, and so span sections) and return (section, start, end, weight) per stretch.
pub fn take_weights(texts: &mut [&mut String]) -> Vec<(usize, usize, usize, f32)> {
    let mut spans: Vec<(usize, usize, usize, f32)> = Vec::new();
    // Open stretches: (index in spans, weight).
    let mut open: Vec<usize> = Vec::new();
    for (i, text) in texts.iter_mut().enumerate() {
        if !text.chars().any(|c| (OPEN..=CLOSE as u32).contains(&(c as u32))) && open.is_empty() {
            continue;
        }
        // Stretches still open from the previous section continue from this one's start.
        for k in open.iter_mut() {
            let w = spans[*k].3;
            spans.push((i, 0, usize::MAX, w));
            *k = spans.len() - 1;
        }
        let mut clean = String::with_capacity(text.len());
        // A marker stood between two spaces (the text was collapsed with it in): keep one.
        let mut after_marker = false;
        for c in text.chars() {
            let u = c as u32;
            if c == CLOSE {
                if let Some(k) = open.pop() {
                    spans[k].2 = clean.trim_end().len();
                }
                after_marker = true;
            } else if (OPEN..CLOSE as u32).contains(&u) {
                spans.push((i, clean.len(), usize::MAX, (u - OPEN) as f32 / 100.0));
                open.push(spans.len() - 1);
                after_marker = true;
            } else {
                if !(after_marker && c == ' ' && (clean.is_empty() || clean.ends_with(' '))) {
                    clean.push(c);
                }
                after_marker = false;
            }
        }
        let end = clean.trim_end().len();
        clean.truncate(end);
        for s in spans.iter_mut().filter(|s| s.0 == i) {
            s.2 = s.2.min(end);
        }
        **text = clean;
    }
    spans.retain(|s| s.2 > s.1);
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_capture_text_attributes_and_an_inline_value_to_the_end() {
        assert_eq!(
            parse_spec("heading, tag[data-section], tag[data-category], author:Freeform text, captured to the end"),
            vec![
                ("heading".into(), Source::Text),
                ("tag".into(), Source::Attr("data-section".into())),
                ("tag".into(), Source::Attr("data-category".into())),
                ("author".into(), Source::Inline("Freeform text, captured to the end".into())),
            ]
        );
        assert_eq!(parse_spec("date:2022-06-01T10:00"), vec![("date".into(), Source::Inline("2022-06-01T10:00".into()))]);
        assert_eq!(parse_spec("image[src], image_alt[alt]").len(), 2);
        assert_eq!(parse_spec("  "), vec![]);
    }

    #[test]
    fn weight_markers_become_stretches_across_sections() {
        let mut a = format!("plain {} heavy {} plain {}open", open_marker(2.0), close_marker(), open_marker(0.5));
        let mut b = format!("still{} after", close_marker());
        let spans = take_weights(&mut [&mut a, &mut b]);
        assert_eq!(a, "plain heavy plain open");
        assert_eq!(b, "still after");
        assert_eq!(spans, vec![(0, 6, 11, 2.0), (0, 18, 22, 0.5), (1, 0, 5, 0.5)]);
    }
}
