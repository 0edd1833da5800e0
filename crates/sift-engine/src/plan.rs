//! From the parsed query to a plan: one clause per query group (a word, a phrase, `a OR b`,
//! an exclusion), each a set of alternative ways to match — the exact term, a compound's
//! joined form and its parts as a phrase, and for the word being typed its prefix
//! completions — resolved against the term dictionary.
//!
//! Drafting (what each clause will look up) needs no shard; resolving reads the postings.
//! [`Draft::shards`] says which term shards resolution reads, so the search can ask for
//! all of them in one round.

use super::expand;
use super::resolve::{Flow, Resolver};
use super::{Engine, ShardId};
use crate::query::{Group, Item, ParsedQuery};
use crate::{fuzzy, rank};
use sift_format::terms::PostingList;
use sift_text::analyzer::{self, Analyzer, Token};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AltKind {
    Exact,
    Compound,
    Prefix,
    Fuzzy,
}

impl AltKind {
    #[cfg(feature = "explain")]
    pub fn name(self) -> &'static str {
        match self {
            AltKind::Exact => "exact",
            AltKind::Compound => "compound",
            AltKind::Prefix => "prefix",
            AltKind::Fuzzy => "fuzzy",
        }
    }
}

/// A term of the dictionary with its postings.
pub(crate) struct RTerm {
    pub term: String,
    pub pl: Arc<PostingList>,
    /// The term's idf, or its expansion group's (see `expand::share_group_idf`).
    pub idf: f32,
}

impl RTerm {
    /// The word as people write it: the term's most common surface form.
    pub fn surface(&self) -> String {
        if self.pl.surface.is_empty() {
            self.term.clone()
        } else {
            self.pl.surface.clone()
        }
    }
}

/// One way a clause can match: a term, or a sequence of terms that must be adjacent.
pub(crate) struct Alt {
    pub terms: Vec<RTerm>,
    /// Which terms are stop words (no positions: one-word gaps in a phrase).
    pub stop: Vec<bool>,
    pub phrase: bool,
    pub weight: f32,
    pub kind: AltKind,
}

impl Alt {
    /// The alternative's best possible score: every term saturated.
    pub fn max_score(&self) -> f32 {
        self.weight * self.terms.iter().map(|t| t.idf).sum::<f32>()
    }
}

/// One clause of the query after resolution against the dictionary.
pub(crate) struct Clause {
    /// As typed, for explanations and suggestions.
    pub label: String,
    pub alts: Vec<Alt>,
    pub negated: bool,
    /// Quoted text only (`"connection pool"`): a hard constraint, kept in every mode.
    pub quoted: bool,
    /// A long Han, Kana, Hangul or Thai run (a phrase of its bigrams; `query::is_long_run`).
    pub run: bool,
    /// Folded word eligible for fuzzy matching (a single plain word, not an identifier).
    pub fuzzy_word: Option<String>,
    /// A "did you mean" replacement for this clause.
    pub suggestion: Option<String>,
    /// Added by relevance feedback (`feedback`), not typed: optional, not highlighted.
    pub expansion: bool,
    /// Stop words typed just before the clause (dropped: they carry no positions), which
    /// proximity lets stand between it and the word before (`Effects of the locale`).
    pub stops_before: usize,
}

impl Clause {
    /// Documents containing the clause as typed (fuzzy neighbours aside).
    pub fn exact_df(&self) -> u32 {
        self.alts.iter().filter(|a| a.kind != AltKind::Fuzzy).flat_map(|a| a.terms.iter()).map(|t| t.pl.df).max().unwrap_or(0)
    }
    pub fn max_score(&self) -> f32 {
        self.alts.iter().map(Alt::max_score).fold(0.0, f32::max)
    }
}

/// The resolved query: clauses, and which of them are positive (to match, not exclude).
pub(crate) struct Plan {
    pub clauses: Vec<Clause>,
    pub positive: Vec<usize>,
    /// The query's words as typed, stop words too (`typed_terms`).
    pub typed: Vec<String>,
}

impl Plan {
    pub fn positive_clauses(&self) -> impl Iterator<Item = &Clause> {
        self.positive.iter().map(|&i| &self.clauses[i])
    }

    /// Long input (a pasted paragraph): keep the `max` positive clauses that say most about
    /// the documents they match, the way "more like this" queries choose terms — weight
    /// idf · (1 + ln repeats), `repeats[i]` being how often clause `i` occurs in the text.
    /// Words found nowhere match nothing and go first; quoted text and exclusions always
    /// stay. Returns the labels kept, when anything was dropped.
    pub fn keep_most_informative(&mut self, max: usize, repeats: &[u32], doc_count: u32) -> Option<Vec<String>> {
        if self.positive.len() <= max {
            return None;
        }
        let quoted = self.positive.iter().filter(|&&i| self.clauses[i].quoted).count();
        // (weight, clause) of every unquoted clause found in the bundle.
        let mut free: Vec<(f32, usize)> = self
            .positive
            .iter()
            .map(|&i| (&self.clauses[i], i))
            .filter(|(c, _)| !c.quoted && c.exact_df() > 0)
            .map(|(c, i)| (rank::idf(doc_count, c.exact_df()) * (1.0 + (repeats.get(i).copied().unwrap_or(1).max(1) as f32).ln()), i))
            .collect();
        // Highest weight first; ties keep the text's order.
        free.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        free.truncate(max.saturating_sub(quoted));
        let keep: Vec<usize> = free.into_iter().map(|(_, i)| i).collect();
        let clauses = std::mem::take(&mut self.clauses);
        self.clauses = clauses.into_iter().enumerate().filter(|(i, c)| c.negated || c.quoted || keep.contains(i)).map(|(_, c)| c).collect();
        self.positive = (0..self.clauses.len()).filter(|&i| !self.clauses[i].negated).collect();
        Some(self.positive_clauses().map(|c| c.label.clone()).collect())
    }
}

/// Drafts with repeated clauses (same text, folded) merged, and how often each occurred:
/// a pasted paragraph says "the" and "cache" many times, and counts are evidence.
pub(crate) fn merge_repeats(drafts: Vec<Draft>) -> (Vec<Draft>, Vec<u32>) {
    // The distinct clauses, in order (a paragraph of 16 KB has a few hundred).
    let mut seen: Vec<(String, bool)> = Vec::new();
    let (mut out, mut counts): (Vec<Draft>, Vec<u32>) = (Vec::new(), Vec::new());
    for d in drafts {
        let key = (analyzer::fold(&d.label), d.negated);
        match seen.iter().position(|k| *k == key) {
            Some(i) => counts[i] += 1,
            None => {
                seen.push(key);
                out.push(d);
                counts.push(1);
            }
        }
    }
    (out, counts)
}

/// A clause before resolution: what was typed, and whether it may be expanded.
pub(crate) struct Draft {
    pub label: String,
    items: Vec<Item>,
    pub negated: bool,
    /// The word being typed: it also matches as a prefix.
    open: bool,
    quoted: bool,
    run: bool,
    pub fuzzy_word: Option<String>,
    stops_before: usize,
}

fn is_stop_item(analyzer: &Analyzer, item: &Item) -> bool {
    match item {
        Item::Word(w) => analyzer.is_stopword(&analyzer::fold(w)),
        Item::Phrase(_) => false,
    }
}

/// Clauses of a parsed query. Stop words are dropped from bare single words unless nothing
/// else is left; `typo_tolerant: false` (meaning-only search) marks no word for fuzzy
/// matching, which would fetch the whole dictionary.
pub(crate) fn draft(analyzer: &Analyzer, parsed: &ParsedQuery, typo_tolerant: bool) -> Vec<Draft> {
    let n_groups = parsed.groups.len();
    let all_stop = parsed.groups.iter().all(|g| g.items.iter().all(|i| is_stop_item(analyzer, i)));
    let mut out = Vec::new();
    let mut stops_before = 0;
    for (gi, g) in parsed.groups.iter().enumerate() {
        if !g.negated && !all_stop && g.items.len() == 1 && is_stop_item(analyzer, &g.items[0]) {
            stops_before += 1;
            continue;
        }
        let fuzzy_word = match &g.items[..] {
            [Item::Word(w)] if typo_tolerant && !g.negated && !fuzzy::looks_like_identifier(w) => {
                let f = analyzer::fold(w);
                f.chars().all(sift_text::charclass::is_alphabetic).then_some(f)
            }
            _ => None,
        };
        let label = label(g);
        let quoted = g.is_quoted();
        let run = matches!(&g.items[..], [Item::Word(w)] if crate::query::is_long_run(w));
        out.push(Draft {
            label,
            items: g.items.clone(),
            negated: g.negated,
            open: parsed.open_last && gi + 1 == n_groups,
            quoted,
            run,
            fuzzy_word,
            stops_before: std::mem::take(&mut stops_before),
        });
    }
    out
}

/// A clause as typed: `word`, `"quoted text"`, `a OR b`.
pub(crate) fn label(g: &Group) -> String {
    let item = |i: &Item| match i {
        Item::Word(w) => w.clone(),
        Item::Phrase(p) => ["\"", p, "\""].concat(),
    };
    g.items.iter().map(item).collect::<Vec<_>>().join(" OR ")
}

/// In paragraph-like input quotation marks cite (a title, an error message, someone's
/// words); they do not constrain. Paragraph-like: `min_clauses` clauses or more with the
/// quoted words counted, some of them typed outside quotes. Returns the query with its
/// phrases as words, when it is one.
pub(crate) fn cited(analyzer: &Analyzer, parsed: &ParsedQuery, min_clauses: usize) -> Option<ParsedQuery> {
    let outside =
        parsed.groups.iter().any(|g| !g.negated && g.items.iter().any(|i| matches!(i, Item::Word(_)) && !is_stop_item(analyzer, i)));
    if !parsed.has_phrase() || !outside {
        return None;
    }
    let words = parsed.unquote(|_| true);
    // (Counted as `draft` counts: a lone stop word is no clause.)
    let clauses = words.groups.iter().filter(|g| !g.negated && !(g.items.len() == 1 && is_stop_item(analyzer, &g.items[0]))).count();
    (clauses >= min_clauses).then_some(words)
}

/// The terms an item looks up.
enum ItemTerms {
    /// A quoted phrase: its words in order.
    Phrase(Vec<String>),
    /// A word: its joined compound form (if it has parts), its parts, and — when it is the
    /// word being typed — its folded letters to complete.
    Word { joined: Option<String>, parts: Vec<String>, prefix: Option<String> },
}

fn item_terms(analyzer: &Analyzer, item: &Item, open: bool) -> ItemTerms {
    let mut toks = Vec::new();
    match item {
        Item::Phrase(text) => {
            analyzer.tokenize(text, 0, &mut toks);
            ItemTerms::Phrase(toks.into_iter().filter(Token::is_part).map(|t| t.term).collect())
        }
        Item::Word(raw) => {
            analyzer.tokenize(raw, 0, &mut toks);
            let joined = toks.iter().find(|t| t.joined).map(|t| t.term.clone());
            let parts = toks.into_iter().filter(Token::is_part).map(|t| t.term).collect();
            let prefix = open.then(|| analyzer::fold(raw).chars().filter(|&c| sift_text::charclass::is_alphanumeric(c)).collect());
            ItemTerms::Word { joined, parts, prefix }
        }
    }
}

impl Draft {
    /// The term shards resolving this clause reads.
    pub fn shards(&self, eng: &Engine) -> Vec<ShardId> {
        let mut out = Vec::new();
        let term = |t: &str, out: &mut Vec<ShardId>| out.extend(eng.shard_for_term(t).map(ShardId::Terms));
        for item in &self.items {
            match item_terms(&eng.analyzer, item, self.open) {
                ItemTerms::Phrase(terms) => terms.iter().for_each(|t| term(t, &mut out)),
                ItemTerms::Word { joined, parts, prefix } => {
                    joined.iter().chain(&parts).for_each(|t| term(t, &mut out));
                    if let Some(p) = prefix {
                        out.extend(expand::prefix_shards(eng, &p));
                    }
                }
            }
        }
        out.extend(self.fuzzy_word.as_deref().and_then(|w| expand::whole_small_vocabulary(eng, w)));
        out
    }

    fn resolve(&self, res: &Resolver) -> Flow<Clause> {
        let mut alts = Vec::new();
        for item in &self.items {
            match item_terms(&res.eng.analyzer, item, self.open) {
                ItemTerms::Phrase(terms) => alts.extend(alt(res, &terms, true, res.eng.params.exact, AltKind::Exact)?),
                ItemTerms::Word { joined, parts, prefix } => {
                    if let Some(j) = joined {
                        alts.extend(alt(res, &[j], false, res.eng.params.exact, AltKind::Exact)?);
                        alts.extend(alt(res, &parts, true, res.eng.params.compound, AltKind::Compound)?);
                    } else {
                        // One term, or parts without a joined form (an over-long compound, a Han run
                        // unquoted from a phrase): in order.
                        alts.extend(alt(res, &parts, true, res.eng.params.exact, AltKind::Exact)?);
                    }
                    if let Some(p) = prefix {
                        expand::prefix_alts(res, &p, &mut alts)?;
                    }
                }
            }
        }
        Ok(Clause {
            label: self.label.clone(),
            alts,
            negated: self.negated,
            quoted: self.quoted,
            run: self.run,
            fuzzy_word: self.fuzzy_word.clone(),
            suggestion: None,
            expansion: false,
            stops_before: self.stops_before,
        })
    }
}

/// Resolve drafted clauses against the dictionary (their shards must be loaded: see
/// [`Draft::shards`]).
pub(crate) fn resolve(res: &Resolver, drafts: &[Draft]) -> Flow<Plan> {
    let clauses = drafts.iter().map(|d| d.resolve(res)).collect::<Flow<Vec<Clause>>>()?;
    let positive = (0..clauses.len()).filter(|&i| !clauses[i].negated).collect();
    Ok(Plan { clauses, positive, typed: Vec::new() })
}

/// The query's words as typed, as terms, stop words too, in order: a stop word is no clause,
/// so only a section's heading can tell `with statement` ("The with statement") from the
/// other statements. Empty when an alternative (`a OR b`) leaves no one order.
pub(crate) fn typed_terms(analyzer: &Analyzer, parsed: &ParsedQuery) -> Vec<String> {
    let mut out = Vec::new();
    let mut toks: Vec<Token> = Vec::new();
    for g in parsed.groups.iter().filter(|g| !g.negated) {
        let ([Item::Word(text)] | [Item::Phrase(text)]) = &g.items[..] else { return Vec::new() };
        toks.clear();
        analyzer.tokenize(text, 0, &mut toks);
        out.extend(toks.drain(..).filter(Token::is_part).map(|t| t.term));
    }
    out
}

/// A dictionary term with its postings and idf (None: not in the dictionary).
pub(crate) fn rterm(res: &Resolver, term: &str) -> Flow<Option<RTerm>> {
    Ok(res.postings(term)?.map(|pl| RTerm { term: term.to_string(), idf: rank::idf(res.eng.live_docs(), pl.df), pl }))
}

/// An alternative over `terms`; None when any of them is not in the dictionary.
pub(crate) fn alt(res: &Resolver, terms: &[String], phrase: bool, weight: f32, kind: AltKind) -> Flow<Option<Alt>> {
    let mut rts = Vec::with_capacity(terms.len());
    for t in terms {
        match rterm(res, t)? {
            Some(rt) => rts.push(rt),
            None => return Ok(None),
        }
    }
    let stop = rts.iter().map(|t| res.eng.analyzer.is_stop_term(&t.term)).collect();
    Ok((!rts.is_empty()).then_some(Alt { terms: rts, stop, phrase: phrase && terms.len() > 1, weight, kind }))
}
