//! Writing a [`Json`] tree as text, compact or indented (see `json/mod.rs` for the rules).

use super::{Json, Num};
use crate::text;

/// `indent`: None for compact text; Some(level) for the pretty form at that nesting level.
pub(super) fn value(out: &mut String, v: &Json, indent: Option<usize>) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => number(out, n),
        Json::Str(s) => string(out, s),
        Json::Arr(items) => {
            container(out, '[', ']', items.len(), indent, |out, i, inner| value(out, &items[i], inner));
        }
        Json::Obj(members) => {
            container(out, '{', '}', members.len(), indent, |out, i, inner| {
                string(out, &members[i].0);
                out.push_str(if inner.is_some() { ": " } else { ":" });
                value(out, &members[i].1, inner);
            });
        }
    }
}

fn container(
    out: &mut String,
    open: char,
    close: char,
    n: usize,
    indent: Option<usize>,
    mut item: impl FnMut(&mut String, usize, Option<usize>),
) {
    out.push(open);
    let inner = indent.map(|l| l + 1);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        if let Some(l) = inner {
            newline(out, l);
        }
        item(out, i, inner);
    }
    if let (Some(l), true) = (indent, n > 0) {
        newline(out, l);
    }
    out.push(close);
}

fn newline(out: &mut String, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// Integers as integers, decimals as their text.
pub(super) fn number(out: &mut String, n: &Num) {
    match n {
        Num::Int(i) => text::push_int(out, *i),
        Num::UInt(u) => text::push_uint(out, *u),
        Num::Decimal(d) => out.push_str(d),
    }
}

/// A string literal: `"` and `\` escaped, control characters as `\n`, `\t`… or `\u00XX`;
/// everything else as it is (JSON text is UTF-8).
fn string(out: &mut String, s: &str) {
    out.push('"');
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        if esc.is_empty() {
            out.push_str("\\u00");
            text::push_hex(out, &[b]);
        } else {
            out.push_str(esc);
        }
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::super::{Json, Num};

    #[test]
    fn compact_and_pretty_forms() {
        let v = Json::obj([
            ("a", Json::from(1u32)),
            ("b", Json::Arr(vec![Json::Bool(true), Json::Null])),
            ("c", Json::Obj(vec![])),
            ("d", Json::Arr(vec![])),
        ]);
        assert_eq!(v.to_text(), r#"{"a":1,"b":[true,null],"c":{},"d":[]}"#);
        assert_eq!(v.to_pretty_text(), "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n  \"c\": {},\n  \"d\": []\n}");
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_control_characters_only() {
        let v = Json::from("a\"b\\c\nd\te\u{1}f/é\u{7f}<>&");
        assert_eq!(v.to_text(), "\"a\\\"b\\\\c\\nd\\te\\u0001f/é\u{7f}<>&\"");
    }

    #[test]
    fn computed_numbers_are_fixed_point_with_four_places_at_most() {
        assert_eq!(Json::from(0.7965f32).to_text(), "0.7965");
        assert_eq!(Json::from(2.0f32).to_text(), "2.0");
        assert_eq!(Json::from(-0.5f64).to_text(), "-0.5");
        assert_eq!(Json::from(0.00012f64).to_text(), "0.0001");
        assert_eq!(Json::from(1e-7f64).to_text(), "0.0");
        assert_eq!(Json::from(-1e-7f64).to_text(), "0.0", "no negative zero");
        assert_eq!(Json::from(12.34567f64).to_text(), "12.3457");
        assert_eq!(Json::from(0.0f64).to_text(), "0.0");
        assert_eq!(Json::from(f32::NAN).to_text(), "null");
        assert_eq!(Json::from(f64::INFINITY).to_text(), "null");
        assert_eq!(Json::Num(Num::Int(-3)).to_text(), "-3");
        assert_eq!(Json::from(u64::MAX).to_text(), "18446744073709551615");
        assert_eq!(Json::Num(Num::Decimal("1.5e2".into())).to_text(), "1.5e2", "a read decimal keeps its text");
    }
}
