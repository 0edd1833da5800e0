//! Snippets: the best-matching window of a text, HTML-escaped, matches in `<mark>`.

use crate::analyzer::{self, Token};

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

/// How well a text matches: distinct query terms, then occurrences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct MatchQuality {
    pub distinct: usize,
    pub hits: usize,
}

/// A snippet of about `window` words around the densest cluster of matches.
pub struct Snippet {
    pub html: String,
    pub quality: MatchQuality,
}

pub fn snippet(text: &str, is_match: &dyn Fn(&str) -> bool, window: usize) -> Snippet {
    let mut toks: Vec<Token> = Vec::new();
    analyzer::tokenize(text, 0, &mut toks);
    // One entry per position: prefer the part token (for tight highlights).
    toks.retain(|t| !t.joined || is_match(&t.term));
    let matched: Vec<bool> = toks.iter().map(|t| is_match(&t.term)).collect();
    let quality = MatchQuality {
        distinct: {
            let mut terms: Vec<&str> = toks.iter().zip(&matched).filter(|(_, m)| **m).map(|(t, _)| t.term.as_str()).collect();
            terms.sort_unstable();
            terms.dedup();
            terms.len()
        },
        hits: matched.iter().filter(|m| **m).count(),
    };
    if toks.is_empty() {
        return Snippet { html: escape_html(&truncate_chars(text, 200)), quality };
    }
    // Best window start: most distinct matched terms, then most hits (sliding window).
    let mut best = (0usize, 0usize, 0usize); // (distinct, hits, start)
    if quality.hits > 0 {
        for start in 0..toks.len() {
            if !matched[start] {
                continue;
            }
            let end = (start + window).min(toks.len());
            let mut terms: Vec<&str> = (start..end).filter(|&k| matched[k]).map(|k| toks[k].term.as_str()).collect();
            let hits = terms.len();
            terms.sort_unstable();
            terms.dedup();
            if (terms.len(), hits) > (best.0, best.1) {
                best = (terms.len(), hits, start);
            }
        }
    }
    // Centre the window a little before the first match.
    let start_tok = best.2.saturating_sub(window / 4);
    let end_tok = (start_tok + window).min(toks.len());
    let start_byte = if start_tok == 0 { 0 } else { toks[start_tok].start };
    let end_byte = if end_tok >= toks.len() { text.len() } else { toks[end_tok - 1].end };
    let mut html = String::new();
    if start_byte > 0 {
        html.push('…');
    }
    let mut cursor = start_byte;
    for k in start_tok..end_tok {
        let t = &toks[k];
        if !matched[k] || t.start < cursor {
            continue;
        }
        html.push_str(&escape_html(&text[cursor..t.start]));
        html.push_str("<mark>");
        html.push_str(&escape_html(&text[t.start..t.end]));
        html.push_str("</mark>");
        cursor = t.end;
    }
    if cursor < end_byte {
        html.push_str(&escape_html(&text[cursor..end_byte]));
    }
    if end_byte < text.len() {
        html.push('…');
    }
    Snippet { html: html.split_whitespace().collect::<Vec<_>>().join(" "), quality }
}

fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_marks_matches() {
        let s = snippet("<script>alert(1)</script> deploy the app", &|t| t == "deploy", 30);
        assert_eq!(s.html, "&lt;script&gt;alert(1)&lt;/script&gt; <mark>deploy</mark> the app");
        assert!(!s.html.contains("<script"));
    }

    #[test]
    fn window_goes_to_the_densest_cluster() {
        let text = format!("{} alpha beta {}", "filler ".repeat(100), "tail ".repeat(100));
        let s = snippet(&text, &|t| t == "alpha" || t == "beta", 10);
        assert!(s.html.starts_with('…') && s.html.ends_with('…'));
        assert!(s.html.contains("<mark>alpha</mark> <mark>beta</mark>"));
        assert_eq!(s.quality, MatchQuality { distinct: 2, hits: 2 });
    }

    #[test]
    fn compound_match_highlights_whole_identifier() {
        let s = snippet("use the StateMachine class", &|t| t == "statemachin", 10);
        assert!(s.html.contains("<mark>StateMachine</mark>"), "{}", s.html);
    }
}
