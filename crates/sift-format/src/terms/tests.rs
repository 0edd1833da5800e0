//! Term shards written and read back: entries, postings, prefixes and damage.

#[test]
fn the_castagnoli_checksum_is_the_one_fst_stores() {
    let keys: Vec<String> = (0..500).map(|i| format!("term{i:04}")).collect();
    let bytes = build_fst(keys.iter().map(|k| (k.as_str(), 7u64))).unwrap();
    let (body, stored) = bytes.split_at(bytes.len() - 4);
    assert_eq!(sift_base::crc32::crc32c_masked(body), u32::from_le_bytes(stored.try_into().unwrap()));
    fst::Map::new(bytes.clone()).unwrap().as_fst().verify().expect("fst agrees");
}
use super::*;

type Docs = Vec<(u32, [u32; N_FIELDS], Vec<u32>)>;

fn entry(docs: Docs) -> TermEntry {
    let mut e = TermEntry::default();
    for (doc, tf, pos) in &docs {
        e.push(*doc, *tf, pos);
    }
    e
}

/// The payload of one shard holding `terms` (sorted), as the builder writes it.
fn payload(terms: &[(&str, &TermEntry)]) -> Vec<u8> {
    let mut w = ShardWriter::new(1 << 20);
    for (t, e) in terms {
        w.push(t, e).unwrap();
    }
    let mut shards = w.finish().unwrap();
    assert_eq!(shards.len(), 1);
    shards.remove(0).2
}

/// That shard, read back.
fn shard(terms: &[(&str, &TermEntry)]) -> TermShard {
    TermShard::decode(payload(terms)).unwrap()
}

fn read(s: &TermShard, term: &str, docs: u32) -> PostingList {
    s.postings(s.offset(term).unwrap(), docs).unwrap()
}

#[test]
fn shards_are_cut_where_neighbouring_terms_share_the_shortest_prefix() {
    // Every term's postings about 100 bytes; a target of 400: cuts come once 600 are
    // held, somewhere leaving at least 200 in the shard.
    let e = entry((0..20).map(|d| (d * 3, [0, 0, 0, 1], vec![d * 7])).collect());
    let terms = [
        "lo", "load", "loader", "loads", "local", "locale", "lock", "look", "looked", "lookup", "loop", "loopback", "loops", "lose",
        "loss", "lost", "lot", "loud", "love", "low",
    ];
    let mut w = ShardWriter::new(400);
    for t in terms {
        w.push(t, &e).unwrap();
    }
    let shards = w.finish().unwrap();
    let cuts: Vec<(&str, &str)> = shards.windows(2).map(|p| (p[0].1.as_str(), p[1].0.as_str())).collect();
    // Each cut between terms sharing 2 letters ("lo"), none inside "loa…", "loc…",
    // "loo…" or "loop…": a typed "loo" or "loop" reads one shard.
    for (last, first) in &cuts {
        assert_eq!(common_prefix(last, first), 2, "cut {last} | {first} in {cuts:?}");
    }
    assert!(cuts.len() >= 2, "{cuts:?}");
    // Every term in exactly one shard, in order, each shard at least half the target
    // (but the last).
    let all: Vec<String> = shards
        .iter()
        .flat_map(|(_, _, p)| {
            let s = TermShard::decode(p.clone()).unwrap();
            s.map.stream().into_str_keys().unwrap()
        })
        .collect();
    assert_eq!(all, terms);
    assert!(
        shards[..shards.len() - 1].iter().all(|(_, _, p)| p.len() >= 200),
        "{:?}",
        shards.iter().map(|s| s.2.len()).collect::<Vec<_>>()
    );
}

#[test]
fn every_way_of_keeping_positions_round_trips() {
    // Positions for every occurrence (the count is derived), none (a stop word), and a
    // count that differs from the tfs (stored per doc).
    let every: Docs = vec![(0, [1, 0, 0, 2], vec![0, 40, 41]), (7, [0, 0, 0, 1], vec![99])];
    let none: Docs = vec![(1, [0, 0, 0, 5], vec![]), (2, [1, 0, 0, 0], vec![])];
    let counted: Docs = vec![(3, [0, 0, 1, 3], vec![12]), (4, [0, 0, 0, 1], vec![])];
    let s = shard(&[("every", &entry(every.clone())), ("none", &entry(none.clone())), ("odd", &entry(counted.clone()))]);
    for (term, docs) in [("every", &every), ("none", &none), ("odd", &counted)] {
        let pl = read(&s, term, 8);
        assert_eq!(pl.df as usize, docs.len());
        assert_eq!(s.header(s.offset(term).unwrap()).unwrap().0, pl.df);
        for (k, (doc, tf, pos)) in docs.iter().enumerate() {
            assert_eq!((pl.docs[k], pl.tf[k], pl.positions_of(k)), (*doc, *tf, pos.as_slice()), "{term} doc {k}");
        }
    }
}

#[test]
fn a_terms_rows_taken_out_in_runs_encode_as_if_held_whole() {
    let docs: Docs = (0..50).map(|d| (d * 2 + 1, [d % 2, 0, 0, 1 + d % 3], (0..1 + d % 4).map(|p| p * 5 + d).collect())).collect();
    let whole = payload(&[("t", &entry(docs.clone()))]);
    let mut e = TermEntry::default();
    let mut taken = Vec::new();
    for (k, (doc, tf, pos)) in docs.iter().enumerate() {
        e.push(*doc, *tf, pos);
        if [0, 7, 8, 30].contains(&k) {
            taken.push(e.take_run());
        }
    }
    assert_eq!(e.df(), 50);
    let mut w = ShardWriter::new(1 << 20);
    w.push_remapped("t", &e, &taken, &|_, p| p).unwrap();
    assert_eq!(w.finish().unwrap().remove(0).2, whole);
    // Runs missing or out of order are an error, not a wrong shard.
    let mut w = ShardWriter::new(1 << 20);
    assert!(w.push_remapped("t", &e, &taken[1..], &|_, p| p).is_err());
    taken.swap(0, 2);
    assert!(w.push_remapped("t", &e, &taken, &|_, p| p).is_err());
}

#[test]
fn damaged_postings_are_errors() {
    let e = entry(vec![(0, [1, 0, 0, 2], vec![0, 40, 41]), (7, [0, 0, 0, 1], vec![99])]);
    let good = shard(&[("t", &e)]);
    let base = payload(&[("t", &e)]);
    let start = 4 + u32::from_le_bytes([base[0], base[1], base[2], base[3]]) as usize;
    let off = good.offset("t").unwrap();
    assert_eq!(off, 0);
    let with = |at: usize, b: u8| {
        let mut p = base.clone();
        p[start + at] = b;
        TermShard::decode(p).unwrap()
    };
    // An unknown way of keeping positions (low bits 3).
    assert!(with(0, 2 << 2 | 3).postings(0, 8).is_err());
    assert!(with(0, 2 << 2 | 3).header(0).is_err());
    // More docs than the bundle has.
    assert!(good.postings(0, 7).is_err(), "doc 7 of 7");
    // A field mask with no bit, or a bit past the last field.
    let masks = 1 + 1 + 2; // df varint, empty surface, two doc gaps
    assert!(with(masks, 0).postings(0, 8).is_err());
    assert!(with(masks, 0x10).postings(0, 8).is_err());
    // Truncated anywhere: an error.
    for cut in start..base.len() {
        let s = TermShard::decode(base[..cut].to_vec()).unwrap();
        assert!(s.postings(0, 8).is_err(), "cut at {cut}");
    }
}
#[test]
fn separators_are_the_shortest_prefix_above_the_shard_before() {
    assert_eq!(separator("abs", "abstractasync"), "abst");
    assert_eq!(separator("addargument", "addr2line"), "addr");
    assert_eq!(separator("a", "b0"), "b");
    // A first key that extends the last one before it needs all of itself.
    assert_eq!(separator("alloc", "alloca"), "alloca");
    // Cut at character boundaries only: the column is JSON text.
    assert_eq!(separator("caf", "café"), "café");
    assert_eq!(separator("cafa", "cafébabe"), "café");
    assert_eq!(separator("ét", "éu"), "éu");
    for (prev, first) in [("abs", "abstractasync"), ("a", "b0"), ("caf", "café"), ("", "x")] {
        let s = separator(prev, first);
        assert!(s > prev && s <= first && first.starts_with(s), "{prev} {first} {s}");
    }
}
