//! `related`: pages like a given page, never the page itself; clear errors for bad ids.

use sift_engine::{Engine, SearchResponse, SiftError, Step};
use sift_tests::*;

fn related(e: &Engine, id: &str, limit: Option<i64>) -> Result<SearchResponse, SiftError> {
    match e.related(id, limit, &ctx())? {
        Step::Done(r) => Ok(r),
        Step::Need(f) => panic!("all shards loaded, asked for {f:?}"),
    }
}

#[test]
fn related_pages_share_words_with_the_page_and_exclude_it() {
    let e = corpus_engine();
    let found = search(&e, "cache");
    let id = ids(&found).first().expect("the corpus has a caching page").to_string();
    let r = related(&e, &id, Some(5)).unwrap();
    assert!(!ids(&r).contains(&id.as_str()), "{id} is not related to itself: {:?}", ids(&r));
    assert!(r.results.len() <= 5);
    assert_eq!(r.limit, 5);
    assert!(r.results.iter().all(|x| x.score >= 0.0 && x.score <= 1.0));
}

#[test]
fn related_to_an_unknown_or_empty_id_is_a_clear_error() {
    let e = corpus_engine();
    let err = related(&e, "no/such/page.md", None).unwrap_err();
    assert_eq!(err.code, "not_found", "{err}");
    assert!(err.message.contains("no/such/page.md"));
    assert_eq!(related(&e, "", None).unwrap_err().code, "invalid_request");
    let id = search(&e, "cache").results[0].id.clone();
    assert_eq!(related(&e, &id, Some(0)).unwrap_err().code, "invalid_limit");
    assert_eq!(related(&e, &id, Some(500)).unwrap_err().code, "invalid_limit");
}

#[test]
fn related_asks_for_the_doc_shards_it_lacks() {
    let docs = corpus_docs();
    let built = sift_build::build(&docs, &Default::default()).unwrap();
    let mut e = Engine::new(&built.manifest_bytes()).unwrap();
    let id = docs[0].id.clone();
    let mut rounds = 0;
    let r = loop {
        rounds += 1;
        assert!(rounds < 8, "the engine keeps asking");
        match e.related(&id, None, &ctx()).unwrap() {
            Step::Done(r) => break r,
            Step::Need(files) => {
                for f in files {
                    let bytes = &built.shards.iter().find(|(n, _)| *n == f).unwrap().1;
                    e.add_shard(&f, bytes).unwrap();
                }
            }
        }
    };
    assert!(!ids(&r).contains(&id.as_str()));
}
