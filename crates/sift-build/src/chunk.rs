//! What gets embedded: each section becomes one or more chunks of at most
//! `MAX_CHUNK_WORDS` words (the model reads at most 256 tokens), prefixed with the page
//! title and the section heading so a chunk carries its context.

use sift_base::doc::SourceDoc;

/// About 1.3 tokens a word in English prose: 180 words stay under the 256-token limit.
pub const MAX_CHUNK_WORDS: usize = 180;
/// Sections shorter than this are merged into the next chunk of the same page.
const MIN_CHUNK_WORDS: usize = 24;

/// The texts to embed for a document, in order.
pub fn chunks_of(doc: &SourceDoc) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending: Vec<&str> = Vec::new();
    let mut pending_heading = String::new();
    let flush = |heading: &str, words: &[&str], out: &mut Vec<String>| {
        if words.is_empty() && heading.is_empty() {
            return;
        }
        let mut s = doc.title.clone();
        if !heading.is_empty() && heading != doc.title {
            s.push_str(" — ");
            s.push_str(heading);
        }
        if !words.is_empty() {
            s.push_str(": ");
            s.push_str(&words.join(" "));
        }
        out.push(s);
    };
    for sec in &doc.sections {
        if pending.is_empty() {
            pending_heading = sec.heading.clone();
        } else if sec.heading != doc.title {
            // A section merged into the chunk before keeps its heading in the text: on an API
            // page the heading is the entry's name (`math.isnan(x)`), often the one word a
            // query for the entry shares with it.
            pending.extend(sec.heading.split_whitespace());
        }
        pending.extend(sec.text.split_whitespace());
        if pending.len() < MIN_CHUNK_WORDS {
            continue;
        }
        for piece in pending.chunks(MAX_CHUNK_WORDS) {
            flush(&pending_heading, piece, &mut out);
        }
        pending.clear();
    }
    if !pending.is_empty() {
        flush(&pending_heading, &pending, &mut out);
    }
    if out.is_empty() {
        out.push(doc.title.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sift_base::doc::Section;

    fn doc(sections: Vec<(&str, String)>) -> SourceDoc {
        SourceDoc {
            id: "d".into(),
            title: "Guide".into(),
            sections: sections.into_iter().map(|(h, t)| Section { heading: h.into(), anchor: None, text: t, symbol: None }).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn long_sections_split_short_ones_merge() {
        let long = "word ".repeat(400);
        let d = doc(vec![("Intro", "tiny".into()), ("Usage", long.clone()), ("End", "short tail".into())]);
        let c = chunks_of(&d);
        assert_eq!(c.len(), 4, "{c:?}"); // (intro+usage) 401 words → 3 chunks, then the tail
        assert!(c[0].starts_with("Guide — Intro: tiny Usage word"), "{}", c[0]);
        assert!(c.iter().all(|x| x.split_whitespace().count() <= MAX_CHUNK_WORDS + 6));
        assert!(c[3].ends_with("short tail"));
    }

    #[test]
    fn a_merged_section_keeps_its_heading() {
        let d = doc(vec![
            ("math.isinf(x)", "Return True if x is a positive or negative infinity.".into()),
            ("math.isnan(x)", "Return True if x is a NaN (not a number), and False otherwise.".into()),
            ("math.isqrt(n)", "Return the integer square root of the nonnegative integer n.".into()),
        ]);
        let c = chunks_of(&d);
        // The first two reach the minimum together; the third is the page's tail.
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(c[0].starts_with("Guide — math.isinf(x): Return True"), "{}", c[0]);
        assert!(c[0].ends_with("infinity. math.isnan(x) Return True if x is a NaN (not a number), and False otherwise."), "{}", c[0]);
        assert_eq!(c[1], "Guide — math.isqrt(n): Return the integer square root of the nonnegative integer n.");
    }

    #[test]
    fn empty_documents_still_get_their_title() {
        assert_eq!(chunks_of(&doc(vec![])), vec!["Guide".to_string()]);
    }
}
