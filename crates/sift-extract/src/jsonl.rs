//! JSONL records in the BEIR corpus shape: `{"_id", "title", "text", "url"?, "type"?,
//! "tags"?, "date"?, …}`; every other scalar field (or list of scalars) becomes metadata,
//! and a `metadata` object is flattened one level.

use crate::{collapse_ws, ExtractError};
use serde_json::Value;
use sift_base::{Section, SourceDoc};
use std::collections::BTreeMap;

/// Parse a JSONL file a line at a time from `input` (a file's reader, or bytes), handing
/// each record to `each` as it is read: a big corpus is never held as text or records.
/// Returns the warnings. A malformed line stops the build with its line number: a corpus
/// silently missing records is worse than a clear error.
pub fn extract(
    mut input: impl std::io::BufRead,
    file: &str,
    mut each: impl FnMut(SourceDoc) -> Result<(), ExtractError>,
) -> Result<Vec<String>, ExtractError> {
    let mut records = 0usize;
    let mut warnings = Vec::new();
    let mut line = Vec::new();
    for i in 0.. {
        line.clear();
        if input.read_until(b'\n', &mut line).map_err(|e| ExtractError::Invalid(format!("{file}: cannot be read ({e})")))? == 0 {
            break;
        }
        let text = std::str::from_utf8(&line).map_err(|e| ExtractError::Invalid(format!("{file}:{}: not UTF-8 ({e})", i + 1)))?;
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(text).map_err(|e| ExtractError::Invalid(format!("{file}:{}: invalid JSON: {e}", i + 1)))?;
        match record(v) {
            Ok(d) => each(d)?,
            Err(msg) => return Err(ExtractError::Invalid(format!("{file}:{}: {msg}", i + 1))),
        }
        records += 1;
    }
    if records == 0 {
        warnings.push(format!("{file}: no records"));
    }
    Ok(warnings)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn values(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().filter_map(scalar).collect(),
        other => scalar(other).into_iter().collect(),
    }
}

fn record(v: Value) -> Result<SourceDoc, String> {
    let Value::Object(mut obj) = v else { return Err("a record must be a JSON object".into()) };
    let id = obj.remove("_id").or_else(|| obj.remove("id")).as_ref().and_then(scalar).ok_or("record has no \"_id\"")?;
    if id.trim().is_empty() {
        return Err("record has an empty \"_id\"".into());
    }
    let title = obj.remove("title").as_ref().and_then(scalar).map(|s| collapse_ws(&s)).unwrap_or_default();
    let text = obj.remove("text").as_ref().and_then(scalar).unwrap_or_default();
    let url = obj.remove("url").as_ref().and_then(scalar);
    // The path field holds words someone would type for the page: its address, or an id
    // that is a path or slug; a number, hash or UUID is the collection's, not the page's.
    let path = match &url {
        Some(u) => u.trim_start_matches('#').replace(['/', '\\'], " "),
        None if slug_like(&id) => id.replace(['/', '\\'], " "),
        None => String::new(),
    };
    let url = url.unwrap_or_else(|| format!("#{id}"));
    let date = obj.remove("date").as_ref().and_then(scalar);
    let mut metadata: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Some(Value::Object(m)) = obj.remove("metadata") {
        for (k, v) in m {
            let vs = values(&v);
            if !vs.is_empty() {
                metadata.insert(k, vs);
            }
        }
    }
    for (k, v) in obj {
        let vs = values(&v);
        if !vs.is_empty() {
            metadata.insert(k, vs);
        }
    }
    Ok(SourceDoc {
        id,
        url,
        title,
        path,
        sections: vec![Section { heading: String::new(), anchor: None, text: collapse_ws(&text), symbol: None }],
        metadata,
        date,
        link_density: 0.0,
        annotations: Default::default(),
    })
}

/// A path or slug (`guides/deploy`, `getting-started`, `os.path`): a word of three letters
/// or more, not all capitals, in it (`MED-10`, `doc42` are codes), and not a long run of
/// hex digits (a hash, a UUID, an object id).
fn slug_like(id: &str) -> bool {
    let hex = id.len() >= 16 && id.chars().all(|c| c == '-' || c.is_ascii_hexdigit());
    let word = |w: &str| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic) && w.chars().any(char::is_lowercase);
    !hex && id.split(|c: char| !c.is_alphanumeric()).any(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extract(bytes: &[u8], file: &str) -> Result<(Vec<SourceDoc>, Vec<String>), ExtractError> {
        let mut docs = Vec::new();
        let warnings = super::extract(bytes, file, |d| {
            docs.push(d);
            Ok(())
        })?;
        Ok((docs, warnings))
    }

    #[test]
    fn beir_records_and_metadata() {
        let src =
            br#"{"_id": "1", "title": "Wing", "text": "lift  and drag", "type": "paper", "tags": ["aero", 3], "metadata": {"year": 1960}}
{"_id": 2, "title": "Other", "text": "x", "url": "/p/2", "date": "2024-01-02"}
"#;
        let (docs, w) = extract(&src[..], "c.jsonl").unwrap();
        assert!(w.is_empty());
        assert_eq!(docs[0].id, "1");
        assert_eq!(docs[0].sections[0].text, "lift and drag");
        assert_eq!(docs[0].metadata["tags"], vec!["aero", "3"]);
        assert_eq!(docs[0].metadata["year"], vec!["1960"]);
        assert_eq!(docs[0].metadata["type"], vec!["paper"]);
        assert_eq!(docs[1].id, "2");
        assert_eq!(docs[1].url, "/p/2");
        assert_eq!(docs[1].date.as_deref(), Some("2024-01-02"));
    }

    #[test]
    fn an_id_is_searchable_only_as_a_path_or_slug_someone_would_type() {
        let path = |line: &str| extract(line.as_bytes(), "c.jsonl").unwrap().0[0].path.clone();
        assert_eq!(path(r#"{"_id": "1978", "title": "t"}"#), "", "a number is the collection's");
        assert_eq!(path(r#"{"_id": "5f8d0d55b54764421b7156c9", "title": "t"}"#), "", "an object id");
        assert_eq!(path(r#"{"_id": "0b7e7dee-87b9-4d4b-ae5f-1c2d3e4f5a6b", "title": "t"}"#), "", "a UUID");
        assert_eq!(path(r#"{"_id": "MED-10", "title": "t"}"#), "", "a code");
        assert_eq!(path(r#"{"_id": "os.path", "title": "t"}"#), "os.path");
        assert_eq!(path(r#"{"_id": "guides/getting-started", "title": "t"}"#), "guides getting-started");
        assert_eq!(path(r#"{"_id": "1978", "url": "/years/1978", "title": "t"}"#), " years 1978", "an address is the page's");
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = extract(&b"{\"_id\":\"1\"}\n{oops}\n"[..], "c.jsonl").unwrap_err();
        assert!(matches!(&e, ExtractError::Invalid(m) if m.starts_with("c.jsonl:2:")), "{e}");
        let e = extract(&b"{\"title\":\"no id\"}\n"[..], "c.jsonl").unwrap_err();
        assert!(e.to_string().contains("_id"));
        let e = extract(&b"[1,2]\n"[..], "c.jsonl").unwrap_err();
        assert!(e.to_string().contains("object"));
    }
}
