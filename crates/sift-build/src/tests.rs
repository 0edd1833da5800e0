//! The term store (terms sharded, postings spilled and merged) built and read back.

use super::*;

fn pages(n: usize) -> Vec<SourceDoc> {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "the", "theta", "iota", "kappa", "lambda", "Kappas"];
    (0..n)
        .map(|i| {
            let text: Vec<String> = (0..40 + i % 300).map(|k| format!("{} w{}", words[(i * 7 + k) % words.len()], (i * k) % 997)).collect();
            SourceDoc {
                id: format!("p{i}.html"),
                title: format!("Page {} {}", i, words[i % words.len()]),
                sections: vec![
                    Section { heading: "Intro".into(), anchor: Some("intro".into()), text: text.join(" "), symbol: None },
                    Section { heading: "More".into(), anchor: Some("more".into()), text: text[..text.len() / 2].join(". "), symbol: None },
                ],
                ..Default::default()
            }
        })
        .collect()
}

#[test]
fn a_build_tells_its_host_each_step_and_how_far_it_is() {
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = events.clone();
    let on_step = OnStep(Some(std::sync::Arc::new(move |e: BuildEvent<'_>| {
        let e = match e {
            BuildEvent::Step(what) => format!("step {what}"),
            BuildEvent::Progress { done, total } => format!("{done}/{total}"),
        };
        seen.lock().unwrap().push(e);
    })));
    build(&pages(1100), &BuildOptions { on_step, ..Default::default() }).unwrap();
    let events = events.lock().unwrap().join(", ");
    // A site this small is analysed in eighths.
    let eighths = "138/1100, 276/1100, 414/1100, 552/1100, 690/1100, 828/1100, 966/1100, 1100/1100";
    assert!(events.starts_with(&format!("step analysing and inverting the pages, {eighths}, step planning the doc store, ")), "{events}");
    assert!(events.contains("step encoding the terms, the vocabulary and the doc store, 0/"), "{events}");
    assert!(events.contains("step compressing the shards, 0/"), "{events}");
}

#[test]
fn a_build_short_of_memory_writes_the_same_bundle() {
    // Three batches of pages, some long enough to be stored in parts (their positions
    // move as their postings are written), and postings taken to disk after each batch.
    let docs = pages(1300);
    let opts = BuildOptions { doc_part_target: 2048, ..Default::default() };
    let held = build(&docs, &opts).unwrap();
    let spilled = build(&docs, &BuildOptions { postings_memory: 1, ..opts }).unwrap();
    assert!(held.manifest.part_positions.is_some(), "some page is stored in parts");
    assert_eq!(held.manifest_bytes(), spilled.manifest_bytes());
    assert!(held.shards == spilled.shards, "the shards differ");
}

/// 2,000 terms in 30 documents; with runs taken to disk after documents 9 and 20.
fn postings(runs: bool) -> (HashMap<String, TermEntry>, Vec<std::fs::File>) {
    let mut postings: HashMap<String, TermEntry> = HashMap::new();
    let mut files = Vec::new();
    for doc in 0..30u32 {
        for t in (0..2000u32).filter(|t| (t + doc) % 3 == 0) {
            postings.entry(format!("term{t:05}")).or_default().push(doc * 300 + t, [0, 0, 0, 2], &[doc, doc + 40 * t]);
        }
        if runs && (doc == 9 || doc == 20) {
            files.push(spill::write_run(&mut postings).unwrap());
        }
    }
    (postings, files)
}

/// Every term shard, collected.
fn all(postings: Postings, cap: usize) -> Result<Vec<(String, String, Vec<u8>)>, SiftError> {
    let mut out = Vec::new();
    term_shards(postings, 64, cap, &|_, p| p, &OnStep::default(), &mut |batch| {
        out.extend(batch);
        Ok(())
    })
    .map(|()| out)
}

#[test]
fn term_shards_are_the_same_whether_postings_were_taken_to_disk_or_not() {
    let (held, _) = postings(false);
    let mut terms: Vec<&str> = held.keys().map(String::as_str).collect();
    terms.sort_unstable();
    for cap in [usize::MAX, 20] {
        let whole = all(Postings { terms: &terms, entries: &held, runs: Vec::new() }, cap).unwrap();
        let (spilled, runs) = postings(true);
        assert_eq!(runs.len(), 2);
        let cut = all(Postings { terms: &terms, entries: &spilled, runs }, cap).unwrap();
        assert!(whole == cut, "cap {cap}: the shards differ");
    }
    // A run holding a term the list lacks is an error, not a silent loss.
    let (spilled, runs) = postings(true);
    assert!(all(Postings { terms: &terms[1..], entries: &spilled, runs }, 20).is_err());
}

#[test]
fn the_term_shard_count_is_capped_by_raising_the_target() {
    let (postings, _) = postings(false);
    let mut terms: Vec<&str> = postings.keys().map(String::as_str).collect();
    terms.sort_unstable();
    let shards = |cap: usize| all(Postings { terms: &terms, entries: &postings, runs: Vec::new() }, cap).unwrap();
    let uncapped = shards(usize::MAX).len();
    assert!(uncapped > 500, "{uncapped} shards");
    for cap in [1, 10, 100, 400] {
        let got = shards(cap);
        assert!(got.len() <= cap, "cap {cap}: {} shards", got.len());
        // Every term still in one shard, in order.
        let firsts: Vec<&str> = got.iter().map(|s| s.0.as_str()).collect();
        assert!(firsts.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(got[0].0, "term00000");
        assert_eq!(got.last().unwrap().1, "term01999");
        let cut = got.len();
        assert!(cut * 2 > cap.min(uncapped), "cap {cap}: {cut} shards, far fewer than allowed");
    }
}
