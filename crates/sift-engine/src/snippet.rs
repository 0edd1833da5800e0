//! Snippets: the best-matching window of a text, HTML-escaped, matches in `<mark>`.

use sift_text::analyzer::{Analyzer, Token};

pub use sift_base::text::escape_html;

/// The inverse of the engine's escaping, for surfaces that render text rather than HTML:
/// an HTML-safe string (a title or snippet) as (text, is_marked) parts, entities decoded.
/// `www/src/host.js`'s `markedParts` is the same for JavaScript.
pub fn marked_parts(html: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut mark = false;
    let mut rest = html;
    while !rest.is_empty() {
        let next = [("<mark>", true), ("</mark>", false)].iter().filter_map(|(tag, m)| rest.find(tag).map(|i| (i, *tag, *m))).min();
        let (end, tag, m) = next.unwrap_or((rest.len(), "", mark));
        if end > 0 {
            out.push((decode_entities(&rest[..end]), mark));
        }
        mark = m;
        rest = &rest[end + tag.len()..];
    }
    out
}

fn decode_entities(s: &str) -> String {
    const ENTITIES: [(&str, &str); 7] =
        [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&#x27;", "'"), ("&amp;", "&")];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match ENTITIES.iter().find(|(e, _)| rest.starts_with(e)) {
            Some((e, c)) => {
                out.push_str(c);
                rest = &rest[e.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
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

/// Build a snippet of `text`. `prefixes`: the first letters of every term that can match
/// (see `match_prefixes`); words starting otherwise are not stemmed. `focus`: the position
/// (in this text's own token positions) where the best window starts, when the caller knows
/// it from the postings — then only the text up to the window's end is analysed.
pub fn snippet(
    analyzer: &Analyzer,
    text: &str,
    is_match: &dyn Fn(&str) -> bool,
    prefixes: &[String],
    window: usize,
    focus: Option<u32>,
) -> Snippet {
    let is_match = |t: &str| !t.is_empty() && is_match(t);
    let could_match = |folded: &str| prefixes.iter().any(|p| folded.starts_with(p.as_str()));
    let window = window.max(1) as u32;
    let stop_at = focus.map(|f| f.saturating_sub(window / 4) + window).unwrap_or(u32::MAX);
    let skip_before = focus.map(|f| f.saturating_sub(window / 4)).unwrap_or(0);
    let mut toks: Vec<Token> = Vec::new();
    let skipped = analyzer.tokenize_filtered(text, &could_match, skip_before, stop_at, &mut toks);
    // One entry per position: the parts, except where only a joined form or a bigrammed
    // run's character matches.
    toks.retain(|t| t.is_part() || is_match(&t.term));
    let matched: Vec<bool> = toks.iter().map(|t| is_match(&t.term)).collect();
    let mut quality = MatchQuality::default();
    {
        let mut terms: Vec<&str> = toks.iter().zip(&matched).filter(|(_, m)| **m).map(|(t, _)| t.term.as_str()).collect();
        quality.hits = terms.len();
        terms.sort_unstable();
        terms.dedup();
        quality.distinct = terms.len();
    }
    if toks.is_empty() {
        return Snippet { html: escape_html(&truncate_chars(text, 200)), quality };
    }
    // The window start, as a position: given, or the densest cluster (most distinct terms,
    // then most hits) found by sliding over the tokens.
    let start_pos = match focus {
        Some(f) => f,
        None => {
            let mut best = (0usize, 0usize, toks[0].pos);
            for (k, t) in toks.iter().enumerate().filter(|(k, _)| matched[*k]) {
                let mut terms: Vec<&str> = toks[k..]
                    .iter()
                    .zip(&matched[k..])
                    .take_while(|(u, _)| u.pos < t.pos + window)
                    .filter(|(_, m)| **m)
                    .map(|(u, _)| u.term.as_str())
                    .collect();
                let hits = terms.len();
                terms.sort_unstable();
                terms.dedup();
                if (terms.len(), hits) > (best.0, best.1) {
                    best = (terms.len(), hits, t.pos);
                }
            }
            best.2
        }
    };
    // Centre the window a little before the first match.
    let from = start_pos.saturating_sub(window / 4);
    let to = from + window;
    let first = toks.iter().position(|t| t.pos >= from).unwrap_or(0);
    let last = toks.iter().rposition(|t| t.pos < to).unwrap_or(toks.len() - 1).max(first);
    let start_byte = if first == 0 && !skipped { 0 } else { toks[first].start };
    let mut end_byte = toks[last].end;
    if !text[end_byte..].chars().any(sift_text::charclass::is_alphanumeric) {
        end_byte = text.len(); // only punctuation left: show it, no ellipsis
    }
    let mut html = String::new();
    if start_byte > 0 {
        html.push('…');
    }
    // The matched words; overlapping parts (a Han run's bigrams) as one mark, and a joined
    // form or a single character inside a mark already made left out.
    let mut marks: Vec<(usize, usize)> = Vec::new();
    for k in (first..=last).filter(|&k| matched[k] && toks[k].start >= start_byte) {
        let t = &toks[k];
        match marks.last_mut() {
            Some(m) if t.start < m.1 && t.is_part() => m.1 = m.1.max(t.end),
            Some(m) if t.start < m.1 => {}
            _ => marks.push((t.start, t.end)),
        }
    }
    let mut cursor = start_byte;
    for (s, e) in marks {
        html.push_str(&escape_html(&text[cursor..s]));
        html.push_str("<mark>");
        html.push_str(&escape_html(&text[s..e]));
        html.push_str("</mark>");
        cursor = e;
    }
    if cursor < end_byte {
        html.push_str(&escape_html(&text[cursor..end_byte]));
    }
    if end_byte < text.len() {
        html.push('…');
    }
    Snippet { html: html.split_whitespace().collect::<Vec<_>>().join(" "), quality }
}

/// The first three characters of each term: a word whose folded form starts otherwise
/// cannot stem to the term.
pub fn match_prefixes<'a>(terms: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut v: Vec<String> = terms.into_iter().map(|t| t.chars().take(3).collect()).collect();
    v.sort();
    v.dedup();
    v
}

fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(terms: &[&str]) -> Vec<String> {
        match_prefixes(terms.iter().map(|t| t.to_string()).collect::<Vec<_>>().iter())
    }

    #[test]
    fn marked_parts_undo_the_escaping() {
        let html = escape_html("a <b> & \"c\" 'd' &amp;");
        assert_eq!(marked_parts(&html), vec![("a <b> & \"c\" 'd' &amp;".to_string(), false)]);
        assert_eq!(marked_parts("x <mark>y&amp;z</mark> w"), vec![("x ".into(), false), ("y&z".into(), true), (" w".into(), false)]);
        assert_eq!(marked_parts(""), vec![]);
    }

    #[test]
    fn a_han_run_is_marked_once_for_its_overlapping_bigrams() {
        let is = |t: &str| ["パッ", "ッケ", "ケー", "ージ"].contains(&t);
        let s = snippet(Analyzer::english(), "Debian のパッケージ管理", &is, &p(&["パッ", "ッケ", "ケー", "ージ"]), 10, None);
        assert_eq!(s.html, "Debian の<mark>パッケージ</mark>管理");
        let one = snippet(Analyzer::english(), "所有権と借用", &|t| t == "権", &p(&["権"]), 10, None);
        assert_eq!(one.html, "所有<mark>権</mark>と借用");
    }

    #[test]
    fn stems_that_change_letters_still_match() {
        // "happily" stems to "happili": the prefix filter must not hide it.
        let t = sift_text::analyzer::Analyzer::english().term_of("happily");
        let s = snippet(Analyzer::english(), "we happily agree", &|x| x == t, &p(&[t.as_str()]), 10, None);
        assert!(s.html.contains("<mark>happily</mark>"), "{}", s.html);
    }

    #[test]
    fn escapes_markup_and_marks_matches() {
        let s = snippet(Analyzer::english(), "<script>alert(1)</script> deploy the app", &|t| t == "deploy", &p(&["deploy"]), 30, None);
        assert_eq!(s.html, "&lt;script&gt;alert(1)&lt;/script&gt; <mark>deploy</mark> the app");
        assert!(!s.html.contains("<script"));
    }

    #[test]
    fn window_goes_to_the_densest_cluster() {
        let text = format!("{} alpha beta {}", "filler ".repeat(100), "tail ".repeat(100));
        let s = snippet(Analyzer::english(), &text, &|t| t == "alpha" || t == "beta", &p(&["alpha", "beta"]), 10, None);
        assert!(s.html.starts_with('…') && s.html.ends_with('…'));
        assert!(s.html.contains("<mark>alpha</mark> <mark>beta</mark>"));
        assert_eq!(s.quality, MatchQuality { distinct: 2, hits: 2 });
    }

    #[test]
    fn a_known_focus_analyses_only_up_to_the_window() {
        let text = format!("{} alpha beta {}", "filler ".repeat(100), "tail ".repeat(100));
        let with = snippet(Analyzer::english(), &text, &|t| t == "alpha" || t == "beta", &p(&["alpha", "beta"]), 10, Some(100));
        let without = snippet(Analyzer::english(), &text, &|t| t == "alpha" || t == "beta", &p(&["alpha", "beta"]), 10, None);
        assert_eq!(with.html, without.html);
    }

    #[test]
    fn skipping_to_a_deep_focus_counts_positions_like_the_index() {
        // Every kind of compound before the match: plain, capitalised, camelCase, snake_case,
        // dotted, kebab, digits, accents, apostrophes, an over-long word, punctuation.
        let filler = "Hello plain words StateMachine os.path.join snake_case kebab-case-word v2 naïve don't \
                      HTTPServer x123y ünïcödé aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, — (bits) ";
        let text = format!("{} target word here {}", filler.repeat(30), "after ".repeat(40));
        let mut toks = Vec::new();
        sift_text::analyzer::Analyzer::english().tokenize(&text, 0, &mut toks);
        let target = toks.iter().find(|t| t.term == "target").expect("indexed").pos;
        let s = snippet(Analyzer::english(), &text, &|t| t == "target", &p(&["target"]), 10, Some(target));
        assert!(s.html.starts_with('…'), "{}", s.html);
        assert!(s.html.contains("<mark>target</mark> word here"), "{}", s.html);
        // The window starts a quarter before the match: the words just before it are shown.
        assert!(s.html.contains("(bits) <mark>target</mark>"), "{}", s.html);
    }

    #[test]
    fn compound_match_highlights_whole_identifier() {
        let s = snippet(Analyzer::english(), "use the StateMachine class", &|t| t == "statemachin", &p(&["statemachin"]), 10, None);
        assert!(s.html.contains("<mark>StateMachine</mark>"), "{}", s.html);
    }
}
