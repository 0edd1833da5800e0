//! Scripts written without spaces between words — Han, Kana, Hangul, Thai — indexed without
//! a dictionary, the same way at build time and query time (this code, in every runtime):
//! a run of `n ≥ 2` characters gives its `n − 1` overlapping bigrams at consecutive
//! positions (`所有権` → `所有` `有権`), and each character as a `unigram` token beside them.
//! The query parser searches a run of three or more characters as its bigrams, word by word
//! (`run_bigrams`): `所有権` finds the pages holding `所有` and `有権` (adjacent ones first,
//! by proximity), and still answers when no page holds both. A one-character query finds
//! the character. A character is a letter with the marks that follow it (Thai vowels and
//! tones).
//!
//! Positions: bigram `i` at `first + i`, unigram `i` at `first + min(i, n − 2)` (the last
//! character shares the last bigram's), and the next word at `first + n − 1`: a phrase
//! that goes on past the run stays adjacent.

use super::{fold, Token};

/// Whether `c` belongs to a script indexed as bigrams.
pub fn is_bigram_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0E7F             // Thai
        | 0x1100..=0x11FF           // Hangul Jamo
        | 0x3005..=0x3007           // 々 〆 〇
        | 0x3040..=0x30FF           // Hiragana, Katakana
        | 0x3130..=0x318F           // Hangul compatibility Jamo
        | 0x31F0..=0x31FF           // Katakana phonetic extensions
        | 0x3400..=0x4DBF           // CJK extension A
        | 0x4E00..=0x9FFF           // CJK unified ideographs
        | 0xA960..=0xA97F           // Hangul Jamo extended-A
        | 0xAC00..=0xD7AF           // Hangul syllables
        | 0xF900..=0xFAFF           // CJK compatibility ideographs
        | 0xFF66..=0xFF9F           // half-width Katakana
        | 0x20000..=0x3134F         // CJK extensions B–H
    )
}

/// The characters of `text[start..end]` (letters with their marks) as (start, end, folded).
fn characters(text: &str, start: usize, end: usize) -> Vec<(usize, usize, String)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, c) in text[start..end].char_indices() {
        let at = start + i;
        match out.last_mut() {
            Some(last) if crate::decompose::folds_to_nothing(c) && !crate::charclass::is_alphanumeric(c) => last.1 = at + c.len_utf8(),
            _ if is_bigram_script(c) => out.push((at, at + c.len_utf8())),
            // Anything else inside a run (a stray mark at its start) is no character.
            _ => {}
        }
    }
    out.into_iter().map(|(s, e)| (s, e, fold(&text[s..e]))).filter(|c| !c.2.is_empty()).collect()
}

/// The overlapping bigrams of a run (`所有権` → `所有`, `有権`) as slices of it; a run of
/// fewer than three characters is itself. A query looks a long run up bigram by bigram, as
/// words: a page that holds only some of them still answers (ranked by how many, and how
/// close together), where the run as a phrase would find nothing.
pub fn run_bigrams(run: &str) -> Vec<&str> {
    let chars = characters(run, 0, run.len());
    if chars.len() < 3 {
        return vec![run];
    }
    chars.windows(2).map(|w| &run[w[0].0..w[1].1]).collect()
}

/// Emit the tokens of the run `text[start..end]` at position `pos`; returns the next free
/// position. `term` makes a token's term from its folded text.
pub(super) fn emit_run(text: &str, start: usize, end: usize, pos: u32, term: &dyn Fn(&str) -> String, out: &mut Vec<Token>) -> u32 {
    let chars = characters(text, start, end);
    let tok = |c: &(usize, usize, String), at: u32, unigram: bool| Token {
        term: term(&c.2),
        pos: at,
        start: c.0,
        end: c.1,
        joined: false,
        unigram,
    };
    match chars.len() {
        0 => pos,
        1 => {
            out.push(tok(&chars[0], pos, false));
            pos + 1
        }
        n => {
            for i in 0..n - 1 {
                let (a, b) = (&chars[i], &chars[i + 1]);
                let bigram = (a.0, b.1, [a.2.as_str(), b.2.as_str()].concat());
                out.push(tok(&bigram, pos + i as u32, false));
                out.push(tok(a, pos + i as u32, true));
            }
            out.push(tok(&chars[n - 1], pos + n as u32 - 2, true));
            pos + n as u32 - 1
        }
    }
}
