//! What the agents' tools answer, shaped once for both MCP servers (the worker's over HTTP
//! and `sift mcp` over stdio): a result compacted for a model's context (plain text, a
//! short snippet, section links, a content preview that says how to read on) and a
//! document read a part at a time.
//!
//! Both work on the contract's JSON (a result or document as the engine writes it, or as a
//! host merged it from several bundles). Sizes and offsets count characters (Unicode scalar
//! values), so an offset one server hands out reads on in the other.

use crate::snippet::marked_parts;
use sift_base::json::Json;

/// How much of a result an agent gets (`worker/src/mcp-tools.json` holds the numbers).
#[derive(Debug, Clone, Copy)]
pub struct AgentSizes {
    /// A snippet is cut to this many characters.
    pub snippet_chars: usize,
    /// A result's `content` (asked for with `include_content`) is cut to this many.
    pub content_preview_chars: usize,
}

/// Plain text of an HTML-safe string (marks dropped, entities decoded).
fn plain(v: Option<&Json>) -> String {
    marked_parts(v.and_then(Json::as_str).unwrap_or("")).into_iter().map(|(t, _)| t).collect()
}

/// At most `n` characters, an ellipsis ending a cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// How an agent reads on from `offset` in the document `id`.
fn read_on(id: &Json, offset: usize) -> String {
    format!("call get_document with {{\"id\": {}, \"offset\": {offset}}} to read on", id.to_text())
}

/// A result as an agent's context wants it: plain title and snippet, the short fields it
/// has, its sections as links, and its content's first characters when asked for.
pub fn compact_result(r: &Json, include_content: bool, sizes: AgentSizes) -> Json {
    let field = |k: &str| r.get(k).cloned().unwrap_or(Json::Null);
    let mut out = vec![
        ("id", field("id")),
        ("title", Json::Str(plain(r.get("title")))),
        ("url", field("url")),
        ("score", field("score")),
        ("snippet", Json::Str(clip(&plain(r.get("snippet")), sizes.snippet_chars))),
    ];
    // `bundle`: which of a worker's bundles (get_document's `bundle`).
    for k in ["bundle", "type", "date"] {
        if r.get(k).and_then(Json::as_str).is_some_and(|s| !s.is_empty()) {
            out.push((k, field(k)));
        }
    }
    if let Some(Json::Arr(subs)) = r.get("sub_results") {
        if !subs.is_empty() {
            let links = subs
                .iter()
                .map(|s| Json::obj([("title", Json::Str(plain(s.get("title")))), ("url", s.get("url").cloned().unwrap_or(Json::Null))]));
            out.push(("sections", Json::Arr(links.collect())));
        }
    }
    // An identifier's definition: what an agent most wants to cite (the entry's link).
    for k in ["definition", "queries"] {
        if r.get(k).is_some_and(|v| !v.is_null()) {
            out.push((k, field(k)));
        }
    }
    if let (true, Some(content)) = (include_content, r.get("content").and_then(Json::as_str)) {
        let n = sizes.content_preview_chars;
        out.push(("content", Json::Str(clip(content, n))));
        let total = content.chars().count();
        if total > n {
            let truncated = Json::obj([("total_chars", Json::from(total as u64)), ("hint", Json::Str(read_on(&field("id"), n - 1)))]);
            out.push(("content_truncated", truncated));
        }
    }
    Json::obj(out)
}

/// Part of a document (its sections as text, each heading a `## ` line) from `offset`, at
/// most `max_chars` characters: the structured answer (the page's fields, its headings as
/// links, the part and where the next starts) and the line an agent reads first.
pub fn document_part(doc: &Json, offset: usize, max_chars: usize) -> (Json, String) {
    let str_of = |v: &Json, k: &str| v.get(k).and_then(Json::as_str).unwrap_or("").to_string();
    let sections: &[Json] = match doc.get("sections") {
        Some(Json::Arr(s)) => s,
        _ => &[],
    };
    let text = sections
        .iter()
        .map(|s| match (str_of(s, "heading"), str_of(s, "text")) {
            (h, t) if h.is_empty() => t,
            (h, t) => format!("## {h}\n{t}"),
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let total = text.chars().count();
    let start = offset.min(total);
    let part: String = text.chars().skip(start).take(max_chars).collect();
    let end = start + part.chars().count();
    let next = (end < total).then_some(end);
    let (id, url, title) = (doc.get("id").cloned().unwrap_or(Json::Null), str_of(doc, "url"), str_of(doc, "title"));
    let heads = sections.iter().filter(|s| !str_of(s, "heading").is_empty()).map(|s| {
        let link = match str_of(s, "anchor") {
            a if a.is_empty() => url.clone(),
            a => format!("{url}#{a}"),
        };
        Json::obj([("heading", Json::Str(str_of(s, "heading"))), ("url", Json::Str(link))])
    });
    let heads = Json::Arr(heads.collect());
    let hint = match next {
        None => "end of document".to_string(),
        Some(n) => format!("truncated: {}", read_on(&id, n)),
    };
    let line = format!("{title} — {url}\n(characters {offset}–{} of {total}; {hint})\n\n{part}", offset + (end - start));
    let metadata = match doc.get("metadata") {
        Some(m) if !m.is_null() => m.clone(),
        _ => Json::Obj(Vec::new()),
    };
    let structured = Json::obj([
        ("id", id),
        ("title", Json::Str(title)),
        ("url", Json::Str(url)),
        ("metadata", metadata),
        ("date", doc.get("date").cloned().unwrap_or(Json::Null)),
        ("sections", heads),
        ("offset", Json::from(offset as u64)),
        ("total_chars", Json::from(total as u64)),
        ("next_offset", next.map_or(Json::Null, |n| Json::from(n as u64))),
        ("text", Json::Str(part)),
    ]);
    (structured, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: AgentSizes = AgentSizes { snippet_chars: 10, content_preview_chars: 8 };

    fn result() -> Json {
        sift_base::json::parse(
            r#"{"id": "a.md", "title": "A &amp; <mark>B</mark>", "url": "/a", "score": 1.5, "snippet": "one <mark>two</mark> three four",
                "type": "", "date": "2024-01-02", "sub_results": [{"title": "<mark>S</mark>", "url": "/a#s"}], "definition": null,
                "content": "😀😀 is a text longer than eight"}"#
                .as_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn a_compact_result_is_plain_text_cut_to_its_sizes_in_characters() {
        let c = compact_result(&result(), true, SIZES);
        assert_eq!(c.get("title").and_then(Json::as_str), Some("A & B"));
        assert_eq!(c.get("snippet").and_then(Json::as_str), Some("one two t…"));
        assert!(c.get("type").is_none(), "an empty field is left out");
        assert!(c.get("definition").is_none(), "a null one too");
        assert_eq!(c.get("date").and_then(Json::as_str), Some("2024-01-02"));
        assert_eq!(c.get("sections").unwrap().to_text(), r#"[{"title":"S","url":"/a#s"}]"#);
        // Two emoji are two characters, whatever JavaScript's string length says.
        assert_eq!(c.get("content").and_then(Json::as_str), Some("\u{1F600}\u{1F600} is a…"));
        let t = c.get("content_truncated").unwrap();
        assert_eq!(t.get("total_chars").unwrap().to_text(), "30");
        assert!(t.get("hint").and_then(Json::as_str).unwrap().contains(r#"{"id": "a.md", "offset": 7}"#));
    }

    #[test]
    fn content_is_left_out_unless_asked_for_and_a_short_one_is_not_cut() {
        assert!(compact_result(&result(), false, SIZES).get("content").is_none());
        let big = AgentSizes { snippet_chars: 100, content_preview_chars: 100 };
        let c = compact_result(&result(), true, big);
        assert!(c.get("content_truncated").is_none());
        assert_eq!(c.get("snippet").and_then(Json::as_str), Some("one two three four"));
    }

    #[test]
    fn a_document_is_read_in_parts_that_meet() {
        let doc = sift_base::json::parse(
            r#"{"id": "d", "title": "D", "url": "/d", "metadata": null, "sections": [{"heading": "", "text": "intro été"}, {"heading": "H", "anchor": "h", "text": "body"}]}"#.as_bytes(),
        )
        .unwrap();
        let (first, line) = document_part(&doc, 0, 8);
        assert_eq!(first.get("text").and_then(Json::as_str), Some("intro \u{e9}t"));
        assert_eq!(first.get("next_offset").unwrap().to_text(), "8");
        assert_eq!(first.get("metadata").unwrap().to_text(), "{}");
        assert_eq!(first.get("sections").unwrap().to_text(), r#"[{"heading":"H","url":"/d#h"}]"#);
        assert!(line.contains(r#"truncated: call get_document with {"id": "d", "offset": 8} to read on"#), "{line}");
        let (rest, line) = document_part(&doc, 8, 1000);
        assert_eq!(rest.get("text").and_then(Json::as_str), Some("\u{e9}\n\n## H\nbody"));
        assert!(rest.get("next_offset").unwrap().is_null());
        assert!(line.contains("end of document"));
        let (past, _) = document_part(&doc, 500, 10);
        assert_eq!(past.get("text").and_then(Json::as_str), Some(""), "past the end: an empty part, not an error");
    }
}
