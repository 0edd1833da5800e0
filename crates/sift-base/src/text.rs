//! Text the engine writes into its answers (error messages, fallback notices, file names,
//! JSON numbers), assembled without `core::fmt`, whose machinery (argument tables, padding,
//! integer and hex formatting) the browser engines would otherwise carry for a few
//! messages. `msg!` fills a message's `{}`s with [`Arg`]s.

/// A value a message can show.
pub trait Arg {
    fn push_to(&self, out: &mut String);
}

impl Arg for str {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Arg for crate::json::JsonError {
    fn push_to(&self, out: &mut String) {
        out.push_str(&self.0);
    }
}

impl Arg for String {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl<T: Arg + ?Sized> Arg for &T {
    fn push_to(&self, out: &mut String) {
        (**self).push_to(out);
    }
}

macro_rules! unsigned_arg {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            fn push_to(&self, out: &mut String) {
                push_uint(out, *self as u64);
            }
        }
    )*};
}
unsigned_arg!(u8, u16, u32, u64, usize);

impl Arg for i64 {
    fn push_to(&self, out: &mut String) {
        push_int(out, *self);
    }
}

/// `text` with each `{}` replaced by the next of `args` (`{{` and `}}` for braces).
pub fn fill(text: &str, args: &[&dyn Arg]) -> String {
    let mut out = String::with_capacity(text.len() + 16 * args.len());
    let mut args = args.iter();
    let mut rest = text;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{}") {
            if let Some(a) = args.next() {
                a.push_to(&mut out);
            }
        } else {
            out.push_str(&tail[..1]); // `{{` or `}}`
        }
        rest = &tail[2.min(tail.len())..];
    }
    out.push_str(rest);
    out
}

/// Append `n` in decimal.
pub fn push_uint(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits only.
    out.extend(digits[i..].iter().map(|&d| char::from(d)));
}

/// Append `n` in decimal, with a `-` when negative.
pub fn push_int(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_uint(out, n.unsigned_abs());
}

/// `n` in decimal.
pub fn uint(n: u64) -> String {
    let mut s = String::new();
    push_uint(&mut s, n);
    s
}

/// Append `bytes` in lowercase hex, two digits each.
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

/// Text as HTML: `&`, `<`, `>` and quotes escaped, control characters (but newlines and
/// tabs) dropped. Every title and snippet the engine writes goes through it.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// `"a", "b", "c"`: each word quoted, joined by commas (the notices name words this way).
pub fn quoted_list(words: &[String]) -> String {
    let mut s = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push('"');
        s.push_str(w);
        s.push('"');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_fill_their_placeholders_in_order() {
        assert_eq!(fill("shard {} has {} bytes, not {}", &[&"t-0.bin", &12usize, &-3i64]), "shard t-0.bin has 12 bytes, not -3");
        assert_eq!(fill("an object {{shard, docs}}: {}", &[&String::from("x")]), "an object {shard, docs}: x");
        assert_eq!(fill("no arguments", &[]), "no arguments");
    }

    #[test]
    fn integers_are_written_as_format_writes_them() {
        for n in [0u64, 1, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX - 1, u64::MAX] {
            assert_eq!(uint(n), n.to_string());
        }
        for n in [0i64, -1, 1, -10, 42, i64::MIN, i64::MAX, i64::MIN + 1] {
            let mut s = String::from("x");
            push_int(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn bytes_are_written_in_hex() {
        let mut s = String::from("x");
        push_hex(&mut s, &[0x00, 0x0f, 0xa5, 0xff]);
        assert_eq!(s, "x000fa5ff");
    }

    #[test]
    fn words_are_quoted_and_joined() {
        assert_eq!(quoted_list(&[]), "");
        assert_eq!(quoted_list(&["a".into()]), "\"a\"");
        assert_eq!(quoted_list(&["a".into(), "b c".into()]), "\"a\", \"b c\"");
    }
}
