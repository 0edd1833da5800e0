//! One bundle per language. Pages say their language (`<html lang>`, a `lang` or
//! `language` front-matter or JSONL field); `--language` says it for all of them. The
//! site's main language (the one most pages are in) is built at the output folder, each
//! other language in a folder named by its code beside the main bundle's files, listed in
//! the main manifest (`languages`), so a host that knows its page's language opens that
//! bundle. A language's stop words come from the `stop-words` lists (NLTK's where it has
//! one, else Stopwords ISO) into its manifest; Han, Kana, Hangul and Thai take none (their
//! text is bigrammed).

use anyhow::{bail, Result};
use sift_base::SourceDoc;
use sift_build::Pages;
use sift_text::analyzer::{self, Analyzer};
use std::collections::BTreeMap;

/// A language's pages.
pub struct LanguageGroup {
    pub code: String,
    pub pages: Pages,
}

/// Languages whose text needs no stemmer: written in bigrammed scripts.
const BIGRAMMED: &[&str] = &["ja", "ko", "th", "zh"];

/// The language a page declares, as written (None: it declares none).
fn declared(d: &SourceDoc) -> Option<&str> {
    ["language", "lang"].iter().find_map(|k| d.metadata.get(*k).and_then(|v| v.first())).map(|s| s.as_str())
}

/// Group `pages` by language, the main one first. `forced`: every page in that language.
pub fn split(pages: Pages, forced: Option<&str>, warnings: &mut Vec<String>) -> Result<Vec<LanguageGroup>> {
    if let Some(tag) = forced {
        let Some(code) = analyzer::primary_subtag(tag) else {
            bail!("--language {tag:?} is not a language code (en, de, pt-BR, zh-Hans, ...)");
        };
        warn_unstemmed(&code, warnings);
        return Ok(vec![LanguageGroup { code, pages }]);
    }
    let mut bad: BTreeMap<String, usize> = BTreeMap::new();
    let codes: Vec<Option<String>> = pages
        .heads()
        .map(|d| {
            let tag = declared(&d)?;
            let code = analyzer::primary_subtag(tag);
            if code.is_none() {
                *bad.entry(tag.to_string()).or_default() += 1;
            }
            code
        })
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in codes.iter().flatten() {
        *counts.entry(c.as_str()).or_default() += 1;
    }
    // The main language: the most pages (English first among equals, then by code).
    let main = counts
        .iter()
        .max_by_key(|(c, n)| (**n, **c == "en", std::cmp::Reverse(**c)))
        .map(|(c, _)| c.to_string())
        .unwrap_or_else(|| "en".to_string());
    for (tag, n) in bad {
        warnings.push(format!("{n} page(s) declare the language {tag:?}, which is no language code: indexed as {main}"));
    }
    // The main language first, then the others by code; each page's group.
    let order: Vec<String> = std::iter::once(main.clone()).chain(counts.keys().filter(|c| **c != main).map(|c| c.to_string())).collect();
    let group_of: Vec<usize> = codes.iter().map(|c| c.as_ref().map_or(0, |c| order.iter().position(|o| o == c).unwrap_or(0))).collect();
    let out: Vec<LanguageGroup> = if order.len() == 1 {
        vec![LanguageGroup { code: main, pages }]
    } else {
        let split = pages.split(|i| group_of[i], order.len())?;
        order.into_iter().zip(split).map(|(code, pages)| LanguageGroup { code, pages }).collect()
    };
    for g in &out {
        warn_unstemmed(&g.code, warnings);
    }
    Ok(out)
}

fn warn_unstemmed(code: &str, warnings: &mut Vec<String>) {
    if code != "en" && !analyzer::STEMMED_LANGUAGES.contains(&code) && !BIGRAMMED.contains(&code) {
        warnings.push(format!("no stemmer for the language {code:?}: its pages are indexed without stemming"));
    }
}

/// The analyzer of `code`, with its stop words.
pub fn analyzer(code: &str) -> Result<Analyzer> {
    let lookup = match code {
        "en" => None,
        _ if BIGRAMMED.contains(&code) => None,
        "nb" | "nn" => stop_words::lookup("no").or_else(|| stop_words::lookup(code)),
        _ => stop_words::lookup(code),
    };
    let words: Vec<String> = lookup.unwrap_or_default().iter().map(|w| w.to_string()).collect();
    Analyzer::new(code, &words).map_err(|e| anyhow::anyhow!("this sift was built without the stemmer of {:?}", e.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(id: &str, lang: Option<&str>) -> SourceDoc {
        let mut d = SourceDoc { id: id.into(), title: id.into(), ..Default::default() };
        if let Some(l) = lang {
            d.metadata.insert("language".into(), vec![l.into()]);
        }
        d
    }

    fn ids(g: &LanguageGroup) -> Vec<String> {
        g.pages.heads().map(|d| d.id).collect()
    }

    fn split(docs: Vec<SourceDoc>, forced: Option<&str>, warnings: &mut Vec<String>) -> Result<Vec<LanguageGroup>> {
        super::split(Pages::of(docs).unwrap(), forced, warnings)
    }

    #[test]
    fn pages_are_grouped_by_language_the_main_one_first() {
        let docs = vec![page("a", Some("de")), page("b", Some("en-GB")), page("c", Some("de-AT")), page("d", None), page("e", Some("ja"))];
        let mut w = Vec::new();
        let g = split(docs, None, &mut w).unwrap();
        let codes: Vec<&str> = g.iter().map(|g| g.code.as_str()).collect();
        assert_eq!(codes, ["de", "en", "ja"]);
        assert_eq!(ids(&g[0]), ["a", "c", "d"], "a page without a language joins the main one");
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_site_without_languages_is_english() {
        let g = split(vec![page("a", None)], None, &mut Vec::new()).unwrap();
        assert_eq!((g.len(), g[0].code.as_str()), (1, "en"));
    }

    #[test]
    fn an_unknown_language_is_indexed_unstemmed_with_a_warning() {
        let mut w = Vec::new();
        let g = split(vec![page("a", Some("xx")), page("b", Some("english"))], None, &mut w).unwrap();
        assert_eq!(g[0].code, "xx");
        assert_eq!(ids(&g[0]), ["a", "b"]);
        assert!(w.iter().any(|m| m.contains("\"english\", which is no language code")), "{w:?}");
        assert!(w.iter().any(|m| m.contains("no stemmer for the language \"xx\"")), "{w:?}");
        assert!(analyzer("xx").is_ok());
    }

    #[test]
    fn language_forces_one_bundle_and_refuses_a_bad_code() {
        let g = split(vec![page("a", Some("de")), page("b", Some("fr"))], Some("fr-CA"), &mut Vec::new()).unwrap();
        assert_eq!((g.len(), g[0].code.as_str(), g[0].pages.len()), (1, "fr", 2));
        let err = split(vec![page("a", None)], Some("français"), &mut Vec::new()).err().unwrap();
        assert!(err.to_string().contains("not a language code"), "{err}");
    }

    #[test]
    fn stop_words_come_from_the_lists_except_for_bigrammed_languages() {
        let de = analyzer("de").unwrap();
        assert!(de.is_stopword("und") && de.is_stopword("uber"));
        assert!(analyzer("ja").unwrap().stored_stop_words().is_empty());
        assert!(!analyzer("nb").unwrap().stored_stop_words().is_empty());
    }
}
