//! The corpus texts the static encoder learns from, besides the chunks themselves: page
//! titles and section headings (short, like the queries people type) and sentences. Each
//! kind added relevance over chunks alone: sentences teach the encoder how words combine.

use sift_base::doc::SourceDoc;
use std::collections::{BTreeMap, BTreeSet};

/// Sentences shorter than this many words say too little to learn from.
pub const MIN_SENTENCE_WORDS: usize = 3;
/// Longer ones are cut at this many words (the model would read ~80 tokens of them).
pub const MAX_SENTENCE_WORDS: usize = 60;

/// At most this many sentences are learnt from (titles and headings always are): past a
/// Cranfield's worth, more sentences did not improve the encoder (bench/results/decisions.md)
/// but each costs the build an embedding.
pub const MAX_SENTENCES: usize = 20_000;

/// Titles, headings and sentences of the corpus, each once, in a fixed order. A big site's
/// sentences are capped at `MAX_SENTENCES`: those with the smallest hashes, a sample that
/// does not depend on page order and that an edit changes only where it changed a sentence.
pub fn training_texts(docs: &[SourceDoc]) -> Vec<String> {
    training_texts_capped(docs, MAX_SENTENCES)
}

/// `training_texts` with another cap.
pub fn training_texts_capped(docs: &[SourceDoc], max_sentences: usize) -> Vec<String> {
    let mut t = TrainingTexts::new(max_sentences);
    t.add(docs);
    t.finish()
}

/// [`training_texts`] of pages read a batch at a time.
pub struct TrainingTexts {
    out: BTreeSet<String>,
    /// The sentences with the smallest hashes so far, by hash: a big site's sentences (most
    /// of its text) are never all held at once.
    said: BTreeMap<[u8; 32], String>,
    max_sentences: usize,
}

impl TrainingTexts {
    pub fn new(max_sentences: usize) -> TrainingTexts {
        TrainingTexts { out: BTreeSet::new(), said: BTreeMap::new(), max_sentences }
    }

    pub fn add(&mut self, docs: &[SourceDoc]) {
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        for d in docs {
            self.out.insert(norm(&d.title));
            for sec in &d.sections {
                self.out.insert(norm(&sec.heading));
                // A sentence's words are already joined by single spaces.
                for s in sentences(&sec.text) {
                    let h = *blake3::hash(s.as_bytes()).as_bytes();
                    if self.said.len() < self.max_sentences || self.said.last_key_value().is_some_and(|(last, _)| h < *last) {
                        self.said.insert(h, s);
                        if self.said.len() > self.max_sentences {
                            self.said.pop_last();
                        }
                    }
                }
            }
        }
    }

    /// The texts, each once, in a fixed order.
    pub fn finish(self) -> Vec<String> {
        let mut out = self.out;
        out.extend(self.said.into_values());
        out.remove("");
        out.into_iter().collect()
    }
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
    use sift_base::doc::Section;

    #[test]
    fn sentences_titles_and_headings_once_each() {
        let s = sentences("Keep answers in memory. Fast! ok then: a b c d");
        assert_eq!(s, vec!["Keep answers in memory.", "a b c d"]);
        let doc = SourceDoc {
            id: "a".into(),
            title: "Caching".into(),
            sections: vec![
                Section { heading: "Usage".into(), anchor: None, text: "Call the cache first. Call the cache first.".into(), symbol: None },
                Section { heading: "Usage".into(), anchor: None, text: "word ".repeat(100), symbol: None },
            ],
            ..Default::default()
        };
        let t = training_texts(&[doc]);
        assert_eq!(t.iter().filter(|x| *x == "Call the cache first.").count(), 1);
        assert!(t.contains(&"Caching".to_string()) && t.contains(&"Usage".to_string()));
        assert!(t.iter().all(|x| x.split_whitespace().count() <= MAX_SENTENCE_WORDS));
    }

    #[test]
    fn a_big_sites_sentences_are_a_sample_that_page_order_does_not_change() {
        let page = |id: &str, n: usize| SourceDoc {
            id: id.into(),
            title: format!("Page {id}"),
            sections: vec![Section {
                heading: format!("About {id}"),
                anchor: None,
                text: (0..n).map(|i| format!("Sentence {i} of page {id} here.")).collect::<Vec<_>>().join(" "),
                symbol: None,
            }],
            ..Default::default()
        };
        let docs = vec![page("a", 30), page("b", 30)];
        let all = training_texts_capped(&docs, usize::MAX);
        assert_eq!(all.len(), 64, "2 titles, 2 headings, 60 sentences");
        let capped = training_texts_capped(&docs, 10);
        assert_eq!(capped.len(), 14, "titles and headings always; 10 sentences");
        assert!(["Page a", "Page b", "About a", "About b"].iter().all(|t| capped.contains(&t.to_string())));
        let reversed: Vec<SourceDoc> = docs.iter().rev().cloned().collect();
        assert_eq!(training_texts_capped(&reversed, 10), capped, "the sample depends on the sentences, not the page order");
        // Both pages are sampled, not the first page's sentences alone.
        assert!(capped.iter().any(|t| t.ends_with("page a here.")) && capped.iter().any(|t| t.ends_with("page b here.")));
    }
}
