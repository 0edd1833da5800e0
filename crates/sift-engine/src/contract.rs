//! The JSON contract (the product brief's request and response shapes): requests, responses
//! and their validation. REST, MCP, wasm and the CLI's `--json` all go through these types,
//! so they cannot drift apart.

pub use sift_base::doc::Document;
use sift_base::error::Quoted;
use sift_base::error::{ErrorCode, SiftError};
use sift_base::json::{self, members, Fields, Json, Num, ToJson};
use std::collections::BTreeMap;

/// Queries longer than this are refused: a pasted paragraph or page section fits (longer
/// queries keep their most informative terms, see `MAX_CLAUSES`); a 100 KB query is an
/// accident or an attack.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;
/// Terms (bare words, phrases, OR groups) a query searches for: a longer query keeps the
/// most informative ones and says so in `fallback`.
pub const MAX_CLAUSES: usize = 64;
pub const MAX_LIMIT: usize = 50;
pub const DEFAULT_LIMIT: usize = 10;
pub const MAX_OFFSET: usize = 10_000;
pub const MAX_MULTI_QUERIES: usize = 30;
/// Rounds of the host loop (answer `need`, fetch, call again) before a host gives up. A
/// search needs at most: the plan; the encoder's vocabulary groups, its `##` group and its
/// rows; the vector lists; fuzzy matching; suggestions; the page's documents — eight.
pub const MAX_HOST_ROUNDS: usize = 16;

/// A filter value as JSON gives it: a string, a number or a boolean (matched as its text).
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Str(String),
    Num(Num),
    Bool(bool),
}

#[derive(Debug, Clone, PartialEq)]
pub enum FilterValue {
    One(Scalar),
    Many(Vec<Scalar>),
}

impl Scalar {
    pub fn as_string(&self) -> String {
        match self {
            Scalar::Str(s) => s.clone(),
            Scalar::Num(n) => n.text(),
            Scalar::Bool(b) => b.to_string(),
        }
    }

    fn from_json(v: &Json, field: &str) -> Result<Scalar, String> {
        match v {
            Json::Str(s) => Ok(Scalar::Str(s.clone())),
            Json::Num(n) => Ok(Scalar::Num(n.clone())),
            Json::Bool(b) => Ok(Scalar::Bool(*b)),
            _ => Err(msg!("filter {}: a value must be a string, a number or a boolean, not {}", Quoted(field), v.kind())),
        }
    }
}

impl ToJson for Scalar {
    fn to_json(&self) -> Json {
        match self {
            Scalar::Str(s) => Json::from(s),
            Scalar::Num(n) => Json::Num(n.clone()),
            Scalar::Bool(b) => Json::Bool(*b),
        }
    }
}

impl FilterValue {
    pub fn values(&self) -> Vec<String> {
        match self {
            FilterValue::One(s) => vec![s.as_string()],
            FilterValue::Many(v) => v.iter().map(Scalar::as_string).collect(),
        }
    }

    fn from_json(v: &Json, field: &str) -> Result<FilterValue, String> {
        match v {
            Json::Arr(items) => Ok(FilterValue::Many(items.iter().map(|x| Scalar::from_json(x, field)).collect::<Result<_, _>>()?)),
            _ => Ok(FilterValue::One(Scalar::from_json(v, field)?)),
        }
    }
}

impl ToJson for FilterValue {
    fn to_json(&self) -> Json {
        match self {
            FilterValue::One(s) => s.to_json(),
            FilterValue::Many(v) => v.to_json(),
        }
    }
}

/// A search request as JSON gives it. Unknown fields are refused: a misspelt `limt` should
/// be an error, not silently ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchRequest {
    pub query: String,
    pub mode: Option<String>,
    pub filters: BTreeMap<String, FilterValue>,
    pub since: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    pub sort: Option<String>,
    pub boost_recent: Option<bool>,
    pub include_content: Option<bool>,
    pub explain: Option<bool>,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> Self {
        SearchRequest { query: query.into(), ..Default::default() }
    }

    /// Decode a JSON request body; malformed JSON and unknown fields are clear errors.
    pub fn from_json(body: &[u8]) -> Result<SearchRequest, SiftError> {
        json::parse(body)
            .map_err(String::from)
            .and_then(|v| SearchRequest::from_value(&v, "search request"))
            .map_err(|e| SiftError::new(ErrorCode::InvalidJson, msg!("request body is not a valid search request: {}", e)))
    }

    const FIELDS: [&'static str; 10] =
        ["query", "mode", "filters", "since", "limit", "offset", "sort", "boost_recent", "include_content", "explain"];

    fn from_value(v: &Json, what: &str) -> Result<SearchRequest, String> {
        let f = Fields::of(v, what, Some(&Self::FIELDS))?;
        let filters = match f.get("filters") {
            None => BTreeMap::new(),
            Some(m) => match m {
                // A field named twice: the last value counts (a map, as JSON objects are).
                Json::Obj(members) => {
                    // Inserted, not collected (collect::facets says why).
                    let mut out = BTreeMap::new();
                    for (k, v) in members {
                        out.insert(k.clone(), FilterValue::from_json(v, k)?);
                    }
                    out
                }
                _ => return Err(msg!("{}: field \"filters\" must be an object, not {}", what, m.kind())),
            },
        };
        Ok(SearchRequest {
            query: f.str("query")?,
            mode: f.opt_str("mode")?,
            filters,
            since: f.opt_str("since")?,
            limit: f.opt_i64("limit")?,
            offset: f.opt_i64("offset")?,
            sort: f.opt_str("sort")?,
            boost_recent: f.opt_bool("boost_recent")?,
            include_content: f.opt_bool("include_content")?,
            explain: f.opt_bool("explain")?,
        })
    }
}

impl ToJson for SearchRequest {
    fn to_json(&self) -> Json {
        let filters = Json::Obj(self.filters.iter().map(|(k, v)| (k.clone(), v.to_json())).collect());
        members(vec![
            ("query", Json::from(&self.query), true),
            ("mode", Json::from(self.mode.clone()), self.mode.is_some()),
            ("filters", filters, !self.filters.is_empty()),
            ("since", Json::from(self.since.clone()), self.since.is_some()),
            ("limit", Json::from(self.limit), self.limit.is_some()),
            ("offset", Json::from(self.offset), self.offset.is_some()),
            ("sort", Json::from(self.sort.clone()), self.sort.is_some()),
            ("boost_recent", Json::from(self.boost_recent), self.boost_recent.is_some()),
            ("include_content", Json::from(self.include_content), self.include_content.is_some()),
            ("explain", Json::from(self.explain), self.explain.is_some()),
        ])
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct MultiSearchRequest {
    pub queries: Vec<SearchRequest>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

impl MultiSearchRequest {
    pub fn from_json(body: &[u8]) -> Result<MultiSearchRequest, SiftError> {
        json::parse(body)
            .and_then(|v| {
                let f = Fields::of(&v, "multi_search request", Some(&["queries", "limit", "offset"]))?;
                f.need("queries")?;
                Ok(MultiSearchRequest {
                    queries: f.list("queries", |q| SearchRequest::from_value(q, "a query of queries"))?,
                    limit: f.opt_i64("limit")?,
                    offset: f.opt_i64("offset")?,
                })
            })
            .map_err(|e| SiftError::new(ErrorCode::InvalidJson, msg!("request body is not a valid multi_search request: {}", e)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Auto,
    Lexical,
    Semantic,
    Hybrid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Relevance,
    Date,
}

/// A request that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidRequest {
    /// The query with leading whitespace removed; trailing whitespace is kept because it
    /// says the last word is finished.
    pub query: String,
    pub mode: Mode,
    pub filters: Vec<(String, Vec<String>)>,
    pub since_days: Option<i64>,
    pub limit: usize,
    pub offset: usize,
    pub sort: Sort,
    pub boost_recent: bool,
    pub include_content: bool,
    pub explain: bool,
}

pub fn validate_page(limit: Option<i64>, offset: Option<i64>) -> Result<(usize, usize), SiftError> {
    let limit = match limit {
        None => DEFAULT_LIMIT,
        Some(l) if (1..=MAX_LIMIT as i64).contains(&l) => l as usize,
        Some(l) => return Err(SiftError::new(ErrorCode::InvalidLimit, msg!("limit must be between 1 and {}; got {}", MAX_LIMIT, l))),
    };
    let offset = match offset {
        None => 0,
        Some(o) if (0..=MAX_OFFSET as i64).contains(&o) => o as usize,
        Some(o) => return Err(SiftError::new(ErrorCode::InvalidOffset, msg!("offset must be between 0 and {}; got {}", MAX_OFFSET, o))),
    };
    Ok((limit, offset))
}

impl SearchRequest {
    /// Check every field against the bundle (`filter_fields`) and the clock (`now_days`).
    pub fn validate(&self, filter_fields: &[String], now_days: i64) -> Result<ValidRequest, SiftError> {
        if self.query.len() > MAX_QUERY_BYTES {
            return Err(SiftError::new(
                ErrorCode::QueryTooLong,
                msg!("query is {} bytes; the maximum is {}", self.query.len(), MAX_QUERY_BYTES),
            ));
        }
        // Leading space is noise; trailing space matters (a finished word is not a prefix).
        let query = self.query.trim_start();
        if query.is_empty() {
            return Err(SiftError::new(ErrorCode::EmptyQuery, "query is empty; type some words to search for"));
        }
        let mode = match self.mode.as_deref().unwrap_or("auto") {
            "auto" => Mode::Auto,
            "lexical" => Mode::Lexical,
            "semantic" => Mode::Semantic,
            "hybrid" => Mode::Hybrid,
            m => {
                return Err(SiftError::new(
                    ErrorCode::InvalidMode,
                    msg!("mode must be auto, lexical, semantic or hybrid; got {}", Quoted(m)),
                ))
            }
        };
        let sort = match self.sort.as_deref().unwrap_or("relevance") {
            "relevance" => Sort::Relevance,
            "date" if cfg!(feature = "dates") => Sort::Date,
            "date" => return Err(SiftError::full_runtime_required("sort by date")),
            s => return Err(SiftError::new(ErrorCode::InvalidSort, msg!("sort must be relevance or date; got {}", Quoted(s)))),
        };
        let (limit, offset) = validate_page(self.limit, self.offset)?;
        let mut filters = Vec::new();
        for (field, value) in &self.filters {
            if !filter_fields.iter().any(|f| f == field) {
                let known = if filter_fields.is_empty() {
                    msg!("this bundle has no filterable fields")
                } else {
                    msg!("filterable fields are: {}", filter_fields.join(", "))
                };
                return Err(SiftError::new(ErrorCode::UnknownFilter, msg!("unknown filter field {}; {}", Quoted(field), known)));
            }
            let values = value.values();
            if values.is_empty() {
                return Err(SiftError::new(ErrorCode::InvalidFilter, msg!("filter {} has an empty list of values", Quoted(field))));
            }
            filters.push((field.clone(), values));
        }
        let since_days = match &self.since {
            None => None,
            #[cfg(feature = "dates")]
            Some(s) => Some(sift_base::date::parse_since(s, now_days)?),
            #[cfg(not(feature = "dates"))]
            Some(_) => return Err(SiftError::full_runtime_required("since")),
        };
        #[cfg(not(feature = "dates"))]
        let _ = now_days; // (only `since` reads the clock)
                          // The other options a browser engine leaves out (the `explain`, `whole-pages` and
                          // `dates` features), refused before anything is read.
        let boost_recent = self.boost_recent.unwrap_or(false);
        let include_content = self.include_content.unwrap_or(false);
        let explain = self.explain.unwrap_or(false);
        if boost_recent && !cfg!(feature = "dates") {
            return Err(SiftError::full_runtime_required("boost_recent"));
        }
        if include_content && !cfg!(feature = "whole-pages") {
            return Err(SiftError::full_runtime_required("include_content"));
        }
        if explain && !cfg!(feature = "explain") {
            return Err(SiftError::full_runtime_required("explain"));
        }
        Ok(ValidRequest {
            query: query.to_string(),
            mode,
            filters,
            since_days,
            limit,
            offset,
            sort,
            boost_recent,
            include_content,
            explain,
        })
    }
}

/// The API entry a result defines, for an identifier query: its full path, its kind as the
/// generator names it, and the link to the entry (`os.html#os.getcwd`).
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    pub path: String,
    pub kind: String,
    pub url: String,
}

impl ToJson for Definition {
    fn to_json(&self) -> Json {
        Json::obj([("path", Json::from(&self.path)), ("kind", Json::from(&self.kind)), ("url", Json::from(&self.url))])
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SubResult {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

/// One result. `title` and `snippet` are HTML-safe (escaped; matches wrapped in `<mark>`);
/// every other string is plain text that a client must escape itself.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    pub id: String,
    pub url: String,
    pub title: String,
    pub doc_type: Option<String>,
    pub snippet: String,
    pub score: f32,
    pub sub_results: Vec<SubResult>,
    /// The entry the result defines, when the query names one (its sub-result comes first).
    pub definition: Option<Definition>,
    pub metadata: BTreeMap<String, Vec<String>>,
    pub date: Option<String>,
    pub content: Option<String>,
    pub explain: Option<Json>,
    /// multi_search: indexes of the queries that found this document.
    pub queries: Option<Vec<usize>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fallback {
    pub from: String,
    pub to: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchResponse {
    pub results: Vec<SearchResult>,
    pub total: usize,
    pub limit: usize,
    pub offset: usize,
    pub has_more: bool,
    pub query: String,
    pub search_type: String,
    pub fallback: Option<Fallback>,
    pub suggestions: Vec<String>,
    /// field → value → number of matching documents.
    pub facets: BTreeMap<String, BTreeMap<String, usize>>,
    /// Filled by the host (the core has no clock).
    pub timings_ms: BTreeMap<String, f64>,
}

/// Per-query summary inside a multi_search response.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiQuerySummary {
    pub query: String,
    pub total: usize,
    pub fallback: Option<Fallback>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultiSearchResponse {
    pub results: Vec<SearchResult>,
    pub total: usize,
    pub limit: usize,
    pub offset: usize,
    pub has_more: bool,
    pub queries: Vec<MultiQuerySummary>,
    pub search_type: String,
    pub timings_ms: BTreeMap<String, f64>,
}

impl ToJson for SubResult {
    fn to_json(&self) -> Json {
        Json::obj([("title", Json::from(&self.title)), ("url", Json::from(&self.url)), ("snippet", Json::from(&self.snippet))])
    }
}

impl ToJson for SearchResult {
    fn to_json(&self) -> Json {
        // Only an engine built with `explain` sets it (said here so the Json tree's clone
        // stays out of the browser engines).
        let explain = self.explain.as_ref().filter(|_| cfg!(feature = "explain"));
        members(vec![
            ("id", Json::from(&self.id), true),
            ("url", Json::from(&self.url), true),
            ("title", Json::from(&self.title), true),
            ("type", Json::from(self.doc_type.clone()), self.doc_type.is_some()),
            ("snippet", Json::from(&self.snippet), true),
            ("score", Json::from(self.score), true),
            ("sub_results", self.sub_results.to_json(), !self.sub_results.is_empty()),
            ("definition", self.definition.as_ref().map_or(Json::Null, ToJson::to_json), self.definition.is_some()),
            ("metadata", Json::from(&self.metadata), !self.metadata.is_empty()),
            ("date", Json::from(self.date.clone()), self.date.is_some()),
            ("content", Json::from(self.content.clone()), self.content.is_some()),
            ("explain", explain.cloned().unwrap_or(Json::Null), explain.is_some()),
            ("queries", Json::from(self.queries.clone()), self.queries.is_some()),
        ])
    }
}

impl ToJson for Fallback {
    fn to_json(&self) -> Json {
        Json::obj([("from", Json::from(&self.from)), ("to", Json::from(&self.to)), ("reason", Json::from(&self.reason))])
    }
}

impl ToJson for SearchResponse {
    fn to_json(&self) -> Json {
        let facets = Json::Obj(self.facets.iter().map(|(k, v)| (k.clone(), Json::from(v))).collect());
        members(vec![
            ("results", self.results.to_json(), true),
            ("total", Json::from(self.total), true),
            ("limit", Json::from(self.limit), true),
            ("offset", Json::from(self.offset), true),
            ("has_more", Json::from(self.has_more), true),
            ("query", Json::from(&self.query), true),
            ("search_type", Json::from(&self.search_type), true),
            ("fallback", self.fallback.to_json(), self.fallback.is_some()),
            ("suggestions", Json::from(&self.suggestions[..]), !self.suggestions.is_empty()),
            ("facets", facets, !self.facets.is_empty()),
            ("timings_ms", Json::from(&self.timings_ms), !self.timings_ms.is_empty()),
        ])
    }
}

impl ToJson for MultiQuerySummary {
    fn to_json(&self) -> Json {
        members(vec![
            ("query", Json::from(&self.query), true),
            ("total", Json::from(self.total), true),
            ("fallback", self.fallback.to_json(), self.fallback.is_some()),
        ])
    }
}

impl ToJson for MultiSearchResponse {
    fn to_json(&self) -> Json {
        members(vec![
            ("results", self.results.to_json(), true),
            ("total", Json::from(self.total), true),
            ("limit", Json::from(self.limit), true),
            ("offset", Json::from(self.offset), true),
            ("has_more", Json::from(self.has_more), true),
            ("queries", self.queries.to_json(), true),
            ("search_type", Json::from(&self.search_type), true),
            ("timings_ms", Json::from(&self.timings_ms), !self.timings_ms.is_empty()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(json: &str) -> Result<ValidRequest, SiftError> {
        SearchRequest::from_json(json.as_bytes())?.validate(&["type".into(), "tags".into()], 20_000)
    }

    #[test]
    fn defaults_and_ranges() {
        let r = v(r#"{"query":"hello"}"#).unwrap();
        assert_eq!((r.limit, r.offset, r.mode, r.sort), (10, 0, Mode::Auto, Sort::Relevance));
        assert_eq!(v(r#"{"query":"x","limit":0}"#).unwrap_err().code, "invalid_limit");
        assert_eq!(v(r#"{"query":"x","limit":500}"#).unwrap_err().code, "invalid_limit");
        assert_eq!(v(r#"{"query":"x","limit":50}"#).unwrap().limit, 50);
        assert_eq!(v(r#"{"query":"x","offset":-1}"#).unwrap_err().code, "invalid_offset");
    }

    #[test]
    fn bad_requests_have_clear_codes() {
        assert_eq!(v(r#"{"query":"   "}"#).unwrap_err().code, "empty_query");
        assert_eq!(v(r#"{"query":"x","filters":{"colour":"red"}}"#).unwrap_err().code, "unknown_filter");
        assert_eq!(v(r#"{"query":"x","mode":"magic"}"#).unwrap_err().code, "invalid_mode");
        // (A browser engine built without the date options hands `since` on unread.)
        let since = if cfg!(feature = "dates") { "invalid_since" } else { "full_runtime_required" };
        assert_eq!(v(r#"{"query":"x","since":"soon"}"#).unwrap_err().code, since);
        assert_eq!(v(r#"{"query":"x","limt":3}"#).unwrap_err().code, "invalid_json");
        assert_eq!(v(r#"{"query":"x""#).unwrap_err().code, "invalid_json");
        assert_eq!(v("[]").unwrap_err().code, "invalid_json");
        let long = format!(r#"{{"query":"{}"}}"#, "a".repeat(100 * 1024));
        assert_eq!(v(&long).unwrap_err().code, "query_too_long");
    }

    #[test]
    fn filter_values_one_or_many_scalars() {
        let r = v(r#"{"query":"x","filters":{"type":"guide","tags":["a",2,true]}}"#).unwrap();
        assert_eq!(r.filters[0], ("tags".to_string(), vec!["a".into(), "2".into(), "true".into()]));
        assert_eq!(r.filters[1], ("type".to_string(), vec!["guide".into()]));
        assert_eq!(v(r#"{"query":"x","filters":{"type":[]}}"#).unwrap_err().code, "invalid_filter");
    }
}
