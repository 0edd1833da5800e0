//! The semantic stores: vector lists, list groups and the encoder's rows, named by rule,
//! read only as a query needs them, and refused when damaged or mismatched.

use super::*;

/// A bundle with vectors in three lists and a static query encoder (the toy model's).
fn semantic_built(docs: &[sift_base::SourceDoc]) -> sift_build::BuiltBundle {
    let mut semantic = sift_build::semantic::toy::semantic_input(docs, 16);
    semantic.lists = Some(3);
    semantic.probe = 8;
    semantic.group_from_lists = 2;
    build(docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap()
}

/// A hybrid search by a cold engine through the host loop: the files it read.
fn hybrid_fetching(b: &sift_build::BuiltBundle, query: &str) -> (sift_engine::SearchResponse, Vec<String>) {
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let req = SearchRequest { query: query.into(), mode: Some("hybrid".into()), ..Default::default() };
    let mut fetched = Vec::new();
    let r = e
        .drive(
            |e| e.search(&req, &ctx()),
            |f| {
                fetched.push(f.to_string());
                Ok(b.shards.iter().find(|(n, _)| n == f).unwrap_or_else(|| panic!("{f} was written")).1.clone())
            },
        )
        .unwrap();
    (r, fetched)
}

#[test]
fn the_semantic_stores_are_named_by_rule_and_the_encoder_index_is_the_manifests() {
    let docs = corpus_docs();
    let b = semantic_built(&docs);
    let enc = b.manifest.encoder.as_ref().unwrap();
    let ix = enc.layout.index().unwrap();
    assert!(ix.groups.len() >= 2 && ix.row_shards.len() >= 2, "{} groups, {} row shards", ix.groups.len(), ix.row_shards.len());
    for (stem, refs) in [(&enc.layout.group_files, &ix.groups), (&enc.layout.row_files, &ix.row_shards)] {
        for (n, r) in refs.iter().enumerate() {
            assert_eq!(r.file, format!("{stem}-{n}.bin"));
            assert!(r.check.is_none());
            assert!(b.shards.iter().any(|(name, _)| *name == r.file), "{} is written", r.file);
        }
    }
    assert!(!b.shards.iter().any(|(n, _)| n.starts_with("w-")), "no encoder index shard");
    let n_lists = b.shards.iter().filter(|(n, _)| n.starts_with("l-")).count();
    assert_eq!(n_lists, 3);
    let text = String::from_utf8(b.manifest_bytes()).unwrap();
    assert_eq!(sift_format::Manifest::parse(text.as_bytes()).unwrap(), b.manifest);

    // A hybrid query reads the vector index, then the encoder's groups and rows and the
    // nearest lists, each by its rule name: no index shard for the encoder.
    let (r, fetched) = hybrid_fetching(&b, "state machine transitions");
    assert_eq!(r.search_type, "hybrid");
    assert!(!r.results.is_empty());
    for prefix in ["x-", "c-", "l-", "g-", "e-"] {
        assert!(fetched.iter().any(|f| f.starts_with(prefix)), "{prefix} read: {fetched:?}");
    }
    assert!(fetched.iter().filter(|f| ["c-", "l-", "g-", "e-"].iter().any(|p| f.starts_with(p))).all(|f| f.matches('-').count() == 2));
    assert!(!fetched.iter().any(|f| f.starts_with("w-")));

    // A rebuild of changed text renames every child of every store.
    let mut changed = docs.clone();
    changed[0].sections[0].text.push_str(" zebra crossing");
    let c = semantic_built(&changed);
    let (le, ce) = (&enc.layout, &c.manifest.encoder.as_ref().unwrap().layout);
    assert_ne!(le.row_files, ce.row_files);
    assert_ne!(le.group_files, ce.group_files);
}

#[test]
fn a_query_reads_the_nearest_list_groups_then_the_nearest_lists_in_them() {
    // 240 pages on 24 topics, each topic its own words: vectors in clear neighbourhoods.
    let docs: Vec<sift_base::SourceDoc> = (0..240)
        .map(|i| {
            let topic = i % 24;
            let words: Vec<String> = (0..6).map(|w| format!("topic{topic}word{w}")).collect();
            let text = format!("{} page{i}", words.join(" "));
            let section = sift_base::Section { heading: String::new(), anchor: None, text, symbol: None };
            sift_base::SourceDoc {
                id: format!("p{i}"),
                url: format!("/p{i}"),
                title: format!("Page {i}"),
                sections: vec![section],
                ..Default::default()
            }
        })
        .collect();
    let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
    semantic.lists = Some(48);
    semantic.probe = 4;
    semantic.group_from_lists = 2;
    let b = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap();
    let n_lists = b.shards.iter().filter(|(n, _)| n.starts_with("l-")).count();
    let n_groups = b.shards.iter().filter(|(n, _)| n.starts_with("c-")).count();
    let want = (2.0 * (n_lists as f64).sqrt()).round() as usize;
    assert!(n_groups <= want && n_groups + 3 >= want, "2√{n_lists} groups, less any k-means left empty: {n_groups}");
    let mut warm = Engine::new(&b.manifest_bytes()).unwrap();
    sift_tests::frozen::load_all(&mut warm, |f| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone());
    let mut fewest_groups = n_groups;
    for q in ["topic3word1 topic3word2", "topic17word0", "topic9word4 topic9word5 page9"] {
        let (cold, fetched) = hybrid_fetching(&b, q);
        let first = |p: &str| fetched.iter().position(|f| f.starts_with(p));
        assert!(first("c-").is_some() && first("c-") < first("l-"), "{q}: groups, then lists: {fetched:?}");
        fewest_groups = fewest_groups.min(fetched.iter().filter(|f| f.starts_with("c-")).count());
        let req = SearchRequest { query: q.into(), mode: Some("hybrid".into()), ..Default::default() };
        let sift_engine::Step::Done(all) = warm.search(&req, &ctx()).unwrap() else { panic!("all loaded") };
        let ids = |r: &sift_engine::SearchResponse| r.results.iter().map(|h| h.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&cold), ids(&all), "{q}: a cold engine answers as one with every shard loaded");
    }
    assert!(fewest_groups < n_groups, "a query reads the nearest groups, not all");
}

/// A token added to a toy encoder's vocabulary under the next free id, with its prior row.
fn add_token(enc: &mut sift_build::EncoderInput, token: &str) -> u32 {
    let id = 1 + *enc.vocab.keys().max().unwrap();
    enc.prior.insert(id, sift_build::semantic::toy::embed(token, 16));
    enc.vocab.insert(id, token.to_string());
    id
}

#[test]
fn a_word_the_site_uses_in_pieces_is_looked_up_whole_and_reads_no_continuation_group() {
    let docs = corpus_docs();
    let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
    let enc = semantic.encoder.as_mut().unwrap();
    // `quuxifying`, cut as `quux ##ify ##ing`, in two chunks; `zqing` (`zq ##ing`) in one.
    let pieces = [add_token(enc, "quux"), add_token(enc, "##ify"), add_token(enc, "##ing")];
    let zq = add_token(enc, "zq");
    let mut chunks: Vec<Vec<u32>> = enc.chunk_tokens.iter().map(|c| c.into_owned()).collect();
    chunks[0].extend(pieces);
    chunks[1].extend(pieces);
    chunks[2].extend([zq, pieces[2]]);
    enc.chunk_tokens = chunks.iter().collect();
    let b = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap();
    let ix = b.manifest.encoder.as_ref().unwrap().layout.index().unwrap();
    let continuation_groups: Vec<&str> = ix.groups[ix.n_word_groups..].iter().map(|g| g.file.as_str()).collect();

    let (r, fetched) = hybrid_fetching(&b, "quuxifying");
    assert!(!r.results.is_empty(), "answered by its meaning");
    assert!(!fetched.iter().any(|f| continuation_groups.contains(&f.as_str())), "{fetched:?}");
    let rows = fetched.iter().filter(|f| f.starts_with(&ix.row_shards[0].file[..18])).count();
    assert!(rows >= 1, "its pieces' rows are read: {fetched:?}");
    // A word one chunk uses is cut as before: its continuation's group is read.
    let (_, fetched) = hybrid_fetching(&b, "zqing");
    assert!(fetched.contains(&ix.groups[ix.group_of("##ing")].file), "{fetched:?}");
    cold_answers_as_warm(&b, &["quuxifying", "quuxifying cache", "zqing quuxifying"]);
}

#[test]
fn a_word_cut_into_continuations_reads_only_their_groups() {
    let docs = corpus_docs();
    let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
    // The words `quux` and `zq` and 26 × 8 continuations (`##a0` … `##z7`, and `##ify`, `##ing`),
    // as a real vocabulary has them: enough for several continuation groups.
    let enc = semantic.encoder.as_mut().unwrap();
    let add = |enc: &mut sift_build::EncoderInput, token: String| {
        let id = add_token(enc, &token);
        enc.extra.push(id);
    };
    add(enc, "quux".into());
    add(enc, "zq".into());
    for c in 'a'..='z' {
        for k in 0..8 {
            add(enc, format!("##{c}{k}"));
        }
    }
    add(enc, "##ify".into());
    add(enc, "##ing".into());
    let b = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).unwrap();
    let ix = b.manifest.encoder.as_ref().unwrap().layout.index().unwrap();
    assert!(ix.n_continuation_groups >= 3, "{} continuation groups", ix.n_continuation_groups);
    let continuation_groups: Vec<&str> = ix.groups[ix.n_word_groups..].iter().map(|g| g.file.as_str()).collect();

    // `quuxifying`: `quux`, then `##ify` and `##ing`, both in the group of `i`.
    // No page has the word: answered by its meaning, which its pieces' rows give.
    let (r, fetched) = hybrid_fetching(&b, "quuxifying");
    assert_eq!(r.search_type, "semantic");
    assert!(!r.results.is_empty());
    let read: Vec<&String> = fetched.iter().filter(|f| continuation_groups.contains(&f.as_str())).collect();
    assert_eq!(read, [&ix.groups[ix.group_of("##ify")].file], "one continuation group: {fetched:?}");
    assert_eq!(ix.group_of("##ify"), ix.group_of("##ing"));
    // A word whose first piece is shorter than a group's key (`zq`, then `##x0`) reads
    // that piece's group and the continuation's.
    let (_, fetched) = hybrid_fetching(&b, "zqx0");
    for token in ["zq", "##x0"] {
        assert!(fetched.contains(&ix.groups[ix.group_of(token)].file), "{token}: {fetched:?}");
    }
    // A word cut into a piece a character (`quux` and 12 continuations, as a pasted hash
    // is) takes two rounds of continuation groups, not one a piece.
    let long = "quuxa0b1c2d3e4f5g6h7i0j1k2l3";
    let req = SearchRequest { query: long.into(), mode: Some("hybrid".into()), ..Default::default() };
    let (_, rounds) = sift_tests::cold_search(&b, &req);
    let continuation_rounds = rounds[1..].iter().filter(|r| r.iter().any(|f| continuation_groups.contains(&f.as_str()))).count();
    assert_eq!(continuation_rounds, 2, "{rounds:?}");
    // A word the bundle has whole reads no continuation group.
    let (_, fetched) = hybrid_fetching(&b, "cache");
    assert!(!fetched.iter().any(|f| continuation_groups.contains(&f.as_str())), "{fetched:?}");
    cold_answers_as_warm(&b, &["quuxifying cache", "zqx0 cache", "quuxa0b1c2d3e4f5g6h7i0j1k2l3 cache"]);
}

/// Cold (fetching what it needs) or warm (every shard loaded), the same vector and the
/// same hybrid answer.
fn cold_answers_as_warm(b: &sift_build::BuiltBundle, queries: &[&str]) {
    let mut warm = Engine::new(&b.manifest_bytes()).unwrap();
    sift_tests::frozen::load_all(&mut warm, |f| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone());
    for &q in queries {
        let req = SearchRequest { query: q.into(), mode: Some("hybrid".into()), ..Default::default() };
        let sift_engine::Step::Done(all) = warm.search(&req, &ctx()).unwrap() else { panic!("all loaded") };
        let (cold, _) = hybrid_fetching(b, q);
        let ids = |r: &sift_engine::SearchResponse| r.results.iter().map(|h| (h.id.clone(), h.score)).collect::<Vec<_>>();
        assert_eq!(ids(&cold), ids(&all), "{q}");
    }
}

#[test]
fn a_query_that_only_excludes_asks_for_a_word_and_reads_no_document() {
    let b = built();
    for q in ["-cache", "-cache -\"connection pool\""] {
        let (r, rounds) = cold_search(&b, &SearchRequest::new(q));
        assert!(r.results.is_empty() && r.total == 0 && !r.has_more, "{q}");
        let fallback = r.fallback.expect("says why");
        assert!(fallback.reason.contains("only excludes"), "{}", fallback.reason);
        assert!(rounds.iter().flatten().all(|f| !f.starts_with("d-")), "{q}: {rounds:?}");
    }
}

#[test]
fn searches_taken_in_turns_by_one_cold_engine_each_answer_as_a_warm_engine_does() {
    // A ranked search waits on the engine for its page's documents; another search asked
    // in between must neither take its ranking nor lose its own.
    let b = semantic_built(&corpus_docs());
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let reqs: Vec<SearchRequest> = [("cache", "hybrid", false), ("quuxifying cache", "hybrid", true), ("cache", "lexical", false)]
        .into_iter()
        .map(|(q, mode, explain)| SearchRequest { query: q.into(), mode: Some(mode.into()), explain: Some(explain), ..Default::default() })
        .collect();
    let mut warm = Engine::new(&b.manifest_bytes()).unwrap();
    sift_tests::frozen::load_all(&mut warm, |f| bytes_of(f));
    let json = |r: &sift_engine::SearchResponse| sift_base::json::ToJson::to_json(r).to_text();
    let want: Vec<String> = reqs
        .iter()
        .map(|r| match warm.search(r, &ctx()).unwrap() {
            sift_engine::Step::Done(a) => json(&a),
            sift_engine::Step::Need(f) => panic!("all loaded, yet {f:?}"),
        })
        .collect();
    let mut cold = Engine::new(&b.manifest_bytes()).unwrap();
    let mut got: Vec<Option<String>> = vec![None; reqs.len()];
    for _ in 0..MAX_HOST_ROUNDS * reqs.len() {
        for (i, r) in reqs.iter().enumerate() {
            if got[i].is_some() {
                continue;
            }
            match cold.search(r, &ctx()).unwrap() {
                sift_engine::Step::Done(a) => got[i] = Some(json(&a)),
                // Only the first file: each search's rounds stay interleaved with the others'.
                sift_engine::Step::Need(f) => cold.add_shard(&f[0], &bytes_of(&f[0])).unwrap(),
            }
        }
    }
    for (i, r) in reqs.iter().enumerate() {
        assert_eq!(got[i].as_deref(), Some(want[i].as_str()), "{:?} {:?}", r.query, r.mode);
    }
}

#[test]
fn an_encoder_input_whose_chunks_do_not_match_the_chunk_vectors_is_refused() {
    let docs = corpus_docs();
    for change in [1usize, 2] {
        let mut semantic = sift_build::semantic::toy::semantic_input(&docs, 16);
        let enc = semantic.encoder.as_mut().unwrap();
        let mut chunks: Vec<Vec<u32>> = enc.chunk_tokens.iter().map(|c| c.into_owned()).collect();
        if change == 1 {
            chunks.pop(); // one chunk's tokens missing
        } else {
            chunks.push(chunks[0].clone()); // tokens of a chunk that has no vector
        }
        enc.chunk_tokens = chunks.iter().collect();
        let err = build(&docs, &BuildOptions { semantic: Some(semantic), ..options() }).err().expect("refused");
        assert_eq!(err.code, sift_base::error::ErrorCode::InvalidRequest, "{}", err.message);
        assert!(err.message.contains("chunk vectors but token ids for"), "{}", err.message);
    }
}

#[test]
fn a_semantic_child_under_another_ones_name_is_refused() {
    let b = semantic_built(&corpus_docs());
    let bytes_of = |f: &str| b.shards.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let mut e = Engine::new(&b.manifest_bytes()).unwrap();
    let index = b.manifest.vectors.as_ref().unwrap().index.file.clone();
    e.add_shard(&index, &bytes_of(&index)).unwrap();
    let ix = b.manifest.encoder.as_ref().unwrap().layout.index().unwrap();
    let of = |p: &str| -> Vec<String> { e.all_files().into_iter().filter(|f| f.starts_with(p)).collect() };
    let (lists, groups) = (of("l-"), of("c-"));
    for (first, second) in [
        (lists[0].clone(), lists[1].clone()),
        (groups[0].clone(), groups[1].clone()),
        (ix.groups[0].file.clone(), ix.groups[1].file.clone()),
        (ix.row_shards[0].file.clone(), ix.row_shards[1].file.clone()),
    ] {
        let err = e.add_shard(&first, &bytes_of(&second)).unwrap_err();
        assert_eq!(err.code, "bundle_corrupt");
        assert!(err.message.contains("served under another's name"), "{first}: {}", err.message);
        assert!(!e.is_loaded(&first));
        every_flip_is_refused(&mut e, &first, &bytes_of(&first), 3);
    }
}

#[test]
fn a_malformed_encoder_layout_is_a_clear_error() {
    let b = semantic_built(&corpus_docs());
    let m = manifest_json(&b);
    let mut no_size = m.clone();
    no_size["encoder"].as_object_mut().unwrap().remove("rows_per_shard");
    assert_eq!(refused(&no_size).code, "bundle_corrupt");
    let mut unsafe_stem = m.clone();
    unsafe_stem["encoder"]["groups"] = "g/../../x".into();
    assert!(refused(&unsafe_stem).message.contains("unsafe shard file"), "{}", refused(&unsafe_stem).message);
    let mut wrong_dim = m.clone();
    wrong_dim["encoder"]["dim"] = 17.into();
    assert!(refused(&wrong_dim).message.contains("dimensions"), "{}", refused(&wrong_dim).message);
    let mut no_groups = m.clone();
    no_groups["encoder"]["word_groups"] = 0.into();
    assert!(refused(&no_groups).message.contains("implausible"), "{}", refused(&no_groups).message);
    let mut no_continuations = m.clone();
    no_continuations["encoder"]["continuation_groups"] = 0.into();
    assert!(refused(&no_continuations).message.contains("implausible"), "{}", refused(&no_continuations).message);
    let mut unnamed_continuations = m.clone();
    unnamed_continuations["encoder"].as_object_mut().unwrap().remove("continuation_groups");
    assert!(refused(&unnamed_continuations).message.contains("continuation_groups"), "{}", refused(&unnamed_continuations).message);
    let mut no_rows = m.clone();
    no_rows["encoder"].as_object_mut().unwrap().remove("rows");
    assert!(refused(&no_rows).message.contains("\"rows\""), "{}", refused(&no_rows).message);
    assert!(Engine::new(m.to_string().as_bytes()).is_ok());
}
