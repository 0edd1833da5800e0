//! English stop words: indexed without positions (a third of all tokens), dropped from bare
//! query terms, one-word gaps in phrases. Other languages' lists come with their bundles.

// Sorted (binary search). The classic IR list, without words that are also identifiers
// people search for in docs (e.g. "like", "new", "get", "set").
#[rustfmt::skip]
pub(super) const ENGLISH: &[&str] = &[
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
        let mut sorted = ENGLISH.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, ENGLISH);
    }
}
