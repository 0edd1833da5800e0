//! Source extractors: HTML (a built static site), Markdown (with YAML front matter) and
//! JSONL records in the BEIR corpus shape, each turned into `sift_base::SourceDoc`s.
//! Pure: they take bytes and a relative path; the CLI does the file system work.

mod annotations;
mod api;
pub mod html;
pub mod jsonl;
pub mod markdown;

use std::fmt;

/// Why a source could not be used. `Skip` is not fatal (the build warns and goes on).
#[derive(Debug, Clone, PartialEq)]
pub enum ExtractError {
    /// Not a document (binary data, empty page): skip it with this warning.
    Skip(String),
    /// Malformed input the user must fix (the build stops and says where).
    Invalid(String),
    /// The page asks search engines not to index it (`<meta name="robots"
    /// content="noindex">`: mdBook's all-chapters `print.html`, pages kept only as old
    /// links): left out, and the build counts them in one warning.
    NoIndex,
}

impl fmt::Display for ExtractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractError::Skip(s) | ExtractError::Invalid(s) => f.write_str(s),
            ExtractError::NoIndex => f.write_str("the page is marked noindex (<meta name=\"robots\">)"),
        }
    }
}

/// Bytes as text: refuse binary data (NUL bytes), and decode invalid UTF-8 lossily so one
/// bad byte does not lose a whole page.
pub fn decode_text(bytes: &[u8], path: &str) -> Result<(String, Option<String>), ExtractError> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(ExtractError::Skip(format!("{path}: looks binary (NUL bytes); skipped")));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok((s.strip_prefix('\u{feff}').unwrap_or(s).to_string(), None)),
        Err(_) => Ok((String::from_utf8_lossy(bytes).into_owned(), Some(format!("{path}: invalid UTF-8; bad bytes replaced with U+FFFD")))),
    }
}

/// Collapse runs of whitespace to one space and trim.
pub fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The words of a relative path, for the path field: `guides/mcp-server.md` →
/// `guides mcp-server` (extension dropped; the analyzer splits the rest).
pub fn path_words(rel: &str) -> String {
    let no_ext = match rel.rfind('.') {
        Some(dot) if dot > rel.rfind('/').map_or(0, |s| s + 1) => &rel[..dot],
        _ => rel,
    };
    no_ext.replace(['/', '\\'], " ")
}

/// The folder a page lives in (first path component), as filterable metadata.
pub fn folder_of(rel: &str) -> Option<String> {
    let rel = rel.trim_start_matches("./");
    rel.find('/').map(|i| rel[..i].to_string()).filter(|f| !f.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_words_and_folder() {
        assert_eq!(path_words("guides/mcp-server.md"), "guides mcp-server");
        assert_eq!(path_words("v1.2/readme"), "v1.2 readme");
        assert_eq!(folder_of("library/os.html").as_deref(), Some("library"));
        assert_eq!(folder_of("index.html"), None);
    }

    #[test]
    fn binary_and_bad_utf8() {
        assert!(matches!(decode_text(b"\x00\x01PNG", "x.html"), Err(ExtractError::Skip(_))));
        let (s, warn) = decode_text(b"caf\xe9 ok", "x.html").unwrap();
        assert!(s.contains("ok") && warn.is_some());
    }
}
