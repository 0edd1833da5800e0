//! JSON, small: the one reader and writer of every JSON text the engine speaks — the
//! contract's requests and responses, `manifest.json`, the document store's payload and
//! `explain`. Native surfaces and the browser runtime use this same code, so they cannot
//! disagree on what a request means.
//!
//! Why not serde/serde_json: in the browser engine they would be a third again of its
//! code, for a handful of fixed shapes. Here a text parses into a [`Json`] tree ([`parse`]), typed values are read from
//! it by hand with [`Fields`] (which refuses unknown and repeated fields where the contract
//! does), and written back with [`Json::to_text`] / [`Json::to_pretty_text`].
//!
//! What it accepts is RFC 8259 JSON, as serde_json does: UTF-8 only, no trailing commas or
//! comments, escapes checked (a lone surrogate is an error), nesting at most
//! [`MAX_DEPTH`] deep, numbers finite. `tests/json_codec.rs` checks it against serde_json on
//! valid and invalid texts; the `request_json` fuzz target runs it on arbitrary bytes.
//!
//! Numbers: integers are read and written exactly; a number with a fraction or an exponent
//! is kept as the text it was written in (the engine reads no float from JSON: the
//! manifest's numbers are integers, and a filter value is matched as its text). The
//! numbers the engine computes (scores, explanations, timings) are written as fixed-point
//! decimals of at most four places (`0.7965`, `1.0`); a non-finite one as `null`.
//!
//! How it writes: object members in the order given, strings escaped as serde_json does
//! (`"`, `\`, control characters; nothing else); the pretty form indents by two spaces as
//! `serde_json::to_string_pretty` does.

mod read;
mod write;

pub use read::{as_i64, as_u64, parse, string_in, Fields, JsonError};

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

/// A number: integers exact, anything else as its decimal text (as read, or as the engine
/// wrote it: [`Json::fixed`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    Int(i64),
    UInt(u64),
    Decimal(String),
}

impl Num {
    /// The number as JSON writes it (a filter value is matched as this text).
    pub fn text(&self) -> String {
        let mut text = String::new();
        write::number(&mut text, self);
        text
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
            Json::Num(Num::Decimal(_)) => "a floating-point number",
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

impl Json {
    /// `x` as a fixed-point decimal of at most four places, trailing zeros dropped but one
    /// (`0.7965`, `1.0`, `-2.5`); `null` when it is not finite.
    pub fn fixed(x: f64) -> Json {
        if !x.is_finite() {
            return Json::Null;
        }
        let scaled = (x.abs() * 10_000.0).round() as u64; // saturates past u64's range
        let mut text = String::new();
        if x < 0.0 && scaled > 0 {
            text.push('-');
        }
        crate::text::push_uint(&mut text, scaled / 10_000);
        text.push('.');
        let frac = crate::text::uint(10_000 + scaled % 10_000);
        text.push_str(frac[1..].trim_end_matches('0'));
        if text.ends_with('.') {
            text.push('0');
        }
        Json::Num(Num::Decimal(text))
    }
}

impl From<f32> for Json {
    fn from(x: f32) -> Json {
        Json::fixed(f64::from(x))
    }
}

impl From<f64> for Json {
    fn from(x: f64) -> Json {
        Json::fixed(x)
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
pub fn members(pairs: Vec<(&'static str, Json, bool)>) -> Json {
    Json::Obj(pairs.into_iter().filter(|p| p.2).map(|(k, v, _)| (k.to_string(), v)).collect())
}
