//! Analysis: word forms meeting, folding, stems, stop words and token positions.

use super::*;

fn t(s: &str) -> Vec<String> {
    Analyzer::english().terms(s)
}

fn term_of(s: &str) -> String {
    Analyzer::english().term_of(s)
}

#[test]
fn camel_snake_kebab_and_spaced_forms_meet() {
    let camel = t("StateMachine");
    let snake = t("state_machine");
    let kebab = t("state-machine");
    let spaced = t("state machine");
    assert_eq!(camel, vec!["state", "machin", "statemachin"]);
    assert_eq!(snake, camel);
    assert_eq!(kebab, camel);
    assert_eq!(spaced, vec!["state", "machin"]);
    assert_eq!(t("statemachine"), vec!["statemachin"]);
}

#[test]
fn acronym_runs_split_before_the_next_word() {
    assert_eq!(t("parseHTTPResponse"), vec!["pars", "http", "respons", "parsehttprespons"]);
    assert_eq!(t("XMLHttpRequest")[..3], ["xml", "http", "request"]);
}

#[test]
fn two_letter_acronyms_and_digits_are_kept() {
    assert_eq!(t("AI and UI in MCP"), vec!["ai", "and", "ui", "in", "mcp"]);
    assert_eq!(t("utf8 h2"), vec!["utf8", "h2"]);
    assert_eq!(t("Python 3.11"), vec!["python", "3", "11", "311"]);
}

#[test]
fn diacritics_case_ligatures_and_full_width_fold() {
    assert_eq!(t("Crème Brûlée"), t("creme brulee"));
    assert_eq!(t("NAÏVE"), t("naive"));
    assert_eq!(t("ﬁle"), t("file"));
    assert_eq!(t("ＡＢＣ"), t("abc"));
}

#[test]
fn stemming_conflates_inflections() {
    assert_eq!(term_of("authenticate"), term_of("authentication"));
    assert_eq!(term_of("Running"), term_of("runs"));
    assert_eq!(term_of("configure"), term_of("configuration"));
}

#[test]
fn apostrophes_vanish_and_punctuation_splits() {
    assert_eq!(t("don't"), vec!["dont"]);
    assert_eq!(t("os.path.join()"), vec!["os", "path", "join", "ospathjoin"]);
}

#[test]
fn positions_and_offsets() {
    let mut toks = Vec::new();
    let next = Analyzer::english().tokenize("read the state_machine now", 10, &mut toks);
    let sm: Vec<_> = toks.iter().filter(|t| t.term.starts_with("state")).collect();
    assert_eq!(sm[0].pos, 12);
    assert_eq!(sm.iter().find(|t| t.joined).unwrap().pos, 12);
    assert_eq!(next, 15);
    let now = toks.iter().find(|t| t.term == "now").unwrap();
    assert_eq!(&"read the state_machine now"[now.start..now.end], "now");
}

#[test]
fn counting_a_headings_positions_agrees_with_laying_out_its_tokens() {
    let headings = [
        "Examples",
        "pub fn with_capacity(capacity: usize) -> Vec<T>",
        "impl<T, A> IntoIterator for &'a Vec<T, A>",
        "parseHTTPResponse, don't v2 state-machine os.getcwd",
        "Rust の所有権 와 한국어 ภาษาไทย",
        "Häuser café naïve — 🦀 --- !!",
        &"x".repeat(300),
        "",
    ];
    for h in headings {
        let mut toks = Vec::new();
        assert_eq!(position_after(h, 7), positions(h, 7, &mut toks), "{h}");
    }
}

#[test]
fn cjk_and_emoji_and_junk_do_not_panic() {
    assert!(!t("東京 タワー").is_empty());
    assert!(t("🦀🦀 ---- !!!").is_empty());
    assert!(t(&"x".repeat(500)).is_empty(), "over-long parts are not indexed");
    assert!(t("").is_empty());
}
