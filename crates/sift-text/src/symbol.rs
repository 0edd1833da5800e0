//! Definitions in the term dictionary: how an API entry's path becomes keys, and how a
//! query that looks like an identifier becomes the key it looks up.
//!
//! A path is cut into components at `::`, `.`, `#` and `/` (`std::vec::Vec::with_capacity`,
//! `os.getcwd`, `Array#map`); a call's arguments, generics and a macro's `!` are not part
//! of it. It is indexed as one key per tail of it — `std.vec.vec.with_capacity.`,
//! `vec.vec.with_capacity.`, `vec.with_capacity.`, `with_capacity.` — so a definition is
//! found by its whole path, by any tail of it, with its separators written either way. A
//! key is the components folded like words (lowercase, diacritics dropped), joined by `.`
//! and ended by `.`: the analyzer never makes a term with a `.`, so keys never meet words,
//! and a key sorts just after the word of its first component (mostly in its term shard).
//!
//! Postings of a key: the documents defining it, with one position each — where the
//! defining section starts — and as its tf in the headings field `2 × (components the key
//! leaves out + 1) + capital`, capital being 1 when the path's last name starts with a
//! capital letter (`Clone` the trait, not `clone` the method): keys are folded, and a query
//! written `Clone` means the first. A module counts as leaving one more component out: it
//! holds definitions rather than being one (`vec` is the macro before the module, `ffi`
//! still the module). Keys carry no spellings
//! and are not in the vocabulary: typos and completions of words are the words' business.

use crate::analyzer::{self, Analyzer};
use crate::charclass;

/// Components of a path, at most; a longer "path" is prose.
const MAX_COMPONENTS: usize = 12;
/// Bytes of a path, at most.
const MAX_PATH_BYTES: usize = 256;

/// Whether a dictionary term is a definition's key (not a word).
pub fn is_key(term: &str) -> bool {
    term.ends_with('.')
}

/// The folded components of a path, or None when it is not one (empty parts, characters
/// other than letters, digits, `_` and `$`).
pub fn components(path: &str) -> Option<Vec<String>> {
    let path = path.trim();
    if path.is_empty() || path.len() > MAX_PATH_BYTES {
        return None;
    }
    // `f(x, y)`, `Vec<T>`, `vec!`: the name before them.
    let end = path.find(['(', '<', '!', '[']).unwrap_or(path.len());
    let path = &path[..end];
    // Cut at `.`, `#`, `/` and `::` (a lone `:` makes it no path), by hand: a `&str`
    // pattern would compile a substring searcher into every engine.
    let mut parts = Vec::new();
    let mut rest = path;
    loop {
        let (part, tail) = rest.split_at(rest.find(['.', '#', '/', ':']).unwrap_or(rest.len()));
        parts.push(part);
        let sep = match tail.as_bytes() {
            [] => break,
            [b':', b':', ..] => 2,
            [b':', ..] => return None,
            _ => 1,
        };
        rest = &tail[sep..];
    }
    let mut out = Vec::new();
    for part in parts {
        // (The crate's character classes: core's tables would grow every engine.)
        if part.is_empty() || !part.chars().all(|c| charclass::is_alphanumeric(c) || c == '_' || c == '$') {
            return None;
        }
        let folded = analyzer::fold(part);
        if folded.is_empty() {
            return None;
        }
        out.push(folded);
    }
    (!out.is_empty() && out.len() <= MAX_COMPONENTS).then_some(out)
}

/// The key of folded components: joined by `.` and ended by one.
fn key_of(parts: &[String]) -> String {
    [parts.join(".").as_str(), "."].concat()
}

/// The keys a definition of `kind` is indexed under, each with its tf (see above).
pub fn keys(path: &str, kind: &str) -> Vec<(String, u32)> {
    let Some(parts) = components(path) else { return Vec::new() };
    let capital = u32::from(capitalized(path));
    let container = u32::from(kind == "module");
    (0..parts.len()).map(|k| (key_of(&parts[k..]), 2 * (k as u32 + 1 + container) + capital)).collect()
}

/// A key's tf read back: (leading components left out, whether the last name is capitalised).
pub fn key_tf(tf: u32) -> (u32, bool) {
    ((tf / 2).saturating_sub(1), tf % 2 == 1)
}

/// Whether a path's last name starts with a capital letter.
fn capitalized(path: &str) -> bool {
    let name = path.trim().split(['(', '<', '!', '[']).next().unwrap_or("");
    name.rsplit(['.', '#', '/', ':']).next().and_then(|n| n.chars().next()).is_some_and(charclass::is_uppercase)
}

/// What an identifier-like query looks up.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryKey {
    /// The key of the path as typed (None while a separator is being typed: `Vec::`).
    pub exact: Option<String>,
    /// The path as typed, for completions (`vec.with_capa` completes to
    /// `vec.with_capacity.`); empty when the query is one plain word, which is completed as
    /// a word instead.
    pub prefix: String,
    /// The last name is written with a capital (`Clone`).
    pub capital: bool,
    /// A path written as words: the key of what the words before the last name
    /// (`argparse.`) and of the last name (`add_argument.`). When nothing is defined as
    /// typed, a page defining both defines the name inside what the words skip
    /// (`argparse.ArgumentParser.add_argument`).
    pub apart: Option<(String, String)>,
}

/// The key of a query that is one identifier or path (`json.dumps`, `Vec::with_capacity`,
/// `sorted`, `os.getcwd()`), with the sigils code writes before a name (`&str`, `?Sized`,
/// `@property`) or a question mark after it left out, or a path written as two or three
/// words (`logging basicConfig`); None for anything else (punctuation, quotes).
/// `analyzer`: the bundle's, whose stop words start no path written as words.
pub fn query_key(query: &str, analyzer: &Analyzer) -> Option<QueryKey> {
    let q = query.trim().trim_start_matches(['&', '?', '@']).trim_end_matches('?');
    // Any space, a no-break one pasted from a web page too.
    if q.contains(char::is_whitespace) {
        return spaced_path(q, analyzer);
    }
    if q.is_empty() {
        return None;
    }
    // A separator being typed: complete what comes before it.
    let typing_sep = ["::", ":", ".", "#", "/"].iter().find_map(|s| q.strip_suffix(s));
    let body = typing_sep.unwrap_or(q);
    let parts = components(body)?;
    // A word of letters alone, or with digits, is a plain word unless it is written as
    // code: separators, `_`, `$`, a call's `()`, or a capital after the first letter.
    // (An acronym, `FFI` or `GIL`, is a word: looked up whole, not completed.)
    let looks_like_code = parts.len() > 1 || typing_sep.is_some() || written_as_code(body);
    let capital = capitalized(body);
    match typing_sep {
        Some(_) => Some(QueryKey { exact: None, prefix: key_of(&parts), capital, apart: None }),
        None => {
            let prefix = if looks_like_code { parts.join(".") } else { String::new() };
            Some(QueryKey { exact: Some(key_of(&parts)), prefix, capital, apart: None })
        }
    }
}

/// A name with `_`, `$`, a call's `()`, a macro's `!` or a capital after its first letter
/// (an acronym, `FFI` or `GIL`, is a word).
fn written_as_code(name: &str) -> bool {
    let acronym = name.chars().all(|c| charclass::is_uppercase(c) || c.is_ascii_digit());
    name.contains(['_', '$', '(', '!']) || !acronym && name.chars().skip(1).any(charclass::is_uppercase)
}

/// A module or type and a name written as words, as people type them (`logging basicConfig`,
/// `Vec push`, `os.path join`): the path they would make, looked up as typed and never
/// completed. It is found only when something is defined so; otherwise the words are just
/// words (`deep copy`). Its key sorts beside its first word's term, in a shard the words
/// read anyway; a stop word reads none, so it starts no path (`the getcwd`). A last name
/// written as code is also looked up apart from the words before it (`argparse
/// add_argument`, `QueryKey::apart`); a plain word is not, as it names too much
/// (`subprocess output` is no `subprocess.TimeoutExpired.output`).
fn spaced_path(q: &str, analyzer: &Analyzer) -> Option<QueryKey> {
    let words: Vec<&str> = q.split_whitespace().collect();
    if !(2..=3).contains(&words.len()) || analyzer.is_stopword(&analyzer::fold(words[0])) {
        return None;
    }
    let mut parts = Vec::with_capacity(words.len());
    for w in &words {
        parts.extend(components(w)?);
    }
    let capital = words.last().is_some_and(|w| capitalized(w));
    let (container, name) = parts.split_at(parts.len() - 1);
    let apart = words.last().is_some_and(|w| written_as_code(w)).then(|| (key_of(container), key_of(name)));
    Some(QueryKey { exact: Some(key_of(&parts)), prefix: String::new(), capital, apart })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(q: &str) -> Option<QueryKey> {
        query_key(q, Analyzer::english())
    }

    #[test]
    fn a_path_is_indexed_under_each_of_its_tails() {
        let k = keys("std::vec::Vec::with_capacity", "function");
        let names: Vec<(&str, u32)> = k.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        assert_eq!(
            names,
            [("std.vec.vec.with_capacity.", 2), ("vec.vec.with_capacity.", 4), ("vec.with_capacity.", 6), ("with_capacity.", 8)]
        );
        assert_eq!(k.iter().map(|(_, tf)| key_tf(*tf)).collect::<Vec<_>>(), [(0, false), (1, false), (2, false), (3, false)]);
        assert_eq!(keys("os.getcwd()", "function"), [("os.getcwd.".to_string(), 2), ("getcwd.".to_string(), 4)]);
        assert_eq!(keys("std::clone::Clone", "function").iter().map(|(_, tf)| key_tf(*tf)).next_back(), Some((2, true)));
        assert_eq!(keys("vec!", "macro")[0].0, "vec.");
        assert_eq!(
            keys("std::vec", "module").iter().map(|(_, tf)| key_tf(*tf).0).collect::<Vec<_>>(),
            [1, 2],
            "a module: one more left out"
        );
        assert_eq!(keys("Array#map", "function")[0].0, "array.map.");
        assert!(
            keys("", "function").is_empty()
                && keys("not a path", "function").is_empty()
                && keys("a..b", "function").is_empty()
                && keys("a-b", "function").is_empty()
        );
        assert!(keys(&"a.".repeat(200), "function").is_empty(), "a very long path is no path");
        assert!(keys("x", "function").iter().all(|(k, _)| is_key(k)));
        assert!(!is_key("getcwd"));
    }

    #[test]
    fn a_query_written_as_code_looks_up_its_path_with_either_separator() {
        let k = key("Vec::with_capacity").unwrap();
        assert_eq!((k.exact.as_deref(), k.prefix.as_str()), (Some("vec.with_capacity."), "vec.with_capacity"));
        assert_eq!(key("vec.with_capacity").unwrap().exact, k.exact);
        assert_eq!(key(" os.getcwd() ").unwrap().exact.as_deref(), Some("os.getcwd."));
        // While a separator is typed, the path completes.
        assert_eq!(key("Vec::").unwrap(), QueryKey { exact: None, prefix: "vec.".into(), capital: true, apart: None });
        // A plain word is looked up whole, never completed as a path.
        assert_eq!(key("sorted").unwrap(), QueryKey { exact: Some("sorted.".into()), prefix: String::new(), capital: false, apart: None });
        assert!(key("Clone").unwrap().capital && !key("Vec::with_capacity").unwrap().capital);
        assert_eq!(key("getCwd").unwrap().prefix, "getcwd");
        // An acronym is looked up whole, as a word is.
        assert_eq!(key("FFI").unwrap(), QueryKey { exact: Some("ffi.".into()), prefix: String::new(), capital: true, apart: None });
        // A sigil before the name, a question mark after it: the name.
        for (typed, want) in [("&str", "str."), ("?Sized", "sized."), ("@property", "property."), ("Vec?", "vec.")] {
            assert_eq!(key(typed).unwrap().exact.as_deref(), Some(want), "{typed}");
        }
        for prose in ["\"sorted\"", "a,b", "", "  ", "-x", "c++", "&", "??", "*args", "one two three four", "c++ code"] {
            assert_eq!(key(prose), None, "{prose}");
        }
    }

    #[test]
    fn a_path_written_as_two_or_three_words_is_looked_up_as_typed() {
        let k = key("logging basicConfig").unwrap();
        let apart = Some(("logging.".to_string(), "basicconfig.".to_string()));
        assert_eq!(k, QueryKey { exact: Some("logging.basicconfig.".into()), prefix: String::new(), capital: false, apart });
        assert_eq!(key(" os  path join ").unwrap().exact.as_deref(), Some("os.path.join."));
        assert_eq!(key("os path get_exec_path").unwrap().apart, Some(("os.path.".into(), "get_exec_path.".into())));
        // A plain word last is looked up only as typed.
        assert_eq!(key("os path join").unwrap().apart, None);
        assert_eq!(key("os.path join").unwrap().exact.as_deref(), Some("os.path.join."));
        assert_eq!(key("json\u{a0}dumps").unwrap().exact.as_deref(), Some("json.dumps."), "a no-break space");
        assert!(key("std Clone").unwrap().capital);
        // Words that make no definition's path find nothing by it, and stay words.
        assert_eq!(key("sort to how").unwrap().exact.as_deref(), Some("sort.to.how."));
        // A stop word first: its shard is read for nothing else.
        assert_eq!(key("how to sort"), None);
        assert_eq!(key("the getcwd"), None);
        for not_a_path in ["& str", "sort, then", "a \"b\""] {
            assert_eq!(key(not_a_path), None, "{not_a_path}");
        }
    }
}
