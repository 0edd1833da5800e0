//! Reading JSON text into a [`Json`] tree, and typed fields out of an object.

use super::{Json, Num, MAX_DEPTH};
use crate::error::Quoted;

/// What is wrong with a JSON text or value, said for a person (`expected ',' or '}' at
/// line 1 column 17`, `request: unknown field "x"`). Hosts make it the contract's error
/// with the code that fits: `invalid_json` for a request, `bundle_corrupt` for a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError(pub String);

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A reader's own checks (a value out of range, a name it does not know) say what is
/// wrong as text, beside the JSON's.
impl From<String> for JsonError {
    fn from(message: String) -> Self {
        JsonError(message)
    }
}

impl PartialEq<&str> for JsonError {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl From<JsonError> for String {
    fn from(e: JsonError) -> Self {
        e.0
    }
}

/// Parse a whole JSON text (surrounding whitespace allowed, nothing else). Errors say what
/// was expected and where (`expected ',' or '}' at line 1 column 17`).
pub fn parse(bytes: &[u8]) -> Result<Json, JsonError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, col) = line_col(bytes, e.valid_up_to());
        msg!("invalid UTF-8 at line {} column {}", line, col)
    })?;
    let mut p = Parser { s: text.as_bytes(), i: 0, depth: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i < p.s.len() {
        return Err(JsonError(p.err("trailing characters")));
    }
    Ok(v)
}

fn line_col(s: &[u8], at: usize) -> (usize, usize) {
    let before = &s[..at.min(s.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = before.len() - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    (line, col)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        let (line, col) = line_col(self.s, self.i);
        msg!("{} at line {} column {}", what, line, col)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.i += usize::from(hit);
        hit
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("expected a value"))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        match self.peek() {
            None => Err(self.err("unexpected end of input")),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'-' | b'0'..=b'9') => self.number().map(Json::Num),
            Some(b'[') => self.nested(Self::array),
            Some(b'{') => self.nested(Self::object),
            Some(_) => Err(self.err("expected a value")),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Json, String>) -> Result<Json, String> {
        if self.depth == MAX_DEPTH {
            return Err(self.err(&msg!("nested more than {} deep", MAX_DEPTH)));
        }
        self.depth += 1;
        self.i += 1; // the opening bracket
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn array(&mut self) -> Result<Json, String> {
        let mut items = Vec::new();
        self.ws();
        if self.eat(b']') {
            return Ok(Json::Arr(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            if self.eat(b']') {
                return Ok(Json::Arr(items));
            }
            if !self.eat(b',') {
                return Err(self.err("expected ',' or ']'"));
            }
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        let mut members = Vec::new();
        self.ws();
        if self.eat(b'}') {
            return Ok(Json::Obj(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a member name (a string)"));
            }
            let k = self.string()?;
            self.ws();
            if !self.eat(b':') {
                return Err(self.err("expected ':'"));
            }
            self.ws();
            members.push((k, self.value()?));
            self.ws();
            if self.eat(b'}') {
                return Ok(Json::Obj(members));
            }
            if !self.eat(b',') {
                return Err(self.err("expected ',' or '}'"));
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // The input is UTF-8 and the run stops at ASCII bytes, so it is whole characters.
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("invalid UTF-8"))?);
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.i += 1;
                            out.push(self.unicode_escape()?);
                            continue;
                        }
                        _ => return Err(self.err("invalid escape")),
                    };
                    self.i += 1;
                    out.push(c);
                }
                Some(_) => return Err(self.err("control character in a string")),
            }
        }
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` for a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let hi = self.hex4()?;
        let cp = match hi {
            0xD800..=0xDBFF => {
                if !(self.eat(b'\\') && self.eat(b'u')) {
                    return Err(self.err("unpaired surrogate in a \\u escape"));
                }
                let lo = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&lo) {
                    return Err(self.err("unpaired surrogate in a \\u escape"));
                }
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.err("unpaired surrogate in a \\u escape")),
            _ => hi,
        };
        char::from_u32(cp).ok_or_else(|| self.err("invalid \\u escape"))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.s.get(self.i..self.i + 4).ok_or_else(|| self.err("truncated \\u escape"))?;
        let mut v = 0u32;
        for &d in digits {
            let x = (d as char).to_digit(16).ok_or_else(|| self.err("invalid \\u escape"))?;
            v = v * 16 + x;
        }
        self.i += 4;
        Ok(v)
    }

    fn number(&mut self) -> Result<Num, String> {
        let start = self.i;
        self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err("invalid number")),
        }
        let mut float = false;
        if self.eat(b'.') {
            float = true;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err("invalid number"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            float = true;
            self.i += 1;
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err("invalid number"));
            }
            self.digits();
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("invalid number"))?;
        if !float {
            if let Ok(u) = text.parse::<u64>() {
                return Ok(Num::UInt(u));
            }
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Num::Int(i));
            }
        }
        Ok(Num::Decimal(text.to_string()))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
    }
}

/// The members of a JSON object that a typed reader takes apart: each name looked up once,
/// unknown names refused (where the shape says so), a repeated name always refused.
pub struct Fields<'a> {
    what: &'a str,
    members: &'a [(String, Json)],
}

impl<'a> Fields<'a> {
    /// `what`: the object's name in error messages; `known`: its member names, or None to
    /// ignore members it does not know (a manifest written by a newer build).
    pub fn of(v: &'a Json, what: &'a str, known: Option<&[&str]>) -> Result<Fields<'a>, JsonError> {
        let Json::Obj(members) = v else {
            return Err(JsonError(msg!("{} must be an object, not {}", what, v.kind())));
        };
        for (i, (k, _)) in members.iter().enumerate() {
            if members[..i].iter().any(|(p, _)| p == k) {
                return Err(JsonError(msg!("{}: the field {} appears twice", what, Quoted(k))));
            }
            if let Some(known) = known {
                if !known.contains(&k.as_str()) {
                    return Err(JsonError(msg!("{}: unknown field {}; expected one of {}", what, Quoted(k), known.join(", "))));
                }
            }
        }
        Ok(Fields { what, members })
    }

    /// A member's value; `null` counts as absent (as for an optional field).
    pub fn get(&self, name: &str) -> Option<&'a Json> {
        self.members.iter().find(|(k, _)| k == name).map(|(_, v)| v).filter(|v| !v.is_null())
    }

    /// A member that must be present.
    pub fn need(&self, name: &str) -> Result<&'a Json, JsonError> {
        self.get(name).ok_or_else(|| JsonError(self.missing(name)))
    }

    /// What [`Fields::need`] says of a member that is not there.
    pub fn missing(&self, name: &str) -> String {
        msg!("{}: missing field {}", self.what, Quoted(name))
    }

    fn typed<T>(&self, name: &str, v: &Json, want: &str, got: Option<T>) -> Result<T, JsonError> {
        got.ok_or_else(|| JsonError(msg!("{}: field {} must be {}, not {}", self.what, Quoted(name), want, v.kind())))
    }

    pub fn opt_str(&self, name: &str) -> Result<Option<String>, JsonError> {
        self.get(name).map(|v| self.typed(name, v, "a string", v.as_str().map(str::to_string))).transpose()
    }

    pub fn str(&self, name: &str) -> Result<String, JsonError> {
        let v = self.need(name)?;
        self.typed(name, v, "a string", v.as_str().map(str::to_string))
    }

    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, JsonError> {
        self.get(name).map(|v| self.typed(name, v, "true or false", if let Json::Bool(b) = v { Some(*b) } else { None })).transpose()
    }

    /// An integer member (a number with a fraction or exponent is refused).
    pub fn opt_i64(&self, name: &str) -> Result<Option<i64>, JsonError> {
        self.get(name).map(|v| self.typed(name, v, "an integer", as_i64(v))).transpose()
    }

    /// A whole number in `0..=max`.
    pub fn uint(&self, name: &str, max: u64) -> Result<u64, JsonError> {
        let v = self.need(name)?;
        self.typed(name, v, &msg!("a whole number up to {}", max), as_u64(v).filter(|&u| u <= max))
    }

    pub fn opt_uint(&self, name: &str, max: u64) -> Result<Option<u64>, JsonError> {
        match self.get(name) {
            None => Ok(None),
            Some(_) => self.uint(name, max).map(Some),
        }
    }

    /// An array member (absent or null: empty), each item read by `item`.
    pub fn list<T, E: Into<JsonError>>(&self, name: &str, item: impl Fn(&'a Json) -> Result<T, E>) -> Result<Vec<T>, JsonError> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(Json::Arr(items)) => items.iter().map(|x| item(x).map_err(Into::into)).collect(),
            Some(v) => Err(JsonError(msg!("{}: field {} must be an array, not {}", self.what, Quoted(name), v.kind()))),
        }
    }
}

pub fn as_i64(v: &Json) -> Option<i64> {
    match *v {
        Json::Num(Num::Int(i)) => Some(i),
        Json::Num(Num::UInt(u)) => i64::try_from(u).ok(),
        _ => None,
    }
}

pub fn as_u64(v: &Json) -> Option<u64> {
    match *v {
        Json::Num(Num::Int(i)) => u64::try_from(i).ok(),
        Json::Num(Num::UInt(u)) => Some(u),
        _ => None,
    }
}

/// A string, or an error naming what it is in.
pub fn string_in(v: &Json, what: &str) -> Result<String, JsonError> {
    v.as_str().map(str::to_string).ok_or_else(|| JsonError(msg!("{} must be a string, not {}", what, v.kind())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Json {
        parse(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    #[test]
    fn values_of_every_kind() {
        assert_eq!(ok(" null "), Json::Null);
        assert_eq!(ok("[true,false]"), Json::Arr(vec![Json::Bool(true), Json::Bool(false)]));
        assert_eq!(ok(r#"{"a" : {"b":[]}}"#), Json::obj([("a", Json::obj([("b", Json::Arr(vec![]))]))]));
        assert_eq!(ok("-12"), Json::Num(Num::Int(-12)));
        assert_eq!(ok("18446744073709551615"), Json::Num(Num::UInt(u64::MAX)));
        assert_eq!(ok("18446744073709551616"), Json::Num(Num::Decimal("18446744073709551616".into())));
        assert_eq!(ok("1.5e2"), Json::Num(Num::Decimal("1.5e2".into())));
        assert_eq!(ok("-0.0"), Json::Num(Num::Decimal("-0.0".into())));
        assert_eq!(ok("1e999"), Json::Num(Num::Decimal("1e999".into())), "a decimal is kept as text, whatever its size");
        assert_eq!(ok(r#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#), Json::from("a\"\\/\u{8}\u{c}\n\r\té😀"));
        assert_eq!(ok("\"語\""), Json::from("語"));
    }

    #[test]
    fn malformed_texts_are_refused_with_where() {
        for bad in [
            "",
            " ",
            "nul",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "[1 2]",
            "01",
            "1.",
            ".5",
            "1e",
            "-",
            "+1",
            "\"abc",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"\\u12\"",
            "\"a\u{1}b\"",
            "[] []",
            "{\"a\" 1}",
            "'a'",
            "NaN",
            "[",
            "{",
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad:?} parsed");
        }
        assert_eq!(parse(b"[1,\n 2 x]").unwrap_err(), "expected ',' or ']' at line 2 column 4");
        assert!(parse(&[b'"', 0xff, b'"']).unwrap_err().0.starts_with("invalid UTF-8"));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(deep(MAX_DEPTH).as_bytes()).is_ok());
        assert_eq!(MAX_DEPTH, 127, "serde_json's limit");
        assert!(parse(deep(MAX_DEPTH + 1).as_bytes()).unwrap_err().0.contains("nested more than"));
        // Far deeper than the stack could take is an error, not a crash.
        assert!(parse(deep(100_000).as_bytes()).is_err());
    }

    #[test]
    fn fields_refuse_unknown_and_repeated_names_and_check_types() {
        let v = ok(r#"{"query":"x","limit":3,"flag":null}"#);
        let f = Fields::of(&v, "request", Some(&["query", "limit", "flag"])).unwrap();
        assert_eq!(f.str("query").unwrap(), "x");
        assert_eq!(f.opt_i64("limit").unwrap(), Some(3));
        assert_eq!(f.opt_bool("flag").unwrap(), None, "null is absent");
        assert_eq!(f.opt_str("limit").unwrap_err(), "request: field \"limit\" must be a string, not an integer");
        assert_eq!(f.str("nope").unwrap_err(), "request: missing field \"nope\"");
        let e = Fields::of(&v, "request", Some(&["query"])).err().unwrap();
        assert_eq!(e, "request: unknown field \"limit\"; expected one of query");
        assert!(Fields::of(&ok(r#"{"a":1,"a":2}"#), "x", None).err().unwrap().0.contains("appears twice"));
        assert!(Fields::of(&ok("[]"), "request", None).err().unwrap().0.contains("must be an object, not an array"));
        let f = Fields::of(&v, "m", None).unwrap();
        assert!(f.opt_i64("query").is_err());
        assert_eq!(as_i64(&ok("1.0")), None, "an integer field refuses a float");
        assert_eq!(as_i64(&ok("18446744073709551615")), None);
    }
}
