//! The corpus texts the static encoder learns from, besides the chunks themselves: page
//! titles and section headings (short, like the queries people type) and sentences. Each
//! kind added relevance over chunks alone: sentences teach the encoder how words combine.

use crate::doc::SourceDoc;
use std::collections::BTreeSet;

/// Sentences shorter than this many words say too little to learn from.
pub const MIN_SENTENCE_WORDS: usize = 3;
/// Longer ones are cut at this many words (the model would read ~80 tokens of them).
pub const MAX_SENTENCE_WORDS: usize = 60;

/// Titles, headings and sentences of the corpus, each once, in a fixed order.
pub fn training_texts(docs: &[SourceDoc]) -> Vec<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    let mut add = |s: &str| {
        let t = s.split_whitespace().collect::<Vec<_>>().join(" ");
        if !t.is_empty() {
            out.insert(t);
        }
    };
    for d in docs {
        add(&d.title);
        for sec in &d.sections {
            add(&sec.heading);
            for s in sentences(&sec.text) {
                add(&s);
            }
        }
    }
    out.into_iter().collect()
}

/// The sentences of a text: cut after `.`, `?`, `!` or `:` followed by whitespace; kept
/// when they have at least `MIN_SENTENCE_WORDS` words, cut at `MAX_SENTENCE_WORDS`.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    for w in text.split_whitespace() {
        words.push(w);
        if w.ends_with(['.', '?', '!', ':']) {
            push_sentence(&mut out, &words);
            words.clear();
        }
    }
    push_sentence(&mut out, &words);
    out
}

fn push_sentence(out: &mut Vec<String>, words: &[&str]) {
    if words.len() >= MIN_SENTENCE_WORDS {
        out.push(words[..words.len().min(MAX_SENTENCE_WORDS)].join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Section;

    #[test]
    fn sentences_titles_and_headings_once_each() {
        let s = sentences("Keep answers in memory. Fast! ok then: a b c d");
        assert_eq!(s, vec!["Keep answers in memory.", "a b c d"]);
        let doc = SourceDoc {
            id: "a".into(),
            title: "Caching".into(),
            sections: vec![
                Section { heading: "Usage".into(), anchor: None, text: "Call the cache first. Call the cache first.".into() },
                Section { heading: "Usage".into(), anchor: None, text: "word ".repeat(100) },
            ],
            ..Default::default()
        };
        let t = training_texts(&[doc]);
        assert_eq!(t.iter().filter(|x| *x == "Call the cache first.").count(), 1);
        assert!(t.contains(&"Caching".to_string()) && t.contains(&"Usage".to_string()));
        assert!(t.iter().all(|x| x.split_whitespace().count() <= MAX_SENTENCE_WORDS));
    }
}
