//! Writing a [`Json`] tree as text, compact or indented (see `json/mod.rs` for the rules).

use super::number::{shortest, Width};
use super::{Json, Num};
use crate::text;

/// `indent`: None for compact text; Some(level) for the pretty form at that nesting level.
pub(super) fn value(out: &mut String, v: &Json, indent: Option<usize>) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => number(out, *n),
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

/// Integers as integers, floats in their shortest round-trip form with a `.0` when integral
/// (what serde_json prints).
pub(super) fn number(out: &mut String, n: Num) {
    match n {
        Num::Int(i) => text::push_int(out, i),
        Num::UInt(u) => text::push_uint(out, u),
        Num::Float(x) => float(out, x, Width::F64),
        Num::F32(x) => float(out, f64::from(x), Width::F32),
    }
}

/// The shortest text that reads back as `x` (`number::shortest`: what Rust's `{}` and `{:e}`
/// print), with `.0` added when it is integral, so a float stays a float to a reader that
/// tells them apart; very small and very large magnitudes in exponent form (`5.4e-39`, not
/// 39 zeros). `x` is an f64, or an f32 (widened) written in its own, shorter form.
fn float(out: &mut String, x: f64, width: Width) {
    if !x.is_finite() {
        return out.push_str("null");
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    if x == 0.0 {
        return out.push_str("0.0");
    }
    let (digits, exp) = shortest(x.abs(), width);
    let d = text::uint(digits);
    let n = d.len() as i64;
    let lead = exp + n - 1; // the leading digit's power of ten
    let zeros = |out: &mut String, k: i64| (0..k).for_each(|_| out.push('0'));
    if !(1e-5..1e16).contains(&x.abs()) {
        out.push_str(&d[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&d[1..]);
        }
        out.push('e');
        text::push_int(out, lead);
    } else if exp >= 0 {
        out.push_str(&d);
        zeros(out, exp);
        out.push_str(".0");
    } else if lead >= 0 {
        let point = (lead + 1) as usize;
        out.push_str(&d[..point]);
        out.push('.');
        out.push_str(&d[point..]);
    } else {
        out.push_str("0.");
        zeros(out, -lead - 1);
        out.push_str(&d);
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
    fn numbers_in_their_shortest_form() {
        assert_eq!(Json::from(0.7965f32).to_text(), "0.7965");
        assert_eq!(Json::from(2.0f32).to_text(), "2.0");
        assert_eq!(Json::from(-0.5f64).to_text(), "-0.5");
        assert_eq!(Json::from(1e-7f64).to_text(), "1e-7");
        assert_eq!(Json::from(0.00012f64).to_text(), "0.00012");
        assert_eq!(Json::from(-5.3698850165729164e-39f64).to_text(), "-5.3698850165729164e-39");
        assert_eq!(Json::from(1e21f64).to_text(), "1e21");
        assert_eq!(Json::from(0.0f64).to_text(), "0.0");
        assert_eq!(Json::from(f32::NAN).to_text(), "null");
        assert_eq!(Json::from(f64::INFINITY).to_text(), "null");
        assert_eq!(Json::Num(Num::Int(-3)).to_text(), "-3");
        assert_eq!(Json::from(u64::MAX).to_text(), "18446744073709551615");
    }
}
