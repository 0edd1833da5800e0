//! The one error type of the engine, and the closed list of error codes every surface
//! speaks. Every public entry point returns `SiftError`; it maps directly onto the
//! contract's `{"error": {"code", "message"}}` object. Each code has a class that decides
//! the HTTP status (worker), the exit status (CLI) and whether the caller is at fault;
//! `tests/contract_js.rs` writes the same table into `www/src/contract.js` for the
//! JavaScript surfaces, so the two cannot disagree.
//!
//! Every error has its text in every runtime: call sites write `msg!` (positional `{}`s,
//! no `core::fmt`) or a literal.

use crate::json::{Json, ToJson};
use std::fmt;

/// Who is at fault, and so how a surface reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Bad input from the caller: HTTP 400, CLI exit 2.
    Client,
    /// The caller asked for something that does not exist: HTTP 404, CLI exit 2.
    NotFound,
    /// The request body is over the size limit: HTTP 413.
    TooLarge,
    /// The HTTP method is not allowed on the route: HTTP 405.
    MethodNotAllowed,
    /// The bundle, the runtime or the host failed (not the caller): HTTP 500, CLI exit 1.
    Server,
}

impl ErrorClass {
    pub fn http_status(self) -> u16 {
        match self {
            ErrorClass::Client => 400,
            ErrorClass::NotFound => 404,
            ErrorClass::TooLarge => 413,
            ErrorClass::MethodNotAllowed => 405,
            ErrorClass::Server => 500,
        }
    }
}

macro_rules! error_codes {
    ($($variant:ident = $code:literal, $class:ident, $meaning:literal;)*) => {
        /// Every error code of the contract.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode { $($variant),* }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code),* }
            }

            pub fn class(self) -> ErrorClass {
                match self { $(ErrorCode::$variant => ErrorClass::$class),* }
            }

            /// What the code means, for documentation and generated clients.
            pub fn meaning(self) -> &'static str {
                match self { $(ErrorCode::$variant => $meaning),* }
            }
        }
    };
}

error_codes! {
    EmptyQuery = "empty_query", Client, "the query is empty";
    QueryTooLong = "query_too_long", Client, "the query is over the byte or term limit";
    InvalidLimit = "invalid_limit", Client, "limit is not an integer from 1 to the maximum";
    InvalidOffset = "invalid_offset", Client, "offset is negative or over the maximum";
    InvalidMode = "invalid_mode", Client, "mode is not auto, lexical, semantic or hybrid";
    InvalidSort = "invalid_sort", Client, "sort is not relevance or date";
    InvalidSince = "invalid_since", Client, "since is not an ISO date or a span like 7d";
    InvalidFilter = "invalid_filter", Client, "a filter is malformed (empty list, FIELD=VALUE expected)";
    UnknownFilter = "unknown_filter", Client, "a filter names a field the bundle cannot filter on";
    InvalidJson = "invalid_json", Client, "the request is not valid JSON or has unknown fields";
    InvalidRequest = "invalid_request", Client, "the request is malformed in another way";
    TooManyQueries = "too_many_queries", Client, "multi_search got more queries than it takes";
    NoVectors = "no_vectors", Client, "semantic or hybrid search on a bundle built without vectors";
    EmbedderRequired = "embedder_required", Client, "the request needs a query vector the host did not give";
    NotFound = "not_found", NotFound, "no such document or route";
    PayloadTooLarge = "payload_too_large", TooLarge, "the request body is over the size limit";
    MethodNotAllowed = "method_not_allowed", MethodNotAllowed, "the HTTP method is not allowed on this route";
    EmbedderUnavailable = "embedder_unavailable", Server, "the query embedder (model) could not be loaded";
    BundleMissing = "bundle_missing", Server, "no bundle (or no shard) where one was expected";
    BundleCorrupt = "bundle_corrupt", Server, "a bundle file is truncated, damaged or from another build";
    BundleVersion = "bundle_version", Server, "the bundle was written in a format this build does not read";
    Network = "network", Server, "a bundle file could not be fetched";
    RuntimeUnavailable = "runtime_unavailable", Server, "the wasm runtime could not be loaded";
    FullRuntimeRequired = "full_runtime_required", Client, "a browser runtime built without a feature was asked for it (sift.js asks the full runtime instead)";
    Internal = "internal", Server, "a bug: the engine failed unexpectedly";
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<ErrorCode> for &str {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == other.as_str()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiftError {
    pub code: ErrorCode,
    pub message: String,
}

impl SiftError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        SiftError { code, message: message.into() }
    }
    /// Bad input from the caller (a request field, a query).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }
    /// Bundle bytes that do not decode: truncated, flipped, or from another build.
    pub fn corrupt(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BundleCorrupt, message)
    }
    /// What a browser engine built without a feature answers when asked for it, before it
    /// reads anything: sift.js asks the full runtime instead (native builds and the full
    /// runtime have every feature). `what`: the feature, as the caller named it.
    pub fn full_runtime_required(what: &str) -> Self {
        Self::new(
            ErrorCode::FullRuntimeRequired,
            msg!("{} is not built into this runtime (a browser engine); sift.js answers it with the full runtime", what),
        )
    }
    /// A bug surfaced as an error rather than a panic.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
    /// Whether the caller (not the bundle or the engine) is at fault: HTTP 4xx territory.
    pub fn is_client_error(&self) -> bool {
        self.code.class() != ErrorClass::Server
    }
    /// The contract's error object, `{"error": {code, message}}`.
    pub fn to_error_object(&self) -> Json {
        Json::obj([("error", self.to_json())])
    }
}

/// `{code, message}`: how an error crosses to a host (the wasm runtime's errors).
impl ToJson for SiftError {
    fn to_json(&self) -> Json {
        Json::obj([("code", Json::from(self.code.as_str())), ("message", Json::from(&self.message))])
    }
}

impl fmt::Display for SiftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for SiftError {}

/// Text quoted for a message as a JSON string literal: `"text"`, with quotes, backslashes
/// and control characters escaped (the JSON writer's own escaping). (Not `{:?}`: str's
/// Debug brings core's Unicode printability tables into the browser engine.)
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Json::from(self.0).to_text())
    }
}

impl crate::text::Arg for Quoted<'_> {
    fn push_to(&self, out: &mut String) {
        out.push_str(&Json::from(self.0).to_text());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case_and_classed() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert!(c.as_str().chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'), "{c}");
            assert!(!c.meaning().is_empty());
        }
        assert!(!SiftError::corrupt("x").is_client_error());
        assert!(SiftError::new(ErrorCode::NotFound, "x").is_client_error());
        assert_eq!(SiftError::new(ErrorCode::PayloadTooLarge, "x").code.class().http_status(), 413);
        assert_eq!(SiftError::invalid("x").to_error_object().to_text(), r#"{"error":{"code":"invalid_request","message":"x"}}"#);
    }

    #[test]
    fn quoted_text_escapes_what_would_break_the_message() {
        assert_eq!(Quoted("plain").to_string(), "\"plain\"");
        assert_eq!(Quoted("a \"b\" \\ c").to_string(), r#""a \"b\" \\ c""#);
        assert_eq!(Quoted("line\nnext\ttab\u{0}\u{1f}").to_string(), r#""line\nnext\ttab\u0000\u001f""#);
        // Everything else as it is (Debug would escape some of it; a message need not).
        assert_eq!(Quoted("naïve ㈱ 😀").to_string(), "\"naïve ㈱ 😀\"");
        // As Debug for what messages usually quote.
        for s in ["field", "unknown_field", "a-b", "x y", "a \"b\""] {
            assert_eq!(Quoted(s).to_string(), format!("{s:?}"));
        }
    }
}
