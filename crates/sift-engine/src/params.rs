//! Every ranking parameter of the engine in one place, with its default and why (like
//! Pagefind's `RankingWeights`). The defaults are chosen on more than one collection at
//! once — Cranfield, CACM and the known-item sets (`bash bench/run.sh`,
//! `bench/results/`) — and a change is reported on all of them. `sift eval --param
//! name=value` tries a value without rebuilding anything.
//!
//! BM25F's own parameters (k1, b and the field weights) are the bundle's: its manifest
//! records what it was built with (`sift build --k1`, `--field-weights`, `--field-b`).

#[cfg(feature = "explain")]
use sift_base::SiftError;

/// How the engine weighs what it finds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankingParams {
    /// An alternative's weight when it is the word as typed (or a phrase as quoted).
    pub exact: f32,
    /// A compound's parts found as a phrase (`state machine` for `StateMachine`).
    pub compound: f32,
    /// A completion of the word being typed (`authen` → `authentication`).
    pub prefix: f32,
    /// A fuzzy neighbour one edit away, and two edits away.
    pub fuzzy1: f32,
    pub fuzzy2: f32,
    /// The bonus of two neighbouring query words found side by side, relative to the pair's
    /// mean idf.
    pub proximity: f32,
    /// A page whose title is the query — it holds every clause, by any of its alternatives,
    /// with at most one word more — gains this share of the query's best possible word
    /// score: a page named for what is asked comes before one that only says it more often
    /// (`mcp`: "MCP Server" before a providers page that says MCP eight times). BM25F
    /// saturates the term's weighted frequency as one, so many mentions in a short body
    /// outweigh a title.
    pub whole_title: f32,
    /// Reciprocal rank fusion's constant (Cormack et al. 2009), for `multi_search`.
    pub rrf_k: f32,
    /// `mode: hybrid` (and natural-language `auto`): (lexical, semantic) weights of the
    /// score fusion. Cosines of relevant and irrelevant chunks differ by less than
    /// normalised BM25F scores do, so the semantic side needs the larger weight to count
    /// equally. Chosen with `unreached_meaning` on every collection at once (Cranfield,
    /// CACM, both sites' known items): more weight on meaning wins the Python docs'
    /// tuned paraphrases and loses CACM, where the model is far weaker than the words.
    pub hybrid: (f32, f32),
    /// Weights for queries that name something exactly: identifiers, acronyms, code,
    /// quoted text, a single word. An exact match stays first.
    pub exact_shaped: (f32, f32),
    /// `auto`: a question of up to two content words, and plain queries that are neither
    /// short nor long.
    pub balanced: (f32, f32),
    /// `auto`: two plain keywords lean lexical.
    pub keywords: (f32, f32),
    /// Documents taken from the semantic side for fusion.
    pub semantic_depth: usize,
    /// A lexical hit the semantic side did not reach (its chunks are in vector lists the
    /// query did not read, or ranked past `semantic_depth`) counts there as this share of
    /// the lowest score the semantic side did reach, not as 0: a query reads a small share
    /// of a large site's vectors, and an unread page is not thereby unrelated. The whole
    /// score: below the list's end is all that is known, and any penalty beyond it
    /// outweighs, on a collection whose cosines lie close together, the words' evidence.
    pub unreached_meaning: f32,
    /// A page found by meaning alone (none of the query's words) is an answer only within
    /// this much of the best cosine: further down, the semantic list holds what any page
    /// shares with any query (`kubernetes` on a Python site, or every page of a small one).
    pub meaning_only_within: f32,
    /// Cosine below which a document is not an answer when keywords found nothing
    /// (MiniLM gives unrelated text 0.0–0.15).
    pub semantic_fallback_min: f32,
    /// Most positive clauses a query may have for its lexical side to be weighed by how
    /// much of it a page covers. Longer queries are paragraphs, where no document has every
    /// word and BM25 already sums what each matches.
    pub coverage_max_clauses: usize,
    /// A page covering less than this share of a short query's words does not outrank a
    /// clear answer by meaning.
    pub coverage_to_outrank_meaning: f32,
    /// How far the best answer by meaning must lead the second to be a clear one.
    pub clear_meaning_margin: f32,
    /// Vector feedback (Rocchio): how many of the best fused answers, and their weight
    /// beside the query's vector.
    pub rocchio_docs: usize,
    pub rocchio_weight: f32,
    /// What a page's second-best section adds by meaning: this share of the cosine by which
    /// it clears the best cosine of the page at `evidence_rank` (0-based; the first off a
    /// 20-result page), so only a section that would reach the first page by itself adds.
    pub second_chunk_weight: f32,
    pub evidence_rank: usize,
    /// Relevance feedback (RM3) is for queries of this many typed clauses or more.
    pub feedback_min_clauses: usize,
    /// Best first answers the relevance model is estimated from, and the words it adds.
    pub feedback_docs: usize,
    pub feedback_terms: usize,
    /// The query's own share of the expanded query's weight (RM3's λ). Chosen
    /// leave-one-collection-out (`bench/loo.py`): at half, the first answers' words drifted
    /// the query, and lexical search lost ADI, LISA and TIME to plain BM25; hybrid search
    /// gains from the change on six of seven collections too.
    pub feedback_original_weight: f32,
    /// Multiplies the bundle's vector budgets (the vectors a query reads, and the list
    /// groups' vectors it chooses lists from): more reads more lists, for more bytes.
    pub probe_scale: f32,
    /// Multiplies the list groups' budget alone: a large value reads every group, choosing
    /// lists as one level of centroids would (what the groups cost in relevance).
    pub group_scale: f32,
    /// A page that is all navigation (generated indexes, source listings) weighs this much
    /// of a content page with the same match, by words and by meaning alike; a page partly
    /// navigation in proportion (the ramp between the link densities the doc metadata
    /// stores as content and as navigation: `docmeta::NAV_FROM`, `NAV_FULL`).
    pub navigation_weight: f32,
    /// `boost_recent`: a page's score is multiplied by `recency_floor` plus the rest of 1
    /// halved every `recency_half_life_days` of its age (the bundle's newest page is 1; a
    /// page without a date counts as very old).
    pub recency_floor: f32,
    pub recency_half_life_days: f32,
    /// A page covering little of a short query that would outrank a clear answer by meaning
    /// is put just below it: at `demoted_to` of the answer's score, plus `demoted_spread`
    /// of it times its own share of the best score, so such pages keep their order.
    pub demoted_to: f32,
    pub demoted_spread: f32,
    /// Completions of the word being typed taken at most (the most frequent first), and
    /// the vocabulary entries scanned for them at most.
    pub prefix_expansions: usize,
    pub prefix_scan: usize,
    /// Fuzzy neighbours of a misspelt word taken at most (the closest first, then the most
    /// common), and the candidates one vocabulary shard may give at most.
    pub fuzzy_expansions: usize,
    pub fuzzy_hits_per_shard: usize,
}

/// The defaults (`RankingParams::default()`).
pub const DEFAULT: RankingParams = RankingParams {
    exact: 1.0,
    compound: 0.95,
    prefix: 0.85,
    fuzzy1: 0.7,
    fuzzy2: 0.5,
    proximity: 0.5,
    whole_title: 0.2,
    rrf_k: 60.0,
    hybrid: (0.37, 0.63),
    exact_shaped: (0.8, 0.2),
    balanced: (0.5, 0.5),
    keywords: (0.7, 0.3),
    semantic_depth: 100,
    unreached_meaning: 1.0,
    meaning_only_within: 0.3,
    semantic_fallback_min: 0.2,
    coverage_max_clauses: 6,
    coverage_to_outrank_meaning: 0.5,
    clear_meaning_margin: 0.05,
    rocchio_docs: 3,
    rocchio_weight: 1.0,
    second_chunk_weight: 0.3,
    evidence_rank: 20,
    feedback_min_clauses: 8,
    feedback_docs: 5,
    feedback_terms: 10,
    feedback_original_weight: 0.7,
    probe_scale: 1.0,
    group_scale: 1.0,
    navigation_weight: 0.5,
    recency_floor: 0.8,
    recency_half_life_days: 180.0,
    demoted_to: 0.999,
    demoted_spread: 0.0009,
    prefix_expansions: 40,
    prefix_scan: 20_000,
    fuzzy_expansions: 8,
    fuzzy_hits_per_shard: 512,
};

impl Default for RankingParams {
    fn default() -> Self {
        DEFAULT
    }
}

impl RankingParams {
    /// Set one parameter by its name (a pair as `lexical,semantic`): what `sift eval
    /// --param` takes. Native hosts only: the browser engines keep the defaults.
    #[cfg(feature = "explain")]
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SiftError> {
        let bad = |what: &str, v: &str| SiftError::invalid(format!("{name}: {v:?} is not {what}"));
        let f = |v: &str| v.trim().parse::<f32>().map_err(|_| bad("a number", v));
        let n = |v: &str| v.trim().parse::<usize>().map_err(|_| bad("a count", v));
        let pair = |v: &str| match v.split_once(',') {
            Some((a, b)) => Ok((f(a)?, f(b)?)),
            None => Err(bad("a pair lexical,semantic", v)),
        };
        match name {
            "exact" => self.exact = f(value)?,
            "compound" => self.compound = f(value)?,
            "prefix" => self.prefix = f(value)?,
            "fuzzy1" => self.fuzzy1 = f(value)?,
            "fuzzy2" => self.fuzzy2 = f(value)?,
            "proximity" => self.proximity = f(value)?,
            "whole_title" => self.whole_title = f(value)?,
            "rrf_k" => self.rrf_k = f(value)?,
            "hybrid" => self.hybrid = pair(value)?,
            "exact_shaped" => self.exact_shaped = pair(value)?,
            "balanced" => self.balanced = pair(value)?,
            "keywords" => self.keywords = pair(value)?,
            "semantic_depth" => self.semantic_depth = n(value)?,
            "unreached_meaning" => self.unreached_meaning = f(value)?,
            "meaning_only_within" => self.meaning_only_within = f(value)?,
            "semantic_fallback_min" => self.semantic_fallback_min = f(value)?,
            "coverage_max_clauses" => self.coverage_max_clauses = n(value)?,
            "coverage_to_outrank_meaning" => self.coverage_to_outrank_meaning = f(value)?,
            "clear_meaning_margin" => self.clear_meaning_margin = f(value)?,
            "rocchio_docs" => self.rocchio_docs = n(value)?,
            "rocchio_weight" => self.rocchio_weight = f(value)?,
            "second_chunk_weight" => self.second_chunk_weight = f(value)?,
            "evidence_rank" => self.evidence_rank = n(value)?,
            "probe_scale" => self.probe_scale = f(value)?,
            "group_scale" => self.group_scale = f(value)?,
            "feedback_min_clauses" => self.feedback_min_clauses = n(value)?,
            "feedback_docs" => self.feedback_docs = n(value)?,
            "feedback_terms" => self.feedback_terms = n(value)?,
            "feedback_original_weight" => self.feedback_original_weight = f(value)?,
            "navigation_weight" => self.navigation_weight = f(value)?,
            "recency_floor" => self.recency_floor = f(value)?,
            "recency_half_life_days" => self.recency_half_life_days = f(value)?,
            "demoted_to" => self.demoted_to = f(value)?,
            "demoted_spread" => self.demoted_spread = f(value)?,
            "prefix_expansions" => self.prefix_expansions = n(value)?,
            "prefix_scan" => self.prefix_scan = n(value)?,
            "fuzzy_expansions" => self.fuzzy_expansions = n(value)?,
            "fuzzy_hits_per_shard" => self.fuzzy_hits_per_shard = n(value)?,
            _ => return Err(SiftError::invalid(format!("no ranking parameter {name:?}"))),
        }
        Ok(())
    }
}
