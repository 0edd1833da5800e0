//! Query syntax: bare words (all required), `"exact phrases"`, `-exclusions`, `a OR b`,
//! `field:value` filters (only for the bundle's filterable fields; anything else with a
//! colon is text, so `http://x` or `os:path` never errors). Parsing never fails: every
//! string is some query. A quotation mark with no partner is text (`6" screen`, a pasted
//! fragment, a phrase still being typed), not a phrase running to the end. Typographic
//! double quotes are quotation marks: phones type `“ ”` for `"`, and pasted text brings
//! `„ “`, `« »` and `「 」` (single quotes are not: `’` is an apostrophe).

use sift_text::analyzer;

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// One compound as typed (`StateMachine`, `os.path`, `authentificate`).
    Word(String),
    /// The raw text inside quotes.
    Phrase(String),
}

/// One clause: its items are alternatives (`a OR b`); a negated clause excludes.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub items: Vec<Item>,
    pub negated: bool,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedQuery {
    pub groups: Vec<Group>,
    pub filters: Vec<(String, String)>,
    /// The last group is a single word that touches the end of the input: the user may
    /// still be typing it, so it also matches as a prefix.
    pub open_last: bool,
}

enum Lex {
    Item(Item, bool, bool), // item, negated, touches end of input
    Or,
    Filter(String, String),
}

impl Group {
    /// Quoted text to find: a clause of phrases only, not excluded.
    pub fn is_quoted(&self) -> bool {
        !self.negated && self.items.iter().all(|i| matches!(i, Item::Phrase(_)))
    }
}

/// Whether a word is a run of Han, Kana, Hangul or Thai long enough to be several bigrams:
/// searched as a phrase of them, relaxed to them as words when no page holds the run.
pub fn is_long_run(word: &str) -> bool {
    word.starts_with(analyzer::is_bigram_script) && analyzer::run_bigrams(word).len() > 1
}

impl ParsedQuery {
    /// Whether any clause (excluded or not) is quoted text.
    pub fn has_phrase(&self) -> bool {
        self.groups.iter().any(|g| g.items.iter().any(|i| matches!(i, Item::Phrase(_))))
    }

    /// The query with the quoted clauses `which` chooses as their words: a lone phrase
    /// becomes one clause per word, quoted alternatives (`"a b" OR "c d"`) one clause of
    /// all their words as alternatives, and a long Han, Kana, Hangul or Thai run (a phrase
    /// of its bigrams) one clause per bigram. Exclusions stay as typed.
    pub fn unquote(&self, which: impl Fn(&Group) -> bool) -> ParsedQuery {
        let words = |text: &str| analyzer::compounds(text).into_iter().map(|(s, e)| Item::Word(text[s..e].to_string())).collect::<Vec<_>>();
        let mut groups = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            match &g.items[..] {
                // A long run no page holds as written: its bigrams, each a word.
                [Item::Word(w)] if !g.negated && is_long_run(w) && which(g) => groups
                    .extend(analyzer::run_bigrams(w).into_iter().map(|b| Group { items: vec![Item::Word(b.to_string())], negated: false })),
                _ if !g.is_quoted() || !which(g) => groups.push(g.clone()),
                [Item::Phrase(p)] => groups.extend(words(p).into_iter().map(|w| Group { items: vec![w], negated: false })),
                items => {
                    let all = items.iter().flat_map(|i| if let Item::Phrase(p) = i { words(p) } else { Vec::new() }).collect();
                    groups.push(Group { items: all, negated: false })
                }
            }
        }
        // (Open is the last clause as typed: never a phrase, so never one unquoted here.)
        ParsedQuery { groups, filters: self.filters.clone(), open_last: self.open_last }
    }
}

/// The query as a CJK input method types ASCII: full-width forms (U+FF01–FF5E) and the
/// ideographic space as their ASCII, so that `ｊｓｏｎ．ｄｕｍｐｓ` is a path, `－draft` an
/// exclusion and `ｔｙｐｅ：ｇｕｉｄｅ` a filter. (Words fold full-width letters anyway; the
/// operators and a path's separators would not be read as such.)
pub fn ascii_forms(q: &str) -> std::borrow::Cow<'_, str> {
    let full_width = |c: char| ('\u{ff01}'..='\u{ff5e}').contains(&c) || c == '\u{3000}';
    if !q.contains(full_width) {
        return q.into();
    }
    q.chars()
        .map(|c| match c {
            '\u{3000}' => ' ',
            c if full_width(c) => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            c => c,
        })
        .collect::<String>()
        .into()
}

/// Quotation marks other than `"`, read as it.
const TYPOGRAPHIC_QUOTES: [char; 9] = ['“', '”', '„', '‟', '«', '»', '「', '」', '＂'];

pub fn parse(q: &str, is_filter_field: impl Fn(&str) -> bool) -> ParsedQuery {
    let straight;
    let q = if q.contains(TYPOGRAPHIC_QUOTES) {
        straight = q.replace(TYPOGRAPHIC_QUOTES, "\"");
        straight.as_str()
    } else {
        q
    };
    let lexemes = lex(q, &is_filter_field);
    let mut out = ParsedQuery::default();
    let mut pending_or = false;
    let mut last_touches_end = false;
    for lx in lexemes {
        match lx {
            Lex::Or => pending_or = true,
            Lex::Filter(f, v) => {
                out.filters.push((f, v));
                pending_or = false;
                last_touches_end = false;
            }
            Lex::Item(item, negated, touches_end) => {
                let can_join = pending_or && !negated && out.groups.last().is_some_and(|g| !g.negated);
                if can_join {
                    out.groups.last_mut().unwrap().items.push(item);
                } else {
                    out.groups.push(Group { items: vec![item], negated });
                }
                pending_or = false;
                last_touches_end = touches_end && !negated;
            }
        }
    }
    out.open_last = last_touches_end && out.groups.last().is_some_and(|g| g.items.len() == 1 && matches!(g.items[0], Item::Word(_)));
    out
}

fn lex(q: &str, is_filter_field: &impl Fn(&str) -> bool) -> Vec<Lex> {
    let mut out = Vec::new();
    let bytes = q.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = q[i..].chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        // Negated or plain phrase.
        let neg_phrase = c == '-' && bytes.get(i + 1) == Some(&b'"');
        if c == '"' || neg_phrase {
            let start = if neg_phrase { i + 2 } else { i + 1 };
            let Some(end) = q[start..].find('"').map(|e| start + e) else {
                // No closing mark: the mark (and a `-` before it) is text.
                i = start;
                continue;
            };
            let text = q[start..end].to_string();
            i = (end + 1).min(q.len());
            if analyzer::compounds(&text).is_empty() {
                continue;
            }
            out.push(Lex::Item(Item::Phrase(text), neg_phrase, false));
            continue;
        }
        // A chunk up to whitespace: a mark inside a word (`6"`) opens nothing; after a
        // filter's colon it opens the value (`tags:"two words"`).
        let end = q[i..]
            .char_indices()
            .find(|&(e, ch)| ch.is_whitespace() || (ch == '"' && q[i..i + e].ends_with(':')))
            .map(|(e, _)| i + e)
            .unwrap_or(q.len());
        let chunk = &q[i..end];
        let touches_end = end == q.len();
        i = end;
        if chunk == "OR" || chunk == "||" {
            out.push(Lex::Or);
            continue;
        }
        if let Some((field, value)) = chunk.split_once(':') {
            if !value.is_empty() && is_filter_field(field) {
                out.push(Lex::Filter(field.to_string(), value.to_string()));
                continue;
            }
            // `field:"two words"`
            if value.is_empty() && is_filter_field(field) && bytes.get(i) == Some(&b'"') {
                let start = i + 1;
                let vend = q[start..].find('"').map(|e| start + e).unwrap_or(q.len());
                out.push(Lex::Filter(field.to_string(), q[start..vend].to_string()));
                i = (vend + 1).min(q.len());
                continue;
            }
        }
        let (negated, body) = match chunk.strip_prefix('-') {
            Some(rest) if !rest.is_empty() => (true, rest),
            _ => (false, chunk.strip_prefix('+').unwrap_or(chunk)),
        };
        let words = analyzer::compounds(body);
        let n = words.len();
        let body_end_in_chunk = chunk.len() - body.len() + body.len();
        for (k, (s, e)) in words.into_iter().enumerate() {
            // Only the last compound can be "open", and only if nothing follows it.
            let open = touches_end && k + 1 == n && e == body.len() && body_end_in_chunk == chunk.len();
            out.push(Lex::Item(Item::Word(body[s..e].to_string()), negated, open));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_han_run_relaxes_to_its_bigrams_and_an_excluded_one_stays_whole() {
        let word = |g: &Group| match &g.items[..] {
            [Item::Word(w)] => (w.clone(), g.negated),
            other => panic!("one word per clause, not {other:?}"),
        };
        let relaxed = |q: &str| parse(q, |_| false).unquote(|_| true).groups.iter().map(word).collect::<Vec<_>>();
        let w = |s: &str, n: bool| (s.to_string(), n);
        assert_eq!(parse("所有権", |_| false).groups.iter().map(word).collect::<Vec<_>>(), [w("所有権", false)]);
        assert_eq!(relaxed("所有権"), [w("所有", false), w("有権", false)]);
        assert_eq!(relaxed("所有"), [w("所有", false)]);
        assert_eq!(relaxed("Rust の所有権"), [w("Rust", false), w("の所", false), w("所有", false), w("有権", false)]);
        assert_eq!(relaxed("-所有権 x"), [w("所有権", true), w("x", false)]);
        assert!(is_long_run("所有権") && !is_long_run("所有") && !is_long_run("rust"));
    }

    fn p(q: &str) -> ParsedQuery {
        parse(q, |f| f == "type" || f == "tags")
    }
    fn w(s: &str) -> Item {
        Item::Word(s.into())
    }

    #[test]
    fn words_phrases_exclusions() {
        let q = p(r#"install "virtual environment" -windows"#);
        assert_eq!(q.groups.len(), 3);
        assert_eq!(q.groups[0].items, vec![w("install")]);
        assert_eq!(q.groups[1].items, vec![Item::Phrase("virtual environment".into())]);
        assert!(q.groups[2].negated);
        assert!(!q.open_last, "a negated word is never a prefix");
    }

    #[test]
    fn or_groups_and_binding() {
        let q = p("cache OR memo speed");
        assert_eq!(q.groups.len(), 2);
        assert_eq!(q.groups[0].items, vec![w("cache"), w("memo")]);
        assert_eq!(q.groups[1].items, vec![w("speed")]);
        let q = p("a OR b OR c");
        assert_eq!(q.groups[0].items.len(), 3);
        // lowercase "or" is a word
        assert_eq!(p("cats or dogs").groups.len(), 3);
    }

    #[test]
    fn filters_only_for_known_fields() {
        let q = p(r#"deploy type:guide tags:"two words" http://x"#);
        assert_eq!(q.filters, vec![("type".into(), "guide".into()), ("tags".into(), "two words".into())]);
        assert_eq!(q.groups.len(), 3, "deploy, http, x");
        assert_eq!(q.groups[1].items, vec![w("http")]);
        assert_eq!(p("colour:red").groups.len(), 1, "one compound: colour, red, colourred");
    }

    #[test]
    fn open_last_word_for_prefix() {
        assert!(p("authen").open_last);
        assert!(!p("authen ").open_last);
        assert!(!p("\"authen\"").open_last);
        assert!(p("read conf").open_last);
        assert!(!p("read conf.").open_last);
    }

    #[test]
    fn hostile_strings_parse() {
        for q in ["\"", "-", "--", "OR", "OR OR", "-\"", "\"\"", "a:", ":", "-\"x", "type:", "\u{0}", "🦀 OR"] {
            let _ = p(q);
        }
    }

    #[test]
    fn full_width_forms_are_read_as_their_ascii() {
        assert_eq!(ascii_forms("ｊｓｏｎ．ｄｕｍｐｓ"), "json.dumps");
        assert_eq!(ascii_forms("Ｖｅｃ：：ｎｅｗ"), "Vec::new");
        assert_eq!(ascii_forms("ｌｏｇｇｉｎｇ\u{3000}ｂａｓｉｃＣｏｎｆｉｇ"), "logging basicConfig", "an ideographic space");
        assert!(matches!(ascii_forms("plain words, 日本語"), std::borrow::Cow::Borrowed(_)), "nothing to change: no copy");
        let q = p(&ascii_forms("ｃａｃｈｅ －ｄｒａｆｔ"));
        assert!(q.groups[1].negated, "a full-width minus excludes");
    }

    #[test]
    fn typographic_double_quotes_quote_as_straight_ones_do() {
        let phrase = |q: &str| p(q).groups.iter().map(|g| g.items.clone()).collect::<Vec<_>>();
        let want = vec![vec![Item::Phrase("virtual environment".into())], vec![w("venv")]];
        for q in [
            "“virtual environment” venv",
            "„virtual environment“ venv",
            "«virtual environment» venv",
            "「virtual environment」 venv",
            "＂virtual environment＂ venv",
        ] {
            assert_eq!(phrase(q), want, "{q}");
        }
        assert!(p("-“draft”").groups[0].negated, "an exclusion too");
        // Single quotes stay text: `’` is an apostrophe.
        assert!(!p("‘virtual environment’").has_phrase() && !p("don’t stop").has_phrase());
    }

    #[test]
    fn a_quotation_mark_without_its_partner_is_text() {
        let q = p("\"unterminated phrase");
        assert_eq!(q.groups.iter().map(|g| g.items.clone()).collect::<Vec<_>>(), vec![vec![w("unterminated")], vec![w("phrase")]]);
        assert!(q.open_last, "the last word is still being typed");
        let q = p(r#"a 6" screen "exact words" and -"half"#);
        assert_eq!(q.groups[3].items, vec![Item::Phrase("exact words".into())]);
        assert_eq!(q.groups[1].items, vec![w("6")], "an inch mark opens no phrase");
        assert_eq!(q.groups[5].items, vec![w("half")]);
        assert!(q.groups.iter().all(|g| !g.negated), "a `-` before an unpaired mark excludes nothing");
        assert_eq!(q.groups.len(), 6);
    }

    #[test]
    fn unquoting_turns_chosen_phrases_into_their_words() {
        let q = p(r#""virtual environment" -"windows only" "a b" OR "c" last"#);
        let u = q.unquote(|g| g.items == vec![Item::Phrase("virtual environment".into())]);
        assert_eq!(u.groups[0].items, vec![w("virtual")]);
        assert_eq!(u.groups[1].items, vec![w("environment")]);
        assert_eq!(u.groups[2].items, vec![Item::Phrase("windows only".into())], "an exclusion stays as typed");
        assert_eq!(u.groups[3].items, vec![Item::Phrase("a b".into()), Item::Phrase("c".into())]);
        let all = q.unquote(|_| true);
        assert_eq!(all.groups[2].items, vec![Item::Phrase("windows only".into())]);
        assert_eq!(all.groups[3].items, vec![w("a"), w("b"), w("c")], "quoted alternatives: all their words as alternatives");
        assert!(all.open_last);
        assert!(all.has_phrase(), "the excluded phrase");
    }
}
