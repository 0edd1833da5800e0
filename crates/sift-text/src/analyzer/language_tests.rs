//! The languages besides English: each stems its own way and brings its stop words.

use super::*;

fn analyzer(lang: &str) -> Analyzer {
    Analyzer::new(lang, &[]).unwrap()
}

#[test]
fn each_language_stems_its_own_inflections() {
    let same = |lang: &str, a: &str, b: &str| {
        let an = analyzer(lang);
        assert_eq!(an.term_of(a), an.term_of(b), "{lang}: {a} and {b}");
    };
    same("de", "Konfiguration", "Konfigurationen");
    same("de", "Häuser", "Hauses");
    same("fr", "installations", "installation");
    same("es", "paquetes", "paquete");
    same("it", "pacchetti", "pacchetto");
    same("pt", "configurações", "configuração");
    same("ru", "документации", "документация");
    same("nl", "pakketten", "pakket");
    same("sv", "paketen", "paket");
    same("pl", "konfiguracji", "konfiguracja");
    same("uk", "документації", "документація");
    same("tr", "paketler", "paket");
    same("nb", "pakkene", "pakke");
    // English stems stay as every English bundle has them.
    assert_eq!(Analyzer::english().term_of("internal"), "intern");
}

/// `tests/fixtures/stems.json` is also what the page's stemmer modules (crates/sift-stem-wasm,
/// tests/wasm/languages.test.mjs) must answer: the page stems as the build does.
#[test]
fn the_stems_the_stemmer_modules_are_checked_against_are_the_builders() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/stems.json");
    let text = std::fs::read(path).expect("tests/fixtures/stems.json");
    let Ok(sift_base::json::Json::Obj(languages)) = sift_base::json::parse(&text) else { panic!("stems.json is an object") };
    let mut files: Vec<&str> = languages.iter().map(|(code, _)| code.as_str()).collect();
    let mut listed: Vec<&str> = STEMMED_LANGUAGES.iter().copied().filter(|c| !matches!(*c, "nb" | "nn")).collect();
    files.sort_unstable();
    listed.sort_unstable();
    assert_eq!(files, listed, "one entry per stemmer module");
    for (code, pairs) in &languages {
        let sift_base::json::Json::Arr(pairs) = pairs else { panic!("{code}: a list of [word, stem]") };
        let stemmer = language::Stemmer::of(code).unwrap();
        for pair in pairs {
            let sift_base::json::Json::Arr(pair) = pair else { panic!("{code}: [word, stem]") };
            let (word, stem) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
            assert_eq!(stemmer.stem(word), stem, "{code}: {word}");
        }
    }
}

#[test]
fn every_listed_language_has_a_stemmer_in_this_build() {
    for lang in STEMMED_LANGUAGES {
        let a = analyzer(lang);
        assert!(matches!(a.stemmer, language::Stemmer::Snowball(_)), "{lang}");
    }
    assert!(matches!(analyzer("ja").stemmer, language::Stemmer::None));
    assert!(matches!(analyzer("xx").stemmer, language::Stemmer::None), "an unknown language is not stemmed");
}

#[test]
fn stop_words_come_with_the_language() {
    let de = Analyzer::new("de", &["und".to_string(), "Über".to_string()]).unwrap();
    assert!(de.is_stopword("und") && de.is_stopword("uber"));
    assert!(!de.is_stopword("the"), "English stop words are English only");
    assert!(Analyzer::english().is_stopword("the"));
    assert_eq!(de.stored_stop_words(), ["uber", "und"]);
    assert!(Analyzer::english().stored_stop_words().is_empty());
}

#[test]
fn language_tags_give_their_primary_subtag() {
    assert_eq!(primary_subtag("pt-BR").as_deref(), Some("pt"));
    assert_eq!(primary_subtag("zh_Hant").as_deref(), Some("zh"));
    assert_eq!(primary_subtag(" EN ").as_deref(), Some("en"));
    assert_eq!(primary_subtag("x"), None);
    assert_eq!(primary_subtag("english"), None);
    assert_eq!(primary_subtag(""), None);
}

fn tokens(s: &str) -> Vec<Token> {
    let mut out = Vec::new();
    Analyzer::english().tokenize(s, 0, &mut out);
    out
}

fn toks(s: &str) -> Vec<(String, u32, bool)> {
    tokens(s).into_iter().map(|t| (t.term, t.pos, t.unigram)).collect()
}

fn parts(s: &str) -> Vec<String> {
    tokens(s).into_iter().filter(Token::is_part).map(|t| t.term).collect()
}

#[test]
fn han_kana_and_hangul_runs_are_bigrams_with_their_characters_beside() {
    assert_eq!(parts("権"), ["権"]);
    assert_eq!(toks("権"), [("権".to_string(), 0, false)]);
    assert_eq!(parts("所有"), ["所有"]);
    assert_eq!(parts("所有権"), ["所有", "有権"]);
    assert_eq!(parts("中文文档搜索"), ["中文", "文文", "文档", "档搜", "搜索"]);
    let t = toks("所有権 x");
    assert!(
        t.contains(&("所".to_string(), 0, true)) && t.contains(&("有".to_string(), 1, true)) && t.contains(&("権".to_string(), 1, true))
    );
    assert_eq!(t.last(), Some(&("x".to_string(), 2, false)), "the next word follows the last bigram");
    assert_eq!(parts("한국어 문서"), ["한국", "국어", "문서"]);
    // Hiragana and Katakana join the Han around them; voicing marks stay.
    assert_eq!(parts("所有権を"), ["所有", "有権", "権を"]);
    assert_ne!(parts("がす"), parts("かす"));
}

#[test]
fn mixed_scripts_split_where_the_script_changes() {
    assert_eq!(parts("Rust の所有権"), ["rust", "の所", "所有", "有権"]);
    assert_eq!(parts("Rustの所有権"), ["rust", "の所", "所有", "有権"]);
    assert_eq!(parts("HTTPサーバー設定"), ["http", "サー", "ーバ", "バー", "ー設", "設定"]);
}

#[test]
fn thai_letters_keep_their_marks() {
    let p = parts("ภาษาไทย");
    assert_eq!(p.len(), 6);
    assert_eq!(parts("ง่าย")[0], "ง่า", "a tone mark stays with its letter");
    // Hindi's vowel signs are letters of the word, not accents.
    assert_eq!(fold("हिन्दी"), "हिन्दी");
    assert_eq!(fold("Crème"), "creme");
}
