//! The one error type of the engine. Every public entry point returns it, and it maps
//! directly onto the contract's `{"error": {"code", "message"}}` object.

use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SiftError {
    pub code: &'static str,
    pub message: String,
}

impl SiftError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        SiftError { code, message: message.into() }
    }
    /// Bad input from the caller (a request field, a query).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new("invalid_request", message)
    }
    /// Bundle bytes that do not decode: truncated, flipped, or from another build.
    pub fn corrupt(message: impl Into<String>) -> Self {
        Self::new("bundle_corrupt", message)
    }
    /// Whether the caller (not the bundle or the engine) is at fault: HTTP 400 territory.
    pub fn is_client_error(&self) -> bool {
        !matches!(self.code, "bundle_corrupt" | "bundle_version" | "bundle_missing" | "internal")
    }
    /// The contract's error object.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "error": { "code": self.code, "message": self.message } })
    }
}

impl fmt::Display for SiftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for SiftError {}
