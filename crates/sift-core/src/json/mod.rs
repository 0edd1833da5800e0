//! JSON, small: the one reader and writer of every JSON text the engine speaks — the
//! contract's requests and responses, `manifest.json`, the document store's payload and
//! `explain`. Native surfaces and the browser runtime use this same code, so they cannot
//! disagree on what a request means.
//!
//! Why not serde/serde_json: in the browser engine they were about 73 kB of the wasm's code
//! before optimisation (a third of what the engine is besides), for a handful of fixed
//! shapes. Here a text parses into a [`Json`] tree ([`parse`]), typed values are read from
//! it by hand with [`Fields`] (which refuses unknown and repeated fields where the contract
//! does), and written back with [`Json::to_text`] / [`Json::to_pretty_text`].
//!
//! What it accepts is RFC 8259 JSON, as serde_json does: UTF-8 only, no trailing commas or
//! comments, escapes checked (a lone surrogate is an error), nesting at most
//! [`MAX_DEPTH`] deep, numbers finite. `tests/json_codec.rs` checks it against serde_json on
//! valid and invalid texts; the `request_json` fuzz target runs it on arbitrary bytes.
//!
//! How it writes: object members in the order given, strings escaped as serde_json does
//! (`"`, `\`, control characters; nothing else), floats in their shortest round-trip form
//! (`0.7965`, an integral float as `2.0`, below 1e-5 or from 1e16 in exponent form:
//! `5.4e-39`), non-finite floats as `null`; the pretty form
//! indents by two spaces as `serde_json::to_string_pretty` does.

mod number;
#[cfg(not(feature = "exact-numbers"))]
pub use number::{lend_host, Host as NumberHost};
mod read;
mod write;

pub use read::{as_f64, as_i64, as_u64, parse, string_in, Fields};

/// Objects and arrays nested deeper than this are refused (a stack guard; serde_json's
/// limit, which allows 127 levels, too).
pub const MAX_DEPTH: usize = 127;

/// A JSON value. Objects keep their members in order (duplicates too: typed readers decide
/// whether a repeated name is an error).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(Num),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// A number as written: integers stay exact (as serde_json keeps them), anything with a
/// fraction or exponent, or out of the 64-bit range, is an f64. `F32` is an f32 the engine
/// computed (a score), kept as one so it is written in its own shortest form (`0.7965`,
/// not the f64 widening `0.7965000271797180`); the reader never makes one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    UInt(u64),
    Float(f64),
    F32(f32),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::UInt(u) => u as f64,
            Num::Float(f) => f,
            Num::F32(f) => f64::from(f),
        }
    }
}

impl std::fmt::Display for Num {
    /// Integers as integers, floats in their shortest round-trip form with a `.0` when
    /// integral (what serde_json prints).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = String::new();
        write::number(&mut text, *self);
        f.write_str(&text)
    }
}

impl Json {
    /// A JSON object from `(name, value)` members, in order.
    pub fn obj<K: Into<String>>(members: impl IntoIterator<Item = (K, Json)>) -> Json {
        Json::Obj(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// An object member's value (the first, if the name repeats).
    pub fn get(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Set an object member: replace its value if the name is there, else append it.
    /// (Does nothing on a value that is not an object.)
    pub fn set(&mut self, name: &str, value: Json) {
        if let Json::Obj(m) = self {
            match m.iter_mut().find(|(k, _)| k == name) {
                Some((_, v)) => *v = value,
                None => m.push((name.to_string(), value)),
            }
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// What kind of value this is, for error messages (`expected a string, got a number`).
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Num(Num::Float(_) | Num::F32(_)) => "a floating-point number",
            Json::Num(_) => "an integer",
            Json::Str(_) => "a string",
            Json::Arr(_) => "an array",
            Json::Obj(_) => "an object",
        }
    }

    /// Compact text, as the contract crosses the wire.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        write::value(&mut out, self, None);
        out
    }

    /// Indented text (two spaces), for files people read and the CLI's `--json`.
    pub fn to_pretty_text(&self) -> String {
        let mut out = String::new();
        write::value(&mut out, self, Some(0));
        out
    }
}

/// One JSON number as the engine reads and writes it: `text` read as an f64 (narrowed to an
/// f32 when `f32`, as scores are) and written back. The native engine's answers are what
/// tests/wasm/numbers.test.mjs holds the wasm engines' host-lent arithmetic to (through the
/// full runtime's `numberText`).
pub fn number_text(text: &str, f32: bool) -> Result<String, String> {
    match parse(text.as_bytes())? {
        Json::Num(n) if f32 => Ok(Json::from(n.as_f64() as f32).to_text()),
        Json::Num(n) => Ok(Json::from(n.as_f64()).to_text()),
        other => Err(msg!("not a number: {}", other.kind())),
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::Str(s.to_string())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::Str(s)
    }
}

impl From<&String> for Json {
    fn from(s: &String) -> Json {
        Json::Str(s.clone())
    }
}

impl From<f32> for Json {
    fn from(x: f32) -> Json {
        Json::Num(Num::F32(x))
    }
}

impl From<f64> for Json {
    fn from(x: f64) -> Json {
        Json::Num(Num::Float(x))
    }
}

macro_rules! json_from_int {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Json {
            fn from(x: $t) -> Json {
                Json::Num(Num::$v(x as _))
            }
        }
    )*};
}
json_from_int!(u8 => UInt, u16 => UInt, u32 => UInt, u64 => UInt, usize => UInt, i32 => Int, i64 => Int);

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(v: Option<T>) -> Json {
        v.map_or(Json::Null, Into::into)
    }
}

impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(v: Vec<T>) -> Json {
        Json::Arr(v.into_iter().map(Into::into).collect())
    }
}

impl<T: Clone + Into<Json>> From<&[T]> for Json {
    fn from(v: &[T]) -> Json {
        Json::Arr(v.iter().cloned().map(Into::into).collect())
    }
}

impl<V: Clone + Into<Json>> From<&std::collections::BTreeMap<String, V>> for Json {
    fn from(m: &std::collections::BTreeMap<String, V>) -> Json {
        Json::Obj(m.iter().map(|(k, v)| (k.clone(), v.clone().into())).collect())
    }
}

/// Types the engine writes as JSON.
pub trait ToJson {
    fn to_json(&self) -> Json;
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Json {
        self.as_ref().map_or(Json::Null, ToJson::to_json)
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self) -> Json {
        Json::Arr(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Json {
        self.as_slice().to_json()
    }
}

/// Object members from `(name, value)` pairs, leaving out those `keep` is false for (the
/// contract omits empty optional members).
pub(crate) fn members(pairs: Vec<(&'static str, Json, bool)>) -> Json {
    Json::Obj(pairs.into_iter().filter(|p| p.2).map(|(k, v, _)| (k.to_string(), v)).collect())
}
