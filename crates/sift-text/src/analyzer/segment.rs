//! Where words are: compounds — UAX #29 words, with words joined by a single `-` merged,
//! and runs of the bigrammed scripts whole — as byte ranges. ASCII text (most docs) takes a hand-written segmenter that follows the
//! UAX #29 word rules for ASCII exactly (checked against `unicode-segmentation` below): it is
//! the hot path of snippets and indexing, where the general tables cost a binary search per
//! character; other text takes `crate::wordbreak`.

use crate::charclass;

fn is_word(seg: &str) -> bool {
    seg.chars().any(charclass::is_alphanumeric)
}

/// Byte ranges of compounds: UAX #29 words, with words joined by a single `-` merged
/// (UAX #29 already keeps `snake_case`, `os.path` and `don't` together).
pub fn compounds(text: &str) -> Vec<(usize, usize)> {
    compounds_iter(text).collect()
}

/// Lazy form of `compounds`: callers that stop early do not segment the rest of the text.
pub fn compounds_iter(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    if text.is_ascii() {
        Compounds::Ascii(AsciiCompounds { b: text.as_bytes(), i: 0 })
    } else {
        Compounds::Unicode(Box::new(compounds_unicode(text)))
    }
}

enum Compounds<'a> {
    Ascii(AsciiCompounds<'a>),
    Unicode(Box<dyn Iterator<Item = (usize, usize)> + 'a>),
}

impl Iterator for Compounds<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        match self {
            Compounds::Ascii(a) => a.next(),
            Compounds::Unicode(u) => u.next(),
        }
    }
}

fn compounds_unicode(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut segs = crate::wordbreak::word_bounds(text).peekable();
    std::iter::from_fn(move || {
        // Find the next word, then absorb `-word` continuations (kebab-case).
        let (start, mut end) = loop {
            let (i, seg) = segs.next()?;
            if is_word(seg) {
                break (i, i + seg.len());
            }
        };
        // A run of Han, Kana, Hangul or Thai is one compound, however UAX #29 cut it (it
        // splits Han and Hiragana at every character): `super::cjk` bigrams it.
        if text[start..].chars().next().is_some_and(super::is_bigram_script) {
            while let Some(&(i, seg)) = segs.peek() {
                if i != end || !seg.chars().next().is_some_and(super::is_bigram_script) {
                    break;
                }
                end = i + seg.len();
                segs.next();
            }
            return Some((start, end));
        }
        loop {
            match segs.peek() {
                Some(&(i, "-")) if i == end => {
                    let mut ahead = segs.clone();
                    ahead.next();
                    match ahead.peek() {
                        Some(&(j, w)) if j == i + 1 && is_word(w) => {
                            segs.next();
                            let (j, w) = segs.next().expect("peeked");
                            end = j + w.len();
                        }
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        Some((start, end))
    })
}

/// UAX #29 word-break classes of the ASCII characters that take part in words.
#[derive(Clone, Copy, PartialEq)]
enum Wb {
    Letter,
    Numeric,
    ExtendNumLet, // _
    MidLetter,    // :
    MidNumLet,    // . and the apostrophe
    MidNum,       // , ;
    Other,
}

fn wb(c: u8) -> Wb {
    match c {
        b'a'..=b'z' | b'A'..=b'Z' => Wb::Letter,
        b'0'..=b'9' => Wb::Numeric,
        b'_' => Wb::ExtendNumLet,
        b':' => Wb::MidLetter,
        b'.' | b'\'' => Wb::MidNumLet,
        b',' | b';' => Wb::MidNum,
        _ => Wb::Other,
    }
}

struct AsciiCompounds<'a> {
    b: &'a [u8],
    i: usize,
}

impl AsciiCompounds<'_> {
    /// The UAX #29 segment starting at `start` if it starts with a word character: its end,
    /// and whether it holds a letter or digit (a run of `_` is not a word).
    fn segment(&self, start: usize) -> Option<(usize, bool)> {
        let b = self.b;
        let first = wb(*b.get(start)?);
        if !matches!(first, Wb::Letter | Wb::Numeric | Wb::ExtendNumLet) {
            return None;
        }
        let mut prev = first;
        let mut alnum = first != Wb::ExtendNumLet;
        let mut j = start + 1;
        while j < b.len() {
            let x = wb(b[j]);
            match x {
                // WB5, WB8, WB9, WB10, WB13b; WB13a
                Wb::Letter | Wb::Numeric | Wb::ExtendNumLet => {
                    alnum |= x != Wb::ExtendNumLet;
                    prev = x;
                    j += 1;
                }
                Wb::MidLetter | Wb::MidNumLet | Wb::MidNum => {
                    let y = b.get(j + 1).map(|&c| wb(c));
                    // WB6/WB7: letter (MidLetter | MidNumLet) letter; WB11/WB12: digit (MidNum | MidNumLet) digit.
                    let joins = matches!(
                        (prev, x, y),
                        (Wb::Letter, Wb::MidLetter | Wb::MidNumLet, Some(Wb::Letter))
                            | (Wb::Numeric, Wb::MidNum | Wb::MidNumLet, Some(Wb::Numeric))
                    );
                    if !joins {
                        break;
                    }
                    prev = y.expect("matched Some");
                    j += 2;
                }
                Wb::Other => break,
            }
        }
        Some((j, alnum))
    }
}

impl Iterator for AsciiCompounds<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        let b = self.b;
        // The next word segment.
        let (start, mut end) = loop {
            if self.i >= b.len() {
                return None;
            }
            match self.segment(self.i) {
                Some((e, true)) => break (self.i, e),
                Some((e, false)) => self.i = e,
                None => self.i += 1,
            }
        };
        // Absorb `-word` continuations (kebab-case).
        while end + 1 < b.len() && b[end] == b'-' {
            match self.segment(end + 1) {
                Some((e, true)) => end = e,
                _ => break,
            }
        }
        self.i = end;
        Some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ASCII segmenter must cut exactly where unicode-segmentation does: random strings
    /// over every ASCII class that matters (letters, digits, `_`, `.`, `'`, `:`, `,`, `;`,
    /// `-`, spaces, line breaks, other punctuation).
    #[test]
    fn ascii_segmenter_matches_uax29_exactly() {
        const ALPHABET: &[u8] = b"aZq9_0.':,;- \n\r\t\"()/#@!?+=*xYm1-.._''::,,;;  ";
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..60_000 {
            let len = (rnd() % 40) as usize;
            let text: String = (0..len).map(|_| ALPHABET[(rnd() % ALPHABET.len() as u64) as usize] as char).collect();
            let fast: Vec<(usize, usize)> = AsciiCompounds { b: text.as_bytes(), i: 0 }.collect();
            let reference: Vec<(usize, usize)> = compounds_unicode(&text).collect();
            assert_eq!(fast, reference, "case {case}: {text:?}");
        }
        for text in ["os.path.join", "don't stop", "3.14,15", "e.g. this", "__init__.py", "a--b", "kebab-case-x", "x:y::z", "v2.0-beta_1"] {
            let fast: Vec<(usize, usize)> = AsciiCompounds { b: text.as_bytes(), i: 0 }.collect();
            assert_eq!(fast, compounds_unicode(text).collect::<Vec<_>>(), "{text:?}");
        }
    }
}
