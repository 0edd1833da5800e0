//! One bundle per language. Pages say their language (`<html lang>`, a `lang` or
//! `language` front-matter or JSONL field, else a file name such as `index.ru.html`);
//! `--language` says it for all of them. Pages that say none are read as the language
//! their text is written in, one for all of them (whatlang's reliable guess on a sample of
//! them read together), else English: Debian's manuals, say, declare none. The
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

/// Languages whose code a file name may carry (`index.ru.html`): the ones Sift analyses, so
/// that `app.js.html` or `setup.py.md` say nothing.
fn analysed(code: &str) -> bool {
    code == "en" || analyzer::STEMMED_LANGUAGES.contains(&code) || BIGRAMMED.contains(&code)
}

/// The language a page's file name says, as content negotiation names translations
/// (`index.ru.html`, `guide.pt-br.md`).
fn named(d: &SourceDoc) -> Option<String> {
    let file = d.id.rsplit(['/', '\\']).next()?;
    let stem = file.rsplit_once('.')?.0;
    let code = analyzer::primary_subtag(stem.rsplit_once('.')?.1)?;
    analysed(&code).then_some(code)
}

/// Pages of a site sampled for the language of its text.
const SAMPLE: usize = 64;
/// Text of each sampled page read (whatlang is sure of a language long before).
const SAMPLE_BYTES: usize = 4096;

/// The language the pages `undeclared` are written in: whatlang's reliable guess on a
/// sample of them read together (each page's opening, so no page outweighs the others and
/// a site of short pages still says enough), when it is a language code Sift knows.
fn detected(pages: &mut Pages, undeclared: &[usize]) -> Result<Option<String>> {
    if undeclared.is_empty() {
        return Ok(None);
    }
    pages.finish()?;
    let step = undeclared.len().div_ceil(SAMPLE);
    let mut sample = String::new();
    for &i in undeclared.iter().step_by(step) {
        let page = pages.page(i)?;
        let mut text = page.title.clone();
        for s in &page.sections {
            if text.len() >= SAMPLE_BYTES {
                break;
            }
            text.push('\n');
            text.push_str(&s.heading);
            text.push('\n');
            text.push_str(&s.text);
        }
        sample.push_str(&text[..text.floor_char_boundary(SAMPLE_BYTES)]);
        sample.push('\n');
    }
    let info = whatlang::detect(&sample).filter(whatlang::Info::is_reliable);
    Ok(info.and_then(|i| iso_639_1(i.lang())).map(str::to_string))
}

/// whatlang's languages (ISO 639-3) by their ISO 639-1 codes, the ones pages are tagged with.
fn iso_639_1(lang: whatlang::Lang) -> Option<&'static str> {
    #[rustfmt::skip]
    const CODES: &[(&str, &str)] = &[
        ("afr", "af"), ("aka", "ak"), ("amh", "am"), ("ara", "ar"), ("aze", "az"), ("bel", "be"), ("ben", "bn"),
        ("bul", "bg"), ("cat", "ca"), ("ces", "cs"), ("cmn", "zh"), ("cym", "cy"), ("dan", "da"), ("deu", "de"),
        ("ell", "el"), ("eng", "en"), ("epo", "eo"), ("est", "et"), ("fin", "fi"), ("fra", "fr"), ("guj", "gu"),
        ("heb", "he"), ("hin", "hi"), ("hrv", "hr"), ("hun", "hu"), ("hye", "hy"), ("ind", "id"), ("ita", "it"),
        ("jav", "jv"), ("jpn", "ja"), ("kan", "kn"), ("kat", "ka"), ("khm", "km"), ("kor", "ko"), ("lat", "la"),
        ("lav", "lv"), ("lit", "lt"), ("mal", "ml"), ("mar", "mr"), ("mkd", "mk"), ("mya", "my"), ("nep", "ne"),
        ("nld", "nl"), ("nob", "nb"), ("ori", "or"), ("pan", "pa"), ("pes", "fa"), ("pol", "pl"), ("por", "pt"),
        ("ron", "ro"), ("rus", "ru"), ("sin", "si"), ("slk", "sk"), ("slv", "sl"), ("sna", "sn"), ("spa", "es"),
        ("srp", "sr"), ("swe", "sv"), ("tam", "ta"), ("tel", "te"), ("tgl", "tl"), ("tha", "th"), ("tuk", "tk"),
        ("tur", "tr"), ("ukr", "uk"), ("urd", "ur"), ("uzb", "uz"), ("vie", "vi"), ("yid", "yi"), ("zul", "zu"),
    ];
    CODES.iter().find(|(three, _)| *three == lang.code()).map(|(_, two)| *two)
}

/// Group `pages` by language, the main one first. `forced`: every page in that language.
pub fn split(mut pages: Pages, forced: Option<&str>, warnings: &mut Vec<String>) -> Result<Vec<LanguageGroup>> {
    if let Some(tag) = forced {
        let Some(code) = analyzer::primary_subtag(tag) else {
            bail!("--language {tag:?} is not a language code (en, de, pt-BR, zh-Hans, ...)");
        };
        warn_unstemmed(&code, warnings);
        return Ok(vec![LanguageGroup { code, pages }]);
    }
    let mut bad: BTreeMap<String, usize> = BTreeMap::new();
    // Each page's code, and whether it said anything (a tag that is no code joins the main
    // language, as its warning says; only pages that say nothing are read for their text).
    let (mut codes, said): (Vec<Option<String>>, Vec<bool>) = pages
        .heads()
        .map(|d| {
            let Some(tag) = declared(&d) else {
                let code = named(&d);
                let said = code.is_some();
                return (code, said);
            };
            let code = analyzer::primary_subtag(tag);
            if code.is_none() {
                *bad.entry(tag.to_string()).or_default() += 1;
            }
            (code, true)
        })
        .unzip();
    let undeclared: Vec<usize> = (0..codes.len()).filter(|&i| !said[i]).collect();
    if let Some(code) = detected(&mut pages, &undeclared)? {
        if code != "en" {
            warnings.push(format!("{} page(s) declare no language: indexed as {code}, the language of their text", undeclared.len()));
        }
        for &i in &undeclared {
            codes[i] = Some(code.clone());
        }
    }
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

    fn written(id: &str, text: &str) -> SourceDoc {
        let section = sift_base::doc::Section { heading: String::new(), anchor: None, text: text.into(), symbol: None };
        SourceDoc { id: id.into(), title: id.into(), sections: vec![section], ..Default::default() }
    }

    const RUSSIAN: &str = "Сборка пакета из исходного кода начинается с распаковки архива. Затем сопровождающий \
        проверяет, что программа собирается без ошибок, и только после этого готовит файлы в каталоге debian.";
    const ENGLISH: &str = "Building a package from source starts with unpacking the archive. The maintainer then \
        checks that the program builds without errors, and only then prepares the files in the debian directory.";

    #[test]
    fn pages_that_declare_no_language_are_read_as_the_language_of_their_text() {
        let mut w = Vec::new();
        let g = split(vec![written("build.html", RUSSIAN), written("first.html", RUSSIAN)], None, &mut w).unwrap();
        assert_eq!((g.len(), g[0].code.as_str()), (1, "ru"));
        assert!(w.iter().any(|m| m.contains("2 page(s) declare no language: indexed as ru")), "{w:?}");

        let mut w = Vec::new();
        let g = split(vec![written("a", ENGLISH), written("b", RUSSIAN), written("c", ENGLISH)], None, &mut w).unwrap();
        assert_eq!((g.len(), g[0].code.as_str()), (1, "en"), "one language for all of them: the one most are in");
        assert!(w.is_empty(), "English needs no word: {w:?}");
    }

    #[test]
    fn a_declared_language_wins_over_the_text_and_unclear_text_is_english() {
        let mut d = written("a", RUSSIAN);
        d.metadata.insert("lang".into(), vec!["de".into()]);
        let g = split(vec![d], None, &mut Vec::new()).unwrap();
        assert_eq!(g[0].code, "de");
        let g = split(vec![written("a", "x = 1; y = 2"), written("b", "")], None, &mut Vec::new()).unwrap();
        assert_eq!(g[0].code, "en");
        let g = split(vec![written("a", RUSSIAN)], Some("en"), &mut Vec::new()).unwrap();
        assert_eq!(g[0].code, "en", "--language says it for every page");
    }

    #[test]
    fn a_page_whose_language_tag_is_no_code_joins_the_main_language_whatever_its_text() {
        let mut d = written("b", RUSSIAN);
        d.metadata.insert("lang".into(), vec!["russian".into()]);
        let mut w = Vec::new();
        let g = split(vec![page("a", Some("de")), d], None, &mut w).unwrap();
        assert_eq!((g.len(), g[0].code.as_str()), (1, "de"));
        assert!(w.iter().any(|m| m.contains("\"russian\", which is no language code: indexed as de")), "{w:?}");
        assert!(!w.iter().any(|m| m.contains("declare no language")), "its text is not read: {w:?}");
    }

    #[test]
    fn a_file_name_says_the_language_of_a_page_that_declares_none() {
        let docs = vec![page("guide/index.ru.html", None), page("guide/index.de.html", None), page("first.pt-br.md", None)];
        let g = split(docs, None, &mut Vec::new()).unwrap();
        let codes: Vec<&str> = g.iter().map(|g| g.code.as_str()).collect();
        assert_eq!(codes, ["de", "pt", "ru"]);
        // A second extension that is no language Sift analyses says nothing.
        let g = split(vec![page("app.js.html", None), page("setup.py.md", None)], None, &mut Vec::new()).unwrap();
        assert_eq!((g.len(), g[0].code.as_str()), (1, "en"));
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
