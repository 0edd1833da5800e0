//! A deliberately naive search engine: the specification Sift's index must agree with.
//!
//! It keeps every document's token lists in memory and answers a query by scanning every
//! document, with BM25F written out term by term — no dictionary, no postings, no shards,
//! no position arithmetic: phrases and proximity are found by walking each field's words.
//! What it shares with the engine is only what *defines* the ranking rather than
//! implements it: the analyzer (which words a text has), the stop-word list, the BM25F
//! parameters and the one-byte field-length quantisation (Lucene-style norms).
//!
//! Scope: the lexical pipeline for words that cannot be misspellings or prefixes of other
//! words (the property tests draw 4-letter words, for which Sift allows no typos, from a
//! prefix-free vocabulary): bare words (AND, then scored OR when AND cannot fill the page),
//! `a OR b`, phrases with stop-word gaps (quoted text required even when any term will do,
//! unless no document has it or it is cited in a paragraph: then it is its words),
//! `-exclusions`, proximity of neighbouring words, a title that is the query,
//! `field:value` filters in the text and in the request, `since`, `sort: date`,
//! `boost_recent`, pagination and facets, and relevance feedback (RM3) for queries of eight
//! clauses or more.

use sift_engine::rank::{Bm25fParams, N_FIELDS};
use sift_format::docmeta::{decode_len, encode_len};
use sift_text::analyzer;
use std::collections::{BTreeMap, BTreeSet};

/// A document as the property tests generate it.
#[derive(Debug, Clone)]
pub struct Doc {
    pub id: String,
    pub title: String,
    pub path: String,
    /// (heading, body)
    pub sections: Vec<(String, String)>,
    pub metadata: BTreeMap<String, Vec<String>>,
    /// Days since 1970-01-01.
    pub date: Option<i64>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Word(String),
    Phrase(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct Group {
    /// Alternatives (`a OR b`).
    pub items: Vec<Item>,
    pub negated: bool,
}

#[derive(Debug, Clone)]
pub struct Query {
    pub groups: Vec<Group>,
    /// `field:value` written in the query text.
    pub text_filters: Vec<(String, String)>,
    /// Request filters: field → any of these values.
    pub filters: BTreeMap<String, Vec<String>>,
    pub since: Option<i64>,
    pub sort_by_date: bool,
    pub boost_recent: bool,
    pub limit: usize,
    pub offset: usize,
}

/// One ranked document.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub id: String,
    pub score: f64,
    pub date: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct Answer {
    /// Every hit in order (the page is `ranked[offset..offset+limit]`).
    pub ranked: Vec<Ranked>,
    pub total: usize,
    pub facets: BTreeMap<String, BTreeMap<String, usize>>,
    /// Relevance feedback cut a near-tie (two answers, or two words, within float noise at
    /// the cut): which side Sift's f32 arithmetic lands on is not specified.
    pub ambiguous: bool,
}

/// One field instance's words in order: the title, the path, each heading, each body.
struct Field {
    kind: usize,
    words: Vec<String>,
}

struct Analysed {
    fields: Vec<Field>,
    lens: [u32; N_FIELDS],
}

impl Analysed {
    fn new(d: &Doc) -> Analysed {
        let mut fields = Vec::new();
        let mut add = |kind: usize, text: &str| fields.push(Field { kind, words: analyzer::Analyzer::english().terms(text) });
        add(0, &d.title);
        add(1, &d.path);
        for (h, b) in &d.sections {
            if !h.is_empty() {
                add(2, h);
            }
            add(3, b);
        }
        let mut lens = [0u32; N_FIELDS];
        for f in &fields {
            lens[f.kind] += f.words.len() as u32;
        }
        Analysed { fields, lens }
    }

    fn tf(&self, term: &str) -> [u32; N_FIELDS] {
        let mut tf = [0u32; N_FIELDS];
        for f in &self.fields {
            tf[f.kind] += f.words.iter().filter(|w| *w == term).count() as u32;
        }
        tf
    }

    fn contains(&self, term: &str) -> bool {
        self.fields.iter().any(|f| f.words.iter().any(|w| w == term))
    }

    /// The phrase's words in a row in one field. Stop words must occur in the document
    /// but stand for any one word between content words (an index keeps no positions for
    /// them); at either end of the phrase they constrain nothing.
    fn has_phrase(&self, terms: &[String]) -> bool {
        if !terms.iter().all(|t| self.contains(t)) {
            return false;
        }
        let content: Vec<usize> = (0..terms.len()).filter(|&j| !analyzer::Analyzer::english().is_stop_term(&terms[j])).collect();
        let (Some(&first), Some(&last)) = (content.first(), content.last()) else { return true };
        let inner = &terms[first..=last];
        self.fields.iter().any(|f| {
            (0..f.words.len()).any(|start| {
                inner.iter().enumerate().all(|(j, t)| analyzer::Analyzer::english().is_stop_term(t) || f.words.get(start + j) == Some(t))
            })
        })
    }

    /// Places of `a` followed by `b`, directly or `between` words later, in one field.
    fn near(&self, a: &str, b: &str, between: usize) -> u32 {
        let at = |w: &[String], i: usize| w.get(i).is_some_and(|x| x == b);
        let followed = |w: &[String], i: usize| w[i] == a && (at(w, i + 1) || at(w, i + 1 + between));
        self.fields.iter().map(|f| (0..f.words.len()).filter(|&i| followed(&f.words, i)).count() as u32).sum()
    }
}

pub struct Reference {
    docs: Vec<Doc>,
    analysed: Vec<Analysed>,
    params: Bm25fParams,
    avg: [f64; N_FIELDS],
    filter_fields: Vec<String>,
}

const W_PROXIMITY: f64 = 0.5;
/// A title of at most one word more than the query's clauses, holding every one of them,
/// adds this share of the clauses' best scores.
const W_WHOLE_TITLE: f64 = 0.2;
/// Relevance feedback: from how many typed clauses, how many best answers, how many of
/// their words, how many words of each.
const FEEDBACK_MIN_CLAUSES: usize = 8;
const FEEDBACK_DOCS: usize = 5;
const FEEDBACK_TERMS: usize = 10;
const FEEDBACK_TOKENS: usize = 1000;
/// RM3's λ: the typed clauses' share of the expanded query's weight.
const FEEDBACK_ORIGINAL_WEIGHT: f64 = 0.7;

impl Reference {
    pub fn new(docs: &[Doc], filter_fields: &[&str]) -> Reference {
        let analysed: Vec<Analysed> = docs.iter().map(Analysed::new).collect();
        let n = docs.len().max(1) as f64;
        let avg = std::array::from_fn(|f| analysed.iter().map(|a| f64::from(a.lens[f])).sum::<f64>() / n);
        Reference {
            docs: docs.to_vec(),
            analysed,
            params: Bm25fParams::default(),
            avg,
            filter_fields: filter_fields.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn df(&self, term: &str) -> usize {
        self.analysed.iter().filter(|a| a.contains(term)).count()
    }

    fn idf(&self, term: &str) -> f64 {
        let n = self.docs.len() as f64;
        let df = self.df(term) as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// BM25F of one term in one document: field frequencies weighted and length-normalised
    /// per field, summed, then saturated once.
    fn term_score(&self, d: usize, term: &str) -> f64 {
        let p = &self.params;
        let a = &self.analysed[d];
        let tf = a.tf(term);
        let mut pseudo = 0.0;
        for f in 0..N_FIELDS {
            if tf[f] > 0 {
                let len = f64::from(decode_len(encode_len(a.lens[f])));
                let norm = 1.0 - f64::from(p.b[f]) + f64::from(p.b[f]) * len / self.avg[f].max(1e-3);
                pseudo += f64::from(p.weight[f]) * f64::from(tf[f]) / norm;
            }
        }
        self.idf(term) * pseudo / (f64::from(p.k1) + pseudo)
    }

    fn item_terms(item: &Item) -> Vec<String> {
        match item {
            Item::Word(w) => analyzer::Analyzer::english().terms(w),
            Item::Phrase(ws) => analyzer::Analyzer::english().terms(&ws.join(" ")),
        }
    }

    /// Every term of the item occurs somewhere in the collection.
    fn resolves(&self, terms: &[String]) -> bool {
        !terms.is_empty() && terms.iter().all(|t| self.df(t) > 0)
    }

    fn item_matches(&self, d: usize, terms: &[String]) -> bool {
        let a = &self.analysed[d];
        if terms.len() == 1 {
            a.contains(&terms[0])
        } else {
            a.has_phrase(terms)
        }
    }

    /// A clause's score in a document: its best matching alternative (None: no match).
    fn clause_score(&self, d: usize, g: &Group) -> Option<f64> {
        g.items
            .iter()
            .map(Self::item_terms)
            .filter(|t| self.resolves(t) && self.item_matches(d, t))
            .map(|t| t.iter().map(|t| self.term_score(d, t)).sum::<f64>())
            .reduce(f64::max)
    }

    fn clause_max(&self, g: &Group) -> f64 {
        g.items
            .iter()
            .map(Self::item_terms)
            .filter(|t| self.resolves(t))
            .map(|t| t.iter().map(|t| self.idf(t)).sum::<f64>())
            .fold(0.0, f64::max)
    }

    /// The single, non-stop word a clause stands for, if it is one (for proximity): its
    /// first alternative that occurs in the collection.
    fn plain_term(&self, g: &Group) -> Option<String> {
        let first = g.items.iter().map(Self::item_terms).find(|t| self.resolves(t))?;
        (first.len() == 1 && !analyzer::Analyzer::english().is_stop_term(&first[0])).then(|| first[0].clone())
    }

    /// Whether `d`'s title is about as long as the query's `clauses` and holds every one of
    /// them (each by an alternative whose every term is in the title).
    fn title_is(&self, d: usize, clauses: &[&Group]) -> bool {
        let a = &self.analysed[d];
        a.lens[0] <= clauses.len() as u32 + 1
            && clauses.iter().all(|g| {
                g.items
                    .iter()
                    .map(Self::item_terms)
                    .filter(|t| self.resolves(t) && self.item_matches(d, t))
                    .any(|t| t.iter().all(|t| a.tf(t)[0] > 0))
            })
    }

    fn proximity_max(&self, a: &str, b: &str) -> f64 {
        W_PROXIMITY * (self.idf(a) + self.idf(b)) / 2.0
    }

    fn is_stop_item(item: &Item) -> bool {
        matches!(item, Item::Word(w) if analyzer::Analyzer::english().is_stopword(&analyzer::fold(w)))
    }

    fn allowed(&self, d: usize, q: &Query) -> bool {
        let doc = &self.docs[d];
        let mut wanted: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (f, vs) in &q.filters {
            wanted.entry(f).or_default().extend(vs.iter().map(String::as_str));
        }
        for (f, v) in &q.text_filters {
            if self.filter_fields.contains(f) {
                wanted.entry(f).or_default().push(v);
            }
        }
        let fields_ok = wanted.iter().all(|(f, vs)| doc.metadata.get(*f).is_some_and(|have| have.iter().any(|h| vs.contains(&h.as_str()))));
        fields_ok && q.since.is_none_or(|cut| doc.date.is_some_and(|d| d >= cut))
    }

    /// Quoted text as a hard constraint or as words: in paragraph-like input (eight clauses
    /// or more with the quoted words counted, some typed outside quotes) every phrase is
    /// its words; a phrase no document contains, or phrases never all in one document,
    /// are their words. A lone phrase becomes a clause per word, quoted alternatives one
    /// clause of all their words.
    fn unquoted(&self, groups: &[Group]) -> Vec<Group> {
        let quoted = |g: &Group| !g.negated && g.items.iter().all(|i| matches!(i, Item::Phrase(_)));
        let unquote = |groups: &[Group], which: &dyn Fn(&Group) -> bool| -> Vec<Group> {
            let mut out = Vec::new();
            for g in groups {
                let words = || g.items.iter().flat_map(|i| if let Item::Phrase(ws) = i { ws.clone() } else { Vec::new() }).map(Item::Word);
                if !quoted(g) || !which(g) {
                    out.push(g.clone());
                } else if g.items.len() == 1 {
                    out.extend(words().map(|w| Group { items: vec![w], negated: false }));
                } else {
                    out.push(Group { items: words().collect(), negated: false });
                }
            }
            out
        };
        let has_phrase = groups.iter().any(|g| g.items.iter().any(|i| matches!(i, Item::Phrase(_))));
        let outside = groups.iter().any(|g| !g.negated && g.items.iter().any(|i| matches!(i, Item::Word(_)) && !Self::is_stop_item(i)));
        let words = unquote(groups, &|_| true);
        let all_stop = words.iter().all(|g| g.items.iter().all(Self::is_stop_item));
        let clauses = words.iter().filter(|g| !g.negated && (all_stop || g.items.len() > 1 || !Self::is_stop_item(&g.items[0]))).count();
        if has_phrase && outside && clauses >= FEEDBACK_MIN_CLAUSES {
            return words;
        }
        let found = |g: &Group, d: usize| self.clause_score(d, g).is_some();
        let phrases: Vec<&Group> = groups.iter().filter(|g| quoted(g)).collect();
        let nowhere = |g: &Group| !(0..self.docs.len()).any(|d| found(g, d));
        if phrases.iter().any(|g| nowhere(g)) {
            return unquote(groups, &|g| nowhere(g));
        }
        if !phrases.is_empty() && !(0..self.docs.len()).any(|d| phrases.iter().all(|g| found(g, d))) {
            return unquote(groups, &|_| true);
        }
        groups.to_vec()
    }

    pub fn search(&self, q: &Query) -> Answer {
        let groups = self.unquoted(&q.groups);
        let q = &Query { groups, ..q.clone() };
        // A lone stop word is no clause — unless the query has nothing else.
        let all_stop = q.groups.iter().all(|g| g.items.iter().all(Self::is_stop_item));
        let dropped = |g: &Group| !all_stop && g.items.len() == 1 && Self::is_stop_item(&g.items[0]);
        let positive: Vec<&Group> = q.groups.iter().filter(|g| !g.negated && !dropped(g)).collect();
        let negative: Vec<&Group> = q.groups.iter().filter(|g| g.negated).collect();
        if positive.is_empty() {
            // No words: with filters (or `since`), every page they admit and no exclusion
            // removes, each scored 1; without, nothing.
            let narrows = !q.filters.is_empty() || q.since.is_some() || q.text_filters.iter().any(|(f, _)| self.filter_fields.contains(f));
            let admitted: Vec<(usize, f64)> = (0..self.docs.len())
                .filter(|&d| narrows && self.allowed(d, q) && !negative.iter().any(|g| self.clause_score(d, g).is_some()))
                .map(|d| (d, 1.0))
                .collect();
            return self.answer(q, admitted, 1.0, false);
        }
        // Neighbouring words, and how many stop words were typed between them (at most 3).
        let stops_before = |g: &Group| {
            let at = q.groups.iter().position(|x| std::ptr::eq(x, g)).unwrap();
            q.groups[..at].iter().rev().take_while(|x| !x.negated && dropped(x)).count().min(3)
        };
        let pairs: Vec<(String, String, usize)> =
            positive.windows(2).filter_map(|w| Some((self.plain_term(w[0])?, self.plain_term(w[1])?, stops_before(w[1])))).collect();
        let denom = ((1.0 + W_WHOLE_TITLE) * positive.iter().map(|g| self.clause_max(g)).sum::<f64>()
            + pairs.iter().map(|(a, b, _)| self.proximity_max(a, b)).sum::<f64>())
        .max(1e-6);

        // Quoted text is a hard constraint, also when "any term" would do.
        let quoted: Vec<&Group> = positive.iter().copied().filter(|g| g.items.iter().all(|i| matches!(i, Item::Phrase(_)))).collect();
        // Every document, scored by scanning it.
        let candidates: Vec<usize> = (0..self.docs.len())
            .filter(|&d| self.allowed(d, q))
            .filter(|&d| !negative.iter().any(|g| self.clause_score(d, g).is_some()))
            .filter(|&d| quoted.iter().all(|g| self.clause_score(d, g).is_some()))
            .collect();
        // The query: each typed clause's weight, and words added by feedback (none yet).
        let mut weights = vec![1.0f64; positive.len()];
        let mut added: Vec<(String, f64)> = Vec::new();
        let score = |d: usize, all: bool, weights: &[f64], added: &[(String, f64)]| -> Option<f64> {
            let parts: Vec<Option<f64>> = positive.iter().map(|g| self.clause_score(d, g)).collect();
            let matched = parts.iter().filter(|p| p.is_some()).count();
            let extra: Vec<f64> =
                added.iter().filter(|(t, _)| self.analysed[d].contains(t)).map(|(t, w)| w * self.term_score(d, t)).collect();
            if matched + extra.len() == 0 || (all && matched < parts.len()) {
                return None;
            }
            let mut s: f64 = parts.iter().zip(weights).filter_map(|(p, w)| p.map(|p| p * w)).sum::<f64>() + extra.iter().sum::<f64>();
            for (a, b, between) in &pairs {
                let c = f64::from(self.analysed[d].near(a, b, *between));
                if c > 0.0 {
                    s += self.proximity_max(a, b) * c / (c + 1.0);
                }
            }
            if self.title_is(d, &positive) {
                s += W_WHOLE_TITLE * positive.iter().zip(weights).map(|(g, w)| w * self.clause_max(g)).sum::<f64>();
            }
            Some(s)
        };
        let evaluate = |all: bool, weights: &[f64], added: &[(String, f64)]| -> Vec<(usize, f64)> {
            candidates.iter().filter_map(|&d| score(d, all, weights, added).map(|s| (d, s))).collect()
        };
        let mut hits = evaluate(true, &weights, &added);
        let mut all = true;
        if hits.len() < q.offset + q.limit && positive.len() > 1 {
            let any = evaluate(false, &weights, &added);
            if any.len() > hits.len() {
                hits = any;
                all = false;
            }
        }
        // Relevance feedback (RM3) for paragraph-like queries: the relevance model of the
        // best answers, P(w|R) = Σ_d P(w|d)·P(d|q) over the FEEDBACK_DOCS best (P(d|q) their
        // share of the scores; P(w|d) a content word's share of the page's first
        // FEEDBACK_TOKENS words of title, headings and bodies), its FEEDBACK_TERMS most
        // probable words with probability p, weigh (1−λ)/λ·n·p beside each of the n typed
        // clauses: a typed word's clause by 1 + that, any other word as an optional clause.
        let mut ambiguous = false;
        let mut denom = denom;
        if positive.len() >= FEEDBACK_MIN_CLAUSES && !hits.is_empty() {
            let mut first: Vec<(usize, f64)> = hits.iter().map(|&(d, s)| (d, (s / denom).min(1.0))).collect();
            first.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let near = |a: f64, b: f64, eps: f64| a != b && (a - b).abs() < eps;
            ambiguous |= first.len() > FEEDBACK_DOCS && near(first[FEEDBACK_DOCS - 1].1, first[FEEDBACK_DOCS].1, 1e-4);
            first.truncate(FEEDBACK_DOCS);
            let total: f64 = first.iter().map(|(_, s)| s).sum();
            let mut model: BTreeMap<String, f64> = BTreeMap::new();
            for &(d, s) in &first {
                let doc = &self.docs[d];
                let words: Vec<String> = std::iter::once(&doc.title)
                    .chain(doc.sections.iter().flat_map(|(h, b)| [h, b]))
                    .flat_map(|t| analyzer::Analyzer::english().terms(t))
                    .take(FEEDBACK_TOKENS)
                    .filter(|t| t.chars().count() > 1 && !analyzer::Analyzer::english().is_stop_term(t))
                    .collect();
                for w in &words {
                    *model.entry(w.clone()).or_insert(0.0) += s / total / words.len() as f64;
                }
            }
            let mut model: Vec<(String, f64)> = model.into_iter().collect();
            model.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            ambiguous |= model.len() > FEEDBACK_TERMS && near(model[FEEDBACK_TERMS - 1].1, model[FEEDBACK_TERMS].1, 1e-5);
            model.truncate(FEEDBACK_TERMS);
            let z: f64 = model.iter().map(|(_, p)| p).sum();
            // Excluded words are not added; an excluded phrase excludes neither of its words.
            let excluded = |t: &str| {
                negative.iter().any(|g| g.items.iter().any(|i| matches!(i, Item::Word(_)) && Self::item_terms(i) == [t.to_string()]))
            };
            for (t, p) in model.into_iter().filter(|(t, _)| !excluded(t)) {
                let lambda = FEEDBACK_ORIGINAL_WEIGHT;
                let w = (1.0 - lambda) / lambda * positive.len() as f64 * p / z;
                let own = positive.iter().position(|g| {
                    g.items.iter().map(Self::item_terms).any(|terms| terms.len() == 1 && terms[0] == t && self.resolves(&terms))
                });
                match own {
                    Some(i) => weights[i] *= 1.0 + w,
                    None => added.push((t, w)),
                }
            }
            hits = evaluate(all, &weights, &added);
            denom = ((1.0 + W_WHOLE_TITLE) * positive.iter().zip(&weights).map(|(g, w)| w * self.clause_max(g)).sum::<f64>()
                + added.iter().map(|(t, w)| w * self.idf(t)).sum::<f64>()
                + pairs.iter().map(|(a, b, _)| self.proximity_max(a, b)).sum::<f64>())
            .max(1e-6);
        }
        self.answer(q, hits, denom, ambiguous)
    }

    /// Scores normalised by `denom`, the recency boost, the order, facets.
    fn answer(&self, q: &Query, hits: Vec<(usize, f64)>, denom: f64, ambiguous: bool) -> Answer {
        let newest = self.docs.iter().filter_map(|d| d.date).max().unwrap_or(0);
        let mut ranked: Vec<(usize, Ranked)> = hits
            .into_iter()
            .map(|(d, s)| {
                let mut s = (s / denom).min(1.0);
                if q.boost_recent {
                    s *= match self.docs[d].date {
                        Some(date) => 0.8 + 0.2 * 0.5f64.powf((newest - date).max(0) as f64 / 180.0),
                        None => 0.8,
                    };
                }
                (d, Ranked { id: self.docs[d].id.clone(), score: s, date: self.docs[d].date })
            })
            .collect();
        ranked.sort_by(|(da, a), (db, b)| {
            let by_date = if q.sort_by_date { b.date.cmp(&a.date) } else { std::cmp::Ordering::Equal };
            by_date.then(b.score.total_cmp(&a.score)).then(da.cmp(db))
        });
        let mut facets: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        for (d, _) in &ranked {
            for f in &self.filter_fields {
                let values: BTreeSet<&String> = self.docs[*d].metadata.get(f).into_iter().flatten().collect();
                for v in values {
                    *facets.entry(f.clone()).or_default().entry(v.clone()).or_default() += 1;
                }
            }
        }
        Answer { total: ranked.len(), ranked: ranked.into_iter().map(|(_, r)| r).collect(), facets, ambiguous }
    }
}
