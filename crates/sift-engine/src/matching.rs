//! Which documents an alternative matches, from postings and positions alone: a single term
//! matches where it occurs; a phrase where its words sit at consecutive positions (stop
//! words carry no positions and count as one-word gaps). Also the proximity bonus of two
//! neighbouring query words found side by side, or with the stop words typed between them.

use super::plan::{Alt, AltKind, Clause, RTerm};

/// Documents matching an alternative, with the index of each term's posting for that doc.
/// A phrase of stop words only is matched by co-occurrence.
pub(crate) fn alt_matches(alt: &Alt) -> Vec<(u32, Vec<usize>)> {
    let first = &alt.terms[0].pl;
    if alt.terms.len() == 1 {
        return first.docs.iter().enumerate().map(|(k, &d)| (d, vec![k])).collect();
    }
    first.docs.iter().filter_map(|&doc| alt_match_at(alt, doc).map(|ks| (doc, ks))).collect()
}

/// Whether `doc` matches an alternative (terms present; adjacent for a phrase), with the
/// index of each term's posting for it. `"state of the art"` needs `state` and `art` three
/// apart.
pub(crate) fn alt_match_at(alt: &Alt, doc: u32) -> Option<Vec<usize>> {
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

/// At most this many words between a pair found near each other: the stop words typed
/// between them, a few (a field's positions end `POSITION_GAP` before the next one's
/// begin, so a pair never spans two fields).
pub(crate) const MAX_WORDS_BETWEEN: usize = 3;

/// A pair of neighbouring words of the query, for the proximity bonus.
pub(crate) struct Pair<'c> {
    pub a: &'c RTerm,
    pub b: &'c RTerm,
    /// How many words stand between them as typed: the stop words (`Effects of the
    /// locale`: 2), at most [`MAX_WORDS_BETWEEN`].
    pub between: usize,
}

/// Neighbouring plain words of the query as typed (`string methods`): their exact terms, in
/// order.
pub(crate) fn proximity_pairs<'c>(clauses: &'c [Clause], positive: &[usize]) -> Vec<Pair<'c>> {
    let plain = |ci: usize| -> Option<&'c RTerm> {
        let a = clauses[ci].alts.first()?;
        (a.kind == AltKind::Exact && a.terms.len() == 1 && !a.stop[0]).then(|| &a.terms[0])
    };
    let typed: Vec<usize> = positive.iter().copied().filter(|&i| !clauses[i].expansion).collect();
    let pair = |w: &[usize]| Some(Pair { a: plain(w[0])?, b: plain(w[1])?, between: clauses[w[1]].stops_before.min(MAX_WORDS_BETWEEN) });
    typed.windows(2).filter_map(pair).collect()
}

impl Pair<'_> {
    /// The most the pair can add: `weight` (`RankingParams::proximity`) times its mean idf.
    pub fn max(&self, weight: f32) -> f32 {
        weight * (self.a.idf + self.b.idf) / 2.0
    }

    /// The proximity bonus of one document, if `b` follows `a` somewhere in it directly or
    /// as the query had it (`between` words later, as a phrase's stop words count): it
    /// grows with the count c of the places of `a` so followed, saturating like a term
    /// frequency (c/(c+1)).
    pub fn bonus(&self, doc: u32, weight: f32) -> Option<f32> {
        let (a, b) = (&self.a.pl, &self.b.pl);
        let pa = a.positions_of(a.docs.binary_search(&doc).ok()?);
        let pb = b.positions_of(b.docs.binary_search(&doc).ok()?);
        let at = |p: u32| pb.binary_search(&p).is_ok();
        let c = pa.iter().filter(|&&p| at(p + 1) || at(p + 1 + self.between as u32)).count();
        (c > 0).then(|| self.max(weight) * c as f32 / (c as f32 + 1.0))
    }
}
