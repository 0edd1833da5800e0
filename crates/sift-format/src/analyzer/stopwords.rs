//! English stop words: indexed without positions (a third of all tokens), dropped from bare
//! query terms, one-word gaps in phrases.

use super::stem;
use std::sync::OnceLock;

/// Whether an index term is the stem of a stop word. Stop-word postings carry no
/// positions (they are a third of all tokens); phrase matching treats them as one-word gaps.
pub fn is_stop_term(term: &str) -> bool {
    static STOP_TERMS: OnceLock<Vec<String>> = OnceLock::new();
    let terms = STOP_TERMS.get_or_init(|| {
        let mut terms: Vec<String> = STOPWORDS.iter().map(|w| stem(w).into_owned()).collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    });
    terms.binary_search_by(|t| t.as_str().cmp(term)).is_ok()
}

/// English stop words, removed from bare query terms (never from phrases, never from the
/// index). A query made only of stop words keeps them.
pub fn is_stopword(folded: &str) -> bool {
    STOPWORDS.binary_search(&folded).is_ok()
}

// Sorted (binary search). The classic IR list, without words that are also identifiers
// people search for in docs (e.g. "like", "new", "get", "set").
#[rustfmt::skip]
const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been",
    "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each",
    "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "must", "my", "myself", "no", "nor",
    "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "shall", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopword_list_is_sorted() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }
}
