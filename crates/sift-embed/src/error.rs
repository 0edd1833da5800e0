//! The embedder's one error: what went wrong, said for a person (a tokenizer file that is
//! not one, a model that cannot be converted, loaded or run).

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct EmbedError(pub String);

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmbedError {}

/// The converter's and the graph passes' steps say what failed as text.
impl From<String> for EmbedError {
    fn from(message: String) -> Self {
        EmbedError(message)
    }
}

impl From<&str> for EmbedError {
    fn from(message: &str) -> Self {
        EmbedError(message.to_string())
    }
}
