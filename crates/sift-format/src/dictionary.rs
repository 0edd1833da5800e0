//! The document store's preset dictionary: text that many pages share — the store's JSON
//! keys and the site's recurring phrases — which every doc shard's deflate stream may refer
//! back to as if it had come just before it. Doc shards are small (a part of a page), so
//! each deflate stream starts with an empty window and would spend most of its bytes on
//! what every other shard also spells out.
//!
//! The dictionary is the third section of the startup shard (`super::startup`). A doc
//! shard compressed with it says so by its codec (2). Reading one takes no decoder with dictionary support: a deflate stream can
//! carry the dictionary itself as *stored* blocks, after which the shard's own blocks begin
//! on a byte boundary, so `stored_prefix(dictionary) ++ body` is a plain raw deflate
//! stream whose output is the dictionary followed by the payload. The engine inflates it
//! so (`inflate_with`), and the browser's host hands the same stream to the platform's
//! `DecompressionStream` (`www/src/host.js`).
//!
//! Training ([`train`]) is the COVER idea (Liberis et al., as in zstd's dictionary
//! builder) in its simplest form: segments of the pages, greedily the one whose 6-byte
//! substrings occur in the most pages and are not yet in the dictionary, until it is full;
//! the best segment last, nearest the data. Deterministic: ties go to the earlier segment.

use miniz_oxide::deflate::core::{compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus};
use sift_base::hashing::{HashMap, HashSet};
use std::collections::BinaryHeap;

/// The dictionary's size: most of the gain of a 16 or 32 KB one for a quarter of their
/// download before a first result.
pub const DICTIONARY_BYTES: usize = 8 * 1024;
/// The most a reader accepts (deflate reaches 32 KB back; more could only be a mistake).
pub const MAX_DICTIONARY_BYTES: usize = 64 * 1024;
/// A doc store smaller than this gets no dictionary: too little to share, and a small site
/// should not pay a request for it.
pub const MIN_STORE_BYTES: usize = 64 * 1024;
/// Length of the substrings whose frequency scores a segment.
const DMER: usize = 6;
/// Length of a candidate segment, and the step between candidates in a page (half steps
/// measure the same, in twice the time).
const SEGMENT: usize = 128;
const STEP: usize = SEGMENT;
/// Training reads at most about this much of the store (every n-th shard): a docs site of
/// ten thousand pages trains in the time a few hundred take, for nearly the same gain.
/// Training time is about linear in it, and it is the longest step of a small site's
/// build after reading its pages; twice as much gains nothing (`bench/results/decisions.md`).
pub const TRAINING_BYTES: usize = 2 << 20;

/// The shards training reads, given every shard's size: every n-th, n such that they add up
/// to about `TRAINING_BYTES`.
pub fn training_sample(sizes: &[usize]) -> impl Iterator<Item = usize> {
    let total: usize = sizes.iter().sum();
    let every = total.div_ceil(TRAINING_BYTES).max(1);
    (0..sizes.len()).step_by(every)
}

fn dmer(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |h, &x| (h << 8) | u64::from(x))
}

/// A dictionary of at most `size` bytes for these samples (the doc shards' payloads).
pub fn train(samples: &[&[u8]], size: usize) -> Vec<u8> {
    // In how many samples each d-mer occurs.
    let mut df: HashMap<u64, u32> = HashMap::default();
    for s in samples {
        let mut seen: Vec<u64> = s.windows(DMER).map(dmer).collect();
        seen.sort_unstable();
        seen.dedup();
        for d in seen {
            *df.entry(d).or_insert(0) += 1;
        }
    }
    let segments: Vec<&[u8]> = samples
        .iter()
        .flat_map(|s| (0..s.len().saturating_sub(DMER - 1)).step_by(STEP).map(move |i| &s[i..(i + SEGMENT).min(s.len())]))
        .filter(|seg| seg.len() >= DMER)
        .collect();
    let mut covered: HashSet<u64> = HashSet::default();
    let score = |seg: &[u8], covered: &HashSet<u64>| -> u64 {
        let mut own: Vec<u64> = seg.windows(DMER).map(dmer).filter(|d| !covered.contains(d)).collect();
        own.sort_unstable();
        own.dedup();
        own.iter().map(|d| u64::from(df.get(d).copied().unwrap_or(0).saturating_sub(1))).sum()
    };
    // Lazy greedy: a segment's score only falls as others are chosen, so a popped segment
    // whose fresh score still beats the next best is the best.
    let mut heap: BinaryHeap<(u64, std::cmp::Reverse<usize>)> =
        segments.iter().enumerate().map(|(i, s)| (score(s, &covered), std::cmp::Reverse(i))).collect();
    let mut chosen: Vec<&[u8]> = Vec::new();
    let mut total = 0;
    while total < size {
        let Some((_, std::cmp::Reverse(i))) = heap.pop() else { break };
        let fresh = score(segments[i], &covered);
        if heap.peek().is_some_and(|&(next, _)| next > fresh) {
            heap.push((fresh, std::cmp::Reverse(i)));
            continue;
        }
        // Only now is a score of 0 the best left. (Tested first, a segment already covered
        // — the same page header in many parts — would end training early, with half a
        // dictionary.)
        if fresh == 0 {
            break;
        }
        covered.extend(segments[i].windows(DMER).map(dmer));
        chosen.push(segments[i]);
        total += segments[i].len();
    }
    let mut dict: Vec<u8> = chosen.iter().rev().flat_map(|s| s.iter().copied()).collect();
    if dict.len() > size {
        dict.drain(..dict.len() - size);
    }
    dict
}

/// `payload` deflated (raw, no header) as the continuation of a stream that began with
/// `dictionary`: its back-references may reach into the dictionary.
pub fn compress_with(dictionary: &[u8], payload: &[u8], level: u8) -> Vec<u8> {
    let mut c = CompressorOxide::new(create_comp_flags_from_zip_params(i32::from(level), 0, 0));
    // The dictionary goes through the compressor first, flushed to a byte boundary; what
    // it writes for it is dropped (readers supply the dictionary themselves).
    let _ = run(&mut c, dictionary, TDEFLFlush::Sync);
    run(&mut c, payload, TDEFLFlush::Finish)
}

fn run(c: &mut CompressorOxide, mut input: &[u8], flush: TDEFLFlush) -> Vec<u8> {
    let mut out = vec![0u8; input.len() / 2 + 1024];
    let mut at = 0;
    loop {
        let (status, read, wrote) = compress(c, input, &mut out[at..], flush);
        input = &input[read..];
        at += wrote;
        match status {
            TDEFLStatus::Done => break,
            TDEFLStatus::Okay if input.is_empty() && at < out.len() => break,
            TDEFLStatus::Okay => out.resize(out.len() * 2, 0),
            // Bad parameters or a failed callback: neither can happen with these buffers.
            _ => break,
        }
    }
    out.truncate(at);
    out
}

/// The dictionary as stored (uncompressed) deflate blocks, none final: put before a doc
/// shard's body, it makes one raw deflate stream that inflates to the dictionary, then the
/// payload.
pub fn stored_prefix(dictionary: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(dictionary.len() + 5 * (dictionary.len() / 65_535 + 1));
    for block in dictionary.chunks(65_535) {
        let n = block.len() as u16;
        // BFINAL 0, BTYPE 00 (stored), the rest of the byte padding; then LEN and NLEN.
        out.push(0);
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(!n).to_le_bytes());
        out.extend_from_slice(block);
    }
    out
}

/// A doc shard's payload from its body (deflated after `dictionary`), at most `limit`
/// bytes; None if it does not inflate.
#[cfg(feature = "inflate")]
pub fn inflate_with(dictionary: &[u8], body: &[u8], limit: usize) -> Option<Vec<u8>> {
    let mut stream = stored_prefix(dictionary);
    stream.extend_from_slice(body);
    let mut out = miniz_oxide::inflate::decompress_to_vec_with_limit(&stream, dictionary.len() + limit).ok()?;
    if !out.starts_with(dictionary) {
        return None;
    }
    out.drain(..dictionary.len());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages() -> Vec<Vec<u8>> {
        (0..40)
            .map(|i| {
                format!(
                    r#"{{"shard":{i},"docs":[{{"id":"page{i}.html","url":"page{i}.html","title":"Page {i}","sections":[{{"anchor":"s{i}","text":"The configuration file is read at start-up; see the reference for every option. Section {i} explains item {} in detail, and the reference lists its parameters."}}]}}]}}"#,
                    i * 7
                )
                .into_bytes()
            })
            .collect()
    }

    #[test]
    fn training_goes_on_past_segments_already_covered() {
        // Every sample opens with the same 256 bytes (a page's fields repeated in each of its
        // parts), so after the first copy of those segments is taken, the other copies come
        // off the heap with stale scores and nothing new; phrases shared by a few samples
        // each are still to be had. (Stopping at the first such copy left a 256-byte
        // dictionary.)
        let header = "H".repeat(128) + &"h".repeat(128);
        let phrases = ["alpha beta gamma delta", "the quick brown fox", "lorem ipsum dolor sit", "one two three four five"];
        let pages: Vec<Vec<u8>> = (0..40)
            .map(|i| format!("{header}{} and then page {i} ends with {}", phrases[i % 4], phrases[(i + 1) % 4]).into_bytes())
            .collect();
        let refs: Vec<&[u8]> = pages.iter().map(Vec::as_slice).collect();
        let dict = train(&refs, 4096);
        assert!(dict.len() > 2 * header.len(), "{} bytes", dict.len());
        for phrase in phrases {
            assert!(dict.windows(phrase.len()).any(|w| w == phrase.as_bytes()), "{phrase} in the dictionary");
        }
    }

    #[test]
    fn a_dictionary_of_shared_text_shrinks_every_shard_and_reads_back() {
        let pages = pages();
        let refs: Vec<&[u8]> = pages.iter().map(Vec::as_slice).collect();
        let dict = train(&refs, 512);
        assert!(!dict.is_empty() && dict.len() <= 512);
        assert!(dict.windows(12).any(|w| w == b"configuration"[..12].as_ref()), "the shared phrase is in it");
        assert_eq!(train(&refs, 512), dict, "deterministic");
        let mut plain = 0;
        let mut with = 0;
        for p in &pages {
            plain += miniz_oxide::deflate::compress_to_vec(p, 6).len();
            let body = compress_with(&dict, p, 6);
            with += body.len();
            assert_eq!(inflate_with(&dict, &body, p.len()).as_deref(), Some(p.as_slice()));
        }
        assert!(with * 10 < plain * 8, "{with} vs {plain} bytes");
    }

    #[test]
    fn damaged_or_oversized_bodies_do_not_read_back() {
        let pages = pages();
        let refs: Vec<&[u8]> = pages.iter().map(Vec::as_slice).collect();
        let dict = train(&refs, 512);
        let body = compress_with(&dict, &pages[3], 6);
        assert!(inflate_with(&dict, &body, pages[3].len() - 1).is_none(), "longer than the limit");
        assert!(inflate_with(&dict, &body[..body.len() / 2], pages[3].len()).is_none(), "truncated");
        // Another dictionary gives other bytes (the payload checksum then refuses them).
        let other = train(&refs[..3], 64);
        assert_ne!(inflate_with(&other, &body, 1 << 20).as_deref(), Some(pages[3].as_slice()));
    }

    #[test]
    fn stored_blocks_of_a_long_dictionary_are_valid_deflate() {
        let dict: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        let body = compress_with(&dict, b"after the dictionary", 6);
        assert_eq!(inflate_with(&dict, &body, 100).as_deref(), Some(&b"after the dictionary"[..]));
    }
}
