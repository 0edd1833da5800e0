//! `multi_search`: up to `MAX_MULTI_QUERIES` queries (rephrasings of one question, say),
//! each searched on its own, merged by reciprocal rank fusion and de-duplicated. Each
//! result says which queries found it; the score is the fused score over the best possible.

use super::fusion::rrf;
use super::resolve::{Flow, Halt};
use super::{round4, Context, Engine, Step};
use crate::contract::{
    validate_page, MultiQuerySummary, MultiSearchRequest, MultiSearchResponse, SearchResult, MAX_LIMIT, MAX_MULTI_QUERIES,
};
use sift_base::error::{ErrorCode, SiftError};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) fn run(
    eng: &Engine,
    req: &MultiSearchRequest,
    ctx: &Context,
    query_vectors: Option<&[Option<Vec<f32>>]>,
) -> Flow<MultiSearchResponse> {
    if req.queries.is_empty() {
        return Err(SiftError::new(ErrorCode::InvalidRequest, "multi_search needs at least one query").into());
    }
    if req.queries.len() > MAX_MULTI_QUERIES {
        let msg = msg!("multi_search takes at most {} queries; got {}", MAX_MULTI_QUERIES, req.queries.len());
        return Err(SiftError::new(ErrorCode::TooManyQueries, msg).into());
    }
    let (limit, offset) = validate_page(req.limit, req.offset)?;
    // Each query contributes its top (offset + limit) candidates to the fusion; the shards
    // every query needs are asked for together.
    let depth = (offset + limit).min(MAX_LIMIT) as i64;
    let mut need = BTreeSet::new();
    let mut responses = Vec::new();
    for (qi, q) in req.queries.iter().enumerate() {
        let mut q = q.clone();
        q.limit = Some(depth);
        q.offset = None;
        let vector = query_vectors.and_then(|v| v.get(qi)).and_then(|v| v.as_deref());
        match eng.search_with(&q, ctx, vector).map_err(|e| SiftError::new(e.code, msg!("query {}: {}", qi, e.message)))? {
            Step::Need(files) => need.extend(files),
            Step::Done(r) => responses.push(r),
        }
    }
    if !need.is_empty() {
        return Err(Halt::Need(need.into_iter().collect()));
    }
    let mut fused: BTreeMap<String, (f32, SearchResult, Vec<usize>)> = BTreeMap::new();
    for (qi, resp) in responses.iter().enumerate() {
        for (rank, r) in resp.results.iter().enumerate() {
            let e = fused.entry(r.id.clone()).or_insert_with(|| (0.0, r.clone(), Vec::new()));
            e.0 += rrf(rank, &eng.params);
            e.2.push(qi);
        }
    }
    let best_possible = req.queries.len() as f32 / (eng.params.rrf_k + 1.0);
    let mut merged: Vec<(f32, SearchResult, Vec<usize>)> = fused.into_values().collect();
    merged.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
    let total = merged.len();
    let results: Vec<SearchResult> = merged
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|(s, mut r, qs)| {
            r.score = round4(s / best_possible);
            r.queries = Some(qs);
            r
        })
        .collect();
    Ok(MultiSearchResponse {
        has_more: offset + results.len() < total,
        results,
        total,
        limit,
        offset,
        queries: responses
            .iter()
            .map(|r| MultiQuerySummary { query: r.query.clone(), total: r.total, fallback: r.fallback.clone() })
            .collect(),
        search_type: merged_search_type(&responses).into(),
        timings_ms: BTreeMap::new(),
    })
}

/// What kind of search the merged list is: the same as every query's, else hybrid.
fn merged_search_type(responses: &[crate::contract::SearchResponse]) -> &'static str {
    let kinds: Vec<&str> = responses.iter().map(|r| r.search_type.as_str()).collect();
    match kinds.first() {
        Some(&"lexical") if kinds.iter().all(|k| *k == "lexical") => "lexical",
        Some(&"semantic") if kinds.iter().all(|k| *k == "semantic") => "semantic",
        None => "lexical",
        _ => "hybrid",
    }
}
