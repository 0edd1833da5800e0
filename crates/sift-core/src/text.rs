//! Text the engine writes into its answers (fallback notices, file names, JSON numbers),
//! assembled without `core::fmt`: in the browser engines, whose error messages are left
//! out (`error.rs`), these were fmt's last users, and its machinery (argument tables,
//! padding, integer and hex formatting) was 1 kB of the shipped keyword engine. Messages
//! (`msg!`) and tests still use `format!`.

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
