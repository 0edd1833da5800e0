//! Reading documents by id: `get_document` (the page as the contract shows it) and
//! `related` (pages like it). The id index says which doc-store shard holds a page, so a
//! lookup reads one id shard and one doc shard.

use super::resolve::{Flow, Halt, Resolver};
use super::shards::key_range_shard;
use super::{search, Context, Engine};
use crate::contract::{validate_page, Document, SearchRequest, SearchResponse, MAX_QUERY_BYTES};
use sift_base::error::Quoted;
use sift_base::error::{ErrorCode, SiftError};
use sift_format::docstore::StoredDoc;
use sift_text::analyzer;
use std::borrow::Cow;

/// Title and heading words `related` searches with, at most.
const RELATED_KEYWORDS: usize = 24;
/// Opening words of a page that `related` embeds with its title and headings.
const RELATED_LEAD_WORDS: usize = 120;

/// A stored document (all of it) and its number, or None for an unknown id.
fn locate<'a>(res: &Resolver<'a>, id: &str) -> Flow<Option<(u32, Cow<'a, StoredDoc>)>> {
    let Some(doc) = doc_number(res, id)? else { return Ok(None) };
    let sd = res.whole(doc)?;
    if sd.id != id {
        return Err(Halt::Fail(SiftError::corrupt(msg!("the id index sends {} to a document with another id", Quoted(id)))));
    }
    Ok(Some((doc, sd)))
}

/// The number of the document with this id (None: no such id, or removed): a delta's
/// page before the base's (an edited page is in both, its old version removed).
pub(crate) fn doc_number(res: &Resolver, id: &str) -> Flow<Option<u32>> {
    let eng = res.eng;
    if let Some((delta, first_doc)) = eng.delta.as_ref().and_then(|d| Some((d.engine.as_ref()?, d.first_doc))) {
        if let Some(doc) = eng.through_delta(doc_number(&Resolver::new(delta), id))? {
            return Ok(Some(doc + first_doc));
        }
    }
    let Some(i) = key_range_shard(&eng.manifest.id_shards, id) else { return Ok(None) };
    Ok(res.id_shard(i)?.get(id).filter(|doc| eng.removed().binary_search(doc).is_err()))
}

/// What a page is about, as text to embed: its title, headings and opening words.
fn page_meaning(sd: &StoredDoc) -> String {
    let mut s = sd.title.clone();
    for sec in &sd.sections {
        if !sec.heading.is_empty() {
            s.push_str(". ");
            s.push_str(&sec.heading);
        }
    }
    let lead: Vec<&str> = sd.sections.iter().flat_map(|sec| sec.text.split_whitespace()).take(RELATED_LEAD_WORDS).collect();
    s.push_str(". ");
    s.push_str(&lead.join(" "));
    s
}

pub(crate) fn get_document(eng: &Engine, id: &str) -> Flow<Option<Document>> {
    let res = Resolver::new(eng);
    Ok(locate(&res, id)?.map(|(_, sd)| sd.to_document()))
}

pub(crate) fn related(eng: &Engine, id: &str, limit: Option<i64>, ctx: &Context) -> Flow<SearchResponse> {
    let (limit, _) = validate_page(limit, None)?;
    if id.is_empty() || id.len() > MAX_QUERY_BYTES {
        return Err(SiftError::invalid(msg!("related needs a document id (1 to {} bytes)", MAX_QUERY_BYTES)).into());
    }
    let res = Resolver::new(eng);
    let Some((doc, stored)) = locate(&res, id)? else {
        return Err(SiftError::new(ErrorCode::NotFound, msg!("no document with id {} in this bundle", Quoted(id))).into());
    };
    // Keywords: the title's and headings' words, stop words out, each once.
    let mut words: Vec<String> = Vec::new();
    res.require(eng.fold_table_for_pages(eng.doc_parts(doc).map(|si| (doc, si))))?;
    let text = std::iter::once(stored.title.as_str()).chain(stored.sections.iter().map(|s| s.heading.as_str()));
    for t in text {
        for w in t.split(|c: char| !sift_text::charclass::is_alphanumeric(c)).filter(|w| w.chars().count() > 1) {
            let f = analyzer::fold(w);
            if !eng.analyzer.is_stopword(&f) && !words.contains(&f) && words.len() < RELATED_KEYWORDS {
                words.push(f);
            }
        }
    }
    // Meaning: with a query encoder, the page's title, headings and opening words embedded
    // like a query.
    let meaning = eng.has_query_encoder().then(|| page_meaning(&stored));
    let by_meaning = meaning.is_some();
    if words.is_empty() && !by_meaning {
        return Ok(SearchResponse { query: String::new(), limit, ..Default::default() });
    }
    let mut req = SearchRequest::new(words.join(" OR "));
    req.limit = Some(limit as i64 + 1);
    req.mode = Some(if by_meaning { "hybrid" } else { "lexical" }.into());
    let valid = req.validate(&eng.manifest.filter_fields, ctx.now_days)?;
    let mut resp = search::run(eng, &valid, None, meaning.as_deref())?;
    let before = resp.results.len();
    resp.results.retain(|r| r.id != stored.id);
    if resp.results.len() < before {
        resp.total = resp.total.saturating_sub(1);
    }
    resp.results.truncate(limit);
    resp.has_more = resp.total > resp.results.len();
    resp.query = stored.title.clone();
    resp.limit = limit;
    resp.fallback = None;
    resp.suggestions = Vec::new();
    Ok(resp)
}
