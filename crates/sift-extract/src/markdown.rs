//! Markdown with YAML front matter: front matter → metadata (`title`, `date` and `url` are
//! special), headings → sections with GitHub-style anchors (or `{#id}` when given).

use crate::{collapse_ws, decode_text, folder_of, path_words, ExtractError};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use sift_base::{Section, SourceDoc};
use std::collections::BTreeMap;
use yaml_rust2::{Yaml, YamlLoader};

/// Extract one Markdown file. The URL is `base_url` + the path with `.md` replaced by
/// `.html` unless the front matter gives `url` or `permalink`.
pub fn extract(bytes: &[u8], rel_path: &str, base_url: &str) -> Result<(SourceDoc, Vec<String>), ExtractError> {
    let mut warnings = Vec::new();
    let (text, warn) = decode_text(bytes, rel_path)?;
    warnings.extend(warn);
    let (front, body_text) = split_front_matter(&text);
    let mut metadata: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut title = None;
    let mut date = None;
    let mut url = None;
    if let Some(fm) = front {
        match YamlLoader::load_from_str(fm) {
            Ok(docs) => {
                if let Some(Yaml::Hash(h)) = docs.into_iter().next() {
                    for (k, v) in h {
                        let Some(key) = scalar(&k) else { continue };
                        let key = key.to_ascii_lowercase();
                        let values: Vec<String> = match &v {
                            Yaml::Array(items) => items.iter().filter_map(scalar).collect(),
                            other => scalar(other).into_iter().collect(),
                        };
                        let values: Vec<String> = values.into_iter().map(|s| collapse_ws(&s)).filter(|s| !s.is_empty()).collect();
                        if values.is_empty() {
                            continue;
                        }
                        match key.as_str() {
                            "title" => title = values.into_iter().next(),
                            "date" | "published" | "updated" | "lastmod" => {
                                date.get_or_insert(values.into_iter().next().unwrap_or_default());
                            }
                            "url" | "permalink" => url = values.into_iter().next(),
                            _ => {
                                metadata.insert(key, values);
                            }
                        }
                    }
                }
            }
            Err(e) => warnings.push(format!("{rel_path}: front matter is not valid YAML ({e}); ignored")),
        }
    }
    if let Some(folder) = folder_of(rel_path) {
        metadata.entry("folder".into()).or_insert_with(|| vec![folder]);
    }

    let mut sections = vec![Section::default()];
    let mut first_h1: Option<String> = None;
    let mut heading: Option<(HeadingLevel, Option<String>, String)> = None;
    let mut body = String::new();
    for ev in Parser::new_ext(body_text, Options::ENABLE_HEADING_ATTRIBUTES | Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Heading { level, id, .. }) => {
                push_body(&mut sections, &mut body);
                heading = Some((level, id.map(|i| i.to_string()), String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, id, text)) = heading.take() {
                    let text = collapse_ws(&text);
                    if level == HeadingLevel::H1 && first_h1.is_none() && title.is_none() {
                        first_h1 = Some(text.clone());
                        sections.push(Section {
                            heading: String::new(),
                            anchor: id.or_else(|| Some(slug(&text))),
                            text: String::new(),
                            symbol: None,
                        });
                    } else {
                        let anchor = id.unwrap_or_else(|| slug(&text));
                        sections.push(Section { heading: text, anchor: Some(anchor), text: String::new(), symbol: None });
                    }
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => match &mut heading {
                Some(h) => h.2.push_str(&t),
                None => body.push_str(&t),
            },
            Event::SoftBreak
            | Event::HardBreak
            | Event::End(
                TagEnd::Paragraph | TagEnd::Item | TagEnd::CodeBlock | TagEnd::BlockQuote(_) | TagEnd::TableCell | TagEnd::List(_),
            ) => match &mut heading {
                Some(h) => h.2.push(' '),
                None => body.push(' '),
            },
            _ => {}
        }
    }
    push_body(&mut sections, &mut body);
    let sections: Vec<Section> = sections.into_iter().filter(|s| !s.text.is_empty() || !s.heading.is_empty()).collect();
    let title = title.or(first_h1).unwrap_or_else(|| {
        let file = rel_path.rsplit('/').next().unwrap_or(rel_path);
        file.rsplit_once('.').map(|(a, _)| a).unwrap_or(file).to_string()
    });
    let url = url.unwrap_or_else(|| format!("{base_url}{}", md_to_html(rel_path)));
    Ok((
        SourceDoc {
            id: rel_path.to_string(),
            url,
            title,
            path: path_words(rel_path),
            sections,
            metadata,
            date,
            link_density: 0.0,
            annotations: Default::default(),
        },
        warnings,
    ))
}

/// A Markdown page as a standalone HTML page (`sift serve`'s preview of Markdown docs):
/// headings carry the same anchors the index links to; raw HTML in the source is shown as
/// text, never run.
pub fn render_page(bytes: &[u8], rel_path: &str) -> Result<String, ExtractError> {
    let (doc, _) = extract(bytes, rel_path, "/")?;
    let (text, _) = decode_text(bytes, rel_path)?;
    let (_, body_text) = split_front_matter(&text);
    let mut events: Vec<Event> = Parser::new_ext(body_text, Options::ENABLE_HEADING_ATTRIBUTES | Options::ENABLE_TABLES)
        .map(|ev| match ev {
            Event::Html(t) | Event::InlineHtml(t) => Event::Text(t),
            other => other,
        })
        .collect();
    // Give every heading without an explicit id its slug, as `extract` does.
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { id: None, .. }) = &events[i] {
            let mut text = String::new();
            for ev in &events[i + 1..] {
                match ev {
                    Event::End(TagEnd::Heading(_)) => break,
                    Event::Text(t) | Event::Code(t) => text.push_str(t),
                    _ => {}
                }
            }
            if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                *id = Some(slug(&collapse_ws(&text)).into());
            }
        }
        i += 1;
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, events.into_iter());
    let title = sift_base::text::escape_html(&doc.title);
    let h1 = if body.contains("<h1") { String::new() } else { format!("<h1>{title}</h1>") };
    Ok(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>body{{font:16px/1.6 system-ui,sans-serif;max-width:760px;margin:0 auto;padding:1em 1.5em}}header{{display:flex;gap:1em;align-items:center;padding:.5em 0 1em;border-bottom:1px solid #ddd}}code{{background:#eee;padding:0 .2em}}:target{{background:#fff7c0}}</style>\n<script type=\"module\" src=\"/sift-search.js\"></script><script type=\"module\" src=\"/sift-highlight.js\"></script></head>\n<body><header><a href=\"/\">Home</a><sift-search bundle=\"/_sift/\"></sift-search></header>\n<main>{h1}\n{body}</main></body></html>\n"
    ))
}

fn push_body(sections: &mut [Section], body: &mut String) {
    let t = collapse_ws(body);
    if !t.is_empty() {
        let last = sections.last_mut().expect("never empty");
        if !last.text.is_empty() {
            last.text.push(' ');
        }
        last.text.push_str(&t);
    }
    body.clear();
}

fn md_to_html(rel: &str) -> String {
    for ext in [".md", ".markdown", ".mdx"] {
        if let Some(stem) = rel.strip_suffix(ext) {
            return format!("{stem}.html");
        }
    }
    rel.to_string()
}

fn scalar(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `---\n<yaml>\n---\n<body>`; returns (front matter, body).
fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else { return (None, text) };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" || line.trim_end() == "..." {
            return (Some(&rest[..offset]), &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (None, text)
}

/// GitHub-style heading slug: lowercase, alphanumerics kept, spaces and dashes → `-`.
pub fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            s.extend(c.to_lowercase());
        } else if c == ' ' || c == '-' {
            s.push('-');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_pages_link_the_same_anchors_and_show_raw_html_as_text() {
        let md = b"---\ntitle: A <b>page</b>\n---\n# Intro\n\nText <img src=x onerror=alert(1)> here.\n\n## Setup & Config\n\nMore.\n";
        let html = render_page(md, "guides/a.md").unwrap();
        let (doc, _) = extract(md, "guides/a.md", "/").unwrap();
        for s in doc.sections.iter().filter(|s| !s.heading.is_empty()) {
            assert!(html.contains(&format!("id=\"{}\"", s.anchor.as_deref().unwrap())), "{html}");
        }
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("<title>A &lt;b&gt;page&lt;/b&gt;</title>"));
    }

    #[test]
    fn front_matter_headings_and_anchors() {
        let md = "---\ntitle: MCP Server\ntype: guide\ntags: [mcp, agents]\ndate: 2024-05-01\n---\nIntro about **MCP**.\n\n## Setup & Config {#setup}\nRun `sift serve`.\n\n## Tools\nsearch, related\n";
        let (d, w) = extract(md.as_bytes(), "guides/mcp-server.md", "/docs/").unwrap();
        assert!(w.is_empty());
        assert_eq!(d.title, "MCP Server");
        assert_eq!(d.url, "/docs/guides/mcp-server.html");
        assert_eq!(d.date.as_deref(), Some("2024-05-01"));
        assert_eq!(d.metadata["tags"], vec!["mcp", "agents"]);
        assert_eq!(d.metadata["type"], vec!["guide"]);
        assert_eq!(d.metadata["folder"], vec!["guides"]);
        assert_eq!(d.sections[0].text, "Intro about MCP.");
        assert_eq!((d.sections[1].heading.as_str(), d.sections[1].anchor.as_deref()), ("Setup & Config", Some("setup")));
        assert_eq!(d.sections[1].text, "Run sift serve.");
        assert_eq!(d.sections[2].anchor.as_deref(), Some("tools"));
    }

    #[test]
    fn h1_becomes_title_without_front_matter_and_bad_yaml_warns() {
        let (d, _) = extract(b"# Hello World\ntext\n", "a.md", "").unwrap();
        assert_eq!(d.title, "Hello World");
        let (d, w) = extract(b"---\n: : [\n---\nbody\n", "b.md", "").unwrap();
        assert_eq!(d.title, "b");
        assert_eq!(w.len(), 1);
        assert_eq!(d.sections[0].text, "body");
    }
}
