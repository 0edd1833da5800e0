//! The search engine over a bundle. Pure: the host hands it shard bytes; when a query needs
//! a shard it does not have, `search` answers `Step::Need(files)` and the host calls again
//! after `add_shard`. The native CLI and the wasm runtime run the same loop.

use crate::bundle::{self, Manifest, ShardKind};
use crate::contract::*;
use crate::doc::StoredDoc;
use crate::error::SiftError;
use crate::query::{self, Item};
use crate::rank::{self, NormTable, N_FIELDS};
use crate::shards::{decode_docs, DocMeta, FilterIndex, PostingList, TermShard};
use crate::vectors::VectorSet;
use crate::{analyzer, fuzzy, snippet};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

/// Either the answer, or the shard files the engine needs before it can answer.
#[derive(Debug)]
pub enum Step<T> {
    Done(T),
    Need(Vec<String>),
}

/// Host-supplied context: the engine has no clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    pub now_days: i64,
}

// Weights of the alternative ways a clause can match, relative to the exact term.
const W_EXACT: f32 = 1.0;
const W_COMPOUND: f32 = 0.95;
const W_PREFIX: f32 = 0.85;
const W_FUZZY1: f32 = 0.7;
const W_FUZZY2: f32 = 0.5;
/// Weight of the proximity bonus for two query words found side by side, relative to the
/// pair's idf.
const W_PROXIMITY: f32 = 0.5;
const MAX_PREFIX_EXPANSIONS: usize = 40;
const MAX_FUZZY_EXPANSIONS: usize = 8;
const SNIPPET_WORDS: usize = 28;
const MAX_SUB_RESULTS: usize = 3;
/// Reciprocal rank fusion constant (Cormack et al. 2009).
pub const RRF_K: f32 = 60.0;
/// Documents taken from the semantic side for fusion.
const SEMANTIC_DEPTH: usize = 100;
/// Cosine below which a document is not an answer when keywords found nothing (MiniLM
/// gives unrelated text 0.0–0.15; the seed corpus's paraphrases score 0.28–0.33).
const SEMANTIC_FALLBACK_MIN: f32 = 0.2;
/// `mode: hybrid`: (lexical, semantic) weights of the score fusion. Cosines of relevant and
/// irrelevant chunks differ by less than normalised BM25F scores do, so the semantic side
/// needs the larger weight to count equally (Cranfield nDCG@10: 0.5/0.5 0.411, 0.3/0.7 0.423).
pub const HYBRID_WEIGHTS: (f32, f32) = (0.3, 0.7);

/// Weights for queries that name something exactly: identifiers, acronyms, code, quoted
/// text, a single word. Both `hybrid` and `auto` use them, so an exact match stays first.
pub const EXACT_WEIGHTS: (f32, f32) = (0.8, 0.2);

fn code_like(w: &str) -> bool {
    let core = w.trim_matches(|c: char| !c.is_alphanumeric());
    // Letters and digits together (`utf8`, `h2o`), not a plain number ("mach 2").
    (core.chars().any(|c| c.is_ascii_digit()) && core.chars().any(char::is_alphabetic))
        || ["_", "::", "()", "->", "/", "#"].iter().any(|p| w.contains(p))
        || (core.contains('.') && !core.ends_with('.'))
        || core.chars().skip(1).any(char::is_uppercase) && core.chars().any(char::is_lowercase)
        || (core.len() >= 2 && core.chars().all(|c| c.is_ascii_uppercase()))
}

fn content_words(query: &str) -> usize {
    query.split_whitespace().filter(|w| !analyzer::is_stopword(&analyzer::fold(w.trim_matches(|c: char| !c.is_alphanumeric())))).count()
}

/// Quoted text, a single word, or a short query with an identifier in it.
pub fn exact_shaped(query: &str) -> bool {
    let content = content_words(query);
    query.contains('"') || content <= 1 || (content <= 4 && query.split_whitespace().any(code_like))
}

/// `mode: auto`: weights from the query's shape. Identifiers, acronyms, code and quoted text
/// want exact matches; questions and long natural-language queries want meaning; one or two
/// plain keywords lean lexical.
pub fn auto_weights(query: &str) -> (f32, f32) {
    if exact_shaped(query) {
        return EXACT_WEIGHTS;
    }
    let content = content_words(query);
    let first = query.split_whitespace().next().map(str::to_lowercase).unwrap_or_default();
    let question = query.trim_end().ends_with('?')
        || ["what", "how", "why", "when", "where", "which", "who", "can", "does", "do", "is", "are", "should", "could"]
            .contains(&first.as_str());
    match (question, content) {
        // Natural language (an identifier in a long question is one clue among many).
        (_, c) if c >= 4 => HYBRID_WEIGHTS,
        (true, 3) => HYBRID_WEIGHTS,
        (true, _) => (0.5, 0.5),
        (false, 2) => (0.7, 0.3),
        _ => (0.5, 0.5),
    }
}

/// Convex combination of the lexical score (divided by the list's best, so the best lexical
/// match counts fully) and the raw cosine; a document missing from a list scores 0 there.
/// The result stays in 0..1.
fn fuse(lexical: &[Hit], semantic: &[Hit], w_lex: f32, w_sem: f32) -> Vec<Hit> {
    // Per-query min-max normalisation did worse on Cranfield (0.418 vs 0.423): the cosine's
    // own 0..1 scale carries information that min-max throws away (Bruch et al. 2022).
    let lmax = lexical.iter().map(|h| h.score).fold(1e-6f32, f32::max);
    let l: HashMap<u32, f32> = lexical.iter().map(|h| (h.doc, h.score / lmax)).collect();
    let s: HashMap<u32, f32> = semantic.iter().map(|h| (h.doc, h.score)).collect();
    let mut docs: Vec<u32> = l.keys().chain(s.keys()).copied().collect();
    docs.sort_unstable();
    docs.dedup();
    let mut out: Vec<Hit> = docs
        .into_iter()
        .map(|doc| Hit { doc, score: w_lex * l.get(&doc).copied().unwrap_or(0.0) + w_sem * s.get(&doc).copied().unwrap_or(0.0) })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    out
}

pub struct Engine {
    manifest: Manifest,
    norms: NormTable,
    docmeta: Option<DocMeta>,
    filters: Option<FilterIndex>,
    term_shards: Vec<Option<TermShard>>,
    doc_shards: Vec<Option<Rc<Vec<StoredDoc>>>>,
    vector_shards: Vec<Option<VectorSet>>,
    by_file: HashMap<String, (ShardKind, usize)>,
}

impl Engine {
    pub fn new(manifest_bytes: &[u8]) -> Result<Engine, SiftError> {
        let manifest = Manifest::parse(manifest_bytes)?;
        let norms = NormTable::new(&manifest.params, &manifest.avg_field_len);
        let mut by_file = HashMap::new();
        by_file.insert(manifest.docmeta.file.clone(), (ShardKind::DocMeta, 0));
        by_file.insert(manifest.filters.file.clone(), (ShardKind::Filters, 0));
        for (i, t) in manifest.term_shards.iter().enumerate() {
            by_file.insert(t.shard.file.clone(), (ShardKind::Terms, i));
        }
        for (i, d) in manifest.doc_shards.iter().enumerate() {
            by_file.insert(d.shard.file.clone(), (ShardKind::Docs, i));
        }
        let n_vec = manifest.vectors.as_ref().map_or(0, |v| v.shards.len());
        for (i, v) in manifest.vectors.iter().flat_map(|v| v.shards.iter()).enumerate() {
            by_file.insert(v.file.clone(), (ShardKind::Vectors, i));
        }
        Ok(Engine {
            term_shards: (0..manifest.term_shards.len()).map(|_| None).collect(),
            doc_shards: (0..manifest.doc_shards.len()).map(|_| None).collect(),
            vector_shards: (0..n_vec).map(|_| None).collect(),
            manifest,
            norms,
            docmeta: None,
            filters: None,
            by_file,
        })
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Every shard file of the bundle (for hosts that load everything up front).
    pub fn all_files(&self) -> Vec<String> {
        self.manifest.all_shards().map(|s| s.file.clone()).collect()
    }

    pub fn is_loaded(&self, file: &str) -> bool {
        match self.by_file.get(file) {
            Some((ShardKind::DocMeta, _)) => self.docmeta.is_some(),
            Some((ShardKind::Filters, _)) => self.filters.is_some(),
            Some((ShardKind::Terms, i)) => self.term_shards[*i].is_some(),
            Some((ShardKind::Docs, i)) => self.doc_shards[*i].is_some(),
            Some((ShardKind::Vectors, i)) => self.vector_shards[*i].is_some(),
            _ => false,
        }
    }

    /// Verify and decode a shard file. A bad shard is refused and not kept.
    pub fn add_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), SiftError> {
        let &(kind, i) = self.by_file.get(file).ok_or_else(|| SiftError::corrupt(format!("{file} is not a shard of this bundle")))?;
        let n = self.manifest.doc_count;
        match kind {
            ShardKind::DocMeta => {
                let p = bundle::decode_shard(bytes, kind, &self.manifest.docmeta)?;
                self.docmeta = Some(DocMeta::decode(&p, n)?);
            }
            ShardKind::Filters => {
                let p = bundle::decode_shard(bytes, kind, &self.manifest.filters)?;
                self.filters = Some(FilterIndex::decode(&p, n)?);
            }
            ShardKind::Terms => {
                let p = bundle::decode_shard(bytes, kind, &self.manifest.term_shards[i].shard)?;
                self.term_shards[i] = Some(TermShard::decode(p)?);
            }
            ShardKind::Docs => {
                let r = &self.manifest.doc_shards[i];
                let p = bundle::decode_shard(bytes, kind, &r.shard)?;
                self.doc_shards[i] = Some(Rc::new(decode_docs(&p, r.docs)?));
            }
            ShardKind::Vectors => {
                let v = self.manifest.vectors.as_ref().ok_or_else(|| SiftError::corrupt("vector shard in a bundle without vectors"))?;
                let p = bundle::decode_shard(bytes, kind, &v.shards[i])?;
                let set = VectorSet::decode(&p, n)?;
                if set.dim != v.dim as usize {
                    return Err(SiftError::corrupt(format!("vector shard {file} has {} dimensions, the manifest says {}", set.dim, v.dim)));
                }
                self.vector_shards[i] = Some(set);
            }
        }
        Ok(())
    }

    /// A request as JSON in, the response (or error object) as JSON out — what every surface
    /// calls.
    pub fn search_json(&self, body: &[u8], ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        let req = SearchRequest::from_json(body)?;
        self.search(&req, ctx)
    }

    /// Whether the bundle has vectors (semantic and hybrid search are possible).
    pub fn has_vectors(&self) -> bool {
        self.manifest.vectors.is_some()
    }

    /// Whether answering `req` uses the query's embedding: the host embeds the query only
    /// then (and passes it to `search_with`).
    pub fn wants_query_vector(&self, req: &SearchRequest) -> bool {
        self.has_vectors() && req.mode.as_deref() != Some("lexical")
    }

    pub fn search(&self, req: &SearchRequest, ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        self.search_with(req, ctx, None)
    }

    /// Search with the query's embedding (made by the bundle's model, L2-normalised) for
    /// semantic, hybrid and auto modes.
    pub fn search_with(&self, req: &SearchRequest, ctx: &Context, query_vector: Option<&[f32]>) -> Result<Step<SearchResponse>, SiftError> {
        let valid = req.validate(&self.manifest.filter_fields, ctx.now_days)?;
        let (meta, filt) = match (&self.docmeta, &self.filters) {
            (Some(m), Some(f)) => (m, f),
            _ => return Ok(Step::Need(vec![self.manifest.docmeta.file.clone(), self.manifest.filters.file.clone()])),
        };
        let run = Run { eng: self, meta, filt, missing: RefCell::new(BTreeSet::new()), cache: RefCell::new(HashMap::new()) };
        run.search(&valid, query_vector)
    }

    /// Several queries at once, merged by reciprocal rank fusion and de-duplicated.
    pub fn multi_search(&self, req: &MultiSearchRequest, ctx: &Context) -> Result<Step<MultiSearchResponse>, SiftError> {
        if req.queries.is_empty() {
            return Err(SiftError::new("invalid_request", "multi_search needs at least one query"));
        }
        if req.queries.len() > MAX_MULTI_QUERIES {
            return Err(SiftError::new(
                "too_many_queries",
                format!("multi_search takes at most {MAX_MULTI_QUERIES} queries; got {}", req.queries.len()),
            ));
        }
        let (limit, offset) = validate_page(req.limit, req.offset)?;
        // Each query contributes its top (offset + limit) candidates to the fusion.
        let depth = (offset + limit).min(MAX_LIMIT) as i64;
        let mut need = BTreeSet::new();
        let mut responses = Vec::new();
        for (qi, q) in req.queries.iter().enumerate() {
            let mut q = q.clone();
            q.limit = Some(depth);
            q.offset = None;
            match self.search(&q, ctx).map_err(|e| SiftError::new(e.code, format!("query {qi}: {}", e.message)))? {
                Step::Need(files) => need.extend(files),
                Step::Done(r) => responses.push(r),
            }
        }
        if !need.is_empty() {
            return Ok(Step::Need(need.into_iter().collect()));
        }
        let mut fused: BTreeMap<String, (f32, SearchResult, Vec<usize>)> = BTreeMap::new();
        for (qi, resp) in responses.iter().enumerate() {
            for (rank, r) in resp.results.iter().enumerate() {
                let add = 1.0 / (RRF_K + rank as f32 + 1.0);
                let e = fused.entry(r.id.clone()).or_insert_with(|| (0.0, r.clone(), Vec::new()));
                e.0 += add;
                e.2.push(qi);
            }
        }
        let best_possible = req.queries.len() as f32 / (RRF_K + 1.0);
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
        Ok(Step::Done(MultiSearchResponse {
            has_more: offset + results.len() < total,
            results,
            total,
            limit,
            offset,
            queries: responses
                .iter()
                .map(|r| MultiQuerySummary { query: r.query.clone(), total: r.total, fallback: r.fallback.clone() })
                .collect(),
            search_type: "lexical".into(),
            timings_ms: BTreeMap::new(),
        }))
    }

    /// The stored document by id (for `get_document`). Looks through doc shards in order,
    /// asking only for the ones it has not seen.
    pub fn get_document(&self, id: &str) -> Result<Step<Option<StoredDoc>>, SiftError> {
        Ok(match self.locate(id) {
            Step::Done(found) => Step::Done(found.map(|(_, d)| d)),
            Step::Need(files) => Step::Need(files),
        })
    }

    /// A stored document and its number, looking through doc shards in order.
    fn locate(&self, id: &str) -> Step<Option<(u32, StoredDoc)>> {
        let mut need = Vec::new();
        for (i, s) in self.doc_shards.iter().enumerate() {
            match s {
                Some(docs) => {
                    if let Some(k) = docs.iter().position(|d| d.id == id) {
                        return Step::Done(Some((self.manifest.doc_shards[i].first_doc + k as u32, docs[k].clone())));
                    }
                }
                None => need.push(self.manifest.doc_shards[i].shard.file.clone()),
            }
        }
        if need.is_empty() {
            Step::Done(None)
        } else {
            Step::Need(need)
        }
    }

    /// Pages like the page `id`: by meaning when the bundle has vectors (the mean of the
    /// page's chunk vectors, fused with its title and headings as keywords), else by the
    /// title and headings alone. The page itself is left out.
    pub fn related(&self, id: &str, limit: Option<i64>, ctx: &Context) -> Result<Step<SearchResponse>, SiftError> {
        let (limit, _) = validate_page(limit, None)?;
        if id.is_empty() || id.len() > MAX_QUERY_BYTES {
            return Err(SiftError::invalid("related needs a document id (1 to 2048 bytes)"));
        }
        let (doc, stored) = match self.locate(id) {
            Step::Need(files) => return Ok(Step::Need(files)),
            Step::Done(None) => return Err(SiftError::new("not_found", format!("no document with id {id:?} in this bundle"))),
            Step::Done(Some(found)) => found,
        };
        // Keywords: the title's and headings' words, stop words out, each once.
        let mut words: Vec<String> = Vec::new();
        let text = std::iter::once(stored.title.as_str()).chain(stored.sections.iter().map(|s| s.heading.as_str()));
        for t in text {
            for w in t.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() > 1) {
                let f = analyzer::fold(w);
                if !analyzer::is_stopword(&f) && !words.contains(&f) && words.len() < 24 {
                    words.push(f);
                }
            }
        }
        let mut vector = None;
        if let Some(v) = &self.manifest.vectors {
            let missing: Vec<String> =
                self.vector_shards.iter().enumerate().filter(|(_, s)| s.is_none()).map(|(i, _)| v.shards[i].file.clone()).collect();
            if !missing.is_empty() {
                return Ok(Step::Need(missing));
            }
            let mut mean = vec![0f32; v.dim as usize];
            for set in self.vector_shards.iter().flatten() {
                set.add_doc_vectors(doc, &mut mean);
            }
            let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                mean.iter_mut().for_each(|x| *x /= norm);
                vector = Some(mean);
            }
        }
        if words.is_empty() && vector.is_none() {
            return Ok(Step::Done(SearchResponse { query: String::new(), limit, ..Default::default() }));
        }
        let mut req = SearchRequest::new(words.join(" OR "));
        req.limit = Some(limit as i64 + 1);
        req.mode = Some(if vector.is_some() { "hybrid" } else { "lexical" }.into());
        let resp = match self.search_with(&req, ctx, vector.as_deref())? {
            Step::Need(files) => return Ok(Step::Need(files)),
            Step::Done(r) => r,
        };
        let mut resp = resp;
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
        Ok(Step::Done(resp))
    }

    fn doc_shard_of(&self, doc: u32) -> usize {
        self.manifest.doc_shards.partition_point(|d| d.first_doc + d.docs <= doc)
    }

    /// Term shards whose range may hold `term`.
    fn shard_for_term(&self, term: &str) -> Option<usize> {
        let i = self.manifest.term_shards.partition_point(|t| t.first.as_str() <= term);
        if i == 0 {
            return None;
        }
        let t = &self.manifest.term_shards[i - 1];
        (term <= t.last.as_str()).then_some(i - 1)
    }

    fn shards_for_prefix(&self, prefix: &str) -> Vec<usize> {
        self.manifest
            .term_shards
            .iter()
            .enumerate()
            .filter(|(_, t)| t.last.as_str() >= prefix && (t.first.as_str() <= prefix || t.first.starts_with(prefix)))
            .map(|(i, _)| i)
            .collect()
    }
}

fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AltKind {
    Exact,
    Compound,
    Prefix,
    Fuzzy,
}

impl AltKind {
    fn name(self) -> &'static str {
        match self {
            AltKind::Exact => "exact",
            AltKind::Compound => "compound",
            AltKind::Prefix => "prefix",
            AltKind::Fuzzy => "fuzzy",
        }
    }
}

struct RTerm {
    term: String,
    pl: Rc<PostingList>,
    /// The term's idf, or its expansion group's (see `share_group_idf`).
    idf: f32,
}

/// One way a clause can match: a term, or a sequence of terms that must be adjacent.
struct Alt {
    terms: Vec<RTerm>,
    /// Which terms are stop words (no positions: one-word gaps in a phrase).
    stop: Vec<bool>,
    phrase: bool,
    weight: f32,
    kind: AltKind,
}

impl Alt {
    fn max_score(&self) -> f32 {
        self.weight * self.terms.iter().map(|t| t.idf).sum::<f32>()
    }
}

/// One clause of the query after resolution against the dictionary.
struct Clause {
    /// As typed, for explanations and suggestions.
    label: String,
    alts: Vec<Alt>,
    negated: bool,
    /// Folded word eligible for fuzzy matching (a single plain word, not an identifier).
    fuzzy_word: Option<String>,
    /// A "did you mean" replacement for this clause.
    suggestion: Option<String>,
}

impl Clause {
    fn exact_df(&self) -> u32 {
        self.alts.iter().filter(|a| a.kind != AltKind::Fuzzy).flat_map(|a| a.terms.iter()).map(|t| t.pl.df).max().unwrap_or(0)
    }
    fn max_score(&self) -> f32 {
        self.alts.iter().map(Alt::max_score).fold(0.0, f32::max)
    }
}

/// A scored candidate.
#[derive(Clone, Copy)]
struct Hit {
    doc: u32,
    score: f32,
}

/// One search's state: which shards it found missing, the postings it decoded.
struct Run<'a> {
    eng: &'a Engine,
    meta: &'a DocMeta,
    filt: &'a FilterIndex,
    missing: RefCell<BTreeSet<String>>,
    cache: RefCell<HashMap<String, Option<Rc<PostingList>>>>,
}

macro_rules! need_or_continue {
    ($run:expr) => {
        if !$run.missing.borrow().is_empty() {
            return Ok(Step::Need($run.missing.borrow().iter().cloned().collect()));
        }
    };
}

impl<'a> Run<'a> {
    fn term_shard(&self, i: usize) -> Option<&'a TermShard> {
        let s = self.eng.term_shards[i].as_ref();
        if s.is_none() {
            self.missing.borrow_mut().insert(self.eng.manifest.term_shards[i].shard.file.clone());
        }
        s
    }

    /// Postings of an exact term (None: not in the dictionary, or its shard is missing).
    fn postings(&self, term: &str) -> Result<Option<Rc<PostingList>>, SiftError> {
        if let Some(c) = self.cache.borrow().get(term) {
            return Ok(c.clone());
        }
        let Some(si) = self.eng.shard_for_term(term) else { return Ok(None) };
        let Some(shard) = self.term_shard(si) else { return Ok(None) };
        let pl = match shard.offset(term) {
            Some(off) => Some(Rc::new(shard.postings(off, self.eng.manifest.doc_count)?)),
            None => None,
        };
        self.cache.borrow_mut().insert(term.to_string(), pl.clone());
        Ok(pl)
    }

    fn rterm(&self, term: &str) -> Result<Option<RTerm>, SiftError> {
        Ok(self.postings(term)?.map(|pl| RTerm { term: term.to_string(), idf: rank::idf(self.eng.manifest.doc_count, pl.df), pl }))
    }

    fn alt(&self, terms: &[String], phrase: bool, weight: f32, kind: AltKind) -> Result<Option<Alt>, SiftError> {
        let mut rts = Vec::with_capacity(terms.len());
        for t in terms {
            match self.rterm(t)? {
                Some(rt) => rts.push(rt),
                None => return Ok(None),
            }
        }
        let stop = rts.iter().map(|t| analyzer::is_stop_term(&t.term)).collect();
        Ok((!rts.is_empty()).then_some(Alt { terms: rts, stop, phrase: phrase && terms.len() > 1, weight, kind }))
    }

    /// Resolve one query item into alternatives: the exact term, a compound's joined form
    /// and its parts as a phrase, and — for the word being typed — prefix expansions.
    fn item_alts(&self, item: &Item, open: bool, out: &mut Vec<Alt>) -> Result<(), SiftError> {
        match item {
            Item::Phrase(text) => {
                let terms: Vec<String> = {
                    let mut toks = Vec::new();
                    analyzer::tokenize(text, 0, &mut toks);
                    toks.into_iter().filter(|t| !t.joined).map(|t| t.term).collect()
                };
                if let Some(a) = self.alt(&terms, true, W_EXACT, AltKind::Exact)? {
                    out.push(a);
                }
            }
            Item::Word(raw) => {
                let mut toks = Vec::new();
                analyzer::tokenize(raw, 0, &mut toks);
                let parts: Vec<String> = toks.iter().filter(|t| !t.joined).map(|t| t.term.clone()).collect();
                if let Some(j) = toks.iter().find(|t| t.joined) {
                    if let Some(a) = self.alt(std::slice::from_ref(&j.term), false, W_EXACT, AltKind::Exact)? {
                        out.push(a);
                    }
                    if let Some(a) = self.alt(&parts, true, W_COMPOUND, AltKind::Compound)? {
                        out.push(a);
                    }
                } else if let Some(a) = self.alt(&parts, false, W_EXACT, AltKind::Exact)? {
                    out.push(a);
                }
                if open {
                    let folded: String = analyzer::fold(raw).chars().filter(|c| c.is_alphanumeric()).collect();
                    self.prefix_alts(&folded, out)?;
                }
            }
        }
        Ok(())
    }

    /// Expansions of a partly typed word: dictionary terms starting with it, and stems the
    /// typed word already runs past (`configura` → `configur`, whose surface form
    /// `configuration` starts with what was typed).
    fn prefix_alts(&self, folded: &str, out: &mut Vec<Alt>) -> Result<(), SiftError> {
        if folded.chars().count() < 2 {
            return Ok(());
        }
        let have: BTreeSet<String> = out.iter().flat_map(|a| a.terms.iter().map(|t| t.term.clone())).collect();
        let mut cands: Vec<(u32, String)> = Vec::new();
        for si in self.eng.shards_for_prefix(folded) {
            let Some(shard) = self.term_shard(si) else { continue };
            use fst::{Automaton, IntoStreamer, Streamer};
            let aut = fst::automaton::Str::new(folded).starts_with();
            let mut st = shard.map.search(aut).into_stream();
            let mut seen = 0;
            while let Some((k, off)) = st.next() {
                seen += 1;
                if seen > 20_000 {
                    break;
                }
                let term = String::from_utf8_lossy(k).into_owned();
                if have.contains(&term) {
                    continue;
                }
                let (df, _) = shard.header(off)?;
                cands.push((df, term));
            }
        }
        // Stems shorter than the typed word.
        let chars: Vec<char> = folded.chars().collect();
        for cut in 1..=4usize {
            if chars.len() < cut + 4 {
                break;
            }
            let stem: String = chars[..chars.len() - cut].iter().collect();
            if have.contains(&stem) {
                continue;
            }
            let Some(si) = self.eng.shard_for_term(&stem) else { continue };
            let Some(shard) = self.term_shard(si) else { continue };
            if let Some(off) = shard.offset(&stem) {
                let (df, surface) = shard.header(off)?;
                if !surface.is_empty() && surface.starts_with(folded) {
                    cands.push((df, stem));
                }
            }
        }
        cands.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        cands.dedup_by(|a, b| a.1 == b.1);
        let mut alts = Vec::new();
        for (_, term) in cands.into_iter().take(MAX_PREFIX_EXPANSIONS) {
            if let Some(a) = self.alt(&[term], false, W_PREFIX, AltKind::Prefix)? {
                alts.push(a);
            }
        }
        let exact_df: u32 = out.iter().filter(|a| a.terms.len() == 1).map(|a| a.terms[0].pl.df).max().unwrap_or(0);
        self.share_group_idf(&mut alts, exact_df);
        out.extend(alts);
        Ok(())
    }

    /// Expansions of one typed word (prefix completions, fuzzy neighbours) act as one
    /// synonym group: each scores with the idf of the group's combined document frequency,
    /// so a rare completion (`methods` → `methodsha256`) cannot outweigh the common word the
    /// user meant.
    /// `exact_df`: document frequency of the word's own term, part of the group.
    fn share_group_idf(&self, alts: &mut [Alt], exact_df: u32) {
        let n = self.eng.manifest.doc_count;
        let group_df: u64 = u64::from(exact_df) + alts.iter().map(|a| u64::from(a.terms[0].pl.df)).sum::<u64>();
        let idf = rank::idf(n, group_df.min(u64::from(n)) as u32);
        for a in alts.iter_mut() {
            for t in a.terms.iter_mut() {
                t.idf = t.idf.min(idf);
            }
        }
    }

    /// Fuzzy expansions of a clause's word over every term shard.
    fn fuzzy_alts(&self, word: &str) -> Result<Vec<Alt>, SiftError> {
        self.fuzzy_alts_in(word, false)
    }

    /// Fuzzy expansions; with `same_initial`, only in the term shards that can hold words
    /// with the word's first letter (for optional suggestions, which must not make a
    /// browser fetch the whole dictionary).
    fn fuzzy_alts_in(&self, word: &str, same_initial: bool) -> Result<Vec<Alt>, SiftError> {
        let d = fuzzy::max_distance(word);
        if d == 0 {
            return Ok(Vec::new());
        }
        let stemmed = analyzer::stem(word).into_owned();
        let mut hits: BTreeMap<String, u8> = BTreeMap::new();
        let shards: Vec<usize> = if same_initial {
            let initial: String = word.chars().take(1).collect();
            self.eng.shards_for_prefix(&initial)
        } else {
            (0..self.eng.term_shards.len()).collect()
        };
        for si in shards {
            let Some(shard) = self.term_shard(si) else { continue };
            for probe in [word, stemmed.as_str()] {
                for h in fuzzy::fuzzy_terms(shard, probe, d, 64) {
                    if h.term == stemmed || h.term == word {
                        continue;
                    }
                    let e = hits.entry(h.term).or_insert(h.distance);
                    *e = (*e).min(h.distance);
                }
            }
        }
        if !self.missing.borrow().is_empty() {
            return Ok(Vec::new());
        }
        let mut alts = Vec::new();
        for (term, dist) in hits {
            let w = if dist <= 1 { W_FUZZY1 } else { W_FUZZY2 };
            if let Some(a) = self.alt(&[term], false, w, AltKind::Fuzzy)? {
                alts.push((dist, a));
            }
        }
        // Closest first, then the most common.
        alts.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.terms[0].pl.df.cmp(&a.1.terms[0].pl.df)));
        let mut alts: Vec<Alt> = alts.into_iter().take(MAX_FUZZY_EXPANSIONS).map(|(_, a)| a).collect();
        let exact_df = self.postings(&stemmed)?.map(|pl| pl.df).unwrap_or(0);
        self.share_group_idf(&mut alts, exact_df);
        Ok(alts)
    }

    fn search(&self, req: &ValidRequest, query_vector: Option<&[f32]>) -> Result<Step<SearchResponse>, SiftError> {
        let vectors = self.eng.manifest.vectors.as_ref();
        let (w_lex, w_sem) = match (req.mode, vectors, query_vector) {
            (Mode::Semantic | Mode::Hybrid, None, _) => {
                return Err(SiftError::new(
                    "no_vectors",
                    "this bundle was built without vectors, so semantic and hybrid search are unavailable; use mode lexical (or auto), or rebuild the bundle with the embedder",
                ))
            }
            (Mode::Semantic | Mode::Hybrid, Some(v), None) => {
                return Err(SiftError::new(
                    "embedder_required",
                    format!("{:?} mode needs the query embedded with the bundle's model ({}); the host did not provide it", req.mode, v.model).to_lowercase(),
                ))
            }
            (Mode::Semantic, Some(_), Some(_)) => (0.0, 1.0),
            (Mode::Hybrid, Some(_), Some(_)) if exact_shaped(&req.query) => EXACT_WEIGHTS,
            (Mode::Hybrid, Some(_), Some(_)) => HYBRID_WEIGHTS,
            (Mode::Auto, Some(_), Some(_)) => auto_weights(&req.query),
            _ => (1.0, 0.0),
        };
        let query_vector = if w_sem > 0.0 { query_vector } else { None };
        if let (Some(q), Some(v)) = (query_vector, vectors) {
            if q.len() != v.dim as usize || q.iter().any(|x| !x.is_finite()) {
                return Err(SiftError::invalid(format!("the query vector must have {} finite components; got {}", v.dim, q.len())));
            }
            for (i, slot) in self.eng.vector_shards.iter().enumerate() {
                if slot.is_none() {
                    self.missing.borrow_mut().insert(v.shards[i].file.clone());
                }
            }
        }
        let filter_fields = &self.eng.manifest.filter_fields;
        let parsed = query::parse(&req.query, |f| filter_fields.iter().any(|x| x == f));

        // Clauses; stop words are dropped from bare single words unless nothing else is left.
        let n_groups = parsed.groups.len();
        let all_stop = parsed.groups.iter().all(|g| g.items.iter().all(|i| is_stop_item(i)));
        let mut clauses: Vec<Clause> = Vec::new();
        for (gi, g) in parsed.groups.iter().enumerate() {
            if !g.negated && !all_stop && g.items.len() == 1 && is_stop_item(&g.items[0]) {
                continue;
            }
            let open = parsed.open_last && gi + 1 == n_groups;
            let mut alts = Vec::new();
            for item in &g.items {
                self.item_alts(item, open, &mut alts)?;
            }
            let fuzzy_word = match &g.items[..] {
                [Item::Word(w)] if !g.negated && !fuzzy::looks_like_identifier(w) => {
                    let f = analyzer::fold(w);
                    f.chars().all(char::is_alphabetic).then_some(f)
                }
                _ => None,
            };
            let label = g
                .items
                .iter()
                .map(|i| match i {
                    Item::Word(w) => w.clone(),
                    Item::Phrase(p) => format!("\"{p}\""),
                })
                .collect::<Vec<_>>()
                .join(" OR ");
            clauses.push(Clause { label, alts, negated: g.negated, fuzzy_word, suggestion: None });
        }
        if w_lex == 0.0 {
            // Meaning only: no typo lookups (they would fetch the whole dictionary).
            for c in clauses.iter_mut() {
                c.fuzzy_word = None;
            }
        }
        if clauses.iter().filter(|c| !c.negated).count() > MAX_CLAUSES {
            return Err(SiftError::new("query_too_long", format!("query has more than {MAX_CLAUSES} terms")));
        }
        need_or_continue!(self);

        // Filters: request filters plus `field:value` from the query text.
        let mut filters = req.filters.clone();
        for (f, v) in &parsed.filters {
            match filters.iter_mut().find(|(ff, _)| ff == f) {
                Some((_, vs)) => vs.push(v.clone()),
                None => filters.push((f.clone(), vec![v.clone()])),
            }
        }
        let allowed = self.allowed_docs(&filters, req.since_days);
        let excluded = self.excluded_docs(&clauses);
        let positive: Vec<usize> = (0..clauses.len()).filter(|&i| !clauses[i].negated).collect();
        if positive.is_empty() {
            return Ok(Step::Done(self.empty_response(
                req,
                Some(Fallback {
                    from: "query".into(),
                    to: "nothing".into(),
                    reason: "the query only excludes terms; add a word to search for".into(),
                }),
            )));
        }

        // 1. Words that exist nowhere are probably misspelt: match similar terms.
        let mut fallback: Option<Fallback> = None;
        let unknown: Vec<usize> = positive.iter().copied().filter(|&i| clauses[i].exact_df() == 0).collect();
        let mut fuzzed = Vec::new();
        for &i in &unknown {
            if let Some(w) = clauses[i].fuzzy_word.clone() {
                let alts = self.fuzzy_alts(&w)?;
                need_or_continue!(self);
                if !alts.is_empty() {
                    clauses[i].suggestion = alts.first().map(|a| self.surface(&a.terms[0]));
                    clauses[i].alts.extend(alts);
                    fuzzed.push(clauses[i].label.clone());
                }
            }
        }
        // 2. All terms (AND).
        let mut hits = self.evaluate(&clauses, &positive, true, &allowed, &excluded);
        if !fuzzed.is_empty() {
            fallback = Some(Fallback {
                from: "exact".into(),
                to: "fuzzy".into(),
                reason: format!("no document contains {}; matched similar spellings", quote_list(&fuzzed)),
            });
        }
        // 3. Any term (scored OR), when AND cannot fill the page.
        if hits.len() < req.offset + req.limit && positive.len() > 1 {
            let or_hits = self.evaluate(&clauses, &positive, false, &allowed, &excluded);
            if or_hits.len() > hits.len() {
                let reason = if hits.is_empty() {
                    let missing: Vec<String> =
                        positive.iter().filter(|&&i| clauses[i].alts.is_empty()).map(|&i| clauses[i].label.clone()).collect();
                    if missing.is_empty() {
                        "no document contains every term".to_string()
                    } else {
                        format!("no document contains {}", quote_list(&missing))
                    }
                } else {
                    format!("only {} document{} contain every term", hits.len(), if hits.len() == 1 { "" } else { "s" })
                };
                let from = if fuzzed.is_empty() { "all terms" } else { "all terms (fuzzy)" };
                fallback = Some(Fallback { from: from.into(), to: "any term".into(), reason });
                hits = or_hits;
            }
        }
        // 4. Nothing at all: try similar spellings of every word.
        if hits.is_empty() {
            let mut changed = Vec::new();
            for &i in &positive {
                if unknown.contains(&i) {
                    continue;
                }
                if let Some(w) = clauses[i].fuzzy_word.clone() {
                    let alts = self.fuzzy_alts(&w)?;
                    need_or_continue!(self);
                    if !alts.is_empty() {
                        clauses[i].alts.extend(alts);
                        changed.push(clauses[i].label.clone());
                    }
                }
            }
            if !changed.is_empty() {
                hits = self.evaluate(&clauses, &positive, false, &allowed, &excluded);
                if !hits.is_empty() {
                    fallback = Some(Fallback {
                        from: "exact".into(),
                        to: "fuzzy".into(),
                        reason: format!("no document matches the query as typed; matched similar spellings of {}", quote_list(&changed)),
                    });
                }
            }
        }
        if hits.is_empty() {
            let reason = if allowed.is_some() || req.since_days.is_some() {
                "no document matches the query with these filters (similar spellings were tried too)"
            } else {
                "no document matches any term of the query (similar spellings were tried too)"
            };
            fallback = Some(Fallback { from: "query".into(), to: "nothing".into(), reason: reason.into() });
        }

        // Suggestions: a rewrite when words were corrected, or when a rare word has a much
        // more common neighbour.
        let suggestions = self.suggestions(&clauses, &positive, &req.query, hits.len())?;
        need_or_continue!(self);

        // Normalise lexical scores to 0..1.
        let denom: f32 = (positive.iter().map(|&i| clauses[i].max_score()).sum::<f32>()
            + proximity_pairs(&clauses, &positive).iter().map(|(a, b)| proximity_max(a, b)).sum::<f32>())
        .max(1e-6);
        for h in hits.iter_mut() {
            h.score = (h.score / denom).min(1.0);
        }
        // The semantic half: alone, fused with the lexical list, or as the last fallback.
        let mut search_type = "lexical";
        let mut lexical_scores: HashMap<u32, f32> = HashMap::new();
        let mut semantic_scores: HashMap<u32, f32> = HashMap::new();
        if let Some(q) = query_vector {
            let depth = (req.offset + req.limit).max(SEMANTIC_DEPTH);
            let sem = self.semantic_hits(q, depth, &allowed, &excluded);
            if req.explain {
                lexical_scores = hits.iter().map(|h| (h.doc, h.score)).collect();
                semantic_scores = sem.iter().map(|h| (h.doc, h.score)).collect();
            }
            if w_lex == 0.0 {
                hits = sem;
                fallback = None;
                search_type = "semantic";
            } else if hits.is_empty() {
                // A fallback must not dress up noise as an answer: only real similarity counts.
                let sem: Vec<Hit> = sem.into_iter().filter(|h| h.score >= SEMANTIC_FALLBACK_MIN).collect();
                if !sem.is_empty() {
                    fallback = Some(Fallback {
                        from: "lexical".into(),
                        to: "semantic".into(),
                        reason: "no document contains the query's words (or similar spellings); showing results by meaning".into(),
                    });
                }
                hits = sem;
                search_type = "semantic";
            } else {
                hits = fuse(&hits, &sem, w_lex, w_sem);
                search_type = "hybrid";
            }
        }

        // Order and page.
        let newest = self.newest_date();
        if req.boost_recent {
            for h in hits.iter_mut() {
                h.score *= self.recency(h.doc, newest);
            }
        }
        match req.sort {
            Sort::Relevance => hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc))),
            Sort::Date => hits.sort_by(|a, b| {
                let da = self.meta.dates[a.doc as usize];
                let db = self.meta.dates[b.doc as usize];
                db.cmp(&da).then(b.score.total_cmp(&a.score)).then(a.doc.cmp(&b.doc))
            }),
        }
        let total = hits.len();
        let page: Vec<Hit> = hits.iter().skip(req.offset).take(req.limit).copied().collect();
        let facets = self.facets(&hits);

        // Stored documents for the page.
        let mut need = BTreeSet::new();
        for h in &page {
            let si = self.eng.doc_shard_of(h.doc);
            if self.eng.doc_shards[si].is_none() {
                need.insert(self.eng.manifest.doc_shards[si].shard.file.clone());
            }
        }
        if !need.is_empty() {
            return Ok(Step::Need(need.into_iter().collect()));
        }
        let mut match_terms: BTreeMap<String, Rc<PostingList>> = BTreeMap::new();
        for a in positive.iter().flat_map(|&i| clauses[i].alts.iter()) {
            for t in &a.terms {
                match_terms.entry(t.term.clone()).or_insert_with(|| t.pl.clone());
            }
        }
        let term_set: BTreeSet<String> = match_terms.keys().cloned().collect();
        let prefixes = snippet::match_prefixes(&term_set);
        let mut results = Vec::with_capacity(page.len());
        for h in &page {
            let sd = self.stored(h.doc);
            let positions: Vec<&[u32]> =
                match_terms.values().filter_map(|pl| pl.docs.binary_search(&h.doc).ok().map(|k| pl.positions_of(k))).collect();
            let mut r = build_result(sd, h.score, &term_set, &prefixes, &positions, req.include_content);
            if req.explain {
                let mut x = self.explain(h.doc, &clauses, &positive, denom, h.score);
                if query_vector.is_some() {
                    x["fusion"] = serde_json::json!({
                        "search_type": search_type, "weights": { "lexical": w_lex, "semantic": w_sem },
                        "lexical": lexical_scores.get(&h.doc).map(|s| round4(*s)),
                        "semantic": semantic_scores.get(&h.doc).map(|s| round4(*s)),
                    });
                }
                r.explain = Some(x);
            }
            results.push(r);
        }
        Ok(Step::Done(SearchResponse {
            has_more: req.offset + results.len() < total,
            results,
            total,
            limit: req.limit,
            offset: req.offset,
            query: req.query.trim_end().to_string(),
            search_type: search_type.into(),
            fallback,
            suggestions,
            facets,
            timings_ms: BTreeMap::new(),
        }))
    }

    fn newest_date(&self) -> i64 {
        // The newest document stands in for "now" when ranking by recency: bundles are
        // static, and this keeps results reproducible.
        self.meta.dates.iter().flatten().copied().max().unwrap_or(0)
    }

    /// Recency factor in (0.8, 1]: halves its bonus every 180 days of age.
    fn recency(&self, doc: u32, now: i64) -> f32 {
        match self.meta.dates[doc as usize] {
            Some(d) => {
                let age = (now - d).max(0) as f32;
                0.8 + 0.2 * 0.5f32.powf(age / 180.0)
            }
            None => 0.8,
        }
    }

    fn stored(&self, doc: u32) -> &StoredDoc {
        let si = self.eng.doc_shard_of(doc);
        let shard = self.eng.doc_shards[si].as_ref().expect("doc shard checked before");
        &shard[(doc - self.eng.manifest.doc_shards[si].first_doc) as usize]
    }

    fn surface(&self, t: &RTerm) -> String {
        if t.pl.surface.is_empty() {
            t.term.clone()
        } else {
            t.pl.surface.clone()
        }
    }

    fn suggestions(&self, clauses: &[Clause], positive: &[usize], query: &str, found: usize) -> Result<Vec<String>, SiftError> {
        let mut rewrites: Vec<(String, String)> = Vec::new();
        for &i in positive {
            if let Some(s) = &clauses[i].suggestion {
                rewrites.push((clauses[i].label.clone(), s.clone()));
                continue;
            }
            let df = clauses[i].exact_df();
            let Some(w) = clauses[i].fuzzy_word.clone() else { continue };
            if df == 0 || df >= 3 || found >= 3 {
                continue;
            }
            // A rare word and few results: suggest a neighbour that is far more common.
            let alts = self.fuzzy_alts_in(&w, true)?;
            if let Some(best) = alts.iter().filter(|a| a.terms[0].pl.df >= (20 * df).max(5)).max_by_key(|a| a.terms[0].pl.df) {
                rewrites.push((clauses[i].label.clone(), self.surface(&best.terms[0])));
            }
        }
        if rewrites.is_empty() {
            return Ok(Vec::new());
        }
        let mut s = query.to_string();
        for (from, to) in rewrites {
            s = s.replacen(&from, &to, 1);
        }
        Ok(if s != query { vec![s] } else { Vec::new() })
    }

    /// Documents passing every filter (None: no filter at all).
    fn allowed_docs(&self, filters: &[(String, Vec<String>)], since: Option<i64>) -> Option<Vec<bool>> {
        if filters.is_empty() && since.is_none() {
            return None;
        }
        let n = self.eng.manifest.doc_count as usize;
        let mut allowed = vec![true; n];
        for (field, values) in filters {
            let mut any = vec![false; n];
            if let Some(vals) = self.filt.fields.get(field) {
                for v in values {
                    for &d in vals.get(v).map(Vec::as_slice).unwrap_or(&[]) {
                        any[d as usize] = true;
                    }
                }
            }
            for (a, b) in allowed.iter_mut().zip(any) {
                *a &= b;
            }
        }
        if let Some(cut) = since {
            for (a, d) in allowed.iter_mut().zip(&self.meta.dates) {
                *a &= d.is_some_and(|d| d >= cut);
            }
        }
        Some(allowed)
    }

    fn excluded_docs(&self, clauses: &[Clause]) -> Vec<u32> {
        let mut ex = BTreeSet::new();
        for c in clauses.iter().filter(|c| c.negated) {
            for a in c.alts.iter().filter(|a| a.kind != AltKind::Prefix) {
                for (doc, _) in alt_matches(a) {
                    ex.insert(doc);
                }
            }
        }
        ex.into_iter().collect()
    }

    /// Score documents: `all` requires every positive clause (AND), else any (scored OR).
    fn evaluate(&self, clauses: &[Clause], positive: &[usize], all: bool, allowed: &Option<Vec<bool>>, excluded: &[u32]) -> Vec<Hit> {
        let n = self.eng.manifest.doc_count as usize;
        let params = &self.eng.manifest.params;
        let mut acc: HashMap<u32, (f32, u64)> = HashMap::new();
        let mut best: HashMap<u32, f32> = HashMap::new();
        for (bit, &ci) in positive.iter().enumerate() {
            best.clear();
            for alt in &clauses[ci].alts {
                for (doc, ks) in alt_matches(alt) {
                    let lens = &self.meta.lens[doc as usize];
                    let mut s = 0.0;
                    for (t, &k) in alt.terms.iter().zip(&ks) {
                        let tf = self.eng.norms.pseudo_tf(params, &t.pl.tf[k], lens);
                        s += t.idf * rank::saturate(params.k1, tf);
                    }
                    let s = s * alt.weight;
                    let e = best.entry(doc).or_insert(0.0);
                    if s > *e {
                        *e = s;
                    }
                }
            }
            for (&doc, &s) in &best {
                let e = acc.entry(doc).or_insert((0.0, 0));
                e.0 += s;
                e.1 |= 1u64 << bit;
            }
        }
        for (a, b) in proximity_pairs(clauses, positive) {
            for (doc, bonus) in proximity_bonus(a, b) {
                if let Some(e) = acc.get_mut(&doc) {
                    e.0 += bonus;
                }
            }
        }
        let full: u64 = if positive.len() >= 64 { u64::MAX } else { (1u64 << positive.len()) - 1 };
        let mut hits: Vec<Hit> = acc
            .into_iter()
            .filter(|(doc, (_, mask))| {
                (!all || *mask == full)
                    && (*doc as usize) < n
                    && allowed.as_ref().is_none_or(|a| a[*doc as usize])
                    && excluded.binary_search(doc).is_err()
            })
            .map(|(doc, (score, _))| Hit { doc, score })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        hits
    }

    /// Documents by meaning: the best chunks for the query, a document scoring as its best
    /// chunk (cosine, floored at 0), filters and exclusions applied.
    fn semantic_hits(&self, q: &[f32], depth: usize, allowed: &Option<Vec<bool>>, excluded: &[u32]) -> Vec<Hit> {
        let mut best: HashMap<u32, f32> = HashMap::new();
        for set in self.eng.vector_shards.iter().flatten() {
            // With filters every chunk is a candidate, so a narrow filter still fills the page.
            let k = if allowed.is_some() { set.len() } else { depth * 4 };
            for (i, cos) in set.search(q, k) {
                let d = set.doc_of[i];
                if allowed.as_ref().is_some_and(|a| !a[d as usize]) || excluded.binary_search(&d).is_ok() {
                    continue;
                }
                let e = best.entry(d).or_insert(f32::MIN);
                *e = e.max(cos);
            }
        }
        let mut hits: Vec<Hit> = best.into_iter().map(|(doc, s)| Hit { doc, score: s.clamp(0.0, 1.0) }).collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        hits.truncate(depth);
        hits
    }

    fn facets(&self, hits: &[Hit]) -> BTreeMap<String, BTreeMap<String, usize>> {
        let mut out = BTreeMap::new();
        if hits.is_empty() {
            return out;
        }
        let n = self.eng.manifest.doc_count as usize;
        let mut in_set = vec![false; n];
        for h in hits {
            in_set[h.doc as usize] = true;
        }
        for (field, values) in &self.filt.fields {
            let mut counts = BTreeMap::new();
            for (v, docs) in values {
                let c = docs.iter().filter(|&&d| in_set[d as usize]).count();
                if c > 0 {
                    counts.insert(v.clone(), c);
                }
            }
            if !counts.is_empty() {
                out.insert(field.clone(), counts);
            }
        }
        out
    }

    fn explain(&self, doc: u32, clauses: &[Clause], positive: &[usize], denom: f32, score: f32) -> serde_json::Value {
        let params = &self.eng.manifest.params;
        let lens = &self.meta.lens[doc as usize];
        let mut out_clauses = Vec::new();
        let mut raw = 0.0;
        for &ci in positive {
            let c = &clauses[ci];
            let mut best: Option<(f32, serde_json::Value)> = None;
            for alt in &c.alts {
                let Some(ks) = alt_match_at(alt, doc) else { continue };
                let mut terms = Vec::new();
                let mut s = 0.0;
                for (t, &k) in alt.terms.iter().zip(&ks) {
                    let tf = &t.pl.tf[k];
                    let ptf = self.eng.norms.pseudo_tf(params, tf, lens);
                    let ts = t.idf * rank::saturate(params.k1, ptf);
                    s += ts;
                    let fields: BTreeMap<&str, u32> = (0..N_FIELDS).filter(|&f| tf[f] > 0).map(|f| (rank::FIELD_NAMES[f], tf[f])).collect();
                    terms.push(serde_json::json!({
                        "term": t.term, "fields": fields, "idf": round4(t.idf),
                        "weighted_tf": round4(ptf), "score": round4(ts),
                    }));
                }
                let s = s * alt.weight;
                if best.as_ref().is_none_or(|b| s > b.0) {
                    best = Some((
                        s,
                        serde_json::json!({
                            "match": alt.kind.name(), "weight": alt.weight, "phrase": alt.phrase,
                            "terms": terms, "score": round4(s),
                        }),
                    ));
                }
            }
            let (s, detail) = best.unwrap_or((0.0, serde_json::Value::Null));
            raw += s;
            out_clauses.push(serde_json::json!({ "clause": c.label, "matched": !detail.is_null(), "best": detail }));
        }
        let mut proximity = Vec::new();
        for (a, b) in proximity_pairs(clauses, positive) {
            let bonus = proximity_at(a, b, doc).unwrap_or(0.0);
            raw += bonus;
            proximity.push(serde_json::json!({ "pair": [a.term, b.term], "score": round4(bonus) }));
        }
        serde_json::json!({
            "clauses": out_clauses,
            "proximity": proximity,
            "bm25f": round4(raw),
            "max_possible": round4(denom),
            "normalised": round4((raw / denom).min(1.0)),
            "final": round4(score),
            "params": { "k1": params.k1, "b": params.b, "weights": params.weight, "fields": rank::FIELD_NAMES },
        })
    }

    fn empty_response(&self, req: &ValidRequest, fallback: Option<Fallback>) -> SearchResponse {
        SearchResponse {
            limit: req.limit,
            offset: req.offset,
            query: req.query.trim_end().to_string(),
            search_type: "lexical".into(),
            fallback,
            ..Default::default()
        }
    }
}

fn is_stop_item(item: &Item) -> bool {
    match item {
        Item::Word(w) => analyzer::is_stopword(&analyzer::fold(w)),
        Item::Phrase(_) => false,
    }
}

fn quote_list(words: &[String]) -> String {
    words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ")
}

/// Neighbouring plain words of the query (`string methods`): their exact terms, in order.
fn proximity_pairs<'c>(clauses: &'c [Clause], positive: &[usize]) -> Vec<(&'c RTerm, &'c RTerm)> {
    let plain = |ci: usize| -> Option<&'c RTerm> {
        let a = clauses[ci].alts.first()?;
        (a.kind == AltKind::Exact && a.terms.len() == 1 && !analyzer::is_stop_term(&a.terms[0].term)).then(|| &a.terms[0])
    };
    positive.windows(2).filter_map(|w| Some((plain(w[0])?, plain(w[1])?))).collect()
}

fn proximity_max(a: &RTerm, b: &RTerm) -> f32 {
    W_PROXIMITY * (a.idf + b.idf) / 2.0
}

/// Documents where `a` is directly followed by `b`, with a bonus that grows with the count
/// of such places (saturating like a term frequency).
fn proximity_bonus(a: &RTerm, b: &RTerm) -> Vec<(u32, f32)> {
    a.pl.docs.iter().filter_map(|&doc| proximity_at(a, b, doc).map(|s| (doc, s))).collect()
}

/// The proximity bonus of one document, if `a` is directly followed by `b` somewhere in it.
fn proximity_at(a: &RTerm, b: &RTerm, doc: u32) -> Option<f32> {
    let ka = a.pl.docs.binary_search(&doc).ok()?;
    let kb = b.pl.docs.binary_search(&doc).ok()?;
    let (pa, pb) = (a.pl.positions_of(ka), b.pl.positions_of(kb));
    let (mut i, mut j, mut c) = (0, 0, 0u32);
    while i < pa.len() && j < pb.len() {
        match pb[j].cmp(&(pa[i] + 1)) {
            std::cmp::Ordering::Less => j += 1,
            std::cmp::Ordering::Greater => i += 1,
            std::cmp::Ordering::Equal => {
                c += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (c > 0).then(|| proximity_max(a, b) * c as f32 / (c as f32 + 1.0))
}

/// Documents matching an alternative, with the index of each term's posting for that doc.
/// Phrases require consecutive positions; stop words carry no positions and count as a
/// one-word gap (`"state of the art"` needs `state` and `art` three apart). A phrase of
/// stop words only is matched by co-occurrence.
fn alt_matches(alt: &Alt) -> Vec<(u32, Vec<usize>)> {
    let first = &alt.terms[0].pl;
    if alt.terms.len() == 1 {
        return first.docs.iter().enumerate().map(|(k, &d)| (d, vec![k])).collect();
    }
    first.docs.iter().filter_map(|&doc| alt_match_at(alt, doc).map(|ks| (doc, ks))).collect()
}

/// Whether `doc` matches an alternative (terms present; adjacent for a phrase), with the
/// index of each term's posting for it.
fn alt_match_at(alt: &Alt, doc: u32) -> Option<Vec<usize>> {
    let ks: Vec<usize> = alt.terms.iter().map(|t| t.pl.docs.binary_search(&doc).ok()).collect::<Option<_>>()?;
    if !alt.phrase || alt.terms.len() == 1 {
        return Some(ks);
    }
    let stop = &alt.stop;
    let Some(a) = stop.iter().position(|s| !s) else { return Some(ks) };
    let starts = alt.terms[a].pl.positions_of(ks[a]);
    let ok = starts.iter().any(|&p| {
        alt.terms.iter().zip(&ks).enumerate().all(|(i, (t, &k))| {
            i == a || stop[i] || {
                let want = i64::from(p) + i as i64 - a as i64;
                want >= 0 && t.pl.positions_of(k).binary_search(&(want as u32)).is_ok()
            }
        })
    });
    ok.then_some(ks)
}

/// Where the matched terms fall in each section (from postings positions, no text
/// analysis): per section, the (position, term index) pairs in order.
fn section_hits(sd: &StoredDoc, term_positions: &[&[u32]]) -> Vec<Vec<(u32, usize)>> {
    let n = sd.sections.len();
    let mut per: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    if sd.section_pos.len() != n {
        return per;
    }
    for (ti, positions) in term_positions.iter().enumerate() {
        for &p in positions.iter() {
            let s = sd.section_pos.partition_point(|&start| start <= p);
            if s > 0 {
                per[s - 1].push((p, ti)); // s == 0: title or path
            }
        }
    }
    for v in per.iter_mut() {
        v.sort_unstable();
    }
    per
}

fn quality_of(hits: &[(u32, usize)]) -> snippet::MatchQuality {
    let mut terms: Vec<usize> = hits.iter().map(|h| h.1).collect();
    terms.sort_unstable();
    terms.dedup();
    snippet::MatchQuality { distinct: terms.len(), hits: hits.len() }
}

/// The best snippet window of a section's body, as a position relative to the body's first
/// token: the window with the most distinct terms, then the most hits.
fn snippet_focus(sd: &StoredDoc, i: usize, hits: &[(u32, usize)]) -> u32 {
    let sec = &sd.sections[i];
    let mut body_start = sd.section_pos[i];
    if !sec.heading.is_empty() {
        let mut toks = Vec::new();
        body_start += analyzer::tokenize(&sec.heading, 0, &mut toks) + crate::builder::POSITION_GAP;
    }
    let body: Vec<(u32, usize)> = hits.iter().filter(|h| h.0 >= body_start).map(|&(p, t)| (p - body_start, t)).collect();
    let mut best = (0usize, 0usize, 0u32);
    for (k, &(p, _)) in body.iter().enumerate() {
        let in_window: Vec<usize> = body[k..].iter().take_while(|h| h.0 < p + SNIPPET_WORDS as u32).map(|h| h.1).collect();
        let n = in_window.len();
        let mut d = in_window;
        d.sort_unstable();
        d.dedup();
        if (d.len(), n) > (best.0, best.1) {
            best = (d.len(), n, p);
        }
    }
    best.2
}

/// The display form of a hit: escaped title, a snippet of the best-matching section, and
/// sub-results deep-linking to the other matching sections. Only the chosen sections are
/// analysed, so a 500 KB page costs no more than a short one.
fn build_result(
    sd: &StoredDoc,
    score: f32,
    match_terms: &BTreeSet<String>,
    prefixes: &[String],
    term_positions: &[&[u32]],
    include_content: bool,
) -> SearchResult {
    let is_match = |t: &str| match_terms.contains(t);
    let hits = section_hits(sd, term_positions);
    let quality: Vec<snippet::MatchQuality> = hits.iter().map(|h| quality_of(h)).collect();
    let positional = sd.section_pos.len() == sd.sections.len();
    let snippet_of = |i: usize| {
        let focus = positional.then(|| snippet_focus(sd, i, &hits[i]));
        snippet::snippet(&sd.sections[i].text, &is_match, prefixes, SNIPPET_WORDS, focus).html
    };
    let mut order: Vec<usize> = (0..sd.sections.len()).collect();
    order.sort_by(|&a, &b| quality[b].cmp(&quality[a]).then(a.cmp(&b)));
    let best = order.iter().copied().find(|&i| !sd.sections[i].text.is_empty());
    let snippet = best.map(snippet_of).unwrap_or_default();
    let mut subs = Vec::new();
    if sd.sections.len() > 1 {
        for &i in order.iter().filter(|&&i| quality[i].hits > 0 && !sd.sections[i].heading.is_empty()).take(MAX_SUB_RESULTS) {
            let sec = &sd.sections[i];
            let url = match &sec.anchor {
                Some(a) if !a.is_empty() => format!("{}#{}", sd.url.split('#').next().unwrap_or(""), a),
                _ => sd.url.clone(),
            };
            let sn = if Some(i) == best { snippet.clone() } else { snippet_of(i) };
            subs.push(SubResult { title: snippet::escape_html(&sec.heading), url, snippet: sn });
        }
    }
    SearchResult {
        id: sd.id.clone(),
        url: sd.url.clone(),
        title: snippet::escape_html(&sd.title),
        doc_type: sd.doc_type().map(str::to_string),
        snippet,
        score: round4(score),
        sub_results: subs,
        metadata: sd.metadata.clone(),
        date: sd.date.clone(),
        content: include_content.then(|| sd.content()),
        explain: None,
        queries: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_weights_follow_the_query_shape() {
        let lexical_heavy = |q: &str| auto_weights(q).0 > 0.5;
        let semantic_heavy = |q: &str| auto_weights(q).1 > 0.5;
        for q in ["StateMachine", "os.path.join", "utf8 decode", "\"exact phrase\"", "MCP", "HTTP_PROXY", "mcp", "deploy"] {
            assert!(lexical_heavy(q), "{q}: {:?}", auto_weights(q));
        }
        for q in [
            "how do I release my app to production?",
            "what are the structural problems of high speed aircraft",
            "ways to keep answers around between calls",
        ] {
            assert!(semantic_heavy(q), "{q}: {:?}", auto_weights(q));
        }
        assert_eq!(auto_weights("does agentroot have mcp?"), (0.5, 0.5), "short question: balanced");
        let (l, s) = auto_weights("anything at all here");
        assert!((l + s - 1.0).abs() < 1e-6);
    }

    #[test]
    fn fusion_stays_in_range_and_keeps_both_sides() {
        let lex = vec![Hit { doc: 1, score: 0.9 }, Hit { doc: 2, score: 0.3 }];
        let sem = vec![Hit { doc: 3, score: 0.8 }, Hit { doc: 1, score: 0.6 }];
        let f = fuse(&lex, &sem, 0.3, 0.7);
        assert_eq!(f[0].doc, 1, "in both lists");
        assert!(f.iter().all(|h| (0.0..=1.0).contains(&h.score)));
        assert_eq!(f.len(), 3);
    }
}
